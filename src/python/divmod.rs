//! Bindings of division with rounding and remainders (`ops::divmod`): `fmod`, `remainder`
//! (`%`), `floor_divide` (`//`) and their in-place forms.

use super::convert::operand_scalar;
use super::pointwise::{in_place, in_place_with, operand_arg};
use super::tensor::PyTensor;
use super::R;
use crate::ops::{divmod, Operand};
use pyo3::prelude::*;

#[pymethods]
impl PyTensor {
    /// fmod(other) -> Tensor
    ///
    /// Applies C++'s `std::fmod` element-wise: the remainder of `self / other` truncated towards
    /// zero, so it has the sign of the dividend `self` (see `remainder` for Python's `%`). Supports
    /// broadcasting, and integer and float inputs.
    ///
    /// Args:
    ///     other (Tensor or Number): the divisor.
    ///
    /// Example:
    ///     >>> gradrs.tensor([-3.0, -2.0, -1.0, 1.0, 2.0, 3.0]).fmod(2)
    ///     tensor([-1., -0., -1.,  1.,  0.,  1.])
    ///     >>> gradrs.tensor([1, 2, 3, 4, 5]).fmod(-1.5)
    ///     tensor([1.0000, 0.5000, 0.0000, 1.0000, 0.5000])
    fn fmod(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
        let o = operand_arg(other, "fmod", "other")?;
        super::boundary::tensor(py, || divmod::fmod(&self.t, o))
    }
    /// fmod_(other) -> Tensor
    ///
    /// In-place version of :meth:`~Tensor.fmod`.
    fn fmod_(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> R {
        let o = operand_arg(other, "fmod_", "other")?;
        let ot = o.edge_tensor(crate::DType::F32);
        in_place_with(slf, &[&ot], |x| divmod::fmod(x, o))
    }
    /// remainder(other) -> Tensor
    ///
    /// Computes Python's modulus operation element-wise: `self - floor(self / other) * other`, so
    /// the result has the sign of the divisor `other` (see `fmod` for C's). Supports broadcasting,
    /// and integer and float inputs; `x % y` calls it.
    ///
    /// Args:
    ///     other (Tensor or Number): the divisor.
    ///
    /// Example:
    ///     >>> gradrs.tensor([-3.0, -2.0, -1.0, 1.0, 2.0, 3.0]).remainder(2)
    ///     tensor([1., -0., 1., 1., 0., 1.])
    ///     >>> gradrs.tensor([1, 2, 3, 4, 5]).remainder(-1.5)
    ///     tensor([-0.5000, -1.0000,  0.0000, -0.5000, -1.0000])
    fn remainder(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
        let o = operand_arg(other, "remainder", "other")?;
        super::boundary::tensor(py, || divmod::remainder(&self.t, o))
    }
    /// remainder_(other) -> Tensor
    ///
    /// In-place version of :meth:`~Tensor.remainder`.
    fn remainder_(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> R {
        let o = operand_arg(other, "remainder_", "other")?;
        let ot = o.edge_tensor(crate::DType::F32);
        in_place_with(slf, &[&ot], |x| divmod::remainder(x, o))
    }
    fn __mod__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> R {
        let py = slf.py();
        let r = {
            let this = slf.borrow();
            let me: &PyTensor = &this;
            match operand_arg(other, "remainder", "other") {
                Ok(o) => super::boundary::tensor(py, || divmod::remainder(&me.t, o)),
                Err(_) => Ok(py.NotImplemented()),
            }
        };
        super::helpers::or_foreign(slf.as_any(), "__mod__", other, r)
    }
    fn __rmod__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> R {
        let py = slf.py();
        let r = {
            let this = slf.borrow();
            let me: &PyTensor = &this;
            match operand_scalar(other) {
                Some(s) => super::boundary::tensor(py, || divmod::rremainder(s, &me.t)),
                None => Ok(py.NotImplemented()),
            }
        };
        super::helpers::or_foreign(slf.as_any(), "__rmod__", other, r)
    }
    /// floor_divide(other) -> Tensor
    ///
    /// Divides `self` by `other` element-wise and rounds each quotient down (towards minus
    /// infinity), as Python's `//`, which calls it. Supports broadcasting and type promotion.
    ///
    /// Args:
    ///     other (Tensor or Number): the divisor.
    ///
    /// Example:
    ///     >>> a = gradrs.tensor([4.0, 3.0, -3.0])
    ///     >>> a.floor_divide(gradrs.tensor([2.0, 2.0, 2.0]))
    ///     tensor([ 2.,  1., -2.])
    ///     >>> a.floor_divide(1.4)
    ///     tensor([ 2.,  2., -3.])
    fn floor_divide(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
        let o = operand_arg(other, "floor_divide", "other")?;
        super::boundary::tensor(py, || {
            divmod::floor_divide(&Operand::Tensor(self.t.clone()), &o)
        })
    }
    /// floor_divide_(other) -> Tensor
    ///
    /// In-place version of :meth:`~Tensor.floor_divide`.
    fn floor_divide_(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> R {
        let o = operand_arg(other, "floor_divide_", "other")?;
        in_place(slf, |x| {
            divmod::floor_divide(&Operand::Tensor(x.clone()), &o)
        })
    }
    fn __floordiv__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> R {
        let py = slf.py();
        let r = {
            let this = slf.borrow();
            let me: &PyTensor = &this;
            match operand_arg(other, "floor_divide", "other") {
                Ok(o) => super::boundary::tensor(py, || {
                    divmod::floor_divide(&Operand::Tensor(me.t.clone()), &o)
                }),
                Err(_) => Ok(py.NotImplemented()),
            }
        };
        super::helpers::or_foreign(slf.as_any(), "__floordiv__", other, r)
    }
    fn __rfloordiv__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> R {
        let py = slf.py();
        let r = {
            let this = slf.borrow();
            let me: &PyTensor = &this;
            match operand_scalar(other) {
                Some(s) => super::boundary::tensor(py, || {
                    divmod::floor_divide(&Operand::Scalar(s), &Operand::Tensor(me.t.clone()))
                }),
                None => Ok(py.NotImplemented()),
            }
        };
        super::helpers::or_foreign(slf.as_any(), "__rfloordiv__", other, r)
    }
}
