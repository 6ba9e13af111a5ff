"""Tensor protocol methods PyTorch defines in Python (torch/_tensor.py) and gradrs therefore
defines in Python too: `__format__`; and the `nbytes` / `itemsize` properties. PyTorch's Tensor
has no `__str__` of its own, so the native one is removed."""

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

# PyTorch's Tensor defines no __str__: str() and print() reach object.__str__, which calls
# type(self).__repr__, so a subclass's own __repr__ prints, and a __torch_function__ subclass
# sees `Tensor.__repr__` dispatched (the native __str__ printed the plain repr and dispatched
# as `__str__`). Removed before any subclass builds its dispatching wrappers.
del Tensor.__str__


def _repr(self, *, tensor_contents=None):
    # PyTorch's Tensor.__repr__ is Python's, with `tensor_contents`: a subclass (MaskedTensor,
    # a wrapper subclass) prints its own text in place of the elements, keeping the suffixes
    from . import _tensor_repr

    return _tensor_repr(self, tensor_contents)


_repr.__name__, _repr.__qualname__ = "__repr__", "Tensor.__repr__"
Tensor.__repr__ = _repr


def _nbytes(self):
    """The bytes of the tensor's elements (numel * element_size), not of its storage."""
    return self.numel() * self.element_size()


def _itemsize(self):
    """The bytes of one element (element_size())."""
    return self.element_size()


Tensor.nbytes = property(_nbytes)
Tensor.itemsize = property(_itemsize)
