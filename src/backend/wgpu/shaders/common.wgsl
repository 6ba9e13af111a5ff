// The prelude every shader is built with (context/pipeline.rs prepends it; WGSL has no
// includes): the dispatch index, the packed dims of the strided kernels, and NaN tested on the
// bits.

// The flat index of an invocation: launches are 1-D in workgroups of 256, folded into a 2-D
// grid past 65,535 workgroups (context/dispatch.rs), so y counts whole rows of x.
fn flat_index(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.x + gid.y * nwg.x * 256u;
}

// The flat index of a workgroup, for the kernels that give one workgroup a whole line or run.
fn workgroup_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wid.x + wid.y * nwg.x;
}

// Entry `d` of the eight (MAX_DIMS) sizes or strides a Params struct packs four to a vec4
// (uniform arrays have a 16-byte stride); the strided kernels unravel their flat index over
// the shape innermost dim first, dotting each coordinate with every operand's stride.
fn dim_u32(a: array<vec4<u32>, 2>, d: u32) -> u32 {
    return a[d / 4u][d % 4u];
}

fn dim_i32(a: array<vec4<i32>, 2>, d: u32) -> i32 {
    return a[d / 4u][d % 4u];
}

fn is_nan(v: f32) -> bool {
    // By the bits: drivers may fold v != v to false (lavapipe does).
    return (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u;
}

