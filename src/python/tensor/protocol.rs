//! The Tensor's Python protocol: repr / str / format, len, hash, bool, equal, float / int /
//! index conversions, `__array__`.

use super::*;

#[pymethods]
impl PyTensor {
    // ---- Python protocol --------------------------------------------------------------------

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        helpers::repr(slf.py(), slf.as_any())
    }
    fn __str__(slf: &Bound<'_, Self>) -> PyResult<String> {
        helpers::repr(slf.py(), slf.as_any())
    }
    fn __format__(slf: &Bound<'_, Self>, spec: &str) -> PyResult<String> {
        let t = &slf.borrow().t;
        if t.dim() == 0 {
            let v = scalar_to_py(slf.py(), t.item()?)?;
            return v
                .bind(slf.py())
                .call_method1("__format__", (spec,))?
                .extract();
        }
        let s = helpers::repr(slf.py(), slf.as_any())?;
        s.into_pyobject(slf.py())?
            .call_method1("__format__", (spec,))?
            .extract()
    }
    fn __len__(&self) -> PyResult<usize> {
        let shape = self.t.shape();
        if shape.is_empty() {
            return Err(crate::python::errors::type_error("len() of a 0-d tensor"));
        }
        Ok(shape[0])
    }
    fn __hash__(slf: &Bound<'_, Self>) -> isize {
        slf.as_ptr() as isize
    }
    fn __bool__(&self) -> PyResult<bool> {
        let n = self.t.numel();
        if n != 1 {
            return Err(crate::python::errors::runtime_error(if n == 0 {
                "Boolean value of Tensor with no values is ambiguous"
            } else {
                "Boolean value of Tensor with more than one value is ambiguous"
            }));
        }
        Ok(self.t.item()?.to_f64() != 0.0)
    }
    /// `equal(other)`: same size and values (`gradrs.equal`).
    #[pyo3(signature = (*args, **kwargs))]
    fn equal(
        &self,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<bool> {
        use crate::python::parse::{parse, req, Kind, Signature};
        const SIGS: [Signature; 1] = [Signature {
            params: &[req("other", Kind::Tensor)],
            text: "",
        }];
        let (_, a) = parse("equal", &SIGS, args, kwargs, false)?;
        let other = a[0]
            .as_ref()
            .expect("required")
            .cast::<PyTensor>()?
            .borrow()
            .t
            .clone();
        crate::python::boundary::run(args.py(), || compare::equal(&self.t, &other))
    }
    fn __float__(&self, py: Python<'_>) -> PyResult<f64> {
        if self.t.requires_grad() && autograd::is_grad_enabled() {
            helpers::warn_scalar_requires_grad_once(py)?;
        }
        Ok(self.python_scalar()?.to_f64())
    }
    /// A float goes through Python's `int(float)`: NaN and infinities raise, large values
    /// stay exact (PyTorch's conversion).
    fn __int__(&self, py: Python<'_>) -> R {
        match self.python_scalar()? {
            Scalar::Float(v) => Ok(pyo3::types::PyFloat::new(py, v)
                .call_method0("__int__")?
                .unbind()),
            s => s.to_i64().into_py_any(py),
        }
    }
    fn __index__(&self) -> PyResult<i64> {
        if self.t.dtype().is_floating_point() || self.t.numel() != 1 {
            return Err(crate::python::errors::type_error(
                "only integer tensors of a single element can be converted to an index",
            ));
        }
        Ok(self.t.item()?.to_i64())
    }
    #[pyo3(signature = (dtype=None, copy=None))]
    fn __array__(slf: &Bound<'_, Self>, dtype: Option<&Bound<'_, PyAny>>, copy: Option<bool>) -> R {
        let _ = copy;
        if slf.borrow().t.device().is_gpu() {
            slf.call_method0("numpy")?;
        }
        let arr = helpers::numpy_view(slf.py(), slf.as_any())?;
        match dtype {
            Some(d) if !d.is_none() => Ok(arr.call_method1(slf.py(), "astype", (d,))?),
            _ => Ok(arr),
        }
    }
}
