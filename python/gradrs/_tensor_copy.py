"""``Tensor.copy_(src, non_blocking=False)``: PyTorch's signature, with the flag data-prefetching
loops pass (``self.next_input.copy_(inp, non_blocking=True)``). There is no asynchronous copy
here, so the flag is checked (a bool, as PyTorch's parser wants) and the native copy runs."""

from __future__ import annotations

import functools

from . import _native

_native_copy_ = _native.Tensor.copy_


def _check_flag(value, position: bool) -> None:
    if not isinstance(value, bool):
        where = " (position 2)" if position else ""
        raise TypeError(f"copy_(): argument 'non_blocking'{where} must be bool, not "
                        f"{type(value).__name__}")


@functools.wraps(_native_copy_)
def copy_(self, *args, **kwargs):
    if len(args) == 1 and not kwargs:
        return _native_copy_(self, args[0])
    if len(args) == 2:
        _check_flag(args[1], True)
        args = args[:1]
    if "non_blocking" in kwargs:
        kwargs = dict(kwargs)
        _check_flag(kwargs.pop("non_blocking"), False)
    return _native_copy_(self, *args, **kwargs)


_native.Tensor.copy_ = copy_
