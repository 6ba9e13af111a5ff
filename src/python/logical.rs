//! Bindings of the logical and bitwise ops (`ops::logical`): `logical_and` / `or` / `xor` /
//! `not`, `bitwise_and` / `or` / `xor` / `not` with their operators (`&`, `|`, `^`, `~`).

use super::convert::tensor_arg;
use super::pointwise::operand_arg;
use super::tensor::PyTensor;
use super::R;
use crate::ops::logical;
use pyo3::prelude::*;

#[pymethods]
impl PyTensor {
    /// logical_and(other) -> Tensor
    ///
    /// Computes the element-wise logical AND of `self` and `other`; zeros are `False`, other values
    /// `True`. The result is a `bool` tensor.
    ///
    /// Args:
    ///     other (Tensor): the tensor to compute AND with.
    ///
    /// Example:
    ///     >>> gradrs.tensor([True, False, True]).logical_and(gradrs.tensor([True, False, False]))
    ///     tensor([ True, False, False])
    ///     >>> gradrs.tensor([0, 1, 10, 0]).logical_and(gradrs.tensor([4, 0, 1, 0]))
    ///     tensor([False, False,  True, False])
    fn logical_and(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
        let o = tensor_arg(other, "logical_and", "other", 1)?;
        super::boundary::tensor(py, || logical::logical(&self.t, &o, "and"))
    }
    /// logical_or(other) -> Tensor
    ///
    /// Computes the element-wise logical OR of `self` and `other`; zeros are `False`, other values
    /// `True`. The result is a `bool` tensor.
    ///
    /// Args:
    ///     other (Tensor): the tensor to compute OR with.
    ///
    /// Example:
    ///     >>> gradrs.tensor([True, False, True]).logical_or(gradrs.tensor([True, False, False]))
    ///     tensor([ True, False,  True])
    ///     >>> gradrs.tensor([0, 1, 10, 0]).logical_or(gradrs.tensor([4, 0, 1, 0]))
    ///     tensor([ True,  True,  True, False])
    fn logical_or(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
        let o = tensor_arg(other, "logical_or", "other", 1)?;
        super::boundary::tensor(py, || logical::logical(&self.t, &o, "or"))
    }
    /// logical_xor(other) -> Tensor
    ///
    /// Computes the element-wise logical XOR of `self` and `other`; zeros are `False`, other values
    /// `True`. The result is a `bool` tensor.
    ///
    /// Args:
    ///     other (Tensor): the tensor to compute XOR with.
    ///
    /// Example:
    ///     >>> gradrs.tensor([True, False, True]).logical_xor(gradrs.tensor([True, False, False]))
    ///     tensor([False, False,  True])
    ///     >>> gradrs.tensor([0, 1, 10, 0]).logical_xor(gradrs.tensor([4, 0, 1, 0]))
    ///     tensor([ True,  True, False, False])
    fn logical_xor(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
        let o = tensor_arg(other, "logical_xor", "other", 1)?;
        super::boundary::tensor(py, || logical::logical(&self.t, &o, "xor"))
    }
    /// logical_not() -> Tensor
    ///
    /// Computes the element-wise logical NOT of `self`: `True` where an element is zero. The result
    /// is a `bool` tensor.
    ///
    /// Example:
    ///     >>> gradrs.tensor([True, False]).logical_not()
    ///     tensor([False,  True])
    ///     >>> gradrs.tensor([0, 1, -10]).logical_not()
    ///     tensor([ True, False, False])
    ///     >>> gradrs.tensor([0.0, 1.5, -10.0]).logical_not()
    ///     tensor([ True, False, False])
    fn logical_not(&self, py: Python<'_>) -> R {
        super::boundary::tensor(py, || logical::logical_not(&self.t))
    }
}

impl PyTensor {
    /// `self <op> other` for a bitwise operator dunder: NotImplemented for an operand it
    /// cannot use.
    fn bitwise_operator(&self, py: Python<'_>, other: &Bound<'_, PyAny>, op: &'static str) -> R {
        match operand_arg(other, op, "other") {
            Ok(o) => super::boundary::tensor(py, || logical::bitwise(&self.t, o, op)),
            Err(_) => Ok(py.NotImplemented()),
        }
    }
}

macro_rules! bitwise_methods {
    ($($name:ident, $rname:ident, $(#[doc = $doc:literal])* $method:ident => $op:literal;)*) => {
        #[pymethods]
        impl PyTensor {
            $(
                fn $name(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> R {
                    let r = slf.borrow().bitwise_operator(slf.py(), other, $op);
                    super::helpers::or_foreign(slf.as_any(), stringify!($name), other, r)
                }
                fn $rname(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> R {
                    let r = slf.borrow().bitwise_operator(slf.py(), other, $op);
                    super::helpers::or_foreign(slf.as_any(), stringify!($rname), other, r)
                }
                $(#[doc = $doc])*
                fn $method(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
                    let o = operand_arg(other, $op, "other")?;
                    super::boundary::tensor(py, || logical::bitwise(&self.t, o, $op))
                }
            )*
        }
    };
}

bitwise_methods! {
    __and__,
    __rand__,
    /// bitwise_and(other) -> Tensor
    ///
    /// Computes the bitwise AND of `self` and `other` (integral or `bool` tensors, or a Python
    /// integer or bool; broadcast); `x & y` calls it. For `bool` tensors it is the logical AND.
    ///
    /// Args:
    ///     other (Tensor or Number): the second input.
    ///
    /// Example:
    ///     >>> a = gradrs.tensor([-1, -2, 3], dtype=gradrs.int8)
    ///     >>> a.bitwise_and(gradrs.tensor([1, 0, 3], dtype=gradrs.int8))
    ///     tensor([1, 0, 3], dtype=gradrs.int8)
    ///     >>> gradrs.tensor([True, True, False]).bitwise_and(gradrs.tensor([False, True, False]))
    ///     tensor([False,  True, False])
    bitwise_and => "and";
    __or__,
    __ror__,
    /// bitwise_or(other) -> Tensor
    ///
    /// Computes the bitwise OR of `self` and `other` (integral or `bool` tensors, or a Python
    /// integer or bool; broadcast); `x | y` calls it. For `bool` tensors it is the logical OR.
    ///
    /// Args:
    ///     other (Tensor or Number): the second input.
    ///
    /// Example:
    ///     >>> a = gradrs.tensor([-1, -2, 3], dtype=gradrs.int8)
    ///     >>> a.bitwise_or(gradrs.tensor([1, 0, 3], dtype=gradrs.int8))
    ///     tensor([-1, -2,  3], dtype=gradrs.int8)
    ///     >>> gradrs.tensor([True, True, False]).bitwise_or(gradrs.tensor([False, True, False]))
    ///     tensor([ True,  True, False])
    bitwise_or => "or";
    __xor__,
    __rxor__,
    /// bitwise_xor(other) -> Tensor
    ///
    /// Computes the bitwise XOR of `self` and `other` (integral or `bool` tensors, or a Python
    /// integer or bool; broadcast); `x ^ y` calls it. For `bool` tensors it is the logical XOR.
    ///
    /// Args:
    ///     other (Tensor or Number): the second input.
    ///
    /// Example:
    ///     >>> a = gradrs.tensor([-1, -2, 3], dtype=gradrs.int8)
    ///     >>> a.bitwise_xor(gradrs.tensor([1, 0, 3], dtype=gradrs.int8))
    ///     tensor([-2, -2,  0], dtype=gradrs.int8)
    ///     >>> gradrs.tensor([True, True, False]).bitwise_xor(gradrs.tensor([False, True, False]))
    ///     tensor([ True, False, False])
    bitwise_xor => "xor";
}

#[pymethods]
impl PyTensor {
    fn __invert__(&self, py: Python<'_>) -> R {
        super::boundary::tensor(py, || logical::bitwise_not(&self.t))
    }
    /// bitwise_not() -> Tensor
    ///
    /// Computes the bitwise NOT of `self` (integral or `bool`); `~x` calls it.
    ///
    /// Example:
    ///     >>> gradrs.tensor([-1, -2, 3], dtype=gradrs.int8).bitwise_not()
    ///     tensor([ 0,  1, -4], dtype=gradrs.int8)
    ///     >>> gradrs.tensor([True, False]).bitwise_not()
    ///     tensor([False,  True])
    fn bitwise_not(&self, py: Python<'_>) -> R {
        super::boundary::tensor(py, || logical::bitwise_not(&self.t))
    }
}
