"""`gradrs.version` (`torch.version`): what environment reports read. gradrs is built with no
CUDA, HIP, ROCm or XPU toolkit (its GPU is wgpu's), so those are None, as in a CPU build of
PyTorch; `__version__` is gradrs's own."""

from __future__ import annotations

from . import __version__

cuda: str | None = None
hip: str | None = None
rocm: str | None = None
xpu: str | None = None
debug = False
git_version = "unknown"

__all__ = ["__version__", "cuda", "debug", "git_version", "hip", "rocm", "xpu"]
