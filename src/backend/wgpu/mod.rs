//! The GPU backend: WGSL compute shaders through wgpu (Vulkan, Metal, DX12).
//!
//! Tensors call it through `ops/gpu.rs` (Note [Devices]): a lazily created global context
//! (`context.rs`), one shader per kernel family (`shaders/`), compiled once into a pipeline
//! cache keyed by (kernel, op, dtype), buffers from a size-class pool (`pool.rs`), and
//! dispatches recorded into one command encoder that is submitted only on a read-back,
//! [`synchronize`], or after [`context::BATCH_LIMIT`] dispatches. Every wgpu failure comes back
//! as a crate [`Error`]; none panics.
//!
//! Buffers hold 32-bit words: float32 as is, bool as float32 0.0 / 1.0 (so a mask is also a
//! float32 tensor of ones and zeros) and int64 narrowed to int32 (see [`Words`]); float64 is
//! refused by [`check_dtype`] with the reason.

pub mod context;
mod pool;

use crate::dtype::DType;
use crate::error::{Error, Result};
use context::{gpu, guarded, Gpu, GpuDType, Kernel, PipelineKey, WORKGROUP};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

pub use context::{DISABLE_VAR, NO_ADAPTER};
pub use pool::size_class;

/// Every shader, by file name, for validation without a GPU.
pub const SHADERS: [(&str, &str); 7] = [
    ("unary.wgsl", include_str!("shaders/unary.wgsl")),
    ("binary.wgsl", include_str!("shaders/binary.wgsl")),
    ("reduce.wgsl", include_str!("shaders/reduce.wgsl")),
    ("matmul.wgsl", include_str!("shaders/matmul.wgsl")),
    ("copy.wgsl", include_str!("shaders/copy.wgsl")),
    ("where.wgsl", include_str!("shaders/where.wgsl")),
    ("softmax.wgsl", include_str!("shaders/softmax.wgsl")),
];

/// Whether a wgpu adapter exists and a device opened on it (creates the context).
pub fn is_available() -> bool {
    gpu().is_ok()
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
        g.pool.lock().clear();
    }
}

/// Bytes held by live GPU buffers (rounded to their size class); 0 before the first use.
pub fn memory_allocated() -> u64 {
    context::existing().map_or(0, |g| g.pool.lock().allocated)
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

/// int64 values narrowed to the int32 the shaders index with, refusing any that do not fit.
pub fn narrow_i64(values: &[i64]) -> Result<Vec<i32>> {
    values
        .iter()
        .map(|&v| {
            i32::try_from(v).map_err(|_| {
                Error::Runtime(format!(
                    "int64 value {v} does not fit in the int32 the GPU uses for integers"
                ))
            })
        })
        .collect()
}

/// An array of 32-bit words in GPU memory (float32 values, or the encodings of [`Words`]).
/// Dropping it returns its buffer to the pool.
pub struct GpuBuffer {
    buf: Option<::wgpu::Buffer>,
    /// The pool's size class; 0 for a constant (not pooled, not counted as allocated).
    class: u64,
    len: usize,
    gpu: &'static Gpu,
}

impl Drop for GpuBuffer {
    fn drop(&mut self) {
        if let Some(b) = self.buf.take() {
            if self.class > 0 {
                self.gpu.pool.lock().give_back(self.class, b);
            }
        }
    }
}

impl std::fmt::Debug for GpuBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GpuBuffer(len={})", self.len)
    }
}

fn len_u32(n: usize, what: &str) -> Result<u32> {
    u32::try_from(n).map_err(|_| Error::Runtime(format!("GPU {what} {n} exceeds 2^32 - 1")))
}

impl GpuBuffer {
    /// An uninitialized buffer of `len` floats (its contents are whatever the pool held).
    fn alloc(gpu: &'static Gpu, len: usize) -> Result<GpuBuffer> {
        len_u32(len, "buffer length")?;
        let (buf, class) = gpu.alloc(len as u64 * 4)?;
        Ok(GpuBuffer {
            buf: Some(buf),
            class,
            len,
            gpu,
        })
    }

    /// Copies `data` to the GPU (recorded, not submitted).
    pub fn upload(data: &[f32]) -> Result<GpuBuffer> {
        GpuBuffer::upload_words(bytemuck::cast_slice(data))
    }

    /// Copies 32-bit words to the GPU (recorded, not submitted).
    pub fn upload_words(data: &[u32]) -> Result<GpuBuffer> {
        guarded(|| {
            let out = GpuBuffer::alloc(gpu()?, data.len())?;
            out.gpu.write(out.raw(), bytemuck::cast_slice(data))?;
            Ok(out)
        })
    }

    /// A one-element buffer holding `v`, shared by every op that reads the number: `x * 2` in
    /// a loop creates its 2.0 once. Constants live outside the pool's accounting.
    pub fn constant(v: f32) -> Result<Arc<GpuBuffer>> {
        /// Distinct numbers kept; past it the cache starts over (a loop sweeping a value).
        const MAX_CONSTANTS: usize = 4096;
        static CONSTANTS: OnceLock<Mutex<HashMap<u32, Arc<GpuBuffer>>>> = OnceLock::new();
        guarded(|| {
            let cache = CONSTANTS.get_or_init(Mutex::default);
            if let Some(b) = cache.lock().get(&v.to_bits()) {
                return Ok(b.clone());
            }
            let g = gpu()?;
            let buf = Arc::new(GpuBuffer {
                buf: Some(g.constant_buffer(bytemuck::bytes_of(&v))?),
                class: 0,
                len: 1,
                gpu: g,
            });
            let mut cache = cache.lock();
            if cache.len() >= MAX_CONSTANTS {
                cache.clear();
            }
            cache.insert(v.to_bits(), buf.clone());
            Ok(buf)
        })
    }

    /// Copies the values back, submitting and waiting for everything recorded before.
    pub fn download(&self) -> Result<Vec<f32>> {
        Ok(bytemuck::cast_vec(self.download_words()?))
    }

    /// The words, as [`GpuBuffer::download`].
    pub fn download_words(&self) -> Result<Vec<u32>> {
        guarded(|| {
            let bytes = self.gpu.read(self.raw(), self.len as u64 * 4)?;
            Ok(bytemuck::pod_collect_to_vec(&bytes))
        })
    }

    /// An uninitialized buffer of `len` words on the context `self` lives in.
    pub fn alloc_like(&self, len: usize) -> Result<GpuBuffer> {
        guarded(|| GpuBuffer::alloc(self.gpu, len))
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn raw(&self) -> &::wgpu::Buffer {
        // Only `drop` takes the buffer out.
        self.buf.as_ref().expect("GpuBuffer used after drop")
    }
}

/// Elementwise unary ops (the `OP` values of `unary.wgsl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Neg = 0,
    Exp = 1,
    Log = 2,
    Sin = 3,
    Cos = 4,
    Tan = 5,
    Tanh = 6,
    Sigmoid = 7,
    Relu = 8,
    Sqrt = 9,
    Rsqrt = 10,
    Abs = 11,
    Reciprocal = 12,
    Square = 13,
    Floor = 14,
    Ceil = 15,
    Round = 16,
    Trunc = 17,
    Log1p = 18,
    Expm1 = 19,
    Log2 = 20,
    Exp2 = 21,
    Sign = 22,
    Asin = 23,
    Acos = 24,
    Atan = 25,
    Sinh = 26,
    Cosh = 27,
    Log10 = 28,
    Frac = 29,
}

impl UnaryOp {
    pub const ALL: [UnaryOp; 30] = [
        UnaryOp::Neg,
        UnaryOp::Exp,
        UnaryOp::Log,
        UnaryOp::Sin,
        UnaryOp::Cos,
        UnaryOp::Tan,
        UnaryOp::Tanh,
        UnaryOp::Sigmoid,
        UnaryOp::Relu,
        UnaryOp::Sqrt,
        UnaryOp::Rsqrt,
        UnaryOp::Abs,
        UnaryOp::Reciprocal,
        UnaryOp::Square,
        UnaryOp::Floor,
        UnaryOp::Ceil,
        UnaryOp::Round,
        UnaryOp::Trunc,
        UnaryOp::Log1p,
        UnaryOp::Expm1,
        UnaryOp::Log2,
        UnaryOp::Exp2,
        UnaryOp::Sign,
        UnaryOp::Asin,
        UnaryOp::Acos,
        UnaryOp::Atan,
        UnaryOp::Sinh,
        UnaryOp::Cosh,
        UnaryOp::Log10,
        UnaryOp::Frac,
    ];
}

/// Elementwise binary ops (the `OP` values of `binary.wgsl`); comparisons give 1.0 / 0.0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add = 0,
    Sub = 1,
    Mul = 2,
    Div = 3,
    Pow = 4,
    Maximum = 5,
    Minimum = 6,
    Eq = 7,
    Ne = 8,
    Lt = 9,
    Le = 10,
    Gt = 11,
    Ge = 12,
}

impl BinaryOp {
    pub const ALL: [BinaryOp; 13] = [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::Pow,
        BinaryOp::Maximum,
        BinaryOp::Minimum,
        BinaryOp::Eq,
        BinaryOp::Ne,
        BinaryOp::Lt,
        BinaryOp::Le,
        BinaryOp::Gt,
        BinaryOp::Ge,
    ];
}

/// Reductions (the `OP` values of `reduce.wgsl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    Sum = 0,
    Mean = 1,
    Max = 2,
    Min = 3,
}

fn key(kernel: Kernel, op: u32) -> PipelineKey {
    PipelineKey {
        kernel,
        op,
        dtype: GpuDType::F32,
    }
}

fn words(w: &[u32]) -> &[u8] {
    bytemuck::cast_slice(w)
}

/// `y[i] = op(x[offset + i])` for `i < n`.
pub fn unary(op: UnaryOp, x: &GpuBuffer, offset: usize, n: usize) -> Result<GpuBuffer> {
    guarded(|| {
        if offset + n > x.len {
            return Err(Error::Runtime(format!(
                "GPU unary: elements {offset}..{} out of a buffer of {}",
                offset + n,
                x.len
            )));
        }
        let g = x.gpu;
        let out = GpuBuffer::alloc(g, n)?;
        if n == 0 {
            return Ok(out);
        }
        let pipeline = g.pipeline(key(Kernel::Unary, op as u32))?;
        let params = [len_u32(n, "length")?, len_u32(offset, "offset")?, 0, 0];
        let groups = g.grid((n as u64).div_ceil(WORKGROUP))?;
        g.dispatch(&pipeline, &[x.raw(), out.raw()], words(&params), groups)?;
        Ok(out)
    })
}

/// A strided view into a buffer: element `idx` is at `offset + sum(idx[d] * strides[d])`.
#[derive(Clone, Debug)]
pub struct View<'a> {
    pub shape: &'a [usize],
    pub strides: &'a [usize],
    pub offset: usize,
}

impl<'a> View<'a> {
    pub fn contiguous(shape: &'a [usize], strides_out: &'a mut Vec<usize>) -> View<'a> {
        strides_out.clear();
        let mut s = 1;
        for &d in shape.iter().rev() {
            strides_out.push(s);
            s *= d;
        }
        strides_out.reverse();
        View {
            shape,
            strides: strides_out,
            offset: 0,
        }
    }
}

/// The most dims `binary.wgsl` indexes over (after merging, see [`collapse`]).
pub const MAX_DIMS: usize = 8;

/// Output shape with both operands' strides (0 where broadcast), size-1 dims dropped and
/// adjacent dims merged wherever both operands step through them as one: fewer dims is less
/// index arithmetic per element, and most tensors of any rank fit in [`MAX_DIMS`].
fn collapse(shape: &[usize], sa: &[usize], sb: &[usize]) -> Vec<[usize; 3]> {
    let mut dims: Vec<[usize; 3]> = Vec::new();
    for i in 0..shape.len() {
        if shape[i] == 1 {
            continue;
        }
        let cur = [shape[i], sa[i], sb[i]];
        if let Some(last) = dims.last_mut() {
            if last[1] == cur[1] * cur[0] && last[2] == cur[2] * cur[0] {
                *last = [last[0] * cur[0], cur[1], cur[2]];
                continue;
            }
        }
        dims.push(cur);
    }
    dims
}

/// Each operand's strides against `out_shape` (right-aligned; 0 on broadcast dims).
fn broadcast_strides(v: &View, out_shape: &[usize], which: &str) -> Result<Vec<usize>> {
    if v.shape.len() != v.strides.len() || v.shape.len() > out_shape.len() {
        return Err(Error::Runtime(format!(
            "GPU binary: operand {which} of shape {:?} does not broadcast to {out_shape:?}",
            v.shape
        )));
    }
    let lead = out_shape.len() - v.shape.len();
    let mut s = vec![0; out_shape.len()];
    for (d, (&size, &stride)) in v.shape.iter().zip(v.strides).enumerate() {
        if size == out_shape[lead + d] {
            s[lead + d] = if size == 1 { 0 } else { stride };
        } else if size != 1 {
            return Err(Error::Runtime(format!(
                "GPU binary: operand {which} of shape {:?} does not broadcast to {out_shape:?}",
                v.shape
            )));
        }
    }
    Ok(s)
}

/// The largest element index a view reads, plus one (0 for an empty view).
fn extent(v: &View) -> usize {
    if v.shape.contains(&0) {
        return 0;
    }
    v.offset
        + 1
        + v.shape
            .iter()
            .zip(v.strides)
            .map(|(&n, &s)| (n - 1) * s)
            .sum::<usize>()
}

/// `out = op(a, b)` over `out_shape` (contiguous), each operand read through its view with
/// broadcasting.
pub fn binary(
    op: BinaryOp,
    a: &GpuBuffer,
    va: &View,
    b: &GpuBuffer,
    vb: &View,
    out_shape: &[usize],
) -> Result<GpuBuffer> {
    guarded(|| {
        let sa = broadcast_strides(va, out_shape, "a")?;
        let sb = broadcast_strides(vb, out_shape, "b")?;
        let n: usize = out_shape.iter().product();
        if n > 0 && (extent(va) > a.len || extent(vb) > b.len) {
            return Err(Error::Runtime(
                "GPU binary: a view reads past its buffer".into(),
            ));
        }
        let g = a.gpu;
        let out = GpuBuffer::alloc(g, n)?;
        if n == 0 {
            return Ok(out);
        }
        let dims = collapse(out_shape, &sa, &sb);
        if dims.len() > MAX_DIMS {
            return Err(Error::Runtime(format!(
                "GPU binary: {} non-mergeable dims exceed the kernel's {MAX_DIMS}",
                dims.len()
            )));
        }
        // Params: n, ndim, a_offset, b_offset, then shape / a_strides / b_strides, 8 each.
        let mut p = vec![0u32; 4 + 3 * MAX_DIMS];
        p[0] = len_u32(n, "length")?;
        p[1] = dims.len() as u32;
        p[2] = len_u32(va.offset, "offset")?;
        p[3] = len_u32(vb.offset, "offset")?;
        for (d, [size, s_a, s_b]) in dims.iter().enumerate() {
            p[4 + d] = len_u32(*size, "dim")?;
            p[4 + MAX_DIMS + d] = len_u32(*s_a, "stride")?;
            p[4 + 2 * MAX_DIMS + d] = len_u32(*s_b, "stride")?;
        }
        let pipeline = g.pipeline(key(Kernel::Binary, op as u32))?;
        let groups = g.grid((n as u64).div_ceil(WORKGROUP))?;
        g.dispatch(&pipeline, &[a.raw(), b.raw(), out.raw()], words(&p), groups)?;
        Ok(out)
    })
}

/// Reduces the middle dim of a contiguous `[outer, red, inner]` block starting at `offset`,
/// giving `[outer, inner]`.
pub fn reduce(
    op: ReduceOp,
    x: &GpuBuffer,
    offset: usize,
    outer: usize,
    red: usize,
    inner: usize,
) -> Result<GpuBuffer> {
    guarded(|| {
        let total = outer * red * inner;
        if offset + total > x.len {
            return Err(Error::Runtime(
                "GPU reduce: the block reads past its buffer".into(),
            ));
        }
        let n_out = outer * inner;
        if red == 0 && n_out > 0 && matches!(op, ReduceOp::Max | ReduceOp::Min) {
            return Err(Error::Index(
                "max(): Expected reduction dim to be specified for input.numel() == 0. \
                 Specify the reduction dim with the 'dim' argument."
                    .into(),
            ));
        }
        let g = x.gpu;
        let out = GpuBuffer::alloc(g, n_out)?;
        if n_out == 0 {
            return Ok(out);
        }
        let params = [
            len_u32(outer, "dim")?,
            len_u32(red, "dim")?,
            len_u32(inner, "dim")?,
            len_u32(offset, "offset")?,
        ];
        len_u32(offset + total, "length")?;
        let pipeline = g.pipeline(key(Kernel::Reduce, op as u32))?;
        let groups = g.grid(n_out as u64)?;
        g.dispatch(&pipeline, &[x.raw(), out.raw()], words(&params), groups)?;
        Ok(out)
    })
}

/// Softmax (or log-softmax when `log`) along the middle dim of a contiguous
/// `[outer, red, inner]` block starting at `offset`; the output is contiguous, same shape.
pub fn softmax(
    log: bool,
    x: &GpuBuffer,
    offset: usize,
    outer: usize,
    red: usize,
    inner: usize,
) -> Result<GpuBuffer> {
    guarded(|| {
        let total = outer * red * inner;
        if offset + total > x.len {
            return Err(Error::Runtime(
                "GPU softmax: the block reads past its buffer".into(),
            ));
        }
        let g = x.gpu;
        let out = GpuBuffer::alloc(g, total)?;
        if total == 0 {
            return Ok(out);
        }
        let params = [
            len_u32(outer, "dim")?,
            len_u32(red, "dim")?,
            len_u32(inner, "dim")?,
            len_u32(offset, "offset")?,
        ];
        len_u32(offset + total, "length")?;
        let pipeline = g.pipeline(key(Kernel::Softmax, u32::from(log)))?;
        let groups = g.grid((outer * inner) as u64)?;
        g.dispatch(&pipeline, &[x.raw(), out.raw()], words(&params), groups)?;
        Ok(out)
    })
}

/// A strided batch of matrices: element (b, i, j) is at `offset + b*bs + i*rs + j*cs`.
#[derive(Clone, Copy, Debug)]
pub struct MatView {
    pub offset: usize,
    pub bs: usize,
    pub rs: usize,
    pub cs: usize,
}

impl MatView {
    /// Row-major `[batch, rows, cols]`.
    pub fn contiguous(rows: usize, cols: usize) -> MatView {
        MatView {
            offset: 0,
            bs: rows * cols,
            rs: cols,
            cs: 1,
        }
    }

    fn extent(&self, batch: usize, rows: usize, cols: usize) -> usize {
        if batch * rows * cols == 0 {
            return 0;
        }
        self.offset + 1 + (batch - 1) * self.bs + (rows - 1) * self.rs + (cols - 1) * self.cs
    }
}

const MM_TILE: usize = 64;

/// `out[b] = a[b] @ b[b]` for `batch` products of (m×k)·(k×n); `out` is contiguous
/// `[batch, m, n]`.
#[allow(clippy::too_many_arguments)]
pub fn matmul(
    a: &GpuBuffer,
    va: MatView,
    b: &GpuBuffer,
    vb: MatView,
    batch: usize,
    m: usize,
    k: usize,
    n: usize,
) -> Result<GpuBuffer> {
    guarded(|| {
        if va.extent(batch, m, k) > a.len || vb.extent(batch, k, n) > b.len {
            return Err(Error::Runtime(
                "GPU matmul: an operand reads past its buffer".into(),
            ));
        }
        let g = a.gpu;
        let total = batch * m * n;
        len_u32(total, "output length")?;
        if k == 0 {
            // An empty sum: zeros, as the CPU gives.
            return GpuBuffer::upload(&vec![0.0; total]);
        }
        let out = GpuBuffer::alloc(g, total)?;
        if total == 0 {
            return Ok(out);
        }
        let max = g.max_groups() as usize;
        let (gx, gy) = (n.div_ceil(MM_TILE), m.div_ceil(MM_TILE));
        if gx > max || gy > max {
            return Err(Error::Runtime(format!(
                "GPU matmul: a {m}x{n} output needs more than {max} tiles per dimension"
            )));
        }
        let pipeline = g.pipeline(key(Kernel::Matmul, 0))?;
        // Batches past the grid's z limit go in several dispatches, each told its first batch.
        let mut base = 0;
        while base < batch {
            let nz = (batch - base).min(max);
            let params = [
                len_u32(m, "dim")?,
                len_u32(n, "dim")?,
                len_u32(k, "dim")?,
                len_u32(base, "batch")?,
                len_u32(va.offset, "offset")?,
                len_u32(va.bs, "stride")?,
                len_u32(va.rs, "stride")?,
                len_u32(va.cs, "stride")?,
                len_u32(vb.offset, "offset")?,
                len_u32(vb.bs, "stride")?,
                len_u32(vb.rs, "stride")?,
                len_u32(vb.cs, "stride")?,
            ];
            let groups = [gx as u32, gy as u32, nz as u32];
            g.dispatch(
                &pipeline,
                &[a.raw(), b.raw(), out.raw()],
                words(&params),
                groups,
            )?;
            base += nz;
        }
        Ok(out)
    })
}

/// How a dtype is held in GPU words, and the conversions at upload and download.
pub enum Words {}

impl Words {
    const ONE: u32 = 0x3f80_0000; // 1.0f32

    /// The words of `n` elements of `dtype` at `host` (float64 is refused).
    ///
    /// # Safety
    /// `host` must point to `n` valid elements of `dtype`.
    pub unsafe fn encode(dtype: DType, host: *const u8, n: usize) -> Result<Vec<u32>> {
        Ok(match dtype {
            DType::F32 => std::slice::from_raw_parts(host as *const u32, n).to_vec(),
            DType::Bool => std::slice::from_raw_parts(host as *const bool, n)
                .iter()
                .map(|&b| if b { Words::ONE } else { 0 })
                .collect(),
            DType::I64 => narrow_i64(std::slice::from_raw_parts(host as *const i64, n))?
                .into_iter()
                .map(|v| v as u32)
                .collect(),
            DType::F64 => return check_dtype(dtype).map(|_| Vec::new()),
        })
    }

    /// Writes `words` back as elements of `dtype` at `host`.
    ///
    /// # Safety
    /// `host` must be valid for `words.len()` writes of `dtype`.
    pub unsafe fn decode(dtype: DType, words: &[u32], host: *mut u8) -> Result<()> {
        let n = words.len();
        match dtype {
            DType::F32 => std::ptr::copy_nonoverlapping(words.as_ptr(), host as *mut u32, n),
            DType::Bool => {
                let out = std::slice::from_raw_parts_mut(host as *mut bool, n);
                for (o, &w) in out.iter_mut().zip(words) {
                    *o = w != 0;
                }
            }
            DType::I64 => {
                let out = std::slice::from_raw_parts_mut(host as *mut i64, n);
                for (o, &w) in out.iter_mut().zip(words) {
                    *o = i64::from(w as i32);
                }
            }
            DType::F64 => check_dtype(dtype)?,
        }
        Ok(())
    }
}

/// A strided view with signed strides (flipped views), for [`copy`].
#[derive(Clone, Debug)]
pub struct SView<'a> {
    pub shape: &'a [usize],
    pub strides: &'a [isize],
    pub offset: usize,
}

impl SView<'_> {
    /// The smallest and one past the largest element index it touches (None when empty).
    fn bounds(&self) -> Option<(isize, isize)> {
        if self.shape.contains(&0) {
            return None;
        }
        let (mut lo, mut hi) = (self.offset as isize, self.offset as isize);
        for (&n, &s) in self.shape.iter().zip(self.strides) {
            let span = (n as isize - 1) * s;
            if span < 0 {
                lo += span;
            } else {
                hi += span;
            }
        }
        Some((lo, hi + 1))
    }
}

/// Conversions the copy kernel makes on the way (the `OP` values of `copy.wgsl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CopyOp {
    Same = 0,
    IntToFloat = 1,
    FloatToInt = 2,
    FloatToBool = 3,
    IntToBool = 4,
}

impl CopyOp {
    /// The conversion from `from` to `to` (None: not one the GPU holds).
    pub fn between(from: DType, to: DType) -> Option<CopyOp> {
        use DType::*;
        Some(match (from, to) {
            (F64, _) | (_, F64) => return None,
            _ if from == to => CopyOp::Same,
            (I64, F32) => CopyOp::IntToFloat,
            (F32 | Bool, I64) => CopyOp::FloatToInt,
            (F32, Bool) => CopyOp::FloatToBool,
            (I64, Bool) => CopyOp::IntToBool,
            // bool's words are float32 0.0 / 1.0 already.
            (Bool, F32) => CopyOp::Same,
            _ => return None,
        })
    }
}

/// Writes `op(x viewed by vx)` into the elements of `out` that `vo` addresses (same shape).
/// `x` and `out` must be distinct buffers.
pub fn copy(op: CopyOp, x: &GpuBuffer, vx: &SView, out: &GpuBuffer, vo: &SView) -> Result<()> {
    guarded(|| {
        if vx.shape != vo.shape
            || vx.strides.len() != vx.shape.len()
            || vo.strides.len() != vo.shape.len()
        {
            return Err(Error::Runtime(format!(
                "GPU copy: views of shapes {:?} and {:?}",
                vx.shape, vo.shape
            )));
        }
        let (Some(bx), Some(bo)) = (vx.bounds(), vo.bounds()) else {
            return Ok(());
        };
        if bx.0 < 0 || bx.1 as usize > x.len || bo.0 < 0 || bo.1 as usize > out.len {
            return Err(Error::Runtime(
                "GPU copy: a view reaches outside its buffer".into(),
            ));
        }
        // Size-1 dims dropped; adjacent dims merged where both sides step through them as one.
        let mut dims: Vec<(usize, isize, isize)> = Vec::new();
        for d in 0..vx.shape.len() {
            let (n, sx, so) = (vx.shape[d], vx.strides[d], vo.strides[d]);
            if n == 1 {
                continue;
            }
            match dims.last_mut() {
                Some(l) if l.1 == sx * n as isize && l.2 == so * n as isize => {
                    *l = (l.0 * n, sx, so)
                }
                _ => dims.push((n, sx, so)),
            }
        }
        if dims.len() > MAX_DIMS {
            return Err(Error::Runtime(format!(
                "GPU copy: {} non-mergeable dims exceed the kernel's {MAX_DIMS}",
                dims.len()
            )));
        }
        let n: usize = vx.shape.iter().product();
        let stride = |s: isize| -> Result<u32> {
            i32::try_from(s)
                .map(|v| v as u32)
                .map_err(|_| Error::Runtime(format!("GPU copy: stride {s} exceeds int32")))
        };
        len_u32(bx.1.max(bo.1) as usize, "index")?;
        let mut p = vec![0u32; 4 + 3 * MAX_DIMS];
        p[0] = len_u32(n, "length")?;
        p[1] = dims.len() as u32;
        p[2] = vx.offset as u32;
        p[3] = vo.offset as u32;
        for (d, &(size, sx, so)) in dims.iter().enumerate() {
            p[4 + d] = len_u32(size, "dim")?;
            p[4 + MAX_DIMS + d] = stride(sx)?;
            p[4 + 2 * MAX_DIMS + d] = stride(so)?;
        }
        let g = x.gpu;
        let pipeline = g.pipeline(key(Kernel::Copy, op as u32))?;
        let groups = g.grid((n as u64).div_ceil(WORKGROUP))?;
        g.dispatch(&pipeline, &[x.raw(), out.raw()], words(&p), groups)
    })
}

/// `out = cond ? a : b` over `out_shape` (contiguous), each operand broadcast through its
/// view; any dtype's words.
pub fn select(
    cond: (&GpuBuffer, &View),
    a: (&GpuBuffer, &View),
    b: (&GpuBuffer, &View),
    out_shape: &[usize],
) -> Result<GpuBuffer> {
    guarded(|| {
        let ops = [cond, a, b];
        let mut strides = Vec::with_capacity(3);
        for (i, (buf, v)) in ops.iter().enumerate() {
            strides.push(broadcast_strides(v, out_shape, ["cond", "a", "b"][i])?);
            let n: usize = out_shape.iter().product();
            if n > 0 && extent(v) > buf.len {
                return Err(Error::Runtime(
                    "GPU where: a view reads past its buffer".into(),
                ));
            }
        }
        let n: usize = out_shape.iter().product();
        let g = a.0.gpu;
        let out = GpuBuffer::alloc(g, n)?;
        if n == 0 {
            return Ok(out);
        }
        // Size-1 dims dropped, mergeable neighbours merged (as `collapse`, three operands).
        let mut dims: Vec<[usize; 4]> = Vec::new();
        for d in 0..out_shape.len() {
            let cur = [out_shape[d], strides[0][d], strides[1][d], strides[2][d]];
            if cur[0] == 1 {
                continue;
            }
            match dims.last_mut() {
                Some(l) if (1..4).all(|k| l[k] == cur[k] * cur[0]) => {
                    *l = [l[0] * cur[0], cur[1], cur[2], cur[3]]
                }
                _ => dims.push(cur),
            }
        }
        if dims.len() > MAX_DIMS {
            return Err(Error::Runtime(format!(
                "GPU where: {} non-mergeable dims exceed the kernel's {MAX_DIMS}",
                dims.len()
            )));
        }
        let mut p = vec![0u32; 8 + 4 * MAX_DIMS];
        p[0] = len_u32(n, "length")?;
        p[1] = dims.len() as u32;
        for (i, (_, v)) in ops.iter().enumerate() {
            p[2 + i] = len_u32(v.offset, "offset")?;
        }
        for (d, dim) in dims.iter().enumerate() {
            for (k, &v) in dim.iter().enumerate() {
                p[8 + k * MAX_DIMS + d] = len_u32(v, "stride")?;
            }
        }
        let pipeline = g.pipeline(key(Kernel::Where, 0))?;
        let groups = g.grid((n as u64).div_ceil(WORKGROUP))?;
        g.dispatch(
            &pipeline,
            &[cond.0.raw(), a.0.raw(), b.0.raw(), out.raw()],
            words(&p),
            groups,
        )?;
        Ok(out)
    })
}

/// Command buffers submitted to the GPU so far (0 before the first use).
pub fn submit_count() -> u64 {
    context::existing().map_or(0, |g| g.submits())
}
