//! Sliding windows over images (`window.wgsl`): im2col and col2im.

use super::buffer::{key, len_u32, words, GpuBuffer};
use super::context::{guarded, Kernel, WORKGROUP};
use crate::error::{Error, Result};

/// Sliding-window kernels (the `OP` values of `window.wgsl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WindowOp {
    /// `[N, C, H, W]` -> columns `[N, C*kh*kw, oh*ow]`.
    Im2Col = 0,
    /// Columns back to `[N, C, H, W]`, overlapping taps summed.
    Col2Im = 1,
}

/// The geometry of a 2-D window over `[n, c, h, w]` images giving `[oh, ow]` positions.
#[derive(Clone, Copy, Debug)]
pub struct WindowGeom {
    pub n: usize,
    pub c: usize,
    pub hw: [usize; 2],
    pub out: [usize; 2],
    pub kernel: [usize; 2],
    pub stride: [usize; 2],
    pub padding: [usize; 2],
    pub dilation: [usize; 2],
}

/// im2col (taps in the padding read `pad`) or col2im of the contiguous block of `src` from
/// `offset` on; the output is contiguous.
pub fn window(
    op: WindowOp,
    src: &GpuBuffer,
    offset: usize,
    geom: &WindowGeom,
    pad: f32,
) -> Result<GpuBuffer> {
    guarded(|| {
        let WindowGeom {
            n,
            c,
            hw,
            out,
            kernel,
            ..
        } = *geom;
        let image = n * c * hw[0] * hw[1];
        let cols = n * c * kernel[0] * kernel[1] * out[0] * out[1];
        let (read, total) = match op {
            WindowOp::Im2Col => (image, cols),
            WindowOp::Col2Im => (cols, image),
        };
        if offset + read > src.len {
            return Err(Error::Runtime(
                "GPU window: the block reads past its buffer".into(),
            ));
        }
        let g = src.gpu;
        let dst = GpuBuffer::alloc(g, total)?;
        if total == 0 {
            return Ok(dst);
        }
        len_u32(offset + read, "length")?;
        let mut p = vec![
            len_u32(n, "dim")?,
            len_u32(total, "length")?,
            len_u32(c, "dim")?,
            len_u32(offset, "offset")?,
        ];
        for v in [hw, out, kernel, geom.stride, geom.padding, geom.dilation]
            .iter()
            .flatten()
        {
            p.push(len_u32(*v, "window size")?);
        }
        p.extend([pad.to_bits(), 0, 0, 0]);
        let pipeline = g.pipeline(key(Kernel::Window, op as u32))?;
        let groups = g.grid((total as u64).div_ceil(WORKGROUP))?;
        g.dispatch(&pipeline, &[src.raw()?, dst.raw()?], words(&p), groups)?;
        Ok(dst)
    })
}
