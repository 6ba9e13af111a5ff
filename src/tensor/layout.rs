//! `Layout`: where a tensor's elements live inside its storage (shape, strides, offset).
//!
//! Base layer (tools/layers.py), beside `tensor::shape`: the CPU kernels read storages through it.

use crate::tensor::shape::{contiguous_strides, numel, Shape, Strides};

/// Where the elements live inside the storage.
#[derive(Clone, Debug)]
pub struct Layout {
    pub shape: Shape,
    pub strides: Strides,
    pub offset: usize,
}

impl Layout {
    pub fn contiguous(shape: &[usize]) -> Layout {
        Layout {
            shape: shape.into(),
            strides: contiguous_strides(shape),
            offset: 0,
        }
    }

    pub fn numel(&self) -> usize {
        numel(&self.shape)
    }

    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// Row-major contiguous (size-1 dims may have any stride, and an empty tensor is always
    /// contiguous, as in PyTorch).
    pub fn is_contiguous(&self) -> bool {
        if self.shape.contains(&0) {
            return true;
        }
        let mut expected = 1isize;
        for i in (0..self.shape.len()).rev() {
            if self.shape[i] != 1 {
                if self.strides[i] != expected {
                    return false;
                }
                expected *= self.shape[i] as isize;
            }
        }
        true
    }
}
