//! Batched matmul over strided matrices (`matmul.wgsl`), in two register tilings.

use super::buffer::{key, len_u32, words, GpuBuffer};
use super::context;
use super::context::{guarded, Kernel};
use crate::error::{Error, Result};

/// A strided batch of matrices: element (b, i, j) is at `offset + b*bs + i*rs + j*cs`.
#[derive(Clone, Copy, Debug)]
pub struct MatView {
    pub offset: usize,
    pub bs: usize,
    pub rs: usize,
    pub cs: usize,
}

impl MatView {
    /// Row-major `[batch, rows, cols]`.
    pub fn contiguous(rows: usize, cols: usize) -> MatView {
        MatView {
            offset: 0,
            bs: rows * cols,
            rs: cols,
            cs: 1,
        }
    }

    fn extent(&self, batch: usize, rows: usize, cols: usize) -> usize {
        if batch * rows * cols == 0 {
            return 0;
        }
        self.offset + 1 + (batch - 1) * self.bs + (rows - 1) * self.rs + (cols - 1) * self.cs
    }
}

/// Matmul's two tilings: the output tile one workgroup owns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MmTiles {
    /// 128x128 (8x8 per invocation): the fast one, once there are enough tiles to go round.
    Large,
    /// 64x64 (4x4 per invocation): four times the workgroups for small outputs.
    Small,
}

/// Outputs with fewer 128x128 tiles than this use 64x64 ones: a GPU has ~100 cores, and a
/// product of a few large tiles would leave most of them idle.
const MM_LARGE_MIN_TILES: usize = 96;

/// Workgroup memory of the large matmul kernel (2 operands x 2 slabs x 8 x 132 floats).
const MM_LARGE_SHARED: u32 = 2 * 2 * 8 * 132 * 4;

/// `out[b] = a[b] @ b[b]` for `batch` products of (m×k)·(k×n); `out` is contiguous
/// `[batch, m, n]`.
#[allow(clippy::too_many_arguments)]
pub fn matmul(
    a: &GpuBuffer,
    va: MatView,
    b: &GpuBuffer,
    vb: MatView,
    batch: usize,
    m: usize,
    k: usize,
    n: usize,
) -> Result<GpuBuffer> {
    // The large kernel's two double-buffered slabs take 16.5 KiB of workgroup memory, past
    // WebGPU's 16 KiB minimum: adapters with only that use the small one.
    let large = batch * m.div_ceil(128) * n.div_ceil(128) >= MM_LARGE_MIN_TILES
        && a.gpu.limits.max_compute_workgroup_storage_size >= MM_LARGE_SHARED;
    let tiles = if large {
        MmTiles::Large
    } else {
        MmTiles::Small
    };
    matmul_tiled(tiles, a, va, b, vb, batch, m, k, n)
}

/// [`matmul`] with the tiling chosen by the caller (tests run both on small sizes).
#[allow(clippy::too_many_arguments)]
pub fn matmul_tiled(
    tiles: MmTiles,
    a: &GpuBuffer,
    va: MatView,
    b: &GpuBuffer,
    vb: MatView,
    batch: usize,
    m: usize,
    k: usize,
    n: usize,
) -> Result<GpuBuffer> {
    let (tile, op) = match tiles {
        MmTiles::Large => (128, 0),
        MmTiles::Small => (64, context::MATMUL_SMALL),
    };
    guarded(|| {
        if va.extent(batch, m, k) > a.len || vb.extent(batch, k, n) > b.len {
            return Err(Error::Runtime(
                "GPU matmul: an operand reads past its buffer".into(),
            ));
        }
        let g = a.gpu;
        let total = batch * m * n;
        len_u32(total, "output length")?;
        if k == 0 {
            // An empty sum: zeros, as the CPU gives.
            return GpuBuffer::upload(&vec![0.0; total]);
        }
        let out = GpuBuffer::alloc(g, total)?;
        if total == 0 {
            return Ok(out);
        }
        let max = g.max_groups() as usize;
        let (gx, gy) = (n.div_ceil(tile), m.div_ceil(tile));
        if gx > max || gy > max {
            return Err(Error::Runtime(format!(
                "GPU matmul: a {m}x{n} output needs more than {max} tiles per dimension"
            )));
        }
        let pipeline = g.pipeline(key(Kernel::Matmul, op))?;
        // Batches past the grid's z limit go in several dispatches, each told its first batch;
        // a long k in sections, the later ones adding to out (matmul.wgsl).
        for k0 in (0..k).step_by(MM_K_SPAN) {
            let ks = MM_K_SPAN.min(k - k0);
            let mut base = 0;
            while base < batch {
                let nz = (batch - base).min(max);
                let params = [
                    len_u32(m, "dim")?,
                    len_u32(n, "dim")?,
                    len_u32(ks, "dim")?,
                    len_u32(base, "batch")?,
                    len_u32(va.offset + k0 * va.cs, "offset")?,
                    len_u32(va.bs, "stride")?,
                    len_u32(va.rs, "stride")?,
                    len_u32(va.cs, "stride")?,
                    len_u32(vb.offset + k0 * vb.rs, "offset")?,
                    len_u32(vb.bs, "stride")?,
                    len_u32(vb.rs, "stride")?,
                    len_u32(vb.cs, "stride")?,
                    u32::from(k0 > 0),
                    0,
                    0,
                    0,
                ];
                let groups = [gx as u32, gy as u32, nz as u32];
                g.dispatch(
                    &pipeline,
                    &[a.raw()?, b.raw()?, out.raw()?],
                    words(&params),
                    groups,
                )?;
                base += nz;
            }
        }
        Ok(out)
    })
}

/// The k-section one matmul dispatch walks (matmul.wgsl): the small kernel's invocations loop
/// about 21 times per 16 k's, well inside lavapipe's 65,535.
const MM_K_SPAN: usize = 8192;
