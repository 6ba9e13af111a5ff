//! `_native._linalg_*`: the factorizations `gradrs.linalg` builds on (`ops::linalg`), each
//! returning plain tensors (no history: `python/gradrs/linalg.py` records the nodes). Inputs
//! are checked there (float32 / float64, `(*, m, n)`); the GIL is released while they run.

use super::tensor::{wrap, PyTensor};
use crate::ops::linalg;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

type R = PyResult<Py<PyAny>>;

fn tuple(py: Python<'_>, ts: Vec<crate::Tensor>) -> R {
    let items = ts
        .into_iter()
        .map(|t| wrap(py, t))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(PyTuple::new(py, items)?.into_any().unbind())
}

/// `(LU, pivots, info)` of `linalg.lu_factor_ex`.
#[pyfunction]
pub fn _linalg_lu_factor(py: Python<'_>, a: PyRef<'_, PyTensor>) -> R {
    let t = a.t.clone();
    let (lu, p, i) = super::boundary::run(py, || linalg::lu_factor(&t))?;
    tuple(py, vec![lu, p, i])
}

/// X with `A X = B` from `_linalg_lu_factor`'s LU and pivots (LAPACK's `getrs`), batch dims
/// already equal: the row interchanges and both triangular solves in one call.
#[pyfunction]
pub fn _linalg_lu_solve(
    py: Python<'_>,
    lu: PyRef<'_, PyTensor>,
    pivots: PyRef<'_, PyTensor>,
    b: PyRef<'_, PyTensor>,
) -> R {
    let (t, p, rhs) = (lu.t.clone(), pivots.t.clone(), b.t.clone());
    super::boundary::tensor(py, || linalg::lu_solve(&t, &p, &rhs))
}

/// `(L, info)`: the lower Cholesky factor.
#[pyfunction]
pub fn _linalg_cholesky(py: Python<'_>, a: PyRef<'_, PyTensor>) -> R {
    let t = a.t.clone();
    let (l, i) = super::boundary::run(py, || linalg::cholesky(&t))?;
    tuple(py, vec![l, i])
}

/// `(Q, R)`, complete or reduced.
#[pyfunction]
pub fn _linalg_qr(py: Python<'_>, a: PyRef<'_, PyTensor>, complete: bool) -> R {
    let t = a.t.clone();
    let (q, r) = super::boundary::run(py, || linalg::qr(&t, complete))?;
    tuple(py, vec![q, r])
}

/// `(eigenvalues, eigenvectors)` from the lower triangle.
#[pyfunction]
pub fn _linalg_eigh(py: Python<'_>, a: PyRef<'_, PyTensor>, vectors: bool) -> R {
    let t = a.t.clone();
    let (w, v) = super::boundary::run(py, || linalg::eigh(&t, vectors))?;
    tuple(py, vec![w, v])
}

/// `(U, S, Vh)`, full or reduced.
#[pyfunction]
pub fn _linalg_svd(py: Python<'_>, a: PyRef<'_, PyTensor>, full: bool, vectors: bool) -> R {
    let t = a.t.clone();
    let (u, s, vh) = super::boundary::run(py, || linalg::svd(&t, full, vectors))?;
    tuple(py, vec![u, s, vh])
}

/// X with `A X = B`, A triangular.
#[pyfunction]
pub fn _linalg_solve_triangular(
    py: Python<'_>,
    a: PyRef<'_, PyTensor>,
    b: PyRef<'_, PyTensor>,
    upper: bool,
    unit: bool,
) -> R {
    let (t, rhs) = (a.t.clone(), b.t.clone());
    super::boundary::tensor(py, || linalg::solve_triangular(&t, &rhs, upper, unit))
}

/// `(LD, pivots, info)` of `linalg.ldl_factor_ex`: LAPACK's Bunch–Kaufman `sytrf` (lower).
#[pyfunction]
pub fn _linalg_ldl_factor(py: Python<'_>, a: PyRef<'_, PyTensor>) -> R {
    let t = a.t.clone();
    let (ld, p, i) = super::boundary::run(py, || linalg::ldl_factor(&t))?;
    tuple(py, vec![ld, p, i])
}

/// X with `A X = B` from `ldl_factor`'s LD and (int64) pivots, batch dims already equal.
#[pyfunction]
pub fn _linalg_ldl_solve(
    py: Python<'_>,
    ld: PyRef<'_, PyTensor>,
    pivots: PyRef<'_, PyTensor>,
    b: PyRef<'_, PyTensor>,
) -> R {
    let (t, p, rhs) = (ld.t.clone(), pivots.t.clone(), b.t.clone());
    super::boundary::tensor(py, || linalg::ldl_solve(&t, &p, &rhs))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_linalg_lu_factor, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_lu_solve, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_cholesky, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_qr, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_eigh, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_svd, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_solve_triangular, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_ldl_factor, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_ldl_solve, m)?)?;
    Ok(())
}
