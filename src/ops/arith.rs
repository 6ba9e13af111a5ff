//! Short names for the tensor arithmetic that backward formulas are written in. Each records
//! a graph when grad mode is on, which is what makes higher-order gradients work.

use crate::dtype::Scalar;
use crate::error::Result;
use crate::ops::binary::{self, BinaryOp, CmpOp, Operand};
use crate::ops::unary::{self, UnaryOp};
use crate::tensor::Tensor;

fn s(v: f64) -> Operand {
    Operand::Scalar(Scalar::Float(v))
}
fn t(x: &Tensor) -> Operand {
    Operand::Tensor(x.clone())
}

pub fn add(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    binary::add(a, b)
}
pub fn sub(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    binary::sub(a, b)
}
pub fn mul(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    binary::mul(a, b)
}
pub fn div(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    binary::div(a, b)
}
pub fn neg(a: &Tensor) -> Result<Tensor> {
    unary::unary(UnaryOp::Neg, a)
}
/// `a * c`
pub fn muls(a: &Tensor, c: f64) -> Result<Tensor> {
    binary::binary(BinaryOp::Mul, t(a), s(c))
}
/// `a + c`
pub fn adds(a: &Tensor, c: f64) -> Result<Tensor> {
    binary::binary(BinaryOp::Add, t(a), s(c))
}
/// `c - a`
pub fn rsubs(c: f64, a: &Tensor) -> Result<Tensor> {
    binary::rsub(a, s(c))
}
/// `a ** c`
pub fn pows(a: &Tensor, c: f64) -> Result<Tensor> {
    binary::binary(BinaryOp::Pow, t(a), s(c))
}
pub fn un(op: UnaryOp, a: &Tensor) -> Result<Tensor> {
    unary::unary(op, a)
}
/// `a` where `mask`, else exactly zero.
pub fn keep(mask: &Tensor, a: &Tensor) -> Result<Tensor> {
    binary::where_(mask, t(a), Operand::Scalar(Scalar::Int(0)))
}
/// Elementwise comparison with a number, as a bool mask.
pub fn cmps(op: CmpOp, a: &Tensor, c: f64) -> Result<Tensor> {
    binary::compare(op, t(a), s(c))
}
pub fn cmp(op: CmpOp, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    binary::compare(op, t(a), t(b))
}
/// Exactly zero where `mask`, else `a`.
pub fn zero_where(mask: &Tensor, a: &Tensor) -> Result<Tensor> {
    binary::where_(mask, Operand::Scalar(Scalar::Int(0)), t(a))
}
