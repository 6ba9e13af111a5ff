//! Copies and casts: a tensor's elements as a new contiguous tensor, of the same or another
//! dtype, on its device or another; and Note [Narrow dtypes]' `wide` / `narrow`.

use super::backend::pick;
use crate::backend::cpu::copy::{cast as cast_slice, contiguous_cow, gather_contiguous};
use crate::dispatch;
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::{Device, Tensor};

/// A contiguous copy of `t` (no autograd history), on its device.
pub fn contiguous(t: &Tensor) -> Tensor {
    pick!(|b| b.copy(t, t.dtype()))
}

/// `t`'s values as `dtype`, a new contiguous tensor on `t`'s device.
pub fn cast(t: &Tensor, dtype: DType) -> Tensor {
    pick!(|b| b.copy(t, dtype))
}

/// The host's `cast` (and `contiguous`, the same dtype).
pub(super) fn cast_host(t: &Tensor, dtype: DType) -> Tensor {
    let d = t.read();
    if d.dtype() == dtype {
        return dispatch!(d.dtype(), T => Tensor::from_vec_on(gather_contiguous::<T>(d.storage.slice::<T>(), &d.layout), &d.layout.shape, d.device()));
    }
    dispatch!(d.dtype(), S => {
        // A contiguous source is read in place.
        let src = contiguous_cow::<S>(d.storage.slice::<S>(), &d.layout);
        dispatch!(dtype, D => Tensor::from_vec_on(cast_slice::<S, D>(&src), &d.layout.shape, d.device()))
    })
}

/// Note [Narrow dtypes]: float16 and int32 tensors are stored narrow but compute in their
/// `DType::compute` dtype (float32, int64), and each op rounds (wraps) its result back, as
/// PyTorch's CPU kernels do with `opmath_type`. So an op's kernels exist for the wide dtypes
/// only: `wide` widens an input, `narrow` casts the result back.
pub fn wide(t: &Tensor) -> Tensor {
    let w = t.dtype().compute();
    if w == t.dtype() {
        return t.clone();
    }
    // A float16 GPU tensor's words already are float32 values: they are read in place.
    if t.dtype() == DType::F16 {
        return pick!(|b| b.wide_half(t));
    }
    cast(t, w)
}

/// `out` cast to the narrow `dtype` it was computed for (see Note [Narrow dtypes]).
pub fn narrow(out: Tensor, dtype: DType) -> Tensor {
    if out.dtype() == dtype {
        out
    } else {
        cast(&out, dtype)
    }
}

/// The values of `t` as a new contiguous tensor on `device`. Moving to the GPU checks that the
/// dtype can live there; a float32 copy goes to the device now (PyTorch's `.to` is a transfer,
/// not a promise). int64 values past the int32 of the GPU's words stay in the host copy, as
/// those an op computes do (`Storage::gpu_words`), so ops on them are exact.
pub fn to_device(t: &Tensor, device: Device) -> Result<Tensor> {
    if device.is_gpu() {
        crate::tensor::device::check_gpu_dtype(t.dtype())?;
    }
    let d = t.read();
    let out = dispatch!(d.dtype(), T => Tensor::from_vec_on(gather_contiguous::<T>(d.storage.slice::<T>(), &d.layout), &d.layout.shape, device));
    if device.is_gpu() && out.dtype() == DType::F32 {
        out.read().storage.gpu_buffer()?;
    }
    Ok(out)
}
