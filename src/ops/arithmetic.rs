//! Arithmetic: add, sub, mul, div, pow (and rsub, rdiv, add with alpha) with broadcasting,
//! PyTorch's type promotion, integer and float16 kernels, and their backward nodes. The
//! kernels are declared in `ops/binary_kernels_decl.rs`.

use crate::autograd::formula::{Saved, Values};
use crate::autograd::saved::Value;
use crate::autograd::{attach_named_jvp, needs_grad, SavedTensor};
use crate::dtype::{result_type, DType, Scalar};
use crate::error::{Error, Result};
use crate::ops::binary_kernels::{materialize, zip};
pub use crate::ops::binary_kernels_decl::BinaryOp;
use crate::ops::binary_kernels_decl::LogicalOp;
use crate::ops::compare::{eq, ge};
use crate::ops::creation::cast_data;
use crate::ops::unary::{unary, UnaryOp};
use crate::ops::where_::where_;
use crate::ops::Operand;
use crate::tensor::shape::broadcast_shapes;
use crate::tensor::{Element, Tensor};

/// `op` over two float tensors of `dtype`: the GPU's kernel (float32) when either is there,
/// else the declared CPU kernel.
fn float_zip(
    op: BinaryOp,
    dtype: DType,
    a: &Tensor,
    b: &Tensor,
    shape: &[usize],
) -> Result<Tensor> {
    crate::kernels::binary(op.wgsl(), dtype, a, b, shape, |a, b, shape| {
        op.zip_float(dtype, a, b, shape)
    })
}

/// Wrapping integer arithmetic, as PyTorch's integer kernels do it (int32 natively: the same
/// result as computing in int64 and wrapping, without the two casts).
pub(crate) trait Int: Element {
    fn wrapping_add(self, b: Self) -> Self;
    fn wrapping_sub(self, b: Self) -> Self;
    fn wrapping_mul(self, b: Self) -> Self;
    /// PyTorch's integer pow: a negative exponent truncates 1/a^|b| to 0 unless |a| == 1.
    fn int_pow(self, b: Self) -> Self;
}

macro_rules! int {
    ($t:ty) => {
        impl Int for $t {
            #[inline(always)]
            fn wrapping_add(self, b: Self) -> Self {
                <$t>::wrapping_add(self, b)
            }
            #[inline(always)]
            fn wrapping_sub(self, b: Self) -> Self {
                <$t>::wrapping_sub(self, b)
            }
            #[inline(always)]
            fn wrapping_mul(self, b: Self) -> Self {
                <$t>::wrapping_mul(self, b)
            }
            // Not inlined: a square-and-multiply loop inside the elementwise loop sends the
            // optimizer into a very long compile, and pow is rare on integers.
            #[inline(never)]
            fn int_pow(self, b: Self) -> Self {
                match (b < 0, self) {
                    (false, a) => a.wrapping_pow(u32::try_from(b).unwrap_or(u32::MAX)),
                    (true, 1) => 1,
                    (true, -1) => 1 - 2 * (b & 1),
                    (true, _) => 0,
                }
            }
        }
    };
}
int!(i32);
int!(i64);

/// `op` over two integer tensors of `T` (each op its own inlined loop).
fn int_zip<T: Int>(op: BinaryOp, a: &Tensor, b: &Tensor, shape: &[usize]) -> Result<Tensor> {
    match op {
        BinaryOp::Add => zip::<T, T>(a, b, shape, T::wrapping_add),
        BinaryOp::Sub => zip::<T, T>(a, b, shape, T::wrapping_sub),
        BinaryOp::Mul => zip::<T, T>(a, b, shape, T::wrapping_mul),
        BinaryOp::Pow => zip::<T, T>(a, b, shape, T::int_pow),
        BinaryOp::Div => unreachable!("true division computes in floating point"),
    }
}

/// A float16 op whose operands are contiguous float16 tensors of the result's shape or
/// single values: computed a run at a time in float32 by the host (`kernels::zip_half_host`),
/// which gives what widening both operands and narrowing the result does, without those
/// copies. None where that does not apply (the general path widens).
fn half_zip(op: BinaryOp, a: &Operand, b: &Operand) -> Result<Option<Tensor>> {
    use crate::kernels::HalfArg;
    let shape_of = |o: &Operand| o.as_tensor().map(|t| t.shape()).unwrap_or_default();
    let shape = broadcast_shapes(&shape_of(a), &shape_of(b))?;
    fn arg(o: &Operand) -> HalfArg<'_> {
        match o {
            Operand::Tensor(t) => HalfArg::Tensor(t),
            Operand::Scalar(_) => HalfArg::Value(materialize(o, DType::F32).to_vec::<f32>()[0]),
        }
    }
    let (xa, xb) = (arg(a), arg(b));
    Ok(crate::kernels::zip_half_host(
        xa,
        xb,
        &shape,
        |n, xa, xb| op.zip_half(n, xa, xb),
    ))
}

/// The dtype `op` computes in for these operands.
pub fn compute_dtype(op: BinaryOp, a: &Operand, b: &Operand) -> DType {
    let d = result_type(&[a.participant(), b.participant()]);
    if op == BinaryOp::Div && !d.is_floating_point() {
        crate::dtype::default_float()
    } else {
        d
    }
}

/// PyTorch's `sub_check`: no subtraction with a bool operand (a Python bool counts as one).
pub(crate) fn sub_check(a: &Operand, b: &Operand) -> Result<()> {
    let is_bool = |o: &Operand| match o {
        Operand::Tensor(t) => t.dtype() == DType::Bool,
        Operand::Scalar(s) => matches!(s, Scalar::Bool(_)),
    };
    match (is_bool(a), is_bool(b)) {
        (true, true) => Err(Error::Runtime("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.".into())),
        (true, false) | (false, true) => Err(Error::Runtime("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.".into())),
        (false, false) => Ok(()),
    }
}

/// The forward kernel alone (no autograd), computing in `dtype`.
pub(crate) fn binary_data(op: BinaryOp, a: &Operand, b: &Operand, dtype: DType) -> Result<Tensor> {
    if op == BinaryOp::Sub {
        sub_check(a, b)?;
    }
    if dtype.is_half() {
        if dtype == DType::F16 {
            if let Some(out) = half_zip(op, a, b)? {
                return Ok(out);
            }
        }
        // On the GPU one kernel: float16 words read as float32, the result rounded to half
        // in it.
        let (ta, tb) = (materialize(a, DType::F32), materialize(b, DType::F32));
        let shape = broadcast_shapes(&ta.shape(), &tb.shape())?;
        return crate::kernels::binary(op.wgsl(), dtype, &ta, &tb, &shape, |ta, tb, _| {
            let out = binary_data(op, &ta.into(), &tb.into(), dtype.compute())?;
            Ok(crate::ops::creation::narrow(out, dtype))
        });
    }
    if matches!(dtype, DType::U8 | DType::I8 | DType::I16) {
        // Computed in int64 and wrapped back (Note [Narrow dtypes]): wrapping arithmetic
        // modulo 2^64 and then 2^8 (2^16) is arithmetic modulo 2^8. A Python-number operand
        // stays one (the negative-exponent check reads it).
        let w = |o: &Operand| match o {
            Operand::Scalar(_) => o.clone(),
            Operand::Tensor(_) => {
                Operand::Tensor(crate::ops::creation::wide(&materialize(o, dtype)))
            }
        };
        let out = binary_data(op, &w(a), &w(b), DType::I64)?;
        return Ok(crate::ops::creation::narrow(out, dtype));
    }
    let (ta, tb) = (materialize(a, dtype), materialize(b, dtype));
    let shape = broadcast_shapes(&ta.shape(), &tb.shape())?;
    if let (BinaryOp::Pow, Operand::Scalar(e)) = (op, b) {
        if let Some(out) = crate::kernels::pow_number_host(&ta, &tb, &shape, e.to_f64())? {
            return Ok(out);
        }
    }
    Ok(match dtype {
        DType::F32 | DType::F64 => float_zip(op, dtype, &ta, &tb, &shape)?,
        DType::I64 | DType::I32 => {
            // Only a Python-number exponent is refused; tensor exponents truncate.
            if op == BinaryOp::Pow {
                if let Operand::Scalar(e) = b {
                    if e.to_f64() < 0.0 {
                        return Err(Error::Runtime(
                            "Integers to negative integer powers are not allowed.".into(),
                        ));
                    }
                }
            }
            if dtype == DType::I64 {
                int_zip::<i64>(op, &ta, &tb, &shape)?
            } else {
                int_zip::<i32>(op, &ta, &tb, &shape)?
            }
        }
        DType::Bool if matches!(op, BinaryOp::Add | BinaryOp::Mul) => {
            // On bools add is `or` and mul is `and`.
            let l = if op == BinaryOp::Add {
                LogicalOp::Or
            } else {
                LogicalOp::And
            };
            crate::kernels::logical(l.wgsl(), &ta, &tb, &shape, |a, b, shape| {
                l.zip_any(DType::Bool, a, b, shape)
            })?
        }
        DType::F16 | DType::BF16 | DType::U8 | DType::I8 | DType::I16 => {
            unreachable!("computed wide above")
        }
        DType::Bool => match op {
            BinaryOp::Add | BinaryOp::Mul => unreachable!("the arm above"),
            BinaryOp::Sub => unreachable!("sub_check refuses bool operands"),
            // bool ** Python bool is 1 or the base itself; tensor exponents have no kernel.
            BinaryOp::Pow if !matches!(b, Operand::Scalar(_)) => {
                return Err(crate::dtype::unsupported("pow", DType::Bool))
            }
            BinaryOp::Pow | BinaryOp::Div => {
                let (ia, ib) = (cast_data(&ta, DType::I64), cast_data(&tb, DType::I64));
                let r = binary_data(op, &Operand::Tensor(ia), &Operand::Tensor(ib), DType::I64)?;
                cast_data(&r, DType::Bool)
            }
        },
    })
}

/// A differentiable binary op on tensors and/or Python numbers.
pub fn binary(op: BinaryOp, a: Operand, b: Operand) -> Result<Tensor> {
    binary_as(op, a, b, "DivBackward0")
}

/// `div(a, b, rounding_mode=None)`: true division through PyTorch's `div.Tensor_mode` overload,
/// recorded as `DivBackward2` (same formula as `DivBackward0`).
pub fn div_mode_none(a: Operand, b: Operand) -> Result<Tensor> {
    binary_as(BinaryOp::Div, a, b, "DivBackward2")
}

/// `a * s` or `a / s` through PyTorch's C++ `Scalar` overloads (`mul.Scalar`, `div.Scalar`), as
/// PyTorch's composite ops (losses, ...) call them: `MulBackward1` / `DivBackward1`, one edge
/// (to `a`), the number kept in the node. From Python `a * 2` takes the Tensor overload
/// (`MulBackward0`, an edge for the number), which is [`binary`].
pub fn scalar_overload(op: BinaryOp, a: &Tensor, s: Scalar) -> Result<Tensor> {
    if !matches!(op, BinaryOp::Mul | BinaryOp::Div) {
        return Err(Error::Runtime(format!(
            "scalar_overload: {} has no Scalar overload here",
            op.name()
        )));
    }
    let (ta, ts) = (Operand::Tensor(a.clone()), Operand::Scalar(s));
    let dtype = compute_dtype(op, &ta, &ts);
    let out = binary_data(op, &ta, &ts, dtype)?;
    if needs_grad(&[a]) {
        let name = if op == BinaryOp::Mul {
            "MulBackward1"
        } else {
            "DivBackward1"
        };
        let values = values![("other", Value::Scalar(s))];
        // g * s or g / s: the same overload again.
        attach_named_jvp(
            &[&out],
            &[a],
            name,
            Saved::new(),
            &[],
            values,
            move |g, _| Ok(vec![Some(scalar_overload(op, grad(g), s)?)]),
            crate::autograd::Jvp::Elementwise,
        );
    }
    Ok(out)
}

/// The one gradient a formula node gets (the engine passes it).
fn grad(g: &[Option<Tensor>]) -> &Tensor {
    g[0].as_ref().expect("engine passes a gradient")
}

/// `Values` from `(name, value)` pairs.
macro_rules! values {
    ($($v:expr),* $(,)?) => {
        smallvec::smallvec![$($v),*] as crate::autograd::formula::Values
    };
}
use values;

fn binary_as(op: BinaryOp, a: Operand, b: Operand, div_name: &'static str) -> Result<Tensor> {
    let dtype = compute_dtype(op, &a, &b);
    let out = binary_data(op, &a, &b, dtype)?;
    let (ra, rb) = (a.requires_grad(), b.requires_grad());
    let fw = crate::autograd::forward::operand_tangent(&[&a, &b]);
    if !fw && (!crate::autograd::is_grad_enabled() || !(ra || rb)) {
        return Ok(out);
    }
    // Under forward AD each operand's partial derivative is needed (Note [Forward AD]).
    let (ra, rb) = (ra || fw, rb || fw);
    let (ta, tb) = (a.edge_tensor(dtype), b.edge_tensor(dtype));
    // A Python number is saved as a tensor that the saved-tensor hooks never see, as
    // PyTorch's wrapped numbers.
    let save_operand = |t: &Tensor, o: &Operand| match o {
        Operand::Scalar(_) => Ok(SavedTensor::input_unhooked(t)),
        Operand::Tensor(_) => SavedTensor::input(t),
    };
    let save = |cond: bool, t: &Tensor, o: &Operand| cond.then(|| save_operand(t, o)).transpose();
    // Each op's backward formula, in tensor ops (so higher order and every device come free).
    let edges = [&ta, &tb];
    match op {
        // g, and g or -g.
        BinaryOp::Add | BinaryOp::Sub => add_sub_node(&out, edges, op == BinaryOp::Sub, None),
        // g * b, g * a: each operand saved only if the other side needs a gradient. PyTorch
        // saves (and so packs) `other` before `self`.
        BinaryOp::Mul => {
            let mut saved = Saved::new();
            if ra {
                saved.push(save_operand(&tb, &b)?);
            }
            if rb {
                saved.push(save_operand(&ta, &a)?);
            }
            let (names, values): (&'static [&'static str], _) = match (ra, rb) {
                (true, true) => (&["other", "self"], Values::new()),
                (true, false) => (&["other"], values![("self", Value::Unsaved)]),
                _ => (&["self"], values![("other", Value::Unsaved)]),
            };
            attach_named_jvp(
                &[&out],
                &edges,
                "MulBackward0",
                saved,
                names,
                values,
                move |g, s| {
                    let g = grad(g);
                    Ok(match (ra, rb) {
                        (true, true) => vec![Some(mul(g, &s[0])?), Some(mul(g, &s[1])?)],
                        (true, false) => vec![Some(mul(g, &s[0])?), None],
                        _ => vec![None, Some(mul(g, &s[0])?)],
                    })
                },
                crate::autograd::Jvp::Elementwise,
            );
        }
        // g / b, and -g * ((a / b) / b) as PyTorch's div_tensor_other_backward (which fixes its
        // values at b = 0 and the dtype the quotients are taken in).
        BinaryOp::Div => {
            let mut saved: Saved = [save_operand(&tb, &b)?].into_iter().collect();
            saved.extend(save(rb, &ta, &a)?);
            let mut values = values![];
            if !rb {
                values.push(("self", Value::Unsaved));
            }
            if div_name == "DivBackward2" {
                values.push(("rounding_mode", Value::None));
            }
            let names: &'static [&'static str] = if rb { &["other", "self"] } else { &["other"] };
            attach_named_jvp(
                &[&out],
                &edges,
                div_name,
                saved,
                names,
                values,
                move |g, s| {
                    let (g, b) = (grad(g), &s[0]);
                    let gb = match s.get(1) {
                        Some(a) => Some(mul(&unary(UnaryOp::Neg, g)?, &div(&div(a, b)?, b)?)?),
                        None => None,
                    };
                    Ok(vec![Some(div(g, b)?), gb])
                },
                // derivatives.yaml's `(self_t - other_t * result) / other_p`, a missing tangent
                // an efficient zero tensor (`0 - x` is `-x`), so the tangent rounds as torch's.
                crate::autograd::Jvp::of(|t, s| {
                    let b = &s[0];
                    let num = match (&t[0], &t[1], s.get(1)) {
                        (None, None, _) => return Ok(vec![None]),
                        (Some(ta), None, _) => ta.clone(),
                        (ta, Some(tb), Some(a)) => {
                            let by_b = mul(tb, &div(a, b)?)?;
                            match ta {
                                Some(ta) => sub(ta, &by_b)?,
                                None => unary(UnaryOp::Neg, &by_b)?,
                            }
                        }
                        (_, Some(_), None) => {
                            return Err(Error::Runtime("div's tangent needs self".into()))
                        }
                    };
                    Ok(vec![Some(div(&num, b)?)])
                }),
            );
        }
        BinaryOp::Pow => match (&a, &b) {
            // x ** c: g * c * x^(c-1), exactly zero when c == 0.
            (_, Operand::Scalar(e)) => {
                let e = *e;
                let saved: Saved = [SavedTensor::input(&ta)?].into_iter().collect();
                let values = values![("exponent", Value::Scalar(e))];
                attach_named_jvp(
                    &[&out],
                    &[&ta],
                    "PowBackward0",
                    saved,
                    &["self"],
                    values,
                    move |g, s| Ok(vec![Some(pow_scalar_grad(grad(g), &s[0], e)?)]),
                    crate::autograd::Jvp::Elementwise,
                );
            }
            // c ** x: g * c^x * ln(c) (PyTorch's pow_backward_exponent: with c == 0, zero for
            // exponents >= 0).
            (Operand::Scalar(base), _) => {
                let base = *base;
                let saved: Saved = [SavedTensor::input(&tb)?, SavedTensor::output(&out, 0)?]
                    .into_iter()
                    .collect();
                let values = values![("self", Value::Scalar(base))];
                let names: &'static [&'static str] = &["exponent", "result"];
                attach_named_jvp(
                    &[&out],
                    &[&tb],
                    "PowBackward2",
                    saved,
                    names,
                    values,
                    move |g, s| {
                        let scaled = mul(&s[1], base.to_f64().ln())?;
                        let scaled = if base.to_f64() == 0.0 {
                            where_(&ge(&s[0], 0)?, 0, &scaled)?
                        } else {
                            scaled
                        };
                        Ok(vec![Some(mul(grad(g), &scaled)?)])
                    },
                    crate::autograd::Jvp::Elementwise,
                );
            }
            // x ** y: (g * y * x^(y-1), g * x^y * ln x), see `pow_tensor_grads`.
            _ => {
                let saved: Saved = [
                    SavedTensor::input(&ta)?,
                    SavedTensor::input(&tb)?,
                    SavedTensor::output(&out, 0)?,
                ]
                .into_iter()
                .collect();
                let names: &'static [&'static str] = &["self", "exponent", "result"];
                attach_named_jvp(
                    &[&out],
                    &edges,
                    "PowBackward1",
                    saved,
                    names,
                    values![],
                    |g, s| pow_tensor_grads(grad(g), &s[0], &s[1], &s[2]),
                    // derivatives.yaml's `pow_backward_self(self_t, ..) +
                    // pow_backward_exponent(exponent_t, ..)`, a missing tangent an efficient
                    // zero tensor: the self term then comes out of its `where` as real +0
                    // zeros (so a -0 of the exponent term sums to +0, as torch's), the
                    // exponent term stays a zero tensor, which the sum skips.
                    crate::autograd::Jvp::of(|t, s| {
                        let (x, y, r) = (&s[0], &s[1], &s[2]);
                        let by_y = match &t[1] {
                            Some(ty) => Some(pow_exponent_grad(ty, x, y, r)?),
                            None => None,
                        };
                        let by_x = match &t[0] {
                            Some(tx) => pow_self_grad(tx, x, y)?,
                            None if by_y.is_some() => crate::ops::creation::zeros_like(r),
                            None => return Ok(vec![None]),
                        };
                        Ok(vec![Some(match by_y {
                            Some(by_y) => add(&by_x, &by_y)?,
                            None => by_x,
                        })])
                    }),
                );
            }
        },
    }
    Ok(out)
}

/// `a + b` (`b` a tensor or a number, `add(g, 1.0)`).
pub fn add(a: &Tensor, b: impl Into<Operand>) -> Result<Tensor> {
    binary(BinaryOp::Add, a.into(), b.into())
}
/// `a - b`.
pub fn sub(a: &Tensor, b: impl Into<Operand>) -> Result<Tensor> {
    binary(BinaryOp::Sub, a.into(), b.into())
}
/// `a * b`.
pub fn mul(a: &Tensor, b: impl Into<Operand>) -> Result<Tensor> {
    binary(BinaryOp::Mul, a.into(), b.into())
}
/// `a / b`.
pub fn div(a: &Tensor, b: impl Into<Operand>) -> Result<Tensor> {
    binary(BinaryOp::Div, a.into(), b.into())
}
/// `a ** b`.
pub fn pow(a: &Tensor, b: impl Into<Operand>) -> Result<Tensor> {
    binary(BinaryOp::Pow, a.into(), b.into())
}

/// `other - x` (Python's `2 - x`): `RsubBackward1` for a number, `RsubBackward0` for a tensor.
pub fn rsub(x: &Tensor, other: impl Into<Operand>) -> Result<Tensor> {
    let other = other.into();
    let dtype = compute_dtype(BinaryOp::Sub, &other, &x.into());
    let out = binary_data(BinaryOp::Sub, &other, &x.into(), dtype)?;
    // -g for x, g for other; gradrs's rsub takes no alpha: it is always 1.
    let values = || values![("alpha", Value::Int(1))];
    match &other {
        Operand::Scalar(_) if needs_grad(&[x]) => {
            attach_named_jvp(
                &[&out],
                &[x],
                "RsubBackward1",
                Saved::new(),
                &[],
                values(),
                |g, _| Ok(vec![Some(unary(UnaryOp::Neg, grad(g))?)]),
                crate::autograd::Jvp::Elementwise,
            );
        }
        Operand::Tensor(o) if needs_grad(&[x, o]) => {
            attach_named_jvp(
                &[&out],
                &[x, o],
                "RsubBackward0",
                Saved::new(),
                &[],
                values(),
                |g, _| {
                    let g = grad(g);
                    Ok(vec![Some(unary(UnaryOp::Neg, g)?), Some(g.clone())])
                },
                crate::autograd::Jvp::Elementwise,
            );
        }
        _ => {}
    }
    Ok(out)
}

/// `other / x` (Python's `2 / x`): PyTorch computes `reciprocal(x) * other`.
pub fn rdiv(x: &Tensor, other: Operand) -> Result<Tensor> {
    let r = unary(UnaryOp::Reciprocal, x)?;
    binary(BinaryOp::Mul, Operand::Tensor(r), other)
}

// ---- backward formulas too long to sit in `binary_as` ----------------------------------------

/// `AddBackward0` / `SubBackward0`: g, and ±alpha·g (alpha None: 1).
fn add_sub_node(out: &Tensor, edges: [&Tensor; 2], sub: bool, alpha: Option<Scalar>) {
    let name = if sub { "SubBackward0" } else { "AddBackward0" };
    let values = values![("alpha", Value::Scalar(alpha.unwrap_or(Scalar::Int(1))))];
    attach_named_jvp(
        &[out],
        &edges,
        name,
        Saved::new(),
        &[],
        values,
        move |g, _| {
            let g = grad(g);
            let gb = match alpha {
                Some(alpha) => mul(g, alpha)?,
                None => g.clone(),
            };
            let gb = if sub { unary(UnaryOp::Neg, &gb)? } else { gb };
            Ok(vec![Some(g.clone()), Some(gb)])
        },
        crate::autograd::Jvp::Elementwise,
    );
}

/// `x ** c`: g * c * x^(c-1), and exactly zero when c == 0.
fn pow_scalar_grad(g: &Tensor, x: &Tensor, e: Scalar) -> Result<Tensor> {
    if e.to_f64() == 0.0 {
        return Ok(crate::ops::creation::zeros_like(x));
    }
    let e_minus_1 = match e {
        Scalar::Float(f) => Scalar::Float(f - 1.0),
        s => Scalar::Int(s.to_i64() - 1),
    };
    mul(g, &mul(&pow(x, e_minus_1)?, e)?)
}

/// `x ** y` for tensors: (g * y * x^(y-1), g * x^y * ln x), given the result r = x^y.
fn pow_tensor_grads(g: &Tensor, x: &Tensor, y: &Tensor, r: &Tensor) -> Result<Vec<Option<Tensor>>> {
    Ok(vec![
        Some(pow_self_grad(g, x, y)?),
        Some(pow_exponent_grad(g, x, y, r)?),
    ])
}

/// PyTorch's pow_backward_self: `g * (y * x^(y-1))`, exactly 0 where the exponent is 0.
fn pow_self_grad(g: &Tensor, x: &Tensor, y: &Tensor) -> Result<Tensor> {
    let gx = mul(g, &mul(y, &pow(x, &sub(y, 1)?)?)?)?;
    where_(&eq(y, 0)?, 0, &gx)
}

/// PyTorch's pow_backward_exponent: `g * (r ln x)`, given the result r = x^y.
fn pow_exponent_grad(g: &Tensor, x: &Tensor, y: &Tensor, r: &Tensor) -> Result<Tensor> {
    // As PyTorch: exactly 0 where the base is 0 with a non-negative exponent, instead of
    // 0·inf = nan. The mask sits inside the product with g, as in pow_backward_exponent, so
    // the double backward through the masked side is 0·log(0) = nan there, as PyTorch's; log
    // is taken in the promoted dtype (a float32 base with a float64 exponent: log in float64).
    let mask = mul(&eq(x, 0)?, &ge(y, 0)?)?;
    let promoted = result_type(&[
        Operand::Tensor(x.clone()).participant(),
        Operand::Tensor(y.clone()).participant(),
    ]);
    let x = crate::ops::creation::to_dtype(x, promoted)?;
    let r_log_x = mul(r, &unary(UnaryOp::Log, &x)?)?;
    mul(g, &where_(&mask, 0, &r_log_x)?)
}

/// `add(a, b, alpha=s)` / `sub(a, b, alpha=s)`: `a ± s·b`, one node with alpha in its formula.
/// `a` may be a Python number (`torch.add(2, t, alpha=3)`).
pub fn add_scaled(a: impl Into<Operand>, b: Operand, alpha: Scalar, sub: bool) -> Result<Tensor> {
    let op = if sub { BinaryOp::Sub } else { BinaryOp::Add };
    let a_op = a.into();
    if sub {
        sub_check(&a_op, &b)?;
    }
    let dtype = compute_dtype(op, &a_op, &b);
    if matches!(alpha, Scalar::Bool(_)) && dtype != DType::Bool {
        return Err(Error::Runtime(
            "Boolean alpha only supported for Boolean results.".into(),
        ));
    }
    if !dtype.is_floating_point() && alpha.is_float() {
        return Err(Error::Runtime(
            "For integral input tensors, argument alpha must not be a floating point number."
                .into(),
        ));
    }
    let scaled = {
        let _g = crate::autograd::GradModeGuard::new(false);
        binary(BinaryOp::Mul, b.clone(), Operand::Scalar(alpha))?
    };
    let out = binary_data(op, &a_op, &Operand::Tensor(scaled), dtype)?;
    if (crate::autograd::is_grad_enabled() && (a_op.requires_grad() || b.requires_grad()))
        || crate::autograd::forward::operand_tangent(&[&a_op, &b])
    {
        let (ta, tb) = (a_op.edge_tensor(dtype), b.edge_tensor(dtype));
        add_sub_node(&out, [&ta, &tb], sub, Some(alpha));
    }
    Ok(out)
}
