"""`gradrs.memory_format` and the two layouts gradrs has: `contiguous_format` (also named
`legacy_contiguous_format`, the same object, as in PyTorch) and `preserve_format`, the default of
`clone` and the `*_like` factories. PyTorch programs pass them explicitly (third-party
optimizers copy `torch.zeros_like(p, memory_format=torch.preserve_format)` from PyTorch 1.x's
Adam); the factories and `Tensor.clone` / `Tensor.contiguous` take the keyword here and keep
their native fast path without it. gradrs makes every new tensor contiguous (row-major), so
`preserve_format` gives the contiguous layout where PyTorch would keep a transposed input's
strides; `channels_last` is not offered.
"""

from __future__ import annotations

import functools

from . import _native


class memory_format:
    """A memory layout for new tensors: `gradrs.contiguous_format` or `gradrs.preserve_format`.

    Examples:
        >>> gradrs.zeros_like(gradrs.ones(2), memory_format=gradrs.preserve_format)
        tensor([0., 0.])
    """

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return f"gradrs.{self._name}"

    def __reduce__(self) -> str:
        return self._name  # pickled by reference to the module's instance, as PyTorch's


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
legacy_contiguous_format = contiguous_format  # one object in PyTorch too


def _check(fn_name: str, value) -> None:
    if not isinstance(value, memory_format):
        raise TypeError(f"{fn_name}(): argument 'memory_format' must be gradrs.memory_format, "
                        f"not {type(value).__name__}")


def _apply(result, fmt):
    return result if fmt is preserve_format else result.contiguous()


def accepting(fn):
    """`fn` (a `*_like` factory or `clone`) taking PyTorch's `memory_format=` keyword."""

    @functools.wraps(fn)
    def wrapper(*args, memory_format=None, **kwargs):
        if memory_format is None:
            return fn(*args, **kwargs)
        _check(fn.__name__, memory_format)
        return _apply(fn(*args, **kwargs), memory_format)

    return wrapper


_native_clone = _native.Tensor.clone
_native_contiguous = _native.Tensor.contiguous


def _clone(self, *, memory_format=None):
    if memory_format is None:
        return _native_clone(self)
    _check("clone", memory_format)
    return _apply(_native_clone(self), memory_format)


def _contiguous(self, memory_format=None):
    if memory_format is None:
        return _native_contiguous(self)
    _check("contiguous", memory_format)
    if memory_format is preserve_format and not self.is_contiguous():
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    return _native_contiguous(self)


_clone.__doc__ = _native_clone.__doc__
_contiguous.__doc__ = _native_contiguous.__doc__
_clone.__name__, _contiguous.__name__ = "clone", "contiguous"
# what gradrs.clone / gradrs.contiguous (_forms.form) read to take the method's signature
_clone.__text_signature__ = "($self, /, *, memory_format=None)"  # type: ignore[attr-defined]
_contiguous.__text_signature__ = "($self, /, memory_format=None)"  # type: ignore[attr-defined]
_native.Tensor.clone = _clone
_native.Tensor.contiguous = _contiguous
