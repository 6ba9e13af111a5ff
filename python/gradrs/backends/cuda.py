"""`gradrs.backends.cuda`: PyTorch's CUDA switches, for gradrs's GPU device (`gradrs.cuda` is
the wgpu backend, so `is_built()` is True). `matmul.allow_tf32`, the reduced-precision
reduction flags, `matmul.fp32_precision` and the scaled-dot-product-attention backend toggles
keep what a program sets, type-checked as PyTorch does; gradrs's GPU matmuls compute in
float32 whatever they say.
"""

import contextlib
import warnings

from . import _context

__all__ = [
    "cudnn_sdp_enabled", "enable_cudnn_sdp", "enable_flash_sdp", "enable_math_sdp",
    "enable_mem_efficient_sdp", "flash_sdp_enabled", "is_built", "math_sdp_enabled", "matmul",
    "mem_efficient_sdp_enabled", "sdp_kernel",
]


def is_built() -> bool:
    """Whether gradrs is built with its GPU backend (which `gradrs.cuda` names): always.
    Whether a GPU is present is `gradrs.cuda.is_available()`."""
    return True


_reductions = {"fp16": (True, True), "bf16": (True, True)}
_fp16_accumulation = False


def _parse_reduction_setting(value, attr_name):
    def ensure_bool(obj, which):
        if isinstance(obj, bool):
            return obj
        raise TypeError(f"{attr_name} expects a bool for {which}, but got {type(obj)!r}")

    if isinstance(value, bool):
        return value, True
    if isinstance(value, (list, tuple)):
        if not value:
            raise TypeError(f"{attr_name} expects at least one boolean argument")
        if len(value) > 2:
            raise TypeError(f"{attr_name} expects at most two boolean arguments")
        allow_reduced_precision = ensure_bool(value[0], "allow_reduced_precision")
        if len(value) == 1:
            return allow_reduced_precision, True
        return allow_reduced_precision, ensure_bool(value[1], "allow_splitk")
    raise TypeError(
        f"{attr_name} expects a bool or a tuple/list of bools, but got {type(value)!r}")


class cuBLASModule:
    """`backends.cuda.matmul`: the cuBLAS flags, read and written as attributes."""

    def __getattr__(self, name):
        if name == "allow_tf32":
            return _context.allow_tf32_cublas()
        for kind in ("fp16", "bf16"):
            if name == f"allow_{kind}_reduced_precision_reduction":
                return _reductions[kind][0]
            if name == f"allow_{kind}_reduced_precision_reduction_split_k":
                return _reductions[kind][1]
        if name == "allow_fp16_accumulation":
            return _fp16_accumulation
        if name == "fp32_precision":
            return _context.fp32_precision("cuda", "matmul")
        raise AttributeError("Unknown attribute " + name)

    def __setattr__(self, name, value):
        global _fp16_accumulation
        if name == "allow_tf32":
            return _context.set_allow_tf32_cublas(value)
        for kind in ("fp16", "bf16"):
            if name == f"allow_{kind}_reduced_precision_reduction":
                reduced, splitk = _parse_reduction_setting(value, name)
                if reduced and not splitk:
                    raise RuntimeError("allow_splitk=False is not supported when reduced "
                                       "precision reductions are enabled")
                _reductions[kind] = (reduced, splitk)
                return None
        if name == "allow_fp16_accumulation":
            _context.check_bool("set_allow_fp16_accumulation_cublas", value)
            _fp16_accumulation = value
            return None
        if name == "fp32_precision":
            return _context.set_fp32_precision("cuda", "matmul", value)
        raise AttributeError("Unknown attribute " + name)


matmul = cuBLASModule()

_sdp = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}
# PyTorch's type-check messages for these setters, as it spells them (the flash and
# memory-efficient ones name the math setter, the cuDNN one keeps a stray "%s").
_SDP_SETTER_ERRORS = {
    "flash": "set_sdp_use_math expects a bool, but got {}",
    "mem_efficient": "set_sdp_use_math expects a bool, but got {}",
    "math": "set_sdp_use_math expects a bool, but got {}",
    "cudnn": "set_sdp_use_cudnn expects a bool, but got %s{}",
}


def _enable_sdp(kind, enabled):
    if not isinstance(enabled, bool):
        raise RuntimeError(_SDP_SETTER_ERRORS[kind].format(type(enabled).__name__))
    _sdp[kind] = enabled


def flash_sdp_enabled() -> bool:
    """Whether the flash scaled-dot-product-attention backend is enabled (a flag only)."""
    return _sdp["flash"]


def enable_flash_sdp(enabled: bool):
    """Enable or disable the flash scaled-dot-product-attention backend (a flag only)."""
    _enable_sdp("flash", enabled)


def mem_efficient_sdp_enabled() -> bool:
    """Whether the memory-efficient attention backend is enabled (a flag only)."""
    return _sdp["mem_efficient"]


def enable_mem_efficient_sdp(enabled: bool):
    """Enable or disable the memory-efficient attention backend (a flag only)."""
    _enable_sdp("mem_efficient", enabled)


def math_sdp_enabled() -> bool:
    """Whether the math attention backend is enabled (a flag only)."""
    return _sdp["math"]


def enable_math_sdp(enabled: bool):
    """Enable or disable the math attention backend (a flag only)."""
    _enable_sdp("math", enabled)


def cudnn_sdp_enabled() -> bool:
    """Whether the cuDNN attention backend is enabled (a flag only)."""
    return _sdp["cudnn"]


def enable_cudnn_sdp(enabled: bool):
    """Enable or disable the cuDNN attention backend (a flag only)."""
    _enable_sdp("cudnn", enabled)


@contextlib.contextmanager
def _sdp_kernel(backends):
    from ..nn.attention import sdpa_kernel

    with sdpa_kernel(backends) as context:
        yield context


def sdp_kernel(enable_flash: bool = True, enable_math: bool = True,
               enable_mem_efficient: bool = True, enable_cudnn: bool = True):
    """Deprecated (`gradrs.nn.attention.sdpa_kernel` replaces it): within the block only the
    enabled scaled-dot-product-attention backends may run; the flags are restored after."""
    warnings.warn("`gradrs.backends.cuda.sdp_kernel()` is deprecated. In the future, this "
                  "context manager will be removed. Please see "
                  "`gradrs.nn.attention.sdpa_kernel()` for the new context manager, with "
                  "updated signature.", FutureWarning, stacklevel=2)
    from ..nn.attention import SDPBackend

    backends = []
    if enable_flash:
        backends.append(SDPBackend.FLASH_ATTENTION)
    if enable_mem_efficient:
        backends.append(SDPBackend.EFFICIENT_ATTENTION)
    if enable_math:
        backends.append(SDPBackend.MATH)
    if enable_cudnn:
        backends.append(SDPBackend.CUDNN_ATTENTION)
    return _sdp_kernel(backends)
