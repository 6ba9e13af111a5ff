//! Bindings of the reductions and scans (`ops::reduce`).

use super::convert::Flag;
use super::helpers;
use super::tensor::{dims_arg, wrap, PyTensor};
use crate::ops::{extrema, reduce, scan, sort, statistics};
use crate::python::convert::Int;
use pyo3::prelude::*;

type R = PyResult<Py<PyAny>>;

/// `(values, indices)` as `gradrs.return_types.<name>`.
fn values_indices(py: Python<'_>, name: &str, v: crate::Tensor, i: crate::Tensor) -> R {
    helpers::return_type(py, name, wrap(py, v)?, wrap(py, i)?)
}

fn extreme(
    py: Python<'_>,
    t: &PyTensor,
    dim: Option<&Bound<'_, PyAny>>,
    keepdim: bool,
    max: bool,
) -> R {
    let name = if max { "max" } else { "min" };
    match dim {
        None => super::boundary::tensor(py, || extrema::extreme_all(&t.t, max)),
        Some(d) => {
            if let Ok(other) = d.cast::<PyTensor>() {
                let o = other.borrow().t.clone();
                return super::boundary::tensor(py, || {
                    if max {
                        crate::ops::compare::maximum(&t.t, &o)
                    } else {
                        crate::ops::compare::minimum(&t.t, &o)
                    }
                });
            }
            let d: i64 = d.extract()?;
            let (v, i) = super::boundary::run(py, || extrema::extreme_dim(&t.t, d, keepdim, max))?;
            values_indices(py, name, v, i)
        }
    }
}

/// `correction` from `unbiased` / `correction` arguments (PyTorch's default is 1).
fn correction_arg(op: &str, unbiased: Option<bool>, correction: Option<f64>) -> PyResult<f64> {
    if unbiased.is_some() && correction.is_some() {
        // No signature of PyTorch's takes both (the functional form reports the signatures).
        return Err(super::errors::type_error(format!(
            "{op}() received an invalid combination of arguments - got both 'unbiased' and 'correction'"
        )));
    }
    Ok(correction.unwrap_or(match unbiased {
        Some(false) => 0.0,
        _ => 1.0,
    }))
}

/// `correction_arg` after `var_dims`, None for PyTorch's overload that takes none
/// (`x.var()`: `bare`, every argument left out; an explicit `dim=None` is read the same, where
/// PyTorch shows 1): its node shows `_saved_correction` None.
fn shown_correction(
    op: &str,
    bare: bool,
    unbiased: Option<bool>,
    correction: Option<f64>,
) -> PyResult<Option<f64>> {
    let c = correction_arg(op, unbiased, correction)?;
    Ok((!bare).then_some(c))
}

/// `unbiased` as PyTorch's parser takes it: a Python bool (None: left out); anything else
/// (an int, a NumPy bool) matches none of `op`'s overloads, PyTorch's TypeError. A pyo3
/// binding cannot tell a positional argument from a keyword one: `dim` is shown positional,
/// `unbiased` by keyword, as the calls that reach here are usually written.
fn unbiased_arg(
    op: &str,
    dim: Option<&Bound<'_, PyAny>>,
    unbiased: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<bool>> {
    let Some(u) = unbiased.filter(|u| !u.is_none()) else {
        return Ok(None);
    };
    if let Ok(b) = u.cast::<pyo3::types::PyBool>() {
        return Ok(Some(b.is_true()));
    }
    let ty = super::convert::type_name(u);
    let (got, why) = match dim.filter(|d| !d.is_none()) {
        Some(d) => (
            format!("({}, unbiased={ty})", super::convert::type_name(d)),
            "",
        ),
        None => (
            format!("(unbiased={ty}, )"),
            "      didn't match because some of the keywords were incorrect: unbiased\n",
        ),
    };
    Err(super::errors::type_error(format!(
        "{op}() received an invalid combination of arguments - got {got}, but expected one of:\n * (tuple of ints dim, bool unbiased = True, bool keepdim = False)\n * (tuple of ints dim = None, *, Number correction = None, bool keepdim = False)\n * (bool unbiased = True)\n{why}"
    )))
}

/// `var(dim=None, unbiased=True, keepdim=False)` also accepts `var(True)` (unbiased first).
fn var_dims(
    dim: Option<&Bound<'_, PyAny>>,
    unbiased: &mut Option<bool>,
) -> PyResult<Option<Vec<i64>>> {
    if let Some(d) = dim {
        if d.is_instance_of::<pyo3::types::PyBool>() {
            *unbiased = Some(d.extract()?);
            return Ok(None);
        }
    }
    dims_arg(dim)
}

#[pymethods]
impl PyTensor {
    /// max(dim=None, keepdim=False) -> Tensor or (Tensor, LongTensor)
    ///
    /// Without `dim`, returns the maximum value of all elements of `self` (a 0-dim tensor). With
    /// `dim`, returns the named tuple `(values, indices)`: the maximum of each row of `self` in
    /// dimension `dim` and the index of its first occurrence. `max(other)` is `maximum(other)`.
    ///
    /// Args:
    ///     dim (int, optional): the dimension to reduce.
    ///     keepdim (bool, optional): whether the output keeps the reduced dimension(s) (with size
    ///         1). Default: `False`.
    ///
    /// Example:
    ///     >>> x = gradrs.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    ///     >>> x.max()
    ///     tensor(6.)
    ///     >>> x.max(dim=1)
    ///     gradrs.return_types.max(
    ///     values=tensor([5., 6.]),
    ///     indices=tensor([1, 2]))
    ///     >>> x.max(1, keepdim=True).values
    ///     tensor([[5.],
    ///             [6.]])
    #[pyo3(
        signature = (dim=None, keepdim=Flag::FALSE),
        text_signature = "($self, dim=None, keepdim=False)"
    )]
    fn max(&self, py: Python<'_>, dim: Option<&Bound<'_, PyAny>>, keepdim: Flag) -> R {
        let keepdim = keepdim.get("max", "keepdim")?;
        extreme(py, self, dim, keepdim, true)
    }
    /// min(dim=None, keepdim=False) -> Tensor or (Tensor, LongTensor)
    ///
    /// Without `dim`, returns the minimum value of all elements of `self` (a 0-dim tensor). With
    /// `dim`, returns the named tuple `(values, indices)`: the minimum of each row of `self` in
    /// dimension `dim` and the index of its first occurrence. `min(other)` is `minimum(other)`.
    ///
    /// Args:
    ///     dim (int, optional): the dimension to reduce.
    ///     keepdim (bool, optional): whether the output keeps the reduced dimension(s) (with size
    ///         1). Default: `False`.
    ///
    /// Example:
    ///     >>> x = gradrs.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    ///     >>> x.min()
    ///     tensor(1.)
    ///     >>> x.min(dim=0)
    ///     gradrs.return_types.min(
    ///     values=tensor([1., 2., 3.]),
    ///     indices=tensor([0, 1, 0]))
    #[pyo3(
        signature = (dim=None, keepdim=Flag::FALSE),
        text_signature = "($self, dim=None, keepdim=False)"
    )]
    fn min(&self, py: Python<'_>, dim: Option<&Bound<'_, PyAny>>, keepdim: Flag) -> R {
        let keepdim = keepdim.get("min", "keepdim")?;
        extreme(py, self, dim, keepdim, false)
    }
    /// amax(dim=None, keepdim=False) -> Tensor
    ///
    /// Returns the maximum value of each slice of `self` in the given dimension(s) `dim` (all of
    /// them by default). Unlike `max(dim)`, it returns no indices, reduces several dimensions at
    /// once, and shares the gradient evenly between equal maxima.
    ///
    /// Args:
    ///     dim (int or tuple of ints, optional): the dimension or dimensions to reduce.
    ///     keepdim (bool, optional): whether the output keeps the reduced dimension(s) (with size
    ///         1). Default: `False`.
    ///
    /// Example:
    ///     >>> x = gradrs.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    ///     >>> x.amax()
    ///     tensor(6.)
    ///     >>> x.amax(1)
    ///     tensor([5., 6.])
    ///     >>> x.amax((0, 1), keepdim=True)
    ///     tensor([[6.]])
    #[pyo3(
        signature = (dim=None, keepdim=Flag::FALSE),
        text_signature = "($self, dim=None, keepdim=False)"
    )]
    fn amax(&self, py: Python<'_>, dim: Option<&Bound<'_, PyAny>>, keepdim: Flag) -> R {
        let keepdim = keepdim.get("amax", "keepdim")?;
        let dims = dims_arg(dim)?.unwrap_or_default();
        super::boundary::tensor(py, || extrema::amax(&self.t, &dims, keepdim, true))
    }
    /// amin(dim=None, keepdim=False) -> Tensor
    ///
    /// Returns the minimum value of each slice of `self` in the given dimension(s) `dim` (all of
    /// them by default). Unlike `min(dim)`, it returns no indices, reduces several dimensions at
    /// once, and shares the gradient evenly between equal minima.
    ///
    /// Args:
    ///     dim (int or tuple of ints, optional): the dimension or dimensions to reduce.
    ///     keepdim (bool, optional): whether the output keeps the reduced dimension(s) (with size
    ///         1). Default: `False`.
    ///
    /// Example:
    ///     >>> x = gradrs.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    ///     >>> x.amin()
    ///     tensor(1.)
    ///     >>> x.amin(0)
    ///     tensor([1., 2., 3.])
    #[pyo3(
        signature = (dim=None, keepdim=Flag::FALSE),
        text_signature = "($self, dim=None, keepdim=False)"
    )]
    fn amin(&self, py: Python<'_>, dim: Option<&Bound<'_, PyAny>>, keepdim: Flag) -> R {
        let keepdim = keepdim.get("amin", "keepdim")?;
        let dims = dims_arg(dim)?.unwrap_or_default();
        super::boundary::tensor(py, || extrema::amax(&self.t, &dims, keepdim, false))
    }
    /// argmax(dim=None, keepdim=False) -> LongTensor
    ///
    /// Returns the indices of the maximum values of `self`: into the flattened tensor without
    /// `dim`, along `dim` with it. With several maxima, the index of the first is returned.
    ///
    /// Args:
    ///     dim (int, optional): the dimension to reduce. Default: the flattened input.
    ///     keepdim (bool, optional): whether the output keeps the reduced dimension(s) (with size
    ///         1). Default: `False`.
    ///
    /// Example:
    ///     >>> x = gradrs.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    ///     >>> x.argmax()
    ///     tensor(5)
    ///     >>> x.argmax(dim=1)
    ///     tensor([1, 2])
    ///     >>> x.argmax(dim=0, keepdim=True)
    ///     tensor([[1, 0, 1]])
    #[pyo3(
        signature = (dim=None, keepdim=Flag::FALSE),
        text_signature = "($self, dim=None, keepdim=False)"
    )]
    fn argmax(&self, py: Python<'_>, dim: Option<Int>, keepdim: Flag) -> R {
        let dim = dim.map(|v| v.get("argmax", "dim", 1)).transpose()?;
        let keepdim = keepdim.get("argmax", "keepdim")?;
        super::boundary::tensor(py, || extrema::argextreme(&self.t, dim, keepdim, true))
    }
    /// argmin(dim=None, keepdim=False) -> LongTensor
    ///
    /// Returns the indices of the minimum values of `self`: into the flattened tensor without
    /// `dim`, along `dim` with it. With several minima, the index of the first is returned.
    ///
    /// Args:
    ///     dim (int, optional): the dimension to reduce. Default: the flattened input.
    ///     keepdim (bool, optional): whether the output keeps the reduced dimension(s) (with size
    ///         1). Default: `False`.
    ///
    /// Example:
    ///     >>> x = gradrs.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    ///     >>> x.argmin()
    ///     tensor(0)
    ///     >>> x.argmin(dim=1)
    ///     tensor([0, 1])
    #[pyo3(
        signature = (dim=None, keepdim=Flag::FALSE),
        text_signature = "($self, dim=None, keepdim=False)"
    )]
    fn argmin(&self, py: Python<'_>, dim: Option<Int>, keepdim: Flag) -> R {
        let dim = dim.map(|v| v.get("argmin", "dim", 1)).transpose()?;
        let keepdim = keepdim.get("argmin", "keepdim")?;
        super::boundary::tensor(py, || extrema::argextreme(&self.t, dim, keepdim, false))
    }
    /// prod(dim=None, keepdim=False, *, dtype=None) -> Tensor
    ///
    /// Returns the product of all elements of `self`, or of each row of `self` in the dimension
    /// `dim`. Integral and `bool` inputs give `int64`.
    ///
    /// Args:
    ///     dim (int, optional): the dimension to reduce. Default: all of them.
    ///     keepdim (bool, optional): whether the output keeps the reduced dimension(s) (with size
    ///         1). Default: `False`.
    ///     dtype (gradrs.dtype, optional): the desired data type of the result; `self` is cast to
    ///         it first.
    ///
    /// Example:
    ///     >>> x = gradrs.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    ///     >>> x.prod()
    ///     tensor(720.)
    ///     >>> x.prod(1)
    ///     tensor([15., 48.])
    ///     >>> gradrs.tensor([True, True]).prod()
    ///     tensor(1)
    #[pyo3(
        signature = (dim=None, keepdim=Flag::FALSE, *, dtype=None),
        text_signature = "($self, dim=None, keepdim=False, *, dtype=None)"
    )]
    fn prod(
        &self,
        py: Python<'_>,
        dim: Option<Int>,
        keepdim: Flag,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> R {
        let dim = dim.map(|v| v.get("prod", "dim", 1)).transpose()?;
        let keepdim = keepdim.get("prod", "keepdim")?;
        self.accumulate_as(py, dtype, |x| reduce::prod(x, dim, keepdim))
    }
    /// var(dim=None, unbiased=None, keepdim=False, *, correction=None) -> Tensor
    ///
    /// Calculates the variance of `self` over the dimension(s) `dim` (all of them by default):
    /// `sum((x_i - mean(x))^2) / max(0, N - correction)` over the `N` elements reduced.
    /// `correction=1` (the default) is Bessel's correction (the sample variance), `correction=0`
    /// the population variance; `unbiased=False` is `correction=0` (the older spelling).
    ///
    /// Args:
    ///     dim (int or tuple of ints, optional): the dimension or dimensions to reduce.
    ///     unbiased (bool, optional): `True` is `correction=1`, `False` is `correction=0`.
    ///     keepdim (bool, optional): whether the output keeps the reduced dimension(s) (with size
    ///         1). Default: `False`.
    ///     correction (int, optional): the difference between the sample size and the degrees of
    ///         freedom. Default: `1`.
    ///
    /// Example:
    ///     >>> x = gradrs.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    ///     >>> x.var()
    ///     tensor(3.5000)
    ///     >>> x.var(dim=1)
    ///     tensor([4., 4.])
    ///     >>> x.var(dim=1, correction=0)
    ///     tensor([2.6667, 2.6667])
    #[pyo3(
        signature = (dim=None, unbiased=None, keepdim=Flag::FALSE, *, correction=None),
        text_signature = "($self, dim=None, unbiased=None, keepdim=False, *, correction=None)"
    )]
    fn var(
        &self,
        py: Python<'_>,
        dim: Option<&Bound<'_, PyAny>>,
        unbiased: Option<&Bound<'_, PyAny>>,
        keepdim: Flag,
        correction: Option<f64>,
    ) -> R {
        let mut unbiased = unbiased_arg("var", dim, unbiased)?;
        let keepdim = keepdim.get("var", "keepdim")?;
        let bare = dim.is_none_or(|d| d.is_none()) && unbiased.is_none() && correction.is_none();
        let dims = var_dims(dim, &mut unbiased)?;
        let c = shown_correction("var", bare, unbiased, correction)?;
        super::boundary::tensor(py, || {
            statistics::var(&self.t, dims.as_deref(), c, keepdim, false)
        })
    }
    /// std(dim=None, unbiased=None, keepdim=False, *, correction=None) -> Tensor
    ///
    /// Calculates the standard deviation of `self` over the dimension(s) `dim` (all of them by
    /// default): the square root of `var` with the same arguments. `correction=1` (the default) is
    /// Bessel's correction, `correction=0` the population standard deviation.
    ///
    /// Args:
    ///     dim (int or tuple of ints, optional): the dimension or dimensions to reduce.
    ///     unbiased (bool, optional): `True` is `correction=1`, `False` is `correction=0`.
    ///     keepdim (bool, optional): whether the output keeps the reduced dimension(s) (with size
    ///         1). Default: `False`.
    ///     correction (int, optional): the difference between the sample size and the degrees of
    ///         freedom. Default: `1`.
    ///
    /// Example:
    ///     >>> x = gradrs.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    ///     >>> x.std()
    ///     tensor(1.8708)
    ///     >>> x.std(dim=0, keepdim=True)
    ///     tensor([[2.1213, 2.1213, 2.1213]])
    ///     >>> x.std(unbiased=False)
    ///     tensor(1.7078)
    #[pyo3(
        signature = (dim=None, unbiased=None, keepdim=Flag::FALSE, *, correction=None),
        text_signature = "($self, dim=None, unbiased=None, keepdim=False, *, correction=None)"
    )]
    fn std(
        &self,
        py: Python<'_>,
        dim: Option<&Bound<'_, PyAny>>,
        unbiased: Option<&Bound<'_, PyAny>>,
        keepdim: Flag,
        correction: Option<f64>,
    ) -> R {
        let mut unbiased = unbiased_arg("std", dim, unbiased)?;
        let keepdim = keepdim.get("std", "keepdim")?;
        let bare = dim.is_none_or(|d| d.is_none()) && unbiased.is_none() && correction.is_none();
        let dims = var_dims(dim, &mut unbiased)?;
        let c = shown_correction("std", bare, unbiased, correction)?;
        super::boundary::tensor(py, || {
            statistics::var(&self.t, dims.as_deref(), c, keepdim, true)
        })
    }
    /// norm(p='fro', dim=None, keepdim=False, dtype=None) -> Tensor
    ///
    /// Returns the vector p-norm of `self` over the dimension(s) `dim` (all elements by default):
    /// `sum(|x_i|^p)^(1/p)`; `p=inf` is the largest absolute value, `p=0` the number of non-zero
    /// elements, and `'fro'` (the default) the 2-norm of the elements. New code should use
    /// `gradrs.linalg.vector_norm` or `gradrs.linalg.matrix_norm`.
    ///
    /// Args:
    ///     p (int, float, inf, -inf or 'fro', optional): the order of the norm. Default: `'fro'`.
    ///     dim (int or tuple of ints, optional): the dimension or dimensions to reduce.
    ///     keepdim (bool, optional): whether the output keeps the reduced dimension(s) (with size
    ///         1). Default: `False`.
    ///     dtype (gradrs.dtype, optional): the data type to compute in and return.
    ///
    /// Example:
    ///     >>> a = gradrs.arange(9, dtype=gradrs.float32) - 4
    ///     >>> a.norm()
    ///     tensor(7.7460)
    ///     >>> a.norm(1)
    ///     tensor(20.)
    ///     >>> a.norm(float('inf'))
    ///     tensor(4.)
    ///     >>> a.reshape(3, 3).norm(dim=1)
    ///     tensor([5.3852, 1.4142, 5.3852])
    #[pyo3(
        signature = (p=None, dim=None, keepdim=Flag::FALSE, dtype=None),
        text_signature = "($self, p=None, dim=None, keepdim=False, dtype=None)"
    )]
    fn norm(
        &self,
        py: Python<'_>,
        p: Option<&Bound<'_, PyAny>>,
        dim: Option<&Bound<'_, PyAny>>,
        keepdim: Flag,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> R {
        let keepdim = keepdim.get("linalg_vector_norm", "keepdim")?;
        let p = match p {
            None => 2.0,
            Some(p) if p.is_none() => 2.0,
            Some(p) => match p.extract::<String>() {
                Ok(s) if s == "fro" => 2.0,
                Ok(s) => {
                    return Err(super::errors::runtime_error(format!(
                        "linalg.vector_norm: unsupported norm '{s}'"
                    )))
                }
                Err(_) => p.extract::<f64>()?,
            },
        };
        let x = self.cast_to(dtype)?;
        let dims = dims_arg(dim)?;
        super::boundary::tensor(py, || statistics::norm(&x, p, dims.as_deref(), keepdim))
    }
    /// logsumexp(dim, keepdim=False) -> Tensor
    ///
    /// Returns the logarithm of the summed exponentials of each row of `self` in the dimension(s)
    /// `dim`: `log(sum_j exp(x_ij))`, computed stably (the maximum is subtracted first). Integral
    /// inputs give the default float dtype.
    ///
    /// Args:
    ///     dim (int or tuple of ints): the dimension or dimensions to reduce.
    ///     keepdim (bool, optional): whether the output keeps the reduced dimension(s) (with size
    ///         1). Default: `False`.
    ///
    /// Example:
    ///     >>> x = gradrs.tensor([[0.0, 1.0, 2.0], [1000.0, 1000.0, 1000.0]])
    ///     >>> x.logsumexp(dim=1)
    ///     tensor([   2.4076, 1001.0986])
    #[pyo3(
        signature = (dim, keepdim=Flag::FALSE),
        text_signature = "($self, dim, keepdim=False)"
    )]
    fn logsumexp(&self, py: Python<'_>, dim: &Bound<'_, PyAny>, keepdim: Flag) -> R {
        let keepdim = keepdim.get("logsumexp", "keepdim")?;
        let dims = dims_arg(Some(dim))?.unwrap_or_default();
        super::boundary::tensor(py, || statistics::logsumexp(&self.t, &dims, keepdim))
    }
    /// cumsum(dim, *, dtype=None) -> Tensor
    ///
    /// Returns the cumulative sum of the elements of `self` in the dimension `dim`: `y_i = x_1 +
    /// x_2 + ... + x_i`. Integral and `bool` inputs give `int64`.
    ///
    /// Args:
    ///     dim (int): the dimension to do the operation over.
    ///     dtype (gradrs.dtype, optional): the desired data type of the result; `self` is cast to
    ///         it first.
    ///
    /// Example:
    ///     >>> gradrs.tensor([1, 2, 3, 4]).cumsum(dim=0)
    ///     tensor([ 1,  3,  6, 10])
    ///     >>> x = gradrs.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    ///     >>> x.cumsum(1)
    ///     tensor([[ 1.,  6.,  9.],
    ///             [ 4.,  6., 12.]])
    #[pyo3(signature = (dim, *, dtype=None))]
    fn cumsum(&self, py: Python<'_>, dim: Int, dtype: Option<&Bound<'_, PyAny>>) -> R {
        let dim = dim.get("cumsum", "dim", 1)?;
        self.accumulate_as(py, dtype, |x| scan::cumsum(x, dim))
    }
    /// cumprod(dim, *, dtype=None) -> Tensor
    ///
    /// Returns the cumulative product of the elements of `self` in the dimension `dim`: `y_i = x_1 * x_2 * ... * x_i`. Integral and `bool` inputs give `int64`.
    ///
    /// Args:
    ///     dim (int): the dimension to do the operation over.
    ///     dtype (gradrs.dtype, optional): the desired data type of the result; `self` is cast to
    ///         it first.
    ///
    /// Example:
    ///     >>> gradrs.tensor([1, 2, 3, 4]).cumprod(dim=0)
    ///     tensor([ 1,  2,  6, 24])
    ///     >>> gradrs.tensor([0.5, 2.0, 0.0, 3.0]).cumprod(0)
    ///     tensor([0.5000, 1.0000, 0.0000, 0.0000])
    #[pyo3(signature = (dim, *, dtype=None))]
    fn cumprod(&self, py: Python<'_>, dim: Int, dtype: Option<&Bound<'_, PyAny>>) -> R {
        let dim = dim.get("cumprod", "dim", 1)?;
        self.accumulate_as(py, dtype, |x| scan::cumprod(x, dim))
    }
    /// sort(dim=-1, descending=False, *, stable=None) -> (Tensor, LongTensor)
    ///
    /// Sorts the elements of `self` along the dimension `dim` in ascending order (descending with
    /// `descending=True`), and returns the named tuple `(values, indices)`, where `indices` are the
    /// positions of the values in `self`. The sort is always stable here (equal elements keep their
    /// order), so `stable` only exists for PyTorch's signature.
    ///
    /// Args:
    ///     dim (int, optional): the dimension to sort along. Default: the last.
    ///     descending (bool, optional): the sorting order. Default: `False` (ascending).
    ///     stable (bool, optional): keep the order of equivalent elements (always true here).
    ///
    /// Example:
    ///     >>> x = gradrs.tensor([[0.5, -1.0, 2.0], [3.0, 0.0, 1.0]])
    ///     >>> x.sort()
    ///     gradrs.return_types.sort(
    ///     values=tensor([[-1.0000,  0.5000,  2.0000],
    ///             [ 0.0000,  1.0000,  3.0000]]),
    ///     indices=tensor([[1, 0, 2],
    ///             [1, 2, 0]]))
    ///     >>> x.sort(dim=0, descending=True).values
    ///     tensor([[ 3.0000,  0.0000,  2.0000],
    ///             [ 0.5000, -1.0000,  1.0000]])
    // `stable` is accepted for PyTorch's signature: every sort here is stable.
    #[pyo3(
        signature = (dim=Int::new(-1), descending=Flag::FALSE, *, stable=None),
        text_signature = "($self, dim=-1, descending=False, *, stable=None)"
    )]
    fn sort(&self, py: Python<'_>, dim: Int, descending: Flag, stable: Option<bool>) -> R {
        let dim = dim.get("sort", "dim", 1)?;
        let descending = descending.get("sort", "descending")?;
        let _ = stable;
        let (v, i) = super::boundary::run(py, || sort::sort(&self.t, dim, descending))?;
        values_indices(py, "sort", v, i)
    }
    /// argsort(dim=-1, descending=False, *, stable=False) -> LongTensor
    ///
    /// Returns the indices that sort `self` along the dimension `dim` in ascending order (in
    /// descending order with `descending=True`): `sort(...).indices`.
    ///
    /// Args:
    ///     dim (int, optional): the dimension to sort along. Default: the last.
    ///     descending (bool, optional): the sorting order. Default: `False` (ascending).
    ///     stable (bool, optional): keep the order of equivalent elements. Default: `False`.
    ///
    /// Example:
    ///     >>> x = gradrs.tensor([[0.5, -1.0, 2.0], [3.0, 0.0, 1.0]])
    ///     >>> x.argsort()
    ///     tensor([[1, 0, 2],
    ///             [1, 2, 0]])
    ///     >>> x.argsort(dim=0, descending=True)
    ///     tensor([[1, 1, 0],
    ///             [0, 0, 1]])
    #[pyo3(
        signature = (dim=Int::new(-1), descending=Flag::FALSE, *, stable=Flag::FALSE),
        text_signature = "($self, dim=-1, descending=False, *, stable=False)"
    )]
    fn argsort(&self, py: Python<'_>, dim: Int, descending: Flag, stable: Flag) -> R {
        let dim = dim.get("argsort", "dim", 1)?;
        let descending = descending.get("argsort", "descending")?;
        let stable = stable.get("argsort", "stable")?;
        let _ = stable;
        super::boundary::tensor(py, || sort::argsort(&self.t, dim, descending))
    }
    /// msort() -> Tensor
    ///
    /// Sorts the elements of `self` along its first dimension in ascending order:
    /// `sort(dim=0).values`.
    ///
    /// Example:
    ///     >>> gradrs.tensor([[3.0, 1.0], [-1.0, 2.0], [0.0, 5.0]]).msort()
    ///     tensor([[-1.,  1.],
    ///             [ 0.,  2.],
    ///             [ 3.,  5.]])
    fn msort(&self, py: Python<'_>) -> R {
        super::boundary::tensor(py, || sort::msort(&self.t))
    }
    /// topk(k, dim=-1, largest=True, sorted=True) -> (Tensor, LongTensor)
    ///
    /// Returns the `k` largest elements of `self` along the dimension `dim` (the `k` smallest with
    /// `largest=False`) as the named tuple `(values, indices)`. The elements come in sorted order
    /// whatever `sorted` says (with `sorted=False` PyTorch may return any order).
    ///
    /// Args:
    ///     k (int): the k in "top-k".
    ///     dim (int, optional): the dimension to sort along. Default: the last.
    ///     largest (bool, optional): return the largest or the smallest elements. Default: `True`.
    ///     sorted (bool, optional): return the elements in sorted order. Default: `True`.
    ///
    /// Example:
    ///     >>> x = gradrs.arange(1.0, 6.0)
    ///     >>> x.topk(3)
    ///     gradrs.return_types.topk(
    ///     values=tensor([5., 4., 3.]),
    ///     indices=tensor([4, 3, 2]))
    ///     >>> x.topk(2, largest=False).values
    ///     tensor([1., 2.])
    // `sorted=False` lets PyTorch pick any order; this one gives the sorted order always.
    #[pyo3(
        signature = (k, dim=Int::new(-1), largest=Flag::TRUE, sorted=Flag::TRUE),
        text_signature = "($self, k, dim=-1, largest=True, sorted=True)"
    )]
    fn topk(&self, py: Python<'_>, k: Int, dim: Int, largest: Flag, sorted: Flag) -> R {
        let k = k.get("topk", "k", 1)?;
        let dim = dim.get("topk", "dim", 2)?;
        let largest = largest.get("topk", "largest")?;
        let sorted = sorted.get("topk", "sorted")?;
        let _ = sorted;
        let (v, i) = super::boundary::run(py, || sort::topk(&self.t, k, dim, largest))?;
        values_indices(py, "topk", v, i)
    }
    /// kthvalue(k, dim=-1, keepdim=False) -> (Tensor, LongTensor)
    ///
    /// Returns the named tuple `(values, indices)`: the `k`-th smallest element of each row of
    /// `self` in the dimension `dim` (`k` counts from 1), and its index.
    ///
    /// Args:
    ///     k (int): k for the k-th smallest element.
    ///     dim (int, optional): the dimension to find the kth value along. Default: the last.
    ///     keepdim (bool, optional): whether the output keeps the reduced dimension(s) (with size
    ///         1). Default: `False`.
    ///
    /// Example:
    ///     >>> x = gradrs.arange(1.0, 6.0)
    ///     >>> x.kthvalue(4)
    ///     gradrs.return_types.kthvalue(
    ///     values=tensor(4.),
    ///     indices=tensor(3))
    ///     >>> x = gradrs.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    ///     >>> x.kthvalue(2, 0, True)
    ///     gradrs.return_types.kthvalue(
    ///     values=tensor([[4., 5., 6.]]),
    ///     indices=tensor([[1, 0, 1]]))
    #[pyo3(
        signature = (k, dim=Int::new(-1), keepdim=Flag::FALSE),
        text_signature = "($self, k, dim=-1, keepdim=False)"
    )]
    fn kthvalue(&self, py: Python<'_>, k: Int, dim: Int, keepdim: Flag) -> R {
        let k = k.get("kthvalue", "k", 1)?;
        let dim = dim.get("kthvalue", "dim", 2)?;
        let keepdim = keepdim.get("kthvalue", "keepdim")?;
        let (v, i) = super::boundary::run(py, || sort::kthvalue(&self.t, k, dim, keepdim))?;
        values_indices(py, "kthvalue", v, i)
    }
    /// median(dim=None, keepdim=False) -> Tensor or (Tensor, LongTensor)
    ///
    /// Without `dim`, returns the median of all elements of `self` (a 0-dim tensor); with `dim`,
    /// the named tuple `(values, indices)` of the median of each row in that dimension and its
    /// index. With an even number of elements it is the lower of the two middle values (not their
    /// mean). `nan` is propagated (see `nanmedian`).
    ///
    /// Args:
    ///     dim (int, optional): the dimension to reduce.
    ///     keepdim (bool, optional): whether the output keeps the reduced dimension(s) (with size
    ///         1). Default: `False`.
    ///
    /// Example:
    ///     >>> gradrs.tensor([1.0, 4.0, 2.0, 3.0]).median()
    ///     tensor(2.)
    ///     >>> x = gradrs.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    ///     >>> x.median(dim=1)
    ///     gradrs.return_types.median(
    ///     values=tensor([3., 4.]),
    ///     indices=tensor([2, 0]))
    #[pyo3(
        signature = (dim=None, keepdim=Flag::FALSE),
        text_signature = "($self, dim=None, keepdim=False)"
    )]
    fn median(&self, py: Python<'_>, dim: Option<Int>, keepdim: Flag) -> R {
        let dim = dim.map(|v| v.get("median", "dim", 1)).transpose()?;
        let keepdim = keepdim.get("median", "keepdim")?;
        match dim {
            None => super::boundary::tensor(py, || sort::median_all(&self.t)),
            Some(d) => {
                let (v, i) = super::boundary::run(py, || sort::median_dim(&self.t, d, keepdim))?;
                values_indices(py, "median", v, i)
            }
        }
    }
    /// all(dim=None, keepdim=False) -> Tensor
    ///
    /// Tests whether all elements of `self` (or of each row in the dimension(s) `dim`) evaluate to
    /// `True`. The result is `bool` (`uint8` for a `uint8` input, as PyTorch).
    ///
    /// Args:
    ///     dim (int or tuple of ints, optional): the dimension or dimensions to reduce.
    ///     keepdim (bool, optional): whether the output keeps the reduced dimension(s) (with size
    ///         1). Default: `False`.
    ///
    /// Example:
    ///     >>> a = gradrs.tensor([[True, False], [True, True]])
    ///     >>> a.all()
    ///     tensor(False)
    ///     >>> a.all(dim=0)
    ///     tensor([ True, False])
    ///     >>> gradrs.tensor([1, 2, 3]).all()
    ///     tensor(True)
    #[pyo3(
        signature = (dim=None, keepdim=Flag::FALSE),
        text_signature = "($self, dim=None, keepdim=False)"
    )]
    fn all(&self, py: Python<'_>, dim: Option<&Bound<'_, PyAny>>, keepdim: Flag) -> R {
        let keepdim = keepdim.get("all", "keepdim")?;
        let dims = dims_arg(dim)?;
        super::boundary::tensor(py, || {
            reduce::all_any(&self.t, dims.as_deref(), keepdim, true)
        })
    }
    /// any(dim=None, keepdim=False) -> Tensor
    ///
    /// Tests whether any element of `self` (or of each row in the dimension(s) `dim`) evaluates to
    /// `True`. The result is `bool` (`uint8` for a `uint8` input, as PyTorch).
    ///
    /// Args:
    ///     dim (int or tuple of ints, optional): the dimension or dimensions to reduce.
    ///     keepdim (bool, optional): whether the output keeps the reduced dimension(s) (with size
    ///         1). Default: `False`.
    ///
    /// Example:
    ///     >>> a = gradrs.tensor([[False, False], [True, False]])
    ///     >>> a.any()
    ///     tensor(True)
    ///     >>> a.any(dim=1)
    ///     tensor([False,  True])
    ///     >>> gradrs.tensor([0.0, 0.0]).any()
    ///     tensor(False)
    #[pyo3(
        signature = (dim=None, keepdim=Flag::FALSE),
        text_signature = "($self, dim=None, keepdim=False)"
    )]
    fn any(&self, py: Python<'_>, dim: Option<&Bound<'_, PyAny>>, keepdim: Flag) -> R {
        let keepdim = keepdim.get("any", "keepdim")?;
        let dims = dims_arg(dim)?;
        super::boundary::tensor(py, || {
            reduce::all_any(&self.t, dims.as_deref(), keepdim, false)
        })
    }
}

/// `logcumsumexp`'s values along the wrapped dim `d`, in ATen's CPU order (no history:
/// `gradrs.logcumsumexp` records LogcumsumexpBackward0).
#[pyfunction]
pub fn _logcumsumexp(py: Python<'_>, x: PyRef<'_, PyTensor>, d: usize) -> R {
    let t = x.t.clone();
    super::boundary::tensor_on(py, &[&x.t], || scan::logcumsumexp_values(&t, d))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_logcumsumexp, m)?)?;
    Ok(())
}
