//! Hurwitz's zeta function (Cephes' `zeta`, in float64 as PyTorch's CPU kernel) and polygamma,
//! which for n >= 2 is a multiple of it.

use super::gamma::{digamma, trigamma};
use super::Real;

/// Hurwitz's zeta function ζ(x, q) (Cephes' `zeta`, as PyTorch's, in float64: PyTorch's CPU
/// accumulates float32 in double): the direct sum, then the Euler-Maclaurin tail.
pub(crate) fn zeta(x: f64, q: f64) -> f64 {
    zeta_from(x, q, |x, q| q.powf(-x))
}

/// `zeta` whose first term q^-x is `first(x, q)`: PyTorch's float kernel takes that one
/// power in float (`std::pow(q, -x)` of two floats) and the rest in double.
pub(super) fn zeta_from(x: f64, q: f64, first: impl Fn(f64, f64) -> f64) -> f64 {
    const MACHEP: f64 = 1.11022302462515654042E-16;
    // (2k)! / B_2k
    const A: [f64; 12] = [
        12.0,
        -720.0,
        30240.0,
        -1209600.0,
        47900160.0,
        -1.8924375803183791606e9,
        7.47242496e10,
        -2.950130727918164224e12,
        1.1646782814350067249e14,
        -4.5979787224074726105e15,
        1.8152105401943546773e17,
        -7.1661652561756670113e18,
    ];
    if x == 1.0 {
        return f64::INFINITY;
    }
    if x < 1.0 {
        return f64::NAN;
    }
    if q <= 0.0 {
        if q == q.floor() {
            return f64::INFINITY;
        }
        if x != x.floor() {
            return f64::NAN;
        }
    }
    let mut s = first(x, q);
    let mut a = q;
    let mut i = 0;
    let mut b = 0.0;
    while i < 9 || a <= 9.0 {
        i += 1;
        a += 1.0;
        b = a.powf(-x);
        s += b;
        if -MACHEP * s < b && b < MACHEP * s {
            return s;
        }
    }
    let w = a;
    s += b * w / (x - 1.0);
    s -= 0.5 * b;
    let mut a = 1.0;
    let mut k = 0.0;
    for coef in A {
        a *= x + k;
        b /= w;
        let t = a * b / coef;
        s += t;
        if (t / s).abs() < MACHEP {
            return s;
        }
        k += 1.0;
        a *= x + k;
        b /= w;
        k += 1.0;
    }
    s
}

/// polygamma(n, x): digamma, trigamma, else (-1)^(n+1) n! ζ(n + 1, x) (PyTorch's
/// `calc_polygamma`, n! as exp(lgamma(n + 1)) in the type).
pub(super) fn polygamma<T: Real>(n: i64, x: T) -> T {
    match n {
        0 => digamma(x),
        1 => trigamma(x),
        _ => {
            let c = T::c;
            let sign = if n % 2 == 1 { c(1.0) } else { c(-1.0) };
            let fact = (c(n as f64) + c(1.0)).lgamma().exp();
            let z = c(zeta(c((n + 1) as f64).to_f64(), x.to_f64()));
            sign * fact * z
        }
    }
}
