//! Storage: one typed allocation shared by a tensor and all its views, plus its version counter.

use super::device::{Device, Mirror};
pub use super::element::{Element, Owner};
use crate::dtype::DType;

use std::any::Any;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Note [Storage mutation]: storage is written through shared references by in-place ops.
/// Every mutating entry point is serialized by its caller: the Python bindings keep the GIL
/// around in-place writes (Note [Binding boundary]), and kernels never read and write
/// overlapping memory within one call except elementwise in place at identical positions.
/// Out-of-place kernels run with the GIL released, so one Python thread may read a tensor
/// while another writes it in place: as in PyTorch, such a program races on the values.
pub struct Storage {
    ptr: *mut u8,
    len: usize,
    dtype: DType,
    version: AtomicU64,
    _owner: Owner,
    /// Some for a GPU storage: the memory above is its host copy (Note [Devices]).
    gpu: Option<Arc<Mirror>>,
}

// SAFETY: see Note [Storage mutation]; the pointer is owned by `_owner` for the storage's life.
unsafe impl Send for Storage {}
unsafe impl Sync for Storage {}

impl Drop for Storage {
    /// A large buffer goes back to the pool (Note [Buffer pool]); `Box<()>` does not allocate.
    fn drop(&mut self) {
        let owner = std::mem::replace(&mut self._owner, Owner::External(Box::new(())));
        if !matches!(owner, Owner::External(_)) {
            super::pool::give(owner);
        }
    }
}

impl Storage {
    pub fn from_vec<T: Element>(v: Vec<T>) -> Arc<Storage> {
        Storage::from_vec_on(v, Device::Cpu)
    }

    /// A storage on `device` holding `v` (on the GPU: as the current host copy).
    pub fn from_vec_on<T: Element>(mut v: Vec<T>, device: Device) -> Arc<Storage> {
        let ptr = v.as_mut_ptr() as *mut u8;
        let len = v.len();
        Arc::new(Storage {
            ptr,
            len,
            dtype: T::DTYPE,
            version: AtomicU64::new(0),
            _owner: T::into_owner(v),
            gpu: device.is_gpu().then(Mirror::from_host),
        })
    }

    /// A float32 GPU storage whose values are in `buf` (a kernel's output).
    pub fn from_gpu_buffer(buf: crate::backend::wgpu::GpuBuffer) -> Arc<Storage> {
        Storage::from_gpu_words(buf, DType::F32)
    }

    /// A GPU storage of `dtype` whose values are in `buf`, encoded as
    /// [`crate::backend::wgpu::Words`]. The host copy is allocated but not written until
    /// something reads it.
    pub fn from_gpu_words(buf: crate::backend::wgpu::GpuBuffer, dtype: DType) -> Arc<Storage> {
        Storage::sharing_gpu_words(Arc::new(buf), dtype)
    }

    /// `from_gpu_words` over a buffer that another storage may hold too (a float16 storage's
    /// words read as float32, `kernels::half_as_float`).
    pub fn sharing_gpu_words(
        buf: Arc<crate::backend::wgpu::GpuBuffer>,
        dtype: DType,
    ) -> Arc<Storage> {
        fn host<T: Element>(len: usize) -> (*mut u8, Owner) {
            let mut v = super::pool::alloc::<T>(len);
            // SAFETY: capacity >= len; the elements are written by `Mirror::sync_host` (a
            // full download) before any read, as the mirror starts with the host copy stale.
            unsafe { v.set_len(len) };
            (v.as_mut_ptr() as *mut u8, T::into_owner(v))
        }
        let len = buf.len();
        let (ptr, owner) = crate::dispatch!(dtype, T => host::<T>(len));
        Arc::new(Storage {
            ptr,
            len,
            dtype,
            version: AtomicU64::new(0),
            _owner: owner,
            gpu: Some(Mirror::from_buffer(buf)),
        })
    }

    /// Memory owned elsewhere (e.g. a numpy array kept alive by `owner`).
    ///
    /// # Safety
    /// `ptr` must point to `len` valid, aligned elements of `dtype` for as long as `owner` lives.
    pub unsafe fn external(
        ptr: *mut u8,
        len: usize,
        dtype: DType,
        owner: Box<dyn Any + Send + Sync>,
    ) -> Arc<Storage> {
        Arc::new(Storage {
            ptr,
            len,
            dtype,
            version: AtomicU64::new(0),
            _owner: Owner::External(owner),
            gpu: None,
        })
    }

    /// Same memory, fresh version counter: what `tensor.data` hands out.
    pub fn alias(this: &Arc<Storage>) -> Arc<Storage> {
        Arc::new(Storage {
            ptr: this.ptr,
            len: this.len,
            dtype: this.dtype,
            version: AtomicU64::new(0),
            _owner: Owner::External(Box::new(this.clone())),
            gpu: this.gpu.clone(),
        })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn dtype(&self) -> DType {
        self.dtype
    }

    pub fn data_ptr(&self) -> *mut u8 {
        self.ptr
    }

    pub fn device(&self) -> Device {
        if self.gpu.is_some() {
            Device::Gpu
        } else {
            Device::Cpu
        }
    }

    /// Makes the host copy current (a no-op on the CPU); see Note [Devices].
    pub fn sync_host(&self) -> crate::error::Result<()> {
        match &self.gpu {
            // SAFETY: ptr/len describe the live host copy of `dtype`.
            Some(m) => unsafe { m.sync_host(self.ptr, self.len, self.dtype) },
            None => Ok(()),
        }
    }

    /// The GPU buffer of a GPU storage, uploading the host copy if it is newer.
    pub fn gpu_buffer(&self) -> crate::error::Result<Arc<crate::backend::wgpu::GpuBuffer>> {
        match &self.gpu {
            Some(m) => {
                if !m.has_buffer() {
                    self.host_read();
                }
                // SAFETY: ptr/len describe the live host copy of `dtype` (current when read).
                unsafe { m.buffer(self.ptr, self.len, self.dtype) }
            }
            None => Err(crate::error::Error::Runtime(
                "gpu_buffer() of a CPU storage".into(),
            )),
        }
    }

    /// The GPU buffer for a kernel to read, or None when making it would upload int64 values
    /// past the int32 the GPU's words hold: such values live in the host copy (an op computed
    /// them there), and ops on them compute there too, exactly, as PyTorch's int64 does.
    pub fn gpu_words(&self) -> crate::error::Result<Option<Arc<crate::backend::wgpu::GpuBuffer>>> {
        if self.dtype == DType::I64 && !self.gpu_resident() {
            let fits = |v: &i64| i32::try_from(*v).is_ok();
            if !self.slice::<i64>().iter().all(fits) {
                return Ok(None);
            }
        }
        self.gpu_buffer().map(Some)
    }

    /// A kernel wrote the GPU buffer in place (its host copy becomes stale).
    pub fn gpu_written(&self) {
        if let Some(m) = &self.gpu {
            m.gpu_written();
        }
    }

    /// Whether the GPU buffer is current (reading it would not upload).
    pub fn gpu_resident(&self) -> bool {
        self.gpu.as_ref().is_some_and(|m| m.has_buffer())
    }

    fn host_read(&self) {
        if let Some(m) = &self.gpu {
            // A failed download (device lost) cannot be returned from a slice accessor.
            // SAFETY: ptr/len describe the live host copy of `dtype`.
            if let Err(e) = unsafe { m.sync_host(self.ptr, self.len, self.dtype) } {
                panic!("{e}");
            }
        }
    }

    pub fn version(&self) -> u64 {
        self.version.load(Ordering::Relaxed)
    }

    pub fn bump_version(&self) {
        self.version.fetch_add(1, Ordering::Relaxed);
    }

    /// `_unsafe_set_version_counter`: hide writes from the saved-tensor check.
    pub fn set_version(&self, version: u64) {
        self.version.store(version, Ordering::Relaxed);
    }

    /// The elements as a slice of `T`. Panics (a bug, never user input) if `T` is not the dtype.
    pub fn slice<T: Element>(&self) -> &[T] {
        assert_eq!(T::DTYPE, self.dtype, "storage dtype mismatch");
        if self.len == 0 {
            return &[];
        }
        self.host_read();
        // SAFETY: ptr/len describe a live allocation of `T` (checked dtype).
        unsafe { std::slice::from_raw_parts(self.ptr as *const T, self.len) }
    }

    /// Mutable view of the elements; see Note [Storage mutation].
    #[allow(clippy::mut_from_ref)]
    pub fn slice_mut<T: Element>(&self) -> &mut [T] {
        assert_eq!(T::DTYPE, self.dtype, "storage dtype mismatch");
        if self.len == 0 {
            return &mut [];
        }
        if let Some(m) = &self.gpu {
            self.host_read();
            m.host_written();
        }
        // SAFETY: as above; exclusivity is the caller's contract (Note [Storage mutation]).
        unsafe { std::slice::from_raw_parts_mut(self.ptr as *mut T, self.len) }
    }
}
