"""gradrs.linalg.ldl_factor / ldl_factor_ex / ldl_solve against PyTorch (MKL's `sytrf` /
`sytrs`): LD, pivots and info bit-equal below n = 100 (float32 and float64, 2x2 pivots,
singular, NaN and infinite entries), within 1e-12 above (MKL's blocked code), batched, PyTorch's
column-major layouts, its errors and messages, no derivative (as PyTorch) and the solve."""

import numpy as np
import pytest

import gradrs as G
from conftest import assert_same_error

RNG = np.random.default_rng(24)
NAN, INF = float("nan"), float("inf")


def sym(n, batch=(), dtype=np.float64, diag=1.0):
    a = RNG.standard_normal(batch + (n, n))
    a = a + np.swapaxes(a, -1, -2)
    idx = np.arange(n)
    a[..., idx, idx] *= diag  # small diagonals: Bunch–Kaufman takes 2x2 pivots
    return a.astype(dtype)


def both(torch, a):
    a = np.array(a)
    return G.tensor(a), torch.from_numpy(a)


def factors(m, x, **kw):
    return [t.numpy() for t in m.linalg.ldl_factor_ex(x, **kw)]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 8, 13, 32, 33, 64, 99])
@pytest.mark.parametrize("diag", [1.0, 0.01])
def test_factor_is_bit_equal_below_100(torch, dtype, n, diag):
    g, t = both(torch, sym(n, (3,), dtype, diag))
    for x, y in zip(factors(G, g), factors(torch, t)):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("dtype, tol", [(np.float64, 1e-12), (np.float32, 1e-4)])
@pytest.mark.parametrize("n", [100, 130])
def test_factor_above_100_is_close(torch, dtype, tol, n):
    g, t = both(torch, sym(n, (), dtype))
    (ld, p, i), (ld_t, p_t, i_t) = factors(G, g), factors(torch, t)
    np.testing.assert_array_equal(p, p_t)
    np.testing.assert_array_equal(i, i_t)
    np.testing.assert_allclose(ld, ld_t, rtol=0, atol=tol * np.abs(ld_t).max())


def test_two_by_two_pivots_and_layout(torch):
    a = [[0.0, 1.0, 2.0], [1.0, 0.0, 3.0], [2.0, 3.0, 0.0]]
    g, t = both(torch, a)
    rg, rt = G.linalg.ldl_factor_ex(g), torch.linalg.ldl_factor_ex(t)
    assert rg.pivots.tolist() == rt.pivots.tolist() == [-3, -3, 3]
    assert repr(rg).replace("gradrs", "torch") == repr(rt)
    assert rg._fields == type(rt).__match_args__ == ("LD", "pivots", "info")
    r = G.linalg.ldl_factor(g)
    assert type(r).__name__ == "linalg_ldl_factor" and r._fields == ("LD", "pivots")
    x = G.tensor(sym(4, (2,)))
    ld_t = torch.linalg.ldl_factor(torch.from_numpy(x.numpy())).LD
    ld = G.linalg.ldl_factor(x).LD
    assert ld.stride() == ld_t.stride() and ld.is_contiguous() == ld_t.is_contiguous()
    assert str(rg.pivots.dtype) == "gradrs.int32" and str(rg.info.dtype) == "gradrs.int32"
    # the upper triangle is never read; hermitian is the same factorization for real input
    up = np.array(a) + np.triu(np.full((3, 3), 7.0), 1)
    for x, y in zip(G.linalg.ldl_factor(G.tensor(up), hermitian=True), rg):
        np.testing.assert_array_equal(x.numpy(), y.numpy())


@pytest.mark.parametrize("a", [
    np.zeros((3, 3)), [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 2.0]],
    [[NAN, 1.0], [1.0, 2.0]], [[1.0, NAN], [NAN, 2.0]], [[0.0, NAN], [NAN, 2.0]],
    [[0.1, 0, 0, 0], [1, 1, 0, 0], [NAN, 0, 1, 0], [3, 0, 0, 1]], [[INF, 0.0], [1.0, 2.0]],
    [[1e-320, 0.0], [0.0, 1.0]], [[1e-320, 1e-320], [1e-320, 1.0]], [[-0.0, 0.0], [0.0, -0.0]],
    [[1.0, 2, 0], [2, 1, 3], [0, 3, 0]],
])
def test_singular_and_nonfinite_are_mkls(torch, a):
    g, t = both(torch, np.array(a, dtype=np.float64))
    for x, y in zip(factors(G, g), factors(torch, t)):
        np.testing.assert_array_equal(x, y)


def test_singular_errors(torch):
    z = np.zeros((2, 3, 3))
    z[0] = np.eye(3)
    g, t = both(torch, z)
    assert G.linalg.ldl_factor_ex(g).info.tolist() == [0, 1]
    assert_same_error(lambda: G.linalg.ldl_factor(g), lambda: torch.linalg.ldl_factor(t))
    assert_same_error(lambda: G.linalg.ldl_factor(g[1]), lambda: torch.linalg.ldl_factor(t[1]))
    assert_same_error(lambda: G.linalg.ldl_factor_ex(g, check_errors=True),
                      lambda: torch.linalg.ldl_factor_ex(t, check_errors=True))


@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0), (0, 3, 3)])
def test_empty(torch, shape):
    g, t = G.zeros(shape, dtype=G.float64), torch.zeros(shape, dtype=torch.float64)
    for x, y in zip(G.linalg.ldl_factor_ex(g), torch.linalg.ldl_factor_ex(t)):
        assert tuple(x.shape) == tuple(y.shape)
    LD, p = G.linalg.ldl_factor(g)
    B = G.ones(shape[:-1] + (2,), dtype=G.float64)
    assert tuple(G.linalg.ldl_solve(LD, p, B).shape) == shape[:-1] + (2,)


@pytest.mark.parametrize("dtype, tol", [(np.float64, 1e-10), (np.float32, 1e-4)])
# (PyTorch 2.13 crashes when LD's batch is broadcast other than from one matrix, as (2, 1)
# against (3,): gradrs broadcasts it, checked against numpy only.)
@pytest.mark.parametrize("ld_batch, b_batch", [((), ()), ((3,), ()), ((), (2,)), ((2, 3), (3,)),
                                               ((2, 1), (3,))])
def test_solve(torch, dtype, tol, ld_batch, b_batch):
    a = sym(5, ld_batch, dtype, diag=0.01)
    b = RNG.standard_normal(b_batch + (5, 3)).astype(dtype)
    g, t = both(torch, a)
    gb, tb = both(torch, b)
    LD, p = G.linalg.ldl_factor(g)
    LDt, pt = torch.linalg.ldl_factor(t)
    assert (pt < 0).any()
    x = G.linalg.ldl_solve(LD, p, gb)
    if ld_batch != (2, 1):
        y = torch.linalg.ldl_solve(LDt, pt, tb)
        assert tuple(x.shape) == tuple(y.shape) and x.stride() == y.stride()
        np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=tol, atol=tol)
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(a.astype(np.float64), b),
                               rtol=tol * 100, atol=tol * 100)
    x64 = G.linalg.ldl_solve(LD, p.long(), gb, hermitian=True)
    np.testing.assert_array_equal(x64.numpy(), x.numpy())


def test_errors(torch):
    a = sym(3)
    g, t = both(torch, a)
    LD, p = G.linalg.ldl_factor(g)
    LDt, pt = torch.linalg.ldl_factor(t)
    B, Bt = both(torch, RNG.standard_normal((3, 2)))
    cases = [
        lambda m, x, ld, p, b: m.linalg.ldl_factor(x[0]),
        lambda m, x, ld, p, b: m.linalg.ldl_factor(x[:, :2]),
        lambda m, x, ld, p, b: m.linalg.ldl_factor(x.long()),
        lambda m, x, ld, p, b: m.linalg.ldl_factor_ex(x.half()),
        lambda m, x, ld, p, b: m.linalg.ldl_factor_ex(x.long()),
        lambda m, x, ld, p, b: m.linalg.ldl_factor(x, hermitian=1),
        lambda m, x, ld, p, b: m.linalg.ldl_factor([[1.0]]),
        lambda m, x, ld, p, b: m.linalg.ldl_solve(ld, p, b[0]),
        lambda m, x, ld, p, b: m.linalg.ldl_solve(ld, p, b[0, 0]),
        lambda m, x, ld, p, b: m.linalg.ldl_solve(ld, p, m.cat([b, b])),
        lambda m, x, ld, p, b: m.linalg.ldl_solve(ld, p.float(), b),
        lambda m, x, ld, p, b: m.linalg.ldl_solve(ld, p.bool(), b),
        lambda m, x, ld, p, b: m.linalg.ldl_solve(ld, p, b.float()),
        lambda m, x, ld, p, b: m.linalg.ldl_solve(ld, p[:2], b),
        lambda m, x, ld, p, b: m.linalg.ldl_solve(ld, p[None], b),
        lambda m, x, ld, p, b: m.linalg.ldl_solve(ld[:, :2], p, b),
        lambda m, x, ld, p, b: m.linalg.ldl_solve(ld[0], p, b),
        lambda m, x, ld, p, b: m.linalg.ldl_solve(ld.long(), p, b.long()),
        lambda m, x, ld, p, b: m.linalg.ldl_solve(ld.half(), p, b.half()),
        lambda m, x, ld, p, b: m.linalg.ldl_solve(ld.expand(5, 3, 3), p.expand(5, 3),
                                                  b.expand(4, 3, 2)),
        lambda m, x, ld, p, b: m.linalg.ldl_solve(ld, m.tensor([0, 5, 1], dtype=m.int32), b),
        lambda m, x, ld, p, b: m.linalg.ldl_solve(ld, m.tensor([4, 1, 1], dtype=m.int32), b),
        lambda m, x, ld, p, b: m.linalg.ldl_solve(ld, [1, 2, 3], b),
    ]
    for case in cases:
        assert_same_error(lambda c=case: c(G, g, LD, p, B), lambda c=case: c(torch, t, LDt, pt, Bt))


def test_no_derivative(torch):
    a = sym(3)
    g, t = both(torch, a)
    g.requires_grad_()
    t.requires_grad_()
    LD, p, info = G.linalg.ldl_factor_ex(g)
    LDt, pt, _ = torch.linalg.ldl_factor_ex(t)
    assert LD.requires_grad and not p.requires_grad and not info.requires_grad
    assert type(LD.grad_fn).__name__ == type(LDt.grad_fn).__name__ == "NotImplemented"
    assert len(LD.grad_fn.next_functions) == len(LDt.grad_fn.next_functions) == 1
    assert_same_error(lambda: LD.sum().backward(), lambda: LDt.sum().backward())
    B, Bt = both(torch, RNG.standard_normal((3, 2)))
    B.requires_grad_()
    Bt.requires_grad_()
    x, y = G.linalg.ldl_solve(LD.detach(), p, B), torch.linalg.ldl_solve(LDt.detach(), pt, Bt)
    assert len(x.grad_fn.next_functions) == len(y.grad_fn.next_functions) == 1
    assert_same_error(lambda: x.sum().backward(), lambda: y.sum().backward())
    x, y = G.linalg.ldl_solve(LD, p, B), torch.linalg.ldl_solve(LDt, pt, Bt)
    assert len(x.grad_fn.next_functions) == len(y.grad_fn.next_functions) == 2
    with G.no_grad():
        assert G.linalg.ldl_factor(g).LD.grad_fn is None
    from gradrs.autograd import forward_ad as fg

    fwt = torch.autograd.forward_ad
    with fg.dual_level(), fwt.dual_level():
        assert_same_error(
            lambda: G.linalg.ldl_factor(fg.make_dual(g.detach(), G.ones(3, 3, dtype=G.float64))),
            lambda: torch.linalg.ldl_factor(fwt.make_dual(t.detach(), torch.ones(3, 3,
                                                                               dtype=torch.float64))))


def test_out(torch):
    g, t = both(torch, sym(3))
    o = (G.empty(0, dtype=G.float64), G.empty(0, dtype=G.int32))
    r = G.linalg.ldl_factor(g, out=o)
    rt = torch.linalg.ldl_factor(t)
    assert r[0] is o[0] and type(r).__name__ == "linalg_ldl_factor_out"
    np.testing.assert_array_equal(o[0].numpy(), rt.LD.numpy())
    np.testing.assert_array_equal(o[1].numpy(), rt.pivots.numpy())
    out = G.empty(0, dtype=G.float64)
    B = G.ones(3, 2, dtype=G.float64)
    assert G.linalg.ldl_solve(*G.linalg.ldl_factor(g), B, out=out) is out
    np.testing.assert_allclose(out.numpy(), torch.linalg.ldl_solve(*rt, torch.ones(
        3, 2, dtype=torch.float64)).numpy(), rtol=1e-12)


def test_gpu(torch):
    if not G.gpu.is_available():
        pytest.skip("no GPU adapter")
    a = sym(4, (2,), np.float32, diag=0.01)
    g = G.tensor(a, device="gpu")
    LD, p, info = G.linalg.ldl_factor_ex(g)
    assert LD.device.type == p.device.type == "gpu"
    for x, y in zip((LD, p, info), torch.linalg.ldl_factor_ex(torch.from_numpy(a))):
        np.testing.assert_array_equal(x.cpu().numpy(), y.numpy())
    b = G.ones(2, 4, 1, device="gpu")
    x = G.linalg.ldl_solve(LD, p, b)
    assert x.device.type == "gpu"
    np.testing.assert_allclose((g.cpu() @ x.cpu()).numpy(), np.ones((2, 4, 1)), atol=1e-3)
