//! The GPU kernels an op runs when its inputs are float32 GPU tensors (Note [Devices]).
//!
//! Each function returns `Ok(None)` when its kernel does not apply (another dtype, a layout the
//! shader cannot read); the op then computes on the synchronized host copy and its result
//! still lands on the GPU. Ops call these from their forward kernels, so backward formulas —
//! written in the same ops — run on the GPU too.

use crate::backend::wgpu::{self as gpu, MatView, View};
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::{Data, Device, Layout, Storage, Tensor};
use std::sync::Arc;

/// A contiguous float32 GPU tensor of `shape` holding a kernel's output.
fn result(buf: gpu::GpuBuffer, shape: &[usize]) -> Tensor {
    Tensor::from_storage(Storage::from_gpu_buffer(buf), Layout::contiguous(shape))
}

/// The buffer and layout of a float32 tensor the kernels can read: on the GPU, or a 0-dim
/// CPU tensor (a number; uploaded, 4 bytes). None for anything else.
fn operand(t: &Tensor) -> Result<Option<(Arc<gpu::GpuBuffer>, Layout)>> {
    let d: Data = t.data();
    if d.dtype() != DType::F32 || d.layout.strides.iter().any(|&s| s < 0) {
        return Ok(None);
    }
    match d.device() {
        Device::Gpu => Ok(Some((d.storage.gpu_buffer()?, d.layout))),
        Device::Cpu if d.layout.ndim() == 0 => {
            let v = d.storage.slice::<f32>()[d.layout.offset];
            Ok(Some((
                gpu::GpuBuffer::constant(v)?,
                Layout::contiguous(&[]),
            )))
        }
        Device::Cpu => Ok(None),
    }
}

fn ustrides(l: &Layout) -> Vec<usize> {
    l.strides.iter().map(|&s| s as usize).collect()
}

/// Elementwise unary op of a float32 GPU tensor (a strided one is copied contiguous first).
pub fn unary(op: gpu::UnaryOp, x: &Tensor) -> Result<Option<Tensor>> {
    if x.device() != Device::Gpu || x.dtype() != DType::F32 {
        return Ok(None);
    }
    if !x.is_contiguous() {
        return match contiguous_as(x, DType::F32)? {
            Some(c) => unary(op, &c),
            None => Ok(None),
        };
    }
    let Some((buf, l)) = operand(x)? else {
        return Ok(None);
    };
    let out = gpu::unary(op, &buf, l.offset, l.numel())?;
    Ok(Some(result(out, &l.shape)))
}

/// Elementwise binary op over the broadcast `shape`, either operand strided.
pub fn binary(
    op: gpu::BinaryOp,
    a: &Tensor,
    b: &Tensor,
    shape: &[usize],
) -> Result<Option<Tensor>> {
    Ok(binary_words(op, a, b, shape)?.map(|out| result(out, shape)))
}

/// A comparison of float32 operands as a bool GPU tensor (the kernel writes 1.0 / 0.0, which
/// is how the GPU holds bools).
pub fn compare(
    op: gpu::BinaryOp,
    a: &Tensor,
    b: &Tensor,
    shape: &[usize],
) -> Result<Option<Tensor>> {
    Ok(binary_words(op, a, b, shape)?.map(|out| {
        Tensor::from_storage(
            Storage::from_gpu_words(out, DType::Bool),
            Layout::contiguous(shape),
        )
    }))
}

fn binary_words(
    op: gpu::BinaryOp,
    a: &Tensor,
    b: &Tensor,
    shape: &[usize],
) -> Result<Option<gpu::GpuBuffer>> {
    if a.device() != Device::Gpu && b.device() != Device::Gpu {
        return Ok(None);
    }
    let (Some((ba, la)), Some((bb, lb))) = (operand(a)?, operand(b)?) else {
        return Ok(None);
    };
    let (sa, sb) = (ustrides(&la), ustrides(&lb));
    let va = View {
        shape: &la.shape,
        strides: &sa,
        offset: la.offset,
    };
    let vb = View {
        shape: &lb.shape,
        strides: &sb,
        offset: lb.offset,
    };
    match gpu::binary(op, &ba, &va, &bb, &vb, shape) {
        Ok(out) => Ok(Some(out)),
        // More non-mergeable dims than the shader indexes: the host path takes it.
        Err(_) if shape.len() > gpu::MAX_DIMS => Ok(None),
        Err(e) => Err(e),
    }
}

/// Sum of a float32 GPU tensor over `dims`, giving the reduced shape `out_shape`.
pub fn sum(x: &Tensor, dims: &[usize], out_shape: &[usize]) -> Result<Option<Tensor>> {
    reduce(gpu::ReduceOp::Sum, x, dims, out_shape)
}

/// `op` (sum, mean, max, min) of a float32 GPU tensor over `dims` (sorted, distinct), giving
/// the reduced shape `out_shape`. One `[outer, red, inner]` pass of the tree reduction: in
/// place when the tensor is contiguous and the dims adjacent, else after a GPU copy that
/// moves the reduced dims last.
pub fn reduce(
    op: gpu::ReduceOp,
    x: &Tensor,
    dims: &[usize],
    out_shape: &[usize],
) -> Result<Option<Tensor>> {
    if x.device() != Device::Gpu || x.dtype() != DType::F32 {
        return Ok(None);
    }
    let shape = x.shape();
    if dims.is_empty() && !shape.is_empty() {
        return Ok(None);
    }
    let prod = |r: std::ops::Range<usize>| shape[r].iter().product::<usize>();
    let adjacent = dims.windows(2).all(|w| w[1] == w[0] + 1);
    let (x, outer, red, inner) = if shape.is_empty() {
        (x.clone(), 1, 1, 1)
    } else if x.is_contiguous() && adjacent {
        let (lo, hi) = (dims[0], dims[0] + dims.len());
        (x.clone(), prod(0..lo), prod(lo..hi), prod(hi..shape.len()))
    } else {
        let kept = (0..shape.len()).filter(|d| !dims.contains(d));
        let order: Vec<i64> = kept.chain(dims.iter().copied()).map(|d| d as i64).collect();
        let moved = crate::ops::movement::permute(&x.detach(), &order)?;
        let Some(c) = contiguous_as(&moved, DType::F32)? else {
            return Ok(None);
        };
        let size = |d: &usize| shape[*d];
        let outer = (0..shape.len())
            .filter(|d| !dims.contains(d))
            .map(|d| shape[d])
            .product();
        (c, outer, dims.iter().map(size).product(), 1)
    };
    let Some((buf, l)) = operand(&x)? else {
        return Ok(None);
    };
    let out = gpu::reduce(op, &buf, l.offset, outer, red, inner)?;
    Ok(Some(result(out, out_shape)))
}

/// Softmax / log-softmax of a float32 GPU tensor along `dim` (read in place when contiguous,
/// else after a GPU copy).
pub fn softmax(x: &Tensor, dim: usize, log: bool) -> Result<Option<Tensor>> {
    if x.device() != Device::Gpu || x.dtype() != DType::F32 {
        return Ok(None);
    }
    let x = if x.is_contiguous() {
        x.clone()
    } else {
        match contiguous_as(x, DType::F32)? {
            Some(c) => c,
            None => return Ok(None),
        }
    };
    let shape = x.shape();
    let Some((buf, l)) = operand(&x)? else {
        return Ok(None);
    };
    let (outer, red, inner) = if shape.is_empty() {
        (1, 1, 1)
    } else {
        (
            shape[..dim].iter().product(),
            shape[dim],
            shape[dim + 1..].iter().product(),
        )
    };
    let out = gpu::softmax(log, &buf, l.offset, outer, red, inner)?;
    Ok(Some(result(out, &shape)))
}

/// Batched product `a (B, m, k) · b (B, k, n)` of float32 GPU tensors with non-negative
/// strides (transposed operands are read in place).
pub fn bmm(a: &Tensor, b: &Tensor) -> Result<Option<Tensor>> {
    let (Some((ba, la)), Some((bb, lb))) = (operand(a)?, operand(b)?) else {
        return Ok(None);
    };
    if la.ndim() != 3 || lb.ndim() != 3 {
        return Ok(None);
    }
    let view = |l: &Layout| MatView {
        offset: l.offset,
        bs: l.strides[0] as usize,
        rs: l.strides[1] as usize,
        cs: l.strides[2] as usize,
    };
    let (batch, m, k, n) = (la.shape[0], la.shape[1], la.shape[2], lb.shape[2]);
    let out = gpu::matmul(&ba, view(&la), &bb, view(&lb), batch, m, k, n)?;
    Ok(Some(result(out, &[batch, m, n])))
}

/// The buffer and layout of a tensor of any dtype the GPU holds: on the GPU, or a CPU number
/// (0-dim, or expanded from one: every stride 0), read from a cached constant. None for
/// anything else.
fn word_operand(t: &Tensor) -> Result<Option<(Arc<gpu::GpuBuffer>, Layout)>> {
    let d: Data = t.data();
    if d.dtype() == DType::F64 || d.layout.strides.iter().any(|&s| s < 0) {
        return Ok(None);
    }
    match d.device() {
        Device::Gpu => Ok(Some((d.storage.gpu_buffer()?, d.layout))),
        Device::Cpu if d.layout.strides.iter().all(|&s| s == 0) && d.layout.numel() > 0 => {
            let ptr = d.storage.data_ptr();
            let off = d.layout.offset;
            // SAFETY: the element at `offset` is inside the storage (the view is not empty).
            let w = unsafe {
                let at = ptr.add(off * d.dtype().itemsize());
                gpu::Words::encode(d.dtype(), at, 1)?
            };
            let mut l = d.layout;
            l.offset = 0;
            Ok(Some((gpu::GpuBuffer::constant(f32::from_bits(w[0]))?, l)))
        }
        Device::Cpu => Ok(None),
    }
}

fn sview<'a>(l: &'a Layout) -> gpu::SView<'a> {
    gpu::SView {
        shape: &l.shape,
        strides: &l.strides,
        offset: l.offset,
    }
}

/// Whether the GPU should do a copy out of `t`: its values are current on the GPU (copying
/// them on the host would download them first).
fn resident(t: &Tensor) -> bool {
    t.device() == Device::Gpu && t.data().storage.gpu_resident()
}

/// A contiguous copy of GPU tensor `t` as `dtype` (the copy kernel, casting on the way);
/// None when the values are not on the GPU or the dtypes are not ones it holds.
pub fn contiguous_as(t: &Tensor, dtype: DType) -> Result<Option<Tensor>> {
    let Some(op) = gpu::CopyOp::between(t.dtype(), dtype) else {
        return Ok(None);
    };
    if !resident(t) {
        return Ok(None);
    }
    let d: Data = t.data();
    let src = d.storage.gpu_buffer()?;
    let out_layout = Layout::contiguous(&d.layout.shape);
    let out = src.alloc_like(d.layout.numel())?;
    gpu::copy(op, &src, &sview(&d.layout), &out, &sview(&out_layout))?;
    Ok(Some(Tensor::from_storage(
        Storage::from_gpu_words(out, dtype),
        out_layout,
    )))
}

/// A contiguous GPU tensor of `shape` filled with `s` by the copy kernel from a cached
/// constant; None for a dtype the GPU does not hold.
pub fn full(shape: &[usize], s: crate::dtype::Scalar, dtype: DType) -> Result<Option<Tensor>> {
    if dtype == DType::F64 {
        return Ok(None);
    }
    let number = Tensor::scalar(s, dtype);
    let Some((cbuf, _)) = word_operand(&number)? else {
        return Ok(None);
    };
    let layout = Layout::contiguous(shape);
    let out = cbuf.alloc_like(layout.numel())?;
    let zeros = vec![0isize; shape.len()];
    let from = gpu::SView {
        shape,
        strides: &zeros,
        offset: 0,
    };
    gpu::copy(gpu::CopyOp::Same, &cbuf, &from, &out, &sview(&layout))?;
    Ok(Some(Tensor::from_storage(
        Storage::from_gpu_words(out, dtype),
        layout,
    )))
}

/// Writes `src` (dst's shape, any layout, cast to dst's dtype) into GPU tensor `dst`'s
/// elements on the GPU. False (nothing written) when the host should do it: `src` is not on
/// the GPU and `dst`'s values are not either, or a dtype the GPU does not hold.
/// `src` must not share `dst`'s memory.
pub fn write_into(dst: &Tensor, src: &Tensor) -> Result<bool> {
    if dst.device() != Device::Gpu {
        return Ok(false);
    }
    let Some(op) = gpu::CopyOp::between(src.dtype(), dst.dtype()) else {
        return Ok(false);
    };
    if !(resident(src) || dst.data().storage.gpu_resident()) {
        return Ok(false);
    }
    let Some((sbuf, sl)) = word_operand(src)? else {
        return Ok(false);
    };
    let d: Data = dst.data();
    let dbuf = d.storage.gpu_buffer()?;
    // A 0-dim source (a number) is broadcast by stride 0.
    let sl = if sl.ndim() == 0 && d.layout.ndim() > 0 {
        Layout {
            shape: d.layout.shape.clone(),
            strides: smallvec::smallvec![0; d.layout.ndim()],
            offset: sl.offset,
        }
    } else {
        sl
    };
    gpu::copy(op, &sbuf, &sview(&sl), &dbuf, &sview(&d.layout))?;
    d.storage.gpu_written();
    Ok(true)
}

/// `cond ? a : b` over the broadcast `shape` (a and b of one dtype the GPU holds).
pub fn select(cond: &Tensor, a: &Tensor, b: &Tensor, shape: &[usize]) -> Result<Option<Tensor>> {
    if Device::of(&[cond, a, b])? != Device::Gpu {
        return Ok(None);
    }
    let (Some((bc, lc)), Some((ba, la)), Some((bb, lb))) =
        (word_operand(cond)?, word_operand(a)?, word_operand(b)?)
    else {
        return Ok(None);
    };
    let (sc, sa, sb) = (ustrides(&lc), ustrides(&la), ustrides(&lb));
    let vc = View {
        shape: &lc.shape,
        strides: &sc,
        offset: lc.offset,
    };
    let va = View {
        shape: &la.shape,
        strides: &sa,
        offset: la.offset,
    };
    let vb = View {
        shape: &lb.shape,
        strides: &sb,
        offset: lb.offset,
    };
    match gpu::select((&bc, &vc), (&ba, &va), (&bb, &vb), shape) {
        Ok(out) => Ok(Some(Tensor::from_storage(
            Storage::from_gpu_words(out, a.dtype()),
            Layout::contiguous(shape),
        ))),
        Err(_) if shape.len() > gpu::MAX_DIMS => Ok(None),
        Err(e) => Err(e),
    }
}
