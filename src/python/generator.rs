//! Bindings of random generators (`ops::random`): `Generator`, `default_generator`, seeding
//! (`manual_seed`, `seed`, `initial_seed`), the RNG state (`get_rng_state`, `set_rng_state`) and
//! the `generator=` argument the sampling bindings (`random.rs`, `sampling.rs`) take.

use super::dtype::{check_device, PyDevice};
use super::tensor::{wrap, PyTensor};
use super::R;
use crate::backend::cpu::generator::{CpuGenerator, GeneratorRef};
use crate::dtype::DType;
use crate::ops::random;
use crate::tensor::{Device, Tensor};
use parking_lot::Mutex;
use pyo3::prelude::*;
use std::sync::Arc;

/// `gradrs.Generator(device='cpu')`: PyTorch's CPU generator (mt19937); a GPU generator is
/// the same engine (PyTorch's CUDA Philox streams are not reproduced).
#[pyclass(name = "Generator", module = "gradrs", frozen)]
pub struct PyGenerator {
    pub g: GeneratorRef,
    pub device: Device,
}

/// A seed as PyTorch unpacks it: any int in [-2^63, 2^64), negatives wrapping to u64.
fn unpack_seed(seed: &Bound<'_, PyAny>) -> PyResult<u64> {
    if !seed.is_instance_of::<pyo3::types::PyInt>() {
        return Err(super::errors::runtime_error(format!(
            "manual_seed expected a long, but got {}",
            seed.get_type().name()?
        )));
    }
    let v: i128 = seed
        .extract()
        .map_err(|_| super::errors::value_error("Overflow when unpacking long long"))?;
    if v < i64::MIN as i128 || v > u64::MAX as i128 {
        return Err(super::errors::value_error(
            "Overflow when unpacking long long",
        ));
    }
    Ok(v as u64)
}

#[pymethods]
impl PyGenerator {
    #[new]
    #[pyo3(signature = (device=None))]
    fn new(device: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let device = check_device("Generator", device)?.unwrap_or(Device::Cpu);
        Ok(PyGenerator {
            g: Arc::new(Mutex::new(CpuGenerator::new(
                crate::backend::cpu::generator::DEFAULT_SEED,
            ))),
            device,
        })
    }
    /// manual_seed(seed) -> Generator
    ///
    /// Sets the seed for generating random numbers and returns the generator itself.
    ///
    /// Args:
    ///     seed (int): the desired seed, in `[-0x8000_0000_0000_0000, 0xffff_ffff_ffff_ffff]`.
    ///
    /// Example:
    ///     >>> g = gradrs.Generator()
    ///     >>> g.manual_seed(2147483647) is g
    ///     True
    ///     >>> g.initial_seed()
    ///     2147483647
    fn manual_seed(slf: &Bound<'_, Self>, seed: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let s = unpack_seed(seed)?;
        slf.get().g.lock().manual_seed(s);
        Ok(slf.clone().into_any().unbind())
    }
    /// A nondeterministic seed, set and returned.
    fn seed(&self) -> u64 {
        let s = random::nondeterministic_seed();
        self.g.lock().manual_seed(s);
        s
    }
    /// initial_seed() -> int
    ///
    /// Returns the initial seed of this generator: the last one set by `manual_seed` or `seed`.
    ///
    /// Example:
    ///     >>> g = gradrs.Generator()
    ///     >>> g.initial_seed()
    ///     67280421310721
    ///     >>> g.manual_seed(7).initial_seed()
    ///     7
    fn initial_seed(&self) -> u64 {
        self.g.lock().initial_seed()
    }
    /// get_state() -> Tensor
    ///
    /// Returns this generator's state as a `gradrs.ByteTensor` (a `uint8` tensor), to be restored
    /// later with `set_state`.
    ///
    /// Example:
    ///     >>> g = gradrs.Generator().manual_seed(1)
    ///     >>> state = g.get_state()
    ///     >>> a = gradrs.rand(3, generator=g)
    ///     >>> b = gradrs.rand(3, generator=g.set_state(state))
    ///     >>> bool((a == b).all())
    ///     True
    fn get_state(&self, py: Python<'_>) -> R {
        state_tensor(py, &self.g)
    }
    /// set_state(new_state) -> Generator
    ///
    /// Sets this generator's state and returns the generator itself.
    ///
    /// Args:
    ///     new_state (gradrs.ByteTensor): the desired state, as returned by `get_state()`.
    ///
    /// Example:
    ///     >>> g = gradrs.Generator()
    ///     >>> state = gradrs.Generator().manual_seed(3).get_state()
    ///     >>> g.set_state(state).initial_seed()
    ///     3
    fn set_state(slf: &Bound<'_, Self>, new_state: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        set_state_from(&slf.get().g, new_state)?;
        Ok(slf.clone().into_any().unbind())
    }
    /// An independent generator in the same state.
    fn clone_state(&self) -> PyGenerator {
        PyGenerator {
            g: Arc::new(Mutex::new(self.g.lock().clone())),
            device: self.device,
        }
    }
    /// The device of this generator (`gradrs.device`).
    ///
    /// Example:
    ///     >>> gradrs.Generator().device
    ///     device(type='cpu')
    #[getter]
    fn device(&self) -> PyDevice {
        PyDevice::of(self.device)
    }
}

/// The state as PyTorch's uint8 tensor of 5056 state bytes (a `ByteTensor`).
fn state_tensor(py: Python<'_>, g: &GeneratorRef) -> R {
    let bytes = g.lock().get_state();
    let n = bytes.len();
    wrap(
        py,
        super::boundary::held(|| Ok(Tensor::from_vec(bytes, &[n])))?,
    )
}

/// `set_state`: PyTorch's checks (a tensor, of uint8), then the bytes.
fn set_state_from(g: &GeneratorRef, state: &Bound<'_, PyAny>) -> PyResult<()> {
    let t = match state.cast::<PyTensor>() {
        Ok(t) => t.borrow().t.clone(),
        Err(_) => {
            return Err(super::errors::type_error(format!(
                "expected a gradrs.ByteTensor, but got {}",
                state.get_type().name()?
            )))
        }
    };
    if t.dtype() != DType::U8 {
        return Err(super::errors::type_error(
            "RNG state must be a gradrs.ByteTensor",
        ));
    }
    let cpu = super::boundary::catch(|| crate::ops::creation::copy_to_device(&t, Device::Cpu))?;
    let bytes: Vec<u8> = cpu.to_vec::<u8>();
    g.lock().set_state(&bytes)?;
    Ok(())
}

/// A `generator=` argument: None or a `Generator`, checked against the output's device.
pub(super) fn generator_arg(
    fname: &str,
    gen: Option<&Bound<'_, PyAny>>,
    device: Device,
) -> PyResult<GeneratorRef> {
    match gen {
        None => Ok(random::resolve(None, device)),
        Some(o) if o.is_none() => Ok(random::resolve(None, device)),
        Some(o) => match o.cast::<PyGenerator>() {
            Ok(g) => {
                let g = g.get();
                if g.device != device {
                    return Err(super::errors::runtime_error(format!(
                        "Expected a '{}' device type for generator but found '{}'",
                        PyDevice::of(device).kind,
                        PyDevice::of(g.device).kind
                    )));
                }
                Ok(g.g.clone())
            }
            Err(_) => Err(super::errors::type_error(format!(
                "{fname}(): argument 'generator' must be gradrs.Generator, not {}",
                o.get_type().name()?
            ))),
        },
    }
}

/// `gradrs.manual_seed(seed)`: seeds every device's default generator; returns
/// `default_generator`.
#[pyfunction]
fn manual_seed(py: Python<'_>, seed: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    // PyTorch's Python function first takes `int(seed)` (a float seed truncates, a string
    // raises int()'s ValueError); the generator then unpacks the int.
    let seed = py.get_type::<pyo3::types::PyInt>().call1((seed,))?;
    random::manual_seed(unpack_seed(&seed)?);
    default_generator_object(py)
}

/// seed() -> int
///
/// Sets the seed of the default generator to a non-deterministic random number and returns it (a
/// 64-bit integer).
///
/// Example:
///     >>> s = gradrs.seed()
///     >>> s == gradrs.initial_seed()
///     True
#[pyfunction]
fn seed() -> u64 {
    random::seed()
}

/// initial_seed() -> int
///
/// Returns the initial seed of the default generator: the last seed set by `gradrs.manual_seed` or
/// `gradrs.seed` (a 64-bit integer).
///
/// Example:
///     >>> _ = gradrs.manual_seed(42)
///     >>> gradrs.initial_seed()
///     42
#[pyfunction]
fn initial_seed() -> u64 {
    random::initial_seed()
}

/// get_rng_state() -> Tensor
///
/// Returns the state of the default CPU generator as a `gradrs.uint8` tensor (PyTorch's layout:
/// 5056 bytes), to be restored later with `gradrs.set_rng_state`.
///
/// Example:
///     >>> state = gradrs.get_rng_state()
///     >>> state.dtype, state.shape
///     (gradrs.uint8, gradrs.Size([5056]))
///     >>> a = gradrs.rand(2)
///     >>> gradrs.set_rng_state(state)
///     >>> bool((gradrs.rand(2) == a).all())
///     True
#[pyfunction]
fn get_rng_state(py: Python<'_>) -> R {
    state_tensor(py, random::default_for(Device::Cpu))
}

/// set_rng_state(new_state) -> None
///
/// Sets the state of the default CPU generator.
///
/// Args:
///     new_state (gradrs.ByteTensor): the desired state, as returned by `gradrs.get_rng_state()`.
///
/// Example:
///     >>> state = gradrs.get_rng_state()
///     >>> a = gradrs.randn(3)
///     >>> gradrs.set_rng_state(state)
///     >>> bool((gradrs.randn(3) == a).all())
///     True
#[pyfunction]
fn set_rng_state(new_state: &Bound<'_, PyAny>) -> PyResult<()> {
    set_state_from(random::default_for(Device::Cpu), new_state)
}

fn default_generator_object(py: Python<'_>) -> PyResult<Py<PyAny>> {
    let m = py.import("gradrs._native")?;
    Ok(m.getattr("default_generator")?.unbind())
}
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyGenerator>()?;
    let default = Py::new(
        m.py(),
        PyGenerator {
            g: random::default_for(Device::Cpu).clone(),
            device: Device::Cpu,
        },
    )?;
    m.add("default_generator", default)?;
    m.add_function(wrap_pyfunction!(manual_seed, m)?)?;
    m.add_function(wrap_pyfunction!(seed, m)?)?;
    m.add_function(wrap_pyfunction!(initial_seed, m)?)?;
    m.add_function(wrap_pyfunction!(get_rng_state, m)?)?;
    m.add_function(wrap_pyfunction!(set_rng_state, m)?)?;
    Ok(())
}
