//! Indexing ops: gather/scatter along a dim, index_select/index_add, masked_fill/select,
//! nonzero, and advanced (tensor) indexing. Backwards are the dual ops (gather <-> scatter_add,
//! index_select <-> index_add), so higher-order gradients come free.

use crate::autograd::formula::describe;
use crate::autograd::graph::Value;
use crate::autograd::{needs_grad, record_formula_jvp, Jvp, SavedTensor};
use crate::dtype::{DType, Scalar};
use crate::error::{Error, Result};
use crate::kernels;
use crate::ops::arithmetic::mul;
use crate::ops::creation::{cast_data, contiguous_clone};
use crate::ops::movement::{expand, reshape};
use crate::ops::reduce::{sum, sum_to};
use crate::ops::where_::where_;
use crate::ops::Operand;
use crate::tensor::device::check_args;
use crate::tensor::shape::{broadcast_shapes, sizes_i64, wrap_dim};
use crate::tensor::{Device, Tensor};

/// int64 and int32 tensors index (PyTorch takes both).
fn is_index_dtype(d: DType) -> bool {
    matches!(d, DType::I64 | DType::I32)
}

/// An index tensor's values (int64 or int32).
fn index_values(index: &Tensor) -> Vec<i64> {
    crate::ops::creation::wide(index).to_vec::<i64>()
}

fn check_index(index: &Tensor, op: &str) -> Result<Vec<i64>> {
    if !is_index_dtype(index.dtype()) {
        return Err(Error::Runtime(format!(
            "{op}(): Expected dtype int32/int64 for index"
        )));
    }
    Ok(index_values(index))
}

/// gather/scatter need the index to fit inside `x` (and `src`) in every dim but `dim`.
fn check_gather_shapes(x: &Tensor, index: &Tensor, dim: usize, op: &str) -> Result<()> {
    let (xs, is) = (x.shape(), index.shape());
    if xs.len().max(1) != is.len().max(1) {
        return Err(Error::Runtime(format!(
            "Index tensor must have the same number of dimensions as {} tensor",
            if op == "gather" { "input" } else { "self" }
        )));
    }
    for d in 0..is.len() {
        if d != dim && is[d] > xs.get(d).copied().unwrap_or(1) {
            return Err(Error::Runtime(format!(
                "Size does not match at dimension {d} expected index {} to be no larger than self {} apart from dimension {dim}",
                crate::tensor::shape::list_repr(&is),
                crate::tensor::shape::list_repr(&xs)
            )));
        }
    }
    Ok(())
}

fn gather_data(x: &Tensor, dim: usize, index: &Tensor) -> Result<Tensor> {
    let idx = check_index(index, "gather")?;
    check_gather_shapes(x, index, dim, "gather")?;
    if x.dim() == 0 {
        // A 0-dim tensor gathers from itself (index 0 or -1 only).
        let x1 = reshape(&x.detach(), &[1])?;
        let i1 = reshape(&index.detach(), &[-1])?;
        let r = gather_data(&x1, 0, &i1)?;
        return reshape(&r, &sizes_i64(&index.shape()));
    }
    kernels::gather(x, dim, index, Some(&idx), None)
}

/// `x.gather(dim, index)`: GatherBackward0 scatters the gradient back (adding duplicates).
pub fn gather(x: &Tensor, dim: i64, index: &Tensor) -> Result<Tensor> {
    check_args("gather", &[("self", Some(x)), ("index", Some(index))])?;
    let given = dim;
    let dim = wrap_dim(dim, x.dim())?;
    let out = gather_data(x, dim, index)?;
    if !needs_grad(&[x]) {
        return Ok(out);
    }
    let shape = x.shape();
    // PyTorch keeps `self` too (its formula reads only its shape).
    let saved = vec![SavedTensor::input(index)?, SavedTensor::input(x)?];
    let index_t = index.clone();
    let out = record_formula_jvp(
        out,
        &[x],
        "GatherBackward0",
        saved,
        move |g, s| {
            let zeros = Tensor::zeros_on(&shape, g.dtype(), g.device());
            Ok(vec![Some(scatter_add(&zeros, dim as i64, &s[0], g)?)])
        },
        Jvp::linear(move |t| gather(t, dim as i64, &index_t)),
    );
    describe(
        &out,
        &["index", "self"],
        vec![
            ("dim", Value::Int(given)),
            ("sparse_grad", Value::Bool(false)),
        ],
    );
    Ok(out)
}

/// Out-of-place scatter: `x` with `src` written (or added) at `index` along `dim`.
fn scatter_data(
    x: &Tensor,
    dim: usize,
    index: &Tensor,
    src: &Operand,
    accumulate: bool,
) -> Result<Tensor> {
    let idx = check_index(index, "scatter")?;
    check_gather_shapes(x, index, dim, "scatter")?;
    let ishape = index.shape();
    let dtype = x.dtype();
    if let Operand::Tensor(s) = src {
        if s.dtype() != dtype {
            return Err(Error::Runtime(
                "scatter(): Expected self.dtype to be equal to src.dtype".into(),
            ));
        }
        let ss = s.shape();
        let (sd, id) = (ss.len(), ishape.len());
        // (A 0-dim index or src counts as any shape.)
        if sd != id && id > 0 && sd > 0 {
            // PyTorch reads src's size along each of index's dims first.
            if sd < id {
                return Err(Error::Index(format!(
                    "Dimension out of range (expected to be in range of [-{sd}, {}], but got {sd})",
                    sd - 1
                )));
            }
            return Err(Error::Runtime(
                "Index tensor must have the same number of dimensions as src tensor".into(),
            ));
        }
        for dd in 0..ishape.len() {
            if ishape[dd] > ss.get(dd).copied().unwrap_or(1) {
                return Err(Error::Runtime(format!(
                    "Expected index {} to be no larger than src {} apart from dimension {dim}",
                    crate::tensor::shape::list_repr(&ishape),
                    crate::tensor::shape::list_repr(&ss)
                )));
            }
        }
    }
    let out = contiguous_clone(x);
    kernels::scatter(&out, dim, index, Some(&idx), None, src, accumulate)?;
    Ok(out)
}

/// `x.scatter(dim, index, src)`: ScatterBackward0 (tensor src) / ScatterBackward1 (number).
pub fn scatter(x: &Tensor, dim: i64, index: &Tensor, src: Operand) -> Result<Tensor> {
    let method = if src.as_tensor().is_some() {
        "scatter_src"
    } else {
        "scatter_value"
    };
    check_args(
        method,
        &[
            ("self", Some(x)),
            ("index", Some(index)),
            ("src", src.as_tensor()),
        ],
    )?;
    let given = dim;
    let dim = wrap_dim(dim, x.dim())?;
    let out = scatter_data(x, dim, index, &src, false)?;
    let src_t = src.as_tensor().cloned();
    let mut inputs = vec![x];
    inputs.extend(src_t.as_ref());
    if !needs_grad(&inputs) {
        return Ok(out);
    }
    let saved = vec![SavedTensor::input(index)?];
    let has_src = src_t.is_some();
    let src_shape = src_t.as_ref().map(|t| t.shape()).unwrap_or_default();
    let name = if has_src {
        "ScatterBackward0"
    } else {
        "ScatterBackward1"
    };
    let (index_t, shapes) = (index.clone(), inputs.iter().map(|t| t.shape()).collect());
    let out = record_formula_jvp(
        out,
        &inputs,
        name,
        saved,
        move |g, s| {
            let (d, index) = (dim as i64, &s[0]);
            let zero = Operand::Scalar(Scalar::Int(0));
            let mut grads = vec![Some(scatter(g, d, index, zero)?)];
            if has_src {
                grads.push(Some(pad_to(&gather(g, d, index)?, &src_shape)?));
            }
            Ok(grads)
        },
        Jvp::linear_n(shapes, move |t| {
            scatter(
                &t[0],
                dim as i64,
                &index_t,
                t.get(1).map_or(Operand::Scalar(Scalar::Int(0)), |s| {
                    Operand::Tensor(s.clone())
                }),
            )
        }),
    );
    describe(&out, &["index"], vec![("dim", Value::Int(given))]);
    Ok(out)
}

/// `x.scatter_add(dim, index, src)`: ScatterAddBackward0.
pub fn scatter_add(x: &Tensor, dim: i64, index: &Tensor, src: &Tensor) -> Result<Tensor> {
    check_args(
        "scatter_add",
        &[
            ("self", Some(x)),
            ("index", Some(index)),
            ("src", Some(src)),
        ],
    )?;
    let given = dim;
    let dim = wrap_dim(dim, x.dim())?;
    let out = scatter_data(x, dim, index, &Operand::Tensor(src.clone()), true)?;
    if !needs_grad(&[x, src]) {
        return Ok(out);
    }
    let src_shape = src.shape();
    // The index is kept only for src's gradient (self's is the incoming one), as PyTorch.
    let src_saved = src.requires_grad();
    let saved = if src_saved {
        vec![SavedTensor::input(index)?]
    } else {
        Vec::new()
    };
    let (index_t, shapes) = (index.clone(), vec![x.shape(), src.shape()]);
    let out = record_formula_jvp(
        out,
        &[x, src],
        "ScatterAddBackward0",
        saved,
        move |g, s| {
            let Some(index) = s.first() else {
                return Ok(vec![Some(g.clone()), None]);
            };
            Ok(vec![
                Some(g.clone()),
                Some(pad_to(&gather(g, dim as i64, index)?, &src_shape)?),
            ])
        },
        Jvp::linear_n(shapes, move |t| {
            scatter_add(&t[0], dim as i64, &index_t, &t[1])
        }),
    );
    let mut values = vec![("dim", Value::Int(given))];
    if !src_saved {
        values.push(("index", Value::Unsaved));
    }
    describe(&out, &["index"], values);
    Ok(out)
}

/// `t` zero-padded at the end of each dim up to `shape` (a src larger than its index gets
/// zero gradient outside the index's extent).
fn pad_to(t: &Tensor, shape: &[usize]) -> Result<Tensor> {
    let mut cur = t.clone();
    for (d, &want) in shape.iter().enumerate() {
        let have = cur.shape()[d];
        if have < want {
            let mut zshape = cur.shape().to_vec();
            zshape[d] = want - have;
            let zeros = Tensor::zeros_on(&zshape, cur.dtype(), cur.device());
            cur = crate::ops::shape::cat(&[cur, zeros], d as i64)?;
        }
    }
    Ok(cur)
}

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

fn check_mask(mask: &Tensor, op: &str) -> Result<()> {
    if mask.dtype() != DType::Bool {
        return Err(Error::Runtime(format!(
            "{op} only supports boolean masks, but got mask with dtype {}",
            crate::dtype::cpp_name(mask.dtype())
        )));
    }
    Ok(())
}

/// `x.masked_fill(mask, value)`: MaskedFillBackward0 (number) / MaskedFillBackward1 (0-dim
/// tensor value, which also gets a gradient).
pub fn masked_fill(x: &Tensor, mask: &Tensor, value: Operand) -> Result<Tensor> {
    check_mask(mask, "masked_fill_")?;
    if let Operand::Scalar(s) = value {
        crate::dtype::check_fits(s, x.dtype(), crate::dtype::cpp_name(x.dtype()))?;
    }
    if let Operand::Tensor(v) = &value {
        if v.dim() != 0 {
            return Err(Error::Runtime(format!(
                "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {} dimension(s).",
                v.dim()
            )));
        }
    }
    // The result takes the broadcast shape of mask and x (PyTorch names the mask `a`); the
    // in-place form refuses a result larger than x (`inplace::apply_`).
    broadcast_shapes(&mask.shape(), &x.shape())?;
    let v = match &value {
        Operand::Tensor(t) => Operand::Tensor(cast_data(t, x.dtype())),
        Operand::Scalar(s) => Operand::Tensor(Tensor::scalar(*s, x.dtype())),
    };
    let out = {
        let _g = crate::autograd::GradModeGuard::new(false);
        where_(mask, v, Operand::Tensor(x.clone()))?
    };
    let vt = value.as_tensor().cloned();
    let mut inputs = vec![x];
    inputs.extend(vt.as_ref());
    if !needs_grad(&inputs) {
        return Ok(out);
    }
    let has_v = vt.is_some();
    let name = if has_v {
        "MaskedFillBackward1"
    } else {
        "MaskedFillBackward0"
    };
    let saved = vec![SavedTensor::input(mask)?];
    let (mask_t, shapes) = (mask.clone(), inputs.iter().map(|t| t.shape()).collect());
    let out = record_formula_jvp(
        out,
        &inputs,
        name,
        saved,
        move |g, s| {
            let mask = &s[0];
            let zero = || Operand::Scalar(Scalar::Int(0));
            let mut grads = vec![Some(where_(mask, zero(), Operand::Tensor(g.clone()))?)];
            if has_v {
                grads.push(Some(sum(
                    &where_(mask, Operand::Tensor(g.clone()), zero())?,
                    None,
                    false,
                )?));
            }
            Ok(grads)
        },
        Jvp::linear_n(shapes, move |t| {
            masked_fill(
                &t[0],
                &mask_t,
                t.get(1).map_or(Operand::Scalar(Scalar::Int(0)), |s| {
                    Operand::Tensor(s.clone())
                }),
            )
        }),
    );
    describe(&out, &["mask"], Vec::new());
    Ok(out)
}

/// `x.masked_select(mask)`: the selected elements (x and mask broadcast), as a 1-D tensor.
pub fn masked_select(x: &Tensor, mask: &Tensor) -> Result<Tensor> {
    if mask.dtype() != DType::Bool {
        return Err(Error::Runtime(
            "masked_select: expected BoolTensor for mask".into(),
        ));
    }
    // PyTorch broadcasts (mask, self): its errors name the mask's size first.
    let shape = broadcast_shapes(&mask.shape(), &x.shape())?;
    let sizes = sizes_i64(&shape);
    let (xb, mb) = {
        let _g = crate::autograd::GradModeGuard::new(false);
        (
            contiguous_clone(&expand(x, &sizes)?),
            contiguous_clone(&expand(mask, &sizes)?),
        )
    };
    let flat = reshape(&xb, &[-1])?;
    let (pos, out) = kernels::masked_select(&flat, &reshape(&mb, &[-1])?)?;
    if !needs_grad(&[x]) {
        return Ok(out);
    }
    let xs = x.shape();
    // PyTorch keeps the mask and `self`; this formula reads the selected positions instead.
    let saved = vec![SavedTensor::input(mask)?, SavedTensor::input(x)?];
    let mask_t = mask.clone();
    let out = record_formula_jvp(
        out,
        &[x],
        "MaskedSelectBackward0",
        saved,
        move |g, _| {
            let zeros = Tensor::zeros_on(&[shape.iter().product()], g.dtype(), g.device());
            let full = reshape(
                &scatter(&zeros, 0, &pos, Operand::Tensor(g.clone()))?,
                &sizes,
            )?;
            Ok(vec![Some(sum_to(&full, &xs)?)])
        },
        Jvp::linear(move |t| masked_select(t, &mask_t)),
    );
    describe(&out, &["mask", "self"], Vec::new());
    Ok(out)
}

/// `x.nonzero()`: int64 `[n, ndim]` coordinates of the non-zero elements, row-major.
pub fn nonzero(x: &Tensor) -> Tensor {
    kernels::nonzero(x)
}

/// `take_along_dim(x, indices, dim)`: gather after broadcasting all but `dim`; without a dim,
/// indices into the flattened tensor.
pub fn take_along_dim(x: &Tensor, indices: &Tensor, dim: Option<i64>) -> Result<Tensor> {
    let Some(dim) = dim else {
        return gather(&reshape(x, &[-1])?, 0, &reshape(indices, &[-1])?);
    };
    let nd = x.dim();
    if indices.dim() != nd {
        return Err(Error::Runtime(format!(
            "torch.take_along_dim(): input and indices should have the same number of dimensions, but got {nd} dimensions for input, and {} dimensions for indices",
            indices.dim()
        ).replace("torch.", "gradrs.")));
    }
    if indices.dtype() != DType::I64 {
        return Err(Error::Runtime(format!(
            "gradrs.take_along_dim(): dtype of indices should be Long but got {}",
            crate::dtype::pretty_kernel_name(indices.dtype())
        )));
    }
    let d = wrap_dim(dim, nd)?;
    let (mut xs, mut is) = (x.shape().to_vec(), indices.shape().to_vec());
    xs[d] = 1;
    is[d] = 1;
    let b = broadcast_shapes(&xs, &is)?;
    let (mut xt, mut it) = (sizes_i64(&b), sizes_i64(&b));
    xt[d] = x.shape()[d] as i64;
    it[d] = indices.shape()[d] as i64;
    gather(&expand(x, &xt)?, d as i64, &expand(indices, &it)?)
}

/// Advanced indexing `x[..., idx_a, idx_b, ...]`: integer index tensors (broadcast together)
/// at the given dims. As NumPy/PyTorch: when the indexed dims are adjacent the result's index
/// dims replace them in place, otherwise they go first. IndexBackward0 adds the gradient back.
pub fn index(x: &Tensor, indices: &[(usize, Tensor)]) -> Result<Tensor> {
    let xs = x.shape();
    let nd = xs.len();
    let mut bshape = crate::tensor::shape::Shape::new();
    for (_, t) in indices {
        if !is_index_dtype(t.dtype()) {
            return Err(Error::Index(
                "tensors used as indices must be long, int, byte or bool tensors".into(),
            ));
        }
        bshape = broadcast_shapes(&bshape, &t.shape()).map_err(|_| {
            Error::Index(format!(
                "shape mismatch: indexing tensors could not be broadcast together with shapes {}",
                indices
                    .iter()
                    .map(|(_, t)| crate::tensor::shape::list_repr(&t.shape()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?;
    }
    let dims: Vec<usize> = indices.iter().map(|(d, _)| *d).collect();
    let adjacent = dims.windows(2).all(|w| w[1] == w[0] + 1);
    let rest: Vec<usize> = (0..nd).filter(|d| !dims.contains(d)).collect();
    // Linear index into the indexed dims, row-major.
    let bsizes = sizes_i64(&bshape);
    let nb: usize = bshape.iter().product();
    let mut linear = vec![0i64; nb];
    for (d, t) in indices {
        let size = xs[*d];
        let v = index_values(&expand(&t.detach(), &bsizes)?);
        for (l, &i) in linear.iter_mut().zip(&v) {
            let w = if i < 0 { i + size as i64 } else { i };
            if w < 0 || w >= size as i64 {
                return Err(Error::Index(format!(
                    "index {i} is out of bounds for dimension {d} with size {size}"
                )));
            }
            *l = *l * size as i64 + w;
        }
    }
    let linear = Tensor::from_vec_on(linear, &[nb], x.device());
    let perm: Vec<i64> = dims.iter().chain(rest.iter()).map(|&d| d as i64).collect();
    let adv: i64 = dims.iter().map(|&d| xs[d] as i64).product();
    let rest_sizes: Vec<i64> = rest.iter().map(|&d| xs[d] as i64).collect();
    let mut flat_shape = vec![adv];
    flat_shape.extend(&rest_sizes);
    let mut out_shape = bsizes.clone();
    out_shape.extend(&rest_sizes);
    // Where the broadcast index dims end up.
    let first = if adjacent { dims[0] } else { 0 };
    let nbd = bshape.len();
    let to_front = |t: &Tensor| -> Result<Tensor> {
        if first == 0 {
            return Ok(t.clone());
        }
        // [B.., rest..] <-> [rest[..first], B.., rest[first..]]
        let total = nbd + rest.len();
        let mut order: Vec<i64> = Vec::with_capacity(total);
        order.extend((nbd..nbd + first).map(|i| i as i64));
        order.extend((0..nbd).map(|i| i as i64));
        order.extend((nbd + first..total).map(|i| i as i64));
        crate::ops::movement::permute(t, &order)
    };
    let out = {
        let _g = crate::autograd::GradModeGuard::new(false);
        let xp = reshape(
            &contiguous_clone(&crate::ops::movement::permute(x, &perm)?),
            &flat_shape,
        )?;
        let picked = reshape(&index_select(&xp, 0, &linear)?, &out_shape)?;
        contiguous_clone(&to_front(&picked)?)
    };
    if !needs_grad(&[x]) {
        return Ok(out);
    }
    let mut inv_perm = vec![0i64; nd];
    for (i, &p) in perm.iter().enumerate() {
        inv_perm[p as usize] = i as i64;
    }
    let permuted_shape: Vec<i64> = perm.iter().map(|&d| xs[d as usize] as i64).collect();
    let dtype_shape = xs.clone();
    let idx_t = indices.to_vec();
    Ok(record_formula_jvp(
        out,
        &[x],
        "IndexBackward0",
        vec![],
        move |g, _| {
            let gb = to_front_inverse(g, first, nbd, rest.len())?;
            let mut gflat_shape = vec![nb as i64];
            gflat_shape.extend(&rest_sizes);
            let gflat = reshape(&gb, &gflat_shape)?;
            let zeros = Tensor::zeros_on(
                &flat_shape.iter().map(|&s| s as usize).collect::<Vec<_>>(),
                g.dtype(),
                g.device(),
            );
            let acc = index_add(&zeros, 0, &linear, &gflat, Scalar::Int(1))?;
            let back = reshape(&acc, &permuted_shape)?;
            let gi = crate::ops::movement::permute(&back, &inv_perm)?;
            debug_assert_eq!(gi.shape(), dtype_shape);
            Ok(vec![Some(gi)])
        },
        Jvp::linear(move |t| index(t, &idx_t)),
    ))
}

/// Move the broadcast index dims from position `first` back to the front.
fn to_front_inverse(g: &Tensor, first: usize, nbd: usize, nrest: usize) -> Result<Tensor> {
    if first == 0 {
        return Ok(g.clone());
    }
    let total = nbd + nrest;
    let mut order: Vec<i64> = Vec::with_capacity(total);
    order.extend((first..first + nbd).map(|i| i as i64));
    order.extend((0..first).map(|i| i as i64));
    order.extend((first + nbd..total).map(|i| i as i64));
    crate::ops::movement::permute(g, &order)
}

/// One entry of a `__getitem__`/`__setitem__` key, Ellipsis already expanded.
#[derive(Clone, Debug)]
pub enum IndexStep {
    Select(i64),
    Slice(Option<i64>, Option<i64>, i64),
    NewAxis,
    /// A dim kept whole (`...` or `:` in a tuple key): no view op.
    Whole,
    /// An int64 index tensor (a bool mask arrives as one of these per masked dim).
    Tensor(Tensor),
    /// A 0-dim bool (`x[True]`, `x[False]`, a 0-dim mask): as PyTorch's `boolToIndexingTensor`,
    /// a new axis of size 1 indexed by `[0]` (true) or `[]` (false), an advanced index.
    Bool(bool),
}

impl IndexStep {
    /// Whether the step is an advanced (tensor) index: the key then copies, not views.
    pub fn is_advanced(&self) -> bool {
        matches!(self, IndexStep::Tensor(_) | IndexStep::Bool(_))
    }
}

/// PyTorch's check on `x[key]` and `x[key] = v`: index tensors on the CPU or on `x`'s device.
pub fn check_index_devices(x: &Tensor, steps: &[IndexStep]) -> Result<()> {
    let dev = x.device();
    let ok = |t: &Tensor| t.device() == Device::Cpu || t.device() == dev;
    if steps
        .iter()
        .all(|s| !matches!(s, IndexStep::Tensor(t) if !ok(t)))
    {
        return Ok(());
    }
    Err(Error::Index(format!(
        "indices should be either on cpu or on the same device as the indexed tensor ({})",
        dev.name()
    )))
}

/// `x[key]`: basic steps become views (select/slice/unsqueeze), tensor steps one advanced index.
pub fn getitem(x: &Tensor, steps: &[IndexStep]) -> Result<Tensor> {
    let (cur, adv) = basic_view(x, steps)?;
    if adv.is_empty() {
        // `x[...]` / `x[:]` still return a new view object, as in PyTorch.
        if cur.ptr_eq(x) {
            return crate::ops::movement::view_as_alias(x);
        }
        return Ok(cur);
    }
    index(&cur, &adv)
}

/// The basic steps of a key applied as views (x itself when there are none), and the tensor
/// steps with the dims of that view they index.
pub fn basic_view(x: &Tensor, steps: &[IndexStep]) -> Result<(Tensor, Vec<(usize, Tensor)>)> {
    let mut cur = x.clone();
    let mut dim = 0usize;
    let mut adv: Vec<(usize, Tensor)> = Vec::new();
    for s in steps {
        match s {
            IndexStep::Select(i) => {
                cur = crate::ops::slicing::select(&cur, dim as i64, *i)?;
            }
            IndexStep::Slice(a, b, st) => {
                cur = crate::ops::slicing::slice(&cur, dim as i64, *a, *b, *st)?;
                dim += 1;
            }
            IndexStep::NewAxis => {
                cur = crate::ops::movement::unsqueeze(&cur, dim as i64)?;
                dim += 1;
            }
            IndexStep::Whole => dim += 1,
            IndexStep::Tensor(t) => {
                adv.push((dim, t.clone()));
                dim += 1;
            }
            IndexStep::Bool(b) => {
                cur = crate::ops::movement::unsqueeze(&cur, dim as i64)?;
                let at: Vec<i64> = if *b { vec![0] } else { Vec::new() };
                let n = at.len();
                adv.push((dim, Tensor::from_vec(at, &[n])));
                dim += 1;
            }
        }
    }
    Ok((cur, adv))
}

/// `x[key] = value` with autograd, as PyTorch runs it: the basic steps make a view, and the
/// write goes into that view (copy, or index_put_ for tensor steps) — so a write through a
/// view rebases x's history (CopySlices), a write into x itself is CopyBackwards /
/// IndexPutBackward0.
pub fn setitem_(x: &Tensor, steps: &[IndexStep], value: Operand) -> Result<()> {
    let (view, adv) = basic_view(x, steps)?;
    let rest: Vec<IndexStep> = (0..view.dim())
        .map(|d| match adv.iter().find(|(ad, _)| *ad == d) {
            Some((_, t)) => IndexStep::Tensor(t.clone()),
            None => IndexStep::Whole,
        })
        .collect();
    let others = value.as_tensor().is_some_and(|t| t.requires_grad());
    crate::ops::inplace::apply_(&view, others, |v| setitem(v, &rest, value))
}

/// Storage offsets of `x`'s elements, as an int64 tensor of its shape.
fn offsets_of(x: &Tensor) -> Tensor {
    Tensor::from_vec(kernels::offsets(x), &x.shape())
}

/// Write `value` (broadcast) into `x[key]` in `x`'s memory, without autograd.
pub fn setitem_data(x: &Tensor, steps: &[IndexStep], value: &Operand) -> Result<()> {
    x.check_inplace_version()?;
    let _g = crate::autograd::GradModeGuard::new(false);
    let advanced = steps.iter().any(IndexStep::is_advanced);
    if kernels::host_reads_back(x) && !advanced {
        // Basic indexing selects a view: the GPU copies the value into it (the offsets would
        // be written from the host).
        let view = getitem(x, steps)?;
        let v = match value {
            Operand::Scalar(s) => Tensor::scalar(*s, x.dtype()),
            Operand::Tensor(t) => t.clone(),
        };
        let vs = v.shape();
        let stripped: Vec<usize> = vs.iter().copied().skip_while(|&s| s == 1).collect();
        let vv = reshape(&v, &sizes_i64(&stripped))?;
        return crate::ops::inplace::write_into(&view, &expand(&vv, &sizes_i64(&view.shape()))?);
    }
    let offs = getitem(&offsets_of(x), steps)?;
    let shape = offs.shape();
    let v = match value {
        Operand::Scalar(s) => Tensor::scalar(*s, x.dtype()),
        Operand::Tensor(t) => cast_data(t, x.dtype()),
    };
    // As PyTorch: the value's leading size-1 dims are dropped, then it is expanded to the
    // indexed region (basic indexing: a copy into the view, with expand's errors; advanced
    // indexing: index_put_, which reports the shapes).
    let vs = v.shape();
    let stripped: Vec<usize> = vs.iter().copied().skip_while(|&s| s == 1).collect();
    if advanced
        && (stripped.len() > shape.len()
            || broadcast_shapes(&stripped, &shape).ok().as_deref() != Some(&shape[..]))
    {
        return Err(Error::Runtime(format!(
            "shape mismatch: value tensor of shape {} cannot be broadcast to indexing result of shape {}",
            crate::tensor::shape::list_repr(&stripped),
            crate::tensor::shape::list_repr(&shape)
        )));
    }
    let offs = offs.to_vec::<i64>();
    let expanded = expand(&reshape(&v, &sizes_i64(&stripped))?, &sizes_i64(&shape))?;
    kernels::put(x, &offs, &shape, &expanded)?;
    x.bump_version();
    Ok(())
}

/// `x[key] = value` out of place, differentiable (CopySlices): the gradient of `x` is zero in
/// the written region; `value` gets the gradient of that region, summed to its shape.
pub fn setitem(x: &Tensor, steps: &[IndexStep], value: Operand) -> Result<Tensor> {
    let out = contiguous_clone(x);
    setitem_data(&out, steps, &value)?;
    let vt = value.as_tensor().cloned();
    let mut inputs = vec![x];
    inputs.extend(vt.as_ref());
    if !needs_grad(&inputs) {
        return Ok(out);
    }
    let steps = steps.to_vec();
    let vshape = vt.as_ref().map(|t| t.shape());
    // A write of the whole tensor is copy_; advanced writes are index_put_ (see setitem_).
    let name = if steps.iter().any(IndexStep::is_advanced) {
        "IndexPutBackward0"
    } else {
        "CopyBackwards"
    };
    let (steps_t, shapes) = (steps.clone(), inputs.iter().map(|t| t.shape()).collect());
    Ok(record_formula_jvp(
        out,
        &inputs,
        name,
        vec![],
        move |g, _| {
            let zero = Operand::Scalar(Scalar::Int(0));
            let mut grads = vec![Some(setitem(g, &steps, zero)?)];
            if let Some(vs) = &vshape {
                let region = getitem(g, &steps)?;
                grads.push(Some(sum_to(&region, vs)?));
            }
            Ok(grads)
        },
        Jvp::linear_n(shapes, move |t| {
            setitem(
                &t[0],
                &steps_t,
                t.get(1).map_or(Operand::Scalar(Scalar::Int(0)), |s| {
                    Operand::Tensor(s.clone())
                }),
            )
        }),
    ))
}
