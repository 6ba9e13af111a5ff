//! The factorizations under `gradrs.linalg`, without autograd: LU, Cholesky, QR, eigh, SVD and
//! triangular solves of `(*, m, n)` float32 / float64 tensors (checked by the callers, which
//! broadcast batch dims). `python/gradrs/linalg.py` records their nodes, whose formulas are
//! written in differentiable ops (PyTorch's `FunctionsManual.cpp`), so higher orders work.

use crate::error::Result;
use crate::kernels::linalg as k;
use crate::tensor::Tensor;

pub use k::{cholesky, eigh, lu_factor, lu_solve, qr, svd};

/// `A X = B` for triangular A `(*, n, n)` and B `(*, n, k)` of the same batch dims.
pub fn solve_triangular(a: &Tensor, b: &Tensor, upper: bool, unit: bool) -> Result<Tensor> {
    k::solve_triangular(a, b, upper, unit)
}

/// `linalg.ldl_factor_ex`'s (LD, pivots, info) and `linalg.ldl_solve` (LAPACK's `sytrf` /
/// `sytrs`, lower).
pub use k::{ldl_factor, ldl_solve};
