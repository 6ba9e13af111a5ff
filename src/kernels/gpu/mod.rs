//! The GPU side of [`crate::kernels`]: tensors to buffers and views, the wgpu kernel, the
//! result back as a tensor (Note [Devices]). One room per kernel family; this file holds
//! what they share (operands read as buffers, contiguous copies, the copy kernel).
//!
//! Each function returns `Ok(None)` when its kernel does not apply (another dtype, a layout the
//! shader cannot read); the caller in `kernels` then computes on the synchronized host copy
//! and its result still lands on the GPU.

mod elementwise;
mod index;
mod nn;
mod reduce;

pub use elementwise::*;
pub use index::*;
pub use nn::*;
pub use reduce::*;

use crate::backend::wgpu::{self as gpu, View};
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::{Data, Device, Layout, Storage, Tensor};
use std::sync::Arc;

/// A contiguous float32 GPU tensor of `shape` holding a kernel's output.
fn result(buf: gpu::GpuBuffer, shape: &[usize]) -> Tensor {
    Tensor::from_storage(Storage::from_gpu_buffer(buf), Layout::contiguous(shape))
}

/// What the float kernels give for a `dtype` result: float32, or float16 rounded in the same
/// kernel (Note [Narrow dtypes]). None for the other dtypes.
fn float_kind(dtype: DType) -> Option<gpu::GpuDType> {
    match dtype {
        DType::F32 => Some(gpu::GpuDType::F32),
        DType::F16 => Some(gpu::GpuDType::F16),
        _ => None,
    }
}

/// A float16 GPU tensor read as the float32 tensor its words already are (Note [Narrow
/// dtypes]): the same buffer and layout, no copy. The view shares the buffer but not the
/// storage, so it serves as a kernel's input only (what `wide` makes); nothing writes it.
/// None when the values are not current on the GPU.
pub fn half_as_float(t: &Tensor) -> Result<Option<Tensor>> {
    if t.dtype() != DType::F16 || !resident(t) {
        return Ok(None);
    }
    let d: Data = t.data();
    let buf = d.storage.gpu_buffer()?;
    Ok(Some(Tensor::from_storage(
        Storage::sharing_gpu_words(buf, DType::F32),
        d.layout,
    )))
}

/// A GPU buffer and the layout of a tensor's elements in it.
type Resident = (Arc<gpu::GpuBuffer>, Layout);

/// The buffer and layout of a float32 tensor the kernels can read: on the GPU, or a 0-dim
/// CPU tensor (a number; uploaded, 4 bytes). None for anything else.
fn operand(t: &Tensor) -> Result<Option<Resident>> {
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

/// The kernels' view of layout `l` with its (non-negative) strides `s` from `ustrides`.
fn uview<'a>(l: &'a Layout, s: &'a [usize]) -> View<'a> {
    View {
        shape: &l.shape,
        strides: s,
        offset: l.offset,
    }
}

/// `contiguous_float` of a float32 tensor only.
fn contiguous_f32(x: &Tensor) -> Result<Option<Tensor>> {
    if x.dtype() != DType::F32 {
        return Ok(None);
    }
    contiguous_float(x)
}

/// A float32 or float16 GPU tensor as a contiguous one: itself, or a copy made on the GPU.
/// None for another dtype or device, or values the GPU does not hold.
fn contiguous_float(x: &Tensor) -> Result<Option<Tensor>> {
    if x.device() != Device::Gpu || float_kind(x.dtype()).is_none() {
        return Ok(None);
    }
    contiguous_on_gpu(x)
}

/// A GPU tensor as a contiguous one: itself, or a copy made on the GPU. None when its values
/// are not on the GPU.
fn contiguous_on_gpu(x: &Tensor) -> Result<Option<Tensor>> {
    if x.is_contiguous() {
        return Ok(Some(x.clone()));
    }
    contiguous_as(x, x.dtype())
}

/// Whether a kernel that binds whole arrays can read `bufs` and write `out` words; when not,
/// the host computes (Note [Large tensors]).
fn bindable(bufs: &[&gpu::GpuBuffer], out: usize) -> bool {
    gpu::fits_binding(out) && bufs.iter().all(|b| !b.is_chunked())
}

/// `shape` as `[outer, len, inner]` around `dim` (a 0-dim shape is one line of one element).
fn lines(shape: &[usize], dim: usize) -> [usize; 3] {
    if shape.is_empty() {
        return [1, 1, 1];
    }
    [
        shape[..dim].iter().product(),
        shape[dim],
        shape[dim + 1..].iter().product(),
    ]
}

/// The buffer and layout of a tensor of any dtype the GPU holds: on the GPU, or a CPU number
/// (0-dim, or expanded from one: every stride 0), read from a cached constant. None for
/// anything else.
fn word_operand(t: &Tensor) -> Result<Option<Resident>> {
    let d: Data = t.data();
    if d.dtype() == DType::F64 || d.layout.strides.iter().any(|&s| s < 0) {
        return Ok(None);
    }
    match d.device() {
        Device::Gpu => Ok(d.storage.gpu_words()?.map(|b| (b, d.layout))),
        Device::Cpu if d.layout.strides.iter().all(|&s| s == 0) && d.layout.numel() > 0 => {
            let ptr = d.storage.data_ptr();
            let off = d.layout.offset;
            if d.dtype() == DType::I64 && i32::try_from(d.storage.slice::<i64>()[off]).is_err() {
                // Past the GPU's int32 words: the host computes with it.
                return Ok(None);
            }
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

/// Whether `t`'s values are GPU words a kernel can read, uploading them first when only the
/// host copy is current (once: the GPU copy then stays current). False for values the GPU
/// does not hold (float64, int64 past int32).
pub(crate) fn words_on_gpu(t: &Tensor) -> Result<bool> {
    if t.device() != Device::Gpu || t.dtype() == DType::F64 {
        return Ok(false);
    }
    let d: Data = t.data();
    Ok(d.storage.gpu_words()?.is_some())
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
    let Some(dbuf) = d.storage.gpu_words()? else {
        return Ok(false);
    };
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
