//! The GPU backend: WGSL compute shaders through wgpu (Vulkan, Metal, DX12).
//!
//! Tensors call it through `kernels/gpu.rs` (Note [Devices]): a lazily created global context
//! (`context/`), one shader per kernel family (`shaders/`), compiled once into a pipeline
//! cache keyed by (kernel, op, dtype), buffers from a size-class pool (`pool.rs`), and
//! dispatches recorded into one command encoder that is submitted only on a read-back,
//! [`synchronize`], or after [`context::BATCH_LIMIT`] dispatches. Every wgpu failure comes back
//! as a crate [`Error`]; none panics.
//!
//! Buffers hold 32-bit words: float32 as is, bool as float32 0.0 / 1.0 (so a mask is also a
//! float32 tensor of ones and zeros) and int64 narrowed to int32 (see [`Words`]); float64 is
//! refused by [`check_dtype`] with the reason.

/// An op enum whose shader op codes come from one table: the variants in order, each one's
/// code its position (no hand-numbered discriminants), and the shader's names for them
/// (`OP_` and the variant's name in capitals: `ReduceOp::ArgMax` is `OP_ARGMAX`), appended
/// to its source as WGSL constants ([`Kernel::source`]) so that the shader's `switch OP`
/// arms and tests read those names, never numbers.
macro_rules! op_codes {
    ($(#[doc = $doc:literal])* pub enum $Enum:ident {
        $($(#[doc = $vdoc:literal])* $V:ident,)*
    }) => {
        $(#[doc = $doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $Enum {
            $($(#[doc = $vdoc])* $V,)*
        }

        impl $Enum {
            /// Every op, in the table's order (an op's code is its index here).
            pub const ALL: &'static [$Enum] = &[$($Enum::$V,)*];

            /// The value of the shader's `OP` override for this op.
            pub fn code(self) -> u32 {
                self as u32
            }

            /// The shader's name for this op's code.
            pub fn wgsl_name(self) -> String {
                match self {
                    $($Enum::$V => format!("OP_{}", stringify!($V).to_uppercase()),)*
                }
            }

            /// The WGSL constants naming every code, one line each.
            pub fn wgsl_consts() -> String {
                Self::ALL
                    .iter()
                    .map(|op| format!("const {}: u32 = {}u;\n", op.wgsl_name(), op.code()))
                    .collect()
            }
        }
    };
}

mod buffer;
mod chunks;
pub mod context;
mod copy;
mod elementwise;
mod fuse;
mod index;
mod matmul;
mod pool;
mod reduce;
mod scan;
mod sort;
mod window;
mod words;

use crate::dtype::DType;
use crate::error::{Error, Result};
use context::{gpu, guarded, Kernel};

pub use buffer::{fits_binding, GpuBuffer};
pub use context::{GpuDType, DISABLE_VAR, NO_ADAPTER, SOFTWARE_VAR};
pub use copy::{copy, CopyOp, SView};
pub use elementwise::{
    binary, select, ternary, unary, unary_as, unary_with, TernaryOp, View, MAX_DIMS,
};
pub use fuse::{chain_source as fused_chain_source, set_enabled as set_fusion, FUSION_VAR};
pub use index::{index, nonzero, IndexOp};
pub use matmul::{matmul, matmul_tiled, MatView, MmTiles};
pub use pool::size_class;
pub use reduce::{reduce, reduce_arg, ReduceOp};
pub use scan::{scan, softmax, ScanOp, MAX_LINE};
pub use sort::sort;
pub use window::{window, WindowGeom, WindowOp};
pub use words::{narrow_i64, Words};

/// Every shader, by file name, for validation without a GPU.
pub fn shaders() -> [(&'static str, std::borrow::Cow<'static, str>); 11] {
    [
        ("unary.wgsl", Kernel::Unary.source()),
        ("binary.wgsl", Kernel::Binary.source()),
        ("reduce.wgsl", Kernel::Reduce.source()),
        ("matmul.wgsl", Kernel::Matmul.source()),
        ("copy.wgsl", Kernel::Copy.source()),
        ("where.wgsl", Kernel::Where.source()),
        ("softmax.wgsl", Kernel::Softmax.source()),
        ("scan.wgsl", Kernel::Scan.source()),
        ("index.wgsl", Kernel::Index.source()),
        ("window.wgsl", Kernel::Window.source()),
        ("sort.wgsl", Kernel::Sort.source()),
    ]
}

/// Whether a wgpu adapter exists and a device opened on it (creates the context). True in a
/// forked child of a process that had opened one, as `torch.cuda.is_available()` is there
/// (using it raises).
pub fn is_available() -> bool {
    context::forked_away() || gpu().is_ok()
}

/// The adapter's name and backend, e.g. "llvmpipe (LLVM 15.0.6, 256 bits) (Vulkan)".
pub fn device_name() -> Result<String> {
    Ok(gpu()?.name())
}

/// Submits every recorded dispatch and waits for the GPU to finish them.
pub fn synchronize() -> Result<()> {
    guarded(|| gpu()?.synchronize())
}

/// Frees the pool's cached buffers (those of live tensors stay). No-op before the first use.
pub fn empty_cache() {
    if let Some(g) = context::existing() {
        g.release_buffers();
        g.release_staging();
    }
}

/// Bytes held by live GPU buffers (rounded to their size class); 0 before the first use.
pub fn memory_allocated() -> u64 {
    context::existing().map_or(0, |g| {
        // Temporaries a pending fused kernel holds are freed once it is recorded (Note
        // [Elementwise fusion]); unfused they would be free already. An error is kept for
        // the next call that checks.
        if let Err(e) = g.flush_fused() {
            g.keep_error(e);
        }
        g.pool.lock().allocated
    })
}

/// The most bytes `memory_allocated` has reported since start-up or the last
/// `reset_peak_memory_stats`; 0 before the first use.
pub fn max_memory_allocated() -> u64 {
    context::existing().map_or(0, |g| g.pool.lock().peak)
}

/// Starts `max_memory_allocated` over from the bytes allocated now.
pub fn reset_peak_memory_stats() {
    if let Some(g) = context::existing() {
        g.pool.lock().reset_peak();
    }
}

/// Bytes held by live buffers plus the pool's cache; 0 before the first use.
pub fn memory_reserved() -> u64 {
    context::existing().map_or(0, |g| g.pool.lock().reserved())
}

/// Whether tensors of `dtype` can live on the GPU, and if not, why.
pub fn check_dtype(dtype: DType) -> Result<()> {
    match dtype {
        DType::F32 => Ok(()),
        DType::F64 => {
            let has_f64 = gpu()?.features.contains(::wgpu::Features::SHADER_F64);
            let why = if has_f64 {
                "gradrs has no float64 GPU kernels yet"
            } else {
                "this adapter has no shader-f64 support"
            };
            Err(Error::Runtime(format!(
                "float64 tensors are not supported on the GPU: {why}; use float32"
            )))
        }
        other => Err(Error::Runtime(format!(
            "{other:?} tensors are not supported on the GPU yet; only float32 is"
        ))),
    }
}

/// Command buffers submitted to the GPU so far (0 before the first use).
pub fn submit_count() -> u64 {
    context::existing().map_or(0, |g| g.submits())
}

/// Compute dispatches recorded so far (0 before the first use).
pub fn dispatch_count() -> u64 {
    context::existing().map_or(0, |g| g.dispatches())
}
