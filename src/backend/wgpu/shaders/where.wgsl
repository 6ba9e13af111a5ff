// Select with broadcasting: out[i] = cond[ic] != 0 ? a[ia] : b[ib], 32-bit words.
//
// Bindings (group 0):
//   0: cond  storage, read        array<u32>  a bool tensor (float32 0.0 / 1.0)
//   1: a     storage, read        array<u32>
//   2: b     storage, read        array<u32>
//   3: out   storage, read_write  array<u32>  contiguous, n elements of the output shape
//   4: p     uniform              Params
//
// Algorithm: binary.wgsl's (one invocation per output element, the flat index unravelled
// over at most 8 dims and dotted with each operand's strides, 0 on broadcast dims) with a
// third operand. The words are moved as bits, so any dtype the GPU holds can be selected.

struct Params {
    n: u32,
    ndim: u32,
    c_offset: u32,
    a_offset: u32,
    b_offset: u32,
    _pad0: u32,
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
    let i = gid.x + gid.y * nwg.x * 256u;
    if (i >= p.n) {
        return;
    }
    var rem = i;
    var ic = p.c_offset;
    var ia = p.a_offset;
    var ib = p.b_offset;
    for (var d = i32(p.ndim) - 1; d >= 0; d--) {
        let q = u32(d) / 4u;
        let r = u32(d) % 4u;
        let size = p.shape[q][r];
        let c = rem % size;
        rem = rem / size;
        ic += c * p.c_strides[q][r];
        ia += c * p.a_strides[q][r];
        ib += c * p.b_strides[q][r];
    }
    out[i] = select(b[ib], a[ia], cond[ic] != 0u);
}
