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
