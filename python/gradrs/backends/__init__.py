"""`gradrs.backends`: the switches PyTorch exposes under `torch.backends`, with its defaults.

`cudnn`, `cuda` (`cuda.matmul.allow_tf32`, ...), `mps`, `mkldnn`, `mkl`, `openmp` and
`opt_einsum` report
what gradrs is built with (no cuDNN, MPS, oneDNN, MKL or OpenMP: its CPU kernels are Rust and
its GPU kernels WGSL; `cuda.is_built()` is True because `gradrs.cuda` is the wgpu GPU backend)
and keep the flags programs set, checked as PyTorch checks them. gradrs's kernels compute the
same way whatever the flags say: float32 stays float32, and results are deterministic.
"""

import sys as _sys
import types as _types

from . import _context


class _BackendsModule(_types.ModuleType):
    """The module's class, so that `fp32_precision` reads and writes through the context."""

    @property
    def fp32_precision(self):
        return _context.fp32_precision("generic", "all")

    @fp32_precision.setter
    def fp32_precision(self, value):
        _context.set_fp32_precision("generic", "all", value)


_sys.modules[__name__].__class__ = _BackendsModule

from . import cpu, cuda, cudnn, mkl, mkldnn, mps, openmp, opt_einsum  # noqa: E402

__all__ = ["cpu", "cuda", "cudnn", "mkl", "mkldnn", "mps", "openmp", "opt_einsum"]
