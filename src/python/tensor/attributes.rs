//! Tensor attributes and sizes: shape, dtype, device, requires_grad, grad, grad_fn, views' base,
//! size / stride / numel, item / tolist / numpy.

use super::*;
use crate::python::convert::Int;
use std::sync::atomic::AtomicBool;

#[pymethods]
impl PyTensor {
    // ---- attributes -------------------------------------------------------------------------

    /// The tensor's size, a `gradrs.Size` (same as `size()`).
    #[getter]
    fn shape(&self, py: Python<'_>) -> R {
        helpers::size(py, &self.t.shape())
    }
    /// The tensor's element type, a `gradrs.dtype`.
    #[getter]
    fn dtype(&self, py: Python<'_>) -> Py<crate::python::dtype::PyDType> {
        dtype_object(py, self.t.dtype())
    }
    /// The device the tensor's storage lives on, a `gradrs.device`.
    #[getter]
    fn device(&self) -> PyDevice {
        PyDevice::of(self.t.device())
    }
    /// True on the GPU: `cuda` is gradrs's alias for it, so CUDA code takes its GPU branch.
    #[getter]
    fn is_cuda(&self) -> bool {
        self.t.device().is_gpu()
    }
    /// True if the tensor's storage is on the CPU.
    #[getter]
    fn is_cpu(&self) -> bool {
        !self.t.device().is_gpu()
    }
    /// Whether this tensor is a leaf of the autograd graph: all tensors that do not require grad
    /// are leaves, and so are tensors that require grad and were created by the user (not by an
    /// operation: their `grad_fn` is `None`). Only leaves get their `.grad` filled by `backward()`
    /// (see `retain_grad()` for the others).
    ///
    /// Example:
    ///     >>> a = gradrs.rand(3, requires_grad=True)
    ///     >>> a.is_leaf
    ///     True
    ///     >>> (a * 2).is_leaf
    ///     False
    ///     >>> (a * 2).detach().is_leaf
    ///     True
    // Reads the history as `grad_fn` does (a stale view's may raise, as PyTorch's).
    #[getter]
    fn is_leaf(&self) -> PyResult<bool> {
        crate::ops::inplace::try_refresh_view(&self.t)?;
        Ok(self.t.is_leaf())
    }
    /// Whether autograd records operations on this tensor (settable on leaves).
    #[getter]
    fn get_requires_grad(&self) -> bool {
        self.t.requires_grad()
    }
    #[setter]
    fn set_requires_grad(&self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        // PyTorch takes exactly a bool here, with a RuntimeError for anything else.
        let value = value
            .cast::<pyo3::types::PyBool>()
            .map_err(|_| crate::python::errors::runtime_error("requires_grad must be a bool"))?
            .is_true();
        Ok(self.t.set_requires_grad(value)?)
    }
    /// The gradient accumulated into this leaf by `backward()`, or None.
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
                return Err(crate::python::errors::runtime_error(format!(
                    "attempting to assign a gradient of size '{gs:?}' to a tensor of size '{ts:?}'. Please ensure that the gradient and the tensor are the same size"
                )));
            }
            if g.t.dtype() != self.t.dtype() {
                return Err(crate::python::errors::runtime_error(format!(
                    "attempting to assign a gradient with dtype '{}' to a tensor with grad_dtype '{}'. The gradient must match the tensor's grad_dtype (defaults to the tensor's dtype). You can set the tensor's grad_dtype attribute with a specific dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its gradient may break downstream systems that assume they match.",
                    crate::dtype::cpp_name(g.t.dtype()),
                    crate::dtype::pretty_kernel_name(self.t.dtype())
                )));
            }
        }
        self.t.set_grad(value.map(|g| g.t.clone()));
        Ok(())
    }
    /// The node that created this tensor (None for leaves and tensors without history).
    #[getter]
    fn grad_fn(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        crate::ops::inplace::try_refresh_view(&self.t)?;
        self.t.grad_fn().map(|n| node_object(py, n)).transpose()
    }
    /// The tensor this view was taken from, or None if it is not a view.
    #[getter]
    fn _base(&self, py: Python<'_>) -> R {
        match self.t.view_base() {
            Some(b) => wrap(py, b.clone()),
            None => Ok(py.None()),
        }
    }
    /// True if the tensor is a view of another tensor's storage.
    fn _is_view(&self) -> bool {
        self.t.view_base().is_some()
    }
    /// The tensor's values without its history (a detached alias); assigning replaces them.
    #[getter]
    fn get_data(&self, py: Python<'_>) -> R {
        wrap(py, self.t.data_alias())
    }
    #[setter]
    fn set_data(&self, value: PyRef<'_, PyTensor>) {
        self.t.set_data(&value.t);
    }
    /// The number of dimensions (same as `dim()`).
    #[getter]
    fn ndim(&self) -> usize {
        self.t.dim()
    }
    /// The tensor with its dimensions reversed (a view); PyTorch's once-per-process deprecation
    /// warnings below and above 2 dims.
    #[getter(T)]
    fn numpy_t(&self, py: Python<'_>) -> R {
        static NOT_2D: AtomicBool = AtomicBool::new(false);
        static ZERO_D: AtomicBool = AtomicBool::new(false);
        let nd = self.t.dim();
        if nd != 2 && nd != 0 {
            helpers::warn_once(py, &NOT_2D, c"The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and it will throw an error in a future release. Consider `x.mT` to transpose batches of matrices or `x.permute(*gradrs.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4314.)")?;
        }
        if nd == 0 {
            helpers::warn_once(py, &ZERO_D, c"Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4321.)")?;
        }
        crate::python::boundary::cheap(py, || movement::numpy_t(&self.t))
    }
    /// The tensor with its last two dimensions transposed (a view); at 0-D the tensor itself,
    /// with PyTorch's once-per-process deprecation warning.
    #[getter]
    #[allow(non_snake_case)]
    fn mT(&self, py: Python<'_>) -> R {
        static ZERO_D: AtomicBool = AtomicBool::new(false);
        if self.t.dim() == 0 {
            helpers::warn_once(py, &ZERO_D, c"Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4373.)")?;
        }
        crate::python::boundary::cheap(py, || movement::matrix_transpose(&self.t, "mT"))
    }
    /// The conjugate transpose of the last two dimensions: a real tensor's `mT` (a view), with
    /// PyTorch's own warning and error texts.
    #[getter]
    #[allow(non_snake_case)]
    fn mH(&self, py: Python<'_>) -> R {
        static ZERO_D: AtomicBool = AtomicBool::new(false);
        if self.t.dim() == 0 {
            helpers::warn_once(py, &ZERO_D, c"Tensor.mH is deprecated on 0-D tensors. Consider using x.conj(). (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4382.)")?;
        }
        crate::python::boundary::cheap(py, || movement::matrix_transpose(&self.t, "mH"))
    }
    /// The conjugate transpose of a matrix (a view); at 0-D the tensor itself, with PyTorch's
    /// once-per-process deprecation warning.
    #[getter]
    #[allow(non_snake_case)]
    fn H(&self, py: Python<'_>) -> R {
        static ZERO_D: AtomicBool = AtomicBool::new(false);
        if self.t.dim() == 0 {
            helpers::warn_once(py, &ZERO_D, c"Tensor.H is deprecated on 0-D tensors. Consider using x.conj(). (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4335.)")?;
        }
        crate::python::boundary::cheap(py, || movement::matrix_h(&self.t))
    }
    /// The version counter: incremented by each in-place write to the tensor's storage.
    #[getter]
    fn _version(&self) -> PyResult<u64> {
        Ok(self.t.checked_version()?)
    }
    /// is_inference() -> bool
    ///
    /// Whether this tensor is an inference tensor: one created under `gradrs.inference_mode()`,
    /// which never records autograd history.
    ///
    /// Example:
    ///     >>> gradrs.ones(2).is_inference()
    ///     False
    ///     >>> with gradrs.inference_mode():
    ///     ...     t = gradrs.ones(2)
    ///     >>> t.is_inference()
    ///     True
    // Whether this is an inference tensor (Note [Inference mode] in `tensor::grad_mode`).
    fn is_inference(&self) -> bool {
        self.t.is_inference()
    }
    /// Which output of its `grad_fn` this tensor is.
    #[getter]
    fn output_nr(&self) -> u32 {
        self.t.output_nr()
    }
    /// True if this non-leaf keeps its `.grad` (see `retain_grad()`).
    #[getter]
    fn retains_grad(&self) -> bool {
        self.t.retains_grad()
    }

    /// size(dim=None) -> Size or int
    ///
    /// The tensor's size, or the size of dimension `dim`.
    #[pyo3(signature = (dim=None))]
    fn size(&self, py: Python<'_>, dim: Option<Int>) -> R {
        let shape = self.t.shape();
        // PyTorch's parser takes no bool for `dim` (`x.size(True)` is a TypeError).
        match dim.map(|d| d.get("size", "dim", 1)).transpose()? {
            None => helpers::size(py, &shape),
            Some(d) => Ok(shape[dim_of(d, shape.len())?].into_py_any(py)?),
        }
    }
    /// stride(dim=None) -> tuple or int
    ///
    /// The step in elements between neighbours along each dimension, or along `dim`.
    #[pyo3(signature = (dim=None))]
    fn stride(&self, py: Python<'_>, dim: Option<Int>) -> R {
        let s = self.t.strides();
        match dim.map(|d| d.get("stride", "dim", 1)).transpose()? {
            None => Ok(PyTuple::new(py, s.iter())?.into_any().unbind()),
            Some(d) => Ok(s[dim_of(d, s.len())?].into_py_any(py)?),
        }
    }
    /// The offset, in elements, of the tensor's first element in its storage.
    fn storage_offset(&self) -> usize {
        self.t.read().layout.offset
    }
    /// share_memory_() -> Tensor
    ///
    /// Moves the storage of `self` into shared memory (an anonymous shared mapping), so that a
    /// process forked afterwards (`multiprocessing` with the `fork` start method) and this one
    /// see each other's writes. Every tensor sharing the storage moves with it. A no-op when
    /// the storage is shared already, and on the GPU (as PyTorch's CUDA tensors). Returns
    /// `self`.
    ///
    /// Example:
    ///     >>> x = gradrs.zeros(3)
    ///     >>> x.share_memory_() is x, x.is_shared()
    ///     (True, True)
    fn share_memory_(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        let storage = slf.borrow().t.read().storage.clone();
        crate::python::boundary::catch(|| storage.share_memory())?;
        Ok(slf.clone().into_any().unbind())
    }
    /// is_shared() -> bool
    ///
    /// Whether the storage of `self` is in shared memory (`share_memory_`); GPU tensors count
    /// as shared, as PyTorch's CUDA tensors.
    ///
    /// Example:
    ///     >>> gradrs.zeros(3).is_shared()
    ///     False
    fn is_shared(&self) -> bool {
        self.t.read().storage.is_shared()
    }
    /// as_subclass(cls) -> Tensor
    ///
    /// Makes a `cls` instance with the same data pointer as `self`. Changes in the output
    /// mirror changes in `self`, and the output stays attached to the autograd graph (an
    /// alias, AliasBackward0). `cls` must be a subclass of `Tensor`; its `__new__` and
    /// `__init__` are not called.
    ///
    /// Example:
    ///     >>> class Sub(gradrs.Tensor):
    ///     ...     pass
    ///     >>> type(gradrs.ones(2).as_subclass(Sub)).__name__
    ///     'Sub'
    fn as_subclass(&self, py: Python<'_>, cls: &Bound<'_, PyAny>) -> R {
        let tensor_type = py.get_type::<PyTensor>();
        let is_tensor_class = match cls.cast::<pyo3::types::PyType>() {
            Ok(c) => c.is_subclass(&tensor_type)?,
            Err(_) => {
                return Err(crate::python::errors::type_error(format!(
                    "cls must be a type (got {})",
                    crate::python::convert::type_name(cls)
                )))
            }
        };
        if !is_tensor_class {
            return Err(crate::python::errors::type_error(
                "Creating a Tensor subclass from a class that does not inherit from Tensor is not possible. Make sure your class inherits from Tensor.",
            ));
        }
        let alias = crate::python::boundary::catch(|| movement::view_as_alias(&self.t))?;
        // The base class's __new__ allocates a `cls` object (an empty tensor), which then
        // takes the alias and becomes its Python object (as `__init__` does).
        let obj = tensor_type.getattr("__new__")?.call1((cls,))?;
        let binding = alias.0.clone();
        obj.cast::<PyTensor>()?.borrow_mut().t = alias;
        binding
            .binding
            .store(obj.as_ptr() as usize, Ordering::Release);
        Ok(obj.unbind())
    }
    /// The address of the tensor's first element.
    fn data_ptr(&self) -> usize {
        let d = self.t.read();
        d.storage.data_ptr() as usize + d.layout.offset * d.dtype().itemsize()
    }
    /// The number of dimensions.
    fn dim(&self) -> usize {
        self.t.dim()
    }
    /// Alias for `dim()`.
    fn ndimension(&self) -> usize {
        self.t.dim()
    }
    /// The number of elements.
    fn numel(&self) -> usize {
        self.t.numel()
    }
    /// Alias for `numel()`.
    fn nelement(&self) -> usize {
        self.t.numel()
    }
    /// The size of one element in bytes.
    fn element_size(&self) -> usize {
        self.t.dtype().itemsize()
    }
    /// True if the dtype is a floating point type.
    fn is_floating_point(&self) -> bool {
        self.t.dtype().is_floating_point()
    }
    /// True if the tensor is laid out in row-major order without gaps.
    fn is_contiguous(&self) -> bool {
        self.t.is_contiguous()
    }
    /// The value of a one-element tensor as a Python number.
    fn item(&self, py: Python<'_>) -> R {
        scalar_to_py(py, self.t.item()?)
    }
    /// The tensor as nested Python lists of numbers (a number for a 0-dim tensor).
    fn tolist(&self, py: Python<'_>) -> R {
        to_list(py, &self.t)
    }
    /// numpy(force=False) -> numpy.ndarray
    ///
    /// A NumPy array sharing the tensor's memory; `force=True` also takes a tensor that requires
    /// grad, and copies a GPU tensor to the CPU.
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
            DType::U8 => "|u1",
            DType::I8 => "|i1",
            DType::I16 => "<i2",
            // numpy has no bfloat16 (`numpy()` refuses it first).
            DType::BF16 => {
                return Err(crate::python::errors::type_error(
                    "Got unsupported ScalarType BFloat16",
                ))
            }
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
