//! The rows of the unary op table (`ops/unary_decl.rs`, Note [Op declarations] in `ops/unary.rs`)
//! for the clamps with Python-number bounds: `clamp`, `clamp_min`, `clamp_max`.

/// Appends this family's rows to `$rows` and hands them on
/// (to `activation.rs`).
macro_rules! clamp_rows {
    ($m:ident $($rows:tt)*) => {
        $crate::ops::unary_decl::activation::activation_rows! {
            $m $($rows)*
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
        }
    };
}
pub(crate) use clamp_rows;
