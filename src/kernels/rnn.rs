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
