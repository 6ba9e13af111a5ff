//! In-place view ops (`t_`, `transpose_` = `swapdims_` = `swapaxes_`, `squeeze_`, `unsqueeze_`,
//! `as_strided_`): the tensor keeps its storage and identity and takes the layout the
//! out-of-place op would give, as PyTorch's. Autograd follows PyTorch's generated code for
//! them: `check_inplace` first (a leaf, or a view of a leaf, that requires grad may not change
//! while grad mode is on; a view made in no_grad mode may not either), then the version is
//! bumped and the tensor's history *set* (not rebased, Note [View rebase]): the op's own node
//! (`TBackward1`, `TransposeBackward1`, `SqueezeBackward3/4/5`, `UnsqueezeBackward1`,
//! `AsStridedBackward1`) over the tensor's previous history. A view stays a view of its base,
//! its history current for the bumped version.

use crate::autograd::saved::Value;
use crate::autograd::{attach_named, is_grad_enabled};
use crate::error::{Error, Result};
use crate::ops::inplace::check_inplace;
use crate::ops::movement::{self, reshape, t, transpose, unsqueeze};
use crate::tensor::shape::sizes_i64;
use crate::tensor::Tensor;

/// Which in-place view op, with its arguments as given.
#[derive(Clone, Debug)]
pub enum InplaceView {
    T,
    Transpose(i64, i64),
    /// `squeeze_()`: every size-1 dim.
    Squeeze,
    SqueezeDim(i64),
    SqueezeDims(Vec<i64>),
    Unsqueeze(i64),
    AsStrided {
        size: Vec<i64>,
        stride: Vec<i64>,
        storage_offset: Option<i64>,
    },
}

impl InplaceView {
    /// The out-of-place view (not recorded: `x` is detached), with the in-place op's errors.
    fn view_of(&self, x: &Tensor) -> Result<Tensor> {
        match self {
            InplaceView::T => {
                let nd = x.dim();
                if nd > 2 {
                    return Err(Error::Runtime(format!(
                        "t_() expects a tensor with <= 2 dimensions, but self is {nd}D"
                    )));
                }
                t(x)
            }
            InplaceView::Transpose(a, b) => transpose(x, *a, *b),
            InplaceView::Squeeze => movement::squeeze(x, None),
            InplaceView::SqueezeDim(d) => movement::squeeze(x, Some(*d)),
            InplaceView::SqueezeDims(dims) => movement::squeeze_dims(x, dims),
            InplaceView::Unsqueeze(d) => unsqueeze(x, *d),
            InplaceView::AsStrided {
                size,
                stride,
                storage_offset,
            } => crate::ops::strided::as_strided(x, size, stride, *storage_offset),
        }
    }
}

/// Apply the in-place view op `op` to `x` (see the module's doc).
pub fn inplace_view(x: &Tensor, op: InplaceView) -> Result<()> {
    check_inplace(x, false)?;
    let layout = op.view_of(&x.detach())?.read().layout.clone();
    let tracked = is_grad_enabled() && x.requires_grad() && !x.is_inference();
    // `x` before the op: its layout and history (a stale view's refreshed first).
    let before = Tensor::from_storage(x.read().storage.clone(), x.read().layout.clone());
    if tracked {
        before.set_grad_fn(x.grad_fn(), x.output_nr());
    }
    let tangent = crate::ops::forward::tangent(x);
    x.bump_version();
    x.set_layout(layout);
    if let Some(tangent) = tangent {
        let new = op.view_of(&tangent.detach())?;
        crate::autograd::forward::store_tangent(x, Some(new));
    }
    if !tracked {
        return Ok(());
    }
    let old_sizes = sizes_i64(&before.shape());
    let sizes = || ("self_sym_sizes", Value::Ints(old_sizes.clone()));
    match op {
        InplaceView::T => attach_named(
            &[x],
            &[&before],
            "TBackward1",
            vec![],
            &[],
            Default::default(),
            |g, _| Ok(vec![Some(t(g[0].as_ref().expect("gradient"))?)]),
        ),
        InplaceView::Transpose(a, b) => attach_named(
            &[x],
            &[&before],
            "TransposeBackward1",
            vec![],
            &[],
            [("dim0", Value::Int(a)), ("dim1", Value::Int(b))]
                .into_iter()
                .collect(),
            move |g, _| {
                Ok(vec![Some(transpose(
                    g[0].as_ref().expect("gradient"),
                    a,
                    b,
                )?)])
            },
        ),
        InplaceView::Unsqueeze(d) => attach_named(
            &[x],
            &[&before],
            "UnsqueezeBackward1",
            vec![],
            &[],
            [("dim", Value::Int(d))].into_iter().collect(),
            move |g, _| {
                let g = g[0].as_ref().expect("gradient");
                let w = crate::tensor::shape::wrap_dim(d, g.dim())?;
                Ok(vec![Some(movement::squeeze(g, Some(w as i64))?)])
            },
        ),
        InplaceView::Squeeze | InplaceView::SqueezeDim(_) | InplaceView::SqueezeDims(_) => {
            let (name, values) = match &op {
                InplaceView::Squeeze => ("SqueezeBackward3", vec![sizes()]),
                InplaceView::SqueezeDim(d) => {
                    ("SqueezeBackward4", vec![("dim", Value::Int(*d)), sizes()])
                }
                InplaceView::SqueezeDims(d) => (
                    "SqueezeBackward5",
                    vec![("dim", Value::Ints(d.clone())), sizes()],
                ),
                _ => unreachable!("matched above"),
            };
            let back = old_sizes.clone();
            attach_named(
                &[x],
                &[&before],
                name,
                vec![],
                &[],
                values.into_iter().collect(),
                move |g, _| {
                    Ok(vec![Some(reshape(
                        g[0].as_ref().expect("gradient"),
                        &back,
                    )?)])
                },
            )
        }
        InplaceView::AsStrided {
            size,
            stride,
            storage_offset,
        } => {
            crate::ops::strided::record_as_strided(
                x.clone(),
                &before,
                &size,
                &stride,
                storage_offset,
                "AsStridedBackward1",
            );
        }
    }
    // The history is current for the bumped version: not rebuilt from the base.
    if let Some(base) = x.view_base() {
        x.0.meta.lock().view_version = base.version();
    }
    Ok(())
}
