//! Note [Buffer pool]: reuse of large freed tensor buffers.
//!
//! A fresh multi-megabyte `Vec` comes straight from `mmap`, so the first write to each of its
//! pages takes a page fault: for `a + b` on 16M floats that costs more than the addition
//! itself. So when a storage that owns a large buffer (≥ `MIN_POOLED_BYTES`) drops, the buffer
//! goes into this pool instead of back to the system, and `alloc` hands it out again for the
//! next output of about the same size (capacity between n and n + n/4 elements; the best fit
//! wins), pages already mapped.
//!
//! Bounds: the pool holds at most `limit()` bytes (256 MiB by default; the environment
//! variable `GRADRS_POOL_MB` sets it once per process, `0` turns the pool off) and at most
//! `MAX_BUFFERS` buffers (so the best-fit scan stays short). When a buffer would push it past
//! either, the oldest ones are freed first; a buffer larger than the limit is never kept.
//! `clear()` frees everything it holds. Small buffers never touch the pool (or its lock): the
//! allocator serves them from its heap quickly.
//!
//! Why the threshold is as low as 64 KiB: glibc `mmap`s blocks above its (adaptive) threshold
//! and trims the top of its heap when much is free there, so tensors of a few hundred KiB (an
//! MLP's activations and weight gradients) were also coming back unmapped on each training
//! step: a quarter of a small MLP step went to page faults.
//!
//! Thread-safe: one mutex, held only to move buffers in and out; freeing evicted buffers
//! happens after it is released.

use super::element::{Element, Owner};
use parking_lot::Mutex;
use std::collections::VecDeque;
use std::sync::OnceLock;

/// Buffers below this many bytes bypass the pool.
pub const MIN_POOLED_BYTES: usize = 1 << 16;

/// The most buffers the pool keeps.
const MAX_BUFFERS: usize = 128;

const DEFAULT_LIMIT_MB: usize = 256;

struct Pool {
    /// Oldest first.
    bufs: VecDeque<Owner>,
    bytes: usize,
}

static POOL: Mutex<Pool> = Mutex::new(Pool {
    bufs: VecDeque::new(),
    bytes: 0,
});

/// The most bytes the pool keeps.
pub fn limit() -> usize {
    static LIMIT: OnceLock<usize> = OnceLock::new();
    *LIMIT.get_or_init(|| {
        let mb = std::env::var("GRADRS_POOL_MB")
            .ok()
            .and_then(|s| s.trim().parse::<usize>().ok())
            .unwrap_or(DEFAULT_LIMIT_MB);
        mb.saturating_mul(1 << 20)
    })
}

fn capacity_bytes(o: &Owner) -> usize {
    match o {
        Owner::F32(v) => v.capacity() * 4,
        Owner::F64(v) => v.capacity() * 8,
        Owner::I64(v) => v.capacity() * 8,
        Owner::I32(v) => v.capacity() * 4,
        Owner::F16(v) => v.capacity() * 2,
        Owner::BF16(v) => v.capacity() * 2,
        Owner::I16(v) => v.capacity() * 2,
        Owner::U8(v) => v.capacity(),
        Owner::I8(v) => v.capacity(),
        Owner::Bool(v) => v.capacity(),
        Owner::External(_) => 0,
    }
}

/// An empty `Vec` with room for at least `n` elements, reusing a pooled buffer when one fits.
/// The memory is not initialized: write the elements, then `set_len`.
pub fn alloc<T: Element>(n: usize) -> Vec<T> {
    try_alloc(n).unwrap_or_else(|e| crate::error::raise(e))
}

/// `alloc`, its failure PyTorch's allocator error instead of an abort: the memory is
/// reserved fallibly, so an impossible size never reaches the global allocator's abort.
pub fn try_alloc<T: Element>(n: usize) -> crate::Result<Vec<T>> {
    let bytes = n.saturating_mul(std::mem::size_of::<T>());
    if bytes >= MIN_POOLED_BYTES {
        if let Some(v) = take::<T>(n) {
            return Ok(v);
        }
    }
    let Some(v) = reserve::<T>(n) else {
        return Err(crate::error::cpu_out_of_memory(bytes));
    };
    advise_huge_pages(&v);
    Ok(v)
}

/// An empty Vec with capacity exactly `n`, None when the size overflows or the allocator
/// refuses. Straight to the global allocator: `try_reserve_exact` on an empty Vec goes through
/// `finish_grow`'s generic growth path, which cost ~60 instructions per new tensor (issue 23).
#[inline]
fn reserve<T>(n: usize) -> Option<Vec<T>> {
    let layout = std::alloc::Layout::array::<T>(n).ok()?;
    if layout.size() == 0 {
        return Some(Vec::new());
    }
    // SAFETY: a non-zero size; the pointer, when not null, is a block of `layout` from the
    // global allocator, which is what `Vec::from_raw_parts` needs with capacity `n`, length 0.
    unsafe {
        let p = std::alloc::alloc(layout) as *mut T;
        (!p.is_null()).then(|| Vec::from_raw_parts(p, 0, n))
    }
}

/// An empty Vec with room for `n` items of any type, reserved fallibly (not pooled): for
/// buffers of a user-chosen size that are not storages of an `Element` type.
pub fn vec_with_capacity<T>(n: usize) -> Vec<T> {
    let mut v = Vec::new();
    if v.try_reserve_exact(n).is_err() {
        let bytes = n.saturating_mul(std::mem::size_of::<T>());
        crate::error::raise(crate::error::cpu_out_of_memory(bytes))
    }
    v
}

/// The `n` items of `it` in a fallibly reserved Vec (`Iterator::collect` aborts on failure).
pub fn collect<T>(n: usize, it: impl Iterator<Item = T>) -> Vec<T> {
    let mut v = vec_with_capacity(n);
    v.extend(it);
    v
}

/// `n` copies of `x` in a fallibly allocated (possibly pooled) buffer.
pub fn filled<T: Element>(n: usize, x: T) -> Vec<T> {
    let mut v = alloc(n);
    v.resize(n, x);
    v
}

/// Asks Linux for transparent huge pages under a fresh, still untouched large buffer (as
/// PyTorch's CPU allocator does): where THP is in `madvise` mode, a stream over a large tensor
/// otherwise walks the page tables every 4 KiB.
fn advise_huge_pages<T>(v: &Vec<T>) {
    const HUGE: usize = 2 << 20;
    let bytes = v.capacity() * std::mem::size_of::<T>();
    if !cfg!(target_os = "linux") || bytes < 2 * HUGE {
        return;
    }
    let start = (v.as_ptr() as usize).next_multiple_of(HUGE);
    let end = (v.as_ptr() as usize + bytes) / HUGE * HUGE;
    if end > start {
        // SAFETY: the range lies inside the buffer's own allocation; the advice changes how
        // the kernel backs the pages, not their contents or validity.
        #[cfg(target_os = "linux")]
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

fn take<T: Element>(n: usize) -> Option<Vec<T>> {
    let mut pool = POOL.lock();
    let max = n + n / 4;
    let mut best: Option<(usize, usize)> = None; // (index, capacity)
    for (i, o) in pool.bufs.iter().enumerate() {
        if let Some(cap) = T::owner_capacity(o) {
            if cap >= n && cap <= max && best.is_none_or(|(_, c)| cap < c) {
                best = Some((i, cap));
            }
        }
    }
    let (i, _) = best?;
    let o = pool.bufs.remove(i)?;
    pool.bytes -= capacity_bytes(&o);
    drop(pool);
    let mut v = T::from_owner(o).ok()?;
    v.clear();
    Some(v)
}

/// Called when a storage drops: keep its buffer if it is large, else free it.
pub fn give(o: Owner) {
    let bytes = capacity_bytes(&o);
    if bytes < MIN_POOLED_BYTES || bytes > limit() {
        return;
    }
    let mut evicted = Vec::new();
    let mut pool = POOL.lock();
    while pool.bytes + bytes > limit() || pool.bufs.len() >= MAX_BUFFERS {
        match pool.bufs.pop_front() {
            Some(old) => {
                pool.bytes -= capacity_bytes(&old);
                evicted.push(old);
            }
            None => break,
        }
    }
    pool.bytes += bytes;
    pool.bufs.push_back(o);
    drop(pool);
    drop(evicted);
}

/// Frees every pooled buffer.
pub fn clear() {
    let bufs = {
        let mut pool = POOL.lock();
        pool.bytes = 0;
        std::mem::take(&mut pool.bufs)
    };
    drop(bufs);
}

/// Bytes the pool holds now.
pub fn pooled_bytes() -> usize {
    POOL.lock().bytes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::Storage;

    // The pool is process-wide; these tests only use sizes no other test allocates.
    #[test]
    fn impossible_sizes_are_errors_not_aborts() {
        let e = try_alloc::<f32>(1 << 60).unwrap_err();
        assert!(e.to_string().contains("DefaultCPUAllocator: can't allocate memory: you tried to allocate 4611686018427387904 bytes"));
        let e = crate::tensor::shape::storage_nbytes(&[1 << 62], 4).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Storage size calculation overflowed with sizes=[4611686018427387904]"
        );
        assert_eq!(
            crate::tensor::shape::checked_numel(&[1 << 32, 1 << 32]),
            None
        );
        assert_eq!(
            crate::tensor::shape::checked_numel(&[1 << 62, 8, 0]),
            Some(0)
        );
    }

    #[test]
    fn large_buffer_is_reused_and_bounded() {
        let n = (3 << 20) / 8 + 17; // f64, a little over 3 MiB
        let v = alloc::<f64>(n);
        assert!(v.capacity() >= n);
        let mut v = v;
        v.resize(n, 1.5);
        let ptr = v.as_ptr();
        drop(Storage::from_vec(v));
        assert!(pooled_bytes() >= n * 8);
        // Same size: the same buffer comes back, empty.
        let w = alloc::<f64>(n);
        assert_eq!(w.as_ptr(), ptr);
        assert!(w.is_empty());
        // A much smaller request does not take it (at most 25% slack).
        let mut w = w;
        w.resize(n, 0.0);
        drop(Storage::from_vec(w));
        let small = alloc::<f64>(n / 2);
        assert_ne!(small.as_ptr(), ptr);
        // Another dtype never takes it.
        let other = alloc::<i64>(n);
        assert_ne!(other.as_ptr() as *const f64, ptr);
        assert!(pooled_bytes() <= limit());
    }
}
