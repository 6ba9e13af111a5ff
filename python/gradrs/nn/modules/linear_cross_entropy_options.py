"""LinearCrossEntropyOptions: how F.linear_cross_entropy's chunked path splits the batch."""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

from ... import _native

__all__ = ["LinearCrossEntropyOptions"]


class _AutoDefault(NamedTuple):
    acc_policy: str
    chunking_method: str


# PyTorch's picks for the "auto" sentinels, keyed by (device type, input dtype); gradrs has no
# bfloat16, so only PyTorch's float16 rows are here. Other pairs take the fallback.
_AUTO_DEFAULTS = {
    ("cuda", _native.float16): _AutoDefault("compact", "aspect_ratio:2"),
    ("cpu", _native.float16): _AutoDefault("accurate", "aspect_ratio"),
}
_AUTO_FALLBACK = _AutoDefault("compact", "aspect_ratio:2")
_SUPPORTED_ACC_DTYPES = (_native.float16, _native.float32, _native.float64)


def _device_type(device):
    """PyTorch's name of a device's type ('cuda' for gradrs's GPU)."""
    return "cuda" if device.type == "gpu" else device.type


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """Configuration of :func:`~gradrs.nn.functional.linear_cross_entropy`'s chunked path,
    which runs the batch in pieces so the whole (batch, classes) logits tensor never exists.

    ``allow_retain_graph``: keep the precomputed gradients so that the scalar reductions
    (``"mean"``, ``"sum"``) can run backward more than once (otherwise a second backward
    raises). ``batch_chunk_size``: rows per chunk (None: one chunk), not together with a
    ``chunking_method`` that gives another size. ``chunking_method``: ``"auto"``,
    ``"aspect_ratio"`` or ``"aspect_ratio:N"`` (chunks whose logits take the input's memory,
    divided by N), or None. ``acc_policy``: ``"auto"``, ``"accurate"``, ``"balanced"`` or
    ``"compact"``, PyTorch's memory/precision trade-off; in gradrs every policy accumulates
    in ``acc_dtype``. ``acc_dtype``: the accumulation dtype (None: float32 for float16 input,
    else the input's dtype).
    """

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: str = "auto"
    acc_dtype: object = None

    def __post_init__(self):
        if self.acc_policy not in {"auto", "accurate", "balanced", "compact"}:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, sep, factor = self.chunking_method.partition(":")
            if not sep:
                factor = "1"
            if not (name == "aspect_ratio" and factor.isdigit() and int(factor) > 0):
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        if not (self.batch_chunk_size is None
                or (isinstance(self.batch_chunk_size, int) and self.batch_chunk_size > 0)):
            raise ValueError("batch_chunk_size must be positive int or None, got "
                             f"{self.batch_chunk_size!r}")
        if self.acc_dtype is not None and self.acc_dtype not in _SUPPORTED_ACC_DTYPES:
            raise ValueError(
                "acc_dtype must be one of {None, gradrs.float16, gradrs.bfloat16, "
                f"gradrs.float32, gradrs.float64}}, got {self.acc_dtype!r}. Pass acc_dtype=None "
                "to let the op pick automatically.")

    @staticmethod
    def _ceil_div(a, b):
        return -(-a // b)

    @staticmethod
    def _resolve_auto_acc_dtype(dtype, device):
        """float32 for float16 input (gradrs's matmul takes float16 with float32 results on
        both devices), else None (the input's dtype)."""
        if device is None or dtype is not _native.float16:
            return None
        return _native.float32

    def _compute_batch_chunk_size(self, num_batches, in_features, num_classes, method=None):
        method = str(method if method is not None else self.chunking_method)
        if method.startswith("aspect_ratio"):
            factor = int(method.split(":", 1)[1]) if ":" in method else 1
            inc_factor = self._ceil_div(num_classes, in_features)
            target = self._ceil_div(num_batches, inc_factor)
            chunk_size = 1 << (target - 1).bit_length()  # next power of 2 >= target
            return min(chunk_size // factor, num_batches)
        raise AssertionError(f"unhandled chunking_method: {method!r}")

    def _adjust(self, num_batches, in_features, num_classes, dtype, device=None):
        """The options with the "auto" sentinels and None defaults resolved for one call."""
        acc_policy = self.acc_policy
        chunking_method = self.chunking_method
        # An explicit batch_chunk_size turns the automatic chunking off.
        if chunking_method == "auto" and self.batch_chunk_size is not None:
            chunking_method = None
        if acc_policy == "auto" or chunking_method == "auto":
            if device is not None:
                ap, cm = _AUTO_DEFAULTS.get((_device_type(device), dtype), _AUTO_FALLBACK)
            else:
                ap, cm = _AUTO_FALLBACK
            if acc_policy == "auto":
                acc_policy = ap
            if chunking_method == "auto":
                chunking_method = cm
        if self.batch_chunk_size is None:
            batch_chunk_size = num_batches
        else:
            batch_chunk_size = min(self.batch_chunk_size, num_batches)
        if chunking_method is not None:
            batch_chunk_size = self._compute_batch_chunk_size(
                num_batches, in_features, num_classes, chunking_method)
            if self.batch_chunk_size is not None and self.batch_chunk_size != batch_chunk_size:
                raise ValueError(
                    f"batch_chunk_size (={self.batch_chunk_size}) and chunking_method "
                    f"('{chunking_method}') give different chunk sizes "
                    f"({self.batch_chunk_size} vs {batch_chunk_size}); pass only one.")
        if self.acc_dtype is None:
            auto_acc = (self._resolve_auto_acc_dtype(dtype, device)
                        if self.acc_policy == "auto" else None)
            acc_dtype = auto_acc if auto_acc is not None else dtype
        else:
            acc_dtype = self.acc_dtype
        return dataclasses.replace(self, acc_policy=acc_policy, chunking_method=chunking_method,
                                   batch_chunk_size=max(1, batch_chunk_size),
                                   acc_dtype=acc_dtype)
