//! Storage: one typed allocation shared by a tensor and all its views, plus its version counter.

use super::device::{Device, Mirror};
pub use super::element::{Element, Owner};
use crate::dtype::DType;

use std::any::Any;
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

/// Note [Storage mutation]: storage is written through shared references by in-place ops.
/// Every mutating entry point is serialized by its caller: the Python bindings keep the GIL
/// around in-place writes (Note [Binding boundary]), and kernels never read and write
/// overlapping memory within one call except elementwise in place at identical positions.
/// Out-of-place kernels run with the GIL released, so one Python thread may read a tensor
/// while another writes it in place: as in PyTorch, such a program races on the values.
///
/// Note [Storage growth]: `resize_` may grow a storage in place, as PyTorch's (every tensor
/// sharing it sees the larger buffer). The buffer is then replaced: `ptr` is stored before
/// `len` and read after it, so a reader never pairs the new length with the old buffer, and
/// the old buffer is kept (`retired`) until the storage drops, so a kernel still reading it
/// on another thread never reads freed memory.
pub struct Storage {
    ptr: AtomicPtr<u8>,
    len: AtomicUsize,
    dtype: DType,
    version: AtomicU64,
    _owner: UnsafeCell<Owner>,
    /// Buffers replaced by `grow` (Note [Storage growth]).
    retired: parking_lot::Mutex<Vec<Owner>>,
    /// Some for a GPU storage: the memory above is its host copy (Note [Devices]).
    gpu: Option<Arc<Mirror>>,
}

// SAFETY: see Note [Storage mutation]; the pointer is owned by `_owner` for the storage's life.
unsafe impl Send for Storage {}
unsafe impl Sync for Storage {}

impl Drop for Storage {
    /// A large buffer goes back to the pool (Note [Buffer pool]); `Box<()>` does not allocate.
    fn drop(&mut self) {
        let owner = std::mem::replace(self._owner.get_mut(), Owner::External(Box::new(())));
        let retired = std::mem::take(self.retired.get_mut());
        for owner in std::iter::once(owner).chain(retired) {
            if !matches!(owner, Owner::External(_)) {
                super::pool::give(owner);
            }
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
            ptr: AtomicPtr::new(ptr),
            len: AtomicUsize::new(len),
            dtype: T::DTYPE,
            version: AtomicU64::new(0),
            _owner: UnsafeCell::new(T::into_owner(v)),
            retired: Default::default(),
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
            ptr: AtomicPtr::new(ptr),
            len: AtomicUsize::new(len),
            dtype,
            version: AtomicU64::new(0),
            _owner: UnsafeCell::new(owner),
            retired: Default::default(),
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
            ptr: AtomicPtr::new(ptr),
            len: AtomicUsize::new(len),
            dtype,
            version: AtomicU64::new(0),
            _owner: UnsafeCell::new(Owner::External(owner)),
            retired: Default::default(),
            gpu: None,
        })
    }

    /// Same memory, fresh version counter: what `tensor.data` hands out.
    pub fn alias(this: &Arc<Storage>) -> Arc<Storage> {
        let (len, ptr) = this.parts();
        Arc::new(Storage {
            ptr: AtomicPtr::new(ptr),
            len: AtomicUsize::new(len),
            dtype: this.dtype,
            version: AtomicU64::new(0),
            _owner: UnsafeCell::new(Owner::External(Box::new(this.clone()))),
            retired: Default::default(),
            gpu: this.gpu.clone(),
        })
    }

    /// The element count (read before the buffer: Note [Storage growth]).
    pub fn len(&self) -> usize {
        self.len.load(Ordering::Acquire)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn dtype(&self) -> DType {
        self.dtype
    }

    pub fn data_ptr(&self) -> *mut u8 {
        self.ptr.load(Ordering::Acquire)
    }

    /// `(len, ptr)`, read in the order Note [Storage growth] needs.
    #[inline]
    fn parts(&self) -> (usize, *mut u8) {
        let len = self.len();
        (len, self.data_ptr())
    }

    /// Whether `grow` may replace the buffer: PyTorch's `resizable()`, false for memory owned
    /// elsewhere (a numpy array's, an alias's).
    pub fn resizable(&self) -> bool {
        // SAFETY: the owner is replaced only by `grow`, serialized with every other writer
        // (Note [Storage mutation]).
        !matches!(unsafe { &*self._owner.get() }, Owner::External(_))
    }

    /// Grow a host storage to `new_len` elements in place (Note [Storage growth]): the old
    /// elements copied, the new ones zeroed (PyTorch leaves them uninitialized). PyTorch's error
    /// for memory that is not `resizable`; a GPU storage cannot grow in gradrs (its buffer has a
    /// fixed size): a clear error. Serialized as any write (Note [Storage mutation]).
    pub fn grow(&self, new_len: usize) -> crate::error::Result<()> {
        let len = self.len();
        if new_len <= len {
            return Ok(());
        }
        if self.gpu.is_some() {
            return Err(crate::error::Error::Runtime(format!(
                "resize_: the storage of a GPU tensor cannot grow in gradrs (it holds {len} elements, {new_len} are needed); resize the tensor on the CPU, or make a new one"
            )));
        }
        if !self.resizable() {
            return Err(crate::error::Error::Runtime(
                "Trying to resize storage that is not resizable".into(),
            ));
        }
        fn make<T: Element>(old: &[T], new_len: usize) -> crate::error::Result<(*mut u8, Owner)> {
            let mut v = super::pool::try_alloc::<T>(new_len)?;
            v.extend_from_slice(old);
            v.resize(new_len, T::from_i64(0));
            Ok((v.as_mut_ptr() as *mut u8, T::into_owner(v)))
        }
        let (ptr, owner) =
            crate::dispatch!(self.dtype, T => make::<T>(self.slice::<T>(), new_len))?;
        // SAFETY: see `resizable`; the old owner stays alive in `retired`.
        let old = unsafe { std::mem::replace(&mut *self._owner.get(), owner) };
        self.ptr.store(ptr, Ordering::Release);
        self.len.store(new_len, Ordering::Release);
        self.retired.lock().push(old);
        Ok(())
    }

    /// PyTorch's `share_memory_()` of a CPU storage: the elements move into an anonymous
    /// `MAP_SHARED` mapping, so this process and a child `fork`ed afterwards see each other's
    /// writes. Every tensor over the storage moves with it (the buffer is replaced as `grow`
    /// replaces it, Note [Storage growth]); shared memory is not resizable, as PyTorch's. A
    /// no-op when shared already, and for a GPU storage (PyTorch's CUDA tensors: no-op).
    pub fn share_memory(&self) -> crate::error::Result<()> {
        if self.gpu.is_some() || self.is_shared() {
            return Ok(());
        }
        let (len, old) = self.parts();
        let bytes = len * self.dtype.itemsize();
        let region = SharedRegion::new(bytes)?;
        // SAFETY: the new mapping holds `bytes` bytes; the old buffer holds `len` elements.
        unsafe { std::ptr::copy_nonoverlapping(old, region.ptr, bytes) };
        let ptr = region.ptr;
        // SAFETY: as in `grow`: serialized with every other writer; the old owner is retired.
        let previous = unsafe {
            std::mem::replace(&mut *self._owner.get(), Owner::External(Box::new(region)))
        };
        self.ptr.store(ptr, Ordering::Release);
        self.retired.lock().push(previous);
        Ok(())
    }

    /// Whether the elements are in memory shared with forked processes (`share_memory`); a
    /// GPU storage counts as shared, as PyTorch's CUDA storages.
    pub fn is_shared(&self) -> bool {
        if self.gpu.is_some() {
            return true;
        }
        // SAFETY: see `resizable`.
        matches!(unsafe { &*self._owner.get() }, Owner::External(o) if o.is::<SharedRegion>())
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
            Some(m) => {
                let (len, ptr) = self.parts();
                // SAFETY: ptr/len describe the live host copy of `dtype`.
                unsafe { m.sync_host(ptr, len, self.dtype) }
            }
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
                let (len, ptr) = self.parts();
                // SAFETY: ptr/len describe the live host copy of `dtype` (current when read).
                unsafe { m.buffer(ptr, len, self.dtype) }
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
            let (len, ptr) = self.parts();
            // SAFETY: ptr/len describe the live host copy of `dtype`.
            if let Err(e) = unsafe { m.sync_host(ptr, len, self.dtype) } {
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
        let (len, ptr) = self.parts();
        if len == 0 {
            return &[];
        }
        self.host_read();
        // SAFETY: ptr/len describe a live allocation of `T` (checked dtype; a replaced buffer
        // lives as long as the storage, Note [Storage growth]).
        unsafe { std::slice::from_raw_parts(ptr as *const T, len) }
    }

    /// Mutable view of the elements; see Note [Storage mutation].
    #[allow(clippy::mut_from_ref)]
    pub fn slice_mut<T: Element>(&self) -> &mut [T] {
        assert_eq!(T::DTYPE, self.dtype, "storage dtype mismatch");
        let (len, ptr) = self.parts();
        if len == 0 {
            return &mut [];
        }
        if let Some(m) = &self.gpu {
            self.host_read();
            m.host_written();
        }
        // SAFETY: as above; exclusivity is the caller's contract (Note [Storage mutation]).
        unsafe { std::slice::from_raw_parts_mut(ptr as *mut T, len) }
    }
}

/// An anonymous `MAP_SHARED` mapping (`Storage::share_memory`), unmapped when the storage that
/// owns it drops; a fork shares its pages with the parent instead of copying them on write.
struct SharedRegion {
    ptr: *mut u8,
    bytes: usize,
}

// SAFETY: the mapping is plain memory owned by the region; access follows Note [Storage mutation].
unsafe impl Send for SharedRegion {}
unsafe impl Sync for SharedRegion {}

impl SharedRegion {
    fn new(bytes: usize) -> crate::error::Result<SharedRegion> {
        // A zero-length mapping is refused by mmap: an empty storage maps one page.
        let len = bytes.max(1);
        // SAFETY: a fresh anonymous mapping; no existing memory is touched.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(crate::error::Error::OutOfMemory(format!(
                "share_memory_: unable to map {len} bytes of shared memory: {}",
                std::io::Error::last_os_error()
            )));
        }
        Ok(SharedRegion {
            ptr: p as *mut u8,
            bytes: len,
        })
    }
}

impl Drop for SharedRegion {
    fn drop(&mut self) {
        // SAFETY: the mapping was made by `new` with this length and is no longer referenced.
        unsafe { libc::munmap(self.ptr as *mut libc::c_void, self.bytes) };
    }
}
