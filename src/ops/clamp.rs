//! clamp with number bounds (declared in `ops/unary_decl.rs`: here its kernel, formula and the
//! promotion of x with the bounds), clamp with tensor bounds (composed), and nan_to_num.

use crate::autograd::{needs_grad, record_formula_jvp, Jvp, SavedTensor};
use crate::dtype::{result_type, DType, Scalar};
use crate::error::{Error, Result};
use crate::ops::arithmetic::{add, mul};
use crate::ops::compare::extremum_data;
use crate::ops::compare::{ge, gt, le, lt};
use crate::ops::creation::{cast_data, contiguous_clone, narrow, wide};
use crate::ops::pointwise::unary_node;
use crate::ops::unary::{self, args_of, map, unary_args, UnaryOp};
use crate::ops::where_::where_;
use crate::ops::Operand;
use crate::tensor::{Element, Tensor};

/// nan_to_num on the GPU: NaN -> p.a, +inf -> p.b, -inf -> p.c.
pub const NAN_TO_NUM_WGSL: &str = "nan_to_num_(v, p.a, p.b, p.c)";

/// clamp's kernel (the declared `clamp`, `clamp_min`, `clamp_max`, `hardtanh`): `v` held to
/// [lo, hi] (None: unbounded; lo > hi gives hi); NaN stays NaN and a NaN bound gives NaN, as
/// PyTorch's.
#[inline(always)]
pub(crate) fn clamp_value<T: Element>(v: T, lo: Option<f64>, hi: Option<f64>) -> T {
    let (lo, hi) = (lo.unwrap_or(f64::NEG_INFINITY), hi.unwrap_or(f64::INFINITY));
    // Selects, no early return: the bounds' tests and conversions are the same for every
    // element, and the loop keeps no branch (it vectorizes).
    let nan_bound = lo.is_nan() || hi.is_nan();
    let (lo, hi) = (T::from_f64(lo), T::from_f64(hi));
    let v = if v < lo { lo } else { v };
    let v = if v > hi { hi } else { v };
    if nan_bound {
        T::from_f64(f64::NAN)
    } else {
        v
    }
}

/// clamp's integer kernel: the bounds truncated to integers (PyTorch's for hardtanh; clamp's
/// own integer bounds are integers already).
pub(crate) fn clamp_int(v: i64, lo: Option<f64>, hi: Option<f64>) -> i64 {
    let v = lo.map_or(v, |lo| v.max(lo as i64));
    hi.map_or(v, |hi| v.min(hi as i64))
}

/// clamp's derivative: `g` where `lo <= x <= hi` (a NaN bound: nowhere), else 0.
pub(crate) fn clamp_grad(
    g: &Tensor,
    x: &Tensor,
    lo: Option<f64>,
    hi: Option<f64>,
) -> Result<Tensor> {
    let mask = match (lo, hi) {
        (Some(lo), Some(hi)) => mul(&ge(x, lo)?, &le(x, hi)?)?,
        (Some(lo), None) => ge(x, lo)?,
        (None, Some(hi)) => le(x, hi)?,
        (None, None) => return Ok(g.clone()),
    };
    where_(&mask, g, 0)
}

pub(crate) fn clamp_bool(_: &Tensor) -> Result<Tensor> {
    Err(crate::dtype::unsupported("clamp_scalar_cpu", DType::Bool))
}
pub(crate) fn clamp_min_bool(_: &Tensor) -> Result<Tensor> {
    Err(crate::dtype::unsupported(
        "clamp_min_scalar_cpu",
        DType::Bool,
    ))
}
pub(crate) fn clamp_max_bool(_: &Tensor) -> Result<Tensor> {
    Err(crate::dtype::unsupported(
        "clamp_max_scalar_cpu",
        DType::Bool,
    ))
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
    /// The node of tensor bounds (number bounds: the declared entries' nodes).
    fn tensor_node(self) -> &'static str {
        match self {
            ClampKind::Clamp => "ClampBackward0",
            ClampKind::Min => "ClampMinBackward1",
            ClampKind::Max => "ClampMaxBackward1",
        }
    }
}

/// `clamp(x, min, max)` with Python numbers: the declared `clamp` (ClampBackward1),
/// `clamp_min` / `clamp_max` (ClampMin/MaxBackward0). The result type promotes x with the
/// bounds, as PyTorch's, before the declared kernel runs.
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
    let (lo, hi) = (lo.map(|s| s.to_f64()), hi.map(|s| s.to_f64()));
    match kind {
        ClampKind::Clamp => unary_args(UnaryOp::Clamp, x, args_of(&[lo, hi])),
        ClampKind::Min => unary_args(UnaryOp::ClampMin, x, args_of(&[lo])),
        ClampKind::Max => unary_args(UnaryOp::ClampMax, x, args_of(&[hi])),
    }
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
        .collect::<Result<Vec<_>>>()?;
    let (has_lo, has_hi) = (lo.is_some(), hi.is_some());
    Ok(record_formula_jvp(
        out,
        &inputs,
        kind.tensor_node(),
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
        // derivatives.yaml: clamp's `clamp_jvp` (a tie takes the bound's tangent, `min > max`
        // the max's), clamp_min's `where(self_p >= min_p, self_t, min_t)` and clamp_max's
        // `where(self_p <= max_p, self_t, max_t)`; a missing tangent is zeros (`where`
        // materializes an efficient zero tensor).
        Jvp::of(move |t, s| {
            if t.iter().all(Option::is_none) {
                return Ok(vec![None]);
            }
            let tangent = |i: usize| match &t[i] {
                Some(ti) => ti.clone(),
                None => crate::ops::creation::zeros_like(&s[i]),
            };
            let x = &s[0];
            let out = match (has_lo, has_hi, kind) {
                (true, true, _) => {
                    let (lo, hi) = (&s[1], &s[2]);
                    let inner = where_(&gt(x, hi)?, tangent(2), tangent(0))?;
                    let inner = where_(&lt(x, lo)?, tangent(1), inner)?;
                    where_(&gt(lo, hi)?, tangent(2), inner)?
                }
                (true, false, ClampKind::Min) => where_(&ge(x, &s[1])?, tangent(0), tangent(1))?,
                (true, false, _) => where_(&gt(x, &s[1])?, tangent(0), tangent(1))?,
                (false, true, ClampKind::Max) => where_(&le(x, &s[1])?, tangent(0), tangent(1))?,
                (false, true, _) => where_(&lt(x, &s[1])?, tangent(0), tangent(1))?,
                (false, false, _) => return Err(Error::Runtime(CLAMP_NONE.into())),
            };
            Ok(vec![Some(out)])
        }),
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
    } else if x.dtype() == DType::BF16 {
        half::bf16::MAX.to_f64()
    } else {
        f32::MAX as f64
    };
    let gpu_args = [nan, posinf.unwrap_or(max), neginf.unwrap_or(-max)];
    let out = crate::kernels::unary(NAN_TO_NUM_WGSL, gpu_args, x, |x| {
        Ok(match x.dtype() {
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
            DType::BF16 => {
                let max = half::bf16::MAX.to_f32();
                let (p, n) = (
                    posinf.map_or(max, |v| v as f32),
                    neginf.map_or(-max, |v| v as f32),
                );
                let out = map::<f32, f32>(&wide(x), move |v| fix_nonfinite(v, nan as f32, p, n));
                narrow(out, DType::BF16)
            }
            _ => contiguous_clone(x),
        })
    })?;
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
    // PyTorch's `grad * isfinite(self)`: a product, so a NaN gradient at a NaN input stays NaN.
    unary_node(x, out, "NanToNumBackward0", move |g| mul(g, finite.clone()))
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
