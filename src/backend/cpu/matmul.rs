//! Matrix products through the `gemm` crate (strided operands, so transposes cost no copy).

use super::PAR_THRESHOLD;
use crate::tensor::Element;

/// A strided matrix operand: element (i, j) is at `offset + i*rs + j*cs`.
#[derive(Clone, Copy)]
pub struct Mat {
    pub offset: usize,
    pub rs: isize,
    pub cs: isize,
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
    let mut out = vec![T::default(); batch * m * n];
    if m * n == 0 {
        return out;
    }
    let threads = if m * n * k >= PAR_THRESHOLD * 4 {
        rayon::current_num_threads()
    } else {
        1
    };
    for bi in 0..batch {
        let lo = (l.offset as isize + bi as isize * l_batch_stride) as usize;
        let ro = (r.offset as isize + bi as isize * r_batch_stride) as usize;
        let dst = &mut out[bi * m * n..(bi + 1) * m * n];
        match T::DTYPE {
            crate::DType::F32 | crate::DType::F64 => {
                let par = if threads > 1 {
                    gemm::Parallelism::Rayon(threads)
                } else {
                    gemm::Parallelism::None
                };
                // SAFETY: offsets and strides address elements inside `lhs`/`rhs` (checked by the
                // caller's layouts), `dst` is a fresh m×n row-major buffer.
                unsafe {
                    gemm::gemm(
                        m,
                        n,
                        k,
                        dst.as_mut_ptr(),
                        1,
                        n as isize,
                        false,
                        lhs.as_ptr().add(lo),
                        l.cs,
                        l.rs,
                        rhs.as_ptr().add(ro),
                        r.cs,
                        r.rs,
                        T::default(),
                        T::from_f64(1.0),
                        false,
                        false,
                        false,
                        par,
                    );
                }
            }
            _ => {
                // Integer products: no BLAS for them; a plain loop, exact.
                for i in 0..m {
                    for j in 0..n {
                        let mut acc = 0i64;
                        for p in 0..k {
                            let a =
                                lhs[(lo as isize + i as isize * l.rs + p as isize * l.cs) as usize];
                            let b =
                                rhs[(ro as isize + p as isize * r.rs + j as isize * r.cs) as usize];
                            acc = acc.wrapping_add(a.to_i64().wrapping_mul(b.to_i64()));
                        }
                        dst[i * n + j] = T::from_i64(acc);
                    }
                }
            }
        }
    }
    out
}
