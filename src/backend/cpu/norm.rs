//! Batch normalization's host kernels in ATen's CPU order of operations
//! (`batch_norm_kernel.cpp`, `Normalization.cpp`), so float32 and float64 results equal
//! PyTorch's bit for bit: the statistics' accumulation types and summation order, the
//! per-thread partial sums of its channels-last reduction, and the multiply-adds its build
//! contracts into fused ones (measured against torch 2.13: `x * alpha + beta`, `beta = b -
//! mean * alpha` and the per-thread `acc + d * d` are each one rounding; the running
//! statistics' updates and a float32 `(x - mean)^2` added to a double accumulator are not).
//!
//! Two layouts, as ATen's: "planes" (contiguous `[N, C, *]` with more than one element per
//! plane: one channel's elements are `N` runs of `img`) and "rows" (channels last, or
//! `[N, C]`: `rows` rows of `C`).

use super::parallel::{for_each_index, for_rows_mut};
use super::with_fma;
use std::ops::{Add, Div, Mul, Neg, Sub};

/// The element types the kernels run in (float32, float64); both accumulate in float64,
/// ATen's `acc_type` on the CPU.
pub trait NormFloat:
    Copy
    + Send
    + Sync
    + PartialEq
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + 'static
{
    const ZERO: Self;
    const ONE: Self;
    /// `self * a + b` rounded once.
    fn fma(self, a: Self, b: Self) -> Self;
    fn f64(self) -> f64;
    fn of(v: f64) -> Self;
    fn sqrt(self) -> Self;
    /// ATen's `acc += (x - mean) * (x - mean)` into a double accumulator: float32's product
    /// is rounded before the (double) add; float64's multiply-add is one fused operation.
    fn acc_sq(self, acc: f64) -> f64;
}

impl NormFloat for f32 {
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
    #[inline]
    fn fma(self, a: f32, b: f32) -> f32 {
        self.mul_add(a, b)
    }
    #[inline]
    fn f64(self) -> f64 {
        self as f64
    }
    #[inline]
    fn of(v: f64) -> f32 {
        v as f32
    }
    #[inline]
    fn sqrt(self) -> f32 {
        f32::sqrt(self)
    }
    #[inline]
    fn acc_sq(self, acc: f64) -> f64 {
        acc + (self * self) as f64
    }
}

impl NormFloat for f64 {
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
    #[inline]
    fn fma(self, a: f64, b: f64) -> f64 {
        self.mul_add(a, b)
    }
    #[inline]
    fn f64(self) -> f64 {
        self
    }
    #[inline]
    fn of(v: f64) -> f64 {
        v
    }
    #[inline]
    fn sqrt(self) -> f64 {
        f64::sqrt(self)
    }
    #[inline]
    fn acc_sq(self, acc: f64) -> f64 {
        self.mul_add(self, acc)
    }
}

/// Per-channel `(mean, sum of squared deviations)` of contiguous `[n_batch, c, img]`
/// (`batch_norm_cpu_collect_stats_contiguous_impl`): each channel summed in order in float64,
/// the mean rounded to `T`, then the squared deviations from that rounded mean.
pub fn stats_planes<T: NormFloat>(
    x: &[T],
    n_batch: usize,
    c: usize,
    img: usize,
) -> (Vec<T>, Vec<T>) {
    let n = (n_batch * img) as f64;
    let slots: Vec<parking_lot::Mutex<(T, T)>> = (0..c)
        .map(|_| parking_lot::Mutex::new((T::ZERO, T::ZERO)))
        .collect();
    let planes = |ch: usize| (0..n_batch).map(move |b| &x[(b * c + ch) * img..][..img]);
    let one = |ch: usize| {
        let mut sum = 0f64;
        for p in planes(ch) {
            for &v in p {
                sum += v.f64();
            }
        }
        let mean = T::of(sum / n);
        // float64's `acc_sq` is a `mul_add`.
        let var = with_fma(|| {
            let mut var = 0f64;
            for p in planes(ch) {
                for &v in p {
                    var = (v - mean).acc_sq(var);
                }
            }
            var
        });
        *slots[ch].lock() = (mean, T::of(var));
    };
    if x.len() >= super::PAR_THRESHOLD {
        for_each_index(c, one);
    } else {
        (0..c).for_each(one);
    }
    slots.into_iter().map(|m| m.into_inner()).unzip()
}

/// Per-channel `(mean, sum of squared deviations)` of `rows` rows of `c`
/// (`batch_norm_cpu_collect_stats_channels_last_impl`). With more rows than `threads` (ATen's
/// `get_num_threads()`), the rows are cut as its `parallel_for` cuts them (`threads` chunks of
/// `ceil(rows / threads)`), each chunk summed in `T` (the squares fused into the sum), and the
/// chunks' sums added in float64; otherwise each channel is summed in order in float64.
pub fn stats_rows<T: NormFloat>(
    x: &[T],
    rows: usize,
    c: usize,
    threads: usize,
) -> (Vec<T>, Vec<T>) {
    let n = rows as f64;
    if rows <= threads {
        let mut mean = vec![T::ZERO; c];
        let mut var = vec![T::ZERO; c];
        for ch in 0..c {
            let sum: f64 = (0..rows).fold(0.0, |s, r| s + x[r * c + ch].f64());
            let m = T::of(sum / n);
            let v = (0..rows).fold(0.0, |s, r| (x[r * c + ch] - m).acc_sq(s));
            mean[ch] = m;
            var[ch] = T::of(v);
        }
        return (mean, var);
    }
    let chunk = rows.div_ceil(threads);
    let partials = |f: &(dyn Fn(&mut [T], &[T]) + Sync)| -> Vec<f64> {
        let slots: Vec<parking_lot::Mutex<Vec<T>>> = (0..threads)
            .map(|_| parking_lot::Mutex::new(Vec::new()))
            .collect();
        let one = |t: usize| {
            let mut acc = vec![T::ZERO; c];
            let (lo, hi) = (t * chunk, ((t + 1) * chunk).min(rows));
            for r in lo..hi {
                f(&mut acc, &x[r * c..][..c]);
            }
            *slots[t].lock() = acc;
        };
        if x.len() >= super::PAR_THRESHOLD {
            for_each_index(threads, one);
        } else {
            (0..threads).for_each(one);
        }
        let parts: Vec<Vec<T>> = slots.into_iter().map(|m| m.into_inner()).collect();
        (0..c)
            .map(|ch| parts.iter().fold(0f64, |s, p| s + p[ch].f64()))
            .collect()
    };
    let sums = partials(&|acc, row| {
        acc.iter_mut().zip(row).for_each(|(a, &v)| *a = *a + v);
    });
    let mean: Vec<T> = sums.iter().map(|&s| T::of(s / n)).collect();
    let vars = partials(&|acc, row| {
        with_fma(|| {
            acc.iter_mut()
                .zip(row)
                .zip(&mean)
                .for_each(|((a, &v), &m)| *a = (v - m).fma(v - m, *a))
        });
    });
    (mean, vars.into_iter().map(T::of).collect())
}

/// The saved statistics and the running statistics' update
/// (`batch_norm_cpu_update_stats_template`): `invstd = 1 / sqrt(var_sum / n + eps)` with the
/// division in `T` and the rest in float64 (0 when both are 0); the running mean
/// `m * mean + (1 - m) * rm` in `T`; the running variance `m * unbiased + (1 - m) * rv` with
/// the unbiased variance `var_sum / (n - 1)` in `T` then widened, so float32's first product
/// is exact in float64, the second rounded in `T`, their sum in float64.
#[allow(clippy::too_many_arguments)]
pub fn finish_stats<T: NormFloat>(
    mean: &[T],
    var_sum: &[T],
    n: usize,
    eps: f64,
    momentum: f64,
    running_mean: Option<&mut [T]>,
    running_var: Option<&mut [T]>,
) -> Vec<T> {
    let invstd = var_sum
        .iter()
        .map(|&vs| {
            let var = (vs / T::of(n as f64)).f64();
            if var == 0.0 && eps == 0.0 {
                T::ZERO
            } else {
                T::of(1.0 / (var + eps).sqrt())
            }
        })
        .collect();
    let m = T::of(momentum);
    if let Some(rm) = running_mean {
        for (r, &mu) in rm.iter_mut().zip(mean) {
            *r = m * mu + (T::ONE - m) * *r;
        }
    }
    if let Some(rv) = running_var {
        for (r, &vs) in rv.iter_mut().zip(var_sum) {
            let unbiased = (vs / T::of(n as f64 - 1.0)).f64();
            *r = T::of(m.f64() * unbiased + ((T::ONE - m) * *r).f64());
        }
    }
    invstd
}

/// `alpha = invstd * w`, `beta = b - mean * alpha` per channel
/// (`batch_norm_cpu_collect_linear_and_constant_terms`); in evaluation `invstd` comes from the
/// running variance, `1 / sqrt(rv + eps)` in `T`.
pub fn linear_terms<T: NormFloat>(
    mean: &[T],
    invstd: &[T],
    weight: Option<&[T]>,
    bias: Option<&[T]>,
) -> (Vec<T>, Vec<T>) {
    (0..mean.len())
        .map(|ch| {
            let w = weight.map_or(T::ONE, |w| w[ch]);
            let b = bias.map_or(T::ZERO, |b| b[ch]);
            let alpha = invstd[ch] * w;
            (alpha, (-mean[ch]).fma(alpha, b))
        })
        .unzip()
}

/// `1 / sqrt(rv + eps)` in `T`, evaluation's inverse deviation.
pub fn eval_invstd<T: NormFloat>(running_var: &[T], eps: f64) -> Vec<T> {
    running_var
        .iter()
        .map(|&v| T::ONE / (v + T::of(eps)).sqrt())
        .collect()
}

/// `x * alpha[c] + beta[c]` over contiguous `[n_batch, c, img]` planes.
pub fn transform_planes<T: NormFloat>(
    x: &[T],
    c: usize,
    img: usize,
    alpha: &[T],
    beta: &[T],
) -> Vec<T> {
    let mut out = vec![T::ZERO; x.len()];
    let img = img.max(1);
    let body = |i: usize, o: &mut [T]| {
        let ch = i % c;
        let (a, b) = (alpha[ch], beta[ch]);
        with_fma(|| {
            o.iter_mut()
                .zip(&x[i * img..][..img])
                .for_each(|(o, &v)| *o = v.fma(a, b))
        });
    };
    for_rows_mut(&mut out, img, body);
    out
}

/// `x * alpha + beta` over rows of `c` channels.
pub fn transform_rows<T: NormFloat>(x: &[T], c: usize, alpha: &[T], beta: &[T]) -> Vec<T> {
    let mut out = vec![T::ZERO; x.len()];
    let body = |i: usize, o: &mut [T]| {
        with_fma(|| {
            o.iter_mut()
                .zip(&x[i * c..][..c])
                .zip(alpha.iter().zip(beta))
                .for_each(|((o, &v), (&a, &b))| *o = v.fma(a, b))
        });
    };
    for_rows_mut(&mut out, c.max(1), body);
    out
}

/// Welford's running moments of `L` lanes (ATen's `AddMomentsVec`): the moments of `m0_add`
/// more values merged into `(m0, m1, m2)`, the products fused as ATen's build fuses them.
#[inline]
fn add_moments<T: NormFloat, const L: usize>(
    m0_add: usize,
    m1_add: &[T; L],
    m2_add: &[T; L],
    m0: &mut usize,
    m1: &mut [T; L],
    m2: &mut [T; L],
) {
    let n = *m0 + m0_add;
    let c = if n == 0 {
        T::ZERO
    } else {
        T::of(m0_add as f64) / T::of(n as f64)
    };
    let k = T::of(*m0 as f64);
    for l in 0..L {
        let delta = m1_add[l] - m1[l];
        m1[l] = c.fma(delta, m1[l]);
        m2[l] = m2[l] + (delta * delta * c).fma(k, m2_add[l]);
    }
    *m0 = n;
}

/// A row's `(mean, biased variance)` as ATen's `RowwiseMoments` (`moments_utils.h`): `L`-lane
/// Welford over chunks of 16 vectors, the chunks merged by a cascade (pairwise), the tail
/// past the last whole vector by a scalar Welford, then the lanes merged into it in order.
/// `L` is the lane count of PyTorch's 256-bit vectors (8 float32, 4 float64), which its
/// layer norm runs with (measured against torch 2.13 on an AVX-512 machine).
#[inline(always)]
pub fn row_moments<T: NormFloat, const L: usize>(x: &[T]) -> (T, T) {
    const CHUNK: usize = 16;
    let len = x.len();
    let n = len / L;
    let m = n.div_ceil(CHUNK);
    // ATen's `CeilLog2`: 1 up to 2.
    let depth = if m <= 2 {
        1
    } else {
        (usize::BITS - (m - 1).leading_zeros()) as usize
    };
    let mut m0s = vec![0usize; depth];
    let mut m1s = vec![[T::ZERO; L]; depth];
    let mut m2s = vec![[T::ZERO; L]; depth];
    for i in 0..m {
        let base = &x[i * CHUNK * L..];
        let count = CHUNK.min(n - i * CHUNK);
        let (mut m1v, mut m2v) = ([T::ZERO; L], [T::ZERO; L]);
        for j in 0..count {
            let c = T::ONE / T::of((j + 1) as f64);
            let v = &base[j * L..][..L];
            for l in 0..L {
                let delta = v[l] - m1v[l];
                m1v[l] = delta.fma(c, m1v[l]);
                m2v[l] = delta.fma(v[l] - m1v[l], m2v[l]);
            }
        }
        add_moments(count, &m1v, &m2v, &mut m0s[0], &mut m1s[0], &mut m2s[0]);
        let mut mask = i + 1;
        let mut j = 1;
        while j < depth && mask & 1 == 0 {
            let (lo, hi) = (j - 1, j);
            let (a0, a1, a2) = (m0s[lo], m1s[lo], m2s[lo]);
            let (h0, h1, h2) = (&mut m0s[hi], &mut m1s[hi], &mut m2s[hi]);
            let (mut t0, mut t1, mut t2) = (*h0, *h1, *h2);
            add_moments(a0, &a1, &a2, &mut t0, &mut t1, &mut t2);
            (*h0, *h1, *h2) = (t0, t1, t2);
            m0s[lo] = 0;
            m1s[lo] = [T::ZERO; L];
            m2s[lo] = [T::ZERO; L];
            mask >>= 1;
            j += 1;
        }
    }
    for i in 1..depth {
        let (a0, a1, a2) = (m0s[i], m1s[i], m2s[i]);
        let (mut t0, mut t1, mut t2) = (m0s[0], m1s[0], m2s[0]);
        add_moments(a0, &a1, &a2, &mut t0, &mut t1, &mut t2);
        (m0s[0], m1s[0], m2s[0]) = (t0, t1, t2);
    }
    let (mut m0, mut m1, mut m2) = (0usize, [T::ZERO; 1], [T::ZERO; 1]);
    for &v in &x[n * L..] {
        let delta = v - m1[0];
        m0 += 1;
        m1[0] = m1[0] + delta / T::of(m0 as f64);
        m2[0] = delta.fma(v - m1[0], m2[0]);
    }
    for l in 0..L {
        add_moments(n, &[m1s[0][l]], &[m2s[0][l]], &mut m0, &mut m1, &mut m2);
    }
    (m1[0], m2[0] / T::of(len as f64))
}

/// Layer norm of `rows` contiguous rows of `n` (ATen's `LayerNormKernelImplInternal`):
/// each row's moments, `rstd = 1 / sqrt(var + eps)`, and `(x - mean) * rstd * w + b` with
/// the last multiply-add fused; returns `(y, mean, rstd)`.
pub fn layer_norm_rows<T: NormFloat + crate::tensor::element::Element, const L: usize>(
    x: &[T],
    n: usize,
    weight: Option<&[T]>,
    bias: Option<&[T]>,
    eps: f64,
) -> (Vec<T>, Vec<T>, Vec<T>) {
    let rows = x.len().checked_div(n).unwrap_or(0);
    // A pooled buffer: a fresh one of this size is mapped and faulted in page by page.
    let mut out = crate::tensor::pool::filled(x.len(), T::ZERO);
    let stats: Vec<parking_lot::Mutex<(T, T)>> = (0..rows)
        .map(|_| parking_lot::Mutex::new((T::ZERO, T::ZERO)))
        .collect();
    let eps = T::of(eps);
    let body = |i: usize, o: &mut [T]| {
        let row = &x[i * n..][..n];
        *stats[i].lock() = with_fma(|| layer_norm_row::<T, L>(row, o, weight, bias, eps));
    };
    if n > 0 {
        for_rows_mut(&mut out, n, body);
    }
    let (mean, rstd) = stats.into_iter().map(|m| m.into_inner()).unzip();
    (out, mean, rstd)
}

/// One row of `layer_norm_rows`: its `(mean, rstd)`, `o` the normalized row.
#[inline(always)]
fn layer_norm_row<T: NormFloat, const L: usize>(
    row: &[T],
    o: &mut [T],
    weight: Option<&[T]>,
    bias: Option<&[T]>,
    eps: T,
) -> (T, T) {
    let (mean, var) = row_moments::<T, L>(row);
    let rstd = T::ONE / (var + eps).sqrt();
    for (j, (o, &v)) in o.iter_mut().zip(row).enumerate() {
        let w = weight.map_or(T::ONE, |w| w[j]);
        let b = bias.map_or(T::ZERO, |b| b[j]);
        *o = ((v - mean) * rstd).fma(w, b);
    }
    (mean, rstd)
}

/// The gradients of `layer_norm_rows` (ATen's `LayerNormBackwardKernelImplInternal`) for
/// `rows` contiguous rows of `n`, from the saved per-row `mean` / `rstd`: with `a = rstd`,
/// `ds = Σ dy γ x`, `db = Σ dy γ` over the row, `b = (db mean - ds) a³ / n`,
/// `c = -b mean - db a / n`: `dx = a dy γ + b x + c`; `dγ = Σ dy (a x - a mean)` and
/// `dβ = Σ dy` over the rows, summed per block of rows and the blocks in order (ATen's
/// per-thread buffers). Each output is written only when asked for.
#[allow(clippy::too_many_arguments)]
pub fn layer_norm_backward_rows<T: NormFloat, const L: usize>(
    dy: &[T],
    x: &[T],
    mean: &[T],
    rstd: &[T],
    gamma: Option<&[T]>,
    n: usize,
    dx: Option<&mut [T]>,
    dgamma: Option<&mut [T]>,
    dbeta: Option<&mut [T]>,
) {
    let rows = mean.len();
    if n == 0 || rows == 0 {
        return;
    }
    let (want_g, want_b) = (dgamma.is_some(), dbeta.is_some());
    let threads = super::parallel::num_threads();
    let blocks = if rows * n >= 1 << 15 && threads > 1 {
        (threads * 4).min(rows)
    } else {
        1
    };
    let bound = |i: usize| i * rows / blocks;
    let dx_parts = dx.map(super::parallel::Parts::new);
    let partial_len = n * (want_g as usize + want_b as usize);
    let partials: Vec<parking_lot::Mutex<Vec<T>>> = (0..if partial_len > 0 { blocks } else { 0 })
        .map(|_| parking_lot::Mutex::new(Vec::new()))
        .collect();
    let scale = T::ONE / T::of(n as f64);
    // Under `with_fma` for its AVX2 code generation (nothing here is a multiply-add).
    let body = |blk: usize| {
        with_fma(|| {
            let mut acc = if partial_len > 0 {
                let mut v = crate::tensor::pool::vec_with_capacity(partial_len);
                v.resize(partial_len, T::ZERO);
                v
            } else {
                Vec::new()
            };
            let (acc_g, acc_b) = acc.split_at_mut(if want_g { n } else { 0 });
            for i in bound(blk)..bound(blk + 1) {
                let (dy, x) = (&dy[i * n..][..n], &x[i * n..][..n]);
                let (m, a) = (mean[i], rstd[i]);
                if want_g {
                    let b = -a * m;
                    for j in 0..n {
                        acc_g[j] = acc_g[j] + dy[j] * (a * x[j] + b);
                    }
                }
                if want_b {
                    for j in 0..n {
                        acc_b[j] = acc_b[j] + dy[j];
                    }
                }
                if let Some(parts) = &dx_parts {
                    // SAFETY: each row belongs to one block, so the ranges are disjoint.
                    let out = unsafe { parts.get(i * n..(i + 1) * n) };
                    let (ds, db) = backward_row_sums::<T, L>(dy, x, gamma);
                    let b = (db * m - ds) * a * a * a * scale;
                    let c = -b * m - db * a * scale;
                    match gamma {
                        Some(gamma) => {
                            for (((o, &d), &x), &g) in out.iter_mut().zip(dy).zip(x).zip(gamma) {
                                *o = a * d * g + b * x + c;
                            }
                        }
                        None => {
                            for ((o, &d), &x) in out.iter_mut().zip(dy).zip(x) {
                                *o = a * d + b * x + c;
                            }
                        }
                    }
                }
            }
            if partial_len > 0 {
                *partials[blk].lock() = acc;
            }
        })
    };
    if blocks == 1 {
        body(0);
    } else {
        for_each_index(blocks, body);
    }
    let partials: Vec<Vec<T>> = partials.into_iter().map(|p| p.into_inner()).collect();
    let sum_into = |out: &mut [T], at: usize| {
        out.iter_mut().for_each(|o| *o = T::ZERO);
        for p in &partials {
            for (o, &v) in out.iter_mut().zip(&p[at..at + n]) {
                *o = *o + v;
            }
        }
    };
    if let Some(g) = dgamma {
        sum_into(g, 0);
    }
    if let Some(b) = dbeta {
        sum_into(b, if want_g { n } else { 0 });
    }
}

/// One row's `(Σ dy γ x, Σ dy γ)` (γ = 1 when None) in `L` lanes (ATen's vectorized sums),
/// the tail in the first lanes, then the lanes added in order.
#[inline(always)]
fn backward_row_sums<T: NormFloat, const L: usize>(
    dy: &[T],
    x: &[T],
    gamma: Option<&[T]>,
) -> (T, T) {
    let (mut ds, mut db) = ([T::ZERO; L], [T::ZERO; L]);
    let full = dy.len() / L * L;
    let (dc, xc) = (dy[..full].chunks_exact(L), x[..full].chunks_exact(L));
    match gamma {
        Some(g) => {
            for ((d, x), g) in dc.zip(xc).zip(g[..full].chunks_exact(L)) {
                for l in 0..L {
                    let v = d[l] * g[l];
                    ds[l] = ds[l] + v * x[l];
                    db[l] = db[l] + v;
                }
            }
            for (l, j) in (full..dy.len()).enumerate() {
                let v = dy[j] * g[j];
                ds[l] = ds[l] + v * x[j];
                db[l] = db[l] + v;
            }
        }
        None => {
            for (d, x) in dc.zip(xc) {
                for l in 0..L {
                    ds[l] = ds[l] + d[l] * x[l];
                    db[l] = db[l] + d[l];
                }
            }
            for (l, j) in (full..dy.len()).enumerate() {
                ds[l] = ds[l] + dy[j] * x[j];
                db[l] = db[l] + dy[j];
            }
        }
    }
    ds.iter()
        .zip(&db)
        .fold((T::ZERO, T::ZERO), |(s, d), (&a, &b)| (s + a, d + b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_moments_small_and_long_rows() {
        // Fewer values than a vector: the scalar Welford alone.
        assert_eq!(row_moments::<f64, 4>(&[1.0, 2.0, 3.0]), (2.0, 2.0 / 3.0));
        // Whole vectors, a cascade of chunks and a tail: the exact moments of 0..1000.
        let x: Vec<f64> = (0..1003).map(|i| i as f64).collect();
        let (m, v) = row_moments::<f64, 4>(&x);
        assert!((m - 501.0).abs() < 1e-9);
        assert!((v - (1003.0 * 1003.0 - 1.0) / 12.0).abs() < 1e-6);
        let (y, mean, rstd) =
            layer_norm_rows::<f32, 8>(&[1.0, 3.0, 5.0, 7.0], 2, None, Some(&[1.0, 2.0]), 0.0);
        assert_eq!(y, vec![0.0, 3.0, 0.0, 3.0]);
        assert_eq!((mean, rstd), (vec![2.0, 6.0], vec![1.0, 1.0]));
    }

    #[test]
    fn stats_agree_between_layouts_in_float64() {
        // [2, 3] as rows and as planes of one element: the same statistics.
        let x = [1.0f64, 2.0, 3.0, 5.0, 7.0, 11.0];
        let (m1, v1) = stats_rows(&x, 2, 3, 4);
        let (m2, v2) = stats_planes(&x, 2, 3, 1);
        assert_eq!(m1, vec![3.0, 4.5, 7.0]);
        assert_eq!((m1, v1.clone()), (m2, v2));
        assert_eq!(v1, vec![8.0, 12.5, 32.0]);
        // Chunked (more rows than threads): the same exact values here.
        let (m3, v3) = stats_rows(&x, 2, 3, 1);
        assert_eq!(m3, vec![3.0, 4.5, 7.0]);
        assert_eq!(v3, v1);
    }

    #[test]
    fn transform_and_running_stats() {
        let mean = [1.0f32];
        let mut rm = [0.5f32];
        let mut rv = [2.0f32];
        let inv = finish_stats(&mean, &[4.0], 4, 0.0, 0.5, Some(&mut rm), Some(&mut rv));
        assert_eq!(inv, vec![1.0]);
        assert_eq!(rm, [0.75]);
        // 0.5 * 4/3 + 0.5 * 2
        assert_eq!(rv, [(0.5f64 * (4.0f32 / 3.0) as f64 + 1.0) as f32]);
        let (a, b) = linear_terms(&mean, &inv, Some(&[2.0]), Some(&[1.0]));
        assert_eq!((a.clone(), b.clone()), (vec![2.0], vec![-1.0]));
        assert_eq!(
            transform_rows(&[0.0, 1.0, 2.0], 1, &a, &b),
            vec![-1.0, 1.0, 3.0]
        );
        assert_eq!(
            transform_planes(&[0.0, 1.0, 2.0], 1, 3, &a, &b),
            vec![-1.0, 1.0, 3.0]
        );
        assert_eq!(eval_invstd(&[3.0f32], 1.0), vec![0.5]);
    }
}
