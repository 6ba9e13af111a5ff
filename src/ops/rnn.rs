//! The LSTM cell's pointwise part as one op (PyTorch's `_thnn_fused_lstm_cell`, which its CUDA
//! LSTM runs per step): `gates = input_gates + hidden_gates`, chunks `i, f, g, o`,
//! `cy = σ(f) cx + σ(i) tanh(g)`, `hy = σ(o) tanh(cy)`, one node `ThnnFusedLstmCellBackward0`
//! for both outputs instead of the composed step's eleven. The host kernel
//! (`kernels::rnn`) gives the composed step's values bit for bit; elsewhere (a GPU tensor,
//! float16, forward-mode tangents) the op is the composed step itself, nodes and all. Its
//! backward is the host kernel too, except under `create_graph`, where it is the composed
//! derivative in tensor ops, recomputed from the inputs, so it differentiates again (as
//! derivatives.yaml's `_thnn_differentiable_lstm_cell_backward`).

use crate::autograd::formula::Values;
use crate::autograd::saved::Value;
use crate::autograd::{
    attach_formula, attach_named, forward, grad_mode, needs_grad, GradModeGuard, SavedTensor,
};
use crate::dtype::{DType, Scalar};
use crate::error::{Error, Result};
use crate::kernels;
use crate::ops::activation::{sigmoid_backward, tanh_backward};
use crate::ops::arithmetic::{add, mul};
use crate::ops::matmul::{addmm, mm};
use crate::ops::movement::{reshape, t as transpose_2d, unsqueeze};
use crate::ops::reduce::sum;
use crate::ops::shape::{cat, stack};
use crate::ops::slicing::{chunk, narrow, select};
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

/// What `lstm_layer` needs beyond its tensors: the direction, and the module's settings its
/// node shows (`_saved_bidirectional`, `_saved_num_layers`, `_saved_train`).
#[derive(Clone, Copy)]
pub struct LayerArgs {
    pub reverse: bool,
    pub bidirectional: bool,
    pub num_layers: i64,
    pub train: bool,
}

/// The tensors of one LSTM layer and direction: `input` (t, b, i), `w_ih` (4h, i), `w_hh`
/// (4h, h), the biases (4h) if any, `hx` / `cx` (b, h).
pub struct LayerInputs<'a> {
    pub input: &'a Tensor,
    pub w_ih: &'a Tensor,
    pub w_hh: &'a Tensor,
    pub b_ih: Option<&'a Tensor>,
    pub b_hh: Option<&'a Tensor>,
    pub hx: &'a Tensor,
    pub cx: &'a Tensor,
}

/// PyTorch's names of what the layer's node saves, in the order saved (the last two, the
/// cell states and the workspace in gradrs's layout, PyTorch shows as `result3`, its own
/// workspace, and not at all).
const LAYER_SAVED: &[&str] = &[
    "input", "weight0", "weight1", "weight2", "weight3", "hx_", "cx_", "result0", "result1",
    "result2", "result3", "",
];
const LAYER_SAVED_NO_BIAS: &[&str] = &[
    "input", "weight0", "weight1", "hx_", "cx_", "result0", "result1", "result2", "result3", "",
];

/// Whether the shapes are one LSTM layer's (else the caller's composed path reports them).
fn layer_shapes_fit(x: &LayerInputs<'_>) -> bool {
    let (s, wi, wh) = (x.input.shape(), x.w_ih.shape(), x.w_hh.shape());
    if s.len() != 3 || wi.len() != 2 || wh.len() != 2 {
        return false;
    }
    let (t, b, i, h) = (s[0], s[1], s[2], wh[1]);
    let bias_fits = |bias: Option<&Tensor>| bias.is_none_or(|v| v.shape().as_slice() == [4 * h]);
    t > 0
        && b > 0
        && h > 0
        && wi.as_slice() == [4 * h, i]
        && wh[0] == 4 * h
        && x.hx.shape().as_slice() == [b, h]
        && x.cx.shape().as_slice() == [b, h]
        && bias_fits(x.b_ih)
        && bias_fits(x.b_hh)
}

/// `input @ w_ih^T + b_ih` for every step at once: (t, b, 4h).
fn input_projection(x: &Tensor, w_ih: &Tensor, b_ih: Option<&Tensor>) -> Result<Tensor> {
    let s = x.shape();
    let (t, b, i) = (s[0] as i64, s[1] as i64, s[2] as i64);
    let x2 = reshape(x, &[t * b, i])?;
    let wt = transpose_2d(w_ih)?;
    let xw = match b_ih {
        Some(bias) => addmm(bias, &x2, &wt, Scalar::Float(1.0), Scalar::Float(1.0))?,
        None => mm(&x2, &wt)?,
    };
    reshape(&xw, &[t, b, -1])
}

/// One LSTM layer and direction over all its steps as one op, PyTorch's `mkldnn_rnn_layer`
/// (what its float32 CPU `nn.LSTM` runs): the input projection of every step as one product,
/// the steps on the host (`kernels::rnn::lstm_layer`) into one output, and one node
/// `MkldnnRnnLayerBackward0` for `(output, hy, cy)` whose backward runs backpropagation
/// through time on the host, the weights' gradients each one product over all steps. Under
/// `create_graph` the backward is PyTorch's `mkldnn_rnn_layer_differentiable_backward`:
/// the steps' derivatives in tensor ops, recomputed from the inputs, so it differentiates
/// again. None where it does not apply: not float32 (PyTorch composes float64), not on the
/// host, forward-mode tangents (PyTorch's oneDNN layer has no forward formula; gradrs keeps
/// the composed step's) or shapes that are no layer's; the caller composes the steps then.
pub fn lstm_layer(
    x: &LayerInputs<'_>,
    args: LayerArgs,
) -> Result<Option<(Tensor, Tensor, Tensor)>> {
    let mut all = vec![x.input, x.w_ih, x.w_hh, x.hx, x.cx];
    all.extend(x.b_ih);
    all.extend(x.b_hh);
    if all[0].dtype() != DType::F32
        || !kernels::rnn::on_host(&all)
        || forward::any_tangent(&all)
        || !layer_shapes_fit(x)
        || x.b_ih.is_some() != x.b_hh.is_some()
    {
        return Ok(None);
    }
    let layer = {
        let _off = GradModeGuard::new(false);
        let xw = input_projection(x.input, x.w_ih, x.b_ih)?;
        kernels::rnn::lstm_layer(&xw, x.w_hh, x.b_hh, x.hx, x.cx, args.reverse)?
    };
    let Some(layer) = layer else {
        return Ok(None);
    };
    let kernels::rnn::LstmLayer {
        out,
        hy,
        cy,
        cs,
        ws,
    } = layer;
    // The absent biases' edges: a tensor that requires no grad stands for each.
    let none = Tensor::zeros_on(&[0], DType::F32, x.input.device());
    let inputs = [
        x.input,
        x.w_ih,
        x.w_hh,
        x.b_ih.unwrap_or(&none),
        x.b_hh.unwrap_or(&none),
        x.hx,
        x.cx,
    ];
    if !needs_grad(&inputs) {
        return Ok(Some((out, hy, cy)));
    }
    let has_bias = x.b_ih.is_some();
    let mut saved = vec![
        SavedTensor::input(x.input)?,
        SavedTensor::input(x.w_ih)?,
        SavedTensor::input(x.w_hh)?,
    ];
    if let (Some(bi), Some(bh)) = (x.b_ih, x.b_hh) {
        saved.push(SavedTensor::input(bi)?);
        saved.push(SavedTensor::input(bh)?);
    }
    saved.extend([
        SavedTensor::input(x.hx)?,
        SavedTensor::input(x.cx)?,
        SavedTensor::output(&out, 0)?,
        SavedTensor::output(&hy, 1)?,
        SavedTensor::output(&cy, 2)?,
        SavedTensor::input(&ws)?,
        SavedTensor::input(&cs)?,
    ]);
    let h = x.w_hh.shape()[1] as i64;
    let values: Values = [
        ("batch_first", Value::Bool(false)),
        ("batch_sizes", Value::Ints(Vec::new())),
        ("bidirectional", Value::Bool(args.bidirectional)),
        ("has_biases", Value::Bool(has_bias)),
        ("hidden_size", Value::Int(h)),
        ("mode", Value::Int(2)),
        ("num_layers", Value::Int(args.num_layers)),
        ("reverse", Value::Bool(args.reverse)),
        ("train", Value::Bool(args.train)),
    ]
    .into_iter()
    .collect();
    let names = if has_bias {
        LAYER_SAVED
    } else {
        LAYER_SAVED_NO_BIAS
    };
    let reverse = args.reverse;
    attach_named(
        &[&out, &hy, &cy],
        &inputs,
        "MkldnnRnnLayerBackward0",
        saved,
        names,
        values,
        move |grads, s| {
            let (dout, dhy, dcy) = (grads[0].as_ref(), grads[1].as_ref(), grads[2].as_ref());
            if dout.is_none() && dhy.is_none() && dcy.is_none() {
                return Ok(vec![None; 7]);
            }
            let (b_ih, b_hh, rest) = if has_bias {
                (Some(&s[3]), Some(&s[4]), &s[5..])
            } else {
                (None, None, &s[3..])
            };
            let x = LayerInputs {
                input: &s[0],
                w_ih: &s[1],
                w_hh: &s[2],
                b_ih,
                b_hh,
                hx: &rest[0],
                cx: &rest[1],
            };
            let g = LayerGrads { dout, dhy, dcy };
            let (out, ws, cs) = (&rest[2], &rest[5], &rest[6]);
            let fast = if grad_mode::is_grad_enabled() {
                None
            } else {
                kernels::rnn::lstm_layer_backward(ws, cs, x.cx, x.w_hh, dout, dhy, dcy, reverse)?
            };
            let grads = match fast {
                Some((dg, dh0, dc0)) => {
                    let hprev = previous_states(out, x.hx, reverse)?;
                    layer_weight_grads(&x, &dg, &hprev, dh0, dc0)?
                }
                None => differentiable_layer_backward(&x, &g, reverse)?,
            };
            Ok(grads
                .into_iter()
                .enumerate()
                .map(|(k, g)| {
                    if !has_bias && (k == 3 || k == 4) {
                        None
                    } else {
                        g
                    }
                })
                .collect())
        },
    );
    Ok(Some((out, hy, cy)))
}

/// The gradients reaching a layer's node: of its output, its last `h` and its last `c`.
struct LayerGrads<'a> {
    dout: Option<&'a Tensor>,
    dhy: Option<&'a Tensor>,
    dcy: Option<&'a Tensor>,
}

/// The `h` each step started from, in step order (t, b, h): the initial state, then the
/// output one step behind (ahead, in reverse).
fn previous_states(out: &Tensor, hx: &Tensor, reverse: bool) -> Result<Tensor> {
    let t = out.shape()[0] as i64;
    let h0 = unsqueeze(hx, 0)?;
    if reverse {
        cat(&[narrow(out, 0, 1, t - 1)?, h0], 0)
    } else {
        cat(&[h0, narrow(out, 0, 0, t - 1)?], 0)
    }
}

/// The layer's gradients from its steps' gate gradients `dg` (t, b, 4h) and the states they
/// started from `hprev` (t, b, h): `[input, w_ih, w_hh, b_ih, b_hh, hx, cx]`, each weight's
/// one product (or column sum) over all steps.
fn layer_weight_grads(
    x: &LayerInputs<'_>,
    dg: &Tensor,
    hprev: &Tensor,
    dh0: Tensor,
    dc0: Tensor,
) -> Result<Vec<Option<Tensor>>> {
    let s = x.input.shape();
    let (t, b, i) = (s[0] as i64, s[1] as i64, s[2] as i64);
    let dg2 = reshape(dg, &[t * b, -1])?;
    let dgt = transpose_2d(&dg2)?;
    let dx = reshape(&mm(&dg2, x.w_ih)?, &[t, b, i])?;
    let dw_ih = mm(&dgt, &reshape(x.input, &[t * b, i])?)?;
    let dw_hh = mm(&dgt, &reshape(hprev, &[t * b, -1])?)?;
    let db = sum(&dg2, Some(&[0]), false)?;
    Ok(vec![
        Some(dx),
        Some(dw_ih),
        Some(dw_hh),
        Some(db.clone()),
        Some(db),
        Some(dh0),
        Some(dc0),
    ])
}

/// The layer's backward in differentiable tensor ops (`create_graph`, or where the host
/// kernel does not apply): the steps recomputed from the inputs, then each step's composed
/// derivative, last step first.
fn differentiable_layer_backward(
    x: &LayerInputs<'_>,
    g: &LayerGrads<'_>,
    reverse: bool,
) -> Result<Vec<Option<Tensor>>> {
    let t = x.input.shape()[0];
    let xw = input_projection(x.input, x.w_ih, x.b_ih)?;
    let wt = transpose_2d(x.w_hh)?;
    let order: Vec<usize> = (0..t)
        .map(|s| if reverse { t - 1 - s } else { s })
        .collect();
    // Per step (in step index order): input gates, hidden gates, the h and c it started from.
    let mut steps: Vec<Option<[Tensor; 4]>> = vec![None; t];
    let (mut h, mut c) = (x.hx.clone(), x.cx.clone());
    for &s in &order {
        let ig = select(&xw, 0, s as i64)?;
        let hg = match x.b_hh {
            Some(bias) => addmm(bias, &h, &wt, Scalar::Float(1.0), Scalar::Float(1.0))?,
            None => mm(&h, &wt)?,
        };
        let (hy, cy) = fused_lstm_cell(&ig, &hg, &c)?;
        steps[s] = Some([ig, hg, h, c]);
        (h, c) = (hy, cy);
    }
    let zeros = || Tensor::zeros_on(&x.cx.shape(), x.cx.dtype(), x.cx.device());
    let mut dh = g.dhy.cloned().unwrap_or_else(zeros);
    let mut dc = g.dcy.cloned().unwrap_or_else(zeros);
    let mut dgs: Vec<Option<Tensor>> = vec![None; t];
    for &s in order.iter().rev() {
        let Some([ig, hg, _, cx]) = &steps[s] else {
            return Err(Error::Runtime(
                "lstm layer backward: a step was not run".into(),
            ));
        };
        if let Some(dout) = g.dout {
            dh = add(&dh, &select(dout, 0, s as i64)?)?;
        }
        let (dg, dcx) = composed_backward(ig, hg, cx, Some(&dh), Some(&dc))?;
        dh = mm(&dg, x.w_hh)?;
        dc = dcx;
        dgs[s] = Some(dg);
    }
    let dgs: Vec<Tensor> = dgs.into_iter().flatten().collect();
    let hprev: Vec<Tensor> = steps.into_iter().flatten().map(|[_, _, h, _]| h).collect();
    let dg = stack(&dgs, 0)?;
    layer_weight_grads(x, &dg, &stack(&hprev, 0)?, dh, dc)
}
