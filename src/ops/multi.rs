//! Declared multi-output ops: the generator that turns the declarations of
//! `ops/multi_decl.rs` into `MultiOp`, one backward node shared by the outputs, and
//! `pub fn <name>` (Note [Op declarations] in `ops/unary.rs`).

use crate::autograd::saved::Value;
use crate::ops::multi_decl::multi_table;

// The vocabulary the declared forwards and formulas are written in.
#[allow(unused_imports)]
use crate::{
    error::{Error, Result},
    ops::arithmetic::{add, div, mul, pow, rsub, sub},
    ops::compare::{eq, ge, gt, le, lt, ne},
    ops::creation::zeros_like,
    ops::extrema::amax,
    ops::logical::logical_not,
    ops::reduce::{reduction_dims, restore_dims, sum},
    ops::where_::where_,
    tensor::shape::wrap_dim,
};

/// A keyword argument's value as a node shows it (`_saved_<name>`).
pub trait KwargValue: Copy + Send + Sync + 'static {
    fn value(self) -> Value;
}
impl KwargValue for i64 {
    fn value(self) -> Value {
        Value::Int(self)
    }
}
impl KwargValue for Option<i64> {
    fn value(self) -> Value {
        self.map_or(Value::None, Value::Int)
    }
}
impl KwargValue for bool {
    fn value(self) -> Value {
        Value::Bool(self)
    }
}
impl KwargValue for f64 {
    fn value(self) -> Value {
        Value::Float(self)
    }
}

/// One op's row of the table, as `_native._declared_ops()` reports it.
pub struct DeclaredMulti {
    pub name: &'static str,
    pub node: &'static str,
    pub outputs: &'static [&'static str],
    /// Each keyword argument's name, Rust type and default, as written in the declaration.
    pub kwargs: &'static [(&'static str, &'static str, &'static str)],
    pub methods: &'static [&'static str],
    pub functions: &'static [&'static str],
    pub sig: &'static str,
}

macro_rules! generate_multi {
    ($(
        // The entry's docstring (the Tensor methods' in `python/declared.rs`).
        $(#[doc = $doc:literal])*
        $V:ident $name:ident {
            node: $node:literal,
            outputs: [$($o:ident),* $(,)?],
            kwargs: [$($k:ident: $kty:ty = $kdef:expr),* $(,)?],
            forward: |$x:ident| $forward:expr,
            grad: |$grads:ident, $gx:ident, $outs:ident| $grad:expr,
            jvp: |$jt:ident, $jx:ident, $jouts:ident| $jvp:expr,
            methods: [$($m:ident),*], functions: [$($f:ident),*],
            sig: $sig:expr,
        }
    )*) => {
        /// The declared multi-output ops (`ops/multi_decl.rs`), in table order.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum MultiOp {
            $($V,)*
        }

        impl MultiOp {
            pub const ALL: &'static [MultiOp] = &[$(MultiOp::$V,)*];

            pub fn declared(self) -> DeclaredMulti {
                match self {
                    $(MultiOp::$V => DeclaredMulti {
                        name: stringify!($name),
                        node: $node,
                        outputs: &[$(stringify!($o)),*],
                        kwargs: &[$((stringify!($k), stringify!($kty), stringify!($kdef))),*],
                        methods: &[$(stringify!($m)),*],
                        functions: &[$(stringify!($f)),*],
                        sig: $sig,
                    },)*
                }
            }
        }

        $(
            #[doc = concat!("`", stringify!($name), "(x, *, ...)`, declared in `ops/multi_decl.rs`: its outputs in order.")]
            pub fn $name(
                $x: &crate::tensor::Tensor,
                $($k: $kty),*
            ) -> crate::error::Result<Vec<crate::tensor::Tensor>> {
                use crate::autograd::{formula, needs_grad, GradModeGuard, SavedTensor};
                let outs: Vec<crate::tensor::Tensor> = {
                    let _no_grad = GradModeGuard::new(false);
                    $forward?
                };
                if !needs_grad(&[$x]) {
                    return Ok(outs);
                }
                let mut saved = vec![SavedTensor::input($x)?];
                for (i, o) in outs.iter().enumerate() {
                    saved.push(SavedTensor::output(o, i as u32)?);
                }
                let refs: Vec<&crate::tensor::Tensor> = outs.iter().collect();
                let n_outs = outs.len();
                formula::attach_formula_jvp(&refs, &[$x], $node, saved, move |grads, s| {
                    let ($grads, $gx, $outs) = (grads, &s[0], &s[1..]);
                    Ok(vec![Some($grad?)])
                }, formula::Jvp::of(move |ts, s| {
                    let Some($jt) = &ts[0] else {
                        return Ok(vec![None; n_outs]);
                    };
                    let ($jx, $jouts) = (&s[0], &s[1..]);
                    Ok($jvp?.into_iter().map(Some).collect())
                }));
                let values = vec![$((stringify!($k), KwargValue::value($k))),*];
                formula::describe(&outs[0], &["self", $(stringify!($o)),*], values);
                Ok(outs)
            }
        )*
    };
}

multi_table!(generate_multi);
