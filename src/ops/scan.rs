//! Scans: cumsum and cumprod along a dim, with their backward and forward-mode formulas.

use crate::autograd::needs_grad;
use crate::autograd::saved::Value;
use crate::autograd::{record_formula_jvp, Jvp, SavedTensor};
use crate::dtype::{DType, Scalar};
use crate::error::Result;
use crate::kernels::{self, ScanOp};
use crate::ops::arithmetic::{div, mul};
use crate::ops::compare::eq;
use crate::ops::creation::contiguous_clone;
use crate::ops::creation::{cast_data, narrow, wide};
use crate::ops::movement::expand;
use crate::ops::reduce::{prod, sum};
use crate::ops::where_::where_;
use crate::tensor::shape::{sizes_i64, wrap_dim};
use crate::tensor::Tensor;

/// `x.cumsum(dim)`: CumsumBackward0 is a reversed cumsum of the gradient.
pub fn cumsum(x: &Tensor, dim: i64) -> Result<Tensor> {
    let d = wrap_dim(dim, x.dim())?;
    let x = if x.dtype().is_floating_point() {
        x.clone()
    } else {
        cast_data(x, DType::I64)
    };
    // float16 accumulates in float32 (Note [Narrow dtypes]).
    let xw = wide(&x);
    let out = kernels::scan(ScanOp::Sum, &xw, d, scan_acc(x.dtype()));
    let out = narrow(out, x.dtype());
    if !needs_grad(&[&x]) {
        return Ok(out);
    }
    let out = record_formula_jvp(
        out,
        &[&x],
        "CumsumBackward0",
        vec![],
        move |g, _| Ok(vec![Some(reverse_cumsum(g, d)?)]),
        Jvp::linear(move |t| cumsum(t, d as i64)),
    );
    crate::autograd::formula::describe(&out, &[], vec![("dim", Value::Int(dim))]);
    Ok(out)
}

/// `logcumsumexp`'s values along the wrapped dim `d` of a floating tensor, in ATen's CPU order
/// (Note [Logcumsumexp order]); no history: `gradrs.logcumsumexp` records
/// LogcumsumexpBackward0. float16 / bfloat16 run in float32 and round back, as ATen's.
pub fn logcumsumexp_values(x: &Tensor, d: usize) -> Result<Tensor> {
    if !x.dtype().is_floating_point() {
        return Err(crate::error::Error::Runtime(format!(
            "logcumsumexp: expected a floating tensor, got {:?}",
            x.dtype()
        )));
    }
    if x.dim() > 0 && d >= x.dim() {
        return Err(crate::error::Error::Runtime(format!(
            "logcumsumexp: dim {d} out of range for a tensor of {} dims",
            x.dim()
        )));
    }
    let out = kernels::logcumsumexp(&wide(x), d, scan_acc(x.dtype()));
    Ok(narrow(out, x.dtype()))
}

/// The dtype a scan of `dtype` keeps its running value in (Note [Scan accumulation]).
fn scan_acc(dtype: DType) -> DType {
    if dtype == DType::F32 {
        DType::F64
    } else {
        dtype.compute()
    }
}

fn reverse_cumsum(g: &Tensor, d: usize) -> Result<Tensor> {
    let f = crate::ops::shape::flip(g, &[d as i64])?;
    crate::ops::shape::flip(&cumsum(&f, d as i64)?, &[d as i64])
}

/// The gradient of cumprod along `d` with zeros in `x`, in tensor ops (PyTorch's O(n²) path
/// under grad mode): grad_k = sum_{j >= k} g_j * prod_{i <= j, i != k} x_i, the omitted
/// products built from a prod of x[..k] and a cumprod of x[k+1..].
fn cumprod_backward_differentiable(g: &Tensor, x: &Tensor, d: usize) -> Result<Tensor> {
    use crate::ops::slicing::slice;
    let n = x.shape()[d] as i64;
    let di = d as i64;
    let mut ones_shape = x.shape();
    ones_shape[d] = 1;
    let ones = Tensor::full_on(&ones_shape, Scalar::Int(1), g.dtype(), g.device());
    let mut parts = Vec::with_capacity(n as usize);
    for k in 0..n {
        let omitted = if k == 0 {
            let from = cumprod(&slice(x, di, Some(1), None, 1)?, di)?;
            crate::ops::shape::cat(&[ones.clone(), from], di)?
        } else {
            let until = prod(&slice(x, di, Some(0), Some(k), 1)?, Some(di), true)?;
            if k == n - 1 {
                until
            } else {
                let from = cumprod(&slice(x, di, Some(k + 1), None, 1)?, di)?;
                let rest = mul(&expand(&until, &sizes_i64(&from.shape()))?, &from)?;
                crate::ops::shape::cat(&[until, rest], di)?
            }
        };
        let gk = mul(&slice(g, di, Some(k), None, 1)?, &omitted)?;
        parts.push(sum(&gk, Some(&[di]), false)?);
    }
    crate::ops::shape::stack(&parts, di)
}

/// `x.cumprod(dim)`: CumprodBackward0.
pub fn cumprod(x: &Tensor, dim: i64) -> Result<Tensor> {
    let d = wrap_dim(dim, x.dim())?;
    let x = if x.dtype().is_floating_point() {
        x.clone()
    } else {
        cast_data(x, DType::I64)
    };
    let xw = wide(&x);
    let out = kernels::scan(ScanOp::Prod, &xw, d, scan_acc(x.dtype()));
    let out = narrow(out, x.dtype());
    if !needs_grad(&[&x]) {
        return Ok(out);
    }
    let saved = vec![SavedTensor::input(&x)?, SavedTensor::output(&out, 0)?];
    let out = record_formula_jvp(
        out,
        &[&x],
        "CumprodBackward0",
        saved,
        move |g, s| {
            let (x, out) = (&s[0], &s[1]);
            // As PyTorch's cumprod_backward: the gradient itself when nothing is multiplied.
            if x.numel() <= 1 || x.shape()[d] == 1 {
                return Ok(vec![Some(g.clone())]);
            }
            if !x.to_f64_vec().contains(&0.0) {
                return Ok(vec![Some(div(&reverse_cumsum(&mul(out, g)?, d)?, x)?)]);
            }
            if crate::autograd::is_grad_enabled() {
                return Ok(vec![Some(cumprod_backward_differentiable(g, x, d)?)]);
            }
            // Zeros present, first derivative only (no graph needed): the same sum, per line.
            let xs = contiguous_clone(&crate::ops::movement::transpose(&x.detach(), d as i64, -1)?);
            let gs = contiguous_clone(&crate::ops::movement::transpose(&g.detach(), d as i64, -1)?);
            let n = xs.shape().last().copied().unwrap_or(1);
            let (xv, gv) = (xs.to_f64_vec(), gs.to_f64_vec());
            let mut out = vec![0f64; xv.len()];
            for ((xr, gr), o) in xv
                .chunks(n.max(1))
                .zip(gv.chunks(n.max(1)))
                .zip(out.chunks_mut(n.max(1)))
            {
                for i in 0..xr.len() {
                    let mut acc = 0.0;
                    let mut prod_before: f64 = xr[..i].iter().product();
                    for j in i..xr.len() {
                        if j > i {
                            prod_before *= xr[j];
                        }
                        acc += gr[j] * prod_before;
                    }
                    o[i] = acc;
                }
            }
            let t = cast_data(
                &Tensor::from_vec_on(out, &xs.shape(), x.device()),
                x.dtype(),
            );
            let t = contiguous_clone(&crate::ops::movement::transpose(&t, d as i64, -1)?);
            Ok(vec![Some(t)])
        },
        Jvp::of(move |t, s| {
            Ok(vec![t[0]
                .as_ref()
                .map(|t| cumprod_jvp(t, &s[0], &s[1], d))
                .transpose()?])
        }),
    );
    crate::autograd::formula::describe(&out, &["self", "result"], vec![("dim", Value::Int(dim))]);
    Ok(out)
}

/// cumprod's tangent: sum over i of t_i times d out / d x_i, which is the cumprod of x with
/// x_i replaced by 1 at positions k >= i (0 before); without zeros, cumsum(t / x) * out.
fn cumprod_jvp(t: &Tensor, x: &Tensor, out: &Tensor, d: usize) -> Result<Tensor> {
    if x.numel() == 0 {
        return Ok(t.clone());
    }
    if !x.to_f64_vec().contains(&0.0) {
        return mul(&cumsum(&div(t, x)?, d as i64)?, out);
    }
    let n = x.shape()[d];
    let mut shape = vec![1usize; x.dim()];
    shape[d] = n;
    let pos: Vec<i64> = (0..n as i64).collect();
    let pos = crate::ops::movement::reshape(
        &Tensor::from_vec_on(pos, &[n], x.device()),
        &sizes_i64(&shape),
    )?;
    let mut total: Option<Tensor> = None;
    for i in 0..n as i64 {
        let at_i = eq(&pos, i as f64)?;
        let replaced = where_(&at_i, 1.0, x)?;
        let partial = cumprod(&replaced, d as i64)?;
        let ti = crate::ops::slicing::slice(t, d as i64, Some(i), Some(i + 1), 1)?;
        let after = crate::ops::compare::ge(&pos, i as f64)?;
        let term = mul(&mul(&partial, &ti)?, &after)?;
        total = Some(match total {
            None => term,
            Some(acc) => crate::ops::arithmetic::add(&acc, term)?,
        });
    }
    Ok(total.expect("n > 0"))
}
