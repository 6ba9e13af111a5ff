//! The process-wide GPU context: instance, adapter, device and queue, created lazily on first
//! use; the pipeline cache; the buffer pool; and the one pending command encoder that every
//! dispatch is recorded into until something needs the results.

use super::pool::{size_class, Pool};
use crate::error::{Error, Result};
use parking_lot::Mutex;
use std::borrow::Cow;
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

/// The largest uniform block a kernel takes (the binary kernel's: 4 + 3 * 8 words), rounded up.
const PARAM_BYTES: u64 = 256;

/// Threads per workgroup of the 1-D kernels (unary, binary); their shaders hard-code it.
pub const WORKGROUP: u64 = 256;

/// Matmul's op for its 64x64-tile entry point (op 0 is the 128x128 one).
pub const MATMUL_SMALL: u32 = 1;

/// The sort op bit that picks its one-step-per-dispatch entry point (sort.wgsl).
pub const SORT_STEP: u32 = 2;

/// The kernel families, one shader file each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    Unary,
    Binary,
    Reduce,
    Matmul,
    Copy,
    Where,
    Softmax,
    Scan,
    Window,
    Index,
    Sort,
    /// A fused chain of elementwise ops (`fuse.rs`), generated per pattern: `inputs`
    /// read-only storage buffers, then `outputs` written ones, then the uniform.
    Fused {
        inputs: u8,
        outputs: u8,
    },
}

/// What a pipeline's results are: float32, or float16 (float32 words holding half values,
/// Note [Narrow dtypes]), which the unary and binary shaders round to under their `HALF`
/// override; or, for the binary shader's comparisons only (its `INT` override), operands
/// that are int32 words (int64 and int32 tensors), compared as integers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GpuDType {
    F32,
    F16,
    I32,
}

/// What a pipeline is cached under: the kernel family, the op (its `OP` override), dtype and,
/// for the kernels generated around an elementwise expression ([`Kernel::with_expr`]), that
/// expression (empty for the others).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PipelineKey {
    pub kernel: Kernel,
    pub op: u32,
    pub dtype: GpuDType,
    pub expr: &'static str,
}

/// Where a generated shader's expression goes: the rest of that statement (up to its `;`) is
/// replaced by the expression.
const EXPR_MARK: &str = "/*expr*/";
/// The same over int32 words (the binary shader's `INT` pipelines: integer comparisons).
const EXPR_INT_MARK: &str = "/*expr_int*/";

impl Kernel {
    /// The WGSL source: `common.wgsl` (the dispatch index, packed dims, NaN test) prepended
    /// to every shader, and `half.wgsl` appended to those that write half values (WGSL has no
    /// includes); for the shaders that select an op by its code, the constants naming the
    /// codes at the end (`op_codes!`: `ReduceOp`, `ScanOp`, `TernaryOp`).
    pub fn source(self) -> Cow<'static, str> {
        let codes = match self {
            Kernel::Reduce => super::ReduceOp::wgsl_consts(),
            Kernel::Scan => super::ScanOp::wgsl_consts(),
            Kernel::Where => super::TernaryOp::wgsl_consts(),
            _ => return Cow::Borrowed(self.file()),
        };
        Cow::Owned(format!(
            "{}\n// Op codes, from the op enum's table.\n{codes}",
            self.file()
        ))
    }

    /// The shader's own source (with its prelude and postlude files).
    const fn file(self) -> &'static str {
        macro_rules! shader {
            ($file:literal) => {
                concat!(include_str!("shaders/common.wgsl"), include_str!($file))
            };
            ($file:literal, half) => {
                concat!(
                    include_str!("shaders/common.wgsl"),
                    include_str!($file),
                    include_str!("shaders/half.wgsl")
                )
            };
        }
        match self {
            Kernel::Unary => shader!("shaders/unary.wgsl", half),
            Kernel::Binary => shader!("shaders/binary.wgsl", half),
            Kernel::Reduce => shader!("shaders/reduce.wgsl"),
            Kernel::Matmul => shader!("shaders/matmul.wgsl"),
            Kernel::Copy => shader!("shaders/copy.wgsl", half),
            Kernel::Where => shader!("shaders/where.wgsl"),
            Kernel::Softmax => shader!("shaders/softmax.wgsl"),
            Kernel::Scan => shader!("shaders/scan.wgsl"),
            Kernel::Index => shader!("shaders/index.wgsl"),
            Kernel::Window => shader!("shaders/window.wgsl"),
            Kernel::Sort => shader!("shaders/sort.wgsl"),
            // Generated per pattern (fuse.rs); it has no file.
            Kernel::Fused { .. } => "",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Kernel::Unary => "unary",
            Kernel::Binary => "binary",
            Kernel::Reduce => "reduce",
            Kernel::Matmul => "matmul",
            Kernel::Copy => "copy",
            Kernel::Where => "where",
            Kernel::Softmax => "softmax",
            Kernel::Scan => "scan",
            Kernel::Index => "index",
            Kernel::Window => "window",
            Kernel::Sort => "sort",
            Kernel::Fused { .. } => "fused",
        }
    }

    /// Whether the shader selects its op through an `OP` override constant (the unary and
    /// binary shaders are generated around their op's expression instead).
    pub fn has_op(self) -> bool {
        !matches!(
            self,
            Kernel::Matmul | Kernel::Unary | Kernel::Binary | Kernel::Fused { .. }
        )
    }

    /// The shader computing `expr` (Note [Op declarations]): the statement marked `/*expr*/`
    /// in the kernel's source returns the expression instead. The elementwise ops declare
    /// expressions, not switch arms, so a fuser can later inline a chain of them.
    pub fn with_expr(self, expr: &str) -> String {
        self.with_expr_at(EXPR_MARK, expr)
    }

    /// [`Kernel::with_expr`] for an expression over int32 words (`x`, `y` are `i32`s), which
    /// the binary shader computes under its `INT` override.
    pub fn with_int_expr(self, expr: &str) -> String {
        self.with_expr_at(EXPR_INT_MARK, expr)
    }

    fn with_expr_at(self, mark: &str, expr: &str) -> String {
        let src = self.source();
        let at = src.find(mark).expect("the shader marks its expression");
        let end = at + src[at..].find(';').expect("a statement");
        format!("{}({expr}){}", &src[..at], &src[end..])
    }

    /// The entry point of `op`: matmul's op picks its tiling ([`MATMUL_SMALL`]: 64x64 tiles),
    /// sort's [`SORT_STEP`] bit its global step; the other kernels have one entry point.
    pub fn entry(self, op: u32) -> &'static str {
        match (self, op) {
            (Kernel::Matmul, MATMUL_SMALL) => "small",
            (Kernel::Sort, op) if op & SORT_STEP != 0 => "step",
            _ => "main",
        }
    }
}

/// A compiled kernel, its family and the family's bind group layout.
#[derive(Clone)]
pub struct Pipeline {
    pipeline: ::wgpu::ComputePipeline,
    kernel: Kernel,
    layout: Arc<KernelLayout>,
}

/// A kernel family's bindings as its shader declares them: storage buffers (read-only or
/// not) at 0, 1, ..., then the parameters as one uniform with a dynamic offset, so a bind
/// group serves every dispatch over the same buffers whatever their parameters.
struct KernelLayout {
    bind_group: ::wgpu::BindGroupLayout,
    pipeline: ::wgpu::PipelineLayout,
    storage: usize,
}

/// Bind groups kept for reuse (Note [Bind group cache]); past it the cache starts over.
const BIND_GROUPS_KEPT: usize = 2048;

// Note [Bind group cache]: creating a bind group is most of a dispatch's host cost (wgpu
// validates it and the driver allocates a descriptor set). A loop reuses its buffers (the pool
// hands the same ones back), so bind groups are cached by (kernel, buffers), and the
// parameters, which change every dispatch, come through the uniform's dynamic offset. A
// cached group keeps its buffers alive: the cache is dropped with the pool's free buffers
// (`empty_cache`, out of memory) and when it grows past `BIND_GROUPS_KEPT`.

#[derive(Default)]
struct Pending {
    /// The open compute pass consecutive dispatches share (wgpu still orders each dispatch
    /// after the writes it reads); ended before a copy is recorded and before submitting.
    pass: Option<::wgpu::ComputePass<'static>>,
    encoder: Option<::wgpu::CommandEncoder>,
    ops: usize,
    /// The uniform blocks of this batch's dispatches, one [`Gpu::param_slot`] apart: written
    /// into `Gpu::params` with one queue write at submit (a queue write runs before the
    /// batch's commands, and no slot is used twice in a batch).
    params: Vec<u8>,
}

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
    /// read itself (`.item()` in a loop). At most [`STAGING_KEPT`], each of a power-of-two size
    /// up to [`STAGING_MAX`].
    staging: Mutex<Vec<::wgpu::Buffer>>,
}

const STAGING_KEPT: usize = 4;

/// How long [`Gpu::wait`] polls before it blocks.
const SPIN_WAIT: std::time::Duration = std::time::Duration::from_micros(500);
const STAGING_MAX: u64 = 1 << 24;

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

    /// The compiled pipeline for `key`, compiled on first use.
    pub fn pipeline(&self, key: PipelineKey) -> Result<Pipeline> {
        usable()?;
        let mut cache = self.pipelines.lock();
        if let Some(p) = cache.get(&key) {
            return Ok(p.clone());
        }
        let label = format!(
            "{}:{}:{:?}:{}",
            key.kernel.name(),
            key.op,
            key.dtype,
            key.expr
        );
        let source = if key.expr.is_empty() {
            key.kernel.source()
        } else if key.dtype == GpuDType::I32 {
            Cow::Owned(key.kernel.with_int_expr(key.expr))
        } else {
            Cow::Owned(key.kernel.with_expr(key.expr))
        };
        let pipeline = self.build(key, &label, source)?;
        cache.insert(key, pipeline.clone());
        Ok(pipeline)
    }

    /// A fused kernel's pipeline (`fuse.rs`, which caches them by pattern) from its source.
    pub(super) fn fused_pipeline(&self, kernel: Kernel, source: String) -> Result<Pipeline> {
        usable()?;
        let key = PipelineKey {
            kernel,
            op: 0,
            dtype: GpuDType::F32,
            expr: "",
        };
        self.build(key, "fused", Cow::Owned(source))
    }

    /// Compiles `source` into the pipeline of `key`'s kernel, op and dtype.
    fn build(&self, key: PipelineKey, label: &str, source: Cow<'_, str>) -> Result<Pipeline> {
        let desc = ::wgpu::ShaderModuleDescriptor {
            label: Some(label),
            source: ::wgpu::ShaderSource::Wgsl(source),
        };
        let module = if key.kernel == Kernel::Matmul {
            // SAFETY: the matmul shader's indices stay in bounds by construction: the host
            // checks that each operand view fits its buffer (`MatView::extent`), loads test
            // rows/cols/k against m/n/k, and shared-memory indices are bounded by the tile
            // constants; its loops are counted. wgpu's injected index clamps and loop counters
            // sit in the innermost loop (together with the hand unrolling, dropping them took
            // 4096^3 on an H100 from 25 to 35 TFLOP/s).
            unsafe {
                self.device
                    .create_shader_module_trusted(desc, ::wgpu::ShaderRuntimeChecks::unchecked())
            }
        } else {
            self.device.create_shader_module(desc)
        };
        let layout = self.layout(key.kernel)?;
        let mut constants = Vec::new();
        if key.kernel.has_op() {
            constants.push(("OP", f64::from(key.op)));
        }
        if key.dtype == GpuDType::F16 {
            constants.push(("HALF", 1.0));
        }
        if key.dtype == GpuDType::I32 {
            constants.push(("INT", 1.0));
        }
        let pipeline = self
            .device
            .create_compute_pipeline(&::wgpu::ComputePipelineDescriptor {
                label: Some(label),
                layout: Some(&layout.pipeline),
                module: &module,
                entry_point: Some(key.kernel.entry(key.op)),
                compilation_options: ::wgpu::PipelineCompilationOptions {
                    constants: &constants,
                    ..Default::default()
                },
                cache: None,
            });
        self.check()?;
        Ok(Pipeline {
            pipeline,
            kernel: key.kernel,
            layout,
        })
    }

    /// The bind group layout of `kernel`, read off its shader's `@binding` declarations.
    fn layout(&self, kernel: Kernel) -> Result<Arc<KernelLayout>> {
        if let Some(l) = self.layouts.lock().get(&kernel) {
            return Ok(l.clone());
        }
        use ::wgpu::BufferBindingType::{Storage, Uniform};
        let mut kinds = Vec::new();
        if let Kernel::Fused { inputs, outputs } = kernel {
            kinds.extend((0..inputs).map(|_| Storage { read_only: true }));
            kinds.extend((0..outputs).map(|_| Storage { read_only: false }));
            kinds.push(Uniform);
        }
        for line in kernel.source().lines() {
            let Some(decl) = line.trim().strip_prefix("@group(0) @binding(") else {
                continue;
            };
            kinds.push(if decl.contains("var<uniform>") {
                Uniform
            } else if decl.contains("var<storage, read>") {
                Storage { read_only: true }
            } else if decl.contains("var<storage, read_write>") {
                Storage { read_only: false }
            } else {
                return Err(Error::Runtime(format!(
                    "{}.wgsl: unexpected binding `{line}`",
                    kernel.name()
                )));
            });
        }
        let storage = kinds.len().saturating_sub(1);
        if kinds.last() != Some(&Uniform) || kinds[..storage].contains(&Uniform) {
            return Err(Error::Runtime(format!(
                "{}.wgsl: bindings must be storage buffers then one uniform",
                kernel.name()
            )));
        }
        let entries: Vec<::wgpu::BindGroupLayoutEntry> = kinds
            .iter()
            .enumerate()
            .map(|(i, &ty)| ::wgpu::BindGroupLayoutEntry {
                binding: i as u32,
                visibility: ::wgpu::ShaderStages::COMPUTE,
                ty: ::wgpu::BindingType::Buffer {
                    ty,
                    has_dynamic_offset: ty == Uniform,
                    min_binding_size: None,
                },
                count: None,
            })
            .collect();
        let bind_group = self
            .device
            .create_bind_group_layout(&::wgpu::BindGroupLayoutDescriptor {
                label: Some(kernel.name()),
                entries: &entries,
            });
        let pipeline = self
            .device
            .create_pipeline_layout(&::wgpu::PipelineLayoutDescriptor {
                label: Some(kernel.name()),
                bind_group_layouts: &[Some(&bind_group)],
                immediate_size: 0,
            });
        let layout = Arc::new(KernelLayout {
            bind_group,
            pipeline,
            storage,
        });
        self.layouts.lock().insert(kernel, layout.clone());
        Ok(layout)
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

    /// A storage buffer of at least `bytes` (at most one chunk), from the pool when one of its
    /// class is free.
    pub fn alloc(&self, bytes: u64) -> Result<(::wgpu::Buffer, u64)> {
        usable()?;
        let class = size_class(bytes);
        if let Some(buf) = self.pool.lock().take(class) {
            return Ok((buf, class));
        }
        let buf = self.device.create_buffer(&::wgpu::BufferDescriptor {
            label: None,
            size: class,
            usage: ::wgpu::BufferUsages::STORAGE
                | ::wgpu::BufferUsages::COPY_SRC
                | ::wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        if let Err(e) = self.check() {
            // Out of memory is the usual cause: free the cache and try once more.
            self.release_buffers();
            let buf = self.device.create_buffer(&::wgpu::BufferDescriptor {
                label: None,
                size: class,
                usage: ::wgpu::BufferUsages::STORAGE
                    | ::wgpu::BufferUsages::COPY_SRC
                    | ::wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            self.check().map_err(|_| e)?;
            self.pool.lock().count_new(class);
            return Ok((buf, class));
        }
        self.pool.lock().count_new(class);
        Ok((buf, class))
    }

    /// A read-only storage buffer holding `data`, outside the pool (constants).
    pub(super) fn constant_buffer(&self, data: &[u8]) -> Result<::wgpu::Buffer> {
        self.init_buffer(
            data,
            ::wgpu::BufferUsages::STORAGE | ::wgpu::BufferUsages::COPY_SRC,
        )
    }

    /// A buffer of `usage` holding `data`, written at creation (mapped), so its contents need
    /// no queue write: a queue write would run before commands already recorded.
    fn init_buffer(&self, data: &[u8], usage: ::wgpu::BufferUsages) -> Result<::wgpu::Buffer> {
        // Mapped sizes must be multiples of 4; uniform blocks are read in 16-byte rows.
        let size = (data.len() as u64).max(16).next_multiple_of(16);
        let buf = self.device.create_buffer(&::wgpu::BufferDescriptor {
            label: None,
            size,
            usage,
            mapped_at_creation: true,
        });
        self.check()?;
        {
            let mut view = buf
                .get_mapped_range_mut(..)
                .map_err(|e| Error::Runtime(format!("GPU error: {e}")))?;
            view.slice(..data.len()).copy_from_slice(data);
        }
        buf.unmap();
        Ok(buf)
    }

    /// Records a copy of `data` into `dst` (at byte 0) after everything recorded so far.
    pub fn write(&self, dst: &::wgpu::Buffer, data: &[u8]) -> Result<()> {
        usable()?;
        if data.is_empty() {
            return Ok(());
        }
        let staging = self.init_buffer(data, ::wgpu::BufferUsages::COPY_SRC)?;
        let len = (data.len() as u64).next_multiple_of(4);
        self.record(|enc| enc.copy_buffer_to_buffer(&staging, 0, dst, 0, len))
    }

    /// Submits what is recorded and waits for it, then copies `bytes` bytes of `src` back.
    pub fn read(&self, src: &::wgpu::Buffer, bytes: u64) -> Result<Vec<u8>> {
        usable()?;
        if bytes == 0 {
            return Ok(Vec::new());
        }
        // Mapped ranges are multiples of 8 bytes; buffers that may be kept are powers of two
        // from 256, larger ones (never kept) exactly the read's size.
        let mapped = bytes.next_multiple_of(8);
        let size = match mapped.next_power_of_two().max(256) {
            pow2 if pow2 <= STAGING_MAX => pow2,
            _ => mapped,
        };
        let kept = {
            let mut kept = self.staging.lock();
            let fit = (0..kept.len())
                .filter(|&i| kept[i].size() >= mapped)
                .min_by_key(|&i| kept[i].size());
            fit.map(|i| kept.swap_remove(i))
        };
        let staging = match kept {
            Some(b) => b,
            None => {
                let b = self.device.create_buffer(&::wgpu::BufferDescriptor {
                    label: None,
                    size,
                    usage: ::wgpu::BufferUsages::MAP_READ | ::wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                });
                self.check()?;
                b
            }
        };
        self.record(|enc| enc.copy_buffer_to_buffer(src, 0, &staging, 0, bytes))?;
        self.flush()?;
        let (tx, rx) = std::sync::mpsc::channel();
        staging.map_async(::wgpu::MapMode::Read, ..mapped, move |r| {
            let _ = tx.send(r);
        });
        self.wait()?;
        match rx.recv() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(Error::Runtime(format!("GPU read-back failed: {e}"))),
            Err(_) => return Err(Error::Runtime("GPU read-back never completed".into())),
        }
        let out = {
            let view = staging
                .get_mapped_range(..mapped)
                .map_err(|e| Error::Runtime(format!("GPU read-back failed: {e}")))?;
            view[..bytes as usize].to_vec()
        };
        staging.unmap();
        if staging.size() <= STAGING_MAX {
            let mut kept = self.staging.lock();
            if kept.len() >= STAGING_KEPT {
                // Keep the larger ones: they serve small reads too.
                let smallest = (0..kept.len()).min_by_key(|&i| kept[i].size());
                if let Some(i) = smallest.filter(|&i| kept[i].size() < staging.size()) {
                    kept[i] = staging;
                }
            } else {
                kept.push(staging);
            }
        }
        Ok(out)
    }

    /// Drops the kept read-back buffers (`empty_cache`).
    pub fn release_staging(&self) {
        self.staging.lock().clear();
    }

    /// Records one compute dispatch of `pipeline` over `buffers` (bindings 0, 1, ...) plus
    /// `params` as the last, uniform binding.
    pub fn dispatch(
        &self,
        pipeline: &Pipeline,
        buffers: &[&::wgpu::Buffer],
        params: &[u8],
        groups: [u32; 3],
    ) -> Result<()> {
        usable()?;
        self.flush_fused()?;
        self.dispatch_now(pipeline, buffers, params, groups)
    }

    /// Records the pending fused chain (Note [Elementwise fusion]) as its one dispatch: done
    /// before anything else is recorded, so every later command sees its results.
    pub fn flush_fused(&self) -> Result<()> {
        let mut state = self.fusion.lock();
        super::fuse::flush(self, &mut state)
    }

    /// [`Gpu::dispatch`] after the pending fused chain was recorded (or is this dispatch).
    pub(super) fn dispatch_now(
        &self,
        pipeline: &Pipeline,
        buffers: &[&::wgpu::Buffer],
        params: &[u8],
        groups: [u32; 3],
    ) -> Result<()> {
        if params.len() as u64 > PARAM_BYTES {
            return Err(Error::Runtime(format!(
                "GPU dispatch: {} bytes of parameters exceed {PARAM_BYTES}",
                params.len()
            )));
        }
        let layout = &pipeline.layout;
        if buffers.len() != layout.storage {
            return Err(Error::Runtime(format!(
                "GPU dispatch: {} buffers for the {} storage bindings of {}.wgsl",
                buffers.len(),
                layout.storage,
                pipeline.kernel.name()
            )));
        }
        let bind_group = self.bind_group(layout, pipeline.kernel, buffers);
        let mut pending = self.pending.lock();
        let offset = pending.params.len() as u64;
        debug_assert!(offset < self.param_slot * BATCH_LIMIT as u64);
        pending.params.extend_from_slice(params);
        pending
            .params
            .resize((offset + self.param_slot) as usize, 0);
        if pending.pass.is_none() {
            let enc = self.encoder(&mut pending);
            let pass = enc.begin_compute_pass(&::wgpu::ComputePassDescriptor::default());
            pending.pass = Some(pass.forget_lifetime());
        }
        let pass = pending.pass.as_mut().expect("open pass");
        pass.set_pipeline(&pipeline.pipeline);
        // The arena holds BATCH_LIMIT slots, far below 4 GiB.
        pass.set_bind_group(0, &bind_group, &[offset as u32]);
        pass.dispatch_workgroups(groups[0], groups[1], groups[2]);
        self.dispatches
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.counted(pending)
    }

    /// The bind group of `kernel` over `buffers` and the parameter arena, from the cache when
    /// a dispatch bound the same buffers before (Note [Bind group cache]).
    fn bind_group(
        &self,
        layout: &KernelLayout,
        kernel: Kernel,
        buffers: &[&::wgpu::Buffer],
    ) -> ::wgpu::BindGroup {
        let key = (
            kernel,
            buffers.iter().map(|&b| b.clone()).collect::<Vec<_>>(),
        );
        if let Some(bg) = self.bind_groups.lock().get(&key) {
            return bg.clone();
        }
        let mut entries: Vec<::wgpu::BindGroupEntry> = buffers
            .iter()
            .enumerate()
            .map(|(i, b)| ::wgpu::BindGroupEntry {
                binding: i as u32,
                resource: b.as_entire_binding(),
            })
            .collect();
        // One slot's worth from the dynamic offset: every Params struct fits PARAM_BYTES.
        entries.push(::wgpu::BindGroupEntry {
            binding: buffers.len() as u32,
            resource: ::wgpu::BindingResource::Buffer(::wgpu::BufferBinding {
                buffer: &self.params,
                offset: 0,
                size: std::num::NonZeroU64::new(PARAM_BYTES),
            }),
        });
        let bg = self.device.create_bind_group(&::wgpu::BindGroupDescriptor {
            label: None,
            layout: &layout.bind_group,
            entries: &entries,
        });
        let mut cache = self.bind_groups.lock();
        if cache.len() >= BIND_GROUPS_KEPT {
            cache.clear();
        }
        cache.insert(key, bg.clone());
        bg
    }

    /// Appends commands to the pending encoder; past [`BATCH_LIMIT`] of them, submits.
    fn record(&self, f: impl FnOnce(&mut ::wgpu::CommandEncoder)) -> Result<()> {
        self.flush_fused()?;
        let mut pending = self.pending.lock();
        pending.pass = None; // ends the pass: the encoder is locked while one is open
        f(self.encoder(&mut pending));
        self.counted(pending)
    }

    fn encoder<'p>(&self, pending: &'p mut Pending) -> &'p mut ::wgpu::CommandEncoder {
        pending.encoder.get_or_insert_with(|| {
            self.device
                .create_command_encoder(&::wgpu::CommandEncoderDescriptor { label: None })
        })
    }

    /// Counts one recorded command; at [`BATCH_LIMIT`], submits.
    fn counted(&self, mut pending: parking_lot::MutexGuard<'_, Pending>) -> Result<()> {
        pending.ops += 1;
        if pending.ops >= BATCH_LIMIT {
            self.submit(&mut pending);
        }
        drop(pending);
        self.check()
    }

    fn submit(&self, pending: &mut Pending) {
        pending.pass = None;
        if let Some(enc) = pending.encoder.take() {
            if !pending.params.is_empty() {
                self.queue.write_buffer(&self.params, 0, &pending.params);
                pending.params.clear();
            }
            self.queue.submit([enc.finish()]);
            self.submits
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        pending.ops = 0;
    }

    /// Submits everything recorded so far, without waiting.
    pub fn flush(&self) -> Result<()> {
        usable()?;
        self.flush_fused()?;
        self.submit(&mut self.pending.lock());
        self.check()
    }

    fn wait(&self) -> Result<()> {
        let failed = |e: ::wgpu::PollError| Error::Runtime(format!("GPU wait failed: {e}"));
        // On a real GPU, poll without blocking for a while first: a blocking wait sleeps in
        // the kernel and wakes tens of microseconds after a short batch is done (`.item()`).
        // Not on a CPU adapter (lavapipe), whose own threads need the cores.
        if self.info.device_type != ::wgpu::DeviceType::Cpu {
            let start = std::time::Instant::now();
            while start.elapsed() < SPIN_WAIT {
                if self
                    .device
                    .poll(::wgpu::PollType::Poll)
                    .map_err(failed)?
                    .is_queue_empty()
                {
                    return self.check();
                }
                std::hint::spin_loop();
            }
        }
        self.device
            .poll(::wgpu::PollType::wait_indefinitely())
            .map_err(failed)?;
        self.check()
    }

    /// Submits everything recorded and waits until the GPU has finished it.
    pub fn synchronize(&self) -> Result<()> {
        self.flush()?;
        self.wait()
    }

    /// The largest workgroup count per grid dimension.
    pub fn max_groups(&self) -> u32 {
        self.limits.max_compute_workgroups_per_dimension
    }

    /// A grid of `groups` workgroups: 1-D while it fits, else spread over y (the kernels fold
    /// the y index back in with `num_workgroups.x`; surplus invocations exit on a bounds test).
    pub fn grid(&self, groups: u64) -> Result<[u32; 3]> {
        let max = u64::from(self.max_groups());
        if groups <= max {
            return Ok([groups.max(1) as u32, 1, 1]);
        }
        let y = groups.div_ceil(max);
        if y > max {
            return Err(Error::Runtime(format!(
                "GPU grid of {groups} workgroups exceeds {max}x{max}"
            )));
        }
        Ok([max as u32, y as u32, 1])
    }
}
