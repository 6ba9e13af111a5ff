//! Views that pick part of a tensor: select, slice (narrow), split/chunk, unbind. They share
//! storage with their input; the backward writes the gradient into zeros of the input's shape
//! (`view_scatter`), whose own backward takes the same view again.

use crate::autograd::formula::describe;
use crate::autograd::graph::Value;
use crate::autograd::{attach_formula, needs_grad, record_formula, record_formula_jvp, Jvp};
use crate::error::{Error, Result};
use crate::ops::arithmetic::add;
use crate::tensor::shape::{wrap_dim, Shape};
use crate::tensor::{Layout, Tensor};

/// Which part of the input a view shows.
#[derive(Clone, Copy, Debug)]
pub enum Part {
    Select {
        dim: usize,
        index: usize,
    },
    Slice {
        dim: usize,
        start: usize,
        len: usize,
        step: usize,
    },
    /// The diagonal of dims `d1`, `d2` (removed), appended as the last dim.
    Diagonal {
        offset: i64,
        d1: usize,
        d2: usize,
    },
}

impl Part {
    fn layout(self, l: &Layout) -> Layout {
        let mut out = l.clone();
        match self {
            Part::Select { dim, index } => {
                out.offset = (l.offset as isize + index as isize * l.strides[dim]) as usize;
                out.shape.remove(dim);
                out.strides.remove(dim);
            }
            Part::Slice {
                dim,
                start,
                len,
                step,
            } => {
                if len > 0 {
                    out.offset = (l.offset as isize + start as isize * l.strides[dim]) as usize;
                }
                out.shape[dim] = len;
                out.strides[dim] = l.strides[dim] * step as isize;
            }
            Part::Diagonal { offset, d1, d2 } => {
                let (s1, s2) = (l.shape[d1] as i64, l.shape[d2] as i64);
                let len = if offset >= 0 {
                    s1.min(s2 - offset)
                } else {
                    (s1 + offset).min(s2)
                }
                .max(0) as usize;
                if len > 0 {
                    let shift = if offset >= 0 {
                        offset as isize * l.strides[d2]
                    } else {
                        -offset as isize * l.strides[d1]
                    };
                    out.offset = (l.offset as isize + shift) as usize;
                }
                let stride = l.strides[d1] + l.strides[d2];
                let (hi, lo) = if d1 > d2 { (d1, d2) } else { (d2, d1) };
                for d in [hi, lo] {
                    out.shape.remove(d);
                    out.strides.remove(d);
                }
                out.shape.push(len);
                out.strides.push(stride);
            }
        }
        out
    }
}

/// The view `part` of `x`, without autograd.
fn part_data(x: &Tensor, part: Part) -> Tensor {
    let layout = part.layout(&x.read().layout);
    crate::ops::inplace::new_view(x, layout)
}

/// The view `part` of `x` (SelectBackward0 / SliceBackward0).
pub fn take_part(x: &Tensor, part: Part) -> Tensor {
    let out = part_data(x, part);
    if !needs_grad(&[x]) {
        return out;
    }
    let shape = x.shape();
    let name = match part {
        Part::Select { .. } => "SelectBackward0",
        Part::Slice { .. } => "SliceBackward0",
        Part::Diagonal { .. } => "DiagonalBackward0",
    };
    record_formula(out, &[x], name, vec![], move |g, _| {
        Ok(vec![Some(view_scatter(g, &shape, part)?)])
    })
}

/// Zeros of `shape` with `g` written into the region `part` (the backward of a view).
pub fn view_scatter(g: &Tensor, shape: &Shape, part: Part) -> Result<Tensor> {
    let out = Tensor::zeros_on(shape, g.dtype(), g.device());
    crate::ops::inplace::write_into(&part_data(&out, part), g)?;
    if !needs_grad(&[g]) {
        return Ok(out);
    }
    let name = match part {
        Part::Select { .. } => "SelectBackwardBackward0",
        Part::Slice { .. } => "SliceBackwardBackward0",
        Part::Diagonal { .. } => "DiagonalBackwardBackward0",
    };
    let shape_t = shape.clone();
    Ok(record_formula_jvp(
        out,
        &[g],
        name,
        vec![],
        move |gg, _| Ok(vec![Some(take_part(gg, part))]),
        Jvp::linear(move |t| view_scatter(t, &shape_t, part)),
    ))
}

/// `x.select(dim, index)` / `x[index]` along `dim`.
pub fn select(x: &Tensor, dim: i64, index: i64) -> Result<Tensor> {
    let nd = x.dim();
    if nd == 0 {
        return Err(Error::Index(
            "select() cannot be applied to a 0-dim tensor.".into(),
        ));
    }
    let d = wrap_dim(dim, nd)?;
    let size = x.shape()[d] as i64;
    if index < -size || index >= size {
        return Err(Error::Index(format!(
            "index {index} is out of bounds for dimension {d} with size {size}"
        )));
    }
    let given = index;
    let index = if index < 0 { index + size } else { index } as usize;
    let out = take_part(x, Part::Select { dim: d, index });
    describe(
        &out,
        &[],
        vec![
            ("dim", Value::Int(dim)),
            ("index", Value::Int(given)),
            ("self_sym_sizes", self_sizes(x)),
        ],
    );
    Ok(out)
}

/// `_saved_self_sym_sizes`: the input's shape.
fn self_sizes(x: &Tensor) -> Value {
    Value::Ints(crate::tensor::shape::sizes_i64(&x.shape()))
}

/// `x.diagonal(offset, dim1, dim2)`: a view with the diagonal as its last dim.
pub fn diagonal(x: &Tensor, offset: i64, dim1: i64, dim2: i64) -> Result<Tensor> {
    let nd = x.dim();
    let d1 = wrap_dim(dim1, nd)?;
    let d2 = wrap_dim(dim2, nd)?;
    if d1 == d2 {
        return Err(Error::Runtime(format!(
            "diagonal dimensions cannot be identical {dim1}, {dim2}"
        )));
    }
    let out = take_part(x, Part::Diagonal { offset, d1, d2 });
    describe(
        &out,
        &[],
        vec![
            ("dim1", Value::Int(dim1)),
            ("dim2", Value::Int(dim2)),
            ("offset", Value::Int(offset)),
            ("self_sym_sizes", self_sizes(x)),
        ],
    );
    Ok(out)
}

/// `x[start:end:step]` along `dim`, with Python's clamping of out-of-range bounds.
pub fn slice(
    x: &Tensor,
    dim: i64,
    start: Option<i64>,
    end: Option<i64>,
    step: i64,
) -> Result<Tensor> {
    let nd = x.dim();
    if nd == 0 {
        return Err(Error::Index(
            "slice() cannot be applied to a 0-dim tensor.".into(),
        ));
    }
    if step <= 0 {
        return Err(Error::Value("step must be greater than zero".into()));
    }
    let d = wrap_dim(dim, nd)?;
    let size = x.shape()[d] as i64;
    let clamp = |v: i64| {
        let v = if v < 0 { v + size } else { v };
        v.clamp(0, size)
    };
    let s = clamp(start.unwrap_or(0));
    let e = clamp(end.unwrap_or(size)).max(s);
    let len = ((e - s) + step - 1) / step;
    let out = take_part(
        x,
        Part::Slice {
            dim: d,
            start: s as usize,
            len: len as usize,
            step: step as usize,
        },
    );
    // As given: Python's `x[:n]` starts at 0 and `x[n:]` ends at INT64_MAX.
    describe_slice(
        &out,
        x,
        dim,
        start.unwrap_or(0),
        end.unwrap_or(i64::MAX),
        step,
    );
    Ok(out)
}

/// SliceBackward0's `_saved_<name>` values.
fn describe_slice(out: &Tensor, x: &Tensor, dim: i64, start: i64, end: i64, step: i64) {
    describe(
        out,
        &[],
        vec![
            ("dim", Value::Int(dim)),
            ("end", Value::Int(end)),
            ("self_sym_sizes", self_sizes(x)),
            ("start", Value::Int(start)),
            ("step", Value::Int(step)),
        ],
    );
}

/// `x.narrow(dim, start, length)`.
pub fn narrow(x: &Tensor, dim: i64, start: i64, length: i64) -> Result<Tensor> {
    if x.dim() == 0 {
        return Err(Error::Runtime(
            "narrow() cannot be applied to a 0-dim tensor.".into(),
        ));
    }
    let d = wrap_dim(dim, x.dim())?;
    let size = x.shape()[d] as i64;
    if length < 0 {
        return Err(Error::Runtime(
            "narrow(): length must be non-negative.".into(),
        ));
    }
    if start < -size || start > size {
        return Err(Error::Index(format!(
            "start out of range (expected to be in range of [{}, {size}], but got {start})",
            -size
        )));
    }
    let s = if start < 0 { start + size } else { start };
    if s + length > size {
        return Err(Error::Runtime(format!(
            "start ({s}) + length ({length}) exceeds dimension size ({size})."
        )));
    }
    let out = take_part(
        x,
        Part::Slice {
            dim: d,
            start: s as usize,
            len: length as usize,
            step: 1,
        },
    );
    describe_slice(&out, x, dim, s, s + length, 1);
    Ok(out)
}

/// Several views of `x` along `dim` recorded as one multi-output node (SplitBackward0 etc.):
/// the backward stacks the outputs' gradients (zeros for those without one).
fn multi_view(x: &Tensor, parts: Vec<Part>, name: &'static str) -> Vec<Tensor> {
    let outs: Vec<Tensor> = parts
        .iter()
        .map(|&p| crate::ops::inplace::new_multi_view(x, p.layout(&x.read().layout)))
        .collect();
    if needs_grad(&[x]) {
        let shape = x.shape();
        let refs: Vec<&Tensor> = outs.iter().collect();
        attach_formula(&refs, &[x], name, vec![], move |grads, _| {
            let mut total: Option<Tensor> = None;
            for (g, &p) in grads.iter().zip(parts.iter()) {
                if let Some(g) = g {
                    let piece = view_scatter(g, &shape, p)?;
                    total = Some(match total {
                        Some(t) => add(&t, &piece)?,
                        None => piece,
                    });
                }
            }
            Ok(vec![total])
        });
    }
    outs
}

/// `x.split(size, dim)`: pieces of `size` (the last may be smaller).
pub fn split(x: &Tensor, size: i64, dim: i64) -> Result<Vec<Tensor>> {
    if x.dim() == 0 {
        return Err(Error::Runtime(
            "split expects at least a 1-dimensional tensor".into(),
        ));
    }
    let d = wrap_dim(dim, x.dim())?;
    if size < 0 {
        return Err(Error::Runtime(format!(
            "split expects split_size be non-negative, but got split_size={size}"
        )));
    }
    let n = x.shape()[d];
    let size = size as usize;
    if size == 0 && n != 0 {
        return Err(Error::Runtime(format!(
            "split_size can only be 0 if dimension size is 0, but got dimension size of {n}"
        )));
    }
    let count = if size == 0 {
        1
    } else {
        n.div_ceil(size).max(1)
    };
    let parts = (0..count)
        .map(|i| {
            let start = i * size;
            Part::Slice {
                dim: d,
                start,
                len: size.min(n - start),
                step: 1,
            }
        })
        .collect();
    let outs = multi_view(x, parts, "SplitBackward0");
    describe(
        &outs[0],
        &[],
        vec![
            ("dim", Value::Int(dim)),
            ("self_sym_sizes", self_sizes(x)),
            ("split_size", Value::Int(size as i64)),
        ],
    );
    Ok(outs)
}

/// `x.split([sizes], dim)` (SplitWithSizesBackward0).
pub fn split_with_sizes(x: &Tensor, sizes: &[i64], dim: i64) -> Result<Vec<Tensor>> {
    let d = wrap_dim(dim, x.dim().max(1))?;
    let n = x.shape().get(d).copied().unwrap_or(0);
    let total: i64 = sizes.iter().sum();
    if total != n as i64 || sizes.iter().any(|&s| s < 0) {
        return Err(Error::Runtime(format!(
            "split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at dimension {d}), but got split_sizes=[{}]",
            sizes.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", ")
        )));
    }
    let mut start = 0;
    let parts = sizes
        .iter()
        .map(|&s| {
            let p = Part::Slice {
                dim: d,
                start,
                len: s as usize,
                step: 1,
            };
            start += s as usize;
            p
        })
        .collect();
    let outs = multi_view(x, parts, "SplitWithSizesBackward0");
    if let Some(first) = outs.first() {
        describe(
            first,
            &[],
            vec![
                ("dim", Value::Int(dim)),
                ("self_sym_sizes", self_sizes(x)),
                ("split_sizes", Value::Ints(sizes.to_vec())),
            ],
        );
    }
    Ok(outs)
}

/// `x.chunk(chunks, dim)`: as PyTorch, pieces of ceil(n / chunks).
pub fn chunk(x: &Tensor, chunks: i64, dim: i64) -> Result<Vec<Tensor>> {
    if x.dim() == 0 {
        return Err(Error::Runtime(
            "chunk expects at least a 1-dimensional tensor".into(),
        ));
    }
    if chunks <= 0 {
        return Err(Error::Runtime(format!(
            "chunk expects `chunks` to be greater than 0, got: {chunks}"
        )));
    }
    let d = wrap_dim(dim, x.dim())?;
    let n = x.shape()[d] as i64;
    let size = ((n + chunks - 1) / chunks).max(if n == 0 { 0 } else { 1 });
    split(x, size, dim)
}

/// `x.unbind(dim)`: every index along `dim` (UnbindBackward0).
pub fn unbind(x: &Tensor, dim: i64) -> Result<Vec<Tensor>> {
    if x.dim() == 0 {
        return Err(Error::Index(
            "Dimension specified as 0 but tensor has no dimensions".into(),
        ));
    }
    let d = wrap_dim(dim, x.dim())?;
    let parts = (0..x.shape()[d])
        .map(|index| Part::Select { dim: d, index })
        .collect();
    let outs = multi_view(x, parts, "UnbindBackward0");
    if let Some(first) = outs.first() {
        describe(first, &[], vec![("dim", Value::Int(dim))]);
    }
    Ok(outs)
}
