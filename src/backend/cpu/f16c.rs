//! float16 <-> float32 over whole runs, the conversions around every float16 op (Note [Narrow
//! dtypes]). half's slice conversions call an out-of-line F16C routine per 8 elements (about
//! 4x slower than a loop); here one `target_feature` loop converts the run, 8 per instruction,
//! where the CPU has F16C, with half's conversion for the tail and on other CPUs. The
//! instruction rounds to nearest-even with half's overflow, subnormal and NaN results, so
//! both paths give the same bits.

use half::{f16, slice::HalfFloatSliceExt};

/// `dst[i] = src[i]` as float32 (equal lengths).
pub fn widen(src: &[f16], dst: &mut [f32]) {
    assert_eq!(src.len(), dst.len(), "widen: run lengths differ");
    #[cfg(target_arch = "x86_64")]
    if x86::available() {
        // SAFETY: the CPU has the features the loop is compiled for.
        let done = unsafe { x86::widen(src, dst) };
        return src[done..].convert_to_f32_slice(&mut dst[done..]);
    }
    src.convert_to_f32_slice(dst)
}

/// `dst[i] = src[i]` rounded to float16 (equal lengths).
pub fn narrow(src: &[f32], dst: &mut [f16]) {
    assert_eq!(src.len(), dst.len(), "narrow: run lengths differ");
    #[cfg(target_arch = "x86_64")]
    if x86::available() {
        // SAFETY: the CPU has the features the loop is compiled for.
        let done = unsafe { x86::narrow(src, dst) };
        return dst[done..].convert_from_f32_slice(&src[done..]);
    }
    dst.convert_from_f32_slice(src)
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use half::f16;
    use std::arch::x86_64::*;

    /// Whether the CPU runs the loops below (a cached check).
    pub fn available() -> bool {
        std::arch::is_x86_feature_detected!("f16c") && std::arch::is_x86_feature_detected!("avx")
    }

    /// Converts the whole groups of 8; returns how many elements it did.
    #[target_feature(enable = "avx,f16c")]
    pub unsafe fn widen(src: &[f16], dst: &mut [f32]) -> usize {
        let n = src.len() / 8 * 8;
        for i in (0..n).step_by(8) {
            // SAFETY: i + 8 <= n <= both lengths; unaligned loads and stores.
            unsafe {
                let h = _mm_loadu_si128(src.as_ptr().add(i) as *const __m128i);
                _mm256_storeu_ps(dst.as_mut_ptr().add(i), _mm256_cvtph_ps(h));
            }
        }
        n
    }

    /// Converts the whole groups of 8, rounding to nearest-even; returns how many it did.
    #[target_feature(enable = "avx,f16c")]
    pub unsafe fn narrow(src: &[f32], dst: &mut [f16]) -> usize {
        let n = src.len() / 8 * 8;
        for i in (0..n).step_by(8) {
            // SAFETY: i + 8 <= n <= both lengths; unaligned loads and stores.
            unsafe {
                let v = _mm256_loadu_ps(src.as_ptr().add(i));
                let h = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(v);
                _mm_storeu_si128(dst.as_mut_ptr().add(i) as *mut __m128i, h);
            }
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_match_half_bit_for_bit() {
        // Edge values (ties, subnormals, overflow, NaN, signed zero) and a spread, in a run
        // whose length leaves a tail past the groups of 8.
        let mut f: Vec<f32> = vec![
            0.0,
            -0.0,
            1.0,
            65504.0,
            65520.0,
            65519.99,
            -65520.0,
            1e-8,
            5.96e-8,
            2.98e-8,
            6.1e-5,
            1.0009766,
            1.0004883,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            3.3e38,
        ];
        f.extend((0..1000).map(|i| ((i as f32) * 0.7311).sin() * 10f32.powi(i % 11 - 6)));
        let mut mine = vec![f16::ZERO; f.len()];
        narrow(&f, &mut mine);
        for (x, m) in f.iter().zip(&mine) {
            assert_eq!(m.to_bits(), f16::from_f32(*x).to_bits(), "{x}");
        }
        let mut back = vec![0f32; f.len()];
        widen(&mine, &mut back);
        for (m, b) in mine.iter().zip(&back) {
            assert_eq!(b.to_bits(), m.to_f32().to_bits(), "{m}");
        }
    }
}
