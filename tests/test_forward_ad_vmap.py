"""Forward mode meeting vmap and stride-0 tensors, against PyTorch: `func.jvp` / `jacfwd`
under one or two vmap levels (`vmap(jacfwd(f))`, `vmap(vmap(jvp))`, a closure over the batch)
run batched; `forward_ad.make_dual` / `unpack_dual` handed BatchedTensors raise functorch's
"Batching rule not implemented" error; an expanded primal whose tangent must be copied into
its layout raises PyTorch's internal-overlap error (a tangent of the same layout is kept).
A jvp inside a jvp (`jacfwd(jacfwd(f))`, `jvp` of `jvp`, third derivatives, `jacfwd(hessian)`)
against torch.func: values, requires_grad of every result, strict and the user-level error."""

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


_NX = np.random.default_rng(4).standard_normal((3,))
_NY = np.random.default_rng(5).standard_normal((3,))


def _nf(a):
    return a.sin() * a.sum() + a ** 3


NESTED = {
    "jvp(jvp)": lambda m: m.func.jvp(lambda a: m.func.jvp(_nf, (a,), (m.tensor(_NY),))[1],
                                     (m.tensor(_NX),), (m.tensor(_NY) * 2,)),
    "jacfwd(jacfwd)": lambda m: m.func.jacfwd(m.func.jacfwd(_nf))(m.tensor(_NX)),
    "jacfwd(jacfwd) argnums": lambda m: m.func.jacfwd(
        m.func.jacfwd(lambda a, b: (a * b.cos()).sum() * a, argnums=1), argnums=(0, 1))(
            m.tensor(_NX), m.tensor(_NY)),
    "third derivative": lambda m: m.func.jacfwd(m.func.jacfwd(m.func.jacfwd(
        lambda a: (a ** 4 * a.sum()).sum())))(m.tensor(_NX)),
    "jacfwd(hessian)": lambda m: m.func.jacfwd(m.func.hessian(
        lambda a: (a.sin() * a ** 2).sum()))(m.tensor(_NX)),
    "jacfwd(jacfwd) has_aux": lambda m: m.func.jacfwd(m.func.jacfwd(
        lambda a: (_nf(a), a.sum()), has_aux=True), has_aux=True)(m.tensor(_NX)),
    "jvp(jvp) independent": lambda m: m.func.jvp(lambda a: m.func.jvp(
        lambda b: m.tensor(_NY) * 2, (a,), (m.tensor(_NY),))[1], (m.tensor(_NX),),
        (m.tensor(_NY),)),
    "jacrev(jacfwd)": lambda m: m.func.jacrev(m.func.jacfwd(_nf))(m.tensor(_NX)),
}


def _leaves(out):
    if isinstance(out, (tuple, list)):
        return [a for o in out for a in _leaves(o)]
    return [(tuple(out.shape), out.requires_grad, np.asarray(out.detach().tolist()))]


@pytest.mark.parametrize("name", list(NESTED))
def test_jvp_inside_jvp_vs_torch(name, torch):
    ours, theirs = _leaves(NESTED[name](G)), _leaves(NESTED[name](torch))
    assert [x[:2] for x in ours] == [x[:2] for x in theirs]
    for (_, _, a), (_, _, b) in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


NESTED_ERRORS = {
    "strict": lambda m: m.func.jvp(lambda a: m.func.jvp(
        lambda b: m.ones(3, dtype=m.float64), (a,), (m.tensor(_NY),), strict=True)[1],
        (m.tensor(_NX),), (m.tensor(_NY),)),
    "inside the user's dual level": lambda m: _jvp_in_user_level(m),
}


def _jvp_in_user_level(m):
    fwAD = m.autograd.forward_ad
    with fwAD.dual_level():
        d = fwAD.make_dual(m.tensor(_NX), m.tensor(_NY))
        return m.func.jvp(_nf, (d,), (m.ones(3, dtype=m.float64),))


@pytest.mark.parametrize("name", list(NESTED_ERRORS))
def test_jvp_inside_jvp_errors_as_torch(name, torch):
    with pytest.raises(Exception) as ours:
        NESTED_ERRORS[name](G)
    with pytest.raises(Exception) as theirs:
        NESTED_ERRORS[name](torch)
    assert type(ours.value) is type(theirs.value)
    assert norm_g(ours.value) == norm(theirs.value)
