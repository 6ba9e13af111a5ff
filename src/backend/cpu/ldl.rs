//! LAPACK's symmetric indefinite factorization, Bunch–Kaufman `A = L D Lᵀ` from the lower
//! triangle (`sytrf` with `uplo = 'L'`, what `torch.linalg.ldl_factor` returns), and the solve
//! with its factors (`sytrs`). Matrices are column-major here, as LAPACK's and as PyTorch lays
//! out `LD` and `ldl_solve`'s result.
//!
//! Note [LDL order]
//! Programs read `LD` and `pivots` (1-based, negative pairs for 2x2 blocks), so they must be
//! LAPACK's exactly, not only a valid factorization. faer's LBLᵀ also pivots by Bunch–Kaufman,
//! but it stores the whole permutation (LAPACK leaves the columns of L already computed
//! where they are, interchanging only the trailing block) and updates in its own blocked,
//! fused order, so neither its L nor its near-tie pivot choices are LAPACK's. This is the
//! unblocked `dsytf2` instead, step for step: the pivot tests with alpha = (1 + sqrt 17) / 8,
//! the rank-1 update `a + x * (-d11 * x_j)` skipping zero `x_j` (`dsyr`), the rank-2 update
//! `a - a_k * wk - a_k1 * wkp1`, each product rounded (no fused multiply-add). Measured
//! against torch 2.13's MKL `sytrf`: bit-equal LD, pivots and info for n < 100 in float32
//! and float64 (MKL runs its blocked panel code from n = 100 on: there the same pivots and
//! LD within ~2e-14 (float64) / ~1e-5 (float32) relative), NaN and infinity included: MKL's
//! `dsytf2` is the one without the `sfmin` branch and the `disnan` test (a NaN column is no
//! zero column), its `idamax` returns the first NaN of a column, and `max(x, y)` is
//! `if x > y { x } else { y }` (tests/test_ldl.py).

use super::linalg::Real;

/// LAPACK's `idamax` as MKL's: the first NaN, else the first largest absolute value.
fn idamax<T: Real>(v: impl Iterator<Item = T>) -> usize {
    let mut best = 0;
    let mut max = T::default();
    for (i, x) in v.enumerate() {
        if x.partial_cmp(&x).is_none() {
            return i; // NaN
        }
        let a = x.fabs();
        if i == 0 || a > max {
            best = i;
            max = a;
        }
    }
    best
}

/// Fortran's `MAX(x, y)` as compiled (`maxsd`): `y` unless `x > y`.
fn fmax<T: Real>(x: T, y: T) -> T {
    if x > y {
        x
    } else {
        y
    }
}

/// `sytf2` (lower) on one column-major `n x n` matrix `a` whose lower triangle holds A (the
/// strict upper triangle is zeros and stays so): L and D overwrite it, `ipiv` gets LAPACK's
/// 1-based pivots; returns `info` (1-based index of the first zero column, 0 if none).
fn sytf2<T: Real>(a: &mut [T], n: usize, ipiv: &mut [i32]) -> i32 {
    let alpha = T::of((1.0 + 17f64.sqrt()) / 8.0);
    let zero = T::default();
    let one = T::of(1.0);
    let at = |i: usize, j: usize| i + j * n;
    let mut info = 0;
    let mut k = 0;
    while k < n {
        let mut kstep = 1;
        let absakk = a[at(k, k)].fabs();
        let (imax, colmax) = if k + 1 < n {
            let i = k + 1 + idamax((k + 1..n).map(|i| a[at(i, k)]));
            (i, a[at(i, k)].fabs())
        } else {
            (k, zero)
        };
        let kp;
        if fmax(absakk, colmax) == zero {
            // A zero column: D(k) = 0, nothing to eliminate.
            if info == 0 {
                info = k as i32 + 1;
            }
            kp = k;
        } else {
            if absakk >= alpha * colmax {
                kp = k;
            } else {
                // The largest off-diagonal entry of row / column imax.
                let jmax = k + idamax((k..imax).map(|j| a[at(imax, j)]));
                let mut rowmax = a[at(imax, jmax)].fabs();
                if imax + 1 < n {
                    let jmax = imax + 1 + idamax((imax + 1..n).map(|i| a[at(i, imax)]));
                    rowmax = fmax(rowmax, a[at(jmax, imax)].fabs());
                }
                if absakk >= alpha * colmax * (colmax / rowmax) {
                    kp = k;
                } else if a[at(imax, imax)].fabs() >= alpha * rowmax {
                    kp = imax;
                } else {
                    kp = imax;
                    kstep = 2;
                }
            }
            let kk = k + kstep - 1;
            if kp != kk {
                // Interchange rows and columns kk and kp of the trailing block A(k:n, k:n).
                for i in kp + 1..n {
                    a.swap(at(i, kk), at(i, kp));
                }
                for j in kk + 1..kp {
                    a.swap(at(j, kk), at(kp, j));
                }
                a.swap(at(kk, kk), at(kp, kp));
                if kstep == 2 {
                    a.swap(at(k + 1, k), at(kp, k));
                }
            }
            if kstep == 1 {
                if k + 1 < n {
                    // A := A - W(k) (1 / D(k)) W(k)ᵀ (dsyr), then L(k) = W(k) / D(k) (dscal).
                    let d11 = one / a[at(k, k)];
                    let m = n - k - 1;
                    for j in 0..m {
                        let xj = a[at(k + 1 + j, k)];
                        if xj != zero {
                            let temp = (zero - d11) * xj;
                            for i in j..m {
                                let x = a[at(k + 1 + i, k)];
                                let y = &mut a[at(k + 1 + i, k + 1 + j)];
                                *y += x * temp;
                            }
                        }
                    }
                    for i in k + 1..n {
                        a[at(i, k)] = a[at(i, k)] * d11;
                    }
                }
            } else if k + 2 < n {
                // A := A - (W(k) W(k+1)) inv(D(k)) (W(k) W(k+1))ᵀ, columns k, k+1 become L's.
                let mut d21 = a[at(k + 1, k)];
                let d11 = a[at(k + 1, k + 1)] / d21;
                let d22 = a[at(k, k)] / d21;
                let t = one / (d11 * d22 - one);
                d21 = t / d21;
                for j in k + 2..n {
                    let wk = d21 * (d11 * a[at(j, k)] - a[at(j, k + 1)]);
                    let wkp1 = d21 * (d22 * a[at(j, k + 1)] - a[at(j, k)]);
                    for i in j..n {
                        let v = a[at(i, j)] - a[at(i, k)] * wk - a[at(i, k + 1)] * wkp1;
                        a[at(i, j)] = v;
                    }
                    a[at(j, k)] = wk;
                    a[at(j, k + 1)] = wkp1;
                }
            }
        }
        if kstep == 1 {
            ipiv[k] = kp as i32 + 1;
        } else {
            ipiv[k] = -(kp as i32 + 1);
            ipiv[k + 1] = -(kp as i32 + 1);
        }
        k += kstep;
    }
    info
}

/// `torch.linalg.ldl_factor_ex` on each row-major `n x n` matrix of `a` (its lower triangle
/// read): (LD column-major with zeros above the diagonal, 1-based pivots, info per matrix).
pub fn ldl_factor<T: Real>(a: &[T], batch: usize, n: usize) -> (Vec<T>, Vec<i32>, Vec<i32>) {
    let mut ld = vec![T::default(); batch * n * n];
    let mut piv = vec![0i32; batch * n];
    let mut info = Vec::with_capacity(batch);
    for b in 0..batch {
        let src = &a[b * n * n..(b + 1) * n * n];
        let dst = &mut ld[b * n * n..(b + 1) * n * n];
        for j in 0..n {
            for i in j..n {
                dst[i + j * n] = src[i * n + j];
            }
        }
        info.push(sytf2(dst, n, &mut piv[b * n..(b + 1) * n]));
    }
    (ld, piv, info)
}

/// `sytrs` (lower) on one system: `b` (column-major `n x k`) becomes X with A X = B, A given
/// by `sytf2`'s column-major `ld` and `ipiv`. Pivots that do not describe LAPACK's blocks
/// (out of range, a 2x2 block past the last row) give `Err` before anything is read.
fn sytrs<T: Real>(ld: &[T], ipiv: &[i64], b: &mut [T], n: usize, k: usize) -> Result<(), ()> {
    let at = |i: usize, j: usize| i + j * n;
    let zero = T::default();
    let one = T::of(1.0);
    // The blocks, as sytrs walks them forwards (a 2x2 block at k reads ipiv[k] only).
    let mut blocks = Vec::with_capacity(n);
    let mut i = 0;
    while i < n {
        let p = ipiv[i];
        if p == 0 || p.unsigned_abs() as usize > n || (p < 0 && i + 1 >= n) {
            return Err(());
        }
        blocks.push((i, p));
        i += if p > 0 { 1 } else { 2 };
    }
    let swap_rows = |b: &mut [T], r: usize, s: usize| {
        if r != s {
            for c in 0..k {
                b.swap(at(r, c), at(s, c));
            }
        }
    };
    // L D X = B.
    for &(k0, p) in &blocks {
        if p > 0 {
            swap_rows(b, k0, p as usize - 1);
            // B(k+1:n, :) -= L(k) B(k, :) (dger).
            for c in 0..k {
                let y = b[at(k0, c)];
                if y != zero {
                    let temp = (zero - one) * y;
                    for r in k0 + 1..n {
                        b[at(r, c)] = b[at(r, c)] + ld[at(r, k0)] * temp;
                    }
                }
            }
            let s = one / ld[at(k0, k0)];
            for c in 0..k {
                b[at(k0, c)] = b[at(k0, c)] * s;
            }
        } else {
            swap_rows(b, k0 + 1, (-p) as usize - 1);
            for col in [k0, k0 + 1] {
                for c in 0..k {
                    let y = b[at(col, c)];
                    if y != zero {
                        let temp = (zero - one) * y;
                        for r in k0 + 2..n {
                            b[at(r, c)] = b[at(r, c)] + ld[at(r, col)] * temp;
                        }
                    }
                }
            }
            let akm1k = ld[at(k0 + 1, k0)];
            let akm1 = ld[at(k0, k0)] / akm1k;
            let ak = ld[at(k0 + 1, k0 + 1)] / akm1k;
            let denom = akm1 * ak - one;
            for c in 0..k {
                let bkm1 = b[at(k0, c)] / akm1k;
                let bk = b[at(k0 + 1, c)] / akm1k;
                b[at(k0, c)] = (ak * bkm1 - bk) / denom;
                b[at(k0 + 1, c)] = (akm1 * bk - bkm1) / denom;
            }
        }
    }
    // Lᵀ X = B, backwards (dgemv 'T': B(k, :) -= B(k+1:n, :)ᵀ L(k)).
    let gemv_t = |b: &mut [T], row: usize, col: usize, from: usize| {
        for c in 0..k {
            let mut temp = zero;
            for r in from..n {
                temp += b[at(r, c)] * ld[at(r, col)];
            }
            b[at(row, c)] = b[at(row, c)] + (zero - one) * temp;
        }
    };
    for &(k0, p) in blocks.iter().rev() {
        if p > 0 {
            gemv_t(b, k0, k0, k0 + 1);
            swap_rows(b, k0, p as usize - 1);
        } else {
            gemv_t(b, k0 + 1, k0 + 1, k0 + 2);
            gemv_t(b, k0, k0, k0 + 2);
            swap_rows(b, k0 + 1, (-p) as usize - 1);
        }
    }
    Ok(())
}

/// `torch.linalg.ldl_solve` on a batch: `ld` column-major `n x n` factors, `ipiv` their
/// pivots, `b` column-major `n x k` right-hand sides overwritten by the solutions. `Err(i)`:
/// matrix i's pivots are not LAPACK's blocks.
pub fn ldl_solve<T: Real>(
    ld: &[T],
    ipiv: &[i64],
    b: &mut [T],
    batch: usize,
    n: usize,
    k: usize,
) -> Result<(), usize> {
    for i in 0..batch {
        sytrs(
            &ld[i * n * n..(i + 1) * n * n],
            &ipiv[i * n..(i + 1) * n],
            &mut b[i * n * k..(i + 1) * n * k],
            n,
            k,
        )
        .map_err(|_| i)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_by_two_pivot_is_lapacks() {
        // torch.linalg.ldl_factor_ex of [[0, 1, 2], [1, 0, 3], [2, 3, 0]] (MKL's sytrf).
        let a = [0.0f64, 1.0, 2.0, 1.0, 0.0, 3.0, 2.0, 3.0, 0.0];
        let (ld, piv, info) = ldl_factor(&a, 1, 3);
        assert_eq!((piv, info), (vec![-3, -3, 3], vec![0]));
        // column-major: columns (0, 2, 1.5), (0, 0, 0.5), (0, 0, -3)
        assert_eq!(ld, vec![0.0, 2.0, 1.5, 0.0, 0.0, 0.5, 0.0, 0.0, -3.0]);
        let mut b = vec![1.0, 2.0, 3.0];
        ldl_solve(&ld, &[-3, -3, 3], &mut b, 1, 3, 1).unwrap();
        let r: Vec<f64> = (0..3)
            .map(|i| (0..3).map(|j| a[i * 3 + j] * b[j]).sum())
            .collect();
        assert!(r
            .iter()
            .zip([1.0, 2.0, 3.0])
            .all(|(x, y)| (x - y).abs() < 1e-12));
    }

    #[test]
    fn zero_column_sets_info_and_bad_pivots_are_refused() {
        let (ld, piv, info) = ldl_factor(&[0.0f32; 9], 1, 3);
        assert_eq!((ld, piv, info), (vec![0.0; 9], vec![1, 2, 3], vec![1]));
        let ld = [1.0f64, 0.0, 0.0, 1.0];
        assert_eq!(ldl_solve(&ld, &[1, -2], &mut [1.0, 1.0], 1, 2, 1), Err(0));
        assert_eq!(ldl_solve(&ld, &[3, 1], &mut [1.0, 1.0], 1, 2, 1), Err(0));
    }
}
