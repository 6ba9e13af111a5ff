//! Shape ops that copy: cat, stack, flip, roll, repeat, tril/triu. (Views live in
//! `movement.rs` and `slicing.rs`.)

use crate::autograd::formula::describe;
use crate::autograd::saved::Value;
use crate::autograd::{needs_grad, record_formula_jvp, GradModeGuard, Jvp};
use crate::dtype::{result_type, Participant, Scalar};
use crate::error::{Error, Result};
use crate::ops::creation::{cast_data, contiguous_clone};
use crate::ops::inplace::write_into;
use crate::ops::movement::{expand, reshape, unsqueeze};
use crate::ops::reduce::sum;
use crate::ops::slicing::{narrow, select};
use crate::ops::where_::where_;
use crate::ops::Operand;
use crate::tensor::shape::{list_repr, sizes_i64, wrap_dim};
use crate::tensor::{Device, Layout, Tensor};

/// `x.flip(dims)`: a reversed copy (FlipBackward0 flips the gradient back).
pub fn flip(x: &Tensor, dims: &[i64]) -> Result<Tensor> {
    let nd = x.dim();
    let mut wrapped = Vec::new();
    for &d in dims {
        let w = wrap_dim(d, nd)?;
        if wrapped.contains(&w) {
            return Err(Error::Runtime(format!(
                "dim {w} appears multiple times in the list of dims"
            )));
        }
        wrapped.push(w);
    }
    let out = {
        let d = x.read();
        let mut l: Layout = d.layout.clone();
        // A 0-dim tensor wraps dim 0 as if 1-D; there is nothing to reverse.
        for &w in wrapped.iter().filter(|_| nd > 0) {
            if l.shape[w] > 0 {
                l.offset = (l.offset as isize + (l.shape[w] as isize - 1) * l.strides[w]) as usize;
            }
            l.strides[w] = -l.strides[w];
        }
        contiguous_clone(&Tensor::from_storage(d.storage.clone(), l))
    };
    if !needs_grad(&[x]) {
        return Ok(out);
    }
    let given = dims.to_vec();
    let dims = dims.to_vec();
    let dims_t = dims.clone();
    let out = record_formula_jvp(
        out,
        &[x],
        "FlipBackward0",
        vec![],
        move |g, _| Ok(vec![Some(flip(g, &dims)?)]),
        Jvp::linear(move |t| flip(t, &dims_t)),
    );
    describe(&out, &[], vec![("dims", Value::Ints(given))]);
    Ok(out)
}

/// `cat(tensors, dim)`: dtypes promote; 1-D empty tensors are skipped, as in PyTorch.
pub fn cat(tensors: &[Tensor], dim: i64) -> Result<Tensor> {
    if tensors.is_empty() {
        return Err(Error::Value(
            "torch.cat(): expected a non-empty list of Tensors".replace("torch", "gradrs"),
        ));
    }
    let dtype = result_type(
        &tensors
            .iter()
            .map(|t| Participant::Dim(t.dtype()))
            .collect::<Vec<_>>(),
    );
    let used: Vec<&Tensor> = tensors
        .iter()
        .filter(|t| !(t.dim() == 1 && t.numel() == 0))
        .collect();
    let device = Device::of(&tensors.iter().collect::<Vec<_>>())?;
    let Some(first) = used.first() else {
        return Ok(Tensor::zeros_on(&[0], dtype, device));
    };
    let nd = first.dim();
    if nd == 0 {
        return Err(Error::Runtime(
            "zero-dimensional tensor (at position 0) cannot be concatenated".into(),
        ));
    }
    let d = wrap_dim(dim, nd)?;
    let base = first.shape();
    let mut total = 0;
    for (i, t) in used.iter().enumerate() {
        let s = t.shape();
        if s.len() != nd {
            return Err(Error::Runtime(format!(
                "Tensors must have same number of dimensions: got {nd} and {}",
                s.len()
            )));
        }
        for k in 0..nd {
            if k != d && s[k] != base[k] {
                return Err(Error::Runtime(format!(
                    "Sizes of tensors must match except in dimension {d}. Expected size {} but got size {} for tensor number {i} in the list.",
                    base[k], s[k]
                )));
            }
        }
        total += s[d];
    }
    let mut shape = base.to_vec();
    shape[d] = total;
    let out = Tensor::zeros_on(&shape, dtype, device);
    let mut offsets = Vec::with_capacity(tensors.len());
    {
        let _g = GradModeGuard::new(false);
        let mut at = 0;
        for t in tensors {
            if t.dim() == 1 && t.numel() == 0 {
                offsets.push(None);
                continue;
            }
            let n = t.shape()[d];
            offsets.push(Some((at, n)));
            write_into(
                &narrow(&out, d as i64, at as i64, n as i64)?,
                &cast_data(t, dtype),
            )?;
            at += n;
        }
    }
    let refs: Vec<&Tensor> = tensors.iter().collect();
    if !needs_grad(&refs) {
        return Ok(out);
    }
    let shapes = tensors.iter().map(|t| t.shape()).collect();
    let out = record_formula_jvp(
        out,
        &refs,
        "CatBackward0",
        vec![],
        move |g, _| {
            offsets
                .iter()
                .map(|o| match o {
                    Some((at, n)) => Ok(Some(narrow(g, d as i64, *at as i64, *n as i64)?)),
                    // A skipped legacy empty (0,) input still gets its (empty) gradient.
                    None => Ok(Some(Tensor::zeros_on(&[0], g.dtype(), g.device()))),
                })
                .collect()
        },
        Jvp::linear_n(shapes, move |t| cat(t, d as i64)),
    );
    describe(&out, &[], vec![("dim", Value::Int(dim))]);
    Ok(out)
}

/// `stack(tensors, dim)`: all the same shape, joined along a new dim (StackBackward0).
pub fn stack(tensors: &[Tensor], dim: i64) -> Result<Tensor> {
    let Some(first) = tensors.first() else {
        return Err(Error::Runtime(
            "stack expects a non-empty TensorList".into(),
        ));
    };
    let shape = first.shape();
    for (i, t) in tensors.iter().enumerate() {
        if t.shape() != shape {
            return Err(Error::Runtime(format!(
                "stack expects each tensor to be equal size, but got {} at entry 0 and {} at entry {i}",
                list_repr(&shape),
                list_repr(&t.shape())
            )));
        }
    }
    let d = wrap_dim(dim, shape.len() + 1)?;
    let out = {
        let _g = GradModeGuard::new(false);
        let parts: Vec<Tensor> = tensors
            .iter()
            .map(|t| unsqueeze(t, d as i64))
            .collect::<Result<_>>()?;
        cat(&parts, d as i64)?
    };
    let refs: Vec<&Tensor> = tensors.iter().collect();
    if !needs_grad(&refs) {
        return Ok(out);
    }
    let n = tensors.len();
    let shapes = tensors.iter().map(|t| t.shape()).collect();
    let out = record_formula_jvp(
        out,
        &refs,
        "StackBackward0",
        vec![],
        move |g, _| {
            (0..n)
                .map(|i| Ok(Some(select(g, d as i64, i as i64)?)))
                .collect()
        },
        Jvp::linear_n(shapes, move |t| stack(t, d as i64)),
    );
    describe(&out, &[], vec![("dim", Value::Int(dim))]);
    Ok(out)
}

/// `x.roll(shifts, dims)`; no dims rolls the flattened tensor (RollBackward0 rolls back).
pub fn roll(x: &Tensor, shifts: &[i64], dims: &[i64]) -> Result<Tensor> {
    if dims.is_empty() && shifts.len() != 1 || !dims.is_empty() && shifts.len() != dims.len() {
        return Err(Error::Runtime(format!(
            "shifts and dimensions must align. shifts: {}, dims:{}",
            shifts.len(),
            dims.len()
        )));
    }
    let out = {
        let _g = GradModeGuard::new(false);
        if dims.is_empty() {
            let flat = reshape(x, &[-1])?;
            reshape(&roll(&flat, shifts, &[0])?, &sizes_i64(&x.shape()))?
        } else {
            let mut cur = x.clone();
            for (&s, &dim) in shifts.iter().zip(dims) {
                let d = wrap_dim(dim, x.dim())?;
                let n = x.shape()[d] as i64;
                if n == 0 {
                    continue;
                }
                let s = s.rem_euclid(n);
                if s == 0 {
                    continue;
                }
                let tail = narrow(&cur, d as i64, n - s, s)?;
                let head = narrow(&cur, d as i64, 0, n - s)?;
                cur = cat(&[tail, head], d as i64)?;
            }
            contiguous_clone(&cur)
        }
    };
    if !needs_grad(&[x]) {
        return Ok(out);
    }
    let (shifts, dims) = (shifts.to_vec(), dims.to_vec());
    let values = vec![
        ("dims", Value::Ints(dims.clone())),
        ("shifts", Value::Ints(shifts.clone())),
    ];
    let (shifts_t, dims_t) = (shifts.clone(), dims.clone());
    let out = record_formula_jvp(
        out,
        &[x],
        "RollBackward0",
        vec![],
        move |g, _| {
            let back: Vec<i64> = shifts.iter().map(|s| -s).collect();
            Ok(vec![Some(roll(g, &back, &dims)?)])
        },
        Jvp::linear(move |t| roll(t, &shifts_t, &dims_t)),
    );
    describe(&out, &[], values);
    Ok(out)
}

/// `x.repeat(*sizes)`: tiles (RepeatBackward0 sums the tiles).
pub fn repeat(x: &Tensor, reps: &[i64]) -> Result<Tensor> {
    let nd = x.dim();
    if reps.len() < nd {
        return Err(Error::Runtime("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor".into()));
    }
    if reps.iter().any(|&r| r < 0) {
        // PyTorch refuses only a negative result size (a negative count of an empty dim is
        // still empty), and reports the result's sizes: x's shape (padded with leading 1s) times reps.
        let lead = reps.len() - nd;
        let sizes: Vec<i64> = reps
            .iter()
            .enumerate()
            .map(|(i, &r)| {
                r * if i < lead {
                    1
                } else {
                    x.shape()[i - lead] as i64
                }
            })
            .collect();
        if sizes.iter().all(|&s| s >= 0) {
            let reps: Vec<i64> = reps.iter().map(|&r| r.max(0)).collect();
            return repeat(x, &reps);
        }
        return Err(Error::Runtime(format!(
            "Trying to create tensor with negative dimension {}: [{}]",
            sizes.iter().find(|&&s| s < 0).copied().unwrap_or_default(),
            sizes
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let lead = reps.len() - nd;
    let mut src: Vec<i64> = vec![1; lead];
    src.extend(x.shape().iter().map(|&s| s as i64));
    // View as [1, s0, 1, s1, ...], expand to [r0, s0, r1, s1, ...], then merge pairs.
    let inter: Vec<i64> = src.iter().flat_map(|&s| [1, s]).collect();
    let expanded: Vec<i64> = reps.iter().zip(&src).flat_map(|(&r, &s)| [r, s]).collect();
    let final_shape: Vec<i64> = reps
        .iter()
        .zip(&src)
        .map(|(&r, &s)| r.saturating_mul(s))
        .collect();
    // The result's storage size, checked before the expand below makes its (huge) view.
    let sizes: Vec<usize> = final_shape.iter().map(|&s| s as usize).collect();
    crate::tensor::shape::storage_nbytes(&sizes, x.dtype().itemsize())?;
    let out = {
        let _g = GradModeGuard::new(false);
        let v = reshape(&contiguous_clone(x), &inter)?;
        contiguous_clone(&reshape(
            &contiguous_clone(&expand(&v, &expanded)?),
            &final_shape,
        )?)
    };
    if !needs_grad(&[x]) {
        return Ok(out);
    }
    let xs = sizes_i64(&x.shape());
    let values = vec![
        ("repeats", Value::Ints(reps.to_vec())),
        ("self_sym_sizes", Value::Ints(xs.clone())),
    ];
    let reps_t = reps.to_vec();
    let out = record_formula_jvp(
        out,
        &[x],
        "RepeatBackward0",
        vec![],
        move |g, _| {
            let split = reshape(g, &expanded)?;
            let rep_dims: Vec<i64> = (0..expanded.len() / 2).map(|i| 2 * i as i64).collect();
            let summed = sum(&split, Some(&rep_dims), false)?;
            Ok(vec![Some(reshape(&summed, &xs)?)])
        },
        Jvp::linear(move |t| repeat(t, &reps_t)),
    );
    describe(&out, &[], values);
    Ok(out)
}

/// `tril` (`lower`) / `triu` of the last two dims, offset by `diagonal`.
pub fn tri(x: &Tensor, diagonal: i64, lower: bool) -> Result<Tensor> {
    let nd = x.dim();
    let op = if lower { "tril" } else { "triu" };
    if nd < 2 {
        return Err(Error::Runtime(format!(
            "{op}: input tensor must have at least 2 dimensions"
        )));
    }
    let shape = x.shape();
    let (r, c) = (shape[nd - 2], shape[nd - 1]);
    let m: Vec<bool> = (0..r * c)
        .map(|k| {
            let (i, j) = ((k / c) as i64, (k % c) as i64);
            if lower {
                j - i <= diagonal
            } else {
                j - i >= diagonal
            }
        })
        .collect();
    let mask = Tensor::from_vec_on(m, &[r, c], x.device());
    let zero = Operand::Scalar(Scalar::Int(0));
    let out = {
        let _g = GradModeGuard::new(false);
        let o = where_(&mask, Operand::Tensor(x.clone()), zero)?;
        if o.dtype() != x.dtype() {
            cast_data(&o, x.dtype())
        } else {
            o
        }
    };
    if !needs_grad(&[x]) {
        return Ok(out);
    }
    let name = if lower {
        "TrilBackward0"
    } else {
        "TriuBackward0"
    };
    let out = record_formula_jvp(
        out,
        &[x],
        name,
        vec![],
        move |g, _| Ok(vec![Some(tri(g, diagonal, lower)?)]),
        Jvp::linear(move |t| tri(t, diagonal, lower)),
    );
    describe(&out, &[], vec![("diagonal", Value::Int(diagonal))]);
    Ok(out)
}
