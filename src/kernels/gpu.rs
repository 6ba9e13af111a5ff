//! The GPU side of [`crate::kernels`]: tensors to buffers and views, the wgpu kernel, the
//! result back as a tensor (Note [Devices]).
//!
//! Each function returns `Ok(None)` when its kernel does not apply (another dtype, a layout the
//! shader cannot read); the op then computes on the synchronized host copy and its result
//! still lands on the GPU. Ops call these from their forward kernels, so backward formulas —
//! written in the same ops — run on the GPU too.

use crate::backend::wgpu::{self as gpu, MatView, View};
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::{Data, Device, Layout, Operand, Storage, Tensor};
use std::sync::Arc;

/// A contiguous float32 GPU tensor of `shape` holding a kernel's output.
fn result(buf: gpu::GpuBuffer, shape: &[usize]) -> Tensor {
    Tensor::from_storage(Storage::from_gpu_buffer(buf), Layout::contiguous(shape))
}

/// What the float kernels give for a `dtype` result: float32, or float16 rounded in the same
/// kernel (Note [Narrow dtypes]). None for the other dtypes.
fn float_kind(dtype: DType) -> Option<gpu::GpuDType> {
    match dtype {
        DType::F32 => Some(gpu::GpuDType::F32),
        DType::F16 => Some(gpu::GpuDType::F16),
        _ => None,
    }
}

/// A float16 GPU tensor read as the float32 tensor its words already are (Note [Narrow
/// dtypes]): the same buffer and layout, no copy. The view shares the buffer but not the
/// storage, so it serves as a kernel's input only (what `wide` makes); nothing writes it.
/// None when the values are not current on the GPU.
pub fn half_as_float(t: &Tensor) -> Result<Option<Tensor>> {
    if t.dtype() != DType::F16 || !resident(t) {
        return Ok(None);
    }
    let d: Data = t.data();
    let buf = d.storage.gpu_buffer()?;
    Ok(Some(Tensor::from_storage(
        Storage::sharing_gpu_words(buf, DType::F32),
        d.layout,
    )))
}

/// A GPU buffer and the layout of a tensor's elements in it.
type Resident = (Arc<gpu::GpuBuffer>, Layout);

/// The buffer and layout of a float32 tensor the kernels can read: on the GPU, or a 0-dim
/// CPU tensor (a number; uploaded, 4 bytes). None for anything else.
fn operand(t: &Tensor) -> Result<Option<Resident>> {
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

/// The kernels' view of layout `l` with its (non-negative) strides `s` from `ustrides`.
fn uview<'a>(l: &'a Layout, s: &'a [usize]) -> View<'a> {
    View {
        shape: &l.shape,
        strides: s,
        offset: l.offset,
    }
}

/// `contiguous_float` of a float32 tensor only.
fn contiguous_f32(x: &Tensor) -> Result<Option<Tensor>> {
    if x.dtype() != DType::F32 {
        return Ok(None);
    }
    contiguous_float(x)
}

/// A float32 or float16 GPU tensor as a contiguous one: itself, or a copy made on the GPU.
/// None for another dtype or device, or values the GPU does not hold.
fn contiguous_float(x: &Tensor) -> Result<Option<Tensor>> {
    if x.device() != Device::Gpu || float_kind(x.dtype()).is_none() {
        return Ok(None);
    }
    contiguous_on_gpu(x)
}

/// A GPU tensor as a contiguous one: itself, or a copy made on the GPU. None when its values
/// are not on the GPU.
fn contiguous_on_gpu(x: &Tensor) -> Result<Option<Tensor>> {
    if x.is_contiguous() {
        return Ok(Some(x.clone()));
    }
    contiguous_as(x, x.dtype())
}

/// Whether a kernel that binds whole arrays can read `bufs` and write `out` words; when not,
/// the host computes (Note [Large tensors]).
fn bindable(bufs: &[&gpu::GpuBuffer], out: usize) -> bool {
    gpu::fits_binding(out) && bufs.iter().all(|b| !b.is_chunked())
}

/// `shape` as `[outer, len, inner]` around `dim` (a 0-dim shape is one line of one element).
fn lines(shape: &[usize], dim: usize) -> [usize; 3] {
    if shape.is_empty() {
        return [1, 1, 1];
    }
    [
        shape[..dim].iter().product(),
        shape[dim],
        shape[dim + 1..].iter().product(),
    ]
}

/// Elementwise unary op of a float32 or float16 GPU tensor, giving its dtype (float16
/// computes in float32 and rounds in the same kernel); a strided one is copied contiguous
/// first.
pub fn unary(expr: &'static str, x: &Tensor) -> Result<Option<Tensor>> {
    unary_with(expr, x, [0.0; 3])
}

/// `unary` for an op that takes parameters (clamp bounds, slopes, ...).
pub fn unary_with(expr: &'static str, x: &Tensor, args: [f64; 3]) -> Result<Option<Tensor>> {
    let Some(x) = contiguous_float(x)? else {
        return Ok(None);
    };
    let dtype = x.dtype();
    let Some(kind) = float_kind(dtype) else {
        return Ok(None);
    };
    let d: Data = x.data();
    let (buf, l) = (d.storage.gpu_buffer()?, d.layout);
    // Parameters round to float32, as PyTorch's kernels take their scalars (in float32 for
    // float16 too: its opmath type).
    let out = gpu::unary_as(
        kind,
        expr,
        &buf,
        l.offset,
        l.numel(),
        args.map(|v| v as f32),
    )?;
    Ok(Some(Tensor::from_storage(
        Storage::from_gpu_words(out, dtype),
        Layout::contiguous(&l.shape),
    )))
}

/// Elementwise binary op over the broadcast `shape`, either operand strided: the WGSL
/// expression `expr` in `x`, `y` (an op's declared expression) of float32 operands, a float32
/// result.
pub fn binary(
    expr: &'static str,
    a: &Tensor,
    b: &Tensor,
    shape: &[usize],
) -> Result<Option<Tensor>> {
    binary_to(expr, a, b, shape, DType::F32)
}

/// `binary` of float32 operands (float16 ones read through `half_as_float`) for a `dtype`
/// result: float16 rounds in the same kernel; any other dtype gets float32, for the caller
/// to narrow.
pub fn binary_to(
    expr: &'static str,
    a: &Tensor,
    b: &Tensor,
    shape: &[usize],
    dtype: DType,
) -> Result<Option<Tensor>> {
    let (kind, dtype) = match dtype {
        DType::F16 => (gpu::GpuDType::F16, DType::F16),
        _ => (gpu::GpuDType::F32, DType::F32),
    };
    Ok(binary_words(expr, a, b, shape, operand, kind)?.map(|out| words_tensor(out, shape, dtype)))
}

/// A comparison (`expr` over float32 values) of float32 operands as a bool GPU tensor (the
/// kernel writes 1.0 / 0.0, which is how the GPU holds bools).
pub fn compare(
    expr: &'static str,
    a: &Tensor,
    b: &Tensor,
    shape: &[usize],
) -> Result<Option<Tensor>> {
    Ok(
        binary_words(expr, a, b, shape, operand, gpu::GpuDType::F32)?
            .map(|out| words_tensor(out, shape, DType::Bool)),
    )
}

/// A comparison of int64 / int32 operands (the GPU's int32 words, compared by `expr_int` as
/// integers) or bool ones (0.0 / 1.0 words, compared by `expr` as floats) as a bool GPU
/// tensor. None when neither operand is on the GPU or one's values are not there (int64
/// values past int32 stay on the host, `Storage::gpu_words`).
pub fn compare_words(
    expr: &'static str,
    expr_int: &'static str,
    a: &Tensor,
    b: &Tensor,
    shape: &[usize],
) -> Result<Option<Tensor>> {
    let (kind, expr) = match a.dtype() {
        DType::I64 | DType::I32 => (gpu::GpuDType::I32, expr_int),
        DType::Bool => (gpu::GpuDType::F32, expr),
        _ => return Ok(None),
    };
    if a.dtype() != b.dtype() {
        return Ok(None);
    }
    Ok(binary_words(expr, a, b, shape, word_operand, kind)?
        .map(|out| words_tensor(out, shape, DType::Bool)))
}

/// A GPU result of `shape` holding `dtype` words.
fn words_tensor(out: gpu::GpuBuffer, shape: &[usize], dtype: DType) -> Tensor {
    Tensor::from_storage(
        Storage::from_gpu_words(out, dtype),
        Layout::contiguous(shape),
    )
}

/// The binary kernel computing `expr` over operands read by `read` (`operand` for float32
/// values, `word_operand` for any words); None when neither is on the GPU or `read` refuses
/// one.
fn binary_words(
    expr: &'static str,
    a: &Tensor,
    b: &Tensor,
    shape: &[usize],
    read: fn(&Tensor) -> Result<Option<Resident>>,
    kind: gpu::GpuDType,
) -> Result<Option<gpu::GpuBuffer>> {
    if a.device() != Device::Gpu && b.device() != Device::Gpu {
        return Ok(None);
    }
    let (Some((ba, la)), Some((bb, lb))) = (read(a)?, read(b)?) else {
        return Ok(None);
    };
    let (sa, sb) = (ustrides(&la), ustrides(&lb));
    let va = uview(&la, &sa);
    let vb = uview(&lb, &sb);
    match gpu::binary(kind, expr, &ba, &va, &bb, &vb, shape) {
        Ok(out) => Ok(Some(out)),
        // More non-mergeable dims than the shader indexes: the host path takes it.
        Err(_) if shape.len() > gpu::MAX_DIMS => Ok(None),
        Err(e) => Err(e),
    }
}

/// Sum of a float32 GPU tensor over `dims`, giving the reduced shape `out_shape`.
pub fn sum(x: &Tensor, dims: &[usize], out_shape: &[usize]) -> Result<Option<Tensor>> {
    reduce(gpu::ReduceOp::Sum, x, dims, out_shape)
}

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

/// The buffer and layout of a tensor of any dtype the GPU holds: on the GPU, or a CPU number
/// (0-dim, or expanded from one: every stride 0), read from a cached constant. None for
/// anything else.
fn word_operand(t: &Tensor) -> Result<Option<Resident>> {
    let d: Data = t.data();
    if d.dtype() == DType::F64 || d.layout.strides.iter().any(|&s| s < 0) {
        return Ok(None);
    }
    match d.device() {
        Device::Gpu => Ok(d.storage.gpu_words()?.map(|b| (b, d.layout))),
        Device::Cpu if d.layout.strides.iter().all(|&s| s == 0) && d.layout.numel() > 0 => {
            let ptr = d.storage.data_ptr();
            let off = d.layout.offset;
            if d.dtype() == DType::I64 && i32::try_from(d.storage.slice::<i64>()[off]).is_err() {
                // Past the GPU's int32 words: the host computes with it.
                return Ok(None);
            }
            // SAFETY: the element at `offset` is inside the storage (the view is not empty).
            let w = unsafe {
                let at = ptr.add(off * d.dtype().itemsize());
                gpu::Words::encode(d.dtype(), at, 1)?
            };
            let mut l = d.layout;
            l.offset = 0;
            Ok(Some((gpu::GpuBuffer::constant(f32::from_bits(w[0]))?, l)))
        }
        Device::Cpu => Ok(None),
    }
}

fn sview<'a>(l: &'a Layout) -> gpu::SView<'a> {
    gpu::SView {
        shape: &l.shape,
        strides: &l.strides,
        offset: l.offset,
    }
}

/// Whether `t`'s values are GPU words a kernel can read, uploading them first when only the
/// host copy is current (once: the GPU copy then stays current). False for values the GPU
/// does not hold (float64, int64 past int32).
pub(crate) fn words_on_gpu(t: &Tensor) -> Result<bool> {
    if t.device() != Device::Gpu || t.dtype() == DType::F64 {
        return Ok(false);
    }
    let d: Data = t.data();
    Ok(d.storage.gpu_words()?.is_some())
}

/// Whether the GPU should do a copy out of `t`: its values are current on the GPU (copying
/// them on the host would download them first).
fn resident(t: &Tensor) -> bool {
    t.device() == Device::Gpu && t.data().storage.gpu_resident()
}

/// A contiguous copy of GPU tensor `t` as `dtype` (the copy kernel, casting on the way);
/// None when the values are not on the GPU or the dtypes are not ones it holds.
pub fn contiguous_as(t: &Tensor, dtype: DType) -> Result<Option<Tensor>> {
    let Some(op) = gpu::CopyOp::between(t.dtype(), dtype) else {
        return Ok(None);
    };
    if !resident(t) {
        return Ok(None);
    }
    let d: Data = t.data();
    let src = d.storage.gpu_buffer()?;
    let out_layout = Layout::contiguous(&d.layout.shape);
    let out = src.alloc_like(d.layout.numel())?;
    gpu::copy(op, &src, &sview(&d.layout), &out, &sview(&out_layout))?;
    Ok(Some(Tensor::from_storage(
        Storage::from_gpu_words(out, dtype),
        out_layout,
    )))
}

/// Writes `src` (dst's shape, any layout, cast to dst's dtype) into GPU tensor `dst`'s
/// elements on the GPU. False (nothing written) when the host should do it: `src` is not on
/// the GPU and `dst`'s values are not either, or a dtype the GPU does not hold.
/// `src` must not share `dst`'s memory.
pub fn write_into(dst: &Tensor, src: &Tensor) -> Result<bool> {
    if dst.device() != Device::Gpu {
        return Ok(false);
    }
    let Some(op) = gpu::CopyOp::between(src.dtype(), dst.dtype()) else {
        return Ok(false);
    };
    if !(resident(src) || dst.data().storage.gpu_resident()) {
        return Ok(false);
    }
    let Some((sbuf, sl)) = word_operand(src)? else {
        return Ok(false);
    };
    let d: Data = dst.data();
    let Some(dbuf) = d.storage.gpu_words()? else {
        return Ok(false);
    };
    // A 0-dim source (a number) is broadcast by stride 0.
    let sl = if sl.ndim() == 0 && d.layout.ndim() > 0 {
        Layout {
            shape: d.layout.shape.clone(),
            strides: smallvec::smallvec![0; d.layout.ndim()],
            offset: sl.offset,
        }
    } else {
        sl
    };
    gpu::copy(op, &sbuf, &sview(&sl), &dbuf, &sview(&d.layout))?;
    d.storage.gpu_written();
    Ok(true)
}

/// `cond ? a : b` over the broadcast `shape` (a and b of one dtype the GPU holds).
pub fn select(cond: &Tensor, a: &Tensor, b: &Tensor, shape: &[usize]) -> Result<Option<Tensor>> {
    ternary(gpu::TernaryOp::Select, cond, a, b, shape, a.dtype())
}

/// `lerp(start, end, weight)` of float32 tensors over the broadcast `shape`.
pub fn lerp(
    start: &Tensor,
    end: &Tensor,
    weight: &Tensor,
    shape: &[usize],
) -> Result<Option<Tensor>> {
    if [start, end, weight].iter().any(|t| t.dtype() != DType::F32) {
        return Ok(None);
    }
    ternary(gpu::TernaryOp::Lerp, weight, start, end, shape, DType::F32)
}

fn ternary(
    op: gpu::TernaryOp,
    c: &Tensor,
    a: &Tensor,
    b: &Tensor,
    shape: &[usize],
    dtype: DType,
) -> Result<Option<Tensor>> {
    if Device::of(&[c, a, b])? != Device::Gpu {
        return Ok(None);
    }
    let (Some((bc, lc)), Some((ba, la)), Some((bb, lb))) =
        (word_operand(c)?, word_operand(a)?, word_operand(b)?)
    else {
        return Ok(None);
    };
    let (sc, sa, sb) = (ustrides(&lc), ustrides(&la), ustrides(&lb));
    let vc = uview(&lc, &sc);
    let va = uview(&la, &sa);
    let vb = uview(&lb, &sb);
    match gpu::ternary(op, (&bc, &vc), (&ba, &va), (&bb, &vb), shape) {
        Ok(out) => Ok(Some(Tensor::from_storage(
            Storage::from_gpu_words(out, dtype),
            Layout::contiguous(shape),
        ))),
        Err(_) if shape.len() > gpu::MAX_DIMS => Ok(None),
        Err(e) => Err(e),
    }
}

/// A logical op (`expr`: and, or, xor on truth values) of two bool tensors, one of them on the
/// GPU, as a bool GPU tensor (bools are 0.0 / 1.0 words there, which the binary kernel reads
/// as floats).
pub fn logical(
    expr: &'static str,
    a: &Tensor,
    b: &Tensor,
    shape: &[usize],
) -> Result<Option<Tensor>> {
    if a.dtype() != DType::Bool || b.dtype() != DType::Bool || Device::of(&[a, b])? != Device::Gpu {
        return Ok(None);
    }
    Ok(
        binary_words(expr, a, b, shape, word_operand, gpu::GpuDType::F32)?
            .map(|out| words_tensor(out, shape, DType::Bool)),
    )
}

/// The int32 words of an index whose int64 `values` (row-major) the caller has read and
/// checked: a GPU index's own buffer when its values are there, else `values` uploaded. A
/// caller that trusts its index passes no values; they are then read off the host copy.
fn index_words(index: &Tensor, values: &[i64]) -> Result<(Arc<gpu::GpuBuffer>, Layout)> {
    if resident(index) {
        let d: Data = index.data();
        return Ok((d.storage.gpu_buffer()?, d.layout));
    }
    let host;
    let values = if values.len() == index.numel() {
        values
    } else {
        host = match index.dtype() {
            DType::I32 => index.to_vec::<i32>().into_iter().map(i64::from).collect(),
            _ => index.to_vec::<i64>(),
        };
        &host
    };
    let w: Vec<u32> = gpu::narrow_i64(values)?
        .into_iter()
        .map(|v| v as u32)
        .collect();
    Ok((
        Arc::new(gpu::GpuBuffer::upload_words(&w)?),
        Layout::contiguous(&index.shape()),
    ))
}

/// The index's layout over the kernel's iteration shape: its own, or with `along = (dim,
/// shape)` a 0/1-D index repeated over `shape` by stride 0 (index_select, index_add).
fn index_layout(il: Layout, along: Option<(usize, &[usize])>) -> Layout {
    let Some((dim, shape)) = along else {
        return il;
    };
    let mut strides = smallvec::smallvec![0; shape.len()];
    strides[dim] = il.strides.first().copied().unwrap_or(0);
    Layout {
        shape: shape.into(),
        strides,
        offset: il.offset,
    }
}

/// `out[c] = x[c with c[dim] = index[c]]` for GPU tensor `x` of any dtype the GPU holds; the
/// output takes the index's shape (or `along`'s, see [`index_layout`]). `values` are the
/// index's, already checked against `x`'s size at `dim`. None when the kernel does not apply.
pub fn gather(
    x: &Tensor,
    dim: usize,
    index: &Tensor,
    values: &[i64],
    along: Option<&[usize]>,
) -> Result<Option<Tensor>> {
    if x.device() != Device::Gpu || x.dtype() == DType::F64 {
        return Ok(None);
    }
    let ishape = along.map_or_else(|| index.shape().to_vec(), <[usize]>::to_vec);
    if x.dim() == 0 || ishape.len() != x.dim() {
        return Ok(None);
    }
    let d: Data = x.data();
    let Some(xbuf) = d.storage.gpu_words()? else {
        return Ok(None);
    };
    let (ibuf, il) = index_words(index, values)?;
    let il = index_layout(il, along.map(|s| (dim, s)));
    let ol = Layout::contiguous(&ishape);
    if !bindable(&[&xbuf, &ibuf], ol.numel()) {
        return Ok(None);
    }
    let out = xbuf.alloc_like(ol.numel())?;
    let xv = gpu::SView {
        shape: &ishape,
        strides: &d.layout.strides,
        offset: d.layout.offset,
    };
    gpu::index(
        gpu::IndexOp::Gather,
        (&xbuf, &xv),
        (&ibuf, &sview(&il)),
        (&out, &sview(&ol)),
        dim,
        d.layout.shape[dim],
    )?;
    Ok(Some(Tensor::from_storage(
        Storage::from_gpu_words(out, x.dtype()),
        ol,
    )))
}

/// Writes (`accumulate`: adds) `src` (a tensor of `out`'s dtype read at the index's
/// coordinates, or a number) into contiguous GPU tensor `out` at `index` along `dim`, in
/// place; the iteration shape is the index's (or `along`'s). `values` are the index's,
/// already checked. False (nothing written) when the kernel does not apply: the host does it.
pub fn scatter(
    out: &Tensor,
    dim: usize,
    index: &Tensor,
    values: &[i64],
    along: Option<&[usize]>,
    src: &Operand,
    accumulate: bool,
) -> Result<bool> {
    let dtype = out.dtype();
    if out.device() != Device::Gpu || !out.is_contiguous() {
        return Ok(false);
    }
    // No float atomics: float32 adds by compare-exchange; bool has no add on the GPU,
    // float16 must round after each add, and int64 sums may pass the int32 words the GPU
    // adds in (the host does those).
    let op = match (accumulate, dtype) {
        (_, DType::F64) | (true, DType::Bool | DType::F16 | DType::I64) => return Ok(false),
        (false, _) => gpu::IndexOp::Scatter,
        (true, DType::F32) => gpu::IndexOp::ScatterAddFloat,
        (true, _) => gpu::IndexOp::ScatterAddInt,
    };
    let ishape = along.map_or_else(|| index.shape().to_vec(), <[usize]>::to_vec);
    if out.dim() == 0 || ishape.len() != out.dim() {
        return Ok(false);
    }
    let src_t = match src {
        Operand::Scalar(s) => Tensor::scalar(*s, dtype),
        Operand::Tensor(t) if t.dtype() == dtype && t.dim() == ishape.len() => t.clone(),
        Operand::Tensor(_) => return Ok(false),
    };
    let Some((sbuf, sl)) = word_operand(&src_t)? else {
        return Ok(false);
    };
    let od: Data = out.data();
    let Some(obuf) = od.storage.gpu_words()? else {
        return Ok(false);
    };
    if Arc::ptr_eq(&sbuf, &obuf) {
        return Ok(false);
    }
    // A number is read at every position by stride 0.
    let sstrides: Vec<isize> = if sl.ndim() == 0 {
        vec![0; ishape.len()]
    } else {
        sl.strides.to_vec()
    };
    let (ibuf, il) = index_words(index, values)?;
    if !bindable(&[&sbuf, &obuf, &ibuf], 0) {
        return Ok(false);
    }
    let il = index_layout(il, along.map(|s| (dim, s)));
    let sv = gpu::SView {
        shape: &ishape,
        strides: &sstrides,
        offset: sl.offset,
    };
    let ov = gpu::SView {
        shape: &ishape,
        strides: &od.layout.strides,
        offset: od.layout.offset,
    };
    gpu::index(
        op,
        (&sbuf, &sv),
        (&ibuf, &sview(&il)),
        (&obuf, &ov),
        dim,
        od.layout.shape[dim],
    )?;
    od.storage.gpu_written();
    Ok(true)
}

/// `x`'s storage elements at `offsets` (row-major over `shape`, at least 1-D) set to `value`
/// (of `shape` and `x`'s dtype, any layout): an advanced `x[key] = value` on the GPU. False
/// (nothing written) when the kernel does not apply.
pub fn put(x: &Tensor, offsets: &[i64], shape: &[usize], value: &Tensor) -> Result<bool> {
    if x.device() != Device::Gpu
        || x.dtype() == DType::F64
        || value.dtype() != x.dtype()
        || shape.is_empty()
        || value.shape().as_slice() != shape
    {
        return Ok(false);
    }
    let Some((vbuf, vl)) = word_operand(value)? else {
        return Ok(false);
    };
    let storage = x.data().storage;
    let Some(xbuf) = storage.gpu_words()? else {
        return Ok(false);
    };
    if Arc::ptr_eq(&vbuf, &xbuf) {
        return Ok(false);
    }
    let w: Vec<u32> = gpu::narrow_i64(offsets)?
        .into_iter()
        .map(|v| v as u32)
        .collect();
    let ibuf = gpu::GpuBuffer::upload_words(&w)?;
    if !bindable(&[&vbuf, &xbuf, &ibuf], 0) {
        return Ok(false);
    }
    let il = Layout::contiguous(shape);
    // The storage as one dim the offsets index: stride 1 at dim 0, 0 elsewhere.
    let mut ostrides = vec![0isize; shape.len()];
    ostrides[0] = 1;
    let ov = gpu::SView {
        shape,
        strides: &ostrides,
        offset: 0,
    };
    gpu::index(
        gpu::IndexOp::Scatter,
        (&vbuf, &sview(&vl)),
        (&ibuf, &sview(&il)),
        (&xbuf, &ov),
        0,
        storage.len(),
    )?;
    storage.gpu_written();
    Ok(true)
}

/// `x.nonzero()` of a GPU tensor whose values are on the GPU: int64 `[count, ndim]`
/// coordinates, row-major, by the compaction kernels (one number, the count, is read back).
/// None when the kernel does not apply (values on the host: the host reads them for free).
pub fn nonzero(x: &Tensor) -> Result<Option<Tensor>> {
    let nd = x.dim();
    if !resident(x) || x.dtype() == DType::F64 || nd > gpu::MAX_DIMS {
        return Ok(None);
    }
    if nd == 0 {
        // `[count, 0]`: counted as a 1-D tensor of one, no coordinates to keep.
        let d: Data = x.data();
        let one = Layout {
            shape: [1].into_iter().collect(),
            strides: [1].into_iter().collect(),
            offset: d.layout.offset,
        };
        let Some(flat) = nonzero(&Tensor::from_storage(d.storage.clone(), one))? else {
            return Ok(None);
        };
        let count = flat.shape()[0];
        let empty = flat.data().storage.gpu_buffer()?.alloc_like(0)?;
        return Ok(Some(Tensor::from_storage(
            Storage::from_gpu_words(empty, DType::I64),
            Layout::contiguous(&[count, 0]),
        )));
    }
    let Some(c) = contiguous_on_gpu(x)? else {
        return Ok(None);
    };
    let d: Data = c.data();
    let buf = d.storage.gpu_buffer()?;
    // The count is not known yet: the output may hold every element's coordinates.
    if !bindable(&[&buf], d.layout.numel() * nd) {
        return Ok(None);
    }
    let int_words = matches!(x.dtype(), DType::I64 | DType::I32);
    let (out, count) = gpu::nonzero(&buf, d.layout.offset, &d.layout.shape, int_words)?;
    Ok(Some(Tensor::from_storage(
        Storage::from_gpu_words(out, DType::I64),
        Layout::contiguous(&[count, nd]),
    )))
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
