//! Declared binary kernels: the generator that turns the tables of `ops/binary_kernels_decl.rs`
//! (arithmetic, comparisons, logical ops, extrema, modulo and rounding division) into their op
//! enums, CPU kernels and GPU expressions (Note [Op declarations] in `ops/unary.rs`), and the
//! helpers those kernels are written with. Each op's autograd stays with the op.

use crate::dtype::{result_type, DType};
use crate::error::Result;
use crate::ops::creation::cast_data;
use crate::ops::Operand;
use crate::tensor::shape::broadcast_shapes;
use crate::tensor::{Element, Tensor};

/// A kernel's result as the GPU's 32-bit word: floats as themselves, bools as 1.0 / 0.0 (how
/// the GPU holds bools), so tests compare a declared CPU kernel with its WGSL expression.
pub trait Word {
    fn word(self) -> f32;
}
impl Word for f32 {
    fn word(self) -> f32 {
        self
    }
}
impl Word for bool {
    fn word(self) -> f32 {
        if self {
            1.0
        } else {
            0.0
        }
    }
}

/// Truthiness of any dtype's value (nonzero; NaN is true, -0.0 false), as logical ops read it.
pub trait Truth: Copy {
    fn truth(self) -> bool;
}
macro_rules! truth {
    ($($t:ty),*) => {$(
        impl Truth for $t {
            #[inline(always)]
            fn truth(self) -> bool {
                self != <$t>::default()
            }
        }
    )*};
}
truth!(f32, f64, i64, i32, i16, i8, u8, half::f16, half::bf16, bool);

/// One declared binary kernel's row: its name and WGSL expression(s).
pub struct DeclaredKernel {
    pub name: &'static str,
    pub wgsl: &'static str,
    pub wgsl_int: Option<&'static str>,
}

/// Generates an op enum from a table of `Variant name { wgsl: "...", [wgsl_int: "...",] cpu:
/// |x, y| ..., }` entries: `-> T` tables compute floats to floats (float32 / float64 kernels,
/// float16 runs and in-place writes from the same closure), `-> bool` tables give bools for
/// operands of every dtype.
macro_rules! binary_kernels {
    (@common $(#[doc = $edoc:literal])* $Enum:ident { $(
        $(#[doc = $doc:literal])* $V:ident $name:ident {
            wgsl: $wgsl:literal, $(wgsl_int: $wgsl_int:literal,)?
            cpu: |$x:ident, $y:ident| $cpu:expr,
        }
    )* }) => {
        $(#[doc = $edoc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $Enum {
            $($(#[doc = $doc])* $V,)*
        }

        #[allow(dead_code)]
        impl $Enum {
            pub const ALL: &'static [$Enum] = &[$($Enum::$V,)*];

            /// The op's name (PyTorch's function name where it has one).
            pub fn name(self) -> &'static str {
                match self {
                    $($Enum::$V => stringify!($name),)*
                }
            }

            /// The WGSL expression in `x`, `y` (float32 words) the GPU computes.
            pub fn wgsl(self) -> &'static str {
                match self {
                    $($Enum::$V => $wgsl,)*
                }
            }

            /// The expression over int32 words (int64 / int32 tensors), where the GPU has one.
            pub fn wgsl_int(self) -> Option<&'static str> {
                match self {
                    $($Enum::$V => binary_kernels!(@opt $($wgsl_int)?),)*
                }
            }

            pub fn declared(self) -> $crate::ops::binary_kernels::DeclaredKernel {
                $crate::ops::binary_kernels::DeclaredKernel {
                    name: self.name(),
                    wgsl: self.wgsl(),
                    wgsl_int: self.wgsl_int(),
                }
            }

            /// The float32 kernel as a function giving the GPU's word (tests compare the GPU's
            /// expression with it).
            pub fn cpu_f32(self) -> fn(f32, f32) -> f32 {
                use $crate::ops::binary_kernels::Word;
                match self {
                    $($Enum::$V => {
                        #[allow(dead_code)]
                        type T = f32;
                        |$x: T, $y: T| -> f32 { Word::word($cpu) }
                    })*
                }
            }
        }
    };
    (@opt $e:literal) => { Some($e) };
    (@opt) => { None };
    ($(#[doc = $edoc:literal])* $Enum:ident -> T { $(
        $(#[doc = $doc:literal])* $V:ident $name:ident {
            wgsl: $wgsl:literal, $(wgsl_int: $wgsl_int:literal,)?
            cpu: |$x:ident, $y:ident| $cpu:expr,
        }
    )* }) => {
        binary_kernels!(@common $(#[doc = $edoc])* $Enum { $(
            $(#[doc = $doc])* $V $name { wgsl: $wgsl, $(wgsl_int: $wgsl_int,)? cpu: |$x, $y| $cpu, }
        )* });

        #[allow(dead_code)]
        impl $Enum {
            /// The CPU kernel over float32 or float64 tensors of `dtype` (one monomorphized
            /// closure per op and dtype, so contiguous loops vectorize). The caller passes the
            /// dtype it already knows: reading a tensor's takes its lock, a cost per op.
            pub(crate) fn zip_float(
                self,
                dtype: $crate::dtype::DType,
                a: &$crate::tensor::Tensor,
                b: &$crate::tensor::Tensor,
                shape: &[usize],
            ) -> $crate::error::Result<$crate::tensor::Tensor> {
                use $crate::ops::binary_kernels::zip;
                match (self, dtype) {
                    $(
                        ($Enum::$V, $crate::dtype::DType::F32) => {
                            #[allow(dead_code)]
                            type T = f32;
                            zip::<T, T>(a, b, shape, |$x: T, $y: T| -> T { $cpu })
                        }
                        ($Enum::$V, _) => {
                            #[allow(dead_code)]
                            type T = f64;
                            zip::<T, T>(a, b, shape, |$x: T, $y: T| -> T { $cpu })
                        }
                    )*
                }
            }

            /// The kernel over `n` float16 operands computed in float32 (Note [Narrow dtypes]).
            pub(crate) fn zip_half(
                self,
                n: usize,
                a: $crate::kernels::HalfSrc<'_>,
                b: $crate::kernels::HalfSrc<'_>,
            ) -> Vec<half::f16> {
                use $crate::kernels::zip_half;
                match self {
                    $($Enum::$V => {
                        #[allow(dead_code)]
                        type T = f32;
                        zip_half(n, a, b, |$x: T, $y: T| -> T { $cpu })
                    })*
                }
            }

            /// `out[i] = f(out[i], y[i])`, float32.
            pub(crate) fn in_place_f32(
                self,
                out: &mut [f32],
                src: $crate::kernels::Src<'_, f32>,
            ) {
                use $crate::kernels::zip_in_place;
                match self {
                    $($Enum::$V => {
                        #[allow(dead_code)]
                        type T = f32;
                        zip_in_place(out, src, |$x: T, $y: T| -> T { $cpu })
                    })*
                }
            }

            /// `out[i] = f(out[i], y[i])`, float64.
            pub(crate) fn in_place_f64(
                self,
                out: &mut [f64],
                src: $crate::kernels::Src<'_, f64>,
            ) {
                use $crate::kernels::zip_in_place;
                match self {
                    $($Enum::$V => {
                        #[allow(dead_code)]
                        type T = f64;
                        zip_in_place(out, src, |$x: T, $y: T| -> T { $cpu })
                    })*
                }
            }
        }
    };
    ($(#[doc = $edoc:literal])* $Enum:ident -> bool { $(
        $(#[doc = $doc:literal])* $V:ident $name:ident {
            wgsl: $wgsl:literal, $(wgsl_int: $wgsl_int:literal,)?
            cpu: |$x:ident, $y:ident| $cpu:expr,
        }
    )* }) => {
        binary_kernels!(@common $(#[doc = $edoc])* $Enum { $(
            $(#[doc = $doc])* $V $name { wgsl: $wgsl, $(wgsl_int: $wgsl_int,)? cpu: |$x, $y| $cpu, }
        )* });

        impl $Enum {
            /// The CPU kernel over two tensors of `dtype` (any one), giving bools (`x < y` of
            /// bools included, which clippy would rewrite per dtype).
            #[allow(clippy::bool_comparison)]
            pub(crate) fn zip_any(
                self,
                dtype: $crate::dtype::DType,
                a: &$crate::tensor::Tensor,
                b: &$crate::tensor::Tensor,
                shape: &[usize],
            ) -> $crate::error::Result<$crate::tensor::Tensor> {
                use $crate::ops::binary_kernels::zip;
                match self {
                    $($Enum::$V => $crate::dispatch!(dtype, T => {
                        zip::<T, bool>(a, b, shape, |$x: T, $y: T| -> bool { $cpu })
                    }),)*
                }
            }
        }
    };
}
pub(crate) use binary_kernels;

/// `x ** e` as PyTorch's float kernels: a square is the exact product.
pub trait Powf {
    fn powf(self, e: Self) -> Self;
}
impl Powf for f32 {
    #[inline(always)]
    fn powf(self, e: f32) -> f32 {
        if e == 2.0 {
            self * self
        } else {
            f32::powf(self, e)
        }
    }
}
impl Powf for f64 {
    #[inline(always)]
    fn powf(self, e: f64) -> f64 {
        if e == 2.0 {
            self * self
        } else {
            f64::powf(self, e)
        }
    }
}

/// `maximum(p, q)` of two floats as PyTorch's vector kernel: NaN propagates, a tie gives `q`.
/// Selects with no branch (and `|`, not `||`), so the loop vectorizes.
#[allow(clippy::eq_op)]
#[inline(always)]
pub fn max_float<T: Element + std::ops::Add<Output = T>>(p: T, q: T) -> T {
    let m = if p > q { p } else { q };
    if (p != p) | (q != q) {
        p + q
    } else {
        m
    }
}

/// `minimum(p, q)` of two floats, as [`max_float`].
#[allow(clippy::eq_op)]
#[inline(always)]
pub fn min_float<T: Element + std::ops::Add<Output = T>>(p: T, q: T) -> T {
    let m = if p < q { p } else { q };
    if (p != p) | (q != q) {
        p + q
    } else {
        m
    }
}

/// `p % q` (C's fmod for floats), moved to the divisor's sign for Python's `remainder`.
#[inline(always)]
pub fn float_mod<T: Element + std::ops::Rem<Output = T> + std::ops::Add<Output = T>>(
    p: T,
    q: T,
    python: bool,
) -> T {
    let m = p % q;
    let zero = T::default();
    if python && m != zero && ((q < zero) != (m < zero)) {
        m + q
    } else {
        m
    }
}

/// Floor division as PyTorch computes it for floats (exact for representable quotients), in
/// float64 whatever `T`.
pub fn div_floor<T: Element>(a: T, b: T) -> T {
    let (a, b) = (a.to_f64(), b.to_f64());
    if b == 0.0 {
        return T::from_f64(a / b);
    }
    let m = a % b;
    let mut d = (a - m) / b;
    if m != 0.0 && ((b < 0.0) != (m < 0.0)) {
        d -= 1.0;
    }
    if d == 0.0 {
        return T::from_f64(0.0f64.copysign(a / b));
    }
    let f = d.floor();
    T::from_f64(if d - f > 0.5 { f + 1.0 } else { f })
}

pub(crate) use crate::kernels::zip;

/// An operand as a tensor of `dtype` (Python numbers become 0-dim tensors).
pub(crate) fn materialize(x: &Operand, dtype: DType) -> Tensor {
    match x {
        Operand::Scalar(s) => Tensor::scalar(*s, dtype),
        Operand::Tensor(t) if t.dtype() == dtype => t.clone(),
        Operand::Tensor(t) if t.dtype().compute() == dtype => crate::ops::creation::wide(t),
        Operand::Tensor(t) => cast_data(t, dtype),
    }
}

/// Operands as tensors of their common dtype (floating point when `float`), broadcast shape.
/// The operands in the dtype the op computes in (Note [Narrow dtypes]), their broadcast shape,
/// and the promoted dtype the result is narrowed back to.
pub(crate) fn promoted(
    a: &Operand,
    b: &Operand,
    float: bool,
) -> Result<(Tensor, Tensor, Vec<usize>, DType)> {
    let mut dtype = result_type(&[a.participant(), b.participant()]);
    if float && !dtype.is_floating_point() {
        dtype = crate::dtype::default_float();
    }
    // An operand of another dtype (a Python number included) is cast to the common dtype
    // first, as PyTorch's TensorIterator does: `uint8 > -1` compares with 255.
    let m = |x: &Operand| match x {
        Operand::Tensor(t) if t.dtype() == dtype => materialize(x, dtype.compute()),
        _ if dtype.compute() != dtype => crate::ops::creation::wide(&materialize(x, dtype)),
        _ => materialize(x, dtype),
    };
    let (ta, tb) = (m(a), m(b));
    let shape = broadcast_shapes(&ta.shape(), &tb.shape())?.to_vec();
    Ok((ta, tb, shape, dtype))
}
