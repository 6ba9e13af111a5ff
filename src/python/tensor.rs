//! The `Tensor` pyclass: the Python tensor IS this native object; every op goes straight
//! from Python into Rust.

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
    if t.dtype() == DType::F64 && t.device().is_gpu() {
        // Ops compute float64 on the host copy; none may hand a float64 GPU tensor out.
        crate::tensor::device::check_gpu_dtype(DType::F64)?;
    }
    let imp = t.0.clone();
    let obj = Py::new(py, PyTensor { t })?.into_any();
    imp.binding.store(obj.as_ptr() as usize, Ordering::Release);
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
pub(crate) struct InPlaceOperand(Operand);

impl<'a, 'py> FromPyObject<'a, 'py> for InPlaceOperand {
    type Error = PyErr;
    fn extract(obj: pyo3::Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        operand(&obj)
            .map(InPlaceOperand)
            .ok_or_else(|| super::errors::type_error("not a tensor or a number"))
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

/// `size` arguments: ints or one sequence of ints (`view(2, 3)`, `view((2, 3))`).
pub fn sizes_arg(args: &Bound<'_, PyTuple>) -> PyResult<Vec<i64>> {
    if args.len() == 1 {
        let a = args.get_item(0)?;
        if let Ok(v) = a.extract::<Vec<i64>>() {
            return Ok(v);
        }
        if a.is_instance_of::<PyTuple>() || a.is_instance_of::<pyo3::types::PyList>() {
            return a
                .try_iter()?
                .enumerate()
                .map(|(i, v)| size_item(&v?, i))
                .collect();
        }
    }
    args.iter()
        .enumerate()
        .map(|(i, a)| size_item(&a, i))
        .collect()
}

/// One size: an int, with PyTorch's TypeError for an int past int64.
fn size_item(a: &Bound<'_, PyAny>, i: usize) -> PyResult<i64> {
    a.extract::<i64>().map_err(|e| {
        if e.is_instance_of::<pyo3::exceptions::PyOverflowError>(a.py()) {
            super::errors::type_error(format!(
                "argument 'size' failed to unpack the object at pos {} with error \"Overflow when unpacking long long\"",
                i + 1
            ))
        } else {
            e
        }
    })
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
        return sizes_arg(args);
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
    v.extract::<Vec<i64>>().map_err(|_| {
        super::errors::type_error(format!(
            "{op}(): argument '{name}' must be tuple of ints, not {}",
            v.get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })
}

/// `dim` arguments: None, an int, or a sequence of ints.
pub fn dims_arg(dim: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Vec<i64>>> {
    match dim {
        None => Ok(None),
        Some(d) if d.is_none() => Ok(None),
        Some(d) => {
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
        if let Some(Device::Cpu) = super::dtype::check_device(a[0].as_ref())? {
            return Err(super::errors::runtime_error(format!(
                "Invalid device, must be {name} device"
            )));
        }
        Self::moved(slf, Device::Gpu)
    }
    fn bin(&self, py: Python<'_>, op: BinaryOp, other: &Bound<'_, PyAny>) -> R {
        match operand(other) {
            Some(o) => super::boundary::tensor(py, || {
                arithmetic::binary(op, Operand::Tensor(self.t.clone()), o)
            }),
            None => Ok(py.NotImplemented()),
        }
    }
    fn cmp(&self, py: Python<'_>, op: CmpOp, other: &Bound<'_, PyAny>) -> R {
        match operand(other) {
            Some(o) => super::boundary::tensor(py, || {
                compare::compare(op, Operand::Tensor(self.t.clone()), o)
            }),
            None => Ok(py.NotImplemented()),
        }
    }
    fn add_sub(&self, py: Python<'_>, other: &Bound<'_, PyAny>, alpha: NumberArg, sub: bool) -> R {
        let name = if sub { "sub" } else { "add" };
        let o = operand_or_err(other, name)?;
        let alpha = alpha.scalar(py, name, "alpha", Scalar::Int(1))?;
        let a = Operand::Tensor(self.t.clone());
        match alpha {
            Scalar::Int(1) => super::boundary::tensor(py, || {
                arithmetic::binary(if sub { BinaryOp::Sub } else { BinaryOp::Add }, a, o)
            }),
            s => super::boundary::tensor(py, || arithmetic::add_scaled(&self.t, o, s, sub)),
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
        super::boundary::tensor(py, || unary(op, &self.t))
    }
    fn inplace(
        slf: &Bound<'_, Self>,
        op: BinaryOp,
        other: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        let o = operand_or_err(other, op.name())?;
        Self::inplace_operand(slf, op, o)
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

    // ---- attributes -------------------------------------------------------------------------

    #[getter]
    fn shape(&self, py: Python<'_>) -> R {
        helpers::size(py, &self.t.shape())
    }
    #[getter]
    fn dtype(&self, py: Python<'_>) -> Py<super::dtype::PyDType> {
        dtype_object(py, self.t.dtype())
    }
    #[getter]
    fn device(&self) -> PyDevice {
        PyDevice::of(self.t.device())
    }
    /// True on the GPU: `cuda` is gradrs's alias for it, so CUDA code takes its GPU branch.
    #[getter]
    fn is_cuda(&self) -> bool {
        self.t.device().is_gpu()
    }
    #[getter]
    fn is_cpu(&self) -> bool {
        !self.t.device().is_gpu()
    }
    /// Reads the history as `grad_fn` does (a stale view's may raise, as PyTorch's).
    #[getter]
    fn is_leaf(&self) -> PyResult<bool> {
        crate::ops::inplace::try_refresh_view(&self.t)?;
        Ok(self.t.is_leaf())
    }
    #[getter]
    fn get_requires_grad(&self) -> bool {
        self.t.requires_grad()
    }
    #[setter]
    fn set_requires_grad(&self, value: bool) -> PyResult<()> {
        Ok(self.t.set_requires_grad(value)?)
    }
    #[getter]
    fn get_grad(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        if !self.t.is_leaf() && !self.t.retains_grad() {
            helpers::warn_non_leaf_grad(py)?;
        }
        self.t.grad().map(|g| wrap(py, g)).transpose()
    }
    #[setter]
    fn set_grad(&self, value: Option<PyRef<'_, PyTensor>>) -> PyResult<()> {
        if let Some(g) = &value {
            let (gs, ts) = (g.t.shape(), self.t.shape());
            if gs != ts {
                return Err(super::errors::runtime_error(
                    "assigned grad has data of a different size",
                ));
            }
            if g.t.dtype() != self.t.dtype() {
                return Err(super::errors::runtime_error(
                    "assigned grad has data of a different type",
                ));
            }
        }
        self.t.set_grad(value.map(|g| g.t.clone()));
        Ok(())
    }
    #[getter]
    fn grad_fn(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        crate::ops::inplace::try_refresh_view(&self.t)?;
        self.t.grad_fn().map(|n| node_object(py, n)).transpose()
    }
    #[getter]
    fn _base(&self, py: Python<'_>) -> R {
        match self.t.view_base() {
            Some(b) => wrap(py, b.clone()),
            None => Ok(py.None()),
        }
    }
    fn _is_view(&self) -> bool {
        self.t.view_base().is_some()
    }
    #[getter]
    fn get_data(&self, py: Python<'_>) -> R {
        wrap(py, self.t.data_alias())
    }
    #[setter]
    fn set_data(&self, value: PyRef<'_, PyTensor>) {
        self.t.set_data(&value.t);
    }
    #[getter]
    fn ndim(&self) -> usize {
        self.t.dim()
    }
    #[getter(T)]
    fn numpy_t(&self, py: Python<'_>) -> R {
        super::boundary::cheap(py, || movement::numpy_t(&self.t))
    }
    #[getter]
    #[allow(non_snake_case)]
    fn mT(&self, py: Python<'_>) -> R {
        super::boundary::cheap(py, || movement::transpose(&self.t, -2, -1))
    }
    #[getter]
    fn _version(&self) -> PyResult<u64> {
        Ok(self.t.checked_version()?)
    }
    /// Whether this is an inference tensor (Note [Inference mode] in `tensor::grad_mode`).
    fn is_inference(&self) -> bool {
        self.t.is_inference()
    }
    #[getter]
    fn output_nr(&self) -> u32 {
        self.t.output_nr()
    }
    #[getter]
    fn retains_grad(&self) -> bool {
        self.t.retains_grad()
    }

    #[pyo3(signature = (dim=None))]
    fn size(&self, py: Python<'_>, dim: Option<i64>) -> R {
        let shape = self.t.shape();
        match dim {
            None => helpers::size(py, &shape),
            Some(d) => Ok(shape[dim_of(d, shape.len())?].into_py_any(py)?),
        }
    }
    #[pyo3(signature = (dim=None))]
    fn stride(&self, py: Python<'_>, dim: Option<i64>) -> R {
        let s = self.t.strides();
        match dim {
            None => Ok(PyTuple::new(py, s.iter())?.into_any().unbind()),
            Some(d) => Ok(s[dim_of(d, s.len())?].into_py_any(py)?),
        }
    }
    fn storage_offset(&self) -> usize {
        self.t.read().layout.offset
    }
    fn data_ptr(&self) -> usize {
        let d = self.t.read();
        d.storage.data_ptr() as usize + d.layout.offset * d.dtype().itemsize()
    }
    fn dim(&self) -> usize {
        self.t.dim()
    }
    fn ndimension(&self) -> usize {
        self.t.dim()
    }
    fn numel(&self) -> usize {
        self.t.numel()
    }
    fn nelement(&self) -> usize {
        self.t.numel()
    }
    fn element_size(&self) -> usize {
        self.t.dtype().itemsize()
    }
    fn is_floating_point(&self) -> bool {
        self.t.dtype().is_floating_point()
    }
    fn is_contiguous(&self) -> bool {
        self.t.is_contiguous()
    }
    fn item(&self, py: Python<'_>) -> R {
        scalar_to_py(py, self.t.item()?)
    }
    fn tolist(&self, py: Python<'_>) -> R {
        to_list(py, &self.t)
    }
    #[pyo3(
        signature = (force=Flag::FALSE),
        text_signature = "($self, force=False)"
    )]
    fn numpy(slf: &Bound<'_, Self>, force: Flag) -> R {
        let force = force.get("numpy", "force")?;
        let t = &slf.borrow().t;
        if t.device().is_gpu() {
            if force {
                let host = super::boundary::run(slf.py(), || {
                    creation::copy_to_device(&t.detach(), Device::Cpu)
                })?;
                let h = wrap(slf.py(), host)?;
                return helpers::numpy_view(slf.py(), h.bind(slf.py()));
            }
            return Err(super::errors::type_error(format!(
                "can't convert {} device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.",
                t.device().name()
            )));
        }
        if t.requires_grad() && !force {
            return Err(super::errors::runtime_error(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.",
            ));
        }
        helpers::numpy_view(slf.py(), slf.as_any())
    }
    /// What numpy needs to view this tensor's memory without a copy.
    fn _array_interface(&self, py: Python<'_>) -> R {
        let d = self.t.read();
        let item = d.dtype().itemsize();
        let typestr = match d.dtype() {
            DType::F32 => "<f4",
            DType::F64 => "<f8",
            DType::I64 => "<i8",
            DType::I32 => "<i4",
            DType::F16 => "<f2",
            DType::Bool => "|b1",
        };
        let dict = PyDict::new(py);
        dict.set_item("shape", PyTuple::new(py, d.layout.shape.iter())?)?;
        dict.set_item(
            "strides",
            PyTuple::new(py, d.layout.strides.iter().map(|s| s * item as isize))?,
        )?;
        dict.set_item("typestr", typestr)?;
        let ptr = d.storage.data_ptr() as usize + d.layout.offset * item;
        dict.set_item("data", (ptr, false))?;
        dict.set_item("version", 3)?;
        Ok(dict.into_any().unbind())
    }

    // ---- autograd ---------------------------------------------------------------------------

    #[pyo3(signature = (gradient=None, retain_graph=None, create_graph=false, inputs=None))]
    fn backward(
        &self,
        py: Python<'_>,
        gradient: Option<PyRef<'_, PyTensor>>,
        retain_graph: Option<bool>,
        create_graph: bool,
        inputs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let opts = BackwardOptions {
            retain_graph: retain_graph.unwrap_or(create_graph),
            create_graph,
        };
        let inputs = super::autograd::tensor_list(inputs)?;
        if let Some(ins) = &inputs {
            if ins.is_empty() {
                return Err(super::errors::runtime_error(
                    "`inputs` argument to `backward()` cannot be empty.",
                ));
            }
        }
        if create_graph {
            helpers::warn_create_graph_once(py)?;
        }
        let grads = vec![gradient.map(|g| g.t.clone())];
        // The pass runs with the GIL released; hooks and Python backward functions take it
        // back while they run (Note [Binding boundary]).
        super::boundary::run(py, || {
            autograd::backward(
                std::slice::from_ref(&self.t),
                &grads,
                opts,
                inputs.as_deref(),
            )
        })
    }
    fn detach(&self, py: Python<'_>) -> R {
        wrap(py, self.t.detach())
    }
    fn detach_(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        slf.borrow().t.detach_()?;
        Ok(slf.clone().into_any().unbind())
    }
    #[pyo3(
        signature = (requires_grad=Flag::TRUE),
        text_signature = "($self, requires_grad=True)"
    )]
    fn requires_grad_(slf: &Bound<'_, Self>, requires_grad: Flag) -> PyResult<Py<PyAny>> {
        let requires_grad = requires_grad.get("requires_grad_", "requires_grad")?;
        slf.borrow().t.requires_grad_(requires_grad)?;
        Ok(slf.clone().into_any().unbind())
    }
    /// `register_hook(hook)`: `hook(grad)` runs when this tensor's gradient is computed and may
    /// return a replacement (Note [Hook order] in `autograd::hooks`).
    fn register_hook(&self, py: Python<'_>, hook: Py<PyAny>) -> R {
        use crate::autograd::hooks;
        let existing = super::hooks::find_dict(py, &hooks::tensor_hooks(&self.t), |h| h.as_any());
        let dict = match existing {
            Some(d) => d,
            None => {
                let d = super::hooks::new_dict(py)?;
                let hd = super::hooks::HookDict {
                    dict: d.clone_ref(py),
                };
                let hd = std::sync::Arc::new(hd);
                super::boundary::catch(|| hooks::register_tensor_hook(&self.t, hd))?;
                d
            }
        };
        super::hooks::add_hook(py, &dict, hook)
    }
    /// `register_post_accumulate_grad_hook(hook)`: `hook(tensor)` after `.grad` was updated.
    fn register_post_accumulate_grad_hook(&self, py: Python<'_>, hook: Py<PyAny>) -> R {
        use crate::autograd::hooks;
        let existing =
            super::hooks::find_dict(py, &hooks::post_accumulate_grad_hooks(&self.t), |h| {
                h.as_any()
            });
        let dict = match existing {
            Some(d) => d,
            None => {
                let d = super::hooks::new_dict(py)?;
                let hd = super::hooks::HookDict {
                    dict: d.clone_ref(py),
                };
                hooks::register_post_accumulate_grad_hook(&self.t, std::sync::Arc::new(hd))?;
                d
            }
        };
        super::hooks::add_hook(py, &dict, hook)
    }
    /// The `OrderedDict` of hooks registered since this tensor's history last changed.
    #[getter]
    fn _backward_hooks(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        let hooks = crate::autograd::hooks::tensor_hooks(&self.t);
        super::hooks::find_dict(py, &hooks, |h| h.as_any())
    }
    #[getter]
    fn _post_accumulate_grad_hooks(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        let hooks = crate::autograd::hooks::post_accumulate_grad_hooks(&self.t);
        super::hooks::find_dict(py, &hooks, |h| h.as_any())
    }
    fn retain_grad(&self) -> PyResult<()> {
        if !self.t.requires_grad() {
            return Err(super::errors::runtime_error(
                "can't retain_grad on Tensor that has requires_grad=False",
            ));
        }
        if let Some(node) = self.t.grad_fn() {
            if !self.t.retains_grad() {
                let (nr, weak) = (self.t.output_nr(), std::sync::Arc::downgrade(&self.t.0));
                node.with(|n| n.retained.push((nr, weak)));
                self.t.set_retains_grad();
            }
        }
        Ok(())
    }

    // ---- copies, casts, in-place fills -------------------------------------------------------

    fn clone(&self, py: Python<'_>) -> R {
        super::boundary::tensor(py, || Ok(creation::clone(&self.t)))
    }
    fn contiguous(&self, py: Python<'_>) -> R {
        super::boundary::tensor(py, || Ok(creation::contiguous(&self.t)))
    }
    /// `to(device=None, dtype=None, non_blocking=False, copy=False)`, `to(dtype, ...)`,
    /// `to(other, ...)`, matched as PyTorch's parser does.
    #[pyo3(signature = (*args, **kwargs))]
    fn to(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> R {
        use super::parse::{opt, parse, python_type_dtype, req, Kind, Signature};
        const NB: super::parse::Param = opt("non_blocking", Kind::Bool, false, false);
        const COPY: super::parse::Param = opt("copy", Kind::Bool, false, false);
        const MF: super::parse::Param = opt("memory_format", Kind::MemoryFormat, true, true);
        const SIGS: [Signature; 3] = [
            Signature {
                params: &[
                    opt("device", Kind::Device, true, false),
                    opt("dtype", Kind::DType, true, false),
                    NB,
                    COPY,
                    MF,
                ],
                text: "(gradrs.device device = None, gradrs.dtype dtype = None, bool non_blocking = False, bool copy = False, *, gradrs.memory_format memory_format = None)",
            },
            Signature {
                params: &[req("dtype", Kind::DType), NB, COPY, MF],
                text: "(gradrs.dtype dtype, bool non_blocking = False, bool copy = False, *, gradrs.memory_format memory_format = None)",
            },
            Signature {
                params: &[req("tensor", Kind::Tensor), NB, COPY, MF],
                text: "(Tensor tensor, bool non_blocking = False, bool copy = False, *, gradrs.memory_format memory_format = None)",
            },
        ];
        let py = slf.py();
        let (which, a) = parse("to", &SIGS, args, kwargs, true)?;
        let dtype_of = |o: &Option<Bound<'_, PyAny>>| -> PyResult<Option<DType>> {
            match o {
                Some(o) if !o.is_none() => match python_type_dtype(o) {
                    Some(d) => Ok(Some(d)),
                    None => extract_dtype(Some(o)),
                },
                _ => Ok(None),
            }
        };
        let (device, dtype) = match which {
            0 => (super::dtype::check_device(a[0].as_ref())?, dtype_of(&a[1])?),
            1 => (None, dtype_of(&a[0])?),
            _ => {
                let o = a[0].as_ref().expect("required");
                match o.cast::<PyTensor>() {
                    Ok(o) => {
                        let o = &o.borrow().t;
                        (Some(o.device()), Some(o.dtype()))
                    }
                    // A number stands for a 0-dim CPU tensor: float64, int64 or bool.
                    Err(_) => {
                        let s = extract_scalar(o).expect("the parser took a number");
                        let d = match s {
                            Scalar::Bool(_) => DType::Bool,
                            Scalar::Int(_) => DType::I64,
                            Scalar::Float(_) => DType::F64,
                        };
                        (Some(Device::Cpu), Some(d))
                    }
                }
            }
        };
        let copy_at = if which == 0 { 3 } else { 2 };
        let copy = a[copy_at]
            .as_ref()
            .is_some_and(|c| c.is_truthy().unwrap_or(false));
        let t = slf.borrow().t.clone();
        let moved = match device {
            Some(d) => super::boundary::run(py, || creation::to_device(&t, d))?,
            None => t.clone(),
        };
        let out = match dtype {
            Some(d) => super::boundary::run(py, || creation::to_dtype(&moved, d))?,
            None => moved,
        };
        if out.ptr_eq(&t) {
            if copy {
                return super::boundary::tensor(py, || Ok(creation::to_copy(&t)));
            }
            return Ok(slf.clone().into_any().unbind());
        }
        wrap(py, out)
    }
    fn float(&self, py: Python<'_>) -> R {
        super::boundary::tensor(py, || creation::to_dtype(&self.t, DType::F32))
    }
    fn double(&self, py: Python<'_>) -> R {
        super::boundary::tensor(py, || creation::to_dtype(&self.t, DType::F64))
    }
    /// `x.type()`: the legacy type name (`gradrs.FloatTensor`, `gradrs.cuda.FloatTensor` on
    /// the GPU); `x.type(dtype)` / `x.type("gradrs.IntTensor")`: a cast.
    #[pyo3(signature = (dtype=None, non_blocking=false))]
    fn r#type(
        slf: &Bound<'_, Self>,
        dtype: Option<&Bound<'_, PyAny>>,
        non_blocking: bool,
    ) -> PyResult<Py<PyAny>> {
        let _ = non_blocking;
        let py = slf.py();
        let t = slf.borrow().t.clone();
        let Some(dtype) = dtype.filter(|d| !d.is_none()) else {
            let cuda = if t.device().is_gpu() { "cuda." } else { "" };
            let name = format!("gradrs.{cuda}{}", t.dtype().legacy_name());
            return name.into_py_any(py);
        };
        let target = match dtype.extract::<String>() {
            Ok(name) => {
                let legacy = name
                    .strip_prefix("gradrs.")
                    .or_else(|| name.strip_prefix("torch."))
                    .and_then(|n| DType::ALL.into_iter().find(|d| d.legacy_name() == n));
                legacy
                    .ok_or_else(|| super::errors::value_error(format!("invalid type: '{name}'")))?
            }
            Err(_) => extract_dtype(Some(dtype))?.expect("not None"),
        };
        if target == t.dtype() {
            return Ok(slf.clone().into_any().unbind());
        }
        super::boundary::tensor(py, || creation::to_dtype(&t, target))
    }
    fn long(&self, py: Python<'_>) -> R {
        super::boundary::tensor(py, || creation::to_dtype(&self.t, DType::I64))
    }
    fn int(&self, py: Python<'_>) -> R {
        super::boundary::tensor(py, || creation::to_dtype(&self.t, DType::I32))
    }
    fn half(&self, py: Python<'_>) -> R {
        super::boundary::tensor(py, || creation::to_dtype(&self.t, DType::F16))
    }
    fn bool(&self, py: Python<'_>) -> R {
        super::boundary::tensor(py, || creation::to_dtype(&self.t, DType::Bool))
    }
    fn type_as(&self, py: Python<'_>, other: PyRef<'_, PyTensor>) -> R {
        let d = other.t.dtype();
        super::boundary::tensor(py, || creation::to_dtype(&self.t, d))
    }
    /// The tensor on the CPU: itself if already there, else a copy (ToCopyBackward0).
    #[pyo3(signature = (*args, **kwargs), text_signature = "($self, *, memory_format=None)")]
    fn cpu(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> R {
        use super::parse::{opt, parse, Kind, Signature};
        const SIGS: [Signature; 1] = [Signature {
            params: &[opt("memory_format", Kind::MemoryFormat, true, true)],
            text: "(*, gradrs.memory_format memory_format = None)",
        }];
        parse("cpu", &SIGS, args, kwargs, false)?;
        Self::moved(slf, Device::Cpu)
    }
    /// The tensor on the GPU (`cuda` is its alias); `device` may only name the one GPU.
    #[pyo3(signature = (*args, **kwargs))]
    fn gpu(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> R {
        Self::to_gpu(slf, "gpu", args, kwargs)
    }
    #[pyo3(signature = (*args, **kwargs))]
    fn cuda(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> R {
        Self::to_gpu(slf, "cuda", args, kwargs)
    }
    fn zero_(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        let t = &slf.borrow().t;
        super::boundary::catch(|| crate::ops::inplace::fill_(t, Scalar::Int(0), true))?;
        Ok(slf.clone().into_any().unbind())
    }
    fn fill_(slf: &Bound<'_, Self>, value: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        // PyTorch's two overloads: fill_(Tensor value) copies a 0-dim tensor, fill_(Number).
        if let Ok(v) = value.cast::<PyTensor>() {
            let v = v.borrow().t.clone();
            super::boundary::catch(|| crate::ops::inplace::fill_tensor_(&slf.borrow().t, &v))?;
            return Ok(slf.clone().into_any().unbind());
        }
        let s = extract_scalar(value).ok_or_else(|| {
            let got = super::convert::arg_desc(value);
            super::errors::type_error(format!(
                "fill_() received an invalid combination of arguments - got ({}), but expected one of:\n * (Tensor value)\n      didn't match because some of the arguments have invalid types: (!{got}!)\n * (Number value)\n      didn't match because some of the arguments have invalid types: (!{got}!)\n",
                super::convert::type_name(value)
            ))
        })?;
        super::boundary::catch(|| crate::ops::inplace::fill_(&slf.borrow().t, s, false))?;
        Ok(slf.clone().into_any().unbind())
    }
    fn copy_(slf: &Bound<'_, Self>, src: PyRef<'_, PyTensor>) -> PyResult<Py<PyAny>> {
        super::boundary::catch(|| crate::ops::inplace::copy_(&slf.borrow().t, &src.t))?;
        Ok(slf.clone().into_any().unbind())
    }
    #[pyo3(signature = (*size, **kwargs), text_signature = "($self, *size)")]
    fn new_zeros(
        &self,
        py: Python<'_>,
        size: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> R {
        let shape = to_shape(&sizes_or_keyword("new_zeros", "size", size, kwargs)?)?;
        super::boundary::tensor(py, || {
            Ok(Tensor::zeros_on(&shape, self.t.dtype(), self.t.device()))
        })
    }
    #[pyo3(signature = (*size, **kwargs), text_signature = "($self, *size)")]
    fn new_ones(
        &self,
        py: Python<'_>,
        size: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> R {
        let shape = to_shape(&sizes_or_keyword("new_ones", "size", size, kwargs)?)?;
        super::boundary::tensor(py, || {
            Ok(Tensor::full_on(
                &shape,
                Scalar::Int(1),
                self.t.dtype(),
                self.t.device(),
            ))
        })
    }
    #[pyo3(
        signature = (data, dtype=None, requires_grad=Flag::FALSE),
        text_signature = "($self, data, dtype=None, requires_grad=False)"
    )]
    fn new_tensor(
        &self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        dtype: Option<&Bound<'_, PyAny>>,
        requires_grad: Flag,
    ) -> R {
        let requires_grad = requires_grad.get("new_tensor", "requires_grad")?;
        let d = extract_dtype(dtype)?.unwrap_or(self.t.dtype());
        let t = super::convert::tensor_from_data(data, Some(d))?;
        let t = super::boundary::run(py, || creation::copy_to_device(&t, self.t.device()))?;
        t.set_requires_grad_from(requires_grad, crate::tensor::GradSetter::Factory)?;
        wrap(py, t)
    }

    // ---- Python protocol --------------------------------------------------------------------

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        helpers::repr(slf.py(), slf.as_any())
    }
    fn __str__(slf: &Bound<'_, Self>) -> PyResult<String> {
        helpers::repr(slf.py(), slf.as_any())
    }
    fn __format__(slf: &Bound<'_, Self>, spec: &str) -> PyResult<String> {
        let t = &slf.borrow().t;
        if t.dim() == 0 {
            let v = scalar_to_py(slf.py(), t.item()?)?;
            return v
                .bind(slf.py())
                .call_method1("__format__", (spec,))?
                .extract();
        }
        let s = helpers::repr(slf.py(), slf.as_any())?;
        s.into_pyobject(slf.py())?
            .call_method1("__format__", (spec,))?
            .extract()
    }
    fn __len__(&self) -> PyResult<usize> {
        let shape = self.t.shape();
        if shape.is_empty() {
            return Err(super::errors::type_error("len() of a 0-d tensor"));
        }
        Ok(shape[0])
    }
    fn __hash__(slf: &Bound<'_, Self>) -> isize {
        slf.as_ptr() as isize
    }
    fn __bool__(&self) -> PyResult<bool> {
        let n = self.t.numel();
        if n != 1 {
            return Err(super::errors::runtime_error(if n == 0 {
                "Boolean value of Tensor with no values is ambiguous"
            } else {
                "Boolean value of Tensor with more than one value is ambiguous"
            }));
        }
        Ok(self.t.item()?.to_f64() != 0.0)
    }
    /// `equal(other)`: same size and values (`gradrs.equal`).
    #[pyo3(signature = (*args, **kwargs))]
    fn equal(
        &self,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<bool> {
        use super::parse::{parse, req, Kind, Signature};
        const SIGS: [Signature; 1] = [Signature {
            params: &[req("other", Kind::Tensor)],
            text: "",
        }];
        let (_, a) = parse("equal", &SIGS, args, kwargs, false)?;
        let other = a[0]
            .as_ref()
            .expect("required")
            .cast::<PyTensor>()?
            .borrow()
            .t
            .clone();
        super::boundary::run(args.py(), || compare::equal(&self.t, &other))
    }
    fn __float__(&self, py: Python<'_>) -> PyResult<f64> {
        if self.t.requires_grad() && autograd::is_grad_enabled() {
            helpers::warn_scalar_requires_grad_once(py)?;
        }
        Ok(self.python_scalar()?.to_f64())
    }
    /// A float goes through Python's `int(float)`: NaN and infinities raise, large values
    /// stay exact (PyTorch's conversion).
    fn __int__(&self, py: Python<'_>) -> R {
        match self.python_scalar()? {
            Scalar::Float(v) => Ok(pyo3::types::PyFloat::new(py, v)
                .call_method0("__int__")?
                .unbind()),
            s => s.to_i64().into_py_any(py),
        }
    }
    fn __index__(&self) -> PyResult<i64> {
        if self.t.dtype().is_floating_point() || self.t.numel() != 1 {
            return Err(super::errors::type_error(
                "only integer tensors of a single element can be converted to an index",
            ));
        }
        Ok(self.t.item()?.to_i64())
    }
    #[pyo3(signature = (dtype=None, copy=None))]
    fn __array__(slf: &Bound<'_, Self>, dtype: Option<&Bound<'_, PyAny>>, copy: Option<bool>) -> R {
        let _ = copy;
        if slf.borrow().t.device().is_gpu() {
            slf.call_method0("numpy")?;
        }
        let arr = helpers::numpy_view(slf.py(), slf.as_any())?;
        match dtype {
            Some(d) if !d.is_none() => Ok(arr.call_method1(slf.py(), "astype", (d,))?),
            _ => Ok(arr),
        }
    }

    // ---- arithmetic -------------------------------------------------------------------------

    fn __add__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> R {
        self.bin(py, BinaryOp::Add, o)
    }
    fn __radd__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> R {
        self.bin(py, BinaryOp::Add, o)
    }
    fn __sub__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> R {
        self.bin(py, BinaryOp::Sub, o)
    }
    fn __rsub__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> R {
        match operand(o) {
            Some(o) => super::boundary::tensor(py, || arithmetic::rsub(&self.t, o)),
            None => Ok(py.NotImplemented()),
        }
    }
    fn __mul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> R {
        self.bin(py, BinaryOp::Mul, o)
    }
    fn __rmul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> R {
        self.bin(py, BinaryOp::Mul, o)
    }
    fn __truediv__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> R {
        self.bin(py, BinaryOp::Div, o)
    }
    fn __rtruediv__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> R {
        let py = slf.py();
        match operand(o) {
            Some(o) => {
                let t = slf.borrow().t.clone();
                super::boundary::tensor(py, || arithmetic::rdiv(&t, o))
            }
            // PyTorch's `__rdiv__` for anything else (an ndarray: numpy's multiply runs):
            // `self.reciprocal() * other`, a TypeError turned into NotImplemented.
            None => match slf.call_method0("reciprocal")?.mul(o) {
                Ok(r) => Ok(r.unbind()),
                Err(e) if e.is_instance_of::<pyo3::exceptions::PyTypeError>(py) => {
                    Ok(py.NotImplemented())
                }
                Err(e) => Err(e),
            },
        }
    }
    fn __pow__(
        &self,
        py: Python<'_>,
        o: &Bound<'_, PyAny>,
        modulo: Option<&Bound<'_, PyAny>>,
    ) -> R {
        let _ = modulo;
        self.bin(py, BinaryOp::Pow, o)
    }
    fn __rpow__(
        &self,
        py: Python<'_>,
        o: &Bound<'_, PyAny>,
        modulo: Option<&Bound<'_, PyAny>>,
    ) -> R {
        let _ = modulo;
        match operand(o) {
            Some(o) => super::boundary::tensor(py, || {
                arithmetic::binary(BinaryOp::Pow, o, Operand::Tensor(self.t.clone()))
            }),
            None => Ok(py.NotImplemented()),
        }
    }
    fn __matmul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> R {
        match o.cast::<PyTensor>() {
            Ok(o) => {
                let b = o.borrow().t.clone();
                super::boundary::tensor(py, || matmul::matmul(&self.t, &b))
            }
            Err(_) => Ok(py.NotImplemented()),
        }
    }
    fn __rmatmul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> R {
        match o.cast::<PyTensor>() {
            Ok(o) => {
                let a = o.borrow().t.clone();
                super::boundary::tensor(py, || matmul::matmul(&a, &self.t))
            }
            Err(_) => Ok(py.NotImplemented()),
        }
    }
    fn __iadd__(slf: &Bound<'_, Self>, o: InPlaceOperand) -> PyResult<()> {
        Self::inplace_operand(slf, BinaryOp::Add, o.0).map(|_| ())
    }
    fn __isub__(slf: &Bound<'_, Self>, o: InPlaceOperand) -> PyResult<()> {
        Self::inplace_operand(slf, BinaryOp::Sub, o.0).map(|_| ())
    }
    fn __imul__(slf: &Bound<'_, Self>, o: InPlaceOperand) -> PyResult<()> {
        Self::inplace_operand(slf, BinaryOp::Mul, o.0).map(|_| ())
    }
    fn __itruediv__(slf: &Bound<'_, Self>, o: InPlaceOperand) -> PyResult<()> {
        Self::inplace_operand(slf, BinaryOp::Div, o.0).map(|_| ())
    }
    /// `t **= x` is `t.pow_(x)` (PyTorch's `__ipow__` is `pow_`), NotImplemented for an
    /// exponent that is no tensor or number.
    fn __ipow__(
        slf: &Bound<'_, Self>,
        o: InPlaceOperand,
        modulo: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let _ = modulo;
        Self::inplace_operand(slf, BinaryOp::Pow, o.0).map(|_| ())
    }
    fn __neg__(&self, py: Python<'_>) -> R {
        self.un(py, UnaryOp::Neg)
    }
    fn __pos__(slf: &Bound<'_, Self>) -> Py<PyAny> {
        slf.clone().into_any().unbind()
    }
    fn __abs__(&self, py: Python<'_>) -> R {
        self.un(py, UnaryOp::Abs)
    }
    fn __eq__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> R {
        // PyTorch compares with an ndarray elementwise (converted as `from_numpy` would); one
        // it cannot convert gives NotImplemented, so Python falls back to identity.
        if o.get_type().name().is_ok_and(|n| n == "ndarray") {
            return match super::convert::from_numpy(o) {
                Ok(t) => super::boundary::tensor(py, || {
                    compare::compare(
                        CmpOp::Eq,
                        Operand::Tensor(self.t.clone()),
                        Operand::Tensor(t),
                    )
                }),
                Err(e) if e.is_instance_of::<pyo3::exceptions::PyTypeError>(py) => {
                    Ok(py.NotImplemented())
                }
                Err(e) => Err(e),
            };
        }
        self.cmp(py, CmpOp::Eq, o)
    }
    fn __ne__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> R {
        self.cmp(py, CmpOp::Ne, o)
    }
    fn __lt__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> R {
        self.cmp(py, CmpOp::Lt, o)
    }
    fn __le__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> R {
        self.cmp(py, CmpOp::Le, o)
    }
    fn __gt__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> R {
        self.cmp(py, CmpOp::Gt, o)
    }
    fn __ge__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> R {
        self.cmp(py, CmpOp::Ge, o)
    }

    // ---- named ops --------------------------------------------------------------------------

    // pyo3 shows a default that is no literal (`-1`, `NumberArg::Absent`) as `...` in
    // `__text_signature__`; `text_signature` gives Python (`inspect`, `help`, mypy.stubtest) the
    // real one, here and wherever such a default appears.
    #[pyo3(signature = (other, *, alpha=NumberArg::Absent), text_signature = "($self, other, *, alpha=1)")]
    fn add(&self, py: Python<'_>, other: &Bound<'_, PyAny>, alpha: NumberArg) -> R {
        self.add_sub(py, other, alpha, false)
    }
    #[pyo3(signature = (other, *, alpha=NumberArg::Absent), text_signature = "($self, other, *, alpha=1)")]
    fn sub(&self, py: Python<'_>, other: &Bound<'_, PyAny>, alpha: NumberArg) -> R {
        self.add_sub(py, other, alpha, true)
    }
    fn mul(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
        let o = operand_or_err(other, "mul")?;
        super::boundary::tensor(py, || {
            arithmetic::binary(BinaryOp::Mul, Operand::Tensor(self.t.clone()), o)
        })
    }
    #[pyo3(
        signature = (other, *, rounding_mode=RoundingMode::Absent),
        text_signature = "($self, other, *, rounding_mode=None)"
    )]
    fn div(&self, py: Python<'_>, other: &Bound<'_, PyAny>, rounding_mode: RoundingMode) -> R {
        let a = Operand::Tensor(self.t.clone());
        match rounding_mode {
            RoundingMode::Absent => {}
            // PyTorch's div.Tensor_mode overload: DivBackward2.
            RoundingMode::Given(None) => {
                let o = operand_or_err(other, "div")?;
                return super::boundary::tensor(py, || arithmetic::div_mode_none(a, o));
            }
            RoundingMode::Given(Some(mode)) => {
                let o = operand_or_err(other, "div")?;
                return super::boundary::tensor(py, || {
                    crate::ops::divmod::div_rounding(&a, &o, &mode)
                });
            }
        }
        let o = operand_or_err(other, "div")?;
        super::boundary::tensor(py, || arithmetic::binary(BinaryOp::Div, a, o))
    }
    fn pow(&self, py: Python<'_>, exponent: &Bound<'_, PyAny>) -> R {
        let o = operand(exponent).ok_or_else(|| pow_type_error("pow", exponent))?;
        super::boundary::tensor(py, || {
            arithmetic::binary(BinaryOp::Pow, Operand::Tensor(self.t.clone()), o)
        })
    }
    /// `self ** exponent` written into `self` (PowBackward0 for a number, PowBackward1 for a
    /// tensor, as `pow` records; a result dtype `self` cannot hold is refused).
    fn pow_(slf: &Bound<'_, Self>, exponent: &Bound<'_, PyAny>) -> R {
        let o = operand(exponent).ok_or_else(|| pow_type_error("pow_", exponent))?;
        Self::inplace_operand(slf, BinaryOp::Pow, o)
    }
    #[pyo3(signature = (other, *, alpha=NumberArg::Absent), text_signature = "($self, other, *, alpha=1)")]
    fn add_(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>, alpha: NumberArg) -> R {
        Self::add_sub_(slf, other, alpha, false)
    }
    #[pyo3(signature = (other, *, alpha=NumberArg::Absent), text_signature = "($self, other, *, alpha=1)")]
    fn sub_(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>, alpha: NumberArg) -> R {
        Self::add_sub_(slf, other, alpha, true)
    }
    fn mul_(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> R {
        Self::inplace(slf, BinaryOp::Mul, other)
    }
    #[pyo3(
        signature = (other, *, rounding_mode=RoundingMode::Absent),
        text_signature = "($self, other, *, rounding_mode=None)"
    )]
    fn div_(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>, rounding_mode: RoundingMode) -> R {
        let mode = match rounding_mode {
            RoundingMode::Absent => return Self::inplace(slf, BinaryOp::Div, other),
            RoundingMode::Given(mode) => mode,
        };
        let o = operand_or_err(other, "div_")?;
        let ot = o.edge_tensor(DType::F32);
        super::pointwise::in_place_with(slf, &[&ot], |x| {
            let a = Operand::Tensor(x.clone());
            match &mode {
                // PyTorch's div.Tensor_mode overload (DivBackward2), as `div` records it.
                None => arithmetic::div_mode_none(a, o),
                Some(m) => crate::ops::divmod::div_rounding(&a, &o, m),
            }
        })
    }
    #[pyo3(
        signature = (dim=None, keepdim=Flag::FALSE, dtype=None),
        text_signature = "($self, dim=None, keepdim=False, dtype=None)"
    )]
    fn sum(
        &self,
        py: Python<'_>,
        dim: Option<&Bound<'_, PyAny>>,
        keepdim: Flag,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> R {
        let keepdim = keepdim.get("sum", "keepdim")?;
        let dims = dims_arg(dim)?;
        let x = self.cast_to(dtype)?;
        let d = extract_dtype(dtype)?;
        super::boundary::tensor(py, || {
            let out = reduce::sum(&x, dims.as_deref(), keepdim)?;
            Ok(match d {
                Some(d) if d != out.dtype() => creation::cast_data(&out, d),
                _ => out,
            })
        })
    }
    #[pyo3(
        signature = (dim=None, keepdim=Flag::FALSE, dtype=None),
        text_signature = "($self, dim=None, keepdim=False, dtype=None)"
    )]
    fn mean(
        &self,
        py: Python<'_>,
        dim: Option<&Bound<'_, PyAny>>,
        keepdim: Flag,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> R {
        let keepdim = keepdim.get("mean", "keepdim")?;
        if let Some(d) = extract_dtype(dtype)?.filter(|d| !d.is_floating_point()) {
            return Err(super::errors::runtime_error(format!(
                "mean(): could not infer output dtype. Optional dtype must be either a floating point or complex dtype. Got: {}",
                crate::dtype::pretty_kernel_name(d)
            )));
        }
        let x = self.cast_to(dtype)?;
        let dims = dims_arg(dim)?;
        super::boundary::tensor(py, || reduce::mean(&x, dims.as_deref(), keepdim))
    }
    fn matmul(&self, py: Python<'_>, other: PyRef<'_, PyTensor>) -> R {
        let b = other.t.clone();
        super::boundary::tensor(py, || matmul::matmul(&self.t, &b))
    }
    fn mm(&self, py: Python<'_>, mat2: PyRef<'_, PyTensor>) -> R {
        let b = mat2.t.clone();
        super::boundary::tensor(py, || matmul::mm(&self.t, &b))
    }
    #[pyo3(
        signature = (mat1, mat2, *, beta=NumberArg::Absent, alpha=NumberArg::Absent),
        text_signature = "($self, mat1, mat2, *, beta=1, alpha=1)"
    )]
    fn addmm(
        &self,
        py: Python<'_>,
        mat1: PyRef<'_, PyTensor>,
        mat2: PyRef<'_, PyTensor>,
        beta: NumberArg,
        alpha: NumberArg,
    ) -> R {
        let beta = beta.scalar(py, "addmm", "beta", Scalar::Int(1))?;
        let alpha = alpha.scalar(py, "addmm", "alpha", Scalar::Int(1))?;
        let (m1, m2) = (mat1.t.clone(), mat2.t.clone());
        super::boundary::tensor(py, || matmul::addmm(&self.t, &m1, &m2, beta, alpha))
    }
    fn bmm(&self, py: Python<'_>, mat2: PyRef<'_, PyTensor>) -> R {
        let b = mat2.t.clone();
        super::boundary::tensor(py, || matmul::bmm(&self.t, &b))
    }
    fn mv(&self, py: Python<'_>, vec: PyRef<'_, PyTensor>) -> R {
        let b = vec.t.clone();
        super::boundary::tensor(py, || matmul::mv(&self.t, &b))
    }
    fn dot(&self, py: Python<'_>, other: PyRef<'_, PyTensor>) -> R {
        let b = other.t.clone();
        super::boundary::tensor(py, || matmul::dot(&self.t, &b))
    }
    #[pyo3(signature = (*shape))]
    fn view(&self, py: Python<'_>, shape: &Bound<'_, PyTuple>) -> R {
        if shape.len() == 1 {
            if let Ok(d) = shape.get_item(0)?.cast::<super::dtype::PyDType>() {
                if d.get().d != self.t.dtype() {
                    return Err(super::errors::runtime_error(
                        "view(dtype) is not supported yet",
                    ));
                }
                return super::boundary::cheap(py, || {
                    movement::view(&self.t, &sizes_i64(&self.t.shape()))
                });
            }
        }
        wrap(
            py,
            super::boundary::held(|| Ok(movement::view(&self.t, &sizes_arg(shape)?)?))?,
        )
    }
    /// `reshape(*shape)` or `reshape(shape=...)`: a copy where no view fits, so the GIL is
    /// released.
    #[pyo3(signature = (*shape, **kwargs), text_signature = "($self, *shape)")]
    fn reshape(
        &self,
        py: Python<'_>,
        shape: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> R {
        let sizes = sizes_or_keyword("reshape", "shape", shape, kwargs)?;
        super::boundary::tensor(py, || movement::reshape(&self.t, &sizes))
    }
    fn view_as(&self, py: Python<'_>, other: PyRef<'_, PyTensor>) -> R {
        let s = sizes_i64(&other.t.shape());
        super::boundary::cheap(py, || movement::view(&self.t, &s))
    }
    fn reshape_as(&self, py: Python<'_>, other: PyRef<'_, PyTensor>) -> R {
        let s = sizes_i64(&other.t.shape());
        super::boundary::tensor(py, || movement::reshape(&self.t, &s))
    }
    fn t(&self, py: Python<'_>) -> R {
        super::boundary::cheap(py, || movement::t(&self.t))
    }
    fn transpose(&self, py: Python<'_>, dim0: i64, dim1: i64) -> R {
        super::boundary::cheap(py, || movement::transpose(&self.t, dim0, dim1))
    }
    #[pyo3(signature = (*dims, **kwargs), text_signature = "($self, *dims)")]
    fn permute(
        &self,
        py: Python<'_>,
        dims: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> R {
        let dims = sizes_or_keyword("permute", "dims", dims, kwargs)?;
        wrap(
            py,
            super::boundary::held(|| Ok(movement::permute(&self.t, &dims)?))?,
        )
    }
    #[pyo3(signature = (*sizes, **kwargs), text_signature = "($self, *sizes)")]
    fn expand(
        &self,
        py: Python<'_>,
        sizes: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> R {
        let sizes = sizes_or_keyword("expand", "size", sizes, kwargs)?;
        wrap(
            py,
            super::boundary::held(|| Ok(movement::expand(&self.t, &sizes)?))?,
        )
    }
    fn expand_as(&self, py: Python<'_>, other: PyRef<'_, PyTensor>) -> R {
        let s = sizes_i64(&other.t.shape());
        super::boundary::cheap(py, || movement::expand(&self.t, &s))
    }
    fn unsqueeze(&self, py: Python<'_>, dim: i64) -> R {
        super::boundary::cheap(py, || movement::unsqueeze(&self.t, dim))
    }
    /// `unfold(dimension, size, step)`: a view of the windows along `dimension`.
    fn unfold(&self, py: Python<'_>, dimension: i64, size: i64, step: i64) -> R {
        super::boundary::cheap(py, || movement::unfold(&self.t, dimension, size, step))
    }
    #[pyo3(signature = (dim=None))]
    fn squeeze(&self, py: Python<'_>, dim: Option<&Bound<'_, PyAny>>) -> R {
        let Some(dim) = dim.filter(|d| !d.is_none()) else {
            return super::boundary::cheap(py, || movement::squeeze(&self.t, None));
        };
        // A tuple or list of dims is the `squeeze(dims)` overload (PyTorch >= 2.0).
        if dim.is_instance_of::<pyo3::types::PyTuple>()
            || dim.is_instance_of::<pyo3::types::PyList>()
        {
            let dims: Vec<i64> = dim.extract()?;
            return super::boundary::cheap(py, || movement::squeeze_dims(&self.t, &dims));
        }
        wrap(
            py,
            super::boundary::held(|| Ok(movement::squeeze(&self.t, Some(dim.extract()?))?))?,
        )
    }
    #[pyo3(signature = (start_dim=0, end_dim=-1), text_signature = "($self, start_dim=0, end_dim=-1)")]
    fn flatten(&self, py: Python<'_>, start_dim: i64, end_dim: i64) -> R {
        let shape = self.t.shape();
        if shape.is_empty() {
            return super::boundary::cheap(py, || movement::reshape(&self.t, &[1]));
        }
        let s = crate::tensor::shape::wrap_dim(start_dim, shape.len())?;
        let e = crate::tensor::shape::wrap_dim(end_dim, shape.len())?;
        if s > e {
            return Err(super::errors::runtime_error(
                "flatten() has invalid args: start_dim cannot come after end_dim",
            ));
        }
        if s == e {
            return wrap(py, self.t.clone());
        }
        let mut new: Vec<i64> = shape[..s].iter().map(|&x| x as i64).collect();
        new.push(shape[s..=e].iter().product::<usize>() as i64);
        new.extend(shape[e + 1..].iter().map(|&x| x as i64));
        super::boundary::cheap(py, || movement::reshape(&self.t, &new))
    }
    fn eq(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
        self.cmp(py, CmpOp::Eq, other)
    }
    fn ne(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
        self.cmp(py, CmpOp::Ne, other)
    }
    fn lt(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
        self.cmp(py, CmpOp::Lt, other)
    }
    fn le(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
        self.cmp(py, CmpOp::Le, other)
    }
    fn gt(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
        self.cmp(py, CmpOp::Gt, other)
    }
    fn ge(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> R {
        self.cmp(py, CmpOp::Ge, other)
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
