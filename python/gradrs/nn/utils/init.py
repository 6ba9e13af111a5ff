"""skip_init: build a module without initializing its parameters and buffers (torch.nn.utils.init)."""

import inspect

from ... import random
from ..modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    r"""Instantiate ``module_cls(*args, **kwargs)`` with its parameters and buffers left
    uninitialized, as if created with :func:`gradrs.empty`. The class must accept a ``device``
    argument (the module is built on ``kwargs.get("device", "cpu")``).

    PyTorch builds the module on its ``meta`` device, where initialization does nothing;
    gradrs has no meta device, so it builds the module on the final device and then replaces
    every parameter and buffer with uninitialized storage (``to_empty``). As in PyTorch, the
    random stream is left where it was: the draws of the default initialization are undone.
    The difference is the time those draws take.

    Examples:
        >>> m = gradrs.nn.utils.skip_init(gradrs.nn.Linear, 4, 2)
        >>> m.weight.shape
        gradrs.Size([2, 4])
    """
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")

    final_device = kwargs.pop("device", "cpu")
    kwargs["device"] = final_device
    with random.fork_rng():
        module = module_cls(*args, **kwargs)
    return module.to_empty(device=final_device)
