//! The binding boundary: every kernel call runs through `run` (GIL released, panics caught).
//!
//! Note [Binding boundary]: a Rust panic must never reach Python as pyo3's `PanicException`
//! (a BaseException, so `except Exception` misses it) and must never abort the interpreter.
//! Bindings run their work through one of three helpers:
//! - `run(py, || ops::x(&a))`: a kernel, with the GIL released (other Python threads run
//!   meanwhile, Note [Storage mutation]) and any unwind caught;
//! - `tensor(py, || ops::x(&a))`: `run` then `wrap`, the usual shape of an op binding;
//!   `tensor_on(py, &[&a], || ops::x(&a))` the same, the GIL kept for small host inputs
//!   (Note [Small kernels keep the GIL]);
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

/// Note [Small kernels keep the GIL]: releasing the GIL and taking it back costs about 500
/// instructions (pyo3's `detach`: the thread state saved and restored, a mutex and a condition
/// variable inside CPython), more than a whole kernel on a few elements: `x.exp()` of one
/// element went from 2938 to 4114 instructions when every binding started releasing it
/// (callgrind, f70fdd3 vs bbe814d). A kernel whose host inputs are small keeps it, as numpy
/// keeps it below 500 elements (`NPY_BEGIN_THREADS_THRESHOLDED`): other Python threads wait at
/// most a few microseconds. The product of the inputs' element counts bounds the work of every
/// op that goes through here (a broadcast output, a matrix product's multiply-adds), so a
/// small product is a small kernel. GPU inputs always release it (a kernel may wait for the
/// device). Holding it is safe where releasing it is: a kernel that calls back into Python
/// attaches again, which a thread that holds the GIL does at no cost.
const KEEP_GIL_WORK: usize = 4096;

/// Whether a kernel over `inputs` is small enough to run with the GIL kept.
#[inline]
pub fn is_small(inputs: &[&Tensor]) -> bool {
    let mut work = 1usize;
    for t in inputs {
        let d = t.read();
        if d.storage.device().is_gpu() {
            return false;
        }
        // A saturating product (no overflow check to raise from: only the bound matters).
        let numel = d
            .layout
            .shape
            .iter()
            .fold(1usize, |n, &s| n.saturating_mul(s));
        work = work.saturating_mul(numel.max(1));
    }
    work <= KEEP_GIL_WORK
}

/// `tensor`, with the GIL kept when `inputs` (every tensor the kernel reads) are small (Note
/// [Small kernels keep the GIL]).
pub fn tensor_on<F>(py: Python<'_>, inputs: &[&Tensor], f: F) -> PyResult<Py<PyAny>>
where
    F: FnOnce() -> crate::Result<Tensor> + Send,
{
    tensor_if(py, is_small(inputs), f)
}

/// `tensor`, with the GIL kept when `small` (the caller's `is_small` of the kernel's inputs).
pub fn tensor_if<F>(py: Python<'_>, small: bool, f: F) -> PyResult<Py<PyAny>>
where
    F: FnOnce() -> crate::Result<Tensor> + Send,
{
    let t = if small { catch(f)? } else { run(py, f)? };
    wrap(py, t)
}

/// `is_small` of a tensor and a second operand (a tensor or a number).
pub fn is_small_with(a: &Tensor, b: &crate::ops::Operand) -> bool {
    match b {
        crate::ops::Operand::Tensor(b) => is_small(&[a, b]),
        crate::ops::Operand::Scalar(_) => is_small(&[a]),
    }
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
