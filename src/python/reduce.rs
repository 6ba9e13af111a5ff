//! Bindings of the reductions and scans (`ops::reduce`).

use super::convert::Flag;
use super::helpers;
use super::tensor::{dims_arg, wrap, PyTensor};
use crate::ops::{extrema, reduce, scan, sort, statistics};
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
    #[pyo3(
        signature = (dim=None, keepdim=Flag::FALSE),
        text_signature = "($self, dim=None, keepdim=False)"
    )]
    fn max(&self, py: Python<'_>, dim: Option<&Bound<'_, PyAny>>, keepdim: Flag) -> R {
        let keepdim = keepdim.get("max", "keepdim")?;
        extreme(py, self, dim, keepdim, true)
    }
    #[pyo3(
        signature = (dim=None, keepdim=Flag::FALSE),
        text_signature = "($self, dim=None, keepdim=False)"
    )]
    fn min(&self, py: Python<'_>, dim: Option<&Bound<'_, PyAny>>, keepdim: Flag) -> R {
        let keepdim = keepdim.get("min", "keepdim")?;
        extreme(py, self, dim, keepdim, false)
    }
    #[pyo3(
        signature = (dim=None, keepdim=Flag::FALSE),
        text_signature = "($self, dim=None, keepdim=False)"
    )]
    fn amax(&self, py: Python<'_>, dim: Option<&Bound<'_, PyAny>>, keepdim: Flag) -> R {
        let keepdim = keepdim.get("amax", "keepdim")?;
        let dims = dims_arg(dim)?.unwrap_or_default();
        super::boundary::tensor(py, || extrema::amax(&self.t, &dims, keepdim, true))
    }
    #[pyo3(
        signature = (dim=None, keepdim=Flag::FALSE),
        text_signature = "($self, dim=None, keepdim=False)"
    )]
    fn amin(&self, py: Python<'_>, dim: Option<&Bound<'_, PyAny>>, keepdim: Flag) -> R {
        let keepdim = keepdim.get("amin", "keepdim")?;
        let dims = dims_arg(dim)?.unwrap_or_default();
        super::boundary::tensor(py, || extrema::amax(&self.t, &dims, keepdim, false))
    }
    #[pyo3(
        signature = (dim=None, keepdim=Flag::FALSE),
        text_signature = "($self, dim=None, keepdim=False)"
    )]
    fn argmax(&self, py: Python<'_>, dim: Option<i64>, keepdim: Flag) -> R {
        let keepdim = keepdim.get("argmax", "keepdim")?;
        super::boundary::tensor(py, || extrema::argextreme(&self.t, dim, keepdim, true))
    }
    #[pyo3(
        signature = (dim=None, keepdim=Flag::FALSE),
        text_signature = "($self, dim=None, keepdim=False)"
    )]
    fn argmin(&self, py: Python<'_>, dim: Option<i64>, keepdim: Flag) -> R {
        let keepdim = keepdim.get("argmin", "keepdim")?;
        super::boundary::tensor(py, || extrema::argextreme(&self.t, dim, keepdim, false))
    }
    #[pyo3(
        signature = (dim=None, keepdim=Flag::FALSE, *, dtype=None),
        text_signature = "($self, dim=None, keepdim=False, *, dtype=None)"
    )]
    fn prod(
        &self,
        py: Python<'_>,
        dim: Option<i64>,
        keepdim: Flag,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> R {
        let keepdim = keepdim.get("prod", "keepdim")?;
        self.accumulate_as(py, dtype, |x| reduce::prod(x, dim, keepdim))
    }
    #[pyo3(
        signature = (dim=None, unbiased=None, keepdim=Flag::FALSE, *, correction=None),
        text_signature = "($self, dim=None, unbiased=None, keepdim=False, *, correction=None)"
    )]
    fn var(
        &self,
        py: Python<'_>,
        dim: Option<&Bound<'_, PyAny>>,
        mut unbiased: Option<bool>,
        keepdim: Flag,
        correction: Option<f64>,
    ) -> R {
        let keepdim = keepdim.get("var", "keepdim")?;
        let bare = dim.is_none_or(|d| d.is_none()) && unbiased.is_none() && correction.is_none();
        let dims = var_dims(dim, &mut unbiased)?;
        let c = shown_correction("var", bare, unbiased, correction)?;
        super::boundary::tensor(py, || {
            statistics::var(&self.t, dims.as_deref(), c, keepdim, false)
        })
    }
    #[pyo3(
        signature = (dim=None, unbiased=None, keepdim=Flag::FALSE, *, correction=None),
        text_signature = "($self, dim=None, unbiased=None, keepdim=False, *, correction=None)"
    )]
    fn std(
        &self,
        py: Python<'_>,
        dim: Option<&Bound<'_, PyAny>>,
        mut unbiased: Option<bool>,
        keepdim: Flag,
        correction: Option<f64>,
    ) -> R {
        let keepdim = keepdim.get("std", "keepdim")?;
        let bare = dim.is_none_or(|d| d.is_none()) && unbiased.is_none() && correction.is_none();
        let dims = var_dims(dim, &mut unbiased)?;
        let c = shown_correction("std", bare, unbiased, correction)?;
        super::boundary::tensor(py, || {
            statistics::var(&self.t, dims.as_deref(), c, keepdim, true)
        })
    }
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
    #[pyo3(
        signature = (dim, keepdim=Flag::FALSE),
        text_signature = "($self, dim, keepdim=False)"
    )]
    fn logsumexp(&self, py: Python<'_>, dim: &Bound<'_, PyAny>, keepdim: Flag) -> R {
        let keepdim = keepdim.get("logsumexp", "keepdim")?;
        let dims = dims_arg(Some(dim))?.unwrap_or_default();
        super::boundary::tensor(py, || statistics::logsumexp(&self.t, &dims, keepdim))
    }
    #[pyo3(signature = (dim, *, dtype=None))]
    fn cumsum(&self, py: Python<'_>, dim: i64, dtype: Option<&Bound<'_, PyAny>>) -> R {
        self.accumulate_as(py, dtype, |x| scan::cumsum(x, dim))
    }
    #[pyo3(signature = (dim, *, dtype=None))]
    fn cumprod(&self, py: Python<'_>, dim: i64, dtype: Option<&Bound<'_, PyAny>>) -> R {
        self.accumulate_as(py, dtype, |x| scan::cumprod(x, dim))
    }
    /// `stable` is accepted for PyTorch's signature: every sort here is stable.
    #[pyo3(
        signature = (dim=-1, descending=Flag::FALSE, *, stable=None),
        text_signature = "($self, dim=-1, descending=False, *, stable=None)"
    )]
    fn sort(&self, py: Python<'_>, dim: i64, descending: Flag, stable: Option<bool>) -> R {
        let descending = descending.get("sort", "descending")?;
        let _ = stable;
        let (v, i) = super::boundary::run(py, || sort::sort(&self.t, dim, descending))?;
        values_indices(py, "sort", v, i)
    }
    #[pyo3(
        signature = (dim=-1, descending=Flag::FALSE, *, stable=Flag::FALSE),
        text_signature = "($self, dim=-1, descending=False, *, stable=False)"
    )]
    fn argsort(&self, py: Python<'_>, dim: i64, descending: Flag, stable: Flag) -> R {
        let descending = descending.get("argsort", "descending")?;
        let stable = stable.get("argsort", "stable")?;
        let _ = stable;
        super::boundary::tensor(py, || sort::argsort(&self.t, dim, descending))
    }
    fn msort(&self, py: Python<'_>) -> R {
        super::boundary::tensor(py, || sort::msort(&self.t))
    }
    /// `sorted=False` lets PyTorch pick any order; this one gives the sorted order always.
    #[pyo3(
        signature = (k, dim=-1, largest=Flag::TRUE, sorted=Flag::TRUE),
        text_signature = "($self, k, dim=-1, largest=True, sorted=True)"
    )]
    fn topk(&self, py: Python<'_>, k: i64, dim: i64, largest: Flag, sorted: Flag) -> R {
        let largest = largest.get("topk", "largest")?;
        let sorted = sorted.get("topk", "sorted")?;
        let _ = sorted;
        let (v, i) = super::boundary::run(py, || sort::topk(&self.t, k, dim, largest))?;
        values_indices(py, "topk", v, i)
    }
    #[pyo3(
        signature = (k, dim=-1, keepdim=Flag::FALSE),
        text_signature = "($self, k, dim=-1, keepdim=False)"
    )]
    fn kthvalue(&self, py: Python<'_>, k: i64, dim: i64, keepdim: Flag) -> R {
        let keepdim = keepdim.get("kthvalue", "keepdim")?;
        let (v, i) = super::boundary::run(py, || sort::kthvalue(&self.t, k, dim, keepdim))?;
        values_indices(py, "kthvalue", v, i)
    }
    #[pyo3(
        signature = (dim=None, keepdim=Flag::FALSE),
        text_signature = "($self, dim=None, keepdim=False)"
    )]
    fn median(&self, py: Python<'_>, dim: Option<i64>, keepdim: Flag) -> R {
        let keepdim = keepdim.get("median", "keepdim")?;
        match dim {
            None => super::boundary::tensor(py, || sort::median_all(&self.t)),
            Some(d) => {
                let (v, i) = super::boundary::run(py, || sort::median_dim(&self.t, d, keepdim))?;
                values_indices(py, "median", v, i)
            }
        }
    }
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
