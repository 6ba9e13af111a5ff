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

/// A forward-mode formula (Note [Forward AD]): each input's tangent (None where it has none)
/// and the saved tensors; returns each output's tangent.
pub type JvpFn = dyn Fn(&[Option<Tensor>], &[Tensor]) -> Result<Vec<Option<Tensor>>> + Send + Sync;

/// How a formula node computes tangents.
pub enum Jvp {
    /// None written: forward AD through the op raises PyTorch's NotImplementedError.
    Missing,
    /// `auto_element_wise`: the backward formula is elementwise in the gradient.
    Elementwise,
    /// A reduction over these dims (`Backward::reduction`).
    Reduction(Vec<usize>, bool),
    /// Its own formula.
    Formula(Box<JvpFn>),
    /// Its own formula, reading `self`'s tangent alone: not run (no tangent) without one
    /// (`Backward::jvp_reads_self_only`).
    SelfOnly(Box<JvpFn>),
}

impl Jvp {
    /// `Jvp::Formula` from a closure.
    pub fn of(
        f: impl Fn(&[Option<Tensor>], &[Tensor]) -> Result<Vec<Option<Tensor>>> + Send + Sync + 'static,
    ) -> Jvp {
        Jvp::Formula(Box::new(f))
    }

    /// `auto_linear` for an op linear in all its inputs (of these shapes): the op applied to
    /// the tangents, zeros standing for inputs without one.
    pub fn linear_n(
        shapes: Vec<crate::tensor::shape::Shape>,
        f: impl Fn(&[Tensor]) -> Result<Tensor> + Send + Sync + 'static,
    ) -> Jvp {
        Jvp::of(move |t, _| {
            let Some(proto) = t.iter().flatten().next() else {
                return Ok(vec![None]);
            };
            let (dtype, device) = (proto.dtype(), proto.device());
            let ts: Vec<Tensor> = t
                .iter()
                .zip(&shapes)
                .map(|(t, s)| {
                    t.clone()
                        .unwrap_or_else(|| Tensor::zeros_on(s, dtype, device))
                })
                .collect();
            Ok(vec![Some(f(&ts)?)])
        })
    }

    /// `auto_linear` for a one-input, one-output op: the op itself applied to the tangent.
    pub fn linear(f: impl Fn(&Tensor) -> Result<Tensor> + Send + Sync + 'static) -> Jvp {
        Jvp::of(move |t, _| match &t[0] {
            Some(t) => Ok(vec![Some(f(t)?)]),
            None => Ok(vec![None]),
        })
    }
}

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
    jvp: Jvp,
}

impl<F> Backward for Formula<F>
where
    F: Fn(&[Option<Tensor>], &[Tensor]) -> Result<Vec<Option<Tensor>>> + Send + Sync + 'static,
{
    fn name(&self) -> &'static str {
        self.name
    }
    fn apply(&mut self, grads: &[Option<Tensor>], ctx: &Ctx) -> Result<Vec<Option<Tensor>>> {
        // (an entry that saved nothing, a None of a `*name` list, is not handed on)
        let saved = self
            .saved
            .iter()
            .filter(|s| !s.is_nothing())
            .map(|s| s.unpack(ctx))
            .collect::<Result<SmallVec<[Tensor; 2]>>>()?;
        (self.f)(grads, &saved)
    }
    fn jvp(&mut self, tangents: &[Option<Tensor>], ctx: &Ctx) -> Result<Vec<Option<Tensor>>> {
        let (Jvp::Formula(f) | Jvp::SelfOnly(f)) = &self.jvp else {
            return Err(crate::autograd::forward::not_implemented(
                &crate::autograd::forward::op_name(self.name),
            ));
        };
        let saved = self
            .saved
            .iter()
            .filter(|s| !s.is_nothing())
            .map(|s| s.unpack(ctx))
            .collect::<Result<SmallVec<[Tensor; 3]>>>()?;
        f(tangents, &saved)
    }
    fn elementwise(&self) -> bool {
        matches!(self.jvp, Jvp::Elementwise)
    }
    fn jvp_reads_self_only(&self) -> bool {
        matches!(self.jvp, Jvp::SelfOnly(_))
    }
    fn reduction(&self) -> Option<(Vec<usize>, bool)> {
        match &self.jvp {
            Jvp::Reduction(dims, keepdim) => Some((dims.clone(), *keepdim)),
            _ => None,
        }
    }
    fn release(&mut self) {
        self.saved.iter_mut().for_each(SavedTensor::release);
    }
    fn saved_values(&mut self) -> Vec<(&'static str, SavedValue<'_>)> {
        // An empty name hides a saved tensor PyTorch would not have saved; `*name` entries
        // form one list `_saved_name` (PyTorch's `indices`), None where nothing was saved.
        let mut out: Vec<(&'static str, SavedValue<'_>)> = Vec::new();
        let mut list: Option<(&'static str, Vec<Option<&mut SavedTensor>>)> = None;
        for (n, s) in self.names.iter().zip(self.saved.iter_mut()) {
            if let Some(name) = n.strip_prefix('*') {
                let entry = (!s.is_nothing()).then_some(s);
                match &mut list {
                    Some((_, l)) => l.push(entry),
                    None => list = Some((name, vec![entry])),
                }
            } else if !n.is_empty() {
                out.push((n, SavedValue::Tensor(s)));
            }
        }
        if let Some((name, l)) = list {
            out.push((name, SavedValue::Tensors(l)));
        }
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
    attach_named_jvp(
        outputs,
        inputs,
        name,
        saved,
        &[],
        Values::new(),
        f,
        Jvp::Missing,
    );
}

/// `attach_formula` with a forward-mode formula.
pub fn attach_formula_jvp(
    outputs: &[&Tensor],
    inputs: &[&Tensor],
    name: &'static str,
    saved: impl Into<Saved>,
    f: impl Fn(&[Option<Tensor>], &[Tensor]) -> Result<Vec<Option<Tensor>>> + Send + Sync + 'static,
    jvp: Jvp,
) {
    attach_named_jvp(outputs, inputs, name, saved, &[], Values::new(), f, jvp);
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
    attach_named_jvp(outputs, inputs, name, saved, names, values, f, Jvp::Missing);
}

/// `attach_named` with a forward-mode formula.
#[allow(clippy::too_many_arguments)]
pub fn attach_named_jvp(
    outputs: &[&Tensor],
    inputs: &[&Tensor],
    name: &'static str,
    saved: impl Into<Saved>,
    names: &'static [&'static str],
    values: Values,
    f: impl Fn(&[Option<Tensor>], &[Tensor]) -> Result<Vec<Option<Tensor>>> + Send + Sync + 'static,
    jvp: Jvp,
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
            jvp,
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
    record_formula_jvp(out, inputs, name, saved, f, Jvp::Missing)
}

/// `record_formula` with a forward-mode formula.
pub fn record_formula_jvp(
    out: Tensor,
    inputs: &[&Tensor],
    name: &'static str,
    saved: impl Into<Saved>,
    f: impl Fn(&Tensor, &[Tensor]) -> Result<Vec<Option<Tensor>>> + Send + Sync + 'static,
    jvp: Jvp,
) -> Tensor {
    let out = out.unview_internal(inputs);
    attach_formula_jvp(
        &[&out],
        inputs,
        name,
        saved,
        move |g, s| f(g[0].as_ref().expect("engine passes a gradient"), s),
        jvp,
    );
    out
}
