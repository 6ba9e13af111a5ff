//! `_native._attach_node(output, inputs, name, backward, ctx=None, to_save=None, saved=None,
//! save_inputs=None)`: one graph node with PyTorch's name whose backward is a Python callable
//! returning a gradient or None per input, written in differentiable ops: for an op composed in
//! Python (`nn.functional`, `backward(grad)`; the node saves its inputs — all of them, or the
//! `save_inputs` positions PyTorch's node saves — so in-place changes and a second backward
//! raise PyTorch's errors as for any node) or an `autograd.Function` (`backward(grads)`, one per
//! output; the context object is the node's `grad_fn` and holds its saved tensors). `saved`
//! names what PyTorch's node of that name saves, shown as its `_saved_<name>` /
//! `_raw_saved_<name>` attributes as a native node's.

use super::autograd::PyNode as PyNodeObject;
use super::errors::foreign;
use super::tensor::PyTensor;
use crate::autograd::graph::{gradient_edge, new_node, Backward, Ctx, Edge};
use crate::autograd::saved::{SavedValue, Value};
use crate::autograd::SavedTensor;
use crate::error::{Error, Result};
use crate::Tensor;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use std::collections::HashSet;
use std::sync::Mutex;

/// Node names live for the program (`Backward::name` is `&'static str`): each distinct name
/// is leaked once.
fn intern(name: &str) -> &'static str {
    static NAMES: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    let mut guard = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    let set = guard.get_or_insert_with(HashSet::new);
    if let Some(&s) = set.get(name) {
        return s;
    }
    let s: &'static str = Box::leak(name.to_owned().into_boxed_str());
    set.insert(s);
    s
}

/// What a Python-recorded node keeps under one of PyTorch's `_saved_<name>` names.
enum Named {
    Tensor(SavedTensor),
    Tensors(Vec<Option<SavedTensor>>),
    Value(Value),
}

/// The node of a Python backward: `_one_node`'s (one output, `backward(grad)`, its inputs
/// saved to check versions) or an `autograd.Function`'s (`ctx` given: `backward(grads)` with a
/// gradient per output; the context holds what `save_for_backward` saved).
pub struct PyBackward {
    name: &'static str,
    saved: Vec<SavedTensor>,
    /// `_saved_<name>` values, in the order given; set through `as_any` once the node exists
    /// (its outputs are saved after they have their grad_fn), hence the lock.
    named: parking_lot::Mutex<Vec<(&'static str, Named)>>,
    backward: Option<Py<PyAny>>,
    /// Called with a tuple of gradients, one per output (else with the one gradient).
    multi: bool,
    /// The `autograd.Function` context, which is also this node's `grad_fn` object.
    pub ctx: Option<Py<PyAny>>,
}

impl PyBackward {
    fn call(
        &self,
        py: Python<'_>,
        f: &Py<PyAny>,
        grads: &[Option<Tensor>],
    ) -> PyResult<Vec<Option<Tensor>>> {
        let to_py = |g: Option<Tensor>| match g {
            Some(g) => super::tensor::wrap(py, g),
            None => Ok(py.None()),
        };
        let out = if self.multi {
            let items: Vec<Py<PyAny>> =
                grads.iter().cloned().map(to_py).collect::<PyResult<_>>()?;
            f.call1(py, (PyTuple::new(py, items)?,))?
        } else {
            f.call1(py, (to_py(grads.first().cloned().flatten())?,))?
        };
        out.bind(py)
            .try_iter()?
            .map(|item| {
                let item = item?;
                if item.is_none() {
                    return Ok(None);
                }
                let t = item.cast::<PyTensor>().map_err(|_| {
                    super::errors::type_error("backward must return Tensors or None")
                })?;
                let t = t.borrow().t.clone();
                Ok(Some(t))
            })
            .collect()
    }
}

impl Backward for PyBackward {
    fn name(&self) -> &'static str {
        self.name
    }
    fn apply(&mut self, grads: &[Option<Tensor>], ctx: &Ctx) -> Result<Vec<Option<Tensor>>> {
        // Unpacking checks versions and whether the graph was already freed.
        for s in &self.saved {
            s.unpack(ctx)?;
        }
        // The named ones too: PyTorch's node checks (and unpacks through the hooks) each.
        for (_, v) in self.named.get_mut().iter() {
            match v {
                Named::Tensor(s) => drop(s.unpack(ctx)?),
                Named::Tensors(list) => {
                    for s in list.iter().flatten() {
                        s.unpack(ctx)?;
                    }
                }
                Named::Value(_) => {}
            }
        }
        let Some(f) = &self.backward else {
            return Err(Error::Runtime(
                crate::autograd::saved::BACKWARD_TWICE.into(),
            ));
        };
        Python::attach(|py| self.call(py, f, grads).map_err(|e| foreign(py, e)))
    }
    fn runs_on_undefined_grads(&self) -> bool {
        self.ctx.is_some()
    }
    fn release(&mut self) {
        self.saved.iter_mut().for_each(SavedTensor::release);
        for (_, v) in self.named.get_mut().iter_mut() {
            match v {
                Named::Tensor(s) => s.release(),
                Named::Tensors(list) => list.iter_mut().flatten().for_each(SavedTensor::release),
                Named::Value(_) => {}
            }
        }
        match &self.ctx {
            // A Function without saved tensors may run again, as in PyTorch.
            Some(ctx) => {
                let freed = Python::attach(|py| {
                    ctx.bind(py)
                        .cast::<PyNodeObject>()
                        .ok()
                        .and_then(|c| c.get().saved.lock().take())
                });
                drop(freed);
            }
            // Frees what the callable holds (the forward's local graph).
            None => {
                if let Some(f) = self.backward.take() {
                    Python::attach(|_| drop(f));
                }
            }
        }
    }
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
    fn saved_values(&mut self) -> Vec<(&'static str, SavedValue<'_>)> {
        self.named
            .get_mut()
            .iter_mut()
            .map(|(name, v)| {
                let v = match v {
                    Named::Tensor(s) => SavedValue::Tensor(s),
                    Named::Tensors(list) => {
                        SavedValue::Tensors(list.iter_mut().map(Option::as_mut).collect())
                    }
                    Named::Value(Value::Unsaved) => SavedValue::Absent,
                    Named::Value(v) => SavedValue::Value(v.clone()),
                };
                (*name, v)
            })
            .collect()
    }
}

/// A tensor saved for `_saved_<name>`: as an output (no reference cycle) when it is one of the
/// node's outputs, else as an input; through the saved-tensor hooks, as PyTorch saves.
fn save_named(t: &Tensor, outputs: &[Option<Tensor>]) -> Result<SavedTensor> {
    match outputs
        .iter()
        .position(|out| out.as_ref().is_some_and(|out| out.ptr_eq(t)))
    {
        Some(nr) => SavedTensor::output(t, nr as u32),
        None => SavedTensor::input(t),
    }
}

/// One `(name, value)` of `_attach_node`'s `saved`: a tensor, a list of tensors (or None), None,
/// a bool, int, float, str, a tuple of ints, or `...` for a tensor not saved, converted as
/// PyTorch shows its saved values.
fn named_value(value: &Bound<'_, PyAny>, outputs: &[Option<Tensor>]) -> PyResult<Named> {
    use pyo3::types::{PyBool, PyFloat, PyInt, PyString};
    if let Ok(t) = value.cast::<PyTensor>() {
        return Ok(Named::Tensor(save_named(&t.borrow().t, outputs)?));
    }
    if value.is_none() {
        return Ok(Named::Value(Value::None));
    }
    // `...`: a tensor this node did not need to save (`_saved_<name>` None, as PyTorch's
    // undefined saved variable).
    if value.is(value.py().Ellipsis()) {
        return Ok(Named::Value(Value::Unsaved));
    }
    if value.is_instance_of::<PyBool>() {
        return Ok(Named::Value(Value::Bool(value.extract()?)));
    }
    // A number (alpha, beta, p): shown signed, as PyTorch shows a saved Scalar. An int64_t
    // attribute (a dim, ignore_index, padding_idx), which PyTorch shows unsigned, comes as its
    // two's complement in 2**63..2**64 (`value % 2**64`).
    if value.is_instance_of::<PyInt>() {
        if let Ok(v) = value.extract::<i64>() {
            return Ok(Named::Value(Value::Scalar(crate::dtype::Scalar::Int(v))));
        }
        return Ok(Named::Value(Value::Int(value.extract::<u64>()? as i64)));
    }
    if value.is_instance_of::<PyFloat>() {
        return Ok(Named::Value(Value::Float(value.extract()?)));
    }
    if let Ok(s) = value.cast::<PyString>() {
        return Ok(Named::Value(Value::Str(intern(s.to_str()?))));
    }
    let items: Vec<Bound<'_, PyAny>> = value.try_iter()?.collect::<PyResult<_>>()?;
    if items.iter().any(|o| o.cast::<PyTensor>().is_ok()) {
        let list = items
            .iter()
            .map(|o| {
                Ok(if o.is_none() {
                    None
                } else {
                    Some(save_named(&o.cast::<PyTensor>()?.borrow().t, outputs)?)
                })
            })
            .collect::<PyResult<_>>()?;
        return Ok(Named::Tensors(list));
    }
    Ok(Named::Value(Value::Ints(
        items.iter().map(|o| o.extract()).collect::<PyResult<_>>()?,
    )))
}

/// `_attach_node(output, inputs, name, backward, ctx=None, to_save=None, saved=None,
/// save_inputs=None)`: `output` is one
/// tensor (`backward(grad)`), or a list with a tensor or None per output (`backward(grads)`);
/// `inputs` are tensors or None (an edge to nothing); `ctx` is an `autograd.Function`
/// context, which becomes the node's `grad_fn` object; `to_save` are the tensors `ctx.saved_tensors` will return (outputs among them saved
/// as outputs, without a reference cycle); `saved` are `(name, value)` pairs shown as the
/// node's `_saved_<name>` (PyTorch's names for that node), tensors saved as `to_save`'s;
/// `save_inputs` (without `ctx`): the positions in `inputs` the node saves (version-checked at
/// backward, kept alive), PyTorch's choice for that node; None saves every input.
#[pyfunction]
#[pyo3(signature = (output, inputs, name, backward, ctx=None, to_save=None, saved=None, save_inputs=None))]
#[allow(clippy::too_many_arguments)]
pub fn _attach_node(
    output: &Bound<'_, PyAny>,
    inputs: &Bound<'_, PyList>,
    name: &str,
    backward: Py<PyAny>,
    ctx: Option<Bound<'_, PyNodeObject>>,
    to_save: Option<&Bound<'_, PyAny>>,
    saved: Option<&Bound<'_, PyAny>>,
    save_inputs: Option<Vec<usize>>,
) -> PyResult<()> {
    let inputs: Vec<Option<Tensor>> = inputs
        .iter()
        .map(|o| {
            Ok(if o.is_none() {
                None
            } else {
                Some(o.cast::<PyTensor>()?.borrow().t.clone())
            })
        })
        .collect::<PyResult<_>>()?;
    if let Some(i) = save_inputs.iter().flatten().find(|&&i| i >= inputs.len()) {
        return Err(super::errors::index_error(format!(
            "save_inputs: input {i} of {}",
            inputs.len()
        )));
    }
    let multi = output.cast::<PyTensor>().is_err();
    let outputs: Vec<Option<Tensor>> = if multi {
        output
            .try_iter()?
            .map(|o| {
                let o = o?;
                Ok(if o.is_none() {
                    None
                } else {
                    Some(o.cast::<PyTensor>()?.borrow().t.clone())
                })
            })
            .collect::<PyResult<_>>()?
    } else {
        vec![Some(output.cast::<PyTensor>()?.borrow().t.clone())]
    };
    let node = PyBackward {
        name: intern(name),
        saved: match (&ctx, &save_inputs) {
            (Some(_), _) => Vec::new(),
            (None, None) => inputs
                .iter()
                .flatten()
                .map(SavedTensor::input_unhooked)
                .collect(),
            (None, Some(which)) => which
                .iter()
                .filter_map(|&i| inputs.get(i).cloned().flatten())
                .map(|t| SavedTensor::input_unhooked(&t))
                .collect(),
        },
        named: Default::default(),
        backward: Some(backward),
        multi,
        ctx: ctx.as_ref().map(|c| c.clone().into_any().unbind()),
    };
    // A None input has an edge to nothing, as PyTorch shows it in `next_functions`.
    let edges = inputs
        .iter()
        .map(|t| match t {
            Some(t) => gradient_edge(t),
            None => Edge {
                node: None,
                input_nr: 0,
                shape: Default::default(),
                dtype: crate::dtype::DType::F32,
                device: crate::tensor::Device::Cpu,
            },
        })
        .collect();
    let node = new_node(Box::new(node), edges, outputs.len() as u32);
    // A custom Function's output that is a view (of an input, or an input returned as is) may
    // not be modified in place, as in PyTorch; with several differentiable outputs it is
    // refused as a multi-output node's view (PyTorch's `_process_backward_mode_ad`).
    let multi_view = outputs.iter().flatten().count() > 1;
    for (i, out) in outputs.iter().enumerate() {
        if let Some(t) = out {
            t.set_grad_fn(Some(node.clone()), i as u32);
            if ctx.is_some() {
                t.mark_custom_function_view(multi_view);
            }
        }
    }
    // What `save_for_backward` saved goes through the saved-tensor hooks once the outputs
    // have their grad_fn, as in PyTorch (which saves at the end of `Function.apply`).
    let for_ctx: Vec<Option<SavedTensor>> = match to_save {
        None => Vec::new(),
        Some(list) => list
            .try_iter()?
            .map(|o| {
                let o = o?;
                if o.is_none() {
                    return Ok(None);
                }
                let t = o.cast::<PyTensor>()?.borrow().t.clone();
                let nr = outputs
                    .iter()
                    .position(|out| out.as_ref().is_some_and(|out| out.ptr_eq(&t)));
                Ok(Some(match nr {
                    Some(nr) => SavedTensor::output(&t, nr as u32)?,
                    None => SavedTensor::input(&t)?,
                }))
            })
            .collect::<PyResult<_>>()?,
    };
    // Saved once the outputs have their grad_fn, so an output is saved as one.
    if let Some(saved) = saved {
        let mut named = Vec::new();
        for item in saved.try_iter()? {
            let (key, value): (String, Bound<'_, PyAny>) = item?.extract()?;
            named.push((intern(&key), named_value(&value, &outputs)?));
        }
        node.try_with(|n| {
            if let Some(b) = n
                .backward
                .as_any()
                .and_then(|a| a.downcast_ref::<PyBackward>())
            {
                *b.named.lock() = named;
            }
        });
    }
    if let Some(ctx) = ctx {
        let ctx = ctx.get();
        *ctx.saved.lock() = Some(for_ctx);
        ctx.bind_weak(&node);
    }
    Ok(())
}

/// `_bump_version(t)`: one more write to `t`'s memory, as PyTorch counts when a Function marks
/// an input dirty.
#[pyfunction]
pub fn _bump_version(t: PyRef<'_, PyTensor>) {
    t.t.bump_version();
}
