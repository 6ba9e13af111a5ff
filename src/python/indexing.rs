//! Bindings of the index ops along a dim (gather, scatter, scatter_add, index_select,
//! index_add, take_along_dim) and of masks (masked_fill, masked_select, nonzero). `x[key]` is in
//! `subscript.rs`, the shape ops in `shape.rs`.

use super::convert::{extract_scalar, Flag};
use super::pointwise::{in_place_checking, in_place_with, operand_arg, Overlap};
use super::shape::tuple_of;
use super::tensor::PyTensor;
use crate::dtype::{DType, Scalar};
use crate::ops::index as ix;
use crate::ops::{slicing, Operand};
use crate::python::convert::Int;
use crate::tensor::device::check_args;
use pyo3::prelude::*;

type R = PyResult<Py<PyAny>>;

#[pymethods]
impl PyTensor {
    /// gather(dim, index) -> Tensor
    ///
    /// Gathers values of `self` along the axis `dim`: for a 3-D tensor, `out[i][j][k] =
    /// self[index[i][j][k]][j][k]` when `dim == 0` (`self[i][index[i][j][k]][k]` when `dim == 1`,
    /// and so on). `index` has the number of dimensions of `self` and is `int64`; the output has
    /// its shape.
    ///
    /// Args:
    ///     dim (int): the axis along which to index.
    ///     index (LongTensor): the indices of the elements to gather.
    ///
    /// Example:
    ///     >>> t = gradrs.tensor([[1, 2], [3, 4]])
    ///     >>> t.gather(1, gradrs.tensor([[0, 0], [1, 0]]))
    ///     tensor([[1, 1],
    ///             [4, 3]])
    fn gather(&self, py: Python<'_>, dim: Int, index: PyRef<'_, PyTensor>) -> R {
        let dim = dim.get("gather", "dim", 1)?;
        let index_t = index.t.clone();
        super::boundary::tensor(py, || ix::gather(&self.t, dim, &index_t))
    }
    /// scatter(dim, index, src=None, *, value=None) -> Tensor
    ///
    /// Out-of-place version of :meth:`~Tensor.scatter_`: a copy of `self` with the values of `src`
    /// (or the number `value`) written at the indices `index` along `dim`: `out[index[i][j]][j] =
    /// src[i][j]` when `dim == 0`, `out[i][index[i][j]] = src[i][j]` when `dim == 1`. With
    /// duplicate indices, which value lands is unspecified.
    ///
    /// Args:
    ///     dim (int): the axis along which to index.
    ///     index (LongTensor): the indices of the elements to scatter (the shape of `src`'s part
    ///         that is written).
    ///     src (Tensor or Number): the source elements to scatter.
    ///     value (Number, optional): the value to scatter, instead of `src`.
    ///
    /// Example:
    ///     >>> src = gradrs.arange(1, 11).reshape((2, 5))
    ///     >>> index = gradrs.tensor([[0, 1, 2, 0]])
    ///     >>> gradrs.zeros(3, 5, dtype=src.dtype).scatter(0, index, src)
    ///     tensor([[1, 0, 0, 4, 0],
    ///             [0, 2, 0, 0, 0],
    ///             [0, 0, 3, 0, 0]])
    ///     >>> gradrs.zeros(2, 4).scatter(1, gradrs.tensor([[2], [3]]), value=1.5)
    ///     tensor([[0.0000, 0.0000, 1.5000, 0.0000],
    ///             [0.0000, 0.0000, 0.0000, 1.5000]])
    #[pyo3(signature = (dim, index, src=None, *, value=None))]
    fn scatter(
        &self,
        py: Python<'_>,
        dim: Int,
        index: PyRef<'_, PyTensor>,
        src: Option<&Bound<'_, PyAny>>,
        value: Option<&Bound<'_, PyAny>>,
    ) -> R {
        let dim = dim.get("scatter", "dim", 1)?;
        let s = scatter_source(src, value, "scatter")?;
        let index_t = index.t.clone();
        super::boundary::tensor(py, || ix::scatter(&self.t, dim, &index_t, s))
    }
    /// scatter_(dim, index, src=None, *, value=None) -> Tensor
    ///
    /// Writes all values from the tensor `src` (or the number `value`) into `self` at the indices
    /// given by `index` along `dim`, in place: for a 2-D tensor, `self[index[i][j]][j] = src[i][j]`
    /// when `dim == 0` and `self[i][index[i][j]] = src[i][j]` when `dim == 1`. Returns `self`.
    ///
    /// Args:
    ///     dim (int): the axis along which to index.
    ///     index (LongTensor): the indices of the elements to scatter.
    ///     src (Tensor or Number): the source elements to scatter.
    ///     value (Number, optional): the value to scatter, instead of `src`.
    ///
    /// Example:
    ///     >>> x = gradrs.zeros(2, 4)
    ///     >>> x.scatter_(1, gradrs.tensor([[0], [3]]), gradrs.tensor([[5.0], [7.0]]))
    ///     tensor([[5., 0., 0., 0.],
    ///             [0., 0., 0., 7.]])
    #[pyo3(signature = (dim, index, src=None, *, value=None))]
    fn scatter_(
        slf: &Bound<'_, Self>,
        dim: Int,
        index: PyRef<'_, PyTensor>,
        src: Option<&Bound<'_, PyAny>>,
        value: Option<&Bound<'_, PyAny>>,
    ) -> R {
        let dim = dim.get("scatter_", "dim", 1)?;
        let (i, s) = (index.t.clone(), scatter_source(src, value, "scatter_")?);
        let method = if s.as_tensor().is_some() {
            "scatter__src"
        } else {
            "scatter__value"
        };
        let st = s.edge_tensor(DType::F32);
        // The kernel's device check comes after autograd's in-place checks, in its own name.
        in_place_with(slf, &[&st], |x| {
            let args = [
                ("self", Some(x)),
                ("index", Some(&i)),
                ("src", s.as_tensor()),
            ];
            check_args(method, &args)?;
            ix::scatter(x, dim, &i, s)
        })
    }
    /// scatter_add(dim, index, src) -> Tensor
    ///
    /// Out-of-place version of :meth:`~Tensor.scatter_add_`: a copy of `self` to which the values
    /// of `src` are added at the indices `index` along `dim` (duplicate indices accumulate).
    ///
    /// Args:
    ///     dim (int): the axis along which to index.
    ///     index (LongTensor): the indices of the elements to scatter and add.
    ///     src (Tensor): the source elements to scatter and add.
    ///
    /// Example:
    ///     >>> src = gradrs.ones((2, 5))
    ///     >>> index = gradrs.tensor([[0, 1, 2, 0, 0], [1, 2, 0, 0, 0]])
    ///     >>> gradrs.zeros(3, 5).scatter_add(0, index, src)
    ///     tensor([[1., 0., 1., 2., 2.],
    ///             [1., 1., 0., 0., 0.],
    ///             [0., 1., 1., 0., 0.]])
    fn scatter_add(
        &self,
        py: Python<'_>,
        dim: Int,
        index: PyRef<'_, PyTensor>,
        src: PyRef<'_, PyTensor>,
    ) -> R {
        let dim = dim.get("scatter_add", "dim", 1)?;
        let index_t = index.t.clone();
        let src_t = src.t.clone();
        super::boundary::tensor(py, || ix::scatter_add(&self.t, dim, &index_t, &src_t))
    }
    /// scatter_add_(dim, index, src) -> Tensor
    ///
    /// Adds all values from the tensor `src` into `self` at the indices given by `index` along
    /// `dim`, in place, like :meth:`~Tensor.scatter_` but accumulating: for a 2-D tensor,
    /// `self[index[i][j]][j] += src[i][j]` when `dim == 0`. Returns `self`.
    ///
    /// Args:
    ///     dim (int): the axis along which to index.
    ///     index (LongTensor): the indices of the elements to scatter and add.
    ///     src (Tensor): the source elements to scatter and add.
    ///
    /// Example:
    ///     >>> x = gradrs.zeros(4)
    ///     >>> x.scatter_add_(0, gradrs.tensor([0, 1, 1, 3]), gradrs.tensor([1.0, 2.0, 3.0, 4.0]))
    ///     tensor([1., 5., 0., 4.])
    fn scatter_add_(
        slf: &Bound<'_, Self>,
        dim: Int,
        index: PyRef<'_, PyTensor>,
        src: PyRef<'_, PyTensor>,
    ) -> R {
        let dim = dim.get("scatter_add_", "dim", 1)?;
        let (i, s) = (index.t.clone(), src.t.clone());
        in_place_with(slf, &[&s], |x| {
            let args = [("self", Some(x)), ("index", Some(&i)), ("src", Some(&s))];
            check_args("scatter_add_", &args)?;
            ix::scatter_add(x, dim, &i, &s)
        })
    }
    /// index_select(dim, index) -> Tensor
    ///
    /// Returns a new tensor (not a view) which indexes `self` along the dimension `dim` with the
    /// entries of `index`, a 1-D `int64` (or `int32`) tensor.
    ///
    /// Args:
    ///     dim (int): the dimension in which we index.
    ///     index (IntTensor or LongTensor): the 1-D tensor of indices to select.
    ///
    /// Example:
    ///     >>> x = gradrs.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    ///     >>> indices = gradrs.tensor([0, 2])
    ///     >>> x.index_select(1, indices)
    ///     tensor([[1., 3.],
    ///             [4., 6.]])
    ///     >>> x.index_select(0, gradrs.tensor([1]))
    ///     tensor([[4., 2., 6.]])
    fn index_select(&self, py: Python<'_>, dim: Int, index: PyRef<'_, PyTensor>) -> R {
        let dim = dim.get("index_select", "dim", 1)?;
        let index_t = index.t.clone();
        super::boundary::tensor(py, || ix::index_select(&self.t, dim, &index_t))
    }
    /// index_add(dim, index, source, *, alpha=1) -> Tensor
    ///
    /// Out-of-place version of :meth:`~Tensor.index_add_`: a copy of `self` with `alpha * source`
    /// added at the indices `index` along `dim`.
    ///
    /// Args:
    ///     dim (int): the dimension along which to index.
    ///     index (Tensor): the indices of `source` to select from (1-D, `int64` or `int32`).
    ///     source (Tensor): the tensor containing the values to add.
    ///     alpha (Number, optional): the scalar multiplier for `source`. Default: `1`.
    ///
    /// Example:
    ///     >>> x = gradrs.ones(5, 3)
    ///     >>> t = gradrs.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])
    ///     >>> x.index_add(0, gradrs.tensor([0, 4, 2]), t, alpha=2)
    ///     tensor([[ 3.,  5.,  7.],
    ///             [ 1.,  1.,  1.],
    ///             [15., 17., 19.],
    ///             [ 1.,  1.,  1.],
    ///             [ 9., 11., 13.]])
    #[pyo3(signature = (dim, index, source, *, alpha=None))]
    fn index_add(
        &self,
        py: Python<'_>,
        dim: Int,
        index: PyRef<'_, PyTensor>,
        source: PyRef<'_, PyTensor>,
        alpha: Option<&Bound<'_, PyAny>>,
    ) -> R {
        let dim = dim.get("index_add", "dim", 1)?;
        let a = alpha.and_then(extract_scalar).unwrap_or(Scalar::Int(1));
        let index_t = index.t.clone();
        let source_t = source.t.clone();
        super::boundary::tensor(py, || ix::index_add(&self.t, dim, &index_t, &source_t, a))
    }
    /// index_add_(dim, index, source, *, alpha=1) -> Tensor
    ///
    /// Accumulates the elements of `alpha * source` into `self` by adding to the indices in the
    /// order given in `index`, in place: with `dim == 0` and `index[i] == j`, the `i`-th row of
    /// `source` is added to the `j`-th row of `self`. Returns `self`.
    ///
    /// Args:
    ///     dim (int): the dimension along which to index.
    ///     index (Tensor): the indices of `source` to select from (1-D, `int64` or `int32`).
    ///     source (Tensor): the tensor containing the values to add.
    ///     alpha (Number, optional): the scalar multiplier for `source`. Default: `1`.
    ///
    /// Example:
    ///     >>> x = gradrs.zeros(3)
    ///     >>> x.index_add_(0, gradrs.tensor([0, 2, 0]), gradrs.tensor([1.0, 2.0, 3.0]))
    ///     tensor([4., 0., 2.])
    #[pyo3(signature = (dim, index, source, *, alpha=None))]
    fn index_add_(
        slf: &Bound<'_, Self>,
        dim: Int,
        index: PyRef<'_, PyTensor>,
        source: PyRef<'_, PyTensor>,
        alpha: Option<&Bound<'_, PyAny>>,
    ) -> R {
        let dim = dim.get("index_add_", "dim", 1)?;
        let a = alpha.and_then(extract_scalar).unwrap_or(Scalar::Int(1));
        let (i, s) = (index.t.clone(), source.t.clone());
        in_place_checking(slf, &[&s], Overlap::Internal, |x| {
            let args = [("self", Some(x)), ("index", Some(&i)), ("source", Some(&s))];
            check_args("index_add_", &args)?;
            ix::index_add(x, dim, &i, &s, a)
        })
    }
    /// masked_fill(mask, value) -> Tensor
    ///
    /// Out-of-place version of :meth:`~Tensor.masked_fill_`: a copy of `self` with `value` where
    /// `mask` is `True`.
    ///
    /// Args:
    ///     mask (BoolTensor): the boolean mask, broadcastable with `self`.
    ///     value (float or 0-dim Tensor): the value to fill in with.
    ///
    /// Example:
    ///     >>> x = gradrs.tensor([[1.0, 2.0], [3.0, 4.0]])
    ///     >>> x.masked_fill(x > 2, 0.0)
    ///     tensor([[1., 2.],
    ///             [0., 0.]])
    ///     >>> x.masked_fill(gradrs.tensor([True, False]), float('-inf'))
    ///     tensor([[-inf, 2.],
    ///             [-inf, 4.]])
    fn masked_fill(
        &self,
        py: Python<'_>,
        mask: PyRef<'_, PyTensor>,
        value: &Bound<'_, PyAny>,
    ) -> R {
        let v = operand_arg(value, "masked_fill", "value")?;
        let m = mask.t.clone();
        super::boundary::tensor(py, || ix::masked_fill(&self.t, &m, v))
    }
    /// masked_fill_(mask, value) -> Tensor
    ///
    /// Fills the elements of `self` with `value` where `mask` is `True`, in place. The shape of
    /// `mask` must be broadcastable to the shape of `self`. Returns `self`.
    ///
    /// Args:
    ///     mask (BoolTensor): the boolean mask.
    ///     value (float or 0-dim Tensor): the value to fill in with.
    ///
    /// Example:
    ///     >>> x = gradrs.zeros(2, 3)
    ///     >>> x.masked_fill_(gradrs.tensor([[True, False, True], [False, False, True]]), 7.0)
    ///     tensor([[7., 0., 7.],
    ///             [0., 0., 7.]])
    fn masked_fill_(
        slf: &Bound<'_, Self>,
        mask: PyRef<'_, PyTensor>,
        value: &Bound<'_, PyAny>,
    ) -> R {
        let (m, v) = (mask.t.clone(), operand_arg(value, "masked_fill_", "value")?);
        let vt = v.edge_tensor(DType::F32);
        in_place_checking(slf, &[&vt], Overlap::Unchecked, |x| {
            ix::masked_fill(x, &m, v)
        })
    }
    /// masked_select(mask) -> Tensor
    ///
    /// Returns a new 1-D tensor of the elements of `self` where the boolean `mask` is `True`
    /// (`mask` and `self` are broadcast together).
    ///
    /// Args:
    ///     mask (BoolTensor): the tensor containing the binary mask to index with.
    ///
    /// Example:
    ///     >>> x = gradrs.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    ///     >>> x.masked_select(x > 2.5)
    ///     tensor([5., 3., 4., 6.])
    fn masked_select(&self, py: Python<'_>, mask: PyRef<'_, PyTensor>) -> R {
        let mask_t = mask.t.clone();
        super::boundary::tensor(py, || ix::masked_select(&self.t, &mask_t))
    }
    /// nonzero(*, as_tuple=False) -> LongTensor or tuple of LongTensors
    ///
    /// Returns the indices of the non-zero elements of `self`: a 2-D tensor with one row of indices
    /// per non-zero element (in row-major order), or with `as_tuple=True` a tuple of one 1-D tensor
    /// per dimension (usable for advanced indexing: `x[x.nonzero(as_tuple=True)]`).
    ///
    /// Args:
    ///     as_tuple (bool, optional): return a tuple of 1-D tensors. Default: `False`.
    ///
    /// Example:
    ///     >>> x = gradrs.tensor([[0.6, 0.0, 0.0], [0.0, 0.4, 0.0], [0.0, 0.0, 1.2]])
    ///     >>> x.nonzero()
    ///     tensor([[0, 0],
    ///             [1, 1],
    ///             [2, 2]])
    ///     >>> x.nonzero(as_tuple=True)
    ///     (tensor([0, 1, 2]), tensor([0, 1, 2]))
    #[pyo3(
        signature = (*, as_tuple=Flag::FALSE),
        text_signature = "($self, *, as_tuple=False)"
    )]
    fn nonzero(&self, py: Python<'_>, as_tuple: Flag) -> R {
        let as_tuple = as_tuple.get("nonzero", "as_tuple")?;
        if as_tuple {
            // A 0-dim input counts as 1-D here, as in PyTorch.
            let x = super::boundary::catch(|| crate::ops::movement::reshape(&self.t, &[-1]))?;
            let x = if self.t.dim() == 0 { &x } else { &self.t };
            let nz = ix::nonzero(x);
            let cols = (0..x.dim())
                .map(|d| {
                    Ok(crate::ops::creation::contiguous_clone(
                        &super::boundary::catch(|| slicing::select(&nz, 1, d as i64))?,
                    ))
                })
                .collect::<crate::Result<Vec<_>>>()?;
            return tuple_of(py, cols);
        }
        super::boundary::tensor(py, || Ok(ix::nonzero(&self.t)))
    }
    /// take_along_dim(indices, dim=None) -> Tensor
    ///
    /// Selects values from `self` at the 1-dimensional `indices` along the given `dim`, as NumPy's
    /// `take_along_axis`; the input and `indices` broadcast. Functions that return indices along a
    /// dimension (`argmax`, `argsort`) are designed to work with it. Without `dim`, `self` is
    /// flattened first.
    ///
    /// Args:
    ///     indices (LongTensor): the indices into `self`.
    ///     dim (int, optional): the dimension to select along. Default: the flattened input.
    ///
    /// Example:
    ///     >>> t = gradrs.tensor([[10, 30, 20], [60, 40, 50]])
    ///     >>> t.take_along_dim(t.argmax(), dim=None)
    ///     tensor([60])
    ///     >>> t.take_along_dim(t.argsort(dim=1), dim=1)
    ///     tensor([[10, 20, 30],
    ///             [40, 50, 60]])
    #[pyo3(signature = (indices, dim=None))]
    fn take_along_dim(&self, py: Python<'_>, indices: PyRef<'_, PyTensor>, dim: Option<Int>) -> R {
        let dim = dim.map(|v| v.get("take_along_dim", "dim", 2)).transpose()?;
        let indices_t = indices.t.clone();
        super::boundary::tensor(py, || ix::take_along_dim(&self.t, &indices_t, dim))
    }
}

/// `scatter(dim, index, src)` or `scatter(dim, index, value=number)`: exactly one of them.
fn scatter_source(
    src: Option<&Bound<'_, PyAny>>,
    value: Option<&Bound<'_, PyAny>>,
    name: &str,
) -> PyResult<Operand> {
    match (src, value) {
        (Some(s), None) => operand_arg(s, name, "src"),
        (None, Some(v)) => operand_arg(v, name, "value"),
        _ => Err(super::errors::type_error(format!(
            "{name}() received an invalid combination of arguments - expected exactly one of src or value"
        ))),
    }
}
