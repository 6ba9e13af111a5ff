//! Saved tensors: what a backward formula keeps from the forward pass.

use crate::autograd::graph::{Ctx, NodeRef};
use crate::error::{Error, Result};
use crate::tensor::Tensor;

pub const BACKWARD_TWICE: &str = "Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.";

pub const INFERENCE_SAVED: &str = "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and use it in autograd, or use `gradrs.no_grad()` instead of `gradrs.inference_mode()`.";

/// PyTorch's `SavedVariable` check.
fn check_not_inference(t: &Tensor) -> Result<()> {
    if t.is_inference() {
        return Err(Error::Runtime(INFERENCE_SAVED.into()));
    }
    Ok(())
}

/// A tensor saved for backward, with the version it had when saved.
///
/// Outputs of the node itself are stored without their grad_fn (that would be a cycle:
/// node -> saved output -> node) and re-attached to the running node when unpacked.
pub struct SavedTensor {
    tensor: Option<Tensor>,
    version: u64,
    output_nr: Option<u32>,
    requires_grad: bool,
}

impl SavedTensor {
    /// Save an input of the op; inference tensors cannot be saved (Note [Inference mode]).
    pub fn input(t: &Tensor) -> Result<SavedTensor> {
        check_not_inference(t)?;
        Ok(SavedTensor {
            tensor: Some(t.clone()),
            version: t.version(),
            output_nr: None,
            requires_grad: false,
        })
    }

    /// Save the op's own output number `output_nr`; call before the output gets its grad_fn.
    pub fn output(t: &Tensor, output_nr: u32) -> Result<SavedTensor> {
        check_not_inference(t)?;
        Ok(SavedTensor {
            tensor: Some(t.detach()),
            version: t.version(),
            output_nr: Some(output_nr),
            requires_grad: true,
        })
    }

    pub fn unpack(&self, ctx: &Ctx) -> Result<Tensor> {
        self.unpack_for(ctx.node)
    }

    /// Unpack for `node`, the node that saved it (outputs are re-attached to it).
    pub fn unpack_for(&self, node: &NodeRef) -> Result<Tensor> {
        let t = self
            .tensor
            .as_ref()
            .ok_or_else(|| Error::Runtime(BACKWARD_TWICE.into()))?;
        let current = t.version();
        if current != self.version {
            let producer = match self.output_nr {
                Some(nr) => Some((node.name(), nr)),
                None => t.grad_fn().map(|f| (f.name(), t.output_nr())),
            };
            // PyTorch names the op, not its node: `MulBackward0` is `Mul`.
            let op = |name: &str| {
                let bare = name.trim_end_matches(|c: char| c.is_ascii_digit());
                bare.strip_suffix("Backward").unwrap_or(name).to_string()
            };
            let which = producer
                .map(|(name, nr)| format!(", which is output {nr} of {},", op(name)))
                .unwrap_or_default();
            // Under anomaly mode the engine's warning has just shown the forward traceback.
            let hint = if crate::autograd::anomaly::is_enabled() {
                "the backtrace further above shows the operation that failed to compute its gradient. The variable in question was changed in there or anywhere later. Good luck!"
            } else {
                "enable anomaly detection to find the operation that failed to compute its gradient, with gradrs.autograd.set_detect_anomaly(True, check_nan=False)."
            };
            return Err(Error::Runtime(format!(
                "one of the variables needed for gradient computation has been modified by an inplace operation: [gradrs.{} {}]{which} is at version {current}; expected version {} instead. Hint: {hint}",
                t.dtype().legacy_name(),
                crate::tensor::shape::list_repr(&t.shape()),
                self.version
            )));
        }
        match self.output_nr {
            Some(nr) if self.requires_grad => {
                let re = t.detach();
                re.set_grad_fn(Some(node.clone()), nr);
                Ok(re)
            }
            _ => Ok(t.clone()),
        }
    }

    pub fn release(&mut self) {
        let old = self.tensor.take();
        drop(old);
    }
}
