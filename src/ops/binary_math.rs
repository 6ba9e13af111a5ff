//! Elementwise binary math ops: the generator that turns the declarations of
//! `ops/binary_decl.rs` into `BinaryMathOp`, its kernels (CPU and GPU: the binary shader
//! generated around the declared expression) and its backward (Note [Op declarations] in
//! `ops/unary.rs`).

use crate::autograd::{needs_grad, record_formula_jvp, Jvp, SavedTensor};
use crate::dtype::{result_type, DType};
use crate::error::{Error, Result};
use crate::kernels::{self, zip};
use crate::ops::binary_decl::binary_table;
use crate::ops::binary_kernels::materialize;
use crate::ops::creation::narrow;
use crate::ops::Operand;
use crate::tensor::shape::broadcast_shapes;
use crate::tensor::Tensor;

// The vocabulary the declared kernels and formulas are written in (the table need not use
// every word; adding an op should not mean editing this file).
#[allow(unused_imports)]
use crate::{
    kernels::VMath,
    ops::arithmetic::{add, div, mul, pow, rsub, sub},
    ops::compare::{eq, ge, gt, le, lt, ne, CmpOp},
    ops::creation::zeros_like,
    ops::unary::*,
    ops::where_::where_,
};
#[allow(unused_imports)]
use std::f64::consts::{LN_2, PI};

/// How a binary op treats dtypes (of the promoted operands).
#[derive(Clone, Copy)]
pub enum BinaryDtypes {
    /// Integer and bool results compute in float32.
    Float,
    /// Floating results only; others raise naming the kernel.
    FloatOnly(&'static str),
    /// As `Float`, but float16 raises naming the kernel (torch.special's kernels that
    /// PyTorch's CPU has no Half form of).
    FloatNoHalf(&'static str),
    /// Both tensors of one dtype (else the message), kept: integers through the first kernel,
    /// bools through the second.
    Same(&'static str, fn(i64, i64) -> i64, fn(bool, bool) -> bool),
}

/// The signature of most binary functions, as PyTorch's parser prints it.
pub const BINARY: &str = "(Tensor input, Tensor other, *, Tensor out = None)";

/// One op's row of the table, as `_native._declared_ops()` reports it.
pub struct DeclaredBinary {
    pub name: &'static str,
    pub node: &'static str,
    pub wgsl: &'static str,
    pub arg: &'static str,
    pub number: bool,
    pub methods: &'static [&'static str],
    pub inplace: &'static [&'static str],
    pub functions: &'static [&'static str],
    pub sig: &'static str,
}

macro_rules! generate_binary {
    ($(
        // The entry's docstring (the Tensor methods' in `python/declared.rs`).
        $(#[doc = $doc:literal])*
        $V:ident $name:ident {
            node: $node:literal, node_scalar: $node_scalar:literal,
            dtypes: $dtypes:expr,
            cpu: |$a:ident, $b:ident| $cpu:expr,
            wgsl: $wgsl:literal,
            grad_self: |$g1:ident, $a1:ident, $b1:ident| $grad_self:expr,
            grad_other: |$g2:ident, $a2:ident, $b2:ident| $grad_other:expr,
            arg: $arg:ident, number: $number:literal,
            methods: [$($m:ident),*], inplace: [$($mi:ident),*], functions: [$($f:ident),*],
            sig: $sig:expr,
        }
    )*) => {
        /// The declared binary math ops (`ops/binary_decl.rs`), in table order.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum BinaryMathOp {
            $($V,)*
        }

        impl BinaryMathOp {
            pub const ALL: &'static [BinaryMathOp] = &[$(BinaryMathOp::$V,)*];

            pub fn declared(self) -> DeclaredBinary {
                match self {
                    $(BinaryMathOp::$V => DeclaredBinary {
                        name: stringify!($name),
                        node: $node,
                        wgsl: $wgsl,
                        arg: stringify!($arg),
                        number: $number,
                        methods: &[$(stringify!($m)),*],
                        inplace: &[$(stringify!($mi)),*],
                        functions: &[$(stringify!($f)),*],
                        sig: $sig,
                    },)*
                }
            }

            pub fn name(self) -> &'static str {
                match self {
                    $(BinaryMathOp::$V => stringify!($name),)*
                }
            }

            /// The node name: with a Python number as the other operand, `scalar`.
            pub fn backward_name(self, scalar: bool) -> &'static str {
                match self {
                    $(BinaryMathOp::$V => if scalar { $node_scalar } else { $node },)*
                }
            }

            /// The WGSL expression in `x`, `y` the GPU computes.
            pub fn wgsl(self) -> &'static str {
                match self {
                    $(BinaryMathOp::$V => $wgsl,)*
                }
            }

            pub fn dtypes(self) -> BinaryDtypes {
                match self {
                    $(BinaryMathOp::$V => $dtypes,)*
                }
            }

            /// The float32 kernel as a function (tests compare the GPU's expression with it).
            pub fn cpu_f32(self) -> fn(f32, f32) -> f32 {
                match self {
                    $(BinaryMathOp::$V => {
                        #[allow(dead_code)]
                        type T = f32;
                        |$a: T, $b: T| -> T { $cpu }
                    })*
                }
            }

            /// The derivatives in `a` and `b` that are asked for (`need`), given the incoming
            /// gradient: one PyTorch has no formula for fails only when it is needed.
            fn grad(
                self,
                g: &Tensor,
                a: &Tensor,
                b: &Tensor,
                need: (bool, bool),
            ) -> Result<(Option<Tensor>, Option<Tensor>)> {
                match self {
                    $(BinaryMathOp::$V => {
                        let ($g1, $a1, $b1) = (g, a, b);
                        let ga = if need.0 { Some($grad_self?) } else { None };
                        let ($g2, $a2, $b2) = (g, a, b);
                        let gb = if need.1 { Some($grad_other?) } else { None };
                        Ok((ga, gb))
                    })*
                }
            }

            /// The derivative in `b` alone (`a` a Python number, not an input).
            fn grad_other(self, g: &Tensor, a: &Tensor, b: &Tensor) -> Result<Tensor> {
                match self {
                    $(BinaryMathOp::$V => {
                        let ($g2, $a2, $b2) = (g, a, b);
                        $grad_other
                    })*
                }
            }
        }

        /// The CPU kernel of `op` over float tensors of one dtype.
        fn zip_float(op: BinaryMathOp, a: &Tensor, b: &Tensor, shape: &[usize]) -> Result<Tensor> {
            match (op, a.dtype()) {
                $(
                    (BinaryMathOp::$V, DType::F32) => {
                        #[allow(dead_code)]
                        type T = f32;
                        zip::<f32, f32>(a, b, shape, |$a: T, $b: T| -> T { $cpu })
                    }
                    (BinaryMathOp::$V, _) => {
                        #[allow(dead_code)]
                        type T = f64;
                        zip::<f64, f64>(a, b, shape, |$a: T, $b: T| -> T { $cpu })
                    }
                )*
            }
        }

        $(
            #[doc = concat!("`", stringify!($name), "(a, b)`, declared in `ops/binary_decl.rs`.")]
            pub fn $name(a: &Tensor, b: &Tensor) -> Result<Tensor> {
                binary_math(BinaryMathOp::$V, a, Operand::Tensor(b.clone()))
            }
        )*
    };
}

binary_table!(generate_binary);

/// The error in place of a panic should `op.grad` leave out the `self` term it was asked for.
fn missing_self_term(op: BinaryMathOp) -> Error {
    Error::Runtime(format!(
        "internal error: the forward-mode formula of {} got no term for self's tangent",
        op.name()
    ))
}

/// The derivative of an op PyTorch records no node for (never called: `binary_math` records
/// none for an op whose node name is empty).
pub fn not_differentiable() -> Result<Tensor> {
    Err(Error::Runtime("not differentiable".into()))
}

/// The derivative PyTorch does not have: backward through the op raises.
pub fn not_implemented(op: &str) -> Result<Tensor> {
    Err(Error::Runtime(format!(
        "derivative for aten::{op} is not implemented"
    )))
}

/// The forward kernel alone (no autograd), with PyTorch's promotion.
pub fn binary_math_data(op: BinaryMathOp, a: &Tensor, b: &Operand) -> Result<Tensor> {
    operands_data(op, &Operand::Tensor(a.clone()), b)
}

/// The forward kernel on two operands, either of them possibly a Python number.
fn operands_data(op: BinaryMathOp, a_op: &Operand, b: &Operand) -> Result<Tensor> {
    let mut dtype = result_type(&[a_op.participant(), b.participant()]);
    match op.dtypes() {
        BinaryDtypes::Float if !dtype.is_floating_point() => dtype = crate::dtype::default_float(),
        BinaryDtypes::FloatOnly(kernel) if !dtype.is_floating_point() => {
            return Err(crate::dtype::unsupported(kernel, dtype))
        }
        BinaryDtypes::FloatNoHalf(kernel) if dtype == DType::F16 => {
            return Err(crate::dtype::unsupported(kernel, dtype))
        }
        BinaryDtypes::FloatNoHalf(_) if !dtype.is_floating_point() => {
            dtype = crate::dtype::default_float()
        }
        BinaryDtypes::Same(msg, ..)
            if a_op
                .as_tensor()
                .zip(b.as_tensor())
                .is_some_and(|(a, b)| b.dtype() != a.dtype()) =>
        {
            return Err(Error::Runtime(msg.into()))
        }
        _ => {}
    }
    let (ta, tb) = (
        materialize(a_op, dtype.compute()),
        materialize(b, dtype.compute()),
    );
    let shape = broadcast_shapes(&ta.shape(), &tb.shape())?.to_vec();
    // nextafter steps by the ulps of the result's own type: float16 / bfloat16 values (exact
    // in the float32 computed in) step on their grid, on the host.
    let half_step =
        matches!(op, BinaryMathOp::Nextafter) && matches!(dtype, DType::F16 | DType::BF16);
    // No WGSL form (`wgsl: ""`: igamma, or nextafter's 16-bit steps): `kernels::binary` runs
    // the host's kernel, GPU operands included.
    let wgsl = if half_step { "" } else { op.wgsl() };
    // Integer and bool operands have no GPU kernel: the host's runs them.
    let out = kernels::binary(wgsl, dtype, &ta, &tb, &shape, |ta, tb, shape| {
        match (op.dtypes(), ta.dtype()) {
            (_, DType::F32) if half_step => {
                let bf16 = dtype == DType::BF16;
                zip::<f32, f32>(ta, tb, shape, move |a, b| next_after_half(a, b, bf16))
            }
            (_, DType::F32 | DType::F64) => zip_float(op, ta, tb, shape),
            (BinaryDtypes::Same(_, int, _), DType::I64) => zip::<i64, i64>(ta, tb, shape, int),
            (BinaryDtypes::Same(_, _, boolean), DType::Bool) => {
                zip::<bool, bool>(ta, tb, shape, boolean)
            }
            (_, d) => unreachable!("{d:?}: the dtype rule computes floats"),
        }
    })?;
    Ok(narrow(out, dtype))
}

/// A 16-bit float type's conversions: float32 to its bits, its bits to float32.
type HalfBits = (fn(f32) -> u16, fn(u16) -> f32);

/// nextafter on the float16 (or bfloat16) grid of two values of that type held as float32.
fn next_after_half(a: f32, b: f32, bf16: bool) -> f32 {
    let (to_bits, from_bits): HalfBits = if bf16 {
        (
            |v| half::bf16::from_f32(v).to_bits(),
            |b| half::bf16::from_bits(b).to_f32(),
        )
    } else {
        (
            |v| half::f16::from_f32(v).to_bits(),
            |b| half::f16::from_bits(b).to_f32(),
        )
    };
    if a.is_nan() || b.is_nan() {
        return a + b;
    }
    if a == b {
        return b;
    }
    let bits = to_bits(a);
    if bits & 0x7fff == 0 {
        // the smallest subnormal, of `b`'s sign
        return from_bits(if b < 0.0 { 0x8001 } else { 1 });
    }
    from_bits(if (b > a) == (a > 0.0) {
        bits + 1
    } else {
        bits - 1
    })
}

/// `xlogy(number, other)`: PyTorch's `(Number self, Tensor other)` overload, the number
/// promoting as a wrapped number and differentiable in `other` only (`XlogyBackward1`).
pub fn xlogy_number_self(s: crate::dtype::Scalar, b: &Tensor) -> Result<Tensor> {
    let op = BinaryMathOp::Xlogy;
    let out = operands_data(op, &Operand::Scalar(s), &Operand::Tensor(b.clone()))?;
    if !needs_grad(&[b]) {
        return Ok(out);
    }
    let ta = Tensor::scalar(s, out.dtype());
    let saved = vec![SavedTensor::input_unhooked(&ta), SavedTensor::input(b)?];
    Ok(record_formula_jvp(
        out,
        &[b],
        "XlogyBackward1",
        saved,
        move |g, s| Ok(vec![Some(op.grad_other(g, &s[0], &s[1])?)]),
        Jvp::Elementwise,
    ))
}

/// A differentiable binary math op; `b` may be a Python number where the op allows one.
pub fn binary_math(op: BinaryMathOp, a: &Tensor, b: Operand) -> Result<Tensor> {
    let out = binary_math_data(op, a, &b)?;
    let scalar = b.as_tensor().is_none();
    // An op PyTorch records no node for: the result never requires grad.
    let differentiable = !op.backward_name(false).is_empty();
    if !differentiable
        || !needs_grad(&[a])
            && !b.requires_grad()
            && !crate::autograd::forward::operand_tangent(&[&b])
    {
        return Ok(out);
    }
    let dtype = out.dtype();
    let tb = b.edge_tensor(dtype);
    let inputs: Vec<&Tensor> = if scalar { vec![a] } else { vec![a, &tb] };
    // A Python number is saved out of the saved-tensor hooks' sight, as PyTorch's wrapped numbers.
    let tb_saved = if scalar {
        SavedTensor::input_unhooked(&tb)
    } else {
        SavedTensor::input(&tb)?
    };
    let mut saved = vec![SavedTensor::input(a)?, tb_saved];
    // hypot's formulas read the saved result (derivatives.yaml: `grad * self / result`), so in
    // double backward the gradient reaching `result` goes through this node again.
    let hypot = op == BinaryMathOp::Hypot && !scalar;
    if hypot {
        saved.push(SavedTensor::output(&out, 0)?);
    }
    let need = (needs_grad(&[a]), !scalar && needs_grad(&[&tb]));
    let name = op.backward_name(scalar);
    // The declared derivatives are elementwise in `g` (Note [Forward AD]); an op PyTorch has no
    // derivative for has no forward formula either.
    let aten = op.name();
    // PyTorch declares no forward formula for the incomplete gamma functions.
    let jvp = if matches!(op, BinaryMathOp::Igamma | BinaryMathOp::Igammac) {
        Jvp::of(move |_, _| Err(crate::autograd::forward::not_implemented(aten)))
    } else if name == "NotImplemented" {
        Jvp::of(move |_, _| {
            Err(Error::NotImplemented(format!(
                "Trying to use forward AD with aten::{aten} that does not support it."
            )))
        })
    } else if op == BinaryMathOp::Copysign {
        // `copysign_tensor_self_backward(self_t, self, result)`: `other`'s tangent is not read,
        // so without `self`'s the result has none.
        Jvp::SelfOnly(Box::new(move |t, s| {
            let Some(ts) = &t[0] else {
                return Ok(vec![None]);
            };
            let g = op.grad(ts, &s[0], &s[1], (true, false))?.0;
            Ok(vec![Some(g.ok_or_else(|| missing_self_term(op))?)])
        }))
    } else if op == BinaryMathOp::Xlogy {
        // `xlogy(self_t, other_p).masked_fill((self_p == 0) & (other_p <= 0), 0) + other_t *
        // self_p / other_p`: a missing `self_t` (an efficient zero tensor) is materialized by
        // xlogy, so the first term is +0 there; a missing `other_t`'s term is skipped.
        Jvp::of(move |t, s| {
            if t.iter().all(Option::is_none) {
                return Ok(vec![None]);
            }
            let (a, b) = (&s[0], &s[1]);
            let ts = match &t[0] {
                Some(ts) => ts.clone(),
                None => zeros_like(a),
            };
            let first = op
                .grad(&ts, a, b, (true, false))?
                .0
                .ok_or_else(|| missing_self_term(op))?;
            Ok(vec![Some(match t.get(1).and_then(Option::as_ref) {
                Some(tb) => add(&first, &op.grad_other(tb, a, b)?)?,
                None => first,
            })])
        })
    } else {
        Jvp::Elementwise
    };
    let out = record_formula_jvp(
        out,
        &inputs,
        name,
        saved,
        move |g, s| {
            if hypot {
                let r = &s[2];
                let ga = if need.0 {
                    Some(div(&mul(g, &s[0])?, r)?)
                } else {
                    None
                };
                let gb = if need.1 {
                    Some(div(&mul(g, &s[1])?, r)?)
                } else {
                    None
                };
                return Ok(vec![ga, gb]);
            }
            let (ga, gb) = op.grad(g, &s[0], &s[1], need)?;
            Ok(if scalar { vec![ga] } else { vec![ga, gb] })
        },
        jvp,
    );
    // PyTorch's node keeps exactly `self` and `other` only for these (with a Python number it
    // shows nothing); copysign and hypot keep `result` too, xlogy's Python-number node keeps
    // the number, heaviside's `NotImplemented` keeps nothing: those show no `_saved_` here
    // (tests/test_graph_attrs.py's NOT_EXPOSED).
    let self_other = matches!(
        op,
        BinaryMathOp::Atan2
            | BinaryMathOp::Logaddexp
            | BinaryMathOp::Logaddexp2
            | BinaryMathOp::SpecialZeta
            | BinaryMathOp::Igamma
            | BinaryMathOp::Igammac
            | BinaryMathOp::Nextafter
    );
    if !scalar && self_other {
        crate::autograd::formula::describe(&out, &["self", "other"], Vec::new());
    }
    Ok(out)
}
