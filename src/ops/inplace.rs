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
use crate::backend::cpu::{copy, elementwise};
use crate::dtype::pretty_kernel_name;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::arithmetic::{binary, binary_data, compute_dtype, sub_check, BinaryOp};
use crate::ops::binary_kernels::materialize;
use crate::ops::creation::{cast_data, contiguous_clone};
use crate::ops::Operand;
use crate::tensor::{Element, Layout, Tensor};

/// Apply `op` to `dst` in place; `others_need_grad`: whether another operand requires grad.
pub fn apply_(
    dst: &Tensor,
    others_need_grad: bool,
    op: impl FnOnce(&Tensor) -> Result<Tensor>,
) -> Result<()> {
    check_inplace_leaf(dst)?;
    if let Some(base) = dst.view_base() {
        if is_grad_enabled() && base.is_leaf() && base.requires_grad() {
            return Err(Error::Runtime(
                "a view of a leaf Variable that requires grad is being used in an in-place operation."
                    .into(),
            ));
        }
    }
    let tracked = is_grad_enabled() && (dst.requires_grad() || others_need_grad);
    // A recorded node may save its input: give it the values before the write (PyTorch saves
    // a clone of the original self), not memory that is about to change.
    let alias = if tracked {
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
    let result = op(&alias)?;
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
    if result.requires_grad() && is_grad_enabled() {
        match dst.view_base().and_then(|b| region(dst, b).map(|r| (b, r))) {
            Some((base, region)) => {
                copy_slices(base, &result, region);
                refresh_view(dst);
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

/// The base's new history: CopySlices(base, result) = base with `region` replaced by `result`.
fn copy_slices(base: &Tensor, result: &Tensor, region: Layout) {
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
}

/// A view of `of`'s memory with `layout` (every view the ops make comes through here), with
/// `refresh_view` installed in the autograd layer first (Note [View rebase]).
pub fn new_view(of: &Tensor, layout: Layout) -> Tensor {
    crate::autograd::graph::install_view_refresh(refresh_view);
    Tensor::new_view(of, layout)
}

/// Rebuild a view's history from its base if the shared memory was written since its
/// `grad_fn` was made (Note [View rebase]). Cheap for tensors that are not views.
pub fn refresh_view(v: &Tensor) {
    let Some(base) = v.view_base() else { return };
    let version = base.version();
    if v.0.meta.lock().view_version == version || !base.requires_grad() {
        return;
    }
    let Some(region) = region(v, base) else {
        return;
    };
    record_as_strided(v.clone(), base, region);
    v.0.meta.lock().view_version = version;
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
    Ok(record_formula(
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
    ))
}

/// `x.zero_()` / `x.fill_(s)`: ZeroBackward0 / FillBackward2 (the old values get no gradient).
pub fn fill_(dst: &Tensor, s: crate::dtype::Scalar, zero: bool) -> Result<()> {
    if !dst.dtype().is_floating_point() {
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
        Ok(record_formula(out, &[alias], name, vec![], |g, _| {
            Ok(vec![Some(crate::ops::creation::zeros_like(g))])
        }))
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
    if l.shape
        .iter()
        .zip(l.strides.iter())
        .any(|(&n, &s)| n > 1 && s == 0)
    {
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
        Ok(record_formula(out, &[alias, src], name, vec![], |g, _| {
            Ok(vec![
                Some(crate::ops::creation::zeros_like(g)),
                Some(g.clone()),
            ])
        }))
    })
}

// ---- in-place binary ops and writes ---------------------------------------------------------

/// PyTorch's rules for every in-place op: an inference tensor may only be modified inside
/// inference mode, and a leaf that requires grad may not be modified while grad mode is on.
pub fn check_inplace_leaf(dst: &Tensor) -> Result<()> {
    dst.check_inplace_version()?;
    if crate::autograd::is_grad_enabled() && dst.is_leaf() && dst.requires_grad() {
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
    if !crate::autograd::is_grad_enabled() || !(dst.requires_grad() || other.requires_grad()) {
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
        if alias.requires_grad() || other.requires_grad() {
            binary(op, a, other)
        } else {
            let dtype = compute_dtype(op, &a, &other);
            binary_data(op, &a, &other, dtype)
        }
    })
}

/// `dst op= other` written straight into `dst` (no result buffer, no copy back) when nothing
/// is recorded, `dst` is a contiguous CPU float tensor that keeps its dtype, and `other` is a
/// number or a CPU tensor of dst's shape or of one element that does not share its memory
/// (an SGD step, `p -= lr * p.grad`, and gradient accumulation). False: not applicable, the
/// caller takes the general path.
fn float_zip_in_place(op: BinaryOp, dtype: DType, dst: &Tensor, other: &Operand) -> Result<bool> {
    let a = Operand::Tensor(dst.clone());
    if op == BinaryOp::Pow || compute_dtype(op, &a, other) != dtype {
        return Ok(false);
    }
    if op == BinaryOp::Sub {
        sub_check(&a, other)?;
    }
    let b = materialize(other, dtype);
    if dst.device().is_gpu() || b.device().is_gpu() {
        return Ok(false);
    }
    let (d, o) = (dst.read(), b.read());
    let n = d.layout.numel();
    let full = o.layout.shape == d.layout.shape && o.layout.is_contiguous();
    // One element broadcasts to dst's shape only if it has no more dims (else the general
    // path raises PyTorch's shape error).
    let one = o.layout.numel() == 1 && o.layout.shape.len() <= d.layout.shape.len();
    if !d.layout.is_contiguous() || !(full || one) || overlaps(&d.storage, &o.storage) {
        return Ok(false);
    }
    fn parts<'a, T: Element>(
        d: &'a crate::tensor::Data,
        o: &'a crate::tensor::Data,
        n: usize,
        full: bool,
    ) -> (&'a mut [T], elementwise::Src<'a, T>) {
        let out = &mut d.storage.slice_mut::<T>()[d.layout.offset..d.layout.offset + n];
        let ys = o.storage.slice::<T>();
        let src = if full {
            elementwise::Src::Full(&ys[o.layout.offset..o.layout.offset + n])
        } else {
            elementwise::Src::One(ys[o.layout.offset])
        };
        (out, src)
    }
    // The declared kernel `float_zip` runs, so results are bit-identical to the general path.
    match dtype {
        DType::F32 => {
            let (out, src) = parts::<f32>(&d, &o, n, full);
            op.in_place_f32(out, src);
        }
        DType::F64 => {
            let (out, src) = parts::<f64>(&d, &o, n, full);
            op.in_place_f64(out, src);
        }
        _ => unreachable!("float dtypes only"),
    }
    d.storage.bump_version();
    Ok(true)
}

/// `a.add_(b)` without autograd (gradient accumulation).
pub fn add_(dst: &Tensor, src: &Tensor) -> Result<()> {
    let _g = crate::autograd::GradModeGuard::new(false);
    binary_(BinaryOp::Add, dst, src.into())
}

/// Whether two storages' memory overlaps (views, and `.data` aliases, share memory).
pub(crate) fn overlaps(a: &crate::tensor::Storage, b: &crate::tensor::Storage) -> bool {
    let range = |s: &crate::tensor::Storage| {
        let start = s.data_ptr() as usize;
        (start, start + s.len() * s.dtype().itemsize())
    };
    let ((a0, a1), (b0, b1)) = (range(a), range(b));
    a0 < b1 && b0 < a1
}

/// Copy `src` (same shape) into `dst`'s memory, casting, and bump `dst`'s version.
pub fn write_into(dst: &Tensor, src: &Tensor) -> Result<()> {
    dst.check_inplace_version()?;
    if dst.device().is_gpu() {
        // A source sharing dst's memory is copied out first (the kernel binds two buffers).
        let src = if overlaps(&src.read().storage, &dst.read().storage) {
            contiguous_clone(src)
        } else {
            src.clone()
        };
        if crate::kernels::write_into(dst, &src)? {
            dst.read().storage.bump_version();
            return Ok(());
        }
    }
    // Values to write, read straight from `src` when it has dst's dtype, is contiguous and
    // does not share dst's memory (an in-place op's fresh result); else a contiguous copy.
    let direct = src.dtype() == dst.dtype() && {
        let (s, d) = (src.read(), dst.read());
        s.layout.is_contiguous() && !overlaps(&s.storage, &d.storage)
    };
    let src = if direct {
        src.clone()
    } else if src.dtype() != dst.dtype() {
        cast_data(src, dst.dtype())
    } else {
        contiguous_clone(src)
    };
    let (s, d) = (src.read(), dst.read());
    crate::dispatch!(d.dtype(), T => {
        let n = s.layout.numel();
        let values = &s.storage.slice::<T>()[s.layout.offset..s.layout.offset + n];
        copy::scatter_into::<T>(d.storage.slice_mut::<T>(), &d.layout, values);
    });
    d.storage.bump_version();
    Ok(())
}
