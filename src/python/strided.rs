//! `gradrs.as_strided`, `gradrs.as_strided_scatter`, `gradrs.empty_strided` (`ops::strided`) and
//! `gradrs.resize_as_` (`ops::resize`).

use super::boundary;
use super::convert::Flag;
use super::dtype::{check_device, extract_dtype};
use super::tensor::PyTensor;
use crate::dtype::default_float;
use crate::ops::strided;
use pyo3::prelude::*;

type R = PyResult<Py<PyAny>>;

/// as_strided(input, size, stride, storage_offset=None) -> Tensor
///
/// A view of `input`'s storage with the given sizes, strides (in elements) and storage offset
/// (default: `input`'s), checked to lie inside the storage. Elements may overlap; the
/// backward (AsStridedBackward0) sums their gradients.
///
/// Example:
///     >>> x = gradrs.arange(6.)
///     >>> gradrs.as_strided(x, (2, 2), (1, 2), 1)
///     tensor([[1., 3.],
///             [2., 4.]])
#[pyfunction]
#[pyo3(signature = (input, size, stride, storage_offset=None))]
fn as_strided(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    size: Vec<i64>,
    stride: Vec<i64>,
    storage_offset: Option<i64>,
) -> R {
    let x = input.t.clone();
    boundary::cheap(py, || {
        strided::as_strided(&x, &size, &stride, storage_offset)
    })
}

/// as_strided_scatter(input, src, size, stride, storage_offset=None) -> Tensor
///
/// A copy of `input` whose elements at the given geometry of the copy's storage are `src`'s
/// (the values `as_strided(copy, size, stride, storage_offset)` would read).
///
/// Example:
///     >>> gradrs.as_strided_scatter(gradrs.zeros(4), gradrs.ones(2), (2,), (2,))
///     tensor([1., 0., 1., 0.])
#[pyfunction]
#[pyo3(signature = (input, src, size, stride, storage_offset=None))]
fn as_strided_scatter(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    src: PyRef<'_, PyTensor>,
    size: Vec<i64>,
    stride: Vec<i64>,
    storage_offset: Option<i64>,
) -> R {
    let (x, src) = (input.t.clone(), src.t.clone());
    boundary::tensor(py, || {
        strided::as_strided_scatter(&x, &src, &size, &stride, storage_offset)
    })
}

/// empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False) -> Tensor
///
/// A tensor with the given sizes and strides over a new storage just large enough for them.
/// Its values are undefined in PyTorch; gradrs hands out zeroed memory.
///
/// Args:
///     size (tuple of ints): the shape.
///     stride (tuple of ints): the strides, in elements.
///     dtype (gradrs.dtype, optional): default: the default float dtype.
///     layout: only `gradrs.strided`.
///     device (gradrs.device, optional): default: the CPU.
///     requires_grad (bool, optional): default `False`.
///     pin_memory (bool, optional): accepted for PyTorch's signature.
///
/// Example:
///     >>> gradrs.empty_strided((2, 3), (1, 2)).stride()
///     (1, 2)
#[pyfunction]
#[pyo3(
    signature = (size, stride, *, dtype=None, layout=None, device=None, requires_grad=Flag::FALSE, pin_memory=Flag::FALSE),
    text_signature = "(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False)"
)]
#[allow(clippy::too_many_arguments)]
fn empty_strided(
    py: Python<'_>,
    size: Vec<i64>,
    stride: Vec<i64>,
    dtype: Option<&Bound<'_, PyAny>>,
    layout: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: Flag,
    pin_memory: Flag,
) -> R {
    let _ = layout;
    let requires_grad = requires_grad.get("empty_strided", "requires_grad")?;
    pin_memory.get("empty_strided", "pin_memory")?;
    let dev = check_device("empty_strided", device)?.unwrap_or(crate::tensor::Device::Cpu);
    let d = extract_dtype(dtype)?.unwrap_or_else(default_float);
    if dev.is_gpu() {
        crate::tensor::device::check_gpu_dtype(d)?;
    }
    let t = boundary::catch(|| strided::empty_strided(&size, &stride, d, dev))?;
    if requires_grad {
        t.set_requires_grad_from(true, crate::tensor::GradSetter::Factory)?;
    }
    super::tensor::wrap(py, t)
}

/// resize_as_(input, the_template, memory_format=None) -> Tensor
///
/// `input.resize_as_(the_template)`: `input` resized in place to `the_template`'s size;
/// returns `input`.
///
/// Example:
///     >>> gradrs.resize_as_(gradrs.arange(6.), gradrs.zeros(3, 2)).shape
///     gradrs.Size([3, 2])
#[pyfunction]
#[pyo3(signature = (input, the_template, memory_format=None))]
fn resize_as_(
    input: &Bound<'_, PyTensor>,
    the_template: PyRef<'_, PyTensor>,
    memory_format: Option<&Bound<'_, PyAny>>,
) -> R {
    let template = the_template.t.clone();
    super::tensor::resize_as_object(input, &template, memory_format)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(resize_as_, m)?)?;
    m.add_function(wrap_pyfunction!(as_strided, m)?)?;
    m.add_function(wrap_pyfunction!(as_strided_scatter, m)?)?;
    m.add_function(wrap_pyfunction!(empty_strided, m)?)?;
    Ok(())
}
