//! Random tensors and in-place random fills, drawn from PyTorch's CPU generator
//! (`kernels::random`) with the transforms of ATen's CPU kernels, element for element
//! in the order TensorIterator walks the output, so a seed gives PyTorch's numbers (Note
//! [PyTorch's random streams]). GPU tensors are filled on the host and uploaded.
//!
//! Where ATen's kernels are compiled with FMA (its AVX2/AVX-512 builds contract `a * b + c`),
//! the same expressions use `mul_add` here; the scalar Box–Muller path caches its second
//! sample in the generator as ATen's does.

use crate::autograd::{needs_grad, record_formula_jvp, GradModeGuard};
use crate::dtype::{cpp_name, pretty_kernel_name, DType};
use crate::error::{Error, Result};
use crate::kernels::random::*;
use crate::tensor::shape::numel;
use crate::tensor::{Device, Element, Tensor};
use half::f16;

pub use crate::kernels::random::{nondeterministic_seed, with_gen, STATE_BYTES};

/// The default generator of a device: GPU tensors are filled on the host from the CPU's
/// stream and uploaded, so `randn(n, device='gpu')` equals the CPU's `randn(n)` (PyTorch's
/// CUDA tensors use their own Philox stream, which gradrs does not reproduce).
pub fn default_for(device: Device) -> &'static GeneratorRef {
    let _ = device;
    default_generator()
}

/// The generator a draw for `device` uses: `gen`, else the device's default.
pub fn resolve(gen: Option<&GeneratorRef>, device: Device) -> GeneratorRef {
    gen.unwrap_or_else(|| default_for(device)).clone()
}

/// `manual_seed(seed)`: every device's default generator.
pub fn manual_seed(seed: u64) {
    default_generator().lock().manual_seed(seed);
}

/// `seed()`: a fresh nondeterministic seed for every default generator; returns it.
pub fn seed() -> u64 {
    let s = nondeterministic_seed();
    manual_seed(s);
    s
}

pub fn initial_seed() -> u64 {
    default_generator().lock().initial_seed()
}

/// A double as C++'s `operator<<` prints it (`%g`, six significant digits), for messages.
pub fn fmt_g(v: f64) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let sci = format!("{v:.5e}");
    let (mant, exp) = sci.split_once('e').unwrap();
    let exp: i32 = exp.parse().unwrap();
    let strip = |s: String| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", strip(mant.to_string()), exp.abs())
    } else {
        strip(format!("{v:.*}", (5 - exp) as usize))
    }
}

// ---- filling a tensor in place ----------------------------------------------------------------

/// The dims of `t` as TensorIterator walks a nullary op's output: largest stride outermost,
/// so a permuted or transposed tensor is filled in memory order, as PyTorch fills it.
fn walk_order(t: &Tensor) -> Vec<usize> {
    let (shape, strides) = (t.shape(), t.strides());
    let mut dims: Vec<usize> = (0..shape.len()).filter(|&d| shape[d] != 1).collect();
    dims.sort_by(|&a, &b| strides[b].cmp(&strides[a]));
    let ones = (0..shape.len()).filter(|&d| shape[d] == 1);
    ones.chain(dims).collect()
}

/// Fill `dst` in place with `values(n, contiguous)` (its elements in walk order): PyTorch's
/// in-place autograd rules (the leaf check; on a tracked tensor the node `name`, whose
/// gradient is zero), the version bump, and the upload for GPU tensors.
fn fill_with(
    dst: &Tensor,
    name: &'static str,
    gen: Option<&GeneratorRef>,
    values: impl FnOnce(usize, bool, Option<&GeneratorRef>) -> Result<Tensor>,
) -> Result<()> {
    crate::ops::inplace::check_inplace_leaf(dst)?;
    let shape = dst.shape();
    let n = numel(&shape);
    let order = walk_order(dst);
    let gen = resolve(gen, dst.device());
    crate::ops::inplace::apply_(dst, false, |alias| {
        // Note [Write overlap]: one draw per element cannot land in shared memory. Checked
        // after apply_'s autograd checks and before drawing, in ATen's order.
        crate::ops::inplace::check_write(dst, &[])?;
        let flat = values(n, dst.is_contiguous(), Some(&gen))?;
        let walked: Vec<i64> = order.iter().map(|&d| shape[d] as i64).collect();
        let mut inverse = vec![0i64; order.len()];
        for (k, &d) in order.iter().enumerate() {
            inverse[d] = k as i64;
        }
        let laid = crate::ops::movement::permute(
            &crate::ops::movement::reshape(&flat, &walked)?,
            &inverse,
        )?;
        let laid = crate::ops::creation::copy_to_device(&laid, dst.device())?;
        if !needs_grad(&[alias]) {
            return Ok(laid);
        }
        Ok(record_formula_jvp(
            laid,
            &[alias],
            name,
            vec![],
            |g, _| Ok(vec![Some(crate::ops::creation::zeros_like(g))]),
            crate::autograd::Jvp::Elementwise,
        ))
    })
}

fn float_only(kernel: &str, dtype: DType) -> Result<()> {
    if dtype.is_floating_point() {
        Ok(())
    } else {
        Err(crate::dtype::unsupported(kernel, dtype))
    }
}

/// Largest finite value of a float dtype, as ATen's bound checks use it.
fn float_max(dtype: DType) -> f64 {
    match dtype {
        DType::F16 => 65504.0,
        DType::BF16 => half::bf16::MAX.to_f64(),
        DType::F32 => f32::MAX as f64,
        _ => f64::MAX,
    }
}

/// `x.uniform_(from, to)`: UniformBackward0.
pub fn uniform_(dst: &Tensor, from: f64, to: f64, gen: Option<&GeneratorRef>) -> Result<()> {
    let dtype = dst.dtype();
    float_only("check_uniform_bounds", dtype)?;
    let (min, max) = (-float_max(dtype), float_max(dtype));
    let ty = cpp_name(dtype);
    if !(from >= min && from <= max) {
        return Err(Error::Runtime(format!("from is out of bounds for {ty}")));
    }
    if !(to >= min && to <= max) {
        return Err(Error::Runtime(format!("to is out of bounds for {ty}")));
    }
    if from > to {
        return Err(Error::Runtime(format!(
            "uniform_ expects to return a [from, to) range, but found from={} > to={}",
            fmt_g(from),
            fmt_g(to)
        )));
    }
    if to - from > max {
        return Err(Error::Runtime(format!(
            "uniform_ expects to-from <= std::numeric_limits<{}>::max(), but found to={} and from={} which result in to-from to exceed the limit",
            pretty_kernel_name(dtype),
            fmt_g(to),
            fmt_g(from)
        )));
    }
    fill_with(dst, "UniformBackward0", gen, |n, _, gen| {
        Ok(uniform_values(dtype, n, from, to, gen))
    })
}

/// `uniform_real_distribution<T>(from, to)` values: `x * (to - from) + from` in T's
/// accumulate type, contracted to one FMA as ATen's vectorized builds compile it.
fn uniform_values(
    dtype: DType,
    n: usize,
    from: f64,
    to: f64,
    gen: Option<&GeneratorRef>,
) -> Tensor {
    with_gen(gen, |g| match dtype {
        DType::F32 => {
            let (a, b) = (from as f32, to as f32);
            let w = b - a;
            let mut v: Vec<f32> = crate::tensor::pool::vec_with_capacity(n);
            v.resize(n, 0.0);
            unit_f32_fill(g, &mut v);
            fma_in_place(&mut v, w, a);
            from_vec(v)
        }
        DType::F64 => {
            let w = to - from;
            from_vec(crate::tensor::pool::collect(
                n,
                (0..n).map(|_| unit_f64(g).mul_add(w, from)),
            ))
        }
        _ => {
            // Half (and bfloat16) draws a float (24 bits) and rounds it; a value that rounds
            // up to `to` becomes `from`, keeping the range half-open (PyTorch 2.13's CPU
            // kernel). The rounded values are exact in float32, cast to `dtype` at the end.
            let round = narrow_round(dtype);
            let (a, b) = (round(from as f32), round(to as f32));
            let w = b - a;
            let v: Vec<f32> = (0..n)
                .map(|_| {
                    let v = round(unit_f32(g).mul_add(w, a));
                    if v == b {
                        a
                    } else {
                        v
                    }
                })
                .collect();
            crate::ops::creation::narrow(from_vec(v), dtype)
        }
    })
}

/// A float32 rounded to the half-precision `dtype` (float16 or bfloat16), as float32.
fn narrow_round(dtype: DType) -> fn(f32) -> f32 {
    if dtype == DType::BF16 {
        |v| half::bf16::from_f32(v).to_f32()
    } else {
        |v| f16::from_f32(v).to_f32()
    }
}

/// `rand(shape)` / `rand_like`.
pub fn rand(shape: &[usize], dtype: DType) -> Result<Tensor> {
    rand_gen(shape, dtype, None)
}

pub fn rand_gen(shape: &[usize], dtype: DType, gen: Option<&GeneratorRef>) -> Result<Tensor> {
    float_only("check_uniform_bounds", dtype)?;
    crate::tensor::shape::storage_nbytes(shape, dtype.itemsize())?;
    let t = uniform_values(dtype, numel(shape), 0.0, 1.0, gen);
    crate::ops::movement::unsafe_view(&t, shape)
}

/// `x.normal_(mean, std)`: NormalBackward0.
pub fn normal_(dst: &Tensor, mean: f64, std: f64, gen: Option<&GeneratorRef>) -> Result<()> {
    check_std(std)?;
    let dtype = dst.dtype();
    float_only("normal_kernel_cpu", dtype)?;
    fill_with(dst, "NormalBackward0", gen, |n, contiguous, gen| {
        Ok(normal_values(dtype, n, contiguous, mean, std, gen))
    })
}

fn check_std(std: f64) -> Result<()> {
    if std >= 0.0 {
        Ok(())
    } else {
        Err(Error::Runtime(format!(
            "normal expects std >= 0.0, but found std {}",
            fmt_g(std)
        )))
    }
}

/// ATen's `normal_kernel`: contiguous tensors of 16 or more elements take `normal_fill`
/// (uniforms first, then Box–Muller on blocks of 16, the tail block recomputed from fresh
/// uniforms); anything else draws `normal_distribution<double>` one element at a time.
fn normal_values(
    dtype: DType,
    n: usize,
    contiguous: bool,
    mean: f64,
    std: f64,
    gen: Option<&GeneratorRef>,
) -> Tensor {
    with_gen(gen, |g| {
        if n >= 16 && contiguous {
            match dtype {
                DType::F32 => return from_vec(normal_fill_f32(g, n, mean as f32, std as f32)),
                DType::F64 => return from_vec(normal_fill_f64(g, n, mean, std)),
                // Half follows the float path and rounds (the ragged tail aside: Note
                // [Half normal tail]).
                _ => {
                    let v = normal_fill_half(g, n, mean as f32, std as f32);
                    return crate::ops::creation::narrow(from_vec(v), dtype);
                }
            }
        }
        match dtype {
            DType::F32 => from_vec(
                (0..n)
                    .map(|_| normal_f64(g, mean, std) as f32)
                    .collect::<Vec<f32>>(),
            ),
            DType::F64 => from_vec(
                (0..n)
                    .map(|_| normal_f64(g, mean, std))
                    .collect::<Vec<f64>>(),
            ),
            _ => crate::ops::creation::narrow(
                from_vec(
                    (0..n)
                        .map(|_| normal_f64(g, mean, std) as f32)
                        .collect::<Vec<f32>>(),
                ),
                dtype,
            ),
        }
    })
}

/// `randn(shape)` / `randn_like`.
pub fn randn(shape: &[usize], dtype: DType) -> Result<Tensor> {
    randn_gen(shape, dtype, None)
}

pub fn randn_gen(shape: &[usize], dtype: DType, gen: Option<&GeneratorRef>) -> Result<Tensor> {
    float_only("normal_kernel_cpu", dtype)?;
    crate::tensor::shape::storage_nbytes(shape, dtype.itemsize())?;
    let t = normal_values(dtype, numel(shape), true, 0.0, 1.0, gen);
    crate::ops::movement::unsafe_view(&t, shape)
}

/// The `[min, max]` an integer or bool dtype holds, for `random_`'s bound checks.
fn int_bounds(dtype: DType) -> (i64, i64) {
    match dtype {
        DType::Bool => (0, 1),
        DType::U8 => (0, u8::MAX as i64),
        DType::I8 => (i8::MIN as i64, i8::MAX as i64),
        DType::I16 => (i16::MIN as i64, i16::MAX as i64),
        DType::I32 => (i32::MIN as i64, i32::MAX as i64),
        _ => (i64::MIN, i64::MAX),
    }
}

/// Mantissa digits of a float dtype (`std::numeric_limits<T>::digits`).
fn digits(dtype: DType) -> u32 {
    match dtype {
        DType::F16 => 11,
        DType::BF16 => 8,
        DType::F32 => 24,
        _ => 53,
    }
}

/// `static_cast<int64_t>(static_cast<T>(v))` for a float dtype.
fn through_float(dtype: DType, v: i64) -> i64 {
    match dtype {
        DType::F16 => f16::from_f32(v as f32).to_f32() as i64,
        DType::BF16 => half::bf16::from_f32(v as f32).to_f32() as i64,
        DType::F32 => (v as f32) as i64,
        _ => (v as f64) as i64,
    }
}

/// ATen's `update_from`: the closest `from` whose values stay at or above it once cast.
fn update_from(dtype: DType, from: i64) -> i64 {
    let plus1 = through_float(dtype, from.wrapping_add(1));
    if plus1 < from {
        let n = 63 - (from.wrapping_add(1)).unsigned_abs().max(1).leading_zeros() as i64;
        return plus1 + (1i64 << (n - digits(dtype) as i64 + 1));
    }
    from
}

/// ATen's `update_to`: the closest `to` whose values stay below it once cast.
fn update_to(dtype: DType, to: i64) -> i64 {
    let minus1 = through_float(dtype, to.wrapping_sub(1));
    if minus1 >= to {
        let n = 63 - (to.wrapping_sub(1)).unsigned_abs().max(1).leading_zeros() as i64;
        return minus1 - (1i64 << (n - digits(dtype) as i64 + 1));
    }
    to
}

fn check_random_bounds(dtype: DType, from: i64, to_inc: i64) -> Result<()> {
    let ty = cpp_name(dtype);
    let ok = |v: i64| {
        if dtype.is_floating_point() {
            (v as f64).abs() <= float_max(dtype)
        } else {
            let (lo, hi) = int_bounds(dtype);
            v >= lo && v <= hi
        }
    };
    if !ok(from) {
        return Err(Error::Runtime(format!("from is out of bounds for {ty}")));
    }
    if !ok(to_inc) {
        return Err(Error::Runtime(format!("to - 1 is out of bounds for {ty}")));
    }
    Ok(())
}

/// Which form of `random_` to run.
#[derive(Clone, Copy)]
pub enum RandomRange {
    /// `random_()`: `[0, 2^mantissa]` for floats, `[0, max]` for integers.
    Default,
    /// `random_(from, to)` (`to` exclusive; None: up to the dtype's maximum).
    FromTo(i64, Option<i64>),
}

/// `x.random_(...)`: RandomBackward0 (`from, to`), RandomBackward1 (`to`), RandomBackward2 ().
pub fn random_(
    dst: &Tensor,
    range: RandomRange,
    name: &'static str,
    gen: Option<&GeneratorRef>,
) -> Result<()> {
    let dtype = dst.dtype();
    let plan = match range {
        RandomRange::Default => None,
        RandomRange::FromTo(mut from, Some(mut to)) => {
            if from >= to {
                return Err(Error::Runtime(format!(
                    "random_ expects 'from' to be less than 'to', but got from={from} >= to={to}"
                )));
            }
            if dtype.is_floating_point() {
                from = update_from(dtype, from);
                to = update_to(dtype, to);
                if from >= to {
                    return Err(Error::Runtime(format!("random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, but got from={from} >= to={to}")));
                }
            }
            check_random_bounds(dtype, from, to - 1)?;
            Some(((to as u64).wrapping_sub(from as u64), from))
        }
        RandomRange::FromTo(from, None) if from == i64::MIN => Some((0, from)),
        RandomRange::FromTo(mut from, None) => {
            let to_inc = if dtype.is_floating_point() {
                let to_inc = 1i64 << digits(dtype);
                from = update_from(dtype, from);
                if from >= to_inc {
                    return Err(Error::Runtime(format!("random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' casted to dtype, but got from={from} > to_inc={to_inc}")));
                }
                to_inc
            } else {
                int_bounds(dtype).1
            };
            check_random_bounds(dtype, from, to_inc)?;
            Some((
                (to_inc as u64).wrapping_sub(from as u64).wrapping_add(1),
                from,
            ))
        }
    };
    fill_with(dst, name, gen, |n, _, gen| {
        Ok(with_gen(gen, |g| match plan {
            None => random_default(g, dtype, n),
            // range 0 stands for 2^64: `[i64::MIN, i64::MAX]`.
            Some((0, _)) => crate::dispatch!(dtype, T => from_vec(
                (0..n).map(|_| <T as Element>::from_i64(g.random64() as i64)).collect::<Vec<T>>()
            )),
            Some((range, base)) => random_from_to(g, dtype, n, range, base),
        }))
    })
}

/// `randint(low, high, shape)`: `random_(low, high)` on a new tensor.
pub fn randint(low: i64, high: i64, shape: &[usize], dtype: DType) -> Result<Tensor> {
    randint_gen(low, high, shape, dtype, None)
}

pub fn randint_gen(
    low: i64,
    high: i64,
    shape: &[usize],
    dtype: DType,
    gen: Option<&GeneratorRef>,
) -> Result<Tensor> {
    let t = Tensor::zeros(shape, dtype);
    random_(
        &t,
        RandomRange::FromTo(low, Some(high)),
        "RandomBackward0",
        gen,
    )?;
    Ok(t)
}

/// `x.bernoulli_(p)` for a number p: BernoulliBackward2. PyTorch's scalar kernel draws
/// `uniform_real_distribution<double>` per element and compares with p.
pub fn bernoulli_scalar_(dst: &Tensor, p: f64, gen: Option<&GeneratorRef>) -> Result<()> {
    if !(0.0..=1.0).contains(&p) {
        return Err(Error::Runtime(format!(
            "bernoulli_ expects p to be in [0, 1], but got p={}",
            fmt_g(p)
        )));
    }
    let dtype = dst.dtype();
    fill_with(dst, "BernoulliBackward2", gen, |n, _, gen| {
        Ok(crate::dispatch!(dtype, T => from_vec(
            bernoulli_doubles::<T>(gen, n, p)
        )))
    })
}

/// `x.bernoulli_(p)` for a tensor p (broadcast to x): BernoulliBackward1. A double p
/// draws a double uniform per element, any other float p a float uniform.
pub fn bernoulli_tensor_(dst: &Tensor, p: &Tensor, gen: Option<&GeneratorRef>) -> Result<()> {
    let pd = p.dtype();
    if !pd.is_floating_point() {
        return Err(crate::dtype::unsupported("bernoulli_tensor_cpu_p_", pd));
    }
    let dtype = dst.dtype();
    let p = {
        let _g = GradModeGuard::new(false);
        let shape = crate::tensor::shape::sizes_i64(&dst.shape());
        let e = crate::ops::movement::expand(&p.detach(), &shape).map_err(|_| {
            Error::Runtime(format!(
                "output with shape {} doesn't match the broadcast shape {}",
                crate::tensor::shape::list_repr(&dst.shape()),
                crate::tensor::shape::list_repr(
                    &crate::tensor::shape::broadcast_shapes(&dst.shape(), &p.shape())
                        .unwrap_or_default()
                )
            ))
        })?;
        // p's values in the order the output is walked.
        let order = walk_order(dst);
        let dims: Vec<i64> = order.iter().map(|&d| d as i64).collect();
        let walked = crate::ops::movement::permute(&e, &dims)?;
        crate::ops::creation::copy_to_device(&walked, crate::tensor::Device::Cpu)?.to_f64_vec()
    };
    // ATen's CPU bernoulli_distribution checks each probability (its CUDA kernel does not).
    if dst.device() == crate::tensor::Device::Cpu && p.iter().any(|v| !(0.0..=1.0).contains(v)) {
        return Err(Error::Runtime(
            "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error \
             message be improved?  If so, please report an enhancement request to PyTorch.)"
                .into(),
        ));
    }
    fill_with(dst, "BernoulliBackward1", gen, |n, _, gen| {
        let mut k = 0;
        Ok(
            crate::dispatch!(dtype, T => from_vec(doubles::<T>(gen, n, |g| {
                let pv = p[k];
                k += 1;
                let hit = if pd == DType::F64 {
                    unit_f64(g) < pv
                } else {
                    unit_f32(g) < pv as f32
                };
                if hit { 1.0 } else { 0.0 }
            }))),
        )
    })
}

/// `bernoulli(input)`: a new tensor of input's shape and dtype, 1 with probability input.
pub fn bernoulli(input: &Tensor, gen: Option<&GeneratorRef>) -> Result<Tensor> {
    let out = Tensor::zeros_on(&input.shape(), input.dtype(), input.device());
    bernoulli_tensor_(&out, input, gen)?;
    Ok(out)
}

/// `x.exponential_(lambd)`: ExponentialBackward0; `-1/λ · log1p(-u)` in double (what
/// PyTorch 2.13 computes, measured: not `log(1 - u)`).
pub fn exponential_(dst: &Tensor, lambda: f64, gen: Option<&GeneratorRef>) -> Result<()> {
    let dtype = dst.dtype();
    if !dtype.is_floating_point() {
        return Err(Error::Runtime(format!("Exponential distribution is a continuous probability distribution. dtype must be a floating point but you specified {}", pretty_kernel_name(dtype))));
    }
    if lambda.is_nan() || lambda <= 0.0 {
        return Err(Error::Runtime(format!(
            "exponential_ expects lambda > 0.0, but found lambda={}",
            fmt_g(lambda)
        )));
    }
    fill_with(dst, "ExponentialBackward0", gen, |n, _, gen| {
        Ok(
            crate::dispatch!(dtype, T => from_vec(doubles::<T>(gen, n, |g| {
                -1.0 / lambda * (-unit_f64(g)).ln_1p()
            }))),
        )
    })
}

/// `x.geometric_(p)`: GeometricBackward0; `ceil(log(u) / log(1 - p))`.
pub fn geometric_(dst: &Tensor, p: f64, gen: Option<&GeneratorRef>) -> Result<()> {
    if !(0.0 < p && p < 1.0) {
        return Err(Error::Runtime(format!(
            "geometric_ expects p to be in (0, 1), but got p={}",
            fmt_g(p)
        )));
    }
    let dtype = dst.dtype();
    if dtype == DType::Bool {
        return Err(crate::dtype::unsupported("geometric_cpu", dtype));
    }
    fill_with(dst, "GeometricBackward0", gen, |n, _, gen| {
        Ok(
            crate::dispatch!(dtype, T => from_vec(doubles::<T>(gen, n, |g| {
                (unit_f64(g).ln() / (1.0 - p).ln()).ceil()
            }))),
        )
    })
}

/// `x.log_normal_(mean, std)`: LogNormalBackward0; `exp` of the scalar normal.
pub fn log_normal_(dst: &Tensor, mean: f64, std: f64, gen: Option<&GeneratorRef>) -> Result<()> {
    if std.is_nan() || std <= 0.0 {
        return Err(Error::Runtime(format!(
            "log_normal_ expects std > 0.0, but found std={}",
            fmt_g(std)
        )));
    }
    let dtype = dst.dtype();
    float_only("log_normal_cpu", dtype)?;
    fill_with(dst, "LogNormalBackward0", gen, |n, _, gen| {
        Ok(
            crate::dispatch!(dtype, T => from_vec(doubles::<T>(gen, n, |g| {
                normal_f64(g, mean, std).exp()
            }))),
        )
    })
}

/// `x.cauchy_(median, sigma)`: CauchyBackward0; `median + sigma · tan(π (u - ½))`.
pub fn cauchy_(dst: &Tensor, median: f64, sigma: f64, gen: Option<&GeneratorRef>) -> Result<()> {
    if sigma.is_nan() || sigma <= 0.0 {
        return Err(Error::Runtime(format!(
            "cauchy_ expects sigma > 0.0, but found sigma={}",
            fmt_g(sigma)
        )));
    }
    let dtype = dst.dtype();
    if !dtype.is_floating_point() {
        return Err(Error::Runtime(format!("Cauchy distribution is a continuous probability distribution. dtype must be a floating point but you specified {}", pretty_kernel_name(dtype))));
    }
    fill_with(dst, "CauchyBackward0", gen, |n, _, gen| {
        Ok(
            crate::dispatch!(dtype, T => from_vec(doubles::<T>(gen, n, |g| {
                sigma.mul_add((std::f64::consts::PI * (unit_f64(g) - 0.5)).tan(), median)
            }))),
        )
    })
}

/// `randperm(n)`: ATen's `randperm_cpu` — a Fisher–Yates pass swapping element i with one
/// of i.. (`random() % (n - i)`), or for huge n the inside-out variant on `random64()`.
pub fn randperm(n: i64, dtype: DType, gen: Option<&GeneratorRef>) -> Result<Tensor> {
    if n < 0 {
        return Err(Error::Runtime(format!(
            "Trying to create tensor with negative dimension {n}: [{n}]"
        )));
    }
    if dtype == DType::Bool {
        return Err(crate::dtype::unsupported("randperm", dtype));
    }
    if matches!(dtype, DType::U8 | DType::I8 | DType::I16) {
        // PyTorch makes `n - 1` a scalar tensor of the dtype (its overflow check).
        crate::dtype::check_fits(
            crate::dtype::Scalar::Int(n.max(1) - 1),
            dtype,
            crate::dtype::cpp_name(dtype),
        )?;
    }
    // PyTorch checks the precision of float16, float32 and float64, not bfloat16's.
    if dtype.is_floating_point() && dtype != DType::BF16 {
        let limit = (1i64 << digits(dtype)) + 1;
        if n > limit {
            return Err(Error::Runtime(format!(
                "n cannot be greater than {limit} for {} type.",
                pretty_kernel_name(dtype)
            )));
        }
    } else if dtype == DType::I32 && n > i32::MAX as i64 + 1 {
        return Err(Error::Runtime(format!(
            "n is too large for result tensor type: '{}'",
            "CPUIntType"
        )));
    }
    let n = n as usize;
    let perm: Vec<i64> = with_gen(gen, |g| {
        let mut r: Vec<i64> = crate::tensor::pool::vec_with_capacity(n);
        r.extend(0..n as i64);
        if (n as u64) < u32::MAX as u64 / 20 {
            for i in 0..n.saturating_sub(1) {
                let z = g.random() as usize % (n - i);
                r.swap(i, z + i);
            }
        } else {
            for i in 0..n {
                let z = (g.random64() % (i as u64 + 1)) as usize;
                r[i] = r[z];
                r[z] = i as i64;
            }
        }
        r
    });
    Ok(crate::ops::creation::cast_data(&from_vec(perm), dtype))
}

/// `multinomial(input, num_samples, replacement)`: without replacement (or for one sample)
/// ATen's exponential trick, `topk(p / q)` with `q ~ Exp(1)`; with replacement a binary
/// search of the normalized cumulative sums for each double uniform.
fn rt<T>(m: &str) -> Result<T> {
    Err(Error::Runtime(m.into()))
}

pub fn multinomial(
    input: &Tensor,
    num_samples: i64,
    replacement: bool,
    gen: Option<&GeneratorRef>,
) -> Result<Tensor> {
    let dim = input.dim();
    if dim == 0 || dim > 2 {
        return rt("prob_dist must be 1 or 2 dim");
    }
    let dtype = input.dtype();
    if !dtype.is_floating_point() {
        return Err(Error::Runtime(format!(
            "multinomial only supports floating-point dtypes for input, got: {}",
            pretty_kernel_name(dtype)
        )));
    }
    if num_samples <= 0 {
        return rt("cannot sample n_sample <= 0 samples");
    }
    let shape = input.shape();
    let n_cat = shape[dim - 1];
    if !replacement && num_samples as usize > n_cat {
        return rt("cannot sample n_sample > prob_dist.size(-1) samples without replacement");
    }
    if n_cat > 1 << 24 {
        return rt("number of categories cannot exceed 2^24");
    }
    let n_dist = if dim == 2 { shape[0] } else { 1 };
    let out_shape: Vec<usize> = if dim == 2 {
        vec![n_dist, num_samples as usize]
    } else {
        vec![num_samples as usize]
    };
    let device = input.device();
    if numel(&out_shape) == 0 {
        return Ok(Tensor::zeros_on(&out_shape, DType::I64, device));
    }
    let _g = GradModeGuard::new(false);
    let x = crate::ops::creation::copy_to_device(&input.detach(), crate::tensor::Device::Cpu)?;
    let vals = x.to_f64_vec();
    if !replacement || num_samples == 1 {
        if vals
            .iter()
            .any(|v| v.is_nan() || *v < 0.0 || v.is_infinite())
        {
            return rt("probability tensor contains either `inf`, `nan` or element < 0");
        }
        let zero_row = vals
            .chunks(n_cat.max(1))
            .any(|r| r.iter().sum::<f64>() == 0.0);
        if n_cat == 0 || zero_row {
            return rt("invalid multinomial distribution (sum of probabilities <= 0)");
        }
        let q = Tensor::zeros(&shape, dtype);
        exponential_(&q, 1.0, gen)?;
        let ratio = crate::ops::arithmetic::div(&x, &q)?;
        let (_, idx) = crate::ops::sort::topk(&ratio, num_samples, -1, true)?;
        return crate::ops::creation::copy_to_device(&idx, device);
    }
    // With replacement: ATen accumulates in the input's type (float for half).
    let mut out =
        crate::tensor::pool::vec_with_capacity(n_dist.saturating_mul(num_samples as usize));
    with_gen(gen, |g| -> Result<()> {
        for row in vals.chunks(n_cat) {
            macro_rules! sample {
                ($t:ty) => {{
                    let mut cum: Vec<$t> = Vec::with_capacity(n_cat);
                    let mut sum: $t = 0.0;
                    for &v in row {
                        let v = v as $t;
                        if v.is_nan() || v < 0.0 {
                            return rt("invalid multinomial distribution (encountering probability entry < 0)");
                        }
                        if !v.is_finite() {
                            return rt("invalid multinomial distribution (encountering probability entry = infinity or NaN)");
                        }
                        sum += v;
                        cum.push(sum);
                    }
                    if sum.is_nan() || sum <= 0.0 {
                        return rt("invalid multinomial distribution (sum of probabilities <= 0)");
                    }
                    for c in cum.iter_mut() {
                        *c /= sum;
                    }
                    cum[n_cat - 1] = 1.0;
                    for _ in 0..num_samples {
                        let u = unit_f64(g);
                        let (mut lo, mut hi) = (0usize, n_cat);
                        while hi > lo {
                            let mid = lo + (hi - lo) / 2;
                            if (cum[mid] as f64) < u {
                                lo = mid + 1;
                            } else {
                                hi = mid;
                            }
                        }
                        out.push(lo as i64);
                    }
                }};
            }
            if dtype == DType::F64 {
                sample!(f64)
            } else {
                sample!(f32)
            }
        }
        Ok(())
    })?;
    let t = Tensor::from_vec(out, &out_shape);
    crate::ops::creation::copy_to_device(&t, device)
}

/// `normal(mean, std)` with tensor mean and/or std: standard normals scaled and shifted as
/// ATen does (`out.mul_(std).add_(mean)`); NormalBackward1/2/3 give zero gradients.
pub fn normal_tensors(
    mean: Option<&Tensor>,
    std: Option<&Tensor>,
    mean_f: f64,
    std_f: f64,
    gen: Option<&GeneratorRef>,
) -> Result<Tensor> {
    if let Some(s) = std {
        let _g = GradModeGuard::new(false);
        let cpu = crate::ops::creation::copy_to_device(&s.detach(), crate::tensor::Device::Cpu)?;
        if cpu.to_f64_vec().iter().any(|v| *v < 0.0) {
            return Err(Error::Runtime(
                "normal expects all elements of std >= 0.0".into(),
            ));
        }
    } else {
        check_std(std_f)?;
    }
    let (shape, like) = match (mean, std) {
        (Some(m), Some(s)) => (
            crate::tensor::shape::broadcast_shapes(&m.shape(), &s.shape())?,
            m,
        ),
        (Some(m), None) => (m.shape(), m),
        (None, Some(s)) => (s.shape(), s),
        (None, None) => unreachable!("normal_tensors needs a tensor"),
    };
    let out = {
        let _g = GradModeGuard::new(false);
        let out = Tensor::zeros_on(&shape, like.dtype(), like.device());
        match (mean, std) {
            (Some(m), None) => {
                normal_(&out, 0.0, std_f, gen)?;
                crate::ops::arithmetic::add(&out, m.detach())?
            }
            (None, Some(s)) => {
                normal_(&out, 0.0, 1.0, gen)?;
                let scaled = crate::ops::arithmetic::mul(&out, s.detach())?;
                let m = Tensor::full_on(
                    &[],
                    crate::dtype::Scalar::Float(mean_f),
                    like.dtype(),
                    like.device(),
                );
                crate::ops::arithmetic::add(&scaled, &m)?
            }
            (Some(m), Some(s)) => {
                normal_(&out, 0.0, 1.0, gen)?;
                let scaled = crate::ops::arithmetic::mul(&out, s.detach())?;
                crate::ops::arithmetic::add(&scaled, m.detach())?
            }
            (None, None) => unreachable!(),
        }
    };
    let inputs: Vec<&Tensor> = [mean, std].into_iter().flatten().collect();
    if !needs_grad(&inputs) {
        return Ok(out);
    }
    let name = match (mean, std) {
        (Some(_), None) => "NormalBackward1",
        (None, Some(_)) => "NormalBackward2",
        _ => "NormalBackward3",
    };
    let k = inputs.len();
    Ok(record_formula_jvp(
        out,
        &inputs,
        name,
        vec![],
        move |g, _| {
            Ok((0..k)
                .map(|_| Some(crate::ops::creation::zeros_like(g)))
                .collect())
        },
        crate::autograd::Jvp::Elementwise,
    ))
}

/// `poisson(rates)`: ATen's `sample_poisson` per element — Hörmann's transformed rejection
/// for rates of 10 or more, a product of uniforms below.
pub fn poisson(rates: &Tensor, gen: Option<&GeneratorRef>) -> Result<Tensor> {
    let dtype = rates.dtype();
    float_only("poisson_cpu", dtype)?;
    let cpu = crate::ops::creation::copy_to_device(
        &crate::ops::creation::contiguous_clone(&rates.detach()),
        crate::tensor::Device::Cpu,
    )?;
    let lam = cpu.to_f64_vec();
    if lam.iter().any(|l| l.is_nan() || *l < 0.0) {
        return Err(Error::Runtime(
            "invalid Poisson rate, expected rate to be non-negative".into(),
        ));
    }
    let samples: Vec<f64> = with_gen(gen, |g| {
        lam.iter().map(|&l| sample_poisson(g, l) as f64).collect()
    });
    let t = crate::dispatch!(dtype, T => Tensor::from_vec(
        samples.iter().map(|&v| <T as FromDouble>::cast(v)).collect::<Vec<T>>(),
        &rates.shape()
    ));
    let t = crate::ops::creation::copy_to_device(&t, rates.device())?;
    if !needs_grad(&[rates]) {
        return Ok(t);
    }
    Ok(record_formula_jvp(
        t,
        &[rates],
        "PoissonBackward0",
        vec![],
        |g, _| Ok(vec![Some(crate::ops::creation::zeros_like(g))]),
        crate::autograd::Jvp::Elementwise,
    ))
}
