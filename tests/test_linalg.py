"""gradrs.linalg against PyTorch: named-tuple return types and reprs, LAPACK's conventions
(pivots, info, signs), singular / not positive-definite inputs and their errors, empty and
batched matrices, gradients of the factorizations (sign-free losses) and the GPU path."""

import math

import numpy as np
import pytest

import gradrs as G
from conftest import assert_same_error

RNG = np.random.default_rng(7)


def pair(torch, a, dtype="float64", rg=False):
    a = np.asarray(a)
    g = G.tensor(a.tolist(), dtype=getattr(G, dtype))
    t = torch.tensor(a.tolist(), dtype=getattr(torch, dtype))
    if rg:
        g.requires_grad_()
        t.requires_grad_()
    return g, t


def close(g, t, tol=1e-8):
    assert tuple(g.shape) == tuple(t.shape)
    np.testing.assert_allclose(g.detach().cpu().numpy(), t.detach().numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("name, args, fields", [
    ("qr", (), ("Q", "R")), ("eigh", (), ("eigenvalues", "eigenvectors")),
    ("svd", (), ("U", "S", "Vh")), ("slogdet", (), ("sign", "logabsdet")),
    ("lu_factor", (), ("LU", "pivots")), ("lu_factor_ex", (), ("LU", "pivots", "info")),
    ("lu", (), ("P", "L", "U")), ("inv_ex", (), ("inverse", "info")),
    ("cholesky_ex", (), ("L", "info")),
])
def test_return_types(torch, name, args, fields):
    a = RNG.standard_normal((3, 3))
    a = a @ a.T + 3 * np.eye(3)
    g, t = pair(torch, a)
    rg, rt = getattr(G.linalg, name)(g, *args), getattr(torch.linalg, name)(t, *args)
    assert type(rg).__name__ == type(rt).__name__ == "linalg_" + name
    assert rg._fields == type(rt).__match_args__ == fields
    assert repr(rg).startswith(f"gradrs.return_types.linalg_{name}(\n{fields[0]}=tensor(")
    for x, y in zip(rg, rt):
        if name in ("eigh", "svd", "qr") and x.dim() == 2:
            close(x.abs(), y.abs())  # signs are the factorization's choice
        else:
            close(x, y)


def test_lapack_conventions_match(torch):
    a = RNG.standard_normal((2, 4, 4))
    g, t = pair(torch, a)
    for x, y in zip(G.linalg.lu_factor_ex(g), torch.linalg.lu_factor_ex(t)):
        close(x, y)
        assert str(x.dtype).split(".")[-1] == str(y.dtype).split(".")[-1]
    for x, y in zip(G.linalg.lu(g), torch.linalg.lu(t)):
        close(x, y)
    close(G.linalg.det(g), torch.linalg.det(t))
    close(G.linalg.inv(g), torch.linalg.inv(t))


@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0), (0, 3, 3)])
def test_empty(torch, shape):
    g, t = G.zeros(shape, dtype=G.float64), torch.zeros(shape, dtype=torch.float64)
    for name in ("det", "inv", "cholesky", "eigvalsh", "svdvals", "matrix_exp"):
        close(getattr(G.linalg, name)(g), getattr(torch.linalg, name)(t))
    for x, y in zip(G.linalg.slogdet(g), torch.linalg.slogdet(t)):
        close(x, y)


def test_singular(torch):
    s = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])
    g, t = pair(torch, s)
    close(G.linalg.det(g), torch.linalg.det(t))
    for x, y in zip(G.linalg.slogdet(g), torch.linalg.slogdet(t)):
        close(x, y)
    assert G.linalg.matrix_rank(g).item() == torch.linalg.matrix_rank(t).item() == 2
    assert G.linalg.inv_ex(g).info.item() == torch.linalg.inv_ex(t).info.item()
    assert_same_error(lambda: G.linalg.inv(g), lambda: torch.linalg.inv(t))
    assert_same_error(lambda: G.linalg.solve(g, g[0]), lambda: torch.linalg.solve(t, t[0]))
    assert_same_error(lambda: G.linalg.inv_ex(g, check_errors=True),
                      lambda: torch.linalg.inv_ex(t, check_errors=True))
    assert issubclass(G.linalg.LinAlgError, RuntimeError)
    with pytest.raises(G.linalg.LinAlgError):
        G.linalg.inv(g)


def test_not_positive_definite(torch):
    a = np.stack([np.eye(3), np.diag([1.0, -1.0, 1.0])])
    g, t = pair(torch, a)
    assert G.linalg.cholesky_ex(g).info.tolist() == torch.linalg.cholesky_ex(t).info.tolist()
    assert_same_error(lambda: G.linalg.cholesky(g), lambda: torch.linalg.cholesky(t))


def test_qr_signs_and_modes(torch):
    for shape in [(4, 3), (3, 5), (3, 3)]:
        g, t = pair(torch, RNG.standard_normal(shape))
        for mode in ("reduced", "complete", "r"):
            rg, rt = G.linalg.qr(g, mode), torch.linalg.qr(t, mode)
            for x, y in zip(rg, rt):
                close(x, y)


def _invariant_eigh(m, a):
    w, v = m.linalg.eigh(a + a.mT)
    return (w * w).sum() + ((v * v) * m.arange(9, dtype=a.dtype).reshape(3, 3)).sum()


def _invariant_svd(m, a):
    u, s, vh = m.linalg.svd(a, full_matrices=False)
    k = s.shape[-1]
    weights = m.arange(1, 1 + u.shape[-2] * k, dtype=a.dtype).reshape(u.shape[-2], k)
    return s.sum() + ((u * u) * weights).sum() + (vh * vh)[..., 0, :].sum()


@pytest.mark.parametrize("fn, shape", [
    (_invariant_eigh, (3, 3)), (_invariant_svd, (3, 3)), (_invariant_svd, (4, 3)),
    (_invariant_svd, (3, 4)),
    (lambda m, a: m.linalg.qr(a).Q.sum() + m.linalg.qr(a).R.pow(2).sum(), (4, 3)),
    (lambda m, a: m.linalg.qr(a).Q.sum() + m.linalg.qr(a).R.pow(2).sum(), (3, 4)),
    (lambda m, a: m.linalg.lu(a).L.sum() + m.linalg.lu(a).U.pow(2).sum(), (3, 4)),
    (lambda m, a: m.linalg.lu(a).L.pow(2).sum() + m.linalg.lu(a).U.sum(), (4, 3)),
    (lambda m, a: m.linalg.pinv(a).pow(2).sum(), (4, 3)),
])
def test_gradients_and_second_derivatives(torch, fn, shape):
    a = RNG.standard_normal(shape)
    g, t = pair(torch, a, rg=True)
    (gg,) = G.autograd.grad(fn(G, g), g, create_graph=True)
    (tg,) = torch.autograd.grad(fn(torch, t), t, create_graph=True)
    close(gg, tg, 1e-7)
    close(G.autograd.grad(gg.pow(2).sum(), g)[0], torch.autograd.grad(tg.pow(2).sum(), t)[0],
          1e-6)


def test_node_names(torch):
    a = RNG.standard_normal((3, 3))
    g, t = pair(torch, a, rg=True)
    for name in ("det", "inv", "svdvals", "matrix_exp", "vector_norm", "pinv"):
        assert (type(getattr(G.linalg, name)(g).grad_fn).__name__
                == type(getattr(torch.linalg, name)(t).grad_fn).__name__)
    assert type(G.linalg.qr(g).Q.grad_fn).__name__ == "LinalgQrBackward0"
    assert G.linalg.lu(g).P.grad_fn is None and G.linalg.lu(g).P.requires_grad is False


def test_batched_broadcast_solve(torch):
    a = RNG.standard_normal((2, 1, 3, 3))
    b = RNG.standard_normal((4, 3, 2))
    (ga, ta), (gb, tb) = pair(torch, a, rg=True), pair(torch, b, rg=True)
    close(G.linalg.solve(ga, gb), torch.linalg.solve(ta, tb))
    G.linalg.solve(ga, gb).sum().backward()
    torch.linalg.solve(ta, tb).sum().backward()
    close(ga.grad, ta.grad)
    close(gb.grad, tb.grad)


def test_lstsq_and_rank(torch):
    a = RNG.standard_normal((5, 3))
    b = RNG.standard_normal((5, 2))
    (ga, ta), (gb, tb) = pair(torch, a), pair(torch, b)
    for driver in (None, "gelsd", "gels"):
        rg, rt = G.linalg.lstsq(ga, gb, driver=driver), torch.linalg.lstsq(ta, tb, driver=driver)
        assert type(rg).__name__ == "linalg_lstsq" and rg._fields == type(rt).__match_args__
        for x, y in zip(rg, rt):
            close(x, y)
    assert G.linalg.matrix_rank(ga, hermitian=False).item() == 3


def test_norm_dispatch(torch):
    a = RNG.standard_normal((3, 4))
    g, t = pair(torch, a)
    for args in [(), (None,), ("fro",), ("nuc",), (2,), (1,), (math.inf,), (3, 1), (None, (0, 1))]:
        close(G.linalg.norm(g, *args), torch.linalg.norm(t, *args))
    close(G.linalg.norm(g.reshape(-1), 0), torch.linalg.norm(t.reshape(-1), 0))


def test_top_level_aliases(torch):
    a = RNG.standard_normal((3, 3))
    s = a @ a.T + 3 * np.eye(3)
    (g, t), (gs, ts) = pair(torch, a), pair(torch, s)
    close(G.logdet(gs), torch.logdet(ts))
    close(gs.slogdet().logabsdet, ts.slogdet().logabsdet)
    assert type(G.slogdet(gs)).__name__ == "slogdet"
    close(G.pinverse(g), torch.pinverse(t))
    close(G.cholesky_inverse(G.linalg.cholesky(gs)), torch.cholesky_inverse(torch.linalg.cholesky(ts)))
    u, sv, v = G.svd(g)
    tu, tsv, tv = torch.svd(t)
    close(sv, tsv)
    close(u @ G.diag_embed(sv) @ v.mT if hasattr(G, "diag_embed") else (u * sv) @ v.mT, t)
    assert type(G.svd(g)).__name__ == "svd" and G.svd(g)._fields == ("U", "S", "V")
    q, r = G.qr(g)
    close(q @ r, t)
    close(G.matrix_power(g, 3), torch.matrix_power(t, 3))
    close(G.trace(g), torch.trace(t))


def test_gpu(torch):
    if not G.gpu.is_available():
        pytest.skip("no GPU adapter")
    a = RNG.standard_normal((2, 3, 3)).astype(np.float32)
    g = G.tensor(a.tolist(), device="gpu", requires_grad=True)
    t = torch.tensor(a.tolist(), requires_grad=True)
    for name in ("det", "inv", "cholesky_ex", "eigvalsh", "svdvals", "lu_factor"):
        x = g @ g.mT + 3 * G.eye(3, device="gpu") if name in ("cholesky_ex", "eigvalsh") else g
        y = t @ t.mT + 3 * torch.eye(3) if name in ("cholesky_ex", "eigvalsh") else t
        rg, rt = getattr(G.linalg, name)(x), getattr(torch.linalg, name)(y)
        rg = rg[0] if isinstance(rg, tuple) else rg
        rt = rt[0] if isinstance(rt, tuple) else rt
        assert rg.device.type == "gpu"
        close(rg, rt, 1e-4)
    G.linalg.det(g).sum().backward()
    torch.linalg.det(t).sum().backward()
    assert g.grad.device.type == "gpu"
    close(g.grad, t.grad, 1e-4)


def test_float16_matrix_exp_is_rounded_float32():
    a = G.tensor([[0.5, -1.0], [2.0, 0.25]])
    close(G.linalg.matrix_exp(a.half()), G.linalg.matrix_exp(a).half(), 0)
    with pytest.raises(RuntimeError, match="Low precision dtypes not supported. Got Half"):
        G.linalg.inv(a.half())


@pytest.mark.parametrize("a", [np.zeros((3, 3)), [[0.0, 1.0, 2.0], [0.0, 3.0, 4.0], [0.0, 5.0, 6.0]],
                               [[1.0, 2.0], [2.0, 4.0]]])
def test_exactly_singular_lu_is_lapacks(torch, a):
    g, t = pair(torch, a, rg=True)
    for x, y in zip(G.linalg.lu_factor_ex(g), torch.linalg.lu_factor_ex(t)):
        close(x, y)
    close(G.linalg.det(g), torch.linalg.det(t))
    G.linalg.det(g).backward()
    torch.linalg.det(t).backward()
    close(g.grad, t.grad)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(1, 1), (5, 5), (3, 6, 6), (2, 1, 40, 40)])
def test_native_lu_solve_is_the_composition(dtype, shape):
    # `_linalg_lu_solve` (linalg.solve's and inv's getrs in one native call) gives the values
    # of the composition it replaces: the row interchanges as a gather, then the unit lower
    # and the upper triangular solves.
    from gradrs.linalg import _solvers

    rng = np.random.default_rng(len(shape) * 10 + shape[-1])
    a = G.tensor(rng.standard_normal(shape), dtype=getattr(G, dtype))
    b = G.tensor(rng.standard_normal(shape[:-1] + (3,)), dtype=getattr(G, dtype))
    LU, piv, _ = G._native._linalg_lu_factor(a)
    got = _solvers._lu_solve_values(LU, piv, b)
    want = _solvers._lu_solve(LU, piv, b)
    assert got.dtype == want.dtype and tuple(got.shape) == tuple(want.shape)
    assert np.array_equal(got.numpy(), want.numpy())
    # broadcast batch dims, as linalg.solve's
    got = _solvers._lu_solve_values(LU, piv, b[..., :1, :, :] if b.dim() > 2 else b)
    assert tuple(got.shape) == tuple(want.shape)


def test_native_lu_solve_refuses_bad_pivots():
    lu = G.eye(3)
    b = G.ones(3, 1)
    for bad in ([0, 2, 3], [1, 4, 3], [-1, 2, 3]):
        with pytest.raises(RuntimeError, match="pivots of matrix 0"):
            G._native._linalg_lu_solve(lu, G.tensor(bad, dtype=G.int32), b)
    x = G._native._linalg_lu_solve(lu, G.tensor([3, 2, 3], dtype=G.int32),
                                   G.tensor([[1.0], [2.0], [3.0]]))
    assert x.flatten().tolist() == [3.0, 2.0, 1.0]
