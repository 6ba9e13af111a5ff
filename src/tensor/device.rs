//! Devices, and the GPU side of a storage.
//!
//! Note [Devices]: a tensor's device is its storage's. A GPU storage pairs a host copy (the
//! same typed `Vec` a CPU storage owns) with a wgpu buffer, each marked valid or stale:
//! - a GPU kernel reads the buffer (uploaded from the host copy if stale) and gives a new
//!   storage whose buffer alone is valid;
//! - host code reads through `Storage::slice`, which first downloads a stale host copy, and
//!   writes through `slice_mut`, which marks the buffer stale.
//!
//! The buffer holds 32-bit words ([`Words`]): float32, bool as 0.0 / 1.0, int64 as int32.
//! So every op works on GPU tensors with PyTorch's device semantics: an op with a kernel runs
//! on the GPU, the rest compute on the synchronized host copy and their results stay on the
//! GPU. A kernel may also write a buffer in place (`Storage::gpu_written`: the host copy goes
//! stale). Ops give their result the device of their inputs ([`Device::of`]), refusing a
//! mix as PyTorch does.

use crate::backend::wgpu::{copy, CopyOp, GpuBuffer, SView, Words};
use crate::dtype::{DType, Scalar};
use crate::error::{Error, Result};
use crate::tensor::{Layout, Storage, Tensor};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Host copies downloaded for host code, and host copies uploaded for a kernel: each is an op
/// (or a read-back) that left the GPU, so tests and benchmarks can see the GPU path stay on it.
static DOWNLOADS: AtomicU64 = AtomicU64::new(0);
static UPLOADS: AtomicU64 = AtomicU64::new(0);

/// `(downloads, uploads)` of storages' copies between host and GPU since the process began.
pub fn transfer_counts() -> (u64, u64) {
    (
        DOWNLOADS.load(Ordering::Relaxed),
        UPLOADS.load(Ordering::Relaxed),
    )
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Device {
    #[default]
    Cpu,
    Gpu,
}

impl Device {
    /// As PyTorch prints it in error messages (`cpu`, `gpu:0`).
    pub fn name(self) -> &'static str {
        match self {
            Device::Cpu => "cpu",
            Device::Gpu => "gpu:0",
        }
    }

    pub fn is_gpu(self) -> bool {
        self == Device::Gpu
    }

    /// The device an op over `tensors` runs on: theirs, when they agree. A 0-dim CPU tensor
    /// may join tensors of any device (PyTorch treats it as a number); any other mix is
    /// PyTorch's "Expected all tensors to be on the same device" error.
    pub fn of(tensors: &[&Tensor]) -> Result<Device> {
        let mut found: Option<Device> = None;
        for t in tensors {
            // One read of the tensor's data for both questions.
            let (d, dim) = {
                let data = t.read();
                (data.storage.device(), data.layout.ndim())
            };
            if d == Device::Cpu && dim == 0 {
                continue;
            }
            match found {
                None => found = Some(d),
                Some(f) if f != d => return Err(mixed(f, d)),
                _ => {}
            }
        }
        Ok(found.unwrap_or(Device::Cpu))
    }
}

/// The device check of PyTorch's generated CUDA wrappers, for a call `method` whose tensor
/// arguments `args` (schema order; None when not given) include a GPU tensor (such a call
/// dispatches to the CUDA kernel): each must be on the first one's device, 0-dim or not.
pub fn check_args(method: &str, args: &[(&str, Option<&Tensor>)]) -> Result<()> {
    let given = || args.iter().filter_map(|(n, t)| t.map(|t| (*n, t.device())));
    if !given().any(|(_, d)| d.is_gpu()) {
        return Ok(());
    }
    let mut all = given();
    let Some((_, common)) = all.next() else {
        return Ok(());
    };
    match all.find(|(_, d)| *d != common) {
        Some((name, d)) => Err(Error::Runtime(format!(
            "Expected all tensors to be on the same device, but got {name} is on {}, different \
             from other tensors on {} (when checking argument in method wrapper_CUDA_{method})",
            d.name(),
            common.name()
        ))),
        None => Ok(()),
    }
}

/// PyTorch's wording for an op given tensors on two devices.
pub fn mixed(a: Device, b: Device) -> Error {
    Error::Runtime(format!(
        "Expected all tensors to be on the same device, but found at least two devices, {} and {}!",
        a.name(),
        b.name()
    ))
}

/// The GPU side of a storage: the buffer (None while stale) and whether the host copy is
/// current. Shared by a storage and its `.data` aliases, which share the host memory too.
pub struct Mirror {
    state: Mutex<MirrorState>,
}

struct MirrorState {
    buf: Option<Arc<GpuBuffer>>,
    host_valid: bool,
}

/// Set when the first GPU storage is made (every one gets its `Mirror` here), never cleared.
static GPU_IN_USE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// False until some storage has lived on the GPU: then no operand can be there, and the
/// backend dispatch (`kernels::backend::run!`) goes straight to the host, one relaxed load
/// instead of a device test per operand (~100 instructions per 1-element op, issue 23). A
/// tensor made on another thread reaches this one through a synchronizing hand-over (the GIL,
/// a channel), which orders the store before this load.
#[inline(always)]
pub fn gpu_in_use() -> bool {
    GPU_IN_USE.load(std::sync::atomic::Ordering::Relaxed)
}

fn mark_gpu_in_use() {
    GPU_IN_USE.store(true, std::sync::atomic::Ordering::Relaxed);
}

impl Mirror {
    /// The host copy is current; the buffer is made on first use by a kernel.
    pub fn from_host() -> Arc<Mirror> {
        mark_gpu_in_use();
        Arc::new(Mirror {
            state: Mutex::new(MirrorState {
                buf: None,
                host_valid: true,
            }),
        })
    }

    /// The buffer is current (a kernel's output); the host copy is downloaded when read.
    pub fn from_buffer(buf: Arc<GpuBuffer>) -> Arc<Mirror> {
        mark_gpu_in_use();
        Arc::new(Mirror {
            state: Mutex::new(MirrorState {
                buf: Some(buf),
                host_valid: false,
            }),
        })
    }

    /// Makes the host copy current: downloads the buffer into `host` (`len` elements of
    /// `dtype`) if stale.
    ///
    /// # Safety
    /// `host` must be valid for writes of `len` elements of `dtype`.
    pub unsafe fn sync_host(&self, host: *mut u8, len: usize, dtype: DType) -> Result<()> {
        let mut s = self.state.lock();
        if s.host_valid {
            return Ok(());
        }
        let buf = s
            .buf
            .clone()
            .ok_or_else(|| Error::Runtime("GPU storage with neither copy current".into()))?;
        let v = buf.download_words()?;
        DOWNLOADS.fetch_add(1, Ordering::Relaxed);
        if v.len() != len {
            return Err(Error::Runtime(format!(
                "GPU buffer of {} elements for a storage of {len}",
                v.len()
            )));
        }
        // SAFETY: `host` holds `len` elements of `dtype` owned by the storage.
        unsafe { Words::decode(dtype, &v, host)? };
        s.host_valid = true;
        Ok(())
    }

    /// The host copy is about to be written: the buffer becomes stale.
    pub fn host_written(&self) {
        let mut s = self.state.lock();
        s.buf = None;
        s.host_valid = true;
    }

    /// A kernel wrote the buffer in place: the host copy becomes stale.
    pub fn gpu_written(&self) {
        let mut s = self.state.lock();
        if s.buf.is_some() {
            s.host_valid = false;
        }
    }

    /// The buffer, uploaded from the (current) host copy of `len` elements of `dtype` at
    /// `host` if stale.
    ///
    /// # Safety
    /// `host` must point to `len` valid elements of `dtype`.
    pub unsafe fn buffer(
        &self,
        host: *const u8,
        len: usize,
        dtype: DType,
    ) -> Result<Arc<GpuBuffer>> {
        let mut s = self.state.lock();
        if let Some(b) = &s.buf {
            return Ok(b.clone());
        }
        let b = Arc::new(GpuBuffer::upload_words(&Words::encode(dtype, host, len)?)?);
        UPLOADS.fetch_add(1, Ordering::Relaxed);
        s.buf = Some(b.clone());
        Ok(b)
    }

    /// Whether the buffer is current (a read would not upload).
    pub fn has_buffer(&self) -> bool {
        self.state.lock().buf.is_some()
    }

    pub fn host_valid(&self) -> bool {
        self.state.lock().host_valid
    }
}

/// What a tensor of `dtype` needs to live on the GPU: an adapter, and a dtype the GPU can
/// hold (float32, int64 within int32's range — checked on the copy — and bool; not float64).
pub fn check_gpu_dtype(dtype: DType) -> Result<()> {
    crate::backend::wgpu::context::gpu()?;
    if dtype == DType::F64 {
        return Err(Error::Type(
            "Cannot convert a GPU tensor to float64 dtype: the GPU backend has no float64 \
             kernels. Please use float32 instead."
                .into(),
        ));
    }
    // Held on the CPU only: the GPU words hold bool, int32/64 and float16/32 (a cost decision,
    // not a limit of the device); PyTorch has no such refusal.
    if !dtype.on_gpu() {
        return Err(Error::Type(format!(
            "Cannot convert a GPU tensor to {} dtype: the GPU backend has no {} kernels. \
             Please use float32 or int64 instead.",
            dtype.name(),
            dtype.name()
        )));
    }
    Ok(())
}

/// A contiguous GPU tensor of `shape` filled with `s` by the copy kernel from a cached
/// constant (nothing uploaded); None for a value the GPU does not hold (float64, an int64
/// past int32). The storage's own fill, so factories need no op.
pub fn gpu_full(shape: &[usize], s: Scalar, dtype: DType) -> Result<Option<Tensor>> {
    if !dtype.on_gpu() {
        return Ok(None);
    }
    let number = Tensor::scalar(s, dtype);
    let d = number.data();
    let at = d.layout.offset;
    if dtype == DType::I64 && i32::try_from(d.storage.slice::<i64>()[at]).is_err() {
        return Ok(None);
    }
    // SAFETY: a 0-dim tensor's one element is at its offset.
    let w = unsafe { Words::encode(dtype, d.storage.data_ptr().add(at * dtype.itemsize()), 1)? };
    let constant = GpuBuffer::constant(f32::from_bits(w[0]))?;
    let layout = Layout::contiguous(shape);
    let out = constant.alloc_like(layout.numel())?;
    let zeros = vec![0isize; shape.len()];
    let from = SView {
        shape,
        strides: &zeros,
        offset: 0,
    };
    let to = SView {
        shape: &layout.shape,
        strides: &layout.strides,
        offset: layout.offset,
    };
    copy(CopyOp::Same, &constant, &from, &out, &to)?;
    Ok(Some(Tensor::from_storage(
        Storage::from_gpu_words(out, dtype),
        layout,
    )))
}
