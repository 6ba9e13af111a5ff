// float16 rounding, appended to the shaders that write half values (copy, unary, binary):
// float16 tensors live on the GPU as float32 words holding half values (Note [Narrow dtypes]).

// The float32 bits of the half nearest to float32 `w` (ties to even; past the largest half,
// infinity), as the host's f16::from_f32 rounds. Done on the bits, because pack2x16float
// leaves both the rounding and out-of-range results to the implementation.
fn round_half(w: u32) -> u32 {
    let sign = w & 0x80000000u;
    let a = w & 0x7fffffffu;
    if (a >= 0x7f800000u) {
        return w; // inf, NaN
    }
    if (a >= 0x477ff000u) {
        return sign | 0x7f800000u; // rounds past 65504
    }
    if (a >= 0x38800000u) {
        // A normal half: keep 10 of the 23 mantissa bits.
        return sign | ((a + 0xfffu + ((a >> 13u) & 1u)) & 0xffffe000u);
    }
    // A subnormal half: a multiple of 2^-24 (round() ties to even; the scaling is exact).
    return sign | bitcast<u32>(round(bitcast<f32>(a) * 16777216.0) / 16777216.0);
}
