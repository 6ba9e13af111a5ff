//! `GpuBuffer`: an array of 32-bit words in GPU memory, in one buffer or in chunks, and the
//! upload, download and constant cache around it.

use super::context::{gpu, guarded, Gpu, GpuDType, Kernel, PipelineKey};
use super::{chunks, context};
use crate::error::{Error, Result};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

/// An array of 32-bit words in GPU memory (float32 values, or the encodings of [`Words`]),
/// held in one buffer, or in several of [`Gpu::chunk_words`] words each when it is longer
/// (Note [Large tensors]). Dropping it returns its buffers to the pool.
pub struct GpuBuffer {
    /// The chunks in order with their pool size classes; class 0 for a constant (not pooled,
    /// not counted as allocated).
    pub(super) bufs: Vec<(::wgpu::Buffer, u64)>,
    pub(super) len: usize,
    pub(super) gpu: &'static Gpu,
}

impl Drop for GpuBuffer {
    fn drop(&mut self) {
        if context::forked_away() {
            // The parent's device (Note [Fork]): its buffers are leaked, not released.
            std::mem::forget(std::mem::take(&mut self.bufs));
            return;
        }
        let mut pool = None;
        let single = self.bufs.len() == 1;
        for (b, class) in self.bufs.drain(..) {
            // A buffer a pending fused kernel reads or writes returns to the pool after it
            // (Note [Elementwise fusion]); asked before the pool is locked (lock order).
            if class > 0 && single && super::fuse::claim(self.gpu, &b, class) {
                continue;
            }
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

/// c10's `format_size`: bytes as PyTorch's allocators print them.
fn format_size(bytes: usize) -> String {
    let b = bytes as f64;
    if bytes <= 1024 {
        format!("{bytes} bytes")
    } else if bytes <= 1 << 20 {
        format!("{:.2} KiB", b / 1024.0)
    } else if bytes <= 1 << 30 {
        format!("{:.2} MiB", b / 1048576.0)
    } else {
        format!("{:.2} GiB", b / 1073741824.0)
    }
}

pub(super) fn len_u32(n: usize, what: &str) -> Result<u32> {
    u32::try_from(n).map_err(|_| Error::Runtime(format!("GPU {what} {n} exceeds 2^32 - 1")))
}

impl GpuBuffer {
    /// An uninitialized buffer of `len` words (its contents are whatever the pool held), in
    /// chunks when it is longer than one may be.
    pub(super) fn alloc(gpu: &'static Gpu, len: usize) -> Result<GpuBuffer> {
        if len > u32::MAX as usize {
            // more than any adapter holds: PyTorch's out-of-memory error, as a device
            // allocator that refused it would give
            return Err(Error::OutOfMemory(format!(
                "GPU out of memory. Tried to allocate {}.",
                format_size(len.saturating_mul(4))
            )));
        }
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
    pub(super) fn raw(&self) -> Result<&::wgpu::Buffer> {
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
    pub(super) fn chunk(&self, c: usize) -> &::wgpu::Buffer {
        &self.bufs[c].0
    }
}

pub(super) fn key(kernel: Kernel, op: u32) -> PipelineKey {
    key_as(kernel, op, GpuDType::F32)
}

pub(super) fn key_as(kernel: Kernel, op: u32, dtype: GpuDType) -> PipelineKey {
    PipelineKey {
        kernel,
        op,
        dtype,
        expr: "",
    }
}

pub(super) fn words(w: &[u32]) -> &[u8] {
    bytemuck::cast_slice(w)
}

/// Runs `run` once per dispatch of a kernel over the index space `shape`, reading or writing
/// each operand (a buffer, its strides over `shape` and the offset of element 0) with the
/// piece's shape, the chunk each operand's elements lie in, and their offset there (Note
/// [Large tensors]). Without a chunked operand that is one call: the whole shape at the given
/// offsets. `rows` as in [`chunks::plan`].
pub(super) fn for_each_piece(
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

pub(super) fn signed(strides: &[usize]) -> Vec<isize> {
    strides.iter().map(|&s| s as isize).collect()
}
