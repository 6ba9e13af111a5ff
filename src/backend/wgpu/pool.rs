//! A size-class pool of storage buffers: freed buffers wait in a free list for the next request
//! of their class instead of going back to the driver (allocation is slow on every backend).

use std::collections::HashMap;

/// The smallest class: also keeps zero-length tensors bindable (a binding may not be empty).
const MIN_CLASS: u64 = 256;
/// Past this, classes are multiples of it rather than powers of two, so a large tensor wastes
/// at most 2 MiB instead of up to half its size.
const LARGE_STEP: u64 = 2 << 20;

/// The size, in bytes, of the buffer that serves a request of `bytes`.
pub fn size_class(bytes: u64) -> u64 {
    if bytes <= MIN_CLASS {
        MIN_CLASS
    } else if bytes <= LARGE_STEP {
        bytes.next_power_of_two()
    } else {
        bytes.div_ceil(LARGE_STEP) * LARGE_STEP
    }
}

/// Free buffers by class, and the byte counts behind `memory_allocated` / `memory_reserved`.
#[derive(Default)]
pub struct Pool {
    free: HashMap<u64, Vec<::wgpu::Buffer>>,
    /// Bytes in buffers handed out and not yet returned (class sizes, as PyTorch counts blocks).
    pub allocated: u64,
    /// Bytes in buffers waiting in the free lists.
    pub cached: u64,
    /// The most `allocated` has been since start-up or the last `reset_peak`.
    pub peak: u64,
}

impl Pool {
    /// A free buffer of class `class`, if one waits.
    pub fn take(&mut self, class: u64) -> Option<::wgpu::Buffer> {
        let buf = self.free.get_mut(&class)?.pop()?;
        self.cached -= class;
        self.count_new(class);
        Some(buf)
    }

    /// Counts a freshly created buffer of class `class` as handed out.
    pub fn count_new(&mut self, class: u64) {
        self.allocated += class;
        self.peak = self.peak.max(self.allocated);
    }

    /// Starts the peak over from the bytes allocated now.
    pub fn reset_peak(&mut self) {
        self.peak = self.allocated;
    }

    /// Takes back a buffer of class `class` for reuse.
    pub fn give_back(&mut self, class: u64, buf: ::wgpu::Buffer) {
        self.allocated -= class;
        self.cached += class;
        self.free.entry(class).or_default().push(buf);
    }

    /// Drops every free buffer; wgpu destroys each once the GPU no longer uses it.
    pub fn clear(&mut self) {
        self.free.clear();
        self.cached = 0;
    }

    pub fn reserved(&self) -> u64 {
        self.allocated + self.cached
    }
}

#[cfg(test)]
mod tests {
    use super::size_class;

    #[test]
    fn classes_round_up() {
        assert_eq!(size_class(0), 256);
        assert_eq!(size_class(4), 256);
        assert_eq!(size_class(257), 512);
        assert_eq!(size_class(1 << 20), 1 << 20);
        assert_eq!(size_class((1 << 20) + 1), 2 << 20);
        assert_eq!(size_class((2 << 20) + 1), 4 << 20);
        assert_eq!(size_class((4 << 20) + 1), 6 << 20);
    }
}
