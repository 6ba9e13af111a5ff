"""`gradrs.library`: PyTorch's Python custom-operator API (`torch.library.custom_op`, 2.4+).

A function decorated with ``@custom_op("ns::name", mutates_args=...)`` becomes a
:class:`CustomOpDef`: called directly or as ``gradrs.ops.ns.name`` (``.default``), it runs the
function (or a kernel given by `register_kernel`); `register_autograd(backward,
setup_context=...)` gives it a derivative, recorded as one node named as PyTorch's
(``GeneratedBackwardFor_ns_name_defaultBackward``), and without one a backward through it
raises PyTorch's error. `register_fake` keeps the meta function (eager gradrs has no tracing,
so it is not called). The schema PyTorch infers from the annotations is checked the same way
(every parameter annotated; tensors where it says Tensor) and shown in the errors.
"""

from __future__ import annotations

import inspect
import sys
import types
import typing

from . import _native
from .autograd.function import Function

__all__ = ["CustomOpDef", "custom_op", "register_autograd", "register_fake", "register_kernel",
           "infer_schema"]

_OPS: dict[str, CustomOpDef] = {}


def _type_name(annotation):
    """The schema type PyTorch's infer_schema writes for one annotation."""
    T = _native.Tensor
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if annotation is T:
        return "Tensor"
    if origin in (typing.Union, types.UnionType) and len(args) == 2 and type(None) in args:
        inner = args[0] if args[1] is type(None) else args[1]
        name = _type_name(inner)
        return None if name is None else name + "?"
    if origin in (list, tuple, typing.Sequence) or str(origin) == "collections.abc.Sequence":
        inner = _type_name(args[0]) if args else None
        return None if inner is None else inner + "[]"
    return {int: "SymInt", float: "float", bool: "bool", str: "str",
            _native.dtype: "ScalarType", _native.device: "Device"}.get(annotation)


def _default_repr(value):
    return repr(value)


def infer_schema(prototype_function, /, *, mutates_args, op_name=None):
    """The operator schema PyTorch infers from a function's type annotations, e.g.
    ``(Tensor x, float scale=1.) -> Tensor``; a parameter without an annotation raises
    PyTorch's ValueError.

    Examples:
        >>> def f(x: gradrs.Tensor, k: int = 2) -> gradrs.Tensor: ...
        >>> gradrs.library.infer_schema(f, mutates_args=())
        '(Tensor x, SymInt k=2) -> Tensor'
    """
    sig = inspect.signature(prototype_function)
    try:
        hints = typing.get_type_hints(prototype_function)
    except Exception:  # noqa: BLE001 - unresolvable string annotations: the raw ones
        hints = {}
    mutated = None if isinstance(mutates_args, str) else set(mutates_args)  # "unknown": all
    params, alias = [], 0
    for name, p in sig.parameters.items():
        if p.annotation is inspect.Parameter.empty:
            raise ValueError(f"infer_schema(func): Parameter {name} must have a type "
                             f"annotation. Got func with signature {sig})")
        type_name = _type_name(hints.get(name, p.annotation))
        if type_name is None:
            raise ValueError(f"infer_schema(func): Parameter {name} has unsupported type "
                             f"{p.annotation}. Got func with signature {sig})")
        if type_name.startswith("Tensor") and (mutated is None or name in mutated):
            type_name = f"Tensor(a{alias}!)" + type_name[len("Tensor"):]
            alias += 1
        text = f"{type_name} {name}"
        if p.default is not inspect.Parameter.empty:
            text += "=" + _default_repr(p.default)
        params.append(text)
    ret = hints.get("return", sig.return_annotation)
    if ret is None or ret is type(None):
        out = "()"
    elif typing.get_origin(ret) is tuple:
        out = "(" + ", ".join(_type_name(a) or "?" for a in typing.get_args(ret)) + ")"
    else:
        out = _type_name(ret) or "Tensor"
    return f"({', '.join(params)}) -> {out}"


class CustomOpDef:
    """A custom operator made by :func:`custom_op`: call it (or ``gradrs.ops.ns.name``) to run
    it; give it a derivative with :meth:`register_autograd`."""

    def __init__(self, namespace, name, schema, fn):
        self._namespace = namespace
        self._name = name
        self._schema = schema
        self._init_fn = fn
        self._signature = inspect.signature(fn)
        self._kernels = {}
        self._abstract_fn = None
        self._backward_fn = None
        self._setup_context_fn = None
        op = self

        def forward(*args):
            return op._kernel(args)(*args)

        def setup_context(ctx, inputs, output):
            if op._setup_context_fn is not None:
                op._setup_context_fn(ctx, inputs, output)

        def backward(ctx, *grads):
            if op._backward_fn is None:
                raise RuntimeError(f"Trying to backward through {namespace}.{name}.default but "
                                   "no autograd formula was registered. Please use "
                                   "register_autograd to add one.")
            result = op._backward_fn(ctx, *grads)
            return result if isinstance(result, tuple) else (result,)

        self._autograd = type(f"GeneratedBackwardFor_{namespace}_{name}_default", (Function,),
                              {"forward": staticmethod(forward),
                               "setup_context": staticmethod(setup_context),
                               "backward": staticmethod(backward)})
        self._autograd.__module__ = "gradrs.autograd.function"

    def __repr__(self):
        return f"<CustomOpDef({self._namespace}::{self._name})>"

    def _kernel(self, args):
        for a in args:
            if isinstance(a, _native.Tensor):
                kernel = self._kernels.get(a.device.type)
                if kernel is not None:
                    return kernel
        return self._init_fn

    def _bind(self, args, kwargs):
        qualname = f"{self._namespace}::{self._name}"
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{qualname}() {e}") from None
        bound.apply_defaults()
        values = tuple(bound.arguments.values())
        declared = self._schema[1:self._schema.index(") -> ")].split(", ")
        for pos, (name, value, decl) in enumerate(zip(bound.arguments, values, declared)):
            kind = decl.split(" ")[0]
            wants_tensor = kind.startswith("Tensor") and not kind.endswith("[]")
            optional = kind.endswith("?")
            if wants_tensor and not (isinstance(value, _native.Tensor)
                                     or (optional and value is None)):
                raise RuntimeError(
                    f"{qualname}() Expected a value of type '{kind.split('(')[0]}' for argument "
                    f"'{name}' but instead found type '{type(value).__name__}'.\n"
                    f"Position: {pos}\nValue: {value!r}\n"
                    f"Declaration: {qualname}{self._schema}\n"
                    f"Cast error details: Unable to cast {value!r} to Tensor")
        return values

    def __call__(self, *args, **kwargs):
        values = self._bind(args, kwargs)
        tensors = [v for v in values if isinstance(v, _native.Tensor)]
        if _native.is_grad_enabled() and any(t.requires_grad for t in tensors):
            out = self._autograd.apply(*values)
        else:
            out = self._kernel(values)(*values)
        outs = out if isinstance(out, tuple) else (out,)
        if any(o is t for o in outs for t in tensors):
            raise RuntimeError(
                f"{self._name} (with implementation in {sys.modules[__name__]!r}): The output of "
                "this custom operator (1) must not also be an input to this custom operator "
                "and (2) may not alias any inputs to this custom operator or other returns. "
                "The most common way to trigger this error is if we have y = custom_op(x) and "
                "y and x are the same Tensor. Please instead return a clone of the offending "
                "output tensor(s) (e.g. return x.clone()) or refactor the custom operator to "
                "not return y.")
        return out

    def register_fake(self, fn=None, /):
        """Register the FakeTensor (meta) implementation; a decorator. Kept for programs that
        register one: eager gradrs never traces, so it is not called."""
        def register(f):
            self._abstract_fn = f
            return f
        return register(fn) if fn is not None else register

    def register_kernel(self, device_types, fn=None, /):
        """Use `fn` instead of the decorated function for tensors on `device_types` ('cpu',
        'cuda', or a list); a decorator when `fn` is omitted."""
        kinds = [device_types] if isinstance(device_types, str) or device_types is None \
            else list(device_types)

        def register(f):
            for kind in kinds:
                self._kernels[kind or "cpu"] = f
            return f
        return register(fn) if fn is not None else register

    def register_autograd(self, backward, /, *, setup_context=None):
        """Give the operator a derivative: `setup_context(ctx, inputs, output)` saves what
        `backward(ctx, *grads)` needs; backward returns one gradient (or None) per input."""
        self._backward_fn = backward
        self._setup_context_fn = setup_context


def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None):
    """Wrap a function into a custom operator ``"namespace::name"`` (a decorator when `fn` is
    omitted); `mutates_args`: the names of the tensor arguments it writes in place
    ("unknown" for any), as PyTorch's.

    Examples:
        >>> @gradrs.library.custom_op("demo::twice", mutates_args=())
        ... def twice(x: gradrs.Tensor) -> gradrs.Tensor:
        ...     return x * 2
        >>> twice(gradrs.ones(2))
        tensor([2., 2.])
    """
    def inner(f):
        namespace, opname = name.split("::")  # PyTorch's ValueError when there is no "::"
        text = schema if schema is not None else infer_schema(f, mutates_args=mutates_args)
        op = CustomOpDef(namespace, opname, text, f)
        if device_types is not None:
            op.register_kernel(device_types, f)
        _OPS[name] = op
        return op
    return inner(fn) if fn is not None else inner


def _lookup(op):
    if isinstance(op, CustomOpDef):
        return op
    if isinstance(op, _OpOverload):
        return op._op
    if isinstance(op, _OpOverloadPacket):
        return op._op
    if op in _OPS:
        return _OPS[op]
    raise ValueError(f"register: could not find the custom operator {op}")


def register_fake(op, fn=None, /, *, lib=None, _stacklevel=1):
    """`op`'s (a name or a CustomOpDef) FakeTensor implementation; a decorator."""
    return _lookup(op).register_fake(fn) if fn is not None else _lookup(op).register_fake


def register_autograd(op, backward, /, *, setup_context=None, lib=None):
    """:meth:`CustomOpDef.register_autograd` for an operator given by name."""
    _lookup(op).register_autograd(backward, setup_context=setup_context)


def register_kernel(op, device_types, fn=None, /, *, lib=None):
    """:meth:`CustomOpDef.register_kernel` for an operator given by name."""
    return _lookup(op).register_kernel(device_types, fn)


class _OpOverload:
    def __init__(self, op):
        self._op = op

    def __call__(self, *args, **kwargs):
        return self._op(*args, **kwargs)

    def __repr__(self):
        return (f"<OpOverload(op='{self._op._namespace}.{self._op._name}', "
                "overload='default')>")

    def __str__(self):
        return f"{self._op._namespace}.{self._op._name}.default"


class _OpOverloadPacket:
    def __init__(self, op):
        self._op = op
        self.default = _OpOverload(op)

    def __call__(self, *args, **kwargs):
        return self._op(*args, **kwargs)

    def __repr__(self):
        return f"<OpOverloadPacket(op='{self._op._namespace}.{self._op._name}')>"

    def __str__(self):
        return f"{self._op._namespace}.{self._op._name}"

    def overloads(self):
        return ["default"]


class _OpNamespace(types.ModuleType):
    def __init__(self, name):
        super().__init__("gradrs.ops." + name)
        self.name = name
        self.__file__ = "gradrs.ops"

    def __getattr__(self, op_name):
        op = _OPS.get(f"{self.name}::{op_name}")
        if op is None or op_name.startswith("__"):
            raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute "
                                 f"'{op_name}'")
        return _OpOverloadPacket(op)


class _Ops(types.ModuleType):
    """`gradrs.ops`: the custom operators by namespace (``gradrs.ops.ns.name``)."""

    def __init__(self):
        super().__init__("gradrs.ops")

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        namespace = _OpNamespace(name)
        setattr(self, name, namespace)
        return namespace


ops = _Ops()
