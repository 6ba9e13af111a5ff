//! The Tensor's autograd methods: backward, detach, requires_grad_, hooks, retain_grad.

use super::*;

#[pymethods]
impl PyTensor {
    // ---- autograd ---------------------------------------------------------------------------

    /// backward(gradient=None, retain_graph=None, create_graph=False, inputs=None)
    ///
    /// Computes the gradient of this tensor with respect to the graph's leaves and accumulates it
    /// into their `.grad`.
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
            batch: None,
        };
        let inputs = crate::python::autograd::tensor_list(inputs)?;
        if let Some(ins) = &inputs {
            if ins.is_empty() {
                return Err(crate::python::errors::runtime_error(
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
        crate::python::boundary::run(py, || {
            autograd::backward(
                std::slice::from_ref(&self.t),
                &grads,
                opts,
                inputs.as_deref(),
            )
        })
    }
    /// A new tensor sharing this tensor's values, without history.
    fn detach(&self, py: Python<'_>) -> R {
        wrap(py, self.t.detach())
    }
    /// Detaches the tensor from its history in place; returns it.
    fn detach_(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        slf.borrow().t.detach_()?;
        Ok(slf.clone().into_any().unbind())
    }
    /// requires_grad_(requires_grad=True) -> Tensor
    ///
    /// Sets whether autograd records operations on this leaf; returns it.
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
        let existing =
            crate::python::hooks::find_dict(py, &hooks::tensor_hooks(&self.t), |h| h.as_any());
        let dict = match existing {
            Some(d) => d,
            None => {
                let d = crate::python::hooks::new_dict(py)?;
                let hd = crate::python::hooks::HookDict {
                    dict: d.clone_ref(py),
                };
                let hd = std::sync::Arc::new(hd);
                crate::python::boundary::catch(|| hooks::register_tensor_hook(&self.t, hd))?;
                d
            }
        };
        crate::python::hooks::add_hook(py, &dict, hook)
    }
    /// `register_post_accumulate_grad_hook(hook)`: `hook(tensor)` after `.grad` was updated.
    fn register_post_accumulate_grad_hook(&self, py: Python<'_>, hook: Py<PyAny>) -> R {
        use crate::autograd::hooks;
        let existing =
            crate::python::hooks::find_dict(py, &hooks::post_accumulate_grad_hooks(&self.t), |h| {
                h.as_any()
            });
        let dict = match existing {
            Some(d) => d,
            None => {
                let d = crate::python::hooks::new_dict(py)?;
                let hd = crate::python::hooks::HookDict {
                    dict: d.clone_ref(py),
                };
                hooks::register_post_accumulate_grad_hook(&self.t, std::sync::Arc::new(hd))?;
                d
            }
        };
        crate::python::hooks::add_hook(py, &dict, hook)
    }
    /// The `OrderedDict` of hooks registered since this tensor's history last changed.
    #[getter]
    fn _backward_hooks(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        let hooks = crate::autograd::hooks::tensor_hooks(&self.t);
        crate::python::hooks::find_dict(py, &hooks, |h| h.as_any())
    }
    /// The hooks registered with `register_post_accumulate_grad_hook`, or None.
    #[getter]
    fn _post_accumulate_grad_hooks(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        let hooks = crate::autograd::hooks::post_accumulate_grad_hooks(&self.t);
        crate::python::hooks::find_dict(py, &hooks, |h| h.as_any())
    }
    /// Makes this non-leaf keep its gradient in `.grad` during `backward()`.
    fn retain_grad(&self) -> PyResult<()> {
        if !self.t.requires_grad() {
            return Err(crate::python::errors::runtime_error(
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
}
