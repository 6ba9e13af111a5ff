//! ATen's CPU samplers of Distributions.h on PyTorch's generator (gamma by Marsaglia–Tsang,
//! binomial by inversion or Hörmann's BTRS) and the reparameterized gradients of gamma and
//! Dirichlet samples, in the element type and operation order of ATen's templates so that
//! a seed gives PyTorch's numbers (Note [PyTorch's random streams]).
//!
//! ATen instantiates each template with `scalar_t` the tensor's type and `accscalar_t`
//! double: expressions it writes in `scalar_t` (a float32 tensor's `1.0f / alpha`,
//! `count * prob`, `log1p(-prob)`) are computed in `T` here, the rest in f64. These
//! translation units are built without FMA, so no expression is contracted.

use super::random::{normal_f64, unit_f64, CpuGenerator};

/// The element types ATen's floating samplers are instantiated for (float, double), with
/// the operations its templates apply in that type.
pub trait Real:
    Copy
    + PartialOrd
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
{
    fn of(v: f64) -> Self;
    fn f64(self) -> f64;
    fn floor(self) -> Self;
    fn sqrt(self) -> Self;
    fn ln_1p(self) -> Self;
    fn ln(self) -> Self;
    fn tan(self) -> Self;
    fn powf(self, e: Self) -> Self;
    fn neg(self) -> Self;
    /// `std::numeric_limits<T>::min()`: the smallest normal value.
    const MIN_POSITIVE: Self;
    /// `std::nexttoward(T(1), 0)`.
    const BELOW_ONE: Self;
}

impl Real for f32 {
    fn of(v: f64) -> f32 {
        v as f32
    }
    fn f64(self) -> f64 {
        self as f64
    }
    fn floor(self) -> f32 {
        f32::floor(self)
    }
    fn sqrt(self) -> f32 {
        f32::sqrt(self)
    }
    fn ln_1p(self) -> f32 {
        f32::ln_1p(self)
    }
    fn ln(self) -> f32 {
        f32::ln(self)
    }
    fn tan(self) -> f32 {
        f32::tan(self)
    }
    fn powf(self, e: f32) -> f32 {
        f32::powf(self, e)
    }
    fn neg(self) -> f32 {
        -self
    }
    const MIN_POSITIVE: f32 = f32::MIN_POSITIVE;
    const BELOW_ONE: f32 = 1.0 - f32::EPSILON / 2.0;
}

impl Real for f64 {
    fn of(v: f64) -> f64 {
        v
    }
    fn f64(self) -> f64 {
        self
    }
    fn floor(self) -> f64 {
        f64::floor(self)
    }
    fn sqrt(self) -> f64 {
        f64::sqrt(self)
    }
    fn ln_1p(self) -> f64 {
        f64::ln_1p(self)
    }
    fn ln(self) -> f64 {
        f64::ln(self)
    }
    fn tan(self) -> f64 {
        f64::tan(self)
    }
    fn powf(self, e: f64) -> f64 {
        f64::powf(self, e)
    }
    fn neg(self) -> f64 {
        -self
    }
    const MIN_POSITIVE: f64 = f64::MIN_POSITIVE;
    const BELOW_ONE: f64 = 1.0 - f64::EPSILON / 2.0;
}

/// `std::max(a, b)`: `a < b ? b : a`, so a NaN `b` yields `a`.
#[inline]
pub fn cpp_max<T: PartialOrd>(a: T, b: T) -> T {
    if a < b {
        b
    } else {
        a
    }
}

/// `std::min(a, b)`: `b < a ? b : a`.
#[inline]
pub fn cpp_min<T: PartialOrd>(a: T, b: T) -> T {
    if b < a {
        b
    } else {
        a
    }
}

/// ATen's `sample_gamma<T, double>`: a standard Gamma(alpha) draw (Marsaglia and Tsang,
/// alpha < 1 boosted by a uniform power), its uniforms `uniform_real_distribution<double>`
/// and its normals `normal_distribution<double>` (which shares the generator's cached
/// second Box–Muller value).
// `!(y <= 0)`: a NaN y ends the normal loop, as ATen's `while (y <= 0)`.
#[allow(clippy::neg_cmp_op_on_partial_ord)]
pub fn sample_gamma<T: Real>(g: &mut CpuGenerator, alpha: T) -> T {
    let mut alpha = alpha;
    let mut scale = 1.0f64;
    if alpha < T::of(1.0) {
        if alpha == T::of(0.0) {
            return T::of(0.0);
        }
        scale *= (1.0 - unit_f64(g)).powf((T::of(1.0) / alpha).f64());
        alpha = alpha + T::of(1.0);
    }
    // `alpha - 1.0f / 3.0f` is computed in T (float's third for both types: 1.0f / 3.0f).
    let d: f64 = (alpha - T::of((1.0f32 / 3.0f32) as f64)).f64();
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let mut x;
        let mut y;
        loop {
            x = normal_f64(g, 0.0, 1.0);
            y = 1.0 + c * x;
            if !(y <= 0.0) {
                break;
            }
        }
        let v = y * y * y;
        let u = 1.0 - unit_f64(g);
        let xx = x * x;
        if u < 1.0 - 0.0331f32 as f64 * xx * xx {
            return T::of(scale * d * v);
        }
        if u.ln() < 0.5 * xx + d * (1.0 - v + v.ln()) {
            return T::of(scale * d * v);
        }
    }
}

/// ATen's `stirling_approx_tail<double>`.
fn stirling_approx_tail(k: f64) -> f64 {
    const TAIL: [f64; 10] = [
        0.0810614667953272,
        0.0413406959554092,
        0.0276779256849983,
        0.02079067210376509,
        0.0166446911898211,
        0.0138761288230707,
        0.0118967099458917,
        0.0104112652619720,
        0.00925546218271273,
        0.00833056343336287,
    ];
    if k <= 9.0 {
        return TAIL[k as usize];
    }
    let kp1sq = (k + 1.0) * (k + 1.0);
    (1.0 / 12.0 - (1.0 / 360.0 - 1.0 / 1260.0 / kp1sq) / kp1sq) / (k + 1.0)
}

/// ATen's `binomial_inversion`: geometric waiting times summed until they pass `count`.
fn binomial_inversion<T: Real>(g: &mut CpuGenerator, count: T, prob: T) -> T {
    let mut geom_sum = 0.0f64;
    let mut num_geom = T::of(0.0);
    let logprob = prob.neg().ln_1p().f64();
    loop {
        let u = unit_f64(g);
        let geom = (u.ln() / logprob).ceil();
        geom_sum += geom;
        if geom_sum > count.f64() {
            break;
        }
        num_geom = num_geom + T::of(1.0);
    }
    num_geom
}

/// ATen's `btrs`: Hörmann's transformed rejection with squeeze (count * prob >= 10).
fn btrs<T: Real>(g: &mut CpuGenerator, count: T, prob: T) -> T {
    let one = T::of(1.0);
    let stddev = (count * prob * (one - prob)).sqrt().f64();
    let b = 1.15 + 2.53 * stddev;
    let a = -0.0873 + 0.0248 * b + 0.01 * prob.f64();
    let c = (count * prob).f64() + 0.5;
    let v_r = 0.92 - 4.2 / b;
    let r = (prob / (one - prob)).f64();
    let alpha = (2.83 + 5.1 / b) * stddev;
    let m = ((count + one) * prob).floor().f64();
    let countd = count.f64();
    loop {
        let u = unit_f64(g) - 0.5;
        let v = unit_f64(g);
        let us = 0.5 - u.abs();
        let k = T::of(((2.0 * a / us + b) * u + c).floor());
        if k < T::of(0.0) || k > count {
            continue;
        }
        if us >= 0.07 && v <= v_r {
            return k;
        }
        let kd = k.f64();
        let v = (v * alpha / (a / (us * us) + b)).ln();
        let upperbound = (m + 0.5) * ((m + 1.0) / (r * (countd - m + 1.0))).ln()
            + (count + one).f64() * ((countd - m + 1.0) / (count - k + one).f64()).ln()
            + (kd + 0.5) * (r * (count - k + one).f64() / (k + one).f64()).ln()
            + stirling_approx_tail(m)
            + stirling_approx_tail(countd - m)
            - stirling_approx_tail(kd)
            - stirling_approx_tail((count - k).f64());
        if v <= upperbound {
            return k;
        }
    }
}

/// ATen's `sample_binomial<T, double>`: 0 for count <= 0 or prob <= 0, count for prob >= 1,
/// BTRS where the smaller tail's mean is 10 or more, inversion below; NaN for a NaN prob.
pub fn sample_binomial<T: Real>(g: &mut CpuGenerator, count: T, prob: T) -> T {
    if count <= T::of(0.0) || prob <= T::of(0.0) {
        T::of(0.0)
    } else if prob >= T::of(1.0) {
        count
    } else if prob <= T::of(0.5) {
        if (count * prob).f64() >= 10.0 {
            btrs(g, count, prob)
        } else {
            binomial_inversion(g, count, prob)
        }
    } else if prob > T::of(0.5) {
        let qprob = T::of(1.0 - prob.f64());
        if (count * qprob).f64() >= 10.0 {
            count - btrs(g, count, qprob)
        } else {
            count - binomial_inversion(g, count, qprob)
        }
    } else {
        T::of(f64::NAN)
    }
}

/// ATen's `polevl`: Horner's rule over `a[0..=len]`.
fn polevl(x: f64, a: &[f64]) -> f64 {
    a.iter().fold(0.0, |r, &c| r * x + c)
}

/// ATen's `digamma_one<T, double>` (Cephes' asymptotic series after pushing x to 10):
/// x and the steps `1 / x`, `log(x)`, `0.5f / x` stay in T, the sums in double.
pub fn digamma_one<T: Real>(x: T) -> T {
    const PSI_10: f64 = 2.251_752_589_066_721;
    let zero = T::of(0.0);
    if x == zero {
        return T::of(f64::INFINITY);
    }
    let mut x = x;
    let mut additional = 0.0f64;
    if x < zero {
        if x == x.floor() {
            return T::of(f64::INFINITY);
        }
        let pi = T::of(std::f64::consts::PI);
        additional = (pi.neg() / (pi * x).tan()).f64();
        x = T::of(1.0) - x;
    }
    let mut result = 0.0f64;
    while x < T::of(10.0) {
        result -= (T::of(1.0) / x).f64();
        x = x + T::of(1.0);
    }
    if x == T::of(10.0) {
        return T::of(result + PSI_10 + additional);
    }
    const A: [f64; 7] = [
        8.333_333_333_333_333e-2,
        -2.109_279_609_279_609_3e-2,
        7.575_757_575_757_576e-3,
        -4.166_666_666_666_667e-3,
        3.968_253_968_253_968e-3,
        -8.333_333_333_333_333e-3,
        8.333_333_333_333_333e-2,
    ];
    let mut y = 0.0;
    if x < T::of(1.0e17f32 as f64) {
        let z = 1.0 / (x * x).f64();
        y = z * polevl(z, &A);
    }
    T::of(result + x.ln().f64() - (T::of(0.5) / x).f64() - y + additional)
}

/// ATen's `standard_gamma_grad_one<T, double>`: d sample / d alpha of a standard Gamma(alpha)
/// sample x, `-(d/dalpha cdf(x; alpha)) / pdf(x; alpha)` (Taylor series for small x, Rice's
/// saddle point for large alpha, else a bivariate rational approximation).
pub fn standard_gamma_grad_one(alpha: f64, x: f64) -> f64 {
    if x < 0.8f32 as f64 {
        let mut numer = 1.0;
        let mut denom = alpha;
        let mut series1 = numer / denom;
        let mut series2 = numer / (denom * denom);
        for i in 1..=5 {
            numer *= -x / i as f64;
            denom += 1.0;
            series1 += numer / denom;
            series2 += numer / (denom * denom);
        }
        let pow_x_alpha = x.powf(alpha);
        let gamma_pdf = x.powf(alpha - 1.0) * (-x).exp();
        let gamma_cdf = pow_x_alpha * series1;
        let gamma_cdf_alpha =
            (x.ln() - digamma_one(alpha).f64()) * gamma_cdf - pow_x_alpha * series2;
        let result = -gamma_cdf_alpha / gamma_pdf;
        return if result.is_nan() { 0.0 } else { result };
    }
    if alpha > 8.0 {
        if 0.9f32 as f64 * alpha <= x && x <= 1.1f32 as f64 * alpha {
            let numer_1 = 1.0 + 24.0 * alpha * (1.0 + 12.0 * alpha);
            let numer_2 = 1440.0 * (alpha * alpha) + 6.0 * x * (53.0 - 120.0 * x)
                - 65.0 * x * x / alpha
                + alpha * (107.0 + 3600.0 * x);
            let denom = 1244160.0 * (alpha * alpha) * (alpha * alpha);
            return numer_1 * numer_2 / denom;
        }
        let denom = (8.0 * alpha).sqrt();
        let term2 = denom / (alpha - x);
        let term3 = (x - alpha - alpha * (x / alpha).ln()).powf(-1.5);
        let term23 = if x < alpha {
            term2 - term3
        } else {
            term2 + term3
        };
        let term1 = (x / alpha).ln() * term23
            - (2.0 / alpha).sqrt() * (alpha + x) / ((alpha - x) * (alpha - x));
        let stirling = 1.0 + 1.0 / (12.0 * alpha) * (1.0 + 1.0 / (24.0 * alpha));
        let numer = x * term1;
        return -stirling * numer / denom;
    }
    let u = (x / alpha).ln();
    let v = alpha.ln();
    const COEF_UV: [[f64; 8]; 3] = [
        [
            0.16009398,
            -0.094634809,
            0.025146376,
            -0.0030648343,
            1.0,
            0.32668115,
            0.10406089,
            0.0014179084,
        ],
        [
            0.53487893,
            0.1298071,
            0.065735949,
            -0.0015649758,
            0.16639465,
            0.020070113,
            -0.0035938915,
            -0.00058392623,
        ],
        [
            0.040121004,
            -0.0065914022,
            -0.0026286047,
            -0.0013441777,
            0.017050642,
            -0.0021309326,
            0.00085092367,
            -1.5247877e-07,
        ],
    ];
    let cv: [f64; 8] =
        std::array::from_fn(|i| COEF_UV[0][i] + u * (COEF_UV[1][i] + u * COEF_UV[2][i]));
    let p = cv[0] + v * (cv[1] + v * (cv[2] + v * cv[3]));
    let q = cv[4] + v * (cv[5] + v * (cv[6] + v * cv[7]));
    (p / q).exp()
}

/// ATen's `_beta_grad_alpha_small<T, double>`: d x / d alpha of a Beta(alpha, beta) sample x
/// near 0 (Taylor series), computed in T.
fn beta_grad_alpha_small<T: Real>(x: T, alpha: T, beta: T) -> T {
    let factor = digamma_one(alpha) - digamma_one(alpha + beta) - x.ln();
    let mut numer = T::of(1.0);
    let mut series = numer / alpha * (factor + T::of(1.0) / alpha);
    for i in 1..=10 {
        let ci = T::of(i as f64);
        numer = numer * ((ci - beta) * x / ci);
        let denom = alpha + ci;
        series = series + numer / denom * (factor + T::of(1.0) / denom);
    }
    let result = x * (T::of(1.0) - x).powf(beta.neg()) * series;
    if result.f64().is_nan() {
        T::of(0.0)
    } else {
        result
    }
}

/// ATen's `_beta_grad_beta_small<T, double>`: d x / d beta near 0, computed in T.
fn beta_grad_beta_small<T: Real>(x: T, alpha: T, beta: T) -> T {
    let factor = digamma_one(alpha + beta) - digamma_one(beta);
    let mut numer = T::of(1.0);
    let mut betas = T::of(1.0);
    let mut dbetas = T::of(0.0);
    let mut series = factor / alpha;
    for i in 1..=8 {
        let ci = T::of(i as f64);
        numer = numer * (x.neg() / ci);
        dbetas = dbetas * (beta - ci) + betas;
        betas = betas * (beta - ci);
        series = series + numer / (alpha + ci) * (dbetas + factor * betas);
    }
    let result = (T::of(1.0) - x).powf(T::of(1.0) - beta).neg() * series;
    if result.f64().is_nan() {
        T::of(0.0)
    } else {
        result
    }
}

/// ATen's `_beta_grad_alpha_mid<T, double>`: Rice's saddle point expansion for large alpha
/// and beta, in double.
fn beta_grad_alpha_mid(x: f64, alpha: f64, beta: f64) -> f64 {
    let total = alpha + beta;
    let mean = alpha / total;
    let std = (alpha * beta / (total + 1.0)).sqrt() / total;
    if mean - 0.1 * std <= x && x <= mean + 0.1 * std {
        let poly = 47.0 * x * (beta * beta) * (beta * beta)
            + alpha
                * ((43.0 + 20.0 * (16.0 + 27.0 * beta) * x) * (beta * beta) * beta
                    + alpha
                        * (3.0 * (59.0 + 180.0 * beta - 90.0 * x) * (beta * beta)
                            + alpha
                                * ((453.0 + 1620.0 * beta * (1.0 - x) - 455.0 * x) * beta
                                    + alpha * (8.0 * (1.0 - x) * (135.0 * beta - 11.0)))));
        let prefactor_num = (1.0 + 12.0 * alpha) * (1.0 + 12.0 * beta) / (total * total);
        let prefactor_den = 12960.0 * alpha * alpha * alpha * beta * beta * (1.0 + 12.0 * total);
        return prefactor_num / (1.0 - x) * poly / prefactor_den;
    }
    let prefactor = -x / (2.0 * alpha * beta / total).sqrt();
    let stirling = (1.0 + 1.0 / (12.0 * alpha) + 1.0 / (288.0 * alpha * alpha))
        * (1.0 + 1.0 / (12.0 * beta) + 1.0 / (288.0 * beta * beta))
        / (1.0 + 1.0 / (12.0 * total) + 1.0 / (288.0 * total * total));
    let term1_num =
        2.0 * (alpha * alpha) * (x - 1.0) + alpha * beta * (x - 1.0) - x * (beta * beta);
    let axbx = alpha * (x - 1.0) + beta * x;
    let term1_den = (2.0 * alpha / beta).sqrt() * total.powf(1.5) * axbx * axbx;
    let term1 = term1_num / term1_den;
    let term2 = 0.5 * (alpha / (total * x)).ln();
    let term3_num = (8.0 * alpha * beta / total).sqrt();
    let term3_den = beta * x + alpha * (x - 1.0);
    let term3 = term3_num / term3_den;
    let term4_base = beta * (beta / (total * (1.0 - x))).ln() + alpha * (alpha / (total * x)).ln();
    let term4 = term4_base.powf(-1.5);
    let term1234 = term1 + term2 * (term3 + if x < mean { term4 } else { -term4 });
    stirling * prefactor * term1234
}

/// ATen's `dirichlet_grad_one<T, double>`: the scaled reparameterized gradient
/// `-(d/dalpha cdf(x; alpha, total - alpha)) / pdf(x; ...) / (1 - x)` of a Beta sample x.
pub fn dirichlet_grad_one<T: Real>(x: T, alpha: T, total: T) -> T {
    let (xd, alphad, totald) = (x.f64(), alpha.f64(), total.f64());
    let beta = total - alpha;
    let betad = totald - alphad;
    let boundary = total * x * (T::of(1.0) - x);
    if x <= T::of(0.5) && boundary < T::of(2.5) {
        return beta_grad_alpha_small(x, alpha, beta);
    }
    if x >= T::of(0.5) && boundary < T::of(0.75) {
        return beta_grad_beta_small(T::of(1.0) - x, beta, alpha).neg();
    }
    if alpha > T::of(6.0) && beta > T::of(6.0) {
        return T::of(beta_grad_alpha_mid(xd, alphad, betad));
    }
    const C: [[[[f64; 4]; 3]; 3]; 2] = [
        [
            [
                [1.003668233, -0.01061107488, -0.0657888334, 0.01201642863],
                [0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033],
                [
                    -0.03276231906,
                    0.004474107445,
                    0.002429354597,
                    -0.0001557569013,
                ],
            ],
            [
                [0.221950385, -0.3187676331, 0.01799915743, 0.01074823814],
                [-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057],
                [
                    0.02155310298,
                    0.004170831599,
                    0.001292462449,
                    6.976601077e-05,
                ],
            ],
            [
                [
                    -0.05980841433,
                    0.008441916499,
                    0.01085618172,
                    0.002319392565,
                ],
                [
                    0.02911413504,
                    0.01400243777,
                    -0.002721828457,
                    0.000751041181,
                ],
                [
                    0.005900514878,
                    -0.001936558688,
                    -9.495446725e-06,
                    5.385558597e-05,
                ],
            ],
        ],
        [
            [
                [1.0, -0.02924021934, -0.04438342661, 0.007285809825],
                [0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521],
                [
                    -0.03301322327,
                    0.004845219414,
                    0.00231480583,
                    -0.0002307248149,
                ],
            ],
            [
                [0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273],
                [
                    0.1014815858,
                    -0.06589186703,
                    0.01272886114,
                    -0.0007316646956,
                ],
                [
                    -0.007258481865,
                    0.001096195486,
                    0.0003934994223,
                    -4.12701925e-05,
                ],
            ],
            [
                [
                    0.06469649321,
                    -0.0236701437,
                    0.002902096474,
                    -5.896963079e-05,
                ],
                [
                    0.001925008108,
                    -0.002869809258,
                    0.0008000589141,
                    -6.063713228e-05,
                ],
                [
                    -0.0003477407336,
                    6.959756487e-05,
                    1.097287507e-05,
                    -1.650964693e-06,
                ],
            ],
        ],
    ];
    let u = xd.ln();
    let a = alphad.ln() - u;
    let b = totald.ln() - a;
    let pow_u = [1.0, u, u * u];
    let pow_a = [1.0, a, a * a];
    let (mut p, mut q) = (0.0f64, 0.0f64);
    for i in 0..3 {
        for j in 0..3 {
            let ua = pow_u[i] * pow_a[j];
            let c0 = &C[0][i][j];
            let c1 = &C[1][i][j];
            p += ua * (c0[0] + b * (c0[1] + b * (c0[2] + b * c0[3])));
            q += ua * (c1[0] + b * (c1[1] + b * (c1[2] + b * c1[3])));
        }
    }
    // digamma_one<scalar_t, double> of the double arguments narrowed to T: two T values,
    // subtracted in T.
    let dg = |v: f64| digamma_one(T::of(v));
    let approx = xd * (dg(totald) - dg(alphad)).f64() / betad;
    T::of(p / q * approx)
}

/// Lanes of `L` doubles added lane by lane (a `Vectorized<double>` for L > 1).
type Lanes<const L: usize> = [f64; L];

fn add_lanes<const L: usize>(a: &mut Lanes<L>, b: &Lanes<L>) {
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
}

/// ATen's `multi_row_sum` with 4 rows: items `(i, k)` summed per column k in chunks of
/// 2^level_power, the chunk sums carried up four levels (SumKernel.cpp's cascade).
#[allow(clippy::needless_range_loop)] // levels j and j - 1 of one column k
fn multi_row_sum<const L: usize>(
    item: impl Fn(usize, usize) -> Lanes<L>,
    size: usize,
) -> [Lanes<L>; 4] {
    const LEVELS: usize = 4;
    let ceil_log2 = if size <= 2 {
        1
    } else {
        64 - ((size - 1) as u64).leading_zeros() as usize
    };
    let level_power = (ceil_log2 / LEVELS).max(4);
    let level_step = 1usize << level_power;
    let level_mask = level_step - 1;
    let mut acc = [[[0.0f64; L]; 4]; LEVELS];
    let mut i = 0;
    while i + level_step <= size {
        for _ in 0..level_step {
            for (k, a) in acc[0].iter_mut().enumerate() {
                add_lanes(a, &item(i, k));
            }
            i += 1;
        }
        for j in 1..LEVELS {
            for k in 0..4 {
                let below = acc[j - 1][k];
                add_lanes(&mut acc[j][k], &below);
                acc[j - 1][k] = [0.0; L];
            }
            if i & (level_mask << (j * level_power)) != 0 {
                break;
            }
        }
    }
    while i < size {
        for (k, a) in acc[0].iter_mut().enumerate() {
            add_lanes(a, &item(i, k));
        }
        i += 1;
    }
    for j in 1..LEVELS {
        for k in 0..4 {
            let up = acc[j][k];
            add_lanes(&mut acc[0][k], &up);
        }
    }
    acc[0]
}

/// ATen's `row_sum`: `size` items as a (-1, 4) array summed per column, the ragged end
/// added to column 0, then the columns folded into it.
fn row_sum<const L: usize>(item: impl Fn(usize) -> Lanes<L>, size: usize) -> Lanes<L> {
    let size_ilp = size / 4;
    let mut partial = multi_row_sum(|i, k| item(i * 4 + k), size_ilp);
    for i in size_ilp * 4..size {
        add_lanes(&mut partial[0], &item(i));
    }
    for k in 1..4 {
        let p = partial[k];
        add_lanes(&mut partial[0], &p);
    }
    partial[0]
}

/// PyTorch's CPU `sum` of one contiguous row of doubles (`cascade_sum`'s inner reduction,
/// in its AVX2 kernel, which PyTorch also runs on AVX-512 machines: vectors of 4 doubles
/// when the row has at least 4, plain doubles below), bit for bit. The Dirichlet sampler
/// normalizes by this sum. (A single row of 32768 or more elements is split among threads
/// by PyTorch; that order is not reproduced.)
pub fn aten_row_sum(row: &[f64]) -> f64 {
    const W: usize = 4;
    let n = row.len();
    if n < W {
        return row_sum::<1>(|i| [row[i]], n)[0];
    }
    let vecs = n / W;
    let lanes = row_sum::<W>(|i| std::array::from_fn(|l| row[i * W + l]), vecs);
    let mut acc = 0.0f64;
    for &v in &row[vecs * W..] {
        acc += v;
    }
    for v in lanes {
        acc += v;
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digamma_one_values() {
        // psi(1) = -Euler's gamma, psi(10) = PSI_10, the reflection for negatives.
        assert!((digamma_one(1.0f64) + 0.577_215_664_901_532_9).abs() < 1e-14);
        assert_eq!(digamma_one(10.0f64), 2.251_752_589_066_721);
        assert!((digamma_one(-0.5f64) - 0.036_489_973_978_576_52).abs() < 1e-13);
        assert_eq!(digamma_one(0.0f64), f64::INFINITY);
        assert_eq!(digamma_one(-2.0f64), f64::INFINITY);
    }

    #[test]
    fn binomial_edges() {
        let mut g = CpuGenerator::new(0);
        assert_eq!(sample_binomial(&mut g, 0.0f64, 0.5), 0.0);
        assert_eq!(sample_binomial(&mut g, 7.0f32, 1.0), 7.0);
        assert!(sample_binomial(&mut g, 7.0f64, f64::NAN).is_nan());
        for _ in 0..100 {
            let k = sample_binomial(&mut g, 50.0f64, 0.4);
            assert!((0.0..=50.0).contains(&k) && k == k.floor());
        }
    }

    #[test]
    fn row_sum_cascade() {
        // Exact for small integers in any order; checks the chunking covers every element.
        for n in [0usize, 1, 3, 4, 5, 17, 64, 65, 300, 5000] {
            let row: Vec<f64> = (0..n).map(|i| (i % 7) as f64).collect();
            assert_eq!(aten_row_sum(&row), row.iter().sum::<f64>(), "{n}");
        }
    }

    #[test]
    fn gamma_mean() {
        // The sample mean of Gamma(alpha) is alpha (4 standard errors).
        let mut g = CpuGenerator::new(1);
        for alpha in [0.3f64, 1.0, 4.5] {
            let n = 20000;
            let m: f64 = (0..n).map(|_| sample_gamma(&mut g, alpha)).sum::<f64>() / n as f64;
            assert!(
                (m - alpha).abs() < 4.0 * (alpha / n as f64).sqrt(),
                "{alpha}: {m}"
            );
        }
    }
}
