// Stable sort along the middle dim of a contiguous [outer, len, inner] block: each line
// (o, ., j) sorted ascending or descending, giving the sorted words and the position in the
// line each came from, contiguous in the same shape.
//
// Bindings (group 0):
//   0: x     storage, read        array<u32>  the block's words (float32 or int32)
//   1: keys  storage, read_write  array<u32>  scratch for long lines: lines * pow2 keys
//   2: pos   storage, read_write  array<u32>  scratch: the positions they belong to
//   3: vals  storage, read_write  array<u32>  sorted words, [outer, len, inner]
//   4: idx   storage, read_write  array<u32>  their positions (int32), [outer, len, inner]
//   5: p     uniform              Params
//
// Algorithm: a bitonic sorting network over each line padded to pow2 elements. It compares
// (key, position) pairs, so the order is total and ties keep their order. A key is the word
// mapped to an unsigned integer in sort order (float: NaN the largest, -0 equal to 0; int32:
// sign bit flipped), complemented for descending; padding has the largest key and a position
// past the line, so it sorts last either way.
// `main`: one workgroup per BLOCK elements of a line runs, in shared memory, the network's
// stages k_lo..=k_hi (powers of two), each step j < min(k, BLOCK); it loads from x on the
// first pass and writes vals/idx on the last (else it goes through the scratch buffers).
// `step`: one invocation per compare-exchange pair runs step (k_lo, j >= BLOCK) in the scratch
// buffers. A line of up to BLOCK elements takes one `main`; a longer one `main` up to stage
// BLOCK, then for each later stage its `step`s down to BLOCK and a `main` for the rest.
// OP: bit 0 set for int32 words (else float32).

override OP: u32 = 0u;

struct Params {
    outer: u32,
    len: u32,
    inner: u32,
    x_offset: u32,
    pow2: u32,
    k_lo: u32,
    k_hi: u32,
    j: u32,
    first: u32,
    last: u32,
    descending: u32,
    _pad: u32,
}

@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read_write> keys: array<u32>;
@group(0) @binding(2) var<storage, read_write> pos: array<u32>;
@group(0) @binding(3) var<storage, read_write> vals: array<u32>;
@group(0) @binding(4) var<storage, read_write> idx: array<u32>;
@group(0) @binding(5) var<uniform> p: Params;

const BLOCK: u32 = 1024u;

var<workgroup> sk: array<u32, 1024>;
var<workgroup> sp: array<u32, 1024>;

// Where element r of line `line` sits in the block.
fn at(line: u32, r: u32) -> u32 {
    return (line / p.inner * p.len + r) * p.inner + line % p.inner;
}

fn sort_key(w: u32) -> u32 {
    var k: u32;
    let mag = w & 0x7fffffffu;
    if ((OP & 1u) != 0u) {
        k = w ^ 0x80000000u;
    } else if (mag > 0x7f800000u) {
        k = 0xffffffffu; // NaN, any sign or payload
    } else if (mag == 0u) {
        k = 0x80000000u; // -0 and +0
    } else if (w != mag) {
        k = ~w; // negative: larger magnitudes first
    } else {
        k = w | 0x80000000u;
    }
    if (p.descending != 0u) {
        return ~k;
    }
    return k;
}

// Whether pair (ka, pa) sorts before (kb, pb).
fn before(ka: u32, pa: u32, kb: u32, pb: u32) -> bool {
    return ka < kb || (ka == kb && pa < pb);
}

// Pair q's lower element in a network step of width j: q with a zero bit inserted at j.
fn lower(q: u32, j: u32) -> u32 {
    return ((q & ~(j - 1u)) << 1u) | (q & (j - 1u));
}

@compute @workgroup_size(256)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let n = min(p.pow2, BLOCK);
    let blocks = p.pow2 / n;
    // Uniform for the whole workgroup, so the early return keeps the barriers uniform.
    let g = workgroup_index(wid, nwg);
    if (g >= p.outer * p.inner * blocks) {
        return;
    }
    let line = g / blocks;
    let b0 = g % blocks * n;
    let row = line * p.pow2 + b0;
    for (var t = lid; t < n; t += 256u) {
        let r = b0 + t;
        if (p.first != 0u) {
            var k = 0xffffffffu;
            if (r < p.len) {
                k = sort_key(x[p.x_offset + at(line, r)]);
            }
            sk[t] = k;
            sp[t] = r;
        } else {
            sk[t] = keys[row + t];
            sp[t] = pos[row + t];
        }
    }
    workgroupBarrier();
    for (var k = p.k_lo; k <= p.k_hi; k = k << 1u) {
        for (var j = min(k, n) >> 1u; j > 0u; j = j >> 1u) {
            for (var q = lid; q < n / 2u; q += 256u) {
                let i = lower(q, j);
                let l = i | j;
                let ascending = ((b0 + i) & k) == 0u;
                let ka = sk[i];
                let pa = sp[i];
                let kb = sk[l];
                let pb = sp[l];
                if (before(kb, pb, ka, pa) == ascending) {
                    sk[i] = kb;
                    sp[i] = pb;
                    sk[l] = ka;
                    sp[l] = pa;
                }
            }
            workgroupBarrier();
        }
    }
    for (var t = lid; t < n; t += 256u) {
        let r = b0 + t;
        if (p.last == 0u) {
            keys[row + t] = sk[t];
            pos[row + t] = sp[t];
        } else if (r < p.len) {
            let o = at(line, r);
            vals[o] = x[p.x_offset + at(line, sp[t])];
            idx[o] = sp[t];
        }
    }
}

@compute @workgroup_size(256)
fn step(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let half = p.pow2 / 2u;
    let t = workgroup_index(wid, nwg) * 256u + lid;
    if (t >= p.outer * p.inner * half) {
        return;
    }
    let line = t / half;
    let i = lower(t % half, p.j);
    let l = i | p.j;
    let a = line * p.pow2 + i;
    let b = line * p.pow2 + l;
    let ka = keys[a];
    let pa = pos[a];
    let kb = keys[b];
    let pb = pos[b];
    if (before(kb, pb, ka, pa) == ((i & p.k_lo) == 0u)) {
        keys[a] = kb;
        pos[a] = pb;
        keys[b] = ka;
        pos[b] = pa;
    }
}
