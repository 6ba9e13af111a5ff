//! Comparisons (PyTorch's "comparison ops"): eq, ne, lt, le, gt, ge (bool masks, no
//! gradient), `equal`, and maximum / minimum; the kernels are declared in
//! `ops/binary_kernels_decl.rs`.

use crate::autograd::formula::describe;
use crate::autograd::{needs_grad, record_formula_jvp, Jvp, SavedTensor};
use crate::dtype::{result_type, DType};
use crate::error::{Error, Result};
use crate::kernels;
use crate::kernels::zip;
use crate::ops::arithmetic::mul;
use crate::ops::binary_kernels::{materialize, promoted};
pub use crate::ops::binary_kernels_decl::{CmpOp, ExtremumOp};
use crate::ops::creation::narrow;
use crate::ops::where_::where_;
use crate::ops::Operand;
use crate::tensor::shape::broadcast_shapes;
use crate::tensor::Tensor;

/// Comparisons: bool results, no gradient.
/// `gradrs.equal(a, b)`: the same size and the same values, compared as `eq` compares them
/// (in the promoted dtype; NaN equals nothing); tensors on different devices raise.
pub fn equal(a: &Tensor, b: &Tensor) -> Result<bool> {
    if a.device() != b.device() {
        return Err(Error::Runtime(format!(
            "Cannot compare two tensors on different devices. Got: {} and {}",
            a.device().name(),
            b.device().name()
        )));
    }
    if a.shape() != b.shape() {
        return Ok(false);
    }
    let _no_grad = crate::autograd::GradModeGuard::new(false);
    let same = compare(
        CmpOp::Eq,
        Operand::Tensor(a.clone()),
        Operand::Tensor(b.clone()),
    )?;
    Ok(same.to_vec::<bool>().into_iter().all(|v| v))
}

pub fn compare(op: CmpOp, a: Operand, b: Operand) -> Result<Tensor> {
    let dtype = result_type(&[a.participant(), b.participant()]);
    let (ta, tb) = (materialize(&a, dtype), materialize(&b, dtype));
    let shape = broadcast_shapes(&ta.shape(), &tb.shape())?;
    let int = op
        .wgsl_int()
        .expect("comparisons declare an integer expression");
    kernels::compare(op.wgsl(), int, &ta, &tb, &shape, |a, b, shape| {
        op.zip_any(dtype, a, b, shape)
    })
}

/// `a == b` (`b` a tensor or a number), a bool mask.
pub fn eq(a: &Tensor, b: impl Into<Operand>) -> Result<Tensor> {
    compare(CmpOp::Eq, a.into(), b.into())
}
/// `a != b`.
pub fn ne(a: &Tensor, b: impl Into<Operand>) -> Result<Tensor> {
    compare(CmpOp::Ne, a.into(), b.into())
}
/// `a < b`.
pub fn lt(a: &Tensor, b: impl Into<Operand>) -> Result<Tensor> {
    compare(CmpOp::Lt, a.into(), b.into())
}
/// `a <= b`.
pub fn le(a: &Tensor, b: impl Into<Operand>) -> Result<Tensor> {
    compare(CmpOp::Le, a.into(), b.into())
}
/// `a > b`.
pub fn gt(a: &Tensor, b: impl Into<Operand>) -> Result<Tensor> {
    compare(CmpOp::Gt, a.into(), b.into())
}
/// `a >= b`.
pub fn ge(a: &Tensor, b: impl Into<Operand>) -> Result<Tensor> {
    compare(CmpOp::Ge, a.into(), b.into())
}

/// `maximum` (`max`) or `minimum` without autograd, with promotion; NaN propagates.
pub(crate) fn extremum_data(a: &Operand, b: &Operand, max: bool) -> Result<Tensor> {
    let (ta, tb, shape, dtype) = promoted(a, b, false)?;
    let op = if max {
        ExtremumOp::Maximum
    } else {
        ExtremumOp::Minimum
    };
    let out = kernels::binary(op.wgsl(), dtype, &ta, &tb, &shape, |ta, tb, shape| {
        Ok(match ta.dtype() {
            d @ (DType::F32 | DType::F64) => op.zip_float(d, ta, tb, shape)?,
            DType::I64 => zip::<i64, i64>(
                ta,
                tb,
                shape,
                move |p, q| {
                    if max {
                        p.max(q)
                    } else {
                        p.min(q)
                    }
                },
            )?,
            DType::Bool => {
                zip::<bool, bool>(ta, tb, shape, move |p, q| if max { p | q } else { p & q })?
            }
            _ => unreachable!("promoted computes wide"),
        })
    })?;
    Ok(narrow(out, dtype))
}

/// The tangent of a two-operand pick: `t_other + weight * (t_self - t_other)`, a missing
/// tangent counting as zeros (the maximum/minimum and fmax/fmin jvps differ only in `weight`).
fn blend_tangent(
    t: &[Option<Tensor>],
    s: &[Tensor],
    weight: &Tensor,
) -> Result<Vec<Option<Tensor>>> {
    let proto = t.iter().flatten().next().expect("an input has a tangent");
    let zeros = |like: &Tensor| Tensor::zeros_on(&like.shape(), proto.dtype(), proto.device());
    let tx = t[0].clone().unwrap_or_else(|| zeros(&s[0]));
    let ty = t[1].clone().unwrap_or_else(|| zeros(&s[1]));
    let d = crate::ops::arithmetic::sub(&tx, ty.clone())?;
    Ok(vec![Some(crate::ops::arithmetic::add(
        &ty,
        mul(weight, d)?,
    )?)])
}

fn extremum(a: &Tensor, b: &Tensor, max: bool) -> Result<Tensor> {
    let out = extremum_data(&a.into(), &b.into(), max)?;
    if !needs_grad(&[a, b]) {
        return Ok(out);
    }
    let name = if max {
        "MaximumBackward0"
    } else {
        "MinimumBackward0"
    };
    let saved = vec![SavedTensor::input(a)?, SavedTensor::input(b)?];
    let out = record_formula_jvp(
        out,
        &[a, b],
        name,
        saved,
        move |g, s| {
            let (x, y) = (&s[0], &s[1]);
            // Ties split the gradient evenly, as PyTorch does.
            let shared = where_(
                &eq(x, y)?,
                Operand::Tensor(mul(g, 0.5)?),
                Operand::Tensor(g.clone()),
            )?;
            let (lose_a, lose_b) = if max {
                (lt(x, y)?, gt(x, y)?)
            } else {
                (gt(x, y)?, lt(x, y)?)
            };
            Ok(vec![
                Some(where_(&lose_a, 0, &shared)?),
                Some(where_(&lose_b, 0, &shared)?),
            ])
        },
        Jvp::of(move |t, s| {
            // PyTorch's: t_other + where(x == y, 0.5, x > y) (t_self - t_other) (x < y for min).
            let (x, y) = (&s[0], &s[1]);
            let pick = if max { gt(x, y)? } else { lt(x, y)? };
            let w = where_(
                &eq(x, y)?,
                Operand::Scalar(crate::dtype::Scalar::Float(0.5)),
                Operand::Tensor(pick),
            )?;
            blend_tangent(t, s, &w)
        }),
    );
    describe(&out, &["self", "other"], Vec::new());
    Ok(out)
}
pub fn maximum(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    extremum(a, b, true)
}
pub fn minimum(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    extremum(a, b, false)
}

/// `fmax` / `fmin`: the extremum where neither is NaN, else the other operand (NaN only
/// where both are), as PyTorch's; FmaxBackward0 sends the gradient to the picked operand.
pub fn fextremum(a: &Tensor, b: &Tensor, max: bool) -> Result<Tensor> {
    let out = {
        let _g = crate::autograd::GradModeGuard::new(false);
        let m = extremum_data(&a.into(), &b.into(), max)?;
        if m.dtype().is_floating_point() {
            let m = where_(&ne(a, a)?, b, &m)?;
            where_(&ne(b, b)?, a, &m)?
        } else {
            m
        }
    };
    if !needs_grad(&[a, b]) {
        return Ok(out);
    }
    let name = if max {
        "FmaxBackward0"
    } else {
        "FminBackward0"
    };
    let saved = vec![SavedTensor::input(a)?, SavedTensor::input(b)?];
    let out = record_formula_jvp(
        out,
        &[a, b],
        name,
        saved,
        move |g, s| {
            let (x, y) = (&s[0], &s[1]);
            // PyTorch's: self's gradient where (self >= other) | isnan(other), the rest to other.
            let pick = if max { ge(x, y)? } else { le(x, y)? };
            let keep = crate::ops::logical::logical(&pick, &ne(y, y)?, "or")?;
            Ok(vec![
                Some(where_(&crate::ops::logical::logical_not(&keep)?, 0, g)?),
                Some(where_(&keep, 0, g)?),
            ])
        },
        Jvp::of(move |t, s| {
            // PyTorch's: t_other + ((x > y) | isnan(y)) * (t_self - t_other) (x <= y for fmin):
            // a product, so a NaN or inf tangent on the side not taken still propagates.
            let (x, y) = (&s[0], &s[1]);
            let pick = if max { gt(x, y)? } else { le(x, y)? };
            let keep = crate::ops::logical::logical(&pick, &ne(y, y)?, "or")?;
            blend_tangent(t, s, &keep)
        }),
    );
    describe(&out, &["self", "other"], Vec::new());
    Ok(out)
}
