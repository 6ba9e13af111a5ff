//! gather / scatter / scatter_add along a dim (GatherBackward0, ScatterBackward0 / 1,
//! ScatterAddBackward0: each the dual of the other), and take_along_dim.

use super::check_index;
use crate::autograd::formula::describe;
use crate::autograd::graph::Value;
use crate::autograd::{needs_grad, record_formula_jvp, Jvp, SavedTensor};
use crate::dtype::{DType, Scalar};
use crate::error::{Error, Result};
use crate::kernels;
use crate::ops::creation::contiguous_clone;
use crate::ops::movement::{expand, reshape};
use crate::ops::Operand;
use crate::tensor::device::check_args;
use crate::tensor::shape::{broadcast_shapes, sizes_i64, wrap_dim};
use crate::tensor::Tensor;

/// gather/scatter need the index to fit inside `x` (and `src`) in every dim but `dim`.
fn check_gather_shapes(x: &Tensor, index: &Tensor, dim: usize, op: &str) -> Result<()> {
    let (xs, is) = (x.shape(), index.shape());
    if xs.len().max(1) != is.len().max(1) {
        return Err(Error::Runtime(format!(
            "Index tensor must have the same number of dimensions as {} tensor",
            if op == "gather" { "input" } else { "self" }
        )));
    }
    for d in 0..is.len() {
        if d != dim && is[d] > xs.get(d).copied().unwrap_or(1) {
            return Err(Error::Runtime(format!(
                "Size does not match at dimension {d} expected index {} to be no larger than self {} apart from dimension {dim}",
                crate::tensor::shape::list_repr(&is),
                crate::tensor::shape::list_repr(&xs)
            )));
        }
    }
    Ok(())
}

pub(super) fn gather_data(x: &Tensor, dim: usize, index: &Tensor) -> Result<Tensor> {
    let idx = check_index(index, "gather")?;
    check_gather_shapes(x, index, dim, "gather")?;
    if x.dim() == 0 {
        // A 0-dim tensor gathers from itself (index 0 or -1 only).
        let x1 = reshape(&x.detach(), &[1])?;
        let i1 = reshape(&index.detach(), &[-1])?;
        let r = gather_data(&x1, 0, &i1)?;
        return reshape(&r, &sizes_i64(&index.shape()));
    }
    kernels::gather(x, dim, index, Some(&idx), None)
}

/// `x.gather(dim, index)`: GatherBackward0 scatters the gradient back (adding duplicates).
pub fn gather(x: &Tensor, dim: i64, index: &Tensor) -> Result<Tensor> {
    check_args("gather", &[("self", Some(x)), ("index", Some(index))])?;
    let given = dim;
    let dim = wrap_dim(dim, x.dim())?;
    let out = gather_data(x, dim, index)?;
    if !needs_grad(&[x]) {
        return Ok(out);
    }
    let shape = x.shape();
    // PyTorch keeps `self` too (its formula reads only its shape).
    let saved = vec![SavedTensor::input(index)?, SavedTensor::input(x)?];
    let index_t = index.clone();
    let out = record_formula_jvp(
        out,
        &[x],
        "GatherBackward0",
        saved,
        move |g, s| {
            let zeros = Tensor::zeros_on(&shape, g.dtype(), g.device());
            Ok(vec![Some(scatter_add(&zeros, dim as i64, &s[0], g)?)])
        },
        Jvp::linear(move |t| gather(t, dim as i64, &index_t)),
    );
    describe(
        &out,
        &["index", "self"],
        vec![
            ("dim", Value::Int(given)),
            ("sparse_grad", Value::Bool(false)),
        ],
    );
    Ok(out)
}

/// Out-of-place scatter: `x` with `src` written (or added) at `index` along `dim`.
pub(super) fn scatter_data(
    x: &Tensor,
    dim: usize,
    index: &Tensor,
    src: &Operand,
    accumulate: bool,
) -> Result<Tensor> {
    let idx = check_index(index, "scatter")?;
    check_gather_shapes(x, index, dim, "scatter")?;
    let ishape = index.shape();
    let dtype = x.dtype();
    if let Operand::Tensor(s) = src {
        if s.dtype() != dtype {
            return Err(Error::Runtime(
                "scatter(): Expected self.dtype to be equal to src.dtype".into(),
            ));
        }
        let ss = s.shape();
        let (sd, id) = (ss.len(), ishape.len());
        // (A 0-dim index or src counts as any shape.)
        if sd != id && id > 0 && sd > 0 {
            // PyTorch reads src's size along each of index's dims first.
            if sd < id {
                return Err(Error::Index(format!(
                    "Dimension out of range (expected to be in range of [-{sd}, {}], but got {sd})",
                    sd - 1
                )));
            }
            return Err(Error::Runtime(
                "Index tensor must have the same number of dimensions as src tensor".into(),
            ));
        }
        for dd in 0..ishape.len() {
            if ishape[dd] > ss.get(dd).copied().unwrap_or(1) {
                return Err(Error::Runtime(format!(
                    "Expected index {} to be no larger than src {} apart from dimension {dim}",
                    crate::tensor::shape::list_repr(&ishape),
                    crate::tensor::shape::list_repr(&ss)
                )));
            }
        }
    }
    let out = contiguous_clone(x);
    kernels::scatter(&out, dim, index, Some(&idx), None, src, accumulate)?;
    Ok(out)
}

/// `x.scatter(dim, index, src)`: ScatterBackward0 (tensor src) / ScatterBackward1 (number).
pub fn scatter(x: &Tensor, dim: i64, index: &Tensor, src: Operand) -> Result<Tensor> {
    let method = if src.as_tensor().is_some() {
        "scatter_src"
    } else {
        "scatter_value"
    };
    check_args(
        method,
        &[
            ("self", Some(x)),
            ("index", Some(index)),
            ("src", src.as_tensor()),
        ],
    )?;
    let given = dim;
    let dim = wrap_dim(dim, x.dim())?;
    let out = scatter_data(x, dim, index, &src, false)?;
    let src_t = src.as_tensor().cloned();
    let mut inputs = vec![x];
    inputs.extend(src_t.as_ref());
    if !needs_grad(&inputs) {
        return Ok(out);
    }
    let saved = vec![SavedTensor::input(index)?];
    let has_src = src_t.is_some();
    let src_shape = src_t.as_ref().map(|t| t.shape()).unwrap_or_default();
    let name = if has_src {
        "ScatterBackward0"
    } else {
        "ScatterBackward1"
    };
    let (index_t, shapes) = (index.clone(), inputs.iter().map(|t| t.shape()).collect());
    let out = record_formula_jvp(
        out,
        &inputs,
        name,
        saved,
        move |g, s| {
            let (d, index) = (dim as i64, &s[0]);
            let zero = Operand::Scalar(Scalar::Int(0));
            let mut grads = vec![Some(scatter(g, d, index, zero)?)];
            if has_src {
                grads.push(Some(pad_to(&gather(g, d, index)?, &src_shape)?));
            }
            Ok(grads)
        },
        Jvp::linear_n(shapes, move |t| {
            scatter(
                &t[0],
                dim as i64,
                &index_t,
                t.get(1).map_or(Operand::Scalar(Scalar::Int(0)), |s| {
                    Operand::Tensor(s.clone())
                }),
            )
        }),
    );
    describe(&out, &["index"], vec![("dim", Value::Int(given))]);
    Ok(out)
}

/// `x.scatter_add(dim, index, src)`: ScatterAddBackward0.
pub fn scatter_add(x: &Tensor, dim: i64, index: &Tensor, src: &Tensor) -> Result<Tensor> {
    check_args(
        "scatter_add",
        &[
            ("self", Some(x)),
            ("index", Some(index)),
            ("src", Some(src)),
        ],
    )?;
    let given = dim;
    let dim = wrap_dim(dim, x.dim())?;
    let out = scatter_data(x, dim, index, &Operand::Tensor(src.clone()), true)?;
    if !needs_grad(&[x, src]) {
        return Ok(out);
    }
    let src_shape = src.shape();
    // The index is kept only for src's gradient (self's is the incoming one), as PyTorch.
    let src_saved = src.requires_grad();
    let saved = if src_saved {
        vec![SavedTensor::input(index)?]
    } else {
        Vec::new()
    };
    let (index_t, shapes) = (index.clone(), vec![x.shape(), src.shape()]);
    let out = record_formula_jvp(
        out,
        &[x, src],
        "ScatterAddBackward0",
        saved,
        move |g, s| {
            let Some(index) = s.first() else {
                return Ok(vec![Some(g.clone()), None]);
            };
            Ok(vec![
                Some(g.clone()),
                Some(pad_to(&gather(g, dim as i64, index)?, &src_shape)?),
            ])
        },
        Jvp::linear_n(shapes, move |t| {
            scatter_add(&t[0], dim as i64, &index_t, &t[1])
        }),
    );
    let mut values = vec![("dim", Value::Int(given))];
    if !src_saved {
        values.push(("index", Value::Unsaved));
    }
    describe(&out, &["index"], values);
    Ok(out)
}

/// `t` zero-padded at the end of each dim up to `shape` (a src larger than its index gets
/// zero gradient outside the index's extent).
fn pad_to(t: &Tensor, shape: &[usize]) -> Result<Tensor> {
    let mut cur = t.clone();
    for (d, &want) in shape.iter().enumerate() {
        let have = cur.shape()[d];
        if have < want {
            let mut zshape = cur.shape().to_vec();
            zshape[d] = want - have;
            let zeros = Tensor::zeros_on(&zshape, cur.dtype(), cur.device());
            cur = crate::ops::shape::cat(&[cur, zeros], d as i64)?;
        }
    }
    Ok(cur)
}

/// `take_along_dim(x, indices, dim)`: gather after broadcasting all but `dim`; without a dim,
/// indices into the flattened tensor.
pub fn take_along_dim(x: &Tensor, indices: &Tensor, dim: Option<i64>) -> Result<Tensor> {
    let Some(dim) = dim else {
        return gather(&reshape(x, &[-1])?, 0, &reshape(indices, &[-1])?);
    };
    let nd = x.dim();
    if indices.dim() != nd {
        return Err(Error::Runtime(format!(
            "torch.take_along_dim(): input and indices should have the same number of dimensions, but got {nd} dimensions for input, and {} dimensions for indices",
            indices.dim()
        ).replace("torch.", "gradrs.")));
    }
    if indices.dtype() != DType::I64 {
        return Err(Error::Runtime(format!(
            "gradrs.take_along_dim(): dtype of indices should be Long but got {}",
            crate::dtype::pretty_kernel_name(indices.dtype())
        )));
    }
    let d = wrap_dim(dim, nd)?;
    let (mut xs, mut is) = (x.shape().to_vec(), indices.shape().to_vec());
    xs[d] = 1;
    is[d] = 1;
    let b = broadcast_shapes(&xs, &is)?;
    let (mut xt, mut it) = (sizes_i64(&b), sizes_i64(&b));
    xt[d] = x.shape()[d] as i64;
    it[d] = indices.shape()[d] as i64;
    // PyTorch 2.13 takes the indices modulo the dim's size (Python's `%`: -1 is the last,
    // 3 of 3 the first; a dim of size 0 raises "ZeroDivisionError") before its gather.
    let size = Scalar::Int(x.shape()[d] as i64);
    let is = expand(indices, &it)?;
    let wrapped = if is.numel() == 0 {
        is
    } else {
        crate::ops::divmod::remainder(&is, size.into())?
    };
    gather(&expand(x, &xt)?, d as i64, &wrapped)
}
