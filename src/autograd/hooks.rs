//! Hooks: user callbacks the engine runs on gradients, with PyTorch's kinds and order.
//!
//! The core stores them as trait objects and never looks inside; the bindings implement them
//! with Python callables, so the core stays Python-free. Note [Hook order], per node the engine
//! runs (PyTorch's `call_function`): tensor hooks of each output (`Tensor.register_hook`; a
//! leaf's live on the tensor and its `AccumulateGrad` reads them), then `retain_grad`, which so
//! sees the hooked gradient; then the node's pre-hooks (`Node.register_prehook`); the node
//! itself; then its post-hooks (`Node.register_hook`), which may replace the gradients it
//! produced. A leaf's post-accumulate-grad hooks run after its `.grad` was updated.
//!
//! A tensor's hooks follow its history: they are registered on the node that is its `grad_fn`
//! when they are registered, so after an in-place op (a new `grad_fn`) earlier hooks still see
//! the gradient of the old value and later ones that of the new (`rebase`).

use super::graph::NodeRef;
use crate::error::{Error, Result};
// Declared in the tensor layer, whose metadata holds them.
use crate::tensor::history::Rebase;
pub use crate::tensor::history::{PostAccumulateGradHook, TensorHook};
use crate::tensor::Tensor;
use std::any::Any;
use std::sync::Arc;

/// `Node.register_prehook`: sees (and may replace) the gradients of the node's outputs.
pub trait PreHook: Send + Sync {
    fn call(&self, grad_outputs: Vec<Option<Tensor>>) -> Result<Vec<Option<Tensor>>>;
    fn as_any(&self) -> &dyn Any;
}

/// `Node.register_hook`: sees the gradients the node computed for its inputs (which it may
/// replace) and the gradients of its outputs.
pub trait PostHook: Send + Sync {
    fn call(
        &self,
        grad_inputs: Vec<Option<Tensor>>,
        grad_outputs: &[Option<Tensor>],
    ) -> Result<Vec<Option<Tensor>>>;
    fn as_any(&self) -> &dyn Any;
}

/// The hooks a node carries.
#[derive(Default, Clone)]
pub struct NodeHooks {
    /// (output slot, hook) in registration order.
    pub tensor: Vec<(u32, Arc<dyn TensorHook>)>,
    pub pre: Vec<Arc<dyn PreHook>>,
    pub post: Vec<Arc<dyn PostHook>>,
}

/// `Tensor.register_hook`: on a leaf the hook lives on the tensor (its `AccumulateGrad` runs
/// it before accumulating); otherwise on the current `grad_fn`, for this tensor's slot.
pub fn register_tensor_hook(t: &Tensor, hook: Arc<dyn TensorHook>) -> Result<()> {
    if !t.requires_grad() {
        return Err(Error::Runtime(
            "cannot register a hook on a tensor that doesn't require gradient".into(),
        ));
    }
    super::graph::refresh_view(t);
    let (grad_fn, nr) = {
        let mut m = t.0.meta.lock();
        m.hooks.push(hook.clone());
        (m.grad_fn.clone(), m.output_nr)
    };
    if let Some(node) = grad_fn {
        node.with(|n| n.hooks.tensor.push((nr, hook)));
    }
    Ok(())
}

/// The hooks registered on `t` since its history last changed (newest last).
pub fn tensor_hooks(t: &Tensor) -> Vec<Arc<dyn TensorHook>> {
    t.0.meta.lock().hooks.to_vec()
}

/// `Tensor.register_post_accumulate_grad_hook`.
pub fn register_post_accumulate_grad_hook(
    t: &Tensor,
    hook: Arc<dyn PostAccumulateGradHook>,
) -> Result<()> {
    if !t.requires_grad() {
        return Err(Error::Runtime(
            "cannot register a hook on a tensor that doesn't require gradient".into(),
        ));
    }
    if !t.is_leaf() {
        return Err(Error::Runtime(
            "post accumulate grad hooks cannot be registered on non-leaf tensors".into(),
        ));
    }
    t.0.meta.lock().post_accumulate_hooks.push(hook);
    Ok(())
}

pub fn post_accumulate_grad_hooks(t: &Tensor) -> Vec<Arc<dyn PostAccumulateGradHook>> {
    t.0.meta.lock().post_accumulate_hooks.to_vec()
}

impl Rebase for NodeRef {
    fn rebase(&self, t: &Tensor) {
        rebase(t, Some(self));
    }
}

/// `t`'s `grad_fn` changed from `old` (an in-place op or a view's rebase): hooks registered
/// from now on go to the new node (the old node keeps the earlier ones), and a `retain_grad`
/// moves to the new node, as PyTorch's `update_tensor_hooks_on_new_gradfn` does.
pub(crate) fn rebase(t: &Tensor, old: Option<&NodeRef>) {
    let (retains, nr, new) = {
        let mut m = t.0.meta.lock();
        let cleared = std::mem::take(&mut m.hooks);
        drop(cleared);
        (m.retains_grad, m.output_nr, m.grad_fn.clone())
    };
    if !retains {
        return;
    }
    let me = Arc::as_ptr(&t.0);
    if let Some(old) = old {
        old.try_with(|n| n.retained.retain(|(_, w)| w.as_ptr() != me));
    }
    if let Some(new) = new {
        let weak = Arc::downgrade(&t.0);
        new.with(|n| n.retained.push((nr, weak)));
    }
}
