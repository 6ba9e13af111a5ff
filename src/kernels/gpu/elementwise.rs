//! GPU elementwise kernels: unary (a declared op's WGSL expression), broadcasting binary,
//! comparisons, the ternary `where` / `lerp` and the logical ops.

use super::*;

/// Elementwise unary op (`expr`, with parameters: clamp bounds, slopes, ...) of a float32 or
/// float16 GPU tensor, giving its dtype (float16 computes in float32 and rounds in the same
/// kernel); a strided one is copied contiguous first.
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
/// expression `expr` in `x`, `y` (an op's declared expression) of float32 operands for a
/// `dtype` result: float16 rounds in the same kernel; any other dtype gets float32, for the
/// caller to narrow.
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
