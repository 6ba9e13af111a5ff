//! Tensor copies, casts and moves (clone, to, float, cpu, gpu, ...), in-place fills (zero_,
//! fill_, copy_) and new_* factories.

use super::*;

#[pymethods]
impl PyTensor {
    // ---- copies, casts, in-place fills -------------------------------------------------------

    /// A copy of the tensor with its own storage; gradients flow back to the original.
    /// `memory_format=gradrs.preserve_format` (the default) keeps a dense tensor's strides.
    #[pyo3(signature = (*, memory_format=None))]
    fn clone(&self, py: Python<'_>, memory_format: Option<&Bound<'_, PyAny>>) -> R {
        let fmt = crate::python::parse::memory_format_arg(memory_format, "clone")?;
        crate::python::boundary::tensor(py, || creation::clone_as(&self.t, fmt))
    }
    /// The tensor in row-major layout (or `memory_format`'s): itself if already so, else a
    /// copy.
    #[pyo3(signature = (*, memory_format=None))]
    fn contiguous(&self, py: Python<'_>, memory_format: Option<&Bound<'_, PyAny>>) -> R {
        let fmt = match memory_format {
            None => crate::tensor::layout::MemoryFormat::Contiguous,
            Some(o) => crate::python::parse::memory_format_of(o).ok_or_else(|| {
                crate::python::errors::type_error(format!(
                    "contiguous(): argument 'memory_format' must be gradrs.memory_format, not {}",
                    crate::python::convert::type_name(o)
                ))
            })?,
        };
        crate::python::boundary::tensor(py, || creation::contiguous_as(&self.t, fmt))
    }
    /// `to(device=None, dtype=None, non_blocking=False, copy=False)`, `to(dtype, ...)`,
    /// `to(other, ...)`, matched as PyTorch's parser does.
    #[pyo3(signature = (*args, **kwargs))]
    fn to(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> R {
        use crate::python::parse::{opt, parse, python_type_dtype, req, Kind, Signature};
        const NB: crate::python::parse::Param = opt("non_blocking", Kind::Bool, false, false);
        const COPY: crate::python::parse::Param = opt("copy", Kind::Bool, false, false);
        const MF: crate::python::parse::Param =
            opt("memory_format", Kind::MemoryFormat, true, true);
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
            0 => (
                crate::python::dtype::check_device("to", a[0].as_ref())?,
                dtype_of(&a[1])?,
            ),
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
            Some(d) => crate::python::boundary::run(py, || creation::to_device(&t, d))?,
            None => t.clone(),
        };
        let out = match dtype {
            Some(d) => crate::python::boundary::run(py, || creation::to_dtype(&moved, d))?,
            None => moved,
        };
        if out.ptr_eq(&t) {
            if copy {
                return crate::python::boundary::tensor(py, || Ok(creation::to_copy(&t)));
            }
            return Ok(slf.clone().into_any().unbind());
        }
        wrap(py, out)
    }
    /// The tensor as float32 (itself if already float32).
    fn float(&self, py: Python<'_>) -> R {
        crate::python::boundary::tensor(py, || creation::to_dtype(&self.t, DType::F32))
    }
    /// The tensor as float64 (itself if already float64).
    fn double(&self, py: Python<'_>) -> R {
        crate::python::boundary::tensor(py, || creation::to_dtype(&self.t, DType::F64))
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
                legacy.ok_or_else(|| {
                    crate::python::errors::value_error(format!("invalid type: '{name}'"))
                })?
            }
            Err(_) => extract_dtype(Some(dtype))?.expect("not None"),
        };
        if target == t.dtype() {
            return Ok(slf.clone().into_any().unbind());
        }
        crate::python::boundary::tensor(py, || creation::to_dtype(&t, target))
    }
    /// The tensor as int64 (itself if already int64).
    fn long(&self, py: Python<'_>) -> R {
        crate::python::boundary::tensor(py, || creation::to_dtype(&self.t, DType::I64))
    }
    /// The tensor as int32 (itself if already int32).
    fn int(&self, py: Python<'_>) -> R {
        crate::python::boundary::tensor(py, || creation::to_dtype(&self.t, DType::I32))
    }
    /// The tensor as float16 (itself if already float16).
    fn half(&self, py: Python<'_>) -> R {
        crate::python::boundary::tensor(py, || creation::to_dtype(&self.t, DType::F16))
    }
    /// The tensor as bfloat16 (itself if already bfloat16).
    fn bfloat16(&self, py: Python<'_>) -> R {
        crate::python::boundary::tensor(py, || creation::to_dtype(&self.t, DType::BF16))
    }
    /// The tensor as uint8 (itself if already uint8).
    fn byte(&self, py: Python<'_>) -> R {
        crate::python::boundary::tensor(py, || creation::to_dtype(&self.t, DType::U8))
    }
    /// The tensor as int8 (itself if already int8).
    fn char(&self, py: Python<'_>) -> R {
        crate::python::boundary::tensor(py, || creation::to_dtype(&self.t, DType::I8))
    }
    /// The tensor as int16 (itself if already int16).
    fn short(&self, py: Python<'_>) -> R {
        crate::python::boundary::tensor(py, || creation::to_dtype(&self.t, DType::I16))
    }
    /// The tensor as bool (itself if already bool).
    fn bool(&self, py: Python<'_>) -> R {
        crate::python::boundary::tensor(py, || creation::to_dtype(&self.t, DType::Bool))
    }
    /// The tensor cast to `other`'s dtype.
    fn type_as(&self, py: Python<'_>, other: PyRef<'_, PyTensor>) -> R {
        let d = other.t.dtype();
        crate::python::boundary::tensor(py, || creation::to_dtype(&self.t, d))
    }
    /// The tensor on the CPU: itself if already there, else a copy (ToCopyBackward0).
    #[pyo3(signature = (*args, **kwargs), text_signature = "($self, *, memory_format=None)")]
    fn cpu(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> R {
        use crate::python::parse::{opt, parse, Kind, Signature};
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
    /// cuda(device=None, non_blocking=False, *, memory_format=None) -> Tensor
    ///
    /// The tensor on the GPU (gradrs's `cuda` is its wgpu device); itself if already there.
    #[pyo3(signature = (*args, **kwargs))]
    fn cuda(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> R {
        Self::to_gpu(slf, "cuda", args, kwargs)
    }
    /// Fills the tensor with zeros in place; returns it.
    fn zero_(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        let t = &slf.borrow().t;
        crate::python::boundary::catch(|| crate::ops::inplace::fill_(t, Scalar::Int(0), true))?;
        Ok(slf.clone().into_any().unbind())
    }
    /// Fills the tensor with `value` (a number or a 0-dim tensor) in place; returns it.
    fn fill_(slf: &Bound<'_, Self>, value: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        // PyTorch's two overloads: fill_(Tensor value) copies a 0-dim tensor, fill_(Number).
        if let Ok(v) = value.cast::<PyTensor>() {
            let v = v.borrow().t.clone();
            crate::python::boundary::catch(|| {
                crate::ops::inplace::fill_tensor_(&slf.borrow().t, &v)
            })?;
            return Ok(slf.clone().into_any().unbind());
        }
        let s = extract_scalar(value).ok_or_else(|| {
            let got = crate::python::convert::arg_desc(value);
            crate::python::errors::type_error(format!(
                "fill_() received an invalid combination of arguments - got ({}), but expected one of:\n * (Tensor value)\n      didn't match because some of the arguments have invalid types: (!{got}!)\n * (Number value)\n      didn't match because some of the arguments have invalid types: (!{got}!)\n",
                crate::python::convert::type_name(value)
            ))
        })?;
        crate::python::boundary::catch(|| crate::ops::inplace::fill_(&slf.borrow().t, s, false))?;
        Ok(slf.clone().into_any().unbind())
    }
    /// Copies the values of `src` into the tensor in place; returns it.
    fn copy_(slf: &Bound<'_, Self>, src: PyRef<'_, PyTensor>) -> PyResult<Py<PyAny>> {
        crate::python::boundary::catch(|| crate::ops::inplace::copy_(&slf.borrow().t, &src.t))?;
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
        crate::python::boundary::tensor(py, || {
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
        crate::python::boundary::tensor(py, || {
            Ok(Tensor::full_on(
                &shape,
                Scalar::Int(1),
                self.t.dtype(),
                self.t.device(),
            ))
        })
    }
    /// A new tensor from `data` with this tensor's dtype and device unless given.
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
        let t = crate::python::convert::tensor_from_data(data, Some(d))?;
        let t = crate::python::boundary::run(py, || creation::copy_to_device(&t, self.t.device()))?;
        t.set_requires_grad_from(requires_grad, crate::tensor::GradSetter::Factory)?;
        wrap(py, t)
    }
}
