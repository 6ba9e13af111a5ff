"""`gradrs.nn.attention`: the SDPBackend names and the sdpa_kernel context manager that picks
which backends F.scaled_dot_product_attention may use (flags in gradrs.backends.cuda, as
PyTorch keeps them in its global context), and the CPU backend choice those flags drive.

gradrs computes attention with PyTorch's math definition whichever backend is chosen; the
choice decides only whether a call is allowed: with the math backend disabled, PyTorch's CPU
build runs its flash kernel when the inputs meet its conditions and refuses the call otherwise
(after warning why), and with math and flash both disabled it finds no backend at all.
"""

from __future__ import annotations

import contextlib
import enum
import warnings

from ...backends import cuda as _cuda

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS"]

# PyTorch's switch for warnings about unfused kernels (read by its attention-bias subclasses).
WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.Enum):
    """An enum-like class that contains the different backends for scaled dot product attention.

    This backend class is designed to be used with the sdpa_kernel context manager.
    """

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __int__(self):
        return self.value

    __index__ = __int__

    def __hash__(self):
        return hash(self.value)


# The flag name in gradrs.backends.cuda of each backend sdpa_kernel switches.
_BACKEND_FLAGS = {
    "cudnn": SDPBackend.CUDNN_ATTENTION,
    "flash": SDPBackend.FLASH_ATTENTION,
    "mem_efficient": SDPBackend.EFFICIENT_ATTENTION,
    "math": SDPBackend.MATH,
    "overrideable": SDPBackend.OVERRIDEABLE,
}
# PyTorch's default order of preference (torch._C._get_sdp_priority_order()).
_priority = [1, 2, 0, 3, 4]
_overrideable = [True]


def _enabled(flag):
    if flag == "overrideable":
        return _overrideable[0]
    return _cuda._sdp[flag]


def _set_enabled(flag, value):
    if flag == "overrideable":
        _overrideable[0] = value
    else:
        _cuda._sdp[flag] = value


def _cur_sdpa_kernel_backends(with_priority=False):
    backends = [b for flag, b in _BACKEND_FLAGS.items() if _enabled(flag)]
    if with_priority:
        backends.sort(key=lambda b: _priority.index(int(b)))
    return backends


def _sdpa_kernel(backends, set_priority=False):
    for flag, backend in _BACKEND_FLAGS.items():
        _set_enabled(flag, backend in backends)
    if set_priority:
        order = [int(b) for b in backends]
        order += [b for b in _priority if b not in order]
        _priority[:] = order


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Within the block, F.scaled_dot_product_attention may only use `backends` (one
    SDPBackend or a list of them), tried in the order given when `set_priority` is True.

    Examples:
        >>> from gradrs.nn.attention import SDPBackend, sdpa_kernel
        >>> with sdpa_kernel(SDPBackend.MATH):
        ...     gradrs.backends.cuda.flash_sdp_enabled()
        False
    """
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend "
                             f"instances, got {type(backends).__name__}")
    if isinstance(backends, SDPBackend):
        backends = [backends]
    backends = list(dict.fromkeys(backends))
    previous = _cur_sdpa_kernel_backends(with_priority=set_priority)
    previous_priority = list(_priority)
    try:
        _sdpa_kernel(backends, set_priority)
        yield {}
    finally:
        _sdpa_kernel(previous, set_priority)
        _priority[:] = previous_priority


def _sizes(t):
    return str(list(t.shape))


def _flash_cpu_refusals(query, key, value, attn_mask, dropout_p, enable_gqa):
    """Why PyTorch's CPU flash kernel cannot run these inputs: the reason its first failing
    condition warns (None when it warns nothing), or () when it can run them."""
    from ..functional import _cpp_dtype

    if dropout_p > 0.0:
        return ("Both fused kernels do not support non-zero dropout.",)
    if not (query.dim() == key.dim() == value.dim() == 4):
        return ("All fused kernels requires query, key and value to be 4 dimensional, but got "
                f"Query dim: {query.dim()}, Key dim: {key.dim()}, Value dim: {value.dim()} "
                "instead.",)
    if not (query.shape[0] == key.shape[0] == value.shape[0]):
        return ("For dense inputs, both fused kernels require query, key and value to have the "
                f"same batch_size. Query.sizes(): {_sizes(query)}, Key.sizes(): {_sizes(key)}, "
                f"Value.sizes(): {_sizes(value)} instead. To broadcast dense inputs, try using "
                "unsqueeze and expand_to before passing them into the kernel.",)
    hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
    if enable_gqa:
        if hk != hv:
            return ("Both fused kernels require key and value to have the same num_heads and "
                    f"batch_size but got: Key sizes: {_sizes(key)}, Value sizes: {_sizes(value)}, "
                    f"Query sizes: {_sizes(query)} instead.",)
        if hq % hk != 0:
            return ("The number of heads in key/value must divide number of heads in query.Got "
                    f"input Key sizes(): {hk}, Value sizes(): {hv}, Query sizes(): {hq} "
                    "instead.",)
    elif not (hq == hk == hv):
        return ("For dense input, both fused kernels require query, key and value to have the "
                f"same num_heads. Query.sizes(): {_sizes(query)}, Key sizes(): {_sizes(key)}, "
                f"Value sizes(): {_sizes(value)} instead. To broadcast dense inputs, try using "
                "unsqueeze and expand_to before passing them into the kernel.",)
    if attn_mask is not None:
        m = attn_mask
        # A mask that needs a gradient, or whose last two sizes do not broadcast, is refused
        # without a reason; a 2-D or a broadcastable 4-D one is taken.
        if m.requires_grad or m.shape[-2] not in (query.shape[2], 1) or \
                m.shape[-1] not in (key.shape[2], 1):
            return (None,)
        if not (m.dim() == 2 or (m.dim() == 4 and m.shape[0] in (1, query.shape[0])
                                 and m.shape[1] in (1, query.shape[1]))):
            return ("Please use the following attn mask shapes: 2d - ({Q_seq_len, 1}  x "
                    "{KV_seq_len, 1}); 4d - ({Batch, 1} x {Num_heads, 1} x {Q_seq_len, 1}  x "
                    "{KV_seq_len, 1})",)
    if not (query.shape[-1] == key.shape[-1] == value.shape[-1]):
        return ("Flash attention requires q,k,v to have the same last dimension. Got "
                f"Query.size(-1): {query.shape[-1]}, Key.size(-1): {key.shape[-1]}, "
                f"Value.size(-1): {value.shape[-1]} instead.",)
    strides = [t.stride(-1) for t in (query, key, value)]
    if strides != [1, 1, 1]:
        return ("All fused kernels require the last dimension of the input to have stride 1. "
                f"Got Query.stride(-1): {strides[0]}, Key.stride(-1): {strides[1]}, "
                f"Value.stride(-1): {strides[2]}",)
    if not all(t.is_floating_point() for t in (query, key, value)):
        return ("Expected query, key and value to all be of dtype: {Float, Double, BFloat16, "
                f"Half}}. Got Query dtype: {_cpp_dtype(query.dtype)}, Key dtype: "
                f"{_cpp_dtype(key.dtype)}, and Value dtype: {_cpp_dtype(value.dtype)} instead.",)
    return ()


def _check_cpu_backend(query, key, value, attn_mask, dropout_p, enable_gqa):
    """PyTorch's CPU backend choice for scaled_dot_product_attention: the errors (and
    warnings) of a call no enabled backend can run."""
    flash, math = _cuda._sdp["flash"], _cuda._sdp["math"]
    if math:
        return
    if not flash:
        raise RuntimeError("No viable backend for scaled_dot_product_attention was found. This "
                           "is likely due to turning off both the math kernel and the fused "
                           "kernels.")
    refusals = _flash_cpu_refusals(query, key, value, attn_mask, dropout_p, enable_gqa)
    if refusals:
        warnings.warn("Flash attention kernel not used because:", UserWarning, stacklevel=4)
        if refusals[0] is not None:
            warnings.warn(refusals[0], UserWarning, stacklevel=4)
        raise RuntimeError("No available kernel.  Aborting execution.")
