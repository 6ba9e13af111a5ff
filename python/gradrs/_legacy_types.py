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
                and (obj.device.type != "cpu") == cls.is_cuda)

    def __repr__(cls) -> str:
        return f"<class '{cls.__module__}.{cls.__name__}'>"


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


def legacy_gpu_type(name: str, dtype) -> tensortype:
    """`gradrs.cuda.FloatTensor` & co.: constructors of GPU tensors (PyTorch's CPU build, and
    gradrs without a GPU adapter, refuse them with TypeError), isinstance checks of a GPU
    tensor's dtype, `x.type(cuda.FloatTensor)` casts and moves."""

    def __new__(cls, *args, **kwargs):
        from . import gpu

        if not gpu.is_available():
            raise TypeError(f"type gradrs.cuda.{name} not available. Torch not compiled with "
                            "CUDA enabled.")
        return legacy_types[name](*args, **kwargs).to("cuda")

    doc = f"Legacy constructor for {str(dtype)[len('gradrs.'):]} GPU tensors."
    return tensortype(name, (), {"__new__": __new__, "dtype": dtype, "is_cuda": True,
                                 "is_sparse": False, "__doc__": doc,
                                 "__module__": "gradrs.cuda"})


# name -> the CPU legacy type, filled in by gradrs/__init__.py as it makes them
legacy_types: dict[str, tensortype] = {}


def _legacy_type_named(name: str):
    """The legacy type a dotted name such as 'torch.cuda.FloatTensor' names (imported as
    PyTorch's _import_dotted_name does: the first component is imported)."""
    components = name.split(".")
    obj = __import__(components[0])
    for component in components[1:]:
        obj = getattr(obj, component)
    return obj


_warned_default_type = False


def set_default_tensor_type(t) -> None:
    """Sets the default floating point dtype (and, for a `cuda` type, the default device) from
    a legacy tensor type or its dotted name, e.g. `gradrs.DoubleTensor` (deprecated in
    PyTorch 2.1 for `set_default_dtype` / `set_default_device`; it warns once).

    Examples:
        >>> gradrs.set_default_tensor_type(gradrs.DoubleTensor)
        >>> gradrs.tensor([1.5]).dtype
        gradrs.float64
        >>> gradrs.set_default_tensor_type(gradrs.FloatTensor)
    """
    global _warned_default_type
    if not _warned_default_type:
        _warned_default_type = True
        import warnings

        warnings.warn("gradrs.set_default_tensor_type() is deprecated as of PyTorch 2.1, please "
                      "use gradrs.set_default_dtype() and gradrs.set_default_device() as "
                      "alternatives.", UserWarning, stacklevel=2)
    if isinstance(t, str):
        t = _legacy_type_named(t)
    if not isinstance(t, tensortype):
        raise TypeError("invalid type object: only floating-point types are supported as the "
                        "default type")
    if not t.dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    if t.is_cuda:
        from . import gpu

        if not gpu.is_available():
            raise TypeError(f"type gradrs.cuda.{t.__name__} not available. Torch not compiled "
                            "with CUDA enabled.")
    from ._runtime import set_default_device

    _native._set_default_dtype(t.dtype)
    if t.is_cuda:
        set_default_device("cuda")


_native_type = _native.Tensor.type


def _type(self, dtype=None, non_blocking=False):
    if isinstance(dtype, tensortype):
        if dtype.is_cuda != (self.device.type != "cpu"):
            return self.to("cuda" if dtype.is_cuda else "cpu", dtype.dtype, non_blocking)
        dtype = dtype.dtype
    return _native_type(self, dtype, non_blocking)


_type.__doc__ = _native_type.__doc__
_type.__name__ = "type"
_type.__text_signature__ = _native_type.__text_signature__  # type: ignore[attr-defined]
_native.Tensor.type = _type
