//! The declared elementwise binary math ops, each declared once (Note [Op declarations] in
//! `ops/unary.rs`); `ops/binary_math.rs` generates the rest from this table.
//!
//! An entry: `Variant python_name { ... }` with
//! - `node`: PyTorch's node name, and `node_scalar` the one when `other` is a Python number;
//! - `dtypes`: the dtype rule ([`BinaryDtypes`](super::binary_math::BinaryDtypes));
//! - `cpu`: the kernel on two float32 or float64 values `a`, `b` (of type `T`);
//! - `wgsl`: the same as a WGSL expression in `x`, `y` (helpers in `shaders/binary.wgsl`);
//! - `grad_self`, `grad_other`: the derivatives as tensor formulas in `g`, `a`, `b`;
//! - `arg`: the second argument's Python name; `number`: whether it may be a Python number;
//! - `methods` / `inplace` / `functions` / `sig` as for the unary ops.

/// Invokes `$m!` with the table of binary math ops (the X-macro pattern).
macro_rules! binary_table {
    ($m:ident) => {
        $m! {
            /// Element-wise arctangent of `self_i / other_i` with consideration of the quadrant:
            /// the signed angle in radians between the vector `(other_i, self_i)` and `(1, 0)`
            /// (`other` is the x-coordinate, `self` the y-coordinate). The shapes must be
            /// broadcastable. `arctan2` is an alias.
            ///
            /// Args:
            ///     other (Tensor): the second input tensor (the x-coordinates).
            ///
            /// Example:
            ///     >>> y = gradrs.tensor([1.0, 1.0, -1.0, 0.0])
            ///     >>> x = gradrs.tensor([1.0, -1.0, -1.0, -1.0])
            ///     >>> y.atan2(x)
            ///     tensor([ 0.7854,  2.3562, -2.3562,  3.1416])
            Atan2 atan2 {
                node: "Atan2Backward0", node_scalar: "Atan2Backward0",
                dtypes: BinaryDtypes::Float,
                cpu: |a, b| a.atan2(b),
                wgsl: "atan2_(x, y)",
                grad_self: |g, a, b| div(&mul(g, b)?, &add(&mul(a, a)?, &mul(b, b)?)?),
                grad_other: |g, a, b| div(&mul(&neg(g)?, a)?, &add(&mul(a, a)?, &mul(b, b)?)?),
                arg: other, number: false,
                methods: [atan2, arctan2], inplace: [atan2_, arctan2_], functions: [atan2, arctan2],
                sig: BINARY,
            }
            /// Computes `self * log(other)`, with `0` where `self` is `0` (even where `other` is
            /// `0` or `inf`), and `nan` where `other` is `nan`. The shapes must be broadcastable.
            ///
            /// Args:
            ///     other (Tensor or Number): the tensor whose logarithm multiplies `self`.
            ///
            /// Example:
            ///     >>> x = gradrs.tensor([0.0, 0.0, 0.0, -1.0, 2.0])
            ///     >>> y = gradrs.tensor([-1.0, 0.0, float('nan'), 2.0, 4.0])
            ///     >>> x.xlogy(y)
            ///     tensor([ 0.0000,  0.0000,     nan, -0.6931,  2.7726])
            ///     >>> x.xlogy(3)
            ///     tensor([ 0.0000,  0.0000,  0.0000, -1.0986,  2.1972])
            Xlogy xlogy {
                node: "XlogyBackward0", node_scalar: "XlogyBackward2",
                dtypes: BinaryDtypes::Float,
                cpu: |a, b| if b.is_nan() { b } else if a == 0.0 { 0.0 } else { a * b.ln() },
                wgsl: "select(select(x * log(y), 0.0, x == 0.0), y, is_nan(y))",
                // xlogy(g, b), zero where a == 0 and b <= 0 (PyTorch's formula).
                grad_self: |g, a, b| where_(&mul(&eq(a, 0.0)?, &le(b, 0.0)?)?, 0, &xlogy(g, b)?),
                grad_other: |g, a, b| div(&mul(g, a)?, b),
                arg: other, number: true,
                methods: [xlogy], inplace: [xlogy_], functions: [xlogy, xlogy_],
                sig: "(Tensor input, Tensor other, *, Tensor out = None)",
            }
            /// Given the legs of right triangles, returns their hypotenuse:
            /// `out_i = sqrt(self_i^2 + other_i^2)`. The shapes must be broadcastable.
            ///
            /// Args:
            ///     other (Tensor): the second input tensor.
            ///
            /// Example:
            ///     >>> gradrs.tensor([4.0]).hypot(gradrs.tensor([3.0, 4.0, 5.0]))
            ///     tensor([5.0000, 5.6569, 6.4031])
            Hypot hypot {
                node: "HypotBackward0", node_scalar: "HypotBackward0",
                dtypes: BinaryDtypes::FloatOnly("hypot_cpu"),
                cpu: |a, b| a.hypot(b),
                wgsl: "hypot_(x, y)",
                grad_self: |g, a, b| div(&mul(g, a)?, &hypot(a, b)?),
                grad_other: |g, a, b| div(&mul(g, b)?, &hypot(a, b)?),
                arg: other, number: false,
                methods: [hypot], inplace: [hypot_], functions: [hypot],
                sig: BINARY,
            }
            /// Creates a new floating-point tensor with the magnitude of `self` and the sign (the
            /// sign bit, so `-0.0` counts as negative) of `other`, element-wise. Supports
            /// broadcasting, and integer and float inputs.
            ///
            /// Args:
            ///     other (Tensor or Number): the values whose sign bits are applied to the
            ///         magnitudes in `self`.
            ///
            /// Example:
            ///     >>> a = gradrs.tensor([-1.2557, -0.0026, 0.4740])
            ///     >>> a.copysign(1)
            ///     tensor([1.2557, 0.0026, 0.4740])
            ///     >>> a.copysign(gradrs.tensor([0.0, -0.0, -2.0]))
            ///     tensor([ 1.2557, -0.0026, -0.4740])
            Copysign copysign {
                node: "CopysignBackward0", node_scalar: "CopysignBackward1",
                dtypes: BinaryDtypes::Float,
                cpu: |a, b| a.copysign(b),
                wgsl: "bitcast<f32>((bitcast<u32>(x) & 0x7fffffffu) | (bitcast<u32>(y) & 0x80000000u))",
                // result / self, zero where self is (PyTorch's copysign_tensor_self_backward).
                grad_self: |g, a, b| mul(g, &where_(&eq(a, 0.0)?, 0, &div(&copysign(a, b)?, a)?)?),
                grad_other: |_g, _a, b| Ok(zeros_like(b)),
                arg: other, number: true,
                methods: [copysign], inplace: [copysign_], functions: [copysign],
                sig: "(Tensor input, Tensor other, *, Tensor out = None)",
            }
            /// Logarithm of the sum of exponentiations of `self` and `other`, element-wise:
            /// `log(e^self + e^other)`, without overflow or underflow for large or small values
            /// (useful for adding probabilities stored as logarithms). Not to be confused with
            /// `logsumexp`, a reduction over one tensor.
            ///
            /// Args:
            ///     other (Tensor): the second input tensor.
            ///
            /// Example:
            ///     >>> gradrs.tensor([-1.0]).logaddexp(gradrs.tensor([-1.0, -2.0, -3.0]))
            ///     tensor([-0.3069, -0.6867, -0.8731])
            ///     >>> a = gradrs.tensor([-100.0, -200.0, -300.0])
            ///     >>> a.logaddexp(gradrs.tensor([-1.0, -2.0, -3.0]))
            ///     tensor([-1., -2., -3.])
            Logaddexp logaddexp {
                node: "LogaddexpBackward0", node_scalar: "LogaddexpBackward0",
                dtypes: BinaryDtypes::FloatOnly("logaddexp_cpu"),
                cpu: |a, b| if a.is_infinite() && a == b { a } else { (if a < b { b } else { a }) + (-(a - b).abs()).exp().ln_1p() },
                wgsl: "logaddexp_(x, y)",
                grad_self: |g, a, b| div(g, &add(&exp(&sub(b, a)?)?, 1.0)?),
                grad_other: |g, a, b| div(g, &add(&exp(&sub(a, b)?)?, 1.0)?),
                arg: other, number: false,
                methods: [logaddexp], inplace: [], functions: [logaddexp],
                sig: BINARY,
            }
            /// Logarithm in base 2 of the sum of powers of two of `self` and `other`, element-wise:
            /// `log2(2^self + 2^other)`. See `logaddexp`.
            ///
            /// Args:
            ///     other (Tensor): the second input tensor.
            ///
            /// Example:
            ///     >>> gradrs.tensor([0.0, 1.0, -10.0]).logaddexp2(gradrs.tensor([0.0, 3.0, 1.0]))
            ///     tensor([1.0000, 3.3219, 1.0007])
            Logaddexp2 logaddexp2 {
                node: "Logaddexp2Backward0", node_scalar: "Logaddexp2Backward0",
                dtypes: BinaryDtypes::FloatOnly("logaddexp2_cpu"),
                cpu: |a, b| if a.is_infinite() && a == b { a } else { (if a < b { b } else { a }) + (-(a - b).abs()).exp2().ln_1p() * (1.0 / LN_2) as T },
                wgsl: "logaddexp2_(x, y)",
                grad_self: |g, a, b| div(g, &add(&exp2(&sub(b, a)?)?, 1.0)?),
                grad_other: |g, a, b| div(g, &add(&exp2(&sub(a, b)?)?, 1.0)?),
                arg: other, number: false,
                methods: [logaddexp2], inplace: [], functions: [logaddexp2],
                sig: BINARY,
            }
            /// Computes the Heaviside step function of each element of `self`: `0` where `self <
            /// 0`, `values` where `self == 0`, `1` where `self > 0`.
            ///
            /// Args:
            ///     values (Tensor): the values to use where `self` is zero (broadcast to `self`).
            ///
            /// Example:
            ///     >>> x = gradrs.tensor([-1.5, 0.0, 2.0])
            ///     >>> x.heaviside(gradrs.tensor([0.5]))
            ///     tensor([0.0000, 0.5000, 1.0000])
            ///     >>> x.heaviside(gradrs.tensor([1.2, -2.0, 3.5]))
            ///     tensor([ 0., -2.,  1.])
            Heaviside heaviside {
                node: "NotImplemented", node_scalar: "NotImplemented",
                dtypes: BinaryDtypes::Same(
                    "heaviside is not yet implemented for tensors with different dtypes.",
                    |a, b| if a == 0 { b } else { i64::from(a > 0) },
                    |a, b| a || b,
                ),
                cpu: |a, b| if a == 0.0 { b } else if a > 0.0 { 1.0 } else { 0.0 },
                wgsl: "select(select(0.0, 1.0, x > 0.0), y, x == 0.0)",
                grad_self: |_g, _a, _b| not_implemented("heaviside"),
                grad_other: |_g, _a, _b| not_implemented("heaviside"),
                arg: values, number: false,
                methods: [heaviside], inplace: [heaviside_], functions: [heaviside],
                sig: "(Tensor input, Tensor values, *, Tensor out = None)",
            }
            // torch.special's orthogonal polynomials in x of degree n (a float, truncated as
            // PyTorch's kernels do): not differentiable in PyTorch (no node), float16 refused.
            SpecialChebyshevPolynomialT special_chebyshev_polynomial_t {
                node: "", node_scalar: "",
                dtypes: BinaryDtypes::FloatNoHalf("chebyshev_polynomial_t_cpu"),
                cpu: |a, b| <T as crate::ops::special_fns::SpecialFns>::chebyshev_t(a, b),
                wgsl: "chebyshev_t_(x, y)",
                grad_self: |_g, _a, _b| not_differentiable(),
                grad_other: |_g, _a, _b| not_differentiable(),
                arg: n, number: true,
                methods: [], inplace: [], functions: [],
                sig: "(Tensor x, Tensor n, *, Tensor out = None)",
            }
            SpecialChebyshevPolynomialU special_chebyshev_polynomial_u {
                node: "", node_scalar: "",
                dtypes: BinaryDtypes::FloatNoHalf("chebyshev_polynomial_u_cpu"),
                cpu: |a, b| <T as crate::ops::special_fns::SpecialFns>::chebyshev_u(a, b),
                wgsl: "chebyshev_u_(x, y)",
                grad_self: |_g, _a, _b| not_differentiable(),
                grad_other: |_g, _a, _b| not_differentiable(),
                arg: n, number: true,
                methods: [], inplace: [], functions: [],
                sig: "(Tensor x, Tensor n, *, Tensor out = None)",
            }
            SpecialChebyshevPolynomialV special_chebyshev_polynomial_v {
                node: "", node_scalar: "",
                dtypes: BinaryDtypes::FloatNoHalf("chebyshev_polynomial_v_cpu"),
                cpu: |a, b| <T as crate::ops::special_fns::SpecialFns>::chebyshev_v(a, b),
                wgsl: "chebyshev_v_(x, y)",
                grad_self: |_g, _a, _b| not_differentiable(),
                grad_other: |_g, _a, _b| not_differentiable(),
                arg: n, number: true,
                methods: [], inplace: [], functions: [],
                sig: "(Tensor x, Tensor n, *, Tensor out = None)",
            }
            SpecialChebyshevPolynomialW special_chebyshev_polynomial_w {
                node: "", node_scalar: "",
                dtypes: BinaryDtypes::FloatNoHalf("chebyshev_polynomial_w_cpu"),
                cpu: |a, b| <T as crate::ops::special_fns::SpecialFns>::chebyshev_w(a, b),
                wgsl: "chebyshev_w_(x, y)",
                grad_self: |_g, _a, _b| not_differentiable(),
                grad_other: |_g, _a, _b| not_differentiable(),
                arg: n, number: true,
                methods: [], inplace: [], functions: [],
                sig: "(Tensor x, Tensor n, *, Tensor out = None)",
            }
            SpecialShiftedChebyshevPolynomialT special_shifted_chebyshev_polynomial_t {
                node: "", node_scalar: "",
                dtypes: BinaryDtypes::FloatNoHalf("shifted_chebyshev_polynomial_t_cpu"),
                cpu: |a, b| <T as crate::ops::special_fns::SpecialFns>::shifted_chebyshev_t(a, b),
                wgsl: "shifted_chebyshev_t_(x, y)",
                grad_self: |_g, _a, _b| not_differentiable(),
                grad_other: |_g, _a, _b| not_differentiable(),
                arg: n, number: true,
                methods: [], inplace: [], functions: [],
                sig: "(Tensor x, Tensor n, *, Tensor out = None)",
            }
            SpecialShiftedChebyshevPolynomialU special_shifted_chebyshev_polynomial_u {
                node: "", node_scalar: "",
                dtypes: BinaryDtypes::FloatNoHalf("shifted_chebyshev_polynomial_u_cpu"),
                cpu: |a, b| <T as crate::ops::special_fns::SpecialFns>::shifted_chebyshev_u(a, b),
                wgsl: "shifted_chebyshev_u_(x, y)",
                grad_self: |_g, _a, _b| not_differentiable(),
                grad_other: |_g, _a, _b| not_differentiable(),
                arg: n, number: true,
                methods: [], inplace: [], functions: [],
                sig: "(Tensor x, Tensor n, *, Tensor out = None)",
            }
            SpecialShiftedChebyshevPolynomialV special_shifted_chebyshev_polynomial_v {
                node: "", node_scalar: "",
                dtypes: BinaryDtypes::FloatNoHalf("shifted_chebyshev_polynomial_v_cpu"),
                cpu: |a, b| <T as crate::ops::special_fns::SpecialFns>::shifted_chebyshev_v(a, b),
                wgsl: "shifted_chebyshev_v_(x, y)",
                grad_self: |_g, _a, _b| not_differentiable(),
                grad_other: |_g, _a, _b| not_differentiable(),
                arg: n, number: true,
                methods: [], inplace: [], functions: [],
                sig: "(Tensor x, Tensor n, *, Tensor out = None)",
            }
            SpecialShiftedChebyshevPolynomialW special_shifted_chebyshev_polynomial_w {
                node: "", node_scalar: "",
                dtypes: BinaryDtypes::FloatNoHalf("shifted_chebyshev_polynomial_w_cpu"),
                cpu: |a, b| <T as crate::ops::special_fns::SpecialFns>::shifted_chebyshev_w(a, b),
                wgsl: "shifted_chebyshev_w_(x, y)",
                grad_self: |_g, _a, _b| not_differentiable(),
                grad_other: |_g, _a, _b| not_differentiable(),
                arg: n, number: true,
                methods: [], inplace: [], functions: [],
                sig: "(Tensor x, Tensor n, *, Tensor out = None)",
            }
            SpecialHermitePolynomialH special_hermite_polynomial_h {
                node: "", node_scalar: "",
                dtypes: BinaryDtypes::FloatNoHalf("hermite_polynomial_h_cpu"),
                cpu: |a, b| <T as crate::ops::special_fns::SpecialFns>::hermite_h(a, b),
                wgsl: "hermite_h_(x, y)",
                grad_self: |_g, _a, _b| not_differentiable(),
                grad_other: |_g, _a, _b| not_differentiable(),
                arg: n, number: true,
                methods: [], inplace: [], functions: [],
                sig: "(Tensor x, Tensor n, *, Tensor out = None)",
            }
            SpecialHermitePolynomialHe special_hermite_polynomial_he {
                node: "", node_scalar: "",
                dtypes: BinaryDtypes::FloatNoHalf("hermite_polynomial_he_cpu"),
                cpu: |a, b| <T as crate::ops::special_fns::SpecialFns>::hermite_he(a, b),
                wgsl: "hermite_he_(x, y)",
                grad_self: |_g, _a, _b| not_differentiable(),
                grad_other: |_g, _a, _b| not_differentiable(),
                arg: n, number: true,
                methods: [], inplace: [], functions: [],
                sig: "(Tensor x, Tensor n, *, Tensor out = None)",
            }
            SpecialLaguerrePolynomialL special_laguerre_polynomial_l {
                node: "", node_scalar: "",
                dtypes: BinaryDtypes::FloatNoHalf("laguerre_polynomial_l_cpu"),
                cpu: |a, b| <T as crate::ops::special_fns::SpecialFns>::laguerre_l(a, b),
                wgsl: "laguerre_l_(x, y)",
                grad_self: |_g, _a, _b| not_differentiable(),
                grad_other: |_g, _a, _b| not_differentiable(),
                arg: n, number: true,
                methods: [], inplace: [], functions: [],
                sig: "(Tensor x, Tensor n, *, Tensor out = None)",
            }
            SpecialLegendrePolynomialP special_legendre_polynomial_p {
                node: "", node_scalar: "",
                dtypes: BinaryDtypes::FloatNoHalf("legendre_polynomial_p_cpu"),
                cpu: |a, b| <T as crate::ops::special_fns::SpecialFns>::legendre_p(a, b),
                wgsl: "legendre_p_(x, y)",
                grad_self: |_g, _a, _b| not_differentiable(),
                grad_other: |_g, _a, _b| not_differentiable(),
                arg: n, number: true,
                methods: [], inplace: [], functions: [],
                sig: "(Tensor x, Tensor n, *, Tensor out = None)",
            }
            // The regularized lower / upper incomplete gamma functions P(a, x), Q(a, x)
            // (`ops/igamma_fns.rs`, PyTorch's CPU algorithm; float16 / bfloat16 through
            // float32). No WGSL form: GPU tensors compute on the host. PyTorch differentiates
            // x only, d/dx P = x^(a-1) e^-x / Gamma(a), and has no forward-mode formula.
            Igamma igamma {
                node: "IgammaBackward0", node_scalar: "IgammaBackward0",
                dtypes: BinaryDtypes::FloatOnly("igamma_cpu"),
                cpu: |a, b| crate::ops::special_fns::igamma::igamma(a, b),
                wgsl: "",
                grad_self: |_g, _a, _b| Err(Error::NotImplemented("the derivative for 'igamma: input' is not implemented.".into())),
                grad_other: |g, a, b| mul(g, &exp(&sub(&sub(&mul(&sub(a, 1.0)?, &log(b)?)?, b)?, &lgamma(a)?)?)?),
                arg: other, number: false,
                methods: [igamma], inplace: [igamma_], functions: [igamma],
                sig: BINARY,
            }
            Igammac igammac {
                node: "IgammacBackward0", node_scalar: "IgammacBackward0",
                dtypes: BinaryDtypes::FloatOnly("igammac_cpu"),
                cpu: |a, b| crate::ops::special_fns::igamma::igammac(a, b),
                wgsl: "",
                grad_self: |_g, _a, _b| Err(Error::NotImplemented("the derivative for 'igammac: input' is not implemented.".into())),
                grad_other: |g, a, b| mul(&neg(g)?, &exp(&sub(&sub(&mul(&sub(a, 1.0)?, &log(b)?)?, b)?, &lgamma(a)?)?)?),
                arg: other, number: false,
                methods: [igammac], inplace: [igammac_], functions: [igammac],
                sig: BINARY,
            }
            // C's nextafter: the next value of the result's type after `input` toward `other`
            // (float16 / bfloat16 step by their own ulps: `binary_math::operands_data`).
            // PyTorch passes the gradient to `input` where it differs from `other` (zero where
            // the result is `other` itself) and gives `other` zeros.
            Nextafter nextafter {
                node: "NextafterBackward0", node_scalar: "NextafterBackward0",
                dtypes: BinaryDtypes::FloatOnly("nextafter_cpu"),
                cpu: |a, b| <T as crate::ops::special_fns::Real>::next_after(a, b),
                wgsl: "nextafter_(x, y)",
                grad_self: |g, a, b| mul(g, &ne(a, b)?),
                grad_other: |_g, _a, b| Ok(zeros_like(b)),
                arg: other, number: false,
                methods: [nextafter], inplace: [nextafter_], functions: [nextafter],
                sig: BINARY,
            }
            // Hurwitz's zeta ζ(x, q) (Cephes' algorithm, computed in float64 as PyTorch's CPU
            // kernel): PyTorch differentiates q only, d/dq = -x ζ(x + 1, q).
            SpecialZeta special_zeta {
                node: "SpecialZetaBackward0", node_scalar: "SpecialZetaBackward2",
                dtypes: BinaryDtypes::FloatNoHalf("zeta_cpu"),
                cpu: |a, b| <T as crate::ops::special_fns::SpecialFns>::hurwitz_zeta(a, b),
                wgsl: "hurwitz_zeta_(x, y)",
                grad_self: |_g, _a, _b| Err(Error::NotImplemented("the derivative for 'zeta' is not implemented.".into())),
                grad_other: |g, a, b| mul(g, &mul(&neg(a)?, &special_zeta(&add(a, 1.0)?, b)?)?),
                arg: other, number: true,
                methods: [], inplace: [], functions: [],
                sig: "(Tensor input, Tensor other, *, Tensor out = None)",
            }
        }
    };
}
pub(crate) use binary_table;
