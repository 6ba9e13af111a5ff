//! The process-wide GPU context: instance, adapter, device and queue, created lazily on first
//! use, with its error sink and fork guard. Its other parts live beside it: `pipeline.rs` (the
//! kernel families, their shader sources and the pipeline cache), `dispatch.rs` (the one
//! pending command encoder every dispatch is recorded into until something needs the results,
//! submitting and waiting) and `transfer.rs` (buffers from the pool, uploads, read-backs).

mod dispatch;
mod pipeline;
mod transfer;

pub use pipeline::{GpuDType, Kernel, Pipeline, PipelineKey, MATMUL_SMALL, SORT_STEP, WORKGROUP};

use super::pool::Pool;
use crate::error::{Error, Result};
use dispatch::{Pending, PARAM_BYTES};
use parking_lot::Mutex;
use pipeline::KernelLayout;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

/// The message for a machine (or a run with [`DISABLE_VAR`] set) without a usable adapter.
/// It names [`SOFTWARE_VAR`], since a software adapter is only used when that is set.
pub const NO_ADAPTER: &str = "no Vulkan/Metal/DX12 adapter found; on Linux without a GPU \
     install Mesa's lavapipe (Debian/Ubuntu: apt-get install mesa-vulkan-drivers libvulkan1) \
     and set GRADRS_GPU_ALLOW_SOFTWARE=1";

/// Set to anything but "" or "0", this lets a software adapter (wgpu's `DeviceType::Cpu`:
/// lavapipe's "llvmpipe", SwiftShader, WARP) be the GPU; unset, only hardware counts
/// (Note [Software adapters]). Read once, with [`DISABLE_VAR`].
pub const SOFTWARE_VAR: &str = "GRADRS_GPU_ALLOW_SOFTWARE";

// Note [Software adapters]: programs read `torch.cuda.is_available()` as "is there fast
// hardware" and then move everything to 'cuda'. On a machine with only a software rasteriser
// that would make them run slower than on the CPU and print "Using cuda device" where
// PyTorch's CPU build prints "Using cpu device". So a `DeviceType::Cpu` adapter is treated as
// no adapter unless SOFTWARE_VAR asks for it (the test suites do, to run the GPU path on
// lavapipe). wgpu's high-performance request sorts software adapters last, so one is only
// picked when no hardware adapter exists.

/// Set to anything but "" or "0", this hides every adapter, so the no-GPU path can be tested
/// on a machine that has one. Read once, when the context is first asked for.
pub const DISABLE_VAR: &str = "GRADRS_GPU_DISABLE";

/// Bytes per chunk of a large tensor (Note [Large tensors]), lowered from the adapter's
/// largest binding so tests can split small tensors; rounded down to a power of two, at least
/// 256. Read once, with [`DISABLE_VAR`].
pub const CHUNK_VAR: &str = "GRADRS_GPU_CHUNK_BYTES";

/// Dispatches recorded before the pending encoder is submitted without being asked: bounds the
/// memory a long loop without read-backs holds in recorded commands and transient buffers.
pub const BATCH_LIMIT: usize = 256;

/// The context: the device and queue with the caches and the pending work around them.
pub struct Gpu {
    pub device: ::wgpu::Device,
    pub queue: ::wgpu::Queue,
    pub info: ::wgpu::AdapterInfo,
    pub limits: ::wgpu::Limits,
    pub features: ::wgpu::Features,
    pipelines: Mutex<HashMap<PipelineKey, Pipeline>>,
    layouts: Mutex<HashMap<Kernel, Arc<KernelLayout>>>,
    bind_groups: Mutex<HashMap<(Kernel, Vec<::wgpu::Buffer>), ::wgpu::BindGroup>>,
    pub(super) pool: Mutex<Pool>,
    pending: Mutex<Pending>,
    /// The elementwise ops recorded but not yet dispatched, to run as one fused kernel, and
    /// the fused pipelines by pattern (Note [Elementwise fusion] in `fuse.rs`). Locked before
    /// `pending`, the pipelines and the pool, never after them.
    pub(super) fusion: Mutex<super::fuse::State>,
    /// The uniform arena the dispatches' parameters are bound from: [`BATCH_LIMIT`] slots of
    /// `param_slot` bytes, so a dispatch costs no buffer of its own.
    params: ::wgpu::Buffer,
    param_slot: u64,
    /// Words per buffer of a chunked tensor (Note [Large tensors]): the largest power of two
    /// both a binding and a buffer may hold.
    chunk_words: usize,
    /// wgpu reports validation and out-of-memory errors to a callback (its default handler
    /// panics); they are collected here and returned as `Error`s by the call that caused them.
    errors: Arc<Mutex<Vec<String>>>,
    submits: std::sync::atomic::AtomicU64,
    dispatches: std::sync::atomic::AtomicU64,
    /// Mappable read-back buffers kept for the next read: creating one costs more than a small
    /// read itself (`.item()` in a loop). At most `STAGING_KEPT`, each of a power-of-two size
    /// up to `STAGING_MAX` (`transfer.rs`).
    staging: Mutex<Vec<::wgpu::Buffer>>,
}

static CONTEXT: OnceLock<std::result::Result<Gpu, String>> = OnceLock::new();

/// PyTorch's error for CUDA in a forked child, with the GPU for CUDA.
pub const BAD_FORK: &str = "Cannot re-initialize the GPU in forked subprocess. To use the GPU \
     with multiprocessing, you must use the 'spawn' start method";

/// Set in a forked child of a process that had opened the device (Note [Fork]): the context
/// is the parent's, and every use of it is refused.
static FORKED_AWAY: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The `fork` child handler's part (Note [Fork]).
pub(crate) fn after_fork_in_child() {
    if matches!(CONTEXT.get(), Some(Ok(_))) {
        FORKED_AWAY.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Whether this process is a forked child of one that had opened the device.
pub fn forked_away() -> bool {
    FORKED_AWAY.load(std::sync::atomic::Ordering::Relaxed)
}

/// `BAD_FORK` in a forked child of a process that had opened the device.
fn usable() -> Result<()> {
    if forked_away() {
        return Err(Error::Runtime(BAD_FORK.into()));
    }
    Ok(())
}

/// Runs `f`, turning a panic inside wgpu (or here) into an `Error` rather than unwinding into
/// the caller: the bindings must never see one.
pub fn guarded<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(Error::Runtime(format!("GPU backend failure: {msg}")))
        }
    }
}

/// Whether the environment variable `var` is set to anything but "" or "0".
fn env_flag(var: &str) -> bool {
    std::env::var_os(var).is_some_and(|v| !v.is_empty() && v != "0")
}

/// The context, created on the first call; the error (no adapter, device refused) is kept and
/// returned again on every later call, so a failed start costs once.
pub fn gpu() -> Result<&'static Gpu> {
    usable()?;
    CONTEXT
        .get_or_init(|| match guarded(|| Gpu::new().map_err(Error::Runtime)) {
            Ok(g) => Ok(g),
            Err(e) => Err(e.to_string()),
        })
        .as_ref()
        .map_err(|e| Error::Runtime(e.clone()))
}

/// The context if it was already created (memory queries must not start a device); None in
/// a forked child (Note [Fork]), where the parent's context must not be touched.
pub fn existing() -> Option<&'static Gpu> {
    if forked_away() {
        return None;
    }
    CONTEXT.get().and_then(|r| r.as_ref().ok())
}

impl Gpu {
    fn new() -> std::result::Result<Gpu, String> {
        if env_flag(DISABLE_VAR) {
            return Err(format!("{NO_ADAPTER} (adapters hidden by {DISABLE_VAR})"));
        }
        crate::backend::fork::register();
        let desc = ::wgpu::InstanceDescriptor {
            backends: ::wgpu::Backends::VULKAN | ::wgpu::Backends::METAL | ::wgpu::Backends::DX12,
            ..::wgpu::InstanceDescriptor::new_without_display_handle()
        };
        let instance = ::wgpu::Instance::new(desc);
        let adapter =
            pollster::block_on(instance.request_adapter(&::wgpu::RequestAdapterOptions {
                power_preference: ::wgpu::PowerPreference::HighPerformance,
                ..Default::default()
            }))
            .map_err(|e| format!("{NO_ADAPTER} ({e})"))?;
        let info = adapter.get_info();
        if info.device_type == ::wgpu::DeviceType::Cpu && !env_flag(SOFTWARE_VAR) {
            return Err(format!(
                "{NO_ADAPTER} (only the software adapter '{}' ({:?}) was found)",
                info.name, info.backend
            ));
        }
        // The adapter's own limits, not WebGPU's defaults: large tensors need the real maximum
        // buffer and binding sizes.
        let limits = adapter.limits();
        let features = adapter.features();
        let (device, queue) =
            pollster::block_on(adapter.request_device(&::wgpu::DeviceDescriptor {
                label: Some("gradrs"),
                required_limits: limits.clone(),
                ..Default::default()
            }))
            .map_err(|e| {
                format!(
                    "the GPU adapter '{}' refused to open a device: {e}",
                    info.name
                )
            })?;
        let errors: Arc<Mutex<Vec<String>>> = Arc::default();
        let sink = errors.clone();
        device.on_uncaptured_error(Arc::new(move |e: ::wgpu::Error| {
            let msg = match &e {
                // Named so `check` reports it as PyTorch's OutOfMemoryError.
                ::wgpu::Error::OutOfMemory { .. } => format!("out of memory: {e}"),
                _ => e.to_string(),
            };
            sink.lock().push(msg)
        }));
        let sink = errors.clone();
        device.set_device_lost_callback(move |reason, msg| {
            sink.lock()
                .push(format!("GPU device lost ({reason:?}): {msg}"))
        });
        let param_slot = u64::from(limits.min_uniform_buffer_offset_alignment).max(PARAM_BYTES);
        let params = device.create_buffer(&::wgpu::BufferDescriptor {
            label: Some("gradrs params"),
            size: param_slot * BATCH_LIMIT as u64,
            usage: ::wgpu::BufferUsages::UNIFORM | ::wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let largest = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        let wanted = std::env::var(CHUNK_VAR)
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map_or(largest, |b| b.clamp(256, largest));
        let chunk_words = (1usize << wanted.ilog2()) / 4;
        Ok(Gpu {
            chunk_words,
            device,
            queue,
            info,
            limits,
            features,
            pipelines: Mutex::default(),
            layouts: Mutex::default(),
            bind_groups: Mutex::default(),
            pool: Mutex::default(),
            pending: Mutex::default(),
            fusion: Mutex::default(),
            params,
            param_slot,
            errors,
            staging: Mutex::default(),
            submits: Default::default(),
            dispatches: Default::default(),
        })
    }

    /// Returns (and clears) the errors wgpu reported since the last check.
    pub fn check(&self) -> Result<()> {
        let mut errs = self.errors.lock();
        if errs.is_empty() {
            return Ok(());
        }
        let msg = errs.join("; ");
        errs.clear();
        // A failed allocation (reported as such, or as the device lost for want of memory)
        // is PyTorch's OutOfMemoryError, which programs catch to retry with less.
        if msg.to_ascii_lowercase().contains("out of memory") {
            return Err(Error::OutOfMemory(format!("GPU out of memory. {msg}")));
        }
        Err(Error::Runtime(format!("GPU error: {msg}")))
    }

    /// Keeps `e` for the next call that checks (from a query that cannot return it).
    pub(super) fn keep_error(&self, e: Error) {
        self.errors.lock().push(e.to_string());
    }

    pub fn name(&self) -> String {
        format!("{} ({:?})", self.info.name, self.info.backend)
    }

    /// How many command buffers were submitted so far (tests check that ops batch up).
    pub fn submits(&self) -> u64 {
        self.submits.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// How many compute dispatches were recorded so far (tests check an op's kernel count).
    pub fn dispatches(&self) -> u64 {
        // A pending fused chain is one dispatch: record it, so it is counted now. An error is
        // kept for the next call that checks.
        if let Err(e) = self.flush_fused() {
            self.keep_error(e);
        }
        self.dispatches.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Drops the pool's free buffers and the bind groups that may hold them (Note [Bind group
    /// cache]).
    pub fn release_buffers(&self) {
        self.bind_groups.lock().clear();
        self.pool.lock().clear();
    }

    /// Words per buffer of a chunked tensor (Note [Large tensors]).
    pub fn chunk_words(&self) -> usize {
        self.chunk_words
    }
}
