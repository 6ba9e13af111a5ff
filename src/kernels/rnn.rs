//! The LSTM cell's fused pointwise kernels on the host (`backend::cpu::rnn`). Host-only: None
//! for a tensor on the GPU or a dtype other than float32 / float64, where the op composes
//! the cell from the primitive set (Note [Kernel dispatch]).

use crate::backend::cpu::rnn::{self as cpu, CellFloat};
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::element::Element;
use crate::tensor::Tensor;

/// Whether the host kernels take these tensors: one float32 / float64 dtype, all on the host.
fn applies(ts: &[&Tensor]) -> bool {
    let dtype = ts[0].dtype();
    matches!(dtype, DType::F32 | DType::F64)
        && ts
            .iter()
            .all(|t| t.dtype() == dtype && !super::host_reads_back(t))
}

/// Whether the host kernels take these tensors (one float32 / float64 dtype, all on the
/// host), so an op can decide before it computes what the kernels would read.
pub fn on_host(ts: &[&Tensor]) -> bool {
    applies(ts)
}

/// A host buffer of `n` copies of `v`, reserved fallibly.
fn buffer<T: Element>(n: usize, v: T) -> Result<Vec<T>> {
    let mut b = crate::tensor::pool::try_alloc::<T>(n)?;
    b.resize(n, v);
    Ok(b)
}

/// The fused cell's forward: `(hy, cy, workspace)` from the gate inputs `ig` / `hg` (B, 4H)
/// and `cx` (B, H), shapes checked by the caller; the workspace (B, 5H) is what the backward
/// reads. None where the host kernel does not apply.
pub fn lstm_cell(
    ig: &Tensor,
    hg: &Tensor,
    cx: &Tensor,
) -> Result<Option<(Tensor, Tensor, Tensor)>> {
    if !applies(&[ig, hg, cx]) {
        return Ok(None);
    }
    fn typed<T: CellFloat + Element>(
        ig: &Tensor,
        hg: &Tensor,
        cx: &Tensor,
    ) -> Result<(Tensor, Tensor, Tensor)> {
        let shape = cx.shape();
        let (b, h) = (shape[0], shape[1]);
        let (mut hy, mut cy) = (buffer(b * h, T::ZERO)?, buffer(b * h, T::ZERO)?);
        let mut ws = buffer(b * 5 * h, T::ZERO)?;
        super::with_host::<T, _>(ig, |ig| {
            super::with_host::<T, _>(hg, |hg| {
                super::with_host::<T, _>(cx, |cx| {
                    cpu::lstm_cell_forward(ig, hg, cx, h, &mut hy, &mut cy, &mut ws)
                })
            })
        });
        let device = cx.device();
        Ok((
            Tensor::from_vec_on(hy, &[b, h], device),
            Tensor::from_vec_on(cy, &[b, h], device),
            Tensor::from_vec_on(ws, &[b, 5 * h], device),
        ))
    }
    Ok(Some(match ig.dtype() {
        DType::F32 => typed::<f32>(ig, hg, cx)?,
        _ => typed::<f64>(ig, hg, cx)?,
    }))
}

/// The fused cell's backward from its workspace and `cx`: `(d gates, d cx)`, the outputs'
/// gradients `dhy` / `dcy` None where they got none. None where the host kernel does not
/// apply (then the op's formula composes tensor ops).
pub fn lstm_cell_backward(
    ws: &Tensor,
    cx: &Tensor,
    dhy: Option<&Tensor>,
    dcy: Option<&Tensor>,
) -> Result<Option<(Tensor, Tensor)>> {
    let mut all = vec![ws, cx];
    all.extend(dhy);
    all.extend(dcy);
    if !applies(&all) || [dhy, dcy].iter().flatten().any(|d| d.shape() != cx.shape()) {
        return Ok(None);
    }
    fn typed<T: CellFloat + Element>(
        ws: &Tensor,
        cx: &Tensor,
        dhy: Option<&Tensor>,
        dcy: Option<&Tensor>,
    ) -> Result<(Tensor, Tensor)> {
        let shape = cx.shape();
        let (b, h) = (shape[0], shape[1]);
        let (mut dg, mut dcx) = (buffer(b * 4 * h, T::ZERO)?, buffer(b * h, T::ZERO)?);
        let (dhy, dcy) = (dhy.map(|t| t.to_vec::<T>()), dcy.map(|t| t.to_vec::<T>()));
        super::with_host::<T, _>(ws, |ws| {
            super::with_host::<T, _>(cx, |cx| {
                cpu::lstm_cell_backward(
                    ws,
                    cx,
                    dhy.as_deref(),
                    dcy.as_deref(),
                    h,
                    &mut dg,
                    &mut dcx,
                )
            })
        });
        let device = cx.device();
        Ok((
            Tensor::from_vec_on(dg, &[b, 4 * h], device),
            Tensor::from_vec_on(dcx, &[b, h], device),
        ))
    }
    Ok(Some(match ws.dtype() {
        DType::F32 => typed::<f32>(ws, cx, dhy, dcy)?,
        _ => typed::<f64>(ws, cx, dhy, dcy)?,
    }))
}

/// What one LSTM layer's forward leaves: the output (t, b, h), the last `h` and `c` (b, h), and
/// for the backward every step's cell state (t, b, h) and cell workspace (t, b, 5h).
pub struct LstmLayer {
    pub out: Tensor,
    pub hy: Tensor,
    pub cy: Tensor,
    pub cs: Tensor,
    pub ws: Tensor,
}

/// One LSTM layer over all its steps (`cpu::lstm_layer_forward`): `xw` the input projection
/// (t, b, 4h) with `b_ih` added, `w_hh` (4h, h), `b_hh` (4h), `h0` / `c0` (b, h), shapes
/// checked by the caller. None where the host kernel does not apply.
pub fn lstm_layer(
    xw: &Tensor,
    w_hh: &Tensor,
    b_hh: Option<&Tensor>,
    h0: &Tensor,
    c0: &Tensor,
    reverse: bool,
) -> Result<Option<LstmLayer>> {
    let mut all = vec![xw, w_hh, h0, c0];
    all.extend(b_hh);
    if !applies(&all) {
        return Ok(None);
    }
    fn typed<T: CellFloat + Element>(
        xw: &Tensor,
        w_hh: &Tensor,
        b_hh: Option<&Tensor>,
        h0: &Tensor,
        c0: &Tensor,
        d: cpu::LayerDims,
    ) -> Result<LstmLayer> {
        let (t, b, h) = (d.t, d.b, d.h);
        let n = t * b * h;
        let (mut out, mut cs) = (buffer(n, T::ZERO)?, buffer(n, T::ZERO)?);
        let mut ws = buffer(5 * n, T::ZERO)?;
        let bias = b_hh.map(|b| b.to_vec::<T>());
        super::with_host::<T, _>(xw, |xw| {
            super::with_host::<T, _>(w_hh, |w| {
                super::with_host::<T, _>(h0, |h0| {
                    super::with_host::<T, _>(c0, |c0| {
                        cpu::lstm_layer_forward(
                            xw,
                            w,
                            bias.as_deref(),
                            h0,
                            c0,
                            d,
                            &mut out,
                            &mut cs,
                            &mut ws,
                        )
                    })
                })
            })
        });
        // The last step run: t - 1 forwards, 0 in reverse.
        let last = if d.reverse { 0 } else { t - 1 };
        let (hy, cy) = (
            out[last * b * h..][..b * h].to_vec(),
            cs[last * b * h..][..b * h].to_vec(),
        );
        let device = h0.device();
        Ok(LstmLayer {
            out: Tensor::from_vec_on(out, &[t, b, h], device),
            hy: Tensor::from_vec_on(hy, &[b, h], device),
            cy: Tensor::from_vec_on(cy, &[b, h], device),
            cs: Tensor::from_vec_on(cs, &[t, b, h], device),
            ws: Tensor::from_vec_on(ws, &[t, b, 5 * h], device),
        })
    }
    let (xs, hs) = (xw.shape(), h0.shape());
    let d = cpu::LayerDims {
        t: xs[0],
        b: hs[0],
        h: hs[1],
        reverse,
    };
    if d.t == 0 || d.b == 0 || d.h == 0 {
        return Ok(None);
    }
    Ok(Some(match xw.dtype() {
        DType::F32 => typed::<f32>(xw, w_hh, b_hh, h0, c0, d)?,
        _ => typed::<f64>(xw, w_hh, b_hh, h0, c0, d)?,
    }))
}

/// The backward of `lstm_layer` from its `ws` / `cs`, `c0` and `w_hh`, and the gradients of
/// its outputs (None where one got none): `(d gates (t, b, 4h), d h0, d c0)`. None where the
/// host kernel does not apply.
#[allow(clippy::too_many_arguments)]
pub fn lstm_layer_backward(
    ws: &Tensor,
    cs: &Tensor,
    c0: &Tensor,
    w_hh: &Tensor,
    dout: Option<&Tensor>,
    dhy: Option<&Tensor>,
    dcy: Option<&Tensor>,
    reverse: bool,
) -> Result<Option<(Tensor, Tensor, Tensor)>> {
    let mut all = vec![ws, cs, c0, w_hh];
    all.extend(dout);
    all.extend(dhy);
    all.extend(dcy);
    let (s, c) = (cs.shape(), c0.shape());
    if !applies(&all)
        || dout.is_some_and(|g| g.shape() != s)
        || [dhy, dcy].iter().flatten().any(|g| g.shape() != c)
    {
        return Ok(None);
    }
    let d = cpu::LayerDims {
        t: s[0],
        b: s[1],
        h: s[2],
        reverse,
    };
    #[allow(clippy::too_many_arguments)]
    fn typed<T: CellFloat + Element>(
        ws: &Tensor,
        cs: &Tensor,
        c0: &Tensor,
        w_hh: &Tensor,
        dout: Option<&Tensor>,
        dhy: Option<&Tensor>,
        dcy: Option<&Tensor>,
        d: cpu::LayerDims,
    ) -> Result<(Tensor, Tensor, Tensor)> {
        let (t, b, h) = (d.t, d.b, d.h);
        let mut dg = buffer(t * b * 4 * h, T::ZERO)?;
        let (mut dh0, mut dc0) = (buffer(b * h, T::ZERO)?, buffer(b * h, T::ZERO)?);
        let dout = dout.map(|g| g.to_vec::<T>());
        let (dhy, dcy) = (dhy.map(|g| g.to_vec::<T>()), dcy.map(|g| g.to_vec::<T>()));
        super::with_host::<T, _>(ws, |ws| {
            super::with_host::<T, _>(cs, |cs| {
                super::with_host::<T, _>(c0, |c0| {
                    super::with_host::<T, _>(w_hh, |w| {
                        cpu::lstm_layer_backward(
                            ws,
                            cs,
                            c0,
                            w,
                            dout.as_deref(),
                            dhy.as_deref(),
                            dcy.as_deref(),
                            d,
                            &mut dg,
                            &mut dh0,
                            &mut dc0,
                        )
                    })
                })
            })
        });
        let device = c0.device();
        Ok((
            Tensor::from_vec_on(dg, &[t, b, 4 * h], device),
            Tensor::from_vec_on(dh0, &[b, h], device),
            Tensor::from_vec_on(dc0, &[b, h], device),
        ))
    }
    Ok(Some(match ws.dtype() {
        DType::F32 => typed::<f32>(ws, cs, c0, w_hh, dout, dhy, dcy, d)?,
        _ => typed::<f64>(ws, cs, c0, w_hh, dout, dhy, dcy, d)?,
    }))
}
