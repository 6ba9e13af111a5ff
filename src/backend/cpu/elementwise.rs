//! Elementwise maps over one or two (broadcast) operands.

use super::copy::{contiguous_cow, for_each_offset};
use super::parallel::for_chunks_mut;
use crate::tensor::element::Element;
use crate::tensor::layout::Layout;
use crate::tensor::pool;
use crate::tensor::shape::{broadcast_strides, numel};
use half::f16;
use std::mem::MaybeUninit;

/// `out[i] = f(x[i])` over a view, in row-major order.
pub fn unary<T: Element, U: Element>(
    src: &[T],
    layout: &Layout,
    f: impl Fn(T) -> U + Sync + Send,
) -> Vec<U> {
    let x = contiguous_cow(src, layout);
    map_slice(&x, f)
}

/// `min(max(x, lo), hi)` over a view, either bound optional (`clamp`, `hardtanh`), in
/// PyTorch's order: a NaN input stays NaN, a tie keeps the input (-0.0 clamped below at 0.0
/// stays -0.0), and `lo > hi` gives `hi`. Written as selects, one loop per bound combination,
/// so each compiles to vector max/min instead of a data-dependent branch per element (the
/// branchy form was ~60x slower than `add` on random data). NaN bounds are the caller's.
pub fn clamp<T: Element>(src: &[T], layout: &Layout, lo: Option<T>, hi: Option<T>) -> Vec<T> {
    let x = contiguous_cow(src, layout);
    match (lo, hi) {
        (Some(lo), Some(hi)) => map_slice(&x, move |v| {
            let v = if v < lo { lo } else { v };
            if v > hi {
                hi
            } else {
                v
            }
        }),
        (Some(lo), None) => map_slice(&x, move |v| if v < lo { lo } else { v }),
        (None, Some(hi)) => map_slice(&x, move |v| if v > hi { hi } else { v }),
        (None, None) => map_slice(&x, |v| v),
    }
}

pub fn map_slice<T: Element, U: Element>(x: &[T], f: impl Fn(T) -> U + Sync + Send) -> Vec<U> {
    fill(x.len(), |start, out| {
        map_run(&f, &x[start..start + out.len()], out)
    })
}

/// `out[i] = f(x[i])`. Its own function, not inlined, so that `f` and `out` are arguments
/// (`noalias`, `f` `dereferenceable`): the loop's stores are known not to touch the closure's
/// captures, and even a capture read under a condition (an `Option` bound) may be loaded
/// early, so what it captures (clamp's and hardtanh's bounds, an activation's parameters) is
/// loaded, converted and tested once, outside the loop, which then vectorizes. Inside `fill`'s
/// closure, the captures were read through a pointer held in its environment and reloaded
/// after every store: clamp ran ~15x slower than `mul`, a conversion and a NaN branch per
/// element. One call per chunk. Where the CPU has AVX-512 or AVX2 the loop is a copy compiled
/// for it (16 or 8 float32 lanes instead of SSE2's 4: `vmath`'s exp and tanh, hence exp /
/// sigmoid / tanh / silu / gelu, ran at a quarter of the speed); every op rounds the same at
/// any width.
#[inline(never)]
fn map_run<T: Element, U: Element>(f: &impl Fn(T) -> U, x: &[T], out: &mut [MaybeUninit<U>]) {
    #[cfg(target_arch = "x86_64")]
    {
        if super::avx512_available() {
            // SAFETY: the CPU has the features `map_run_avx512` is compiled for.
            return unsafe { map_run_avx512(f, x, out) };
        }
        if super::fma_available() {
            // SAFETY: the CPU has the features `map_run_avx2` is compiled for.
            return unsafe { map_run_avx2(f, x, out) };
        }
    }
    map_loop(f, x, out)
}

/// `map_run_avx2` for AVX-512 (16 float32 lanes).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")]
unsafe fn map_run_avx512<T: Element, U: Element>(
    f: &impl Fn(T) -> U,
    x: &[T],
    out: &mut [MaybeUninit<U>],
) {
    map_loop(f, x, out)
}

/// `map_run`'s loop compiled with AVX2 and FMA, `f` inlined into it; its arguments keep
/// `map_run`'s (`noalias`) so the captures still load once, outside the loop.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn map_run_avx2<T: Element, U: Element>(
    f: &impl Fn(T) -> U,
    x: &[T],
    out: &mut [MaybeUninit<U>],
) {
    map_loop(f, x, out)
}

#[inline(always)]
fn map_loop<T: Element, U: Element>(f: &impl Fn(T) -> U, x: &[T], out: &mut [MaybeUninit<U>]) {
    for (o, &v) in out.iter_mut().zip(x) {
        o.write(f(v));
    }
}

/// `map_slice` for a converter of whole runs, `convert(src, dst)` (the `f16c` conversions):
/// each thread's part goes through a small buffer on the stack.
pub fn convert_slice<T: Element, U: Element>(
    x: &[T],
    convert: impl Fn(&[T], &mut [U]) + Sync + Send,
) -> Vec<U> {
    const RUN: usize = 512;
    fill(x.len(), |start, out| {
        let mut buf = [U::default(); RUN];
        for (k, part) in out.chunks_mut(RUN).enumerate() {
            let s = start + k * RUN;
            let b = &mut buf[..part.len()];
            convert(&x[s..s + part.len()], b);
            for (o, &v) in part.iter_mut().zip(b.iter()) {
                o.write(v);
            }
        }
    })
}

/// A `Vec` of `n` elements written by `body(start, chunk)`, which must initialize every element
/// of `chunk` (the output positions `start..start + chunk.len()`). The buffer comes from the
/// pool (Note [Buffer pool]) and is never zero-filled first; large outputs are split across
/// threads.
fn fill<U: Element>(n: usize, body: impl Fn(usize, &mut [MaybeUninit<U>]) + Sync + Send) -> Vec<U> {
    let mut out = pool::alloc::<U>(n);
    for_chunks_mut(&mut out.spare_capacity_mut()[..n], |r, part| {
        body(r.start, part)
    });
    // SAFETY: `body` initialized all n elements (its contract).
    unsafe { out.set_len(n) };
    out
}

/// `out = f(a, b)` with broadcasting to `out_shape`.
pub fn binary<T: Element, U: Element>(
    a: &[T],
    la: &Layout,
    b: &[T],
    lb: &Layout,
    out_shape: &[usize],
    f: impl Fn(T, T) -> U + Sync + Send,
) -> Vec<U> {
    let n = numel(out_shape);
    if n == 0 {
        return Vec::new();
    }
    let a_full = la.shape.as_slice() == out_shape && la.is_contiguous();
    let b_full = lb.shape.as_slice() == out_shape && lb.is_contiguous();
    // Fast paths: same-shape contiguous operands, or a contiguous operand and a scalar.
    if a_full && b_full {
        let (x, y) = (&a[la.offset..la.offset + n], &b[lb.offset..lb.offset + n]);
        return zip_slices(x, y, f);
    }
    if a_full && lb.numel() == 1 {
        let s = b[lb.offset];
        return map_slice(&a[la.offset..la.offset + n], move |v| f(v, s));
    }
    if b_full && la.numel() == 1 {
        let s = a[la.offset];
        return map_slice(&b[lb.offset..lb.offset + n], move |v| f(s, v));
    }
    // General broadcast: walk the output in row-major order with per-operand strides.
    let sa = broadcast_strides(&la.shape, &la.strides, out_shape);
    let sb = broadcast_strides(&lb.shape, &lb.strides, out_shape);
    // One full operand and one broadcast along rows (a bias): row by row, no gathers.
    if a_full {
        let x = &a[la.offset..la.offset + n];
        if let Some(v) = zip_rows(x, b, lb.offset, &sb, out_shape, &f) {
            return v;
        }
    }
    if b_full {
        let y = &b[lb.offset..lb.offset + n];
        if let Some(v) = zip_rows(y, a, la.offset, &sa, out_shape, |q, p| f(p, q)) {
            return v;
        }
    }
    let va = Layout {
        shape: out_shape.into(),
        strides: sa,
        offset: la.offset,
    };
    let vb = Layout {
        shape: out_shape.into(),
        strides: sb,
        offset: lb.offset,
    };
    let xa = gather_broadcast(a, &va);
    let xb = gather_broadcast(b, &vb);
    zip_slices(&xa, &xb, f)
}

/// `f(x[i], y[..])` where `x` is full and contiguous and `y` (offset `yo`, broadcast strides
/// `sy` over `out_shape`) is, over the trailing dims, either constant (strides 0) or contiguous:
/// each output row then pairs with one scalar or one contiguous run of `y`. None otherwise.
fn zip_rows<T: Element, U: Element>(
    x: &[T],
    y: &[T],
    yo: usize,
    sy: &[isize],
    out_shape: &[usize],
    f: impl Fn(T, T) -> U + Sync + Send,
) -> Option<Vec<U>> {
    let nd = out_shape.len();
    // The longest suffix over which y is constant, or else over which it is contiguous.
    let suffix = |ok: &dyn Fn(usize, isize) -> bool| {
        let (mut k, mut expected) = (nd, 1isize);
        while k > 0 && ok(k - 1, expected) {
            expected *= out_shape[k - 1] as isize;
            k -= 1;
        }
        k
    };
    let k_const = suffix(&|d, _| sy[d] == 0 || out_shape[d] == 1);
    let k_contig = suffix(&|d, e| sy[d] == e || out_shape[d] == 1);
    let (k, constant) = if k_const <= k_contig {
        (k_const, true)
    } else {
        (k_contig, false)
    };
    let inner: usize = out_shape[k..].iter().product();
    if k == nd || inner < 8 {
        return None;
    }
    // y's offset for output row `row` (row-major over out_shape[..k]).
    let row_offset = |mut row: usize| {
        let mut off = yo as isize;
        for d in (0..k).rev() {
            off += (row % out_shape[d]) as isize * sy[d];
            row /= out_shape[d];
        }
        off as usize
    };
    Some(fill(x.len(), |start, out| {
        let mut pos = 0;
        while pos < out.len() {
            let i = start + pos;
            let (row, col) = (i / inner, i % inner);
            let len = (inner - col).min(out.len() - pos);
            let (o, xs) = (&mut out[pos..pos + len], &x[i..i + len]);
            let yoff = row_offset(row);
            if constant {
                let s = y[yoff];
                for (o, &p) in o.iter_mut().zip(xs) {
                    o.write(f(p, s));
                }
            } else {
                for ((o, &p), &q) in o.iter_mut().zip(xs).zip(&y[yoff + col..yoff + col + len]) {
                    o.write(f(p, q));
                }
            }
            pos += len;
        }
    }))
}

fn gather_broadcast<T: Element>(src: &[T], layout: &Layout) -> Vec<T> {
    let mut out = pool::alloc(layout.numel());
    for_each_offset(layout, |o| out.push(src[o]));
    out
}

fn zip_slices<T: Element, U: Element>(
    x: &[T],
    y: &[T],
    f: impl Fn(T, T) -> U + Sync + Send,
) -> Vec<U> {
    fill(x.len(), |start, out| {
        let end = start + out.len();
        // Under avx2 + fma where the CPU has them: a `mul_add` in `f` (tanh's derivative
        // `g * fma(-r, r, 1)`) is then one instruction, not a libm call per element; every
        // other op rounds the same at any vector width.
        super::with_fma(|| {
            for ((o, &p), &q) in out.iter_mut().zip(&x[start..end]).zip(&y[start..end]) {
                o.write(f(p, q));
            }
        })
    })
}

/// One value operand of [`select`]: a contiguous run of all `n` elements, or one value that
/// stands for every element.
#[derive(Clone, Copy)]
pub enum Src<'a, T> {
    Full(&'a [T]),
    One(T),
}

/// `out[i] = if mask[i] { a[i] } else { b[i] }` over `mask.len()` elements (`where`), one loop
/// per operand kind so each vectorizes.
pub fn select<T: Element>(mask: &[bool], a: Src<'_, T>, b: Src<'_, T>) -> Vec<T> {
    fill(mask.len(), |start, out| {
        let end = start + out.len();
        let m = &mask[start..end];
        match (a, b) {
            (Src::Full(x), Src::Full(y)) => {
                for ((o, &c), (&p, &q)) in out
                    .iter_mut()
                    .zip(m)
                    .zip(x[start..end].iter().zip(&y[start..end]))
                {
                    o.write(if c { p } else { q });
                }
            }
            (Src::Full(x), Src::One(q)) => {
                for ((o, &c), &p) in out.iter_mut().zip(m).zip(&x[start..end]) {
                    o.write(if c { p } else { q });
                }
            }
            (Src::One(p), Src::Full(y)) => {
                for ((o, &c), &q) in out.iter_mut().zip(m).zip(&y[start..end]) {
                    o.write(if c { p } else { q });
                }
            }
            (Src::One(p), Src::One(q)) => {
                for (o, &c) in out.iter_mut().zip(m) {
                    o.write(if c { p } else { q });
                }
            }
        }
    })
}

/// `out[i] = f(out[i], y[i])` in place (`y` all elements, or one value for all).
pub fn zip_in_place<T: Element>(out: &mut [T], y: Src<'_, T>, f: impl Fn(T, T) -> T + Sync + Send) {
    for_chunks_mut(out, |r, part| match y {
        Src::Full(ys) => {
            for (o, &q) in part.iter_mut().zip(&ys[r]) {
                *o = f(*o, q);
            }
        }
        Src::One(q) => {
            for o in part.iter_mut() {
                *o = f(*o, q);
            }
        }
    });
}

/// A float16 operand of [`zip_half`]: a contiguous run of all its elements, or one float32
/// value that stands for every element (a number keeps its float32 precision).
#[derive(Clone, Copy)]
pub enum HalfSrc<'a> {
    Full(&'a [f16]),
    One(f32),
}

/// `f` over float16 operands (`n` elements each: a contiguous run, or one value for all),
/// computed in float32 and rounded once (Note [Narrow dtypes]).
pub fn zip_half(
    n: usize,
    a: HalfSrc<'_>,
    b: HalfSrc<'_>,
    f: impl Fn(f32, f32) -> f32 + Sync + Send,
) -> Vec<f16> {
    fn widen(src: HalfSrc<'_>, start: usize, buf: &mut [f32]) {
        match src {
            HalfSrc::Full(x) => super::f16c::widen(&x[start..start + buf.len()], buf),
            HalfSrc::One(v) => buf.fill(v),
        }
    }
    fill_half(n, |start, x, y| {
        let y = &mut y[..x.len()];
        widen(a, start, x);
        widen(b, start, y);
        super::with_fma(|| zip_run_in_place(&f, x, y));
    })
}

/// `f` over contiguous float16 values, computed in float32 and rounded once.
pub fn map_half(x: &[f16], f: impl Fn(f32) -> f32 + Sync + Send) -> Vec<f16> {
    fill_half(x.len(), |start, w, _| {
        super::f16c::widen(&x[start..start + w.len()], w);
        super::with_fma(|| map_in_place(&f, w));
    })
}

/// `w[i] = f(w[i])`, `map_run`'s loop in place (the same reason: `f` and `w` arguments).
#[inline(always)]
fn map_in_place(f: &impl Fn(f32) -> f32, w: &mut [f32]) {
    for v in w.iter_mut() {
        *v = f(*v);
    }
}

/// `x[i] = f(x[i], y[i])`, as `map_in_place`.
#[inline(always)]
fn zip_run_in_place(f: &impl Fn(f32, f32) -> f32, x: &mut [f32], y: &[f32]) {
    for (p, &q) in x.iter_mut().zip(y) {
        *p = f(*p, q);
    }
}

/// The run length of the float16 kernels' stack buffers.
const HALF_RUN: usize = 512;

/// A float16 `Vec` of `n` elements computed a run at a time: `run(start, buf, scratch)` writes
/// the float32 values of positions `start..start + buf.len()` into `buf` (stack memory, at
/// most `HALF_RUN`; `scratch` a second such buffer, for a second operand), which narrow into
/// the output (`f16c`). No float32 copy of an operand or the result is ever allocated. The
/// float32 loops in between run under `with_fma` (8 lanes instead of SSE2's 4; no multiply-add
/// is fused that the closure does not write).
fn fill_half(
    n: usize,
    run: impl Fn(usize, &mut [f32], &mut [f32; HALF_RUN]) + Sync + Send,
) -> Vec<f16> {
    fill(n, |start, out| {
        let (mut w, mut r) = ([0f32; HALF_RUN], [f16::ZERO; HALF_RUN]);
        // A second operand's run, zeroed once per chunk rather than once per run.
        let mut scratch = [0f32; HALF_RUN];
        for (k, part) in out.chunks_mut(HALF_RUN).enumerate() {
            let m = part.len();
            run(start + k * HALF_RUN, &mut w[..m], &mut scratch);
            super::f16c::narrow(&w[..m], &mut r[..m]);
            for (o, &v) in part.iter_mut().zip(&r[..m]) {
                o.write(v);
            }
        }
    })
}
