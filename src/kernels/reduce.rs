//! Reductions over dims (sum, prod, max, min, all, any, argmax / argmin, row functions) and
//! scans along a dim: the GPU kernel where it applies, else the host's over the same values.
//! Dims are sorted and distinct (`ops::reduce::reduction_dims`); results come in the reduced
//! shape, size-1 dims kept when `keepdim`.

use super::backend::pick;
use super::copy::{cast, contiguous, narrow, wide};
use super::swapped;
use crate::backend::cpu::cascade::cascade_sum;
use crate::backend::cpu::reduce::{reduce_rows, sum_dims, sum_half};
use crate::backend::cpu::variance::{var_all, var_welford};
use crate::backend::cpu::vector_norm::vector_norm;
pub use crate::backend::wgpu::{ReduceOp, ScanOp};
use crate::dtype::DType;
use crate::tensor::shape::reduced_shape;
use crate::tensor::{Element, Tensor};

/// Sum over `dims`. Integers and bools sum to int64, as in PyTorch; float16 sums in float32
/// and rounds once (a whole contiguous host tensor in float64, through float32).
pub fn sum(x: &Tensor, dims: &[usize], keepdim: bool) -> Tensor {
    let dtype = x.dtype();
    if dtype == DType::F16 {
        let all = dims.len() == x.dim();
        if all && x.is_contiguous() && !x.device().is_gpu() {
            // The whole tensor, read in place.
            let d = x.read();
            let o = d.layout.offset;
            let total = sum_half(&d.storage.slice::<half::f16>()[o..o + d.layout.numel()]);
            let shape = reduced_shape(&x.shape(), dims, keepdim);
            let v = half::f16::from_f32(total as f32);
            return Tensor::from_vec(vec![v], &shape);
        }
        return narrow(sum(&wide(x), dims, keepdim), DType::F16);
    }
    if dtype == DType::BF16 {
        return narrow(sum(&wide(x), dims, keepdim), DType::BF16);
    }
    let wide_int;
    let x = match dtype {
        DType::Bool | DType::U8 | DType::I8 | DType::I16 | DType::I32 => {
            wide_int = cast(x, DType::I64);
            &wide_int
        }
        _ => x,
    };
    let shape = reduced_shape(&x.read().layout.shape, dims, keepdim);
    pick!(|b| b.reduce(ReduceOp::Sum, x, dims, keepdim, &shape))
}

/// Elements of a view past which the host's float sum stops reading every broadcast repeat.
const HUGE_BROADCAST_SUM: usize = 1 << 31;

/// The host's sum, of a float32, float64 or int64 tensor, giving `shape`: floats in ATen's
/// order of adds (Note [Cascade sum]), so they are bit-equal to PyTorch's.
fn sum_host(x: &Tensor, dims: &[usize], keepdim: bool, shape: &[usize]) -> Tensor {
    let d = x.read();
    if d.layout.numel() > HUGE_BROADCAST_SUM && d.dtype() != DType::I64 {
        // A view past 2^31 elements is a broadcast one (no storage holds it): PyTorch reads
        // every repeat, for seconds to hours; sum the distinct values and scale instead,
        // which can differ from PyTorch in the last bits.
        return match d.dtype() {
            DType::F32 => Tensor::from_vec_on(
                sum_dims::<f32>(d.storage.slice(), &d.layout, dims),
                shape,
                d.device(),
            ),
            _ => Tensor::from_vec_on(
                sum_dims::<f64>(d.storage.slice(), &d.layout, dims),
                shape,
                d.device(),
            ),
        };
    }
    match d.dtype() {
        DType::F32 => Tensor::from_vec_on(
            cascade_sum::<f32>(d.storage.slice(), &d.layout, dims, keepdim, false),
            shape,
            d.device(),
        ),
        DType::F64 => Tensor::from_vec_on(
            cascade_sum::<f64>(d.storage.slice(), &d.layout, dims, keepdim, false),
            shape,
            d.device(),
        ),
        DType::I64 => Tensor::from_vec_on(
            sum_dims::<i64>(d.storage.slice(), &d.layout, dims),
            shape,
            d.device(),
        ),
        DType::Bool
        | DType::U8
        | DType::I8
        | DType::I16
        | DType::I32
        | DType::F16
        | DType::BF16 => unreachable!("cast above"),
    }
}

/// PyTorch's CPU `nansum` of a host float32 / float64 tensor over `dims`: ATen's cascade
/// with NaN read as zero, in its order over the tensor's own layout (Note [Cascade sum]).
/// None for other dtypes and GPU tensors, which sum `where(isnan(x), 0, x)` instead.
pub fn nansum_host(x: &Tensor, dims: &[usize], keepdim: bool) -> Option<Tensor> {
    if x.device().is_gpu() || !matches!(x.dtype(), DType::F32 | DType::F64) {
        return None;
    }
    let d = x.read();
    let shape = reduced_shape(&d.layout.shape, dims, keepdim);
    Some(match d.dtype() {
        DType::F32 => Tensor::from_vec(
            cascade_sum::<f32>(d.storage.slice(), &d.layout, dims, keepdim, true),
            &shape,
        ),
        _ => Tensor::from_vec(
            cascade_sum::<f64>(d.storage.slice(), &d.layout, dims, keepdim, true),
            &shape,
        ),
    })
}

/// `f` of each run of elements over `dims`, computed on the host (a GPU tensor's host copy;
/// the result goes back to its device): what a reduction with no kernel of its own runs.
pub fn rows<T: Element, U: Element>(
    x: &Tensor,
    dims: &[usize],
    keepdim: bool,
    f: impl Fn(&[T]) -> U + Sync + Send,
) -> Tensor {
    let d = x.read();
    let shape = reduced_shape(&d.layout.shape, dims, keepdim);
    Tensor::from_vec_on(
        reduce_rows(d.storage.slice::<T>(), &d.layout, dims, f),
        &shape,
        d.device(),
    )
}

/// `rows` of a floating-point tensor with `f` over the values as float64 (and the run's
/// length); float16 computes in float32 (Note [Narrow dtypes]).
pub fn float_rows(
    x: &Tensor,
    dims: &[usize],
    keepdim: bool,
    f: impl Fn(&mut dyn Iterator<Item = f64>, usize) -> f64 + Sync + Send,
) -> Tensor {
    match x.dtype() {
        d if d.is_half() => narrow(float_rows(&wide(x), dims, keepdim, f), d),
        DType::F32 => rows::<f32, f32>(x, dims, keepdim, |r| {
            f(&mut r.iter().map(|&v| v as f64), r.len()) as f32
        }),
        _ => rows::<f64, f64>(x, dims, keepdim, |r| f(&mut r.iter().copied(), r.len())),
    }
}

/// PyTorch's CPU `linalg.vector_norm` of a float32 / float64 tensor for p = 1 or 2 (`two`)
/// over `dims` (sorted, unique; at least one of size > 1), in ATen's order (Note [Norm order]
/// in `backend/cpu/vector_norm.rs`); None for other dtypes.
pub fn vector_norm_host(x: &Tensor, dims: &[usize], keepdim: bool, two: bool) -> Option<Tensor> {
    if x.device().is_gpu() {
        return None;
    }
    let shape = reduced_shape(&x.shape(), dims, keepdim);
    let d = x.read();
    let out = match d.dtype() {
        DType::F32 => Tensor::from_vec_on(
            vector_norm::<f32>(d.storage.slice(), &d.layout, dims, keepdim, two),
            &shape,
            d.device(),
        ),
        DType::F64 => Tensor::from_vec_on(
            vector_norm::<f64>(d.storage.slice(), &d.layout, dims, keepdim, two),
            &shape,
            d.device(),
        ),
        _ => return None,
    };
    Some(out)
}

/// PyTorch's CPU var / std (`take_sqrt`) of a non-empty float32 / float64 tensor over `dims`
/// in ATen's order (Note [Variance order] in `backend/cpu/variance.rs`): `mean` is the mean in
/// the tensor's dtype when the result has one element. None for other dtypes.
pub fn var_host(
    x: &Tensor,
    dims: &[usize],
    keepdim: bool,
    correction: f64,
    take_sqrt: bool,
    mean: Option<f64>,
) -> Option<Tensor> {
    if x.device().is_gpu() {
        return None;
    }
    let shape = reduced_shape(&x.shape(), dims, keepdim);
    let d = x.read();
    let dev = d.device();
    Some(match (d.dtype(), mean) {
        (DType::F32, Some(m)) => {
            let v = var_all::<f32>(d.storage.slice(), &d.layout, m, correction, take_sqrt);
            Tensor::from_vec_on(vec![v as f32], &shape, dev)
        }
        (DType::F64, Some(m)) => {
            let v = var_all::<f64>(d.storage.slice(), &d.layout, m, correction, take_sqrt);
            Tensor::from_vec_on(vec![v], &shape, dev)
        }
        (DType::F32, None) => Tensor::from_vec_on(
            var_welford::<f32>(
                d.storage.slice(),
                &d.layout,
                dims,
                keepdim,
                correction,
                take_sqrt,
            ),
            &shape,
            dev,
        ),
        (DType::F64, None) => Tensor::from_vec_on(
            var_welford::<f64>(
                d.storage.slice(),
                &d.layout,
                dims,
                keepdim,
                correction,
                take_sqrt,
            ),
            &shape,
            dev,
        ),
        _ => return None,
    })
}

/// Index of the max (`max`) or min along a row; NaN wins, the first occurrence wins ties.
fn arg_extreme_row<T: Element>(r: &[T], max: bool) -> i64 {
    let mut best = 0usize;
    for (i, &v) in r.iter().enumerate().skip(1) {
        let b = r[best];
        #[allow(clippy::eq_op)]
        let (v_nan, b_nan) = (v != v, b != b);
        if b_nan {
            break;
        }
        if v_nan || (max && v > b) || (!max && v < b) {
            best = i;
        }
    }
    best as i64
}

/// `Prod`, `Max` or `Min` over `dims` (max / min propagate NaN; products of integers wrap in
/// int64, of floats multiply in float64).
pub fn reduce(op: ReduceOp, x: &Tensor, dims: &[usize], keepdim: bool) -> Tensor {
    let shape = reduced_shape(&x.shape(), dims, keepdim);
    pick!(|b| b.reduce(op, x, dims, keepdim, &shape))
}

/// The host's `reduce` (and `sum`), giving `shape`.
pub(super) fn reduce_host(
    op: ReduceOp,
    x: &Tensor,
    dims: &[usize],
    keepdim: bool,
    shape: &[usize],
) -> Tensor {
    match op {
        ReduceOp::Sum => sum_host(x, dims, keepdim, shape),
        ReduceOp::Prod if x.dtype() == DType::I64 => rows::<i64, i64>(x, dims, keepdim, |r| {
            r.iter().fold(1i64, |a, &b| a.wrapping_mul(b))
        }),
        ReduceOp::Prod => float_rows(x, dims, keepdim, |it, _| it.product()),
        ReduceOp::Max | ReduceOp::Min => {
            let max = matches!(op, ReduceOp::Max);
            crate::dispatch!(x.dtype(), T => rows::<T, T>(x, dims, keepdim, move |r| r[arg_extreme_row(r, max) as usize]))
        }
        _ => unreachable!("all / any have their own function, mean is the ops'"),
    }
}

/// `all` (or `any`) over `dims`, as bools.
pub fn all_any(all: bool, x: &Tensor, dims: &[usize], keepdim: bool) -> Tensor {
    let shape = reduced_shape(&x.shape(), dims, keepdim);
    pick!(|b| b.all_any(all, x, dims, keepdim, &shape))
}

pub(super) fn all_any_host(all: bool, x: &Tensor, dims: &[usize], keepdim: bool) -> Tensor {
    let b = cast(x, DType::Bool);
    rows::<bool, bool>(&b, dims, keepdim, move |r| {
        if all {
            r.iter().all(|&v| v)
        } else {
            r.iter().any(|&v| v)
        }
    })
}

/// The max (or min) over `dims` (one dim, or none for a 0-dim tensor) and its index there
/// (int64): NaN wins, the first occurrence wins ties. An empty reduction gives index 0 and
/// zero values.
pub fn arg_extreme(max: bool, x: &Tensor, dims: &[usize], keepdim: bool) -> (Tensor, Tensor) {
    let shape = reduced_shape(&x.shape(), dims, keepdim);
    pick!(|b| b.arg_extreme(max, x, dims, keepdim, &shape))
}

pub(super) fn arg_extreme_host(
    max: bool,
    x: &Tensor,
    dims: &[usize],
    keepdim: bool,
) -> (Tensor, Tensor) {
    let idx = crate::dispatch!(x.dtype(), T => rows::<T, i64>(x, dims, keepdim, move |r| if r.is_empty() { 0 } else { arg_extreme_row(r, max) }));
    let values = if x.numel() == 0 {
        Tensor::zeros_on(&idx.shape(), x.dtype(), x.device())
    } else {
        crate::dispatch!(x.dtype(), T => rows::<T, T>(x, dims, keepdim, move |r| r[arg_extreme_row(r, max) as usize]))
    };
    (values, idx)
}

/// `logcumsumexp` along `dim` of a float32 / float64 tensor on the host (Note [Logcumsumexp
/// order]): the running value in `acc` (float64 for float32, as `scan`'s; float32 for the
/// widened float16 / bfloat16).
pub fn logcumsumexp(x: &Tensor, dim: usize, acc: DType) -> Tensor {
    match x.dtype() {
        DType::F32 if acc == DType::F64 => scan_lines::<f32>(x, dim, |r| {
            let mut run = f64::NEG_INFINITY;
            for v in r.iter_mut() {
                run = log_add_exp_f64(*v as f64, run);
                *v = run as f32;
            }
        }),
        DType::F32 => scan_lines::<f32>(x, dim, |r| {
            let mut run = f32::NEG_INFINITY;
            for v in r.iter_mut() {
                run = log_add_exp_f32(*v, run);
                *v = run;
            }
        }),
        _ => scan_lines::<f64>(x, dim, |r| {
            let mut run = f64::NEG_INFINITY;
            for v in r.iter_mut() {
                run = log_add_exp_f64(*v, run);
                *v = run;
            }
        }),
    }
}

// Note [Logcumsumexp order]: ATen's CPU logcumsumexp (logcumsumexp_cpu_kernel over
// cpu_cum_base_kernel) starts the running value at -inf in `acc_type<scalar_t, false>` (double
// for float and double, float for half / bfloat16) and folds each element x into it with
// `_log_add_exp_helper(x, running)` (ATen/native/cpu/LogAddExp.h): min / max as `std::min` /
// `std::max` of (x, running), a NaN running value taking both; `log1p(exp(min - max)) + max`
// unless min == max is infinite, where x is kept (two -inf stay -inf without -inf - -inf).
// C's exp / log1p are libm's, as Rust's `exp` / `ln_1p`; so each output is ATen's bit for bit.
macro_rules! log_add_exp {
    ($name:ident, $T:ty) => {
        #[inline]
        fn $name(x: $T, y: $T) -> $T {
            // std::min(x, y) is `y < x ? y : x`, std::max(x, y) is `x < y ? y : x`.
            let (min, max) = if y.is_nan() {
                (y, y)
            } else {
                (if y < x { y } else { x }, if x < y { y } else { x })
            };
            if min != max || min.is_finite() {
                (min - max).exp().ln_1p() + max
            } else {
                x
            }
        }
    };
}
log_add_exp!(log_add_exp_f64, f64);
log_add_exp!(log_add_exp_f32, f32);

/// `f` run over each line of `x` along `dim`, in place on a contiguous copy (the host's scan).
fn scan_lines<T: Element>(x: &Tensor, dim: usize, f: impl Fn(&mut [T])) -> Tensor {
    let nd = x.dim();
    if nd == 0 {
        let mut v = x.to_vec::<T>();
        f(&mut v);
        return Tensor::from_vec_on(v, &[], x.device());
    }
    let last = nd - 1;
    let moved = contiguous(&swapped(x, dim, last));
    let len = moved.shape()[last];
    let mut v = moved.to_vec::<T>();
    if len > 0 {
        v.chunks_mut(len).for_each(&f);
    }
    let t = Tensor::from_vec_on(v, &moved.shape(), x.device());
    contiguous(&swapped(&t, dim, last))
}

/// The inclusive scan `op` (`Sum` or `Prod`) along `dim` of a float32, float64 or int64 tensor
/// (integer sums and products wrap), the running value kept in `acc`: Note [Scan accumulation].
pub fn scan(op: ScanOp, x: &Tensor, dim: usize, acc: DType) -> Tensor {
    pick!(|b| b.scan(op, x, dim, acc))
}

// Note [Scan accumulation]: ATen's CPU cumsum / cumprod (cpu_cum_base_kernel) keep the running
// value in `at::acc_type<scalar_t, false>`, which is double for float: each output is the
// float64 running sum (product) rounded to float32. float16 / bfloat16 (widened to float32
// here, Note [Narrow dtypes]) accumulate in float, so they pass `acc` float32.
pub(super) fn scan_host(op: ScanOp, x: &Tensor, dim: usize, acc: DType) -> Tensor {
    let prod = !matches!(op, ScanOp::Sum);
    match x.dtype() {
        DType::F32 if acc == DType::F64 => scan_lines::<f32>(x, dim, |r| {
            let mut run = if prod { 1f64 } else { 0f64 };
            for v in r.iter_mut() {
                run = if prod {
                    run * *v as f64
                } else {
                    run + *v as f64
                };
                *v = run as f32;
            }
        }),
        DType::I64 if prod => scan_lines::<i64>(x, dim, |r| {
            for i in 1..r.len() {
                r[i] = r[i].wrapping_mul(r[i - 1]);
            }
        }),
        DType::F32 if prod => scan_lines::<f32>(x, dim, |r| {
            for i in 1..r.len() {
                r[i] *= r[i - 1];
            }
        }),
        DType::F64 if prod => scan_lines::<f64>(x, dim, |r| {
            for i in 1..r.len() {
                r[i] *= r[i - 1];
            }
        }),
        // The running sum starts at +0 as ATen's (`acc = 0; acc += x`), so a line of -0.0
        // sums to +0.0.
        DType::F64 => scan_lines::<f64>(x, dim, |r| {
            let mut run = 0f64;
            for v in r.iter_mut() {
                run += *v;
                *v = run;
            }
        }),
        DType::F32 => scan_lines::<f32>(x, dim, |r| {
            let mut run = 0f32;
            for v in r.iter_mut() {
                run += *v;
                *v = run;
            }
        }),
        _ => crate::dispatch!(x.dtype(), T => scan_lines::<T>(x, dim, |r| {
            for i in 1..r.len() { r[i] = r[i].add(r[i - 1]); }
        })),
    }
}
