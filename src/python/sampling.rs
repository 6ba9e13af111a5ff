//! Bindings of the distributions' samplers (`ops::sampling`): `_standard_gamma`,
//! `_standard_gamma_grad`, `_sample_dirichlet`, `_dirichlet_grad`, `binomial`.

use super::generator::generator_arg;
use super::tensor::PyTensor;
use super::R;
use crate::ops::sampling;
use crate::tensor::shape::list_repr;
use pyo3::exceptions::PyUserWarning;
use pyo3::prelude::*;

/// PyTorch's deprecation warning where an op's output, made with its first operand's shape,
/// is resized to the operands' broadcast shape by TensorIterator.
fn warn_resized(py: Python<'_>, ts: &[&crate::Tensor]) -> PyResult<()> {
    let first = ts[0].shape();
    let Ok(shape) = sampling::broadcast_all(ts) else {
        return Ok(()); // the op raises the broadcast error itself
    };
    if first.as_slice() != shape.as_slice() && ts[0].numel() != 0 {
        let msg = format!(
            "An output with one or more elements was resized since it had shape {}, which does not match the required output shape {}. This behavior is deprecated, and in a future PyTorch release outputs will not be resized unless they have zero elements. You can explicitly reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0).",
            list_repr(&first),
            list_repr(&shape)
        );
        let msg = std::ffi::CString::new(msg).expect("no NUL in the message");
        PyErr::warn(py, &py.get_type::<PyUserWarning>(), &msg, 1)?;
    }
    Ok(())
}

#[pyfunction]
#[pyo3(signature = (input, generator=None))]
fn _standard_gamma(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    generator: Option<&Bound<'_, PyAny>>,
) -> R {
    let g = generator_arg("_standard_gamma", generator, input.t.device())?;
    let x = input.t.clone();
    super::boundary::tensor(py, || sampling::standard_gamma(&x, Some(&g)))
}

#[pyfunction]
#[pyo3(signature = (input, output))]
fn _standard_gamma_grad(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    output: PyRef<'_, PyTensor>,
) -> R {
    let (a, x) = (input.t.clone(), output.t.clone());
    if a.dtype() == x.dtype() {
        warn_resized(py, &[&a, &x])?;
    }
    super::boundary::tensor(py, || sampling::standard_gamma_grad(&a, &x))
}

#[pyfunction]
#[pyo3(signature = (input, generator=None))]
fn _sample_dirichlet(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    generator: Option<&Bound<'_, PyAny>>,
) -> R {
    let g = generator_arg("_sample_dirichlet", generator, input.t.device())?;
    let x = input.t.clone();
    super::boundary::tensor(py, || sampling::sample_dirichlet(&x, Some(&g)))
}

#[pyfunction]
#[pyo3(signature = (x, alpha, total))]
fn _dirichlet_grad(
    py: Python<'_>,
    x: PyRef<'_, PyTensor>,
    alpha: PyRef<'_, PyTensor>,
    total: PyRef<'_, PyTensor>,
) -> R {
    let (x, a, t) = (x.t.clone(), alpha.t.clone(), total.t.clone());
    if x.dtype() == a.dtype() && x.dtype() == t.dtype() {
        warn_resized(py, &[&x, &a, &t])?;
    }
    super::boundary::tensor(py, || sampling::dirichlet_grad(&x, &a, &t))
}

/// binomial(count, prob, generator=None) -> Tensor
///
/// Draws a sample from the binomial distribution for each element: `out_i ~ Binomial(count_i,
/// prob_i)`, the number of successes in `count_i` trials of probability `prob_i`.
///
/// Args:
///     count (Tensor): the number of trials (non-negative, a floating-point tensor).
///     prob (Tensor): the probability of success of each trial, in `[0, 1]`.
///     generator (gradrs.Generator, optional): a pseudorandom number generator for sampling.
///
/// Example:
///     >>> gradrs.binomial(gradrs.tensor([10.0, 10.0, 5.0]), gradrs.tensor([0.0, 1.0, 1.0]))
///     tensor([ 0., 10.,  5.])
#[pyfunction]
#[pyo3(signature = (count, prob, generator=None))]
fn binomial(
    py: Python<'_>,
    count: PyRef<'_, PyTensor>,
    prob: PyRef<'_, PyTensor>,
    generator: Option<&Bound<'_, PyAny>>,
) -> R {
    let g = generator_arg("binomial", generator, count.t.device())?;
    let (n, p) = (count.t.clone(), prob.t.clone());
    if n.dtype() == p.dtype() && matches!(n.dtype(), crate::DType::F32 | crate::DType::F64) {
        warn_resized(py, &[&n, &p])?;
    }
    super::boundary::tensor(py, || sampling::binomial(&n, &p, Some(&g)))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_standard_gamma, m)?)?;
    m.add_function(wrap_pyfunction!(_standard_gamma_grad, m)?)?;
    m.add_function(wrap_pyfunction!(_sample_dirichlet, m)?)?;
    m.add_function(wrap_pyfunction!(_dirichlet_grad, m)?)?;
    m.add_function(wrap_pyfunction!(binomial, m)?)?;
    Ok(())
}
