"""`gradrs.accelerator`: PyTorch's device-generic accelerator API, for gradrs's GPU device.

gradrs's accelerator is its wgpu GPU (`gradrs.gpu`, alias `gradrs.cuda`): built in always, so
`current_accelerator()` is `device(type='gpu')`, and available when an adapter exists. gradrs
drives one adapter, so the only device index is 0.
"""

from __future__ import annotations

from . import _native, gpu

__all__ = [
    "current_accelerator", "current_device_index", "device_count", "device_index",
    "empty_cache", "is_available", "memory_allocated", "memory_reserved", "set_device_index",
    "synchronize",
]


def current_accelerator(check_available: bool = False):
    """The accelerator's device (`device(type='gpu')`, with no index); with
    `check_available=True`, None when no adapter is present."""
    if check_available and not is_available():
        return None
    return _native.device("gpu")


def is_available() -> bool:
    """Whether the accelerator can be used (a Vulkan/Metal/DX12 adapter exists)."""
    return gpu.is_available()


def device_count() -> int:
    """How many accelerator devices there are: 1 with an adapter, 0 without."""
    return gpu.device_count()


def _require() -> None:
    if not is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")


def current_device_index() -> int:
    """The index of the current accelerator device: 0 (gradrs drives one adapter)."""
    _require()
    return 0


def _get_device_index(device, optional: bool = False) -> int:
    if isinstance(device, int):
        return device
    if isinstance(device, str):
        device = _native.device(device)
    device_index = None
    if isinstance(device, _native.device):
        acc = current_accelerator()
        if device.type not in ("gpu", "cuda"):  # 'cuda' names the same device
            raise ValueError(f"{device.type} doesn't match the current accelerator {acc}.")
        device_index = device.index
    if device_index is None:
        if not optional:
            raise ValueError("Expected a gradrs.device with a specified index or an integer, "
                             f"but got:{device}")
        return current_device_index()
    return device_index


def _check_index(index: int) -> int:
    _require()
    if index != 0:
        raise RuntimeError(f"device index {index} is out of range: gradrs has one GPU device, "
                           "index 0")
    return index


def set_device_index(device, /) -> None:
    """Make `device` the current accelerator device (only index 0 exists)."""
    _check_index(_get_device_index(device, optional=False))


def synchronize(device=None, /) -> None:
    """Wait until every queued kernel on the accelerator has finished."""
    _check_index(_get_device_index(device, optional=True))
    gpu.synchronize()


class device_index:
    """Context manager that makes device `device` current inside it (None: a no-op)."""

    def __init__(self, device: int | None, /) -> None:
        self.idx = device

    def __enter__(self) -> None:
        if self.idx is not None:
            _check_index(self.idx)

    def __exit__(self, *exc_info: object) -> None:
        return None


def empty_cache() -> None:
    """Release the GPU buffer pool's unused buffers."""
    gpu.empty_cache()


def memory_allocated(device=None, /) -> int:
    """Bytes held by live GPU tensors."""
    return gpu.memory_allocated()


def memory_reserved(device=None, /) -> int:
    """Bytes held by the GPU buffer pool (live and cached)."""
    return gpu.memory_reserved()


# ---------------------------------------------------------------------------------------------
# Tensor.pin_memory / Tensor.is_pinned
#
# PyTorch copies a CPU tensor into page-locked host memory so that copies to its accelerator can
# be asynchronous. gradrs's host memory is ordinary memory either way (wgpu stages its own
# uploads), so a pinned tensor is a copy that remembers it was pinned: `is_pinned()` is True
# for it and for every tensor viewing its memory (slices, views, detach) while it is alive.
# ---------------------------------------------------------------------------------------------

_pinned: dict[int, tuple[object, int]] = {}  # first byte -> (weakref to the copy, byte extent)


def _extent(t) -> int:
    if t.numel() == 0:
        return 0
    return (sum((n - 1) * s for n, s in zip(t.shape, t.stride())) + 1) * t.element_size()


def _deprecated_device(method: str, device) -> None:
    if device is not None:
        import warnings

        warnings.warn(f"The argument 'device' of Tensor.{method}() is deprecated. Please do not "
                      "pass this argument.", DeprecationWarning, stacklevel=3)


def _is_pinned(self, device=None) -> bool:
    """Whether this tensor's memory is a pinned copy's (see `pin_memory`)."""
    _deprecated_device("is_pinned", device)
    if self.is_cuda:
        return False
    ptr = self.data_ptr()
    for start, (ref, extent) in list(_pinned.items()):
        if ref() is None:
            del _pinned[start]
        elif start <= ptr < start + max(extent, 1):
            return True
    return False


def _pin_memory(self, device=None):
    """A copy of this CPU tensor in pinned memory (this tensor itself if it is pinned already).

    Needs the accelerator, as in PyTorch. Its autograd node is `CloneBackward0` where PyTorch
    names it `PinMemoryBackward0` (same gradient).
    """
    import weakref

    _deprecated_device("pin_memory", device)
    _require()
    if self.is_cuda:
        raise RuntimeError(f"cannot pin '{self.type()}' only dense CPU tensors can be pinned")
    if _is_pinned(self):
        return self
    pinned = self.clone()
    _pinned[pinned.data_ptr()] = (weakref.ref(pinned), _extent(pinned))
    return pinned


for _name, _method in (("pin_memory", _pin_memory), ("is_pinned", _is_pinned)):
    if not hasattr(_native.Tensor, _name):  # a native implementation wins
        _method.__name__ = _method.__qualname__ = _name
        setattr(_native.Tensor, _name, _method)
del _name, _method
