"""`gradrs.cuda`: an alias of `gradrs.gpu`, so code written for `torch.cuda` runs unchanged.

There is no CUDA here: the GPU is whatever Vulkan/Metal/DX12 adapter wgpu finds.
"""

from .gpu import (
    device_count,
    device_name,
    empty_cache,
    get_device_name,
    is_available,
    memory_allocated,
    memory_reserved,
    synchronize,
)

__all__ = [
    "device_count",
    "device_name",
    "empty_cache",
    "get_device_name",
    "is_available",
    "memory_allocated",
    "memory_reserved",
    "synchronize",
]
