"""Forward mode meeting vmap and stride-0 tensors, against PyTorch: `func.jvp` / `jacfwd`
under one or two vmap levels (`vmap(jacfwd(f))`, `vmap(vmap(jvp))`, a closure over the batch)
run batched; `forward_ad.make_dual` / `unpack_dual` handed BatchedTensors raise functorch's
"Batching rule not implemented" error; an expanded primal whose tangent must be copied into
its layout raises PyTorch's internal-overlap error (a tangent of the same layout is kept)."""

import numpy as np
import pytest
from conftest import G, norm, norm_g

from gradrs import _vmap

_rng = np.random.default_rng(3)
W = _rng.standard_normal((4, 4))
TS = _rng.standard_normal((3, 4))
X = _rng.standard_normal((2, 3, 4))


@pytest.fixture
def batched_only(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("vmap fell back to a per-sample loop")
    monkeypatch.setattr(_vmap, "_loop_call", refuse)
    monkeypatch.setattr(_vmap, "_per_sample", refuse)


def _f(m):
    w = m.tensor(W)
    return lambda v: (w @ v).sin() * v.sum()


VALUES = {
    "vmap(jacfwd)": lambda m: m.func.vmap(m.func.jacfwd(_f(m)))(m.tensor(TS)),
    "vmap(jvp) unbatched primal": lambda m: m.func.vmap(
        lambda t: m.func.jvp(_f(m), (m.tensor(TS[0]),), (t,))[1])(m.tensor(TS)),
    "vmap(jvp) unbatched tangent": lambda m: m.func.vmap(
        lambda p: m.func.jvp(_f(m), (p,), (m.tensor(TS[0]),))[1])(m.tensor(TS)),
    "vmap(vmap(jvp))": lambda m: m.func.vmap(m.func.vmap(
        lambda x: m.func.jvp(m.sin, (x,), (x * 2,))[1]))(m.tensor(X)),
    "vmap(jvp) closure": lambda m: m.func.vmap(lambda y: m.func.jvp(
        lambda x: x * y, (m.tensor(TS[0]),), (m.tensor(TS[1]),))[1])(m.tensor(TS)),
    "vmap(vmap(jacfwd))": lambda m: m.func.vmap(m.func.vmap(m.func.jacfwd(_f(m))))(
        m.tensor(X)),
}


@pytest.mark.parametrize("name", list(VALUES))
def test_batched_forward_mode_vs_torch(name, torch, batched_only):
    ours, theirs = VALUES[name](G), VALUES[name](torch)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(np.asarray(ours.tolist()), theirs.numpy(), rtol=1e-10,
                               atol=1e-12)


def _dual(m, p, t):
    fwAD = m.autograd.forward_ad
    with fwAD.dual_level():
        return fwAD.unpack_dual(fwAD.make_dual(p, t) * 2)


ERRORS = {
    "make_dual in vmap": lambda m: m.func.vmap(lambda v: _dual(m, v, v))(m.tensor(TS)),
    "make_dual in vmap, batched tangent": lambda m: m.func.vmap(
        lambda v: _dual(m, m.tensor(TS[0]), v))(m.tensor(TS)),
    "make_dual in vmap, integer": lambda m: m.func.vmap(lambda v: _dual(m, v, v))(
        m.ones(2, 3, dtype=m.long)),
    "unpack_dual in vmap": lambda m: m.func.vmap(
        lambda v: _unpack_in_level(m, v))(m.tensor(TS)),
    "expanded primal": lambda m: _dual(m, m.ones(1, dtype=m.float64).expand(4),
                                       m.arange(4, dtype=m.float64)),
    "expanded primal 2-d": lambda m: _dual(m, m.ones(3, 1, dtype=m.float64).expand(3, 4),
                                           m.ones(3, 4, dtype=m.float64)),
    "jvp of an expanded primal": lambda m: m.func.jvp(
        lambda a: a * 2, (m.ones(1, dtype=m.float64).expand(4),),
        (m.arange(4, dtype=m.float64),)),
    "jacfwd of an expanded input": lambda m: m.func.jacfwd(m.sin)(
        m.ones(1, dtype=m.float64).expand(4)),
}


def _unpack_in_level(m, v):
    with m.autograd.forward_ad.dual_level():
        return m.autograd.forward_ad.unpack_dual(v * 2).primal


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_torch(name, torch):
    with pytest.raises(Exception) as ours:
        ERRORS[name](G)
    with pytest.raises(Exception) as theirs:
        ERRORS[name](torch)
    assert type(ours.value) is type(theirs.value)
    assert norm_g(ours.value) == norm(theirs.value)


@pytest.mark.parametrize("kind", ["same layout", "transposed"])
def test_make_dual_layouts_vs_torch(kind, torch):
    def make(m):
        if kind == "same layout":  # an expanded tangent of the expanded primal's layout: kept
            return (m.ones(1, dtype=m.float64).expand(4),
                    m.full((1,), 3.0, dtype=m.float64).expand(4))
        return (m.ones(3, 4, dtype=m.float64).t(), m.arange(12, dtype=m.float64).reshape(4, 3))

    def tangent(m):
        fwAD = m.autograd.forward_ad
        with fwAD.dual_level():
            t = fwAD.unpack_dual(fwAD.make_dual(*make(m))).tangent
            return t.tolist(), t.stride()

    assert tangent(G) == tangent(torch)
