//! Grad mode: thread-local, as in PyTorch (`no_grad` in one thread does not affect another).

use std::cell::Cell;

thread_local! {
    static GRAD_ENABLED: Cell<bool> = const { Cell::new(true) };
}

pub fn is_grad_enabled() -> bool {
    GRAD_ENABLED.with(|g| g.get())
}

pub fn set_grad_enabled(enabled: bool) {
    GRAD_ENABLED.with(|g| g.set(enabled));
}

/// Sets grad mode for a scope and restores the previous mode on drop.
pub struct GradModeGuard {
    prev: bool,
}

impl GradModeGuard {
    pub fn new(enabled: bool) -> GradModeGuard {
        let prev = is_grad_enabled();
        set_grad_enabled(enabled);
        GradModeGuard { prev }
    }
}

impl Drop for GradModeGuard {
    fn drop(&mut self) {
        set_grad_enabled(self.prev);
    }
}
