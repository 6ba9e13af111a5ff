"""Extending torch with __torch_function__, following the "Extending torch" notes: a ScalarTensor
duck type with a HANDLED_FUNCTIONS table filled by an @implements decorator, a Tensor subclass
that logs the functions called on it and keeps its type through operations, a metadata-carrying
subclass, and torch.overrides helpers (has_torch_function, handle_torch_function,
get_overridable_functions / is_tensor_like)."""
# ruff: noqa: UP004 - the ScalarTensor example as the "Extending torch" notes write it
import functools

import torch
from torch.overrides import has_torch_function, is_tensor_like

HANDLED_FUNCTIONS = {}


class ScalarTensor(object):
    def __init__(self, N, value):
        self._N = N
        self._value = value

    def __repr__(self):
        return "ScalarTensor(N={}, value={})".format(self._N, self._value)

    def tensor(self):
        return self._value * torch.eye(self._N)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        if func not in HANDLED_FUNCTIONS or not all(
            issubclass(t, (torch.Tensor, ScalarTensor))
            for t in types
        ):
            args = [a.tensor() if hasattr(a, 'tensor') else a for a in args]
            return func(*args, **kwargs)
        return HANDLED_FUNCTIONS[func](*args, **kwargs)


def implements(torch_function):
    """Register a torch function override for ScalarTensor"""
    def decorator(func):
        functools.update_wrapper(func, torch_function)
        HANDLED_FUNCTIONS[torch_function] = func
        return func
    return decorator


@implements(torch.mean)
def mean(input):
    return float(input._value) / input._N


@implements(torch.add)
def add(input, other):
    try:
        if input._N == other._N:
            return ScalarTensor(input._N, input._value + other._value)
        else:
            raise ValueError("Shape mismatch!")
    except AttributeError:
        return torch.add(input.tensor(), other)


d = ScalarTensor(5, 2)
print(d)
print(d.tensor())
print("mean", torch.mean(d))
print("add", torch.add(d, d))
print("add tensor", torch.add(d, torch.ones(5, 5))[0])
print("unhandled mul falls back:", torch.mul(d, 2)[1])
print("has_torch_function", has_torch_function((d,)), has_torch_function((torch.ones(1),)))
print("is_tensor_like", is_tensor_like(d), is_tensor_like(torch.ones(1)), is_tensor_like(3))
print("wrapper name", mean.__name__, mean.__wrapped__ is torch.mean)


class LoggingTensor(torch.Tensor):
    calls = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        name = getattr(func, "__name__", str(func))
        cls.calls.append(name)
        return super().__torch_function__(func, types, args, kwargs)


x = torch.arange(6.0).reshape(2, 3).as_subclass(LoggingTensor)
y = (x * 2 + 1).sum(dim=1)
print(type(y).__name__, y)
z = torch.relu(x - 2).mean()
print(type(z).__name__, z.item())
print("shape", x.shape, "type of x[0]", type(x[0]).__name__, "type of x.tolist()", type(x.tolist()).__name__)
print("calls", [c for c in LoggingTensor.calls if not c.startswith("__get__")][:12])
plain = torch.Tensor._make_subclass(torch.Tensor, torch.ones(2)) if hasattr(torch.Tensor, "_make_subclass") else torch.ones(2)
print("plain type", type(plain).__name__, "cat type", type(torch.cat([x, x])).__name__)


class TaggedTensor(torch.Tensor):
    @staticmethod
    def __new__(cls, data, tag=None):
        t = torch.Tensor._make_subclass(cls, data, data.requires_grad)
        t.tag = tag
        return t

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        tags = {a.tag for a in args if isinstance(a, TaggedTensor) and getattr(a, "tag", None)}
        out = super().__torch_function__(func, types, args, kwargs)
        if isinstance(out, TaggedTensor):
            out.tag = "+".join(sorted(tags)) if tags else None
        return out

    def __repr__(self):
        return f"TaggedTensor(tag={getattr(self, 'tag', None)}, {self.as_subclass(torch.Tensor)!r})"


a = TaggedTensor(torch.tensor([1.0, 2.0]), tag="meters")
b = TaggedTensor(torch.tensor([3.0, 4.0]), tag="seconds")
print(a)
print(a + b)
print(a * 3)
print(torch.stack([a, b]).tag, isinstance(a + b, TaggedTensor), isinstance(a, torch.Tensor))
w = TaggedTensor(torch.randn(2, requires_grad=True), tag="w")
loss = (w * a).sum()
loss.backward()
print("grad type", type(w.grad).__name__, "loss type", type(loss).__name__, "grad_fn", type(loss.grad_fn).__name__)
with torch._C.DisableTorchFunctionSubclass():
    print("disabled:", type(a + b).__name__)
print(torch.overrides.is_tensor_method_or_property(torch.Tensor.add))
