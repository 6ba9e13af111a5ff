"""When an optimizer's update runs as one native call over the whole group (`_native._fused_*_`)
instead of its Python loop of small in-place ops per parameter."""

from __future__ import annotations

from .. import _native
from .._grad_mode import is_grad_enabled


def use_fused_step(foreach, fused, *hyperparameters, capturable=False, differentiable=False):
    """True unless the caller asked for the loop (`foreach=False`, `fused` unset), the step must
    be differentiable or capturable, grad mode is on (the native call records no graph), or a
    hyperparameter is a tensor (the loop reads tensor hyperparameters as PyTorch does). The
    native call computes PyTorch's single-tensor update, the one foreach=None gives on the CPU."""
    if (foreach is False and not fused) or capturable or differentiable or is_grad_enabled():
        return False
    return not any(isinstance(h, _native.Tensor) for h in hyperparameters)
