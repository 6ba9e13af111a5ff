//! The wgpu backend's kernels against the CPU kernels. Shader validation always runs; the
//! kernel tests run on whatever adapter exists (lavapipe in CI) and skip, saying why, on a
//! machine without one.

use gradrs::backend::cpu;
use gradrs::backend::wgpu::{self as gpu, GpuBuffer, GpuDType, MatView, ReduceOp, ScanOp, View};
use gradrs::ops::binary_kernels_decl::{BinaryOp, CmpOp, DivModOp, ExtremumOp, LogicalOp};
use gradrs::ops::binary_math::BinaryMathOp;
use gradrs::ops::unary::UnaryOp;
use gradrs::tensor::Layout;

#[test]
fn shaders_validate_with_naga() {
    for (name, src) in gpu::shaders() {
        let src = &*src;
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

/// Whether an adapter exists; the first call lets a software one (lavapipe) count, unless the
/// environment says otherwise, so these tests run the kernels on a machine without a GPU.
/// Every test that opens the device goes through here, so the variable is set before any
/// thread reads it.
fn have_gpu() -> bool {
    static ALLOW_SOFTWARE: std::sync::Once = std::sync::Once::new();
    ALLOW_SOFTWARE.call_once(|| {
        if std::env::var_os(gpu::SOFTWARE_VAR).is_none() {
            std::env::set_var(gpu::SOFTWARE_VAR, "1");
        }
    });
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

/// A unary GPU expression under test: its name, the expression, a CPU reference, parameters.
type UnaryCase = (&'static str, &'static str, fn(f32) -> f32, [f32; 3]);

/// GPU expressions with parameters other than their declared defaults (clamp's and the
/// activations', declared ops), and those that are no declared op's (nan_to_num, square), with
/// a CPU reference that has the parameters built in.
fn parametric_unary() -> Vec<UnaryCase> {
    use gradrs::ops::clamp::NAN_TO_NUM_WGSL;
    vec![
        (
            "clamp",
            UnaryOp::Clamp.wgsl(),
            |v| v.clamp(-2.0, 3.0),
            [-2.0, 3.0, 0.0],
        ),
        (
            "leaky_relu",
            UnaryOp::LeakyRelu.wgsl(),
            |v| if v > 0.0 { v } else { 0.1 * v },
            [0.1, 0.0, 0.0],
        ),
        (
            "elu",
            UnaryOp::Elu.wgsl(),
            |v| if v > 0.0 { v } else { 1.5 * v.exp_m1() },
            [1.5, 1.0, 1.0],
        ),
        (
            "selu",
            UnaryOp::Elu.wgsl(),
            |v| {
                let (alpha, scale) = (1.673_263_2_f32, 1.050_701_f32);
                if v > 0.0 {
                    v * scale
                } else {
                    alpha * scale * (v * 0.5).exp_m1()
                }
            },
            [1.673_263_2, 1.050_701, 0.5],
        ),
        (
            "softplus",
            UnaryOp::Softplus.wgsl(),
            |v| {
                if 2.0 * v > 20.0 {
                    v
                } else {
                    (2.0 * v).exp().ln_1p() / 2.0
                }
            },
            [2.0, 20.0, 0.0],
        ),
        (
            "silu",
            UnaryOp::Silu.wgsl(),
            |v| v / (1.0 + (-v).exp()),
            [0.0; 3],
        ),
        (
            "gelu",
            UnaryOp::Gelu.wgsl(),
            |v| 0.5 * v * (1.0 + libm::erff(v * std::f32::consts::FRAC_1_SQRT_2)),
            [0.0; 3],
        ),
        (
            "gelu_tanh",
            UnaryOp::GeluTanh.wgsl(),
            |v| 0.5 * v * (1.0 + (0.797_884_6 * (v + 0.044715 * v * v * v)).tanh()),
            [0.0; 3],
        ),
        (
            "hardtanh",
            UnaryOp::Hardtanh.wgsl(),
            |v| v.clamp(-0.5, 2.0),
            [-0.5, 2.0, 0.0],
        ),
        (
            "nan_to_num",
            NAN_TO_NUM_WGSL,
            |v| {
                if v.is_nan() {
                    0.0
                } else if v == f32::INFINITY {
                    1e30
                } else if v == f32::NEG_INFINITY {
                    -1e30
                } else {
                    v
                }
            },
            [0.0, 1e30, -1e30],
        ),
        ("square", "v * v", |v| v * v, [0.0; 3]),
    ]
}

/// Every declared op's WGSL expression compiles into the generated unary shader.
#[test]
fn declared_unary_shaders_validate_with_naga() {
    let exprs = UnaryOp::ALL.iter().map(|op| (op.name(), op.wgsl()));
    let params = parametric_unary().into_iter().map(|(n, e, _, _)| (n, e));
    for (name, expr) in exprs.chain(params) {
        let src = gpu::context::Kernel::Unary.with_expr(expr);
        let module = naga::front::wgsl::parse_str(&src)
            .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(&src)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::empty(),
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(&src)));
    }
}

#[test]
fn unary_matches_cpu() {
    if !have_gpu() {
        return;
    }
    // The declared ops against their own declared CPU kernels (libm's and std's functions;
    // the GPU's exp and tanh against vmath's, which are within an ulp), then the parametric
    // expressions against references with their parameters.
    let declared = UnaryOp::ALL.iter().map(|&op| {
        // The declared defaults, as `unary_data_args` passes them.
        let args = op.gpu_args(op.defaults()).map(|a| a as f32);
        (op.name(), op.wgsl(), op.cpu_f32(), args)
    });
    let all: Vec<_> = declared.chain(parametric_unary()).collect();
    for (seed, (name, expr, cpu_f, args)) in all.into_iter().enumerate() {
        let (lo, hi) = match name {
            "log" | "sqrt" | "rsqrt" | "log2" | "log10" => (0.01, 50.0),
            "log1p" => (-0.9, 10.0),
            "tan" => (-1.2, 1.2),
            "exp" | "exp2" | "expm1" => (-20.0, 20.0),
            _ => (-30.0, 30.0),
        };
        // The values are drawn from the op's name, not its position in the table, so adding
        // an op does not move every later op's sample (onto a pole of digamma, say).
        let _ = seed;
        let seed = name.bytes().fold(2_166_136_261u32, |h, b| {
            (h ^ b as u32).wrapping_mul(16_777_619)
        });
        let mut x = values(1000, lo, hi, seed);
        if matches!(
            name,
            "digamma" | "trigamma" | "lgamma" | "polygamma" | "mvlgamma"
        ) {
            // Within 1e-2 of a pole (0, -1, -2, ...) both float32 reflections are
            // ill-conditioned and round differently: keep the sample off them.
            x.iter_mut()
                .filter(|v| **v <= 0.0 && (**v - v.round()).abs() < 1e-2)
                .for_each(|v| *v += 0.02);
        }
        // Edge values: tiny arguments (log1p/expm1 precision), halves (rounding), big tanh.
        x.extend([1e-7, -1e-7, 2.5, -2.5, 0.5, 20.0, 0.49, -0.51]);
        if name == "nan_to_num" {
            x.extend([f32::NAN, f32::INFINITY, f32::NEG_INFINITY]);
        }
        if matches!(name, "sin" | "cos") {
            // Arguments far from 0 (the shader reduces them itself) and non-finite ones.
            x.extend([
                100.0,
                -1000.25,
                12345.6,
                std::f32::consts::PI,
                f32::INFINITY,
                f32::NAN,
            ]);
        }
        if matches!(name, "log" | "sqrt" | "rsqrt" | "log2" | "log10") {
            x.iter_mut().for_each(|v| *v = v.abs().max(1e-6));
        }
        let want = cpu::elementwise::map_slice(&x, cpu_f);
        // Read through an offset, as a view into a larger buffer would be.
        let mut padded = vec![7.0; 3];
        padded.extend(&x);
        let buf = GpuBuffer::upload(&padded).unwrap();
        let got = gpu::unary_with(expr, &buf, 3, x.len(), args)
            .unwrap()
            .download()
            .unwrap();
        let exact = matches!(
            name,
            "neg"
                | "abs"
                | "relu"
                | "square"
                | "floor"
                | "ceil"
                | "round"
                | "trunc"
                | "clamp"
                | "clamp_min"
                | "clamp_max"
                | "hardtanh"
                | "nan_to_num"
                | "sign"
        );
        let (rtol, atol) = if exact { (0.0, 0.0) } else { (2e-5, 1e-6) };
        assert_close(name, &got, &want, rtol, atol);
    }
    // NaN passes through relu as in PyTorch.
    let buf = GpuBuffer::upload(&[f32::NAN, -1.0]).unwrap();
    let got = gpu::unary(UnaryOp::Relu.wgsl(), &buf, 0, 2)
        .unwrap()
        .download()
        .unwrap();
    assert!(
        got[0].is_nan() && got[1] == 0.0,
        "relu of [NaN, -1]: {got:?}"
    );
    // NaN passes through clamp, and a NaN bound gives NaN, as torch.clamp.
    let buf = GpuBuffer::upload(&[f32::NAN, 5.0]).unwrap();
    let got = gpu::unary_with(
        UnaryOp::Clamp.wgsl(),
        &buf,
        0,
        2,
        [f32::NEG_INFINITY, 1.0, 0.0],
    )
    .unwrap()
    .download()
    .unwrap();
    assert!(
        got[0].is_nan() && got[1] == 1.0,
        "clamp of [NaN, 5] to 1: {got:?}"
    );
    let got = gpu::unary_with(UnaryOp::Clamp.wgsl(), &buf, 1, 1, [f32::NAN, 1.0, 0.0])
        .unwrap()
        .download()
        .unwrap();
    assert!(got[0].is_nan(), "clamp of 5 to NaN: {got:?}");
}

/// Every declared binary kernel (`ops/binary_kernels_decl.rs`): name, WGSL expression, the
/// integer expression where there is one, and the float32 CPU kernel as the GPU's word.
type Kernel = (
    &'static str,
    &'static str,
    Option<&'static str>,
    fn(f32, f32) -> f32,
);

fn declared_kernels() -> Vec<Kernel> {
    macro_rules! rows {
        ($($E:ident),*) => {{
            let mut v: Vec<Kernel> = Vec::new();
            $(v.extend($E::ALL.iter().map(|&op| (op.name(), op.wgsl(), op.wgsl_int(), op.cpu_f32())));)*
            v
        }};
    }
    rows!(BinaryOp, CmpOp, LogicalOp, ExtremumOp, DivModOp)
}

fn layout(shape: &[usize], strides: &[usize], offset: usize) -> Layout {
    Layout {
        shape: shape.into(),
        strides: strides.iter().map(|&s| s as isize).collect(),
        offset,
    }
}

/// Every declared elementwise expression compiles inside a generated fused kernel (Note
/// [Elementwise fusion]): each op after itself (the second as float16), with each way of
/// reading a second operand, and all of them in one chain, the last value stored in place.
#[test]
fn fused_kernels_validate_with_naga() {
    let mut ops: Vec<(u8, &'static str, bool)> = UnaryOp::ALL
        .iter()
        .map(|op| (1, op.wgsl(), false))
        .collect();
    // (an op with no WGSL form, igamma, runs on the host)
    ops.extend(
        BinaryMathOp::ALL
            .iter()
            .filter(|op| !op.wgsl().is_empty())
            .map(|op| (2, op.wgsl(), false)),
    );
    ops.extend(declared_kernels().into_iter().map(|k| (2, k.1, false)));
    ops.extend(
        gpu::TernaryOp::ALL
            .iter()
            .map(|op| (3, op.fused_expr(), false)),
    );
    let validate = |what: &str, src: String| {
        let module = naga::front::wgsl::parse_str(&src)
            .unwrap_or_else(|e| panic!("{what}: {}", e.emit_to_string(&src)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::empty(),
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{what}: {}", e.emit_to_string(&src)));
    };
    for (i, &(arity, expr, _)) in ops.iter().enumerate() {
        let pair = [(arity, expr, false), (arity, expr, true)];
        validate(expr, gpu::fused_chain_source(&pair, i as u8));
    }
    for second in 0..3 {
        validate("all", gpu::fused_chain_source(&ops, second));
    }
}

/// Every declared binary op's WGSL expression compiles into the generated binary shader.
#[test]
fn declared_binary_shaders_validate_with_naga() {
    for op in BinaryMathOp::ALL.iter().filter(|op| !op.wgsl().is_empty()) {
        let src = gpu::context::Kernel::Binary.with_expr(op.wgsl());
        let module = naga::front::wgsl::parse_str(&src)
            .unwrap_or_else(|e| panic!("{}: {}", op.name(), e.emit_to_string(&src)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::empty(),
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{}: {}", op.name(), e.emit_to_string(&src)));
    }
    for (name, wgsl, int, _) in declared_kernels() {
        let kernel = gpu::context::Kernel::Binary;
        let mut sources = vec![kernel.with_expr(wgsl)];
        sources.extend(int.map(|e| kernel.with_int_expr(e)));
        for src in sources {
            let module = naga::front::wgsl::parse_str(&src)
                .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(&src)));
            naga::valid::Validator::new(
                naga::valid::ValidationFlags::all(),
                naga::valid::Capabilities::empty(),
            )
            .validate(&module)
            .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(&src)));
        }
    }
}

/// The declared binary ops' GPU expressions against their own declared CPU kernels, over a
/// broadcast, strided pair with NaN, infinities and zeros of both signs.
#[test]
fn declared_binary_matches_cpu() {
    if !have_gpu() {
        return;
    }
    let (sa, sb) = ([5, 5, 1], [1, 4]);
    for (seed, &op) in BinaryMathOp::ALL.iter().enumerate() {
        if op.wgsl().is_empty() {
            continue;
        }
        let (mut a, mut b) = (
            values(17, -3.0, 3.0, 10 + seed as u32),
            values(20, -3.0, 3.0, 40 + seed as u32),
        );
        a[..6].copy_from_slice(&[0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 1.0]);
        b[..5].copy_from_slice(&[-0.0, 2.0, f32::INFINITY, f32::NEG_INFINITY, 0.0]);
        let (la, lb) = (layout(&[3, 1, 5], &sa, 2), layout(&[4, 5], &sb, 0));
        let want = cpu::elementwise::binary(&a, &la, &b, &lb, &[3, 4, 5], op.cpu_f32());
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
        let got = gpu::binary(GpuDType::F32, op.wgsl(), &ga, &va, &gb, &vb, &[3, 4, 5])
            .unwrap()
            .download()
            .unwrap();
        assert_close(op.name(), &got, &want, 2e-6, 1e-7);
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
    for (name, wgsl, _, cpu_f32) in declared_kernels() {
        let (mut a, mut b) = (values(17, -3.0, 3.0, 1), values(20, -3.0, 3.0, 2));
        if name == "pow" {
            // Integer exponents, so negative bases stay real; 0^0 and a fractional power too.
            b.iter_mut().for_each(|v| *v = v.round());
            a[2] = 0.0;
            b[0] = 0.0;
            b[5] = 0.5;
        }
        // Ties and a NaN exercise comparisons and NaN propagation.
        a[3] = b[1];
        if matches!(
            name,
            "maximum" | "minimum" | "add" | "logical_and" | "logical_xor"
        ) {
            a[4] = f32::NAN;
        }
        if matches!(name, "fmod" | "remainder" | "div_floor") {
            // Quotients far past 2^24 (where x - y * trunc(x / y) rounds) and a zero divisor.
            a[5] = 1.2345e9;
            a[6] = -7.5e7;
            b[3] = 0.0;
        }
        if name.starts_with("logical_") {
            // Zeros (and a negative zero) on both sides.
            a[0] = 0.0;
            a[1] = -0.0;
            b[2] = 0.0;
        }
        let (la, lb) = (layout(&[3, 1, 5], &sa, 2), layout(&[4, 5], &sb, 0));
        let want = cpu::elementwise::binary(&a, &la, &b, &lb, &out_shape, cpu_f32);
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
        let got = gpu::binary(GpuDType::F32, wgsl, &ga, &va, &gb, &vb, &out_shape).unwrap();
        let rtol = if name == "pow" { 2e-5 } else { 1e-6 };
        assert_close(name, &got.download().unwrap(), &want, rtol, 0.0);
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
    assert!(gpu::binary(GpuDType::F32, "x + y", &x, &v3, &x, &v2, &[3]).is_err());
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
    let got = gpu::unary("-v", &buf, 0, n).unwrap().download().unwrap();
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

/// Runs past one workgroup's span reduce in two passes (reduce.wgsl): sums and means agree
/// with the CPU, and the index ops report the first extreme across sections, NaN first.
#[test]
fn long_runs_reduce_in_sections() {
    if !have_gpu() {
        return;
    }
    let (outer, red, inner) = (2, 3 * 65536 + 123, 2);
    // Few distinct values: the extreme recurs in every section; the first one must win.
    let mut x: Vec<f32> = values(outer * red * inner, -3.0, 3.0, 17)
        .iter()
        .map(|v| v.round())
        .collect();
    let at = |o: usize, r: usize, j: usize| (o * red + r) * inner + j;
    x[at(1, 70_000, 1)] = f32::NAN;
    x[at(1, 150_000, 1)] = f32::NAN;
    let l = layout(&[outer, red, inner], &[red * inner, inner, 1], 0);
    let buf = GpuBuffer::upload(&x).unwrap();
    let sums = cpu::reduce::sum_dims(&x, &l, &[1]);
    let got = gpu::reduce(ReduceOp::Sum, &buf, 0, outer, red, inner)
        .unwrap()
        .download()
        .unwrap();
    assert!(got[3].is_nan());
    assert_close("sum", &got, &sums, 1e-5, 1e-3);
    let means: Vec<f32> = sums.iter().map(|s| s / red as f32).collect();
    let got = gpu::reduce(ReduceOp::Mean, &buf, 0, outer, red, inner)
        .unwrap()
        .download()
        .unwrap();
    assert_close("mean", &got, &means, 1e-5, 1e-6);
    for (op, want) in [(ReduceOp::ArgMax, 3.0), (ReduceOp::ArgMin, -3.0)] {
        let (v, i) = gpu::reduce_arg(op, &buf, 0, outer, red, inner).unwrap();
        let (v, i) = (v.download().unwrap(), i.download_words().unwrap());
        for (out, (&got_i, &got_v)) in i.iter().zip(&v).enumerate() {
            let (o, j) = (out / inner, out % inner);
            let first = (0..red)
                .find(|&r| x[at(o, r, j)].is_nan())
                .or_else(|| (0..red).find(|&r| x[at(o, r, j)] == want))
                .unwrap();
            assert_eq!(got_i as usize, first, "{op:?} of run ({o}, {j})");
            assert!(got_v == x[at(o, first, j)] || got_v.is_nan());
        }
        assert_eq!(i[3], 70_000);
    }
}

#[test]
fn matmul_matches_cpu() {
    if !have_gpu() {
        return;
    }
    let mat = |v: MatView| cpu::matmul::Mat {
        offset: v.offset,
        rs: v.rs as isize,
        cs: v.cs as isize,
    };
    // Sizes off both tilings' tiles and k-steps; every orientation of A and B in memory (k
    // contiguous or not: the large kernel stages each differently), B shared by the batch.
    let (batch, m, k, n) = (3, 133, 37, 130);
    for (a_t, b_t) in [(false, false), (true, false), (false, true), (true, true)] {
        let a = values(batch * m * k, -1.0, 1.0, 3);
        let b = values(k * n + 4, -1.0, 1.0, 4);
        let va = if a_t {
            MatView {
                offset: 0,
                bs: m * k,
                rs: 1,
                cs: m,
            }
        } else {
            MatView {
                offset: 0,
                bs: m * k,
                rs: k,
                cs: 1,
            }
        };
        let vb = if b_t {
            MatView {
                offset: 4,
                bs: 0,
                rs: 1,
                cs: k,
            }
        } else {
            MatView {
                offset: 4,
                bs: 0,
                rs: n,
                cs: 1,
            }
        };
        let want = cpu::matmul::matmul(&a, mat(va), va.bs as isize, &b, mat(vb), 0, batch, m, k, n);
        let (ga, gb) = (
            GpuBuffer::upload(&a).unwrap(),
            GpuBuffer::upload(&b).unwrap(),
        );
        for tiles in [gpu::MmTiles::Large, gpu::MmTiles::Small] {
            let got = gpu::matmul_tiled(tiles, &ga, va, &gb, vb, batch, m, k, n)
                .unwrap()
                .download()
                .unwrap();
            assert_close(
                &format!("matmul {tiles:?} a_t={a_t} b_t={b_t}"),
                &got,
                &want,
                1e-5,
                1e-5 * k as f32,
            );
        }
    }
    // A k past one dispatch's section: the later sections add to the first's (matmul.wgsl).
    let (m2, k2, n2) = (70, 2 * 8192 + 77, 66);
    let (a2, b2) = (values(k2 * m2, -1.0, 1.0, 7), values(k2 * n2, -1.0, 1.0, 8));
    let (va, vb) = (
        MatView {
            offset: 0,
            bs: 0,
            rs: 1,
            cs: m2,
        },
        MatView::contiguous(k2, n2),
    );
    let want = cpu::matmul::matmul(&a2, mat(va), 0, &b2, mat(vb), 0, 1, m2, k2, n2);
    let (ga, gb) = (
        GpuBuffer::upload(&a2).unwrap(),
        GpuBuffer::upload(&b2).unwrap(),
    );
    for tiles in [gpu::MmTiles::Large, gpu::MmTiles::Small] {
        let got = gpu::matmul_tiled(tiles, &ga, va, &gb, vb, 1, m2, k2, n2)
            .unwrap()
            .download()
            .unwrap();
        assert_close(
            &format!("long k {tiles:?}"),
            &got,
            &want,
            1e-4,
            1e-5 * k2 as f32,
        );
    }
    let (a, b) = (values(m * k, -1.0, 1.0, 5), values(k * n, -1.0, 1.0, 6));
    let (ga, gb) = (
        GpuBuffer::upload(&a).unwrap(),
        GpuBuffer::upload(&b).unwrap(),
    );
    let (va, vb) = (MatView::contiguous(m, k), MatView::contiguous(k, n));
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
        y = gpu::unary("-v", &y, 1, host.len() - 1).unwrap();
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

    // float -> half rounds on the bits as the host's f16::from_f32 does: ties to even,
    // subnormals, past 65504 to infinity, NaN kept; int -> half through float.
    let mut edge: Vec<f32> = vec![
        0.0,
        -0.0,
        1.0,
        0.1,
        -2.5,
        65504.0,
        65519.99,
        65520.0,
        -1e6,
        1e-8,
        3e-8,
        -5.96e-8,
        6.1e-5,
        6.0e-5,
        2.9802322e-8,
        8.940697e-8,
        1.0 + 1.0 / 2048.0,
        1.0 + 3.0 / 2048.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MIN_POSITIVE,
        1e-40,
    ];
    edge.extend(values(4000, -70000.0, 70000.0, 3));
    edge.extend(values(4000, -1e-4, 1e-4, 4));
    let eb = GpuBuffer::upload(&edge).unwrap();
    let e = SView {
        shape: &[edge.len()],
        strides: &[1],
        offset: 0,
    };
    let halves = eb.alloc_like(edge.len()).unwrap();
    gpu::copy(CopyOp::FloatToHalf, &eb, &e, &halves, &e).unwrap();
    for (got, &v) in halves.download().unwrap().iter().zip(&edge) {
        let want = half::f16::from_f32(v).to_f32();
        assert!(
            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
            "{v:e}: {got:e} != {want:e}"
        );
    }
    // The unary and binary kernels round their results the same way under GpuDType::F16
    // (x * 1 and -x are exact in float32, so only the rounding shows).
    let flat = View {
        shape: &[edge.len()],
        strides: &[1],
        offset: 0,
    };
    let one = GpuBuffer::upload(&[1.0]).unwrap();
    let scalar = View {
        shape: &[],
        strides: &[],
        offset: 0,
    };
    let times_one = gpu::binary(
        GpuDType::F16,
        BinaryOp::Mul.wgsl(),
        &eb,
        &flat,
        &one,
        &scalar,
        &[edge.len()],
    )
    .unwrap();
    let negated = gpu::unary_as(GpuDType::F16, "-v", &eb, 0, edge.len(), [0.0; 3]).unwrap();
    let (times_one, negated) = (times_one.download().unwrap(), negated.download().unwrap());
    for ((p, n), &v) in times_one.iter().zip(&negated).zip(&edge) {
        let want = half::f16::from_f32(v).to_f32();
        let same = |got: f32, want: f32| {
            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan())
        };
        assert!(same(*p, want), "{v:e} * 1: {p:e} != {want:e}");
        assert!(same(*n, -want), "-{v:e}: {n:e} != {:e}", -want);
    }
    let ih = xb.alloc_like(12).unwrap();
    gpu::copy(CopyOp::IntToHalf, &ints, &c, &ih, &c).unwrap();
    assert_eq!(
        ih.download().unwrap(),
        x.iter().map(|v| v.trunc()).collect::<Vec<_>>()
    );

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

#[test]
fn prod_all_any_match_cpu() {
    if !have_gpu() {
        return;
    }
    let (outer, red, inner) = (4, 600, 3);
    // Near 1, so a product of 600 stays finite.
    let mut x = values(outer * red * inner, 0.99, 1.01, 3);
    x[7 * inner] = 0.0; // run (0, 0): a zero
    x[(red + 9) * inner + 1] = f32::NAN; // run (1, 1): a NaN
    x[(2 * red + 4) * inner + 2] = f32::INFINITY; // run (2, 2): inf
    x[(2 * red + 5) * inner + 2] = -0.0; // ... and -0.0: inf * 0 = NaN
    let l = layout(&[outer, red, inner], &[red * inner, inner, 1], 0);
    let buf = GpuBuffer::upload(&x).unwrap();
    let run = |op| {
        gpu::reduce(op, &buf, 0, outer, red, inner)
            .unwrap()
            .download()
            .unwrap()
    };
    let want = cpu::reduce::reduce_rows(&x, &l, &[1], |r: &[f32]| r.iter().product::<f32>());
    let got = run(ReduceOp::Prod);
    assert_eq!(got[0], 0.0);
    assert!(got[4].is_nan() && got[8].is_nan());
    assert_close("prod", &got, &want, 1e-4, 1e-6);
    // all / any read nonzero by the bits: NaN is true, -0.0 false.
    let truth: Vec<f32> = (0..outer * red * inner)
        .map(|i| [0.0, -0.0, 1.0, f32::NAN][(i / 7) % 4])
        .collect();
    let tb = GpuBuffer::upload(&truth).unwrap();
    let tl = layout(&[outer, red, inner], &[red * inner, inner, 1], 0);
    for (op, all) in [(ReduceOp::All, true), (ReduceOp::Any, false)] {
        let got = gpu::reduce(op, &tb, 0, outer, red, inner)
            .unwrap()
            .download()
            .unwrap();
        let want = cpu::reduce::reduce_rows(&truth, &tl, &[1], move |r: &[f32]| {
            let nonzero = |v: &f32| v.to_bits() & 0x7fff_ffff != 0;
            f32::from(if all {
                r.iter().all(nonzero)
            } else {
                r.iter().any(nonzero)
            })
        });
        assert_eq!(got, want, "{op:?}");
    }
    // Every nonzero: all is true; empty runs give the identities.
    let ones = GpuBuffer::upload(&[1.0, f32::NAN, -2.0]).unwrap();
    let got = gpu::reduce(ReduceOp::All, &ones, 0, 1, 3, 1).unwrap();
    assert_eq!(got.download().unwrap(), [1.0]);
    for (op, id) in [
        (ReduceOp::Prod, 1.0),
        (ReduceOp::All, 1.0),
        (ReduceOp::Any, 0.0),
    ] {
        let got = gpu::reduce(op, &ones, 0, 2, 0, 1).unwrap();
        assert_eq!(got.download().unwrap(), [id, id], "empty {op:?}");
    }
}

#[test]
fn arg_reductions_match_cpu() {
    if !have_gpu() {
        return;
    }
    let (outer, red, inner) = (5, 700, 2);
    // Few distinct values: many ties, which the first index must win.
    let mut x: Vec<f32> = values(outer * red * inner + 3, -4.0, 4.0, 5)
        .iter()
        .map(|v| v.round())
        .collect();
    let at = |o: usize, r: usize, j: usize| 3 + (o * red + r) * inner + j;
    x[at(1, 500, 0)] = f32::NAN; // the first NaN wins over everything
    x[at(1, 600, 0)] = f32::NAN;
    x[at(2, 650, 1)] = f32::INFINITY;
    x[at(3, 40, 0)] = f32::NEG_INFINITY;
    let buf = GpuBuffer::upload(&x).unwrap();
    for max in [true, false] {
        let op = if max {
            ReduceOp::ArgMax
        } else {
            ReduceOp::ArgMin
        };
        let (v, i) = gpu::reduce_arg(op, &buf, 3, outer, red, inner).unwrap();
        let (v, i) = (v.download().unwrap(), i.download_words().unwrap());
        for o in 0..outer {
            for j in 0..inner {
                let run: Vec<f32> = (0..red).map(|r| x[at(o, r, j)]).collect();
                let mut best = 0;
                for (k, &e) in run.iter().enumerate() {
                    let b = run[best];
                    if b.is_nan() {
                        break;
                    }
                    if e.is_nan() || (max && e > b) || (!max && e < b) {
                        best = k;
                    }
                }
                let out = o * inner + j;
                assert_eq!(i[out] as usize, best, "{op:?} index of run ({o}, {j})");
                let (g, w) = (v[out], run[best]);
                assert!(
                    g == w || (g.is_nan() && w.is_nan()),
                    "{op:?} value {g} vs {w}"
                );
            }
        }
        assert_eq!(i[inner] as usize, 500, "{op:?}: the first NaN");
    }
    assert!(gpu::reduce_arg(ReduceOp::ArgMax, &buf, 0, 2, 0, 1).is_err());
    assert!(gpu::reduce_arg(ReduceOp::Sum, &buf, 0, 2, 3, 1).is_err());
    assert!(gpu::reduce(ReduceOp::ArgMax, &buf, 0, 2, 3, 1).is_err());
}

#[test]
fn scans_match_cpu() {
    if !have_gpu() {
        return;
    }
    // Lines longer than a workgroup (blocks of several elements) and shorter ones.
    for (outer, len, inner) in [(3, 1000, 2), (7, 5, 3), (1, 1, 1)] {
        let n = outer * len * inner;
        let mut x = values(n + 4, 0.98, 1.02, 11);
        x[4] = -0.0; // the first element of line (0, 0): kept as is
        let buf = GpuBuffer::upload(&x).unwrap();
        for op in [ScanOp::Sum, ScanOp::Prod] {
            let got = gpu::scan(op, &buf, 4, outer, len, inner)
                .unwrap()
                .download()
                .unwrap();
            let mut want = vec![0f32; n];
            for o in 0..outer {
                for j in 0..inner {
                    let mut acc = 0f64;
                    for r in 0..len {
                        let at = (o * len + r) * inner + j;
                        let v = f64::from(x[4 + at]);
                        acc = match (r, op) {
                            (0, _) => v,
                            (_, ScanOp::Sum) => acc + v,
                            (_, ScanOp::Prod) => acc * v,
                        };
                        want[at] = acc as f32;
                    }
                }
            }
            assert_close(
                &format!("{op:?} {outer}x{len}x{inner}"),
                &got,
                &want,
                1e-4,
                1e-4,
            );
            assert!(got[0].to_bits() == (-0.0f32).to_bits(), "{op:?} keeps -0.0");
        }
    }
    // NaN / inf / 0 in a product, across blocks.
    let mut x = vec![1.5f32; 600];
    x[10] = f32::INFINITY;
    x[300] = 0.0;
    x[550] = f32::NAN;
    let buf = GpuBuffer::upload(&x).unwrap();
    let got = gpu::scan(ScanOp::Prod, &buf, 0, 1, 600, 1)
        .unwrap()
        .download()
        .unwrap();
    assert!(got[9].is_finite() && got[10] == f32::INFINITY && got[299] == f32::INFINITY);
    assert!(
        got[300..].iter().all(|v| v.is_nan()),
        "inf * 0 is NaN onwards"
    );
}

#[test]
fn infinite_extremes_and_zero_powers() {
    if !have_gpu() {
        return;
    }
    // A run of infinities is its own max / min (not the largest finite float).
    let inf = f32::INFINITY;
    let x = GpuBuffer::upload(&[inf, inf, -inf, -inf]).unwrap();
    let min = gpu::reduce(ReduceOp::Min, &x, 0, 2, 2, 1).unwrap();
    let max = gpu::reduce(ReduceOp::Max, &x, 0, 2, 2, 1).unwrap();
    assert_eq!(min.download().unwrap(), [inf, -inf]);
    assert_eq!(max.download().unwrap(), [inf, -inf]);
    // C's pow at a zero base: inf for negative powers, signed for -0 and odd powers.
    let bases = [0.0f32, -0.0, 0.0, -0.0, -0.0, -0.0];
    let exps = [-1.0f32, -1.0, -0.5, -2.0, 3.0, 2.0];
    let (a, b) = (
        GpuBuffer::upload(&bases).unwrap(),
        GpuBuffer::upload(&exps).unwrap(),
    );
    let mut st = Vec::new();
    let v = View::contiguous(&[6], &mut st);
    let got = gpu::binary(
        GpuDType::F32,
        BinaryOp::Pow.wgsl(),
        &a,
        &v,
        &b,
        &v.clone(),
        &[6],
    )
    .unwrap()
    .download()
    .unwrap();
    for (i, (&g, (&x, &y))) in got.iter().zip(bases.iter().zip(&exps)).enumerate() {
        let w = x.powf(y);
        assert!(
            g.to_bits() == w.to_bits(),
            "pow[{i}]: {x}^{y}: GPU {g} vs CPU {w}"
        );
    }
}

#[test]
fn index_gathers_and_scatters_like_cpu() {
    if !have_gpu() {
        return;
    }
    use gpu::{IndexOp, SView};
    let words = |v: &[i32]| -> GpuBuffer {
        GpuBuffer::upload_words(&v.iter().map(|&i| i as u32).collect::<Vec<_>>()).unwrap()
    };
    // x is 3x4, read transposed (4x3, strides [1, 4]); gather along dim 1 with a 4x2 index,
    // one negative (wraps once, as index_select).
    let x: Vec<f32> = (0..12).map(|i| i as f32 * 0.5 - 2.0).collect();
    let xb = GpuBuffer::upload(&x).unwrap();
    let idx = [2, 0, -1, 1, 0, 0, 1, 2];
    let ib = words(&idx);
    let shape = [4, 2];
    let out = xb.alloc_like(8).unwrap();
    gpu::index(
        IndexOp::Gather,
        (
            &xb,
            &SView {
                shape: &shape,
                strides: &[1, 4],
                offset: 0,
            },
        ),
        (
            &ib,
            &SView {
                shape: &shape,
                strides: &[2, 1],
                offset: 0,
            },
        ),
        (
            &out,
            &SView {
                shape: &shape,
                strides: &[2, 1],
                offset: 0,
            },
        ),
        1,
        3,
    )
    .unwrap();
    let lx = layout(&[4, 3], &[1, 4], 0);
    // The kernel wraps a negative index (ops refuse one before it runs, as PyTorch does; the
    // CPU kernel refuses it itself), so the reference gathers the wrapped index.
    assert!(cpu::index::gather::<f32>(&x, &lx, 1, &[-1], &[1, 1]).is_err());
    let idx64: Vec<i64> = idx.iter().map(|&i| i64::from(i).rem_euclid(3)).collect();
    let want = cpu::index::gather::<f32>(&x, &lx, 1, &idx64, &shape).unwrap();
    assert_eq!(out.download().unwrap(), want);

    // Scatter-add with many duplicates (the float compare-exchange loop under contention):
    // 4096 values into 8 slots along dim 0 of an 8x1 tensor.
    let n = 4096;
    let src = values(n, -1.0, 1.0, 3);
    let targets: Vec<i32> = (0..n as i32).map(|i| (i * 7) % 8).collect();
    let (sb, tb) = (GpuBuffer::upload(&src).unwrap(), words(&targets));
    let acc = GpuBuffer::upload(&[1.0f32; 8]).unwrap();
    let v = SView {
        shape: &[n, 1],
        strides: &[1, 0],
        offset: 0,
    };
    let dst = SView {
        shape: &[n, 1],
        strides: &[1, 1],
        offset: 0,
    };
    gpu::index(
        IndexOp::ScatterAddFloat,
        (&sb, &v),
        (&tb, &v),
        (&acc, &dst),
        0,
        8,
    )
    .unwrap();
    let mut want = [1.0f64; 8];
    for (&t, &s) in targets.iter().zip(&src) {
        want[t as usize] += f64::from(s);
    }
    let want: Vec<f32> = want.iter().map(|&w| w as f32).collect();
    assert_close("scatter_add", &acc.download().unwrap(), &want, 1e-4, 1e-4);

    // Integer add (int64 tensors' int32 words) and a plain scatter write; an index still out
    // of range is skipped, never written outside the view.
    let ints = words(&[10, -20, 30]);
    let isrc = words(&[1, 2, 3, 4]);
    let it = words(&[2, 0, 2, 5]);
    let v4 = SView {
        shape: &[4],
        strides: &[1],
        offset: 0,
    };
    gpu::index(
        IndexOp::ScatterAddInt,
        (&isrc, &v4),
        (&it, &v4),
        (&ints, &v4),
        0,
        3,
    )
    .unwrap();
    let got: Vec<i32> = ints
        .download_words()
        .unwrap()
        .iter()
        .map(|&w| w as i32)
        .collect();
    assert_eq!(got, vec![12, -20, 34]);
    let plain = GpuBuffer::upload(&[0.0f32; 3]).unwrap();
    let fsrc = GpuBuffer::upload(&[5.0f32, 6.0, 7.0, 8.0]).unwrap();
    let pt = words(&[2, 0, -2, 9]);
    gpu::index(
        IndexOp::Scatter,
        (&fsrc, &v4),
        (&pt, &v4),
        (&plain, &v4),
        0,
        3,
    )
    .unwrap();
    assert_eq!(plain.download().unwrap(), vec![6.0, 7.0, 5.0]);

    // A view reaching outside its buffer is an error, not a GPU fault.
    assert!(gpu::index(
        IndexOp::Scatter,
        (&fsrc, &v4),
        (&pt, &v4),
        (&plain, &v4),
        0,
        4
    )
    .is_err());
}

#[test]
fn nonzero_compacts_in_row_major_order() {
    if !have_gpu() {
        return;
    }
    // Several 256-element blocks with uneven counts; -0.0 is zero, NaN is not.
    let shape = [5, 7, 31];
    let n: usize = shape.iter().product();
    let mut x: Vec<f32> = values(n, -1.0, 1.0, 11)
        .iter()
        .map(|&v| if v.abs() < 0.6 { 0.0 } else { v })
        .collect();
    x[3] = -0.0;
    x[4] = f32::NAN;
    x[300..600].iter_mut().for_each(|v| *v = 0.0);
    let mut padded = vec![1.0f32; 2];
    padded.extend(&x);
    let xb = GpuBuffer::upload(&padded).unwrap();
    let (out, count) = gpu::nonzero(&xb, 2, &shape, false).unwrap();
    let mut want = Vec::new();
    for (i, &v) in x.iter().enumerate() {
        if v != 0.0 || v.is_nan() {
            want.extend([i / (7 * 31), i / 31 % 7, i % 31].map(|c| c as u32));
        }
    }
    assert_eq!(count, want.len() / 3);
    assert_eq!(out.download_words().unwrap(), want);

    // int32 words: zero is the word 0 (so 0x80000000, int32 min, is not).
    let ints = [0u32, 5, 0, 0x8000_0000, 0];
    let ib = GpuBuffer::upload_words(&ints).unwrap();
    let (out, count) = gpu::nonzero(&ib, 0, &[5], true).unwrap();
    assert_eq!((count, out.download_words().unwrap()), (2, vec![1, 3]));
    let zeros = GpuBuffer::upload(&[0.0; 4]).unwrap();
    assert_eq!(gpu::nonzero(&zeros, 0, &[2, 2], false).unwrap().1, 0);

    // More blocks than one grid row holds (a 2-D dispatch, and a scan over > 65,535 blocks).
    let n = 65_535 * 256 + 5000;
    let big: Vec<f32> = (0..n).map(|i| f32::from(i % 3 == 0)).collect();
    let bb = GpuBuffer::upload(&big).unwrap();
    let (out, count) = gpu::nonzero(&bb, 0, &[n], false).unwrap();
    assert_eq!(count, n.div_ceil(3));
    let rows = out.download_words().unwrap();
    assert!(rows.iter().enumerate().all(|(r, &v)| v as usize == 3 * r));
    assert!(gpu::nonzero(&zeros, 1, &[2, 2], false).is_err());
}

#[test]
fn binary_int_comparisons_compare_the_words_as_integers() {
    if !have_gpu() {
        return;
    }
    // -100 and i32::MIN are NaN patterns as floats: the INT pipelines must read the bits.
    let a: [i32; 7] = [-100, 5, -7, 0, i32::MAX, i32::MIN, 3];
    let b: [i32; 7] = [-100, 6, -8, 0, -1, 1, 3];
    let words = |v: &[i32]| v.iter().map(|&x| x as u32).collect::<Vec<u32>>();
    let (ga, gb) = (
        GpuBuffer::upload_words(&words(&a)).unwrap(),
        GpuBuffer::upload_words(&words(&b)).unwrap(),
    );
    let v = View {
        shape: &[7],
        strides: &[1],
        offset: 0,
    };
    type Cmp = fn(i32, i32) -> bool;
    let cases: [(CmpOp, Cmp); 6] = [
        (CmpOp::Eq, |x, y| x == y),
        (CmpOp::Ne, |x, y| x != y),
        (CmpOp::Lt, |x, y| x < y),
        (CmpOp::Le, |x, y| x <= y),
        (CmpOp::Gt, |x, y| x > y),
        (CmpOp::Ge, |x, y| x >= y),
    ];
    for (op, f) in cases {
        let int = op.wgsl_int().unwrap();
        let got = gpu::binary(GpuDType::I32, int, &ga, &v, &gb, &v, &[7])
            .unwrap()
            .download()
            .unwrap();
        let want: Vec<f32> = a
            .iter()
            .zip(&b)
            .map(|(&x, &y)| f32::from(u8::from(f(x, y))))
            .collect();
        assert_eq!(got, want, "{op:?}");
    }
}

/// The reduce, scan and where shaders name their op codes (`OP_MAX`), defined from the op enums'
/// tables: no hand-numbered discriminant to keep in step with a `case 2u`.
#[test]
fn shader_op_codes_come_from_their_tables() {
    let shaders = gpu::shaders();
    let source = |file: &str| {
        shaders
            .iter()
            .find(|(name, _)| *name == file)
            .map(|(_, src)| src.to_string())
            .expect("the shader is listed")
    };
    let named = |src: &str, consts: &[(String, u32)]| {
        for (name, code) in consts {
            assert!(
                src.contains(&format!("const {name}: u32 = {code}u;")),
                "{name}"
            );
        }
        for line in src.lines().filter(|l| !l.trim_start().starts_with("//")) {
            let numbered = ["case ", "OP == "].iter().any(|p| {
                line.split(p)
                    .skip(1)
                    .any(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
            });
            assert!(!numbered, "an op code by number: {line}");
        }
    };
    let reduce: Vec<_> = ReduceOp::ALL
        .iter()
        .enumerate()
        .map(|(i, op)| {
            assert_eq!(op.code() as usize, i);
            (op.wgsl_name(), op.code())
        })
        .collect();
    named(&source("reduce.wgsl"), &reduce);
    let scan: Vec<_> = ScanOp::ALL
        .iter()
        .map(|op| (op.wgsl_name(), op.code()))
        .collect();
    named(&source("scan.wgsl"), &scan);
    let ternary: Vec<_> = gpu::TernaryOp::ALL
        .iter()
        .map(|op| (op.wgsl_name(), op.code()))
        .collect();
    named(&source("where.wgsl"), &ternary);
    assert_eq!(ReduceOp::ArgMax.wgsl_name(), "OP_ARGMAX");
}
