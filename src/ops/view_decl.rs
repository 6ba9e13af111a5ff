//! The declared view ops, each declared once (Note [Op declarations] in `ops/unary.rs`);
//! `ops/view.rs` generates the rest from this table.
//!
//! An entry: `Variant python_name { ... }` with
//! - `args`: the arguments after `input`, `[name: Type, ...]`: `i64`, or
//!   [`Dims`](super::view::Dims) for PyTorch's "int or tuple of ints" overload pairs;
//! - `compose`: the view as tensor ops in `x` and the args (by name): a composition of view
//!   ops (permute, ...), so the result shares `x`'s storage, `_base` and version counter,
//!   and the backward, double backward and the GPU are theirs;
//! - `methods` / `functions`: the Tensor methods and `gradrs.*` functions generated;
//! - `sigs`: the functions' signatures as PyTorch's parser prints them, in its order.

/// Invokes `$m!` with the table of view ops (the X-macro pattern).
macro_rules! view_table {
    ($m:ident) => {
        $m! {}
    };
}
pub(crate) use view_table;
