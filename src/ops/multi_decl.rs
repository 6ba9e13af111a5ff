//! The declared multi-output ops, each declared once (Note [Op declarations] in
//! `ops/unary.rs`); `ops/multi.rs` generates the rest from this table.
//!
//! An entry: `Variant python_name { ... }` with
//! - `node`: PyTorch's node name, one node for all the outputs;
//! - `outputs`: their names, the fields of `gradrs.return_types.<name>` (and `<name>_out`);
//! - `kwargs`: keyword-only arguments `[name: Type = default, ...]` (`i64`, `Option<i64>`,
//!   `bool`, `f64`), in scope by name in `forward` and `grad`, kept as `_saved_<name>`;
//! - `forward`: the outputs (a `Vec<Tensor>`) from `x`, run with grad mode off: a kernel call
//!   or a composition of ops;
//! - `grad`: the input's gradient as tensor ops in `grads` (`&[Option<Tensor>]`, one per
//!   output, None where an output got none), the input `x` and the outputs `outs`; the node
//!   keeps `self` and the outputs (`_saved_self`, `_saved_<output>`);
//! - `methods` / `functions` / `sig` as for the unary ops.

/// Invokes `$m!` with the table of multi-output ops (the X-macro pattern).
macro_rules! multi_table {
    ($m:ident) => {
        $m! {}
    };
}
pub(crate) use multi_table;
