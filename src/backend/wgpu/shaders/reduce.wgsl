// Reduction over the middle dim of a contiguous [outer, red, inner] block, f32:
// y[o * inner + j] = reduce_r x[x_offset + (o * red + r) * inner + j].
// Reducing the last dim is inner = 1; any single dim of a contiguous tensor fits this form.
//
// Bindings (group 0):
//   0: x  storage, read        array<f32>
//   1: y  storage, read_write  array<f32>  outer * inner elements
//   2: p  uniform              Params
//
// Algorithm: one workgroup of 256 invocations per output element (2-D dispatch past 65,535
// outputs). Each invocation folds a strided slice of the reduced run into a register, then a
// shared-memory tree halves 256 partials to one in 8 barrier-separated steps. The partials
// make the sum pairwise-like, so its error grows far slower than a serial f32 loop's.
// OP (ReduceOp in mod.rs): 0 sum, 1 mean, 2 max, 3 min; max/min propagate NaN.

override OP: u32 = 0u;

struct Params {
    outer: u32,
    red: u32,
    inner: u32,
    x_offset: u32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

var<workgroup> part: array<f32, 256>;

fn identity() -> f32 {
    switch OP {
        // -inf / +inf are not WGSL literals: the largest finite f32 is used instead, which
        // gives the same answer for every non-empty run (empty max/min are refused on the host).
        case 2u: { return -3.40282347e+38; }
        case 3u: { return 3.40282347e+38; }
        default: { return 0.0; }
    }
}

fn is_nan(v: f32) -> bool {
    // By the bits: drivers may fold v != v to false (lavapipe does).
    return (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u;
}

fn combine(u: f32, v: f32) -> f32 {
    switch OP {
        case 2u: { if (is_nan(u) || is_nan(v)) { return u + v; } return max(u, v); }
        case 3u: { if (is_nan(u) || is_nan(v)) { return u + v; } return min(u, v); }
        default: { return u + v; }
    }
}

@compute @workgroup_size(256)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    // The same for the whole workgroup, so the early return keeps the barriers uniform.
    let out_idx = wid.x + wid.y * nwg.x;
    if (out_idx >= p.outer * p.inner) {
        return;
    }
    let o = out_idx / p.inner;
    let j = out_idx % p.inner;
    let base = p.x_offset + o * p.red * p.inner + j;
    var acc = identity();
    for (var r = lid; r < p.red; r += 256u) {
        acc = combine(acc, x[base + r * p.inner]);
    }
    part[lid] = acc;
    workgroupBarrier();
    for (var s = 128u; s > 0u; s = s >> 1u) {
        if (lid < s) {
            part[lid] = combine(part[lid], part[lid + s]);
        }
        workgroupBarrier();
    }
    if (lid == 0u) {
        var v = part[0];
        if (OP == 1u) {
            v = v / f32(p.red);
        }
        y[out_idx] = v;
    }
}
