//! The one place that picks the device an op's kernels run on (Note [Devices]).
//!
//! Note [Kernel dispatch]: ops are device-agnostic: they name no backend, only this module,
//! and each primitive here returns its result (or the error) wherever its operands live. The
//! backend interface is `backend.rs` (Note [Backend interface]): the primitive set as one
//! trait, implemented by `Gpu` (`gpu/`: tensors to buffers and views, the wgpu kernel, the
//! result back as a GPU tensor; `None` where its kernel does not apply: a dtype or layout it
//! cannot read, a tensor past one binding) and `Cpu` (the family files' `*_host` functions
//! over `backend::cpu`: slices and layouts, on the host copy of a GPU tensor, whose result
//! still lands on the GPU); `backend::run` (and `pick`) is the one match between them. Each
//! family function checks what does not depend on the device, then calls it.
//!
//! The families: `elementwise` (unary, binary, comparisons, logical ops, select, lerp, writes
//! into existing memory; ops pass their declared WGSL expression and their CPU kernel, a
//! closure written with the host loops exported here: `map`, `zip`, ...), `copy`
//! (contiguous copies, casts, device moves, Note [Narrow dtypes]'s `wide` / `narrow`),
//! `reduce` (reductions and scans), `index` (gather / scatter, nonzero, masked selection,
//! writes at offsets), `matmul`, `sort`, `nn` (softmax, im2col / col2im), `conv` (a convolution's host products, Note
//! [Convolution kernels]), `pool` (max pooling with indices on the host). The op codes are the
//! primitive set's (`ReduceOp`, `ScanOp`, `Rows`, `WindowOp`, ...): the GPU's shaders select
//! them by the code their table gives (the `override OP` constant), the CPU's kernels by
//! closure.

mod backend;
mod conv;
mod copy;
mod elementwise;
mod gpu;
mod index;
pub mod linalg;
mod matmul;
mod nn;
pub mod norm;
pub mod optim;
mod order;
mod pool;
pub mod random;
mod reduce;
pub mod rnn;
pub mod samplers;
mod sort;

pub use conv::{conv2d, conv2d_input_grad, conv2d_weight_grad};
pub use copy::{cast, contiguous, narrow, to_device, wide};
pub use elementwise::{
    binary, clamp, compare, lerp, logical, map, map_half, overlaps, pow_number_host, select,
    select_host, tanh_backward_host, unary, write_into, zip, zip_half, zip_half_host,
    zip_host_float, zip_in_place, zip_into_host, HalfArg, HalfSrc, Src, VMath,
};
pub(crate) use gpu::words_on_gpu;
pub use index::{gather, masked_select, nonzero, offsets, put, scatter};
pub use matmul::{addmm, bmm, dot};
pub use nn::{col2im, im2col, softmax, softmax_backward, Window, WindowGeom, WindowOp};
pub use pool::{max_pool2d, max_pool2d_backward};
pub use reduce::{
    all_any, arg_extreme, float_rows, logcumsumexp, nansum_host, reduce, rows, scan, sum, var_host,
    vector_norm_host, ReduceOp, ScanOp,
};
pub use sort::{select as select_lines, sort, Rows};

use crate::tensor::{Layout, Tensor};

/// Whether a host kernel of `x` would first read its values back from the GPU: an op whose
/// host kernel has no GPU form then composes it from the primitive set, so the values stay
/// there (Note [Kernel dispatch]).
pub fn host_reads_back(x: &Tensor) -> bool {
    x.device().is_gpu()
}

/// `f` over a host tensor's elements in logical order: its storage in place when
/// contiguous, else a contiguous copy.
pub(crate) fn with_host<T: crate::tensor::element::Element, R>(
    t: &Tensor,
    f: impl FnOnce(&[T]) -> R,
) -> R {
    let d = t.read();
    if d.layout.is_contiguous() {
        let numel = d.layout.numel();
        f(&d.storage.slice::<T>()[d.layout.offset..][..numel])
    } else {
        let v =
            crate::backend::cpu::copy::gather_contiguous::<T>(d.storage.slice::<T>(), &d.layout);
        drop(d);
        f(&v)
    }
}

/// Whether the host's float16 loops (`map_half`, `zip_half`) read `x`'s elements in place: a
/// contiguous tensor whose values the host holds (a GPU tensor's float16 words are float32).
pub fn half_in_place(x: &Tensor) -> bool {
    x.is_contiguous() && !x.device().is_gpu()
}

/// `x` with dims `a` and `b` swapped: a tensor over the same storage, read as a kernel input
/// (the host's line kernels move a dim last this way).
fn swapped(x: &Tensor, a: usize, b: usize) -> Tensor {
    let d = x.data();
    let mut l: Layout = d.layout;
    l.shape.swap(a, b);
    l.strides.swap(a, b);
    Tensor::from_storage(d.storage, l)
}
