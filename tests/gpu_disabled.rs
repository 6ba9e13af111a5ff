//! GRADRS_GPU_DISABLE hides every adapter: the no-GPU path, testable on any machine. Its own
//! test binary, because the context is created once per process.

use gradrs::backend::wgpu::{self as gpu, GpuBuffer, DISABLE_VAR};

#[test]
fn disabled_gpu_is_an_error_not_a_crash() {
    std::env::set_var(DISABLE_VAR, "1");
    assert!(!gpu::is_available());
    let e = gpu::device_name().unwrap_err().to_string();
    assert!(e.contains("no Vulkan/Metal/DX12 adapter found"), "{e}");
    assert!(e.contains("mesa-vulkan-drivers"), "{e}");
    // The hint names the variable that lets a software adapter such as lavapipe count.
    assert!(e.contains(&format!("{}=1", gpu::SOFTWARE_VAR)), "{e}");
    assert!(GpuBuffer::upload(&[1.0]).is_err());
    assert!(gpu::synchronize().is_err());
    gpu::empty_cache();
    assert_eq!(gpu::memory_allocated(), 0);
    assert_eq!(gpu::memory_reserved(), 0);
}
