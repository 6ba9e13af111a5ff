//! Neural-network primitives: softmax / log-softmax along a dim and the im2col pair
//! (unfold / fold) that convolution and pooling are built from.

use super::backend::run;
use super::copy::{contiguous, narrow, wide};
use super::swapped;
use crate::backend::cpu::copy::contiguous_cow;
use crate::backend::cpu::parallel::for_rows_mut;
pub use crate::backend::wgpu::{WindowGeom, WindowOp};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// Softmax (or log-softmax) along `dim`, on a contiguous copy with `dim` moved last.
pub fn softmax(x: &Tensor, dim: usize, log: bool) -> Result<Tensor> {
    if x.dtype().is_half() {
        // Note [Narrow dtypes]
        return Ok(narrow(softmax(&wide(x), dim, log)?, x.dtype()));
    }
    run!(|b| b.softmax(x, dim, log))
}

/// The host's softmax, of a float32 or float64 tensor.
pub(super) fn softmax_host(x: &Tensor, dim: usize, log: bool) -> Result<Tensor> {
    let nd = x.dim();
    let last = nd.saturating_sub(1);
    // Along the last dim the rows already are contiguous runs: no moves (`to_vec` copies).
    let in_place = nd == 0 || dim == nd - 1;
    let moved = if in_place {
        x.clone()
    } else {
        contiguous(&swapped(x, dim, last))
    };
    let n = moved.shape().last().copied().unwrap_or(1).max(1);
    let (shape, device) = (moved.shape(), x.device());
    macro_rules! run {
        ($T:ty) => {{
            let md = moved.read();
            // Each row read from the input (no copy of it first) and written into a fresh
            // buffer, each pass its own loop so that it vectorizes, compiled with AVX2 where
            // the CPU has it (`with_fma`: 8 lanes instead of SSE2's 4; no multiply-add is
            // fused, the loops have none); exp is `vmath`'s, the sum of the exponentials
            // accumulates in float64.
            let src = contiguous_cow::<$T>(md.storage.slice::<$T>(), &md.layout);
            let len = src.len();
            let mut out = crate::tensor::pool::alloc::<$T>(len);
            let body = |i: usize, o: &mut [std::mem::MaybeUninit<$T>]| {
                use crate::backend::cpu::{reduce::sum_serial, vmath::VMath, with_fma};
                let x = &src[i * n..][..n];
                with_fma(|| {
                    // An infinite max is kept, as PyTorch's kernel keeps it: a row holding
                    // +inf, or only -inf, comes out NaN.
                    let m = x.iter().copied().fold(<$T>::NEG_INFINITY, <$T>::max);
                    if log {
                        for (o, &v) in o.iter_mut().zip(x) {
                            o.write(v - m);
                        }
                    } else {
                        for (o, &v) in o.iter_mut().zip(x) {
                            o.write((v - m).vexp());
                        }
                    }
                    // SAFETY: every element of the row was written just above, and
                    // MaybeUninit<T> has T's layout.
                    let r = unsafe { &mut *(o as *mut [std::mem::MaybeUninit<$T>] as *mut [$T]) };
                    if log {
                        // The exponentials go through a stack run: r keeps the shifted values.
                        let mut buf = [0.0 as $T; 256];
                        let s: f64 = r
                            .chunks(256)
                            .map(|run| {
                                let b = &mut buf[..run.len()];
                                b.iter_mut().zip(run).for_each(|(o, &z)| *o = z.vexp());
                                sum_serial::<$T>(b)
                            })
                            .sum();
                        let ls = s.ln() as $T;
                        r.iter_mut().for_each(|e| *e -= ls);
                    } else {
                        let inv = (1.0 / sum_serial::<$T>(r)) as $T;
                        r.iter_mut().for_each(|e| *e *= inv);
                    }
                })
            };
            for_rows_mut(&mut out.spare_capacity_mut()[..len], n, body);
            // SAFETY: `body` wrote every row, and the rows cover all `len` elements (`n`
            // divides `len`).
            unsafe { out.set_len(len) };
            Tensor::from_vec_on(out, &shape, device)
        }};
    }
    let t = match moved.dtype() {
        DType::F32 => run!(f32),
        _ => run!(f64),
    };
    if in_place {
        return Ok(t);
    }
    Ok(contiguous(&swapped(&t, dim, last)))
}

/// softmax's / log_softmax's backward on the host in one pass (SoftmaxBackward0 /
/// LogSoftmaxBackward0 outside create_graph): `y * (g - s)`, or `g - exp(y) * s` for `log`,
/// where `s` holds the sums along `dim` (keepdim) of `g * y`, or of `g`, that the caller took
/// with the sum op. Each value is the composed formula's (`exp`, `mul`, `sub`, each rounded as
/// those ops round) without its intermediate tensors. `g`, `y`, `s` host tensors of one
/// float32 / float64 dtype, `g` of `y`'s shape; None otherwise (the op composes tensor ops).
pub fn softmax_backward(
    g: &Tensor,
    y: &Tensor,
    s: &Tensor,
    dim: usize,
    log: bool,
) -> Result<Option<Tensor>> {
    let dtype = y.dtype();
    let shape = y.shape();
    if !matches!(dtype, DType::F32 | DType::F64)
        || [g, y, s]
            .iter()
            .any(|t| super::host_reads_back(t) || t.dtype() != dtype)
        || g.shape() != shape
        || (y.dim() > 0 && dim >= y.dim())
    {
        return Ok(None);
    }
    let n = shape.get(dim).copied().unwrap_or(1);
    let inner: usize = shape.get(dim + 1..).map_or(1, |s| s.iter().product());
    let len = y.numel();
    if s.numel() * n != len {
        return Ok(None);
    }
    macro_rules! run {
        ($T:ty) => {{
            let mut out = crate::tensor::pool::try_alloc::<$T>(len)?;
            super::with_host::<$T, _>(g, |gs| {
                super::with_host::<$T, _>(y, |ys| {
                    super::with_host::<$T, _>(s, |ss| {
                        let body = |b: usize, o: &mut [std::mem::MaybeUninit<$T>]| {
                            use crate::backend::cpu::{vmath::VMath, with_fma};
                            let (gb, yb) = (
                                &gs[b * n * inner..][..n * inner],
                                &ys[b * n * inner..][..n * inner],
                            );
                            let sb = &ss[b * inner..][..inner];
                            with_fma(|| {
                                let f = |g: $T, y: $T, s: $T| {
                                    if log {
                                        g - y.vexp() * s
                                    } else {
                                        y * (g - s)
                                    }
                                };
                                if inner == 1 {
                                    let sv = sb[0];
                                    if log {
                                        for ((o, &g), &y) in o.iter_mut().zip(gb).zip(yb) {
                                            o.write(g - y.vexp() * sv);
                                        }
                                    } else {
                                        for ((o, &g), &y) in o.iter_mut().zip(gb).zip(yb) {
                                            o.write(y * (g - sv));
                                        }
                                    }
                                } else {
                                    for ((o, gr), yr) in o
                                        .chunks_exact_mut(inner)
                                        .zip(gb.chunks_exact(inner))
                                        .zip(yb.chunks_exact(inner))
                                    {
                                        for (((o, &g), &y), &sv) in
                                            o.iter_mut().zip(gr).zip(yr).zip(sb)
                                        {
                                            o.write(f(g, y, sv));
                                        }
                                    }
                                }
                            })
                        };
                        if len > 0 {
                            for_rows_mut(&mut out.spare_capacity_mut()[..len], n * inner, body);
                        }
                    })
                })
            });
            // SAFETY: `body` wrote every block of `n * inner` elements, and they cover all
            // `len` elements.
            unsafe { out.set_len(len) };
            Tensor::from_vec_on(out, &shape, y.device())
        }};
    }
    Ok(Some(match dtype {
        DType::F32 => run!(f32),
        _ => run!(f64),
    }))
}

/// im2col geometry for a 2-D window.
#[derive(Clone, Copy, Debug)]
pub struct Window {
    pub kernel: [usize; 2],
    pub stride: [usize; 2],
    pub padding: [usize; 2],
    pub dilation: [usize; 2],
}

impl Window {
    /// The GPU kernels' description of this window over `[n, c, hw]` with `out` positions.
    pub fn geom(&self, n: usize, c: usize, hw: [usize; 2], out: [usize; 2]) -> WindowGeom {
        WindowGeom {
            n,
            c,
            hw,
            out,
            kernel: self.kernel,
            stride: self.stride,
            padding: self.padding,
            dilation: self.dilation,
        }
    }

    pub fn out_size(&self, h: usize, w: usize) -> Result<[usize; 2]> {
        if self.stride.contains(&0) || self.dilation.contains(&0) {
            return Err(Error::Runtime(format!(
                "stride and dilation should be greater than zero, but got stride: {:?} dilation: {:?}",
                self.stride, self.dilation
            )));
        }
        let o = |i: usize, d: usize| -> Result<usize> {
            let span = self.dilation[d] * (self.kernel[d] - 1) + 1;
            let padded = i + 2 * self.padding[d];
            if padded < span {
                return Err(Error::Runtime(format!(
                    "Calculated padded input size per channel: ({} x {}). Kernel size: ({} x {}). Kernel size can't be greater than actual input size",
                    h + 2 * self.padding[0], w + 2 * self.padding[1], self.kernel[0], self.kernel[1]
                )));
            }
            Ok((padded - span) / self.stride[d] + 1)
        };
        Ok([o(h, 0)?, o(w, 1)?])
    }
}

/// The output columns `lo..hi` of one kernel tap whose input column `xx * stride + off` falls
/// inside `0..w` (the others read padding).
fn tap_range(off: isize, stride: usize, w: usize, ow: usize) -> (usize, usize) {
    let s = stride as isize;
    let lo = if off >= 0 { 0 } else { (-off + s - 1) / s };
    let hi = (w as isize - off + s - 1)
        .div_euclid(s)
        .clamp(0, ow as isize);
    (lo.min(ow as isize) as usize, hi as usize)
}

/// Calls `f(r, y, iy, lo, hi, off)` for each columns row `r` (channel, tap), output row `y`
/// whose input row `iy` is inside the image, with the tap's valid output columns `lo..hi`
/// and column offset `off` (input column = `xx * stride + off`).
fn for_each_tap(
    win: &Window,
    c: usize,
    hw: [usize; 2],
    out: [usize; 2],
    mut f: impl FnMut(usize, usize, usize, usize, usize, isize),
) {
    let [kh, kw] = win.kernel;
    let ([h, w], [oh, ow]) = (hw, out);
    for ci in 0..c {
        for ki in 0..kh {
            for kj in 0..kw {
                let r = (ci * kh + ki) * kw + kj;
                let off = (kj * win.dilation[1]) as isize - win.padding[1] as isize;
                let (lo, hi) = tap_range(off, win.stride[1], w, ow);
                if lo >= hi {
                    continue;
                }
                for y in 0..oh {
                    let iy = (y * win.stride[0] + ki * win.dilation[0]) as isize
                        - win.padding[0] as isize;
                    if iy >= 0 && iy < h as isize {
                        f(r, y, ci * h + iy as usize, lo, hi, off);
                    }
                }
            }
        }
    }
}

/// One image's im2col: `img` `[c, h, w]` into its columns `o` `[c*kh*kw, oh*ow]` (row `r`
/// at `o[r * ld..]`: `ld` is `oh*ow`, or more where several images' columns sit side by
/// side), which hold the padding value already (only the taps inside the image are written).
pub(super) fn im2col_image<T: Copy>(
    img: &[T],
    o: &mut [T],
    ld: usize,
    win: &Window,
    c: usize,
    hw: [usize; 2],
    out: [usize; 2],
) {
    let (w, [_, ow], sw) = (hw[1], out, win.stride[1]);
    for_each_tap(win, c, hw, out, |r, y, row_in, lo, hi, off| {
        let from = &img[row_in * w..(row_in + 1) * w];
        let to = &mut o[r * ld + y * ow..r * ld + (y + 1) * ow];
        let start = (lo as isize * sw as isize + off) as usize;
        if sw == 1 {
            to[lo..hi].copy_from_slice(&from[start..start + hi - lo]);
        } else {
            for (k, v) in to[lo..hi].iter_mut().enumerate() {
                *v = from[start + k * sw];
            }
        }
    });
}

/// One image's col2im: its columns `col` `[c*kh*kw, oh*ow]` (row stride `ld`, as
/// `im2col_image`) summed into `o` `[c, h, w]` (which the caller zeroed), taps in the same
/// order as `col2im`.
pub(super) fn col2im_image<T: Copy + std::ops::AddAssign>(
    col: &[T],
    o: &mut [T],
    ld: usize,
    win: &Window,
    c: usize,
    hw: [usize; 2],
    out: [usize; 2],
) {
    let (w, [_, ow], sw) = (hw[1], out, win.stride[1]);
    for_each_tap(win, c, hw, out, |r, y, row_in, lo, hi, off| {
        let from = &col[r * ld + y * ow..r * ld + (y + 1) * ow];
        let to = &mut o[row_in * w..(row_in + 1) * w];
        let start = (lo as isize * sw as isize + off) as usize;
        if sw == 1 {
            for (t, v) in to[start..start + hi - lo].iter_mut().zip(&from[lo..hi]) {
                *t += *v;
            }
        } else {
            for (k, v) in from[lo..hi].iter().enumerate() {
                to[start + k * sw] += *v;
            }
        }
    });
}

/// `[N, C, H, W]` -> `[N, C*kh*kw, L]` columns (padding reads `pad_value`).
pub fn im2col(x: &Tensor, win: Window, pad_value: f64) -> Result<Tensor> {
    let s = x.shape();
    let (c, h, w) = (s[1], s[2], s[3]);
    win.out_size(h, w)?;
    run!(|b| b.window(WindowOp::Im2Col, x, win, c, [h, w], pad_value))
}

/// The host's `im2col`.
pub(super) fn im2col_host(x: &Tensor, win: Window, pad_value: f64) -> Result<Tensor> {
    let s = x.shape();
    let (n, c, h, w) = (s[0], s[1], s[2], s[3]);
    let [oh, ow] = win.out_size(h, w)?;
    let [kh, kw] = win.kernel;
    let l = oh * ow;
    let rows = c * kh * kw;
    if n * rows * l == 0 {
        return Ok(Tensor::zeros_on(&[n, rows, l], x.dtype(), x.device()));
    }
    let xd = x.read();
    macro_rules! run {
        ($T:ty) => {{
            let src = contiguous_cow::<$T>(xd.storage.slice::<$T>(), &xd.layout);
            let mut out = crate::tensor::pool::alloc::<$T>(n * rows * l);
            out.resize(n * rows * l, pad_value as $T);
            let fill = |b: usize, o: &mut [$T]| {
                let img = &src[b * c * h * w..(b + 1) * c * h * w];
                im2col_image(img, o, l, &win, c, [h, w], [oh, ow]);
            };
            for_rows_mut(&mut out, rows * l, fill);
            Tensor::from_vec_on(out, &[n, rows, l], x.device())
        }};
    }
    Ok(match xd.dtype() {
        DType::F32 => run!(f32),
        DType::F64 => run!(f64),
        DType::I64 => run!(i64),
        d if d.is_half() => {
            drop(xd);
            narrow(im2col(&wide(x), win, pad_value)?, d)
        }
        d => return Err(crate::dtype::unsupported("im2col", d)),
    })
}

/// Columns `[N, C*kh*kw, L]` summed back into `[N, C, H, W]` (the adjoint of unfold).
pub fn col2im(cols: &Tensor, out_hw: [usize; 2], c: usize, win: Window) -> Result<Tensor> {
    win.out_size(out_hw[0], out_hw[1])?;
    run!(|b| b.window(WindowOp::Col2Im, cols, win, c, out_hw, 0.0))
}

/// The host's `col2im`.
pub(super) fn col2im_host(
    cols: &Tensor,
    out_hw: [usize; 2],
    c: usize,
    win: Window,
) -> Result<Tensor> {
    let s = cols.shape();
    let n = s[0];
    let [h, w] = out_hw;
    let [oh, ow] = win.out_size(h, w)?;
    let [kh, kw] = win.kernel;
    let l = oh * ow;
    let rows = c * kh * kw;
    if n * c * h * w == 0 {
        return Ok(Tensor::zeros_on(&[n, c, h, w], cols.dtype(), cols.device()));
    }
    let cd = cols.read();
    macro_rules! run {
        ($T:ty) => {{
            let src = contiguous_cow::<$T>(cd.storage.slice::<$T>(), &cd.layout);
            let mut out = crate::tensor::pool::alloc::<$T>(n * c * h * w);
            out.resize(n * c * h * w, 0 as $T);
            let body = |b: usize, o: &mut [$T]| {
                let col = &src[b * rows * l..(b + 1) * rows * l];
                col2im_image(col, o, l, &win, c, [h, w], [oh, ow]);
            };
            for_rows_mut(&mut out, c * h * w, body);
            Tensor::from_vec_on(out, &[n, c, h, w], cols.device())
        }};
    }
    Ok(match cd.dtype() {
        DType::F32 => run!(f32),
        DType::F64 => run!(f64),
        DType::I64 => run!(i64),
        d if d.is_half() => {
            drop(cd);
            narrow(col2im(&wide(cols), out_hw, c, win)?, d)
        }
        d => return Err(crate::dtype::unsupported("col2im", d)),
    })
}
