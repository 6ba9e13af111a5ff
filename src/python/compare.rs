//! Bindings of the elementwise extrema (`ops::compare`): `maximum`, `minimum`, `fmax`.

use super::convert::tensor_arg;
use super::tensor::PyTensor;
use super::R;
use crate::ops::compare;
use pyo3::prelude::*;

#[pymethods]
impl PyTensor {
    /// maximum(other) -> Tensor
    ///
    /// Computes the element-wise maximum of `self` and `other` (broadcast). A `nan` in either input
    /// gives `nan` (see `fmax` to ignore it).
    ///
    /// Args:
    ///     other (Tensor): the second input tensor.
    ///
    /// Example:
    ///     >>> gradrs.tensor([1, 2, -1]).maximum(gradrs.tensor([3, 0, 4]))
    ///     tensor([3, 2, 4])
    fn maximum(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
        let o = tensor_arg(other, "maximum", "other", 1)?;
        super::boundary::tensor(py, || compare::maximum(&self.t, &o))
    }
    /// minimum(other) -> Tensor
    ///
    /// Computes the element-wise minimum of `self` and `other` (broadcast). A `nan` in either input
    /// gives `nan` (see `fmin` to ignore it).
    ///
    /// Args:
    ///     other (Tensor): the second input tensor.
    ///
    /// Example:
    ///     >>> gradrs.tensor([1, 2, -1]).minimum(gradrs.tensor([3, 0, 4]))
    ///     tensor([ 1,  0, -1])
    fn minimum(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
        let o = tensor_arg(other, "minimum", "other", 1)?;
        super::boundary::tensor(py, || compare::minimum(&self.t, &o))
    }
    /// fmax(other) -> Tensor
    ///
    /// Computes the element-wise maximum of `self` and `other` (broadcast), as C's `fmax`: where
    /// only one of the two is `nan`, the other is taken; `nan` only where both are.
    ///
    /// Args:
    ///     other (Tensor): the second input tensor.
    ///
    /// Example:
    ///     >>> a = gradrs.tensor([9.7, float('nan'), 3.1, float('nan')])
    ///     >>> b = gradrs.tensor([-2.2, 0.5, float('nan'), float('nan')])
    ///     >>> a.fmax(b)
    ///     tensor([9.7000, 0.5000, 3.1000,    nan])
    fn fmax(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
        let o = tensor_arg(other, "fmax", "other", 1)?;
        super::boundary::tensor(py, || compare::fextremum(&self.t, &o, true))
    }
}
