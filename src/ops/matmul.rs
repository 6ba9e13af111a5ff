//! Matrix products: mm, bmm, mv, dot, and `matmul` decomposed into them exactly as PyTorch
//! does (so results carry the same grad_fn names).

use crate::autograd::{needs_grad, record, Backward, Ctx, SavedTensor};
use crate::backend::cpu::matmul::{matmul as kernel, Mat};
use crate::dispatch;
use crate::dtype::{cpp_name, pretty_kernel_name, unsupported, DType};
use crate::error::{Error, Result};
use crate::ops::binary::mul;
use crate::ops::creation::cast_data;
use crate::ops::movement::{expand, reshape, squeeze_named, t, transpose, unsafe_view, unsqueeze};
use crate::shape::{broadcast_shapes, numel};
use crate::tensor::Tensor;

/// mm's (addmm's) check: `expected m1 and m2 to have the same dtype, but got: float != double`.
fn check_mm_dtypes(a: &Tensor, b: &Tensor) -> Result<()> {
    let (da, db) = (a.dtype(), b.dtype());
    if da != db {
        return Err(Error::Runtime(format!(
            "expected m1 and m2 to have the same dtype, but got: {} != {}",
            cpp_name(da),
            cpp_name(db)
        )));
    }
    Ok(())
}

/// The CPU BLAS kernels have no bool version (PyTorch skips them when there is nothing to sum).
fn check_not_bool(kernel: &str, a: &Tensor, skip: bool) -> Result<()> {
    if a.dtype() == DType::Bool && !skip {
        return Err(unsupported(kernel, DType::Bool));
    }
    Ok(())
}

/// Batched product without autograd: a (B, m, k) · b (B, k, n) → (B, m, n), any strides.
fn bmm_data(a: &Tensor, b: &Tensor) -> Tensor {
    let (da, db) = (a.read(), b.read());
    let (la, lb) = (&da.layout, &db.layout);
    let (batch, m, k, n) = (la.shape[0], la.shape[1], la.shape[2], lb.shape[2]);
    let ma = Mat {
        offset: la.offset,
        rs: la.strides[1],
        cs: la.strides[2],
    };
    let mb = Mat {
        offset: lb.offset,
        rs: lb.strides[1],
        cs: lb.strides[2],
    };
    let dtype = da.dtype();
    let out = dispatch!(dtype, T => {
        if dtype == crate::DType::Bool {
            drop((da, db));
            let r = bmm_data(&cast_data(a, crate::DType::I64), &cast_data(b, crate::DType::I64));
            return cast_data(&r, crate::DType::Bool);
        }
        Tensor::from_vec(
            kernel::<T>(da.storage.slice::<T>(), ma, la.strides[0], db.storage.slice::<T>(), mb, lb.strides[0], batch, m, k, n),
            &[batch, m, n],
        )
    });
    out
}

/// 2-D product as a batch of one (views, no copies).
fn mm_data(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let _no_grad = crate::autograd::GradModeGuard::new(false);
    let r = bmm_data(&unsqueeze(a, 0)?, &unsqueeze(b, 0)?);
    let shape = r.shape();
    reshape(&r, &[shape[1] as i64, shape[2] as i64])
}

pub fn mm(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    if a.dim() != 2 {
        return Err(Error::Runtime("self must be a matrix".into()));
    }
    if b.dim() != 2 {
        return Err(Error::Runtime("mat2 must be a matrix".into()));
    }
    let (sa, sb) = (a.shape(), b.shape());
    if sa[1] != sb[0] {
        return Err(Error::Runtime(format!(
            "mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})",
            sa[0], sa[1], sb[0], sb[1]
        )));
    }
    check_mm_dtypes(a, b)?;
    check_not_bool("addmm_impl_cpu_", a, sa[0] * sa[1] * sb[1] == 0)?;
    let out = mm_data(a, b)?.detach();
    Ok(with_grad(out, a, b, ProductKind::Mm))
}

pub fn bmm(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    if a.dim() != 3 {
        return Err(Error::Runtime("batch1 must be a 3D tensor".into()));
    }
    if b.dim() != 3 {
        return Err(Error::Runtime("batch2 must be a 3D tensor".into()));
    }
    let (sa, sb) = (a.shape(), b.shape());
    if sa[0] != sb[0] || sa[2] != sb[1] {
        return Err(Error::Runtime(format!(
            "Expected size for first two dimensions of batch2 tensor to be: [{}, {}] but got: [{}, {}].",
            sa[0], sa[2], sb[0], sb[1]
        )));
    }
    // The kernel dispatches on batch1's dtype, then checks batch2's.
    check_not_bool("bmm", a, sa[0] * sa[1] * sb[2] == 0 || sa[2] == 0)?;
    if a.dtype() != b.dtype() {
        return Err(Error::Runtime(format!(
            "expected scalar type {} but found {}",
            pretty_kernel_name(a.dtype()),
            pretty_kernel_name(b.dtype())
        )));
    }
    let out = bmm_data(a, b);
    Ok(with_grad(out, a, b, ProductKind::Bmm))
}

pub fn mv(a: &Tensor, v: &Tensor) -> Result<Tensor> {
    let (sa, sv) = (a.shape(), v.shape());
    if sa.len() != 2 || sv.len() != 1 {
        return Err(Error::Runtime(format!(
            "vector + matrix @ vector expected, got {}, {}, {}",
            1,
            sa.len(),
            sv.len()
        )));
    }
    if sa[1] != sv[0] {
        return Err(Error::Runtime(format!(
            "size mismatch, got input ({}), mat ({}x{}), vec ({})",
            sa[0], sa[0], sa[1], sv[0]
        )));
    }
    // mv is addmv into a result of the vector's dtype.
    if a.dtype() != v.dtype() {
        let (r, m) = (pretty_kernel_name(v.dtype()), pretty_kernel_name(a.dtype()));
        return Err(Error::Runtime(format!(
            "addmv input tensors must have the same dtype, but got {r}, {m}, and {r}"
        )));
    }
    check_not_bool("addmv_impl_cpu", a, sa[0] * sa[1] == 0)?;
    let _g = crate::autograd::GradModeGuard::new(false);
    let r = mm_data(a, &unsqueeze(v, 1)?)?;
    let out = reshape(&r, &[sa[0] as i64])?.detach();
    drop(_g);
    Ok(with_grad(out, a, v, ProductKind::Mv))
}

pub fn dot(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let (sa, sb) = (a.shape(), b.shape());
    if sa.len() != 1 || sb.len() != 1 {
        return Err(Error::Runtime(format!(
            "1D tensors expected, but got {}D and {}D tensors",
            sa.len(),
            sb.len()
        )));
    }
    if sa[0] != sb[0] {
        return Err(Error::Runtime(format!(
            "inconsistent tensor size, expected tensor [{}] and src [{}] to have the same number of elements, but got {} and {} elements respectively",
            sa[0], sb[0], sa[0], sb[0]
        )));
    }
    if a.dtype() != b.dtype() {
        return Err(Error::Runtime(format!(
            "dot : expected both vectors to have same dtype, but found {} and {}",
            pretty_kernel_name(a.dtype()),
            pretty_kernel_name(b.dtype())
        )));
    }
    check_not_bool("dot", a, false)?;
    let _g = crate::autograd::GradModeGuard::new(false);
    let r = mm_data(&unsqueeze(a, 0)?, &unsqueeze(b, 1)?)?;
    let out = reshape(&r, &[])?.detach();
    drop(_g);
    Ok(with_grad(out, a, b, ProductKind::Dot))
}

#[derive(Clone, Copy)]
enum ProductKind {
    Mm,
    Bmm,
    Mv,
    Dot,
}

fn with_grad(out: Tensor, a: &Tensor, b: &Tensor, kind: ProductKind) -> Tensor {
    if !needs_grad(&[a, b]) {
        return out;
    }
    let save = |cond: bool, t: &Tensor| {
        if cond {
            Some(SavedTensor::input(t))
        } else {
            None
        }
    };
    let node = ProductBackward {
        kind,
        a: save(b.requires_grad(), a),
        b: save(a.requires_grad(), b),
    };
    record(out, &[a, b], node)
}

struct ProductBackward {
    kind: ProductKind,
    a: Option<SavedTensor>,
    b: Option<SavedTensor>,
}

impl Backward for ProductBackward {
    fn name(&self) -> &'static str {
        match self.kind {
            ProductKind::Mm => "MmBackward0",
            ProductKind::Bmm => "BmmBackward0",
            ProductKind::Mv => "MvBackward0",
            ProductKind::Dot => "DotBackward0",
        }
    }

    fn apply(&mut self, g: &[Option<Tensor>], ctx: &Ctx) -> Result<Vec<Option<Tensor>>> {
        let g = g[0].as_ref().expect("gradient");
        let a = self.a.as_ref().map(|s| s.unpack(ctx)).transpose()?;
        let b = self.b.as_ref().map(|s| s.unpack(ctx)).transpose()?;
        let (ga, gb) = match self.kind {
            // C = A B: dA = dC Bᵀ, dB = Aᵀ dC.
            ProductKind::Mm => (
                b.map(|b| mm(g, &t(&b)?)).transpose()?,
                a.map(|a| mm(&t(&a)?, g)).transpose()?,
            ),
            ProductKind::Bmm => (
                b.map(|b| bmm(g, &transpose(&b, 1, 2)?)).transpose()?,
                a.map(|a| bmm(&transpose(&a, 1, 2)?, g)).transpose()?,
            ),
            // y = A v: dA = dy ⊗ v, dv = Aᵀ dy.
            ProductKind::Mv => (
                b.map(|v| mm(&unsqueeze(g, 1)?, &unsqueeze(&v, 0)?))
                    .transpose()?,
                a.map(|a| mv(&t(&a)?, g)).transpose()?,
            ),
            ProductKind::Dot => (
                b.map(|b| mul(g, &b)).transpose()?,
                a.map(|a| mul(g, &a)).transpose()?,
            ),
        };
        Ok(vec![ga, gb])
    }

    fn release(&mut self) {
        self.a
            .iter_mut()
            .chain(self.b.iter_mut())
            .for_each(|s| s.release());
    }
}

/// `a @ b` with all of PyTorch's cases (1-D, 2-D, folded and broadcast batched).
pub fn matmul(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let (d1, d2) = (a.dim(), b.dim());
    if d1 == 0 || d2 == 0 {
        return Err(Error::Runtime(format!(
            "both arguments to matmul need to be at least 1D, but they are {d1}D and {d2}D"
        )));
    }
    let (sa, sb) = (a.shape(), b.shape());
    match (d1, d2) {
        (1, 1) => dot(a, b),
        (2, 1) => mv(a, b),
        (1, 2) => squeeze_named(&mm(&unsqueeze(a, 0)?, b)?, Some(0), 4),
        (2, 2) => mm(a, b),
        _ if d1 >= 3 && d2 <= 2 => {
            // Fold a's batch dims into rows: one big mm (or mv).
            let k = sa[d1 - 1] as i64;
            let folded = reshape(a, &[-1, k])?;
            let prod = if d2 == 1 {
                mv(&folded, b)?
            } else {
                mm(&folded, b)?
            };
            let mut shape: Vec<usize> = sa[..d1 - 1].to_vec();
            if d2 == 2 {
                shape.push(sb[1]);
            }
            unsafe_view(&prod, &shape)
        }
        _ if d2 >= 3 && d1 <= 2 => {
            // (a @ b) = (bᵀ @ aᵀ)ᵀ, folding b's batch dims.
            let bt = transpose(b, -1, -2)?;
            if d1 == 1 {
                return matmul(&bt, a);
            }
            let r = matmul(&bt, &t(a)?)?;
            Ok(crate::ops::creation::contiguous(&transpose(&r, -1, -2)?))
        }
        _ => {
            // General broadcast batched product through bmm.
            let a2 = if d1 == 1 { unsqueeze(a, 0)? } else { a.clone() };
            let b2 = if d2 == 1 {
                unsqueeze(b, -1)?
            } else {
                b.clone()
            };
            let (s1, s2) = (a2.shape(), b2.shape());
            let (n, k1) = (s1[s1.len() - 2], s1[s1.len() - 1]);
            let (k2, p) = (s2[s2.len() - 2], s2[s2.len() - 1]);
            if k1 != k2 {
                return Err(Error::Runtime(format!(
                    "Expected size for first two dimensions of batch2 tensor to be: [{}, {}] but got: [{}, {}].",
                    numel(&s1[..s1.len() - 2]).max(1), k1, numel(&s2[..s2.len() - 2]).max(1), k2
                )));
            }
            let batch = broadcast_shapes(&s1[..s1.len() - 2], &s2[..s2.len() - 2])?;
            let bsz = numel(&batch) as i64;
            let mut e1: Vec<i64> = batch.iter().map(|&x| x as i64).collect();
            let mut e2 = e1.clone();
            e1.extend([n as i64, k1 as i64]);
            e2.extend([k2 as i64, p as i64]);
            let x = reshape(&expand(&a2, &e1)?, &[bsz, n as i64, k1 as i64])?;
            let y = reshape(&expand(&b2, &e2)?, &[bsz, k2 as i64, p as i64])?;
            let prod = bmm(&x, &y)?;
            let mut shape: Vec<usize> = batch.to_vec();
            if d1 > 1 {
                shape.push(n);
            }
            if d2 > 1 {
                shape.push(p);
            }
            unsafe_view(&prod, &shape)
        }
    }
}
