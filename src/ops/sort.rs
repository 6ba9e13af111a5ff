//! Sorting along a dim: sort, argsort, msort, topk, kthvalue and median. Each picks values by
//! position, so each backward scatters the gradient back to the positions it picked.
//!
//! Every sort is stable, in PyTorch's order (NaN the largest, -0 equal to 0). PyTorch's
//! unstable sort may order ties differently; a stable order is one of the orders it allows.

use crate::autograd::graph::Value;
use crate::autograd::{attach_formula_jvp, needs_grad, GradModeGuard, SavedTensor};
use crate::dtype::{DType, Scalar};
use crate::error::{Error, Result};
use crate::kernels::{self, Rows};
use crate::ops::compare::{gt, ne};
use crate::ops::creation::{cast_data, contiguous_clone};
use crate::ops::extrema::evenly_distributed;
use crate::ops::index::scatter;
use crate::ops::movement::squeeze;
use crate::ops::reduce::restore_dims;
use crate::ops::slicing::slice;
use crate::ops::where_::where_;
use crate::ops::Operand;
use crate::tensor::shape::{sizes_i64, wrap_dim};
use crate::tensor::Tensor;

/// The values of `x` sorted along `d` and the positions they came from (int64), both
/// contiguous in x's shape; no autograd.
fn sorted(x: &Tensor, d: usize, descending: bool) -> Result<(Tensor, Tensor)> {
    kernels::sort(x, d, descending)
}

/// Records `name` on `values` (picked from `x` along `d` at `index`, which has values' shape
/// after `restore_dims`): the gradient lands at those positions, zero elsewhere.
fn record_pick(
    x: &Tensor,
    values: &Tensor,
    index: &Tensor,
    (dim, d): (i64, usize),
    keepdim: bool,
    name: &'static str,
) -> Result<()> {
    if !needs_grad(&[x]) {
        return Ok(());
    }
    let shape = x.shape();
    let dims = if shape.is_empty() { vec![] } else { vec![d] };
    let sizes = Value::Ints(crate::tensor::shape::sizes_i64(&shape));
    let saved = vec![SavedTensor::input(index)?];
    let vshape = sizes_i64(&values.shape());
    let (dims_t, shape_empty) = (dims.clone(), shape.is_empty());
    attach_formula_jvp(
        &[values],
        &[x],
        name,
        saved,
        move |g, s| {
            let g = g[0].clone().expect("values gradient");
            if shape.is_empty() {
                return Ok(vec![Some(g)]);
            }
            let index = restore_dims(&s[0], &dims, keepdim)?;
            let g = restore_dims(&g, &dims, keepdim)?;
            let zeros = Tensor::zeros_on(&shape, g.dtype(), g.device());
            let g = Operand::Tensor(g);
            // The positions are in range by construction: a GPU kernel writes them without the
            // read-back that checks a user's index (unless this backward is itself recorded).
            if !g.requires_grad() {
                kernels::scatter(&zeros, d, &index, None, None, &g, false)?;
                return Ok(vec![Some(zeros)]);
            }
            Ok(vec![Some(scatter(&zeros, d as i64, &index, g)?)])
        },
        crate::autograd::Jvp::of(move |t, s| {
            let Some(t) = &t[0] else {
                return Ok(vec![None]);
            };
            if shape_empty {
                return Ok(vec![Some(t.clone())]);
            }
            let index = restore_dims(&s[0], &dims_t, keepdim)?;
            let picked = crate::ops::index::gather(t, d as i64, &index)?;
            Ok(vec![Some(crate::ops::movement::reshape(&picked, &vshape)?)])
        }),
    );
    // PyTorch's names: the dim as given; sort and topk keep no `keepdim`.
    let mut shown = vec![("dim", Value::Int(dim))];
    if !matches!(name, "SortBackward0" | "TopkBackward0") {
        shown.push(("keepdim", Value::Bool(keepdim)));
    }
    shown.push(("self_sym_sizes", sizes));
    crate::autograd::formula::describe(values, &["indices"], shown);
    Ok(())
}

/// PyTorch's error for a bool `x` in an op whose kernel it names `kernel`.
fn no_bool(x: &Tensor, kernel: &str) -> Result<()> {
    if x.dtype() == DType::Bool {
        return Err(Error::NotImplemented(format!(
            "\"{kernel}\" not implemented for 'Bool'"
        )));
    }
    Ok(())
}

/// `x.sort(dim, descending)`: (values, indices), SortBackward0.
pub fn sort(x: &Tensor, dim: i64, descending: bool) -> Result<(Tensor, Tensor)> {
    let d = wrap_dim(dim, x.dim())?;
    let (values, indices) = sorted(&x.detach(), d, descending)?;
    record_pick(x, &values, &indices, (dim, d), true, "SortBackward0")?;
    Ok((values, indices))
}

/// `x.argsort(dim, descending)`: the indices of `sort`.
pub fn argsort(x: &Tensor, dim: i64, descending: bool) -> Result<Tensor> {
    let d = wrap_dim(dim, x.dim())?;
    Ok(sorted(&x.detach(), d, descending)?.1)
}

/// The first `k` along `d` (which has `size` elements) of a sorted pair, contiguous.
fn first_k(t: &Tensor, d: usize, k: usize, size: usize) -> Result<Tensor> {
    if t.dim() == 0 || k == size {
        return Ok(t.clone());
    }
    let _g = GradModeGuard::new(false);
    Ok(contiguous_clone(&slice(
        t,
        d as i64,
        Some(0),
        Some(k as i64),
        1,
    )?))
}

/// `x.topk(k, dim, largest, sorted)`: the `k` largest (smallest) along `dim`, in order
/// (also when `sorted` is false, which leaves the order to the implementation); TopkBackward0.
pub fn topk(x: &Tensor, k: i64, dim: i64, largest: bool) -> Result<(Tensor, Tensor)> {
    let d = wrap_dim(dim, x.dim())?;
    let size = x.shape().get(d).copied().unwrap_or(1);
    if k < 0 || k as usize > size {
        return Err(Error::Runtime("selected index k out of range".into()));
    }
    if x.dtype() == DType::Bool {
        // PyTorch's text (its GPU kernels have no bool version either).
        return Err(Error::Runtime(
            "topk does not support bool dtypes on CPU".into(),
        ));
    }
    let k = k as usize;
    let x0 = x.detach();
    // A selection, O(size + k log k) per line (a 0-dim tensor is its own top 0 and 1); where
    // the kernels have none, the first k of the sorted lines.
    let what = Rows::First {
        k: if x.dim() == 0 { 1 } else { k },
        descending: largest,
    };
    let (values, indices) = match kernels::select_lines(&x0, d, what)? {
        Some(found) => found,
        None => {
            let (v, i) = sorted(&x0, d, largest)?;
            (first_k(&v, d, k, size)?, first_k(&i, d, k, size)?)
        }
    };
    record_pick(x, &values, &indices, (dim, d), true, "TopkBackward0")?;
    Ok((values, indices))
}

/// Element `pos` (int64, one per line, keepdim shape) along `d` of a sorted pair, with the
/// dim kept or squeezed.
fn pick(t: &Tensor, d: usize, pos: &Tensor, keepdim: bool) -> Result<Tensor> {
    if t.dim() == 0 {
        return Ok(t.clone());
    }
    let _g = GradModeGuard::new(false);
    // `pos` is in range by construction: no read-back to check it on the GPU.
    let v = kernels::gather(t, d, pos, None, None)?;
    if keepdim {
        Ok(v)
    } else {
        squeeze(&v, Some(d as i64))
    }
}

/// A pair with one element along `d`, squeezed there unless `keepdim`.
fn kept((v, i): (Tensor, Tensor), d: usize, keepdim: bool) -> Result<(Tensor, Tensor)> {
    if keepdim || v.dim() == 0 {
        return Ok((v, i));
    }
    let _g = GradModeGuard::new(false);
    // Fresh results, not views of the unsqueezed pair (PyTorch's are not): an in-place op on
    // them records on the op's own node.
    Ok((
        squeeze(&v, Some(d as i64))?.unview_internal(&[]),
        squeeze(&i, Some(d as i64))?.unview_internal(&[]),
    ))
}

/// The position `p` as an int64 `[.., 1, ..]` index for `pick` along `d` of x's shape.
fn position(x: &Tensor, d: usize, p: usize) -> Tensor {
    let mut shape = x.shape();
    if let Some(s) = shape.get_mut(d) {
        *s = 1;
    }
    Tensor::full_on(&shape, Scalar::Int(p as i64), DType::I64, x.device())
}

/// `x.kthvalue(k, dim, keepdim)`: the k-th smallest along `dim` (NaN the largest) and its
/// index; KthvalueBackward0.
pub fn kthvalue(x: &Tensor, k: i64, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
    let d = wrap_dim(dim, x.dim())?;
    no_bool(x, "kthvalue_cpu")?;
    let size = x.shape().get(d).copied().unwrap_or(1);
    if size == 0 {
        return Err(Error::Index(format!(
            "kthvalue(): Expected reduction dim {d} to have non-zero size."
        )));
    }
    if k < 1 || k as usize > size {
        return Err(Error::Runtime(format!(
            "kthvalue(): selected number k out of range for dimension {d}"
        )));
    }
    let x0 = x.detach();
    let what = Rows::Kth {
        k: k as usize,
        nan_first: false,
    };
    let (values, indices) = match kernels::select_lines(&x0, d, what)? {
        Some(found) => kept(found, d, keepdim)?,
        None => {
            let (v, i) = sorted(&x0, d, false)?;
            let pos = position(x, d, k as usize - 1);
            (pick(&v, d, &pos, keepdim)?, pick(&i, d, &pos, keepdim)?)
        }
    };
    record_pick(x, &values, &indices, (dim, d), keepdim, "KthvalueBackward0")?;
    Ok((values, indices))
}

/// Where each line's median sits in the ascending sort along `d` (where the kernels have no
/// selection): the lower middle, or the
/// first NaN when the line has one (PyTorch's median propagates NaN, with its index).
fn median_position(x: &Tensor, v: &Tensor, d: usize) -> Result<Tensor> {
    let size = x.shape().get(d).copied().unwrap_or(1);
    let middle = position(x, d, (size - 1) / 2);
    if !x.dtype().is_floating_point() || x.dim() == 0 {
        return Ok(middle);
    }
    let _g = GradModeGuard::new(false);
    // The first NaN of each sorted line (NaNs sort last), found by a max over the NaN mask
    // (float32, which the GPU reduces), whose value says whether there is one.
    let nan = cast_data(&ne(v, v)?, DType::F32);
    let (any, first) = crate::ops::extrema::extreme_dim(&nan, d as i64, true, true)?;
    where_(
        &gt(&any, 0.0)?,
        Operand::Tensor(first),
        Operand::Tensor(middle),
    )
}

/// `x.median(dim, keepdim)`: the lower median along `dim` and its index; MedianBackward1.
pub fn median_dim(x: &Tensor, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
    let d = wrap_dim(dim, x.dim())?;
    no_bool(x, "median_out")?;
    if x.dim() > 0 && x.shape()[d] == 0 {
        return Err(Error::Index(format!(
            "median(): Expected reduction dim {d} to have non-zero size."
        )));
    }
    let x0 = x.detach();
    // A selection, O(size) per line, of the lower median's (1-based) rank; where the kernels
    // have none, picked from the sorted lines.
    let size = x.shape().get(d).copied().unwrap_or(1);
    let what = Rows::Kth {
        k: size.div_ceil(2),
        nan_first: true,
    };
    let (values, indices) = match kernels::select_lines(&x0, d, what)? {
        Some(found) => kept(found, d, keepdim)?,
        None => {
            let (v, i) = sorted(&x0, d, false)?;
            let pos = median_position(x, &v, d)?;
            (pick(&v, d, &pos, keepdim)?, pick(&i, d, &pos, keepdim)?)
        }
    };
    record_pick(x, &values, &indices, (dim, d), keepdim, "MedianBackward1")?;
    Ok((values, indices))
}

/// `x.median()`: the lower median of all elements (NaN if any is, and for no elements);
/// MedianBackward0 shares the gradient among the elements equal to it.
pub fn median_all(x: &Tensor) -> Result<Tensor> {
    no_bool(x, "median_cpu")?;
    let flat = {
        let _g = GradModeGuard::new(false);
        crate::ops::movement::reshape(&x.detach(), &[-1])?
    };
    let value = if x.numel() == 0 {
        // PyTorch gives NaN (and 0 for an integer dtype, its NaN cast).
        Tensor::full_on(&[], Scalar::Float(f64::NAN), x.dtype(), x.device())
    } else {
        median_dim(&flat, 0, false)?.0
    };
    let all: Vec<usize> = (0..x.dim()).collect();
    evenly_distributed(x, value, &all, false, "MedianBackward0", true)
}

/// `x.msort()`: sorted along dim 0 (SortBackward0).
pub fn msort(x: &Tensor) -> Result<Tensor> {
    Ok(sort(x, 0, false)?.0)
}
