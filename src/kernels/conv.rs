//! A 2-D convolution's three products on the host, image by image: each image's im2col
//! columns go into one buffer per chunk of images (never the whole batch's `[N, C·kh·kw, L]`
//! columns), and every product is one gemm call writing straight into its image's part of
//! the result; images are spread across threads in chunks (Note [Convolution kernels]).
//!
//! Note [Convolution kernels]: `ops::nn::convolution` runs its forward and, when no graph is
//! being built (no `create_graph`), its backward through these; a backward under
//! `create_graph` keeps the formula in differentiable ops (unfold / fold, bmm, sum), whose
//! values are the same products. They apply to float32 / float64 host tensors of one dtype
//! and return None otherwise (GPU tensors, half precision), where the op composes the
//! primitives instead. Weights are `[O, C/g, kh, kw]`, inputs `[N, C, H, W]`, both read
//! through a contiguous copy only when they are not contiguous already.

use super::nn::{col2im_image, im2col_image, Window};
use crate::backend::cpu::copy::contiguous_cow;
use crate::backend::cpu::matmul::{matmul_into, Mat};
use crate::backend::cpu::parallel::{for_each_index, num_threads};
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::element::Element;
use crate::tensor::{pool, Tensor};

/// Multiply-adds below which one thread does the whole batch.
const PAR_MACS: usize = 1 << 20;

/// Whether every tensor is a host float32 / float64 tensor of the first one's dtype.
fn applies(ts: &[&Tensor]) -> bool {
    let d = ts[0].dtype();
    matches!(d, DType::F32 | DType::F64)
        && ts.iter().all(|t| t.dtype() == d && !t.device().is_gpu())
}

/// The batch `0..n` cut into chunks: (number of chunks, images per chunk).
fn chunks(n: usize, macs: usize) -> (usize, usize) {
    let threads = num_threads();
    if threads <= 1 || n <= 1 || macs < PAR_MACS {
        return (1, n.max(1));
    }
    let per = n.div_ceil((threads * 2).min(n));
    (n.div_ceil(per), per)
}

/// A row-major matrix with `cols` columns starting at `offset`.
fn rows(offset: usize, cols: usize) -> Mat {
    Mat {
        offset,
        rs: cols as isize,
        cs: 1,
    }
}

/// The transpose of a row-major matrix with `cols` columns starting at `offset`.
fn cols_t(offset: usize, cols: usize) -> Mat {
    Mat {
        offset,
        rs: 1,
        cs: cols as isize,
    }
}

/// A raw output pointer handed to the threads, each writing its own images' blocks.
#[derive(Clone, Copy)]
struct Out(usize);

/// The sizes every kernel uses.
#[derive(Clone, Copy)]
struct Geom {
    n: usize,
    c: usize,
    hw: [usize; 2],
    o: usize,
    groups: usize,
    out: [usize; 2],
}

impl Geom {
    fn new(xs: &[usize], ws: &[usize], groups: usize, win: &Window) -> Result<Geom> {
        Ok(Geom {
            n: xs[0],
            c: xs[1],
            hw: [xs[2], xs[3]],
            o: ws[0],
            groups,
            out: win.out_size(xs[2], xs[3])?,
        })
    }
    fn l(&self) -> usize {
        self.out[0] * self.out[1]
    }
    /// Columns per group (C/g · kh · kw).
    fn ckg(&self, win: &Window) -> usize {
        self.c / self.groups * win.kernel[0] * win.kernel[1]
    }
    fn og(&self) -> usize {
        self.o / self.groups
    }
    fn macs(&self, win: &Window) -> usize {
        self.n * self.o * self.ckg(win) * self.l()
    }
}

/// `conv2d(x, w, bias)` of a `[N, C, H, W]` input: `[N, O, oh, ow]`, or None where these
/// kernels do not apply (Note [Convolution kernels]).
pub fn conv2d(
    x: &Tensor,
    w: &Tensor,
    bias: Option<&Tensor>,
    win: Window,
    groups: usize,
) -> Result<Option<Tensor>> {
    let mut all = vec![x, w];
    all.extend(bias);
    if !applies(&all) {
        return Ok(None);
    }
    let g = Geom::new(&x.shape(), &w.shape(), groups, &win)?;
    let (xd, wd) = (x.read(), w.read());
    let bd = bias.map(|b| b.read());
    macro_rules! run {
        ($T:ty) => {{
            let xs = contiguous_cow::<$T>(xd.storage.slice::<$T>(), &xd.layout);
            let ws = contiguous_cow::<$T>(wd.storage.slice::<$T>(), &wd.layout);
            let bs = bd
                .as_ref()
                .map(|b| contiguous_cow::<$T>(b.storage.slice::<$T>(), &b.layout));
            let out = forward::<$T>(&xs, &ws, bs.as_deref(), g, &win);
            Tensor::from_vec_on(out, &[g.n, g.o, g.out[0], g.out[1]], x.device())
        }};
    }
    Ok(Some(match x.dtype() {
        DType::F32 => run!(f32),
        _ => run!(f64),
    }))
}

/// Images per product: a sub-batch's columns sit side by side (`[C·kh·kw, nb·L]`), so one
/// gemm covers `nb` images (small images give products too narrow to run well alone), within
/// about a megabyte of columns.
fn sub_batch(g: &Geom, win: &Window, per: usize) -> usize {
    const BUDGET: usize = 1 << 18;
    // Images of 256 output positions or more make products wide enough alone, and one at a
    // time they read the gradient and write the output in place (no side-by-side copies).
    if g.l() >= 256 {
        return 1;
    }
    (BUDGET / (g.ckg(win) * g.groups * g.l()).max(1)).clamp(1, per.max(1))
}

/// The sub-batches `(first image, count)` of the images `lo..hi`, `nb` at a time.
fn sub_batches(lo: usize, hi: usize, nb: usize) -> impl Iterator<Item = (usize, usize)> {
    (lo..hi)
        .step_by(nb.max(1))
        .map(move |b| (b, nb.min(hi - b)))
}

/// The columns of images `b0..b0 + nb` side by side in `cols` (row stride `nb·L`); `cols`
/// is re-zeroed only when the stride changes (the padding positions are never written, so
/// they stay zero from one sub-batch to the next).
#[allow(clippy::too_many_arguments)]
fn fill_cols<T: Element>(
    cols: &mut Vec<T>,
    ld_now: &mut usize,
    xs: &[T],
    b0: usize,
    nb: usize,
    g: &Geom,
    win: &Window,
) {
    let (l, img) = (g.l(), g.c * g.hw[0] * g.hw[1]);
    let ld = nb * l;
    if *ld_now != ld {
        cols.clear();
        cols.resize(g.ckg(win) * g.groups * ld, T::default());
        *ld_now = ld;
    }
    for j in 0..nb {
        let b = b0 + j;
        im2col_image(
            &xs[b * img..][..img],
            &mut cols[j * l..],
            ld,
            win,
            g.c,
            g.hw,
            g.out,
        );
    }
}

/// The output gradient as the kernels read it: element (image b, channel oc, position p) at
/// `off + b·s[0] + oc·s[1] + p·s[2]` of `data`, the tensor's own storage where its spatial
/// dims flatten into one (an expanded gradient, such as `sum()`'s, is read in place, not
/// copied), else a contiguous copy.
struct GradView<'a, T: Clone> {
    data: std::borrow::Cow<'a, [T]>,
    off: usize,
    s: [isize; 3],
}

impl<'a, T: Element> GradView<'a, T> {
    fn new(src: &'a [T], layout: &crate::tensor::Layout, o: usize, l: usize) -> Self {
        let (sh, st) = (&layout.shape, &layout.strides);
        let flat = match sh.len() {
            4 if sh[3] == 1 => Some([st[0], st[1], st[2]]),
            4 if sh[2] == 1 || st[2] == sh[3] as isize * st[3] => Some([st[0], st[1], st[3]]),
            3 => Some([st[0], st[1], st[2]]),
            _ => None,
        };
        match flat {
            Some(s) if s.iter().all(|&v| v >= 0) && layout.numel() > 0 => GradView {
                data: std::borrow::Cow::Borrowed(src),
                off: layout.offset,
                s,
            },
            _ => GradView {
                data: contiguous_cow::<T>(src, layout),
                off: 0,
                s: [(o * l) as isize, l as isize, 1],
            },
        }
    }

    /// Image b's channels `c0..` as a gemm operand (`[channels, l]`).
    fn mat(&self, b: usize, c0: usize) -> Mat {
        Mat {
            offset: self.off + b * self.s[0] as usize + c0 * self.s[1] as usize,
            rs: self.s[1],
            cs: self.s[2],
        }
    }
}

/// The output gradient of images `b0..b0 + nb` as `[O, nb·L]` (each image's `L` columns side
/// by side, as `fill_cols` lays out the input's).
fn gather_grad<T: Element>(tmp: &mut Vec<T>, gv: &GradView<'_, T>, b0: usize, nb: usize, g: &Geom) {
    let (l, o) = (g.l(), g.o);
    let ld = nb * l;
    tmp.clear();
    tmp.resize(o * ld, T::default());
    for j in 0..nb {
        for oc in 0..o {
            let m = gv.mat(b0 + j, oc);
            let to = &mut tmp[oc * ld + j * l..][..l];
            if m.cs == 1 {
                to.copy_from_slice(&gv.data[m.offset..][..l]);
            } else {
                for (p, t) in to.iter_mut().enumerate() {
                    *t = gv.data[m.offset + p * m.cs as usize];
                }
            }
        }
    }
}

fn forward<T: Element + std::ops::Add<Output = T>>(
    xs: &[T],
    ws: &[T],
    bias: Option<&[T]>,
    g: Geom,
    win: &Window,
) -> Vec<T> {
    let (l, ckg, og, o) = (g.l(), g.ckg(win), g.og(), g.o);
    let total = g.n * o * l;
    let mut out = pool::alloc::<T>(total);
    out.resize(total, T::default());
    let dst = Out(out.as_mut_ptr() as usize);
    let (nchunks, per) = chunks(g.n, g.macs(win));
    let nb_max = sub_batch(&g, win, per);
    let run = |ci: usize| {
        let (mut cols, mut tmp, mut ld_now) = (Vec::new(), Vec::new(), 0);
        for (b0, nb) in sub_batches(ci * per, ((ci + 1) * per).min(g.n), nb_max) {
            fill_cols(&mut cols, &mut ld_now, xs, b0, nb, &g, win);
            let ld = nb * l;
            if nb == 1 {
                // One image: the products write its output block directly, over its bias.
                let base = (dst.0 as *mut T).wrapping_add(b0 * o * l);
                // SAFETY: image b0's output block `[o, l]` is this thread's alone and inside
                // `out` (`n·o·l` elements); the operands' offsets stay inside `ws` / `cols`.
                unsafe {
                    if let Some(bias) = bias {
                        for (oc, &bv) in bias.iter().enumerate() {
                            std::slice::from_raw_parts_mut(base.add(oc * l), l).fill(bv);
                        }
                    }
                    for gi in 0..g.groups {
                        matmul_into(
                            base.add(gi * og * l),
                            bias.is_some(),
                            ws,
                            rows(gi * og * ckg, ckg),
                            &cols,
                            rows(gi * ckg * l, l),
                            og,
                            ckg,
                            l,
                        );
                    }
                }
                continue;
            }
            tmp.clear();
            tmp.resize(og * ld, T::default());
            for gi in 0..g.groups {
                // `[og, ckg]` · `[ckg, nb·L]`, written without reading.
                // SAFETY: `tmp` holds og·ld elements; offsets inside `ws` / `cols`.
                unsafe {
                    matmul_into(
                        tmp.as_mut_ptr(),
                        false,
                        ws,
                        rows(gi * og * ckg, ckg),
                        &cols,
                        rows(gi * ckg * ld, ld),
                        og,
                        ckg,
                        ld,
                    );
                }
                for j in 0..nb {
                    let b = b0 + j;
                    for r in 0..og {
                        let oc = gi * og + r;
                        // SAFETY: image b's output block `[o, l]` is this thread's alone and
                        // inside `out` (`n·o·l` elements).
                        let to = unsafe {
                            std::slice::from_raw_parts_mut(
                                (dst.0 as *mut T).add((b * o + oc) * l),
                                l,
                            )
                        };
                        let from = &tmp[r * ld + j * l..][..l];
                        match bias {
                            Some(bias) => {
                                let bv = bias[oc];
                                to.iter_mut().zip(from).for_each(|(t, &v)| *t = v + bv);
                            }
                            None => to.copy_from_slice(from),
                        }
                    }
                }
            }
        }
    };
    for_each_index(nchunks, run);
    out
}

/// The input's gradient `[N, C, H, W]` of `conv2d` for output gradient `grad`
/// (`[N, O, oh, ow]`), or None where these kernels do not apply.
pub fn conv2d_input_grad(
    grad: &Tensor,
    w: &Tensor,
    x_shape: &[usize],
    win: Window,
    groups: usize,
) -> Result<Option<Tensor>> {
    if !applies(&[grad, w]) {
        return Ok(None);
    }
    let g = Geom::new(x_shape, &w.shape(), groups, &win)?;
    let shape = [g.n, g.c, g.hw[0], g.hw[1]];
    Ok(Some(grad_product(
        grad,
        w,
        g,
        &win,
        &shape,
        input_grad::<f32>,
        input_grad::<f64>,
    )))
}

/// A backward product of the output gradient and `other` (the weight or the input): the
/// gradient read in place where its spatial dims flatten (`GradView`), `other`'s elements
/// contiguous, both as the gradient's dtype, handed to that dtype's kernel; its result is a
/// tensor of `shape` on the gradient's device.
fn grad_product(
    grad: &Tensor,
    other: &Tensor,
    g: Geom,
    win: &Window,
    shape: &[usize],
    f32_kernel: GradKernel<f32>,
    f64_kernel: GradKernel<f64>,
) -> Tensor {
    let (gd, od) = (grad.read(), other.read());
    macro_rules! run {
        ($T:ty, $kernel:expr) => {{
            let gv = GradView::new(gd.storage.slice::<$T>(), &gd.layout, g.o, g.l());
            let os = contiguous_cow::<$T>(od.storage.slice::<$T>(), &od.layout);
            Tensor::from_vec_on($kernel(&gv, &os, g, win), shape, grad.device())
        }};
    }
    match grad.dtype() {
        DType::F32 => run!(f32, f32_kernel),
        _ => run!(f64, f64_kernel),
    }
}

/// `input_grad` / `weight_grad` for one dtype: the gradient, the other operand's elements.
type GradKernel<T> = fn(&GradView<'_, T>, &[T], Geom, &Window) -> Vec<T>;

fn input_grad<T: Element + std::ops::AddAssign>(
    gv: &GradView<'_, T>,
    ws: &[T],
    g: Geom,
    win: &Window,
) -> Vec<T> {
    let (l, ckg, og) = (g.l(), g.ckg(win), g.og());
    let rows_all = ckg * g.groups;
    let img = g.c * g.hw[0] * g.hw[1];
    let mut out = pool::alloc::<T>(g.n * img);
    out.resize(g.n * img, T::default());
    let dst = Out(out.as_mut_ptr() as usize);
    let (nchunks, per) = chunks(g.n, g.macs(win));
    let nb_max = sub_batch(&g, win, per);
    let run = |ci: usize| {
        let (mut cols, mut tmp) = (Vec::new(), Vec::new());
        for (b0, nb) in sub_batches(ci * per, ((ci + 1) * per).min(g.n), nb_max) {
            let ld = nb * l;
            // One image reads its gradient in place.
            let (src, gm): (&[T], Mat) = if nb == 1 {
                (&gv.data, gv.mat(b0, 0))
            } else {
                gather_grad(&mut tmp, gv, b0, nb, &g);
                (&tmp, rows(0, ld))
            };
            cols.clear();
            cols.resize(rows_all * ld, T::default());
            for gi in 0..g.groups {
                // d cols_g = w_gᵀ grad_g: `[ckg, og]` · `[og, nb·L]`, written without reading.
                // SAFETY: `cols` holds `rows_all · ld` elements; offsets inside `ws` / `tmp`.
                unsafe {
                    matmul_into(
                        cols.as_mut_ptr().add(gi * ckg * ld),
                        false,
                        ws,
                        cols_t(gi * og * ckg, ckg),
                        src,
                        Mat {
                            offset: gm.offset + gi * og * gm.rs as usize,
                            ..gm
                        },
                        ckg,
                        og,
                        ld,
                    );
                }
            }
            for j in 0..nb {
                let b = b0 + j;
                // SAFETY: image b's `[c, h, w]` block is this thread's alone, inside `out`.
                let to =
                    unsafe { std::slice::from_raw_parts_mut((dst.0 as *mut T).add(b * img), img) };
                col2im_image(&cols[j * l..], to, ld, win, g.c, g.hw, g.out);
            }
        }
    };
    for_each_index(nchunks, run);
    out
}

/// The weight's gradient `[O, C/g, kh, kw]` of `conv2d` for output gradient `grad`, or None
/// where these kernels do not apply. Each chunk of images sums its products into its own
/// partial gradient; the partials are added in chunk order.
pub fn conv2d_weight_grad(
    grad: &Tensor,
    x: &Tensor,
    w_shape: &[usize],
    win: Window,
    groups: usize,
) -> Result<Option<Tensor>> {
    if !applies(&[grad, x]) {
        return Ok(None);
    }
    let g = Geom::new(&x.shape(), w_shape, groups, &win)?;
    Ok(Some(grad_product(
        grad,
        x,
        g,
        &win,
        w_shape,
        weight_grad::<f32>,
        weight_grad::<f64>,
    )))
}

fn weight_grad<T: Element + std::ops::AddAssign>(
    gv: &GradView<'_, T>,
    xs: &[T],
    g: Geom,
    win: &Window,
) -> Vec<T> {
    let (l, ckg, og, o) = (g.l(), g.ckg(win), g.og(), g.o);
    let size = o * ckg;
    let (nchunks, per) = chunks(g.n, g.macs(win));
    let nb_max = sub_batch(&g, win, per);
    let mut partials = pool::alloc::<T>(nchunks * size);
    partials.resize(nchunks * size, T::default());
    let dst = Out(partials.as_mut_ptr() as usize);
    let run = |ci: usize| {
        let (mut cols, mut tmp, mut ld_now) = (Vec::new(), Vec::new(), 0);
        let part = (dst.0 as *mut T).wrapping_add(ci * size);
        for (b0, nb) in sub_batches(ci * per, ((ci + 1) * per).min(g.n), nb_max) {
            fill_cols(&mut cols, &mut ld_now, xs, b0, nb, &g, win);
            let ld = nb * l;
            // One image reads its gradient in place, as in `input_grad`.
            let (src, gm): (&[T], Mat) = if nb == 1 {
                (&gv.data, gv.mat(b0, 0))
            } else {
                gather_grad(&mut tmp, gv, b0, nb, &g);
                (&tmp, rows(0, ld))
            };
            for gi in 0..g.groups {
                // d w_g += grad_g colsᵀ: `[og, nb·L]` · `[nb·L, ckg]`.
                // SAFETY: chunk ci's partial `[o, ckg]` is this thread's alone, inside
                // `partials`; the operands' offsets stay inside `tmp` / `cols`.
                unsafe {
                    matmul_into(
                        part.add(gi * og * ckg),
                        true,
                        src,
                        Mat {
                            offset: gm.offset + gi * og * gm.rs as usize,
                            ..gm
                        },
                        &cols,
                        cols_t(gi * ckg * ld, ld),
                        og,
                        ld,
                        ckg,
                    );
                }
            }
        }
    };
    for_each_index(nchunks, run);
    let mut out = pool::alloc::<T>(size);
    out.extend_from_slice(&partials[..size]);
    for p in partials[size..].chunks(size) {
        for (a, &v) in out.iter_mut().zip(p) {
            *a += v;
        }
    }
    out
}
