"""``gradrs.memory_format`` and its objects: PyTorch's ``torch.preserve_format`` & co.

A memory format says how a ``*_like`` factory, ``clone`` or ``contiguous`` lays its result out
(Note [Memory formats] in ``src/tensor/layout.rs``; the native bindings read an object's
``_name``): ``preserve_format``, the default of ``clone`` and the ``*_like`` factories, keeps
the input's order of dims in memory (a transposed tensor's clone is transposed, as PyTorch's),
``contiguous_format`` (also named ``legacy_contiguous_format``, the same object, as in PyTorch)
is row-major, ``channels_last`` / ``channels_last_3d`` put dim 1 innermost for rank-4 / rank-5
tensors. PyTorch programs pass them explicitly (third-party optimizers copy
``torch.zeros_like(p, memory_format=torch.preserve_format)`` from PyTorch 1.x's Adam).
"""

from __future__ import annotations

import functools
import inspect

from . import _native


class memory_format:
    """A memory layout for new tensors: `gradrs.preserve_format`, `gradrs.contiguous_format`,
    `gradrs.channels_last` or `gradrs.channels_last_3d`.

    Examples:
        >>> gradrs.ones(2, 3).t().clone(memory_format=gradrs.contiguous_format).stride()
        (2, 1)
        >>> gradrs.zeros_like(gradrs.ones(2, 3).t()).stride()
        (1, 3)
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
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
legacy_contiguous_format = contiguous_format  # one object in PyTorch too


# ATen's compute_channels_last_contiguous_2d / _3d: dim 1 innermost, then the spatial dims from
# the last, then the batch; dims of size 1 take any stride. Only rank 4 (rank 5) can be.
_CHANNELS_LAST_ORDER = {"channels_last": (4, (1, 3, 2, 0)),
                        "channels_last_3d": (5, (1, 4, 3, 2, 0))}


def _is_contiguous_as(sizes, strides, fmt: memory_format) -> bool | None:
    """Whether sizes / strides are contiguous in a channels-last format; None for the other
    formats (row-major contiguity, the native answer)."""
    if fmt._name not in _CHANNELS_LAST_ORDER:
        return None
    rank, order = _CHANNELS_LAST_ORDER[fmt._name]
    if len(sizes) != rank:
        return False
    expected = 1
    for d in order:
        if sizes[d] != 1:
            if strides[d] != expected:
                return False
            expected *= sizes[d]
    return True


def _install_is_contiguous(tensor_class) -> None:
    """`Tensor.is_contiguous(memory_format=...)`, PyTorch's keyword-only form (the native
    method answers the row-major question only)."""
    native = tensor_class.is_contiguous

    def is_contiguous(self, *args, **kwargs):
        if args:
            raise TypeError(f"is_contiguous() takes 0 positional arguments but {len(args)} "
                            "was given" if len(args) == 1 else
                            f"is_contiguous() takes 0 positional arguments but {len(args)} "
                            "were given")
        if kwargs:
            (name, fmt), *rest = kwargs.items()
            if name != "memory_format" or rest:
                bad = name if name != "memory_format" else rest[0][0]
                raise TypeError(f"is_contiguous() got an unexpected keyword argument '{bad}'")
            if not isinstance(fmt, memory_format):
                raise TypeError("is_contiguous(): argument 'memory_format' must be "
                                f"gradrs.memory_format, not {type(fmt).__name__}")
            answer = _is_contiguous_as(self.shape, self.stride(), fmt)
            if answer is not None:
                return answer
        return native(self)

    is_contiguous.__doc__ = native.__doc__ or (
        "Whether the tensor is contiguous in memory in the given memory format (row-major "
        "by default).")
    is_contiguous.__name__ = "is_contiguous"
    is_contiguous.__qualname__ = "Tensor.is_contiguous"
    is_contiguous.__signature__ = inspect.Signature([
        inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD),
        inspect.Parameter("memory_format", inspect.Parameter.KEYWORD_ONLY,
                          default=contiguous_format)])
    tensor_class.is_contiguous = is_contiguous


def _strides_like_channels_last(sizes, strides, order) -> bool:
    """ATen's is_channels_last_strides_2d_s4 / _3d_s5: strides increasing in channels-last order
    (the heuristic behind suggest_memory_format; ambiguous size-1 cases fall back to NCHW)."""
    if strides[1] == 0:
        return False
    low = 0
    for d in order:
        if sizes[d] == 0 or strides[d] < low:
            return False
        if d == 0 and low == strides[1]:
            return False
        low = strides[d] * sizes[d] if sizes[d] > 1 else strides[d]
    return True


def _suggest_memory_format(t) -> memory_format:
    """ATen's Tensor.suggest_memory_format(): the channels-last format a dense tensor's strides
    follow, else contiguous_format."""
    sizes, strides = t.shape, t.stride()
    if len(sizes) == 4 and _strides_like_channels_last(sizes, strides, (1, 3, 2, 0)):
        return channels_last
    if len(sizes) == 5 and _strides_like_channels_last(sizes, strides, (1, 4, 3, 2, 0)):
        return channels_last_3d
    return contiguous_format


def _install_to(tensor_class) -> None:
    """`Tensor.to(..., memory_format=fmt)` lays the result out in fmt, as ATen's to / _to_copy:
    the tensor itself when nothing changes and its strides already suggest fmt, else a copy
    (the native method moves and casts; the layout is applied here)."""
    native = tensor_class.to

    def to(self, *args, **kwargs):
        fmt = kwargs.get("memory_format")
        if fmt is None or fmt is preserve_format or not isinstance(fmt, memory_format):
            return native(self, *args, **kwargs)  # the native parser takes / refuses the rest
        rest = {k: v for k, v in kwargs.items() if k != "memory_format"}
        out = native(self, *args, **rest)
        rank = _CHANNELS_LAST_ORDER.get(fmt._name, (None,))[0]
        if rank is not None and out.dim() != rank:
            raise RuntimeError(f"required rank {rank} tensor to use {fmt._name} format")
        if out is self:
            if _suggest_memory_format(self) is fmt:
                return self
            return self.clone(memory_format=fmt)
        if out.is_contiguous(memory_format=fmt):
            return out
        return out.contiguous(memory_format=fmt)

    to.__doc__ = native.__doc__
    to.__name__ = "to"
    to.__qualname__ = "Tensor.to"
    tensor_class.to = to


_install_is_contiguous(_native.Tensor)  # is_contiguous(memory_format=channels_last) & co.
_install_to(_native.Tensor)  # to(..., memory_format=channels_last)


def resize_as_(input, the_template, memory_format=None):
    """`gradrs.resize_as_(input, the_template, memory_format=None)`: `input.resize_as_(...)`,
    the memory format applied as the method applies it."""
    return _native.Tensor.resize_as_(input, the_template, memory_format=memory_format)


_memory_format_class = memory_format  # the class, shadowed by the keyword below


def _empty_in_format(native_empty):
    """`gradrs.empty(*size, memory_format=...)`: PyTorch's factory takes a memory format (the
    native one lays out row-major); channels_last sizes get their strides here."""

    @functools.wraps(native_empty)
    def empty(*args, memory_format=None, **kwargs):
        if memory_format is None or memory_format is contiguous_format:
            return native_empty(*args, **kwargs)
        if not isinstance(memory_format, _memory_format_class):
            raise TypeError("empty(): argument 'memory_format' must be gradrs.memory_format, "
                            f"not {type(memory_format).__name__}")
        if memory_format is preserve_format:
            raise RuntimeError("unsupported memory format Preserve")
        requires_grad = kwargs.pop("requires_grad", False)
        row_major = native_empty(*args, **kwargs)
        rank = _CHANNELS_LAST_ORDER[memory_format._name][0]
        if row_major.dim() != rank:
            raise RuntimeError(f"required rank {rank} tensor to use {memory_format._name} format")
        out = _native.empty_like(row_major, memory_format=memory_format)
        return out.requires_grad_() if requires_grad else out

    return empty

