//! `Operand`: what a binary op takes on either side, a tensor or a Python number.

use crate::dtype::{Participant, Scalar};
use crate::tensor::Tensor;

/// An operand of a binary op: a tensor or a Python number.
#[derive(Clone, Debug)]
pub enum Operand {
    Tensor(Tensor),
    Scalar(Scalar),
}

impl Operand {
    pub(crate) fn requires_grad(&self) -> bool {
        matches!(self, Operand::Tensor(t) if t.requires_grad())
    }

    /// What a graph edge points at: the tensor itself, or a number as a 0-dim `dtype` tensor.
    pub(crate) fn edge_tensor(&self, dtype: crate::DType) -> Tensor {
        match self {
            Operand::Tensor(t) => t.clone(),
            Operand::Scalar(s) => Tensor::scalar(*s, dtype),
        }
    }

    /// The tensor operand, if it is one (a number is not an autograd input).
    pub(crate) fn as_tensor(&self) -> Option<&Tensor> {
        match self {
            Operand::Tensor(t) => Some(t),
            Operand::Scalar(_) => None,
        }
    }

    pub(crate) fn participant(&self) -> Participant {
        match self {
            Operand::Tensor(t) => {
                // One read of the tensor's data for both (every binary op asks).
                let d = t.read();
                let dtype = d.storage.dtype();
                if d.layout.ndim() == 0 {
                    Participant::ZeroDim(dtype)
                } else {
                    Participant::Dim(dtype)
                }
            }
            Operand::Scalar(s) => Participant::Wrapped(s.wrapped_dtype()),
        }
    }
}

impl From<&Tensor> for Operand {
    fn from(t: &Tensor) -> Operand {
        Operand::Tensor(t.clone())
    }
}

impl From<Tensor> for Operand {
    fn from(t: Tensor) -> Operand {
        Operand::Tensor(t)
    }
}

impl From<f64> for Operand {
    fn from(v: f64) -> Operand {
        Operand::Scalar(Scalar::Float(v))
    }
}

impl From<i32> for Operand {
    /// An integer number (`where_(mask, g, 0)` keeps `g`'s dtype, as PyTorch's integer zero).
    fn from(v: i32) -> Operand {
        Operand::Scalar(Scalar::Int(i64::from(v)))
    }
}

impl From<Scalar> for Operand {
    fn from(s: Scalar) -> Operand {
        Operand::Scalar(s)
    }
}
