// Inclusive scan (cumulative sum / product) along the middle dim of a contiguous
// [outer, len, inner] block, f32: y[(o, r, j)] = x[(o, 0, j)] op ... op x[(o, r, j)].
//
// Bindings (group 0):
//   0: x  storage, read        array<f32>
//   1: y  storage, read_write  array<f32>  outer * len * inner elements, contiguous
//   2: p  uniform              Params
//
// Algorithm: one workgroup of 256 invocations per line (o, j), 2-D dispatch past 65,535
// lines. The line is cut into 256 consecutive blocks, one per invocation: each folds its
// block into a total, a Hillis-Steele scan in shared memory (8 barrier-separated steps) turns
// the totals into each block's exclusive prefix, and each invocation rescans its block from
// that prefix, writing the outputs. Two reads and one write of the line, in any length.
// Products keep NaN / inf / 0 exactly as a serial loop: each output is the serial product
// regrouped, and which of NaN, inf, 0 it is does not depend on the grouping.
// OP: `OP_SUM` (cumsum) or `OP_PROD` (cumprod), constants `ScanOp`'s table (scan.rs) appends.

override OP: u32 = 0u;

struct Params {
    outer: u32,
    len: u32,
    inner: u32,
    x_offset: u32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

var<workgroup> part: array<f32, 256>;

fn identity() -> f32 {
    if (OP == OP_PROD) {
        return 1.0;
    }
    return 0.0;
}

fn combine(u: f32, v: f32) -> f32 {
    if (OP == OP_PROD) {
        return u * v;
    }
    return u + v;
}

@compute @workgroup_size(256)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    // Uniform for the whole workgroup, so the early return keeps the barriers uniform.
    let line = workgroup_index(wid, nwg);
    if (line >= p.outer * p.inner) {
        return;
    }
    let o = line / p.inner;
    let j = line % p.inner;
    let base = o * p.len * p.inner + j;
    let block = (p.len + 255u) / 256u;
    let start = min(lid * block, p.len);
    let end = min(start + block, p.len);

    var total = identity();
    for (var r = start; r < end; r++) {
        total = combine(total, x[p.x_offset + base + r * p.inner]);
    }
    part[lid] = total;
    workgroupBarrier();
    // Hillis-Steele: after the step of width s, part[i] folds blocks i - 2s + 1 ..= i.
    for (var s = 1u; s < 256u; s = s << 1u) {
        var v = part[lid];
        if (lid >= s) {
            v = combine(part[lid - s], v);
        }
        workgroupBarrier();
        part[lid] = v;
        workgroupBarrier();
    }
    var acc = identity();
    if (lid > 0u) {
        acc = part[lid - 1u];
    }
    for (var r = start; r < end; r++) {
        let at = base + r * p.inner;
        // The first element of the line starts the fold itself, as a serial loop does.
        if (r == 0u) {
            acc = x[p.x_offset + at];
        } else {
            acc = combine(acc, x[p.x_offset + at]);
        }
        y[at] = acc;
    }
}
