//! The wgpu backend's kernels against the CPU kernels. Shader validation always runs; the
//! kernel tests run on whatever adapter exists (lavapipe in CI) and skip, saying why, on a
//! machine without one.

use gradrs::backend::cpu;
use gradrs::backend::wgpu::{
    self as gpu, BinaryOp, GpuBuffer, MatView, ReduceOp, UnaryOp, View, SHADERS,
};
use gradrs::tensor::Layout;

#[test]
fn shaders_validate_with_naga() {
    for (name, src) in SHADERS {
        let module = naga::front::wgsl::parse_str(src)
            .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(src)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::empty(),
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(src)));
        let doc = src.lines().next().unwrap_or("");
        assert!(
            doc.starts_with("// "),
            "{name} must open with a comment on what it does"
        );
        assert!(
            src.contains("Bindings"),
            "{name} must document its bindings"
        );
    }
}

fn have_gpu() -> bool {
    match gpu::device_name() {
        Ok(name) => {
            eprintln!("GPU tests on {name}");
            true
        }
        Err(e) => {
            eprintln!("skipping GPU kernel test: {e}");
            false
        }
    }
}

/// A deterministic spread of values in [lo, hi].
fn values(n: usize, lo: f32, hi: f32, seed: u32) -> Vec<f32> {
    let mut s = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            lo + (hi - lo) * (s as f32 / u32::MAX as f32)
        })
        .collect()
}

fn assert_close(what: &str, got: &[f32], want: &[f32], rtol: f32, atol: f32) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let ok = (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= atol + rtol * w.abs();
        assert!(ok, "{what}[{i}]: GPU {g} vs CPU {w}");
    }
}

fn cpu_unary(op: UnaryOp) -> fn(f32) -> f32 {
    match op {
        UnaryOp::Neg => |v| -v,
        UnaryOp::Exp => f32::exp,
        UnaryOp::Log => f32::ln,
        UnaryOp::Sin => f32::sin,
        UnaryOp::Cos => f32::cos,
        UnaryOp::Tan => f32::tan,
        UnaryOp::Tanh => f32::tanh,
        UnaryOp::Sigmoid => |v| 1.0 / (1.0 + (-v).exp()),
        UnaryOp::Relu => |v| if v < 0.0 { 0.0 } else { v },
        UnaryOp::Sqrt => f32::sqrt,
        UnaryOp::Rsqrt => |v| 1.0 / v.sqrt(),
        UnaryOp::Abs => f32::abs,
        UnaryOp::Reciprocal => |v| 1.0 / v,
        UnaryOp::Square => |v| v * v,
        UnaryOp::Floor => f32::floor,
        UnaryOp::Ceil => f32::ceil,
        UnaryOp::Round => f32::round_ties_even,
        UnaryOp::Trunc => f32::trunc,
        UnaryOp::Log1p => f32::ln_1p,
        UnaryOp::Expm1 => f32::exp_m1,
        UnaryOp::Log2 => f32::log2,
        UnaryOp::Exp2 => f32::exp2,
        UnaryOp::Sign => |v| {
            if v.is_nan() {
                v
            } else {
                f32::from(v > 0.0) - f32::from(v < 0.0)
            }
        },
        UnaryOp::Asin => f32::asin,
        UnaryOp::Acos => f32::acos,
        UnaryOp::Atan => f32::atan,
        UnaryOp::Sinh => f32::sinh,
        UnaryOp::Cosh => f32::cosh,
        UnaryOp::Log10 => f32::log10,
        UnaryOp::Frac => |v| v - v.trunc(),
    }
}

#[test]
fn unary_matches_cpu() {
    if !have_gpu() {
        return;
    }
    for op in UnaryOp::ALL {
        let (lo, hi) = match op {
            UnaryOp::Log | UnaryOp::Sqrt | UnaryOp::Rsqrt | UnaryOp::Log2 => (0.01, 50.0),
            UnaryOp::Log1p => (-0.9, 10.0),
            UnaryOp::Tan => (-1.2, 1.2),
            UnaryOp::Exp | UnaryOp::Exp2 | UnaryOp::Expm1 => (-20.0, 20.0),
            _ => (-30.0, 30.0),
        };
        let mut x = values(1000, lo, hi, op as u32);
        // Edge values: tiny arguments (log1p/expm1 precision), halves (rounding), big tanh.
        x.extend([1e-7, -1e-7, 2.5, -2.5, 0.5, 20.0]);
        if matches!(
            op,
            UnaryOp::Log | UnaryOp::Sqrt | UnaryOp::Rsqrt | UnaryOp::Log2
        ) {
            x.iter_mut().for_each(|v| *v = v.abs().max(1e-6));
        }
        let want = cpu::elementwise::map_slice(&x, cpu_unary(op));
        // Read through an offset, as a view into a larger buffer would be.
        let mut padded = vec![7.0; 3];
        padded.extend(&x);
        let buf = GpuBuffer::upload(&padded).unwrap();
        let got = gpu::unary(op, &buf, 3, x.len())
            .unwrap()
            .download()
            .unwrap();
        let exact = matches!(
            op,
            UnaryOp::Neg
                | UnaryOp::Abs
                | UnaryOp::Relu
                | UnaryOp::Square
                | UnaryOp::Floor
                | UnaryOp::Ceil
                | UnaryOp::Round
                | UnaryOp::Trunc
        );
        let (rtol, atol) = if exact { (0.0, 0.0) } else { (2e-5, 1e-6) };
        assert_close(&format!("{op:?}"), &got, &want, rtol, atol);
    }
    // NaN passes through relu as in PyTorch.
    let buf = GpuBuffer::upload(&[f32::NAN, -1.0]).unwrap();
    let got = gpu::unary(UnaryOp::Relu, &buf, 0, 2)
        .unwrap()
        .download()
        .unwrap();
    assert!(got[0].is_nan() && got[1] == 0.0);
}

fn cpu_binary(op: BinaryOp) -> fn(f32, f32) -> f32 {
    fn b(c: bool) -> f32 {
        if c {
            1.0
        } else {
            0.0
        }
    }
    match op {
        BinaryOp::Add => |x, y| x + y,
        BinaryOp::Sub => |x, y| x - y,
        BinaryOp::Mul => |x, y| x * y,
        BinaryOp::Div => |x, y| x / y,
        BinaryOp::Pow => f32::powf,
        BinaryOp::Maximum => |x, y| {
            if x.is_nan() || y.is_nan() {
                f32::NAN
            } else {
                x.max(y)
            }
        },
        BinaryOp::Minimum => |x, y| {
            if x.is_nan() || y.is_nan() {
                f32::NAN
            } else {
                x.min(y)
            }
        },
        BinaryOp::Eq => |x, y| b(x == y),
        BinaryOp::Ne => |x, y| b(x != y),
        BinaryOp::Lt => |x, y| b(x < y),
        BinaryOp::Le => |x, y| b(x <= y),
        BinaryOp::Gt => |x, y| b(x > y),
        BinaryOp::Ge => |x, y| b(x >= y),
    }
}

fn layout(shape: &[usize], strides: &[usize], offset: usize) -> Layout {
    Layout {
        shape: shape.into(),
        strides: strides.iter().map(|&s| s as isize).collect(),
        offset,
    }
}

#[test]
fn binary_broadcasts_like_cpu() {
    if !have_gpu() {
        return;
    }
    // a: [3, 1, 5] read from offset 2; b: [4, 5] stored transposed (strides [1, 4]).
    let out_shape = [3, 4, 5];
    let (sa, sb) = ([5, 5, 1], [1, 4]);
    for op in BinaryOp::ALL {
        let (mut a, mut b) = (values(17, -3.0, 3.0, 1), values(20, -3.0, 3.0, 2));
        if op == BinaryOp::Pow {
            // Integer exponents, so negative bases stay real; 0^0 and a fractional power too.
            b.iter_mut().for_each(|v| *v = v.round());
            a[2] = 0.0;
            b[0] = 0.0;
            b[5] = 0.5;
        }
        // Ties and a NaN exercise comparisons and NaN propagation.
        a[3] = b[1];
        if matches!(op, BinaryOp::Maximum | BinaryOp::Minimum | BinaryOp::Add) {
            a[4] = f32::NAN;
        }
        let (la, lb) = (layout(&[3, 1, 5], &sa, 2), layout(&[4, 5], &sb, 0));
        let want = cpu::elementwise::binary(&a, &la, &b, &lb, &out_shape, cpu_binary(op));
        let (ga, gb) = (
            GpuBuffer::upload(&a).unwrap(),
            GpuBuffer::upload(&b).unwrap(),
        );
        let va = View {
            shape: &[3, 1, 5],
            strides: &sa,
            offset: 2,
        };
        let vb = View {
            shape: &[4, 5],
            strides: &sb,
            offset: 0,
        };
        let got = gpu::binary(op, &ga, &va, &gb, &vb, &out_shape).unwrap();
        let rtol = if op == BinaryOp::Pow { 2e-5 } else { 1e-6 };
        assert_close(
            &format!("{op:?}"),
            &got.download().unwrap(),
            &want,
            rtol,
            0.0,
        );
    }
    // Shapes that do not broadcast are an error, not a panic.
    let x = GpuBuffer::upload(&[1.0; 6]).unwrap();
    let v3 = View {
        shape: &[3],
        strides: &[1],
        offset: 0,
    };
    let v2 = View {
        shape: &[2],
        strides: &[1],
        offset: 0,
    };
    assert!(gpu::binary(BinaryOp::Add, &x, &v3, &x, &v2, &[3]).is_err());
}

#[test]
fn large_grids_use_2d_dispatch() {
    if !have_gpu() {
        return;
    }
    // More than 65,535 workgroups of 256 elements.
    let n = 65_536 * 256 + 77;
    let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32).collect();
    let buf = GpuBuffer::upload(&x).unwrap();
    let got = gpu::unary(UnaryOp::Neg, &buf, 0, n)
        .unwrap()
        .download()
        .unwrap();
    assert!(
        got.iter().zip(&x).all(|(g, v)| *g == -v),
        "neg over {n} elements"
    );
    drop((got, buf));
    // More than 65,535 reduced rows (one workgroup each).
    let rows = 70_001;
    let x: Vec<f32> = (0..rows * 3).map(|i| (i % 7) as f32).collect();
    let buf = GpuBuffer::upload(&x).unwrap();
    let got = gpu::reduce(ReduceOp::Sum, &buf, 0, rows, 3, 1)
        .unwrap()
        .download()
        .unwrap();
    let want: Vec<f32> = x.chunks(3).map(|c| c.iter().sum()).collect();
    assert_eq!(got, want);
}

#[test]
fn reductions_match_cpu() {
    if !have_gpu() {
        return;
    }
    let (outer, red, inner) = (7, 1000, 3);
    let mut x = values(outer * red * inner + 5, -2.0, 2.0, 9);
    x[5 + 11 * inner + 1] = f32::NAN; // in output (0, 1)'s run... offset 5, r = 11, j = 1
    let l = layout(&[outer, red, inner], &[red * inner, inner, 1], 5);
    let buf = GpuBuffer::upload(&x).unwrap();
    let sums = cpu::reduce::sum_dims(&x, &l, &[1]);
    let fold = |init: f32, f: fn(f32, f32) -> f32| {
        cpu::reduce::reduce_rows(&x, &l, &[1], move |run: &[f32]| {
            run.iter().fold(init, |acc, &v| {
                if acc.is_nan() || v.is_nan() {
                    f32::NAN
                } else {
                    f(acc, v)
                }
            })
        })
    };
    let cases = [
        (ReduceOp::Sum, sums.clone()),
        (
            ReduceOp::Mean,
            sums.iter().map(|s| s / red as f32).collect(),
        ),
        (ReduceOp::Max, fold(f32::NEG_INFINITY, f32::max)),
        (ReduceOp::Min, fold(f32::INFINITY, f32::min)),
    ];
    for (op, want) in cases {
        let got = gpu::reduce(op, &buf, 5, outer, red, inner)
            .unwrap()
            .download()
            .unwrap();
        assert!(got[1].is_nan(), "{op:?} propagates NaN");
        assert_close(&format!("{op:?}"), &got, &want, 1e-5, 1e-4);
    }
    // An empty max is an error; an empty sum is zero.
    let empty = gpu::reduce(ReduceOp::Max, &buf, 0, 2, 0, 1);
    assert!(empty.is_err());
    let zero = gpu::reduce(ReduceOp::Sum, &buf, 0, 2, 0, 1)
        .unwrap()
        .download()
        .unwrap();
    assert_eq!(zero, [0.0, 0.0]);
}

#[test]
fn matmul_matches_cpu() {
    if !have_gpu() {
        return;
    }
    // Sizes off the 64-wide tiles and 16-deep k-steps; A transposed in memory, B shared by the
    // batch (batch stride 0).
    let (batch, m, k, n) = (3, 70, 33, 130);
    let a = values(batch * m * k, -1.0, 1.0, 3);
    let b = values(k * n + 4, -1.0, 1.0, 4);
    let va = MatView {
        offset: 0,
        bs: m * k,
        rs: 1,
        cs: m,
    };
    let vb = MatView {
        offset: 4,
        bs: 0,
        rs: n,
        cs: 1,
    };
    let mat = |v: MatView| cpu::matmul::Mat {
        offset: v.offset,
        rs: v.rs as isize,
        cs: v.cs as isize,
    };
    let want = cpu::matmul::matmul(&a, mat(va), va.bs as isize, &b, mat(vb), 0, batch, m, k, n);
    let (ga, gb) = (
        GpuBuffer::upload(&a).unwrap(),
        GpuBuffer::upload(&b).unwrap(),
    );
    let got = gpu::matmul(&ga, va, &gb, vb, batch, m, k, n)
        .unwrap()
        .download()
        .unwrap();
    assert_close("matmul", &got, &want, 1e-5, 1e-5 * k as f32);
    // k = 0 gives zeros; an operand too short for its view is an error.
    let z = gpu::matmul(&ga, va, &gb, vb, 1, 2, 0, 2)
        .unwrap()
        .download()
        .unwrap();
    assert_eq!(z, [0.0; 4]);
    let too_long = MatView::contiguous(1000, 1000);
    assert!(gpu::matmul(&ga, too_long, &gb, vb, 1, 1000, 1000, 2).is_err());
}

#[test]
fn dtypes_are_checked() {
    if !have_gpu() {
        return;
    }
    assert!(gpu::check_dtype(gradrs::DType::F32).is_ok());
    let e = gpu::check_dtype(gradrs::DType::F64)
        .unwrap_err()
        .to_string();
    assert!(e.contains("float64"), "{e}");
    assert_eq!(
        gpu::narrow_i64(&[1, -5, i32::MAX as i64]).unwrap(),
        [1, -5, i32::MAX]
    );
    let e = gpu::narrow_i64(&[1 << 40]).unwrap_err().to_string();
    assert!(e.contains("does not fit"), "{e}");
}

/// Each dispatch's parameters sit in their own slot of a per-batch uniform arena, and copies
/// end the shared compute pass: a chain past two batch limits, each step with its own
/// parameters and uploads in between, must read exactly what the host computes.
#[test]
fn parameters_and_passes_hold_across_batches() {
    if !have_gpu() {
        return;
    }
    let steps = 2 * gpu::context::BATCH_LIMIT + 50;
    let mut host: Vec<f32> = (0..steps + 100).map(|i| i as f32).collect();
    let mut y = GpuBuffer::upload(&host).unwrap();
    let mut uploads = Vec::new();
    for i in 0..steps {
        // Drop the first element and negate: offset 1, length one less each step.
        y = gpu::unary(UnaryOp::Neg, &y, 1, host.len() - 1).unwrap();
        host = host[1..].iter().map(|v| -v).collect();
        if i % 97 == 0 {
            let v = vec![i as f32; 3];
            uploads.push((GpuBuffer::upload(&v).unwrap(), v));
        }
    }
    assert_eq!(y.download().unwrap(), host);
    for (buf, want) in uploads {
        assert_eq!(buf.download().unwrap(), want);
    }
}

#[test]
fn copy_moves_strided_words_and_casts() {
    if !have_gpu() {
        return;
    }
    use gpu::{CopyOp, SView};
    // A 3x4 source read transposed and flipped along its columns (a negative stride).
    let x: Vec<f32> = (0..12).map(|i| i as f32 - 5.5).collect();
    let xb = GpuBuffer::upload(&x).unwrap();
    let out = xb.alloc_like(12).unwrap();
    let src = SView {
        shape: &[4, 3],
        strides: &[-1, 4],
        offset: 3,
    };
    let dst = SView {
        shape: &[4, 3],
        strides: &[3, 1],
        offset: 0,
    };
    gpu::copy(CopyOp::Same, &xb, &src, &out, &dst).unwrap();
    let want: Vec<f32> = (0..4)
        .flat_map(|i| (0..3).map(move |j| (3 - i) + 4 * j))
        .map(|k| x[k])
        .collect();
    assert_eq!(out.download().unwrap(), want);

    // Casts: float -> int truncates toward zero; int -> float; float/int -> bool (1.0 / 0.0).
    let n = [12];
    let c = SView {
        shape: &n,
        strides: &[1],
        offset: 0,
    };
    let ints = xb.alloc_like(12).unwrap();
    gpu::copy(CopyOp::FloatToInt, &xb, &c, &ints, &c).unwrap();
    let got: Vec<i32> = ints
        .download_words()
        .unwrap()
        .iter()
        .map(|&w| w as i32)
        .collect();
    assert_eq!(got, x.iter().map(|&v| v.trunc() as i32).collect::<Vec<_>>());
    let back = xb.alloc_like(12).unwrap();
    gpu::copy(CopyOp::IntToFloat, &ints, &c, &back, &c).unwrap();
    assert_eq!(
        back.download().unwrap(),
        x.iter().map(|v| v.trunc()).collect::<Vec<_>>()
    );
    let bools = xb.alloc_like(12).unwrap();
    gpu::copy(CopyOp::IntToBool, &ints, &c, &bools, &c).unwrap();
    let want: Vec<f32> = x.iter().map(|v| f32::from(v.trunc() != 0.0)).collect();
    assert_eq!(bools.download().unwrap(), want);

    // A view reaching outside its buffer is an error, not a GPU fault.
    let bad = SView {
        shape: &[13],
        strides: &[1],
        offset: 0,
    };
    assert!(gpu::copy(CopyOp::Same, &xb, &bad, &out, &bad).is_err());
}

#[test]
fn softmax_matches_cpu() {
    if !have_gpu() {
        return;
    }
    let (outer, red, inner) = (3, 300, 2); // rows longer than a workgroup, strided by inner
    let mut x = values(outer * red * inner, -20.0, 20.0, 7);
    x[5] = f32::NEG_INFINITY;
    let xb = GpuBuffer::upload(&x).unwrap();
    for log in [false, true] {
        let got = gpu::softmax(log, &xb, 0, outer, red, inner)
            .unwrap()
            .download()
            .unwrap();
        let mut want = vec![0f32; x.len()];
        for o in 0..outer {
            for j in 0..inner {
                let at = |r: usize| (o * red + r) * inner + j;
                let m = (0..red).map(|r| x[at(r)]).fold(f32::NEG_INFINITY, f32::max);
                let s: f64 = (0..red).map(|r| f64::from(x[at(r)] - m).exp()).sum();
                for r in 0..red {
                    let z = f64::from(x[at(r)] - m);
                    want[at(r)] = if log { z - s.ln() } else { z.exp() / s } as f32;
                }
            }
        }
        assert_close(&format!("softmax log={log}"), &got, &want, 1e-5, 1e-6);
    }
}
