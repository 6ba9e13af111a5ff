//! The binding boundary: every kernel call runs through `run` (GIL released, panics caught).
//!
//! Note [Binding boundary]: a Rust panic must never reach Python as pyo3's `PanicException`
//! (a BaseException, so `except Exception` misses it) and must never abort the interpreter.
//! Bindings run their work through one of three helpers:
//! - `run(py, || ops::x(&a))`: a kernel, with the GIL released (other Python threads run
//!   meanwhile, Note [Storage mutation]) and any unwind caught;
//! - `tensor(py, || ops::x(&a))`: `run` then `wrap`, the usual shape of an op binding;
//! - `cheap(py, || movement::x(&a))`: a view or other metadata-only op: `tensor` without
//!   releasing the GIL (releasing it would cost more than the op);
//! - `held(|| ...)`: work that touches Python objects, GIL kept, unwinds caught;
//! - `catch(|| ...)`: an in-place write (which keeps the GIL so writers stay serialized,
//!   Note [Storage mutation]) or views returned as several tensors (`split`).
//!
//! Every other binding that runs a kernel (copies, casts, reductions, matmul, convolution,
//! random sampling into a new tensor, the backward pass) goes through `run` / `tensor`:
//! parse Python arguments first, with the GIL, then hand the kernel only Rust values.
//!
//! A caught unwind becomes a Python exception through the one error map (`errors.rs`): an
//! `Error` raised with `error::raise` (a failed allocation, an overflowing size deep inside a
//! kernel) becomes that error; any other panic is a bug, reported as a RuntimeError naming it.
//! Allocation failures reach here only because the storage layer reserves memory fallibly
//! (`tensor::pool::try_alloc`): Rust's allocation-failure handler aborts, it cannot unwind.

use super::tensor::wrap;
use crate::error::{from_panic, Error};
use crate::tensor::Tensor;
use pyo3::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// `f`'s result, or the error it returned or raised; a panic never escapes.
pub fn catch<T>(f: impl FnOnce() -> crate::Result<T>) -> crate::Result<T> {
    // Unwind safety: the state a kernel leaves behind on an unwind is a half-written output
    // that nobody holds any more; shared state is behind locks that do not poison.
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| Err(from_panic(p)))
}

/// Runs the kernel `f` with the GIL released; its error or panic as PyTorch's exception.
pub fn run<T, F>(py: Python<'_>, f: F) -> PyResult<T>
where
    F: FnOnce() -> crate::Result<T> + Send,
    T: Send,
{
    Ok(py.detach(|| catch(f))?)
}

/// `run`, its tensor wrapped as the Python `Tensor` (the same object if it already has one).
pub fn tensor<F>(py: Python<'_>, f: F) -> PyResult<Py<PyAny>>
where
    F: FnOnce() -> crate::Result<Tensor> + Send,
{
    let t = run(py, f)?;
    wrap(py, t)
}

/// A cheap op (a view: metadata only) with its unwinds caught, the GIL kept: releasing it
/// would cost more than the op.
pub fn cheap<F>(py: Python<'_>, f: F) -> PyResult<Py<PyAny>>
where
    F: FnOnce() -> crate::Result<Tensor>,
{
    let t = catch(f)?;
    wrap(py, t)
}

/// Runs `f` with the GIL held (it touches Python objects), a panic caught as in `run`.
pub fn held<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => Err(from_panic(p).into()),
    }
}

/// Keeps the default panic message for bugs but stays quiet for errors raised on purpose
/// (`error::raise`), which reach Python as ordinary exceptions. Installed once, at import.
pub fn install_panic_hook() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if info.payload().downcast_ref::<Error>().is_none() {
            default(info);
        }
    }));
}
