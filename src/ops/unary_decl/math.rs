//! The rows of the unary op table (`ops/unary_decl.rs`, Note [Op declarations] in `ops/unary.rs`)
//! for the elementary functions: `neg`, `abs`, `sign`, `reciprocal`; exponentials and logarithms
//! (`exp`, `exp2`, `expm1`, `log`, `log2`, `log10`, `log1p`), `sqrt` / `rsqrt`; trigonometric and
//! hyperbolic functions (`sin` ... `atan`, `sinh`, `cosh`, `tanh`, `sinc`, `deg2rad`, `rad2deg`;
//! the inverse hyperbolic ones are in `inverse_hyperbolic.rs`); `erf`; rounding (`floor`, `ceil`,
//! `trunc`, `round`, `frac`); and `sigmoid`, `relu`, `logit`.

/// Appends this family's rows to `$rows` and hands them on
/// (to `clamp.rs`).
macro_rules! math_rows {
    ($m:ident $($rows:tt)*) => {
        $crate::ops::unary_decl::clamp::clamp_rows! {
            $m $($rows)*
            /// Returns a new tensor with the negative of the elements of `self`: `out = -1 * self`.
            /// `negative` is an alias.
            ///
            /// Example:
            ///     >>> x = gradrs.tensor([-1.5, -0.5, 0.0, 0.5, 2.0])
            ///     >>> x.neg()
            ///     tensor([ 1.5000,  0.5000, -0.0000, -0.5000, -2.0000])
            Neg neg {
                node: "NegBackward0",
                dtypes: Dtypes::Keep(|v, _| v.wrapping_neg(), neg_bool),
                save: Nothing,
                cpu: |v| -v,
                wgsl: "-v",
                grad: |g, _s| neg(g),
                methods: [neg, negative], inplace: [neg_, negative_], functions: [neg, neg_],
                sig: UNARY,
            }
            /// Returns a new tensor with the exponential of the elements of `self`: `out_i =
            /// e^(self_i)`. Integral inputs are promoted to the default float dtype.
            ///
            /// Example:
            ///     >>> gradrs.tensor([0.0, 0.6931471805599453, 1.0]).exp()
            ///     tensor([1.0000, 2.0000, 2.7183])
            Exp exp {
                node: "ExpBackward0",
                dtypes: Dtypes::Float,
                save: Result,
                cpu: |v| v.vexp(),
                wgsl: "exp(v)",
                grad: |g, r| mul(g, r),
                methods: [exp], inplace: [exp_], functions: [exp, exp_],
                sig: UNARY,
            }
            /// Returns a new tensor with the natural logarithm of the elements of `self`: `out_i =
            /// log_e(self_i)` (`nan` for negative values, `-inf` at zero).
            ///
            /// Example:
            ///     >>> x = gradrs.tensor([0.25, 0.5, 1.0, 2.0])
            ///     >>> x.log()
            ///     tensor([-1.3863, -0.6931,  0.0000,  0.6931])
            ///     >>> gradrs.tensor([0.0, -1.0]).log()
            ///     tensor([-inf, nan])
            Log log {
                node: "LogBackward0",
                dtypes: Dtypes::Float,
                save: Input,
                cpu: |v| v.ln(),
                wgsl: "log(v)",
                grad: |g, x| div(g, x),
                methods: [log], inplace: [log_], functions: [log, log_],
                sig: UNARY,
            }
            /// Returns a new tensor with the sine of the elements of `self` (in radians).
            ///
            /// Example:
            ///     >>> x = gradrs.tensor([-1.5, -0.5, 0.0, 0.5, 2.0])
            ///     >>> x.sin()
            ///     tensor([-0.9975, -0.4794,  0.0000,  0.4794,  0.9093])
            Sin sin {
                node: "SinBackward0",
                dtypes: Dtypes::Float,
                save: Input,
                cpu: |v| v.sin(),
                wgsl: "trig(v, 0u)",
                grad: |g, x| mul(g, &cos(x)?),
                methods: [sin], inplace: [sin_], functions: [sin, sin_],
                sig: UNARY,
            }
            /// Returns a new tensor with the cosine of the elements of `self` (in radians).
            ///
            /// Example:
            ///     >>> x = gradrs.tensor([-1.5, -0.5, 0.0, 0.5, 2.0])
            ///     >>> x.cos()
            ///     tensor([ 0.0707,  0.8776,  1.0000,  0.8776, -0.4161])
            Cos cos {
                node: "CosBackward0",
                dtypes: Dtypes::Float,
                save: Input,
                cpu: |v| v.cos(),
                wgsl: "trig(v, 1u)",
                grad: |g, x| mul(g, &neg(&sin(x)?)?),
                methods: [cos], inplace: [cos_], functions: [cos, cos_],
                sig: UNARY,
            }
            /// Returns a new tensor with the tangent of the elements of `self` (in radians).
            ///
            /// Example:
            ///     >>> x = gradrs.tensor([-1.5, -0.5, 0.0, 0.5, 2.0])
            ///     >>> x.tan()
            ///     tensor([-14.1014,  -0.5463,   0.0000,   0.5463,  -2.1850])
            Tan tan {
                node: "TanBackward0",
                dtypes: Dtypes::Float,
                save: Result,
                cpu: |v| v.tan(),
                wgsl: "trig(v, 2u)",
                grad: |g, r| mul(g, &add(&mul(r, r)?, 1.0)?),
                methods: [tan], inplace: [tan_], functions: [tan, tan_],
                sig: UNARY,
            }
            /// Returns a new tensor with the hyperbolic tangent of the elements of `self`.
            ///
            /// Example:
            ///     >>> x = gradrs.tensor([-1.5, -0.5, 0.0, 0.5, 2.0])
            ///     >>> x.tanh()
            ///     tensor([-0.9051, -0.4621,  0.0000,  0.4621,  0.9640])
            Tanh tanh {
                node: "TanhBackward0",
                dtypes: Dtypes::Float,
                save: Result,
                cpu: |v| v.vtanh(),
                wgsl: "tanh_safe(v)",
                // 1 - tanh², from the saved result: PyTorch's tanh_backward, a node of its own.
                grad: |g, r| crate::ops::activation::tanh_backward(g, r),
                methods: [tanh], inplace: [tanh_], functions: [tanh, tanh_],
                sig: UNARY,
            }
            /// Returns a new tensor with the logistic sigmoid of the elements of `self`: `out_i = 1
            /// / (1 + e^(-self_i))` (`gradrs.special.expit`).
            ///
            /// Example:
            ///     >>> x = gradrs.tensor([-1.5, -0.5, 0.0, 0.5, 2.0])
            ///     >>> x.sigmoid()
            ///     tensor([0.1824, 0.3775, 0.5000, 0.6225, 0.8808])
            Sigmoid sigmoid {
                node: "SigmoidBackward0",
                dtypes: Dtypes::Float,
                save: Result,
                cpu: |v| 1.0 / (1.0 + (-v).vexp()),
                wgsl: "sigmoid(v)",
                grad: |g, r| crate::ops::activation::sigmoid_backward(g, r),
                methods: [sigmoid], inplace: [sigmoid_], functions: [sigmoid, sigmoid_],
                sig: UNARY,
            }
            /// Applies the rectified linear unit element-wise: `max(self_i, 0)` (`nan` stays
            /// `nan`). See `gradrs.nn.ReLU`.
            ///
            /// Example:
            ///     >>> x = gradrs.tensor([-1.5, -0.5, 0.0, 0.5, 2.0])
            ///     >>> x.relu()
            ///     tensor([0.0000, 0.0000, 0.0000, 0.5000, 2.0000])
            Relu relu {
                node: "ReluBackward0",
                dtypes: Dtypes::Keep(|v, _| v.max(0), relu_bool),
                save: Result,
                // NaN propagates (NaN > 0 is false, so test "not <= 0").
                cpu: |v| if v <= 0.0 { 0.0 } else { v },
                // NaN passes through, tested by its bits (a driver may turn a compare-and-select
                // into a max, which drops NaN).
                wgsl: "select(max(v, 0.0), v, is_nan(v))",
                grad: |g, r| threshold_backward(g, r),
                methods: [relu], inplace: [relu_], functions: [relu, relu_],
                sig: "(Tensor input)",
            }
            /// Returns a new tensor with the square root of the elements of `self` (`nan` for
            /// negative values).
            ///
            /// Example:
            ///     >>> x = gradrs.tensor([0.25, 0.5, 1.0, 2.0])
            ///     >>> x.sqrt()
            ///     tensor([0.5000, 0.7071, 1.0000, 1.4142])
            Sqrt sqrt {
                node: "SqrtBackward0",
                dtypes: Dtypes::Float,
                save: Result,
                cpu: |v| v.sqrt(),
                wgsl: "sqrt(v)",
                grad: |g, r| div(g, &mul(r, 2.0)?),
                methods: [sqrt], inplace: [sqrt_], functions: [sqrt, sqrt_],
                sig: UNARY,
            }
            /// Returns a new tensor with the reciprocal of the square root of each element of
            /// `self`: `out_i = 1 / sqrt(self_i)`.
            ///
            /// Example:
            ///     >>> x = gradrs.tensor([0.25, 0.5, 1.0, 2.0])
            ///     >>> x.rsqrt()
            ///     tensor([2.0000, 1.4142, 1.0000, 0.7071])
            Rsqrt rsqrt {
                node: "RsqrtBackward0",
                dtypes: Dtypes::Float,
                save: Result,
                cpu: |v| 1.0 / v.sqrt(),
                wgsl: "inverseSqrt(v)",
                grad: |g, r| mul(&mul(g, -0.5)?, &pow(r, 3.0)?),
                methods: [rsqrt], inplace: [rsqrt_], functions: [rsqrt, rsqrt_],
                sig: UNARY,
            }
            /// Computes the absolute value of each element of `self`: `out_i = |self_i|`.
            /// `absolute` is an alias.
            ///
            /// Example:
            ///     >>> gradrs.tensor([-1, -2, 3]).abs()
            ///     tensor([1, 2, 3])
            ///     >>> x = gradrs.tensor([-1.5, -0.5, 0.0, 0.5, 2.0])
            ///     >>> x.abs()
            ///     tensor([1.5000, 0.5000, 0.0000, 0.5000, 2.0000])
            Abs abs {
                node: "AbsBackward0",
                dtypes: Dtypes::Keep(|v, _| v.wrapping_abs(), abs_bool),
                save: Input,
                cpu: |v| v.abs(),
                wgsl: "abs(v)",
                grad: |g, x| mul(g, &sign(x)?),
                methods: [abs, absolute], inplace: [abs_, absolute_], functions: [abs, absolute, abs_],
                sig: UNARY,
            }
            /// Returns a new tensor with the signs (`-1`, `0` or `1`) of the elements of `self`.
            ///
            /// Example:
            ///     >>> gradrs.tensor([0.7, -1.2, 0.0, 2.3]).sign()
            ///     tensor([ 1., -1.,  0.,  1.])
            Sign sign {
                node: "SignBackward0",
                dtypes: Dtypes::Keep(|v, _| v.signum(), sign_bool),
                save: Nothing,
                cpu: |v| if v > 0.0 { 1.0 } else if v < 0.0 { -1.0 } else { v * 0.0 },
                // NaN stays NaN, and -0.0 gives +0.0, as torch.sign.
                wgsl: "select(select(0.0, 1.0, v > 0.0) - select(0.0, 1.0, v < 0.0), v, is_nan(v))",
                grad: |g, _s| Ok(zeros_like(g)),
                methods: [sign], inplace: [sign_], functions: [sign],
                sig: UNARY,
            }
            /// Returns a new tensor with the reciprocal of the elements of `self`: `out_i = 1 /
            /// self_i`. Unlike NumPy's, integral inputs are promoted to the default float dtype.
            ///
            /// Example:
            ///     >>> x = gradrs.tensor([0.25, 0.5, 1.0, 2.0])
            ///     >>> x.reciprocal()
            ///     tensor([4.0000, 2.0000, 1.0000, 0.5000])
            ///     >>> gradrs.tensor([1, 2, 4]).reciprocal()
            ///     tensor([1.0000, 0.5000, 0.2500])
            Reciprocal reciprocal {
                node: "ReciprocalBackward0",
                dtypes: Dtypes::Float,
                save: Result,
                cpu: |v| 1.0 / v,
                wgsl: "1.0 / v",
                grad: |g, r| mul(&neg(g)?, &mul(r, r)?),
                methods: [reciprocal], inplace: [reciprocal_], functions: [reciprocal, reciprocal_],
                sig: UNARY,
            }
            /// Computes the base-two exponential of the elements of `self`: `out_i = 2^(self_i)`.
            ///
            /// Example:
            ///     >>> gradrs.tensor([0.0, 1.0, 3.0, -1.0]).exp2()
            ///     tensor([1.0000, 2.0000, 8.0000, 0.5000])
            Exp2 exp2 {
                node: "Exp2Backward0",
                dtypes: Dtypes::Float,
                save: Result,
                cpu: |v| v.exp2(),
                wgsl: "exp2(v)",
                grad: |g, r| mul(g, &mul(r, LN_2)?),
                methods: [exp2], inplace: [exp2_], functions: [exp2, exp2_],
                sig: UNARY,
            }
            /// Computes the exponential of the elements of `self` minus 1: `out_i = e^(self_i) -
            /// 1`, accurate for small values of `self_i`.
            ///
            /// Example:
            ///     >>> gradrs.tensor([0.0, 1e-10, 0.6931471805599453]).expm1()
            ///     tensor([0.0000e+00, 1.0000e-10, 1.0000e+00])
            Expm1 expm1 {
                node: "Expm1Backward0",
                dtypes: Dtypes::Float,
                save: Result,
                cpu: |v| v.exp_m1(),
                wgsl: "expm1_(v)",
                grad: |g, r| mul(g, &add(r, 1.0)?),
                methods: [expm1], inplace: [expm1_], functions: [expm1, expm1_],
                sig: UNARY,
            }
            /// Returns a new tensor with the logarithm to the base 2 of the elements of `self`.
            ///
            /// Example:
            ///     >>> x = gradrs.tensor([0.25, 0.5, 1.0, 2.0])
            ///     >>> x.log2()
            ///     tensor([-2., -1.,  0.,  1.])
            Log2 log2 {
                node: "Log2Backward0",
                dtypes: Dtypes::Float,
                save: Input,
                cpu: |v| v.log2(),
                wgsl: "log2(v)",
                grad: |g, x| div(g, &mul(x, LN_2)?),
                methods: [log2], inplace: [log2_], functions: [log2, log2_],
                sig: UNARY,
            }
            /// Returns a new tensor with the logarithm to the base 10 of the elements of `self`.
            ///
            /// Example:
            ///     >>> gradrs.tensor([0.1, 1.0, 10.0, 1000.0]).log10()
            ///     tensor([-1.,  0.,  1.,  3.])
            Log10 log10 {
                node: "Log10Backward0",
                dtypes: Dtypes::Float,
                save: Input,
                cpu: |v| v.log10(),
                wgsl: "log(v) * 0.4342944819032518",
                grad: |g, x| div(g, &mul(x, LN_10)?),
                methods: [log10], inplace: [log10_], functions: [log10, log10_],
                sig: UNARY,
            }
            /// Returns a new tensor with the natural logarithm of (1 + `self`): `out_i =
            /// log_e(self_i + 1)`, more accurate than `(1 + x).log()` for small values of `self_i`.
            ///
            /// Example:
            ///     >>> gradrs.tensor([0.0, 1e-10, 1.0, -0.5]).log1p()
            ///     tensor([ 0.0000e+00,  1.0000e-10,  6.9315e-01, -6.9315e-01])
            Log1p log1p {
                node: "Log1PBackward0",
                dtypes: Dtypes::Float,
                save: Input,
                cpu: |v| v.ln_1p(),
                wgsl: "log1p_(v)",
                grad: |g, x| div(g, &add(x, 1.0)?),
                methods: [log1p], inplace: [log1p_], functions: [log1p, log1p_],
                sig: UNARY,
            }
            /// Returns a new tensor with the arcsine of the elements of `self` (`nan` outside `[-1,
            /// 1]`). `arcsin` is an alias.
            ///
            /// Example:
            ///     >>> x = gradrs.tensor([-0.9, -0.5, 0.0, 0.5])
            ///     >>> x.asin()
            ///     tensor([-1.1198, -0.5236,  0.0000,  0.5236])
            Asin asin {
                node: "AsinBackward0",
                dtypes: Dtypes::Float,
                save: Input,
                cpu: |v| v.asin(),
                wgsl: "asin_(v)",
                grad: |g, x| mul(g, &rsqrt(&rsub(&mul(x, x)?, 1.0)?)?),
                methods: [asin, arcsin], inplace: [asin_, arcsin_], functions: [asin, arcsin, asin_, arcsin_],
                sig: UNARY,
            }
            /// Returns a new tensor with the arccosine of the elements of `self` (`nan` outside
            /// `[-1, 1]`). `arccos` is an alias.
            ///
            /// Example:
            ///     >>> x = gradrs.tensor([-0.9, -0.5, 0.0, 0.5])
            ///     >>> x.acos()
            ///     tensor([2.6906, 2.0944, 1.5708, 1.0472])
            Acos acos {
                node: "AcosBackward0",
                dtypes: Dtypes::Float,
                save: Input,
                cpu: |v| v.acos(),
                wgsl: "acos_(v)",
                grad: |g, x| mul(&neg(g)?, &rsqrt(&rsub(&mul(x, x)?, 1.0)?)?),
                methods: [acos, arccos], inplace: [acos_, arccos_], functions: [acos, arccos, acos_, arccos_],
                sig: UNARY,
            }
            /// Returns a new tensor with the arctangent of the elements of `self`. `arctan` is an
            /// alias.
            ///
            /// Example:
            ///     >>> x = gradrs.tensor([-1.5, -0.5, 0.0, 0.5, 2.0])
            ///     >>> x.atan()
            ///     tensor([-0.9828, -0.4636,  0.0000,  0.4636,  1.1071])
            Atan atan {
                node: "AtanBackward0",
                dtypes: Dtypes::Float,
                save: Input,
                cpu: |v| v.atan(),
                wgsl: "atan(v)",
                grad: |g, x| div(g, &add(&mul(x, x)?, 1.0)?),
                methods: [atan, arctan], inplace: [atan_, arctan_], functions: [atan, arctan, atan_, arctan_],
                sig: UNARY,
            }
            /// Returns a new tensor with the hyperbolic sine of the elements of `self`.
            ///
            /// Example:
            ///     >>> x = gradrs.tensor([-1.5, -0.5, 0.0, 0.5, 2.0])
            ///     >>> x.sinh()
            ///     tensor([-2.1293, -0.5211,  0.0000,  0.5211,  3.6269])
            Sinh sinh {
                node: "SinhBackward0",
                dtypes: Dtypes::Float,
                save: Input,
                cpu: |v| v.sinh(),
                wgsl: "sinh_(v)",
                grad: |g, x| mul(g, &cosh(x)?),
                methods: [sinh], inplace: [sinh_], functions: [sinh, sinh_],
                sig: UNARY,
            }
            /// Returns a new tensor with the hyperbolic cosine of the elements of `self`.
            ///
            /// Example:
            ///     >>> x = gradrs.tensor([-1.5, -0.5, 0.0, 0.5, 2.0])
            ///     >>> x.cosh()
            ///     tensor([2.3524, 1.1276, 1.0000, 1.1276, 3.7622])
            Cosh cosh {
                node: "CoshBackward0",
                dtypes: Dtypes::Float,
                save: Input,
                cpu: |v| v.cosh(),
                wgsl: "cosh(v)",
                grad: |g, x| mul(g, &sinh(x)?),
                methods: [cosh], inplace: [cosh_], functions: [cosh, cosh_],
                sig: UNARY,
            }
            /// Computes the error function of the elements of `self`: `erf(x) = 2 / sqrt(pi) *
            /// integral from 0 to x of e^(-t^2) dt`.
            ///
            /// Example:
            ///     >>> gradrs.tensor([0.0, -1.0, 10.0]).erf()
            ///     tensor([ 0.0000, -0.8427,  1.0000])
            Erf erf {
                node: "ErfBackward0",
                dtypes: Dtypes::Float,
                save: Input,
                cpu: |v| Special::erf(v),
                wgsl: "erf_(v)",
                // 2/sqrt(pi) * exp(-x²)
                grad: |g, x| mul(g, &mul(&exp(&neg(&mul(x, x)?)?)?, FRAC_2_SQRT_PI)?),
                methods: [erf], inplace: [erf_], functions: [erf, erf_],
                sig: UNARY,
            }
            /// Returns a new tensor with the floor of the elements of `self`: the largest integer
            /// less than or equal to each element. Integral inputs are returned unchanged (a copy).
            ///
            /// Example:
            ///     >>> x = gradrs.tensor([-1.5, -0.5, 0.0, 0.5, 2.0])
            ///     >>> x.floor()
            ///     tensor([-2., -1.,  0.,  0.,  2.])
            Floor floor {
                node: "FloorBackward0",
                dtypes: Dtypes::Round("floor_vml_cpu"),
                save: Nothing,
                cpu: |v| v.floor(),
                wgsl: "floor(v)",
                grad: |g, _s| Ok(zeros_like(g)),
                methods: [floor], inplace: [floor_], functions: [floor, floor_],
                sig: UNARY,
            }
            /// Returns a new tensor with the ceil of the elements of `self`: the smallest integer
            /// greater than or equal to each element.
            ///
            /// Example:
            ///     >>> x = gradrs.tensor([-1.5, -0.5, 0.0, 0.5, 2.0])
            ///     >>> x.ceil()
            ///     tensor([-1., -0.,  0.,  1.,  2.])
            Ceil ceil {
                node: "CeilBackward0",
                dtypes: Dtypes::Round("ceil_vml_cpu"),
                save: Nothing,
                cpu: |v| v.ceil(),
                wgsl: "ceil(v)",
                grad: |g, _s| Ok(zeros_like(g)),
                methods: [ceil], inplace: [ceil_], functions: [ceil, ceil_],
                sig: UNARY,
            }
            /// Returns a new tensor with the truncated integer values of the elements of `self`
            /// (rounded towards zero). `fix` is an alias.
            ///
            /// Example:
            ///     >>> gradrs.tensor([3.4742, 0.5466, -0.8008, -0.9079]).trunc()
            ///     tensor([3., 0., -0., -0.])
            Trunc trunc {
                node: "TruncBackward0",
                dtypes: Dtypes::Round("trunc_vml_cpu"),
                save: Nothing,
                cpu: |v| v.trunc(),
                wgsl: "trunc(v)",
                grad: |g, _s| Ok(zeros_like(g)),
                methods: [trunc, fix], inplace: [trunc_, fix_], functions: [trunc, fix, trunc_, fix_],
                sig: UNARY,
            }
            // WGSL's round is round-half-to-even, as torch.round. The Python `round` (with its
            // `decimals` overload) is written in `ops/pointwise.rs`.
            Round round {
                node: "RoundBackward0",
                dtypes: Dtypes::Round("round_vml_cpu"),
                save: Nothing,
                cpu: |v| v.round_ties_even(),
                wgsl: "round(v)",
                grad: |g, _s| Ok(zeros_like(g)),
                methods: [], inplace: [], functions: [],
                sig: UNARY,
            }
            /// Computes the fractional portion of each element of `self`: `out_i = self_i -
            /// trunc(self_i)` (the sign of `self_i` kept).
            ///
            /// Example:
            ///     >>> gradrs.tensor([1.0, 2.5, -3.2]).frac()
            ///     tensor([ 0.0000,  0.5000, -0.2000])
            Frac frac {
                node: "FracBackward0",
                dtypes: Dtypes::FloatOnly("frac_cpu"),
                save: Nothing,
                cpu: |v| v - v.trunc(),
                wgsl: "v - trunc(v)",
                grad: |g, _s| Ok(g.clone()),
                methods: [frac], inplace: [frac_], functions: [frac, frac_],
                sig: UNARY,
            }
            /// Computes the normalized sinc of `self`: `sin(pi * x) / (pi * x)`, and `1` at `x =
            /// 0`.
            ///
            /// Example:
            ///     >>> gradrs.tensor([-1.5, -0.5, 0.0, 0.25, 0.5]).sinc()
            ///     tensor([-0.2122,  0.6366,  1.0000,  0.9003,  0.6366])
            Sinc sinc {
                node: "SincBackward0",
                dtypes: Dtypes::Float,
                save: Input,
                cpu: |v| if v == 0.0 { 1.0 } else { (PI as T * v).sin() / (PI as T * v) },
                wgsl: "select(trig(3.141592653589793 * v, 0u) / (3.141592653589793 * v), 1.0, v == 0.0)",
                // (pi x cos(pi x) - sin(pi x)) / (pi x²), zero where pi x² is (PyTorch's).
                grad: |g, x| {
                    let (px, pxx) = (mul(x, PI)?, mul(&mul(x, x)?, PI)?);
                    let d = div(&mul(g, &sub(&mul(&px, &cos(&px)?)?, &sin(&px)?)?)?, &pxx)?;
                    where_(&eq(&pxx, 0.0)?, 0, &d)
                },
                methods: [sinc], inplace: [sinc_], functions: [sinc, sinc_],
                sig: UNARY,
            }
            /// Returns a new tensor with each element of `self` converted from angles in degrees to
            /// radians.
            ///
            /// Example:
            ///     >>> x = gradrs.tensor([0.0, 30.0, 90.0, 180.0])
            ///     >>> x.deg2rad()
            ///     tensor([0.0000, 0.5236, 1.5708, 3.1416])
            Deg2rad deg2rad {
                node: "Deg2RadBackward0",
                dtypes: Dtypes::Float,
                save: Nothing,
                cpu: |v| v * (PI / 180.0) as T,
                wgsl: "v * 0.017453292519943295",
                grad: |g, _s| mul(g, PI / 180.0),
                methods: [deg2rad], inplace: [deg2rad_], functions: [deg2rad, deg2rad_],
                sig: UNARY,
            }
            /// Returns a new tensor with each element of `self` converted from angles in radians to
            /// degrees.
            ///
            /// Example:
            ///     >>> gradrs.tensor([3.142, -3.142, 6.283, -6.283, 1.570, -1.570]).rad2deg()
            ///     tensor([ 180.0233, -180.0233,  359.9894, -359.9894,   89.9544,  -89.9544])
            Rad2deg rad2deg {
                node: "Rad2DegBackward0",
                dtypes: Dtypes::Float,
                save: Nothing,
                cpu: |v| v * (180.0 / PI) as T,
                wgsl: "v * 57.29577951308232",
                grad: |g, _s| mul(g, 180.0 / PI),
                methods: [rad2deg], inplace: [rad2deg_], functions: [rad2deg, rad2deg_],
                sig: UNARY,
            }
            /// Returns a new tensor with the logit of the elements of `self`: `log(z / (1 - z))`.
            /// With `eps` given, `z` is `self` clamped to `[eps, 1 - eps]`; without it, values
            /// outside `[0, 1]` give `nan`.
            ///
            /// Args:
            ///     eps (float, optional): the epsilon for input clamp bound. Default: `None`.
            ///
            /// Example:
            ///     >>> x = gradrs.tensor([0.0, 0.25, 0.5, 0.9])
            ///     >>> x.logit()
            ///     tensor([   -inf, -1.0986,  0.0000,  2.1972])
            ///     >>> x.logit(eps=1e-6)
            ///     tensor([-13.8155,  -1.0986,   0.0000,   2.1972])
            Logit logit {
                node: "LogitBackward0",
                dtypes: Dtypes::Float,
                params: [eps: Option<f64> = None],
                save: Input,
                // PyTorch's kernel: clamped to [eps, 1 - eps] unless eps is None or negative.
                cpu: |v| {
                    let (lo, hi) = eps.filter(|&e| e >= 0.0).map_or((v, v), |e| (e as T, 1.0 - e as T));
                    let x = if v < lo { lo } else if v > hi { hi } else { v };
                    if x == 1.0 { T::INFINITY } else { (x / (1.0 - x)).ln() }
                },
                wgsl: "logit_(v, p.a)",
                // g / (x (1 - x)) inside [eps, 1 - eps] ([0, 1] with no eps), else 0 (NaN with no
                // eps): PyTorch's kernel, or with create_graph its where() formula (which also
                // takes a negative eps as given and turns NaN inputs into the fill value).
                grad: |g, x| {
                    let (cg, d) = (is_grad_enabled(), div(g, &mul(x, &rsub(x, 1.0)?)?)?);
                    let lo = eps.filter(|&e| e >= 0.0 || cg);
                    let (fill, lo) = (lo.map_or(f64::NAN, |_| 0.0), lo.unwrap_or(0.0));
                    if cg {
                        where_(&mul(&ge(x, lo)?, &le(x, 1.0 - lo)?)?, &d, fill)
                    } else {
                        where_(&add(&lt(x, lo)?, &gt(x, 1.0 - lo)?)?, fill, &d)
                    }
                },
                methods: [logit], inplace: [logit_], functions: [logit, logit_],
                sig: "(Tensor input, float eps = None, *, Tensor out = None)",
            }
        }
    };
}
pub(crate) use math_rows;
