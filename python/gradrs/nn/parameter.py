"""`Parameter` and `Buffer`: the tensor kinds a `Module` registers when they are assigned to it;
their uninitialized forms (`UninitializedParameter`, `UninitializedBuffer`) for lazy modules."""

from collections import OrderedDict

from .. import _native
from .._torch_function import DisableTorchFunction, _disabled_torch_function_impl

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer", "is_lazy"]


class _ParameterMeta(type):
    # As PyTorch: a tensor flagged `_is_param` counts as a Parameter (Parameter() of a tensor
    # subclass keeps the subclass and sets the flag instead).
    def __instancecheck__(cls, instance):
        if cls is Parameter and isinstance(instance, _native.Tensor) and getattr(
                instance, "_is_param", False):
            return True
        return super().__instancecheck__(instance)


class Parameter(_native.Tensor, metaclass=_ParameterMeta):
    r"""A kind of Tensor that is to be considered a module parameter.

    Parameters are :class:`~gradrs.Tensor` subclasses that are added to a module's parameters
    when assigned as its attributes. The Parameter shares ``data``'s storage and is a leaf.

    Args:
        data (Tensor): parameter tensor (default: an empty tensor).
        requires_grad (bool, optional): if the parameter requires gradient; ``no_grad`` does not
            change this default. Default: ``True``

    Examples:
        >>> p = gradrs.nn.Parameter(gradrs.zeros(2))
        >>> p
        Parameter containing:
        tensor([0., 0.], requires_grad=True)
        >>> p.requires_grad, isinstance(p, gradrs.Tensor)
        (True, True)
    """

    # Not dispatched to: a Parameter is a plain tensor to __torch_function__ (its ops return
    # Tensors), as PyTorch's.
    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _native.empty(0)
        if not isinstance(data, _native.Tensor):
            # PyTorch takes anything else for a custom tensor and detaches it, which fails
            # with this AttributeError for lists and numbers.
            data.detach()
        if requires_grad and not data.is_floating_point():
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients")
        # Tensor.__new__(cls, t) makes a `cls` object aliasing t's storage, a leaf without
        # history: PyTorch's Tensor._make_subclass.
        # Not dispatched to a subclass's __torch_function__ (as _make_subclass is not).
        t = _native.Tensor.__new__(cls, data)
        with DisableTorchFunction():
            t.requires_grad_(requires_grad)
        return t

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    # The native Tensor defines its own __str__ and __format__ (print and f-strings), which
    # would skip the header. PyTorch's Tensor.__str__ defers to __repr__, and its __format__
    # formats only an exact 0-dim Tensor as a number: a subclass goes through object's.
    __str__ = __repr__
    __format__ = object.__format__

    def __reduce_ex__(self, proto):
        # Pickles as a rebuild from the plain tensor (whose pickling the Tensor owns) plus
        # requires_grad and any Python attributes, as PyTorch's torch._utils._rebuild_parameter.
        state = dict(self.__dict__)
        hooks = OrderedDict()  # PyTorch never serializes hooks; it pickles an empty dict
        if not state:
            return (_rebuild_parameter, (self.data, self.requires_grad, hooks))
        return (_rebuild_parameter_with_state, (self.data, self.requires_grad, hooks, state))


def _rebuild_parameter(data, requires_grad, backward_hooks):
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    param = Parameter(data, requires_grad)
    param.__dict__.update(state)
    return param


class _BufferMeta(type):
    # `Buffer(t)` returns a plain Tensor flagged `_is_buffer`, as in PyTorch: isinstance
    # recognises it by the flag.
    def __instancecheck__(cls, instance):
        if cls is Buffer and isinstance(instance, _native.Tensor) and getattr(
                instance, "_is_buffer", False):
            return True
        return super().__instancecheck__(instance)


class Buffer(_native.Tensor, metaclass=_BufferMeta):
    r"""A kind of Tensor that is part of a module's state but is not a parameter (BatchNorm's
    ``running_mean``). Assigned as a module attribute it is registered as a buffer.

    Args:
        data (Tensor): buffer tensor (default: an empty tensor).
        persistent (bool, optional): whether the buffer is part of the module's
            :attr:`state_dict`. Default: ``True``
    """

    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _native.empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


class UninitializedTensorMixin:
    """What the uninitialized parameter and buffer share: no shape until ``materialize``.

    PyTorch also refuses every other op on them through ``__torch_function__``; here their
    ``__torch_function__`` is disabled (they stay out of dispatch), so an op given one sees an
    empty tensor and fails with that op's own error.
    """

    __torch_function__ = _disabled_torch_function_impl

    def materialize(self, shape, device=None, dtype=None):
        r"""Give the tensor ``shape`` (uninitialized memory, on the current or the given
        ``device`` and ``dtype``) and turn it into the class it stands for."""
        if device is None:
            device = self.data.device
        if dtype is None:
            dtype = self.data.dtype
        self.data = _native.empty(shape, device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. "
            "This error usually happens in `load_state_dict` when trying to load "
            "an uninitialized parameter into an initialized one. "
            "Call `forward` to initialize the parameters before accessing their attributes.")

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. "
            "Call `forward` to initialize the parameters before calling "
            "`module.share_memory()`.")

    def __repr__(self):
        return f"<{self.__class__.__name__}>"

    __str__ = __repr__
    __format__ = object.__format__

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))


def is_lazy(param):
    """Whether ``param`` is an ``UninitializedParameter`` or ``UninitializedBuffer``."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    r"""A parameter whose shape is not known yet (a lazy module's, until its first forward).

    Only its dtype and device can be changed, and ``materialize`` turns it into a
    :class:`Parameter`. ``device``/``dtype`` set what it materializes as.
    """

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        data = _native.empty(0, device=device, dtype=dtype)
        t = _native.Tensor.__new__(cls, data)
        t.requires_grad_(requires_grad)
        return t

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.requires_grad, self.data.device, self.data.dtype)
        memo[id(self)] = result
        return result


class UninitializedBuffer(UninitializedTensorMixin, _native.Tensor):
    r"""A buffer whose shape is not known yet (a lazy module's, until its first forward).

    Only its dtype and device can be changed, and ``materialize`` turns it into a plain
    :class:`~gradrs.Tensor`. ``device``/``dtype`` set what it materializes as.
    """

    cls_to_become = _native.Tensor

    def __deepcopy__(self, memo):
        # PyTorch's Tensor.__deepcopy__ reaches its __torch_function__, which refuses it.
        raise ValueError(
            f"Attempted to use an uninitialized parameter in {_native.Tensor.__deepcopy__}. "
            "This error happens when you are using a `LazyModule` or explicitly manipulating "
            f"`gradrs.nn.parameter.{type(self).__name__}` objects. When using LazyModules Call "
            "`forward` with a dummy batch to initialize the parameters before calling gradrs "
            "functions")

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        data = _native.empty(0, device=device, dtype=dtype)
        t = _native.Tensor.__new__(cls, data)
        t.requires_grad_(requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t
