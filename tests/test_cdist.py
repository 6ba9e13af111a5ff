"""gradrs.cdist vs torch 2.13 where programs met it: the gradient at zero distances (0, not NaN,
as PyTorch's _cdist_backward), p = 0's zero gradient, the matrix-product path PyTorch takes for
p = 2 above 25 rows or with compute_mode="use_mm_for_euclid_dist" (EuclideanDistBackward0
under a view: its cancellation leaves small non-zero self-distances), and batch broadcasting."""

import math

import numpy as np
import pytest

from conftest import check_error, graph_tree, run_both, to_np


def _inputs(M, s1, s2, dup=True, seed=0):
    rs = np.random.RandomState(seed)
    a = rs.randn(*s1).astype(np.float32)
    b = rs.randn(*s2).astype(np.float32)
    if dup:  # a zero distance: the first rows coincide
        b[..., 0, :] = a[..., 0, :] if a.shape[:-2] == b.shape[:-2] else a.reshape(-1, a.shape[-1])[0]
    return (M.from_numpy(a).requires_grad_(), M.from_numpy(b).requires_grad_())


def _run(M, s1, s2, **kw):
    x, y = _inputs(M, s1, s2, dup=kw.pop("dup", True))
    d = M.cdist(x, y, **kw)
    weights = M.arange(float(d.numel())).view(d.shape).cos()
    (d * weights).sum().backward()
    return d, x.grad, y.grad


@pytest.mark.parametrize("p", [2.0, 1.0, 0.5, 1.5, 3.0, 0.0, math.inf])
@pytest.mark.parametrize("shapes", [((5, 4), (6, 4)), ((2, 5, 3), (2, 4, 3)),
                                    ((2, 1, 5, 3), (3, 4, 3))])
def test_direct_path_values_and_gradients(p, shapes):
    (gd, gx, gy), (td, tx, ty) = run_both(lambda M: _run(M, *shapes, p=p))
    assert graph_tree(gd.grad_fn) == graph_tree(td.grad_fn)
    for g, t in ((gd, td), (gx, tx), (gy, ty)):
        assert not np.isnan(to_np(g)).any()
        np.testing.assert_allclose(to_np(g), to_np(t), rtol=1e-5, atol=2e-6)


@pytest.mark.parametrize("shapes, kw", [
    (((30, 4), (6, 4)), {}),
    (((2, 30, 4), (2, 6, 4)), {}),
    (((2, 1, 30, 4), (3, 6, 4)), {}),
    (((5, 4), (6, 4)), {"compute_mode": "use_mm_for_euclid_dist"}),
    (((30, 4), (30, 4)), {"compute_mode": "donot_use_mm_for_euclid_dist"}),
])
def test_mm_path_follows_torch(shapes, kw):
    # No coinciding rows: at a zero distance the mm path leaves sqrt(rounding residue), whose
    # value (and the gradient through it) depends on the matmul kernel's last bits.
    (gd, gx, gy), (td, tx, ty) = run_both(lambda M: _run(M, *shapes, dup=False, **kw))
    assert type(gd.grad_fn).__name__ == type(td.grad_fn).__name__
    assert [type(f).__name__ for f, _ in gd.grad_fn.next_functions] == \
        [type(f).__name__ for f, _ in td.grad_fn.next_functions]
    for g, t in ((gd, td), (gx, tx), (gy, ty)):
        np.testing.assert_allclose(to_np(g), to_np(t), rtol=1e-4, atol=1e-5)


def test_mm_path_self_distance_is_not_exactly_zero(torch):
    # torch's mm path: |a|^2 + |a|^2 - 2 a.a rounds to a small residue, not 0, on the diagonal
    def run(M):
        x = M.from_numpy(np.random.RandomState(0).randn(30, 8).astype(np.float32))
        return to_np(M.cdist(x, x).diagonal())

    g, t = run_both(run)
    assert (g < 1e-2).all() and (t < 1e-2).all()


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0])
def test_second_derivative_is_not_implemented(p):
    # _cdist_backward has no derivative in PyTorch: the first-order gradient taken with
    # create_graph is a CdistBackwardBackward0 output, and backward through it raises
    def run(M):
        x, y = _inputs(M, (4, 3), (5, 3))
        gx, gy = M.autograd.grad(M.cdist(x, y, p=p).sum(), [x, y], create_graph=True)
        (gx.pow(2).sum() + gy.sum()).backward()

    check_error(run)


def test_first_derivative_graph_matches():
    def tree(M):
        x, y = _inputs(M, (4, 3), (5, 3))
        y.requires_grad_(False)
        (gx,) = M.autograd.grad(M.cdist(x, y).sum(), [x], create_graph=True)
        return graph_tree(gx.grad_fn, 2)

    g, t = run_both(tree)
    assert g == t
