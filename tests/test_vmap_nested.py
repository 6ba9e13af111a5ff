"""Transforms over several vmap levels at once, against `torch.func`: `vmap(vmap(grad(f)))`
(in_dims mixing, a closure over an outer level's tensor, has_aux), `vmap(vmap(vjp))`,
`vmap(jacrev)`, `vmap(vmap(jacrev))`, `vmap(hessian)`, `vmap(jacfwd(jacrev))`,
`vmap(jacfwd(jacfwd))` (and `jacfwd(jacfwd)`, whose inner vmap is one), per-model
per-sample gradients of a module: one batched pass (no per-sample fallback), same values."""

import numpy as np
import pytest
from conftest import G

from gradrs import _vmap

_rng = np.random.default_rng(11)
A = _rng.standard_normal((2, 3, 4))
B = _rng.standard_normal((3, 4))
C = _rng.standard_normal((2, 4))
D = _rng.standard_normal((2, 3))


@pytest.fixture
def batched_only(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("vmap fell back to a per-sample loop")
    monkeypatch.setattr(_vmap, "_loop_call", refuse)
    monkeypatch.setattr(_vmap, "_per_sample", refuse)


def _loss(m):
    return lambda x, y: ((x.sin() * y).sum() + (x ** 2).mean()) * y.sum()


def _model_grads(m):
    m.manual_seed(0)
    net = m.nn.Sequential(m.nn.Linear(4, 5), m.nn.Tanh(), m.nn.Linear(5, 1)).double()
    params = {k: v.detach() for k, v in net.named_parameters()}
    # two ensembles of parameters (a scaled copy), per-sample gradients for each
    stacked = {k: m.stack([v, v * 0.5]) for k, v in params.items()}

    def loss(p, x):
        return m.func.functional_call(net, p, (x,)).sum() ** 2

    per_sample = m.func.vmap(m.func.grad(loss), in_dims=(None, 0))
    return m.func.vmap(per_sample, in_dims=(0, None))(stacked, m.tensor(B))


CASES = {
    "vmap(vmap(grad))": lambda m: m.func.vmap(m.func.vmap(m.func.grad(_loss(m))))(
        m.tensor(A), m.tensor(A) * 2),
    "vmap(vmap(grad)) in_dims": lambda m: m.func.vmap(
        m.func.vmap(m.func.grad(_loss(m)), in_dims=(0, None)), in_dims=(0, None))(
            m.tensor(A), m.tensor(B[0])),
    "vmap(vmap(grad)) inner unbatched arg": lambda m: m.func.vmap(
        m.func.vmap(m.func.grad(_loss(m), argnums=1), in_dims=(None, 0)), in_dims=(0, None))(
            m.tensor(C), m.tensor(B)),
    "vmap(vmap(grad)) closure": lambda m: m.func.vmap(
        lambda y: m.func.vmap(m.func.grad(lambda x: _loss(m)(x, y)))(m.tensor(B)))(
            m.tensor(C)),
    "vmap(vmap(grad)) has_aux": lambda m: m.func.vmap(m.func.vmap(m.func.grad(
        lambda x: (x.sin().sum(), x.cos()), has_aux=True)))(m.tensor(A)),
    "vmap(vmap(grad_and_value))": lambda m: m.func.vmap(m.func.vmap(
        m.func.grad_and_value(lambda x: (x ** 3).sum())))(m.tensor(A)),
    "vmap(vmap(vjp))": lambda m: m.func.vmap(m.func.vmap(
        lambda x, v: m.func.vjp(lambda a: a.exp() * a.sum(), x)[1](v)[0]))(
            m.tensor(A), m.tensor(A) + 1),
    "vmap(jacrev)": lambda m: m.func.vmap(m.func.jacrev(lambda x: x.sin() * x.sum()))(
        m.tensor(B)),
    "vmap(vmap(jacrev))": lambda m: m.func.vmap(m.func.vmap(
        m.func.jacrev(lambda x: x.sin() * x.sum())))(m.tensor(A)),
    "vmap(hessian)": lambda m: m.func.vmap(m.func.hessian(
        lambda x: (x.sin() * x).sum() * x.sum()))(m.tensor(D)),
    "vmap(jacfwd(jacrev))": lambda m: m.func.vmap(m.func.jacfwd(m.func.jacrev(
        lambda x: (x.cos() * x ** 2).sum())))(m.tensor(D)),
    "vmap(vmap(hessian))": lambda m: m.func.vmap(m.func.vmap(m.func.hessian(
        lambda x: (x.sin() * x ** 3).sum())))(m.tensor(A)),
    "ensemble per-sample grads": _model_grads,
    # a jvp inside a jvp inside vmap: the double-vjp trick on batched leaves
    "jacfwd(jacfwd)": lambda m: m.func.jacfwd(m.func.jacfwd(
        lambda x: (x.sin() * x).sum() * x.sum()))(m.tensor(D[0])),
    "vmap(jacfwd(jacfwd))": lambda m: m.func.vmap(m.func.jacfwd(m.func.jacfwd(
        lambda x: (x.sin() * x).sum() + (x[0] * x).exp().sum())))(m.tensor(D)),
    "vmap(jacfwd(jacfwd)) vector": lambda m: m.func.vmap(m.func.jacfwd(m.func.jacfwd(
        lambda x: x.tanh() * x[1])))(m.tensor(D)),
}


def _arrays(out):
    if isinstance(out, dict):
        return [a for k in sorted(out) for a in _arrays(out[k])]
    if isinstance(out, (tuple, list)):
        return [a for o in out for a in _arrays(o)]
    return [(tuple(out.shape), np.asarray(out.detach().tolist()))]


@pytest.mark.parametrize("name", list(CASES))
def test_nested_vs_torch(name, torch, batched_only):
    ours, theirs = _arrays(CASES[name](G)), _arrays(CASES[name](torch))
    assert [s for s, _ in ours] == [s for s, _ in theirs]
    for (_, a), (_, b) in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("op", ["exp", "tanh", "sigmoid", "sqrt", "reciprocal"])
def test_hessian_through_saved_outputs(op, torch):
    x = np.abs(A[0, 0]) + 0.5

    def run(m):
        return np.asarray(m.func.hessian(lambda v: getattr(v, op)().sum())(m.tensor(x)).tolist())

    np.testing.assert_allclose(run(G), run(torch), rtol=1e-10, atol=1e-12)


def test_nested_grad_of_an_outer_graph_is_still_correct(torch):
    # grad over vmap(vmap(grad)): the inputs belong to the outer graph (per-call fallback)
    def run(m):
        x = m.tensor(A[0, 0], requires_grad=True)
        inner = m.func.vmap(m.func.vmap(m.func.grad(lambda a: (a * x).sin().sum())))(
            m.tensor(A))
        (g,) = m.autograd.grad(inner.sum(), x)
        return np.asarray(g.tolist())

    np.testing.assert_allclose(run(G), run(torch), rtol=1e-10, atol=1e-12)
