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

/// Elementwise unary op of a contiguous float32 GPU tensor.
pub fn unary(op: gpu::UnaryOp, x: &Tensor) -> Result<Option<Tensor>> {
    if x.device() != Device::Gpu || !x.is_contiguous() {
        return Ok(None);
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
        Ok(out) => Ok(Some(result(out, shape))),
        // More non-mergeable dims than the shader indexes: the host path takes it.
        Err(_) if shape.len() > gpu::MAX_DIMS => Ok(None),
        Err(e) => Err(e),
    }
}

/// Sum of a contiguous float32 GPU tensor over `dims` when they are adjacent (one
/// `[outer, red, inner]` pass), giving the reduced shape `out_shape`.
pub fn sum(x: &Tensor, dims: &[usize], out_shape: &[usize]) -> Result<Option<Tensor>> {
    if x.device() != Device::Gpu || !x.is_contiguous() || x.dtype() != DType::F32 {
        return Ok(None);
    }
    let shape = x.shape();
    let (lo, hi) = match (dims.iter().min(), dims.iter().max()) {
        (Some(&lo), Some(&hi)) if hi - lo + 1 == dims.len() => (lo, hi),
        (None, None) => (0, 0),
        _ => return Ok(None),
    };
    if dims.is_empty() && !shape.is_empty() {
        return Ok(None);
    }
    let prod = |r: std::ops::Range<usize>| shape[r].iter().product::<usize>();
    let (outer, red, inner) = if shape.is_empty() {
        (1, 1, 1)
    } else {
        (prod(0..lo), prod(lo..hi + 1), prod(hi + 1..shape.len()))
    };
    let Some((buf, l)) = operand(x)? else {
        return Ok(None);
    };
    let out = gpu::reduce(gpu::ReduceOp::Sum, &buf, l.offset, outer, red, inner)?;
    Ok(Some(result(out, out_shape)))
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
