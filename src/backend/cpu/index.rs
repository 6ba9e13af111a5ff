//! Index kernels: gather/scatter along a dim, index_select/index_add. Indices are checked
//! before any write, so a bad index leaves the output untouched.

use crate::error::{Error, Result};
use crate::tensor::element::Element;
use crate::tensor::layout::Layout;

/// Calls `f(coords, flat)` for each position of `shape` in row-major order.
pub fn for_each_coord(shape: &[usize], mut f: impl FnMut(&[usize], usize)) {
    let n: usize = shape.iter().product();
    let mut c = vec![0usize; shape.len()];
    for flat in 0..n {
        f(&c, flat);
        for d in (0..shape.len()).rev() {
            c[d] += 1;
            if c[d] < shape[d] {
                break;
            }
            c[d] = 0;
        }
    }
}

fn offset(layout: &Layout, coords: &[usize], dim: usize, at: usize) -> usize {
    let mut o = layout.offset as isize;
    for (d, (&c, &s)) in coords.iter().zip(layout.strides.iter()).enumerate() {
        o += if d == dim { at as isize } else { c as isize } * s;
    }
    o as usize
}

/// An index of `0..size`, or PyTorch's out-of-bounds error: gather and scatter do not wrap
/// negative indices (unlike Python indexing, `take` and `index_put_`).
pub fn wrap_index(i: i64, size: usize, dim: usize) -> Result<usize> {
    let w = i;
    if w < 0 || w >= size as i64 {
        return Err(Error::Runtime(format!(
            "index {i} is out of bounds for dimension {dim} with size {size}"
        )));
    }
    Ok(w as usize)
}

/// `out[c] = x[c with c[dim] = index[c]]` over the index's shape.
pub fn gather<T: Element>(
    x: &[T],
    lx: &Layout,
    dim: usize,
    index: &[i64],
    index_shape: &[usize],
) -> Result<Vec<T>> {
    let size = lx.shape[dim];
    let mut out = Vec::with_capacity(index.len());
    let mut err = None;
    for_each_coord(index_shape, |c, flat| {
        if err.is_some() {
            return;
        }
        match wrap_index(index[flat], size, dim) {
            Ok(at) => out.push(x[offset(lx, c, dim, at)]),
            Err(e) => err = Some(e),
        }
    });
    err.map_or(Ok(out), Err)
}

/// `dst[c with c[dim] = index[c]] (+)= src[c]` over the index's shape; `dst` is contiguous.
pub fn scatter<T: Element>(
    dst: &mut [T],
    dst_shape: &[usize],
    dim: usize,
    index: &[i64],
    index_shape: &[usize],
    src: impl Fn(usize, &[usize]) -> T,
    accumulate: bool,
) -> Result<()> {
    let layout = Layout::contiguous(dst_shape);
    let size = dst_shape[dim];
    for &i in index {
        wrap_index(i, size, dim)?;
    }
    for_each_coord(index_shape, |c, flat| {
        let at = wrap_index(index[flat], size, dim).expect("checked");
        let o = offset(&layout, c, dim, at);
        let v = src(flat, c);
        dst[o] = if accumulate { dst[o].add(v) } else { v };
    });
    Ok(())
}
