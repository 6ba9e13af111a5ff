//! CPU kernels: contiguous fast paths the compiler vectorizes, strided/broadcast iteration for
//! the rest, threads only above `PAR_THRESHOLD` elements (hand-offs cost more than tiny work),
//! through `parallel.rs`'s pool, where the calling thread works too.

pub mod cascade;
pub mod copy;
pub mod elementwise;
pub mod f16c;
pub mod generator;
pub mod index;
pub mod linalg;
pub mod matmul;
pub mod norm;
pub mod optim;
pub mod parallel;
pub mod reduce;
pub mod sort;
pub mod variance;
pub mod vector_norm;
pub mod vmath;

/// Elements below which a kernel stays on the calling thread.
pub const PAR_THRESHOLD: usize = 1 << 15;
