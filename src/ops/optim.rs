//! Optimizer steps over every parameter of a group in one call (PyTorch's `foreach` / `fused`
//! idea): `gradrs.optim`'s Adam, AdamW and SGD hand their lists here instead of running a
//! Python loop of small in-place ops per parameter. The update is PyTorch's single-tensor one,
//! same operations in the same order. CPU float32 / float64 parameters run the fused
//! per-element kernels of `kernels::optim` (which also reproduce ATen's fused
//! multiply-adds, so the bits equal PyTorch's); anything else (GPU tensors, float16, operands
//! of different dtypes, state tensors sharing memory) runs the same update composed of the
//! existing tensor ops, which is what the Python loop did, on whatever device the tensors are.
//! These are not differentiable: the optimizer keeps its Python loop for `differentiable=True`.

use crate::autograd::GradModeGuard;
use crate::dtype::{DType, Scalar};
use crate::error::{Error, Result};
use crate::kernels;
use crate::kernels::optim::{AdamScalars, Real, SgdScalars};
use crate::ops::arithmetic::{add_scaled, binary, BinaryOp};
use crate::ops::compare::maximum;
use crate::ops::creation::{clone, contiguous_clone};
use crate::ops::inplace::{binary_, check_inplace_leaf, write_into};
use crate::ops::pointwise::{addcdiv, addcmul, lerp};
use crate::ops::unary::{unary, UnaryOp};
use crate::ops::Operand;
use crate::tensor::{Element, Tensor};

/// The hyperparameters of one Adam / AdamW group (numbers, not tensors).
#[derive(Clone, Copy, Debug)]
pub struct AdamOptions {
    pub lr: f64,
    pub beta1: f64,
    pub beta2: f64,
    pub weight_decay: f64,
    pub eps: f64,
    pub amsgrad: bool,
    pub maximize: bool,
    /// AdamW's decoupled weight decay (`param.mul_(1 - lr * weight_decay)`).
    pub decoupled: bool,
}

/// The hyperparameters of one SGD group.
#[derive(Clone, Copy, Debug)]
pub struct SgdOptions {
    pub lr: f64,
    pub momentum: f64,
    pub dampening: f64,
    pub weight_decay: f64,
    pub nesterov: bool,
    pub maximize: bool,
}

/// Python's `base ** exponent` for floats: the C library's `pow`, called (the exponent hidden
/// from the optimizer, which would turn `x ** 0.5` into a `sqrt` that can differ in the last
/// bit).
fn py_pow(base: f64, exponent: f64) -> f64 {
    base.powf(std::hint::black_box(exponent))
}

/// One Adam step of every parameter: `step += 1`, then the update, as `_single_tensor_adam`
/// with `capturable=False, differentiable=False`. `max_exp_avg_sqs` is read only with amsgrad.
pub fn adam_(
    params: &[Tensor],
    grads: &[Tensor],
    exp_avgs: &[Tensor],
    exp_avg_sqs: &[Tensor],
    max_exp_avg_sqs: &[Tensor],
    steps: &[Tensor],
    o: &AdamOptions,
) -> Result<()> {
    let n = params.len();
    same_lengths(
        "_fused_adam_",
        n,
        &[grads.len(), exp_avgs.len(), exp_avg_sqs.len(), steps.len()],
    )?;
    if o.amsgrad {
        same_lengths("_fused_adam_", n, &[max_exp_avg_sqs.len()])?;
    }
    for t in params
        .iter()
        .chain(exp_avgs)
        .chain(exp_avg_sqs)
        .chain(steps)
    {
        check_inplace_leaf(t)?;
    }
    let _g = GradModeGuard::new(false);
    for i in 0..n {
        let (p, g, m, v) = (&params[i], &grads[i], &exp_avgs[i], &exp_avg_sqs[i]);
        let x = o.amsgrad.then(|| &max_exp_avg_sqs[i]);
        binary_(BinaryOp::Add, &steps[i], Operand::Scalar(Scalar::Int(1)))?;
        let step = steps[i].item()?.to_f64();
        // The scalars as Python computes them, in double precision.
        let bias_correction1 = 1.0 - py_pow(o.beta1, step);
        let bias_correction2 = 1.0 - py_pow(o.beta2, step);
        let step_size = o.lr / bias_correction1;
        let bias_correction2_sqrt = py_pow(bias_correction2, 0.5);
        let mut tensors = vec![p, g, m, v];
        tensors.extend(x);
        match kernels::optim::fused_dtype(
            &tensors,
            &[p, m, v].into_iter().chain(x).collect::<Vec<_>>(),
        ) {
            Some(DType::F32) => adam_one::<f32>(p, g, m, v, x, o, step_size, bias_correction2_sqrt),
            Some(_) => adam_one::<f64>(p, g, m, v, x, o, step_size, bias_correction2_sqrt),
            None => adam_composed(p, g, m, v, x, o, step_size, bias_correction2_sqrt)?,
        }
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn adam_one<T: Real + Element>(
    p: &Tensor,
    g: &Tensor,
    m: &Tensor,
    v: &Tensor,
    x: Option<&Tensor>,
    o: &AdamOptions,
    step_size: f64,
    bias_correction2_sqrt: f64,
) {
    let c = AdamScalars::<T> {
        maximize: o.maximize,
        l2: (o.weight_decay != 0.0 && !o.decoupled).then(|| T::of(o.weight_decay)),
        decay: (o.weight_decay != 0.0 && o.decoupled).then(|| T::of(1.0 - o.lr * o.weight_decay)),
        one_minus_beta1: T::of(1.0 - o.beta1),
        beta2: T::of(o.beta2),
        one_minus_beta2: T::of(1.0 - o.beta2),
        bias_correction2_sqrt: T::of(bias_correction2_sqrt),
        eps: T::of(o.eps),
        neg_step_size: T::of(-step_size),
    };
    let grad = contiguous_clone_if_needed(g, &[p, m, v]);
    kernels::optim::adam(p, &grad, m, v, x, &c);
}

/// The Adam update of one parameter in tensor ops (the Python loop's composition).
#[allow(clippy::too_many_arguments)]
fn adam_composed(
    p: &Tensor,
    g: &Tensor,
    m: &Tensor,
    v: &Tensor,
    x: Option<&Tensor>,
    o: &AdamOptions,
    step_size: f64,
    bias_correction2_sqrt: f64,
) -> Result<()> {
    let num = |v: f64| Operand::Scalar(Scalar::Float(v));
    let mut grad = if o.maximize {
        unary(UnaryOp::Neg, g)?
    } else {
        g.clone()
    };
    if o.weight_decay != 0.0 {
        if o.decoupled {
            binary_(BinaryOp::Mul, p, num(1.0 - o.lr * o.weight_decay))?;
        } else {
            grad = add_scaled(
                &grad,
                Operand::Tensor(p.clone()),
                Scalar::Float(o.weight_decay),
                false,
            )?;
        }
    }
    write_into(m, &lerp(m, &grad, num(1.0 - o.beta1))?)?;
    binary_(BinaryOp::Mul, v, num(o.beta2))?;
    write_into(v, &addcmul(v, &grad, &grad, Scalar::Float(1.0 - o.beta2))?)?;
    let second = match x {
        Some(x) => {
            write_into(x, &maximum(x, v)?)?;
            x
        }
        None => v,
    };
    let root = unary(UnaryOp::Sqrt, second)?;
    let denom = binary(
        BinaryOp::Div,
        Operand::Tensor(root),
        num(bias_correction2_sqrt),
    )?;
    binary_(BinaryOp::Add, &denom, num(o.eps))?;
    write_into(p, &addcdiv(p, m, &denom, Scalar::Float(-step_size))?)
}

/// One SGD step of every parameter, as `_single_tensor_sgd`. `momentum_buffers[i]` is None
/// before the first step with momentum; returns the buffers after the step (a fresh one where
/// there was none, all None without momentum), for the optimizer's state.
pub fn sgd_(
    params: &[Tensor],
    grads: &[Tensor],
    momentum_buffers: &[Option<Tensor>],
    o: &SgdOptions,
) -> Result<Vec<Option<Tensor>>> {
    let n = params.len();
    same_lengths("_fused_sgd_", n, &[grads.len()])?;
    if o.momentum != 0.0 {
        same_lengths("_fused_sgd_", n, &[momentum_buffers.len()])?;
    }
    for t in params.iter().chain(momentum_buffers.iter().flatten()) {
        check_inplace_leaf(t)?;
    }
    let _g = GradModeGuard::new(false);
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let (p, g) = (&params[i], &grads[i]);
        let buf = if o.momentum != 0.0 {
            momentum_buffers[i].as_ref()
        } else {
            None
        };
        let mut tensors = vec![p, g];
        tensors.extend(buf);
        let written: Vec<&Tensor> = [p].into_iter().chain(buf).collect();
        let new_buf = match kernels::optim::fused_dtype(&tensors, &written) {
            Some(DType::F32) => sgd_one::<f32>(p, g, buf, o),
            Some(_) => sgd_one::<f64>(p, g, buf, o),
            None => sgd_composed(p, g, buf, o)?,
        };
        out.push(if o.momentum != 0.0 {
            new_buf.or(buf.cloned())
        } else {
            None
        });
    }
    Ok(out)
}

/// Returns the fresh momentum buffer, if the step made one.
fn sgd_one<T: Real + Element>(
    p: &Tensor,
    g: &Tensor,
    buf: Option<&Tensor>,
    o: &SgdOptions,
) -> Option<Tensor> {
    let c = SgdScalars::<T> {
        maximize: o.maximize,
        weight_decay: (o.weight_decay != 0.0).then(|| T::of(o.weight_decay)),
        momentum: (o.momentum != 0.0).then(|| T::of(o.momentum)),
        one_minus_dampening: T::of(1.0 - o.dampening),
        nesterov: o.nesterov,
        neg_lr: T::of(-o.lr),
    };
    let fresh = (o.momentum != 0.0 && buf.is_none())
        .then(|| Tensor::from_vec(vec![T::of(0.0); p.numel()], &p.shape()));
    let grad = contiguous_clone_if_needed(g, &[p].into_iter().chain(buf).collect::<Vec<_>>());
    kernels::optim::sgd(p, &grad, buf.or(fresh.as_ref()), fresh.is_some(), &c);
    fresh
}

/// The SGD update of one parameter in tensor ops; returns the fresh momentum buffer, if any.
fn sgd_composed(
    p: &Tensor,
    g: &Tensor,
    buf: Option<&Tensor>,
    o: &SgdOptions,
) -> Result<Option<Tensor>> {
    let mut grad = if o.maximize {
        unary(UnaryOp::Neg, g)?
    } else {
        g.clone()
    };
    if o.weight_decay != 0.0 {
        grad = add_scaled(
            &grad,
            Operand::Tensor(p.clone()),
            Scalar::Float(o.weight_decay),
            false,
        )?;
    }
    let mut fresh = None;
    if o.momentum != 0.0 {
        let b = match buf {
            None => {
                let b = clone(&grad.detach());
                fresh = Some(b.clone());
                b
            }
            Some(b) => {
                binary_(BinaryOp::Mul, b, Operand::Scalar(Scalar::Float(o.momentum)))?;
                let sum = add_scaled(
                    b,
                    Operand::Tensor(grad.clone()),
                    Scalar::Float(1.0 - o.dampening),
                    false,
                )?;
                write_into(b, &sum)?;
                b.clone()
            }
        };
        grad = if o.nesterov {
            add_scaled(&grad, Operand::Tensor(b), Scalar::Float(o.momentum), false)?
        } else {
            b
        };
    }
    write_into(
        p,
        &add_scaled(p, Operand::Tensor(grad), Scalar::Float(-o.lr), false)?,
    )?;
    Ok(fresh)
}

fn same_lengths(op: &str, n: usize, others: &[usize]) -> Result<()> {
    match others.iter().find(|&&k| k != n) {
        Some(k) => Err(Error::Runtime(format!(
            "{op}: expected lists of the same length as params ({n}), got one of {k}"
        ))),
        None => Ok(()),
    }
}

/// `g` itself when it is contiguous and shares no memory with the tensors the step writes,
/// else a contiguous copy (the step reads the values it had).
fn contiguous_clone_if_needed(g: &Tensor, written: &[&Tensor]) -> Tensor {
    let shared = written
        .iter()
        .any(|w| crate::ops::inplace::overlaps(&g.read().storage, &w.read().storage));
    if g.is_contiguous() && !shared {
        g.clone()
    } else {
        contiguous_clone(g)
    }
}
