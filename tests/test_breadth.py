"""Issue 24's aliases and composites that return no differentiable tensor, against PyTorch:
is_* predicates, new_* factories and Tensor.new, alias identity, in-place comparisons."""

import numpy as np
import pytest
from conftest import G, assert_same_error, assert_same_values


def _pair(m, data, dtype="float32"):
    return m.tensor(np.asarray(data).tolist(), dtype=getattr(m, dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "bool", "float16"])
def test_predicates(torch, dtype):
    for m in (G, torch):
        x = _pair(m, [1, 0, 1], dtype)
        got = (m.is_floating_point(x), m.is_complex(x), m.is_signed(x), x.is_signed(),
               x.is_complex(), m.is_same_size(x, x[:2]), x.is_same_size(x.clone()),
               m.is_nonzero(x[:1]), x[1:2].is_nonzero())
        if m is G:
            g_got = got
        else:
            assert g_got == got


@pytest.mark.parametrize("data", [[], [1.0, 2.0]])
def test_is_nonzero_errors(torch, data):
    assert_same_error(lambda: G.tensor(data).is_nonzero(), lambda: torch.tensor(data).is_nonzero())


def test_is_same_size_type_error(torch):
    assert_same_error(lambda: G.is_same_size(G.ones(2), 3),
                      lambda: torch.is_same_size(torch.ones(2), 3))


# (call, values comparable): new_empty and new(sizes) are uninitialized in PyTorch.
@pytest.mark.parametrize("call,values", [
    (lambda m, x: x.new_empty(2, 3), False),
    (lambda m, x: x.new_empty((2,), dtype=m.int64), False),
    (lambda m, x: x.new_full((2, 2), 3.5), True),
    (lambda m, x: x.new_full([3], 7, dtype=m.int64), True),
    (lambda m, x: x.new_zeros((2,), dtype=m.float64), True),
    (lambda m, x: x.new_zeros(size=(2,), dtype=m.int64), True),
    (lambda m, x: x.new_ones(size=[3]), True),
    (lambda m, x: x.new_ones(2, 3, requires_grad=True), True),
    (lambda m, x: x.new(), True),
    (lambda m, x: x.new(2, 3), False),
    (lambda m, x: x.new([1, 2, 3]), True),
    (lambda m, x: x.new(m.Size([2])), False),
])
def test_new_factories(torch, call, values):
    g = call(G, G.ones(2, dtype=G.float64))
    t = call(torch, torch.ones(2, dtype=torch.float64))
    assert tuple(g.shape) == tuple(t.shape)
    assert str(g.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    assert g.requires_grad == t.requires_grad
    if values:
        assert_same_values(g.detach(), t.detach())


def test_new_from_tensor_is_alias(torch):
    x, y = G.ones(2), G.zeros(3)
    assert x.new(y) is y


def test_positive_returns_self():
    x = G.ones(3, requires_grad=True)
    assert G.positive(x) is x and x.positive() is x


@pytest.mark.parametrize("name", ["eq_", "ne_", "lt_", "le_", "gt_", "ge_", "greater_",
                                  "greater_equal_", "less_", "less_equal_", "not_equal_"])
def test_inplace_compare_returns_self(torch, name):
    for m in (G, torch):
        x = m.tensor([1.0, 2.0, 3.0])
        y = getattr(x, name)(2.0)
        assert y is x
        if m is G:
            g_vals = x.tolist()
        else:
            assert g_vals == x.tolist()


@pytest.mark.parametrize("name,args", [
    ("negative_", ()), ("square_", ()), ("zero_", ()), ("fill_", (2.5,)), ("detach_", ()),
])
def test_inplace_functions(torch, name, args):
    for m in (G, torch):
        x = m.tensor([1.0, -2.0, 3.0])
        y = getattr(m, name)(x, *args)
        assert y is x
        if m is G:
            g_vals = x.tolist()
        else:
            assert g_vals == x.tolist()


def test_get_device(torch):
    assert G.ones(2).get_device() == torch.ones(2).get_device() == -1
    assert G.get_device(G.ones(2)) == -1
