//! Tensor elements: the Rust types a storage holds (`Element`) and the owner of their memory.
//!
//! Base layer (tools/layers.py): the CPU kernels and the buffer pool take these, so they sit
//! below the tensor layer, beside `tensor::shape`, and import only `dtype`.

use crate::dtype::DType;
use half::{bf16, f16};
use std::any::Any;

/// A Rust type that can be a tensor element.
pub trait Element: Copy + Send + Sync + Default + PartialOrd + std::fmt::Debug + 'static {
    const DTYPE: DType;
    fn into_owner(v: Vec<Self>) -> Owner;
    /// The Vec back out of an `Owner` of this type (else the owner, unchanged).
    fn from_owner(o: Owner) -> Result<Vec<Self>, Owner>;
    /// The capacity of an `Owner`'s Vec if it holds this type.
    fn owner_capacity(o: &Owner) -> Option<usize>;
    fn from_f64(v: f64) -> Self;
    fn to_f64(self) -> f64;
    fn from_i64(v: i64) -> Self;
    fn to_i64(self) -> i64;
    fn from_bool(v: bool) -> Self;
    fn to_bool(self) -> bool;
    /// Addition as PyTorch's accumulating kernels do it (bool: logical or; ints wrap).
    fn add(self, other: Self) -> Self;
}

macro_rules! element {
    ($t:ty, $dt:ident, $owner:ident, $from_f64:expr, $to_f64:expr, $from_i64:expr, $to_i64:expr, $from_bool:expr, $to_bool:expr, $add:expr) => {
        impl Element for $t {
            const DTYPE: DType = DType::$dt;
            fn into_owner(v: Vec<Self>) -> Owner {
                Owner::$owner(v)
            }
            fn from_owner(o: Owner) -> Result<Vec<Self>, Owner> {
                match o {
                    Owner::$owner(v) => Ok(v),
                    other => Err(other),
                }
            }
            fn owner_capacity(o: &Owner) -> Option<usize> {
                match o {
                    Owner::$owner(v) => Some(v.capacity()),
                    _ => None,
                }
            }
            #[inline(always)]
            fn from_f64(v: f64) -> Self {
                $from_f64(v)
            }
            #[inline(always)]
            fn to_f64(self) -> f64 {
                $to_f64(self)
            }
            #[inline(always)]
            fn from_i64(v: i64) -> Self {
                $from_i64(v)
            }
            #[inline(always)]
            fn to_i64(self) -> i64 {
                $to_i64(self)
            }
            #[inline(always)]
            fn from_bool(v: bool) -> Self {
                $from_bool(v)
            }
            #[inline(always)]
            fn to_bool(self) -> bool {
                $to_bool(self)
            }
            #[inline(always)]
            fn add(self, other: Self) -> Self {
                $add(self, other)
            }
        }
    };
}

element!(
    f32,
    F32,
    F32,
    |v: f64| v as f32,
    |v: f32| v as f64,
    |v: i64| v as f32,
    |v: f32| v as i64,
    |v: bool| v as u8 as f32,
    |v: f32| v != 0.0,
    |a: f32, b: f32| a + b
);
element!(
    f64,
    F64,
    F64,
    |v: f64| v,
    |v: f64| v,
    |v: i64| v as f64,
    |v: f64| v as i64,
    |v: bool| v as u8 as f64,
    |v: f64| v != 0.0,
    |a: f64, b: f64| a + b
);
/// A float truncated to int64 as x86's `cvttsd2si` does (PyTorch's CPU casts): NaN and values
/// past the range give the "integer indefinite" value, `i64::MIN` (Rust's `as` saturates).
#[inline(always)]
pub fn trunc_i64(v: f64) -> i64 {
    if (-9223372036854775808.0..9223372036854775808.0).contains(&v) {
        v as i64
    } else {
        i64::MIN
    }
}

/// A float truncated to int32 as x86 does (NaN and out-of-range: `i32::MIN`); the narrower
/// integers keep its low bits, as a C++ `static_cast<uint8_t>(float)` compiles there.
#[inline(always)]
pub fn trunc_i32(v: f64) -> i32 {
    if (-2147483648.0..2147483648.0).contains(&v) {
        v as i32
    } else {
        i32::MIN
    }
}

element!(
    i64,
    I64,
    I64,
    |v: f64| trunc_i64(v),
    |v: i64| v as f64,
    |v: i64| v,
    |v: i64| v,
    |v: bool| v as i64,
    |v: i64| v != 0,
    |a: i64, b: i64| a.wrapping_add(b)
);
element!(
    i32,
    I32,
    I32,
    |v: f64| trunc_i32(v),
    |v: i32| v as f64,
    |v: i64| v as i32,
    |v: i32| v as i64,
    |v: bool| v as i32,
    |v: i32| v != 0,
    |a: i32, b: i32| a.wrapping_add(b)
);
element!(
    i16,
    I16,
    I16,
    |v: f64| trunc_i32(v) as i16,
    |v: i16| v as f64,
    |v: i64| v as i16,
    |v: i16| v as i64,
    |v: bool| v as i16,
    |v: i16| v != 0,
    |a: i16, b: i16| a.wrapping_add(b)
);
element!(
    i8,
    I8,
    I8,
    |v: f64| trunc_i32(v) as i8,
    |v: i8| v as f64,
    |v: i64| v as i8,
    |v: i8| v as i64,
    |v: bool| v as i8,
    |v: i8| v != 0,
    |a: i8, b: i8| a.wrapping_add(b)
);
element!(
    u8,
    U8,
    U8,
    |v: f64| trunc_i32(v) as u8,
    |v: u8| v as f64,
    |v: i64| v as u8,
    |v: u8| v as i64,
    |v: bool| v as u8,
    |v: u8| v != 0,
    |a: u8, b: u8| a.wrapping_add(b)
);
element!(
    bf16,
    BF16,
    BF16,
    // Through float, as c10::BFloat16 converts a double (round to nearest even).
    |v: f64| bf16::from_f32(v as f32),
    |v: bf16| v.to_f64(),
    |v: i64| bf16::from_f32(v as f32),
    |v: bf16| trunc_i64(v.to_f64()),
    |v: bool| if v { bf16::ONE } else { bf16::ZERO },
    |v: bf16| v.to_f32() != 0.0,
    |a: bf16, b: bf16| bf16::from_f32(a.to_f32() + b.to_f32())
);
element!(
    f16,
    F16,
    F16,
    // Through float, as c10::Half converts a double.
    |v: f64| f16::from_f32(v as f32),
    |v: f16| v.to_f64(),
    |v: i64| f16::from_f32(v as f32),
    |v: f16| v.to_f32() as i64,
    |v: bool| if v { f16::ONE } else { f16::ZERO },
    |v: f16| v.to_f32() != 0.0,
    |a: f16, b: f16| f16::from_f32(a.to_f32() + b.to_f32())
);
element!(
    bool,
    Bool,
    Bool,
    |v: f64| v != 0.0,
    |v: bool| v as u8 as f64,
    |v: i64| v != 0,
    |v: bool| v as i64,
    |v: bool| v,
    |v: bool| v,
    |a: bool, b: bool| a | b
);

/// Who owns the memory: a Vec of ours, or something outside (a numpy array, a storage we alias).
pub enum Owner {
    F32(Vec<f32>),
    F64(Vec<f64>),
    I64(Vec<i64>),
    I32(Vec<i32>),
    F16(Vec<f16>),
    BF16(Vec<bf16>),
    U8(Vec<u8>),
    I8(Vec<i8>),
    I16(Vec<i16>),
    Bool(Vec<bool>),
    External(Box<dyn Any + Send + Sync>),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Float to integer as PyTorch's CPU casts on x86: truncation, NaN and out-of-range to the
    /// "integer indefinite" value, the 8/16-bit integers keeping int32's low bits.
    #[test]
    fn float_to_int_casts_follow_x86() {
        assert_eq!(<u8 as Element>::from_f64(-1.5), 255);
        assert_eq!(<u8 as Element>::from_f64(300.7), 44);
        assert_eq!(<u8 as Element>::from_f64(f64::NAN), 0);
        assert_eq!(<i8 as Element>::from_f64(128.0), -128);
        assert_eq!(<i16 as Element>::from_f64(-32769.0), 32767);
        assert_eq!(<i32 as Element>::from_f64(3e9), i32::MIN);
        assert_eq!(<i64 as Element>::from_f64(f64::NAN), i64::MIN);
        assert_eq!(<i64 as Element>::from_f64(-1e10), -10_000_000_000);
        // bfloat16 rounds to nearest even: 1 + 2^-8 is a tie (to 1), 1 + 3 * 2^-8 rounds up.
        assert_eq!(
            <bf16 as Element>::from_f64(1.0 + 2f64.powi(-8)).to_f64(),
            1.0
        );
        assert_eq!(
            <bf16 as Element>::from_f64(1.0 + 3.0 * 2f64.powi(-8)).to_f64(),
            1.0 + 2f64.powi(-6)
        );
    }
}
