//! Stable sort along a dim (`sort.wgsl`): a bitonic network on (key, position) pairs.

use super::buffer::{key, len_u32, words, GpuBuffer};
use super::context;
use super::context::{guarded, Kernel, WORKGROUP};
use crate::error::{Error, Result};

/// Elements of a line that one workgroup of the sort kernel holds in shared memory.
const SORT_BLOCK: usize = 1024;

/// Stable sort along the middle dim of a contiguous `[outer, len, inner]` block of 32-bit
/// words starting at `offset` (float32, or int32 when `int`): the sorted words and each one's
/// position in its line (int32 words), both contiguous, same shape (sort.wgsl).
pub fn sort(
    x: &GpuBuffer,
    offset: usize,
    [outer, len, inner]: [usize; 3],
    int: bool,
    descending: bool,
) -> Result<(GpuBuffer, GpuBuffer)> {
    guarded(|| {
        let total = outer * len * inner;
        if offset + total > x.len {
            return Err(Error::Runtime(
                "GPU sort: the block reads past its buffer".into(),
            ));
        }
        let g = x.gpu;
        let (vals, idx) = (GpuBuffer::alloc(g, total)?, GpuBuffer::alloc(g, total)?);
        if total == 0 {
            return Ok((vals, idx));
        }
        let lines = outer * inner;
        let pow2 = len.next_power_of_two();
        let block = pow2.min(SORT_BLOCK);
        // Lines longer than a block go through scratch (a word each, unused otherwise).
        let scratch = if pow2 > block { lines * pow2 } else { 1 };
        len_u32(lines * pow2, "padded length")?;
        len_u32(offset + total, "length")?;
        let (keys, pos) = (GpuBuffer::alloc(g, scratch)?, GpuBuffer::alloc(g, scratch)?);
        let op = u32::from(int);
        let main = g.pipeline(key(Kernel::Sort, op))?;
        let step = g.pipeline(key(Kernel::Sort, op | context::SORT_STEP))?;
        let bufs = [x.raw()?, keys.raw()?, pos.raw()?, vals.raw()?, idx.raw()?];
        let desc = u32::from(descending);
        let params = |k_lo: usize, k_hi: usize, j: usize, first: bool, last: bool| {
            [
                outer as u32,
                len as u32,
                inner as u32,
                offset as u32,
                pow2 as u32,
                k_lo as u32,
                k_hi as u32,
                j as u32,
                u32::from(first),
                u32::from(last),
                desc,
                0,
            ]
        };
        let blocks = g.grid((lines * (pow2 / block)) as u64)?;
        let pairs = g.grid((lines * pow2 / 2).div_ceil(WORKGROUP as usize) as u64)?;
        g.dispatch(
            &main,
            &bufs,
            words(&params(2, block, 0, true, pow2 == block)),
            blocks,
        )?;
        let mut k = 2 * block;
        while k <= pow2 {
            let mut j = k / 2;
            while j >= block {
                g.dispatch(&step, &bufs, words(&params(k, k, j, false, false)), pairs)?;
                j /= 2;
            }
            g.dispatch(
                &main,
                &bufs,
                words(&params(k, k, 0, false, k == pow2)),
                blocks,
            )?;
            k *= 2;
        }
        Ok((vals, idx))
    })
}
