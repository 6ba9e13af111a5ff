"""DLPack both ways for CPU tensors, built on numpy's implementation of the protocol.

Export: a tensor's memory is viewed as a numpy array (`Tensor.numpy()` shares it, strides and
offset included) whose `__dlpack__` makes the capsule; the capsule holds the array, the array
holds the tensor, so the memory lives as long as the consumer needs it. Import: numpy's
`from_dlpack` reads the capsule (versioned DLPack >= 1.0 or legacy) into an array that owns
it, and `from_numpy` shares that array's memory. A GPU tensor lives in a wgpu buffer with no
device pointer to hand out, so it is never exported as such: a host copy is exported only
when the consumer asks for the CPU (`dl_device=(kDLCPU, 0)`), otherwise it is refused.
"""

from __future__ import annotations

import ctypes
import enum
from typing import Any

import numpy as np

from . import _native
from ._argparse import type_name
from ._native import Tensor


class DLDeviceType(enum.IntEnum):
    """The device types of the DLPack specification (`dlpack.h`), as PyTorch lists them."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


# Device types whose memory the host reads directly, so numpy can take it.
_HOST = (DLDeviceType.kDLCPU, DLDeviceType.kDLCUDAHost, DLDeviceType.kDLROCMHost,
         DLDeviceType.kDLCUDAManaged)
_SUPPORTED = (np.float64, np.float32, np.float16, np.int64, np.int32, np.int16, np.int8,
              np.uint8, np.bool_)

_capsule_is_valid = ctypes.pythonapi.PyCapsule_IsValid
_capsule_is_valid.argtypes = (ctypes.py_object, ctypes.c_char_p)
_capsule_is_valid.restype = ctypes.c_int


def _export(t, max_version, dl_device, copy):
    """The capsule for `t`: PyTorch's `_to_dlpack` (argument checks, the device and copy
    requests), the capsule itself made by numpy."""
    if dl_device is not None and not (
        isinstance(dl_device, (tuple, list)) and all(isinstance(i, int) for i in dl_device)
    ):
        raise TypeError(
            f"_to_dlpack(): argument 'dl_device' must be tuple of ints, not {type_name(dl_device)}"
        )
    if copy is not None and not isinstance(copy, bool):
        raise TypeError(f"_to_dlpack(): argument 'copy' must be bool, not {type_name(copy)}")
    on_host = t.device.type == "cpu"
    if dl_device is not None:
        # The device index is not checked for the CPU (PyTorch ignores it there too).
        if dl_device[0] != DLDeviceType.kDLCPU:
            raise BufferError(f"Unsupported device_type: {int(dl_device[0])}")
        if not on_host:
            if copy is False:
                raise ValueError(
                    f"cannot move (i.e. copy=False) tensor from {t.device} to cpu without copying."
                )
            # The host copy is the export's own memory: numpy need not copy again.
            t, copy, on_host = t.detach().cpu(), None, True
    if not on_host:
        raise BufferError(f"Cannot pack tensors on {t.device.type}")
    # `detach()` shares the memory; `numpy()` views it (strides and offset as the tensor's).
    arr = t.detach().numpy()
    return arr.__dlpack__(stream=None, max_version=max_version, copy=copy)


def __dlpack__(self, *, stream: Any | None = -1, max_version: tuple[int, int] | None = None,
               dl_device: tuple[enum.IntEnum, int] | None = None, copy: bool | None = None):
    """Creates a DLPack capsule of this tensor, sharing its memory, for another library's
    `from_dlpack` (which calls this method).

    Args:
        stream: on the CPU, None or -1 (no stream to synchronize with).
        max_version: the newest DLPack version the caller supports, e.g. `(1, 0)`; a
            versioned (DLPack >= 1.0) capsule is made when it is given and at least 1.0,
            the legacy one otherwise.
        dl_device: the device the caller wants the capsule on; only the CPU,
            `(DLDeviceType.kDLCPU, 0)` (a GPU tensor is then copied to the host).
        copy: True always copies, False never does, None copies only if needed.

    Example::

        >>> t = gradrs.arange(4)
        >>> a = numpy.from_dlpack(t)
        >>> a[0] = 7
        >>> t
        tensor([7, 1, 2, 3])
    """
    # DLPack has no flag for autograd: exporting would silently lose requires_grad.
    if self.requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    if stream is not None and type(stream) is not int:
        raise TypeError("stream must be ``int`` or ``none``")
    if self.device.type == "cpu" and stream is not None and stream != -1:
        raise AssertionError("stream should be None on cpu.")
    versioned = max_version is not None and max_version[0] >= 1
    return _export(self, max_version if versioned else None, dl_device, copy)


def __dlpack_device__(self) -> tuple[enum.IntEnum, int]:
    """`(device_type, device_id)` of this tensor's memory, as DLPack names it."""
    if self.device.type == "cpu":
        return (DLDeviceType.kDLCPU, 0)
    raise ValueError(f"Unknown device type {self.device.type} for Dlpack")


def to_dlpack(tensor, *, dl_device=None, copy=None):
    """Returns a legacy DLPack capsule ("dltensor") sharing the tensor's memory.

    The capsule can only be handed to a `from_dlpack` (once); the more idiomatic use is to
    call `from_dlpack` on the tensor itself.

    Example::

        >>> t = gradrs.arange(3)
        >>> gradrs.from_dlpack(gradrs.utils.dlpack.to_dlpack(t))
        tensor([0, 1, 2])
    """
    if not isinstance(tensor, Tensor):
        raise TypeError(
            f"_to_dlpack(): argument 'data' (position 1) must be Tensor, not {type_name(tensor)}"
        )
    return _export(tensor, None, dl_device, copy)


class _Capsule:
    """Hands a bare capsule to `numpy.from_dlpack`, which only takes producers."""

    __slots__ = ("capsule",)

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        return self.capsule

    def __dlpack_device__(self):
        return (DLDeviceType.kDLCPU, 0)


def _from_capsule(capsule) -> Tensor:
    if not (
        type(capsule).__name__ == "PyCapsule"
        and (_capsule_is_valid(capsule, b"dltensor_versioned")
             or _capsule_is_valid(capsule, b"dltensor"))
    ):
        raise RuntimeError(
            "from_dlpack received an invalid capsule. Note that DLTensor capsules can be "
            "consumed only once, so you might have already constructed a tensor from it once."
        )
    # The array owns the capsule (its deleter runs when the array goes); a read-only capsule
    # gives a read-only array, taken without the warning `from_numpy` gives, as PyTorch does.
    arr = np.from_dlpack(_Capsule(capsule))
    if arr.dtype.type not in _SUPPORTED:
        raise BufferError(
            f"Unsupported DLPack dtype {arr.dtype}. The only supported types are: float64, "
            "float32, float16, int64, int32, int16, int8, uint8, and bool."
        )
    return _native.from_numpy(arr)


def from_dlpack(ext_tensor: Any, *, device=None, copy: bool | None = None) -> Tensor:
    """Converts a tensor from another library (or a DLPack capsule) into a gradrs tensor
    sharing its memory.

    Args:
        ext_tensor: an object with `__dlpack__` and `__dlpack_device__` (a numpy array, a
            PyTorch tensor, ...) or a capsule made by a `to_dlpack`.
        device: where to put the tensor; None keeps the producer's (host) memory.
        copy: True always copies, False never does, None copies only if needed.

    Example::

        >>> a = numpy.arange(3.0)
        >>> t = gradrs.from_dlpack(a)
        >>> t[0] = -1
        >>> a
        array([-1.,  1.,  2.])
    """
    if not hasattr(ext_tensor, "__dlpack__"):
        if device is not None or copy is not None:
            raise AssertionError(
                "device and copy kwargs not supported when ext_tensor is already a DLPack capsule."
            )
        return _from_capsule(ext_tensor)
    kwargs: dict[str, Any] = {"max_version": (1, 0)}
    if copy is not None:
        kwargs["copy"] = copy
    ext_device = ext_tensor.__dlpack_device__()
    cpu = (DLDeviceType.kDLCPU, 0)
    move_to = None  # a gradrs device the imported host tensor is then copied to
    if device is not None:
        if isinstance(device, str):
            device = _native.device(device)
        if not isinstance(device, _native.device):
            raise AssertionError(f"from_dlpack: unsupported device type: {type(device)}")
        if device.type == "cpu":
            # Asking the producer for the CPU is how a device tensor reaches the host here
            # (PyTorch imports it on its device and copies it over itself).
            if ext_device != cpu and copy is False:
                raise ValueError(
                    f"cannot move DLPack tensor from device {ext_device} to {cpu} without "
                    "copying. Set copy=None or copy=True."
                )
            kwargs["dl_device"] = cpu
        else:
            if copy is False:
                raise ValueError(
                    f"cannot move DLPack tensor from device {ext_device} to {device} without "
                    "copying. Set copy=None or copy=True."
                )
            move_to = device
    if "dl_device" not in kwargs and ext_device[0] not in _HOST:
        raise BufferError(f"Unsupported device_type: {int(ext_device[0])}")
    # Older producers lack some keywords: retry without them, as PyTorch does.
    capsule, producer_copied = None, True
    for drop in ((), ("max_version",), ("copy",), ("dl_device",)):
        for key in drop:
            kwargs.pop(key, None)
            producer_copied = producer_copied and key != "copy"
        try:
            capsule = ext_tensor.__dlpack__(**kwargs)
            break
        except TypeError:
            if drop == ("dl_device",):
                raise
    tensor = _from_capsule(capsule)
    if copy is True and not producer_copied and move_to is None:
        tensor = tensor.clone()
    if move_to is not None:
        tensor = tensor.to(move_to)
    return tensor


# Their names as methods of Tensor, which Python's own messages print.
__dlpack__.__qualname__ = "Tensor.__dlpack__"
__dlpack_device__.__qualname__ = "Tensor.__dlpack_device__"
Tensor.__dlpack__ = __dlpack__
Tensor.__dlpack_device__ = __dlpack_device__
