//! The rows of the unary op table (`ops/unary_decl.rs`, Note [Op declarations] in `ops/unary.rs`)
//! for the activations of `torch.nn.functional`: `hardtanh`, `silu`, `gelu`, `softplus`, `elu`,
//! `leaky_relu`, `celu`, `mish`, `hardsigmoid`, `hardswish`, `softshrink`, `hardshrink`,
//! `threshold`, and the in-place entries whose node differs (`elu_`, `leaky_relu_`, `celu_`,
//! `threshold_`).

/// Appends this family's rows to `$rows` and hands them on
/// (to `inverse_hyperbolic.rs`).
macro_rules! activation_rows {
    ($m:ident $($rows:tt)*) => {
        $crate::ops::unary_decl::inverse_hyperbolic::inverse_hyperbolic_rows! {
            $m $($rows)*
            // ---- activations (`torch.nn.functional`; bindings in `python/activation.rs`,
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
        }
    };
}
pub(crate) use activation_rows;
