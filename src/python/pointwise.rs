//! Bindings of the elementwise op library (`ops::pointwise`: `square`, `round`, `lerp`,
//! `addcmul`, `addcdiv`, `where`), the generic entries of the declared ops (`_unary_op`,
//! `_binary_op`), and the argument and in-place helpers the other elementwise bindings share
//! (their families: `clamp.rs`, `compare.rs`, `divmod.rs`, `logical.rs`, `activation.rs`,
//! `special.rs`).

use super::activation::act;
use super::convert::{extract_scalar, operand_scalar, NumberArg};
use super::tensor::PyTensor;
use crate::dtype::Scalar;
use crate::ops::unary::{unary_args, UnaryOp};
use crate::ops::{inplace, pointwise as pw, Operand};
use crate::tensor::Tensor;
use pyo3::prelude::*;

type R = PyResult<Py<PyAny>>;

/// A tensor or a Python number argument.
pub fn operand_arg(obj: &Bound<'_, PyAny>, op: &str, arg: &str) -> PyResult<Operand> {
    if let Ok(t) = obj.cast::<PyTensor>() {
        return Ok(Operand::Tensor(t.borrow().t.clone()));
    }
    operand_scalar(obj).map(Operand::Scalar).ok_or_else(|| {
        super::errors::type_error(format!(
            "{op}(): argument '{arg}' must be Tensor or Number, not {}",
            obj.get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })
}

/// `round`'s `decimals=`: left out (RoundBackward0) or an int (RoundBackward1); an explicit
/// None is PyTorch's parser error, as for any int argument without a None default.
fn decimals_arg(py: Python<'_>, decimals: NumberArg, op: &str) -> PyResult<Option<i64>> {
    match decimals {
        NumberArg::Absent => Ok(None),
        NumberArg::Given(o) => {
            let o = o.bind(py);
            match o.extract::<i64>() {
                Ok(d) if !o.is_instance_of::<pyo3::types::PyFloat>() => Ok(Some(d)),
                _ => Err(super::errors::type_error(format!(
                    "{op}(): argument 'decimals' must be int, not {}",
                    o.get_type().name()?
                ))),
            }
        }
    }
}

pub(crate) fn scalar_arg(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Scalar>> {
    match obj {
        None => Ok(None),
        Some(o) if o.is_none() => Ok(None),
        Some(o) => extract_scalar(o)
            .map(Some)
            .ok_or_else(|| super::errors::type_error("expected a number")),
    }
}

/// `slf` modified in place by `op`, returned (PyTorch returns the same object).
pub(crate) fn in_place(
    slf: &Bound<'_, PyTensor>,
    op: impl FnOnce(&Tensor) -> crate::Result<Tensor>,
) -> R {
    in_place_with(slf, &[], op)
}

/// `in_place` for ops with other tensor operands (they decide whether a node is recorded).
pub(crate) fn in_place_with(
    slf: &Bound<'_, PyTensor>,
    others: &[&Tensor],
    op: impl FnOnce(&Tensor) -> crate::Result<Tensor>,
) -> R {
    in_place_checking(slf, others, Overlap::Both, op)
}

/// Which of Note [Write overlap]'s checks an in-place op makes, as its PyTorch kernel does.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Overlap {
    /// The target's own overlap and its partial overlap with the other operands.
    Both,
    /// Only the target's own (`index_add_`).
    Internal,
    /// None: the kernel writes through it (`masked_fill_`, `tril_`).
    Unchecked,
}

/// `in_place_with`, with the overlap checks `overlap` names, made after autograd's.
pub(crate) fn in_place_checking(
    slf: &Bound<'_, PyTensor>,
    others: &[&Tensor],
    overlap: Overlap,
    op: impl FnOnce(&Tensor) -> crate::Result<Tensor>,
) -> R {
    let others_need_grad = others.iter().any(|t| t.requires_grad());
    let dst = slf.borrow().t.clone();
    super::boundary::catch(|| {
        inplace::apply_(&dst, others_need_grad, |x| {
            match overlap {
                Overlap::Both => inplace::check_write(&dst, others)?,
                Overlap::Internal => inplace::check_write(&dst, &[])?,
                Overlap::Unchecked => {}
            }
            op(x)
        })
    })?;
    Ok(slf.clone().into_any().unbind())
}

#[pymethods]
impl PyTensor {
    /// square() -> Tensor
    ///
    /// Returns a new tensor with the square of the elements of `self`: `self ** 2`.
    ///
    /// Example:
    ///     >>> gradrs.tensor([-2.0, 0.5, 3.0]).square()
    ///     tensor([4.0000, 0.2500, 9.0000])
    ///     >>> gradrs.tensor([-2, 3]).square()
    ///     tensor([4, 9])
    // `x.square()`: `pow(x, 2)` as PyTorch computes it (PowBackward0), so not declared.
    fn square(&self, py: Python<'_>) -> R {
        super::boundary::tensor(py, || pw::square(&self.t))
    }
    /// square_() -> Tensor
    ///
    /// In-place version of :meth:`~Tensor.square`.
    fn square_(slf: &Bound<'_, Self>) -> R {
        in_place(slf, pw::square)
    }
    /// round(*, decimals=0) -> Tensor
    ///
    /// Rounds the elements of `self` to the nearest integer, or with `decimals` to that many
    /// decimal places (negative: to the left of the decimal point). Halfway values round to the
    /// nearest even integer ("round half to even"), as NumPy does.
    ///
    /// Args:
    ///     decimals (int, optional): the number of decimal places to round to. Default: `0`.
    ///
    /// Example:
    ///     >>> gradrs.tensor([4.7, -2.3, 9.1, -7.7]).round()
    ///     tensor([ 5., -2.,  9., -8.])
    ///     >>> gradrs.tensor([-0.5, 0.5, 1.5, 2.5]).round()
    ///     tensor([-0., 0., 2., 2.])
    ///     >>> gradrs.tensor([0.1234567]).round(decimals=3)
    ///     tensor([0.1230])
    ///     >>> gradrs.tensor([1200.1234567]).round(decimals=-3)
    ///     tensor([1000.])
    // `decimals` given (even 0) selects PyTorch's decimals overload (RoundBackward1).
    #[pyo3(signature = (*, decimals=NumberArg::Absent), text_signature = "($self, *, decimals=0)")]
    fn round(&self, py: Python<'_>, decimals: NumberArg) -> R {
        let decimals = decimals_arg(py, decimals, "round")?;
        super::boundary::tensor(py, || pw::round(&self.t, decimals))
    }
    /// round_(*, decimals=0) -> Tensor
    ///
    /// In-place version of :meth:`~Tensor.round`.
    #[pyo3(signature = (*, decimals=NumberArg::Absent), text_signature = "($self, *, decimals=0)")]
    fn round_(slf: &Bound<'_, Self>, decimals: NumberArg) -> R {
        let decimals = decimals_arg(slf.py(), decimals, "round_")?;
        in_place(slf, |x| pw::round(x, decimals))
    }
    /// `x.where(condition, y)`: `where(condition, x, y)`.
    #[pyo3(name = "where")]
    fn where_(&self, py: Python<'_>, condition: PyRef<'_, PyTensor>, y: &Bound<'_, PyAny>) -> R {
        let y = operand_arg(y, "where", "other")?;
        let c = condition.t.clone();
        super::boundary::tensor(py, || {
            crate::ops::where_::where_(&c, Operand::Tensor(self.t.clone()), y)
        })
    }
    /// lerp(end, weight) -> Tensor
    ///
    /// Linear interpolation of `self` (the start) and `end` by `weight`: `out_i = self_i + weight_i * (end_i - self_i)`. The shapes must be broadcastable.
    ///
    /// Args:
    ///     end (Tensor): the tensor with the ending points.
    ///     weight (float or Tensor): the weight of the interpolation.
    ///
    /// Example:
    ///     >>> start = gradrs.arange(1.0, 5.0)
    ///     >>> end = gradrs.full((4,), 10.0)
    ///     >>> start.lerp(end, 0.5)
    ///     tensor([5.5000, 6.0000, 6.5000, 7.0000])
    ///     >>> start.lerp(end, gradrs.full_like(start, 0.5))
    ///     tensor([5.5000, 6.0000, 6.5000, 7.0000])
    fn lerp(&self, py: Python<'_>, end: PyRef<'_, PyTensor>, weight: &Bound<'_, PyAny>) -> R {
        let (e, w) = (end.t.clone(), operand_arg(weight, "lerp", "weight")?);
        super::boundary::tensor(py, || pw::lerp(&self.t, &e, w))
    }
    /// lerp_(end, weight) -> Tensor
    ///
    /// In-place version of :meth:`~Tensor.lerp`.
    fn lerp_(slf: &Bound<'_, Self>, end: PyRef<'_, PyTensor>, weight: &Bound<'_, PyAny>) -> R {
        let (e, w) = (end.t.clone(), operand_arg(weight, "lerp_", "weight")?);
        let wt = w.edge_tensor(e.dtype());
        in_place_with(slf, &[&e, &wt], |x| pw::lerp(x, &e, w))
    }
    /// addcmul(tensor1, tensor2, *, value=1) -> Tensor
    ///
    /// Multiplies `tensor1` by `tensor2` element-wise, multiplies the result by the scalar `value`
    /// and adds it to `self`: `out_i = self_i + value * tensor1_i * tensor2_i`. The shapes must be
    /// broadcastable.
    ///
    /// Args:
    ///     tensor1 (Tensor): the tensor to be multiplied.
    ///     tensor2 (Tensor): the tensor to be multiplied.
    ///     value (Number, optional): the multiplier for `tensor1 * tensor2`. Default: `1`.
    ///
    /// Example:
    ///     >>> t = gradrs.tensor([1.0, 2.0, 3.0])
    ///     >>> t.addcmul(gradrs.tensor([1.0, 2.0, 3.0]), gradrs.tensor([2.0, 2.0, 2.0]), value=0.5)
    ///     tensor([2., 4., 6.])
    #[pyo3(
        signature = (tensor1, tensor2, *, value=NumberArg::Absent),
        text_signature = "($self, tensor1, tensor2, *, value=1)"
    )]
    fn addcmul(
        &self,
        py: Python<'_>,
        tensor1: PyRef<'_, PyTensor>,
        tensor2: PyRef<'_, PyTensor>,
        value: NumberArg,
    ) -> R {
        let v = value.scalar(py, "addcmul", "value", Scalar::Int(1))?;
        let tensor1_t = tensor1.t.clone();
        let tensor2_t = tensor2.t.clone();
        super::boundary::tensor(py, || pw::addcmul(&self.t, &tensor1_t, &tensor2_t, v))
    }
    /// addcmul_(tensor1, tensor2, *, value=1) -> Tensor
    ///
    /// In-place version of :meth:`~Tensor.addcmul`.
    #[pyo3(
        signature = (tensor1, tensor2, *, value=NumberArg::Absent),
        text_signature = "($self, tensor1, tensor2, *, value=1)"
    )]
    fn addcmul_(
        slf: &Bound<'_, Self>,
        tensor1: PyRef<'_, PyTensor>,
        tensor2: PyRef<'_, PyTensor>,
        value: NumberArg,
    ) -> R {
        let v = value.scalar(slf.py(), "addcmul_", "value", Scalar::Int(1))?;
        let (a, b) = (tensor1.t.clone(), tensor2.t.clone());
        in_place_with(slf, &[&a, &b], |x| pw::addcmul(x, &a, &b, v))
    }
    /// addcdiv(tensor1, tensor2, *, value=1) -> Tensor
    ///
    /// Divides `tensor1` by `tensor2` element-wise, multiplies the result by the scalar `value` and
    /// adds it to `self`: `out_i = self_i + value * tensor1_i / tensor2_i`. The shapes must be
    /// broadcastable; integer division is not supported (as in PyTorch).
    ///
    /// Args:
    ///     tensor1 (Tensor): the numerator tensor.
    ///     tensor2 (Tensor): the denominator tensor.
    ///     value (Number, optional): the multiplier for `tensor1 / tensor2`. Default: `1`.
    ///
    /// Example:
    ///     >>> t = gradrs.tensor([1.0, 2.0, 3.0])
    ///     >>> t.addcdiv(gradrs.tensor([1.0, 2.0, 3.0]), gradrs.tensor([2.0, 4.0, 1.0]), value=2)
    ///     tensor([2., 3., 9.])
    #[pyo3(
        signature = (tensor1, tensor2, *, value=NumberArg::Absent),
        text_signature = "($self, tensor1, tensor2, *, value=1)"
    )]
    fn addcdiv(
        &self,
        py: Python<'_>,
        tensor1: PyRef<'_, PyTensor>,
        tensor2: PyRef<'_, PyTensor>,
        value: NumberArg,
    ) -> R {
        let v = value.scalar(py, "addcdiv", "value", Scalar::Int(1))?;
        let tensor1_t = tensor1.t.clone();
        let tensor2_t = tensor2.t.clone();
        super::boundary::tensor(py, || pw::addcdiv(&self.t, &tensor1_t, &tensor2_t, v))
    }
    /// addcdiv_(tensor1, tensor2, *, value=1) -> Tensor
    ///
    /// In-place version of :meth:`~Tensor.addcdiv`.
    #[pyo3(
        signature = (tensor1, tensor2, *, value=NumberArg::Absent),
        text_signature = "($self, tensor1, tensor2, *, value=1)"
    )]
    fn addcdiv_(
        slf: &Bound<'_, Self>,
        tensor1: PyRef<'_, PyTensor>,
        tensor2: PyRef<'_, PyTensor>,
        value: NumberArg,
    ) -> R {
        let v = value.scalar(slf.py(), "addcdiv_", "value", Scalar::Int(1))?;
        let (a, b) = (tensor1.t.clone(), tensor2.t.clone());
        in_place_with(slf, &[&a, &b], |x| pw::addcdiv(x, &a, &b, v))
    }
}

/// `_native._unary_op(name, input, *params, inplace=False)`: the declared unary op `name`
/// with its first parameters given (None where the parameter may be None), the rest their
/// declared defaults; written into `input` when `inplace` (PyTorch's in-place activations,
/// which keep the input for their node: the in-place entry's name where the node differs, as
/// `celu_`). `gradrs.special` and `gradrs.nn.functional` reach the declared ops that have no
/// Tensor method through it.
#[pyfunction]
#[pyo3(signature = (name, input, *params, inplace=false))]
pub fn _unary_op(
    py: Python<'_>,
    name: &str,
    input: PyRef<'_, PyTensor>,
    params: &Bound<'_, pyo3::types::PyTuple>,
    inplace: bool,
) -> R {
    let op = *UnaryOp::ALL
        .iter()
        .find(|op| op.name() == name)
        .ok_or_else(|| super::errors::value_error(format!("no declared unary op {name}")))?;
    let given: Vec<Option<f64>> = params.extract()?;
    let declared = op.declared().params.len();
    if given.len() > declared {
        return Err(super::errors::type_error(format!(
            "{name} takes {declared} parameters but {} were given",
            given.len()
        )));
    }
    let mut args = op.defaults();
    args[..given.len()].copy_from_slice(&given);
    act(py, &input, inplace, move |x| unary_args(op, x, args))
}

/// `_native._binary_op(name, input, other)`: the declared binary op `name`, `other` a tensor
/// or a Python number; `gradrs.special` exposes the declared `special_*` ops through it.
#[pyfunction]
pub fn _binary_op(
    py: Python<'_>,
    name: &str,
    input: PyRef<'_, PyTensor>,
    other: &Bound<'_, PyAny>,
) -> R {
    let op = crate::ops::binary_math::BinaryMathOp::ALL
        .iter()
        .find(|op| op.name() == name)
        .ok_or_else(|| super::errors::value_error(format!("no declared binary op {name}")))?;
    let (op, x) = (*op, input.t.clone());
    let b = operand_arg(other, name, "other")?;
    super::boundary::tensor(py, move || crate::ops::binary_math::binary_math(op, &x, b))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_unary_op, m)?)?;
    m.add_function(wrap_pyfunction!(_binary_op, m)?)?;
    Ok(())
}
