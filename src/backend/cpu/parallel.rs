//! How kernels use threads. The calling thread works too: it and up to `threads - 1` rayon
//! workers take chunks from a shared counter, so a worker that wakes late (a busy machine)
//! only finds fewer chunks left instead of stalling the op, and with one thread nothing leaves
//! the caller. (A plain `par_iter` from outside the pool parks the caller until workers run.)

use super::PAR_THRESHOLD;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Chunk bounds: big enough that taking one is noise, small enough to balance the load.
const MIN_CHUNK: usize = 1 << 13;
const MAX_CHUNK: usize = 1 << 16;

/// How `0..n` items of `cost` elements each are cut: (number of chunks, items per chunk).
fn plan(n: usize, cost: usize, threads: usize) -> (usize, usize) {
    let cost = cost.max(1);
    if n.saturating_mul(cost) < PAR_THRESHOLD || threads <= 1 || n <= 1 {
        return (1, n.max(1));
    }
    let elems = (n * cost).div_ceil(threads * 4).clamp(MIN_CHUNK, MAX_CHUNK);
    let len = (elems / cost).max(1);
    (n.div_ceil(len), len)
}

/// `f(range)` for consecutive ranges covering `0..n`, results in order; in parallel when `n`
/// is at least `PAR_THRESHOLD` and rayon has more than one thread.
pub fn map_chunks<R: Send>(n: usize, f: impl Fn(Range<usize>) -> R + Sync) -> Vec<R> {
    map_chunks_by(n, 1, f)
}

/// `map_chunks` over `n` items that cost about `cost` elements of work each (rows of a
/// reduction, say).
pub fn map_chunks_by<R: Send>(
    n: usize,
    cost: usize,
    f: impl Fn(Range<usize>) -> R + Sync,
) -> Vec<R> {
    let threads = rayon::current_num_threads();
    let (chunks, len) = plan(n, cost, threads);
    let range = |i: usize| i * len..((i + 1) * len).min(n);
    if chunks == 1 {
        return vec![f(0..n)];
    }
    let slots: Vec<parking_lot::Mutex<Option<R>>> =
        (0..chunks).map(|_| parking_lot::Mutex::new(None)).collect();
    for_each_index(chunks, |i| *slots[i].lock() = Some(f(range(i))));
    slots
        .into_iter()
        .map(|m| m.into_inner().expect("every chunk ran"))
        .collect()
}

/// `f(i)` for each `i` in `0..n`, taken one at a time from a shared counter by the calling
/// thread and up to `threads - 1` rayon workers; no size threshold (for a few large items, such
/// as the blocks of a matrix product, whose caller decided threads pay off).
pub fn for_each_index(n: usize, f: impl Fn(usize) + Sync) {
    let threads = rayon::current_num_threads();
    if n <= 1 || threads <= 1 {
        (0..n).for_each(f);
        return;
    }
    let next = AtomicUsize::new(0);
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        if i >= n {
            break;
        }
        f(i);
    };
    rayon::in_place_scope(|s| {
        for _ in 1..threads.min(n) {
            s.spawn(|_| work());
        }
        work();
    });
}

/// `f(range, part)` for consecutive ranges covering `0..n`, where `part` is
/// `&mut out[range]`; in parallel as `map_chunks`.
pub fn for_chunks_mut<U: Send>(out: &mut [U], f: impl Fn(Range<usize>, &mut [U]) + Sync) {
    let n = out.len();
    let base = SendPtr(out.as_mut_ptr());
    map_chunks(n, |r| {
        let base = &base;
        // SAFETY: the ranges are disjoint and inside `out`, which is borrowed mutably for the
        // whole call, so each part is an exclusive slice.
        let part = unsafe { std::slice::from_raw_parts_mut(base.0.add(r.start), r.len()) };
        f(r, part)
    });
}

struct SendPtr<U>(*mut U);
// SAFETY: only used to hand out disjoint parts of one exclusively borrowed slice.
unsafe impl<U: Send> Sync for SendPtr<U> {}
unsafe impl<U: Send> Send for SendPtr<U> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_everything_once_in_order() {
        for n in [0, 1, PAR_THRESHOLD - 1, PAR_THRESHOLD, 100_003, 1 << 20] {
            let parts = map_chunks(n, |r| r);
            let mut next = 0;
            for r in parts {
                assert_eq!(r.start, next);
                next = r.end;
            }
            assert_eq!(next, n);
            let mut v = vec![0u32; n];
            for_chunks_mut(&mut v, |r, part| {
                for (i, x) in r.zip(part.iter_mut()) {
                    *x += i as u32 + 1;
                }
            });
            assert!(v.iter().enumerate().all(|(i, &x)| x == i as u32 + 1));
        }
    }
}
