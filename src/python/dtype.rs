//! `gradrs.dtype` and `gradrs.device` objects.

use crate::dtype::DType;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

#[pyclass(name = "dtype", module = "gradrs", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PyDType {
    pub d: DType,
}

#[pymethods]
impl PyDType {
    fn __repr__(&self) -> String {
        format!("gradrs.{}", self.d.name())
    }
    #[getter]
    fn is_floating_point(&self) -> bool {
        self.d.is_floating_point()
    }
    #[getter]
    fn is_complex(&self) -> bool {
        false
    }
    #[getter]
    fn is_signed(&self) -> bool {
        self.d != DType::Bool
    }
    #[getter]
    fn itemsize(&self) -> usize {
        self.d.itemsize()
    }
    fn __reduce__(&self) -> (String,) {
        (self.d.name().to_string(),)
    }
}

static DTYPES: PyOnceLock<[Py<PyDType>; 4]> = PyOnceLock::new();

/// The singleton object for a dtype (so `t.dtype is gradrs.float32`).
pub fn dtype_object(py: Python<'_>, d: DType) -> Py<PyDType> {
    let all = DTYPES.get_or_init(py, || {
        DType::ALL.map(|d| Py::new(py, PyDType { d }).expect("dtype object"))
    });
    all[DType::ALL
        .iter()
        .position(|x| *x == d)
        .expect("known dtype")]
    .clone_ref(py)
}

/// Accept a dtype object (or None).
pub fn extract_dtype(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<DType>> {
    match obj {
        None => Ok(None),
        Some(o) if o.is_none() => Ok(None),
        Some(o) => match o.cast::<PyDType>() {
            Ok(d) => Ok(Some(d.get().d)),
            Err(_) => Err(PyTypeError::new_err(format!(
                "dtype must be gradrs.dtype, not {}",
                o.get_type().name()?
            ))),
        },
    }
}

#[pyclass(name = "device", module = "gradrs", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyDevice {
    #[pyo3(get, name = "type")]
    pub kind: String,
    #[pyo3(get)]
    pub index: Option<i64>,
}

#[pymethods]
impl PyDevice {
    #[new]
    #[pyo3(signature = (spec, index=None))]
    fn new(spec: &Bound<'_, PyAny>, index: Option<i64>) -> PyResult<PyDevice> {
        if let Ok(d) = spec.cast::<PyDevice>() {
            return Ok(d.get().clone());
        }
        let s: String = spec.extract()?;
        parse_device(&s, index)
    }
    fn __repr__(&self) -> String {
        match self.index {
            Some(i) => format!("device(type='{}', index={i})", self.kind),
            None => format!("device(type='{}')", self.kind),
        }
    }
    fn __str__(&self) -> String {
        match self.index {
            Some(i) => format!("{}:{i}", self.kind),
            None => self.kind.clone(),
        }
    }
}

pub fn parse_device(s: &str, index: Option<i64>) -> PyResult<PyDevice> {
    let (kind, idx) =
        match s.split_once(':') {
            Some((k, i)) => (
                k,
                Some(i.parse::<i64>().map_err(|_| {
                    PyRuntimeError::new_err(format!("Invalid device string: '{s}'"))
                })?),
            ),
            None => (s, index),
        };
    match kind {
        "cpu" => Ok(PyDevice { kind: "cpu".into(), index: idx }),
        "gpu" | "cuda" => Err(PyRuntimeError::new_err(
            "GPU tensors are not supported yet: gradrs has a wgpu backend (see gradrs.gpu) but tensors \
             cannot be placed on it yet; use device='cpu'",
        )),
        _ => Err(PyRuntimeError::new_err(format!(
            "Expected one of cpu, gpu, cuda device type at start of device string: {s}"
        ))),
    }
}

/// Accept `None`, a device, or a string; only the CPU exists in this build.
pub fn check_device(obj: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
    match obj {
        None => Ok(()),
        Some(o) if o.is_none() => Ok(()),
        Some(o) => {
            if let Ok(d) = o.cast::<PyDevice>() {
                if d.get().kind == "cpu" {
                    return Ok(());
                }
            }
            let s: String = o.str()?.extract()?;
            parse_device(&s, None).map(|_| ())
        }
    }
}
