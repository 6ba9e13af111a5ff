//! gradrs: define-by-run autograd with PyTorch's semantics.
//!
//! Layers, top to bottom (see ARCHITECTURE.md):
//! - [`python`]: the PyO3 bindings (only with the `python` feature);
//! - [`ops`]: every differentiable op, forward and backward formula together;
//! - [`autograd`]: the graph arena, the engine and grad mode;
//! - [`kernels`]: the one place that picks the device a primitive runs on;
//! - [`tensor`]: tensors, storage and layout;
//! - [`backend`]: primitive kernels per device.

pub mod autograd;
pub mod backend;
pub mod dtype;
pub mod error;
pub mod kernels;
pub mod ops;
pub mod tensor;

#[cfg(feature = "python")]
pub mod python;

pub use dtype::{DType, Scalar};
pub use error::{Error, Result};
pub use tensor::{storage_from_parts, Tensor};
