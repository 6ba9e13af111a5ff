//! Extreme-value reductions: max / min over everything or along a dim (values and indices),
//! amax / amin, argmax / argmin, and the even split of a gradient over ties.

use crate::autograd::needs_grad;
use crate::autograd::saved::Value;
use crate::autograd::{attach_formula_jvp, record_formula_jvp, Jvp, SavedTensor};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::{self, ReduceOp};
use crate::ops::arithmetic::{div, mul};
use crate::ops::compare::{eq, ne};
use crate::ops::movement::reshape;
use crate::ops::reduce::{reduction_dims, restore_dims, sum};
use crate::ops::where_::where_;
use crate::ops::Operand;
use crate::tensor::shape::{sizes_i64, wrap_dim};
use crate::tensor::Tensor;

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
