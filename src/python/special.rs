//! Bindings of the declared special functions that the declarations do not bind
//! (`ops::special`): the Tensor methods `polygamma` / `mvlgamma` and `torch.special`'s
//! `i0e` / `i1` / `i1e`. The other `special_*` ops go through `_native._unary_op` /
//! `_binary_op` (`pointwise.rs`).

use super::pointwise::in_place;
use super::tensor::PyTensor;
use super::R;
use crate::ops::special;
use crate::ops::unary::{args_of, unary_args, UnaryOp};
use crate::python::convert::Int;
use pyo3::prelude::*;

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

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(special_i0e, m)?)?;
    m.add_function(wrap_pyfunction!(special_i1, m)?)?;
    m.add_function(wrap_pyfunction!(special_i1e, m)?)?;
    Ok(())
}
