"""Differential tests against PyTorch of the smaller torch.nn names: F.conv_tbc, CrossMapLRN2d
(its legacy forward recurrence and hand-written backward), NLLLoss2d, nn.factory_kwargs,
F.assert_int_or_pair, AdaptiveLogSoftmaxWithLoss, SyncBatchNorm (no process group),
DataParallel and linear_cross_entropy / LinearCrossEntropyLoss: values and gradients in float32
and float64, grad_fn names, reprs and errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import G, assert_same_error, assert_same_warning, norm
from test_nn_layers import TOL, _np, compare_calls, compare_module, r

pytestmark = pytest.mark.usefixtures("restore_grad_mode")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("t, k, pad", [(7, 3, 0), (7, 3, 1), (7, 3, 2), (5, 2, -1), (4, 4, 0),
                                       (3, 5, 1), (6, 1, 0)])
def test_conv_tbc(torch, t, k, pad, dtype):
    compare_calls(torch, lambda x, w, b: G.nn.functional.conv_tbc(x, w, b, pad),
                  lambda x, w, b: torch.nn.functional.conv_tbc(x, w, b, pad),
                  [r(t, 2, 3), r(k, 3, 4, seed=1), r(4, seed=2)], dtype)
    x = G.zeros(t, 2, 3, requires_grad=True)
    assert G.nn.functional.conv_tbc(x, G.zeros(k, 3, 4), G.zeros(4), pad).grad_fn.name() == \
        "ConvTbcBackward0"


@pytest.mark.parametrize("fn", [
    lambda F, L: F.conv_tbc(L.zeros(2, 3), L.zeros(3, 3, 4), L.zeros(4)),
    lambda F, L: F.conv_tbc(L.zeros(2, 3, 3), L.zeros(3, 4), L.zeros(4)),
    lambda F, L: F.conv_tbc(L.zeros(2, 3, 3), L.zeros(3, 3, 4), L.zeros(1, 4)),
    lambda F, L: F.conv_tbc(L.zeros(2, 3, 2), L.zeros(3, 3, 4), L.zeros(4)),
    lambda F, L: F.conv_tbc(L.zeros(2, 3, 3), L.zeros(3, 3, 4), L.zeros(5)),
    lambda F, L: F.conv_tbc(L.zeros(2, 3, 3), L.zeros(5, 3, 4), L.zeros(4)),
    lambda F, L: F.conv_tbc(L.zeros(2, 3, 3), L.zeros(2, 3, 4), L.zeros(4), -3),
    lambda F, L: L.nn.CrossMapLRN2d(3)(L.zeros(2, 3, 4)),
    lambda F, L: L.nn.CrossMapLRN2d(1)(L.ones(1, 4, 2, 2, requires_grad=True)).sum().backward(),
    lambda F, L: L.nn.factory_kwargs({"device": "cpu", "foo": 1}),
    lambda F, L: L.nn.factory_kwargs({"dtype": L.float64,
                                      "factory_kwargs": {"dtype": L.float32}}),
    lambda F, L: F.assert_int_or_pair((1, 2, 3), "kernel_size", "{} must be int or pair"),
], ids=["tbc_input", "tbc_weight", "tbc_bias", "tbc_channels", "tbc_out", "tbc_negative",
        "tbc_pad", "lrn_rank", "lrn_size1_backward", "factory_unexpected", "factory_twice",
        "int_or_pair"])
def test_errors(torch, fn):
    assert_same_error(lambda: fn(G.nn.functional, G), lambda: fn(torch.nn.functional, torch))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("size, c", [(3, 5), (4, 6), (5, 3), (2, 2), (6, 4), (8, 3), (7, 7)])
def test_cross_map_lrn2d(torch, size, c, dtype):
    g_mod, t_mod = compare_module(torch, lambda nn: nn.CrossMapLRN2d(size, 1e-2, 0.6, 1.5),
                                  [r(2, c, 3, 4)], dtype)
    assert repr(g_mod) == norm(repr(t_mod))
    x = G.ones(1, c, 2, 2, requires_grad=True)
    assert g_mod(x).grad_fn.name() == "CrossMapLRN2dBackward"


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nll_loss2d(torch, dtype):
    target = np.random.default_rng(0).integers(0, 3, size=(2, 4, 5))
    target[0, 0, 0] = -100
    logp = np.log(np.random.default_rng(1).dirichlet([1, 1, 1], size=(2, 4, 5)))
    assert_same_warning(lambda: G.nn.NLLLoss2d(), lambda: torch.nn.NLLLoss2d())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        g_mod, t_mod = compare_module(torch, lambda nn: nn.NLLLoss2d(reduction="none"),
                                      [np.ascontiguousarray(logp.transpose(0, 3, 1, 2)), target],
                                      dtype)
    assert repr(g_mod) == norm(repr(t_mod))
    assert isinstance(g_mod, G.nn.NLLLoss)


def test_factory_kwargs(torch):
    for args in (None, {}, {"device": "cpu"}, {"dtype": "D", "memory_format": "M"},
                 {"factory_kwargs": {"dtype": "D"}, "device": "cpu"}):
        assert G.nn.factory_kwargs(args) == torch.nn.factory_kwargs(args)


def test_assert_int_or_pair(torch):
    for lib in (G, torch):
        lib.nn.functional.assert_int_or_pair(3, "x", "{} bad")
        lib.nn.functional.assert_int_or_pair((1, 2), "x", "{} bad")


# --------------------------------------------------------------------------------------------
# AdaptiveLogSoftmaxWithLoss
# --------------------------------------------------------------------------------------------

ASM = [
    ("three_clusters", dict(in_features=8, n_classes=20, cutoffs=[4, 10, 15], div_value=2.0,
                            head_bias=True), 12),
    ("one_cluster", dict(in_features=6, n_classes=9, cutoffs=[5]), 7),
    ("single_row", dict(in_features=6, n_classes=9, cutoffs=[3, 6]), 1),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kw, n", [c[1:] for c in ASM], ids=[c[0] for c in ASM])
def test_adaptive_log_softmax(torch, kw, n, dtype):
    t = torch.nn.AdaptiveLogSoftmaxWithLoss(**kw)
    g = G.nn.AdaptiveLogSoftmaxWithLoss(**kw)
    assert repr(g) == norm(repr(t))
    assert list(g.state_dict()) == list(t.state_dict())
    t, g = (t.double(), g.double()) if dtype == "float64" else (t, g)
    g.load_state_dict({k: G.tensor(_np(v)) for k, v in t.state_dict().items()})
    x = r(n, kw["in_features"])
    y = np.random.default_rng(3).integers(0, kw["n_classes"], n)
    tol = TOL[dtype]
    for batched in (True, False):
        xs, ys = (x, y) if batched else (x[0], y[0])
        tx = torch.tensor(xs, dtype=getattr(torch, dtype), requires_grad=True)
        gx = G.tensor(xs, dtype=getattr(G, dtype), requires_grad=True)
        to, go = t(tx, torch.tensor(ys)), g(gx, G.tensor(ys))
        assert type(go).__name__ == "_ASMoutput" and go._fields == ("output", "loss")
        np.testing.assert_allclose(_np(go.output), _np(to.output), **tol)
        np.testing.assert_allclose(_np(go.loss), _np(to.loss), **tol)
        for m in (t, g):
            m.zero_grad()
        to.loss.backward()
        go.loss.backward()
        np.testing.assert_allclose(_np(gx.grad), _np(tx.grad), **tol)
        for (name, p), (_, q) in zip(t.named_parameters(), g.named_parameters()):
            assert (p.grad is None) == (q.grad is None), name
            if p.grad is not None:
                np.testing.assert_allclose(_np(q.grad), _np(p.grad), err_msg=name, **tol)
    tx = torch.tensor(x, dtype=getattr(torch, dtype))
    gx = G.tensor(x, dtype=getattr(G, dtype))
    np.testing.assert_allclose(_np(g.log_prob(gx)), _np(t.log_prob(tx)), **tol)
    np.testing.assert_array_equal(_np(g.predict(gx)), _np(t.predict(tx)))
    # Rows split between the shortlist and the clusters, and all in clusters.
    with torch.no_grad(), G.no_grad():
        t.head.weight.zero_()
        g.head.weight.zero_()
        if t.head.bias is not None:
            t.head.bias.zero_()
            g.head.bias.zero_()
    np.testing.assert_array_equal(_np(g.predict(gx)), _np(t.predict(tx)))


@pytest.mark.parametrize("fn", [
    lambda nn, L: nn.AdaptiveLogSoftmaxWithLoss(4, 10, []),
    lambda nn, L: nn.AdaptiveLogSoftmaxWithLoss(4, 10, [5, 3]),
    lambda nn, L: nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3, 10]),
    lambda nn, L: nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3, 3]),
    lambda nn, L: nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3])(L.zeros(3, 4), L.tensor([1, 2])),
    lambda nn, L: nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3])(L.zeros(2, 2, 4), L.tensor([1, 2])),
    lambda nn, L: nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3])(L.zeros(2, 4), L.tensor(1)),
    lambda nn, L: nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3])(L.zeros(2, 4), L.zeros(2, 2).long()),
    lambda nn, L: nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3])(L.zeros(2, 4), L.tensor([1, 12])),
], ids=["empty", "unsorted", "too_large", "repeated", "batch", "input_rank", "0d_target",
        "2d_target", "out_of_range"])
def test_adaptive_log_softmax_errors(torch, fn):
    assert_same_error(lambda: fn(G.nn, G), lambda: fn(torch.nn, torch))


class _DictModule(G.nn.Module):
    def forward(self, a, b):
        return a[0] + b["c"]


# --------------------------------------------------------------------------------------------
# SyncBatchNorm (no process group: per-process statistics) and DataParallel
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("make, shape", [
    (lambda nn: nn.SyncBatchNorm(3), (4, 3)),
    (lambda nn: nn.SyncBatchNorm(3, momentum=None, eps=1e-3), (2, 3, 5)),
    (lambda nn: nn.SyncBatchNorm(3, affine=False), (2, 3, 2, 2)),
    (lambda nn: nn.SyncBatchNorm(3, track_running_stats=False, bias=False), (2, 3, 2, 2, 2)),
], ids=["2d", "3d_cumulative", "4d_noaffine", "5d_nostats"])
def test_sync_batch_norm(torch, make, shape, dtype):
    for train in (True, False):
        g_mod, t_mod = compare_module(torch, make, [r(*shape)], dtype, train=train)
        assert repr(g_mod) == norm(repr(t_mod))
        for (k, v), (kg, vg) in zip(t_mod.state_dict().items(), g_mod.state_dict().items()):
            assert k == kg
            np.testing.assert_allclose(_np(vg), _np(v), err_msg=k, **TOL[dtype])


def test_convert_sync_batchnorm(torch):
    res = {}
    for name, lib in (("torch", torch), ("gradrs", G)):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Conv2d(2, 3, 1), lib.nn.BatchNorm2d(3),
                                  lib.nn.Sequential(lib.nn.BatchNorm2d(3, affine=False)))
        model[1].eval()
        bn = model[1]
        conv = lib.nn.SyncBatchNorm.convert_sync_batchnorm(model)
        assert conv is model and conv[1].weight is bn.weight
        assert conv[1].running_mean is bn.running_mean and not conv[1].training
        res[name] = conv
    assert repr(res["gradrs"]) == norm(repr(res["torch"]))
    assert list(res["gradrs"].state_dict()) == list(res["torch"].state_dict())
    assert_same_error(lambda: G.nn.SyncBatchNorm(3)(G.zeros(3)),
                      lambda: torch.nn.SyncBatchNorm(3)(torch.zeros(3)))
    assert_same_error(lambda: G.nn.SyncBatchNorm(0)(G.zeros(2, 0)),
                      lambda: torch.nn.SyncBatchNorm(0)(torch.zeros(2, 0)))


def test_data_parallel(torch):
    """The wrapper's repr and state_dict keys, and the wrapped model's outputs and gradients
    (moved to the GPU where gradrs has one; PyTorch here has none)."""
    t = torch.nn.DataParallel(torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU()))
    g = G.nn.DataParallel(G.nn.Sequential(G.nn.Linear(4, 3), G.nn.ReLU()))
    assert repr(g) == norm(repr(t))
    assert list(g.state_dict()) == list(t.state_dict()) == ["module.0.weight", "module.0.bias"]
    g.load_state_dict({k: G.tensor(_np(v)) for k, v in t.state_dict().items()})
    assert t.device_ids == []
    assert g.device_ids == ([0] if G.cuda.is_available() else [])
    x = r(5, 4)
    tx = torch.tensor(x, dtype=torch.float32, requires_grad=True)
    gx = G.tensor(x, dtype=G.float32, requires_grad=True)
    to, go = t(tx), g(gx)
    np.testing.assert_allclose(_np(go.cpu()), _np(to), rtol=1e-5, atol=1e-6)
    to.sum().backward()
    go.sum().backward()
    np.testing.assert_allclose(_np(gx.grad), _np(tx.grad), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(g.module[0].weight.grad.cpu()), _np(t.module[0].weight.grad),
                               rtol=1e-5, atol=1e-6)
    # Keyword inputs in containers travel too.
    out = G.nn.DataParallel(_DictModule())(a=[G.ones(2)], b={"c": G.ones(2)})
    assert tuple(out.shape) == (2,)


# --------------------------------------------------------------------------------------------
# linear_cross_entropy / LinearCrossEntropyLoss (PyTorch's reference path, options=None)
# --------------------------------------------------------------------------------------------

LCE = [
    ("plain", dict(), (6, 4), "class"),
    ("unbatched_sum", dict(reduction="sum"), (4,), "class"),
    ("bias_weight_ignore", dict(bias=True, weight=[1.0, 2.0, 0.5, 1.5, 1.0], ignore_index=2),
     (7, 4), "class"),
    ("smoothing_none", dict(label_smoothing=0.2, reduction="none"), (5, 4), "class"),
    ("k_dim", dict(out_features=(2, 3), bias=True), (3, 4), "class"),
    ("probabilities", dict(label_smoothing=0.1), (5, 4), "prob"),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kw, shape, kind", [c[1:] for c in LCE], ids=[c[0] for c in LCE])
def test_linear_cross_entropy(torch, kw, shape, kind, dtype):
    out_features = kw.get("out_features", ())
    rng = np.random.default_rng(4)
    if kind == "class":
        target = rng.integers(0, 5, size=shape[:-1] + out_features)
        if "ignore_index" in kw:
            target.reshape(-1)[0] = kw["ignore_index"]
    else:
        target = rng.dirichlet(np.ones(5), size=shape[:-1])

    def make(nn):
        lib = torch if nn is torch.nn else G
        args = dict(kw)
        if "weight" in args:
            args["weight"] = lib.tensor(args["weight"], dtype=getattr(lib, dtype))
        return nn.LinearCrossEntropyLoss(4, 5, **args)

    g_mod, t_mod = compare_module(torch, make, [r(*shape), target], dtype)
    assert repr(g_mod) == norm(repr(t_mod))
    assert list(g_mod.state_dict()) == list(t_mod.state_dict())


@pytest.mark.parametrize("fn", [
    lambda F, L: F.linear_cross_entropy(L.zeros(2, 3, 4), L.zeros(5, 4), L.zeros(2).long()),
    lambda F, L: F.linear_cross_entropy(L.zeros(2, 4), L.zeros(4), L.zeros(2).long()),
    lambda F, L: F.linear_cross_entropy(L.zeros(2, 4), L.zeros(5, 3), L.zeros(2).long()),
    lambda F, L: F.linear_cross_entropy(L.zeros(2, 4), L.zeros(5, 4), L.zeros(2).long(),
                                        linear_bias=L.zeros(4)),
    lambda F, L: F.linear_cross_entropy(L.zeros(4), L.zeros(5, 2, 4), L.zeros(2).long()),
    lambda F, L: F.linear_cross_entropy(L.zeros(2, 4), L.zeros(5, 4), L.zeros(2, 5),
                                        ignore_index=1),
    lambda F, L: L.nn.LinearCrossEntropyLoss(4, 5, weight=L.ones(4)),
    lambda F, L: L.nn.LinearCrossEntropyLoss(4, 5, label_smoothing=1.5),
], ids=["input_rank", "weight_rank", "in_features", "bias_shape", "k_dim_unbatched",
        "prob_ignore", "module_weight", "module_smoothing"])
def test_linear_cross_entropy_errors(torch, fn):
    assert_same_error(lambda: fn(G.nn.functional, G), lambda: fn(torch.nn.functional, torch))
