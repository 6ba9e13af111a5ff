//! The fused optimizer steps (PyTorch's `fused` Adam / AdamW / SGD on the CPU): one
//! per-element pass of `backend::cpu::optim` over each parameter and its state, for CPU
//! float32 / float64 tensors of one dtype and shape that share no memory (`fused_dtype` says
//! when they apply; `ops::optim` composes the update from tensor ops otherwise).

use super::copy::contiguous;
use crate::backend::cpu::optim::{self as kernel, AdamSlices, Buffer};
pub use crate::backend::cpu::optim::{AdamScalars, Real, SgdScalars};
use crate::dtype::DType;
use crate::tensor::{Element, Tensor};

/// The dtype of the fused kernels when every tensor is a host float32 / float64 tensor of that
/// one dtype and the first's shape, and no two of `written` share memory; else None (a GPU
/// tensor's step is composed from tensor ops by the caller).
pub fn fused_dtype(tensors: &[&Tensor], written: &[&Tensor]) -> Option<DType> {
    let first = tensors[0];
    let (dtype, shape) = (first.dtype(), first.shape());
    let fits = |t: &&Tensor| t.dtype() == dtype && !t.device().is_gpu() && t.shape() == shape;
    if !matches!(dtype, DType::F32 | DType::F64) || !tensors.iter().all(fits) {
        return None;
    }
    for (i, a) in written.iter().enumerate() {
        for b in &written[i + 1..] {
            if super::overlaps(&a.read().storage, &b.read().storage) {
                return None;
            }
        }
    }
    Some(dtype)
}

/// One Adam step of parameter `p` with its contiguous gradient `grad`, first and second
/// moments `m`, `v` and amsgrad's running max `x`, all updated in place.
pub fn adam<T: Real + Element>(
    p: &Tensor,
    grad: &Tensor,
    m: &Tensor,
    v: &Tensor,
    x: Option<&Tensor>,
    c: &AdamScalars<T>,
) {
    let mut written = vec![Host::<T>::new(p), Host::new(m), Host::new(v)];
    written.extend(x.map(Host::new));
    {
        let gd = grad.read();
        let gs = &gd.storage.slice::<T>()[gd.layout.offset..gd.layout.offset + gd.layout.numel()];
        let [ps, ms, vs, rest @ ..] = written.as_mut_slice() else {
            unreachable!("three tensors or four")
        };
        kernel::adam(
            AdamSlices {
                param: ps.slice(),
                grad: gs,
                exp_avg: ms.slice(),
                exp_avg_sq: vs.slice(),
                max_exp_avg_sq: rest.first_mut().map(|h| h.slice()),
            },
            c,
        );
    }
    for h in written {
        h.finish();
    }
}

/// One SGD step of parameter `p` with its contiguous gradient `grad` and momentum buffer
/// `buf` (`fresh`: made for this step, zeros), updated in place.
pub fn sgd<T: Real + Element>(
    p: &Tensor,
    grad: &Tensor,
    buf: Option<&Tensor>,
    fresh: bool,
    c: &SgdScalars<T>,
) {
    let mut ph = Host::<T>::new(p);
    let mut bh = buf.map(Host::<T>::new);
    {
        let gd = grad.read();
        let gs = &gd.storage.slice::<T>()[gd.layout.offset..gd.layout.offset + gd.layout.numel()];
        let b = match (&mut bh, fresh) {
            (None, _) => Buffer::None,
            (Some(h), true) => Buffer::Fresh(h.slice()),
            (Some(h), false) => Buffer::Running(h.slice()),
        };
        kernel::sgd(ph.slice(), gs, b, c);
    }
    ph.finish();
    if let Some(h) = bh {
        h.finish();
    }
}

/// A tensor the step writes, as a contiguous run of host memory: its own when it is
/// contiguous, else a copy that `finish` writes back. `finish` bumps the version either way.
struct Host<T> {
    dst: Tensor,
    work: Tensor,
    _t: std::marker::PhantomData<T>,
}

impl<T: Element> Host<T> {
    fn new(t: &Tensor) -> Host<T> {
        let work = if t.is_contiguous() {
            t.clone()
        } else {
            contiguous(t)
        };
        Host {
            dst: t.clone(),
            work,
            _t: std::marker::PhantomData,
        }
    }

    /// The elements to update. See Note [Storage mutation]: the step is the only writer.
    #[allow(clippy::mut_from_ref)]
    fn slice(&mut self) -> &mut [T] {
        let d = self.work.read();
        let (off, n) = (d.layout.offset, d.layout.numel());
        let all = d.storage.slice_mut::<T>();
        // SAFETY: the storage outlives `self` (held by `work`), and `&mut self` keeps this the
        // only slice handed out by this Host; the read guard only protects the layout.
        unsafe { std::slice::from_raw_parts_mut(all.as_mut_ptr().add(off), n) }
    }

    fn finish(self) {
        if !self.work.ptr_eq(&self.dst) {
            // Same dtype, shape and (host) device: the contiguous result copied back.
            let (s, d) = (self.work.read(), self.dst.read());
            let n = s.layout.numel();
            let values = &s.storage.slice::<T>()[s.layout.offset..s.layout.offset + n];
            crate::backend::cpu::copy::scatter_into::<T>(
                d.storage.slice_mut::<T>(),
                &d.layout,
                values,
            );
        }
        self.dst.read().storage.bump_version();
    }
}
