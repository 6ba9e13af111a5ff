//! Element types, Python-like scalars, and PyTorch's type-promotion rules.

use std::sync::atomic::{AtomicU8, Ordering};

use crate::error::{Error, Result};

/// Note [Default dtype]: the floating dtype Python floats and float factories take
/// (`set_default_dtype`). One process-wide value, as in PyTorch (a global, not per thread);
/// float32 until changed. It is read where PyTorch reads it: inferring a dtype from Python
/// floats, factories without `dtype=`, and promoting integer or bool operands to floating point
/// (a Python float operand, `/`, float-only ops on integer inputs).
static DEFAULT_FLOAT: AtomicU8 = AtomicU8::new(DType::F32 as u8);

/// The default floating dtype (Note [Default dtype]).
pub fn default_float() -> DType {
    DType::ALL[DEFAULT_FLOAT.load(Ordering::Relaxed) as usize]
}

/// Sets the default floating dtype; PyTorch's TypeError for a dtype that is not floating point.
pub fn set_default_float(dtype: DType) -> Result<()> {
    if !dtype.is_floating_point() {
        return Err(Error::Type(
            "only floating-point types are supported as the default type".into(),
        ));
    }
    DEFAULT_FLOAT.store(dtype as u8, Ordering::Relaxed);
    Ok(())
}

/// The element types a tensor can hold. Order matters: it is the promotion lattice within a kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    Bool,
    U8,
    I8,
    I16,
    I32,
    I64,
    F16,
    BF16,
    F32,
    F64,
}

impl DType {
    pub const ALL: [DType; 10] = [
        DType::Bool,
        DType::U8,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
    ];

    /// PyTorch's name (`float32`, ...), printed as `gradrs.float32`.
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::U8 => "uint8",
            DType::I8 => "int8",
            DType::I16 => "int16",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::F16 => "float16",
            DType::BF16 => "bfloat16",
            DType::F32 => "float32",
            DType::F64 => "float64",
        }
    }

    pub fn from_name(name: &str) -> Option<DType> {
        Some(match name {
            "bool" => DType::Bool,
            "uint8" => DType::U8,
            "int8" => DType::I8,
            "int16" | "short" => DType::I16,
            "int32" | "int" => DType::I32,
            "int64" | "long" => DType::I64,
            "float16" | "half" => DType::F16,
            "bfloat16" => DType::BF16,
            "float32" | "float" => DType::F32,
            "float64" | "double" => DType::F64,
            _ => return None,
        })
    }

    pub fn is_floating_point(self) -> bool {
        matches!(self, DType::F16 | DType::BF16 | DType::F32 | DType::F64)
    }

    /// An integer dtype (bool is not one).
    pub fn is_integral(self) -> bool {
        matches!(
            self,
            DType::U8 | DType::I8 | DType::I16 | DType::I32 | DType::I64
        )
    }

    /// A float dtype narrower than float32 (float16, bfloat16): stored in 16 bits, computed in
    /// float32 (Note [Narrow dtypes]).
    pub fn is_half(self) -> bool {
        matches!(self, DType::F16 | DType::BF16)
    }

    /// The dtype a narrow dtype computes in (PyTorch's `opmath_type`: half and bfloat16 math
    /// runs in float, and the narrow integers here in int64, rounded or wrapped back).
    pub fn compute(self) -> DType {
        match self {
            DType::F16 | DType::BF16 => DType::F32,
            DType::U8 | DType::I8 | DType::I16 | DType::I32 => DType::I64,
            d => d,
        }
    }

    pub fn itemsize(self) -> usize {
        match self {
            DType::Bool | DType::U8 | DType::I8 => 1,
            DType::I16 | DType::F16 | DType::BF16 => 2,
            DType::I64 | DType::F64 => 8,
            DType::I32 | DType::F32 => 4,
        }
    }

    /// The dtypes whose GPU kernels exist (bool, int32/64, float16/32): the others live on the
    /// CPU only (`check_gpu_dtype` refuses them).
    pub fn on_gpu(self) -> bool {
        matches!(
            self,
            DType::Bool | DType::I32 | DType::I64 | DType::F16 | DType::F32
        )
    }

    /// The legacy tensor type name used in error messages (`FloatTensor`).
    pub fn legacy_name(self) -> &'static str {
        match self {
            DType::Bool => "BoolTensor",
            DType::U8 => "ByteTensor",
            DType::I8 => "CharTensor",
            DType::I16 => "ShortTensor",
            DType::I32 => "IntTensor",
            DType::I64 => "LongTensor",
            DType::F16 => "HalfTensor",
            DType::BF16 => "BFloat16Tensor",
            DType::F32 => "FloatTensor",
            DType::F64 => "DoubleTensor",
        }
    }

    fn category(self) -> u8 {
        match self {
            DType::Bool => 0,
            DType::U8 | DType::I8 | DType::I16 | DType::I32 | DType::I64 => 1,
            DType::F16 | DType::BF16 | DType::F32 | DType::F64 => 2,
        }
    }

    /// `torch.promote_types` for two dtypes: the wider one, except that uint8 with int8 needs
    /// int16 and float16 with bfloat16 needs float32 (neither holds the other's values).
    pub fn promote(self, other: DType) -> DType {
        match (self.min(other), self.max(other)) {
            (DType::U8, DType::I8) => DType::I16,
            (DType::F16, DType::BF16) => DType::F32,
            (_, wider) => wider,
        }
    }
}

/// A Python number used as an operand (`x * 2`, `x + 0.5`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    Bool(bool),
    Int(i64),
    Float(f64),
}

impl Scalar {
    /// The dtype of the scalar as a "wrapped number": floats take the default dtype.
    pub fn wrapped_dtype(self) -> DType {
        match self {
            Scalar::Bool(_) => DType::Bool,
            Scalar::Int(_) => DType::I64,
            Scalar::Float(_) => default_float(),
        }
    }

    pub fn to_f64(self) -> f64 {
        match self {
            Scalar::Bool(b) => b as u8 as f64,
            Scalar::Int(i) => i as f64,
            Scalar::Float(f) => f,
        }
    }

    pub fn to_i64(self) -> i64 {
        match self {
            Scalar::Bool(b) => b as i64,
            Scalar::Int(i) => i,
            Scalar::Float(f) => f as i64,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Scalar::Float(_))
    }
}

/// How a tensor takes part in type promotion (PyTorch's `ResultTypeState`).
#[derive(Debug, Clone, Copy)]
pub enum Participant {
    /// A tensor with at least one dimension.
    Dim(DType),
    /// A 0-dim tensor.
    ZeroDim(DType),
    /// A Python number.
    Wrapped(DType),
}

/// PyTorch's `result_type`: dimensioned tensors win within a category, but a higher category
/// from a 0-dim tensor or a Python number lifts the result (int tensor * 2.5 -> the default
/// float dtype).
pub fn result_type(parts: &[Participant]) -> DType {
    let mut dim: Option<DType> = None;
    let mut zero: Option<DType> = None;
    let mut wrapped: Option<DType> = None;
    let up = |slot: &mut Option<DType>, d: DType| {
        *slot = Some(slot.map_or(d, |s| s.promote(d)));
    };
    for p in parts {
        match *p {
            Participant::Dim(d) => up(&mut dim, d),
            Participant::ZeroDim(d) => up(&mut zero, d),
            Participant::Wrapped(d) => up(&mut wrapped, d),
        }
    }
    combine(dim, combine(zero, wrapped)).unwrap_or_else(default_float)
}

fn combine(higher: Option<DType>, lower: Option<DType>) -> Option<DType> {
    match (higher, lower) {
        (None, l) => l,
        (h, None) => h,
        (Some(h), Some(l)) => {
            if h.category() >= l.category() {
                Some(h)
            } else if h == DType::Bool || l.is_floating_point() {
                // A lower-priority operand of a higher category lifts the kind, with its default.
                Some(h.promote(l))
            } else {
                Some(h)
            }
        }
    }
}

/// PyTorch's `canCast`: whether an op's result of `from` may be written into an output of
/// `to` (no float into an integer, nothing but bool into a bool; narrowing is fine).
pub fn can_cast(from: DType, to: DType) -> bool {
    match (from.is_floating_point(), to.is_floating_point()) {
        (true, false) => false,
        _ => !(from != DType::Bool && to == DType::Bool),
    }
}

/// PyTorch's `checked_convert`: a number written into a tensor of the narrow `dtype` must fit
/// it (`name`: how the calling op names the type, `int` or `int32`); the floats take infinity
/// and NaN, and uint8 a negative integer down to -255 (c10's
/// `overflows` lets it wrap, so `x - 1` works as `x + 255`).
pub fn check_fits(s: Scalar, dtype: DType, name: &str) -> Result<()> {
    let int_range = |lo: f64, hi: f64| match s {
        Scalar::Int(i) if dtype == DType::U8 => (-255..=255).contains(&i),
        Scalar::Int(i) => (lo..=hi).contains(&(i as f64)),
        // NaN, infinities and floats past the range fit no integer (PyTorch's check).
        Scalar::Float(f) => (lo..=hi).contains(&f),
        Scalar::Bool(_) => true,
    };
    let fits = match (dtype, s) {
        (DType::U8, _) => int_range(0.0, 255.0),
        (DType::I8, _) => int_range(-128.0, 127.0),
        (DType::I16, _) => int_range(-32768.0, 32767.0),
        (DType::I32, Scalar::Int(i)) => i32::try_from(i).is_ok(),
        (DType::I32, Scalar::Float(f)) => (-2147483648.0..=2147483647.0).contains(&f),
        (DType::I64, Scalar::Float(f)) => {
            (-9223372036854775808.0..9223372036854775808.0).contains(&f)
        }
        (DType::F16 | DType::BF16 | DType::F32, s) => {
            let f = s.to_f64();
            let max = match dtype {
                DType::F16 => 65504.0,
                DType::BF16 => half::bf16::MAX.to_f64(),
                _ => f32::MAX as f64,
            };
            !f.is_finite() || f.abs() <= max
        }
        _ => true,
    };
    // PyTorch's check names the fixed-width integers by their C types (`long int` elsewhere).
    let name = match dtype {
        DType::I64 => "int64_t",
        DType::U8 | DType::I8 | DType::I16 if name == cpp_name(dtype) => match dtype {
            DType::U8 => "uint8_t",
            DType::I8 => "int8_t",
            _ => "int16_t",
        },
        _ => name,
    };
    if fits {
        Ok(())
    } else {
        Err(Error::Runtime(format!(
            "value cannot be converted to type {name} without overflow"
        )))
    }
}

/// PyTorch's dispatch error for a kernel with no implementation for `dtype`
/// (`"frac_cpu" not implemented for 'Long'`): a NotImplementedError.
pub fn unsupported(op: &str, dtype: DType) -> Error {
    Error::NotImplemented(format!(
        "\"{op}\" not implemented for '{}'",
        pretty_kernel_name(dtype)
    ))
}

/// PyTorch names kernels' dtypes like `Float`, `Long` in "not implemented for" errors.
pub fn pretty_kernel_name(dtype: DType) -> &'static str {
    match dtype {
        DType::Bool => "Bool",
        DType::U8 => "Byte",
        DType::I8 => "Char",
        DType::I16 => "Short",
        DType::I32 => "Int",
        DType::I64 => "Long",
        DType::F16 => "Half",
        DType::BF16 => "BFloat16",
        DType::F32 => "Float",
        DType::F64 => "Double",
    }
}

/// The C++ type name PyTorch prints for a dtype in some checks (`float`, `long int`).
pub fn cpp_name(dtype: DType) -> &'static str {
    match dtype {
        DType::F16 => "c10::Half",
        DType::BF16 => "c10::BFloat16",
        DType::F32 => "float",
        DType::F64 => "double",
        DType::U8 => "unsigned char",
        DType::I8 => "signed char",
        DType::I16 => "short int",
        DType::I32 => "int",
        DType::I64 => "long int",
        DType::Bool => "bool",
    }
}

/// Whether `fill_` / `full` check that a number fits `dtype` (`check_fits`) for `numel`
/// elements: always for the integers and float32; for float16 and bfloat16 unless there is
/// exactly one element (PyTorch's one-element fill converts without the check: inf).
pub fn fill_checks(dtype: DType, numel: usize) -> bool {
    match dtype {
        DType::F64 => false,
        DType::F16 | DType::BF16 => numel != 1,
        _ => true,
    }
}

/// `unsupported(op, dtype)` unless `dtype` is floating point.
pub fn check_float(op: &str, dtype: DType) -> Result<()> {
    if dtype.is_floating_point() {
        Ok(())
    } else {
        Err(unsupported(op, dtype))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Participant::*;

    #[test]
    fn promotion_follows_pytorch() {
        assert_eq!(
            result_type(&[Dim(DType::I64), Wrapped(DType::F32)]),
            DType::F32
        );
        assert_eq!(
            result_type(&[Dim(DType::I64), Wrapped(DType::I64)]),
            DType::I64
        );
        assert_eq!(result_type(&[Dim(DType::F64), Dim(DType::F32)]), DType::F64);
        assert_eq!(
            result_type(&[Dim(DType::F32), ZeroDim(DType::F64)]),
            DType::F32
        );
        assert_eq!(
            result_type(&[Dim(DType::I64), ZeroDim(DType::F64)]),
            DType::F64
        );
        assert_eq!(
            result_type(&[Dim(DType::Bool), Wrapped(DType::I64)]),
            DType::I64
        );
        assert_eq!(
            result_type(&[Dim(DType::F64), Wrapped(DType::F32)]),
            DType::F64
        );
    }

    /// `promote_types`: the wider dtype, except the two pairs neither member of which holds
    /// the other's values.
    #[test]
    fn promotion_of_the_narrow_dtypes() {
        assert_eq!(DType::U8.promote(DType::I8), DType::I16);
        assert_eq!(DType::I8.promote(DType::U8), DType::I16);
        assert_eq!(DType::U8.promote(DType::I16), DType::I16);
        assert_eq!(DType::F16.promote(DType::BF16), DType::F32);
        assert_eq!(DType::BF16.promote(DType::I64), DType::BF16);
        assert_eq!(DType::Bool.promote(DType::U8), DType::U8);
        assert_eq!(
            result_type(&[Dim(DType::U8), Wrapped(DType::I64)]),
            DType::U8
        );
        assert_eq!(
            result_type(&[Dim(DType::I8), Wrapped(DType::F32)]),
            DType::F32
        );
    }

    /// Numbers into the narrow integers: uint8 takes negatives down to -255 (they wrap).
    #[test]
    fn narrow_integer_overflow_checks() {
        assert!(check_fits(Scalar::Int(-255), DType::U8, "uint8").is_ok());
        assert!(check_fits(Scalar::Int(-256), DType::U8, "uint8").is_err());
        assert!(check_fits(Scalar::Float(-1.5), DType::U8, "uint8").is_err());
        assert!(check_fits(Scalar::Float(-1.5), DType::I8, "int8").is_ok());
        let err = check_fits(Scalar::Int(128), DType::I8, cpp_name(DType::I8)).unwrap_err();
        assert!(err.to_string().contains("int8_t"));
        assert!(check_fits(Scalar::Float(1e39), DType::BF16, "").is_err());
        assert!(check_fits(Scalar::Float(f64::INFINITY), DType::BF16, "").is_ok());
    }

    // Only the refusals: the tests of a binary run in parallel and share the process-wide
    // default, so none changes it (tests/test_default_dtype.py covers setting it).
    #[test]
    fn default_float_accepts_only_floating_dtypes() {
        for d in [DType::Bool, DType::I32, DType::I64] {
            let err = set_default_float(d).unwrap_err().to_string();
            assert!(err.contains("only floating-point types are supported as the default type"));
        }
        assert_eq!(default_float(), DType::F32);
        assert_eq!(Scalar::Float(0.5).wrapped_dtype(), DType::F32);
    }
}
