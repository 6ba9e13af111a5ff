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
// Algorithm: register tiling. A 16x16 workgroup owns a 64x64 tile of out; invocation (tx, ty)
// accumulates the 4x4 outputs at rows ty + 16*i, cols tx + 16*j in registers (interleaved so
// neighbouring invocations touch neighbouring columns). K advances 16 at a time: the
// workgroup stages a 64x16 slab of A and a 16x64 slab of B in shared memory (4 loads per
// invocation each, zero-padded at the edges), then each invocation does 16 rank-1 updates of
// its 4x4 block from 4 + 4 shared reads, i.e. 16 FMAs per 8 loads. Workgroup grid:
// x = column tiles, y = row tiles, z = batch (the host splits batches past 65,535 and passes
// the first one as batch_base).

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
}

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

const TILE: u32 = 64u;
const TK: u32 = 16u;

// ta[l * TILE + r]: A's slab transposed so the inner loop reads 4 rows of one k at once.
var<workgroup> ta: array<f32, 1024>;
// tb[l * TILE + c]
var<workgroup> tb: array<f32, 1024>;

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
    var acc: array<vec4<f32>, 4>;
    for (var i = 0u; i < 4u; i++) {
        acc[i] = vec4<f32>(0.0);
    }
    for (var k0 = 0u; k0 < p.k; k0 += TK) {
        for (var t = 0u; t < 4u; t++) {
            let e = li + t * 256u;
            // A: 16 consecutive invocations read 16 consecutive k of one row.
            let ar = e / TK;
            let al = e % TK;
            var va = 0.0;
            if (row0 + ar < p.m && k0 + al < p.k) {
                va = a[a_base + (row0 + ar) * p.a_rs + (k0 + al) * p.a_cs];
            }
            ta[al * TILE + ar] = va;
            // B: 64 consecutive invocations read 64 consecutive columns of one k.
            let bl = e / TILE;
            let bc = e % TILE;
            var vb = 0.0;
            if (k0 + bl < p.k && col0 + bc < p.n) {
                vb = b[b_base + (k0 + bl) * p.b_rs + (col0 + bc) * p.b_cs];
            }
            tb[bl * TILE + bc] = vb;
        }
        workgroupBarrier();
        for (var l = 0u; l < TK; l++) {
            let ra = vec4<f32>(
                ta[l * TILE + lid.y],
                ta[l * TILE + lid.y + 16u],
                ta[l * TILE + lid.y + 32u],
                ta[l * TILE + lid.y + 48u],
            );
            let rb = vec4<f32>(
                tb[l * TILE + lid.x],
                tb[l * TILE + lid.x + 16u],
                tb[l * TILE + lid.x + 32u],
                tb[l * TILE + lid.x + 48u],
            );
            acc[0] = fma(vec4<f32>(ra.x), rb, acc[0]);
            acc[1] = fma(vec4<f32>(ra.y), rb, acc[1]);
            acc[2] = fma(vec4<f32>(ra.z), rb, acc[2]);
            acc[3] = fma(vec4<f32>(ra.w), rb, acc[3]);
        }
        workgroupBarrier();
    }
    let out_base = batch * p.m * p.n;
    for (var i = 0u; i < 4u; i++) {
        let r = row0 + lid.y + 16u * i;
        if (r < p.m) {
            for (var j = 0u; j < 4u; j++) {
                let c = col0 + lid.x + 16u * j;
                if (c < p.n) {
                    out[out_base + r * p.n + c] = acc[i][j];
                }
            }
        }
    }
}
