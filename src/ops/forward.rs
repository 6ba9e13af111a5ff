//! Forward-mode AD's ops (Note [Forward AD] in `autograd/forward.rs`): reading and setting a
//! tensor's tangent (a view's is the same view of its base's), `make_dual` / `unpack_dual`, and
//! the runner that gives an op's outputs their tangents from its node's jvp formula.

use crate::autograd::forward::{self as fw, Suspend};
use crate::autograd::graph::{Ctx, NodeRef};
use crate::autograd::is_grad_enabled;
use crate::error::{Error, Result};
use crate::ops::arithmetic::add;
use crate::ops::creation::contiguous_clone;
use crate::ops::inplace::write_into;
use crate::tensor::shape::list_repr;
use crate::tensor::Tensor;
use std::sync::Arc;

thread_local! {
    /// The alias an in-place op runs on while it has no tangent (`inplace::apply_`): the
    /// node whose `self` it is gives it zeros as its tangent (see `run`).
    static INPLACE_SELF: std::cell::RefCell<Option<Tensor>> = const { std::cell::RefCell::new(None) };
}

/// Run `op` on `alias`, the tangent-less `self` of an in-place op (see `INPLACE_SELF`).
pub fn with_inplace_self<R>(alias: &Tensor, op: impl FnOnce() -> R) -> R {
    let before = INPLACE_SELF.with(|s| s.replace(Some(alias.clone())));
    let r = op();
    INPLACE_SELF.with(|s| *s.borrow_mut() = before);
    r
}

/// Whether derivatives.yaml's forward formula of the node's op leaves self's primal unread
/// (`self_t + maybe_multiply(other_t, alpha)`, `at::lerp(self_t, end_t, weight)`), so its
/// in-place form writes into `self_t` (see `run`).
fn formula_ignores_self_primal(node: &str) -> bool {
    matches!(
        node,
        "AddBackward0"
            | "SubBackward0"
            | "AddcmulBackward0"
            | "AddcdivBackward0"
            | "LerpBackward0"
            | "LerpBackward1"
    )
}

fn is_inplace_self(t: &Tensor) -> bool {
    INPLACE_SELF.with(|s| s.borrow().as_ref().is_some_and(|a| a.ptr_eq(t)))
}

/// Install the runner (before the first level: ops record nothing forward-mode before it).
pub fn install() {
    fw::install_runner(run);
}

/// `t`'s tangent at the live level: its own, or (a view) the same view of its base's.
pub fn tangent(t: &Tensor) -> Option<Tensor> {
    if !fw::level_live() {
        return None;
    }
    if let Some(own) = fw::own_tangent(t) {
        return Some(own);
    }
    if fw::is_standalone(t) {
        return None;
    }
    let base_tangent = fw::own_tangent(t.view_base()?)?;
    let view = view_of_tangent(&base_tangent, t.read().layout.clone(), "AsStridedBackward0");
    fw::store_tangent(t, Some(view.clone()));
    Some(view)
}

/// A new view `view` of `of` takes the same view of `of`'s tangent.
pub fn on_view(of: &Tensor, view: &Tensor) {
    if !fw::enabled() {
        return;
    }
    if let Some(t) = tangent(of) {
        let v = view_of_tangent(&t, view.read().layout.clone(), "AsStridedBackward0");
        fw::store_tangent(view, Some(v));
    }
}

/// The view with `layout` of the tangent storage `t` lives in. Where `t` is differentiable
/// (forward over reverse under `create_graph`, a tangent with a graph to a captured tensor that
/// requires grad: `func.hessian` of a function closing over a parameter) the view is recorded,
/// as PyTorch's tangent of a view op is that op applied to `self_t`: under node `name` (the
/// primal's view node where the runner knows it), with `as_strided`'s backward, which is
/// every view's.
fn view_of_tangent(t: &Tensor, layout: crate::tensor::Layout, name: &'static str) -> Tensor {
    if !(is_grad_enabled() && t.requires_grad()) {
        // A view of `t` (`_is_view()`, `_base` the tangent's base), as PyTorch's tangent of a
        // view is `self_t`'s view.
        return Tensor::new_view(t, layout, false);
    }
    let v = Tensor::from_storage(t.read().storage.clone(), layout);
    let (size, stride, offset) = {
        let l = &v.read().layout;
        let size: Vec<i64> = l.shape.iter().map(|&n| n as i64).collect();
        let stride: Vec<i64> = l.strides.iter().map(|&n| n as i64).collect();
        (size, stride, l.offset as i64)
    };
    crate::ops::strided::record_as_strided(v, t, &size, &stride, Some(offset), name)
}

/// A zero tangent laid out as `t`, over a storage as large as `t`'s.
fn zeros_like_meta(t: &Tensor, like: &Tensor) -> Tensor {
    let (len, layout) = {
        let d = t.read();
        (d.storage.len(), d.layout.clone())
    };
    let zeros = Tensor::zeros_on(&[len], like.dtype(), like.device());
    let storage = zeros.read().storage.clone();
    Tensor::from_storage(storage, layout)
}

/// Give `t` the tangent `value` (broadcast to `t`'s shape): written into the tangent `t`
/// already has (so views of it and its base see it), else stored as is when it is laid out as
/// `t` and `fresh` (shared with nothing), else copied into a new one laid out as `t`.
pub fn set_tangent(t: &Tensor, value: &Tensor, fresh: bool) -> Result<()> {
    let shape = t.shape();
    let value = if value.shape() != shape {
        let sizes: Vec<i64> = shape.iter().map(|&s| s as i64).collect();
        crate::ops::movement::expand(value, &sizes)?
    } else {
        value.clone()
    };
    let _off = Suspend::new();
    if let Some(existing) = tangent(t) {
        if existing.ptr_eq(&value) {
            return Ok(());
        }
        return write_tangent(&existing, &value);
    }
    if !fw::is_standalone(t) {
        if let Some(base) = t.view_base() {
            let base_tangent = zeros_like_meta(base, &value);
            fw::store_tangent(base, Some(base_tangent));
            let existing = tangent(t).expect("the base has a tangent");
            return write_tangent(&existing, &value);
        }
    }
    let same_meta = fresh && {
        let (v, d) = (value.read(), t.read());
        same_layout(&v.layout, &d.layout) && v.storage.len() == d.storage.len()
    };
    if same_meta {
        fw::store_tangent(t, Some(value));
        return Ok(());
    }
    let new = zeros_like_meta(t, &value);
    write_tangent(&new, &value)?;
    fw::store_tangent(t, Some(new));
    Ok(())
}

/// Write `value` into the tangent `dst`: where `value` is differentiable (forward over
/// reverse, a tangent with a graph) the write is recorded (`copy_`: CopyBackwards, CopySlices
/// on a view's base), as PyTorch's `set_fw_grad` copies in grad mode, so the tangent and the
/// views of it keep the graph; otherwise a plain write.
fn write_tangent(dst: &Tensor, value: &Tensor) -> Result<()> {
    if is_grad_enabled() && value.requires_grad() {
        crate::ops::inplace::copy_(dst, value)
    } else {
        write_into(dst, value)
    }
}

/// Drop `t`'s tangent (writing zeros where it is shared with its base or views).
pub fn zero_tangent(t: &Tensor) -> Result<()> {
    if let Some(existing) = tangent(t) {
        let _off = Suspend::new();
        let zeros = Tensor::zeros_on(&existing.shape(), existing.dtype(), existing.device());
        write_into(&existing, &zeros)?;
    }
    Ok(())
}

fn same_layout(a: &crate::tensor::Layout, b: &crate::tensor::Layout) -> bool {
    a.shape == b.shape && a.strides == b.strides && a.offset == b.offset
}

fn shares(a: &Tensor, b: &Tensor) -> bool {
    Arc::ptr_eq(&a.read().storage, &b.read().storage)
}

/// The runner `autograd::attach` calls: the node's jvp (or `auto_element_wise` /
/// the reduction rule from its backward) gives the outputs their tangents. Outputs that are
/// views already have theirs (the same view of the input's); a view op has no formula.
fn run(node: &NodeRef, outputs: &[&Tensor], inputs: &[&Tensor]) -> Result<()> {
    let mut tangents: Vec<Option<Tensor>> = inputs.iter().map(|t| tangent(t)).collect();
    if tangents.first().is_some_and(Option::is_none) {
        if node.with(|n| n.backward.jvp_reads_self_only()) {
            return Ok(());
        }
        // In place, a missing `self` tangent is a real zeros the formula adds to (PyTorch's
        // codegen: `at::zeros` for an in-place op's self, an efficient ZeroTensor, whose terms
        // are skipped, for the others'), so `x.add_(y)` with only `y` dual gives
        // `0 + y_t`: +0 where `y_t` is -0. Only for the formulas that do not read self's
        // primal: the others' in-place forms read `original_self_t` instead, a ZeroTensor
        // again (`mul_`'s `other_t * self_p + self_t * other_p` keeps a -0 of its first term).
        if tangents[1..].iter().any(Option::is_some)
            && is_inplace_self(inputs[0])
            && formula_ignores_self_primal(node.name())
        {
            let s = inputs[0];
            tangents[0] = Some(Tensor::zeros_on(&s.shape(), s.dtype(), s.device()));
        }
    }
    // An output sharing an input's memory (a view, `_unsafe_view`, an alias) has the same
    // layout over the input's tangent storage as its tangent.
    let alias_of = |o: &Tensor| {
        inputs
            .iter()
            .zip(&tangents)
            .find_map(|(i, t)| t.as_ref().filter(|_| shares(i, o)).map(|t| (*i, t)))
    };
    if outputs.iter().all(|o| alias_of(o).is_some()) {
        for o in outputs {
            let (input, t) = alias_of(o).expect("checked above");
            // A differentiable tangent's view (`view_of_tangent`) is recorded again under
            // this node's name (`on_view` could not know it).
            let recorded = is_grad_enabled() && t.requires_grad() && !o.ptr_eq(input);
            if !fw::has_tangent(o) || recorded {
                let name = node.with(|n| n.backward.name());
                let v = view_of_tangent(t, o.read().layout.clone(), name);
                fw::store_tangent(o, Some(v));
            }
        }
        return Ok(());
    }
    // The formula records a graph only when the node is kept (reverse over forward): a saved
    // output is re-attached to the node only then.
    let create_graph = is_grad_enabled() && inputs.iter().any(|t| t.requires_grad());
    let results = {
        let _off = Suspend::new();
        let mut data = node.take();
        let ctx = Ctx { node, create_graph };
        let r = if data.backward.elementwise() {
            auto_element_wise(&mut *data.backward, &tangents, &ctx)
        } else if let Some((dims, keepdim)) = data.backward.reduction() {
            reduction_jvp(
                &mut *data.backward,
                &tangents,
                &ctx,
                outputs[0],
                &dims,
                keepdim,
            )
        } else {
            data.backward.jvp(&tangents, &ctx)
        };
        node.restore(data);
        match r {
            Err(Error::NotImplemented(_)) if outputs.iter().all(|o| fw::has_tangent(o)) => {
                return Ok(());
            }
            r => r?,
        }
    };
    for (out, t) in outputs.iter().zip(results) {
        let Some(t) = t else { continue };
        // A tangent has its primal's floating dtype and device (a copy's is cast or moved).
        let (dtype, device) = (out.dtype(), out.device());
        if !dtype.is_floating_point() {
            continue;
        }
        let t = if t.dtype() != dtype || t.device() != device {
            let moved = crate::ops::creation::copy_to_device(&t, device)?;
            crate::ops::creation::cast_data(&moved, dtype)
        } else {
            t
        };
        // A tangent the op's inner steps gave a fresh output is replaced, not written into.
        if out.view_base().is_none() || fw::is_standalone(out) {
            fw::store_tangent(out, None);
        }
        let fresh = !tangents.iter().flatten().any(|it| shares(it, &t));
        set_tangent(out, &t, fresh)?;
    }
    Ok(())
}

/// PyTorch's `auto_element_wise`: the backward formula given each input's tangent as the
/// gradient yields that input's term of the output's tangent.
fn auto_element_wise(
    b: &mut dyn crate::autograd::Backward,
    tangents: &[Option<Tensor>],
    ctx: &Ctx,
) -> Result<Vec<Option<Tensor>>> {
    let mut total: Option<Tensor> = None;
    for (i, t) in tangents.iter().enumerate() {
        let Some(t) = t else { continue };
        let Some(term) = b.apply(&[Some(t.clone())], ctx)?.swap_remove(i) else {
            continue;
        };
        total = Some(match total {
            None => term,
            Some(acc) => add(&acc, term)?,
        });
    }
    Ok(vec![total])
}

/// A reduction's tangent: its backward given ones is each input element's partial
/// derivative; the tangent is their tangent-weighted sum over the reduced dims.
fn reduction_jvp(
    b: &mut dyn crate::autograd::Backward,
    tangents: &[Option<Tensor>],
    ctx: &Ctx,
    out: &Tensor,
    dims: &[usize],
    keepdim: bool,
) -> Result<Vec<Option<Tensor>>> {
    let Some(t) = &tangents[0] else {
        return Ok(vec![None]);
    };
    let ones = Tensor::full_on(
        &out.shape(),
        crate::dtype::Scalar::Int(1),
        out.dtype(),
        out.device(),
    );
    let Some(partials) = b.apply(&[Some(ones)], ctx)?.swap_remove(0) else {
        return Ok(vec![None]);
    };
    let dims: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
    let weighted = crate::ops::arithmetic::mul(&partials, t.clone())?;
    Ok(vec![Some(crate::ops::reduce::sum(
        &weighted,
        Some(&dims),
        keepdim,
    )?)])
}

fn tangent_error(msg: String) -> Error {
    Error::Runtime(msg)
}

/// `_make_dual(tensor, tangent, level)`: a view of `tensor` whose tangent is `tangent`.
pub fn make_dual(primal: &Tensor, tangent_in: &Tensor, level: i64) -> Result<Tensor> {
    if level != 0 || !fw::level_live() {
        return Err(Error::Runtime("Invalid level given to _make_dual".into()));
    }
    if tangent(primal).is_some() {
        return Err(Error::Runtime(
            "Making a dual Tensor based on a Tensor that already has a forward gradient at the same level 0 is not supported."
                .into(),
        ));
    }
    let (ps, ts) = (primal.shape(), tangent_in.shape());
    if ps != ts {
        return Err(tangent_error(format!(
            "Trying to set a forward gradient that has a different size than that of the original Tensor, this is not supported. Tensor is of size {} while the given forward gradient is of size {}.",
            list_repr(&ps),
            list_repr(&ts)
        )));
    }
    if primal.device() != tangent_in.device() {
        return Err(tangent_error(format!(
            "Trying to set a forward gradient that has a different device than that of the original Tensor, this is not supported. Tensor is of device {} while the given forward gradient is of device {}.",
            primal.device().name(),
            tangent_in.device().name()
        )));
    }
    install();
    let layout = primal.read().layout.clone();
    let dual = crate::ops::inplace::new_view(primal, layout);
    fw::set_standalone(&dual);
    // A tangent laid out as the primal is kept as is (so it is the same tensor `unpack_dual`
    // returns); any other is copied.
    let same_meta = {
        let (v, d) = (tangent_in.read(), dual.read());
        same_layout(&v.layout, &d.layout) && v.storage.len() == d.storage.len()
    };
    if same_meta {
        fw::store_tangent(&dual, Some(tangent_in.clone()));
    } else {
        set_tangent(&dual, tangent_in, false)?;
    }
    record_alias(&dual, primal, "ViewBackward0");
    Ok(dual)
}

/// Record `out` (an alias of `input`) as differentiable: the gradient passes through.
fn record_alias(out: &Tensor, input: &Tensor, name: &'static str) {
    if is_grad_enabled() && input.requires_grad() {
        crate::autograd::record_formula(out.clone(), &[input], name, vec![], |g, _| {
            Ok(vec![Some(g.clone())])
        });
    }
}

/// `_unpack_dual(tensor, level)`: (a view of the primal without tangent, the tangent).
pub fn unpack_dual(t: &Tensor, level: i64) -> Result<(Tensor, Option<Tensor>)> {
    // With forward grad disabled (a custom Function's forward) nothing has a tangent; a level
    // is checked only against a tensor that has one (as PyTorch).
    let tan = if fw::enabled() { tangent(t) } else { None };
    if tan.is_some() && level != 0 {
        return Err(Error::Runtime("Invalid level given to _fw_primal".into()));
    }
    let primal = {
        let _off = Suspend::new();
        let layout = t.read().layout.clone();
        let p = crate::ops::inplace::new_view(t, layout);
        fw::set_standalone(&p);
        record_alias(&p, t, "AliasBackward0");
        p
    };
    Ok((primal, tan))
}

/// A contiguous copy of a tangent (for formulas that must not alias their input's).
pub fn fresh(t: &Tensor) -> Tensor {
    contiguous_clone(t)
}
