//! The PyO3 bindings: the only place that imports pyo3. Module `gradrs._native`.

pub mod activation;
pub mod anomaly;
pub mod autograd;
pub mod boundary;
pub mod clamp;
pub mod compare;
pub mod convert;
pub mod declared;
pub mod divmod;
pub mod dtype;
pub mod errors;
pub mod forward_ad;
pub mod generator;
pub mod gpu;
pub mod helpers;
pub mod hooks;
pub mod indexing;
pub mod linalg;
pub mod logical;
pub mod nn;
pub mod numbers;
pub mod numpy_names;
pub mod optim;
pub mod out;
pub mod parse;
pub mod parser_errors;
pub mod pointwise;
pub mod pynode;
pub mod random;
pub mod reduce;
pub mod sampling;
pub mod saved;
pub mod shape;
pub mod special;
pub mod strided;
pub mod subscript;
pub mod tensor;

use crate::dtype::{default_float, DType, Scalar};
use crate::ops::creation;
use crate::python::convert::Int;
use crate::tensor::Device;
use crate::Tensor;
use convert::{extract_scalar, Flag};
use dtype::{check_device, extract_dtype, PyDType, PyDevice};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use tensor::{legacy_new, sizes_arg, to_shape, wrap, PyTensor};

type R = PyResult<Py<PyAny>>;

/// A new tensor's last steps: onto the requested device, then `requires_grad`.
fn finish(py: Python<'_>, t: Tensor, device: Option<Device>, requires_grad: bool) -> R {
    let t = match device {
        Some(d) => boundary::run(py, || creation::copy_to_device(&t, d))?,
        None => t,
    };
    if requires_grad {
        t.set_requires_grad_from(true, crate::tensor::GradSetter::Factory)?;
    }
    wrap(py, t)
}

/// A factory's tensor of `shape` filled with `v`, made where it is asked for: on the GPU by
/// the fill kernel (nothing uploaded, so a training step's `zeros(..., device=x.device)`
/// costs no transfer), else on the host and copied there as before.
fn filled_on(shape: &[usize], v: Scalar, d: DType, dev: Option<Device>) -> crate::Result<Tensor> {
    // The storage's size is checked before any device is asked (ATen's `empty_generic`), so
    // every device gives PyTorch's "Storage size calculation overflowed" text.
    crate::tensor::shape::storage_nbytes(shape, d.itemsize())?;
    if dev.is_some_and(|dev| dev.is_gpu()) && d != DType::F64 {
        crate::tensor::device::check_gpu_dtype(d)?;
        if let Some(t) = boundary::catch(|| crate::tensor::device::gpu_full(shape, v, d))? {
            return Ok(t);
        }
    }
    let t = Tensor::full(shape, v, d);
    Ok(match dev {
        Some(dev) => boundary::catch(|| creation::copy_to_device(&t, dev))?,
        None => t,
    })
}

fn shape_of(op: &str, size: &Bound<'_, PyTuple>) -> PyResult<Vec<usize>> {
    to_shape(&sizes_arg(op, "size", size)?)
}

/// tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor
///
/// Constructs a tensor with no autograd history (a leaf) by copying `data`.
///
/// Args:
///     data (array_like): the initial data: a Python number, a (nested) list or tuple of numbers, a
///         NumPy array, or a tensor (copied, as `x.clone().detach()` would).
///     dtype (gradrs.dtype, optional): the desired data type. Default: inferred from `data`
///         (`gradrs.get_default_dtype()` for Python floats, `int64` for ints, `bool` for bools).
///     device (gradrs.device, optional): the device of the result. Default: the CPU.
///     requires_grad (bool, optional): whether autograd records operations on the result. Default:
///         `False`.
///     pin_memory (bool, optional): accepted for PyTorch compatibility (CPU memory is not pinned).
///         Default: `False`.
///
/// Example:
///     >>> gradrs.tensor([[0.1, 1.2], [2.2, 3.1], [4.9, 5.2]])
///     tensor([[0.1000, 1.2000],
///             [2.2000, 3.1000],
///             [4.9000, 5.2000]])
///     >>> gradrs.tensor([0, 1])
///     tensor([0, 1])
///     >>> gradrs.tensor([[0.11111, 0.222222, 0.3333333]], dtype=gradrs.float64)
///     tensor([[0.1111, 0.2222, 0.3333]], dtype=gradrs.float64)
///     >>> gradrs.tensor(3.14159)
///     tensor(3.1416)
///     >>> gradrs.tensor([])
///     tensor([])
#[pyfunction]
#[pyo3(
    name = "tensor",
    signature = (data, *, dtype=None, device=None, requires_grad=Flag::FALSE, pin_memory=Flag::FALSE),
    text_signature = "(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False)"
)]
fn new_tensor(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: Flag,
    pin_memory: Flag,
) -> R {
    let requires_grad = requires_grad.get("tensor", "requires_grad")?;
    pin_memory.get("tensor", "pin_memory")?;
    let dev = check_device("tensor", device)?;
    let dtype = extract_dtype(dtype)?;
    let t = boundary::held(|| convert::tensor_from_data(data, dtype))?;
    finish(py, t, dev, requires_grad)
}

#[pyfunction]
#[pyo3(signature = (data, dtype=None, device=None))]
fn as_tensor(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> R {
    let dev = check_device("as_tensor", device)?;
    let dtype = extract_dtype(dtype)?;
    if let Ok(t) = data.cast::<PyTensor>() {
        let t = t.borrow().t.clone();
        return boundary::tensor(py, || {
            let t = match dtype {
                Some(d) => creation::to_dtype(&t, d)?,
                None => t,
            };
            match dev {
                Some(d) => creation::to_device(&t, d),
                None => Ok(t),
            }
        });
    }
    let t = boundary::held(|| convert::tensor_from_data(data, dtype))?;
    finish(py, t, dev, false)
}

macro_rules! filled {
    ($(#[doc = $doc:literal])* $name:ident, $value:expr) => {
        $(#[doc = $doc])*
        #[pyfunction]
        #[pyo3(
            signature = (*size, dtype=None, device=None, requires_grad=Flag::FALSE, out=None),
            text_signature = "(*size, dtype=None, device=None, requires_grad=False, out=None)"
        )]
        fn $name(
            py: Python<'_>,
            size: &Bound<'_, PyTuple>,
            dtype: Option<&Bound<'_, PyAny>>,
            device: Option<&Bound<'_, PyAny>>,
            requires_grad: Flag,
            out: Option<&Bound<'_, PyAny>>,
        ) -> R {
            let requires_grad = requires_grad.get(stringify!($name), "requires_grad")?;
            let dev = check_device(stringify!($name), device)?;
            let dtype = extract_dtype(dtype)?;
            let sizes = sizes_arg(stringify!($name), "size", size)?;
            if stringify!($name) == "zeros" && sizes.iter().any(|&s| s < 0) {
                // zeros checks its sizes itself, before the generic allocation check.
                return Err(errors::runtime_error(
                    "zeros: Dimension size must be non-negative.",
                ));
            }
            let shape = to_shape(&sizes)?;
            if let Some(out) = out {
                let fill = (stringify!($name) != "empty").then_some($value);
                return out::factory_out(
                    py,
                    stringify!($name),
                    out,
                    &shape,
                    fill,
                    dtype,
                    requires_grad,
                );
            }
            let d = dtype.unwrap_or_else(default_float);
            let t = boundary::run(py, || filled_on(&shape, $value, d, dev))?;
            finish(py, t, None, requires_grad)
        }
    };
}
filled!(
    /// zeros(*size, *, dtype=None, device=None, requires_grad=False, out=None) -> Tensor
    ///
    /// Returns a tensor filled with the scalar value `0`, with the shape defined by the variable
    /// argument `size`.
    ///
    /// Args:
    ///     size (int...): a sequence of integers defining the shape of the output tensor: a
    ///         variable number of arguments or a collection like a list or tuple.
    ///     dtype (gradrs.dtype, optional): the desired data type. Default: the default float dtype
    ///         (`gradrs.get_default_dtype()`).
    ///     device (gradrs.device, optional): the device of the result. Default: the CPU.
    ///     requires_grad (bool, optional): whether autograd records operations on the result.
    ///         Default: `False`.
    ///     out (Tensor, optional): the output tensor (resized to `size`).
    ///
    /// Example:
    ///     >>> gradrs.zeros(2, 3)
    ///     tensor([[0., 0., 0.],
    ///             [0., 0., 0.]])
    ///     >>> gradrs.zeros(5)
    ///     tensor([0., 0., 0., 0., 0.])
    zeros,
    Scalar::Int(0)
);
filled!(
    /// ones(*size, *, dtype=None, device=None, requires_grad=False, out=None) -> Tensor
    ///
    /// Returns a tensor filled with the scalar value `1`, with the shape defined by the variable
    /// argument `size`.
    ///
    /// Args:
    ///     size (int...): a sequence of integers defining the shape of the output tensor: a
    ///         variable number of arguments or a collection like a list or tuple.
    ///     dtype (gradrs.dtype, optional): the desired data type. Default: the default float dtype
    ///         (`gradrs.get_default_dtype()`).
    ///     device (gradrs.device, optional): the device of the result. Default: the CPU.
    ///     requires_grad (bool, optional): whether autograd records operations on the result.
    ///         Default: `False`.
    ///     out (Tensor, optional): the output tensor (resized to `size`).
    ///
    /// Example:
    ///     >>> gradrs.ones(2, 3)
    ///     tensor([[1., 1., 1.],
    ///             [1., 1., 1.]])
    ///     >>> gradrs.ones((3,), dtype=gradrs.int64)
    ///     tensor([1, 1, 1])
    ones,
    Scalar::Int(1)
);
filled!(
    /// empty(*size, *, dtype=None, device=None, requires_grad=False, out=None) -> Tensor
    ///
    /// Returns a tensor of uninitialized data (its values must be written before they are read),
    /// with the shape defined by the variable argument `size`.
    ///
    /// Args:
    ///     size (int...): a sequence of integers defining the shape of the output tensor: a
    ///         variable number of arguments or a collection like a list or tuple.
    ///     dtype (gradrs.dtype, optional): the desired data type. Default: the default float dtype
    ///         (`gradrs.get_default_dtype()`).
    ///     device (gradrs.device, optional): the device of the result. Default: the CPU.
    ///     requires_grad (bool, optional): whether autograd records operations on the result.
    ///         Default: `False`.
    ///     out (Tensor, optional): the output tensor (resized to `size`).
    ///
    /// Example:
    ///     >>> gradrs.empty(2, 3).shape
    ///     gradrs.Size([2, 3])
    ///     >>> gradrs.empty((2, 3), dtype=gradrs.int64).dtype
    ///     gradrs.int64
    empty,
    Scalar::Int(0)
);

/// full(size, fill_value, *, dtype=None, device=None, requires_grad=False) -> Tensor
///
/// Creates a tensor of size `size` filled with `fill_value`. The dtype is inferred from
/// `fill_value` when not given (`bool`, `int64`, or the default float dtype).
///
/// Args:
///     size (int...): a list, tuple or `gradrs.Size` of integers defining the shape.
///     fill_value (Scalar): the value to fill the output tensor with.
///     dtype (gradrs.dtype, optional): the desired data type of the result.
///     device (gradrs.device, optional): the device of the result. Default: the CPU.
///     requires_grad (bool, optional): whether autograd records operations on the result. Default:
///         `False`.
///
/// Example:
///     >>> gradrs.full((2, 3), 3.141592)
///     tensor([[3.1416, 3.1416, 3.1416],
///             [3.1416, 3.1416, 3.1416]])
///     >>> gradrs.full((2,), 7)
///     tensor([7, 7])
#[pyfunction]
#[pyo3(
    signature = (size, fill_value, *, dtype=None, device=None, requires_grad=Flag::FALSE),
    text_signature = "(size, fill_value, *, dtype=None, device=None, requires_grad=False)"
)]
fn full(
    py: Python<'_>,
    size: &Bound<'_, PyAny>,
    fill_value: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: Flag,
) -> R {
    let requires_grad = requires_grad.get("full", "requires_grad")?;
    let dev = check_device("full", device)?;
    let sizes = tensor::int_list("full", "size", size, Some(1), false)?;
    let shape = to_shape(&sizes)?;
    // A NumPy bool fills as a number (the default float dtype), as PyTorch's parser reads it.
    let v = match convert::operand_scalar(fill_value) {
        Some(v) => Some(v),
        None => convert::zero_dim_scalar(fill_value)?,
    };
    let v = v.ok_or_else(|| {
        errors::type_error(format!(
            "full(): argument 'fill_value' (position 2) must be Number, not {}",
            convert::type_name(fill_value)
        ))
    })?;
    let d = extract_dtype(dtype)?.unwrap_or(match v {
        Scalar::Bool(_) => DType::Bool,
        Scalar::Int(_) => DType::I64,
        Scalar::Float(_) => default_float(),
    });
    if crate::dtype::fill_checks(d, shape.iter().product()) {
        crate::dtype::check_fits(v, d, crate::dtype::cpp_name(d))?;
    }
    let t = boundary::run(py, || filled_on(&shape, v, d, dev))?;
    finish(py, t, None, requires_grad)
}

fn like_dtype(input: &Tensor, dtype: Option<&Bound<'_, PyAny>>) -> PyResult<DType> {
    Ok(extract_dtype(dtype)?.unwrap_or(input.dtype()))
}

macro_rules! filled_like {
    ($(#[doc = $doc:literal])* $name:ident, $value:expr) => {
        $(#[doc = $doc])*
        #[pyfunction]
        #[pyo3(
                    signature = (input, *, dtype=None, device=None, requires_grad=Flag::FALSE, memory_format=None),
                    text_signature = "(input, *, dtype=None, device=None, requires_grad=False, memory_format=None)"
                )]
        fn $name(
            py: Python<'_>,
            input: &Bound<'_, PyAny>,
            dtype: Option<&Bound<'_, PyAny>>,
            device: Option<&Bound<'_, PyAny>>,
            requires_grad: Flag,
            memory_format: Option<&Bound<'_, PyAny>>,
        ) -> R {
            let input = convert::tensor_arg(input, stringify!($name), "input", 1)?;
            let requires_grad = requires_grad.get(stringify!($name), "requires_grad")?;
            let fmt = parse::memory_format_arg(memory_format, stringify!($name))?;
            let dev = check_device(stringify!($name), device)?;
            let d = like_dtype(&input, dtype)?;
            let dev = dev.or(Some(input.device()));
            let shape = input.shape();
            let t = boundary::run(py, || {
                creation::like_layout(filled_on(&shape, $value, d, dev)?, &input, fmt)
            })?;
            finish(py, t, None, requires_grad)
        }
    };
}
filled_like!(
    /// zeros_like(input, *, dtype=None, device=None, requires_grad=False) -> Tensor
    ///
    /// Returns a tensor filled with the scalar value `0`, with the same size as `input`.
    /// `gradrs.zeros_like(input)` is `gradrs.zeros(input.size(), dtype=input.dtype,
    /// device=input.device)`.
    ///
    /// Args:
    ///     input (Tensor): the size of `input` determines the size of the output tensor.
    ///     dtype (gradrs.dtype, optional): the desired data type. Default: `input.dtype`.
    ///     device (gradrs.device, optional): the desired device. Default: `input.device`.
    ///     requires_grad (bool, optional): whether autograd records operations on the result.
    ///         Default: `False`.
    ///
    /// Example:
    ///     >>> x = gradrs.empty(2, 3)
    ///     >>> gradrs.zeros_like(x)
    ///     tensor([[0., 0., 0.],
    ///             [0., 0., 0.]])
    zeros_like,
    Scalar::Int(0)
);
filled_like!(
    /// ones_like(input, *, dtype=None, device=None, requires_grad=False) -> Tensor
    ///
    /// Returns a tensor filled with the scalar value `1`, with the same size as `input`.
    /// `gradrs.ones_like(input)` is `gradrs.ones(input.size(), dtype=input.dtype,
    /// device=input.device)`.
    ///
    /// Args:
    ///     input (Tensor): the size of `input` determines the size of the output tensor.
    ///     dtype (gradrs.dtype, optional): the desired data type. Default: `input.dtype`.
    ///     device (gradrs.device, optional): the desired device. Default: `input.device`.
    ///     requires_grad (bool, optional): whether autograd records operations on the result.
    ///         Default: `False`.
    ///
    /// Example:
    ///     >>> x = gradrs.tensor([[1, 2, 3], [4, 5, 6]])
    ///     >>> gradrs.ones_like(x)
    ///     tensor([[1, 1, 1],
    ///             [1, 1, 1]])
    ones_like,
    Scalar::Int(1)
);
filled_like!(
    /// empty_like(input, *, dtype=None, device=None, requires_grad=False) -> Tensor
    ///
    /// Returns a tensor of uninitialized data, with the same size as `input`.
    /// `gradrs.empty_like(input)` is `gradrs.empty(input.size(), dtype=input.dtype,
    /// device=input.device)`.
    ///
    /// Args:
    ///     input (Tensor): the size of `input` determines the size of the output tensor.
    ///     dtype (gradrs.dtype, optional): the desired data type. Default: `input.dtype`.
    ///     device (gradrs.device, optional): the desired device. Default: `input.device`.
    ///     requires_grad (bool, optional): whether autograd records operations on the result.
    ///         Default: `False`.
    ///
    /// Example:
    ///     >>> x = gradrs.ones(2, 3, dtype=gradrs.int32)
    ///     >>> y = gradrs.empty_like(x)
    ///     >>> y.shape, y.dtype
    ///     (gradrs.Size([2, 3]), gradrs.int32)
    empty_like,
    Scalar::Int(0)
);

/// full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False) -> Tensor
///
/// Returns a tensor with the same size as `input` filled with `fill_value`.
/// `gradrs.full_like(input, fill_value)` is `gradrs.full(input.size(), fill_value,
/// dtype=input.dtype, device=input.device)`.
///
/// Args:
///     input (Tensor): the size of `input` determines the size of the output tensor.
///     fill_value (Scalar): the number to fill the output tensor with.
///     dtype (gradrs.dtype, optional): the desired data type. Default: `input.dtype`.
///     device (gradrs.device, optional): the desired device. Default: `input.device`.
///     requires_grad (bool, optional): whether autograd records operations on the result. Default:
///         `False`.
///
/// Example:
///     >>> x = gradrs.tensor([[1, 2], [3, 4]])
///     >>> gradrs.full_like(x, 7)
///     tensor([[7, 7],
///             [7, 7]])
///     >>> gradrs.full_like(x, 0.5, dtype=gradrs.float32)
///     tensor([[0.5000, 0.5000],
///             [0.5000, 0.5000]])
#[pyfunction]
#[pyo3(
    signature = (input, fill_value, *, dtype=None, device=None, requires_grad=Flag::FALSE, memory_format=None),
    text_signature = "(input, fill_value, *, dtype=None, device=None, requires_grad=False, memory_format=None)"
)]
#[allow(clippy::too_many_arguments)]
fn full_like(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    fill_value: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: Flag,
    memory_format: Option<&Bound<'_, PyAny>>,
) -> R {
    let input = convert::tensor_arg(input, "full_like", "input", 1)?;
    let requires_grad = requires_grad.get("full_like", "requires_grad")?;
    let fmt = parse::memory_format_arg(memory_format, "full_like")?;
    let dev = check_device("full_like", device)?;
    let v = match extract_scalar(fill_value) {
        Some(v) => Some(v),
        None => convert::zero_dim_scalar(fill_value)?,
    };
    let v = v.ok_or_else(|| {
        errors::type_error(format!(
            "full_like(): argument 'fill_value' (position 2) must be Number, not {}",
            convert::type_name(fill_value)
        ))
    })?;
    let d = like_dtype(&input, dtype)?;
    let dev = dev.or(Some(input.device()));
    let shape = input.shape();
    let t = boundary::run(py, || {
        creation::like_layout(filled_on(&shape, v, d, dev)?, &input, fmt)
    })?;
    finish(py, t, None, requires_grad)
}

/// arange(start=0, end, step=1, *, dtype=None, device=None, requires_grad=False) -> Tensor
///
/// Returns a 1-D tensor of size `ceil((end - start) / step)` with values from the interval `[start,
/// end)` taken with common difference `step` beginning from `start`.
///
/// The result is `int64` when all arguments are integers, else of the default float dtype.
/// Floating-point steps are subject to rounding: subtract a small epsilon from `end` to be sure it
/// is excluded.
///
/// Args:
///     start (Number, optional): the starting value. Default: `0`.
///     end (Number): the ending value (excluded).
///     step (Number, optional): the gap between each pair of adjacent points. Default: `1`.
///     dtype (gradrs.dtype, optional): the desired data type of the result.
///     device (gradrs.device, optional): the device of the result. Default: the CPU.
///     requires_grad (bool, optional): whether autograd records operations on the result. Default:
///         `False`.
///
/// Example:
///     >>> gradrs.arange(5)
///     tensor([0, 1, 2, 3, 4])
///     >>> gradrs.arange(1, 4)
///     tensor([1, 2, 3])
///     >>> gradrs.arange(1, 2.5, 0.5)
///     tensor([1.0000, 1.5000, 2.0000])
#[pyfunction]
#[pyo3(
    signature = (*args, dtype=None, device=None, requires_grad=Flag::FALSE),
    text_signature = "(*args, dtype=None, device=None, requires_grad=False)"
)]
fn arange(
    py: Python<'_>,
    args: &Bound<'_, PyTuple>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: Flag,
) -> R {
    let requires_grad = requires_grad.get("arange", "requires_grad")?;
    let dev = check_device("arange", device)?;
    let mut nums = Vec::with_capacity(args.len());
    for a in args.iter() {
        match extract_scalar(&a) {
            Some(v) => nums.push(v),
            None => match convert::zero_dim_scalar(&a)? {
                Some(v) => nums.push(v),
                None if args.len() == 1 => {
                    return Err(errors::type_error(format!(
                        "arange(): argument 'end' (position 1) must be Number, not {}",
                        convert::type_name(&a)
                    )))
                }
                None => break,
            },
        }
    }
    let (start, end, step) = match nums.as_slice() {
        [e] if args.len() == 1 => (Scalar::Int(0), *e, Scalar::Int(1)),
        [s, e] if args.len() == 2 => (*s, *e, Scalar::Int(1)),
        [s, e, st] if args.len() == 3 => (*s, *e, *st),
        _ => return Err(arange_signature_error(args, dtype, device, requires_grad)),
    };
    let dtype = extract_dtype(dtype)?;
    let t = boundary::run(py, || creation::arange(start, end, step, dtype))?;
    finish(py, t, dev, requires_grad)
}

/// PyTorch's parser error for `arange`'s arguments matching none of its three overloads.
fn arange_signature_error(
    args: &Bound<'_, PyTuple>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
) -> PyErr {
    let mut got: Vec<String> = args.iter().map(|a| convert::type_name(&a)).collect();
    for (name, v) in [("dtype", dtype), ("device", device)] {
        if let Some(v) = v.filter(|v| !v.is_none()) {
            got.push(format!("{name}={}", convert::type_name(v)));
        }
    }
    if requires_grad {
        got.push("requires_grad=bool".into());
    }
    let kw = "gradrs.dtype dtype = None, gradrs.layout layout = None, gradrs.device device = None, bool pin_memory = False, bool requires_grad = False";
    errors::type_error(format!(
        "arange() received an invalid combination of arguments - got ({}), but expected one of:\n * (Number end, *, Tensor out = None, {kw})\n * (Number start, Number end, *, {kw})\n * (Number start, Number end, Number step = 1, *, Tensor out = None, {kw})\n",
        got.join(", ")
    ))
}

/// linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False) -> Tensor
///
/// Creates a 1-D tensor of size `steps` whose values are evenly spaced from `start` to `end`,
/// inclusive: `start + i * (end - start) / (steps - 1)` for `i` in `0 .. steps - 1`.
///
/// Args:
///     start (float): the starting value of the set of points.
///     end (float): the ending value of the set of points.
///     steps (int): the size of the tensor to construct.
///     dtype (gradrs.dtype, optional): the data type of the result. Default: the default float
///         dtype.
///     device (gradrs.device, optional): the device of the result. Default: the CPU.
///     requires_grad (bool, optional): whether autograd records operations on the result. Default:
///         `False`.
///
/// Example:
///     >>> gradrs.linspace(3, 10, steps=5)
///     tensor([ 3.0000,  4.7500,  6.5000,  8.2500, 10.0000])
///     >>> gradrs.linspace(-10, 10, steps=5)
///     tensor([-10.,  -5.,   0.,   5.,  10.])
///     >>> gradrs.linspace(start=-10, end=10, steps=1)
///     tensor([-10.])
#[pyfunction]
#[pyo3(
    signature = (start, end, steps, *, dtype=None, device=None, requires_grad=Flag::FALSE),
    text_signature = "(start, end, steps, *, dtype=None, device=None, requires_grad=False)"
)]
fn linspace(
    py: Python<'_>,
    start: f64,
    end: f64,
    steps: Int,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: Flag,
) -> R {
    let steps = steps.get("linspace", "steps", 3)?;
    let requires_grad = requires_grad.get("linspace", "requires_grad")?;
    let dev = check_device("linspace", device)?;
    let dtype = extract_dtype(dtype)?.unwrap_or_else(default_float);
    let t = boundary::run(py, || creation::linspace(start, end, steps, dtype))?;
    finish(py, t, dev, requires_grad)
}

/// eye(n, m=None, *, dtype=None, device=None, requires_grad=False) -> Tensor
///
/// Returns a 2-D tensor with ones on the diagonal and zeros elsewhere.
///
/// Args:
///     n (int): the number of rows.
///     m (int, optional): the number of columns. Default: `n`.
///     dtype (gradrs.dtype, optional): the data type of the result. Default: the default float
///         dtype.
///     device (gradrs.device, optional): the device of the result. Default: the CPU.
///     requires_grad (bool, optional): whether autograd records operations on the result. Default:
///         `False`.
///
/// Example:
///     >>> gradrs.eye(3)
///     tensor([[1., 0., 0.],
///             [0., 1., 0.],
///             [0., 0., 1.]])
///     >>> gradrs.eye(2, 3, dtype=gradrs.int64)
///     tensor([[1, 0, 0],
///             [0, 1, 0]])
#[pyfunction]
#[pyo3(
    signature = (n, m=None, *, dtype=None, device=None, requires_grad=Flag::FALSE),
    text_signature = "(n, m=None, *, dtype=None, device=None, requires_grad=False)"
)]
fn eye(
    py: Python<'_>,
    n: Int,
    m: Option<Int>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: Flag,
) -> R {
    let n = n.get("eye", "n", 1)?;
    let m = m.map(|v| v.get("eye", "m", 2)).transpose()?;
    let requires_grad = requires_grad.get("eye", "requires_grad")?;
    let dev = check_device("eye", device)?;
    if n < 0 {
        return Err(errors::runtime_error(format!(
            "n must be greater or equal to 0, got {n}"
        )));
    }
    let m = m.unwrap_or(n);
    if m < 0 {
        return Err(errors::runtime_error(format!(
            "m must be greater or equal to 0, got {m}"
        )));
    }
    let dtype = extract_dtype(dtype)?.unwrap_or_else(default_float);
    let t = boundary::run(py, || Ok(creation::eye(n as usize, m as usize, dtype)))?;
    finish(py, t, dev, requires_grad)
}

#[pyfunction]
fn from_numpy(py: Python<'_>, ndarray: &Bound<'_, PyAny>) -> R {
    wrap(py, boundary::held(|| convert::from_numpy(ndarray))?)
}

/// Legacy typed constructors: `FloatTensor(...)`, `DoubleTensor(...)`, `LongTensor(...)`.
#[pyfunction]
#[pyo3(signature = (dtype, *args, **kwargs))]
fn _legacy_new(
    py: Python<'_>,
    dtype: PyRef<'_, PyDType>,
    args: &Bound<'_, PyTuple>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> R {
    wrap(py, boundary::held(|| legacy_new(args, kwargs, dtype.d))?)
}

#[pyfunction]
#[pyo3(name = "where")]
fn where_(
    py: Python<'_>,
    condition: PyRef<'_, PyTensor>,
    input: &Bound<'_, PyAny>,
    other: &Bound<'_, PyAny>,
) -> R {
    let op = |o: &Bound<'_, PyAny>| -> PyResult<crate::ops::Operand> {
        if let Ok(t) = o.cast::<PyTensor>() {
            return Ok(crate::ops::Operand::Tensor(t.borrow().t.clone()));
        }
        extract_scalar(o)
            .map(crate::ops::Operand::Scalar)
            .ok_or_else(|| errors::type_error("where(): expected a Tensor or a number"))
    };
    let (a, b, c) = (condition.t.clone(), op(input)?, op(other)?);
    boundary::tensor(py, || crate::ops::where_::where_(&a, b, c))
}

/// `equal(input, other)`: the same size and the same values.
#[pyfunction]
#[pyo3(signature = (*args, **kwargs))]
fn equal(
    args: &Bound<'_, PyTuple>,
    kwargs: Option<&Bound<'_, pyo3::types::PyDict>>,
) -> PyResult<bool> {
    use self::parse::{parse, req, Kind, Signature};
    const SIGS: [Signature; 1] = [Signature {
        params: &[req("input", Kind::Tensor), req("other", Kind::Tensor)],
        text: "",
    }];
    let (_, a) = parse("equal", &SIGS, args, kwargs, false)?;
    let t = |i: usize| -> PyResult<crate::tensor::Tensor> {
        Ok(a[i]
            .as_ref()
            .expect("required")
            .cast::<PyTensor>()?
            .borrow()
            .t
            .clone())
    };
    Ok(crate::ops::compare::equal(&t(0)?, &t(1)?)?)
}

/// `einsum(equation, *operands)`, or `einsum(equation, [operands])`.
#[pyfunction]
#[pyo3(signature = (equation, *operands))]
fn einsum(py: Python<'_>, equation: &str, operands: &Bound<'_, PyTuple>) -> R {
    // One list or tuple argument holds the operands (PyTorch's second calling form).
    let items: Vec<Bound<'_, PyAny>> = match operands.len() {
        1 if !operands.get_item(0)?.is_instance_of::<PyTensor>() => {
            operands.get_item(0)?.try_iter()?.collect::<PyResult<_>>()?
        }
        _ => operands.iter().collect(),
    };
    if items.is_empty() {
        return Err(errors::value_error("einsum(): must specify the equation string and at least one operand, or at least one operand and its subscripts list"));
    }
    let tensors = items
        .iter()
        .enumerate()
        .map(|(i, o)| {
            o.cast::<PyTensor>()
                .map(|t| t.borrow().t.clone())
                .map_err(|_| {
                    errors::type_error(format!(
                        "expected Tensor as element {i} in argument 1, but got {}",
                        o.get_type()
                            .name()
                            .map(|n| n.to_string())
                            .unwrap_or_default()
                    ))
                })
        })
        .collect::<PyResult<Vec<_>>>()?;
    boundary::tensor(py, || crate::ops::einsum::einsum(equation, &tensors))
}

/// `_scalar_overload(input, op, number)`: `input * number` (`op` "mul") or `input / number`
/// ("div") recorded as PyTorch's C++ Scalar overloads are (`MulBackward1`, `DivBackward1`), for
/// Python compositions of ops PyTorch writes in C++ (losses).
#[pyfunction]
fn _scalar_overload(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    op: &str,
    number: &Bound<'_, PyAny>,
) -> R {
    use crate::ops::arithmetic::{scalar_overload, BinaryOp};
    let op = match op {
        "mul" => BinaryOp::Mul,
        "div" => BinaryOp::Div,
        other => {
            return Err(errors::value_error(format!(
                "_scalar_overload: unknown op '{other}'"
            )))
        }
    };
    let s = extract_scalar(number)
        .ok_or_else(|| errors::type_error("_scalar_overload: expected a number"))?;
    let input_t = input.t.clone();
    boundary::tensor(py, || scalar_overload(op, &input_t, s))
}

/// The thread count CPU kernels use (the calling thread included).
#[pyfunction]
fn get_num_threads() -> usize {
    crate::backend::cpu::parallel::num_threads()
}

/// `set_num_threads`'s native part; `gradrs.set_num_threads` checks the argument first.
#[pyfunction]
fn _set_num_threads(n: usize) {
    crate::backend::cpu::parallel::set_num_threads(n)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    boundary::install_panic_hook();
    m.add_class::<PyTensor>()?;
    gpu::register(m)?;
    numbers::register(m)?;
    pointwise::register(m)?;
    special::register(m)?;
    activation::register(m)?;
    declared::register(m)?;
    shape::register(m)?;
    linalg::register(m)?;
    reduce::register(m)?;
    nn::register(m)?;
    optim::register(m)?;
    generator::register(m)?;
    random::register(m)?;
    sampling::register(m)?;
    strided::register(m)?;
    m.add_function(wrap_pyfunction!(helpers::_register_return_types, m)?)?;
    m.add_class::<PyDType>()?;
    m.add_class::<PyDevice>()?;
    m.add_class::<autograd::PyNode>()?;
    let py = m.py();
    m.add(
        "OutOfMemoryError",
        py.get_type::<errors::OutOfMemoryError>(),
    )?;
    for d in DType::ALL {
        m.add(d.name(), dtype::dtype_object(py, d))?;
    }
    m.add_function(wrap_pyfunction!(helpers::_register, m)?)?;
    m.add_function(wrap_pyfunction!(helpers::_register_foreign_operator, m)?)?;
    m.add_function(wrap_pyfunction!(parser_errors::_install_parser_errors, m)?)?;
    m.add_function(wrap_pyfunction!(new_tensor, m)?)?;
    m.add_function(wrap_pyfunction!(dtype::get_default_dtype, m)?)?;
    m.add_function(wrap_pyfunction!(dtype::_set_default_dtype, m)?)?;
    m.add_function(wrap_pyfunction!(as_tensor, m)?)?;
    m.add_function(wrap_pyfunction!(zeros, m)?)?;
    m.add_function(wrap_pyfunction!(ones, m)?)?;
    m.add_function(wrap_pyfunction!(empty, m)?)?;
    m.add_function(wrap_pyfunction!(full, m)?)?;
    m.add_function(wrap_pyfunction!(zeros_like, m)?)?;
    m.add_function(wrap_pyfunction!(ones_like, m)?)?;
    m.add_function(wrap_pyfunction!(empty_like, m)?)?;
    m.add_function(wrap_pyfunction!(full_like, m)?)?;
    m.add_function(wrap_pyfunction!(arange, m)?)?;
    m.add_function(wrap_pyfunction!(linspace, m)?)?;
    m.add_function(wrap_pyfunction!(eye, m)?)?;
    m.add_function(wrap_pyfunction!(from_numpy, m)?)?;
    m.add_function(wrap_pyfunction!(_legacy_new, m)?)?;
    m.add_function(wrap_pyfunction!(get_num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(_set_num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(where_, m)?)?;
    m.add_function(wrap_pyfunction!(equal, m)?)?;
    m.add_function(wrap_pyfunction!(einsum, m)?)?;
    m.add_function(wrap_pyfunction!(_scalar_overload, m)?)?;
    m.add_function(wrap_pyfunction!(out::_write_out, m)?)?;
    m.add_function(wrap_pyfunction!(out::_check_out_overlap, m)?)?;
    m.add_function(wrap_pyfunction!(pynode::_attach_node, m)?)?;
    m.add_function(wrap_pyfunction!(pynode::_bump_version, m)?)?;
    m.add_function(wrap_pyfunction!(numpy_names::_numpy_names, m)?)?;
    m.add_function(wrap_pyfunction!(autograd::_current_graph_task_id, m)?)?;
    m.add_function(wrap_pyfunction!(autograd::_is_checkpoint_valid, m)?)?;
    m.add_function(wrap_pyfunction!(autograd::_will_engine_execute_node, m)?)?;
    forward_ad::register(m)?;
    m.add_function(wrap_pyfunction!(autograd::_backward, m)?)?;
    m.add_function(wrap_pyfunction!(autograd::_grad, m)?)?;
    m.add_function(wrap_pyfunction!(autograd::_grad_batched, m)?)?;
    m.add_function(wrap_pyfunction!(autograd::_transparent_alias, m)?)?;
    m.add_function(wrap_pyfunction!(autograd::is_grad_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(autograd::_set_grad_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(autograd::is_inference_mode_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(autograd::_enter_inference_mode, m)?)?;
    m.add_function(wrap_pyfunction!(autograd::_exit_inference_mode, m)?)?;
    m.add_function(wrap_pyfunction!(autograd::is_inference, m)?)?;
    m.add_function(wrap_pyfunction!(autograd::set_version_counters, m)?)?;
    m.add_function(wrap_pyfunction!(anomaly::_register_anomaly, m)?)?;
    m.add_function(wrap_pyfunction!(anomaly::set_anomaly_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(anomaly::is_anomaly_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(anomaly::is_anomaly_check_nan_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(autograd::_live_nodes, m)?)?;
    m.add_class::<saved::PySavedTensor>()?;
    m.add_function(wrap_pyfunction!(
        saved::_push_saved_tensors_default_hooks,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(
        saved::_pop_saved_tensors_default_hooks,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(saved::_saved_tensors_hooks_disable, m)?)?;
    m.add_function(wrap_pyfunction!(saved::_saved_tensors_hooks_enable, m)?)?;
    m.add_function(wrap_pyfunction!(
        saved::_saved_tensors_hooks_get_disabled_error_message,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(saved::_graph_stats, m)?)?;
    Ok(())
}
