//! Per-line kernels: cumulative sum / product (`scan.wgsl`) and softmax (`softmax.wgsl`).

use super::buffer::{key, len_u32, words, GpuBuffer};
use super::context::{guarded, Kernel, PipelineKey};
use crate::error::{Error, Result};

op_codes! {
    /// Cumulative ops (the `OP` values of `scan.wgsl`: `OP_SUM`, `OP_PROD`).
    pub enum ScanOp {
        Sum,
        Prod,
    }
}

/// Inclusive cumulative sum / product along the middle dim of a contiguous
/// `[outer, len, inner]` block starting at `offset`; the output is contiguous, same shape.
pub fn scan(
    op: ScanOp,
    x: &GpuBuffer,
    offset: usize,
    outer: usize,
    len: usize,
    inner: usize,
) -> Result<GpuBuffer> {
    along_lines(
        key(Kernel::Scan, op.code()),
        "scan",
        x,
        offset,
        [outer, len, inner],
    )
}

/// Softmax (or log-softmax when `log`) along the middle dim of a contiguous
/// `[outer, red, inner]` block starting at `offset`; the output is contiguous, same shape.
pub fn softmax(
    log: bool,
    x: &GpuBuffer,
    offset: usize,
    outer: usize,
    red: usize,
    inner: usize,
) -> Result<GpuBuffer> {
    let k = key(Kernel::Softmax, u32::from(log));
    along_lines(k, "softmax", x, offset, [outer, red, inner])
}

/// The longest line [`scan`] and [`softmax`] take: their invocations walk a line in 256
/// shares two or three times, which must stay inside the 65,535 loop iterations lavapipe
/// runs before it stops a shader silently. Longer lines are the host's.
pub const MAX_LINE: usize = 1 << 22;

/// One workgroup per line of a contiguous `[outer, len, inner]` block (the lines run along
/// the middle dim), output the same shape: the dispatch scan.wgsl and softmax.wgsl share.
fn along_lines(
    k: PipelineKey,
    what: &str,
    x: &GpuBuffer,
    offset: usize,
    [outer, len, inner]: [usize; 3],
) -> Result<GpuBuffer> {
    guarded(|| {
        let total = outer * len * inner;
        if offset + total > x.len {
            return Err(Error::Runtime(format!(
                "GPU {what}: the block reads past its buffer"
            )));
        }
        if len > MAX_LINE {
            return Err(Error::Runtime(format!(
                "GPU {what}: lines of {len} elements exceed the kernel's {MAX_LINE}"
            )));
        }
        let g = x.gpu;
        let out = GpuBuffer::alloc(g, total)?;
        if total == 0 {
            return Ok(out);
        }
        let params = [
            len_u32(outer, "dim")?,
            len_u32(len, "dim")?,
            len_u32(inner, "dim")?,
            len_u32(offset, "offset")?,
        ];
        len_u32(offset + total, "length")?;
        let pipeline = g.pipeline(k)?;
        let groups = g.grid((outer * inner) as u64)?;
        g.dispatch(&pipeline, &[x.raw()?, out.raw()?], words(&params), groups)?;
        Ok(out)
    })
}
