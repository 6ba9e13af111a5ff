//! The rows of the unary op table (`ops/unary_decl.rs`, Note [Op declarations] in `ops/unary.rs`)
//! for the special functions: `erfc`, `erfinv`, `lgamma`, `digamma`, `polygamma`, `mvlgamma`,
//! `i0`, and `torch.special`'s `special_*` ops (Bessel, Airy, `ndtri`, `erfcx`, `log_ndtr`, ...);
//! their kernels are in `ops/special_fns/`.

/// Appends this family's rows to `$rows` and hands them on
/// (the last family: to the generator `$m`).
macro_rules! special_rows {
    ($m:ident $($rows:tt)*) => {
        $m! {
            $($rows)*
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
            // first or is required, are written by hand (ops/special.rs, python/special.rs).
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
pub(crate) use special_rows;
