//! Storage: one typed allocation shared by a tensor and all its views, plus its version counter.

use crate::dtype::DType;
use std::any::Any;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A Rust type that can be a tensor element.
pub trait Element: Copy + Send + Sync + Default + PartialOrd + std::fmt::Debug + 'static {
    const DTYPE: DType;
    fn into_owner(v: Vec<Self>) -> Owner;
    /// The Vec back out of an `Owner` of this type (else the owner, unchanged).
    fn from_owner(o: Owner) -> Result<Vec<Self>, Owner>;
    /// The capacity of an `Owner`'s Vec if it holds this type.
    fn owner_capacity(o: &Owner) -> Option<usize>;
    fn from_f64(v: f64) -> Self;
    fn to_f64(self) -> f64;
    fn from_i64(v: i64) -> Self;
    fn to_i64(self) -> i64;
    fn from_bool(v: bool) -> Self;
    fn to_bool(self) -> bool;
    /// Addition as PyTorch's accumulating kernels do it (bool: logical or; ints wrap).
    fn add(self, other: Self) -> Self;
}

macro_rules! element {
    ($t:ty, $dt:ident, $owner:ident, $from_f64:expr, $to_f64:expr, $from_i64:expr, $to_i64:expr, $from_bool:expr, $to_bool:expr, $add:expr) => {
        impl Element for $t {
            const DTYPE: DType = DType::$dt;
            fn into_owner(v: Vec<Self>) -> Owner {
                Owner::$owner(v)
            }
            fn from_owner(o: Owner) -> Result<Vec<Self>, Owner> {
                match o {
                    Owner::$owner(v) => Ok(v),
                    other => Err(other),
                }
            }
            fn owner_capacity(o: &Owner) -> Option<usize> {
                match o {
                    Owner::$owner(v) => Some(v.capacity()),
                    _ => None,
                }
            }
            #[inline(always)]
            fn from_f64(v: f64) -> Self {
                $from_f64(v)
            }
            #[inline(always)]
            fn to_f64(self) -> f64 {
                $to_f64(self)
            }
            #[inline(always)]
            fn from_i64(v: i64) -> Self {
                $from_i64(v)
            }
            #[inline(always)]
            fn to_i64(self) -> i64 {
                $to_i64(self)
            }
            #[inline(always)]
            fn from_bool(v: bool) -> Self {
                $from_bool(v)
            }
            #[inline(always)]
            fn to_bool(self) -> bool {
                $to_bool(self)
            }
            #[inline(always)]
            fn add(self, other: Self) -> Self {
                $add(self, other)
            }
        }
    };
}

element!(
    f32,
    F32,
    F32,
    |v: f64| v as f32,
    |v: f32| v as f64,
    |v: i64| v as f32,
    |v: f32| v as i64,
    |v: bool| v as u8 as f32,
    |v: f32| v != 0.0,
    |a: f32, b: f32| a + b
);
element!(
    f64,
    F64,
    F64,
    |v: f64| v,
    |v: f64| v,
    |v: i64| v as f64,
    |v: f64| v as i64,
    |v: bool| v as u8 as f64,
    |v: f64| v != 0.0,
    |a: f64, b: f64| a + b
);
element!(
    i64,
    I64,
    I64,
    |v: f64| v as i64,
    |v: i64| v as f64,
    |v: i64| v,
    |v: i64| v,
    |v: bool| v as i64,
    |v: i64| v != 0,
    |a: i64, b: i64| a.wrapping_add(b)
);
element!(
    bool,
    Bool,
    Bool,
    |v: f64| v != 0.0,
    |v: bool| v as u8 as f64,
    |v: i64| v != 0,
    |v: bool| v as i64,
    |v: bool| v,
    |v: bool| v,
    |a: bool, b: bool| a | b
);

/// Who owns the memory: a Vec of ours, or something outside (a numpy array, a storage we alias).
pub enum Owner {
    F32(Vec<f32>),
    F64(Vec<f64>),
    I64(Vec<i64>),
    Bool(Vec<bool>),
    External(Box<dyn Any + Send + Sync>),
}

/// Note [Storage mutation]: storage is written through shared references by in-place ops.
/// Every mutating entry point is serialized by its caller (the Python bindings hold the GIL),
/// and kernels never read and write overlapping memory within one call except elementwise
/// in place at identical positions, which is sound.
pub struct Storage {
    ptr: *mut u8,
    len: usize,
    dtype: DType,
    version: AtomicU64,
    _owner: Owner,
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
    pub fn from_vec<T: Element>(mut v: Vec<T>) -> Arc<Storage> {
        let ptr = v.as_mut_ptr() as *mut u8;
        let len = v.len();
        Arc::new(Storage {
            ptr,
            len,
            dtype: T::DTYPE,
            version: AtomicU64::new(0),
            _owner: T::into_owner(v),
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

    pub fn version(&self) -> u64 {
        self.version.load(Ordering::Relaxed)
    }

    pub fn bump_version(&self) {
        self.version.fetch_add(1, Ordering::Relaxed);
    }

    /// The elements as a slice of `T`. Panics (a bug, never user input) if `T` is not the dtype.
    pub fn slice<T: Element>(&self) -> &[T] {
        assert_eq!(T::DTYPE, self.dtype, "storage dtype mismatch");
        if self.len == 0 {
            return &[];
        }
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
        // SAFETY: as above; exclusivity is the caller's contract (Note [Storage mutation]).
        unsafe { std::slice::from_raw_parts_mut(self.ptr as *mut T, self.len) }
    }
}
