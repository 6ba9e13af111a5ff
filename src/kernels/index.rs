//! Indexing along a dim: gather, scatter (and scatter-add), nonzero and masked selection,
//! writes at storage offsets. The index's int64 values come checked by the op (`idx`), or
//! not at all for an index in range by construction (a sort's positions, an argmax's
//! indices), which the GPU then reads without a read-back to check it.

use super::backend::{pick, run};
use super::copy::{contiguous, wide};
use crate::backend::cpu::copy::for_each_offset;
use crate::backend::cpu::index::{gather as gather_slices, scatter as scatter_slices, wrap_index};
use crate::dispatch;
use crate::error::Result;
use crate::tensor::element::Element;
use crate::tensor::{Layout, Operand, Tensor};

/// An index tensor's values (int64 or int32) as int64.
fn values(index: &Tensor) -> Vec<i64> {
    wide(index).to_vec::<i64>()
}

/// A one-dim index of `idx.len()` values read along `dim` of `shape` (index_select's), as the
/// full index of that shape.
fn expanded(idx: &[i64], dim: usize, shape: &[usize]) -> Tensor {
    let inner: usize = shape[dim + 1..].iter().product();
    let n = shape[dim].max(1);
    let total: usize = shape.iter().product();
    let v: Vec<i64> = (0..total).map(|p| idx[(p / inner.max(1)) % n]).collect();
    Tensor::from_vec(v, shape)
}

/// The row length of `l` past dim 0 when those dims are contiguous (a row of dim 0 is then
/// one run of memory; its stride may be anything), else None.
fn row_len(l: &Layout) -> Option<usize> {
    let mut inner = 1usize;
    for d in (1..l.shape.len()).rev() {
        if l.shape[d] != 1 && l.strides[d] != inner as isize {
            return None;
        }
        inner *= l.shape[d];
    }
    Some(inner)
}

/// index_select's gather along dim 0 (`shape`: the result's) as one copy per selected row,
/// where `x`'s rows are runs of memory; None where they are not (the general gather then).
/// The indices are checked in order first (the general kernel's error, for the first bad one).
fn select_rows(x: &Tensor, dim: usize, idx: &[i64], shape: &[usize]) -> Result<Option<Tensor>> {
    let d = x.read();
    if dim != 0 || d.layout.shape.is_empty() {
        return Ok(None);
    }
    let Some(inner) = row_len(&d.layout) else {
        return Ok(None);
    };
    check(idx, d.layout.shape[0], 0)?;
    let (off, rs) = (d.layout.offset as isize, d.layout.strides[0]);
    Ok(Some(dispatch!(d.dtype(), T => {
        let src = d.storage.slice::<T>();
        let mut out = crate::tensor::pool::alloc::<T>(idx.len() * inner);
        for &i in idx {
            let at = (off + i as isize * rs) as usize;
            out.extend_from_slice(&src[at..at + inner]);
        }
        Tensor::from_vec_on(out, shape, d.device())
    })))
}

/// index_add / index_copy's scatter along dim 0 of the contiguous `out` (`shape`: the
/// source's), one row at a time, where the source's rows are runs of memory (or it is a
/// scalar); false where not (the general scatter then). Rows land in the general kernel's
/// order (an index repeated adds its rows first to last), so the sums are the same.
fn scatter_rows(
    out: &Tensor,
    dim: usize,
    idx: &[i64],
    shape: &[usize],
    src: &Operand,
    accumulate: bool,
) -> Result<bool> {
    let oshape = out.shape();
    if dim != 0 || oshape.is_empty() || shape.is_empty() {
        return Ok(false);
    }
    let inner: usize = oshape[1..].iter().product();
    if shape[1..].iter().product::<usize>() != inner {
        return Ok(false);
    }
    let src_data = match src {
        Operand::Tensor(s) => {
            let sd = s.read();
            if sd.layout.shape.as_slice() != shape || row_len(&sd.layout).is_none() {
                return Ok(false);
            }
            Some(sd)
        }
        Operand::Scalar(_) => None,
    };
    check(idx, oshape[0], 0)?;
    let d = out.read();
    dispatch!(out.dtype(), T => {
        let dst = d.storage.slice_mut::<T>();
        let base = d.layout.offset;
        for (j, &i) in idx.iter().enumerate() {
            let at = base + i as usize * inner;
            let row = &mut dst[at..at + inner];
            match (&src_data, src) {
                (Some(sd), _) => {
                    let from = (sd.layout.offset as isize + j as isize * sd.layout.strides[0]) as usize;
                    let sv = &sd.storage.slice::<T>()[from..from + inner];
                    if accumulate {
                        for (o, &v) in row.iter_mut().zip(sv) {
                            *o = Element::add(*o, v);
                        }
                    } else {
                        row.copy_from_slice(sv);
                    }
                }
                (None, Operand::Scalar(s)) => {
                    let v: T = crate::tensor::scalar_as(*s);
                    for o in row.iter_mut() {
                        *o = if accumulate { Element::add(*o, v) } else { v };
                    }
                }
                (None, Operand::Tensor(_)) => {}
            }
        }
    });
    Ok(true)
}

/// Every index value in range of a dim of `size`, checked in order (the host kernel's errors).
pub(super) fn check(idx: &[i64], size: usize, dim: usize) -> Result<()> {
    for &i in idx {
        wrap_index(i, size, dim)?;
    }
    Ok(())
}

/// `t` (0-dim) as a one-element 1-D tensor over the same memory; others unchanged.
pub(super) fn flat1(t: &Tensor) -> Tensor {
    if t.dim() != 0 {
        return t.clone();
    }
    let d = t.data();
    let layout = Layout {
        shape: smallvec::smallvec![1],
        strides: smallvec::smallvec![1],
        offset: d.layout.offset,
    };
    Tensor::from_storage(d.storage, layout)
}

/// `out[c] = x[c with c[dim] = index[c]]` over the index's shape (x has at least one dim).
/// `idx`: the index's values, checked here against `x` before the GPU reads anything (the
/// host kernel's check, in its order); None for an index in range by construction. `along`:
/// the shape of the result when `index` is one-dim and read along `dim` (index_select).
pub fn gather(
    x: &Tensor,
    dim: usize,
    index: &Tensor,
    idx: Option<&[i64]>,
    along: Option<&[usize]>,
) -> Result<Tensor> {
    run!(|b| b.gather(x, dim, index, idx, along))
}

/// The host's `gather`.
pub(super) fn gather_host(
    x: &Tensor,
    dim: usize,
    index: &Tensor,
    idx: Option<&[i64]>,
    along: Option<&[usize]>,
) -> Result<Tensor> {
    if let Some(shape) = along {
        let idx = match idx {
            Some(v) => v.to_vec(),
            None => values(index),
        };
        if let Some(out) = select_rows(x, dim, &idx, shape)? {
            return Ok(out);
        }
        let full = expanded(&idx, dim, shape);
        let fv = full.to_vec::<i64>();
        return gather(x, dim, &full, Some(&fv), None);
    }
    let read;
    let idx = match idx {
        Some(v) => v,
        None => {
            read = values(index);
            &read
        }
    };
    let ishape = index.shape();
    let d = x.read();
    Ok(dispatch!(d.dtype(), T => {
        let v = gather_slices::<T>(d.storage.slice(), &d.layout, dim, idx, &ishape)?;
        Tensor::from_vec_on(v, &ishape, d.device())
    }))
}

/// Writes (or with `accumulate` adds) `src` at `index` along `dim` into `out`, a contiguous
/// tensor nothing else observes (the op's fresh copy). `idx` and `along` as in [`gather`];
/// every index is checked before anything is written. A 0-dim `out` (and its index and
/// source) is written as one element.
pub fn scatter(
    out: &Tensor,
    dim: usize,
    index: &Tensor,
    idx: Option<&[i64]>,
    along: Option<&[usize]>,
    src: &Operand,
    accumulate: bool,
) -> Result<()> {
    run!(|b| b.scatter(out, dim, index, idx, along, src, accumulate))
}

/// The host's `scatter`.
pub(super) fn scatter_host(
    out: &Tensor,
    dim: usize,
    index: &Tensor,
    idx: Option<&[i64]>,
    along: Option<&[usize]>,
    src: &Operand,
    accumulate: bool,
) -> Result<()> {
    if let Some(shape) = along {
        let idx = match idx {
            Some(v) => v.to_vec(),
            None => values(index),
        };
        if scatter_rows(out, dim, &idx, shape, src, accumulate)? {
            return Ok(());
        }
        let full = expanded(&idx, dim, shape);
        let fv = full.to_vec::<i64>();
        return scatter(out, dim, &full, Some(&fv), None, src, accumulate);
    }
    let read;
    let idx = match idx {
        Some(v) => v,
        None => {
            read = values(index);
            &read
        }
    };
    let one = |s: &[usize]| -> Vec<usize> {
        if s.is_empty() {
            vec![1]
        } else {
            s.to_vec()
        }
    };
    let (shape1, ishape1) = (one(&out.shape()), one(&index.shape()));
    let d = out.read();
    dispatch!(out.dtype(), T => {
        let dst = d.storage.slice_mut::<T>();
        match src {
            Operand::Scalar(s) => {
                let v: T = crate::tensor::scalar_as(*s);
                scatter_slices::<T>(dst, &shape1, dim, idx, &ishape1, |_, _| v, accumulate)?;
            }
            Operand::Tensor(s) => {
                let sd = s.read();
                let (sv, sl) = (sd.storage.slice::<T>(), sd.layout.clone());
                let get = |_: usize, c: &[usize]| {
                    let mut o = sl.offset as isize;
                    for (k, &ci) in c.iter().enumerate() {
                        o += ci as isize * sl.strides.get(k).copied().unwrap_or(0);
                    }
                    sv[o as usize]
                };
                scatter_slices::<T>(dst, &shape1, dim, idx, &ishape1, get, accumulate)?;
            }
        }
    });
    Ok(())
}

/// Row-major positions of the true elements of a bool tensor (on the host).
fn true_positions(mask: &Tensor) -> Vec<i64> {
    mask.to_vec::<bool>()
        .iter()
        .enumerate()
        .filter_map(|(i, &m)| m.then_some(i as i64))
        .collect()
}

/// The int64 `[n, ndim]` coordinates of the nonzero elements of `x`, row-major.
pub fn nonzero(x: &Tensor) -> Tensor {
    // A GPU failure here leaves the host path to compute (and report) it.
    pick!(|b| b.nonzero(x))
}

pub(super) fn nonzero_host(x: &Tensor) -> Tensor {
    let shape = x.shape();
    let nz = true_positions(&super::copy::cast(x, crate::dtype::DType::Bool));
    let nd = shape.len();
    let mut out = Vec::with_capacity(nz.len() * nd);
    for &p in &nz {
        let mut rem = p as usize;
        let start = out.len();
        out.resize(start + nd, 0i64);
        for d in (0..nd).rev() {
            out[start + d] = (rem % shape[d]) as i64;
            rem /= shape[d];
        }
    }
    Tensor::from_vec_on(out, &[nz.len(), nd], x.device())
}

/// The positions (int64) of the true elements of the 1-D bool `mask` and the elements of
/// the 1-D `flat` there. A mask whose values are on the GPU is compacted there, and the
/// positions gathered there (in range by construction, so not read back to check).
pub fn masked_select(flat: &Tensor, mask: &Tensor) -> Result<(Tensor, Tensor)> {
    run!(|b| b.masked_select(flat, mask))
}

pub(super) fn masked_select_host(flat: &Tensor, mask: &Tensor) -> Result<(Tensor, Tensor)> {
    let positions = true_positions(mask);
    let n = positions.len();
    let pos = Tensor::from_vec_on(positions.clone(), &[n], flat.device());
    let out = gather(flat, 0, &pos, Some(&positions), None)?;
    Ok((pos, out))
}

/// The storage offsets of `x`'s elements, row-major.
pub fn offsets(x: &Tensor) -> Vec<i64> {
    let d = x.read();
    let mut v = Vec::with_capacity(d.layout.numel());
    for_each_offset(&d.layout, |o| v.push(o as i64));
    v
}

/// Writes `value` (of `shape`, any layout, `x`'s dtype) at `x`'s storage `offsets` (row-major
/// over `shape`), on the GPU when `x`'s values are there. The caller bumps the version.
pub fn put(x: &Tensor, offsets: &[i64], shape: &[usize], value: &Tensor) -> Result<()> {
    run!(|b| b.put(x, offsets, shape, value))
}

pub(super) fn put_host(x: &Tensor, offsets: &[i64], _: &[usize], value: &Tensor) -> Result<()> {
    let flat_v = contiguous(value);
    let d = x.read();
    dispatch!(d.dtype(), T => {
        let dst = d.storage.slice_mut::<T>();
        for (o, val) in offsets.iter().zip(flat_v.to_vec::<T>()) {
            dst[*o as usize] = val;
        }
    });
    Ok(())
}
