//! Max pooling with indices on the host: ATen's `cpu_max_pool` and its backward, plane by
//! plane. Host float32 / float64 only: None for a GPU tensor or another dtype, where the op
//! composes the primitives (im2col, max) instead.

use super::nn::Window;
use crate::backend::cpu::copy::contiguous_cow;
use crate::backend::cpu::parallel::{map_chunks_by, Parts};
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::{pool, Tensor};

/// The maxima and their flat indices (within each `h × w` plane, int64) of every window of a
/// `[*, h, w]` tensor, as `[*, oh, ow]` tensors (`out` the output size, which the caller
/// computed with ceil mode or not). ATen's order: a window's taps row by row from its first
/// one inside the input, the maximum replaced by a greater value or by NaN (so the last NaN
/// wins), starting at -inf with the first tap's index (an all -inf window points there).
pub fn max_pool2d(x: &Tensor, win: Window, out: [usize; 2]) -> Result<Option<(Tensor, Tensor)>> {
    if x.device().is_gpu() || !matches!(x.dtype(), DType::F32 | DType::F64) || x.dim() < 2 {
        return Ok(None);
    }
    let s = x.shape();
    let nd = s.len();
    let (h, w) = (s[nd - 2], s[nd - 1]);
    let planes: usize = s[..nd - 2].iter().product();
    let [oh, ow] = out;
    let l = oh * ow;
    let mut out_shape = s.clone();
    out_shape[nd - 2] = oh;
    out_shape[nd - 1] = ow;
    let [kh, kw] = win.kernel;
    let [sh, sw] = win.stride;
    let [ph, pw] = win.padding;
    let [dh, dw] = win.dilation;
    let xd = x.read();
    macro_rules! run {
        ($T:ty) => {{
            let src = contiguous_cow::<$T>(xd.storage.slice::<$T>(), &xd.layout);
            let mut vals = pool::alloc::<$T>(planes * l);
            vals.resize(planes * l, 0.0);
            let mut idx = pool::alloc::<i64>(planes * l);
            idx.resize(planes * l, 0);
            let (vp, ip) = (Parts::new(&mut vals), Parts::new(&mut idx));
            map_chunks_by(planes, l * kh * kw, |r| {
                // SAFETY: the plane ranges `map_chunks_by` hands out are disjoint.
                let (vs, is) = unsafe {
                    (
                        vp.get(r.start * l..r.end * l),
                        ip.get(r.start * l..r.end * l),
                    )
                };
                for (k, p) in r.enumerate() {
                    let plane = &src[p * h * w..(p + 1) * h * w];
                    let (vs, is) = (&mut vs[k * l..(k + 1) * l], &mut is[k * l..(k + 1) * l]);
                    for oy in 0..oh {
                        let mut y0 = (oy * sh) as isize - ph as isize;
                        let y1 = (y0 + ((kh - 1) * dh + 1) as isize).min(h as isize);
                        while y0 < 0 {
                            y0 += dh as isize;
                        }
                        for ox in 0..ow {
                            let mut x0 = (ox * sw) as isize - pw as isize;
                            let x1 = (x0 + ((kw - 1) * dw + 1) as isize).min(w as isize);
                            while x0 < 0 {
                                x0 += dw as isize;
                            }
                            let mut best = y0 * w as isize + x0;
                            let mut m = <$T>::NEG_INFINITY;
                            let mut iy = y0;
                            while iy < y1 {
                                let mut ix = x0;
                                while ix < x1 {
                                    let at = iy * w as isize + ix;
                                    let v = plane[at as usize];
                                    // Both tests evaluated (no branch between them), so
                                    // the selection compiles to conditional moves.
                                    let take = (v > m) | v.is_nan();
                                    m = if take { v } else { m };
                                    best = if take { at } else { best };
                                    ix += dw as isize;
                                }
                                iy += dh as isize;
                            }
                            vs[oy * ow + ox] = m;
                            is[oy * ow + ox] = best as i64;
                        }
                    }
                }
            });
            (
                Tensor::from_vec_on(vals, &out_shape, x.device()),
                Tensor::from_vec_on(idx, &out_shape, x.device()),
            )
        }};
    }
    Ok(Some(match x.dtype() {
        DType::F32 => run!(f32),
        _ => run!(f64),
    }))
}

/// The input gradient of `max_pool2d`: each plane's output gradients summed at their indices
/// into a zero `[*, h, w]` plane (`x_shape`), in output order (ATen's
/// `cpu_max_pool_backward`). None where `max_pool2d` has no host kernel.
pub fn max_pool2d_backward(
    grad: &Tensor,
    idx: &Tensor,
    x_shape: &[usize],
) -> Result<Option<Tensor>> {
    if grad.device().is_gpu() || !matches!(grad.dtype(), DType::F32 | DType::F64) {
        return Ok(None);
    }
    let nd = x_shape.len();
    let hw = x_shape[nd - 2] * x_shape[nd - 1];
    let planes: usize = x_shape[..nd - 2].iter().product();
    let l = idx.numel().checked_div(planes).unwrap_or(0);
    let (gd, id) = (grad.read(), idx.read());
    let is = contiguous_cow::<i64>(id.storage.slice::<i64>(), &id.layout);
    macro_rules! run {
        ($T:ty) => {{
            let gs = contiguous_cow::<$T>(gd.storage.slice::<$T>(), &gd.layout);
            let mut out = pool::alloc::<$T>(planes * hw);
            out.resize(planes * hw, 0.0);
            crate::backend::cpu::parallel::for_rows_mut(&mut out, hw, |p, plane| {
                let (g, i) = (&gs[p * l..(p + 1) * l], &is[p * l..(p + 1) * l]);
                for (&v, &at) in g.iter().zip(i) {
                    // Indices come from `max_pool2d` on this geometry: inside the plane.
                    if let Some(t) = plane.get_mut(at as usize) {
                        *t += v;
                    }
                }
            });
            Tensor::from_vec_on(out, x_shape, grad.device())
        }};
    }
    Ok(Some(match grad.dtype() {
        DType::F32 => run!(f32),
        _ => run!(f64),
    }))
}
