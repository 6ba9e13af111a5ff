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

/// A shared backward formula `f(g, x)`, linear in `g`.
pub type GradFn = std::sync::Arc<dyn Fn(&Tensor, &Tensor) -> Result<Tensor> + Send + Sync>;
/// The derivative of such a formula in `x`, given the incoming `gg`, then `g` and `x`.
pub type GradXFn =
    std::sync::Arc<dyn Fn(&Tensor, &Tensor, &Tensor) -> Result<Tensor> + Send + Sync>;

/// PyTorch's `*_backward` ops as nodes of their own (threshold/leaky_relu/hardtanh/elu
/// backward): `f(g, x)` is linear in `g`, so its derivative in `g` is the same formula again;
/// its derivative in `x` is `fx` (zero when `None`: a piecewise-constant slope). Recording it
/// makes a first derivative taken with `create_graph` require grad, as PyTorch's does.
pub fn backward_node(
    name: &'static str,
    g: &Tensor,
    x: &Tensor,
    f: GradFn,
    fx: Option<GradXFn>,
) -> Result<Tensor> {
    use crate::autograd::{needs_grad, record_formula, SavedTensor};
    let out = {
        let _no_grad = crate::autograd::GradModeGuard::new(false);
        f(g, x)?
    };
    if !needs_grad(&[g, x]) {
        return Ok(out);
    }
    let mut saved = vec![SavedTensor::input(x)?];
    if fx.is_some() {
        saved.push(SavedTensor::input(g)?);
    }
    Ok(record_formula(out, &[g, x], name, saved, move |gg, s| {
        let dx = match &fx {
            Some(fx) => fx(gg, &s[1], &s[0])?,
            None => crate::ops::creation::zeros_like(&s[0]),
        };
        let dg = backward_node(name, gg, &s[0], f.clone(), fx.clone())?;
        Ok(vec![Some(dg), Some(dx)])
    }))
}
