"""Gradient clipping: `clip_grad_norm_` (and its parts `get_total_norm`,
`clip_grads_with_norm_`), `clip_grad_value_`, as PyTorch computes them."""

from __future__ import annotations

import functools
import math
import types
import warnings
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from ... import _native
from ..._grad_mode import no_grad

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_"]


_F = TypeVar("_F", bound=Callable[..., Any])


def _no_grad(func: _F) -> _F:
    """Run ``func`` under no_grad, keeping its name and docstring."""

    def _no_grad_wrapper(*args, **kwargs):
        with no_grad():
            return func(*args, **kwargs)

    functools.update_wrapper(_no_grad_wrapper, func)
    return _no_grad_wrapper  # type: ignore[return-value] # same signature as func


def _grouped_by_device(tensors):
    """The tensors grouped by (device, dtype), in first-seen order.

    PyTorch groups them so that each group can run as one fused "foreach" kernel; the values
    are those of the per-tensor loop, which is what runs here, so ``foreach`` is accepted and
    changes nothing."""
    groups = {}
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError("Tensors of the first list of nested Tensor lists are supposed "
                               f"to be defined but the {i}-th Tensor is not.")
        groups.setdefault((str(t.device), str(t.dtype)), []).append(t)
    return [(g[0].device, g) for g in groups.values()]


@_no_grad
def _get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    r"""The norm of the norms of ``tensors`` (as if concatenated into one vector).

    Examples:
        >>> gradrs.nn.utils.get_total_norm([gradrs.tensor([3.0]), gradrs.tensor([4.0])])
        tensor(5.)
    """
    if isinstance(tensors, _native.Tensor):
        tensors = [tensors]
    else:
        tensors = list(tensors)
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return _native.tensor(0.0)
    first_device = tensors[0].device
    norms = []
    for _device, device_tensors in _grouped_by_device(tensors):
        norms.extend(g.norm(norm_type) for g in device_tensors)

    total_norm = _native.stack([norm.to(first_device) for norm in norms]).norm(norm_type)

    if error_if_nonfinite and not math.isfinite(total_norm.item()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from "
            "`parameters` is non-finite, so it cannot be clipped. To disable "
            "this error and scale the gradients by the non-finite norm anyway, "
            "set `error_if_nonfinite=False`")
    return total_norm


@_no_grad
def _clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    r"""Scale the gradients of ``parameters`` by ``max_norm / (total_norm + 1e-6)``, capped
    at 1.

    Examples:
        >>> w = gradrs.nn.Parameter(gradrs.zeros(2))
        >>> w.grad = gradrs.tensor([3.0, 4.0])
        >>> gradrs.nn.utils.clip_grads_with_norm_([w], max_norm=1.0, total_norm=gradrs.tensor(5.0))
        >>> w.grad
        tensor([0.6000, 0.8000])
    """
    if isinstance(parameters, _native.Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm = float(max_norm)
    if len(grads) == 0:
        return
    clip_coef = max_norm / (total_norm + 1e-6)
    # Multiplying by the clamped coefficient, instead of branching on it, avoids a host
    # synchronization when the gradients live on the GPU.
    clip_coef_clamped = clip_coef.clamp(max=1.0)
    for device, device_grads in _grouped_by_device(grads):
        clip_coef_clamped_device = clip_coef_clamped.to(device)
        for g in device_grads:
            g.mul_(clip_coef_clamped_device)


@_no_grad
def clip_grad_norm_(parameters: _native.Tensor | Iterable[_native.Tensor], max_norm: float,
                    norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach: bool | None = None) -> _native.Tensor:
    r"""Clip the gradients of ``parameters`` in place so that their total norm (as one
    vector) is at most ``max_norm``; ``norm_type`` may be ``inf``. Returns the total norm
    before clipping, a tensor. ``error_if_nonfinite`` raises when it is nan or inf.

    Examples:
        >>> w = gradrs.nn.Parameter(gradrs.tensor([3.0, 4.0]))
        >>> w.grad = gradrs.tensor([3.0, 4.0])
        >>> gradrs.nn.utils.clip_grad_norm_([w], max_norm=1.0)
        tensor(5.)
        >>> w.grad
        tensor([0.6000, 0.8000])
    """
    if isinstance(parameters, _native.Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        # prevent generators from being exhausted
        parameters = list(parameters)
        if is_generator and len(parameters) == 0:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.",
                          stacklevel=3)
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = _get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    _clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                   foreach=None):
    r"""Deprecated: use :func:`clip_grad_norm_`."""
    warnings.warn("`gradrs.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`gradrs.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@_no_grad
def clip_grad_value_(parameters, clip_value, foreach=None):
    r"""Clamp the gradients of ``parameters`` in place to ``[-clip_value, clip_value]``.

    Examples:
        >>> w = gradrs.nn.Parameter(gradrs.zeros(3))
        >>> w.grad = gradrs.tensor([-5.0, 0.5, 5.0])
        >>> gradrs.nn.utils.clip_grad_value_([w], clip_value=1.0)
        >>> w.grad
        tensor([-1.0000,  0.5000,  1.0000])
    """
    if isinstance(parameters, _native.Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    grads = [p.grad for p in parameters if p.grad is not None]
    for _device, device_grads in _grouped_by_device(grads):
        for grad in device_grads:
            grad.clamp_(min=-clip_value, max=clip_value)
