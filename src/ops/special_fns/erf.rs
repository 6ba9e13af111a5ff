//! The error-function family's scalar kernels: erfinv, and the standard normal's ndtri (inverse
//! CDF) and log_ndtr (log CDF, through `erfcx` in the far tail); erf and erfc are libm's.

use std::f64::consts::FRAC_2_SQRT_PI;

use super::erfcx::erfcx;
use super::{polevl, Real};

/// PyTorch's `calc_erfinv`: a rational first guess (central range |y| <= 0.7, else the tail),
/// refined by two Newton steps on `erf`.
pub(super) fn erfinv<T: Real>(y: T) -> T {
    const A: [f64; 4] = [0.886226899, -1.645349621, 0.914624893, -0.140543331];
    const B: [f64; 4] = [-2.118377725, 1.442710462, -0.329097515, 0.012229801];
    const C: [f64; 4] = [-1.970840454, -1.624906493, 3.429567803, 1.641345311];
    const D: [f64; 2] = [3.543889200, 1.637067800];
    let c = T::c;
    let a = y.abs();
    if a > c(1.0) || y.to_f64().is_nan() {
        return c(f64::NAN);
    }
    if a == c(1.0) {
        return c(f64::INFINITY.copysign(y.to_f64()));
    }
    let mut x = if a <= c(0.7) {
        let z = y * y;
        let num = ((c(A[3]) * z + c(A[2])) * z + c(A[1])) * z + c(A[0]);
        let dem = (((c(B[3]) * z + c(B[2])) * z + c(B[1])) * z + c(B[0])) * z + c(1.0);
        y * num / dem
    } else {
        let z = (-((c(1.0) - a) / c(2.0)).ln()).sqrt();
        let num = ((c(C[3]) * z + c(C[2])) * z + c(C[1])) * z + c(C[0]);
        let dem = (c(D[1]) * z + c(D[0])) * z + c(1.0);
        let num = if y < c(0.0) { -num } else { num };
        num / dem
    };
    // 2/sqrt(pi), formed in the type as PyTorch's `2 * frac_1_sqrt_pi<T>`.
    let k = c(2.0) * c(FRAC_2_SQRT_PI / 2.0);
    for _ in 0..2 {
        x = x - (x.erf() - y) / (k * (-x * x).exp());
    }
    x
}

/// Cephes' ndtri coefficients `P0` (PyTorch's `calc_ndtri`).
const NDTRI_P0: [f64; 5] = [
    -5.99633501014107895267E1,
    9.80010754185999661536E1,
    -5.66762857469070293439E1,
    1.39312609387279679503E1,
    -1.23916583867381258016E0,
];
/// Cephes' ndtri coefficients `Q0` (PyTorch's `calc_ndtri`).
const NDTRI_Q0: [f64; 9] = [
    1.00000000000000000000E0,
    1.95448858338141759834E0,
    4.67627912898881538453E0,
    8.63602421390890590575E1,
    -2.25462687854119370527E2,
    2.00260212380060660359E2,
    -8.20372256168333339912E1,
    1.59056225126211695515E1,
    -1.18331621121330003142E0,
];
/// Cephes' ndtri coefficients `P1` (PyTorch's `calc_ndtri`).
const NDTRI_P1: [f64; 9] = [
    4.05544892305962419923E0,
    3.15251094599893866154E1,
    5.71628192246421288162E1,
    4.40805073893200834700E1,
    1.46849561928858024014E1,
    2.18663306850790267539E0,
    -1.40256079171354495875E-1,
    -3.50424626827848203418E-2,
    -8.57456785154685413611E-4,
];
/// Cephes' ndtri coefficients `Q1` (PyTorch's `calc_ndtri`).
const NDTRI_Q1: [f64; 9] = [
    1.00000000000000000000E0,
    1.57799883256466749731E1,
    4.53907635128879210584E1,
    4.13172038254672030440E1,
    1.50425385692907503408E1,
    2.50464946208309415979E0,
    -1.42182922854787788574E-1,
    -3.80806407691578277194E-2,
    -9.33259480895457427372E-4,
];
/// Cephes' ndtri coefficients `P2` (PyTorch's `calc_ndtri`).
const NDTRI_P2: [f64; 9] = [
    3.23774891776946035970E0,
    6.91522889068984211695E0,
    3.93881025292474443415E0,
    1.33303460815807542389E0,
    2.01485389549179081538E-1,
    1.23716634817820021358E-2,
    3.01581553508235416007E-4,
    2.65806974686737550832E-6,
    6.23974539184983293730E-9,
];
/// Cephes' ndtri coefficients `Q2` (PyTorch's `calc_ndtri`).
const NDTRI_Q2: [f64; 9] = [
    1.00000000000000000000E0,
    6.02427039364742014255E0,
    3.67983563856160859403E0,
    1.37702099489081330271E0,
    2.16236993594496635890E-1,
    1.34204006088543189037E-2,
    3.28014464682127739104E-4,
    2.89247864745380683936E-6,
    6.79019408009981274425E-9,
];

/// PyTorch's `calc_ndtri` (Cephes' ndtri): the inverse of the standard normal CDF, a rational
/// function near 1/2, else in sqrt(-2 log y) (two tables, split at 8).
pub(super) fn ndtri<T: Real>(y0: T) -> T {
    let c = T::c;
    if y0 == c(0.0) {
        return c(f64::NEG_INFINITY);
    }
    if y0 == c(1.0) {
        return c(f64::INFINITY);
    }
    if y0 < c(0.0) || y0 > c(1.0) {
        return c(f64::NAN);
    }
    let exp_m2 = c(0.13533528323661269189);
    let (mut y, mut negate) = (y0, true);
    if y > c(1.0) - exp_m2 {
        y = c(1.0) - y;
        negate = false;
    }
    if y > exp_m2 {
        let y = y - c(0.5);
        let y2 = y * y;
        let x = y + y * (y2 * polevl(y2, &NDTRI_P0) / polevl(y2, &NDTRI_Q0));
        return x * c(2.50662827463100050242E0);
    }
    let x = (c(-2.0) * y.ln()).sqrt();
    let x0 = x - x.ln() / x;
    let z = c(1.0) / x;
    let x1 = if x < c(8.0) {
        z * polevl(z, &NDTRI_P1) / polevl(z, &NDTRI_Q1)
    } else {
        z * polevl(z, &NDTRI_P2) / polevl(z, &NDTRI_Q2)
    };
    let x = x0 - x1;
    if negate {
        -x
    } else {
        x
    }
}

/// PyTorch's `calc_log_ndtr` (SciPy's): log of the standard normal CDF, through erfcx below -1
/// so the far tail keeps its digits.
pub(super) fn log_ndtr<T: Real>(x: T) -> T {
    let c = T::c;
    let t = x * c(std::f64::consts::FRAC_1_SQRT_2);
    if x < c(-1.0) {
        return (erfcx(-t) / c(2.0)).ln() - t * t;
    }
    (-t.erfc() / c(2.0)).ln_1p()
}
