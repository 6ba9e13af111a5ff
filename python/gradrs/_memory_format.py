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
