//! More elementwise math: each op's forward map and its backward formula side by side.
//! Unary float ops compute integer and bool inputs in float32, as PyTorch does.

use crate::autograd::formula::describe;
use crate::autograd::{needs_grad, record_formula_jvp, Jvp, SavedTensor};
use crate::dtype::{result_type, DType, Scalar};
use crate::error::{Error, Result};
use crate::ops::arithmetic::{add, div, mul, rsub, sub};
use crate::ops::binary_kernels::materialize;
use crate::ops::creation::{cast_data, zeros_like};
use crate::ops::unary::neg;
use crate::ops::unary::{map, UnaryOp};
use crate::ops::Operand;
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
/// `fmap!(x, gpu "expr"[a, b, c], |v: T| body)`: the same, run on the GPU as the WGSL
/// expression `expr` in `v` (parameters `p.a`, `p.b`, `p.c`) where `x` is a float32 or
/// float16 GPU tensor (`kernels::unary` picks).
macro_rules! fmap {
    ($x:expr, gpu $g:literal, |$v:ident : $T:ident| $body:expr) => {
        fmap!($x, gpu $g[0.0, 0.0, 0.0], |$v: $T| $body)
    };
    ($x:expr, gpu $g:literal [$a:expr, $b:expr, $c:expr], |$v:ident : $T:ident| $body:expr) => {{
        // float16 computes in float32 (Note [Narrow dtypes]), on the GPU in one kernel.
        let xf = $crate::ops::pointwise::float_input($x);
        let args = [$a as f64, $b as f64, $c as f64];
        $crate::kernels::unary($g, args, &xf, |xf| Ok(fmap!(xf, |$v: $T| $body)))?
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

/// Record `f(grad)` as the backward of the unary op `x -> out` (a formula that reads nothing
/// saved; the declared unary ops, `ops/unary.rs`, save what theirs read).
pub(crate) fn unary_node(
    x: &Tensor,
    out: Tensor,
    name: &'static str,
    f: impl Fn(&Tensor) -> Result<Tensor> + Send + Sync + 'static,
) -> Result<Tensor> {
    if !needs_grad(&[x]) {
        return Ok(out);
    }
    // Elementwise in `g` (Note [Forward AD]).
    Ok(record_formula_jvp(
        out,
        &[x],
        name,
        Vec::new(),
        move |g, _| Ok(vec![Some(f(g)?)]),
        Jvp::Elementwise,
    ))
}

/// `1 - x²`.
pub(crate) fn one_minus_sq(x: &Tensor) -> Result<Tensor> {
    rsub(&mul(x, x)?, 1.0)
}

pub fn square(x: &Tensor) -> Result<Tensor> {
    // PyTorch computes square as pow(x, 2) (PowBackward0); bools become int64.
    let x = if x.dtype() == DType::Bool {
        cast_data(x, DType::I64)
    } else {
        x.clone()
    };
    crate::ops::arithmetic::binary(
        crate::ops::arithmetic::BinaryOp::Pow,
        Operand::Tensor(x),
        Operand::Scalar(Scalar::Int(2)),
    )
}

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
        return unary_node(x, out, name, |g| Ok(zeros_like(g)));
    }
    let p = 10f64.powi(decimals.unsigned_abs() as i32);
    // Scale, round half to even (WGSL's `round`), scale back: the float32 steps of PyTorch's
    // kernel, with the scale rounded to float32 on both devices.
    let out = if decimals > 0 {
        fmap!(x, gpu "round(v * p.a) / p.a"[p, 0.0, 0.0], |v: T| (v * p as T).round_ties_even() / p as T)
    } else {
        fmap!(x, gpu "round(v / p.a) * p.a"[p, 0.0, 0.0], |v: T| (v / p as T).round_ties_even() * p as T)
    };
    unary_node(x, out, "RoundBackward1", |g| Ok(zeros_like(g)))
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
    let out = crate::kernels::lerp(start, end, &w, &shape, |w, start, end, shape| {
        let sizes = crate::tensor::shape::sizes_i64(shape);
        let (s, d, wv, en) = {
            let _g = crate::autograd::GradModeGuard::new(false);
            let diff = sub(end, start)?;
            let e = |t: &Tensor| crate::ops::movement::expand(t, &sizes);
            (e(start)?, e(&diff)?, e(w)?, e(end)?)
        };
        // ATen's lerp in the dtype's own precision, both its scalar and its vector loop one
        // fused multiply-add: `w < 0.5 ? fma(w, d, start) : fma(w - 1, d, end)`, d = end - start.
        macro_rules! fused {
            ($t:ty) => {{
                let (sv, dv, ww) = (s.to_vec::<$t>(), d.to_vec::<$t>(), wv.to_vec::<$t>());
                let ev = en.to_vec::<$t>();
                let v: Vec<$t> = sv
                    .iter()
                    .zip(dv.iter())
                    .zip(ww.iter())
                    .zip(ev.iter())
                    .map(|(((&s, &d), &w), &e)| {
                        if w.abs() < 0.5 {
                            w.mul_add(d, s)
                        } else {
                            (w - 1.0).mul_add(d, e)
                        }
                    })
                    .collect();
                return Ok(Tensor::from_vec_on(v, shape, device));
            }};
        }
        match start.dtype() {
            DType::F32 => fused!(f32),
            DType::F64 => fused!(f64),
            _ => {}
        }
        Ok(crate::dispatch!(start.dtype(), T => {
            let (sv, dv, ww) = (s.to_vec::<T>(), d.to_vec::<T>(), wv.to_vec::<T>());
            let v: Vec<T> = sv.iter().zip(dv.iter()).zip(ww.iter()).map(|((&s, &d), &w)| {
                let (s, d, w) = (s.to_f64(), d.to_f64(), w.to_f64());
                let r = if w.abs() < 0.5 { s + w * d } else { (s + d) - d * (1.0 - w) };
                T::from_f64(r)
            }).collect();
            Tensor::from_vec_on(v, shape, device)
        }))
    })?;
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
    // The weight's gradient reads start and end: kept only when it is wanted, as PyTorch.
    // (or its tangent: forward AD reads the same formula).
    let ends_saved = w_tensor
        .as_ref()
        .is_some_and(|t| t.requires_grad() || crate::autograd::forward::any_tangent(&[t]));
    let weight_input = w_tensor.is_some();
    if ends_saved {
        saved.push(SavedTensor::input(start)?);
        saved.push(SavedTensor::input(end)?);
    }
    let unsaved = || crate::autograd::graph::Value::Unsaved;
    let shown_weight = match weight {
        Operand::Scalar(w) => vec![("weight", crate::autograd::graph::Value::Scalar(w))],
        Operand::Tensor(_) if ends_saved => Vec::new(),
        Operand::Tensor(_) => vec![("end", unsaved()), ("self", unsaved())],
    };
    let out = record_formula_jvp(
        out,
        &inputs,
        name,
        saved,
        move |g, s| {
            let w = &s[0];
            let mut grads = vec![Some(mul(g, &rsub(w, 1.0)?)?), Some(mul(g, w)?)];
            if s.len() == 3 {
                grads.push(Some(mul(g, &sub(&s[2], &s[1])?)?));
            } else if weight_input {
                grads.push(None);
            }
            Ok(grads)
        },
        // derivatives.yaml's `lerp(self_t, end_t, weight)` (+ `weight_t * (end - self)`),
        // an undefined tangent standing as zeros, as PyTorch's codegen makes it: the lerp
        // kernel's rounding and a +0 where `end_t` alone is -0.
        Jvp::of(|t, s| {
            if t.iter().all(Option::is_none) {
                return Ok(vec![None]);
            }
            let w = &s[0];
            let zero = || Tensor::zeros_on(&[], w.dtype(), w.device());
            let ts = t[0].clone().unwrap_or_else(zero);
            let te = t[1].clone().unwrap_or_else(zero);
            let mut out = lerp(&ts, &te, Operand::Tensor(w.clone()))?;
            if let Some(tw) = t.get(2).and_then(Option::as_ref) {
                out = add(&out, &mul(tw, &sub(&s[2], &s[1])?)?)?;
            }
            Ok(vec![Some(out)])
        }),
    );
    // A number weight is kept as a number (the tensor made of it is not PyTorch's).
    let names: &'static [&'static str] = match w_tensor {
        Some(_) => &["weight", "self", "end"],
        None => &[""],
    };
    describe(&out, names, shown_weight);
    Ok(out)
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
        let scaled = crate::ops::arithmetic::binary(
            crate::ops::arithmetic::BinaryOp::Mul,
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
    // Under forward AD every partial is needed (Note [Forward AD]).
    let fw = crate::autograd::forward::any_tangent(&[input, t1, t2]);
    let (need1, need2) = (fw || t1.requires_grad(), fw || t2.requires_grad());
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
    let out = record_formula_jvp(
        out,
        &[input, t1, t2],
        name,
        saved,
        move |g, s| {
            let mut s = s.iter();
            let a = if save1 { s.next() } else { None };
            let b = if save2 { s.next() } else { None };
            let gv = mul(g, v)?;
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
        Jvp::Elementwise,
    );
    let names: &'static [&'static str] = match (save1, save2) {
        (true, true) => &["tensor1", "tensor2"],
        (true, false) => &["tensor1"],
        (false, true) => &["tensor2"],
        (false, false) => &[],
    };
    let unsaved = crate::autograd::graph::Value::Unsaved;
    let mut values = Vec::new();
    if !save1 {
        values.push(("tensor1", unsaved.clone()));
    }
    if !save2 {
        values.push(("tensor2", unsaved));
    }
    values.push(("value", crate::autograd::graph::Value::Scalar(value)));
    describe(&out, names, values);
    Ok(out)
}
