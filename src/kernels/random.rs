//! PyTorch's CPU random streams: the generator (`backend::cpu::generator`: mt19937, the cached
//! normal) and the distribution transforms of ATen's CPU kernels (DistributionsHelper.h,
//! TransformationHelper.h), which `ops::random` draws its values with, element for element in
//! TensorIterator's order (Note [PyTorch's random streams]). The GPU has no stream of its
//! own: its tensors are filled from these on the host and uploaded.

pub use crate::backend::cpu::generator::{
    default_generator, nondeterministic_seed, CpuGenerator, GeneratorRef, STATE_BYTES,
};
use crate::dtype::DType;
use crate::tensor::{Element, Tensor};
use half::f16;

/// Run `f` on `gen`, or on the CPU's default generator, holding its lock.
pub fn with_gen<R>(gen: Option<&GeneratorRef>, f: impl FnOnce(&mut CpuGenerator) -> R) -> R {
    let g = gen.unwrap_or_else(|| default_generator());
    let mut guard = g.lock();
    f(&mut guard)
}

// ---- the distributions of ATen's DistributionsHelper.h / TransformationHelper.h ------------

/// `uniform_real_distribution<float>(0, 1)`: 24 random bits.
#[inline]
pub fn unit_f32(g: &mut CpuGenerator) -> f32 {
    (g.random() & ((1 << 24) - 1)) as f32 * (1.0 / (1u32 << 24) as f32)
}

/// `unit_f32` for each element of `out`, in order: the words drawn in bulk into `out`'s
/// memory (`CpuGenerator::fill_u32`), then converted in place.
pub fn unit_f32_fill(g: &mut CpuGenerator, out: &mut [f32]) {
    let words: &mut [u32] = bytemuck::cast_slice_mut(out);
    g.fill_u32(words);
    for w in words.iter_mut() {
        // 24 bits: exact as an i32 and as a float; the scaling by 2^-24 is exact too.
        *w = (((*w & ((1 << 24) - 1)) as i32 as f32) * (1.0 / (1u32 << 24) as f32)).to_bits();
    }
}

/// `x.mul_add(w, a)` for each element (ATen's uniform `x * (to - from) + from`, contracted):
/// one vectorized `vfmadd` loop where the CPU has FMA, libm's `fmaf` otherwise (same bits).
pub fn fma_in_place(v: &mut [f32], w: f32, a: f32) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has AVX2 and FMA, checked just above.
        return unsafe { fma_in_place_avx2(v, w, a) };
    }
    v.iter_mut().for_each(|x| *x = x.mul_add(w, a));
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn fma_in_place_avx2(v: &mut [f32], w: f32, a: f32) {
    v.iter_mut().for_each(|x| *x = x.mul_add(w, a));
}

/// `uniform_real_distribution<double>(0, 1)`: 53 bits of `random64()`.
#[inline]
pub fn unit_f64(g: &mut CpuGenerator) -> f64 {
    (g.random64() & ((1 << 53) - 1)) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// `normal_distribution<double>`: Box–Muller on two doubles, the sine half cached.
pub fn normal_f64(g: &mut CpuGenerator, mean: f64, std: f64) -> f64 {
    if let Some(v) = g.next_double_normal.take() {
        return v.mul_add(std, mean);
    }
    let u1 = unit_f64(g);
    let u2 = unit_f64(g);
    let r = (-2.0 * (-u2).ln_1p()).sqrt();
    let theta = 2.0 * std::f64::consts::PI * u1;
    g.next_double_normal = Some(r * theta.sin());
    (r * theta.cos()).mul_add(std, mean)
}

/// A double result stored as `T` the way `static_cast<scalar_t>` does (half via float).
pub trait FromDouble: Element {
    fn cast(v: f64) -> Self;
}
impl FromDouble for f32 {
    fn cast(v: f64) -> f32 {
        v as f32
    }
}
impl FromDouble for f64 {
    fn cast(v: f64) -> f64 {
        v
    }
}
impl FromDouble for f16 {
    fn cast(v: f64) -> f16 {
        f16::from_f32(v as f32)
    }
}
impl FromDouble for i64 {
    fn cast(v: f64) -> i64 {
        v as i64
    }
}
impl FromDouble for i32 {
    fn cast(v: f64) -> i32 {
        v as i32
    }
}
impl FromDouble for half::bf16 {
    fn cast(v: f64) -> half::bf16 {
        half::bf16::from_f32(v as f32)
    }
}
macro_rules! from_double_narrow_int {
    ($($t:ty),*) => {$(
        impl FromDouble for $t {
            fn cast(v: f64) -> $t {
                <$t as Element>::from_f64(v)
            }
        }
    )*};
}
from_double_narrow_int!(i16, i8, u8);
impl FromDouble for bool {
    fn cast(v: f64) -> bool {
        v != 0.0
    }
}

/// `n` values of `T`, each `f(generator)` cast from double, in the walk order.
pub fn doubles<T: FromDouble>(
    gen: Option<&GeneratorRef>,
    n: usize,
    mut f: impl FnMut(&mut CpuGenerator) -> f64,
) -> Vec<T> {
    let mut v = crate::tensor::pool::vec_with_capacity(n);
    with_gen(gen, |g| v.extend((0..n).map(|_| T::cast(f(g)))));
    v
}

/// `n` draws of ATen's `bernoulli_distribution<double>(p)` as 1 or 0 of `T`, in order: each a
/// `uniform_real_distribution<double>` (53 bits of `random64()`, high word first) below `p`.
/// The words are drawn in bulk (`CpuGenerator::fill_u32`) and compared as integers: with `m`
/// the 53 bits, `m * 2^-53 < p` is `m < ceil(p * 2^53)`, both sides exact for p in [0, 1] —
/// the same values as the per-element draws, about four times faster.
pub fn bernoulli_doubles<T: FromDouble>(gen: Option<&GeneratorRef>, n: usize, p: f64) -> Vec<T> {
    const MASK: u64 = (1 << 53) - 1;
    const CHUNK: usize = 1024;
    let threshold = (p * (1u64 << 53) as f64).ceil() as u64;
    let (one, zero) = (T::cast(1.0), T::cast(0.0));
    let mut v = crate::tensor::pool::alloc::<T>(n);
    let mut words = [0u32; 2 * CHUNK];
    with_gen(gen, |g| {
        for out in v.spare_capacity_mut()[..n].chunks_mut(CHUNK) {
            let w = &mut words[..2 * out.len()];
            g.fill_u32(w);
            for (o, hl) in out.iter_mut().zip(w.chunks_exact(2)) {
                let m = ((u64::from(hl[0]) << 32) | u64::from(hl[1])) & MASK;
                o.write(if m < threshold { one } else { zero });
            }
        }
    });
    // SAFETY: the loop above wrote each of the n elements (the chunks cover `..n`).
    unsafe { v.set_len(n) };
    v
}

pub fn from_vec<T: Element>(v: Vec<T>) -> Tensor {
    let n = v.len();
    Tensor::from_vec(v, &[n])
}

/// ATen's `normal_fill` driver: uniforms for every element, Box–Muller per block of 16,
/// and for a ragged end the last 16 elements redrawn and transformed again.
///
/// Note [Half normal tail]: for half tensors PyTorch 2.13 draws uniforms for the whole
/// blocks only (then 16 for the tail), so `draw_all` is false there: one draw per element
/// of the full blocks, measured against its stream.
///
/// Each block's transform reads only its own 16 uniforms, so the full blocks are transformed
/// on the thread pool (`for_rows_mut`, above `PAR_THRESHOLD` elements with more than one
/// thread) once every uniform is drawn: the same values in any order.
pub fn normal_fill<T: Copy + Default + Send>(
    g: &mut CpuGenerator,
    n: usize,
    draw_all: bool,
    unit: impl Fn(&mut CpuGenerator) -> T,
    fill: impl Fn(&mut CpuGenerator, &mut [T]),
    block: impl Fn(&mut [T]) + Sync,
) -> Vec<T> {
    let drawn = if draw_all { n } else { n / 16 * 16 };
    let mut data: Vec<T> = crate::tensor::pool::vec_with_capacity(n);
    data.resize(n, T::default());
    fill(g, &mut data[..drawn]);
    crate::backend::cpu::parallel::for_rows_mut(&mut data[..n / 16 * 16], 16, |_, b| block(b));
    if !n.is_multiple_of(16) {
        let tail = &mut data[n - 16..];
        for v in tail.iter_mut() {
            *v = unit(g);
        }
        block(tail);
    }
    data
}

/// 2π as ATen writes it (`2.0f * c10::pi<double>`, a double).
pub const TWO_PI: f64 = 2.0 * std::f64::consts::PI;

pub fn normal_fill_f64(g: &mut CpuGenerator, n: usize, mean: f64, std: f64) -> Vec<f64> {
    let fill = |g: &mut CpuGenerator, d: &mut [f64]| d.iter_mut().for_each(|v| *v = unit_f64(g));
    normal_fill(g, n, true, unit_f64, fill, |d| {
        for j in 0..8 {
            let u1 = 1.0 - d[j];
            let u2 = d[j + 8];
            let radius = (-2.0 * u1.ln()).sqrt();
            let theta = TWO_PI * u2;
            d[j] = (radius * theta.cos()).mul_add(std, mean);
            d[j + 8] = (radius * theta.sin()).mul_add(std, mean);
        }
    })
}

/// float32 `normal_fill`: ATen runs `normal_fill_AVX2`, whose Box–Muller computes in float32
/// with avx_mathfun's polynomials (`avx2_log`, `avx2_sincos`) and `theta = float(2π) * u2`.
pub fn normal_fill_f32(g: &mut CpuGenerator, n: usize, mean: f32, std: f32) -> Vec<f32> {
    normal_fill(g, n, true, unit_f32, unit_f32_fill, |d| {
        avx2_box_muller(d, mean, std)
    })
}

/// Half `normal_fill`, computed in float32 and rounded by the caller: ATen's generic
/// `normal_fill_16`, with the C library's log / cos / sin and `theta` from a double 2π, and
/// uniforms for the whole blocks only (Note [Half normal tail]).
pub fn normal_fill_half(g: &mut CpuGenerator, n: usize, mean: f32, std: f32) -> Vec<f32> {
    normal_fill(g, n, false, unit_f32, unit_f32_fill, |d| {
        for j in 0..8 {
            let u1 = 1.0 - d[j];
            let u2 = d[j + 8];
            let radius = (-2.0 * u1.ln()).sqrt();
            let theta = (TWO_PI * u2 as f64) as f32;
            d[j] = (radius * theta.cos()).mul_add(std, mean);
            d[j + 8] = (radius * theta.sin()).mul_add(std, mean);
        }
    })
}

// Note [AVX2 normal_fill]: PyTorch's float32 `randn` / `normal_` of 16+ contiguous elements
// goes through `normal_fill_16_AVX2`, which calls `log256_ps` / `sincos256_ps` from
// ATen's avx_mathfun.h (Cephes polynomials, not libm) in a build that contracts each multiply
// into the add consuming it. These two functions are one lane of that compiled code, every
// fused multiply-add where the wheel has one (`mul_add`), so the draws are PyTorch's bit for
// bit (tests/test_random.py); libm's log / sin / cos differ in the last bit on ~39 %
// of the values.

/// `normal_fill_16_AVX2` on one block of 16 uniforms: ATen's eight AVX2 lanes where the CPU
/// has AVX2 and FMA (`simd::box_muller`, the scalar lane below op for op), else the scalar
/// lane eight times, each `mul_add` a call into libm's `fmaf` (the same bits, slower).
fn avx2_box_muller(d: &mut [f32], mean: f32, std: f32) {
    #[cfg(target_arch = "x86_64")]
    if crate::backend::cpu::fma_available() {
        let d: &mut [f32; 16] = d.try_into().expect("a block of 16");
        // SAFETY: the CPU has AVX2 and FMA, checked just above.
        return unsafe { simd::box_muller(d, mean, std) };
    }
    avx2_box_muller_any(d, mean, std)
}

/// `avx2_box_muller_any`'s eight lanes in one AVX2 register each step, as ATen's
/// `normal_fill_16_AVX2` runs them: every operation the scalar lane's, in its order, each
/// `mul_add` one `vfmadd`, so the values are the same bits (tests/test_random*.py).
#[cfg(target_arch = "x86_64")]
mod simd {
    use std::arch::x86_64::*;

    #[target_feature(enable = "avx2,fma")]
    #[inline]
    fn splat(v: f32) -> __m256 {
        _mm256_set1_ps(v)
    }

    /// `avx2_log` on eight lanes.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    fn log(x: __m256) -> __m256 {
        let x = _mm256_max_ps(x, splat(f32::MIN_POSITIVE));
        let bits = _mm256_castps_si256(x);
        let exp = _mm256_sub_epi32(_mm256_srli_epi32::<23>(bits), _mm256_set1_epi32(0x7f));
        let mut e = _mm256_add_ps(_mm256_cvtepi32_ps(exp), splat(1.0));
        let m = _mm256_castsi256_ps(_mm256_or_si256(
            _mm256_and_si256(bits, _mm256_set1_epi32(!0x7f80_0000)),
            _mm256_set1_epi32(0.5f32.to_bits() as i32),
        ));
        let small = _mm256_cmp_ps::<_CMP_LT_OS>(m, splat(std::f32::consts::FRAC_1_SQRT_2));
        let mut x = _mm256_sub_ps(m, splat(1.0));
        // `if small { e -= 1; x += m }`: subtracting / adding 0 elsewhere changes nothing
        // (x = m - 1 is never -0: m < 1).
        e = _mm256_sub_ps(e, _mm256_and_ps(small, splat(1.0)));
        x = _mm256_add_ps(x, _mm256_and_ps(small, m));
        let z = _mm256_mul_ps(x, x);
        let mut y = splat(0.070_376_836);
        for c in [
            -0.115_146_1,
            0.116_769_984,
            -0.124_201_41,
            0.142_493_23,
            -0.166_680_57,
            0.200_007_14,
            -0.249_999_94,
            0.333_333_3,
        ] {
            y = _mm256_fmadd_ps(y, x, splat(c));
        }
        y = _mm256_mul_ps(y, x);
        y = _mm256_fmadd_ps(y, z, _mm256_mul_ps(e, splat(-2.121_944_4e-4)));
        y = _mm256_fmadd_ps(z, splat(-0.5), y);
        _mm256_fmadd_ps(e, splat(355.0 / 512.0), _mm256_add_ps(x, y))
    }

    /// `avx2_sincos` on eight lanes: (sin, cos).
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    fn sincos(theta: __m256) -> (__m256, __m256) {
        let sign = _mm256_set1_epi32(0x8000_0000u32 as i32);
        let bits = _mm256_castps_si256(theta);
        let mut sign_sin = _mm256_and_si256(bits, sign);
        let x = _mm256_castsi256_ps(_mm256_andnot_si256(sign, bits));
        let q = _mm256_cvttps_epi32(_mm256_mul_ps(x, splat(1.273_239_5)));
        let q = _mm256_and_si256(
            _mm256_add_epi32(q, _mm256_set1_epi32(1)),
            _mm256_set1_epi32(!1),
        );
        let yq = _mm256_cvtepi32_ps(q);
        let four = _mm256_set1_epi32(4);
        sign_sin = _mm256_xor_si256(sign_sin, _mm256_slli_epi32::<29>(_mm256_and_si256(q, four)));
        let q2 = _mm256_sub_epi32(q, _mm256_set1_epi32(2));
        let sign_cos = _mm256_slli_epi32::<29>(_mm256_andnot_si256(q2, four));
        let x = _mm256_fmadd_ps(yq, splat(-0.785_156_25), x);
        let x = _mm256_fmadd_ps(yq, splat(-2.418_756_5e-4), x);
        let x = _mm256_fmadd_ps(yq, splat(-3.774_895e-8), x);
        let z = _mm256_mul_ps(x, x);
        let mut c = _mm256_fmadd_ps(splat(2.443_315_7e-5), z, splat(-1.388_731_6e-3));
        c = _mm256_fmadd_ps(c, z, splat(4.166_664_6e-2));
        c = _mm256_mul_ps(c, z);
        let half_z = _mm256_xor_ps(_mm256_mul_ps(z, splat(0.5)), splat(-0.0));
        c = _mm256_add_ps(_mm256_fmadd_ps(c, z, half_z), splat(1.0));
        let mut s = _mm256_fmadd_ps(splat(-1.951_529_6e-4), z, splat(8.332_161e-3));
        s = _mm256_fmadd_ps(s, z, splat(-1.666_665_5e-1));
        s = _mm256_mul_ps(s, z);
        s = _mm256_fmadd_ps(s, x, x);
        // q & 2 == 0: (s, c), else (c, s).
        let swap = _mm256_castsi256_ps(_mm256_cmpeq_epi32(
            _mm256_and_si256(q, _mm256_set1_epi32(2)),
            _mm256_set1_epi32(2),
        ));
        let sin = _mm256_blendv_ps(s, c, swap);
        let cos = _mm256_blendv_ps(c, s, swap);
        (
            _mm256_xor_ps(sin, _mm256_castsi256_ps(sign_sin)),
            _mm256_xor_ps(cos, _mm256_castsi256_ps(sign_cos)),
        )
    }

    /// `avx2_box_muller_any` on one block.
    #[target_feature(enable = "avx2,fma")]
    pub fn box_muller(d: &mut [f32; 16], mean: f32, std: f32) {
        let p = d.as_mut_ptr();
        // SAFETY: `d` holds 16 floats: two unaligned loads of 8.
        let (lo, hi) = unsafe { (_mm256_loadu_ps(p), _mm256_loadu_ps(p.add(8))) };
        let u1 = _mm256_sub_ps(splat(1.0), lo);
        let u2 = hi;
        let radius = _mm256_sqrt_ps(_mm256_mul_ps(splat(-2.0), log(u1)));
        let (sin, cos) = sincos(_mm256_mul_ps(splat(super::TWO_PI as f32), u2));
        let (std, mean) = (splat(std), splat(mean));
        let lo = _mm256_fmadd_ps(_mm256_mul_ps(radius, cos), std, mean);
        let hi = _mm256_fmadd_ps(_mm256_mul_ps(radius, sin), std, mean);
        // SAFETY: as the loads.
        unsafe {
            _mm256_storeu_ps(p, lo);
            _mm256_storeu_ps(p.add(8), hi);
        }
    }
}

#[inline(always)]
fn avx2_box_muller_any(d: &mut [f32], mean: f32, std: f32) {
    let two_pi = TWO_PI as f32;
    for j in 0..8 {
        let radius = (-2.0 * avx2_log(1.0 - d[j])).sqrt();
        let (sin, cos) = avx2_sincos(two_pi * d[j + 8]);
        d[j] = (radius * cos).mul_add(std, mean);
        d[j + 8] = (radius * sin).mul_add(std, mean);
    }
}

/// avx_mathfun's `log256_ps` for one lane (inputs here are in (0, 1]).
#[inline(always)]
fn avx2_log(x: f32) -> f32 {
    let x = x.max(f32::MIN_POSITIVE);
    // x = m * 2^e with m in [0.5, 1).
    let mut e = ((x.to_bits() >> 23) as i32 - 0x7f) as f32 + 1.0;
    let m = f32::from_bits((x.to_bits() & !0x7f80_0000) | 0.5f32.to_bits());
    let small = m < std::f32::consts::FRAC_1_SQRT_2;
    let mut x = m - 1.0;
    if small {
        e -= 1.0;
        x += m;
    }
    let z = x * x;
    let mut y: f32 = 0.070_376_836;
    for c in [
        -0.115_146_1,
        0.116_769_984,
        -0.124_201_41,
        0.142_493_23,
        -0.166_680_57,
        0.200_007_14,
        -0.249_999_94,
        0.333_333_3,
    ] {
        y = y.mul_add(x, c);
    }
    y *= x;
    y = y.mul_add(z, e * -2.121_944_4e-4);
    y = z.mul_add(-0.5, y);
    // ln 2 split as Cephes does: its leading bits 355/512 here, the rest (-2.12194440e-4) above.
    e.mul_add(355.0 / 512.0, x + y)
}

/// avx_mathfun's `sincos256_ps` for one lane: (sin, cos).
#[inline(always)]
fn avx2_sincos(theta: f32) -> (f32, f32) {
    const SIGN: u32 = 0x8000_0000;
    let mut sign_sin = theta.to_bits() & SIGN;
    let x = theta.abs();
    // The octant, rounded up to even (a truncating conversion, as cvttps).
    let q = ((x * 1.273_239_5) as i32 + 1) & !1;
    let yq = q as f32;
    sign_sin ^= ((q & 4) as u32) << 29;
    let sign_cos = ((!(q - 2) & 4) as u32) << 29;
    // Cody–Waite reduction by π/4 in three parts (the constants are avx_mathfun's, as float).
    let x = yq.mul_add(-0.785_156_25, x);
    let x = yq.mul_add(-2.418_756_5e-4, x);
    let x = yq.mul_add(-3.774_895e-8, x);
    let z = x * x;
    let mut c = 2.443_315_7e-5f32.mul_add(z, -1.388_731_6e-3);
    c = c.mul_add(z, 4.166_664_6e-2);
    c *= z;
    // The build fuses this multiply into the subtraction (fmsub(c, z, z/2)).
    c = c.mul_add(z, -(z * 0.5)) + 1.0;
    let mut s = (-1.951_529_6e-4f32).mul_add(z, 8.332_161e-3);
    s = s.mul_add(z, -1.666_665_5e-1);
    s *= z;
    s = s.mul_add(x, x);
    let (sin, cos) = if q & 2 == 0 { (s, c) } else { (c, s) };
    (
        f32::from_bits(sin.to_bits() ^ sign_sin),
        f32::from_bits(cos.to_bits() ^ sign_cos),
    )
}

/// `uniform_int_from_to_distribution`: 64 random bits for ranges of 2^28 or more (what
/// PyTorch 2.13 does for every dtype, measured), else 32; `(v % range) + base`, then cast.
pub fn random_from_to(
    g: &mut CpuGenerator,
    dtype: DType,
    n: usize,
    range: u64,
    base: i64,
) -> Tensor {
    let wide = range >= 1 << 28;
    let mut draw = move || {
        let v = if wide {
            g.random64()
        } else {
            g.random() as u64
        };
        (v % range).wrapping_add(base as u64) as i64
    };
    match dtype {
        DType::F16 => from_vec(
            (0..n)
                .map(|_| f16::from_f32(draw() as f32))
                .collect::<Vec<f16>>(),
        ),
        DType::F32 => from_vec((0..n).map(|_| draw() as f32).collect::<Vec<f32>>()),
        DType::F64 => from_vec((0..n).map(|_| draw() as f64).collect::<Vec<f64>>()),
        DType::I64 => from_vec((0..n).map(|_| draw()).collect::<Vec<i64>>()),
        DType::BF16 => from_vec(
            (0..n)
                .map(|_| half::bf16::from_f32(draw() as f32))
                .collect::<Vec<half::bf16>>(),
        ),
        DType::I32 => from_vec((0..n).map(|_| draw() as i32).collect::<Vec<i32>>()),
        DType::I16 => from_vec((0..n).map(|_| draw() as i16).collect::<Vec<i16>>()),
        DType::I8 => from_vec((0..n).map(|_| draw() as i8).collect::<Vec<i8>>()),
        DType::U8 => from_vec((0..n).map(|_| draw() as u8).collect::<Vec<u8>>()),
        DType::Bool => from_vec((0..n).map(|_| draw() != 0).collect::<Vec<bool>>()),
    }
}

/// `uniform_int_distribution`: `random_()` with no bounds.
pub fn random_default(g: &mut CpuGenerator, dtype: DType, n: usize) -> Tensor {
    match dtype {
        DType::Bool => from_vec((0..n).map(|_| g.random() & 1 == 1).collect::<Vec<bool>>()),
        DType::I64 => from_vec(
            (0..n)
                .map(|_| (g.random64() % (i64::MAX as u64 + 1)) as i64)
                .collect::<Vec<i64>>(),
        ),
        DType::I32 => from_vec(
            (0..n)
                .map(|_| (g.random() as u64 % (i32::MAX as u64 + 1)) as i32)
                .collect::<Vec<i32>>(),
        ),
        DType::I16 => from_vec(
            (0..n)
                .map(|_| (g.random() as u64 % (i16::MAX as u64 + 1)) as i16)
                .collect::<Vec<i16>>(),
        ),
        DType::I8 => from_vec(
            (0..n)
                .map(|_| (g.random() as u64 % (i8::MAX as u64 + 1)) as i8)
                .collect::<Vec<i8>>(),
        ),
        DType::U8 => from_vec(
            (0..n)
                .map(|_| (g.random() as u64 % (u8::MAX as u64 + 1)) as u8)
                .collect::<Vec<u8>>(),
        ),
        DType::F16 => from_vec(
            (0..n)
                .map(|_| f16::from_f32((g.random() as u64 % ((1 << 11) + 1)) as f32))
                .collect::<Vec<f16>>(),
        ),
        // bfloat16's 8 significand digits (`numeric_limits<BFloat16>::digits`).
        DType::BF16 => from_vec(
            (0..n)
                .map(|_| half::bf16::from_f32((g.random() as u64 % ((1 << 8) + 1)) as f32))
                .collect::<Vec<half::bf16>>(),
        ),
        DType::F32 => from_vec(
            (0..n)
                .map(|_| (g.random() as u64 % ((1 << 24) + 1)) as f32)
                .collect::<Vec<f32>>(),
        ),
        DType::F64 => from_vec(
            (0..n)
                .map(|_| (g.random64() % ((1 << 53) + 1)) as f64)
                .collect::<Vec<f64>>(),
        ),
    }
}

pub fn sample_poisson(g: &mut CpuGenerator, lambda: f64) -> i64 {
    if lambda >= 10.0 {
        let slam = lambda.sqrt();
        let loglam = lambda.ln();
        let b = 0.931 + 2.53 * slam;
        let a = -0.059 + 0.02483 * b;
        let invalpha = 1.1239 + 1.1328 / (b - 3.4);
        let vr = 0.9277 - 3.6224 / (b - 2.0);
        loop {
            let u = unit_f64(g) - 0.5;
            let v = unit_f64(g);
            let us = 0.5 - u.abs();
            let k = ((2.0 * a / us + b) * u + lambda + 0.43).floor() as i64;
            if us >= 0.07 && v <= vr {
                return k;
            }
            if k < 0 || (us < 0.013 && v > us) {
                continue;
            }
            if v.ln() + invalpha.ln() - (a / (us * us) + b).ln()
                <= -lambda + k as f64 * loglam - libm_lgamma(k as f64 + 1.0)
            {
                return k;
            }
        }
    } else if lambda == 0.0 {
        0
    } else {
        let enlam = (-lambda).exp();
        let mut x = 0;
        let mut prod = 1.0;
        loop {
            prod *= unit_f64(g);
            if prod > enlam {
                x += 1;
            } else {
                return x;
            }
        }
    }
}

pub fn libm_lgamma(x: f64) -> f64 {
    extern "C" {
        fn lgamma(x: f64) -> f64;
    }
    // SAFETY: lgamma is a pure libm function of a double.
    unsafe { lgamma(x) }
}

#[cfg(test)]
mod tests {
    /// The AVX2 Box–Muller is the scalar lane's bits for every float32 uniform (2^24 values,
    /// each as u1 and as u2), with mean / std applied.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn simd_box_muller_is_the_scalar_lane() {
        if !crate::backend::cpu::fma_available() {
            return;
        }
        let scale = 1.0 / (1u32 << 24) as f32;
        for start in (0..1u32 << 24).step_by(8) {
            let mut a = [0f32; 16];
            for (j, v) in a.iter_mut().enumerate() {
                // lanes 0..8 (u1) and 8..16 (u2) both walk every value
                *v = (start + j as u32 % 8) as f32 * scale;
            }
            let mut b = a;
            // SAFETY: the CPU has AVX2 and FMA, checked above.
            unsafe { super::simd::box_muller(&mut a, 0.25, 1.5) };
            crate::backend::cpu::with_fma(|| super::avx2_box_muller_any(&mut b, 0.25, 1.5));
            for j in 0..16 {
                assert_eq!(a[j].to_bits(), b[j].to_bits(), "block {start} lane {j}");
            }
        }
    }
}
