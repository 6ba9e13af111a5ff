//! The samplers behind torch.distributions: `_standard_gamma` (StandardGammaBackward0, its
//! reparameterized gradient `_standard_gamma_grad`), `_sample_dirichlet` and
//! `_dirichlet_grad`, `binomial`. Each draws with ATen's CPU kernel (`kernels::samplers`)
//! element by element in the output's row-major order from PyTorch's generator, so a seed
//! gives PyTorch's CPU numbers; GPU tensors are sampled on the host and uploaded.

use crate::autograd::formula::Values;
use crate::autograd::{attach_named_jvp, needs_grad, record_formula_jvp, Jvp, SavedTensor};
use crate::dtype::{pretty_kernel_name, DType};
use crate::error::{Error, Result};
use crate::kernels::random::{with_gen, GeneratorRef};
use crate::kernels::samplers::{self, cpp_max, cpp_min, Real};
use crate::tensor::shape::{broadcast_shapes, sizes_i64};
use crate::tensor::{Device, Tensor};

/// `t`'s values in row-major order as f64, read on the host.
fn host_values(t: &Tensor) -> Result<Vec<f64>> {
    let cpu = crate::ops::creation::copy_to_device(&t.detach(), Device::Cpu)?;
    Ok(cpu.to_f64_vec())
}

/// `t` broadcast to `shape`, its values in row-major order on the host.
fn broadcast_values(t: &Tensor, shape: &[usize]) -> Result<Vec<f64>> {
    let e = crate::ops::movement::expand(&t.detach(), &sizes_i64(shape))?;
    host_values(&e)
}

/// A float32 or float64 tensor of `values` (already rounded to `dtype`) on `device`.
fn tensor_of(values: Vec<f64>, shape: &[usize], dtype: DType, device: Device) -> Result<Tensor> {
    let t = match dtype {
        DType::F32 => Tensor::from_vec(values.into_iter().map(|v| v as f32).collect(), shape),
        _ => Tensor::from_vec(values, shape),
    };
    crate::ops::creation::copy_to_device(&t, device)
}

/// ATen's `AT_DISPATCH_FLOATING_TYPES` check: float32 and float64 only.
fn float_kernel(kernel: &str, dtype: DType) -> Result<()> {
    match dtype {
        DType::F32 | DType::F64 => Ok(()),
        d => Err(crate::dtype::unsupported(kernel, d)),
    }
}

/// TensorIterator's `check_all_same_dtype`: every operand has the output's dtype.
fn same_dtype(expected: DType, others: &[&Tensor]) -> Result<()> {
    for t in others {
        if t.dtype() != expected {
            return Err(Error::Runtime(format!(
                "Found dtype {} but expected {}",
                pretty_kernel_name(t.dtype()),
                pretty_kernel_name(expected)
            )));
        }
    }
    Ok(())
}

/// The shape of an op whose output starts as `first`'s shape and is resized to the operands'
/// broadcast shape (the caller warns as PyTorch does when they differ).
pub fn broadcast_all(ts: &[&Tensor]) -> Result<Vec<usize>> {
    let mut shape = ts[0].shape().to_vec();
    for t in &ts[1..] {
        shape = broadcast_shapes(&shape, &t.shape())?.to_vec();
    }
    Ok(shape)
}

/// A result PyTorch has no derivative for: grad_fn `NotImplemented`, backward raises.
fn not_implemented(out: Tensor, inputs: &[&Tensor], aten: &'static str) -> Tensor {
    if !needs_grad(inputs) {
        return out;
    }
    record_formula_jvp(
        out,
        inputs,
        "NotImplemented",
        vec![],
        move |_, _| {
            Err(Error::Runtime(format!(
                "derivative for aten::{aten} is not implemented"
            )))
        },
        Jvp::of(move |_, _| {
            Err(Error::NotImplemented(format!(
                "Trying to use forward AD with aten::{aten} that does not support it."
            )))
        }),
    )
}

/// Draw one value per element of `values` (in T, ATen's scalar_t) on `gen`.
fn draw<T: Real>(
    gen: &GeneratorRef,
    values: &[f64],
    mut f: impl FnMut(&mut crate::kernels::random::CpuGenerator, T) -> T,
) -> Vec<f64> {
    with_gen(Some(gen), |g| {
        values.iter().map(|&a| f(g, T::of(a)).f64()).collect()
    })
}

/// `_standard_gamma(alpha)`: one Gamma(alpha, 1) draw per element, at least the dtype's
/// smallest normal value (ATen's clamp); StandardGammaBackward0 multiplies the gradient by
/// `_standard_gamma_grad(alpha, result)`.
pub fn standard_gamma(alpha: &Tensor, gen: Option<&GeneratorRef>) -> Result<Tensor> {
    let dtype = alpha.dtype();
    float_kernel("gamma_cpu", dtype)?;
    let shape = alpha.shape().to_vec();
    let values = host_values(alpha)?;
    let gen = crate::ops::random::resolve(gen, alpha.device());
    let out = match dtype {
        DType::F32 => draw::<f32>(&gen, &values, |g, a| {
            cpp_max(f32::MIN_POSITIVE, samplers::sample_gamma(g, a))
        }),
        _ => draw::<f64>(&gen, &values, |g, a| {
            cpp_max(f64::MIN_POSITIVE, samplers::sample_gamma(g, a))
        }),
    };
    let out = tensor_of(out, &shape, dtype, alpha.device())?;
    if !needs_grad(&[alpha]) {
        return Ok(out);
    }
    let saved = vec![SavedTensor::input(alpha)?, SavedTensor::output(&out, 0)?];
    attach_named_jvp(
        &[&out],
        &[alpha],
        "StandardGammaBackward0",
        saved,
        &["self", "result"],
        Values::new(),
        |g, s| {
            let g = g[0].as_ref().expect("engine passes a gradient");
            let d = standard_gamma_grad(&s[0], &s[1])?;
            Ok(vec![Some(crate::ops::arithmetic::mul(g, &d)?)])
        },
        Jvp::of(|_, _| Err(crate::autograd::forward::not_implemented("_standard_gamma"))),
    );
    Ok(out)
}

/// `_standard_gamma_grad(alpha, x)`: d x / d alpha of standard Gamma(alpha) samples x
/// (ATen's `standard_gamma_grad_one`, in double). Differentiable in neither argument:
/// StandardGammaGradBackward0 (on alpha only, as PyTorch records it) raises.
pub fn standard_gamma_grad(alpha: &Tensor, x: &Tensor) -> Result<Tensor> {
    let dtype = alpha.dtype();
    same_dtype(dtype, &[x])?;
    float_kernel("_standard_gamma_grad_cpu", dtype)?;
    let shape = broadcast_all(&[alpha, x])?;
    let a = broadcast_values(alpha, &shape)?;
    let xs = broadcast_values(x, &shape)?;
    let round = |v: f64| {
        if dtype == DType::F32 {
            v as f32 as f64
        } else {
            v
        }
    };
    let out: Vec<f64> = a
        .iter()
        .zip(&xs)
        .map(|(&a, &x)| round(samplers::standard_gamma_grad_one(a, x)))
        .collect();
    let out = tensor_of(out, &shape, dtype, alpha.device())?;
    if !needs_grad(&[alpha]) {
        return Ok(out);
    }
    Ok(record_formula_jvp(
        out,
        &[alpha],
        "StandardGammaGradBackward0",
        vec![],
        |_, _| {
            Err(Error::NotImplemented(
                "the derivative for '_standard_gamma_grad' is not implemented.".into(),
            ))
        },
        Jvp::of(|_, _| {
            Err(crate::autograd::forward::not_implemented(
                "_standard_gamma_grad",
            ))
        }),
    ))
}

/// ATen's normalization of Dirichlet gammas: `gamma / sum`, clamped to
/// `[min normal, nexttoward(1, 0)]` of T.
fn dirichlet_normalize<T: Real>(gamma: f64, sum: f64) -> f64 {
    let v = T::of(gamma / sum);
    cpp_min(T::BELOW_ONE, cpp_max(T::MIN_POSITIVE, v)).f64()
}

/// `_sample_dirichlet(alpha)`: Gamma(alpha) draws in double (at least its smallest normal
/// value), normalized over the last dim and clamped into (0, 1). No derivative (the
/// distribution's rsample differentiates through `_dirichlet_grad`).
pub fn sample_dirichlet(alpha: &Tensor, gen: Option<&GeneratorRef>) -> Result<Tensor> {
    let dtype = alpha.dtype();
    float_kernel("dirichlet", dtype)?;
    let shape = alpha.shape().to_vec();
    let values = host_values(alpha)?;
    let gen = crate::ops::random::resolve(gen, alpha.device());
    // The alphas reach the double sampler from their own dtype, as ATen's cast does.
    let gammas = draw::<f64>(&gen, &values, |g, a| {
        cpp_max(f64::MIN_POSITIVE, samplers::sample_gamma(g, a))
    });
    // Each row normalized by its sum, taken in the order of PyTorch's sum kernel.
    let k = shape.last().copied().unwrap_or(1).max(1);
    let mut out = Vec::with_capacity(gammas.len());
    for row in gammas.chunks(k) {
        let s = samplers::aten_row_sum(row);
        out.extend(row.iter().map(|&g| match dtype {
            DType::F32 => dirichlet_normalize::<f32>(g, s),
            _ => dirichlet_normalize::<f64>(g, s),
        }));
    }
    let out = tensor_of(out, &shape, dtype, alpha.device())?;
    Ok(not_implemented(out, &[alpha], "_sample_dirichlet"))
}

/// `_dirichlet_grad(x, alpha, total)`: ATen's `dirichlet_grad_one` per element (broadcast);
/// no derivative.
pub fn dirichlet_grad(x: &Tensor, alpha: &Tensor, total: &Tensor) -> Result<Tensor> {
    let dtype = x.dtype();
    same_dtype(dtype, &[alpha, total])?;
    float_kernel("_dirichlet_grad_cpu", dtype)?;
    let shape = broadcast_all(&[x, alpha, total])?;
    let xs = broadcast_values(x, &shape)?;
    let a = broadcast_values(alpha, &shape)?;
    let t = broadcast_values(total, &shape)?;
    let out: Vec<f64> = (0..xs.len())
        .map(|i| match dtype {
            DType::F32 => {
                samplers::dirichlet_grad_one(xs[i] as f32, a[i] as f32, t[i] as f32) as f64
            }
            _ => samplers::dirichlet_grad_one(xs[i], a[i], t[i]),
        })
        .collect();
    let out = tensor_of(out, &shape, dtype, x.device())?;
    Ok(not_implemented(out, &[x, alpha, total], "_dirichlet_grad"))
}

/// `binomial(count, prob)`: ATen's `sample_binomial` per element (broadcast); no derivative.
pub fn binomial(count: &Tensor, prob: &Tensor, gen: Option<&GeneratorRef>) -> Result<Tensor> {
    for (t, name) in [(count, "count"), (prob, "prob")] {
        if !t.dtype().is_floating_point() {
            return Err(Error::Value(format!(
                "binomial only supports floating-point dtypes for {name}, got: {}",
                pretty_kernel_name(t.dtype())
            )));
        }
    }
    let dtype = count.dtype();
    same_dtype(dtype, &[prob])?;
    float_kernel("binomial_cpu", dtype)?;
    let shape = broadcast_all(&[count, prob])?;
    let n = broadcast_values(count, &shape)?;
    let p = broadcast_values(prob, &shape)?;
    let gen = crate::ops::random::resolve(gen, count.device());
    let out: Vec<f64> = with_gen(Some(&gen), |g| {
        n.iter()
            .zip(&p)
            .map(|(&n, &p)| match dtype {
                DType::F32 => samplers::sample_binomial(g, n as f32, p as f32) as f64,
                _ => samplers::sample_binomial(g, n, p),
            })
            .collect()
    });
    let out = tensor_of(out, &shape, dtype, count.device())?;
    Ok(not_implemented(out, &[count, prob], "binomial"))
}
