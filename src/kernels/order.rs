//! Note [Elementwise output strides]: the layout of an elementwise op's result, as PyTorch's
//! TensorIterator gives it (`compute_fast_setup_type`, `reorder_dimensions`,
//! `allocate_or_resize_outputs`): operands of one shape, each dense and non-overlapping with
//! the same strides (and not all row-major), give a result of those strides
//! (`(x.t().clone() + 1).stride()` is `x.t()`'s); otherwise the dims are ordered by the
//! operands' strides, the first operand that tells deciding (a broadcast dim tells nothing,
//! equal strides put the smaller dim first), and the result is dense in that order, so a
//! permuted input gives a permuted result. The kernels are unchanged: they run over the
//! operands' memory read flat (the first case) or over the operands permuted into that order,
//! writing a row-major buffer, which the result then views with the strides PyTorch gives.

use crate::error::Result;
use crate::tensor::{Layout, Tensor};
use smallvec::SmallVec;

/// How the result of an op over `ops` broadcast to `shape` is laid out.
enum Order {
    RowMajor,
    /// every operand dense with these strides: computed over the memory read flat
    Flat(SmallVec<[isize; 4]>),
    /// the dims, slowest first, in which the result is row-major
    Permuted(SmallVec<[usize; 4]>),
}

/// Row-major strides exactly (`Layout::contiguous`'s, size-1 dims included).
fn canonical(l: &Layout) -> bool {
    let mut expected = 1isize;
    for i in (0..l.shape.len()).rev() {
        if l.strides[i] != expected {
            return false;
        }
        expected *= l.shape[i].max(1) as isize;
    }
    true
}

fn order(ops: &[&Tensor], shape: &[usize]) -> Order {
    let n = shape.len();
    if n < 2 {
        return Order::RowMajor;
    }
    // the common case first, without copying layouts: all row-major (TensorIterator's
    // contiguous fast setup, or dims that sort as they are)
    let (mut same_contiguous, mut all_canonical) = (true, true);
    for t in ops {
        let d = t.read();
        let l = &d.layout;
        same_contiguous &= l.shape[..] == *shape && l.is_contiguous();
        all_canonical &= canonical(l);
    }
    if same_contiguous || all_canonical {
        return Order::RowMajor;
    }
    let layouts: SmallVec<[Layout; 3]> = ops.iter().map(|t| t.read().layout.clone()).collect();
    if layouts.iter().all(|l| l.shape[..] == *shape) {
        let first = &layouts[0];
        if layouts.iter().all(|l| {
            l.is_non_overlapping_and_dense() && l.strides == first.strides && !l.has_expanded_dim()
        }) && first.strides.iter().all(|&s| s >= 0)
        {
            return Order::Flat(first.strides.clone());
        }
    }
    // each operand's strides over `shape`: 0 where it is broadcast (a missing or size-1 dim
    // of a bigger size), its own elsewhere; 0-dim operands (numbers) tell nothing
    let strides: SmallVec<[SmallVec<[isize; 4]>; 3]> = layouts
        .iter()
        .filter(|l| !l.shape.is_empty())
        .map(|l| {
            let pad = n - l.shape.len();
            (0..n)
                .map(|d| {
                    if d < pad || (l.shape[d - pad] == 1 && shape[d] != 1) {
                        0
                    } else {
                        l.strides[d - pad]
                    }
                })
                .collect()
        })
        .collect();
    // TensorIterator's insertion sort, fastest dim first: 1 when dim0 should come after dim1
    let should_swap = |d0: usize, d1: usize| -> i32 {
        for s in &strides {
            let (s0, s1) = (s[d0], s[d1]);
            if s0 == 0 || s1 == 0 {
                continue;
            }
            if s0 < s1 {
                return -1;
            }
            if s0 > s1 {
                return 1;
            }
            if shape[d0] > shape[d1] {
                return 1;
            }
        }
        0
    };
    let mut perm: SmallVec<[usize; 4]> = (0..n).rev().collect();
    for i in 1..n {
        let mut dim1 = i;
        for dim0 in (0..i).rev() {
            let c = should_swap(perm[dim0], perm[dim1]);
            if c > 0 {
                perm.swap(dim0, dim1);
                dim1 = dim0;
            } else if c < 0 {
                break;
            }
        }
    }
    if perm.iter().enumerate().all(|(j, &p)| p == n - 1 - j) {
        return Order::RowMajor;
    }
    perm.reverse(); // slowest first
    Order::Permuted(perm)
}

fn with_layout(t: &Tensor, layout: Layout) -> Tensor {
    Tensor::from_storage(t.read().storage.clone(), layout)
}

/// `kernel(ops, shape)` (a row-major result of `shape`) with its result laid out as PyTorch's
/// (Note [Elementwise output strides]).
pub fn ordered(
    ops: &[&Tensor],
    shape: &[usize],
    kernel: impl Fn(&[&Tensor], &[usize]) -> Result<Tensor>,
) -> Result<Tensor> {
    // (the common case passes the operands as they are: no copies, no allocation)
    let plain = || kernel(ops, shape);
    match order(ops, shape) {
        Order::RowMajor => plain(),
        Order::Flat(strides) => {
            let numel: usize = shape.iter().product();
            let flat: Vec<Tensor> = ops
                .iter()
                .map(|t| {
                    if t.dim() == 0 {
                        return (*t).clone();
                    }
                    let offset = t.read().layout.offset;
                    with_layout(
                        t,
                        Layout {
                            shape: SmallVec::from_slice(&[numel]),
                            strides: SmallVec::from_slice(&[1]),
                            offset,
                        },
                    )
                })
                .collect();
            let refs: SmallVec<[&Tensor; 3]> = flat.iter().collect();
            let out = kernel(&refs, &[numel])?;
            let d = out.read().layout.clone();
            if d.shape[..] != [numel] || !d.is_contiguous() {
                return plain(); // (no kernel returns such: computed as before)
            }
            Ok(with_layout(
                &out,
                Layout {
                    shape: SmallVec::from_slice(shape),
                    strides,
                    offset: d.offset,
                },
            ))
        }
        Order::Permuted(perm) => {
            let n = shape.len();
            let permuted: Vec<Tensor> = ops
                .iter()
                .map(|t| {
                    let l = t.read().layout.clone();
                    if l.shape.is_empty() {
                        return (*t).clone();
                    }
                    let pad = n - l.shape.len();
                    let full = |d: usize| {
                        if d < pad {
                            (1, 0)
                        } else {
                            (l.shape[d - pad], l.strides[d - pad])
                        }
                    };
                    with_layout(
                        t,
                        Layout {
                            shape: perm.iter().map(|&d| full(d).0).collect(),
                            strides: perm.iter().map(|&d| full(d).1).collect(),
                            offset: l.offset,
                        },
                    )
                })
                .collect();
            let pshape: SmallVec<[usize; 4]> = perm.iter().map(|&d| shape[d]).collect();
            let refs: SmallVec<[&Tensor; 3]> = permuted.iter().collect();
            let out = kernel(&refs, &pshape)?;
            let d = out.read().layout.clone();
            if d.shape[..] != pshape[..] || !d.is_contiguous() {
                return plain(); // (no kernel returns such: computed as before)
            }
            let rm = Layout::contiguous(&pshape).strides;
            let mut strides: SmallVec<[isize; 4]> = SmallVec::from_elem(0, n);
            for (j, &p) in perm.iter().enumerate() {
                strides[p] = rm[j];
            }
            Ok(with_layout(
                &out,
                Layout {
                    shape: SmallVec::from_slice(shape),
                    strides,
                    offset: d.offset,
                },
            ))
        }
    }
}
