//! The elementwise family: unary, binary (arithmetic, comparisons, logical ops), `where`'s
//! select, `lerp` and writes into existing memory, each run through the backend interface
//! (`backend::run`: the declared WGSL expression on the GPU where it applies, else the op's
//! CPU kernel on the host); and the host loops ops write their CPU kernels with (`map`,
//! `zip`, float16 runs), re-exported here so ops name no backend.

use super::backend::{run, Binary, BinaryCpu, Ternary, TernaryKind, Unary, Words};
use super::copy::{cast, contiguous};
use super::order::ordered;
use crate::backend::cpu::{copy, elementwise};
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::{Device, Element, Storage, Tensor};

pub use crate::backend::cpu::elementwise::{zip_half, zip_in_place, HalfSrc, Src};
pub use crate::backend::cpu::vmath::VMath;

/// `wgsl` of each element of a float32 / float16 `x` on the GPU (parameters `args` as `p.a`,
/// `p.b`, `p.c`, rounded to float32), else `cpu(x)`.
#[inline]
pub fn unary(
    wgsl: &'static str,
    args: [f64; 3],
    x: &Tensor,
    cpu: impl Fn(&Tensor) -> Result<Tensor>,
) -> Result<Tensor> {
    let op = Unary {
        wgsl,
        args,
        cpu: &cpu,
    };
    ordered(&[x], &x.shape(), |ops, _| run!(|b| b.unary(&op, ops[0])))
}

/// `wgsl` in `x`, `y` over the broadcast `shape` of float32 operands on the GPU (a `dtype`
/// result: float16 rounds in the kernel, other dtypes get float32 for the caller to narrow),
/// else `cpu(a, b, shape)` (GPU operands too, on the host, when `wgsl` is empty).
#[inline]
pub fn binary(
    wgsl: &'static str,
    dtype: DType,
    a: &Tensor,
    b: &Tensor,
    shape: &[usize],
    cpu: impl Fn(&Tensor, &Tensor, &[usize]) -> Result<Tensor>,
) -> Result<Tensor> {
    // An op with no WGSL form (`wgsl: ""`) computes GPU operands on the host; its result goes
    // back to the GPU.
    if wgsl.is_empty() && (a.device().is_gpu() || b.device().is_gpu()) {
        let (ha, hb) = (
            super::copy::to_device(a, Device::Cpu)?,
            super::copy::to_device(b, Device::Cpu)?,
        );
        return super::copy::to_device(&cpu(&ha, &hb, shape)?, Device::Gpu);
    }
    binary_words(wgsl, Words::Float(dtype), a, b, shape, &cpu)
}

/// A comparison as a bool tensor: `wgsl` over float values, `wgsl_int` over int64 / int32
/// ones on the GPU, else `cpu`.
#[inline]
pub fn compare(
    wgsl: &'static str,
    wgsl_int: &'static str,
    a: &Tensor,
    b: &Tensor,
    shape: &[usize],
    cpu: impl Fn(&Tensor, &Tensor, &[usize]) -> Result<Tensor>,
) -> Result<Tensor> {
    binary_words(wgsl, Words::Compare(wgsl_int), a, b, shape, &cpu)
}

/// A logical op (`wgsl` on truth values) of two bool tensors, else `cpu`.
#[inline]
pub fn logical(
    wgsl: &'static str,
    a: &Tensor,
    b: &Tensor,
    shape: &[usize],
    cpu: impl Fn(&Tensor, &Tensor, &[usize]) -> Result<Tensor>,
) -> Result<Tensor> {
    binary_words(wgsl, Words::Logical, a, b, shape, &cpu)
}

fn binary_words(
    wgsl: &'static str,
    words: Words,
    a: &Tensor,
    b: &Tensor,
    shape: &[usize],
    cpu: BinaryCpu<'_>,
) -> Result<Tensor> {
    let op = Binary { wgsl, words, cpu };
    ordered(&[a, b], shape, |ops, shape| {
        run!(|backend| backend.binary(&op, ops[0], ops[1], shape))
    })
}

/// `cond ? a : b` over the broadcast `shape`, else `cpu(cond, a, b, shape)`.
#[inline]
pub fn select(
    cond: &Tensor,
    a: &Tensor,
    b: &Tensor,
    shape: &[usize],
    cpu: impl Fn(&Tensor, &Tensor, &Tensor, &[usize]) -> Result<Tensor>,
) -> Result<Tensor> {
    let op = Ternary {
        op: TernaryKind::Select,
        cpu: &cpu,
    };
    ordered(&[cond, a, b], shape, |o, shape| {
        run!(|backend| backend.ternary(&op, o[0], o[1], o[2], shape))
    })
}

/// `lerp(start, end, weight)` over the broadcast `shape`, else `cpu(weight, start, end, shape)`.
#[inline]
pub fn lerp(
    start: &Tensor,
    end: &Tensor,
    weight: &Tensor,
    shape: &[usize],
    cpu: impl Fn(&Tensor, &Tensor, &Tensor, &[usize]) -> Result<Tensor>,
) -> Result<Tensor> {
    let op = Ternary {
        op: TernaryKind::Lerp,
        cpu: &cpu,
    };
    ordered(&[start, end, weight], shape, |o, shape| {
        run!(|backend| backend.ternary(&op, o[2], o[0], o[1], shape))
    })
}

/// Copy `src` (`dst`'s shape) into `dst`'s memory, casting, where `dst` lives. The caller
/// checks and bumps `dst`'s version.
pub fn write_into(dst: &Tensor, src: &Tensor) -> Result<()> {
    // A source sharing dst's memory is copied out first (the GPU's kernel binds two buffers;
    // the host's writes what it reads).
    let src = if dst.device() == Device::Gpu && overlaps(&src.read().storage, &dst.read().storage) {
        contiguous(src)
    } else {
        src.clone()
    };
    run!(|backend| backend.write(dst, &src))
}

/// The host's `write_into`.
pub(crate) fn write_host(dst: &Tensor, src: &Tensor) -> Result<()> {
    // Values to write, read straight from `src` when it has dst's dtype, is contiguous and
    // does not share dst's memory (an in-place op's fresh result); else a contiguous copy.
    let direct = src.dtype() == dst.dtype() && {
        let (s, d) = (src.read(), dst.read());
        s.layout.is_contiguous() && !overlaps(&s.storage, &d.storage)
    };
    let src = if direct {
        src.clone()
    } else if src.dtype() != dst.dtype() {
        cast(src, dst.dtype())
    } else {
        contiguous(src)
    };
    let (s, d) = (src.read(), dst.read());
    crate::dispatch!(d.dtype(), T => {
        let n = s.layout.numel();
        let values = &s.storage.slice::<T>()[s.layout.offset..s.layout.offset + n];
        copy::scatter_into::<T>(d.storage.slice_mut::<T>(), &d.layout, values);
    });
    Ok(())
}

/// Whether two storages' memory overlaps (views, and `.data` aliases, share memory).
pub fn overlaps(a: &Storage, b: &Storage) -> bool {
    let range = |s: &Storage| {
        let start = s.data_ptr() as usize;
        (start, start + s.len() * s.dtype().itemsize())
    };
    let ((a0, a1), (b0, b1)) = (range(a), range(b));
    a0 < b1 && b0 < a1
}

/// `f` of each element on the host (a GPU tensor's host copy; the result goes back to its
/// device), one monomorphized loop per closure.
pub fn map<T: Element, U: Element>(t: &Tensor, f: impl Fn(T) -> U + Sync + Send) -> Tensor {
    let d = t.read();
    let v = elementwise::unary(d.storage.slice::<T>(), &d.layout, f);
    Tensor::from_vec_on(v, &d.layout.shape, d.device())
}

/// `f` over a contiguous float16 tensor, computed in float32 and rounded once per element
/// (Note [Narrow dtypes]) a run at a time, without float32 copies of the tensor.
pub fn map_half(t: &Tensor, f: impl Fn(f32) -> f32 + Sync + Send) -> Tensor {
    let d = t.read();
    let (o, n) = (d.layout.offset, d.layout.numel());
    let x = &d.storage.slice::<half::f16>()[o..o + n];
    let v = elementwise::map_half(x, f);
    Tensor::from_vec_on(v, &d.layout.shape, d.device())
}

/// `clamp` of each element to `[lo, hi]` on the host (either bound may be absent).
pub fn clamp<T: Element>(t: &Tensor, lo: Option<T>, hi: Option<T>) -> Tensor {
    let d = t.read();
    let v = elementwise::clamp(d.storage.slice::<T>(), &d.layout, lo, hi);
    Tensor::from_vec_on(v, &d.layout.shape, d.device())
}

/// `f(a, b)` over the broadcast `shape` on the host, one monomorphized loop per closure.
pub fn zip<T: Element, U: Element>(
    a: &Tensor,
    b: &Tensor,
    shape: &[usize],
    f: impl Fn(T, T) -> U + Sync + Send,
) -> Result<Tensor> {
    let device = Device::of(&[a, b])?;
    let (da, db) = (a.read(), b.read());
    let v = elementwise::binary(
        da.storage.slice::<T>(),
        &da.layout,
        db.storage.slice::<T>(),
        &db.layout,
        shape,
        f,
    );
    Ok(Tensor::from_vec_on(v, shape, device))
}

/// `f32(a, b)` / `f64(a, b)` of each element pair of two float32 / float64 tensors of one
/// shape and dtype on the host (one pass, one buffer), for fused derivative loops (Note
/// [Fused derivatives] in `ops/unary.rs`). None where that does not apply (an operand on the
/// GPU, other dtypes, shapes that differ): the caller composes tensor ops instead.
pub fn zip_host_float(
    a: &Tensor,
    b: &Tensor,
    f32: impl Fn(f32, f32) -> f32 + Sync + Send,
    f64: impl Fn(f64, f64) -> f64 + Sync + Send,
) -> Result<Option<Tensor>> {
    let shape = a.shape();
    if a.device().is_gpu() || b.device().is_gpu() || a.dtype() != b.dtype() || b.shape() != shape {
        return Ok(None);
    }
    Ok(Some(match a.dtype() {
        DType::F32 => zip(a, b, &shape, f32)?,
        DType::F64 => zip(a, b, &shape, f64)?,
        _ => return Ok(None),
    }))
}

/// ATen's CPU `tanh_backward(g, r)` on float32 / float64 host operands: `g * fma(-r, r, 1)`,
/// as its vectorized loop `a * (one_vec - b * b)` is compiled (GCC contracts the `1 - b * b`
/// of the AVX2 / AVX-512 kernels into one `vfnmadd`). None where that does not apply (an
/// operand on the GPU, other or differing dtypes): the caller composes tensor ops.
pub fn tanh_backward_host(g: &Tensor, r: &Tensor) -> Result<Option<Tensor>> {
    if g.device().is_gpu() || r.device().is_gpu() || g.dtype() != r.dtype() {
        return Ok(None);
    }
    let shape = crate::tensor::shape::broadcast_shapes(&g.shape(), &r.shape())?;
    Ok(Some(match g.dtype() {
        DType::F32 => zip(g, r, &shape, |g: f32, r: f32| g * (-r).mul_add(r, 1.0))?,
        DType::F64 => zip(g, r, &shape, |g: f64, r: f64| g * (-r).mul_add(r, 1.0))?,
        _ => return Ok(None),
    }))
}

/// ATen's `pow(Tensor, Scalar)` specializations for float32 / float64 on the CPU
/// (`pow_tensor_scalar_optimized_kernel`): `x * x * x` for 3, `1 / (x * x)` for -2,
/// `rsqrt` (`1 / sqrt(x)`) for -0.5 and `reciprocal` for -1, each rounding as torch's instead
/// of one `powf`
/// (2 is `Powf`'s own `x * x`). None elsewhere.
pub fn pow_number_host(
    x: &Tensor,
    e: &Tensor,
    shape: &[usize],
    exp: f64,
) -> Result<Option<Tensor>> {
    if x.device().is_gpu() || !matches!(x.dtype(), DType::F32 | DType::F64) {
        return Ok(None);
    }
    macro_rules! by {
        (|$v:ident| $body:expr) => {
            Ok(Some(match x.dtype() {
                DType::F32 => zip(x, e, shape, |$v: f32, _: f32| $body)?,
                _ => zip(x, e, shape, |$v: f64, _: f64| $body)?,
            }))
        };
    }
    if exp == 1.0 {
        // ATen's structured pow copies the base for an exponent of 1 (no kernel runs).
        by!(|v| v)
    } else if exp == 3.0 {
        by!(|v| v * v * v)
    } else if exp == -2.0 {
        by!(|v| 1.0 / (v * v))
    } else if exp == -0.5 {
        by!(|v| 1.0 / v.sqrt())
    } else if exp == -1.0 {
        by!(|v| 1.0 / v)
    } else {
        Ok(None)
    }
}

/// `mask ? a : b` on the host for `n` elements, each of `a`, `b` all `n` values or one.
pub fn select_host<T: Element>(mask: &[bool], a: Src<'_, T>, b: Src<'_, T>) -> Vec<T> {
    elementwise::select(mask, a, b)
}

/// An operand of `zip_half_host`: a tensor, or a number already in float32.
pub enum HalfArg<'a> {
    Tensor(&'a Tensor),
    Value(f32),
}

/// `f` (a float16 kernel over `n` elements computed in float32, `zip_half`) of two operands
/// that are contiguous float16 tensors of the result's `shape` or single values, on the host
/// a run at a time, without widened copies. A single value keeps its float32 precision, as
/// PyTorch's reduced-float kernels read a scalar operand. None where it does not apply: an
/// operand on the GPU (its one kernel widens the words there), another layout, two single
/// values (the caller's general path).
pub fn zip_half_host(
    a: HalfArg<'_>,
    b: HalfArg<'_>,
    shape: &[usize],
    f: impl FnOnce(usize, HalfSrc<'_>, HalfSrc<'_>) -> Vec<half::f16>,
) -> Option<Tensor> {
    enum Side {
        Full(crate::tensor::Data),
        One(f32),
    }
    impl Side {
        fn src(&self) -> HalfSrc<'_> {
            match self {
                Side::Full(d) => HalfSrc::Full(&d.storage.slice::<half::f16>()[d.layout.offset..]),
                Side::One(v) => HalfSrc::One(*v),
            }
        }
    }
    let side = |o: &HalfArg<'_>| match *o {
        HalfArg::Tensor(t) if t.device().is_gpu() => None,
        HalfArg::Tensor(t)
            if t.dtype() == DType::F16 && t.shape().as_slice() == shape && t.is_contiguous() =>
        {
            Some(Side::Full(t.data()))
        }
        HalfArg::Tensor(t) if t.numel() != 1 || t.dim() > shape.len() => None,
        HalfArg::Tensor(t) => Some(Side::One(cast(t, DType::F32).to_vec::<f32>()[0])),
        HalfArg::Value(v) => Some(Side::One(v)),
    };
    let (sa, sb) = match (side(&a), side(&b)) {
        (Some(Side::One(_)), Some(Side::One(_))) | (None, _) | (_, None) => return None,
        (Some(sa), Some(sb)) => (sa, sb),
    };
    let n = crate::tensor::shape::numel(shape);
    Some(Tensor::from_vec(f(n, sa.src(), sb.src()), shape))
}

/// `dst op= other` written straight into `dst`'s memory on the host (no result buffer, no
/// copy back): `f32` / `f64` the op's in-place loops (`zip_in_place`), for `dst` a contiguous
/// float32 / float64 tensor and `other` of its dtype, of dst's shape (contiguous) or one
/// element, not sharing its memory. Bumps dst's version. False where that does not apply (a
/// GPU tensor among them, other layouts): the caller takes the general path.
pub fn zip_into_host(
    dst: &Tensor,
    other: &Tensor,
    f32: impl FnOnce(&mut [f32], Src<'_, f32>),
    f64: impl FnOnce(&mut [f64], Src<'_, f64>),
) -> bool {
    if dst.device().is_gpu() || other.device().is_gpu() || dst.dtype() != other.dtype() {
        return false;
    }
    let (d, o) = (dst.read(), other.read());
    let n = d.layout.numel();
    let full = o.layout.shape == d.layout.shape && o.layout.is_contiguous();
    // One element broadcasts to dst's shape only if it has no more dims (else the general
    // path raises PyTorch's shape error).
    let one = o.layout.numel() == 1 && o.layout.shape.len() <= d.layout.shape.len();
    if !d.layout.is_contiguous() || !(full || one) || overlaps(&d.storage, &o.storage) {
        return false;
    }
    fn parts<'a, T: Element>(
        d: &'a crate::tensor::Data,
        o: &'a crate::tensor::Data,
        n: usize,
        full: bool,
    ) -> (&'a mut [T], Src<'a, T>) {
        let out = &mut d.storage.slice_mut::<T>()[d.layout.offset..d.layout.offset + n];
        let ys = o.storage.slice::<T>();
        let src = if full {
            Src::Full(&ys[o.layout.offset..o.layout.offset + n])
        } else {
            Src::One(ys[o.layout.offset])
        };
        (out, src)
    }
    match d.dtype() {
        DType::F32 => {
            let (out, src) = parts::<f32>(&d, &o, n, full);
            f32(out, src);
        }
        DType::F64 => {
            let (out, src) = parts::<f64>(&d, &o, n, full);
            f64(out, src);
        }
        _ => return false,
    }
    d.storage.bump_version();
    true
}
