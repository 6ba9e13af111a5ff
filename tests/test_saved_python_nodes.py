"""`_saved_<name>` / `_raw_saved_<name>` of nodes recorded from Python (`_attach_node(...,
saved=...)`): PyTorch's names and values, freed after backward, hooks, version checks; against
torch 2.13."""

import pytest
from conftest import G, check_error, need_torch
from saved_values import difference


def _pairs(make):
    torch = need_torch()
    return make(G), make(torch)


CASES = {
    "inv": lambda m, A: m.linalg.inv(A),
    "cholesky": lambda m, A: m.linalg.cholesky(A @ A.mT + m.eye(3, dtype=m.float64)),
    "cholesky_upper": lambda m, A: m.linalg.cholesky(A @ A.mT + m.eye(3, dtype=m.float64),
                                                     upper=True),
    "qr": lambda m, A: m.linalg.qr(A)[1],
    "qr_complete": lambda m, A: m.linalg.qr(A, mode="complete")[0],
    "pinv": lambda m, A: m.linalg.pinv(A),
    "vdot": lambda m, A: m.vdot(A[0], A[1]),
    "vdot_one_side": lambda m, A: m.vdot(A[0], A[1].detach()),
    "addmv": lambda m, A: m.addmv(A[0], A, A[1], beta=2, alpha=0.5),
    "addmv_mat_only": lambda m, A: m.addmv(A[0].detach(), A, A[1].detach()),
    "addr": lambda m, A: m.addr(A, A[0], A[1].detach(), alpha=3),
    "baddbmm": lambda m, A: m.baddbmm(A[None], A[None], A[None].detach()),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_saved_match_torch(name):
    def make(m):
        A = m.tensor([[2.0, 0.5, -1.0], [0.3, 3.0, 0.2], [-0.4, 0.1, 1.5]], dtype=m.float64,
                     requires_grad=True)
        return CASES[name](m, A)
    g, t = _pairs(make)
    assert type(g.grad_fn).__name__ == type(t.grad_fn).__name__
    assert difference(g.grad_fn, t.grad_fn) is None


def test_freed_after_backward_and_hooks():
    def run(m):
        A = m.tensor([[2.0, 0.5], [0.5, 3.0]], dtype=m.float64, requires_grad=True)
        L = m.linalg.cholesky(A)
        f = L.grad_fn
        seen = []
        f._raw_saved_L.register_hooks(lambda x: seen.append("pack") or x * 1,
                                      lambda x: seen.append("unpack") or x)
        L.sum().backward()
        return f, seen, f._saved_upper
    (gf, gseen, gup), (tf, tseen, tup) = _pairs(run)
    assert gseen == tseen and gup == tup
    check_error(lambda m: (gf if m is G else tf)._saved_L)


def test_saved_output_modified_in_place_raises():
    def run(m):
        A = m.tensor([[2.0, 0.5], [0.5, 3.0]], dtype=m.float64, requires_grad=True)
        X = m.linalg.inv(A)
        X.mul_(2)
        X.sum().backward()
    check_error(run)
