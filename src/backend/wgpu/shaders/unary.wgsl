// Elementwise unary map: y[i] = f(x[x_offset + i]) for i in 0..n, f32.
//
// Bindings (group 0):
//   0: x  storage, read        array<f32>  input (read from element x_offset on)
//   1: y  storage, read_write  array<f32>  output, contiguous, n elements
//   2: p  uniform              Params
//
// Algorithm: one invocation per element, 256 per workgroup. The op is the
// pipeline-overridable constant OP (UnaryOp in mod.rs), so each op compiles to its own
// branch-free pipeline. Grids past 65,535 workgroups spill into y (2-D dispatch); the flat
// index folds y back in with num_workgroups.x. Functions WGSL leaves undefined or imprecise
// at the edges (NaN in relu, large |x| in tanh/sigmoid, log1p/expm1 near 0) are written out.

override OP: u32 = 0u;

struct Params {
    n: u32,
    x_offset: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

fn sigmoid(v: f32) -> f32 {
    // exp of a negative argument only, so neither branch overflows.
    if (v >= 0.0) {
        return 1.0 / (1.0 + exp(-v));
    }
    let e = exp(v);
    return e / (1.0 + e);
}

fn tanh_safe(v: f32) -> f32 {
    // Some drivers evaluate tanh through exp(2x) and return NaN for large |x|;
    // tanh(15) already rounds to 1 in f32.
    if (abs(v) > 15.0) {
        return sign(v);
    }
    return tanh(v);
}

fn log1p_(v: f32) -> f32 {
    // Kahan's trick: the rounding error of 1 + v is divided back out.
    let u = 1.0 + v;
    if (u == 1.0) {
        return v;
    }
    return log(u) * v / (u - 1.0);
}

fn expm1_(v: f32) -> f32 {
    let u = exp(v);
    if (u == 1.0) {
        return v;
    }
    let um1 = u - 1.0;
    if (um1 == -1.0) {
        return -1.0;
    }
    if (abs(v) > 1.0) {
        return um1;
    }
    return um1 * v / log(u);
}

fn is_nan(v: f32) -> bool {
    // By the bits: drivers may fold v != v to false (lavapipe does).
    return (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u;
}

fn sinh_(v: f32) -> f32 {
    // (e^v - e^-v) / 2 cancels near 0; expm1 keeps the small values' digits.
    if (abs(v) < 1.0) {
        let e = expm1_(v);
        return 0.5 * (e + e / (e + 1.0));
    }
    return sinh(v);
}

fn apply(v: f32) -> f32 {
    switch OP {
        case 0u: { return -v; }
        case 1u: { return exp(v); }
        case 2u: { return log(v); }
        case 3u: { return sin(v); }
        case 4u: { return cos(v); }
        case 5u: { return tan(v); }
        case 6u: { return tanh_safe(v); }
        case 7u: { return sigmoid(v); }
        // relu: NaN < 0 is false, so NaN passes through as in PyTorch.
        case 8u: { return select(v, 0.0, v < 0.0); }
        case 9u: { return sqrt(v); }
        case 10u: { return inverseSqrt(v); }
        case 11u: { return abs(v); }
        case 12u: { return 1.0 / v; }
        case 13u: { return v * v; }
        case 14u: { return floor(v); }
        case 15u: { return ceil(v); }
        // WGSL's round is round-half-to-even, as torch.round.
        case 16u: { return round(v); }
        case 17u: { return trunc(v); }
        case 18u: { return log1p_(v); }
        case 19u: { return expm1_(v); }
        case 20u: { return log2(v); }
        case 21u: { return exp2(v); }
        // sign: NaN stays NaN, and -0.0 gives +0.0, as torch.sign.
        case 22u: { if (is_nan(v)) { return v; } return select(0.0, 1.0, v > 0.0) - select(0.0, 1.0, v < 0.0); }
        // Outside [-1, 1] WGSL leaves asin / acos undefined (C gives NaN), and drivers'
        // asin is coarse (lavapipe's errs by 2e-4): both go through atan2 instead.
        case 23u: { if (abs(v) > 1.0) { return bitcast<f32>(0x7fc00000u); } return atan2(v, sqrt((1.0 - v) * (1.0 + v))); }
        case 24u: { if (abs(v) > 1.0) { return bitcast<f32>(0x7fc00000u); } return atan2(sqrt((1.0 - v) * (1.0 + v)), v); }
        case 25u: { return atan(v); }
        case 26u: { return sinh_(v); }
        case 27u: { return cosh(v); }
        case 28u: { return log(v) * 0.4342944819032518; }
        case 29u: { return v - trunc(v); }
        default: { return v; }
    }
}

@compute @workgroup_size(256)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let i = gid.x + gid.y * nwg.x * 256u;
    if (i >= p.n) {
        return;
    }
    y[i] = apply(x[p.x_offset + i]);
}
