"""PyTorch's argument-parser texts for the Tensor methods' own argument errors and their
functional forms (Note [Parser errors], issue 25): pyo3's wordings (`Tensor.sum() got an
unexpected keyword argument`, `'list' object is not an instance of 'Tensor'`) replaced by
PyTorch's, the overloads' listings included; and the operators' dispatch to a tensor-like
operand's `__torch_function__` (Note [Operators on tensor-likes], issue 27). Vs torch 2.13."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import G, check_error

# ---- methods ---------------------------------------------------------------------------------
METHOD_CALLS = {
    # overloaded methods: PyTorch's listing (and its "didn't match" lines)
    "sum unknown keyword": lambda m: m.ones(2).sum(foo=1),
    "sum bool dim": lambda m: m.ones(2, 3).sum(True),
    "sum numpy bool dim": lambda m: m.ones(2, 3).sum(np.bool_(0)),
    "pow no argument": lambda m: m.ones(2).pow(),
    "pow None": lambda m: m.ones(2).pow(None),
    "masked_fill None mask": lambda m: m.ones(2).masked_fill(None, 1.0),
    "masked_fill None value": lambda m: m.ones(2).masked_fill(m.ones(2) > 0, None),
    "mean unknown keyword": lambda m: m.ones(2).mean(foo=1),
    "clamp unknown keyword": lambda m: m.ones(2).clamp(foo=1),
    "max unknown keyword": lambda m: m.ones(2).max(foo=1),
    "eq no argument": lambda m: m.ones(2).eq(),
    "fill_ no argument": lambda m: m.ones(2).fill_(),
    "sort unknown keyword": lambda m: m.ones(2).sort(foo=1),
    "view float": lambda m: m.ones(2).view(2.0),
    "view keyword float": lambda m: m.ones(2).view(size=2.0),
    "view varargs float": lambda m: m.ones(2).view(2, 1.5),
    # one signature: its first problem, in PyTorch's words
    "unsqueeze unknown keyword": lambda m: m.ones(2).unsqueeze(dim=0, foo=1),
    "unsqueeze missing": lambda m: m.ones(2).unsqueeze(),
    "unsqueeze str": lambda m: m.ones(2).unsqueeze("a"),
    "unsqueeze too many": lambda m: m.ones(2).unsqueeze(0, 1),
    "transpose missing": lambda m: m.ones(2).transpose(0),
    "clone positional": lambda m: m.ones(2).clone(1),
    "dot too many": lambda m: m.ones(2).dot(m.ones(2), m.ones(2)),
    "dot missing": lambda m: m.ones(2).dot(),
    "matmul None": lambda m: m.ones(2).matmul(None),
    "mm list": lambda m: m.ones(2).mm([1]),
    "index_select list": lambda m: m.ones(2).index_select(0, [0]),
    "gather list": lambda m: m.ones(2).gather(0, [0]),
    "gather keyword list": lambda m: m.ones(2).gather(0, index=[0]),
    "roll numpy bool": lambda m: m.ones(2).roll(np.bool_(1)),
    "flatten unknown keyword": lambda m: m.ones(2).flatten(foo=1),
    "argmax unknown keyword": lambda m: m.ones(2).argmax(foo=1),
    # methods without parameters: CPython's texts with PyTorch's class, TensorBase
    "exp positional": lambda m: m.ones(2).exp(1),
    "exp keyword": lambda m: m.ones(2).exp(foo=1),
    "exp both": lambda m: m.ones(2).exp(1, foo=1),
    "abs positional": lambda m: m.ones(2).abs(1),
    "neg keyword": lambda m: m.ones(2).neg(x=1),
}


@pytest.mark.parametrize("name", sorted(METHOD_CALLS))
def test_method_parser_error(name):
    check_error(METHOD_CALLS[name])


# ---- functional forms ------------------------------------------------------------------------
FUNCTION_CALLS = {
    "add str": lambda m: m.add(m.ones(2), "a"),
    "sum unknown keyword": lambda m: m.sum(m.ones(2), foo=1),
    "mean unknown keyword": lambda m: m.mean(m.ones(2), foo=1),
    "matmul list": lambda m: m.matmul(m.ones(2), [1, 2]),
    "clone positional": lambda m: m.clone(m.ones(2), 1),
    "softmax str": lambda m: m.softmax(m.ones(2), "a"),
    "log_softmax str": lambda m: m.log_softmax(m.ones(2), "a"),
    "unsqueeze missing": lambda m: m.unsqueeze(m.ones(2)),
    "exp positional": lambda m: m.exp(m.ones(2), 1),
    "gather list": lambda m: m.gather(m.ones(2), 0, [0]),
    "index_select list": lambda m: m.index_select(m.ones(2), 0, [0]),
    "dot None": lambda m: m.dot(m.ones(2), None),
    "masked_fill None": lambda m: m.masked_fill(m.ones(2), None, 1.0),
}


@pytest.mark.parametrize("name", sorted(FUNCTION_CALLS))
def test_function_parser_error(name):
    check_error(FUNCTION_CALLS[name])


# ---- indexing --------------------------------------------------------------------------------
INDEX_CALLS = {
    # PyTorch counts a tuple index's dims before converting any
    "list with str on one dim": lambda m: m.ones(2)[[0, "a"]],
    "tuple with str on one dim": lambda m: m.ones(2)[0, "a"],
    "numpy bool slice start": lambda m: m.ones(4)[np.bool_(1):],
    "float slice stop": lambda m: m.ones(4)[:1.5],
}


@pytest.mark.parametrize("name", sorted(INDEX_CALLS))
def test_index_parser_error(name):
    check_error(INDEX_CALLS[name])


def test_methods_still_work():
    """The rerouted methods run as before (Note [Parser errors] adds one call)."""
    x = G.arange(6.0).reshape(2, 3)
    assert x.sum().item() == 15.0
    assert x.sum(1).tolist() == [3.0, 12.0]
    assert x.exp().shape == (2, 3)
    assert x.t().matmul(x).shape == (3, 3)
    assert G.Tensor.sum.__text_signature__ is not None
    assert G.Tensor.exp.__name__ == "exp"
    assert G.Tensor.exp.__qualname__ == "Tensor.exp"


# ---- operators on tensor-likes ---------------------------------------------------------------
OPERATORS = ["t + d", "t - d", "t * d", "t / d", "t ** d", "t @ d", "t == d", "t != d",
             "t < d", "t <= d", "t > d", "t >= d", "t % d", "t // d", "t & d", "t | d",
             "t ^ d", "t << d", "t >> d", "d + t", "d - t", "d * t", "d / t", "d ** t",
             "d @ t", "d % t", "d // t", "d & t", "d | t", "d ^ t", "d << t", "d >> t",
             "d < t"]


def _duck_calls(m, expr):
    class Duck:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return (func.__name__, [t.__name__ for t in types],
                    [type(a).__name__ for a in args], kwargs)

    return eval(expr, {"t": m.ones(2), "d": Duck()})


@pytest.mark.parametrize("expr", OPERATORS)
def test_operator_dispatches_to_tensor_like(expr, torch):
    assert _duck_calls(G, expr) == _duck_calls(torch, expr)


def test_operator_tensor_like_not_implemented(torch):
    """A `__torch_function__` returning NotImplemented: Python's own TypeError, as PyTorch."""
    def run(m):
        class Duck:
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                return NotImplemented

        try:
            m.ones(2) + Duck()
        except TypeError as e:
            return str(e).replace(m.__name__, "M")
        return None

    assert run(G) == run(torch) is not None


def test_operator_plain_object_still_not_implemented():
    with pytest.raises(TypeError, match="unsupported operand"):
        G.ones(2) + object()
    assert (G.ones(2) == None).__class__ is bool  # noqa: E711 - identity fallback
