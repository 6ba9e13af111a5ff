//! The graph arena: backward nodes in a slab with generational ids and reference counts.
//!
//! A `NodeRef` is a counted handle (held by tensors as `grad_fn` and by other nodes' edges);
//! a node is reclaimed when its count reaches zero. Creation is O(1): a free slot is reused.
//! Note [Iterative release]: dropping a long chain of nodes would recurse once per node and
//! overflow the stack, so releases that happen while another release runs are queued and
//! drained by the outermost one.

pub use super::saved::Value;
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::shape::Shape;
// Declared in the tensor layer, which holds them; counted here (Clone, Drop).
pub use crate::tensor::history::{NodeRef, WeakNode};
use crate::tensor::Tensor;
use parking_lot::Mutex;
use std::cell::{Cell, RefCell};

/// Context handed to a backward formula while it runs.
pub struct Ctx<'a> {
    /// The running node (saved outputs are re-attached to it under create_graph).
    pub node: &'a NodeRef,
    pub create_graph: bool,
}

impl Ctx<'_> {
    pub fn node_name(&self) -> &'static str {
        self.node.name()
    }
}

/// A backward function: PyTorch's `Node` subclass, one per differentiable op.
pub trait Backward: Send + Sync {
    /// PyTorch's class name, e.g. `MulBackward0`.
    fn name(&self) -> &'static str;
    /// Gradients w.r.t. each input (None where the input needs none), given the gradient of
    /// each output. Written in tensor ops, so it records a graph under create_graph.
    fn apply(&mut self, grads: &[Option<Tensor>], ctx: &Ctx) -> Result<Vec<Option<Tensor>>>;
    /// Forward-mode AD (Note [Forward AD]): each output's tangent, given each input's (None
    /// where an input has none). Runs with tangent propagation off, on the saved values.
    fn jvp(&mut self, _tangents: &[Option<Tensor>], _ctx: &Ctx) -> Result<Vec<Option<Tensor>>> {
        Err(super::forward::not_implemented(&super::forward::op_name(
            self.name(),
        )))
    }
    /// PyTorch's `auto_element_wise`: `apply` multiplies each input's gradient elementwise by
    /// a partial derivative, so the tangent is the sum of `apply` given each input's tangent.
    fn elementwise(&self) -> bool {
        false
    }
    /// A reduction over these dims (each input element feeds one output element): the tangent
    /// is `sum(apply(ones) * t, dims, keepdim)`, PyTorch's jvp of such formulas.
    fn reduction(&self) -> Option<(Vec<usize>, bool)> {
        None
    }
    /// Whether the forward formula reads `self`'s tangent alone (derivatives.yaml's
    /// `copysign`: `copysign_tensor_self_backward(self_t, ...)`): without it the output has
    /// none, whatever the other inputs' tangents (PyTorch's codegen asks only the formula's
    /// inputs whether they have one).
    fn jvp_reads_self_only(&self) -> bool {
        false
    }
    /// A pass-through node the graph's Python face does not show: `next_functions` lists the
    /// node it feeds instead (`ops::movement::transparent_alias`).
    fn transparent(&self) -> bool {
        false
    }
    /// Whether the engine calls `apply` when every incoming gradient is undefined (None): a
    /// custom `autograd.Function`'s node, whose backward PyTorch's PyNode calls with zeros
    /// (`ctx.materialize_grads`) or Nones. Other nodes give undefined gradients then, as
    /// PyTorch's generated nodes do, without running their formula.
    fn runs_on_undefined_grads(&self) -> bool {
        false
    }
    /// Free saved tensors (after backward without retain_graph).
    fn release(&mut self) {}
    /// The leaf this node accumulates into, for `AccumulateGrad`.
    fn variable(&self) -> Option<&Tensor> {
        None
    }
    /// The concrete type, for the bindings to recognize the nodes they made.
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        None
    }
    /// What PyTorch shows as this node's `_saved_<name>` attributes (graph tools read them):
    /// the saved tensors and the non-tensor arguments its formula keeps.
    fn saved_values(&mut self) -> Vec<(&'static str, super::saved::SavedValue<'_>)> {
        Vec::new()
    }
    /// Name the saved tensors (in the order saved) and values of a node built from a closure
    /// (`formula::describe`); nodes with fields of their own ignore it.
    fn describe(&mut self, _tensors: &'static [&'static str], _values: Vec<(&'static str, Value)>) {
    }
}

/// What flows along an edge: the input it feeds, with the shape and dtype its gradient must have.
pub struct Edge {
    pub node: Option<NodeRef>,
    pub input_nr: u32,
    pub shape: Shape,
    pub dtype: DType,
    pub device: crate::tensor::Device,
}

pub struct Node {
    pub backward: Box<dyn Backward>,
    pub next: Vec<Edge>,
    pub num_outputs: u32,
    /// Creation order: the engine runs later nodes first, as PyTorch does.
    pub seq: u64,
    /// Non-leaf tensors that asked for `retain_grad()`: (output_nr, tensor).
    pub retained: Vec<(u32, std::sync::Weak<crate::tensor::TensorImpl>)>,
    pub hooks: super::hooks::NodeHooks,
    /// PyTorch's `metadata`: made by the bindings, at creation while anomaly mode is on
    /// (`autograd::anomaly`), or when first asked for.
    pub metadata: Option<Box<dyn super::anomaly::Metadata>>,
}

struct Slot {
    generation: u32,
    refs: u32,
    /// The node's position in the list `collect_subgraph` is building, `UNSEEN` otherwise
    /// (set and cleared under the one lock that walk holds, so no map is needed).
    mark: u32,
    name: &'static str,
    node: Option<Node>,
}

const UNSEEN: u32 = u32::MAX;

struct Arena {
    slots: Vec<Slot>,
    free: Vec<u32>,
    next_seq: u64,
    live: usize,
}

static ARENA: Mutex<Arena> = Mutex::new(Arena {
    slots: Vec::new(),
    free: Vec::new(),
    next_seq: 0,
    live: 0,
});

thread_local! {
    static RELEASING: Cell<bool> = const { Cell::new(false) };
    static PENDING: RefCell<Vec<Node>> = const { RefCell::new(Vec::new()) };
}

/// Drop a reclaimed node without recursing (Note [Iterative release]).
fn release_node(node: Node) {
    if RELEASING.with(|r| r.get()) {
        PENDING.with(|p| p.borrow_mut().push(node));
        return;
    }
    RELEASING.with(|r| r.set(true));
    drop(node);
    while let Some(n) = PENDING.with(|p| p.borrow_mut().pop()) {
        drop(n);
    }
    RELEASING.with(|r| r.set(false));
}

pub fn new_node(backward: Box<dyn Backward>, next: Vec<Edge>, num_outputs: u32) -> NodeRef {
    let name = backward.name();
    // Before locking: capturing calls into the bindings.
    let metadata = super::anomaly::capture();
    let mut arena = ARENA.lock();
    let seq = arena.next_seq;
    arena.next_seq += 1;
    arena.live += 1;
    let node = Node {
        backward,
        next,
        num_outputs,
        seq,
        retained: Vec::new(),
        hooks: Default::default(),
        metadata,
    };
    if let Some(index) = arena.free.pop() {
        let slot = &mut arena.slots[index as usize];
        slot.refs = 1;
        slot.name = name;
        slot.node = Some(node);
        NodeRef {
            index,
            generation: slot.generation,
        }
    } else {
        let index = arena.slots.len() as u32;
        arena.slots.push(Slot {
            generation: 0,
            refs: 1,
            mark: UNSEEN,
            name,
            node: Some(node),
        });
        NodeRef {
            index,
            generation: 0,
        }
    }
}

/// Number of live nodes (for leak tests).
pub fn live_nodes() -> usize {
    ARENA.lock().live
}

impl Clone for NodeRef {
    fn clone(&self) -> NodeRef {
        ARENA.lock().slots[self.index as usize].refs += 1;
        NodeRef {
            index: self.index,
            generation: self.generation,
        }
    }
}

impl Drop for NodeRef {
    fn drop(&mut self) {
        let reclaimed = {
            let mut arena = ARENA.lock();
            let slot = &mut arena.slots[self.index as usize];
            slot.refs -= 1;
            if slot.refs == 0 {
                slot.generation = slot.generation.wrapping_add(1);
                let node = slot.node.take();
                arena.free.push(self.index);
                arena.live -= 1;
                node
            } else {
                None
            }
        };
        if let Some(node) = reclaimed {
            release_node(node);
        }
    }
}

impl PartialEq for NodeRef {
    fn eq(&self, other: &NodeRef) -> bool {
        self.index == other.index
    }
}

impl NodeRef {
    /// A stable key for maps while the handle is alive.
    pub fn key(&self) -> u32 {
        self.index
    }

    pub fn name(&self) -> &'static str {
        ARENA.lock().slots[self.index as usize].name
    }

    pub fn downgrade(&self) -> WeakNode {
        WeakNode {
            index: self.index,
            generation: self.generation,
        }
    }

    /// Run `f` on the node. The arena is locked meanwhile: `f` must not create or drop nodes.
    pub fn with<R>(&self, f: impl FnOnce(&mut Node) -> R) -> R {
        let mut arena = ARENA.lock();
        let node = arena.slots[self.index as usize]
            .node
            .as_mut()
            .expect("node is running");
        f(node)
    }

    /// `with`, or None while the node is running (taken out of the arena).
    pub fn try_with<R>(&self, f: impl FnOnce(&mut Node) -> R) -> Option<R> {
        let mut arena = ARENA.lock();
        arena.slots[self.index as usize].node.as_mut().map(f)
    }

    /// Take the node out to run it with the arena unlocked; put it back with `restore`.
    pub fn take(&self) -> Node {
        ARENA.lock().slots[self.index as usize]
            .node
            .take()
            .expect("node is running")
    }

    pub fn restore(&self, node: Node) {
        ARENA.lock().slots[self.index as usize].node = Some(node);
    }

    /// `next_functions`: (node, input_nr) per input.
    pub fn next_functions(&self) -> Vec<(Option<NodeRef>, u32)> {
        let mut arena = ARENA.lock();
        let node = arena.slots[self.index as usize]
            .node
            .as_ref()
            .expect("node is running");
        let edges: Vec<(Option<(u32, u32)>, u32)> = node
            .next
            .iter()
            .map(|e| (e.node.as_ref().map(|r| (r.index, r.generation)), e.input_nr))
            .collect();
        // The handles are counted under the same lock and handed out (never dropped here).
        edges
            .into_iter()
            .map(|(h, nr)| {
                let r = h.map(|(index, generation)| {
                    arena.slots[index as usize].refs += 1;
                    NodeRef { index, generation }
                });
                (r, nr)
            })
            .collect()
    }

    /// `next_functions` as the graph's Python face shows them: a transparent node's edge is
    /// replaced by the (one) edge it passes the gradient to.
    pub fn visible_next_functions(&self) -> Vec<(Option<NodeRef>, u32)> {
        let mut out = self.next_functions();
        for entry in out.iter_mut() {
            while let Some(n) = &entry.0 {
                let through = n.try_with(|node| node.backward.transparent()) == Some(true);
                let next = if through {
                    n.next_functions().into_iter().next()
                } else {
                    None
                };
                match next {
                    Some(next) => *entry = next,
                    None => break,
                }
            }
        }
        out
    }

    /// The leaf an `AccumulateGrad` node feeds.
    pub fn variable(&self) -> Option<Tensor> {
        self.with(|n| n.backward.variable().cloned())
    }
}

impl WeakNode {
    pub fn upgrade(&self) -> Option<NodeRef> {
        let mut arena = ARENA.lock();
        let slot = arena.slots.get_mut(self.index as usize)?;
        if slot.generation == self.generation && slot.refs > 0 {
            slot.refs += 1;
            Some(NodeRef {
                index: self.index,
                generation: self.generation,
            })
        } else {
            None
        }
    }
}

/// `AccumulateGrad`: the node that adds incoming gradients into a leaf's `.grad`.
pub struct AccumulateGrad {
    pub variable: Tensor,
}

impl Backward for AccumulateGrad {
    fn name(&self) -> &'static str {
        "AccumulateGrad"
    }
    fn apply(&mut self, _grads: &[Option<Tensor>], _ctx: &Ctx) -> Result<Vec<Option<Tensor>>> {
        unreachable!("the engine accumulates into leaves itself")
    }
    fn variable(&self) -> Option<&Tensor> {
        Some(&self.variable)
    }
}

/// The leaf's `AccumulateGrad` node, created on first use and shared while alive.
pub fn grad_accumulator(leaf: &Tensor) -> NodeRef {
    if let Some(existing) = leaf
        .0
        .meta
        .lock()
        .grad_accumulator
        .and_then(|w| w.upgrade())
    {
        return existing;
    }
    let node = new_node(
        Box::new(AccumulateGrad {
            variable: leaf.clone(),
        }),
        Vec::new(),
        1,
    );
    leaf.0.meta.lock().grad_accumulator = Some(node.downgrade());
    node
}

/// Rebuilds a view's history after its base was written in place (Note [View rebase]): an op
/// (`ops::inplace::refresh_view`), which the ops layer installs here before it makes its first
/// view, so this layer calls it without importing the layer above. Until then no tensor is a
/// view, and there is nothing to refresh.
static VIEW_REFRESH: std::sync::OnceLock<fn(&Tensor)> = std::sync::OnceLock::new();

/// Called by the ops layer before each view it makes (one atomic load once set).
pub fn install_view_refresh(refresh: fn(&Tensor)) {
    if VIEW_REFRESH.get().is_none() {
        let _ = VIEW_REFRESH.set(refresh);
    }
}

/// `t`'s history rebuilt from its base if it is a view whose base was written since.
pub fn refresh_view(t: &Tensor) {
    if let Some(refresh) = VIEW_REFRESH.get() {
        refresh(t);
    }
}

/// The edge along which gradient flows back into `t` (PyTorch's `gradient_edge`).
pub fn gradient_edge(t: &Tensor) -> Edge {
    refresh_view(t);
    let (shape, dtype, device) = {
        let d = t.read();
        (d.layout.shape.clone(), d.dtype(), d.device())
    };
    let (grad_fn, output_nr, requires_grad) = {
        let m = t.0.meta.lock();
        (m.grad_fn.clone(), m.output_nr, m.requires_grad)
    };
    let node = match grad_fn {
        Some(f) => Some(f),
        None if requires_grad => Some(grad_accumulator(t)),
        None => None,
    };
    Edge {
        node,
        input_nr: output_nr,
        shape,
        dtype,
        device,
    }
}

/// One reachable node as the engine sees it.
pub struct GraphNode {
    pub handle: NodeRef,
    pub seq: u64,
    pub num_outputs: u32,
    pub is_accumulate: bool,
    /// (child's position in the list, child's input slot) per edge; None where the input
    /// needs no gradient.
    pub children: smallvec::SmallVec<[Option<(u32, u32)>; 2]>,
}

/// Every node reachable from `roots`, found iteratively under one lock (no recursion per
/// path), in the order first reached (the roots first), with the position of each root in the
/// list. A node's position is kept in its slot while the walk runs (`Slot::mark`), so finding
/// a child's position costs no hashing.
pub fn collect_subgraph(roots: &[&NodeRef]) -> (Vec<GraphNode>, Vec<u32>) {
    let mut arena = ARENA.lock();
    let mut order: Vec<(u32, u32)> = Vec::new();
    fn visit(arena: &mut Arena, order: &mut Vec<(u32, u32)>, index: u32, generation: u32) -> u32 {
        let slot = &mut arena.slots[index as usize];
        if slot.mark == UNSEEN {
            slot.mark = order.len() as u32;
            order.push((index, generation));
        }
        slot.mark
    }
    let root_pos: Vec<u32> = roots
        .iter()
        .map(|r| visit(&mut arena, &mut order, r.index, r.generation))
        .collect();
    let mut out = Vec::new();
    let mut next = 0;
    while next < order.len() {
        let (index, generation) = order[next];
        next += 1;
        let slot = &arena.slots[index as usize];
        let node = slot.node.as_ref().expect("node is running");
        let (seq, num_outputs, is_accumulate) = (
            node.seq,
            node.num_outputs,
            node.backward.variable().is_some(),
        );
        let edges: smallvec::SmallVec<[Option<(u32, u32, u32)>; 2]> = node
            .next
            .iter()
            .map(|e| e.node.as_ref().map(|r| (r.index, r.generation, e.input_nr)))
            .collect();
        let children = edges
            .into_iter()
            .map(|e| e.map(|(i, g, nr)| (visit(&mut arena, &mut order, i, g), nr)))
            .collect();
        // Counted handle, made under the lock we already hold; never dropped inside it.
        arena.slots[index as usize].refs += 1;
        out.push(GraphNode {
            handle: NodeRef { index, generation },
            seq,
            num_outputs,
            is_accumulate,
            children,
        });
    }
    for &(index, _) in &order {
        arena.slots[index as usize].mark = UNSEEN;
    }
    drop(arena);
    (out, root_pos)
}
