"""`out=` arguments of the functional forms, against PyTorch: values written into `out`, the
returned object is `out`, one version bump, resizing (with PyTorch's deprecation warning when
`out` had elements), casting rules, and the autograd errors."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import G, assert_same_values, check_error, check_warning, need_torch

pytestmark = pytest.mark.usefixtures("restore_grad_mode")

A = np.array([[0.5, -1.25, 2.0], [1.5, 0.25, -0.75]])
B = np.array([[1.0, 2.0, -0.5], [0.75, -1.5, 1.25]])
P = np.abs(A) + 0.1


def _t(m, a, dtype=None, rg=False):
    return m.tensor(a, dtype=dtype or m.float32, requires_grad=rg)


# name -> fn(m, out, rg): the call with `out=` (inputs require grad when `rg`).
CALLS = {
    "add": lambda m, o, rg=False: m.add(_t(m, A, rg=rg), _t(m, B), alpha=2, out=o),
    "sub": lambda m, o, rg=False: m.sub(_t(m, A, rg=rg), 1.5, out=o),
    "mul": lambda m, o, rg=False: m.mul(_t(m, A, rg=rg), _t(m, B[0]), out=o),
    "div": lambda m, o, rg=False: m.div(_t(m, A, rg=rg), _t(m, B), out=o),
    "matmul": lambda m, o, rg=False: m.matmul(_t(m, A, rg=rg), _t(m, B.T), out=o),
    "mm": lambda m, o, rg=False: m.mm(_t(m, A, rg=rg), _t(m, B.T), out=o),
    "bmm": lambda m, o, rg=False: m.bmm(_t(m, A[None], rg=rg), _t(m, B.T[None]), out=o),
    "exp": lambda m, o, rg=False: m.exp(_t(m, A, rg=rg), out=o),
    "log": lambda m, o, rg=False: m.log(_t(m, P, rg=rg), out=o),
    "sqrt": lambda m, o, rg=False: m.sqrt(_t(m, P, rg=rg), out=o),
    "abs": lambda m, o, rg=False: m.abs(_t(m, A, rg=rg), out=o),
    "neg": lambda m, o, rg=False: m.neg(_t(m, A, rg=rg), out=o),
    "sin": lambda m, o, rg=False: m.sin(_t(m, A, rg=rg), out=o),
    "cos": lambda m, o, rg=False: m.cos(_t(m, A, rg=rg), out=o),
    "tanh": lambda m, o, rg=False: m.tanh(_t(m, A, rg=rg), out=o),
    "sigmoid": lambda m, o, rg=False: m.sigmoid(_t(m, A, rg=rg), out=o),
    "pow": lambda m, o, rg=False: m.pow(_t(m, P, rg=rg), 1.5, out=o),
    "pow_scalar_base": lambda m, o, rg=False: m.pow(2.0, _t(m, A, rg=rg), out=o),
    "clamp": lambda m, o, rg=False: m.clamp(_t(m, A, rg=rg), -0.5, 0.5, out=o),
    "sum": lambda m, o, rg=False: m.sum(_t(m, A, rg=rg), 1, out=o),
    "mean": lambda m, o, rg=False: m.mean(_t(m, A, rg=rg), 0, keepdim=True, out=o),
    "cat": lambda m, o, rg=False: m.cat([_t(m, A, rg=rg), _t(m, B)], 1, out=o),
    "stack": lambda m, o, rg=False: m.stack([_t(m, A), _t(m, B, rg=rg)], out=o),
    "where": lambda m, o, rg=False: m.where(_t(m, A) > 0, _t(m, A, rg=rg), _t(m, B), out=o),
    "maximum": lambda m, o, rg=False: m.maximum(_t(m, A, rg=rg), _t(m, B), out=o),
    "cumsum": lambda m, o, rg=False: m.cumsum(_t(m, A, rg=rg), 1, out=o),
    "gt": lambda m, o, rg=False: m.gt(_t(m, A, rg=rg), 0.3, out=o),
    "amax": lambda m, o, rg=False: m.amax(_t(m, A, rg=rg), 1, out=o),
}

DTYPE_OF = {"gt": "bool"}


def _empty(m, name, shape=(0,)):
    return m.zeros(*shape, dtype=getattr(m, DTYPE_OF.get(name, "float32")))


@pytest.mark.parametrize("name", list(CALLS))
def test_out_values(name):
    ref = need_torch()
    results = []
    for m in (G, ref):
        o = _empty(m, name)
        v0 = o._version
        r = CALLS[name](m, o)
        results.append((r is o, o._version - v0, o))
    (gi, gv, go), (ti, tv, to) = results
    assert (gi, gv) == (ti, tv)
    assert_same_values(go, to)


@pytest.mark.parametrize("name", ["add", "exp", "sum", "cat", "matmul"])
def test_out_same_shape_keeps_memory(name):
    ref = need_torch()
    for m in (G, ref):
        shape = tuple(CALLS[name](m, _empty(m, name)).shape)
        o = m.zeros(*shape)
        ptr, v0 = o.data_ptr(), o._version
        assert CALLS[name](m, o) is o
        assert o.data_ptr() == ptr and o._version == v0 + 1


@pytest.mark.parametrize("name", ["add", "sum", "stack"])
def test_out_resize_warning(name):
    check_warning(lambda m: CALLS[name](m, m.zeros(5)).shape)


def test_out_no_warning_for_empty_out():
    check_warning(lambda m: CALLS["add"](m, m.zeros(0)).shape)


@pytest.mark.parametrize("name", ["add", "exp", "div", "mean"])
def test_out_cast_error(name):
    shape = (1, 3) if name == "mean" else (2, 3)
    check_error(lambda m: CALLS[name](m, m.zeros(*shape, dtype=m.int64)))


def test_out_casts_when_allowed():
    ref = need_torch()
    for m in (G, ref):
        o = m.zeros(2, 3, dtype=m.float64)
        m.add(m.ones(2, 3, dtype=m.int64), 1, out=o)
        assert o.dtype == m.float64 and o.tolist() == [[2.0] * 3] * 2
        b = m.zeros(2, 3)
        m.gt(m.ones(2, 3), 0.5, out=b)
        assert b.tolist() == [[1.0] * 3] * 2
    check_error(lambda m: m.add(m.ones(2), m.ones(2), out=m.zeros(2, dtype=m.bool)))
    check_error(lambda m: m.add(m.ones(2, dtype=m.int64), 1, out=m.zeros(2, dtype=m.bool)))


@pytest.mark.parametrize("name", [n for n in CALLS if n != "gt"])
def test_out_input_requires_grad(name):
    check_error(lambda m: CALLS[name](m, _empty(m, name), rg=True))


def test_out_non_differentiable_ops_allow_grad_inputs():
    ref = need_torch()
    for m in (G, ref):
        assert CALLS["gt"](m, m.zeros(0, dtype=m.bool), rg=True).shape == (2, 3)
        assert m.argmax(_t(m, A, rg=True), 1, out=m.zeros(0, dtype=m.int64)).tolist() == [2, 0]
    check_error(lambda m: m.take_along_dim(_t(m, A, rg=True), m.tensor([[0], [1]]), 1,
                                           out=m.zeros(0)))


@pytest.mark.parametrize("name", ["add", "exp", "sum", "cat", "where"])
def test_out_requires_grad(name):
    check_error(lambda m: CALLS[name](m, m.zeros(0, requires_grad=True)))
    check_error(lambda m: CALLS[name](m, m.zeros(1, requires_grad=True) * 1))


def test_out_under_no_grad():
    ref = need_torch()
    for m in (G, ref):
        leaf = m.zeros(2, 3, requires_grad=True)
        with m.no_grad():
            r = CALLS["add"](m, leaf, rg=True)
        assert r is leaf and leaf.requires_grad and leaf.is_leaf and leaf.grad_fn is None
        assert np.allclose(leaf.detach().numpy(), A + 2 * B)


def test_out_max_min_dim():
    ref = need_torch()
    got = []
    for m in (G, ref):
        v, i = m.zeros(0), m.zeros(0, dtype=m.int64)
        r = m.max(_t(m, A), 1, out=(v, i))
        assert type(r).__name__ == "max_out"
        assert r.values.data_ptr() == v.data_ptr() and r.indices.data_ptr() == i.data_ptr()
        r2 = m.min(_t(m, A), 0, keepdim=True, out=(m.zeros(0), m.zeros(0, dtype=m.int64)))
        got.append((v.tolist(), i.tolist(), r2.values.tolist(), r2.indices.tolist()))
    assert got[0] == got[1]
    check_error(lambda m: m.max(_t(m, A, rg=True), 1, out=(m.zeros(0), m.zeros(0, dtype=m.int64))))
