//! Views by explicit geometry: `as_strided` (AsStridedBackward0, PyTorch's `as_strided_backward`
//! with its handling of overlapping input and output geometries), `as_strided_scatter`
//! (AsStridedScatterBackward0) and `empty_strided`. Sizes, strides and offsets count elements
//! of the storage, as PyTorch's; the checks and their messages are ATen's `setStrided` /
//! `computeStorageNbytes`.

use crate::autograd::saved::Value;
use crate::autograd::{needs_grad, Jvp};
use crate::dtype::{DType, Scalar};
use crate::error::{Error, Result};
use crate::ops::inplace::{new_view, write_into};
use crate::tensor::shape::{sizes_i64, Shape, Strides};
use crate::tensor::{Device, Layout, Tensor};

/// `[a, b, c]`, as ATen prints an int list.
fn ints(v: &[i64]) -> String {
    let items: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    format!("[{}]", items.join(", "))
}

/// ATen's `computeStorageNbytes(sizes, strides, itemsize)`: the bytes a storage needs to hold the
/// geometry (0 when a size is 0), in its unsigned arithmetic and overflow check.
pub fn storage_nbytes(sizes: &[i64], strides: &[i64], itemsize: usize) -> Result<u64> {
    let overflow = || {
        Error::Runtime(format!(
            "Storage size calculation overflowed with sizes={} and strides={}",
            ints(sizes),
            ints(strides)
        ))
    };
    // c10's computeStorageNbytes: unsigned arithmetic from 1, so a negative stride on a dim
    // of size 2 or more overflows.
    let mut size = 1u64;
    let mut overflowed = false;
    for (&n, &s) in sizes.iter().zip(strides) {
        if n == 0 {
            return Ok(0);
        }
        match (s as u64).checked_mul((n - 1) as u64) {
            Some(strided) => match size.checked_add(strided) {
                Some(v) => size = v,
                None => overflowed = true,
            },
            None => overflowed = true,
        }
    }
    let bytes = size.checked_mul(itemsize as u64);
    match bytes {
        Some(b) if !overflowed && b <= i64::MAX as u64 => Ok(b),
        _ => Err(overflow()),
    }
}

/// PyTorch's `setStrided` checks for a view of a storage of `storage_len` elements of `dtype`,
/// and the layout they allow.
pub fn strided_layout(
    sizes: &[i64],
    strides: &[i64],
    offset: i64,
    dtype: DType,
    storage_len: usize,
) -> Result<Layout> {
    if sizes.len() != strides.len() {
        return Err(Error::Runtime(
            "mismatch in length of strides and shape".into(),
        ));
    }
    if strides.iter().any(|&s| s < 0) {
        return Err(Error::Runtime(format!(
            "as_strided: Negative strides are not supported at the moment, got strides: {}",
            ints(strides)
        )));
    }
    let itemsize = dtype.itemsize();
    let need = storage_nbytes(sizes, strides, itemsize)?;
    if need != 0 {
        let total = need as i128 + offset as i128 * itemsize as i128;
        let have = (storage_len * itemsize) as i128;
        if total > have {
            return Err(Error::Runtime(format!(
                "setStorage: sizes {}, strides {}, storage offset {offset}, and itemsize {itemsize} requiring a storage size of {total} are out of bounds for storage of size {have}",
                ints(sizes),
                ints(strides),
            )));
        }
    }
    if offset < 0 {
        return Err(Error::Runtime(format!(
            "Tensor: invalid storage offset {offset}"
        )));
    }
    if sizes.iter().any(|&n| n < 0) {
        // a negative size that a zero stride let through: PyTorch's numel check
        return Err(Error::Runtime(
            "numel: integer multiplication overflow".into(),
        ));
    }
    Ok(Layout {
        shape: sizes.iter().map(|&n| n as usize).collect::<Shape>(),
        strides: strides.iter().map(|&s| s as isize).collect::<Strides>(),
        offset: offset as usize,
    })
}

/// The layout `as_strided(x, size, stride, storage_offset)` gives (offset default: `x`'s).
pub fn as_strided_layout(
    x: &Tensor,
    size: &[i64],
    stride: &[i64],
    storage_offset: Option<i64>,
) -> Result<Layout> {
    let d = x.read();
    let offset = storage_offset.unwrap_or(d.layout.offset as i64);
    strided_layout(size, stride, offset, d.storage.dtype(), d.storage.len())
}

/// One tensor's geometry, as the backward needs it (PyTorch's `TensorGeometry`).
#[derive(Clone)]
struct Geometry {
    sizes: Vec<i64>,
    strides: Vec<i64>,
    offset: i64,
}

impl Geometry {
    fn of(l: &Layout) -> Geometry {
        Geometry {
            sizes: l.shape.iter().map(|&n| n as i64).collect(),
            strides: l.strides.iter().map(|&s| s as i64).collect(),
            offset: l.offset as i64,
        }
    }
}

/// `x.as_strided(size, stride, storage_offset=None)`: a view of `x`'s storage with that
/// geometry (AsStridedBackward0).
pub fn as_strided(
    x: &Tensor,
    size: &[i64],
    stride: &[i64],
    storage_offset: Option<i64>,
) -> Result<Tensor> {
    let layout = as_strided_layout(x, size, stride, storage_offset)?;
    let out = new_view(x, layout);
    if !needs_grad(&[x]) {
        return Ok(out);
    }
    Ok(record_as_strided(
        out,
        x,
        size,
        stride,
        storage_offset,
        "AsStridedBackward0",
    ))
}

/// Record `out` = `as_strided(input, size, stride, storage_offset)` under node `name`
/// (AsStridedBackward0, or AsStridedBackward1 for `as_strided_`).
pub(crate) fn record_as_strided(
    out: Tensor,
    input: &Tensor,
    size: &[i64],
    stride: &[i64],
    storage_offset: Option<i64>,
    name: &'static str,
) -> Tensor {
    let input_geometry = Geometry::of(&input.read().layout);
    let out_geometry = Geometry {
        sizes: size.to_vec(),
        strides: stride.to_vec(),
        offset: storage_offset.unwrap_or(input_geometry.offset),
    };
    // The tangent needs no formula: the output shares the input's memory, so its tangent is
    // the same view of the input's (Note [Forward AD]).
    crate::autograd::attach_named(
        &[&out],
        &[input],
        name,
        vec![],
        &[],
        [
            ("size", Value::Ints(size.to_vec())),
            (
                "storage_offset",
                storage_offset.map_or(Value::None, Value::Int),
            ),
            ("stride", Value::Ints(stride.to_vec())),
        ]
        .into_iter()
        .collect(),
        move |g, _| {
            let g = g[0].as_ref().expect("engine passes a gradient");
            Ok(vec![Some(as_strided_backward(
                g,
                &input_geometry,
                &out_geometry,
            )?)])
        },
    );
    out
}

/// ATen's `_maybe_overlapping_memory`: whether two indices of the geometry may share an element.
fn maybe_overlapping(sizes: &[i64], strides: &[i64]) -> bool {
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by_key(|&i| strides[i]);
    let mut max_index = 0i64;
    for i in order {
        if strides[i] <= max_index {
            return true;
        }
        max_index += strides[i] * (sizes[i] - 1);
    }
    false
}

/// ATen's `_min_storage_size`.
fn min_storage_size(sizes: &[i64], strides: &[i64], offset: i64) -> i64 {
    let mut n = offset + 1;
    for (&s, &st) in sizes.iter().zip(strides) {
        if s == 0 {
            return offset;
        }
        n += (s - 1) * st;
    }
    n
}

/// PyTorch's `as_strided_backward`: the output's gradient scattered (summed where the output
/// geometry overlaps) into a zero "storage" covering both geometries, divided where the
/// input geometry reads an element several times, then read back with the input's geometry.
/// Written in differentiable ops, so it has a backward of its own.
fn as_strided_backward(grad: &Tensor, input: &Geometry, out: &Geometry) -> Result<Tensor> {
    use crate::ops::movement::{reshape, squeeze};
    let zeros = |g: &Tensor| {
        let shape: Vec<usize> = input.sizes.iter().map(|&n| n as usize).collect();
        Tensor::zeros_on(&shape, g.dtype(), g.device())
    };
    let mut grad = grad.clone();
    let (mut out_sizes, mut out_strides) = (Vec::new(), Vec::new());
    for i in (0..out.sizes.len()).rev() {
        let (n, st) = (out.sizes[i], out.strides[i]);
        if n == 0 {
            return Ok(zeros(&grad));
        } else if n == 1 {
            grad = squeeze(&grad, Some(i as i64))?;
        } else if st == 0 {
            grad = crate::ops::reduce::sum(&grad, Some(&[i as i64]), false)?;
        } else {
            out_sizes.insert(0, n);
            out_strides.insert(0, st);
        }
    }
    let out_overlap = maybe_overlapping(&out_sizes, &out_strides);
    let (mut inp_sizes, mut inp_strides) = (Vec::new(), Vec::new());
    for i in (0..input.sizes.len()).rev() {
        let (n, st) = (input.sizes[i], input.strides[i]);
        if n == 0 {
            return Ok(zeros(&grad));
        } else if n != 1 {
            inp_sizes.insert(0, n);
            inp_strides.insert(0, st);
        }
    }
    let inp_overlap = maybe_overlapping(&inp_sizes, &inp_strides);
    let shared = input.offset.min(out.offset);
    let (inp_off, out_off) = (input.offset - shared, out.offset - shared);
    let base_size = min_storage_size(&inp_sizes, &inp_strides, inp_off).max(min_storage_size(
        &out_sizes,
        &out_strides,
        out_off,
    ));
    let (dtype, device) = (grad.dtype(), grad.device());
    let mut storage = Tensor::zeros_on(&[base_size as usize], dtype, device);
    let full_indices = || {
        let v: Vec<i64> = (0..base_size).collect();
        Tensor::from_vec_on(v, &[base_size as usize], device)
    };
    if out_overlap {
        let idx = as_strided(&full_indices(), &out_sizes, &out_strides, Some(out_off))?;
        storage = crate::ops::index::index_add(
            &storage,
            0,
            &reshape(&idx, &[-1])?,
            &reshape(&grad, &[-1])?,
            Scalar::Int(1),
        )?;
    } else {
        storage = as_strided_scatter(&storage, &grad, &out_sizes, &out_strides, Some(out_off))?;
    }
    if inp_overlap {
        let idx = as_strided(&full_indices(), &inp_sizes, &inp_strides, Some(inp_off))?;
        let idx = reshape(&idx, &[-1])?;
        let ones = Tensor::full_on(&[idx.numel()], Scalar::Int(1), dtype, device);
        let count = crate::ops::index::index_add(
            &Tensor::zeros_on(&[base_size as usize], dtype, device),
            0,
            &idx,
            &ones,
            Scalar::Int(1),
        )?;
        storage = crate::ops::arithmetic::div(&storage, count)?;
    }
    as_strided(&storage, &input.sizes, &input.strides, Some(inp_off))
}

/// PyTorch's `clone()` (preserve_format): a fresh storage (offset 0), with `x`'s strides when
/// they are dense and non-overlapping, else contiguous. Not recorded.
fn clone_preserving(x: &Tensor) -> Result<Tensor> {
    let l = x.read().layout.clone();
    if l.is_contiguous() || !dense_non_overlapping(&l) {
        return Ok(crate::ops::creation::contiguous_clone(x));
    }
    let layout = Layout { offset: 0, ..l };
    let storage = Tensor::zeros_on(&[x.numel()], x.dtype(), x.device())
        .read()
        .storage
        .clone();
    let out = Tensor::from_storage(storage, layout);
    write_into(&out, x)?;
    Ok(out)
}

/// Whether the layout's elements fill `numel` consecutive slots exactly once (a permutation of
/// contiguous strides; size-1 dims ignored).
fn dense_non_overlapping(l: &Layout) -> bool {
    let mut dims: Vec<(usize, isize)> = l
        .shape
        .iter()
        .zip(&l.strides)
        .filter(|(&n, _)| n != 1)
        .map(|(&n, &s)| (n, s))
        .collect();
    dims.sort_by_key(|&(_, s)| s);
    let mut expected = 1isize;
    for (n, s) in dims {
        if s != expected {
            return false;
        }
        expected *= n as isize;
    }
    true
}

/// `as_strided_scatter(x, src, size, stride, storage_offset=None)`: a copy of `x` (PyTorch's
/// `clone()`: a fresh storage, strides kept for a dense `x`) whose elements at that geometry of
/// the copy's storage are `src`'s (AsStridedScatterBackward0).
pub fn as_strided_scatter(
    x: &Tensor,
    src: &Tensor,
    size: &[i64],
    stride: &[i64],
    storage_offset: Option<i64>,
) -> Result<Tensor> {
    if x.requires_grad() && !x.is_contiguous() {
        return Err(Error::Runtime("!self.requires_grad() || self.is_contiguous() INTERNAL ASSERT FAILED at \"/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp\":4754, please report a bug to PyTorch. as_strided_scatter is currently only supported for contiguous inputs".into()));
    }
    let out = clone_preserving(x)?;
    let layout = as_strided_layout(&out, size, stride, storage_offset)?;
    if layout.shape != src.shape() {
        return Err(Error::Runtime(format!(
            "expected src to have a size equal to the slice of self. src size = {}, slice size = {}",
            crate::tensor::shape::list_repr(&src.shape()),
            crate::tensor::shape::list_repr(&layout.shape)
        )));
    }
    write_into(
        &Tensor::from_storage(out.read().storage.clone(), layout),
        src,
    )?;
    if !needs_grad(&[x, src]) {
        return Ok(out);
    }
    let (s, st) = (size.to_vec(), stride.to_vec());
    let (js, jst) = (s.clone(), st.clone());
    let shapes = vec![x.shape(), src.shape()];
    crate::autograd::attach_named_jvp(
        &[&out],
        &[x, src],
        "AsStridedScatterBackward0",
        vec![],
        &[],
        [
            ("size", Value::Ints(s.clone())),
            (
                "storage_offset",
                storage_offset.map_or(Value::None, Value::Int),
            ),
            ("stride", Value::Ints(st.clone())),
        ]
        .into_iter()
        .collect(),
        move |g, _| {
            // PyTorch's formulas: the source's gradient is the slice of the contiguous
            // gradient; the input's is PyTorch 2.13's `as_strided_scatter_backward`, which
            // places that same slice in a zero tensor laid out as the (contiguous) input:
            // not the mathematical gradient (that would zero the slice and keep the rest;
            // PyTorch's own gradcheck of as_strided_scatter fails), but PyTorch's values.
            let g = g[0].as_ref().expect("engine passes a gradient");
            let g = if g.is_contiguous() && g.read().layout.offset == 0 {
                g.clone()
            } else {
                crate::ops::creation::clone(g)
            };
            let gs = as_strided(&g, &s, &st, storage_offset)?;
            let zeros = Tensor::zeros_on(&g.shape(), g.dtype(), g.device());
            let gx = as_strided_scatter(&zeros, &gs, &s, &st, storage_offset)?;
            // read back through the input's geometry, as PyTorch's (AsStridedBackward0)
            let sizes = sizes_i64(&gx.shape());
            let strides: Vec<i64> = gx.strides().iter().map(|&v| v as i64).collect();
            let gx = as_strided(&gx, &sizes, &strides, Some(0))?;
            Ok(vec![Some(gx), Some(gs)])
        },
        Jvp::linear_n(shapes, move |t| {
            as_strided_scatter(&t[0], &t[1], &js, &jst, storage_offset)
        }),
    );
    Ok(out)
}

/// The strides c10's `TensorImpl::set_sizes_and_strides` stores: a negative stride (which
/// `storage_nbytes` lets through only on a dim of size 0 or 1) becomes 1 on the last dim and
/// otherwise the next dim's stride times its size (at least 1), as NumPy's increasing strides.
fn unnegated_strides(size: &[i64], stride: &[i64]) -> Vec<i64> {
    let mut out = stride.to_vec();
    for i in (0..out.len()).rev() {
        if out[i] < 0 {
            out[i] = match out.get(i + 1) {
                None => 1,
                Some(&next) => size[i + 1].max(1) * next,
            };
        }
    }
    out
}

/// `empty_strided(size, stride)`: a tensor with that geometry over a fresh storage just large
/// enough for it (ATen's checks and messages). gradrs hands out zeroed memory.
pub fn empty_strided(size: &[i64], stride: &[i64], dtype: DType, device: Device) -> Result<Tensor> {
    if let Some(&n) = size.iter().find(|&&n| n < 0) {
        return Err(Error::Runtime(format!(
            "Trying to create tensor with negative dimension {n}: {}",
            ints(size)
        )));
    }
    if size.len() != stride.len() {
        return Err(Error::Runtime(format!(
            "dimensionality of sizes ({}) must match dimensionality of strides ({})",
            size.len(),
            stride.len()
        )));
    }
    let bytes = storage_nbytes(size, stride, dtype.itemsize())?;
    let len = (bytes / dtype.itemsize() as u64) as usize;
    let storage = Tensor::zeros_on(&[len], dtype, device)
        .read()
        .storage
        .clone();
    let stride = unnegated_strides(size, stride);
    let layout = strided_layout(size, &stride, 0, dtype, len)?;
    Ok(Tensor::from_storage(storage, layout))
}
