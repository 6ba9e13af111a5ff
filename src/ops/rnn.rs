//! The LSTM cell's pointwise part as one op (PyTorch's `_thnn_fused_lstm_cell`, which its CUDA
//! LSTM runs per step): `gates = input_gates + hidden_gates`, chunks `i, f, g, o`,
//! `cy = σ(f) cx + σ(i) tanh(g)`, `hy = σ(o) tanh(cy)`, one node `ThnnFusedLstmCellBackward0`
//! for both outputs instead of the composed step's eleven. The host kernel
//! (`kernels::rnn`) gives the composed step's values bit for bit; elsewhere (a GPU tensor,
//! float16, forward-mode tangents) the op is the composed step itself, nodes and all. Its
//! backward is the host kernel too, except under `create_graph`, where it is the composed
//! derivative in tensor ops, recomputed from the inputs, so it differentiates again (as
//! derivatives.yaml's `_thnn_differentiable_lstm_cell_backward`).

use crate::autograd::{attach_formula, forward, grad_mode, needs_grad, SavedTensor};
use crate::error::{Error, Result};
use crate::kernels;
use crate::ops::activation::{sigmoid_backward, tanh_backward};
use crate::ops::arithmetic::{add, mul};
use crate::ops::shape::cat;
use crate::ops::slicing::chunk;
use crate::ops::unary::{sigmoid, tanh};
use crate::tensor::Tensor;

/// The four activated gates and the new cell state of the composed step, in its order of
/// operations: `(i, f, g, o, cy)`.
fn composed_gates(ig: &Tensor, hg: &Tensor, cx: &Tensor) -> Result<[Tensor; 5]> {
    // The composed step adds `linear(h) + xw`: hidden gates first.
    let gates = add(hg, ig)?;
    let ch = chunk(&gates, 4, 1)?;
    let (i, f, g, o) = (
        sigmoid(&ch[0])?,
        sigmoid(&ch[1])?,
        tanh(&ch[2])?,
        sigmoid(&ch[3])?,
    );
    let cy = add(&mul(&f, cx)?, &mul(&i, &g)?)?;
    Ok([i, f, g, o, cy])
}

/// `(hy, cy)` of one LSTM step from its input gates `ig` and hidden gates `hg` (both
/// `[B, 4H]`) and cell state `cx` (`[B, H]`).
pub fn fused_lstm_cell(ig: &Tensor, hg: &Tensor, cx: &Tensor) -> Result<(Tensor, Tensor)> {
    let (gs, hs, cs) = (ig.shape(), hg.shape(), cx.shape());
    if cs.len() != 2 || gs.as_slice() != [cs[0], 4 * cs[1]] || hs != gs {
        return Err(Error::Runtime(format!(
            "_fused_lstm_cell: expected input_gates and hidden_gates of size [B, 4H] and cx of size [B, H], but got {:?}, {:?} and {:?}",
            gs.as_slice(),
            hs.as_slice(),
            cs.as_slice()
        )));
    }
    let inputs = [ig, hg, cx];
    let fused = if forward::any_tangent(&inputs) {
        None
    } else {
        kernels::rnn::lstm_cell(ig, hg, cx)?
    };
    let Some((hy, cy, ws)) = fused else {
        let [_, _, _, o, cy] = composed_gates(ig, hg, cx)?;
        return Ok((mul(&o, &tanh(&cy)?)?, cy));
    };
    if !needs_grad(&inputs) {
        return Ok((hy, cy));
    }
    let saved = vec![
        SavedTensor::input(ig)?,
        SavedTensor::input(hg)?,
        SavedTensor::input(cx)?,
        SavedTensor::input(&ws)?,
    ];
    attach_formula(
        &[&hy, &cy],
        &inputs,
        "ThnnFusedLstmCellBackward0",
        saved,
        |grads, s| {
            let (dhy, dcy) = (grads[0].as_ref(), grads[1].as_ref());
            if dhy.is_none() && dcy.is_none() {
                return Ok(vec![None, None, None]);
            }
            if !grad_mode::is_grad_enabled() {
                if let Some((dg, dcx)) = kernels::rnn::lstm_cell_backward(&s[3], &s[2], dhy, dcy)? {
                    return Ok(vec![Some(dg.clone()), Some(dg), Some(dcx)]);
                }
            }
            let (dg, dcx) = composed_backward(&s[0], &s[1], &s[2], dhy, dcy)?;
            Ok(vec![Some(dg.clone()), Some(dg), Some(dcx)])
        },
    );
    Ok((hy, cy))
}

/// The composed step's gradients `(d gates, d cx)` in differentiable tensor ops, the
/// activations recomputed from the inputs: each node's formula of the composed graph
/// (`MulBackward0`, `TanhBackward0`, `SigmoidBackward0`, the chunks' cat).
fn composed_backward(
    ig: &Tensor,
    hg: &Tensor,
    cx: &Tensor,
    dhy: Option<&Tensor>,
    dcy: Option<&Tensor>,
) -> Result<(Tensor, Tensor)> {
    let [i, f, g, o, cy] = composed_gates(ig, hg, cx)?;
    let tc = tanh(&cy)?;
    let zeros = || Tensor::zeros_on(&cx.shape(), cx.dtype(), cx.device());
    let (d_o, dc) = match dhy {
        Some(dh) => {
            let dc_h = tanh_backward(&mul(dh, &o)?, &tc)?;
            let dc = match dcy {
                Some(dc) => add(dc, &dc_h)?,
                None => dc_h,
            };
            (mul(dh, &tc)?, dc)
        }
        None => (zeros(), dcy.cloned().unwrap_or_else(zeros)),
    };
    let dcx = mul(&dc, &f)?;
    let parts = [
        sigmoid_backward(&mul(&dc, &g)?, &i)?,
        sigmoid_backward(&mul(&dc, cx)?, &f)?,
        tanh_backward(&mul(&dc, &i)?, &g)?,
        sigmoid_backward(&d_o, &o)?,
    ];
    Ok((cat(&parts, 1)?, dcx))
}
