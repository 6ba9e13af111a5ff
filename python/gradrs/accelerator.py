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
