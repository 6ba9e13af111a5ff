//! Bindings of the activation functions `gradrs.nn.functional` calls (`ops::activation` and
//! the declared activations): `gelu`, `silu`, `softplus`, `elu`, `leaky_relu`, `hardtanh`.

use super::tensor::{wrap, PyTensor};
use super::R;
use crate::ops::unary::{args_of, unary_args, UnaryOp};
use crate::ops::{activation, inplace};
use crate::tensor::Tensor;
use pyo3::prelude::*;

pub(super) fn act(
    py: Python<'_>,
    input: &PyTensor,
    inplace: bool,
    op: impl FnOnce(&Tensor) -> crate::Result<Tensor> + Send,
) -> R {
    if inplace {
        let dst = &input.t;
        super::boundary::catch(|| {
            inplace::apply_(dst, false, |x| {
                inplace::check_write(dst, &[])?;
                op(x)
            })
        })?;
        return wrap(py, input.t.clone());
    }
    let input_t = input.t.clone();
    super::boundary::tensor(py, || op(&input_t))
}

/// A declared activation (`ops/unary_decl.rs`) with its parameters, or in place its in-place
/// entry (`elu_`, `leaky_relu_`: nodes that keep the result) or the same one.
fn declared_act(py: Python<'_>, input: &PyTensor, op: UnaryOp, inplace: bool, params: &[f64]) -> R {
    let args = args_of(&params.iter().map(|&p| Some(p)).collect::<Vec<_>>());
    act(py, input, inplace, move |x| unary_args(op, x, args))
}

#[pyfunction]
#[pyo3(signature = (input, approximate="none"))]
pub fn gelu(py: Python<'_>, input: PyRef<'_, PyTensor>, approximate: &str) -> R {
    act(py, &input, false, |x| activation::gelu(x, approximate))
}
#[pyfunction]
#[pyo3(signature = (input, inplace=false))]
pub fn silu(py: Python<'_>, input: PyRef<'_, PyTensor>, inplace: bool) -> R {
    declared_act(py, &input, UnaryOp::Silu, inplace, &[])
}
#[pyfunction]
#[pyo3(signature = (input, beta=1.0, threshold=20.0))]
pub fn softplus(py: Python<'_>, input: PyRef<'_, PyTensor>, beta: f64, threshold: f64) -> R {
    declared_act(py, &input, UnaryOp::Softplus, false, &[beta, threshold])
}
#[pyfunction]
#[pyo3(signature = (input, alpha=1.0, inplace=false))]
pub fn elu(py: Python<'_>, input: PyRef<'_, PyTensor>, alpha: f64, inplace: bool) -> R {
    let op = if inplace {
        UnaryOp::EluInplace
    } else {
        UnaryOp::Elu
    };
    declared_act(py, &input, op, inplace, &[alpha, 1.0, 1.0])
}
#[pyfunction]
#[pyo3(signature = (input, negative_slope=0.01, inplace=false))]
pub fn leaky_relu(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    negative_slope: f64,
    inplace: bool,
) -> R {
    let op = if inplace {
        UnaryOp::LeakyReluInplace
    } else {
        UnaryOp::LeakyRelu
    };
    declared_act(py, &input, op, inplace, &[negative_slope])
}
#[pyfunction]
#[pyo3(
    signature = (input, min_val=-1.0, max_val=1.0, inplace=false),
    text_signature = "(input, min_val=-1.0, max_val=1.0, inplace=False)"
)]
pub fn hardtanh(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    min_val: f64,
    max_val: f64,
    inplace: bool,
) -> R {
    if min_val > max_val {
        return Err(super::errors::value_error(
            "min_val cannot be greater than max_val",
        ));
    }
    declared_act(py, &input, UnaryOp::Hardtanh, inplace, &[min_val, max_val])
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(gelu, m)?)?;
    m.add_function(wrap_pyfunction!(silu, m)?)?;
    m.add_function(wrap_pyfunction!(softplus, m)?)?;
    m.add_function(wrap_pyfunction!(elu, m)?)?;
    m.add_function(wrap_pyfunction!(leaky_relu, m)?)?;
    m.add_function(wrap_pyfunction!(hardtanh, m)?)?;
    Ok(())
}
