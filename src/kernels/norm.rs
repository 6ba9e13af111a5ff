//! Normalization kernels on the host, in ATen's CPU order of operations
//! (`backend::cpu::norm`). Host-only: they answer None for a tensor on the GPU, whose op then
//! composes the normalization from the primitive set (Note [Kernel dispatch]).

use crate::backend::cpu::norm::{self as cpu, NormFloat};
use crate::backend::cpu::parallel::num_threads;
use crate::dtype::DType;
use crate::tensor::element::Element;
use crate::tensor::{Layout, Tensor};

/// What `batch_norm` computes: the output, the saved mean and inverse deviation (training
/// only), and the running statistics' new values (to be written into them).
pub struct BatchNorm {
    pub out: Tensor,
    pub mean: Option<Tensor>,
    pub invstd: Option<Tensor>,
    pub running_mean: Option<Tensor>,
    pub running_var: Option<Tensor>,
}

/// Whether `l` (4-D or 5-D) is channels-last dense (`is_contiguous(memory_format=
/// channels_last)`): dims C, then the spatial ones from the last, then N, each stride the
/// product of the sizes before it (size-1 dims read any stride).
fn channels_last(l: &Layout) -> bool {
    let nd = l.ndim();
    if !(nd == 4 || nd == 5) {
        return false;
    }
    let order = std::iter::once(1)
        .chain((2..nd).rev())
        .chain(std::iter::once(0));
    let mut expected = 1isize;
    for d in order {
        if l.shape[d] != 1 {
            if l.strides[d] != expected {
                return false;
            }
            expected *= l.shape[d] as isize;
        }
    }
    true
}

/// `native_batch_norm` of a float32 / float64 host tensor `[N, C, *]` with parameters of its
/// dtype; None for a GPU tensor. A contiguous or channels-last input runs ATen's kernels (bit
/// for bit); any other layout runs them on a contiguous copy (ATen's strided loops order
/// their sums differently there: the values agree to rounding).
#[allow(clippy::too_many_arguments)]
pub fn batch_norm(
    x: &Tensor,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    running_mean: Option<&Tensor>,
    running_var: Option<&Tensor>,
    train: bool,
    momentum: f64,
    eps: f64,
) -> Option<BatchNorm> {
    if super::host_reads_back(x) {
        return None;
    }
    Some(match x.dtype() {
        DType::F32 => batch_norm_typed::<f32>(
            x,
            weight,
            bias,
            running_mean,
            running_var,
            train,
            momentum,
            eps,
        ),
        _ => batch_norm_typed::<f64>(
            x,
            weight,
            bias,
            running_mean,
            running_var,
            train,
            momentum,
            eps,
        ),
    })
}

#[allow(clippy::too_many_arguments)]
fn batch_norm_typed<T: NormFloat + Element>(
    x: &Tensor,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    running_mean: Option<&Tensor>,
    running_var: Option<&Tensor>,
    train: bool,
    momentum: f64,
    eps: f64,
) -> BatchNorm {
    let shape = x.shape();
    let (n_batch, c) = (shape[0], shape[1]);
    let numel = x.numel();
    let img = numel.checked_div(n_batch * c).unwrap_or(0);
    let device = x.device();
    let vec = |t: Option<&Tensor>| t.map(|t| t.to_vec::<T>());
    let (w, b) = (vec(weight), vec(bias));
    let (mut rm, mut rv) = (vec(running_mean), vec(running_var));
    // The values in the order the kernels read them: planes (contiguous, more than one
    // element per plane) or rows of C (channels last, or one element per plane).
    let d = x.read();
    let cl = !d.layout.is_contiguous() && channels_last(&d.layout);
    let rows_layout = cl || img == 1;
    let copied;
    let xs: &[T] = if d.layout.is_contiguous() || cl {
        &d.storage.slice::<T>()[d.layout.offset..][..numel]
    } else {
        copied =
            crate::backend::cpu::copy::gather_contiguous::<T>(d.storage.slice::<T>(), &d.layout);
        &copied
    };
    let n = numel / c.max(1);
    let (mean, invstd) = if train {
        let (mean, var_sum) = if rows_layout {
            cpu::stats_rows(xs, n, c, num_threads())
        } else {
            cpu::stats_planes(xs, n_batch, c, img)
        };
        let invstd = cpu::finish_stats(
            &mean,
            &var_sum,
            n,
            eps,
            momentum,
            rm.as_deref_mut(),
            rv.as_deref_mut(),
        );
        (mean, invstd)
    } else {
        let rmv = rm.clone().expect("evaluation has running statistics");
        let inv = cpu::eval_invstd(
            rv.as_deref().expect("evaluation has running statistics"),
            eps,
        );
        (rmv, inv)
    };
    let (alpha, beta) = cpu::linear_terms(&mean, &invstd, w.as_deref(), b.as_deref());
    let out = if rows_layout {
        cpu::transform_rows(xs, c, &alpha, &beta)
    } else {
        cpu::transform_planes(xs, c, img, &alpha, &beta)
    };
    let layout = d.layout.clone();
    drop(d);
    let out = if cl {
        // The output keeps the input's channels-last strides, as ATen's `suggest_memory_format`.
        let strides = {
            let nd = shape.len();
            let mut s = vec![0isize; nd];
            let mut acc = 1isize;
            for dd in std::iter::once(1)
                .chain((2..nd).rev())
                .chain(std::iter::once(0))
            {
                s[dd] = acc;
                acc *= shape[dd] as isize;
            }
            s
        };
        let storage = crate::tensor::storage::Storage::from_vec_on(out, device);
        let _ = layout;
        Tensor::from_storage(
            storage,
            Layout {
                shape: shape.clone(),
                strides: strides.into(),
                offset: 0,
            },
        )
    } else {
        Tensor::from_vec_on(out, &shape, device)
    };
    let one = |v: Vec<T>| Tensor::from_vec_on(v, &[c], device);
    BatchNorm {
        out,
        mean: train.then(|| one(mean)),
        invstd: train.then(|| one(invstd)),
        running_mean: if train { rm.map(one) } else { None },
        running_var: if train { rv.map(one) } else { None },
    }
}

/// `native_layer_norm`'s host kernel over a float32 / float64 host tensor read as rows of
/// `n` (the normalized size; a non-contiguous input is copied first, as ATen's
/// `X.contiguous()`), with weight and bias of its dtype: `(y, mean, rstd)` mean and rstd one per row, y
/// in the input's shape. None for a GPU tensor.
pub fn layer_norm(
    x: &Tensor,
    n: usize,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    eps: f64,
) -> Option<(Tensor, Tensor, Tensor)> {
    if super::host_reads_back(x) {
        return None;
    }
    fn typed<T: NormFloat + Element, const L: usize>(
        x: &Tensor,
        n: usize,
        weight: Option<&Tensor>,
        bias: Option<&Tensor>,
        eps: f64,
    ) -> (Tensor, Tensor, Tensor) {
        let vec = |t: Option<&Tensor>| t.map(|t| t.to_vec::<T>());
        let (w, b) = (vec(weight), vec(bias));
        let d = x.read();
        let numel = d.layout.numel();
        let copied;
        let xs: &[T] = if d.layout.is_contiguous() {
            &d.storage.slice::<T>()[d.layout.offset..][..numel]
        } else {
            copied = crate::backend::cpu::copy::gather_contiguous::<T>(
                d.storage.slice::<T>(),
                &d.layout,
            );
            &copied
        };
        let (y, mean, rstd) = cpu::layer_norm_rows::<T, L>(xs, n, w.as_deref(), b.as_deref(), eps);
        drop(d);
        let rows = mean.len();
        let one = |v: Vec<T>| Tensor::from_vec_on(v, &[rows], x.device());
        (
            Tensor::from_vec_on(y, &x.shape(), x.device()),
            one(mean),
            one(rstd),
        )
    }
    Some(match x.dtype() {
        DType::F32 => typed::<f32, 8>(x, n, weight, bias, eps),
        _ => typed::<f64, 4>(x, n, weight, bias, eps),
    })
}

/// A zeroed host buffer of `n` elements, reserved fallibly.
fn zeroed<T: Element + NormFloat>(n: usize) -> crate::Result<Vec<T>> {
    let mut v = crate::tensor::pool::try_alloc::<T>(n)?;
    v.resize(n, T::ZERO);
    Ok(v)
}

/// `native_layer_norm`'s backward on the host (`cpu::layer_norm_backward_rows`): `g` and `x`
/// of one float32 / float64 dtype read as rows of their last `k` dims, `mean` / `rstd` one
/// per row, `w` of those dims or None; the gradients of input, weight and bias where `want` asks. None where it does
/// not apply (a GPU operand, another or mixed dtypes): the op composes tensor ops.
pub fn layer_norm_backward(
    g: &Tensor,
    x: &Tensor,
    w: Option<&Tensor>,
    mean: &Tensor,
    rstd: &Tensor,
    k: usize,
    want: [bool; 3],
) -> crate::Result<Option<[Option<Tensor>; 3]>> {
    let all = [Some(g), Some(x), w, Some(mean), Some(rstd)];
    let dtype = x.dtype();
    if !matches!(dtype, DType::F32 | DType::F64)
        || all
            .iter()
            .flatten()
            .any(|t| super::host_reads_back(t) || t.dtype() != dtype)
        || g.shape() != x.shape()
        || k > x.dim()
    {
        return Ok(None);
    }
    fn typed<T: NormFloat + Element, const L: usize>(
        g: &Tensor,
        x: &Tensor,
        w: Option<&Tensor>,
        mean: &Tensor,
        rstd: &Tensor,
        k: usize,
        want: [bool; 3],
    ) -> crate::Result<[Option<Tensor>; 3]> {
        let n: usize = x.shape()[x.dim() - k..].iter().product();
        let numel = x.numel();
        let mut dx = if want[0] {
            Some(zeroed::<T>(numel)?)
        } else {
            None
        };
        let mut dw = if want[1] { Some(zeroed::<T>(n)?) } else { None };
        let mut db = if want[2] { Some(zeroed::<T>(n)?) } else { None };
        let gamma = w.map(|w| w.to_vec::<T>());
        let (mean, rstd) = (mean.to_vec::<T>(), rstd.to_vec::<T>());
        super::with_host::<T, _>(g, |gs| {
            super::with_host::<T, _>(x, |xs| {
                cpu::layer_norm_backward_rows::<T, L>(
                    gs,
                    xs,
                    &mean,
                    &rstd,
                    gamma.as_deref(),
                    n,
                    dx.as_deref_mut(),
                    dw.as_deref_mut(),
                    db.as_deref_mut(),
                )
            })
        });
        let device = x.device();
        let shape = x.shape();
        Ok([
            dx.map(|v| Tensor::from_vec_on(v, &shape, device)),
            dw.map(|v| Tensor::from_vec_on(v, &shape[shape.len() - k..], device)),
            db.map(|v| Tensor::from_vec_on(v, &shape[shape.len() - k..], device)),
        ])
    }
    Ok(Some(match dtype {
        DType::F32 => typed::<f32, 8>(g, x, w, mean, rstd, k, want)?,
        _ => typed::<f64, 4>(g, x, w, mean, rstd, k, want)?,
    }))
}
