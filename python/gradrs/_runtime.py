"""Process and thread settings PyTorch exposes at the top level: the default device its
factories honour (`set_default_device`, `torch/utils/_device.py`'s constructors), the inter-op
thread count, `set_warn_always` (the warn-once warnings gradrs raises from Python read it) and
`set_flush_denormal`.
"""

from __future__ import annotations

import builtins
import functools
import numbers
import os
import threading
from collections.abc import Callable
from typing import Any, TypeVar, cast

from . import _native

_F = TypeVar("_F", bound=Callable[..., Any])

__all__ = [
    "get_default_device", "set_default_device", "get_num_interop_threads",
    "set_num_interop_threads", "init_num_threads", "is_warn_always_enabled", "set_warn_always",
    "set_flush_denormal", "get_device_module",
]

# PyTorch keeps the default device per thread (`torch/__init__.py`'s `_GLOBAL_DEVICE_CONTEXT`, a
# `threading.local`, whose DeviceContext sits on the thread's torch-function mode stack).
_STATE = threading.local()


def honours_default_device(fn: _F, device_position: int | None = None) -> _F:
    """`fn`, a factory, given `device=` the default device (`set_default_device`) when the call
    names none, as PyTorch's DeviceContext does for `torch/utils/_device.py`'s constructors.
    `device_position`: the index at which `fn` also takes `device` positionally."""

    name = fn.__name__

    @functools.wraps(fn)
    def factory(*args, **kwargs):
        device = getattr(_STATE, "device", None)
        if (device is not None and kwargs.get("device") is None
                and (device_position is None or len(args) <= device_position)):
            kwargs["device"] = device
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            # PyTorch's parser's text, by the listing of the factory's overloads
            from ._argparse import listed_error, missing_text

            err = listed_error(name, args, kwargs) or missing_text(name, exc)
            if err is None:
                raise
            raise err from None

    return cast(_F, factory)


def get_default_device():
    """The device factories make tensors on when given no `device` (`gradrs.device('cpu')`
    unless :func:`set_default_device` chose another), with its index.

    Examples:
        >>> gradrs.get_default_device()
        device(type='cpu')
    """
    device = getattr(_STATE, "device", None)
    if device is None:
        return _native.device("cpu")
    if device.index is not None:
        return device
    return _native.tensor([], device=device).device


def set_default_device(device):
    """Sets the device factories (``zeros``, ``ones``, ``empty``, ``rand``, ``tensor``,
    ``arange``...) make tensors on when given no `device`, for the calling thread; None
    restores the CPU. Functions that take a tensor (``zeros_like``, ``Tensor.new_zeros``)
    follow that tensor as before.

    Examples:
        >>> gradrs.set_default_device('cpu')
        >>> gradrs.zeros(2).device
        device(type='cpu')
        >>> gradrs.set_default_device(None)
    """
    _STATE.device = None if device is None else _native.device(device)


def _enter_device(device):
    """`with gradrs.device(d):` (the native `device.__enter__`): `d` becomes the thread's
    default device until the block exits; the one it replaces is kept to restore."""
    entered = getattr(_STATE, "entered", None)
    if entered is None:
        entered = _STATE.entered = []
    entered.append(getattr(_STATE, "device", None))
    _STATE.device = device


def _exit_device():
    """The end of a `with gradrs.device(...)` block: the default device before it again.
    (A `set_default_device` inside the block lasts until the block ends.)"""
    entered = getattr(_STATE, "entered", None)
    if not entered:
        raise RuntimeError("trying to pop from empty mode stack")
    _STATE.device = entered.pop()


def get_device_module(device=None):
    """The module of a device type: ``gradrs.cpu`` for ``'cpu'``, ``gradrs.gpu`` for ``'gpu'``
    (``'cuda'`` names the same device); without `device`, the current accelerator's (the CPU's
    when there is none).

    Examples:
        >>> gradrs.get_device_module('cpu').__name__
        'gradrs.cpu'
    """
    import sys

    if isinstance(device, _native.device):
        name = device.type
    elif isinstance(device, str):
        name = _native.device(device).type
    elif device is None:
        from . import accelerator

        current = accelerator.current_accelerator()
        name = "cpu" if current is None else current.type
    else:
        raise RuntimeError(
            f"Invalid value of device '{device}', expect gradrs.device, str, or None")
    module = getattr(sys.modules[__package__], name, None)
    if module is None:
        raise RuntimeError(f"Device '{name}' does not have a corresponding module registered as "
                           f"'gradrs.{name}'.")
    return module


# --- threads -------------------------------------------------------------------------------

_interop = {"threads": None}


def _int_arg(name, n):
    if isinstance(n, builtins.bool) or not isinstance(n, numbers.Integral):
        raise RuntimeError(f"{name} expects an int, but got {type(n).__name__}")
    return builtins.int(n)


def get_num_interop_threads():
    """The number of threads used for inter-op parallelism on CPU (PyTorch's default: the
    machine's cores). gradrs runs independent ops on the caller's thread; the number is kept
    for programs that read it back.

    Examples:
        >>> gradrs.get_num_interop_threads() >= 1
        True
    """
    n = _interop["threads"]
    return n if n is not None else (os.cpu_count() or 1)


def set_num_interop_threads(n):
    """Sets the number of inter-op threads; as in PyTorch, only once and to a positive int.

    Examples:
        >>> gradrs.set_num_interop_threads(0)
        Traceback (most recent call last):
        ...
        RuntimeError: set_num_interop_threads expects a positive integer
    """
    n = _int_arg("set_num_interop_threads", n)
    if n <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    if _interop["threads"] is not None:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work "
                           "has started or set_num_interop_threads called")
    _interop["threads"] = n


def init_num_threads():
    """Initializes the calling thread's intra-op thread settings (PyTorch calls it on a new
    thread); gradrs's pool needs no per-thread setup, so it only returns None.

    Examples:
        >>> gradrs.init_num_threads()
    """


# --- warnings ------------------------------------------------------------------------------

_warn = {"always": False}


def is_warn_always_enabled():
    """Whether warn-once warnings are raised every time (:func:`set_warn_always`).

    Examples:
        >>> gradrs.is_warn_always_enabled()
        False
    """
    return _warn["always"]


def set_warn_always(b, /):
    """When True, warnings PyTorch raises once per process (`TORCH_WARN_ONCE`) are raised every
    time; False (the default) restores once.

    Examples:
        >>> gradrs.set_warn_always(True)
        >>> gradrs.is_warn_always_enabled()
        True
        >>> gradrs.set_warn_always(False)
    """
    if not isinstance(b, builtins.bool):
        raise RuntimeError(f"setWarnOnlyOnce expects a bool, but got {type(b).__name__}")
    _warn["always"] = b


def warn_once(flags, key):
    """True when the warn-once warning `key` should be raised now (the first time, or every
    time under `set_warn_always(True)`); records it in the dict `flags`."""
    if _warn["always"]:
        return True
    if flags.get(key):
        return False
    flags[key] = True
    return True


def set_flush_denormal(mode, /):
    """Asks for denormal floats to be flushed to zero on the CPU; returns whether that is
    supported. gradrs's kernels keep IEEE denormals (PyTorch's answer on a CPU without the
    SSE3 flags), so it returns False and changes nothing.

    Examples:
        >>> gradrs.set_flush_denormal(False)
        False
    """
    if not isinstance(mode, builtins.bool):
        raise RuntimeError(f"flush_denormal expects a bool, but got {type(mode).__name__}")
    return False
