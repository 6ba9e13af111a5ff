//! GPU batched matmul and the convolution windows (im2col / col2im).

use super::*;
use crate::backend::wgpu::MatView;

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
    if !bindable(&[&ba, &bb], batch * m * n) {
        return Ok(None);
    }
    let out = gpu::matmul(&ba, view(&la), &bb, view(&lb), batch, m, k, n)?;
    Ok(Some(result(out, &[batch, m, n])))
}

/// im2col (`Im2Col`, taps in the padding read `pad`) or col2im of a float32 GPU tensor (read in
/// place when contiguous, else after a GPU copy), giving `out_shape`.
pub fn window(
    op: gpu::WindowOp,
    x: &Tensor,
    geom: &gpu::WindowGeom,
    pad: f64,
    out_shape: &[usize],
) -> Result<Option<Tensor>> {
    let Some(x) = contiguous_f32(x)? else {
        return Ok(None);
    };
    let Some((buf, l)) = operand(&x)? else {
        return Ok(None);
    };
    if !bindable(&[&buf], out_shape.iter().product()) {
        return Ok(None);
    }
    let out = gpu::window(op, &buf, l.offset, geom, pad as f32)?;
    Ok(Some(result(out, out_shape)))
}
