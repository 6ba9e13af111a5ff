//! Advanced (tensor) indexing `index` (IndexBackward0), and `x[key]` / `x[key] = v` as
//! `IndexStep`s: basic steps as views, tensor steps one advanced index, writes through
//! CopySlices / IndexPutBackward0.

use super::{index_add, index_select, index_values, is_index_dtype};
use crate::autograd::formula::describe;
use crate::autograd::saved::Value;
use crate::autograd::{needs_grad, record_formula_jvp, Jvp, SavedTensor};
use crate::dtype::Scalar;
use crate::error::{Error, Result};
use crate::kernels;
use crate::ops::creation::{cast_data, contiguous_clone};
use crate::ops::movement::{expand, reshape};
use crate::ops::reduce::sum_to;
use crate::ops::Operand;
use crate::tensor::shape::{broadcast_shapes, sizes_i64};
use crate::tensor::{Device, Tensor};

/// Advanced indexing `x[..., idx_a, idx_b, ...]`: integer index tensors (broadcast together)
/// at the given dims. As NumPy/PyTorch: when the indexed dims are adjacent the result's index
/// dims replace them in place, otherwise they go first. IndexBackward0 adds the gradient back.
pub fn index(x: &Tensor, indices: &[(usize, Tensor)]) -> Result<Tensor> {
    let xs = x.shape();
    let nd = xs.len();
    let mut bshape = crate::tensor::shape::Shape::new();
    for (_, t) in indices {
        if !is_index_dtype(t.dtype()) {
            return Err(Error::Index(
                "tensors used as indices must be long, int, byte or bool tensors".into(),
            ));
        }
        bshape = broadcast_shapes(&bshape, &t.shape()).map_err(|_| {
            Error::Index(format!(
                "shape mismatch: indexing tensors could not be broadcast together with shapes {}",
                indices
                    .iter()
                    .map(|(_, t)| crate::tensor::shape::list_repr(&t.shape()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?;
    }
    let dims: Vec<usize> = indices.iter().map(|(d, _)| *d).collect();
    let adjacent = dims.windows(2).all(|w| w[1] == w[0] + 1);
    let rest: Vec<usize> = (0..nd).filter(|d| !dims.contains(d)).collect();
    // Linear index into the indexed dims, row-major.
    let bsizes = sizes_i64(&bshape);
    let nb: usize = bshape.iter().product();
    let mut linear = vec![0i64; nb];
    for (d, t) in indices {
        let size = xs[*d];
        let v = index_values(&expand(&t.detach(), &bsizes)?);
        for (l, &i) in linear.iter_mut().zip(&v) {
            let w = if i < 0 { i + size as i64 } else { i };
            if w < 0 || w >= size as i64 {
                return Err(Error::Index(format!(
                    "index {i} is out of bounds for dimension {d} with size {size}"
                )));
            }
            *l = *l * size as i64 + w;
        }
    }
    let linear = Tensor::from_vec_on(linear, &[nb], x.device());
    let perm: Vec<i64> = dims.iter().chain(rest.iter()).map(|&d| d as i64).collect();
    let adv: i64 = dims.iter().map(|&d| xs[d] as i64).product();
    let rest_sizes: Vec<i64> = rest.iter().map(|&d| xs[d] as i64).collect();
    let mut flat_shape = vec![adv];
    flat_shape.extend(&rest_sizes);
    let mut out_shape = bsizes.clone();
    out_shape.extend(&rest_sizes);
    // Where the broadcast index dims end up.
    let first = if adjacent { dims[0] } else { 0 };
    let nbd = bshape.len();
    let to_front = |t: &Tensor| -> Result<Tensor> {
        if first == 0 {
            return Ok(t.clone());
        }
        // [B.., rest..] <-> [rest[..first], B.., rest[first..]]
        let total = nbd + rest.len();
        let mut order: Vec<i64> = Vec::with_capacity(total);
        order.extend((nbd..nbd + first).map(|i| i as i64));
        order.extend((0..nbd).map(|i| i as i64));
        order.extend((nbd + first..total).map(|i| i as i64));
        crate::ops::movement::permute(t, &order)
    };
    let out = {
        let _g = crate::autograd::GradModeGuard::new(false);
        let xp = reshape(
            &contiguous_clone(&crate::ops::movement::permute(x, &perm)?),
            &flat_shape,
        )?;
        let picked = reshape(&index_select(&xp, 0, &linear)?, &out_shape)?;
        contiguous_clone(&to_front(&picked)?)
    };
    if !needs_grad(&[x]) {
        return Ok(out);
    }
    let mut inv_perm = vec![0i64; nd];
    for (i, &p) in perm.iter().enumerate() {
        inv_perm[p as usize] = i as i64;
    }
    let permuted_shape: Vec<i64> = perm.iter().map(|&d| xs[d as usize] as i64).collect();
    let dtype_shape = xs.clone();
    let idx_t = indices.to_vec();
    // PyTorch's `_saved_indices` (None for a dim not indexed, up to the last indexed one) and
    // `_saved_self_sym_sizes`; the formula reads neither.
    let last = indices.iter().map(|(d, _)| *d).max().unwrap_or(0);
    let mut saved: Vec<SavedTensor> = (0..=last).map(|_| SavedTensor::nothing()).collect();
    for (d, t) in indices {
        // version-checked, not through the saved-tensor hooks (compositions such as
        // F.embedding index inside a node of their own, which packs the indices once)
        saved[*d] = SavedTensor::input_unhooked(t);
    }
    const STARS: [&str; 64] = ["*indices"; 64];
    let names: &'static [&'static str] = &STARS[..saved.len().min(64)];
    saved.truncate(names.len());
    let sizes = Value::Ints(xs.iter().map(|&s| s as i64).collect());
    let out = record_formula_jvp(
        out,
        &[x],
        "IndexBackward0",
        saved,
        move |g, _| {
            let gb = to_front_inverse(g, first, nbd, rest.len())?;
            let mut gflat_shape = vec![nb as i64];
            gflat_shape.extend(&rest_sizes);
            let gflat = reshape(&gb, &gflat_shape)?;
            let zeros = Tensor::zeros_on(
                &flat_shape.iter().map(|&s| s as usize).collect::<Vec<_>>(),
                g.dtype(),
                g.device(),
            );
            let acc = index_add(&zeros, 0, &linear, &gflat, Scalar::Int(1))?;
            let back = reshape(&acc, &permuted_shape)?;
            let gi = crate::ops::movement::permute(&back, &inv_perm)?;
            debug_assert_eq!(gi.shape(), dtype_shape);
            Ok(vec![Some(gi)])
        },
        Jvp::linear(move |t| index(t, &idx_t)),
    );
    describe(&out, names, vec![("self_sym_sizes", sizes)]);
    Ok(out)
}

/// Move the broadcast index dims from position `first` back to the front.
fn to_front_inverse(g: &Tensor, first: usize, nbd: usize, nrest: usize) -> Result<Tensor> {
    if first == 0 {
        return Ok(g.clone());
    }
    let total = nbd + nrest;
    let mut order: Vec<i64> = Vec::with_capacity(total);
    order.extend((first..first + nbd).map(|i| i as i64));
    order.extend((0..first).map(|i| i as i64));
    order.extend((first + nbd..total).map(|i| i as i64));
    crate::ops::movement::permute(g, &order)
}

/// One entry of a `__getitem__`/`__setitem__` key, Ellipsis already expanded.
#[derive(Clone, Debug)]
pub enum IndexStep {
    Select(i64),
    Slice(Option<i64>, Option<i64>, i64),
    NewAxis,
    /// A dim kept whole (`...` or `:` in a tuple key): no view op.
    Whole,
    /// An int64 index tensor (a bool mask arrives as one of these per masked dim).
    Tensor(Tensor),
    /// A 0-dim bool (`x[True]`, `x[False]`, a 0-dim mask): as PyTorch's `boolToIndexingTensor`,
    /// a new axis of size 1 indexed by `[0]` (true) or `[]` (false), an advanced index.
    Bool(bool),
}

impl IndexStep {
    /// Whether the step is an advanced (tensor) index: the key then copies, not views.
    pub fn is_advanced(&self) -> bool {
        matches!(self, IndexStep::Tensor(_) | IndexStep::Bool(_))
    }
}

/// PyTorch's check on `x[key]` and `x[key] = v`: index tensors on the CPU or on `x`'s device.
pub fn check_index_devices(x: &Tensor, steps: &[IndexStep]) -> Result<()> {
    let dev = x.device();
    let ok = |t: &Tensor| t.device() == Device::Cpu || t.device() == dev;
    if steps
        .iter()
        .all(|s| !matches!(s, IndexStep::Tensor(t) if !ok(t)))
    {
        return Ok(());
    }
    Err(Error::Index(format!(
        "indices should be either on cpu or on the same device as the indexed tensor ({})",
        dev.name()
    )))
}

/// `x[key]`: basic steps become views (select/slice/unsqueeze), tensor steps one advanced index.
pub fn getitem(x: &Tensor, steps: &[IndexStep]) -> Result<Tensor> {
    let (cur, adv) = basic_view(x, steps)?;
    if adv.is_empty() {
        // `x[...]` / `x[:]` still return a new view object, as in PyTorch.
        if cur.ptr_eq(x) {
            return crate::ops::movement::view_as_alias(x);
        }
        return Ok(cur);
    }
    index(&cur, &adv)
}

/// The basic steps of a key applied as views (x itself when there are none), and the tensor
/// steps with the dims of that view they index.
pub fn basic_view(x: &Tensor, steps: &[IndexStep]) -> Result<(Tensor, Vec<(usize, Tensor)>)> {
    let mut cur = x.clone();
    let mut dim = 0usize;
    let mut adv: Vec<(usize, Tensor)> = Vec::new();
    for s in steps {
        match s {
            IndexStep::Select(i) => {
                cur = crate::ops::slicing::select(&cur, dim as i64, *i)?;
            }
            IndexStep::Slice(a, b, st) => {
                cur = crate::ops::slicing::slice(&cur, dim as i64, *a, *b, *st)?;
                dim += 1;
            }
            IndexStep::NewAxis => {
                cur = crate::ops::movement::unsqueeze(&cur, dim as i64)?;
                dim += 1;
            }
            IndexStep::Whole => dim += 1,
            IndexStep::Tensor(t) => {
                adv.push((dim, t.clone()));
                dim += 1;
            }
            IndexStep::Bool(b) => {
                cur = crate::ops::movement::unsqueeze(&cur, dim as i64)?;
                let at: Vec<i64> = if *b { vec![0] } else { Vec::new() };
                let n = at.len();
                adv.push((dim, Tensor::from_vec(at, &[n])));
                dim += 1;
            }
        }
    }
    Ok((cur, adv))
}

/// `x[key] = value` with autograd, as PyTorch runs it: the basic steps make a view, and the
/// write goes into that view (copy, or index_put_ for tensor steps) — so a write through a
/// view rebases x's history (CopySlices), a write into x itself is CopyBackwards /
/// IndexPutBackward0.
pub fn setitem_(x: &Tensor, steps: &[IndexStep], value: Operand) -> Result<()> {
    let (view, adv) = basic_view(x, steps)?;
    let rest: Vec<IndexStep> = (0..view.dim())
        .map(|d| match adv.iter().find(|(ad, _)| *ad == d) {
            Some((_, t)) => IndexStep::Tensor(t.clone()),
            None => IndexStep::Whole,
        })
        .collect();
    let others = value.as_tensor().is_some_and(|t| t.requires_grad());
    crate::ops::inplace::apply_(&view, others, |v| setitem(v, &rest, value))
}

/// Storage offsets of `x`'s elements, as an int64 tensor of its shape.
fn offsets_of(x: &Tensor) -> Tensor {
    Tensor::from_vec(kernels::offsets(x), &x.shape())
}

/// Write `value` (broadcast) into `x[key]` in `x`'s memory, without autograd.
pub fn setitem_data(x: &Tensor, steps: &[IndexStep], value: &Operand) -> Result<()> {
    x.check_inplace_version()?;
    let _g = crate::autograd::GradModeGuard::new(false);
    let advanced = steps.iter().any(IndexStep::is_advanced);
    if kernels::host_reads_back(x) && !advanced {
        // Basic indexing selects a view: the GPU copies the value into it (the offsets would
        // be written from the host).
        let view = getitem(x, steps)?;
        let v = match value {
            Operand::Scalar(s) => Tensor::scalar(*s, x.dtype()),
            Operand::Tensor(t) => t.clone(),
        };
        let vs = v.shape();
        let stripped: Vec<usize> = vs.iter().copied().skip_while(|&s| s == 1).collect();
        let vv = reshape(&v, &sizes_i64(&stripped))?;
        return crate::ops::inplace::write_into(&view, &expand(&vv, &sizes_i64(&view.shape()))?);
    }
    let offs = getitem(&offsets_of(x), steps)?;
    let shape = offs.shape();
    let v = match value {
        Operand::Scalar(s) => Tensor::scalar(*s, x.dtype()),
        Operand::Tensor(t) => cast_data(t, x.dtype()),
    };
    // As PyTorch: the value's leading size-1 dims are dropped, then it is expanded to the
    // indexed region (basic indexing: a copy into the view, with expand's errors; advanced
    // indexing: index_put_, which reports the shapes).
    let vs = v.shape();
    let stripped: Vec<usize> = vs.iter().copied().skip_while(|&s| s == 1).collect();
    if advanced
        && (stripped.len() > shape.len()
            || broadcast_shapes(&stripped, &shape).ok().as_deref() != Some(&shape[..]))
    {
        return Err(Error::Runtime(format!(
            "shape mismatch: value tensor of shape {} cannot be broadcast to indexing result of shape {}",
            crate::tensor::shape::list_repr(&stripped),
            crate::tensor::shape::list_repr(&shape)
        )));
    }
    let offs = offs.to_vec::<i64>();
    let expanded = expand(&reshape(&v, &sizes_i64(&stripped))?, &sizes_i64(&shape))?;
    kernels::put(x, &offs, &shape, &expanded)?;
    x.bump_version();
    Ok(())
}

/// `x[key] = value` out of place, differentiable (CopySlices): the gradient of `x` is zero in
/// the written region; `value` gets the gradient of that region, summed to its shape.
pub fn setitem(x: &Tensor, steps: &[IndexStep], value: Operand) -> Result<Tensor> {
    let out = contiguous_clone(x);
    setitem_data(&out, steps, &value)?;
    let vt = value.as_tensor().cloned();
    let mut inputs = vec![x];
    inputs.extend(vt.as_ref());
    if !needs_grad(&inputs) {
        return Ok(out);
    }
    let steps = steps.to_vec();
    let vshape = vt.as_ref().map(|t| t.shape());
    // A write of the whole tensor is copy_; advanced writes are index_put_ (see setitem_).
    let name = if steps.iter().any(IndexStep::is_advanced) {
        "IndexPutBackward0"
    } else {
        "CopyBackwards"
    };
    let (steps_t, shapes) = (steps.clone(), inputs.iter().map(|t| t.shape()).collect());
    Ok(record_formula_jvp(
        out,
        &inputs,
        name,
        vec![],
        move |g, _| {
            let zero = Operand::Scalar(Scalar::Int(0));
            let mut grads = vec![Some(setitem(g, &steps, zero)?)];
            if let Some(vs) = &vshape {
                let region = getitem(g, &steps)?;
                grads.push(Some(sum_to(&region, vs)?));
            }
            Ok(grads)
        },
        Jvp::linear_n(shapes, move |t| {
            setitem(
                &t[0],
                &steps_t,
                t.get(1).map_or(Operand::Scalar(Scalar::Int(0)), |s| {
                    Operand::Tensor(s.clone())
                }),
            )
        }),
    ))
}
