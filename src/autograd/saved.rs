//! Saved tensors: what a backward formula keeps from the forward pass, the saved-tensor hooks
//! (`saved_tensors_hooks`: pack on save, unpack on use) and the counts `graph_stats` reports.
//!
//! Note [Saved tensor hooks]: the bindings push (pack, unpack) pairs on a thread-local stack;
//! while it is non-empty every tensor an op saves goes through the top pair's `pack` (with
//! grad mode off) and the node keeps only what `pack` returned; `unpack` runs each time the
//! tensor is read (backward, `_saved_<name>`). As in PyTorch, a packed tensor is not
//! version-checked (the hooks own it), and the unpacked tensor gets the saved one's autograd
//! identity back (its grad_fn, or the leaf's gradient accumulator). With the stack empty the
//! only cost is one thread-local read per saved tensor.

use crate::autograd::graph::{grad_accumulator, Ctx, NodeRef, WeakNode};
use crate::autograd::GradModeGuard;
use crate::dtype::Scalar;
use crate::error::{Error, Result};
use crate::tensor::{Tensor, TensorImpl};
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Weak};

pub const BACKWARD_TWICE: &str = "Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.";

pub const INFERENCE_SAVED: &str = "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and use it in autograd, or use `gradrs.no_grad()` instead of `gradrs.inference_mode()`.";

/// PyTorch's `SavedVariable` check.
fn check_not_inference(t: &Tensor) -> Result<()> {
    if t.is_inference() {
        return Err(Error::Runtime(INFERENCE_SAVED.into()));
    }
    Ok(())
}

const PACK_INPLACE: &str = "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack hook cannot be modified by in-place operations as this can lead to unexpected side-effects. Please open an issue if you need to perform in-place operations on the input to a pack hook.";

/// A (pack, unpack) pair: `pack` turns a tensor into whatever the hooks keep.
pub trait SavedHooks: Send + Sync {
    fn pack(&self, t: &Tensor) -> Result<Arc<dyn Packed>>;
}

/// What a pack hook returned; `unpack` gives the tensor back.
pub trait Packed: Send + Sync {
    fn unpack(&self) -> Result<Tensor>;
}

thread_local! {
    static HOOKS: RefCell<Vec<Arc<dyn SavedHooks>>> = const { RefCell::new(Vec::new()) };
    static DEPTH: Cell<usize> = const { Cell::new(0) };
    static DISABLED: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Push a default pair (`saved_tensors_hooks.__enter__`); refused while hooks are disabled.
pub fn push_hooks(hooks: Arc<dyn SavedHooks>) -> Result<()> {
    if let Some(msg) = DISABLED.with(|d| d.borrow().clone()) {
        return Err(Error::Runtime(msg));
    }
    HOOKS.with(|h| h.borrow_mut().push(hooks));
    DEPTH.with(|d| d.set(d.get() + 1));
    Ok(())
}

/// Pop the innermost pair (`__exit__`); the hooks are dropped after the stack is updated.
pub fn pop_hooks() -> Option<Arc<dyn SavedHooks>> {
    let top = HOOKS.with(|h| h.borrow_mut().pop());
    if top.is_some() {
        DEPTH.with(|d| d.set(d.get() - 1));
    }
    top
}

/// `_saved_tensors_hooks_disable(message)`: later pushes raise `message`; as in PyTorch, so
/// does disabling while a pair is active (after the message is set).
pub fn disable_hooks(message: String) -> Result<()> {
    DISABLED.with(|d| *d.borrow_mut() = Some(message.clone()));
    if DEPTH.with(Cell::get) > 0 {
        return Err(Error::Runtime(message));
    }
    Ok(())
}

pub fn enable_hooks() {
    DISABLED.with(|d| *d.borrow_mut() = None);
}

pub fn disabled_message() -> Option<String> {
    DISABLED.with(|d| d.borrow().clone())
}

fn current_hooks() -> Option<Arc<dyn SavedHooks>> {
    if DEPTH.with(Cell::get) == 0 {
        return None;
    }
    HOOKS.with(|h| h.borrow().last().cloned())
}

// Note [Graph stats]: every saved tensor holding its tensor counts its bytes (numel times
// element size, the tensor's own extent) until it is released or dropped.
static SAVED_COUNT: AtomicUsize = AtomicUsize::new(0);
static SAVED_BYTES: AtomicUsize = AtomicUsize::new(0);

/// (saved tensors held, bytes they hold).
pub fn saved_stats() -> (usize, usize) {
    (
        SAVED_COUNT.load(Ordering::Relaxed),
        SAVED_BYTES.load(Ordering::Relaxed),
    )
}

enum Data {
    /// PyTorch's default-constructed SavedVariable: nothing was saved (the value is None).
    Nothing,
    Tensor(Tensor),
    Packed(Arc<dyn Packed>),
    Freed,
}

/// Who the unpacked tensor of a packed input is in the graph.
enum Identity {
    Plain,
    /// A non-leaf input: its grad_fn (kept alive by this node's edge to it) and output number.
    Node(WeakNode, u32),
    /// A leaf that requires grad: its gradient flows into the leaf's accumulator.
    Leaf(Weak<TensorImpl>),
}

/// A tensor saved for backward, with the version it had when saved.
///
/// Outputs of the node itself are stored without their grad_fn (that would be a cycle:
/// node -> saved output -> node) and re-attached to the running node when unpacked.
pub struct SavedTensor {
    data: Data,
    version: u64,
    output_nr: Option<u32>,
    requires_grad: bool,
    identity: Identity,
    /// Bytes counted in `SAVED_BYTES` (Note [Graph stats]) while `data` holds a tensor.
    bytes: usize,
    /// False for snapshots, which count nothing.
    counted: bool,
}

impl SavedTensor {
    /// Save an input of the op (through the active pack hook, if any); inference tensors
    /// cannot be saved (Note [Inference mode]).
    pub fn input(t: &Tensor) -> Result<SavedTensor> {
        check_not_inference(t)?;
        let mut s = SavedTensor::plain(t.clone(), None, false);
        if let Some(hooks) = current_hooks() {
            s.identity = match t.grad_fn() {
                Some(f) => Identity::Node(f.downgrade(), t.output_nr()),
                None if t.requires_grad() => Identity::Leaf(Arc::downgrade(&t.0)),
                None => Identity::Plain,
            };
            s.pack_with(&*hooks, t)?;
        }
        Ok(s)
    }

    /// Save the op's own output number `output_nr`; call before the output gets its grad_fn.
    pub fn output(t: &Tensor, output_nr: u32) -> Result<SavedTensor> {
        check_not_inference(t)?;
        let copy = t.detach();
        crate::autograd::forward::note_saved_output(t, &copy);
        let mut s = SavedTensor::plain(copy, Some(output_nr), true);
        if let Some(hooks) = current_hooks() {
            s.pack_with(&*hooks, t)?;
        }
        Ok(s)
    }

    /// An input saved only to check its version (never through the hooks: PyTorch saves
    /// nothing there).
    pub fn input_unhooked(t: &Tensor) -> SavedTensor {
        SavedTensor::plain(t.clone(), None, false)
    }

    /// Nothing saved (the input needed no saving): `_saved_<name>` is None.
    pub fn nothing() -> SavedTensor {
        SavedTensor {
            data: Data::Nothing,
            version: 0,
            output_nr: None,
            requires_grad: false,
            identity: Identity::Plain,
            bytes: 0,
            counted: false,
        }
    }

    /// `t` saved at its current version. (Version and size under one read: this runs for
    /// every saved operand, and each read is an atomic lock.)
    fn plain(t: Tensor, output_nr: Option<u32>, rg: bool) -> SavedTensor {
        let (version, bytes) = {
            let d = t.read();
            (
                d.storage.version(),
                d.layout.numel() * d.storage.dtype().itemsize(),
            )
        };
        SAVED_COUNT.fetch_add(1, Ordering::Relaxed);
        SAVED_BYTES.fetch_add(bytes, Ordering::Relaxed);
        SavedTensor {
            data: Data::Tensor(t),
            version,
            output_nr,
            requires_grad: rg,
            identity: Identity::Plain,
            bytes,
            counted: true,
        }
    }

    /// Hand `original` to `hooks.pack` (grad mode off, as PyTorch packs) and keep only what it
    /// returned.
    fn pack_with(&mut self, hooks: &dyn SavedHooks, original: &Tensor) -> Result<()> {
        let version = original.version();
        let packed = {
            let _guard = GradModeGuard::new(false);
            hooks.pack(original)?
        };
        if original.version() != version {
            return Err(Error::Runtime(PACK_INPLACE.into()));
        }
        self.forget_tensor();
        self.data = Data::Packed(packed);
        Ok(())
    }

    fn forget_tensor(&mut self) {
        if self.counted {
            self.counted = false;
            SAVED_COUNT.fetch_sub(1, Ordering::Relaxed);
            SAVED_BYTES.fetch_sub(self.bytes, Ordering::Relaxed);
        }
    }

    /// `SavedTensor.register_hooks(pack, unpack)` (`_raw_saved_<name>`): pack what is saved
    /// now with `hooks`, with PyTorch's errors for a freed, empty or already hooked one.
    pub fn register_hooks(&mut self, hooks: &dyn SavedHooks) -> Result<()> {
        let t = match &self.data {
            Data::Tensor(t) => t.clone(),
            Data::Packed(_) => return Err(Error::Runtime("Calling register_hooks on a saved tensor whose hooks have already been set. Hint: only one pair of hooks is allowed at a time.".into())),
            Data::Freed => return Err(Error::Runtime("Calling register_hooks on a saved tensor after it has been freed. Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved variables after calling backward.".into())),
            Data::Nothing => return Err(Error::Runtime("Calling register_hooks on a saved tensor with value None is forbidden".into())),
        };
        if self.output_nr.is_none() {
            self.identity = match t.grad_fn() {
                Some(f) => Identity::Node(f.downgrade(), t.output_nr()),
                None if t.requires_grad() => Identity::Leaf(Arc::downgrade(&t.0)),
                None => Identity::Plain,
            };
        }
        self.pack_with(hooks, &t)
    }

    /// A copy of what is saved, to unpack without holding the graph arena's lock (making it
    /// takes no lock).
    pub fn snapshot(&self) -> SavedTensor {
        SavedTensor {
            data: match &self.data {
                Data::Nothing => Data::Nothing,
                Data::Tensor(t) => Data::Tensor(t.clone()),
                Data::Packed(p) => Data::Packed(p.clone()),
                Data::Freed => Data::Freed,
            },
            version: self.version,
            output_nr: self.output_nr,
            requires_grad: self.requires_grad,
            identity: match &self.identity {
                Identity::Plain => Identity::Plain,
                Identity::Node(n, nr) => Identity::Node(*n, *nr),
                Identity::Leaf(w) => Identity::Leaf(w.clone()),
            },
            // A snapshot is not counted: the saved tensor it copies is.
            bytes: 0,
            counted: false,
        }
    }

    /// True when nothing was saved (`_saved_<name>` is None).
    pub fn is_nothing(&self) -> bool {
        matches!(self.data, Data::Nothing)
    }

    pub fn unpack(&self, ctx: &Ctx) -> Result<Tensor> {
        self.unpack_for(ctx.node)
    }

    /// Unpack for `node`, the node that saved it (outputs are re-attached to it).
    pub fn unpack_for(&self, node: &NodeRef) -> Result<Tensor> {
        let t = match &self.data {
            Data::Tensor(t) => t,
            Data::Packed(p) => return self.unpack_packed(&**p, node),
            Data::Freed | Data::Nothing => return Err(Error::Runtime(BACKWARD_TWICE.into())),
        };
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
            // An output of a node that is not recorded (its tangents computed without grad)
            // has no place in a graph.
            Some(nr) if self.requires_grad && !crate::autograd::forward::unrecorded() => {
                let re = t.detach();
                re.set_grad_fn(Some(node.clone()), nr);
                // the tangent `attach` gave the saved copy (forward-over-reverse)
                if crate::autograd::forward::level_live() {
                    if let Some(tangent) = crate::autograd::forward::own_tangent(t) {
                        crate::autograd::forward::store_tangent(&re, Some(tangent));
                    }
                }
                Ok(re)
            }
            _ => Ok(t.clone()),
        }
    }

    /// What the unpack hook returns, as a new tensor with the saved one's place in the graph.
    fn unpack_packed(&self, packed: &dyn Packed, node: &NodeRef) -> Result<Tensor> {
        let re = packed.unpack()?.detach();
        match (self.output_nr, &self.identity) {
            (Some(_), _) if crate::autograd::forward::unrecorded() => {}
            (Some(nr), _) => re.set_grad_fn(Some(node.clone()), nr),
            (None, Identity::Node(f, nr)) => re.set_grad_fn(f.upgrade(), *nr),
            (None, Identity::Leaf(w)) => {
                if let Some(leaf) = w.upgrade() {
                    let acc = grad_accumulator(&Tensor(leaf));
                    let mut m = re.0.meta.lock();
                    m.requires_grad = true;
                    m.grad_accumulator = Some(acc.downgrade());
                }
            }
            (None, Identity::Plain) => {}
        }
        Ok(re)
    }

    pub fn release(&mut self) {
        self.forget_tensor();
        let old = std::mem::replace(&mut self.data, Data::Freed);
        drop(old);
    }
}

impl Drop for SavedTensor {
    fn drop(&mut self) {
        self.forget_tensor();
    }
}

/// A non-tensor value a node keeps, as PyTorch shows it (`_saved_dim`, `_saved_alpha`, ...).
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Scalar(Scalar),
    Ints(Vec<i64>),
    Str(&'static str),
    /// A tensor the node did not need to save: shown as `SavedValue::Absent`.
    Unsaved,
}

/// A node's `_saved_<name>` attribute.
pub enum SavedValue<'a> {
    /// A saved tensor (None when nothing was saved); `_raw_saved_<name>` is a `SavedTensor`.
    Tensor(&'a mut SavedTensor),
    /// A tensor the node saves only when needed, not saved here: `_saved_<name>` is None and
    /// `_raw_saved_<name>` a `SavedTensor` that refuses hooks.
    Absent,
    /// Several saved tensors (`_saved_indices`), None where an entry is None.
    Tensors(Vec<Option<&'a mut SavedTensor>>),
    Value(Value),
}
