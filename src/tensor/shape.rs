//! Shapes, strides, broadcasting and dimension wrapping, with PyTorch's error texts.

use crate::error::{Error, Result};
use smallvec::SmallVec;

/// Sizes of a tensor; inline up to 4 dimensions so small tensors allocate nothing for shape.
pub type Shape = SmallVec<[usize; 4]>;
/// Strides in elements; signed so views can step backwards later (flip).
pub type Strides = SmallVec<[isize; 4]>;

/// The element count of `shape`; a count past `usize` raises PyTorch's overflow error (a shape
/// is checked when made, so this only fires for shapes no storage could hold).
pub fn numel(shape: &[usize]) -> usize {
    match checked_numel(shape) {
        Some(n) => n,
        None => crate::error::raise(size_overflow(shape)),
    }
}

/// The element count of `shape`, None when it overflows (a zero anywhere makes it 0).
pub fn checked_numel(shape: &[usize]) -> Option<usize> {
    // The product first: a zero only needs looking for when it overflowed (a zero after the
    // overflow still makes the count 0). Every op asks this, so the common case is one loop.
    match shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d)) {
        Some(n) => Some(n),
        None if shape.contains(&0) => Some(0),
        None => None,
    }
}

/// The bytes a storage of `shape` and `itemsize` takes, or PyTorch's overflow error.
pub fn storage_nbytes(shape: &[usize], itemsize: usize) -> crate::Result<usize> {
    checked_numel(shape)
        .and_then(|n| n.checked_mul(itemsize))
        .ok_or_else(|| size_overflow(shape))
}

fn size_overflow(shape: &[usize]) -> crate::Error {
    crate::Error::Runtime(format!(
        "Storage size calculation overflowed with sizes={shape:?}"
    ))
}

pub fn contiguous_strides(shape: &[usize]) -> Strides {
    let mut acc = 1isize;
    let n = shape.len();
    if n <= 4 {
        // Filled in place, without `from_elem`'s generic fill (a hot path: every new tensor).
        let mut buf = [0isize; 4];
        for i in (0..n).rev() {
            buf[i] = acc;
            acc *= shape[i].max(1) as isize;
        }
        return SmallVec::from_buf_and_len(buf, n);
    }
    let mut strides: Strides = SmallVec::from_elem(0, n);
    for i in (0..n).rev() {
        strides[i] = acc;
        acc *= shape[i].max(1) as isize;
    }
    strides
}

/// `gradrs.Size([2, 3])`, the way PyTorch prints a shape inside error messages.
pub fn size_repr(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("gradrs.Size([{}])", dims.join(", "))
}

/// `[2, 3]`, the way PyTorch prints shapes in many messages.
pub fn list_repr(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("[{}]", dims.join(", "))
}

/// A shape as the signed size list that `view`/`reshape`/`expand` take.
pub fn sizes_i64(shape: &[usize]) -> Vec<i64> {
    shape.iter().map(|&s| s as i64).collect()
}

/// Wrap a possibly negative dimension into `0..ndim` (scalars accept -1 and 0).
pub fn wrap_dim(dim: i64, ndim: usize) -> Result<usize> {
    let n = ndim.max(1) as i64;
    if dim < -n || dim >= n {
        return Err(Error::Index(format!(
            "Dimension out of range (expected to be in range of [{}, {}], but got {})",
            -n,
            n - 1,
            dim
        )));
    }
    Ok(if dim < 0 {
        (dim + n) as usize
    } else {
        dim as usize
    })
}

/// `shape` with `dims` reduced away (kept as size 1 when `keepdim`).
pub fn reduced_shape(shape: &[usize], dims: &[usize], keepdim: bool) -> Shape {
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

/// The broadcast shape of two shapes, or PyTorch's error naming the mismatching dimension.
pub fn broadcast_shapes(a: &[usize], b: &[usize]) -> Result<Shape> {
    let n = a.len().max(b.len());
    let mut out: Shape = SmallVec::from_elem(0, n);
    // From the last dim, so the error names the same dimension PyTorch's does.
    for i in (0..n).rev() {
        let da = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let db = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        out[i] = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return Err(Error::Runtime(format!(
                "The size of tensor a ({da}) must match the size of tensor b ({db}) at non-singleton dimension {i}"
            )));
        };
    }
    Ok(out)
}

/// Strides that read a tensor of `shape`/`strides` as if it had the broadcast shape `to`.
pub fn broadcast_strides(shape: &[usize], strides: &[isize], to: &[usize]) -> Strides {
    let offset = to.len() - shape.len();
    let mut out: Strides = SmallVec::from_elem(0, to.len());
    for i in 0..shape.len() {
        out[offset + i] = if shape[i] == 1 && to[offset + i] != 1 {
            0
        } else {
            strides[i]
        };
    }
    out
}

/// Resolve a `view`/`reshape` size list with at most one `-1`.
pub fn infer_size(sizes: &[i64], numel: usize) -> Result<Shape> {
    let mut out: Shape = SmallVec::with_capacity(sizes.len());
    let mut infer: Option<usize> = None;
    let mut known = 1usize;
    for (i, &s) in sizes.iter().enumerate() {
        if s == -1 {
            if infer.is_some() {
                return Err(Error::Runtime("only one dimension can be inferred".into()));
            }
            infer = Some(i);
            out.push(1);
        } else if s < 0 {
            let parts: Vec<String> = sizes.iter().map(|s| s.to_string()).collect();
            return Err(Error::Runtime(format!(
                "invalid shape dimension {s} at index {i} of shape [{}]",
                parts.join(", ")
            )));
        } else {
            known *= s as usize;
            out.push(s as usize);
        }
    }
    let shape_str = || {
        let parts: Vec<String> = sizes.iter().map(|s| s.to_string()).collect();
        format!("[{}]", parts.join(", "))
    };
    match infer {
        Some(_) if known == 0 && numel == 0 => {
            return Err(Error::Runtime(format!(
                "cannot reshape tensor of 0 elements into shape {} because the unspecified dimension size -1 can be any value and is ambiguous",
                shape_str()
            )));
        }
        Some(i) => {
            if known == 0 || !numel.is_multiple_of(known) {
                return Err(Error::Runtime(format!(
                    "shape '{}' is invalid for input of size {numel}",
                    shape_str()
                )));
            }
            out[i] = numel / known;
        }
        None if known != numel => {
            return Err(Error::Runtime(format!(
                "shape '{}' is invalid for input of size {numel}",
                shape_str()
            )));
        }
        None => {}
    }
    Ok(out)
}

/// Strides for viewing `(shape, strides)` as `new_shape` without copying, if possible
/// (PyTorch's `computeStride`): groups of dims that are contiguous among themselves may be split/merged.
pub fn view_strides(shape: &[usize], strides: &[isize], new_shape: &[usize]) -> Option<Strides> {
    let mut new_strides: Strides = SmallVec::from_elem(0, new_shape.len());
    if numel(shape) == 0 || shape.is_empty() {
        return Some(contiguous_strides(new_shape));
    }
    let mut view_d = new_shape.len() as isize - 1;
    let mut chunk_base_stride = *strides.last().unwrap_or(&1);
    let mut tensor_numel = 1usize;
    let mut view_numel = 1usize;
    for tensor_d in (0..shape.len()).rev() {
        tensor_numel *= shape[tensor_d];
        if tensor_d == 0
            || (shape[tensor_d - 1] != 1
                && strides[tensor_d - 1] != (tensor_numel as isize) * chunk_base_stride)
        {
            while view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d as usize] == 1) {
                new_strides[view_d as usize] = view_numel as isize * chunk_base_stride;
                view_numel *= new_shape[view_d as usize];
                view_d -= 1;
            }
            if view_numel != tensor_numel {
                return None;
            }
            if tensor_d > 0 {
                chunk_base_stride = strides[tensor_d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    if view_d != -1 {
        return None;
    }
    Some(new_strides)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting() {
        assert_eq!(broadcast_shapes(&[3, 1], &[4]).unwrap().as_slice(), &[3, 4]);
        assert!(broadcast_shapes(&[3], &[4]).is_err());
    }

    #[test]
    fn views() {
        assert_eq!(
            view_strides(&[2, 3], &[3, 1], &[6]).unwrap().as_slice(),
            &[1]
        );
        // A transposed matrix cannot be flattened without a copy.
        assert!(view_strides(&[3, 2], &[1, 3], &[6]).is_none());
        assert_eq!(infer_size(&[-1, 2], 6).unwrap().as_slice(), &[3, 2]);
        assert!(infer_size(&[4], 6).is_err());
    }
}
