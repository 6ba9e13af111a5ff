//! Scalar special functions the declared ops' CPU kernels call where `std`/`libm` lack them
//! (issue 24), each with the algorithm PyTorch's CPU kernels use (aten/src/ATen/native/Math.h;
//! digamma, zeta and the Chebyshev expansions of the Bessel functions are Cephes' algorithms),
//! evaluated in the same precision (float32 inputs in float32, except where PyTorch widens), so
//! values agree with PyTorch's to the last bits. Here: the `Real` arithmetic they are written
//! in, the `SpecialFns` trait the declarations call, and Cephes' `polevl`; the functions live
//! one family per file: `gamma.rs` (digamma, trigamma, mvlgamma), `zeta.rs` (Hurwitz's zeta,
//! polygamma), `erf.rs` (erfinv, ndtri, log_ndtr), `erfcx.rs` (erfcx and its Chebyshev fits), `igamma.rs`
//! (the regularized incomplete gamma functions, with glibc's lgamma as PyTorch calls it),
//! `bessel.rs` (Bessel I / J / Y / K, scaled and spherical), `airy.rs` (Airy's Ai),
//! `polynomials.rs` (the orthogonal polynomials). erfc and lgamma are libm's.

// The coefficient tables keep the digits Cephes publishes (more than a double holds), so they
// can be checked against the source.
#![allow(clippy::excessive_precision)]

mod airy;
mod bessel;
mod erf;
mod erfcx;
mod gamma;
pub(crate) mod igamma;
mod polynomials;
mod zeta;

use std::ops::{Add, Div, Mul, Neg, Sub};

use airy::airy_ai;
use bessel::{
    bessel_j0, bessel_j1, bessel_y0, bessel_y1, i0, i0e, i1, i1e, modified_bessel_i1,
    modified_bessel_k0, modified_bessel_k1, scaled_modified_bessel_k0, scaled_modified_bessel_k1,
    spherical_bessel_j0,
};
use erf::{erfinv, log_ndtr, ndtri};
use erfcx::erfcx;
use gamma::{digamma, mvlgamma};
use polynomials::{
    chebyshev_t, chebyshev_u, chebyshev_v, chebyshev_w, hermite_h, hermite_he, laguerre_l,
    legendre_p, shifted_chebyshev_t, shifted_chebyshev_u, shifted_chebyshev_v, shifted_chebyshev_w,
};
#[cfg(test)]
use zeta::zeta;
use zeta::{polygamma, zeta_from};

/// The arithmetic the kernels below are written in, for `f32` and `f64`.
pub(crate) trait Real:
    Copy
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// A constant, rounded to the type.
    fn c(v: f64) -> Self;
    fn to_f64(self) -> f64;
    fn exp(self) -> Self;
    fn ln(self) -> Self;
    fn sqrt(self) -> Self;
    fn sin(self) -> Self;
    fn acos(self) -> Self;
    fn cos(self) -> Self;
    fn ln_1p(self) -> Self;
    fn abs(self) -> Self;
    fn trunc(self) -> Self;
    fn lgamma(self) -> Self;
    fn erf(self) -> Self;
    fn erfc(self) -> Self;
    fn powf(self, e: Self) -> Self;
    /// C's `nextafter`: the next value of the type after `self` toward `to`.
    fn next_after(self, to: Self) -> Self;
    /// The tail of the `i1e` Chebyshev tables PyTorch uses for the type (float32 drops the
    /// terms below its precision).
    const I1E_A_FROM: usize;
    /// The degree past which PyTorch's Hermite polynomials are NaN for the type.
    const HERMITE_LIMIT: i64;
    const I1E_B_FROM: usize;
}

macro_rules! real {
    ($t:ty, $lgamma:path, $erf:path, $erfc:path, $next:path, $a:expr, $b:expr, $h:expr) => {
        impl Real for $t {
            fn c(v: f64) -> $t {
                v as $t
            }
            fn to_f64(self) -> f64 {
                f64::from(self)
            }
            fn exp(self) -> $t {
                <$t>::exp(self)
            }
            fn ln(self) -> $t {
                <$t>::ln(self)
            }
            fn sqrt(self) -> $t {
                <$t>::sqrt(self)
            }
            fn sin(self) -> $t {
                <$t>::sin(self)
            }
            fn acos(self) -> $t {
                <$t>::acos(self)
            }
            fn cos(self) -> $t {
                <$t>::cos(self)
            }
            fn ln_1p(self) -> $t {
                <$t>::ln_1p(self)
            }
            fn abs(self) -> $t {
                <$t>::abs(self)
            }
            fn trunc(self) -> $t {
                <$t>::trunc(self)
            }
            fn lgamma(self) -> $t {
                $lgamma(self)
            }
            fn erf(self) -> $t {
                $erf(self)
            }
            fn erfc(self) -> $t {
                $erfc(self)
            }
            fn powf(self, e: $t) -> $t {
                <$t>::powf(self, e)
            }
            fn next_after(self, to: $t) -> $t {
                $next(self, to)
            }
            const I1E_A_FROM: usize = $a;
            const HERMITE_LIMIT: i64 = $h;
            const I1E_B_FROM: usize = $b;
        }
    };
}
real!(
    f32,
    libm::lgammaf,
    libm::erff,
    libm::erfcf,
    libm::nextafterf,
    12,
    18,
    128
);
real!(
    f64,
    libm::lgamma,
    libm::erf,
    libm::erfc,
    libm::nextafter,
    0,
    0,
    512
);

/// The special functions on `f32` and `f64`, for the `cpu:` kernels of `ops/unary_decl.rs`.
pub(crate) trait SpecialFns: Real {
    fn erfinv(self) -> Self {
        erfinv(self)
    }
    fn digamma(self) -> Self {
        digamma(self)
    }
    fn polygamma(self, n: i64) -> Self {
        polygamma(n, self)
    }
    fn mvlgamma(self, p: i64) -> Self {
        mvlgamma(self, p)
    }
    fn i0(self) -> Self {
        i0(self)
    }
    fn i0e(self) -> Self {
        i0e(self)
    }
    fn i1(self) -> Self {
        i1(self)
    }
    fn i1e(self) -> Self {
        i1e(self)
    }
    fn ndtri(self) -> Self {
        ndtri(self)
    }
    fn bessel_j0(self) -> Self {
        bessel_j0(self)
    }
    fn bessel_j1(self) -> Self {
        bessel_j1(self)
    }
    fn bessel_y0(self) -> Self {
        bessel_y0(self)
    }
    fn bessel_y1(self) -> Self {
        bessel_y1(self)
    }
    fn modified_bessel_i1(self) -> Self {
        modified_bessel_i1(self)
    }
    fn modified_bessel_k0(self) -> Self {
        modified_bessel_k0(self)
    }
    fn modified_bessel_k1(self) -> Self {
        modified_bessel_k1(self)
    }
    fn scaled_modified_bessel_k0(self) -> Self {
        scaled_modified_bessel_k0(self)
    }
    fn scaled_modified_bessel_k1(self) -> Self {
        scaled_modified_bessel_k1(self)
    }
    fn spherical_bessel_j0(self) -> Self {
        spherical_bessel_j0(self)
    }
    fn airy_ai(self) -> Self {
        airy_ai(self)
    }
    fn erfcx(self) -> Self {
        erfcx(self)
    }
    fn log_ndtr(self) -> Self {
        log_ndtr(self)
    }
    fn chebyshev_t(self, n: Self) -> Self {
        chebyshev_t(self, n)
    }
    fn chebyshev_u(self, n: Self) -> Self {
        chebyshev_u(self, n)
    }
    fn chebyshev_v(self, n: Self) -> Self {
        chebyshev_v(self, n)
    }
    fn chebyshev_w(self, n: Self) -> Self {
        chebyshev_w(self, n)
    }
    fn shifted_chebyshev_t(self, n: Self) -> Self {
        shifted_chebyshev_t(self, n)
    }
    fn shifted_chebyshev_u(self, n: Self) -> Self {
        shifted_chebyshev_u(self, n)
    }
    fn shifted_chebyshev_v(self, n: Self) -> Self {
        shifted_chebyshev_v(self, n)
    }
    fn shifted_chebyshev_w(self, n: Self) -> Self {
        shifted_chebyshev_w(self, n)
    }
    fn hermite_h(self, n: Self) -> Self {
        hermite_h(self, n)
    }
    fn hermite_he(self, n: Self) -> Self {
        hermite_he(self, n)
    }
    fn laguerre_l(self, n: Self) -> Self {
        laguerre_l(self, n)
    }
    fn legendre_p(self, n: Self) -> Self {
        legendre_p(self, n)
    }
    /// Hurwitz's zeta ζ(self, q), accumulated in float64 (PyTorch's CPU accumulation type),
    /// its first power taken in the type itself as PyTorch's kernel does.
    fn hurwitz_zeta(self, q: Self) -> Self {
        Self::c(zeta_from(self.to_f64(), q.to_f64(), |x, q| {
            Self::c(q).powf(-Self::c(x)).to_f64()
        }))
    }
}
impl SpecialFns for f32 {}
impl SpecialFns for f64 {}

/// Horner's rule over coefficients from the highest power down (Cephes' `polevl`).
pub(super) fn polevl<T: Real>(x: T, coef: &[f64]) -> T {
    coef.iter().fold(T::c(0.0), |acc, &a| acc * x + T::c(a))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Float64 values of PyTorch 2.13's CPU kernels (torch.lgamma, digamma, polygamma,
    /// mvlgamma, i0, special.i0e / i1 / i1e at the same points), within 4 ulps.
    #[test]
    fn float64_matches_pytorch() {
        const X: [f64; 5] = [0.5, 2.5, -1.5, 9.75, 30.0];
        type Case = (&'static str, fn(f64) -> f64, [f64; 5]);
        let cases: [Case; 8] = [
            (
                "lgamma",
                |x| x.lgamma(),
                [
                    0.5723649429247001,
                    0.2846828704729192,
                    0.860047015376481,
                    12.242204940050762,
                    71.25703896716801,
                ],
            ),
            (
                "digamma",
                |x| x.digamma(),
                [
                    -1.9635100260214229,
                    0.7031566406452431,
                    0.7031566406452433,
                    2.2251095350445755,
                    3.384438132685525,
                ],
            ),
            (
                "trigamma",
                |x| x.polygamma(1),
                [
                    4.934802202073678,
                    0.4903577562398206,
                    9.37924664484954,
                    0.10800324333718572,
                    0.03389506035774027,
                ],
            ),
            (
                "polygamma3",
                |x| x.polygamma(3),
                [
                    97.40909103400242,
                    0.2239058488172521,
                    194.59427621918758,
                    0.0025123789213988934,
                    7.786003664736127e-05,
                ],
            ),
            (
                "i0",
                |x| x.i0(),
                [
                    1.0634833707413236,
                    3.289839144050123,
                    1.6467231897728907,
                    2221.617053105702,
                    781672297823.9775,
                ],
            ),
            (
                "i0e",
                |x| x.i0e(),
                [
                    0.6450352704491501,
                    0.27004644161220276,
                    0.36743360905415834,
                    0.12950841904956062,
                    0.0731459464822373,
                ],
            ),
            (
                "i1",
                |x| x.i1(),
                [
                    0.25789430539089636,
                    2.5167162452886984,
                    -0.9816664285779075,
                    2104.404688368433,
                    768532038938.9569,
                ],
            ),
            (
                "i1e",
                |x| x.i1e(),
                [
                    0.15642080318487173,
                    0.20658464953126654,
                    -0.21903938742092566,
                    0.12267556366210158,
                    0.07191633059864755,
                ],
            ),
        ];
        for (name, f, want) in cases {
            for (x, w) in X.into_iter().zip(want) {
                let got = f(x);
                assert!(
                    (got - w).abs() <= 4.0 * f64::EPSILON * w.abs(),
                    "{name}({x}) = {got}, torch {w}"
                );
            }
        }
        let mvl = [
            1.5963125911388552,
            5.402975080909175,
            2.694924879806965,
            45.299892102371125,
            225.70000022955642,
        ];
        for (x, w) in X.into_iter().zip(mvl) {
            let got = (x.abs() + 1.5).mvlgamma(3);
            assert!(
                (got - w).abs() <= 4.0 * f64::EPSILON * w.abs(),
                "mvlgamma({x}) = {got}, torch {w}"
            );
        }
    }

    #[test]
    fn edges_match_pytorch() {
        assert_eq!(0.0f64.digamma(), f64::NEG_INFINITY);
        assert_eq!((-0.0f64).digamma(), f64::INFINITY);
        assert!((-2.0f64).digamma().is_nan());
        assert!(f64::INFINITY.i0().is_nan()); // exp(inf) * c / sqrt(inf), as PyTorch's
        assert_eq!(f64::INFINITY.i0e(), 0.0);
        assert_eq!(zeta(1.0, 2.0), f64::INFINITY);
        assert!(zeta(0.5, 2.0).is_nan());
        assert_eq!(2.0f64.polygamma(2).signum(), -1.0);
    }
}
