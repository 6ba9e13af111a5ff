//! Sorting along a dim: each line's values in order with the positions they came from (a
//! stable order, NaN last), or a selection of them (`Rows`: topk, kthvalue, median).

use super::backend::run;
use super::copy::contiguous;
use super::swapped;
use crate::backend::cpu::copy::contiguous_cow;
use crate::backend::cpu::sort::sort_rows;
pub use crate::backend::cpu::sort::Rows;
use crate::error::Result;
use crate::tensor::Tensor;

/// The values of `x` sorted along `d` and the positions they came from (int64), both
/// contiguous in x's shape.
pub fn sort(x: &Tensor, d: usize, descending: bool) -> Result<(Tensor, Tensor)> {
    run!(|b| b.sort(x, d, descending))
}

/// `what` of each line of `x` along `d` (values and positions, int64), with
/// `what.width(size)` results along `d`, contiguous; None where x's values live on the GPU,
/// which has no selection kernel (the caller selects from `sort`'s lines, which stay there).
pub fn select(x: &Tensor, d: usize, what: Rows) -> Result<Option<(Tensor, Tensor)>> {
    if x.device().is_gpu() {
        return Ok(None);
    }
    lines(x, d, what).map(Some)
}

/// `select` computed on the host (the host's `sort` too).
pub fn lines(x: &Tensor, d: usize, what: Rows) -> Result<(Tensor, Tensor)> {
    let nd = x.dim();
    // The host works on rows: the dim moves last (copied unless it is last and contiguous)
    // and the results move back.
    let last = nd.max(1) - 1;
    let moved = if nd == 0 {
        x.clone()
    } else {
        swapped(x, d, last)
    };
    let data = moved.read();
    let mut shape = data.layout.shape.clone();
    let len = shape.last().copied().unwrap_or(1);
    if let Some(s) = shape.last_mut() {
        *s = what.width(len);
    }
    let (values, indices) = crate::dispatch!(data.dtype(), T => {
        // A contiguous tensor is read in place.
        let rows = contiguous_cow::<T>(data.storage.slice::<T>(), &data.layout);
        let (v, i) = sort_rows(&rows, len, what);
        (Tensor::from_vec_on(v, &shape, x.device()), Tensor::from_vec_on(i, &shape, x.device()))
    });
    drop(data);
    if nd == 0 || d == last {
        return Ok((values, indices));
    }
    let back = |t: &Tensor| contiguous(&swapped(t, d, last));
    Ok((back(&values), back(&indices)))
}
