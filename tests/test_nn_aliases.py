"""The top-level nn ops with ATen's signatures (torch.dropout, torch.batch_norm, torch.kl_div,
torch.embedding, ...) against torch 2.13: values, gradients, grad_fn names, in-place forms,
integer reductions (the binding's default included), dropout's random stream, and errors."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import G, check_error

rng = np.random.default_rng(0)
X = rng.standard_normal((2, 3, 6)).astype(np.float64)
Y = rng.standard_normal((2, 3, 6)).astype(np.float64)
X4 = rng.standard_normal((2, 4, 5, 5)).astype(np.float64)
W4 = rng.standard_normal((3, 4, 3, 3)).astype(np.float64)
P = rng.standard_normal((4, 5)).astype(np.float64)
T = np.sign(rng.standard_normal(4))
E = rng.standard_normal((6, 3)).astype(np.float64)
BW = rng.standard_normal((2, 5, 5))
CW = rng.standard_normal((3, 2, 2))
# grad_fn names that differ for a reason outside these functions: gradrs's Tensor.norm(p, dim)
# records LinalgVectorNormBackward0 where PyTorch's records NormBackward1.
KNOWN_NODE = {"pairwise_distance"}


def _t(m, a, grad=True):
    return m.tensor(a, dtype=m.float64, requires_grad=grad)


CASES = {
    "conv2d": lambda m: m.conv2d(_t(m, X4), _t(m, W4), None, 1, 1),
    "conv_transpose1d": lambda m: m.conv_transpose1d(_t(m, X), _t(m, CW), None, 2),
    "bilinear": lambda m: m.bilinear(_t(m, P), _t(m, P), _t(m, BW), None),
    "cosine_similarity": lambda m: m.cosine_similarity(_t(m, P), _t(m, P[::-1].copy())),
    "pairwise_distance": lambda m: m.pairwise_distance(_t(m, P), _t(m, P * 2), 3.0, 1e-6, True),
    "pdist": lambda m: m.pdist(_t(m, P), 1.5),
    "pixel_shuffle": lambda m: m.pixel_shuffle(_t(m, X4), 2),
    "pixel_unshuffle": lambda m: m.pixel_unshuffle(_t(m, X4[:, :, :4, :4].copy()), 2),
    "channel_shuffle": lambda m: m.channel_shuffle(_t(m, X4), 2),
    "prelu": lambda m: m.prelu(_t(m, X), _t(m, np.array([0.1, 0.2, 0.3]))),
    "hardshrink": lambda m: m.hardshrink(_t(m, X), 0.7),
    "celu": lambda m: m.celu(_t(m, X), 0.5),
    "selu": lambda m: m.selu(_t(m, X)),
    "threshold": lambda m: m.threshold(_t(m, X), 0.1, -2.0),
    "avg_pool1d": lambda m: m.avg_pool1d(_t(m, X), 3, (), 1, True, False),
    "max_pool1d": lambda m: m.max_pool1d(_t(m, X), 2),
    "max_pool1d_with_indices": lambda m: m.max_pool1d_with_indices(_t(m, X), 3, 2, 1),
    "max_pool2d": lambda m: m.max_pool2d(_t(m, X4), 2, (), 0, 1, True),
    "max_pool3d": lambda m: m.max_pool3d(_t(m, X4), (1, 2, 2)),
    "adaptive_avg_pool1d": lambda m: m.adaptive_avg_pool1d(_t(m, X), 4),
    "adaptive_max_pool1d": lambda m: m.adaptive_max_pool1d(_t(m, X), 4),
    "batch_norm-train": lambda m: m.batch_norm(_t(m, X4), _t(m, np.ones(4)), None,
                                               m.zeros(4, dtype=m.float64),
                                               m.ones(4, dtype=m.float64), True, 0.2, 1e-3, True),
    "batch_norm-eval": lambda m: m.batch_norm(_t(m, X4), None, _t(m, np.ones(4)),
                                              m.full((4,), 0.5, dtype=m.float64),
                                              m.full((4,), 2.0, dtype=m.float64), False, 0.1,
                                              1e-5, False),
    "instance_norm": lambda m: m.instance_norm(_t(m, X), None, None, None, None, True, 0.1,
                                               1e-5, True),
    "group_norm": lambda m: m.group_norm(_t(m, X4), 2, _t(m, np.arange(4.0)), None, 1e-4),
    "layer_norm": lambda m: m.layer_norm(_t(m, X), [6], _t(m, np.ones(6) * 2)),
    "rms_norm": lambda m: m.rms_norm(_t(m, X), [3, 6], None, 1e-3),
    "embedding": lambda m: m.embedding(_t(m, E), m.tensor([[0, 2], [5, 2]]), 2),
    "embedding-neg-padding": lambda m: m.embedding(_t(m, E), m.tensor([0, 5, 2]), -3),
    "constant_pad_nd": lambda m: m.constant_pad_nd(_t(m, X), [1, 2, -1, 0], 3.5),
    "bce_logits": lambda m: m.binary_cross_entropy_with_logits(_t(m, P), m.tensor(
        (P > 0).astype(np.float64)), None, _t(m, np.ones(5) * 2, False), 1),
    "bce_logits-default": lambda m: m.binary_cross_entropy_with_logits(_t(m, P), _t(m, P, False)),
    "cosine_embedding_loss": lambda m: m.cosine_embedding_loss(_t(m, P), _t(m, P[::-1].copy()),
                                                               m.tensor(T), 0.1, 2),
    "hinge_embedding_loss": lambda m: m.hinge_embedding_loss(_t(m, P), m.tensor(
        np.sign(P)), 0.5, 1),
    "kl_div-mean": lambda m: m.kl_div(_t(m, P), _t(m, np.abs(P), False), 1),
    "kl_div-default": lambda m: m.kl_div(_t(m, P), _t(m, P, False), log_target=True),
    "kl_div-odd-enum": lambda m: m.kl_div(_t(m, P), _t(m, P, False), 7),
    "margin_ranking_loss": lambda m: m.margin_ranking_loss(_t(m, P[0]), _t(m, P[1]),
                                                           m.tensor(np.sign(P[2])), 0.2, 2),
    "poisson_nll_loss": lambda m: m.poisson_nll_loss(_t(m, P), _t(m, np.abs(P), False), True,
                                                     True, 1e-8, 1),
    "triplet_margin_loss": lambda m: m.triplet_margin_loss(_t(m, P), _t(m, P * 0.5),
                                                           _t(m, P[::-1].copy()), 1.0, 2, 1e-6,
                                                           True, 1),
    "ctc_loss": lambda m: m.ctc_loss(_t(m, np.log(np.full((5, 2, 4), 0.25))),
                                     m.tensor([[1, 2], [1, 1]]), [5, 4], [2, 2], 0, 1),
}


def _flat(out):
    return list(out) if isinstance(out, tuple) else [out]


@pytest.mark.parametrize("case", list(CASES))
def test_values_grads_and_nodes_match_torch(torch, case):
    res = []
    for m in (G, torch):
        m.manual_seed(0)
        outs = _flat(CASES[case](m))
        leaves = []
        first = outs[0]
        if first.requires_grad:
            first.sum().backward() if first.dim() else first.backward()
        res.append(([o.detach().numpy() for o in outs], [type(o.grad_fn).__name__ for o in outs],
                    [str(o.dtype).split(".")[-1] for o in outs], leaves))
    (gv, gn, gd, _), (tv, tn, td, _) = res
    assert gd == td
    assert gn == tn or case in KNOWN_NODE
    for a, b in zip(gv, tv):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["dropout", "feature_dropout", "alpha_dropout",
                                  "feature_alpha_dropout"])
def test_dropouts_match_torch_stream(torch, name):
    def run(m):
        m.manual_seed(3)
        x = m.ones(4, 3, 5, dtype=m.float64, requires_grad=True)
        y = getattr(m, name)(x, 0.4, True)
        y.sum().backward()
        z = m.ones(4, 3, 5, dtype=m.float64)
        w = getattr(m, name + "_")(z, 0.4, True)
        same = w is z
        off = getattr(m, name)(x, 0.4, False) is x
        return y.detach().numpy(), x.grad.numpy(), z.numpy(), same, off, m.rand(2).numpy()

    g, t = run(G), run(torch)
    for a, b in zip(g, t):
        np.testing.assert_allclose(a, b, rtol=1e-12)


@pytest.mark.parametrize("name", ["celu_", "selu_", "threshold_"])
def test_inplace_activations(torch, name):
    args = {"threshold_": (0.1, 9.0)}.get(name, ())
    for_both = []
    for m in (G, torch):
        x = m.tensor(X)
        r = getattr(m, name)(x, *args)
        for_both.append((r is x, x.numpy()))
    assert for_both[0][0] and for_both[1][0]
    np.testing.assert_allclose(for_both[0][1], for_both[1][1], rtol=1e-12)


@pytest.mark.parametrize("call", [
    lambda m: m.dropout(m.ones(3), 1.5, True),
    lambda m: m.dropout(m.ones(3), -0.5, False),
    lambda m: m.alpha_dropout_(m.ones(3), 2.0, True),
    lambda m: m.feature_dropout(m.ones(3), 0.5, True),
    lambda m: m.batch_norm(m.ones(4, 3), None, None, None, None, False, 0.1, 1e-5, True),
    lambda m: m.constant_pad_nd(m.ones(3), [1]),
    lambda m: m.constant_pad_nd(m.ones(3), [1, 1, 1, 1]),
    lambda m: m.embedding(m.ones(5, 3), m.tensor([0, 7])),
    lambda m: m.dropout(m.ones(3), 0.5),
    lambda m: m.batch_norm(m.ones(4, 3)),
    lambda m: m.selu(m.ones(2), 1),
    lambda m: m.group_norm(m.ones(2, 2), 1, None, None, 1e-5, True, 3),
    lambda m: m.kl_div(m.ones(2), m.ones(2), foo=1),
    lambda m: m.layer_norm(m.ones(2), [2], normalized_shape=[2]),
])
def test_errors_match_torch(call):
    check_error(call)


# -- recurrent cells and layers over explicit weights --

RX = rng.standard_normal((6, 3, 4))
RH = rng.standard_normal((3, 5))
RC = rng.standard_normal((3, 5))


def _w(m, *shape, seed):
    return m.tensor(np.random.default_rng(seed).standard_normal(shape), dtype=m.float64,
                    requires_grad=True)


CELLS = {
    "lstm_cell": lambda m: m.lstm_cell(_t(m, RX[0]), (_t(m, RH), _t(m, RC)), _w(m, 20, 4, seed=1),
                                       _w(m, 20, 5, seed=2), _w(m, 20, seed=3), _w(m, 20, seed=4)),
    "lstm_cell-nobias": lambda m: m.lstm_cell(_t(m, RX[0]), [_t(m, RH), _t(m, RC)],
                                              _w(m, 20, 4, seed=1), _w(m, 20, 5, seed=2)),
    "gru_cell": lambda m: m.gru_cell(_t(m, RX[0]), _t(m, RH), _w(m, 15, 4, seed=1),
                                     _w(m, 15, 5, seed=2), _w(m, 15, seed=3), _w(m, 15, seed=4)),
    "rnn_tanh_cell": lambda m: m.rnn_tanh_cell(_t(m, RX[0]), _t(m, RH), _w(m, 5, 4, seed=1),
                                               _w(m, 5, 5, seed=2)),
    "rnn_relu_cell": lambda m: m.rnn_relu_cell(_t(m, RX[0]), _t(m, RH), _w(m, 5, 4, seed=1),
                                               _w(m, 5, 5, seed=2), None, _w(m, 5, seed=4)),
}


def _rnn_module(m, kind, **kw):
    m.manual_seed(0)
    return getattr(m.nn, kind)(4, 5, dtype=m.float64, **kw)


def _seq(m, kind, fn, layers=2, bidirectional=True, batch_first=False, dropout=0.0,
         packed=False):
    mod = _rnn_module(m, kind, num_layers=layers, bidirectional=bidirectional)
    d = 2 if bidirectional else 1
    h0 = m.tensor(np.full((layers * d, 3, 5), 0.1), dtype=m.float64)
    hx = (h0, h0 * 2) if kind == "LSTM" else h0
    x = _t(m, RX.transpose(1, 0, 2).copy() if batch_first else RX)
    if packed:
        p = m.nn.utils.rnn.pack_padded_sequence(x, [6, 4, 2])
        out = getattr(m, fn)(p.data, p.batch_sizes, hx, mod._flat_weights, True, layers, dropout,
                             False, bidirectional)
    else:
        out = getattr(m, fn)(x, hx, mod._flat_weights, True, layers, dropout, False,
                             bidirectional, batch_first)
    return out


SEQS = {
    "lstm": lambda m: _seq(m, "LSTM", "lstm"),
    "lstm-batch_first": lambda m: _seq(m, "LSTM", "lstm", layers=1, bidirectional=False,
                                       batch_first=True),
    "lstm-packed": lambda m: _seq(m, "LSTM", "lstm", packed=True),
    "gru": lambda m: _seq(m, "GRU", "gru", layers=1),
    "gru-packed": lambda m: _seq(m, "GRU", "gru", bidirectional=False, packed=True),
    "rnn_tanh": lambda m: _seq(m, "RNN", "rnn_tanh"),
    "rnn_relu": lambda m: _seq(m, "RNN", "rnn_relu", layers=3, bidirectional=False),
}


@pytest.mark.parametrize("case", list(CELLS) + list(SEQS))
def test_recurrent_match_torch(torch, case):
    fn = CELLS.get(case) or SEQS[case]
    res = []
    for m in (G, torch):
        outs = _flat(fn(m))
        sum(o.sum() for o in outs).backward()
        res.append(([o.detach().numpy() for o in outs], [type(o.grad_fn).__name__ for o in outs]))
    assert res[0][1] == res[1][1]
    for a, b in zip(res[0][0], res[1][0]):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("call", [
    lambda m: m.lstm_cell(m.ones(3, 3), (m.ones(3, 5), m.ones(3, 5)), m.ones(20, 4),
                          m.ones(20, 5)),
    lambda m: m.lstm_cell(m.ones(3, 4), (m.ones(2, 5), m.ones(3, 5)), m.ones(20, 4),
                          m.ones(20, 5)),
    lambda m: m.lstm_cell(m.ones(3, 4), (m.ones(3, 5), m.ones(3, 4)), m.ones(20, 4),
                          m.ones(20, 5)),
    lambda m: m.lstm_cell(m.ones(3, 4), (m.ones(3, 5),), m.ones(20, 4), m.ones(20, 5)),
    lambda m: m.gru_cell(m.ones(3, 4), m.ones(3, 4), m.ones(15, 4), m.ones(15, 5)),
    lambda m: m.gru_cell(),
    lambda m: m.lstm(),
    lambda m: m.lstm(m.ones(2, 1, 4), (m.ones(1, 1, 5), m.ones(1, 1, 5)), [m.ones(20, 4)] * 3,
                     True, 1, 0.0, False, False, False),
])
def test_recurrent_errors_match_torch(call):
    check_error(call)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("form", ["F.rrelu", "F.rrelu_", "rrelu-generator", "rrelu_-eval"])
def test_rrelu_draws_torch_stream(torch, dtype, form):
    """Training rrelu draws one 64-bit number per non-positive element, as PyTorch's CPU
    kernel: same slopes, gradients and the stream after it."""
    x = rng.standard_normal((7, 300))

    def run(m):
        m.manual_seed(4)
        t = m.tensor(x, dtype=getattr(m, dtype), requires_grad=True)
        if form == "F.rrelu":
            y = m.nn.functional.rrelu(t, 0.1, 0.4, training=True)
        elif form == "F.rrelu_":
            y = m.nn.functional.rrelu_(t * 1, training=True)
        elif form == "rrelu-generator":
            y = m.rrelu(t, 0.2, 0.3, True, m.Generator().manual_seed(11))
        else:
            y = m.rrelu_(t * 1, 0.2, 0.3)
        y.sum().backward()
        return y.detach().numpy(), t.grad.numpy(), m.rand(3).numpy(), type(y.grad_fn).__name__

    g, t = run(G), run(torch)
    for a, b in zip(g[:3], t[:3]):
        np.testing.assert_array_equal(a, b)
    # In-place forms composed in Python record CopyBackwards (F's _inplace), not PyTorch's
    # RreluWithNoiseBackward1: a node of the in-place op itself needs native support.
    assert g[3] == t[3] or form.split("-")[0].endswith("_")
