//! Bindings of the optimizer steps over a whole parameter group (`ops::optim`), which
//! `gradrs.optim` calls instead of a Python loop per parameter. The work runs without the GIL.

use super::tensor::{wrap, PyTensor};
use crate::ops::optim::{self, AdamOptions, SgdOptions};
use crate::Tensor;
use pyo3::prelude::*;

fn tensors(list: Vec<PyRef<'_, PyTensor>>) -> Vec<Tensor> {
    list.iter().map(|t| t.t.clone()).collect()
}

/// `_fused_adam_(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, *, lr,
/// beta1, beta2, weight_decay, eps, amsgrad, maximize, decoupled_weight_decay)`: one Adam /
/// AdamW step of every parameter, in place (each `state_steps` tensor counts up by one first).
#[pyfunction]
#[pyo3(signature = (params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, *,
    lr, beta1, beta2, weight_decay, eps, amsgrad, maximize, decoupled_weight_decay))]
#[allow(clippy::too_many_arguments)]
fn _fused_adam_(
    py: Python<'_>,
    params: Vec<PyRef<'_, PyTensor>>,
    grads: Vec<PyRef<'_, PyTensor>>,
    exp_avgs: Vec<PyRef<'_, PyTensor>>,
    exp_avg_sqs: Vec<PyRef<'_, PyTensor>>,
    max_exp_avg_sqs: Vec<PyRef<'_, PyTensor>>,
    state_steps: Vec<PyRef<'_, PyTensor>>,
    lr: f64,
    beta1: f64,
    beta2: f64,
    weight_decay: f64,
    eps: f64,
    amsgrad: bool,
    maximize: bool,
    decoupled_weight_decay: bool,
) -> PyResult<()> {
    let lists = [
        params,
        grads,
        exp_avgs,
        exp_avg_sqs,
        max_exp_avg_sqs,
        state_steps,
    ]
    .map(tensors);
    let o = AdamOptions {
        lr,
        beta1,
        beta2,
        weight_decay,
        eps,
        amsgrad,
        maximize,
        decoupled: decoupled_weight_decay,
    };
    let [p, g, m, v, x, s] = &lists;
    super::boundary::run(py, || optim::adam_(p, g, m, v, x, s, &o))?;
    Ok(())
}

/// `_fused_sgd_(params, grads, momentum_buffers, *, lr, momentum, dampening, weight_decay,
/// nesterov, maximize)`: one SGD step of every parameter, in place. `momentum_buffers` holds
/// None where a parameter has none yet; returns the list of buffers after the step.
#[pyfunction]
#[pyo3(signature = (params, grads, momentum_buffers, *, lr, momentum, dampening, weight_decay,
    nesterov, maximize))]
#[allow(clippy::too_many_arguments)]
fn _fused_sgd_(
    py: Python<'_>,
    params: Vec<PyRef<'_, PyTensor>>,
    grads: Vec<PyRef<'_, PyTensor>>,
    momentum_buffers: Vec<Option<PyRef<'_, PyTensor>>>,
    lr: f64,
    momentum: f64,
    dampening: f64,
    weight_decay: f64,
    nesterov: bool,
    maximize: bool,
) -> PyResult<Vec<Option<Py<PyAny>>>> {
    let (p, g) = (tensors(params), tensors(grads));
    let bufs: Vec<Option<Tensor>> = momentum_buffers
        .iter()
        .map(|b| b.as_ref().map(|b| b.t.clone()))
        .collect();
    let o = SgdOptions {
        lr,
        momentum,
        dampening,
        weight_decay,
        nesterov,
        maximize,
    };
    let out = super::boundary::run(py, || optim::sgd_(&p, &g, &bufs, &o))?;
    out.into_iter()
        .map(|b| b.map(|b| wrap(py, b)).transpose())
        .collect()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_fused_adam_, m)?)?;
    m.add_function(wrap_pyfunction!(_fused_sgd_, m)?)?;
    Ok(())
}
