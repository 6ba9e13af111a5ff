//! Creating tensors: constants, ranges, casts and copies (no gradients flow into these,
//! except `to_dtype` and `clone`, which are differentiable).

use crate::autograd::{needs_grad, record, Backward, Ctx};
use crate::dispatch;
use crate::dtype::{DType, Scalar};
use crate::error::{Error, Result};
use crate::kernels;
use crate::tensor::layout::{like_strides, MemoryFormat};
use crate::tensor::shape::{Shape, Strides};
use crate::tensor::{Device, Element, Layout, Tensor};
use std::sync::Arc;

pub fn ones_like(t: &Tensor) -> Tensor {
    Tensor::full_on(&t.shape(), Scalar::Int(1), t.dtype(), t.device())
}

pub fn zeros_like(t: &Tensor) -> Tensor {
    Tensor::zeros_on(&t.shape(), t.dtype(), t.device())
}

/// True when nothing else can observe `t`'s memory, so it may become a leaf's `.grad` as is
/// (detached, once `t` itself is dropped). That includes a view whose base only `t` keeps
/// alive: `TBackward`'s `g.t()` of a weight gradient computed transposed (PyTorch steals it
/// too; copying it cost a tenth of a small MLP's training step).
pub fn is_exclusively_owned(t: &Tensor) -> bool {
    let d = t.read();
    let others = match t.view_base() {
        None => 0,
        Some(base) => {
            if Arc::strong_count(&base.0) != 1 || !Arc::ptr_eq(&base.read().storage, &d.storage) {
                return false;
            }
            1
        }
    };
    Arc::strong_count(&t.0) == 1
        && Arc::strong_count(&d.storage) == 1 + others
        && d.layout.is_contiguous()
        && d.layout.offset == 0
        && d.storage.len() == d.layout.numel()
}

/// A contiguous copy with no autograd history.
pub fn contiguous_clone(t: &Tensor) -> Tensor {
    kernels::contiguous(t)
}

/// Cast without autograd.
pub fn cast_data(t: &Tensor, dtype: DType) -> Tensor {
    kernels::cast(t, dtype)
}

/// An input widened to the dtype its kernels compute in (Note [Narrow dtypes] in
/// `kernels::copy`).
pub(crate) fn wide(t: &Tensor) -> Tensor {
    kernels::wide(t)
}

/// `out` cast to the narrow `dtype` it was computed for (Note [Narrow dtypes]).
pub(crate) fn narrow(out: Tensor, dtype: DType) -> Tensor {
    kernels::narrow(out, dtype)
}

/// `tensor.to(dtype)`: returns `t` itself when the dtype already matches (as PyTorch does).
pub fn to_dtype(t: &Tensor, dtype: DType) -> Result<Tensor> {
    if t.dtype() == dtype {
        return Ok(t.clone());
    }
    let out = cast_data(t, dtype);
    if needs_grad(&[t]) && dtype.is_floating_point() {
        return Ok(record(out, &[t], ToCopyBackward));
    }
    Ok(out)
}

/// `tensor.to(device)`: `t` itself when already there; else a contiguous copy on `device`
/// (ToCopyBackward0, whose gradient goes back to `t`'s device). Moving to the GPU checks
/// that an adapter exists and that the dtype can live there; int64 values must fit the int32
/// the shaders index with.
pub fn to_device(t: &Tensor, device: Device) -> Result<Tensor> {
    if t.device() == device {
        return Ok(t.clone());
    }
    let out = copy_to_device(t, device)?;
    if needs_grad(&[t]) {
        return Ok(record(out, &[t], ToCopyBackward));
    }
    Ok(out)
}

/// The values of `t` as a new contiguous tensor on `device`, no autograd.
pub fn copy_to_device(t: &Tensor, device: Device) -> Result<Tensor> {
    kernels::to_device(t, device)
}

/// `to(..., copy=True)` that changes neither device nor dtype: a new contiguous copy that
/// records ToCopyBackward0, as PyTorch's `_to_copy`.
pub fn to_copy(t: &Tensor) -> Tensor {
    let out = contiguous_clone(t);
    if needs_grad(&[t]) {
        return record(out, &[t], ToCopyBackward);
    }
    out
}

struct ToCopyBackward;
impl Backward for ToCopyBackward {
    fn name(&self) -> &'static str {
        "ToCopyBackward0"
    }
    // The identity on `g`: the tangent is copied (Note [Forward AD]).
    fn elementwise(&self) -> bool {
        true
    }
    fn apply(&mut self, g: &[Option<Tensor>], _: &Ctx) -> Result<Vec<Option<Tensor>>> {
        // The engine casts the gradient back to the input's dtype and device
        // (Note [Undo broadcasting]).
        Ok(vec![g[0].clone()])
    }
}

/// A row-major copy that stays in the graph (CloneBackward0): what gradrs's own ops clone.
pub fn clone(t: &Tensor) -> Tensor {
    let out = contiguous_clone(t);
    if needs_grad(&[t]) {
        return record(out, &[t], CloneBackward);
    }
    out
}

/// `clone(memory_format=fmt)`, the Tensor method: `preserve_format` (its default) keeps a
/// dense input's strides (Note [Memory formats]: a transposed tensor's clone is transposed).
pub fn clone_as(t: &Tensor, fmt: MemoryFormat) -> Result<Tensor> {
    let strides = like_strides(&t.read().layout, fmt)?;
    let out = match strides {
        None => contiguous_clone(t),
        Some(strides) => {
            // The elements in memory order (dims by stride, outermost first), then laid out.
            let mut order: Vec<usize> = (0..t.dim()).collect();
            order.sort_by_key(|&d| std::cmp::Reverse(strides[d]));
            let order: Vec<i64> = order.into_iter().map(|d| d as i64).collect();
            let walked = {
                let _no_grad = crate::autograd::GradModeGuard::new(false);
                crate::ops::movement::permute(t, &order)?
            };
            relaid(&contiguous_clone(&walked), &t.shape(), strides)
        }
    };
    if needs_grad(&[t]) {
        return Ok(record(out, &[t], CloneBackward));
    }
    Ok(out)
}

/// A fresh dense tensor's storage (its elements in memory order) as a tensor of `shape` with
/// `strides` (Note [Memory formats]).
pub fn relaid(dense: &Tensor, shape: &[usize], strides: Strides) -> Tensor {
    let storage = dense.read().storage.clone();
    Tensor::from_storage(
        storage,
        Layout {
            shape: Shape::from_slice(shape),
            strides,
            offset: 0,
        },
    )
}

/// `empty_like` & co.: `filled`, a fresh row-major tensor of equal values shaped as `like`,
/// laid out as `fmt` says for `like` (Note [Memory formats]).
pub fn like_layout(filled: Tensor, like: &Tensor, fmt: MemoryFormat) -> Result<Tensor> {
    Ok(match like_strides(&like.read().layout, fmt)? {
        None => filled,
        Some(strides) => relaid(&filled, &like.shape(), strides),
    })
}

struct CloneBackward;
impl Backward for CloneBackward {
    fn name(&self) -> &'static str {
        "CloneBackward0"
    }
    // The identity on `g`: the tangent is copied (Note [Forward AD]).
    fn elementwise(&self) -> bool {
        true
    }
    fn apply(&mut self, g: &[Option<Tensor>], _: &Ctx) -> Result<Vec<Option<Tensor>>> {
        Ok(vec![g[0].clone()])
    }
}

/// `contiguous()`: `t` itself when already contiguous, else a clone (CloneBackward0).
pub fn contiguous(t: &Tensor) -> Tensor {
    if t.is_contiguous() {
        t.clone()
    } else {
        clone(t)
    }
}

/// `contiguous(memory_format=fmt)`: `t` itself when already laid out so, else a clone.
pub fn contiguous_as(t: &Tensor, fmt: MemoryFormat) -> Result<Tensor> {
    match fmt {
        // PyTorch returns a contiguous tensor as it is before it looks at the format.
        MemoryFormat::Preserve if t.is_contiguous() => Ok(t.clone()),
        MemoryFormat::Preserve => Err(Error::Runtime(
            "preserve memory format is unsupported by the contiguous operator".into(),
        )),
        MemoryFormat::Contiguous => Ok(contiguous(t)),
        _ => {
            let wanted = like_strides(&Layout::contiguous(&t.shape()), fmt)?;
            let laid = {
                let d = t.read();
                match &wanted {
                    None => d.layout.is_contiguous(),
                    Some(w) => d
                        .layout
                        .shape
                        .iter()
                        .zip(w.iter().zip(d.layout.strides.iter()))
                        .all(|(&n, (a, b))| n < 2 || a == b),
                }
            };
            if laid {
                Ok(t.clone())
            } else {
                clone_as(t, fmt)
            }
        }
    }
}

/// `arange(start, end, step)` with PyTorch's length rule and dtype inference.
pub fn arange(start: Scalar, end: Scalar, step: Scalar, dtype: Option<DType>) -> Result<Tensor> {
    let any_float = [start, end, step].iter().any(|s| s.is_float());
    let dtype = dtype.unwrap_or(if any_float {
        crate::dtype::default_float()
    } else {
        DType::I64
    });
    let (s, e, st) = (start.to_f64(), end.to_f64(), step.to_f64());
    if !s.is_finite() || !e.is_finite() {
        let f = |x: f64| {
            if x.is_nan() {
                "nan".to_string()
            } else {
                x.to_string()
            }
        };
        return Err(Error::Runtime(format!(
            "unsupported range: {} -> {}",
            f(s),
            f(e)
        )));
    }
    if st == 0.0 {
        return Err(Error::Runtime("step must be nonzero".into()));
    }
    if (st > 0.0 && e < s) || (st < 0.0 && e > s) {
        return Err(Error::Runtime(
            "upper bound and lower bound inconsistent with step sign".into(),
        ));
    }
    let size = ((e - s) / st).ceil().max(0.0);
    if size >= i64::MAX as f64 {
        return Err(Error::Runtime("invalid size, possible overflow?".into()));
    }
    let n = size as usize;
    crate::tensor::shape::storage_nbytes(&[n], dtype.itemsize())?;
    Ok(dispatch!(dtype, T => {
        let mut v: Vec<T> = crate::tensor::pool::try_alloc(n)?;
        if any_float || dtype.is_floating_point() {
            v.extend((0..n).map(|i| T::from_f64(s + i as f64 * st)));
        } else {
            let (si, sti) = (start.to_i64(), step.to_i64());
            v.extend((0..n).map(|i| T::from_i64(si + i as i64 * sti)));
        }
        Tensor::from_vec(v, &[n])
    }))
}

/// `linspace(start, end, steps)`, symmetric from both ends like PyTorch's kernel:
/// `start + step * i` below the middle, `end - step * (steps - 1 - i)` from it.
///
/// ATen computes each value in the dtype itself (float32 in float32; float16/bfloat16 rounded
/// after every operation; integers in double from the truncated ends), and its compiler
/// contracts each `a + b * c` into one fused multiply-add: so do we, or float32 results differ
/// from PyTorch's in the last bit (which flips `floor` in grid_sample's affine_grid).
pub fn linspace(start: f64, end: f64, steps: i64, dtype: DType) -> Result<Tensor> {
    if steps < 0 {
        return Err(Error::Runtime(
            "number of steps must be non-negative".into(),
        ));
    }
    let n = steps as usize;
    let half = n / 2;
    // the multiplier of `step` and the end it starts from, for element i
    let at = |i: usize| {
        if i < half || n == 1 {
            (i, false)
        } else {
            (n - 1 - i, true)
        }
    };
    crate::tensor::shape::storage_nbytes(&[n], dtype.itemsize())?;
    Ok(dispatch!(dtype, T => {
        let mut v: Vec<T> = crate::tensor::pool::try_alloc(n)?;
        match dtype {
            DType::F32 => {
                let (s, e) = (start as f32, end as f32);
                let step = if n > 1 { (e - s) / (n - 1) as f32 } else { 0.0 };
                v.extend((0..n).map(|i| match at(i) {
                    (k, false) => T::from_f64(step.mul_add(k as f32, s) as f64),
                    (k, true) => T::from_f64((-step).mul_add(k as f32, e) as f64),
                }));
            }
            DType::F16 | DType::BF16 => {
                // c10::Half arithmetic: each operation in float32, rounded back to the dtype
                let r = |x: f32| T::from_f64(x as f64).to_f64() as f32;
                let (s, e) = (r(start as f32), r(end as f32));
                let step = if n > 1 { r(r(e - s) / r((n - 1) as f32)) } else { 0.0 };
                v.extend((0..n).map(|i| match at(i) {
                    (k, false) => T::from_f64(r(s + r(step * r(k as f32))) as f64),
                    (k, true) => T::from_f64(r(e - r(step * r(k as f32))) as f64),
                }));
            }
            _ => {
                // float64 directly; integers from their truncated ends, stepped in double
                let (s, e) = if dtype.is_floating_point() {
                    (start, end)
                } else {
                    (T::from_f64(start).to_f64(), T::from_f64(end).to_f64())
                };
                let step = if n > 1 { (e - s) / (n - 1) as f64 } else { 0.0 };
                v.extend((0..n).map(|i| match at(i) {
                    (k, false) => T::from_f64(step.mul_add(k as f64, s)),
                    (k, true) => T::from_f64((-step).mul_add(k as f64, e)),
                }));
            }
        }
        Tensor::from_vec(v, &[n])
    }))
}

pub fn eye(n: usize, m: usize, dtype: DType) -> Tensor {
    if let Err(e) = crate::tensor::shape::storage_nbytes(&[n, m], dtype.itemsize()) {
        crate::error::raise(e)
    }
    dispatch!(dtype, T => {
        let mut v = crate::tensor::pool::filled(n * m, T::default());
        for i in 0..n.min(m) {
            v[i * m + i] = T::from_i64(1);
        }
        Tensor::from_vec(v, &[n, m])
    })
}
