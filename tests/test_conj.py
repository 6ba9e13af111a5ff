"""conj / mH / H / adjoint / real / imag and friends on real tensors, against torch 2.13."""

from __future__ import annotations

import pytest
from conftest import G, check_error, check_warning


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
def test_adjoints_of_a_scalar_warn_and_are_itself(torch, get):
    check_warning(lambda m: get(m.tensor(1.0)))
    x = G.tensor(1.0)
    with pytest.warns(UserWarning):
        assert get(x) is x


def test_mT_is_still_the_transpose(torch):
    for m in (G, torch):
        t = m.ones(2, 3, 4, requires_grad=True)
        assert t.mT.shape == (2, 4, 3) and type(t.mT.grad_fn).__name__ == "TransposeBackward0"
