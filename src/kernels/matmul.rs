//! Matrix products: the batched product (the GPU's tiled kernel, else the CPU's gemm), the
//! CPU's accumulating product for addmm, and its float dot.

use super::backend::run;
use super::copy::{cast, narrow, wide};
use crate::backend::cpu::copy::{contiguous_cow, gather_contiguous};
use crate::backend::cpu::elementwise;
use crate::backend::cpu::matmul::{matmul as gemm, matmul_acc, Mat};
use crate::backend::cpu::reduce::{dot_f32, dot_f64};
use crate::dispatch;
use crate::dtype::{DType, Scalar};
use crate::error::Result;
use crate::tensor::{Device, Element, Layout, Tensor};

/// Batched product without autograd: a (B, m, k) · b (B, k, n) → (B, m, n), any strides,
/// one dtype (bool multiplies as int64; float16 accumulates in float32, as PyTorch's CPU
/// kernels do).
pub fn bmm(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    run!(|backend| backend.bmm(a, b))
}

/// The host's `bmm`.
pub(super) fn bmm_host(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let device = Device::of(&[a, b])?;
    let dtype = a.dtype();
    if dtype.compute() != dtype {
        return Ok(narrow(bmm(&wide(a), &wide(b))?, dtype));
    }
    if dtype == DType::Bool {
        let r = bmm(&cast(a, DType::I64), &cast(b, DType::I64))?;
        return Ok(cast(&r, DType::Bool));
    }
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
    Ok(dispatch!(dtype, T => Tensor::from_vec_on(
        gemm::<T>(da.storage.slice::<T>(), ma, la.strides[0], db.storage.slice::<T>(), mb, lb.strides[0], batch, m, k, n),
        &[batch, m, n],
        device,
    )))
}

fn scale<T: Element>(v: T, s: T) -> T {
    T::from_f64(v.to_f64() * s.to_f64())
}

/// `beta * bias + alpha * (m1 @ m2)` on the host for (m, k) · (k, n) matrices of one wide
/// dtype, `bias` already of shape (m, n) (expanded), the result on `device`. Floats
/// accumulate the product straight into the scaled bias (one gemm call, no temporary; with
/// `beta == 0` the bias is not read, NaN included); integers compute exactly, wrapping, with
/// the scalars truncated as PyTorch does. None for float32 GPU operands: the GPU has no
/// fused addmm, the caller composes its matmul kernel with the elementwise scale and add.
pub fn addmm(
    bias: &Tensor,
    m1: &Tensor,
    m2: &Tensor,
    beta: Scalar,
    alpha: Scalar,
    device: Device,
) -> Option<Tensor> {
    if device.is_gpu() && m1.dtype() == DType::F32 {
        return None;
    }
    Some(addmm_host(bias, m1, m2, beta, alpha, device))
}

fn addmm_host(
    bias: &Tensor,
    m1: &Tensor,
    m2: &Tensor,
    beta: Scalar,
    alpha: Scalar,
    device: Device,
) -> Tensor {
    let (db, da, dm) = (bias.read(), m1.read(), m2.read());
    let (m, k, n) = (da.layout.shape[0], da.layout.shape[1], dm.layout.shape[1]);
    let mat = |l: &Layout| Mat {
        offset: l.offset,
        rs: l.strides[0],
        cs: l.strides[1],
    };
    let (ma, mb) = (mat(&da.layout), mat(&dm.layout));
    dispatch!(da.dtype(), T => {
        let src = db.storage.slice::<T>();
        let (x, y) = (da.storage.slice::<T>(), dm.storage.slice::<T>());
        if T::DTYPE.is_floating_point() {
            let (b, a) = (T::from_f64(beta.to_f64()), T::from_f64(alpha.to_f64()));
            let mut acc = if beta.to_f64() == 0.0 {
                vec![T::default(); m * n]
            } else if beta.to_f64() == 1.0 {
                gather_contiguous(src, &db.layout)
            } else {
                elementwise::unary(src, &db.layout, |v| scale(v, b))
            };
            matmul_acc(&mut acc, x, ma, y, mb, m, k, n, a);
            Tensor::from_vec_on(acc, &[m, n], device)
        } else {
            let (b, a) = (beta.to_i64(), alpha.to_i64());
            let prod = gemm::<T>(x, ma, 0, y, mb, 0, 1, m, k, n);
            let base = gather_contiguous(src, &db.layout);
            let v: Vec<T> = base
                .iter()
                .zip(&prod)
                .map(|(p, q)| {
                    T::from_i64(p.to_i64().wrapping_mul(b).wrapping_add(q.to_i64().wrapping_mul(a)))
                })
                .collect();
            Tensor::from_vec_on(v, &[m, n], device)
        }
    })
}

/// A float dot of two 1-D CPU tensors with its own kernel (float32 blocks summed in
/// float64): more accurate than a 1 x n gemm (and PyTorch's BLAS dot), without its set-up.
/// None for GPU operands and other dtypes (the caller takes the product path).
pub fn dot(a: &Tensor, b: &Tensor) -> Option<Tensor> {
    if a.device().is_gpu() || b.device().is_gpu() {
        return None;
    }
    let (da, db) = (a.data(), b.data());
    let value = match da.dtype() {
        DType::F32 => dot_f32(
            &contiguous_cow(da.storage.slice(), &da.layout),
            &contiguous_cow(db.storage.slice(), &db.layout),
        ),
        DType::F64 => dot_f64(
            &contiguous_cow(da.storage.slice(), &da.layout),
            &contiguous_cow(db.storage.slice(), &db.layout),
        ),
        _ => return None,
    };
    Some(Tensor::full_on(
        &[],
        Scalar::Float(value),
        da.dtype(),
        Device::Cpu,
    ))
}
