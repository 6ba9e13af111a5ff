"""`gradrs.overrides` against `torch.overrides`: `__torch_function__` dispatch order
(subclasses first, then left to right), NotImplemented fall-through and its TypeError,
wrap_torch_function, is_tensor_like, is_tensor_method_or_property. Dispatch from gradrs's own
functions, methods and modes: tests/test_torch_function.py."""

import importlib

import pytest
from conftest import G, assert_same_error


def _ov(mod):
    return importlib.import_module(f"{mod.__name__}.overrides")


class A:
    calls = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        A.calls.append((cls.__name__, func.__name__, [t.__name__ for t in types], len(args),
                        sorted((kwargs or {}).items())))
        return NotImplemented if cls.__name__.startswith("No") else cls.__name__


class B(A):
    pass


class NoA(A):
    pass


class NoB:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        A.calls.append((cls.__name__, func.__name__))
        return NotImplemented


def _run(mod, args, kwargs):
    ov = _ov(mod)

    def fn(*a, **k):
        return ov.handle_torch_function(fn, a, *a, **k)

    A.calls = []
    try:
        out = fn(*args, **kwargs)
    except TypeError as e:
        out = ("TypeError", str(e))
    return out, A.calls


@pytest.mark.parametrize("case", [
    ((A(),), {}),
    ((1, A(), B()), {}),
    ((A(), B(), A()), {"dim": 1}),
    ((NoA(), A()), {}),
    ((NoB(), NoA()), {}),
    ((NoB(),), {"k": 2}),
    ((2, NoA(), B()), {}),
])
def test_handle_torch_function(torch, case):
    args, kwargs = case
    assert _run(G, args, kwargs) == _run(torch, args, kwargs)


@pytest.mark.parametrize("args", [(), (1, 2.0, None), (A(),), (1, B()), ("x", [A()])])
def test_has_torch_function(torch, args):
    g, t = _ov(G), _ov(torch)
    assert g.has_torch_function(args) == t.has_torch_function(args)
    assert g.has_torch_function_variadic(*args) == t.has_torch_function_variadic(*args)
    for a in args:
        assert g.has_torch_function_unary(a) == t.has_torch_function_unary(a)
        assert g.is_tensor_like(a) == t.is_tensor_like(a)


def test_tensors(torch):
    g, t = _ov(G), _ov(torch)
    assert g.has_torch_function((G.ones(2),)) == t.has_torch_function((torch.ones(2),)) is False
    assert g.is_tensor_like(G.ones(2)) and t.is_tensor_like(torch.ones(2))
    p = G.nn.Parameter(G.ones(1))
    assert g.has_torch_function((p,)) == t.has_torch_function((torch.nn.Parameter(torch.ones(1)),))
    for name in ("add", "sum", "reshape", "__add__", "backward"):
        assert g.is_tensor_method_or_property(getattr(G.Tensor, name)) == t.is_tensor_method_or_property(
            getattr(torch.Tensor, name))
    for name in ("add", "sum", "cat"):
        assert g.is_tensor_method_or_property(getattr(G, name)) == t.is_tensor_method_or_property(
            getattr(torch, name))
    assert g.is_tensor_method_or_property(G.Tensor.requires_grad.__get__) is True


def test_wrap_torch_function(torch):
    def build(mod):
        @_ov(mod).wrap_torch_function(lambda a, b=0: (a, b))
        def add(a, b=0):
            return a + b

        return add

    for mod in (G, torch):
        add = build(mod)
        assert add(1, 2) == 3 and add.__name__ == "add"
        assert add(1, B()) == "B"
    assert_same_error(lambda: build(G)(NoB()), lambda: build(torch)(NoB()))
