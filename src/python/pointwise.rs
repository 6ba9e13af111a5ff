//! Bindings of the elementwise op library (`ops::pointwise`), their in-place variants and
//! the activation functions that `gradrs.nn.functional` calls.

use super::convert::{extract_scalar, operand_scalar, tensor_arg, NumberArg};
use super::tensor::{wrap, PyTensor};
use crate::dtype::Scalar;
use crate::ops::clamp::ClampKind;
use crate::ops::unary::{args_of, unary_args, UnaryOp};
use crate::ops::{
    activation, clamp, compare, divmod, inplace, logical, pointwise as pw, special, Operand,
};
use crate::python::convert::Int;
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

/// Clamp bounds: all numbers (ClampBackward1) or, when either is a tensor, tensors
/// (ClampBackward0; a number beside a tensor bound becomes a 0-dim tensor).
enum ClampBounds {
    Scalars(Option<Scalar>, Option<Scalar>),
    Tensors(Option<Tensor>, Option<Tensor>),
}

impl ClampBounds {
    fn parse(
        dtype: crate::DType,
        min: Option<&Bound<'_, PyAny>>,
        max: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<ClampBounds> {
        let tensor_of = |o: Option<&Bound<'_, PyAny>>| -> Option<Tensor> {
            o.and_then(|o| o.cast::<PyTensor>().ok().map(|t| t.borrow().t.clone()))
        };
        let (tl, th) = (tensor_of(min), tensor_of(max));
        // PyTorch's overloads take two tensors or two numbers (a 0-dim tensor passes as one).
        let number = |o: Option<&Bound<'_, PyAny>>, t: &Option<Tensor>| {
            t.is_none() && o.is_some_and(|o| !o.is_none())
        };
        let shaped = |t: &Option<Tensor>| t.as_ref().is_some_and(|t| t.dim() > 0);
        if (shaped(&tl) && number(max, &th)) || (shaped(&th) && number(min, &tl)) {
            return Err(super::errors::type_error(
                "clamp() received an invalid combination of arguments - got a tensor and a number as bounds",
            ));
        }
        if tl.is_none() && th.is_none() {
            return Ok(ClampBounds::Scalars(scalar_arg(min)?, scalar_arg(max)?));
        }
        let as_tensor =
            |o: Option<&Bound<'_, PyAny>>, t: Option<Tensor>| -> PyResult<Option<Tensor>> {
                Ok(match t {
                    Some(t) => Some(t),
                    None => scalar_arg(o)?.map(|s| Tensor::scalar(s, dtype)),
                })
            };
        Ok(ClampBounds::Tensors(
            as_tensor(min, tl)?,
            as_tensor(max, th)?,
        ))
    }

    fn apply(&self, x: &Tensor, kind: ClampKind) -> crate::Result<Tensor> {
        match self {
            ClampBounds::Scalars(lo, hi) => clamp::clamp(x, *lo, *hi, kind),
            ClampBounds::Tensors(lo, hi) => clamp::clamp_tensor(x, lo.as_ref(), hi.as_ref(), kind),
        }
    }

    fn tensors(&self) -> Vec<&Tensor> {
        match self {
            ClampBounds::Scalars(..) => vec![],
            ClampBounds::Tensors(lo, hi) => lo.iter().chain(hi.iter()).collect(),
        }
    }
}

fn clamp_any(
    py: Python<'_>,
    x: &Tensor,
    min: Option<&Bound<'_, PyAny>>,
    max: Option<&Bound<'_, PyAny>>,
    kind: ClampKind,
) -> R {
    let bounds = ClampBounds::parse(x.dtype(), min, max)?;
    super::boundary::tensor(py, || bounds.apply(x, kind))
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
    /// clamp(min=None, max=None) -> Tensor
    ///
    /// Clamps all elements of `self` into the range `[min, max]`: `out_i = min(max(self_i, min_i),
    /// max_i)`. With `min` greater than `max`, every element is set to `max`. `nan` stays `nan`.
    /// `clip` is an alias.
    ///
    /// Args:
    ///     min (Number or Tensor, optional): the lower bound. Default: none.
    ///     max (Number or Tensor, optional): the upper bound. Default: none. At least one bound
    ///         must be given.
    ///
    /// Example:
    ///     >>> x = gradrs.tensor([-1.7, -0.3, 0.4, 2.5])
    ///     >>> x.clamp(min=-0.5, max=0.5)
    ///     tensor([-0.5000, -0.3000,  0.4000,  0.5000])
    ///     >>> x.clamp(min=0.0)
    ///     tensor([0.0000, 0.0000, 0.4000, 2.5000])
    ///     >>> x.clamp(max=gradrs.tensor([0.0, 0.0, 1.0, 1.0]))
    ///     tensor([-1.7000, -0.3000,  0.4000,  1.0000])
    #[pyo3(signature = (min=None, max=None))]
    fn clamp(
        &self,
        py: Python<'_>,
        min: Option<&Bound<'_, PyAny>>,
        max: Option<&Bound<'_, PyAny>>,
    ) -> R {
        clamp_any(py, &self.t, min, max, ClampKind::Clamp)
    }
    /// clip(min=None, max=None) -> Tensor
    ///
    /// Alias for :meth:`~Tensor.clamp`: clamps all elements of `self` into `[min, max]`.
    ///
    /// Args:
    ///     min (Number or Tensor, optional): the lower bound.
    ///     max (Number or Tensor, optional): the upper bound.
    ///
    /// Example:
    ///     >>> gradrs.tensor([-1.7, -0.3, 0.4, 2.5]).clip(-1, 1)
    ///     tensor([-1.0000, -0.3000,  0.4000,  1.0000])
    #[pyo3(signature = (min=None, max=None))]
    fn clip(
        &self,
        py: Python<'_>,
        min: Option<&Bound<'_, PyAny>>,
        max: Option<&Bound<'_, PyAny>>,
    ) -> R {
        clamp_any(py, &self.t, min, max, ClampKind::Clamp)
    }
    /// clamp_(min=None, max=None) -> Tensor
    ///
    /// In-place version of :meth:`~Tensor.clamp`.
    #[pyo3(signature = (min=None, max=None))]
    fn clamp_(
        slf: &Bound<'_, Self>,
        min: Option<&Bound<'_, PyAny>>,
        max: Option<&Bound<'_, PyAny>>,
    ) -> R {
        let bounds = ClampBounds::parse(slf.borrow().t.dtype(), min, max)?;
        in_place_with(slf, &bounds.tensors(), |x| {
            let out = bounds.apply(x, ClampKind::Clamp)?;
            let (rd, xd) = (out.dtype(), x.dtype());
            // clamp's own check names the output type as C++ does (`long int`).
            if !crate::dtype::can_cast(rd, xd) {
                return Err(crate::Error::Runtime(format!(
                    "result type {} can't be cast to the desired output type {}",
                    crate::dtype::pretty_kernel_name(rd),
                    crate::dtype::cpp_name(xd)
                )));
            }
            Ok(out)
        })
    }
    /// clip_(min=None, max=None) -> Tensor
    ///
    /// In-place version of :meth:`~Tensor.clamp`.
    #[pyo3(signature = (min=None, max=None))]
    fn clip_(
        slf: &Bound<'_, Self>,
        min: Option<&Bound<'_, PyAny>>,
        max: Option<&Bound<'_, PyAny>>,
    ) -> R {
        Self::clamp_(slf, min, max)
    }
    /// clamp_min(min) -> Tensor
    ///
    /// Clamps all elements of `self` from below: `out_i = max(self_i, min)`, as `clamp(min=min)`.
    ///
    /// Args:
    ///     min (Number or Tensor): the lower bound.
    ///
    /// Example:
    ///     >>> gradrs.tensor([-1.7, -0.3, 0.4, 2.5]).clamp_min(0)
    ///     tensor([0.0000, 0.0000, 0.4000, 2.5000])
    fn clamp_min(&self, py: Python<'_>, min: &Bound<'_, PyAny>) -> R {
        clamp_any(py, &self.t, Some(min), None, ClampKind::Min)
    }
    /// clamp_max(max) -> Tensor
    ///
    /// Clamps all elements of `self` from above: `out_i = min(self_i, max)`, as `clamp(max=max)`.
    ///
    /// Args:
    ///     max (Number or Tensor): the upper bound.
    ///
    /// Example:
    ///     >>> gradrs.tensor([-1.7, -0.3, 0.4, 2.5]).clamp_max(0)
    ///     tensor([-1.7000, -0.3000,  0.0000,  0.0000])
    fn clamp_max(&self, py: Python<'_>, max: &Bound<'_, PyAny>) -> R {
        clamp_any(py, &self.t, None, Some(max), ClampKind::Max)
    }
    /// clamp_min_(min) -> Tensor
    ///
    /// In-place version of :meth:`~Tensor.clamp_min`.
    fn clamp_min_(slf: &Bound<'_, Self>, min: &Bound<'_, PyAny>) -> R {
        let bounds = ClampBounds::parse(slf.borrow().t.dtype(), Some(min), None)?;
        in_place_with(slf, &bounds.tensors(), |x| bounds.apply(x, ClampKind::Min))
    }
    /// clamp_max_(max) -> Tensor
    ///
    /// In-place version of :meth:`~Tensor.clamp_max`.
    fn clamp_max_(slf: &Bound<'_, Self>, max: &Bound<'_, PyAny>) -> R {
        let bounds = ClampBounds::parse(slf.borrow().t.dtype(), None, Some(max))?;
        in_place_with(slf, &bounds.tensors(), |x| bounds.apply(x, ClampKind::Max))
    }
    /// nan_to_num(nan=0.0, posinf=None, neginf=None) -> Tensor
    ///
    /// Replaces `nan`, positive infinity and negative infinity in `self` by `nan`, `posinf` and
    /// `neginf`. By default `nan` becomes zero and the infinities the greatest and least finite
    /// values of `self`'s dtype.
    ///
    /// Args:
    ///     nan (Number, optional): the value to replace `nan` with. Default: `0.0`.
    ///     posinf (Number, optional): the value to replace positive infinity with. Default: the
    ///         greatest finite value of the dtype.
    ///     neginf (Number, optional): the value to replace negative infinity with. Default: the
    ///         least finite value of the dtype.
    ///
    /// Example:
    ///     >>> x = gradrs.tensor([float('nan'), float('inf'), -float('inf'), 3.14])
    ///     >>> x.nan_to_num()
    ///     tensor([ 0.0000e+00,  3.4028e+38, -3.4028e+38,  3.1400e+00])
    ///     >>> x.nan_to_num(nan=0.0, posinf=1.0)
    ///     tensor([ 0.0000e+00,  1.0000e+00, -3.4028e+38,  3.1400e+00])
    ///     >>> x.nan_to_num(nan=0.0, posinf=1.0, neginf=-1.0)
    ///     tensor([ 0.0000,  1.0000, -1.0000,  3.1400])
    #[pyo3(signature = (nan=0.0, posinf=None, neginf=None))]
    fn nan_to_num(
        &self,
        py: Python<'_>,
        nan: Option<f64>,
        posinf: Option<f64>,
        neginf: Option<f64>,
    ) -> R {
        super::boundary::tensor(py, || clamp::nan_to_num(&self.t, nan, posinf, neginf))
    }
    /// nan_to_num_(nan=0.0, posinf=None, neginf=None) -> Tensor
    ///
    /// In-place version of :meth:`~Tensor.nan_to_num`.
    #[pyo3(signature = (nan=0.0, posinf=None, neginf=None))]
    fn nan_to_num_(
        slf: &Bound<'_, Self>,
        nan: Option<f64>,
        posinf: Option<f64>,
        neginf: Option<f64>,
    ) -> R {
        in_place(slf, |x| clamp::nan_to_num(x, nan, posinf, neginf))
    }
    /// maximum(other) -> Tensor
    ///
    /// Computes the element-wise maximum of `self` and `other` (broadcast). A `nan` in either input
    /// gives `nan` (see `fmax` to ignore it).
    ///
    /// Args:
    ///     other (Tensor): the second input tensor.
    ///
    /// Example:
    ///     >>> gradrs.tensor([1, 2, -1]).maximum(gradrs.tensor([3, 0, 4]))
    ///     tensor([3, 2, 4])
    fn maximum(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
        let o = tensor_arg(other, "maximum", "other", 1)?;
        super::boundary::tensor(py, || compare::maximum(&self.t, &o))
    }
    /// minimum(other) -> Tensor
    ///
    /// Computes the element-wise minimum of `self` and `other` (broadcast). A `nan` in either input
    /// gives `nan` (see `fmin` to ignore it).
    ///
    /// Args:
    ///     other (Tensor): the second input tensor.
    ///
    /// Example:
    ///     >>> gradrs.tensor([1, 2, -1]).minimum(gradrs.tensor([3, 0, 4]))
    ///     tensor([ 1,  0, -1])
    fn minimum(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
        let o = tensor_arg(other, "minimum", "other", 1)?;
        super::boundary::tensor(py, || compare::minimum(&self.t, &o))
    }
    /// fmax(other) -> Tensor
    ///
    /// Computes the element-wise maximum of `self` and `other` (broadcast), as C's `fmax`: where
    /// only one of the two is `nan`, the other is taken; `nan` only where both are.
    ///
    /// Args:
    ///     other (Tensor): the second input tensor.
    ///
    /// Example:
    ///     >>> a = gradrs.tensor([9.7, float('nan'), 3.1, float('nan')])
    ///     >>> b = gradrs.tensor([-2.2, 0.5, float('nan'), float('nan')])
    ///     >>> a.fmax(b)
    ///     tensor([9.7000, 0.5000, 3.1000,    nan])
    fn fmax(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
        let o = tensor_arg(other, "fmax", "other", 1)?;
        super::boundary::tensor(py, || compare::fextremum(&self.t, &o, true))
    }
    /// fmod(other) -> Tensor
    ///
    /// Applies C++'s `std::fmod` element-wise: the remainder of `self / other` truncated towards
    /// zero, so it has the sign of the dividend `self` (see `remainder` for Python's `%`). Supports
    /// broadcasting, and integer and float inputs.
    ///
    /// Args:
    ///     other (Tensor or Number): the divisor.
    ///
    /// Example:
    ///     >>> gradrs.tensor([-3.0, -2.0, -1.0, 1.0, 2.0, 3.0]).fmod(2)
    ///     tensor([-1., -0., -1.,  1.,  0.,  1.])
    ///     >>> gradrs.tensor([1, 2, 3, 4, 5]).fmod(-1.5)
    ///     tensor([1.0000, 0.5000, 0.0000, 1.0000, 0.5000])
    fn fmod(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
        let o = operand_arg(other, "fmod", "other")?;
        super::boundary::tensor(py, || divmod::fmod(&self.t, o))
    }
    /// fmod_(other) -> Tensor
    ///
    /// In-place version of :meth:`~Tensor.fmod`.
    fn fmod_(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> R {
        let o = operand_arg(other, "fmod_", "other")?;
        let ot = o.edge_tensor(crate::DType::F32);
        in_place_with(slf, &[&ot], |x| divmod::fmod(x, o))
    }
    /// remainder(other) -> Tensor
    ///
    /// Computes Python's modulus operation element-wise: `self - floor(self / other) * other`, so
    /// the result has the sign of the divisor `other` (see `fmod` for C's). Supports broadcasting,
    /// and integer and float inputs; `x % y` calls it.
    ///
    /// Args:
    ///     other (Tensor or Number): the divisor.
    ///
    /// Example:
    ///     >>> gradrs.tensor([-3.0, -2.0, -1.0, 1.0, 2.0, 3.0]).remainder(2)
    ///     tensor([1., -0., 1., 1., 0., 1.])
    ///     >>> gradrs.tensor([1, 2, 3, 4, 5]).remainder(-1.5)
    ///     tensor([-0.5000, -1.0000,  0.0000, -0.5000, -1.0000])
    fn remainder(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
        let o = operand_arg(other, "remainder", "other")?;
        super::boundary::tensor(py, || divmod::remainder(&self.t, o))
    }
    /// remainder_(other) -> Tensor
    ///
    /// In-place version of :meth:`~Tensor.remainder`.
    fn remainder_(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> R {
        let o = operand_arg(other, "remainder_", "other")?;
        let ot = o.edge_tensor(crate::DType::F32);
        in_place_with(slf, &[&ot], |x| divmod::remainder(x, o))
    }
    fn __mod__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
        match operand_arg(other, "remainder", "other") {
            Ok(o) => super::boundary::tensor(py, || divmod::remainder(&self.t, o)),
            Err(_) => Ok(py.NotImplemented()),
        }
    }
    fn __rmod__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
        match operand_scalar(other) {
            Some(s) => super::boundary::tensor(py, || divmod::rremainder(s, &self.t)),
            None => Ok(py.NotImplemented()),
        }
    }
    /// floor_divide(other) -> Tensor
    ///
    /// Divides `self` by `other` element-wise and rounds each quotient down (towards minus
    /// infinity), as Python's `//`, which calls it. Supports broadcasting and type promotion.
    ///
    /// Args:
    ///     other (Tensor or Number): the divisor.
    ///
    /// Example:
    ///     >>> a = gradrs.tensor([4.0, 3.0, -3.0])
    ///     >>> a.floor_divide(gradrs.tensor([2.0, 2.0, 2.0]))
    ///     tensor([ 2.,  1., -2.])
    ///     >>> a.floor_divide(1.4)
    ///     tensor([ 2.,  2., -3.])
    fn floor_divide(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
        let o = operand_arg(other, "floor_divide", "other")?;
        super::boundary::tensor(py, || {
            divmod::floor_divide(&Operand::Tensor(self.t.clone()), &o)
        })
    }
    /// floor_divide_(other) -> Tensor
    ///
    /// In-place version of :meth:`~Tensor.floor_divide`.
    fn floor_divide_(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> R {
        let o = operand_arg(other, "floor_divide_", "other")?;
        in_place(slf, |x| {
            divmod::floor_divide(&Operand::Tensor(x.clone()), &o)
        })
    }
    fn __floordiv__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
        match operand_arg(other, "floor_divide", "other") {
            Ok(o) => super::boundary::tensor(py, || {
                divmod::floor_divide(&Operand::Tensor(self.t.clone()), &o)
            }),
            Err(_) => Ok(py.NotImplemented()),
        }
    }
    fn __rfloordiv__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
        match operand_scalar(other) {
            Some(s) => super::boundary::tensor(py, || {
                divmod::floor_divide(&Operand::Scalar(s), &Operand::Tensor(self.t.clone()))
            }),
            None => Ok(py.NotImplemented()),
        }
    }
    /// logical_and(other) -> Tensor
    ///
    /// Computes the element-wise logical AND of `self` and `other`; zeros are `False`, other values
    /// `True`. The result is a `bool` tensor.
    ///
    /// Args:
    ///     other (Tensor): the tensor to compute AND with.
    ///
    /// Example:
    ///     >>> gradrs.tensor([True, False, True]).logical_and(gradrs.tensor([True, False, False]))
    ///     tensor([ True, False, False])
    ///     >>> gradrs.tensor([0, 1, 10, 0]).logical_and(gradrs.tensor([4, 0, 1, 0]))
    ///     tensor([False, False,  True, False])
    fn logical_and(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
        let o = tensor_arg(other, "logical_and", "other", 1)?;
        super::boundary::tensor(py, || logical::logical(&self.t, &o, "and"))
    }
    /// logical_or(other) -> Tensor
    ///
    /// Computes the element-wise logical OR of `self` and `other`; zeros are `False`, other values
    /// `True`. The result is a `bool` tensor.
    ///
    /// Args:
    ///     other (Tensor): the tensor to compute OR with.
    ///
    /// Example:
    ///     >>> gradrs.tensor([True, False, True]).logical_or(gradrs.tensor([True, False, False]))
    ///     tensor([ True, False,  True])
    ///     >>> gradrs.tensor([0, 1, 10, 0]).logical_or(gradrs.tensor([4, 0, 1, 0]))
    ///     tensor([ True,  True,  True, False])
    fn logical_or(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
        let o = tensor_arg(other, "logical_or", "other", 1)?;
        super::boundary::tensor(py, || logical::logical(&self.t, &o, "or"))
    }
    /// logical_xor(other) -> Tensor
    ///
    /// Computes the element-wise logical XOR of `self` and `other`; zeros are `False`, other values
    /// `True`. The result is a `bool` tensor.
    ///
    /// Args:
    ///     other (Tensor): the tensor to compute XOR with.
    ///
    /// Example:
    ///     >>> gradrs.tensor([True, False, True]).logical_xor(gradrs.tensor([True, False, False]))
    ///     tensor([False, False,  True])
    ///     >>> gradrs.tensor([0, 1, 10, 0]).logical_xor(gradrs.tensor([4, 0, 1, 0]))
    ///     tensor([ True,  True, False, False])
    fn logical_xor(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
        let o = tensor_arg(other, "logical_xor", "other", 1)?;
        super::boundary::tensor(py, || logical::logical(&self.t, &o, "xor"))
    }
    /// logical_not() -> Tensor
    ///
    /// Computes the element-wise logical NOT of `self`: `True` where an element is zero. The result
    /// is a `bool` tensor.
    ///
    /// Example:
    ///     >>> gradrs.tensor([True, False]).logical_not()
    ///     tensor([False,  True])
    ///     >>> gradrs.tensor([0, 1, -10]).logical_not()
    ///     tensor([ True, False, False])
    ///     >>> gradrs.tensor([0.0, 1.5, -10.0]).logical_not()
    ///     tensor([ True, False, False])
    fn logical_not(&self, py: Python<'_>) -> R {
        super::boundary::tensor(py, || logical::logical_not(&self.t))
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

// ---- activations, for gradrs.nn.functional ------------------------------------------------------

fn act(
    py: Python<'_>,
    input: &PyTensor,
    inplace: bool,
    op: impl FnOnce(&Tensor) -> crate::Result<Tensor> + Send,
) -> R {
    if inplace {
        let dst = &input.t;
        super::boundary::catch(|| {
            inplace::apply_(dst, false, |x| {
                inplace::check_write(dst, &[])?;
                op(x)
            })
        })?;
        return wrap(py, input.t.clone());
    }
    let input_t = input.t.clone();
    super::boundary::tensor(py, || op(&input_t))
}

/// A declared activation (`ops/unary_decl.rs`) with its parameters, or in place its in-place
/// entry (`elu_`, `leaky_relu_`: nodes that keep the result) or the same one.
fn declared_act(py: Python<'_>, input: &PyTensor, op: UnaryOp, inplace: bool, params: &[f64]) -> R {
    let args = args_of(&params.iter().map(|&p| Some(p)).collect::<Vec<_>>());
    act(py, input, inplace, move |x| unary_args(op, x, args))
}

#[pyfunction]
#[pyo3(signature = (input, approximate="none"))]
pub fn gelu(py: Python<'_>, input: PyRef<'_, PyTensor>, approximate: &str) -> R {
    act(py, &input, false, |x| activation::gelu(x, approximate))
}
#[pyfunction]
#[pyo3(signature = (input, inplace=false))]
pub fn silu(py: Python<'_>, input: PyRef<'_, PyTensor>, inplace: bool) -> R {
    declared_act(py, &input, UnaryOp::Silu, inplace, &[])
}
#[pyfunction]
#[pyo3(signature = (input, beta=1.0, threshold=20.0))]
pub fn softplus(py: Python<'_>, input: PyRef<'_, PyTensor>, beta: f64, threshold: f64) -> R {
    declared_act(py, &input, UnaryOp::Softplus, false, &[beta, threshold])
}
#[pyfunction]
#[pyo3(signature = (input, alpha=1.0, inplace=false))]
pub fn elu(py: Python<'_>, input: PyRef<'_, PyTensor>, alpha: f64, inplace: bool) -> R {
    let op = if inplace {
        UnaryOp::EluInplace
    } else {
        UnaryOp::Elu
    };
    declared_act(py, &input, op, inplace, &[alpha, 1.0, 1.0])
}
#[pyfunction]
#[pyo3(signature = (input, negative_slope=0.01, inplace=false))]
pub fn leaky_relu(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    negative_slope: f64,
    inplace: bool,
) -> R {
    let op = if inplace {
        UnaryOp::LeakyReluInplace
    } else {
        UnaryOp::LeakyRelu
    };
    declared_act(py, &input, op, inplace, &[negative_slope])
}
#[pyfunction]
#[pyo3(
    signature = (input, min_val=-1.0, max_val=1.0, inplace=false),
    text_signature = "(input, min_val=-1.0, max_val=1.0, inplace=False)"
)]
pub fn hardtanh(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    min_val: f64,
    max_val: f64,
    inplace: bool,
) -> R {
    if min_val > max_val {
        return Err(super::errors::value_error(
            "min_val cannot be greater than max_val",
        ));
    }
    declared_act(py, &input, UnaryOp::Hardtanh, inplace, &[min_val, max_val])
}

/// The declared special functions with an integer argument (`ops/special.rs`): their Tensor
/// methods, which the declaration does not generate (polygamma's `n` comes first in PyTorch's
/// function, and neither integer has a default).
#[pymethods]
impl PyTensor {
    /// polygamma(n) -> Tensor
    ///
    /// Computes the `n`-th derivative of the digamma function on `self` (`polygamma(0, x)` is
    /// `digamma(x)`). See `gradrs.polygamma`.
    ///
    /// Args:
    ///     n (int): the order of the polygamma function (non-negative).
    ///
    /// Example:
    ///     >>> a = gradrs.tensor([1.0, 0.5])
    ///     >>> a.polygamma(1)
    ///     tensor([1.6449, 4.9348])
    ///     >>> a.polygamma(2)
    ///     tensor([ -2.4041, -16.8288])
    ///     >>> a.polygamma(3)
    ///     tensor([ 6.4939, 97.4091])
    fn polygamma(&self, py: Python<'_>, n: Int) -> R {
        let n = n.get("polygamma", "n", 1)?;
        super::boundary::tensor(py, || special::polygamma(n, &self.t))
    }
    /// polygamma_(n) -> Tensor
    ///
    /// In-place version of :meth:`~Tensor.polygamma`.
    fn polygamma_(slf: &Bound<'_, Self>, n: Int) -> R {
        let n = n.get("polygamma_", "n", 1)?;
        in_place(slf, |x| special::polygamma(n, x))
    }
    /// mvlgamma(p) -> Tensor
    ///
    /// Computes the multivariate log-gamma function of dimension `p` element-wise: `log(Gamma_p(a))
    /// = p (p - 1) / 4 * log(pi) + sum_{i=1}^{p} lgamma(a - (i - 1) / 2)`. All elements must be
    /// greater than `(p - 1) / 2`.
    ///
    /// Args:
    ///     p (int): the number of dimensions.
    ///
    /// Example:
    ///     >>> gradrs.tensor([1.5, 2.0, 3.5]).mvlgamma(2)
    ///     tensor([0.4516, 0.4516, 2.4665])
    fn mvlgamma(&self, py: Python<'_>, p: Int) -> R {
        let p = p.get("mvlgamma", "p", 1)?;
        super::boundary::tensor(py, || special::mvlgamma(&self.t, p))
    }
    /// mvlgamma_(p) -> Tensor
    ///
    /// In-place version of :meth:`~Tensor.mvlgamma`.
    fn mvlgamma_(slf: &Bound<'_, Self>, p: Int) -> R {
        let p = p.get("mvlgamma_", "p", 1)?;
        in_place(slf, |x| special::mvlgamma(x, p))
    }
}

/// `torch.special`'s i0e / i1 / i1e (no Tensor methods in PyTorch): `gradrs.special` calls these.
fn special_unary(py: Python<'_>, input: &PyTensor, op: UnaryOp) -> R {
    let x = input.t.clone();
    super::boundary::tensor(py, move || unary_args(op, &x, args_of(&[])))
}
#[pyfunction]
pub fn special_i0e(py: Python<'_>, input: PyRef<'_, PyTensor>) -> R {
    special_unary(py, &input, UnaryOp::SpecialI0e)
}
#[pyfunction]
pub fn special_i1(py: Python<'_>, input: PyRef<'_, PyTensor>) -> R {
    special_unary(py, &input, UnaryOp::SpecialI1)
}
#[pyfunction]
pub fn special_i1e(py: Python<'_>, input: PyRef<'_, PyTensor>) -> R {
    special_unary(py, &input, UnaryOp::SpecialI1e)
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
    m.add_function(wrap_pyfunction!(special_i0e, m)?)?;
    m.add_function(wrap_pyfunction!(special_i1, m)?)?;
    m.add_function(wrap_pyfunction!(special_i1e, m)?)?;
    m.add_function(wrap_pyfunction!(gelu, m)?)?;
    m.add_function(wrap_pyfunction!(silu, m)?)?;
    m.add_function(wrap_pyfunction!(softplus, m)?)?;
    m.add_function(wrap_pyfunction!(elu, m)?)?;
    m.add_function(wrap_pyfunction!(leaky_relu, m)?)?;
    m.add_function(wrap_pyfunction!(hardtanh, m)?)?;
    Ok(())
}

macro_rules! bitwise_methods {
    ($($name:ident, $rname:ident, $(#[doc = $doc:literal])* $method:ident => $op:literal;)*) => {
        #[pymethods]
        impl PyTensor {
            $(
                fn $name(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
                    match operand_arg(other, $op, "other") {
                        Ok(o) => super::boundary::tensor(py, || logical::bitwise(&self.t, o, $op)),
                        Err(_) => Ok(py.NotImplemented()),
                    }
                }
                fn $rname(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
                    self.$name(py, other)
                }
                $(#[doc = $doc])*
                fn $method(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
                    let o = operand_arg(other, $op, "other")?;
                    super::boundary::tensor(py, || logical::bitwise(&self.t, o, $op))
                }
            )*
        }
    };
}

bitwise_methods! {
    __and__,
    __rand__,
    /// bitwise_and(other) -> Tensor
    ///
    /// Computes the bitwise AND of `self` and `other` (integral or `bool` tensors, or a Python
    /// integer or bool; broadcast); `x & y` calls it. For `bool` tensors it is the logical AND.
    ///
    /// Args:
    ///     other (Tensor or Number): the second input.
    ///
    /// Example:
    ///     >>> a = gradrs.tensor([-1, -2, 3], dtype=gradrs.int8)
    ///     >>> a.bitwise_and(gradrs.tensor([1, 0, 3], dtype=gradrs.int8))
    ///     tensor([1, 0, 3], dtype=gradrs.int8)
    ///     >>> gradrs.tensor([True, True, False]).bitwise_and(gradrs.tensor([False, True, False]))
    ///     tensor([False,  True, False])
    bitwise_and => "and";
    __or__,
    __ror__,
    /// bitwise_or(other) -> Tensor
    ///
    /// Computes the bitwise OR of `self` and `other` (integral or `bool` tensors, or a Python
    /// integer or bool; broadcast); `x | y` calls it. For `bool` tensors it is the logical OR.
    ///
    /// Args:
    ///     other (Tensor or Number): the second input.
    ///
    /// Example:
    ///     >>> a = gradrs.tensor([-1, -2, 3], dtype=gradrs.int8)
    ///     >>> a.bitwise_or(gradrs.tensor([1, 0, 3], dtype=gradrs.int8))
    ///     tensor([-1, -2,  3], dtype=gradrs.int8)
    ///     >>> gradrs.tensor([True, True, False]).bitwise_or(gradrs.tensor([False, True, False]))
    ///     tensor([ True,  True, False])
    bitwise_or => "or";
    __xor__,
    __rxor__,
    /// bitwise_xor(other) -> Tensor
    ///
    /// Computes the bitwise XOR of `self` and `other` (integral or `bool` tensors, or a Python
    /// integer or bool; broadcast); `x ^ y` calls it. For `bool` tensors it is the logical XOR.
    ///
    /// Args:
    ///     other (Tensor or Number): the second input.
    ///
    /// Example:
    ///     >>> a = gradrs.tensor([-1, -2, 3], dtype=gradrs.int8)
    ///     >>> a.bitwise_xor(gradrs.tensor([1, 0, 3], dtype=gradrs.int8))
    ///     tensor([-2, -2,  0], dtype=gradrs.int8)
    ///     >>> gradrs.tensor([True, True, False]).bitwise_xor(gradrs.tensor([False, True, False]))
    ///     tensor([ True, False, False])
    bitwise_xor => "xor";
}

#[pymethods]
impl PyTensor {
    fn __invert__(&self, py: Python<'_>) -> R {
        super::boundary::tensor(py, || logical::bitwise_not(&self.t))
    }
    /// bitwise_not() -> Tensor
    ///
    /// Computes the bitwise NOT of `self` (integral or `bool`); `~x` calls it.
    ///
    /// Example:
    ///     >>> gradrs.tensor([-1, -2, 3], dtype=gradrs.int8).bitwise_not()
    ///     tensor([ 0,  1, -4], dtype=gradrs.int8)
    ///     >>> gradrs.tensor([True, False]).bitwise_not()
    ///     tensor([False,  True])
    fn bitwise_not(&self, py: Python<'_>) -> R {
        super::boundary::tensor(py, || logical::bitwise_not(&self.t))
    }
}
