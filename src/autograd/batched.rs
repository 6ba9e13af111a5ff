//! Note [Batched backward]: one node of a backward pass whose gradients carry a leading batch
//! dim (`engine::grad_batched`, PyTorch's `is_grads_batched`, which vmaps the engine).
//!
//! A node's formula runs once on the batch where that gives each vector's gradient:
//! elementwise formulas (the gradient times a partial derivative broadcasts over the batch
//! dim), and the rules below for the matmul, view and full-reduction nodes, which read the
//! node's saved values as its `_saved_<name>` attributes show them. Any other node runs once
//! per vector on slices of the gradients, its results stacked: PyTorch's per-sample fallback.
//! `validate_output` then sums each gradient back to `[batch, *input.shape]`.

use super::graph::{Ctx, Node};
use super::saved::{SavedValue, Value};
use crate::error::{Error, Result};
use crate::ops;
use crate::tensor::Tensor;

/// The gradients for each edge of `node`, given each output's batched gradient.
pub(super) fn apply(
    node: &mut Node,
    grads: &[Option<Tensor>],
    ctx: &Ctx,
    b: usize,
) -> Result<Vec<Option<Tensor>>> {
    if node.backward.elementwise() {
        let outs = node.backward.apply(grads, ctx)?;
        if outs
            .iter()
            .zip(&node.next)
            .all(|(g, e)| g.as_ref().is_none_or(|g| fits(g, &e.shape, b)))
        {
            return Ok(outs);
        }
    } else if let Some(outs) = rule(node, grads, ctx, b)? {
        return Ok(outs);
    }
    per_vector(node, grads, ctx, b)
}

/// Whether `g` broadcasts to `[b, *shape]` with its batch dim in front.
fn fits(g: &Tensor, shape: &[usize], b: usize) -> bool {
    let gs = g.shape();
    gs.len() > shape.len()
        && gs[0] == b
        && shape
            .iter()
            .rev()
            .zip(gs.iter().rev())
            .all(|(&s, &t)| s == t || s == 1)
}

/// The fallback: the formula once per vector, each result summed to its input's shape, then
/// stacked (zeros for a vector whose gradient is undefined where another's is not).
fn per_vector(
    node: &mut Node,
    grads: &[Option<Tensor>],
    ctx: &Ctx,
    b: usize,
) -> Result<Vec<Option<Tensor>>> {
    let name = node.backward.name();
    let mut rows: Vec<Vec<Option<Tensor>>> = vec![Vec::with_capacity(b); node.next.len()];
    for k in 0..b {
        let slice = grads
            .iter()
            .map(|g| {
                g.as_ref()
                    .map(|g| ops::slicing::select(g, 0, k as i64))
                    .transpose()
            })
            .collect::<Result<Vec<_>>>()?;
        let outs = node.backward.apply(&slice, ctx)?;
        for (i, (row, e)) in rows.iter_mut().zip(&node.next).enumerate() {
            let g = outs.get(i).cloned().flatten();
            row.push(super::engine::validate_output(
                i,
                g,
                e.node.is_some(),
                &e.shape,
                e.dtype,
                e.device,
                name,
            )?);
        }
    }
    rows.into_iter()
        .zip(&node.next)
        .map(|(row, e)| {
            if row.iter().all(Option::is_none) {
                return Ok(None);
            }
            let full: Vec<Tensor> = row
                .into_iter()
                .map(|g| g.unwrap_or_else(|| Tensor::zeros_on(&e.shape, e.dtype, e.device)))
                .collect();
            ops::shape::stack(&full, 0).map(Some)
        })
        .collect()
}

fn as_f64(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        Value::Scalar(s) => Some(s.to_f64()),
        _ => None,
    }
}

/// The node's saved tensors and numbers by their `_saved_<name>` names.
struct Saved {
    tensors: Vec<(&'static str, Tensor)>,
    values: Vec<(&'static str, Value)>,
}

impl Saved {
    fn of(node: &mut Node, ctx: &Ctx) -> Result<Saved> {
        let mut tensors = Vec::new();
        let mut values = Vec::new();
        for (name, v) in node.backward.saved_values() {
            match v {
                SavedValue::Tensor(t) if !t.is_nothing() => tensors.push((name, t.unpack(ctx)?)),
                SavedValue::Value(v) => values.push((name, v)),
                _ => {}
            }
        }
        Ok(Saved { tensors, values })
    }
    fn tensor(&self, name: &str) -> Option<&Tensor> {
        self.tensors
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| t)
    }
    fn number(&self, name: &str) -> Option<f64> {
        self.values
            .iter()
            .find(|(n, _)| *n == name)
            .and_then(|(_, v)| as_f64(v))
    }
    fn int(&self, name: &str) -> Option<i64> {
        self.values
            .iter()
            .find(|(n, _)| *n == name)
            .and_then(|(_, v)| match v {
                Value::Int(i) => Some(*i),
                _ => None,
            })
    }
}

fn scaled(g: Tensor, by: f64) -> Result<Tensor> {
    if by == 1.0 {
        Ok(g)
    } else {
        ops::arithmetic::mul(&g, by)
    }
}

/// `g`'s last two dims swapped (a matrix of the batch of matrices).
fn mt(g: &Tensor) -> Result<Tensor> {
    ops::movement::transpose(g, -1, -2)
}

/// The batched formula of the nodes that have one here; None for the others (and where a
/// node saved less than its rule reads, e.g. under saved-tensor hooks that packed nothing).
fn rule(
    node: &mut Node,
    grads: &[Option<Tensor>],
    ctx: &Ctx,
    b: usize,
) -> Result<Option<Vec<Option<Tensor>>>> {
    let [Some(g)] = grads else {
        return Ok(None);
    };
    let wanted: Vec<bool> = node.next.iter().map(|e| e.node.is_some()).collect();
    let wants = |i: usize| wanted.get(i).copied().unwrap_or(false);
    let shapes: Vec<Vec<i64>> = node
        .next
        .iter()
        .map(|e| {
            std::iter::once(b as i64)
                .chain(e.shape.iter().map(|&s| s as i64))
                .collect()
        })
        .collect();
    let batched_shape = |i: usize| -> Vec<i64> { shapes[i].clone() };
    let name = node.backward.name();
    // Pure reshapes of their one input: the gradient reshaped back.
    let reshape = matches!(
        name,
        "ViewBackward0"
            | "UnsafeViewBackward0"
            | "_ReshapeAliasBackward0"
            | "ReshapeAliasBackward0"
    ) || name.starts_with("SqueezeBackward")
        || name.starts_with("UnsqueezeBackward");
    let out = match name {
        _ if reshape && node.next.len() == 1 => {
            let shape = batched_shape(0);
            if g.numel() as i64 != shape.iter().product::<i64>() {
                return Ok(None);
            }
            vec![Some(ops::movement::reshape(g, &shape)?)]
        }
        "ExpandBackward0" | "AliasBackward0" if node.next.len() == 1 => vec![Some(g.clone())],
        "TBackward0" | "TransposeBackward0" | "TransposeBackward1" if node.next.len() == 1 => {
            let rank = node.next[0].shape.len() as i64;
            let (d0, d1) = if name == "TBackward0" {
                (0, 1)
            } else {
                let saved = Saved::of(node, ctx)?;
                match (saved.int("dim0"), saved.int("dim1")) {
                    (Some(a), Some(c)) => (a, c),
                    _ => return Ok(None),
                }
            };
            if rank < 2 {
                vec![Some(g.clone())]
            } else {
                let shift = |d: i64| if d < 0 { d + rank + 1 } else { d + 1 };
                vec![Some(ops::movement::transpose(g, shift(d0), shift(d1))?)]
            }
        }
        "SumBackward0" | "MeanBackward0" if node.next.len() == 1 && g.dim() == 1 => {
            let shape = batched_shape(0);
            let mut ones = vec![1i64; shape.len()];
            ones[0] = b as i64;
            let g = ops::movement::reshape(g, &ones)?;
            let g = if name == "MeanBackward0" {
                let n = node.next[0].shape.iter().product::<usize>();
                ops::arithmetic::div(&g, n as f64)?
            } else {
                g
            };
            vec![Some(ops::movement::expand(&g, &shape)?)]
        }
        "MmBackward0" | "AddmmBackward0" | "MvBackward0" => {
            let saved = Saved::of(node, ctx)?;
            let (a_name, b_name, first) = match name {
                "MmBackward0" => ("self", "mat2", 0),
                "MvBackward0" => ("self", "vec", 0),
                _ => ("mat1", "mat2", 1),
            };
            let alpha = saved.number("alpha").unwrap_or(1.0);
            let mut outs = vec![None; node.next.len()];
            if first == 1 && wants(0) {
                let beta = saved.number("beta").unwrap_or(1.0);
                outs[0] = Some(scaled(g.clone(), beta)?);
            }
            if wants(first) {
                let Some(other) = saved.tensor(b_name) else {
                    return Ok(None);
                };
                let ga = if name == "MvBackward0" {
                    // [b, m, 1] * [n]: each vector's outer product
                    ops::arithmetic::mul(&ops::movement::unsqueeze(g, -1)?, other)?
                } else {
                    ops::matmul::matmul(g, &mt(other)?)?
                };
                outs[first] = Some(scaled(ga, alpha)?);
            }
            if wants(first + 1) {
                let Some(a) = saved.tensor(a_name) else {
                    return Ok(None);
                };
                let gb = if name == "MvBackward0" {
                    ops::matmul::matmul(g, a)?
                } else {
                    ops::matmul::matmul(&mt(a)?, g)?
                };
                outs[first + 1] = Some(scaled(gb, alpha)?);
            }
            outs
        }
        _ => return Ok(None),
    };
    Ok(Some(out))
}

/// `engine::validate_output` for a batched gradient: summed back to `[b, *shape]` (the batch
/// dim kept in front), then cast and moved as there.
#[allow(clippy::too_many_arguments)]
pub(super) fn validate_output(
    i: usize,
    g: Option<Tensor>,
    has_node: bool,
    shape: &[usize],
    dtype: crate::dtype::DType,
    device: crate::tensor::Device,
    name: &str,
    b: usize,
) -> Result<Option<Tensor>> {
    let g = match (g, has_node) {
        (Some(g), true) => g,
        _ => return Ok(None),
    };
    let full: Vec<usize> = std::iter::once(b).chain(shape.iter().copied()).collect();
    let gs = g.shape();
    let g = if gs.as_slice() == full.as_slice() {
        g
    } else {
        if !fits(&g, shape, b) {
            return Err(Error::Runtime(format!(
                "Function {name} returned an invalid gradient at index {i} - got {} but expected shape compatible with {}",
                crate::tensor::shape::list_repr(&gs),
                crate::tensor::shape::list_repr(&full)
            )));
        }
        let lead = gs.len() - full.len();
        let dims: Vec<i64> = (1..gs.len())
            .filter(|&d| d <= lead || (shape[d - 1 - lead] == 1 && gs[d] != 1))
            .map(|d| d as i64)
            .collect();
        let summed = ops::reduce::sum(&g, Some(&dims), true)?;
        let target: Vec<i64> = full.iter().map(|&s| s as i64).collect();
        ops::movement::reshape(&summed, &target)?
    };
    super::engine::validate_output(i, Some(g), has_node, &full, dtype, device, name)
}
