// Elementwise unary map: y[y_offset + i] = f(x[x_offset + i]) for i in 0..n, f32.
//
// Bindings (group 0):
//   0: x  storage, read        array<f32>  input (read from element x_offset on)
//   1: y  storage, read_write  array<f32>  output, contiguous, n elements from y_offset
//   2: p  uniform              Params (n, x_offset, y_offset and up to three f32 op parameters:
//                                 clamp bounds, slopes, nan_to_num's replacements)
//
// Algorithm: one invocation per element, 256 per workgroup. The op is `apply`, whose body the
// host generates from the op's declared WGSL expression (Note [Op declarations] in
// ops/unary.rs), so each op compiles to its own branch-free pipeline. Grids past 65,535
// workgroups spill into y (2-D dispatch); the flat index folds y back in with
// num_workgroups.x. Functions WGSL leaves undefined or imprecise
// at the edges (NaN in relu, large |x| in tanh/sigmoid, log1p/expm1 near 0) are written out.
// With HALF set (a float16 tensor), each result rounds to half (round_half: half.wgsl,
// appended to this shader) in the same pass. The helpers of torch.special's longer functions
// are appended too, a family per file: special_gamma.wgsl (gamma family, I0 / I1),
// special_normal.wgsl (ndtri, erfcx, log_ndtr), special_bessel.wgsl (J, Y, K, spherical J0).

override HALF: bool = false;

struct Params {
    n: u32,
    x_offset: u32,
    a: f32,
    b: f32,
    c: f32,
    y_offset: u32,
    _pad1: u32,
    _pad2: u32,
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
    // Kahan's trick: the rounding error of 1 + v is divided back out (not for +inf, which
    // it would turn into inf / inf).
    let u = 1.0 + v;
    if (u == 1.0 || v > 3.0e38) {
        return select(v, log(u), v > 3.0e38);
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

fn sinh_(v: f32) -> f32 {
    // (e^v - e^-v) / 2 cancels near 0; expm1 keeps the small values' digits.
    if (abs(v) < 1.0) {
        let e = expm1_(v);
        return 0.5 * (e + e / (e + 1.0));
    }
    return sinh(v);
}

fn erf_(v: f32) -> f32 {
    // Near 0 the Taylor series (1 - erfc would cancel); elsewhere the Chebyshev fit of
    // erfc(z) = t exp(-z^2 + P(t)), t = 1 / (1 + z/2), fractional error below 1.2e-7.
    let z = abs(v);
    if (z < 0.5) {
        let x2 = v * v;
        return v * 1.1283791670955126 * (1.0 + x2 * (-1.0 / 3.0 + x2 * (0.1 + x2 * (-1.0 / 42.0 + x2 / 216.0))));
    }
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
    let r = 1.0 - t * exp(-z * z + poly);
    if (is_nan(v)) {
        return v;
    }
    return select(r, -r, v < 0.0);
}

// sin (want 0), cos (1) or tan (2) of v with our own argument reduction: drivers' sin/cos are
// only required to be good to 2^-11 (an H100's erred by 1e-6 at |x| ~ 30). v - k*pi/2 in three
// parts (Cody-Waite, the first exact for k < 2^16), then Cephes' minimax polynomials on
// [-pi/4, pi/4]. Past 1e5 the reduction loses bits, and the driver's functions are used.
fn trig(v: f32, want: u32) -> f32 {
    if (!(abs(v) <= 1e5)) {
        if (want == 0u) { return sin(v); }
        if (want == 1u) { return cos(v); }
        return tan(v);
    }
    let k = round(v * 0.6366197723675814);
    var r = fma(-k, 1.5703125, v);
    r = fma(-k, 4.8375129699707031e-4, r);
    r = fma(-k, 7.5497899548918821e-8, r);
    let z = r * r;
    let sn = fma(((-1.9515295891e-4 * z + 8.3321608736e-3) * z - 1.6666654611e-1) * z, r, r);
    let cs = ((2.443315711809948e-5 * z - 1.388731625493765e-3) * z + 4.166664568298827e-2)
        * z * z - 0.5 * z + 1.0;
    let q = u32(i32(k) & 3);
    if (want == 2u) {
        return select(sn / cs, -cs / sn, (q & 1u) == 1u);
    }
    switch ((q + want) & 3u) {
        case 0u: { return sn; }
        case 1u: { return cs; }
        case 2u: { return -sn; }
        default: { return -cs; }
    }
}

fn clamp_(v: f32, lo: f32, hi: f32) -> f32 {
    // NaN passes through (WGSL's min/max may drop it); a NaN bound gives NaN, as torch.clamp.
    if (is_nan(v) || is_nan(lo) || is_nan(hi)) {
        return v + lo + hi;
    }
    return min(max(v, lo), hi);
}

// Outside [-1, 1] WGSL leaves asin / acos undefined (C gives NaN), and drivers' asin is coarse
// (lavapipe's errs by 2e-4): both go through atan2 instead.
fn asin_(v: f32) -> f32 {
    if (abs(v) > 1.0) {
        return bitcast<f32>(0x7fc00000u);
    }
    return atan2(v, sqrt((1.0 - v) * (1.0 + v)));
}

fn acos_(v: f32) -> f32 {
    if (abs(v) > 1.0) {
        return bitcast<f32>(0x7fc00000u);
    }
    return atan2(sqrt((1.0 - v) * (1.0 + v)), v);
}

// asinh / acosh / atanh / erfc / erfinv (issue 24), written out: the builtins are
// indeterminate outside their domains and lose the small values to cancellation.
fn asinh_(v: f32) -> f32 {
    let a = abs(v);
    var r: f32;
    if (a > 1e8) {
        r = log(a) + 0.6931471805599453;
    } else {
        r = log1p_(a + a * a / (1.0 + sqrt(1.0 + a * a)));
    }
    if (is_nan(v)) {
        return v;
    }
    return select(r, -r, v < 0.0);
}

fn acosh_(v: f32) -> f32 {
    if (v < 1.0) {
        return bitcast<f32>(0x7fc00000u);
    }
    if (v > 1e8) {
        return log(v) + 0.6931471805599453;
    }
    let t = v - 1.0;
    return log1p_(t + sqrt(t * (v + 1.0)));
}

fn atanh_(v: f32) -> f32 {
    let a = abs(v);
    if (a > 1.0) {
        return bitcast<f32>(0x7fc00000u);
    }
    var r: f32;
    if (a == 1.0) {
        r = bitcast<f32>(0x7f800000u);
    } else {
        r = 0.5 * log1p_(2.0 * a / (1.0 - a));
    }
    if (is_nan(v)) {
        return v;
    }
    return select(r, -r, v < 0.0);
}

fn erfc_(v: f32) -> f32 {
    // erf_'s fit of erfc(z) directly for |v| >= 0.5, so its small values keep their digits.
    let z = abs(v);
    if (z < 0.5 || is_nan(v)) {
        return 1.0 - erf_(v);
    }
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
    let r = t * exp(-z * z + poly);
    return select(r, 2.0 - r, v < 0.0);
}

fn erfinv_(y: f32) -> f32 {
    // PyTorch's calc_erfinv: a rational first guess, then Newton steps on erf.
    let a = abs(y);
    if (a > 1.0) {
        return bitcast<f32>(0x7fc00000u);
    }
    if (a == 1.0) {
        return select(bitcast<f32>(0x7f800000u), bitcast<f32>(0xff800000u), y < 0.0);
    }
    var x: f32;
    if (a <= 0.7) {
        let z = y * y;
        let num = ((-0.140543331 * z + 0.914624893) * z - 1.645349621) * z + 0.886226899;
        let dem = (((0.012229801 * z - 0.329097515) * z + 1.442710462) * z - 2.118377725) * z + 1.0;
        x = y * num / dem;
    } else {
        let z = sqrt(-log((1.0 - a) / 2.0));
        let num = ((1.641345311 * z + 3.429567803) * z - 1.624906493) * z - 1.970840454;
        let dem = (1.637067800 * z + 3.543889200) * z + 1.0;
        x = select(num, -num, y < 0.0) / dem;
    }
    x = x - (erf_(x) - y) / (1.1283791670955126 * exp(-x * x));
    x = x - (erf_(x) - y) / (1.1283791670955126 * exp(-x * x));
    if (is_nan(y)) {
        return y;
    }
    return x;
}

// softplus with beta b, threshold t: linear above the threshold, as PyTorch's.
fn softplus_(v: f32, b: f32, t: f32) -> f32 {
    if (v * b > t) {
        return v;
    }
    return log1p_(exp(v * b)) / b;
}

// logit with eps e, as PyTorch's kernel: x clamped to [e, 1 - e] unless e is negative or NaN
// (None); +inf at 1, -inf at 0, NaN outside [0, 1] (written out: WGSL's log is undefined there).
// NaN is tested by the bits first: the H100's driver took `NaN > 1 - e` as true and clamped it.
fn logit_(v: f32, e: f32) -> f32 {
    if (is_nan(v)) {
        return v;
    }
    var x = v;
    if (!is_nan(e) && e >= 0.0) {
        if (x < e) {
            x = e;
        } else if (x > 1.0 - e) {
            x = 1.0 - e;
        }
    }
    if (x < 0.0 || x > 1.0) {
        return bitcast<f32>(0x7fc00000u);
    }
    if (x == 1.0) {
        return bitcast<f32>(0x7f800000u);
    }
    if (x == 0.0) {
        return bitcast<f32>(0xff800000u);
    }
    return log(x / (1.0 - x));
}

// nan_to_num: NaN -> a, +inf -> b, -inf -> c.
fn nan_to_num_(v: f32, a: f32, b: f32, c: f32) -> f32 {
    if (is_nan(v)) {
        return a;
    }
    if (bitcast<u32>(v) == 0x7f800000u) {
        return b;
    }
    if (bitcast<u32>(v) == 0xff800000u) {
        return c;
    }
    return v;
}

// The op: the host replaces the marked expression with the op's declared WGSL expression in
// `v` (and the parameters p.a, p.b, p.c), so each op compiles to its own pipeline.
fn apply(v: f32) -> f32 {
    return /*expr*/ v;
}

@compute @workgroup_size(256)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let i = flat_index(gid, nwg);
    if (i >= p.n) {
        return;
    }
    var v = apply(x[p.x_offset + i]);
    if (HALF) {
        v = bitcast<f32>(round_half(bitcast<u32>(v)));
    }
    y[p.y_offset + i] = v;
}
