//! Tensor methods of the in-place view ops (`t_`, `transpose_`, `swapdims_`, `swapaxes_`,
//! `squeeze_`, `unsqueeze_`, `as_strided_`), of the views by geometry (`as_strided`,
//! `as_strided_scatter`) and of `resize_` / `resize_as_`: `ops::inplace_view`,
//! `ops::strided`, `ops::resize`.

use super::*;
use crate::ops::inplace_view::{inplace_view, InplaceView};
use crate::ops::strided;

/// A `memory_format=` of `resize_` / `resize_as_`: None when left out (or None), a memory
/// format object, or PyTorch's TypeError for anything else.
pub(crate) fn resize_format(
    op: &str,
    fmt: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<crate::tensor::layout::MemoryFormat>> {
    match fmt {
        Some(f) if !f.is_none() => crate::python::parse::memory_format_of(f)
            .map(Some)
            .ok_or_else(|| {
                crate::python::errors::type_error(format!(
                    "{op}(): argument 'memory_format' must be gradrs.memory_format, not {}",
                    crate::python::convert::arg_desc(f)
                ))
            }),
        _ => Ok(None),
    }
}

/// `resize_as_(self, template)`: `self.resize_(template.size())` (with `memory_format`, the
/// template's suggested format for `preserve_format`), returning `self`.
pub(crate) fn resize_as_object(
    slf: &Bound<'_, PyTensor>,
    template: &Tensor,
    fmt: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let fmt = resize_format("resize_as_", fmt)?;
    let t = slf.borrow().t.clone();
    crate::python::boundary::catch(|| crate::ops::resize::resize_as_(&t, template, fmt))?;
    Ok(slf.clone().into_any().unbind())
}

impl PyTensor {
    /// Run the in-place view op and return `self` (the same Python object).
    fn view_(slf: &Bound<'_, Self>, op: InplaceView) -> PyResult<Py<PyAny>> {
        let t = slf.borrow().t.clone();
        crate::python::boundary::catch(|| inplace_view(&t, op))?;
        Ok(slf.clone().into_any().unbind())
    }
}

#[pymethods]
impl PyTensor {
    /// t_() -> Tensor
    ///
    /// In-place version of `t()`: the tensor (at most 2-D) becomes its transpose, sharing the
    /// same storage; returns `self`.
    ///
    /// Example:
    ///     >>> x = gradrs.zeros(2, 3)
    ///     >>> x.t_().shape
    ///     gradrs.Size([3, 2])
    fn t_(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        Self::view_(slf, InplaceView::T)
    }
    /// transpose_(dim0, dim1) -> Tensor
    ///
    /// In-place version of `transpose()`: dims `dim0` and `dim1` swapped in `self`'s layout;
    /// returns `self`.
    ///
    /// Example:
    ///     >>> x = gradrs.zeros(2, 3, 4)
    ///     >>> x.transpose_(0, 2).shape
    ///     gradrs.Size([4, 3, 2])
    fn transpose_(slf: &Bound<'_, Self>, dim0: i64, dim1: i64) -> PyResult<Py<PyAny>> {
        Self::view_(slf, InplaceView::Transpose(dim0, dim1))
    }
    /// swapdims_(dim0, dim1) -> Tensor
    ///
    /// In-place version of `swapdims()`, an alias of `transpose_()`.
    fn swapdims_(slf: &Bound<'_, Self>, dim0: i64, dim1: i64) -> PyResult<Py<PyAny>> {
        Self::view_(slf, InplaceView::Transpose(dim0, dim1))
    }
    /// swapaxes_(axis0, axis1) -> Tensor
    ///
    /// In-place version of `swapaxes()`, an alias of `transpose_()`.
    fn swapaxes_(slf: &Bound<'_, Self>, axis0: i64, axis1: i64) -> PyResult<Py<PyAny>> {
        Self::view_(slf, InplaceView::Transpose(axis0, axis1))
    }
    /// squeeze_(dim=None) -> Tensor
    ///
    /// In-place version of `squeeze()`: the size-1 dims (all of them, or those among `dim`,
    /// an int or a tuple of ints) removed from `self`'s layout; returns `self`.
    ///
    /// Example:
    ///     >>> x = gradrs.zeros(2, 1, 3, 1)
    ///     >>> x.squeeze_(1).shape
    ///     gradrs.Size([2, 3, 1])
    ///     >>> x.squeeze_().shape
    ///     gradrs.Size([2, 3])
    #[pyo3(signature = (*args, **kwargs), text_signature = "($self, dim=None)")]
    fn squeeze_(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let mut given: Vec<Bound<'_, PyAny>> = args.iter().collect();
        if let Some(kw) = kwargs {
            for (k, v) in kw.iter() {
                let k: String = k.extract()?;
                if k != "dim" || !given.is_empty() {
                    return Err(crate::python::errors::type_error(format!(
                        "squeeze_() got an unexpected keyword argument '{k}'"
                    )));
                }
                given.push(v);
            }
        }
        let op = match given.as_slice() {
            [] => InplaceView::Squeeze,
            [d] if d.is_instance_of::<pyo3::types::PyTuple>()
                || d.is_instance_of::<pyo3::types::PyList>() =>
            {
                InplaceView::SqueezeDims(d.extract()?)
            }
            [d] if d.extract::<i64>().is_ok() && !d.is_instance_of::<pyo3::types::PyBool>() => {
                InplaceView::SqueezeDim(d.extract()?)
            }
            _ => {
                let got: Vec<String> = given
                    .iter()
                    .map(|a| crate::python::convert::arg_desc(a))
                    .collect();
                let marked = got
                    .iter()
                    .map(|g| format!("!{g}!"))
                    .collect::<Vec<_>>()
                    .join(", ");
                return Err(crate::python::errors::type_error(format!(
                    "squeeze_() received an invalid combination of arguments - got ({}), but expected one of:\n * ()\n      didn't match because some of the arguments have invalid types: ({marked})\n * (int dim)\n      didn't match because some of the arguments have invalid types: ({marked})\n * (tuple of ints dim)\n      didn't match because some of the arguments have invalid types: ({marked})\n",
                    got.join(", ")
                )));
            }
        };
        Self::view_(slf, op)
    }
    /// unsqueeze_(dim) -> Tensor
    ///
    /// In-place version of `unsqueeze()`: a size-1 dim inserted at `dim` in `self`'s layout;
    /// returns `self`.
    ///
    /// Example:
    ///     >>> x = gradrs.zeros(3)
    ///     >>> x.unsqueeze_(-1).shape
    ///     gradrs.Size([3, 1])
    fn unsqueeze_(slf: &Bound<'_, Self>, dim: i64) -> PyResult<Py<PyAny>> {
        Self::view_(slf, InplaceView::Unsqueeze(dim))
    }
    /// as_strided_(size, stride, storage_offset=None) -> Tensor
    ///
    /// In-place version of `as_strided()`: `self` reads its storage with the given sizes,
    /// strides (in elements) and storage offset (default: its own); returns `self`.
    ///
    /// Example:
    ///     >>> x = gradrs.arange(6.)
    ///     >>> x.as_strided_((2, 2), (1, 2), 1)
    ///     tensor([[1., 3.],
    ///             [2., 4.]])
    #[pyo3(signature = (size, stride, storage_offset=None))]
    fn as_strided_(
        slf: &Bound<'_, Self>,
        size: Vec<i64>,
        stride: Vec<i64>,
        storage_offset: Option<i64>,
    ) -> PyResult<Py<PyAny>> {
        let op = InplaceView::AsStrided {
            size,
            stride,
            storage_offset,
        };
        Self::view_(slf, op)
    }
    /// as_strided(size, stride, storage_offset=None) -> Tensor
    ///
    /// A view of `self`'s storage with the given sizes, strides (in elements) and storage
    /// offset (default: `self`'s), checked to lie inside the storage. Elements may overlap;
    /// the backward (AsStridedBackward0) sums their gradients.
    ///
    /// Example:
    ///     >>> x = gradrs.arange(6.)
    ///     >>> x.as_strided((2, 2), (1, 2), 1)
    ///     tensor([[1., 3.],
    ///             [2., 4.]])
    #[pyo3(signature = (size, stride, storage_offset=None))]
    fn as_strided(
        &self,
        py: Python<'_>,
        size: Vec<i64>,
        stride: Vec<i64>,
        storage_offset: Option<i64>,
    ) -> R {
        crate::python::boundary::cheap(py, || {
            strided::as_strided(&self.t, &size, &stride, storage_offset)
        })
    }
    /// as_strided_scatter(src, size, stride, storage_offset=None) -> Tensor
    ///
    /// A copy of `self` whose elements at the given geometry of the copy's storage are
    /// `src`'s.
    ///
    /// Example:
    ///     >>> gradrs.zeros(4).as_strided_scatter(gradrs.ones(2), (2,), (2,))
    ///     tensor([1., 0., 1., 0.])
    #[pyo3(signature = (src, size, stride, storage_offset=None))]
    fn as_strided_scatter(
        &self,
        py: Python<'_>,
        src: PyRef<'_, PyTensor>,
        size: Vec<i64>,
        stride: Vec<i64>,
        storage_offset: Option<i64>,
    ) -> R {
        let src = src.t.clone();
        crate::python::boundary::tensor(py, || {
            strided::as_strided_scatter(&self.t, &src, &size, &stride, storage_offset)
        })
    }
    /// resize_(*sizes, memory_format=None) -> Tensor
    ///
    /// Resizes `self` to `sizes` in place: contiguous strides from its storage offset, the
    /// storage grown when too small (old elements kept, new ones zeroed in gradrs, undefined in
    /// PyTorch) and never shrunk. A tensor that requires grad cannot be resized; nor can memory
    /// owned elsewhere (a numpy array's) grow. With `memory_format` (`gradrs.contiguous_format`,
    /// `channels_last` for 4 dims, `channels_last_3d` for 5; not `preserve_format`) the resized
    /// tensor then takes that format's strides. Returns `self`.
    ///
    /// Example:
    ///     >>> x = gradrs.arange(6.)
    ///     >>> x.resize_(2, 2)
    ///     tensor([[0., 1.],
    ///             [2., 3.]])
    #[pyo3(signature = (*sizes, memory_format=None), text_signature = "($self, *sizes, memory_format=None)")]
    fn resize_(
        slf: &Bound<'_, Self>,
        sizes: &Bound<'_, PyTuple>,
        memory_format: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let fmt = resize_format("resize_", memory_format)?;
        let sizes = sizes_arg("resize_", "size", sizes)?;
        let t = slf.borrow().t.clone();
        crate::python::boundary::catch(|| crate::ops::resize::resize_(&t, &sizes, fmt))?;
        Ok(slf.clone().into_any().unbind())
    }
    /// resize_as_(the_template, memory_format=None) -> Tensor
    ///
    /// `self.resize_(the_template.size())`; returns `self`.
    ///
    /// Example:
    ///     >>> gradrs.arange(6.).resize_as_(gradrs.zeros(2, 3)).shape
    ///     gradrs.Size([2, 3])
    #[pyo3(signature = (the_template, memory_format=None))]
    fn resize_as_(
        slf: &Bound<'_, Self>,
        the_template: PyRef<'_, PyTensor>,
        memory_format: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let template = the_template.t.clone();
        resize_as_object(slf, &template, memory_format)
    }
}
