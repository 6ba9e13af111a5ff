//! The one place that picks the device an op's kernels run on (Note [Devices]).
//!
//! Note [Kernel dispatch]: ops are device-agnostic: they name no backend, only this module,
//! and each primitive here returns its result (or the error) wherever its operands live. The
//! backend interface is the pair of implementations every family file dispatches between:
//! `gpu/` (wgpu: tensors to buffers and views, the kernel call, the result back as a GPU
//! tensor; `Ok(None)` where its kernel does not apply: a dtype or layout it cannot read, a
//! tensor past one binding) and `backend::cpu` (slices and layouts, on the host copy of a GPU
//! tensor, whose result still lands on the GPU). Each family function is that one match:
//! the GPU's kernel when the operands live there and it applies, else the host's.
//!
//! The families: `copy` (contiguous copies, casts, device moves, Note [Narrow dtypes]'s
//! `wide` / `narrow`), `reduce` (reductions and scans), `index` (gather / scatter, nonzero,
//! writes at offsets), `matmul`, `sort`, `nn` (softmax, im2col / col2im). The op codes are
//! the primitive set's (`ReduceOp`, `ScanOp`, `Rows`, `WindowOp`, ...): the GPU's shaders
//! select them by number (the `override OP` constant), the CPU's kernels by closure.
//!
//! The elementwise family (`elementwise.rs`) goes through the backend interface
//! (`backend.rs`, Note [Backend interface]): one trait, the GPU's and the host's
//! implementations, `backend::run` the one match; ops pass their declared WGSL expression and
//! their CPU kernel (a closure written with `map` / `zip`, the host loops exported here).

mod backend;
mod copy;
mod elementwise;
mod gpu;
mod index;
pub mod linalg;
mod matmul;
mod nn;
pub mod optim;
pub mod random;
mod reduce;
mod sort;

pub use copy::{cast, contiguous, narrow, to_device, wide};
pub use elementwise::{
    binary, clamp, compare, lerp, logical, map, map_half, overlaps, select, select_host, unary,
    write_into, zip, zip_half, zip_in_place, HalfSrc, Src, VMath,
};
pub(crate) use gpu::words_on_gpu;
pub use index::{gather, masked_select, nonzero, offsets, put, scatter};
pub use matmul::{addmm, bmm, dot};
pub use nn::{col2im, im2col, softmax, Window, WindowGeom, WindowOp};
pub use reduce::{all_any, arg_extreme, float_rows, reduce, rows, scan, sum, ReduceOp, ScanOp};
pub use sort::{lines as sort_lines, sort, Rows};

use crate::tensor::{Layout, Tensor};

/// `x` with dims `a` and `b` swapped: a tensor over the same storage, read as a kernel input
/// (the host's line kernels move a dim last this way).
fn swapped(x: &Tensor, a: usize, b: usize) -> Tensor {
    let d = x.data();
    let mut l: Layout = d.layout;
    l.shape.swap(a, b);
    l.strides.swap(a, b);
    Tensor::from_storage(d.storage, l)
}
