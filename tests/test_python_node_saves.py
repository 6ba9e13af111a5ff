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
    # (None, None): a running-stats buffer, made here
    leaves = [m.tensor(v, requires_grad=rg) if v is not None else m.zeros(2) + i
              for i, (v, rg) in enumerate(inputs)]
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
    "interpolate_bilinear": (
        lambda m, x: m.nn.functional.interpolate(x, scale_factor=2, mode="bilinear"),
        [(_img(), True)], [0]),
    "pixel_unshuffle": (lambda m, x: m.nn.functional.pixel_unshuffle(x, 2),
                        [(_img(), True)], [0]),
    "channel_shuffle": (lambda m, x: m.nn.functional.channel_shuffle(x, 2),
                        [(_img(), True)], [0]),
    "unfold": (lambda m, x: m.nn.functional.unfold(x, 2), [(_img(1, 2, 3, 3), True)], [0]),
    "fold": (lambda m, x: m.nn.functional.fold(x, (3, 3), 2),
             [(_img(1, 1, 8, 4)[0], True)], [0]),
    "affine_grid": (lambda m, t: m.nn.functional.affine_grid(t, (1, 1, 3, 3),
                                                             align_corners=False),
                    [([[[1.0, 0.2, 0.0], [0.1, 0.9, 0.3]]], True)], [0]),
    "max_unpool2d": (lambda m, x: m.nn.functional.max_unpool2d(
        x, m.tensor([[[[0, 3], [8, 11]]]]), 2), [(_img(1, 1, 2, 2), True)], [0]),
    "group_norm": (lambda m, x, w, b: m.nn.functional.group_norm(x, 2, w, b),
                   [(_img(2, 4, 1, 2), True), ([1.0, 2.0, 0.5, 1.5], True),
                    ([0.1, 0.2, 0.3, 0.4], True)], [0, 1, 2]),
    "batch_norm": (lambda m, x, rm, rv, w, b: m.nn.functional.batch_norm(
        x, rm, rv, w, b, training=True),
        [([[1.0, 2.0], [3.0, -1.0], [0.5, 0.0]], True), (None, None), (None, None),
         ([1.0, 2.0], True), ([0.1, 0.2], True)], [0, 1, 3, 4]),
    "embedding_bag": (lambda m, w, p: m.nn.functional.embedding_bag(
        m.tensor([0, 2, 1, 3]), w, m.tensor([0, 2]), mode="sum", per_sample_weights=p),
        [(_img(1, 1, 5, 3)[0][0], True), ([1.0, 0.5, -1.0, 2.0], True)], [0, 1]),
    "embedding_bag_constant_weights": (lambda m, w, p: m.nn.functional.embedding_bag(
        m.tensor([0, 2, 1, 3]), w, m.tensor([0, 2]), mode="sum", per_sample_weights=p),
        [(_img(1, 1, 5, 3)[0][0], True), ([1.0, 0.5, -1.0, 2.0], False)], [0, 1]),
    "avg_pool2d": (lambda m, x: m.nn.functional.avg_pool2d(x, 2), [(_img(1, 1, 4, 4), True)],
                   [0]),
    "reflect_pad": (lambda m, x: m.nn.functional.pad(x, (1, 1), mode="reflect"),
                    [(_img(1, 2, 1, 4)[0], True)], [0]),
    "linalg_inv": (lambda m, a: m.linalg.inv(a), [([[2.0, 0.5], [0.3, 3.0]], True)], [0]),
    "linalg_cholesky": (lambda m, a: m.linalg.cholesky(a),
                        [([[2.0, 0.5], [0.5, 3.0]], True)], [0]),
    "linalg_pinv": (lambda m, a: m.linalg.pinv(a), [([[2.0, 0.5], [0.3, 3.0]], True)], [0]),
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


def test_batch_norm_twice_before_backward():
    """A BatchNorm module run twice before backward: PyTorch's kernel updates the running
    statistics without counting a version, so the first node's saved ones stay valid."""
    def run(m):
        m.manual_seed(0)
        bn = m.nn.BatchNorm1d(3)
        x = m.tensor([[1.0, 2.0, 0.5], [3.0, -1.0, 0.0], [0.5, 0.0, 2.0], [1.5, 1.0, -1.0]],
                     requires_grad=True)
        a = bn(x)
        b = bn(x * 2)
        (a.sum() + (b * b).sum()).backward()
        return x.grad.tolist(), bn.running_mean._version, bn.running_mean.tolist()
    torch = need_torch()
    g, t = run(G), run(torch)
    _close(g[0], t[0])
    assert g[1] == t[1]
    _close(g[2], t[2])


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


def _names(fn, depth=3):
    if fn is None or depth == 0:
        return None
    return (type(fn).__name__, tuple(_names(f, depth - 1) for f, _ in fn.next_functions))


def _a(m):
    return m.tensor([[1.0, 2.0], [3.0, -1.0]], requires_grad=True)


def _renorm(m):
    x = _a(m)
    y = x * 1
    y.renorm_(2, 0, 1.0)
    y.sum().backward()
    return _names(y.grad_fn), x.grad.tolist()


def _renorm_then_mul(m):
    x = _a(m)
    y = x * 1
    y.renorm_(2, 0, 1.0)
    y.mul_(2)  # RenormBackward0 saves a copy of self, not self
    y.sum().backward()
    return x.grad.tolist()


def _addmm_(m):
    x = _a(m)
    b = m.tensor([[1.0, 0.0], [2.0, 1.0]], requires_grad=True)
    y = x * 1
    y.addmm_(b, b)
    y.sum().backward()
    return _names(y.grad_fn), x.grad.tolist(), b.grad.tolist()


def _copy_form_input_modified(m):
    x = _a(m)
    y = x * 1
    z = m.transpose_copy(y, 0, 1)
    with m.no_grad():
        y.mul_(2)  # a view's copy saves only sizes
    z.sum().backward()
    return x.grad.tolist()


def _index_copy_source_modified(m):
    x = _a(m)
    s0 = m.tensor([[5.0, 6.0]], requires_grad=True)
    s = s0 * 1
    y = x * 1
    y.index_copy_(0, m.tensor([1]), s)
    with m.no_grad():
        s.mul_(2)
    y.sum().backward()


@pytest.mark.parametrize("run", [_renorm, _renorm_then_mul, _addmm_, _copy_form_input_modified],
                         ids=lambda f: f.__name__)
def test_in_place_forms(run):
    """The in-place forms written in Python: the node's first edge is self's history itself
    (no recorded clone in between, as PyTorch's graph), self is not version-checked."""
    torch = need_torch()
    g, t = run(G), run(torch)
    if isinstance(t, tuple) and isinstance(t[0], tuple):
        assert g[0] == t[0]
        g, t = g[1:], t[1:]
    for a, b in zip(g if isinstance(g, tuple) else (g,), t if isinstance(t, tuple) else (t,)):
        _close(a, b)


def test_in_place_form_saved_other_modified():
    torch = need_torch()
    assert_same_error(lambda: _index_copy_source_modified(G),
                      lambda: _index_copy_source_modified(torch))


def _masked_scatter_source_modified(m):
    x = _a(m)
    s0 = m.tensor([5.0, 6.0, 7.0, 8.0], requires_grad=True)
    s = s0 * 1
    y = x * 1
    y.masked_scatter_(m.tensor([[True, False], [False, True]]), s)
    with m.no_grad():
        s.mul_(2)  # MaskedScatterBackward0 saves the mask, not the source
    y.sum().backward()
    return s0.grad.tolist()


def test_masked_scatter_saves_mask_only():
    torch = need_torch()
    assert _masked_scatter_source_modified(G) == _masked_scatter_source_modified(torch)
