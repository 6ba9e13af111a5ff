//! Backward formulas as closures, so an op needs no struct of its own: the node keeps its
//! saved tensors (version-checked, freed after backward) and calls the closure with them.

use crate::autograd::graph::{Backward, Ctx};
use crate::autograd::saved::{SavedValue, Value};
use crate::autograd::{attach, SavedTensor};
use crate::error::Result;
use crate::tensor::Tensor;
use smallvec::SmallVec;

/// `grads` (one per output, `None` where an output got no gradient) and the unpacked saved
/// tensors, in the order they were saved; returns one gradient per input.
pub type FormulaFn =
    dyn Fn(&[Option<Tensor>], &[Tensor]) -> Result<Vec<Option<Tensor>>> + Send + Sync;

/// What a formula node saved: up to two tensors kept in the node itself (a bigger node costs
/// every op that records one its copies; more spill to the heap).
pub type Saved = SmallVec<[SavedTensor; 2]>;
/// The non-tensor values a node shows as `_saved_<name>`.
pub type Values = SmallVec<[(&'static str, Value); 1]>;

/// The node of every formula: the closure is kept in it (one allocation per node, as a struct
/// of its own would take).
struct Formula<F> {
    name: &'static str,
    saved: Saved,
    f: F,
    /// PyTorch's names of `saved` (`_saved_<name>`), set by `describe` or at creation.
    names: &'static [&'static str],
    values: Values,
}

impl<F> Backward for Formula<F>
where
    F: Fn(&[Option<Tensor>], &[Tensor]) -> Result<Vec<Option<Tensor>>> + Send + Sync + 'static,
{
    fn name(&self) -> &'static str {
        self.name
    }
    fn apply(&mut self, grads: &[Option<Tensor>], ctx: &Ctx) -> Result<Vec<Option<Tensor>>> {
        let saved = self
            .saved
            .iter()
            .map(|s| s.unpack(ctx))
            .collect::<Result<SmallVec<[Tensor; 2]>>>()?;
        (self.f)(grads, &saved)
    }
    fn release(&mut self) {
        self.saved.iter_mut().for_each(SavedTensor::release);
    }
    fn saved_values(&mut self) -> Vec<(&'static str, SavedValue<'_>)> {
        // An empty name hides a saved tensor PyTorch would not have saved.
        let mut out: Vec<(&'static str, SavedValue<'_>)> = self
            .names
            .iter()
            .zip(self.saved.iter_mut())
            .filter(|(n, _)| !n.is_empty())
            .map(|(n, s)| (*n, SavedValue::Tensor(s)))
            .collect();
        out.extend(self.values.iter().map(|(n, v)| match v {
            Value::Unsaved => (*n, SavedValue::Absent),
            v => (*n, SavedValue::Value(v.clone())),
        }));
        out
    }
    fn describe(&mut self, tensors: &'static [&'static str], values: Vec<(&'static str, Value)>) {
        self.names = tensors;
        self.values = values.into();
    }
}

/// Give `out`'s node (just recorded) PyTorch's names for what it saved: `tensors` name the
/// saved tensors in the order saved, `values` the non-tensor arguments the formula keeps.
/// Does nothing when `out` recorded no node.
pub fn describe(
    out: &Tensor,
    tensors: &'static [&'static str],
    values: Vec<(&'static str, Value)>,
) {
    if let Some(node) = out.grad_fn() {
        node.with(|n| n.backward.describe(tensors, values));
    }
}

/// Record a node named `name` for `outputs` computed from `inputs`.
pub fn attach_formula(
    outputs: &[&Tensor],
    inputs: &[&Tensor],
    name: &'static str,
    saved: impl Into<Saved>,
    f: impl Fn(&[Option<Tensor>], &[Tensor]) -> Result<Vec<Option<Tensor>>> + Send + Sync + 'static,
) {
    attach_named(outputs, inputs, name, saved, &[], Values::new(), f);
}

/// `attach_formula` with the names `describe` would give (`names` for the saved tensors in
/// the order saved, `values` for the rest), set as the node is made.
pub fn attach_named(
    outputs: &[&Tensor],
    inputs: &[&Tensor],
    name: &'static str,
    saved: impl Into<Saved>,
    names: &'static [&'static str],
    values: Values,
    f: impl Fn(&[Option<Tensor>], &[Tensor]) -> Result<Vec<Option<Tensor>>> + Send + Sync + 'static,
) {
    attach(
        outputs,
        inputs,
        Box::new(Formula {
            name,
            saved: saved.into(),
            f,
            names,
            values,
        }),
    );
}

/// The single-output case: `f(g, saved)` returns one gradient per input.
pub fn record_formula(
    out: Tensor,
    inputs: &[&Tensor],
    name: &'static str,
    saved: impl Into<Saved>,
    f: impl Fn(&Tensor, &[Tensor]) -> Result<Vec<Option<Tensor>>> + Send + Sync + 'static,
) -> Tensor {
    attach_formula(&[&out], inputs, name, saved, move |g, s| {
        f(g[0].as_ref().expect("engine passes a gradient"), s)
    });
    out
}
