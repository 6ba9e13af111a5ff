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

mod chunks;
pub mod context;
mod pool;

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::shape::contiguous_strides;
use context::{gpu, guarded, Gpu, Kernel, PipelineKey, WORKGROUP};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

pub use context::{GpuDType, DISABLE_VAR, NO_ADAPTER, SOFTWARE_VAR};
pub use pool::size_class;

/// Every shader, by file name, for validation without a GPU.
pub const SHADERS: [(&str, &str); 11] = [
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
];

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

/// An array of 32-bit words in GPU memory (float32 values, or the encodings of [`Words`]),
/// held in one buffer, or in several of [`Gpu::chunk_words`] words each when it is longer
/// (Note [Large tensors]). Dropping it returns its buffers to the pool.
pub struct GpuBuffer {
    /// The chunks in order with their pool size classes; class 0 for a constant (not pooled,
    /// not counted as allocated).
    bufs: Vec<(::wgpu::Buffer, u64)>,
    len: usize,
    gpu: &'static Gpu,
}

impl Drop for GpuBuffer {
    fn drop(&mut self) {
        if context::forked_away() {
            // The parent's device (Note [Fork]): its buffers are leaked, not released.
            std::mem::forget(std::mem::take(&mut self.bufs));
            return;
        }
        let mut pool = None;
        for (b, class) in self.bufs.drain(..) {
            if class > 0 {
                pool.get_or_insert_with(|| self.gpu.pool.lock())
                    .give_back(class, b);
            }
        }
    }
}

impl std::fmt::Debug for GpuBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GpuBuffer(len={}, chunks={})", self.len, self.bufs.len())
    }
}

/// Whether an array of `words` fits one storage binding: the kernels other than the
/// elementwise ones and reductions bind whole arrays, so they read and write only such
/// (Note [Large tensors]).
pub fn fits_binding(words: usize) -> bool {
    gpu().is_ok_and(|g| words <= g.chunk_words())
}

fn len_u32(n: usize, what: &str) -> Result<u32> {
    u32::try_from(n).map_err(|_| Error::Runtime(format!("GPU {what} {n} exceeds 2^32 - 1")))
}

impl GpuBuffer {
    /// An uninitialized buffer of `len` words (its contents are whatever the pool held), in
    /// chunks when it is longer than one may be.
    fn alloc(gpu: &'static Gpu, len: usize) -> Result<GpuBuffer> {
        len_u32(len, "buffer length")?;
        let chunk = gpu.chunk_words();
        let mut bufs = Vec::with_capacity(len.div_ceil(chunk).max(1));
        let mut left = len;
        loop {
            let n = left.min(chunk);
            bufs.push(gpu.alloc(n as u64 * 4)?);
            left -= n;
            if left == 0 {
                break;
            }
        }
        Ok(GpuBuffer { bufs, len, gpu })
    }

    /// Copies `data` to the GPU (recorded, not submitted).
    pub fn upload(data: &[f32]) -> Result<GpuBuffer> {
        GpuBuffer::upload_words(bytemuck::cast_slice(data))
    }

    /// Copies 32-bit words to the GPU (recorded, not submitted).
    pub fn upload_words(data: &[u32]) -> Result<GpuBuffer> {
        guarded(|| {
            let out = GpuBuffer::alloc(gpu()?, data.len())?;
            let chunk = out.gpu.chunk_words();
            for ((b, _), part) in out.bufs.iter().zip(data.chunks(chunk)) {
                out.gpu.write(b, bytemuck::cast_slice(part))?;
            }
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
                bufs: vec![(g.constant_buffer(bytemuck::bytes_of(&v))?, 0)],
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
        self.download_prefix(self.len)
    }

    /// The first `n` words (a count a kernel left at the start), as [`GpuBuffer::download`].
    pub fn download_prefix(&self, n: usize) -> Result<Vec<u32>> {
        guarded(|| {
            let mut left = n.min(self.len);
            let mut out = Vec::with_capacity(left);
            for (b, _) in &self.bufs {
                if left == 0 {
                    break;
                }
                let take = left.min(self.gpu.chunk_words());
                let bytes = self.gpu.read(b, take as u64 * 4)?;
                out.extend_from_slice(&bytemuck::pod_collect_to_vec::<u8, u32>(&bytes));
                left -= take;
            }
            Ok(out)
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

    /// Whether it is held in several buffers (Note [Large tensors]): only the elementwise
    /// kernels and reductions read those.
    pub fn is_chunked(&self) -> bool {
        self.bufs.len() > 1
    }

    /// The one buffer of an unchunked array, for the kernels that bind it whole.
    fn raw(&self) -> Result<&::wgpu::Buffer> {
        match self.bufs.as_slice() {
            [(b, _)] => Ok(b),
            _ => Err(Error::Runtime(format!(
                "GPU kernel given a tensor of {} elements split over {} buffers; it reads only \
                 tensors that fit one storage binding",
                self.len,
                self.bufs.len()
            ))),
        }
    }

    /// Chunk `c` (its index from [`chunks::plan`]).
    fn chunk(&self, c: usize) -> &::wgpu::Buffer {
        &self.bufs[c].0
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
    key_as(kernel, op, GpuDType::F32)
}

fn key_as(kernel: Kernel, op: u32, dtype: GpuDType) -> PipelineKey {
    PipelineKey { kernel, op, dtype }
}

fn words(w: &[u32]) -> &[u8] {
    bytemuck::cast_slice(w)
}

/// Runs `run` once per dispatch of a kernel over the index space `shape`, reading or writing
/// each operand (a buffer, its strides over `shape` and the offset of element 0) with the
/// piece's shape, the chunk each operand's elements lie in, and their offset there (Note
/// [Large tensors]). Without a chunked operand that is one call: the whole shape at the given
/// offsets. `rows` as in [`chunks::plan`].
fn for_each_piece(
    shape: &[usize],
    operands: &[(&GpuBuffer, &[isize], usize)],
    rows: bool,
    mut run: impl FnMut(&[usize], &[&::wgpu::Buffer], &[usize]) -> Result<()>,
) -> Result<()> {
    if !operands.iter().any(|(b, _, _)| b.is_chunked()) {
        let bufs = operands
            .iter()
            .map(|(b, _, _)| b.raw())
            .collect::<Result<Vec<_>>>()?;
        let offsets: Vec<usize> = operands.iter().map(|o| o.2).collect();
        return run(shape, &bufs, &offsets);
    }
    let views: Vec<chunks::Strided> = operands
        .iter()
        .map(|&(_, strides, offset)| chunks::Strided { strides, offset })
        .collect();
    let chunk = operands[0].0.gpu.chunk_words();
    for piece in chunks::plan(shape, &views, chunk, rows) {
        let bufs: Vec<&::wgpu::Buffer> = operands
            .iter()
            .zip(&piece.at)
            .map(|((b, _, _), &(c, _))| b.chunk(c))
            .collect();
        let offsets: Vec<usize> = piece.at.iter().map(|&(_, o)| o).collect();
        run(&piece.shape, &bufs, &offsets)?;
    }
    Ok(())
}

fn signed(strides: &[usize]) -> Vec<isize> {
    strides.iter().map(|&s| s as isize).collect()
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
    unary_as(GpuDType::F32, op, x, offset, n, args)
}

/// `unary_with` giving `dtype` values (float16: each result rounded to half).
pub fn unary_as(
    dtype: GpuDType,
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
        let pipeline = g.pipeline(key_as(Kernel::Unary, op as u32, dtype))?;
        let [a, b, c] = args.map(f32::to_bits);
        let unit = [1isize];
        let operands = [(x, &unit[..], offset), (&out, &unit[..], 0)];
        for_each_piece(&[n], &operands, true, |shape, bufs, offsets| {
            let n = shape[0];
            let params = [
                len_u32(n, "length")?,
                len_u32(offsets[0], "offset")?,
                a,
                b,
                c,
                len_u32(offsets[1], "offset")?,
                0,
                0,
            ];
            let groups = g.grid((n as u64).div_ceil(WORKGROUP))?;
            g.dispatch(&pipeline, bufs, words(&params), groups)
        })?;
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

/// The parameters of the binary and where kernels: n, ndim, each buffer's offset from word 2
/// (operands, then out; 6 at most), then the collapsed shape and each of the `K` operands'
/// strides, `MAX_DIMS` words each.
fn strided_params<const K: usize>(
    n: usize,
    dims: &[(usize, [isize; K])],
    offsets: &[usize],
) -> Result<Vec<u32>> {
    let mut p = vec![0u32; 8 + (K + 1) * MAX_DIMS];
    p[0] = len_u32(n, "length")?;
    p[1] = dims.len() as u32;
    for (i, &o) in offsets.iter().enumerate() {
        p[2 + i] = len_u32(o, "offset")?;
    }
    for (d, (size, strides)) in dims.iter().enumerate() {
        p[8 + d] = len_u32(*size, "dim")?;
        for (k, &s) in strides.iter().enumerate() {
            p[8 + (k + 1) * MAX_DIMS + d] = len_u32(s as usize, "stride")?;
        }
    }
    Ok(p)
}

/// The index space `shape` with each operand's strides (0 where broadcast), size-1 dims
/// dropped and adjacent dims merged wherever every operand steps through them as one: fewer
/// dims is less index arithmetic per element, and most tensors of any rank fit in
/// [`MAX_DIMS`], past which `what`'s kernel is refused.
fn collapse<const K: usize>(
    what: &str,
    shape: &[usize],
    strides: [&[isize]; K],
) -> Result<Vec<(usize, [isize; K])>> {
    let mut dims: Vec<(usize, [isize; K])> = Vec::new();
    for (d, &n) in shape.iter().enumerate() {
        if n == 1 {
            continue;
        }
        let cur = strides.map(|s| s[d]);
        match dims.last_mut() {
            Some(l) if (0..K).all(|k| l.1[k] == cur[k] * n as isize) => *l = (l.0 * n, cur),
            _ => dims.push((n, cur)),
        }
    }
    if dims.len() > MAX_DIMS {
        return Err(Error::Runtime(format!(
            "GPU {what}: {} non-mergeable dims exceed the kernel's {MAX_DIMS}",
            dims.len()
        )));
    }
    Ok(dims)
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
/// broadcasting, as `dtype` values (float16: each result rounded to half).
pub fn binary(
    dtype: GpuDType,
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
        let pipeline = g.pipeline(key_as(Kernel::Binary, op as u32, dtype))?;
        let (ia, ib, io) = (signed(&sa), signed(&sb), contiguous_strides(out_shape));
        let operands = [
            (a, &ia[..], va.offset),
            (b, &ib[..], vb.offset),
            (&out, &io[..], 0),
        ];
        for_each_piece(out_shape, &operands, true, |shape, bufs, offsets| {
            let dims = collapse("binary", shape, [&ia, &ib])?;
            let n: usize = shape.iter().product();
            let p = strided_params(n, &dims, offsets)?;
            let groups = g.grid((n as u64).div_ceil(WORKGROUP))?;
            g.dispatch(&pipeline, bufs, words(&p), groups)
        })?;
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
        // Partial results of a mean are sums, divided once at the end.
        let partial = if op == ReduceOp::Mean {
            ReduceOp::Sum
        } else {
            op
        };
        if x.is_chunked() || n_out > g.chunk_words() {
            if op.has_index() {
                return Err(Error::Runtime(format!(
                    "GPU reduce: {op:?} of a tensor split over several buffers"
                )));
            }
            let out = GpuBuffer::alloc(g, n_out)?;
            reduce_chunked(partial, x, offset, [outer, red, inner], &out, 0)?;
            if op == ReduceOp::Mean {
                let count = GpuBuffer::constant(red as f32)?;
                let shape = [n_out];
                let sums = View {
                    shape: &shape,
                    strides: &[1],
                    offset: 0,
                };
                let number = View {
                    shape: &[],
                    strides: &[],
                    offset: 0,
                };
                let mean = binary(
                    GpuDType::F32,
                    BinaryOp::Div,
                    &out,
                    &sums,
                    &count,
                    &number,
                    &shape,
                )?;
                return Ok((mean, None));
            }
            return Ok((out, None));
        }
        if red <= REDUCE_SPAN {
            return reduce_pass(op, x, None, offset, [outer, red, inner], red, red);
        }
        // Two passes (reduce.wgsl): sections of the run, then the sections; the second pass of
        // an index op reads the first's indices.
        let sections = red.div_ceil(REDUCE_SPAN);
        let (part, part_idx) = reduce_pass(
            partial,
            x,
            None,
            offset,
            [outer, red, inner],
            REDUCE_SPAN,
            red,
        )?;
        let dims = [outer, sections, inner];
        reduce_pass(op, &part, part_idx.as_ref(), 0, dims, sections, red)
    })
}

/// Elements of a reduced run one workgroup folds (256 per invocation): longer runs are cut
/// into sections of this many and reduced in two passes.
const REDUCE_SPAN: usize = 1 << 16;

/// One dispatch of reduce.wgsl: the `[outer, red, inner]` block at `offset` reduced in
/// sections of `span` (a mean divided by `count`), giving `[outer, sections, inner]`; `xi`
/// holds the indices of a first pass an index op's second one reports.
fn reduce_pass(
    op: ReduceOp,
    x: &GpuBuffer,
    xi: Option<&GpuBuffer>,
    offset: usize,
    [outer, red, inner]: [usize; 3],
    span: usize,
    count: usize,
) -> Result<(GpuBuffer, Option<GpuBuffer>)> {
    let g = x.gpu;
    let n_out = outer * red.div_ceil(span.max(1)).max(1) * inner;
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
        len_u32(span.max(1), "dim")?,
        len_u32(count, "dim")?,
        u32::from(xi.is_some()),
        0,
    ];
    len_u32(offset + outer * red * inner, "length")?;
    let pipeline = g.pipeline(key(Kernel::Reduce, op as u32))?;
    let groups = g.grid(n_out as u64)?;
    // Ops without an index leave binding 2 alone: `out` stands in for it; without first-pass
    // indices, x stands in for them.
    let yi = idx.as_ref().unwrap_or(&out);
    let xi = xi.unwrap_or(x);
    g.dispatch(
        &pipeline,
        &[x.raw()?, out.raw()?, yi.raw()?, xi.raw()?],
        words(&params),
        groups,
    )?;
    Ok((out, idx))
}

/// Copies `n` contiguous words of `src` from `from` to `dst` at `to`.
fn copy_run(src: &GpuBuffer, from: usize, dst: &GpuBuffer, to: usize, n: usize) -> Result<()> {
    let (shape, unit) = ([n], [1isize]);
    let view = |offset| SView {
        shape: &shape,
        strides: &unit,
        offset,
    };
    copy(CopyOp::Same, src, &view(from), dst, &view(to))
}

/// A reduction (not an index one; not mean, which is a sum divided) of the contiguous block
/// `[outer, red, inner]` of a chunked buffer (Note [Large tensors]), its `outer * inner`
/// results written contiguously into `out` from `at`. Pieces of the block that fit one chunk
/// are copied into a buffer of their own and reduced there; a run longer than a chunk is
/// reduced in sections, whose results are reduced again.
fn reduce_chunked(
    op: ReduceOp,
    x: &GpuBuffer,
    offset: usize,
    [outer, red, inner]: [usize; 3],
    out: &GpuBuffer,
    at: usize,
) -> Result<()> {
    let most = x.gpu.chunk_words();
    if red > most {
        let sections = red.div_ceil(most);
        let partial = x.alloc_like(sections * inner)?;
        for o in 0..outer {
            for k in 0..sections {
                let rows = most.min(red - k * most);
                let from = offset + (o * red + k * most) * inner;
                reduce_chunked(op, x, from, [1, rows, inner], &partial, k * inner)?;
            }
            reduce_chunked(op, &partial, 0, [1, sections, inner], out, at + o * inner)?;
        }
        return Ok(());
    }
    let per_row = red.max(1) * inner;
    if per_row <= most {
        // Whole rows: as many as fit one chunk at a time.
        let step = most / per_row;
        for o in (0..outer).step_by(step) {
            let rows = step.min(outer - o);
            let block = x.alloc_like(rows * red * inner)?;
            copy_run(x, offset + o * red * inner, &block, 0, rows * red * inner)?;
            let (part, _) = reduce_impl(op, &block, 0, rows, red, inner)?;
            copy_run(&part, 0, out, at + o * inner, rows * inner)?;
        }
        return Ok(());
    }
    // Rows too long: columns of each, as many as fit one chunk at a time.
    let step = most / red.max(1);
    let strides = [inner as isize, 1];
    for o in 0..outer {
        for j in (0..inner).step_by(step) {
            let cols = step.min(inner - j);
            let shape = [red, cols];
            let block = x.alloc_like(red * cols)?;
            let dense_strides = contiguous_strides(&shape);
            let from = SView {
                shape: &shape,
                strides: &strides,
                offset: offset + o * red * inner + j,
            };
            let to = SView {
                shape: &shape,
                strides: &dense_strides,
                offset: 0,
            };
            copy(CopyOp::Same, x, &from, &block, &to)?;
            let (part, _) = reduce_impl(op, &block, 0, 1, red, cols)?;
            copy_run(&part, 0, out, at + o * inner + j, cols)?;
        }
    }
    Ok(())
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

/// The longest line [`scan`] and [`softmax`] take: their invocations walk a line in 256
/// shares two or three times, which must stay inside the 65,535 loop iterations lavapipe
/// runs before it stops a shader silently. Longer lines are the host's.
pub const MAX_LINE: usize = 1 << 22;

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
        if len > MAX_LINE {
            return Err(Error::Runtime(format!(
                "GPU {what}: lines of {len} elements exceed the kernel's {MAX_LINE}"
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
        g.dispatch(&pipeline, &[x.raw()?, out.raw()?], words(&params), groups)?;
        Ok(out)
    })
}

/// Elements of a line that one workgroup of the sort kernel holds in shared memory.
const SORT_BLOCK: usize = 1024;

/// Stable sort along the middle dim of a contiguous `[outer, len, inner]` block of 32-bit
/// words starting at `offset` (float32, or int32 when `int`): the sorted words and each one's
/// position in its line (int32 words), both contiguous, same shape (sort.wgsl).
pub fn sort(
    x: &GpuBuffer,
    offset: usize,
    [outer, len, inner]: [usize; 3],
    int: bool,
    descending: bool,
) -> Result<(GpuBuffer, GpuBuffer)> {
    guarded(|| {
        let total = outer * len * inner;
        if offset + total > x.len {
            return Err(Error::Runtime(
                "GPU sort: the block reads past its buffer".into(),
            ));
        }
        let g = x.gpu;
        let (vals, idx) = (GpuBuffer::alloc(g, total)?, GpuBuffer::alloc(g, total)?);
        if total == 0 {
            return Ok((vals, idx));
        }
        let lines = outer * inner;
        let pow2 = len.next_power_of_two();
        let block = pow2.min(SORT_BLOCK);
        // Lines longer than a block go through scratch (a word each, unused otherwise).
        let scratch = if pow2 > block { lines * pow2 } else { 1 };
        len_u32(lines * pow2, "padded length")?;
        len_u32(offset + total, "length")?;
        let (keys, pos) = (GpuBuffer::alloc(g, scratch)?, GpuBuffer::alloc(g, scratch)?);
        let op = u32::from(int);
        let main = g.pipeline(key(Kernel::Sort, op))?;
        let step = g.pipeline(key(Kernel::Sort, op | context::SORT_STEP))?;
        let bufs = [x.raw()?, keys.raw()?, pos.raw()?, vals.raw()?, idx.raw()?];
        let desc = u32::from(descending);
        let params = |k_lo: usize, k_hi: usize, j: usize, first: bool, last: bool| {
            [
                outer as u32,
                len as u32,
                inner as u32,
                offset as u32,
                pow2 as u32,
                k_lo as u32,
                k_hi as u32,
                j as u32,
                u32::from(first),
                u32::from(last),
                desc,
                0,
            ]
        };
        let blocks = g.grid((lines * (pow2 / block)) as u64)?;
        let pairs = g.grid((lines * pow2 / 2).div_ceil(WORKGROUP as usize) as u64)?;
        g.dispatch(
            &main,
            &bufs,
            words(&params(2, block, 0, true, pow2 == block)),
            blocks,
        )?;
        let mut k = 2 * block;
        while k <= pow2 {
            let mut j = k / 2;
            while j >= block {
                g.dispatch(&step, &bufs, words(&params(k, k, j, false, false)), pairs)?;
                j /= 2;
            }
            g.dispatch(
                &main,
                &bufs,
                words(&params(k, k, 0, false, k == pow2)),
                blocks,
            )?;
            k *= 2;
        }
        Ok((vals, idx))
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
        g.dispatch(&pipeline, &[src.raw()?, dst.raw()?], words(&p), groups)?;
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
        // Batches past the grid's z limit go in several dispatches, each told its first batch;
        // a long k in sections, the later ones adding to out (matmul.wgsl).
        for k0 in (0..k).step_by(MM_K_SPAN) {
            let ks = MM_K_SPAN.min(k - k0);
            let mut base = 0;
            while base < batch {
                let nz = (batch - base).min(max);
                let params = [
                    len_u32(m, "dim")?,
                    len_u32(n, "dim")?,
                    len_u32(ks, "dim")?,
                    len_u32(base, "batch")?,
                    len_u32(va.offset + k0 * va.cs, "offset")?,
                    len_u32(va.bs, "stride")?,
                    len_u32(va.rs, "stride")?,
                    len_u32(va.cs, "stride")?,
                    len_u32(vb.offset + k0 * vb.rs, "offset")?,
                    len_u32(vb.bs, "stride")?,
                    len_u32(vb.rs, "stride")?,
                    len_u32(vb.cs, "stride")?,
                    u32::from(k0 > 0),
                    0,
                    0,
                    0,
                ];
                let groups = [gx as u32, gy as u32, nz as u32];
                g.dispatch(
                    &pipeline,
                    &[a.raw()?, b.raw()?, out.raw()?],
                    words(&params),
                    groups,
                )?;
                base += nz;
            }
        }
        Ok(out)
    })
}

/// The k-section one matmul dispatch walks (matmul.wgsl): the small kernel's invocations loop
/// about 21 times per 16 k's, well inside lavapipe's 65,535.
const MM_K_SPAN: usize = 8192;

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
            DType::I32 => std::slice::from_raw_parts(host as *const u32, n).to_vec(),
            // Computed in float32 (Note [Narrow dtypes]); each op's result rounded to half.
            DType::F16 => {
                let mut w = vec![0u32; n];
                let src = std::slice::from_raw_parts(host as *const half::f16, n);
                crate::backend::cpu::f16c::widen(src, bytemuck::cast_slice_mut(&mut w));
                w
            }
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
            DType::I32 => std::ptr::copy_nonoverlapping(words.as_ptr(), host as *mut u32, n),
            DType::F16 => crate::backend::cpu::f16c::narrow(
                bytemuck::cast_slice(words),
                std::slice::from_raw_parts_mut(host as *mut half::f16, n),
            ),
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
    FloatToHalf = 5,
    IntToHalf = 6,
}

impl CopyOp {
    /// The conversion from `from` to `to` (None: not one the GPU holds).
    pub fn between(from: DType, to: DType) -> Option<CopyOp> {
        use DType::*;
        Some(match (from, to) {
            (F64, _) | (_, F64) => return None,
            // int64 is held as int32 words and float16 as float32 words holding half values.
            (Bool, Bool) | (I32 | I64, I32 | I64) | (F16, F16 | F32) | (F32, F32) => CopyOp::Same,
            (I64 | I32, F32) => CopyOp::IntToFloat,
            // A float32 value past int32's range becomes an int64 the words cannot hold.
            (F32, I64) => return None,
            (F32 | F16 | Bool, I64 | I32) => CopyOp::FloatToInt,
            (F32 | F16, Bool) => CopyOp::FloatToBool,
            (I64 | I32, Bool) => CopyOp::IntToBool,
            (F32, F16) => CopyOp::FloatToHalf,
            (I64 | I32, F16) => CopyOp::IntToHalf,
            // bool's words are float32 0.0 / 1.0 already.
            (Bool, F32 | F16) => CopyOp::Same,
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
        len_u32(bx.1.max(bo.1) as usize, "index")?;
        let g = x.gpu;
        let pipeline = g.pipeline(key(Kernel::Copy, op as u32))?;
        let operands = [(x, vx.strides, vx.offset), (out, vo.strides, vo.offset)];
        for_each_piece(vx.shape, &operands, false, |shape, bufs, offsets| {
            let dims = collapse("copy", shape, [vx.strides, vo.strides])?;
            let n: usize = shape.iter().product();
            let stride = |s: isize| -> Result<u32> {
                i32::try_from(s)
                    .map(|v| v as u32)
                    .map_err(|_| Error::Runtime(format!("GPU copy: stride {s} exceeds int32")))
            };
            let mut p = vec![0u32; 4 + 3 * MAX_DIMS];
            p[0] = len_u32(n, "length")?;
            p[1] = dims.len() as u32;
            p[2] = len_u32(offsets[0], "offset")?;
            p[3] = len_u32(offsets[1], "offset")?;
            for (d, &(size, [sx, so])) in dims.iter().enumerate() {
                p[4 + d] = len_u32(size, "dim")?;
                p[4 + MAX_DIMS + d] = stride(sx)?;
                p[4 + 2 * MAX_DIMS + d] = stride(so)?;
            }
            let groups = g.grid((n as u64).div_ceil(WORKGROUP))?;
            g.dispatch(&pipeline, bufs, words(&p), groups)
        })
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
        let pipeline = g.pipeline(key(Kernel::Where, op as u32))?;
        let signed_strides: Vec<Vec<isize>> = strides.iter().map(|s| signed(s)).collect();
        let io = contiguous_strides(out_shape);
        let mut operands: Vec<(&GpuBuffer, &[isize], usize)> = ops
            .iter()
            .zip(&signed_strides)
            .map(|((buf, v), s)| (*buf, &s[..], v.offset))
            .collect();
        operands.push((&out, &io, 0));
        for_each_piece(out_shape, &operands, true, |shape, bufs, offsets| {
            let s = &signed_strides;
            let dims = collapse("where", shape, [&s[0], &s[1], &s[2]])?;
            let n: usize = shape.iter().product();
            let p = strided_params(n, &dims, offsets)?;
            let groups = g.grid((n as u64).div_ceil(WORKGROUP))?;
            g.dispatch(&pipeline, bufs, words(&p), groups)
        })?;
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
    /// The same for int32 words (int32 tensors; int64 sums are added on the host).
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
            &[a.0.raw()?, idx.0.raw()?, out.0.raw()?],
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
            let raw = [bufs[0].raw()?, bufs[1].raw()?, bufs[2].raw()?];
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

/// Compute dispatches recorded so far (0 before the first use).
pub fn dispatch_count() -> u64 {
    context::existing().map_or(0, |g| g.dispatches())
}
