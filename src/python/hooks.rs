//! Python hooks for the engine (`autograd::hooks`): one `OrderedDict` of callables per tensor
//! or node, as PyTorch keeps them (`_backward_hooks`), run in insertion order, each seeing the
//! previous one's result, with PyTorch's checks on what a hook returns. `register_hook`
//! returns `gradrs.utils.hooks.RemovableHandle(dict)`, whose `remove()` deletes the entry.

use super::errors::foreign;
use super::tensor::{wrap, PyTensor};
use crate::autograd::hooks::{PostAccumulateGradHook, PostHook, PreHook, TensorHook};
use crate::error::Result;
use crate::Tensor;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::any::Any;

/// The hooks of one tensor or node: an `OrderedDict` {handle id: callable}.
pub struct HookDict {
    /// An `OrderedDict`: item access must go through its methods, not `PyDict_*` (which
    /// would bypass its order bookkeeping), so it is held as an object.
    pub dict: Py<PyAny>,
}

fn hook_name(hook: &Bound<'_, PyAny>) -> String {
    hook.getattr("__name__")
        .and_then(|n| n.extract::<String>())
        .unwrap_or_else(|_| "<unknown>".into())
}

fn type_name(o: &Bound<'_, PyAny>) -> String {
    o.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_default()
}

/// PyTorch's `check_single_result`: a replacement must be a tensor of the same type, device
/// and size as the gradient it replaces.
fn check_single_result(
    original: &Bound<'_, PyAny>,
    result: &Bound<'_, PyAny>,
    hook: &Bound<'_, PyAny>,
) -> PyResult<()> {
    if result.is_none() {
        return Ok(());
    }
    if original.is_none() {
        return Err(super::errors::runtime_error(
            "can't replace a None gradient with a non-None value",
        ));
    }
    let (Ok(o), Ok(r)) = (original.cast::<PyTensor>(), result.cast::<PyTensor>()) else {
        return Err(super::errors::type_error(format!(
            "expected Variable, but hook returned '{}'",
            type_name(result)
        )));
    };
    let (o, r) = (o.borrow().t.clone(), r.borrow().t.clone());
    let name = hook_name(hook);
    if o.dtype() != r.dtype() || o.device() != r.device() {
        let (ot, rt): (String, String) = (
            original.call_method0("type")?.extract()?,
            result.call_method0("type")?.extract()?,
        );
        return Err(super::errors::runtime_error(format!(
            "hook '{name}' has changed the type of value (was {ot} got {rt})"
        )));
    }
    if o.shape() != r.shape() {
        return Err(super::errors::runtime_error(format!(
            "hook '{name}' has changed the size of value"
        )));
    }
    Ok(())
}

/// PyTorch's `check_result` for hooks that get and return tuples.
fn check_result(
    prev: &Bound<'_, PyAny>,
    result: &Bound<'_, PyAny>,
    hook: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let Ok(res) = result.cast::<PyTuple>() else {
        return Err(super::errors::type_error(format!(
            "expected tuple, but hook returned '{}'",
            type_name(result)
        )));
    };
    let prev = prev.cast::<PyTuple>()?;
    if prev.len() != res.len() {
        return Err(super::errors::runtime_error(format!(
            "hook '{}' has returned an incorrect number of values (got {}, but expected {})",
            hook_name(hook),
            res.len(),
            prev.len()
        )));
    }
    for (p, r) in prev.iter().zip(res.iter()) {
        check_single_result(&p, &r, hook)?;
    }
    Ok(())
}

impl HookDict {
    /// Call every hook with `args`; a hook's non-None result replaces `args[0]` for the next.
    /// The values are listed first, so a hook may remove itself while they run.
    fn call_hooks<'py>(
        &self,
        py: Python<'py>,
        mut args: Vec<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let hooks = self.dict.bind(py).call_method0("values")?;
        let hooks: Vec<Bound<'py, PyAny>> = hooks.try_iter()?.collect::<PyResult<_>>()?;
        for hook in hooks {
            let res = hook.call1(PyTuple::new(py, &args)?)?;
            if res.is_none() || res.is(&args[0]) {
                continue;
            }
            if args[0].is_exact_instance_of::<PyTuple>() {
                check_result(&args[0], &res, &hook)?;
            } else {
                check_single_result(&args[0], &res, &hook)?;
            }
            args[0] = res;
        }
        Ok(args.swap_remove(0))
    }
}

fn to_py<'py>(py: Python<'py>, g: Option<Tensor>) -> PyResult<Bound<'py, PyAny>> {
    Ok(match g {
        Some(g) => wrap(py, g)?.into_bound(py),
        None => py.None().into_bound(py),
    })
}

fn tuple_of<'py>(py: Python<'py>, gs: &[Option<Tensor>]) -> PyResult<Bound<'py, PyAny>> {
    let items: Vec<Bound<'py, PyAny>> = gs
        .iter()
        .map(|g| to_py(py, g.clone()))
        .collect::<PyResult<_>>()?;
    Ok(PyTuple::new(py, items)?.into_any())
}

fn from_py(o: &Bound<'_, PyAny>) -> PyResult<Option<Tensor>> {
    if o.is_none() {
        return Ok(None);
    }
    Ok(Some(o.cast::<PyTensor>()?.borrow().t.clone()))
}

fn from_tuple(o: &Bound<'_, PyAny>) -> PyResult<Vec<Option<Tensor>>> {
    o.try_iter()?.map(|item| from_py(&item?)).collect()
}

impl TensorHook for HookDict {
    fn call(&self, grad: Option<Tensor>) -> Result<Option<Tensor>> {
        Python::attach(|py| {
            let run = || -> PyResult<Option<Tensor>> {
                let out = self.call_hooks(py, vec![to_py(py, grad)?])?;
                from_py(&out)
            };
            run().map_err(|e| foreign(py, e))
        })
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl PreHook for HookDict {
    fn call(&self, grad_outputs: Vec<Option<Tensor>>) -> Result<Vec<Option<Tensor>>> {
        Python::attach(|py| {
            let run = || -> PyResult<Vec<Option<Tensor>>> {
                let out = self.call_hooks(py, vec![tuple_of(py, &grad_outputs)?])?;
                from_tuple(&out)
            };
            run().map_err(|e| foreign(py, e))
        })
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl PostHook for HookDict {
    fn call(
        &self,
        grad_inputs: Vec<Option<Tensor>>,
        grad_outputs: &[Option<Tensor>],
    ) -> Result<Vec<Option<Tensor>>> {
        Python::attach(|py| {
            let run = || -> PyResult<Vec<Option<Tensor>>> {
                let args = vec![tuple_of(py, &grad_inputs)?, tuple_of(py, grad_outputs)?];
                from_tuple(&self.call_hooks(py, args)?)
            };
            run().map_err(|e| foreign(py, e))
        })
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl PostAccumulateGradHook for HookDict {
    fn call(&self, variable: &Tensor) -> Result<()> {
        Python::attach(|py| {
            let run = || -> PyResult<()> {
                let t = wrap(py, variable.clone())?;
                let hooks = self.dict.bind(py).call_method0("values")?;
                let hooks: Vec<Bound<'_, PyAny>> = hooks.try_iter()?.collect::<PyResult<_>>()?;
                let t = t.into_bound(py);
                for hook in hooks {
                    let res = hook.call1((&t,))?;
                    if !res.is_none() {
                        check_single_result(&t, &res, &hook)?;
                        return Err(super::errors::runtime_error(
                            "Tensor post accumulate grad hooks should return None.",
                        ));
                    }
                }
                Ok(())
            };
            run().map_err(|e| foreign(py, e))
        })
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// A new empty `OrderedDict` (it must take weak references, for the handle).
pub fn new_dict(py: Python<'_>) -> PyResult<Py<PyAny>> {
    Ok(py
        .import("collections")?
        .getattr("OrderedDict")?
        .call0()?
        .unbind())
}

/// Put `hook` in `dict` under a fresh `RemovableHandle` and return the handle.
pub fn add_hook(py: Python<'_>, dict: &Py<PyAny>, hook: Py<PyAny>) -> PyResult<Py<PyAny>> {
    let handle = match py
        .import("gradrs.utils.hooks")
        .and_then(|m| m.getattr("RemovableHandle"))
    {
        Ok(cls) => cls.call1((dict.bind(py),))?,
        Err(_) => Bound::new(py, RemovableHandle::new(py, dict)?)?.into_any(),
    };
    dict.bind(py).set_item(handle.getattr("id")?, hook)?;
    Ok(handle.unbind())
}

/// The dict behind one of `hooks` that this module made, if any.
pub fn find_dict<'a, T: ?Sized + 'a>(
    py: Python<'_>,
    hooks: impl IntoIterator<Item = &'a std::sync::Arc<T>>,
    as_any: impl Fn(&T) -> &dyn Any,
) -> Option<Py<PyAny>> {
    hooks.into_iter().find_map(|h| {
        as_any(h)
            .downcast_ref::<HookDict>()
            .map(|d| d.dict.clone_ref(py))
    })
}

/// `RemovableHandle` for when `gradrs.utils.hooks` is not importable: the same `id`,
/// `remove()` and context-manager behaviour, holding the dict weakly.
#[pyclass(module = "gradrs.utils.hooks", name = "RemovableHandle")]
pub struct RemovableHandle {
    dict: Py<PyAny>,
    #[pyo3(get)]
    id: u64,
}

static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl RemovableHandle {
    fn new(py: Python<'_>, dict: &Py<PyAny>) -> PyResult<RemovableHandle> {
        let weak = py
            .import("weakref")?
            .getattr("ref")?
            .call1((dict.bind(py),))?;
        Ok(RemovableHandle {
            dict: weak.unbind(),
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        })
    }
}

#[pymethods]
impl RemovableHandle {
    fn remove(&self, py: Python<'_>) -> PyResult<()> {
        let dict = self.dict.call0(py)?;
        let dict = dict.bind(py);
        if !dict.is_none() && dict.contains(self.id)? {
            dict.del_item(self.id)?;
        }
        Ok(())
    }
    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }
    fn __exit__(
        &self,
        py: Python<'_>,
        _t: Py<PyAny>,
        _v: Py<PyAny>,
        _tb: Py<PyAny>,
    ) -> PyResult<()> {
        self.remove(py)
    }
}
