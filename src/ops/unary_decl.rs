//! The elementwise unary ops, each declared once (Note [Op declarations] in `ops/unary.rs`).
//!
//! An entry: `Variant python_name { ... }` with
//! - `node`: PyTorch's backward node name (`type(y.grad_fn).__name__`);
//! - `dtypes`: the dtype rule ([`Dtypes`]);
//! - `params` (optional): `[name: f64 = default, name: Option<f64> = None, ...]`, at most three
//!   float parameters ([`Param`](super::unary::Param); `MinBound` / `MaxBound` for a clamp
//!   bound that may be None); the kernels, the integer kernel of `Dtypes::Keep` and the formula
//!   see them by name, the WGSL expression as `p.a`, `p.b`, `p.c` (None as NaN: test it with
//!   `is_nan`; an absent bound as -inf / +inf), the Python forms take them after `input` with
//!   their defaults, the node keeps `_saved_<name>`;
//! - `save`: what the derivative reads: `Input`, `Result` or `Nothing` (then `s` is `g`);
//! - `cpu`: the kernel on one float32 or float64 value `v` (of type `T`);
//! - `wgsl`: the same as a WGSL expression in `v: f32` (helpers in `shaders/unary.wgsl`);
//! - `grad`: the derivative as a tensor formula in the incoming gradient `g` and the saved `s`;
//! - `methods` / `inplace`: the Tensor methods generated (`src/python/declared.rs`);
//! - `functions`: the `gradrs.*` functions generated (`python/gradrs/_ops.py`, by
//!   `tools/gen_ops.py`), `sig`: their signature as PyTorch's parser prints it.

/// Invokes `$m!` with the table of unary ops (the X-macro pattern: each generator reads the
/// same table).
macro_rules! unary_table {
    ($m:ident) => {
        $m! {
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
            // ---- clamp with Python-number bounds (tensor bounds stay composed in
            // `ops/clamp.rs`, which also promotes x with the bounds before calling these) ----
            Clamp clamp {
                node: "ClampBackward1",
                dtypes: Dtypes::Keep(|v, a| clamp_int(v, a[0], a[1]), clamp_bool),
                params: [min: MinBound = None, max: MaxBound = None],
                save: Input,
                cpu: |v| clamp_value(v, min, max),
                wgsl: "clamp_(v, p.a, p.b)",
                grad: |g, x| clamp_grad(g, x, min, max),
                methods: [], inplace: [], functions: [],
                sig: "(Tensor input, Number min = None, Number max = None, *, Tensor out = None)",
            }
            ClampMin clamp_min {
                node: "ClampMinBackward0",
                dtypes: Dtypes::Keep(|v, a| clamp_int(v, a[0], None), clamp_min_bool),
                params: [min: f64 = 0.0],
                save: Input,
                cpu: |v| clamp_value(v, Some(min), None),
                wgsl: "clamp_(v, p.a, bitcast<f32>(0x7f800000u))",
                grad: |g, x| clamp_grad(g, x, Some(min), None),
                methods: [], inplace: [], functions: [],
                sig: "(Tensor input, Number min, *, Tensor out = None)",
            }
            ClampMax clamp_max {
                node: "ClampMaxBackward0",
                dtypes: Dtypes::Keep(|v, a| clamp_int(v, None, a[0]), clamp_max_bool),
                params: [max: f64 = 0.0],
                save: Input,
                cpu: |v| clamp_value(v, None, Some(max)),
                wgsl: "clamp_(v, bitcast<f32>(0xff800000u), p.a)",
                grad: |g, x| clamp_grad(g, x, None, Some(max)),
                methods: [], inplace: [], functions: [],
                sig: "(Tensor input, Number max, *, Tensor out = None)",
            }
            // ---- activations (`torch.nn.functional`; bindings in `python/pointwise.rs`,
            // formulas in `ops/activation.rs`) ----
            Hardtanh hardtanh {
                node: "HardtanhBackward0",
                // Integers clamp to the bounds truncated to integers, as PyTorch's kernel.
                dtypes: Dtypes::Keep(|v, a| clamp_int(v, a[0], a[1]), hardtanh_bool),
                params: [min_val: f64 = -1.0, max_val: f64 = 1.0],
                save: Input,
                cpu: |v| clamp_value(v, Some(min_val), Some(max_val)),
                wgsl: "clamp_(v, p.a, p.b)",
                grad: |g, x| hardtanh_grad(g, x, min_val, max_val),
                methods: [], inplace: [], functions: [],
                sig: "(Tensor input, float min_val = -1.0, float max_val = 1.0)",
            }
            Silu silu {
                node: "SiluBackward0",
                dtypes: Dtypes::FloatOnly("silu_cpu"),
                save: Input,
                cpu: |v| v / (1.0 + (-v).vexp()),
                wgsl: "v * sigmoid(v)",
                grad: |g, x| silu_grad(g, x),
                methods: [], inplace: [], functions: [],
                sig: "(Tensor input)",
            }
            // gelu's `approximate` is a string: one entry per value, behind one Python
            // `gelu(input, approximate='none')` (`activation::gelu` picks).
            Gelu gelu {
                node: "GeluBackward0",
                dtypes: Dtypes::FloatOnly("GeluKernelImpl"),
                save: Input,
                cpu: |v| 0.5 * v * (1.0 + Special::erf(v * FRAC_1_SQRT_2 as T)),
                wgsl: "0.5 * v * (1.0 + erf_(v * 0.7071067811865476))",
                grad: |g, x| gelu_grad(g, x),
                methods: [], inplace: [], functions: [],
                sig: "(Tensor input, str approximate = 'none')",
            }
            GeluTanh gelu_tanh {
                node: "GeluBackward0",
                dtypes: Dtypes::FloatOnly("GeluKernelImpl"),
                save: Input,
                cpu: |v| 0.5 * v * (1.0 + (GELU_K as T * (v + GELU_C as T * v * v * v)).vtanh()),
                wgsl: "0.5 * v * (1.0 + tanh_safe(0.7978845608028654 * (v + 0.044715 * v * v * v)))",
                grad: |g, x| gelu_tanh_grad(g, x),
                methods: [], inplace: [], functions: [],
                sig: "(Tensor input, str approximate = 'tanh')",
            }
            Softplus softplus {
                node: "SoftplusBackward0",
                dtypes: Dtypes::FloatOnly("softplus_cpu"),
                params: [beta: f64 = 1.0, threshold: f64 = 20.0],
                save: Input,
                cpu: |v| if v * beta as T > threshold as T {
                    v
                } else {
                    (v * beta as T).exp().ln_1p() / beta as T
                },
                wgsl: "softplus_(v, p.a, p.b)",
                grad: |g, x| softplus_grad(g, x, beta, threshold),
                methods: [], inplace: [], functions: [],
                sig: "(Tensor input, float beta = 1.0, float threshold = 20.0)",
            }
            // PyTorch's elu op (selu is it with SELU's constants): x * scale for x > 0, else
            // alpha * scale * (exp(x * input_scale) - 1).
            Elu elu {
                node: "EluBackward0",
                dtypes: Dtypes::FloatOnly("elu_cpu"),
                params: [alpha: f64 = 1.0, scale: f64 = 1.0, input_scale: f64 = 1.0],
                save: Input,
                cpu: |v| if v > 0.0 {
                    v * scale as T
                } else {
                    (alpha * scale) as T * (v * input_scale as T).exp_m1()
                },
                wgsl: "select(p.a * p.b * expm1_(v * p.c), v * p.b, v > 0.0)",
                grad: |g, x| elu_grad(g, x, alpha, scale, input_scale, false),
                methods: [], inplace: [], functions: [],
                sig: "(Tensor input, float alpha = 1.0, float scale = 1.0, float input_scale = 1.0)",
            }
            // elu_: PyTorch's in-place op, whose node keeps the result (the input is gone).
            EluInplace elu_ {
                node: "EluBackward1",
                dtypes: Dtypes::FloatOnly("elu_cpu"),
                params: [alpha: f64 = 1.0, scale: f64 = 1.0, input_scale: f64 = 1.0],
                save: Result,
                cpu: |v| if v > 0.0 {
                    v * scale as T
                } else {
                    (alpha * scale) as T * (v * input_scale as T).exp_m1()
                },
                wgsl: "select(p.a * p.b * expm1_(v * p.c), v * p.b, v > 0.0)",
                grad: |g, r| elu_grad(g, r, alpha, scale, input_scale, true),
                methods: [], inplace: [], functions: [],
                sig: "(Tensor input, float alpha = 1.0, float scale = 1.0, float input_scale = 1.0)",
            }
            LeakyRelu leaky_relu {
                node: "LeakyReluBackward0",
                dtypes: Dtypes::FloatOnly("leaky_relu_cpu"),
                params: [negative_slope: f64 = 0.01],
                save: Input,
                cpu: |v| if v > 0.0 { v } else { v * negative_slope as T },
                wgsl: "select(v * p.a, v, v > 0.0)",
                grad: |g, x| leaky_relu_grad(g, x, negative_slope, false),
                methods: [], inplace: [], functions: [],
                sig: "(Tensor input, float negative_slope = 0.01)",
            }
            // leaky_relu_: in place, the node keeps the result (PyTorch refuses its backward for
            // a negative slope).
            LeakyReluInplace leaky_relu_ {
                node: "LeakyReluBackward1",
                dtypes: Dtypes::FloatOnly("leaky_relu_cpu"),
                params: [negative_slope: f64 = 0.01],
                save: Result,
                cpu: |v| if v > 0.0 { v } else { v * negative_slope as T },
                wgsl: "select(v * p.a, v, v > 0.0)",
                grad: |g, r| leaky_relu_grad(g, r, negative_slope, true),
                methods: [], inplace: [], functions: [],
                sig: "(Tensor input, float negative_slope = 0.01)",
            }
            // PyTorch's celu is its elu op with scale 1 and input_scale 1 / alpha (its derivative
            // takes 1 / float(alpha)); alpha 0 is refused by `F.celu`.
            Celu celu {
                node: "CeluBackward0",
                dtypes: Dtypes::FloatOnly("elu_cpu"),
                params: [alpha: f64 = 1.0],
                save: Input,
                cpu: |v| if v > 0.0 { v } else { alpha as T * (v * (1.0 / alpha) as T).exp_m1() },
                wgsl: "select(p.a * expm1_(v * (1.0 / p.a)), v, v > 0.0)",
                grad: |g, x| elu_grad(g, x, alpha, 1.0, 1.0 / (alpha as f32 as f64), false),
                methods: [], inplace: [], functions: [],
                sig: "(Tensor input, float alpha = 1.0)",
            }
            // celu_: in place, the node keeps the result, as elu_'s.
            CeluInplace celu_ {
                node: "CeluBackward1",
                dtypes: Dtypes::FloatOnly("elu_cpu"),
                params: [alpha: f64 = 1.0],
                save: Result,
                cpu: |v| if v > 0.0 { v } else { alpha as T * (v * (1.0 / alpha) as T).exp_m1() },
                wgsl: "select(p.a * expm1_(v * (1.0 / p.a)), v, v > 0.0)",
                grad: |g, r| elu_grad(g, r, alpha, 1.0, 1.0 / (alpha as f32 as f64), true),
                methods: [], inplace: [], functions: [],
                sig: "(Tensor input, float alpha = 1.0)",
            }
            Mish mish {
                node: "MishBackward0",
                dtypes: Dtypes::FloatOnly("mish_cpu"),
                save: Input,
                cpu: |v| v * v.vexp().ln_1p().vtanh(),
                // tanh(log1p(e)) = e (e + 2) / (e (e + 2) + 2), e = exp(x): no cancellation for
                // small e (a driver's tanh of a tiny argument may be coarse); 1 from 15 on.
                wgsl: "select(v, v * (exp(v) * (exp(v) + 2.0) / (exp(v) * (exp(v) + 2.0) + 2.0)), v < 15.0)",
                grad: |g, x| crate::ops::activation::mish_grad(g, x),
                methods: [], inplace: [], functions: [],
                sig: "(Tensor input)",
            }
            Hardsigmoid hardsigmoid {
                node: "HardsigmoidBackward0",
                dtypes: Dtypes::FloatOnly("hardsigmoid_cpu"),
                save: Input,
                cpu: |v| (v + 3.0).clamp(0.0, 6.0) / 6.0,
                wgsl: "clamp_(v + 3.0, 0.0, 6.0) / 6.0",
                grad: |g, x| crate::ops::activation::hardsigmoid_grad(g, x),
                methods: [], inplace: [], functions: [],
                sig: "(Tensor input)",
            }
            Hardswish hardswish {
                node: "HardswishBackward0",
                dtypes: Dtypes::FloatOnly("hardswish_cpu"),
                save: Input,
                cpu: |v| v * (v + 3.0).clamp(0.0, 6.0) / 6.0,
                wgsl: "v * clamp_(v + 3.0, 0.0, 6.0) / 6.0",
                grad: |g, x| crate::ops::activation::hardswish_grad(g, x),
                methods: [], inplace: [], functions: [],
                sig: "(Tensor input)",
            }
            // The range of lambd is checked by `F.softshrink` (it names the dtype's maximum).
            Softshrink softshrink {
                node: "SoftshrinkBackward0",
                dtypes: Dtypes::FloatOnly("softshrink_check"),
                params: [lambd: f64 = 0.5],
                save: Input,
                cpu: |v| if v > lambd as T {
                    v - lambd as T
                } else if v < -(lambd as T) {
                    v + lambd as T
                } else {
                    v * 0.0
                },
                // (0 * v keeps the sign and NaN, which a shader compiler may fold away)
                wgsl: "select(select(select(bitcast<f32>(bitcast<u32>(v) & 0x80000000u), v, is_nan(v)), v + p.a, v < -p.a), v - p.a, v > p.a)",
                grad: |g, x| crate::ops::activation::shrink_grad("SoftshrinkBackwardBackward0", g, x, lambd),
                methods: [], inplace: [], functions: [],
                sig: "(Tensor input, Scalar lambd = 0.5)",
            }
            /// Applies the hard shrinkage function element-wise: `self_i` where `|self_i| > lambd`,
            /// else `0`. See `gradrs.nn.Hardshrink`.
            ///
            /// Args:
            ///     lambd (float, optional): the threshold. Default: `0.5`.
            ///
            /// Example:
            ///     >>> x = gradrs.tensor([-1.5, -0.5, 0.0, 0.5, 2.0])
            ///     >>> x.hardshrink()
            ///     tensor([-1.5000,  0.0000,  0.0000,  0.0000,  2.0000])
            ///     >>> x.hardshrink(1.6)
            ///     tensor([0., 0., 0., 0., 2.])
            Hardshrink hardshrink {
                node: "HardshrinkBackward0",
                dtypes: Dtypes::FloatOnly("hardshrink_cpu"),
                params: [lambd: f64 = 0.5],
                save: Input,
                cpu: |v| if v >= -(lambd as T) && v <= lambd as T { 0.0 } else { v },
                wgsl: "select(v, 0.0, !is_nan(v) && v >= -p.a && v <= p.a)",
                grad: |g, x| crate::ops::activation::shrink_grad("HardshrinkBackwardBackward0", g, x, lambd),
                methods: [hardshrink], inplace: [], functions: [],
                sig: "(Tensor input, Scalar lambd = 0.5)",
            }
            // threshold: `value` where x <= threshold (so NaN passes), for every dtype but bool;
            // integers compare with the parameters truncated, as PyTorch's `Scalar::to<int>`.
            Threshold threshold {
                node: "ThresholdBackward0",
                dtypes: Dtypes::Keep(crate::ops::activation::threshold_int, crate::ops::activation::threshold_bool),
                params: [threshold: f64 = 0.0, value: NotSaved = 0.0],
                save: Input,
                cpu: |v| if v <= threshold as T { value as T } else { v },
                wgsl: "select(v, p.b, !is_nan(v) && v <= p.a)",
                grad: |g, x| {
                    let _ = value; // the backward reads only the threshold
                    crate::ops::activation::threshold_grad(g, x, threshold)
                },
                methods: [], inplace: [], functions: [],
                sig: "(Tensor input, Scalar threshold, Scalar value)",
            }
            // threshold_: in place; its node keeps the input's old values, as threshold's.
            ThresholdInplace threshold_ {
                node: "ThresholdBackward1",
                dtypes: Dtypes::Keep(crate::ops::activation::threshold_int, crate::ops::activation::threshold_bool),
                params: [threshold: f64 = 0.0, value: NotSaved = 0.0],
                save: Input,
                cpu: |v| if v <= threshold as T { value as T } else { v },
                wgsl: "select(v, p.b, !is_nan(v) && v <= p.a)",
                grad: |g, x| {
                    let _ = value; // the backward reads only the threshold
                    crate::ops::activation::threshold_grad(g, x, threshold)
                },
                methods: [], inplace: [], functions: [],
                sig: "(Tensor input, Scalar threshold, Scalar value)",
            }
            /// Returns a new tensor with the inverse hyperbolic sine of the elements of `self`.
            /// `arcsinh` is an alias.
            ///
            /// Example:
            ///     >>> x = gradrs.tensor([-1.5, -0.5, 0.0, 0.5, 2.0])
            ///     >>> x.asinh()
            ///     tensor([-1.1948, -0.4812,  0.0000,  0.4812,  1.4436])
            Asinh asinh {
                node: "AsinhBackward0",
                dtypes: Dtypes::Float,
                save: Input,
                cpu: |v| v.asinh(),
                wgsl: "asinh_(v)",
                grad: |g, x| mul(g, &rsqrt(&add(&mul(x, x)?, 1.0)?)?),
                methods: [asinh, arcsinh], inplace: [asinh_, arcsinh_], functions: [asinh, arcsinh, asinh_, arcsinh_],
                sig: UNARY,
            }
            /// Returns a new tensor with the inverse hyperbolic cosine of the elements of `self`
            /// (`nan` below 1). `arccosh` is an alias.
            ///
            /// Example:
            ///     >>> gradrs.tensor([1.0, 1.5, 2.0, 10.0]).acosh()
            ///     tensor([0.0000, 0.9624, 1.3170, 2.9932])
            Acosh acosh {
                node: "AcoshBackward0",
                dtypes: Dtypes::Float,
                save: Input,
                cpu: |v| v.acosh(),
                wgsl: "acosh_(v)",
                // PyTorch's (x² - 1)^(-1/2).
                grad: |g, x| mul(g, &rsqrt(&sub(&mul(x, x)?, 1.0)?)?),
                methods: [acosh, arccosh], inplace: [acosh_, arccosh_], functions: [acosh, arccosh, acosh_, arccosh_],
                sig: UNARY,
            }
            /// Returns a new tensor with the inverse hyperbolic tangent of the elements of `self`
            /// (`nan` outside `[-1, 1]`, `+-inf` at `+-1`). `arctanh` is an alias.
            ///
            /// Example:
            ///     >>> x = gradrs.tensor([-0.9, -0.5, 0.0, 0.5])
            ///     >>> x.atanh()
            ///     tensor([-1.4722, -0.5493,  0.0000,  0.5493])
            Atanh atanh {
                node: "AtanhBackward0",
                dtypes: Dtypes::Float,
                save: Input,
                cpu: |v| v.atanh(),
                wgsl: "atanh_(v)",
                grad: |g, x| div(g, &rsub(&mul(x, x)?, 1.0)?),
                methods: [atanh, arctanh], inplace: [atanh_, arctanh_], functions: [atanh, arctanh, atanh_, arctanh_],
                sig: UNARY,
            }
            /// Computes the complementary error function of the elements of `self`: `erfc(x) = 1 -
            /// erf(x)`, accurate where `erf(x)` is close to 1.
            ///
            /// Example:
            ///     >>> gradrs.tensor([0.0, -1.0, 2.0]).erfc()
            ///     tensor([1.0000, 1.8427, 0.0047])
            Erfc erfc {
                node: "ErfcBackward0",
                dtypes: Dtypes::Float,
                save: Input,
                cpu: |v| <T as crate::ops::special_fns::Real>::erfc(v),
                wgsl: "erfc_(v)",
                // -2/sqrt(pi) * exp(-x²)
                grad: |g, x| mul(g, &mul(&exp(&neg(&mul(x, x)?)?)?, -FRAC_2_SQRT_PI)?),
                methods: [erfc], inplace: [erfc_], functions: [erfc, erfc_],
                sig: UNARY,
            }
            /// Computes the inverse error function of the elements of `self`, defined on `(-1, 1)`
            /// (`+-inf` at `+-1`, `nan` outside).
            ///
            /// Example:
            ///     >>> gradrs.tensor([0.0, 0.5, -1.0]).erfinv()
            ///     tensor([0.0000, 0.4769,   -inf])
            Erfinv erfinv {
                node: "ErfinvBackward0",
                dtypes: Dtypes::Float,
                save: Input,
                cpu: |v| <T as crate::ops::special_fns::SpecialFns>::erfinv(v),
                wgsl: "erfinv_(v)",
                // sqrt(pi)/2 * exp(erfinv(x)²), erfinv recomputed as PyTorch's formula does.
                grad: |g, x| {
                    let r = erfinv(x)?;
                    mul(g, &mul(&exp(&mul(&r, &r)?)?, 0.5 * PI.sqrt())?)
                },
                methods: [erfinv], inplace: [erfinv_], functions: [erfinv, erfinv_],
                sig: UNARY,
            }
            /// Computes the natural logarithm of the absolute value of the gamma function of the
            /// elements of `self`: `out_i = ln |Gamma(self_i)|`.
            ///
            /// Example:
            ///     >>> gradrs.arange(0.5, 2, 0.5).lgamma()
            ///     tensor([ 0.5724,  0.0000, -0.1208])
            Lgamma lgamma {
                node: "LgammaBackward0",
                dtypes: Dtypes::Float,
                save: Input,
                cpu: |v| <T as crate::ops::special_fns::Real>::lgamma(v),
                wgsl: "lgamma_(v)",
                grad: |g, x| mul(g, &digamma(x)?),
                methods: [lgamma], inplace: [lgamma_], functions: [lgamma],
                sig: UNARY,
            }
            /// Computes the logarithmic derivative of the gamma function of the elements of `self`:
            /// `digamma(x) = d/dx ln(Gamma(x))` (`-inf` at zero, as PyTorch).
            ///
            /// Example:
            ///     >>> gradrs.tensor([1.0, 0.5]).digamma()
            ///     tensor([-0.5772, -1.9635])
            Digamma digamma {
                node: "DigammaBackward0",
                dtypes: Dtypes::Float,
                save: Input,
                cpu: |v| <T as crate::ops::special_fns::SpecialFns>::digamma(v),
                wgsl: "digamma_(v)",
                grad: |g, x| mul(g, &crate::ops::special::polygamma(1, x)?),
                methods: [digamma], inplace: [digamma_], functions: [digamma],
                sig: UNARY,
            }
            // The Tensor methods and functions of polygamma and mvlgamma, whose integer comes
            // first or is required, are written by hand (ops/special.rs, python/pointwise.rs).
            Polygamma polygamma {
                node: "PolygammaBackward0",
                dtypes: Dtypes::Float,
                params: [n: i64 = 0],
                save: Input,
                cpu: |v| <T as crate::ops::special_fns::SpecialFns>::polygamma(v, n),
                wgsl: "polygamma_(i32(p.a), v)",
                grad: |g, x| mul(g, &crate::ops::special::polygamma(n + 1, x)?),
                methods: [], inplace: [], functions: [],
                sig: "(int n, Tensor input, *, Tensor out = None)",
            }
            Mvlgamma mvlgamma {
                node: "MvlgammaBackward0",
                dtypes: Dtypes::Float,
                params: [p: i64 = 1],
                save: Input,
                cpu: |v| <T as crate::ops::special_fns::SpecialFns>::mvlgamma(v, p),
                wgsl: "mvlgamma_(v, i32(p.a))",
                grad: |g, x| crate::ops::special::mvlgamma_grad(g, x, p),
                methods: [], inplace: [], functions: [],
                sig: "(Tensor input, int p, *, Tensor out = None)",
            }
            /// Computes the zeroth-order modified Bessel function of the first kind of the elements
            /// of `self`.
            ///
            /// Example:
            ///     >>> gradrs.arange(5, dtype=gradrs.float32).i0()
            ///     tensor([ 1.0000,  1.2661,  2.2796,  4.8808, 11.3019])
            I0 i0 {
                node: "I0Backward0",
                dtypes: Dtypes::Float,
                save: Input,
                cpu: |v| <T as crate::ops::special_fns::SpecialFns>::i0(v),
                wgsl: "i0_(v)",
                grad: |g, x| mul(g, &special_i1(x)?),
                methods: [i0], inplace: [i0_], functions: [i0, i0_],
                sig: UNARY,
            }
            // torch.special's i0e / i1 / i1e: no Tensor methods; gradrs.special calls them.
            // PyTorch's nodes also keep the result; these recompute it from the input.
            SpecialI0e special_i0e {
                node: "SpecialI0EBackward0",
                dtypes: Dtypes::Float,
                save: Input,
                cpu: |v| <T as crate::ops::special_fns::SpecialFns>::i0e(v),
                wgsl: "i0e_(v)",
                grad: |g, x| mul(g, &sub(&special_i1e(x)?, &mul(&sign(x)?, &special_i0e(x)?)?)?),
                methods: [], inplace: [], functions: [],
                sig: UNARY,
            }
            SpecialI1 special_i1 {
                node: "SpecialI1Backward0",
                dtypes: Dtypes::Float,
                save: Input,
                cpu: |v| <T as crate::ops::special_fns::SpecialFns>::i1(v),
                wgsl: "i1_(v)",
                grad: |g, x| crate::ops::special::i1_grad(g, x),
                methods: [], inplace: [], functions: [],
                sig: UNARY,
            }
            SpecialI1e special_i1e {
                node: "SpecialI1EBackward0",
                dtypes: Dtypes::Float,
                save: Input,
                cpu: |v| <T as crate::ops::special_fns::SpecialFns>::i1e(v),
                wgsl: "i1e_(v)",
                grad: |g, x| crate::ops::special::i1e_grad(g, x),
                methods: [], inplace: [], functions: [],
                sig: UNARY,
            }
            // torch.special's ndtri / erfcx / log_ndtr (no Tensor methods; gradrs.special calls
            // them, `_native._unary_op`): float16 has no kernel in PyTorch.
            SpecialNdtri special_ndtri {
                node: "SpecialNdtriBackward0",
                dtypes: Dtypes::FloatNoHalf("ndtri_cpu"),
                save: Result,
                cpu: |v| <T as crate::ops::special_fns::SpecialFns>::ndtri(v),
                wgsl: "ndtri_(v)",
                // sqrt(2 pi) exp(r² / 2), in PyTorch's order.
                grad: |g, r| mul(&mul(g, (2.0 * PI).sqrt())?, &exp(&div(&mul(r, r)?, 2.0)?)?),
                methods: [], inplace: [], functions: [],
                sig: UNARY,
            }
            // torch.special's Bessel functions: not differentiable in PyTorch (no node; the
            // result never requires grad).
            SpecialBesselJ0 special_bessel_j0 {
                node: "",
                dtypes: Dtypes::FloatNoHalf("bessel_j0_cpu"),
                save: Never,
                cpu: |v| <T as crate::ops::special_fns::SpecialFns>::bessel_j0(v),
                wgsl: "bessel_j0_(v)",
                grad: |_g, _s| unreachable!("not differentiable"),
                methods: [], inplace: [], functions: [],
                sig: UNARY,
            }
            SpecialBesselJ1 special_bessel_j1 {
                node: "",
                dtypes: Dtypes::FloatNoHalf("bessel_j1_cpu"),
                save: Never,
                cpu: |v| <T as crate::ops::special_fns::SpecialFns>::bessel_j1(v),
                wgsl: "bessel_j1_(v)",
                grad: |_g, _s| unreachable!("not differentiable"),
                methods: [], inplace: [], functions: [],
                sig: UNARY,
            }
            SpecialBesselY0 special_bessel_y0 {
                node: "",
                dtypes: Dtypes::FloatNoHalf("bessel_y0_cpu"),
                save: Never,
                cpu: |v| <T as crate::ops::special_fns::SpecialFns>::bessel_y0(v),
                wgsl: "bessel_y0_(v)",
                grad: |_g, _s| unreachable!("not differentiable"),
                methods: [], inplace: [], functions: [],
                sig: UNARY,
            }
            SpecialBesselY1 special_bessel_y1 {
                node: "",
                dtypes: Dtypes::FloatNoHalf("bessel_y1_cpu"),
                save: Never,
                cpu: |v| <T as crate::ops::special_fns::SpecialFns>::bessel_y1(v),
                wgsl: "bessel_y1_(v)",
                grad: |_g, _s| unreachable!("not differentiable"),
                methods: [], inplace: [], functions: [],
                sig: UNARY,
            }
            // The modified Bessel functions of torch.special (not differentiable; i0 is the
            // kernel of `i0`).
            SpecialModifiedBesselI0 special_modified_bessel_i0 {
                node: "",
                dtypes: Dtypes::FloatNoHalf("modified_bessel_i0_cpu"),
                save: Never,
                cpu: |v| <T as crate::ops::special_fns::SpecialFns>::i0(v),
                wgsl: "i0_(v)",
                grad: |_g, _s| unreachable!("not differentiable"),
                methods: [], inplace: [], functions: [],
                sig: UNARY,
            }
            SpecialModifiedBesselI1 special_modified_bessel_i1 {
                node: "",
                dtypes: Dtypes::FloatNoHalf("modified_bessel_i1_cpu"),
                save: Never,
                cpu: |v| <T as crate::ops::special_fns::SpecialFns>::modified_bessel_i1(v),
                wgsl: "modified_bessel_i1_(v)",
                grad: |_g, _s| unreachable!("not differentiable"),
                methods: [], inplace: [], functions: [],
                sig: UNARY,
            }
            SpecialModifiedBesselK0 special_modified_bessel_k0 {
                node: "",
                dtypes: Dtypes::FloatNoHalf("modified_bessel_k0_cpu"),
                save: Never,
                cpu: |v| <T as crate::ops::special_fns::SpecialFns>::modified_bessel_k0(v),
                wgsl: "modified_bessel_k0_(v, false)",
                grad: |_g, _s| unreachable!("not differentiable"),
                methods: [], inplace: [], functions: [],
                sig: UNARY,
            }
            SpecialModifiedBesselK1 special_modified_bessel_k1 {
                node: "",
                dtypes: Dtypes::FloatNoHalf("modified_bessel_k1_cpu"),
                save: Never,
                cpu: |v| <T as crate::ops::special_fns::SpecialFns>::modified_bessel_k1(v),
                wgsl: "modified_bessel_k1_(v, false)",
                grad: |_g, _s| unreachable!("not differentiable"),
                methods: [], inplace: [], functions: [],
                sig: UNARY,
            }
            SpecialScaledModifiedBesselK0 special_scaled_modified_bessel_k0 {
                node: "",
                dtypes: Dtypes::FloatNoHalf("scaled_modified_bessel_k0_cpu"),
                save: Never,
                cpu: |v| <T as crate::ops::special_fns::SpecialFns>::scaled_modified_bessel_k0(v),
                wgsl: "modified_bessel_k0_(v, true)",
                grad: |_g, _s| unreachable!("not differentiable"),
                methods: [], inplace: [], functions: [],
                sig: "(Tensor x, *, Tensor out = None)",
            }
            SpecialScaledModifiedBesselK1 special_scaled_modified_bessel_k1 {
                node: "",
                dtypes: Dtypes::FloatNoHalf("scaled_modified_bessel_k1_cpu"),
                save: Never,
                cpu: |v| <T as crate::ops::special_fns::SpecialFns>::scaled_modified_bessel_k1(v),
                wgsl: "modified_bessel_k1_(v, true)",
                grad: |_g, _s| unreachable!("not differentiable"),
                methods: [], inplace: [], functions: [],
                sig: "(Tensor x, *, Tensor out = None)",
            }
            SpecialSphericalBesselJ0 special_spherical_bessel_j0 {
                node: "",
                dtypes: Dtypes::FloatNoHalf("spherical_bessel_j0_cpu"),
                save: Never,
                cpu: |v| <T as crate::ops::special_fns::SpecialFns>::spherical_bessel_j0(v),
                wgsl: "spherical_bessel_j0_(v)",
                grad: |_g, _s| unreachable!("not differentiable"),
                methods: [], inplace: [], functions: [],
                sig: "(Tensor x, *, Tensor out = None)",
            }
            // Airy's Ai: not differentiable in PyTorch either (no node).
            SpecialAiryAi special_airy_ai {
                node: "",
                dtypes: Dtypes::FloatNoHalf("airy_ai_cpu"),
                save: Never,
                cpu: |v| <T as crate::ops::special_fns::SpecialFns>::airy_ai(v),
                wgsl: "airy_ai_(v)",
                grad: |_g, _s| unreachable!("not differentiable"),
                methods: [], inplace: [], functions: [],
                sig: "(Tensor x, *, Tensor out = None)",
            }
            // PyTorch's node also keeps the result; this one recomputes it from the input.
            SpecialErfcx special_erfcx {
                node: "SpecialErfcxBackward0",
                dtypes: Dtypes::FloatNoHalf("erfcx_cpu"),
                save: Input,
                cpu: |v| <T as crate::ops::special_fns::SpecialFns>::erfcx(v),
                wgsl: "erfcx_(v)",
                // (2 x erfcx(x) - 2 / sqrt(pi)) g
                grad: |g, x| mul(&sub(&mul(&mul(x, 2.0)?, &special_erfcx(x)?)?, FRAC_2_SQRT_PI)?, g),
                methods: [], inplace: [], functions: [],
                sig: UNARY,
            }
            // PyTorch's node also keeps the result; this one recomputes it from the input.
            SpecialLogNdtr special_log_ndtr {
                node: "SpecialLogNdtrBackward0",
                dtypes: Dtypes::FloatNoHalf("log_ndtr_cpu"),
                save: Input,
                cpu: |v| <T as crate::ops::special_fns::SpecialFns>::log_ndtr(v),
                wgsl: "log_ndtr_(v)",
                // g / sqrt(2 pi) exp(-(log_ndtr(x) + x² / 2))
                grad: |g, x| {
                    let e = add(&special_log_ndtr(x)?, &div(&mul(x, x)?, 2.0)?)?;
                    mul(&div(g, (2.0 * PI).sqrt())?, &exp(&neg(&e)?)?)
                },
                methods: [], inplace: [], functions: [],
                sig: UNARY,
            }
        }
    };
}
pub(crate) use unary_table;
