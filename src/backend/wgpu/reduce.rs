//! Reductions along a dim (`reduce.wgsl`): one or two passes, and blocks of chunked buffers.

use super::buffer::{key, len_u32, words, GpuBuffer};
use super::context::{guarded, GpuDType, Kernel};
use super::copy::{copy, copy_run, CopyOp, SView};
use super::elementwise::{binary, View};
use crate::error::{Error, Result};
use crate::tensor::shape::contiguous_strides;

op_codes! {
    /// Reductions (the `OP` values of `reduce.wgsl`, which names them `OP_SUM`, ...).
    pub enum ReduceOp {
        Sum,
        Mean,
        Max,
        Min,
        Prod,
        /// Value and index of the max (see [`reduce_arg`]).
        ArgMax,
        /// Value and index of the min (see [`reduce_arg`]).
        ArgMin,
        /// 1.0 when every element is nonzero (bool words).
        All,
        /// 1.0 when some element is nonzero (bool words).
        Any,
    }
}

impl ReduceOp {
    fn has_index(self) -> bool {
        matches!(self, ReduceOp::ArgMax | ReduceOp::ArgMin)
    }
}

/// Reduces the middle dim of a contiguous `[outer, red, inner]` block starting at `offset`,
/// giving `[outer, inner]` (words: f32 values, or bools for all / any). Not for the index
/// ops, which [`reduce_arg`] runs.
pub fn reduce(
    op: ReduceOp,
    x: &GpuBuffer,
    offset: usize,
    outer: usize,
    red: usize,
    inner: usize,
) -> Result<GpuBuffer> {
    if op.has_index() {
        return Err(Error::Runtime(format!(
            "GPU reduce: {op:?} gives indices too; use reduce_arg"
        )));
    }
    Ok(reduce_impl(op, x, offset, outer, red, inner)?.0)
}

/// The max (`ArgMax`) or min (`ArgMin`) of each run of a contiguous `[outer, red, inner]`
/// block with its index along the run (int32 words), as PyTorch's CPU kernel picks it: the
/// first NaN, else the first occurrence of the extreme value.
pub fn reduce_arg(
    op: ReduceOp,
    x: &GpuBuffer,
    offset: usize,
    outer: usize,
    red: usize,
    inner: usize,
) -> Result<(GpuBuffer, GpuBuffer)> {
    if !op.has_index() {
        return Err(Error::Runtime(format!(
            "GPU reduce_arg: {op:?} gives no index"
        )));
    }
    let (values, idx) = reduce_impl(op, x, offset, outer, red, inner)?;
    let idx = idx.ok_or_else(|| Error::Runtime("GPU reduce_arg: no index buffer".into()))?;
    Ok((values, idx))
}

fn reduce_impl(
    op: ReduceOp,
    x: &GpuBuffer,
    offset: usize,
    outer: usize,
    red: usize,
    inner: usize,
) -> Result<(GpuBuffer, Option<GpuBuffer>)> {
    guarded(|| {
        let total = outer * red * inner;
        if offset + total > x.len {
            return Err(Error::Runtime(
                "GPU reduce: the block reads past its buffer".into(),
            ));
        }
        let n_out = outer * inner;
        // No identity: an empty run has no extreme (the ops check first, with their names).
        let extreme = matches!(op, ReduceOp::Max | ReduceOp::Min) || op.has_index();
        if red == 0 && n_out > 0 && extreme {
            return Err(Error::Index(
                "max(): Expected reduction dim to be specified for input.numel() == 0. \
                 Specify the reduction dim with the 'dim' argument."
                    .into(),
            ));
        }
        let g = x.gpu;
        // Partial results of a mean are sums, divided once at the end.
        let partial = if op == ReduceOp::Mean {
            ReduceOp::Sum
        } else {
            op
        };
        if x.is_chunked() || n_out > g.chunk_words() {
            if op.has_index() {
                return Err(Error::Runtime(format!(
                    "GPU reduce: {op:?} of a tensor split over several buffers"
                )));
            }
            let out = GpuBuffer::alloc(g, n_out)?;
            reduce_chunked(partial, x, offset, [outer, red, inner], &out, 0)?;
            if op == ReduceOp::Mean {
                let count = GpuBuffer::constant(red as f32)?;
                let shape = [n_out];
                let sums = View {
                    shape: &shape,
                    strides: &[1],
                    offset: 0,
                };
                let number = View {
                    shape: &[],
                    strides: &[],
                    offset: 0,
                };
                let mean = binary(GpuDType::F32, "x / y", &out, &sums, &count, &number, &shape)?;
                return Ok((mean, None));
            }
            return Ok((out, None));
        }
        if red <= REDUCE_SPAN {
            return reduce_pass(op, x, None, offset, [outer, red, inner], red, red);
        }
        // Two passes (reduce.wgsl): sections of the run, then the sections; the second pass of
        // an index op reads the first's indices.
        let sections = red.div_ceil(REDUCE_SPAN);
        let (part, part_idx) = reduce_pass(
            partial,
            x,
            None,
            offset,
            [outer, red, inner],
            REDUCE_SPAN,
            red,
        )?;
        let dims = [outer, sections, inner];
        reduce_pass(op, &part, part_idx.as_ref(), 0, dims, sections, red)
    })
}

/// Elements of a reduced run one workgroup folds (256 per invocation): longer runs are cut
/// into sections of this many and reduced in two passes.
const REDUCE_SPAN: usize = 1 << 16;

/// One dispatch of reduce.wgsl: the `[outer, red, inner]` block at `offset` reduced in
/// sections of `span` (a mean divided by `count`), giving `[outer, sections, inner]`; `xi`
/// holds the indices of a first pass an index op's second one reports.
fn reduce_pass(
    op: ReduceOp,
    x: &GpuBuffer,
    xi: Option<&GpuBuffer>,
    offset: usize,
    [outer, red, inner]: [usize; 3],
    span: usize,
    count: usize,
) -> Result<(GpuBuffer, Option<GpuBuffer>)> {
    let g = x.gpu;
    let n_out = outer * red.div_ceil(span.max(1)).max(1) * inner;
    let out = GpuBuffer::alloc(g, n_out)?;
    let idx = if op.has_index() {
        Some(GpuBuffer::alloc(g, n_out)?)
    } else {
        None
    };
    if n_out == 0 {
        return Ok((out, idx));
    }
    let params = [
        len_u32(outer, "dim")?,
        len_u32(red, "dim")?,
        len_u32(inner, "dim")?,
        len_u32(offset, "offset")?,
        len_u32(span.max(1), "dim")?,
        len_u32(count, "dim")?,
        u32::from(xi.is_some()),
        0,
    ];
    len_u32(offset + outer * red * inner, "length")?;
    let pipeline = g.pipeline(key(Kernel::Reduce, op.code()))?;
    let groups = g.grid(n_out as u64)?;
    // Ops without an index leave binding 2 alone: `out` stands in for it; without first-pass
    // indices, x stands in for them.
    let yi = idx.as_ref().unwrap_or(&out);
    let xi = xi.unwrap_or(x);
    g.dispatch(
        &pipeline,
        &[x.raw()?, out.raw()?, yi.raw()?, xi.raw()?],
        words(&params),
        groups,
    )?;
    Ok((out, idx))
}

/// A reduction (not an index one; not mean, which is a sum divided) of the contiguous block
/// `[outer, red, inner]` of a chunked buffer (Note [Large tensors]), its `outer * inner`
/// results written contiguously into `out` from `at`. Pieces of the block that fit one chunk
/// are copied into a buffer of their own and reduced there; a run longer than a chunk is
/// reduced in sections, whose results are reduced again.
fn reduce_chunked(
    op: ReduceOp,
    x: &GpuBuffer,
    offset: usize,
    [outer, red, inner]: [usize; 3],
    out: &GpuBuffer,
    at: usize,
) -> Result<()> {
    let most = x.gpu.chunk_words();
    if red > most {
        let sections = red.div_ceil(most);
        let partial = x.alloc_like(sections * inner)?;
        for o in 0..outer {
            for k in 0..sections {
                let rows = most.min(red - k * most);
                let from = offset + (o * red + k * most) * inner;
                reduce_chunked(op, x, from, [1, rows, inner], &partial, k * inner)?;
            }
            reduce_chunked(op, &partial, 0, [1, sections, inner], out, at + o * inner)?;
        }
        return Ok(());
    }
    let per_row = red.max(1) * inner;
    if per_row <= most {
        // Whole rows: as many as fit one chunk at a time.
        let step = most / per_row;
        for o in (0..outer).step_by(step) {
            let rows = step.min(outer - o);
            let block = x.alloc_like(rows * red * inner)?;
            copy_run(x, offset + o * red * inner, &block, 0, rows * red * inner)?;
            let (part, _) = reduce_impl(op, &block, 0, rows, red, inner)?;
            copy_run(&part, 0, out, at + o * inner, rows * inner)?;
        }
        return Ok(());
    }
    // Rows too long: columns of each, as many as fit one chunk at a time.
    let step = most / red.max(1);
    let strides = [inner as isize, 1];
    for o in 0..outer {
        for j in (0..inner).step_by(step) {
            let cols = step.min(inner - j);
            let shape = [red, cols];
            let block = x.alloc_like(red * cols)?;
            let dense_strides = contiguous_strides(&shape);
            let from = SView {
                shape: &shape,
                strides: &strides,
                offset: offset + o * red * inner + j,
            };
            let to = SView {
                shape: &shape,
                strides: &dense_strides,
                offset: 0,
            };
            copy(CopyOp::Same, x, &from, &block, &to)?;
            let (part, _) = reduce_impl(op, &block, 0, 1, red, cols)?;
            copy_run(&part, 0, out, at + o * inner + j, cols)?;
        }
    }
    Ok(())
}
