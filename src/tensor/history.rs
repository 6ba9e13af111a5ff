//! What a tensor's autograd metadata holds of the autograd layer, declared here so that the
//! tensor layer imports nothing above it (the direction of PyTorch's `AutogradMetaInterface`).
//!
//! The node handles are plain ids; `autograd::graph` gives them their behaviour (counting in
//! its arena: `Clone`, `Drop` and the methods are implemented there). The tensor hook traits
//! are what `autograd::hooks` runs. `Rebase` is the one thing the tensor layer asks of a node,
//! when a tensor's history changes; `autograd::hooks` implements it.

use crate::error::Result;
use crate::tensor::Tensor;
use std::any::Any;

/// A counted handle to a node in the autograd arena (`autograd::graph`).
pub struct NodeRef {
    pub(crate) index: u32,
    pub(crate) generation: u32,
}

/// A handle that does not keep its node alive (a leaf's link to its `AccumulateGrad`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct WeakNode {
    pub(crate) index: u32,
    pub(crate) generation: u32,
}

/// A hook on the gradient flowing into one output slot of a node (a tensor's gradient).
pub trait TensorHook: Send + Sync {
    /// The gradient that continues, given the one that arrived (None where it is undefined).
    fn call(&self, grad: Option<Tensor>) -> Result<Option<Tensor>>;
    fn as_any(&self) -> &dyn Any;
}

/// `Tensor.register_post_accumulate_grad_hook`: called with the leaf once its `.grad` is set.
pub trait PostAccumulateGradHook: Send + Sync {
    fn call(&self, variable: &Tensor) -> Result<()>;
    fn as_any(&self) -> &dyn Any;
}

/// A tensor's `grad_fn` changed away from this node while the tensor has hooks or retains its
/// gradient: they follow the new history (`autograd::hooks::rebase`).
pub trait Rebase {
    fn rebase(&self, t: &Tensor);
}
