// Indexing along one dim: gather (out[c] = a[c with c[dim] = idx[c]]) and scatter
// (out[c with c[dim] = idx[c]] = a[c], or += a[c]) over the index's shape, 32-bit words.
//
// Bindings (group 0):
//   0: a    storage, read        array<u32>          the values read (gather: the source
//                                                    tensor; scatter: the src values)
//   1: idx  storage, read        array<i32>          the index (int64 narrowed to int32)
//   2: out  storage, read_write  array<atomic<u32>>  gather: the contiguous output;
//                                                    scatter: the tensor written in place
//   3: p    uniform              Params
//
// Algorithm: one invocation per index element, 256 per workgroup, 2-D dispatch past 65,535
// workgroups. The flat index is unravelled over the shape (at most 8 dims, innermost last)
// and dotted with each view's strides, except that the indexed side (a for gather, out for
// scatter) takes the index value at `dim` instead of the coordinate. A negative index wraps
// once (as PyTorch's index_select); the host has checked the values, and one still outside
// 0..size is skipped so a bad index can never reach outside the view. WGSL has no float
// atomics, so the float add is a compare-exchange loop on the float's bits; the int add is
// a plain atomicAdd (two's complement, so signed). `out` is atomic for every OP (one binding
// layout); plain writes are atomicStore. Duplicate indices of a scatter write leave one of
// the values, as PyTorch's GPU scatter.
// OP (IndexOp in mod.rs): 0 gather, 1 scatter, 2 scatter add float32, 3 scatter add int32.
//
// OPs 4-6 find the non-zero words of a contiguous `a` (nonzero, masked_select), a stream
// compaction whose output size depends on the data: 4 counts each 256-element block's
// non-zeros into out[1 + block]; 5 (one workgroup, a chunk of blocks per invocation: one
// invocation looping over every block stopped short past 65,535 of them on lavapipe) turns
// those counts into exclusive block offsets in place and writes the total to out[0], the one
// number the host reads back to size the result; 6 ranks each non-zero within its block (a
// workgroup's flags in shared memory) and writes its coordinates over `shape` at row
// (offset + rank) of `out`, reading the offsets through `idx`. `size` is 1 for int32 words (zero is 0) and 0 for float words
// (bool included; zero is +-0.0).

override OP: u32 = 0u;

struct Params {
    n: u32,
    ndim: u32,
    dim: u32,
    size: u32,
    a_offset: u32,
    i_offset: u32,
    o_offset: u32,
    _pad: u32,
    // Eight per array, packed four to a vec4 (uniform arrays have a 16-byte stride).
    shape: array<vec4<u32>, 2>,
    a_strides: array<vec4<i32>, 2>,
    i_strides: array<vec4<i32>, 2>,
    o_strides: array<vec4<i32>, 2>,
}

@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read> idx: array<i32>;
@group(0) @binding(2) var<storage, read_write> out: array<atomic<u32>>;
@group(0) @binding(3) var<uniform> p: Params;

var<workgroup> flags: array<u32, 256>;

fn nonzero_at(i: u32) -> bool {
    if (i >= p.n) {
        return false;
    }
    let w = a[p.a_offset + i];
    if (p.size == 1u) {
        return w != 0u;
    }
    return (w & 0x7fffffffu) != 0u;
}

fn compact(i: u32, l: u32) {
    let f = nonzero_at(i);
    flags[l] = select(0u, 1u, f);
    workgroupBarrier();
    if (!f) {
        return;
    }
    var rank = 0u;
    for (var j = 0u; j < l; j++) {
        rank += flags[j];
    }
    let row = u32(idx[1u + i / 256u]) + rank;
    var rem = i;
    for (var d = i32(p.ndim) - 1; d >= 0; d--) {
        let size = dim_u32(p.shape, u32(d));
        atomicStore(&out[row * p.ndim + u32(d)], rem % size);
        rem = rem / size;
    }
}

@compute @workgroup_size(256)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) l: u32,
) {
    let i = flat_index(gid, nwg);
    if (OP == 6u) {
        // Before any early return: every invocation reaches the barrier.
        compact(i, l);
        return;
    }
    if (OP == 5u) {
        // One workgroup: each invocation sums a chunk of the block counts, the chunk sums
        // are ranked through shared memory, then each chunk is rewritten as offsets.
        let chunk = (p.n + 255u) / 256u;
        let lo = min(l * chunk, p.n);
        let hi = min(lo + chunk, p.n);
        var sum = 0u;
        for (var b = lo; b < hi; b++) {
            sum += atomicLoad(&out[1u + b]);
        }
        flags[l] = sum;
        workgroupBarrier();
        var run = 0u;
        for (var j = 0u; j < l; j++) {
            run += flags[j];
        }
        for (var b = lo; b < hi; b++) {
            let c = atomicLoad(&out[1u + b]);
            atomicStore(&out[1u + b], run);
            run += c;
        }
        if (l == 255u) {
            atomicStore(&out[0], run);
        }
        return;
    }
    if (OP == 4u) {
        if (nonzero_at(i)) {
            atomicAdd(&out[1u + i / 256u], 1u);
        }
        return;
    }
    if (i >= p.n) {
        return;
    }
    let gather = OP == 0u;
    var rem = i;
    var ia = i32(p.a_offset);
    var ii = i32(p.i_offset);
    var io = i32(p.o_offset);
    // The indexed side's stride along `dim`, which the index value multiplies.
    var step = 0;
    for (var d = i32(p.ndim) - 1; d >= 0; d--) {
        let size = dim_u32(p.shape, u32(d));
        let c = i32(rem % size);
        rem = rem / size;
        ii += c * dim_i32(p.i_strides, u32(d));
        if (u32(d) == p.dim) {
            if (gather) {
                step = dim_i32(p.a_strides, u32(d));
                io += c * dim_i32(p.o_strides, u32(d));
            } else {
                step = dim_i32(p.o_strides, u32(d));
                ia += c * dim_i32(p.a_strides, u32(d));
            }
        } else {
            ia += c * dim_i32(p.a_strides, u32(d));
            io += c * dim_i32(p.o_strides, u32(d));
        }
    }
    var k = idx[u32(ii)];
    if (k < 0) {
        k += i32(p.size);
    }
    if (k < 0 || k >= i32(p.size)) {
        return;
    }
    if (gather) {
        atomicStore(&out[u32(io)], a[u32(ia + k * step)]);
        return;
    }
    let at = u32(io + k * step);
    let v = a[u32(ia)];
    switch OP {
        case 2u: {
            var old = atomicLoad(&out[at]);
            loop {
                let sum = bitcast<u32>(bitcast<f32>(old) + bitcast<f32>(v));
                let r = atomicCompareExchangeWeak(&out[at], old, sum);
                if (r.exchanged) {
                    break;
                }
                old = r.old_value;
            }
        }
        case 3u: { atomicAdd(&out[at], v); }
        default: { atomicStore(&out[at], v); }
    }
}
