//! GPU reductions: sum / prod / max / min, all / any, argmax / argmin, scans, sort and softmax
//! along a dim.

use super::*;

/// `op` (sum, mean, max, min, prod) of a float32 GPU tensor over `dims` (sorted, distinct),
/// giving the reduced shape `out_shape`.
pub fn reduce(
    op: gpu::ReduceOp,
    x: &Tensor,
    dims: &[usize],
    out_shape: &[usize],
) -> Result<Option<Tensor>> {
    if x.dtype() != DType::F32 {
        return Ok(None);
    }
    let Some((buf, offset, [outer, red, inner])) = block(x, dims)? else {
        return Ok(None);
    };
    let out = gpu::reduce(op, &buf, offset, outer, red, inner)?;
    Ok(Some(result(out, out_shape)))
}

/// `all` (or `any`) of a float32 or bool GPU tensor over `dims`, as a bool GPU tensor of
/// `out_shape`.
pub fn all_any(
    all: bool,
    x: &Tensor,
    dims: &[usize],
    out_shape: &[usize],
) -> Result<Option<Tensor>> {
    let Some((buf, offset, [outer, red, inner])) = block(x, dims)? else {
        return Ok(None);
    };
    let op = if all {
        gpu::ReduceOp::All
    } else {
        gpu::ReduceOp::Any
    };
    let out = gpu::reduce(op, &buf, offset, outer, red, inner)?;
    Ok(Some(Tensor::from_storage(
        Storage::from_gpu_words(out, DType::Bool),
        Layout::contiguous(out_shape),
    )))
}

/// The max (or min) of a float32 GPU tensor over `dims` (one dim, or none for a 0-dim
/// tensor) and its index there (int64, held as int32 words), both of `out_shape`.
pub fn arg_extreme(
    max: bool,
    x: &Tensor,
    dims: &[usize],
    out_shape: &[usize],
) -> Result<Option<(Tensor, Tensor)>> {
    if x.dtype() != DType::F32 {
        return Ok(None);
    }
    let Some((buf, offset, [outer, red, inner])) = block(x, dims)? else {
        return Ok(None);
    };
    if !bindable(&[&buf], outer * inner) {
        return Ok(None);
    }
    let op = if max {
        gpu::ReduceOp::ArgMax
    } else {
        gpu::ReduceOp::ArgMin
    };
    let (values, idx) = gpu::reduce_arg(op, &buf, offset, outer, red, inner)?;
    let idx = Tensor::from_storage(
        Storage::from_gpu_words(idx, DType::I64),
        Layout::contiguous(out_shape),
    );
    Ok(Some((result(values, out_shape), idx)))
}

/// `x` (float32 or bool words, on the GPU) as one contiguous `[outer, red, inner]` block with
/// the reduced `dims` (sorted, distinct) in the middle: read in place when the tensor is
/// contiguous and the dims adjacent, else after a GPU copy that moves the reduced dims last.
/// Gives the buffer, the block's offset and its three sizes.
#[allow(clippy::type_complexity)]
fn block(x: &Tensor, dims: &[usize]) -> Result<Option<(Arc<gpu::GpuBuffer>, usize, [usize; 3])>> {
    if x.device() != Device::Gpu || !matches!(x.dtype(), DType::F32 | DType::Bool) {
        return Ok(None);
    }
    let shape = x.shape();
    if dims.is_empty() && !shape.is_empty() {
        return Ok(None);
    }
    let prod = |r: std::ops::Range<usize>| shape[r].iter().product::<usize>();
    let adjacent = dims.windows(2).all(|w| w[1] == w[0] + 1);
    let (x, sizes) = if shape.is_empty() {
        (x.clone(), [1, 1, 1])
    } else if x.is_contiguous() && adjacent {
        let (lo, hi) = (dims[0], dims[0] + dims.len());
        (
            x.clone(),
            [prod(0..lo), prod(lo..hi), prod(hi..shape.len())],
        )
    } else {
        let kept = (0..shape.len()).filter(|d| !dims.contains(d));
        let order: Vec<usize> = kept.chain(dims.iter().copied()).collect();
        // The permuted view, without autograd: only the copy below reads it.
        let d: Data = x.data();
        let moved = Tensor::from_storage(
            d.storage.clone(),
            Layout {
                shape: order.iter().map(|&i| d.layout.shape[i]).collect(),
                strides: order.iter().map(|&i| d.layout.strides[i]).collect(),
                offset: d.layout.offset,
            },
        );
        let Some(c) = contiguous_as(&moved, x.dtype())? else {
            return Ok(None);
        };
        let outer = (0..shape.len())
            .filter(|d| !dims.contains(d))
            .map(|d| shape[d])
            .product();
        (c, [outer, dims.iter().map(|&d| shape[d]).product(), 1])
    };
    let d: Data = x.data();
    Ok(Some((d.storage.gpu_buffer()?, d.layout.offset, sizes)))
}

/// Cumulative sum / product of a float32 GPU tensor along `dim` (read in place when
/// contiguous, else after a GPU copy); same shape, contiguous.
pub fn scan(op: gpu::ScanOp, x: &Tensor, dim: usize) -> Result<Option<Tensor>> {
    let Some(x) = contiguous_f32(x)? else {
        return Ok(None);
    };
    let shape = x.shape();
    let [outer, len, inner] = lines(&shape, dim);
    let d: Data = x.data();
    let buf = d.storage.gpu_buffer()?;
    if !bindable(&[&buf], d.layout.numel()) || len > gpu::MAX_LINE {
        return Ok(None);
    }
    let out = gpu::scan(op, &buf, d.layout.offset, outer, len, inner)?;
    Ok(Some(result(out, &shape)))
}

/// A GPU tensor sorted along `dim` (stable, NaN the largest): its values and their positions
/// (int64, int32 words), both contiguous in its shape. Read in place when contiguous, else
/// after a GPU copy; None for values the GPU does not hold or scratch past one binding.
pub fn sort(x: &Tensor, dim: usize, descending: bool) -> Result<Option<(Tensor, Tensor)>> {
    if x.device() != Device::Gpu {
        return Ok(None);
    }
    let Some(x) = contiguous_on_gpu(x)? else {
        return Ok(None);
    };
    let shape = x.shape();
    let [outer, len, inner] = lines(&shape, dim);
    let d: Data = x.data();
    let buf = d.storage.gpu_buffer()?;
    let scratch = outer * inner * len.next_power_of_two();
    if !bindable(&[&buf], scratch.max(d.layout.numel())) || scratch >= 1 << 32 {
        return Ok(None);
    }
    // float16 and bool words are float32 values; int64 words int32 ones (gpu::Words).
    let int = matches!(x.dtype(), DType::I64 | DType::I32);
    let (vals, idx) = gpu::sort(&buf, d.layout.offset, [outer, len, inner], int, descending)?;
    let layout = Layout::contiguous(&shape);
    Ok(Some((
        Tensor::from_storage(Storage::from_gpu_words(vals, x.dtype()), layout.clone()),
        Tensor::from_storage(Storage::from_gpu_words(idx, DType::I64), layout),
    )))
}

/// Softmax / log-softmax of a float32 GPU tensor along `dim` (read in place when contiguous,
/// else after a GPU copy).
pub fn softmax(x: &Tensor, dim: usize, log: bool) -> Result<Option<Tensor>> {
    let Some(x) = contiguous_f32(x)? else {
        return Ok(None);
    };
    let shape = x.shape();
    let Some((buf, l)) = operand(&x)? else {
        return Ok(None);
    };
    let [outer, red, inner] = lines(&shape, dim);
    if !bindable(&[&buf], l.numel()) || red > gpu::MAX_LINE {
        return Ok(None);
    }
    let out = gpu::softmax(log, &buf, l.offset, outer, red, inner)?;
    Ok(Some(result(out, &shape)))
}
