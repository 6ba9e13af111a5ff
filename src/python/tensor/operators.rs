//! The Tensor's operator dunders: arithmetic, in-place arithmetic, unary and comparison
//! operators.

use super::*;

#[pymethods]
impl PyTensor {
    // ---- arithmetic -------------------------------------------------------------------------

    fn __add__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> R {
        self.bin(py, BinaryOp::Add, o)
    }
    fn __radd__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> R {
        self.bin(py, BinaryOp::Add, o)
    }
    fn __sub__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> R {
        self.bin(py, BinaryOp::Sub, o)
    }
    fn __rsub__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> R {
        match operand(o) {
            Some(o) => {
                let small = crate::python::boundary::is_small_with(&self.t, &o);
                crate::python::boundary::tensor_if(py, small, || arithmetic::rsub(&self.t, o))
            }
            None => Ok(py.NotImplemented()),
        }
    }
    fn __mul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> R {
        self.bin(py, BinaryOp::Mul, o)
    }
    fn __rmul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> R {
        self.bin(py, BinaryOp::Mul, o)
    }
    fn __truediv__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> R {
        self.bin(py, BinaryOp::Div, o)
    }
    fn __rtruediv__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> R {
        let py = slf.py();
        match operand(o) {
            Some(o) => {
                let t = slf.borrow().t.clone();
                let small = crate::python::boundary::is_small_with(&t, &o);
                crate::python::boundary::tensor_if(py, small, || arithmetic::rdiv(&t, o))
            }
            // PyTorch's `__rdiv__` for anything else (an ndarray: numpy's multiply runs):
            // `self.reciprocal() * other`, a TypeError turned into NotImplemented.
            None => match slf.call_method0("reciprocal")?.mul(o) {
                Ok(r) => Ok(r.unbind()),
                Err(e) if e.is_instance_of::<pyo3::exceptions::PyTypeError>(py) => {
                    Ok(py.NotImplemented())
                }
                Err(e) => Err(e),
            },
        }
    }
    fn __pow__(
        &self,
        py: Python<'_>,
        o: &Bound<'_, PyAny>,
        modulo: Option<&Bound<'_, PyAny>>,
    ) -> R {
        let _ = modulo;
        self.bin(py, BinaryOp::Pow, o)
    }
    fn __rpow__(
        &self,
        py: Python<'_>,
        o: &Bound<'_, PyAny>,
        modulo: Option<&Bound<'_, PyAny>>,
    ) -> R {
        let _ = modulo;
        match operand(o) {
            Some(o) => {
                let small = crate::python::boundary::is_small_with(&self.t, &o);
                crate::python::boundary::tensor_if(py, small, || {
                    arithmetic::binary(BinaryOp::Pow, o, Operand::Tensor(self.t.clone()))
                })
            }
            None => Ok(py.NotImplemented()),
        }
    }
    fn __matmul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> R {
        match o.cast::<PyTensor>() {
            Ok(o) => {
                let b = o.borrow().t.clone();
                crate::python::boundary::tensor_on(py, &[&self.t, &b], || {
                    matmul::matmul(&self.t, &b)
                })
            }
            Err(_) => Ok(py.NotImplemented()),
        }
    }
    fn __rmatmul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> R {
        match o.cast::<PyTensor>() {
            Ok(o) => {
                let a = o.borrow().t.clone();
                crate::python::boundary::tensor_on(py, &[&a, &self.t], || {
                    matmul::matmul(&a, &self.t)
                })
            }
            Err(_) => Ok(py.NotImplemented()),
        }
    }
    fn __iadd__(slf: &Bound<'_, Self>, o: InPlaceOperand) -> PyResult<()> {
        Self::inplace_dunder(slf, BinaryOp::Add, "add_", o)
    }
    fn __isub__(slf: &Bound<'_, Self>, o: InPlaceOperand) -> PyResult<()> {
        Self::inplace_dunder(slf, BinaryOp::Sub, "sub_", o)
    }
    fn __imul__(slf: &Bound<'_, Self>, o: InPlaceOperand) -> PyResult<()> {
        Self::inplace_dunder(slf, BinaryOp::Mul, "mul_", o)
    }
    fn __itruediv__(slf: &Bound<'_, Self>, o: InPlaceOperand) -> PyResult<()> {
        Self::inplace_dunder(slf, BinaryOp::Div, "div_", o)
    }
    /// `t **= x` is `t.pow_(x)` (PyTorch's `__ipow__` is `pow_`), NotImplemented for an
    /// exponent that is no tensor or number.
    fn __ipow__(
        slf: &Bound<'_, Self>,
        o: InPlaceOperand,
        modulo: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let _ = modulo;
        Self::inplace_dunder(slf, BinaryOp::Pow, "pow_", o)
    }
    fn __neg__(&self, py: Python<'_>) -> R {
        self.un(py, UnaryOp::Neg)
    }
    fn __pos__(slf: &Bound<'_, Self>) -> Py<PyAny> {
        slf.clone().into_any().unbind()
    }
    fn __abs__(&self, py: Python<'_>) -> R {
        self.un(py, UnaryOp::Abs)
    }
    fn __eq__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> R {
        // PyTorch compares with an ndarray elementwise (converted as `from_numpy` would); one
        // it cannot convert gives NotImplemented, so Python falls back to identity.
        if o.get_type().name().is_ok_and(|n| n == "ndarray") {
            return match crate::python::convert::from_numpy(o) {
                Ok(t) => crate::python::boundary::tensor(py, || {
                    compare::compare(
                        CmpOp::Eq,
                        Operand::Tensor(self.t.clone()),
                        Operand::Tensor(t),
                    )
                }),
                Err(e) if e.is_instance_of::<pyo3::exceptions::PyTypeError>(py) => {
                    Ok(py.NotImplemented())
                }
                Err(e) => Err(e),
            };
        }
        self.cmp(py, CmpOp::Eq, o)
    }
    fn __ne__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> R {
        self.cmp(py, CmpOp::Ne, o)
    }
    fn __lt__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> R {
        self.cmp(py, CmpOp::Lt, o)
    }
    fn __le__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> R {
        self.cmp(py, CmpOp::Le, o)
    }
    fn __gt__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> R {
        self.cmp(py, CmpOp::Gt, o)
    }
    fn __ge__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> R {
        self.cmp(py, CmpOp::Ge, o)
    }
}
