// Ternary elementwise ops with broadcasting, 32-bit words. OP: one of the `OP_*` constants
// that `TernaryOp`'s table (elementwise.rs) appends to this source:
//   OP_SELECT: out[i] = cond[ic] != 0 ? a[ia] : b[ib] (the words moved as bits)
//   OP_LERP:   out[i] = a + w (b - a) from the nearer end, w = cond[ic] (all float32)
//
// Bindings (group 0):
//   0: cond  storage, read        array<u32>  a bool tensor (float32 0.0 / 1.0)
//   1: a     storage, read        array<u32>
//   2: b     storage, read        array<u32>
//   3: out   storage, read_write  array<u32>  contiguous, n elements from o_offset
//   4: p     uniform              Params
//
// Algorithm: binary.wgsl's (one invocation per output element, the flat index unravelled
// over at most 8 dims and dotted with each operand's strides, 0 on broadcast dims) with a
// third operand. Select moves words as bits, so any dtype the GPU holds can be selected.

override OP: u32 = 0u;

struct Params {
    n: u32,
    ndim: u32,
    c_offset: u32,
    a_offset: u32,
    b_offset: u32,
    o_offset: u32,
    _pad1: u32,
    _pad2: u32,
    // Eight u32 per array, packed four to a vec4 (uniform arrays have a 16-byte stride).
    shape: array<vec4<u32>, 2>,
    c_strides: array<vec4<u32>, 2>,
    a_strides: array<vec4<u32>, 2>,
    b_strides: array<vec4<u32>, 2>,
}

@group(0) @binding(0) var<storage, read> cond: array<u32>;
@group(0) @binding(1) var<storage, read> a: array<u32>;
@group(0) @binding(2) var<storage, read> b: array<u32>;
@group(0) @binding(3) var<storage, read_write> out: array<u32>;
@group(0) @binding(4) var<uniform> p: Params;

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
    var ic = p.c_offset;
    var ia = p.a_offset;
    var ib = p.b_offset;
    for (var d = i32(p.ndim) - 1; d >= 0; d--) {
        let size = dim_u32(p.shape, u32(d));
        let c = rem % size;
        rem = rem / size;
        ic += c * dim_u32(p.c_strides, u32(d));
        ia += c * dim_u32(p.a_strides, u32(d));
        ib += c * dim_u32(p.b_strides, u32(d));
    }
    if (OP == OP_LERP) {
        // PyTorch's lerp: start + w (end - start) for |w| < 0.5, else end - (end - start)(1 - w).
        let w = bitcast<f32>(cond[ic]);
        let s = bitcast<f32>(a[ia]);
        let e = bitcast<f32>(b[ib]);
        let d = e - s;
        out[p.o_offset + i] = bitcast<u32>(select(e - d * (1.0 - w), s + w * d, abs(w) < 0.5));
        return;
    }
    out[p.o_offset + i] = select(b[ib], a[ia], cond[ic] != 0u);
}
