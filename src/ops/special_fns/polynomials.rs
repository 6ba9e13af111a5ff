//! The orthogonal polynomials of torch.special (Chebyshev T / U / V / W and their shifted forms,
//! Hermite H / He, Laguerre L, Legendre P), evaluated as PyTorch's `*_forward` kernels: the
//! degree read as PyTorch casts it, closed forms where PyTorch takes them, else the recurrence.

use super::Real;

/// The degree as PyTorch's kernels read it: `static_cast<int64_t>` of the float `n`, which on
/// x86 gives i64::MIN for NaN, infinities and values out of range (then the polynomial is 0).
pub(super) fn degree<T: Real>(n: T) -> i64 {
    let n = n.to_f64();
    if n.abs() < 9.2e18 {
        n as i64
    } else {
        i64::MIN
    }
}

/// The three-term recurrence r = 2x q - p from (p, q) = (1, q1) up to degree n, stopping once q
/// is NaN (PyTorch's Chebyshev loops).
pub(super) fn chebyshev_recurrence<T: Real>(x2: T, q1: T, n: i64) -> T {
    let (mut p, mut q) = (T::c(1.0), q1);
    let mut r = T::c(f64::NAN);
    let mut k = 2;
    while k <= n && !q.to_f64().is_nan() {
        r = x2 * q - p;
        p = q;
        q = r;
        k += 1;
    }
    r
}

/// PyTorch's `chebyshev_polynomial_t_forward`: T_n(x); cos(n acos x) inside (-1, 1) past n = 6.
pub(super) fn chebyshev_t<T: Real>(x: T, n: T) -> T {
    let (c, n) = (T::c, degree(n));
    if n < 0 {
        return c(0.0);
    }
    if x.abs() == c(1.0) {
        return if x > c(0.0) || n % 2 == 0 {
            c(1.0)
        } else {
            c(-1.0)
        };
    }
    if n > 6 && x.abs() < c(1.0) {
        return (c(n as f64) * x.acos()).cos();
    }
    match n {
        0 => c(1.0),
        1 => x,
        _ => chebyshev_recurrence(x + x, x, n),
    }
}

/// PyTorch's `chebyshev_polynomial_u_forward`: U_n(x).
pub(super) fn chebyshev_u<T: Real>(x: T, n: T) -> T {
    let (c, n) = (T::c, degree(n));
    if n < 0 {
        return c(0.0);
    }
    if x.abs() == c(1.0) {
        let v = c((n + 1) as f64);
        return if x > c(0.0) || n % 2 == 0 { v } else { -v };
    }
    if n > 8 && x.abs() < c(1.0) {
        let a = x.acos();
        if a.sin() != c(0.0) {
            return (c((n + 1) as f64) * a).sin() / a.sin();
        }
        return c((n + 1) as f64) * (c((n + 1) as f64) * a).cos() / x;
    }
    match n {
        0 => c(1.0),
        1 => x + x,
        _ => chebyshev_recurrence(x + x, x + x, n),
    }
}

/// PyTorch's `chebyshev_polynomial_v_forward`: V_n(x), the third kind.
pub(super) fn chebyshev_v<T: Real>(x: T, n: T) -> T {
    let (c, n) = (T::c, degree(n));
    if n < 0 {
        return c(0.0);
    }
    let odd = c((n + n + 1) as f64);
    if x.abs() == c(1.0) {
        if x > c(0.0) {
            return c(1.0);
        }
        return if n % 2 == 0 { odd } else { -odd };
    }
    if n > 8 && x.abs() < c(1.0) {
        let a = x.acos();
        if (a / c(2.0)).sin() != c(1.0) {
            return ((c(n as f64) + c(0.5)) * a).cos() / (a / c(2.0)).cos();
        }
        return if n % 2 == 0 { odd } else { -odd };
    }
    match n {
        0 => c(1.0),
        1 => x + x - c(1.0),
        _ => chebyshev_recurrence(x + x, x + x - c(1.0), n),
    }
}

/// PyTorch's `chebyshev_polynomial_w_forward`: W_n(x), the fourth kind.
pub(super) fn chebyshev_w<T: Real>(x: T, n: T) -> T {
    let (c, n) = (T::c, degree(n));
    if n < 0 {
        return c(0.0);
    }
    let odd = c((n + n + 1) as f64);
    if x.abs() == c(1.0) {
        if x > c(0.0) {
            return odd;
        }
        return if n % 2 == 0 { c(1.0) } else { c(-1.0) };
    }
    if n > 8 && x.abs() < c(1.0) {
        let a = x.acos();
        if (a / c(2.0)).cos() != c(1.0) {
            return ((c(n as f64) + c(0.5)) * a).sin() / (a / c(2.0)).sin();
        }
        if x > c(0.0) {
            return odd;
        }
        return if n % 2 == 0 { c(1.0) } else { c(-1.0) };
    }
    match n {
        0 => c(1.0),
        1 => x + x + c(1.0),
        _ => chebyshev_recurrence(x + x, x + x + c(1.0), n),
    }
}

/// PyTorch's `shifted_chebyshev_polynomial_t_forward`: T*_n(x) = T_n(2x - 1).
pub(super) fn shifted_chebyshev_t<T: Real>(x: T, n: T) -> T {
    let (c, n) = (T::c, degree(n));
    let y = x + x - c(1.0);
    if n < 0 {
        return c(0.0);
    }
    if x == c(1.0) {
        return c(1.0);
    }
    if x == c(0.0) {
        return if n % 2 == 0 { c(1.0) } else { c(-1.0) };
    }
    if n > 6 && y.abs() < c(1.0) {
        return (c(n as f64) * y.acos()).cos();
    }
    match n {
        0 => c(1.0),
        1 => y,
        _ => chebyshev_recurrence(y + y, y, n),
    }
}

/// PyTorch's `shifted_chebyshev_polynomial_u_forward`: U_n(2x - 1).
pub(super) fn shifted_chebyshev_u<T: Real>(x: T, n: T) -> T {
    let (c, n) = (T::c, degree(n));
    let y = x + x - c(1.0);
    if n < 0 {
        return c(0.0);
    }
    let v = c((n + 1) as f64);
    if x == c(1.0) {
        return v;
    }
    if x == c(0.0) {
        return if n % 2 == 0 { v } else { -v };
    }
    if n > 6 && y.abs() < c(1.0) {
        let a = y.acos();
        if a.sin() != c(0.0) {
            return (v * a).sin() / a.sin();
        }
        return v * (v * a).cos() / y;
    }
    match n {
        0 => c(1.0),
        1 => y + y,
        _ => chebyshev_recurrence(y + y, y + y, n),
    }
}

/// PyTorch's `shifted_chebyshev_polynomial_v_forward`: V_n(2x - 1).
pub(super) fn shifted_chebyshev_v<T: Real>(x: T, n: T) -> T {
    let (c, n) = (T::c, degree(n));
    let y = x + x - c(1.0);
    if n < 0 {
        return c(0.0);
    }
    let odd = c((n + n + 1) as f64);
    if x == c(1.0) {
        return c(1.0);
    }
    if x == c(0.0) {
        return if n % 2 == 0 { odd } else { -odd };
    }
    if n > 6 && y.abs() < c(1.0) {
        let a = y.acos();
        if (a / c(2.0)).sin() != c(1.0) {
            return ((c(n as f64) + c(0.5)) * a).cos() / (a / c(2.0)).cos();
        }
        return if n % 2 == 0 { odd } else { -odd };
    }
    match n {
        0 => c(1.0),
        1 => y + y - c(1.0),
        _ => chebyshev_recurrence(y + y, y + y - c(1.0), n),
    }
}

/// PyTorch's `shifted_chebyshev_polynomial_w_forward`: W_n(2x - 1).
pub(super) fn shifted_chebyshev_w<T: Real>(x: T, n: T) -> T {
    let (c, n) = (T::c, degree(n));
    let y = x + x - c(1.0);
    if n < 0 {
        return c(0.0);
    }
    let odd = c((n + n + 1) as f64);
    if x == c(1.0) {
        return odd;
    }
    if x == c(0.0) {
        return if n % 2 == 0 { c(1.0) } else { c(-1.0) };
    }
    if n > 4 && y.abs() < c(1.0) {
        let a = y.acos();
        if (a / c(2.0)).cos() != c(1.0) {
            return ((c(n as f64) + c(0.5)) * a).sin() / (a / c(2.0)).sin();
        }
        return if n % 2 == 0 { c(1.0) } else { c(-1.0) };
    }
    match n {
        0 => c(1.0),
        1 => y + y + c(1.0),
        _ => chebyshev_recurrence(y + y, y + y + c(1.0), n),
    }
}

/// PyTorch's `hermite_polynomial_h_forward`: the physicists' H_n(x); NaN past its degree limit
/// (128 in float32, 512 in float64).
pub(super) fn hermite_h<T: Real>(x: T, n: T) -> T {
    let (c, n) = (T::c, degree(n));
    match n {
        n if n < 0 => c(0.0),
        0 => c(1.0),
        1 => x + x,
        n if n > T::HERMITE_LIMIT => c(f64::NAN),
        n => {
            let (mut p, mut q, mut r) = (c(1.0), x + x, c(0.0));
            let mut k = 2;
            while k < n + n {
                r = (x + x) * q - c(k as f64) * p;
                p = q;
                q = r;
                k += 2;
            }
            r
        }
    }
}

/// PyTorch's `hermite_polynomial_he_forward`: the probabilists' He_n(x).
pub(super) fn hermite_he<T: Real>(x: T, n: T) -> T {
    let (c, n) = (T::c, degree(n));
    match n {
        n if n < 0 => c(0.0),
        0 => c(1.0),
        1 => x,
        n if n > T::HERMITE_LIMIT => c(f64::NAN),
        n => {
            let (mut p, mut q, mut r) = (c(1.0), x, c(0.0));
            for k in 1..n {
                r = x * q - c(k as f64) * p;
                p = q;
                q = r;
            }
            r
        }
    }
}

/// PyTorch's `laguerre_polynomial_l_forward`: L_n(x); 1 at x = 0.
pub(super) fn laguerre_l<T: Real>(x: T, n: T) -> T {
    let (c, n) = (T::c, degree(n));
    if n < 0 {
        return c(0.0);
    }
    if x.abs() == c(0.0) || n == 0 {
        return c(1.0);
    }
    if n == 1 {
        return c(1.0) - x;
    }
    let (mut p, mut q) = (c(1.0), c(1.0) - x);
    let mut r = c(f64::NAN);
    let mut k = 1;
    while k < n && !q.to_f64().is_nan() {
        r = ((c((k + k) as f64) + (c(1.0) - x)) * q - c(k as f64) * p) / c((k + 1) as f64);
        p = q;
        q = r;
        k += 1;
    }
    r
}

/// PyTorch's `legendre_polynomial_p_forward`: P_n(x).
pub(super) fn legendre_p<T: Real>(x: T, n: T) -> T {
    let (c, n) = (T::c, degree(n));
    if n < 0 {
        return c(0.0);
    }
    if x.abs() == c(1.0) {
        return if x > c(0.0) || n % 2 == 0 {
            c(1.0)
        } else {
            c(-1.0)
        };
    }
    match n {
        0 => c(1.0),
        1 => x,
        _ => {
            let (mut p, mut q) = (c(1.0), x);
            let mut r = c(f64::NAN);
            let mut k = 1;
            while k < n && !q.to_f64().is_nan() {
                r = (c((k + k + 1) as f64) * x * q - c(k as f64) * p) / c((k + 1) as f64);
                p = q;
                q = r;
                k += 1;
            }
            r
        }
    }
}
