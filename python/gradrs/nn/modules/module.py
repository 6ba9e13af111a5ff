"""`Module`, the base class of every layer: registration of parameters, buffers and submodules,
state_dict save/load, device/dtype conversion, train/eval, hooks and the nested repr."""

from __future__ import annotations

import functools
import itertools
import warnings
import weakref
from collections import OrderedDict, namedtuple
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from ... import _native
from ..._grad_mode import no_grad
from ..._memory_format import memory_format as _memory_format
from ...utils.hooks import BackwardHook, RemovableHandle
from ..parameter import Buffer, Parameter, is_lazy

if TYPE_CHECKING:  # annotations only: no runtime dependency
    from typing_extensions import Self

__all__ = [
    "Module",
    "register_module_forward_pre_hook",
    "register_module_forward_hook",
    "register_module_full_backward_pre_hook",
    "register_module_backward_hook",
    "register_module_full_backward_hook",
    "register_module_buffer_registration_hook",
    "register_module_module_registration_hook",
    "register_module_parameter_registration_hook",
]

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


# PyTorch's own base (a collections.namedtuple called IncompatibleKeys), kept for pickles.
class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):  # noqa: PYI024
    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _typename(obj):
    """PyTorch's `torch.typename`: a tensor's type string, else the object's qualified name."""
    if isinstance(obj, _native.Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    if module in ("", "builtins"):
        return qualname
    return f"{module}.{qualname}"


def _addindent(s_, num_spaces):
    s = s_.split("\n")
    if len(s) == 1:  # single-line: nothing to indent
        return s_
    first = s.pop(0)
    # blank lines stay empty
    s = [(num_spaces * " ") + line if line.strip() else "" for line in s]
    return first + "\n" + "\n".join(s)


# Hooks common to all modules, run right before registering a buffer, module or parameter.
_global_buffer_registration_hooks = OrderedDict()
_global_module_registration_hooks = OrderedDict()
_global_parameter_registration_hooks = OrderedDict()


class _WrappedHook:
    """A hook that gets its module (held weakly) as first argument."""

    def __init__(self, hook, module=None):
        self.hook = hook
        functools.update_wrapper(self, hook)
        self.with_module = False
        if module is not None:
            self.module = weakref.ref(module)
            self.with_module = True

    def __call__(self, *args, **kwargs):
        if self.with_module:
            module = self.module()
            if module is None:
                raise RuntimeError("You are trying to call the hook of a dead Module!")
            return self.hook(module, *args, **kwargs)
        return self.hook(*args, **kwargs)

    def __getstate__(self):
        result = {"hook": self.hook, "with_module": self.with_module}
        if self.with_module:
            result["module"] = self.module()
        return result

    def __setstate__(self, state):
        self.hook = state["hook"]
        self.with_module = state["with_module"]
        if self.with_module:
            if state["module"] is None:
                raise RuntimeError("You are trying to revive the hook of a dead Module!")
            self.module = weakref.ref(state["module"])


# Hooks common to all modules, run before/after forward and backward (debugging, profiling).
_global_backward_pre_hooks = OrderedDict()
_global_backward_hooks = OrderedDict()
_global_is_full_backward_hook = None
_global_forward_pre_hooks = OrderedDict()
_global_forward_hooks = OrderedDict()
_global_forward_hooks_always_called = OrderedDict()
_global_forward_hooks_with_kwargs = OrderedDict()


def register_module_buffer_registration_hook(hook):
    r"""Register a buffer registration hook common to all modules:
    ``hook(module, name, buffer) -> None or new buffer``."""
    handle = RemovableHandle(_global_buffer_registration_hooks)
    _global_buffer_registration_hooks[handle.id] = hook
    return handle


def register_module_module_registration_hook(hook):
    r"""Register a module registration hook common to all modules:
    ``hook(module, name, submodule) -> None or new submodule``."""
    handle = RemovableHandle(_global_module_registration_hooks)
    _global_module_registration_hooks[handle.id] = hook
    return handle


def register_module_parameter_registration_hook(hook):
    r"""Register a parameter registration hook common to all modules:
    ``hook(module, name, param) -> None or new parameter``."""
    handle = RemovableHandle(_global_parameter_registration_hooks)
    _global_parameter_registration_hooks[handle.id] = hook
    return handle


def register_module_forward_pre_hook(hook):
    r"""Register a forward pre-hook common to all modules: ``hook(module, input)``; it runs
    before the modules' own forward pre-hooks."""
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    return handle


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    r"""Register a forward hook common to all modules: ``hook(module, input, output)``; it
    runs before the modules' own forward hooks."""
    handle = RemovableHandle(_global_forward_hooks,
                             extra_dict=_global_forward_hooks_always_called)
    _global_forward_hooks[handle.id] = hook
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_full_backward_pre_hook(hook):
    r"""Register a backward pre-hook common to all modules: ``hook(module, grad_output)``."""
    handle = RemovableHandle(_global_backward_pre_hooks)
    _global_backward_pre_hooks[handle.id] = hook
    return handle


def register_module_backward_hook(hook):
    r"""Register a (deprecated, non-full) backward hook common to all modules: like
    :meth:`Module.register_backward_hook` for every module."""
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is True:
        raise RuntimeError(
            "Cannot use both regular backward hooks and full backward hooks as a "
            "global Module hook. Please use only one of them.")
    _global_is_full_backward_hook = False
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


def register_module_full_backward_hook(hook):
    r"""Register a full backward hook common to all modules:
    ``hook(module, grad_input, grad_output)``."""
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is False:
        raise RuntimeError(
            "Cannot use both regular backward hooks and full backward hooks as a "
            "global Module hook. Please use only one of them.")
    _global_is_full_backward_hook = True
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


def _forward_unimplemented(self, *input):
    r"""Define the computation performed at every call. Should be overridden by all subclasses;
    call the Module instance rather than this, so that registered hooks run."""
    raise NotImplementedError(
        f'Module [{type(self).__name__}] is missing the required "forward" function')


_TO_SIGNATURES = (
    "(gradrs.device device = None, gradrs.dtype dtype = None, bool non_blocking = False, "
    "bool copy = False, *, gradrs.memory_format memory_format = None)",
    "(gradrs.dtype dtype, bool non_blocking = False, bool copy = False, *, "
    "gradrs.memory_format memory_format = None)",
    "(Tensor tensor, bool non_blocking = False, bool copy = False, *, "
    "gradrs.memory_format memory_format = None)",
)


def _is_device(o):
    return o is None or isinstance(o, (_native.device, str)) or (
        isinstance(o, int) and not isinstance(o, bool))


# (name, accepts, has a default) per parameter; memory_format is keyword-only (None or a
# gradrs.memory_format).
_TO_PARAMS = (
    (("device", _is_device, True),
     ("dtype", lambda o: o is None or isinstance(o, _native.dtype), True)),
    (("dtype", lambda o: isinstance(o, _native.dtype), False),),
    (("tensor", lambda o: isinstance(o, _native.Tensor), False),),
)
_TO_TAIL = (("non_blocking", lambda o: isinstance(o, bool), True),
            ("copy", lambda o: isinstance(o, bool), True))


def _to_type_name(o):
    if isinstance(o, _native.Tensor):
        return "Tensor"
    if isinstance(o, (_native.dtype, _native.device)):
        return "gradrs." + type(o).__name__
    return type(o).__name__ if type(o).__module__ == "builtins" else (
        f"{type(o).__module__}.{type(o).__name__}")


def _match_to(params, args, kwargs):
    """The values of one of Module.to's signatures for these arguments, or None."""
    params = params + _TO_TAIL
    if len(args) > len(params):
        return None
    values, rest = {}, dict(kwargs)
    for i, (name, accepts, optional) in enumerate(params):
        if i < len(args):
            if name in rest:
                return None
            value = args[i]
        elif name in rest:
            value = rest.pop(name)
        elif optional:
            continue
        else:
            return None
        if not accepts(value):
            return None
        values[name] = value
    if "memory_format" in rest:
        fmt = rest.pop("memory_format")
        if fmt is not None and not isinstance(fmt, _memory_format):
            return None
        values["memory_format"] = fmt
    if rest:
        return None
    return values


def _parse_to(*args, **kwargs):
    """(device, dtype, non_blocking, memory_format) from the arguments of `Module.to`, read
    against the three signatures of PyTorch's `torch._C._nn._parse_to`, with its errors."""
    for params in _TO_PARAMS:
        values = _match_to(params, args, kwargs)
        if values is not None:
            break
    else:
        got = ", ".join(_to_type_name(a) for a in args)
        # PyTorch lists keywords in the reverse of the order given (an unordered_map), and
        # with no positional argument each keyword is followed by ", ".
        kws = [f"{k}={_to_type_name(v)}" for k, v in reversed(list(kwargs.items()))]
        if args:
            got += "".join(", " + kw for kw in kws)
        else:
            got = "".join(kw + ", " for kw in kws)
        listing = "".join(f" * {sig}\n" for sig in _TO_SIGNATURES)
        raise TypeError("to() received an invalid combination of arguments - got "
                        f"({got}), but expected one of:\n{listing}")
    if "copy" in values:  # given at all, even False
        raise RuntimeError(".to() does not accept copy argument")
    device = values.get("device")
    dtype = values.get("dtype")
    if "tensor" in values:
        device, dtype = values["tensor"].device, values["tensor"].dtype
    if isinstance(device, int):
        device = _native.device(f"cuda:{device}")  # an index of the accelerator, as PyTorch
    elif isinstance(device, str):
        device = _native.device(device)
    return device, dtype, values.get("non_blocking", False), values.get("memory_format")



class Module:
    r"""Base class for all neural network modules.

    Your models should also subclass this class. Modules can contain other Modules, assigned
    as regular attributes, which are registered so that ``to()``, ``parameters()`` and the
    rest see them; ``super().__init__()`` must be called before assigning children.

    :ivar training: Boolean represents whether this module is in training or evaluation mode.

    Examples:
        >>> class MLP(gradrs.nn.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.fc1 = gradrs.nn.Linear(4, 8)
        ...         self.fc2 = gradrs.nn.Linear(8, 2)
        ...
        ...     def forward(self, x):
        ...         return self.fc2(self.fc1(x).relu())
        ...
        >>> model = MLP()
        >>> model
        MLP(
          (fc1): Linear(in_features=4, out_features=8, bias=True)
          (fc2): Linear(in_features=8, out_features=2, bias=True)
        )
        >>> model(gradrs.randn(3, 4)).shape
        gradrs.Size([3, 2])
        >>> [name for name, _ in model.named_parameters()]
        ['fc1.weight', 'fc1.bias', 'fc2.weight', 'fc2.bias']
    """

    dump_patches = False
    # Saved in state_dict()'s `_metadata` so `_load_from_state_dict` can convert old layouts.
    _version = 1
    call_super_init = False

    def __init__(self, *args, **kwargs):
        if self.call_super_init is False and bool(kwargs):
            raise TypeError(
                f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                f"'{next(iter(kwargs))}'")
        if self.call_super_init is False and bool(args):
            raise TypeError(
                f"{type(self).__name__}.__init__() takes 1 positional argument but "
                f"{len(args) + 1} were given")
        # object.__setattr__ skips Module.__setattr__'s registration logic.
        setattr_ = super().__setattr__
        setattr_("training", True)
        setattr_("_parameters", {})
        setattr_("_buffers", {})
        setattr_("_non_persistent_buffers_set", set())
        setattr_("_backward_pre_hooks", OrderedDict())
        setattr_("_backward_hooks", OrderedDict())
        setattr_("_is_full_backward_hook", None)
        setattr_("_forward_hooks", OrderedDict())
        setattr_("_forward_hooks_with_kwargs", OrderedDict())
        setattr_("_forward_hooks_always_called", OrderedDict())
        setattr_("_forward_pre_hooks", OrderedDict())
        setattr_("_forward_pre_hooks_with_kwargs", OrderedDict())
        setattr_("_state_dict_hooks", OrderedDict())
        setattr_("_state_dict_pre_hooks", OrderedDict())
        setattr_("_load_state_dict_pre_hooks", OrderedDict())
        setattr_("_load_state_dict_post_hooks", OrderedDict())
        setattr_("_modules", {})
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    forward = _forward_unimplemented

    # ---- registration ---------------------------------------------------------------------

    def register_buffer(self, name: str, tensor: _native.Tensor | None,
                        persistent: bool = True) -> None:
        r"""Add a buffer to the module: state that is not a parameter (BatchNorm's
        ``running_mean``). Persistent buffers are part of :attr:`state_dict`; ``None`` buffers
        are skipped by conversions and by the state_dict."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        elif not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {_typename(name)}")
        elif "." in name:
            raise KeyError('buffer name can\'t contain "."')
        elif name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        elif hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        elif tensor is not None and not isinstance(tensor, _native.Tensor):
            raise TypeError(
                f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                "(gradrs Tensor or None required)")
        else:
            for hook in _global_buffer_registration_hooks.values():
                output = hook(self, name, tensor)
                if output is not None:
                    tensor = output
            self._buffers[name] = tensor
            if persistent:
                self._non_persistent_buffers_set.discard(name)
            else:
                self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        r"""Add a parameter to the module, reachable as an attribute of that name; ``None``
        parameters are skipped by conversions and by the state_dict."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        elif not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {_typename(name)}")
        elif "." in name:
            raise KeyError('parameter name can\'t contain "."')
        elif name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        elif hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
        elif not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                "(gradrs.nn.Parameter or None required)")
        elif param.grad_fn:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model "
                f"parameters must be created explicitly. To express '{name}' "
                "as a function of another Tensor, compute the value in "
                "the forward() method.")
        else:
            for hook in _global_parameter_registration_hooks.values():
                output = hook(self, name, param)
                if output is not None:
                    param = output
            self._parameters[name] = param

    def add_module(self, name, module):
        r"""Add a child module, reachable as an attribute of that name."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        elif not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        elif hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        elif "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        elif name == "":
            raise KeyError('module name can\'t be empty string ""')
        for hook in _global_module_registration_hooks.values():
            output = hook(self, name, module)
            if output is not None:
                module = output
        self._modules[name] = module

    def register_module(self, name, module):
        r"""Alias for :func:`add_module`."""
        self.add_module(name, module)

    def get_submodule(self, target):
        """The submodule at the dotted path ``target`` (``"net_b.linear"``); ``""`` is self."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def set_submodule(self, target, module, strict=False):
        """Set the submodule at the dotted path ``target``; with ``strict`` it must exist."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        if not isinstance(module, Module):
            raise ValueError("`" + "module" + f"` is not an nn.Module, found {type(module)}")
        if len(atoms) == 1:
            parent = self
        else:
            parent = self.get_submodule(".".join(atoms[:-1]))
        if strict and not hasattr(parent, atoms[-1]):
            raise AttributeError(parent._get_name() + " has no attribute `" + atoms[-1] + "`")
        if hasattr(parent, atoms[-1]):
            mod = getattr(parent, atoms[-1])
            if not isinstance(mod, Module):
                raise AttributeError("`" + atoms[-1] + "` is not an nn.Module")
        setattr(parent, atoms[-1], module)

    def get_parameter(self, target):
        """The parameter at the dotted path ``target``."""
        module_path, _, param_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, param_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + param_name + "`")
        param = getattr(mod, param_name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + param_name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        """The buffer at the dotted path ``target``."""
        module_path, _, buffer_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, buffer_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + buffer_name + "`")
        buffer = getattr(mod, buffer_name)
        if buffer_name not in mod._buffers:
            raise AttributeError("`" + buffer_name + "` is not a buffer")
        return buffer

    def get_extra_state(self):
        """Extra (picklable) state for the state_dict: override with :func:`set_extra_state`."""
        raise RuntimeError(
            "Reached a code path in Module.get_extra_state() that should never be called. "
            "Please file an issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml "
            "to report this bug.")

    def set_extra_state(self, state):
        """Set the extra state found in a loaded state_dict: override with
        :func:`get_extra_state`."""
        raise RuntimeError(
            "Reached a code path in Module.set_extra_state() that should never be called. "
            "Please file an issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml "
            "to report this bug.")

    # ---- conversions ----------------------------------------------------------------------

    def _apply(self, fn, recurse=True):
        if recurse:
            for module in self.children():
                module._apply(fn)

        for param in self._parameters.values():
            if param is None:
                continue
            # Tracking history here would make the parameter a non-leaf.
            with no_grad():
                param_applied = fn(param)
            param_grad = param.grad
            # PyTorch keeps the same Parameter object and swaps its data (`param.data = ...`),
            # so optimizers built before `.to()` keep working.
            param.data = param_applied
            if param_grad is not None:
                with no_grad():
                    grad_applied = fn(param_grad)
                param.grad.data = grad_applied

        for key, buf in self._buffers.items():
            if buf is not None:
                if is_lazy(buf):
                    # PyTorch's op on an UninitializedBuffer returns one (its
                    # __torch_function__); here the buffer keeps its kind and takes the data.
                    buf.data = fn(buf)
                else:
                    self._buffers[key] = fn(buf)
        return self

    def apply(self, fn):
        r"""Apply ``fn`` to every submodule (as ``.children()`` yields them, recursively) and
        then to self. Returns self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def cuda(self, device: int | _native.device | None = None) -> Self:
        r"""Move all parameters and buffers to the GPU. Returns self."""
        return self._apply(lambda t: t.cuda(device))

    def share_memory(self) -> Self:
        r"""Move the parameters and buffers (and their gradients) to shared memory
        (:meth:`Tensor.share_memory_`), so processes forked afterwards train the same values
        (Hogwild). Returns self."""
        return self._apply(lambda t: t.share_memory_())

    def cpu(self) -> Self:
        r"""Move all parameters and buffers to the CPU. Returns self."""
        return self._apply(lambda t: t.cpu())

    def type(self, dst_type):
        r"""Cast all parameters and buffers to ``dst_type``. Returns self."""
        return self._apply(lambda t: t.type(dst_type))

    def float(self) -> Self:
        r"""Cast all floating point parameters and buffers to ``float``. Returns self."""
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self) -> Self:
        r"""Cast all floating point parameters and buffers to ``double``. Returns self."""
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        r"""Cast all floating point parameters and buffers to ``half``. Returns self."""
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self) -> Self:
        r"""Cast all floating point parameters and buffers to ``bfloat16``. Returns self."""
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def to_empty(self, *, device, recurse=True):
        r"""Move the parameters and buffers to ``device`` without copying their values
        (uninitialized storage of the same shapes and dtypes). Returns self."""
        return self._apply(lambda t: _native.empty_like(t, device=device), recurse=recurse)

    def to(self, *args: Any, **kwargs: Any) -> Self:
        r"""Move and/or cast the parameters and buffers: ``to(device=None, dtype=None,
        non_blocking=False)``, ``to(dtype, non_blocking=False)``, ``to(tensor,
        non_blocking=False)``. Only floating point tensors take the dtype. Returns self."""
        device, dtype, non_blocking, convert_to_format = _parse_to(*args, **kwargs)
        if dtype is not None:
            if not (dtype.is_floating_point or dtype.is_complex):
                raise TypeError(
                    "nn.Module.to only accepts floating point or complex "
                    f"dtypes, but got desired dtype={dtype}")

        def convert(t):
            wanted = dtype if t.is_floating_point() or t.dtype.is_complex else None
            if convert_to_format is not None and t.dim() in (4, 5):
                return t.to(device, wanted, non_blocking, memory_format=convert_to_format)
            return t.to(device, wanted, non_blocking)

        return self._apply(convert)

    # ---- hooks ----------------------------------------------------------------------------

    def register_full_backward_pre_hook(self, hook, prepend=False):
        r"""Register a backward pre-hook, ``hook(module, grad_output) -> tuple(Tensor) or
        None``, called when the gradients with respect to the module's outputs are computed;
        it may return a replacement grad_output. Returns a ``RemovableHandle``."""
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_backward_hook(self, hook):
        r"""Register a backward hook (deprecated in favour of
        :meth:`register_full_backward_hook`): ``hook(module, grad_input, grad_output)`` runs
        as a hook of the autograd node that made the module's (first) output, with that
        node's gradients. Returns a ``RemovableHandle``."""
        if self._is_full_backward_hook is True:
            raise RuntimeError(
                "Cannot use both regular backward hooks and full backward hooks on a "
                "single Module. Please use only one of them.")
        self._is_full_backward_hook = False
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    def register_full_backward_hook(self, hook, prepend=False):
        r"""Register a backward hook, ``hook(module, grad_input, grad_output) ->
        tuple(Tensor) or None``, called when the gradients with respect to the module's
        (positional tensor) inputs are computed; it may return a replacement grad_input.
        Returns a ``RemovableHandle``."""
        if self._is_full_backward_hook is False:
            raise RuntimeError(
                "Cannot use both regular backward hooks and full backward hooks on a "
                "single Module. Please use only one of them.")
        self._is_full_backward_hook = True
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def _get_backward_hooks(self):
        full_backward_hooks = []
        if _global_is_full_backward_hook is True:
            full_backward_hooks += _global_backward_hooks.values()
        if self._is_full_backward_hook is True:
            full_backward_hooks += self._backward_hooks.values()
        non_full_backward_hooks = []
        if _global_is_full_backward_hook is False:
            non_full_backward_hooks += _global_backward_hooks.values()
        if self._is_full_backward_hook is False:
            non_full_backward_hooks += self._backward_hooks.values()
        return full_backward_hooks, non_full_backward_hooks

    def _maybe_warn_non_full_backward_hook(self, inputs, result, grad_fn):
        """PyTorch's FutureWarnings for the cases where a non-full hook misses gradients."""
        if not isinstance(result, _native.Tensor):
            if not (isinstance(result, tuple)
                    and all(isinstance(r, _native.Tensor) for r in result)):
                warnings.warn(
                    "Using non-full backward hooks on a Module that does not return a "
                    "single Tensor or a tuple of Tensors is deprecated and will be removed "
                    "in future versions. This hook will be missing some of the grad_output. "
                    "Please use register_full_backward_hook to get the documented behavior.",
                    FutureWarning, stacklevel=2)
                return
        else:
            result = (result,)
        if not isinstance(inputs, _native.Tensor):
            if not (isinstance(inputs, tuple)
                    and all(isinstance(i, _native.Tensor) for i in inputs)):
                warnings.warn(
                    "Using non-full backward hooks on a Module that does not take as input a "
                    "single Tensor or a tuple of Tensors is deprecated and will be removed "
                    "in future versions. This hook will be missing some of the grad_input. "
                    "Please use register_full_backward_hook to get the documented behavior.",
                    FutureWarning, stacklevel=2)
                return
        else:
            inputs = (inputs,)
        # At this point we are sure that inputs and result are tuple of Tensors
        out_grad_fn = {r.grad_fn for r in result if r.grad_fn is not None}
        if len(out_grad_fn) == 0 or (len(out_grad_fn) == 1 and grad_fn not in out_grad_fn):
            warnings.warn(
                "Using a non-full backward hook when outputs are nested in python data structure "
                "is deprecated and will be removed in future versions. This hook will be missing "
                "some grad_output.", FutureWarning, stacklevel=2)
        elif len(out_grad_fn) > 1:
            warnings.warn(
                "Using a non-full backward hook when outputs are generated by different autograd "
                "Nodes is deprecated and will be removed in future versions. This hook will be "
                "missing some grad_output. Please use register_full_backward_hook to get the "
                "documented behavior.", FutureWarning, stacklevel=2)
        else:
            inputs_grad_fn = {i.grad_fn for i in inputs if i.grad_fn is not None}
            next_functions = {n[0] for n in grad_fn.next_functions}
            if inputs_grad_fn != next_functions:
                warnings.warn(
                    "Using a non-full backward hook when the forward contains multiple autograd "
                    "Nodes is deprecated and will be removed in future versions. This hook will "
                    "be missing some grad_input. Please use register_full_backward_hook to get "
                    "the documented behavior.", FutureWarning, stacklevel=2)

    def _get_backward_pre_hooks(self):
        backward_pre_hooks = []
        backward_pre_hooks += _global_backward_pre_hooks.values()
        backward_pre_hooks += self._backward_pre_hooks.values()
        return backward_pre_hooks

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        r"""Register a forward pre-hook, called before :func:`forward`:
        ``hook(module, args) -> None or modified input`` (a single value is wrapped in a
        tuple), or with ``with_kwargs`` ``hook(module, args, kwargs) -> None or (args,
        kwargs)``. ``prepend`` fires it before the existing ones. Returns a
        ``RemovableHandle``."""
        handle = RemovableHandle(self._forward_pre_hooks,
                                 extra_dict=self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False,
                              always_call=False):
        r"""Register a forward hook, called after :func:`forward`:
        ``hook(module, args, output) -> None or modified output``, or with ``with_kwargs``
        ``hook(module, args, kwargs, output)``. ``always_call`` runs it even when forward
        raises. Returns a ``RemovableHandle``."""
        handle = RemovableHandle(
            self._forward_hooks,
            extra_dict=[self._forward_hooks_with_kwargs, self._forward_hooks_always_called])
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def _call_impl(self, *args, **kwargs):
        forward_call = self.forward
        # The common case, no hooks anywhere: straight to forward.
        if not (self._backward_hooks or self._backward_pre_hooks or self._forward_hooks
                or self._forward_pre_hooks or _global_backward_pre_hooks
                or _global_backward_hooks or _global_forward_hooks
                or _global_forward_pre_hooks):
            return forward_call(*args, **kwargs)

        result = None
        called_always_called_hooks = set()

        def inner():
            nonlocal result, args, kwargs

            full_backward_hooks, non_full_backward_hooks, backward_pre_hooks = [], [], []
            if self._backward_pre_hooks or _global_backward_pre_hooks:
                backward_pre_hooks = self._get_backward_pre_hooks()
            if self._backward_hooks or _global_backward_hooks:
                full_backward_hooks, non_full_backward_hooks = self._get_backward_hooks()

            if _global_forward_pre_hooks or self._forward_pre_hooks:
                for hook_id, hook in (*_global_forward_pre_hooks.items(),
                                      *self._forward_pre_hooks.items()):
                    if hook_id in self._forward_pre_hooks_with_kwargs:
                        args_kwargs_result = hook(self, args, kwargs)
                        if args_kwargs_result is not None:
                            if (isinstance(args_kwargs_result, tuple)
                                    and len(args_kwargs_result) == 2):
                                args, kwargs = args_kwargs_result
                            else:
                                raise RuntimeError(
                                    "forward pre-hook must return None or a tuple "
                                    f"of (new_args, new_kwargs), but got {args_kwargs_result}.")
                    else:
                        args_result = hook(self, args)
                        if args_result is not None:
                            if not isinstance(args_result, tuple):
                                args_result = (args_result,)
                            args = args_result

            bw_hook = None
            if full_backward_hooks or backward_pre_hooks:
                bw_hook = BackwardHook(self, full_backward_hooks, backward_pre_hooks)
                args = bw_hook.setup_input_hook(args)

            result = forward_call(*args, **kwargs)
            if _global_forward_hooks or self._forward_hooks:
                for hook_id, hook in (*_global_forward_hooks.items(),
                                      *self._forward_hooks.items()):
                    # mark that the always_called hook ran
                    if (hook_id in self._forward_hooks_always_called
                            or hook_id in _global_forward_hooks_always_called):
                        called_always_called_hooks.add(hook_id)
                    if (hook_id in self._forward_hooks_with_kwargs
                            or hook_id in _global_forward_hooks_with_kwargs):
                        hook_result = hook(self, args, kwargs, result)
                    else:
                        hook_result = hook(self, args, result)
                    if hook_result is not None:
                        result = hook_result

            if bw_hook:
                if not isinstance(result, (_native.Tensor, tuple)):
                    warnings.warn("For backward hooks to be called,"
                                  " module output should be a Tensor or a tuple of Tensors"
                                  f" but received {type(result)}", stacklevel=2)
                result = bw_hook.setup_output_hook(result)

            # Non-full hooks hang on the node that made the first output tensor.
            if non_full_backward_hooks:
                var = result
                while not isinstance(var, _native.Tensor):
                    if isinstance(var, dict):
                        var = next(v for v in var.values() if isinstance(v, _native.Tensor))
                    else:
                        var = var[0]
                grad_fn = var.grad_fn
                if grad_fn is not None:
                    for hook in non_full_backward_hooks:
                        grad_fn.register_hook(_WrappedHook(hook, self))
                    self._maybe_warn_non_full_backward_hook(args, result, grad_fn)
            return result

        try:
            return inner()
        except Exception:
            # forward raised: run the always_call hooks that did not run yet, then re-raise.
            for hook_id, hook in _global_forward_hooks.items():
                if (hook_id in _global_forward_hooks_always_called
                        and hook_id not in called_always_called_hooks):
                    try:
                        hook_result = hook(self, args, result)
                        if hook_result is not None:
                            result = hook_result
                    except Exception as e:
                        warnings.warn(
                            "global module forward hook with ``always_call=True`` raised an "
                            f"exception that was silenced as another error was raised in "
                            f"forward: {str(e)}", stacklevel=2)
                        continue
            for hook_id, hook in self._forward_hooks.items():
                if (hook_id in self._forward_hooks_always_called
                        and hook_id not in called_always_called_hooks):
                    try:
                        if hook_id in self._forward_hooks_with_kwargs:
                            hook_result = hook(self, args, kwargs, result)
                        else:
                            hook_result = hook(self, args, result)
                        if hook_result is not None:
                            result = hook_result
                    except Exception as e:
                        warnings.warn(
                            "module forward hook with ``always_call=True`` raised an exception "
                            f"that was silenced as another error was raised in forward: "
                            f"{str(e)}", stacklevel=2)
                        continue
            raise

    # Set by compile(): what __call__ runs instead of _call_impl.
    _compiled_call_impl = None

    def _wrapped_call_impl(self, *args, **kwargs):
        if self._compiled_call_impl is not None:
            return self._compiled_call_impl(*args, **kwargs)
        return self._call_impl(*args, **kwargs)

    __call__ = _wrapped_call_impl

    def compile(self, *args, **kwargs):
        """Compile this module's call with :func:`gradrs.compile` (same arguments). gradrs
        compiles nothing: the module keeps running eagerly, as ``backend="eager"`` does."""
        from ..._compile import compile as _compile

        self._compiled_call_impl = _compile(self._call_impl, *args, **kwargs)

    # ---- pickling, attributes -------------------------------------------------------------

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_compiled_call_impl", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        # Modules pickled before these attributes existed still load.
        defaults = (("_forward_pre_hooks", OrderedDict), ("_forward_pre_hooks_with_kwargs",
                    OrderedDict), ("_forward_hooks_with_kwargs", OrderedDict),
                    ("_forward_hooks_always_called", OrderedDict),
                    ("_state_dict_hooks", OrderedDict), ("_state_dict_pre_hooks", OrderedDict),
                    ("_load_state_dict_pre_hooks", OrderedDict),
                    ("_load_state_dict_post_hooks", OrderedDict),
                    ("_non_persistent_buffers_set", set),
                    ("_backward_pre_hooks", OrderedDict))
        for name, make in defaults:
            if name not in self.__dict__:
                self.__dict__[name] = make()
        if "_is_full_backward_hook" not in self.__dict__:
            self._is_full_backward_hook = None

    def __getattr__(self, name):
        if "_parameters" in self.__dict__:
            _parameters = self.__dict__["_parameters"]
            if name in _parameters:
                return _parameters[name]
        if "_buffers" in self.__dict__:
            _buffers = self.__dict__["_buffers"]
            if name in _buffers:
                return _buffers[name]
        if "_modules" in self.__dict__:
            modules = self.__dict__["_modules"]
            if name in modules:
                return modules[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        def remove_from(*dicts_or_sets):
            for d in dicts_or_sets:
                if name in d:
                    if isinstance(d, dict):
                        del d[name]
                    else:
                        d.discard(name)

        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(self.__dict__, self._buffers, self._modules,
                        self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as parameter '{name}' "
                    "(gradrs.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        else:
            modules = self.__dict__.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                remove_from(self.__dict__, self._parameters, self._buffers,
                            self._non_persistent_buffers_set)
                for hook in _global_module_registration_hooks.values():
                    output = hook(self, name, value)
                    if output is not None:
                        value = output
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(
                        f"cannot assign '{_typename(value)}' as child module '{name}' "
                        "(gradrs.nn.Module or None expected)")
                for hook in _global_module_registration_hooks.values():
                    output = hook(self, name, value)
                    if output is not None:
                        value = output
                modules[name] = value
            else:
                buffers = self.__dict__.get("_buffers")
                if isinstance(value, Buffer) or buffers is not None and name in buffers:
                    if value is not None and not isinstance(value, _native.Tensor):
                        raise TypeError(
                            f"cannot assign '{_typename(value)}' as buffer '{name}' "
                            "(gradrs.nn.Buffer, gradrs.Tensor or None expected)")
                    if isinstance(value, Buffer):
                        persistent = value.persistent
                    else:
                        persistent = name not in self._non_persistent_buffers_set
                    # A subclass's register_buffer may not take `persistent`.
                    if getattr(self.register_buffer, "__func__", None) is Module.register_buffer:
                        self.register_buffer(name, value, persistent)
                    else:
                        import inspect

                        sign = inspect.signature(self.register_buffer)
                        if "persistent" in sign.parameters:
                            self.register_buffer(name, value, persistent)
                        else:
                            if not persistent:
                                raise RuntimeError(
                                    "Registering a non-persistent buffer "
                                    "on a Module subclass that implements "
                                    "register_buffer() without the persistent "
                                    "argument is not allowed.")
                            self.register_buffer(name, value)
                else:
                    super().__setattr__(name, value)

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            super().__delattr__(name)

    # ---- state_dict -----------------------------------------------------------------------

    def _register_state_dict_hook(self, hook):
        r"""Register a post-hook of :meth:`state_dict`, ``hook(module, state_dict, prefix,
        local_metadata) -> None or state_dict`` (a returned dict replaces it at the root)."""
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError(
                "Cannot register the same function as the state dict post hook that was "
                "previously registered via register_state_dict_post_hook")
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def register_state_dict_post_hook(self, hook):
        r"""Register a post-hook of :meth:`state_dict`, ``hook(module, state_dict, prefix,
        local_metadata) -> None``; it may modify the state_dict in place."""
        hook._from_public_api = True
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def register_state_dict_pre_hook(self, hook):
        r"""Register a pre-hook of :meth:`state_dict`, ``hook(module, prefix, keep_vars)``."""
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        r"""Save this module's own state (not its descendants') into ``destination``;
        subclasses override it for class-specific behaviour."""
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        extra_state_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if getattr(self.__class__, "get_extra_state",
                   Module.get_extra_state) is not Module.get_extra_state:
            destination[extra_state_key] = self.get_extra_state()

    def state_dict(self, *args: Any, destination: Any = None, prefix: str = "",
                   keep_vars: bool = False) -> dict[str, Any]:
        r"""A dictionary (an ``OrderedDict`` with a ``_metadata`` attribute) of the module's
        whole state: parameters and persistent buffers, keyed by dotted name, detached unless
        ``keep_vars``. Entries that are ``None`` are left out."""
        if len(args) > 0:
            warnings.warn(
                "Positional args are being deprecated, use kwargs instead. Refer to "
                "https://pytorch.org/docs/main/generated/gradrs.nn.Module.html#gradrs.nn.Module.state_dict"
                " for details.",
                FutureWarning,
                stacklevel=2,
            )
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]

        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()

        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata

        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            hook_result = hook(self, destination, prefix, local_metadata)
            if not getattr(hook, "_from_public_api", False):
                if hook_result is not None:
                    destination = hook_result
            else:
                if hook_result is not None:
                    raise RuntimeError("state_dict post-hook must return None")
        return destination

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = _WrappedHook(
            hook, self if with_module else None)
        return handle

    def register_load_state_dict_pre_hook(self, hook):
        r"""Register a pre-hook of :meth:`load_state_dict`, ``hook(module, state_dict, prefix,
        local_metadata, strict, missing_keys, unexpected_keys, error_msgs) -> None``."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook):
        r"""Register a post-hook of :meth:`load_state_dict`, ``hook(module,
        incompatible_keys) -> None``; it may edit the key lists in place."""
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict,
                              missing_keys, unexpected_keys, error_msgs):
        r"""Copy parameters and buffers from ``state_dict`` into this module only (not its
        descendants), recording missing/unexpected keys and errors; subclasses override it
        for backward-compatible loading (``local_metadata["version"]``)."""
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs)

        persistent_buffers = {k: v for k, v in self._buffers.items()
                              if k not in self._non_persistent_buffers_set}
        local_name_params = itertools.chain(self._parameters.items(), persistent_buffers.items())
        local_state = {k: v for k, v in local_name_params if v is not None}
        assign_to_params_buffers = local_metadata.get("assign_to_params_buffers", False)

        for name, param in local_state.items():
            key = prefix + name
            if key in state_dict:
                input_param = state_dict[key]
                if not isinstance(input_param, _native.Tensor):
                    error_msgs.append(
                        f'While copying the parameter named "{key}", '
                        "expected gradrs.Tensor or Tensor-like object from checkpoint but "
                        f"received {type(input_param)}")
                    continue

                # An uninitialized (lazy) parameter has no shape to compare.
                is_param_lazy = is_lazy(param)
                # Backward compatibility: a 1-element 1-d tensor (PyTorch 0.3) into a 0-d one.
                if (not is_param_lazy and len(param.shape) == 0
                        and len(input_param.shape) == 1 and input_param.shape[0] == 1):
                    input_param = input_param[0]

                if not is_param_lazy and input_param.shape != param.shape:
                    # local shape should match the one in checkpoint
                    error_msgs.append(
                        f"size mismatch for {key}: copying a param with shape "
                        f"{input_param.shape} from checkpoint, "
                        f"the shape in current model is {param.shape}.")
                    continue
                try:
                    with no_grad():
                        if assign_to_params_buffers:
                            # Shape checks are already done above.
                            if isinstance(param, Parameter):
                                if not isinstance(input_param, Parameter):
                                    input_param = Parameter(
                                        input_param, requires_grad=param.requires_grad)
                                else:
                                    input_param.requires_grad_(param.requires_grad)
                            setattr(self, name, input_param)
                        else:
                            param.copy_(input_param)
                except Exception as ex:
                    error_msgs.append(
                        f'While copying the parameter named "{key}", '
                        f"whose dimensions in the model are {param.size()} and "
                        f"whose dimensions in the checkpoint are {input_param.size()}, "
                        f"an exception occurred : {ex.args}.")
            elif strict:
                missing_keys.append(key)

        extra_state_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if getattr(self.__class__, "set_extra_state",
                   Module.set_extra_state) is not Module.set_extra_state:
            if extra_state_key in state_dict:
                self.set_extra_state(state_dict[extra_state_key])
            elif strict:
                missing_keys.append(extra_state_key)
        elif strict and (extra_state_key in state_dict):
            unexpected_keys.append(extra_state_key)

        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_state_key:
                    input_name = key[len(prefix):].split(".", 1)
                    # Must be Module if it has attributes
                    if len(input_name) > 1:
                        if input_name[0] not in self._modules:
                            unexpected_keys.append(key)
                    elif input_name[0] not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        r"""Copy parameters and buffers from ``state_dict`` into this module and its
        descendants. With ``strict`` its keys must match :meth:`state_dict`'s exactly; with
        ``assign`` the state_dict's tensors replace the module's (keeping each Parameter's
        requires_grad). Returns ``(missing_keys, unexpected_keys)`` as a named tuple."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")

        missing_keys = []
        unexpected_keys = []
        error_msgs = []

        # copy state_dict so _load_from_state_dict can modify it
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True,
                                         missing_keys, unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_state_dict = {k: v for k, v in local_state_dict.items()
                                        if k.startswith(child_prefix)}
                    load(child, child_state_dict, child_prefix)  # noqa: F821

            # The hooks see the keys collected so far and may clear them in place.
            incompatible_keys = _IncompatibleKeys(missing_keys, unexpected_keys)
            for hook in module._load_state_dict_post_hooks.values():
                out = hook(module, incompatible_keys)
                if out is not None:
                    raise AssertionError(
                        "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                        "expected to return new values, if incompatible_keys need to be modified, "
                        "it should be done inplace.")

        load(self, state_dict)
        del load  # breaks the closure's reference cycle

        if strict:
            if len(unexpected_keys) > 0:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if len(missing_keys) > 0:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))

        if len(error_msgs) > 0:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                self.__class__.__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # ---- iteration ------------------------------------------------------------------------

    def _named_members(self, get_members_fn, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        for module_prefix, module in modules:
            members = get_members_fn(module)
            for k, v in members:
                if v is None or v in memo:
                    continue
                if remove_duplicate:
                    memo.add(v)
                name = module_prefix + ("." if module_prefix else "") + k
                yield name, v

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        r"""An iterator over the module's parameters (and its submodules' with ``recurse``),
        each once."""
        for _name, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        r"""An iterator over ``(name, parameter)``, names dotted and prefixed with
        ``prefix``."""
        yield from self._named_members(lambda module: module._parameters.items(),
                                       prefix=prefix, recurse=recurse,
                                       remove_duplicate=remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[_native.Tensor]:
        r"""An iterator over the module's buffers."""
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
                      ) -> Iterator[tuple[str, _native.Tensor]]:
        r"""An iterator over ``(name, buffer)``."""
        yield from self._named_members(lambda module: module._buffers.items(),
                                       prefix=prefix, recurse=recurse,
                                       remove_duplicate=remove_duplicate)

    def children(self) -> Iterator[Module]:
        r"""An iterator over the immediate child modules."""
        for _name, module in self.named_children():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        r"""An iterator over ``(name, child)`` for the immediate children, each once."""
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def modules(self, remove_duplicate: bool = True) -> Iterator[Module]:
        r"""An iterator over all modules of the network, self first."""
        for _, module in self.named_modules(remove_duplicate=remove_duplicate):
            yield module

    def named_modules(self, memo: set[Module] | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Module]]:
        r"""An iterator over ``(dotted name, module)`` for all modules, self (``prefix``)
        first, depth first."""
        if memo is None:
            memo = set()
        if self not in memo:
            if remove_duplicate:
                memo.add(self)
            yield prefix, self
            for name, module in self._modules.items():
                if module is None:
                    continue
                submodule_prefix = prefix + ("." if prefix else "") + name
                yield from module.named_modules(memo, submodule_prefix, remove_duplicate)

    # ---- modes and gradients --------------------------------------------------------------

    def train(self, mode: bool = True) -> Self:
        r"""Set training mode (``mode=False``: evaluation) on self and all descendants;
        Dropout and BatchNorm behave differently in each. Returns self."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Self:
        r"""Set evaluation mode: ``self.train(False)``. Returns self."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Self:
        r"""Set ``requires_grad`` of every parameter in place (freezing). Returns self."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        r"""Reset the gradients of all parameters: to ``None`` by default, else to zeros."""
        for p in self.parameters():
            if p.grad is not None:
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    # ---- printing -------------------------------------------------------------------------

    def _get_name(self):
        return self.__class__.__name__

    def extra_repr(self):
        r"""The module's own line(s) in its repr; override it in layers (single- or
        multi-line)."""
        return ""

    def __repr__(self):
        # We treat the extra repr like the sub-module, one item per line
        extra_lines = []
        extra_repr = self.extra_repr()
        # empty string will be split into list ['']
        if extra_repr:
            extra_lines = extra_repr.split("\n")
        child_lines = []
        for key, module in self._modules.items():
            mod_str = repr(module)
            mod_str = _addindent(mod_str, 2)
            child_lines.append("(" + key + "): " + mod_str)
        lines = extra_lines + child_lines

        main_str = self._get_name() + "("
        if lines:
            # simple one-liner info, which most builtin Modules will use
            if len(extra_lines) == 1 and not child_lines:
                main_str += extra_lines[0]
            else:
                main_str += "\n  " + "\n  ".join(lines) + "\n"
        main_str += ")"
        return main_str

    def __dir__(self):
        module_attrs = dir(self.__class__)
        attrs = list(self.__dict__.keys())
        parameters = list(self._parameters.keys())
        modules = list(self._modules.keys())
        buffers = list(self._buffers.keys())
        keys = module_attrs + attrs + parameters + modules + buffers
        # Eliminate attrs that are not legal Python variable names
        keys = [key for key in keys if not key[0].isdigit()]
        return sorted(keys)
