"""Tensor protocol methods PyTorch defines in Python (torch/_tensor.py) and gradrs therefore
defines in Python too: `__format__`."""

from ._native import Tensor


def _format(self, format_spec):
    # PyTorch: a 0-dim plain Tensor formats as its Python number; anything else (a tensor with
    # dims, a subclass such as Parameter) goes to object.__format__, so an empty spec gives
    # str(self) and any other spec raises TypeError "unsupported format string passed to
    # Tensor.__format__"
    if self.dim() == 0 and type(self) is Tensor:
        return self.detach().item().__format__(format_spec)
    return object.__format__(self, format_spec)


Tensor.__format__ = _format
