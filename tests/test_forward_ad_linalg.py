"""Forward-mode tangents of the Python-recorded nodes (gradrs.linalg's factorizations and
solves, fmin, logcumsumexp) against torch's forward_ad and finite differences, float64."""

import numpy as np
import pytest
from conftest import G

_rng = np.random.default_rng(0)


def R(*s):
    return _rng.standard_normal(s)


def spd(*batch, n=3):
    a = R(*batch, n, n)
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def sym(a):
    return (a + np.swapaxes(a, -1, -2)) / 2


A, TA = R(3, 3), R(3, 3)
AB, TAB = R(2, 3, 3), R(2, 3, 3)
TALL, TTALL = R(4, 3), R(4, 3)
WIDE, TWIDE = R(3, 5), R(3, 5)
B, TB = R(3, 2), R(3, 2)
S, TS = spd(2), sym(R(2, 3, 3))

# name: (function of (module, *duals), primals, tangents)
CASES = {
    "det": (lambda m, a: m.linalg.det(a), [AB], [TAB]),
    "det_singular": (lambda m, a: m.linalg.det(a * 0), [A], [TA]),
    "slogdet": (lambda m, a: m.linalg.slogdet(a), [AB], [TAB]),
    "logdet": (lambda m, a: m.logdet(a), [S], [TS]),
    "inv": (lambda m, a: m.linalg.inv(a), [AB], [TAB]),
    "inv_ex": (lambda m, a: m.linalg.inv_ex(a).inverse, [A], [TA]),
    "solve": (lambda m, a, b: m.linalg.solve(a, b), [A, B], [TA, TB]),
    "solve_vector": (lambda m, a, b: m.linalg.solve(a, b[:, 0]), [A, B], [TA, TB]),
    "solve_right": (lambda m, a, b: m.linalg.solve(a, b.T, left=False), [A, B], [TA, TB]),
    "solve_shared_b": (lambda m, a: m.linalg.solve(a, m.ones(3, 2, dtype=m.float64)), [AB],
                       [TAB]),
    "solve_triangular": (lambda m, a, b: m.linalg.solve_triangular(a.triu(), b, upper=True),
                         [A, B], [TA, TB]),
    "solve_triangular_unit_right": (
        lambda m, a, b: m.linalg.solve_triangular(a.tril(), b.T, upper=False, left=False,
                                                  unitriangular=True), [A, B], [TA, TB]),
    "cholesky": (lambda m, a: m.linalg.cholesky(a), [S], [TS]),
    "cholesky_upper": (lambda m, a: m.linalg.cholesky(a, upper=True), [S], [TS]),
    "qr": (lambda m, a: m.linalg.qr(a), [AB], [TAB]),
    "qr_tall": (lambda m, a: m.linalg.qr(a), [TALL], [TTALL]),
    "qr_wide": (lambda m, a: m.linalg.qr(a), [WIDE], [TWIDE]),
    "qr_complete_wide": (lambda m, a: m.linalg.qr(a, "complete"), [WIDE], [TWIDE]),
    "eigh": (lambda m, a: (lambda r: (r[0], r[1].abs()))(m.linalg.eigh(a)), [S], [TS]),
    "eigvalsh": (lambda m, a: m.linalg.eigvalsh(a), [S], [TS]),
    "svd": (lambda m, a: (lambda r: (r[0].abs(), r[1], r[2].abs()))(
        m.linalg.svd(a, full_matrices=False)), [AB], [TAB]),
    "svd_tall_full": (lambda m, a: (lambda r: (r[0][:, :3].abs(), r[0][:, 3:], r[1], r[2].abs()))(
        m.linalg.svd(a)), [TALL], [TTALL]),
    "svd_wide": (lambda m, a: (lambda r: (r[0].abs(), r[1], r[2].abs()))(
        m.linalg.svd(a, full_matrices=False)), [WIDE], [TWIDE]),
    "svdvals": (lambda m, a: m.linalg.svdvals(a), [WIDE], [TWIDE]),
    "pinv_tall": (lambda m, a: m.linalg.pinv(a), [TALL], [TTALL]),
    "pinv_wide": (lambda m, a: m.linalg.pinv(a), [WIDE], [TWIDE]),
    "pinv_hermitian": (lambda m, a: m.linalg.pinv(a, hermitian=True), [S], [TS]),
    "lu_factor": (lambda m, a: m.linalg.lu_factor(a).LU, [AB], [TAB]),
    "lu_factor_tall": (lambda m, a: m.linalg.lu_factor(a).LU, [TALL], [TTALL]),
    "lu_factor_wide": (lambda m, a: m.linalg.lu_factor(a).LU, [WIDE], [TWIDE]),
    "lu": (lambda m, a: m.linalg.lu(a)[1:], [TALL], [TTALL]),
    "lu_wide": (lambda m, a: m.linalg.lu(a)[1:], [WIDE], [TWIDE]),
    "lu_solve": (lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b), [A, B],
                 [TA, TB]),
    "matrix_norm_2": (lambda m, a: m.linalg.matrix_norm(a, ord=2), [A], [TA]),
    "matrix_norm_nuc": (lambda m, a: m.linalg.matrix_norm(a, ord="nuc"), [A], [TA]),
    "matrix_power_neg": (lambda m, a: m.linalg.matrix_power(a, -2), [A], [TA]),
    "lstsq": (lambda m, a, b: m.linalg.lstsq(a, b).solution, [A, B], [TA, TB]),
    "cond": (lambda m, a: m.linalg.cond(a), [A], [TA]),
    "tensorinv": (lambda m, a: m.linalg.tensorinv(a, ind=1), [A], [TA]),
    "fmin": (lambda m, a, b: m.fmin(a, b), [[np.nan, np.nan, 1.0, 2.0, 1.0, np.nan],
                                         [np.nan, 1.0, np.nan, 1.0, 1.0, 3.0]],
             [[1.0, 2, 3, 4, 5, 6], [10.0, 20, 30, 40, 50, 60]]),
    "fmin_broadcast": (lambda m, a, b: m.fmin(a[:, :1], b), [A, A.T], [TA, TA.T]),
    "logcumsumexp_neg_inf": (
        lambda m, a: (m.logcumsumexp(a, 1), m.logcumsumexp(a, 0)),
        [[[-np.inf, -np.inf, 1.0], [-np.inf, 0.0, -np.inf], [2.0, -np.inf, 0.5]]],
        [np.ones((3, 3))]),
    "logcumsumexp_0d": (lambda m, a: m.logcumsumexp(a, 0), [np.array(2.0)], [np.array(3.0)]),
}


def _tangents(m, case):
    fn, primals, tangents = CASES[case]
    fw = m.autograd.forward_ad
    with fw.dual_level():
        duals = [fw.make_dual(m.tensor(np.asarray(p), dtype=m.float64),
                              m.tensor(np.asarray(t), dtype=m.float64))
                 for p, t in zip(primals, tangents)]
        out = fn(m, *duals)
        outs = out if isinstance(out, tuple) else (out,)
        res = []
        for o in outs:
            p, t = fw.unpack_dual(o)
            assert t is not None, "no tangent"
            res += [p.detach().numpy(), t.detach().numpy()]
        return res


@pytest.mark.parametrize("case", sorted(CASES))
def test_tangent_matches_torch(case, torch):
    got, want = _tangents(G, case), _tangents(torch, case)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-7, atol=1e-9)


def _fd(fn, primals, tangents, eps=1e-6):
    def at(s):
        out = fn(G, *[G.tensor(np.asarray(p) + s * np.asarray(t), dtype=G.float64)
                      for p, t in zip(primals, tangents)])
        return [o.numpy() for o in (out if isinstance(out, tuple) else (out,))]
    return [(b - a) / (2 * eps) for a, b in zip(at(-eps), at(eps))]


@pytest.mark.parametrize("case", ["det", "inv", "solve", "cholesky", "qr_wide", "svd_wide",
                                  "pinv_tall", "lu_factor_tall", "lu_wide", "eigh"])
def test_tangent_matches_finite_differences(case):
    fn, primals, tangents = CASES[case]
    got = _tangents(G, case)[1::2]
    for g, n in zip(got, _fd(fn, primals, tangents)):
        np.testing.assert_allclose(g, n, rtol=1e-5, atol=1e-6)


def test_cholesky_inverse_tangent_matches_finite_differences():
    """torch 2.13's cholesky_inverse forward formula disagrees with finite differences (it is
    not (L L^T)^{-1}'s derivative); gradrs's tangent follows the composition, which does."""
    L = np.tril(R(3, 3)) + 3 * np.eye(3)
    dL = np.tril(R(3, 3))
    fw = G.autograd.forward_ad
    with fw.dual_level():
        out = G.cholesky_inverse(fw.make_dual(G.tensor(L), G.tensor(dL)))
        t = fw.unpack_dual(out).tangent.numpy()
    f = lambda x: np.linalg.inv(x @ x.T)  # noqa: E731
    np.testing.assert_allclose(t, (f(L + 1e-6 * dL) - f(L - 1e-6 * dL)) / 2e-6, rtol=1e-6,
                               atol=1e-8)


def test_qr_errors_as_torch(torch):
    for mode, a in (("r", A), ("complete", TALL)):
        msgs = []
        for m in (G, torch):
            fw = m.autograd.forward_ad
            with fw.dual_level(), pytest.raises(RuntimeError) as info:
                m.linalg.qr(fw.make_dual(m.tensor(a), m.tensor(a)), mode)
            msgs.append(str(info.value))
        assert msgs[0] == msgs[1]


def test_jvp_and_jacfwd_through_linalg(torch):
    """func.jvp / jacfwd over a factorization give torch's."""
    def run(m):
        a, t = m.tensor(A), m.tensor(TA)
        eye = 3 * m.eye(3, dtype=m.float64)
        return [m.func.jvp(lambda x: m.linalg.inv(x) @ m.linalg.cholesky(x @ x.T + eye), (a,),
                           (t,))[1].numpy(),
                m.func.jacfwd(lambda x: m.linalg.det(x))(a).numpy()]

    res = run(G) + run(torch)
    np.testing.assert_allclose(res[0], res[2], rtol=1e-9)
    np.testing.assert_allclose(res[1], res[3], rtol=1e-9)


def test_no_tangent_without_a_dual_input():
    fw = G.autograd.forward_ad
    with fw.dual_level():
        out = G.linalg.inv(G.tensor(A))
        assert fw.unpack_dual(out).tangent is None


def test_hessians_forward_over_reverse_as_torch(torch):
    """func.hessian (jacfwd of jacrev): the tangents flow through the nodes' recomputed
    backward formulas."""
    a = spd(n=3)

    def run(m):
        x = m.tensor(a)
        return [m.func.hessian(lambda t: m.linalg.det(t))(x).numpy(),
                m.func.jacfwd(m.func.jacrev(lambda t: m.linalg.slogdet(t)[1]))(x).numpy(),
                m.func.hessian(lambda t: m.linalg.svdvals(t).sum())(x).numpy(),
                m.func.hessian(lambda t: m.linalg.eigvalsh(t)[0])(x).numpy()]

    for g, t in zip(run(G), run(torch)):
        np.testing.assert_allclose(g, t, rtol=1e-9, atol=1e-12)
