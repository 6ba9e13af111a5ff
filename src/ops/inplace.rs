//! In-place variants (`x.relu_()`, `x.mul_(2)`, `x.clamp_(0, 1)`): the op runs out of place on
//! an alias that carries `x`'s history, the result is written into `x`'s memory (bumping its
//! version), and `x` takes the new node as its history — PyTorch's rules for in-place autograd.
//!
//! Note [View rebase]: when `x` is a view, the write also changes its base. As in PyTorch, the
//! base's history becomes `CopySlices` (the base with the view's region replaced by the op's
//! result) and the view's becomes `AsStridedBackward0` of the base. Other views of the same
//! base are refreshed lazily: `refresh_view` (called wherever a `grad_fn` is read for autograd)
//! rebuilds a view's history from its base when the memory changed since it was made.

use crate::autograd::{is_grad_enabled, needs_grad, record_formula};
use crate::dtype::pretty_kernel_name;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels;
use crate::ops::arithmetic::{binary, binary_data, compute_dtype, sub_check, BinaryOp};
use crate::ops::binary_kernels::materialize;
use crate::ops::creation::contiguous_clone;
use crate::ops::Operand;
use crate::tensor::{CreationMeta, Layout, Tensor};

/// Apply `op` to `dst` in place; `others_need_grad`: whether another operand requires grad.
pub fn apply_(
    dst: &Tensor,
    others_need_grad: bool,
    op: impl FnOnce(&Tensor) -> Result<Tensor>,
) -> Result<()> {
    check_inplace(dst, others_need_grad)?;
    let tracked = is_grad_enabled() && (dst.requires_grad() || others_need_grad);
    // A recorded node may save its input: give it the values before the write (PyTorch saves
    // a clone of the original self), not memory that is about to change.
    // Under a live dual level too: a tangent formula may save the old values with a graph
    // (PyTorch's codegen clones `original_self` when forward grads are defined).
    let fw_live = crate::autograd::forward::enabled() && crate::autograd::forward::level_live();
    let alias = if tracked || fw_live {
        crate::ops::creation::contiguous_clone(dst)
    } else {
        dst.detach()
    };
    if tracked {
        alias.set_grad_fn(dst.grad_fn(), dst.output_nr());
        if alias.grad_fn().is_none() && dst.requires_grad() {
            alias.set_requires_grad(true)?;
        }
    }
    // Under forward AD the op sees dst's tangent, and dst takes the result's (Note [Forward AD]).
    let fw = crate::autograd::forward::enabled();
    let mut self_tangent = false;
    if fw {
        if let Some(t) = crate::ops::forward::tangent(dst) {
            crate::ops::forward::set_tangent(&alias, &t, true)?;
            self_tangent = true;
        }
    }
    let result = if fw_live && !self_tangent {
        crate::ops::forward::with_inplace_self(&alias, || op(&alias))?
    } else {
        op(&alias)?
    };
    let (rd, dd) = (result.dtype(), dst.dtype());
    if !crate::dtype::can_cast(rd, dd) {
        return Err(Error::Runtime(format!(
            "result type {} can't be cast to the desired output type {}",
            pretty_kernel_name(rd),
            pretty_kernel_name(dd)
        )));
    }
    let shape = dst.shape();
    if result.shape() != shape {
        return Err(Error::Runtime(format!(
            "output with shape {} doesn't match the broadcast shape {}",
            crate::tensor::shape::list_repr(&shape),
            crate::tensor::shape::list_repr(&result.shape())
        )));
    }
    write_into(dst, &result)?;
    if fw {
        // The result's tangent is its own (the runner copied any that shared an input's),
        // so dst takes it as it is, graph included, as PyTorch's `set_fw_grad` does.
        match crate::ops::forward::tangent(&result) {
            Some(t) => crate::ops::forward::set_tangent(dst, &t, !result.ptr_eq(&alias))?,
            None => crate::ops::forward::zero_tangent(dst)?,
        }
    }
    if result.requires_grad() && is_grad_enabled() {
        match dst.view_base().and_then(|b| region(dst, b).map(|r| (b, r))) {
            Some((base, region)) => {
                copy_slices(base, &alias, &result, region);
                refresh_view(dst);
                link_view(base, dst);
            }
            None => dst.set_grad_fn(result.grad_fn(), result.output_nr()),
        }
    }
    Ok(())
}

/// Where view `v` lies inside its base's elements, as a layout over a contiguous base-shaped
/// tensor; None when the base itself is not contiguous (its history is then not rebased).
fn region(v: &Tensor, base: &Tensor) -> Option<Layout> {
    let (b, l) = (base.read().layout.clone(), v.read().layout.clone());
    if !b.is_contiguous() || l.offset < b.offset {
        return None;
    }
    Some(Layout {
        offset: l.offset - b.offset,
        ..l
    })
}

/// The base's new history: `CopySlices`, the base with `region` replaced by `result`. As in
/// PyTorch, the node wraps the op's own node `fn` (the one that made `result` from `alias`,
/// the view's old values): its inputs are the base's edge followed by `fn`'s other inputs
/// (`next_functions` as PyTorch's), and its backward runs `fn` on the region's gradient.
/// A result made by several nodes (no single `fn` whose first input is `alias`) is recorded
/// as a formula of the base and the result instead.
fn copy_slices(base: &Tensor, alias: &Tensor, result: &Tensor, region: Layout) {
    let alias_fn = alias.grad_fn();
    let wrapped = result.grad_fn().filter(|f| {
        f.next_functions()
            .first()
            .is_some_and(|(n, nr)| *n == alias_fn && (n.is_none() || *nr == alias.output_nr()))
    });
    let Some(fn_node) = wrapped else {
        let rshape = region.shape.clone();
        record_formula(
            base.clone(),
            &[base, result],
            "CopySlices",
            vec![],
            move |g, _| {
                let zeros = Tensor::zeros_on(&rshape, g.dtype(), g.device());
                Ok(vec![
                    Some(strided_put(g, &region, &zeros)?),
                    Some(strided_take(g, &region)?),
                ])
            },
        );
        return;
    };
    let mut edges = vec![crate::autograd::graph::gradient_edge(base)];
    let metas = fn_node.with(|n| {
        n.next
            .iter()
            .map(|e| (e.input_nr, e.shape.clone(), e.dtype, e.device))
            .collect::<Vec<_>>()
    });
    let nodes = fn_node.next_functions();
    for ((node, _), (input_nr, shape, dtype, device)) in nodes.into_iter().zip(metas).skip(1) {
        edges.push(crate::autograd::Edge {
            node,
            input_nr,
            shape,
            dtype,
            device,
        });
    }
    let node = CopySlices {
        view_node: std::sync::OnceLock::new(),
        output_nr: result.output_nr(),
        num_outputs: fn_node.with(|n| n.num_outputs),
        region,
        fn_node,
    };
    let node = crate::autograd::graph::new_node(Box::new(node), edges, 1);
    base.set_grad_fn(Some(node), 0);
}

/// Tell the base's new `CopySlices` the view's new history (after `refresh_view`).
fn link_view(base: &Tensor, view: &Tensor) {
    let (Some(base_fn), Some(view_fn)) = (base.grad_fn(), view.grad_fn()) else {
        return;
    };
    let weak = view_fn.downgrade();
    base_fn.with(|n| {
        if let Some(c) = n
            .backward
            .as_any()
            .and_then(|a| a.downcast_ref::<CopySlices>())
        {
            let _ = c.view_node.set(weak);
        }
    });
}

/// PyTorch's `CopySlices` node (see `copy_slices`).
struct CopySlices {
    /// The op's node, kept out of the graph and run by this one.
    fn_node: crate::autograd::NodeRef,
    /// The view's history after the write (`AsStridedBackward0` of this node), weakly: the
    /// op's saved result is re-attached to it when unpacked, as PyTorch's saved in-place
    /// output, so a graph built under create_graph reaches `fn_node` only through this node.
    view_node: std::sync::OnceLock<crate::autograd::graph::WeakNode>,
    /// Which of `fn_node`'s outputs is the written result, and how many it has.
    output_nr: u32,
    num_outputs: u32,
    region: Layout,
}

impl crate::autograd::Backward for CopySlices {
    fn name(&self) -> &'static str {
        "CopySlices"
    }
    fn apply(
        &mut self,
        grads: &[Option<Tensor>],
        ctx: &crate::autograd::Ctx,
    ) -> Result<Vec<Option<Tensor>>> {
        let g = grads[0].as_ref().expect("engine passes a gradient");
        let mut fn_grads = vec![None; self.num_outputs as usize];
        fn_grads[self.output_nr as usize] = Some(strided_take(g, &self.region)?);
        let view_node = self.view_node.get().and_then(|w| w.upgrade());
        let mut data = self.fn_node.take();
        let fn_ctx = crate::autograd::Ctx {
            node: view_node.as_ref().unwrap_or(&self.fn_node),
            create_graph: ctx.create_graph,
        };
        let res = data.backward.apply(&fn_grads, &fn_ctx);
        self.fn_node.restore(data);
        let mut res = res?.into_iter();
        let slice = match res.next().flatten() {
            Some(s) => {
                let s = if s.shape() != self.region.shape {
                    crate::ops::reduce::sum_to(&s, &self.region.shape)?
                } else {
                    s
                };
                if s.dtype() != g.dtype() {
                    crate::ops::creation::to_dtype(&s, g.dtype())?
                } else {
                    s
                }
            }
            None => Tensor::zeros_on(&self.region.shape, g.dtype(), g.device()),
        };
        let mut out = vec![Some(strided_put(g, &self.region, &slice)?)];
        out.extend(res);
        Ok(out)
    }
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
    fn release(&mut self) {
        // Outside the arena's lock: freeing saved tensors may drop nodes.
        let mut data = self.fn_node.take();
        data.backward.release();
        self.fn_node.restore(data);
    }
}

/// A view of `of`'s memory with `layout` (every view the ops make comes through here), with
/// `refresh_view` installed in the autograd layer first (Note [View rebase]).
pub fn new_view(of: &Tensor, layout: Layout) -> Tensor {
    crate::autograd::graph::install_view_refresh(refresh_view);
    let view = Tensor::new_view(of, layout, false);
    // The view's tangent is the same view of `of`'s (Note [Forward AD]).
    crate::ops::forward::on_view(of, &view);
    view
}

/// `new_view` for one of the several views an op returns (unbind, split, chunk): PyTorch's
/// `CreationMeta::MULTI_OUTPUT_NODE` (Note [View creation meta]).
pub fn new_multi_view(of: &Tensor, layout: Layout) -> Tensor {
    crate::autograd::graph::install_view_refresh(refresh_view);
    let view = Tensor::new_view(of, layout, true);
    crate::ops::forward::on_view(of, &view);
    view
}

/// PyTorch's `handle_view_on_rebase`: the error for rebasing the history of a view whose
/// creation forbids it (Note [View creation meta]); `indirect`: its base or another view was
/// written, not the view itself.
fn check_view_rebase(v: &Tensor, indirect: bool) -> Result<()> {
    let meta = v.creation_meta();
    if meta == CreationMeta::Default {
        return Ok(());
    }
    let modified = if indirect {
        "its base or another view of its base has been"
    } else {
        "is being"
    };
    let (grad_fn, output_nr) = {
        let m = v.0.meta.lock();
        (m.grad_fn.as_ref().map(|f| f.name()), m.output_nr)
    };
    // PyTorch names the node without its `Backward<n>` suffix here.
    let short = |name: &'static str| {
        let stem = name.trim_end_matches(|c: char| c.is_ascii_digit());
        stem.strip_suffix("Backward").unwrap_or(stem).to_string()
    };
    let mut msg = match grad_fn {
        Some(name) if !matches!(meta, CreationMeta::InferenceMode | CreationMeta::NoGradMode) => {
            format!(
                "Output {output_nr} of {} is a view and {modified} modified inplace.",
                short(name)
            )
        }
        _ => {
            let prefix = match grad_fn {
                Some(name) => format!(
                    "Output {output_nr} of {} is a view of a view which was created in",
                    short(name)
                ),
                None => "A view was created in".to_string(),
            };
            if meta == CreationMeta::InferenceMode {
                format!("{prefix} inference mode and {modified} modified inplace in normal mode.")
            } else {
                format!(
                    "{prefix} no_grad mode and {modified} modified inplace with grad mode enabled."
                )
            }
        }
    };
    let mode = match meta {
        CreationMeta::MultiOutputNode => {
            msg.push_str(" This view is the output of a function that returns multiple views. Such functions do not allow the output views to be modified inplace. You should replace the inplace operation by an out-of-place one.");
            return Err(Error::Runtime(msg));
        }
        CreationMeta::InCustomFunction => {
            msg.push_str(" This view was created inside a custom Function (or because an input was returned as-is) and the autograd logic to handle view+inplace would override the custom backward associated with the custom Function, leading to incorrect gradients. This behavior is forbidden. You can fix this by cloning the output of the custom Function.");
            return Err(Error::Runtime(msg));
        }
        CreationMeta::InferenceMode => "inference_mode",
        _ => "no_grad",
    };
    msg.push_str(&format!(" Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both the view and the inplace either both inside the {mode} block (if you don't want the inplace to be tracked) or both outside (if you want the inplace to be tracked)."));
    Err(Error::Runtime(msg))
}

/// Rebuild a view's history from its base if the shared memory was written since its
/// `grad_fn` was made (Note [View rebase]). Cheap for tensors that are not views. A view whose
/// creation forbids the rebase raises PyTorch's error instead (Note [View creation meta]), as
/// an unwind: every reader of a history (`grad_fn`, an op recording a node) reaches here.
pub fn refresh_view(v: &Tensor) {
    if let Err(e) = try_refresh_view(v) {
        crate::error::raise(e);
    }
}

/// `refresh_view`, its error returned.
pub fn try_refresh_view(v: &Tensor) -> Result<()> {
    let Some(base) = v.view_base() else {
        return Ok(());
    };
    let version = base.version();
    let (current, has_fn) = {
        let m = v.0.meta.lock();
        (m.view_version == version, m.grad_fn.is_some())
    };
    if current || (!has_fn && !base.requires_grad()) {
        return Ok(());
    }
    check_view_rebase(v, true)?;
    let Some(region) = region(v, base) else {
        return Ok(());
    };
    record_as_strided(v.clone(), base, region);
    v.0.meta.lock().view_version = version;
    Ok(())
}

/// Make `out` (the `region` of `input`) an AsStridedBackward0 output: its gradient is
/// scattered into a zero tensor of `input`'s shape.
fn record_as_strided(out: Tensor, input: &Tensor, region: Layout) -> Tensor {
    let shape = input.shape();
    record_formula(out, &[input], "AsStridedBackward0", vec![], move |g, _| {
        let zeros = Tensor::zeros_on(&shape, g.dtype(), g.device());
        Ok(vec![Some(strided_put(&zeros, &region, g)?)])
    })
}

/// `as_strided(g, region)`: the region's elements of a base-shaped tensor.
fn strided_take(g: &Tensor, region: &Layout) -> Result<Tensor> {
    let gc = contiguous_clone(g);
    let out = contiguous_clone(&Tensor::from_storage(
        gc.read().storage.clone(),
        region.clone(),
    ));
    if !needs_grad(&[g]) {
        return Ok(out);
    }
    Ok(record_as_strided(out, g, region.clone()))
}

/// `as_strided_scatter(g, v, region)`: `g` with the region replaced by `v`.
fn strided_put(g: &Tensor, region: &Layout, v: &Tensor) -> Result<Tensor> {
    let out = contiguous_clone(g);
    write_into(
        &Tensor::from_storage(out.read().storage.clone(), region.clone()),
        v,
    )?;
    if !needs_grad(&[g, v]) {
        return Ok(out);
    }
    let region = region.clone();
    let (region_t, shapes) = (region.clone(), vec![g.shape(), v.shape()]);
    Ok(crate::autograd::record_formula_jvp(
        out,
        &[g, v],
        "AsStridedScatterBackward0",
        vec![],
        move |gg, _| {
            let zeros = Tensor::zeros_on(&region.shape, gg.dtype(), gg.device());
            Ok(vec![
                Some(strided_put(gg, &region, &zeros)?),
                Some(strided_take(gg, &region)?),
            ])
        },
        crate::autograd::Jvp::linear_n(shapes, move |t| strided_put(&t[0], &region_t, &t[1])),
    ))
}

/// `x.zero_()` / `x.fill_(s)`: ZeroBackward0 / FillBackward2 (the old values get no gradient).
pub fn fill_(dst: &Tensor, s: crate::dtype::Scalar, zero: bool) -> Result<()> {
    if crate::dtype::fill_checks(dst.dtype(), dst.numel()) {
        crate::dtype::check_fits(s, dst.dtype(), crate::dtype::cpp_name(dst.dtype()))?;
    }
    apply_(dst, false, |alias| {
        let out = Tensor::full_on(&alias.shape(), s, alias.dtype(), alias.device());
        if !needs_grad(&[alias]) {
            return Ok(out);
        }
        let name = if zero {
            "ZeroBackward0"
        } else {
            "FillBackward2"
        };
        // The new values are constants: no tangent (Note [Forward AD]).
        Ok(crate::autograd::record_formula_jvp(
            out,
            &[alias],
            name,
            vec![],
            |g, _| Ok(vec![Some(crate::ops::creation::zeros_like(g))]),
            crate::autograd::Jvp::of(|_, _| Ok(vec![None])),
        ))
    })
}

/// `dst.copy_(src)`: CopyBackwards — `src` broadcast to `dst`'s shape, cast to its dtype; the
/// gradient goes to `src` (summed back and cast by the engine), none to the old values.
pub fn copy_(dst: &Tensor, src: &Tensor) -> Result<()> {
    check_write(dst, &[src])?;
    copy_as(dst, src, "CopyBackwards")
}

/// Note [Write overlap]: PyTorch refuses an elementwise write into memory that several of
/// the written elements share (an expanded tensor), and one whose target partly overlaps an
/// input (`a[1:].add_(a[:-1])`), whose result would depend on the order of the loop. As
/// ATen's `assert_no_internal_overlap` / `assert_no_partial_overlap`: only what is cheap to
/// prove counts (a size > 1 dim of stride 0; two dense tensors over the same memory whose
/// ranges meet without being the same elements), anything else is let through.
pub fn check_write(dst: &Tensor, inputs: &[&Tensor]) -> Result<()> {
    let d = dst.read();
    let l = &d.layout;
    if l.has_expanded_dim() {
        return Err(Error::Runtime(
            "unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation."
                .into(),
        ));
    }
    for t in inputs {
        if t.ptr_eq(dst) {
            continue;
        }
        let s = t.read();
        if partial_overlap(&d, &s) {
            return Err(Error::Runtime(
                "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation."
                    .into(),
            ));
        }
    }
    Ok(())
}

/// Two dense tensors over one memory whose byte ranges meet but are not the same elements.
fn partial_overlap(a: &crate::tensor::Data, b: &crate::tensor::Data) -> bool {
    let (la, lb) = (&a.layout, &b.layout);
    if la.numel() == 0 || lb.numel() == 0 || !dense(la) || !dense(lb) {
        return false;
    }
    if a.storage.data_ptr() != b.storage.data_ptr() {
        return false;
    }
    let range = |d: &crate::tensor::Data| {
        let size = d.storage.dtype().itemsize();
        let begin = d.layout.offset * size;
        (begin, begin + d.layout.numel() * size)
    };
    let ((a0, a1), (b0, b1)) = (range(a), range(b));
    if (a0, a1) == (b0, b1) {
        return la.strides != lb.strides;
    }
    a0 < b1 && b0 < a1
}

/// PyTorch's `is_non_overlapping_and_dense`: the strides, sorted, are a contiguous layout of
/// some permutation of the dims.
fn dense(l: &Layout) -> bool {
    let mut dims: Vec<(isize, usize)> = l
        .strides
        .iter()
        .zip(l.shape.iter())
        .filter(|&(_, &n)| n != 1)
        .map(|(&s, &n)| (s, n))
        .collect();
    dims.sort_unstable();
    let mut expected = 1isize;
    for (s, n) in dims {
        if s != expected {
            return false;
        }
        expected *= n as isize;
    }
    true
}

/// `dst.fill_(value)` with a 0-dim tensor value: PyTorch copies it (a cast that wraps, with no
/// overflow check, unlike a number's fill) and records FillBackward3, whose gradient for the
/// value is the sum of the incoming one.
pub fn fill_tensor_(dst: &Tensor, value: &Tensor) -> Result<()> {
    if value.dim() != 0 {
        return Err(Error::Runtime(format!(
            "fill_ only supports 0-dimension value tensor but got tensor with {} dimensions.",
            value.dim()
        )));
    }
    copy_as(dst, value, "FillBackward3")
}

fn copy_as(dst: &Tensor, src: &Tensor, name: &'static str) -> Result<()> {
    apply_(dst, src.requires_grad(), |alias| {
        let out = {
            let _no_grad = crate::autograd::GradModeGuard::new(false);
            let shape = crate::tensor::shape::sizes_i64(&alias.shape());
            crate::ops::creation::cast_data(
                &crate::ops::movement::expand(src, &shape)?,
                alias.dtype(),
            )
        };
        // An integer copy is not differentiable; PyTorch's fill_ records FillBackward3 anyway.
        let differentiable = out.dtype().is_floating_point() || name == "FillBackward3";
        if !differentiable || !needs_grad(&[alias, src]) {
            return Ok(out);
        }
        Ok(crate::autograd::record_formula_jvp(
            out,
            &[alias, src],
            name,
            vec![],
            |g, _| {
                Ok(vec![
                    Some(crate::ops::creation::zeros_like(g)),
                    Some(g.clone()),
                ])
            },
            // The copied values' tangent is src's, broadcast and cast by the runner.
            crate::autograd::Jvp::of(|t, _| Ok(vec![t[1].clone()])),
        ))
    })
}

// ---- in-place binary ops and writes ---------------------------------------------------------

/// PyTorch's rules for every in-place op: an inference tensor may only be modified inside
/// inference mode, and a leaf that requires grad may not be modified while grad mode is on.
pub fn check_inplace_leaf(dst: &Tensor) -> Result<()> {
    check_inplace(dst, false)
}

/// PyTorch's `check_inplace`, for an in-place op on `dst` whose other operands require grad
/// (`others_need_grad`): a view whose history cannot be rebased (Note [View creation meta]),
/// a view of a leaf, or a leaf that requires grad may not be written while grad mode is on.
pub fn check_inplace(dst: &Tensor, others_need_grad: bool) -> Result<()> {
    dst.check_inplace_version()?;
    let requires_grad = dst.requires_grad();
    if !crate::autograd::is_grad_enabled() || !(requires_grad || others_need_grad) {
        return Ok(());
    }
    if let Some(base) = dst.view_base() {
        check_view_rebase(dst, false)?;
        // (PyTorch asks whether the view requires grad; a view gradrs's composites recorded
        // over a fresh base that does not, has history of its own and is allowed.)
        if base.is_leaf() && base.requires_grad() {
            return Err(Error::Runtime(
                "a view of a leaf Variable that requires grad is being used in an in-place operation."
                    .into(),
            ));
        }
    }
    if dst.is_leaf() && requires_grad {
        return Err(Error::Runtime(
            "a leaf Variable that requires grad is being used in an in-place operation.".into(),
        ));
    }
    Ok(())
}

/// In-place `dst op= other` (`x += y`, `w -= lr * g`), with PyTorch's autograd rules:
/// a leaf that requires grad may not be modified while grad mode is on; a non-leaf takes
/// the new op as its history.
pub fn binary_(op: BinaryOp, dst: &Tensor, other: Operand) -> Result<()> {
    let fw = crate::autograd::forward::any_tangent(&[dst])
        || crate::autograd::forward::operand_tangent(&[&other]);
    if !fw
        && (!crate::autograd::is_grad_enabled() || !(dst.requires_grad() || other.requires_grad()))
    {
        check_inplace_leaf(dst)?;
        let done = match dst.dtype() {
            d @ (DType::F32 | DType::F64) => float_zip_in_place(op, d, dst, &other)?,
            _ => false,
        };
        if done {
            return Ok(());
        }
    }
    crate::ops::inplace::apply_(dst, other.requires_grad(), |alias| {
        let a = Operand::Tensor(alias.clone());
        if fw || alias.requires_grad() || other.requires_grad() {
            binary(op, a, other)
        } else {
            let dtype = compute_dtype(op, &a, &other);
            binary_data(op, &a, &other, dtype)
        }
    })
}

/// `dst op= other` written straight into `dst` (no result buffer, no copy back) when nothing
/// is recorded, `dst` is a contiguous float tensor that keeps its dtype, and `other` is a
/// number or a tensor of dst's shape or of one element that does not share its memory (an
/// SGD step, `p -= lr * p.grad`, and gradient accumulation), where the host kernels apply
/// (`kernels::zip_into_host`). False: not applicable, the caller takes the general path.
fn float_zip_in_place(op: BinaryOp, dtype: DType, dst: &Tensor, other: &Operand) -> Result<bool> {
    let a = Operand::Tensor(dst.clone());
    if op == BinaryOp::Pow || compute_dtype(op, &a, other) != dtype {
        return Ok(false);
    }
    if op == BinaryOp::Sub {
        sub_check(&a, other)?;
    }
    let b = materialize(other, dtype);
    // The declared kernel `float_zip` runs, so results are bit-identical to the general path.
    Ok(kernels::zip_into_host(
        dst,
        &b,
        |out, src| op.in_place_f32(out, src),
        |out, src| op.in_place_f64(out, src),
    ))
}

/// `a.add_(b)` without autograd (gradient accumulation).
pub fn add_(dst: &Tensor, src: &Tensor) -> Result<()> {
    let _g = crate::autograd::GradModeGuard::new(false);
    binary_(BinaryOp::Add, dst, src.into())
}

pub(crate) use crate::kernels::overlaps;

/// Copy `src` (same shape) into `dst`'s memory, casting, and bump `dst`'s version.
pub fn write_into(dst: &Tensor, src: &Tensor) -> Result<()> {
    dst.check_inplace_version()?;
    kernels::write_into(dst, src)?;
    dst.read().storage.bump_version();
    Ok(())
}
