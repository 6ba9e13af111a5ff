//! The `Tensor` pyclass: the Python tensor IS this native object; every op goes straight
//! from Python into Rust. Here: the class, its Python object's identity (`wrap`), the
//! argument parsing its methods share, the legacy constructor; its methods by kind in the
//! files beside (attributes, grad, conversion, protocol, operators, methods).

mod attributes;
mod conversion;
mod grad;
mod methods;
mod operators;
mod protocol;
mod views;
pub(crate) use views::resize_as_object;

use super::autograd::node_object;
use super::convert::{extract_scalar, operand_scalar, to_list, Flag, NumberArg};
use super::dtype::{dtype_object, extract_dtype, PyDevice};
use super::helpers;
use crate::autograd::{self, BackwardOptions};
use crate::dtype::{DType, Scalar};
use crate::ops::arithmetic::{self, BinaryOp};
use crate::ops::compare::{self, CmpOp};
use crate::ops::inplace;
use crate::ops::unary::{unary, UnaryOp};
use crate::ops::{creation, matmul, movement, reduce, Operand};
use crate::tensor::shape::sizes_i64;
use crate::tensor::{Device, Tensor};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use pyo3::IntoPyObjectExt;
use std::sync::atomic::Ordering;

/// A multi-dimensional matrix of elements of one data type (`gradrs.dtype`) on one device
/// (`gradrs.device`), with autograd: operations on tensors that require grad record a graph, and
/// `backward()` computes gradients through it.
///
/// Create tensors with the factory functions (`gradrs.tensor`, `gradrs.zeros`, `gradrs.ones`,
/// `gradrs.rand`, `gradrs.arange`, ...); `gradrs.Tensor(data)` is the legacy constructor (always
/// the default float dtype, like `gradrs.FloatTensor`).
///
/// Example:
///     >>> x = gradrs.tensor([[1.0, -1.0], [1.0, 1.0]], requires_grad=True)
///     >>> out = x.pow(2).sum()
///     >>> out.backward()
///     >>> x.grad
///     tensor([[ 2., -2.],
///             [ 2.,  2.]])
///     >>> gradrs.Tensor([1, 2])
///     tensor([1., 2.])
#[pyclass(name = "Tensor", module = "gradrs", subclass, dict, weakref)]
pub struct PyTensor {
    pub t: Tensor,
}

/// The Python object for `t`: the existing one if it has one (identity is preserved, as in
/// PyTorch), else a new one.
pub fn wrap(py: Python<'_>, t: Tensor) -> PyResult<Py<PyAny>> {
    let ptr = t.0.binding.load(Ordering::Acquire);
    if ptr != 0 {
        // SAFETY: `binding` is non-zero only while that object lives (cleared in Drop below),
        // and we hold the GIL.
        return Ok(
            unsafe { Bound::from_borrowed_ptr(py, ptr as *mut pyo3::ffi::PyObject) }.unbind(),
        );
    }
    if crate::tensor::device::gpu_in_use() && t.dtype() == DType::F64 && t.device().is_gpu() {
        // Ops compute float64 on the host copy; none may hand a float64 GPU tensor out.
        crate::tensor::device::check_gpu_dtype(DType::F64)?;
    }
    let binding: *const std::sync::atomic::AtomicUsize = &t.0.binding;
    let obj = Py::new(py, PyTensor { t })?.into_any();
    // SAFETY: the tensor moved into `obj`, which keeps its `TensorImpl` (and so `binding`)
    // alive; no Arc clone needed for this one store (issue 23's per-op counts).
    unsafe { &*binding }.store(obj.as_ptr() as usize, Ordering::Release);
    Ok(obj)
}

impl Drop for PyTensor {
    fn drop(&mut self) {
        self.t.0.binding.store(0, Ordering::Release);
    }
}

type R = PyResult<Py<PyAny>>;

pub fn scalar_to_py(py: Python<'_>, s: Scalar) -> R {
    Ok(match s {
        Scalar::Float(f) => f.into_py_any(py)?,
        Scalar::Int(i) => i.into_py_any(py)?,
        Scalar::Bool(b) => b.into_py_any(py)?,
    })
}

/// A binary operand from Python: a tensor or a number; None for anything else
/// (so dunder methods can return NotImplemented).
fn operand(obj: &Bound<'_, PyAny>) -> Option<Operand> {
    if let Ok(t) = obj.cast::<PyTensor>() {
        return Some(Operand::Tensor(t.borrow().t.clone()));
    }
    operand_scalar(obj).map(Operand::Scalar)
}

/// The operand of an in-place dunder (`t += x`): a tensor or a number. Anything else fails
/// to extract, which pyo3 answers with NotImplemented (its in-place slots return `self`
/// otherwise): PyTorch's dunders turn `add_`'s TypeError into NotImplemented, so
/// `t += ndarray` falls back to `t + ndarray` (numpy's add; `t` rebound, not written).
/// Except an object standing for a tensor that is no native one (vmap's `BatchedTensor`,
/// which is a Tensor in PyTorch, whose dunder would call `sub_` with it): its type's
/// `_inplace_target(operand, target, name)` is handed the write (Note [vmap]), which must
/// not fall back to rebinding `t` to `operand.__rsub__(t)`.
pub(crate) enum InPlaceOperand {
    Value(Operand),
    Delegate(Py<PyAny>),
}

impl<'a, 'py> FromPyObject<'a, 'py> for InPlaceOperand {
    type Error = PyErr;
    fn extract(obj: pyo3::Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if let Some(o) = operand(&obj) {
            return Ok(InPlaceOperand::Value(o));
        }
        if obj
            .get_type()
            .hasattr(pyo3::intern!(obj.py(), "_inplace_target"))?
        {
            return Ok(InPlaceOperand::Delegate(obj.to_owned().unbind()));
        }
        Err(super::errors::type_error("not a tensor or a number"))
    }
}

/// `pow` / `pow_`'s TypeError for an exponent that is no tensor or number, as PyTorch's
/// parser words it for the two overloads.
fn pow_type_error(name: &str, exponent: &Bound<'_, PyAny>) -> PyErr {
    let got = super::convert::type_name(exponent);
    let desc = super::convert::arg_desc(exponent);
    let why = format!(
        "      didn't match because some of the arguments have invalid types: (!{desc}!)\n"
    );
    super::errors::type_error(format!(
        "{name}() received an invalid combination of arguments - got ({got}), but expected one of:\n * (Tensor exponent)\n{why} * (Number exponent)\n{why}"
    ))
}

fn operand_or_err(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Operand> {
    operand(obj).ok_or_else(|| {
        super::errors::type_error(format!(
            "{what}(): argument 'other' (position 1) must be Tensor, not {}",
            obj.get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })
}

/// `div`'s `rounding_mode=`: left out (`div.Tensor`, `DivBackward0`) or given, `None` included
/// (`div.Tensor_mode`, `DivBackward2`): PyTorch records the two overloads differently.
pub(crate) enum RoundingMode {
    Absent,
    Given(Option<String>),
}

impl<'a, 'py> FromPyObject<'a, 'py> for RoundingMode {
    type Error = PyErr;
    fn extract(obj: pyo3::Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if obj.is_none() {
            return Ok(RoundingMode::Given(None));
        }
        Ok(RoundingMode::Given(Some(obj.extract::<String>()?)))
    }
}

/// `size` arguments: ints or one sequence of ints (`view(2, 3)`, `view((2, 3))`), with the
/// errors of PyTorch's parser named after `op`'s argument `name`; see [`int_list`].
pub fn sizes_arg(op: &str, name: &str, args: &Bound<'_, PyTuple>) -> PyResult<Vec<i64>> {
    if args.len() == 1 {
        int_list(op, name, &args.get_item(0)?, Some(1), true)
    } else {
        int_list(op, name, args.as_any(), Some(1), true)
    }
}

/// Whether `o` is a bool, Python's or NumPy's.
fn is_bool(o: &Bound<'_, PyAny>) -> bool {
    o.is_instance_of::<pyo3::types::PyBool>() || o.get_type().name().is_ok_and(|n| n == "bool")
}

/// Whether PyTorch's parser takes `o` as an int (`THPUtils_checkIndex`): no bool, anything
/// else `operator.index` takes (NumPy ints, integer tensors of one element), however large.
fn is_index(o: &Bound<'_, PyAny>) -> bool {
    !is_bool(o)
        && match o.extract::<i64>() {
            Ok(_) => true,
            Err(e) => e.is_instance_of::<pyo3::exceptions::PyOverflowError>(o.py()),
        }
}

/// One of PyTorch's int lists (`IntArrayRef`), argument `name` of `op` given at `position`
/// (None: by keyword): a sequence of ints, or one int where `int_ok` (the `*size` varargs of
/// `ones(2)` / `view(2)`). As in PyTorch's parser only a sequence's first item decides whether
/// the argument matches (a bool there is refused; later, Python's bool counts as an int); a
/// later item that is no int fails to unpack, named by its 1-based position.
pub fn int_list(
    op: &str,
    name: &str,
    obj: &Bound<'_, PyAny>,
    position: Option<usize>,
    int_ok: bool,
) -> PyResult<Vec<i64>> {
    let type_name = super::convert::type_name;
    let at = position.map_or(String::new(), |p| format!(" (position {p})"));
    let is_seq = obj.is_instance_of::<PyTuple>() || obj.is_instance_of::<pyo3::types::PyList>();
    if !is_seq {
        if !int_ok || !is_index(obj) {
            return Err(super::errors::type_error(format!(
                "{op}(): argument '{name}'{at} must be tuple of ints, not {}",
                type_name(obj)
            )));
        }
        return Ok(vec![unpack_int(op, name, obj, 0)?]);
    }
    let items = obj.try_iter()?.collect::<PyResult<Vec<_>>>()?;
    if let Some(first) = items.first().filter(|f| !is_index(f)) {
        return Err(super::errors::type_error(format!(
            "{op}(): argument '{name}'{at} must be tuple of ints, but found element of type {} at pos 0",
            type_name(first)
        )));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, v)| unpack_int(op, name, v, i))
        .collect()
}

/// Item `i` of an int list, with PyTorch's errors for one that is no int or past int64.
fn unpack_int(op: &str, name: &str, v: &Bound<'_, PyAny>, i: usize) -> PyResult<i64> {
    let numpy_bool = is_bool(v) && !v.is_instance_of::<pyo3::types::PyBool>();
    let value = if numpy_bool {
        Err(super::errors::type_error(""))
    } else {
        v.extract::<i64>()
    };
    value.map_err(|e| {
        let why = if e.is_instance_of::<pyo3::exceptions::PyOverflowError>(v.py()) {
            "Overflow when unpacking long long".to_string()
        } else {
            format!(
                "type must be tuple of ints,but got {}",
                super::convert::type_name(v)
            )
        };
        super::errors::type_error(format!(
            "{op}(): argument '{name}' failed to unpack the object at pos {} with error \"{why}\"",
            i + 1
        ))
    })
}

/// PyTorch's parser takes no bool (Python's or NumPy's) for a dim: `sum((0, True))` raises.
fn refuse_bools(items: &Bound<'_, PyAny>, arg: &str) -> PyResult<()> {
    if is_bool(items) {
        return Err(super::errors::type_error(format!(
            "argument '{arg}' must be tuple of ints, not {}",
            super::convert::type_name(items)
        )));
    }
    if items.is_instance_of::<PyTuple>() || items.is_instance_of::<pyo3::types::PyList>() {
        for (i, v) in items.try_iter()?.enumerate() {
            let v = v?;
            if is_bool(&v) {
                return Err(super::errors::type_error(format!(
                    "argument '{arg}' must be tuple of ints, but found element of type {} at pos {i}",
                    super::convert::type_name(&v)
                )));
            }
        }
    }
    Ok(())
}

/// A `*sizes` argument that PyTorch's parser also takes by its keyword, `name=(2, 3)`, with
/// its errors for a keyword it does not know or given twice.
pub(crate) fn sizes_or_keyword(
    op: &str,
    name: &str,
    args: &Bound<'_, PyTuple>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<Vec<i64>> {
    let kw = kwargs.filter(|k| !k.is_empty());
    let given = match kw {
        Some(kw) => kw.contains(name)?,
        None => false,
    };
    if args.is_empty() && !given {
        return Err(super::errors::type_error(format!(
            "{op}() missing 1 required positional arguments: \"{name}\""
        )));
    }
    let Some(kw) = kw else {
        return sizes_arg(op, name, args);
    };
    for (k, _) in kw.iter() {
        let k: String = k.extract()?;
        if k != name {
            return Err(super::errors::type_error(format!(
                "{op}() got an unexpected keyword argument '{k}'"
            )));
        }
    }
    if !args.is_empty() {
        return Err(super::errors::type_error(format!(
            "{op}() got multiple values for argument '{name}'"
        )));
    }
    let v = kw.get_item(name)?.expect("the one keyword");
    int_list(op, name, &v, None, false)
}

/// `dim` arguments: None, an int, or a sequence of ints.
pub fn dims_arg(dim: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Vec<i64>>> {
    dims_arg_named(dim, "dim")
}

/// `dims_arg` for the parameter `name` (named in its errors).
pub fn dims_arg_named(dim: Option<&Bound<'_, PyAny>>, name: &str) -> PyResult<Option<Vec<i64>>> {
    match dim {
        None => Ok(None),
        Some(d) if d.is_none() => Ok(None),
        Some(d) => {
            refuse_bools(d, name)?;
            if let Ok(i) = d.extract::<i64>() {
                Ok(Some(vec![i]))
            } else {
                Ok(Some(d.extract::<Vec<i64>>()?))
            }
        }
    }
}

impl PyTensor {
    /// `t` on `device`: the same object when already there.
    fn moved(slf: &Bound<'_, Self>, device: Device) -> R {
        let t = slf.borrow().t.clone();
        if t.device() == device {
            return Ok(slf.clone().into_any().unbind());
        }
        super::boundary::tensor(slf.py(), || creation::to_device(&t, device))
    }
    /// The value of a one-element tensor for `float()` / `int()`, with PyTorch's error.
    fn python_scalar(&self) -> PyResult<Scalar> {
        if self.t.numel() != 1 {
            return Err(super::errors::value_error(
                "only one element tensors can be converted to Python scalars",
            ));
        }
        Ok(self.t.item()?)
    }
    /// `cuda(device=None, non_blocking=False, *, memory_format=None)` (and `gpu`).
    fn to_gpu(
        slf: &Bound<'_, Self>,
        name: &str,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> R {
        use super::parse::{opt, parse, Kind, Signature};
        const SIGS: [Signature; 1] = [Signature {
            params: &[
                opt("device", Kind::Device, true, false),
                opt("non_blocking", Kind::Bool, false, false),
                opt("memory_format", Kind::MemoryFormat, true, true),
            ],
            text: "",
        }];
        let (_, a) = parse(name, &SIGS, args, kwargs, false)?;
        if let Some(Device::Cpu) = super::dtype::check_device(name, a[0].as_ref())? {
            return Err(super::errors::runtime_error(format!(
                "Invalid device, must be {name} device"
            )));
        }
        Self::moved(slf, Device::Gpu)
    }
    fn bin(&self, py: Python<'_>, op: BinaryOp, other: &Bound<'_, PyAny>) -> R {
        match operand(other) {
            Some(o) => {
                let small = super::boundary::is_small_with(&self.t, &o);
                super::boundary::tensor_if(py, small, || {
                    arithmetic::binary(op, Operand::Tensor(self.t.clone()), o)
                })
            }
            None => Ok(py.NotImplemented()),
        }
    }
    fn cmp(&self, py: Python<'_>, op: CmpOp, other: &Bound<'_, PyAny>) -> R {
        match operand(other) {
            Some(o) => {
                let small = super::boundary::is_small_with(&self.t, &o);
                super::boundary::tensor_if(py, small, || {
                    compare::compare(op, Operand::Tensor(self.t.clone()), o)
                })
            }
            None => Ok(py.NotImplemented()),
        }
    }
    fn add_sub(&self, py: Python<'_>, other: &Bound<'_, PyAny>, alpha: NumberArg, sub: bool) -> R {
        let name = if sub { "sub" } else { "add" };
        let o = operand_or_err(other, name)?;
        let alpha = alpha.scalar(py, name, "alpha", Scalar::Int(1))?;
        let a = Operand::Tensor(self.t.clone());
        let small = super::boundary::is_small_with(&self.t, &o);
        match alpha {
            Scalar::Int(1) => super::boundary::tensor_if(py, small, || {
                arithmetic::binary(if sub { BinaryOp::Sub } else { BinaryOp::Add }, a, o)
            }),
            s => {
                super::boundary::tensor_if(py, small, || arithmetic::add_scaled(&self.t, o, s, sub))
            }
        }
    }
    fn add_sub_(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>, alpha: NumberArg, sub: bool) -> R {
        let op = if sub { BinaryOp::Sub } else { BinaryOp::Add };
        let name = if sub { "sub_" } else { "add_" };
        match alpha.scalar(slf.py(), name, "alpha", Scalar::Int(1))? {
            Scalar::Int(1) => Self::inplace(slf, op, other),
            a => {
                let o = operand_or_err(other, op.name())?;
                let others = o.as_tensor().is_some_and(|t| t.requires_grad());
                let dst = slf.borrow().t.clone();
                super::boundary::catch(|| {
                    crate::ops::inplace::apply_(&dst, others, |x| {
                        let inputs: Vec<&Tensor> = o.as_tensor().into_iter().collect();
                        crate::ops::inplace::check_write(&dst, &inputs)?;
                        arithmetic::add_scaled(x, o.clone(), a, sub)
                    })
                })?;
                Ok(slf.clone().into_any().unbind())
            }
        }
    }
    /// `op(self cast to dtype)`, its result in `dtype` too: an explicit dtype overrides the
    /// integer sums' and products' int64 (`x.sum(dtype=gradrs.int32)` is int32).
    pub(crate) fn accumulate_as(
        &self,
        py: Python<'_>,
        dtype: Option<&Bound<'_, PyAny>>,
        op: impl FnOnce(&Tensor) -> crate::Result<Tensor> + Send,
    ) -> R {
        let d = extract_dtype(dtype)?;
        let x = self.cast_to(dtype)?;
        super::boundary::tensor(py, || {
            let out = op(&x)?;
            Ok(match d {
                Some(d) if d != out.dtype() => creation::cast_data(&out, d),
                _ => out,
            })
        })
    }
    /// The tensor in the `dtype=` a reduction was asked for (itself when None).
    pub(crate) fn cast_to(&self, dtype: Option<&Bound<'_, PyAny>>) -> PyResult<Tensor> {
        match (dtype, extract_dtype(dtype)?) {
            (Some(o), Some(d)) => super::boundary::run(o.py(), || creation::to_dtype(&self.t, d)),
            _ => Ok(self.t.clone()),
        }
    }
    fn un(&self, py: Python<'_>, op: UnaryOp) -> R {
        super::boundary::tensor_on(py, &[&self.t], || unary(op, &self.t))
    }
    fn inplace(
        slf: &Bound<'_, Self>,
        op: BinaryOp,
        other: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        let o = operand_or_err(other, op.name())?;
        Self::inplace_operand(slf, op, o)
    }

    /// An in-place dunder's write (`t += x` is `t.add_(x)`), or its operand's own
    /// `_inplace_target` (`InPlaceOperand`).
    fn inplace_dunder(
        slf: &Bound<'_, Self>,
        op: BinaryOp,
        method: &str,
        o: InPlaceOperand,
    ) -> PyResult<()> {
        match o {
            InPlaceOperand::Value(o) => Self::inplace_operand(slf, op, o).map(|_| ()),
            InPlaceOperand::Delegate(o) => {
                let o = o.bind(slf.py());
                o.call_method1(pyo3::intern!(slf.py(), "_inplace_target"), (slf, method))
                    .map(|_| ())
            }
        }
    }

    fn inplace_operand(slf: &Bound<'_, Self>, op: BinaryOp, o: Operand) -> PyResult<Py<PyAny>> {
        // In-place writes keep the GIL: writers stay serialized (Note [Storage mutation]).
        let t = slf.borrow().t.clone();
        super::boundary::held(|| {
            // PyTorch's autograd checks come before its kernel's overlap checks.
            inplace::check_inplace_leaf(&t)?;
            crate::ops::inplace::check_write(&t, &o.as_tensor().into_iter().collect::<Vec<_>>())?;
            Ok(inplace::binary_(op, &t, o)?)
        })?;
        Ok(slf.clone().into_any().unbind())
    }
}

#[pymethods]
impl PyTensor {
    /// Legacy constructor: `Tensor(*sizes)`, `Tensor(sequence)`, `Tensor(tensor)`, `Tensor()`.
    #[new]
    #[pyo3(signature = (*args, **kwargs))]
    fn new(args: &Bound<'_, PyTuple>, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<PyTensor> {
        super::boundary::held(|| legacy_new(args, kwargs, crate::dtype::default_float()))
            .map(|t| PyTensor { t })
    }

    /// A tensor made by `Tensor.__new__` (`gradrs.Tensor(...)`, `nn.Parameter`) becomes its
    /// tensor's object here, so the core hands back this very object (`AccumulateGrad.variable`
    /// is the Parameter itself).
    #[pyo3(signature = (*_args, **_kwargs))]
    fn __init__(
        slf: &Bound<'_, Self>,
        _args: &Bound<'_, PyTuple>,
        _kwargs: Option<&Bound<'_, PyDict>>,
    ) {
        let imp = slf.borrow().t.0.clone();
        let _ = imp.binding.compare_exchange(
            0,
            slf.as_ptr() as usize,
            Ordering::AcqRel,
            Ordering::Acquire,
        );
    }
}

/// A dim index into a shape; 0-dim tensors have none (PyTorch's IndexError).
fn dim_of(d: i64, ndim: usize) -> PyResult<usize> {
    if ndim == 0 {
        return Err(super::errors::index_error(format!(
            "Dimension specified as {d} but tensor has no dimensions"
        )));
    }
    Ok(crate::tensor::shape::wrap_dim(d, ndim)?)
}

pub fn to_shape(sizes: &[i64]) -> PyResult<Vec<usize>> {
    sizes
        .iter()
        .map(|&s| {
            if s < 0 {
                Err(super::errors::runtime_error(format!(
                    "Trying to create tensor with negative dimension {s}: {:?}",
                    sizes
                )))
            } else {
                Ok(s as usize)
            }
        })
        .collect()
}

/// The legacy constructors `Tensor(...)`, `FloatTensor(...)`, `LongTensor(...)`.
pub fn legacy_new(
    args: &Bound<'_, PyTuple>,
    kwargs: Option<&Bound<'_, PyDict>>,
    dtype: DType,
) -> PyResult<Tensor> {
    if let Some(kw) = kwargs {
        for (k, _) in kw.iter() {
            let k: String = k.extract()?;
            if k != "device" {
                let got: Vec<String> = args
                    .iter()
                    .map(|a| {
                        a.get_type()
                            .name()
                            .map(|n| n.to_string())
                            .unwrap_or_default()
                    })
                    .chain(std::iter::once(format!("{k}=bool")))
                    .collect();
                return Err(super::errors::type_error(format!(
                    "new() received an invalid combination of arguments - got ({}), but expected one of:\n * (*, gradrs.device device = None)\n      didn't match because some of the keywords were incorrect: {k}\n * (gradrs.Storage storage)\n * (Tensor other)\n * (tuple of ints size, *, gradrs.device device = None)\n * (object data, *, gradrs.device device = None)\n",
                    got.join(", ")
                )));
            }
        }
    }
    if args.is_empty() {
        return Ok(Tensor::zeros(&[0], dtype));
    }
    if args.len() == 1 {
        let a = args.get_item(0)?;
        if let Ok(t) = a.cast::<PyTensor>() {
            return Ok(t.borrow().t.detach());
        }
        if !a.is_instance_of::<pyo3::types::PyInt>() {
            if a.cast::<pyo3::types::PySequence>().is_ok() || a.hasattr("__array_interface__")? {
                return super::convert::tensor_from_data(&a, Some(dtype));
            }
            return Err(super::errors::type_error(format!(
                "new(): data must be a sequence (got {})",
                a.get_type().name()?
            )));
        }
    }
    let mut sizes = Vec::with_capacity(args.len());
    for a in args.iter() {
        if !a.is_instance_of::<pyo3::types::PyInt>() {
            return Err(super::errors::type_error(format!(
                "new(): argument 'size' failed to unpack the object at pos {} with error \"type must be tuple of ints,but got {}\"",
                sizes.len() + 1,
                a.get_type().name()?
            )));
        }
        sizes.push(a.extract::<i64>()?);
    }
    Ok(Tensor::zeros(&to_shape(&sizes)?, dtype))
}
