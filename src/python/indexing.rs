//! Bindings of indexing (`x[key]`, `x[key] = v`, gather/scatter, masks) and shape ops.

use super::convert::{extract_scalar, Flag};
use super::pointwise::{in_place_checking, in_place_with, operand_arg, Overlap};
use super::tensor::{wrap, PyTensor};
use crate::dtype::{DType, Scalar};
use crate::ops::index::{self as ix, IndexStep};
use crate::ops::{inplace, shape, slicing, Operand};
use crate::python::convert::Int;
use crate::tensor::device::check_args;
use crate::tensor::Tensor;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyEllipsis, PyList, PySlice, PyTuple};

type R = PyResult<Py<PyAny>>;

/// One key entry before Ellipsis expansion.
enum Entry {
    Step(IndexStep),
    /// A bool mask over this many dims.
    Mask(Tensor),
    Ellipsis,
}

fn entry(obj: &Bound<'_, PyAny>) -> PyResult<Entry> {
    if obj.is_none() {
        return Ok(Entry::Step(IndexStep::NewAxis));
    }
    if obj.is_instance_of::<PyEllipsis>() {
        return Ok(Entry::Ellipsis);
    }
    if let Ok(s) = obj.cast::<PySlice>() {
        let get = |name: &str| -> PyResult<Option<i64>> {
            let v = s.getattr(name)?;
            if v.is_none() {
                Ok(None)
            } else {
                Ok(Some(v.extract()?))
            }
        };
        let step = get("step")?.unwrap_or(1);
        if step == 0 {
            // What Python's own slice unpacking says, which PyTorch's indexing uses.
            return Err(super::errors::value_error("slice step cannot be zero"));
        }
        return Ok(Entry::Step(IndexStep::Slice(
            get("start")?,
            get("stop")?,
            step,
        )));
    }
    if let Ok(t) = obj.cast::<PyTensor>() {
        let t = t.borrow().t.clone();
        return Ok(match t.dtype() {
            DType::Bool => Entry::Mask(t),
            DType::U8 => {
                // PyTorch still takes a byte tensor as a mask, with a deprecation warning.
                let py = obj.py();
                PyErr::warn(
                    py,
                    &py.get_type::<pyo3::exceptions::PyUserWarning>(),
                    c"indexing with dtype gradrs.uint8 is now deprecated, please use a dtype gradrs.bool instead.",
                    1,
                )?;
                Entry::Mask(crate::ops::creation::cast_data(&t, DType::Bool))
            }
            DType::I64 | DType::I32 if t.dim() == 0 => {
                Entry::Step(IndexStep::Select(t.item()?.to_i64()))
            }
            DType::I64 | DType::I32 => {
                Entry::Step(IndexStep::Tensor(crate::ops::creation::wide(&t)))
            }
            _ => {
                return Err(super::errors::index_error(
                    "tensors used as indices must be long, int, byte or bool tensors",
                ))
            }
        });
    }
    if obj.is_instance_of::<pyo3::types::PyBool>() {
        let b: bool = obj.extract()?;
        return Ok(Entry::Mask(Tensor::from_vec(vec![b], &[])));
    }
    if let Ok(i) = obj.extract::<i64>() {
        return Ok(Entry::Step(IndexStep::Select(i)));
    }
    if obj.is_instance_of::<pyo3::types::PyInt>() {
        // What PyTorch's unpacking of an int index past int64 says.
        return Err(super::errors::value_error(
            "Overflow when unpacking long long",
        ));
    }
    // PyTorch makes a tensor of a sequence index, strings included, whose type it refuses.
    if let Some(ty) = string_in(obj, 0) {
        return Err(super::errors::type_error(format!(
            "new(): invalid data type '{ty}'"
        )));
    }
    if is_sequence(obj) && !tensor_like(obj) {
        let t = indexing_tensor(obj)?;
        return entry(wrap(obj.py(), t)?.bind(obj.py()));
    }
    let ty = obj.get_type();
    // `tp_name` as PyTorch prints it: "float", "numpy.bool".
    let name = match ty.module().map(|m| m.to_string()) {
        Ok(m) if m != "builtins" => format!("{m}.{}", ty.name()?),
        _ => ty.name()?.to_string(),
    };
    Err(super::errors::index_error(format!(
        "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices (got {name})"
    )))
}

/// vmap's `BatchedTensor` (`_vmap_level`) stands for a tensor, not a sequence: refused by its
/// name, so vmap's batching rules take the index over.
fn tensor_like(obj: &Bound<'_, PyAny>) -> bool {
    obj.hasattr("_vmap_level").unwrap_or(false)
}

/// Python's `PySequence_Check`, which PyTorch's indexing asks: lists, ranges, numpy arrays and
/// any class with `__getitem__` (not only the registered `collections.abc.Sequence`s).
fn is_sequence(obj: &Bound<'_, PyAny>) -> bool {
    // SAFETY: `obj` is a live object held by the GIL; the call only reads its type's slots.
    unsafe { pyo3::ffi::PySequence_Check(obj.as_ptr()) != 0 }
}

/// PyTorch's `indexing_tensor_from_data`: a sequence index (a list, a range, a numpy array, a
/// bytearray, ...) becomes a tensor, kept bool or uint8 (a mask), else made long (floats
/// truncate).
fn indexing_tensor(obj: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    let t = if obj.is_instance_of::<PyList>()
        || obj.is_instance_of::<PyTuple>()
        || obj.hasattr("__array_interface__")?
    {
        super::convert::tensor_from_data(obj, None)?
    } else {
        let list = obj.py().get_type::<PyList>().call1((obj,))?;
        super::convert::tensor_from_data(&list, None)?
    };
    Ok(match t.dtype() {
        DType::Bool | DType::U8 | DType::I64 => t,
        _ => crate::ops::creation::cast_data(&t, DType::I64),
    })
}

/// PyTorch's `treatSequenceAsTuple` (numpy's old heuristic): a short non-tuple sequence holding
/// a tensor, a sequence, a slice, `...` or `None` indexes several dims, with a deprecation
/// warning; numpy arrays and long sequences are one index.
fn sequence_as_tuple(key: &Bound<'_, PyAny>) -> PyResult<bool> {
    if key.cast::<PyTensor>().is_ok()
        || !is_sequence(key)
        || tensor_like(key)
        || key
            .py()
            .import("numpy")
            .is_ok_and(|np| np.getattr("ndarray").is_ok_and(|nd| key.get_type().is(&nd)))
    {
        return Ok(false);
    }
    let Ok(n) = key.len() else {
        return Ok(false);
    };
    if n >= 32 {
        return Ok(false);
    }
    for i in 0..n {
        let Ok(item) = key.get_item(i) else {
            return Ok(false);
        };
        if item.cast::<PyTensor>().is_ok()
            || is_sequence(&item)
            || item.cast::<PySlice>().is_ok()
            || item.is_none()
            || item.is_instance_of::<PyEllipsis>()
        {
            let py = key.py();
            PyErr::warn(
                py,
                &py.get_type::<pyo3::exceptions::PyUserWarning>(),
                c"Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as tensor index, x[gradrs.tensor(seq)], which will result either in an error or a different result",
                1,
            )?;
            return Ok(true);
        }
    }
    Ok(false)
}

/// `str` or `bytes` where `obj` (an index) is one or holds one in its nested lists (the
/// depth a tensor takes, at most).
fn string_in(obj: &Bound<'_, PyAny>, depth: usize) -> Option<&'static str> {
    if obj.is_instance_of::<pyo3::types::PyString>() {
        return Some("str");
    }
    if obj.is_instance_of::<pyo3::types::PyBytes>() {
        return Some("bytes");
    }
    if depth >= 64 || !(obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>()) {
        return None;
    }
    obj.try_iter()
        .ok()?
        .filter_map(|o| o.ok())
        .find_map(|o| string_in(&o, depth + 1))
}

/// Parse a `__getitem__` key into steps for `x`.
fn steps(key: &Bound<'_, PyAny>, x: &Tensor) -> PyResult<Vec<IndexStep>> {
    let ndim = x.dim();
    let is_tuple = key.cast::<PyTuple>().is_ok() || sequence_as_tuple(key)?;
    let entries: Vec<Entry> = if is_tuple {
        key.try_iter()?
            .map(|o| entry(&o?))
            .collect::<PyResult<_>>()?
    } else {
        vec![entry(key)?]
    };
    let consumed: usize = entries
        .iter()
        .map(|e| match e {
            Entry::Step(IndexStep::NewAxis) | Entry::Ellipsis => 0,
            Entry::Mask(m) => m.dim(),
            Entry::Step(_) => 1,
        })
        .sum();
    if consumed > ndim {
        return Err(super::errors::index_error(format!(
            "too many indices for tensor of dimension {ndim}"
        )));
    }
    let mut out = Vec::new();
    let mut seen_ellipsis = false;
    // Each mask of one or more dims, with the first dim it covers in the view the basic steps
    // make (`out` holds one step per view dim, except selects).
    let mut masks: Vec<(usize, Tensor)> = Vec::new();
    for e in entries {
        match e {
            Entry::Ellipsis => {
                if seen_ellipsis {
                    return Err(super::errors::index_error(
                        "an index can only have a single ellipsis ('...')",
                    ));
                }
                seen_ellipsis = true;
                for _ in 0..ndim - consumed {
                    out.push(IndexStep::Whole);
                }
            }
            Entry::Mask(m) if m.dim() == 0 => {
                out.push(IndexStep::Bool(m.item()?.to_f64() != 0.0));
            }
            Entry::Mask(m) => {
                let at = out
                    .iter()
                    .filter(|s| !matches!(s, IndexStep::Select(_)))
                    .count();
                masks.push((at, m.clone()));
                let nz = ix::nonzero(&m);
                for d in 0..m.dim() {
                    let col = super::boundary::catch(|| slicing::select(&nz, 1, d as i64))?;
                    out.push(IndexStep::Tensor(crate::ops::creation::contiguous_clone(
                        &col,
                    )));
                }
            }
            // Inside a tuple key PyTorch skips `:` (no view op is recorded for it).
            Entry::Step(IndexStep::Slice(None | Some(0), None, 1)) if is_tuple => {
                out.push(IndexStep::Whole)
            }
            Entry::Step(s) => out.push(s),
        }
    }
    check_masks(x, &out, &masks)?;
    Ok(out)
}

/// PyTorch applies the basic steps first, then checks each mask against the dims it covers
/// in that view.
fn check_masks(x: &Tensor, steps: &[IndexStep], masks: &[(usize, Tensor)]) -> PyResult<()> {
    if masks.is_empty() {
        return Ok(());
    }
    let basic: Vec<IndexStep> = steps
        .iter()
        .map(|s| match s {
            IndexStep::Tensor(_) => IndexStep::Slice(None, None, 1),
            IndexStep::Bool(_) => IndexStep::NewAxis,
            s => s.clone(),
        })
        .collect();
    let view = {
        let _g = crate::autograd::GradModeGuard::new(false);
        super::boundary::catch(|| ix::getitem(&x.detach(), &basic))?.shape()
    };
    for (at, m) in masks {
        for (j, &size) in m.shape().iter().enumerate() {
            if view.get(at + j) != Some(&size) {
                return Err(super::errors::index_error(format!(
                    "The shape of the mask {} at index {j} does not match the shape of the indexed tensor {} at index {}",
                    crate::tensor::shape::list_repr(&m.shape()),
                    crate::tensor::shape::list_repr(&view),
                    at + j
                )));
            }
        }
    }
    Ok(())
}

/// The value of `x[key] = value`: a tensor or a Python number (a NumPy integer too; a float
/// subclass such as NumPy's float64), else PyTorch's TypeError naming both types (a list,
/// an array, a NumPy float32, None, a string are not converted).
fn value_operand(v: &Bound<'_, PyAny>, x: &Tensor) -> PyResult<Operand> {
    if let Ok(t) = v.cast::<PyTensor>() {
        return Ok(Operand::Tensor(t.borrow().t.clone()));
    }
    let ty = v.get_type();
    let numpy_int = ty.module().is_ok_and(|m| m == "numpy")
        && ty
            .name()
            .is_ok_and(|n| n.to_string().starts_with("int") || n.to_string().starts_with("uint"));
    let number = v.is_instance_of::<pyo3::types::PyInt>()
        || v.is_instance_of::<pyo3::types::PyFloat>()
        || v.is_instance_of::<pyo3::types::PyComplex>()
        || numpy_int;
    if number {
        if let Some(s) = extract_scalar(v) {
            return Ok(Operand::Scalar(s));
        }
        if v.is_instance_of::<pyo3::types::PyInt>() {
            // An int past int64: what PyTorch's unpacking says.
            return Err(super::errors::value_error(
                "Overflow when unpacking long long",
            ));
        }
    }
    if v.is_instance_of::<pyo3::types::PyComplex>() {
        let t = super::convert::tensor_from_data(v, None)?;
        return Ok(Operand::Tensor(t));
    }
    let cuda = if x.device().is_gpu() { "cuda." } else { "" };
    Err(super::errors::type_error(format!(
        "can't assign a {} to a gradrs.{cuda}{}",
        super::convert::type_name(v),
        x.dtype().legacy_name()
    )))
}

/// The `tensors` argument of `cat` / `stack`: a sequence of tensors, PyTorch's TypeErrors
/// otherwise (a tensor is not taken for the sequence of its rows).
fn tensor_list(seq: &Bound<'_, PyAny>, op: &str) -> PyResult<Vec<Tensor>> {
    let type_name =
        |o: &Bound<'_, PyAny>| -> PyResult<String> { Ok(o.get_type().name()?.to_string()) };
    let items = match seq.cast::<pyo3::types::PySequence>() {
        Ok(s) if !seq.is_instance_of::<PyTensor>() => s,
        _ => {
            return Err(super::errors::type_error(format!(
                "{op}(): argument 'tensors' (position 1) must be tuple of Tensors, not {}",
                type_name(seq)?
            )))
        }
    };
    (0..items.len()?)
        .map(|i| {
            let o = items.get_item(i)?;
            match o.cast::<PyTensor>() {
                Ok(t) => Ok(t.borrow().t.clone()),
                Err(_) => Err(super::errors::type_error(format!(
                    "expected Tensor as element {i} in argument 0, but got {}",
                    type_name(&o)?
                ))),
            }
        })
        .collect()
}

fn tuple_of(py: Python<'_>, ts: Vec<Tensor>) -> R {
    let objs: Vec<Py<PyAny>> = ts
        .into_iter()
        .map(|t| wrap(py, t))
        .collect::<PyResult<_>>()?;
    Ok(PyTuple::new(py, objs)?.into_any().unbind())
}

#[pymethods]
impl PyTensor {
    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> R {
        let s = steps(key, &self.t)?;
        super::boundary::catch(|| ix::check_index_devices(&self.t, &s))?;
        super::boundary::tensor(py, || ix::getitem(&self.t, &s))
    }
    fn __setitem__(&self, key: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        // Writes keep the GIL (Note [Storage mutation]); panics are caught all the same.
        super::boundary::held(|| {
            let s = steps(key, &self.t)?;
            super::boundary::catch(|| ix::check_index_devices(&self.t, &s))?;
            let v = value_operand(value, &self.t)?;
            let d = self.t.dtype();
            if let (Operand::Scalar(s), true) = (&v, d.is_integral()) {
                // A number no integer of the dtype holds (NaN, 2**40 into int32) is refused.
                crate::dtype::check_fits(*s, d, crate::dtype::cpp_name(d))?;
            }
            let vt = v.edge_tensor(self.t.dtype());
            if key.is_instance_of::<PyEllipsis>() {
                // PyTorch: `x[...] = v` is `x.copy_(v)` (CopyBackwards).
                let vs = vt.shape();
                let lead = vs.iter().take_while(|&&d| d == 1).count();
                let vt = if lead > 0 {
                    super::boundary::catch(|| {
                        crate::ops::movement::reshape(
                            &vt,
                            &crate::tensor::shape::sizes_i64(&vs[lead..]),
                        )
                    })?
                } else {
                    vt
                };
                return Ok(super::boundary::catch(|| inplace::copy_(&self.t, &vt))?);
            }
            if !s.iter().any(IndexStep::is_advanced) {
                // Basic indexing writes through a view as `copy_` (Note [Write overlap]);
                // an index tensor's `index_put_` is not checked, as in PyTorch.
                super::boundary::catch(|| {
                    crate::ops::inplace::check_inplace_leaf(&self.t)?;
                    let view = {
                        let _g = crate::autograd::GradModeGuard::new(false);
                        ix::getitem(&self.t.detach(), &s)?
                    };
                    inplace::check_write(&view, &[&vt])
                })?;
            }
            if (crate::autograd::is_grad_enabled()
                && (self.t.requires_grad() || vt.requires_grad()))
                || crate::autograd::forward::any_tangent(&[&self.t, &vt])
            {
                super::boundary::catch(|| ix::setitem_(&self.t, &s, v))?;
            } else {
                super::boundary::catch(|| crate::ops::inplace::check_inplace_leaf(&self.t))?;
                super::boundary::catch(|| ix::setitem_data(&self.t, &s, &v))?;
            }
            Ok(())
        })
    }
    /// select(dim, index) -> Tensor
    ///
    /// Slices `self` along the dimension `dim` at the given `index`: a view with that dimension
    /// removed. `x.select(0, i)` is `x[i]`, `x.select(1, i)` is `x[:, i]`.
    ///
    /// Args:
    ///     dim (int): the dimension to slice.
    ///     index (int): the index to select with (negative counts from the end).
    ///
    /// Example:
    ///     >>> x = gradrs.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    ///     >>> x.select(1, 2)
    ///     tensor([3., 6.])
    ///     >>> x.select(0, -1)
    ///     tensor([4., 2., 6.])
    fn select(&self, py: Python<'_>, dim: Int, index: Int) -> R {
        let dim = dim.get("select", "dim", 1)?;
        let index = index.get("select", "index", 2)?;
        if self.t.dim() > 0 {
            let d = crate::tensor::shape::wrap_dim(dim, self.t.dim())?;
            let size = self.t.shape()[d] as i64;
            if index < -size || index >= size {
                return Err(super::errors::index_error(format!(
                    "select(): index {index} out of range for tensor of size {} at dimension {d}",
                    crate::tensor::shape::list_repr(&self.t.shape())
                )));
            }
        }
        super::boundary::tensor(py, || slicing::select(&self.t, dim, index))
    }
    /// diagonal(offset=0, dim1=0, dim2=1) -> Tensor
    ///
    /// Returns a view of the diagonal of `self` with respect to the dimensions `dim1` and `dim2`,
    /// appended as the last dimension. `offset` picks the diagonal: `0` the main one, positive
    /// above it, negative below it.
    ///
    /// Args:
    ///     offset (int, optional): which diagonal to consider. Default: `0` (the main diagonal).
    ///     dim1 (int, optional): the first dimension of the 2-D sub-arrays. Default: `0`.
    ///     dim2 (int, optional): the second dimension of the 2-D sub-arrays. Default: `1`.
    ///
    /// Example:
    ///     >>> a = gradrs.arange(9.0).reshape(3, 3)
    ///     >>> a.diagonal()
    ///     tensor([0., 4., 8.])
    ///     >>> a.diagonal(1)
    ///     tensor([1., 5.])
    ///     >>> a.diagonal(offset=-1)
    ///     tensor([3., 7.])
    #[pyo3(signature = (offset=Int::new(0), dim1=Int::new(0), dim2=Int::new(1)), text_signature = "($self, offset=0, dim1=0, dim2=1)")]
    fn diagonal(&self, py: Python<'_>, offset: Int, dim1: Int, dim2: Int) -> R {
        let offset = offset.get("diagonal", "offset", 1)?;
        let dim1 = dim1.get("diagonal", "dim1", 2)?;
        let dim2 = dim2.get("diagonal", "dim2", 3)?;
        super::boundary::tensor(py, || slicing::diagonal(&self.t, offset, dim1, dim2))
    }
    /// narrow(dim, start, length) -> Tensor
    ///
    /// Returns a narrowed view of `self`: the elements `start` to `start + length - 1` of the
    /// dimension `dim` (sharing storage with `self`).
    ///
    /// Args:
    ///     dim (int): the dimension along which to narrow.
    ///     start (int): the index of the element to start the narrowed dimension from (negative
    ///         counts from the end).
    ///     length (int): the length of the narrowed dimension (non-negative).
    ///
    /// Example:
    ///     >>> x = gradrs.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    ///     >>> x.narrow(0, 0, 2)
    ///     tensor([[1, 2, 3],
    ///             [4, 5, 6]])
    ///     >>> x.narrow(1, 1, 2)
    ///     tensor([[2, 3],
    ///             [5, 6],
    ///             [8, 9]])
    fn narrow(&self, py: Python<'_>, dim: Int, start: Int, length: Int) -> R {
        let dim = dim.get("narrow", "dim", 1)?;
        let start = start.get("narrow", "start", 2)?;
        let length = length.get("narrow", "length", 3)?;
        super::boundary::tensor(py, || slicing::narrow(&self.t, dim, start, length))
    }
    /// split(split_size_or_sections, dim=0) -> tuple of Tensors
    ///
    /// Splits `self` into chunks along `dim`, each a view. An integer `split_size` gives equal
    /// chunks of that size (the last one smaller when the size is not divisible); a list of sizes
    /// gives one chunk per entry, of that size.
    ///
    /// Args:
    ///     split_size_or_sections (int or list of ints): the size of a single chunk, or the list of
    ///         sizes of each chunk.
    ///     dim (int, optional): the dimension along which to split. Default: `0`.
    ///
    /// Example:
    ///     >>> a = gradrs.arange(10).reshape(5, 2)
    ///     >>> a.split(2)
    ///     (tensor([[0, 1],
    ///             [2, 3]]), tensor([[4, 5],
    ///             [6, 7]]), tensor([[8, 9]]))
    ///     >>> a.split([1, 4])
    ///     (tensor([[0, 1]]), tensor([[2, 3],
    ///             [4, 5],
    ///             [6, 7],
    ///             [8, 9]]))
    #[pyo3(signature = (split_size_or_sections, dim=Int::new(0)), text_signature = "($self, split_size_or_sections, dim=0)")]
    fn split(&self, py: Python<'_>, split_size_or_sections: &Bound<'_, PyAny>, dim: Int) -> R {
        let dim = dim.get("split", "dim", 2)?;
        let parts = match split_size_or_sections.extract::<i64>() {
            Ok(n) => super::boundary::catch(|| slicing::split(&self.t, n, dim))?,
            Err(_) => slicing::split_with_sizes(
                &self.t,
                &split_size_or_sections.extract::<Vec<i64>>()?,
                dim,
            )?,
        };
        tuple_of(py, parts)
    }
    /// chunk(chunks, dim=0) -> tuple of Tensors
    ///
    /// Attempts to split `self` into `chunks` views along `dim`, each of size `ceil(size / chunks)`
    /// but the last (smaller, or fewer chunks when the size is not divisible).
    ///
    /// Args:
    ///     chunks (int): the number of chunks to return.
    ///     dim (int, optional): the dimension along which to split. Default: `0`.
    ///
    /// Example:
    ///     >>> gradrs.arange(11).chunk(6)
    ///     (tensor([0, 1]), tensor([2, 3]), tensor([4, 5]), tensor([6, 7]), tensor([8, 9]),
    ///     tensor([10]))
    ///     >>> gradrs.arange(12).chunk(6)
    ///     (tensor([0, 1]), tensor([2, 3]), tensor([4, 5]), tensor([6, 7]), tensor([8, 9]),
    ///     tensor([10, 11]))
    #[pyo3(signature = (chunks, dim=Int::new(0)), text_signature = "($self, chunks, dim=0)")]
    fn chunk(&self, py: Python<'_>, chunks: Int, dim: Int) -> R {
        let chunks = chunks.get("chunk", "chunks", 1)?;
        let dim = dim.get("chunk", "dim", 2)?;
        tuple_of(
            py,
            super::boundary::catch(|| slicing::chunk(&self.t, chunks, dim))?,
        )
    }
    /// unbind(dim=0) -> tuple of Tensors
    ///
    /// Removes the dimension `dim` of `self`: returns a tuple of all slices along it (views).
    ///
    /// Args:
    ///     dim (int, optional): the dimension to remove. Default: `0`.
    ///
    /// Example:
    ///     >>> gradrs.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]]).unbind()
    ///     (tensor([1, 2, 3]), tensor([4, 5, 6]), tensor([7, 8, 9]))
    #[pyo3(signature = (dim=Int::new(0)), text_signature = "($self, dim=0)")]
    fn unbind(&self, py: Python<'_>, dim: Int) -> R {
        let dim = dim.get("unbind", "dim", 1)?;
        tuple_of(
            py,
            super::boundary::catch(|| slicing::unbind(&self.t, dim))?,
        )
    }
    /// gather(dim, index) -> Tensor
    ///
    /// Gathers values of `self` along the axis `dim`: for a 3-D tensor, `out[i][j][k] =
    /// self[index[i][j][k]][j][k]` when `dim == 0` (`self[i][index[i][j][k]][k]` when `dim == 1`,
    /// and so on). `index` has the number of dimensions of `self` and is `int64`; the output has
    /// its shape.
    ///
    /// Args:
    ///     dim (int): the axis along which to index.
    ///     index (LongTensor): the indices of the elements to gather.
    ///
    /// Example:
    ///     >>> t = gradrs.tensor([[1, 2], [3, 4]])
    ///     >>> t.gather(1, gradrs.tensor([[0, 0], [1, 0]]))
    ///     tensor([[1, 1],
    ///             [4, 3]])
    fn gather(&self, py: Python<'_>, dim: Int, index: PyRef<'_, PyTensor>) -> R {
        let dim = dim.get("gather", "dim", 1)?;
        let index_t = index.t.clone();
        super::boundary::tensor(py, || ix::gather(&self.t, dim, &index_t))
    }
    /// scatter(dim, index, src=None, *, value=None) -> Tensor
    ///
    /// Out-of-place version of :meth:`~Tensor.scatter_`: a copy of `self` with the values of `src`
    /// (or the number `value`) written at the indices `index` along `dim`: `out[index[i][j]][j] =
    /// src[i][j]` when `dim == 0`, `out[i][index[i][j]] = src[i][j]` when `dim == 1`. With
    /// duplicate indices, which value lands is unspecified.
    ///
    /// Args:
    ///     dim (int): the axis along which to index.
    ///     index (LongTensor): the indices of the elements to scatter (the shape of `src`'s part
    ///         that is written).
    ///     src (Tensor or Number): the source elements to scatter.
    ///     value (Number, optional): the value to scatter, instead of `src`.
    ///
    /// Example:
    ///     >>> src = gradrs.arange(1, 11).reshape((2, 5))
    ///     >>> index = gradrs.tensor([[0, 1, 2, 0]])
    ///     >>> gradrs.zeros(3, 5, dtype=src.dtype).scatter(0, index, src)
    ///     tensor([[1, 0, 0, 4, 0],
    ///             [0, 2, 0, 0, 0],
    ///             [0, 0, 3, 0, 0]])
    ///     >>> gradrs.zeros(2, 4).scatter(1, gradrs.tensor([[2], [3]]), value=1.5)
    ///     tensor([[0.0000, 0.0000, 1.5000, 0.0000],
    ///             [0.0000, 0.0000, 0.0000, 1.5000]])
    #[pyo3(signature = (dim, index, src=None, *, value=None))]
    fn scatter(
        &self,
        py: Python<'_>,
        dim: Int,
        index: PyRef<'_, PyTensor>,
        src: Option<&Bound<'_, PyAny>>,
        value: Option<&Bound<'_, PyAny>>,
    ) -> R {
        let dim = dim.get("scatter", "dim", 1)?;
        let s = scatter_source(src, value, "scatter")?;
        let index_t = index.t.clone();
        super::boundary::tensor(py, || ix::scatter(&self.t, dim, &index_t, s))
    }
    /// scatter_(dim, index, src=None, *, value=None) -> Tensor
    ///
    /// Writes all values from the tensor `src` (or the number `value`) into `self` at the indices
    /// given by `index` along `dim`, in place: for a 2-D tensor, `self[index[i][j]][j] = src[i][j]`
    /// when `dim == 0` and `self[i][index[i][j]] = src[i][j]` when `dim == 1`. Returns `self`.
    ///
    /// Args:
    ///     dim (int): the axis along which to index.
    ///     index (LongTensor): the indices of the elements to scatter.
    ///     src (Tensor or Number): the source elements to scatter.
    ///     value (Number, optional): the value to scatter, instead of `src`.
    ///
    /// Example:
    ///     >>> x = gradrs.zeros(2, 4)
    ///     >>> x.scatter_(1, gradrs.tensor([[0], [3]]), gradrs.tensor([[5.0], [7.0]]))
    ///     tensor([[5., 0., 0., 0.],
    ///             [0., 0., 0., 7.]])
    #[pyo3(signature = (dim, index, src=None, *, value=None))]
    fn scatter_(
        slf: &Bound<'_, Self>,
        dim: Int,
        index: PyRef<'_, PyTensor>,
        src: Option<&Bound<'_, PyAny>>,
        value: Option<&Bound<'_, PyAny>>,
    ) -> R {
        let dim = dim.get("scatter_", "dim", 1)?;
        let (i, s) = (index.t.clone(), scatter_source(src, value, "scatter_")?);
        let method = if s.as_tensor().is_some() {
            "scatter__src"
        } else {
            "scatter__value"
        };
        let st = s.edge_tensor(DType::F32);
        // The kernel's device check comes after autograd's in-place checks, in its own name.
        in_place_with(slf, &[&st], |x| {
            let args = [
                ("self", Some(x)),
                ("index", Some(&i)),
                ("src", s.as_tensor()),
            ];
            check_args(method, &args)?;
            ix::scatter(x, dim, &i, s)
        })
    }
    /// scatter_add(dim, index, src) -> Tensor
    ///
    /// Out-of-place version of :meth:`~Tensor.scatter_add_`: a copy of `self` to which the values
    /// of `src` are added at the indices `index` along `dim` (duplicate indices accumulate).
    ///
    /// Args:
    ///     dim (int): the axis along which to index.
    ///     index (LongTensor): the indices of the elements to scatter and add.
    ///     src (Tensor): the source elements to scatter and add.
    ///
    /// Example:
    ///     >>> src = gradrs.ones((2, 5))
    ///     >>> index = gradrs.tensor([[0, 1, 2, 0, 0], [1, 2, 0, 0, 0]])
    ///     >>> gradrs.zeros(3, 5).scatter_add(0, index, src)
    ///     tensor([[1., 0., 1., 2., 2.],
    ///             [1., 1., 0., 0., 0.],
    ///             [0., 1., 1., 0., 0.]])
    fn scatter_add(
        &self,
        py: Python<'_>,
        dim: Int,
        index: PyRef<'_, PyTensor>,
        src: PyRef<'_, PyTensor>,
    ) -> R {
        let dim = dim.get("scatter_add", "dim", 1)?;
        let index_t = index.t.clone();
        let src_t = src.t.clone();
        super::boundary::tensor(py, || ix::scatter_add(&self.t, dim, &index_t, &src_t))
    }
    /// scatter_add_(dim, index, src) -> Tensor
    ///
    /// Adds all values from the tensor `src` into `self` at the indices given by `index` along
    /// `dim`, in place, like :meth:`~Tensor.scatter_` but accumulating: for a 2-D tensor,
    /// `self[index[i][j]][j] += src[i][j]` when `dim == 0`. Returns `self`.
    ///
    /// Args:
    ///     dim (int): the axis along which to index.
    ///     index (LongTensor): the indices of the elements to scatter and add.
    ///     src (Tensor): the source elements to scatter and add.
    ///
    /// Example:
    ///     >>> x = gradrs.zeros(4)
    ///     >>> x.scatter_add_(0, gradrs.tensor([0, 1, 1, 3]), gradrs.tensor([1.0, 2.0, 3.0, 4.0]))
    ///     tensor([1., 5., 0., 4.])
    fn scatter_add_(
        slf: &Bound<'_, Self>,
        dim: Int,
        index: PyRef<'_, PyTensor>,
        src: PyRef<'_, PyTensor>,
    ) -> R {
        let dim = dim.get("scatter_add_", "dim", 1)?;
        let (i, s) = (index.t.clone(), src.t.clone());
        in_place_with(slf, &[&s], |x| {
            let args = [("self", Some(x)), ("index", Some(&i)), ("src", Some(&s))];
            check_args("scatter_add_", &args)?;
            ix::scatter_add(x, dim, &i, &s)
        })
    }
    /// index_select(dim, index) -> Tensor
    ///
    /// Returns a new tensor (not a view) which indexes `self` along the dimension `dim` with the
    /// entries of `index`, a 1-D `int64` (or `int32`) tensor.
    ///
    /// Args:
    ///     dim (int): the dimension in which we index.
    ///     index (IntTensor or LongTensor): the 1-D tensor of indices to select.
    ///
    /// Example:
    ///     >>> x = gradrs.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    ///     >>> indices = gradrs.tensor([0, 2])
    ///     >>> x.index_select(1, indices)
    ///     tensor([[1., 3.],
    ///             [4., 6.]])
    ///     >>> x.index_select(0, gradrs.tensor([1]))
    ///     tensor([[4., 2., 6.]])
    fn index_select(&self, py: Python<'_>, dim: Int, index: PyRef<'_, PyTensor>) -> R {
        let dim = dim.get("index_select", "dim", 1)?;
        let index_t = index.t.clone();
        super::boundary::tensor(py, || ix::index_select(&self.t, dim, &index_t))
    }
    /// index_add(dim, index, source, *, alpha=1) -> Tensor
    ///
    /// Out-of-place version of :meth:`~Tensor.index_add_`: a copy of `self` with `alpha * source`
    /// added at the indices `index` along `dim`.
    ///
    /// Args:
    ///     dim (int): the dimension along which to index.
    ///     index (Tensor): the indices of `source` to select from (1-D, `int64` or `int32`).
    ///     source (Tensor): the tensor containing the values to add.
    ///     alpha (Number, optional): the scalar multiplier for `source`. Default: `1`.
    ///
    /// Example:
    ///     >>> x = gradrs.ones(5, 3)
    ///     >>> t = gradrs.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])
    ///     >>> x.index_add(0, gradrs.tensor([0, 4, 2]), t, alpha=2)
    ///     tensor([[ 3.,  5.,  7.],
    ///             [ 1.,  1.,  1.],
    ///             [15., 17., 19.],
    ///             [ 1.,  1.,  1.],
    ///             [ 9., 11., 13.]])
    #[pyo3(signature = (dim, index, source, *, alpha=None))]
    fn index_add(
        &self,
        py: Python<'_>,
        dim: Int,
        index: PyRef<'_, PyTensor>,
        source: PyRef<'_, PyTensor>,
        alpha: Option<&Bound<'_, PyAny>>,
    ) -> R {
        let dim = dim.get("index_add", "dim", 1)?;
        let a = alpha.and_then(extract_scalar).unwrap_or(Scalar::Int(1));
        let index_t = index.t.clone();
        let source_t = source.t.clone();
        super::boundary::tensor(py, || ix::index_add(&self.t, dim, &index_t, &source_t, a))
    }
    /// index_add_(dim, index, source, *, alpha=1) -> Tensor
    ///
    /// Accumulates the elements of `alpha * source` into `self` by adding to the indices in the
    /// order given in `index`, in place: with `dim == 0` and `index[i] == j`, the `i`-th row of
    /// `source` is added to the `j`-th row of `self`. Returns `self`.
    ///
    /// Args:
    ///     dim (int): the dimension along which to index.
    ///     index (Tensor): the indices of `source` to select from (1-D, `int64` or `int32`).
    ///     source (Tensor): the tensor containing the values to add.
    ///     alpha (Number, optional): the scalar multiplier for `source`. Default: `1`.
    ///
    /// Example:
    ///     >>> x = gradrs.zeros(3)
    ///     >>> x.index_add_(0, gradrs.tensor([0, 2, 0]), gradrs.tensor([1.0, 2.0, 3.0]))
    ///     tensor([4., 0., 2.])
    #[pyo3(signature = (dim, index, source, *, alpha=None))]
    fn index_add_(
        slf: &Bound<'_, Self>,
        dim: Int,
        index: PyRef<'_, PyTensor>,
        source: PyRef<'_, PyTensor>,
        alpha: Option<&Bound<'_, PyAny>>,
    ) -> R {
        let dim = dim.get("index_add_", "dim", 1)?;
        let a = alpha.and_then(extract_scalar).unwrap_or(Scalar::Int(1));
        let (i, s) = (index.t.clone(), source.t.clone());
        in_place_checking(slf, &[&s], Overlap::Internal, |x| {
            let args = [("self", Some(x)), ("index", Some(&i)), ("source", Some(&s))];
            check_args("index_add_", &args)?;
            ix::index_add(x, dim, &i, &s, a)
        })
    }
    /// masked_fill(mask, value) -> Tensor
    ///
    /// Out-of-place version of :meth:`~Tensor.masked_fill_`: a copy of `self` with `value` where
    /// `mask` is `True`.
    ///
    /// Args:
    ///     mask (BoolTensor): the boolean mask, broadcastable with `self`.
    ///     value (float or 0-dim Tensor): the value to fill in with.
    ///
    /// Example:
    ///     >>> x = gradrs.tensor([[1.0, 2.0], [3.0, 4.0]])
    ///     >>> x.masked_fill(x > 2, 0.0)
    ///     tensor([[1., 2.],
    ///             [0., 0.]])
    ///     >>> x.masked_fill(gradrs.tensor([True, False]), float('-inf'))
    ///     tensor([[-inf, 2.],
    ///             [-inf, 4.]])
    fn masked_fill(
        &self,
        py: Python<'_>,
        mask: PyRef<'_, PyTensor>,
        value: &Bound<'_, PyAny>,
    ) -> R {
        let v = operand_arg(value, "masked_fill", "value")?;
        let m = mask.t.clone();
        super::boundary::tensor(py, || ix::masked_fill(&self.t, &m, v))
    }
    /// masked_fill_(mask, value) -> Tensor
    ///
    /// Fills the elements of `self` with `value` where `mask` is `True`, in place. The shape of
    /// `mask` must be broadcastable to the shape of `self`. Returns `self`.
    ///
    /// Args:
    ///     mask (BoolTensor): the boolean mask.
    ///     value (float or 0-dim Tensor): the value to fill in with.
    ///
    /// Example:
    ///     >>> x = gradrs.zeros(2, 3)
    ///     >>> x.masked_fill_(gradrs.tensor([[True, False, True], [False, False, True]]), 7.0)
    ///     tensor([[7., 0., 7.],
    ///             [0., 0., 7.]])
    fn masked_fill_(
        slf: &Bound<'_, Self>,
        mask: PyRef<'_, PyTensor>,
        value: &Bound<'_, PyAny>,
    ) -> R {
        let (m, v) = (mask.t.clone(), operand_arg(value, "masked_fill_", "value")?);
        let vt = v.edge_tensor(DType::F32);
        in_place_checking(slf, &[&vt], Overlap::Unchecked, |x| {
            ix::masked_fill(x, &m, v)
        })
    }
    /// masked_select(mask) -> Tensor
    ///
    /// Returns a new 1-D tensor of the elements of `self` where the boolean `mask` is `True`
    /// (`mask` and `self` are broadcast together).
    ///
    /// Args:
    ///     mask (BoolTensor): the tensor containing the binary mask to index with.
    ///
    /// Example:
    ///     >>> x = gradrs.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    ///     >>> x.masked_select(x > 2.5)
    ///     tensor([5., 3., 4., 6.])
    fn masked_select(&self, py: Python<'_>, mask: PyRef<'_, PyTensor>) -> R {
        let mask_t = mask.t.clone();
        super::boundary::tensor(py, || ix::masked_select(&self.t, &mask_t))
    }
    /// nonzero(*, as_tuple=False) -> LongTensor or tuple of LongTensors
    ///
    /// Returns the indices of the non-zero elements of `self`: a 2-D tensor with one row of indices
    /// per non-zero element (in row-major order), or with `as_tuple=True` a tuple of one 1-D tensor
    /// per dimension (usable for advanced indexing: `x[x.nonzero(as_tuple=True)]`).
    ///
    /// Args:
    ///     as_tuple (bool, optional): return a tuple of 1-D tensors. Default: `False`.
    ///
    /// Example:
    ///     >>> x = gradrs.tensor([[0.6, 0.0, 0.0], [0.0, 0.4, 0.0], [0.0, 0.0, 1.2]])
    ///     >>> x.nonzero()
    ///     tensor([[0, 0],
    ///             [1, 1],
    ///             [2, 2]])
    ///     >>> x.nonzero(as_tuple=True)
    ///     (tensor([0, 1, 2]), tensor([0, 1, 2]))
    #[pyo3(
        signature = (*, as_tuple=Flag::FALSE),
        text_signature = "($self, *, as_tuple=False)"
    )]
    fn nonzero(&self, py: Python<'_>, as_tuple: Flag) -> R {
        let as_tuple = as_tuple.get("nonzero", "as_tuple")?;
        if as_tuple {
            // A 0-dim input counts as 1-D here, as in PyTorch.
            let x = super::boundary::catch(|| crate::ops::movement::reshape(&self.t, &[-1]))?;
            let x = if self.t.dim() == 0 { &x } else { &self.t };
            let nz = ix::nonzero(x);
            let cols = (0..x.dim())
                .map(|d| {
                    Ok(crate::ops::creation::contiguous_clone(
                        &super::boundary::catch(|| slicing::select(&nz, 1, d as i64))?,
                    ))
                })
                .collect::<crate::Result<Vec<_>>>()?;
            return tuple_of(py, cols);
        }
        super::boundary::tensor(py, || Ok(ix::nonzero(&self.t)))
    }
    /// take_along_dim(indices, dim=None) -> Tensor
    ///
    /// Selects values from `self` at the 1-dimensional `indices` along the given `dim`, as NumPy's
    /// `take_along_axis`; the input and `indices` broadcast. Functions that return indices along a
    /// dimension (`argmax`, `argsort`) are designed to work with it. Without `dim`, `self` is
    /// flattened first.
    ///
    /// Args:
    ///     indices (LongTensor): the indices into `self`.
    ///     dim (int, optional): the dimension to select along. Default: the flattened input.
    ///
    /// Example:
    ///     >>> t = gradrs.tensor([[10, 30, 20], [60, 40, 50]])
    ///     >>> t.take_along_dim(t.argmax(), dim=None)
    ///     tensor([60])
    ///     >>> t.take_along_dim(t.argsort(dim=1), dim=1)
    ///     tensor([[10, 20, 30],
    ///             [40, 50, 60]])
    #[pyo3(signature = (indices, dim=None))]
    fn take_along_dim(&self, py: Python<'_>, indices: PyRef<'_, PyTensor>, dim: Option<Int>) -> R {
        let dim = dim.map(|v| v.get("take_along_dim", "dim", 2)).transpose()?;
        let indices_t = indices.t.clone();
        super::boundary::tensor(py, || ix::take_along_dim(&self.t, &indices_t, dim))
    }
    /// flip(*dims) -> Tensor
    ///
    /// Reverses the order of the elements of `self` along the given dimensions. Unlike NumPy's
    /// `flip`, which returns a view, it copies the data.
    ///
    /// Args:
    ///     dims (int or tuple of ints): the dimensions to flip on.
    ///
    /// Example:
    ///     >>> x = gradrs.arange(6).view(2, 3)
    ///     >>> x.flip(0, 1)
    ///     tensor([[5, 4, 3],
    ///             [2, 1, 0]])
    ///     >>> x.flip((1,))
    ///     tensor([[2, 1, 0],
    ///             [5, 4, 3]])
    #[pyo3(signature = (*dims, **kwargs), text_signature = "($self, *dims)")]
    fn flip(
        &self,
        py: Python<'_>,
        dims: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> R {
        let dims = super::tensor::sizes_or_keyword("flip", "dims", dims, kwargs)?;
        super::boundary::tensor(py, || shape::flip(&self.t, &dims))
    }
    /// fliplr() -> Tensor
    ///
    /// Flips `self` (at least 2-D) in the left/right direction: reverses the order of its columns
    /// (dimension 1). Copies the data.
    ///
    /// Example:
    ///     >>> gradrs.arange(4).view(2, 2).fliplr()
    ///     tensor([[1, 0],
    ///             [3, 2]])
    fn fliplr(&self, py: Python<'_>) -> R {
        super::boundary::tensor(py, || shape::flip(&self.t, &[1]))
    }
    /// flipud() -> Tensor
    ///
    /// Flips `self` (at least 1-D) in the up/down direction: reverses the order of its rows
    /// (dimension 0). Copies the data.
    ///
    /// Example:
    ///     >>> gradrs.arange(4).view(2, 2).flipud()
    ///     tensor([[2, 3],
    ///             [0, 1]])
    fn flipud(&self, py: Python<'_>) -> R {
        super::boundary::tensor(py, || shape::flip(&self.t, &[0]))
    }
    /// roll(shifts, dims=None) -> Tensor
    ///
    /// Rolls `self` along the given dimension(s): elements shifted past the last position re-enter
    /// at the first. Without `dims`, the tensor is flattened before rolling and then restored to
    /// its shape.
    ///
    /// Args:
    ///     shifts (int or tuple of ints): the number of places by which the elements are shifted; a
    ///         tuple gives one shift per dimension in `dims`.
    ///     dims (int or tuple of ints, optional): the axes along which to roll.
    ///
    /// Example:
    ///     >>> x = gradrs.tensor([1, 2, 3, 4, 5, 6, 7, 8]).view(4, 2)
    ///     >>> x.roll(1)
    ///     tensor([[8, 1],
    ///             [2, 3],
    ///             [4, 5],
    ///             [6, 7]])
    ///     >>> x.roll(-1, 0)
    ///     tensor([[3, 4],
    ///             [5, 6],
    ///             [7, 8],
    ///             [1, 2]])
    ///     >>> x.roll(shifts=(2, 1), dims=(0, 1))
    ///     tensor([[6, 5],
    ///             [8, 7],
    ///             [2, 1],
    ///             [4, 3]])
    #[pyo3(signature = (shifts, dims=None))]
    fn roll(
        &self,
        py: Python<'_>,
        shifts: &Bound<'_, PyAny>,
        dims: Option<&Bound<'_, PyAny>>,
    ) -> R {
        let s = super::tensor::dims_arg(Some(shifts))?.unwrap_or_default();
        let d = super::tensor::dims_arg(dims)?.unwrap_or_default();
        super::boundary::tensor(py, || shape::roll(&self.t, &s, &d))
    }
    /// repeat(*repeats) -> Tensor
    ///
    /// Repeats `self` along each dimension the given number of times (NumPy's `tile`), copying the
    /// data. More repeats than dimensions add leading dimensions.
    ///
    /// Args:
    ///     repeats (gradrs.Size, int..., or tuple of ints): the number of times to repeat `self`
    ///         along each dimension.
    ///
    /// Example:
    ///     >>> x = gradrs.tensor([1, 2, 3])
    ///     >>> x.repeat(4, 2)
    ///     tensor([[1, 2, 3, 1, 2, 3],
    ///             [1, 2, 3, 1, 2, 3],
    ///             [1, 2, 3, 1, 2, 3],
    ///             [1, 2, 3, 1, 2, 3]])
    ///     >>> x.repeat(4, 2, 1).size()
    ///     gradrs.Size([4, 2, 3])
    #[pyo3(signature = (*sizes, **kwargs), text_signature = "($self, *sizes)")]
    fn repeat(
        &self,
        py: Python<'_>,
        sizes: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> R {
        let sizes = super::tensor::sizes_or_keyword("repeat", "repeats", sizes, kwargs)?;
        super::boundary::tensor(py, || shape::repeat(&self.t, &sizes))
    }
    /// tril(diagonal=0) -> Tensor
    ///
    /// Returns the lower triangular part of the matrix (or batch of matrices) `self`: the elements
    /// on and below the given diagonal; the others are set to 0.
    ///
    /// Args:
    ///     diagonal (int, optional): the diagonal to consider: `0` the main one, positive above it,
    ///         negative below it. Default: `0`.
    ///
    /// Example:
    ///     >>> a = gradrs.arange(1.0, 10.0).reshape(3, 3)
    ///     >>> a.tril()
    ///     tensor([[1., 0., 0.],
    ///             [4., 5., 0.],
    ///             [7., 8., 9.]])
    ///     >>> a.tril(diagonal=-1)
    ///     tensor([[0., 0., 0.],
    ///             [4., 0., 0.],
    ///             [7., 8., 0.]])
    #[pyo3(signature = (diagonal=Int::new(0)), text_signature = "($self, diagonal=0)")]
    fn tril(&self, py: Python<'_>, diagonal: Int) -> R {
        let diagonal = diagonal.get("tril", "diagonal", 1)?;
        super::boundary::tensor(py, || shape::tri(&self.t, diagonal, true))
    }
    /// triu(diagonal=0) -> Tensor
    ///
    /// Returns the upper triangular part of the matrix (or batch of matrices) `self`: the elements
    /// on and above the given diagonal; the others are set to 0.
    ///
    /// Args:
    ///     diagonal (int, optional): the diagonal to consider: `0` the main one, positive above it,
    ///         negative below it. Default: `0`.
    ///
    /// Example:
    ///     >>> a = gradrs.arange(1.0, 10.0).reshape(3, 3)
    ///     >>> a.triu()
    ///     tensor([[1., 2., 3.],
    ///             [0., 5., 6.],
    ///             [0., 0., 9.]])
    ///     >>> a.triu(1)
    ///     tensor([[0., 2., 3.],
    ///             [0., 0., 6.],
    ///             [0., 0., 0.]])
    #[pyo3(signature = (diagonal=Int::new(0)), text_signature = "($self, diagonal=0)")]
    fn triu(&self, py: Python<'_>, diagonal: Int) -> R {
        let diagonal = diagonal.get("triu", "diagonal", 1)?;
        super::boundary::tensor(py, || shape::tri(&self.t, diagonal, false))
    }
    /// tril_(diagonal=0) -> Tensor
    ///
    /// In-place version of :meth:`~Tensor.tril`.
    #[pyo3(signature = (diagonal=Int::new(0)), text_signature = "($self, diagonal=0)")]
    fn tril_(slf: &Bound<'_, Self>, diagonal: Int) -> R {
        let diagonal = diagonal.get("tril_", "diagonal", 1)?;
        in_place_checking(slf, &[], Overlap::Unchecked, |x| {
            shape::tri(x, diagonal, true)
        })
    }
    /// triu_(diagonal=0) -> Tensor
    ///
    /// In-place version of :meth:`~Tensor.triu`.
    #[pyo3(signature = (diagonal=Int::new(0)), text_signature = "($self, diagonal=0)")]
    fn triu_(slf: &Bound<'_, Self>, diagonal: Int) -> R {
        let diagonal = diagonal.get("triu_", "diagonal", 1)?;
        in_place_checking(slf, &[], Overlap::Unchecked, |x| {
            shape::tri(x, diagonal, false)
        })
    }
    /// unflatten(dim, sizes) -> Tensor
    ///
    /// Expands the dimension `dim` of `self` over several dimensions of sizes `sizes` (a view when
    /// possible). One size may be `-1`: it is inferred.
    ///
    /// Args:
    ///     dim (int): the dimension to be unflattened.
    ///     sizes (tuple of ints): the new shape of the unflattened dimension; their product is the
    ///         size of `dim`.
    ///
    /// Example:
    ///     >>> gradrs.zeros(3, 4, 1).unflatten(1, (2, 2)).shape
    ///     gradrs.Size([3, 2, 2, 1])
    ///     >>> gradrs.zeros(3, 4, 1).unflatten(1, (-1, 2)).shape
    ///     gradrs.Size([3, 2, 2, 1])
    ///     >>> gradrs.zeros(5, 12, 3).unflatten(-2, (2, 2, 3, 1, 1)).shape
    ///     gradrs.Size([5, 2, 2, 3, 1, 1, 3])
    fn unflatten(&self, py: Python<'_>, dim: Int, sizes: Vec<i64>) -> R {
        let dim = dim.get("unflatten", "dim", 1)?;
        let shape = self.t.shape();
        let d = crate::tensor::shape::wrap_dim(dim, shape.len())?;
        let mut new: Vec<i64> = shape[..d].iter().map(|&s| s as i64).collect();
        new.extend(&sizes);
        new.extend(shape[d + 1..].iter().map(|&s| s as i64));
        let inner = crate::tensor::shape::infer_size(&sizes, shape[d]).map_err(|_| {
            super::errors::runtime_error(format!(
                "unflatten: Provided sizes {} don't multiply up to the size of dim {dim} ({}) in the input tensor",
                crate::tensor::shape::list_repr(&sizes.iter().map(|&s| s.max(0) as usize).collect::<Vec<_>>()), shape[d]
            ))
        })?;
        let _ = inner;
        super::boundary::cheap(py, || crate::ops::movement::view(&self.t, &new))
    }
}

#[pyfunction]
#[pyo3(signature = (tensors, dim=Int::new(0)), text_signature = "(tensors, dim=0)")]
pub fn cat(py: Python<'_>, tensors: &Bound<'_, PyAny>, dim: Int) -> R {
    let dim = dim.get("cat", "dim", 2)?;
    let ts = tensor_list(tensors, "cat")?;
    super::boundary::tensor(py, || shape::cat(&ts, dim))
}
#[pyfunction]
#[pyo3(signature = (tensors, dim=Int::new(0)), text_signature = "(tensors, dim=0)")]
pub fn stack(py: Python<'_>, tensors: &Bound<'_, PyAny>, dim: Int) -> R {
    let dim = dim.get("stack", "dim", 2)?;
    let ts = tensor_list(tensors, "stack")?;
    super::boundary::tensor(py, || shape::stack(&ts, dim))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(cat, m)?)?;
    m.add_function(wrap_pyfunction!(stack, m)?)?;
    Ok(())
}

/// `scatter(dim, index, src)` or `scatter(dim, index, value=number)`: exactly one of them.
fn scatter_source(
    src: Option<&Bound<'_, PyAny>>,
    value: Option<&Bound<'_, PyAny>>,
    name: &str,
) -> PyResult<Operand> {
    match (src, value) {
        (Some(s), None) => operand_arg(s, name, "src"),
        (None, Some(v)) => operand_arg(v, name, "value"),
        _ => Err(super::errors::type_error(format!(
            "{name}() received an invalid combination of arguments - expected exactly one of src or value"
        ))),
    }
}
