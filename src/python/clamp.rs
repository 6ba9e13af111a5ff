//! Bindings of the clamps (`ops::clamp`): `clamp` / `clip` with number or tensor bounds,
//! `clamp_min` / `clamp_max`, their in-place forms, and `nan_to_num`.

use super::pointwise::{in_place, in_place_with, scalar_arg};
use super::tensor::PyTensor;
use super::R;
use crate::dtype::Scalar;
use crate::ops::clamp::{self, ClampKind};
use crate::tensor::Tensor;
use pyo3::prelude::*;

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
}
