"""Nodes recorded from Python save the inputs PyTorch's node saves (derivatives.yaml), no more:
an input modified in place after the op breaks backward exactly where it breaks PyTorch's
(programs gap 27: Embedding with max_norm looked up twice, F.pad after `w.mul_(2)`); against
torch 2.13."""

import numpy as np
import pytest
from conftest import G, assert_same_error, need_torch


def _modified_after(m, make, inputs, which):
    """`make(m, *inputs)` recorded, then input `which` modified in place (without grad) before
    backward: the gradients (or the error)."""
    leaves = [m.tensor(v, requires_grad=rg) if isinstance(v, list) else v
              for v, rg in inputs]
    xs = [t * 1 if isinstance(t, m.Tensor) and t.requires_grad else t for t in leaves]
    out = make(m, *xs)
    out = out[0] if isinstance(out, tuple) else out
    with m.no_grad():
        xs[which].mul_(2)
    out.sum().backward()
    return [t.grad.tolist() if isinstance(t, m.Tensor) and t.requires_grad else None
            for t in leaves]


def _img(n=1, c=4, h=2, w=2):
    return [[[[float(i + 2 * j + 3 * k - 4 * b) / 7 for i in range(w)] for j in range(h)]
             for k in range(c)] for b in range(n)]


# (op, inputs as (value, requires_grad), positions modified in place)
CASES = {
    "pad": (lambda m, x: m.nn.functional.pad(x, (1, 1)), [(_img(), True)], [0]),
    "interpolate_nearest": (
        lambda m, x: m.nn.functional.interpolate(x, scale_factor=2, mode="nearest"),
        [(_img(), True)], [0]),
    "pixel_shuffle": (lambda m, x: m.nn.functional.pixel_shuffle(x, 2), [(_img(), True)], [0]),
    "conv2d": (lambda m, x, w, b: m.nn.functional.conv2d(x, w, b),
               [(_img(), True), (_img(2, 4, 1, 1), True), ([0.5, -0.5], True)], [0, 1, 2]),
    "conv2d_input_only": (lambda m, x, w: m.nn.functional.conv2d(x, w),
                          [(_img(), True), (_img(2, 4, 1, 1), False)], [1]),
    "mse_loss": (lambda m, x, t: m.nn.functional.mse_loss(x, t),
                 [([1.0, 2.0, -1.0], True), ([0.5, 0.0, 3.0], False)], [0, 1]),
    "block_diag": (lambda m, a, b: m.block_diag(a, b),
                   [([[1.0, 2.0]], True), ([[3.0], [4.0]], True)], [0, 1]),
    "dist": (lambda m, a, b: m.dist(a, b),
             [([1.0, 2.0], True), ([3.0, -1.0], True)], [0, 1]),
}


@pytest.mark.parametrize("case", [(name, i) for name, (_, _, which) in sorted(CASES.items())
                                  for i in which], ids=lambda c: f"{c[0]}-{c[1]}")
def test_in_place_after_op(case):
    name, which = case
    make, inputs, _ = CASES[name]
    torch = need_torch()

    def run(m):
        return _modified_after(m, make, inputs, which)
    try:
        expected = run(torch)
    except RuntimeError:
        assert_same_error(lambda: run(G), lambda: run(torch))
        return
    _close(run(G), expected)


def _close(a, b):
    for x, y in zip(a, b):
        assert (x is None) == (y is None)
        if x is not None:
            np.testing.assert_allclose(np.array(x), np.array(y), rtol=1e-5, atol=1e-6)
    return True


def test_embedding_max_norm_looked_up_twice():
    """programs gap 27's repro: the second lookup renormalizes weight in place; PyTorch's
    EmbeddingBackward0 saves only the indices."""
    def run(m):
        m.manual_seed(0)
        e = m.nn.Embedding(5, 3, max_norm=1.0)
        with m.no_grad():
            e.weight.copy_(m.arange(15.0).view(5, 3) / 10)
        a = e(m.tensor([0, 1]))
        b = e(m.tensor([2, 3]))
        (a.sum() + (b * b).sum()).backward()
        return e.weight.grad.tolist()
    torch = need_torch()
    _close(run(G), run(torch))


def test_attach_node_save_inputs():
    """`_attach_node(..., save_inputs=[...])` version-checks only the listed inputs."""
    from gradrs import _native
    a = G.tensor([1.0, 2.0], requires_grad=True)
    b = G.tensor([3.0, 4.0], requires_grad=True)
    x, y = a * 1, b * 1
    with G.no_grad():
        out = x * y
    _native._attach_node(out, [x, y], "MulBackward0", lambda g: [g * 3, g * 1],
                         save_inputs=[0])
    with G.no_grad():
        y.add_(1)  # not saved: fine
    out.sum().backward()
    assert a.grad.tolist() == [3.0, 3.0] and b.grad.tolist() == [1.0, 1.0]
    x, y = a * 1, b * 1
    with G.no_grad():
        out = x * y
    _native._attach_node(out, [x, y], "MulBackward0", lambda g: [g, g], save_inputs=[0])
    with G.no_grad():
        x.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()
    with pytest.raises(IndexError):
        _native._attach_node(x * 1, [x], "X", lambda g: [g], save_inputs=[1])
