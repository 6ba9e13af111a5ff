//! The gamma family's scalar kernels: digamma and trigamma (Cephes' and PyTorch's algorithms)
//! and the multivariate log-gamma; lgamma itself is libm's (`Real::lgamma`).

use std::f64::consts::PI;

use super::{polevl, Real};

/// PyTorch's `calc_digamma` (Cephes' psi): the reflection formula below zero (its `pi / tan`
/// term in float64 for either type), the recurrence up to 10, then the asymptotic series.
pub(super) fn digamma<T: Real>(x: T) -> T {
    const A: [f64; 7] = [
        8.33333333333333333333E-2,
        -2.10927960927960927961E-2,
        7.57575757575757575758E-3,
        -4.16666666666666666667E-3,
        3.96825396825396825397E-3,
        -8.33333333333333333333E-3,
        8.33333333333333333333E-2,
    ];
    let c = T::c;
    if x == c(0.0) {
        // ±0 gives ∓inf, as C's tgamma family and SciPy.
        return c(f64::INFINITY.copysign(-x.to_f64()));
    }
    if x < c(0.0) {
        if x == x.trunc() {
            return c(f64::NAN);
        }
        // tan(pi * r) of the fractional part r: pi * x loses digits when |x| > 1.
        let r = x.to_f64().fract();
        return digamma(c(1.0) - x) - c(PI / (PI * r).tan());
    }
    let mut x = x;
    let mut result = c(0.0);
    while x < c(10.0) {
        result = result - c(1.0) / x;
        x = x + c(1.0);
    }
    if x == c(10.0) {
        return result + c(2.25175258906672110764);
    }
    let mut y = c(0.0);
    if x < c(1.0e17) {
        let z = c(1.0) / (x * x);
        y = z * polevl(z, &A);
    }
    result + x.ln() - c(0.5) / x - y
}

/// PyTorch's `trigamma`: reflection below 1/2, six steps of the recurrence, then the
/// asymptotic series (all in the type).
pub(super) fn trigamma<T: Real>(x: T) -> T {
    let c = T::c;
    let mut x = x;
    let mut sign = c(1.0);
    let mut result = c(0.0);
    if x < c(0.5) {
        sign = c(-1.0);
        let pi = c(PI);
        let s = (pi * x).sin();
        result = result - (pi * pi) / (s * s);
        x = c(1.0) - x;
    }
    for _ in 0..6 {
        result = result + c(1.0) / (x * x);
        x = x + c(1.0);
    }
    let ixx = c(1.0) / (x * x);
    let one = c(1.0);
    let series = one / c(6.0) - ixx * (one / c(30.0) - ixx * (one / c(42.0)));
    result = result + (one + one / (c(2.0) * x) + ixx * series) / x;
    sign * result
}

/// The multivariate log-gamma function of dimension p: Σ_j lgamma(x - j/2) + p(p-1)/4 log(pi),
/// summed as PyTorch's `mvlgamma` does (the shifts in increasing order, then the constant).
pub(super) fn mvlgamma<T: Real>(x: T, p: i64) -> T {
    let c = T::c;
    let start = -(p as f64) * 0.5 + 0.5;
    let mut s = c(0.0);
    for j in 0..p {
        s = s + (x + c(start + j as f64 * 0.5)).lgamma();
    }
    s + c((p * (p - 1)) as f64 * PI.ln() * 0.25)
}
