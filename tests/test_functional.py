"""`gradrs.nn.functional` against PyTorch: forward values and input gradients for losses,
layers, convolution, pooling and normalization (float64, fixed data), plus float64
finite-difference checks that need no torch."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import G
from test_gradcheck import numerical_jacobian

rng = np.random.default_rng(0)
A = rng.standard_normal((3, 4))
B = rng.standard_normal(4) + 0.1
X4 = rng.standard_normal((2, 3, 6, 5))
W4 = rng.standard_normal((4, 3, 3, 3)) * 0.3
B4 = rng.standard_normal(4)
TG = [1, 0, 3]


def F(m):
    return m.nn.functional


CASES = {
    "softmax": (lambda m, x: F(m).softmax(x, 1), [A]),
    "log_softmax": (lambda m, x: F(m).log_softmax(x, 0), [A]),
    "cross_entropy": (lambda m, x: F(m).cross_entropy(x, m.tensor(TG)), [A]),
    "cross_entropy weight smoothing": (
        lambda m, x: F(m).cross_entropy(x, m.tensor(TG), weight=m.tensor([1.0, 2, 0.5, 1], dtype=m.float64),
                                        label_smoothing=0.1), [A]),
    "cross_entropy ignore sum": (
        lambda m, x: F(m).cross_entropy(x, m.tensor([1, -100, 3]), reduction="sum"), [A]),
    "cross_entropy probs": (
        lambda m, x: F(m).cross_entropy(x, x.detach().softmax(1), label_smoothing=0.2), [A]),
    "cross_entropy 4d": (
        lambda m, x: F(m).cross_entropy(x, m.tensor([[[0, 1], [2, 2]], [[1, 1], [0, 2]]])),
        [rng.standard_normal((2, 3, 2, 2))]),
    "nll_loss none": (lambda m, x: F(m).nll_loss(x, m.tensor(TG), reduction="none"), [A]),
    "mse_loss": (lambda m, x, y: F(m).mse_loss(x, y.expand(3, 4)), [A, B]),
    "l1_loss": (lambda m, x, y: F(m).l1_loss(x, y.expand(3, 4), reduction="sum"), [A, B]),
    "smooth_l1_loss": (lambda m, x, y: F(m).smooth_l1_loss(x, y.expand(3, 4), beta=0.5), [A, B]),
    "huber_loss": (lambda m, x, y: F(m).huber_loss(x, y.expand(3, 4), delta=0.5), [A, B]),
    "binary_cross_entropy": (
        lambda m, x, y: F(m).binary_cross_entropy(x.sigmoid(), y.sigmoid().expand(3, 4)), [A, B]),
    "bce_with_logits": (
        lambda m, x, y: F(m).binary_cross_entropy_with_logits(
            x, y.sigmoid().expand(3, 4), pos_weight=y.detach().abs()), [A, B]),
    "kl_div batchmean": (
        lambda m, x, y: F(m).kl_div(x.log_softmax(1), y.softmax(0).expand(3, 4),
                                    reduction="batchmean"), [A, B]),
    "linear": (lambda m, x, w, y: F(m).linear(x, w, y), [A, rng.standard_normal((5, 4)),
                                                       rng.standard_normal(5)]),
    "conv2d": (lambda m, x, w, y: F(m).conv2d(x, w, y, padding=1), [X4, W4, B4]),
    "conv2d stride dilation": (
        lambda m, x, w, y: F(m).conv2d(x, w, y, stride=2, dilation=2, padding=2), [X4, W4, B4]),
    "conv2d same": (lambda m, x, w: F(m).conv2d(x, w, padding="same"),
                    [X4, rng.standard_normal((4, 3, 2, 3))]),
    "conv2d groups": (lambda m, x, w: F(m).conv2d(x, w, groups=3),
                      [rng.standard_normal((2, 3, 5, 5)), rng.standard_normal((6, 1, 3, 3))]),
    "conv1d": (lambda m, x, w: F(m).conv1d(x, w, padding=1),
               [rng.standard_normal((2, 3, 7)), rng.standard_normal((4, 3, 3))]),
    "max_pool2d": (lambda m, x: F(m).max_pool2d(x, 2), [X4]),
    "max_pool2d padded": (lambda m, x: F(m).max_pool2d(x, 3, 2, 1), [X4]),
    "avg_pool2d": (lambda m, x: F(m).avg_pool2d(x, 2, 1, 1, count_include_pad=False), [X4]),
    "adaptive_avg_pool2d": (lambda m, x: F(m).adaptive_avg_pool2d(x, (3, 2)), [X4]),
    "adaptive_avg_pool2d uneven": (lambda m, x: F(m).adaptive_avg_pool2d(x, (4, 3)), [X4]),
    "layer_norm": (lambda m, x, w, y: F(m).layer_norm(x, (4,), w, y), [A, B, B]),
    "batch_norm train": (
        lambda m, x: F(m).batch_norm(x, m.zeros(3, dtype=m.float64), m.ones(3, dtype=m.float64),
                                     training=True), [X4]),
    "normalize": (lambda m, x: F(m).normalize(x, dim=1), [A]),
    "pad constant": (lambda m, x: F(m).pad(x, (1, 2, 0, 1), value=3.0), [A]),
    "pad reflect": (lambda m, x: F(m).pad(x, (1, 2), mode="reflect"), [A]),
    "pad replicate": (lambda m, x: F(m).pad(x, (1, 2), mode="replicate"), [A]),
    "embedding padding_idx": (
        lambda m, w: F(m).embedding(m.tensor([[0, 2], [1, 0]]), w, padding_idx=0), [A]),
}


def _run(m, f, arrays):
    xs = [m.tensor(a, dtype=m.float64, requires_grad=True) for a in arrays]
    out = f(m, *xs)
    g = np.linspace(0.5, 1.5, out.numel()).reshape(tuple(out.shape))
    out.backward(m.tensor(g, dtype=m.float64))
    return out.detach().numpy(), [None if x.grad is None else x.grad.numpy() for x in xs]


@pytest.mark.parametrize("name", list(CASES))
def test_functional_vs_torch(name, torch):
    f, arrays = CASES[name]
    out, grads = _run(G, f, arrays)
    t_out, t_grads = _run(torch, f, arrays)
    np.testing.assert_allclose(out, t_out, rtol=1e-10, atol=1e-12)
    for g, tg in zip(grads, t_grads):
        assert (g is None) == (tg is None)
        if g is not None:
            np.testing.assert_allclose(g, tg, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "cross_entropy", "conv2d groups",
                                  "max_pool2d padded", "layer_norm", "pad reflect"])
def test_functional_finite_differences(name):
    f, arrays = CASES[name]
    small = [np.asarray(a)[tuple(slice(0, 3) for _ in np.shape(a))] if np.ndim(a) < 4 else a
             for a in arrays]
    if name == "conv2d groups":
        small = [rng.standard_normal((1, 3, 4, 4)), rng.standard_normal((3, 1, 2, 2))]
    if name == "max_pool2d padded":
        small = [rng.standard_normal((1, 1, 4, 4))]
    if name == "cross_entropy":
        small = [A]
    if name == "layer_norm":
        small = [A[:2], B, B]
    out0, num = numerical_jacobian(lambda *xs: f(G, *xs), small, 1e-6)
    xs = [G.tensor(a, dtype=G.float64, requires_grad=True) for a in small]
    out = f(G, *xs)
    flat = out.reshape(-1)
    for k in range(flat.numel()):
        grads = G.autograd.grad(flat[k], xs, retain_graph=True, allow_unused=True)
        for i, g in enumerate(grads):
            row = np.zeros(np.size(small[i])) if g is None else g.numpy().reshape(-1)
            np.testing.assert_allclose(row, num[i][k], rtol=1e-5, atol=1e-6)


def test_dropout_and_one_hot():
    f = G.nn.functional
    x = G.ones(1000)
    y = f.dropout(x, 0.25)
    kept = (y != 0).sum().item()
    assert 650 < kept < 850
    assert set(np.unique(y.numpy()).tolist()) <= {0.0, float(np.float32(1) / np.float32(0.75))}
    assert f.dropout(x, 0.5, training=False) is x
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
        f.dropout(x, 1.5)
    assert f.one_hot(G.tensor([0, 2, 1])).tolist() == [[1, 0, 0], [0, 0, 1], [0, 1, 0]]
