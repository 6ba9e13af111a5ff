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
    I32,
    I64,
    F16,
    F32,
    F64,
}

impl DType {
    pub const ALL: [DType; 6] = [
        DType::Bool,
        DType::I32,
        DType::I64,
        DType::F16,
        DType::F32,
        DType::F64,
    ];

    /// PyTorch's name (`float32`, ...), printed as `gradrs.float32`.
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::F16 => "float16",
            DType::F32 => "float32",
            DType::F64 => "float64",
        }
    }

    pub fn from_name(name: &str) -> Option<DType> {
        Some(match name {
            "bool" => DType::Bool,
            "int32" | "int" => DType::I32,
            "int64" | "long" => DType::I64,
            "float16" | "half" => DType::F16,
            "float32" | "float" => DType::F32,
            "float64" | "double" => DType::F64,
            _ => return None,
        })
    }

    pub fn is_floating_point(self) -> bool {
        matches!(self, DType::F16 | DType::F32 | DType::F64)
    }

    /// The dtype a narrow dtype computes in (PyTorch's `opmath_type`: half math runs in
    /// float, and int32 here in int64, rounded or wrapped back to 32 bits).
    pub fn compute(self) -> DType {
        match self {
            DType::F16 => DType::F32,
            DType::I32 => DType::I64,
            d => d,
        }
    }

    pub fn itemsize(self) -> usize {
        match self {
            DType::Bool => 1,
            DType::F16 => 2,
            DType::I64 | DType::F64 => 8,
            DType::I32 | DType::F32 => 4,
        }
    }

    /// The legacy tensor type name used in error messages (`FloatTensor`).
    pub fn legacy_name(self) -> &'static str {
        match self {
            DType::Bool => "BoolTensor",
            DType::I32 => "IntTensor",
            DType::I64 => "LongTensor",
            DType::F16 => "HalfTensor",
            DType::F32 => "FloatTensor",
            DType::F64 => "DoubleTensor",
        }
    }

    fn category(self) -> u8 {
        match self {
            DType::Bool => 0,
            DType::I32 | DType::I64 => 1,
            DType::F16 | DType::F32 | DType::F64 => 2,
        }
    }

    /// `torch.promote_types` for two dtypes.
    pub fn promote(self, other: DType) -> DType {
        self.max(other)
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
/// it (`name`: how the calling op names the type, `int` or `int32`); float16 takes infinity.
pub fn check_fits(s: Scalar, dtype: DType, name: &str) -> Result<()> {
    let fits = match (dtype, s) {
        (DType::I32, Scalar::Int(i)) => i32::try_from(i).is_ok(),
        // NaN, infinities and floats past the range fit no integer (PyTorch's check).
        (DType::I32, Scalar::Float(f)) => (-2147483648.0..=2147483647.0).contains(&f),
        (DType::I64, Scalar::Float(f)) => {
            (-9223372036854775808.0..9223372036854775808.0).contains(&f)
        }
        (DType::F16, s) => {
            let f = s.to_f64();
            !f.is_finite() || f.abs() <= 65504.0
        }
        _ => true,
    };
    // PyTorch's check names int64 by its C type (`long int` elsewhere).
    let name = if dtype == DType::I64 { "int64_t" } else { name };
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
        DType::I32 => "Int",
        DType::I64 => "Long",
        DType::F16 => "Half",
        DType::F32 => "Float",
        DType::F64 => "Double",
    }
}

/// The C++ type name PyTorch prints for a dtype in some checks (`float`, `long int`).
pub fn cpp_name(dtype: DType) -> &'static str {
    match dtype {
        DType::F16 => "c10::Half",
        DType::F32 => "float",
        DType::F64 => "double",
        DType::I32 => "int",
        DType::I64 => "long int",
        DType::Bool => "bool",
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
