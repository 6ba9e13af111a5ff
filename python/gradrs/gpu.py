"""`gradrs.gpu`: the wgpu device (Vulkan, Metal or DX12), in the shape of `torch.cuda`.

These functions report on the adapter GPU tensors run on and on the backend's buffer pool.
Without an adapter `is_available()` is False and the others that need one raise
RuntimeError saying what is missing. A software adapter (lavapipe's llvmpipe, SwiftShader,
WARP) counts only with GRADRS_GPU_ALLOW_SOFTWARE=1, so that programs asking "is there a GPU?"
stay on the CPU where PyTorch would. Set GRADRS_GPU_DISABLE=1 to hide every adapter.
"""

from __future__ import annotations

import sys as _sys

from . import _native
from ._legacy_types import legacy_gpu_type

# `torch.cuda.OutOfMemoryError` is `torch.OutOfMemoryError`: a failed GPU allocation.
OutOfMemoryError = _native.OutOfMemoryError

# the legacy GPU tensor types (`Tensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor`)
FloatTensor = legacy_gpu_type("FloatTensor", _native.float32)
DoubleTensor = legacy_gpu_type("DoubleTensor", _native.float64)
HalfTensor = legacy_gpu_type("HalfTensor", _native.float16)
BFloat16Tensor = legacy_gpu_type("BFloat16Tensor", _native.bfloat16)
ByteTensor = legacy_gpu_type("ByteTensor", _native.uint8)
CharTensor = legacy_gpu_type("CharTensor", _native.int8)
ShortTensor = legacy_gpu_type("ShortTensor", _native.int16)
IntTensor = legacy_gpu_type("IntTensor", _native.int32)
LongTensor = legacy_gpu_type("LongTensor", _native.int64)
BoolTensor = legacy_gpu_type("BoolTensor", _native.bool)


__all__ = [
    "BFloat16Tensor",
    "BoolTensor",
    "ByteTensor",
    "CharTensor",
    "DoubleTensor",
    "FloatTensor",
    "HalfTensor",
    "IntTensor",
    "LongTensor",
    "OutOfMemoryError",
    "ShortTensor",
    "amp",
    "current_device",
    "device_count",
    "device_name",
    "empty_cache",
    "get_device_name",
    "initial_seed",
    "is_available",
    "is_bf16_supported",
    "manual_seed",
    "manual_seed_all",
    "max_memory_allocated",
    "memory_allocated",
    "memory_reserved",
    "reset_peak_memory_stats",
    "set_device",
    "synchronize",
    "transfer_counts",
]


def is_available() -> bool:
    """Whether a hardware Vulkan/Metal/DX12 adapter exists, or a software one with
    GRADRS_GPU_ALLOW_SOFTWARE=1 (the first call opens the device)."""
    return _native._gpu_is_available()


def device_count() -> int:
    """1 with an adapter, 0 without: gradrs drives a single adapter."""
    return 1 if is_available() else 0


def device_name() -> str:
    """The adapter's name and backend, e.g. 'llvmpipe (LLVM 15.0.6, 256 bits) (Vulkan)'."""
    return _native._gpu_device_name()


def get_device_name(device: object = None) -> str:
    """`torch.cuda.get_device_name`'s spelling of `device_name()` (one device: the argument is
    accepted and ignored)."""
    return device_name()


def synchronize(device: object = None) -> None:
    """Submit every queued GPU dispatch and wait until the GPU has finished them."""
    _native._gpu_synchronize()


def empty_cache() -> None:
    """Release the buffer pool's cached (unused) buffers to the driver."""
    _native._gpu_empty_cache()


def memory_allocated(device: object = None) -> int:
    """Bytes in GPU buffers held by live data (rounded to the pool's size classes)."""
    return _native._gpu_memory_allocated()


def max_memory_allocated(device: object = None) -> int:
    """The most bytes `memory_allocated()` has reported since start-up or the last
    `reset_peak_memory_stats()`."""
    return _native._gpu_max_memory_allocated()


def reset_peak_memory_stats(device: object = None) -> None:
    """Start `max_memory_allocated()` over from the bytes allocated now."""
    _native._gpu_reset_peak_memory_stats()


def memory_reserved(device: object = None) -> int:
    """Bytes held by the buffer pool: live buffers plus cached ones."""
    return _native._gpu_memory_reserved()


def transfer_counts() -> tuple[int, int]:
    """gradrs-only: ``(downloads, uploads)`` of GPU tensors' host copies since start-up.

    A download is host code reading a GPU tensor (a read-back, or an op without a shader);
    an upload is a kernel reading a tensor whose host copy was written. Code that stays on
    the GPU leaves both unchanged.
    """
    return _native._gpu_transfer_counts()


def current_device() -> int:
    """The index of the current GPU device: 0 (gradrs drives one adapter)."""
    _native._gpu_device_name()  # raises, saying what is missing, without an adapter
    return 0


def set_device(device: object) -> None:
    """Select the GPU device: gradrs has one, index 0 (None or a negative index is a no-op)."""
    index = device if isinstance(device, int) or device is None else _native.device(device).index
    if index is not None and index > 0:
        raise RuntimeError(f"invalid device ordinal {index}: gradrs drives a single GPU, 0")


def manual_seed(seed: int) -> None:
    """Seed the random numbers of GPU tensors. gradrs draws them from its one generator, the
    one `gradrs.manual_seed` seeds, so this re-seeds that generator (CPU draws included); with
    no adapter it does nothing, as PyTorch ignores it without CUDA."""
    if is_available():
        _native.manual_seed(int(seed))


def manual_seed_all(seed: int) -> None:
    """`manual_seed` for every GPU device: gradrs has one."""
    manual_seed(seed)


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """Whether bfloat16 can be used on the GPU: no, gradrs has no bfloat16 dtype (programs
    that ask, e.g. to pick an autocast dtype, then choose float16)."""
    return False


def initial_seed() -> int:
    """The seed of the generator GPU random numbers come from."""
    return _native.initial_seed()


from .amp import _cuda_amp as amp  # noqa: E402 - `gradrs.cuda.amp`, the deprecated spellings

_sys.modules[__name__ + ".amp"] = amp
# A (file-less) package, so that `from gradrs.gpu.amp import ...` and the torch alias's
# `from torch.cuda.amp import ...` look `amp` up in sys.modules instead of refusing a module.
__path__: list[str] = []
