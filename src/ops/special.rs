//! The declared special functions that take an integer (`polygamma(n, x)`, `mvlgamma(x, p)`)
//! with PyTorch's checks, and the derivative formulas of the gamma and Bessel family too long
//! for their declarations (`ops/unary_decl.rs`), as PyTorch's `FunctionsManual.cpp` writes them.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::arithmetic::{add, mul, sub};
use crate::ops::compare::gt;
use crate::ops::unary::{
    abs, args_of, digamma, reciprocal, sign, special_i0e, special_i1, special_i1e, unary_args,
    UnaryOp,
};
use crate::ops::where_::where_;
use crate::tensor::Tensor;

/// `polygamma(n, x)`: the n-th derivative of digamma (PolygammaBackward0).
pub fn polygamma(n: i64, x: &Tensor) -> Result<Tensor> {
    if n < 0 {
        return Err(Error::Runtime(
            "polygamma(n, x) does not support negative n.".into(),
        ));
    }
    unary_args(UnaryOp::Polygamma, x, args_of(&[Some(n as f64)]))
}

/// `mvlgamma(x, p)`: the multivariate log-gamma function of dimension `p` (MvlgammaBackward0).
pub fn mvlgamma(x: &Tensor, p: i64) -> Result<Tensor> {
    if x.dtype() == DType::Bool {
        return Err(Error::Runtime(
            "The input tensor may not be a boolean tensor.".into(),
        ));
    }
    if p < 1 {
        return Err(Error::Runtime(
            "p has to be greater than or equal to 1".into(),
        ));
    }
    unary_args(UnaryOp::Mvlgamma, x, args_of(&[Some(p as f64)]))
}

/// mvlgamma's derivative: g · Σ_j digamma(x - j/2) (PyTorch's `mvlgamma_backward`).
pub(crate) fn mvlgamma_grad(g: &Tensor, x: &Tensor, p: i64) -> Result<Tensor> {
    let start = -(p as f64) * 0.5 + 0.5;
    let mut total = digamma(&add(x, start)?)?;
    for j in 1..p {
        total = add(&total, &digamma(&add(x, start + j as f64 * 0.5)?)?)?;
    }
    mul(g, &total)
}

/// The machine epsilon of `x`'s float type, below which i1 and i1e's derivatives are their
/// limit 1/2 (PyTorch's `i1_backward` / `i1e_backward`, which have no float16 kernel).
fn eps(x: &Tensor, kernel: &str) -> Result<f64> {
    match x.dtype() {
        DType::F64 => Ok(f64::EPSILON),
        DType::F32 => Ok(f64::from(f32::EPSILON)),
        d => Err(Error::NotImplemented(format!(
            "\"{kernel}\" not implemented for '{}'",
            crate::dtype::pretty_kernel_name(d)
        ))),
    }
}

/// i1'(x) = i0(x) - i1(x) / x, and 1/2 at |x| <= eps (where the formula is 0/0).
pub(crate) fn i1_grad(g: &Tensor, x: &Tensor) -> Result<Tensor> {
    let e = eps(x, "i1_backward")?;
    let not_tiny = gt(&abs(x)?, e)?;
    let safe = where_(&not_tiny, x, e)?;
    let gradx = sub(
        &crate::ops::unary::i0(&safe)?,
        &mul(&special_i1(x)?, &reciprocal(&safe)?)?,
    )?;
    mul(g, &where_(&not_tiny, &gradx, 0.5)?)
}

/// i1e'(x) = i0e(x) - i1e(x) (sgn(x) + 1/x), and 1/2 at |x| <= eps.
pub(crate) fn i1e_grad(g: &Tensor, x: &Tensor) -> Result<Tensor> {
    let e = eps(x, "i1e_backward")?;
    let not_tiny = gt(&abs(x)?, e)?;
    let safe = where_(&not_tiny, x, e)?;
    let gradx = sub(
        &special_i0e(&safe)?,
        &mul(&special_i1e(x)?, &add(&sign(&safe)?, &reciprocal(&safe)?)?)?,
    )?;
    mul(g, &where_(&not_tiny, &gradx, 0.5)?)
}
