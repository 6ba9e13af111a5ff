//! The LSTM cell's pointwise part in one pass (PyTorch's `_thnn_fused_lstm_cell` and its
//! backward), over contiguous rows: `gates = input_gates + hidden_gates` split into the
//! chunks `i, f, g, o` of `h` columns each, `cy = σ(f) cx + σ(i) tanh(g)`,
//! `hy = σ(o) tanh(cy)`. Every value is computed with the operations, in the order, of the
//! composed step (`add`, `sigmoid`, `tanh`, `mul`, `add` kernels and their backward
//! formulas: `sigmoid_backward`'s `g (1 - r) r`, `tanh_backward`'s `g (1 - r r)`), so the
//! fused and the composed steps give the same bits.

use super::norm::NormFloat;
use super::vmath::VMath;
use super::with_fma;

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
    let rows = cx.len().checked_div(h).unwrap_or(0);
    with_fma(|| {
        for r in 0..rows {
            let (ig, hg) = (&ig[r * 4 * h..][..4 * h], &hg[r * 4 * h..][..4 * h]);
            let (cx, hy, cy) = (
                &cx[r * h..][..h],
                &mut hy[r * h..][..h],
                &mut cy[r * h..][..h],
            );
            let ws = &mut ws[r * 5 * h..][..5 * h];
            for j in 0..h {
                // The composed step adds `linear(h) + xw`: hidden gates first.
                let i = sigmoid(hg[j] + ig[j]);
                let f = sigmoid(hg[h + j] + ig[h + j]);
                let g = (hg[2 * h + j] + ig[2 * h + j]).vtanh();
                let o = sigmoid(hg[3 * h + j] + ig[3 * h + j]);
                let c = f * cx[j] + i * g;
                let tc = c.vtanh();
                cy[j] = c;
                hy[j] = o * tc;
                ws[j] = i;
                ws[h + j] = f;
                ws[2 * h + j] = g;
                ws[3 * h + j] = o;
                ws[4 * h + j] = tc;
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
    let rows = cx.len().checked_div(h).unwrap_or(0);
    with_fma(|| {
        for r in 0..rows {
            let ws = &ws[r * 5 * h..][..5 * h];
            let cx = &cx[r * h..][..h];
            let dg = &mut dgates[r * 4 * h..][..4 * h];
            let dcx = &mut dcx[r * h..][..h];
            for j in 0..h {
                let (i, f, g, o, tc) = (
                    ws[j],
                    ws[h + j],
                    ws[2 * h + j],
                    ws[3 * h + j],
                    ws[4 * h + j],
                );
                let dh = dhy.map(|d| d[r * h + j]);
                // hy = o * tc: MulBackward0, then TanhBackward0 into cy.
                let (d_o, d_c_h) = match dh {
                    Some(dh) => (dh * tc, (dh * o) * (-tc).fma(tc, T::ONE)),
                    None => (T::ZERO, T::ZERO),
                };
                let dc = match (dcy.map(|d| d[r * h + j]), dh) {
                    (Some(dc), Some(_)) => dc + d_c_h,
                    (Some(dc), None) => dc,
                    (None, _) => d_c_h,
                };
                // cy = f * cx + i * g.
                let (d_f, d_i, d_g) = (dc * cx[j], dc * g, dc * i);
                dcx[j] = dc * f;
                dg[j] = (d_i * (T::ONE - i)) * i;
                dg[h + j] = (d_f * (T::ONE - f)) * f;
                dg[2 * h + j] = d_g * (-g).fma(g, T::ONE);
                dg[3 * h + j] = (d_o * (T::ONE - o)) * o;
            }
        }
    })
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
