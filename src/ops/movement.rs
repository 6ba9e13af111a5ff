//! Shape and view ops: results share storage with their input; backward reshapes the
//! gradient back.

use crate::autograd::saved::{SavedValue, Value};
use crate::autograd::{needs_grad, record, Backward, Ctx};
use crate::error::{Error, Result};
use crate::ops::creation::contiguous;
use crate::ops::reduce::sum_to;
use crate::tensor::shape::{
    infer_size, list_repr, sizes_i64, view_strides, wrap_dim, Shape, Strides,
};
use crate::tensor::{Layout, Tensor};

/// A tensor over `x`'s storage with another layout.
fn alias(x: &Tensor, layout: Layout) -> Tensor {
    crate::ops::inplace::new_view(x, layout)
}

#[derive(Clone)]
enum ViewKind {
    View,
    UnsafeView,
    T,
    Transpose(usize, usize),
    Permute(Vec<usize>),
    Expand,
    Unsqueeze,
    /// Squeeze, with PyTorch's overload number in the name.
    Squeeze(u8),
    /// `unfold(dim, size, step)` (dim wrapped; a 0-dim input unfolds as one element).
    Unfold(usize, usize, usize),
}

struct ViewBackward {
    kind: ViewKind,
    input_shape: Shape,
    /// The dims as given (PyTorch shows them unwrapped: -1 as 2**64 - 1).
    given: Vec<i64>,
}

impl Backward for ViewBackward {
    fn name(&self) -> &'static str {
        match self.kind {
            ViewKind::View => "ViewBackward0",
            ViewKind::UnsafeView => "UnsafeViewBackward0",
            ViewKind::T => "TBackward0",
            ViewKind::Transpose(..) => "TransposeBackward0",
            ViewKind::Permute(_) => "PermuteBackward0",
            ViewKind::Expand => "ExpandBackward0",
            ViewKind::Unsqueeze => "UnsqueezeBackward0",
            ViewKind::Squeeze(0) => "SqueezeBackward0",
            ViewKind::Squeeze(1) => "SqueezeBackward1",
            ViewKind::Squeeze(2) => "SqueezeBackward2",
            ViewKind::Squeeze(_) => "SqueezeBackward4",
            ViewKind::Unfold(..) => "UnfoldBackward0",
        }
    }

    fn apply(&mut self, g: &[Option<Tensor>], _: &Ctx) -> Result<Vec<Option<Tensor>>> {
        let g = g[0].as_ref().expect("gradient");
        let gi = match &self.kind {
            ViewKind::View | ViewKind::UnsafeView | ViewKind::Unsqueeze | ViewKind::Squeeze(_) => {
                reshape(g, &sizes_i64(&self.input_shape))?
            }
            ViewKind::T => t(g)?,
            ViewKind::Transpose(a, b) => transpose(g, *a as i64, *b as i64)?,
            ViewKind::Permute(dims) => {
                let mut inv = vec![0i64; dims.len()];
                for (i, &d) in dims.iter().enumerate() {
                    inv[d] = i as i64;
                }
                permute(g, &inv)?
            }
            ViewKind::Expand => sum_to(g, &self.input_shape)?,
            ViewKind::Unfold(dim, size, step) => {
                unfold_backward(g, &self.input_shape, *dim, *size, *step)?
            }
        };
        Ok(vec![Some(gi)])
    }
    fn saved_values(&mut self) -> Vec<(&'static str, SavedValue<'_>)> {
        let sizes = || SavedValue::Value(Value::Ints(sizes_i64(&self.input_shape)));
        let dim = |i: usize| SavedValue::Value(Value::Int(self.given[i]));
        match self.kind {
            ViewKind::View | ViewKind::UnsafeView | ViewKind::Expand | ViewKind::Squeeze(0) => {
                vec![("self_sym_sizes", sizes())]
            }
            ViewKind::T => Vec::new(),
            ViewKind::Transpose(..) => vec![("dim0", dim(0)), ("dim1", dim(1))],
            ViewKind::Permute(_) => {
                vec![("dims", SavedValue::Value(Value::Ints(self.given.clone())))]
            }
            ViewKind::Unsqueeze => vec![("dim", dim(0))],
            ViewKind::Squeeze(2) => vec![
                ("dim", SavedValue::Value(Value::Ints(self.given.clone()))),
                ("self_sym_sizes", sizes()),
            ],
            ViewKind::Squeeze(_) => vec![("dim", dim(0)), ("self_sym_sizes", sizes())],
            ViewKind::Unfold(..) => vec![
                ("dimension", dim(0)),
                ("self_sym_sizes", sizes()),
                ("size", dim(1)),
                ("step", dim(2)),
            ],
        }
    }
}

fn view_op(x: &Tensor, layout: Layout, kind: ViewKind) -> Tensor {
    view_op_given(x, layout, kind, Vec::new())
}

/// `view_op` for a view of dims `given` (as the caller gave them, for `_saved_<dim>`).
fn view_op_given(x: &Tensor, layout: Layout, kind: ViewKind, given: Vec<i64>) -> Tensor {
    // `_unsafe_view` shares memory but is not a view for autograd: in-place writes to it do
    // not rebase its input (PyTorch uses it for results no one else can see, e.g. matmul's).
    let out = if matches!(kind, ViewKind::UnsafeView) {
        Tensor::from_storage(x.read().storage.clone(), layout)
    } else {
        alias(x, layout)
    };
    if needs_grad(&[x]) {
        return record(
            out,
            &[x],
            ViewBackward {
                kind,
                input_shape: x.shape(),
                given,
            },
        );
    }
    out
}

/// `view(*shape)`: no copy, or PyTorch's error when the strides do not allow it.
pub fn view(x: &Tensor, sizes: &[i64]) -> Result<Tensor> {
    let d = x.data();
    let shape = infer_size(sizes, d.layout.numel())?;
    let strides = view_strides(&d.layout.shape, &d.layout.strides, &shape).ok_or_else(|| {
        Error::Runtime("view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.".into())
    })?;
    Ok(view_op(
        x,
        Layout {
            shape,
            strides,
            offset: d.layout.offset,
        },
        ViewKind::View,
    ))
}

/// `reshape(*shape)`: a view when possible, else a copy (CloneBackward0 + UnsafeViewBackward0).
pub fn reshape(x: &Tensor, sizes: &[i64]) -> Result<Tensor> {
    let d = x.data();
    let shape = infer_size(sizes, d.layout.numel())?;
    if view_strides(&d.layout.shape, &d.layout.strides, &shape).is_some() {
        return view(x, &sizes_i64(&shape));
    }
    unsafe_view(&crate::ops::creation::clone(x), &shape)
}

/// PyTorch's `_unsafe_view`: reinterpret a fresh contiguous result.
pub fn unsafe_view(x: &Tensor, shape: &[usize]) -> Result<Tensor> {
    let x = contiguous(x);
    let offset = x.read().layout.offset;
    Ok(view_op(
        &x,
        Layout {
            shape: shape.into(),
            strides: crate::tensor::shape::contiguous_strides(shape),
            offset,
        },
        ViewKind::UnsafeView,
    ))
}

fn swapped(x: &Tensor, a: usize, b: usize) -> Layout {
    let mut l = x.data().layout;
    l.shape.swap(a, b);
    l.strides.swap(a, b);
    l
}

pub fn transpose(x: &Tensor, d0: i64, d1: i64) -> Result<Tensor> {
    let nd = x.dim();
    let (a, b) = (wrap_dim(d0, nd)?, wrap_dim(d1, nd)?);
    if nd == 0 {
        return Ok(view_op_given(
            x,
            x.data().layout,
            ViewKind::Transpose(0, 0),
            vec![d0, d1],
        ));
    }
    Ok(view_op_given(
        x,
        swapped(x, a, b),
        ViewKind::Transpose(a, b),
        vec![d0, d1],
    ))
}

pub fn t(x: &Tensor) -> Result<Tensor> {
    let nd = x.dim();
    if nd > 2 {
        return Err(Error::Runtime(format!(
            "t() expects a tensor with <= 2 dimensions, but self is {nd}D"
        )));
    }
    let layout = if nd == 2 {
        swapped(x, 0, 1)
    } else {
        x.data().layout
    };
    Ok(view_op(x, layout, ViewKind::T))
}

pub fn permute(x: &Tensor, dims: &[i64]) -> Result<Tensor> {
    let nd = x.dim();
    if dims.len() != nd {
        return Err(Error::Runtime(format!(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = {nd} is not equal to len(dims) = {}",
            dims.len()
        )));
    }
    let mut seen = vec![false; nd];
    let mut order = Vec::with_capacity(nd);
    for &d in dims {
        let w = wrap_dim(d, nd)?;
        if seen[w] {
            return Err(Error::Runtime(
                "permute(): duplicate dims are not allowed.".into(),
            ));
        }
        seen[w] = true;
        order.push(w);
    }
    let l = x.data().layout;
    let layout = Layout {
        shape: order.iter().map(|&d| l.shape[d]).collect(),
        strides: order.iter().map(|&d| l.strides[d]).collect(),
        offset: l.offset,
    };
    Ok(view_op_given(
        x,
        layout,
        ViewKind::Permute(order),
        dims.to_vec(),
    ))
}

/// `x.T`: reverses all dims (PermuteBackward0), as PyTorch's `numpy_T`.
pub fn numpy_t(x: &Tensor) -> Result<Tensor> {
    let nd = x.dim() as i64;
    let dims: Vec<i64> = (0..nd).rev().collect();
    permute(x, &dims)
}

/// `x.mT` / `x.mH` / `x.adjoint()` of a real tensor, as PyTorch's `mT` / `_adjoint`: the last two
/// dims transposed (TransposeBackward0), the tensor itself at 0-D (the bindings warn), and
/// PyTorch's RuntimeError naming the attribute (`name`, e.g. `mT`) at 1-D.
pub fn matrix_transpose(x: &Tensor, name: &str) -> Result<Tensor> {
    match x.dim() {
        0 => Ok(x.clone()),
        1 => Err(Error::Runtime(format!(
            "tensor.{name} is only supported on matrices or batches of matrices. Got 1-D tensor."
        ))),
        _ => transpose(x, -2, -1),
    }
}

/// `x.H` of a real tensor, as PyTorch's `matrix_H`: the transpose of a matrix, the tensor itself
/// at 0-D (the bindings warn), PyTorch's RuntimeError for any other rank.
pub fn matrix_h(x: &Tensor) -> Result<Tensor> {
    match x.dim() {
        0 => Ok(x.clone()),
        2 => transpose(x, 0, 1),
        d => {
            let hint = if d > 2 {
                " For batches of matrices, consider using tensor.mH"
            } else {
                ""
            };
            Err(Error::Runtime(format!(
                "tensor.H is only supported on matrices (2-D tensors). Got {d}-D tensor.{hint}"
            )))
        }
    }
}

pub fn expand(x: &Tensor, sizes: &[i64]) -> Result<Tensor> {
    let l = x.data().layout;
    let nd = l.ndim();
    if sizes.len() < nd {
        return Err(Error::Runtime(format!(
            "expand(gradrs.{}{{{}}}, size=[{}]): the number of sizes provided ({}) must be greater or equal to the number of dimensions in the tensor ({nd})",
            x.dtype().legacy_name(),
            list_repr(&l.shape),
            sizes.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", "),
            sizes.len()
        )));
    }
    let lead = sizes.len() - nd;
    let mut shape = Shape::new();
    let mut strides = Strides::new();
    for (i, &s) in sizes.iter().enumerate() {
        if i < lead {
            if s < 0 {
                return Err(Error::Runtime(format!(
                    "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension {i}"
                )));
            }
            shape.push(s as usize);
            strides.push(0);
            continue;
        }
        let (cur, st) = (l.shape[i - lead], l.strides[i - lead]);
        if s < -1 && cur == 1 {
            // PyTorch computes the view's numel from the signed sizes and reports this.
            return Err(numel_overflow());
        }
        let target = if s == -1 { cur } else { s as usize };
        if cur == target {
            shape.push(cur);
            strides.push(st);
        } else if cur == 1 {
            shape.push(target);
            strides.push(0);
        } else {
            return Err(Error::Runtime(format!(
                "The expanded size of the tensor ({s}) must match the existing size ({cur}) at non-singleton dimension {i}.  Target sizes: [{}].  Tensor sizes: {}",
                sizes.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", "),
                list_repr(&l.shape)
            )));
        }
    }
    if crate::tensor::shape::checked_numel(&shape).is_none_or(|n| n > i64::MAX as usize) {
        return Err(numel_overflow());
    }
    if shape == l.shape && strides == l.strides {
        return Ok(view_op(x, l, ViewKind::Expand));
    }
    Ok(view_op(
        x,
        Layout {
            shape,
            strides,
            offset: l.offset,
        },
        ViewKind::Expand,
    ))
}

/// `x.unfold(dimension, size, step)`: the windows of `size` elements `step` apart along
/// `dimension`, as a new last dim of a view (PyTorch's strides: the window's start advances
/// `step` elements, the window reads consecutive ones).
pub fn unfold(x: &Tensor, dimension: i64, size: i64, step: i64) -> Result<Tensor> {
    let l = x.data().layout;
    let nd = l.ndim();
    let d = wrap_dim(dimension, nd.max(1))?;
    let max_size = if nd == 0 { 1 } else { l.shape[d] as i64 };
    if size < 0 {
        return Err(Error::Runtime(format!("size is {size} but must be >= 0")));
    }
    if size > max_size {
        return Err(Error::Runtime(format!(
            "maximum size for tensor at dimension {d} is {max_size} but size is {size}"
        )));
    }
    if step <= 0 {
        return Err(Error::Runtime(format!("step is {step} but must be > 0")));
    }
    let mut layout = l.clone();
    layout.shape.push(size as usize);
    layout.strides.push(if nd == 0 { 1 } else { l.strides[d] });
    if nd > 0 {
        layout.shape[d] = ((l.shape[d] as i64 - size) / step + 1) as usize;
        layout.strides[d] *= step as isize;
    }
    Ok(view_op_given(
        x,
        layout,
        ViewKind::Unfold(d, size as usize, step as usize),
        vec![dimension, size, step],
    ))
}

/// PyTorch's `unfold_backward`: each window's gradient added back at the positions it read
/// (windows overlap when `step < size`), as an `index_add` along `dim`, so it differentiates
/// and runs wherever `g` lives.
fn unfold_backward(
    g: &Tensor,
    input_shape: &[usize],
    dim: usize,
    size: usize,
    step: usize,
) -> Result<Tensor> {
    if input_shape.is_empty() {
        // a 0-dim input's one window of 0 or 1 element
        let g1 = reshape(g, &[1, size as i64])?;
        let flat = unfold_backward(&g1, &[1], 0, size, step)?;
        return reshape(&flat, &[]);
    }
    let nd = input_shape.len();
    let windows = g.shape()[dim];
    // the window's elements next to the window index, then both dims as one
    let mut order: Vec<i64> = (0..nd as i64).collect();
    order.insert(dim + 1, nd as i64);
    let moved = permute(g, &order)?;
    let mut merged = sizes_i64(input_shape);
    merged[dim] = (windows * size) as i64;
    let merged_g = reshape(&moved, &merged)?;
    let positions: Vec<i64> = (0..windows)
        .flat_map(|w| (0..size).map(move |e| (w * step + e) as i64))
        .collect();
    let index = Tensor::from_vec_on(positions, &[windows * size], g.device());
    let zeros = Tensor::zeros_on(input_shape, g.dtype(), g.device());
    crate::ops::index::index_add(
        &zeros,
        dim as i64,
        &index,
        &merged_g,
        crate::dtype::Scalar::Int(1),
    )
}

/// PyTorch's error for a view whose element count does not fit in int64.
fn numel_overflow() -> Error {
    Error::Runtime("numel: integer multiplication overflow".into())
}

pub fn unsqueeze(x: &Tensor, dim: i64) -> Result<Tensor> {
    let l = x.data().layout;
    let d = wrap_dim(dim, l.ndim() + 1)?;
    let mut layout = l.clone();
    let stride = if d < l.ndim() {
        l.strides[d] * l.shape[d] as isize
    } else {
        1
    };
    layout.shape.insert(d, 1);
    layout.strides.insert(d, stride);
    Ok(view_op_given(x, layout, ViewKind::Unsqueeze, vec![dim]))
}

/// `squeeze()` (all size-1 dims) or `squeeze(dim)`.
pub fn squeeze(x: &Tensor, dim: Option<i64>) -> Result<Tensor> {
    squeeze_named(x, dim, if dim.is_some() { 1 } else { 0 })
}

pub(crate) fn squeeze_named(x: &Tensor, dim: Option<i64>, overload: u8) -> Result<Tensor> {
    let l = x.data().layout;
    let keep: Vec<usize> = match dim {
        None => (0..l.ndim()).filter(|&i| l.shape[i] != 1).collect(),
        Some(d) => {
            let w = wrap_dim(d, l.ndim())?;
            (0..l.ndim())
                .filter(|&i| i != w || l.shape[i] != 1)
                .collect()
        }
    };
    let layout = Layout {
        shape: keep.iter().map(|&i| l.shape[i]).collect(),
        strides: keep.iter().map(|&i| l.strides[i]).collect(),
        offset: l.offset,
    };
    Ok(view_op_given(
        x,
        layout,
        ViewKind::Squeeze(overload),
        dim.into_iter().collect(),
    ))
}

/// PyTorch's `r.squeeze_(dim)` on a fresh result `r` that no one else sees (matmul's 1-D @ 2-D):
/// the node `squeeze` records, but the result is no view (an in-place squeeze leaves none), so
/// an in-place op on it records on its own node instead of rebasing onto `r`.
pub(crate) fn squeeze_fresh(x: &Tensor, dim: i64, overload: u8) -> Result<Tensor> {
    let out = {
        let _no_grad = crate::autograd::GradModeGuard::new(false);
        squeeze_named(x, Some(dim), overload)?
    }
    .unview_internal(&[]);
    if !needs_grad(&[x]) {
        return Ok(out);
    }
    Ok(record(
        out,
        &[x],
        ViewBackward {
            kind: ViewKind::Squeeze(overload),
            input_shape: x.shape(),
            given: vec![dim],
        },
    ))
}

/// `squeeze(dims)` with a tuple of dims (SqueezeBackward2): drops those of size 1.
pub fn squeeze_dims(x: &Tensor, dims: &[i64]) -> Result<Tensor> {
    let l = x.data().layout;
    let mut drop = vec![false; l.ndim()];
    for &d in dims {
        let w = wrap_dim(d, l.ndim())?;
        if l.ndim() > 0 && drop[w] {
            return Err(Error::Runtime(format!(
                "dim {w} appears multiple times in the list of dims"
            )));
        }
        if l.ndim() > 0 {
            drop[w] = true;
        }
    }
    let keep: Vec<usize> = (0..l.ndim())
        .filter(|&i| !drop[i] || l.shape[i] != 1)
        .collect();
    let layout = Layout {
        shape: keep.iter().map(|&i| l.shape[i]).collect(),
        strides: keep.iter().map(|&i| l.strides[i]).collect(),
        offset: l.offset,
    };
    Ok(view_op_given(
        x,
        layout,
        ViewKind::Squeeze(2),
        dims.to_vec(),
    ))
}

/// A new view of all of `x` whose node (AliasBackward0, passing the gradient through) the
/// graph's Python face skips (`Backward::transparent`): what a reverse transform (`func.grad`,
/// `vjp`) differentiates with respect to when its input is in an outer graph, so nested
/// transforms keep `x` apart from the outer input (no perturbation confusion) while the graph
/// they leave shows no node between them, as functorch's levels (issue 22).
pub fn transparent_alias(x: &Tensor) -> Result<Tensor> {
    let out = alias(x, x.data().layout);
    if !needs_grad(&[x]) {
        return Ok(out);
    }
    let out = out.unview_internal(&[x]);
    crate::autograd::attach(&[&out], &[x], Box::new(TransparentAlias));
    Ok(out)
}

struct TransparentAlias;

impl Backward for TransparentAlias {
    fn name(&self) -> &'static str {
        "AliasBackward0"
    }
    fn apply(&mut self, grads: &[Option<Tensor>], _ctx: &Ctx) -> Result<Vec<Option<Tensor>>> {
        Ok(vec![grads.first().cloned().flatten()])
    }
    fn transparent(&self) -> bool {
        true
    }
}

/// A new view of all of `x` (`x[...]`): AliasBackward0 passes the gradient through.
pub fn view_as_alias(x: &Tensor) -> Result<Tensor> {
    let out = alias(x, x.data().layout);
    if !needs_grad(&[x]) {
        return Ok(out);
    }
    Ok(crate::autograd::record_formula(
        out,
        &[x],
        "AliasBackward0",
        vec![],
        |g, _| Ok(vec![Some(g.clone())]),
    ))
}
