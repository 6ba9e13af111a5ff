//! Sums along axes. float32 accumulates in float64, so long sums stay accurate.

use super::copy::{contiguous_cow, gather_contiguous};
use super::PAR_THRESHOLD;
use crate::tensor::{Element, Layout};
use rayon::prelude::*;

/// An element type with an accumulator type for sums.
pub trait Summable: Element {
    type Acc: Element + std::ops::Add<Output = Self::Acc> + Send + Sync;
    fn widen(self) -> Self::Acc;
    fn narrow(acc: Self::Acc) -> Self;
}

impl Summable for f32 {
    type Acc = f64;
    fn widen(self) -> f64 {
        self as f64
    }
    fn narrow(acc: f64) -> f32 {
        acc as f32
    }
}
impl Summable for f64 {
    type Acc = f64;
    fn widen(self) -> f64 {
        self
    }
    fn narrow(acc: f64) -> f64 {
        acc
    }
}
impl Summable for i64 {
    type Acc = i64;
    fn widen(self) -> i64 {
        self
    }
    fn narrow(acc: i64) -> i64 {
        acc
    }
}

/// Sum of a contiguous slice, with independent accumulators so the loop vectorizes.
pub fn sum_slice<T: Summable>(x: &[T]) -> T::Acc {
    if x.len() >= PAR_THRESHOLD {
        return x
            .par_chunks(PAR_THRESHOLD)
            .map(sum_serial::<T>)
            .reduce(T::Acc::default, |a, b| a + b);
    }
    sum_serial::<T>(x)
}

fn sum_serial<T: Summable>(x: &[T]) -> T::Acc {
    let mut acc = [T::Acc::default(); 8];
    let chunks = x.chunks_exact(8);
    let rest = chunks.remainder();
    for c in chunks {
        for i in 0..8 {
            acc[i] = acc[i] + c[i].widen();
        }
    }
    let mut total = T::Acc::default();
    for a in acc {
        total = total + a;
    }
    for &v in rest {
        total = total + v.widen();
    }
    total
}

/// Sum over `dims` (sorted, unique). Returns the values in the row-major order of the
/// remaining dims.
pub fn sum_dims<T: Summable>(src: &[T], layout: &Layout, dims: &[usize]) -> Vec<T> {
    if dims.len() == layout.ndim() {
        let x = contiguous_cow(src, layout);
        return vec![T::narrow(sum_slice(&x))];
    }
    reduce_rows(src, layout, dims, |c| T::narrow(sum_serial::<T>(c)))
}

/// `f` applied to each run of elements over `dims` (sorted, unique): the reduced dims are
/// moved last so each output reads one contiguous run. Outputs come in the row-major order
/// of the kept dims.
pub fn reduce_rows<T: Element, U: Send>(
    src: &[T],
    layout: &Layout,
    dims: &[usize],
    f: impl Fn(&[T]) -> U + Sync + Send,
) -> Vec<U> {
    let nd = layout.ndim();
    let kept: Vec<usize> = (0..nd).filter(|d| !dims.contains(d)).collect();
    let order: Vec<usize> = kept.iter().chain(dims.iter()).copied().collect();
    let permuted = Layout {
        shape: order.iter().map(|&d| layout.shape[d]).collect(),
        strides: order.iter().map(|&d| layout.strides[d]).collect(),
        offset: layout.offset,
    };
    let run: usize = dims.iter().map(|&d| layout.shape[d]).product();
    let outs: usize = kept.iter().map(|&d| layout.shape[d]).product();
    if run == 0 || outs == 0 {
        return (0..outs).map(|_| f(&[])).collect();
    }
    let x = if permuted.is_contiguous() {
        std::borrow::Cow::Borrowed(&src[layout.offset..layout.offset + outs * run])
    } else {
        std::borrow::Cow::Owned(gather_contiguous(src, &permuted))
    };
    if outs * run >= PAR_THRESHOLD && outs > 1 {
        x.par_chunks(run).map(&f).collect()
    } else {
        x.chunks(run).map(&f).collect()
    }
}
