//! Matrix products through the `gemm` crate (strided operands, so transposes cost no copy; it
//! picks its AVX2/AVX-512 kernels at run time).

use super::parallel;
use crate::tensor::element::Element;
use crate::tensor::pool;

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

/// Products with at least this many multiply-adds are split across threads: about 30 µs of
/// work on one core, below which waking a worker does not pay.
const PAR_MACS: usize = 1 << 20;

/// Narrowest block (rows or columns of dst) a thread takes: narrower ones lose the kernel's
/// efficiency to per-call packing and setup.
const MIN_BLOCK: usize = 64;

/// `dst = (read_dst ? dst : 0) + scale * lhs @ rhs` for one (m×k)·(k×n) product into a
/// row-major m×n `dst`; floats only.
///
/// Threads: dst's longer side is cut into blocks (about four per thread) and each block is one
/// single-threaded gemm call, the blocks taken one at a time by the calling thread and the
/// pool's workers (`parallel::for_each_index`). gemm's own `Parallelism::Rayon` splits the work
/// statically and parks the calling thread while the pool runs it, so one thread descheduled
/// on a busy machine stalls the whole product; here the others take its blocks. Cutting along
/// columns (rows) leaves the other operand shared, so neither is packed twice.
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
    let (a, b) = (lhs.as_ptr().add(l.offset), rhs.as_ptr().add(r.offset));
    let threads = parallel::num_threads();
    let along_n = n >= m;
    let len = if along_n { n } else { m };
    let blocks = if m * n * k >= PAR_MACS && threads > 1 {
        (threads * 4).min(len / MIN_BLOCK)
    } else {
        1
    };
    if blocks <= 1 {
        gemm_block(dst, read_dst, a, l, b, r, m, k, n, n, scale);
        return;
    }
    // Block bounds on multiples of 16 (the f32 kernel's row count), the 16-wide units spread
    // evenly: 784 columns in 8 blocks are 7 of 96 and one of 112, where equal widths rounded up
    // to 112 made 7 blocks, 4 for one thread and 3 for the other. Each element's sum over k is
    // the same whatever block it falls in (gemm cuts k by k alone).
    let units = len.div_ceil(16);
    let blocks = blocks.min(units);
    let bound = move |i: usize| (i * units / blocks * 16).min(len);
    let (dst, a, b) = (dst as usize, a as usize, b as usize);
    parallel::for_each_index(blocks, |i| {
        let (start, w) = (bound(i), bound(i + 1) - bound(i));
        let (dst, a, b) = (dst as *mut T, a as *const T, b as *const T);
        // SAFETY: the blocks of dst are disjoint and inside it; the operand offsets stay
        // inside the caller's operands.
        unsafe {
            if along_n {
                let b = b.offset(start as isize * r.cs);
                gemm_block(dst.add(start), read_dst, a, l, b, r, m, k, w, n, scale);
            } else {
                let a = a.offset(start as isize * l.rs);
                gemm_block(dst.add(start * n), read_dst, a, l, b, r, w, k, n, n, scale);
            }
        }
    });
}

/// One single-threaded gemm call: `dst` (row stride `dst_rs`) `= (read_dst ? dst : 0) + scale
/// * lhs @ rhs`, the operands at `lhs`/`rhs` with the strides of `l`/`r`.
///
/// # Safety
/// As `gemm_one`, for these pointers.
#[allow(clippy::too_many_arguments)]
unsafe fn gemm_block<T: Element>(
    dst: *mut T,
    read_dst: bool,
    lhs: *const T,
    l: Mat,
    rhs: *const T,
    r: Mat,
    m: usize,
    k: usize,
    n: usize,
    dst_rs: usize,
    scale: T,
) {
    // gemm computes dst = alpha·dst + beta·lhs·rhs, reading dst only when `read_dst`.
    gemm::gemm(
        m,
        n,
        k,
        dst,
        1,
        dst_rs as isize,
        read_dst,
        lhs,
        l.cs,
        l.rs,
        rhs,
        r.cs,
        r.rs,
        T::from_f64(1.0),
        scale,
        false,
        false,
        false,
        gemm::Parallelism::None,
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
        let base = out.as_mut_ptr() as usize;
        let one = |bi: usize| {
            // SAFETY: `out` has room for batch·m·n elements and each product writes its own m×n
            // block without reading it; the caller's layouts keep the operands in bounds.
            unsafe {
                gemm_one(
                    (base as *mut T).add(bi * m * n),
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
        };
        // Products too small to split (a convolution's per-image ones) are spread whole
        // across threads instead.
        let per = m * n * k;
        if batch > 1 && per < PAR_MACS && per * batch >= PAR_MACS {
            parallel::for_each_index(batch, one);
        } else {
            (0..batch).for_each(one);
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

/// `dst = (acc ? dst : 0) + lhs @ rhs` for one (m×k)·(k×n) float product into the row-major
/// m×n block at `dst` (a convolution's per-image products, which write into their image's
/// part of the output). Threaded as `matmul` when large and not already inside a parallel
/// region; within one, a single gemm call.
///
/// # Safety
/// `dst` must be valid for m×n writes (and reads when `acc`), with no other reference to
/// that block alive; `l` / `r` must address elements inside `lhs` / `rhs`.
#[allow(clippy::too_many_arguments)]
pub unsafe fn matmul_into<T: Element>(
    dst: *mut T,
    acc: bool,
    lhs: &[T],
    l: Mat,
    rhs: &[T],
    r: Mat,
    m: usize,
    k: usize,
    n: usize,
) {
    assert!(is_float::<T>(), "matmul_into: floats only");
    if m * n == 0 {
        return;
    }
    if k == 0 {
        if !acc {
            std::ptr::write_bytes(dst, 0, m * n);
        }
        return;
    }
    gemm_one(dst, acc, lhs, l, rhs, r, m, k, n, T::from_f64(1.0));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `lhs @ rhs` by the definition, in f64.
    fn naive(a: &[f64], l: Mat, b: &[f64], r: Mat, m: usize, k: usize, n: usize) -> Vec<f64> {
        let at = |x: &[f64], o: Mat, i: usize, j: usize| {
            x[(o.offset as isize + i as isize * o.rs + j as isize * o.cs) as usize]
        };
        (0..m * n)
            .map(|e| {
                (0..k)
                    .map(|p| at(a, l, e / n, p) * at(b, r, p, e % n))
                    .sum()
            })
            .collect()
    }

    /// Products big enough to be cut into blocks across threads (along dst's columns, and
    /// along its rows), with transposed operands, batches of small products spread whole, and
    /// `matmul_acc`, all match the definition.
    #[test]
    fn blocked_products_match_the_definition() {
        parallel::with_threads(3, || {
            for &(m, k, n) in &[(70, 300, 200), (300, 50, 90), (64, 256, 64), (8, 40, 1000)] {
                let a: Vec<f64> = (0..m * k).map(|i| ((i * 7) % 13) as f64 - 6.0).collect();
                let b: Vec<f64> = (0..k * n).map(|i| ((i * 5) % 11) as f64 - 5.0).collect();
                // Row-major operands, and column-major ones (transposed views).
                let row = |cols: usize| Mat {
                    offset: 0,
                    rs: cols as isize,
                    cs: 1,
                };
                let col = |rows: usize| Mat {
                    offset: 0,
                    rs: 1,
                    cs: rows as isize,
                };
                for (l, r) in [(row(k), row(n)), (col(m), col(k))] {
                    let want = naive(&a, l, &b, r, m, k, n);
                    assert_eq!(matmul(&a, l, 0, &b, r, 0, 1, m, k, n), want, "{m}x{k}x{n}");
                    let mut acc = vec![1.0; m * n];
                    matmul_acc(&mut acc, &a, l, &b, r, m, k, n, 2.0);
                    let want2: Vec<f64> = want.iter().map(|v| 1.0 + 2.0 * v).collect();
                    assert_eq!(acc, want2, "acc {m}x{k}x{n}");
                }
            }
            // 40 products of 24x30x32 (below the split threshold each, above it together).
            let (batch, m, k, n) = (40, 24, 30, 32);
            let a: Vec<f64> = (0..batch * m * k).map(|i| (i % 9) as f64).collect();
            let b: Vec<f64> = (0..k * n).map(|i| (i % 4) as f64 - 1.5).collect();
            let (l, r) = (
                Mat {
                    offset: 0,
                    rs: k as isize,
                    cs: 1,
                },
                Mat {
                    offset: 0,
                    rs: n as isize,
                    cs: 1,
                },
            );
            let got = matmul(&a, l, (m * k) as isize, &b, r, 0, batch, m, k, n);
            for bi in 0..batch {
                let lb = Mat {
                    offset: bi * m * k,
                    ..l
                };
                assert_eq!(
                    &got[bi * m * n..(bi + 1) * m * n],
                    naive(&a, lb, &b, r, m, k, n)
                );
            }
        });
    }
}
