//! Activations (`torch.nn.functional`): their kernels are declared in `ops/unary_decl.rs`
//! (hardtanh, silu, gelu, softplus, elu, leaky_relu, celu, mish, hardsigmoid, hardswish,
//! softshrink, hardshrink, threshold and the in-place forms with nodes of their own); here are
//! the derivative formulas those entries name (PyTorch's `*_backward` ops
//! as nodes of their own, `ops/backward_ops.rs`) and `gelu`'s choice of entry.

use crate::autograd::{needs_grad, record_formula_jvp, GradModeGuard, Jvp};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::arithmetic::{add, div, mul, pow, rdiv, rsub, sub};
use crate::ops::backward_ops::{backward_node, backward_node_summed_jvp, GradFn, GradXFn};
use crate::ops::compare::{ge, gt, le, lt};
use crate::ops::creation::cast_data;
use crate::ops::pointwise::one_minus_sq;
use crate::ops::unary::{self, unary, UnaryOp};
use crate::ops::where_::where_;
use crate::tensor::Tensor;
use std::sync::Arc;

pub(crate) const GELU_K: f64 = 0.797_884_560_802_865_4; // sqrt(2 / pi)
pub(crate) const GELU_C: f64 = 0.044715;

/// `gelu(x, approximate)`: "none" (exact, with erf) or "tanh", each a declared entry (the
/// string picks the kernel, as PyTorch's `approximate` does; both nodes are GeluBackward0).
pub fn gelu(x: &Tensor, approximate: &str) -> Result<Tensor> {
    match approximate {
        "none" => unary(UnaryOp::Gelu, x),
        "tanh" => unary(UnaryOp::GeluTanh, x),
        _ => Err(Error::Runtime(
            "approximate argument must be either none or tanh.".into(),
        )),
    }
}

pub(crate) fn hardtanh_bool(_: &Tensor) -> Result<Tensor> {
    Err(Error::Runtime(
        "Bool inputs not supported for hardtanh".into(),
    ))
}

/// hardtanh_backward: `g` strictly inside (min_val, max_val), else 0
/// (HardtanhBackwardBackward0 under create_graph).
pub(crate) fn hardtanh_grad(g: &Tensor, x: &Tensor, lo: f64, hi: f64) -> Result<Tensor> {
    let f: GradFn = Arc::new(move |g, x| where_(&mul(&gt(x, lo)?, &lt(x, hi)?)?, g, 0));
    backward_node("HardtanhBackwardBackward0", g, x, f, None)
}

/// PyTorch's `tanh_backward(g, r)`, `g (1 - r²)` from tanh's saved result `r`: TanhBackward0's
/// formula and, by derivatives.yaml's `auto_element_wise`, the tangent of tanh (`t (1 - r²)`).
/// On the host in ATen's CPU kernel's rounding, `g * fma(-r, r, 1)` (`kernels::tanh_backward_host`),
/// so first and higher derivatives are bit-equal to torch's.
/// Recorded, a node of its own (TanhBackwardBackward0 with `_saved_grad_output` /
/// `_saved_output`; its derivative in `r` is `gg (-2 r g)`), as PyTorch's.
pub(crate) fn tanh_backward(g: &Tensor, r: &Tensor) -> Result<Tensor> {
    let f: GradFn = Arc::new(|g, r| match crate::kernels::tanh_backward_host(g, r)? {
        Some(out) => Ok(out),
        None => mul(g, &one_minus_sq(r)?),
    });
    let fx: GradXFn = Arc::new(|gg, g, r| mul(gg, &mul(&mul(r, -2.0)?, g)?));
    let out = backward_node_summed_jvp("TanhBackwardBackward0", g, r, f, fx)?;
    crate::autograd::formula::describe(&out, &["output", "grad_output"], Vec::new());
    Ok(out)
}

/// PyTorch's `sigmoid_backward(g, r)`, `(g (1 - r)) r` from sigmoid's saved result `r` in
/// ATen's CPU kernel's order (`a * (1 - b) * b`, so values are bit-equal), as `tanh_backward`
/// (SigmoidBackwardBackward0; its derivative in `r` is derivatives.yaml's
/// `grad * grad_output * (-2 r + 1)`).
pub(crate) fn sigmoid_backward(g: &Tensor, r: &Tensor) -> Result<Tensor> {
    let f: GradFn = Arc::new(|g, r| mul(&mul(g, &rsub(r, 1.0)?)?, r));
    let fx: GradXFn = Arc::new(|gg, g, r| mul(&mul(gg, g)?, &add(&mul(r, -2.0)?, 1.0)?));
    let out = backward_node_summed_jvp("SigmoidBackwardBackward0", g, r, f, fx)?;
    crate::autograd::formula::describe(&out, &["output", "grad_output"], Vec::new());
    Ok(out)
}

/// `g * s * (1 + x * (1 - s))`, s = sigmoid(x).
pub(crate) fn silu_grad(g: &Tensor, x: &Tensor) -> Result<Tensor> {
    let s = unary::sigmoid(x)?;
    let inner = add(&mul(x, &rsub(&s, 1.0)?)?, 1.0)?;
    mul(g, &mul(&s, &inner)?)
}

/// PyTorch's `gelu_backward(g, x, approximate)`: a node of its own under create_graph
/// (GeluBackwardBackward0 with `_saved_self` / `_saved_grad_output` / `_saved_approximate`),
/// whose derivative in x is derivatives.yaml's `gelu_double_backward(gg, g, x, approximate)`
/// and whose tangent is `gelu_backward(g_t, x) + gelu_double_backward(x_t, g, x)`.
fn gelu_backward(g: &Tensor, x: &Tensor, tanh: bool) -> Result<Tensor> {
    let f: GradFn = if tanh {
        Arc::new(gelu_tanh_grad_values)
    } else {
        Arc::new(gelu_grad_values)
    };
    let fx: GradXFn = Arc::new(move |gg, g, x| gelu_double_backward(gg, g, x, tanh));
    let out = backward_node_summed_jvp("GeluBackwardBackward0", g, x, f, fx)?;
    let approximate = if tanh { "tanh" } else { "none" };
    let values = vec![(
        "approximate",
        crate::autograd::saved::Value::Str(approximate),
    )];
    crate::autograd::formula::describe(&out, &["self", "grad_output"], values);
    Ok(out)
}

/// gelu's backward (see `gelu_backward`).
pub(crate) fn gelu_grad(g: &Tensor, x: &Tensor) -> Result<Tensor> {
    gelu_backward(g, x, false)
}

/// gelu(approximate='tanh')'s backward (see `gelu_backward`).
pub(crate) fn gelu_tanh_grad(g: &Tensor, x: &Tensor) -> Result<Tensor> {
    gelu_backward(g, x, true)
}

/// FunctionsManual's `gelu_double_backward(ggI, gO, input, approximate)`: `ggI * gO *` the
/// derivative of gelu's derivative, in its order of operations.
fn gelu_double_backward(gg: &Tensor, g: &Tensor, x: &Tensor, tanh: bool) -> Result<Tensor> {
    let d = if tanh {
        // kBeta (1 + 3 kKappa x²) etc., as FunctionsManual writes them
        let beta = std::f64::consts::SQRT_2 * std::f64::consts::FRAC_2_SQRT_PI * 0.5;
        let inner = mul(&add(x, &mul(&pow(x, 3.0)?, GELU_C)?)?, beta)?;
        let tanh_inner = unary::tanh(&inner)?;
        let sech_inner = rdiv(&unary::cosh(&inner)?, 1.0.into())?;
        let f = mul(x, 0.5)?;
        let gg_ = rsub(&mul(&tanh_inner, &tanh_inner)?, 1.0)?;
        let h = mul(&add(&mul(&mul(x, 3.0 * GELU_C)?, x)?, 1.0)?, beta)?;
        let f_prime_gh = mul(&mul(&gg_, 0.5)?, &h)?;
        let g_prime = mul(
            &mul(
                &mul(&sech_inner, 2.0)?,
                &mul(&unary::neg(&sech_inner)?, &tanh_inner)?,
            )?,
            &h,
        )?;
        let g_prime_fh = mul(&mul(&f, &h)?, &g_prime)?;
        let h_prime = mul(&mul(x, 6.0 * GELU_C)?, beta)?;
        let h_prime_fg = mul(&mul(&f, &gg_)?, &h_prime)?;
        add(
            &add(&add(&f_prime_gh, &f_prime_gh)?, &g_prime_fh)?,
            &h_prime_fg,
        )?
    } else {
        let beta = std::f64::consts::FRAC_2_SQRT_PI * std::f64::consts::FRAC_1_SQRT_2 * 0.5;
        let input_sq = mul(x, x)?;
        let pdf = mul(&unary::exp(&mul(&input_sq, -0.5)?)?, beta)?;
        sub(&mul(&pdf, 2.0)?, &mul(&input_sq, &pdf)?)?
    };
    mul(&mul(gg, g)?, &d)
}

/// `g * (Φ(x) + x φ(x))`.
fn gelu_grad_values(g: &Tensor, x: &Tensor) -> Result<Tensor> {
    let cdf = mul(
        &add(&unary::erf(&mul(x, std::f64::consts::FRAC_1_SQRT_2)?)?, 1.0)?,
        0.5,
    )?;
    let pdf = mul(
        &unary::exp(&mul(&mul(x, x)?, -0.5)?)?,
        0.398_942_280_401_432_7,
    )?;
    mul(g, &add(&cdf, &mul(x, &pdf)?)?)
}

/// `g * (0.5 (1 + t) + 0.5 x (1 - t²) k (1 + 3c x²))`, t = tanh(k (x + c x³)).
fn gelu_tanh_grad_values(g: &Tensor, x: &Tensor) -> Result<Tensor> {
    let x2 = mul(x, x)?;
    let inner = mul(&add(x, &mul(&mul(&x2, x)?, GELU_C)?)?, GELU_K)?;
    let t = unary::tanh(&inner)?;
    let left = mul(&add(&t, 1.0)?, 0.5)?;
    let dinner = mul(&add(&mul(&x2, 3.0 * GELU_C)?, 1.0)?, GELU_K)?;
    let right = mul(&mul(x, 0.5)?, &mul(&one_minus_sq(&t)?, &dinner)?)?;
    mul(g, &add(&left, &right)?)
}

/// PyTorch's `softplus_backward(g, x, beta, threshold)` in its CPU kernel's order: `g` where
/// beta x > threshold (the forward is x there), else `g z / (z + 1)`, z = exp(beta x). A node
/// of its own (SoftplusBackwardBackward0) whose derivative in x is derivatives.yaml's
/// `softplus_double_backward(gg * g, x)`, `sigmoid_backward(gg g, sigmoid(beta x)) *
/// (beta x < threshold) * beta`, and whose tangent is the sum of the two, as PyTorch's.
pub(crate) fn softplus_grad(g: &Tensor, x: &Tensor, beta: f64, threshold: f64) -> Result<Tensor> {
    let f: GradFn = Arc::new(move |g, x| {
        let bx = mul(x, beta)?;
        let z = unary::exp(&bx)?;
        where_(&gt(&bx, threshold)?, g, &div(&mul(g, &z)?, &add(&z, 1.0)?)?)
    });
    let fx: GradXFn = Arc::new(move |gg, g, x| {
        let bx = mul(x, beta)?;
        let sb = sigmoid_backward(&mul(gg, g)?, &unary::sigmoid(&bx)?)?;
        let below = cast_data(&lt(&bx, threshold)?, sb.dtype());
        mul(&mul(&sb, &below)?, beta)
    });
    let out = backward_node_summed_jvp("SoftplusBackwardBackward0", g, x, f, fx)?;
    let values = vec![
        ("beta", crate::autograd::saved::Value::Float(beta)),
        ("threshold", crate::autograd::saved::Value::Float(threshold)),
    ];
    crate::autograd::formula::describe(&out, &["self", "grad_output"], values);
    Ok(out)
}

/// elu_backward (EluBackwardBackward0 under create_graph), of the input or, for `elu_`
/// (`is_result`), of the result: `g * scale` where positive, else
/// `g * input_scale * alpha * scale * exp(x * input_scale)`, which from the result r is
/// `g * input_scale * (r + alpha * scale)`.
pub(crate) fn elu_grad(
    g: &Tensor,
    s: &Tensor,
    alpha: f64,
    scale: f64,
    input_scale: f64,
    is_result: bool,
) -> Result<Tensor> {
    if is_result && alpha < 0.0 {
        return Err(Error::Runtime("In-place elu backward calculation is triggered with a negative slope which is not supported. This is caused by calling in-place forward function with a negative slope, please call out-of-place version instead.".into()));
    }
    let f: GradFn = Arc::new(move |g, s| {
        let pos = if scale == 1.0 {
            g.clone()
        } else {
            mul(g, scale)?
        };
        let neg = if is_result {
            mul(g, &mul(&add(s, alpha * scale)?, input_scale)?)?
        } else {
            let e = if input_scale == 1.0 {
                unary::exp(s)?
            } else {
                unary::exp(&mul(s, input_scale)?)?
            };
            mul(g, &mul(&e, input_scale * alpha * scale)?)?
        };
        where_(&gt(s, 0.0)?, &pos, &neg)
    });
    // The derivative in x (or r) of the negative side; PyTorch's elu_double_backward masks
    // with x < 0 (or r < 0) strictly: zero at 0.
    let fb = f.clone();
    let fx: GradXFn = Arc::new(move |gg, g, s| {
        let d = if is_result {
            mul(&mul(gg, g)?, input_scale)?
        } else {
            let d = fb(&mul(gg, g)?, s)?;
            if input_scale == 1.0 {
                d
            } else {
                mul(&d, input_scale)?
            }
        };
        where_(&lt(s, 0.0)?, &d, 0)
    });
    backward_node("EluBackwardBackward0", g, s, f, Some(fx))
}

/// leaky_relu_backward (LeakyReluBackwardBackward0 under create_graph): `g` where positive,
/// else `g * negative_slope`; from the result of `leaky_relu_` (`is_result`) only for a
/// non-negative slope, as PyTorch.
pub(crate) fn leaky_relu_grad(
    g: &Tensor,
    s: &Tensor,
    slope: f64,
    is_result: bool,
) -> Result<Tensor> {
    if is_result && slope < 0.0 {
        return Err(Error::Runtime("In-place leakyReLu backward calculation is triggered with a negative slope which is not supported. This is caused by calling in-place forward function with a negative slope, please call out-of-place version instead. File an issue at https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu backward calculation with negative slope".into()));
    }
    let f: GradFn = Arc::new(move |g, s| where_(&gt(s, 0.0)?, g, &mul(g, slope)?));
    backward_node("LeakyReluBackwardBackward0", g, s, f, None)
}

/// A gradient PyTorch has no derivative of: under create_graph it requires grad with the node
/// `NotImplemented`, and backward through it raises PyTorch's error.
fn not_implemented_node(out: Tensor, inputs: &[&Tensor], aten: &'static str) -> Result<Tensor> {
    if !needs_grad(inputs) {
        return Ok(out);
    }
    let f = move |_: &Tensor, _: &[Tensor]| -> Result<Vec<Option<Tensor>>> {
        Err(Error::Runtime(format!(
            "derivative for aten::{aten} is not implemented"
        )))
    };
    let jvp = Jvp::of(move |_, _| {
        Err(Error::NotImplemented(format!(
            "Trying to use forward AD with aten::{aten} that does not support it."
        )))
    });
    Ok(record_formula_jvp(
        out.detach(),
        inputs,
        "NotImplemented",
        vec![],
        f,
        jvp,
    ))
}

/// PyTorch's infinitely_differentiable_mish_backward: `g * (t + x sigmoid(x) (1 - t²))`,
/// t = tanh(log1p(exp(x))).
pub(crate) fn mish_grad(g: &Tensor, x: &Tensor) -> Result<Tensor> {
    let t = unary::tanh(&unary::log1p(&unary::exp(x)?)?)?;
    let xs = mul(x, &unary::sigmoid(x)?)?;
    mul(g, &add(&t, &mul(&xs, &one_minus_sq(&t)?)?)?)
}

/// PyTorch's `1.0f / 6.0f`, which hardsigmoid_backward multiplies by in every dtype.
const ONE_SIXTH_F: f64 = (1.0f32 / 6.0f32) as f64;

/// hardsigmoid_backward: `g / 6` strictly inside (-3, 3), else 0 (NaN included); PyTorch has
/// no derivative of it.
pub(crate) fn hardsigmoid_grad(g: &Tensor, x: &Tensor) -> Result<Tensor> {
    let out = {
        let _no_grad = GradModeGuard::new(false);
        where_(&mul(&gt(x, -3.0)?, &lt(x, 3.0)?)?, &mul(g, ONE_SIXTH_F)?, 0)?
    };
    not_implemented_node(out, &[g, x], "hardsigmoid_backward")
}

/// hardswish_backward (HardswishBackwardBackward0 under create_graph): 0 for x <= -3, `g`
/// from 3 on, else `g (x / 3 + 1/2)` (so NaN at NaN, as PyTorch's vectorized kernel, which
/// all but a short tail of a tensor takes); its derivative in x is `gg g / 3` strictly inside
/// (-3, 3).
pub(crate) fn hardswish_grad(g: &Tensor, x: &Tensor) -> Result<Tensor> {
    let f: GradFn = Arc::new(|g, x| {
        let mid = mul(g, &add(&div(x, 3.0)?, 0.5)?)?;
        where_(&le(x, -3.0)?, 0, &where_(&ge(x, 3.0)?, g, &mid)?)
    });
    let fx: GradXFn = Arc::new(|gg, g, x| {
        where_(
            &mul(&gt(x, -3.0)?, &lt(x, 3.0)?)?,
            &div(&mul(gg, g)?, 3.0)?,
            0,
        )
    });
    backward_node("HardswishBackwardBackward0", g, x, f, Some(fx))
}

/// softshrink_backward / hardshrink_backward (`name` under create_graph): `g` where
/// x < -lambd or x > lambd, else 0 (NaN included, as PyTorch's vectorized kernel), compared
/// in x's dtype (lambd as float16 holds it for a float16 x, as PyTorch's).
pub(crate) fn shrink_grad(
    name: &'static str,
    g: &Tensor,
    x: &Tensor,
    lambd: f64,
) -> Result<Tensor> {
    let l = lambd;
    let f: GradFn = Arc::new(move |g, x| where_(&add(&lt(x, -l)?, &gt(x, l)?)?, g, 0));
    backward_node(name, g, x, f, None)
}

/// threshold_backward (ThresholdBackwardBackward0 under create_graph): 0 where
/// x <= threshold, else `g`; a float16 x compares in float32, as PyTorch's kernel.
pub(crate) fn threshold_grad(g: &Tensor, x: &Tensor, threshold: f64) -> Result<Tensor> {
    let f: GradFn = Arc::new(move |g, x| {
        let mask = if x.dtype() == DType::F16 {
            le(&cast_data(x, DType::F32), threshold)?
        } else {
            le(x, threshold)?
        };
        where_(&mask, 0, g)
    });
    backward_node("ThresholdBackwardBackward0", g, x, f, None)
}

/// threshold's integer kernel: the parameters truncated toward zero (`Scalar::to<int64_t>`).
pub(crate) fn threshold_int(v: i64, a: crate::ops::unary::Args) -> i64 {
    if v <= a[0].unwrap_or(0.0) as i64 {
        a[1].unwrap_or(0.0) as i64
    } else {
        v
    }
}

pub(crate) fn threshold_bool(_: &Tensor) -> Result<Tensor> {
    Err(crate::dtype::unsupported("threshold_cpu", DType::Bool))
}
