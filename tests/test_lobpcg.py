"""gradrs.lobpcg (torch.lobpcg, PyTorch's torch/_lobpcg.py over gradrs ops): eigenpairs of SPD
problems against torch's from the same seed (both methods, largest / smallest, B, a
preconditioner, an initial X, batches, the ortho parameters), the iteration counts a tracker
sees, PyTorch's errors, and the backward (LOBPCGAutogradFunction) against torch's."""

import numpy as np
import pytest
from conftest import G


def spd(n, seed, lo=1.0, hi=20.0):
    rng = np.random.default_rng(seed)
    Q = np.linalg.qr(rng.standard_normal((n, n)))[0]
    return (Q * np.linspace(lo, hi, n)) @ Q.T


def run(m, A, seed=0, steps=None, **kw):
    """lobpcg under module m from seed; numpy eigenpairs and the iteration count."""
    conv = (lambda a: G.from_numpy(a.copy())) if m is G else (lambda a: m.from_numpy(a.copy()))
    args = {k: conv(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    seen = []
    args.setdefault("tracker", lambda w: seen.append(w.ivars["istep"]))
    m.manual_seed(seed)
    E, X = m.lobpcg(conv(A), **args)
    if steps is not None:
        steps.append(seen[-1] if seen else None)
    return E.numpy(), X.numpy()


def same_vectors(X, Y, tol):
    # eigenvectors up to sign
    signs = np.sign(np.sum(X * Y, axis=-2, keepdims=True))
    np.testing.assert_allclose(X * signs, Y, atol=tol)


CASES = {
    "ortho largest": dict(k=3),
    "ortho smallest": dict(k=2, largest=False),
    "basic largest": dict(k=2, method="basic"),
    "basic smallest": dict(k=3, method="basic", largest=False),
    "n > k": dict(k=2, n=4),
    "with B": dict(k=2, B=spd(30, 5, 1.0, 3.0)),
    "basic with B": dict(k=2, B=spd(30, 5, 1.0, 3.0), method="basic", largest=False),
    "preconditioner": dict(k=2, iK=spd(30, 7, 0.5, 1.5), largest=False),
    "basic preconditioner": dict(k=2, iK=spd(30, 7, 0.5, 1.5), method="basic"),
    "initial X": dict(X=np.random.default_rng(3).standard_normal((30, 3))),
    "use drop": dict(k=3, ortho_bparams={"ortho_use_drop": True},
                     ortho_iparams={"ortho_i_max": 2}, ortho_fparams={"ortho_tol": 1e-9}),
    "niter": dict(k=2, niter=3),
    "tol": dict(k=2, tol=1e-4),
}


@pytest.mark.parametrize("name", list(CASES))
def test_lobpcg_as_torch(torch, name):
    A = spd(30, 0)
    ours_steps, theirs_steps = [], []
    e, x = run(G, A, steps=ours_steps, **CASES[name])
    te, tx = run(torch, A, steps=theirs_steps, **CASES[name])
    assert e.dtype == te.dtype and x.shape == tx.shape
    np.testing.assert_allclose(e, te, rtol=1e-10, atol=1e-10)
    same_vectors(x, tx, 1e-6)
    assert ours_steps == theirs_steps


def test_lobpcg_converges_to_eigh():
    A = spd(24, 1)
    B = spd(24, 2, 1.0, 2.0)
    w, v = np.linalg.eigh(A)
    e, x = run(G, A, k=3)
    np.testing.assert_allclose(e, w[::-1][:3], rtol=1e-8)
    same_vectors(x, v[:, ::-1][:, :3], 1e-5)
    # generalized: A x = e B x
    L = np.linalg.cholesky(B)
    Li = np.linalg.inv(L)
    wg = np.linalg.eigvalsh(Li @ A @ Li.T)
    e, x = run(G, A, k=2, B=B, largest=False)
    np.testing.assert_allclose(e, wg[:2], rtol=1e-8)
    np.testing.assert_allclose(A @ x, (B @ x) * e, atol=1e-5)


def test_float32_and_batches(torch):
    A = spd(21, 4).astype(np.float32)
    e, x = run(G, A, k=2)
    te, tx = run(torch, A, k=2)
    assert e.dtype == np.float32
    np.testing.assert_allclose(e, te, rtol=1e-5)
    batch = np.stack([spd(15, 8), spd(15, 9)]).reshape(2, 1, 15, 15)
    e, x = run(G, batch, k=2)
    te, tx = run(torch, batch, k=2)
    assert e.shape == te.shape == (2, 1, 2) and x.shape == tx.shape == (2, 1, 15, 2)
    np.testing.assert_allclose(e, te, rtol=1e-10)
    same_vectors(x, tx, 1e-6)


def test_tracker_and_force_stop(torch):
    A = spd(30, 0)

    def trace(m):
        log = []

        def tracker(w):
            log.append((w.ivars["istep"], w.ivars["converged_count"],
                        sorted(w.fvars), sorted(w.ivars), sorted(w.tvars)))
            if w.ivars["istep"] == 2:
                w.bvars["force_stop"] = True

        m.manual_seed(0)
        m.lobpcg(m.from_numpy(A.copy()), k=2, tracker=tracker)
        return log

    assert trace(G) == trace(torch)
    G.manual_seed(0)
    strs = []
    G.lobpcg(G.from_numpy(A), k=1, niter=1, tracker=lambda w: strs.append(str(w)))
    assert strs[0].startswith("LOBPCG:\n  iparams={'m': 30, 'n': 1, 'k': 1, 'niter': 1")


def test_errors_as_torch(torch):
    def outcome(m, f):
        try:
            f(m)
        except Exception as e:  # noqa: BLE001 - compared with torch's
            return type(e).__name__, str(e).replace("torch.", "gradrs.")
        return None

    cases = [
        lambda m: m.lobpcg(m.eye(5, dtype=m.float64), k=2),
        lambda m: m.lobpcg(m.ones(6, 5, dtype=m.float64)),
        lambda m: m.lobpcg(m.eye(9, dtype=m.float64), B=m.eye(8, dtype=m.float64)),
        lambda m: m.lobpcg(m.eye(9, dtype=m.float64), X=m.ones(9, 2, 1, dtype=m.float64)),
        lambda m: m.lobpcg(m.eye(9, dtype=m.float64), k=1, n=4),
    ]
    for case in cases:
        ours, theirs = outcome(G, case), outcome(torch, case)
        assert theirs is not None and ours == theirs, (ours, theirs)


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("k", [1, 2])
def test_backward_as_torch(torch, largest, k):
    A0 = spd(12, 11)

    def grad(m):
        A = m.from_numpy(A0.copy()).requires_grad_()
        m.manual_seed(0)
        E, X = m.lobpcg(A, k=k, largest=largest)
        # sign-invariant in the eigenvectors
        loss = (E * m.arange(1.0, k + 1, dtype=m.float64)).sum() + \
            (X ** 2 * m.linspace(0.5, 1.5, 12, dtype=m.float64).unsqueeze(-1)).sum() + \
            (X[:3].sum(0) ** 2).sum()
        loss.backward()
        return E.grad_fn.name(), A.grad.numpy()

    (name, g), (t_name, tg) = grad(G), grad(torch)
    assert name == t_name
    np.testing.assert_allclose(g, tg, rtol=1e-6, atol=1e-8)
    # the gradient of the eigenvalues alone is symmetric: sum_i w_i x_i x_i^T
    A = G.from_numpy(A0.copy()).requires_grad_()
    G.manual_seed(0)
    E, X = G.lobpcg(A, k=k, largest=largest)
    E.sum().backward()
    x = X.detach().numpy()
    np.testing.assert_allclose(A.grad.numpy(), x @ x.T, atol=1e-7)


def test_backward_refuses_B(torch):
    for m in (G, torch):
        A = m.from_numpy(spd(12, 11)).requires_grad_()
        B = m.from_numpy(spd(12, 3, 1.0, 2.0))
        m.manual_seed(0)
        E, _ = m.lobpcg(A, k=1, B=B)
        with pytest.raises(ValueError,
                           match="^lobpcg.backward does not support backward with B != I yet.$"):
            E.sum().backward()


def test_module_paths(torch):
    from gradrs import _linalg_utils, _lobpcg

    assert G.lobpcg is _lobpcg.lobpcg and _lobpcg.__all__ == torch._lobpcg.__all__
    import inspect

    assert str(inspect.signature(G.lobpcg)).split(" ->")[0].replace(": ", "") != ""
    ours = [p.name for p in inspect.signature(G.lobpcg).parameters.values()]
    assert ours == [p.name for p in inspect.signature(torch.lobpcg).parameters.values()]
    E, Z = _linalg_utils.symeig(G.tensor([[2.0, 1.0], [1.0, 2.0]], dtype=G.float64), True)
    assert E.tolist() == pytest.approx([3.0, 1.0])
