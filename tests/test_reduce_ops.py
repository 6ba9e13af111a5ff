"""quantile / nanquantile, scatter_reduce, index_reduce and index_put against PyTorch: what the
op table does not reach (random grids, float16 accumulation, out=, reduce spellings, the
double-backward error, warnings, parser errors) and float64 gradchecks."""

import warnings

import numpy as np
import pytest
from conftest import G, assert_same_error


def _both(torch, fn):
    return fn(G), fn(torch)


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
def test_quantile_grid(torch, name, interpolation):
    rng = np.random.default_rng(7)
    for shape, dim, keepdim in [((9,), None, False), ((4, 6), 1, True), ((3, 4, 5), 0, False),
                                ((4, 6), None, True), ((2, 7), -1, False)]:
        a = rng.normal(size=shape)
        a.reshape(-1)[::5] = np.nan if name == "nanquantile" else a.reshape(-1)[::5]
        q = rng.uniform(size=4)
        for m_q in (float(q[0]), q):
            w = None
            outs = []
            for m in (G, torch):
                x = m.tensor(a, requires_grad=True)
                qq = m.tensor(m_q) if isinstance(m_q, np.ndarray) else m_q
                r = getattr(m, name)(x, qq, dim, keepdim, interpolation=interpolation)
                w = rng.normal(size=tuple(r.shape)) if w is None else w
                (r * m.tensor(w)).nan_to_num().sum().backward()
                outs.append((r.detach().numpy(), x.grad.numpy(), type(r.grad_fn).__name__))
            (gv, gg, gn), (tv, tg, tn) = outs
            assert gn == tn
            # PyTorch's lerp rounds differently (an FMA where its loop is vectorized)
            np.testing.assert_allclose(gv, tv, rtol=1e-14, atol=0)
            np.testing.assert_allclose(gg, tg, rtol=1e-14, atol=0)


def test_quantile_q_gradient_and_gradcheck():
    x = G.randn(3, 5, dtype=G.float64, requires_grad=True)
    q = G.tensor([0.1, 0.45, 0.85], dtype=G.float64, requires_grad=True)  # no whole rank
    assert G.autograd.gradcheck(lambda x, q: G.quantile(x, q, dim=1), (x, q))
    assert G.autograd.gradgradcheck(lambda x, q: G.quantile(x, q, dim=1), (x, q))
    # only linear interpolation differentiates q: the others round its rank
    assert not G.quantile(x.detach(), q, interpolation="lower").requires_grad


def test_quantile_out(torch):
    for m in (G, torch):
        out = m.empty(0, dtype=m.float64)
        x = m.tensor([[1.0, 5.0, 2.0], [3.0, 3.0, 9.0]], dtype=m.float64)
        r = m.quantile(x, 0.5, dim=1, out=out)
        assert r is out
        if m is G:
            got = out.numpy()
        else:
            np.testing.assert_array_equal(got, out.numpy())
    assert_same_error(lambda: G.quantile(G.ones(3), 0.5, out=G.empty(1, dtype=G.float64)),
                      lambda: torch.quantile(torch.ones(3), 0.5,
                                             out=torch.empty(1, dtype=torch.float64)))
    # with a differentiable input, out= records the copy
    for m in (G, torch):
        x = m.ones(3, requires_grad=True)
        out = m.empty(())
        m.quantile(x, 0.5, out=out)
        assert type(out.grad_fn).__name__ == "CopyBackwards"


@pytest.mark.parametrize("call", [
    lambda m: m.quantile(m.ones(3), "a"),
    lambda m: m.ones(3).quantile("a"),
    lambda m: m.ones(3).quantile(0.5, out=None),
    lambda m: m.quantile(m.ones(3), 1e-9 - 1),
    lambda m: m.quantile(m.ones(3), float("nan")),
    lambda m: m.nanquantile(m.ones(3), 2.0),
    lambda m: m.quantile(m.ones(3), m.tensor([0.5, 2.0]), interpolation="x"),
    lambda m: m.quantile(m.ones(2), m.tensor([0.5, 2.0]), dim=3),
    lambda m: m.quantile(m.ones(3, dtype=m.int64), 2.0),
])
def test_quantile_errors(torch, call):
    assert_same_error(lambda: call(G), lambda: call(torch))


def _scatter(x, index, src, reduce, include_self, dtype):
    def call(m):
        dt = getattr(m, dtype)
        return m.tensor(x, dtype=dt).scatter_reduce(0, m.tensor(index), m.tensor(src, dtype=dt),
                                                    reduce, include_self=include_self).numpy()

    return call


def test_scatter_reduce_half_accumulates_in_float(torch):
    rng = np.random.default_rng(3)
    x, src = rng.normal(size=(5, 4)), rng.normal(size=(60, 4)) * 0.3
    index = rng.integers(0, 5, size=(60, 4))
    for reduce in ("sum", "mean", "prod"):
        for include_self in (True, False):
            g, t = _both(torch, _scatter(x, index, src, reduce, include_self, "float16"))
            np.testing.assert_array_equal(g, t)


def test_scatter_reduce_grid(torch):
    rng = np.random.default_rng(0)
    for reduce in ("sum", "prod", "mean", "amax", "amin", "max", "min"):
        for include_self in (True, False):
            for dtype in ("float64", "float32", "int64", "int32"):
                x = rng.integers(-3, 4, size=(4, 5)).astype(float)
                src = rng.integers(-3, 4, size=(6, 5)).astype(float)
                index = rng.integers(0, 4, size=(6, 5))
                g, t = _both(torch, _scatter(x, index, src, reduce, include_self, dtype))
                np.testing.assert_array_equal(g, t)


def test_scatter_reduce_max_spelling_has_no_backward(torch):
    def call(m):
        x = m.zeros(3, requires_grad=True)
        m.scatter_reduce(x, 0, m.tensor([0, 0]), m.ones(2), "max").sum().backward()

    assert_same_error(lambda: call(G), lambda: call(torch))


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_gradcheck(reduce, include_self):
    G.manual_seed(1)
    x = G.randn(4, 3, dtype=G.float64, requires_grad=True)
    s = G.randn(5, 3, dtype=G.float64, requires_grad=True)
    i = G.tensor([[0, 2, 1], [3, 2, 0], [0, 0, 1], [2, 2, 2], [1, 3, 0]])

    def f(x, s):
        return G.scatter_reduce(x, 0, i, s, reduce, include_self=include_self)

    assert G.autograd.gradcheck(f, (x, s))
    assert G.autograd.gradgradcheck(f, (x, s))


def test_scatter_reduce_prod_double_backward_error(torch):
    def call(m):
        x = m.ones(3, dtype=m.float64, requires_grad=True)
        s = m.tensor([0.0, 0.0, 2.0], dtype=m.float64, requires_grad=True)
        r = x.scatter_reduce(0, m.tensor([0, 0, 1]), s, "prod")
        (g,) = m.autograd.grad(r.sum(), [s], create_graph=True)
        assert g.tolist() == [0.0, 0.0, 1.0]
        g.sum().backward()

    assert_same_error(lambda: call(G), lambda: call(torch))


def test_index_reduce_warns_once_and_gradcheck():
    import gradrs._reduce_ops as ops

    ops._warned_beta.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        G.ones(2).index_reduce(0, G.tensor([0]), G.ones(1), "prod")
        G.ones(2).index_reduce(0, G.tensor([0]), G.ones(1), "prod")
    assert [str(w.message) for w in caught] == [
        "index_reduce() is in beta and the API may change at any time."]
    x = G.randn(3, 4, dtype=G.float64, requires_grad=True)
    s = G.randn(3, 5, dtype=G.float64, requires_grad=True)
    i = G.tensor([0, 2, 0, 1, 0])
    for reduce in ("prod", "mean", "amax", "amin"):
        assert G.autograd.gradcheck(lambda x, s, r=reduce: x.index_reduce(1, i, s, r), (x, s))


@pytest.mark.parametrize("call", [
    lambda m: m.index_put(m.zeros(3, 4), (None, m.tensor([1])), m.ones(1)),
    lambda m: m.zeros(3, 4).index_put((1,), m.ones(1)),
    lambda m: m.zeros(3, 4).index_put(m.tensor([0]), m.ones(1)),
    lambda m: m.zeros(3, 4).index_put((m.tensor([0]),), m.ones(1), accumulate=1),
    lambda m: m.zeros(3, 4).index_put_((m.tensor([0.0]),), m.ones(1)),
    lambda m: m.ones(3, 2).index_reduce(0, m.tensor([[0, 0]]), m.ones(2, 2), "prod"),
    lambda m: m.ones(3, 2).index_reduce(0, m.tensor([0, 0]), m.ones(2, 2), "sum"),
    lambda m: m.ones(3, 2).index_reduce(0, m.tensor([0.0, 0.0]), m.ones(2, 2), "prod"),
    lambda m: m.zeros(2).scatter_reduce(0, m.tensor([0]), 1.0, "sum"),
    lambda m: m.scatter_reduce(m.zeros(2), 0, m.tensor([0]), m.ones(1), "sum", include_self=1),
])
def test_parser_and_check_errors(torch, call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_error(lambda: call(G), lambda: call(torch))


def test_index_put_gradcheck():
    x = G.randn(3, 4, dtype=G.float64, requires_grad=True)
    v = G.randn(4, dtype=G.float64, requires_grad=True)
    for acc, i in ((False, G.tensor([0, 2])), (True, G.tensor([0, 2, 0]))):
        def f(x, v, i=i, acc=acc):
            return x.index_put((i,), v, acc)

        assert G.autograd.gradcheck(f, (x, v))
        assert G.autograd.gradgradcheck(f, (x, v))
