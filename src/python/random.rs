//! Bindings of the random sampling functions (`ops::random`): `rand`, `randn`, `randint`,
//! `randperm`, `normal`, `bernoulli`, `multinomial`, `poisson`, the `_like` forms, and the
//! in-place `Tensor` fills (`uniform_`, `normal_`, `random_`, ...). The generators and seeding
//! are in `generator.rs`.

use super::convert::{Flag, NumberArg};
use super::dtype::{check_device, extract_dtype};
use super::generator::generator_arg;
use super::tensor::{to_shape, wrap, PyTensor};
use super::{finish, like_dtype, shape_of, R};
use crate::backend::cpu::generator::GeneratorRef;
use crate::dtype::{default_float, DType};
use crate::ops::random::{self, RandomRange};
use crate::python::convert::Int;
use crate::tensor::layout::like_strides;
use crate::tensor::{Device, Tensor};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// A `*_like` sampler's result laid out with `strides` (Note [Memory formats]): PyTorch's
/// `empty_like(input).uniform_()` & co., whose in-place fill draws in memory order.
fn strided(
    shape: &[usize],
    strides: crate::tensor::shape::Strides,
    d: DType,
    dev: Device,
    fill: impl FnOnce(&Tensor) -> crate::Result<()>,
) -> crate::Result<Tensor> {
    use crate::ops::creation::{copy_to_device, relaid};
    let n = shape.iter().product::<usize>();
    let flat = Tensor::zeros(&[n], d);
    fill(&relaid(&flat, shape, strides.clone()))?;
    // Moved as the flat storage it is, then laid out again there.
    let flat = if dev == Device::Cpu {
        flat
    } else {
        copy_to_device(&flat, dev)?
    };
    Ok(relaid(&flat, shape, strides))
}

/// `rand`/`randn` (sized) and `rand_like`/`randn_like`: one body per sampler.
macro_rules! sampled {
    (
        $(#[doc = $doc:literal])* $name:ident,
        $(#[doc = $doc_like:literal])* $like:ident,
        $sampler:path,
        $fill:expr
    ) => {
        $(#[doc = $doc])*
        #[pyfunction]
        #[pyo3(signature = (*size, generator=None, dtype=None, device=None, requires_grad=false, layout=None, pin_memory=false))]
        #[allow(clippy::too_many_arguments)]
        fn $name(
            py: Python<'_>,
            size: &Bound<'_, PyTuple>,
            generator: Option<&Bound<'_, PyAny>>,
            dtype: Option<&Bound<'_, PyAny>>,
            device: Option<&Bound<'_, PyAny>>,
            requires_grad: bool,
            layout: Option<&Bound<'_, PyAny>>,
            pin_memory: bool,
        ) -> R {
            let _ = (layout, pin_memory);
            let dev = check_device(stringify!($name), device)?;
            let g = generator_arg(stringify!($name), generator, dev.unwrap_or(Device::Cpu))?;
            let d = extract_dtype(dtype)?.unwrap_or_else(default_float);
            let shape = shape_of(stringify!($name), size)?;
            let t = super::boundary::run(py, || $sampler(&shape, d, Some(&g)))?;
            finish(py, t, dev, requires_grad)
        }

        $(#[doc = $doc_like])*
        #[pyfunction]
        #[pyo3(signature = (input, *, generator=None, dtype=None, device=None, requires_grad=false, layout=None, memory_format=None))]
        #[allow(clippy::too_many_arguments)]
        fn $like(
            py: Python<'_>,
            input: PyRef<'_, PyTensor>,
            generator: Option<&Bound<'_, PyAny>>,
            dtype: Option<&Bound<'_, PyAny>>,
            device: Option<&Bound<'_, PyAny>>,
            requires_grad: bool,
            layout: Option<&Bound<'_, PyAny>>,
            memory_format: Option<&Bound<'_, PyAny>>,
        ) -> R {
            let _ = layout;
            let fmt = super::parse::memory_format_arg(memory_format, stringify!($like))?;
            let dev = check_device(stringify!($like), device)?.unwrap_or(input.t.device());
            let g = generator_arg(stringify!($like), generator, dev)?;
            let d = like_dtype(&input.t, dtype)?;
            let shape = input.t.shape();
            let Some(strides) = like_strides(&input.t.read().layout, fmt)? else {
                let t = super::boundary::run(py, || $sampler(&shape, d, Some(&g)))?;
                return finish(py, t, Some(dev), requires_grad);
            };
            let t = super::boundary::run(py, || {
                strided(&shape, strides, d, dev, |t| ($fill)(t, Some(&g)))
            })?;
            finish(py, t, None, requires_grad)
        }
    };
}
sampled!(
    /// rand(*size, *, generator=None, dtype=None, device=None, requires_grad=False) -> Tensor
    ///
    /// Returns a tensor filled with random numbers from a uniform distribution on the interval `[0,
    /// 1)`, with the shape defined by the variable argument `size`.
    ///
    /// Args:
    ///     size (int...): a sequence of integers defining the shape of the output tensor: a
    ///         variable number of arguments or a collection like a list or tuple.
    ///     generator (gradrs.Generator, optional): a pseudorandom number generator for sampling.
    ///     dtype (gradrs.dtype, optional): the desired data type. Default: the default float dtype
    ///         (`gradrs.get_default_dtype()`).
    ///     device (gradrs.device, optional): the device of the result. Default: the CPU.
    ///     requires_grad (bool, optional): whether autograd records operations on the result.
    ///         Default: `False`.
    ///     layout, pin_memory: accepted for PyTorch compatibility (strided, not pinned).
    ///
    /// Example:
    ///     >>> gradrs.rand(4)
    ///     tensor([0.4963, 0.7682, 0.0885, 0.1320])
    ///     >>> gradrs.rand(2, 3)
    ///     tensor([[0.3074, 0.6341, 0.4901],
    ///             [0.8964, 0.4556, 0.6323]])
    rand,
    /// rand_like(input, *, generator=None, dtype=None, device=None, requires_grad=False) -> Tensor
    ///
    /// Returns a tensor with the same size as `input` filled with random numbers from a uniform
    /// distribution on the interval `[0, 1)`. `gradrs.rand_like(input)` is
    /// `gradrs.rand(input.size(), dtype=input.dtype, device=input.device)`.
    ///
    /// Args:
    ///     input (Tensor): the size of `input` determines the size of the output tensor.
    ///     generator (gradrs.Generator, optional): a pseudorandom number generator for sampling.
    ///     dtype (gradrs.dtype, optional): the desired data type. Default: `input.dtype`.
    ///     device (gradrs.device, optional): the desired device. Default: `input.device`.
    ///     requires_grad (bool, optional): whether autograd records operations on the result.
    ///         Default: `False`.
    ///     layout, memory_format: accepted for PyTorch compatibility (strided, contiguous).
    ///
    /// Example:
    ///     >>> gradrs.rand_like(gradrs.zeros(2, 2))
    ///     tensor([[0.4963, 0.7682],
    ///             [0.0885, 0.1320]])
    rand_like,
    random::rand_gen,
    |t, g| random::uniform_(t, 0.0, 1.0, g)
);
sampled!(
    /// randn(*size, *, generator=None, dtype=None, device=None, requires_grad=False) -> Tensor
    ///
    /// Returns a tensor filled with random numbers from the normal distribution with mean 0 and
    /// variance 1 (the standard normal), with the shape defined by the variable argument `size`.
    ///
    /// Args:
    ///     size (int...): a sequence of integers defining the shape of the output tensor: a
    ///         variable number of arguments or a collection like a list or tuple.
    ///     generator (gradrs.Generator, optional): a pseudorandom number generator for sampling.
    ///     dtype (gradrs.dtype, optional): the desired data type. Default: the default float dtype
    ///         (`gradrs.get_default_dtype()`).
    ///     device (gradrs.device, optional): the device of the result. Default: the CPU.
    ///     requires_grad (bool, optional): whether autograd records operations on the result.
    ///         Default: `False`.
    ///     layout, pin_memory: accepted for PyTorch compatibility (strided, not pinned).
    ///
    /// Example:
    ///     >>> gradrs.randn(4)
    ///     tensor([ 1.5410, -0.2934, -2.1788,  0.5684])
    ///     >>> gradrs.randn(2, 3)
    ///     tensor([[-1.0845, -1.3986,  0.4033],
    ///             [ 0.8380, -0.7193, -0.4033]])
    randn,
    /// randn_like(input, *, generator=None, dtype=None, device=None, requires_grad=False) -> Tensor
    ///
    /// Returns a tensor with the same size as `input` filled with random numbers from the standard
    /// normal distribution. `gradrs.randn_like(input)` is `gradrs.randn(input.size(),
    /// dtype=input.dtype, device=input.device)`.
    ///
    /// Args:
    ///     input (Tensor): the size of `input` determines the size of the output tensor.
    ///     generator (gradrs.Generator, optional): a pseudorandom number generator for sampling.
    ///     dtype (gradrs.dtype, optional): the desired data type. Default: `input.dtype`.
    ///     device (gradrs.device, optional): the desired device. Default: `input.device`.
    ///     requires_grad (bool, optional): whether autograd records operations on the result.
    ///         Default: `False`.
    ///     layout, memory_format: accepted for PyTorch compatibility (strided, contiguous).
    ///
    /// Example:
    ///     >>> gradrs.randn_like(gradrs.zeros(2, 2, dtype=gradrs.float64)).dtype
    ///     gradrs.float64
    randn_like,
    random::randn_gen,
    |t, g| random::normal_(t, 0.0, 1.0, g)
);

/// `randint(high, size)` or `randint(low, high, size)` (also by keyword).
#[pyfunction]
#[pyo3(signature = (*args, generator=None, dtype=None, device=None, requires_grad=false, layout=None, pin_memory=false, **kwargs))]
#[allow(clippy::too_many_arguments)]
fn randint(
    py: Python<'_>,
    args: &Bound<'_, PyTuple>,
    generator: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    layout: Option<&Bound<'_, PyAny>>,
    pin_memory: bool,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> R {
    let _ = (layout, pin_memory);
    let dev = check_device("randint", device)?;
    let mut pos: Vec<Bound<'_, PyAny>> = args.iter().collect();
    let mut given: Vec<(String, Bound<'_, PyAny>)> = Vec::new();
    if let Some(d) = kwargs {
        for (k, v) in d.iter() {
            given.push((k.extract::<String>()?, v));
        }
    }
    for k in ["low", "high", "size"] {
        if let Some((_, v)) = given.iter().find(|(n, _)| n == k) {
            pos.push(v.clone());
        }
    }
    // PyTorch's parser: an int is no bool (Python's or NumPy's) and no float; with two
    // arguments only `(high, size)` has that arity, so its error names the argument.
    let listing = " * (int high, tuple of ints size, *, gradrs.Generator generator, Tensor out = None, gradrs.dtype dtype = None, gradrs.layout layout = None, gradrs.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (int high, tuple of ints size, *, Tensor out = None, gradrs.dtype dtype = None, gradrs.layout layout = None, gradrs.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (int low, int high, tuple of ints size, *, gradrs.Generator generator, Tensor out = None, gradrs.dtype dtype = None, gradrs.layout layout = None, gradrs.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (int low, int high, tuple of ints size, *, Tensor out = None, gradrs.dtype dtype = None, gradrs.layout layout = None, gradrs.device device = None, bool pin_memory = False, bool requires_grad = False)\n";
    let positional: Vec<Bound<'_, PyAny>> = args.iter().collect();
    let bad = || {
        super::errors::type_error(format!(
            "randint() received an invalid combination of arguments - got {}, but expected one of:\n{listing}",
            super::parse::describe(&positional, &given)
        ))
    };
    let int = |o: &Bound<'_, PyAny>| -> Option<i64> {
        match o.extract::<Int>() {
            Ok(i) => i.get("randint", "", 0).ok(),
            Err(_) => None,
        }
    };
    let (low, high, size) = match pos.len() {
        2 => (
            0,
            pos[0].extract::<Int>()?.get(
                "randint",
                "high",
                if given.is_empty() { 1 } else { 0 },
            )?,
            &pos[1],
        ),
        3 => (
            int(&pos[0]).ok_or_else(bad)?,
            int(&pos[1]).ok_or_else(bad)?,
            &pos[2],
        ),
        _ => return Err(bad()),
    };
    let shape = to_shape(&size.extract::<Vec<i64>>().map_err(|_| bad())?)?;
    let g = generator_arg("randint", generator, dev.unwrap_or(Device::Cpu))?;
    let d = extract_dtype(dtype)?.unwrap_or(DType::I64);
    finish(
        py,
        super::boundary::run(py, || random::randint_gen(low, high, &shape, d, Some(&g)))?,
        dev,
        requires_grad,
    )
}

/// `randint_like(input, high)` or `randint_like(input, low, high)`.
#[pyfunction]
#[pyo3(signature = (input, low, high=None, *, generator=None, dtype=None, device=None, requires_grad=false, layout=None, memory_format=None))]
#[allow(clippy::too_many_arguments)]
fn randint_like(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    low: Int,
    high: Option<Int>,
    generator: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    layout: Option<&Bound<'_, PyAny>>,
    memory_format: Option<&Bound<'_, PyAny>>,
) -> R {
    let low = low.get("randint_like", "low", 2)?;
    let high = high.map(|v| v.get("randint_like", "high", 3)).transpose()?;
    let _ = layout;
    let fmt = super::parse::memory_format_arg(memory_format, "randint_like")?;
    let (low, high) = match high {
        Some(h) => (low, h),
        None => (0, low),
    };
    let dev = check_device("randint_like", device)?.unwrap_or(input.t.device());
    let g = generator_arg("randint_like", generator, dev)?;
    let d = like_dtype(&input.t, dtype)?;
    let shape = input.t.shape();
    let Some(strides) = like_strides(&input.t.read().layout, fmt)? else {
        let t = super::boundary::run(py, || random::randint_gen(low, high, &shape, d, Some(&g)))?;
        return finish(py, t, Some(dev), requires_grad);
    };
    let t = super::boundary::run(py, || {
        strided(&shape, strides, d, dev, |t| {
            random::random_(
                t,
                RandomRange::FromTo(low, Some(high)),
                "RandomBackward0",
                Some(&g),
            )
        })
    })?;
    finish(py, t, None, requires_grad)
}

/// `randperm(n)`: int64 by default.
#[pyfunction]
#[pyo3(signature = (n, *, generator=None, dtype=None, device=None, requires_grad=false, layout=None, pin_memory=false))]
#[allow(clippy::too_many_arguments)]
fn randperm(
    py: Python<'_>,
    n: Int,
    generator: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    layout: Option<&Bound<'_, PyAny>>,
    pin_memory: bool,
) -> R {
    let n = n.get("randperm", "n", 1)?;
    let _ = (layout, pin_memory);
    let dev = check_device("randperm", device)?;
    let g = generator_arg("randperm", generator, dev.unwrap_or(Device::Cpu))?;
    let d = extract_dtype(dtype)?.unwrap_or(DType::I64);
    finish(
        py,
        super::boundary::run(py, || random::randperm(n, d, Some(&g)))?,
        dev,
        requires_grad,
    )
}

/// `bernoulli(input, *, generator)`, or `bernoulli(input, p)` (a number p).
#[pyfunction]
#[pyo3(signature = (input, p=None, *, generator=None))]
fn bernoulli(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    p: Option<f64>,
    generator: Option<&Bound<'_, PyAny>>,
) -> R {
    bernoulli_of(py, &input.t, p, generator)
}

fn bernoulli_of(
    py: Python<'_>,
    x: &Tensor,
    p: Option<f64>,
    generator: Option<&Bound<'_, PyAny>>,
) -> R {
    let g = generator_arg("bernoulli", generator, x.device())?;
    let x = x.clone();
    // The output is new, so its fill is no in-place write another thread could see.
    super::boundary::tensor(py, || match p {
        None => random::bernoulli(&x, Some(&g)),
        Some(p) => {
            let out = Tensor::zeros_on(&x.shape(), x.dtype(), x.device());
            random::bernoulli_scalar_(&out, p, Some(&g))?;
            Ok(out)
        }
    })
}

/// multinomial(input, num_samples, replacement=False, *, generator=None) -> LongTensor
///
/// Returns a tensor where each row holds `num_samples` indices sampled from the multinomial
/// probability distribution in the corresponding row of `input`.
///
/// The rows of `input` need not sum to one (they are used as weights), but must be non-negative,
/// finite and have a non-zero sum. Without replacement, an index is drawn at most once per row, so
/// `num_samples` must not exceed the number of categories.
///
/// Args:
///     input (Tensor): the input tensor of probabilities (1-D or 2-D).
///     num_samples (int): the number of samples to draw.
///     replacement (bool, optional): whether to draw with replacement. Default: `False`.
///     generator (gradrs.Generator, optional): a pseudorandom number generator for sampling.
///
/// Example:
///     >>> weights = gradrs.tensor([0, 10, 3, 0], dtype=gradrs.float)
///     >>> gradrs.multinomial(weights, 2)
///     tensor([1, 2])
///     >>> gradrs.multinomial(weights, 4, replacement=True)
///     tensor([1, 2, 1, 1])
#[pyfunction]
#[pyo3(
    signature = (input, num_samples, replacement=Flag::FALSE, *, generator=None),
    text_signature = "(input, num_samples, replacement=False, *, generator=None)"
)]
fn multinomial(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    num_samples: Int,
    replacement: Flag,
    generator: Option<&Bound<'_, PyAny>>,
) -> R {
    let num_samples = num_samples.get("multinomial", "num_samples", 2)?;
    let replacement = replacement.get("multinomial", "replacement")?;
    let g = generator_arg("multinomial", generator, input.t.device())?;
    let x = input.t.clone();
    super::boundary::tensor(py, || {
        random::multinomial(&x, num_samples, replacement, Some(&g))
    })
}

/// poisson(input, generator=None) -> Tensor
///
/// Returns a tensor of the same size as `input` with each element sampled from a Poisson
/// distribution whose rate parameter is the corresponding element of `input`: `out_i ~
/// Poisson(input_i)`. The rates must be non-negative.
///
/// Args:
///     input (Tensor): the input tensor of rates.
///     generator (gradrs.Generator, optional): a pseudorandom number generator for sampling.
///
/// Example:
///     >>> rates = gradrs.tensor([1.0, 4.0, 10.0])
///     >>> gradrs.poisson(rates)
///     tensor([...])
///     >>> gradrs.poisson(gradrs.zeros(3))
///     tensor([0., 0., 0.])
#[pyfunction]
#[pyo3(signature = (input, generator=None))]
fn poisson(py: Python<'_>, input: PyRef<'_, PyTensor>, generator: Option<&Bound<'_, PyAny>>) -> R {
    let g = generator_arg("poisson", generator, input.t.device())?;
    let input_t = input.t.clone();
    super::boundary::tensor(py, || random::poisson(&input_t, Some(&g)))
}

/// `normal(mean, std, *, generator)` with a tensor mean and/or std, or
/// `normal(mean, std, size, *, generator, dtype, device, requires_grad)` with numbers.
#[pyfunction]
#[pyo3(signature = (mean, std=None, size=None, *, generator=None, dtype=None, device=None, requires_grad=false, layout=None, pin_memory=false))]
#[allow(clippy::too_many_arguments)]
fn normal(
    py: Python<'_>,
    mean: &Bound<'_, PyAny>,
    std: Option<&Bound<'_, PyAny>>,
    size: Option<&Bound<'_, PyAny>>,
    generator: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    layout: Option<&Bound<'_, PyAny>>,
    pin_memory: bool,
) -> R {
    let _ = (layout, pin_memory);
    let tensor = |o: &Bound<'_, PyAny>| o.cast::<PyTensor>().ok().map(|t| t.borrow().t.clone());
    let number = |o: &Bound<'_, PyAny>| -> Option<f64> {
        if o.is_instance_of::<PyTensor>() {
            None
        } else {
            o.extract::<f64>().ok()
        }
    };
    let bad = || {
        super::errors::type_error("normal() received an invalid combination of arguments - got (...), but expected one of:\n * (Tensor mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n * (Tensor mean, float std = 1, *, torch.Generator generator = None, Tensor out = None)\n * (float mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n * (float mean, float std, tuple of ints size, *, torch.Generator generator = None, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)")
    };
    let (mt, st) = (tensor(mean), std.and_then(tensor));
    if let Some(size) = size.filter(|s| !s.is_none()) {
        let (Some(m), Some(s)) = (number(mean), std.and_then(number)) else {
            return Err(bad());
        };
        let shape = to_shape(&size.extract::<Vec<i64>>().map_err(|_| bad())?)?;
        let dev = check_device("normal", device)?;
        let g = generator_arg("normal", generator, dev.unwrap_or(Device::Cpu))?;
        let d = extract_dtype(dtype)?.unwrap_or_else(default_float);
        let t = super::boundary::run(py, || {
            let t = Tensor::zeros(&shape, d);
            random::normal_(&t, m, s, Some(&g))?;
            Ok(t)
        })?;
        return finish(py, t, dev, requires_grad);
    }
    let out = match (mt, st) {
        (Some(m), Some(s)) => {
            let g = generator_arg("normal", generator, m.device())?;
            super::boundary::run(py, || {
                random::normal_tensors(Some(&m), Some(&s), 0.0, 0.0, Some(&g))
            })?
        }
        (Some(m), None) => {
            let s = match std {
                None => 1.0,
                Some(o) => number(o).ok_or_else(bad)?,
            };
            let g = generator_arg("normal", generator, m.device())?;
            super::boundary::run(py, || {
                random::normal_tensors(Some(&m), None, 0.0, s, Some(&g))
            })?
        }
        (None, Some(s)) => {
            let m = number(mean).ok_or_else(bad)?;
            let g = generator_arg("normal", generator, s.device())?;
            super::boundary::run(py, || {
                random::normal_tensors(None, Some(&s), m, 0.0, Some(&g))
            })?
        }
        (None, None) => return Err(bad()),
    };
    wrap(py, out)
}

/// Generator of an in-place fill on `t`.
fn gen_for(t: &Tensor, fname: &str, gen: Option<&Bound<'_, PyAny>>) -> PyResult<GeneratorRef> {
    generator_arg(fname, gen, t.device())
}

fn this(slf: &Bound<'_, PyTensor>) -> Py<PyAny> {
    slf.clone().into_any().unbind()
}

#[pymethods]
impl PyTensor {
    /// uniform_(from=0, to=1, *, generator=None) -> Tensor
    ///
    /// Fills `self` with numbers sampled from the continuous uniform distribution on `[from, to)`,
    /// in place. Returns `self`.
    ///
    /// Args:
    ///     from (float, optional): the lower bound. Default: `0`.
    ///     to (float, optional): the upper bound. Default: `1`.
    ///     generator (gradrs.Generator, optional): a pseudorandom number generator for sampling.
    ///
    /// Example:
    ///     >>> gradrs.empty(3).uniform_(-1, 1)
    ///     tensor([-0.0075,  0.5364, -0.8230])
    #[pyo3(signature = (from=0.0, to=1.0, *, generator=None))]
    fn uniform_(
        slf: &Bound<'_, Self>,
        from: f64,
        to: f64,
        generator: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let t = slf.borrow().t.clone();
        let g = gen_for(&t, "uniform_", generator)?;
        super::boundary::catch(|| random::uniform_(&t, from, to, Some(&g)))?;
        Ok(this(slf))
    }
    /// normal_(mean=0, std=1, *, generator=None) -> Tensor
    ///
    /// Fills `self` with elements sampled from the normal distribution parameterized by `mean` and
    /// `std`, in place. Returns `self`.
    ///
    /// Args:
    ///     mean (float, optional): the mean. Default: `0`.
    ///     std (float, optional): the standard deviation (non-negative). Default: `1`.
    ///     generator (gradrs.Generator, optional): a pseudorandom number generator for sampling.
    ///
    /// Example:
    ///     >>> gradrs.empty(3).normal_(mean=10.0, std=0.1)
    ///     tensor([10.1541,  9.9707,  9.7821])
    #[pyo3(signature = (mean=0.0, std=1.0, *, generator=None))]
    fn normal_(
        slf: &Bound<'_, Self>,
        mean: f64,
        std: f64,
        generator: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let t = slf.borrow().t.clone();
        let g = gen_for(&t, "normal_", generator)?;
        super::boundary::catch(|| random::normal_(&t, mean, std, Some(&g)))?;
        Ok(this(slf))
    }
    /// `bernoulli_(p=0.5)`: p a number or a tensor of probabilities.
    #[pyo3(
        signature = (p=NumberArg::Absent, *, generator=None),
        text_signature = "($self, p=0.5, *, generator=None)"
    )]
    fn bernoulli_(
        slf: &Bound<'_, Self>,
        p: NumberArg,
        generator: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let p = match &p {
            NumberArg::Absent => None,
            NumberArg::Given(o) if o.is_none(py) => {
                // Neither overload takes None (PyTorch's parser error).
                return Err(super::errors::type_error(
                    "bernoulli_() received an invalid combination of arguments - got (NoneType), but expected one of:\n * (Tensor p, *, gradrs.Generator generator = None)\n * (float p = 0.5, *, gradrs.Generator generator = None)\n",
                ));
            }
            NumberArg::Given(o) => Some(o.bind(py)),
        };
        let t = slf.borrow().t.clone();
        let g = gen_for(&t, "bernoulli_", generator)?;
        match p {
            Some(p) if p.is_instance_of::<PyTensor>() => {
                let pt = p.cast::<PyTensor>()?.borrow().t.clone();
                super::boundary::catch(|| random::bernoulli_tensor_(&t, &pt, Some(&g)))?
            }
            Some(p) => {
                let v: f64 = p.extract().map_err(|_| {
                    super::errors::type_error(format!(
                        "bernoulli_(): argument 'p' must be float, not {}",
                        p.get_type()
                            .name()
                            .map(|n| n.to_string())
                            .unwrap_or_default()
                    ))
                })?;
                super::boundary::catch(|| random::bernoulli_scalar_(&t, v, Some(&g)))?
            }
            None => super::boundary::catch(|| random::bernoulli_scalar_(&t, 0.5, Some(&g)))?,
        }
        Ok(this(slf))
    }
    /// `x.bernoulli()` (x holds the probabilities) or `x.bernoulli(p)`.
    #[pyo3(signature = (p=None, *, generator=None))]
    fn bernoulli(&self, py: Python<'_>, p: Option<f64>, generator: Option<&Bound<'_, PyAny>>) -> R {
        bernoulli_of(py, &self.t, p, generator)
    }
    /// `random_()`, `random_(to)`, `random_(from, to)` (`to` may be None).
    #[pyo3(signature = (*args, generator=None, **kwargs))]
    fn random_(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        generator: Option<&Bound<'_, PyAny>>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let t = slf.borrow().t.clone();
        let (mut from_kw, mut to_kw) = (None, None);
        if let Some(d) = kwargs {
            for (k, v) in d.iter() {
                match k.extract::<String>()?.as_str() {
                    "from" => from_kw = Some(v),
                    "to" => to_kw = Some(v),
                    other => {
                        return Err(super::errors::type_error(format!(
                            "random_() got an unexpected keyword argument '{other}'"
                        )))
                    }
                }
            }
        }
        let int = |o: &Bound<'_, PyAny>, name: &str| -> PyResult<i64> {
            o.extract::<i64>().map_err(|_| {
                super::errors::type_error(format!(
                    "random_(): argument '{name}' must be int, not {}",
                    o.get_type()
                        .name()
                        .map(|n| n.to_string())
                        .unwrap_or_default()
                ))
            })
        };
        let opt_int = |o: &Bound<'_, PyAny>| -> PyResult<Option<i64>> {
            if o.is_none() {
                Ok(None)
            } else {
                int(o, "to").map(Some)
            }
        };
        let pos: Vec<Bound<'_, PyAny>> = args.iter().collect();
        let (range, name) = match (pos.as_slice(), from_kw.as_ref(), to_kw.as_ref()) {
            ([], None, None) => (RandomRange::Default, "RandomBackward2"),
            ([to], None, None) | ([], None, Some(to)) => (
                RandomRange::FromTo(0, Some(int(to, "to")?)),
                "RandomBackward1",
            ),
            ([from, to], None, None) | ([from], None, Some(to)) => (
                RandomRange::FromTo(int(from, "from")?, opt_int(to)?),
                "RandomBackward0",
            ),
            ([], Some(from), Some(to)) => (
                RandomRange::FromTo(int(from, "from")?, opt_int(to)?),
                "RandomBackward0",
            ),
            _ => {
                return Err(super::errors::type_error(
                    "random_() received an invalid combination of arguments",
                ))
            }
        };
        let g = gen_for(&t, "random_", generator)?;
        super::boundary::catch(|| random::random_(&t, range, name, Some(&g)))?;
        Ok(this(slf))
    }
    /// exponential_(lambd=1, *, generator=None) -> Tensor
    ///
    /// Fills `self` with elements drawn from the exponential distribution of rate `lambd` (density
    /// `lambd * exp(-lambd * x)` for `x >= 0`), in place. Returns `self`.
    ///
    /// Args:
    ///     lambd (float, optional): the rate parameter (positive). Default: `1`.
    ///     generator (gradrs.Generator, optional): a pseudorandom number generator for sampling.
    ///
    /// Example:
    ///     >>> gradrs.empty(3).exponential_(lambd=2.0)
    ///     tensor([1.7542, 0.6152, 0.3075])
    #[pyo3(signature = (lambd=1.0, *, generator=None))]
    fn exponential_(
        slf: &Bound<'_, Self>,
        lambd: f64,
        generator: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let t = slf.borrow().t.clone();
        let g = gen_for(&t, "exponential_", generator)?;
        super::boundary::catch(|| random::exponential_(&t, lambd, Some(&g)))?;
        Ok(this(slf))
    }
    /// geometric_(p, *, generator=None) -> Tensor
    ///
    /// Fills `self` with elements drawn from the geometric distribution: the number of Bernoulli
    /// trials of success probability `p` up to and including the first success (`P(X = k) = (1 -
    /// p)^(k - 1) p`, `k = 1, 2, ...`), in place. Returns `self`.
    ///
    /// Args:
    ///     p (float): the probability of success of each trial, in `(0, 1]`.
    ///     generator (gradrs.Generator, optional): a pseudorandom number generator for sampling.
    ///
    /// Example:
    ///     >>> gradrs.empty(5).geometric_(0.5)
    ///     tensor([1., 1., 2., 1., 1.])
    #[pyo3(signature = (p, *, generator=None))]
    fn geometric_(
        slf: &Bound<'_, Self>,
        p: f64,
        generator: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let t = slf.borrow().t.clone();
        let g = gen_for(&t, "geometric_", generator)?;
        super::boundary::catch(|| random::geometric_(&t, p, Some(&g)))?;
        Ok(this(slf))
    }
    /// log_normal_(mean=1, std=2, *, generator=None) -> Tensor
    ///
    /// Fills `self` with numbers samples from the log-normal distribution whose logarithm is normal
    /// with the given `mean` and standard deviation `std`, in place. Returns `self`.
    ///
    /// Args:
    ///     mean (float, optional): the mean of the underlying normal distribution. Default: `1`.
    ///     std (float, optional): the standard deviation of the underlying normal distribution.
    ///         Default: `2`.
    ///     generator (gradrs.Generator, optional): a pseudorandom number generator for sampling.
    ///
    /// Example:
    ///     >>> gradrs.empty(3).log_normal_(mean=0.0, std=0.25)
    ///     tensor([1.4700, 0.9293, 0.5800])
    #[pyo3(signature = (mean=1.0, std=2.0, *, generator=None))]
    fn log_normal_(
        slf: &Bound<'_, Self>,
        mean: f64,
        std: f64,
        generator: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let t = slf.borrow().t.clone();
        let g = gen_for(&t, "log_normal_", generator)?;
        super::boundary::catch(|| random::log_normal_(&t, mean, std, Some(&g)))?;
        Ok(this(slf))
    }
    /// cauchy_(median=0, sigma=1, *, generator=None) -> Tensor
    ///
    /// Fills `self` with numbers drawn from the Cauchy (Lorentz) distribution of location `median`
    /// and scale `sigma` (density `1 / pi * sigma / ((x - median)^2 + sigma^2)`), in place. Returns
    /// `self`.
    ///
    /// Args:
    ///     median (float, optional): the location of the distribution. Default: `0`.
    ///     sigma (float, optional): the scale of the distribution. Default: `1`.
    ///     generator (gradrs.Generator, optional): a pseudorandom number generator for sampling.
    ///
    /// Example:
    ///     >>> gradrs.empty(3).cauchy_()
    ///     tensor([10.5977,  0.7648, -0.1283])
    #[pyo3(signature = (median=0.0, sigma=1.0, *, generator=None))]
    fn cauchy_(
        slf: &Bound<'_, Self>,
        median: f64,
        sigma: f64,
        generator: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let t = slf.borrow().t.clone();
        let g = gen_for(&t, "cauchy_", generator)?;
        super::boundary::catch(|| random::cauchy_(&t, median, sigma, Some(&g)))?;
        Ok(this(slf))
    }
    /// multinomial(num_samples, replacement=False, *, generator=None) -> LongTensor
    ///
    /// Samples `num_samples` indices from the multinomial distribution whose (unnormalized)
    /// probabilities are the rows of `self` (1-D or 2-D). See `gradrs.multinomial`.
    ///
    /// Args:
    ///     num_samples (int): the number of samples to draw.
    ///     replacement (bool, optional): whether to draw with replacement. Default: `False`.
    ///     generator (gradrs.Generator, optional): a pseudorandom number generator for sampling.
    ///
    /// Example:
    ///     >>> weights = gradrs.tensor([0.0, 10.0, 3.0, 0.0])
    ///     >>> weights.multinomial(2)
    ///     tensor([1, 2])
    ///     >>> weights.multinomial(4, replacement=True)
    ///     tensor([1, 2, 1, 1])
    #[pyo3(
        signature = (num_samples, replacement=Flag::FALSE, *, generator=None),
        text_signature = "($self, num_samples, replacement=False, *, generator=None)"
    )]
    fn multinomial(
        &self,
        py: Python<'_>,
        num_samples: Int,
        replacement: Flag,
        generator: Option<&Bound<'_, PyAny>>,
    ) -> R {
        let num_samples = num_samples.get("multinomial", "num_samples", 1)?;
        let replacement = replacement.get("multinomial", "replacement")?;
        let g = gen_for(&self.t, "multinomial", generator)?;
        wrap(
            py,
            super::boundary::catch(|| {
                random::multinomial(&self.t, num_samples, replacement, Some(&g))
            })?,
        )
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(rand, m)?)?;
    m.add_function(wrap_pyfunction!(randn, m)?)?;
    m.add_function(wrap_pyfunction!(rand_like, m)?)?;
    m.add_function(wrap_pyfunction!(randn_like, m)?)?;
    m.add_function(wrap_pyfunction!(randint, m)?)?;
    m.add_function(wrap_pyfunction!(randint_like, m)?)?;
    m.add_function(wrap_pyfunction!(randperm, m)?)?;
    m.add_function(wrap_pyfunction!(bernoulli, m)?)?;
    m.add_function(wrap_pyfunction!(multinomial, m)?)?;
    m.add_function(wrap_pyfunction!(poisson, m)?)?;
    m.add_function(wrap_pyfunction!(normal, m)?)?;
    Ok(())
}
