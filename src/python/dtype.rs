//! `gradrs.dtype` and `gradrs.device` objects.

use crate::dtype::DType;
use crate::tensor::Device;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

/// A data type of tensor elements: `gradrs.float32` (`gradrs.float`), `gradrs.float64`
/// (`gradrs.double`), `gradrs.float16` (`gradrs.half`), `gradrs.bfloat16`, `gradrs.uint8`,
/// `gradrs.int8`, `gradrs.int16`, `gradrs.int32` (`gradrs.int`), `gradrs.int64` (`gradrs.long`) and
/// `gradrs.bool`. The objects are unique: compare them with `==` or `is`.
///
/// Example:
///     >>> gradrs.tensor([1.0]).dtype
///     gradrs.float32
///     >>> gradrs.tensor([1.0], dtype=gradrs.double).dtype is gradrs.float64
///     True
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
    /// Whether this is a floating-point data type (`float16`, `bfloat16`, `float32`, `float64`).
    ///
    /// Example:
    ///     >>> gradrs.float32.is_floating_point, gradrs.int64.is_floating_point
    ///     (True, False)
    #[getter]
    fn is_floating_point(&self) -> bool {
        self.d.is_floating_point()
    }
    /// Whether this is a complex data type (always `False`: gradrs has no complex dtypes).
    ///
    /// Example:
    ///     >>> gradrs.float32.is_complex
    ///     False
    #[getter]
    fn is_complex(&self) -> bool {
        false
    }
    /// Whether this data type can hold negative values (all but `bool` and `uint8`).
    ///
    /// Example:
    ///     >>> gradrs.int8.is_signed, gradrs.uint8.is_signed
    ///     (True, False)
    #[getter]
    fn is_signed(&self) -> bool {
        !matches!(self.d, DType::Bool | DType::U8)
    }
    /// The size of one element of this data type, in bytes.
    ///
    /// Example:
    ///     >>> gradrs.float16.itemsize, gradrs.float64.itemsize
    ///     (2, 8)
    #[getter]
    fn itemsize(&self) -> usize {
        self.d.itemsize()
    }
    fn __reduce__(&self) -> (String,) {
        (self.d.name().to_string(),)
    }
}

static DTYPES: PyOnceLock<[Py<PyDType>; 10]> = PyOnceLock::new();

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

/// get_default_dtype() -> gradrs.dtype
///
/// Returns the current default floating-point dtype: the dtype of tensors made from Python floats
/// and of the factory functions' results (`gradrs.float32` initially; see
/// `gradrs.set_default_dtype`).
///
/// Example:
///     >>> gradrs.get_default_dtype()
///     gradrs.float32
///     >>> gradrs.tensor([1.2, 3]).dtype
///     gradrs.float32
// `gradrs.get_default_dtype()`: Note [Default dtype].
#[pyfunction]
pub fn get_default_dtype(py: Python<'_>) -> Py<PyDType> {
    dtype_object(py, crate::dtype::default_float())
}

/// `gradrs.set_default_dtype(d)` (its positional-only Python signature is in `__init__.py`):
/// floating dtypes only, with PyTorch's TypeErrors.
#[pyfunction]
pub fn _set_default_dtype(d: &Bound<'_, PyAny>) -> PyResult<()> {
    let d = d.cast::<PyDType>().map_err(|_| {
        super::errors::type_error(
            "invalid dtype object: only floating-point types are supported as the default type",
        )
    })?;
    Ok(crate::dtype::set_default_float(d.get().d)?)
}

/// Accept a dtype object (or None).
pub fn extract_dtype(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<DType>> {
    match obj {
        None => Ok(None),
        Some(o) if o.is_none() => Ok(None),
        Some(o) => match o.cast::<PyDType>() {
            Ok(d) => Ok(Some(d.get().d)),
            Err(_) => Err(super::errors::type_error(format!(
                "dtype must be gradrs.dtype, not {}",
                o.get_type().name()?
            ))),
        },
    }
}

/// device(type, index=None)
///
/// The device a tensor is (or will be) allocated on: `"cpu"`, or `"gpu"` (the Vulkan, Metal or DX12
/// adapter; `"cuda"` is an alias normalized at construction, so `device("cuda") == device("gpu")`),
/// with an optional device index.
///
/// Args:
///     type (str or device): the device type, optionally followed by `:index` (`"cpu"`, `"gpu:0"`,
///         `"cuda:1"`), or a device to copy.
///     index (int, optional): the device index, if not given in `type`.
///
/// Example:
///     >>> gradrs.device("cpu")
///     device(type='cpu')
///     >>> gradrs.device("cuda", 1)
///     device(type='gpu', index=1)
///     >>> str(gradrs.device("cuda:0"))
///     'gpu:0'
///     >>> gradrs.device("cuda:0") == gradrs.device("gpu:0")
///     True
#[pyclass(name = "device", module = "gradrs", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyDevice {
    /// The device type: `'cpu'` or `'gpu'`.
    ///
    /// Example:
    ///     >>> gradrs.device("cpu").type
    ///     'cpu'
    ///     >>> gradrs.device("cuda:1").type
    ///     'gpu'
    #[pyo3(get, name = "type")]
    pub kind: String,
    /// The device index, or `None` when the device was given without one.
    ///
    /// Example:
    ///     >>> gradrs.device("gpu:1").index
    ///     1
    ///     >>> gradrs.device("cpu").index is None
    ///     True
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
    /// `with gradrs.device(d):` makes `d` the calling thread's default device for the
    /// factories (`zeros`, `tensor`, `arange`...) inside the block, as PyTorch's
    /// `DeviceContext`; the block's exit restores the previous one (blocks nest; an exception
    /// leaving the block restores it too). Returns the device.
    ///
    /// Example:
    ///     >>> with gradrs.device("cpu") as d:
    ///     ...     gradrs.zeros(2).device == d
    ///     True
    fn __enter__(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        // The default device lives in Python (`_runtime.py`), beside `set_default_device`.
        slf.py()
            .import("gradrs._runtime")?
            .call_method1("_enter_device", (slf,))?;
        Ok(slf.clone().into_any().unbind())
    }
    /// Leaves a `with gradrs.device(...)` block: the default device of the factories is the
    /// one before the block again (PyTorch's RuntimeError when no block is open).
    #[pyo3(signature = (*args))]
    fn __exit__(&self, py: Python<'_>, args: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<()> {
        let _ = args;
        py.import("gradrs._runtime")?.call_method0("_exit_device")?;
        Ok(())
    }
}

pub fn parse_device(s: &str, index: Option<i64>) -> PyResult<PyDevice> {
    let (kind, idx) = match s.split_once(':') {
        Some((k, i)) => (
            k,
            Some(i.parse::<i64>().map_err(|_| {
                super::errors::runtime_error(format!("Invalid device string: '{s}'"))
            })?),
        ),
        None => (s, index),
    };
    match kind {
        // `cuda` is an alias of `gpu`, normalized here (DESIGN.md, section 5): the two
        // spellings make equal devices, and the repr says `gpu`.
        "cpu" | "gpu" | "cuda" => Ok(PyDevice {
            kind: if kind == "cuda" { "gpu" } else { kind }.into(),
            index: idx,
        }),
        // PyTorch's other device types: valid names, but no backend here.
        "ipu" | "xpu" | "mkldnn" | "opengl" | "opencl" | "ideep" | "hip" | "ve" | "fpga"
        | "maia" | "xla" | "lazy" | "vulkan" | "mps" | "meta" | "hpu" | "mtia"
        | "privateuseone" => Err(super::errors::runtime_error(format!(
            "gradrs has no '{kind}' device: its devices are cpu and gpu (also named cuda)"
        ))),
        _ => Err(super::errors::runtime_error(format!(
            "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: {s}"
        ))),
    }
}

impl PyDevice {
    /// The device a tensor lives on; `cuda` is the GPU (so CUDA code runs unchanged). One GPU:
    /// index 0 (PyTorch's "invalid device ordinal" for others).
    pub fn device(&self) -> PyResult<Device> {
        match (self.kind.as_str(), self.index) {
            // PyTorch places a tensor asked for on `cpu:N` on the one CPU.
            ("cpu", None | Some(0..)) => Ok(Device::Cpu),
            ("cpu", Some(i)) => Err(super::errors::runtime_error(format!(
                "Device index must be -1 or 0 for CPU, got {i}"
            ))),
            (_, None | Some(0)) => Ok(Device::Gpu),
            (_, Some(i)) if i < 0 => Err(super::errors::runtime_error(
                "Device index must not be negative",
            )),
            (_, Some(_)) => Err(super::errors::runtime_error(
                "GPU error: invalid device ordinal (gradrs uses one GPU, index 0)",
            )),
        }
    }

    /// How a tensor on `d` reports its device (`gpu:0`, as CUDA tensors report `cuda:0`).
    pub fn of(d: Device) -> PyDevice {
        match d {
            Device::Cpu => PyDevice {
                kind: "cpu".into(),
                index: None,
            },
            Device::Gpu => PyDevice {
                kind: "gpu".into(),
                index: Some(0),
            },
        }
    }
}

/// A device argument: `None` (not given), a `gradrs.device`, a string, or an index (the GPU's).
/// The `device` argument of `op`: a device, a device string, a GPU index, or None; anything
/// else is PyTorch's TypeError.
pub fn check_device(op: &str, obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Device>> {
    match obj {
        None => Ok(None),
        Some(o) if o.is_none() => Ok(None),
        Some(o) => {
            if let Ok(d) = o.cast::<PyDevice>() {
                return d.get().device().map(Some);
            }
            if let Ok(i) = o.extract::<i64>() {
                return PyDevice {
                    kind: "gpu".into(),
                    index: Some(i),
                }
                .device()
                .map(Some);
            }
            let Ok(s) = o.extract::<String>() else {
                return Err(super::errors::type_error(format!(
                    "{op}(): argument 'device' must be gradrs.device, not {}",
                    super::convert::type_name(o)
                )));
            };
            parse_device(&s, None)?.device().map(Some)
        }
    }
}
