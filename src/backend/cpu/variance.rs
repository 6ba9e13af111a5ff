//! var / std of float32 / float64 tensors in ATen's CPU order, so that they are bit-equal to
//! PyTorch's on the same machine (Note [Variance order]).
//!
//! Note [Variance order]
//! `std_var_out` (aten/src/ATen/native/ReduceOps.cpp) has two CPU paths:
//! - one output (`result.numel() == 1`): `std_var_all_cpu`: the mean in the tensor's dtype
//!   (`self.mean()`, the cascade sum's), then `at::parallel_reduce` of `(x - mean)^2` in
//!   float64 over a plain iterator of the input (dims by stride, coalesced): a chunk per thread
//!   from `GRAIN` elements on, each summing its `serial_for_each` blocks into a block sum that
//!   it adds to its own; the chunks' sums added in thread order;
//! - several outputs: `std_var_stub`, `binary_kernel_reduce` with `WelfordOps` in float64:
//!   each output's elements in the reduction iterator's order, `delta = x - mean; mean +=
//!   delta / n; m2 += delta * (x - mean)` (products rounded), projected as `m2 / (n -
//!   correction)` (0 when negative), its `sqrt` for std, cast to the dtype.
//!
//! `tests/test_norm_order.py` checks both against torch.

use super::cascade::{omp_chunks, ReduceIter, GRAIN};
use super::parallel::{for_each_index, num_threads};
use super::Src;
use crate::tensor::layout::Layout;

/// A float32 / float64 element read as float64 and written back.
pub trait VarFloat: Copy + Send + Sync + 'static {
    fn to_f64(self) -> f64;
    fn from_f64(v: f64) -> Self;
}
impl VarFloat for f32 {
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn from_f64(v: f64) -> f32 {
        v as f32
    }
}
impl VarFloat for f64 {
    fn to_f64(self) -> f64 {
        self
    }
    fn from_f64(v: f64) -> f64 {
        v
    }
}

fn project(m2: f64, n: f64, correction: f64, take_sqrt: bool) -> f64 {
    let divisor = if n > correction { n - correction } else { 0.0 };
    let var = m2 / divisor;
    if take_sqrt {
        var.sqrt()
    } else {
        var
    }
}

/// `std_var_all_cpu` of the view `layout` of `src` (not empty) around `mean` (the mean in
/// the tensor's dtype, as float64).
pub fn var_all<T: VarFloat>(
    src: &[T],
    layout: &Layout,
    mean: f64,
    correction: f64,
    take_sqrt: bool,
) -> f64 {
    let it = ReduceIter::with_output(layout, vec![0; layout.ndim()]);
    let numel = layout.numel();
    // SAFETY: the layout is a view of `src`: every offset the iterator reaches is inside it.
    let inp = Src(unsafe { src.as_ptr().add(layout.offset) });
    let chunk_sum = |b: usize, e: usize| -> f64 {
        let mut thread_sum = 0.0f64;
        it.for_each_block(b, e, |_, pi, size0, size1| {
            let mut local = 0.0f64;
            for i in 0..size1 {
                for j in 0..size0 {
                    let off = pi
                        + i as isize * it.inp.get(1).copied().unwrap_or(0)
                        + j as isize * it.inp.first().copied().unwrap_or(0);
                    // SAFETY: inside the view (see above).
                    let dx = unsafe { *inp.get().offset(off) }.to_f64() - mean;
                    local += dx * dx;
                }
            }
            thread_sum += local;
        });
        thread_sum
    };
    let threads = num_threads();
    let total = if numel <= GRAIN || threads <= 1 {
        chunk_sum(0, numel)
    } else {
        let chunks = omp_chunks(numel, GRAIN, threads);
        let sums: Vec<std::sync::Mutex<f64>> = (0..chunks.len())
            .map(|_| std::sync::Mutex::new(0.0))
            .collect();
        for_each_index(chunks.len(), |c| {
            let (b, e) = chunks[c];
            *sums[c].lock().unwrap_or_else(|p| p.into_inner()) = chunk_sum(b, e);
        });
        sums.into_iter()
            .map(|m| m.into_inner().unwrap_or_else(|p| p.into_inner()))
            .fold(0.0, |a, b| a + b)
    };
    project(total, numel as f64, correction, take_sqrt)
}

/// `binary_kernel_reduce` with `WelfordOps` of the view `layout` of `src` over `dims`
/// (sorted, unique): the values in the row-major order of the kept dims.
#[allow(clippy::needless_range_loop)] // the iterator's dims, index for index
pub fn var_welford<T: VarFloat>(
    src: &[T],
    layout: &Layout,
    dims: &[usize],
    keepdim: bool,
    correction: f64,
    take_sqrt: bool,
) -> Vec<T> {
    let outs: usize = (0..layout.ndim())
        .filter(|d| !dims.contains(d))
        .map(|d| layout.shape[d])
        .product();
    let it = ReduceIter::new(layout, dims, keepdim);
    let nd = it.shape.len();
    let nred = it.out.iter().take_while(|&&s| s == 0).count();
    let red: usize = it.shape[..nred].iter().product();
    // SAFETY: the layout is a view of `src`: every offset the iterator reaches is inside it.
    let inp = unsafe { src.as_ptr().add(layout.offset) };
    let mut vals = vec![T::from_f64(0.0); outs];
    let kept = &it.shape[nred..];
    let mut idx = vec![0usize; nd - nred];
    let (mut o_off, mut i_off) = (0isize, 0isize);
    let mut ridx = vec![0usize; nred];
    for _ in 0..outs {
        let (mut mean, mut m2, mut n) = (0.0f64, 0.0f64, 0i64);
        let mut off = i_off;
        ridx.iter_mut().for_each(|v| *v = 0);
        for _ in 0..red {
            // SAFETY: inside the view (see above).
            let x = unsafe { *inp.offset(off) }.to_f64();
            n += 1;
            let nf = n as f64;
            let delta = x - mean;
            mean += delta / nf;
            m2 += delta * (x - mean);
            for d in 0..nred {
                ridx[d] += 1;
                off += it.inp[d];
                if ridx[d] < it.shape[d] {
                    break;
                }
                off -= it.shape[d] as isize * it.inp[d];
                ridx[d] = 0;
            }
        }
        vals[o_off as usize] = T::from_f64(project(m2, n as f64, correction, take_sqrt));
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
    vals
}
