//! Division with rounding and remainders: `div(rounding_mode=...)`, floor_divide, fmod,
//! remainder (kernels declared in `ops/binary_kernels_decl.rs`), with their backward nodes.

use crate::autograd::formula::describe;
use crate::autograd::saved::Value;
use crate::autograd::{needs_grad, record_formula_jvp, Jvp, SavedTensor};
use crate::dtype::{DType, Scalar};
use crate::error::{Error, Result};
use crate::kernels;
use crate::kernels::zip;
use crate::ops::arithmetic::mul;
use crate::ops::binary_kernels::promoted;
use crate::ops::binary_kernels_decl::DivModOp;
use crate::ops::creation::{narrow, zeros_like};
use crate::ops::unary::neg;
use crate::ops::Operand;
use crate::tensor::Tensor;

/// Record a binary node: inputs are the tensor operands; `f` gets `(g, [a, b])` and
/// returns gradients for `(a, b)` (the one for a Python number is dropped).
fn binary_node(
    a: &Operand,
    b: &Operand,
    out: Tensor,
    name: &'static str,
    f: impl Fn(&Tensor, &Tensor, &Tensor) -> Result<(Tensor, Tensor)> + Send + Sync + 'static,
) -> Result<Tensor> {
    if !(crate::autograd::is_grad_enabled() && (a.requires_grad() || b.requires_grad()))
        && !crate::autograd::forward::operand_tangent(&[a, b])
    {
        return Ok(out);
    }
    let dtype = out.dtype();
    let (ta, tb) = (a.edge_tensor(dtype), b.edge_tensor(dtype));
    let b_is_tensor = matches!(b, Operand::Tensor(_));
    let inputs: Vec<&Tensor> = if b_is_tensor {
        vec![&ta, &tb]
    } else {
        vec![&ta]
    };
    // A Python number is saved out of the hooks' sight, as PyTorch's wrapped numbers.
    let tb_saved = if b_is_tensor {
        SavedTensor::input(&tb)?
    } else {
        SavedTensor::input_unhooked(&tb)
    };
    let saved = vec![SavedTensor::input(&ta)?, tb_saved];
    // Elementwise in `g`: forward AD derives the tangent from it (Note [Forward AD]).
    let out = record_formula_jvp(
        out,
        &inputs,
        name,
        saved,
        move |g, s| {
            let (ga, gb) = f(g, &s[0], &s[1])?;
            Ok(if b_is_tensor {
                vec![Some(ga), Some(gb)]
            } else {
                vec![Some(ga)]
            })
        },
        Jvp::Elementwise,
    );
    // With a Python number, PyTorch's node (`FmodBackward0`, ...) shows nothing.
    if b_is_tensor {
        describe(&out, &["self", "other"], Vec::new());
    }
    Ok(out)
}

fn int_div_check(tb: &Tensor) -> Result<()> {
    if tb.dtype() == DType::I64 && tb.to_vec::<i64>().contains(&0) {
        return Err(Error::Runtime("ZeroDivisionError".into()));
    }
    Ok(())
}

/// `fmod` (C's remainder, sign of the dividend) or `remainder` (Python's, sign of the divisor).
fn modulo(a: &Tensor, b: Operand, python: bool) -> Result<Tensor> {
    let a_op = Operand::Tensor(a.clone());
    let (ta, tb, shape, dtype) = promoted(&a_op, &b, false)?;
    let op = if python {
        DivModOp::Remainder
    } else {
        DivModOp::Fmod
    };
    let out = kernels::binary(op.wgsl(), dtype, &ta, &tb, &shape, |ta, tb, shape| {
        Ok(match ta.dtype() {
            d @ (DType::F32 | DType::F64) => op.zip_float(d, ta, tb, shape)?,
            DType::I64 => {
                int_div_check(tb)?;
                zip::<i64, i64>(ta, tb, shape, move |p, q| {
                    let m = p.wrapping_rem(q);
                    if python && m != 0 && ((q < 0) != (m < 0)) {
                        m + q
                    } else {
                        m
                    }
                })?
            }
            DType::Bool => {
                return Err(crate::dtype::unsupported(
                    if python { "remainder_cpu" } else { "fmod_cpu" },
                    DType::Bool,
                ))
            }
            _ => unreachable!("promoted computes wide"),
        })
    })?;
    let out = narrow(out, dtype);
    let scalar = matches!(b, Operand::Scalar(_));
    let name = match (python, scalar) {
        (false, true) => "FmodBackward0",
        (false, false) => "FmodBackward1",
        (true, true) => "RemainderBackward0",
        (true, false) => "RemainderBackward1",
    };
    let mode = if python { "floor" } else { "trunc" };
    binary_node(&a_op, &b, out, name, move |g, x, y| {
        let q = div_rounding(&x.into(), &y.into(), mode)?;
        Ok((g.clone(), mul(&neg(g)?, &q)?))
    })
}
pub fn fmod(a: &Tensor, b: Operand) -> Result<Tensor> {
    modulo(a, b, false)
}
pub fn remainder(a: &Tensor, b: Operand) -> Result<Tensor> {
    modulo(a, b, true)
}

/// `div(a, b, rounding_mode=...)`; integer inputs stay integers. Gradients are zero.
pub fn div_rounding(a: &Operand, b: &Operand, mode: &str) -> Result<Tensor> {
    let floor = match mode {
        "floor" => true,
        "trunc" => false,
        other => {
            return Err(Error::Runtime(format!(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{other}'"
        )))
        }
    };
    let (ta, tb, shape, dtype) = promoted(a, b, false)?;
    let op = if floor {
        DivModOp::DivFloor
    } else {
        DivModOp::DivTrunc
    };
    let out = kernels::binary(op.wgsl(), dtype, &ta, &tb, &shape, |ta, tb, shape| {
        Ok(match ta.dtype() {
            d @ (DType::F32 | DType::F64) => op.zip_float(d, ta, tb, shape)?,
            DType::I64 => {
                int_div_check(tb)?;
                zip::<i64, i64>(ta, tb, shape, move |p, q| {
                    if floor {
                        p.wrapping_div(q) - i64::from((p % q != 0) && ((p < 0) != (q < 0)))
                    } else {
                        p.wrapping_div(q)
                    }
                })?
            }
            DType::Bool => {
                let kernel = if floor {
                    "div_floor_cpu"
                } else {
                    "div_trunc_cpu"
                };
                return Err(crate::dtype::unsupported(kernel, DType::Bool));
            }
            _ => unreachable!("promoted computes wide"),
        })
    })?;
    let out = narrow(out, dtype);
    let out = binary_node(a, b, out, "DivBackward2", |g, _, _| {
        Ok((zeros_like(g), zeros_like(g)))
    })?;
    let mode = (
        "rounding_mode",
        Value::Str(if floor { "floor" } else { "trunc" }),
    );
    match b {
        Operand::Tensor(_) => describe(&out, &["self", "other"], vec![mode]),
        // PyTorch keeps `self` only for a tensor divisor's gradient.
        Operand::Scalar(_) => describe(&out, &["", "other"], vec![("self", Value::Unsaved), mode]),
    }
    Ok(out)
}

/// A result of an op PyTorch has no derivative for: it requires grad (grad_fn
/// `NotImplemented`) and backward through it raises, as in PyTorch.
fn not_differentiable(out: Tensor, operands: &[&Operand], aten: &'static str) -> Tensor {
    let inputs: Vec<&Tensor> = operands.iter().filter_map(|o| o.as_tensor()).collect();
    if !needs_grad(&inputs) {
        return out;
    }
    let out = out.detach();
    record_formula_jvp(
        out,
        &inputs,
        "NotImplemented",
        vec![],
        move |_, _| {
            Err(Error::Runtime(format!(
                "derivative for aten::{aten} is not implemented"
            )))
        },
        Jvp::of(move |_, _| {
            Err(Error::NotImplemented(format!(
                "Trying to use forward AD with aten::{aten} that does not support it."
            )))
        }),
    )
}

/// `floor_divide(a, b)` and `a // b`: `div(rounding_mode='floor')` without a derivative.
pub fn floor_divide(a: &Operand, b: &Operand) -> Result<Tensor> {
    let out = {
        let _no_grad = crate::autograd::GradModeGuard::new(false);
        div_rounding(a, b, "floor")?
    };
    Ok(not_differentiable(out, &[a, b], "floor_divide"))
}

/// `number % tensor` (remainder.Scalar_Tensor): no derivative in PyTorch.
pub fn rremainder(s: Scalar, x: &Tensor) -> Result<Tensor> {
    let out = {
        let _no_grad = crate::autograd::GradModeGuard::new(false);
        remainder(
            &Tensor::scalar(s, s.wrapped_dtype()),
            Operand::Tensor(x.clone()),
        )?
    };
    Ok(not_differentiable(
        out,
        &[&Operand::Tensor(x.clone())],
        "remainder",
    ))
}
