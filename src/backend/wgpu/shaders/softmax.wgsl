// Softmax / log-softmax along the middle dim of a contiguous [outer, red, inner] block, f32:
// y[(o, r, j)] = exp(x - m) / s  or  (x - m) - log(s), m = max_r x, s = sum_r exp(x - m).
//
// Bindings (group 0):
//   0: x  storage, read        array<f32>
//   1: y  storage, read_write  array<f32>  outer * red * inner elements, contiguous
//   2: p  uniform              Params
//
// Algorithm: one workgroup of 256 invocations per row (o, j), 2-D dispatch past 65,535 rows.
// Three passes over the row: the max by a shared-memory tree, the sum of exp(x - m) by a
// second tree, then each invocation writes its strided share of the outputs. A row whose
// max is not finite (all -inf, or +inf) shifts by 0 instead, as the CPU kernel does.
// OP: 0 softmax, 1 log_softmax.

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

fn is_finite(v: f32) -> bool {
    return (bitcast<u32>(v) & 0x7f800000u) != 0x7f800000u;
}

// A NaN anywhere makes the row's max NaN (its outputs are NaN, as on the CPU).
fn max_nan(u: f32, v: f32) -> f32 {
    if (is_nan(u) || is_nan(v)) {
        return u + v;
    }
    return max(u, v);
}

@compute @workgroup_size(256)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    // Uniform for the whole workgroup, so the early return keeps the barriers uniform.
    let row = workgroup_index(wid, nwg);
    if (row >= p.outer * p.inner) {
        return;
    }
    let o = row / p.inner;
    let j = row % p.inner;
    let base = o * p.red * p.inner + j;

    // -inf is not a WGSL literal; its bits are.
    var m = bitcast<f32>(0xff800000u);
    for (var r = lid; r < p.red; r += 256u) {
        m = max_nan(m, x[p.x_offset + base + r * p.inner]);
    }
    part[lid] = m;
    workgroupBarrier();
    for (var s = 128u; s > 0u; s = s >> 1u) {
        if (lid < s) {
            part[lid] = max_nan(part[lid], part[lid + s]);
        }
        workgroupBarrier();
    }
    var shift = part[0];
    if (!is_finite(shift) && !is_nan(shift)) {
        shift = 0.0;
    }
    workgroupBarrier();

    var acc = 0.0;
    for (var r = lid; r < p.red; r += 256u) {
        acc += exp(x[p.x_offset + base + r * p.inner] - shift);
    }
    part[lid] = acc;
    workgroupBarrier();
    for (var s = 128u; s > 0u; s = s >> 1u) {
        if (lid < s) {
            part[lid] = part[lid] + part[lid + s];
        }
        workgroupBarrier();
    }
    let total = part[0];

    for (var r = lid; r < p.red; r += 256u) {
        let z = x[p.x_offset + base + r * p.inner] - shift;
        if (OP == 1u) {
            y[base + r * p.inner] = z - log(total);
        } else {
            y[base + r * p.inner] = exp(z) / total;
        }
    }
}
