// Strided copy with a cast: out[o] = cast(x[ix]) for every index of `shape`, both sides
// strided (signed strides: flipped views), 32-bit words.
//
// Bindings (group 0):
//   0: x    storage, read        array<u32>  the source words
//   1: out  storage, read_write  array<u32>  written only at the view's elements
//   2: p    uniform              Params
//
// Algorithm: one invocation per element, 256 per workgroup, 2-D dispatch past 65,535
// workgroups; the flat index is unravelled over the shape (at most 8 dims, innermost last)
// and dotted with each side's strides. Words are moved as bits, so one kernel serves every
// dtype the GPU holds: float32, bool (as float32 0.0 / 1.0), int64 and int32 (as int32), and
// float16 (as float32 words holding half values).
// OP (CopyOp in mod.rs): 0 same dtype, 1 int -> float, 2 float -> int (toward zero),
// 3 float -> bool, 4 int -> bool, 5 float -> half, 6 int -> half.

override OP: u32 = 0u;

struct Params {
    n: u32,
    ndim: u32,
    x_offset: u32,
    o_offset: u32,
    // Eight per array, packed four to a vec4 (uniform arrays have a 16-byte stride).
    shape: array<vec4<u32>, 2>,
    x_strides: array<vec4<i32>, 2>,
    o_strides: array<vec4<i32>, 2>,
}

@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<uniform> p: Params;

const ONE: u32 = 0x3f800000u; // 1.0f

fn convert(w: u32) -> u32 {
    switch OP {
        // round_half: half.wgsl, appended to this shader.
        case 5u: { return round_half(w); }
        case 6u: { return round_half(bitcast<u32>(f32(bitcast<i32>(w)))); }
        case 1u: { return bitcast<u32>(f32(bitcast<i32>(w))); }
        case 2u: { return bitcast<u32>(i32(trunc(bitcast<f32>(w)))); }
        // By the bits, so -0.0 is false and NaN true, as C's (bool) cast.
        case 3u: { return select(0u, ONE, (w & 0x7fffffffu) != 0u); }
        case 4u: { return select(0u, ONE, w != 0u); }
        default: { return w; }
    }
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
    var rem = i;
    var ix = i32(p.x_offset);
    var io = i32(p.o_offset);
    for (var d = i32(p.ndim) - 1; d >= 0; d--) {
        let size = dim_u32(p.shape, u32(d));
        let c = i32(rem % size);
        rem = rem / size;
        ix += c * dim_i32(p.x_strides, u32(d));
        io += c * dim_i32(p.o_strides, u32(d));
    }
    out[u32(io)] = convert(x[u32(ix)]);
}
