//! Python data <-> tensors: nested sequences, numbers, numpy arrays, `tolist()`.

use super::tensor::PyTensor;
use crate::dtype::{DType, Scalar};
use crate::error::Error;
use crate::ops::creation::cast_data;
use crate::storage_from_parts;
use crate::tensor::shape::Shape;
use crate::tensor::Tensor;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyFloat, PyInt, PyList, PySequence, PyTuple};

/// The type name PyTorch's argument parser prints for `obj` (its C type's `tp_name`):
/// `Tensor`, `float`, `numpy.ndarray`, a Python class's bare name.
pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    if obj.is_instance_of::<PyTensor>() {
        return "Tensor".into();
    }
    // PyTorch's are C types named `torch.dtype` / `torch.device`.
    if obj.is_instance_of::<super::dtype::PyDType>() {
        return "gradrs.dtype".into();
    }
    if obj.is_instance_of::<super::dtype::PyDevice>() {
        return "gradrs.device".into();
    }
    let ty = obj.get_type();
    let name = ty.name().map(|n| n.to_string()).unwrap_or_default();
    let module = ty.module().map(|m| m.to_string()).unwrap_or_default();
    let heap = ty
        .getattr("__flags__")
        .and_then(|f| f.extract::<u64>())
        .is_ok_and(|f| f & (1 << 9) != 0);
    if module == "builtins" || heap {
        name
    } else {
        format!("{module}.{name}")
    }
}

/// How PyTorch's parser describes an argument that matched no overload: the type name, with
/// the elements' for a list or tuple (`list of [int, float]`, `tuple of (int,)`).
pub fn arg_desc(obj: &Bound<'_, PyAny>) -> String {
    let names =
        |items: Vec<Bound<'_, PyAny>>| -> Vec<String> { items.iter().map(type_name).collect() };
    if let Ok(l) = obj.cast::<PyList>() {
        return format!("list of [{}]", names(l.iter().collect()).join(", "));
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        let n = names(t.iter().collect());
        let comma = if n.len() == 1 { "," } else { "" };
        return format!("tuple of ({}{comma})", n.join(", "));
    }
    type_name(obj)
}

/// A Tensor argument, or PyTorch's parser error naming it (`position` counts from 1, `self`
/// excluded for methods).
pub fn tensor_arg(
    obj: &Bound<'_, PyAny>,
    op: &str,
    arg: &str,
    position: usize,
) -> PyResult<Tensor> {
    match obj.cast::<PyTensor>() {
        Ok(t) => Ok(t.borrow().t.clone()),
        Err(_) => Err(super::errors::type_error(format!(
            "{op}(): argument '{arg}' (position {position}) must be Tensor, not {}",
            type_name(obj)
        ))),
    }
}

/// An optional `Number` argument (`alpha=`, `value=`) left out or given, `None` included:
/// PyTorch's parser rejects an explicit `None` where the argument has a number default.
pub enum NumberArg {
    Absent,
    Given(Py<PyAny>),
}

impl<'a, 'py> FromPyObject<'a, 'py> for NumberArg {
    type Error = PyErr;
    fn extract(obj: pyo3::Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        Ok(NumberArg::Given(obj.to_owned().unbind()))
    }
}

/// A `bool` parameter as PyTorch's argument parser takes it: a Python bool, not an int, a
/// NumPy bool (PyTorch 2.13 refuses NumPy 2's) or anything else with a truth value. Extraction never fails, so that the
/// binding, which knows its name, raises PyTorch's TypeError through [`Flag::get`] (pyo3's
/// own error would name neither the function nor the parameter).
#[derive(Clone)]
pub struct Flag(Result<bool, String>);

impl Flag {
    pub const FALSE: Flag = Flag(Ok(false));
    pub const TRUE: Flag = Flag(Ok(true));

    /// The value, or PyTorch's error for `func()`'s parameter `arg` given by keyword (one
    /// given by position PyTorch also numbers, which a pyo3 binding cannot tell apart).
    pub fn get(&self, func: &str, arg: &str) -> PyResult<bool> {
        self.0.clone().map_err(|ty| {
            super::errors::type_error(format!("{func}(): argument '{arg}' must be bool, not {ty}"))
        })
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for Flag {
    type Error = PyErr;
    fn extract(obj: pyo3::Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if let Ok(b) = obj.cast::<PyBool>() {
            return Ok(Flag(Ok(b.is_true())));
        }
        Ok(Flag(Err(type_name(&obj.to_owned()))))
    }
}

/// An `int` parameter as PyTorch's argument parser takes it: a Python or NumPy integer, or
/// anything else with `__index__` (a one-element integer tensor), but no bool, Python's or
/// NumPy's. Extraction never fails, so that the binding, which knows its name, raises
/// PyTorch's TypeError through [`Int::get`].
pub struct Int(Result<i64, IntError>);

enum IntError {
    /// Not an int: the type PyTorch's message names.
    Type(String),
    /// An int that does not fit (Python's own error).
    Py(PyErr),
}

impl Int {
    pub const fn new(v: i64) -> Int {
        Int(Ok(v))
    }

    /// The value, or PyTorch's error for `func()`'s parameter `arg` (at `position`, counted
    /// from 1 without `self`; 0 for a keyword-only one, which PyTorch gives no position).
    pub fn get(self, func: &str, arg: &str, position: usize) -> PyResult<i64> {
        self.0.map_err(|e| match e {
            IntError::Type(ty) => {
                let at = if position == 0 {
                    String::new()
                } else {
                    format!(" (position {position})")
                };
                super::errors::type_error(format!(
                    "{func}(): argument '{arg}'{at} must be int, not {ty}"
                ))
            }
            IntError::Py(e) => e,
        })
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for Int {
    type Error = PyErr;
    fn extract(obj: pyo3::Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let obj = obj.to_owned();
        if obj.is_instance_of::<PyBool>() {
            return Ok(Int(Err(IntError::Type("bool".into()))));
        }
        match obj.extract::<i64>() {
            Ok(v) => Ok(Int(Ok(v))),
            Err(e) if e.is_instance_of::<pyo3::exceptions::PyOverflowError>(obj.py()) => {
                Ok(Int(Err(IntError::Py(e))))
            }
            Err(_) => Ok(Int(Err(IntError::Type(type_name(&obj))))),
        }
    }
}

impl NumberArg {
    /// The number given, `default` when left out, or PyTorch's parser error.
    pub fn scalar(&self, py: Python<'_>, op: &str, arg: &str, default: Scalar) -> PyResult<Scalar> {
        match self {
            NumberArg::Absent => Ok(default),
            NumberArg::Given(o) => number_arg(o.bind(py), op, arg),
        }
    }
}

/// A `Number` argument as PyTorch's parser reads one: a Python or numpy number (numpy's bool
/// read as a float, `operand_scalar`), or a 0-dim tensor that does not require grad (its
/// value, keeping its kind: bool, integer, float).
pub fn number_arg(obj: &Bound<'_, PyAny>, op: &str, arg: &str) -> PyResult<Scalar> {
    if let Some(s) = operand_scalar(obj) {
        return Ok(s);
    }
    if let Some(s) = zero_dim_scalar(obj)? {
        return Ok(s);
    }
    Err(super::errors::type_error(format!(
        "{op}(): argument '{arg}' must be Number, not {}",
        type_name(obj)
    )))
}

/// A 0-dim tensor that does not require grad, on any device, read as PyTorch's parser reads
/// one for a `Scalar` (or `float`) argument: its value, keeping its kind (`full(size,
/// -log(tensor(n)))`). None for anything else (a 1-element tensor of more dims included).
pub fn zero_dim_scalar(obj: &Bound<'_, PyAny>) -> PyResult<Option<Scalar>> {
    let Ok(t) = obj.cast::<PyTensor>() else {
        return Ok(None);
    };
    let t = &t.borrow().t;
    if t.dim() == 0 && !t.requires_grad() {
        return Ok(Some(t.item()?));
    }
    Ok(None)
}

/// A number where PyTorch's parser reads a `Scalar` operand (`t + s`, `t.add(s)`): as
/// `extract_scalar`, except that numpy's `bool_` is no Python bool to it but a number read
/// as a float (`t + np.True_` is float32, `int_t & np.True_` fails for 'Float').
pub fn operand_scalar(obj: &Bound<'_, PyAny>) -> Option<Scalar> {
    // Only a bool pays for the test: numbers take extract_scalar's fast paths.
    match extract_scalar(obj)? {
        Scalar::Bool(b) if !obj.is_instance_of::<PyBool>() => {
            Some(Scalar::Float(f64::from(u8::from(b))))
        }
        s => Some(s),
    }
}

/// A Python number as a scalar operand, if it is one.
pub fn extract_scalar(obj: &Bound<'_, PyAny>) -> Option<Scalar> {
    if obj.is_instance_of::<PyBool>() {
        return obj.extract::<bool>().ok().map(Scalar::Bool);
    }
    if obj.is_instance_of::<PyFloat>() {
        return obj.extract::<f64>().ok().map(Scalar::Float);
    }
    if obj.is_instance_of::<PyInt>() {
        return obj.extract::<i64>().ok().map(Scalar::Int);
    }
    // numpy scalars and other number-likes.
    let ty = obj.get_type();
    let name = ty.name().ok()?;
    let name = name.to_cow().ok()?;
    if name.starts_with("float") {
        return obj.extract::<f64>().ok().map(Scalar::Float);
    }
    if name.starts_with("int") || name.starts_with("uint") {
        return obj.extract::<i64>().ok().map(Scalar::Int);
    }
    if name == "bool_" || name == "bool" {
        return obj.extract::<bool>().ok().map(Scalar::Bool);
    }
    None
}

#[derive(Default)]
struct Flat {
    shape: Shape,
    values: Vec<Scalar>,
    kind: u8, // 0 bool, 1 int, 2 float
    /// Whether a Python number was noted (its `kind` counts for the dtype).
    plain: bool,
    /// The promoted dtype of the numpy arrays and scalars and the tensors met: their values
    /// count by their own dtype, not by the Python type they convert to.
    typed: Option<DType>,
    /// Inside such a typed value, whose numbers are not noted again.
    quiet: u32,
    /// Ragged data (PyTorch finds it storing the values, after inferring the dtype from all
    /// of them): the first number where a sequence goes (None), or the type of the first
    /// sequence where a number goes.
    misplaced: Option<Option<String>>,
}

impl Flat {
    fn note(&mut self, s: Scalar) {
        if self.quiet > 0 {
            return;
        }
        self.plain = true;
        self.kind = self.kind.max(match s {
            Scalar::Bool(_) => 0,
            Scalar::Int(_) => 1,
            Scalar::Float(_) => 2,
        });
    }
}

/// The numbers of a sequence found where a number goes count for the dtype all the same.
fn note_all(obj: &Bound<'_, PyAny>, depth: usize, flat: &mut Flat) {
    if let Some(s) = extract_scalar(obj) {
        flat.note(s);
    } else if depth < MAX_DIMS && !obj.is_instance_of::<pyo3::types::PyString>() {
        if let Ok(items) = obj.try_iter() {
            for item in items.flatten() {
                note_all(&item, depth + 1, flat);
            }
        }
    }
}

/// PyTorch's limit on a tensor's dimensions (`MAX_DIMS`): deeper data is refused, so the
/// walk's recursion is bounded whatever the input.
const MAX_DIMS: usize = 128;

static NUMPY_TYPES: PyOnceLock<Option<(Py<PyAny>, Py<PyAny>)>> = PyOnceLock::new();

/// The dtype of a numpy array or numpy scalar (PyTorch's `infer_scalar_type` asks numpy
/// first, so `np.float64(1.5)`, a Python float too, counts as float64), with whether it is
/// an array; None for anything else, or a numpy dtype gradrs has no counterpart of.
fn numpy_dtype(obj: &Bound<'_, PyAny>) -> PyResult<Option<(DType, bool)>> {
    let py = obj.py();
    let ty = obj.get_type();
    // The plain Python numbers and lists, by far the most common, skip the numpy lookup.
    if ty.is(py.get_type::<PyFloat>())
        || ty.is(py.get_type::<PyInt>())
        || ty.is(py.get_type::<PyBool>())
        || ty.is(py.get_type::<PyList>())
        || ty.is(py.get_type::<PyTuple>())
    {
        return Ok(None);
    }
    let types = NUMPY_TYPES.get_or_init(py, || {
        let np = py.import("numpy").ok()?;
        Some((
            np.getattr("ndarray").ok()?.unbind(),
            np.getattr("generic").ok()?.unbind(),
        ))
    });
    let Some((ndarray, generic)) = types else {
        return Ok(None);
    };
    let array = obj.is_instance(ndarray.bind(py))?;
    if !array && !obj.is_instance(generic.bind(py))? {
        return Ok(None);
    }
    let typestr: String = obj.getattr("dtype")?.getattr("str")?.extract()?;
    let dtype = match typestr.as_str() {
        "<f4" => DType::F32,
        "<f8" => DType::F64,
        "<f2" => DType::F16,
        "<i8" => DType::I64,
        "<i4" => DType::I32,
        "<i2" => DType::I16,
        "|i1" => DType::I8,
        "|u1" => DType::U8,
        "|b1" => DType::Bool,
        _ => return Ok(None),
    };
    Ok(Some((dtype, array)))
}

static NDARRAY_LIST_WARNED: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

fn walk(obj: &Bound<'_, PyAny>, depth: usize, flat: &mut Flat) -> PyResult<()> {
    let typed = if let Ok(t) = obj.cast::<PyTensor>() {
        Some((t.borrow().t.dtype(), None))
    } else {
        numpy_dtype(obj)?.map(|(d, array)| (d, Some(array)))
    };
    let Some((dtype, array)) = typed else {
        return walk_plain(obj, depth, flat);
    };
    if flat.quiet == 0 {
        flat.typed = Some(flat.typed.map_or(dtype, |d| d.promote(dtype)));
    }
    flat.quiet += 1;
    let result = match array {
        Some(true) => {
            // PyTorch warns once per process (TORCH_WARN_ONCE), then walks the array.
            if !NDARRAY_LIST_WARNED.swap(true, std::sync::atomic::Ordering::Relaxed) {
                let py = obj.py();
                PyErr::warn(
                    py,
                    &py.get_type::<pyo3::exceptions::PyUserWarning>(),
                    c"Creating a tensor from a list of numpy.ndarrays is extremely slow. Please consider converting the list to a single numpy.ndarray with numpy.array() before converting to a tensor.",
                    1,
                )?;
            }
            let growing = depth == flat.shape.len() && flat.values.is_empty();
            let ndim: usize = obj.getattr("ndim")?.extract()?;
            if ndim == 0 && growing {
                // PyTorch sizes the data by `len()` down the first elements.
                Err(super::errors::type_error("len() of unsized object"))
            } else {
                walk_plain(&obj.call_method0("tolist")?, depth, flat)
            }
        }
        _ => walk_plain(obj, depth, flat),
    };
    flat.quiet -= 1;
    result
}

fn walk_plain(obj: &Bound<'_, PyAny>, depth: usize, flat: &mut Flat) -> PyResult<()> {
    // On the first-element path the shape still grows: PyTorch sizes data by descending first
    // elements, so a string there (itself a sequence of strings) is "too many dimensions";
    // elsewhere a string or bytes is an element of the wrong type.
    let growing = depth == flat.shape.len() && flat.values.is_empty();
    if obj.is_instance_of::<pyo3::types::PyString>() {
        return Err(if growing && depth > 0 {
            Error::Value("too many dimensions 'str'".into()).into()
        } else {
            Error::Type("new(): invalid data type 'str'".into()).into()
        });
    }
    if obj.is_instance_of::<pyo3::types::PyBytes>() {
        return Err(Error::Type("new(): invalid data type 'bytes'".into()).into());
    }
    if let Some(s) = extract_scalar(obj) {
        if depth < flat.shape.len() {
            flat.misplaced.get_or_insert(None);
            flat.note(s);
            return Ok(());
        }
        if depth != flat.shape.len() {
            return Err(super::errors::value_error(format!(
                "expected sequence of length {} at dim {} (got {})",
                flat.shape.get(depth).copied().unwrap_or(0),
                depth,
                obj.get_type().name()?
            )));
        }
        flat.note(s);
        flat.values.push(s);
        return Ok(());
    }
    if let Ok(t) = obj.cast::<PyTensor>() {
        let t = &t.borrow().t;
        if t.numel() != 1 || t.dim() != 0 {
            return Err(super::errors::value_error(
                "only one element tensors can be converted to Python scalars",
            ));
        }
        return walk(
            &super::tensor::scalar_to_py(obj.py(), t.item()?)?.into_bound(obj.py()),
            depth,
            flat,
        );
    }
    if obj.is_instance_of::<PyInt>() {
        // An int past int64 (a fitting one was taken as a number above): PyTorch's error.
        return Err(super::errors::value_error(
            "Overflow when unpacking long long",
        ));
    }
    let seq = obj
        .cast::<PySequence>()
        .map_err(|_| Error::Runtime(format!("Could not infer dtype of {}", type_name(obj))))?;
    let len = seq.len()?;
    if depth == flat.shape.len() {
        if depth >= MAX_DIMS {
            return Err(Error::Value(format!("too many dimensions '{}'", type_name(obj))).into());
        }
        if !flat.values.is_empty() {
            flat.misplaced.get_or_insert(Some(type_name(obj)));
            note_all(obj, depth, flat);
            return Ok(());
        }
        flat.shape.push(len);
    } else if depth > flat.shape.len() || flat.shape[depth] != len {
        return Err(super::errors::value_error(format!(
            "expected sequence of length {} at dim {} (got {})",
            flat.shape.get(depth).copied().unwrap_or(0),
            depth,
            len
        )));
    }
    for i in 0..len {
        walk(&seq.get_item(i)?, depth + 1, flat)?;
    }
    Ok(())
}

/// `gradrs.tensor(data)`: infer shape and dtype (bool < int64 < the default float dtype) from
/// nested data.
pub fn tensor_from_data(data: &Bound<'_, PyAny>, dtype: Option<DType>) -> PyResult<Tensor> {
    if let Ok(t) = data.cast::<PyTensor>() {
        let t = crate::ops::creation::contiguous_clone(&t.borrow().t);
        return Ok(match dtype {
            Some(d) if d != t.dtype() => cast_data(&t, d),
            _ => t,
        });
    }
    if data.hasattr("__array_interface__")?
        && !data.is_instance_of::<PyList>()
        && !data.is_instance_of::<PyTuple>()
    {
        let np = data.py().import("numpy")?;
        // `require(.., "CA")` (contiguous, aligned), not `ascontiguousarray`, which turns 0-dim
        // arrays into 1-D ones.
        let arr = np.call_method1("require", (data, data.py().None(), "CA"))?;
        let t = crate::ops::creation::contiguous_clone(&from_numpy(&arr)?);
        return Ok(match dtype {
            Some(d) if d != t.dtype() => cast_data(&t, d),
            _ => t,
        });
    }
    let mut flat = Flat::default();
    walk(data, 0, &mut flat)?;
    let python = flat.plain.then(|| match flat.kind {
        0 => DType::Bool,
        1 => DType::I64,
        _ => crate::dtype::default_float(),
    });
    let inferred = match (python, flat.typed) {
        (Some(a), Some(b)) => a.promote(b),
        (a, b) => a.or(b).unwrap_or_else(crate::dtype::default_float),
    };
    let dtype = dtype.unwrap_or(inferred);
    match flat.misplaced {
        Some(None) => return Err(Error::Type("not a sequence".into()).into()),
        Some(Some(ty)) if dtype.is_floating_point() => {
            return Err(Error::Type(format!("must be real number, not {ty}")).into())
        }
        Some(Some(ty)) => {
            return Err(
                Error::Type(format!("'{ty}' object cannot be interpreted as an integer")).into(),
            )
        }
        None => {}
    }
    if matches!(dtype, DType::I32 | DType::I16 | DType::I8 | DType::U8) {
        for &s in &flat.values {
            crate::dtype::check_fits(s, dtype, dtype.name())?;
        }
    }
    if matches!(dtype, DType::I32 | DType::I64) {
        // PyTorch refuses a float that no integer holds (NaN, inf, past the type's range)
        // instead of casting it to 0 or a saturated value.
        let (lo, hi) = match dtype {
            DType::I32 => (-2147483648.0, 2147483647.0),
            _ => (-9223372036854775808.0, 9223372036854775807.0),
        };
        let bad = |s: &Scalar| matches!(*s, Scalar::Float(f) if !(lo..=hi).contains(&f));
        if flat.values.iter().any(bad) {
            let name = if dtype == DType::I32 {
                "int32"
            } else {
                "int64"
            };
            return Err(Error::Runtime(format!(
                "value cannot be converted to type {name} without overflow"
            ))
            .into());
        }
    }
    Ok(crate::dispatch!(dtype, T => {
        let v: Vec<T> = flat.values.iter().map(|s| crate::tensor::scalar_as::<T>(*s)).collect();
        Tensor::from_vec(v, &flat.shape)
    }))
}

/// `gradrs.from_numpy(a)`: shares the array's memory (the tensor keeps the array alive).
pub fn from_numpy(arr: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    // Only an ndarray owns the memory its interface points to: a numpy scalar's interface
    // describes a temporary array, freed before the tensor would read it.
    let ndarray = arr.py().import("numpy")?.getattr("ndarray")?;
    if !arr.is_instance(&ndarray)? {
        return Err(super::errors::type_error(format!(
            "expected np.ndarray (got {})",
            type_name(arr)
        )));
    }
    let iface = arr.getattr("__array_interface__")?;
    let typestr: String = iface.get_item("typestr")?.extract()?;
    let dtype = match typestr.as_str() {
        "<f4" => DType::F32,
        "<f8" => DType::F64,
        "<i8" => DType::I64,
        "<i4" => DType::I32,
        "<f2" => DType::F16,
        "|b1" => DType::Bool,
        "|u1" => DType::U8,
        "|i1" => DType::I8,
        "<i2" => DType::I16,
        _ => {
            // numpy's scalar type name, as PyTorch prints it: `str_`, `complex128`.
            let name: String = arr
                .getattr("dtype")?
                .getattr("type")?
                .getattr("__name__")?
                .extract()?;
            return Err(super::errors::type_error(format!(
                "can't convert np.ndarray of type numpy.{name}. The only supported types are: float64, float32, float16, int64, int32, int16, int8, uint8, and bool."
            )));
        }
    };
    let shape: Vec<usize> = iface.get_item("shape")?.extract()?;
    let (ptr, _readonly): (usize, bool) = iface.get_item("data")?.extract()?;
    let item = dtype.itemsize() as isize;
    let strides: Vec<isize> = match iface.get_item("strides")?.extract::<Option<Vec<isize>>>()? {
        Some(s) if s.iter().any(|b| b % item != 0) => {
            return Err(super::errors::value_error(
                "given numpy array strides not a multiple of the element byte size. Copy the numpy array to reallocate the memory.",
            ));
        }
        Some(s) => s.iter().map(|b| b / item).collect(),
        None => crate::tensor::shape::contiguous_strides(&shape).to_vec(),
    };
    // Rust may not read a value at an address that is not a multiple of its alignment (an
    // array made over a byte buffer at an odd offset); PyTorch shares such memory, gradrs asks
    // for a copy.
    if ptr % (item as usize) != 0 && !shape.contains(&0) {
        return Err(super::errors::value_error(
            "given numpy array is not aligned to its element size. Copy the numpy array to reallocate the memory.",
        ));
    }
    if strides.iter().any(|&s| s < 0) {
        return Err(super::errors::value_error(
            "At least one stride in the given numpy array is negative, and tensors with negative strides are not currently supported. (You can probably work around this by making a copy of your array  with array.copy().) ",
        ));
    }
    let span = if shape.contains(&0) {
        0
    } else {
        1 + shape
            .iter()
            .zip(&strides)
            .map(|(&n, &s)| (n - 1) * s as usize)
            .sum::<usize>()
    };
    let owner: Py<PyAny> = arr.clone().unbind();
    // SAFETY: the array's buffer is valid for `span` elements while the array lives; `owner`
    // keeps it alive as long as the storage.
    let storage = unsafe { storage_from_parts(ptr as *mut u8, span, dtype, Box::new(owner)) };
    let layout = crate::tensor::Layout {
        shape: shape.into(),
        strides: strides.into(),
        offset: 0,
    };
    Ok(Tensor::from_storage(storage, layout))
}

/// `tolist()`: nested Python lists (a number for 0-dim tensors).
pub fn to_list(py: Python<'_>, t: &Tensor) -> PyResult<Py<PyAny>> {
    let shape = t.shape();
    fn build<T: Copy>(
        py: Python<'_>,
        v: &[T],
        shape: &[usize],
        conv: &dyn Fn(Python<'_>, T) -> PyResult<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        if shape.is_empty() {
            return conv(py, v[0]);
        }
        let step = v.len().checked_div(shape[0]).unwrap_or(0);
        let items: Vec<Py<PyAny>> = (0..shape[0])
            .map(|i| build(py, &v[i * step..(i + 1) * step], &shape[1..], conv))
            .collect::<PyResult<_>>()?;
        Ok(PyList::new(py, items)?.into_any().unbind())
    }
    match t.dtype() {
        DType::F32 => build(py, &t.to_vec::<f32>(), &shape, &|py, x| {
            Ok((x as f64).into_pyobject(py)?.into_any().unbind())
        }),
        DType::F64 => build(py, &t.to_vec::<f64>(), &shape, &|py, x| {
            Ok(x.into_pyobject(py)?.into_any().unbind())
        }),
        DType::I64 => build(py, &t.to_vec::<i64>(), &shape, &|py, x| {
            Ok(x.into_pyobject(py)?.into_any().unbind())
        }),
        DType::I32 => build(py, &t.to_vec::<i32>(), &shape, &|py, x| {
            Ok(x.into_pyobject(py)?.into_any().unbind())
        }),
        DType::F16 => build(py, &t.to_vec::<half::f16>(), &shape, &|py, x| {
            Ok(x.to_f64().into_pyobject(py)?.into_any().unbind())
        }),
        DType::BF16 => build(py, &t.to_vec::<half::bf16>(), &shape, &|py, x| {
            Ok(x.to_f64().into_pyobject(py)?.into_any().unbind())
        }),
        DType::U8 => build(py, &t.to_vec::<u8>(), &shape, &|py, x| {
            Ok(x.into_pyobject(py)?.into_any().unbind())
        }),
        DType::I8 => build(py, &t.to_vec::<i8>(), &shape, &|py, x| {
            Ok(x.into_pyobject(py)?.into_any().unbind())
        }),
        DType::I16 => build(py, &t.to_vec::<i16>(), &shape, &|py, x| {
            Ok(x.into_pyobject(py)?.into_any().unbind())
        }),
        DType::Bool => build(py, &t.to_vec::<bool>(), &shape, &|py, x| {
            Ok(PyBool::new(py, x).to_owned().into_any().unbind())
        }),
    }
}
