//! `out=` arguments: the functional forms in `gradrs/__init__.py` compute the result, then
//! `_write_out` stores it into `out` with PyTorch's rules (cast check, resize, version bump).

use super::tensor::PyTensor;
use crate::dtype::pretty_kernel_name;
use crate::tensor::shape::list_repr;
use crate::Tensor;
use pyo3::exceptions::PyUserWarning;
use pyo3::prelude::*;

/// Write `result` into `out` (resized to `result`'s shape when it differs), casting to
/// `out`'s dtype; one version bump, as PyTorch's out= kernels.
#[pyfunction]
pub fn _write_out(
    py: Python<'_>,
    out: PyRef<'_, PyTensor>,
    result: PyRef<'_, PyTensor>,
) -> PyResult<()> {
    let (o, r) = (&out.t, &result.t);
    o.check_inplace_version()?;
    if !crate::dtype::can_cast(r.dtype(), o.dtype()) {
        return Err(super::errors::runtime_error(format!(
            "result type {} can't be cast to the desired output type {}",
            pretty_kernel_name(r.dtype()),
            pretty_kernel_name(o.dtype())
        )));
    }
    let shape = r.shape();
    if o.shape() != shape {
        if o.numel() != 0 {
            let msg = format!(
                "An output with one or more elements was resized since it had shape {}, which does not match the required output shape {}. This behavior is deprecated, and in a future PyTorch release outputs will not be resized unless they have zero elements. You can explicitly reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0).",
                list_repr(&o.shape()),
                list_repr(&shape)
            );
            let msg = std::ffi::CString::new(msg).expect("no NUL in the message");
            // Level 2: the user's call, past the functional wrapper that calls this.
            PyErr::warn(py, &py.get_type::<PyUserWarning>(), &msg, 2)?;
        }
        // New memory for the new shape; the version counter carries on from the old one.
        let version = o.version();
        o.set_data(&Tensor::zeros_on(&shape, o.dtype(), o.device()));
        for _ in 0..version {
            o.bump_version();
        }
    }
    super::boundary::catch(|| crate::ops::inplace::write_into(o, r))?;
    Ok(())
}

/// PyTorch's overlap checks of an `out=` argument before the op runs (ATen's
/// `assert_no_internal_overlap` / `assert_no_partial_overlap`, Note [Write overlap]): `out`
/// may not be expanded, nor partly overlap one of `inputs` (the very same elements are fine).
#[pyfunction]
pub fn _check_out_overlap(
    out: PyRef<'_, PyTensor>,
    inputs: Vec<PyRef<'_, PyTensor>>,
) -> PyResult<()> {
    let inputs: Vec<Tensor> = inputs.iter().map(|t| t.t.clone()).collect();
    let refs: Vec<&Tensor> = inputs.iter().collect();
    super::boundary::catch(|| crate::ops::inplace::check_write(&out.t, &refs))?;
    Ok(())
}

/// `zeros(size, out=o)` and the other factories: `o` takes the shape (resized without
/// PyTorch's warning for computed results) and the fill value (none for `empty`), keeps its
/// dtype and device, and is returned.
pub(crate) fn factory_out(
    py: Python<'_>,
    name: &str,
    out: &Bound<'_, PyAny>,
    shape: &[usize],
    fill: Option<crate::dtype::Scalar>,
    dtype: Option<crate::DType>,
    requires_grad: bool,
) -> PyResult<Py<PyAny>> {
    let Ok(o) = out.cast::<PyTensor>() else {
        return Err(super::errors::type_error(format!(
            "{name}(): argument 'out' must be Tensor, not {}",
            out.get_type().name()?
        )));
    };
    let t = o.borrow().t.clone();
    if let Some(d) = dtype.filter(|&d| d != t.dtype()) {
        return Err(super::errors::runtime_error(format!(
            "dtype {} does not match dtype of out parameter ({})",
            pretty_kernel_name(d),
            pretty_kernel_name(t.dtype())
        )));
    }
    if crate::autograd::is_grad_enabled() && t.requires_grad() {
        return Err(super::errors::runtime_error(format!(
            "aten::{name}(): functions with out=... arguments don't support automatic differentiation, but one of the arguments requires grad."
        )));
    }
    t.check_inplace_version()?;
    super::boundary::run(py, || {
        if t.shape().as_slice() != shape {
            let version = t.version();
            t.set_data(&Tensor::zeros_on(shape, t.dtype(), t.device()));
            for _ in 0..version {
                t.bump_version();
            }
        }
        match fill {
            Some(v) => crate::ops::inplace::write_into(
                &t,
                &Tensor::full_on(shape, v, t.dtype(), t.device()),
            ),
            None => Ok(()),
        }
    })?;
    if requires_grad {
        t.set_requires_grad(true)?;
    }
    Ok(o.clone().into_any().unbind())
}
