//! Forward-mode AD's native API (`gradrs.autograd.forward_ad` builds on it; Note [Forward AD]).

use crate::autograd::forward;
use crate::ops::forward as fwops;
use crate::python::boundary::{catch, cheap};
use crate::python::tensor::{wrap, PyTensor};
use pyo3::prelude::*;

/// `torch._C._enter_dual_level`.
#[pyfunction]
pub fn _enter_dual_level() -> PyResult<i64> {
    fwops::install();
    Ok(forward::enter_level()?)
}

/// `torch._C._exit_dual_level`.
#[pyfunction]
#[pyo3(signature = (*, level))]
pub fn _exit_dual_level(level: i64) -> PyResult<()> {
    Ok(catch(|| forward::exit_level(level))?)
}

/// `torch._make_dual`.
#[pyfunction]
#[pyo3(signature = (primal, tangent, *, level))]
pub fn _make_dual(
    py: Python<'_>,
    primal: PyRef<'_, PyTensor>,
    tangent: PyRef<'_, PyTensor>,
    level: i64,
) -> PyResult<Py<PyAny>> {
    let (p, t) = (primal.t.clone(), tangent.t.clone());
    cheap(py, || fwops::make_dual(&p, &t, level))
}

/// `torch._unpack_dual`: (primal, tangent or None).
#[pyfunction]
#[pyo3(signature = (tensor, *, level))]
pub fn _unpack_dual(
    py: Python<'_>,
    tensor: PyRef<'_, PyTensor>,
    level: i64,
) -> PyResult<(Py<PyAny>, Option<Py<PyAny>>)> {
    let t = tensor.t.clone();
    let (p, tan) = catch(|| fwops::unpack_dual(&t, level))?;
    Ok((wrap(py, p)?, tan.map(|x| wrap(py, x)).transpose()?))
}

/// Give `tensor` the tangent `tangent` at the live level (a custom Function's outputs, the
/// Python-recorded nodes' forward formulas). `fresh=True`: `tangent` is new, so when it is laid
/// out as `tensor` it is kept as is, history included (PyTorch's `_set_fw_grad`), and
/// reverse mode can differentiate through it; else it is copied in without history.
#[pyfunction]
#[pyo3(signature = (tensor, tangent, *, fresh = false))]
pub fn _set_tangent(
    tensor: PyRef<'_, PyTensor>,
    tangent: PyRef<'_, PyTensor>,
    fresh: bool,
) -> PyResult<()> {
    let (t, v) = (tensor.t.clone(), tangent.t.clone());
    Ok(catch(|| fwops::set_tangent(&t, &v, fresh))?)
}

/// `torch._C._is_fwd_grad_enabled`.
#[pyfunction]
pub fn _is_fwd_grad_enabled() -> bool {
    forward::is_fwd_grad_enabled()
}

/// `torch._C._set_fwd_grad_enabled`.
#[pyfunction]
pub fn _set_fwd_grad_enabled(enabled: bool) {
    forward::set_fwd_grad_enabled(enabled)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_enter_dual_level, m)?)?;
    m.add_function(wrap_pyfunction!(_exit_dual_level, m)?)?;
    m.add_function(wrap_pyfunction!(_make_dual, m)?)?;
    m.add_function(wrap_pyfunction!(_unpack_dual, m)?)?;
    m.add_function(wrap_pyfunction!(_set_tangent, m)?)?;
    m.add_function(wrap_pyfunction!(_is_fwd_grad_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(_set_fwd_grad_enabled, m)?)?;
    Ok(())
}
