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
pub const SHADERS: [(&str, &str); 10] = [
    ("unary.wgsl", include_str!("shaders/unary.wgsl")),
    ("binary.wgsl", include_str!("shaders/binary.wgsl")),
    ("reduce.wgsl", include_str!("shaders/reduce.wgsl")),
    ("matmul.wgsl", include_str!("shaders/matmul.wgsl")),
    ("copy.wgsl", include_str!("shaders/copy.wgsl")),
    ("where.wgsl", include_str!("shaders/where.wgsl")),
    ("softmax.wgsl", include_str!("shaders/softmax.wgsl")),
    ("scan.wgsl", include_str!("shaders/scan.wgsl")),
    ("index.wgsl", include_str!("shaders/index.wgsl")),
    ("window.wgsl", include_str!("shaders/window.wgsl")),
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
        g.release_staging();
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

    /// The first `n` words (a count a kernel left at the start), as [`GpuBuffer::download`].
    pub fn download_prefix(&self, n: usize) -> Result<Vec<u32>> {
        guarded(|| {
            let bytes = self.gpu.read(self.raw(), n.min(self.len) as u64 * 4)?;
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
    Erf = 30,
    /// Parameters: lower, upper bound.
    Clamp = 31,
    /// Parameter: negative slope.
    LeakyRelu = 32,
    /// Parameter: alpha.
    Elu = 33,
    /// Parameters: beta, threshold.
    Softplus = 34,
    Silu = 35,
    GeluErf = 36,
    GeluTanh = 37,
    /// Parameters: the values for NaN, +inf, -inf.
    NanToNum = 38,
}

impl UnaryOp {
    pub const ALL: [UnaryOp; 39] = [
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
        UnaryOp::Erf,
        UnaryOp::Clamp,
        UnaryOp::LeakyRelu,
        UnaryOp::Elu,
        UnaryOp::Softplus,
        UnaryOp::Silu,
        UnaryOp::GeluErf,
        UnaryOp::GeluTanh,
        UnaryOp::NanToNum,
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
    Atan2 = 13,
    /// C's fmod (sign of the dividend), exact.
    Fmod = 14,
    /// Python's % (sign of the divisor).
    Remainder = 15,
    DivTrunc = 16,
    DivFloor = 17,
    /// Logical ops on truth values (nonzero), giving 1.0 / 0.0.
    And = 18,
    Or = 19,
    Xor = 20,
}

impl BinaryOp {
    pub const ALL: [BinaryOp; 21] = [
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
        BinaryOp::Atan2,
        BinaryOp::Fmod,
        BinaryOp::Remainder,
        BinaryOp::DivTrunc,
        BinaryOp::DivFloor,
        BinaryOp::And,
        BinaryOp::Or,
        BinaryOp::Xor,
    ];
}

/// Reductions (the `OP` values of `reduce.wgsl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    Sum = 0,
    Mean = 1,
    Max = 2,
    Min = 3,
    Prod = 4,
    /// Value and index of the max (see [`reduce_arg`]).
    ArgMax = 5,
    /// Value and index of the min (see [`reduce_arg`]).
    ArgMin = 6,
    /// 1.0 when every element is nonzero (bool words).
    All = 7,
    /// 1.0 when some element is nonzero (bool words).
    Any = 8,
}

impl ReduceOp {
    fn has_index(self) -> bool {
        matches!(self, ReduceOp::ArgMax | ReduceOp::ArgMin)
    }
}

/// Cumulative ops (the `OP` values of `scan.wgsl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScanOp {
    Sum = 0,
    Prod = 1,
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
    unary_with(op, x, offset, n, [0.0; 3])
}

/// `unary` for the ops that take parameters (`UnaryOp` says which).
pub fn unary_with(
    op: UnaryOp,
    x: &GpuBuffer,
    offset: usize,
    n: usize,
    args: [f32; 3],
) -> Result<GpuBuffer> {
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
        let [a, b, c] = args.map(f32::to_bits);
        let params = [
            len_u32(n, "length")?,
            len_u32(offset, "offset")?,
            a,
            b,
            c,
            0,
            0,
            0,
        ];
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
/// giving `[outer, inner]` (words: f32 values, or bools for all / any). Not for the index
/// ops, which [`reduce_arg`] runs.
pub fn reduce(
    op: ReduceOp,
    x: &GpuBuffer,
    offset: usize,
    outer: usize,
    red: usize,
    inner: usize,
) -> Result<GpuBuffer> {
    if op.has_index() {
        return Err(Error::Runtime(format!(
            "GPU reduce: {op:?} gives indices too; use reduce_arg"
        )));
    }
    Ok(reduce_impl(op, x, offset, outer, red, inner)?.0)
}

/// The max (`ArgMax`) or min (`ArgMin`) of each run of a contiguous `[outer, red, inner]`
/// block with its index along the run (int32 words), as PyTorch's CPU kernel picks it: the
/// first NaN, else the first occurrence of the extreme value.
pub fn reduce_arg(
    op: ReduceOp,
    x: &GpuBuffer,
    offset: usize,
    outer: usize,
    red: usize,
    inner: usize,
) -> Result<(GpuBuffer, GpuBuffer)> {
    if !op.has_index() {
        return Err(Error::Runtime(format!(
            "GPU reduce_arg: {op:?} gives no index"
        )));
    }
    let (values, idx) = reduce_impl(op, x, offset, outer, red, inner)?;
    let idx = idx.ok_or_else(|| Error::Runtime("GPU reduce_arg: no index buffer".into()))?;
    Ok((values, idx))
}

fn reduce_impl(
    op: ReduceOp,
    x: &GpuBuffer,
    offset: usize,
    outer: usize,
    red: usize,
    inner: usize,
) -> Result<(GpuBuffer, Option<GpuBuffer>)> {
    guarded(|| {
        let total = outer * red * inner;
        if offset + total > x.len {
            return Err(Error::Runtime(
                "GPU reduce: the block reads past its buffer".into(),
            ));
        }
        let n_out = outer * inner;
        // No identity: an empty run has no extreme (the ops check first, with their names).
        let extreme = matches!(op, ReduceOp::Max | ReduceOp::Min) || op.has_index();
        if red == 0 && n_out > 0 && extreme {
            return Err(Error::Index(
                "max(): Expected reduction dim to be specified for input.numel() == 0. \
                 Specify the reduction dim with the 'dim' argument."
                    .into(),
            ));
        }
        let g = x.gpu;
        let out = GpuBuffer::alloc(g, n_out)?;
        let idx = if op.has_index() {
            Some(GpuBuffer::alloc(g, n_out)?)
        } else {
            None
        };
        if n_out == 0 {
            return Ok((out, idx));
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
        // Ops without an index leave binding 2 alone: `out` stands in for it.
        let yi = idx.as_ref().unwrap_or(&out);
        g.dispatch(
            &pipeline,
            &[x.raw(), out.raw(), yi.raw()],
            words(&params),
            groups,
        )?;
        Ok((out, idx))
    })
}

/// Inclusive cumulative sum / product along the middle dim of a contiguous
/// `[outer, len, inner]` block starting at `offset`; the output is contiguous, same shape.
pub fn scan(
    op: ScanOp,
    x: &GpuBuffer,
    offset: usize,
    outer: usize,
    len: usize,
    inner: usize,
) -> Result<GpuBuffer> {
    along_lines(
        key(Kernel::Scan, op as u32),
        "scan",
        x,
        offset,
        [outer, len, inner],
    )
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
    let k = key(Kernel::Softmax, u32::from(log));
    along_lines(k, "softmax", x, offset, [outer, red, inner])
}

/// One workgroup per line of a contiguous `[outer, len, inner]` block (the lines run along
/// the middle dim), output the same shape: the dispatch scan.wgsl and softmax.wgsl share.
fn along_lines(
    k: PipelineKey,
    what: &str,
    x: &GpuBuffer,
    offset: usize,
    [outer, len, inner]: [usize; 3],
) -> Result<GpuBuffer> {
    guarded(|| {
        let total = outer * len * inner;
        if offset + total > x.len {
            return Err(Error::Runtime(format!(
                "GPU {what}: the block reads past its buffer"
            )));
        }
        let g = x.gpu;
        let out = GpuBuffer::alloc(g, total)?;
        if total == 0 {
            return Ok(out);
        }
        let params = [
            len_u32(outer, "dim")?,
            len_u32(len, "dim")?,
            len_u32(inner, "dim")?,
            len_u32(offset, "offset")?,
        ];
        len_u32(offset + total, "length")?;
        let pipeline = g.pipeline(k)?;
        let groups = g.grid((outer * inner) as u64)?;
        g.dispatch(&pipeline, &[x.raw(), out.raw()], words(&params), groups)?;
        Ok(out)
    })
}

/// Sliding-window kernels (the `OP` values of `window.wgsl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WindowOp {
    /// `[N, C, H, W]` -> columns `[N, C*kh*kw, oh*ow]`.
    Im2Col = 0,
    /// Columns back to `[N, C, H, W]`, overlapping taps summed.
    Col2Im = 1,
}

/// The geometry of a 2-D window over `[n, c, h, w]` images giving `[oh, ow]` positions.
#[derive(Clone, Copy, Debug)]
pub struct WindowGeom {
    pub n: usize,
    pub c: usize,
    pub hw: [usize; 2],
    pub out: [usize; 2],
    pub kernel: [usize; 2],
    pub stride: [usize; 2],
    pub padding: [usize; 2],
    pub dilation: [usize; 2],
}

/// im2col (taps in the padding read `pad`) or col2im of the contiguous block of `src` from
/// `offset` on; the output is contiguous.
pub fn window(
    op: WindowOp,
    src: &GpuBuffer,
    offset: usize,
    geom: &WindowGeom,
    pad: f32,
) -> Result<GpuBuffer> {
    guarded(|| {
        let WindowGeom {
            n,
            c,
            hw,
            out,
            kernel,
            ..
        } = *geom;
        let image = n * c * hw[0] * hw[1];
        let cols = n * c * kernel[0] * kernel[1] * out[0] * out[1];
        let (read, total) = match op {
            WindowOp::Im2Col => (image, cols),
            WindowOp::Col2Im => (cols, image),
        };
        if offset + read > src.len {
            return Err(Error::Runtime(
                "GPU window: the block reads past its buffer".into(),
            ));
        }
        let g = src.gpu;
        let dst = GpuBuffer::alloc(g, total)?;
        if total == 0 {
            return Ok(dst);
        }
        len_u32(offset + read, "length")?;
        let mut p = vec![
            len_u32(n, "dim")?,
            len_u32(total, "length")?,
            len_u32(c, "dim")?,
            len_u32(offset, "offset")?,
        ];
        for v in [hw, out, kernel, geom.stride, geom.padding, geom.dilation]
            .iter()
            .flatten()
        {
            p.push(len_u32(*v, "window size")?);
        }
        p.extend([pad.to_bits(), 0, 0, 0]);
        let pipeline = g.pipeline(key(Kernel::Window, op as u32))?;
        let groups = g.grid((total as u64).div_ceil(WORKGROUP))?;
        g.dispatch(&pipeline, &[src.raw(), dst.raw()], words(&p), groups)?;
        Ok(dst)
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

/// Matmul's two tilings: the output tile one workgroup owns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MmTiles {
    /// 128x128 (8x8 per invocation): the fast one, once there are enough tiles to go round.
    Large,
    /// 64x64 (4x4 per invocation): four times the workgroups for small outputs.
    Small,
}

/// Outputs with fewer 128x128 tiles than this use 64x64 ones: a GPU has ~100 cores, and a
/// product of a few large tiles would leave most of them idle.
const MM_LARGE_MIN_TILES: usize = 96;

/// Workgroup memory of the large matmul kernel (2 operands x 2 slabs x 8 x 132 floats).
const MM_LARGE_SHARED: u32 = 2 * 2 * 8 * 132 * 4;

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
    // The large kernel's two double-buffered slabs take 16.5 KiB of workgroup memory, past
    // WebGPU's 16 KiB minimum: adapters with only that use the small one.
    let large = batch * m.div_ceil(128) * n.div_ceil(128) >= MM_LARGE_MIN_TILES
        && a.gpu.limits.max_compute_workgroup_storage_size >= MM_LARGE_SHARED;
    let tiles = if large {
        MmTiles::Large
    } else {
        MmTiles::Small
    };
    matmul_tiled(tiles, a, va, b, vb, batch, m, k, n)
}

/// [`matmul`] with the tiling chosen by the caller (tests run both on small sizes).
#[allow(clippy::too_many_arguments)]
pub fn matmul_tiled(
    tiles: MmTiles,
    a: &GpuBuffer,
    va: MatView,
    b: &GpuBuffer,
    vb: MatView,
    batch: usize,
    m: usize,
    k: usize,
    n: usize,
) -> Result<GpuBuffer> {
    let (tile, op) = match tiles {
        MmTiles::Large => (128, 0),
        MmTiles::Small => (64, context::MATMUL_SMALL),
    };
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
        let (gx, gy) = (n.div_ceil(tile), m.div_ceil(tile));
        if gx > max || gy > max {
            return Err(Error::Runtime(format!(
                "GPU matmul: a {m}x{n} output needs more than {max} tiles per dimension"
            )));
        }
        let pipeline = g.pipeline(key(Kernel::Matmul, op))?;
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
    ternary(TernaryOp::Select, cond, a, b, out_shape)
}

/// Ternary elementwise ops (the `OP` values of `where.wgsl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TernaryOp {
    /// `cond ? a : b`, any 32-bit words.
    Select = 0,
    /// `lerp(a, b, weight)` of float32 words, the weight in the `cond` slot.
    Lerp = 1,
}

/// `out = op(cond, a, b)` over the broadcast `out_shape` (`TernaryOp` says what the operands
/// are).
pub fn ternary(
    op: TernaryOp,
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
        let pipeline = g.pipeline(key(Kernel::Where, op as u32))?;
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

/// What the index kernel does (the `OP` values of `index.wgsl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IndexOp {
    /// `out[c] = a[c with c[dim] = idx[c]]`.
    Gather = 0,
    /// `out[c with c[dim] = idx[c]] = a[c]`.
    Scatter = 1,
    /// `out[c with c[dim] = idx[c]] += a[c]`, float32 words.
    ScatterAddFloat = 2,
    /// The same for int32 words (int64 tensors).
    ScatterAddInt = 3,
    /// Non-zeros per 256-element block (the compaction of [`nonzero`]).
    CountBlocks = 4,
    /// Block counts to exclusive offsets, and the total.
    ScanBlocks = 5,
    /// Each non-zero's coordinates at its rank.
    Compact = 6,
}

/// Gather or scatter along `dim` over the index's shape (`vi.shape`, which every view takes).
/// The indexed side (`a` for [`IndexOp::Gather`], `out` otherwise) steps by the index value,
/// wrapped once when negative, along `dim` instead of the coordinate; `size` is its extent
/// there. The caller checks the index values (PyTorch's errors); any still out of range are
/// skipped by the kernel. At least one dim; `out` must not be `a` or `idx`.
pub fn index(
    op: IndexOp,
    a: (&GpuBuffer, &SView),
    idx: (&GpuBuffer, &SView),
    out: (&GpuBuffer, &SView),
    dim: usize,
    size: usize,
) -> Result<()> {
    guarded(|| {
        let shape = idx.1.shape;
        let nd = shape.len();
        if dim >= nd
            || [a.1, idx.1, out.1]
                .iter()
                .any(|v| v.shape != shape || v.strides.len() != nd)
        {
            return Err(Error::Runtime(format!(
                "GPU index: views of shapes {:?}, {:?}, {:?} along dim {dim}",
                a.1.shape, shape, out.1.shape
            )));
        }
        if shape.contains(&0) {
            return Ok(());
        }
        // The indexed side reaches every position 0..size along `dim`.
        let mut full = shape.to_vec();
        full[dim] = size;
        let indexed = if op == IndexOp::Gather { 0 } else { 2 };
        for (k, (buf, v)) in [a, idx, out].iter().enumerate() {
            let sv = SView {
                shape: if k == indexed { &full } else { shape },
                ..(*v).clone()
            };
            if let Some((lo, hi)) = sv.bounds() {
                if lo < 0 || hi as usize > buf.len {
                    return Err(Error::Runtime(
                        "GPU index: a view reaches outside its buffer".into(),
                    ));
                }
                len_u32(hi as usize, "index")?;
            } else if size == 0 && k == indexed {
                // Nothing to index into: the caller's check has refused every value.
                return Ok(());
            }
        }
        // Size-1 dims dropped and neighbours merged where every view steps through them as
        // one, but `dim` always stays a dim of its own.
        let mut dims: Vec<(usize, [isize; 3], bool)> = Vec::new();
        for (d, &n) in shape.iter().enumerate() {
            let st = [a.1.strides[d], idx.1.strides[d], out.1.strides[d]];
            if n == 1 && d != dim {
                continue;
            }
            match dims.last_mut() {
                Some(l) if d != dim && !l.2 && (0..3).all(|k| l.1[k] == st[k] * n as isize) => {
                    *l = (l.0 * n, st, false)
                }
                _ => dims.push((n, st, d == dim)),
            }
        }
        if dims.len() > MAX_DIMS {
            return Err(Error::Runtime(format!(
                "GPU index: {} non-mergeable dims exceed the kernel's {MAX_DIMS}",
                dims.len()
            )));
        }
        let stride = |s: isize| -> Result<u32> {
            i32::try_from(s)
                .map(|v| v as u32)
                .map_err(|_| Error::Runtime(format!("GPU index: stride {s} exceeds int32")))
        };
        let n: usize = shape.iter().product();
        let mut p = vec![0u32; 8 + 4 * MAX_DIMS];
        p[0] = len_u32(n, "length")?;
        p[1] = dims.len() as u32;
        p[2] = dims.iter().position(|d| d.2).unwrap_or(0) as u32;
        p[3] = i32::try_from(size)
            .map_err(|_| Error::Runtime(format!("GPU index: size {size} exceeds int32")))?
            as u32;
        p[4] = len_u32(a.1.offset, "offset")?;
        p[5] = len_u32(idx.1.offset, "offset")?;
        p[6] = len_u32(out.1.offset, "offset")?;
        for (d, &(size, st, _)) in dims.iter().enumerate() {
            p[8 + d] = len_u32(size, "dim")?;
            for k in 0..3 {
                p[8 + (k + 1) * MAX_DIMS + d] = stride(st[k])?;
            }
        }
        let g = out.0.gpu;
        let pipeline = g.pipeline(key(Kernel::Index, op as u32))?;
        let groups = g.grid((n as u64).div_ceil(WORKGROUP))?;
        g.dispatch(
            &pipeline,
            &[a.0.raw(), idx.0.raw(), out.0.raw()],
            words(&p),
            groups,
        )
    })
}

/// The coordinates (over `shape`, row-major) of the non-zero words among the `prod(shape)`
/// contiguous words of `x` from `offset`, as `[count, shape.len()]` int32 words, and the count.
/// `int_words`: int32 words (zero is 0), else float words (zero is +-0.0; bools too). The
/// count is the one number read back (it sizes the output); the rest stays on the GPU.
pub fn nonzero(
    x: &GpuBuffer,
    offset: usize,
    shape: &[usize],
    int_words: bool,
) -> Result<(GpuBuffer, usize)> {
    guarded(|| {
        let n: usize = shape.iter().product();
        if shape.is_empty() || shape.len() > MAX_DIMS || offset + n > x.len {
            return Err(Error::Runtime(format!(
                "GPU nonzero: shape {shape:?} from {offset} in a buffer of {}",
                x.len
            )));
        }
        let g = x.gpu;
        if n == 0 {
            return Ok((GpuBuffer::alloc(g, 0)?, 0));
        }
        let blocks = n.div_ceil(WORKGROUP as usize);
        let counts = GpuBuffer::upload_words(&vec![0u32; blocks + 1])?;
        let mut p = vec![0u32; 8 + 4 * MAX_DIMS];
        p[0] = len_u32(n, "length")?;
        p[1] = shape.len() as u32;
        p[3] = u32::from(int_words);
        p[4] = len_u32(offset, "offset")?;
        for (d, &size) in shape.iter().enumerate() {
            p[8 + d] = len_u32(size, "dim")?;
        }
        len_u32(offset + n, "index")?;
        let grid = g.grid(blocks as u64)?;
        // Bindings a, idx, out; a buffer written by a dispatch is bound only as `out`, so the
        // first two (which do not read idx) bind x there.
        let run = |op: IndexOp, params: &[u32], bufs: [&GpuBuffer; 3], groups| -> Result<()> {
            let pipeline = g.pipeline(key(Kernel::Index, op as u32))?;
            let raw = bufs.map(GpuBuffer::raw);
            g.dispatch(&pipeline, &raw, words(params), groups)
        };
        run(IndexOp::CountBlocks, &p, [x, x, &counts], grid)?;
        let mut scan = p.clone();
        scan[0] = len_u32(blocks, "length")?;
        run(IndexOp::ScanBlocks, &scan, [x, x, &counts], [1, 1, 1])?;
        let total = counts.download_prefix(1)?[0] as usize;
        let out = GpuBuffer::alloc(g, total * shape.len())?;
        if total > 0 {
            run(IndexOp::Compact, &p, [x, &counts, &out], grid)?;
        }
        Ok((out, total))
    })
}

/// Command buffers submitted to the GPU so far (0 before the first use).
pub fn submit_count() -> u64 {
    context::existing().map_or(0, |g| g.submits())
}
