//! `gradrs.gpu` / `gradrs.cuda`: queries on the wgpu context GPU tensors run on (and start it).

use crate::backend::wgpu as gpu;
use pyo3::prelude::*;

/// Whether a Vulkan/Metal/DX12 adapter exists (opens the device on first call). Releases the
/// GIL: starting a device can take a while.
#[pyfunction]
fn _gpu_is_available(py: Python<'_>) -> bool {
    py.detach(gpu::is_available)
}

#[pyfunction]
fn _gpu_device_name(py: Python<'_>) -> PyResult<String> {
    Ok(py.detach(gpu::device_name)?)
}

#[pyfunction]
fn _gpu_synchronize(py: Python<'_>) -> PyResult<()> {
    Ok(py.detach(gpu::synchronize)?)
}

#[pyfunction]
fn _gpu_empty_cache() {
    gpu::empty_cache()
}

#[pyfunction]
fn _gpu_memory_allocated() -> u64 {
    gpu::memory_allocated()
}

#[pyfunction]
fn _gpu_max_memory_allocated() -> u64 {
    gpu::max_memory_allocated()
}

#[pyfunction]
fn _gpu_reset_peak_memory_stats() {
    gpu::reset_peak_memory_stats()
}

#[pyfunction]
fn _gpu_memory_reserved() -> u64 {
    gpu::memory_reserved()
}

/// `(downloads, uploads)` of GPU storages' host copies (see `transfer_counts`).
#[pyfunction]
fn _gpu_transfer_counts() -> (u64, u64) {
    crate::tensor::device::transfer_counts()
}

/// Compute dispatches recorded so far (tests count an op's kernels).
#[pyfunction]
fn _gpu_dispatch_count() -> u64 {
    crate::backend::wgpu::dispatch_count()
}

/// Turns the fusion of elementwise GPU kernels on or off (`GRADRS_GPU_FUSION=0` starts with
/// it off); returns whether it was on. Tests compare fused results with unfused ones.
#[pyfunction]
fn _gpu_set_fusion(enabled: bool) -> bool {
    gpu::set_fusion(enabled)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_gpu_is_available, m)?)?;
    m.add_function(wrap_pyfunction!(_gpu_device_name, m)?)?;
    m.add_function(wrap_pyfunction!(_gpu_synchronize, m)?)?;
    m.add_function(wrap_pyfunction!(_gpu_empty_cache, m)?)?;
    m.add_function(wrap_pyfunction!(_gpu_memory_allocated, m)?)?;
    m.add_function(wrap_pyfunction!(_gpu_max_memory_allocated, m)?)?;
    m.add_function(wrap_pyfunction!(_gpu_reset_peak_memory_stats, m)?)?;
    m.add_function(wrap_pyfunction!(_gpu_memory_reserved, m)?)?;
    m.add_function(wrap_pyfunction!(_gpu_transfer_counts, m)?)?;
    m.add_function(wrap_pyfunction!(_gpu_dispatch_count, m)?)?;
    m.add_function(wrap_pyfunction!(_gpu_set_fusion, m)?)?;
    Ok(())
}
