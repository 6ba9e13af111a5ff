//! Indexing kernels (`index.wgsl`): gather / scatter / scatter-add along a dim, nonzero.

use super::buffer::{key, len_u32, words, GpuBuffer};
use super::context::{guarded, Kernel, WORKGROUP};
use super::copy::SView;
use super::elementwise::MAX_DIMS;
use crate::error::{Error, Result};

/// What the index kernel does (the `OP` values of `index.wgsl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IndexOp {
    /// `out[c] = a[c with c[dim] = idx[c]]`.
    Gather = 0,
    /// `out[c with c[dim] = idx[c]] = a[c]`.
    Scatter = 1,
    /// `out[c with c[dim] = idx[c]] += a[c]`, float32 words.
    ScatterAddFloat = 2,
    /// The same for int32 words (int32 tensors; int64 sums are added on the host).
    ScatterAddInt = 3,
    /// Non-zeros per 256-element block (the compaction of [`nonzero`]).
    CountBlocks = 4,
    /// Block counts to exclusive offsets, and the total.
    ScanBlocks = 5,
    /// Each non-zero's coordinates at its rank.
    Compact = 6,
}

/// Gather or scatter along `dim` over the index's shape (`vi.shape`, which every view takes).
/// The indexed side (`a` for [`IndexOp::Gather`], `out` otherwise) steps by the index value,
/// wrapped once when negative, along `dim` instead of the coordinate; `size` is its extent
/// there. The caller checks the index values (PyTorch's errors); any still out of range are
/// skipped by the kernel. At least one dim; `out` must not be `a` or `idx`.
pub fn index(
    op: IndexOp,
    a: (&GpuBuffer, &SView),
    idx: (&GpuBuffer, &SView),
    out: (&GpuBuffer, &SView),
    dim: usize,
    size: usize,
) -> Result<()> {
    guarded(|| {
        let shape = idx.1.shape;
        let nd = shape.len();
        if dim >= nd
            || [a.1, idx.1, out.1]
                .iter()
                .any(|v| v.shape != shape || v.strides.len() != nd)
        {
            return Err(Error::Runtime(format!(
                "GPU index: views of shapes {:?}, {:?}, {:?} along dim {dim}",
                a.1.shape, shape, out.1.shape
            )));
        }
        if shape.contains(&0) {
            return Ok(());
        }
        // The indexed side reaches every position 0..size along `dim`.
        let mut full = shape.to_vec();
        full[dim] = size;
        let indexed = if op == IndexOp::Gather { 0 } else { 2 };
        for (k, (buf, v)) in [a, idx, out].iter().enumerate() {
            let sv = SView {
                shape: if k == indexed { &full } else { shape },
                ..(*v).clone()
            };
            if let Some((lo, hi)) = sv.bounds() {
                if lo < 0 || hi as usize > buf.len {
                    return Err(Error::Runtime(
                        "GPU index: a view reaches outside its buffer".into(),
                    ));
                }
                len_u32(hi as usize, "index")?;
            } else if size == 0 && k == indexed {
                // Nothing to index into: the caller's check has refused every value.
                return Ok(());
            }
        }
        // Size-1 dims dropped and neighbours merged where every view steps through them as
        // one, but `dim` always stays a dim of its own.
        let mut dims: Vec<(usize, [isize; 3], bool)> = Vec::new();
        for (d, &n) in shape.iter().enumerate() {
            let st = [a.1.strides[d], idx.1.strides[d], out.1.strides[d]];
            if n == 1 && d != dim {
                continue;
            }
            match dims.last_mut() {
                Some(l) if d != dim && !l.2 && (0..3).all(|k| l.1[k] == st[k] * n as isize) => {
                    *l = (l.0 * n, st, false)
                }
                _ => dims.push((n, st, d == dim)),
            }
        }
        if dims.len() > MAX_DIMS {
            return Err(Error::Runtime(format!(
                "GPU index: {} non-mergeable dims exceed the kernel's {MAX_DIMS}",
                dims.len()
            )));
        }
        let stride = |s: isize| -> Result<u32> {
            i32::try_from(s)
                .map(|v| v as u32)
                .map_err(|_| Error::Runtime(format!("GPU index: stride {s} exceeds int32")))
        };
        let n: usize = shape.iter().product();
        let mut p = vec![0u32; 8 + 4 * MAX_DIMS];
        p[0] = len_u32(n, "length")?;
        p[1] = dims.len() as u32;
        p[2] = dims.iter().position(|d| d.2).unwrap_or(0) as u32;
        p[3] = i32::try_from(size)
            .map_err(|_| Error::Runtime(format!("GPU index: size {size} exceeds int32")))?
            as u32;
        p[4] = len_u32(a.1.offset, "offset")?;
        p[5] = len_u32(idx.1.offset, "offset")?;
        p[6] = len_u32(out.1.offset, "offset")?;
        for (d, &(size, st, _)) in dims.iter().enumerate() {
            p[8 + d] = len_u32(size, "dim")?;
            for k in 0..3 {
                p[8 + (k + 1) * MAX_DIMS + d] = stride(st[k])?;
            }
        }
        let g = out.0.gpu;
        let pipeline = g.pipeline(key(Kernel::Index, op as u32))?;
        let groups = g.grid((n as u64).div_ceil(WORKGROUP))?;
        g.dispatch(
            &pipeline,
            &[a.0.raw()?, idx.0.raw()?, out.0.raw()?],
            words(&p),
            groups,
        )
    })
}

/// The coordinates (over `shape`, row-major) of the non-zero words among the `prod(shape)`
/// contiguous words of `x` from `offset`, as `[count, shape.len()]` int32 words, and the count.
/// `int_words`: int32 words (zero is 0), else float words (zero is +-0.0; bools too). The
/// count is the one number read back (it sizes the output); the rest stays on the GPU.
pub fn nonzero(
    x: &GpuBuffer,
    offset: usize,
    shape: &[usize],
    int_words: bool,
) -> Result<(GpuBuffer, usize)> {
    guarded(|| {
        let n: usize = shape.iter().product();
        if shape.is_empty() || shape.len() > MAX_DIMS || offset + n > x.len {
            return Err(Error::Runtime(format!(
                "GPU nonzero: shape {shape:?} from {offset} in a buffer of {}",
                x.len
            )));
        }
        let g = x.gpu;
        if n == 0 {
            return Ok((GpuBuffer::alloc(g, 0)?, 0));
        }
        let blocks = n.div_ceil(WORKGROUP as usize);
        let counts = GpuBuffer::upload_words(&vec![0u32; blocks + 1])?;
        let mut p = vec![0u32; 8 + 4 * MAX_DIMS];
        p[0] = len_u32(n, "length")?;
        p[1] = shape.len() as u32;
        p[3] = u32::from(int_words);
        p[4] = len_u32(offset, "offset")?;
        for (d, &size) in shape.iter().enumerate() {
            p[8 + d] = len_u32(size, "dim")?;
        }
        len_u32(offset + n, "index")?;
        let grid = g.grid(blocks as u64)?;
        // Bindings a, idx, out; a buffer written by a dispatch is bound only as `out`, so the
        // first two (which do not read idx) bind x there.
        let run = |op: IndexOp, params: &[u32], bufs: [&GpuBuffer; 3], groups| -> Result<()> {
            let pipeline = g.pipeline(key(Kernel::Index, op as u32))?;
            let raw = [bufs[0].raw()?, bufs[1].raw()?, bufs[2].raw()?];
            g.dispatch(&pipeline, &raw, words(params), groups)
        };
        run(IndexOp::CountBlocks, &p, [x, x, &counts], grid)?;
        let mut scan = p.clone();
        scan[0] = len_u32(blocks, "length")?;
        run(IndexOp::ScanBlocks, &scan, [x, x, &counts], [1, 1, 1])?;
        let total = counts.download_prefix(1)?[0] as usize;
        let out = GpuBuffer::alloc(g, total * shape.len())?;
        if total > 0 {
            run(IndexOp::Compact, &p, [x, &counts, &out], grid)?;
        }
        Ok((out, total))
    })
}
