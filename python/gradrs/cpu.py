"""`gradrs.cpu`: PyTorch's `torch.cpu`, the CPU in the shape of a device module, for
device-agnostic code (`getattr(torch, device.type).synchronize()`), and `gradrs.cpu.amp`."""

import sys as _sys

from .amp import _cpu_amp as amp

__all__ = ["amp", "current_device", "device_count", "is_available", "set_device", "synchronize"]


def is_available() -> bool:
    """Whether the CPU is available: always."""
    return True


def synchronize(device=None) -> None:
    """Wait for the CPU's work: CPU ops are synchronous, so there is nothing to wait for."""


def device_count() -> int:
    """The number of CPU devices (not cores): 1."""
    return 1


def set_device(device) -> None:
    """Select the CPU device: there is one, so nothing changes."""


def current_device() -> str:
    """The current CPU device: 'cpu'."""
    return "cpu"


_sys.modules[__name__ + ".amp"] = amp
# A (file-less) package, so that `from gradrs.cpu.amp import ...` and the torch alias's
# `from torch.cpu.amp import ...` look `amp` up in sys.modules instead of refusing a module.
__path__: list[str] = []
