//! Vector norms (p = 1, 2) of float32 / float64 tensors in ATen's CPU order, so that they are
//! bit-equal to PyTorch's on the same machine (Note [Norm order]).
//!
//! Note [Norm order]
//! `linalg_vector_norm` (aten/src/ATen/native/LinearAlgebra.cpp) takes `abs` when every
//! reduced dim has size 1, else runs `norm_stub` (aten/src/ATen/native/cpu/ReduceOpsKernel.cpp)
//! on a reduction `TensorIterator` (the one `cascade.rs`'s `ReduceIter` repeats). Its
//! accumulator is `opmath_type<T>`: float32 adds in float32. Two orders:
//! - p = 2 over one coalesced reduced dim that is the iterator's first and reads contiguous
//!   memory (`is_reduce_lastdim`): each output row in `Vectorized` lanes (8 float32, 4 float64:
//!   the AVX2 kernel, since `REGISTER_DISPATCH` leaves the AVX-512 slot empty), `acc += x * x`
//!   with the product rounded, the lanes then summed into lane 0 in order, then the tail of
//!   fewer than a vector added in order. The tail's loop is what GCC made of
//!   `buffer[0] += x * x`: float32 runs of 4 with rounded products (an in-order vectorized
//!   reduction), then one fused multiply-add per element left; float64 one fused multiply-add
//!   per element. `sqrt` in the element type.
//! - otherwise `binary_kernel_reduce` with `NormOneOps` (`acc + |x|`) / `NormTwoOps`
//!   (`acc + x * x`, rounded product): each output's reduced elements in the iterator's order
//!   (its dim 0 fastest), one at a time; a single output of at least `GRAIN` elements under
//!   several threads sums `at::parallel_for`'s chunks into a slot each, then the slots in order.
//!
//! `tests/test_norm_order.py` checks both against torch (rows of every tail length, strided,
//! permuted and multi-dim reductions, one and two threads).

use super::cascade::{omp_chunks, ReduceIter, GRAIN};
use super::parallel::{for_each_index, num_threads};
use super::Src;
use crate::tensor::layout::Layout;

/// A float type of ATen's norm kernels (its own accumulator).
pub trait NormFloat:
    Copy
    + Send
    + Sync
    + PartialEq
    + std::ops::Add<Output = Self>
    + std::ops::Mul<Output = Self>
    + 'static
{
    const ZERO: Self;
    /// `Vectorized<T>::size()` of the AVX2 kernel.
    const LANES: usize;
    /// The length of the tail's runs with rounded products (0: none).
    const TAIL_RUN: usize;
    fn abs(self) -> Self;
    fn sqrt(self) -> Self;
    fn mul_add(self, a: Self, b: Self) -> Self;
}

impl NormFloat for f32 {
    const ZERO: f32 = 0.0;
    const LANES: usize = 8;
    const TAIL_RUN: usize = 4;
    fn abs(self) -> f32 {
        f32::abs(self)
    }
    fn sqrt(self) -> f32 {
        f32::sqrt(self)
    }
    fn mul_add(self, a: f32, b: f32) -> f32 {
        f32::mul_add(self, a, b)
    }
}

impl NormFloat for f64 {
    const ZERO: f64 = 0.0;
    const LANES: usize = 4;
    const TAIL_RUN: usize = 0;
    fn abs(self) -> f64 {
        f64::abs(self)
    }
    fn sqrt(self) -> f64 {
        f64::sqrt(self)
    }
    fn mul_add(self, a: f64, b: f64) -> f64 {
        f64::mul_add(self, a, b)
    }
}

/// The vectorized p = 2 row (`norm_kernel_tensor_iterator_impl`'s fast path), before `sqrt`.
fn lastdim_sum_sq<T: NormFloat>(row: &[T]) -> T {
    let w = T::LANES;
    let mut acc = [T::ZERO; 8];
    let full = row.len() - row.len() % w;
    for chunk in row[..full].chunks_exact(w) {
        for (a, &x) in acc.iter_mut().zip(chunk) {
            *a = *a + x * x;
        }
    }
    let mut b = acc[0];
    for &a in &acc[1..w] {
        b = b + a;
    }
    let tail = &row[full..];
    let runs = if T::TAIL_RUN == 0 {
        0
    } else {
        tail.len() - tail.len() % T::TAIL_RUN
    };
    for &x in &tail[..runs] {
        b = b + x * x;
    }
    for &x in &tail[runs..] {
        b = x.mul_add(x, b);
    }
    b
}

/// `binary_kernel_reduce`'s `reduce` of one element.
#[inline(always)]
fn step<T: NormFloat>(two: bool, acc: T, x: T) -> T {
    if two {
        acc + x * x
    } else {
        acc + x.abs()
    }
}

/// The elements `[begin, end)` of the reduced block at `base` (dims `0..nred` of `it`, dim 0
/// fastest), folded into `acc`.
///
/// # Safety
/// Every offset the iterator reaches from `base` is inside the input.
#[allow(clippy::needless_range_loop)] // the iterator's dims, index for index
unsafe fn fold_block<T: NormFloat>(
    it: &ReduceIter,
    nred: usize,
    base: *const T,
    begin: usize,
    end: usize,
    two: bool,
    mut acc: T,
) -> T {
    let mut idx = vec![0usize; nred];
    let mut rem = begin;
    for d in 0..nred {
        idx[d] = rem % it.shape[d];
        rem /= it.shape[d];
    }
    let mut off: isize = (0..nred).map(|d| idx[d] as isize * it.inp[d]).sum();
    for _ in begin..end {
        acc = step(two, acc, *base.offset(off));
        // Next index, dim 0 fastest.
        for d in 0..nred {
            idx[d] += 1;
            off += it.inp[d];
            if idx[d] < it.shape[d] {
                break;
            }
            off -= it.shape[d] as isize * it.inp[d];
            idx[d] = 0;
        }
    }
    acc
}

/// PyTorch's CPU `linalg.vector_norm(x, p, dims, keepdim)` for p = 1 or 2 (`two`) of the
/// view `layout` of `src` over `dims` (sorted, unique, at least one of size > 1, none empty):
/// the values in the row-major order of the kept dims (Note [Norm order]).
pub fn vector_norm<T: NormFloat>(
    src: &[T],
    layout: &Layout,
    dims: &[usize],
    keepdim: bool,
    two: bool,
) -> Vec<T> {
    let outs: usize = (0..layout.ndim())
        .filter(|d| !dims.contains(d))
        .map(|d| layout.shape[d])
        .product();
    let mut out = vec![T::ZERO; outs];
    if layout.numel() == 0 {
        return out;
    }
    let it = ReduceIter::new(layout, dims, keepdim);
    let nd = it.shape.len();
    // The reduced dims come first in the iterator (output stride 0).
    let nred = it.out.iter().take_while(|&&s| s == 0).count();
    let red: usize = it.shape[..nred].iter().product();
    let kept = &it.shape[nred..];
    let project = |acc: T| if two { acc.sqrt() } else { acc };
    let lastdim = two && nred == 1 && it.shape[0] > 1 && it.inp[0] == 1;
    // SAFETY: the layout is a view of `src`: every offset the iterator reaches is inside it.
    let inp = unsafe { src.as_ptr().add(layout.offset) };
    let src_ptr = Src(inp);
    let threads = num_threads();
    if outs == 1 && !lastdim && red >= GRAIN && threads > 1 {
        // binary_kernel_reduce's parallel branch: a slot per thread, then the slots in order.
        let chunks = omp_chunks(red, GRAIN, threads);
        let mut slots = vec![T::ZERO; chunks.len()];
        let slot_ptr = Dst(slots.as_mut_ptr());
        for_each_index(chunks.len(), |c| {
            let (b, e) = chunks[c];
            // SAFETY: each chunk writes its own slot; the reads stay inside the view.
            unsafe {
                *slot_ptr.get().add(c) = fold_block(&it, nred, src_ptr.get(), b, e, two, T::ZERO);
            }
        });
        let total = slots.into_iter().fold(T::ZERO, |a, b| a + b);
        out[0] = project(total);
        return out;
    }
    // Each output: its base offset from the kept dims' index (row-major output order).
    let mut idx = vec![0usize; nd - nred];
    let mut o_off: isize = 0;
    let mut i_off: isize = 0;
    for _ in 0..outs {
        // SAFETY: the offsets stay inside the view and the contiguous output.
        unsafe {
            let base = inp.offset(i_off);
            let acc = if lastdim {
                lastdim_sum_sq(std::slice::from_raw_parts(base, it.shape[0]))
            } else {
                fold_block(&it, nred, base, 0, red, two, T::ZERO)
            };
            out[o_off as usize] = project(acc);
        }
        for (k, d) in (nred..nd).enumerate() {
            idx[k] += 1;
            o_off += it.out[d];
            i_off += it.inp[d];
            if idx[k] < kept[k] {
                break;
            }
            o_off -= kept[k] as isize * it.out[d];
            i_off -= kept[k] as isize * it.inp[d];
            idx[k] = 0;
        }
    }
    out
}

/// Raw output pointer handed to the threads of one norm (each writes its own slot).
struct Dst<T>(*mut T);
// SAFETY: the threads write disjoint slots of a buffer that outlives `for_each_index`.
unsafe impl<T> Sync for Dst<T> {}
impl<T> Dst<T> {
    fn get(&self) -> *mut T {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(shape: &[usize]) -> Layout {
        Layout::contiguous(shape)
    }

    /// Exact inputs (small integers): every order gives the same values.
    #[test]
    fn exact_values() {
        let x: Vec<f32> = (0..60).map(|i| (i % 7) as f32 - 3.0).collect();
        let l = layout(&[6, 10]);
        let rows = vector_norm::<f32>(&x, &l, &[1], false, true);
        let cols = vector_norm::<f32>(&x, &l, &[0], false, false);
        for r in 0..6 {
            let s: f32 = x[r * 10..r * 10 + 10].iter().map(|v| v * v).sum();
            assert_eq!(rows[r], s.sqrt());
        }
        for c in 0..10 {
            let s: f32 = (0..6).map(|r| x[r * 10 + c].abs()).sum();
            assert_eq!(cols[c], s);
        }
    }

    /// The fast path's tail: runs of 4 with rounded products, then fused multiply-adds.
    #[test]
    fn lastdim_tail_order() {
        let row: Vec<f32> = (0..15).map(|i| 1.0 + i as f32 * 1e-3).collect();
        let mut acc = [0f32; 8];
        for (i, a) in acc.iter_mut().enumerate() {
            *a = row[i] * row[i];
        }
        let mut b = acc.iter().skip(1).fold(acc[0], |s, &a| s + a);
        for &x in &row[8..12] {
            b += x * x;
        }
        for &x in &row[12..] {
            b = x.mul_add(x, b);
        }
        assert_eq!(lastdim_sum_sq(&row), b);
    }
}
