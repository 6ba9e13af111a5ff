"""conj / mH / H / adjoint / real / imag and friends on real tensors, against torch 2.13."""

from __future__ import annotations

import ast
import math
import subprocess
import sys
import warnings

import pytest
from conftest import G, check_error, norm, norm_g


@pytest.mark.parametrize("shape", [(2, 3), (4, 2, 3)])
def test_adjoints_are_transposes(torch, shape):
    for m in (G, torch):
        t = m.ones(shape, dtype=m.float64, requires_grad=True)
        for a in (t.mH, t.adjoint(), m.adjoint(t)) + ((t.H,) if len(shape) == 2 else ()):
            assert a.shape == t.transpose(-2, -1).shape
            assert type(a.grad_fn).__name__ == "TransposeBackward0"
    g = G.arange(6.0).reshape(2, 3)
    assert g.mH.tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]


def test_conjugates_of_a_real_tensor_are_itself(torch):
    for m in (G, torch):
        for t in (m.ones(2, 3, requires_grad=True), m.arange(3), m.ones(2, dtype=m.bool)):
            assert t.conj() is t and m.conj(t) is t
            assert t.resolve_conj() is t and m.resolve_conj(t) is t
            assert t.resolve_neg() is t and m.resolve_neg(t) is t
            assert t.conj_physical() is t and m.conj_physical(t) is t
            assert t.real is t and m.real(t) is t
            assert t.is_conj() is False and m.is_conj(t) is False
            assert t.is_neg() is False and m.is_neg(t) is False
        x = m.ones(2)
        assert x.conj_physical_() is x
        out = m.empty(2)
        assert m.conj_physical(m.tensor([1.0, -2.0]), out=out) is out
        assert out.tolist() == [1.0, -2.0]


def test_errors(torch):
    check_error(lambda m: m.ones(3).mH)
    check_error(lambda m: m.ones(3).mT)
    check_error(lambda m: m.ones(3).H)
    check_error(lambda m: m.ones(2, 2, 2).H)
    check_error(lambda m: m.ones(3).adjoint())
    check_error(lambda m: m.ones(3).imag)
    check_error(lambda m: m.imag(m.ones(3)))
    for name in ("conj", "real", "imag", "adjoint", "resolve_conj", "is_conj", "conj_physical"):
        check_error(lambda m, name=name: getattr(m, name)([1.0]))


@pytest.mark.parametrize("get", [lambda x: x.H, lambda x: x.mH, lambda x: x.mT,
                                 lambda x: x.adjoint()])
def test_adjoints_of_a_scalar_are_itself(torch, get):
    for m in (G, torch):
        x = m.tensor(1.0, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert get(x) is x and get(x).grad_fn is None


# Each access below, twice; PyTorch's warnings are TORCH_WARN_ONCE (one per process and call
# site), so they are compared in fresh processes.
_WARN_ONCE = """
import sys, warnings
m = __import__(sys.argv[1])
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for get in (lambda: m.ones(3).T, lambda: m.ones(2, 3, 4).T, lambda: m.ones(()).T,
                lambda: m.ones(2, 3).T, lambda: m.ones(()).mT, lambda: m.ones(()).mH,
                lambda: m.ones(()).H, lambda: m.ones(()).adjoint(), lambda: m.adjoint(m.ones(()))):
        get(), get()
        print([(w.category.__name__, str(w.message)) for w in caught])
        caught.clear()
"""


def _warnings_once(torch):
    def run(name):
        r = subprocess.run([sys.executable, "-c", _WARN_ONCE, name], capture_output=True,
                           text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        return [ast.literal_eval(line) for line in r.stdout.splitlines()]
    got, want = run(G.__name__), run("torch")
    return ([[(c, norm_g(t)) for c, t in ws] for ws in got],
            [[(c, norm(t)) for c, t in ws] for ws in want])


def test_deprecation_warnings_once_per_process(torch):
    got, want = _warnings_once(torch)
    assert got == want
    assert [len(ws) for ws in want] == [1, 0, 1, 0, 1, 1, 1, 1, 0]


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (4, 2, 3)])
@pytest.mark.parametrize("attr", ["mT", "mH", "H", "T"])
def test_transposes_against_torch(torch, shape, attr):
    def get(m):
        x = m.arange(float(max(1, math.prod(shape)))).reshape(shape).requires_grad_()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = getattr(x, attr)
        return x, y
    try:
        tx, ty = get(torch)
    except RuntimeError:
        check_error(lambda m: get(m)[1])
        return
    gx, gy = get(G)
    assert gy.tolist() == ty.tolist() and gy.stride() == ty.stride()
    assert (gy is gx) == (ty is tx) and (gy._base is gx) == (ty._base is tx)
    assert type(gy.grad_fn).__name__ == type(ty.grad_fn).__name__
    if gy.grad_fn is not None:
        gy.sum().backward()
        ty.sum().backward()
        assert gx.grad.tolist() == tx.grad.tolist()


def test_mT_is_still_the_transpose(torch):
    for m in (G, torch):
        t = m.ones(2, 3, 4, requires_grad=True)
        assert t.mT.shape == (2, 4, 3) and type(t.mT.grad_fn).__name__ == "TransposeBackward0"
