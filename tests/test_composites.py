"""gradrs.combinations, trapezoid / trapz / cumulative_trapezoid and svd_lowrank / pca_lowrank
(ops found missing by tests/programs/) vs torch 2.13: values, dtypes, grad_fn, gradients,
empty and broadcast cases, errors."""

import numpy as np
import pytest

from conftest import G, check, check_error, run_both, to_np


def _v(M, dtype="float32", grad=False):
    return M.tensor([1.0, 2.0, 4.0, 7.0], dtype=getattr(M, dtype), requires_grad=grad)


@pytest.mark.parametrize("make", [
    lambda M: M.combinations(_v(M, grad=True)),
    lambda M: M.combinations(_v(M), r=3),
    lambda M: M.combinations(_v(M), 1),
    lambda M: M.combinations(_v(M), 0),
    lambda M: M.combinations(_v(M, "float64"), r=0),
    lambda M: M.combinations(_v(M), r=5),
    lambda M: M.combinations(_v(M)[:1]),
    lambda M: M.combinations(M.tensor([])),
    lambda M: M.combinations(M.tensor([1, 2, 3]), 2, True),
    lambda M: M.combinations(M.tensor([1, 2, 3]), with_replacement=True, r=3),
    lambda M: M.combinations(M.tensor([True, False])),
    lambda M: M.combinations(input=M.tensor([5, 6])),
])
def test_combinations(make):
    check(make)


def test_combinations_gradient(torch):
    def run(M):
        a = _v(M, grad=True)
        (M.combinations(a, 3) * M.arange(3.0)).sum().backward()
        return to_np(a.grad)

    g, t = run_both(run)
    np.testing.assert_array_equal(g, t)


@pytest.mark.parametrize("make", [
    lambda M: M.combinations(M.ones(2, 2)),
    lambda M: M.combinations(M.tensor(1.0)),
    lambda M: M.combinations(_v(M), r=-1),
    lambda M: M.combinations(_v(M), 2.0),
    lambda M: M.combinations(_v(M), r=True),
    lambda M: M.combinations(_v(M), 2, 1),
    lambda M: M.combinations(_v(M), foo=1),
    lambda M: M.combinations([1, 2]),
])
def test_combinations_errors(make):
    check_error(make)


def _x(M, dtype="float32", grad=False):
    return M.tensor([0.0, 1.0, 3.0, 4.5], dtype=getattr(M, dtype), requires_grad=grad)


@pytest.mark.parametrize("make", [
    lambda M: M.trapezoid(_v(M, grad=True), _x(M, grad=True)),
    lambda M: M.trapezoid(_v(M, grad=True)),
    lambda M: M.trapezoid(_v(M), dx=0.5),
    lambda M: M.trapezoid(_v(M), dx=M.tensor(2.0)),
    lambda M: M.trapezoid(_v(M), _x(M), dim=0),
    lambda M: M.trapezoid(y=_v(M), x=_x(M)),
    lambda M: M.trapz(_v(M, grad=True), _x(M)),
    lambda M: M.trapz(_v(M), dx=2),
    lambda M: M.trapz(_v(M)),
    lambda M: M.cumulative_trapezoid(_v(M, grad=True), _x(M)),
    lambda M: M.cumulative_trapezoid(_v(M, grad=True)),
    lambda M: M.cumulative_trapezoid(_v(M), dx=3),
    lambda M: M.trapezoid(M.arange(12.0).view(3, 4), M.tensor([1.0, 3.0, 4.0]), dim=0),
    lambda M: M.trapezoid(M.arange(12.0).view(3, 4), M.arange(12.0).view(3, 4).sqrt(), dim=0),
    lambda M: M.trapezoid(M.arange(24.0).view(2, 3, 4), M.arange(12.0).view(3, 4).exp()),
    lambda M: M.cumulative_trapezoid(M.arange(12.0).view(3, 4), M.tensor([1.0, 3.0, 4.0]), dim=0),
    lambda M: M.trapezoid(M.arange(12.0).view(3, 4), dim=-2),
    lambda M: M.trapezoid(M.tensor([1, 2, 3])),
    lambda M: M.trapezoid(M.tensor([1, 2, 3]), dx=2),
    lambda M: M.trapezoid(M.tensor([1, 2, 3], dtype=M.int32), dx=2.5),
    lambda M: M.trapezoid(M.tensor([1, 2, 3]), M.tensor([1, 2, 5])),
    lambda M: M.trapezoid(_v(M, "float64"), _x(M)),
    lambda M: M.trapezoid(_v(M), M.tensor([1, 2, 5, 6])),
    lambda M: M.cumulative_trapezoid(M.tensor([1, 2, 3])),
    lambda M: M.trapezoid(M.tensor([])),
    lambda M: M.trapezoid(M.tensor([5.0])),
    lambda M: M.trapezoid(M.ones(0, 3, dtype=M.int32), dim=0),
    lambda M: M.trapezoid(M.ones(0, 3, dtype=M.int32), M.ones(0), dim=0),
    lambda M: M.cumulative_trapezoid(M.ones(0, 3, dtype=M.int32), dim=0),
    lambda M: M.cumulative_trapezoid(M.tensor([5.0])),
])
def test_trapezoid_family(make):
    check(make)


def test_trapezoid_gradients(torch):
    def run(M):
        y, x = _v(M, grad=True), _x(M, grad=True)
        (M.trapezoid(y, x) + M.cumulative_trapezoid(y, x).sum()
         + M.cumulative_trapezoid(y, dx=0.5).sum() + M.trapz(y, dx=3)).backward()
        return to_np(y.grad), to_np(x.grad)

    (gy, gx), (ty, tx) = run_both(run)
    np.testing.assert_allclose(gy, ty, rtol=1e-6)
    np.testing.assert_allclose(gx, tx, rtol=1e-6)


@pytest.mark.parametrize("make", [
    lambda M: M.trapezoid(_v(M), "a"),
    lambda M: M.trapz(_v(M), "a"),
    lambda M: M.cumulative_trapezoid(_v(M), "a"),
    lambda M: M.trapezoid(_v(M), _x(M), dx=1),
    lambda M: M.trapezoid(_v(M), 2.0),
    lambda M: M.trapezoid(M.tensor(1.0)),
    lambda M: M.trapezoid(_v(M), M.tensor([1.0, 2.0])),
    lambda M: M.cumulative_trapezoid(_v(M), M.tensor([1.0, 2.0])),
    lambda M: M.trapezoid(M.ones(3, dtype=M.bool)),
    lambda M: M.cumulative_trapezoid(M.ones(3, dtype=M.bool)),
    lambda M: M.trapezoid(M.ones(3), M.ones(3, dtype=M.bool)),
    lambda M: M.trapezoid(M.ones(3), dx=True),
    lambda M: M.trapezoid(M.ones(3), dim=2),
    lambda M: M.trapezoid(M.ones(0, 3), dim=2),
    lambda M: M.trapezoid(M.ones(2, 3), M.ones(2, 2, 3)),
])
def test_trapezoid_errors(make):
    check_error(make)


def _lowrank(M, fn, *args, **kwargs):
    M.manual_seed(0)
    A = M.randn(30, 8) @ M.randn(8, 12)
    return getattr(M, fn)(A if not args else args[0](A), **kwargs)


@pytest.mark.parametrize("call", [
    ("pca_lowrank", None, {"q": 4, "niter": 3}),
    ("pca_lowrank", None, {}),
    ("pca_lowrank", None, {"q": 5, "center": False}),
    ("svd_lowrank", None, {"q": 3}),
    ("svd_lowrank", lambda A: A.T, {"q": 4, "niter": 1}),
    ("svd_lowrank", lambda A: A, {"q": 2, "niter": None}),
])
def test_lowrank_matches_torch(call):
    # The same seed draws the same test matrix; singular vectors are compared up to sign, which
    # linalg.svd chooses (gradrs's native SVD and LAPACK's gesdd may differ there).
    fn, prep, kwargs = call
    args = (prep,) if prep else ()
    (gu, gs, gv), (tu, ts, tv) = run_both(lambda M: _lowrank(M, fn, *args, **kwargs))
    np.testing.assert_allclose(to_np(gs), to_np(ts), rtol=1e-4)
    for g, t in ((gu, tu), (gv, tv)):
        assert tuple(g.shape) == tuple(t.shape)
        np.testing.assert_allclose(np.abs(to_np(g)), np.abs(to_np(t)), atol=1e-4)


def test_svd_lowrank_with_m(torch):
    def run(M):
        M.manual_seed(1)
        A = M.randn(20, 6)
        U, S, V = M.svd_lowrank(A, q=3, M=A.mean(0, keepdim=True))
        return to_np(S)

    g, t = run_both(run)
    np.testing.assert_allclose(g, t, rtol=1e-4)


@pytest.mark.parametrize("kwargs", [{"q": 9}, {"q": -1}, {"niter": -1}])
def test_pca_lowrank_errors(kwargs):
    check_error(lambda M: M.pca_lowrank(M.ones(5, 8), **kwargs))


def test_names_are_exported():
    for name in ("combinations", "trapezoid", "trapz", "cumulative_trapezoid", "pca_lowrank",
                 "svd_lowrank"):
        assert callable(getattr(G, name))
