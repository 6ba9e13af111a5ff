//! The elementwise unary ops, each declared once (Note [Op declarations] in `ops/unary.rs`).
//!
//! An entry: `Variant python_name { ... }` with
//! - `node`: PyTorch's backward node name (`type(y.grad_fn).__name__`);
//! - `dtypes`: the dtype rule ([`Dtypes`]);
//! - `params` (optional): `[name: f64 = default, name: Option<f64> = None, ...]`, at most three
//!   float parameters ([`Param`](super::unary::Param); `MinBound` / `MaxBound` for a clamp
//!   bound that may be None); the kernels, the integer kernel of `Dtypes::Keep` and the formula
//!   see them by name, the WGSL expression as `p.a`, `p.b`, `p.c` (None as NaN: test it with
//!   `is_nan`; an absent bound as -inf / +inf), the Python forms take them after `input` with
//!   their defaults, the node keeps `_saved_<name>`;
//! - `save`: what the derivative reads: `Input`, `Result` or `Nothing` (then `s` is `g`);
//! - `cpu`: the kernel on one float32 or float64 value `v` (of type `T`);
//! - `wgsl`: the same as a WGSL expression in `v: f32` (helpers in `shaders/unary.wgsl`);
//! - `grad`: the derivative as a tensor formula in the incoming gradient `g` and the saved `s`;
//! - `methods` / `inplace`: the Tensor methods generated (`src/python/declared.rs`);
//! - `functions`: the `gradrs.*` functions generated (`python/gradrs/_ops.py`, by
//!   `tools/gen_ops.py`), `sig`: their signature as PyTorch's parser prints it.
//!
//! The rows are written by family in `unary_decl/`, in table order (a row's position there is
//! its op code, derived, never written): `math.rs` (neg, exp, log, trigonometric, sqrt,
//! rounding, sigmoid, relu, logit ...), `clamp.rs`, `activation.rs`, `inverse_hyperbolic.rs`
//! and `special.rs`; each family's macro appends its rows and hands them to the next. A new op
//! goes into its family's file.

pub(crate) mod activation;
pub(crate) mod clamp;
pub(crate) mod inverse_hyperbolic;
pub(crate) mod math;
pub(crate) mod special;

/// Invokes `$m!` with the table of unary ops (the X-macro pattern: each generator reads the
/// same table), gathered from the family files in table order.
macro_rules! unary_table {
    ($m:ident) => {
        $crate::ops::unary_decl::math::math_rows! { $m }
    };
}
pub(crate) use unary_table;
