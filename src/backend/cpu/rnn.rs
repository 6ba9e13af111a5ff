//! The LSTM cell's pointwise part in one pass (PyTorch's `_thnn_fused_lstm_cell` and its
//! backward), over contiguous rows: `gates = input_gates + hidden_gates` split into the
//! chunks `i, f, g, o` of `h` columns each, `cy = σ(f) cx + σ(i) tanh(g)`,
//! `hy = σ(o) tanh(cy)`. Every value is computed with the operations, in the order, of the
//! composed step (`add`, `sigmoid`, `tanh`, `mul`, `add` kernels and their backward
//! formulas: `sigmoid_backward`'s `g (1 - r) r`, `tanh_backward`'s `g (1 - r r)`), so the
//! fused and the composed steps give the same bits.

use super::matmul::{matmul_acc, Mat};
use super::norm::NormFloat;
use super::vmath::VMath;
use super::with_fma;
use crate::tensor::element::Element;

/// The element types the fused cell runs on.
pub trait CellFloat: NormFloat + VMath {}
impl CellFloat for f32 {}
impl CellFloat for f64 {}

#[inline(always)]
fn sigmoid<T: CellFloat>(v: T) -> T {
    T::ONE / (T::ONE + (-v).vexp())
}

/// Forward over `rows` rows of `h` hidden units: `ig` / `hg` rows of `4h` gates, `cx` rows of
/// `h`. Fills `hy`, `cy` (rows of `h`) and `ws` (rows of `5h`: σ(i), σ(f), tanh(g), σ(o),
/// tanh(cy), what the backward reads).
pub fn lstm_cell_forward<T: CellFloat>(
    ig: &[T],
    hg: &[T],
    cx: &[T],
    h: usize,
    hy: &mut [T],
    cy: &mut [T],
    ws: &mut [T],
) {
    if h == 0 {
        return;
    }
    // Rows cut into slices of exactly `h`, so the inner loops index without bounds checks
    // and vectorize.
    let rows = ig
        .chunks_exact(4 * h)
        .zip(hg.chunks_exact(4 * h))
        .zip(cx.chunks_exact(h))
        .zip(hy.chunks_exact_mut(h))
        .zip(cy.chunks_exact_mut(h))
        .zip(ws.chunks_exact_mut(5 * h));
    with_fma(|| {
        for (((((ig, hg), cx), hy), cy), ws) in rows {
            let (ii, rest) = ig.split_at(h);
            let (fi, rest) = rest.split_at(h);
            let (gi, oi) = rest.split_at(h);
            let (ih, rest) = hg.split_at(h);
            let (fh, rest) = rest.split_at(h);
            let (gh, oh) = rest.split_at(h);
            let (wi, rest) = ws.split_at_mut(h);
            let (wf, rest) = rest.split_at_mut(h);
            let (wg, rest) = rest.split_at_mut(h);
            let (wo, wt) = rest.split_at_mut(h);
            for j in 0..h {
                // The composed step adds `linear(h) + xw`: hidden gates first.
                let i = sigmoid(ih[j] + ii[j]);
                let f = sigmoid(fh[j] + fi[j]);
                let g = (gh[j] + gi[j]).vtanh();
                let o = sigmoid(oh[j] + oi[j]);
                let c = f * cx[j] + i * g;
                let tc = c.vtanh();
                cy[j] = c;
                hy[j] = o * tc;
                wi[j] = i;
                wf[j] = f;
                wg[j] = g;
                wo[j] = o;
                wt[j] = tc;
            }
        }
    })
}

/// Backward of `lstm_cell_forward` from its workspace `ws` and `cx`: `dhy` / `dcy` the
/// outputs' gradients (None: zero). Fills `dgates` (rows of `4h`, the gradient of both gate
/// inputs) and `dcx` (rows of `h`).
pub fn lstm_cell_backward<T: CellFloat>(
    ws: &[T],
    cx: &[T],
    dhy: Option<&[T]>,
    dcy: Option<&[T]>,
    h: usize,
    dgates: &mut [T],
    dcx: &mut [T],
) {
    if h == 0 {
        return;
    }
    with_fma(|| {
        let rows = ws
            .chunks_exact(5 * h)
            .zip(cx.chunks_exact(h))
            .zip(dgates.chunks_exact_mut(4 * h))
            .zip(dcx.chunks_exact_mut(h))
            .enumerate();
        for (r, (((ws, cx), dg), dcx)) in rows {
            let (wi, rest) = ws.split_at(h);
            let (wf, rest) = rest.split_at(h);
            let (wg, rest) = rest.split_at(h);
            let (wo, wt) = rest.split_at(h);
            let (di, rest) = dg.split_at_mut(h);
            let (df, rest) = rest.split_at_mut(h);
            let (dgg, d_o) = rest.split_at_mut(h);
            let dh = dhy.map(|d| &d[r * h..][..h]);
            let dc = dcy.map(|d| &d[r * h..][..h]);
            for j in 0..h {
                let (i, f, g, o, tc) = (wi[j], wf[j], wg[j], wo[j], wt[j]);
                // hy = o * tc: MulBackward0, then TanhBackward0 into cy.
                let (g_o, dc_h) = match dh {
                    Some(dh) => (dh[j] * tc, (dh[j] * o) * (-tc).fma(tc, T::ONE)),
                    None => (T::ZERO, T::ZERO),
                };
                let dcj = match (dc, dh) {
                    (Some(dc), Some(_)) => dc[j] + dc_h,
                    (Some(dc), None) => dc[j],
                    (None, _) => dc_h,
                };
                // cy = f * cx + i * g.
                let (g_f, g_i, g_g) = (dcj * cx[j], dcj * g, dcj * i);
                dcx[j] = dcj * f;
                di[j] = (g_i * (T::ONE - i)) * i;
                df[j] = (g_f * (T::ONE - f)) * f;
                dgg[j] = g_g * (-g).fma(g, T::ONE);
                d_o[j] = (g_o * (T::ONE - o)) * o;
            }
        }
    })
}

/// The sizes of one LSTM layer's run: `t` steps of `b` rows, `h` hidden units.
#[derive(Clone, Copy)]
pub struct LayerDims {
    pub t: usize,
    pub b: usize,
    pub h: usize,
    /// Steps taken from the last to the first (the reverse direction).
    pub reverse: bool,
}

impl LayerDims {
    /// The steps in the order they run.
    fn order(self) -> impl DoubleEndedIterator<Item = usize> + Clone {
        let (t, reverse) = (self.t, self.reverse);
        (0..t).map(move |s| if reverse { t - 1 - s } else { s })
    }
}

/// `h_prev @ w_hh^T` added into `dst` (rows of `4h`), `w_hh` row-major (4h, h).
fn hidden_gates<T: CellFloat + Element>(
    dst: &mut [T],
    h_prev: &[T],
    w_hh: &[T],
    b: usize,
    h: usize,
) {
    let l = Mat {
        offset: 0,
        rs: h as isize,
        cs: 1,
    };
    // w_hh^T: element (j, g) at g * h + j.
    let r = Mat {
        offset: 0,
        rs: 1,
        cs: h as isize,
    };
    matmul_acc(dst, h_prev, l, w_hh, r, b, h, 4 * h, T::ONE);
}

/// One LSTM layer's forward over all its steps (oneDNN's `mkldnn_rnn_layer` on the host): `xw`
/// the input projection of every step (t, b, 4h) with `b_ih` added, `w_hh` (4h, h), `b_hh`
/// (4h) if any, `h0` / `c0` (b, h). Each step's hidden gates are `b_hh + h_prev @ w_hh^T` (one
/// product into the bias, as `addmm`), then the fused cell. Fills `out` (t, b, h: each step's
/// `h`), `cs` (t, b, h: each step's `c`) and `ws` (t, b, 5h: each step's cell workspace, what
/// the backward reads).
#[allow(clippy::too_many_arguments)]
pub fn lstm_layer_forward<T: CellFloat + Element>(
    xw: &[T],
    w_hh: &[T],
    b_hh: Option<&[T]>,
    h0: &[T],
    c0: &[T],
    d: LayerDims,
    out: &mut [T],
    cs: &mut [T],
    ws: &mut [T],
) {
    let (b, h) = (d.b, d.h);
    let (bh, bg) = (b * h, b * 4 * h);
    let mut hg = vec![T::ZERO; bg];
    let (mut hp, mut cp) = (h0.to_vec(), c0.to_vec());
    for s in d.order() {
        match b_hh {
            Some(bias) => hg
                .chunks_exact_mut(4 * h)
                .for_each(|r| r.copy_from_slice(bias)),
            None => hg.fill(T::ZERO),
        }
        hidden_gates(&mut hg, &hp, w_hh, b, h);
        let (o, c) = (&mut out[s * bh..][..bh], &mut cs[s * bh..][..bh]);
        lstm_cell_forward(
            &xw[s * bg..][..bg],
            &hg,
            &cp,
            h,
            o,
            c,
            &mut ws[s * 5 * bh..][..5 * bh],
        );
        hp.copy_from_slice(o);
        cp.copy_from_slice(c);
    }
}

/// Backpropagation through time of `lstm_layer_forward`: from its `ws`, `cs`, `c0`, `w_hh` and
/// the gradients of the output (t, b, h), of the last `h` and of the last `c` (None: zero),
/// fills `dgates` (t, b, 4h: each step's gate gradient, the gradient of `xw` and of the hidden
/// gates), `dh0` and `dc0` (b, h). Each step: `dh = dout_s + dh_next`, the fused cell's
/// backward, `dh_next = dgates_s @ w_hh`.
#[allow(clippy::too_many_arguments)]
pub fn lstm_layer_backward<T: CellFloat + Element>(
    ws: &[T],
    cs: &[T],
    c0: &[T],
    w_hh: &[T],
    dout: Option<&[T]>,
    dhy: Option<&[T]>,
    dcy: Option<&[T]>,
    d: LayerDims,
    dgates: &mut [T],
    dh0: &mut [T],
    dc0: &mut [T],
) {
    let (b, h) = (d.b, d.h);
    let (bh, bg) = (b * h, b * 4 * h);
    let mut dh = dhy.map_or_else(|| vec![T::ZERO; bh], <[T]>::to_vec);
    let mut dc = dcy.map_or_else(|| vec![T::ZERO; bh], <[T]>::to_vec);
    let mut dcx = vec![T::ZERO; bh];
    let order: Vec<usize> = d.order().collect();
    for (k, &s) in order.iter().enumerate().rev() {
        if let Some(dout) = dout {
            dh.iter_mut()
                .zip(&dout[s * bh..][..bh])
                .for_each(|(a, g)| *a = *a + *g);
        }
        // The state this step started from: the previous step's, or the initial one.
        let cx = match k {
            0 => c0,
            _ => &cs[order[k - 1] * bh..][..bh],
        };
        let dg = &mut dgates[s * bg..][..bg];
        lstm_cell_backward(
            &ws[s * 5 * bh..][..5 * bh],
            cx,
            Some(&dh),
            Some(&dc),
            h,
            dg,
            &mut dcx,
        );
        std::mem::swap(&mut dc, &mut dcx);
        // dh_prev = dgates_s @ w_hh: (b, 4h) · (4h, h).
        dh.fill(T::ZERO);
        let l = Mat {
            offset: 0,
            rs: 4 * h as isize,
            cs: 1,
        };
        let r = Mat {
            offset: 0,
            rs: h as isize,
            cs: 1,
        };
        matmul_acc(&mut dh, dg, l, w_hh, r, b, 4 * h, h, T::ONE);
    }
    dh0.copy_from_slice(&dh);
    dc0.copy_from_slice(&dc);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fused backward against central differences of the fused forward, in float64.
    #[test]
    fn backward_matches_finite_differences() {
        let h = 3;
        let ig: Vec<f64> = (0..8 * h)
            .map(|k| ((k * 7) % 11) as f64 / 5.0 - 1.0)
            .collect();
        let hg: Vec<f64> = (0..8 * h)
            .map(|k| ((k * 5) % 13) as f64 / 6.0 - 1.0)
            .collect();
        let cx: Vec<f64> = (0..2 * h).map(|k| k as f64 / 4.0 - 0.6).collect();
        let dhy: Vec<f64> = (0..2 * h).map(|k| 0.3 * k as f64 - 0.5).collect();
        let dcy: Vec<f64> = (0..2 * h).map(|k| 0.7 - 0.2 * k as f64).collect();
        let loss = |ig: &[f64], cx: &[f64]| {
            let (mut hy, mut cy, mut ws) = (vec![0.0; 2 * h], vec![0.0; 2 * h], vec![0.0; 10 * h]);
            lstm_cell_forward(ig, &hg, cx, h, &mut hy, &mut cy, &mut ws);
            hy.iter().zip(&dhy).map(|(a, b)| a * b).sum::<f64>()
                + cy.iter().zip(&dcy).map(|(a, b)| a * b).sum::<f64>()
        };
        let (mut hy, mut cy, mut ws) = (vec![0.0; 2 * h], vec![0.0; 2 * h], vec![0.0; 10 * h]);
        lstm_cell_forward(&ig, &hg, &cx, h, &mut hy, &mut cy, &mut ws);
        let (mut dg, mut dcx) = (vec![0.0; 8 * h], vec![0.0; 2 * h]);
        lstm_cell_backward(&ws, &cx, Some(&dhy), Some(&dcy), h, &mut dg, &mut dcx);
        let eps = 1e-6;
        for k in 0..8 * h {
            let (mut a, mut b) = (ig.clone(), ig.clone());
            a[k] += eps;
            b[k] -= eps;
            let num = (loss(&a, &cx) - loss(&b, &cx)) / (2.0 * eps);
            assert!((num - dg[k]).abs() < 1e-7, "gate {k}: {num} vs {}", dg[k]);
        }
        for k in 0..2 * h {
            let (mut a, mut b) = (cx.clone(), cx.clone());
            a[k] += eps;
            b[k] -= eps;
            let num = (loss(&ig, &a) - loss(&ig, &b)) / (2.0 * eps);
            assert!((num - dcx[k]).abs() < 1e-7, "cx {k}: {num} vs {}", dcx[k]);
        }
    }
}
