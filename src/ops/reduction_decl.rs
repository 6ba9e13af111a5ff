//! The declared reductions, each declared once (Note [Op declarations] in `ops/unary.rs`);
//! `ops/reduction.rs` generates the rest from this table.
//!
//! An entry: `Variant python_name { ... }` with
//! - `dtypes`: which inputs it takes ([`ReduceDtypes`](super::reduction::ReduceDtypes));
//! - `compose`: the forward as tensor ops in `x` (already in the `dtype=` asked for), `dims`
//!   (`Option<&[i64]>`: None reduces everything) and `keepdim`; backward, double backward
//!   and every device come from the ops it calls, with their node names;
//! - `node`, `grad` (optional): a node of its own (PyTorch's name) whose derivative in `x` is
//!   the formula in `g` (the gradient with the reduced dims restored) and `x`; the node keeps
//!   `self`, `dim` and `keepdim`;
//! - `methods` / `functions`: the Tensor methods and `gradrs.*` functions generated, each
//!   taking PyTorch's `(dim=None, keepdim=False, *, dtype=None)` (and `out=`);
//! - `sig`: the functions' signature as PyTorch's parser prints it.

/// Invokes `$m!` with the table of reductions (the X-macro pattern).
macro_rules! reduction_table {
    ($m:ident) => {
        $m! {
            Nansum nansum {
                dtypes: ReduceDtypes::All,
                compose: |x, dims, keepdim| sum(&where_(&ne(x, x)?, 0, x)?, dims, keepdim),
                node: "NansumBackward0",
                grad: |g, x| mul(g, &logical_not(&ne(x, x)?)?),
                methods: [nansum], functions: [nansum],
                sig: REDUCTION,
            }
            Nanmean nanmean {
                dtypes: ReduceDtypes::Float(
                    "nanmean(): expected input to have floating point or complex dtype but got {}",
                    "nanmean(): could not infer output dtype. Optional dtype must be either a floating point or complex dtype. Got: {}",
                ),
                // PyTorch's: the sum of the non-NaN elements over their count (DivBackward0).
                compose: |x, dims, keepdim| {
                    let nan = ne(x, x)?;
                    let count = sum(&logical_not(&nan)?, dims, keepdim)?;
                    div(&nansum(x, dims, keepdim, None)?, &count)
                },
                methods: [nanmean], functions: [nanmean],
                sig: REDUCTION,
            }
        }
    };
}
pub(crate) use reduction_table;
