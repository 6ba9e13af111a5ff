//! Strided copies with casts (`copy.wgsl`), and plain runs of words.

use super::buffer::{for_each_piece, key, len_u32, words, GpuBuffer};
use super::context::{guarded, Kernel, WORKGROUP};
use super::elementwise::{collapse, MAX_DIMS};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::shape::contiguous_strides;

/// Copies `n` contiguous words of `src` from `from` to `dst` at `to`.
pub(super) fn copy_run(
    src: &GpuBuffer,
    from: usize,
    dst: &GpuBuffer,
    to: usize,
    n: usize,
) -> Result<()> {
    let (shape, unit) = ([n], [1isize]);
    let view = |offset| SView {
        shape: &shape,
        strides: &unit,
        offset,
    };
    copy(CopyOp::Same, src, &view(from), dst, &view(to))
}

/// A strided view with signed strides (flipped views), for [`copy`].
#[derive(Clone, Debug)]
pub struct SView<'a> {
    pub shape: &'a [usize],
    pub strides: &'a [isize],
    pub offset: usize,
}

impl SView<'_> {
    /// The smallest and one past the largest element index it touches (None when empty).
    pub(super) fn bounds(&self) -> Option<(isize, isize)> {
        if self.shape.contains(&0) {
            return None;
        }
        let (mut lo, mut hi) = (self.offset as isize, self.offset as isize);
        for (&n, &s) in self.shape.iter().zip(self.strides) {
            let span = (n as isize - 1) * s;
            if span < 0 {
                lo += span;
            } else {
                hi += span;
            }
        }
        Some((lo, hi + 1))
    }
}

/// Conversions the copy kernel makes on the way (the `OP` values of `copy.wgsl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CopyOp {
    Same = 0,
    IntToFloat = 1,
    FloatToInt = 2,
    FloatToBool = 3,
    IntToBool = 4,
    FloatToHalf = 5,
    IntToHalf = 6,
}

impl CopyOp {
    /// The conversion from `from` to `to` (None: not one the GPU holds).
    pub fn between(from: DType, to: DType) -> Option<CopyOp> {
        use DType::*;
        Some(match (from, to) {
            (F64 | BF16 | U8 | I8 | I16, _) | (_, F64 | BF16 | U8 | I8 | I16) => return None,
            // int64 is held as int32 words and float16 as float32 words holding half values.
            (Bool, Bool) | (I32 | I64, I32 | I64) | (F16, F16 | F32) | (F32, F32) => CopyOp::Same,
            (I64 | I32, F32) => CopyOp::IntToFloat,
            // A float32 value past int32's range becomes an int64 the words cannot hold.
            (F32, I64) => return None,
            (F32 | F16 | Bool, I64 | I32) => CopyOp::FloatToInt,
            (F32 | F16, Bool) => CopyOp::FloatToBool,
            (I64 | I32, Bool) => CopyOp::IntToBool,
            (F32, F16) => CopyOp::FloatToHalf,
            (I64 | I32, F16) => CopyOp::IntToHalf,
            // bool's words are float32 0.0 / 1.0 already.
            (Bool, F32 | F16) => CopyOp::Same,
        })
    }
}

/// Writes `op(x viewed by vx)` into the elements of `out` that `vo` addresses (same shape).
/// `x` and `out` must be distinct buffers.
pub fn copy(op: CopyOp, x: &GpuBuffer, vx: &SView, out: &GpuBuffer, vo: &SView) -> Result<()> {
    guarded(|| {
        if vx.shape != vo.shape
            || vx.strides.len() != vx.shape.len()
            || vo.strides.len() != vo.shape.len()
        {
            return Err(Error::Runtime(format!(
                "GPU copy: views of shapes {:?} and {:?}",
                vx.shape, vo.shape
            )));
        }
        let (Some(bx), Some(bo)) = (vx.bounds(), vo.bounds()) else {
            return Ok(());
        };
        if bx.0 < 0 || bx.1 as usize > x.len || bo.0 < 0 || bo.1 as usize > out.len {
            return Err(Error::Runtime(
                "GPU copy: a view reaches outside its buffer".into(),
            ));
        }
        len_u32(bx.1.max(bo.1) as usize, "index")?;
        // A fused op's value written into a contiguous run (an in-place op's result into its
        // tensor) is written by the fused kernel itself (Note [Elementwise fusion]).
        let dense = |v: &SView| v.strides == contiguous_strides(v.shape).as_slice();
        let n: usize = vx.shape.iter().product();
        if op == CopyOp::Same
            && vx.offset == 0
            && x.len == n
            && dense(vx)
            && dense(vo)
            && super::fuse::store(x, n, out, vo.offset)?
        {
            return Ok(());
        }
        let g = x.gpu;
        let pipeline = g.pipeline(key(Kernel::Copy, op as u32))?;
        let operands = [(x, vx.strides, vx.offset), (out, vo.strides, vo.offset)];
        for_each_piece(vx.shape, &operands, false, |shape, bufs, offsets| {
            let dims = collapse("copy", shape, [vx.strides, vo.strides])?;
            let n: usize = shape.iter().product();
            let stride = |s: isize| -> Result<u32> {
                i32::try_from(s)
                    .map(|v| v as u32)
                    .map_err(|_| Error::Runtime(format!("GPU copy: stride {s} exceeds int32")))
            };
            let mut p = vec![0u32; 4 + 3 * MAX_DIMS];
            p[0] = len_u32(n, "length")?;
            p[1] = dims.len() as u32;
            p[2] = len_u32(offsets[0], "offset")?;
            p[3] = len_u32(offsets[1], "offset")?;
            for (d, &(size, [sx, so])) in dims.iter().enumerate() {
                p[4 + d] = len_u32(size, "dim")?;
                p[4 + MAX_DIMS + d] = stride(sx)?;
                p[4 + 2 * MAX_DIMS + d] = stride(so)?;
            }
            let groups = g.grid((n as u64).div_ceil(WORKGROUP))?;
            g.dispatch(&pipeline, bufs, words(&p), groups)
        })
    })
}
