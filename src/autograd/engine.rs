//! The backward engine: dependency counting over the reachable subgraph and a ready queue
//! ordered by creation sequence, as in PyTorch's engine. Each node runs once, with the sum of
//! the gradients from all its consumers, so diamond-shaped graphs take linear time.

use super::grad_mode::GradModeGuard;
use super::graph::{collect_subgraph, gradient_edge, Ctx, GraphNode, NodeRef};
use super::hooks::{self, NodeHooks};
use crate::error::{Error, Result};
use crate::ops;
use crate::tensor::shape::size_repr;
use crate::tensor::Tensor;
use std::collections::BinaryHeap;

/// A node's incoming gradients (one per output; most nodes have one).
type Grads = smallvec::SmallVec<[Option<Tensor>; 2]>;

#[derive(Clone, Copy, Debug, Default)]
pub struct BackwardOptions {
    pub retain_graph: bool,
    pub create_graph: bool,
    /// Note [Batched backward]: the gradients carry a leading batch dim of this size.
    pub batch: Option<usize>,
}

/// `torch.autograd.backward`: accumulate d(roots)/d(leaves) into `.grad`
/// (only into `inputs`, when given).
pub fn backward(
    roots: &[Tensor],
    grads: &[Option<Tensor>],
    opts: BackwardOptions,
    inputs: Option<&[Tensor]>,
) -> Result<()> {
    let root_grads = make_grads(roots, grads)?;
    match inputs {
        None => {
            run(roots, root_grads, None, opts, Mode::Accumulate)?;
        }
        Some(inputs) => {
            let captured = run(
                roots,
                root_grads,
                Some(inputs),
                opts,
                Mode::AccumulateInputs,
            )?;
            // Non-leaf inputs get their summed gradient in `.grad`, as PyTorch does.
            for (t, g) in inputs.iter().zip(captured) {
                if let (false, Some(g)) = (t.is_leaf(), g) {
                    accumulate(t, g, opts.create_graph)?;
                }
            }
        }
    }
    Ok(())
}

/// `torch.autograd.grad`: return d(outputs)/d(inputs) without touching `.grad`.
pub fn grad(
    outputs: &[Tensor],
    grad_outputs: &[Option<Tensor>],
    inputs: &[Tensor],
    opts: BackwardOptions,
    allow_unused: bool,
) -> Result<Vec<Option<Tensor>>> {
    for t in inputs {
        if !t.requires_grad() {
            return Err(Error::Runtime(
                "One of the differentiated Tensors does not require grad".into(),
            ));
        }
    }
    let root_grads = make_grads(outputs, grad_outputs)?;
    let captured = run(outputs, root_grads, Some(inputs), opts, Mode::Capture)?;
    if !allow_unused {
        if let Some(i) = captured.iter().position(|g| g.is_none()) {
            return Err(Error::Runtime(format!(
                "The differentiated Tensor at index {i} appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior."
            )));
        }
    }
    Ok(captured)
}

/// Note [Batched backward]: `autograd.grad(is_grads_batched=True)` as one pass of the
/// engine, as PyTorch vmaps its engine over the grad_outputs' dim 0 (what `jacrev` and
/// `jacobian(vectorize=True)` run). Every gradient carries that leading batch dim; a node
/// runs its formula once on the batch where the formula is batch-safe (elementwise ones,
/// `batched::apply` for the matmul, view and sum families), else once per vector on slices,
/// stacked (PyTorch's per-sample fallback). None, with nothing run, where the graph has hooks
/// or anomaly mode is on (hooks see one vector at a time): the caller loops over the vectors.
/// `grad_outputs` are given, each of shape `[batch, *output.shape]` (checked by the caller).
pub fn grad_batched(
    outputs: &[Tensor],
    grad_outputs: &[Tensor],
    inputs: &[Tensor],
    mut opts: BackwardOptions,
    allow_unused: bool,
) -> Result<Option<Vec<Option<Tensor>>>> {
    for t in inputs {
        if !t.requires_grad() {
            return Err(Error::Runtime(
                "One of the differentiated Tensors does not require grad".into(),
            ));
        }
    }
    let Some(batch) = grad_outputs
        .first()
        .and_then(|g| g.shape().first().copied())
    else {
        return Ok(None);
    };
    if super::anomaly::is_enabled() || grad_outputs.len() != outputs.len() {
        return Ok(None);
    }
    let mut roots = Vec::new();
    for t in outputs {
        match gradient_edge(t).node {
            Some(n) => roots.push(n),
            None => return Ok(None),
        }
    }
    let (nodes, _) = collect_subgraph(&roots.iter().collect::<Vec<_>>());
    for n in &nodes {
        let hooked = n.handle.with(|d| {
            !(d.hooks.tensor.is_empty()
                && d.hooks.pre.is_empty()
                && d.hooks.post.is_empty()
                && d.retained.is_empty())
        });
        let leaf_hooked = n.is_accumulate
            && n.handle.variable().is_some_and(|v| {
                !hooks::tensor_hooks(&v).is_empty()
                    || !hooks::post_accumulate_grad_hooks(&v).is_empty()
            });
        if hooked || leaf_hooked {
            return Ok(None);
        }
    }
    drop(nodes);
    for (g, t) in grad_outputs.iter().zip(outputs) {
        if g.device() != t.device() || g.shape().first() != Some(&batch) {
            return Ok(None);
        }
    }
    opts.batch = Some(batch);
    let captured = run(
        outputs,
        grad_outputs.to_vec(),
        Some(inputs),
        opts,
        Mode::Capture,
    )?;
    if !allow_unused {
        if let Some(i) = captured.iter().position(|g| g.is_none()) {
            return Err(Error::Runtime(format!(
                "The differentiated Tensor at index {i} appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior."
            )));
        }
    }
    Ok(Some(captured))
}

/// PyTorch's `_make_grads`: implicit ones for scalars, shape checks for given gradients.
fn make_grads(outputs: &[Tensor], grads: &[Option<Tensor>]) -> Result<Vec<Tensor>> {
    let mut out = Vec::with_capacity(outputs.len());
    for (i, t) in outputs.iter().enumerate() {
        match grads.get(i).cloned().flatten() {
            Some(g) => {
                let (gs, ts) = (g.shape(), t.shape());
                if gs != ts {
                    return Err(Error::Runtime(format!(
                        "Mismatch in shape: grad_output[{i}] has a shape of {} and output[{i}] has a shape of {}.",
                        size_repr(&gs),
                        size_repr(&ts)
                    )));
                }
                // The engine's validate_outputs: a number moves, anything else must match.
                let g = match (g.device(), t.device()) {
                    (gd, td) if gd == td => g,
                    (_, td) if g.dim() == 0 => ops::creation::copy_to_device(&g, td)?,
                    (gd, td) => {
                        return Err(Error::Runtime(format!(
                            "invalid gradient at index {i} - expected device {} but got {}",
                            td.name(),
                            gd.name()
                        )))
                    }
                };
                out.push(g);
            }
            None => {
                if t.requires_grad() && t.numel() != 1 {
                    return Err(Error::Runtime(
                        "grad can be implicitly created only for scalar outputs".into(),
                    ));
                }
                out.push(ops::creation::ones_like(t));
            }
        }
    }
    Ok(out)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// `backward()`: run everything, accumulate into every leaf.
    Accumulate,
    /// `backward(inputs=...)`: only what leads to `inputs`, accumulate into those.
    AccumulateInputs,
    /// `autograd.grad`: only what leads to `inputs`, return their gradients.
    Capture,
}

fn run(
    roots: &[Tensor],
    root_grads: Vec<Tensor>,
    inputs: Option<&[Tensor]>,
    opts: BackwardOptions,
    mode: Mode,
) -> Result<Vec<Option<Tensor>>> {
    let _grad_mode = GradModeGuard::new(opts.create_graph);

    // Root edges.
    let mut root_edges = Vec::with_capacity(roots.len());
    for (i, t) in roots.iter().enumerate() {
        let edge = gradient_edge(t);
        match edge.node {
            Some(node) => root_edges.push((node, edge.input_nr)),
            None => {
                return Err(Error::Runtime(format!(
                    "element {i} of tensors does not require grad and does not have a grad_fn"
                )))
            }
        }
    }
    // Target edges (where gradients are captured): (node key, slot).
    let target_edges: Vec<Option<(NodeRef, u32)>> = inputs
        .map(|ins| {
            ins.iter()
                .map(|t| gradient_edge(t).node.map(|n| (n, t.output_nr())))
                .collect()
        })
        .unwrap_or_default();

    let roots_only: Vec<&NodeRef> = root_edges.iter().map(|(n, _)| n).collect();
    let (nodes, root_pos) = collect_subgraph(&roots_only);
    // Creation order (children always have smaller seq); positions renumbered to match.
    let mut order: Vec<u32> = (0..nodes.len() as u32).collect();
    order.sort_unstable_by_key(|&i| nodes[i as usize].seq);
    let mut new_pos = vec![0u32; nodes.len()];
    for (new, &old) in order.iter().enumerate() {
        new_pos[old as usize] = new as u32;
    }
    let mut unsorted: Vec<Option<GraphNode>> = nodes.into_iter().map(Some).collect();
    let nodes: Vec<GraphNode> = order
        .iter()
        .map(|&old| {
            let mut n = unsorted[old as usize].take().expect("each position once");
            for (k, _) in n.children.iter_mut().flatten() {
                *k = new_pos[*k as usize];
            }
            n
        })
        .collect();
    drop(unsorted);
    let root_pos: Vec<usize> = root_pos
        .iter()
        .map(|&p| new_pos[p as usize] as usize)
        .collect();

    // Which nodes must run: children always have smaller seq, so one ascending pass suffices.
    let is_target = |key: u32| target_edges.iter().flatten().any(|(n, _)| n.key() == key);
    let target_pos: Vec<bool> = if mode == Mode::Accumulate {
        Vec::new()
    } else {
        nodes.iter().map(|n| is_target(n.handle.key())).collect()
    };
    let mut needed = vec![mode == Mode::Accumulate; nodes.len()];
    if mode != Mode::Accumulate {
        for i in 0..nodes.len() {
            let n = &nodes[i];
            needed[i] = (n.is_accumulate && mode == Mode::AccumulateInputs && target_pos[i])
                || (!n.is_accumulate
                    && n.children
                        .iter()
                        .flatten()
                        .any(|&(j, _)| needed[j as usize] || target_pos[j as usize]));
        }
    }
    // What `will_execute` answers while this pass runs (hooks may ask): sorted keys.
    let mut execute_keys: Vec<u32> = nodes
        .iter()
        .enumerate()
        .filter(|&(i, _)| needed[i] || (mode != Mode::Accumulate && target_pos[i]))
        .map(|(_, n)| n.handle.key())
        .collect();
    execute_keys.sort_unstable();
    let _task = TaskGuard::enter(
        mode == Mode::Capture,
        mode != Mode::Accumulate,
        execute_keys,
    );
    let mut deps = vec![0u32; nodes.len()];
    for n in &nodes {
        for &(j, _) in n.children.iter().flatten() {
            deps[j as usize] += 1;
        }
    }

    // Each node's incoming gradients, one slot per output, in one flat list.
    let mut first_slot = Vec::with_capacity(nodes.len() + 1);
    let mut total = 0usize;
    for n in &nodes {
        first_slot.push(total);
        total += n.num_outputs as usize;
    }
    first_slot.push(total);
    let mut buffers: Vec<Option<Tensor>> = vec![None; total];
    // Ready nodes, most recently created first; `AccumulateGrad` nodes first of all, and equal
    // priorities in the order they became ready, as PyTorch's ready queue orders them.
    let mut heap = BinaryHeap::new();
    let mut pushed = 0u64;
    let mut ready = |heap: &mut BinaryHeap<(u64, std::cmp::Reverse<u64>, usize)>, i: usize| {
        let priority = if nodes[i].is_accumulate {
            u64::MAX
        } else {
            nodes[i].seq
        };
        heap.push((priority, std::cmp::Reverse(pushed), i));
        pushed += 1;
    };
    for (((_, slot), g), &i) in root_edges.iter().zip(root_grads).zip(&root_pos) {
        add_to_buffer(&mut buffers[first_slot[i] + *slot as usize], g)?;
    }
    for &i in &root_pos {
        if deps[i] == 0 && !heap.iter().any(|&(_, _, j)| j == i) {
            ready(&mut heap, i);
        }
    }

    let mut captured: Vec<Option<Tensor>> = vec![None; target_edges.len()];
    while let Some((_, _, i)) = heap.pop() {
        let grads: Grads = buffers[first_slot[i]..first_slot[i + 1]]
            .iter_mut()
            .map(Option::take)
            .collect();
        let node: &GraphNode = &nodes[i];
        // Gradients captured here for `autograd.grad` / `backward(inputs=...)`: (target, slot).
        let captures: Vec<(usize, u32)> = target_edges
            .iter()
            .enumerate()
            .filter_map(|(t, target)| match target {
                Some((n, slot)) if n.key() == node.handle.key() => Some((t, *slot)),
                _ => None,
            })
            .collect();
        let outs = if super::anomaly::is_enabled() {
            run_anomalous(node, || {
                execute(node, grads, needed[i], &captures, &mut captured, mode, opts)
            })?
        } else {
            execute(node, grads, needed[i], &captures, &mut captured, mode, opts)?
        };
        for (edge, g) in node.children.iter().zip(outs) {
            if let Some((j, slot)) = edge {
                let j = *j as usize;
                if let Some(g) = g {
                    add_to_buffer(&mut buffers[first_slot[j] + *slot as usize], g)?;
                }
                deps[j] -= 1;
                if deps[j] == 0 {
                    ready(&mut heap, j);
                }
            }
        }
    }
    Ok(captured)
}

/// Run one node under anomaly mode: nodes its backward makes (create_graph) record it as
/// their parent, its gradients are checked for NaN when asked, and any error it raises is
/// reported with the traceback of its forward call before it propagates, as PyTorch's
/// engine does.
fn run_anomalous(
    node: &GraphNode,
    f: impl FnOnce() -> Result<Vec<Option<Tensor>>>,
) -> Result<Vec<Option<Tensor>>> {
    let result = {
        let _current = super::anomaly::CurrentNode::enter(&node.handle);
        f()
    };
    let result = result.and_then(|outs| {
        if super::anomaly::should_check_nan() {
            super::anomaly::check_nan(node.handle.name(), &outs)?;
        }
        Ok(outs)
    });
    if result.is_err() {
        super::anomaly::report(&node.handle);
    }
    result
}

/// The backward pass running on this thread (innermost last: a hook may run another).
struct Task {
    id: i64,
    /// An `autograd.grad` pass (leaves are captured, not executed).
    capture: bool,
    /// `autograd.grad` or `backward(inputs=...)`: gradients only flow to given targets.
    targeted: bool,
    /// Keys of the nodes this pass executes or captures a gradient at, sorted.
    execute: Vec<u32>,
}

thread_local! {
    static TASKS: std::cell::RefCell<Vec<Task>> = const { std::cell::RefCell::new(Vec::new()) };
}

static NEXT_TASK: std::sync::atomic::AtomicI64 = std::sync::atomic::AtomicI64::new(0);

struct TaskGuard;

impl TaskGuard {
    fn enter(capture: bool, targeted: bool, execute: Vec<u32>) -> TaskGuard {
        let id = NEXT_TASK.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        TASKS.with(|t| {
            t.borrow_mut().push(Task {
                id,
                capture,
                targeted,
                execute,
            })
        });
        TaskGuard
    }
}

impl Drop for TaskGuard {
    fn drop(&mut self) {
        TASKS.with(|t| t.borrow_mut().pop());
    }
}

/// PyTorch's `_is_checkpoint_valid`: false inside a pass (or a pass nested in one) that only
/// computes the gradients of given targets, where a reentrant checkpoint's inner
/// `backward()` would accumulate into `.grad` unseen.
pub fn is_checkpoint_valid() -> bool {
    TASKS.with(|t| t.borrow().iter().all(|task| !task.targeted))
}

/// PyTorch's `_current_graph_task_id`: the running backward pass's id, or -1 outside one.
pub fn current_graph_task_id() -> i64 {
    TASKS.with(|t| t.borrow().last().map_or(-1, |task| task.id))
}

/// PyTorch's `_will_engine_execute_node`: whether the running pass executes `node` (or
/// captures a gradient there).
pub fn will_execute(node: &NodeRef) -> Result<bool> {
    let is_leaf = node.try_with(|n| n.backward.variable().is_some()) == Some(true);
    TASKS.with(|t| match t.borrow().last() {
        Some(task) if task.capture && is_leaf => Err(Error::Runtime(
            "A leaf node was passed to _will_engine_execute_node but we are currently running autograd.grad(). This is currently not supported.".into(),
        )),
        Some(task) => Ok(task.execute.binary_search(&node.key()).is_ok()),
        None => Err(Error::Runtime(
            "_get_should_execute_nodes should only be called during the backward pass".into(),
        )),
    })
}

/// Tensor hooks, then `retain_grad` (Note [Hook order]); a leaf's hooks live on the leaf.
fn call_tensor_hooks(
    grads: &mut [Option<Tensor>],
    hooks: &NodeHooks,
    variable: Option<&Tensor>,
    retained: &[(u32, std::sync::Weak<crate::tensor::TensorImpl>)],
    create_graph: bool,
) -> Result<()> {
    for (slot, hook) in &hooks.tensor {
        if let Some(g) = grads.get_mut(*slot as usize) {
            *g = hook.call(g.take())?;
        }
    }
    if let (Some(var), Some(g)) = (variable, grads.first_mut()) {
        for hook in hooks::tensor_hooks(var) {
            *g = hook.call(g.take())?;
        }
    }
    for (nr, weak) in retained {
        if let (Some(imp), Some(g)) = (weak.upgrade(), grads.get(*nr as usize).cloned().flatten()) {
            accumulate(&Tensor(imp), g, create_graph)?;
        }
    }
    Ok(())
}

/// Run one node (or skip it) and return the gradient for each of its edges, with its hooks in
/// PyTorch's order (Note [Hook order]). A node that is not needed but captured only runs its
/// tensor hooks, so a captured gradient is the hooked one; a needed node's capture sees the gradient before
/// its hooks, as in PyTorch's engine.
fn execute(
    node: &GraphNode,
    mut grads: Grads,
    needed: bool,
    captures: &[(usize, u32)],
    captured: &mut [Option<Tensor>],
    mode: Mode,
    opts: BackwardOptions,
) -> Result<Vec<Option<Tensor>>> {
    let none = || vec![None; node.children.len()];
    // A node that neither runs nor captures is never reached in PyTorch's engine: no hooks.
    if !needed && captures.is_empty() {
        return Ok(none());
    }
    let variable = if node.is_accumulate {
        node.handle.variable()
    } else {
        None
    };
    let (hooks, retained) = node.handle.with(|n| (n.hooks.clone(), n.retained.clone()));
    if !needed {
        call_tensor_hooks(
            &mut grads,
            &hooks,
            variable.as_ref(),
            &retained,
            opts.create_graph,
        )?;
    }
    for &(t, slot) in captures {
        captured[t] = grads.get(slot as usize).cloned().flatten();
    }
    if !needed {
        return Ok(none());
    }
    call_tensor_hooks(
        &mut grads,
        &hooks,
        variable.as_ref(),
        &retained,
        opts.create_graph,
    )?;
    if !hooks.pre.is_empty() {
        let mut v = grads.into_vec();
        for hook in &hooks.pre {
            v = hook.call(v)?;
        }
        grads = v.into();
    }
    let undefined = grads.iter().all(|g| g.is_none());
    if let Some(var) = variable {
        if mode != Mode::Capture {
            // Moved out unless a post hook still reads it, so `accumulate` may steal a
            // gradient nothing else holds instead of copying it.
            let g = if hooks.post.is_empty() {
                grads.first_mut().and_then(Option::take)
            } else {
                grads.first().cloned().flatten()
            };
            if let Some(g) = g {
                accumulate(&var, g, opts.create_graph)?;
            }
            // An undefined gradient leaves `.grad` as it is, but PyTorch's AccumulateGrad
            // still runs the post-accumulate hooks, then its node's post hooks (a Function
            // whose backward returns None for a leaf).
            for hook in hooks::post_accumulate_grad_hooks(&var) {
                hook.call(&var)?;
            }
        }
        for hook in &hooks.post {
            hook.call(Vec::new(), &grads)?;
        }
        return Ok(none());
    }
    let mut data = node.handle.take();
    let ctx = Ctx {
        node: &node.handle,
        create_graph: opts.create_graph,
    };
    // Every incoming gradient undefined: PyTorch's engine still calls the node (its hooks run,
    // its saved tensors are released); a generated node returns undefined gradients without
    // its formula, a custom Function's backward runs (PyNode materializes zeros).
    let result = if undefined && !data.backward.runs_on_undefined_grads() {
        Ok(vec![None; data.next.len()])
    } else if let Some(b) = opts.batch {
        super::batched::apply(&mut data, &grads, &ctx, b)
    } else {
        data.backward.apply(&grads, &ctx)
    };
    if !opts.retain_graph {
        data.backward.release();
    }
    let name = data.backward.name();
    let result = result.and_then(|mut outs| {
        for (i, (g, e)) in outs.iter_mut().zip(&data.next).enumerate() {
            *g = match opts.batch {
                Some(b) => super::batched::validate_output(
                    i,
                    g.take(),
                    e.node.is_some(),
                    &e.shape,
                    e.dtype,
                    e.device,
                    name,
                    b,
                )?,
                None => validate_output(
                    i,
                    g.take(),
                    e.node.is_some(),
                    &e.shape,
                    e.dtype,
                    e.device,
                    name,
                )?,
            };
        }
        outs.truncate(data.next.len());
        Ok(outs)
    });
    node.handle.restore(data);
    let mut outs = result?;
    if !hooks.post.is_empty() {
        for hook in &hooks.post {
            outs = hook.call(outs, &grads)?;
        }
        let edges = node.handle.with(|n| {
            n.next
                .iter()
                .map(|e| (e.node.is_some(), e.shape.clone(), e.dtype, e.device))
                .collect::<Vec<_>>()
        });
        outs = outs
            .into_iter()
            .zip(&edges)
            .enumerate()
            .map(|(i, (g, (has_node, shape, dtype, device)))| {
                validate_output(i, g, *has_node, shape, *dtype, *device, name)
            })
            .collect::<Result<_>>()?;
    }
    Ok(outs)
}

/// Note [Undo broadcasting]: the one place a gradient is summed back to its input's shape,
/// cast to its dtype and moved to its device, so formulas may return broadcast-shaped
/// gradients (and `.to(device)`'s backward is an identity). A gradient whose shape cannot
/// broadcast to the input's is PyTorch's `validate_outputs` error. None where the edge leads
/// nowhere.
pub(super) fn validate_output(
    i: usize,
    g: Option<Tensor>,
    has_node: bool,
    shape: &[usize],
    dtype: crate::dtype::DType,
    device: crate::tensor::Device,
    name: &str,
) -> Result<Option<Tensor>> {
    let g = match (g, has_node) {
        (Some(g), true) => g,
        _ => return Ok(None),
    };
    let gs = g.shape();
    let g = if gs.as_slice() != shape {
        let expandable = shape.len() <= gs.len()
            && shape
                .iter()
                .rev()
                .zip(gs.iter().rev())
                .all(|(&s, &t)| s == t || s == 1);
        if !expandable {
            return Err(Error::Runtime(format!(
                "Function {name} returned an invalid gradient at index {i} - got {} but expected shape compatible with {}",
                crate::tensor::shape::list_repr(&gs),
                crate::tensor::shape::list_repr(shape)
            )));
        }
        ops::reduce::sum_to(&g, shape)?
    } else {
        g
    };
    let (gdtype, gdevice) = {
        let d = g.read();
        (d.dtype(), d.device())
    };
    let g = if gdtype != dtype {
        ops::creation::to_dtype(&g, dtype)?
    } else {
        g
    };
    let g = if gdevice != device {
        ops::creation::to_device(&g, device)?
    } else {
        g
    };
    Ok(Some(g))
}

fn add_to_buffer(slot: &mut Option<Tensor>, g: Tensor) -> Result<()> {
    *slot = Some(match slot.take() {
        None => g,
        Some(prev) => ops::arithmetic::add(&prev, &g)?,
    });
    Ok(())
}

/// Note [Grad accumulation]: the first gradient is stored as a fresh contiguous tensor (or
/// stolen when nothing else refers to it); later ones are added in place, unless
/// create_graph asks for a differentiable `grad + new`.
pub fn accumulate(var: &Tensor, new: Tensor, create_graph: bool) -> Result<()> {
    match var.grad() {
        None => {
            let g = if create_graph {
                new
            } else if ops::creation::is_exclusively_owned(&new) {
                new.detach()
            } else {
                ops::creation::contiguous_clone(&new.detach())
            };
            var.set_grad(Some(g));
        }
        Some(old) => {
            if create_graph {
                var.set_grad(Some(ops::arithmetic::add(&old, &new)?));
            } else {
                ops::inplace::add_(&old, &new.detach())?;
            }
        }
    }
    Ok(())
}
