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

/// PyTorch's `memory_format` (`torch.preserve_format` & co.): the strides a `*_like` factory
/// or a `clone` gives its result (Note [Memory formats]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryFormat {
    Preserve,
    Contiguous,
    ChannelsLast,
    ChannelsLast3d,
}

// Note [Memory formats]
// ~~~~~~~~~~~~~~~~~~~~~
// gradrs's results are row-major, except where PyTorch keeps an input's layout: `empty_like`
// & co. and `clone` under `memory_format=preserve_format` (their default) give a dense
// non-overlapping input's strides as they are (a transposed tensor's clone is transposed) and
// any other input the dense strides in its order of dims (ATen's `infer_dense_strides`, the
// order TensorIterator walks); `channels_last` (rank 4) and `channels_last_3d` (rank 5) put
// the channels innermost. `like_strides` computes them; the ops make a result of that layout
// over a fresh dense storage.

impl Layout {
    /// Whether a dim of size 2 or more has stride 0 (an expanded tensor): several elements
    /// share one memory location (Note [Write overlap] in `ops/inplace.rs`).
    pub fn has_expanded_dim(&self) -> bool {
        self.shape
            .iter()
            .zip(self.strides.iter())
            .any(|(&n, &s)| n > 1 && s == 0)
    }

    /// c10's `_compute_non_overlapping_and_dense`: the dims of size 2 or more, by stride, lay
    /// the elements out contiguously.
    pub fn is_non_overlapping_and_dense(&self) -> bool {
        let n = self.shape.len();
        if n == 1 {
            return self.shape[0] < 2 || self.strides[0] == 1;
        }
        // c10 sorts the dims of size 0 or 1 last and stops at the first: only the others count.
        let mut dims: Vec<usize> = (0..n).filter(|&d| self.shape[d] >= 2).collect();
        dims.sort_by_key(|&d| self.strides[d]);
        let mut expected = 1isize;
        for d in dims {
            if self.strides[d] != expected {
                return false;
            }
            expected *= self.shape[d] as isize;
        }
        true
    }
}

/// ATen's `infer_dense_strides`: dense strides keeping the order of `l`'s dims by stride (an
/// insertion sort as TensorIterator's: a 0 stride compares as ambiguous, equal strides put the
/// smaller dim first).
fn infer_dense_strides(l: &Layout) -> Strides {
    let n = l.shape.len();
    let mut perm: Vec<usize> = (0..n).rev().collect();
    let should_swap = |d0: usize, d1: usize| -> i32 {
        let (s0, s1) = (l.strides[d0], l.strides[d1]);
        if s0 == 0 || s1 == 0 {
            return 0;
        }
        if s0 != s1 {
            return if s0 < s1 { -1 } else { 1 };
        }
        i32::from(l.shape[d0] > l.shape[d1])
    };
    for i in 1..n {
        let mut d1 = i;
        for j in 1..=i {
            let d0 = i - j;
            match should_swap(perm[d0], perm[d1]) {
                c if c > 0 => {
                    perm.swap(d0, d1);
                    d1 = d0;
                }
                c if c < 0 => break,
                _ => {}
            }
        }
    }
    let mut out: Strides = Strides::from_elem(0, n);
    let mut cur = 1isize;
    for &d in &perm {
        out[d] = cur;
        if l.shape[d] > 1 {
            cur *= l.shape[d] as isize;
        }
    }
    out
}

/// c10's `suggest_memory_format` of a strided tensor: `channels_last` when its strides are
/// like a rank-4 channels-last layout's, `channels_last_3d` for rank 5, else contiguous
/// (`is_channels_last_strides_2d_s4` / `_3d_s5`, ambiguous cases read as contiguous).
pub fn suggest_memory_format(l: &Layout) -> MemoryFormat {
    let like = |order: &[usize]| {
        let (sizes, strides) = (&l.shape, &l.strides);
        if strides[1] == 0 {
            return false;
        }
        let mut min = 0isize;
        for &d in order {
            if sizes[d] == 0 || strides[d] < min {
                return false;
            }
            if d == 0 && min == strides[1] {
                return false;
            }
            min = strides[d];
            if sizes[d] > 1 {
                min *= sizes[d] as isize;
            }
        }
        true
    };
    match l.shape.len() {
        4 if like(&[1, 3, 2, 0]) => MemoryFormat::ChannelsLast,
        5 if like(&[1, 4, 3, 2, 0]) => MemoryFormat::ChannelsLast3d,
        _ => MemoryFormat::Contiguous,
    }
}

/// The strides of a `*_like` / `clone` result of a tensor laid out as `l` under `fmt`, None
/// for row-major ones (Note [Memory formats]); PyTorch's error for a channels-last format of
/// the wrong rank.
pub fn like_strides(l: &Layout, fmt: MemoryFormat) -> crate::error::Result<Option<Strides>> {
    let s = &l.shape;
    let strides = match fmt {
        MemoryFormat::Contiguous => return Ok(None),
        MemoryFormat::Preserve => {
            if l.is_non_overlapping_and_dense() {
                l.strides.clone()
            } else {
                infer_dense_strides(l)
            }
        }
        MemoryFormat::ChannelsLast | MemoryFormat::ChannelsLast3d => {
            let (rank, name) = if fmt == MemoryFormat::ChannelsLast {
                (4, "channels_last")
            } else {
                (5, "channels_last_3d")
            };
            if s.len() != rank {
                return Err(crate::error::Error::Runtime(format!(
                    "required rank {rank} tensor to use {name} format"
                )));
            }
            // c10's get_channels_last_strides_{2,3}d.
            let mut st = Strides::from_elem(0, rank);
            st[1] = 1;
            st[rank - 1] = s[1] as isize;
            for d in (2..rank - 1).rev() {
                st[d] = st[d + 1] * s[d + 1] as isize;
            }
            st[0] = st[2] * s[2] as isize;
            st
        }
    };
    Ok((strides != contiguous_strides(s)).then_some(strides))
}
