//! Python face of saved tensors: the saved-tensor hooks stack (`saved_tensors_hooks`,
//! `disable_saved_tensors_hooks`), nodes' `_saved_<name>` / `_raw_saved_<name>` attributes,
//! the `SavedTensor` object with `register_hooks`, and `graph_stats`.

use super::errors::{attribute_error, foreign, runtime_error, type_error};
use super::tensor::{scalar_to_py, wrap, PyTensor};
use crate::autograd::graph::live_nodes;
use crate::autograd::saved::{self, Packed, SavedHooks, SavedValue, Value};
use crate::autograd::{NodeRef, SavedTensor};
use crate::error::Result;
use crate::Tensor;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use pyo3::IntoPyObjectExt;
use std::sync::Arc;

/// A (pack, unpack) pair of Python callables.
struct PyHooks {
    pack: Py<PyAny>,
    unpack: Py<PyAny>,
}

/// What a Python pack hook returned, with the unpack hook that reads it.
struct PyPacked {
    packed: Py<PyAny>,
    unpack: Py<PyAny>,
}

impl SavedHooks for PyHooks {
    fn pack(&self, t: &Tensor) -> Result<Arc<dyn Packed>> {
        // Ops may run with the GIL released; the hook takes it back.
        Python::attach(|py| {
            let run = || -> PyResult<Arc<dyn Packed>> {
                let packed = self.pack.call1(py, (wrap(py, t.clone())?,))?;
                Ok(Arc::new(PyPacked {
                    packed,
                    unpack: self.unpack.clone_ref(py),
                }))
            };
            run().map_err(|e| foreign(py, e))
        })
    }
}

impl Packed for PyPacked {
    fn unpack(&self) -> Result<Tensor> {
        Python::attach(|py| {
            let run = || -> PyResult<Tensor> {
                let out = self.unpack.call1(py, (self.packed.clone_ref(py),))?;
                let out = out.bind(py);
                match out.cast::<PyTensor>() {
                    Ok(t) => Ok(t.borrow().t.clone()),
                    Err(_) => Err(type_error(format!(
                        "Output of saved tensor unpack_hook expected to be a Tensor but got result of type {}",
                        out.get_type().name()?
                    ))),
                }
            };
            run().map_err(|e| foreign(py, e))
        })
    }
}

/// `_push_saved_tensors_default_hooks(pack_hook, unpack_hook)`.
#[pyfunction]
pub fn _push_saved_tensors_default_hooks(
    pack_hook: Py<PyAny>,
    unpack_hook: Py<PyAny>,
) -> PyResult<()> {
    saved::push_hooks(Arc::new(PyHooks {
        pack: pack_hook,
        unpack: unpack_hook,
    }))?;
    Ok(())
}

#[pyfunction]
pub fn _pop_saved_tensors_default_hooks() {
    drop(saved::pop_hooks());
}

#[pyfunction]
pub fn _saved_tensors_hooks_disable(message: String) -> PyResult<()> {
    Ok(saved::disable_hooks(message)?)
}

#[pyfunction]
pub fn _saved_tensors_hooks_enable() {
    saved::enable_hooks()
}

#[pyfunction]
pub fn _saved_tensors_hooks_get_disabled_error_message() -> Option<String> {
    saved::disabled_message()
}

/// `_graph_stats()`: (live graph nodes, saved tensors holding a tensor, bytes they hold).
#[pyfunction]
pub fn _graph_stats() -> (usize, usize, usize) {
    let (count, bytes) = saved::saved_stats();
    (live_nodes(), count, bytes)
}

/// A `_saved_<name>` value copied out of its node (so hooks run with the arena unlocked).
enum Owned {
    Tensor(SavedTensor),
    Absent,
    Tensors(Vec<Option<SavedTensor>>),
    Value(Value),
}

/// The names of `node`'s `_saved_<name>` attributes, and which hold tensors; None while the
/// node runs.
pub fn saved_names(node: &NodeRef) -> Option<Vec<(&'static str, bool)>> {
    node.try_with(|n| {
        n.backward
            .saved_values()
            .into_iter()
            .map(|(name, v)| (name, !matches!(v, SavedValue::Value(_))))
            .collect()
    })
}

fn lookup(node: &NodeRef, name: &str) -> PyResult<Option<Owned>> {
    node.try_with(|n| {
        n.backward
            .saved_values()
            .into_iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| match v {
                SavedValue::Tensor(s) => Owned::Tensor(s.snapshot()),
                SavedValue::Absent => Owned::Absent,
                SavedValue::Tensors(list) => {
                    Owned::Tensors(list.into_iter().map(|s| s.map(|s| s.snapshot())).collect())
                }
                SavedValue::Value(v) => Owned::Value(v),
            })
    })
    .ok_or_else(|| runtime_error("cannot read a saved value of a node while it runs"))
}

fn value_to_py(py: Python<'_>, v: Value) -> PyResult<Py<PyAny>> {
    Ok(match v {
        Value::None => py.None(),
        Value::Bool(b) => b.into_py_any(py)?,
        // PyTorch converts saved ints as unsigned: a dim of -1 shows as 2**64 - 1.
        Value::Int(i) => (i as u64).into_py_any(py)?,
        Value::Float(f) => f.into_py_any(py)?,
        Value::Scalar(s) => scalar_to_py(py, s)?,
        Value::Ints(v) => PyTuple::new(py, v.into_iter().map(|i| i as u64))?
            .into_any()
            .unbind(),
        Value::Str(s) => s.into_py_any(py)?,
        Value::Unsaved => py.None(),
    })
}

fn unpack_to_py(py: Python<'_>, s: &SavedTensor, node: &NodeRef) -> PyResult<Py<PyAny>> {
    if s.is_nothing() {
        return Ok(py.None());
    }
    wrap(py, s.unpack_for(node)?)
}

/// `node._saved_<name>` (`raw`: `_raw_saved_<name>`); None when the node has no such value.
pub fn saved_attr(
    py: Python<'_>,
    node: &NodeRef,
    name: &str,
    raw: bool,
) -> PyResult<Option<Py<PyAny>>> {
    let Some(owned) = lookup(node, name)? else {
        return Ok(None);
    };
    let raw_obj = |index: Option<usize>| -> PyResult<Py<PyAny>> {
        Ok(Py::new(
            py,
            PySavedTensor {
                node: node.clone(),
                name: name.to_string(),
                index,
            },
        )?
        .into_any())
    };
    Ok(Some(match (owned, raw) {
        (Owned::Value(_), true) => return Ok(None),
        (Owned::Value(v), false) => value_to_py(py, v)?,
        (Owned::Tensor(_) | Owned::Absent, true) => raw_obj(None)?,
        (Owned::Absent, false) => py.None(),
        (Owned::Tensor(s), false) => unpack_to_py(py, &s, node)?,
        (Owned::Tensors(list), true) => {
            let items = (0..list.len())
                .map(|i| raw_obj(Some(i)))
                .collect::<PyResult<Vec<_>>>()?;
            PyTuple::new(py, items)?.into_any().unbind()
        }
        (Owned::Tensors(list), false) => {
            let items = list
                .iter()
                .map(|s| match s {
                    Some(s) => unpack_to_py(py, s, node),
                    None => Ok(py.None()),
                })
                .collect::<PyResult<Vec<_>>>()?;
            PyTuple::new(py, items)?.into_any().unbind()
        }
    }))
}

/// `node._raw_saved_<name>`: one saved tensor of a node, whose hooks can be set.
#[pyclass(name = "SavedTensor", module = "gradrs.autograd.graph", frozen)]
pub struct PySavedTensor {
    node: NodeRef,
    name: String,
    /// The entry, for a list of saved tensors.
    index: Option<usize>,
}

#[pymethods]
impl PySavedTensor {
    #[new]
    fn new() -> PyResult<Self> {
        Err(type_error(
            "gradrs.autograd.graph.SavedTensor: No constructor defined!",
        ))
    }

    /// `register_hooks(pack_hook, unpack_hook)`: pack this saved tensor now with `pack_hook`;
    /// `unpack_hook` gives it back when it is used.
    fn register_hooks(
        slf: &Bound<'_, Self>,
        pack_hook: &Bound<'_, PyAny>,
        unpack_hook: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        if !pack_hook.is_callable() || !unpack_hook.is_callable() {
            return Err(type_error(format!(
                "register_hooks(): incompatible function arguments. The following argument types are supported:\n    1. (self: gradrs.autograd.graph.SavedTensor, arg0: collections.abc.Callable, arg1: collections.abc.Callable) -> None\n\nInvoked with: {}, {}, {}",
                slf.repr()?,
                pack_hook.repr()?,
                unpack_hook.repr()?
            )));
        }
        let this = slf.get();
        let hooks = PyHooks {
            pack: pack_hook.clone().unbind(),
            unpack: unpack_hook.clone().unbind(),
        };
        // Take the saved tensor out of its node, pack it with the arena unlocked (the hook is
        // Python), and put it back.
        let name = this.name.as_str();
        let index = this.index;
        // Nothing saved in that slot (or a None entry): a saved tensor with value None.
        let mut taken = this
            .node
            .try_with(|n| {
                n.backward
                    .saved_values()
                    .into_iter()
                    .find(|(k, _)| *k == name)
                    .and_then(|(_, v)| match (v, index) {
                        (SavedValue::Tensor(s), None) => {
                            Some(std::mem::replace(s, SavedTensor::nothing()))
                        }
                        (SavedValue::Tensors(mut list), Some(i)) => list
                            .get_mut(i)
                            .and_then(|s| s.as_mut())
                            .map(|s| std::mem::replace(&mut **s, SavedTensor::nothing())),
                        _ => None,
                    })
                    .unwrap_or_else(SavedTensor::nothing)
            })
            .ok_or_else(|| {
                runtime_error("cannot register hooks on a saved tensor of a running node")
            })?;
        let result = taken.register_hooks(&hooks);
        let put_back = this.node.try_with(|n| {
            if let Some((_, v)) = n
                .backward
                .saved_values()
                .into_iter()
                .find(|(k, _)| *k == name)
            {
                match (v, index) {
                    (SavedValue::Tensor(s), None) => *s = taken,
                    (SavedValue::Tensors(mut list), Some(i)) => {
                        if let Some(Some(s)) = list.get_mut(i) {
                            **s = taken;
                        }
                    }
                    _ => {}
                }
            }
        });
        debug_assert!(put_back.is_some());
        Ok(result?)
    }

    fn __repr__(slf: &Bound<'_, Self>) -> String {
        format!(
            "<gradrs.autograd.graph.SavedTensor object at {:#x}>",
            slf.as_ptr() as usize
        )
    }
}

/// `node.__getattr__(name)` for `_saved_<x>` / `_raw_saved_<x>`.
pub fn getattr(py: Python<'_>, node: &NodeRef, type_name: &str, attr: &str) -> PyResult<Py<PyAny>> {
    let found = if let Some(x) = attr.strip_prefix("_raw_saved_") {
        saved_attr(py, node, x, true)?
    } else if let Some(x) = attr.strip_prefix("_saved_") {
        saved_attr(py, node, x, false)?
    } else {
        None
    };
    found.ok_or_else(|| attribute_error(format!("'{type_name}' object has no attribute '{attr}'")))
}
