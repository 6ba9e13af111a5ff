//! Reductions: sum and mean over all or some dims, and `sum_to` (undoing broadcasting).

use crate::autograd::{needs_grad, record, Backward, Ctx};
use crate::backend::cpu::reduce::sum_dims;
use crate::dtype::{DType, Scalar};
use crate::error::{Error, Result};
use crate::ops::binary::{binary, BinaryOp, Operand};
use crate::ops::creation::cast_data;
use crate::ops::movement::{expand, reshape, unsqueeze};
use crate::shape::{sizes_i64, wrap_dim, Shape};
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

fn reduced_shape(shape: &[usize], dims: &[usize], keepdim: bool) -> Shape {
    let mut out = Shape::new();
    for (i, &s) in shape.iter().enumerate() {
        if !dims.contains(&i) {
            out.push(s);
        } else if keepdim {
            out.push(1);
        }
    }
    out
}

/// Sum without autograd. Integers and bools sum to int64, as in PyTorch.
fn sum_data(x: &Tensor, dims: &[usize], keepdim: bool) -> Tensor {
    let x = match x.dtype() {
        DType::Bool => cast_data(x, DType::I64),
        _ => x.clone(),
    };
    let d = x.read();
    let shape = reduced_shape(&d.layout.shape, dims, keepdim);
    match d.dtype() {
        DType::F32 => Tensor::from_vec(sum_dims::<f32>(d.storage.slice(), &d.layout, dims), &shape),
        DType::F64 => Tensor::from_vec(sum_dims::<f64>(d.storage.slice(), &d.layout, dims), &shape),
        DType::I64 => Tensor::from_vec(sum_dims::<i64>(d.storage.slice(), &d.layout, dims), &shape),
        DType::Bool => unreachable!("cast above"),
    }
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
    let total = sum_data(x, &rd, keepdim);
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
}
