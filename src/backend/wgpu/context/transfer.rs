//! Memory: storage buffers from the pool, constants and uploads written at creation, and
//! read-backs through kept mappable staging buffers.

use super::super::pool::size_class;
use super::{usable, Gpu};
use crate::error::{Error, Result};

/// Read-back buffers kept (`Gpu::staging`), and the largest size kept.
const STAGING_KEPT: usize = 4;
const STAGING_MAX: u64 = 1 << 24;

impl Gpu {
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
    pub(in crate::backend::wgpu) fn constant_buffer(&self, data: &[u8]) -> Result<::wgpu::Buffer> {
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
}
