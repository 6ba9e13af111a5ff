"""F.linear_cross_entropy's chunked path (options=LinearCrossEntropyOptions(...)) and the
options class against torch 2.13: losses and gradients for every reduction with class
weights, ignore_index, bias, unbatched input and chunk sizes; the grad_fn nodes; one backward
unless allow_retain_graph; the fallback warning; the options' repr, validation and resolution
(_adjust)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import G, check_error, norm

rng = np.random.default_rng(0)
N, D, C = 9, 4, 11
X = rng.standard_normal((N, D))
W = rng.standard_normal((C, D))
B = rng.standard_normal(C)
T = rng.integers(0, C, N)
T[2] = 3
CW = rng.random(C) + 0.1
TOL = {"float64": {"rtol": 1e-10, "atol": 1e-12}, "float32": {"rtol": 2e-5, "atol": 2e-6}}


def _run(m, dtype, reduction, *, bias=True, weight=False, ignore_index=None, chunk=None,
         allow=False, unbatched=False, method="auto"):
    dt = getattr(m, dtype)
    x = m.tensor(X[0] if unbatched else X, dtype=dt, requires_grad=True)
    w = m.tensor(W, dtype=dt, requires_grad=True)
    b = m.tensor(B, dtype=dt, requires_grad=True) if bias else None
    t = m.tensor(T[0] if unbatched else T)
    opts = m.nn.LinearCrossEntropyOptions(batch_chunk_size=chunk, allow_retain_graph=allow,
                                          chunking_method=None if chunk else method)
    loss = m.nn.functional.linear_cross_entropy(
        x, w, t, linear_bias=b, weight=m.tensor(CW, dtype=dt) if weight else None,
        reduction=reduction, ignore_index=ignore_index, options=opts)
    leaves = [x, w] + ([b] if bias else [])
    grads = m.autograd.grad(loss.sum(), leaves, retain_graph=True)
    return loss, grads


CASES = [
    {"reduction": "mean"}, {"reduction": "sum"}, {"reduction": "none"},
    {"reduction": "mean", "weight": True, "ignore_index": 3, "chunk": 2},
    {"reduction": "sum", "weight": True, "ignore_index": 3, "chunk": 4, "bias": False},
    {"reduction": "none", "weight": True, "ignore_index": 3, "chunk": 3},
    {"reduction": "mean", "unbatched": True}, {"reduction": "none", "unbatched": True},
    {"reduction": "mean", "method": "aspect_ratio:2"},
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=[str(c) for c in CASES])
def test_loss_grads_and_node_match_torch(torch, case, dtype):
    (gl, gg), (tl, tg) = _run(G, dtype, **case), _run(torch, dtype, **case)
    assert tuple(gl.shape) == tuple(tl.shape)
    assert str(gl.dtype).split(".")[-1] == str(tl.dtype).split(".")[-1]
    assert type(gl.grad_fn).__name__ == type(tl.grad_fn).__name__
    np.testing.assert_allclose(gl.detach().numpy(), tl.detach().numpy(), **TOL[dtype])
    for a, b in zip(gg, tg):
        np.testing.assert_allclose(a.numpy(), b.numpy(), **TOL[dtype])


def test_same_as_reference_path():
    x = G.tensor(X, requires_grad=True)
    w = G.tensor(W, requires_grad=True)
    t = G.tensor(T)
    ref = G.nn.functional.linear_cross_entropy(x, w, t, ignore_index=3)
    got = G.nn.functional.linear_cross_entropy(
        x, w, t, ignore_index=3, options=G.nn.LinearCrossEntropyOptions(batch_chunk_size=2))
    np.testing.assert_allclose(got.item(), ref.item(), rtol=1e-12)


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_second_backward_needs_allow_retain_graph(torch, reduction):
    def twice(m):
        x = m.tensor(X, requires_grad=True)
        w = m.tensor(W, requires_grad=True)
        loss = m.nn.functional.linear_cross_entropy(
            x, w, m.tensor(T), reduction=reduction, options=m.nn.LinearCrossEntropyOptions())
        loss.backward(retain_graph=True)
        loss.backward()

    check_error(twice)

    def allowed(m):
        x = m.tensor(X, requires_grad=True)
        w = m.tensor(W, requires_grad=True)
        loss = m.nn.functional.linear_cross_entropy(
            x, w, m.tensor(T), reduction=reduction,
            options=m.nn.LinearCrossEntropyOptions(allow_retain_graph=True))
        loss.backward(retain_graph=True)
        loss.backward()
        return x.grad.numpy()

    np.testing.assert_allclose(allowed(G), allowed(torch), rtol=1e-10)


def test_only_the_leaves_that_require_grad(torch):
    def run(m):
        x = m.tensor(X)
        w = m.tensor(W, requires_grad=True)
        loss = m.nn.functional.linear_cross_entropy(x, w, m.tensor(T),
                                                    options=m.nn.LinearCrossEntropyOptions())
        loss.backward()
        return w.grad.numpy(), x.grad

    (gw, gx), (tw, tx) = run(G), run(torch)
    np.testing.assert_allclose(gw, tw, rtol=1e-10)
    assert gx is None and tx is None


@pytest.mark.parametrize("kw", [{"label_smoothing": 0.1}, {"probabilities": True}])
def test_fallback_warns_like_torch(torch, kw):
    def run(m):
        x = m.tensor(X)
        w = m.tensor(W)
        if kw.get("probabilities"):
            t = m.tensor(np.full((N, C), 1.0 / C))
            extra = {}
        else:
            t, extra = m.tensor(T), kw
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            loss = m.nn.functional.linear_cross_entropy(
                x, w, t, options=m.nn.LinearCrossEntropyOptions(), **extra)
        return loss.item(), [norm(str(c.message)) for c in caught]

    (gl, gw), (tl, tw) = run(G), run(torch)
    assert gw == tw
    np.testing.assert_allclose(gl, tl, rtol=1e-10)


def test_options_repr_defaults_and_adjust(torch):
    for m in (G, torch):
        assert repr(m.nn.LinearCrossEntropyOptions()) == (
            "LinearCrossEntropyOptions(allow_retain_graph=False, batch_chunk_size=None, "
            "chunking_method='auto', acc_policy='auto', acc_dtype=None)")
    for kw, shape, dt in [({}, (8, 4, 10), "float32"), ({}, (100, 16, 1000), "float16"),
                          ({"batch_chunk_size": 3}, (8, 4, 10), "float64"),
                          ({"chunking_method": "aspect_ratio:4"}, (512, 8, 64), "float32"),
                          ({"acc_policy": "balanced", "chunking_method": None}, (7, 3, 5),
                           "float16"),
                          ({"acc_dtype": "float64"}, (8, 4, 10), "float64")]:
        out = []
        for m in (G, torch):
            k = {a: getattr(m, v) if a == "acc_dtype" else v for a, v in kw.items()}
            r = m.nn.LinearCrossEntropyOptions(**k)._adjust(*shape, getattr(m, dt),
                                                           m.device("cpu"))
            out.append((r.acc_policy, r.chunking_method, r.batch_chunk_size,
                        str(r.acc_dtype).split(".")[-1], r.allow_retain_graph))
        assert out[0] == out[1], kw


@pytest.mark.parametrize("call", [
    lambda m: m.nn.LinearCrossEntropyOptions(acc_policy="fast"),
    lambda m: m.nn.LinearCrossEntropyOptions(chunking_method="aspect_ratio:0"),
    lambda m: m.nn.LinearCrossEntropyOptions(chunking_method="rows"),
    lambda m: m.nn.LinearCrossEntropyOptions(batch_chunk_size=0),
    lambda m: m.nn.LinearCrossEntropyOptions(acc_dtype=m.int64),
    lambda m: m.nn.LinearCrossEntropyOptions(batch_chunk_size=3,
                                             chunking_method="aspect_ratio")._adjust(
        8, 4, 10, m.float32),
    lambda m: setattr(m.nn.LinearCrossEntropyOptions(), "acc_policy", "compact"),
])
def test_options_errors_match_torch(call):
    check_error(call)


def test_module_takes_options(torch):
    def run(m):
        m.manual_seed(0)
        mod = m.nn.LinearCrossEntropyLoss(D, C, bias=True, dtype=m.float64,
                                          options=m.nn.LinearCrossEntropyOptions(
                                              batch_chunk_size=4))
        loss = mod(m.tensor(X), m.tensor(T))
        loss.backward()
        return loss.item(), mod.linear.weight.grad.numpy()

    (gl, gw), (tl, tw) = run(G), run(torch)
    np.testing.assert_allclose(gl, tl, rtol=1e-10)
    np.testing.assert_allclose(gw, tw, rtol=1e-10)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_float16_accumulates_in_float32(torch, reduction):
    """float16 input: float32 accumulation, float16 results within float16 rounding."""
    (gl, gg), (tl, tg) = _run(G, "float16", reduction), _run(torch, "float16", reduction)
    assert gl.dtype == G.float16 and all(g.dtype == G.float16 for g in gg)
    np.testing.assert_allclose(gl.detach().numpy(), tl.detach().numpy(), rtol=2e-3, atol=1e-3)
    for a, b in zip(gg, tg):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=5e-3, atol=4e-3)
