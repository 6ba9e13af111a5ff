//! Grad mode and inference mode: thread-local, as in PyTorch (`no_grad` in one thread does not
//! affect another).
//!
//! Note [Inference mode]: PyTorch's `c10::InferenceMode` turns grad mode off and excludes the
//! autograd dispatch keys, so inside it nothing is recorded even if grad mode is switched back
//! on (`enable_grad` inside `inference_mode`). Both flags live in one thread-local byte, so the
//! question every op asks, "does autograd run here?" (`is_grad_enabled`), is one read.
//! Tensors allocated inside are inference tensors (`Tensor::is_inference`): they keep no
//! version counter, may not be saved for backward, and may not be modified in place outside
//! inference mode; views of normal tensors made inside stay normal.

use std::cell::Cell;

const GRAD: u8 = 1;
const INFERENCE: u8 = 2;

thread_local! {
    static MODE: Cell<u8> = const { Cell::new(GRAD) };
}

/// Whether autograd records here: grad mode on and not in inference mode. Ops ask this.
#[inline]
pub fn is_grad_enabled() -> bool {
    MODE.with(|m| m.get()) == GRAD
}

/// The grad-mode flag itself, as `torch.is_grad_enabled()` reports it.
#[inline]
pub fn grad_mode() -> bool {
    MODE.with(|m| m.get()) & GRAD != 0
}

pub fn set_grad_enabled(enabled: bool) {
    MODE.with(|m| {
        m.set(if enabled {
            m.get() | GRAD
        } else {
            m.get() & !GRAD
        })
    });
}

/// `torch.is_inference_mode_enabled()`.
#[inline]
pub fn is_inference_mode_enabled() -> bool {
    MODE.with(|m| m.get()) & INFERENCE != 0
}

/// `c10::InferenceMode(enabled)` without the guard: grad mode becomes `!enabled`, inference
/// mode `enabled`. Returns the previous state for `restore_mode`.
pub fn enter_inference_mode(enabled: bool) -> u8 {
    MODE.with(|m| m.replace(if enabled { INFERENCE } else { GRAD }))
}

/// Put back a state returned by `enter_inference_mode` (or `mode_state`).
pub fn restore_mode(state: u8) {
    MODE.with(|m| m.set(state & (GRAD | INFERENCE)));
}

/// Sets grad mode for a scope and restores the previous mode on drop.
pub struct GradModeGuard {
    prev: bool,
}

impl GradModeGuard {
    pub fn new(enabled: bool) -> GradModeGuard {
        let prev = grad_mode();
        set_grad_enabled(enabled);
        GradModeGuard { prev }
    }
}

impl Drop for GradModeGuard {
    fn drop(&mut self) {
        set_grad_enabled(self.prev);
    }
}

/// Inference mode for a scope (PyTorch's `c10::InferenceMode` guard).
pub struct InferenceMode {
    prev: u8,
}

impl InferenceMode {
    pub fn new(enabled: bool) -> InferenceMode {
        InferenceMode {
            prev: enter_inference_mode(enabled),
        }
    }
}

impl Drop for InferenceMode {
    fn drop(&mut self) {
        restore_mode(self.prev);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inference_mode_turns_recording_off_even_with_grad_mode_on() {
        assert!(is_grad_enabled() && grad_mode() && !is_inference_mode_enabled());
        {
            let _g = InferenceMode::new(true);
            assert!(!is_grad_enabled() && !grad_mode() && is_inference_mode_enabled());
            set_grad_enabled(true);
            assert!(grad_mode() && !is_grad_enabled());
            {
                let _n = InferenceMode::new(false);
                assert!(is_grad_enabled() && !is_inference_mode_enabled());
            }
            assert!(grad_mode() && is_inference_mode_enabled());
        }
        assert!(is_grad_enabled() && !is_inference_mode_enabled());
    }
}
