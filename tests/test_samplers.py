"""The distributions' native samplers vs PyTorch: `_standard_gamma` (and its reparameterized
gradient), `_sample_dirichlet` / `_dirichlet_grad`, `binomial` draw PyTorch's CPU numbers for
a seed, bit for bit, and raise its errors."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import G, assert_same_error, check_warning, node_name

DTYPES = ["float32", "float64"]
ALPHAS = [0.01, 0.3, 0.9999, 1.0, 2.5, 7.0, 30.0, 1e4, 0.0, 1e-30]
COUNTS = [0.0, 1.0, 5.0, 10.0, 20.0, 100.0, 1000.0, 37.0, 1e6]
PROBS = [0.0, 0.05, 0.3, 0.5, 0.7, 0.95, 1.0, 0.123]


def _both(torch, seed, fn):
    """fn(module) under manual_seed(seed) in both libraries, as numpy, plus one more
    uniform each (the stream position after the draw)."""
    torch.manual_seed(seed)
    t = fn(torch).numpy()
    t_next = float(torch.rand(()))
    G.manual_seed(seed)
    g = fn(G).numpy()
    g_next = float(G.rand(()))
    return g, t, g_next, t_next


def _same_bits(g, t):
    assert g.dtype == t.dtype and g.shape == t.shape
    np.testing.assert_array_equal(g, t)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("seed", [0, 1, 7])
def test_standard_gamma_stream(torch, dtype, seed):
    def draw(m):
        return m._standard_gamma(m.tensor(ALPHAS * 40, dtype=getattr(m, dtype)).view(20, -1))

    g, t, gn, tn = _both(torch, seed, draw)
    _same_bits(g, t)
    assert gn == tn


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("k", [1, 2, 3, 4, 7, 37, 70])
def test_sample_dirichlet_stream(torch, dtype, k):
    # Rows of k: the normalizing sum follows PyTorch's cascade order for every row length.
    def draw(m):
        base = m.tensor([0.05, 0.5, 3.0, 10.0, 1e-3], dtype=getattr(m, dtype))
        return m._sample_dirichlet(base.repeat(6 * k)[: 6 * k].view(6, k))

    g, t, gn, tn = _both(torch, k, draw)
    _same_bits(g, t)
    assert gn == tn


def test_sample_dirichlet_zero_dim_and_empty(torch):
    for make in (lambda m: m.tensor(2.0), lambda m: m.zeros(0, 3), lambda m: m.ones(2, 0)):
        g, t, gn, tn = _both(torch, 3, lambda m, make=make: m._sample_dirichlet(make(m)))
        _same_bits(g, t)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("seed", [0, 5])
def test_binomial_stream(torch, dtype, seed):
    n = [c for c in COUNTS for _ in PROBS] * 4
    p = [q for _ in COUNTS for q in PROBS] * 4

    def draw(m):
        d = getattr(m, dtype)
        return m.binomial(m.tensor(n, dtype=d), m.tensor(p, dtype=d))

    g, t, gn, tn = _both(torch, seed, draw)
    _same_bits(g, t)
    assert gn == tn


def test_binomial_nan_and_negative(torch):
    def draw(m):
        return m.binomial(m.tensor([10.0, -3.0, 10.0, 0.0]), m.tensor([float("nan"), 0.5, -0.2, 0.5]))

    g, t, _, _ = _both(torch, 0, draw)
    _same_bits(g, t)


def test_generator_argument(torch):
    tg = torch.Generator().manual_seed(11)
    gg = G.Generator().manual_seed(11)
    a = [0.5, 2.0, 9.0]
    _same_bits(G._standard_gamma(G.tensor(a), gg).numpy(),
               torch._standard_gamma(torch.tensor(a), tg).numpy())
    _same_bits(G._sample_dirichlet(G.tensor(a), generator=gg).numpy(),
               torch._sample_dirichlet(torch.tensor(a), generator=tg).numpy())
    _same_bits(G.binomial(G.tensor(a) * 10, G.tensor([0.2, 0.5, 0.9]), generator=gg).numpy(),
               torch.binomial(torch.tensor(a) * 10, torch.tensor([0.2, 0.5, 0.9]), generator=tg).numpy())


@pytest.mark.parametrize("dtype", DTYPES)
def test_standard_gamma_grad_values(torch, dtype):
    rng = np.random.default_rng(0)
    alpha = (rng.random(3000) * 20 + 0.01).astype(dtype)
    # x over every branch: the small-x series, the large-alpha saddle point, the rational fit.
    x = np.concatenate([rng.random(1000) * 0.8, rng.random(1000) * 30, alpha[2000:] * 1.05])
    x = x.astype(dtype)
    t = torch._standard_gamma_grad(torch.tensor(alpha), torch.tensor(x)).numpy()
    g = G._standard_gamma_grad(G.tensor(alpha), G.tensor(x)).numpy()
    _same_bits(g, t)


@pytest.mark.parametrize("dtype", DTYPES)
def test_dirichlet_grad_values(torch, dtype):
    rng = np.random.default_rng(1)
    n = 4000
    x = rng.random(n).astype(dtype)
    alpha = (rng.random(n) * 12 + 0.05).astype(dtype)
    total = (alpha + rng.random(n) * 12 + 0.05).astype(dtype)
    t = torch._dirichlet_grad(torch.tensor(x), torch.tensor(alpha), torch.tensor(total)).numpy()
    g = G._dirichlet_grad(G.tensor(x), G.tensor(alpha), G.tensor(total)).numpy()
    _same_bits(g, t)


def test_standard_gamma_autograd(torch):
    def run(m):
        m.manual_seed(4)
        a = m.tensor([0.5, 2.0, 12.0], requires_grad=True)
        s = m._standard_gamma(a)
        (ga,) = m.autograd.grad(s.sum(), a)
        return s, ga

    (gs, gg), (ts, tg) = run(G), run(torch)
    assert node_name(gs.grad_fn) == node_name(ts.grad_fn) == "StandardGammaBackward0"
    _same_bits(gg.numpy(), tg.numpy())
    _same_bits(gs.detach().numpy(), ts.detach().numpy())
    for m in (G, torch):
        m.manual_seed(0)
        a = m.tensor([1.0, 2.0], requires_grad=True)
        s = m._standard_gamma(a)
        assert s.grad_fn._saved_self.equal(a) and s.grad_fn._saved_result.equal(s)


def test_standard_gamma_grad_not_differentiable(torch):
    def second(m):
        a = m.tensor([1.0, 2.0], requires_grad=True)
        s = m._standard_gamma(a)
        (ga,) = m.autograd.grad(s.sum(), a, create_graph=True)
        return m.autograd.grad(ga.sum(), a)

    assert_same_error(lambda: second(G), lambda: second(torch))
    for m in (G, torch):
        r = m._standard_gamma_grad(m.tensor([1.0], requires_grad=True), m.tensor([0.5]))
        assert node_name(r.grad_fn) == "StandardGammaGradBackward0"


def test_not_implemented_nodes(torch):
    def dirichlet(m):
        c = m.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
        d = m._sample_dirichlet(c)
        assert node_name(d.grad_fn) == "NotImplemented"
        d.sum().backward()

    def binomial(m):
        n = m.tensor([10.0], requires_grad=True)
        b = m.binomial(n, m.tensor([0.3]))
        assert node_name(b.grad_fn) == "NotImplemented"
        b.sum().backward()

    def dirichlet_grad(m):
        x = m.tensor([0.2, 0.8], requires_grad=True)
        r = m._dirichlet_grad(x, m.tensor([1.0, 2.0]), m.tensor([3.0, 3.0]))
        r.sum().backward()

    for f in (dirichlet, binomial, dirichlet_grad):
        assert_same_error(lambda f=f: f(G), lambda f=f: f(torch))


def test_forward_ad_errors(torch):
    def run(m, f):
        import importlib

        fw = importlib.import_module(m.__name__ + ".autograd.forward_ad")
        with fw.dual_level():
            d = fw.make_dual(m.tensor([1.0, 2.0]), m.tensor([1.0, 1.0]))
            return f(m, d)

    for f in (lambda m, d: m._standard_gamma(d),
              lambda m, d: m.binomial(d, m.tensor([0.5, 0.5]))):
        assert_same_error(lambda f=f: run(G, f), lambda f=f: run(torch, f))


@pytest.mark.parametrize("call", [
    lambda m: m._standard_gamma(m.tensor([1, 2])),
    lambda m: m._standard_gamma(m.tensor([1.0], dtype=m.float16)),
    lambda m: m._standard_gamma(m.tensor([1.0], dtype=m.bfloat16)),
    lambda m: m._standard_gamma_grad(m.tensor([1, 2]), m.tensor([1, 2])),
    lambda m: m._standard_gamma_grad(m.tensor([1.0, 2]), m.tensor([0.5, 3.0], dtype=m.float64)),
    lambda m: m._standard_gamma_grad(m.tensor([1.0, 2]), m.tensor([0.5, 3.0, 4.0])),
    lambda m: m._sample_dirichlet(m.tensor([1, 2])),
    lambda m: m._sample_dirichlet(m.tensor([1.0], dtype=m.float16)),
    lambda m: m._dirichlet_grad(m.tensor([1, 2]), m.tensor([1, 2]), m.tensor([1, 2])),
    lambda m: m._dirichlet_grad(m.tensor([0.1]), m.tensor([1.0], dtype=m.float64), m.tensor([1.0])),
    lambda m: m.binomial(m.tensor([10]), m.tensor([3])),
    lambda m: m.binomial(m.tensor([10.0]), m.tensor([3])),
    lambda m: m.binomial(m.tensor([10.0]), m.tensor([True])),
    lambda m: m.binomial(m.tensor([10.0]), m.tensor([0.3], dtype=m.float64)),
    lambda m: m.binomial(m.tensor([10.0], dtype=m.float16), m.tensor([0.3], dtype=m.float16)),
    lambda m: m.binomial(m.tensor([10.0, 2.0]), m.tensor([0.3, 0.2, 0.1])),
    lambda m: m._standard_gamma(m.tensor([1.0]), generator=3),
])
def test_errors(torch, call):
    assert_same_error(lambda: call(G), lambda: call(torch))


def test_resize_warning(torch):
    # The output starts with the first operand's shape; a broadcast resizes it with a warning.
    check_warning(lambda m: m._standard_gamma_grad(m.tensor([[1.0, 2.0]]), m.tensor([[0.5], [3.0]])))
    check_warning(lambda m: m.binomial(m.tensor([10.0]), m.tensor([0.3, 0.5])))


def test_gpu_matches_cpu():
    if not G.gpu.is_available():
        pytest.skip("no GPU adapter")
    G.manual_seed(2)
    cpu = G._standard_gamma(G.tensor([0.5, 3.0]))
    G.manual_seed(2)
    gpu = G._standard_gamma(G.tensor([0.5, 3.0], device="gpu"))
    assert gpu.device.type == "gpu"
    _same_bits(gpu.cpu().numpy(), cpu.numpy())
