//! Scalar special functions the declared ops' CPU kernels call where `std`/`libm` lack them
//! (issue 24): erfc (libm), erfinv (PyTorch's calc_erfinv).

use std::f64::consts::PI;

/// The special functions on `f32` and `f64`, for the `cpu:` kernels of `ops/unary_decl.rs`.
pub(crate) trait SpecialFns: Sized {
    fn erfc(self) -> Self;
    fn erfinv(self) -> Self;
}

impl SpecialFns for f32 {
    fn erfc(self) -> f32 {
        libm::erfcf(self)
    }
    fn erfinv(self) -> f32 {
        erfinv(f64::from(self), |x| f64::from(libm::erff(x as f32))) as f32
    }
}

impl SpecialFns for f64 {
    fn erfc(self) -> f64 {
        libm::erfc(self)
    }
    fn erfinv(self) -> f64 {
        erfinv(self, libm::erf)
    }
}

/// PyTorch's `calc_erfinv`: a rational first guess (central range |y| <= 0.7, else the tail),
/// refined by two Newton steps on `erf`.
fn erfinv(y: f64, erf: impl Fn(f64) -> f64) -> f64 {
    const A: [f64; 4] = [0.886226899, -1.645349621, 0.914624893, -0.140543331];
    const B: [f64; 4] = [-2.118377725, 1.442710462, -0.329097515, 0.012229801];
    const C: [f64; 4] = [-1.970840454, -1.624906493, 3.429567803, 1.641345311];
    const D: [f64; 2] = [3.543889200, 1.637067800];
    let a = y.abs();
    if a > 1.0 || y.is_nan() {
        return f64::NAN;
    }
    if a == 1.0 {
        return f64::INFINITY.copysign(y);
    }
    let mut x = if a <= 0.7 {
        let z = y * y;
        let num = ((A[3] * z + A[2]) * z + A[1]) * z + A[0];
        let dem = (((B[3] * z + B[2]) * z + B[1]) * z + B[0]) * z + 1.0;
        y * num / dem
    } else {
        let z = (-((1.0 - a) / 2.0).ln()).sqrt();
        let num = ((C[3] * z + C[2]) * z + C[1]) * z + C[0];
        let dem = (D[1] * z + D[0]) * z + 1.0;
        num.copysign(y) / dem
    };
    let k = 2.0 / PI.sqrt();
    for _ in 0..2 {
        x -= (erf(x) - y) / (k * (-x * x).exp());
    }
    x
}
