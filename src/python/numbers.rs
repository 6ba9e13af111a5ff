//! PyTorch's numbers-as-tensors: `torch.add(2, t)` and its kin take a Python number as `input`.
//!
//! PyTorch's argument parser lets a number stand for the `input` tensor of add, sub, mul, div
//! (and their aliases), true_divide and floor_divide, as a wrapped number (the promotion rank
//! of a Python number, not of a tensor); `remainder` and `xlogy` have a
//! `(Number self, Tensor other)` overload. The ops already take an `Operand` on either side, so the number goes in as one.

use super::convert::{extract_scalar, NumberArg};
use super::pointwise::operand_arg;
use super::tensor::RoundingMode;
use crate::dtype::Scalar;
use crate::ops::arithmetic::{self, BinaryOp};
use crate::ops::{divmod, Operand};
use crate::tensor::Tensor;
use pyo3::prelude::*;

/// `gradrs.<name>(number, other, ...)`; `python/gradrs/_forms.py` calls it for those names.
#[pyfunction]
#[pyo3(
    signature = (name, input, other, *, alpha=NumberArg::Absent, rounding_mode=RoundingMode::Absent),
    text_signature = "(name, input, other, *, alpha=1, rounding_mode=None)"
)]
fn _number_input(
    py: Python<'_>,
    name: &str,
    input: &Bound<'_, PyAny>,
    other: &Bound<'_, PyAny>,
    alpha: NumberArg,
    rounding_mode: RoundingMode,
) -> PyResult<Py<PyAny>> {
    let not_tensor = |what: &Bound<'_, PyAny>| {
        super::errors::type_error(format!(
            "{name}(): argument 'input' (position 1) must be Tensor, not {}",
            what.get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    };
    let s = extract_scalar(input).ok_or_else(|| not_tensor(input))?;
    let o = operand_arg(other, name, "other")?;
    if name == "remainder" || name == "xlogy" {
        let Operand::Tensor(t) = o else {
            return Err(not_tensor(input));
        };
        return super::boundary::tensor(py, || match name {
            "remainder" => divmod::rremainder(s, &t),
            _ => crate::ops::binary_math::xlogy_number_self(s, &t),
        });
    }
    // Two numbers: the first is a 0-dim tensor of its wrapped dtype, which promotes as the
    // wrapped number it stands for would (`torch.mul(2, 3)` is `tensor(6)`).
    let a = match o {
        Operand::Scalar(_) => Operand::Tensor(Tensor::scalar(s, s.wrapped_dtype())),
        Operand::Tensor(_) => Operand::Scalar(s),
    };
    let alpha = alpha.scalar(py, name, "alpha", Scalar::Int(1))?;
    super::boundary::tensor(py, || match name {
        "add" | "sub" | "subtract" => {
            let op = if name == "add" {
                BinaryOp::Add
            } else {
                BinaryOp::Sub
            };
            match alpha {
                Scalar::Int(1) => arithmetic::binary(op, a, o),
                alpha => arithmetic::add_scaled(a, o, alpha, name != "add"),
            }
        }
        "mul" | "multiply" => arithmetic::binary(BinaryOp::Mul, a, o),
        "div" | "divide" | "true_divide" => match rounding_mode {
            RoundingMode::Absent => arithmetic::binary(BinaryOp::Div, a, o),
            RoundingMode::Given(None) => arithmetic::div_mode_none(a, o),
            RoundingMode::Given(Some(mode)) => divmod::div_rounding(&a, &o, &mode),
        },
        "floor_divide" => divmod::floor_divide(&a, &o),
        _ => Err(crate::Error::Type(format!(
            "{name}(): argument 'input' (position 1) must be Tensor, not a number"
        ))),
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_number_input, m)?)?;
    Ok(())
}
