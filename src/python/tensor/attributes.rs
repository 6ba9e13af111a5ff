//! Tensor attributes and sizes: shape, dtype, device, requires_grad, grad, grad_fn, views' base,
//! size / stride / numel, item / tolist / numpy.

use super::*;

#[pymethods]
impl PyTensor {
    // ---- attributes -------------------------------------------------------------------------

    #[getter]
    fn shape(&self, py: Python<'_>) -> R {
        helpers::size(py, &self.t.shape())
    }
    #[getter]
    fn dtype(&self, py: Python<'_>) -> Py<crate::python::dtype::PyDType> {
        dtype_object(py, self.t.dtype())
    }
    #[getter]
    fn device(&self) -> PyDevice {
        PyDevice::of(self.t.device())
    }
    /// True on the GPU: `cuda` is gradrs's alias for it, so CUDA code takes its GPU branch.
    #[getter]
    fn is_cuda(&self) -> bool {
        self.t.device().is_gpu()
    }
    #[getter]
    fn is_cpu(&self) -> bool {
        !self.t.device().is_gpu()
    }
    /// Reads the history as `grad_fn` does (a stale view's may raise, as PyTorch's).
    #[getter]
    fn is_leaf(&self) -> PyResult<bool> {
        crate::ops::inplace::try_refresh_view(&self.t)?;
        Ok(self.t.is_leaf())
    }
    #[getter]
    fn get_requires_grad(&self) -> bool {
        self.t.requires_grad()
    }
    #[setter]
    fn set_requires_grad(&self, value: bool) -> PyResult<()> {
        Ok(self.t.set_requires_grad(value)?)
    }
    #[getter]
    fn get_grad(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        if !self.t.is_leaf() && !self.t.retains_grad() {
            helpers::warn_non_leaf_grad(py)?;
        }
        self.t.grad().map(|g| wrap(py, g)).transpose()
    }
    #[setter]
    fn set_grad(&self, value: Option<PyRef<'_, PyTensor>>) -> PyResult<()> {
        if let Some(g) = &value {
            let (gs, ts) = (g.t.shape(), self.t.shape());
            if gs != ts {
                return Err(crate::python::errors::runtime_error(
                    "assigned grad has data of a different size",
                ));
            }
            if g.t.dtype() != self.t.dtype() {
                return Err(crate::python::errors::runtime_error(
                    "assigned grad has data of a different type",
                ));
            }
        }
        self.t.set_grad(value.map(|g| g.t.clone()));
        Ok(())
    }
    #[getter]
    fn grad_fn(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        crate::ops::inplace::try_refresh_view(&self.t)?;
        self.t.grad_fn().map(|n| node_object(py, n)).transpose()
    }
    #[getter]
    fn _base(&self, py: Python<'_>) -> R {
        match self.t.view_base() {
            Some(b) => wrap(py, b.clone()),
            None => Ok(py.None()),
        }
    }
    fn _is_view(&self) -> bool {
        self.t.view_base().is_some()
    }
    #[getter]
    fn get_data(&self, py: Python<'_>) -> R {
        wrap(py, self.t.data_alias())
    }
    #[setter]
    fn set_data(&self, value: PyRef<'_, PyTensor>) {
        self.t.set_data(&value.t);
    }
    #[getter]
    fn ndim(&self) -> usize {
        self.t.dim()
    }
    #[getter(T)]
    fn numpy_t(&self, py: Python<'_>) -> R {
        crate::python::boundary::cheap(py, || movement::numpy_t(&self.t))
    }
    #[getter]
    #[allow(non_snake_case)]
    fn mT(&self, py: Python<'_>) -> R {
        crate::python::boundary::cheap(py, || movement::transpose(&self.t, -2, -1))
    }
    #[getter]
    fn _version(&self) -> PyResult<u64> {
        Ok(self.t.checked_version()?)
    }
    /// Whether this is an inference tensor (Note [Inference mode] in `tensor::grad_mode`).
    fn is_inference(&self) -> bool {
        self.t.is_inference()
    }
    #[getter]
    fn output_nr(&self) -> u32 {
        self.t.output_nr()
    }
    #[getter]
    fn retains_grad(&self) -> bool {
        self.t.retains_grad()
    }

    #[pyo3(signature = (dim=None))]
    fn size(&self, py: Python<'_>, dim: Option<i64>) -> R {
        let shape = self.t.shape();
        match dim {
            None => helpers::size(py, &shape),
            Some(d) => Ok(shape[dim_of(d, shape.len())?].into_py_any(py)?),
        }
    }
    #[pyo3(signature = (dim=None))]
    fn stride(&self, py: Python<'_>, dim: Option<i64>) -> R {
        let s = self.t.strides();
        match dim {
            None => Ok(PyTuple::new(py, s.iter())?.into_any().unbind()),
            Some(d) => Ok(s[dim_of(d, s.len())?].into_py_any(py)?),
        }
    }
    fn storage_offset(&self) -> usize {
        self.t.read().layout.offset
    }
    fn data_ptr(&self) -> usize {
        let d = self.t.read();
        d.storage.data_ptr() as usize + d.layout.offset * d.dtype().itemsize()
    }
    fn dim(&self) -> usize {
        self.t.dim()
    }
    fn ndimension(&self) -> usize {
        self.t.dim()
    }
    fn numel(&self) -> usize {
        self.t.numel()
    }
    fn nelement(&self) -> usize {
        self.t.numel()
    }
    fn element_size(&self) -> usize {
        self.t.dtype().itemsize()
    }
    fn is_floating_point(&self) -> bool {
        self.t.dtype().is_floating_point()
    }
    fn is_contiguous(&self) -> bool {
        self.t.is_contiguous()
    }
    fn item(&self, py: Python<'_>) -> R {
        scalar_to_py(py, self.t.item()?)
    }
    fn tolist(&self, py: Python<'_>) -> R {
        to_list(py, &self.t)
    }
    #[pyo3(
        signature = (force=Flag::FALSE),
        text_signature = "($self, force=False)"
    )]
    fn numpy(slf: &Bound<'_, Self>, force: Flag) -> R {
        let force = force.get("numpy", "force")?;
        let t = &slf.borrow().t;
        if t.device().is_gpu() {
            if force {
                let host = crate::python::boundary::run(slf.py(), || {
                    creation::copy_to_device(&t.detach(), Device::Cpu)
                })?;
                let h = wrap(slf.py(), host)?;
                return helpers::numpy_view(slf.py(), h.bind(slf.py()));
            }
            return Err(crate::python::errors::type_error(format!(
                "can't convert {} device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.",
                t.device().name()
            )));
        }
        if t.requires_grad() && !force {
            return Err(crate::python::errors::runtime_error(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.",
            ));
        }
        helpers::numpy_view(slf.py(), slf.as_any())
    }
    /// What numpy needs to view this tensor's memory without a copy.
    fn _array_interface(&self, py: Python<'_>) -> R {
        let d = self.t.read();
        let item = d.dtype().itemsize();
        let typestr = match d.dtype() {
            DType::F32 => "<f4",
            DType::F64 => "<f8",
            DType::I64 => "<i8",
            DType::I32 => "<i4",
            DType::F16 => "<f2",
            DType::Bool => "|b1",
        };
        let dict = PyDict::new(py);
        dict.set_item("shape", PyTuple::new(py, d.layout.shape.iter())?)?;
        dict.set_item(
            "strides",
            PyTuple::new(py, d.layout.strides.iter().map(|s| s * item as isize))?,
        )?;
        dict.set_item("typestr", typestr)?;
        let ptr = d.storage.data_ptr() as usize + d.layout.offset * item;
        dict.set_item("data", (ptr, false))?;
        dict.set_item("version", 3)?;
        Ok(dict.into_any().unbind())
    }
}
