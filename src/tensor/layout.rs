//! `Layout`: where a tensor's elements live inside its storage (shape, strides, offset).
//!
//! Base layer (tools/layers.py), beside `tensor::shape`: the CPU kernels read storages through it.

use crate::tensor::shape::{contiguous_strides, numel, Shape, Strides};

/// Where the elements live inside the storage.
#[derive(Debug)]
pub struct Layout {
    pub shape: Shape,
    pub strides: Strides,
    pub offset: usize,
}

/// A copy through `from_slice` (a memcpy): smallvec's `Clone` and `From<&[T]>` collect element
/// by element, which showed in the per-op instruction counts (issue 23).
impl Clone for Layout {
    #[inline]
    fn clone(&self) -> Layout {
        Layout {
            shape: Shape::from_slice(&self.shape),
            strides: Strides::from_slice(&self.strides),
            offset: self.offset,
        }
    }
}

impl Layout {
    pub fn contiguous(shape: &[usize]) -> Layout {
        Layout {
            shape: Shape::from_slice(shape),
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
