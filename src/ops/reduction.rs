//! Declared reductions: the generator that turns the declarations of `ops/reduction_decl.rs`
//! into `ReductionOp`, its dtype checks, its `dtype=` handling and `pub fn <name>` (Note [Op
//! declarations] in `ops/unary.rs`). The forward is a composition of tensor ops, so the
//! backward, double backward and the GPU are theirs.

use crate::autograd::formula::describe;
use crate::autograd::saved::Value;
use crate::autograd::{needs_grad, record_formula_jvp, GradModeGuard, SavedTensor};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::creation::to_dtype;
use crate::ops::reduce::{reduction_dims, restore_dims};
use crate::ops::reduction_decl::reduction_table;
use crate::tensor::Tensor;

// The vocabulary the declared compositions are written in.
#[allow(unused_imports)]
use crate::{
    ops::arithmetic::{add, div, mul, pow, rsub, sub},
    ops::compare::{eq, ge, gt, le, lt, ne},
    ops::logical::logical_not,
    ops::reduce::sum,
    ops::where_::where_,
};

/// `nansum`: the host kernel in PyTorch's order where there is one (float32 / float64 on the
/// CPU), else the sum of `where(isnan(x), 0, x)` (the same values, on any device).
fn nansum_compose(x: &Tensor, dims: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
    let rd = reduction_dims(dims, x.dim())?;
    if let Some(out) = crate::kernels::nansum_host(x, &rd, keepdim) {
        return Ok(out);
    }
    sum(&where_(&ne(x, x)?, 0, x)?, dims, keepdim)
}

/// Which input dtypes a reduction takes.
#[derive(Clone, Copy)]
pub enum ReduceDtypes {
    /// Any.
    All,
    /// Floating inputs and `dtype=` only: others raise the first message (for the input,
    /// checked first) or the second (for `dtype=`), `{}` replaced by PyTorch's name of the
    /// dtype (`Long`).
    Float(&'static str, &'static str),
}

/// The signature of a reduction over `dim` with `keepdim` and `dtype=`, as PyTorch's parser
/// prints it.
pub const REDUCTION: &str = "(Tensor input, tuple of ints dim = None, bool keepdim = False, *, gradrs.dtype dtype = None, Tensor out = None)";

/// A reduction's own derivative: `(g, x)`, `g` shaped as the output with the reduced dims
/// restored (size 1).
pub type ReduceGrad = fn(&Tensor, &Tensor) -> Result<Tensor>;

/// One reduction's row of the table, as `_native._declared_ops()` reports it.
pub struct DeclaredReduction {
    pub name: &'static str,
    pub methods: &'static [&'static str],
    pub functions: &'static [&'static str],
    pub sig: &'static str,
}

macro_rules! generate_reduction {
    ($(
        // The entry's docstring (the Tensor methods' in `python/declared.rs`).
        $(#[doc = $doc:literal])*
        $V:ident $name:ident {
            dtypes: $dtypes:expr,
            compose: |$x:ident, $dims:ident, $keepdim:ident| $compose:expr,
            $(node: $node:literal, grad: |$g:ident, $gx:ident| $grad:expr,)?
            methods: [$($m:ident),*], functions: [$($f:ident),*],
            sig: $sig:expr,
        }
    )*) => {
        /// The declared reductions (`ops/reduction_decl.rs`), in table order.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum ReductionOp {
            $($V,)*
        }

        impl ReductionOp {
            pub const ALL: &'static [ReductionOp] = &[$(ReductionOp::$V,)*];

            pub fn declared(self) -> DeclaredReduction {
                match self {
                    $(ReductionOp::$V => DeclaredReduction {
                        name: stringify!($name),
                        methods: &[$(stringify!($m)),*],
                        functions: &[$(stringify!($f)),*],
                        sig: $sig,
                    },)*
                }
            }

            pub fn dtypes(self) -> ReduceDtypes {
                match self {
                    $(ReductionOp::$V => $dtypes,)*
                }
            }

            /// The node name of a reduction with its own derivative.
            fn node(self) -> Option<&'static str> {
                match self {
                    $(ReductionOp::$V => None $(.or(Some($node)))?,)*
                }
            }

            /// Its derivative in `x`, given the gradient with the reduced dims restored.
            fn grad(self) -> Option<ReduceGrad> {
                match self {
                    $(ReductionOp::$V => None $(.or(Some(
                        (|$g: &Tensor, $gx: &Tensor| -> Result<Tensor> { $grad }) as ReduceGrad,
                    )))?,)*
                }
            }

            fn compose(self, x: &Tensor, dims: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
                let _ = (x, dims, keepdim);
                match self {
                    $(ReductionOp::$V => {
                        let ($x, $dims, $keepdim) = (x, dims, keepdim);
                        $compose
                    })*
                }
            }
        }

        $(
            #[doc = concat!("`", stringify!($name), "(x, dim, keepdim, dtype=)`, declared in `ops/reduction_decl.rs`.")]
            pub fn $name(x: &Tensor, dims: Option<&[i64]>, keepdim: bool, dtype: Option<DType>) -> Result<Tensor> {
                reduction(ReductionOp::$V, x, dims, keepdim, dtype)
            }
        )*
    };
}

reduction_table!(generate_reduction);

/// A declared reduction: the dtype check on the input as given, then the composition on the
/// input cast to `dtype` (PyTorch casts before reducing).
pub fn reduction(
    op: ReductionOp,
    x: &Tensor,
    dims: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<DType>,
) -> Result<Tensor> {
    if let ReduceDtypes::Float(input, given) = op.dtypes() {
        let bad = [(Some(x.dtype()), input), (dtype, given)];
        if let Some((Some(d), msg)) = bad
            .into_iter()
            .find(|(d, _)| d.is_some_and(|d| !d.is_floating_point()))
        {
            let name = crate::dtype::pretty_kernel_name(d);
            return Err(Error::Runtime(msg.replace("{}", name)));
        }
    }
    let x = match dtype {
        Some(d) if d != x.dtype() => to_dtype(x, d)?,
        _ => x.clone(),
    };
    let (Some(node), Some(grad)) = (op.node(), op.grad()) else {
        return op.compose(&x, dims, keepdim);
    };
    // Its own node: the composition runs without recording, the declared formula is the
    // backward (written in tensor ops, so higher order comes free).
    let out = {
        let _no_grad = GradModeGuard::new(false);
        op.compose(&x, dims, keepdim)?
    };
    if !needs_grad(&[&x]) {
        return Ok(out);
    }
    let rd = reduction_dims(dims, x.dim())?;
    let saved = vec![SavedTensor::input(&x)?];
    let rd2 = rd.clone();
    let out = record_formula_jvp(
        out,
        &[&x],
        node,
        saved,
        move |g, s| Ok(vec![Some(grad(&restore_dims(g, &rd, keepdim)?, &s[0])?)]),
        crate::autograd::Jvp::Reduction(rd2, keepdim),
    );
    let dim = dims.map_or(Value::None, |d| Value::Ints(d.to_vec()));
    describe(
        &out,
        &["self"],
        vec![("dim", dim), ("keepdim", Value::Bool(keepdim))],
    );
    Ok(out)
}
