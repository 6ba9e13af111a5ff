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
            /// Returns the sum of the elements of `self`, treating Not-a-Number (`nan`) values as
            /// zero; over all elements, or over the dimension(s) `dim`.
            ///
            /// Args:
            ///     dim (int or tuple of ints, optional): the dimension or dimensions to reduce.
            ///         Default: all of them.
            ///     keepdim (bool, optional): whether the output keeps the reduced dimensions (with
            ///         size 1). Default: `False`.
            ///     dtype (gradrs.dtype, optional): the desired data type of the result; `self` is
            ///         cast to it first. Default: `self.dtype` (`int64` for integral and bool
            ///         inputs).
            ///
            /// Example:
            ///     >>> x = gradrs.tensor([[1.0, 2.0], [3.0, float('nan')]])
            ///     >>> x.sum()
            ///     tensor(nan)
            ///     >>> x.nansum()
            ///     tensor(6.)
            ///     >>> x.nansum(dim=0)
            ///     tensor([4., 2.])
            Nansum nansum {
                dtypes: ReduceDtypes::All,
                compose: |x, dims, keepdim| nansum_compose(x, dims, keepdim),
                node: "NansumBackward0",
                grad: |g, x| mul(g, &logical_not(&ne(x, x)?)?),
                methods: [nansum], functions: [nansum],
                sig: REDUCTION,
            }
            /// Computes the mean of all non-`nan` elements of `self` (over all elements, or along
            /// the dimension(s) `dim`): `nan` values are ignored, unlike `mean`. A slice of `nan`
            /// values only gives `nan`.
            ///
            /// Args:
            ///     dim (int or tuple of ints, optional): the dimension or dimensions to reduce.
            ///         Default: all of them.
            ///     keepdim (bool, optional): whether the output keeps the reduced dimensions (with
            ///         size 1). Default: `False`.
            ///     dtype (gradrs.dtype, optional): the desired floating-point data type of the
            ///         result.
            ///
            /// Example:
            ///     >>> x = gradrs.tensor([[float('nan'), 1.0, 2.0], [1.0, 2.0, 3.0]])
            ///     >>> x.mean()
            ///     tensor(nan)
            ///     >>> x.nanmean()
            ///     tensor(1.8000)
            ///     >>> x.nanmean(dim=0)
            ///     tensor([1.0000, 1.5000, 2.5000])
            ///     >>> gradrs.tensor([float('nan')]).nanmean()
            ///     tensor(nan)
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
