//! Python face of autograd: `grad_fn` node objects, `backward`/`grad`, grad mode.

use super::tensor::{wrap, PyTensor};
use crate::autograd::{self, graph::live_nodes, BackwardOptions, NodeRef};
use parking_lot::Mutex;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PySequence, PyTuple};
use std::collections::HashMap;
use std::sync::OnceLock;

/// A backward node (`grad_fn`), printed as PyTorch prints it: `<MulBackward0 object at 0x...>`.
/// Each node is an instance of a subclass named after its op (`type(f).__name__ ==
/// "MulBackward0"`), made once per name.
#[pyclass(name = "Node", module = "gradrs.autograd.graph", frozen, subclass)]
pub struct PyNode {
    node: OnceLock<Handle>,
    /// For an `autograd.Function` context: what `save_for_backward` saved (None entries
    /// allowed), or None once backward freed them.
    pub saved: parking_lot::Mutex<Option<Vec<Option<crate::autograd::SavedTensor>>>>,
}

/// A node object for a `grad_fn` holds its node; an `autograd.Function` context is held by
/// its node (which returns it as `grad_fn`), so it refers back weakly, as PyTorch's does.
enum Handle {
    Strong(NodeRef),
    Weak(crate::autograd::graph::WeakNode),
}

static NODE_CLASSES: PyOnceLock<Mutex<HashMap<&'static str, Py<PyAny>>>> = PyOnceLock::new();

/// The Python object for a graph node.
pub fn node_object(py: Python<'_>, node: NodeRef) -> PyResult<Py<PyAny>> {
    // An autograd.Function's node is its context object.
    let ctx = node.try_with(|n| {
        n.backward
            .as_any()
            .and_then(|a| a.downcast_ref::<super::pynode::PyBackward>())
            .and_then(|p| p.ctx.as_ref().map(|c| c.clone_ref(py)))
    });
    if let Some(Some(ctx)) = ctx {
        return Ok(ctx);
    }
    if let Some(obj) = cached_node_object(py, &node) {
        return Ok(obj);
    }
    let name = node.name();
    let classes = NODE_CLASSES.get_or_init(py, || Mutex::new(HashMap::new()));
    let cached = classes.lock().get(name).map(|c| c.clone_ref(py));
    let cls = match cached {
        Some(c) => c,
        None => {
            let base = py.get_type::<PyNode>();
            let ns = pyo3::types::PyDict::new(py);
            ns.set_item("__module__", "gradrs.autograd.graph")?;
            let c = py
                .get_type::<pyo3::types::PyType>()
                .call1((name, (base,), ns))?
                .unbind();
            classes.lock().insert(name, c.clone_ref(py));
            c
        }
    };
    let obj = cls.call0(py)?;
    let _ = obj
        .bind(py)
        .cast::<PyNode>()?
        .get()
        .node
        .set(Handle::Strong(node.clone()));
    // Weakly, so the object dies with its last Python reference (which may leave the node
    // alive); the object's own strong handle keeps the node's key from being reused meanwhile.
    if let Ok(weak) = pyo3::types::PyWeakrefReference::new(obj.bind(py)) {
        NODE_OBJECTS
            .get_or_init(py, || Mutex::new(HashMap::new()))
            .lock()
            .insert(node.key(), weak.unbind());
    }
    Ok(obj)
}

/// Each node's live Python object (Note [Node objects]).
static NODE_OBJECTS: PyOnceLock<Mutex<HashMap<u32, Py<pyo3::types::PyWeakrefReference>>>> =
    PyOnceLock::new();

// Note [Node objects]: as PyTorch's `functionToPyObject` (the node keeps its Python object
// while that lives), a node has one Python object at a time: the outputs of one node give the
// same `grad_fn` (`hy.grad_fn is cy.grad_fn` for an LSTM cell's outputs, `max(x, 0)`'s values
// and indices, `unbind`'s pieces). A map from the node's key to a weak reference, looked up
// only when a `grad_fn` is asked for (ops never touch it); an object removes its entry when
// it dies (its weak reference is dead by then).
fn cached_node_object(py: Python<'_>, node: &NodeRef) -> Option<Py<PyAny>> {
    let map = NODE_OBJECTS.get(py)?;
    let weak = map.lock().get(&node.key()).map(|w| w.clone_ref(py))?;
    let obj = pyo3::types::PyWeakrefMethods::upgrade(weak.bind(py))?;
    // The live object holds its node, so the key still names the same node; checked anyway.
    let same = obj
        .cast::<PyNode>()
        .ok()
        .and_then(|n| match n.get().node.get() {
            Some(Handle::Strong(n)) => Some(n == node),
            _ => None,
        })
        .unwrap_or(false);
    same.then(|| obj.unbind())
}

impl Drop for PyNode {
    fn drop(&mut self) {
        let Some(Handle::Strong(node)) = self.node.get() else {
            return;
        };
        let key = node.key();
        Python::attach(|py| {
            if let Some(map) = NODE_OBJECTS.get(py) {
                let mut map = map.lock();
                let dead = map
                    .get(&key)
                    .is_some_and(|w| pyo3::types::PyWeakrefMethods::upgrade(w.bind(py)).is_none());
                if dead {
                    map.remove(&key);
                }
            }
        });
    }
}

impl PyNode {
    pub fn node(&self) -> PyResult<NodeRef> {
        let node = match self.node.get() {
            Some(Handle::Strong(n)) => Some(n.clone()),
            Some(Handle::Weak(w)) => w.upgrade(),
            None => None,
        };
        node.ok_or_else(|| super::errors::runtime_error("graph nodes are created by operations"))
    }

    /// Make this (an `autograd.Function` context) the Python object of `node`.
    pub fn bind_weak(&self, node: &NodeRef) -> bool {
        self.node.set(Handle::Weak(node.downgrade())).is_ok()
    }

    /// Run `f` on the node, or raise if it is running (hooks are added between runs).
    fn with_node<R>(&self, f: impl FnOnce(&mut crate::autograd::graph::Node) -> R) -> PyResult<R> {
        self.node()?.try_with(f).ok_or_else(|| {
            super::errors::runtime_error("cannot register a hook on a node while it runs")
        })
    }
}

#[pymethods]
impl PyNode {
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn new(_args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, pyo3::types::PyDict>>) -> PyNode {
        PyNode {
            node: OnceLock::new(),
            saved: parking_lot::Mutex::new(Some(Vec::new())),
        }
    }

    /// `register_hook(fn)`: `fn(grad_inputs, grad_outputs)` after the node ran; it may return
    /// replacement `grad_inputs`.
    fn register_hook(&self, py: Python<'_>, hook: Py<PyAny>) -> PyResult<Py<PyAny>> {
        let existing =
            self.with_node(|n| super::hooks::find_dict(py, &n.hooks.post, |h| h.as_any()))?;
        let dict = match existing {
            Some(d) => d,
            None => {
                let d = super::hooks::new_dict(py)?;
                let hd = std::sync::Arc::new(super::hooks::HookDict {
                    dict: d.clone_ref(py),
                });
                self.with_node(|n| n.hooks.post.push(hd))?;
                d
            }
        };
        super::hooks::add_hook(py, &dict, hook)
    }
    /// `register_prehook(fn)`: `fn(grad_outputs)` before the node runs; it may return
    /// replacement `grad_outputs`.
    fn register_prehook(&self, py: Python<'_>, hook: Py<PyAny>) -> PyResult<Py<PyAny>> {
        let existing =
            self.with_node(|n| super::hooks::find_dict(py, &n.hooks.pre, |h| h.as_any()))?;
        let dict = match existing {
            Some(d) => d,
            None => {
                let d = super::hooks::new_dict(py)?;
                let hd = std::sync::Arc::new(super::hooks::HookDict {
                    dict: d.clone_ref(py),
                });
                self.with_node(|n| n.hooks.pre.push(hd))?;
                d
            }
        };
        super::hooks::add_hook(py, &dict, hook)
    }
    /// An `autograd.Function` context's saved tensors, version-checked.
    #[getter]
    fn saved_tensors(&self, py: Python<'_>) -> PyResult<Py<PyTuple>> {
        let saved = self.saved.lock();
        let Some(saved) = saved.as_ref() else {
            return Err(crate::error::Error::Runtime(
                crate::autograd::saved::BACKWARD_TWICE.into(),
            )
            .into());
        };
        let node = if saved.is_empty() {
            None
        } else {
            Some(self.node()?)
        };
        let items: Vec<Py<PyAny>> = saved
            .iter()
            .map(|s| match (s, &node) {
                (Some(s), Some(node)) => {
                    wrap(py, super::boundary::held(|| Ok(s.unpack_for(node)?))?)
                }
                _ => Ok(py.None()),
            })
            .collect::<PyResult<_>>()?;
        Ok(PyTuple::new(py, items)?.unbind())
    }

    /// name() -> str
    ///
    /// Returns the name of this node's operation (PyTorch's names: `'MulBackward0'`,
    /// `'torch::autograd::AccumulateGrad'` with `gradrs` for `torch`).
    ///
    /// Example:
    ///     >>> a = gradrs.tensor([1.0, 2.0], requires_grad=True)
    ///     >>> (a * 2).sum().grad_fn.name()
    ///     'SumBackward0'
    fn name(&self) -> PyResult<&'static str> {
        Ok(match self.node()?.name() {
            "AccumulateGrad" => "gradrs::autograd::AccumulateGrad",
            "CopySlices" => "gradrs::autograd::CopySlices",
            "CopyBackwards" => "gradrs::autograd::CopyBackwards",
            "Error" => "gradrs::autograd::Error",
            n => n,
        })
    }
    /// The nodes this node passes gradients on to, one `(node, input_nr)` pair per input of the
    /// forward operation: `node` is the input's `grad_fn` (its `AccumulateGrad` for a leaf that
    /// requires grad, `None` for an input that needs no gradient) and `input_nr` the index of the
    /// gradient within that node's outputs.
    ///
    /// Example:
    ///     >>> a = gradrs.tensor([1.0, 2.0], requires_grad=True)
    ///     >>> y = (a * 2).sum()
    ///     >>> y.grad_fn.next_functions
    ///     ((<MulBackward0 object at 0x...>, 0),)
    ///     >>> y.grad_fn.next_functions[0][0].next_functions
    ///     ((<AccumulateGrad object at 0x...>, 0), (None, 0))
    #[getter]
    fn next_functions(&self, py: Python<'_>) -> PyResult<Py<PyTuple>> {
        let items: Vec<Py<PyAny>> = self
            .node()?
            .visible_next_functions()
            .into_iter()
            .map(|(n, nr)| {
                let n: Py<PyAny> = match n {
                    Some(node) => node_object(py, node)?,
                    None => py.None(),
                };
                Ok(
                    PyTuple::new(py, [n, nr.into_pyobject(py)?.into_any().unbind()])?
                        .into_any()
                        .unbind(),
                )
            })
            .collect::<PyResult<_>>()?;
        Ok(PyTuple::new(py, items)?.unbind())
    }
    /// PyTorch's `metadata` dict (the forward traceback lives here under anomaly mode).
    #[getter]
    fn metadata(&self, py: Python<'_>) -> PyResult<Py<pyo3::types::PyDict>> {
        super::anomaly::metadata(py, self)
    }
    /// The leaf an `AccumulateGrad` node accumulates into.
    #[getter]
    fn variable(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self.node()?.variable() {
            Some(t) => wrap(py, t),
            None => Err(super::errors::attribute_error(format!(
                "'{}' object has no attribute 'variable'",
                self.node()?.name()
            ))),
        }
    }
    /// `_saved_<name>` / `_raw_saved_<name>`: what the node saved, with PyTorch's names.
    fn __getattr__(slf: &Bound<'_, Self>, name: &str) -> PyResult<Py<PyAny>> {
        let type_name = slf.get_type().name()?.to_string();
        match slf.get().node() {
            Ok(node) => super::saved::getattr(slf.py(), &node, &type_name, name),
            Err(_) => Err(super::errors::attribute_error(format!(
                "'{type_name}' object has no attribute '{name}'"
            ))),
        }
    }
    fn __dir__(slf: &Bound<'_, Self>) -> PyResult<Vec<String>> {
        let py = slf.py();
        let base = py
            .import("builtins")?
            .getattr("object")?
            .getattr("__dir__")?
            .call1((slf,))?;
        let mut names: Vec<String> = base.extract()?;
        if let Ok(node) = slf.get().node() {
            for (name, tensor) in super::saved::saved_names(&node).unwrap_or_default() {
                names.push(format!("_saved_{name}"));
                if tensor {
                    names.push(format!("_raw_saved_{name}"));
                }
            }
        }
        Ok(names)
    }
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        Ok(format!(
            "<{} object at {:#x}>",
            slf.get().node()?.name(),
            slf.as_ptr() as usize
        ))
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyNode>()
            .is_ok_and(|o| match (o.get().node(), self.node()) {
                (Ok(a), Ok(b)) => a == b,
                _ => false,
            })
    }
    fn __hash__(slf: &Bound<'_, Self>) -> u64 {
        // A Function context is hashable before its node exists.
        match slf.get().node() {
            Ok(n) => n.key() as u64,
            Err(_) => slf.as_ptr() as u64,
        }
    }
}

/// None, one tensor, or a sequence of tensors, as a list.
pub fn tensor_list(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Vec<crate::Tensor>>> {
    let Some(obj) = obj else { return Ok(None) };
    if obj.is_none() {
        return Ok(None);
    }
    if let Ok(t) = obj.cast::<PyTensor>() {
        return Ok(Some(vec![t.borrow().t.clone()]));
    }
    let seq = obj.cast::<PySequence>()?;
    let mut out = Vec::new();
    for i in 0..seq.len()? {
        out.push(seq.get_item(i)?.cast::<PyTensor>()?.borrow().t.clone());
    }
    Ok(Some(out))
}

/// Like `tensor_list`, but entries may be None (gradients).
fn optional_list(obj: Option<&Bound<'_, PyAny>>, n: usize) -> PyResult<Vec<Option<crate::Tensor>>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(vec![None; n]);
    };
    if let Ok(t) = obj.cast::<PyTensor>() {
        return Ok(vec![Some(t.borrow().t.clone())]);
    }
    let seq = obj.cast::<PySequence>()?;
    let mut out = Vec::new();
    for i in 0..seq.len()? {
        let item = seq.get_item(i)?;
        out.push(if item.is_none() {
            None
        } else {
            Some(item.cast::<PyTensor>()?.borrow().t.clone())
        });
    }
    if out.len() != n {
        return Err(super::errors::runtime_error(format!(
            "got {n} tensors and {} gradients",
            out.len()
        )));
    }
    Ok(out)
}

/// `gradrs.autograd.backward(tensors, grad_tensors, retain_graph, create_graph, inputs)`.
#[pyfunction]
#[pyo3(signature = (tensors, grad_tensors=None, retain_graph=None, create_graph=false, inputs=None))]
pub fn _backward(
    tensors: &Bound<'_, PyAny>,
    grad_tensors: Option<&Bound<'_, PyAny>>,
    retain_graph: Option<bool>,
    create_graph: bool,
    inputs: Option<&Bound<'_, PyAny>>,
) -> PyResult<()> {
    let roots = tensor_list(Some(tensors))?.unwrap_or_default();
    let grads = optional_list(grad_tensors, roots.len())?;
    let inputs = tensor_list(inputs)?;
    let opts = BackwardOptions {
        retain_graph: retain_graph.unwrap_or(create_graph),
        create_graph,
        batch: None,
    };
    if create_graph {
        super::helpers::warn_create_graph_once(tensors.py())?;
    }
    super::boundary::run(tensors.py(), || {
        autograd::backward(&roots, &grads, opts, inputs.as_deref())
    })
}

/// `_transparent_alias(t)`: a view of all of `t` recorded under a node (AliasBackward0) that
/// `next_functions` skips, for `func`'s reverse transforms (`ops::movement::transparent_alias`).
#[pyfunction]
pub fn _transparent_alias(py: Python<'_>, t: PyRef<'_, PyTensor>) -> PyResult<Py<PyAny>> {
    let x = t.t.clone();
    let out = super::boundary::catch(|| crate::ops::movement::transparent_alias(&x))?;
    wrap(py, out)
}

/// `gradrs.autograd.grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused)`.
#[pyfunction]
#[pyo3(signature = (outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=false, allow_unused=false))]
pub fn _grad(
    py: Python<'_>,
    outputs: &Bound<'_, PyAny>,
    inputs: &Bound<'_, PyAny>,
    grad_outputs: Option<&Bound<'_, PyAny>>,
    retain_graph: Option<bool>,
    create_graph: bool,
    allow_unused: bool,
) -> PyResult<Py<PyTuple>> {
    let outs = tensor_list(Some(outputs))?.unwrap_or_default();
    let ins = tensor_list(Some(inputs))?.unwrap_or_default();
    let grads = optional_list(grad_outputs, outs.len())?;
    let opts = BackwardOptions {
        retain_graph: retain_graph.unwrap_or(create_graph),
        create_graph,
        batch: None,
    };
    let result = super::boundary::run(py, || {
        autograd::grad(&outs, &grads, &ins, opts, allow_unused)
    })?;
    let items: Vec<Py<PyAny>> = result
        .into_iter()
        .map(|g| g.map_or_else(|| Ok(py.None()), |g| wrap(py, g)))
        .collect::<PyResult<_>>()?;
    Ok(PyTuple::new(py, items)?.unbind())
}

/// `_grad_batched(outputs, inputs, grad_outputs, ...)`: `autograd.grad(is_grads_batched=True)`
/// as one batched pass of the engine (Note [Batched backward]); each grad_output is
/// `[batch, *output.shape]`. None where the engine leaves it to the caller's per-vector loop
/// (hooks in the graph, anomaly mode).
#[pyfunction]
#[pyo3(signature = (outputs, inputs, grad_outputs, retain_graph=None, create_graph=false, allow_unused=false))]
pub fn _grad_batched(
    py: Python<'_>,
    outputs: &Bound<'_, PyAny>,
    inputs: &Bound<'_, PyAny>,
    grad_outputs: &Bound<'_, PyAny>,
    retain_graph: Option<bool>,
    create_graph: bool,
    allow_unused: bool,
) -> PyResult<Py<PyAny>> {
    let outs = tensor_list(Some(outputs))?.unwrap_or_default();
    let ins = tensor_list(Some(inputs))?.unwrap_or_default();
    let grads = tensor_list(Some(grad_outputs))?.unwrap_or_default();
    let opts = BackwardOptions {
        retain_graph: retain_graph.unwrap_or(create_graph),
        create_graph,
        batch: None,
    };
    let result = super::boundary::run(py, || {
        autograd::grad_batched(&outs, &grads, &ins, opts, allow_unused)
    })?;
    let Some(result) = result else {
        return Ok(py.None());
    };
    let items: Vec<Py<PyAny>> = result
        .into_iter()
        .map(|g| g.map_or_else(|| Ok(py.None()), |g| wrap(py, g)))
        .collect::<PyResult<_>>()?;
    Ok(PyTuple::new(py, items)?.into_any().unbind())
}

#[pyfunction]
pub fn is_grad_enabled() -> bool {
    autograd::grad_mode::grad_mode()
}

/// `is_inference_mode_enabled()`: whether this thread is in inference mode.
#[pyfunction]
pub fn is_inference_mode_enabled() -> bool {
    autograd::is_inference_mode_enabled()
}

/// Enter (or, with False, leave) inference mode on this thread as PyTorch's
/// `c10::InferenceMode(mode)` does; returns the state `_exit_inference_mode` restores.
#[pyfunction]
pub fn _enter_inference_mode(mode: bool) -> u8 {
    autograd::grad_mode::enter_inference_mode(mode)
}

#[pyfunction]
pub fn _exit_inference_mode(state: u8) {
    autograd::grad_mode::restore_mode(state)
}

/// `_unsafe_set_version_counter(tensors, versions)`: set each tensor's version counter (shared
/// with its views), as `_unsafe_preserve_version_counter` does on exit.
#[pyfunction]
#[pyo3(name = "_unsafe_set_version_counter")]
pub fn set_version_counters(tensors: Vec<PyRef<'_, PyTensor>>, versions: Vec<u64>) -> PyResult<()> {
    if tensors.len() != versions.len() {
        return Err(super::errors::runtime_error(format!(
            "tensors_len={}, versions_len={}",
            tensors.len(),
            versions.len()
        )));
    }
    for (t, v) in tensors.iter().zip(versions) {
        if t.t.checked_version().is_err() {
            return Err(super::errors::runtime_error(
                "Tried to call gradrs.autograd._unsafe_set_version() on a tensor that does not have a version counter. Was it created in inference mode?",
            ));
        }
        t.t.read().storage.set_version(v);
    }
    Ok(())
}

/// `gradrs.is_inference(t)`, with PyTorch's argument-parser error for a non-tensor.
#[pyfunction]
pub fn is_inference(input: &Bound<'_, PyAny>) -> PyResult<bool> {
    match input.cast::<PyTensor>() {
        Ok(t) => Ok(t.borrow().t.is_inference()),
        Err(_) => Err(super::errors::type_error(format!(
            "is_inference(): argument 'input' (position 1) must be Tensor, not {}",
            input.get_type().name()?
        ))),
    }
}

#[pyfunction]
pub fn _set_grad_enabled(enabled: bool) {
    autograd::set_grad_enabled(enabled)
}

/// Live graph nodes, for leak tests.
#[pyfunction]
pub fn _live_nodes() -> usize {
    live_nodes()
}

/// `_is_checkpoint_valid()`: whether a reentrant checkpoint may run its inner backward here.
#[pyfunction]
pub fn _is_checkpoint_valid() -> bool {
    autograd::engine::is_checkpoint_valid()
}

/// `_current_graph_task_id()`: the running backward pass, or -1.
#[pyfunction]
pub fn _current_graph_task_id() -> i64 {
    autograd::engine::current_graph_task_id()
}

/// `_will_engine_execute_node(node)`: whether the running backward pass executes `node`.
#[pyfunction]
pub fn _will_engine_execute_node(node: &Bound<'_, PyNode>) -> PyResult<bool> {
    Ok(autograd::engine::will_execute(&node.get().node()?)?)
}
