"""numpy manners: `from_numpy` / `as_tensor` with PyTorch's checks, and the hooks numpy reads."""

from __future__ import annotations

import warnings

import numpy as np

from . import _native
from ._argparse import type_name
from ._native import Tensor

# The numpy scalar types gradrs has a dtype for (the native `from_numpy` reads their memory).
_SUPPORTED = (np.float64, np.float32, np.float16, np.int64, np.int32, np.int16, np.int8,
              np.uint8, np.bool_)
# PyTorch's: it refuses any other type before looking at strides or byte order.
_TORCH_TYPES = _SUPPORTED + (np.complex64, np.complex128, np.uint64, np.uint32, np.uint16)
_SUPPORTED_NAMES = "float64, float32, float16, int64, int32, int16, int8, uint8, and bool"

_READONLY = (
    "The given NumPy array is not writable, and PyTorch does not support non-writable tensors. "
    "This means writing to this tensor will result in undefined behavior. You may want to copy "
    "the array to protect its data or make it writable before converting it to a tensor. This "
    "type of warning will be suppressed for the rest of this program. (Triggered internally at "
    "/__w/pytorch/pytorch/torch/csrc/utils/tensor_numpy.cpp:213.)"
)
# PyTorch warns about a read-only array once per process (TORCH_WARN_ONCE).
_warned_readonly = False


def _unsupported(arr) -> TypeError:
    # PyTorch names the array's scalar type (its C `tp_name`), e.g. numpy.longdouble.
    return TypeError(
        f"can't convert np.ndarray of type numpy.{arr.dtype.type.__name__}. The only "
        f"supported types are: {_SUPPORTED_NAMES}."
    )


def _check(arr) -> None:
    """PyTorch's `tensor_from_numpy` checks, in its order: the type, the read-only warning, a
    dtype it knows, strides in whole elements and not negative, native byte order; then a
    dtype gradrs has (fewer than PyTorch's)."""
    global _warned_readonly
    if not isinstance(arr, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type_name(arr)})")
    if not arr.flags.writeable and not _warned_readonly:
        _warned_readonly = True
        warnings.warn(_READONLY, UserWarning, stacklevel=3)
    if arr.dtype.type not in _TORCH_TYPES:
        raise _unsupported(arr)
    item = arr.dtype.itemsize
    if any(s % item for s in arr.strides):
        raise ValueError(
            "given numpy array strides not a multiple of the element byte size. Copy the numpy "
            "array to reallocate the memory."
        )
    if any(s < 0 for s in arr.strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with negative "
            "strides are not currently supported. (You can probably work around this by making a "
            "copy of your array  with array.copy().) "
        )
    if not arr.dtype.isnative:
        raise ValueError(
            "given numpy array has byte order different from the native byte order. Conversion "
            "between byte orders is currently not supported."
        )
    if arr.dtype.type not in _SUPPORTED:
        raise _unsupported(arr)


def from_numpy(ndarray) -> Tensor:
    """Creates a :class:`Tensor` from a :class:`numpy.ndarray`, sharing its memory.

    Writes to the tensor show in the array and the other way round; the tensor keeps the
    array alive. The array must have one of gradrs's dtypes (float64, float32, float16,
    int64, int32, bool), native byte order and non-negative strides.

    Example::

        >>> a = numpy.array([1, 2, 3])
        >>> t = gradrs.from_numpy(a)
        >>> t[0] = -1
        >>> a
        array([-1,  2,  3])
    """
    _check(ndarray)
    return _native.from_numpy(ndarray)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Converts `data` into a tensor, sharing memory where it can.

    A tensor or a numpy array whose dtype and device already match is returned without a
    copy (the array's memory is shared, as :func:`from_numpy` does); otherwise the data is
    copied (and cast, or moved) as :func:`gradrs.tensor` would.

    Example::

        >>> a = numpy.array([1.0, 2.0])
        >>> t = gradrs.as_tensor(a)
        >>> t[0] = 5.0
        >>> a
        array([5., 2.])
    """
    if isinstance(data, np.ndarray):
        data = from_numpy(data)
    return _native.as_tensor(data, dtype, device)


def _array_wrap(self, array, context=None, return_scalar=False):
    """numpy calls this with a ufunc's result: PyTorch hands back a tensor over it (a 0-dim one
    for a scalar result), so `numpy.exp(t)` is a Tensor."""
    return from_numpy(array)


# numpy defers its binary operators to a type with a higher priority and wraps ufunc results
# with that type's `__array_wrap__`, as it does for PyTorch's Tensor.
Tensor.__array_priority__ = 1000
Tensor.__array_wrap__ = _array_wrap
# Python's own messages ("unsupported operand type(s) for -: 'numpy.ndarray' and 'Tensor'",
# "'Tensor' object has no attribute ...") print the type's C name, which pyo3 makes
# "gradrs.Tensor"; assigning `__name__` to a heap type sets that name, so they print PyTorch's.
Tensor.__name__ = "Tensor"
