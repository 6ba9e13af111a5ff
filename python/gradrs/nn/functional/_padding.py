"""Padding of `gradrs.nn.functional` (one of PyTorch's docs' "Vision functions"): pad, and the
`_pad` the convolutions and poolings pad with.
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Sequence

from ..._native import Tensor as _Tensor
from ._helpers import _check_tensor_args, _one_node


_PAD_SIZES = ("\nSupported combinations for non-constant padding:\n"
              "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
              "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
              "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def pad(input: _Tensor, pad: Sequence[int], mode: str = "constant",
        value: float | None = None) -> _Tensor:
    """Pads `input`. `pad` lists the padding sizes from the last dimension backwards: (left,
    right) for the last dimension, then (top, bottom) for the one before, and so on.

    Args:
        input: the tensor to pad.
        pad: an even number of sizes (negative sizes crop).
        mode: 'constant' (default), 'reflect', 'replicate' or 'circular'.
        value: the fill value for 'constant' (default 0).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.pad(gradrs.tensor([[1.0, 2.0]]), (1, 2), value=9.0)
        tensor([[9., 1., 2., 9., 9.]])
        >>> F.pad(gradrs.tensor([[[1.0, 2.0, 3.0]]]), (2, 0), mode='reflect')
        tensor([[[3., 2., 1., 2., 3.]]])
    """
    if value is not None:
        value = _float_value(value)
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if len(pad) % 2 != 0:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise RuntimeError("Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(pad)} and input of dimension "
                           f"{input.dim()}")
    if mode != "constant":
        if value is not None and value != 0:
            raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
        # PyTorch's kernels pad the last 1-3 dims of a batched (or unbatched) input only
        if not 1 <= len(pad) // 2 <= 3 or input.dim() - len(pad) // 2 not in (1, 2):
            raise NotImplementedError(f"Padding size {len(pad)} is not supported for "
                                      f"{input.dim()}D input tensor.{_PAD_SIZES}")
    if mode == "constant":
        return _one_node("ConstantPadNdBackward0", lambda x: _pad(x, pad, mode, value), input,
                         saved=lambda: [("pad", tuple(int(n) for n in pad))])
    if mode in ("reflect", "replicate") and 1 <= len(pad) // 2 <= 3:
        kind = "Reflection" if mode == "reflect" else "Replication"
        return _one_node(f"{kind}Pad{len(pad) // 2}DBackward0",
                         lambda x: _pad(x, pad, mode, value), input)
    return _pad(input, pad, mode, value)


def _float_value(value):
    """`value` read as PyTorch's parser reads a `float` argument: a Python or NumPy number, or a
    0-dim tensor that does not require grad (its value)."""
    if isinstance(value, _Tensor):
        if value.dim() == 0 and not value.requires_grad:
            return value.item()
    elif isinstance(value, (int, float, numbers.Real)):
        return value
    name = "Tensor" if isinstance(value, _Tensor) else type(value).__name__
    if type(value).__module__ not in ("builtins", None) and not isinstance(value, _Tensor):
        name = f"{type(value).__module__}.{name}"
    raise TypeError(f"pad(): argument 'value' (position 4) must be float, not {name}")


def _pad(input, pad, mode, value):
    from ... import full

    out = input
    fresh = False  # whether `out` is a new tensor yet (not `input` or a narrowed view of it)
    if mode in ("reflect", "replicate"):
        _check_output_size(input, pad, mode)
    if mode == "circular":  # ATen's _pad_circular checks, first spatial dim first
        for i in reversed(range(len(pad) // 2)):
            left, right = pad[2 * i], pad[2 * i + 1]
            n = input.shape[input.dim() - 1 - i]
            if left > n or right > n:
                raise RuntimeError("Padding value causes wrapping around more than once.")
            if n + left + right < 0:
                raise RuntimeError("Negative padding value is resulting in an empty dimension")
    for i in range(len(pad) // 2):
        dim = input.dim() - 1 - i
        left, right = pad[2 * i], pad[2 * i + 1]
        n = out.shape[dim]
        if mode == "constant":
            if left < 0:
                out = out.narrow(dim, -left, out.shape[dim] + left)
                left = 0
            if right < 0:
                out = out.narrow(dim, 0, out.shape[dim] + right)
                right = 0
            parts = []
            if left > 0:
                shape = list(out.shape)
                shape[dim] = left
                parts.append(full(shape, 0 if value is None else value, dtype=out.dtype,
                                  device=out.device))
            parts.append(out)
            if right > 0:
                shape = list(out.shape)
                shape[dim] = right
                parts.append(full(shape, 0 if value is None else value, dtype=out.dtype,
                                  device=out.device))
            from ... import cat

            if len(parts) > 1:
                out, fresh = cat(parts, dim), True
            continue
        if mode == "reflect" and (left >= n or right >= n):
            raise RuntimeError(
                f"Argument #{4 + 2 * i}: Padding size should be less than the corresponding input "
                f"dimension, but got: padding ({left}, {right}) at dimension {dim} of input "
                f"{list(input.shape)}"
            )
        if mode not in ("replicate", "reflect", "circular"):
            raise NotImplementedError(f"Unrecognised padding mode {mode}")
        out, fresh = out.index_select(dim, _pad_index(mode, left, right, n, input.device)), True
    # PyTorch's constant_pad_nd always writes a new tensor: zero (or only negative) pads give
    # a copy, never `input` itself or a view of it that in-place ops would write through
    return out if fresh else out.clone()


def _check_output_size(input, pad, mode):
    """ATen's reflection / replication pad kernels refuse an output with no element along
    every padded dim (one dim empty is an empty result); a reflect pad as wide as its dim is
    refused first, by the loop of `_pad`."""
    nd = len(pad) // 2
    sizes = [input.shape[input.dim() - nd + k] for k in range(nd)]  # (D,) (H,) W
    pads = [(pad[2 * (nd - 1 - k)], pad[2 * (nd - 1 - k) + 1]) for k in range(nd)]
    if mode == "reflect" and any(lo >= n or hi >= n for n, (lo, hi) in zip(sizes, pads)):
        return
    out = [n + lo + hi for n, (lo, hi) in zip(sizes, pads)]
    if nd not in (1, 2, 3):
        return
    if any(o >= 1 for o in out):
        if any(o < 0 for o in out):  # the output's allocation refuses it
            if mode == "reflect" and nd == 2:  # (its numel is computed with checked products)
                raise RuntimeError("numel: integer multiplication overflow")
            shape = list(input.shape[:input.dim() - nd]) + out
            raise RuntimeError("Trying to create tensor with negative dimension "
                               f"{next(o for o in shape if o < 0)}: {shape}")
        return
    names = "DHW"[3 - nd:]
    given = dict(zip(names, sizes))
    calc = " ".join(f"{k}: {o}" for k, o in zip(names, out))
    if nd == 1:
        head = f"W: {given['W']}"
    elif nd == 2:
        head = f"H: {given['H']}, W: {given['W']}" + (" " if mode == "replicate" else "")
    else:
        head = f"D: {given['D']} H: {given['H']}, W: {given['W']}"
    raise RuntimeError(f"input ({head}) is too small. Calculated output {calc}")


@functools.lru_cache(maxsize=256)
def _pad_index(mode, left, right, n, device):
    """The source position of each output position of a reflect / replicate / circular pad
    along one dim: a function of sizes only, kept per device so that a GPU step uploads (and
    computes) nothing for it after its first call."""
    from ... import int64, tensor

    pos = range(-left, n + right)
    if mode == "replicate":
        idx = [min(max(i, 0), n - 1) for i in pos]
    elif mode == "reflect":
        period = 2 * (n - 1) if n > 1 else 1
        idx = [r if r < n else period - r for r in (i % period for i in pos)]
    else:
        idx = [i % n for i in pos]
    return tensor(idx, dtype=int64, device=device)  # (int64 when empty too)


# Each function wrapped as PyTorch's fails (`_check_tensor_args` with its spec,
# `_check_conv_args`) and batched by its vmap rule (`_vmap_rule`): one static name each.
pad = _check_tensor_args(pad, "pad(input)")
