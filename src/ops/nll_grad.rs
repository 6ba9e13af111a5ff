//! nll_loss's derivative on the host (NllLossBackward0, `ops::nn::nll_loss`): written only at
//! the targets, as PyTorch's nll_loss_backward writes it, or as the dense matrix the
//! differentiable formula (create_graph, forward AD) multiplies.

use crate::dispatch;
use crate::dtype::DType;
use crate::error::Result;
use crate::kernels;
use crate::tensor::element::Element;
use crate::tensor::{pool, Tensor};

/// nll_loss's derivative on the host, d loss / d logp: `-coef[i] * scale` at `[i, tv[i]]`
/// (rounded once to the input's dtype), zero elsewhere.
pub(crate) struct NllTargets {
    pub(crate) tv: Vec<i64>,
    pub(crate) coef: Vec<f64>,
    pub(crate) scale: f64,
    pub(crate) ignore_index: i64,
    pub(crate) shape: Vec<usize>,
    pub(crate) device: crate::tensor::Device,
    pub(crate) dtype: DType,
}

impl NllTargets {
    /// The derivative as a dense matrix (create_graph, forward AD).
    pub(crate) fn dense(&self) -> Tensor {
        let c = *self.shape.last().expect("nll_loss input has 1 or 2 dims");
        let n = self.tv.len();
        dispatch!(self.dtype, T => {
            let mut dense = pool::filled(n * c, T::default());
            for i in 0..n {
                if self.tv[i] != self.ignore_index {
                    dense[i * c + self.tv[i] as usize] = T::from_f64(-self.coef[i] * self.scale);
                }
            }
            Tensor::from_vec_on(dense, &self.shape, self.device)
        })
    }

    /// PyTorch's nll_loss_backward: zeros, and at each target its entry times the incoming
    /// gradient (`g[i]` per sample, else the one `g`), the product the dense `mul` gives
    /// there. None where `g` is not a host tensor of the input's dtype.
    pub(crate) fn backward(&self, g: &Tensor, per_sample: bool) -> Result<Option<Tensor>> {
        if kernels::host_reads_back(g)
            || g.dtype() != self.dtype
            || !matches!(self.dtype, DType::F32 | DType::F64)
        {
            return Ok(None);
        }
        let c = *self.shape.last().expect("nll_loss input has 1 or 2 dims");
        let n = self.tv.len();
        if g.numel() != if per_sample { n } else { 1 } {
            return Ok(None);
        }
        macro_rules! run {
            ($T:ty) => {
                kernels::with_host::<$T, _>(g, |gs| {
                    let mut out = pool::filled(n * c, 0.0 as $T);
                    for (i, &t) in self.tv.iter().enumerate() {
                        if t != self.ignore_index {
                            let gi = if per_sample { gs[i] } else { gs[0] };
                            out[i * c + t as usize] = (-self.coef[i] * self.scale) as $T * gi;
                        }
                    }
                    Tensor::from_vec_on(out, &self.shape, self.device)
                })
            };
        }
        Ok(Some(match self.dtype {
            DType::F32 => run!(f32),
            _ => run!(f64),
        }))
    }
}
