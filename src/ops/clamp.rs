//! clamp (number and tensor bounds, clamp_min / clamp_max) and nan_to_num, with their
//! backward formulas.

use crate::autograd::{needs_grad, record_formula, SavedTensor};
use crate::dtype::{result_type, DType, Scalar};
use crate::error::{Error, Result};
use crate::ops::arithmetic::{add, mul};
use crate::ops::compare::extremum_data;
use crate::ops::compare::{compare, ge, gt, le, lt, CmpOp};
use crate::ops::creation::{cast_data, contiguous_clone, narrow, wide};
use crate::ops::pointwise::{unary_node, Save};
use crate::ops::unary::{self, map};
use crate::ops::where_::where_;
use crate::ops::Operand;
use crate::tensor::{Element, Tensor};

/// clamp to [p.a, p.b] on the GPU (an absent bound is -inf / +inf).
pub const CLAMP_WGSL: &str = "clamp_(v, p.a, p.b)";
/// nan_to_num on the GPU: NaN -> p.a, +inf -> p.b, -inf -> p.c.
pub const NAN_TO_NUM_WGSL: &str = "nan_to_num_(v, p.a, p.b, p.c)";

pub(crate) fn clamp_scalar_data(
    x: &Tensor,
    lo: Option<Scalar>,
    hi: Option<Scalar>,
) -> Result<Tensor> {
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
                let m = compare(op, x.into(), b.to_f64().into())?;
                mask = Some(match mask {
                    Some(p) => mul(&p, &m)?,
                    None => m,
                });
            }
        }
        where_(&mask.expect("a bound"), g, 0)
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
                    let inside = mul(&ge(x, lo)?, &le(x, hi)?)?;
                    grads.push(Some(where_(&inside, g, 0)?));
                    let below = mul(&lt(x, lo)?, &lt(lo, hi)?)?;
                    grads.push(Some(where_(&below, g, 0)?));
                    let above = add(&gt(x, hi)?, &lt(hi, lo)?)?;
                    grads.push(Some(where_(&above, g, 0)?));
                }
                (Some(lo), None) => {
                    grads.push(Some(where_(&ge(x, lo)?, g, 0)?));
                    grads.push(Some(where_(&lt(x, lo)?, g, 0)?));
                }
                (None, Some(hi)) => {
                    grads.push(Some(where_(&le(x, hi)?, g, 0)?));
                    grads.push(Some(where_(&gt(x, hi)?, g, 0)?));
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
        lt(&unary::abs(x)?, f64::INFINITY)?
    } else {
        crate::dispatch!(x.dtype(), T => map::<T, bool>(x, |v| Element::to_f64(v).is_finite()))
    };
    unary_node(x, out, "NanToNumBackward0", Save::Nothing, move |g, _| {
        where_(&finite, g, 0)
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
