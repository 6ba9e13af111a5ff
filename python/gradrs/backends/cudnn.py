"""`gradrs.backends.cudnn`: PyTorch's cuDNN switches. gradrs has no cuDNN (its GPU convolutions
are WGSL kernels), so `is_available()` is False and `version()` None, as in a PyTorch built
without it; `enabled`, `benchmark`, `deterministic`, `allow_tf32` and `fp32_precision` keep
what a program sets, type-checked as PyTorch does, and change no result.
"""

import sys as _sys
import types as _types
import warnings as _warnings
from contextlib import contextmanager as _contextmanager
from typing import TYPE_CHECKING as _TYPE_CHECKING

from .. import _native
from . import _context
from ._context import FP32Precision as _FP32Precision

__all__ = ["flags", "is_acceptable", "is_available", "set_flags", "version"]

CUDNN_TENSOR_DTYPES = {_native.float16, _native.float32, _native.float64}


def version():
    """The cuDNN version: None, gradrs has none."""
    return None


def is_available() -> bool:
    """Whether cuDNN can be used: never in gradrs."""
    return False


def is_acceptable(tensor) -> bool:
    """Whether cuDNN could run on `tensor`: False, with PyTorch's warning for a GPU tensor of a
    cuDNN dtype while `enabled` (it would use cuDNN if it had it)."""
    if not _context.get_flag("cudnn_enabled"):
        return False
    if not tensor.is_cuda or tensor.dtype not in CUDNN_TENSOR_DTYPES:
        return False
    _warnings.warn(
        "PyTorch was compiled without cuDNN/MIOpen support. To use cuDNN/MIOpen, rebuild "
        "PyTorch making sure the library is visible to the build system.", stacklevel=2)
    return False


_depthwise_kernel = "auto"


def _get_depthwise_kernel():
    return _depthwise_kernel


def _set_depthwise_kernel(value):
    global _depthwise_kernel
    if not isinstance(value, str):
        raise RuntimeError(
            f"set_cudnn_depthwise_kernel expects a string, but got {type(value).__name__}")
    if value not in ("auto", "cudnn", "native"):
        raise RuntimeError(f"Unknown cuDNN depthwise kernel mode: {value}. "
                           "Expected one of: auto, cudnn, native")
    _depthwise_kernel = value


def set_flags(_enabled=None, _benchmark=None, _benchmark_limit=None, _deterministic=None,
              _allow_tf32=None, _fp32_precision="none", _depthwise_kernel=None):
    """Set the flags given (None leaves one alone); returns the previous ones."""
    orig_flags = (
        _context.get_flag("cudnn_enabled"),
        _context.get_flag("cudnn_benchmark"),
        None,  # benchmark_limit exists only where cuDNN is available
        _context.get_flag("cudnn_deterministic"),
        _context._allow_tf32_cudnn,
        _context.fp32_precision("cuda", "all"),
        _get_depthwise_kernel(),
    )
    if _enabled is not None:
        _context.set_flag("cudnn_enabled", _enabled)
    if _benchmark is not None:
        _context.set_flag("cudnn_benchmark", _benchmark)
    if _deterministic is not None:
        _context.set_flag("cudnn_deterministic", _deterministic)
    if _allow_tf32 is not None:
        _context.set_allow_tf32_cudnn(_allow_tf32)
    if _fp32_precision is not None:
        _context.set_fp32_precision("cuda", "all", _fp32_precision)
    if _depthwise_kernel is not None:
        _set_depthwise_kernel(_depthwise_kernel)
    return orig_flags


@_contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False,
          allow_tf32=True, fp32_precision="none", depthwise_kernel="auto"):
    """Set the flags for the duration of a `with` block (with PyTorch's defaults)."""
    orig_flags = set_flags(enabled, benchmark, benchmark_limit, deterministic, allow_tf32,
                           fp32_precision, depthwise_kernel)
    try:
        yield
    finally:
        set_flags(*orig_flags)


def _flag(name):
    return property(lambda self: _context.get_flag(name),
                    lambda self, value: _context.set_flag(name, value))


class _CudnnModule(_types.ModuleType):
    """The module's class: its flags are properties over the process-wide context."""

    enabled = _flag("cudnn_enabled")
    benchmark = _flag("cudnn_benchmark")
    deterministic = _flag("cudnn_deterministic")
    allow_tf32 = property(lambda self: _context.allow_tf32_cudnn(),
                          lambda self, value: _context.set_allow_tf32_cudnn(value))
    fp32_precision = property(
        lambda self: _context.fp32_precision("cuda", "all"),
        lambda self, value: _context.set_fp32_precision("cuda", "all", value))
    depthwise_kernel = property(lambda self: _get_depthwise_kernel(),
                                lambda self, value: _set_depthwise_kernel(value))


benchmark_limit = None  # PyTorch has the flag only where cuDNN is available
conv = _FP32Precision("cuda", "conv")
rnn = _FP32Precision("cuda", "rnn")

_sys.modules[__name__].__class__ = _CudnnModule

if _TYPE_CHECKING:  # the flags as type checkers see them (properties of the module's class)
    enabled: bool
    benchmark: bool
    deterministic: bool
    allow_tf32: bool
    fp32_precision: str
