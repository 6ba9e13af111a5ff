"""Tensor protocol methods PyTorch defines in Python (torch/_tensor.py) and gradrs therefore
defines in Python too: `__format__`; and the `nbytes` / `itemsize` properties."""

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


def _nbytes(self):
    """The bytes of the tensor's elements (numel * element_size), not of its storage."""
    return self.numel() * self.element_size()


def _itemsize(self):
    """The bytes of one element (element_size())."""
    return self.element_size()


Tensor.nbytes = property(_nbytes)
Tensor.itemsize = property(_itemsize)
