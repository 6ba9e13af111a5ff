//! Bindings of the shape ops: select, diagonal, narrow, split, chunk, unbind, flip, fliplr /
//! flipud, roll, repeat, tril / triu, unflatten, and the functions cat / stack.

use super::pointwise::{in_place_checking, Overlap};
use super::tensor::{wrap, PyTensor};
use crate::ops::{shape, slicing};
use crate::python::convert::Int;
use crate::tensor::Tensor;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

type R = PyResult<Py<PyAny>>;

/// The `tensors` argument of `cat` / `stack`: a sequence of tensors, PyTorch's TypeErrors
/// otherwise (a tensor is not taken for the sequence of its rows).
fn tensor_list(seq: &Bound<'_, PyAny>, op: &str) -> PyResult<Vec<Tensor>> {
    let type_name =
        |o: &Bound<'_, PyAny>| -> PyResult<String> { Ok(o.get_type().name()?.to_string()) };
    let items = match seq.cast::<pyo3::types::PySequence>() {
        Ok(s) if !seq.is_instance_of::<PyTensor>() => s,
        _ => {
            return Err(super::errors::type_error(format!(
                "{op}(): argument 'tensors' (position 1) must be tuple of Tensors, not {}",
                type_name(seq)?
            )))
        }
    };
    (0..items.len()?)
        .map(|i| {
            let o = items.get_item(i)?;
            match o.cast::<PyTensor>() {
                Ok(t) => Ok(t.borrow().t.clone()),
                Err(_) => Err(super::errors::type_error(format!(
                    "expected Tensor as element {i} in argument 0, but got {}",
                    type_name(&o)?
                ))),
            }
        })
        .collect()
}

pub(super) fn tuple_of(py: Python<'_>, ts: Vec<Tensor>) -> R {
    let objs: Vec<Py<PyAny>> = ts
        .into_iter()
        .map(|t| wrap(py, t))
        .collect::<PyResult<_>>()?;
    Ok(PyTuple::new(py, objs)?.into_any().unbind())
}

#[pymethods]
impl PyTensor {
    /// select(dim, index) -> Tensor
    ///
    /// Slices `self` along the dimension `dim` at the given `index`: a view with that dimension
    /// removed. `x.select(0, i)` is `x[i]`, `x.select(1, i)` is `x[:, i]`.
    ///
    /// Args:
    ///     dim (int): the dimension to slice.
    ///     index (int): the index to select with (negative counts from the end).
    ///
    /// Example:
    ///     >>> x = gradrs.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    ///     >>> x.select(1, 2)
    ///     tensor([3., 6.])
    ///     >>> x.select(0, -1)
    ///     tensor([4., 2., 6.])
    fn select(&self, py: Python<'_>, dim: Int, index: Int) -> R {
        let dim = dim.get("select", "dim", 1)?;
        let index = index.get("select", "index", 2)?;
        if self.t.dim() > 0 {
            let d = crate::tensor::shape::wrap_dim(dim, self.t.dim())?;
            let size = self.t.shape()[d] as i64;
            if index < -size || index >= size {
                return Err(super::errors::index_error(format!(
                    "select(): index {index} out of range for tensor of size {} at dimension {d}",
                    crate::tensor::shape::list_repr(&self.t.shape())
                )));
            }
        }
        super::boundary::tensor(py, || slicing::select(&self.t, dim, index))
    }
    /// diagonal(offset=0, dim1=0, dim2=1) -> Tensor
    ///
    /// Returns a view of the diagonal of `self` with respect to the dimensions `dim1` and `dim2`,
    /// appended as the last dimension. `offset` picks the diagonal: `0` the main one, positive
    /// above it, negative below it.
    ///
    /// Args:
    ///     offset (int, optional): which diagonal to consider. Default: `0` (the main diagonal).
    ///     dim1 (int, optional): the first dimension of the 2-D sub-arrays. Default: `0`.
    ///     dim2 (int, optional): the second dimension of the 2-D sub-arrays. Default: `1`.
    ///
    /// Example:
    ///     >>> a = gradrs.arange(9.0).reshape(3, 3)
    ///     >>> a.diagonal()
    ///     tensor([0., 4., 8.])
    ///     >>> a.diagonal(1)
    ///     tensor([1., 5.])
    ///     >>> a.diagonal(offset=-1)
    ///     tensor([3., 7.])
    #[pyo3(signature = (offset=Int::new(0), dim1=Int::new(0), dim2=Int::new(1)), text_signature = "($self, offset=0, dim1=0, dim2=1)")]
    fn diagonal(&self, py: Python<'_>, offset: Int, dim1: Int, dim2: Int) -> R {
        let offset = offset.get("diagonal", "offset", 1)?;
        let dim1 = dim1.get("diagonal", "dim1", 2)?;
        let dim2 = dim2.get("diagonal", "dim2", 3)?;
        super::boundary::tensor(py, || slicing::diagonal(&self.t, offset, dim1, dim2))
    }
    /// narrow(dim, start, length) -> Tensor
    ///
    /// Returns a narrowed view of `self`: the elements `start` to `start + length - 1` of the
    /// dimension `dim` (sharing storage with `self`).
    ///
    /// Args:
    ///     dim (int): the dimension along which to narrow.
    ///     start (int): the index of the element to start the narrowed dimension from (negative
    ///         counts from the end).
    ///     length (int): the length of the narrowed dimension (non-negative).
    ///
    /// Example:
    ///     >>> x = gradrs.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    ///     >>> x.narrow(0, 0, 2)
    ///     tensor([[1, 2, 3],
    ///             [4, 5, 6]])
    ///     >>> x.narrow(1, 1, 2)
    ///     tensor([[2, 3],
    ///             [5, 6],
    ///             [8, 9]])
    fn narrow(&self, py: Python<'_>, dim: Int, start: Int, length: Int) -> R {
        let dim = dim.get("narrow", "dim", 1)?;
        let start = start.get("narrow", "start", 2)?;
        let length = length.get("narrow", "length", 3)?;
        super::boundary::tensor(py, || slicing::narrow(&self.t, dim, start, length))
    }
    /// split(split_size_or_sections, dim=0) -> tuple of Tensors
    ///
    /// Splits `self` into chunks along `dim`, each a view. An integer `split_size` gives equal
    /// chunks of that size (the last one smaller when the size is not divisible); a list of sizes
    /// gives one chunk per entry, of that size.
    ///
    /// Args:
    ///     split_size_or_sections (int or list of ints): the size of a single chunk, or the list of
    ///         sizes of each chunk.
    ///     dim (int, optional): the dimension along which to split. Default: `0`.
    ///
    /// Example:
    ///     >>> a = gradrs.arange(10).reshape(5, 2)
    ///     >>> a.split(2)
    ///     (tensor([[0, 1],
    ///             [2, 3]]), tensor([[4, 5],
    ///             [6, 7]]), tensor([[8, 9]]))
    ///     >>> a.split([1, 4])
    ///     (tensor([[0, 1]]), tensor([[2, 3],
    ///             [4, 5],
    ///             [6, 7],
    ///             [8, 9]]))
    #[pyo3(signature = (split_size_or_sections, dim=Int::new(0)), text_signature = "($self, split_size_or_sections, dim=0)")]
    fn split(&self, py: Python<'_>, split_size_or_sections: &Bound<'_, PyAny>, dim: Int) -> R {
        let dim = dim.get("split", "dim", 2)?;
        let parts = match split_size_or_sections.extract::<i64>() {
            Ok(n) => super::boundary::catch(|| slicing::split(&self.t, n, dim))?,
            Err(_) => slicing::split_with_sizes(
                &self.t,
                &split_size_or_sections.extract::<Vec<i64>>()?,
                dim,
            )?,
        };
        tuple_of(py, parts)
    }
    /// chunk(chunks, dim=0) -> tuple of Tensors
    ///
    /// Attempts to split `self` into `chunks` views along `dim`, each of size `ceil(size / chunks)`
    /// but the last (smaller, or fewer chunks when the size is not divisible).
    ///
    /// Args:
    ///     chunks (int): the number of chunks to return.
    ///     dim (int, optional): the dimension along which to split. Default: `0`.
    ///
    /// Example:
    ///     >>> gradrs.arange(11).chunk(6)
    ///     (tensor([0, 1]), tensor([2, 3]), tensor([4, 5]), tensor([6, 7]), tensor([8, 9]),
    ///     tensor([10]))
    ///     >>> gradrs.arange(12).chunk(6)
    ///     (tensor([0, 1]), tensor([2, 3]), tensor([4, 5]), tensor([6, 7]), tensor([8, 9]),
    ///     tensor([10, 11]))
    #[pyo3(signature = (chunks, dim=Int::new(0)), text_signature = "($self, chunks, dim=0)")]
    fn chunk(&self, py: Python<'_>, chunks: Int, dim: Int) -> R {
        let chunks = chunks.get("chunk", "chunks", 1)?;
        let dim = dim.get("chunk", "dim", 2)?;
        tuple_of(
            py,
            super::boundary::catch(|| slicing::chunk(&self.t, chunks, dim))?,
        )
    }
    /// unbind(dim=0) -> tuple of Tensors
    ///
    /// Removes the dimension `dim` of `self`: returns a tuple of all slices along it (views).
    ///
    /// Args:
    ///     dim (int, optional): the dimension to remove. Default: `0`.
    ///
    /// Example:
    ///     >>> gradrs.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]]).unbind()
    ///     (tensor([1, 2, 3]), tensor([4, 5, 6]), tensor([7, 8, 9]))
    #[pyo3(signature = (dim=Int::new(0)), text_signature = "($self, dim=0)")]
    fn unbind(&self, py: Python<'_>, dim: Int) -> R {
        let dim = dim.get("unbind", "dim", 1)?;
        tuple_of(
            py,
            super::boundary::catch(|| slicing::unbind(&self.t, dim))?,
        )
    }
    /// flip(*dims) -> Tensor
    ///
    /// Reverses the order of the elements of `self` along the given dimensions. Unlike NumPy's
    /// `flip`, which returns a view, it copies the data.
    ///
    /// Args:
    ///     dims (int or tuple of ints): the dimensions to flip on.
    ///
    /// Example:
    ///     >>> x = gradrs.arange(6).view(2, 3)
    ///     >>> x.flip(0, 1)
    ///     tensor([[5, 4, 3],
    ///             [2, 1, 0]])
    ///     >>> x.flip((1,))
    ///     tensor([[2, 1, 0],
    ///             [5, 4, 3]])
    #[pyo3(signature = (*dims, **kwargs), text_signature = "($self, *dims)")]
    fn flip(
        &self,
        py: Python<'_>,
        dims: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> R {
        let dims = super::tensor::sizes_or_keyword("flip", "dims", dims, kwargs)?;
        super::boundary::tensor(py, || shape::flip(&self.t, &dims))
    }
    /// fliplr() -> Tensor
    ///
    /// Flips `self` (at least 2-D) in the left/right direction: reverses the order of its columns
    /// (dimension 1). Copies the data.
    ///
    /// Example:
    ///     >>> gradrs.arange(4).view(2, 2).fliplr()
    ///     tensor([[1, 0],
    ///             [3, 2]])
    fn fliplr(&self, py: Python<'_>) -> R {
        super::boundary::tensor(py, || shape::flip(&self.t, &[1]))
    }
    /// flipud() -> Tensor
    ///
    /// Flips `self` (at least 1-D) in the up/down direction: reverses the order of its rows
    /// (dimension 0). Copies the data.
    ///
    /// Example:
    ///     >>> gradrs.arange(4).view(2, 2).flipud()
    ///     tensor([[2, 3],
    ///             [0, 1]])
    fn flipud(&self, py: Python<'_>) -> R {
        super::boundary::tensor(py, || shape::flip(&self.t, &[0]))
    }
    /// roll(shifts, dims=None) -> Tensor
    ///
    /// Rolls `self` along the given dimension(s): elements shifted past the last position re-enter
    /// at the first. Without `dims`, the tensor is flattened before rolling and then restored to
    /// its shape.
    ///
    /// Args:
    ///     shifts (int or tuple of ints): the number of places by which the elements are shifted; a
    ///         tuple gives one shift per dimension in `dims`.
    ///     dims (int or tuple of ints, optional): the axes along which to roll.
    ///
    /// Example:
    ///     >>> x = gradrs.tensor([1, 2, 3, 4, 5, 6, 7, 8]).view(4, 2)
    ///     >>> x.roll(1)
    ///     tensor([[8, 1],
    ///             [2, 3],
    ///             [4, 5],
    ///             [6, 7]])
    ///     >>> x.roll(-1, 0)
    ///     tensor([[3, 4],
    ///             [5, 6],
    ///             [7, 8],
    ///             [1, 2]])
    ///     >>> x.roll(shifts=(2, 1), dims=(0, 1))
    ///     tensor([[6, 5],
    ///             [8, 7],
    ///             [2, 1],
    ///             [4, 3]])
    #[pyo3(signature = (shifts, dims=None))]
    fn roll(
        &self,
        py: Python<'_>,
        shifts: &Bound<'_, PyAny>,
        dims: Option<&Bound<'_, PyAny>>,
    ) -> R {
        let s = super::tensor::dims_arg_named(Some(shifts), "shifts")?.unwrap_or_default();
        let d = super::tensor::dims_arg(dims)?.unwrap_or_default();
        super::boundary::tensor(py, || shape::roll(&self.t, &s, &d))
    }
    /// repeat(*repeats) -> Tensor
    ///
    /// Repeats `self` along each dimension the given number of times (NumPy's `tile`), copying the
    /// data. More repeats than dimensions add leading dimensions.
    ///
    /// Args:
    ///     repeats (gradrs.Size, int..., or tuple of ints): the number of times to repeat `self`
    ///         along each dimension.
    ///
    /// Example:
    ///     >>> x = gradrs.tensor([1, 2, 3])
    ///     >>> x.repeat(4, 2)
    ///     tensor([[1, 2, 3, 1, 2, 3],
    ///             [1, 2, 3, 1, 2, 3],
    ///             [1, 2, 3, 1, 2, 3],
    ///             [1, 2, 3, 1, 2, 3]])
    ///     >>> x.repeat(4, 2, 1).size()
    ///     gradrs.Size([4, 2, 3])
    #[pyo3(signature = (*sizes, **kwargs), text_signature = "($self, *sizes)")]
    fn repeat(
        &self,
        py: Python<'_>,
        sizes: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> R {
        let sizes = super::tensor::sizes_or_keyword("repeat", "repeats", sizes, kwargs)?;
        super::boundary::tensor(py, || shape::repeat(&self.t, &sizes))
    }
    /// tril(diagonal=0) -> Tensor
    ///
    /// Returns the lower triangular part of the matrix (or batch of matrices) `self`: the elements
    /// on and below the given diagonal; the others are set to 0.
    ///
    /// Args:
    ///     diagonal (int, optional): the diagonal to consider: `0` the main one, positive above it,
    ///         negative below it. Default: `0`.
    ///
    /// Example:
    ///     >>> a = gradrs.arange(1.0, 10.0).reshape(3, 3)
    ///     >>> a.tril()
    ///     tensor([[1., 0., 0.],
    ///             [4., 5., 0.],
    ///             [7., 8., 9.]])
    ///     >>> a.tril(diagonal=-1)
    ///     tensor([[0., 0., 0.],
    ///             [4., 0., 0.],
    ///             [7., 8., 0.]])
    #[pyo3(signature = (diagonal=Int::new(0)), text_signature = "($self, diagonal=0)")]
    fn tril(&self, py: Python<'_>, diagonal: Int) -> R {
        let diagonal = diagonal.get("tril", "diagonal", 1)?;
        super::boundary::tensor(py, || shape::tri(&self.t, diagonal, true))
    }
    /// triu(diagonal=0) -> Tensor
    ///
    /// Returns the upper triangular part of the matrix (or batch of matrices) `self`: the elements
    /// on and above the given diagonal; the others are set to 0.
    ///
    /// Args:
    ///     diagonal (int, optional): the diagonal to consider: `0` the main one, positive above it,
    ///         negative below it. Default: `0`.
    ///
    /// Example:
    ///     >>> a = gradrs.arange(1.0, 10.0).reshape(3, 3)
    ///     >>> a.triu()
    ///     tensor([[1., 2., 3.],
    ///             [0., 5., 6.],
    ///             [0., 0., 9.]])
    ///     >>> a.triu(1)
    ///     tensor([[0., 2., 3.],
    ///             [0., 0., 6.],
    ///             [0., 0., 0.]])
    #[pyo3(signature = (diagonal=Int::new(0)), text_signature = "($self, diagonal=0)")]
    fn triu(&self, py: Python<'_>, diagonal: Int) -> R {
        let diagonal = diagonal.get("triu", "diagonal", 1)?;
        super::boundary::tensor(py, || shape::tri(&self.t, diagonal, false))
    }
    /// tril_(diagonal=0) -> Tensor
    ///
    /// In-place version of :meth:`~Tensor.tril`.
    #[pyo3(signature = (diagonal=Int::new(0)), text_signature = "($self, diagonal=0)")]
    fn tril_(slf: &Bound<'_, Self>, diagonal: Int) -> R {
        let diagonal = diagonal.get("tril_", "diagonal", 1)?;
        in_place_checking(slf, &[], Overlap::Unchecked, |x| {
            shape::tri(x, diagonal, true)
        })
    }
    /// triu_(diagonal=0) -> Tensor
    ///
    /// In-place version of :meth:`~Tensor.triu`.
    #[pyo3(signature = (diagonal=Int::new(0)), text_signature = "($self, diagonal=0)")]
    fn triu_(slf: &Bound<'_, Self>, diagonal: Int) -> R {
        let diagonal = diagonal.get("triu_", "diagonal", 1)?;
        in_place_checking(slf, &[], Overlap::Unchecked, |x| {
            shape::tri(x, diagonal, false)
        })
    }
    /// unflatten(dim, sizes) -> Tensor
    ///
    /// Expands the dimension `dim` of `self` over several dimensions of sizes `sizes` (a view when
    /// possible). One size may be `-1`: it is inferred.
    ///
    /// Args:
    ///     dim (int): the dimension to be unflattened.
    ///     sizes (tuple of ints): the new shape of the unflattened dimension; their product is the
    ///         size of `dim`.
    ///
    /// Example:
    ///     >>> gradrs.zeros(3, 4, 1).unflatten(1, (2, 2)).shape
    ///     gradrs.Size([3, 2, 2, 1])
    ///     >>> gradrs.zeros(3, 4, 1).unflatten(1, (-1, 2)).shape
    ///     gradrs.Size([3, 2, 2, 1])
    ///     >>> gradrs.zeros(5, 12, 3).unflatten(-2, (2, 2, 3, 1, 1)).shape
    ///     gradrs.Size([5, 2, 2, 3, 1, 1, 3])
    fn unflatten(&self, py: Python<'_>, dim: Int, sizes: Vec<i64>) -> R {
        let dim = dim.get("unflatten", "dim", 1)?;
        let shape = self.t.shape();
        let d = crate::tensor::shape::wrap_dim(dim, shape.len())?;
        let mut new: Vec<i64> = shape[..d].iter().map(|&s| s as i64).collect();
        new.extend(&sizes);
        new.extend(shape[d + 1..].iter().map(|&s| s as i64));
        let inner = crate::tensor::shape::infer_size(&sizes, shape[d]).map_err(|_| {
            super::errors::runtime_error(format!(
                "unflatten: Provided sizes {} don't multiply up to the size of dim {dim} ({}) in the input tensor",
                crate::tensor::shape::list_repr(&sizes.iter().map(|&s| s.max(0) as usize).collect::<Vec<_>>()), shape[d]
            ))
        })?;
        let _ = inner;
        super::boundary::cheap(py, || crate::ops::movement::view(&self.t, &new))
    }
}

#[pyfunction]
#[pyo3(signature = (tensors, dim=Int::new(0)), text_signature = "(tensors, dim=0)")]
pub fn cat(py: Python<'_>, tensors: &Bound<'_, PyAny>, dim: Int) -> R {
    let dim = dim.get("cat", "dim", 2)?;
    let ts = tensor_list(tensors, "cat")?;
    super::boundary::tensor(py, || shape::cat(&ts, dim))
}
#[pyfunction]
#[pyo3(signature = (tensors, dim=Int::new(0)), text_signature = "(tensors, dim=0)")]
pub fn stack(py: Python<'_>, tensors: &Bound<'_, PyAny>, dim: Int) -> R {
    let dim = dim.get("stack", "dim", 2)?;
    let ts = tensor_list(tensors, "stack")?;
    super::boundary::tensor(py, || shape::stack(&ts, dim))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(cat, m)?)?;
    m.add_function(wrap_pyfunction!(stack, m)?)?;
    Ok(())
}
