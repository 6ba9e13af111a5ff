//! index_select and index_add along a dim (IndexSelectBackward0 adds the gradient back with
//! index_add; IndexAddBackward0 selects it).

use super::gather::{gather_data, scatter_data};
use super::{index_values, is_index_dtype};
use crate::autograd::formula::describe;
use crate::autograd::graph::Value;
use crate::autograd::{needs_grad, record_formula_jvp, Jvp, SavedTensor};
use crate::dtype::Scalar;
use crate::error::{Error, Result};
use crate::kernels;
use crate::ops::arithmetic::mul;
use crate::ops::creation::{cast_data, contiguous_clone};
use crate::ops::movement::reshape;
use crate::ops::Operand;
use crate::tensor::device::check_args;
use crate::tensor::shape::{sizes_i64, wrap_dim};
use crate::tensor::Tensor;

fn check_index_1d(index: &Tensor, op: &str) -> Result<Vec<i64>> {
    if index.dim() > 1 {
        return Err(Error::Index(format!(
            "{op}(): Index is supposed to be a vector"
        )));
    }
    if !is_index_dtype(index.dtype()) {
        return Err(Error::Runtime(format!(
            "{op}(): Expected dtype int32 or int64 for index"
        )));
    }
    Ok(index_values(index))
}

/// PyTorch's checks of `index_add` (`index_func_meta_impl`), in its order; `dim` is wrapped.
fn check_index_add(x: &Tensor, dim: usize, index: &Tensor, source: &Tensor) -> Result<Vec<i64>> {
    let pretty = crate::dtype::pretty_kernel_name;
    if index.dim() > 1 {
        return Err(Error::Index(format!(
            "index_add_(): Index is supposed to be a vector, but got dim: {} with type: {} and size: {}",
            index.dim(),
            pretty(index.dtype()),
            crate::tensor::shape::list_repr(&index.shape())
        )));
    }
    if !is_index_dtype(index.dtype()) {
        return Err(Error::Runtime(format!(
            "index_add_(): Expected dtype int32/int64 for index but got: {}",
            pretty(index.dtype())
        )));
    }
    if x.dtype() != source.dtype() {
        return Err(Error::Runtime(format!(
            "index_add_(): self ({}) and source ({}) must have the same scalar type",
            pretty(x.dtype()),
            pretty(source.dtype())
        )));
    }
    let (xs, ss) = (x.shape().to_vec(), source.shape().to_vec());
    let n_src = if ss.is_empty() {
        1
    } else {
        ss[wrap_dim(dim as i64, ss.len())?]
    };
    let idx = index_values(index);
    if idx.len() != n_src {
        return Err(Error::Runtime(format!(
            "index_add_(): Number of indices ({}) should be equal to source.size(dim): ({n_src}), for dim: {dim}",
            idx.len()
        )));
    }
    let (mut xr, mut sr) = (xs.clone(), ss.clone());
    if !xs.is_empty() && !ss.is_empty() {
        xr.remove(dim);
        sr.remove(dim);
    }
    if xr != sr {
        return Err(Error::Runtime(format!(
            "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = {} source.shape = {}",
            crate::tensor::shape::list_repr(&xs),
            crate::tensor::shape::list_repr(&ss)
        )));
    }
    let size = xs.get(dim).copied().unwrap_or(1) as i64;
    if let Some(&i) = idx.iter().find(|&&i| i < 0 || i >= size) {
        if xs.is_empty() {
            return Err(Error::Index("index out of range in self".into()));
        }
        return Err(Error::Runtime(format!(
            "index {i} is out of bounds for dimension {dim} with size {size}"
        )));
    }
    Ok(idx)
}

/// `x.index_select(dim, index)`: IndexSelectBackward0 adds the gradient back with index_add.
pub fn index_select(x: &Tensor, dim: i64, index: &Tensor) -> Result<Tensor> {
    check_args(
        "_index_select",
        &[("self", Some(x)), ("index", Some(index))],
    )?;
    let idx = check_index_1d(index, "index_select")?;
    let xd = x.dim();
    let given = dim;
    let dim = wrap_dim(dim, xd)?;
    if xd == 0 && idx.len() != 1 {
        return Err(Error::Runtime(format!(
            "index_select(): Index to scalar can have only 1 value, got {} value(s)",
            idx.len()
        )));
    }
    let xs = x.shape();
    let size = xs.get(dim).copied().unwrap_or(1);
    if let Some(&i) = idx.iter().find(|&&i| i < 0 || i >= size as i64) {
        // PyTorch's CPU kernel checks dim 1 of a tensor past 1-D in its own loop, with its
        // own RuntimeError; every other dim raises IndexError.
        if xd > 1 && dim == 1 {
            if size == 0 {
                return Err(Error::Runtime(
                    "index_select(): self indexing axis dim should be positive".into(),
                ));
            }
            return Err(Error::Runtime(format!(
                "INDICES element is out of DATA bounds, id={i} axis_dim={size}"
            )));
        }
        return Err(Error::Index("index out of range in self".into()));
    }
    let out = {
        let _g = crate::autograd::GradModeGuard::new(false);
        if xd == 0 {
            // A 0-dim tensor selects itself (its result is 0-dim too).
            reshape(
                &gather_data(
                    &reshape(x, &[1])?,
                    0,
                    &Tensor::from_vec(idx.clone(), &[idx.len()]),
                )?,
                &[],
            )?
        } else {
            let mut shape = xs.to_vec();
            shape[dim] = idx.len();
            // The GPU reads the 1-D index by stride 0 where the host expands it.
            kernels::gather(x, dim, index, Some(&idx), Some(&shape))?
        }
    };
    if !needs_grad(&[x]) {
        return Ok(out);
    }
    let sizes = Value::Ints(sizes_i64(&xs));
    let index_t = index.clone();
    let out = record_formula_jvp(
        out,
        &[x],
        "IndexSelectBackward0",
        vec![SavedTensor::input(index)?],
        move |g, s| {
            let zeros = Tensor::zeros_on(&xs, g.dtype(), g.device());
            Ok(vec![Some(index_add(
                &zeros,
                dim as i64,
                &s[0],
                g,
                Scalar::Int(1),
            )?)])
        },
        Jvp::linear(move |t| index_select(t, dim as i64, &index_t)),
    );
    describe(
        &out,
        &["index"],
        vec![("dim", Value::Int(given)), ("self_sym_sizes", sizes)],
    );
    Ok(out)
}

/// `x.index_add(dim, index, source, alpha=1)`: IndexAddBackward0.
pub fn index_add(
    x: &Tensor,
    dim: i64,
    index: &Tensor,
    source: &Tensor,
    alpha: Scalar,
) -> Result<Tensor> {
    check_args(
        "index_add",
        &[
            ("self", Some(x)),
            ("index", Some(index)),
            ("source", Some(source)),
        ],
    )?;
    let given = dim;
    let dim = wrap_dim(dim, x.dim())?;
    let idx = check_index_add(x, dim, index, source)?;
    let ss = source.shape();
    let scaled = {
        let _g = crate::autograd::GradModeGuard::new(false);
        let s = crate::ops::arithmetic::binary(
            crate::ops::arithmetic::BinaryOp::Mul,
            Operand::Tensor(source.clone()),
            Operand::Scalar(alpha),
        )?;
        cast_data(&s, x.dtype())
    };
    let out = if x.dim() == 0 {
        let _g = crate::autograd::GradModeGuard::new(false);
        let flat = scatter_data(
            &reshape(x, &[1])?,
            0,
            &Tensor::from_vec(idx.clone(), &[idx.len()]),
            &Operand::Tensor(reshape(&scaled, &[-1])?),
            true,
        )?;
        reshape(&flat, &[])?
    } else {
        // The index is checked on the way (as a scatter's), not before the GPU reads it.
        let out = contiguous_clone(x);
        let src = Operand::Tensor(scaled);
        kernels::scatter(&out, dim, index, None, Some(&ss), &src, true)?;
        out
    };
    if !needs_grad(&[x, source]) {
        return Ok(out);
    }
    let a = alpha.to_f64();
    // PyTorch keeps the index and `source` only when source's gradient is wanted (its
    // formula reads source's shape); self's gradient is the incoming one.
    let source_saved = source.requires_grad();
    let saved = if source_saved {
        vec![SavedTensor::input(index)?, SavedTensor::input(source)?]
    } else {
        Vec::new()
    };
    let (index_t, shapes) = (index.clone(), vec![x.shape(), source.shape()]);
    let out = record_formula_jvp(
        out,
        &[x, source],
        "IndexAddBackward0",
        saved,
        move |g, s| {
            let Some(index) = s.first() else {
                return Ok(vec![Some(g.clone()), None]);
            };
            let gs = index_select(g, dim as i64, index)?;
            let gs = if a != 1.0 { mul(&gs, a)? } else { gs };
            Ok(vec![Some(g.clone()), Some(gs)])
        },
        Jvp::linear_n(shapes, move |t| {
            index_add(&t[0], dim as i64, &index_t, &t[1], Scalar::Float(a))
        }),
    );
    let mut values = vec![("alpha", Value::Scalar(alpha)), ("dim", Value::Int(given))];
    if !source_saved {
        values.push(("index", Value::Unsaved));
        values.push(("source", Value::Unsaved));
    }
    values.push(("source_dim", Value::Int(source.dim() as i64)));
    describe(&out, &["index", "source"], values);
    Ok(out)
}
