// Elementwise binary op with broadcasting: out[i] = f(a[ia], b[ib]), f32.
//
// Bindings (group 0):
//   0: a    storage, read        array<f32>
//   1: b    storage, read        array<f32>
//   2: out  storage, read_write  array<f32>  contiguous, n elements of the output shape
//   3: p    uniform              Params
//
// Algorithm: one invocation per output element, 256 per workgroup, 2-D dispatch past 65,535
// workgroups. The flat output index is unravelled over the output shape (at most 8 dims,
// innermost last) and dotted with each operand's strides; a broadcast dim has stride 0, so
// broadcasting and strided views need no copy. The op is the overridable constant OP
// (BinaryOp in mod.rs). Comparisons write 1.0 / 0.0.

override OP: u32 = 0u;

struct Params {
    n: u32,
    ndim: u32,
    a_offset: u32,
    b_offset: u32,
    // Eight u32 per array, packed four to a vec4 (uniform arrays have a 16-byte stride).
    shape: array<vec4<u32>, 2>,
    a_strides: array<vec4<u32>, 2>,
    b_strides: array<vec4<u32>, 2>,
}

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

fn is_nan(v: f32) -> bool {
    // By the bits: drivers may fold v != v to false (lavapipe does).
    return (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u;
}

fn unordered(x: f32, y: f32) -> bool {
    return is_nan(x) || is_nan(y);
}

fn pow_(x: f32, y: f32) -> f32 {
    // WGSL's pow is undefined for x < 0 and for 0^0; PyTorch follows C's pow.
    if (y == 0.0) {
        return 1.0;
    }
    if (is_nan(x) || is_nan(y)) {
        return x + y;
    }
    let mag = pow(abs(x), y);
    if (x >= 0.0) {
        return mag;
    }
    if (trunc(y) != y) {
        // A negative base to a non-integer power.
        return (x - x) / (x - x);
    }
    // An odd integer exponent keeps the sign (fract(y/2) is 0.5 exactly for odd y).
    if (abs(fract(y * 0.5)) == 0.5) {
        return -mag;
    }
    return mag;
}

fn apply(x: f32, y: f32) -> f32 {
    switch OP {
        case 0u: { return x + y; }
        case 1u: { return x - y; }
        case 2u: { return x * y; }
        case 3u: { return x / y; }
        case 4u: { return pow_(x, y); }
        // maximum / minimum propagate NaN, as torch.maximum / torch.minimum.
        case 5u: { if (is_nan(x) || is_nan(y)) { return x + y; } return max(x, y); }
        case 6u: { if (is_nan(x) || is_nan(y)) { return x + y; } return min(x, y); }
        // Comparisons with NaN are false (but != true) as IEEE says; tested by the bits, as
        // a compiler may assume no NaNs and fold x != x to false.
        case 7u: { return select(0.0, 1.0, !unordered(x, y) && x == y); }
        case 8u: { return select(0.0, 1.0, unordered(x, y) || x != y); }
        case 9u: { return select(0.0, 1.0, !unordered(x, y) && x < y); }
        case 10u: { return select(0.0, 1.0, !unordered(x, y) && x <= y); }
        case 11u: { return select(0.0, 1.0, !unordered(x, y) && x > y); }
        case 12u: { return select(0.0, 1.0, !unordered(x, y) && x >= y); }
        default: { return x; }
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
    var rem = i;
    var ia = p.a_offset;
    var ib = p.b_offset;
    for (var d = i32(p.ndim) - 1; d >= 0; d--) {
        let q = u32(d) / 4u;
        let r = u32(d) % 4u;
        let size = p.shape[q][r];
        let c = rem % size;
        rem = rem / size;
        ia += c * p.a_strides[q][r];
        ib += c * p.b_strides[q][r];
    }
    out[i] = apply(a[ia], b[ib]);
}
