//! The one place that picks the device an op's kernels run on (Note [Devices]).
//!
//! Ops are device-agnostic: they name no backend, only this module. Each primitive here runs
//! on the device its operands live on: on the GPU through the wgpu backend (`gpu.rs`: tensors
//! to buffers and views, the kernel call, the result back as a tensor), returning `Ok(None)`
//! where the GPU kernel does not apply (a dtype or layout it cannot read), and the op then
//! computes on the host copy (`backend::cpu`), whose result still lands on the GPU. The op
//! codes below are the primitive set's: the GPU's shaders select them by number (the
//! `override OP` constant), the CPU's kernels by closure; elementwise ops pass their declared
//! WGSL expression instead (`unary`, `binary`, `compare`, `logical`: Note [Op declarations]).

mod gpu;

pub use crate::backend::wgpu::{narrow_i64, ReduceOp, ScanOp, WindowGeom, WindowOp};
pub(crate) use gpu::words_on_gpu;
pub use gpu::{
    all_any, arg_extreme, binary, binary_to, bmm, compare, compare_words, contiguous_as, gather,
    half_as_float, lerp, logical, nonzero, put, reduce, scan, scatter, select, softmax, sort, sum,
    unary, unary_with, window, write_into,
};
