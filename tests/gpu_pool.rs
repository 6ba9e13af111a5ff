//! The buffer pool and lazy submission, alone in their own test binary so that no other test
//! allocates or submits meanwhile.

use gradrs::backend::wgpu::{self as gpu, GpuBuffer};

#[test]
fn pool_reuses_buffers_and_ops_batch_until_read_back() {
    // A software adapter (lavapipe) counts here unless the environment says otherwise; this
    // binary's only test, so no other thread reads the environment meanwhile.
    if std::env::var_os(gpu::SOFTWARE_VAR).is_none() {
        std::env::set_var(gpu::SOFTWARE_VAR, "1");
    }
    if let Err(e) = gpu::device_name() {
        eprintln!("skipping GPU pool test: {e}");
        return;
    }
    assert_eq!(gpu::memory_allocated(), 0);
    let x = GpuBuffer::upload(&[1.0; 1000]).unwrap();
    // 1000 floats round up to the 4 KiB class.
    assert_eq!(gpu::memory_allocated(), 4096);

    // Many dispatches, one submit: nothing is sent until the read-back.
    gpu::synchronize().unwrap();
    let before = gpu::submit_count();
    let mut y = gpu::unary("exp(v)", &x, 0, 1000).unwrap();
    for _ in 0..20 {
        y = gpu::unary("-v", &y, 0, 1000).unwrap();
    }
    assert_eq!(gpu::submit_count(), before);
    let got = y.download().unwrap();
    assert_eq!(gpu::submit_count(), before + 1);
    assert!(got.iter().all(|&v| (v - std::f32::consts::E).abs() < 1e-6));

    // Freed buffers stay reserved and are handed out again.
    drop(y);
    assert_eq!(gpu::memory_allocated(), 4096);
    let reserved = gpu::memory_reserved();
    assert!(reserved > 4096);
    let z = GpuBuffer::upload(&[2.0; 900]).unwrap();
    assert_eq!(
        gpu::memory_reserved(),
        reserved,
        "a cached buffer was reused"
    );
    assert_eq!(z.download().unwrap(), vec![2.0; 900]);

    // A buffer freed while work that reads it is still pending keeps its contents for that work.
    let a = GpuBuffer::upload(&[3.0; 1000]).unwrap();
    let b = gpu::unary("v * v", &a, 0, 1000).unwrap();
    drop(a);
    let c = GpuBuffer::upload(&[5.0; 1000]).unwrap(); // likely a's old buffer
    assert_eq!(b.download().unwrap(), vec![9.0; 1000]);
    assert_eq!(c.download().unwrap(), vec![5.0; 1000]);

    drop((x, z, b, c));
    assert_eq!(gpu::memory_allocated(), 0);
    gpu::empty_cache();
    assert_eq!(gpu::memory_reserved(), 0);

    // Fused, values dropped before anything needs them are never computed (Note [Elementwise
    // fusion]).
    let x = GpuBuffer::upload(&[1.0; 4]).unwrap();
    gpu::synchronize().unwrap();
    let before = gpu::dispatch_count();
    for _ in 0..gpu::context::BATCH_LIMIT {
        drop(gpu::unary("-v", &x, 0, 4).unwrap());
    }
    assert_eq!(gpu::dispatch_count(), before);

    // Unfused, past the batch limit, recorded work is submitted without a read-back.
    let fused = gpu::set_fusion(false);
    let before = gpu::submit_count();
    for _ in 0..gpu::context::BATCH_LIMIT {
        drop(gpu::unary("-v", &x, 0, 4).unwrap());
    }
    assert_eq!(gpu::submit_count(), before + 1);
    gpu::set_fusion(fused);
}
