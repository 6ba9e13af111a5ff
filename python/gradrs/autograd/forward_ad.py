"""`gradrs.autograd.forward_ad`: forward-mode AD as PyTorch's (dual tensors at one level).

Tangents live in the native tensors (Note [Forward AD] in `src/autograd/forward.rs`): each op
computes its outputs' tangents from its own forward formula as it runs, not by double backward.
"""

from __future__ import annotations

from typing import NamedTuple

from .. import _native
from .._grad_mode import _DecoratorContextManager

__all__ = [
    "UnpackedDualTensor",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
    "dual_level",
]

# The current level (-1: none), as PyTorch keeps it on the Python side.
_current_level = -1


def enter_dual_level():
    """Enter a new forward grad level (only one may be live) and return it."""
    global _current_level
    new_level = _native._enter_dual_level()
    if new_level != _current_level + 1:
        raise RuntimeError(
            "Entering a new forward AD level but the current level "
            "is not valid. Make sure you did not modify it directly."
        )
    _current_level = new_level
    return new_level


def exit_dual_level(*, level=None):
    """Exit a forward grad level, deleting every tangent made at it."""
    global _current_level
    if level is None:
        level = _current_level
    if level != _current_level:
        raise RuntimeError(
            "Trying to exit a forward AD level that was not the last one "
            "that was created. This is not supported."
        )
    _native._exit_dual_level(level=level)
    _current_level = level - 1


def make_dual(tensor, tangent, *, level=None):
    """A new tensor aliasing `tensor` whose tangent is `tangent` (kept as is when it has the
    same layout, copied otherwise). Backward differentiable.

    Examples:
        >>> import gradrs.autograd.forward_ad as fwAD
        >>> x = gradrs.tensor([1.0, 2.0])
        >>> with fwAD.dual_level():
        ...     y = fwAD.make_dual(x, gradrs.ones(2)) ** 2
        ...     print(fwAD.unpack_dual(y).tangent)
        ...
        tensor([2., 4.])
    """
    if level is None:
        level = _current_level
    if level < 0:
        raise RuntimeError(
            "Trying to create a dual Tensor for forward AD but no level "
            "exists, make sure to enter_dual_level() first."
        )
    if not tensor.is_floating_point():  # gradrs has no complex dtypes
        raise ValueError(
            f"Expected primal to be floating point or complex, but got: {tensor.dtype}"
        )
    if not tangent.is_floating_point():
        raise ValueError(
            f"Expected tangent to be floating point or complex, but got: {tangent.dtype}"
        )
    if hasattr(type(tensor), "_vmap_level") or hasattr(type(tangent), "_vmap_level"):
        from .. import _vmap
        if not _vmap._legacy():
            # functorch has no batching rule for it (`func.jvp` is the way under vmap).
            raise RuntimeError(_NO_RULE.format("_make_dual"))
        # The legacy vmap (gradcheck's batched checks): one dual of the batched physicals.
        return _vmap.batched_dual(tensor, tangent, _vmap._top((tensor, tangent)))
    return _make_dual(tensor, tangent, level=level)


_NO_RULE = ("Batching rule not implemented for aten::{}; the fallback path doesn't work on out= "
            "or view ops.")


def _make_dual(tensor, tangent, *, level=None):
    """`make_dual` of native tensors (what the transforms call), with PyTorch's refusal of a
    primal whose elements share memory (an expanded one) when the tangent must be copied into
    its layout."""
    dual = _native._make_dual(tensor, tangent, level=_current_level if level is None else level)
    if any(st == 0 and n > 1 for st, n in zip(tensor.stride(), tensor.shape)) and (
            _native._unpack_dual(dual, level=_current_level)[1].data_ptr()
            != tangent.data_ptr()):
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation.")
    return dual


class UnpackedDualTensor(NamedTuple):
    """What :func:`unpack_dual` returns: the primal and the tangent (None if it has none)."""

    primal: _native.Tensor
    tangent: _native.Tensor | None


def unpack_dual(tensor, *, level=None):
    """``(primal, tangent)``: a view of `tensor`'s primal and its tangent as is.

    Examples:
        >>> import gradrs.autograd.forward_ad as fwAD
        >>> with fwAD.dual_level():
        ...     d = fwAD.make_dual(gradrs.tensor(3.0), gradrs.tensor(1.0))
        ...     print(fwAD.unpack_dual(d.sin()))
        ...
        UnpackedDualTensor(primal=tensor(0.1411), tangent=tensor(-0.9900))
    """
    if level is None:
        level = _current_level
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    if hasattr(type(tensor), "_vmap_level"):
        from .. import _vmap
        if not _vmap._legacy():
            raise RuntimeError(_NO_RULE.format("_unpack_dual"))
        return UnpackedDualTensor(*_vmap.unpack_batched_dual(tensor, tensor._level))
    return _unpack_dual(tensor, level=level)


def _unpack_dual(tensor, *, level=None):
    """`unpack_dual` of a native tensor, or of a BatchedTensor through its levels (what the
    transforms call)."""
    if level is None:
        level = _current_level
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    if hasattr(type(tensor), "_vmap_level"):
        from .. import _vmap
        return UnpackedDualTensor(*_vmap.unpack_batched_dual(tensor, tensor._level))
    primal, dual = _native._unpack_dual(tensor, level=level)
    return UnpackedDualTensor(primal, dual)


class dual_level(_DecoratorContextManager):
    """Context manager entering a forward AD level on entry and exiting it on exit (only one
    level is supported, as in PyTorch).

    Examples:
        >>> import gradrs.autograd.forward_ad as fwAD
        >>> with fwAD.dual_level():
        ...     y = fwAD.make_dual(gradrs.tensor(2.0), gradrs.tensor(1.0)) ** 3
        ...     print(fwAD.unpack_dual(y).tangent)
        ...
        tensor(12.)
    """

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, exc_type: object, exc_value: object, traceback: object) -> None:
        exit_dual_level()


_is_fwd_grad_enabled = _native._is_fwd_grad_enabled


class _set_fwd_grad_enabled(_DecoratorContextManager):
    def __init__(self, mode: bool) -> None:
        self.prev = _is_fwd_grad_enabled()
        _native._set_fwd_grad_enabled(mode)

    def __enter__(self) -> None:
        pass

    def __exit__(self, exc_type: object, exc_value: object, traceback: object) -> None:
        _native._set_fwd_grad_enabled(self.prev)
