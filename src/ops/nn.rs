//! Neural-network ops that need their own kernels: softmax/log_softmax, nll_loss and the
//! im2col pair (unfold/fold) that convolution and pooling are built from.

use crate::autograd::{needs_grad, record_formula, SavedTensor};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::arith::{self, mul};
use crate::ops::creation::contiguous_clone;
use crate::ops::pointwise::float_input;
use crate::ops::reduce::sum;
use crate::shape::wrap_dim;
use crate::tensor::Tensor;

/// Softmax (or log-softmax) along `dim`, on a contiguous copy with `dim` moved last.
fn softmax_data(x: &Tensor, dim: usize, log: bool) -> Result<Tensor> {
    if let Some(out) = crate::ops::gpu::softmax(&x.detach(), dim, log)? {
        return Ok(out);
    }
    let nd = x.dim();
    let last = nd.saturating_sub(1) as i64;
    let moved = if nd == 0 {
        x.clone()
    } else {
        contiguous_clone(&crate::ops::movement::transpose(
            &x.detach(),
            dim as i64,
            last,
        )?)
    };
    let n = moved.shape().last().copied().unwrap_or(1).max(1);
    macro_rules! run {
        ($T:ty) => {{
            let mut v = moved.to_vec::<$T>();
            let body = |r: &mut [$T]| {
                let m = r.iter().copied().fold(<$T>::NEG_INFINITY, <$T>::max);
                let m = if m.is_finite() { m } else { 0.0 };
                let mut s = 0.0f64;
                for e in r.iter_mut() {
                    let z = *e - m;
                    s += (z as f64).exp();
                    if !log {
                        *e = z.exp();
                    } else {
                        *e = z;
                    }
                }
                if log {
                    let ls = s.ln() as $T;
                    r.iter_mut().for_each(|e| *e -= ls);
                } else {
                    let inv = (1.0 / s) as $T;
                    r.iter_mut().for_each(|e| *e *= inv);
                }
            };
            if v.len() >= crate::backend::cpu::PAR_THRESHOLD {
                use rayon::prelude::*;
                v.par_chunks_mut(n).for_each(body);
            } else {
                v.chunks_mut(n).for_each(body);
            }
            Tensor::from_vec_on(v, &moved.shape(), x.device())
        }};
    }
    let t = match moved.dtype() {
        DType::F32 => run!(f32),
        _ => run!(f64),
    };
    if nd == 0 {
        return Ok(t);
    }
    Ok(contiguous_clone(&crate::ops::movement::transpose(
        &t, dim as i64, last,
    )?))
}

/// `softmax(x, dim)` (SoftmaxBackward0) / `log_softmax` (LogSoftmaxBackward0).
pub fn softmax(x: &Tensor, dim: i64, log: bool) -> Result<Tensor> {
    let x = float_input(x);
    let d = wrap_dim(dim, x.dim())?;
    let out = softmax_data(&x, d, log)?;
    if !needs_grad(&[&x]) {
        return Ok(out);
    }
    let name = if log {
        "LogSoftmaxBackward0"
    } else {
        "SoftmaxBackward0"
    };
    let saved = vec![SavedTensor::output(&out, 0)];
    Ok(record_formula(out, &[&x], name, saved, move |g, s| {
        let y = &s[0];
        let dl = [d as i64];
        let gi = if log {
            // g - exp(y) * sum(g)
            let e = arith::un(crate::ops::unary::UnaryOp::Exp, y)?;
            arith::sub(g, &mul(&e, &sum(g, Some(&dl), true)?)?)?
        } else {
            // y * (g - sum(g * y))
            let gy = mul(g, y)?;
            mul(y, &arith::sub(g, &sum(&gy, Some(&dl), true)?)?)?
        };
        Ok(vec![Some(gi)])
    }))
}

/// `nll_loss(logp [N, C] or [C], target)`: NllLossBackward0. `reduction`: 0 none, 1 mean, 2 sum.
pub fn nll_loss(
    logp: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    ignore_index: i64,
    reduction: u8,
) -> Result<Tensor> {
    let nd = logp.dim();
    if !(1..=2).contains(&nd) {
        return Err(Error::Value(format!(
            "Expected 1 or 2 dimensions (got {nd})"
        )));
    }
    if target.dtype() != DType::I64 {
        return Err(Error::Runtime(format!(
            "expected scalar type Long but found {}",
            crate::dtype::pretty_kernel_name(target.dtype())
        )));
    }
    let shape = logp.shape();
    let (n, c) = if nd == 2 {
        (shape[0], shape[1])
    } else {
        (1, shape[0])
    };
    if target.numel() != n || (nd == 2 && target.dim() != 1) {
        return Err(Error::Value(format!(
            "Expected input batch_size ({n}) to match target batch_size ({}).",
            target.shape().first().copied().unwrap_or(1)
        )));
    }
    let tv = target.to_vec::<i64>();
    for &t in &tv {
        if t != ignore_index && (t < 0 || t >= c as i64) {
            return Err(Error::Index(format!("Target {t} is out of bounds.")));
        }
    }
    let w: Vec<f64> = match weight {
        Some(w) => w.to_f64_vec(),
        None => vec![1.0; c],
    };
    let dtype = logp.dtype();
    // Each sample's weight (0 when ignored) and their total, the mean's divisor.
    let coef: Vec<f64> = tv
        .iter()
        .map(|&t| {
            if t == ignore_index {
                0.0
            } else {
                w[t as usize]
            }
        })
        .collect();
    let total_w: f64 = coef.iter().sum();
    let mut gpu_weights = None;
    let out = if logp.device().is_gpu() && dtype == DType::F32 {
        let (out, weights) = nll_forward_gpu(logp, &tv, &coef, total_w, ignore_index, reduction)?;
        gpu_weights = Some(weights);
        out
    } else {
        let lp = contiguous_clone(logp).to_f64_vec();
        let mut per = vec![0f64; n];
        for i in 0..n {
            let t = tv[i];
            if t != ignore_index {
                per[i] = -coef[i] * lp[i * c + t as usize];
            }
        }
        match reduction {
            0 => crate::ops::creation::cast_data(
                &Tensor::from_vec_on(
                    per,
                    if nd == 2 {
                        std::slice::from_ref(&n)
                    } else {
                        &[]
                    },
                    logp.device(),
                ),
                dtype,
            ),
            1 => Tensor::full_on(
                &[],
                crate::dtype::Scalar::Float(per.iter().sum::<f64>() / total_w),
                dtype,
                logp.device(),
            ),
            _ => Tensor::full_on(
                &[],
                crate::dtype::Scalar::Float(per.iter().sum::<f64>()),
                dtype,
                logp.device(),
            ),
        }
    };
    if !needs_grad(&[logp]) {
        return Ok(out);
    }
    // d loss / d logp[i, t_i] = -w[t_i] (/ total weight for mean); a sparse matrix.
    let scale = if reduction == 1 { 1.0 / total_w } else { 1.0 };
    let dl = match gpu_weights {
        // The forward's uploaded -coef matrix, scaled on the GPU.
        Some(w) => {
            let _g = crate::autograd::GradModeGuard::new(false);
            arith::muls(&w, scale)?
        }
        None => {
            let mut dense = vec![0f64; n * c];
            for i in 0..n {
                if tv[i] != ignore_index {
                    dense[i * c + tv[i] as usize] = -coef[i] * scale;
                }
            }
            crate::ops::creation::cast_data(
                &Tensor::from_vec_on(dense, &shape, logp.device()),
                dtype,
            )
        }
    };
    Ok(record_formula(
        out,
        &[logp],
        "NllLossBackward0",
        vec![],
        move |g, _| {
            let g = if reduction == 0 && nd == 2 {
                crate::ops::movement::unsqueeze(g, 1)?
            } else {
                g.clone()
            };
            Ok(vec![Some(mul(&dl, &g)?)])
        },
    ))
}

/// nll_loss's forward on the GPU, without reading the log-probabilities back (also gives the
/// -coef matrix, which the backward reuses): the target
/// entries are selected by a mask built from the (host-side) targets — a select, so -inf
/// elsewhere in a row cannot leak in as 0 * -inf — weighted by -coef and summed.
fn nll_forward_gpu(
    logp: &Tensor,
    tv: &[i64],
    coef: &[f64],
    total_w: f64,
    ignore_index: i64,
    reduction: u8,
) -> Result<(Tensor, Tensor)> {
    let _g = crate::autograd::GradModeGuard::new(false);
    let (nd, shape) = (logp.dim(), logp.shape());
    let c = *shape.last().expect("nll_loss input has 1 or 2 dims");
    let mut mask = vec![false; tv.len() * c];
    let mut weights = vec![0f32; tv.len() * c];
    for (i, &t) in tv.iter().enumerate() {
        if t != ignore_index {
            mask[i * c + t as usize] = true;
            weights[i * c + t as usize] = -coef[i] as f32;
        }
    }
    let dev = logp.device();
    let mask = Tensor::from_vec_on(mask, &shape, dev);
    let weights = Tensor::from_vec_on(weights, &shape, dev);
    let zero = crate::ops::Operand::Scalar(crate::dtype::Scalar::Float(0.0));
    let picked =
        crate::ops::binary::where_(&mask, crate::ops::Operand::Tensor(logp.detach()), zero)?;
    let per = mul(&picked, &weights)?;
    let out = match reduction {
        0 if nd == 2 => sum(&per, Some(&[1]), false)?,
        0 => sum(&per, None, false)?,
        1 => arith::muls(&sum(&per, None, false)?, 1.0 / total_w)?,
        _ => sum(&per, None, false)?,
    };
    Ok((out, weights))
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
    pub fn geom(
        &self,
        n: usize,
        c: usize,
        hw: [usize; 2],
        out: [usize; 2],
    ) -> crate::backend::wgpu::WindowGeom {
        crate::backend::wgpu::WindowGeom {
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

/// `[N, C, H, W]` -> `[N, C*kh*kw, L]` columns (padding reads `pad_value`).
fn unfold_data(x: &Tensor, win: Window, pad_value: f64) -> Result<Tensor> {
    let s = x.shape();
    let (n, c, h, w) = (s[0], s[1], s[2], s[3]);
    let [oh, ow] = win.out_size(h, w)?;
    let [kh, kw] = win.kernel;
    let l = oh * ow;
    let rows = c * kh * kw;
    let geom = win.geom(n, c, [h, w], [oh, ow]);
    let op = crate::backend::wgpu::WindowOp::Im2Col;
    if let Some(out) = crate::ops::gpu::window(op, x, &geom, pad_value, &[n, rows, l])? {
        return Ok(out);
    }
    let xs = contiguous_clone(x);
    macro_rules! run {
        ($T:ty) => {{
            let src = xs.to_vec::<$T>();
            let mut out = vec![pad_value as $T; n * rows * l];
            let fill = |(b, o): (usize, &mut [$T])| {
                for ci in 0..c {
                    for ki in 0..kh {
                        for kj in 0..kw {
                            let r = (ci * kh + ki) * kw + kj;
                            let row = &mut o[r * l..(r + 1) * l];
                            for y in 0..oh {
                                let iy = (y * win.stride[0] + ki * win.dilation[0]) as isize
                                    - win.padding[0] as isize;
                                if iy < 0 || iy >= h as isize {
                                    continue;
                                }
                                let base = ((b * c + ci) * h + iy as usize) * w;
                                for xx in 0..ow {
                                    let ix = (xx * win.stride[1] + kj * win.dilation[1]) as isize
                                        - win.padding[1] as isize;
                                    if ix >= 0 && ix < w as isize {
                                        row[y * ow + xx] = src[base + ix as usize];
                                    }
                                }
                            }
                        }
                    }
                }
            };
            use rayon::prelude::*;
            if out.len() >= crate::backend::cpu::PAR_THRESHOLD && n > 1 {
                out.par_chunks_mut(rows * l).enumerate().for_each(fill);
            } else {
                out.chunks_mut(rows * l).enumerate().for_each(fill);
            }
            Tensor::from_vec_on(out, &[n, rows, l], x.device())
        }};
    }
    Ok(match xs.dtype() {
        DType::F32 => run!(f32),
        DType::F64 => run!(f64),
        d => return Err(crate::dtype::unsupported("im2col", d)),
    })
}

/// Columns `[N, C*kh*kw, L]` summed back into `[N, C, H, W]` (the adjoint of unfold).
fn fold_data(cols: &Tensor, out_hw: [usize; 2], c: usize, win: Window) -> Result<Tensor> {
    let s = cols.shape();
    let n = s[0];
    let [h, w] = out_hw;
    let [oh, ow] = win.out_size(h, w)?;
    let [kh, kw] = win.kernel;
    let l = oh * ow;
    let rows = c * kh * kw;
    let geom = win.geom(n, c, [h, w], [oh, ow]);
    let op = crate::backend::wgpu::WindowOp::Col2Im;
    if let Some(out) = crate::ops::gpu::window(op, cols, &geom, 0.0, &[n, c, h, w])? {
        return Ok(out);
    }
    let cs = contiguous_clone(cols);
    macro_rules! run {
        ($T:ty) => {{
            let src = cs.to_vec::<$T>();
            let mut out = vec![0 as $T; n * c * h * w];
            let body = |(b, o): (usize, &mut [$T])| {
                let col = &src[b * rows * l..(b + 1) * rows * l];
                for ci in 0..c {
                    for ki in 0..kh {
                        for kj in 0..kw {
                            let r = (ci * kh + ki) * kw + kj;
                            let row = &col[r * l..(r + 1) * l];
                            for y in 0..oh {
                                let iy = (y * win.stride[0] + ki * win.dilation[0]) as isize
                                    - win.padding[0] as isize;
                                if iy < 0 || iy >= h as isize {
                                    continue;
                                }
                                let base = (ci * h + iy as usize) * w;
                                for xx in 0..ow {
                                    let ix = (xx * win.stride[1] + kj * win.dilation[1]) as isize
                                        - win.padding[1] as isize;
                                    if ix >= 0 && ix < w as isize {
                                        o[base + ix as usize] += row[y * ow + xx];
                                    }
                                }
                            }
                        }
                    }
                }
            };
            use rayon::prelude::*;
            if out.len() >= crate::backend::cpu::PAR_THRESHOLD && n > 1 {
                out.par_chunks_mut(c * h * w).enumerate().for_each(body);
            } else {
                out.chunks_mut(c * h * w).enumerate().for_each(body);
            }
            Tensor::from_vec_on(out, &[n, c, h, w], cols.device())
        }};
    }
    Ok(match cs.dtype() {
        DType::F32 => run!(f32),
        DType::F64 => run!(f64),
        d => return Err(crate::dtype::unsupported("col2im", d)),
    })
}

/// `unfold` (im2col) of `[N, C, H, W]`; its backward is `fold`, and fold's is unfold.
pub fn unfold(x: &Tensor, win: Window, pad_value: f64) -> Result<Tensor> {
    if x.dim() != 4 {
        return Err(Error::Runtime(format!(
            "Expected 4D (batched) input to im2col, but got input of size: {}",
            crate::shape::list_repr(&x.shape())
        )));
    }
    let out = unfold_data(x, win, pad_value)?;
    if !needs_grad(&[x]) {
        return Ok(out);
    }
    let s = x.shape();
    let (hw, c) = ([s[2], s[3]], s[1]);
    Ok(record_formula(
        out,
        &[x],
        "Im2ColBackward0",
        vec![],
        move |g, _| Ok(vec![Some(fold(g, hw, c, win)?)]),
    ))
}

pub fn fold(cols: &Tensor, hw: [usize; 2], c: usize, win: Window) -> Result<Tensor> {
    let out = fold_data(cols, hw, c, win)?;
    if !needs_grad(&[cols]) {
        return Ok(out);
    }
    Ok(record_formula(
        out,
        &[cols],
        "Col2ImBackward0",
        vec![],
        move |g, _| Ok(vec![Some(unfold(g, win, 0.0)?)]),
    ))
}
