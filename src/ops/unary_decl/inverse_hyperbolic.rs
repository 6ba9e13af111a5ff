//! The rows of the unary op table (`ops/unary_decl.rs`, Note [Op declarations] in `ops/unary.rs`)
//! for the inverse hyperbolic functions: `asinh`, `acosh`, `atanh`.

/// Appends this family's rows to `$rows` and hands them on
/// (to `special.rs`).
macro_rules! inverse_hyperbolic_rows {
    ($m:ident $($rows:tt)*) => {
        $crate::ops::unary_decl::special::special_rows! {
            $m $($rows)*
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
        }
    };
}
pub(crate) use inverse_hyperbolic_rows;
