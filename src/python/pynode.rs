//! `_native._attach_node(output, inputs, name, backward)`: one graph node with PyTorch's name
//! for an op composed in Python (`nn.functional`), whose backward is a Python callable
//! `backward(grad) -> [grad or None per input]` written in differentiable ops. The node saves
//! its inputs, so in-place changes and a second backward raise PyTorch's errors as for any node.

use super::tensor::PyTensor;
use crate::autograd::graph::{Backward, Ctx};
use crate::autograd::{attach, SavedTensor};
use crate::error::{Error, Result};
use crate::Tensor;
use pyo3::exceptions::{PyIndexError, PyNotImplementedError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;
use std::collections::HashSet;
use std::sync::Mutex;

/// Node names live for the program (`Backward::name` is `&'static str`): each distinct name
/// is leaked once.
fn intern(name: &str) -> &'static str {
    static NAMES: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    let mut guard = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    let set = guard.get_or_insert_with(HashSet::new);
    if let Some(&s) = set.get(name) {
        return s;
    }
    let s: &'static str = Box::leak(name.to_owned().into_boxed_str());
    set.insert(s);
    s
}

/// A Python exception raised by a backward callable, as the crate error of the same kind.
fn to_error(py: Python<'_>, e: PyErr) -> Error {
    let msg = e.value(py).to_string();
    if e.is_instance_of::<PyTypeError>(py) {
        Error::Type(msg)
    } else if e.is_instance_of::<PyValueError>(py) {
        Error::Value(msg)
    } else if e.is_instance_of::<PyIndexError>(py) {
        Error::Index(msg)
    } else if e.is_instance_of::<PyNotImplementedError>(py) {
        Error::NotImplemented(msg)
    } else {
        Error::Runtime(msg)
    }
}

struct PyNode {
    name: &'static str,
    saved: Vec<SavedTensor>,
    backward: Option<Py<PyAny>>,
}

impl Backward for PyNode {
    fn name(&self) -> &'static str {
        self.name
    }
    fn apply(&mut self, grads: &[Option<Tensor>], ctx: &Ctx) -> Result<Vec<Option<Tensor>>> {
        // Unpacking checks versions and whether the graph was already freed.
        for s in &self.saved {
            s.unpack(ctx)?;
        }
        let Some(f) = &self.backward else {
            return Err(Error::Runtime(
                crate::autograd::saved::BACKWARD_TWICE.into(),
            ));
        };
        Python::attach(|py| {
            let g = match grads.first().cloned().flatten() {
                Some(g) => super::tensor::wrap(py, g).map_err(|e| to_error(py, e))?,
                None => py.None(),
            };
            let out = f.call1(py, (g,)).map_err(|e| to_error(py, e))?;
            let out = out.bind(py);
            out.try_iter()
                .map_err(|e| to_error(py, e))?
                .map(|item| {
                    let item = item.map_err(|e| to_error(py, e))?;
                    if item.is_none() {
                        return Ok(None);
                    }
                    let t = item
                        .cast::<PyTensor>()
                        .map_err(|_| Error::Type("backward must return Tensors or None".into()))?;
                    let t = t.borrow().t.clone();
                    Ok(Some(t))
                })
                .collect()
        })
    }
    fn release(&mut self) {
        self.saved.iter_mut().for_each(SavedTensor::release);
        // Frees what the callable holds (the forward's local graph).
        if let Some(f) = self.backward.take() {
            Python::attach(|_| drop(f));
        }
    }
}

#[pyfunction]
pub fn _attach_node(
    output: PyRef<'_, PyTensor>,
    inputs: &Bound<'_, PyList>,
    name: &str,
    backward: Py<PyAny>,
) -> PyResult<()> {
    let inputs: Vec<Tensor> = inputs
        .iter()
        .map(|o| Ok(o.cast::<PyTensor>()?.borrow().t.clone()))
        .collect::<PyResult<_>>()?;
    let refs: Vec<&Tensor> = inputs.iter().collect();
    let node = PyNode {
        name: intern(name),
        saved: inputs.iter().map(SavedTensor::input).collect(),
        backward: Some(backward),
    };
    attach(&[&output.t], &refs, Box::new(node));
    Ok(())
}
