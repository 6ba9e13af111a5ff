"""gradrs.functional (softmax forms, isclose/allclose, NaN/inf tests, dist, bincount, unique,
meshgrid & co.) and gradrs.testing.assert_close, compared with PyTorch."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import G, check, check_error, check_warning, run_both, to_np
from test_gradcheck import gradcheck, gradgradcheck

NAN, INF = math.nan, math.inf
VALS = [1.0, NAN, INF, -INF, 0.0, -2.5]


def _same(g, t):
    if isinstance(g, tuple):
        assert len(g) == len(t)
        for a, b in zip(g, t):
            _same(a, b)
    elif isinstance(g, G.Tensor):
        assert tuple(g.shape) == tuple(t.shape)
        assert str(g.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
        np.testing.assert_allclose(to_np(g), t.detach().numpy(), rtol=1e-6, atol=1e-6)
    else:
        assert g == t


def both(fn):
    g, t = run_both(fn)
    _same(g, t)
    return g, t


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_functional(name):
    x = [[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]]
    check(lambda m: getattr(m, name)(m.tensor(x, requires_grad=True), 1))
    check(lambda m: getattr(m, name)(m.tensor(x), 0, dtype=m.float64))
    check(lambda m: getattr(m, name)(m.tensor(x), dim=-1))
    gradcheck(lambda a: getattr(G, name)(a, 1), [x])


@pytest.mark.parametrize("name", ["isnan", "isinf", "isfinite", "isposinf", "isneginf",
                                  "isreal"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "bool"])
def test_nan_inf_tests(name, dtype):
    def values(m):
        if dtype == "bool":
            return m.tensor([True, False])
        if dtype == "int64":
            return m.tensor([1, -3, 0])
        return m.tensor(VALS, dtype=getattr(m, dtype))

    check(lambda m: getattr(m, name)(values(m)))
    check(lambda m: getattr(values(m), name)())


def test_nan_test_of_grad_tensor_has_no_grad_fn():
    check(lambda m: m.isnan(m.tensor([1.0, NAN], requires_grad=True)))
    check(lambda m: m.tensor([1.0, INF], requires_grad=True).isfinite())


def test_isclose_allclose():
    a, b = [1.0, NAN, INF, 2.0, 1e-9, -INF], [1.0 + 1e-7, NAN, INF, 2.1, 0.0, INF]
    for kw in [{}, {"equal_nan": True}, {"rtol": 0.1, "atol": 0}, {"rtol": 0, "atol": 0}]:
        check(lambda m, kw=kw: m.isclose(m.tensor(a), m.tensor(b), **kw))
        check(lambda m, kw=kw: m.tensor(a).isclose(m.tensor(b), **kw))
        both(lambda m, kw=kw: m.allclose(m.tensor(a), m.tensor(b), **kw))
        both(lambda m, kw=kw: m.tensor(a).allclose(m.tensor(b), **kw))
    check(lambda m: m.isclose(m.tensor([1, 5]), m.tensor([2, 5]), atol=1, rtol=0))
    check(lambda m: m.isclose(m.tensor([1, 5]), m.tensor([2, 5]), atol=0.5, rtol=0))
    check(lambda m: m.isclose(m.tensor([True]), m.tensor([False])))
    check(lambda m: m.isclose(m.ones(2, 1), m.ones(3)))
    both(lambda m: m.allclose(m.ones(2), m.ones(2) + 1e-6))


def test_isclose_errors():
    check_error(lambda m: m.isclose(m.ones(2), m.ones(2, dtype=m.float64)))
    check_error(lambda m: m.allclose(m.ones(2), m.ones(2, dtype=m.float64)))
    check_error(lambda m: m.isclose(m.ones(2), m.ones(2), rtol=-1))
    check_error(lambda m: m.isclose(m.ones(2), m.ones(2), atol=-1))
    check_error(lambda m: m.isclose(m.ones(2), m.ones(3)))
    check_error(lambda m: m.isclose(m.ones(2), 1.0))
    check_error(lambda m: m.ones(2).isclose(1.0))
    check_error(lambda m: m.ones(2).allclose(1.0))
    check_error(lambda m: m.allclose(m.ones(2), 1.0))
    check_error(lambda m: m.ones(2).dist(1.0))
    check_error(lambda m: m.dist(m.ones(2), 1.0))
    check_error(lambda m: m.isnan([1.0]))
    check_error(lambda m: m.unique([1, 2]))
    check_error(lambda m: m.bincount(m.ones(2).long(), weights=[1.0, 2.0]))


@pytest.mark.parametrize("p", [2, 1, 3.5, 0, INF])
def test_dist(p):
    a, b = [[1.0, -2.0, 3.0]], [[0.5, 1.0, 0.0], [2.0, 2.0, -1.0]]
    check(lambda m: m.dist(m.tensor(a, requires_grad=True), m.tensor(b), p))
    both(lambda m: m.tensor(a).dist(m.tensor(b), p=p))
    if p not in (0,):
        gradcheck(lambda x, y: G.dist(x, y, p), [a, b])


def test_dist_grad_and_errors():
    g, t = run_both(lambda m: _grads(m, lambda x, y: m.dist(x, y)))
    _same(g, t)
    both(lambda m: m.dist(m.ones(2), m.zeros(2, dtype=m.float64)))
    gradgradcheck(lambda x, y: G.dist(x, y), [[1.0, 2.0], [0.0, -1.0]])
    check_error(lambda m: m.dist(m.tensor([1, 2]), m.tensor([1, 3])))


def _grads(m, f):
    x = m.tensor([1.0, 2.0, -1.0], requires_grad=True)
    y = m.tensor([0.5, -1.0, 2.0], requires_grad=True)
    f(x, y).backward()
    return x.grad, y.grad


def test_bincount():
    check(lambda m: m.bincount(m.tensor([1, 1, 3, 0])))
    check(lambda m: m.bincount(m.tensor([1, 1, 3]), minlength=7))
    check(lambda m: m.tensor([1, 1, 3]).bincount(minlength=2))
    check(lambda m: m.bincount(m.tensor([], dtype=m.int64)))
    check(lambda m: m.bincount(m.tensor([], dtype=m.int64), minlength=3))
    check(lambda m: m.bincount(m.tensor([1, 2], dtype=m.int32)))
    check(lambda m: m.bincount(m.tensor([1, 2, 2]), weights=m.tensor([1.0, 2.0, 0.5])))
    check(lambda m: m.bincount(m.tensor([1, 2]), weights=m.tensor([1.0, 2.0],
                                                                    dtype=m.float64)))
    check(lambda m: m.bincount(m.tensor([1, 2]), weights=m.tensor([1, 2])))
    check(lambda m: m.bincount(m.tensor([1, 2]), weights=m.tensor([1.0, 2.0]).half()))


def test_bincount_errors():
    check_error(lambda m: m.bincount(m.tensor([1.0])))
    check_error(lambda m: m.bincount(m.tensor([True])))
    check_error(lambda m: m.bincount(m.tensor([[1]])))
    check_error(lambda m: m.bincount(m.tensor([-1])))
    check_error(lambda m: m.bincount(m.tensor([1, 2]), minlength=-1))
    check_error(lambda m: m.bincount(m.tensor([1, 2]), weights=m.tensor([1.0, 2.0, 3.0])))


def test_unique():
    x = [3, 1, 3, 2, 2, 3]
    for kw in [{}, {"return_inverse": True}, {"return_counts": True},
               {"return_inverse": True, "return_counts": True}, {"sorted": False}]:
        both(lambda m, kw=kw: m.unique(m.tensor(x), **kw))
        both(lambda m, kw=kw: m.tensor([[3, 1], [1, 2]]).unique(**kw))
    both(lambda m: m.unique(m.tensor([NAN, 1.0, NAN, 1.0])))
    both(lambda m: m.unique(m.tensor([], dtype=m.float32)))
    rows = [[1, 2], [1, 2], [0, 5], [1, 2]]
    for dim in (0, 1, -1):
        both(lambda m, dim=dim: m.unique(m.tensor(rows), dim=dim, return_inverse=True,
                                return_counts=True))
    both(lambda m: m.unique(m.tensor([[[1, 2], [1, 2]], [[0, 5], [1, 2]]]), dim=2,
                            return_inverse=True))
    check_error(lambda m: m.unique(m.tensor([1, 2]), dim=3))


def test_unique_records_a_node_without_derivative():
    def run(m, f):
        out = f(m, m.tensor([1.0, 2.0, 1.0], requires_grad=True))
        out = out[0] if isinstance(out, tuple) else out
        return out

    for f in [lambda m, a: m.unique(a), lambda m, a: m.unique(a, dim=0),
              lambda m, a: a.unique(return_inverse=True), lambda m, a: m.unique_consecutive(a),
              lambda m, a: m.unique_consecutive(a, dim=0)]:
        check(lambda m, f=f: run(m, f))
        check_error(lambda m, f=f: run(m, f).sum().backward())
        with G.no_grad():
            assert run(G, f).grad_fn is None


@pytest.mark.parametrize("name", ["unique", "unique_consecutive"])
def test_unique_dim_edge_cases(name):
    for shape, dim in [((0, 3), 0), ((3, 0), 1), ((2, 3), 1)]:
        both(lambda m, shape=shape, dim=dim: getattr(m, name)(
            m.ones(shape), dim=dim, return_inverse=True, return_counts=True))
    check_error(lambda m: getattr(m, name)(m.ones(3, 0), dim=0))
    check_error(lambda m: getattr(m, name)(m.tensor(3), dim=0))
    check_error(lambda m: getattr(m, name)(m.ones(2, 3), dim=5))
    both(lambda m: getattr(m, name)(m.tensor(3), return_inverse=True))


def test_unique_consecutive():
    x = [3, 3, 1, 3, 2, 2]
    for kw in [{}, {"return_inverse": True}, {"return_counts": True},
               {"return_inverse": True, "return_counts": True}]:
        both(lambda m, kw=kw: m.unique_consecutive(m.tensor(x), **kw))
        both(lambda m, kw=kw: m.tensor([[1, 1], [2, 1]]).unique_consecutive(**kw))
    rows = [[1, 2], [1, 2], [0, 5], [1, 2]]
    both(lambda m: m.unique_consecutive(m.tensor(rows), dim=0, return_inverse=True,
                                        return_counts=True))
    both(lambda m: m.unique_consecutive(m.tensor(rows), dim=1, return_counts=True))
    both(lambda m: m.unique_consecutive(m.tensor([], dtype=m.int64), return_counts=True))


def test_meshgrid():
    for indexing in ("ij", "xy"):
        both(lambda m, indexing=indexing: m.meshgrid(m.tensor([1, 2, 3]), m.tensor([4, 5]), indexing=indexing))
        both(lambda m, indexing=indexing: m.meshgrid([m.tensor([1, 2]), m.tensor(7), m.tensor([4, 5, 6])],
                                  indexing=indexing))
        both(lambda m, indexing=indexing: m.meshgrid(m.tensor([1.0, 2.0]), indexing=indexing))
    check_warning(lambda m: m.meshgrid(m.tensor([1, 2]), m.tensor([3])))
    check_error(lambda m: m.meshgrid(m.ones(2), indexing="foo"))
    check_error(lambda m: m.meshgrid(indexing="ij"))
    check_error(lambda m: m.meshgrid(m.ones(2), m.ones(2, dtype=m.int64), indexing="ij"))
    gradcheck(lambda a, b: G.meshgrid(a, b, indexing="xy")[0] * G.meshgrid(
        a, b, indexing="xy")[1], [[1.0, 2.0, 3.0], [0.5, -1.0]])


def test_broadcasting_helpers():
    both(lambda m: m.broadcast_shapes((2, 1), (3,), 1))
    both(lambda m: m.broadcast_shapes())
    check_error(lambda m: m.broadcast_shapes((2, 3), (4, 3)))
    check_error(lambda m: m.broadcast_shapes((2, -1)))
    both(lambda m: m.broadcast_tensors(m.ones(2, 1), m.arange(3)))
    check_error(lambda m: m.broadcast_tensors(m.ones(2, 3), m.ones(4, 3)))


def test_broadcast_tensors_returns_full_shape_inputs_themselves(torch):
    # ATen's expand_outplace borrows a tensor that already has the shape: no view, no node.
    for m in (G, torch):
        a, b = m.ones(2, 3, requires_grad=True), m.ones(3, requires_grad=True)
        ra, rb = m.broadcast_tensors(a, b)
        assert ra is a and ra.grad_fn is None
        assert type(rb.grad_fn).__name__ == "ExpandBackward0"
        assert m.broadcast_tensors(a)[0] is a


def test_cartesian_prod_block_diag_atleast():
    both(lambda m: m.cartesian_prod(m.tensor([1, 2]), m.tensor([3, 4, 5])))
    both(lambda m: m.cartesian_prod(m.tensor([1, 2]), m.tensor([3]), m.tensor([6, 7])))
    both(lambda m: m.cartesian_prod(m.tensor([1, 2])))
    check_error(lambda m: m.cartesian_prod(m.ones(2, 2)))
    both(lambda m: m.block_diag(m.ones(2, 2), m.tensor(3.0), m.arange(3)))
    both(lambda m: m.block_diag(m.ones(2, 2), m.ones(1, dtype=m.int64)))
    both(lambda m: m.block_diag())
    check_error(lambda m: m.block_diag(m.ones(2, 2, 2)))
    gradcheck(lambda a, b: G.block_diag(a, b), [[[1.0, 2.0]], [[3.0], [4.0]]])
    check(lambda m: m.block_diag(m.ones(2, 2, requires_grad=True), m.tensor(3.0)))
    check(lambda m: m.tensordot(m.ones(2, 3, requires_grad=True), m.ones(4, 3), ([1], [1])))
    check(lambda m: m.cartesian_prod(m.ones(2, requires_grad=True), m.ones(3)))
    for shape in [(), (2,), (2, 3)]:
        check(lambda m, shape=shape: m.atleast_3d(m.ones(shape, requires_grad=True)))
    for indexing in ("ij", "xy"):
        check(lambda m, indexing=indexing: m.meshgrid(m.ones(2, requires_grad=True), m.ones(3),
                                                      indexing=indexing)[1])
    for n in (1, 2, 3):
        name = f"atleast_{n}d"
        for shape in [(), (2,), (2, 3), (2, 3, 4)]:
            both(lambda m, name=name, shape=shape: getattr(m, name)(m.ones(shape)))
        both(lambda m, name=name: getattr(m, name)(m.tensor(1.0), m.ones(2)))
        both(lambda m, name=name: getattr(m, name)([m.tensor(1.0), m.ones(2)]))


@pytest.mark.parametrize("p", [2.0, 1.0, 0.0, 3.0, INF])
def test_cdist(p):
    a = [[[1.0, 2.0], [0.0, -1.0], [3.0, 0.5]]]
    b = [[[0.5, 1.0], [2.0, -2.0]]]
    check(lambda m: m.cdist(m.tensor(a), m.tensor(b, requires_grad=True), p=p))
    both(lambda m: m.cdist(m.tensor(a[0]), m.tensor(b[0]), p=p,
                           compute_mode="donot_use_mm_for_euclid_dist"))
    if p not in (0.0, INF):
        gradcheck(lambda x, y: G.cdist(x, y, p=p), [a[0], b[0]])


def test_cdist_errors():
    check_error(lambda m: m.cdist(m.ones(2, 3), m.ones(4, 2)))
    check_error(lambda m: m.cdist(m.ones(2, 3), m.ones(4, 3), p=-1))
    check_error(lambda m: m.cdist(m.ones(3), m.ones(4, 3)))


def test_tensordot_chain_matmul():
    a = np.arange(24.0).reshape(2, 3, 4).tolist()
    b = np.arange(12.0).reshape(4, 3).tolist()
    both(lambda m: m.tensordot(m.tensor(a), m.tensor(b), dims=([1, 2], [1, 0])))
    both(lambda m: m.tensordot(m.tensor(a), m.tensor(b), dims=1))
    both(lambda m: m.tensordot(m.tensor(a), m.tensor(b), dims=([2], [0])))
    both(lambda m: m.tensordot(m.tensor(b), m.tensor(b), dims=0))
    check_error(lambda m: m.tensordot(m.ones(2, 3), m.ones(4, 3), dims=([1], [0])))
    gradcheck(lambda x, y: G.tensordot(x, y, dims=([1], [0])),
              [[[1.0, 2.0], [3.0, -1.0]], [[0.5, 1.0, 2.0], [2.0, -2.0, 0.0]]])
    rg, rt = check_warning(lambda m: m.chain_matmul(m.ones(2, 3), m.ones(3, 4),
                                                    m.arange(4.0).reshape(4, 1)))
    _same(rg, rt)


def _assert_close_error(fn):
    check_error(lambda m: fn(m))


def test_assert_close_messages():
    tc = "testing"
    for fn in [
        lambda m: getattr(m, tc).assert_close(m.tensor([1.0, 2.0, 3.0]), m.tensor([1.0, 2.5, 3])),
        lambda m: getattr(m, tc).assert_close(m.tensor([[1.0, 2.0], [3, 4]]),
                                              m.tensor([[1.0, 2.5], [3, 5]])),
        lambda m: getattr(m, tc).assert_close(m.tensor(1.0), m.tensor(2.0)),
        lambda m: getattr(m, tc).assert_close(m.tensor([1, 2]), m.tensor([1, 3])),
        lambda m: getattr(m, tc).assert_close(m.tensor([1.0]), m.tensor([1.0],
                                                                        dtype=m.float64)),
        lambda m: getattr(m, tc).assert_close(m.tensor([1.0]), m.tensor([1.0, 2])),
        lambda m: getattr(m, tc).assert_close(m.tensor([NAN]), m.tensor([NAN])),
        lambda m: getattr(m, tc).assert_close(m.tensor([1.0]), m.tensor([1.0]), rtol=1e-3),
        lambda m: getattr(m, tc).assert_close(1.0, 1.5),
        lambda m: getattr(m, tc).assert_close(m.tensor([1.0, 2.0]), m.tensor([1.1, 2.0]),
                                              rtol=0.01, atol=0.01),
    ]:
        check_error(fn)


def test_assert_close_passes():
    for fn in [
        lambda m: m.testing.assert_close(m.tensor([1.0, NAN]), m.tensor([1.0, NAN]),
                                         equal_nan=True),
        lambda m: m.testing.assert_close(m.tensor([1.0]), m.tensor([1.0 + 1e-6])),
        lambda m: m.testing.assert_close(m.tensor([1.0]), m.tensor([1.0], requires_grad=True)),
        lambda m: m.testing.assert_close([m.ones(2), 1.0], [m.ones(2), 1.0]),
        lambda m: m.testing.assert_close({"a": m.ones(2)}, {"a": m.ones(2)}),
    ]:
        assert run_both(fn) == (None, None)


def test_layout():
    g, t = run_both(lambda m: (repr(m.strided), str(type(m.strided)), m.ones(2).layout is m.strided,
                               m.strided == m.strided))
    assert g == tuple(x.replace("torch", "gradrs") if isinstance(x, str) else x for x in t)
    import copy
    import pickle

    assert pickle.loads(pickle.dumps(G.strided)) is G.strided
    assert copy.deepcopy(G.strided) is G.strided
    check_error(lambda m: m.layout())


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int32", "bool"])
def test_make_tensor(dtype):
    def make(m, **kw):
        return m.testing.make_tensor(2, 3, dtype=getattr(m, dtype), device="cpu", **kw)

    g, t = run_both(make)
    assert tuple(g.shape) == tuple(t.shape) == (2, 3)
    assert str(g.dtype).split(".")[-1] == dtype
    v = to_np(g).astype(np.float64)
    lo, hi = (0, 1) if dtype == "bool" else (-9, 9 if dtype.startswith("float") else 9)
    assert v.min() >= lo and v.max() <= hi
    g = make(G, low=1, high=3, noncontiguous=True, exclude_zero=True)
    assert not g.is_contiguous() and (to_np(g) != 0).all()
    assert 1 <= to_np(g).astype(np.float64).min() and to_np(g).astype(np.float64).max() <= 3
    if dtype.startswith("float"):
        assert make(G, requires_grad=True).requires_grad
    else:
        check_error(lambda m: make(m, requires_grad=True))
    check_error(lambda m: make(m, low=5, high=2))
    check_error(lambda m: make(m, low=float("nan")))
    check_error(lambda m: make(m, noncontiguous=True, memory_format=1))
