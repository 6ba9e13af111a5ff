"""`Tensor.pow_` and `t **= x` against PyTorch: values, dtype rules, nodes, gradients, errors."""

from __future__ import annotations

import pytest

from conftest import G, norm, norm_g


def _outcome(M, fn):
    try:
        r = fn(M)
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return ("error", type(e).__name__, str(e))
    return ("value", str(r.dtype).split(".")[1], r.tolist())


CASES = {
    "float_number": lambda M: M.tensor([1.0, 2.0, 3.0]).pow_(2),
    "float_tensor": lambda M: M.tensor([1.0, 2.0, 3.0]).pow_(M.tensor([2.0, 0.5, 1.0])),
    "float_broadcast": lambda M: M.tensor([[1.0, 2.0], [3.0, 4.0]]).pow_(M.tensor([2.0, 3.0])),
    "int_number": lambda M: M.tensor([1, 2, 3]).pow_(2),
    "int_by_float": lambda M: M.tensor([1, 2, 3]).pow_(1.5),
    "int_by_float_tensor": lambda M: M.tensor([1, 2, 3]).pow_(M.tensor([1.5])),
    "bool_exponent": lambda M: M.tensor([1.0, 2.0]).pow_(True),
    "str": lambda M: M.tensor([1.0]).pow_("a"),
    "list": lambda M: M.tensor([1.0]).pow_([1, 2]),
    "none": lambda M: M.tensor([1.0]).pow_(None),
    "method_str": lambda M: M.tensor([1.0]).pow("a"),
    "ipow": lambda M: _ipow(M.tensor([1.0, 2.0, 3.0]), 3),
    "ipow_tensor": lambda M: _ipow(M.tensor([1.0, 2.0, 3.0]), M.tensor([2.0])),
    "ipow_int_by_float": lambda M: _ipow(M.tensor([1, 2, 3]), 0.5),
    "ipow_str": lambda M: _ipow(M.tensor([1.0]), "a"),
    "float_power_": lambda M: M.tensor([1.0, 2.0], dtype=M.float64).float_power_(2),
}


def _ipow(t, e):
    x = t
    x **= e
    assert x is t  # written in place, never rebound
    return t


@pytest.mark.parametrize("name", list(CASES))
def test_pow_(torch, name):
    g, t = _outcome(G, CASES[name]), _outcome(torch, CASES[name])
    if t[0] == "error":
        assert g[0] == "error", f"gradrs gave {g}, PyTorch raised {t}"
        assert (g[1], norm_g(g[2])) == (t[1], norm(t[2]))
    else:
        assert g == t


@pytest.mark.parametrize("tensor_exponent", [False, True])
def test_pow_grad(torch, tensor_exponent):
    def run(M):
        a = M.tensor([1.5, 2.0, 3.0], requires_grad=True)
        e = M.tensor([2.0, 0.5, 3.0], requires_grad=True) if tensor_exponent else 3
        x = a * 1
        x.pow_(e)
        node = type(x.grad_fn).__name__
        x.sum().backward()
        ge = e.grad.tolist() if tensor_exponent else None
        return node, x.tolist(), a.grad.tolist(), ge

    g, t = run(G), run(torch)
    assert g[0] == t[0]
    for u, v in zip(g[1:], t[1:]):
        assert (u is None and v is None) or u == pytest.approx(v, rel=1e-6)


def test_pow_leaf_refused(torch):
    def run(M):
        a = M.ones(2, requires_grad=True)
        try:
            a.pow_(2)
        except RuntimeError as e:
            return str(e)

    assert norm_g(run(G)) == norm(run(torch))


def test_pow_version_bump():
    x = G.ones(2)
    v = x._version
    x.pow_(2)
    assert x._version == v + 1
