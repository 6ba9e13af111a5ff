//! Statistical reductions: var / std, vector norms and logsumexp, with their float32 GPU forms.

use crate::autograd::needs_grad;
use crate::autograd::saved::Value;
use crate::autograd::{record_formula_jvp, Jvp, SavedTensor};
use crate::dtype::{DType, Scalar};
use crate::error::{Error, Result};
use crate::kernels::{self, float_rows, ReduceOp};
use crate::ops::arithmetic::{add, div, mul, pow, sub};
use crate::ops::arithmetic::{binary, BinaryOp};
use crate::ops::compare::{eq, ne};
use crate::ops::creation::cast_data;
use crate::ops::extrema::amax;
use crate::ops::movement::reshape;
use crate::ops::reduce::{mean, reduction_dims, restore_dims, sum};
use crate::ops::unary;
use crate::ops::where_::where_;
use crate::ops::Operand;
use crate::tensor::shape::{reduced_shape, sizes_i64};
use crate::tensor::Tensor;

/// `var` / `std` with `correction` (N - correction in the denominator).
/// `correction`: None for PyTorch's overload without one (`x.var()`: 1, shown as None).
pub fn var(
    x: &Tensor,
    dims: Option<&[i64]>,
    correction: Option<f64>,
    keepdim: bool,
    std: bool,
) -> Result<Tensor> {
    let shown = correction.map_or(Value::None, Value::Float);
    let correction = correction.unwrap_or(1.0);
    if !x.dtype().is_floating_point() {
        return Err(Error::Runtime(
            "std and var only support floating point and complex dtypes".into(),
        ));
    }
    let rd = reduction_dims(dims, x.dim())?;
    let gpu_out = var_gpu(x, &rd, correction, keepdim, std)?;
    let gpu_out = match gpu_out {
        Some(out) => Some(out),
        None => var_aten_order(x, &rd, correction, keepdim, std)?,
    };
    let out = gpu_out.unwrap_or_else(|| {
        float_rows(x, &rd, keepdim, move |it, n| {
            let v: Vec<f64> = it.collect();
            let mean = v.iter().sum::<f64>() / n as f64;
            let ss: f64 = v.iter().map(|e| (e - mean) * (e - mean)).sum();
            let r = ss / (n as f64 - correction).max(0.0);
            if std {
                r.sqrt()
            } else {
                r
            }
        })
    });
    if !needs_grad(&[x]) {
        return Ok(out);
    }
    let name = if std { "StdBackward0" } else { "VarBackward0" };
    let n: usize = rd.iter().map(|&d| x.shape()[d]).product();
    let dof = n as f64 - correction;
    // PyTorch's var_backward treats "no dim" (and a 0-dim input) separately.
    let whole = dims.is_none() || x.dim() == 0;
    let rd2 = rd.clone();
    // Only std's formula reads the result: var keeps its input alone, as PyTorch's
    // VarBackward0 does, so an in-place op on var's result (`v.add_(eps)`) stays legal.
    let mut saved = vec![SavedTensor::input(x)?];
    if std {
        saved.push(SavedTensor::output(&out, 0)?);
    }
    let values = vec![
        ("correction", shown),
        ("dim", dims.map_or(Value::None, |d| Value::Ints(d.to_vec()))),
        ("keepdim", Value::Bool(keepdim)),
    ];
    let out = record_formula_jvp(
        out,
        &[x],
        name,
        saved,
        move |g, s| {
            let x = &s[0];
            let g = if std {
                // std_backward: var's gradient scaled by 1 / (2 std), zero where std == 0.
                let out = &s[1];
                let scaled = div(g, &mul(out, 2.0)?)?;
                where_(&eq(out, 0.0)?, 0, &scaled)?
            } else {
                g.clone()
            };
            let gi = if whole && dof <= 0.0 {
                // 2 / dof is infinite: PyTorch's gradient is nan where x equals its mean and inf
                // elsewhere, a constant, so under create_graph it depends on the gradient alone.
                let c = {
                    let _no_grad = crate::autograd::GradModeGuard::new(false);
                    let at_mean = eq(x, &mean(x, None, false)?)?;
                    let dt = x.dtype();
                    crate::ops::where_::where_(
                        &at_mean,
                        Operand::Tensor(Tensor::scalar(Scalar::Float(f64::NAN), dt)),
                        Operand::Tensor(Tensor::scalar(Scalar::Float(f64::INFINITY), dt)),
                    )?
                };
                mul(&g, &c)?
            } else {
                let g = if whole {
                    g
                } else {
                    restore_dims(&g, &rd, keepdim)?
                };
                let dl = sizes_i64(&rd);
                let centered = sub(x, &mean(x, Some(&dl), true)?)?;
                mul(&mul(&g, 2.0 / dof)?, &centered)?
            };
            Ok(vec![Some(gi)])
        },
        Jvp::of(move |t, s| {
            // derivatives.yaml's `var_backward(self_t, ..).sum(dim)`: sum((2 / dof * t) (x - mean))
            // in that order; std's over 2 std.
            let Some(t) = &t[0] else {
                return Ok(vec![None]);
            };
            let x = &s[0];
            let dl = sizes_i64(&rd2);
            let centered = sub(x, &mean(x, Some(&dl), true)?)?;
            let var_t = sum(&mul(&mul(t, 2.0 / dof)?, &centered)?, Some(&dl), keepdim)?;
            if !std {
                return Ok(vec![Some(var_t)]);
            }
            let out = &s[1];
            // std's is zero where std is (PyTorch's where(result == 0, 0, ...)).
            let scaled = div(&var_t, &mul(out, 2.0)?)?;
            Ok(vec![Some(where_(&eq(out, 0.0)?, 0, &scaled)?)])
        }),
    );
    let names: &'static [&'static str] = if std { &["self", "result"] } else { &["self"] };
    crate::autograd::formula::describe(&out, names, values);
    Ok(out)
}

/// `x.norm(p, dim, keepdim)` / `linalg.vector_norm`: LinalgVectorNormBackward0.
pub fn norm(x: &Tensor, p: f64, dims: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
    if !x.dtype().is_floating_point() {
        return Err(Error::Runtime(format!(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got {}",
            crate::dtype::pretty_kernel_name(x.dtype())
        )));
    }
    let rd = reduction_dims(dims, x.dim())?;
    let gpu_out = norm_gpu(x, p, &rd, keepdim)?;
    let gpu_out = match gpu_out {
        Some(out) => Some(out),
        None => norm_aten_order(x, p, &rd, keepdim)?,
    };
    let out = gpu_out.unwrap_or_else(|| {
        float_rows(x, &rd, keepdim, move |it, _| {
            if p == f64::INFINITY {
                it.map(f64::abs).fold(0.0, f64::max)
            } else if p == f64::NEG_INFINITY {
                it.map(f64::abs).fold(f64::INFINITY, f64::min)
            } else if p == 0.0 {
                it.filter(|&v| v != 0.0).count() as f64
            } else if p == 1.0 {
                it.map(f64::abs).sum()
            } else if p == 2.0 {
                it.map(|v| v * v).sum::<f64>().sqrt()
            } else {
                it.map(|v| v.abs().powf(p)).sum::<f64>().powf(1.0 / p)
            }
        })
    });
    if !needs_grad(&[x]) {
        return Ok(out);
    }
    let rd2 = rd.clone();
    let saved = vec![SavedTensor::input(x)?, SavedTensor::output(&out, 0)?];
    let values = vec![
        ("dim", dims.map_or(Value::None, |d| Value::Ints(d.to_vec()))),
        ("keepdim", Value::Bool(keepdim)),
        ("ord", Value::Float(p)),
    ];
    let out = record_formula_jvp(
        out,
        &[x],
        "LinalgVectorNormBackward0",
        saved,
        move |g, s| {
            if p == 0.0 {
                // PyTorch leaves the gradient of the p=0 "norm" (a count) undefined.
                return Ok(vec![None]);
            }
            let (x, out) = (&s[0], &s[1]);
            let g = restore_dims(g, &rd, keepdim)?;
            let out = restore_dims(out, &rd, keepdim)?;
            // PyTorch's norm_backward, formula for formula: where it masks a quotient (zero
            // norm), the double backward through the mask's other side is nan, as in PyTorch.
            let sgn = unary::sign(x)?;
            let zero_norm = || eq(&out, 0.0);
            let gi = if p == 1.0 {
                mul(&sgn, &g)?
            } else if p == 2.0 {
                mul(&g, &where_(&zero_norm()?, 0, &div(x, &out)?)?)?
            } else if p.is_infinite() {
                let absx = unary::abs(x)?;
                let isnan = ne(&absx, &absx)?;
                let mask = crate::ops::logical::logical(&eq(&absx, &out)?, &isnan, "or")?;
                let count = sum(&mask, Some(&sizes_i64(&rd)), true)?;
                mul(&sgn, &mul(&div(&g, &count)?, &mask)?)?
            } else if p < 1.0 {
                let x_zero = eq(x, 0.0)?;
                let pw = where_(&x_zero, 0, &pow(&unary::abs(x)?, p - 1.0)?)?;
                let scaled = mul(&sgn, &pw)?;
                mul(&mul(&scaled, &g)?, &pow(&out, 1.0 - p)?)?
            } else {
                let scaled = if p < 2.0 {
                    mul(&sgn, &pow(&unary::abs(x)?, p - 1.0)?)?
                } else {
                    mul(x, &pow(&unary::abs(x)?, p - 2.0)?)?
                };
                let scale = div(&g, &pow(&out, p - 1.0)?)?;
                mul(&scaled, &where_(&zero_norm()?, 0, &scale)?)?
            };
            Ok(vec![Some(gi)])
        },
        Jvp::Reduction(rd2, keepdim),
    );
    crate::autograd::formula::describe(&out, &["self", "result"], values);
    Ok(out)
}

/// The host's var / std of a non-empty float32 / float64 tensor in ATen's order (Note
/// [Variance order]).
fn var_aten_order(
    x: &Tensor,
    rd: &[usize],
    correction: f64,
    keepdim: bool,
    std: bool,
) -> Result<Option<Tensor>> {
    if !matches!(x.dtype(), DType::F32 | DType::F64) || x.numel() == 0 {
        return Ok(None);
    }
    let outs: usize = (0..x.dim())
        .filter(|d| !rd.contains(d))
        .map(|d| x.shape()[d])
        .product();
    let m = if outs == 1 {
        let _no_grad = crate::autograd::GradModeGuard::new(false);
        Some(mean(x, None, false)?.item()?.to_f64())
    } else {
        None
    };
    Ok(kernels::var_host(x, rd, keepdim, correction, std, m))
}

/// The host's p = 1 / p = 2 norm of a float32 / float64 tensor in ATen's order (Note [Norm
/// order]): `abs` when every reduced dim has size 1, as `linalg_vector_norm` does.
fn norm_aten_order(x: &Tensor, p: f64, rd: &[usize], keepdim: bool) -> Result<Option<Tensor>> {
    if !(p == 1.0 || p == 2.0) || !matches!(x.dtype(), DType::F32 | DType::F64) {
        return Ok(None);
    }
    if x.numel() == 0 {
        return Ok(None);
    }
    if rd.iter().all(|&d| x.shape()[d] == 1) {
        let _no_grad = crate::autograd::GradModeGuard::new(false);
        let a = unary::abs(x)?;
        let shape = reduced_shape(&x.shape(), rd, keepdim);
        return Ok(Some(crate::ops::creation::contiguous_clone(&reshape(
            &a,
            &sizes_i64(&shape),
        )?)));
    }
    Ok(kernels::vector_norm_host(x, rd, keepdim, p == 2.0))
}

/// `logsumexp(x, dim, keepdim)`, stable (max subtracted): LogsumexpBackward0.
pub fn logsumexp(x: &Tensor, dims: &[i64], keepdim: bool) -> Result<Tensor> {
    let x = crate::ops::pointwise::float_input(x);
    let rd = reduction_dims(Some(dims), x.dim())?;
    let gpu_out = logsumexp_gpu(&x, &rd, keepdim)?;
    let out = gpu_out.unwrap_or_else(|| {
        float_rows(&x, &rd, keepdim, |it, _| {
            // PyTorch's: the max (NaN if any is NaN), 0 where it is infinite, then
            // m + log(sum(exp(x - m))), so inf beside NaN is NaN and +inf beside -inf is inf.
            let v: Vec<f64> = it.collect();
            let m = v.iter().copied().fold(f64::NEG_INFINITY, |a, b| {
                if a.is_nan() || b.is_nan() {
                    f64::NAN
                } else {
                    a.max(b)
                }
            });
            let m = if m.is_infinite() { 0.0 } else { m };
            m + v.iter().map(|e| (e - m).exp()).sum::<f64>().ln()
        })
    });
    if !needs_grad(&[&x]) {
        return Ok(out);
    }
    let rd2 = rd.clone();
    let saved = vec![SavedTensor::input(&x)?, SavedTensor::output(&out, 0)?];
    let out = record_formula_jvp(
        out,
        &[&x],
        "LogsumexpBackward0",
        saved,
        move |g, s| {
            let (x, out) = (&s[0], &s[1]);
            let g = restore_dims(g, &rd, keepdim)?;
            let out = restore_dims(out, &rd, keepdim)?;
            let e = unary::exp(&sub(x, &out)?)?;
            Ok(vec![Some(mul(&g, &e)?)])
        },
        Jvp::of(move |t, s| {
            // PyTorch's logsumexp_jvp: sum(exp(x - amax) t) / sum(exp(x - amax)).
            let Some(t) = &t[0] else {
                return Ok(vec![None]);
            };
            let x = &s[0];
            let dl = sizes_i64(&rd2);
            let e = if x.numel() > 0 {
                unary::exp(&sub(x, &amax(x, &dl, true, true)?)?)?
            } else {
                unary::exp(x)?
            };
            let num = sum(&mul(&e, t)?, Some(&dl), keepdim)?;
            Ok(vec![Some(div(&num, &sum(&e, Some(&dl), keepdim)?)?)])
        }),
    );
    crate::autograd::formula::describe(
        &out,
        &["self", "result"],
        vec![
            ("dim", Value::Ints(dims.to_vec())),
            ("keepdim", Value::Bool(keepdim)),
        ],
    );
    Ok(out)
}

// ---- float32 GPU forms of var / std, norm and logsumexp -------------------------------------
//
// The forward values as compositions of the GPU kernels (reductions, elementwise ops), so a
// GPU tensor's values never come back to the host. Each gives None for anything but a float32
// GPU tensor; the host kernels above stay the CPU's. Run with grad mode off: the ops record
// their own backward formulas.

fn gpu_f32(x: &Tensor) -> bool {
    kernels::host_reads_back(x) && x.dtype() == DType::F32
}

/// `var` / `std` as two passes: the mean, then the sum of squared deviations over
/// max(N - correction, 0) (a zero divisor gives inf, or nan for a zero sum, as PyTorch).
fn var_gpu(
    x: &Tensor,
    rd: &[usize],
    correction: f64,
    keepdim: bool,
    std: bool,
) -> Result<Option<Tensor>> {
    if !gpu_f32(x) {
        return Ok(None);
    }
    let _no_grad = crate::autograd::GradModeGuard::new(false);
    let shape = x.shape();
    let n: usize = rd.iter().map(|&d| shape[d]).product();
    let dl = sizes_i64(rd);
    let centered = sub(x, &mean(x, Some(&dl), true)?)?;
    let ss = sum(&mul(&centered, &centered)?, Some(&dl), keepdim)?;
    let r = binary(
        BinaryOp::Div,
        Operand::Tensor(ss),
        Operand::Scalar(Scalar::Float((n as f64 - correction).max(0.0))),
    )?;
    Ok(Some(if std { unary::sqrt(&r)? } else { r }))
}

/// The vector norms: max / min of |x| for ±inf (NaN propagates, as PyTorch), the count of
/// nonzeros for 0, and the power sums otherwise. An empty ±inf norm stays with the host.
fn norm_gpu(x: &Tensor, p: f64, rd: &[usize], keepdim: bool) -> Result<Option<Tensor>> {
    let shape = x.shape();
    let n: usize = rd.iter().map(|&d| shape[d]).product();
    if !gpu_f32(x) || (p.is_infinite() && n == 0) {
        return Ok(None);
    }
    let _no_grad = crate::autograd::GradModeGuard::new(false);
    let dl = sizes_i64(rd);
    let abs = || unary::abs(x);
    Ok(Some(if p.is_infinite() {
        let op = if p > 0.0 {
            ReduceOp::Max
        } else {
            ReduceOp::Min
        };
        kernels::reduce(op, &abs()?, rd, keepdim)
    } else if p == 0.0 {
        // By comparison, so NaN counts as nonzero.
        let nonzero = cast_data(&ne(x, 0.0)?, DType::F32);
        sum(&nonzero, Some(&dl), keepdim)?
    } else if p == 1.0 {
        sum(&abs()?, Some(&dl), keepdim)?
    } else if p == 2.0 {
        unary::sqrt(&sum(&mul(x, x)?, Some(&dl), keepdim)?)?
    } else {
        pow(&sum(&pow(&abs()?, p)?, Some(&dl), keepdim)?, 1.0 / p)?
    }))
}

/// PyTorch's logsumexp: m = amax, an infinite m shifts by 0 instead (an all -inf run gives
/// log 0 = -inf, a run with +inf gives inf, NaN propagates), then log(sum(exp(x - m))) + m.
fn logsumexp_gpu(x: &Tensor, rd: &[usize], keepdim: bool) -> Result<Option<Tensor>> {
    if !gpu_f32(x) || x.numel() == 0 {
        return Ok(None);
    }
    let _no_grad = crate::autograd::GradModeGuard::new(false);
    let shape = x.shape();
    let m = kernels::reduce(ReduceOp::Max, x, rd, true);
    let infinite = eq(&unary::abs(&m)?, f64::INFINITY)?;
    let m = where_(&infinite, 0, &m)?;
    let e = unary::exp(&sub(x, &m)?)?;
    let s = sum(&e, Some(&sizes_i64(rd)), keepdim)?;
    let m = if keepdim {
        m
    } else {
        reshape(&m, &sizes_i64(&reduced_shape(&shape, rd, false)))?
    };
    Ok(Some(add(&unary::log(&s)?, &m)?))
}
