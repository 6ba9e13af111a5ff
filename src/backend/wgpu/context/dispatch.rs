//! Recording work: the one pending command encoder (and its open compute pass) that every
//! dispatch and copy is recorded into, the parameter arena and bind group cache a dispatch
//! binds, submitting a batch and waiting for the GPU.

use super::pipeline::{Kernel, KernelLayout, Pipeline};
use super::{usable, Gpu, BATCH_LIMIT};
use crate::error::{Error, Result};

/// The largest uniform block a kernel takes (the binary kernel's: 4 + 3 * 8 words), rounded up.
pub(super) const PARAM_BYTES: u64 = 256;

/// Bind groups kept for reuse (Note [Bind group cache]); past it the cache starts over.
const BIND_GROUPS_KEPT: usize = 2048;

// Note [Bind group cache]: creating a bind group is most of a dispatch's host cost (wgpu
// validates it and the driver allocates a descriptor set). A loop reuses its buffers (the pool
// hands the same ones back), so bind groups are cached by (kernel, buffers), and the
// parameters, which change every dispatch, come through the uniform's dynamic offset. A
// cached group keeps its buffers alive: the cache is dropped with the pool's free buffers
// (`empty_cache`, out of memory) and when it grows past `BIND_GROUPS_KEPT`.

#[derive(Default)]
pub(super) struct Pending {
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

/// How long [`Gpu::wait`] polls before it blocks.
const SPIN_WAIT: std::time::Duration = std::time::Duration::from_micros(500);

impl Gpu {
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
        super::super::fuse::flush(self, &mut state)
    }

    /// [`Gpu::dispatch`] after the pending fused chain was recorded (or is this dispatch).
    pub(in crate::backend::wgpu) fn dispatch_now(
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
    pub(super) fn record(&self, f: impl FnOnce(&mut ::wgpu::CommandEncoder)) -> Result<()> {
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

    pub(super) fn wait(&self) -> Result<()> {
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
