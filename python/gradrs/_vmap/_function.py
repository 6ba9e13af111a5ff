"""`autograd.Function` under vmap (functorch's custom_function_call_vmap): `VmapInfo`,
`legacy_functions`, `function_apply`.
"""

from __future__ import annotations

from typing import NamedTuple

from ..func import _flatten, _spec_str, _unflatten
from . import (
    BatchedTensor, _broadcast_flat, _dims_spec, _Fallback, _is_tensor, _phys, _state, _top,
)


class VmapInfo(NamedTuple):
    """What a Function's ``vmap`` staticmethod gets first: the batch size and randomness."""

    batch_size: int
    randomness: str


_EXTENDING = "For more details, please see https://pytorch.org/docs/main/notes/extending.func.html"


def _legacy():
    return getattr(_state, "legacy", 0) > 0


class legacy_functions:
    """A context in which an autograd.Function handed BatchedTensors runs per sample, as
    under PyTorch's legacy vmap (gradcheck's batched checks run that one)."""

    def __enter__(self):
        _state.legacy = getattr(_state, "legacy", 0) + 1

    def __exit__(self, *exc):
        _state.legacy -= 1


def function_apply(cls, args, kwargs, setup):
    """`Function.apply` with BatchedTensor arguments, as functorch: a Function needs
    `setup_context`, and either `generate_vmap_rule=True` (run per sample here, the values of
    the generated rule) or its own `vmap` staticmethod, called with the physical tensors."""
    from ..autograd.function import Function

    if _legacy():
        raise _Fallback()
    if not setup:
        raise RuntimeError(
            "In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, "
            f"jacrev, ...), it must override the setup_context staticmethod. {_EXTENDING}")
    if any(_is_tensor(v) for v in _flatten(kwargs)[0]):
        raise NotImplementedError(
            "Run vmap on autograd.Function with kwarg-only Tensor args. Please do not pass "
            f"kwarg-only Tensors to autograd.Function. Got: {kwargs}")
    overridden = cls.vmap is not Function.vmap
    if cls.generate_vmap_rule:
        if overridden:
            raise RuntimeError(
                f"You tried to vmap over {cls.__name__}, but it has both "
                "generate_vmap_rule=True and an overridden vmap staticmethod. Please set "
                "generate_vmap_rule=False or delete the overridden vmap staticmethod to avoid "
                f"ambiguity. {_EXTENDING}")
        raise _Fallback()
    if not overridden:
        raise RuntimeError(
            f"You tried to vmap over {cls.__name__}, but it does not have vmap support. Please "
            f"override and implement the vmap staticmethod or set generate_vmap_rule=True. "
            f"{_EXTENDING}")
    lvl = _top(args)
    flat, spec = _flatten(tuple(args))
    in_dims = _unflatten([0 if _phys(a, lvl) is not None else None for a in flat], spec)
    unwrapped = _unflatten([_phys(a, lvl) if _phys(a, lvl) is not None else a for a in flat],
                           spec)
    size = next(a for a in flat if _phys(a, lvl) is not None)._size()
    info = VmapInfo(batch_size=size, randomness=getattr(_state, "randomness", "error"))
    level = _state.level
    _state.level = lvl - 1  # the staticmethod sees the next level's tensors
    try:
        result = cls.vmap(info, in_dims, *unwrapped)
    finally:
        _state.level = level
    base = ("Expected the vmap staticmethod to have two returns, an output and out_dims with "
            "pytree structure compatible with the output. ")
    if not isinstance(result, tuple):
        raise RuntimeError(base + f"Got a {type(result)} instead")
    if len(result) != 2:
        raise RuntimeError(base + f"Got {len(result)} returns instead")
    output, out_dims = result
    flat_out, out_spec = _flatten(output)
    dims = _broadcast_flat(out_dims, out_spec)
    if dims is None:
        raise RuntimeError(
            "The autograd.Function's vmap staticmethod returned an incompatible (output, "
            f"out_dims) tuple. Expected out_dims={out_dims} to be compatible with the "
            f"structure of `output`. out_dims has structure {_dims_spec(out_dims)} but output "
            f"has structure {_spec_str(out_spec)}. {_EXTENDING}")
    return _unflatten([o if d is None or not _is_tensor(o) else
                       BatchedTensor(o.movedim(d, 0), lvl) for o, d in zip(flat_out, dims)],
                      out_spec)
