"""numpy manners: `from_numpy` / `as_tensor` with PyTorch's checks, and the hooks numpy reads."""

from __future__ import annotations

import warnings

import numpy as np

from . import _native
from . import _runtime
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


def _check(arr, warn=True) -> None:
    """PyTorch's `tensor_from_numpy` checks, in its order: the type, the read-only warning, a
    dtype it knows, strides in whole elements and not negative, native byte order; then a
    dtype gradrs has (fewer than PyTorch's)."""
    global _warned_readonly
    if not isinstance(arr, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type_name(arr)})")
    if warn and not arr.flags.writeable and (not _warned_readonly or _runtime._warn["always"]):
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


_ASARRAY_GRAD = (
    "gradrs.asarray: unspecified requires_grad now defaults to obj.requires_grad instead of "
    "False. Pass requires_grad=False explicitly to get the old behavior and silence this "
    "warning. (Triggered internally at /__w/pytorch/pytorch/torch/csrc/utils/tensor_new.cpp:1737.)"
)
_BUFFER_READONLY = (
    "The given buffer is not writable, and PyTorch does not support non-writable tensors. This "
    "means you can write to the underlying (supposedly non-writable) buffer using the tensor. "
    "You may want to copy the buffer to protect its data or make it writable before converting "
    "it to a tensor. This type of warning will be suppressed for the rest of this program. "
    "(Triggered internally at /__w/pytorch/pytorch/torch/csrc/utils/tensor_new.cpp:1556.)"
)
_warned: dict = {}
_MISSING = object()


def _set_requires_grad(t, flag):
    """ATen's `set_requires_grad` (its message, not the Python method's)."""
    if flag and not t.dtype.is_floating_point:
        raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                           "gradients")
    t.requires_grad_(flag)


def _np_dtype(dtype):
    return np.dtype(str(dtype).rpartition(".")[2])


def _frombuffer(buffer, dtype, count, offset, stacklevel):
    """PyTorch's `tensor_frombuffer`: its checks and messages, in its order, then a tensor over
    the buffer's memory (which it keeps alive)."""
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    if view.readonly and _runtime.warn_once(_warned, "buffer"):
        warnings.warn(_BUFFER_READONLY, UserWarning, stacklevel=stacklevel)
    length, size = view.nbytes, dtype.itemsize
    if not (length > 0 and count != 0):
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not (0 <= offset < length):
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({length} bytes) minus 1")
    if count < 0 and (length - offset) % size:
        raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} bytes) "
                         f"must be a multiple of element size ({size})")
    n = (length - offset) // size if count < 0 else count
    if offset + n * size > length:
        raise ValueError(f"requested buffer length ({n} * {size} bytes) after offset ({offset} "
                         f"bytes) must not be greater than actual buffer length ({length} bytes)")
    raw = view.cast("B") if view.ndim != 1 or view.format != "B" else view
    return _native.from_numpy(np.frombuffer(raw, dtype=_np_dtype(dtype), count=n, offset=offset))


def frombuffer(buffer, *, dtype=_MISSING, count=-1, offset=0, requires_grad=False) -> Tensor:
    """A 1-D tensor over the memory of an object implementing Python's buffer protocol
    (``bytearray``, ``array.array``, ``memoryview``...), without a copy: writes show on both
    sides, and the tensor keeps the object alive. `count` elements of `dtype` are read from
    byte `offset` (-1: up to the end of the buffer).

    Example::

        >>> import array
        >>> a = array.array('i', [1, 2, 3])
        >>> t = gradrs.frombuffer(a, dtype=gradrs.int32)
        >>> t[0] = 7
        >>> a
        array('i', [7, 2, 3])
    """
    if dtype is _MISSING:
        raise TypeError('frombuffer() missing 1 required positional arguments: "dtype"')
    t = _frombuffer(buffer, dtype, count, offset, stacklevel=3)
    _set_requires_grad(t, requires_grad)
    return t


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None) -> Tensor:
    """Converts `obj` (a tensor, numpy array or scalar, DLPack capsule, an object with the
    buffer protocol, or a nested sequence of numbers) into a tensor, sharing memory when it
    can, as PyTorch's `asarray`: `copy=None` shares unless `dtype` / `device` differ, `copy=True`
    always copies, `copy=False` never does (and raises when it would have to).

    A tensor given without `requires_grad` is returned as it is, history included (PyTorch warns
    once when it requires grad); ``requires_grad=False`` detaches it, ``True`` makes it require
    grad.

    Example::

        >>> a = numpy.array([1.0, 2.0])
        >>> t = gradrs.asarray(a)
        >>> t[0] = 5.0
        >>> a
        array([5., 2.])
    """
    global _warned_readonly
    force_copy = bool(copy)
    force_alias = copy is not None and not copy
    tensor = obj if isinstance(obj, Tensor) else None
    not_writable = False
    if isinstance(obj, (np.ndarray, np.generic)):
        scalar = not isinstance(obj, np.ndarray)
        if scalar and force_alias:
            raise RuntimeError("can't alias NumPy scalars. Either remove copy=False or transform "
                               "it in a ndarray. ")
        arr = np.asarray(obj) if scalar else obj
        _check(arr, warn=False)
        tensor = _native.from_numpy(arr)
        not_writable = not arr.flags.writeable
        if scalar:
            tensor, force_copy = tensor.clone(), False
    elif tensor is None and type(obj).__name__ == "PyCapsule":
        from ._dlpack import from_dlpack

        tensor = from_dlpack(obj)
    elif tensor is None and not isinstance(obj, (list, tuple)):
        try:
            memoryview(obj)
        except TypeError:
            pass
        else:
            tensor = _frombuffer(obj, dtype or _native.get_default_dtype(), -1, 0, stacklevel=4)
    if tensor is None:
        if force_alias:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        if dtype is None:
            tensor = _native.tensor(obj, device=device)
        else:
            tensor = _native.tensor(obj, dtype=dtype, device=device)
        _set_requires_grad(tensor, bool(requires_grad))
        return tensor
    target = None if device is None else _native.device(device)
    wrong_device = target is not None and target != tensor.device
    wrong_dtype = dtype is not None and dtype != tensor.dtype
    if force_copy or (copy is None and (wrong_device or wrong_dtype)):
        if wrong_device or wrong_dtype:
            tensor = tensor.to(target or tensor.device, dtype or tensor.dtype, copy=force_copy)
        else:
            tensor = tensor.clone()
    else:
        if wrong_device:
            raise ValueError(f"can't alias tensor from device '{tensor.device}' to '{target}'.")
        if wrong_dtype:
            raise ValueError(f"can't alias tensor with dtype '{_scalar_name(tensor.dtype)}' into "
                             f"dtype '{_scalar_name(dtype)}'.")
        if not_writable and (not _warned_readonly or _runtime._warn["always"]):
            _warned_readonly = True
            warnings.warn(_READONLY, UserWarning, stacklevel=3)
    if requires_grad is None:
        if tensor.requires_grad and _runtime.warn_once(_warned, "requires_grad"):
            warnings.warn(_ASARRAY_GRAD, UserWarning, stacklevel=3)
    elif not tensor.is_leaf and not requires_grad:
        tensor = tensor.detach()
    elif tensor.is_leaf:
        _set_requires_grad(tensor, requires_grad)
    return tensor


def _scalar_name(dtype):
    """ATen's ScalarType name (`Float`, `Long`...) of a dtype."""
    from .functional import _dtype_name

    return _dtype_name(dtype)
