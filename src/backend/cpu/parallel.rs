//! How kernels use threads: gradrs's own pool, PyTorch's intra-op pool. The calling thread
//! works too: it and up to `threads - 1` workers take chunks from a shared counter, so a worker
//! that wakes late (a busy machine) only finds fewer chunks left instead of stalling the op, and
//! with one thread nothing leaves the caller. The count is `set_num_threads`'s (PyTorch's
//! `torch.set_num_threads`), by default `RAYON_NUM_THREADS` or the machine's cores; the pool has
//! `threads - 1` workers, is built on the first parallel kernel and rebuilt when the count
//! changes, and a forked child builds its own (Note [Fork] in `backend/fork.rs`).
//!
//! Note [Late workers]: the caller never waits for a worker that has not started. Each parallel
//! region is one `Region` whose state word counts the workers inside it plus a CLOSED bit; a
//! worker enters only while the region is open, and the caller closes it once every chunk is
//! taken, then waits only for the workers inside (busy on their last chunk, so it spins briefly
//! before it parks). A worker that wakes after the close drops its job without touching the
//! caller's closure. (The rayon pool this replaced made the caller wait, parked, until every
//! spawned job had run, even one that found no chunk left: two thread wake-ups on the critical
//! path of every parallel kernel, and on a loaded 2-core machine the caller sat waiting for a
//! worker the scheduler had not run yet.) Idle workers sleep in `park` (no spinning), and a
//! parallel region inside another (a kernel called from a worker's chunk) runs on its thread,
//! as PyTorch's `parallel_for` does.

use super::PAR_THRESHOLD;
use std::any::Any;
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::Thread;
use std::time::{Duration, Instant};

/// The thread count kernels use, the calling thread included; 0 until first asked for.
static THREADS: AtomicUsize = AtomicUsize::new(0);
/// The pool's workers and the thread count they were built for. A std mutex: after a fork the
/// child releases it (`after_fork`) without touching any other thread's state.
type Slot = Option<(usize, Arc<Pool>)>;
static POOL: Mutex<Slot> = Mutex::new(None);
/// Set in a forked child: the pool in `POOL` is the parent's and has no threads here.
static FORKED: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// `POOL`'s guard, held by the forking thread from `before_fork` to `after_fork`.
    static HELD: RefCell<Option<MutexGuard<'static, Slot>>> = const { RefCell::new(None) };
    /// Whether this thread is running a parallel region's work (a worker always is): a region
    /// started from there runs on this thread alone.
    static IN_REGION: Cell<bool> = const { Cell::new(false) };
}

/// The thread count kernels use (`get_num_threads`).
pub fn num_threads() -> usize {
    match THREADS.load(Ordering::Relaxed) {
        0 => {
            let n = default_threads();
            match THREADS.compare_exchange(0, n, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => n,
                Err(set) => set,
            }
        }
        n => n,
    }
}

/// Sets the thread count of the kernels that follow (`set_num_threads`); 1 keeps every kernel
/// on its calling thread. The pool is rebuilt at the next parallel kernel.
pub fn set_num_threads(n: usize) {
    THREADS.store(n.max(1), Ordering::Relaxed);
}

/// rayon's convention: `RAYON_NUM_THREADS` when set to a positive number, else the cores.
fn default_threads() -> usize {
    std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

fn lock_pool() -> MutexGuard<'static, Slot> {
    POOL.lock().unwrap_or_else(|e| e.into_inner())
}

/// The pool of `threads - 1` workers, built (or rebuilt, for another count or in a forked
/// child) here; None if the system refuses threads, and the caller then works alone.
fn pool(threads: usize) -> Option<Arc<Pool>> {
    crate::backend::fork::register();
    let mut slot = lock_pool();
    if FORKED.swap(false, Ordering::Relaxed) {
        // The parent's workers do not exist in this process: dropping their pool would signal
        // threads that are not there; leak it, as PyTorch leaks its pool after a fork.
        std::mem::forget(slot.take());
    }
    if let Some((n, p)) = slot.as_ref() {
        if *n == threads {
            return Some(p.clone());
        }
    }
    let built = Pool::new(threads - 1).map(Arc::new);
    // An older pool's workers finish what they run and exit once its last user drops it.
    *slot = built.as_ref().map(|p| (threads, p.clone()));
    built
}

/// Runs `f` with the thread count set to `n`, then restores it; tests that set the count hold
/// one lock, so they do not change it under each other.
#[cfg(test)]
pub fn with_threads<R>(n: usize, f: impl FnOnce() -> R) -> R {
    static COUNT: Mutex<()> = Mutex::new(());
    let _one_at_a_time = COUNT.lock().unwrap_or_else(|e| e.into_inner());
    let before = num_threads();
    set_num_threads(n);
    let r = f();
    set_num_threads(before);
    r
}

/// `fork` prepare handler: the forking thread holds the pool's lock across `fork`, so no other
/// thread holds it at the moment the child is copied.
pub(crate) fn before_fork() {
    let guard = lock_pool();
    HELD.with(|h| *h.borrow_mut() = Some(guard));
}

/// `fork` parent and child handlers: release the lock `before_fork` took; in the child, mark
/// the pool as the parent's.
pub(crate) fn after_fork(child: bool) {
    if child {
        FORKED.store(true, Ordering::Relaxed);
    }
    HELD.with(|h| h.borrow_mut().take());
}

/// The workers of one thread count.
struct Pool {
    workers: Vec<Worker>,
}

struct Worker {
    queue: Arc<Queue>,
    thread: Thread,
}

/// A worker's inbox: the regions it is asked to join, oldest first.
#[derive(Default)]
struct Queue {
    jobs: parking_lot::Mutex<VecDeque<Job>>,
    stop: AtomicBool,
}

impl Pool {
    /// `n` workers, or None if the system refuses a thread (those already started stop).
    fn new(n: usize) -> Option<Pool> {
        let mut pool = Pool {
            workers: Vec::with_capacity(n),
        };
        for i in 0..n {
            let queue = Arc::new(Queue::default());
            let q = queue.clone();
            let handle = std::thread::Builder::new()
                .name(format!("gradrs-worker-{i}"))
                .spawn(move || work_loop(&q))
                .ok()?;
            pool.workers.push(Worker {
                queue,
                thread: handle.thread().clone(),
            });
        }
        Some(pool)
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        for w in &self.workers {
            w.queue.stop.store(true, Ordering::Release);
            w.thread.unpark();
        }
    }
}

fn work_loop(queue: &Queue) {
    IN_REGION.with(|r| r.set(true));
    loop {
        let job = queue.jobs.lock().pop_front();
        match job {
            Some(job) => job.run(),
            None if queue.stop.load(Ordering::Acquire) => return,
            // An `unpark` between the empty pop and here makes `park` return at once.
            None => std::thread::park(),
        }
    }
}

/// The state word's bit saying that no worker may enter any more; the bits below count the
/// workers inside.
const CLOSED: usize = 1 << (usize::BITS - 1);

/// One parallel region (Note [Late workers]).
struct Region {
    state: AtomicUsize,
    caller: Thread,
    /// A worker's panic, raised again on the caller.
    panic: parking_lot::Mutex<Option<Box<dyn Any + Send>>>,
}

/// A worker's invitation to a region: `work` points at the caller's closure, valid for as
/// long as the region is open or has a worker inside.
struct Job {
    region: Arc<Region>,
    work: *const (dyn Fn() + Sync + 'static),
}

// SAFETY: `work` is only dereferenced by a worker inside its region, while the caller keeps
// the closure (which is Sync) alive.
unsafe impl Send for Job {}

impl Job {
    fn run(self) {
        let region = &self.region;
        let mut s = region.state.load(Ordering::Acquire);
        loop {
            if s & CLOSED != 0 {
                return;
            }
            match region
                .state
                .compare_exchange_weak(s, s + 1, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => break,
                Err(now) => s = now,
            }
        }
        // SAFETY: inside the open region the caller waits for this worker before it returns.
        let work = unsafe { &*self.work };
        if let Err(p) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)) {
            region.panic.lock().get_or_insert(p);
        }
        if region.state.fetch_sub(1, Ordering::AcqRel) == CLOSED | 1 {
            region.caller.unpark();
        }
    }
}

/// Closes the region and waits for the workers inside it (also when the caller's own share
/// panics: the workers still use its closure).
struct CloseOnDrop<'a>(&'a Region);

impl Drop for CloseOnDrop<'_> {
    fn drop(&mut self) {
        let state = &self.0.state;
        if state.fetch_or(CLOSED, Ordering::AcqRel) == 0 {
            return;
        }
        // The workers inside are on their last chunk: spin a little, then sleep.
        let start = Instant::now();
        let mut spins = 0u32;
        while state.load(Ordering::Acquire) != CLOSED {
            if spins < 1 << 16 && (!spins.is_multiple_of(64) || start.elapsed() < SPIN_WAIT) {
                std::hint::spin_loop();
                spins += 1;
            } else {
                std::thread::park();
            }
        }
    }
}

/// How long a caller spins for workers finishing their last chunk before it parks.
const SPIN_WAIT: Duration = Duration::from_micros(50);

/// Runs `work` on the calling thread and on up to `helpers` workers of `pool` that join in
/// time (Note [Late workers]).
fn run_region(pool: &Pool, helpers: usize, work: &(dyn Fn() + Sync)) {
    let region = Arc::new(Region {
        state: AtomicUsize::new(0),
        caller: std::thread::current(),
        panic: parking_lot::Mutex::new(None),
    });
    // SAFETY: only the lifetime is erased; `CloseOnDrop` keeps `work` alive while a worker
    // may use it.
    let ptr: *const (dyn Fn() + Sync + 'static) = unsafe { std::mem::transmute(work) };
    for w in &pool.workers[..helpers.min(pool.workers.len())] {
        w.queue.jobs.lock().push_back(Job {
            region: region.clone(),
            work: ptr,
        });
        w.thread.unpark();
    }
    {
        let _close = CloseOnDrop(&region);
        IN_REGION.with(|r| r.set(true));
        let _leave = LeaveRegion;
        work();
    }
    let panic = region.panic.lock().take();
    if let Some(p) = panic {
        std::panic::resume_unwind(p);
    }
}

/// Marks the caller as outside a region again, also on unwinding.
struct LeaveRegion;

impl Drop for LeaveRegion {
    fn drop(&mut self) {
        IN_REGION.with(|r| r.set(false));
    }
}

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
/// is at least `PAR_THRESHOLD` and more than one thread is asked for.
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
    let (chunks, len) = plan(n, cost, num_threads());
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
/// thread and up to `threads - 1` pool workers; no size threshold (for a few large items, such
/// as the blocks of a matrix product, whose caller decided threads pay off).
pub fn for_each_index(n: usize, f: impl Fn(usize) + Sync) {
    let threads = num_threads();
    let pool = if n > 1 && threads > 1 && !IN_REGION.with(|r| r.get()) {
        pool(threads)
    } else {
        None
    };
    let Some(pool) = pool else {
        (0..n).for_each(f);
        return;
    };
    let next = AtomicUsize::new(0);
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        if i >= n {
            break;
        }
        f(i);
    };
    run_region(&pool, threads.min(n) - 1, &work);
}

/// `f(range, part)` for consecutive ranges covering `0..n`, where `part` is
/// `&mut out[range]`; in parallel as `map_chunks`.
pub fn for_chunks_mut<U: Send>(out: &mut [U], f: impl Fn(Range<usize>, &mut [U]) + Sync) {
    let n = out.len();
    let parts = Parts::new(out);
    map_chunks(n, |r| {
        // SAFETY: the ranges `map_chunks` hands out are disjoint.
        let part = unsafe { parts.get(r.clone()) };
        f(r, part)
    });
}

/// `f(i, row)` for each row `out[i * len..(i + 1) * len]`, rows shared across threads as
/// `map_chunks_by` shares items of `len` elements each.
pub fn for_rows_mut<U: Send>(out: &mut [U], len: usize, f: impl Fn(usize, &mut [U]) + Sync) {
    let len = len.max(1);
    let rows = out.len() / len;
    let parts = Parts::new(out);
    map_chunks_by(rows, len, |r| {
        // SAFETY: the row ranges `map_chunks_by` hands out are disjoint.
        let part = unsafe { parts.get(r.start * len..r.end * len) };
        for (i, row) in r.zip(part.chunks_mut(len)) {
            f(i, row);
        }
    });
}

/// An exclusively borrowed slice whose disjoint parts go to different threads.
pub struct Parts<'a, U> {
    ptr: *mut U,
    len: usize,
    _slice: std::marker::PhantomData<&'a mut [U]>,
}

// SAFETY: `get`'s contract keeps the parts handed out disjoint, so sharing `Parts` only ever
// gives each thread exclusive access to its own elements.
unsafe impl<U: Send> Sync for Parts<'_, U> {}
unsafe impl<U: Send> Send for Parts<'_, U> {}

impl<'a, U> Parts<'a, U> {
    pub fn new(s: &'a mut [U]) -> Self {
        Parts {
            ptr: s.as_mut_ptr(),
            len: s.len(),
            _slice: std::marker::PhantomData,
        }
    }

    /// `&mut slice[r]`.
    ///
    /// # Safety
    /// No two parts alive at the same time may overlap.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn get(&self, r: Range<usize>) -> &mut [U] {
        assert!(r.start <= r.end && r.end <= self.len, "part out of bounds");
        std::slice::from_raw_parts_mut(self.ptr.add(r.start), r.len())
    }
}

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
            let mut w = vec![0u32; n];
            for_rows_mut(&mut w, 7, |i, row| {
                row.iter_mut().for_each(|x| *x = i as u32)
            });
            assert!(w
                .iter()
                .enumerate()
                .all(|(i, &x)| i >= n / 7 * 7 || x == (i / 7) as u32));
        }
    }

    /// With one thread asked for, every part runs on the calling thread.
    #[test]
    fn one_thread_stays_on_the_caller() {
        with_threads(1, || {
            let me = std::thread::current().id();
            let ids = parking_lot::Mutex::new(Vec::new());
            for_each_index(64, |_| ids.lock().push(std::thread::current().id()));
            map_chunks(1 << 20, |_| ids.lock().push(std::thread::current().id()));
            assert!(ids.lock().iter().all(|&id| id == me));
        });
    }

    /// A panic in any chunk reaches the caller once every worker inside has left, and the
    /// pool serves the next region.
    #[test]
    fn a_chunk_panic_reaches_the_caller() {
        with_threads(2, || {
            for bad in [0, 63] {
                let r = std::panic::catch_unwind(|| {
                    for_each_index(64, |i| {
                        std::thread::sleep(std::time::Duration::from_micros(50));
                        assert!(i != bad, "chunk {i}");
                    })
                });
                assert!(r.is_err());
            }
            let hits = AtomicUsize::new(0);
            for_each_index(64, |_| {
                hits.fetch_add(1, Ordering::Relaxed);
            });
            assert_eq!(hits.load(Ordering::Relaxed), 64);
        });
    }

    /// A region started inside another one's chunk runs on that chunk's thread, whole.
    #[test]
    fn a_nested_region_stays_on_its_thread() {
        with_threads(2, || {
            let ok = AtomicUsize::new(0);
            for_each_index(8, |_| {
                let me = std::thread::current().id();
                let ids = parking_lot::Mutex::new(Vec::new());
                for_each_index(16, |_| ids.lock().push(std::thread::current().id()));
                let ids = ids.into_inner();
                if ids.len() == 16 && ids.iter().all(|&id| id == me) {
                    ok.fetch_add(1, Ordering::Relaxed);
                }
            });
            assert_eq!(ok.load(Ordering::Relaxed), 8);
        });
    }

    /// A forked child's parallel kernels finish (Note [Fork]): the parent's workers do not
    /// exist there, and waiting on them would hang, so the child builds its own pool.
    #[cfg(unix)]
    #[test]
    fn forked_child_runs_parallel_kernels() {
        use std::time::{Duration, Instant};
        with_threads(2, || {
            let n = 1 << 20;
            let sum = |n: usize| -> u64 {
                map_chunks(n, |r| r.map(|i| i as u64).sum::<u64>())
                    .iter()
                    .sum()
            };
            let want = (n as u64 - 1) * n as u64 / 2;
            assert_eq!(sum(n), want); // the parent's pool is up
                                      // SAFETY: the child only runs kernels and leaves through `_exit`.
            let pid = unsafe { libc::fork() };
            assert!(pid >= 0, "fork failed");
            if pid == 0 {
                let ok = std::panic::catch_unwind(|| {
                    let hits = AtomicUsize::new(0);
                    for_each_index(16, |_| {
                        hits.fetch_add(1, Ordering::Relaxed);
                    });
                    sum(n) == want && hits.load(Ordering::Relaxed) == 16
                });
                // SAFETY: ends the child without running the parent's exit handlers.
                unsafe { libc::_exit(if matches!(ok, Ok(true)) { 0 } else { 1 }) };
            }
            let (deadline, mut status) = (Instant::now() + Duration::from_secs(60), 0);
            // SAFETY: waits for (and on a hang, kills) the child forked above.
            while unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) } != pid {
                if Instant::now() > deadline {
                    unsafe {
                        libc::kill(pid, libc::SIGKILL);
                        libc::waitpid(pid, &mut status, 0);
                    }
                    panic!("the forked child hung in a parallel kernel");
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0);
        });
    }
}
