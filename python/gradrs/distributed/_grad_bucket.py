"""`GradBucket` and `BuiltinCommHookType` (`torch.distributed`'s, from ATen's reducer): what a
DistributedDataParallel communication hook receives (`DistributedDataParallel.register_comm_hook`)."""

from __future__ import annotations

import enum

__all__ = ["BuiltinCommHookType", "GradBucket"]


class BuiltinCommHookType(enum.Enum):
    """The communication hooks `DistributedDataParallel._register_builtin_comm_hook` takes:
    ``ALLREDUCE`` (``default_hooks.allreduce_hook``) and ``FP16_COMPRESS``
    (``default_hooks.fp16_compress_hook``)."""

    ALLREDUCE = 1
    FP16_COMPRESS = 2


class GradBucket:
    """One bucket of gradients of DistributedDataParallel, handed to a communication hook
    once every gradient in it is ready: ``buffer()`` is the flat tensor holding them (not yet
    divided by the world size), ``gradients()`` its views shaped as each parameter, and the
    future the hook returns holds the bucket's new flat value."""

    __slots__ = ("_buffer", "_gradients", "_index", "_is_last", "_parameters")

    def __new__(cls, *args, **kwargs):
        raise TypeError("gradrs.distributed.GradBucket: No constructor defined!")

    @classmethod
    def _make(cls, index, is_last, buffer, gradients, parameters):
        self = object.__new__(cls)
        self._index, self._is_last, self._buffer = index, is_last, buffer
        self._gradients, self._parameters = gradients, parameters
        return self

    def index(self) -> int:
        """The bucket's index: 0 holds the gradients of the last layers, ready first in backward."""
        return self._index

    def buffer(self):
        """The flat 1-D tensor of the bucket's gradients (the bucket itself: writes to it in place
        change what is reduced)."""
        return self._buffer

    def gradients(self):
        """The bucket's gradients, one view of ``buffer()`` per parameter, shaped as it."""
        return list(self._gradients)

    def parameters(self):
        """The parameters whose gradients the bucket holds, in the order of ``gradients()``."""
        return list(self._parameters)

    def is_last(self) -> bool:
        """Whether this is the last bucket reduced in the iteration (the one of the first
        layers)."""
        return self._is_last

    def set_buffer(self, buffer) -> None:
        """Replace the tensor ``buffer()`` returns (``fp16_compress_wrapper`` sets a float16
        copy)."""
        self._buffer = buffer
