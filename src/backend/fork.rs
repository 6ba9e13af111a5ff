//! What a forked child does with the parent's intra-op threads and GPU device: Note [Fork].
//!
//! Note [Fork]: `fork()` copies only the thread that calls it. A child that handed work to the
//! parent's pool workers, or waited on the parent's GPU device (whose driver threads and queue
//! state did not come along), would wait forever: a `DataLoader` worker computing a large
//! sample, a `multiprocessing` pool with the 'fork' start method. As PyTorch does for its own
//! pools, one `pthread_atfork` child handler marks the child, and then
//! - the kernels' thread pool (`cpu/parallel.rs`) is leaked, not dropped (dropping it would
//!   signal threads that do not exist), and a fresh one of the same size is built when the
//!   child first runs a parallel kernel, so a forked child computes as fast as its parent;
//!   a child that asked for one thread (`set_num_threads(1)`, as `DataLoader` workers do)
//!   never builds one;
//! - a GPU context the parent had opened refuses every use with PyTorch's "Cannot
//!   re-initialize ... in forked subprocess" error (`wgpu/context/mod.rs`): a device cannot be
//!   carried across `fork`, and PyTorch refuses in the same case; a child whose parent never
//!   opened the device opens its own.
//!
//! The prepare / parent handlers hold the pool's lock across `fork` so that the child never
//! inherits it locked by a thread that no longer exists.

/// Registers the handlers, once per process (a forked child inherits them). Called when the
/// thread pool or the GPU context is first created: before that a child has nothing to fix.
pub fn register() {
    #[cfg(unix)]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            // SAFETY: the handlers are plain functions that only touch process globals
            // (atomics and the pool's lock, taken and released around the fork).
            let rc = unsafe { libc::pthread_atfork(Some(prepare), Some(parent), Some(child)) };
            debug_assert_eq!(rc, 0, "pthread_atfork failed");
        });
    }
}

#[cfg(unix)]
extern "C" fn prepare() {
    super::cpu::parallel::before_fork();
}

#[cfg(unix)]
extern "C" fn parent() {
    super::cpu::parallel::after_fork(false);
}

#[cfg(unix)]
extern "C" fn child() {
    super::cpu::parallel::after_fork(true);
    super::wgpu::context::after_fork_in_child();
}
