//! The Tensor's operator dunders: arithmetic, in-place arithmetic, unary and comparison
//! operators.

use super::*;

#[pymethods]
impl PyTensor {
    // ---- arithmetic -------------------------------------------------------------------------

    fn __add__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> R {
        let r = slf.borrow().bin(slf.py(), BinaryOp::Add, o);
        crate::python::helpers::or_foreign(slf.as_any(), "__add__", o, r)
    }
    fn __radd__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> R {
        let r = slf.borrow().bin(slf.py(), BinaryOp::Add, o);
        crate::python::helpers::or_foreign(slf.as_any(), "__radd__", o, r)
    }
    fn __sub__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> R {
        let r = slf.borrow().bin(slf.py(), BinaryOp::Sub, o);
        crate::python::helpers::or_foreign(slf.as_any(), "__sub__", o, r)
    }
    fn __rsub__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> R {
        let py = slf.py();
        let r = {
            let this = slf.borrow();
            let s: &PyTensor = &this;
            match operand(o) {
                Some(o) => {
                    let small = crate::python::boundary::is_small_with(&s.t, &o);
                    crate::python::boundary::tensor_if(py, small, || arithmetic::rsub(&s.t, o))
                }
                None => Ok(py.NotImplemented()),
            }
        };
        crate::python::helpers::or_foreign(slf.as_any(), "__rsub__", o, r)
    }
    fn __mul__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> R {
        let r = slf.borrow().bin(slf.py(), BinaryOp::Mul, o);
        crate::python::helpers::or_foreign(slf.as_any(), "__mul__", o, r)
    }
    fn __rmul__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> R {
        let r = slf.borrow().bin(slf.py(), BinaryOp::Mul, o);
        crate::python::helpers::or_foreign(slf.as_any(), "__rmul__", o, r)
    }
    fn __truediv__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> R {
        let r = slf.borrow().bin(slf.py(), BinaryOp::Div, o);
        crate::python::helpers::or_foreign(slf.as_any(), "__truediv__", o, r)
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
            None if crate::python::helpers::tensor_like(o) => {
                crate::python::helpers::foreign_operator(slf.as_any(), "__rtruediv__", o)
            }
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
        slf: &Bound<'_, Self>,
        o: &Bound<'_, PyAny>,
        modulo: Option<&Bound<'_, PyAny>>,
    ) -> R {
        let py = slf.py();
        let r = {
            let this = slf.borrow();
            let s: &PyTensor = &this;
            let _ = modulo;
            s.bin(py, BinaryOp::Pow, o)
        };
        crate::python::helpers::or_foreign(slf.as_any(), "__pow__", o, r)
    }
    fn __rpow__(
        slf: &Bound<'_, Self>,
        o: &Bound<'_, PyAny>,
        modulo: Option<&Bound<'_, PyAny>>,
    ) -> R {
        let py = slf.py();
        let r = {
            let this = slf.borrow();
            let s: &PyTensor = &this;
            let _ = modulo;
            match operand(o) {
                Some(o) => {
                    let small = crate::python::boundary::is_small_with(&s.t, &o);
                    crate::python::boundary::tensor_if(py, small, || {
                        arithmetic::binary(BinaryOp::Pow, o, Operand::Tensor(s.t.clone()))
                    })
                }
                None => Ok(py.NotImplemented()),
            }
        };
        crate::python::helpers::or_foreign(slf.as_any(), "__rpow__", o, r)
    }
    fn __matmul__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> R {
        let py = slf.py();
        let r = {
            let this = slf.borrow();
            let s: &PyTensor = &this;
            match o.cast::<PyTensor>() {
                Ok(o) => {
                    let b = o.borrow().t.clone();
                    crate::python::boundary::tensor_on(py, &[&s.t, &b], || matmul::matmul(&s.t, &b))
                }
                Err(_) => Ok(py.NotImplemented()),
            }
        };
        crate::python::helpers::or_foreign(slf.as_any(), "__matmul__", o, r)
    }
    fn __rmatmul__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> R {
        let py = slf.py();
        let r = {
            let this = slf.borrow();
            let s: &PyTensor = &this;
            match o.cast::<PyTensor>() {
                Ok(o) => {
                    let a = o.borrow().t.clone();
                    crate::python::boundary::tensor_on(py, &[&a, &s.t], || matmul::matmul(&a, &s.t))
                }
                Err(_) => Ok(py.NotImplemented()),
            }
        };
        crate::python::helpers::or_foreign(slf.as_any(), "__rmatmul__", o, r)
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
    fn __eq__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> R {
        let py = slf.py();
        let r = {
            let this = slf.borrow();
            let s: &PyTensor = &this;
            // PyTorch compares with an ndarray elementwise (converted as `from_numpy` would); one
            // it cannot convert gives NotImplemented, so Python falls back to identity.
            if o.get_type().name().is_ok_and(|n| n == "ndarray") {
                return match crate::python::convert::from_numpy(o) {
                    Ok(t) => crate::python::boundary::tensor(py, || {
                        compare::compare(
                            CmpOp::Eq,
                            Operand::Tensor(s.t.clone()),
                            Operand::Tensor(t),
                        )
                    }),
                    Err(e) if e.is_instance_of::<pyo3::exceptions::PyTypeError>(py) => {
                        Ok(py.NotImplemented())
                    }
                    Err(e) => Err(e),
                };
            }
            s.cmp(py, CmpOp::Eq, o)
        };
        crate::python::helpers::or_foreign(slf.as_any(), "__eq__", o, r)
    }
    fn __ne__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> R {
        let r = slf.borrow().cmp(slf.py(), CmpOp::Ne, o);
        crate::python::helpers::or_foreign(slf.as_any(), "__ne__", o, r)
    }
    fn __lt__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> R {
        let r = slf.borrow().cmp(slf.py(), CmpOp::Lt, o);
        crate::python::helpers::or_foreign(slf.as_any(), "__lt__", o, r)
    }
    fn __le__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> R {
        let r = slf.borrow().cmp(slf.py(), CmpOp::Le, o);
        crate::python::helpers::or_foreign(slf.as_any(), "__le__", o, r)
    }
    fn __gt__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> R {
        let r = slf.borrow().cmp(slf.py(), CmpOp::Gt, o);
        crate::python::helpers::or_foreign(slf.as_any(), "__gt__", o, r)
    }
    fn __ge__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> R {
        let r = slf.borrow().cmp(slf.py(), CmpOp::Ge, o);
        crate::python::helpers::or_foreign(slf.as_any(), "__ge__", o, r)
    }
}
