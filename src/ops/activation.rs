//! Activations: silu, gelu, softplus, elu, leaky_relu, hardtanh, each forward beside its
//! backward (PyTorch's `*_backward` ops as nodes of their own, `ops/backward_ops.rs`).

use crate::backend::cpu::vmath::VMath;
use crate::dtype::{DType, Scalar};
use crate::error::{Error, Result};
use crate::ops::arithmetic::{add, mul, rsub};
use crate::ops::backward_ops;
use crate::ops::clamp::clamp_scalar_data;
use crate::ops::compare::{gt, lt};
use crate::ops::creation::cast_data;
use crate::ops::pointwise::{fmap, one_minus_sq, unary_node, Save, Special};
use crate::ops::unary::{self, map};
use crate::ops::where_::where_;
use crate::ops::Operand;
use crate::tensor::Tensor;

pub fn silu(x: &Tensor) -> Result<Tensor> {
    crate::dtype::check_float("silu_cpu", x.dtype())?;
    let out = fmap!(x, gpu "v * sigmoid(v)", |v: T| v / (1.0 + (-v).vexp()));
    unary_node(x, out, "SiluBackward0", Save::Input, |g, x| {
        // s * (1 + x * (1 - s))
        let s = unary::sigmoid(x)?;
        let inner = add(&mul(x, &rsub(&s, 1.0)?)?, 1.0)?;
        mul(g, &mul(&s, &inner)?)
    })
}

const SQRT_2_OVER_PI: f64 = 0.797_884_560_802_865_4;
const GELU_C: f64 = 0.044715;

/// `approximate`: "none" (exact, with erf) or "tanh".
pub fn gelu(x: &Tensor, approximate: &str) -> Result<Tensor> {
    let tanh = match approximate {
        "none" => false,
        "tanh" => true,
        _ => {
            return Err(Error::Runtime(
                "approximate argument must be either none or tanh.".into(),
            ));
        }
    };
    if !x.dtype().is_floating_point() {
        return Err(crate::dtype::unsupported("GeluKernelImpl", x.dtype()));
    }
    let out = if tanh {
        fmap!(x, gpu "0.5 * v * (1.0 + tanh_safe(0.7978845608028654 * (v + 0.044715 * v * v * v)))", |v: T| {
            let inner = SQRT_2_OVER_PI as T * (v + GELU_C as T * v * v * v);
            0.5 * v * (1.0 + inner.vtanh())
        })
    } else {
        fmap!(x, gpu "0.5 * v * (1.0 + erf_(v * 0.7071067811865476))", |v: T| 0.5
            * v
            * (1.0
                + Special::erf(v * std::f64::consts::FRAC_1_SQRT_2 as T)))
    };
    unary_node(x, out, "GeluBackward0", Save::Input, move |g, x| {
        let d = if tanh {
            // 0.5 (1 + t) + 0.5 x (1 - t²) k (1 + 3c x²),  t = tanh(k (x + c x³))
            let x2 = mul(x, x)?;
            let inner = mul(&add(x, &mul(&mul(&x2, x)?, GELU_C)?)?, SQRT_2_OVER_PI)?;
            let t = unary::tanh(&inner)?;
            let left = mul(&add(&t, 1.0)?, 0.5)?;
            let dinner = mul(&add(&mul(&x2, 3.0 * GELU_C)?, 1.0)?, SQRT_2_OVER_PI)?;
            let right = mul(&mul(x, 0.5)?, &mul(&one_minus_sq(&t)?, &dinner)?)?;
            add(&left, &right)?
        } else {
            // Φ(x) + x φ(x)
            let cdf = mul(
                &add(
                    &crate::ops::unary::erf(&mul(x, std::f64::consts::FRAC_1_SQRT_2)?)?,
                    1.0,
                )?,
                0.5,
            )?;
            let pdf = mul(
                &unary::exp(&mul(&mul(x, x)?, -0.5)?)?,
                0.398_942_280_401_432_7,
            )?;
            add(&cdf, &mul(x, &pdf)?)?
        };
        mul(g, &d)
    })
}

pub fn softplus(x: &Tensor, beta: f64, threshold: f64) -> Result<Tensor> {
    if !x.dtype().is_floating_point() {
        return Err(crate::dtype::unsupported("softplus_cpu", x.dtype()));
    }
    let out = fmap!(x, gpu "softplus_(v, p.a, p.b)"[beta, threshold, 0.0], |v: T| if v * beta as T
        > threshold as T
    {
        v
    } else {
        (v * beta as T).exp().ln_1p() / beta as T
    });
    unary_node(x, out, "SoftplusBackward0", Save::Input, move |g, x| {
        let bx = mul(x, beta)?;
        let s = unary::sigmoid(&bx)?;
        let above = gt(&bx, threshold)?;
        where_(
            &above,
            Operand::Tensor(g.clone()),
            Operand::Tensor(mul(g, &s)?),
        )
    })
}

pub fn elu(x: &Tensor, alpha: f64) -> Result<Tensor> {
    if !x.dtype().is_floating_point() {
        return Err(crate::dtype::unsupported("elu_cpu", x.dtype()));
    }
    let out = fmap!(x, gpu "select(p.a * expm1_(v), v, v > 0.0)"[alpha, 0.0, 0.0], |v: T| if v > 0.0 {
        v
    } else {
        alpha as T * v.exp_m1()
    });
    // elu_backward: g where x > 0, else g * alpha * exp(x).
    let f: backward_ops::GradFn = std::sync::Arc::new(move |g, x| {
        let pos = gt(x, 0.0)?;
        let slope = mul(&unary::exp(x)?, alpha)?;
        where_(
            &pos,
            Operand::Tensor(g.clone()),
            Operand::Tensor(mul(g, &slope)?),
        )
    });
    // PyTorch's elu_double_backward masks with x < 0 (strictly): zero at x == 0.
    let fb = f.clone();
    let fx: backward_ops::GradXFn =
        std::sync::Arc::new(move |gg, g, x| where_(&lt(x, 0.0)?, &fb(&mul(gg, g)?, x)?, 0));
    unary_node(x, out, "EluBackward0", Save::Input, move |g, x| {
        backward_ops::backward_node("EluBackwardBackward0", g, x, f.clone(), Some(fx.clone()))
    })
}

/// `inplace`: the forward of `leaky_relu_`, whose backward PyTorch refuses for a negative slope
/// (it would have to recover the input from the result).
pub fn leaky_relu(x: &Tensor, slope: f64, inplace: bool) -> Result<Tensor> {
    if !x.dtype().is_floating_point() {
        return Err(crate::dtype::unsupported("leaky_relu_cpu", x.dtype()));
    }
    let out = fmap!(x, gpu "select(v * p.a, v, v > 0.0)"[slope, 0.0, 0.0], |v: T| if v > 0.0 {
        v
    } else {
        v * slope as T
    });
    let f: backward_ops::GradFn = std::sync::Arc::new(move |g, x| {
        let pos = gt(x, 0.0)?;
        where_(
            &pos,
            Operand::Tensor(g.clone()),
            Operand::Tensor(mul(g, slope)?),
        )
    });
    unary_node(x, out, "LeakyReluBackward0", Save::Input, move |g, x| {
        if inplace && slope < 0.0 {
            return Err(Error::Runtime("In-place leakyReLu backward calculation is triggered with a negative slope which is not supported. This is caused by calling in-place forward function with a negative slope, please call out-of-place version instead. File an issue at https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu backward calculation with negative slope".into()));
        }
        backward_ops::backward_node("LeakyReluBackwardBackward0", g, x, f.clone(), None)
    })
}

pub fn hardtanh(x: &Tensor, lo: f64, hi: f64) -> Result<Tensor> {
    if x.dtype() == DType::Bool {
        return Err(Error::Runtime(
            "Bool inputs not supported for hardtanh".into(),
        ));
    }
    let out = clamp_scalar_data(x, Some(Scalar::Float(lo)), Some(Scalar::Float(hi)))?;
    // Integers clamp in float and come back (a cast of the same dtype would copy).
    let out = if out.dtype() == x.dtype() {
        out
    } else {
        cast_data(&out, x.dtype())
    };
    let f: backward_ops::GradFn = std::sync::Arc::new(move |g, x| {
        let inside = mul(&gt(x, lo)?, &lt(x, hi)?)?;
        where_(&inside, g, 0)
    });
    unary_node(x, out, "HardtanhBackward0", Save::Input, move |g, x| {
        backward_ops::backward_node("HardtanhBackwardBackward0", g, x, f.clone(), None)
    })
}
