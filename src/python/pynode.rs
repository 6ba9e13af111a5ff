//! `_native._attach_node(output, inputs, name, backward, ctx=None, to_save=None)`: one graph
//! node with PyTorch's name whose backward is a Python callable returning a gradient or None
//! per input, written in differentiable ops: for an op composed in Python (`nn.functional`,
//! `backward(grad)`; the node saves its inputs, so in-place changes and a second backward raise
//! PyTorch's errors as for any node) or an `autograd.Function` (`backward(grads)`, one per
//! output; the context object is the node's `grad_fn` and holds its saved tensors).

use super::autograd::PyNode as PyNodeObject;
use super::errors::foreign;
use super::tensor::PyTensor;
use crate::autograd::graph::{gradient_edge, new_node, Backward, Ctx, Edge};
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

/// The node of a Python backward: `_one_node`'s (one output, `backward(grad)`, its inputs
/// saved to check versions) or an `autograd.Function`'s (`ctx` given: `backward(grads)` with a
/// gradient per output; the context holds what `save_for_backward` saved).
pub struct PyBackward {
    name: &'static str,
    saved: Vec<SavedTensor>,
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
        let Some(f) = &self.backward else {
            return Err(Error::Runtime(
                crate::autograd::saved::BACKWARD_TWICE.into(),
            ));
        };
        Python::attach(|py| self.call(py, f, grads).map_err(|e| foreign(py, e)))
    }
    fn release(&mut self) {
        self.saved.iter_mut().for_each(SavedTensor::release);
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
}

/// `_attach_node(output, inputs, name, backward, ctx=None, to_save=None)`: `output` is one
/// tensor (`backward(grad)`), or a list with a tensor or None per output (`backward(grads)`);
/// `inputs` are tensors or None (an edge to nothing); `ctx` is an `autograd.Function`
/// context, which becomes the node's `grad_fn` object; `to_save` are the tensors `ctx.saved_tensors` will return (outputs among them saved
/// as outputs, without a reference cycle).
#[pyfunction]
#[pyo3(signature = (output, inputs, name, backward, ctx=None, to_save=None))]
pub fn _attach_node(
    output: &Bound<'_, PyAny>,
    inputs: &Bound<'_, PyList>,
    name: &str,
    backward: Py<PyAny>,
    ctx: Option<Bound<'_, PyNodeObject>>,
    to_save: Option<&Bound<'_, PyAny>>,
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
        saved: if ctx.is_some() {
            Vec::new()
        } else {
            inputs
                .iter()
                .flatten()
                .map(SavedTensor::input_unhooked)
                .collect()
        },
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
    let saved: Vec<Option<SavedTensor>> = match to_save {
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
    if let Some(ctx) = ctx {
        let ctx = ctx.get();
        *ctx.saved.lock() = Some(saved);
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
