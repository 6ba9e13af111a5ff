// Reduction over the middle dim of a contiguous [outer, red, inner] block, f32, in sections
// of `span` along it: y[(o * sections + s) * inner + j] = reduce over r in
// [s * span, min((s + 1) * span, red)) of x[x_offset + (o * red + r) * inner + j].
// Reducing the last dim is inner = 1; any single dim of a contiguous tensor fits this form.
// One section (span >= red) is the whole reduction. A long run is reduced in two passes, the
// second over the first's sections, because an invocation may loop only so long: lavapipe
// stops a shader's loops after 65,535 iterations in all, silently, and one workgroup per
// output would leave most of a real GPU idle when the outputs are few.
//
// Bindings (group 0):
//   0: x   storage, read        array<f32>
//   1: y   storage, read_write  array<u32>  outer * inner words: the f32 results' bits
//   2: yi  storage, read_write  array<u32>  outer * inner int32 indices (ArgMax / ArgMin);
//                                           the other ops never touch it (the host binds y
//                                           again: every op shares one pipeline layout)
//   3: xi  storage, read        array<u32>  with xi_on (a second pass of ArgMax / ArgMin):
//                                           the first pass's indices, laid out as x; the
//                                           winner's is written (else the host binds x)
//   4: p   uniform              Params
//
// Algorithm: one workgroup of 256 invocations per output element and section (2-D dispatch
// past 65,535). Each invocation folds a strided slice of the reduced run into a register, then a
// shared-memory tree halves 256 partials to one in 8 barrier-separated steps. The partials
// make the sum pairwise-like, so its error grows far slower than a serial f32 loop's.
// ArgMax / ArgMin carry (value, index) pairs through the same tree; a pair wins by PyTorch's
// CPU rule: NaN beats any number, then the larger (smaller) value, ties to the lower index.
// OP: one of the `OP_*` constants that `ReduceOp`'s table (reduce.rs) appends to this source:
// sum, mean (the sum divided by `count`), max, min (max/min propagate NaN), prod, argmax,
// argmin (value and index), all, any (1.0 / 0.0; nonzero by the bits, so NaN counts as true
// and -0.0 as false).

override OP: u32 = 0u;

struct Params {
    outer: u32,
    red: u32,
    inner: u32,
    x_offset: u32,
    span: u32,
    count: u32,
    xi_on: u32,
    _pad0: u32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<u32>;
@group(0) @binding(2) var<storage, read_write> yi: array<u32>;
@group(0) @binding(3) var<storage, read> xi: array<u32>;
@group(0) @binding(4) var<uniform> p: Params;

var<workgroup> part: array<f32, 256>;
var<workgroup> part_idx: array<u32, 256>;

// The index of a pair that holds no element yet (loses to every real one).
const NONE: u32 = 0xffffffffu;

fn identity() -> f32 {
    switch OP {
        // -inf / +inf are not WGSL literals; their bits are (the largest finite f32 would turn
        // a run of infinities into it). Empty max/min are refused on the host.
        case OP_MAX: { return bitcast<f32>(0xff800000u); }
        case OP_MIN: { return bitcast<f32>(0x7f800000u); }
        case OP_PROD, OP_ALL: { return 1.0; }
        default: { return 0.0; }
    }
}

// An element as the fold sees it: all / any fold truth values.
fn load(v: f32) -> f32 {
    if (OP == OP_ALL || OP == OP_ANY) {
        return select(0.0, 1.0, (bitcast<u32>(v) & 0x7fffffffu) != 0u);
    }
    return v;
}

fn combine(u: f32, v: f32) -> f32 {
    switch OP {
        case OP_MAX: { if (is_nan(u) || is_nan(v)) { return u + v; } return max(u, v); }
        case OP_MIN: { if (is_nan(u) || is_nan(v)) { return u + v; } return min(u, v); }
        case OP_PROD: { return u * v; }
        case OP_ALL: { return min(u, v); }
        case OP_ANY: { return max(u, v); }
        default: { return u + v; }
    }
}

// Whether pair (v, i) beats pair (u, j) for argmax / argmin.
fn beats(v: f32, i: u32, u: f32, j: u32) -> bool {
    if (i == NONE) {
        return false;
    }
    if (j == NONE) {
        return true;
    }
    let vn = is_nan(v);
    let un = is_nan(u);
    if (vn || un) {
        return vn && (!un || i < j);
    }
    if (v == u) {
        return i < j;
    }
    if (OP == OP_ARGMAX) {
        return v > u;
    }
    return v < u;
}

@compute @workgroup_size(256)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    // The same for the whole workgroup, so the early return keeps the barriers uniform.
    let out_idx = workgroup_index(wid, nwg);
    // At least one section: an empty run still writes its identity (or the NaN of a mean).
    let sections = max(p.red / p.span + select(0u, 1u, p.red % p.span != 0u), 1u);
    if (out_idx >= p.outer * sections * p.inner) {
        return;
    }
    let j = out_idx % p.inner;
    let s = (out_idx / p.inner) % sections;
    let o = out_idx / p.inner / sections;
    let base = p.x_offset + o * p.red * p.inner + j;
    let end = s * p.span + min(p.span, p.red - s * p.span);
    let arg = OP == OP_ARGMAX || OP == OP_ARGMIN;
    var acc = identity();
    var acc_idx = NONE;
    for (var r = s * p.span + lid; r < end; r += 256u) {
        let v = x[base + r * p.inner];
        if (arg) {
            if (beats(v, r, acc, acc_idx)) {
                acc = v;
                acc_idx = r;
            }
        } else {
            acc = combine(acc, load(v));
        }
    }
    part[lid] = acc;
    part_idx[lid] = acc_idx;
    workgroupBarrier();
    for (var s = 128u; s > 0u; s = s >> 1u) {
        if (lid < s) {
            if (arg) {
                if (beats(part[lid + s], part_idx[lid + s], part[lid], part_idx[lid])) {
                    part[lid] = part[lid + s];
                    part_idx[lid] = part_idx[lid + s];
                }
            } else {
                part[lid] = combine(part[lid], part[lid + s]);
            }
        }
        workgroupBarrier();
    }
    if (lid == 0u) {
        var v = part[0];
        if (OP == OP_MEAN) {
            v = v / f32(p.count);
        }
        y[out_idx] = bitcast<u32>(v);
        if (arg) {
            var i = part_idx[0];
            if (p.xi_on != 0u) {
                i = xi[base + i * p.inner];
            }
            yi[out_idx] = i;
        }
    }
}
