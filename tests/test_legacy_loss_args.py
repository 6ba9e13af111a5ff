"""The functional losses' deprecated `size_average` / `reduce` arguments pick the reduction as
PyTorch's `_Reduction.legacy_get_string` (they were accepted and ignored: an old VAE example's
`F.binary_cross_entropy(recon, x, size_average=False)` averaged instead of summing)."""

import numpy as np
import pytest

from conftest import run_both, to_np

LOSSES = {
    "mse_loss": lambda M, x, p, t, c: M.nn.functional.mse_loss(x, t, **c),
    "l1_loss": lambda M, x, p, t, c: M.nn.functional.l1_loss(x, t, **c),
    "smooth_l1_loss": lambda M, x, p, t, c: M.nn.functional.smooth_l1_loss(x, t, **c),
    "binary_cross_entropy": lambda M, x, p, t, c: M.nn.functional.binary_cross_entropy(p, t, **c),
    "binary_cross_entropy_with_logits":
        lambda M, x, p, t, c: M.nn.functional.binary_cross_entropy_with_logits(x, t, **c),
    "kl_div": lambda M, x, p, t, c: M.nn.functional.kl_div(p.log(), t, **c),
    "nll_loss": lambda M, x, p, t, c: M.nn.functional.nll_loss(x, M.tensor([0, 2, 1]), **c),
    "cross_entropy":
        lambda M, x, p, t, c: M.nn.functional.cross_entropy(x, M.tensor([0, 2, 1]), **c),
}
LEGACY = [{"size_average": False}, {"size_average": True}, {"reduce": False},
          {"size_average": False, "reduce": True}, {"size_average": True, "reduce": False}]


@pytest.mark.parametrize("name", list(LOSSES))
@pytest.mark.parametrize("legacy", LEGACY)
def test_legacy_reduction_arguments(name, legacy):
    def run(M):
        x = M.tensor([[0.2, -1.0, 0.5], [1.5, 0.3, -0.7], [0.0, 2.0, 1.0]], requires_grad=True)
        p = x.sigmoid()
        t = M.tensor([[0.0, 1.0, 0.5], [1.0, 0.2, 0.0], [0.3, 1.0, 1.0]])
        out = LOSSES[name](M, x, p, t, legacy)
        out.sum().backward()
        return to_np(out), to_np(x.grad)

    (go, gg), (to, tg) = run_both(run)
    assert go.shape == to.shape
    np.testing.assert_allclose(go, to, rtol=1e-6)
    np.testing.assert_allclose(gg, tg, rtol=1e-6)


@pytest.mark.parametrize("pos_weight", [None, [1.0, 2.0, 3.0, 0.5]])
def test_bce_with_logits_gradient_at_zero_logits(pos_weight):
    # zero logits (a zero-initialized head) get sigmoid(0) - t, PyTorch's formula; the composed
    # max(-x, 0) passed -1 there (gradient -t)
    def run(M):
        x = M.zeros(4, requires_grad=True)
        t = M.tensor([0.3, 1.0, 0.0, 0.5])
        pw = None if pos_weight is None else M.tensor(pos_weight)
        loss = M.nn.functional.binary_cross_entropy_with_logits(x, t, pos_weight=pw)
        loss.backward()
        return to_np(loss), to_np(x.grad)

    (gl, gg), (tl, tg) = run_both(run)
    np.testing.assert_array_equal(gl, tl)
    np.testing.assert_allclose(gg, tg, rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_bce_gradients_at_the_bounds(dtype, reduction):
    # probabilities of exactly 0 or 1 (a saturated sigmoid) get PyTorch's finite gradient
    # (x - t) / max((1 - x) * x, 1e-12f); the target's is -logit(x)
    def run(M):
        dt = getattr(M, dtype)
        x = M.tensor([0.0, 1.0, 0.3, 0.9, 0.0], dtype=dt, requires_grad=True)
        t = M.tensor([0.5, 0.2, 1.0, 0.0, 0.0], dtype=dt, requires_grad=True)
        w = M.tensor([1.0, 2.0, 0.5, 1.0, 3.0], dtype=dt)
        loss = M.nn.functional.binary_cross_entropy(x, t, weight=w, reduction=reduction)
        gx, gt = M.autograd.grad(loss.sum(), (x, t), create_graph=True)
        (hx,) = M.autograd.grad((gx[2:4] * M.tensor([1.0, -2.0], dtype=dt)).sum(), x)
        return to_np(loss), to_np(gx), to_np(gt), to_np(hx)

    for g, t in zip(*run_both(run)):
        np.testing.assert_allclose(g, t, rtol=1e-6)
