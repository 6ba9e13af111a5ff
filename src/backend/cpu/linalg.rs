//! Dense factorizations on the host, through faer: LU with partial pivoting, Cholesky, QR,
//! the symmetric eigendecomposition, the SVD and triangular solves. Each works on a batch of
//! contiguous row-major matrices and writes row-major results in LAPACK's conventions, which
//! is what PyTorch returns (packed LU with 1-based pivots, an `info` per matrix).

use faer::linalg::triangular_solve as tri;
use faer::traits::RealField;
use faer::{Mat, MatMut, MatRef, Par, Side};

/// Element types the factorizations run in: PyTorch's float32 and float64.
pub trait Real:
    RealField
    + Copy
    + Default
    + PartialOrd
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::AddAssign
    + Send
    + Sync
    + 'static
{
    fn finite(self) -> bool;
    /// `|x|` (NaN stays NaN).
    fn fabs(self) -> Self;
    /// `x` rounded to this type.
    fn of(x: f64) -> Self;
}
impl Real for f32 {
    fn finite(self) -> bool {
        self.is_finite()
    }
    fn fabs(self) -> Self {
        self.abs()
    }
    fn of(x: f64) -> Self {
        x as f32
    }
}
impl Real for f64 {
    fn finite(self) -> bool {
        self.is_finite()
    }
    fn fabs(self) -> Self {
        self.abs()
    }
    fn of(x: f64) -> Self {
        x
    }
}

/// faer's parallelism for the thread count gradrs was asked for (`set_num_threads`):
/// sequential at one thread, else that many parts on rayon's pool (faer's global setting,
/// every core, would ignore it).
fn par() -> Par {
    match super::parallel::num_threads() {
        1 => Par::Seq,
        n => Par::rayon(n),
    }
}

fn view<T: Real>(a: &[T], m: usize, n: usize) -> MatRef<'_, T> {
    MatRef::from_row_major_slice(a, m, n)
}

/// Appends `x` (any strides) to `out` row by row.
fn push_rows<T: Real>(out: &mut Vec<T>, x: MatRef<'_, T>) {
    for i in 0..x.nrows() {
        for j in 0..x.ncols() {
            out.push(x[(i, j)]);
        }
    }
}

/// LAPACK's `getrf` on each column-major `m x n` matrix of `lu`, in place (packed L\U, also
/// column-major, as LAPACK's and PyTorch's): (1-based row interchanges, info = 1-based index of
/// the first exactly zero pivot, 0 if none). `original(i)` gives matrix i's input again,
/// row-major, for the exactly singular case faer does not finish as LAPACK does.
///
/// faer's `lu_in_place` works on the matrices where they are (no separate L and U are built),
/// on `set_num_threads`' threads (`par`), as the other factorizations.
pub fn lu_factor<T: Real>(
    lu: &mut [T],
    batch: usize,
    m: usize,
    n: usize,
    original: impl Fn(usize) -> Vec<T>,
) -> (Vec<i32>, Vec<i32>) {
    use faer::dyn_stack::{MemBuffer, MemStack};
    use faer::linalg::lu::partial_pivoting::factor as plu;
    let k = m.min(n);
    let mut piv = Vec::with_capacity(batch * k);
    let mut info = Vec::with_capacity(batch);
    if k == 0 {
        info.resize(batch, 0);
        return (piv, info);
    }
    let par = par();
    let mut fwd = vec![0usize; m];
    let mut bwd = vec![0usize; m];
    let mut scratch = MemBuffer::new(plu::lu_in_place_scratch::<usize, T>(
        m,
        n,
        par,
        Default::default(),
    ));
    for b in 0..batch {
        let a = &mut lu[b * m * n..(b + 1) * m * n];
        let finite = a.iter().all(|v| v.finite());
        plu::lu_in_place(
            MatMut::from_column_major_slice_mut(a, m, n),
            &mut fwd,
            &mut bwd,
            par,
            MemStack::new(&mut scratch),
            Default::default(),
        );
        let l_finite = (0..k).all(|j| a[j * m + j + 1..(j + 1) * m].iter().all(|v| v.finite()));
        if finite && !l_finite {
            // faer divides by an exactly zero pivot (NaN below it); LAPACK leaves that column
            // as it is (zeros: the pivot is the column's largest entry) and goes on.
            let (l, p, i) = getf2(&original(b), m, n);
            for r in 0..m {
                for c in 0..n {
                    a[c * m + r] = l[r * n + c];
                }
            }
            piv.extend(p);
            info.push(i);
            continue;
        }
        let first_zero = (0..k).find(|&i| a[i * m + i] == T::default());
        info.push(first_zero.map_or(0, |i| i as i32 + 1));
        // faer gives the permutation (row i of P A is row fwd[i] of A); LAPACK gives the
        // interchanges that build it: at step i, row i swaps with row ipiv[i].
        let mut at: Vec<usize> = (0..m).collect(); // at[pos] = original row now at pos
        let mut pos: Vec<usize> = (0..m).collect(); // pos[row] = where original row is now
        for i in 0..k {
            let j = pos[fwd[i]];
            piv.push(j as i32 + 1);
            let (ri, rj) = (at[i], at[j]);
            at.swap(i, j);
            pos[ri] = j;
            pos[rj] = i;
        }
    }
    (piv, info)
}

/// LAPACK's `getrs` (no transpose): X with A X = B for each `n x n` A given as `lu_factor`'s
/// packed column-major L\U and 1-based interchanges, `n x k` B row-major in place in `b`: B's
/// rows interchanged in order, then the unit lower and the upper triangular solves.
/// `Err(matrix)` where a pivot is outside `1..=n` (nothing written for that matrix or after).
pub fn lu_solve<T: Real>(
    lu: &[T],
    piv: &[i32],
    b: &mut [T],
    batch: usize,
    n: usize,
    k: usize,
) -> Result<(), usize> {
    for i in 0..batch {
        let p = &piv[i * n..(i + 1) * n];
        if p.iter().any(|&q| q < 1 || q as usize > n) {
            return Err(i);
        }
        let x = &mut b[i * n * k..(i + 1) * n * k];
        for (r, &q) in p.iter().enumerate() {
            let q = q as usize - 1;
            if q != r {
                let (lo, hi) = (r.min(q), r.max(q));
                let (head, tail) = x.split_at_mut(hi * k);
                head[lo * k..(lo + 1) * k].swap_with_slice(&mut tail[..k]);
            }
        }
        let t = MatRef::from_column_major_slice(&lu[i * n * n..(i + 1) * n * n], n, n);
        let mut rhs: MatMut<'_, T> = MatMut::from_row_major_slice_mut(x, n, k);
        tri::solve_unit_lower_triangular_in_place(t, rhs.as_mut(), par());
        tri::solve_upper_triangular_in_place(t, rhs, par());
    }
    Ok(())
}

/// LAPACK's unblocked `getf2` on one row-major `m x n` matrix, for the exactly singular case
/// faer's LU does not finish as LAPACK does: a zero pivot column is left unscaled.
fn getf2<T: Real>(src: &[T], m: usize, n: usize) -> (Vec<T>, Vec<i32>, i32) {
    let mut a = src.to_vec();
    let k = m.min(n);
    let mut piv = Vec::with_capacity(k);
    let mut info = 0;
    let abs = |v: T| {
        if v < T::default() {
            T::default() - v
        } else {
            v
        }
    };
    for j in 0..k {
        let mut p = j;
        for i in j + 1..m {
            if abs(a[i * n + j]) > abs(a[p * n + j]) {
                p = i;
            }
        }
        piv.push(p as i32 + 1);
        let pivot = a[p * n + j];
        if pivot != T::default() {
            if p != j {
                for c in 0..n {
                    a.swap(j * n + c, p * n + c);
                }
            }
            for i in j + 1..m {
                let v = a[i * n + j];
                a[i * n + j] = v / pivot;
            }
        } else if info == 0 {
            info = j as i32 + 1;
        }
        for i in j + 1..m {
            let l = a[i * n + j];
            for c in j + 1..n {
                a[i * n + c] = a[i * n + c] - l * a[j * n + c];
            }
        }
    }
    (a, piv, info)
}

/// The lower Cholesky factor of each `n x n` matrix (its lower triangle read), and LAPACK's
/// `potrf` info: the order of the first leading minor that is not positive-definite.
pub fn cholesky<T: Real>(a: &[T], batch: usize, n: usize) -> (Vec<T>, Vec<i32>) {
    let mut out = Vec::with_capacity(batch * n * n);
    let mut info = Vec::with_capacity(batch);
    for b in 0..batch {
        let x = view(&a[b * n * n..(b + 1) * n * n], n, n);
        match x.llt(Side::Lower) {
            Ok(f) => {
                push_rows(&mut out, f.L());
                info.push(0);
            }
            Err(faer::linalg::cholesky::llt::factor::LltError::NonPositivePivot { index }) => {
                out.extend(std::iter::repeat_n(T::default(), n * n));
                info.push(index as i32 + 1);
            }
        }
    }
    (out, info)
}

/// Householder QR of each `m x n` matrix: Q (`m x m` when `complete`, else `m x k`) and R
/// (`m x n` when `complete`, else `k x n`), k = min(m, n).
pub fn qr<T: Real>(a: &[T], batch: usize, m: usize, n: usize, complete: bool) -> (Vec<T>, Vec<T>) {
    let k = m.min(n);
    let (qc, rr) = if complete { (m, m) } else { (k, k) };
    let mut q = Vec::with_capacity(batch * m * qc);
    let mut r = Vec::with_capacity(batch * rr * n);
    for b in 0..batch {
        let x = view(&a[b * m * n..(b + 1) * m * n], m, n);
        if k == 0 {
            let eye = Mat::<T>::identity(m, qc);
            push_rows(&mut q, eye.as_ref());
            r.extend(std::iter::repeat_n(T::default(), rr * n));
            continue;
        }
        let f = x.qr();
        if complete {
            push_rows(&mut q, f.compute_Q().as_ref());
            let full = f.R();
            for i in 0..m {
                for j in 0..n {
                    r.push(if i < full.nrows() && j >= i {
                        full[(i, j)]
                    } else {
                        T::default()
                    });
                }
            }
        } else {
            push_rows(&mut q, f.compute_thin_Q().as_ref());
            let thin = f.thin_R();
            for i in 0..k {
                for j in 0..n {
                    r.push(if j >= i { thin[(i, j)] } else { T::default() });
                }
            }
        }
    }
    (q, r)
}

/// Eigenvalues (ascending) and, with `vectors`, eigenvectors (columns) of each symmetric
/// `n x n` matrix, from its lower triangle. `None` when the iteration did not converge.
pub fn eigh<T: Real>(a: &[T], batch: usize, n: usize, vectors: bool) -> Option<(Vec<T>, Vec<T>)> {
    let mut w = Vec::with_capacity(batch * n);
    let mut v = Vec::with_capacity(if vectors { batch * n * n } else { 0 });
    for b in 0..batch {
        let x = view(&a[b * n * n..(b + 1) * n * n], n, n);
        if n == 0 {
            continue;
        }
        if vectors {
            let f = x.self_adjoint_eigen(Side::Lower).ok()?;
            let s = f.S().column_vector();
            for i in 0..n {
                w.push(s[i]);
            }
            push_rows(&mut v, f.U());
        } else {
            w.extend(x.self_adjoint_eigenvalues(Side::Lower).ok()?);
        }
    }
    Some((w, v))
}

/// The SVD of each `m x n` matrix: U, S (descending) and Vh, full (`m x m`, `n x n`) or
/// reduced (`m x k`, `k x n`); only S without `vectors`. `None` when it did not converge.
pub fn svd<T: Real>(
    a: &[T],
    batch: usize,
    m: usize,
    n: usize,
    full: bool,
    vectors: bool,
) -> Option<(Vec<T>, Vec<T>, Vec<T>)> {
    let k = m.min(n);
    let (mut u, mut s, mut vh) = (Vec::new(), Vec::with_capacity(batch * k), Vec::new());
    for b in 0..batch {
        let x = view(&a[b * m * n..(b + 1) * m * n], m, n);
        if !vectors {
            if k > 0 {
                s.extend(x.singular_values().ok()?);
            }
            continue;
        }
        if k == 0 {
            let (uc, vr) = if full { (m, n) } else { (0, 0) };
            push_rows(&mut u, Mat::<T>::identity(m, uc).as_ref());
            push_rows(&mut vh, Mat::<T>::identity(vr, n).as_ref());
            continue;
        }
        let f = if full { x.svd() } else { x.thin_svd() }.ok()?;
        push_rows(&mut u, f.U());
        let d = f.S().column_vector();
        for i in 0..k {
            s.push(d[i]);
        }
        push_rows(&mut vh, f.V().transpose());
    }
    Some((u, s, vh))
}

/// Solves `A X = B` for each triangular `n x n` A (`upper` or lower triangle read, unit
/// diagonal assumed with `unit`) and `n x k` B, in place in `b`.
pub fn solve_triangular<T: Real>(
    a: &[T],
    b: &mut [T],
    batch: usize,
    n: usize,
    k: usize,
    upper: bool,
    unit: bool,
) {
    for i in 0..batch {
        let t = view(&a[i * n * n..(i + 1) * n * n], n, n);
        let rhs: MatMut<'_, T> =
            MatMut::from_row_major_slice_mut(&mut b[i * n * k..(i + 1) * n * k], n, k);
        match (upper, unit) {
            (false, false) => tri::solve_lower_triangular_in_place(t, rhs, par()),
            (false, true) => tri::solve_unit_lower_triangular_in_place(t, rhs, par()),
            (true, false) => tri::solve_upper_triangular_in_place(t, rhs, par()),
            (true, true) => tri::solve_unit_upper_triangular_in_place(t, rhs, par()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn transposed<T: Real>(a: &[T], rows: usize, cols: usize) -> Vec<T> {
        (0..cols * rows)
            .map(|i| a[(i % rows) * cols + i / rows])
            .collect()
    }

    /// `lu_factor` of one row-major matrix, its LU given back row-major.
    fn lu_rows<T: Real>(a: &[T], m: usize, n: usize) -> (Vec<T>, Vec<i32>, Vec<i32>) {
        let mut lu = transposed(a, m, n);
        let (piv, info) = lu_factor(&mut lu, 1, m, n, |_| a.to_vec());
        (transposed(&lu, n, m), piv, info)
    }

    #[test]
    fn lu_pivots_rebuild_the_matrix() {
        let a = [0.0f64, 1.0, 2.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0];
        let (lu, piv, info) = lu_rows(&a, 3, 3);
        assert_eq!(info, vec![0]);
        // P A = L U with P from the interchanges.
        let mut rows: Vec<usize> = (0..3).collect();
        for (i, &p) in piv.iter().enumerate() {
            rows.swap(i, p as usize - 1);
        }
        for i in 0..3 {
            for j in 0..3 {
                let mut s = 0.0;
                for t in 0..3 {
                    let l = if i == t {
                        1.0
                    } else if i > t {
                        lu[i * 3 + t]
                    } else {
                        0.0
                    };
                    let u = if t <= j { lu[t * 3 + j] } else { 0.0 };
                    s += l * u;
                }
                assert!((s - a[rows[i] * 3 + j]).abs() < 1e-12, "{i} {j}");
            }
        }
        assert_eq!(piv[0], 3); // the largest first column entry, 7, leads
    }

    #[test]
    fn lu_solve_solves_and_checks_pivots() {
        let a = [0.0f64, 1.0, 2.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0];
        let mut lu = transposed(&a, 3, 3);
        let (piv, _) = lu_factor(&mut lu, 1, 3, 3, |_| a.to_vec());
        let want = [1.0, -2.0, 0.5, 3.0, 0.25, -1.0];
        let mut b = vec![0.0; 6]; // B = A X for X 3 x 2
        for i in 0..3 {
            for j in 0..2 {
                b[i * 2 + j] = (0..3).map(|t| a[i * 3 + t] * want[t * 2 + j]).sum();
            }
        }
        lu_solve(&lu, &piv, &mut b, 1, 3, 2).unwrap();
        assert!(
            b.iter().zip(want).all(|(x, w)| (x - w).abs() < 1e-12),
            "{b:?}"
        );
        assert_eq!(lu_solve(&lu, &[1, 4, 3], &mut b, 1, 3, 2), Err(0));
        assert_eq!(lu_solve(&lu, &[0, 2, 3], &mut b, 1, 3, 2), Err(0));
    }

    #[test]
    fn lu_of_a_singular_matrix_is_lapacks() {
        // A zero first column: LAPACK leaves it (no NaN), reports the first zero pivot and
        // goes on (torch.linalg.lu_factor_ex gives exactly this LU, pivots and info).
        let a = [0.0f64, 1.0, 2.0, 0.0, 3.0, 4.0, 0.0, 5.0, 6.0];
        let (lu, piv, info) = lu_rows(&a, 3, 3);
        assert_eq!(info, vec![1]);
        assert_eq!(piv, vec![1, 3, 3]);
        let want = [0.0, 1.0, 2.0, 0.0, 5.0, 6.0, 0.0, 0.6, 0.4];
        assert!(
            lu.iter().zip(want).all(|(v, w)| (v - w).abs() < 1e-12),
            "{lu:?}"
        );
        let (lu, _, info) = lu_rows(&[0.0f32; 4], 2, 2);
        assert_eq!((lu, info), (vec![0.0; 4], vec![1]));
    }

    #[test]
    fn cholesky_reports_the_failing_minor() {
        let a = [4.0f64, 2.0, 2.0, 1.0];
        let (_, info) = cholesky(&a, 1, 2);
        assert_eq!(info, vec![2]);
        let a = [4.0f64, 2.0, 2.0, 5.0];
        let (l, info) = cholesky(&a, 1, 2);
        assert_eq!(info, vec![0]);
        assert_eq!(l, vec![2.0, 0.0, 1.0, 2.0]);
    }
}
