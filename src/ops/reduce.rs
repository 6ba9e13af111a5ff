//! Reductions: sum and mean over all or some dims, and `sum_to` (undoing broadcasting).

use crate::autograd::saved::{SavedValue, Value};
use crate::autograd::{needs_grad, record, Backward, Ctx};
use crate::dtype::{DType, Scalar};
use crate::error::{Error, Result};
use crate::kernels::{self, float_rows, ReduceOp, ScanOp};
use crate::ops::arithmetic::{binary, BinaryOp};
use crate::ops::creation::{cast_data, narrow, wide};
use crate::ops::movement::{expand, reshape, unsqueeze};
use crate::ops::Operand;
use crate::tensor::shape::{reduced_shape, sizes_i64, wrap_dim, Shape};
use crate::tensor::Tensor;

/// Normalize a dim list: wrapped, sorted, unique (PyTorch errors on repeats).
pub fn reduction_dims(dims: Option<&[i64]>, ndim: usize) -> Result<Vec<usize>> {
    // PyTorch reduces over every dim for both `None` and an empty list.
    let Some(dims) = dims.filter(|d| !d.is_empty()) else {
        return Ok((0..ndim).collect());
    };
    let mut out = Vec::with_capacity(dims.len());
    for &d in dims {
        let w = wrap_dim(d, ndim)?;
        if out.contains(&w) {
            return Err(Error::Runtime(format!(
                "dim {w} appears multiple times in the list of dims"
            )));
        }
        out.push(w);
    }
    out.sort_unstable();
    // A 0-dim tensor reduces over "dim 0" to itself.
    out.retain(|&d| d < ndim);
    Ok(out)
}

/// Sum without autograd. Integers and bools sum to int64, as in PyTorch.
fn sum_data(x: &Tensor, dims: &[usize], keepdim: bool) -> Tensor {
    kernels::sum(x, dims, keepdim)
}

/// `x.sum()` (`dims == None`, SumBackward0) or `x.sum(dim, keepdim)` (SumBackward1).
pub fn sum(x: &Tensor, dims: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
    let shape = x.shape();
    let rd = reduction_dims(dims, shape.len())?;
    let out = sum_data(x, &rd, keepdim);
    if needs_grad(&[x]) {
        return Ok(record(
            out,
            &[x],
            SumBackward {
                shape,
                dims: rd,
                dim_arg: dims.map(<[i64]>::to_vec).unwrap_or_default(),
                keepdim,
                all: dims.is_none(),
                scale: None,
            },
        ));
    }
    Ok(out)
}

/// `x.mean()` / `x.mean(dim, keepdim)`: floating point only, as in PyTorch.
pub fn mean(x: &Tensor, dims: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
    let dtype = x.dtype();
    if !dtype.is_floating_point() {
        return Err(Error::Runtime(format!(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: {}",
            crate::dtype::pretty_kernel_name(dtype)
        )));
    }
    let shape = x.shape();
    let rd = reduction_dims(dims, shape.len())?;
    let count: usize = rd.iter().map(|&d| shape[d]).product();
    // float16 sums and divides in float32, rounding once (as PyTorch's CPU mean).
    let total = sum_data(&wide(x), &rd, keepdim);
    let out = binary(
        BinaryOp::Div,
        Operand::Tensor(total),
        Operand::Scalar(Scalar::Int(count as i64)),
    )?;
    let out = cast_data(&out, dtype);
    if needs_grad(&[x]) {
        let node = SumBackward {
            shape,
            dims: rd,
            dim_arg: dims.map(<[i64]>::to_vec).unwrap_or_default(),
            keepdim,
            all: dims.is_none(),
            scale: Some(count),
        };
        return Ok(record(out, &[x], node));
    }
    Ok(out)
}

/// Sum `g` down to `shape` (PyTorch's `sum_to_size`): leading dims, and dims of size 1.
pub fn sum_to(g: &Tensor, shape: &[usize]) -> Result<Tensor> {
    let gs = g.shape();
    if gs.as_slice() == shape {
        return Ok(g.clone());
    }
    let lead = gs.len() - shape.len();
    let dims: Vec<i64> = (0..gs.len())
        .filter(|&i| i < lead || (shape[i - lead] == 1 && gs[i] != 1))
        .map(|i| i as i64)
        .collect();
    let summed = if dims.is_empty() {
        g.clone()
    } else {
        sum(g, Some(&dims), true)?
    };
    let target = sizes_i64(shape);
    reshape(&summed, &target)
}

/// Backward of sum (and mean, with `scale`): broadcast the gradient back over reduced dims.
struct SumBackward {
    shape: Shape,
    dims: Vec<usize>,
    /// `dim` as given (PyTorch's `_saved_dim`).
    dim_arg: Vec<i64>,
    keepdim: bool,
    all: bool,
    scale: Option<usize>,
}

impl Backward for SumBackward {
    fn name(&self) -> &'static str {
        match (self.scale.is_some(), self.all) {
            (false, true) => "SumBackward0",
            (false, false) => "SumBackward1",
            (true, true) => "MeanBackward0",
            (true, false) => "MeanBackward1",
        }
    }
    fn apply(&mut self, g: &[Option<Tensor>], _: &Ctx) -> Result<Vec<Option<Tensor>>> {
        let mut g = g[0].clone().expect("gradient");
        if !self.keepdim {
            for &d in &self.dims {
                g = unsqueeze(&g, d as i64)?;
            }
        }
        let sizes = sizes_i64(&self.shape);
        let mut gi = expand(&g, &sizes)?;
        if let Some(n) = self.scale {
            gi = binary(
                BinaryOp::Div,
                Operand::Tensor(gi),
                Operand::Scalar(Scalar::Int(n as i64)),
            )?;
        }
        Ok(vec![Some(gi)])
    }
    // Linear: the same reduction of the tangent.
    fn jvp(&mut self, t: &[Option<Tensor>], _: &Ctx) -> Result<Vec<Option<Tensor>>> {
        let Some(t) = &t[0] else {
            return Ok(vec![None]);
        };
        let dims: Vec<i64> = self.dims.iter().map(|&d| d as i64).collect();
        let dims = (!self.all).then_some(&dims[..]);
        Ok(vec![Some(match self.scale {
            Some(_) => mean(t, dims, self.keepdim)?,
            None => sum(t, dims, self.keepdim)?,
        })])
    }
    fn saved_values(&mut self) -> Vec<(&'static str, SavedValue<'_>)> {
        let mut v = Vec::new();
        if !self.all {
            v.push(("dim", SavedValue::Value(Value::Ints(self.dim_arg.clone()))));
            v.push(("keepdim", SavedValue::Value(Value::Bool(self.keepdim))));
        }
        if self.scale.is_some() {
            let numel = self.shape.iter().product::<usize>() as i64;
            v.push(("self_sym_numel", SavedValue::Value(Value::Int(numel))));
        }
        v.push((
            "self_sym_sizes",
            SavedValue::Value(Value::Ints(sizes_i64(&self.shape))),
        ));
        v
    }
}

// ---- more reductions -------------------------------------------------------------------------

use crate::autograd::{attach_formula_jvp, record_formula_jvp, Jvp, SavedTensor};
use crate::ops::arithmetic::{add, div, mul, pow, sub};
use crate::ops::compare::{eq, ne};
use crate::ops::creation::contiguous_clone;
use crate::ops::unary;
use crate::ops::where_::where_;

/// `g` with the reduced `dims` restored as size-1 dims, so it broadcasts against the input.
pub fn restore_dims(g: &Tensor, dims: &[usize], keepdim: bool) -> Result<Tensor> {
    let mut g = g.clone();
    if !keepdim {
        for &d in dims {
            g = unsqueeze(&g, d as i64)?;
        }
    }
    Ok(g)
}

/// `x.prod()` (ProdBackward0) / `x.prod(dim, keepdim)` (ProdBackward1).
pub fn prod(x: &Tensor, dim: Option<i64>, keepdim: bool) -> Result<Tensor> {
    let x = match x.dtype() {
        DType::Bool | DType::I32 => cast_data(x, DType::I64),
        _ => x.clone(),
    };
    let rd = reduction_dims(dim.map(|d| vec![d]).as_deref(), x.dim())?;
    let keep_out = keepdim && dim.is_some();
    let out = kernels::reduce(ReduceOp::Prod, &x, &rd, keep_out);
    if !needs_grad(&[&x]) {
        return Ok(out);
    }
    let rd2 = rd.clone();
    let name = if dim.is_some() {
        "ProdBackward1"
    } else {
        "ProdBackward0"
    };
    let saved = vec![SavedTensor::input(&x)?, SavedTensor::output(&out, 0)?];
    let out = record_formula_jvp(
        out,
        &[&x],
        name,
        saved,
        move |g, s| {
            let (x, out) = (&s[0], &s[1]);
            if x.dim() == 0 {
                // The derivative of a one-element product is the constant 1 (PyTorch).
                return Ok(vec![Some(g.clone())]);
            }
            let zeros = x.to_f64_vec().iter().filter(|&&v| v == 0.0).count();
            if zeros == 0 {
                let g = restore_dims(g, &rd, keep_out)?;
                let out = restore_dims(out, &rd, keep_out)?;
                return Ok(vec![Some(mul(&g, &div(&out, x)?)?)]);
            }
            let gi = match dim {
                // PyTorch's prod_backward over everything: several zeros make every partial
                // product zero, but only a first derivative may take that shortcut.
                None if zeros > 1 && !crate::autograd::is_grad_enabled() => {
                    crate::ops::creation::zeros_like(x)
                }
                None => {
                    let flat = reshape(x, &[-1])?;
                    let gi = prod_safe_zeros_backward(g, &flat, 0)?;
                    reshape(&gi, &sizes_i64(&x.shape()))?
                }
                Some(_) => {
                    let g = restore_dims(g, &rd, keep_out)?;
                    prod_safe_zeros_backward(&g, x, rd[0])?
                }
            };
            Ok(vec![Some(gi)])
        },
        Jvp::Reduction(rd2, keep_out),
    );
    let values = match dim {
        Some(d) => vec![("dim", Value::Int(d)), ("keepdim", Value::Bool(keepdim))],
        None => Vec::new(),
    };
    crate::autograd::formula::describe(&out, &["self", "result"], values);
    Ok(out)
}

/// PyTorch's `prod_safe_zeros_backward`: the product of the other elements of each row along
/// `dim`, as exclusive cumulative products from the front and from the back. Exact with zeros
/// in the input and written in tensor ops, so it is itself differentiable.
fn prod_safe_zeros_backward(g: &Tensor, x: &Tensor, dim: usize) -> Result<Tensor> {
    let shape = x.shape();
    if x.numel() == 0 {
        return expand(g, &sizes_i64(&shape));
    }
    let n = shape[dim] as i64;
    if n == 1 {
        return Ok(g.clone());
    }
    let d = dim as i64;
    let mut ones_shape = shape.clone();
    ones_shape[dim] = 1;
    let ones = Tensor::full_on(&ones_shape, Scalar::Int(1), x.dtype(), x.device());
    let slice = |start| crate::ops::slicing::narrow(x, d, start, n - 1);
    let normal = cumprod(&crate::ops::shape::cat(&[ones.clone(), slice(0)?], d)?, d)?;
    let reversed = crate::ops::shape::flip(&slice(1)?, &[d])?;
    let reverse = cumprod(&crate::ops::shape::cat(&[ones, reversed], d)?, d)?;
    let reverse = crate::ops::shape::flip(&reverse, &[d])?;
    mul(g, &mul(&normal, &reverse)?)
}

fn extreme_values(x: &Tensor, dims: &[usize], keepdim: bool, max: bool) -> Tensor {
    let op = if max { ReduceOp::Max } else { ReduceOp::Min };
    kernels::reduce(op, x, dims, keepdim)
}

/// `x.max()` / `x.min()` over everything (MaxBackward1): ties share the gradient evenly.
pub fn extreme_all(x: &Tensor, max: bool) -> Result<Tensor> {
    let op = if max { "max" } else { "min" };
    if x.numel() == 0 {
        return Err(Error::Runtime(format!(
            "{op}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."
        )));
    }
    let all: Vec<usize> = (0..x.dim()).collect();
    let out = extreme_values(x, &all, false, max);
    let name = if max { "MaxBackward1" } else { "MinBackward1" };
    evenly_distributed(x, out, &all, false, name, true)
}

/// Record the backward that spreads the gradient evenly over the elements equal to the result.
pub(crate) fn evenly_distributed(
    x: &Tensor,
    out: Tensor,
    dims: &[usize],
    keepdim: bool,
    name: &'static str,
    whole: bool,
) -> Result<Tensor> {
    if !needs_grad(&[x]) {
        return Ok(out);
    }
    let dims = dims.to_vec();
    let dims2 = dims.clone();
    let saved = vec![SavedTensor::input(x)?, SavedTensor::output(&out, 0)?];
    let out = record_formula_jvp(
        out,
        &[x],
        name,
        saved,
        move |g, s| {
            let (x, out) = (&s[0], &s[1]);
            let out = restore_dims(&out.detach(), &dims, keepdim)?;
            let dl = sizes_i64(&dims);
            let g = restore_dims(g, &dims, keepdim)?;
            if whole {
                // PyTorch's evenly_distribute_backward: a NaN result shares among the NaNs.
                // Chosen elementwise (not by reading the result back), so a GPU graph stays there.
                let mask = crate::ops::where_::where_(
                    &ne(&out, &out)?,
                    Operand::Tensor(ne(x, x)?),
                    Operand::Tensor(eq(x, &out)?),
                )?;
                let count = sum(&mask, Some(&dl), true)?;
                return Ok(vec![Some(where_(&mask, &div(&g, &count)?, 0)?)]);
            }
            // scale_grad_by_count: (g / count) * mask, NaN where no element equals the result.
            let mask = eq(x, &out)?;
            let count = sum(&mask, Some(&dl), true)?;
            Ok(vec![Some(mul(&div(&g, &count)?, &mask)?)])
        },
        Jvp::of(move |t, s| {
            // PyTorch's evenly_read_jvp / amaxamin_jvp: the mean tangent of the elements equal
            // to the result (NaN when none is, as a NaN result).
            let Some(t) = &t[0] else {
                return Ok(vec![None]);
            };
            let (x, out) = (&s[0], &s[1]);
            if x.numel() == 0 {
                // An empty input's result (NaN) has a zero tangent, as PyTorch's.
                return Ok(vec![Some(Tensor::zeros_on(
                    &out.shape(),
                    t.dtype(),
                    t.device(),
                ))]);
            }
            let mask = eq(x, &restore_dims(&out.detach(), &dims2, keepdim)?)?;
            let dl = sizes_i64(&dims2);
            let num = sum(&mul(t, &mask)?, Some(&dl), keepdim)?;
            Ok(vec![Some(div(&num, &sum(&mask, Some(&dl), keepdim)?)?)])
        }),
    );
    // amax / amin also keep their dims as given, which this function no longer sees.
    if whole {
        crate::autograd::formula::describe(&out, &["self", "result"], Vec::new());
    }
    Ok(out)
}

/// `x.max(dim, keepdim)` / `x.min(...)`: (values, indices); MaxBackward0 routes the gradient
/// to the selected index.
pub fn extreme_dim(x: &Tensor, dim: i64, keepdim: bool, max: bool) -> Result<(Tensor, Tensor)> {
    let d = wrap_dim(dim, x.dim())?;
    let rd = if x.dim() == 0 { vec![] } else { vec![d] };
    let op = if max { "max" } else { "min" };
    if x.numel() == 0 && x.shape().get(d).copied() == Some(0) {
        return Err(Error::Index(format!(
            "{op}(): Expected reduction dim {d} to have non-zero size."
        )));
    }
    let (values, idx) = kernels::arg_extreme(max, &x.detach(), &rd, keepdim);
    if needs_grad(&[x]) {
        let shape = x.shape();
        let shown = vec![
            ("dim", Value::Int(dim)),
            ("keepdim", Value::Bool(keepdim)),
            ("self_sym_sizes", Value::Ints(sizes_i64(&shape))),
        ];
        let name = if max { "MaxBackward0" } else { "MinBackward0" };
        let saved = vec![SavedTensor::input(&idx)?];
        let rd2 = rd.clone();
        attach_formula_jvp(
            &[&values],
            &[x],
            name,
            saved,
            move |g, s| {
                let index = restore_dims(&s[0], &rd, keepdim)?;
                let g = g[0].clone().expect("values gradient");
                let g = restore_dims(&g, &rd, keepdim)?;
                let zeros = Tensor::zeros_on(&shape, g.dtype(), g.device());
                if rd.is_empty() {
                    return Ok(vec![Some(g)]);
                }
                if !needs_grad(&[&g]) {
                    // The indices are the forward's own, in range by construction: written on the
                    // GPU without reading them back to check (max pooling's backward takes this).
                    let src = Operand::Tensor(g.clone());
                    kernels::scatter(&zeros, d, &index, None, None, &src, false)?;
                    return Ok(vec![Some(zeros)]);
                }
                Ok(vec![Some(crate::ops::index::scatter(
                    &zeros,
                    d as i64,
                    &index,
                    Operand::Tensor(g),
                )?)])
            },
            Jvp::Reduction(rd2, keepdim),
        );
        crate::autograd::formula::describe(&values, &["indices"], shown);
    }
    Ok((values, idx))
}

/// `amax` / `amin` over `dims` (all when empty): AmaxBackward0 shares ties evenly.
pub fn amax(x: &Tensor, dims: &[i64], keepdim: bool, max: bool) -> Result<Tensor> {
    let rd = reduction_dims(Some(dims), x.dim())?;
    let op = if max { "amax" } else { "amin" };
    if x.numel() == 0 {
        // PyTorch's zero_numel_check_dims: the dims as given, in order.
        if dims.is_empty() {
            return Err(Error::Runtime(format!(
                "{op}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."
            )));
        }
        let shape = x.shape();
        for &d in dims {
            if shape[wrap_dim(d, shape.len())?] == 0 {
                return Err(Error::Index(format!(
                    "{op}(): Expected reduction dim {d} to have non-zero size."
                )));
            }
        }
    }
    let out = extreme_values(x, &rd, keepdim, max);
    let name = if max {
        "AmaxBackward0"
    } else {
        "AminBackward0"
    };
    let out = evenly_distributed(x, out, &rd, keepdim, name, false)?;
    crate::autograd::formula::describe(
        &out,
        &["self", "result"],
        vec![
            ("dim", Value::Ints(dims.to_vec())),
            ("keepdim", Value::Bool(keepdim)),
        ],
    );
    Ok(out)
}

/// `argmax` / `argmin`: over the flattened tensor when `dim` is None.
pub fn argextreme(x: &Tensor, dim: Option<i64>, keepdim: bool, max: bool) -> Result<Tensor> {
    let op = if max { "argmax" } else { "argmin" };
    if x.dtype() == DType::Bool {
        return Err(Error::Runtime(format!(
            "{op}(): does not support bool input"
        )));
    }
    match dim {
        None => {
            if x.numel() == 0 {
                return Err(Error::Index(format!(
                    "{op}(): Expected reduction dim to be specified for input.numel() == 0."
                )));
            }
            let flat = reshape(&x.detach(), &[-1])?;
            let (_, i) = kernels::arg_extreme(max, &flat, &[0], false);
            if keepdim {
                reshape(&i, &vec![1; x.dim()])
            } else {
                Ok(i)
            }
        }
        Some(d) => {
            let w = wrap_dim(d, x.dim())?;
            if x.numel() == 0 && x.shape().get(w) == Some(&0) {
                return Err(Error::Index(format!(
                    "{op}(): Expected reduction dim {w} to have non-zero size."
                )));
            }
            Ok(extreme_dim(&x.detach(), d, keepdim, max)?.1)
        }
    }
}

/// `var` / `std` with `correction` (N - correction in the denominator).
/// `correction`: None for PyTorch's overload without one (`x.var()`: 1, shown as None).
pub fn var(
    x: &Tensor,
    dims: Option<&[i64]>,
    correction: Option<f64>,
    keepdim: bool,
    std: bool,
) -> Result<Tensor> {
    let shown = correction.map_or(Value::None, Value::Float);
    let correction = correction.unwrap_or(1.0);
    if !x.dtype().is_floating_point() {
        return Err(Error::Runtime(
            "std and var only support floating point and complex dtypes".into(),
        ));
    }
    let rd = reduction_dims(dims, x.dim())?;
    let gpu_out = var_gpu(x, &rd, correction, keepdim, std)?;
    let out = gpu_out.unwrap_or_else(|| {
        float_rows(x, &rd, keepdim, move |it, n| {
            let v: Vec<f64> = it.collect();
            let mean = v.iter().sum::<f64>() / n as f64;
            let ss: f64 = v.iter().map(|e| (e - mean) * (e - mean)).sum();
            let r = ss / (n as f64 - correction).max(0.0);
            if std {
                r.sqrt()
            } else {
                r
            }
        })
    });
    if !needs_grad(&[x]) {
        return Ok(out);
    }
    let name = if std { "StdBackward0" } else { "VarBackward0" };
    let n: usize = rd.iter().map(|&d| x.shape()[d]).product();
    let dof = n as f64 - correction;
    // PyTorch's var_backward treats "no dim" (and a 0-dim input) separately.
    let whole = dims.is_none() || x.dim() == 0;
    let rd2 = rd.clone();
    let saved = vec![SavedTensor::input(x)?, SavedTensor::output(&out, 0)?];
    let values = vec![
        ("correction", shown),
        ("dim", dims.map_or(Value::None, |d| Value::Ints(d.to_vec()))),
        ("keepdim", Value::Bool(keepdim)),
    ];
    let out = record_formula_jvp(
        out,
        &[x],
        name,
        saved,
        move |g, s| {
            let (x, out) = (&s[0], &s[1]);
            let g = if std {
                // std_backward: var's gradient scaled by 1 / (2 std), zero where std == 0.
                let scaled = div(g, &mul(out, 2.0)?)?;
                where_(&eq(out, 0.0)?, 0, &scaled)?
            } else {
                g.clone()
            };
            let gi = if whole && dof <= 0.0 {
                // 2 / dof is infinite: PyTorch's gradient is nan where x equals its mean and inf
                // elsewhere, a constant, so under create_graph it depends on the gradient alone.
                let c = {
                    let _no_grad = crate::autograd::GradModeGuard::new(false);
                    let at_mean = eq(x, &mean(x, None, false)?)?;
                    let dt = x.dtype();
                    crate::ops::where_::where_(
                        &at_mean,
                        Operand::Tensor(Tensor::scalar(Scalar::Float(f64::NAN), dt)),
                        Operand::Tensor(Tensor::scalar(Scalar::Float(f64::INFINITY), dt)),
                    )?
                };
                mul(&g, &c)?
            } else {
                let g = if whole {
                    g
                } else {
                    restore_dims(&g, &rd, keepdim)?
                };
                let dl = sizes_i64(&rd);
                let centered = sub(x, &mean(x, Some(&dl), true)?)?;
                mul(&mul(&g, 2.0 / dof)?, &centered)?
            };
            Ok(vec![Some(gi)])
        },
        Jvp::of(move |t, s| {
            // PyTorch's var_jvp: 2 / dof * sum((x - mean) t); std's over 2 std.
            let Some(t) = &t[0] else {
                return Ok(vec![None]);
            };
            let (x, out) = (&s[0], &s[1]);
            let dl = sizes_i64(&rd2);
            let centered = sub(x, &mean(x, Some(&dl), true)?)?;
            let var_t = mul(&sum(&mul(&centered, t)?, Some(&dl), keepdim)?, 2.0 / dof)?;
            if !std {
                return Ok(vec![Some(var_t)]);
            }
            // std's is zero where std is (PyTorch's where(result == 0, 0, ...)).
            let scaled = div(&var_t, &mul(out, 2.0)?)?;
            Ok(vec![Some(where_(&eq(out, 0.0)?, 0, &scaled)?)])
        }),
    );
    // var's formula reads its result too, which PyTorch's does not keep.
    let names: &'static [&'static str] = if std {
        &["self", "result"]
    } else {
        &["self", ""]
    };
    crate::autograd::formula::describe(&out, names, values);
    Ok(out)
}

/// `x.norm(p, dim, keepdim)` / `linalg.vector_norm`: LinalgVectorNormBackward0.
pub fn norm(x: &Tensor, p: f64, dims: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
    if !x.dtype().is_floating_point() {
        return Err(Error::Runtime(format!(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got {}",
            crate::dtype::pretty_kernel_name(x.dtype())
        )));
    }
    let rd = reduction_dims(dims, x.dim())?;
    let gpu_out = norm_gpu(x, p, &rd, keepdim)?;
    let out = gpu_out.unwrap_or_else(|| {
        float_rows(x, &rd, keepdim, move |it, _| {
            if p == f64::INFINITY {
                it.map(f64::abs).fold(0.0, f64::max)
            } else if p == f64::NEG_INFINITY {
                it.map(f64::abs).fold(f64::INFINITY, f64::min)
            } else if p == 0.0 {
                it.filter(|&v| v != 0.0).count() as f64
            } else if p == 1.0 {
                it.map(f64::abs).sum()
            } else if p == 2.0 {
                it.map(|v| v * v).sum::<f64>().sqrt()
            } else {
                it.map(|v| v.abs().powf(p)).sum::<f64>().powf(1.0 / p)
            }
        })
    });
    if !needs_grad(&[x]) {
        return Ok(out);
    }
    let rd2 = rd.clone();
    let saved = vec![SavedTensor::input(x)?, SavedTensor::output(&out, 0)?];
    let values = vec![
        ("dim", dims.map_or(Value::None, |d| Value::Ints(d.to_vec()))),
        ("keepdim", Value::Bool(keepdim)),
        ("ord", Value::Float(p)),
    ];
    let out = record_formula_jvp(
        out,
        &[x],
        "LinalgVectorNormBackward0",
        saved,
        move |g, s| {
            if p == 0.0 {
                // PyTorch leaves the gradient of the p=0 "norm" (a count) undefined.
                return Ok(vec![None]);
            }
            let (x, out) = (&s[0], &s[1]);
            let g = restore_dims(g, &rd, keepdim)?;
            let out = restore_dims(out, &rd, keepdim)?;
            // PyTorch's norm_backward, formula for formula: where it masks a quotient (zero
            // norm), the double backward through the mask's other side is nan, as in PyTorch.
            let sgn = unary::sign(x)?;
            let zero_norm = || eq(&out, 0.0);
            let gi = if p == 1.0 {
                mul(&sgn, &g)?
            } else if p == 2.0 {
                mul(&g, &where_(&zero_norm()?, 0, &div(x, &out)?)?)?
            } else if p.is_infinite() {
                let absx = unary::abs(x)?;
                let isnan = ne(&absx, &absx)?;
                let mask = crate::ops::logical::logical(&eq(&absx, &out)?, &isnan, "or")?;
                let count = sum(&mask, Some(&sizes_i64(&rd)), true)?;
                mul(&sgn, &mul(&div(&g, &count)?, &mask)?)?
            } else if p < 1.0 {
                let x_zero = eq(x, 0.0)?;
                let pw = where_(&x_zero, 0, &pow(&unary::abs(x)?, p - 1.0)?)?;
                let scaled = mul(&sgn, &pw)?;
                mul(&mul(&scaled, &g)?, &pow(&out, 1.0 - p)?)?
            } else {
                let scaled = if p < 2.0 {
                    mul(&sgn, &pow(&unary::abs(x)?, p - 1.0)?)?
                } else {
                    mul(x, &pow(&unary::abs(x)?, p - 2.0)?)?
                };
                let scale = div(&g, &pow(&out, p - 1.0)?)?;
                mul(&scaled, &where_(&zero_norm()?, 0, &scale)?)?
            };
            Ok(vec![Some(gi)])
        },
        Jvp::Reduction(rd2, keepdim),
    );
    crate::autograd::formula::describe(&out, &["self", "result"], values);
    Ok(out)
}

/// `logsumexp(x, dim, keepdim)`, stable (max subtracted): LogsumexpBackward0.
pub fn logsumexp(x: &Tensor, dims: &[i64], keepdim: bool) -> Result<Tensor> {
    let x = crate::ops::pointwise::float_input(x);
    let rd = reduction_dims(Some(dims), x.dim())?;
    let gpu_out = logsumexp_gpu(&x, &rd, keepdim)?;
    let out = gpu_out.unwrap_or_else(|| {
        float_rows(&x, &rd, keepdim, |it, _| {
            // PyTorch's: the max (NaN if any is NaN), 0 where it is infinite, then
            // m + log(sum(exp(x - m))), so inf beside NaN is NaN and +inf beside -inf is inf.
            let v: Vec<f64> = it.collect();
            let m = v.iter().copied().fold(f64::NEG_INFINITY, |a, b| {
                if a.is_nan() || b.is_nan() {
                    f64::NAN
                } else {
                    a.max(b)
                }
            });
            let m = if m.is_infinite() { 0.0 } else { m };
            m + v.iter().map(|e| (e - m).exp()).sum::<f64>().ln()
        })
    });
    if !needs_grad(&[&x]) {
        return Ok(out);
    }
    let rd2 = rd.clone();
    let saved = vec![SavedTensor::input(&x)?, SavedTensor::output(&out, 0)?];
    let out = record_formula_jvp(
        out,
        &[&x],
        "LogsumexpBackward0",
        saved,
        move |g, s| {
            let (x, out) = (&s[0], &s[1]);
            let g = restore_dims(g, &rd, keepdim)?;
            let out = restore_dims(out, &rd, keepdim)?;
            let e = unary::exp(&sub(x, &out)?)?;
            Ok(vec![Some(mul(&g, &e)?)])
        },
        Jvp::of(move |t, s| {
            // PyTorch's logsumexp_jvp: sum(exp(x - amax) t) / sum(exp(x - amax)).
            let Some(t) = &t[0] else {
                return Ok(vec![None]);
            };
            let x = &s[0];
            let dl = sizes_i64(&rd2);
            let e = if x.numel() > 0 {
                unary::exp(&sub(x, &amax(x, &dl, true, true)?)?)?
            } else {
                unary::exp(x)?
            };
            let num = sum(&mul(&e, t)?, Some(&dl), keepdim)?;
            Ok(vec![Some(div(&num, &sum(&e, Some(&dl), keepdim)?)?)])
        }),
    );
    crate::autograd::formula::describe(
        &out,
        &["self", "result"],
        vec![
            ("dim", Value::Ints(dims.to_vec())),
            ("keepdim", Value::Bool(keepdim)),
        ],
    );
    Ok(out)
}

/// `all` / `any` (bool results) over `dims` (all when None).
pub fn all_any(x: &Tensor, dims: Option<&[i64]>, keepdim: bool, all: bool) -> Result<Tensor> {
    let rd = reduction_dims(dims, x.dim())?;
    Ok(kernels::all_any(all, x, &rd, keepdim))
}

// ---- float32 GPU forms of var / std, norm and logsumexp -------------------------------------
//
// The forward values as compositions of the GPU kernels (reductions, elementwise ops), so a
// GPU tensor's values never come back to the host. Each gives None for anything but a float32
// GPU tensor; the host kernels above stay the CPU's. Run with grad mode off: the ops record
// their own backward formulas.

fn gpu_f32(x: &Tensor) -> bool {
    kernels::host_reads_back(x) && x.dtype() == DType::F32
}

/// `var` / `std` as two passes: the mean, then the sum of squared deviations over
/// max(N - correction, 0) (a zero divisor gives inf, or nan for a zero sum, as PyTorch).
fn var_gpu(
    x: &Tensor,
    rd: &[usize],
    correction: f64,
    keepdim: bool,
    std: bool,
) -> Result<Option<Tensor>> {
    if !gpu_f32(x) {
        return Ok(None);
    }
    let _no_grad = crate::autograd::GradModeGuard::new(false);
    let shape = x.shape();
    let n: usize = rd.iter().map(|&d| shape[d]).product();
    let dl = sizes_i64(rd);
    let centered = sub(x, &mean(x, Some(&dl), true)?)?;
    let ss = sum(&mul(&centered, &centered)?, Some(&dl), keepdim)?;
    let r = binary(
        BinaryOp::Div,
        Operand::Tensor(ss),
        Operand::Scalar(Scalar::Float((n as f64 - correction).max(0.0))),
    )?;
    Ok(Some(if std { unary::sqrt(&r)? } else { r }))
}

/// The vector norms: max / min of |x| for ±inf (NaN propagates, as PyTorch), the count of
/// nonzeros for 0, and the power sums otherwise. An empty ±inf norm stays with the host.
fn norm_gpu(x: &Tensor, p: f64, rd: &[usize], keepdim: bool) -> Result<Option<Tensor>> {
    let shape = x.shape();
    let n: usize = rd.iter().map(|&d| shape[d]).product();
    if !gpu_f32(x) || (p.is_infinite() && n == 0) {
        return Ok(None);
    }
    let _no_grad = crate::autograd::GradModeGuard::new(false);
    let dl = sizes_i64(rd);
    let abs = || unary::abs(x);
    Ok(Some(if p.is_infinite() {
        let op = if p > 0.0 {
            ReduceOp::Max
        } else {
            ReduceOp::Min
        };
        kernels::reduce(op, &abs()?, rd, keepdim)
    } else if p == 0.0 {
        // By comparison, so NaN counts as nonzero.
        let nonzero = cast_data(&ne(x, 0.0)?, DType::F32);
        sum(&nonzero, Some(&dl), keepdim)?
    } else if p == 1.0 {
        sum(&abs()?, Some(&dl), keepdim)?
    } else if p == 2.0 {
        unary::sqrt(&sum(&mul(x, x)?, Some(&dl), keepdim)?)?
    } else {
        pow(&sum(&pow(&abs()?, p)?, Some(&dl), keepdim)?, 1.0 / p)?
    }))
}

/// PyTorch's logsumexp: m = amax, an infinite m shifts by 0 instead (an all -inf run gives
/// log 0 = -inf, a run with +inf gives inf, NaN propagates), then log(sum(exp(x - m))) + m.
fn logsumexp_gpu(x: &Tensor, rd: &[usize], keepdim: bool) -> Result<Option<Tensor>> {
    if !gpu_f32(x) || x.numel() == 0 {
        return Ok(None);
    }
    let _no_grad = crate::autograd::GradModeGuard::new(false);
    let shape = x.shape();
    let m = kernels::reduce(ReduceOp::Max, x, rd, true);
    let infinite = eq(&unary::abs(&m)?, f64::INFINITY)?;
    let m = where_(&infinite, 0, &m)?;
    let e = unary::exp(&sub(x, &m)?)?;
    let s = sum(&e, Some(&sizes_i64(rd)), keepdim)?;
    let m = if keepdim {
        m
    } else {
        reshape(&m, &sizes_i64(&reduced_shape(&shape, rd, false)))?
    };
    Ok(Some(add(&unary::log(&s)?, &m)?))
}

// ---- scans -------------------------------------------------------------------------------------

/// `x.cumsum(dim)`: CumsumBackward0 is a reversed cumsum of the gradient.
pub fn cumsum(x: &Tensor, dim: i64) -> Result<Tensor> {
    let d = wrap_dim(dim, x.dim())?;
    let x = if x.dtype().is_floating_point() {
        x.clone()
    } else {
        cast_data(x, DType::I64)
    };
    // float16 accumulates in float32 (Note [Narrow dtypes]).
    let xw = wide(&x);
    let out = kernels::scan(ScanOp::Sum, &xw, d);
    let out = narrow(out, x.dtype());
    if !needs_grad(&[&x]) {
        return Ok(out);
    }
    let out = record_formula_jvp(
        out,
        &[&x],
        "CumsumBackward0",
        vec![],
        move |g, _| Ok(vec![Some(reverse_cumsum(g, d)?)]),
        Jvp::linear(move |t| cumsum(t, d as i64)),
    );
    crate::autograd::formula::describe(&out, &[], vec![("dim", Value::Int(dim))]);
    Ok(out)
}

fn reverse_cumsum(g: &Tensor, d: usize) -> Result<Tensor> {
    let f = crate::ops::shape::flip(g, &[d as i64])?;
    crate::ops::shape::flip(&cumsum(&f, d as i64)?, &[d as i64])
}

/// The gradient of cumprod along `d` with zeros in `x`, in tensor ops (PyTorch's O(n²) path
/// under grad mode): grad_k = sum_{j >= k} g_j * prod_{i <= j, i != k} x_i, the omitted
/// products built from a prod of x[..k] and a cumprod of x[k+1..].
fn cumprod_backward_differentiable(g: &Tensor, x: &Tensor, d: usize) -> Result<Tensor> {
    use crate::ops::slicing::slice;
    let n = x.shape()[d] as i64;
    let di = d as i64;
    let mut ones_shape = x.shape();
    ones_shape[d] = 1;
    let ones = Tensor::full_on(&ones_shape, Scalar::Int(1), g.dtype(), g.device());
    let mut parts = Vec::with_capacity(n as usize);
    for k in 0..n {
        let omitted = if k == 0 {
            let from = cumprod(&slice(x, di, Some(1), None, 1)?, di)?;
            crate::ops::shape::cat(&[ones.clone(), from], di)?
        } else {
            let until = prod(&slice(x, di, Some(0), Some(k), 1)?, Some(di), true)?;
            if k == n - 1 {
                until
            } else {
                let from = cumprod(&slice(x, di, Some(k + 1), None, 1)?, di)?;
                let rest = mul(&expand(&until, &sizes_i64(&from.shape()))?, &from)?;
                crate::ops::shape::cat(&[until, rest], di)?
            }
        };
        let gk = mul(&slice(g, di, Some(k), None, 1)?, &omitted)?;
        parts.push(sum(&gk, Some(&[di]), false)?);
    }
    crate::ops::shape::stack(&parts, di)
}

/// `x.cumprod(dim)`: CumprodBackward0.
pub fn cumprod(x: &Tensor, dim: i64) -> Result<Tensor> {
    let d = wrap_dim(dim, x.dim())?;
    let x = if x.dtype().is_floating_point() {
        x.clone()
    } else {
        cast_data(x, DType::I64)
    };
    let xw = wide(&x);
    let out = kernels::scan(ScanOp::Prod, &xw, d);
    let out = narrow(out, x.dtype());
    if !needs_grad(&[&x]) {
        return Ok(out);
    }
    let saved = vec![SavedTensor::input(&x)?, SavedTensor::output(&out, 0)?];
    let out = record_formula_jvp(
        out,
        &[&x],
        "CumprodBackward0",
        saved,
        move |g, s| {
            let (x, out) = (&s[0], &s[1]);
            // As PyTorch's cumprod_backward: the gradient itself when nothing is multiplied.
            if x.numel() <= 1 || x.shape()[d] == 1 {
                return Ok(vec![Some(g.clone())]);
            }
            if !x.to_f64_vec().contains(&0.0) {
                return Ok(vec![Some(div(&reverse_cumsum(&mul(out, g)?, d)?, x)?)]);
            }
            if crate::autograd::is_grad_enabled() {
                return Ok(vec![Some(cumprod_backward_differentiable(g, x, d)?)]);
            }
            // Zeros present, first derivative only (no graph needed): the same sum, per line.
            let xs = contiguous_clone(&crate::ops::movement::transpose(&x.detach(), d as i64, -1)?);
            let gs = contiguous_clone(&crate::ops::movement::transpose(&g.detach(), d as i64, -1)?);
            let n = xs.shape().last().copied().unwrap_or(1);
            let (xv, gv) = (xs.to_f64_vec(), gs.to_f64_vec());
            let mut out = vec![0f64; xv.len()];
            for ((xr, gr), o) in xv
                .chunks(n.max(1))
                .zip(gv.chunks(n.max(1)))
                .zip(out.chunks_mut(n.max(1)))
            {
                for i in 0..xr.len() {
                    let mut acc = 0.0;
                    let mut prod_before: f64 = xr[..i].iter().product();
                    for j in i..xr.len() {
                        if j > i {
                            prod_before *= xr[j];
                        }
                        acc += gr[j] * prod_before;
                    }
                    o[i] = acc;
                }
            }
            let t = cast_data(
                &Tensor::from_vec_on(out, &xs.shape(), x.device()),
                x.dtype(),
            );
            let t = contiguous_clone(&crate::ops::movement::transpose(&t, d as i64, -1)?);
            Ok(vec![Some(t)])
        },
        Jvp::of(move |t, s| {
            Ok(vec![t[0]
                .as_ref()
                .map(|t| cumprod_jvp(t, &s[0], &s[1], d))
                .transpose()?])
        }),
    );
    crate::autograd::formula::describe(&out, &["self", "result"], vec![("dim", Value::Int(dim))]);
    Ok(out)
}

/// cumprod's tangent: sum over i of t_i times d out / d x_i, which is the cumprod of x with
/// x_i replaced by 1 at positions k >= i (0 before); without zeros, cumsum(t / x) * out.
fn cumprod_jvp(t: &Tensor, x: &Tensor, out: &Tensor, d: usize) -> Result<Tensor> {
    if x.numel() == 0 {
        return Ok(t.clone());
    }
    if !x.to_f64_vec().contains(&0.0) {
        return mul(&cumsum(&div(t, x)?, d as i64)?, out);
    }
    let n = x.shape()[d];
    let mut shape = vec![1usize; x.dim()];
    shape[d] = n;
    let pos: Vec<i64> = (0..n as i64).collect();
    let pos = crate::ops::movement::reshape(
        &Tensor::from_vec_on(pos, &[n], x.device()),
        &sizes_i64(&shape),
    )?;
    let mut total: Option<Tensor> = None;
    for i in 0..n as i64 {
        let at_i = eq(&pos, i as f64)?;
        let replaced = where_(&at_i, 1.0, x)?;
        let partial = cumprod(&replaced, d as i64)?;
        let ti = crate::ops::slicing::slice(t, d as i64, Some(i), Some(i + 1), 1)?;
        let after = crate::ops::compare::ge(&pos, i as f64)?;
        let term = mul(&mul(&partial, &ti)?, &after)?;
        total = Some(match total {
            None => term,
            Some(acc) => crate::ops::arithmetic::add(&acc, term)?,
        });
    }
    Ok(total.expect("n > 0"))
}
