//! The factorizations of `gradrs.linalg` (`backend::cpu::linalg`, faer): always computed on the
//! host copy of the operands (a GPU tensor's values are read back) and returned on the
//! operands' device. Inputs are float32 / float64 tensors of at least two dims, checked by
//! the callers; results are contiguous, batched as the input (`(*, m, n)`).

use crate::backend::cpu::copy::contiguous_cow;
use crate::backend::cpu::linalg as host;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// (batch dims, batch size, rows, cols) of a `(*, m, n)` tensor.
fn dims(x: &Tensor) -> (Vec<usize>, usize, usize, usize) {
    let s = x.shape();
    let nd = s.len();
    let batch: Vec<usize> = s[..nd - 2].to_vec();
    (batch.clone(), batch.iter().product(), s[nd - 2], s[nd - 1])
}

fn shape(batch: &[usize], tail: &[usize]) -> Vec<usize> {
    batch.iter().chain(tail).copied().collect()
}

/// Runs `f` on x's values as a contiguous slice of its dtype (float32 or float64).
macro_rules! floats {
    ($x:expr, $T:ident, $v:ident => $body:expr) => {{
        let data = $x.read();
        match data.dtype() {
            DType::F32 => {
                type $T = f32;
                let $v = contiguous_cow::<f32>(data.storage.slice::<f32>(), &data.layout);
                $body
            }
            DType::F64 => {
                type $T = f64;
                let $v = contiguous_cow::<f64>(data.storage.slice::<f64>(), &data.layout);
                $body
            }
            d => return Err(Error::Runtime(format!("linalg: unsupported dtype {d:?}"))),
        }
    }};
}

/// `linalg.lu_factor_ex`: (packed LU, column-major as PyTorch's (strides `(.., 1, m)`), int32
/// pivots, int32 info). The input is read transposed, so each matrix's column-major copy is
/// the one factored in place.
pub fn lu_factor(x: &Tensor) -> Result<(Tensor, Tensor, Tensor)> {
    let (b, bs, m, n) = dims(x);
    let dev = x.device();
    let xt = super::swapped(x, x.dim() - 2, x.dim() - 1);
    floats!(xt, T, v => {
        let mut lu = v.into_owned();
        let (piv, info) = host::lu_factor::<T>(&mut lu, bs, m, n, |i| {
            let data = x.read();
            contiguous_cow::<T>(data.storage.slice::<T>(), &data.layout)[i * m * n..(i + 1) * m * n]
                .to_vec()
        });
        Ok((
            column_major(lu, &b, m, n, dev),
            Tensor::from_vec_on(piv, &shape(&b, &[m.min(n)]), dev),
            Tensor::from_vec_on(info, &b, dev),
        ))
    })
}

/// `linalg.cholesky_ex` (lower): (L, int32 info).
pub fn cholesky(x: &Tensor) -> Result<(Tensor, Tensor)> {
    let (b, bs, _, n) = dims(x);
    let dev = x.device();
    floats!(x, T, v => {
        let (l, info) = host::cholesky::<T>(&v, bs, n);
        Ok((Tensor::from_vec_on(l, &shape(&b, &[n, n]), dev), Tensor::from_vec_on(info, &b, dev)))
    })
}

/// `linalg.qr`: (Q, R), complete or reduced.
pub fn qr(x: &Tensor, complete: bool) -> Result<(Tensor, Tensor)> {
    let (b, bs, m, n) = dims(x);
    let k = m.min(n);
    let (qc, rr) = if complete { (m, m) } else { (k, k) };
    let dev = x.device();
    floats!(x, T, v => {
        let (q, r) = host::qr::<T>(&v, bs, m, n, complete);
        Ok((
            Tensor::from_vec_on(q, &shape(&b, &[m, qc]), dev),
            Tensor::from_vec_on(r, &shape(&b, &[rr, n]), dev),
        ))
    })
}

fn no_convergence(op: &str) -> Error {
    Error::Runtime(format!(
        "{op}: The algorithm failed to converge because the input matrix is ill-conditioned \
         or has too many repeated eigenvalues."
    ))
}

/// `linalg.eigh`: (eigenvalues ascending, eigenvectors as columns; empty without `vectors`).
pub fn eigh(x: &Tensor, vectors: bool) -> Result<(Tensor, Tensor)> {
    let (b, bs, _, n) = dims(x);
    let dev = x.device();
    floats!(x, T, v => {
        let (w, u) = host::eigh::<T>(&v, bs, n, vectors).ok_or_else(|| no_convergence("linalg.eigh"))?;
        let vshape = if vectors { shape(&b, &[n, n]) } else { vec![0] };
        Ok((Tensor::from_vec_on(w, &shape(&b, &[n]), dev), Tensor::from_vec_on(u, &vshape, dev)))
    })
}

/// `linalg.svd`: (U, S, Vh), full or reduced; U and Vh empty without `vectors`.
pub fn svd(x: &Tensor, full: bool, vectors: bool) -> Result<(Tensor, Tensor, Tensor)> {
    let (b, bs, m, n) = dims(x);
    let k = m.min(n);
    let dev = x.device();
    let (uc, vr) = if full { (m, n) } else { (k, k) };
    floats!(x, T, v => {
        let (u, s, vh) = host::svd::<T>(&v, bs, m, n, full, vectors).ok_or_else(|| {
            Error::Runtime("linalg.svd: The algorithm failed to converge because the input \
                            matrix is ill-conditioned or has too many repeated singular values."
                .into())
        })?;
        let (us, vs) = if vectors {
            (shape(&b, &[m, uc]), shape(&b, &[vr, n]))
        } else {
            (vec![0], vec![0])
        };
        Ok((
            Tensor::from_vec_on(u, &us, dev),
            Tensor::from_vec_on(s, &shape(&b, &[k]), dev),
            Tensor::from_vec_on(vh, &vs, dev),
        ))
    })
}

/// Solves `A X = B` for triangular A `(*, n, n)` and B `(*, n, k)` with the same batch dims
/// (broadcast by the caller).
pub fn solve_triangular(a: &Tensor, b: &Tensor, upper: bool, unit: bool) -> Result<Tensor> {
    let (bd, bs, _, n) = dims(a);
    let k = b.shape()[b.dim() - 1];
    let dev = a.device();
    let rhs = crate::kernels::contiguous(b);
    floats!(a, T, av => {
        let mut x: Vec<T> = {
            let data = rhs.read();
            data.storage.slice::<T>()[data.layout.offset..data.layout.offset + bs * n * k].to_vec()
        };
        host::solve_triangular::<T>(&av, &mut x, bs, n, k, upper, unit);
        Ok(Tensor::from_vec_on(x, &shape(&bd, &[n, k]), dev))
    })
}

/// `linalg.solve`'s `getrs`: X with A X = B from `lu_factor`'s packed LU `(*, n, n)`, int32
/// pivots `(*, n)` and B `(*, n, k)`, all of the same batch dims (broadcast by the caller); X
/// contiguous. LU is read transposed (no copy for `lu_factor`'s column-major LU). Pivots
/// outside `1..=n` are an error, not an out-of-bounds read.
pub fn lu_solve(lu: &Tensor, pivots: &Tensor, b: &Tensor) -> Result<Tensor> {
    let (bd, bs, _, n) = dims(lu);
    let lu = &super::swapped(lu, lu.dim() - 2, lu.dim() - 1);
    let k = b.shape()[b.dim() - 1];
    let dev = lu.device();
    if pivots.dtype() != DType::I32
        || pivots.numel() != bs * n
        || b.numel() != bs * n * k
        || b.dtype() != lu.dtype()
    {
        return Err(Error::Runtime(
            "linalg.lu_solve: expected int32 pivots (*, n) and B (*, n, k) of LU's batch and dtype"
                .into(),
        ));
    }
    let piv: Vec<i32> = {
        let p = crate::kernels::contiguous(pivots);
        let data = p.read();
        data.storage.slice::<i32>()[data.layout.offset..data.layout.offset + bs * n].to_vec()
    };
    let rhs = crate::kernels::contiguous(b);
    floats!(lu, T, lv => {
        let mut x: Vec<T> = {
            let data = rhs.read();
            data.storage.slice::<T>()[data.layout.offset..data.layout.offset + bs * n * k].to_vec()
        };
        host::lu_solve::<T>(&lv, &piv, &mut x, bs, n, k).map_err(|i| {
            Error::Runtime(format!(
                "linalg.lu_solve: the pivots of matrix {i} are not all in 1..={n}. Did you \
                 properly pass the result of lu_factor?"
            ))
        })?;
        Ok(Tensor::from_vec_on(x, &shape(&bd, &[n, k]), dev))
    })
}

/// A tensor of column-major `(*, m, n)` matrices `v` on `dev`: PyTorch's layout for LAPACK's
/// results (strides `(.., 1, m)`).
fn column_major<T: crate::tensor::Element>(
    v: Vec<T>,
    batch: &[usize],
    m: usize,
    n: usize,
    dev: crate::tensor::Device,
) -> Tensor {
    use crate::tensor::{Layout, Storage};
    let shape = shape(batch, &[m, n]);
    let mut strides = crate::tensor::shape::contiguous_strides(&shape);
    let nd = shape.len();
    strides[nd - 2] = 1;
    strides[nd - 1] = m.max(1) as isize;
    let layout = Layout {
        shape: shape.into_iter().collect(),
        strides,
        offset: 0,
    };
    Tensor::from_storage(Storage::from_vec_on(v, dev), layout)
}

/// Row-major `(batch, m, n)` matrices as column-major ones.
fn to_column_major<T: Copy + Default>(v: &[T], batch: usize, m: usize, n: usize) -> Vec<T> {
    let mut out = vec![T::default(); batch * m * n];
    for b in 0..batch {
        let (src, dst) = (&v[b * m * n..], &mut out[b * m * n..(b + 1) * m * n]);
        for i in 0..m {
            for j in 0..n {
                dst[i + j * m] = src[i * n + j];
            }
        }
    }
    out
}

/// `linalg.ldl_factor_ex` (LAPACK's `sytrf`, lower): (LD column-major, int32 pivots, int32
/// info), Note [LDL order] in `backend/cpu/ldl.rs`.
pub fn ldl_factor(x: &Tensor) -> Result<(Tensor, Tensor, Tensor)> {
    let (b, bs, _, n) = dims(x);
    let dev = x.device();
    floats!(x, T, v => {
        let (ld, piv, info) = crate::backend::cpu::ldl::ldl_factor::<T>(&v, bs, n);
        Ok((
            column_major(ld, &b, n, n, dev),
            Tensor::from_vec_on(piv, &shape(&b, &[n]), dev),
            Tensor::from_vec_on(info, &b, dev),
        ))
    })
}

/// `linalg.ldl_solve` (LAPACK's `sytrs`): X with A X = B from `ldl_factor`'s LD `(*, n, n)`,
/// int64 pivots `(*, n)` and B `(*, n, k)`, all of the same batch dims (broadcast by the
/// caller); X column-major as PyTorch's.
pub fn ldl_solve(ld: &Tensor, pivots: &Tensor, b: &Tensor) -> Result<Tensor> {
    let (bd, bs, _, n) = dims(ld);
    let k = b.shape()[b.dim() - 1];
    let dev = ld.device();
    let piv: Vec<i64> = {
        let p = crate::kernels::contiguous(pivots);
        let data = p.read();
        data.storage.slice::<i64>()[data.layout.offset..data.layout.offset + bs * n].to_vec()
    };
    let rhs = crate::kernels::contiguous(b);
    floats!(ld, T, lv => {
        let lv = to_column_major(&lv, bs, n, n);
        let mut x = {
            let data = rhs.read();
            to_column_major(&data.storage.slice::<T>()[data.layout.offset..], bs, n, k)
        };
        crate::backend::cpu::ldl::ldl_solve::<T>(&lv, &piv, &mut x, bs, n, k).map_err(|i| {
            Error::Runtime(format!(
                "gradrs.linalg.ldl_solve: the pivots of matrix {i} do not describe LAPACK's \
                 blocks (a 2x2 block past the last row). Did you properly pass the result \
                 of ldl_factor?"
            ))
        })?;
        Ok(column_major(x, &bd, n, k, dev))
    })
}
