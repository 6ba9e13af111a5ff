//! Masks: masked_fill (MaskedFillBackward0 / 1), masked_select, nonzero.

use super::scatter;
use crate::autograd::formula::describe;
use crate::autograd::{needs_grad, record_formula_jvp, Jvp, SavedTensor};
use crate::dtype::{DType, Scalar};
use crate::error::{Error, Result};
use crate::kernels;
use crate::ops::creation::{cast_data, contiguous_clone};
use crate::ops::movement::{expand, reshape};
use crate::ops::reduce::{sum, sum_to};
use crate::ops::where_::where_;
use crate::ops::Operand;
use crate::tensor::shape::{broadcast_shapes, sizes_i64};
use crate::tensor::Tensor;

fn check_mask(mask: &Tensor, op: &str) -> Result<()> {
    if mask.dtype() != DType::Bool {
        return Err(Error::Runtime(format!(
            "{op} only supports boolean masks, but got mask with dtype {}",
            crate::dtype::cpp_name(mask.dtype())
        )));
    }
    Ok(())
}

/// `x.masked_fill(mask, value)`: MaskedFillBackward0 (number) / MaskedFillBackward1 (0-dim
/// tensor value, which also gets a gradient).
pub fn masked_fill(x: &Tensor, mask: &Tensor, value: Operand) -> Result<Tensor> {
    check_mask(mask, "masked_fill_")?;
    if let Operand::Scalar(s) = value {
        crate::dtype::check_fits(s, x.dtype(), crate::dtype::cpp_name(x.dtype()))?;
    }
    if let Operand::Tensor(v) = &value {
        if v.dim() != 0 {
            return Err(Error::Runtime(format!(
                "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {} dimension(s).",
                v.dim()
            )));
        }
    }
    // The result takes the broadcast shape of mask and x (PyTorch names the mask `a`); the
    // in-place form refuses a result larger than x (`inplace::apply_`).
    broadcast_shapes(&mask.shape(), &x.shape())?;
    let v = match &value {
        Operand::Tensor(t) => Operand::Tensor(cast_data(t, x.dtype())),
        Operand::Scalar(s) => Operand::Tensor(Tensor::scalar(*s, x.dtype())),
    };
    let out = {
        let _g = crate::autograd::GradModeGuard::new(false);
        where_(mask, v, Operand::Tensor(x.clone()))?
    };
    let vt = value.as_tensor().cloned();
    let mut inputs = vec![x];
    inputs.extend(vt.as_ref());
    if !needs_grad(&inputs) {
        return Ok(out);
    }
    let has_v = vt.is_some();
    let name = if has_v {
        "MaskedFillBackward1"
    } else {
        "MaskedFillBackward0"
    };
    let saved = vec![SavedTensor::input(mask)?];
    let (mask_t, shapes) = (mask.clone(), inputs.iter().map(|t| t.shape()).collect());
    let out = record_formula_jvp(
        out,
        &inputs,
        name,
        saved,
        move |g, s| {
            let mask = &s[0];
            let zero = || Operand::Scalar(Scalar::Int(0));
            let mut grads = vec![Some(where_(mask, zero(), Operand::Tensor(g.clone()))?)];
            if has_v {
                grads.push(Some(sum(
                    &where_(mask, Operand::Tensor(g.clone()), zero())?,
                    None,
                    false,
                )?));
            }
            Ok(grads)
        },
        Jvp::linear_n(shapes, move |t| {
            masked_fill(
                &t[0],
                &mask_t,
                t.get(1).map_or(Operand::Scalar(Scalar::Int(0)), |s| {
                    Operand::Tensor(s.clone())
                }),
            )
        }),
    );
    describe(&out, &["mask"], Vec::new());
    Ok(out)
}

/// `x.masked_select(mask)`: the selected elements (x and mask broadcast), as a 1-D tensor.
pub fn masked_select(x: &Tensor, mask: &Tensor) -> Result<Tensor> {
    if mask.dtype() != DType::Bool {
        return Err(Error::Runtime(
            "masked_select: expected BoolTensor for mask".into(),
        ));
    }
    // PyTorch broadcasts (mask, self): its errors name the mask's size first.
    let shape = broadcast_shapes(&mask.shape(), &x.shape())?;
    let sizes = sizes_i64(&shape);
    let (xb, mb) = {
        let _g = crate::autograd::GradModeGuard::new(false);
        (
            contiguous_clone(&expand(x, &sizes)?),
            contiguous_clone(&expand(mask, &sizes)?),
        )
    };
    let flat = reshape(&xb, &[-1])?;
    let (pos, out) = kernels::masked_select(&flat, &reshape(&mb, &[-1])?)?;
    if !needs_grad(&[x]) {
        return Ok(out);
    }
    let xs = x.shape();
    // PyTorch keeps the mask and `self`; this formula reads the selected positions instead.
    let saved = vec![SavedTensor::input(mask)?, SavedTensor::input(x)?];
    let mask_t = mask.clone();
    let out = record_formula_jvp(
        out,
        &[x],
        "MaskedSelectBackward0",
        saved,
        move |g, _| {
            let zeros = Tensor::zeros_on(&[shape.iter().product()], g.dtype(), g.device());
            let full = reshape(
                &scatter(&zeros, 0, &pos, Operand::Tensor(g.clone()))?,
                &sizes,
            )?;
            Ok(vec![Some(sum_to(&full, &xs)?)])
        },
        Jvp::linear(move |t| masked_select(t, &mask_t)),
    );
    describe(&out, &["mask", "self"], Vec::new());
    Ok(out)
}

/// `x.nonzero()`: int64 `[n, ndim]` coordinates of the non-zero elements, row-major.
pub fn nonzero(x: &Tensor) -> Tensor {
    kernels::nonzero(x)
}
