"""Differential tests of the nn loss classes against PyTorch: values and gradients (of the
input and, where PyTorch gives one, the target) in float32 and float64 for every reduction
and option (weight, ignore_index, label_smoothing, probability targets, pos_weight, beta,
delta, log_target, margins), the legacy size_average/reduce arguments, reprs, state_dicts
(weights are buffers) and PyTorch's errors and warnings."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import G, assert_same_error, norm, record_warnings

pytestmark = pytest.mark.usefixtures("restore_grad_mode")

TOL = {"float32": {"rtol": 2e-5, "atol": 2e-6}, "float64": {"rtol": 1e-10, "atol": 1e-12}}
REDUCTIONS = ["mean", "sum", "none"]


def _np(t):
    return np.array(t.detach().numpy(), copy=True)


def rng(seed):
    return np.random.default_rng(seed)


def compare_loss(torch, make, inputs, dtype, grads=None, tol=None):
    """``make(nn, lib, dtype)`` builds the loss; ``inputs`` are numpy arrays (float ones in
    ``dtype``, integer ones as int64); ``grads[i]`` says whether input i requires grad (all
    float inputs by default). Compares the value and every gradient."""
    tol = tol or TOL[dtype]
    res = []
    for lib in (G, torch):
        dt = getattr(lib, dtype)
        xs = []
        for i, a in enumerate(inputs):
            a = np.asarray(a)
            if a.dtype.kind == "f":
                want = True if grads is None else grads[i]
                xs.append(lib.tensor(a, dtype=dt, requires_grad=want))
            else:
                xs.append(lib.tensor(a))
        loss = make(lib.nn, lib, dt)
        out = loss(*xs)
        w = rng(7).standard_normal(tuple(out.shape))
        (out * lib.tensor(w, dtype=out.dtype)).sum().backward()
        res.append((out, [x.grad for x in xs]))
    (go, gg), (to, tg) = res
    assert tuple(go.shape) == tuple(to.shape)
    assert str(go.dtype).split(".")[-1] == str(to.dtype).split(".")[-1]
    np.testing.assert_allclose(_np(go), _np(to), **tol)
    for i, (a, b) in enumerate(zip(gg, tg)):
        assert (a is None) == (b is None), f"grad {i}"
        if b is not None:
            np.testing.assert_allclose(_np(a), _np(b), err_msg=f"grad {i}", **tol)


def _x(*shape, seed=0):
    return rng(seed).standard_normal(shape)


def _prob(*shape, seed=0):
    return rng(seed).uniform(0.02, 0.98, size=shape)


def _classes(n, c, seed=0, shape=None):
    return rng(seed).integers(0, c, size=shape or (n,))


def _softmax(a, axis=1):
    e = np.exp(a - a.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def _w(lib, dt, values):
    return lib.tensor(np.asarray(values, dtype=float), dtype=dt)


# (id, make(nn, lib, dtype), inputs, grads)
CASES = []
for red in REDUCTIONS:
    CASES += [
        (f"mse_{red}", lambda nn, lib, dt, red=red: nn.MSELoss(reduction=red),
         [_x(3, 4), _x(3, 4, seed=1)], None),
        (f"l1_{red}", lambda nn, lib, dt, red=red: nn.L1Loss(reduction=red),
         [_x(3, 4), _x(3, 4, seed=1)], None),
        (f"smoothl1_{red}", lambda nn, lib, dt, red=red: nn.SmoothL1Loss(reduction=red,
                                                                          beta=0.5),
         [_x(3, 4), _x(3, 4, seed=1)], None),
        (f"huber_{red}", lambda nn, lib, dt, red=red: nn.HuberLoss(reduction=red, delta=0.7),
         [_x(3, 4), _x(3, 4, seed=1)], None),
        (f"ce_{red}", lambda nn, lib, dt, red=red: nn.CrossEntropyLoss(reduction=red),
         [_x(5, 4), _classes(5, 4)], None),
        (f"ce_weight_ignore_{red}", lambda nn, lib, dt, red=red: nn.CrossEntropyLoss(
            weight=_w(lib, dt, [0.5, 2.0, 1.0, 0.3]), ignore_index=1, reduction=red),
         [_x(6, 4), np.array([0, 1, 2, 3, 1, 2])], None),
        (f"ce_smooth_{red}", lambda nn, lib, dt, red=red: nn.CrossEntropyLoss(
            label_smoothing=0.2, reduction=red), [_x(5, 4), _classes(5, 4)], None),
        (f"ce_smooth_weight_ignore_{red}", lambda nn, lib, dt, red=red: nn.CrossEntropyLoss(
            weight=_w(lib, dt, [0.5, 2.0, 1.0]), ignore_index=0, label_smoothing=0.1,
            reduction=red), [_x(2, 3, 4), _classes(2, 3, shape=(2, 4))], None),
        (f"ce_probs_{red}", lambda nn, lib, dt, red=red: nn.CrossEntropyLoss(reduction=red),
         [_x(5, 4), _softmax(_x(5, 4, seed=2))], None),
        (f"ce_probs_weight_smooth_{red}", lambda nn, lib, dt, red=red: nn.CrossEntropyLoss(
            weight=_w(lib, dt, [0.5, 2.0, 1.0, 0.3]), label_smoothing=0.3, reduction=red),
         [_x(5, 4), _softmax(_x(5, 4, seed=2))], None),
        (f"ce_4d_{red}", lambda nn, lib, dt, red=red: nn.CrossEntropyLoss(reduction=red),
         [_x(2, 3, 2, 2), _classes(2, 3, shape=(2, 2, 2))], None),
        (f"nll_{red}", lambda nn, lib, dt, red=red: nn.NLLLoss(reduction=red),
         [_x(5, 4), _classes(5, 4)], None),
        (f"nll_weight_ignore_{red}", lambda nn, lib, dt, red=red: nn.NLLLoss(
            weight=_w(lib, dt, [0.5, 2.0, 1.0, 0.3]), ignore_index=2, reduction=red),
         [_x(6, 4), np.array([0, 1, 2, 3, 2, 1])], None),
        (f"bce_{red}", lambda nn, lib, dt, red=red: nn.BCELoss(reduction=red),
         [_prob(3, 4), _prob(3, 4, seed=1)], None),
        (f"bce_weight_{red}", lambda nn, lib, dt, red=red: nn.BCELoss(
            weight=_w(lib, dt, [1.0, 0.5, 2.0, 0.1]), reduction=red),
         [_prob(3, 4), _prob(3, 4, seed=1)], [True, False]),
        (f"bcelogits_{red}", lambda nn, lib, dt, red=red: nn.BCEWithLogitsLoss(reduction=red),
         [_x(3, 4) * 4, _prob(3, 4, seed=1)], None),
        (f"bcelogits_pos_weight_{red}", lambda nn, lib, dt, red=red: nn.BCEWithLogitsLoss(
            weight=_w(lib, dt, [1.0, 0.5, 2.0, 0.1]), pos_weight=_w(lib, dt, [3.0, 1.0, 0.5,
                                                                             2.0]),
            reduction=red), [_x(3, 4) * 4, _prob(3, 4, seed=1)], None),
        (f"kldiv_{red}", lambda nn, lib, dt, red=red: nn.KLDivLoss(reduction=red),
         [np.log(_softmax(_x(3, 4))), _softmax(_x(3, 4, seed=1))], None),
        (f"kldiv_logtarget_{red}", lambda nn, lib, dt, red=red: nn.KLDivLoss(
            reduction=red, log_target=True),
         [np.log(_softmax(_x(3, 4))), np.log(_softmax(_x(3, 4, seed=1)))], None),
        (f"softmargin_{red}", lambda nn, lib, dt, red=red: nn.SoftMarginLoss(reduction=red),
         [_x(3, 4), np.sign(_x(3, 4, seed=1))], [True, False]),
        (f"marginranking_{red}", lambda nn, lib, dt, red=red: nn.MarginRankingLoss(
            margin=0.3, reduction=red), [_x(6), _x(6, seed=1), np.sign(_x(6, seed=2))],
         [True, True, False]),
        (f"hinge_{red}", lambda nn, lib, dt, red=red: nn.HingeEmbeddingLoss(
            margin=0.8, reduction=red), [_x(3, 4), np.sign(_x(3, 4, seed=1))], [True, False]),
        (f"cosembed_{red}", lambda nn, lib, dt, red=red: nn.CosineEmbeddingLoss(
            margin=0.1, reduction=red), [_x(5, 3), _x(5, 3, seed=1), np.sign(_x(5, seed=2))],
         [True, True, False]),
        (f"triplet_{red}", lambda nn, lib, dt, red=red: nn.TripletMarginLoss(
            margin=1.5, p=3, swap=True, reduction=red),
         [_x(4, 3), _x(4, 3, seed=1), _x(4, 3, seed=2)], None),
        (f"tripletdist_{red}", lambda nn, lib, dt, red=red: nn.TripletMarginWithDistanceLoss(
            distance_function=nn.CosineSimilarity(), margin=0.5, reduction=red),
         [_x(4, 3), _x(4, 3, seed=1), _x(4, 3, seed=2)], None),
        (f"poisson_{red}", lambda nn, lib, dt, red=red: nn.PoissonNLLLoss(reduction=red),
         [_x(3, 4), rng(1).poisson(2.0, (3, 4)).astype(float)], [True, False]),
        (f"poisson_full_nolog_{red}", lambda nn, lib, dt, red=red: nn.PoissonNLLLoss(
            log_input=False, full=True, reduction=red),
         [_prob(3, 4) * 3, rng(1).poisson(2.0, (3, 4)).astype(float) + 0.5], [True, False]),
        (f"gaussian_{red}", lambda nn, lib, dt, red=red: nn.GaussianNLLLoss(reduction=red),
         [_x(3, 4), _x(3, 4, seed=1), _prob(3, 4, seed=2)], None),
        (f"gaussian_full_{red}", lambda nn, lib, dt, red=red: nn.GaussianNLLLoss(
            full=True, eps=0.1, reduction=red), [_x(3, 4), _x(3, 4, seed=1),
                                                 _prob(3, seed=2)], None),
        (f"multimargin_{red}", lambda nn, lib, dt, red=red: nn.MultiMarginLoss(reduction=red),
         [_x(5, 4), _classes(5, 4)], None),
        (f"multimargin_p2_weight_{red}", lambda nn, lib, dt, red=red: nn.MultiMarginLoss(
            p=2, margin=0.7, weight=_w(lib, dt, [0.5, 2.0, 1.0, 0.3]), reduction=red),
         [_x(5, 4), _classes(5, 4, seed=1)], None),
        (f"multimargin_1d_{red}", lambda nn, lib, dt, red=red: nn.MultiMarginLoss(
            reduction=red), [_x(4), np.array(2)], None),
        (f"multilabelmargin_{red}", lambda nn, lib, dt, red=red: nn.MultiLabelMarginLoss(
            reduction=red), [_x(3, 4), np.array([[3, 0, -1, 1], [1, 1, 2, -1], [0, 1, 2, 3]])],
         None),
        (f"multilabelmargin_1d_{red}", lambda nn, lib, dt, red=red: nn.MultiLabelMarginLoss(
            reduction=red), [_x(4), np.array([2, -1, 0, 0])], None),
        (f"multilabelsoft_{red}", lambda nn, lib, dt, red=red: nn.MultiLabelSoftMarginLoss(
            weight=_w(lib, dt, [1.0, 0.5, 2.0, 0.1]), reduction=red),
         [_x(3, 4), (_x(3, 4, seed=1) > 0).astype(float)], [True, False]),
    ]
CASES += [
    ("smoothl1_beta0", lambda nn, lib, dt: nn.SmoothL1Loss(beta=0.0),
     [_x(3, 4), _x(3, 4, seed=1)], None),
    ("kldiv_batchmean", lambda nn, lib, dt: nn.KLDivLoss(reduction="batchmean"),
     [np.log(_softmax(_x(3, 4))), _softmax(_x(3, 4, seed=1))], None),
    ("ce_unbatched", lambda nn, lib, dt: nn.CrossEntropyLoss(), [_x(4), np.array(2)], None),
    ("ce_unbatched_probs", lambda nn, lib, dt: nn.CrossEntropyLoss(label_smoothing=0.1),
     [_x(4), _softmax(_x(4, seed=1), 0)], None),
    ("cosembed_unbatched", lambda nn, lib, dt: nn.CosineEmbeddingLoss(),
     [_x(3), _x(3, seed=1), np.array(-1.0)], [True, True, False]),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,make,inputs,grads", CASES, ids=[c[0] for c in CASES])
def test_loss(torch, name, make, inputs, grads, dtype):
    compare_loss(torch, make, inputs, dtype, grads)


CTC = [
    ({}, [[1, 2, 2], [3, 1, 0], [4, 4, 1]], [7, 5, 6], [3, 2, 3]),
    ({"reduction": "none"}, [[1, 1, 1], [3, 1, 0], [4, 4, 4]], [6, 5, 7], [3, 2, 2]),
    ({"reduction": "sum", "zero_infinity": True}, [[1, 1, 1], [3, 1, 0], [4, 4, 4]],
     [3, 5, 7], [3, 2, 2]),
    ({"blank": 2}, [[0, 0, 1], [1, 3, 3], [3, 4, 0]], [7, 6, 4], [3, 3, 2]),
    ({"reduction": "none"}, [1, 2, 2, 3, 1, 4], [7, 6, 5], [3, 2, 1]),  # concatenated
    ({"reduction": "none"}, [[1, 2, 2], [3, 1, 0], [4, 4, 1]], [7, 0, 6], [0, 0, 3]),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("k", range(len(CTC)))
def test_ctc_loss(torch, k, dtype):
    kw, tg, il, tl = CTC[k]
    x = _x(7, 3, 5, seed=k)
    res = []
    for lib in (G, torch):
        # gradients of the logits (through log_softmax) and of log_probs as a leaf
        logits = lib.tensor(x, dtype=getattr(lib, dtype), requires_grad=True)
        lp = logits.log_softmax(2)
        leaf = lp.detach().requires_grad_()
        loss = lib.nn.CTCLoss(**kw)
        outs = [loss(v, lib.tensor(tg), lib.tensor(il), lib.tensor(tl)) for v in (lp, leaf)]
        for o in outs:
            w = lib.tensor(np.arange(1.0, o.numel() + 1).reshape(tuple(o.shape)), dtype=o.dtype)
            (o * w).sum().backward()
        res.append((_np(outs[0]), _np(logits.grad), _np(leaf.grad)))
    tol = {"float32": {"rtol": 1e-4, "atol": 1e-5}, "float64": TOL["float64"]}[dtype]
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, **tol)


def test_ctc_loss_unbatched_and_errors(torch):
    x = _x(6, 4)
    outs = []
    for lib in (G, torch):
        lp = lib.tensor(x, requires_grad=True).log_softmax(1)
        outs.append(_np(lib.nn.functional.ctc_loss(lp, lib.tensor([1, 2, 2]), lib.tensor(6),
                                                   lib.tensor(3))))
        outs.append(_np(lib.nn.functional.ctc_loss(lp.unsqueeze(1), lib.tensor([[1, 2, 2]]),
                                                   [6], [3])))
    np.testing.assert_allclose(outs[0], outs[2], rtol=1e-10)
    np.testing.assert_allclose(outs[1], outs[3], rtol=1e-10)
    lp = _x(6, 2, 4)
    for kw in [{"blank": 4}, {"il": [6]}, {"tl": [3]}, {"il": [7, 5]}, {"tg": [[1, 2], [3, 1]]}]:
        def run(lib, kw=kw):
            return lib.nn.functional.ctc_loss(
                lib.tensor(lp), lib.tensor(kw.get("tg", [[1, 2, 2], [3, 1, 0]])),
                lib.tensor(kw.get("il", [6, 5])), lib.tensor(kw.get("tl", [3, 2])),
                blank=kw.get("blank", 0))

        assert_same_error(lambda r=run: r(G), lambda r=run: r(torch))


# --------------------------------------------------------------------------------------------
# legacy arguments, reprs, state_dicts
# --------------------------------------------------------------------------------------------

LEGACY = [(None, None), (True, None), (False, None), (None, False), (True, False),
          (False, True), (True, True)]


@pytest.mark.parametrize("cls", ["MSELoss", "L1Loss", "NLLLoss", "CrossEntropyLoss",
                                 "BCELoss", "BCEWithLogitsLoss", "KLDivLoss", "SmoothL1Loss",
                                 "SoftMarginLoss", "HingeEmbeddingLoss", "MarginRankingLoss",
                                 "CosineEmbeddingLoss", "TripletMarginLoss", "PoissonNLLLoss",
                                 "MultiLabelSoftMarginLoss", "MultiMarginLoss",
                                 "MultiLabelMarginLoss"])
def test_legacy_size_average_reduce(torch, cls):
    for size_average, reduce in LEGACY:
        def build(lib, sa=size_average, rd=reduce):
            return getattr(lib.nn, cls)(size_average=sa, reduce=rd)

        g, gw = record_warnings(lambda: build(G))
        t, tw = record_warnings(lambda: build(torch))
        assert g.reduction == t.reduction
        assert gw == [(c, norm(m)) for c, m in tw]


def test_legacy_functional_reduction(torch):
    x = _x(3, 4)
    y = np.sign(_x(3, 4, seed=1))
    for fn in ("soft_margin_loss", "hinge_embedding_loss", "multilabel_soft_margin_loss"):
        for sa, rd in LEGACY[1:]:
            outs = []
            for lib in (G, torch):
                f = getattr(lib.nn.functional, fn)
                t = (lib.tensor(y) + 1) / 2 if fn.startswith("multilabel") else lib.tensor(y)
                out, w = record_warnings(lambda f=f, t=t, lib=lib, sa=sa, rd=rd: f(lib.tensor(x), t,
                                                                      size_average=sa,
                                                                      reduce=rd))
                outs.append((_np(out), [m for _, m in w]))
            np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=1e-12)
            assert outs[0][1] == outs[1][1]


REPRS = [
    lambda nn, lib: nn.MSELoss(), lambda nn, lib: nn.L1Loss(reduction="sum"),
    lambda nn, lib: nn.CrossEntropyLoss(weight=lib.ones(3), label_smoothing=0.1),
    lambda nn, lib: nn.NLLLoss(weight=lib.ones(3)), lambda nn, lib: nn.BCELoss(),
    lambda nn, lib: nn.BCEWithLogitsLoss(pos_weight=lib.ones(3)),
    lambda nn, lib: nn.KLDivLoss(log_target=True), lambda nn, lib: nn.SmoothL1Loss(beta=0.5),
    lambda nn, lib: nn.HuberLoss(delta=2), lambda nn, lib: nn.SoftMarginLoss(),
    lambda nn, lib: nn.CosineEmbeddingLoss(), lambda nn, lib: nn.MarginRankingLoss(),
    lambda nn, lib: nn.TripletMarginLoss(), lambda nn, lib: nn.PoissonNLLLoss(),
    lambda nn, lib: nn.GaussianNLLLoss(), lambda nn, lib: nn.HingeEmbeddingLoss(),
    lambda nn, lib: nn.MultiLabelSoftMarginLoss(),
    lambda nn, lib: nn.TripletMarginWithDistanceLoss(),
    lambda nn, lib: nn.MultiMarginLoss(p=2, margin=0.5, weight=lib.ones(3)),
    lambda nn, lib: nn.MultiLabelMarginLoss(reduction="sum"),
    lambda nn, lib: nn.CTCLoss(blank=2, zero_infinity=True),
]


@pytest.mark.parametrize("k", range(len(REPRS)))
def test_loss_repr_and_state_dict(torch, k):
    g = REPRS[k](G.nn, G)
    t = REPRS[k](torch.nn, torch)
    assert repr(g) == norm(repr(t))
    gs, ts = g.state_dict(), t.state_dict()
    assert list(gs) == list(ts)
    for key in ts:
        np.testing.assert_array_equal(_np(gs[key]), _np(ts[key]))
    assert [n for n, _ in g.named_buffers()] == [n for n, _ in t.named_buffers()]
    assert g.reduction == t.reduction


def test_loss_weight_follows_module_dtype(torch):
    g = G.nn.CrossEntropyLoss(weight=G.ones(3)).double()
    t = torch.nn.CrossEntropyLoss(weight=torch.ones(3)).double()
    assert str(g.weight.dtype) == norm(str(t.weight.dtype))


# --------------------------------------------------------------------------------------------
# errors and warnings
# --------------------------------------------------------------------------------------------

ERRORS = [
    (lambda nn, lib: nn.MSELoss(reduction="avg")(lib.ones(2), lib.ones(2))),
    (lambda nn, lib: nn.SmoothL1Loss(beta=-1.0)(lib.ones(2), lib.ones(2))),
    (lambda nn, lib: nn.HuberLoss(delta=0.0)(lib.ones(2), lib.ones(2))),
    (lambda nn, lib: nn.BCELoss()(lib.ones(2) * 2, lib.ones(2))),
    (lambda nn, lib: nn.BCELoss()(lib.ones(2) * 0.5, lib.ones(3))),
    (lambda nn, lib: nn.BCEWithLogitsLoss()(lib.ones(2), lib.ones(3))),
    (lambda nn, lib: nn.CrossEntropyLoss(label_smoothing=1.5)(lib.ones(2, 3),
                                                               lib.tensor([0, 1]))),
    (lambda nn, lib: nn.CrossEntropyLoss()(lib.ones(2, 3), lib.tensor([0, 3]))),
    (lambda nn, lib: nn.NLLLoss()(lib.ones(2, 3), lib.tensor([0, 1, 2]))),
    (lambda nn, lib: nn.MarginRankingLoss()(lib.ones(2), lib.ones(2), lib.ones(2, 1))),
    (lambda nn, lib: nn.CosineEmbeddingLoss()(lib.ones(2, 3), lib.ones(2, 3),
                                              lib.ones(2, 3))),
    (lambda nn, lib: nn.CosineEmbeddingLoss()(lib.ones(2, 3), lib.ones(2, 3), lib.ones(()))),
    (lambda nn, lib: nn.CosineEmbeddingLoss()(lib.ones(3), lib.ones(3), lib.ones(2))),
    (lambda nn, lib: nn.TripletMarginLoss()(lib.ones(2, 3), lib.ones(2, 3), lib.ones(3))),
    (lambda nn, lib: nn.TripletMarginWithDistanceLoss()(lib.ones(2, 3), lib.ones(3),
                                                        lib.ones(2, 3))),
    (lambda nn, lib: nn.GaussianNLLLoss()(lib.ones(2, 3), lib.ones(2, 3), -lib.ones(2, 3))),
    (lambda nn, lib: nn.GaussianNLLLoss()(lib.ones(2, 3), lib.ones(2, 3), lib.ones(3, 2))),
    (lambda nn, lib: nn.GaussianNLLLoss(reduction="avg")(lib.ones(2, 3), lib.ones(2, 3),
                                                          lib.ones(2, 3))),
    (lambda nn, lib: nn.PoissonNLLLoss(reduction="avg")(lib.ones(2), lib.ones(2))),
    (lambda nn, lib: nn.MultiLabelSoftMarginLoss(reduction="avg")(lib.ones(2, 3),
                                                                   lib.ones(2, 3))),
    (lambda nn, lib: nn.MultiMarginLoss()(lib.ones(3, 4), lib.tensor([0, 1]))),
    (lambda nn, lib: nn.MultiMarginLoss()(lib.ones(3, 4), lib.tensor([0, 1, 4]))),
    (lambda nn, lib: nn.MultiMarginLoss()(lib.ones(2, 3, 4), lib.tensor([0, 1]))),
    (lambda nn, lib: nn.MultiMarginLoss(p=3)),
    (lambda nn, lib: nn.MultiMarginLoss(weight=lib.ones(2, 2))),
    (lambda nn, lib: nn.MultiMarginLoss(weight=lib.ones(3))(lib.ones(3, 4),
                                                          lib.tensor([0, 1, 2]))),
    (lambda nn, lib: nn.functional.multi_margin_loss(lib.ones(3, 4), lib.tensor([0, 1, 2]),
                                                     weight=lib.ones(2, 2))),
    (lambda nn, lib: nn.MultiLabelMarginLoss()(lib.ones(3, 4), lib.tensor([[0, 1, -1, 2]]))),
    (lambda nn, lib: nn.MultiLabelMarginLoss()(lib.ones(1, 4), lib.tensor([[0, 1, -1, 5]]))),
    (lambda nn, lib: nn.MultiLabelMarginLoss()(lib.ones(4), lib.tensor([0, 1]))),
    (lambda nn, lib: nn.TripletMarginWithDistanceLoss(margin=-1.0)),
    (lambda nn, lib: nn.functional.triplet_margin_loss(lib.ones(2, 3), lib.ones(2, 3),
                                                       lib.ones(2, 3), margin=0.0)),
    (lambda nn, lib: nn.functional.gaussian_nll_loss(lib.ones(2, 3), lib.ones(2, 3), -1.0)),
]


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_loss_errors(torch, k):
    assert_same_error(lambda: ERRORS[k](G.nn, G), lambda: ERRORS[k](torch.nn, torch))


def test_loss_warnings(torch):
    def run(lib):
        a = lib.nn.MSELoss()(lib.ones(2, 3), lib.ones(3))
        b = lib.nn.KLDivLoss()(lib.zeros(2, 3), lib.ones(2, 3) / 3)
        return a, b

    (ga, gb), gw = record_warnings(lambda: run(G))
    (ta, tb), tw = record_warnings(lambda: run(torch))
    assert gw == [(c, norm(m)) for c, m in tw]
    assert ga.item() == ta.item() and gb.item() == pytest.approx(tb.item())


def test_training_step_with_losses(torch):
    """A small classifier trained a few SGD steps from identical weights gives the same losses
    (Linear + ReLU + Dropout(eval) + CrossEntropyLoss(label_smoothing))."""
    x = _x(16, 5)
    y = _classes(16, 3, seed=3)
    # PyTorch's initial weights, copied into gradrs
    losses = []
    ref_state = None
    for lib in (torch, G):
        nn = lib.nn
        model = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 3)).double()
        if lib is torch:
            ref_state = {k: _np(v) for k, v in model.state_dict().items()}
        else:
            model.load_state_dict({k: G.tensor(v) for k, v in ref_state.items()})
        crit = nn.CrossEntropyLoss(label_smoothing=0.1)
        out = []
        for _ in range(5):
            model.zero_grad()
            loss = crit(model(lib.tensor(x)), lib.tensor(y))
            loss.backward()
            with lib.no_grad():
                for p in model.parameters():
                    p -= 0.5 * p.grad
            out.append(loss.item())
        losses.append(out)
    np.testing.assert_allclose(losses[1], losses[0], rtol=1e-12)
