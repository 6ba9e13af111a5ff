//! Elementwise unary ops. Adding one: a variant, its name, its kernel and its derivative —
//! the matches below have no catch-all arm, so the compiler lists what is missing.

use crate::autograd::{needs_grad, record, Backward, Ctx, SavedTensor};
use crate::backend::cpu::elementwise;
use crate::backend::cpu::vmath::VMath;
use crate::dtype::{DType, Scalar};
use crate::error::{Error, Result};
use crate::ops::binary::{gt, mul, Operand};
use crate::ops::{binary, creation};
use crate::tensor::{Element, Tensor};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    Exp,
    Log,
    Sin,
    Cos,
    Tanh,
    Sigmoid,
    Relu,
    Sqrt,
    Abs,
    Sign,
    Reciprocal,
}

impl UnaryOp {
    pub fn backward_name(self) -> &'static str {
        match self {
            UnaryOp::Neg => "NegBackward0",
            UnaryOp::Exp => "ExpBackward0",
            UnaryOp::Log => "LogBackward0",
            UnaryOp::Sin => "SinBackward0",
            UnaryOp::Cos => "CosBackward0",
            UnaryOp::Tanh => "TanhBackward0",
            UnaryOp::Sigmoid => "SigmoidBackward0",
            UnaryOp::Relu => "ReluBackward0",
            UnaryOp::Sqrt => "SqrtBackward0",
            UnaryOp::Abs => "AbsBackward0",
            UnaryOp::Sign => "SignBackward0",
            UnaryOp::Reciprocal => "ReciprocalBackward0",
        }
    }

    pub fn kernel_name(self) -> &'static str {
        match self {
            UnaryOp::Neg => "neg",
            UnaryOp::Exp => "exp",
            UnaryOp::Log => "log",
            UnaryOp::Sin => "sin",
            UnaryOp::Cos => "cos",
            UnaryOp::Tanh => "tanh",
            UnaryOp::Sigmoid => "sigmoid",
            UnaryOp::Relu => "relu",
            UnaryOp::Sqrt => "sqrt",
            UnaryOp::Abs => "abs",
            UnaryOp::Sign => "sign",
            UnaryOp::Reciprocal => "reciprocal",
        }
    }

    /// Ops that keep integer dtypes (the rest compute in floating point, as PyTorch does).
    fn keeps_integers(self) -> bool {
        match self {
            UnaryOp::Neg | UnaryOp::Relu | UnaryOp::Abs | UnaryOp::Sign => true,
            UnaryOp::Exp
            | UnaryOp::Log
            | UnaryOp::Sin
            | UnaryOp::Cos
            | UnaryOp::Tanh
            | UnaryOp::Sigmoid
            | UnaryOp::Sqrt
            | UnaryOp::Reciprocal => false,
        }
    }

    /// Whether the backward formula reads the output (else the input).
    fn saves_result(self) -> bool {
        match self {
            UnaryOp::Exp
            | UnaryOp::Tanh
            | UnaryOp::Sigmoid
            | UnaryOp::Relu
            | UnaryOp::Sqrt
            | UnaryOp::Reciprocal => true,
            UnaryOp::Neg
            | UnaryOp::Log
            | UnaryOp::Sin
            | UnaryOp::Cos
            | UnaryOp::Abs
            | UnaryOp::Sign => false,
        }
    }
}

/// `$body` with `$f` bound to `op`'s kernel on `$t` values: one monomorphized closure per op
/// (a function pointer per element would not vectorize), shared by every element layout.
macro_rules! with_float_fn {
    ($op:expr, $t:ty, |$f:ident| $body:expr) => {
        with_float_fn!(@arms $op, $f, $body;
            Neg => |x: $t| -x,
            Exp => |x: $t| x.vexp(),
            Log => |x: $t| x.ln(),
            Sin => |x: $t| x.sin(),
            Cos => |x: $t| x.cos(),
            Tanh => |x: $t| x.vtanh(),
            Sigmoid => |x: $t| 1.0 / (1.0 + (-x).vexp()),
            // NaN propagates (NaN > 0 is false, so test "not <= 0").
            Relu => |x: $t| if x <= 0.0 { 0.0 } else { x },
            Sqrt => |x: $t| x.sqrt(),
            Abs => |x: $t| x.abs(),
            Sign => |x: $t| if x > 0.0 { 1.0 } else if x < 0.0 { -1.0 } else { x * 0.0 },
            Reciprocal => |x: $t| 1.0 / x,
        )
    };
    (@arms $op:expr, $f:ident, $body:expr; $($v:ident => $k:expr,)*) => {
        match $op {
            $(UnaryOp::$v => {
                let $f = $k;
                $body
            })*
        }
    };
}

fn int_fn(op: UnaryOp) -> Option<fn(i64) -> i64> {
    Some(match op {
        UnaryOp::Neg => |x: i64| x.wrapping_neg(),
        UnaryOp::Relu => |x: i64| x.max(0),
        UnaryOp::Abs => |x: i64| x.wrapping_abs(),
        UnaryOp::Sign => |x: i64| x.signum(),
        _ => return None,
    })
}

pub(crate) fn map<T: Element, U: Element>(t: &Tensor, f: impl Fn(T) -> U + Sync + Send) -> Tensor {
    let d = t.read();
    let v = elementwise::unary(d.storage.slice::<T>(), &d.layout, f);
    Tensor::from_vec_on(v, &d.layout.shape, d.device())
}

/// `f` over a contiguous float16 tensor, computed in float32 and rounded once per element
/// (Note [Narrow dtypes]) a run at a time, without float32 copies of the tensor.
fn map_half(t: &Tensor, f: impl Fn(f32) -> f32 + Sync + Send) -> Tensor {
    let d = t.read();
    let (o, n) = (d.layout.offset, d.layout.numel());
    let x = &d.storage.slice::<half::f16>()[o..o + n];
    let v = elementwise::map_half(x, f);
    Tensor::from_vec_on(v, &d.layout.shape, d.device())
}

/// The GPU shader's op for `op`.
fn gpu_op(op: UnaryOp) -> Option<crate::backend::wgpu::UnaryOp> {
    use crate::backend::wgpu::UnaryOp as G;
    Some(match op {
        UnaryOp::Neg => G::Neg,
        UnaryOp::Exp => G::Exp,
        UnaryOp::Log => G::Log,
        UnaryOp::Sin => G::Sin,
        UnaryOp::Cos => G::Cos,
        UnaryOp::Tanh => G::Tanh,
        UnaryOp::Sigmoid => G::Sigmoid,
        UnaryOp::Relu => G::Relu,
        UnaryOp::Sqrt => G::Sqrt,
        UnaryOp::Abs => G::Abs,
        UnaryOp::Reciprocal => G::Reciprocal,
        UnaryOp::Sign => G::Sign,
    })
}

/// The forward kernel alone (no autograd).
pub fn unary_data(op: UnaryOp, x: &Tensor) -> Result<Tensor> {
    let dtype = x.dtype();
    if let Some(g) = gpu_op(op).filter(|_| matches!(dtype, DType::F32 | DType::F16)) {
        if let Some(out) = crate::ops::gpu::unary(g, x)? {
            return Ok(out);
        }
    }
    match dtype {
        DType::F16 if x.is_contiguous() && !x.device().is_gpu() => {
            Ok(with_float_fn!(op, f32, |f| map_half(x, f)))
        }
        DType::F16 | DType::I32 => Ok(creation::narrow(
            unary_data(op, &creation::wide(x))?,
            if dtype == DType::I32 && !op.keeps_integers() {
                DType::F32
            } else {
                dtype
            },
        )),
        DType::F32 => Ok(with_float_fn!(op, f32, |f| map::<f32, f32>(x, f))),
        DType::F64 => Ok(with_float_fn!(op, f64, |f| map::<f64, f64>(x, f))),
        DType::I64 | DType::Bool if op.keeps_integers() => {
            if dtype == DType::Bool {
                return match op {
                    UnaryOp::Neg => Err(Error::Runtime("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.".into())),
                    UnaryOp::Abs => Err(crate::dtype::unsupported("abs_cpu", dtype)),
                    UnaryOp::Relu => Err(Error::Runtime("Boolean inputs not supported for relu".into())),
                    UnaryOp::Sign => Ok(creation::contiguous_clone(x)),
                    _ => unreachable!(),
                };
            }
            Ok(map::<i64, i64>(x, int_fn(op).expect("integer kernel")))
        }
        DType::I64 | DType::Bool => unary_data(op, &creation::cast_data(x, DType::F32)),
    }
}

/// A differentiable unary op.
pub fn unary(op: UnaryOp, x: &Tensor) -> Result<Tensor> {
    let out = unary_data(op, x)?;
    if !needs_grad(&[x]) {
        return Ok(out);
    }
    let saved = match op {
        // Their derivatives need no forward values, so a second backward is allowed.
        UnaryOp::Neg | UnaryOp::Sign => None,
        _ if op.saves_result() => Some(SavedTensor::output(&out, 0)),
        _ => Some(SavedTensor::input(x)),
    };
    Ok(record(out, &[x], UnaryBackward { op, saved }))
}

struct UnaryBackward {
    op: UnaryOp,
    saved: Option<SavedTensor>,
}

impl Backward for UnaryBackward {
    fn name(&self) -> &'static str {
        self.op.backward_name()
    }

    fn apply(&mut self, grads: &[Option<Tensor>], ctx: &Ctx) -> Result<Vec<Option<Tensor>>> {
        let g = grads[0].as_ref().expect("engine passes a gradient");
        let s = match &self.saved {
            Some(saved) => saved.unpack(ctx)?,
            None => g.clone(),
        };
        let one = || Operand::Scalar(Scalar::Int(1));
        let gi = match self.op {
            UnaryOp::Neg => unary(UnaryOp::Neg, g)?,
            // d exp(x) = exp(x): the saved result.
            UnaryOp::Exp => mul(g, &s)?,
            UnaryOp::Log => binary::div(g, &s)?,
            UnaryOp::Sin => mul(g, &unary(UnaryOp::Cos, &s)?)?,
            UnaryOp::Cos => mul(g, &unary(UnaryOp::Neg, &unary(UnaryOp::Sin, &s)?)?)?,
            // 1 - tanh², from the saved result.
            UnaryOp::Tanh => mul(g, &binary::rsub(&mul(&s, &s)?, one())?)?,
            UnaryOp::Sigmoid => mul(g, &mul(&s, &binary::rsub(&s, one())?)?)?,
            // threshold_backward: exactly zero (never -0.0) where the output was not positive.
            UnaryOp::Relu => crate::ops::arith::backward_node(
                "ThresholdBackwardBackward0",
                g,
                &s,
                std::sync::Arc::new(|g, s| {
                    binary::where_(
                        &gt(s, Operand::Scalar(Scalar::Int(0)))?,
                        Operand::Tensor(g.clone()),
                        Operand::Scalar(Scalar::Int(0)),
                    )
                }),
                None,
            )?,
            UnaryOp::Sqrt => binary::div(
                g,
                &binary::binary(
                    binary::BinaryOp::Mul,
                    Operand::Tensor(s),
                    Operand::Scalar(Scalar::Int(2)),
                )?,
            )?,
            UnaryOp::Abs => mul(g, &unary(UnaryOp::Sign, &s)?)?,
            UnaryOp::Sign => creation::zeros_like(g),
            UnaryOp::Reciprocal => mul(&unary(UnaryOp::Neg, g)?, &mul(&s, &s)?)?,
        };
        Ok(vec![Some(gi)])
    }

    fn release(&mut self) {
        if let Some(s) = &mut self.saved {
            s.release();
        }
    }
}

pub fn neg(x: &Tensor) -> Result<Tensor> {
    unary(UnaryOp::Neg, x)
}
pub fn exp(x: &Tensor) -> Result<Tensor> {
    unary(UnaryOp::Exp, x)
}
pub fn log(x: &Tensor) -> Result<Tensor> {
    unary(UnaryOp::Log, x)
}
pub fn tanh(x: &Tensor) -> Result<Tensor> {
    unary(UnaryOp::Tanh, x)
}
