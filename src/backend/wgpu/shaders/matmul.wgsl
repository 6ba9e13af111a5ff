// Batched matrix product: out[b] = A[b] @ B[b] for (m x k) @ (k x n), f32.
// A's element (b, i, l) is a[a_offset + b*a_bs + i*a_rs + l*a_cs] (B likewise), so transposed
// operands and broadcast batches (stride 0) are read in place, without copies.
//
// Bindings (group 0):
//   0: a    storage, read        array<f32>
//   1: b    storage, read        array<f32>
//   2: out  storage, read_write  array<f32>  contiguous [batch, m, n]
//   3: p    uniform              Params
//
// Two entry points, both register-tiled; the host picks `main` when the output has enough
// 128x128 tiles to fill the GPU, else `small` (more, smaller workgroups).
//
// main: a 16x16 workgroup owns a 128x128 tile of out; invocation (tx, ty) accumulates 8x8
// outputs in registers: rows 4ty..4ty+3 and 64+4ty..64+4ty+3, the same two column quads at
// 4tx and 64+4tx, so every shared-memory read is one aligned vec4. K advances 8 at a time
// through two shared slabs (double buffering): while the workgroup multiplies out of one slab,
// each invocation has already issued its global loads for the next (one vec4 of A and one of
// B, four scalars read along whichever direction is contiguous in memory, zero-padded at the
// edges), and stores them into the other slab after the multiply; one barrier per k-step.
// Slab rows are 132 floats (128 + 4 padding) so the vec4 stores of 8 k's hit distinct banks.
// Per k: 4 vec4 shared reads feed 64 FMAs.
//
// small: the same idea at 64x64 (4x4 per invocation, 16-deep k-steps, one slab).
//
// Workgroup grid: x = column tiles, y = row tiles, z = batch (the host splits batches past
// 65,535 and passes the first one as batch_base).
//
// A long k runs as several dispatches over consecutive k-sections, all but the first adding
// to out (`accumulate`): lavapipe stops a shader's loops after 65,535 iterations in all,
// silently, so one invocation never walks more than a section.

struct Params {
    m: u32,
    n: u32,
    k: u32,
    batch_base: u32,
    a_offset: u32,
    a_bs: u32,
    a_rs: u32,
    a_cs: u32,
    b_offset: u32,
    b_bs: u32,
    b_rs: u32,
    b_cs: u32,
    accumulate: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

const TILE: u32 = 128u;
const TK: u32 = 8u;
// vec4s per slab row (128 floats + 4 padding) and per slab (TK rows).
const ROW4: u32 = 33u;
const SLAB4: u32 = 264u;

// sa[slab * SLAB4 + l * ROW4 + r / 4]: A's k-slab transposed (rows along a slab row).
var<workgroup> sa: array<vec4<f32>, 528>;
// sb[slab * SLAB4 + l * ROW4 + c / 4]
var<workgroup> sb: array<vec4<f32>, 528>;

// Which (k, quad) of a slab invocation `li` stages: 8 consecutive invocations walk k when k is
// the contiguous direction in memory, else 32 walk the quads; both cover the 8x32 quads.
fn slab_slot(li: u32, k_contiguous: bool) -> vec2<u32> {
    if (k_contiguous) {
        return vec2<u32>(li % TK, li / TK);
    }
    return vec2<u32>(li / 32u, li % 32u);
}

// Four elements (rows 4q..4q+3 at depth l) of an operand viewed as [rows x k] with strides
// (rs, ks) from base; zero past `rows` or `k`.
fn gather4(
    src: u32, base: u32, rs: u32, ks: u32, row0: u32, rows: u32, kk: u32, k: u32,
) -> vec4<f32> {
    if (kk >= k) {
        return vec4<f32>(0.0);
    }
    return vec4<f32>(
        load1(src, base, rs, ks, row0, rows, kk),
        load1(src, base, rs, ks, row0 + 1u, rows, kk),
        load1(src, base, rs, ks, row0 + 2u, rows, kk),
        load1(src, base, rs, ks, row0 + 3u, rows, kk),
    );
}

fn load1(src: u32, base: u32, rs: u32, ks: u32, r: u32, rows: u32, kk: u32) -> f32 {
    if (r >= rows) {
        return 0.0;
    }
    if (src == 0u) {
        return a[base + r * rs + kk * ks];
    }
    return b[base + r * rs + kk * ks];
}

// out[o] = v, or += v for a later k-section.
fn emit(o: u32, v: f32) {
    if (p.accumulate != 0u) {
        out[o] += v;
    } else {
        out[o] = v;
    }
}

// Writes out[row r, cols c..c+3] of the current batch (those inside the matrix).
fn store4(o_base: u32, r: u32, c: u32, v: vec4<f32>) {
    if (r >= p.m) {
        return;
    }
    let o = o_base + r * p.n + c;
    if (c + 3u < p.n) {
        emit(o, v.x);
        emit(o + 1u, v.y);
        emit(o + 2u, v.z);
        emit(o + 3u, v.w);
        return;
    }
    for (var j = 0u; j < 4u; j++) {
        if (c + j < p.n) {
            emit(o + j, v[j]);
        }
    }
}

// One k of the slab starting at vec4 `s`: acc += (8 rows of A) x (8 columns of B).
fn rank1(acc: ptr<function, array<vec4<f32>, 16>>, s: u32, tx: u32, ty: u32) {
    let a0 = sa[s + ty];
    let a1 = sa[s + ty + 16u];
    let b0 = sb[s + tx];
    let b1 = sb[s + tx + 16u];
    (*acc)[0] = fma(vec4<f32>(a0.x), b0, (*acc)[0]);
    (*acc)[1] = fma(vec4<f32>(a0.x), b1, (*acc)[1]);
    (*acc)[2] = fma(vec4<f32>(a0.y), b0, (*acc)[2]);
    (*acc)[3] = fma(vec4<f32>(a0.y), b1, (*acc)[3]);
    (*acc)[4] = fma(vec4<f32>(a0.z), b0, (*acc)[4]);
    (*acc)[5] = fma(vec4<f32>(a0.z), b1, (*acc)[5]);
    (*acc)[6] = fma(vec4<f32>(a0.w), b0, (*acc)[6]);
    (*acc)[7] = fma(vec4<f32>(a0.w), b1, (*acc)[7]);
    (*acc)[8] = fma(vec4<f32>(a1.x), b0, (*acc)[8]);
    (*acc)[9] = fma(vec4<f32>(a1.x), b1, (*acc)[9]);
    (*acc)[10] = fma(vec4<f32>(a1.y), b0, (*acc)[10]);
    (*acc)[11] = fma(vec4<f32>(a1.y), b1, (*acc)[11]);
    (*acc)[12] = fma(vec4<f32>(a1.z), b0, (*acc)[12]);
    (*acc)[13] = fma(vec4<f32>(a1.z), b1, (*acc)[13]);
    (*acc)[14] = fma(vec4<f32>(a1.w), b0, (*acc)[14]);
    (*acc)[15] = fma(vec4<f32>(a1.w), b1, (*acc)[15]);
}

@compute @workgroup_size(16, 16)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(local_invocation_index) li: u32,
) {
    let batch = p.batch_base + wid.z;
    let row0 = wid.y * TILE;
    let col0 = wid.x * TILE;
    let a_base = p.a_offset + batch * p.a_bs;
    let b_base = p.b_offset + batch * p.b_bs;
    // What this invocation stages: A as [m x k] (strides a_rs, a_cs), B as [n x k] (b_cs, b_rs).
    let sl_a = slab_slot(li, p.a_cs == 1u);
    let sl_b = slab_slot(li, p.b_rs == 1u);
    let st_a = sl_a.x * ROW4 + sl_a.y;
    let st_b = sl_b.x * ROW4 + sl_b.y;
    // Zero-initialised, and only ever indexed by constants: a dynamic index would push the
    // accumulators out of registers into local memory (a 15x slowdown on an H100).
    var acc: array<vec4<f32>, 16>;
    var ra = gather4(0u, a_base, p.a_rs, p.a_cs, row0 + 4u * sl_a.y, p.m, sl_a.x, p.k);
    var rb = gather4(1u, b_base, p.b_cs, p.b_rs, col0 + 4u * sl_b.y, p.n, sl_b.x, p.k);
    sa[st_a] = ra;
    sb[st_b] = rb;
    workgroupBarrier();
    var cur = 0u;
    for (var k0 = 0u; k0 < p.k; k0 += TK) {
        let more = k0 + TK < p.k;
        if (more) {
            let kn = k0 + TK;
            ra = gather4(0u, a_base, p.a_rs, p.a_cs, row0 + 4u * sl_a.y, p.m, kn + sl_a.x, p.k);
            rb = gather4(1u, b_base, p.b_cs, p.b_rs, col0 + 4u * sl_b.y, p.n, kn + sl_b.x, p.k);
        }
        // The 8 k's of the slab, unrolled by hand (the driver then needs no loop analysis).
        let base = cur * SLAB4;
        rank1(&acc, base, lid.x, lid.y);
        rank1(&acc, base + ROW4, lid.x, lid.y);
        rank1(&acc, base + 2u * ROW4, lid.x, lid.y);
        rank1(&acc, base + 3u * ROW4, lid.x, lid.y);
        rank1(&acc, base + 4u * ROW4, lid.x, lid.y);
        rank1(&acc, base + 5u * ROW4, lid.x, lid.y);
        rank1(&acc, base + 6u * ROW4, lid.x, lid.y);
        rank1(&acc, base + 7u * ROW4, lid.x, lid.y);
        if (more) {
            let nxt = (1u - cur) * SLAB4;
            sa[nxt + st_a] = ra;
            sb[nxt + st_b] = rb;
        }
        workgroupBarrier();
        cur = 1u - cur;
    }
    let out_base = batch * p.m * p.n;
    let r0 = row0 + 4u * lid.y;
    let c0 = col0 + 4u * lid.x;
    store4(out_base, r0 + 0u, c0, acc[0]);
    store4(out_base, r0 + 0u, c0 + 64u, acc[1]);
    store4(out_base, r0 + 1u, c0, acc[2]);
    store4(out_base, r0 + 1u, c0 + 64u, acc[3]);
    store4(out_base, r0 + 2u, c0, acc[4]);
    store4(out_base, r0 + 2u, c0 + 64u, acc[5]);
    store4(out_base, r0 + 3u, c0, acc[6]);
    store4(out_base, r0 + 3u, c0 + 64u, acc[7]);
    store4(out_base, r0 + 64u, c0, acc[8]);
    store4(out_base, r0 + 64u, c0 + 64u, acc[9]);
    store4(out_base, r0 + 65u, c0, acc[10]);
    store4(out_base, r0 + 65u, c0 + 64u, acc[11]);
    store4(out_base, r0 + 66u, c0, acc[12]);
    store4(out_base, r0 + 66u, c0 + 64u, acc[13]);
    store4(out_base, r0 + 67u, c0, acc[14]);
    store4(out_base, r0 + 67u, c0 + 64u, acc[15]);
}

const S_TILE: u32 = 64u;
const S_TK: u32 = 16u;

// s_ta[l * S_TILE + r]: A's slab transposed so the inner loop reads 4 rows of one k at once.
var<workgroup> s_ta: array<f32, 1024>;
// s_tb[l * S_TILE + c]
var<workgroup> s_tb: array<f32, 1024>;

@compute @workgroup_size(16, 16)
fn small(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(local_invocation_index) li: u32,
) {
    let batch = p.batch_base + wid.z;
    let row0 = wid.y * S_TILE;
    let col0 = wid.x * S_TILE;
    let a_base = p.a_offset + batch * p.a_bs;
    let b_base = p.b_offset + batch * p.b_bs;
    var acc: array<vec4<f32>, 4>; // zeroed; constant indices only (see `main`)
    for (var k0 = 0u; k0 < p.k; k0 += S_TK) {
        for (var t = 0u; t < 4u; t++) {
            let e = li + t * 256u;
            // A: 16 consecutive invocations read 16 consecutive k of one row.
            let ar = e / S_TK;
            let al = e % S_TK;
            var va = 0.0;
            if (row0 + ar < p.m && k0 + al < p.k) {
                va = a[a_base + (row0 + ar) * p.a_rs + (k0 + al) * p.a_cs];
            }
            s_ta[al * S_TILE + ar] = va;
            // B: 64 consecutive invocations read 64 consecutive columns of one k.
            let bl = e / S_TILE;
            let bc = e % S_TILE;
            var vb = 0.0;
            if (k0 + bl < p.k && col0 + bc < p.n) {
                vb = b[b_base + (k0 + bl) * p.b_rs + (col0 + bc) * p.b_cs];
            }
            s_tb[bl * S_TILE + bc] = vb;
        }
        workgroupBarrier();
        for (var l = 0u; l < S_TK; l++) {
            let ra = vec4<f32>(
                s_ta[l * S_TILE + lid.y],
                s_ta[l * S_TILE + lid.y + 16u],
                s_ta[l * S_TILE + lid.y + 32u],
                s_ta[l * S_TILE + lid.y + 48u],
            );
            let rb = vec4<f32>(
                s_tb[l * S_TILE + lid.x],
                s_tb[l * S_TILE + lid.x + 16u],
                s_tb[l * S_TILE + lid.x + 32u],
                s_tb[l * S_TILE + lid.x + 48u],
            );
            acc[0] = fma(vec4<f32>(ra.x), rb, acc[0]);
            acc[1] = fma(vec4<f32>(ra.y), rb, acc[1]);
            acc[2] = fma(vec4<f32>(ra.z), rb, acc[2]);
            acc[3] = fma(vec4<f32>(ra.w), rb, acc[3]);
        }
        workgroupBarrier();
    }
    let out_base = batch * p.m * p.n;
    store_strided(out_base, row0 + lid.y, col0 + lid.x, acc[0]);
    store_strided(out_base, row0 + lid.y + 16u, col0 + lid.x, acc[1]);
    store_strided(out_base, row0 + lid.y + 32u, col0 + lid.x, acc[2]);
    store_strided(out_base, row0 + lid.y + 48u, col0 + lid.x, acc[3]);
}

// Writes out[row r, cols c, c+16, c+32, c+48] (those inside the matrix).
fn store_strided(o_base: u32, r: u32, c: u32, v: vec4<f32>) {
    if (r >= p.m) {
        return;
    }
    for (var j = 0u; j < 4u; j++) {
        if (c + 16u * j < p.n) {
            emit(o_base + r * p.n + c + 16u * j, v[j]);
        }
    }
}
