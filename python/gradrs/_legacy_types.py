"""PyTorch's legacy tensor types (`gradrs.FloatTensor` & co.): classes of the `tensortype`
metaclass, as PyTorch's, so that PyTorch 1.x code keeps working: `FloatTensor(2, 3)` /
`FloatTensor([1, 2])` / `FloatTensor(x.size())` construct (a `Size` gives the sizes, as
PyTorch's parser picks its `new(Size size)` overload), `isinstance(x, FloatTensor)` tests a CPU
tensor's dtype, and `x.type(DoubleTensor)` casts. The constructors return plain Tensors."""

from __future__ import annotations

from . import _native
from ._size import Size


class tensortype(type):
    """The metaclass of the legacy tensor types."""

    def __instancecheck__(cls, obj) -> bool:
        return (isinstance(obj, _native.Tensor) and obj.dtype == cls.dtype
                and obj.device.type == "cpu")

    def __repr__(cls) -> str:
        return f"<class 'gradrs.{cls.__name__}'>"


def legacy_type(name: str, dtype) -> tensortype:
    def __new__(cls, *args, **kwargs):
        if len(args) == 1 and isinstance(args[0], Size):
            if len(args[0]) == 0:
                return _native.empty((), dtype=dtype, **kwargs)
            return _native._legacy_new(dtype, *args[0], **kwargs)
        return _native._legacy_new(dtype, *args, **kwargs)

    doc = f"Legacy constructor for {str(dtype)[len('gradrs.'):]} tensors."
    return tensortype(name, (), {"__new__": __new__, "dtype": dtype, "is_cuda": False,
                                 "is_sparse": False, "__doc__": doc, "__module__": "gradrs"})


_native_type = _native.Tensor.type


def _type(self, dtype=None, non_blocking=False):
    if isinstance(dtype, tensortype):
        dtype = dtype.dtype
    return _native_type(self, dtype, non_blocking)


_type.__doc__ = _native_type.__doc__
_type.__name__ = "type"
_type.__text_signature__ = _native_type.__text_signature__  # type: ignore[attr-defined]
_native.Tensor.type = _type
