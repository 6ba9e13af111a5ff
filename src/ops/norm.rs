//! Normalization layers as native ops with one graph node each, as PyTorch's:
//! `native_batch_norm` (NativeBatchNormBackward0).
//!
//! The forward runs ATen's CPU kernels on the host (`kernels::norm`, bit-equal to PyTorch's in
//! float32 / float64) and, for a tensor on the GPU, the same arithmetic composed from the
//! primitive set, so the values never leave the device. The backward is ATen's
//! `batch_norm_backward_cpu` formulas written in tensor ops (the one backward style): under
//! `create_graph` they record their own nodes, so higher derivatives come with them. A fused
//! backward kernel would need a second formula for its own backward (PyTorch's
//! `batchnorm_double_backward`); the composed one is its own. In training the saved mean and
//! inverse deviation are constants of the forward, so under `create_graph` the formula
//! recomputes them from the input with differentiable ops: their dependence on the input is
//! part of the second derivative.

use crate::autograd::formula::describe;
use crate::autograd::saved::Value;
use crate::autograd::{grad_mode, needs_grad, record_formula, SavedTensor};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels;
use crate::ops::arithmetic::{add, div, mul, sub};
use crate::ops::creation::to_dtype;
use crate::ops::movement::reshape;
use crate::ops::reduce::{mean as mean_op, sum};
use crate::ops::statistics::var;
use crate::ops::unary::{reciprocal, sqrt};
use crate::tensor::shape::wrap_dim;
use crate::tensor::Tensor;

/// The dims a batch norm reduces over (all but dim 1) and the shape that broadcasts a
/// per-channel vector against the input.
fn channel_dims(nd: usize, c: usize) -> (Vec<i64>, Vec<i64>) {
    let dims = std::iter::once(0).chain(2..nd as i64).collect();
    let mut shape = vec![1i64; nd];
    shape[1] = c as i64;
    (dims, shape)
}

/// `1 / sqrt(v + eps)` in tensor ops.
fn inv_std(v: &Tensor, eps: f64) -> Result<Tensor> {
    reciprocal(&sqrt(&add(v, eps)?)?)
}

/// PyTorch's `_batch_norm_impl_index` checks: each given vector holds C elements, and
/// evaluation has running statistics.
fn check_batch_norm(
    x: &Tensor,
    vectors: [(&str, Option<&Tensor>); 4],
    training: bool,
) -> Result<usize> {
    if !x.dtype().is_floating_point() {
        return Err(Error::NotImplemented(format!(
            "\"batch_norm\" not implemented for '{}'",
            crate::dtype::pretty_kernel_name(x.dtype())
        )));
    }
    wrap_dim(1, x.dim())?;
    let c = x.shape()[1];
    for (name, t) in vectors {
        match t {
            Some(t) if t.numel() != c => {
                return Err(Error::Runtime(format!(
                    "{name} should contain {c} elements not {}",
                    t.numel()
                )))
            }
            None if !training && name.starts_with("running") => {
                return Err(Error::Runtime(format!(
                    "{name} must be defined in evaluation mode"
                )))
            }
            _ => {}
        }
    }
    Ok(c)
}

/// `native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum,
/// eps)` -> `(output, save_mean, save_invstd)` over `[N, C, *]`, one NativeBatchNormBackward0.
/// Training normalizes with the batch's statistics and writes the running statistics' update
/// into `running_mean` / `running_var` (unbiased variance, `momentum` as PyTorch's); evaluation
/// normalizes with the running statistics and returns empty `save_*` tensors.
#[allow(clippy::too_many_arguments)]
pub fn native_batch_norm(
    x: &Tensor,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    running_mean: Option<&Tensor>,
    running_var: Option<&Tensor>,
    training: bool,
    momentum: f64,
    eps: f64,
) -> Result<(Tensor, Tensor, Tensor)> {
    let c = check_batch_norm(
        x,
        [
            ("running_mean", running_mean),
            ("running_var", running_var),
            ("weight", weight),
            ("bias", bias),
        ],
        training,
    )?;
    let dtype = x.dtype();
    let cd = dtype.compute();
    // A float16 input with float32 parameters keeps float32 statistics, as ATen's mixed type.
    let stat_dtype = [weight, running_mean]
        .into_iter()
        .flatten()
        .map(|t| t.dtype())
        .find(|&d| dtype.is_half() && d == DType::F32)
        .unwrap_or(dtype);
    let (out, mean, invstd) = {
        let _g = grad_mode::GradModeGuard::new(false);
        let at = |t: Option<&Tensor>| t.map(|t| to_dtype(&t.detach(), cd)).transpose();
        let xw = to_dtype(&x.detach(), cd)?;
        let (w, b, rm, rv) = (at(weight)?, at(bias)?, at(running_mean)?, at(running_var)?);
        let r = match kernels::norm::batch_norm(
            &xw,
            w.as_ref(),
            b.as_ref(),
            rm.as_ref(),
            rv.as_ref(),
            training,
            momentum,
            eps,
        ) {
            Some(r) => r,
            None => batch_norm_composed(
                &xw,
                w.as_ref(),
                b.as_ref(),
                rm.as_ref(),
                rv.as_ref(),
                training,
                momentum,
                eps,
            )?,
        };
        // ATen's kernel writes the running statistics without counting a version: a module
        // run twice before backward keeps the first node's saved statistics valid.
        if let (Some(dst), Some(v)) = (running_mean, &r.running_mean) {
            crate::kernels::write_into(dst, v)?;
        }
        if let (Some(dst), Some(v)) = (running_var, &r.running_var) {
            crate::kernels::write_into(dst, v)?;
        }
        let empty = || Tensor::zeros_on(&[0], stat_dtype, x.device());
        let stat = |t: Option<Tensor>| t.map_or_else(|| Ok(empty()), |t| to_dtype(&t, stat_dtype));
        (to_dtype(&r.out, dtype)?, stat(r.mean)?, stat(r.invstd)?)
    };
    let absent = || Tensor::zeros_on(&[0], dtype, x.device());
    let (w_in, b_in) = (
        weight.cloned().unwrap_or_else(absent),
        bias.cloned().unwrap_or_else(absent),
    );
    if !needs_grad(&[x, &w_in, &b_in]) {
        return Ok((out, mean, invstd));
    }
    let want = [
        x.requires_grad(),
        w_in.requires_grad(),
        b_in.requires_grad(),
    ];
    let has_w = weight.is_some();
    let saved_or = |t: Option<&Tensor>| match t {
        Some(t) => SavedTensor::input(t),
        None => Ok(SavedTensor::input_unhooked(&absent())),
    };
    let saved = vec![
        SavedTensor::input(x)?,
        saved_or(weight)?,
        saved_or(running_mean)?,
        saved_or(running_var)?,
        SavedTensor::input(&mean)?,
        SavedTensor::input(&invstd)?,
    ];
    let nd = x.dim();
    let out = record_formula(
        out,
        &[x, &w_in, &b_in],
        "NativeBatchNormBackward0",
        saved,
        move |g, s| {
            let (x, w) = (&s[0], has_w.then(|| &s[1]));
            let (rm, rv, smean, sinv) = (&s[2], &s[3], &s[4], &s[5]);
            let grads =
                batch_norm_backward(g, x, w, rm, rv, smean, sinv, training, eps, nd, c, want)?;
            Ok(grads.into())
        },
    );
    let present = [has_w, running_mean.is_some(), running_var.is_some()];
    let mut values = vec![
        ("training", Value::Bool(training)),
        ("eps", Value::Float(eps)),
    ];
    for (name, here) in ["weight", "running_mean", "running_var"]
        .into_iter()
        .zip(present)
    {
        if !here {
            values.push((name, Value::None));
        }
    }
    describe(&out, batch_norm_names(present), values);
    Ok((out, mean, invstd))
}

/// The GPU's batch norm: the host kernel's arithmetic (`x * alpha + beta`) in tensor ops of
/// the primitive set, so the values stay on the device.
#[allow(clippy::too_many_arguments)]
fn batch_norm_composed(
    x: &Tensor,
    w: Option<&Tensor>,
    b: Option<&Tensor>,
    rm: Option<&Tensor>,
    rv: Option<&Tensor>,
    training: bool,
    momentum: f64,
    eps: f64,
) -> Result<kernels::norm::BatchNorm> {
    let (nd, c) = (x.dim(), x.shape()[1]);
    let (dims, shape) = channel_dims(nd, c);
    let need = || Error::Runtime("running_mean must be defined in evaluation mode".into());
    let (mean, invstd, new_rm, new_rv) = if training {
        let n = (x.numel() / c.max(1)) as f64;
        let mean = mean_op(x, Some(&dims), false)?;
        let v = var(x, Some(&dims), Some(0.0), false, false)?;
        let invstd = inv_std(&v, eps)?;
        let blend = |stat: &Tensor, run: Option<&Tensor>| {
            run.map(|r| add(&mul(stat, momentum)?, &mul(r, 1.0 - momentum)?))
                .transpose()
        };
        let unbiased = mul(&v, n / (n - 1.0))?;
        (
            mean.clone(),
            invstd,
            blend(&mean, rm)?,
            blend(&unbiased, rv)?,
        )
    } else {
        let (rm, rv) = (rm.ok_or_else(need)?, rv.ok_or_else(need)?);
        (rm.clone(), inv_std(rv, eps)?, None, None)
    };
    let alpha = match w {
        Some(w) => mul(&invstd, w)?,
        None => invstd.clone(),
    };
    let ma = mul(&mean, &alpha)?;
    let beta = match b {
        Some(b) => sub(b, &ma)?,
        None => mul(&ma, -1.0)?,
    };
    let out = add(
        &mul(x, &reshape(&alpha, &shape)?)?,
        &reshape(&beta, &shape)?,
    )?;
    Ok(kernels::norm::BatchNorm {
        out,
        mean: training.then_some(mean),
        invstd: training.then_some(invstd),
        running_mean: new_rm,
        running_var: new_rv,
    })
}

/// ATen's `batch_norm_backward_cpu` in tensor ops: with `sum = Σ g` and `dotp = Σ (x - mean) g`
/// over all but dim 1, `grad_input = (g - sum / N - (x - mean) dotp invstd² / N) invstd w` in
/// training (`g invstd w` in evaluation), `grad_weight = dotp invstd`, `grad_bias = sum`.
#[allow(clippy::too_many_arguments)]
fn batch_norm_backward(
    g: &Tensor,
    x: &Tensor,
    w: Option<&Tensor>,
    rm: &Tensor,
    rv: &Tensor,
    save_mean: &Tensor,
    save_invstd: &Tensor,
    training: bool,
    eps: f64,
    nd: usize,
    c: usize,
    want: [bool; 3],
) -> Result<[Option<Tensor>; 3]> {
    let (dims, shape) = channel_dims(nd, c);
    let cd = x.dtype().compute();
    let (g, x) = (&to_dtype(g, cd)?, &to_dtype(x, cd)?);
    let w = w.map(|w| to_dtype(w, cd)).transpose()?;
    let (mean, invstd) = if training {
        if grad_mode::is_grad_enabled() && x.requires_grad() {
            // create_graph: the statistics as functions of the input (module comment).
            let v = var(x, Some(&dims), Some(0.0), false, false)?;
            (mean_op(x, Some(&dims), false)?, inv_std(&v, eps)?)
        } else {
            (to_dtype(save_mean, cd)?, to_dtype(save_invstd, cd)?)
        }
    } else {
        (to_dtype(rm, cd)?, inv_std(&to_dtype(rv, cd)?, eps)?)
    };
    let view = |t: &Tensor| reshape(t, &shape);
    let gsum = sum(g, Some(&dims), false)?;
    let xmu = sub(x, &view(&mean)?)?;
    let dotp = if (training && want[0]) || want[1] {
        Some(sum(&mul(&xmu, g)?, Some(&dims), false)?)
    } else {
        None
    };
    let scale = match &w {
        Some(w) => mul(&invstd, w)?,
        None => invstd.clone(),
    };
    let gx = if want[0] {
        Some(if training {
            let n = (x.numel() / c.max(1)) as f64;
            let dotp = dotp.as_ref().expect("computed for grad_input");
            let k = div(&mul(&mul(dotp, &invstd)?, &invstd)?, n)?;
            let centered = sub(&sub(g, &view(&div(&gsum, n)?)?)?, &mul(&xmu, &view(&k)?)?)?;
            mul(&centered, &view(&scale)?)?
        } else {
            mul(g, &view(&scale)?)?
        })
    } else {
        None
    };
    let gw = match (want[1], &dotp) {
        (true, Some(d)) => Some(mul(d, &invstd)?),
        _ => None,
    };
    let gb = want[2].then_some(gsum);
    Ok([gx, gw, gb])
}

/// PyTorch's `_saved_<name>`s of the tensors NativeBatchNormBackward0 saves (input, weight,
/// running_mean, running_var, result1, result2): an absent one's placeholder unnamed (its
/// `_saved_<name>` is None, given as a value).
fn batch_norm_names(present: [bool; 3]) -> &'static [&'static str] {
    const I: &str = "input";
    const R1: &str = "result1";
    const R2: &str = "result2";
    match present {
        [true, true, true] => &[I, "weight", "running_mean", "running_var", R1, R2],
        [true, true, false] => &[I, "weight", "running_mean", "", R1, R2],
        [true, false, true] => &[I, "weight", "", "running_var", R1, R2],
        [true, false, false] => &[I, "weight", "", "", R1, R2],
        [false, true, true] => &[I, "", "running_mean", "running_var", R1, R2],
        [false, true, false] => &[I, "", "running_mean", "", R1, R2],
        [false, false, true] => &[I, "", "", "running_var", R1, R2],
        [false, false, false] => &[I, "", "", "", R1, R2],
    }
}

/// `native_layer_norm(input, normalized_shape, weight, bias, eps)` -> `(output, mean, rstd)`:
/// each row of the trailing `normalized_shape` normalized with its own moments, one
/// NativeLayerNormBackward0. `mean` / `rstd` have the input's leading sizes and a size 1 for
/// each normalized dim, as PyTorch's.
pub fn native_layer_norm(
    x: &Tensor,
    normalized_shape: &[usize],
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    eps: f64,
) -> Result<(Tensor, Tensor, Tensor)> {
    let shape = x.shape();
    let (nd, k) = (shape.len(), normalized_shape.len());
    let list = |s: &[usize]| {
        let v: Vec<String> = s.iter().map(|d| d.to_string()).collect();
        format!("[{}]", v.join(", "))
    };
    if k == 0 {
        return Err(Error::Runtime(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got normalized_shape = []".into(),
        ));
    }
    for (name, t) in [("weight", weight), ("bias", bias)] {
        if let Some(t) = t {
            if t.shape().as_slice() != normalized_shape {
                return Err(Error::Runtime(format!(
                    "Expected {name} to be of same shape as normalized_shape, but got {name} of shape {} and normalized_shape = {}",
                    list(&t.shape()),
                    list(normalized_shape)
                )));
            }
        }
    }
    if nd < k || shape[nd - k..] != *normalized_shape {
        return Err(Error::Runtime(format!(
            "Given normalized_shape={}, expected input with shape [*, {}], but got input of size{}",
            list(normalized_shape),
            normalized_shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            list(&shape)
        )));
    }
    let dtype = x.dtype();
    if !dtype.is_floating_point() {
        return Err(Error::NotImplemented(format!(
            "\"LayerNormKernelImpl\" not implemented for '{}'",
            crate::dtype::pretty_kernel_name(dtype)
        )));
    }
    let axis = nd - k;
    let n: usize = normalized_shape.iter().product();
    let mut stat_shape: Vec<i64> = shape[..axis].iter().map(|&d| d as i64).collect();
    stat_shape.extend(std::iter::repeat_n(1, k));
    let stat_dtype = weight
        .map(|t| t.dtype())
        .filter(|&d| dtype.is_half() && d == DType::F32)
        .unwrap_or(dtype);
    let cd = dtype.compute();
    let (out, mean, rstd) = {
        let _g = grad_mode::GradModeGuard::new(false);
        let at = |t: Option<&Tensor>| t.map(|t| to_dtype(&t.detach(), cd)).transpose();
        let xw = to_dtype(&x.detach(), cd)?;
        let (w, b) = (at(weight)?, at(bias)?);
        let (out, mean, rstd) = match kernels::norm::layer_norm(&xw, n, w.as_ref(), b.as_ref(), eps)
        {
            Some(r) => r,
            None => layer_norm_composed(&xw, axis, w.as_ref(), b.as_ref(), eps)?,
        };
        let stat = |t: &Tensor| to_dtype(&reshape(t, &stat_shape)?, stat_dtype);
        (to_dtype(&out, dtype)?, stat(&mean)?, stat(&rstd)?)
    };
    let absent = || Tensor::zeros_on(&[0], dtype, x.device());
    let (w_in, b_in) = (
        weight.cloned().unwrap_or_else(absent),
        bias.cloned().unwrap_or_else(absent),
    );
    if !needs_grad(&[x, &w_in, &b_in]) {
        return Ok((out, mean, rstd));
    }
    let want = [
        x.requires_grad(),
        w_in.requires_grad(),
        b_in.requires_grad(),
    ];
    let has_w = weight.is_some();
    let saved_or = |t: Option<&Tensor>| match t {
        Some(t) => SavedTensor::input(t),
        None => Ok(SavedTensor::input_unhooked(&absent())),
    };
    let saved = vec![
        SavedTensor::input(x)?,
        saved_or(weight)?,
        saved_or(bias)?,
        SavedTensor::input(&mean)?,
        SavedTensor::input(&rstd)?,
    ];
    let out = record_formula(
        out,
        &[x, &w_in, &b_in],
        "NativeLayerNormBackward0",
        saved,
        move |g, s| {
            let w = has_w.then(|| &s[1]);
            Ok(layer_norm_backward(g, &s[0], w, &s[3], &s[4], axis, eps, want)?.into())
        },
    );
    let present = [has_w, bias.is_some()];
    let mut values = vec![(
        "normalized_shape",
        Value::Ints(normalized_shape.iter().map(|&d| d as i64).collect()),
    )];
    for (name, here) in ["weight", "bias"].into_iter().zip(present) {
        if !here {
            values.push((name, Value::None));
        }
    }
    let names: &'static [&'static str] = match present {
        [true, true] => &["input", "weight", "bias", "result1", "result2"],
        [true, false] => &["input", "weight", "", "result1", "result2"],
        [false, true] => &["input", "", "bias", "result1", "result2"],
        [false, false] => &["input", "", "", "result1", "result2"],
    };
    describe(&out, names, values);
    Ok((out, mean, rstd))
}

/// The GPU's layer norm: `(x - mean) * rstd * w + b` in tensor ops over the normalized dims.
fn layer_norm_composed(
    x: &Tensor,
    axis: usize,
    w: Option<&Tensor>,
    b: Option<&Tensor>,
    eps: f64,
) -> Result<(Tensor, Tensor, Tensor)> {
    let dims: Vec<i64> = (axis as i64..x.dim() as i64).collect();
    let mean = mean_op(x, Some(&dims), true)?;
    let rstd = inv_std(&var(x, Some(&dims), Some(0.0), true, false)?, eps)?;
    let mut out = mul(&sub(x, &mean)?, &rstd)?;
    if let Some(w) = w {
        out = mul(&out, w)?;
    }
    if let Some(b) = b {
        out = add(&out, b)?;
    }
    Ok((out, mean, rstd))
}

/// ATen's layer norm backward in tensor ops: with `xhat = (x - mean) rstd` and `dyg = g w`,
/// `grad_input = rstd (dyg - mean(dyg) - xhat mean(dyg xhat))` over the normalized dims,
/// `grad_weight = Σ g xhat`, `grad_bias = Σ g` over the leading ones. Under `create_graph`
/// the moments are recomputed from the input (module comment).
#[allow(clippy::too_many_arguments)]
fn layer_norm_backward(
    g: &Tensor,
    x: &Tensor,
    w: Option<&Tensor>,
    save_mean: &Tensor,
    save_rstd: &Tensor,
    axis: usize,
    eps: f64,
    want: [bool; 3],
) -> Result<[Option<Tensor>; 3]> {
    let nd = x.dim();
    let norm_dims: Vec<i64> = (axis as i64..nd as i64).collect();
    let lead: Vec<i64> = (0..axis as i64).collect();
    let cd = x.dtype().compute();
    let (g, x) = (&to_dtype(g, cd)?, &to_dtype(x, cd)?);
    if !grad_mode::is_grad_enabled() {
        // Nothing to differentiate again: ATen's host kernel, one pass over each row.
        let w = w.map(|w| to_dtype(w, cd)).transpose()?;
        let (m, r) = (to_dtype(save_mean, cd)?, to_dtype(save_rstd, cd)?);
        if let Some(grads) =
            kernels::norm::layer_norm_backward(g, x, w.as_ref(), &m, &r, nd - axis, want)?
        {
            return Ok(grads);
        }
    }
    let (mean, rstd) = if grad_mode::is_grad_enabled() && x.requires_grad() {
        let v = var(x, Some(&norm_dims), Some(0.0), true, false)?;
        (mean_op(x, Some(&norm_dims), true)?, inv_std(&v, eps)?)
    } else {
        (to_dtype(save_mean, cd)?, to_dtype(save_rstd, cd)?)
    };
    let xhat = mul(&sub(x, &mean)?, &rstd)?;
    // Over the leading dims; none (a whole-tensor norm) leaves the values as they are.
    let lead_sum = |t: Tensor| {
        if lead.is_empty() {
            Ok(t)
        } else {
            sum(&t, Some(&lead), false)
        }
    };
    let gw = if want[1] {
        Some(lead_sum(mul(g, &xhat)?)?)
    } else {
        None
    };
    let gb = if want[2] {
        Some(lead_sum(g.clone())?)
    } else {
        None
    };
    let gx = if want[0] {
        let w = w.map(|w| to_dtype(w, cd)).transpose()?;
        let dyg = match &w {
            Some(w) => mul(g, w)?,
            None => g.clone(),
        };
        let m1 = mean_op(&dyg, Some(&norm_dims), true)?;
        let m2 = mean_op(&mul(&dyg, &xhat)?, Some(&norm_dims), true)?;
        Some(mul(&sub(&sub(&dyg, &m1)?, &mul(&xhat, &m2)?)?, &rstd)?)
    } else {
        None
    };
    Ok([gx, gw, gb])
}
