//! Autograd: the graph arena, grad mode, saved tensors, hooks and the backward engine.

pub mod anomaly;
mod batched;
pub mod engine;
pub mod formula;
pub mod forward;
// Grad mode lives in the tensor layer (tensors made in inference mode read it); re-exported
// here, where ops and bindings have always found it.
pub use crate::tensor::grad_mode;
pub mod graph;
pub mod hooks;
pub mod saved;

pub use engine::{backward, grad, grad_batched, BackwardOptions};
pub use formula::{
    attach_formula, attach_formula_jvp, attach_named, attach_named_jvp, record_formula,
    record_formula_jvp, Jvp,
};
pub use grad_mode::{
    is_grad_enabled, is_inference_mode_enabled, set_grad_enabled, GradModeGuard, InferenceMode,
};
pub use graph::{Backward, Ctx, Edge, NodeRef};
pub use saved::SavedTensor;

use crate::tensor::Tensor;
use graph::{gradient_edge, new_node};

/// True when an op with these inputs must record a graph node: for backward, or to compute
/// its outputs' tangents (Note [Forward AD]). Inference tensors take no part in backward
/// (PyTorch's have no autograd dispatch keys): an op on them alone records nothing.
#[inline]
pub fn needs_grad(inputs: &[&Tensor]) -> bool {
    grad_needed(inputs) || forward::any_tangent(inputs)
}

#[inline]
fn grad_needed(inputs: &[&Tensor]) -> bool {
    is_grad_enabled()
        && inputs
            .iter()
            .any(|t| t.requires_grad() && !t.is_inference())
}

/// Record `backward` as the grad_fn of `outputs`, with an edge to each input that requires grad;
/// under forward AD, first give the outputs their tangents (and record nothing if only that
/// was needed).
pub fn attach(outputs: &[&Tensor], inputs: &[&Tensor], backward: Box<dyn Backward>) {
    let edges = inputs.iter().map(|t| gradient_edge(t)).collect();
    let node = new_node(backward, edges, outputs.len() as u32);
    if forward::any_tangent(inputs) {
        let recorded = grad_needed(inputs);
        if let Err(e) = forward::run(&node, outputs, inputs, recorded) {
            crate::error::raise(e)
        }
        forward::share_saved_output_tangents();
        if !recorded {
            return;
        }
    }
    for (i, out) in outputs.iter().enumerate() {
        out.set_grad_fn(Some(node.clone()), i as u32);
    }
}

/// `attach` for the common single-output case, returning the output.
pub fn record(out: Tensor, inputs: &[&Tensor], backward: impl Backward + 'static) -> Tensor {
    let out = out.unview_internal(inputs);
    attach(&[&out], inputs, Box::new(backward));
    out
}
