//! Strided reads and writes: gather a view into contiguous order, scatter into a view, cast.

use super::elementwise::map_slice;
use crate::tensor::element::Element;
use crate::tensor::layout::Layout;
use crate::tensor::pool;

/// Calls `f(offset)` for each element of `layout` in row-major order.
#[inline]
pub fn for_each_offset(layout: &Layout, mut f: impl FnMut(usize)) {
    let nd = layout.ndim();
    let n = layout.numel();
    if n == 0 {
        return;
    }
    if nd == 0 {
        f(layout.offset);
        return;
    }
    let shape = &layout.shape;
    let strides = &layout.strides;
    let last = nd - 1;
    let (inner, inner_stride) = (shape[last], strides[last]);
    let mut idx = [0usize; 16];
    let mut idx_vec;
    let idx: &mut [usize] = if nd <= 16 {
        &mut idx[..nd]
    } else {
        idx_vec = vec![0usize; nd];
        &mut idx_vec
    };
    let mut base = layout.offset as isize;
    loop {
        let mut off = base;
        for _ in 0..inner {
            f(off as usize);
            off += inner_stride;
        }
        // Advance the odometer over the outer dimensions.
        let mut d = last;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            idx[d] += 1;
            base += strides[d];
            if idx[d] < shape[d] {
                break;
            }
            base -= strides[d] * shape[d] as isize;
            idx[d] = 0;
        }
    }
}

/// The elements of a view in row-major order.
pub fn gather_contiguous<T: Element>(src: &[T], layout: &Layout) -> Vec<T> {
    let n = layout.numel();
    if n == 0 {
        // An empty view's offset may lie past the end of its (empty) storage.
        return Vec::new();
    }
    if layout.is_contiguous() {
        let mut out = pool::alloc(n);
        out.extend_from_slice(&src[layout.offset..layout.offset + n]);
        return out;
    }
    if let Some(out) = gather_transposed(src, layout) {
        return out;
    }
    let mut out = pool::alloc(n);
    let nd = layout.ndim();
    if nd > 0 && layout.strides[nd - 1] == 1 {
        // Contiguous rows: copy each whole.
        let inner = layout.shape[nd - 1];
        let rows = Layout {
            shape: layout.shape[..nd - 1].into(),
            strides: layout.strides[..nd - 1].into(),
            offset: layout.offset,
        };
        for_each_offset(&rows, |o| out.extend_from_slice(&src[o..o + inner]));
        return out;
    }
    for_each_offset(layout, |o| out.push(src[o]));
    out
}

/// Side of the square tiles a transposed copy moves: both the rows read and the rows written
/// stay in cache while a tile is copied.
const TILE: usize = 32;

/// `gather_contiguous` for views whose last two dims are transposed (`x.t()`, `x.transpose(-2,
/// -1)`): copied tile by tile instead of walking one strided column per output row.
fn gather_transposed<T: Element>(src: &[T], layout: &Layout) -> Option<Vec<T>> {
    let nd = layout.ndim();
    if nd < 2 {
        return None;
    }
    let (r, c) = (layout.shape[nd - 2], layout.shape[nd - 1]);
    let (rs, cs) = (layout.strides[nd - 2], layout.strides[nd - 1]);
    if rs != 1 || cs <= 1 || r < 2 || c < 2 {
        return None;
    }
    let n = layout.numel();
    let mut out = pool::alloc::<T>(n);
    let dst = &mut out.spare_capacity_mut()[..n];
    let batches = Layout {
        shape: layout.shape[..nd - 2].into(),
        strides: layout.strides[..nd - 2].into(),
        offset: layout.offset,
    };
    let mut k = 0;
    for_each_offset(&batches, |base| {
        let block = &mut dst[k..k + r * c];
        for i0 in (0..r).step_by(TILE) {
            for j0 in (0..c).step_by(TILE) {
                for i in i0..(i0 + TILE).min(r) {
                    let row = &mut block[i * c..(i + 1) * c];
                    for j in j0..(j0 + TILE).min(c) {
                        row[j].write(src[(base as isize + i as isize + j as isize * cs) as usize]);
                    }
                }
            }
        }
        k += r * c;
    });
    // SAFETY: every (batch, i, j) position was written above.
    unsafe { out.set_len(n) };
    Some(out)
}

/// The elements of a view, borrowed when already contiguous.
pub fn contiguous_cow<'a, T: Element>(src: &'a [T], layout: &Layout) -> std::borrow::Cow<'a, [T]> {
    if layout.numel() == 0 {
        std::borrow::Cow::Borrowed(&[])
    } else if layout.is_contiguous() {
        std::borrow::Cow::Borrowed(&src[layout.offset..layout.offset + layout.numel()])
    } else {
        std::borrow::Cow::Owned(gather_contiguous(src, layout))
    }
}

/// Write `values` (row-major) into the view `layout` of `dst`.
pub fn scatter_into<T: Element>(dst: &mut [T], layout: &Layout, values: &[T]) {
    if layout.numel() == 0 {
        return;
    }
    if layout.is_contiguous() {
        dst[layout.offset..layout.offset + values.len()].copy_from_slice(values);
        return;
    }
    let mut i = 0;
    for_each_offset(layout, |o| {
        dst[o] = values[i];
        i += 1;
    });
}

/// Convert elements between dtypes with PyTorch's casting (float -> int truncates).
pub fn cast<S: Element, D: Element>(src: &[S]) -> Vec<D> {
    use crate::dtype::DType;
    use half::f16;
    match (S::DTYPE, D::DTYPE) {
        // float16 <-> float32, the casts around every float16 op (Note [Narrow dtypes]), by
        // vectorized run conversions.
        (DType::F16, DType::F32) => retype(super::elementwise::convert_slice(
            retype_slice::<S, f16>(src),
            super::f16c::widen,
        )),
        (DType::F32, DType::F16) => retype(super::elementwise::convert_slice(
            retype_slice::<S, f32>(src),
            super::f16c::narrow,
        )),
        (DType::Bool, _) | (_, DType::Bool) => map_slice(src, |v| D::from_bool(v.to_bool())),
        (s, _) if s.is_integral() => map_slice(src, |v| D::from_i64(v.to_i64())),
        _ => map_slice(src, |v| D::from_f64(v.to_f64())),
    }
}

/// `v` as the element type it is (`A` and `B` are one type, checked by their dtypes).
fn retype<A: Element, B: Element>(v: Vec<A>) -> Vec<B> {
    let any: Box<dyn std::any::Any> = Box::new(v);
    *any.downcast::<Vec<B>>().expect("same element type")
}

/// `s` as the element type it is (checked by the dtypes, as in `retype`).
fn retype_slice<A: Element, B: Element>(s: &[A]) -> &[B] {
    assert_eq!(A::DTYPE, B::DTYPE, "same element type");
    // SAFETY: each dtype has exactly one element type, so A and B are the same type.
    unsafe { std::slice::from_raw_parts(s.as_ptr() as *const B, s.len()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vectorized float16 casts round as the element-wise conversion (ties to even,
    /// subnormals, overflow to infinity, NaN), over runs that are not a multiple of the buffer.
    #[test]
    fn half_casts_match_elementwise_conversion() {
        use half::f16;
        let mut v: Vec<f32> = vec![
            0.0,
            -0.0,
            65504.0,
            65519.99,
            65520.0,
            2.980_232_2e-8,
            8.940_697e-8,
            1e-8,
            1.000_488_3,
            1.001_464_8,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            1e-40,
        ];
        v.extend((0..1500).map(|i| ((i as f32) * 0.731).sin() * 10f32.powi(i % 9 - 4)));
        let halves: Vec<f16> = cast(&v);
        for (h, x) in halves.iter().zip(&v) {
            let want = f16::from_f32(*x);
            assert!(
                h.to_bits() == want.to_bits() || (h.is_nan() && want.is_nan()),
                "{x:e}"
            );
        }
        let back: Vec<f32> = cast(&halves);
        for (b, h) in back.iter().zip(&halves) {
            assert!(b.to_bits() == h.to_f32().to_bits() || b.is_nan());
        }
    }

    /// The tiled copy of transposed views gives the same elements as the plain strided walk.
    #[test]
    fn transposed_gather_matches_strided_walk() {
        for (b, r, c) in [(1usize, 32usize, 32usize), (2, 40, 70), (3, 65, 33)] {
            let src: Vec<f32> = (0..b * r * c).map(|i| i as f32).collect();
            // A contiguous [b, c, r] tensor viewed as [b, r, c] (last two dims swapped).
            let layout = Layout {
                shape: [b, r, c].as_slice().into(),
                strides: [(r * c) as isize, 1, r as isize].as_slice().into(),
                offset: 0,
            };
            let mut want = Vec::new();
            for_each_offset(&layout, |o| want.push(src[o]));
            assert_eq!(gather_contiguous(&src, &layout), want);
        }
    }
}
