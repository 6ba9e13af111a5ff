//! Anomaly mode's Python half: each node's `metadata` dict, filled while anomaly mode is on by
//! two callbacks `gradrs/autograd/anomaly_mode.py` registers (the forward traceback, PyTorch's
//! `traceback_` and `parent_` keys, and the warnings naming the failing node).

use super::autograd::{node_object, PyNode};
use crate::autograd::anomaly::{self, Handler, Metadata};
use crate::autograd::NodeRef;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// A node's `metadata` dict.
pub struct PyMetadata {
    pub dict: Py<PyDict>,
}

impl Metadata for PyMetadata {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

struct PyHandler {
    /// `capture(parent)`: the new node's metadata dict; `parent` is a node object or None.
    capture: Py<PyAny>,
    /// `report(node)`: warn with the traceback of `node`'s forward call.
    report: Py<PyAny>,
}

impl Handler for PyHandler {
    fn capture(&self, parent: Option<&NodeRef>) -> Option<Box<dyn Metadata>> {
        Python::attach(|py| {
            let made = (|| -> PyResult<Py<PyDict>> {
                let parent = match parent {
                    Some(p) => node_object(py, p.clone())?,
                    None => py.None(),
                };
                Ok(self.capture.call1(py, (parent,))?.extract(py)?)
            })();
            match made {
                Ok(dict) => Some(Box::new(PyMetadata { dict }) as Box<dyn Metadata>),
                Err(e) => {
                    // Node creation cannot fail; a broken callback must not hide the op.
                    e.write_unraisable(py, None);
                    None
                }
            }
        })
    }

    fn report(&self, node: &NodeRef) {
        Python::attach(|py| {
            let done = node_object(py, node.clone()).and_then(|n| self.report.call1(py, (n,)));
            if let Err(e) = done {
                // The error being reported is what propagates (a warning turned into an
                // error is shown, not raised, as PyTorch does while an exception is in flight).
                e.write_unraisable(py, None);
            }
        })
    }
}

/// `_native._register_anomaly(capture, report)`, called once by `gradrs.autograd`.
#[pyfunction]
pub fn _register_anomaly(capture: Py<PyAny>, report: Py<PyAny>) {
    anomaly::set_handler(Box::new(PyHandler { capture, report }));
}

/// `gradrs.set_anomaly_enabled(enabled, check_nan=True)`.
#[pyfunction]
#[pyo3(signature = (enabled, check_nan=None))]
pub fn set_anomaly_enabled(
    enabled: &Bound<'_, PyAny>,
    check_nan: Option<&Bound<'_, PyAny>>,
) -> PyResult<()> {
    let flag = |v: &Bound<'_, PyAny>, name: &str, pos: usize| -> PyResult<bool> {
        if let Ok(b) = v.cast::<pyo3::types::PyBool>() {
            return Ok(b.is_true());
        }
        Err(super::errors::type_error(format!(
            "set_anomaly_enabled(): argument '{name}' (position {pos}) must be bool, not {}",
            v.get_type().name()?
        )))
    };
    let check_nan = match check_nan {
        Some(v) => flag(v, "check_nan", 2)?,
        None => true,
    };
    anomaly::set_enabled(flag(enabled, "enabled", 1)?, check_nan);
    Ok(())
}

/// `gradrs.is_anomaly_enabled()`.
#[pyfunction]
pub fn is_anomaly_enabled() -> bool {
    anomaly::is_enabled()
}

/// `gradrs.is_anomaly_check_nan_enabled()`.
#[pyfunction]
pub fn is_anomaly_check_nan_enabled() -> bool {
    anomaly::should_check_nan()
}

/// `node.metadata`: the node's dict, made empty on first use when anomaly mode did not fill it.
pub fn metadata(py: Python<'_>, node: &PyNode) -> PyResult<Py<PyDict>> {
    let node = node.node()?;
    let existing = node.try_with(|n| {
        n.metadata
            .as_ref()
            .and_then(|m| m.as_any().downcast_ref::<PyMetadata>())
            .map(|m| m.dict.clone_ref(py))
    });
    match existing {
        Some(Some(d)) => Ok(d),
        Some(None) => {
            let dict = PyDict::new(py).unbind();
            let meta = PyMetadata {
                dict: dict.clone_ref(py),
            };
            node.with(|n| n.metadata = Some(Box::new(meta)));
            Ok(dict)
        }
        None => Err(super::errors::runtime_error(
            "cannot read the metadata of a node while it runs",
        )),
    }
}
