//! Matrix products through the `gemm` crate (strided operands, so transposes cost no copy; it
//! picks its AVX2/AVX-512 kernels at run time).

use super::PAR_THRESHOLD;
use crate::tensor::{pool, Element};

/// A strided matrix operand: element (i, j) is at `offset + i*rs + j*cs`.
#[derive(Clone, Copy)]
pub struct Mat {
    pub offset: usize,
    pub rs: isize,
    pub cs: isize,
}

fn is_float<T: Element>() -> bool {
    matches!(T::DTYPE, crate::DType::F32 | crate::DType::F64)
}

/// `dst = (read_dst ? dst : 0) + scale * lhs @ rhs` for one (m×k)·(k×n) product into a
/// row-major m×n `dst`; floats only.
///
/// # Safety
/// `dst` must be valid for m×n writes (and reads when `read_dst`); `lhs`/`rhs` with `l`/`r`
/// must address elements inside their slices.
#[allow(clippy::too_many_arguments)]
unsafe fn gemm_one<T: Element>(
    dst: *mut T,
    read_dst: bool,
    lhs: &[T],
    l: Mat,
    rhs: &[T],
    r: Mat,
    m: usize,
    k: usize,
    n: usize,
    scale: T,
) {
    // Threads pay off only above a few hundred thousand multiply-adds.
    let par = if m * n * k >= PAR_THRESHOLD * 4 && rayon::current_num_threads() > 1 {
        gemm::Parallelism::Rayon(rayon::current_num_threads())
    } else {
        gemm::Parallelism::None
    };
    // gemm computes dst = alpha·dst + beta·lhs·rhs, reading dst only when `read_dst`.
    gemm::gemm(
        m,
        n,
        k,
        dst,
        1,
        n as isize,
        read_dst,
        lhs.as_ptr().add(l.offset),
        l.cs,
        l.rs,
        rhs.as_ptr().add(r.offset),
        r.cs,
        r.rs,
        T::from_f64(1.0),
        scale,
        false,
        false,
        false,
        par,
    );
}

/// `out[b] = lhs[b] @ rhs[b]` for `batch` products of (m×k)·(k×n), `out` contiguous.
#[allow(clippy::too_many_arguments)]
pub fn matmul<T: Element>(
    lhs: &[T],
    l: Mat,
    l_batch_stride: isize,
    rhs: &[T],
    r: Mat,
    r_batch_stride: isize,
    batch: usize,
    m: usize,
    k: usize,
    n: usize,
) -> Vec<T> {
    let total = batch * m * n;
    let mut out = pool::alloc::<T>(total);
    let at = |mat: Mat, stride: isize, bi: usize| Mat {
        offset: (mat.offset as isize + bi as isize * stride) as usize,
        ..mat
    };
    if is_float::<T>() && k > 0 {
        for bi in 0..batch {
            // SAFETY: `out` has room for batch·m·n elements and each product writes its own m×n
            // block without reading it; the caller's layouts keep the operands in bounds.
            unsafe {
                gemm_one(
                    out.as_mut_ptr().add(bi * m * n),
                    false,
                    lhs,
                    at(l, l_batch_stride, bi),
                    rhs,
                    at(r, r_batch_stride, bi),
                    m,
                    k,
                    n,
                    T::from_f64(1.0),
                );
            }
        }
        // SAFETY: every block was written above.
        unsafe { out.set_len(total) };
        return out;
    }
    out.resize(total, T::default());
    if k == 0 {
        return out;
    }
    // Integer products: no BLAS for them; a plain loop, exact.
    for bi in 0..batch {
        let (lo, ro) = (at(l, l_batch_stride, bi), at(r, r_batch_stride, bi));
        let dst = &mut out[bi * m * n..(bi + 1) * m * n];
        for i in 0..m {
            for j in 0..n {
                let mut acc = 0i64;
                for p in 0..k {
                    let a = lhs
                        [(lo.offset as isize + i as isize * lo.rs + p as isize * lo.cs) as usize];
                    let b = rhs
                        [(ro.offset as isize + p as isize * ro.rs + j as isize * ro.cs) as usize];
                    acc = acc.wrapping_add(a.to_i64().wrapping_mul(b.to_i64()));
                }
                dst[i * n + j] = T::from_i64(acc);
            }
        }
    }
    out
}

/// `dst += alpha · lhs @ rhs` for one row-major m×n `dst` (floats; addmm's fused product).
#[allow(clippy::too_many_arguments)]
pub fn matmul_acc<T: Element>(
    dst: &mut [T],
    lhs: &[T],
    l: Mat,
    rhs: &[T],
    r: Mat,
    m: usize,
    k: usize,
    n: usize,
    alpha: T,
) {
    assert!(
        is_float::<T>() && dst.len() == m * n,
        "matmul_acc: float m×n dst"
    );
    if k == 0 || dst.is_empty() {
        return;
    }
    // SAFETY: `dst` holds m×n initialized elements; the caller's layouts keep operands in bounds.
    unsafe { gemm_one(dst.as_mut_ptr(), true, lhs, l, rhs, r, m, k, n, alpha) }
}
