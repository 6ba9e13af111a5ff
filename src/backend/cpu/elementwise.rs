//! Elementwise maps over one or two (broadcast) operands.

use super::copy::{contiguous_cow, for_each_offset};
use super::PAR_THRESHOLD;
use crate::shape::{broadcast_strides, numel};
use crate::tensor::{Element, Layout};
use rayon::prelude::*;

/// `out[i] = f(x[i])` over a view, in row-major order.
pub fn unary<T: Element, U: Element>(
    src: &[T],
    layout: &Layout,
    f: impl Fn(T) -> U + Sync + Send,
) -> Vec<U> {
    let x = contiguous_cow(src, layout);
    map_slice(&x, f)
}

pub fn map_slice<T: Element, U: Element>(x: &[T], f: impl Fn(T) -> U + Sync + Send) -> Vec<U> {
    if x.len() >= PAR_THRESHOLD {
        let mut out = Vec::with_capacity(x.len());
        x.par_iter().map(|&v| f(v)).collect_into_vec(&mut out);
        out
    } else {
        x.iter().map(|&v| f(v)).collect()
    }
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
        return map_slice(&a[la.offset..la.offset + n], |v| f(v, s));
    }
    if b_full && la.numel() == 1 {
        let s = a[la.offset];
        return map_slice(&b[lb.offset..lb.offset + n], |v| f(s, v));
    }
    // General broadcast: walk the output in row-major order with per-operand strides.
    let sa = broadcast_strides(&la.shape, &la.strides, out_shape);
    let sb = broadcast_strides(&lb.shape, &lb.strides, out_shape);
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

fn gather_broadcast<T: Element>(src: &[T], layout: &Layout) -> Vec<T> {
    let mut out = Vec::with_capacity(layout.numel());
    for_each_offset(layout, |o| out.push(src[o]));
    out
}

fn zip_slices<T: Element, U: Element>(
    x: &[T],
    y: &[T],
    f: impl Fn(T, T) -> U + Sync + Send,
) -> Vec<U> {
    if x.len() >= PAR_THRESHOLD {
        let mut out = Vec::with_capacity(x.len());
        x.par_iter()
            .zip(y.par_iter())
            .map(|(&p, &q)| f(p, q))
            .collect_into_vec(&mut out);
        out
    } else {
        x.iter().zip(y.iter()).map(|(&p, &q)| f(p, q)).collect()
    }
}
