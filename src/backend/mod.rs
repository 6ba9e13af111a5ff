//! Primitive kernels per device: a small closed set that every op is composed from.

pub mod cpu;
pub mod fork;
pub mod wgpu;
