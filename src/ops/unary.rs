//! Elementwise unary ops: the generator that turns the declarations of `ops/unary_decl.rs`
//! into the `UnaryOp` enum, its kernels (CPU and GPU), its backward and its metadata.
//!
//! Note [Op declarations]: an elementwise op is declared once, in a table read by macros (the
//! X-macro pattern: `unary_table!(generator)`): its name, node name, dtype rule, CPU kernel,
//! WGSL expression, derivative formula (in tensor ops, so higher order and every device come
//! free) and Python names. This file generates the enum (the position in the table is the only
//! op code), the dispatch of the CPU kernels (one monomorphized closure per op and dtype, so
//! contiguous loops vectorize), the GPU kernel (the unary shader's `apply` is the declared
//! expression: `backend::wgpu::unary_expr`) and the backward; `src/python/declared.rs`
//! generates the Tensor methods from the same table; `_native._declared_ops()` lists it, from
//! which `tools/gen_ops.py` writes the functional forms (`python/gradrs/_ops.py`) and the
//! stub block of `_native.pyi`. Why a declarative macro rather than a build script or a
//! checked-in generator for the Rust side: the formulas and kernels stay Rust that the
//! compiler, rustfmt's neighbours and rust-analyzer see where they are written, with no
//! second language and no build step; only the Python files, which Rust cannot write at
//! build time, are generated and checked in (tests/test_generated.py fails when stale).

use crate::autograd::saved::{SavedValue, Value};
use crate::autograd::{needs_grad, record, Backward, Ctx, SavedTensor};
use crate::dtype::{DType, Scalar};
use crate::error::{Error, Result};
use crate::ops::creation;
use crate::ops::unary_decl::unary_table;
use crate::ops::Operand;
use crate::tensor::Tensor;

// The vocabulary the declared kernels and formulas are written in (the table need not use
// every word; adding an op should not mean editing this file).
#[allow(unused_imports)]
use crate::{
    autograd::is_grad_enabled,
    kernels::VMath,
    ops::activation::{
        elu_grad, gelu_grad, gelu_tanh_grad, hardtanh_bool, hardtanh_grad, leaky_relu_grad,
        silu_grad, softplus_grad, GELU_C, GELU_K,
    },
    ops::arithmetic::{add, div, mul, pow, rsub, sub},
    ops::clamp::{clamp_bool, clamp_grad, clamp_int, clamp_max_bool, clamp_min_bool, clamp_value},
    ops::compare::{eq, ge, gt, le, lt, ne, CmpOp},
    ops::creation::zeros_like,
    ops::pointwise::Special,
    ops::where_::where_,
};
#[allow(unused_imports)]
use std::f64::consts::{FRAC_1_SQRT_2, FRAC_2_SQRT_PI, LN_10, LN_2, PI};

/// How a unary op treats dtypes.
#[derive(Clone, Copy)]
pub enum Dtypes {
    /// Integer and bool inputs compute in float32 (PyTorch's float ops: exp, sin, ...).
    Float,
    /// Integers keep their dtype through the integer kernel (given the parameters); bools go
    /// to the function (a copy, or the op's error).
    Keep(fn(i64, Args) -> i64, fn(&Tensor) -> Result<Tensor>),
    /// Rounding: integers come back as they are; bools raise naming the kernel.
    Round(&'static str),
    /// Floating inputs only; others raise naming the kernel.
    FloatOnly(&'static str),
    /// As `Float`, but float16 raises naming the kernel (torch.special's kernels that
    /// PyTorch's CPU has no Half form of).
    FloatNoHalf(&'static str),
}

/// What a derivative reads.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Save {
    Nothing,
    Input,
    Result,
    /// Not differentiable (PyTorch records no node): the result never requires grad.
    Never,
}

/// The signature most unary functions have, as PyTorch's parser prints it.
pub const UNARY: &str = "(Tensor input, *, Tensor out = None)";

fn neg_bool(_: &Tensor) -> Result<Tensor> {
    Err(Error::Runtime("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.".into()))
}
fn abs_bool(_: &Tensor) -> Result<Tensor> {
    Err(crate::dtype::unsupported("abs_cpu", DType::Bool))
}
fn relu_bool(_: &Tensor) -> Result<Tensor> {
    Err(Error::Runtime(
        "Boolean inputs not supported for relu".into(),
    ))
}
fn sign_bool(x: &Tensor) -> Result<Tensor> {
    Ok(creation::contiguous_clone(x))
}

/// threshold_backward: exactly zero (never -0.0) where the output was not positive, as a node
/// of its own (ThresholdBackwardBackward0).
fn threshold_backward(g: &Tensor, r: &Tensor) -> Result<Tensor> {
    crate::ops::backward_ops::backward_node(
        "ThresholdBackwardBackward0",
        g,
        r,
        std::sync::Arc::new(|g, s| {
            crate::ops::where_::where_(
                &gt(s, Operand::Scalar(Scalar::Int(0)))?,
                Operand::Tensor(g.clone()),
                Operand::Scalar(Scalar::Int(0)),
            )
        }),
        None,
    )
}

/// The values of an op's declared parameters, in declaration order (at most three: the
/// unary shader's `p.a`, `p.b`, `p.c`); `None` is a Python `None` (an `Option<f64>` parameter).
pub type Args = [Option<f64>; 3];

/// The types a declared parameter may have: `f64` (a Python float with a default),
/// `Option<f64>` (a float or None), and `MinBound` / `MaxBound` (a clamp bound: a float or
/// None). Kernels and formulas see the `Value` (`f64` or `Option<f64>`); the GPU gets `gpu`:
/// NaN for an `Option<f64>`'s None (the WGSL expression tests `is_nan(p.a)`), -inf / +inf for
/// an absent bound (so a NaN bound stays a NaN bound there, as PyTorch's clamp).
pub trait Param {
    type Value: Copy;
    fn from_arg(a: Option<f64>) -> Self::Value;
    fn to_arg(v: Self::Value) -> Option<f64>;
    fn gpu(a: Option<f64>) -> f64 {
        a.unwrap_or(f64::NAN)
    }
    /// The value the node shows as `_saved_<name>`.
    fn saved(a: Option<f64>) -> Value {
        a.map_or(Value::None, Value::Float)
    }
    /// Whether the node shows it at all.
    const SHOWN: bool = true;
}
/// A float parameter the node does not show (threshold's `value`: PyTorch's
/// ThresholdBackward0 keeps only the threshold).
pub enum NotSaved {}
impl Param for NotSaved {
    type Value = f64;
    fn from_arg(a: Option<f64>) -> f64 {
        a.expect("a float parameter always has a value")
    }
    fn to_arg(v: f64) -> Option<f64> {
        Some(v)
    }
    const SHOWN: bool = false;
}
/// An integer parameter (polygamma's `n`, mvlgamma's `p`): carried as an exact `f64`, shown
/// as an int.
impl Param for i64 {
    type Value = i64;
    fn from_arg(a: Option<f64>) -> i64 {
        a.expect("an integer parameter always has a value") as i64
    }
    fn to_arg(v: i64) -> Option<f64> {
        Some(v as f64)
    }
    fn saved(a: Option<f64>) -> Value {
        a.map_or(Value::None, |v| Value::Int(v as i64))
    }
}
impl Param for f64 {
    type Value = f64;
    fn from_arg(a: Option<f64>) -> f64 {
        a.expect("a float parameter always has a value")
    }
    fn to_arg(v: f64) -> Option<f64> {
        Some(v)
    }
}
impl Param for Option<f64> {
    type Value = Option<f64>;
    fn from_arg(a: Option<f64>) -> Option<f64> {
        a
    }
    fn to_arg(v: Option<f64>) -> Option<f64> {
        v
    }
}
/// A lower bound that may be absent (None): -inf on the GPU.
pub enum MinBound {}
impl Param for MinBound {
    type Value = Option<f64>;
    fn from_arg(a: Option<f64>) -> Option<f64> {
        a
    }
    fn to_arg(v: Option<f64>) -> Option<f64> {
        v
    }
    fn gpu(a: Option<f64>) -> f64 {
        a.unwrap_or(f64::NEG_INFINITY)
    }
}
/// An upper bound that may be absent (None): +inf on the GPU.
pub enum MaxBound {}
impl Param for MaxBound {
    type Value = Option<f64>;
    fn from_arg(a: Option<f64>) -> Option<f64> {
        a
    }
    fn to_arg(v: Option<f64>) -> Option<f64> {
        v
    }
    fn gpu(a: Option<f64>) -> f64 {
        a.unwrap_or(f64::INFINITY)
    }
}

/// `Args` from the first values (the rest `None`).
pub fn args_of(values: &[Option<f64>]) -> Args {
    let mut a = [None; 3];
    a[..values.len()].copy_from_slice(values);
    a
}

/// One op's row of the table, as `_native._declared_ops()` reports it.
pub struct Declared {
    pub name: &'static str,
    pub node: &'static str,
    pub wgsl: &'static str,
    /// Each parameter's name, Rust type and default, as written in the declaration.
    pub params: &'static [(&'static str, &'static str, &'static str)],
    pub methods: &'static [&'static str],
    pub inplace: &'static [&'static str],
    pub functions: &'static [&'static str],
    pub sig: &'static str,
}

/// `map_float!(x, |v| body)`: the declared kernel `body` over a float32 or float64 tensor, or
/// a contiguous float16 one computed in float32 (Note [Narrow dtypes]), with `T` the element
/// type it computes in (`type T` is an item, so the declaration's tokens see it).
macro_rules! map_float {
    ($x:expr, |$v:ident| $body:expr) => {
        match $x.dtype() {
            DType::F64 => {
                #[allow(dead_code)]
                type T = f64;
                map::<T, T>($x, move |$v: T| -> T { $body })
            }
            DType::F32 => {
                #[allow(dead_code)]
                type T = f32;
                map::<T, T>($x, move |$v: T| -> T { $body })
            }
            _ => {
                #[allow(dead_code)]
                type T = f32;
                map_half($x, move |$v: T| -> T { $body })
            }
        }
    };
}

macro_rules! generate_unary {
    ($(
        // The entry's docstring (the Tensor methods' in `python/declared.rs`).
        $(#[doc = $doc:literal])*
        $V:ident $name:ident {
            node: $node:literal,
            dtypes: $dtypes:expr,
            $(params: [$($p:ident: $pty:ty = $pdef:expr),* $(,)?],)?
            save: $save:ident,
            cpu: |$v:ident| $cpu:expr,
            wgsl: $wgsl:literal,
            grad: |$g:ident, $s:ident| $grad:expr,
            methods: [$($m:ident),*], inplace: [$($mi:ident),*], functions: [$($f:ident),*],
            sig: $sig:expr,
        }
    )*) => {
        /// The declared unary ops (`ops/unary_decl.rs`), in table order.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum UnaryOp {
            $($V,)*
        }

        impl UnaryOp {
            pub const ALL: &'static [UnaryOp] = &[$(UnaryOp::$V,)*];

            pub fn declared(self) -> Declared {
                match self {
                    $(UnaryOp::$V => Declared {
                        name: stringify!($name),
                        node: $node,
                        wgsl: $wgsl,
                        params: &[$($((stringify!($p), stringify!($pty), stringify!($pdef))),*)?],
                        methods: &[$(stringify!($m)),*],
                        inplace: &[$(stringify!($mi)),*],
                        functions: &[$(stringify!($f)),*],
                        sig: $sig,
                    },)*
                }
            }

            pub fn name(self) -> &'static str {
                match self {
                    $(UnaryOp::$V => stringify!($name),)*
                }
            }

            pub fn backward_name(self) -> &'static str {
                match self {
                    $(UnaryOp::$V => $node,)*
                }
            }

            /// The declared defaults of the parameters.
            pub fn defaults(self) -> Args {
                match self {
                    $(UnaryOp::$V => args_of(&[$($(<$pty as Param>::to_arg($pdef)),*)?]),)*
                }
            }

            /// The WGSL expression in `v` the GPU computes.
            pub fn wgsl(self) -> &'static str {
                match self {
                    $(UnaryOp::$V => $wgsl,)*
                }
            }

            pub fn dtypes(self) -> Dtypes {
                match self {
                    $(UnaryOp::$V => $dtypes,)*
                }
            }

            /// The parameters as the GPU gets them (`p.a`, `p.b`, `p.c`): each type's
            /// [`Param::gpu`] encoding of None.
            pub fn gpu_args(self, args: Args) -> [f64; 3] {
                let encode: &[fn(Option<f64>) -> f64] = match self {
                    $(UnaryOp::$V => &[$($(<$pty as Param>::gpu as fn(Option<f64>) -> f64),*)?],)*
                };
                let mut out = args.map(|a| a.unwrap_or(f64::NAN));
                for (o, (e, a)) in out.iter_mut().zip(encode.iter().zip(args)) {
                    *o = e(a);
                }
                out
            }

            /// The parameters as the node shows them (`_saved_<name>`), in declaration order,
            /// with their names (those it does not show left out).
            pub fn saved_args(self, args: Args) -> Vec<(&'static str, Value)> {
                let encode: &[(&'static str, bool, fn(Option<f64>) -> Value)] = match self {
                    $(UnaryOp::$V => &[$($((
                        stringify!($p),
                        <$pty as Param>::SHOWN,
                        <$pty as Param>::saved as fn(Option<f64>) -> Value,
                    )),*)?],)*
                };
                encode
                    .iter()
                    .zip(args)
                    .filter(|((_, shown, _), _)| *shown)
                    .map(|((name, _, e), a)| (*name, e(a)))
                    .collect()
            }

            fn save(self) -> Save {
                match self {
                    $(UnaryOp::$V => Save::$save,)*
                }
            }

            /// The float32 kernel as a function (tests compare the GPU's expression with it).
            pub fn cpu_f32(self) -> fn(f32) -> f32 {
                match self {
                    $(UnaryOp::$V => {
                        #[allow(dead_code)]
                        type T = f32;
                        |$v: T| -> T {
                            $(let [$($p,)* ..] = UnaryOp::$V.defaults();
                            $(let $p = <$pty as Param>::from_arg($p);)*)?
                            $cpu
                        }
                    })*
                }
            }

            /// The derivative formula given the incoming gradient, what `save` kept and the
            /// parameters.
            fn grad(self, g: &Tensor, s: &Tensor, args: Args) -> Result<Tensor> {
                let _ = args;
                match self {
                    $(UnaryOp::$V => {
                        $(let [$($p,)* ..] = args;
                        $(let $p = <$pty as Param>::from_arg($p);)*)?
                        let ($g, $s) = (g, s);
                        $grad
                    })*
                }
            }
        }

        /// The CPU kernel of `op` over a float32, float64 or contiguous float16 tensor: one
        /// arm per op, `map_float!` instantiating its kernel for each element type.
        fn map_cpu(op: UnaryOp, x: &Tensor, args: Args) -> Tensor {
            let _ = args;
            match op {
                $(UnaryOp::$V => {
                    $(let [$($p,)* ..] = args;
                    $(let $p = <$pty as Param>::from_arg($p);)*)?
                    map_float!(x, |$v| $cpu)
                })*
            }
        }

        $(
            #[doc = concat!("`", stringify!($name), "(x)`, declared in `ops/unary_decl.rs`.")]
            pub fn $name(x: &Tensor) -> Result<Tensor> {
                unary(UnaryOp::$V, x)
            }
        )*
    };
}

unary_table!(generate_unary);

pub(crate) use crate::kernels::{map, map_half};

/// The forward kernel alone (no autograd), with the declared default parameters.
pub fn unary_data(op: UnaryOp, x: &Tensor) -> Result<Tensor> {
    unary_data_args(op, x, op.defaults())
}

/// The forward kernel alone (no autograd).
pub fn unary_data_args(op: UnaryOp, x: &Tensor, args: Args) -> Result<Tensor> {
    let dtype = x.dtype();
    match (op.dtypes(), dtype) {
        (Dtypes::FloatOnly(kernel), d) if !d.is_floating_point() => {
            return Err(crate::dtype::unsupported(kernel, d))
        }
        (Dtypes::FloatNoHalf(kernel), DType::F16) => {
            return Err(crate::dtype::unsupported(kernel, DType::F16))
        }
        (Dtypes::Round(kernel), DType::Bool) => {
            return Err(crate::dtype::unsupported(kernel, DType::Bool))
        }
        (Dtypes::Round(_), d) if d.is_integral() => return Ok(creation::contiguous_clone(x)),
        (Dtypes::Keep(_, on_bool), DType::Bool) => return on_bool(x),
        (Dtypes::Keep(int, _), DType::I64) => return Ok(map::<i64, i64>(x, move |v| int(v, args))),
        (Dtypes::Keep(..), d) if d.is_integral() => {
            return Ok(creation::narrow(
                unary_data_args(op, &creation::wide(x), args)?,
                dtype,
            ))
        }
        (_, d) if d.is_integral() || d == DType::Bool => {
            let xf = creation::cast_data(x, crate::dtype::default_float());
            return unary_data_args(op, &xf, args);
        }
        _ => {}
    }
    // Parameters reach the shader as p.a, p.b, p.c.
    crate::kernels::unary(op.wgsl(), op.gpu_args(args), x, |x| {
        Ok(match dtype {
            DType::F16 if crate::kernels::half_in_place(x) => map_cpu(op, x, args),
            DType::F16 | DType::BF16 => {
                creation::narrow(unary_data_args(op, &creation::wide(x), args)?, dtype)
            }
            DType::F32 | DType::F64 => map_cpu(op, x, args),
            _ => unreachable!("integer dtypes handled above"),
        })
    })
}

/// A differentiable unary op, with the declared default parameters.
pub fn unary(op: UnaryOp, x: &Tensor) -> Result<Tensor> {
    unary_args(op, x, op.defaults())
}

/// A differentiable unary op with its parameters' values.
pub fn unary_args(op: UnaryOp, x: &Tensor, args: Args) -> Result<Tensor> {
    let out = unary_data_args(op, x, args)?;
    if !needs_grad(&[x]) || op.save() == Save::Never {
        return Ok(out);
    }
    let saved = match op.save() {
        // Derivatives that read nothing allow a second backward.
        Save::Nothing | Save::Never => None,
        Save::Result => Some(SavedTensor::output(&out, 0)?),
        Save::Input => Some(SavedTensor::input(x)?),
    };
    Ok(record(out, &[x], UnaryBackward { op, saved, args }))
}

/// Note [Fused derivatives]: a derivative the table writes as several tensor ops (tanh's
/// `g * (1 - r*r)` is three, each a pass over memory and a fresh buffer) runs as one loop on
/// the host when no graph of the backward is recorded, for float32 / float64 operands of one
/// shape on the CPU. The loop does the formula's operations in its order and precision, so
/// its result is bit-identical to the composed ops'; anything else (create_graph, the GPU,
/// float16, broadcast gradients) takes the declared formula. None where it does not apply.
fn fused_grad(op: UnaryOp, g: &Tensor, s: &Tensor) -> Result<Option<Tensor>> {
    // The same formula for each element type.
    macro_rules! fused {
        (|$g:ident, $s:ident| $body:expr) => {
            crate::kernels::zip_host_float(g, s, |$g: f32, $s: f32| $body, |$g: f64, $s: f64| $body)
        };
    }
    match op {
        // ATen's tanh_backward kernel, `g * fma(-r, r, 1)` (activation::tanh_backward)
        UnaryOp::Tanh => fused!(|g, r| g * (-r).mul_add(r, 1.0)),
        // mul(mul(g, rsub(r, 1)), r): ATen's sigmoid_backward order, `a * (1 - b) * b`
        UnaryOp::Sigmoid => fused!(|g, r| (g * (1.0 - r)) * r),
        // mul(g, add(mul(r, r), 1))
        UnaryOp::Tan => fused!(|g, r| g * (r * r + 1.0)),
        _ => Ok(None),
    }
}

struct UnaryBackward {
    op: UnaryOp,
    saved: Option<SavedTensor>,
    args: Args,
}

impl Backward for UnaryBackward {
    fn name(&self) -> &'static str {
        self.op.backward_name()
    }

    fn apply(&mut self, grads: &[Option<Tensor>], ctx: &Ctx) -> Result<Vec<Option<Tensor>>> {
        let g = grads[0].as_ref().expect("engine passes a gradient");
        let s = match &self.saved {
            Some(saved) => saved.unpack(ctx)?,
            None => g.clone(),
        };
        if !ctx.create_graph {
            if let Some(gx) = fused_grad(self.op, g, &s)? {
                return Ok(vec![Some(gx)]);
            }
        }
        Ok(vec![Some(self.op.grad(g, &s, self.args)?)])
    }

    // Every declared derivative is elementwise in `g`: the tangent is `grad(t)` (Note [Forward AD]).
    fn elementwise(&self) -> bool {
        true
    }

    fn release(&mut self) {
        if let Some(s) = &mut self.saved {
            s.release();
        }
    }

    fn saved_values(&mut self) -> Vec<(&'static str, SavedValue<'_>)> {
        let name = if matches!(self.op.save(), Save::Result) {
            "result"
        } else {
            "self"
        };
        let params = self.op.saved_args(self.args).into_iter();
        let mut values: Vec<_> = params.map(|(p, v)| (p, SavedValue::Value(v))).collect();
        if let Some(s) = &mut self.saved {
            values.insert(0, (name, SavedValue::Tensor(s)));
        }
        // gelu's string argument, one op per value here
        match self.op {
            UnaryOp::Gelu => values.push(("approximate", SavedValue::Value(Value::Str("none")))),
            UnaryOp::GeluTanh => {
                values.push(("approximate", SavedValue::Value(Value::Str("tanh"))))
            }
            _ => {}
        }
        values
    }
}
