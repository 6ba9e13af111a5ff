//! Declared view ops: the generator that turns the declarations of `ops/view_decl.rs` into
//! `ViewOp` and `pub fn <name>` (Note [Op declarations] in `ops/unary.rs`). The forward is a
//! composition of view ops, so the result is a view of its input (storage, `_base`, version
//! counter) and the backward is theirs.

use crate::ops::view_decl::view_table;

// The vocabulary the declared compositions are written in.
#[allow(unused_imports)]
use crate::{
    error::{Error, Result},
    ops::movement::{permute, view_as_alias},
    tensor::shape::wrap_dim,
};

/// A dims argument given as one int or as a sequence of ints (PyTorch's `int` / `int[]`
/// overload pairs, which do not mix).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dims {
    One(i64),
    Many(Vec<i64>),
}

impl Dims {
    pub fn as_slice(&self) -> &[i64] {
        match self {
            Dims::One(d) => std::slice::from_ref(d),
            Dims::Many(v) => v,
        }
    }
}

/// One view op's row of the table, as `_native._declared_ops()` reports it.
pub struct DeclaredView {
    pub name: &'static str,
    /// Each argument's name and Rust type.
    pub args: &'static [(&'static str, &'static str)],
    pub methods: &'static [&'static str],
    pub functions: &'static [&'static str],
    pub sigs: &'static [&'static str],
}

macro_rules! generate_view {
    ($(
        // The entry's docstring (the Tensor methods' in `python/declared.rs`).
        $(#[doc = $doc:literal])*
        $V:ident $name:ident {
            args: [$($a:ident: $aty:ty),* $(,)?],
            compose: |$x:ident| $compose:expr,
            methods: [$($m:ident),*], functions: [$($f:ident),*],
            sigs: [$($sig:expr),* $(,)?],
        }
    )*) => {
        /// The declared view ops (`ops/view_decl.rs`), in table order.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum ViewOp {
            $($V,)*
        }

        impl ViewOp {
            pub const ALL: &'static [ViewOp] = &[$(ViewOp::$V,)*];

            pub fn declared(self) -> DeclaredView {
                match self {
                    $(ViewOp::$V => DeclaredView {
                        name: stringify!($name),
                        args: &[$((stringify!($a), stringify!($aty))),*],
                        methods: &[$(stringify!($m)),*],
                        functions: &[$(stringify!($f)),*],
                        sigs: &[$($sig),*],
                    },)*
                }
            }
        }

        $(
            #[doc = concat!("`", stringify!($name), "(x, ...)`, declared in `ops/view_decl.rs`.")]
            pub fn $name(
                $x: &crate::tensor::Tensor,
                $($a: $aty),*
            ) -> crate::error::Result<crate::tensor::Tensor> {
                $compose
            }
        )*
    };
}

view_table!(generate_view);
