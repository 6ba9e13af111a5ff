"""The gamma and modified-Bessel families (lgamma, digamma, polygamma, mvlgamma, i0, i0e, i1,
i1e) and `gradrs.special` against PyTorch: values over a grid with the edge values (0, -0,
negative integers, poles, inf, nan, the Chebyshev expansions' seam at 8), gradients, float64
gradcheck, dtype promotion, in-place forms, `out=`, node names and errors."""

import math

import numpy as np
import pytest
from conftest import G, assert_same_error, assert_same_values, check_error

pytestmark = pytest.mark.usefixtures("restore_grad_mode")

EDGES = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, -1.5, -2.5, 1e-30, -1e-30, 1e-7, -1e-7,
         1.4616321449683622, 3.0, 7.99, 8.0, 8.01, 10.0, 30.5, -30.5, 100.0, -100.25, 1e5, 1e30,
         -1e30, math.inf, -math.inf, math.nan]
GRID = EDGES + np.linspace(-12.3, 12.3, 83).tolist() + np.geomspace(1e-3, 60, 40).tolist()

# name -> (gradrs call, torch call)
OPS = {
    "lgamma": lambda m, x: m.lgamma(x),
    "digamma": lambda m, x: m.digamma(x),
    "polygamma1": lambda m, x: m.polygamma(1, x),
    "polygamma2": lambda m, x: m.polygamma(2, x),
    "polygamma3": lambda m, x: m.polygamma(3, x),
    "polygamma6": lambda m, x: m.polygamma(6, x),
    "mvlgamma1": lambda m, x: m.mvlgamma(x, 1),
    "mvlgamma3": lambda m, x: m.mvlgamma(x, 3),
    "i0": lambda m, x: m.i0(x),
    "i0e": lambda m, x: m.special.i0e(x),
    "i1": lambda m, x: m.special.i1(x),
    "i1e": lambda m, x: m.special.i1e(x),
}


def _ulps(a, b, dtype):
    """Distance in units in the last place of `b`, NaN equal to NaN, inf to inf."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    same = (a == b) | (np.isnan(a) & np.isnan(b))
    spacing = np.abs(np.spacing(b.astype(dtype))).astype(np.float64)
    with np.errstate(invalid="ignore"):
        d = np.where(same, 0.0, np.abs(a - b) / np.where(spacing > 0, spacing, 1.0))
    return np.where(np.isfinite(a) | same, d, np.inf)


# The most ulps gradrs's CPU kernel is from PyTorch's (same algorithms; lgamma is libm's
# rather than glibc's, and polygamma's n! goes through lgamma). PyTorch's build contracts
# Clenshaw's `x * b1 - b2` into a fused multiply-add, which float32's short i1 / i1e series
# feel near x = 8 (a few more ulps there).
MAX_ULPS = {"float64": 4, "float32": 4}
MAX_ULPS_I1 = 8
# Where glibc's lgamma (PyTorch's) is more accurate than libm's: near its zeros on the negative
# axis, so relative closeness is meaningless there; compared with an absolute tolerance.
ABS_NEAR_ZERO = {"lgamma", "mvlgamma1", "mvlgamma3", "polygamma6"}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(OPS))
def test_values_match_torch(torch, name, dtype):
    fn = OPS[name]
    g = fn(G, G.tensor(GRID, dtype=getattr(G, dtype)))
    t = fn(torch, torch.tensor(GRID, dtype=getattr(torch, dtype)))
    assert str(g.dtype).split(".")[-1] == dtype
    a, b = g.numpy(), t.numpy()
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
    np.testing.assert_array_equal(np.isinf(a), np.isinf(b))
    u = _ulps(a, b, a.dtype)
    bad = u > (MAX_ULPS_I1 if name in ("i1", "i1e") else MAX_ULPS[dtype])
    if name in ABS_NEAR_ZERO:
        with np.errstate(invalid="ignore"):
            close = np.abs(a - b) <= 64 * np.finfo(a.dtype).eps * np.maximum(1.0, np.abs(GRID))
        bad &= ~close
    assert not bad.any(), [(x, y, z) for x, y, z in zip(np.asarray(GRID)[bad], a[bad], b[bad])]


@pytest.mark.parametrize("name", ["lgamma", "digamma", "i0", "i0e", "i1", "i1e", "polygamma2",
                                  "mvlgamma3"])
@pytest.mark.parametrize("dtype", ["int64", "bool", "float16"])
def test_dtype_promotion(torch, name, dtype):
    if name.startswith("mvlgamma") and dtype == "bool":
        pytest.skip("mvlgamma refuses bool (test_errors)")
    data = [[0, 1], [1, 0]] if dtype == "bool" else [[1, 2], [3, 7]]
    g = OPS[name](G, G.tensor(data, dtype=getattr(G, dtype)))
    t = OPS[name](torch, torch.tensor(data, dtype=getattr(torch, dtype)))
    assert_same_values(g, t)


GRAD_POINTS = [0.3, 0.7, 1.0, 1.46, 2.5, 4.0, 7.5, 8.5, 12.0, -0.4, -1.3, -2.7]


@pytest.mark.parametrize("name", list(OPS))
def test_gradients_match_torch(torch, name):
    def run(m):
        pts = [abs(v) + 2.0 for v in GRAD_POINTS] if name.startswith("mvlgamma") else GRAD_POINTS
        x = m.tensor(pts, dtype=m.float64, requires_grad=True)
        y = OPS[name](m, x)
        (g,) = m.autograd.grad(y.sum(), x, create_graph=True)
        (gg,) = m.autograd.grad(g.sum(), x)
        return y, g, gg
    (gy, gg1, gg2), (ty, tg1, tg2) = run(G), run(torch)
    assert type(gy.grad_fn).__name__ == type(ty.grad_fn).__name__
    assert_same_values(gy.detach(), ty.detach(), rtol=1e-12)
    assert_same_values(gg1.detach(), tg1.detach(), rtol=1e-10)
    assert_same_values(gg2, tg2, rtol=1e-9)


def test_i1_gradients_at_zero(torch):
    for f in ("i1", "i1e"):
        def run(m, f=f):
            x = m.tensor([0.0, -0.0, 1e-20, 2.0], requires_grad=True)
            getattr(m.special, f)(x).sum().backward()
            return x.grad
        assert_same_values(run(G), run(torch))


@pytest.mark.parametrize("name", list(OPS))
def test_gradcheck(name):
    pts = [0.6, 1.7, 3.2, 9.1] if not name.startswith("mvlgamma") else [2.6, 3.7, 5.2, 9.1]
    if name not in ("lgamma", "digamma") and not name.startswith(("polygamma", "mvlgamma")):
        pts += [-0.8, -9.5]
    x = G.tensor(pts, dtype=G.float64, requires_grad=True)
    assert G.autograd.gradcheck(lambda v: OPS[name](G, v), (x,))
    assert G.autograd.gradgradcheck(lambda v: OPS[name](G, v), (x,))


@pytest.mark.parametrize("call", [
    lambda m, x: x.lgamma_(), lambda m, x: x.digamma_(), lambda m, x: x.polygamma_(2),
    lambda m, x: x.mvlgamma_(2), lambda m, x: x.i0_(), lambda m, x: m.i0_(x),
    lambda m, x: x.mvlgamma_(1),
])
def test_in_place(torch, call):
    def run(m):
        x = m.tensor([1.5, 2.5, 4.0])
        r = call(m, x)
        return r is x, x
    (gs, gx), (ts, tx) = run(G), run(torch)
    assert gs and ts
    assert_same_values(gx, tx)
    check_error(lambda m: call(m, m.tensor([2, 3])))
    check_error(lambda m: call(m, m.tensor([2, 3], dtype=m.int32)))
    check_error(lambda m: call(m, m.tensor([True])))


@pytest.mark.parametrize("call", [
    lambda m, x, o: m.lgamma(x, out=o), lambda m, x, o: m.digamma(x, out=o),
    lambda m, x, o: m.polygamma(2, x, out=o), lambda m, x, o: m.mvlgamma(x, 2, out=o),
    lambda m, x, o: m.i0(x, out=o), lambda m, x, o: m.special.i0e(x, out=o),
    lambda m, x, o: m.special.i1(x, out=o), lambda m, x, o: m.special.i1e(x, out=o),
    lambda m, x, o: m.special.gammaln(x, out=o), lambda m, x, o: m.special.psi(x, out=o),
    lambda m, x, o: m.special.multigammaln(x, 2, out=o),
    lambda m, x, o: m.special.polygamma(1, x, out=o), lambda m, x, o: m.special.ndtr(x, out=o),
    lambda m, x, o: m.special.entr(x, out=o), lambda m, x, o: m.special.xlog1py(x, x, out=o),
    lambda m, x, o: m.special.erfinv(x / 10, out=o), lambda m, x, o: m.special.expit(x, out=o),
])
def test_out(torch, call):
    def run(m):
        o = m.empty(0, dtype=m.float64)
        r = call(m, m.tensor([1.5, 2.5, 4.0], dtype=m.float64), o)
        return r is o, o
    (gs, go), (ts, to) = run(G), run(torch)
    assert gs and ts
    assert_same_values(go, to)


@pytest.mark.parametrize("call", [
    lambda m: m.polygamma(-1, m.ones(2)),
    lambda m: m.ones(2).polygamma_(-1),
    lambda m: m.polygamma(1.0, m.ones(2)),
    lambda m: m.polygamma(m.ones(2), 1),
    lambda m: m.mvlgamma(m.ones(2), 0),
    lambda m: m.mvlgamma(m.ones(2), p=2.0),
    lambda m: m.mvlgamma(m.tensor([True]), 1),
    lambda m: m.special.multigammaln(m.ones(2), 0),
    lambda m: m.special.polygamma(1, [1.0]),
    lambda m: m.special.i0e([1.0]),
    lambda m: m.special.i1(m.ones(2), 3),
    lambda m: m.special.gammaln([1.0]),
    lambda m: m.special.entr([1.0]),
    lambda m: m.special.xlog1py(2.0, 3.0),
    lambda m: m.special.logsumexp([1.0], 0),
    lambda m: m.special.softmax(m.ones(2)),
    lambda m: m.lgamma([1.0]),
    lambda m: m.ones(2, requires_grad=True).lgamma_(),
    lambda m: m.lgamma(m.ones(2, requires_grad=True), out=m.empty(2)),
])
def test_errors(torch, call):
    check_error(call)


def test_node_names_and_saved_values(torch):
    def run(m):
        x = m.tensor([1.5, 2.5], requires_grad=True)
        p, v = m.polygamma(3, x), m.mvlgamma(x + 2, 2)
        return p.grad_fn._saved_n, v.grad_fn._saved_p, type(p.grad_fn).__name__
    assert run(G) == run(torch)
    assert type(run(G)[0]) is int


# ---- gradrs.special ------------------------------------------------------------------------

X = [-3.5, -1.0, -0.25, 0.0, 0.3, 1.0, 2.5, 9.0, math.inf, -math.inf, math.nan]


@pytest.mark.parametrize("name,call", [
    ("erf", None), ("erfc", None), ("exp2", None), ("expm1", None), ("log1p", None),
    ("expit", None), ("sinc", None), ("gammaln", None), ("digamma", None), ("psi", None),
    ("i0", None), ("i0e", None), ("i1", None), ("i1e", None), ("ndtr", None), ("entr", None),
    ("round", None),
    ("erfinv", lambda f, x: f(x / 10)),
    ("logit", lambda f, x: f(x / 10, 0.05)),
    ("round", lambda f, x: f(x * 3.37, decimals=1)),
    ("polygamma", lambda f, x: f(2, x)),
    ("multigammaln", lambda f, x: f(x.abs() + 3, 2)),
    ("softmax", lambda f, x: f(x.nan_to_num(posinf=2, neginf=-2), 0)),
    ("log_softmax", lambda f, x: f(x.nan_to_num(posinf=2, neginf=-2), 0, dtype=x.dtype)),
    ("logsumexp", lambda f, x: f(x.reshape(1, -1), 1, keepdim=True)),
    ("xlogy", lambda f, x: f(x, x.abs())),
    ("xlog1py", lambda f, x: f(x, x)),
    ("xlog1py", lambda f, x: f(2, x)),
    ("xlog1py", lambda f, x: f(x, 0.5)),
    ("xlogy", lambda f, x: f(x, 3)),
])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_special_functions(torch, name, call, dtype):
    call = call or (lambda f, x: f(x))

    def run(m):
        x = m.tensor(X, dtype=getattr(m, dtype))
        return call(getattr(m.special, name), x)
    assert_same_values(run(G), run(torch))


@pytest.mark.parametrize("name,call", [
    ("entr", lambda f, x: f(x)), ("ndtr", lambda f, x: f(x)), ("expit", lambda f, x: f(x)),
    ("xlog1py", lambda f, x: f(x, x * 0.5)), ("xlog1py", lambda f, x: f(2.0, x)),
    ("xlog1py", lambda f, x: f(x, 1.5)), ("xlog1py", lambda f, x: f(x.reshape(2, 1), x)),
    ("i0e", lambda f, x: f(x)), ("gammaln", lambda f, x: f(x)),
])
def test_special_gradients(torch, name, call):
    def run(m):
        x = m.tensor([0.25, 1.5], dtype=m.float64, requires_grad=True)
        y = call(getattr(m.special, name), x)
        (g,) = m.autograd.grad(y.sum(), x, create_graph=True)
        # xlog1py's derivative in `input` is constant in it: no second derivative
        gg = m.autograd.grad(g.sum(), x)[0] if g.requires_grad else None
        return y, g, gg
    (gy, gg1, gg2), (ty, tg1, tg2) = run(G), run(torch)
    assert type(gy.grad_fn).__name__ == type(ty.grad_fn).__name__
    assert_same_values(gy.detach(), ty.detach())
    assert_same_values(gg1.detach(), tg1.detach())
    assert (gg2 is None) == (tg2 is None)
    if tg2 is not None:
        assert_same_values(gg2, tg2)


def test_special_composed_gradcheck():
    x = G.tensor([0.3, 1.2, 2.5], dtype=G.float64, requires_grad=True)
    y = G.tensor([0.1, -0.4, 2.0], dtype=G.float64, requires_grad=True)
    for f in (G.special.entr, G.special.ndtr, lambda v: G.special.xlog1py(v, y),
              lambda v: G.special.xlog1py(y, v)):
        assert G.autograd.gradcheck(f, (x,))
        assert G.autograd.gradgradcheck(f, (x,))


@pytest.mark.parametrize("name", ["entr", "ndtr", "i0e", "i1", "gammaln", "psi"])
def test_special_int_inputs(torch, name):
    g = getattr(G.special, name)(G.tensor([0, 1, 2]))
    t = getattr(torch.special, name)(torch.tensor([0, 1, 2]))
    assert_same_values(g, t)


def test_special_names(torch):
    missing = sorted(set(torch.special.__all__) - set(G.special.__all__))
    assert set(G.special.__all__) <= set(torch.special.__all__)
    for name in G.special.__all__:
        assert callable(getattr(G.special, name))
    # What is left out, and said so in gradrs/special.py's docstring.
    for name in missing:
        assert f"`{name}`" in G.special.__doc__, name


def test_top_level_polygamma_mvlgamma_errors(torch):
    assert_same_error(lambda: G.polygamma(1), lambda: torch.polygamma(1))
    assert_same_error(lambda: G.mvlgamma(G.ones(1)), lambda: torch.mvlgamma(torch.ones(1)))


# torch.special's functions gradrs.special takes from their declarations (`special_<name>` in
# src/ops/unary_decl.rs): each is checked here without a line of its own.
_KINDS = {r["name"]: r["kind"] for r in G._native._declared_ops()}
DECLARED = [n for n in G.special._FROM_DECLARATIONS if _KINDS[f"special_{n}"] == "unary"]
# Where the algorithms' inputs live besides GRID: (0, 1) for ndtri, the far tails of log_ndtr
# and erfcx, the seams (5 for the Bessel J / Y, 2 for K, 50 and -6.1 / -26.7 for erfcx).
SPECIAL_GRID = GRID + [
    1e-300, 1e-40, 1e-20, 1e-10, 1e-5, 0.01, 0.1, 0.13533528323661269189, 0.2, 0.3, 0.45, 0.55,
    0.8, 0.8646647167633873, 0.9, 0.99, 0.999999, 4.99, 5.0, 5.01, 1.99, 2.01, 49.9, 50.0,
    50.1, 5e7, 6e7, -6.0, -6.2, -26.6, -26.8, -38.0, -40.0, -1e3, 1e4,
]
# gradrs's kernels are PyTorch's algorithms in the same precision: within 4 ulps (libm vs
# glibc's exp / log / sin / cos), or 16 machine epsilons of max(1, |value|) where PyTorch's build
# contracts the series' multiply-adds into FMAs and the sums cancel (near the Bessel functions'
# zeros, K0's log term, I1's Clenshaw sum near 8).
SPECIAL_ULPS = 4
SPECIAL_EPS = 16


def _special_bad(got, want, dtype):
    ulps = _ulps(got, want, dtype)
    with np.errstate(invalid="ignore"):
        diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
        near = diff <= SPECIAL_EPS * np.finfo(dtype).eps * np.maximum(1.0, np.abs(want))
    return (ulps > SPECIAL_ULPS) & ~near


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", DECLARED)
def test_declared_special_values(torch, name, dtype):
    x = np.array(SPECIAL_GRID, dtype=dtype)
    got = getattr(G.special, name)(G.tensor(x)).numpy()
    want = getattr(torch.special, name)(torch.tensor(x)).numpy()
    bad = _special_bad(got, want, dtype)
    assert not bad.any(), list(zip(x[bad], got[bad], want[bad]))[:8]


@pytest.mark.parametrize("name", DECLARED)
def test_declared_special_dtypes_and_errors(torch, name):
    for values, dtype in (([0, 1, 3], "int64"), ([True, False], "bool"), ([1, 2], "int32")):
        g = getattr(G.special, name)(G.tensor(values, dtype=getattr(G, dtype)))
        t = getattr(torch.special, name)(torch.tensor(values, dtype=getattr(torch, dtype)))
        assert_same_values(g, t)
    assert_same_error(
        lambda: getattr(G.special, name)(G.ones(2, dtype=G.float16)),
        lambda: getattr(torch.special, name)(torch.ones(2, dtype=torch.float16)))
    assert_same_error(lambda: getattr(G.special, name)([1.0]),
                      lambda: getattr(torch.special, name)([1.0]))


@pytest.mark.parametrize("name", DECLARED)
def test_declared_special_autograd(torch, name):
    def run(m):
        x = m.tensor([0.25, 0.5, 1.5, 3.0, 7.0], dtype=m.float64, requires_grad=True)
        y = getattr(m.special, name)(x)
        if not y.requires_grad:
            return y, None, None
        (g,) = m.autograd.grad(y.sum(), x, create_graph=True)
        return y, g, type(y.grad_fn).__name__
    (gy, gg, gname), (ty, tg, tname) = run(G), run(torch)
    assert gy.requires_grad == ty.requires_grad and gname == tname
    assert_same_values(gy.detach(), ty.detach())
    if tg is not None:
        assert_same_values(gg.detach(), tg.detach())
        x = G.tensor([0.3, 0.6, 0.9], dtype=G.float64, requires_grad=True)
        assert G.autograd.gradcheck(getattr(G.special, name), (x,))


@pytest.mark.parametrize("name", DECLARED)
def test_declared_special_out(torch, name):
    def run(m):
        out = m.empty(3, dtype=m.float64)
        r = getattr(m.special, name)(m.tensor([0.2, 0.7, 2.0], dtype=m.float64), out=out)
        return r is out, out
    (gs, g), (ts, t) = run(G), run(torch)
    assert gs == ts
    assert_same_values(g, t)


# The declared binary ones (the orthogonal polynomials): x over a grid with the edges, n over
# degrees around the kernels' switches (6, 8, the Hermite limits), negative, fractional, NaN.
# Not x = NaN: PyTorch's recurrences return an uninitialized value for it past degree 1.
# The orthogonal polynomials (x, n); zeta (input, other; differentiable in other) is tested in
# tests/test_zeta_unfold.py.
DECLARED_BINARY = [n for n in G.special._FROM_DECLARATIONS
                   if _KINDS[f"special_{n}"] == "binary" and n != "zeta"]
X_POLY = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 0.25, 0.75, 0.999, -0.999, 1.5, -2.5, 7.0, 1e-7,
          0.3333, math.inf, -math.inf]
N_POLY = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 12.0, 30.0, 100.0, 129.0, 513.0,
          -1.0, 2.7, math.nan, math.inf]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", DECLARED_BINARY)
def test_declared_special_binary_values(torch, name, dtype):
    x, n = (np.array(v, dtype=dtype) for v in np.meshgrid(X_POLY, N_POLY))
    got = getattr(G.special, name)(G.tensor(x), G.tensor(n)).numpy()
    want = getattr(torch.special, name)(torch.tensor(x), torch.tensor(n)).numpy()
    # The recurrences' rounding (PyTorch's FMA-contracted) drifts with the degree: 8 n eps.
    with np.errstate(invalid="ignore"):
        drift = np.abs(got.astype(np.float64) - want) <= (
            8 * np.maximum(np.nan_to_num(n, posinf=1), 1) * np.finfo(dtype).eps
            * np.maximum(1.0, np.abs(want)))
    bad = _special_bad(got, want, dtype) & ~drift
    assert not bad.any(), list(zip(x[bad], n[bad], got[bad], want[bad]))[:8]


@pytest.mark.parametrize("name", DECLARED_BINARY)
def test_declared_special_binary_overloads(torch, name):
    def run(m):
        x = m.tensor([0.25, -0.5, 2.0], requires_grad=True)
        n = m.tensor([3.0, 9.0, 4.0], dtype=m.float64)
        f = getattr(m.special, name)
        out = m.empty(3)
        r = f(x, 5, out=out)
        return [f(x, n), f(0.5, n), f(x, 3), f(x=x, n=n), f(m.tensor([1, 2]), 2), out, r is out,
                f(x, n).requires_grad]
    for g, t in zip(run(G), run(torch)):
        if isinstance(t, bool):
            assert g == t
        else:
            assert_same_values(g.detach(), t.detach())
    assert_same_error(lambda: getattr(G.special, name)(G.ones(2, dtype=G.float16), 2),
                      lambda: getattr(torch.special, name)(torch.ones(2, dtype=torch.float16), 2))
    assert_same_error(lambda: getattr(G.special, name)([1.0], 2),
                      lambda: getattr(torch.special, name)([1.0], 2))
    assert_same_error(lambda: getattr(G.special, name)(1.0, 2),
                      lambda: getattr(torch.special, name)(1.0, 2))
