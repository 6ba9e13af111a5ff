"""The float32 transcendental kernels and cross-entropy's backward nodes on the host (issues
21 / 26, CPU training speed): `vmath`'s exp / tanh (and sigmoid through it) held to an ulp or
two of PyTorch's on sweeps with the edge values, the same bits at every vector width, and
LogSoftmaxBackward0 / NllLossBackward0 computed in one pass (outside create_graph) with the
bits of the composed formulas they replace, PyTorch's values and node names."""

import numpy as np
import pytest
from conftest import G, assert_bits_equal, assert_same_values


def _ulps(a, b):
    """Distance in float32 ulps (ordered bit patterns); NaN = NaN, inf = inf only."""
    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
    ia, ib = a.view(np.int32).astype(np.int64), b.view(np.int32).astype(np.int64)
    ia = np.where(ia < 0, -(ia & 0x7FFFFFFF), ia)
    ib = np.where(ib < 0, -(ib & 0x7FFFFFFF), ib)
    d = np.abs(ia - ib)
    both_nan = np.isnan(a) & np.isnan(b)
    return np.where(both_nan, 0, np.where(np.isnan(a) | np.isnan(b), 1 << 40, d))


_EDGES = [0.0, -0.0, 1e-45, -1e-45, 1e-38, -1e-38, 1e-30, -1e-30, 1e-8, -1e-8, 0.5, -0.5,
          88.7, 88.72, 88.73, 89.0, 89.5, -88.7, -87.3, -103.0, -103.9, -104.0, -104.5, 103.0,
          -150.0, 200.0, -200.0, -1e30, 1e30, float("inf"), float("-inf"), float("nan")]


def _sweep():
    """Dense float32 values over exp's whole range, the edges, and a count that leaves a
    tail after every vector width."""
    x = np.concatenate([np.linspace(-104.5, 89.5, 400_003, dtype=np.float32),
                        np.linspace(-12, 12, 200_001, dtype=np.float32),
                        np.geomspace(1e-40, 1.0, 5003, dtype=np.float32),
                        -np.geomspace(1e-40, 1.0, 5003, dtype=np.float32),
                        np.array(_EDGES, np.float32)])
    return x


@pytest.mark.parametrize("op", ["exp", "sigmoid", "tanh"])
def test_float32_transcendentals_within_ulps_of_torch(torch, op):
    x = _sweep()
    got = getattr(G, op)(G.tensor(x)).numpy()
    want = getattr(torch, op)(torch.tensor(x)).numpy()
    # Specials exactly: exp(-inf) = 0, exp(inf) = inf, NaN stays NaN, overflow is inf,
    # sigmoid / tanh of +-inf are 0 / 1 / +-1, tanh keeps the sign of zero.
    special = ~np.isfinite(want) | ~np.isfinite(x) | (x == 0)
    assert_bits_equal(G.tensor(got[special]), torch.tensor(want[special]), f"{op} specials")
    # Elsewhere exp and tanh are within about an ulp of the exact value (PyTorch's Sleef
    # kernels too), so within two of each other; sigmoid's 1 / (1 + e^-x) rounds three times,
    # both libraries' within 2.24 ulps of the exact value.
    d = _ulps(got, want)
    bound = {"exp": 2, "tanh": 2, "sigmoid": 3}[op]
    assert d.max() <= bound, (op, x[np.argmax(d)], got[np.argmax(d)], want[np.argmax(d)])


@pytest.mark.parametrize("op", ["exp", "sigmoid", "tanh"])
def test_float32_transcendentals_within_an_ulp_of_float64(op):
    x = _sweep()
    x = x[np.isfinite(x)]
    got = getattr(G, op)(G.tensor(x)).numpy().astype(np.float64)
    want = getattr(G, op)(G.tensor(x.astype(np.float64))).numpy()  # libm's, float64
    with np.errstate(over="ignore", invalid="ignore"):  # e^x past float32's range
        ulp = np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
        err = np.abs(got - want) / np.maximum(ulp, np.float64(np.float32(1e-45)))
    finite = np.abs(want) < 3e38
    if op == "sigmoid":  # below -88.7, e^-x overflows float32 and 1 / (1 + inf) is 0 (torch's too)
        finite &= x > -88.7
    assert err[finite].max() <= {"exp": 1.05, "sigmoid": 2.5, "tanh": 1.5}[op]


@pytest.mark.parametrize("op", ["exp", "sigmoid", "tanh", "silu", "log_softmax", "softmax"])
def test_every_position_rounds_alike(op):
    # The vector body (16, 8 or 4 lanes) and the scalar tail give each element the same bits:
    # an element computed alone equals it computed inside a long run.
    x = np.linspace(-30, 30, 37, dtype=np.float32) * np.float32(1.37)
    f = {"silu": G.nn.functional.silu, "log_softmax": lambda t: t.unsqueeze(1).log_softmax(1),
         "softmax": lambda t: t.unsqueeze(1).softmax(1)}.get(op) or getattr(G, op)
    whole = f(G.tensor(x)).numpy().reshape(-1)
    for i in range(len(x)):
        one = f(G.tensor(x[i:i + 1])).numpy().reshape(-1)
        assert one.view(np.uint32)[0] == whole.view(np.uint32)[i], (op, i, x[i])


def _softmax_grads(fn, dtype, shape, dim, g_layout):
    gen = np.random.default_rng(0)
    x = G.tensor(gen.standard_normal(shape) * 3, dtype=getattr(G, dtype), requires_grad=True)
    g = gen.standard_normal(shape)
    g = G.tensor(g, dtype=x.dtype) if g_layout == "contiguous" else \
        G.tensor(np.ascontiguousarray(g.T), dtype=x.dtype).t()
    (fused,) = G.autograd.grad(getattr(x, fn)(dim), x, g)
    # Under create_graph the node composes its formula from tensor ops: g - exp(y) * sum(g),
    # y * (g - sum(g * y)).
    (composed,) = G.autograd.grad(getattr(x, fn)(dim), x, g, create_graph=True)
    assert composed.requires_grad and not fused.requires_grad
    return x, g, fused, composed


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,dim", [((7, 13), 1), ((7, 13), 0), ((13, 7), -1), ((3, 5, 4), 1),
                                       ((3, 5, 4), -1), ((2, 40, 3), 0), ((1000,), 0)])
@pytest.mark.parametrize("g_layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("fn", ["log_softmax", "softmax"])
def test_softmax_backward_is_the_composed_formula_bit_for_bit(fn, dtype, shape, dim, g_layout):
    if g_layout == "transposed" and len(shape) != 2:
        pytest.skip("2-D only")
    _, _, fused, composed = _softmax_grads(fn, dtype, shape, dim, g_layout)
    np.testing.assert_array_equal(np.ascontiguousarray(fused.numpy()).view(np.uint8),
                                  np.ascontiguousarray(composed.detach().numpy()).view(np.uint8))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("shape,dim", [((7, 13), 1), ((3, 5, 4), 1), ((), 0), ((0, 4), 1), ((4, 0), 1)])
@pytest.mark.parametrize("fn", ["log_softmax", "softmax"])
def test_softmax_backward_matches_torch(torch, fn, dtype, shape, dim):
    gen = np.random.default_rng(1)
    x, g = gen.standard_normal(shape) * 2, gen.standard_normal(shape)
    outs = []
    for lib in (G, torch):
        dt = getattr(lib, dtype)
        xt = lib.tensor(x, dtype=dt, requires_grad=True)
        y = getattr(xt, fn)(dim)
        assert type(y.grad_fn).__name__ == {"log_softmax": "LogSoftmaxBackward0",
                                             "softmax": "SoftmaxBackward0"}[fn]
        y.backward(lib.tensor(g, dtype=dt))
        outs.append(xt.grad)
    assert_same_values(*outs)


def _nll_data(n, c, weight, ignore, one_d):
    gen = np.random.default_rng(2)
    x = gen.standard_normal((n, c)) * 2
    t = gen.integers(0, c, n)
    if ignore:
        t[::3] = 1
    w = gen.random(c) + 0.5 if weight else None
    return (x[0] if one_d else x), (t[0] if one_d else t), w


def _nll(lib, dtype, logp, data, ignore, reduction):
    _, t, w = data
    return lib.nn.functional.nll_loss(
        logp, lib.tensor(t), weight=None if w is None else lib.tensor(w, dtype=getattr(lib, dtype)),
        ignore_index=1 if ignore else -100, reduction=reduction)


_NLL = [(5, 7, False, False, "mean", False), (6, 9, True, False, "mean", False),
        (6, 9, True, True, "sum", False), (8, 4, False, True, "none", False),
        (8, 4, True, False, "none", False), (1, 6, False, False, "mean", True),
        (1, 6, True, False, "sum", True), (64, 1000, False, False, "mean", False)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", _NLL)
def test_nll_loss_backward_matches_torch(torch, dtype, case):
    n, c, weight, ignore, reduction, one_d = case
    data = _nll_data(n, c, weight, ignore, one_d)
    outs = []
    for lib in (G, torch):
        xt = lib.tensor(data[0], dtype=getattr(lib, dtype), requires_grad=True)
        loss = _nll(lib, dtype, xt.log_softmax(-1), data, ignore, reduction)
        assert type(loss.grad_fn).__name__ == "NllLossBackward0"
        assert type(loss.grad_fn.next_functions[0][0]).__name__ == "LogSoftmaxBackward0"
        logp = xt.log_softmax(-1).detach().requires_grad_()
        y = _nll(lib, dtype, logp, data, ignore, reduction)
        # A negative incoming gradient: the entries off the targets stay +0 (PyTorch's
        # zero-filled gradient), not -0 (0 * g).
        g = -(lib.arange(y.numel(), dtype=y.dtype) + 1.5).reshape(y.shape)
        (dlogp,) = lib.autograd.grad(y, logp, g)
        loss.sum().backward()
        outs.append((dlogp, xt.grad, loss.detach()))
    for a, b in zip(*outs):
        assert_same_values(a, b)
    assert (np.signbit(outs[0][0].numpy()) == np.signbit(outs[1][0].numpy())).all()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", _NLL)
def test_nll_loss_backward_is_the_dense_formula_bit_for_bit(dtype, case):
    n, c, weight, ignore, reduction, one_d = case
    data = _nll_data(n, c, weight, ignore, one_d)
    x = G.tensor(data[0], dtype=getattr(G, dtype), requires_grad=True)
    loss = _nll(G, dtype, x.log_softmax(-1), data, ignore, reduction)
    g = (G.arange(loss.numel(), dtype=loss.dtype) * 0.37 + 0.6).reshape(loss.shape)
    # Outside create_graph both nodes run their one-pass host kernels; under it they compose
    # tensor ops (a dense derivative matrix times g, g - exp(y) * sum(g)).
    (fused,) = G.autograd.grad(loss, x, g, retain_graph=True)
    (composed,) = G.autograd.grad(loss, x, g, create_graph=True)
    assert composed.requires_grad
    np.testing.assert_array_equal(fused.numpy().view(np.uint8),
                                  composed.detach().numpy().view(np.uint8))


def test_cross_entropy_double_backward_and_forward_ad_match_torch(torch):
    gen = np.random.default_rng(3)
    x, t = gen.standard_normal((6, 5)), gen.integers(0, 5, 6)
    tangent = gen.standard_normal((6, 5))
    outs = []
    for lib in (G, torch):
        xt = lib.tensor(x, requires_grad=True)
        loss = lib.nn.functional.cross_entropy(xt, lib.tensor(t))
        (gx,) = lib.autograd.grad(loss, xt, create_graph=True)
        (ggx,) = lib.autograd.grad((gx * gx).sum(), xt)
        jvp = lib.func.jvp(lambda v, lib=lib: lib.nn.functional.cross_entropy(v, lib.tensor(t)),
                           (lib.tensor(x),), (lib.tensor(tangent),))[1]
        outs.append((gx.detach(), ggx, jvp))
    for a, b in zip(*outs):
        assert_same_values(a, b)
