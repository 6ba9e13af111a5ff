//! Anomaly mode (PyTorch's `AnomalyMode`): process-wide flags; while on, each new node keeps
//! metadata about the forward call that made it, and backward checks for NaN gradients and
//! reports which node failed.
//!
//! The metadata is language-specific (the Python bindings keep the Python traceback in a dict,
//! PyTorch's `grad_fn.metadata['traceback_']`), so the bindings register a `Handler` that makes
//! it and reports from it. When the mode is off nothing is captured: creating a node reads
//! one atomic flag.

use super::graph::NodeRef;
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

static ENABLED: AtomicBool = AtomicBool::new(false);
static CHECK_NAN: AtomicBool = AtomicBool::new(true);

/// `torch.is_anomaly_enabled()`.
#[inline]
pub fn is_enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// `torch.is_anomaly_check_nan_enabled()`.
pub fn should_check_nan() -> bool {
    CHECK_NAN.load(Ordering::Relaxed)
}

/// `torch.set_anomaly_enabled(enabled, check_nan)`.
pub fn set_enabled(enabled: bool, check_nan: bool) {
    ENABLED.store(enabled, Ordering::Relaxed);
    CHECK_NAN.store(check_nan, Ordering::Relaxed);
}

/// What a node keeps from its forward call (the bindings' type).
pub trait Metadata: Send + Sync {
    fn as_any(&self) -> &dyn std::any::Any;
}

/// Implemented by the language bindings.
pub trait Handler: Send + Sync {
    /// Metadata for a node being created now, while anomaly mode is on; `parent` is the node
    /// whose backward is running on this thread (the node was made under create_graph).
    fn capture(&self, parent: Option<&NodeRef>) -> Option<Box<dyn Metadata>>;
    /// An error was raised while `node` ran in backward: warn with its forward traceback.
    fn report(&self, node: &NodeRef);
}

static HANDLER: OnceLock<Box<dyn Handler>> = OnceLock::new();

/// Register the bindings' handler (once; later calls are ignored).
pub fn set_handler(handler: Box<dyn Handler>) {
    let _ = HANDLER.set(handler);
}

thread_local! {
    /// Nodes whose backward runs on this thread, innermost last (PyTorch's `NodeGuard`).
    static CURRENT: RefCell<Vec<NodeRef>> = const { RefCell::new(Vec::new()) };
}

/// Marks `node` as running on this thread while alive.
pub(crate) struct CurrentNode;

impl CurrentNode {
    pub(crate) fn enter(node: &NodeRef) -> CurrentNode {
        CURRENT.with(|c| c.borrow_mut().push(node.clone()));
        CurrentNode
    }
}

impl Drop for CurrentNode {
    fn drop(&mut self) {
        let node = CURRENT.with(|c| c.borrow_mut().pop());
        drop(node); // outside the borrow: dropping a node may release others
    }
}

/// The metadata for a node being created (None when anomaly mode is off).
pub(crate) fn capture() -> Option<Box<dyn Metadata>> {
    if !is_enabled() {
        return None;
    }
    let parent = CURRENT.with(|c| c.borrow().last().cloned());
    HANDLER.get()?.capture(parent.as_ref())
}

/// Report an error raised while `node` ran (only while anomaly mode is on).
pub(crate) fn report(node: &NodeRef) {
    if let Some(h) = HANDLER.get() {
        h.report(node);
    }
}

/// PyTorch's engine check under anomaly mode: no gradient a node returns may hold a NaN.
pub(crate) fn check_nan(name: &str, outs: &[Option<Tensor>]) -> Result<()> {
    for (i, g) in outs.iter().enumerate() {
        let Some(g) = g else { continue };
        if g.dtype().is_floating_point() && g.to_f64_vec().iter().any(|v| v.is_nan()) {
            return Err(Error::Runtime(format!(
                "Function '{name}' returned nan values in its {i}th output."
            )));
        }
    }
    Ok(())
}
