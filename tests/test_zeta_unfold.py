"""torch.special.zeta and Tensor.unfold against PyTorch: zeta's values over wide ranges and
its edges (poles, negative q, inf, NaN), its gradient in q; unfold as a view (shared storage,
`_base`, writes through it, saved attributes) and its backward with overlapping windows."""

import numpy as np
import pytest
from conftest import G, assert_same_error


def _grid():
    xs = [1.0, 1.0000001, 1.5, 2.0, 3.0, 7.5, 20.0, 60.0, 0.5, -2.0, 0.0, np.inf, np.nan]
    qs = [1e-8, 0.25, 1.0, 2.5, 9.0, 1e3, 1e8, 0.0, -1.0, -1.5, -2.25, -np.inf, np.inf, np.nan]
    return np.array([(x, q) for x in xs for q in qs]).T


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_zeta_values(torch, dtype):
    x, q = _grid()
    got = G.special.zeta(G.tensor(x, dtype=getattr(G, dtype)),
                         G.tensor(q, dtype=getattr(G, dtype))).numpy()
    want = torch.special.zeta(torch.tensor(x, dtype=getattr(torch, dtype)),
                              torch.tensor(q, dtype=getattr(torch, dtype))).numpy()
    np.testing.assert_array_equal(got, want)


def test_zeta_random_values(torch):
    rng = np.random.default_rng(5)
    x = rng.uniform(1.0, 40.0, 2000)
    q = np.concatenate([rng.uniform(-30.0, 30.0, 1000), 10 ** rng.uniform(-6, 6, 1000)])
    got = G.special.zeta(G.tensor(x), G.tensor(q)).numpy()
    want = torch.special.zeta(torch.tensor(x), torch.tensor(q)).numpy()
    np.testing.assert_array_equal(got, want)


def test_zeta_overloads_and_promotion(torch):
    for call in (lambda m: m.special.zeta(m.tensor([2.0, 3.0]), 2.0),
                 lambda m: m.special.zeta(3.0, m.tensor([1.5, 2.0], dtype=m.float64)),
                 lambda m: m.special.zeta(m.tensor([2, 3]), m.tensor([1, 2])),
                 lambda m: m.special.zeta(m.tensor([True]), m.tensor([3]))):
        g, t = call(G), call(torch)
        assert str(g.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
        np.testing.assert_array_equal(g.numpy(), t.numpy())


def test_zeta_gradient_in_q(torch):
    outs = []
    for m in (G, torch):
        x = m.tensor([2.0, 3.5, 5.0], dtype=m.float64)
        q = m.tensor([0.5, 2.0, 7.0], dtype=m.float64, requires_grad=True)
        r = m.special.zeta(x, q)
        (g,) = m.autograd.grad(r.sum(), q)
        outs.append((type(r.grad_fn).__name__, g.numpy()))
    assert outs[0][0] == outs[1][0]
    np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-15)
    q = G.tensor([0.5, 2.0, 7.0], dtype=G.float64, requires_grad=True)
    x = G.tensor([2.0, 3.5, 5.0], dtype=G.float64)
    assert G.autograd.gradcheck(lambda q: G.special.zeta(x, q), (q,))
    assert G.autograd.gradgradcheck(lambda q: G.special.zeta(x, q), (q,))


def test_zeta_errors(torch):
    for call in (lambda m: m.special.zeta(m.ones(2, requires_grad=True), 2.0).sum().backward(),
                 lambda m: m.special.zeta("a", m.ones(2)),
                 lambda m: m.special.zeta(m.ones(2, dtype=m.float16), m.ones(2, dtype=m.float16))):
        assert_same_error(lambda c=call: c(G), lambda c=call: c(torch))


def test_unfold_is_a_view(torch):
    for m in (G, torch):
        x = m.arange(10.0)
        u = x.unfold(0, 4, 3)
        assert u._base is x and u.stride() == (3, 1) and tuple(u.shape) == (3, 4)
        u[1, 0] = -1.0  # one storage: the write shows in x
        assert x[3].item() == -1.0
    a = G.randn(3, 6, dtype=G.float64, requires_grad=True)
    r = a.unfold(1, 3, 2)
    fn = r.grad_fn
    assert type(fn).__name__ == "UnfoldBackward0"
    assert (fn._saved_dimension, fn._saved_size, fn._saved_step, fn._saved_self_sym_sizes) == (
        1, 3, 2, (3, 6))


@pytest.mark.parametrize("args", [(0, 3, 1), (1, 2, 3), (1, 5, 1), (-1, 1, 1), (0, 0, 2)])
def test_unfold_backward(torch, args):
    rng = np.random.default_rng(2)
    a = rng.normal(size=(4, 5))
    grads = []
    for m in (G, torch):
        x = m.tensor(a, requires_grad=True)
        u = x.unfold(*args)
        w = m.tensor(np.arange(u.numel(), dtype=np.float64).reshape(tuple(u.shape)))
        (u * w).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(*grads)
    x = G.tensor(a, requires_grad=True)
    assert G.autograd.gradcheck(lambda t: t.unfold(*args), (x,))
    assert G.autograd.gradgradcheck(lambda t: t.unfold(*args), (x,))

