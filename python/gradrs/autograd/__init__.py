"""`gradrs.autograd`: backward, grad, Variable, grad mode, and the graph node type."""

from __future__ import annotations

from collections.abc import Sequence as _Sequence

from .. import _native
from .._grad_mode import enable_grad, no_grad, set_grad_enabled
from .._grad_mode import (enforce_grad_layout_policy, inference_mode, is_multithreading_enabled,
                          set_multithreading_enabled)
from . import anomaly_mode, forward_ad, function, functional, grad_mode, graph
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .grad_mode import _unsafe_preserve_version_counter  # noqa: F401
from .function import Function, once_differentiable
from .gradcheck import gradcheck, gradgradcheck


def _as_list(x):
    if x is None:
        return None
    if isinstance(x, _native.Tensor):
        return [x]
    return list(x)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None, inputs=None):
    """Accumulate the gradients of `tensors` w.r.t. graph leaves into their `.grad`.

    Examples:
        >>> x = gradrs.tensor([1.0, 2.0], requires_grad=True)
        >>> gradrs.autograd.backward([(x * x).sum()])
        >>> x.grad
        tensor([2., 4.])
    """
    if grad_variables is not None:
        grad_tensors = grad_variables
    tensors = _as_list(tensors)
    grads = _as_list(grad_tensors)
    if inputs is not None:
        inputs = _as_list(inputs)
        if len(inputs) == 0:
            raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    _native._backward(tensors, grads, retain_graph, create_graph, inputs)


# Typed as PyTorch types it: a tuple of Tensors, although allow_unused=True gives None for an
# unused input.
def grad(outputs: _native.Tensor | _Sequence[_native.Tensor],
         inputs: _native.Tensor | _Sequence[_native.Tensor],
         grad_outputs: _native.Tensor | _Sequence[_native.Tensor | None] | None = None,
         retain_graph: bool | None = None, create_graph: bool = False, only_inputs: bool = True,
         allow_unused: bool | None = None, is_grads_batched: bool = False,
         materialize_grads: bool = False) -> tuple[_native.Tensor, ...]:
    """Return the gradients of `outputs` w.r.t. `inputs` (a tuple), leaving `.grad` alone.

    Examples:
        >>> x = gradrs.tensor(1.0, requires_grad=True)
        >>> gradrs.autograd.grad(x ** 3, x)
        (tensor(3.),)
        >>> (g,) = gradrs.autograd.grad(x ** 3, x, create_graph=True)
        >>> gradrs.autograd.grad(g, x)
        (tensor(6.),)
    """
    if allow_unused is None:
        allow_unused = materialize_grads
    ins = [inputs] if isinstance(inputs, _native.Tensor) else list(inputs)
    result = _native._grad(_as_list(outputs), ins, _as_list(grad_outputs), retain_graph,
                           create_graph, allow_unused)
    if materialize_grads:
        result = tuple(g if g is not None else _native.zeros_like(i) for g, i in zip(result, ins))
    return result  # type: ignore[return-value] # None only where allow_unused, as PyTorch's


def Variable(data, requires_grad=False, volatile=False):
    """Legacy `Variable(tensor, requires_grad=...)`: today just the tensor.

    Examples:
        >>> v = gradrs.autograd.Variable(gradrs.ones(2), requires_grad=True)
        >>> v
        tensor([1., 1.], requires_grad=True)
    """
    t = data.detach()
    if requires_grad:
        t.requires_grad_(True)
    return t


def graph_stats():
    """gradrs's own: what the autograd graphs alive in the process hold, as a dict:
    ``nodes`` (live graph nodes, ``AccumulateGrad`` included), ``saved_tensors`` (tensors
    saved for backward and not yet freed; those packed by saved-tensor hooks are the hooks'
    and not counted) and ``saved_bytes`` (their sizes: elements times element size). All
    three return to zero once the tensors of the graphs are gone or backward freed them."""
    nodes, saved, saved_bytes = _native._graph_stats()
    return {"nodes": nodes, "saved_tensors": saved, "saved_bytes": saved_bytes}


__all__ = ["Function", "Variable", "anomaly_mode", "backward", "detect_anomaly", "enable_grad",
           "enforce_grad_layout_policy", "forward_ad", "function", "functional", "grad", "grad_mode", "gradcheck",
           "gradgradcheck", "graph", "graph_stats", "inference_mode", "is_multithreading_enabled",
           "no_grad", "once_differentiable", "set_detect_anomaly", "set_grad_enabled",
           "set_multithreading_enabled"]
