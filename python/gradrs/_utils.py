"""`torch._utils`'s helpers that training code imports by name: the dense-tensor flattening
pair gradient all-reduce and mixed-precision code bases (apex, Megatron-style DDP buckets)
call, `_get_device_index`, and the deprecated `is_compiling`."""

from __future__ import annotations

import sys
import warnings
from typing import Any

_G = sys.modules[__package__]


def _flatten_dense_tensors(tensors):
    """Flatten dense tensors into a contiguous 1D buffer (ATen's flatten_dense_tensors: each
    tensor's `contiguous().view(-1)`, concatenated unless there is one).

    Examples:
        >>> from gradrs._utils import _flatten_dense_tensors
        >>> _flatten_dense_tensors([gradrs.ones(2), gradrs.zeros(1, 2)])
        tensor([1., 1., 0., 0.])
    """
    flat = [t.contiguous().view(-1) for t in tensors]
    if len(flat) == 1:
        return flat[0]
    return _G.cat(flat)


def _unflatten_dense_tensors(flat, tensors):
    """Views of `flat` shaped as `tensors` (ATen's unflatten_dense_tensors: a narrow and a view
    each; an empty tensor gets a fresh empty tensor of flat's options).

    Examples:
        >>> from gradrs._utils import _unflatten_dense_tensors
        >>> [t.shape for t in _unflatten_dense_tensors(gradrs.arange(4.0), [gradrs.ones(1, 3), gradrs.ones(1)])]
        [gradrs.Size([1, 3]), gradrs.Size([1])]
    """
    outputs = []
    offset = 0
    for tensor in tensors:
        numel = tensor.numel()
        if numel == 0:
            outputs.append(_G.empty(0, dtype=flat.dtype, device=flat.device))
        else:
            outputs.append(flat.narrow(0, offset, numel).view(tensor.size()))
            offset += numel
    return tuple(outputs)


def _get_device_index(device: Any, optional: bool = False, allow_cpu: bool = False) -> int:
    """The index of `device` (a device, a string or an int); -1 for the CPU when `allow_cpu`,
    PyTorch's ValueError otherwise; with `optional`, a device without an index is the current
    one (0)."""
    if isinstance(device, str):
        device = _G.device(device)
    device_idx = None
    if isinstance(device, _G.device):
        if not allow_cpu and device.type == "cpu":
            raise ValueError(f"Expected a non cpu device, but got: {device}")
        device_idx = -1 if device.type == "cpu" else device.index
    if isinstance(device, int):
        device_idx = device
    if device_idx is None:
        if optional:
            return 0
        raise ValueError(f"Expected a gradrs.device with a specified index or an integer, but "
                         f"got:{device}")
    return device_idx


def is_compiling() -> bool:
    """Deprecated alias of `gradrs.compiler.is_compiling` (False: gradrs runs eagerly)."""
    warnings.warn("`gradrs._utils.is_compiling` is deprecated. Use "
                  "`gradrs.compiler.is_compiling` instead.", UserWarning, stacklevel=2)
    return _G.compiler.is_compiling()
