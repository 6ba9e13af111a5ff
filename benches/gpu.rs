//! GPU kernel throughput on the wgpu adapter (lavapipe without a GPU): f32 matmul GFLOP/s,
//! small-op dispatch rate, and a one-element read-back's round trip.
//! Run: `cargo bench --bench gpu` (sizes: `cargo bench --bench gpu -- 512 2048`).

use gradrs::backend::wgpu::{self as gpu, GpuBuffer, MatView};
use std::time::Instant;

fn main() {
    // Measure lavapipe too unless the environment says otherwise (still one thread here).
    if std::env::var_os(gpu::SOFTWARE_VAR).is_none() {
        std::env::set_var(gpu::SOFTWARE_VAR, "1");
    }
    match gpu::device_name() {
        Ok(name) => println!("adapter: {name}"),
        Err(e) => {
            println!("skipping the GPU benchmark: {e}");
            return;
        }
    }
    let mut sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    if sizes.is_empty() {
        sizes = vec![256, 512, 1024];
    }
    for s in sizes {
        let data: Vec<f32> = (0..s * s).map(|i| ((i % 17) as f32 - 8.0) / 8.0).collect();
        let a = GpuBuffer::upload(&data).expect("upload");
        let v = MatView::contiguous(s, s);
        // Warm-up: compiles the pipeline and fills the pool.
        for tiles in [gpu::MmTiles::Large, gpu::MmTiles::Small] {
            gpu::matmul_tiled(tiles, &a, v, &a, v, 1, s, s, s).expect("matmul");
            gpu::synchronize().expect("sync");
            let mut reps = 1;
            loop {
                let t = Instant::now();
                for _ in 0..reps {
                    gpu::matmul_tiled(tiles, &a, v, &a, v, 1, s, s, s).expect("matmul");
                }
                gpu::synchronize().expect("sync");
                let dt = t.elapsed().as_secs_f64();
                if dt > 0.5 || reps >= 1 << 12 {
                    let gflops = 2.0 * (s as f64).powi(3) * reps as f64 / dt / 1e9;
                    println!("matmul {s}x{s}x{s} {tiles:?}: {gflops:.1} GFLOP/s ({reps} reps, {dt:.2} s)");
                    break;
                }
                reps *= 2;
            }
        }
    }

    let x = GpuBuffer::upload(&[1.0; 1024]).expect("upload");
    let n = 2000;
    gpu::unary("-v", &x, 0, 1024).expect("unary");
    gpu::synchronize().expect("sync");
    let t = Instant::now();
    for _ in 0..n {
        gpu::unary("-v", &x, 0, 1024).expect("unary");
    }
    gpu::synchronize().expect("sync");
    let rate = n as f64 / t.elapsed().as_secs_f64();
    println!("dispatch rate (neg over 1024 floats): {rate:.0} ops/s");

    let reps = 200;
    let t = Instant::now();
    for _ in 0..reps {
        let y = gpu::unary("-v", &x, 0, 1).expect("unary");
        y.download().expect("download");
    }
    let us = t.elapsed().as_secs_f64() / reps as f64 * 1e6;
    println!("one-element op + read-back round trip: {us:.0} us");
}
