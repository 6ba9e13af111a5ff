//! GPU indexing: gather / scatter (and scatter-add) along a dim, `put` at offsets, nonzero.

use super::*;
use crate::tensor::Operand;

/// The int32 words of an index whose int64 `values` (row-major) the caller has read and
/// checked: a GPU index's own buffer when its values are there, else `values` uploaded. A
/// caller that trusts its index passes no values; they are then read off the host copy.
fn index_words(index: &Tensor, values: &[i64]) -> Result<(Arc<gpu::GpuBuffer>, Layout)> {
    if resident(index) {
        let d: Data = index.data();
        return Ok((d.storage.gpu_buffer()?, d.layout));
    }
    let host;
    let values = if values.len() == index.numel() {
        values
    } else {
        host = match index.dtype() {
            DType::I32 => index.to_vec::<i32>().into_iter().map(i64::from).collect(),
            _ => index.to_vec::<i64>(),
        };
        &host
    };
    let w: Vec<u32> = gpu::narrow_i64(values)?
        .into_iter()
        .map(|v| v as u32)
        .collect();
    Ok((
        Arc::new(gpu::GpuBuffer::upload_words(&w)?),
        Layout::contiguous(&index.shape()),
    ))
}

/// The index's layout over the kernel's iteration shape: its own, or with `along = (dim,
/// shape)` a 0/1-D index repeated over `shape` by stride 0 (index_select, index_add).
fn index_layout(il: Layout, along: Option<(usize, &[usize])>) -> Layout {
    let Some((dim, shape)) = along else {
        return il;
    };
    let mut strides = smallvec::smallvec![0; shape.len()];
    strides[dim] = il.strides.first().copied().unwrap_or(0);
    Layout {
        shape: shape.into(),
        strides,
        offset: il.offset,
    }
}

/// `out[c] = x[c with c[dim] = index[c]]` for GPU tensor `x` of any dtype the GPU holds; the
/// output takes the index's shape (or `along`'s, see [`index_layout`]). `values` are the
/// index's, already checked against `x`'s size at `dim`. None when the kernel does not apply.
pub fn gather(
    x: &Tensor,
    dim: usize,
    index: &Tensor,
    values: &[i64],
    along: Option<&[usize]>,
) -> Result<Option<Tensor>> {
    if x.device() != Device::Gpu || x.dtype() == DType::F64 {
        return Ok(None);
    }
    let ishape = along.map_or_else(|| index.shape().to_vec(), <[usize]>::to_vec);
    if x.dim() == 0 || ishape.len() != x.dim() {
        return Ok(None);
    }
    let d: Data = x.data();
    let Some(xbuf) = d.storage.gpu_words()? else {
        return Ok(None);
    };
    let (ibuf, il) = index_words(index, values)?;
    let il = index_layout(il, along.map(|s| (dim, s)));
    let ol = Layout::contiguous(&ishape);
    if !bindable(&[&xbuf, &ibuf], ol.numel()) {
        return Ok(None);
    }
    let out = xbuf.alloc_like(ol.numel())?;
    let xv = gpu::SView {
        shape: &ishape,
        strides: &d.layout.strides,
        offset: d.layout.offset,
    };
    gpu::index(
        gpu::IndexOp::Gather,
        (&xbuf, &xv),
        (&ibuf, &sview(&il)),
        (&out, &sview(&ol)),
        dim,
        d.layout.shape[dim],
    )?;
    Ok(Some(Tensor::from_storage(
        Storage::from_gpu_words(out, x.dtype()),
        ol,
    )))
}

/// Writes (`accumulate`: adds) `src` (a tensor of `out`'s dtype read at the index's
/// coordinates, or a number) into contiguous GPU tensor `out` at `index` along `dim`, in
/// place; the iteration shape is the index's (or `along`'s). `values` are the index's,
/// already checked. False (nothing written) when the kernel does not apply: the host does it.
pub fn scatter(
    out: &Tensor,
    dim: usize,
    index: &Tensor,
    values: &[i64],
    along: Option<&[usize]>,
    src: &Operand,
    accumulate: bool,
) -> Result<bool> {
    let dtype = out.dtype();
    if out.device() != Device::Gpu || !out.is_contiguous() {
        return Ok(false);
    }
    // No float atomics: float32 adds by compare-exchange; bool has no add on the GPU,
    // float16 must round after each add, and int64 sums may pass the int32 words the GPU
    // adds in (the host does those).
    let op = match (accumulate, dtype) {
        (_, DType::F64) | (true, DType::Bool | DType::F16 | DType::I64) => return Ok(false),
        (false, _) => gpu::IndexOp::Scatter,
        (true, DType::F32) => gpu::IndexOp::ScatterAddFloat,
        (true, _) => gpu::IndexOp::ScatterAddInt,
    };
    let ishape = along.map_or_else(|| index.shape().to_vec(), <[usize]>::to_vec);
    if out.dim() == 0 || ishape.len() != out.dim() {
        return Ok(false);
    }
    let src_t = match src {
        Operand::Scalar(s) => Tensor::scalar(*s, dtype),
        Operand::Tensor(t) if t.dtype() == dtype && t.dim() == ishape.len() => t.clone(),
        Operand::Tensor(_) => return Ok(false),
    };
    let Some((sbuf, sl)) = word_operand(&src_t)? else {
        return Ok(false);
    };
    let od: Data = out.data();
    let Some(obuf) = od.storage.gpu_words()? else {
        return Ok(false);
    };
    if Arc::ptr_eq(&sbuf, &obuf) {
        return Ok(false);
    }
    // A number is read at every position by stride 0.
    let sstrides: Vec<isize> = if sl.ndim() == 0 {
        vec![0; ishape.len()]
    } else {
        sl.strides.to_vec()
    };
    let (ibuf, il) = index_words(index, values)?;
    if !bindable(&[&sbuf, &obuf, &ibuf], 0) {
        return Ok(false);
    }
    let il = index_layout(il, along.map(|s| (dim, s)));
    let sv = gpu::SView {
        shape: &ishape,
        strides: &sstrides,
        offset: sl.offset,
    };
    let ov = gpu::SView {
        shape: &ishape,
        strides: &od.layout.strides,
        offset: od.layout.offset,
    };
    gpu::index(
        op,
        (&sbuf, &sv),
        (&ibuf, &sview(&il)),
        (&obuf, &ov),
        dim,
        od.layout.shape[dim],
    )?;
    od.storage.gpu_written();
    Ok(true)
}

/// `x`'s storage elements at `offsets` (row-major over `shape`, at least 1-D) set to `value`
/// (of `shape` and `x`'s dtype, any layout): an advanced `x[key] = value` on the GPU. False
/// (nothing written) when the kernel does not apply.
pub fn put(x: &Tensor, offsets: &[i64], shape: &[usize], value: &Tensor) -> Result<bool> {
    if x.device() != Device::Gpu
        || x.dtype() == DType::F64
        || value.dtype() != x.dtype()
        || shape.is_empty()
        || value.shape().as_slice() != shape
    {
        return Ok(false);
    }
    let Some((vbuf, vl)) = word_operand(value)? else {
        return Ok(false);
    };
    let storage = x.data().storage;
    let Some(xbuf) = storage.gpu_words()? else {
        return Ok(false);
    };
    if Arc::ptr_eq(&vbuf, &xbuf) {
        return Ok(false);
    }
    let w: Vec<u32> = gpu::narrow_i64(offsets)?
        .into_iter()
        .map(|v| v as u32)
        .collect();
    let ibuf = gpu::GpuBuffer::upload_words(&w)?;
    if !bindable(&[&vbuf, &xbuf, &ibuf], 0) {
        return Ok(false);
    }
    let il = Layout::contiguous(shape);
    // The storage as one dim the offsets index: stride 1 at dim 0, 0 elsewhere.
    let mut ostrides = vec![0isize; shape.len()];
    ostrides[0] = 1;
    let ov = gpu::SView {
        shape,
        strides: &ostrides,
        offset: 0,
    };
    gpu::index(
        gpu::IndexOp::Scatter,
        (&vbuf, &sview(&vl)),
        (&ibuf, &sview(&il)),
        (&xbuf, &ov),
        0,
        storage.len(),
    )?;
    storage.gpu_written();
    Ok(true)
}

/// `x.nonzero()` of a GPU tensor whose values are on the GPU: int64 `[count, ndim]`
/// coordinates, row-major, by the compaction kernels (one number, the count, is read back).
/// None when the kernel does not apply (values on the host: the host reads them for free).
pub fn nonzero(x: &Tensor) -> Result<Option<Tensor>> {
    let nd = x.dim();
    if !resident(x) || x.dtype() == DType::F64 || nd > gpu::MAX_DIMS {
        return Ok(None);
    }
    if nd == 0 {
        // `[count, 0]`: counted as a 1-D tensor of one, no coordinates to keep.
        let d: Data = x.data();
        let one = Layout {
            shape: [1].into_iter().collect(),
            strides: [1].into_iter().collect(),
            offset: d.layout.offset,
        };
        let Some(flat) = nonzero(&Tensor::from_storage(d.storage.clone(), one))? else {
            return Ok(None);
        };
        let count = flat.shape()[0];
        let empty = flat.data().storage.gpu_buffer()?.alloc_like(0)?;
        return Ok(Some(Tensor::from_storage(
            Storage::from_gpu_words(empty, DType::I64),
            Layout::contiguous(&[count, 0]),
        )));
    }
    let Some(c) = contiguous_on_gpu(x)? else {
        return Ok(None);
    };
    let d: Data = c.data();
    let buf = d.storage.gpu_buffer()?;
    // The count is not known yet: the output may hold every element's coordinates.
    if !bindable(&[&buf], d.layout.numel() * nd) {
        return Ok(None);
    }
    let int_words = matches!(x.dtype(), DType::I64 | DType::I32);
    let (out, count) = gpu::nonzero(&buf, d.layout.offset, &d.layout.shape, int_words)?;
    Ok(Some(Tensor::from_storage(
        Storage::from_gpu_words(out, DType::I64),
        Layout::contiguous(&[count, nd]),
    )))
}

/// The positions (int64) of the true elements of the 1-D bool `mask`, compacted on the GPU,
/// and the elements of the 1-D `flat` there, gathered on the GPU (in range by construction,
/// so not read back to check). None where either kernel does not apply.
pub fn masked_select(flat: &Tensor, mask: &Tensor) -> Result<Option<(Tensor, Tensor)>> {
    let Some(nz) = nonzero(mask)? else {
        return Ok(None);
    };
    let d = nz.data();
    let n = d.layout.shape[0];
    let layout = Layout {
        shape: smallvec::smallvec![n],
        strides: smallvec::smallvec![d.layout.strides[0]],
        offset: d.layout.offset,
    };
    let pos = Tensor::from_storage(d.storage, layout);
    Ok(gather(flat, 0, &pos, &[], None)?.map(|out| (pos, out)))
}
