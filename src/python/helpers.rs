//! Calls back into the pure-Python half of the package (registered once at import):
//! `Size`, the repr formatter, numpy views.

use pyo3::exceptions::PyUserWarning;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyTuple;
use pyo3::IntoPyObjectExt;

static SIZE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static REPR: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static NUMPY_VIEW: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static FOREIGN_OPERATOR: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// `gradrs._native._register(Size, tensor_repr, numpy_view)`, called by `gradrs/__init__.py`.
#[pyfunction]
pub fn _register(py: Python<'_>, size: Py<PyAny>, repr: Py<PyAny>, numpy_view: Py<PyAny>) {
    let _ = SIZE.set(py, size);
    let _ = REPR.set(py, repr);
    let _ = NUMPY_VIEW.set(py, numpy_view);
}

fn get<'a>(cell: &'a PyOnceLock<Py<PyAny>>, py: Python<'_>) -> PyResult<&'a Py<PyAny>> {
    cell.get(py)
        .ok_or_else(|| super::errors::runtime_error("gradrs is not initialized: import gradrs"))
}

/// `gradrs._native._register_foreign_operator(fn)`: `_torch_function.foreign_operator`.
#[pyfunction]
pub fn _register_foreign_operator(py: Python<'_>, f: Py<PyAny>) {
    let _ = FOREIGN_OPERATOR.set(py, f);
}

/// Whether `o`'s class defines `__torch_function__` (a tensor-like PyTorch dispatches to).
pub fn tensor_like(o: &Bound<'_, PyAny>) -> bool {
    o.get_type()
        .hasattr(pyo3::intern!(o.py(), "__torch_function__"))
        .unwrap_or(false)
}

/// Note [Operators on tensor-likes]: an operand a native operator dunder cannot use gives
/// NotImplemented (so Python tries the reflected one), unless its class defines
/// `__torch_function__`: PyTorch's operators then dispatch to it, with `func` the Tensor
/// method the operator calls (`Tensor.add` for `+`), which `_torch_function.foreign_operator`
/// does. `r` is the operator's own result; a plain one costs one pointer comparison.
pub fn or_foreign(
    slf: &Bound<'_, PyAny>,
    name: &'static str,
    o: &Bound<'_, PyAny>,
    r: PyResult<Py<PyAny>>,
) -> PyResult<Py<PyAny>> {
    match r {
        // SAFETY: `Py_NotImplemented` is the address of a static object.
        Ok(v) if v.as_ptr() == unsafe { pyo3::ffi::Py_NotImplemented() } => {
            foreign_operator(slf, name, o)
        }
        r => r,
    }
}

/// The operator dunder `name` of tensor `slf` with operand `o`, dispatched to `o`'s
/// `__torch_function__` (NotImplemented when it has none).
pub fn foreign_operator(
    slf: &Bound<'_, PyAny>,
    name: &'static str,
    o: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let py = slf.py();
    match FOREIGN_OPERATOR.get(py) {
        Some(f) if tensor_like(o) => f.call1(py, (name, slf, o)),
        _ => Ok(py.NotImplemented()),
    }
}

pub fn size(py: Python<'_>, shape: &[usize]) -> PyResult<Py<PyAny>> {
    let tuple = PyTuple::new(py, shape.iter())?;
    get(&SIZE, py)?.call1(py, (tuple,))
}

pub fn repr(py: Python<'_>, t: &Bound<'_, PyAny>) -> PyResult<String> {
    get(&REPR, py)?.call1(py, (t,))?.extract(py)
}

pub fn numpy_view(py: Python<'_>, t: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    get(&NUMPY_VIEW, py)?.call1(py, (t,))
}

pub fn warn_non_leaf_grad(py: Python<'_>) -> PyResult<()> {
    let category = py.get_type::<PyUserWarning>();
    PyErr::warn(
        py,
        &category,
        c"The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be populated during autograd.backward(). If you indeed want the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more information. (Triggered internally at /__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)",
        1,
    )
}

/// PyTorch's deprecation warning for an advanced-index write (`index_put_`) into an expanded
/// tensor, which it then performs; with `masked`, also `masked_fill_`'s (a one-element value
/// written through a bool mask, which PyTorch's `index_put_` hands to `masked_fill_`).
pub fn warn_index_put_expanded(py: Python<'_>, masked: bool) -> PyResult<()> {
    let category = py.get_type::<PyUserWarning>();
    PyErr::warn(
        py,
        &category,
        c"Use of index_put_ on expanded tensors is deprecated. Please clone() the tensor before performing this operation. This also applies to advanced indexing e.g. tensor[indices] = tensor (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorAdvancedIndexing.cpp:976.)",
        1,
    )?;
    if masked {
        PyErr::warn(
            py,
            &category,
            c"Use of masked_fill_ on expanded tensors is deprecated. Please clone() the tensor before performing this operation. This also applies to advanced indexing e.g. tensor[mask] = scalar (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorAdvancedIndexing.cpp:2450.)",
            1,
        )?;
    }
    Ok(())
}

/// A `UserWarning` issued once per process, as PyTorch's `TORCH_WARN_ONCE` (`flag` is the call
/// site's own), attributed to the Python caller.
pub fn warn_once(
    py: Python<'_>,
    flag: &std::sync::atomic::AtomicBool,
    message: &std::ffi::CStr,
) -> PyResult<()> {
    if flag.swap(true, std::sync::atomic::Ordering::Relaxed) {
        return Ok(());
    }
    PyErr::warn(py, &py.get_type::<PyUserWarning>(), message, 1)
}

static CREATE_GRAPH_WARNED: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// PyTorch warns once per process when `backward(create_graph=True)` accumulates into leaves.
pub fn warn_create_graph_once(py: Python<'_>) -> PyResult<()> {
    if CREATE_GRAPH_WARNED.swap(true, std::sync::atomic::Ordering::Relaxed) {
        return Ok(());
    }
    let category = py.get_type::<PyUserWarning>();
    PyErr::warn(
        py,
        &category,
        c"Using backward() with create_graph=True will create a reference cycle between the parameter and its gradient which can cause a memory leak. We recommend using autograd.grad when creating the graph to avoid this. If you have to use this function, make sure to reset the .grad fields of your parameters to None after use to break the cycle and avoid the leak. (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/engine.cpp:1307.)",
        1,
    )
}

static SCALAR_WARNED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// PyTorch warns once per process when `float()` converts a tensor that requires grad (with
/// grad mode on).
pub fn warn_scalar_requires_grad_once(py: Python<'_>) -> PyResult<()> {
    if SCALAR_WARNED.swap(true, std::sync::atomic::Ordering::Relaxed) {
        return Ok(());
    }
    let category = py.get_type::<PyUserWarning>();
    PyErr::warn(
        py,
        &category,
        c"Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\nConsider using tensor.detach() first. (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/generated/python_variable_methods.cpp:822.)",
        1,
    )
}

static RETURN_TYPE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// `gradrs._native._register_return_types(make)`: `make(name, values, indices)` builds
/// `gradrs.return_types.<name>` named tuples.
#[pyfunction]
pub fn _register_return_types(py: Python<'_>, make: Py<PyAny>) {
    let _ = RETURN_TYPE.set(py, make);
}

pub fn return_type(
    py: Python<'_>,
    name: &str,
    values: Py<PyAny>,
    indices: Py<PyAny>,
) -> PyResult<Py<PyAny>> {
    get(&RETURN_TYPE, py)?.call1(py, (name, values, indices))
}

/// `gradrs.return_types.<name>(*outputs)` (a declared multi-output op's result).
pub fn return_type_of(py: Python<'_>, name: &str, outputs: Vec<Py<PyAny>>) -> PyResult<Py<PyAny>> {
    let mut args = vec![name.into_py_any(py)?];
    args.extend(outputs);
    get(&RETURN_TYPE, py)?.call1(py, PyTuple::new(py, args)?)
}
