"""`gradrs.backends.mkldnn`: PyTorch's oneDNN (MKL-DNN) switches. gradrs's CPU kernels are its
own, so `is_available()` is False; `enabled`, `deterministic` and the `fp32_precision` settings
keep what a program sets, type-checked as PyTorch does, and change no result.
"""

import sys as _sys
import types as _types
import warnings as _warnings
from contextlib import contextmanager as _contextmanager

from . import _context
from ._context import FP32Precision as _FP32Precision

__all__ = ["flags", "is_available", "set_flags"]


def is_available() -> bool:
    """Whether gradrs is built with MKL-DNN support: no."""
    return False


def _get_allow_tf32():
    return None  # PyTorch's getter returns nothing on builds without Intel GPU support


def _set_allow_tf32(value):
    if not isinstance(value, bool):
        raise RuntimeError(
            f"_set_onednn_allow_tf32 expects a bool, but got {type(value).__name__}")
    _warnings.warn("TF32 acceleration on top of oneDNN is available for Intel GPUs. The current "
                   "gradrs version does not have Intel GPU Support.", stacklevel=3)


def set_flags(_enabled=None, _deterministic=None, _allow_tf32=None, _fp32_precision="none"):
    """Set the flags given (None leaves one alone); returns the previous ones."""
    orig_flags = (
        _context.get_flag("mkldnn_enabled"),
        _context.get_flag("mkldnn_deterministic"),
        _get_allow_tf32(),
        _context.fp32_precision("mkldnn", "all"),
    )
    if _enabled is not None:
        _context.set_flag("mkldnn_enabled", _enabled)
    if _deterministic is not None:
        _context.set_flag("mkldnn_deterministic", _deterministic)
    if _allow_tf32 is not None:
        _set_allow_tf32(_allow_tf32)
    if _fp32_precision is not None:
        _context.set_fp32_precision("mkldnn", "all", _fp32_precision)
    return orig_flags


@_contextmanager
def flags(enabled=False, deterministic=False, allow_tf32=True, fp32_precision="none"):
    """Set the flags for the duration of a `with` block (with PyTorch's defaults)."""
    orig_flags = set_flags(enabled, deterministic, allow_tf32, fp32_precision)
    try:
        yield
    finally:
        set_flags(*orig_flags)


def _flag(name):
    return property(lambda self: _context.get_flag(name),
                    lambda self, value: _context.set_flag(name, value))


class _MkldnnModule(_types.ModuleType):
    """The module's class: its flags are properties over the process-wide context."""

    enabled = _flag("mkldnn_enabled")
    deterministic = _flag("mkldnn_deterministic")
    allow_tf32 = property(lambda self: _get_allow_tf32(),
                          lambda self, value: _set_allow_tf32(value))
    # Read for mkldnn, written for every backend: PyTorch's setter is the generic one.
    fp32_precision = property(
        lambda self: _context.fp32_precision("mkldnn", "all"),
        lambda self, value: _context.set_fp32_precision("generic", "all", value))


matmul = _FP32Precision("mkldnn", "matmul")
conv = _FP32Precision("mkldnn", "conv")
rnn = _FP32Precision("mkldnn", "rnn")

_sys.modules[__name__].__class__ = _MkldnnModule
