//! Bindings of `x[key]` and `x[key] = v` (`__getitem__` / `__setitem__`): the key parsed as
//! PyTorch parses it (ints, slices, None, Ellipsis, bool masks, index tensors and sequences)
//! into `ops::index::IndexStep`s, and the value to write.

use super::convert::extract_scalar;
use super::tensor::{wrap, PyTensor};
use crate::dtype::DType;
use crate::ops::index::{self as ix, IndexStep};
use crate::ops::{inplace, slicing, Operand};
use crate::tensor::Tensor;
use pyo3::prelude::*;
use pyo3::types::{PyEllipsis, PyList, PySlice, PyTuple};

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
            } else if !v.hasattr("__index__")? {
                // Python's own slice unpacking (`_PyEval_SliceIndex`), which PyTorch's uses
                Err(super::errors::type_error(
                    "slice indices must be integers or None or have an __index__ method",
                ))
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
/// PyTorch's `count_specified_dimensions`: the dims a tuple index names, each item one, except
/// `None`, `...` and bools (none) and a bool or byte tensor (its dims).
fn specified_dims(key: &Bound<'_, PyAny>) -> PyResult<usize> {
    let mut count = 0;
    for obj in key.try_iter()? {
        let obj = obj?;
        if let Ok(t) = obj.cast::<PyTensor>() {
            let t = &t.borrow().t;
            count += match t.dtype() {
                DType::Bool | DType::U8 => t.dim(),
                _ => 1,
            };
        } else if !(obj.is_none()
            || obj.is_instance_of::<PyEllipsis>()
            || obj.is_instance_of::<pyo3::types::PyBool>())
        {
            count += 1;
        }
    }
    Ok(count)
}

fn steps(key: &Bound<'_, PyAny>, x: &Tensor) -> PyResult<Vec<IndexStep>> {
    let ndim = x.dim();
    let is_tuple = key.cast::<PyTuple>().is_ok() || sequence_as_tuple(key)?;
    // PyTorch's `count_specified_dimensions`, before any index is converted: an index it
    // cannot use (`[0, 'a']` on one dim) is first too many
    if is_tuple && specified_dims(key)? > ndim {
        return Err(super::errors::index_error(format!(
            "too many indices for tensor of dimension {ndim}"
        )));
    }
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
    // the entries from which on only ellipses follow
    let tail = entries
        .iter()
        .rposition(|e| !matches!(e, Entry::Ellipsis))
        .map_or(0, |i| i + 1);
    let mut out = Vec::new();
    let mut seen_ellipsis = false;
    // Each mask of one or more dims, with the first dim it covers in the view the basic steps
    // make (`out` holds one step per view dim, except selects).
    let mut masks: Vec<(usize, Tensor)> = Vec::new();
    for (i, e) in entries.into_iter().enumerate() {
        match e {
            Entry::Ellipsis => {
                if seen_ellipsis {
                    // PyTorch's `applySlicing` moves past the unindexed dims again: nothing
                    // when every dim is indexed or when only ellipses follow (`x[..., ...]`);
                    // else its later indices land past the last dim, refused here
                    if ndim == consumed || i >= tail {
                        continue;
                    }
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
            let advanced = s.iter().any(IndexStep::is_advanced);
            if advanced && self.t.read().layout.has_expanded_dim() {
                super::helpers::warn_index_put_expanded(
                    key.py(),
                    one_mask(key) && vt.numel() == 1,
                )?;
            }
            if !advanced {
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
}

/// Whether `key`'s one index tensor is a bool mask (`x[mask]`, `x[mask, :]`): PyTorch's
/// `index_put_` then writes a one-element value by `masked_fill_`.
fn one_mask(key: &Bound<'_, PyAny>) -> bool {
    let tensor = |o: &Bound<'_, PyAny>| o.cast::<PyTensor>().ok().map(|t| t.borrow().t.dtype());
    let dtypes: Vec<_> = match key.cast::<PyTuple>() {
        Ok(items) => items.iter().filter_map(|o| tensor(&o)).collect(),
        Err(_) => tensor(key).into_iter().collect(),
    };
    dtypes == [crate::dtype::DType::Bool]
}
