//! Forward-mode AD's state (Note [Forward AD]): the dual level, the tangents tensors carry at
//! it, and the hook through which a recorded node computes its outputs' tangents.
//!
//! Note [Forward AD]: as PyTorch, one dual level at a time (level 0; entering a second is
//! PyTorch's "Nested forward mode AD is not supported"), process-wide. A tensor's tangent
//! lives in its `AutogradMeta::fw_grad`, laid out exactly as the tensor over a storage of the
//! same size (PyTorch's `_new_zeros_with_same_feature_meta`), so the tangent of any view is the
//! same layout over its base's tangent storage: views need no formula (a tangent that requires
//! grad, forward over reverse, has its view recorded: `ops::forward::view_of_tangent`), and an in-place op on a
//! view writes its tangent through to the base's. Every tensor given a tangent is remembered
//! (weakly) and loses it when the level exits. An op computes its outputs' tangents when it
//! records: `autograd::attach` asks the node's `Backward::jvp` (run by the ops layer's
//! installed runner, since summing and copying tangents are ops), and records the node only if
//! grad is also needed. While no level is live, the only cost to an op is one relaxed load.

use crate::autograd::graph::NodeRef;
use crate::error::{Error, Result};
use crate::tensor::{Operand, Tensor, TensorImpl};
use parking_lot::Mutex;
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{OnceLock, Weak};

static LIVE: AtomicBool = AtomicBool::new(false);
static HOLDERS: Mutex<Vec<Weak<TensorImpl>>> = Mutex::new(Vec::new());

thread_local! {
    /// Off while a jvp formula runs (its ops act on primals and tangents, which carry no
    /// tangent of their own at the one level) and under `_set_fwd_grad_enabled(False)`.
    static ENABLED: Cell<bool> = const { Cell::new(true) };
}

thread_local! {
    /// Outputs saved for backward while a level is live, each with the copy its node saved.
    /// An output's tangent is computed after its node saved it, so `attach` hands each copy
    /// the tangent then (PyTorch's SavedVariable shares the output's ForwardGrad): without it,
    /// forward-over-reverse through `exp`, `tanh`, `softmax`, ... lost the saved result's tangent.
    static SAVED_OUTPUTS: std::cell::RefCell<Vec<(Weak<TensorImpl>, Weak<TensorImpl>)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Remember that `saved` is the copy of `output` a node keeps (only while a level is live).
pub fn note_saved_output(output: &Tensor, saved: &Tensor) {
    if enabled() {
        SAVED_OUTPUTS.with(|v| {
            v.borrow_mut().push((
                std::sync::Arc::downgrade(&output.0),
                std::sync::Arc::downgrade(&saved.0),
            ))
        });
    }
}

/// Give each saved copy noted since the last call its output's tangent (see `SAVED_OUTPUTS`).
pub fn share_saved_output_tangents() {
    let pending = SAVED_OUTPUTS.with(|v| std::mem::take(&mut *v.borrow_mut()));
    for (output, saved) in pending {
        if let (Some(o), Some(s)) = (output.upgrade(), saved.upgrade()) {
            if let Some(t) = own_tangent(&Tensor(o)) {
                store_tangent(&Tensor(s), Some(t));
            }
        }
    }
}

/// Computes the tangents of `outputs` from `node` and the tangents of `inputs`.
pub type Runner = fn(&NodeRef, &[&Tensor], &[&Tensor]) -> Result<()>;
static RUNNER: OnceLock<Runner> = OnceLock::new();

/// Installed by the ops layer before the first level is entered.
pub fn install_runner(f: Runner) {
    let _ = RUNNER.set(f);
}

/// True while a dual level is live and this thread propagates tangents.
#[inline]
pub fn enabled() -> bool {
    LIVE.load(Ordering::Relaxed) && ENABLED.with(Cell::get)
}

/// `torch._C._is_fwd_grad_enabled`.
pub fn is_fwd_grad_enabled() -> bool {
    ENABLED.with(Cell::get)
}

/// `torch._C._set_fwd_grad_enabled`.
pub fn set_fwd_grad_enabled(on: bool) {
    ENABLED.with(|e| e.set(on));
}

/// Turns tangent propagation off for its lifetime (a jvp formula runs under it).
pub struct Suspend(bool);

impl Suspend {
    pub fn new() -> Suspend {
        Suspend(ENABLED.with(|e| e.replace(false)))
    }
}

impl Default for Suspend {
    fn default() -> Self {
        Suspend::new()
    }
}

impl Drop for Suspend {
    fn drop(&mut self) {
        ENABLED.with(|e| e.set(self.0));
    }
}

/// Whether a level is live (the Python side keeps the level number).
pub fn level_live() -> bool {
    LIVE.load(Ordering::Relaxed)
}

/// `_enter_dual_level`: the new level, 0.
pub fn enter_level() -> Result<i64> {
    if LIVE.swap(true, Ordering::SeqCst) {
        return Err(Error::Runtime(
            "Nested forward mode AD is not supported at the moment".into(),
        ));
    }
    Ok(0)
}

/// `_exit_dual_level`: every tangent made at the level is dropped.
pub fn exit_level(level: i64) -> Result<()> {
    if level < 0 {
        return Err(Error::Runtime(
            "Dual level must be a positive number.".into(),
        ));
    }
    if level != 0 || !LIVE.load(Ordering::SeqCst) {
        return Err(Error::Runtime(
            "Trying to exit a forward AD level that was not the last one that was created. This is not supported."
                .into(),
        ));
    }
    let holders = std::mem::take(&mut *HOLDERS.lock());
    LIVE.store(false, Ordering::SeqCst);
    // Dropped outside the lock: a tangent's drop may free other tensors.
    let dropped: Vec<Option<Tensor>> = holders
        .iter()
        .filter_map(Weak::upgrade)
        .map(|t| t.meta.lock().fw_grad.take())
        .collect();
    drop(dropped);
    Ok(())
}

/// Whether `t` has a tangent at the live level: its own, or (a view) its base's.
#[inline]
pub fn has_tangent(t: &Tensor) -> bool {
    let own = {
        let m = t.0.meta.lock();
        if m.fw_grad.is_some() {
            return true;
        }
        m.fw_standalone
    };
    !own && t
        .view_base()
        .is_some_and(|b| b.0.meta.lock().fw_grad.is_some())
}

/// Whether some input carries a tangent while forward AD is on: the op must compute one.
/// Inlined down to one relaxed atomic load while no dual level is live (every op asks).
#[inline(always)]
pub fn any_tangent(inputs: &[&Tensor]) -> bool {
    LIVE.load(Ordering::Relaxed) && any_tangent_live(inputs)
}

#[inline(never)]
fn any_tangent_live(inputs: &[&Tensor]) -> bool {
    enabled() && inputs.iter().any(|t| has_tangent(t))
}

/// `any_tangent` for operands (a Python number never has one).
#[inline(always)]
pub fn operand_tangent(ops: &[&Operand]) -> bool {
    LIVE.load(Ordering::Relaxed) && operand_tangent_live(ops)
}

#[inline(never)]
fn operand_tangent_live(ops: &[&Operand]) -> bool {
    enabled()
        && ops.iter().any(|o| match o {
            Operand::Tensor(t) => has_tangent(t),
            _ => false,
        })
}

/// The tangent `t` holds itself (not derived from its base).
pub fn own_tangent(t: &Tensor) -> Option<Tensor> {
    t.0.meta.lock().fw_grad.clone()
}

/// Store `tangent` (already laid out as `t`) and remember `t`, to drop it at level exit.
pub fn store_tangent(t: &Tensor, tangent: Option<Tensor>) {
    let old = std::mem::replace(&mut t.0.meta.lock().fw_grad, tangent);
    let mut holders = HOLDERS.lock();
    // Forget dead tensors now and then, so a long loop does not grow the list forever.
    if holders.len() >= 1024 && holders.len().is_power_of_two() {
        holders.retain(|w| w.strong_count() > 0);
    }
    holders.push(std::sync::Arc::downgrade(&t.0));
    drop(holders);
    drop(old);
}

pub fn is_standalone(t: &Tensor) -> bool {
    t.0.meta.lock().fw_standalone
}

pub fn set_standalone(t: &Tensor) {
    t.0.meta.lock().fw_standalone = true;
}

thread_local! {
    /// Set while the runner computes the tangents of a node that will not be recorded (no
    /// grad needed): the outputs it saved unpack as plain tensors, so the tangents carry no
    /// graph to a node nothing can reach (issue 22: `exp`'s tangent `t * result` had one).
    static UNRECORDED: Cell<bool> = const { Cell::new(false) };
}

/// True while the tangents of a node that is not recorded are computed (see `UNRECORDED`).
pub fn unrecorded() -> bool {
    UNRECORDED.with(Cell::get)
}

/// Run the installed runner for a node just made (see `autograd::attach`); `recorded`: the
/// node becomes its outputs' grad_fn.
pub fn run(node: &NodeRef, outputs: &[&Tensor], inputs: &[&Tensor], recorded: bool) -> Result<()> {
    let Some(f) = RUNNER.get() else {
        return Ok(());
    };
    let before = UNRECORDED.with(|u| u.replace(!recorded));
    let result = f(node, outputs, inputs);
    UNRECORDED.with(|u| u.set(before));
    result
}

/// PyTorch's error for an op without a forward formula; `op` is its ATen name.
pub fn not_implemented(op: &str) -> Error {
    Error::NotImplemented(format!(
        "Trying to use forward AD with {op} that does not support it because it has not been implemented yet.\nPlease file an issue to PyTorch at https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml so that we can prioritize its implementation or submit a PR adding the implementation to derivatives.yaml"
    ))
}

/// The ATen name of a node's op, from its name: `LogSoftmaxBackward0` is `log_softmax`.
pub fn op_name(node: &str) -> String {
    let stem = node.split("Backward").next().unwrap_or(node);
    let mut out = String::new();
    for (i, c) in stem.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}
