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
    node: OnceLock<NodeRef>,
}

static NODE_CLASSES: PyOnceLock<Mutex<HashMap<&'static str, Py<PyAny>>>> = PyOnceLock::new();

/// The Python object for a graph node.
pub fn node_object(py: Python<'_>, node: NodeRef) -> PyResult<Py<PyAny>> {
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
    let _ = obj.bind(py).cast::<PyNode>()?.get().node.set(node);
    Ok(obj)
}

impl PyNode {
    fn node(&self) -> PyResult<&NodeRef> {
        self.node.get().ok_or_else(|| {
            pyo3::exceptions::PyRuntimeError::new_err("graph nodes are created by operations")
        })
    }
}

#[pymethods]
impl PyNode {
    #[new]
    fn new() -> PyNode {
        PyNode {
            node: OnceLock::new(),
        }
    }

    fn name(&self) -> PyResult<&'static str> {
        Ok(match self.node()?.name() {
            "AccumulateGrad" => "gradrs::autograd::AccumulateGrad",
            "CopySlices" => "gradrs::autograd::CopySlices",
            "CopyBackwards" => "gradrs::autograd::CopyBackwards",
            n => n,
        })
    }
    #[getter]
    fn next_functions(&self, py: Python<'_>) -> PyResult<Py<PyTuple>> {
        let items: Vec<Py<PyAny>> = self
            .node()?
            .next_functions()
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
    /// The leaf an `AccumulateGrad` node accumulates into.
    #[getter]
    fn variable(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self.node()?.variable() {
            Some(t) => wrap(py, t),
            None => Err(pyo3::exceptions::PyAttributeError::new_err(format!(
                "'{}' object has no attribute 'variable'",
                self.node()?.name()
            ))),
        }
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
            .is_ok_and(|o| o.get().node.get() == self.node.get())
    }
    fn __hash__(&self) -> PyResult<u64> {
        Ok(self.node()?.key() as u64)
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
        return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
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
    };
    if create_graph {
        super::helpers::warn_create_graph_once(tensors.py())?;
    }
    autograd::backward(&roots, &grads, opts, inputs.as_deref())?;
    Ok(())
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
    };
    let result = autograd::grad(&outs, &grads, &ins, opts, allow_unused)?;
    let items: Vec<Py<PyAny>> = result
        .into_iter()
        .map(|g| g.map_or_else(|| Ok(py.None()), |g| wrap(py, g)))
        .collect::<PyResult<_>>()?;
    Ok(PyTuple::new(py, items)?.unbind())
}

#[pyfunction]
pub fn is_grad_enabled() -> bool {
    autograd::is_grad_enabled()
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
