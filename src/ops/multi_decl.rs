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
//! - `jvp`: forward-mode AD (Note [Forward AD]): each output's tangent (a `Vec<Tensor>`) as
//!   tensor ops in the input's tangent `t`, the input `x` and the outputs `outs`;
//! - `methods` / `functions` / `sig` as for the unary ops.

/// Invokes `$m!` with the table of multi-output ops (the X-macro pattern).
macro_rules! multi_table {
    ($m:ident) => {
        $m! {
            /// Computes the minimum and maximum values of `self` (over all elements, or along
            /// `dim`), returned as the named tuple `(min, max)`. The values are differentiable
            /// (each output's gradient shared evenly among the elements equal to it).
            ///
            /// Args:
            ///     dim (int, optional): the dimension to reduce. Default: all of them.
            ///     keepdim (bool, optional): whether the outputs keep the reduced dimension (with
            ///         size 1). Default: `False`.
            ///
            /// Example:
            ///     >>> gradrs.tensor([1, -3, 5]).aminmax()
            ///     gradrs.return_types.aminmax(
            ///     min=tensor(-3),
            ///     max=tensor(5))
            ///     >>> gradrs.tensor([[2.0, 1.0], [-1.0, 4.0]]).aminmax(dim=0, keepdim=True)
            ///     gradrs.return_types.aminmax(
            ///     min=tensor([[-1.,  1.]]),
            ///     max=tensor([[2., 4.]]))
            Aminmax aminmax {
                node: "AminmaxBackward0",
                outputs: [min, max],
                kwargs: [dim: Option<i64> = None, keepdim: bool = false],
                forward: |x| {
                    if x.numel() == 0 {
                        let Some(d) = dim else {
                            return Err(Error::Runtime("aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.".into()));
                        };
                        let d = wrap_dim(d, x.dim())?;
                        if x.shape()[d] == 0 {
                            return Err(Error::Index(format!("aminmax: Expected reduction dim {d} to have non-zero size.")));
                        }
                    }
                    let dims: Vec<i64> = dim.into_iter().collect();
                    Ok::<_, Error>(vec![amax(x, &dims, keepdim, false)?, amax(x, &dims, keepdim, true)?])
                },
                // Each output's gradient shared evenly among the elements equal to it.
                grad: |grads, x, outs| {
                    let rd = reduction_dims(dim.as_ref().map(std::slice::from_ref), x.dim())?;
                    let (all, mut total) = (rd.iter().map(|&d| d as i64).collect::<Vec<_>>(), zeros_like(x));
                    for (g, o) in grads.iter().zip(outs) {
                        if let Some(g) = g {
                            let mask = eq(x, &restore_dims(o, &rd, keepdim)?)?;
                            let g = div(&restore_dims(g, &rd, keepdim)?, &sum(&mask, Some(&all), true)?)?;
                            total = add(&total, &mul(&g, &mask)?)?;
                        }
                    }
                    Ok::<_, Error>(total)
                },
                // Each output's tangent: the mean of the tangents of the elements equal to it.
                jvp: |t, x, outs| {
                    let rd = reduction_dims(dim.as_ref().map(std::slice::from_ref), x.dim())?;
                    let all = rd.iter().map(|&d| d as i64).collect::<Vec<_>>();
                    outs.iter().map(|o| {
                        let mask = eq(x, &restore_dims(o, &rd, keepdim)?)?;
                        div(&sum(&mul(t, &mask)?, Some(&all), keepdim)?, &sum(&mask, Some(&all), keepdim)?)
                    }).collect::<Result<Vec<_>>>()
                },
                methods: [aminmax], functions: [aminmax],
                sig: "(Tensor input, *, int dim = None, bool keepdim = False, Tensor out = None)",
            }
        }
    };
}
pub(crate) use multi_table;
