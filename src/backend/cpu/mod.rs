//! CPU kernels: contiguous fast paths the compiler vectorizes, strided/broadcast iteration for
//! the rest, threads only above `PAR_THRESHOLD` elements (hand-offs cost more than tiny work),
//! through `parallel.rs`'s pool, where the calling thread works too.

pub mod cascade;
pub mod copy;
pub mod elementwise;
pub mod f16c;
pub mod generator;
pub mod index;
pub mod ldl;
pub mod linalg;
pub mod matmul;
pub mod norm;
pub mod optim;
pub mod parallel;
pub mod reduce;
pub mod rnn;
pub mod sort;
pub mod variance;
pub mod vector_norm;
pub mod vmath;

/// Elements below which a kernel stays on the calling thread.
pub const PAR_THRESHOLD: usize = 1 << 15;

/// Whether the CPU has AVX2 and FMA, the features of the `#[target_feature(enable =
/// "avx2,fma")]` copies of hot loops (without them a `mul_add` is a call per element).
#[cfg(target_arch = "x86_64")]
pub fn fma_available() -> bool {
    std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
}

/// `f()` compiled with AVX2 and FMA where the CPU has them (`fma_available`), else as built:
/// the one `#[target_feature]` copy of hot loops whose `mul_add`s must be hardware FMAs
/// (norm.rs's rows and planes, optim.rs's steps, kernels/random.rs's Box-Muller). Without the
/// target feature each `mul_add` is a call to compiler_builtins' `fmaf` per element,
/// unvectorized (the same rounding: an FMA is exact either way, so both copies give the same
/// bits). `f` is inlined into the copy, so its loops are compiled with the features; keep
/// what it calls `#[inline]` (a function it calls but that is not inlined runs as built).
#[inline(always)]
pub fn with_fma<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    if fma_available() {
        // SAFETY: the CPU has the features `fma_copy` is compiled for.
        return unsafe { fma_copy(f) };
    }
    f()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn fma_copy<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// Whether the CPU has AVX-512 (F, BW, DQ, VL) besides AVX2 and FMA: the features of the
/// elementwise map's widest copy (`elementwise::map_run`, 16 float32 lanes).
#[cfg(target_arch = "x86_64")]
pub fn avx512_available() -> bool {
    use std::arch::is_x86_feature_detected as has;
    has!("avx512f") && has!("avx512bw") && has!("avx512dq") && has!("avx512vl") && fma_available()
}

/// A reduction's input pointer handed to its threads (they only read it).
struct Src<T>(*const T);
// SAFETY: the threads only read the input, which outlives the parallel loop using it.
unsafe impl<T> Sync for Src<T> {}
impl<T> Src<T> {
    fn get(&self) -> *const T {
        self.0
    }
}

/// The reduction tests' reference sum (`reduce.rs`, `cascade.rs`): each element of the
/// contiguous `x` of `shape` added, in float64, into the output position of its kept indices
/// (the dims not in `dims`), rounded to float32 at the end.
#[cfg(test)]
pub(crate) fn reference_sum(x: &[f32], shape: &[usize], dims: &[usize]) -> Vec<f32> {
    let kept: Vec<usize> = (0..shape.len()).filter(|d| !dims.contains(d)).collect();
    let outs: usize = kept.iter().map(|&d| shape[d]).product();
    let mut want = vec![0f64; outs];
    for (i, &v) in x.iter().enumerate() {
        let (mut rem, mut idx) = (i, vec![0usize; shape.len()]);
        for d in (0..shape.len()).rev() {
            idx[d] = rem % shape[d];
            rem /= shape[d];
        }
        let o = kept.iter().fold(0, |o, &d| o * shape[d] + idx[d]);
        want[o] += v as f64;
    }
    want.into_iter().map(|v| v as f32).collect()
}
