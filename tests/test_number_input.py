"""A Python number as `input` (`torch.add(2, t)`): PyTorch's numbers-as-tensors, vs torch 2.13."""

from __future__ import annotations

import pytest
from conftest import check, check_error, graph_tree


def _grad(fn):
    """`fn(m, x)` with x requiring grad: (result, x.grad after backward of its sum)."""
    def run(m):
        x = m.tensor([1.5, -2.0, 4.0], dtype=m.float64, requires_grad=True)
        y = fn(m, x)
        y.sum().backward()
        return y, x.grad
    return run


CASES = {
    "add": lambda m, x: m.add(2, x),
    "add float": lambda m, x: m.add(0.1, x),
    "add alpha": lambda m, x: m.add(2, x, alpha=3),
    "sub": lambda m, x: m.sub(2, x),
    "sub alpha": lambda m, x: m.sub(2.5, x, alpha=-0.5),
    "subtract": lambda m, x: m.subtract(2, x),
    "mul": lambda m, x: m.mul(3, x),
    "multiply": lambda m, x: m.multiply(True, x),
    "div": lambda m, x: m.div(2, x),
    "divide": lambda m, x: m.divide(2, x),
    "true_divide": lambda m, x: m.true_divide(2, x),
    "div floor": lambda m, x: m.div(7, x, rounding_mode="floor"),
    "div trunc": lambda m, x: m.div(7, x, rounding_mode="trunc"),
    "div None": lambda m, x: m.div(7, x, rounding_mode=None),
    "input keyword": lambda m, x: m.mul(input=3, other=x),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_number_input_values_and_grads(name):
    check(_grad(CASES[name]))


@pytest.mark.parametrize("name", ["add", "add alpha", "sub", "sub alpha", "mul", "div",
                                  "div floor"])
def test_number_input_graph(name):
    # The number is no graph input: the node has a None edge for it, as PyTorch's.
    def run(m):
        x = m.ones(2, requires_grad=True)
        return graph_tree(CASES[name](m, x).grad_fn)
    check(run)


RESULTS = {
    "two ints": lambda m: m.mul(2, 3),
    "int float": lambda m: m.add(2, 3.5),
    "float int": lambda m: m.add(2.5, 3),
    "bool int": lambda m: m.add(True, 2),
    "int tensor": lambda m: m.add(2, m.tensor([1, 2]), alpha=2),
    "float into int tensor": lambda m: m.add(2.5, m.tensor([1, 2])),
    "into float16": lambda m: m.add(2.5, m.ones(2, dtype=m.float16)),
    "into 0-dim int32": lambda m: m.add(2, m.tensor(3, dtype=m.int32)),
    "div ints": lambda m: m.div(2, m.tensor([4, 5])),
    "div trunc ints": lambda m: m.div(7, m.tensor([2, 3]), rounding_mode="trunc"),
    "floor_divide": lambda m: m.floor_divide(7, m.tensor([2.0, -3.0])),
    "remainder": lambda m: m.remainder(2.5, m.tensor([2, 3])),
    "remainder int": lambda m: m.remainder(-7, m.tensor([2, 3])),
    "out": lambda m: m.add(2, m.ones(2), out=m.empty(2)),
    "float64 precision": lambda m: m.sub(0.1, m.zeros(2, dtype=m.float64)),
}


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_number_input_results(name):
    check(RESULTS[name])


ERRORS = {
    "sub bool": lambda m: m.sub(True, m.ones(2)),
    "string": lambda m: m.add("a", m.ones(2)),
    "list": lambda m: m.mul([1.0], m.ones(2)),
    "out requires grad": lambda m: m.add(2, m.ones(2, requires_grad=True), out=m.empty(2)),
    "alpha float into int": lambda m: m.add(2, m.tensor([1]), alpha=0.5),
    "alpha bool": lambda m: m.add(2, m.tensor([1.0]), alpha=True),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_number_input_errors(name):
    check_error(ERRORS[name])


@pytest.mark.parametrize("name", ["maximum", "atan2", "fmod", "eq"])
def test_other_ops_still_want_a_tensor(name):
    # Only the ops PyTorch's parser lets take a number as input do so.
    import conftest
    with pytest.raises(TypeError):
        getattr(conftest.G, name)(2, conftest.G.ones(2))
