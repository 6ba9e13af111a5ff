//! Tensor methods of the core ops: add / sub / mul / div / pow (and in place), sum / mean,
//! the matrix products, views and reshapes, comparisons.

use super::*;
use crate::python::convert::Int;

#[pymethods]
impl PyTensor {
    // ---- named ops --------------------------------------------------------------------------

    // pyo3 shows a default that is no literal (`-1`, `NumberArg::Absent`) as `...` in
    // `__text_signature__`; `text_signature` gives Python (`inspect`, `help`, mypy.stubtest) the
    // real one, here and wherever such a default appears.
    /// add(other, *, alpha=1) -> Tensor
    ///
    /// `self + alpha * other`, broadcast, with PyTorch's type promotion.
    #[pyo3(signature = (other, *, alpha=NumberArg::Absent), text_signature = "($self, other, *, alpha=1)")]
    fn add(&self, py: Python<'_>, other: &Bound<'_, PyAny>, alpha: NumberArg) -> R {
        self.add_sub(py, other, alpha, false)
    }
    /// sub(other, *, alpha=1) -> Tensor
    ///
    /// `self - alpha * other`, broadcast, with PyTorch's type promotion.
    #[pyo3(signature = (other, *, alpha=NumberArg::Absent), text_signature = "($self, other, *, alpha=1)")]
    fn sub(&self, py: Python<'_>, other: &Bound<'_, PyAny>, alpha: NumberArg) -> R {
        self.add_sub(py, other, alpha, true)
    }
    /// mul(other) -> Tensor
    ///
    /// `self * other`, broadcast, with PyTorch's type promotion.
    fn mul(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
        let o = operand_or_err(other, "mul")?;
        crate::python::boundary::tensor(py, || {
            arithmetic::binary(BinaryOp::Mul, Operand::Tensor(self.t.clone()), o)
        })
    }
    /// div(other, *, rounding_mode=None) -> Tensor
    ///
    /// `self / other`; `rounding_mode` 'trunc' or 'floor' rounds the quotient.
    #[pyo3(
        signature = (other, *, rounding_mode=RoundingMode::Absent),
        text_signature = "($self, other, *, rounding_mode=None)"
    )]
    fn div(&self, py: Python<'_>, other: &Bound<'_, PyAny>, rounding_mode: RoundingMode) -> R {
        let a = Operand::Tensor(self.t.clone());
        match rounding_mode {
            RoundingMode::Absent => {}
            // PyTorch's div.Tensor_mode overload: DivBackward2.
            RoundingMode::Given(None) => {
                let o = operand_or_err(other, "div")?;
                return crate::python::boundary::tensor(py, || arithmetic::div_mode_none(a, o));
            }
            RoundingMode::Given(Some(mode)) => {
                let o = operand_or_err(other, "div")?;
                return crate::python::boundary::tensor(py, || {
                    crate::ops::divmod::div_rounding(&a, &o, &mode)
                });
            }
        }
        let o = operand_or_err(other, "div")?;
        crate::python::boundary::tensor(py, || arithmetic::binary(BinaryOp::Div, a, o))
    }
    /// pow(exponent) -> Tensor
    ///
    /// `self ** exponent`, elementwise.
    fn pow(&self, py: Python<'_>, exponent: &Bound<'_, PyAny>) -> R {
        let o = operand(exponent).ok_or_else(|| pow_type_error("pow", exponent))?;
        crate::python::boundary::tensor(py, || {
            arithmetic::binary(BinaryOp::Pow, Operand::Tensor(self.t.clone()), o)
        })
    }
    /// `self ** exponent` written into `self` (PowBackward0 for a number, PowBackward1 for a
    /// tensor, as `pow` records; a result dtype `self` cannot hold is refused).
    fn pow_(slf: &Bound<'_, Self>, exponent: &Bound<'_, PyAny>) -> R {
        let o = operand(exponent).ok_or_else(|| pow_type_error("pow_", exponent))?;
        Self::inplace_operand(slf, BinaryOp::Pow, o)
    }
    /// In-place `add`; returns self.
    #[pyo3(signature = (other, *, alpha=NumberArg::Absent), text_signature = "($self, other, *, alpha=1)")]
    fn add_(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>, alpha: NumberArg) -> R {
        Self::add_sub_(slf, other, alpha, false)
    }
    /// In-place `sub`; returns self.
    #[pyo3(signature = (other, *, alpha=NumberArg::Absent), text_signature = "($self, other, *, alpha=1)")]
    fn sub_(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>, alpha: NumberArg) -> R {
        Self::add_sub_(slf, other, alpha, true)
    }
    /// In-place `mul`; returns self.
    fn mul_(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> R {
        Self::inplace(slf, BinaryOp::Mul, other)
    }
    /// In-place `div`; returns self.
    #[pyo3(
        signature = (other, *, rounding_mode=RoundingMode::Absent),
        text_signature = "($self, other, *, rounding_mode=None)"
    )]
    fn div_(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>, rounding_mode: RoundingMode) -> R {
        let mode = match rounding_mode {
            RoundingMode::Absent => return Self::inplace(slf, BinaryOp::Div, other),
            RoundingMode::Given(mode) => mode,
        };
        let o = operand_or_err(other, "div_")?;
        let ot = o.edge_tensor(DType::F32);
        crate::python::pointwise::in_place_with(slf, &[&ot], |x| {
            let a = Operand::Tensor(x.clone());
            match &mode {
                // PyTorch's div.Tensor_mode overload (DivBackward2), as `div` records it.
                None => arithmetic::div_mode_none(a, o),
                Some(m) => crate::ops::divmod::div_rounding(&a, &o, m),
            }
        })
    }
    /// sum(dim=None, keepdim=False, *, dtype=None) -> Tensor
    ///
    /// The sum of all elements, or over the dimensions `dim`.
    #[pyo3(
        signature = (dim=None, keepdim=Flag::FALSE, dtype=None),
        text_signature = "($self, dim=None, keepdim=False, dtype=None)"
    )]
    fn sum(
        &self,
        py: Python<'_>,
        dim: Option<&Bound<'_, PyAny>>,
        keepdim: Flag,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> R {
        let keepdim = keepdim.get("sum", "keepdim")?;
        let dims = dims_arg(dim)?;
        let x = self.cast_to(dtype)?;
        let d = extract_dtype(dtype)?;
        crate::python::boundary::tensor_on(py, &[&x], || {
            let out = reduce::sum(&x, dims.as_deref(), keepdim)?;
            Ok(match d {
                Some(d) if d != out.dtype() => creation::cast_data(&out, d),
                _ => out,
            })
        })
    }
    /// mean(dim=None, keepdim=False, *, dtype=None) -> Tensor
    ///
    /// The mean of all elements, or over the dimensions `dim` (floating point only).
    #[pyo3(
        signature = (dim=None, keepdim=Flag::FALSE, dtype=None),
        text_signature = "($self, dim=None, keepdim=False, dtype=None)"
    )]
    fn mean(
        &self,
        py: Python<'_>,
        dim: Option<&Bound<'_, PyAny>>,
        keepdim: Flag,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> R {
        let keepdim = keepdim.get("mean", "keepdim")?;
        if let Some(d) = extract_dtype(dtype)?.filter(|d| !d.is_floating_point()) {
            return Err(crate::python::errors::runtime_error(format!(
                "mean(): could not infer output dtype. Optional dtype must be either a floating point or complex dtype. Got: {}",
                crate::dtype::pretty_kernel_name(d)
            )));
        }
        let x = self.cast_to(dtype)?;
        let dims = dims_arg(dim)?;
        crate::python::boundary::tensor_on(py, &[&x], || reduce::mean(&x, dims.as_deref(), keepdim))
    }
    /// The matrix product of two tensors, with broadcast batch dimensions (`@`).
    fn matmul(&self, py: Python<'_>, other: PyRef<'_, PyTensor>) -> R {
        let b = other.t.clone();
        crate::python::boundary::tensor(py, || matmul::matmul(&self.t, &b))
    }
    /// The matrix product of two 2-D tensors.
    fn mm(&self, py: Python<'_>, mat2: PyRef<'_, PyTensor>) -> R {
        let b = mat2.t.clone();
        crate::python::boundary::tensor(py, || matmul::mm(&self.t, &b))
    }
    /// addmm(mat1, mat2, *, beta=1, alpha=1) -> Tensor
    ///
    /// `beta * self + alpha * (mat1 @ mat2)`.
    #[pyo3(
        signature = (mat1, mat2, *, beta=NumberArg::Absent, alpha=NumberArg::Absent),
        text_signature = "($self, mat1, mat2, *, beta=1, alpha=1)"
    )]
    fn addmm(
        &self,
        py: Python<'_>,
        mat1: PyRef<'_, PyTensor>,
        mat2: PyRef<'_, PyTensor>,
        beta: NumberArg,
        alpha: NumberArg,
    ) -> R {
        let beta = beta.scalar(py, "addmm", "beta", Scalar::Int(1))?;
        let alpha = alpha.scalar(py, "addmm", "alpha", Scalar::Int(1))?;
        let (m1, m2) = (mat1.t.clone(), mat2.t.clone());
        crate::python::boundary::tensor(py, || matmul::addmm(&self.t, &m1, &m2, beta, alpha))
    }
    /// The batched matrix product of two 3-D tensors.
    fn bmm(&self, py: Python<'_>, mat2: PyRef<'_, PyTensor>) -> R {
        let b = mat2.t.clone();
        crate::python::boundary::tensor(py, || matmul::bmm(&self.t, &b))
    }
    /// The product of a matrix and a vector.
    fn mv(&self, py: Python<'_>, vec: PyRef<'_, PyTensor>) -> R {
        let b = vec.t.clone();
        crate::python::boundary::tensor(py, || matmul::mv(&self.t, &b))
    }
    /// The dot product of two 1-D tensors.
    fn dot(&self, py: Python<'_>, tensor: PyRef<'_, PyTensor>) -> R {
        let b = tensor.t.clone();
        crate::python::boundary::tensor(py, || matmul::dot(&self.t, &b))
    }
    /// view(*shape) -> Tensor
    ///
    /// The same data with another shape (one size may be -1), without copying.
    #[pyo3(signature = (*shape))]
    fn view(&self, py: Python<'_>, shape: &Bound<'_, PyTuple>) -> R {
        if shape.is_empty() {
            // PyTorch's parser takes no empty size here (its listing: Note [Parser errors])
            return Err(crate::python::errors::type_error(
                "view() missing 1 required positional argument: 'size'",
            ));
        }
        if shape.len() == 1 {
            if let Ok(d) = shape.get_item(0)?.cast::<crate::python::dtype::PyDType>() {
                if d.get().d != self.t.dtype() {
                    return Err(crate::python::errors::runtime_error(
                        "view(dtype) is not supported yet",
                    ));
                }
                return crate::python::boundary::cheap(py, || {
                    movement::view(&self.t, &sizes_i64(&self.t.shape()))
                });
            }
        }
        wrap(
            py,
            crate::python::boundary::held(|| {
                Ok(movement::view(&self.t, &sizes_arg("view", "size", shape)?)?)
            })?,
        )
    }
    /// reshape(*shape) -> Tensor
    ///
    /// Returns a tensor with the same data and number of elements as `self` but with the given
    /// shape: a view when the shape is compatible with `self`'s strides, else a copy. One dimension
    /// may be `-1`: it is inferred from the others.
    ///
    /// Args:
    ///     shape (tuple of ints or int...): the desired shape.
    ///
    /// Example:
    ///     >>> x = gradrs.arange(6)
    ///     >>> x.reshape(2, 3)
    ///     tensor([[0, 1, 2],
    ///             [3, 4, 5]])
    ///     >>> x.reshape((-1, 2)).shape
    ///     gradrs.Size([3, 2])
    // `reshape(*shape)` or `reshape(shape=...)`: a copy where no view fits, so the GIL is
    // released.
    #[pyo3(signature = (*shape, **kwargs), text_signature = "($self, *shape)")]
    fn reshape(
        &self,
        py: Python<'_>,
        shape: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> R {
        let sizes = sizes_or_keyword("reshape", "shape", shape, kwargs)?;
        crate::python::boundary::tensor(py, || movement::reshape(&self.t, &sizes))
    }
    /// `self.view(other.size())`.
    fn view_as(&self, py: Python<'_>, other: PyRef<'_, PyTensor>) -> R {
        let s = sizes_i64(&other.t.shape());
        crate::python::boundary::cheap(py, || movement::view(&self.t, &s))
    }
    /// `self.reshape(other.size())`.
    fn reshape_as(&self, py: Python<'_>, other: PyRef<'_, PyTensor>) -> R {
        let s = sizes_i64(&other.t.shape());
        crate::python::boundary::tensor(py, || movement::reshape(&self.t, &s))
    }
    /// The transpose of a tensor of at most 2 dimensions (a view).
    fn t(&self, py: Python<'_>) -> R {
        crate::python::boundary::cheap(py, || movement::t(&self.t))
    }
    /// The tensor with dimensions `dim0` and `dim1` swapped (a view).
    fn transpose(&self, py: Python<'_>, dim0: Int, dim1: Int) -> R {
        let dim0 = dim0.get("transpose", "dim0", 1)?;
        let dim1 = dim1.get("transpose", "dim1", 2)?;
        crate::python::boundary::cheap(py, || movement::transpose(&self.t, dim0, dim1))
    }
    /// permute(*dims) -> Tensor
    ///
    /// The tensor with its dimensions reordered (a view).
    #[pyo3(signature = (*dims, **kwargs), text_signature = "($self, *dims)")]
    fn permute(
        &self,
        py: Python<'_>,
        dims: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> R {
        let dims = sizes_or_keyword("permute", "dims", dims, kwargs)?;
        wrap(
            py,
            crate::python::boundary::held(|| Ok(movement::permute(&self.t, &dims)?))?,
        )
    }
    /// expand(*sizes) -> Tensor
    ///
    /// A view with size-1 dimensions repeated to `sizes` (-1 keeps a size), without copying.
    #[pyo3(signature = (*sizes, **kwargs), text_signature = "($self, *sizes)")]
    fn expand(
        &self,
        py: Python<'_>,
        sizes: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> R {
        let sizes = sizes_or_keyword("expand", "size", sizes, kwargs)?;
        wrap(
            py,
            crate::python::boundary::held(|| Ok(movement::expand(&self.t, &sizes)?))?,
        )
    }
    /// `self.expand(other.size())`.
    fn expand_as(&self, py: Python<'_>, other: PyRef<'_, PyTensor>) -> R {
        let s = sizes_i64(&other.t.shape());
        crate::python::boundary::cheap(py, || movement::expand(&self.t, &s))
    }
    /// The tensor with a size-1 dimension inserted at `dim` (a view).
    fn unsqueeze(&self, py: Python<'_>, dim: Int) -> R {
        let dim = dim.get("unsqueeze", "dim", 1)?;
        crate::python::boundary::cheap(py, || movement::unsqueeze(&self.t, dim))
    }
    /// `unfold(dimension, size, step)`: a view of the windows along `dimension`.
    fn unfold(&self, py: Python<'_>, dimension: Int, size: Int, step: Int) -> R {
        let dimension = dimension.get("unfold", "dimension", 1)?;
        let size = size.get("unfold", "size", 2)?;
        let step = step.get("unfold", "step", 3)?;
        crate::python::boundary::cheap(py, || movement::unfold(&self.t, dimension, size, step))
    }
    /// squeeze(dim=None) -> Tensor
    ///
    /// The tensor without its size-1 dimensions (or only those in `dim`), a view.
    #[pyo3(signature = (dim=None))]
    fn squeeze(&self, py: Python<'_>, dim: Option<&Bound<'_, PyAny>>) -> R {
        let Some(dim) = dim.filter(|d| !d.is_none()) else {
            return crate::python::boundary::cheap(py, || movement::squeeze(&self.t, None));
        };
        // A tuple or list of dims is the `squeeze(dims)` overload (PyTorch >= 2.0).
        if dim.is_instance_of::<pyo3::types::PyTuple>()
            || dim.is_instance_of::<pyo3::types::PyList>()
        {
            let dims: Vec<i64> = dim.extract()?;
            return crate::python::boundary::cheap(py, || movement::squeeze_dims(&self.t, &dims));
        }
        wrap(
            py,
            crate::python::boundary::held(|| {
                Ok(movement::squeeze(&self.t, Some(dim.extract()?))?)
            })?,
        )
    }
    /// flatten(start_dim=0, end_dim=-1) -> Tensor
    ///
    /// The dimensions `start_dim`..`end_dim` merged into one.
    #[pyo3(signature = (start_dim=Int::new(0), end_dim=Int::new(-1)), text_signature = "($self, start_dim=0, end_dim=-1)")]
    fn flatten(&self, py: Python<'_>, start_dim: Int, end_dim: Int) -> R {
        let start_dim = start_dim.get("flatten", "start_dim", 1)?;
        let end_dim = end_dim.get("flatten", "end_dim", 2)?;
        let shape = self.t.shape();
        if shape.is_empty() {
            return crate::python::boundary::cheap(py, || movement::reshape(&self.t, &[1]));
        }
        let s = crate::tensor::shape::wrap_dim(start_dim, shape.len())?;
        let e = crate::tensor::shape::wrap_dim(end_dim, shape.len())?;
        if s > e {
            return Err(crate::python::errors::runtime_error(
                "flatten() has invalid args: start_dim cannot come after end_dim",
            ));
        }
        if s == e {
            return wrap(py, self.t.clone());
        }
        let mut new: Vec<i64> = shape[..s].iter().map(|&x| x as i64).collect();
        new.push(shape[s..=e].iter().product::<usize>() as i64);
        new.extend(shape[e + 1..].iter().map(|&x| x as i64));
        crate::python::boundary::cheap(py, || movement::reshape(&self.t, &new))
    }
    /// `self == other`, elementwise (a bool tensor).
    fn eq(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
        self.cmp(py, CmpOp::Eq, other)
    }
    /// `self != other`, elementwise (a bool tensor).
    fn ne(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
        self.cmp(py, CmpOp::Ne, other)
    }
    /// `self < other`, elementwise (a bool tensor).
    fn lt(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
        self.cmp(py, CmpOp::Lt, other)
    }
    /// `self <= other`, elementwise (a bool tensor).
    fn le(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
        self.cmp(py, CmpOp::Le, other)
    }
    /// `self > other`, elementwise (a bool tensor).
    fn gt(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
        self.cmp(py, CmpOp::Gt, other)
    }
    /// `self >= other`, elementwise (a bool tensor).
    fn ge(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
        self.cmp(py, CmpOp::Ge, other)
    }
}
