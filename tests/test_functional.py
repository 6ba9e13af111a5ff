"""`gradrs.nn.functional` against PyTorch: forward values and input gradients for losses,
layers, convolution, pooling and normalization (float64, fixed data), plus float64
finite-difference checks that need no torch."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import SELFTEST, G, node_name
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
    "embedding": (lambda m, w: F(m).embedding(m.tensor([[0, 2], [2, 1]]), w), [A]),
    "mse_loss none": (lambda m, x, y: F(m).mse_loss(x, y.expand(3, 4), reduction="none"), [A, B]),
    "mse_loss weight": (
        lambda m, x, y: F(m).mse_loss(x, y.expand(3, 4), weight=y.detach().expand(3, 4) * 1),
        [A, B]),
    "smooth_l1_loss beta0": (lambda m, x, y: F(m).smooth_l1_loss(x, y.expand(3, 4), beta=0.0),
                             [A, B]),
    "huber_loss sum": (lambda m, x, y: F(m).huber_loss(x, y.expand(3, 4), reduction="sum"),
                       [A, B]),
    "huber_loss weight": (
        lambda m, x, y: F(m).huber_loss(x, y.expand(3, 4), weight=y.detach().expand(3, 4) * 1),
        [A, B]),
    "l1_loss weight": (
        lambda m, x, y: F(m).l1_loss(x, y.expand(3, 4), weight=y.detach().expand(3, 4) + 3),
        [A, B]),
    "binary_cross_entropy weight none": (
        lambda m, x, y: F(m).binary_cross_entropy(x.sigmoid(), y.sigmoid().expand(3, 4),
                                                  weight=y.detach().abs(), reduction="none"),
        [A, B]),
    "kl_div none": (lambda m, x, y: F(m).kl_div(x, y.softmax(0).expand(3, 4), reduction="none"),
                    [A, B]),
    "kl_div sum log_target": (
        lambda m, x, y: F(m).kl_div(x, y.log_softmax(0).expand(3, 4), reduction="sum",
                                    log_target=True), [A, B]),
    "conv2d unbatched": (lambda m, x, w: F(m).conv2d(x[0], w, padding=1), [X4, W4]),
    "conv1d unbatched": (lambda m, x, w: F(m).conv1d(x, w),
                         [rng.standard_normal((3, 7)), rng.standard_normal((4, 3, 3))]),
    "max_pool2d ceil": (lambda m, x: F(m).max_pool2d(x, 3, 2, 1, ceil_mode=True), [X4]),
    "max_pool2d ceil dilation": (
        lambda m, x: F(m).max_pool2d(x, 2, 2, 0, 2, ceil_mode=True), [X4]),
    "max_pool2d indices unbatched": (
        lambda m, x: F(m).max_pool2d(x[0], (2, 3), (1, 2), return_indices=True)[0], [X4]),
    "max_pool2d_with_indices": (
        lambda m, x: F(m).max_pool2d_with_indices(x, 2, ceil_mode=True)[0], [X4]),
    "max_pool1d": (lambda m, x: F(m).max_pool1d(x, 3, 2, 1, ceil_mode=True),
                   [rng.standard_normal((2, 3, 8))]),
    "avg_pool1d": (lambda m, x: F(m).avg_pool1d(x, 3, 2, 1), [rng.standard_normal((2, 3, 8))]),
    "avg_pool2d unbatched": (lambda m, x: F(m).avg_pool2d(x[0], 2), [X4]),
    "adaptive_avg_pool2d 1": (lambda m, x: F(m).adaptive_avg_pool2d(x, 1), [X4]),
    "batch_norm eval affine": (
        lambda m, x, w, b: F(m).batch_norm(x, m.zeros(3, dtype=m.float64) + 0.5,
                                           m.ones(3, dtype=m.float64) * 2, w, b), [X4, B[:3], B[1:]]),
    "batch_norm train affine": (
        lambda m, x, w, b: F(m).batch_norm(x, None, None, w, b, training=True),
        [X4, B[:3], B[1:]]),
    "pad reflect 2d": (lambda m, x: F(m).pad(x, (1, 2, 1, 1), mode="reflect"), [X4]),
    "pad replicate 2d": (lambda m, x: F(m).pad(x, (1, 2, 1, 0), mode="replicate"), [X4]),
    "pad circular": (lambda m, x: F(m).pad(x[None], (1, 2), mode="circular"), [A]),
    "pad negative": (lambda m, x: F(m).pad(x, (-1, 1)), [A]),
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


# grad_fn names that still differ from PyTorch's (strict xfails: delete the line once fixed).
NAME_DIFFERENCES = {
    "pad circular": "circular padding is an index_select here (IndexSelectBackward0); PyTorch "
                    "writes slices into a new tensor (CopySlices)",
}


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=NAME_DIFFERENCES[n]))
    if n in NAME_DIFFERENCES and not SELFTEST else n for n in CASES])
def test_functional_grad_fn_name(name, torch):
    f, arrays = CASES[name]
    names = []
    for m in (G, torch):
        xs = [m.tensor(a, dtype=m.float64, requires_grad=True) for a in arrays]
        names.append(node_name(f(m, *xs).grad_fn))
    assert names[0] == names[1]


def _double(m, f, arrays):
    xs = [m.tensor(a, dtype=m.float64, requires_grad=True) for a in arrays]
    out = f(m, *xs)
    g = m.tensor(np.linspace(0.5, 1.5, out.numel()).reshape(tuple(out.shape)), dtype=m.float64,
                 requires_grad=True)
    firsts = m.autograd.grad(out, xs, g, create_graph=True, allow_unused=True)
    used = [(x, d) for x, d in zip(xs, firsts) if d is not None and d.requires_grad]
    total = sum(((d * d).sum() for _, d in used), m.zeros((), dtype=m.float64))
    seconds = m.autograd.grad(total, [x for x, _ in used] + [g], allow_unused=True)
    return ([None if d is None else d.detach().numpy() for d in firsts],
            [None if d is None else d.numpy() for d in seconds])


@pytest.mark.parametrize("name", [
    "mse_loss", "mse_loss none", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
    "bce_with_logits", "conv2d", "conv2d groups", "conv1d", "max_pool2d ceil", "avg_pool2d",
    "adaptive_avg_pool2d uneven", "layer_norm", "batch_norm train", "batch_norm train affine",
    "embedding padding_idx", "pad reflect 2d", "pad constant",
])
def test_functional_double_backward(name, torch):
    """First derivatives with create_graph, then second derivatives, against PyTorch. For ops
    linear in their input PyTorch returns zeros for an unused second derivative where gradrs
    returns None: those two count as equal (both mean "no dependence")."""
    f, arrays = CASES[name]
    got, want = _double(G, f, arrays), _double(torch, f, arrays)
    for gs, ts in zip(got, want):
        assert len(gs) == len(ts)
        for a, b in zip(gs, ts):
            if a is None or b is None:
                assert not np.any(a if a is not None else (b if b is not None else 0))
                continue
            np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-10)


def test_max_pool2d_indices_vs_torch(torch):
    x = np.round(rng.standard_normal((2, 3, 7, 6)), 1)  # ties: the first maximum wins
    for kw in [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
               dict(kernel_size=(2, 3), stride=(2, 1), dilation=(2, 1), ceil_mode=True)]:
        got = F(G).max_pool2d(G.tensor(x), return_indices=True, **kw)
        want = F(torch).max_pool2d(torch.tensor(x), return_indices=True, **kw)
        np.testing.assert_array_equal(got[1].numpy(), want[1].numpy())
        np.testing.assert_array_equal(got[0].numpy(), want[0].numpy())
        assert got[1].dtype == G.int64
    v, i = F(G).max_pool1d(G.tensor(x[0]), 3, 2, return_indices=True)
    tv, ti = F(torch).max_pool1d(torch.tensor(x[0]), 3, 2, return_indices=True)
    np.testing.assert_array_equal(i.numpy(), ti.numpy())


def test_max_pool2d_errors(torch):
    from conftest import check_error

    check_error(lambda m: F(m).max_pool2d(m.zeros(1, 1, 4, 4), 2, 0))
    check_error(lambda m: F(m).max_pool2d(m.zeros(5, 5), 2))
    check_error(lambda m: F(m).max_pool2d(m.zeros(1, 1, 1, 1), 2))


def test_one_node_second_backward_and_inplace_errors(torch):
    from conftest import check_error

    def twice(m):
        x = m.tensor(A, requires_grad=True)
        y = F(m).mse_loss(x, m.tensor(B).expand(3, 4))
        y.backward()
        y.backward()

    check_error(twice)

    for m in (G, torch):
        x = m.tensor(A, requires_grad=True)
        w = m.tensor(B[:4], requires_grad=True) * 1
        y = F(m).layer_norm(x, (4,), w)
        w.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


# Convolution argument errors, in PyTorch's order of checks (conv{1,2}d's front end,
# _convolution, check_shape_forward, then the CPU kernel's own), and integer convolutions.
def _conv_cases(m):
    f = m.nn.functional

    def r(*shape, dtype=None):
        return m.ones(*shape, dtype=dtype or m.float32)

    f64, i64 = m.float64, m.int64
    return {
        "input f64 weight f32": lambda: f.conv2d(r(1, 3, 5, 5, dtype=f64), r(4, 3, 3, 3)),
        "bias dtype": lambda: f.conv2d(r(1, 3, 5, 5), r(4, 3, 3, 3), r(4, dtype=f64)),
        "bias dtype before input rank": lambda: f.conv2d(r(1, 1, 3, 5, 5), r(4, 3, 3, 3),
                                                         r(4, dtype=f64)),
        "input rank": lambda: f.conv2d(r(1, 1, 3, 5, 5), r(4, 3, 3, 3)),
        "conv1d input rank": lambda: f.conv1d(r(1, 1, 3, 5), r(4, 3, 3)),
        "weight rank 1": lambda: f.conv2d(r(1, 3, 5, 5), r(4)),
        "weight rank 3": lambda: f.conv2d(r(1, 3, 5, 5), r(4, 3, 3)),
        "conv1d weight rank 4": lambda: f.conv1d(r(1, 3, 5), r(4, 3, 3, 3)),
        "stride 0": lambda: f.conv2d(r(1, 3, 5, 5), r(4, 3, 3, 3), stride=0),
        "stride list": lambda: f.conv2d(r(1, 3, 5, 5), r(4, 3, 3, 3), stride=(1, 2, 3)),
        "padding list": lambda: f.conv2d(r(1, 3, 5, 5), r(4, 3, 3, 3), padding=(1, 1, 1),
                                         dilation=(1, 1, 1)),
        "negative padding first": lambda: f.conv2d(r(1, 3, 5, 5), r(4, 3, 3, 3), stride=0,
                                                   padding=-1),
        "negative dilation": lambda: f.conv2d(r(1, 3, 5, 5), r(4, 3, 3, 3), dilation=(-1, 1)),
        "groups 0": lambda: f.conv2d(r(1, 3, 5, 5), r(4, 3, 3, 3), groups=0, stride=(1, 1, 1)),
        "no weight": lambda: f.conv2d(r(1, 3, 5, 5), r(0, 3, 3, 3)),
        "groups divide": lambda: f.conv2d(r(1, 4, 5, 5), r(3, 2, 3, 3), groups=2),
        "channels": lambda: f.conv2d(r(1, 4, 5, 5), r(4, 3, 3, 3), r(5)),
        "bias size": lambda: f.conv2d(r(1, 3, 5, 5), r(4, 3, 3, 3), r(4, 1)),
        "kernel too big": lambda: f.conv2d(r(1, 3, 4, 4), r(4, 3, 3, 3), dilation=2),
        "conv1d kernel too big": lambda: f.conv1d(r(1, 3, 2), r(4, 3, 3)),
        "kernel 0": lambda: f.conv2d(r(1, 3, 5, 5, dtype=f64), r(4, 3, 0, 3)),
        "kernel 0 dilation 0": lambda: f.conv2d(r(1, 3, 5, 5), r(4, 3, 0, 3), dilation=0),
        "dilation 0": lambda: f.conv2d(r(1, 3, 5, 5, dtype=f64), r(4, 3, 3, 3), dilation=0),
        "conv1d dilation 0": lambda: f.conv1d(r(1, 3, 5), r(4, 3, 3), dilation=0),
        "bool": lambda: f.conv2d(r(1, 3, 5, 5) > 0, r(4, 3, 3, 3)),
        "bool dilated": lambda: f.conv2d(r(1, 3, 5, 5) > 0, r(4, 3, 3, 3) > 0, dilation=2),
        "long input float weight": lambda: f.conv2d(r(1, 3, 5, 5, dtype=i64), r(4, 3, 3, 3)),
        "same strided": lambda: f.conv2d(r(1, 3, 5, 5), r(4, 3, 3, 3), stride=2, padding="same"),
        "same stride list": lambda: f.conv2d(r(1, 3, 5, 5), r(4, 3, 3, 3), stride=(1, 1, 1),
                                             padding="same"),
        "same weight rank": lambda: f.conv2d(r(1, 3, 5, 5), r(4, 3, 3), padding="same"),
        "same channels after padding": lambda: f.conv2d(r(1, 4, 5, 5), r(4, 3, 2, 3),
                                                        padding="same"),
        "valid weight rank": lambda: f.conv2d(r(1, 3, 5, 5), r(4, 3, 3), padding="valid"),
        "padding string": lambda: f.conv2d(r(1, 3, 5, 5), r(4, 3, 3, 3), padding="foo"),
        "long": lambda: f.conv2d(m.arange(75, dtype=i64).reshape(1, 3, 5, 5) % 7 - 3,
                                 m.arange(108, dtype=i64).reshape(4, 3, 3, 3) % 5 - 2,
                                 m.arange(4, dtype=i64), padding=1, stride=(2, 1)),
        "long dilated": lambda: f.conv1d(m.arange(30, dtype=i64).reshape(2, 3, 5) % 4,
                                         m.arange(24, dtype=i64).reshape(4, 3, 2), dilation=2),
        "empty batch": lambda: f.conv2d(r(0, 3, 5, 5), r(4, 3, 3, 3)),
        "one stride for both dims": lambda: f.conv2d(r(1, 3, 5, 5), r(4, 3, 3, 3), stride=(2,)),
    }


@pytest.mark.parametrize("name", list(_conv_cases(G)))
def test_convolution_errors_and_integers_match_torch(name, torch):
    import warnings

    def outcome(m):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = _conv_cases(m)[name]()
        except Exception as e:  # noqa: BLE001 - the exception itself is compared
            return type(e).__name__, str(e)
        return "ok", (list(r.shape), str(r.dtype).split(".")[-1], r.tolist())

    assert outcome(G) == outcome(torch)
