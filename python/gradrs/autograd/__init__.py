"""`gradrs.autograd`: backward, grad, Variable, grad mode, and the graph node type."""

from __future__ import annotations

import warnings as _warnings
from collections.abc import Mapping as _Mapping
from collections.abc import Sequence as _Sequence

from .. import _native
from .._grad_mode import enable_grad, no_grad, set_grad_enabled
from .._grad_mode import (enforce_grad_layout_policy, inference_mode, is_multithreading_enabled,
                          set_multithreading_enabled)
from . import anomaly_mode, forward_ad, function, functional, grad_mode, graph
from . import profiler, profiler_util  # noqa: F401 - torch.autograd.profiler(_util)
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .grad_mode import _unsafe_preserve_version_counter  # noqa: F401
from .function import Function, once_differentiable
from .gradcheck import gradcheck, gradgradcheck


def _as_list(x):
    if x is None:
        return None
    if isinstance(x, _native.Tensor) or hasattr(type(x), "_vmap_level"):
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
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    keys = None
    if isinstance(inputs, _native.Tensor) or hasattr(type(inputs), "_vmap_level"):
        ins = [inputs]
    elif type(inputs) is dict:
        keys, ins = list(inputs), list(inputs.values())
    elif isinstance(inputs, _Mapping):
        raise TypeError(f"`inputs` argument to `grad()` must be a dict, not {type(inputs).__name__}. "
                        "Other Mapping types are not supported.")
    else:
        ins = list(inputs)
    if not ins:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if not only_inputs:
        _warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to True). "
                       "To accumulate gradient for other parts of the graph, please use "
                       "gradrs.autograd.backward.", FutureWarning, stacklevel=2)
    outs, gos = _as_list(outputs), _as_list(grad_outputs)
    if not is_grads_batched and any(hasattr(type(t), "_vmap_level")
                                    for t in outs + ins + (gos or [])):
        # Under vmap (BatchedTensors): its batching rule, Note [vmap].
        from .._vmap import batched_autograd_grad
        return batched_autograd_grad(outs, ins, gos, retain_graph, create_graph, allow_unused)
    if is_grads_batched:
        result = _batched_grad(outs, ins, gos, retain_graph, create_graph, allow_unused)
    else:
        result = _native._grad(outs, ins, gos, retain_graph, create_graph, allow_unused)
    if materialize_grads:
        result = tuple(g if g is not None else _native.zeros_like(i, requires_grad=create_graph)
                       for g, i in zip(result, ins))
    if keys is not None:
        return dict(zip(keys, result))  # type: ignore[return-value]
    return result  # type: ignore[return-value] # None only where allow_unused, as PyTorch's


def _batched_grad(outs, ins, gos, retain_graph, create_graph, allow_unused):
    """grad(is_grads_batched=True): dim 0 of each grad_output indexes the vectors of a batch of
    vector-Jacobian products; the results stacked per input, as PyTorch vmaps its engine over
    them: one pass of the engine on the batch, each node's formula once where it batches
    (else once per vector)."""
    if gos is None:
        gos = [None] * len(outs)
    if len(gos) != len(outs):
        # the unbatched path raises PyTorch's message for a missing or miscounted grad_outputs
        return _native._grad(outs, ins, gos, retain_graph, create_graph, allow_unused)
    batched = []
    for i, (out, g) in enumerate(zip(outs, gos)):
        if isinstance(g, _native.Tensor):
            first = g[0]
            if first.shape != out.shape:
                raise RuntimeError(
                    "If `is_grads_batched=True`, we interpret the first dimension of each "
                    "grad_output as the batch dimension. The sizes of the remaining dimensions are "
                    "expected to match the shape of corresponding output, but a mismatch was "
                    # PyTorch prints shape[1:] of grad_output[i][0], not of grad_output[i]
                    f"detected: grad_output[{i}] has a shape of {first.shape[1:]} and output[{i}] has "
                    f"a shape of {out.shape}. If you only want some tensors in `grad_output` to "
                    "be considered batched, consider using vmap.")
        elif g is None and out.requires_grad:
            if out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if not out.dtype.is_floating_point:
                raise RuntimeError("grad can be implicitly created only for real scalar outputs "
                                   f"but got {out.dtype}")
            g = _native.ones_like(out)  # made unbatched, then mapped over its dim 0 as PyTorch
            if g.dim() == 0:
                raise ValueError("vmap(vjp, in_dims=0, ...)(<inputs>): Got in_dim=0 for some "
                                 "input, but that input is a Tensor of dimensionality 0 so "
                                 "expected in_dim to satisfy 0 <= in_dim < 0.")
        elif g is not None:
            return _native._grad(outs, ins, gos, retain_graph, create_graph, allow_unused)
        batched.append(g)
    if any(g is None for g in batched):
        # PyTorch maps over every grad_output, and a None one (an output needing no grad) fails
        raise ValueError("vmap(vjp, in_dims=0, ...)(<inputs>): Got in_dim=0 for an input but the "
                         "input is of type <class 'NoneType'>. We cannot vmap over non-Tensor "
                         "arguments, please use None as the respective in_dim")
    sizes = [g.shape[0] for g in batched]
    if len(set(sizes)) > 1:
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    if retain_graph is None:
        retain_graph = create_graph
    # One batched pass of the engine (Note [Batched backward]); None where it leaves the
    # vectors to this loop (hooks in the graph see one vector at a time, anomaly mode).
    result = _native._grad_batched(outs, ins, batched, retain_graph, create_graph, allow_unused)
    if result is not None:
        return result
    size = sizes[0]
    per_sample = []
    for b in range(size):
        last = b == size - 1
        per_sample.append(_native._grad(outs, ins, [g[b] for g in batched],
                                        retain_graph or not last, create_graph, allow_unused))
    return tuple(None if per_sample[0][k] is None else
                 _native.stack([r[k] for r in per_sample]) for k in range(len(ins)))


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
