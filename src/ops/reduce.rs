//! Reductions: sum, mean and prod over all or some dims, all / any, and `sum_to` (undoing
//! broadcasting). The other reductions live beside: `extrema.rs` (max / min / amax / argmax),
//! `statistics.rs` (var / std, norm, logsumexp), `scan.rs` (cumsum / cumprod).

use crate::autograd::saved::{SavedValue, Value};
use crate::autograd::{needs_grad, record, record_formula_jvp, Backward, Ctx, Jvp, SavedTensor};
use crate::dtype::{DType, Scalar};
use crate::error::{Error, Result};
use crate::kernels::{self, ReduceOp};
use crate::ops::arithmetic::{binary, div, mul, BinaryOp};
use crate::ops::creation::{cast_data, wide};
use crate::ops::movement::{expand, reshape, unsqueeze};
use crate::ops::scan::cumprod;
use crate::ops::Operand;
use crate::tensor::shape::{sizes_i64, wrap_dim, Shape};
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
        d if d == DType::Bool || d.is_integral() => cast_data(x, DType::I64),
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

/// `all` / `any` (bool results) over `dims` (all when None).
pub fn all_any(x: &Tensor, dims: Option<&[i64]>, keepdim: bool, all: bool) -> Result<Tensor> {
    let rd = reduction_dims(dims, x.dim())?;
    Ok(kernels::all_any(all, x, &rd, keepdim))
}
