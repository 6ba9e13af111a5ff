"""The regularized incomplete gamma functions `igamma` / `igammac` (Tensor methods, in-place
forms, `out=`, `special.gammainc` / `gammaincc`) against PyTorch 2.13's CPU kernels: values over a wide grid (small and large
`a` and `x`, the zeros, inf, nan, negatives, the asymptotic regime a ~ x), float16 / bfloat16
through float32, promotion, the gradient in `x` (float64 gradcheck), the missing gradient in
`a`, forward AD's error, and the dtype errors."""

import numpy as np
import pytest
from conftest import G, assert_same_values, check_error

pytestmark = pytest.mark.usefixtures("restore_grad_mode")

EDGES = [0.0, 1e-30, 1e-10, 1e-5, 1e-3, 0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0, 1.1, 1.5, 2.0, 3.0,
         4.5, 7.0, 10.0, 19.9, 20.0, 20.5, 25.0, 45.0, 99.0, 150.0, 199.0, 200.0, 201.0, 250.0,
         400.0, 1e3, 1e4, 1e5, 1e7, 1e10, float("inf"), float("nan"), -1.0, -1e-10]


def _grid(np_dtype):
    """Every pair of EDGES, then random pairs: anywhere, near a = x, and a ~ x past 200."""
    rng = np.random.default_rng(24)
    a, x = (v.ravel() for v in np.meshgrid(EDGES, EDGES))
    ra = np.concatenate([rng.uniform(0, 3, 600), rng.uniform(0, 50, 600), rng.uniform(15, 300, 600),
                         10 ** rng.uniform(-8, 6, 800)])
    rx = np.concatenate([ra[:1200] * rng.uniform(0.5, 1.5, 1200),
                         ra[1200:1800] * rng.uniform(0.8, 1.2, 600), 10 ** rng.uniform(-8, 6, 800)])
    n = (len(a) + len(ra)) // 64 * 64
    return (np.concatenate([a, ra])[:n].astype(np_dtype),
            np.concatenate([x, rx])[:n].astype(np_dtype))


def _ulps(g, t, int_dtype):
    """Distance between the bit patterns (0 for equal values and for two NaNs)."""
    same = (g == t) | (np.isnan(g) & np.isnan(t))
    d = np.abs(g.view(int_dtype).astype(np.int64) - t.view(int_dtype).astype(np.int64))
    return np.where(same, 0, d)


# The most units in the last place gradrs is from PyTorch: the same algorithm, in the same
# precision (float32 where PyTorch's C++ computes in float, double where it mixes in a double
# literal), with glibc's lgamma, and the products PyTorch's vectorized kernel fuses
# (`ops/special_fns/igamma.rs`). PyTorch runs that kernel on whole runs of 2 vectors (16
# doubles / 32 floats with AVX-512) and a scalar copy built without fused products on the rest
# (the tail, and tensors smaller than that), so the grid's length is a multiple of 64: every
# element takes the vectorized path. Elsewhere the two differ by the rounding of a*log(x) - x,
# which exp() amplifies: relative 1e-12 (float64) / 1e-5 (float32) at worst on this grid.
MAX_ULPS = 1


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_values_match_torch(torch, name, dtype):
    np_dtype, int_dtype = {"float32": (np.float32, np.int32), "float64": (np.float64, np.int64)}[dtype]
    a, x = _grid(np_dtype)
    g = getattr(G, name)(G.from_numpy(a), G.from_numpy(x)).numpy()
    t = getattr(torch, name)(torch.from_numpy(a), torch.from_numpy(x)).numpy()
    d = _ulps(g, t, int_dtype)
    worst = np.argmax(d)
    assert d.max() <= MAX_ULPS, (a[worst], x[worst], g[worst], t[worst])


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_forms_and_dtypes(torch, name):
    for m_a, m_x in [((2, 3), (3,)), ((4, 1), (1, 5))]:
        rng = np.random.default_rng(1)
        a, x = rng.uniform(0.1, 6, m_a), rng.uniform(0.1, 8, m_x)
        for mk in (lambda m, v: m.tensor(v), lambda m, v: m.tensor(v, dtype=m.float64),
                   lambda m, v: m.tensor(v, dtype=m.float16),
                   lambda m, v: m.tensor(v, dtype=m.bfloat16)):
            ga, gx, ta, tx = mk(G, a), mk(G, x), mk(torch, a), mk(torch, x)
            # (6 to 20 elements: PyTorch's scalar path, see MAX_ULPS)
            assert_same_values(getattr(G, name)(ga, gx), getattr(torch, name)(ta, tx))
            assert_same_values(getattr(ga, name)(gx), getattr(ta, name)(tx))
    # promotion: an integer `a` with a float `x`, a float64 0-dim `x`
    ga, ta = G.tensor([1, 2, 3]), torch.tensor([1, 2, 3])
    assert_same_values(getattr(G, name)(ga, G.tensor([0.5, 2.0, 7.0])),
                       getattr(torch, name)(ta, torch.tensor([0.5, 2.0, 7.0])))
    assert_same_values(getattr(G, name)(G.tensor([0.5, 2.0]), G.tensor(3.0, dtype=G.float64)),
                       getattr(torch, name)(torch.tensor([0.5, 2.0]),
                                            torch.tensor(3.0, dtype=torch.float64)))
    # in place and out=
    gi, ti = G.tensor([0.5, 2.0, 9.0]), torch.tensor([0.5, 2.0, 9.0])
    rg = getattr(gi, name + "_")(G.tensor([1.0, 3.0, 4.0]))
    getattr(ti, name + "_")(torch.tensor([1.0, 3.0, 4.0]))
    assert rg is gi and gi._version == ti._version == 1
    assert_same_values(gi, ti)
    og, ot = G.empty(3), torch.empty(3)
    getattr(G, name)(G.tensor([0.5, 2.0, 9.0]), G.tensor([1.0, 3.0, 4.0]), out=og)
    getattr(torch, name)(torch.tensor([0.5, 2.0, 9.0]), torch.tensor([1.0, 3.0, 4.0]), out=ot)
    assert_same_values(og, ot)


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_errors(torch, name):
    check_error(lambda m: getattr(m, name)(m.tensor([1, 2]), m.tensor([1, 2])))
    check_error(lambda m: getattr(m, name)(m.tensor([1.0]), 2.0))
    check_error(lambda m: getattr(m.tensor([1.0]), name)(2.0))
    check_error(lambda m: getattr(m.tensor([1, 2]), name + "_")(m.tensor([1.0])))
    check_error(lambda m: getattr(m, name)(m.ones(2), m.ones(3)))


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_gradients(torch, name):
    a = np.array([0.3, 1.0, 2.5, 30.0, 250.0])
    x = np.array([0.7, 1.0, 4.0, 28.0, 260.0])
    gx = G.tensor(x, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    yg, yt = getattr(G, name)(G.tensor(a), gx), getattr(torch, name)(torch.tensor(a), tx)
    assert type(yg.grad_fn).__name__ == type(yt.grad_fn).__name__
    w = np.array([1.0, -2.0, 0.5, 3.0, 1.5])
    yg.backward(G.tensor(w))
    yt.backward(torch.tensor(w))
    assert_same_values(gx.grad, tx.grad, rtol=1e-13, atol=1e-300)
    # second order (through exp / log / lgamma)
    gx2 = G.tensor(x, requires_grad=True)
    (d,) = G.autograd.grad(getattr(G, name)(G.tensor(a), gx2).sum(), gx2, create_graph=True)
    tx2 = torch.tensor(x, requires_grad=True)
    (dt,) = torch.autograd.grad(getattr(torch, name)(torch.tensor(a), tx2).sum(), tx2,
                                create_graph=True)
    (dd,) = G.autograd.grad(d.sum(), gx2)
    (ddt,) = torch.autograd.grad(dt.sum(), tx2)
    assert_same_values(dd, ddt, rtol=1e-12, atol=1e-300)
    assert G.autograd.gradcheck(lambda v: getattr(G, name)(G.tensor(a), v),
                                (G.tensor(x, requires_grad=True),))
    assert G.autograd.gradgradcheck(lambda v: getattr(G, name)(G.tensor(a[:3]), v),
                                    (G.tensor(x[:3], requires_grad=True),))


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_no_gradient_in_a(torch, name):
    def backward_a(m):
        a = m.tensor([2.0, 3.0], requires_grad=True)
        getattr(m, name)(a, m.tensor([1.0, 4.0], requires_grad=True)).sum().backward()

    check_error(backward_a)

    def forward_ad(m):
        with m.autograd.forward_ad.dual_level():
            d = m.autograd.forward_ad.make_dual(m.tensor([1.0, 4.0]), m.ones(2))
            getattr(m, name)(m.tensor([2.0, 3.0]), d)

    check_error(forward_ad)


@pytest.mark.parametrize("name, alias", [("igamma", "gammainc"), ("igammac", "gammaincc")])
def test_special_aliases(torch, name, alias):
    a, x = [0.5, 3.0, 30.0], [0.2, 3.5, 28.0]
    assert_same_values(getattr(G.special, alias)(G.tensor(a), G.tensor(x)),
                       getattr(torch.special, alias)(torch.tensor(a), torch.tensor(x)))
    og, ot = G.empty(3), torch.empty(3)
    getattr(G.special, alias)(G.tensor(a), G.tensor(x), out=og)
    getattr(torch.special, alias)(torch.tensor(a), torch.tensor(x), out=ot)
    assert_same_values(og, ot)
    check_error(lambda m: getattr(m.special, alias)(m.tensor([1.0]), 2.0))
    check_error(lambda m: getattr(m.special, alias)(m.tensor([1, 2]), m.tensor([1, 2])))
    gx = G.tensor(x, requires_grad=True)
    assert type(getattr(G.special, alias)(G.tensor(a), gx).grad_fn).__name__ == (
        "IgammaBackward0" if name == "igamma" else "IgammacBackward0")
