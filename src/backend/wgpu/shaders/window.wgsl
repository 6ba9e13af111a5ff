// Sliding 2-D windows (convolution and pooling), f32. OP (WindowOp in mod.rs):
//   0 im2col: x [N, C, H, W] -> cols [N, C*kh*kw, oh*ow]; taps in the padding read `pad`.
//   1 col2im: cols [N, C*kh*kw, oh*ow] -> y [N, C, H, W], each pixel the sum of the taps
//             that read it (the adjoint of im2col).
//
// Bindings (group 0):
//   0: src  storage, read        array<f32>  contiguous, read from element `offset` on
//   1: dst  storage, read_write  array<f32>  contiguous output
//   2: p    uniform              Params
//
// Algorithm: one invocation per output element, 256 per workgroup, 2-D dispatch past 65,535
// workgroups. col2im gathers instead of scattering: pixel (iy, ix) is read by tap (ki, kj)
// of window (y, x) when iy + pad_h - ki*dil_h = y*stride_h (same for x), so each invocation
// sums its at most kh*kw taps itself, with no atomics and a fixed order.

override OP: u32 = 0u;

struct Params {
    n: u32,
    total: u32,
    c: u32,
    offset: u32,
    h: u32,
    w: u32,
    oh: u32,
    ow: u32,
    kh: u32,
    kw: u32,
    sh: u32,
    sw: u32,
    ph: u32,
    pw: u32,
    dh: u32,
    dw: u32,
    pad: f32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

fn im2col(i: u32) -> f32 {
    // i = ((b * C*kh*kw + r) * oh + y) * ow + x, r = (ci * kh + ki) * kw + kj.
    let x = i % p.ow;
    let y = (i / p.ow) % p.oh;
    let r = i / (p.ow * p.oh);
    let kj = r % p.kw;
    let ki = (r / p.kw) % p.kh;
    let plane = r / (p.kw * p.kh); // b * C + ci
    let iy = i32(y * p.sh + ki * p.dh) - i32(p.ph);
    let ix = i32(x * p.sw + kj * p.dw) - i32(p.pw);
    if (iy < 0 || ix < 0 || iy >= i32(p.h) || ix >= i32(p.w)) {
        return p.pad;
    }
    return src[p.offset + (plane * p.h + u32(iy)) * p.w + u32(ix)];
}

fn col2im(i: u32) -> f32 {
    // i = (plane * H + iy) * W + ix, plane = b * C + ci.
    let ix = i % p.w;
    let iy = (i / p.w) % p.h;
    let plane = i / (p.w * p.h);
    let b = plane / p.c;
    let ci = plane % p.c;
    var sum = 0.0;
    for (var ki = 0u; ki < p.kh; ki++) {
        let ty = i32(iy + p.ph) - i32(ki * p.dh);
        if (ty < 0 || u32(ty) % p.sh != 0u || u32(ty) / p.sh >= p.oh) {
            continue;
        }
        let y = u32(ty) / p.sh;
        for (var kj = 0u; kj < p.kw; kj++) {
            let tx = i32(ix + p.pw) - i32(kj * p.dw);
            if (tx < 0 || u32(tx) % p.sw != 0u || u32(tx) / p.sw >= p.ow) {
                continue;
            }
            let x = u32(tx) / p.sw;
            let r = (b * p.c + ci) * p.kh * p.kw + ki * p.kw + kj;
            sum += src[p.offset + (r * p.oh + y) * p.ow + x];
        }
    }
    return sum;
}

@compute @workgroup_size(256)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let i = flat_index(gid, nwg);
    if (i >= p.total) {
        return;
    }
    if (OP == 0u) {
        dst[i] = im2col(i);
    } else {
        dst[i] = col2im(i);
    }
}
