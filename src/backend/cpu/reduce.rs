//! Sums along axes. float32 accumulates in float64, so long sums stay accurate.

use super::copy::{contiguous_cow, gather_contiguous};
use super::parallel::{map_chunks, map_chunks_by};
use crate::tensor::element::Element;
use crate::tensor::layout::Layout;

/// An element type with an accumulator type for sums.
pub trait Summable: Element {
    type Acc: Element
        + std::ops::Add<Output = Self::Acc>
        + std::ops::Mul<Output = Self::Acc>
        + Send
        + Sync;
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
    map_chunks(x.len(), |r| sum_serial::<T>(&x[r]))
        .into_iter()
        .fold(T::Acc::default(), |a, b| a + b)
}

/// Sum of a contiguous float16 slice in float64, as `sum_slice` of its float32 values: each
/// run widens on the stack (`f16c`) instead of a float32 copy of the whole tensor. The float64
/// sums of half values are exact until past 2^29, so the order of adds does not show.
pub fn sum_half(x: &[half::f16]) -> f64 {
    const RUN: usize = 512;
    map_chunks(x.len(), |r| {
        let mut buf = [0f32; RUN];
        x[r].chunks(RUN)
            .map(|run| {
                let b = &mut buf[..run.len()];
                super::f16c::widen(run, b);
                sum_serial::<f32>(b)
            })
            .sum::<f64>()
    })
    .into_iter()
    .sum()
}

/// Independent accumulators in `sum_serial`: 32 f64 lanes are eight 4-wide AVX2 add chains,
/// enough to hide the add latency so a long sum runs at memory speed (8 lanes, two chains,
/// ran at about half of it).
const LANES: usize = 32;

/// `sum_slice` on the calling thread, compiled with AVX2 where the CPU has it (`with_fma`; the
/// lanes fix the order of the adds, so the result does not depend on the vector width).
pub fn sum_serial<T: Summable>(x: &[T]) -> T::Acc {
    super::with_fma(|| sum_lanes(x))
}

#[inline(always)]
fn sum_lanes<T: Summable>(x: &[T]) -> T::Acc {
    let mut acc = [T::Acc::default(); LANES];
    let chunks = x.chunks_exact(LANES);
    let rest = chunks.remainder();
    for c in chunks {
        for i in 0..LANES {
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

/// Dot product of two equal-length contiguous float64 slices, in independent lanes.
pub fn dot_f64(a: &[f64], b: &[f64]) -> f64 {
    map_chunks(a.len(), |r| dot_lanes_f64(&a[r.clone()], &b[r]))
        .into_iter()
        .sum()
}

fn dot_lanes_f64(a: &[f64], b: &[f64]) -> f64 {
    let mut acc = [0f64; LANES];
    let (ca, cb) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let tail: f64 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for i in 0..LANES {
            acc[i] += x[i] * y[i];
        }
    }
    acc.iter().sum::<f64>() + tail
}

/// Elements a float32 dot sums in float32 lanes (16 per lane) before it moves the partial sums
/// into float64: so few that they lose almost nothing, so many that the float64 adds cost
/// little beside the float32 multiply-adds.
const DOT_BLOCK: usize = 16 * LANES;

/// Dot product of two equal-length contiguous float32 slices, blocked: each block of
/// `DOT_BLOCK` is summed in 32 float32 lanes, the blocks in float64. A single float32
/// accumulator (a 1 x n gemm) loses digits by n = 1000; this stays within a few ulps of the
/// exact value at any length, and runs as fast (AVX2 where the CPU has it).
pub fn dot_f32(a: &[f32], b: &[f32]) -> f64 {
    map_chunks(a.len(), |r| {
        let (a, b) = (&a[r.clone()], &b[r]);
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has the feature the loop is compiled for.
            return unsafe { dot_f32_avx2(a, b) };
        }
        dot_blocks_f32(a, b)
    })
    .into_iter()
    .sum()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn dot_f32_avx2(a: &[f32], b: &[f32]) -> f64 {
    dot_blocks_f32(a, b)
}

#[inline(always)]
fn dot_blocks_f32(a: &[f32], b: &[f32]) -> f64 {
    let mut wide = [0f64; LANES];
    let (ba, bb) = (a.chunks(DOT_BLOCK), b.chunks(DOT_BLOCK));
    for (x, y) in ba.zip(bb) {
        let mut acc = [0f32; LANES];
        let (cx, cy) = (x.chunks_exact(LANES), y.chunks_exact(LANES));
        let tail: f64 = cx
            .remainder()
            .iter()
            .zip(cy.remainder())
            .map(|(p, q)| (p * q) as f64)
            .sum();
        for (p, q) in cx.zip(cy) {
            for i in 0..LANES {
                acc[i] += p[i] * q[i];
            }
        }
        for i in 0..LANES {
            wide[i] += acc[i] as f64;
        }
        wide[0] += tail;
    }
    wide.iter().sum()
}

/// Sum over `dims` (sorted, unique). Returns the values in the row-major order of the
/// remaining dims.
pub fn sum_dims<T: Summable>(src: &[T], layout: &Layout, dims: &[usize]) -> Vec<T> {
    // Broadcast (stride-0) reduced dims repeat one value (a gradient expanded by sum's or
    // mean's backward): sum the rest with them at size 1, then scale, instead of reading
    // every repeat.
    let repeats: usize = dims
        .iter()
        .filter(|&&d| layout.strides[d] == 0)
        .map(|&d| layout.shape[d])
        .product();
    if repeats > 1 {
        let mut once = layout.clone();
        for &d in dims.iter().filter(|&&d| layout.strides[d] == 0) {
            once.shape[d] = 1;
        }
        let rest: Vec<usize> = dims
            .iter()
            .copied()
            .filter(|&d| once.shape[d] > 1)
            .collect();
        let part = if rest.is_empty() {
            gather_contiguous(src, &once)
        } else {
            sum_dims(src, &once, &rest)
        };
        let k = T::Acc::from_f64(repeats as f64);
        return part.into_iter().map(|v| T::narrow(v.widen() * k)).collect();
    }
    if dims.len() == layout.ndim() {
        let x = contiguous_cow(src, layout);
        return vec![T::narrow(sum_slice(&x))];
    }
    // Reduced dims that are one block [d0, d1) of a contiguous tensor with kept dims after it
    // (a bias gradient: sum over the batch): add whole rows into column accumulators instead
    // of gathering a transposed copy.
    let (d0, d1) = (dims[0], dims[dims.len() - 1] + 1);
    if layout.is_contiguous() && d1 - d0 == dims.len() && d1 < layout.ndim() {
        let shape = &layout.shape;
        let outer: usize = shape[..d0].iter().product();
        let red: usize = shape[d0..d1].iter().product();
        let inner: usize = shape[d1..].iter().product();
        let x = &src[layout.offset..layout.offset + outer * red * inner];
        return sum_columns(x, outer, red, inner);
    }
    // Reduced dims at the end of a contiguous tensor and others before them (a convolution's
    // bias gradient, [N, O, L] over N and L): sum the trailing runs in place first, then the
    // rest of the (smaller) result, instead of gathering a permuted copy of the whole tensor.
    let nd = layout.ndim();
    let tail = (0..dims.len())
        .rev()
        .take_while(|&i| dims[i] == nd - dims.len() + i)
        .count();
    if layout.is_contiguous() && tail > 0 && tail < dims.len() {
        let (lead, trailing) = dims.split_at(dims.len() - tail);
        let rows = reduce_rows(src, layout, trailing, |c| T::narrow(sum_serial::<T>(c)));
        return sum_dims(
            &rows,
            &Layout::contiguous(&layout.shape[..trailing[0]]),
            lead,
        );
    }
    reduce_rows(src, layout, dims, |c| T::narrow(sum_serial::<T>(c)))
}

/// `x` viewed as [outer, red, inner]: the sums over `red`, as [outer, inner]. Columns are split
/// across threads; each accumulates in `T::Acc`, row by row (so the inner loop vectorizes).
fn sum_columns<T: Summable>(x: &[T], outer: usize, red: usize, inner: usize) -> Vec<T> {
    if inner == 0 {
        return Vec::new();
    }
    let mut out = Vec::with_capacity(outer * inner);
    for o in 0..outer {
        let block = &x[o * red * inner..(o + 1) * red * inner];
        let parts = map_chunks_by(inner, red, |cols| {
            let mut acc = vec![T::Acc::default(); cols.len()];
            for row in block.chunks_exact(inner) {
                for (a, &v) in acc.iter_mut().zip(&row[cols.clone()]) {
                    *a = *a + v.widen();
                }
            }
            acc
        });
        out.extend(parts.into_iter().flatten().map(T::narrow));
    }
    out
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
    map_chunks_by(outs, run, |rows| {
        x[rows.start * run..rows.end * run]
            .chunks(run)
            .map(&f)
            .collect::<Vec<U>>()
    })
    .into_iter()
    .flatten()
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Column sums (leading or middle dims) agree with a plain loop, empty shapes included.
    #[test]
    fn sum_dims_matches_naive() {
        for (shape, dims) in [
            (vec![3usize, 5], vec![0usize]),
            (vec![4, 3, 70_000], vec![1]),
            (vec![2, 3, 4], vec![0, 1]),
            (vec![2, 0], vec![0]),
            (vec![0, 3], vec![0]),
            (vec![3, 4, 50], vec![0, 2]),
            (vec![2, 3, 4, 5], vec![0, 2, 3]),
        ] {
            let n: usize = shape.iter().product();
            let x: Vec<f32> = (0..n).map(|i| ((i * 7919) % 101) as f32 * 0.25).collect();
            let layout = Layout::contiguous(&shape);
            let got = sum_dims(&x, &layout, &dims);
            let want = super::super::reference_sum(&x, &shape, &dims);
            assert_eq!(got, want, "shape {shape:?} dims {dims:?}");
        }
    }

    /// Sums over broadcast (stride-0) dims equal the sums of the materialized tensor.
    #[test]
    fn sum_dims_over_broadcast_dims() {
        let x: Vec<f32> = vec![0.5, 1.25, -2.0, 3.0];
        // [3, 4] read from one row of 4 (stride 0 over rows), and [4, 5] from one column.
        let rows = Layout {
            shape: vec![3, 4].into(),
            strides: vec![0, 1].into(),
            offset: 0,
        };
        let cols = Layout {
            shape: vec![4, 5].into(),
            strides: vec![1, 0].into(),
            offset: 0,
        };
        assert_eq!(sum_dims(&x, &rows, &[0]), vec![1.5, 3.75, -6.0, 9.0]);
        assert_eq!(sum_dims(&x, &rows, &[0, 1]), vec![8.25]);
        assert_eq!(sum_dims(&x, &rows, &[1]), vec![2.75; 3]);
        assert_eq!(sum_dims(&x, &cols, &[1]), vec![2.5, 6.25, -10.0, 15.0]);
        assert_eq!(sum_dims(&x, &cols, &[0, 1]), vec![13.75]);
    }
}
