//! More elementwise math: each op's forward map and its backward formula side by side.
//! Unary float ops compute integer and bool inputs in float32, as PyTorch does.

use crate::autograd::formula::describe;
use crate::autograd::saved::Value;
use crate::autograd::{needs_grad, record_formula, SavedTensor};
use crate::backend::cpu::vmath::VMath;
use crate::dtype::{result_type, DType, Scalar};
use crate::error::{Error, Result};
use crate::ops::arith::{self, add, cmp, cmps, div, keep, mul, muls, neg, rsubs, sub};
use crate::ops::binary::{materialize, where_, zip, CmpOp, Operand};
use crate::ops::creation::{cast_data, contiguous_clone, narrow, wide, zeros_like};
use crate::ops::unary::{map, UnaryOp};
use crate::tensor::shape::broadcast_shapes;
use crate::tensor::{Element, Tensor};

/// Functions std lacks for floats, from libm.
pub(crate) trait Special: Sized {
    fn erf(self) -> Self;
}
impl Special for f32 {
    fn erf(self) -> f32 {
        libm::erff(self)
    }
}
impl Special for f64 {
    fn erf(self) -> f64 {
        libm::erf(self)
    }
}

pub(crate) fn float_input(x: &Tensor) -> Tensor {
    if x.dtype().is_floating_point() {
        x.clone()
    } else {
        cast_data(x, crate::dtype::default_float())
    }
}

/// `fmap!(x, |v: T| body)`: map a float kernel over `x` (ints computed in the default float
/// dtype).
/// `fmap!(x, gpu "expr", |v: T| body)`: the same, run on the GPU as the WGSL expression `expr`
/// in `v` (parameters `p.a`, `p.b`, `p.c` given in brackets after it) when `x` is a float32 or
/// float16 GPU tensor.
macro_rules! fmap {
    ($x:expr, gpu $g:literal, |$v:ident : $T:ident| $body:expr) => {
        fmap!($x, gpu $g[0.0, 0.0, 0.0], |$v: $T| $body)
    };
    ($x:expr, gpu $g:literal [$a:expr, $b:expr, $c:expr], |$v:ident : $T:ident| $body:expr) => {{
        // float16 computes in float32 (Note [Narrow dtypes]), on the GPU in one kernel.
        let xf = $crate::ops::pointwise::float_input($x);
        let args = [$a as f64, $b as f64, $c as f64];
        match $crate::kernels::unary_with($g, &xf, args)? {
            Some(out) => out,
            None => fmap!(&xf, |$v: $T| $body),
        }
    }};
    ($x:expr, |$v:ident : $T:ident| $body:expr) => {{
        // float16 computes in float32 (Note [Narrow dtypes]).
        let xf = $crate::ops::pointwise::float_input($x);
        let x = $crate::ops::creation::wide(&xf);
        let out = match x.dtype() {
            DType::F32 => {
                #[allow(dead_code)]
                type $T = f32;
                map::<f32, f32>(&x, move |$v: f32| $body)
            }
            DType::F64 => {
                #[allow(dead_code)]
                type $T = f64;
                map::<f64, f64>(&x, move |$v: f64| $body)
            }
            _ => unreachable!("float_input casts, wide widens"),
        };
        $crate::ops::creation::narrow(out, xf.dtype())
    }};
}

/// What a unary op's backward reads.
#[derive(Clone, Copy)]
enum Save {
    Input,
    Nothing,
}

/// Record `f(grad, saved)` as the backward of the unary op `x -> out`.
fn unary_node(
    x: &Tensor,
    out: Tensor,
    name: &'static str,
    save: Save,
    f: impl Fn(&Tensor, &Tensor) -> Result<Tensor> + Send + Sync + 'static,
) -> Result<Tensor> {
    if !needs_grad(&[x]) {
        return Ok(out);
    }
    let (saved, names): (_, &'static [&'static str]) = match save {
        Save::Input => (vec![SavedTensor::input(x)?], &["self"]),
        Save::Nothing => (vec![], &[]),
    };
    let out = record_formula(out, &[x], name, saved, move |g, s| {
        Ok(vec![Some(f(g, s.first().unwrap_or(g))?)])
    });
    describe(&out, names, Vec::new());
    Ok(out)
}

/// `1 - x²`.
fn one_minus_sq(x: &Tensor) -> Result<Tensor> {
    rsubs(1.0, &mul(x, x)?)
}

pub fn square(x: &Tensor) -> Result<Tensor> {
    // PyTorch computes square as pow(x, 2) (PowBackward0); bools become int64.
    let x = if x.dtype() == DType::Bool {
        cast_data(x, DType::I64)
    } else {
        x.clone()
    };
    crate::ops::binary::binary(
        crate::ops::binary::BinaryOp::Pow,
        Operand::Tensor(x),
        Operand::Scalar(Scalar::Int(2)),
    )
}

use crate::ops::binary_kernels_decl::{DivModOp, ExtremumOp, LogicalOp};

/// Round half to even, optionally at `decimals` digits (negative: left of the point).
/// `decimals` given (even 0) is PyTorch's `round.decimals` overload: RoundBackward1, floats only.
pub fn round(x: &Tensor, decimals: Option<i64>) -> Result<Tensor> {
    let (name, decimals) = match decimals {
        None => ("RoundBackward0", 0),
        Some(d) => {
            if !x.dtype().is_floating_point() {
                let kernel = if d == 0 { "round_vml_cpu" } else { "round_cpu" };
                return Err(crate::dtype::unsupported(kernel, x.dtype()));
            }
            ("RoundBackward1", d)
        }
    };
    if decimals == 0 {
        let out = crate::ops::unary::unary_data(UnaryOp::Round, x)?;
        return unary_node(x, out, name, Save::Nothing, |g, _| Ok(zeros_like(g)));
    }
    let p = 10f64.powi(decimals.unsigned_abs() as i32);
    let out = if x.dtype() == DType::F32 && x.device() == crate::tensor::Device::Gpu {
        // The float32 kernel's steps on the GPU: scale, round half to even, scale back.
        let _g = crate::autograd::GradModeGuard::new(false);
        let pt = Tensor::scalar(Scalar::Float(p), DType::F32);
        type F = fn(&Tensor, &Tensor) -> Result<Tensor>;
        let (there, back): (F, F) = if decimals > 0 { (mul, div) } else { (div, mul) };
        let r = round(&there(x, &pt)?, None)?;
        back(&r, &pt)?
    } else if decimals > 0 {
        fmap!(x, |v: T| (v * p as T).round_ties_even() / p as T)
    } else {
        fmap!(x, |v: T| (v / p as T).round_ties_even() * p as T)
    };
    unary_node(x, out, "RoundBackward1", Save::Nothing, |g, _| {
        Ok(zeros_like(g))
    })
}
// ---- activations ----------------------------------------------------------------------------

pub fn silu(x: &Tensor) -> Result<Tensor> {
    crate::dtype::check_float("silu_cpu", x.dtype())?;
    let out = fmap!(x, gpu "v * sigmoid(v)", |v: T| v / (1.0 + (-v).vexp()));
    unary_node(x, out, "SiluBackward0", Save::Input, |g, x| {
        // s * (1 + x * (1 - s))
        let s = arith::un(UnaryOp::Sigmoid, x)?;
        let inner = arith::adds(&mul(x, &rsubs(1.0, &s)?)?, 1.0)?;
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
            let inner = muls(&add(x, &muls(&mul(&x2, x)?, GELU_C)?)?, SQRT_2_OVER_PI)?;
            let t = arith::un(UnaryOp::Tanh, &inner)?;
            let left = muls(&arith::adds(&t, 1.0)?, 0.5)?;
            let dinner = muls(
                &arith::adds(&muls(&x2, 3.0 * GELU_C)?, 1.0)?,
                SQRT_2_OVER_PI,
            )?;
            let right = mul(&muls(x, 0.5)?, &mul(&one_minus_sq(&t)?, &dinner)?)?;
            add(&left, &right)?
        } else {
            // Φ(x) + x φ(x)
            let cdf = muls(
                &arith::adds(
                    &crate::ops::unary::erf(&muls(x, std::f64::consts::FRAC_1_SQRT_2)?)?,
                    1.0,
                )?,
                0.5,
            )?;
            let pdf = muls(
                &arith::un(UnaryOp::Exp, &muls(&mul(x, x)?, -0.5)?)?,
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
        let bx = muls(x, beta)?;
        let s = arith::un(UnaryOp::Sigmoid, &bx)?;
        let above = cmps(CmpOp::Gt, &bx, threshold)?;
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
    let f: arith::GradFn = std::sync::Arc::new(move |g, x| {
        let pos = cmps(CmpOp::Gt, x, 0.0)?;
        let slope = muls(&arith::un(UnaryOp::Exp, x)?, alpha)?;
        where_(
            &pos,
            Operand::Tensor(g.clone()),
            Operand::Tensor(mul(g, &slope)?),
        )
    });
    // PyTorch's elu_double_backward masks with x < 0 (strictly): zero at x == 0.
    let fb = f.clone();
    let fx: arith::GradXFn =
        std::sync::Arc::new(move |gg, g, x| keep(&cmps(CmpOp::Lt, x, 0.0)?, &fb(&mul(gg, g)?, x)?));
    unary_node(x, out, "EluBackward0", Save::Input, move |g, x| {
        arith::backward_node("EluBackwardBackward0", g, x, f.clone(), Some(fx.clone()))
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
    let f: arith::GradFn = std::sync::Arc::new(move |g, x| {
        let pos = cmps(CmpOp::Gt, x, 0.0)?;
        where_(
            &pos,
            Operand::Tensor(g.clone()),
            Operand::Tensor(muls(g, slope)?),
        )
    });
    unary_node(x, out, "LeakyReluBackward0", Save::Input, move |g, x| {
        if inplace && slope < 0.0 {
            return Err(Error::Runtime("In-place leakyReLu backward calculation is triggered with a negative slope which is not supported. This is caused by calling in-place forward function with a negative slope, please call out-of-place version instead. File an issue at https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu backward calculation with negative slope".into()));
        }
        arith::backward_node("LeakyReluBackwardBackward0", g, x, f.clone(), None)
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
    let f: arith::GradFn = std::sync::Arc::new(move |g, x| {
        let inside = arith::mul(&cmps(CmpOp::Gt, x, lo)?, &cmps(CmpOp::Lt, x, hi)?)?;
        keep(&inside, g)
    });
    unary_node(x, out, "HardtanhBackward0", Save::Input, move |g, x| {
        arith::backward_node("HardtanhBackwardBackward0", g, x, f.clone(), None)
    })
}

// ---- clamp and nan_to_num --------------------------------------------------------------------

/// clamp to [p.a, p.b] on the GPU (an absent bound is -inf / +inf).
pub const CLAMP_WGSL: &str = "clamp_(v, p.a, p.b)";
/// nan_to_num on the GPU: NaN -> p.a, +inf -> p.b, -inf -> p.c.
pub const NAN_TO_NUM_WGSL: &str = "nan_to_num_(v, p.a, p.b, p.c)";

fn clamp_scalar_data(x: &Tensor, lo: Option<Scalar>, hi: Option<Scalar>) -> Result<Tensor> {
    let bounds = [
        lo.map_or(f64::NEG_INFINITY, |s| s.to_f64()),
        hi.map_or(f64::INFINITY, |s| s.to_f64()),
        0.0,
    ];
    if let Some(out) = crate::kernels::unary_with(CLAMP_WGSL, x, bounds)? {
        return Ok(out);
    }
    // The type x and the bounds promote to (hardtanh on integers computes in float).
    let mut parts = vec![Operand::Tensor(x.clone()).participant()];
    parts.extend(
        [lo, hi]
            .into_iter()
            .flatten()
            .map(|s| Operand::Scalar(s).participant()),
    );
    let dtype = result_type(&parts);
    let xw = wide(&if dtype == x.dtype() {
        x.clone()
    } else {
        cast_data(x, dtype)
    });
    let d = xw.read();
    // A NaN bound makes every element NaN, as PyTorch fills the result.
    let nan_bound = [lo, hi].into_iter().flatten().any(|s| s.to_f64().is_nan());
    macro_rules! run {
        ($T:ty, $bound:expr) => {{
            let (lo, hi) = if nan_bound {
                (Some(<$T>::from_f64(f64::NAN)), None)
            } else {
                (lo.map($bound), hi.map($bound))
            };
            let src = d.storage.slice::<$T>();
            let v = if nan_bound {
                crate::backend::cpu::elementwise::unary(src, &d.layout, |_: $T| lo.unwrap())
            } else {
                crate::backend::cpu::elementwise::clamp(src, &d.layout, lo, hi)
            };
            Tensor::from_vec_on(v, &d.layout.shape, d.device())
        }};
    }
    let out = match xw.dtype() {
        DType::F32 => run!(f32, |s: Scalar| s.to_f64() as f32),
        DType::F64 => run!(f64, |s: Scalar| s.to_f64()),
        DType::I64 => run!(i64, |s: Scalar| s.to_i64()),
        other => return Err(crate::dtype::unsupported("clamp_scalar_cpu", other)),
    };
    Ok(narrow(out, dtype))
}

const CLAMP_NONE: &str = "torch.clamp: At least one of 'min' or 'max' must not be None";

/// Which entry point a clamp came from: it names the node (and the kernel in errors).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ClampKind {
    Clamp,
    Min,
    Max,
}

impl ClampKind {
    /// The node name for number bounds (`scalar`) or tensor bounds.
    fn node(self, scalar: bool) -> &'static str {
        match (self, scalar) {
            (ClampKind::Clamp, true) => "ClampBackward1",
            (ClampKind::Clamp, false) => "ClampBackward0",
            (ClampKind::Min, true) => "ClampMinBackward0",
            (ClampKind::Min, false) => "ClampMinBackward1",
            (ClampKind::Max, true) => "ClampMaxBackward0",
            (ClampKind::Max, false) => "ClampMaxBackward1",
        }
    }
}

/// `clamp(x, min, max)` with Python numbers (ClampBackward1; ClampMin/MaxBackward0 for
/// `clamp_min` / `clamp_max`). The result type promotes x with the bounds, as PyTorch's.
pub fn clamp(
    x: &Tensor,
    lo: Option<Scalar>,
    hi: Option<Scalar>,
    kind: ClampKind,
) -> Result<Tensor> {
    if lo.is_none() && hi.is_none() {
        return Err(Error::Runtime(CLAMP_NONE.replace("torch", "gradrs")));
    }
    let mut parts = vec![Operand::Tensor(x.clone()).participant()];
    parts.extend(
        [lo, hi]
            .into_iter()
            .flatten()
            .map(|s| Operand::Scalar(s).participant()),
    );
    let dtype = result_type(&parts);
    if dtype == DType::Bool {
        let kernel = match (lo.is_some(), hi.is_some()) {
            (true, true) => "clamp_scalar_cpu",
            (true, false) => "clamp_min_scalar_cpu",
            _ => "clamp_max_scalar_cpu",
        };
        return Err(crate::dtype::unsupported(kernel, dtype));
    }
    // Only integer and bool inputs change dtype here, and those never require grad.
    let x = &if dtype != x.dtype() {
        cast_data(x, dtype)
    } else {
        x.clone()
    };
    let out = clamp_scalar_data(x, lo, hi)?;
    unary_node(x, out, kind.node(true), Save::Input, move |g, x| {
        let mut mask: Option<Tensor> = None;
        for (bound, op) in [(lo, CmpOp::Ge), (hi, CmpOp::Le)] {
            if let Some(b) = bound {
                let m = cmps(op, x, b.to_f64())?;
                mask = Some(match mask {
                    Some(p) => arith::mul(&p, &m)?,
                    None => m,
                });
            }
        }
        keep(&mask.expect("a bound"), g)
    })
}

/// `clamp(x, min, max)` with tensor bounds (ClampBackward0): gradients reach the bounds too.
pub fn clamp_tensor(
    x: &Tensor,
    lo: Option<&Tensor>,
    hi: Option<&Tensor>,
    kind: ClampKind,
) -> Result<Tensor> {
    if lo.is_none() && hi.is_none() {
        return Err(Error::Runtime(CLAMP_NONE.replace("torch", "gradrs")));
    }
    let mut out = Operand::Tensor(x.clone());
    if let Some(lo) = lo {
        out = Operand::Tensor(extremum_data(&out, &lo.into(), true)?);
    }
    if let Some(hi) = hi {
        out = Operand::Tensor(extremum_data(&out, &hi.into(), false)?);
    }
    let Operand::Tensor(out) = out else {
        unreachable!()
    };
    let mut inputs = vec![x];
    inputs.extend(lo);
    inputs.extend(hi);
    if !needs_grad(&inputs) {
        return Ok(out);
    }
    let saved = inputs
        .iter()
        .map(|t| SavedTensor::input(t))
        .collect::<Result<_>>()?;
    let (has_lo, has_hi) = (lo.is_some(), hi.is_some());
    Ok(record_formula(
        out,
        &inputs,
        kind.node(false),
        saved,
        move |g, s| {
            let x = &s[0];
            let lo = has_lo.then(|| s[1].clone());
            let hi = has_hi.then(|| s[s.len() - 1].clone());
            let mut grads = Vec::new();
            match (&lo, &hi) {
                (Some(lo), Some(hi)) => {
                    let inside = arith::mul(&cmp(CmpOp::Ge, x, lo)?, &cmp(CmpOp::Le, x, hi)?)?;
                    grads.push(Some(keep(&inside, g)?));
                    let below = arith::mul(&cmp(CmpOp::Lt, x, lo)?, &cmp(CmpOp::Lt, lo, hi)?)?;
                    grads.push(Some(keep(&below, g)?));
                    let above = arith::add(&cmp(CmpOp::Gt, x, hi)?, &cmp(CmpOp::Lt, hi, lo)?)?;
                    grads.push(Some(keep(&above, g)?));
                }
                (Some(lo), None) => {
                    grads.push(Some(keep(&cmp(CmpOp::Ge, x, lo)?, g)?));
                    grads.push(Some(keep(&cmp(CmpOp::Lt, x, lo)?, g)?));
                }
                (None, Some(hi)) => {
                    grads.push(Some(keep(&cmp(CmpOp::Le, x, hi)?, g)?));
                    grads.push(Some(keep(&cmp(CmpOp::Gt, x, hi)?, g)?));
                }
                (None, None) => unreachable!(),
            }
            Ok(grads)
        },
    ))
}

pub fn nan_to_num(
    x: &Tensor,
    nan: Option<f64>,
    posinf: Option<f64>,
    neginf: Option<f64>,
) -> Result<Tensor> {
    let nan = nan.unwrap_or(0.0);
    // The defaults are the dtype's own largest values (float16 is held in float32 words).
    let max = if x.dtype() == DType::F16 {
        half::f16::MAX.to_f64()
    } else {
        f32::MAX as f64
    };
    let gpu_args = [nan, posinf.unwrap_or(max), neginf.unwrap_or(-max)];
    let out = match crate::kernels::unary_with(NAN_TO_NUM_WGSL, x, gpu_args)? {
        Some(out) => out,
        None => match x.dtype() {
            DType::F32 => {
                let (p, n) = (
                    posinf.map_or(f32::MAX, |v| v as f32),
                    neginf.map_or(f32::MIN, |v| v as f32),
                );
                map::<f32, f32>(x, move |v| fix_nonfinite(v, nan as f32, p, n))
            }
            DType::F64 => {
                let (p, n) = (posinf.unwrap_or(f64::MAX), neginf.unwrap_or(f64::MIN));
                map::<f64, f64>(x, move |v| fix_nonfinite(v, nan, p, n))
            }
            DType::F16 => {
                let max = half::f16::MAX.to_f32();
                let (p, n) = (
                    posinf.map_or(max, |v| v as f32),
                    neginf.map_or(-max, |v| v as f32),
                );
                let out = map::<f32, f32>(&wide(x), move |v| fix_nonfinite(v, nan as f32, p, n));
                narrow(out, DType::F16)
            }
            _ => contiguous_clone(x),
        },
    };
    if !needs_grad(&[x]) {
        return Ok(out);
    }
    // |x| < inf is false for NaN and the infinities (one comparison, on x's device).
    let finite = if x.dtype().is_floating_point() {
        let _g = crate::autograd::GradModeGuard::new(false);
        cmps(CmpOp::Lt, &arith::un(UnaryOp::Abs, x)?, f64::INFINITY)?
    } else {
        crate::dispatch!(x.dtype(), T => map::<T, bool>(x, |v| Element::to_f64(v).is_finite()))
    };
    unary_node(x, out, "NanToNumBackward0", Save::Nothing, move |g, _| {
        keep(&finite, g)
    })
}

fn fix_nonfinite<T: Element>(v: T, nan: T, posinf: T, neginf: T) -> T {
    let f = v.to_f64();
    if f.is_nan() {
        nan
    } else if f == f64::INFINITY {
        posinf
    } else if f == f64::NEG_INFINITY {
        neginf
    } else {
        v
    }
}

// ---- binary ---------------------------------------------------------------------------------

/// `maximum` (`max`) or `minimum` without autograd, with promotion; NaN propagates.
pub(crate) fn extremum_data(a: &Operand, b: &Operand, max: bool) -> Result<Tensor> {
    let (ta, tb, shape, dtype) = promoted(a, b, false)?;
    let op = if max {
        ExtremumOp::Maximum
    } else {
        ExtremumOp::Minimum
    };
    if let Some(out) = crate::kernels::binary_to(op.wgsl(), &ta, &tb, &shape, dtype)? {
        return Ok(narrow(out, dtype));
    }
    Ok(narrow(
        match ta.dtype() {
            DType::F32 | DType::F64 => op.zip_float(&ta, &tb, &shape)?,
            DType::I64 => zip::<i64, i64>(
                &ta,
                &tb,
                &shape,
                move |p, q| {
                    if max {
                        p.max(q)
                    } else {
                        p.min(q)
                    }
                },
            )?,
            DType::Bool => zip::<bool, bool>(
                &ta,
                &tb,
                &shape,
                move |p, q| {
                    if max {
                        p | q
                    } else {
                        p & q
                    }
                },
            )?,
            DType::I32 | DType::F16 => unreachable!("promoted computes wide"),
        },
        dtype,
    ))
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
    let out = record_formula(out, &[a, b], name, saved, move |g, s| {
        let (x, y) = (&s[0], &s[1]);
        // Ties split the gradient evenly, as PyTorch does.
        let shared = where_(
            &cmp(CmpOp::Eq, x, y)?,
            Operand::Tensor(muls(g, 0.5)?),
            Operand::Tensor(g.clone()),
        )?;
        let (lose_a, lose_b) = if max {
            (cmp(CmpOp::Lt, x, y)?, cmp(CmpOp::Gt, x, y)?)
        } else {
            (cmp(CmpOp::Gt, x, y)?, cmp(CmpOp::Lt, x, y)?)
        };
        Ok(vec![
            Some(arith::zero_where(&lose_a, &shared)?),
            Some(arith::zero_where(&lose_b, &shared)?),
        ])
    });
    describe(&out, &["self", "other"], Vec::new());
    Ok(out)
}
pub fn maximum(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    extremum(a, b, true)
}
pub fn minimum(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    extremum(a, b, false)
}

/// Operands as tensors of their common dtype (floating point when `float`), broadcast shape.
/// The operands in the dtype the op computes in (Note [Narrow dtypes]), their broadcast shape,
/// and the promoted dtype the result is narrowed back to.
fn promoted(a: &Operand, b: &Operand, float: bool) -> Result<(Tensor, Tensor, Vec<usize>, DType)> {
    let mut dtype = result_type(&[a.participant(), b.participant()]);
    if float && !dtype.is_floating_point() {
        dtype = crate::dtype::default_float();
    }
    let (ta, tb) = (
        materialize(a, dtype.compute()),
        materialize(b, dtype.compute()),
    );
    let shape = broadcast_shapes(&ta.shape(), &tb.shape())?.to_vec();
    Ok((ta, tb, shape, dtype))
}

/// Record a binary node: inputs are the tensor operands; `f` gets `(g, [a, b])` and
/// returns gradients for `(a, b)` (the one for a Python number is dropped).
fn binary_node(
    a: &Operand,
    b: &Operand,
    out: Tensor,
    name: &'static str,
    f: impl Fn(&Tensor, &Tensor, &Tensor) -> Result<(Tensor, Tensor)> + Send + Sync + 'static,
) -> Result<Tensor> {
    if !crate::autograd::is_grad_enabled() || !(a.requires_grad() || b.requires_grad()) {
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
    let out = record_formula(out, &inputs, name, saved, move |g, s| {
        let (ga, gb) = f(g, &s[0], &s[1])?;
        Ok(if b_is_tensor {
            vec![Some(ga), Some(gb)]
        } else {
            vec![Some(ga)]
        })
    });
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
    let on_gpu = crate::kernels::binary_to(op.wgsl(), &ta, &tb, &shape, dtype)?;
    let out = match on_gpu {
        Some(out) => out,
        None => match ta.dtype() {
            DType::F32 | DType::F64 => op.zip_float(&ta, &tb, &shape)?,
            DType::I64 => {
                int_div_check(&tb)?;
                zip::<i64, i64>(&ta, &tb, &shape, move |p, q| {
                    let m = p.wrapping_rem(q);
                    if python && m != 0 && ((q < 0) != (m < 0)) {
                        m + q
                    } else {
                        m
                    }
                })?
            }
            DType::I32 | DType::F16 => unreachable!("promoted computes wide"),
            DType::Bool => {
                return Err(crate::dtype::unsupported(
                    if python { "remainder_cpu" } else { "fmod_cpu" },
                    DType::Bool,
                ))
            }
        },
    };
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
    let on_gpu = crate::kernels::binary_to(op.wgsl(), &ta, &tb, &shape, dtype)?;
    let out = match on_gpu {
        Some(out) => out,
        None => match ta.dtype() {
            DType::F32 | DType::F64 => op.zip_float(&ta, &tb, &shape)?,
            DType::I64 => {
                int_div_check(&tb)?;
                zip::<i64, i64>(&ta, &tb, &shape, move |p, q| {
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
            DType::I32 | DType::F16 => unreachable!("promoted computes wide"),
        },
    };
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
    record_formula(out, &inputs, "NotImplemented", vec![], move |_, _| {
        Err(Error::Runtime(format!(
            "derivative for aten::{aten} is not implemented"
        )))
    })
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

/// `logical_and/or/xor`: truthiness of each side, bool result, no gradient.
pub fn logical(a: &Tensor, b: &Tensor, op: &str) -> Result<Tensor> {
    let (ba, bb) = (cast_data(a, DType::Bool), cast_data(b, DType::Bool));
    let shape = broadcast_shapes(&ba.shape(), &bb.shape())?;
    let op = match op {
        "and" => LogicalOp::And,
        "or" => LogicalOp::Or,
        _ => LogicalOp::Xor,
    };
    match crate::kernels::logical(op.wgsl(), &ba, &bb, &shape)? {
        Some(out) => Ok(out),
        None => op.zip_any(&ba, &bb, &shape),
    }
}
pub fn logical_not(a: &Tensor) -> Result<Tensor> {
    let ba = cast_data(a, DType::Bool);
    // not v = v xor true.
    let t = Tensor::scalar(Scalar::Bool(true), DType::Bool);
    match crate::kernels::logical(LogicalOp::Xor.wgsl(), &ba, &t, &ba.shape())? {
        Some(out) => Ok(out),
        None => Ok(map::<bool, bool>(&ba, |v| !v)),
    }
}

/// `lerp(start, end, weight)`: start + weight * (end - start), computed from the nearer end.
pub fn lerp(start: &Tensor, end: &Tensor, weight: Operand) -> Result<Tensor> {
    // PyTorch's order: the dtype checks, broadcasting (start, end, weight), the kernel's dtype.
    let same_dtype = |t: &Tensor, what: &str| {
        if t.dtype() == start.dtype() {
            return Ok(());
        }
        Err(Error::Runtime(format!(
            "expected dtype {} for `{what}` but got dtype {}",
            crate::dtype::cpp_name(start.dtype()),
            crate::dtype::cpp_name(t.dtype())
        )))
    };
    same_dtype(end, "end")?;
    if let Some(w) = weight.as_tensor() {
        same_dtype(w, "weight")?;
    }
    let w = materialize(&weight, start.dtype());
    let shape = broadcast_shapes(&broadcast_shapes(&start.shape(), &end.shape())?, &w.shape())?;
    if !start.dtype().is_floating_point() {
        let kernel = match weight {
            Operand::Tensor(_) => "lerp_kernel_tensor",
            Operand::Scalar(_) => "lerp_kernel_scalar",
        };
        return Err(crate::dtype::unsupported(kernel, start.dtype()));
    }
    let device = crate::tensor::Device::of(&[start, end, &w])?;
    let out = match crate::kernels::lerp(start, end, &w, &shape)? {
        Some(out) => out,
        None => {
            let sizes = crate::tensor::shape::sizes_i64(&shape);
            let (s, d, wv) = {
                let _g = crate::autograd::GradModeGuard::new(false);
                let diff = sub(end, start)?;
                let e = |t: &Tensor| crate::ops::movement::expand(t, &sizes);
                (e(start)?, e(&diff)?, e(&w)?)
            };
            crate::dispatch!(start.dtype(), T => {
                let (sv, dv, ww) = (s.to_vec::<T>(), d.to_vec::<T>(), wv.to_vec::<T>());
                let v: Vec<T> = sv.iter().zip(dv.iter()).zip(ww.iter()).map(|((&s, &d), &w)| {
                    let (s, d, w) = (s.to_f64(), d.to_f64(), w.to_f64());
                    let r = if w.abs() < 0.5 { s + w * d } else { (s + d) - d * (1.0 - w) };
                    T::from_f64(r)
                }).collect();
                Tensor::from_vec_on(v, &shape, device)
            })
        }
    };
    let mut inputs = vec![start, end];
    let w_tensor = weight.as_tensor().cloned();
    if let Some(t) = &w_tensor {
        inputs.push(t);
    }
    if !needs_grad(&inputs) {
        return Ok(out);
    }
    let name = if w_tensor.is_some() {
        "LerpBackward1"
    } else {
        "LerpBackward0"
    };
    let mut saved = vec![SavedTensor::input(&w)?];
    if w_tensor.is_some() {
        saved.push(SavedTensor::input(start)?);
        saved.push(SavedTensor::input(end)?);
    }
    Ok(record_formula(out, &inputs, name, saved, move |g, s| {
        let w = &s[0];
        let mut grads = vec![Some(mul(g, &rsubs(1.0, w)?)?), Some(mul(g, w)?)];
        if s.len() == 3 {
            grads.push(Some(mul(g, &sub(&s[2], &s[1])?)?));
        }
        Ok(grads)
    }))
}

/// `addcmul(input, t1, t2, value)` = input + value * t1 * t2.
pub fn addcmul(input: &Tensor, t1: &Tensor, t2: &Tensor, value: Scalar) -> Result<Tensor> {
    addc(input, t1, t2, value, false)
}
/// `addcdiv(input, t1, t2, value)` = input + value * t1 / t2.
pub fn addcdiv(input: &Tensor, t1: &Tensor, t2: &Tensor, value: Scalar) -> Result<Tensor> {
    if !t1.dtype().is_floating_point() && !t2.dtype().is_floating_point() {
        return Err(Error::Runtime("Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), for all dtypes.".replace("torch.", "gradrs.")));
    }
    addc(input, t1, t2, value, true)
}
fn addc(input: &Tensor, t1: &Tensor, t2: &Tensor, value: Scalar, divide: bool) -> Result<Tensor> {
    // Broadcast errors name the sizes in PyTorch's operand order: input, tensor1, tensor2.
    broadcast_shapes(&broadcast_shapes(&input.shape(), &t1.shape())?, &t2.shape())?;
    // The value takes the tensors' result type: an integer result truncates it (PyTorch).
    let dtype = result_type(&[input, t1, t2].map(|t| Operand::Tensor(t.clone()).participant()));
    let value = if !dtype.is_floating_point() && value.is_float() {
        Scalar::Int(value.to_f64().trunc() as i64)
    } else {
        value
    };
    let out = {
        let _g = crate::autograd::GradModeGuard::new(false);
        let prod = if divide { div(t1, t2)? } else { mul(t1, t2)? };
        let scaled = crate::ops::binary::binary(
            crate::ops::binary::BinaryOp::Mul,
            Operand::Tensor(prod),
            Operand::Scalar(value),
        )?;
        add(input, &scaled)?
    };
    if !needs_grad(&[input, t1, t2]) {
        return Ok(out);
    }
    let v = value.to_f64();
    // Save only what the formulas of the inputs that need a gradient read, as PyTorch does: a
    // tensor modified in place afterwards must not fail a backward that never reads it.
    // addcmul: tensor1 for tensor2's gradient and vice versa; addcdiv: tensor2 for both.
    let (need1, need2) = (t1.requires_grad(), t2.requires_grad());
    let (save1, save2) = (need2, need1 || divide);
    let mut saved = Vec::new();
    if save1 {
        saved.push(SavedTensor::input(t1)?);
    }
    if save2 {
        saved.push(SavedTensor::input(t2)?);
    }
    let name = if divide {
        "AddcdivBackward0"
    } else {
        "AddcmulBackward0"
    };
    Ok(record_formula(
        out,
        &[input, t1, t2],
        name,
        saved,
        move |g, s| {
            let mut s = s.iter();
            let a = if save1 { s.next() } else { None };
            let b = if save2 { s.next() } else { None };
            let gv = muls(g, v)?;
            let (mut g1, mut g2) = (None, None);
            if divide {
                let b = b.expect("addcdiv saves tensor2");
                if need1 {
                    g1 = Some(div(&gv, b)?);
                }
                if let Some(a) = a {
                    g2 = Some(div(&mul(&neg(&gv)?, a)?, &mul(b, b)?)?);
                }
            } else {
                if let Some(b) = b {
                    g1 = Some(mul(&gv, b)?);
                }
                if let Some(a) = a {
                    g2 = Some(mul(&gv, a)?);
                }
            }
            Ok(vec![Some(g.clone()), g1, g2])
        },
    ))
}

/// `&`, `|`, `^` on bool and integer tensors (bools: logical; ints: bitwise).
pub fn bitwise(a: &Tensor, b: Operand, op: &str) -> Result<Tensor> {
    let a_op = Operand::Tensor(a.clone());
    let (ta, tb, shape, dtype) = promoted(&a_op, &b, false)?;
    Ok(narrow(
        match ta.dtype() {
            DType::Bool => {
                // On bools these are the logical ops, which the GPU has (masks stay there).
                let l = match op {
                    "and" => LogicalOp::And,
                    "or" => LogicalOp::Or,
                    _ => LogicalOp::Xor,
                };
                match crate::kernels::logical(l.wgsl(), &ta, &tb, &shape)? {
                    Some(out) => out,
                    None => l.zip_any(&ta, &tb, &shape)?,
                }
            }
            DType::I64 => {
                let f: fn(i64, i64) -> i64 = match op {
                    "and" => |p, q| p & q,
                    "or" => |p, q| p | q,
                    _ => |p, q| p ^ q,
                };
                zip::<i64, i64>(&ta, &tb, &shape, f)?
            }
            // Named by the promoted dtype (float16 computes as float32).
            _ => {
                return Err(crate::dtype::unsupported(
                    &format!("bitwise_{op}_cpu"),
                    dtype,
                ))
            }
        },
        dtype,
    ))
}

/// `~x`: logical not of bools, bitwise not of ints.
pub fn bitwise_not(a: &Tensor) -> Result<Tensor> {
    Ok(match a.dtype() {
        DType::Bool => return logical_not(a),
        DType::I64 => map::<i64, i64>(a, |v| !v),
        DType::I32 => map::<i32, i32>(a, |v| !v),
        d => return Err(crate::dtype::unsupported("bitwise_not_cpu", d)),
    })
}
