"""Differential tests of the nn layer classes (linear, conv, pooling, normalization, dropout,
padding, upsampling, embedding, activations) against PyTorch: parameters copied over through
load_state_dict, then outputs and input/parameter gradients compared in float32 and float64;
reprs, state_dict keys and shapes, default initialisation bounds, running statistics, train
vs eval, and PyTorch's errors. Finite-difference checks of the functional pieces they add."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from conftest import G, assert_same_error, norm, record_warnings
from test_gradcheck import gradcheck, gradgradcheck, rnd

pytestmark = pytest.mark.usefixtures("restore_grad_mode")

TOL = {"float32": {"rtol": 2e-5, "atol": 2e-6}, "float64": {"rtol": 1e-10, "atol": 1e-12}}


# --------------------------------------------------------------------------------------------
# harness
# --------------------------------------------------------------------------------------------


def _np(t):
    return np.array(t.detach().numpy(), copy=True)


def copy_state(g_mod, t_mod):
    """PyTorch's state_dict into the gradrs module, through load_state_dict."""
    sd = {k: G.tensor(_np(v)) for k, v in t_mod.state_dict().items()}
    res = g_mod.load_state_dict(sd)
    assert not res.missing_keys and not res.unexpected_keys


def _leaf(lib, arr, dtype, grad=True):
    t = lib.tensor(arr, dtype=getattr(lib, dtype))
    return t.requires_grad_() if grad else t


def _cast(mod, dtype):
    return mod.double() if dtype == "float64" else mod.float()


def compare_calls(torch, g_call, t_call, inputs, dtype="float32", grad=True, seed=0, tol=None):
    """Run ``g_call`` / ``t_call`` on ``inputs`` (numpy arrays: float ones become leaves of
    ``dtype``, integer ones index tensors) and compare the outputs and the float inputs'
    gradients. Returns whether a backward ran."""
    tol = tol or TOL[dtype]
    tx, gx = [], []
    for a in inputs:
        a = np.asarray(a)
        if a.dtype.kind == "f":
            tx.append(_leaf(torch, a, dtype, grad))
            gx.append(_leaf(G, a, dtype, grad))
        else:
            tx.append(torch.tensor(a))
            gx.append(G.tensor(a))
    to = t_call(*tx)
    go = g_call(*gx)
    if isinstance(to, tuple):  # (values, indices) and the like: compare all, differentiate [0]
        for a, b in zip(go, to):
            if b.is_floating_point():
                np.testing.assert_allclose(_np(a), _np(b), **tol)
            else:
                np.testing.assert_array_equal(_np(a), _np(b))
        to, go = to[0], go[0]
    assert tuple(go.shape) == tuple(to.shape)
    assert str(go.dtype).split(".")[-1] == str(to.dtype).split(".")[-1]
    np.testing.assert_allclose(_np(go), _np(to), **tol)
    if not grad or not to.requires_grad:
        return False
    w = np.random.default_rng(seed + 1).standard_normal(tuple(to.shape))
    (to * torch.tensor(w, dtype=to.dtype)).sum().backward()
    (go * G.tensor(w, dtype=go.dtype)).sum().backward()
    for a, b in zip(gx, tx):
        if b.grad is not None:
            np.testing.assert_allclose(_np(a.grad), _np(b.grad), **tol)
    return True


def compare_module(torch, make, inputs, dtype="float32", train=True, grad=True, seed=0,
                   tol=None):
    """Build the module in both libraries (``make(nn)``), copy the parameters, and compare
    outputs and the gradients of the float inputs and of every parameter."""
    t_mod = _cast(make(torch.nn), dtype)
    g_mod = _cast(make(G.nn), dtype)
    copy_state(g_mod, t_mod)
    t_mod.train(train)
    g_mod.train(train)
    if compare_calls(torch, g_mod, t_mod, inputs, dtype, grad, seed, tol):
        tp = dict(t_mod.named_parameters())
        for name, p in g_mod.named_parameters():
            if tp[name].grad is None:
                assert p.grad is None, name
            else:
                np.testing.assert_allclose(_np(p.grad), _np(tp[name].grad), err_msg=name,
                                           **(tol or TOL[dtype]))
    return g_mod, t_mod


def r(*shape, seed=0, lo=-2.0, hi=2.0):
    return np.random.default_rng(seed).uniform(lo, hi, size=shape)


# --------------------------------------------------------------------------------------------
# the layer table: (id, make(nn), inputs)
# --------------------------------------------------------------------------------------------

LAYERS = [
    ("linear", lambda nn: nn.Linear(5, 3), [r(4, 5)]),
    ("linear_3d_nobias", lambda nn: nn.Linear(5, 3, bias=False), [r(2, 4, 5)]),
    ("linear_1d", lambda nn: nn.Linear(5, 3), [r(5)]),
    ("bilinear", lambda nn: nn.Bilinear(3, 4, 2), [r(5, 3), r(5, 4, seed=1)]),
    ("bilinear_3d_nobias", lambda nn: nn.Bilinear(3, 4, 2, bias=False),
     [r(2, 5, 3), r(2, 5, 4, seed=1)]),
    ("identity", lambda nn: nn.Identity(3, foo=1), [r(2, 3)]),
    ("flatten", lambda nn: nn.Flatten(), [r(2, 3, 4)]),
    ("flatten_01", lambda nn: nn.Flatten(0, 1), [r(2, 3, 4)]),
    ("unflatten", lambda nn: nn.Unflatten(1, (2, 3)), [r(4, 6)]),
    ("conv1d", lambda nn: nn.Conv1d(3, 4, 3, stride=2, padding=1), [r(2, 3, 9)]),
    ("conv1d_same_reflect", lambda nn: nn.Conv1d(2, 4, 4, padding="same",
                                                 padding_mode="reflect"), [r(2, 2, 7)]),
    ("conv2d", lambda nn: nn.Conv2d(3, 4, 3), [r(2, 3, 6, 5)]),
    ("conv2d_groups_dil", lambda nn: nn.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=(2, 1),
                                               dilation=(2, 1), groups=2), [r(2, 4, 7, 6)]),
    ("conv2d_circular", lambda nn: nn.Conv2d(2, 3, 3, padding=1, padding_mode="circular",
                                             bias=False), [r(1, 2, 5, 5)]),
    ("conv2d_replicate_unbatched", lambda nn: nn.Conv2d(2, 3, 3, padding=2,
                                                        padding_mode="replicate"),
     [r(2, 5, 4)]),
    ("conv2d_valid", lambda nn: nn.Conv2d(2, 3, 2, padding="valid"), [r(1, 2, 4, 4)]),
    ("conv3d", lambda nn: nn.Conv3d(4, 6, (3, 2, 3), groups=2), [r(2, 4, 5, 4, 5)]),
    ("conv3d_full", lambda nn: nn.Conv3d(2, 3, 2, stride=(2, 1, 2), padding=(1, 0, 2),
                                         dilation=(2, 1, 1), bias=False), [r(1, 2, 5, 4, 6)]),
    ("conv3d_same_reflect", lambda nn: nn.Conv3d(2, 2, 3, padding="same",
                                                 padding_mode="reflect"), [r(2, 4, 4, 5)]),
    ("conv3d_circular", lambda nn: nn.Conv3d(2, 2, (1, 3, 2), padding=1,
                                             padding_mode="circular"), [r(1, 2, 3, 4, 4)]),
    ("convT1d", lambda nn: nn.ConvTranspose1d(3, 4, 3, stride=2, padding=1,
                                              output_padding=1), [r(2, 3, 5)]),
    ("convT2d", lambda nn: nn.ConvTranspose2d(3, 4, 3), [r(2, 3, 4, 5)]),
    ("convT2d_full", lambda nn: nn.ConvTranspose2d(4, 6, (3, 2), stride=(2, 3), padding=(1, 0),
                                                   output_padding=(1, 2), groups=2,
                                                   dilation=(1, 2)), [r(2, 4, 4, 3)]),
    ("convT2d_dil_op", lambda nn: nn.ConvTranspose2d(2, 2, 2, stride=1, output_padding=1,
                                                     dilation=2, bias=False), [r(1, 2, 3, 3)]),
    ("convT2d_unbatched", lambda nn: nn.ConvTranspose2d(2, 3, 3, stride=2),
     [r(2, 3, 3)]),
    ("maxpool1d", lambda nn: nn.MaxPool1d(3, 2, padding=1), [r(2, 3, 9)]),
    ("maxpool1d_ceil_idx", lambda nn: nn.MaxPool1d(2, ceil_mode=True, return_indices=True),
     [r(2, 3, 7)]),
    ("maxpool2d", lambda nn: nn.MaxPool2d(2), [r(2, 3, 6, 6)]),
    ("maxpool2d_full", lambda nn: nn.MaxPool2d((3, 2), stride=(2, 1), padding=1, dilation=1,
                                               ceil_mode=True, return_indices=True),
     [r(2, 2, 7, 5)]),
    ("avgpool1d", lambda nn: nn.AvgPool1d(3, 2, padding=1, count_include_pad=False),
     [r(2, 3, 8)]),
    ("avgpool2d", lambda nn: nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True),
     [r(2, 3, 7, 6)]),
    ("avgpool2d_divisor", lambda nn: nn.AvgPool2d(2, divisor_override=3), [r(1, 2, 4, 4)]),
    ("adaptiveavg1d", lambda nn: nn.AdaptiveAvgPool1d(3), [r(2, 3, 7)]),
    ("adaptiveavg2d", lambda nn: nn.AdaptiveAvgPool2d((3, None)), [r(2, 3, 7, 5)]),
    ("adaptiveavg2d_1", lambda nn: nn.AdaptiveAvgPool2d(1), [r(2, 3, 4, 4)]),
    ("adaptivemax1d", lambda nn: nn.AdaptiveMaxPool1d(3, return_indices=True), [r(2, 3, 7)]),
    ("adaptivemax2d", lambda nn: nn.AdaptiveMaxPool2d((3, 2)), [r(2, 3, 7, 5)]),
    ("adaptivemax2d_even", lambda nn: nn.AdaptiveMaxPool2d(2, return_indices=True),
     [r(2, 3, 4, 6)]),
    ("batchnorm1d", lambda nn: nn.BatchNorm1d(3), [r(5, 3)]),
    ("batchnorm1d_3d", lambda nn: nn.BatchNorm1d(3, momentum=None), [r(4, 3, 5)]),
    ("batchnorm2d", lambda nn: nn.BatchNorm2d(3, eps=1e-3, momentum=0.3), [r(2, 3, 4, 4)]),
    ("batchnorm2d_noaffine", lambda nn: nn.BatchNorm2d(3, affine=False), [r(2, 3, 4, 4)]),
    ("batchnorm2d_nostats", lambda nn: nn.BatchNorm2d(3, track_running_stats=False),
     [r(2, 3, 4, 4)]),
    ("batchnorm2d_nobias", lambda nn: nn.BatchNorm2d(3, bias=False), [r(2, 3, 4, 4)]),
    ("layernorm", lambda nn: nn.LayerNorm(5), [r(3, 5)]),
    ("layernorm_2d_nobias", lambda nn: nn.LayerNorm((4, 5), eps=1e-3, bias=False),
     [r(2, 4, 5)]),
    ("layernorm_noaffine", lambda nn: nn.LayerNorm([5], elementwise_affine=False), [r(3, 5)]),
    ("groupnorm", lambda nn: nn.GroupNorm(2, 4), [r(3, 4, 5)]),
    ("groupnorm_4d", lambda nn: nn.GroupNorm(3, 6, eps=1e-3, affine=False), [r(2, 6, 3, 2)]),
    ("groupnorm_nobias", lambda nn: nn.GroupNorm(1, 4, bias=False), [r(2, 4, 3, 3)]),
    ("lrn_3d", lambda nn: nn.LocalResponseNorm(3), [r(2, 5, 4)]),
    ("lrn_4d", lambda nn: nn.LocalResponseNorm(2, alpha=0.1, beta=0.6, k=2.0), [r(2, 5, 3, 4)]),
    ("lrn_5d", lambda nn: nn.LocalResponseNorm(4, alpha=0.3), [r(1, 6, 2, 3, 2)]),
    ("rmsnorm", lambda nn: nn.RMSNorm(5), [r(3, 5)]),
    ("rmsnorm_eps", lambda nn: nn.RMSNorm((2, 5), eps=1e-3, elementwise_affine=False),
     [r(3, 2, 5)]),
    ("instancenorm1d", lambda nn: nn.InstanceNorm1d(3), [r(2, 3, 6)]),
    ("instancenorm2d_affine_stats", lambda nn: nn.InstanceNorm2d(3, affine=True,
                                                                 track_running_stats=True),
     [r(2, 3, 4, 4)]),
    ("instancenorm2d_unbatched", lambda nn: nn.InstanceNorm2d(3), [r(3, 4, 4)]),
    ("zeropad2d", lambda nn: nn.ZeroPad2d((1, 2, 0, 3)), [r(2, 3, 3, 3)]),
    ("zeropad1d", lambda nn: nn.ZeroPad1d(2), [r(2, 3, 3)]),
    ("constantpad1d", lambda nn: nn.ConstantPad1d((2, 1), 3.5), [r(2, 3, 4)]),
    ("constantpad2d", lambda nn: nn.ConstantPad2d(1, -1.0), [r(2, 3, 4)]),
    ("reflectionpad1d", lambda nn: nn.ReflectionPad1d((2, 1)), [r(2, 3, 4)]),
    ("reflectionpad2d", lambda nn: nn.ReflectionPad2d((1, 2, 2, 1)), [r(2, 3, 4, 4)]),
    ("replicationpad1d", lambda nn: nn.ReplicationPad1d(2), [r(2, 3, 4)]),
    ("replicationpad2d", lambda nn: nn.ReplicationPad2d((1, 2, 2, 1)), [r(2, 3, 4, 4)]),
    ("circularpad2d", lambda nn: nn.CircularPad2d(1), [r(2, 3, 4, 4)]),
    ("up_nearest", lambda nn: nn.Upsample(scale_factor=2), [r(2, 3, 3, 4)]),
    ("up_nearest_size", lambda nn: nn.Upsample(size=(5, 7)), [r(2, 3, 3, 4)]),
    ("up_nearest_1d", lambda nn: nn.Upsample(scale_factor=1.7), [r(2, 3, 5)]),
    ("up_nearest_exact", lambda nn: nn.Upsample(size=(5, 3), mode="nearest-exact"),
     [r(1, 2, 3, 4)]),
    ("up_bilinear", lambda nn: nn.Upsample(scale_factor=2, mode="bilinear"), [r(2, 3, 3, 4)]),
    ("up_bilinear_ac", lambda nn: nn.Upsample(size=(5, 7), mode="bilinear",
                                              align_corners=True), [r(2, 3, 3, 4)]),
    ("up_bilinear_down", lambda nn: nn.Upsample(scale_factor=0.6, mode="bilinear"),
     [r(1, 2, 5, 6)]),
    ("up_linear", lambda nn: nn.Upsample(scale_factor=2.5, mode="linear"), [r(2, 3, 4)]),
    ("up_bicubic", lambda nn: nn.Upsample(size=(6, 5), mode="bicubic"), [r(1, 2, 3, 4)]),
    ("up_bicubic_ac", lambda nn: nn.Upsample(scale_factor=2, mode="bicubic",
                                             align_corners=True), [r(1, 2, 3, 3)]),
    ("up_trilinear", lambda nn: nn.Upsample(scale_factor=(2, 1.5, 1), mode="trilinear"),
     [r(1, 2, 2, 3, 2)]),
    ("up_bilinear2d", lambda nn: nn.UpsamplingBilinear2d(scale_factor=2), [r(1, 2, 3, 3)]),
    ("up_nearest2d", lambda nn: nn.UpsamplingNearest2d(size=5), [r(1, 2, 3, 3)]),
    ("unfold", lambda nn: nn.Unfold(2), [r(2, 3, 4, 5)]),
    ("unfold_full", lambda nn: nn.Unfold((2, 3), dilation=(1, 2), padding=1, stride=(2, 1)),
     [r(3, 5, 6)]),
    ("fold", lambda nn: nn.Fold((4, 5), 2), [r(2, 12, 12)]),
    ("fold_full", lambda nn: nn.Fold((5, 6), (2, 3), dilation=(1, 2), padding=1,
                                     stride=(2, 1)), [r(6, 12)]),
    ("lppool2d", lambda nn: nn.LPPool2d(2, 2), [r(2, 3, 4, 5)]),
    ("lppool2d_p3", lambda nn: nn.LPPool2d(3, (2, 3), stride=1, ceil_mode=True),
     [r(2, 3, 4, 5)]),
    ("lppool1d", lambda nn: nn.LPPool1d(1.5, 3, stride=2), [r(2, 3, 7, lo=0.1)]),
    ("lppool1d_inf", lambda nn: nn.LPPool1d(float("inf"), 2), [r(2, 3, 6)]),
    ("channelshuffle", lambda nn: nn.ChannelShuffle(3), [r(2, 6, 2, 2)]),
    ("channelshuffle_3d", lambda nn: nn.ChannelShuffle(2), [r(2, 4, 3)]),
    ("pixelshuffle", lambda nn: nn.PixelShuffle(2), [r(2, 8, 3, 3)]),
    ("pixelunshuffle", lambda nn: nn.PixelUnshuffle(2), [r(2, 2, 4, 6)]),
    ("pairwise", lambda nn: nn.PairwiseDistance(p=1.5, keepdim=True),
     [r(4, 5), r(4, 5, seed=1)]),
    ("cosine", lambda nn: nn.CosineSimilarity(dim=-1), [r(4, 5), r(1, 5, seed=1)]),
]

ACTIVATIONS = [
    ("relu", lambda nn: nn.ReLU()),
    ("relu6", lambda nn: nn.ReLU6()),
    ("leaky", lambda nn: nn.LeakyReLU(0.2)),
    ("prelu", lambda nn: nn.PReLU()),
    ("prelu_channels", lambda nn: nn.PReLU(3, init=0.1)),
    ("gelu", lambda nn: nn.GELU()),
    ("gelu_tanh", lambda nn: nn.GELU(approximate="tanh")),
    ("silu", lambda nn: nn.SiLU()),
    ("mish", lambda nn: nn.Mish()),
    ("tanh", lambda nn: nn.Tanh()),
    ("sigmoid", lambda nn: nn.Sigmoid()),
    ("softmax", lambda nn: nn.Softmax(dim=1)),
    ("logsoftmax", lambda nn: nn.LogSoftmax(dim=-1)),
    ("softmin", lambda nn: nn.Softmin(dim=1)),
    ("softmax2d", lambda nn: nn.Softmax2d()),
    ("elu", lambda nn: nn.ELU(alpha=0.7)),
    ("celu", lambda nn: nn.CELU(alpha=1.3)),
    ("selu", lambda nn: nn.SELU()),
    ("softplus", lambda nn: nn.Softplus(beta=2.0, threshold=3.0)),
    ("softsign", lambda nn: nn.Softsign()),
    ("hardtanh", lambda nn: nn.Hardtanh(-0.5, 1.5)),
    ("hardsigmoid", lambda nn: nn.Hardsigmoid()),
    ("hardswish", lambda nn: nn.Hardswish()),
    ("tanhshrink", lambda nn: nn.Tanhshrink()),
    ("softshrink", lambda nn: nn.Softshrink(0.7)),
    ("hardshrink", lambda nn: nn.Hardshrink(0.7)),
    ("logsigmoid", lambda nn: nn.LogSigmoid()),
    ("threshold", lambda nn: nn.Threshold(0.3, -2.0)),
    ("glu", lambda nn: nn.GLU(dim=2)),
]


def _act_input():
    # Values on both sides of every kink, including the kinks themselves (-3, 0, 3, +-0.7).
    x = r(2, 3, 4, 2, lo=-4, hi=4, seed=3)
    flat = x.reshape(-1)
    flat[:8] = [-3.0, 3.0, 0.0, 0.7, -0.7, 0.3, 30.0, -30.0]
    return x


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,make,inputs", LAYERS, ids=[c[0] for c in LAYERS])
def test_layer(torch, name, make, inputs, dtype):
    compare_module(torch, make, inputs, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,make", ACTIVATIONS, ids=[c[0] for c in ACTIVATIONS])
def test_activation(torch, name, make, dtype):
    compare_module(torch, make, [_act_input()], dtype)


def test_rrelu(torch):
    # eval: the mean slope, deterministic
    compare_module(torch, lambda nn: nn.RReLU(0.1, 0.3), [_act_input()], "float64",
                   train=False)
    # training: a random slope in [lower, upper] per negative element, the gradient is it
    G.manual_seed(0)
    x = G.tensor(_act_input(), requires_grad=True)
    y = G.nn.RReLU(0.1, 0.3)(x)
    y.sum().backward()
    xs, ys, gs = _np(x), _np(y), _np(x.grad)
    neg = xs < 0
    np.testing.assert_array_equal(ys[~neg], xs[~neg])
    slope = ys[neg] / xs[neg]
    assert np.all((slope >= 0.1 - 1e-6) & (slope <= 0.3 + 1e-6)) and slope.std() > 0.01
    np.testing.assert_allclose(gs[neg], slope, rtol=1e-5)


# (the tanh GELU is the native gelu, whose half path rounds differently: left alone here)
_HALF = [c for c in ACTIVATIONS if c[0] != "gelu_tanh"]


@pytest.mark.parametrize("name,make", _HALF, ids=[c[0] for c in _HALF])
def test_activation_half(torch, name, make):
    """float16 computes in float32 and rounds once, as PyTorch's kernels: within an ulp."""
    x = _act_input()
    res = []
    state = None
    for lib in (torch, G):  # PyTorch's parameters (PReLU's) copied into gradrs
        m = make(lib.nn).half()
        if state is None:
            state = {k: _np(v) for k, v in m.state_dict().items()}
        else:
            m.load_state_dict({k: G.tensor(v) for k, v in state.items()})
        xx = lib.tensor(x, dtype=lib.float16, requires_grad=True)
        y = m(xx)
        w = np.resize(x[::-1], tuple(y.shape))
        (y.float() * lib.tensor(w, dtype=lib.float32)).sum().backward()
        res.append((_np(y.float()), _np(xx.grad.float())))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("inplace_cls", ["ReLU", "ReLU6", "LeakyReLU", "ELU", "CELU", "SELU",
                                         "SiLU", "Mish", "Hardswish", "Hardsigmoid",
                                         "Hardtanh", "Threshold"])
def test_inplace_activations(torch, inplace_cls):
    def run(lib):
        args = (0.3, -2.0) if inplace_cls == "Threshold" else ()
        m = getattr(lib.nn, inplace_cls)(*args, inplace=True)
        x = lib.tensor(_act_input(), dtype=lib.float64, requires_grad=True)
        y = x * 1
        z = m(y)
        assert z is y or z.data_ptr() == y.data_ptr()
        z.sum().backward()
        return _np(z), _np(x.grad), repr(m)

    g, t = run(G), run(torch)
    np.testing.assert_allclose(g[0], t[0], **TOL["float64"])
    np.testing.assert_allclose(g[1], t[1], **TOL["float64"])
    assert g[2] == t[2]


# --------------------------------------------------------------------------------------------
# reprs, state_dict, init
# --------------------------------------------------------------------------------------------

REPRS = [
    lambda nn: nn.Linear(3, 4, bias=False),
    lambda nn: nn.Bilinear(2, 3, 4),
    lambda nn: nn.Identity(),
    lambda nn: nn.Flatten(0, 2),
    lambda nn: nn.Unflatten(1, [2, 3]),
    lambda nn: nn.Conv1d(3, 4, 3, stride=2, padding=1, dilation=2,
                         groups=1, padding_mode="reflect"),
    lambda nn: nn.Conv2d(4, 8, (3, 5), stride=(2, 1), padding=(4, 2), dilation=(3, 1),
                         groups=2, bias=False),
    lambda nn: nn.Conv2d(3, 3, 3, padding="same"),
    lambda nn: nn.Conv3d(4, 6, (3, 1, 2), stride=2, padding=(1, 0, 0), groups=2),
    lambda nn: nn.ConvTranspose2d(4, 6, 3, stride=2, output_padding=1, groups=2),
    lambda nn: nn.ConvTranspose1d(4, 6, 3),
    lambda nn: nn.MaxPool2d(3, 2, 1, ceil_mode=True),
    lambda nn: nn.MaxPool1d(2),
    lambda nn: nn.AvgPool2d(2),
    lambda nn: nn.AvgPool1d(3, 1),
    lambda nn: nn.AdaptiveAvgPool2d((5, None)),
    lambda nn: nn.AdaptiveAvgPool1d(4),
    lambda nn: nn.AdaptiveMaxPool2d(3, return_indices=True),
    lambda nn: nn.BatchNorm1d(4, momentum=None, affine=False),
    lambda nn: nn.BatchNorm2d(4, eps=1e-3, track_running_stats=False),
    lambda nn: nn.LayerNorm((2, 3), elementwise_affine=False),
    lambda nn: nn.GroupNorm(2, 4, bias=False),
    lambda nn: nn.RMSNorm(4), lambda nn: nn.LocalResponseNorm(2, k=2),
    lambda nn: nn.InstanceNorm2d(3, affine=True),
    lambda nn: nn.InstanceNorm1d(3),
    lambda nn: nn.Dropout(0.3),
    lambda nn: nn.Dropout2d(inplace=True),
    lambda nn: nn.Dropout1d(),
    lambda nn: nn.AlphaDropout(0.2),
    lambda nn: nn.ZeroPad2d(2),
    lambda nn: nn.ZeroPad2d((1, 2, 3, 4)),
    lambda nn: nn.ConstantPad2d(1, 3.5),
    lambda nn: nn.ConstantPad1d((1, 2), 0),
    lambda nn: nn.ReflectionPad2d(1),
    lambda nn: nn.ReflectionPad1d((1, 2)),
    lambda nn: nn.ReplicationPad2d(2),
    lambda nn: nn.Upsample(scale_factor=2),
    lambda nn: nn.Upsample(size=(3, 4), mode="bilinear", align_corners=True),
    lambda nn: nn.Upsample(scale_factor=(2, 3), mode="nearest"),
    lambda nn: nn.UpsamplingBilinear2d(scale_factor=2),
    lambda nn: nn.Embedding(10, 3),
    lambda nn: nn.Embedding(10, 3, padding_idx=-1, max_norm=1.5, norm_type=1.0,
                            scale_grad_by_freq=True, sparse=True),
    lambda nn: nn.PixelShuffle(3), lambda nn: nn.PixelUnshuffle(2),
    lambda nn: nn.MaxUnpool2d(2), lambda nn: nn.MaxUnpool1d(3, 2, 1),
    lambda nn: nn.LPPool2d(2, 3), lambda nn: nn.LPPool1d(1.5, 2, stride=1, ceil_mode=True),
    lambda nn: nn.ChannelShuffle(4),
    lambda nn: nn.EmbeddingBag(5, 2), lambda nn: nn.EmbeddingBag(5, 2, max_norm=1.0, mode="max",
                                                                 padding_idx=1, norm_type=1.5),
    lambda nn: nn.Fold((4, 5), 2, padding=1), lambda nn: nn.Unfold((2, 3), stride=2),
    lambda nn: nn.ReLU(), lambda nn: nn.ReLU(inplace=True), lambda nn: nn.ReLU6(inplace=True),
    lambda nn: nn.LeakyReLU(), lambda nn: nn.LeakyReLU(0.2, inplace=True),
    lambda nn: nn.PReLU(3), lambda nn: nn.GELU(), lambda nn: nn.GELU("tanh"),
    lambda nn: nn.SiLU(), lambda nn: nn.Mish(inplace=True), lambda nn: nn.Tanh(),
    lambda nn: nn.Sigmoid(), lambda nn: nn.Softmax(), lambda nn: nn.Softmax(dim=1),
    lambda nn: nn.LogSoftmax(-1), lambda nn: nn.Softmin(0), lambda nn: nn.ELU(),
    lambda nn: nn.ELU(0.5, True), lambda nn: nn.CELU(), lambda nn: nn.SELU(True),
    lambda nn: nn.Softplus(), lambda nn: nn.Softsign(), lambda nn: nn.Hardtanh(),
    lambda nn: nn.Hardtanh(-2, 2, True), lambda nn: nn.Hardsigmoid(), lambda nn: nn.Hardswish(),
    lambda nn: nn.Tanhshrink(), lambda nn: nn.Softshrink(), lambda nn: nn.Hardshrink(0.3),
    lambda nn: nn.LogSigmoid(), lambda nn: nn.Threshold(0.1, 20),
    lambda nn: nn.Threshold(0.1, 20, inplace=True), lambda nn: nn.GLU(),
    lambda nn: nn.RReLU(), lambda nn: nn.Softmax2d(),
    lambda nn: nn.PairwiseDistance(), lambda nn: nn.CosineSimilarity(),
    lambda nn: nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(),
                             nn.MaxPool2d(2), nn.Flatten(), nn.Dropout(0.2),
                             nn.Linear(16, 10), nn.LogSoftmax(dim=1)),
]


@pytest.mark.parametrize("k", range(len(REPRS)))
def test_repr_and_state_dict(torch, k):
    t_mod = REPRS[k](torch.nn)
    g_mod = REPRS[k](G.nn)
    assert repr(g_mod) == norm(repr(t_mod))
    ts, gs = t_mod.state_dict(), g_mod.state_dict()
    assert list(gs.keys()) == list(ts.keys())
    for key in ts:
        assert tuple(gs[key].shape) == tuple(ts[key].shape), key
        assert str(gs[key].dtype).split(".")[-1] == str(ts[key].dtype).split(".")[-1], key
    assert [n for n, _ in g_mod.named_parameters()] == [n for n, _ in t_mod.named_parameters()]


def _bound_check(values, bound):
    v = values.reshape(-1)
    assert np.all(np.abs(v) <= bound * (1 + 1e-6))
    # a uniform sample of this size reaches past 80 % of the bound on both sides
    assert v.max() > 0.8 * bound and v.min() < -0.8 * bound


@pytest.mark.parametrize("case", ["linear", "conv2d", "conv1d_groups", "convT2d", "bilinear"])
def test_default_init_bounds(case):
    G.manual_seed(0)
    nn = G.nn
    if case == "linear":
        m, fan_in = nn.Linear(200, 300), 200
    elif case == "conv2d":
        m, fan_in = nn.Conv2d(8, 64, 3), 8 * 9
    elif case == "conv1d_groups":
        m, fan_in = nn.Conv1d(8, 64, 5, groups=4), 2 * 5
    elif case == "convT2d":
        # transposed weights are [in, out/groups, k...]: fan_in counts dim 1
        m, fan_in = nn.ConvTranspose2d(64, 16, 3), 16 * 9
    else:
        m, fan_in = nn.Bilinear(20, 30, 300), 20
    bound = 1 / math.sqrt(fan_in)
    _bound_check(_np(m.weight), bound)
    _bound_check(_np(m.bias), bound)
    w = _np(m.weight).reshape(-1)
    # U(-b, b) has variance b^2 / 3
    assert abs(w.var() - bound**2 / 3) < 0.1 * bound**2 / 3


def test_default_init_others(torch):
    nn = G.nn
    G.manual_seed(0)
    e = nn.Embedding(500, 40, padding_idx=3)
    w = _np(e.weight)
    assert np.all(w[3] == 0)
    assert abs(w.mean()) < 0.02 and abs(w.std() - 1) < 0.02
    assert e.weight.requires_grad
    for m in (nn.BatchNorm2d(5), nn.LayerNorm(5), nn.GroupNorm(1, 5), nn.InstanceNorm1d(5,
                                                                                       affine=True)):
        np.testing.assert_array_equal(_np(m.weight), np.ones(5))
        np.testing.assert_array_equal(_np(m.bias), np.zeros(5))
    bn = nn.BatchNorm1d(4)
    np.testing.assert_array_equal(_np(bn.running_mean), np.zeros(4))
    np.testing.assert_array_equal(_np(bn.running_var), np.ones(4))
    assert bn.num_batches_tracked.dtype == G.int64 and bn.num_batches_tracked.item() == 0
    np.testing.assert_array_equal(_np(nn.PReLU(3, init=0.1).weight),
                                  np.full(3, 0.1, dtype=np.float32))
    assert nn.Linear(2, 3, dtype=G.float64).weight.dtype == G.float64


# --------------------------------------------------------------------------------------------
# BatchNorm: running statistics, eval mode, num_batches_tracked and old checkpoints
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("momentum", [0.1, None, 0.5])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_batchnorm_running_stats(torch, momentum, dtype):
    t_mod = _cast(torch.nn.BatchNorm2d(3, momentum=momentum), dtype)
    g_mod = _cast(G.nn.BatchNorm2d(3, momentum=momentum), dtype)
    for step in range(4):
        x = r(4, 3, 2, 3, seed=10 + step)
        go = g_mod(_leaf(G, x, dtype))
        to = t_mod(_leaf(torch, x, dtype))
        np.testing.assert_allclose(_np(go), _np(to), **TOL[dtype])
    for key, v in t_mod.state_dict().items():
        np.testing.assert_allclose(_np(g_mod.state_dict()[key]), _np(v), **TOL[dtype])
    assert g_mod.num_batches_tracked.item() == 4
    # eval mode normalizes with the running statistics
    g_mod.eval()
    t_mod.eval()
    x = r(2, 3, 2, 3, seed=99)
    np.testing.assert_allclose(_np(g_mod(_leaf(G, x, dtype))), _np(t_mod(_leaf(torch, x, dtype))),
                               **TOL[dtype])
    assert g_mod.num_batches_tracked.item() == 4


def test_batchnorm_eval_without_running_stats_uses_batch(torch):
    compare_module(torch, lambda nn: nn.BatchNorm1d(3, track_running_stats=False),
                   [r(6, 3)], "float64", train=False)


def test_batchnorm_train_eval_gradients(torch):
    # eval mode: affine map of the running stats, gradients included
    def make(nn):
        m = nn.BatchNorm2d(3)
        m.running_mean.fill_(0.3)
        m.running_var.fill_(2.0)
        return m

    compare_module(torch, make, [r(2, 3, 3, 3)], "float64", train=False)


def test_batchnorm_old_checkpoint_without_num_batches_tracked(torch):
    bn = G.nn.BatchNorm1d(3)
    bn.num_batches_tracked.fill_(7)
    sd = {k: v for k, v in bn.state_dict().items() if k != "num_batches_tracked"}
    # a checkpoint without metadata (saved before version 2) loads and keeps the counter
    res = bn.load_state_dict(sd)
    assert res.missing_keys == [] and res.unexpected_keys == []
    assert bn.num_batches_tracked.item() == 7
    # a version-2 checkpoint that lacks it reports it missing, as PyTorch does
    sd2 = bn.state_dict()
    del sd2["num_batches_tracked"]
    tb = torch.nn.BatchNorm1d(3)
    tsd = tb.state_dict()
    del tsd["num_batches_tracked"]
    with pytest.raises(RuntimeError) as eg:
        bn.load_state_dict(sd2)
    with pytest.raises(RuntimeError) as et:
        tb.load_state_dict(tsd)
    assert str(eg.value) == norm(str(et.value))


def test_batchnorm_errors(torch):
    for make, shape in [(lambda nn: nn.BatchNorm1d(3), (2, 3, 4, 4)),
                        (lambda nn: nn.BatchNorm2d(3), (2, 3)),
                        (lambda nn: nn.BatchNorm2d(3), (1, 3, 1, 1)),
                        (lambda nn: nn.InstanceNorm1d(3), (2, 3, 4, 4)),
                        (lambda nn: nn.InstanceNorm2d(3, affine=True), (2, 4, 3, 3)),
                        (lambda nn: nn.InstanceNorm2d(3), (2, 3, 1, 1)),
                        (lambda nn: nn.GroupNorm(2, 4), (2, 3, 4)),
                        (lambda nn: nn.LayerNorm(4), (2, 3)),
                        ]:
        x = r(*shape)
        assert_same_error(lambda m=make, x=x: m(G.nn)(G.tensor(x, dtype=G.float32)),
                          lambda m=make, x=x: m(torch.nn)(torch.tensor(x, dtype=torch.float32)))


def test_instancenorm_warns_on_feature_mismatch(torch):
    x = r(2, 4, 5)

    def run(lib):
        return lib.nn.InstanceNorm1d(3)(lib.tensor(x))

    gy, gw = record_warnings(lambda: run(G))
    ty, tw = record_warnings(lambda: run(torch))
    assert [(c, norm(m)) for c, m in tw] == gw
    np.testing.assert_allclose(_np(gy), _np(ty), **TOL["float32"])


def test_instancenorm_running_stats(torch):
    g_mod = G.nn.InstanceNorm2d(3, track_running_stats=True, momentum=0.2).double()
    t_mod = torch.nn.InstanceNorm2d(3, track_running_stats=True, momentum=0.2).double()
    for s in range(3):
        x = r(2, 3, 3, 4, seed=s)
        g_mod(G.tensor(x))
        t_mod(torch.tensor(x))
    for key, v in t_mod.state_dict().items():
        np.testing.assert_allclose(_np(g_mod.state_dict()[key]), _np(v), **TOL["float64"])
    g_mod.eval()
    t_mod.eval()
    x = r(2, 3, 3, 4, seed=9)
    np.testing.assert_allclose(_np(g_mod(G.tensor(x))), _np(t_mod(torch.tensor(x))),
                               **TOL["float64"])


# --------------------------------------------------------------------------------------------
# Dropout
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("cls,shape", [("Dropout", (40, 50)), ("Dropout1d", (20, 30, 4)),
                                       ("Dropout2d", (20, 30, 2, 2)),
                                       ("Dropout3d", (10, 30, 2, 2, 2)),
                                       ("Dropout1d", (300, 4)), ("Dropout3d", (300, 2, 2, 2))])
def test_dropout_train_and_eval(cls, shape):
    G.manual_seed(0)
    p = 0.3
    m = getattr(G.nn, cls)(p)
    x = G.ones(shape, dtype=G.float64, requires_grad=True)
    y = m(x)
    out = _np(y)
    assert set(np.unique(out)) <= {0.0, 1 / (1 - p)}
    assert abs((out == 0).mean() - p) < 0.06
    if cls != "Dropout":
        # whole channels: every element of a channel shares the mask
        batched = len(shape) == {"Dropout1d": 3, "Dropout2d": 4, "Dropout3d": 5}[cls]
        per_channel = out.reshape(shape[:2] + (-1,) if batched else shape[:1] + (-1,))
        assert np.all(per_channel.min(-1) == per_channel.max(-1))
    y.sum().backward()
    np.testing.assert_array_equal(_np(x.grad), out)
    m.eval()
    np.testing.assert_array_equal(_np(m(x)), _np(x))


@pytest.mark.parametrize("cls,shape", [("Dropout1d", (300, 4)), ("Dropout1d", (20, 30, 4)),
                                       ("Dropout2d", (20, 30, 2, 2)),
                                       ("Dropout3d", (300, 2, 2, 2))])
def test_dropout_inplace(cls, shape):
    G.manual_seed(0)
    x = G.ones(shape, dtype=G.float64, requires_grad=True)
    y = x * 1
    out = getattr(G.nn, cls)(0.3, inplace=True)(y)
    assert out.data_ptr() == y.data_ptr()
    vals = _np(y)
    assert set(np.unique(vals)) == {0.0, 1 / 0.7}
    out.sum().backward()
    np.testing.assert_array_equal(_np(x.grad), vals)


def test_alpha_dropout_statistics():
    G.manual_seed(0)
    x = G.randn(200, 100, dtype=G.float64)
    m = G.nn.AlphaDropout(0.2)
    y = _np(m(x))
    # self-normalizing: mean 0 and variance 1 are kept
    assert abs(y.mean()) < 0.05 and abs(y.var() - 1) < 0.08
    alpha = 1.7580993408473766  # SELU's scale * alpha
    a = 1 / math.sqrt((alpha**2 * 0.2 + 1) * 0.8)
    dropped = np.isclose(y, -alpha * a + alpha * a * 0.2, atol=1e-9)
    kept = ~dropped
    np.testing.assert_allclose(y[kept], _np(x)[kept] * a + alpha * a * 0.2)
    assert abs(dropped.mean() - 0.2) < 0.02
    m.eval()
    assert m(x) is x
    np.testing.assert_array_equal(_np(G.nn.functional.alpha_dropout(x, 1.0, True)), 0 * _np(x))


def test_dropout_errors_and_warnings(torch):
    for p in (-0.1, 1.5):
        assert_same_error(lambda p=p: G.nn.Dropout(p), lambda p=p: torch.nn.Dropout(p))
    x = r(2, 3, 4, 5, 6)
    assert_same_error(lambda: G.nn.Dropout1d()(G.tensor(x)),
                      lambda: torch.nn.Dropout1d()(torch.tensor(x)))
    for shape in [(2, 3, 4), (2, 3, 4, 5, 6)]:
        _, gw = record_warnings(lambda s=shape: G.nn.Dropout2d()(G.ones(s)))
        _, tw = record_warnings(lambda s=shape: torch.nn.Dropout2d()(torch.ones(s)))
        assert gw == [(c, norm(m)) for c, m in tw]


# --------------------------------------------------------------------------------------------
# Embedding
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kw", [{}, {"padding_idx": 1}, {"padding_idx": -2},
                                {"scale_grad_by_freq": True},
                                {"scale_grad_by_freq": True, "padding_idx": 0}])
def test_embedding(torch, kw, dtype):
    idx = np.array([[1, 2, 4, 1], [0, 7, 1, 2]])
    g_mod, t_mod = compare_module(torch, lambda nn: nn.Embedding(8, 3, **kw), [idx], dtype)
    if "padding_idx" in kw:
        pad = kw["padding_idx"] % 8
        assert np.all(_np(g_mod.weight.grad)[pad] == 0)


@pytest.mark.parametrize("norm_type", [2.0, 1.0])
def test_embedding_max_norm(torch, norm_type):
    idx = np.array([[1, 2, 4, 1], [0, 7, 1, 2]])
    t_mod = torch.nn.Embedding(8, 3, max_norm=1.2, norm_type=norm_type)
    g_mod = G.nn.Embedding(8, 3, max_norm=1.2, norm_type=norm_type)
    with torch.no_grad():
        t_mod.weight.mul_(2)
    copy_state(g_mod, t_mod)
    to = t_mod(torch.tensor(idx))
    go = g_mod(G.tensor(idx))
    np.testing.assert_allclose(_np(go), _np(to), rtol=1e-6, atol=1e-7)
    # the rows looked up were renormalised in place; the others were left alone
    np.testing.assert_allclose(_np(g_mod.weight), _np(t_mod.weight), rtol=1e-6, atol=1e-7)
    assert g_mod.weight._version > 0
    to.sum().backward()
    go.sum().backward()
    np.testing.assert_allclose(_np(g_mod.weight.grad), _np(t_mod.weight.grad))


def test_embedding_from_pretrained(torch):
    w = r(4, 3)
    for freeze in (True, False):
        g = G.nn.Embedding.from_pretrained(G.tensor(w), freeze=freeze, padding_idx=0)
        t = torch.nn.Embedding.from_pretrained(torch.tensor(w), freeze=freeze, padding_idx=0)
        assert g.weight.requires_grad == t.weight.requires_grad
        assert repr(g) == repr(t)
        np.testing.assert_array_equal(_np(g(G.tensor([0, 3]))), _np(t(torch.tensor([0, 3]))))
    assert_same_error(lambda: G.nn.Embedding.from_pretrained(G.ones(3)),
                      lambda: torch.nn.Embedding.from_pretrained(torch.ones(3)))
    assert_same_error(lambda: G.nn.Embedding(4, 3, padding_idx=4),
                      lambda: torch.nn.Embedding(4, 3, padding_idx=4))
    assert_same_error(lambda: G.nn.Embedding(4, 3, _weight=G.ones(3, 3)),
                      lambda: torch.nn.Embedding(4, 3, _weight=torch.ones(3, 3)))


BAGS = [
    ({}, [[1, 2, 4], [4, 3, 9]], None),
    ({"mode": "sum"}, [1, 2, 4, 5, 4, 3, 2, 9], [0, 2, 2, 5]),
    ({"mode": "max"}, [1, 2, 4, 5, 4, 3, 2, 9], [0, 2, 2, 5]),
    ({"padding_idx": 2}, [1, 2, 4, 5, 4, 3, 2, 9], [0, 2, 2, 5]),
    ({"mode": "sum", "include_last_offset": True}, [1, 2, 4, 5, 4, 3, 2, 9], [0, 2, 2, 5, 8]),
    ({"mode": "max", "padding_idx": -6}, [1, 2, 4, 5, 4, 3, 2, 9], [0, 2, 3, 5]),
    # (PyTorch's CPU kernel scales some rows by another index's count when several indices
    # repeat: the inputs here are ones its kernel gets right)
    ({"scale_grad_by_freq": True}, [5, 5, 5, 1], [0, 2]),
    ({"mode": "sum", "max_norm": 1.0}, [[1, 2], [2, 7]], None),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("k", range(len(BAGS)))
def test_embedding_bag(torch, k, dtype):
    kw, inp, off = BAGS[k]
    w = r(10, 3, seed=k) * 2
    mods = {}

    def call(lib):
        def run(weight):
            m = lib.nn.EmbeddingBag.from_pretrained(weight.detach(), freeze=False, **kw)
            mods[lib] = m
            o = m(lib.tensor(inp), None if off is None else lib.tensor(off))
            return o + 0 * weight.sum()  # the weight leaf sees the bag's gradient below

        return run

    compare_calls(torch, call(G), call(torch), [w], dtype)
    gm, tm = mods[G], mods[torch]
    assert repr(gm) == repr(tm)
    np.testing.assert_allclose(_np(gm.weight), _np(tm.weight), **TOL[dtype])
    (gm(G.tensor(inp), None if off is None else G.tensor(off)) ** 2).sum().backward()
    (tm(torch.tensor(inp), None if off is None else torch.tensor(off)) ** 2).sum().backward()
    np.testing.assert_allclose(_np(gm.weight.grad), _np(tm.weight.grad), **TOL[dtype])


def test_embedding_bag_per_sample_weights(torch):
    w = r(10, 3)
    psw = r(8, seed=1)
    compare_calls(
        torch,
        lambda weight, p: G.nn.functional.embedding_bag(
            G.tensor([1, 2, 4, 5, 4, 3, 2, 9]), weight, G.tensor([0, 3, 3, 6]), mode="sum",
            per_sample_weights=p, padding_idx=3),
        lambda weight, p: torch.nn.functional.embedding_bag(
            torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), weight, torch.tensor([0, 3, 3, 6]),
            mode="sum", per_sample_weights=p, padding_idx=3),
        [w, psw], "float64")


BAG_ERRORS = [
    lambda F, lib: F.embedding_bag(lib.tensor([[1, 2]]), lib.ones(4, 2), lib.tensor([0])),
    lambda F, lib: F.embedding_bag(lib.tensor([1, 2]), lib.ones(4, 2)),
    lambda F, lib: F.embedding_bag(lib.tensor([1, 2]), lib.ones(4, 2), lib.tensor([[0]])),
    lambda F, lib: F.embedding_bag(lib.tensor([[[1, 2]]]), lib.ones(4, 2)),
    lambda F, lib: F.embedding_bag(lib.tensor([1, 2]), lib.ones(4), lib.tensor([0])),
    lambda F, lib: F.embedding_bag(lib.tensor([1, 2]), lib.ones(4, 2), lib.tensor([0]),
                                   mode="min"),
    lambda F, lib: F.embedding_bag(lib.tensor([1, 2]), lib.ones(4, 2), lib.tensor([0]),
                                   mode="max", scale_grad_by_freq=True),
    lambda F, lib: F.embedding_bag(lib.tensor([1, 2]), lib.ones(4, 2), lib.tensor([0]),
                                   per_sample_weights=lib.ones(2)),
    lambda F, lib: F.embedding_bag(lib.tensor([1, 2]), lib.ones(4, 2), lib.tensor([0]),
                                   mode="sum", per_sample_weights=lib.ones(3)),
    lambda F, lib: F.embedding_bag(lib.tensor([1, 2]), lib.ones(4, 2), lib.tensor([1])),
    lambda F, lib: F.embedding_bag(lib.tensor([1, 2]), lib.ones(4, 2), lib.tensor([0, 3])),
    lambda F, lib: F.embedding_bag(lib.tensor([1, 2]), lib.ones(4, 2), lib.tensor([0]),
                                   padding_idx=4),
    lambda F, lib: lib.nn.EmbeddingBag(4, 2, padding_idx=4),
]


@pytest.mark.parametrize("k", range(len(BAG_ERRORS)))
def test_embedding_bag_errors(torch, k):
    assert_same_error(lambda: BAG_ERRORS[k](G.nn.functional, G),
                      lambda: BAG_ERRORS[k](torch.nn.functional, torch))


# --------------------------------------------------------------------------------------------
# construction and forward errors with PyTorch's texts
# --------------------------------------------------------------------------------------------

CTOR_ERRORS = [
    lambda nn: nn.Conv2d(3, 4, 3, groups=0),
    lambda nn: nn.Conv2d(3, 4, 3, groups=2),
    lambda nn: nn.Conv2d(4, 3, 3, groups=2),
    lambda nn: nn.Conv2d(4, 4, 3, padding="full"),
    lambda nn: nn.Conv2d(4, 4, 3, stride=2, padding="same"),
    lambda nn: nn.Conv2d(4, 4, 3, padding_mode="mirror"),
    lambda nn: nn.ConvTranspose2d(4, 4, 3, padding_mode="reflect"),
    lambda nn: nn.GroupNorm(3, 4),
    lambda nn: nn.Hardtanh(1.0, 0.5),
    lambda nn: nn.Unflatten(1, 6),
    lambda nn: nn.Unflatten(1, (2, 3.0)),
    lambda nn: nn.HuberLoss(delta="1"),
    lambda nn: nn.TripletMarginLoss(margin=0),
    lambda nn: nn.Bilinear(0, 2, 3),
]


def _sorted_sets(msg):
    """A message with each printed set's items sorted: a set's order depends on the hash
    seed of the process that compiled its literal, so PyTorch's own text varies."""
    return re.sub(r"\{([^{}]*)\}", lambda m: "{" + ", ".join(sorted(m.group(1).split(", ")))
                  + "}", msg)


@pytest.mark.parametrize("k", range(len(CTOR_ERRORS)))
def test_constructor_errors(torch, k):
    def catch(fn):
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - compared below
            return e
        raise AssertionError("did not raise")

    eg, et = catch(lambda: CTOR_ERRORS[k](G.nn)), catch(lambda: CTOR_ERRORS[k](torch.nn))
    assert type(eg).__name__ == type(et).__name__
    assert _sorted_sets(str(eg)) == _sorted_sets(norm(str(et)))


FORWARD_ERRORS = [
    (lambda nn: nn.ConvTranspose2d(3, 4, 3), (2, 4, 5, 5)),
    (lambda nn: nn.ConvTranspose2d(3, 4, 3), (5, 5)),
    (lambda nn: nn.ConvTranspose2d(3, 4, 3, stride=2, output_padding=2), (1, 3, 4, 4)),
    (lambda nn: nn.Conv2d(3, 4, 3), (2, 4, 5, 5)),
    (lambda nn: nn.Conv3d(3, 4, 3), (2, 4, 5, 5, 5)),
    (lambda nn: nn.Conv3d(3, 4, 3), (5, 5, 5)),
    (lambda nn: nn.Conv3d(3, 4, 6), (2, 3, 5, 5, 5)),
    (lambda nn: nn.Linear(3, 4), (2, 5)),
    (lambda nn: nn.Softmax2d(), (2, 3)),
    (lambda nn: nn.PixelShuffle(3), (1, 4, 2, 2)),
    (lambda nn: nn.PixelShuffle(2), (4, 2)),
    (lambda nn: nn.PixelUnshuffle(2), (1, 4, 3, 2)),
    (lambda nn: nn.GLU(), (2, 5)),
    (lambda nn: nn.PReLU(3), (2, 4, 5)),
    (lambda nn: nn.AdaptiveAvgPool1d(2), (1, 2, 3, 4)),
    (lambda nn: nn.AdaptiveMaxPool1d(2), (1, 2, 3, 4)),
    (lambda nn: nn.Upsample(scale_factor=2, mode="bilinear"), (1, 2, 3)),
    (lambda nn: nn.Upsample(scale_factor=2, mode="linear"), (1, 2, 3, 3)),
    (lambda nn: nn.Upsample(size=(2, 3)), (1, 2, 3)),
    (lambda nn: nn.Upsample(scale_factor=2, mode="nearest", align_corners=True), (1, 2, 3)),
    (lambda nn: nn.Upsample(scale_factor=2, mode="cubic"), (1, 2, 3, 3)),
    (lambda nn: nn.Softshrink(-1.0), (2, 3)),
    (lambda nn: nn.CELU(0.0), (2, 3)),
    (lambda nn: nn.CircularPad2d(1), (2, 3)),
    (lambda nn: nn.ReflectionPad1d(4), (1, 2, 3)),
    (lambda nn: nn.ChannelShuffle(0), (2, 4, 3)),
    (lambda nn: nn.ChannelShuffle(2), (4, 3)),
    (lambda nn: nn.ChannelShuffle(2), (2, 3, 4)),
    (lambda nn: nn.LocalResponseNorm(2), (5, 5)),
    (lambda nn: nn.Unfold(2), (5, 5)),
    (lambda nn: nn.Unfold(2), (5,)),
    (lambda nn: nn.Unfold(2), (1, 2, 3, 4, 5)),
    (lambda nn: nn.Unfold(2), (2, 0, 5, 5)),
    (lambda nn: nn.Unfold(6), (2, 3, 5, 5)),
    (lambda nn: nn.Unfold(0), (2, 3, 5, 5)),
    (lambda nn: nn.Unfold(2, dilation=0), (2, 3, 5, 5)),
    (lambda nn: nn.Unfold(2, padding=-1), (2, 3, 5, 5)),
    (lambda nn: nn.Unfold(2, stride=0), (2, 3, 5, 5)),
    (lambda nn: nn.Unfold((2, 3, 4)), (2, 3, 5, 5)),
    (lambda nn: nn.Fold((5, 5), 2, stride=0), (12, 16)),
    (lambda nn: nn.Fold((5, 5), 2), (12,)),
    (lambda nn: nn.Fold((5, 5), 0), (2, 12, 16)),
    (lambda nn: nn.Fold((1, 1), 2), (2, 12, 16)),
    (lambda nn: nn.Fold((6, 6), 2), (2, 12, 16)),
    (lambda nn: nn.Fold((5, 5), 2), (2, 13, 16)),
    (lambda nn: nn.Fold((5, 5), 2), (2, 12, 0)),
]


@pytest.mark.parametrize("k", range(len(FORWARD_ERRORS)))
def test_forward_errors(torch, k):
    make, shape = FORWARD_ERRORS[k]
    x = r(*shape)
    assert_same_error(lambda: make(G.nn)(G.tensor(x, dtype=G.float32)),
                      lambda: make(torch.nn)(torch.tensor(x, dtype=torch.float32)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,kw", [((2, 3, 4, 4), {}), ((2, 3, 5, 5), {"output_size": (5, 5)}),
                                      ((2, 3, 5, 4), {"output_size": (2, 3, 5, 4)}),
                                      ((2, 3, 6), {}), ((2, 3, 7), {"output_size": [7]})])
def test_max_unpool(torch, shape, kw, dtype):
    nd = len(shape) - 2
    x = r(*shape)

    def call(lib):
        pool = getattr(lib.nn, f"MaxPool{nd}d")(2, return_indices=True)
        unpool = getattr(lib.nn, f"MaxUnpool{nd}d")(2)

        def run(t):
            v, i = pool(t)
            return unpool(v, i, **kw)

        return run

    compare_calls(torch, call(G), call(torch), [x], dtype)


def test_max_unpool_errors(torch):
    x = r(1, 2, 4, 4)

    def case(lib, **kw):
        v, i = lib.nn.functional.max_pool2d(lib.tensor(x), 2, return_indices=True)
        if kw.pop("bad_index", False):  # one index past the plane
            i = i.masked_fill(i == i.max(), 99)
        if kw.pop("float_index", False):
            i = i.float()
        if kw.pop("bad_shape", False):
            i = i[..., :1]
        return lib.nn.functional.max_unpool2d(v, i, 2, **kw)

    for kw in [{"output_size": (9, 9)}, {"output_size": (4,)}, {"bad_index": True},
               {"float_index": True}, {"bad_shape": True}, {"padding": 3}]:
        assert_same_error(lambda kw=kw: case(G, **dict(kw)),
                          lambda kw=kw: case(torch, **dict(kw)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("p", [2, 1.5, 1, 0, float("inf"), 0.5])
def test_pdist(torch, p, dtype):
    compare_calls(torch, lambda x: G.nn.functional.pdist(x, p),
                  lambda x: torch.nn.functional.pdist(x, p), [r(5, 3)], dtype)


def test_pdist_edges_and_errors(torch):
    for shape in [(1, 3), (0, 3)]:
        g, t = G.nn.functional.pdist(G.ones(shape)), torch.nn.functional.pdist(torch.ones(shape))
        assert tuple(g.shape) == tuple(t.shape)
    y = G.ones(3, 2, requires_grad=True)
    G.nn.functional.pdist(y).sum().backward()
    np.testing.assert_array_equal(_np(y.grad), np.zeros((3, 2)))  # zero distances
    for f in [lambda F, lib: F.pdist(lib.ones(3)), lambda F, lib: F.pdist(lib.ones(3, 2), -1),
              lambda F, lib: F.pdist(lib.ones(3, 2, dtype=lib.int64))]:
        assert_same_error(lambda f=f: f(G.nn.functional, G),
                          lambda f=f: f(torch.nn.functional, torch))


def test_gumbel_softmax(torch):
    G.manual_seed(0)
    logits = G.tensor([[1.0, 0.0, -1.0, 2.0]], dtype=G.float64).repeat(4000, 1)
    soft = G.nn.functional.gumbel_softmax(logits, tau=0.5)
    np.testing.assert_allclose(_np(soft.sum(-1)), 1.0)
    # argmax of logits + Gumbel noise is a sample of softmax(logits)
    freq = np.bincount(_np(soft).argmax(-1), minlength=4) / 4000
    np.testing.assert_allclose(freq, _np(logits[0].softmax(0)), atol=0.03)
    x = logits[:3].clone().requires_grad_()
    hard = G.nn.functional.gumbel_softmax(x, hard=True, dim=1)
    assert set(np.unique(_np(hard))) == {0.0, 1.0}
    np.testing.assert_array_equal(_np(hard.sum(1)), np.ones(3))
    (hard * G.arange(4.0, dtype=G.float64)).sum().backward()
    assert x.grad is not None and np.abs(_np(x.grad)).sum() > 0
    _, gw = record_warnings(lambda: G.nn.functional.gumbel_softmax(logits, eps=1e-5))
    _, tw = record_warnings(lambda: torch.nn.functional.gumbel_softmax(torch.tensor(
        _np(logits)), eps=1e-5))
    assert gw == [(c, norm(m)) for c, m in tw]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("size,ac", [((2, 3, 4, 5), False), ((2, 3, 4, 5), True),
                                     ((2, 1, 1, 5), False), ((2, 3, 2, 3, 4), False),
                                     ((2, 3, 2, 3, 4), True)])
def test_affine_grid(torch, size, ac, dtype):
    rows = len(size) - 2
    theta = r(2, rows, rows + 1, seed=3) * 0.5 + np.eye(rows, rows + 1)
    compare_calls(torch, lambda t: G.nn.functional.affine_grid(t, size, align_corners=ac),
                  lambda t: torch.nn.functional.affine_grid(t, size, align_corners=ac),
                  [theta], dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("ac", [False, True])
def test_grid_sample(torch, mode, padding_mode, ac, dtype):
    grid = r(2, 4, 7, 2, seed=5, lo=-1.4, hi=1.4)
    grid[0, 0, :4, 0] = [-0.5, 0.5, -1 / 6, 1 / 6]  # halfway points of nearest's rounding
    compare_calls(
        torch,
        lambda x, g: G.nn.functional.grid_sample(x, g, mode, padding_mode, ac),
        lambda x, g: torch.nn.functional.grid_sample(x, g, mode, padding_mode, ac),
        [r(2, 3, 5, 6), grid], dtype, tol={"float32": {"rtol": 1e-4, "atol": 1e-5},
                                           "float64": TOL["float64"]}[dtype])


def test_spatial_transformer_step(torch):
    """The STN tutorial's sampler: affine_grid + grid_sample inside a model, gradients to
    theta and to the image."""
    x = r(2, 1, 6, 6)
    theta = r(2, 2, 3, seed=1) * 0.2 + np.eye(2, 3)

    def step(lib):
        t = lib.tensor(theta, requires_grad=True)
        img = lib.tensor(x, requires_grad=True)
        grid = lib.nn.functional.affine_grid(t, img.size(), align_corners=False)
        out = lib.nn.functional.grid_sample(img, grid, align_corners=False)
        out.pow(2).sum().backward()
        return _np(out), _np(t.grad), _np(img.grad)

    for a, b in zip(step(G), step(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("ac", [False, True])
def test_affine_grid_and_bilinear_grid_sample_bits(torch, padding_mode, ac):
    """float32 bit for bit: affine_grid's base @ theta^T rounds each of its three terms in
    order (as PyTorch's bmm for a contraction of 3), and the 2-D bilinear sampler accumulates
    its four taps with fused multiply-adds, as PyTorch's vectorized kernel."""
    x = r(2, 3, 8, 8).astype(np.float32)
    c, s = np.cos(0.3), np.sin(0.3)
    theta = (np.array([[[c, -s, 0.1], [s, c, 0.0]]] * 2) * 1.3).astype(np.float32)
    outs = []
    for lib in (G, torch):
        grid = lib.nn.functional.affine_grid(lib.tensor(theta), (2, 3, 8, 8), align_corners=ac)
        out = lib.nn.functional.grid_sample(lib.tensor(x), grid, "bilinear", padding_mode, ac)
        outs.append((_np(grid), _np(out)))
    np.testing.assert_array_equal(outs[0][0], outs[1][0])
    np.testing.assert_array_equal(outs[0][1], outs[1][1])


def test_grid_sample_errors_and_warnings(torch):
    F = "nn.functional"
    cases = [
        lambda lib: lib.nn.functional.grid_sample(lib.ones(1, 1, 2, 2), lib.ones(1, 2, 2, 2),
                                                  mode="area"),
        lambda lib: lib.nn.functional.grid_sample(lib.ones(1, 1, 2, 2), lib.ones(1, 2, 2, 2),
                                                  padding_mode="wrap"),
        lambda lib: lib.nn.functional.grid_sample(lib.ones(1, 1, 2, 2), lib.ones(2, 2, 2, 2),
                                                  align_corners=True),
        lambda lib: lib.nn.functional.grid_sample(lib.ones(1, 1, 2, 2), lib.ones(1, 2, 2, 3),
                                                  align_corners=True),
        lambda lib: lib.nn.functional.affine_grid(lib.ones(1, 2, 3), (1, 1, 2), False),
        lambda lib: lib.nn.functional.affine_grid(lib.ones(1, 3, 3), (1, 1, 2, 2), False),
        lambda lib: lib.nn.functional.affine_grid(lib.ones(1, 2, 3), (1, 1, 3, 4, 5), False),
        lambda lib: lib.nn.functional.affine_grid(lib.ones(1, 2, 3, dtype=lib.int64),
                                                  (1, 1, 2, 2), False),
        lambda lib: lib.nn.functional.affine_grid(lib.ones(1, 2, 3), (1, 0, 2, 2), False),
    ]
    for case in cases:
        assert_same_error(lambda c=case: c(G), lambda c=case: c(torch))
    for call in ["affine_grid(lib.ones(1, 2, 3), (1, 1, 2, 2))",
                 "affine_grid(lib.ones(1, 2, 3), (1, 1, 1, 2), align_corners=True)",
                 "grid_sample(lib.ones(1, 1, 2, 2), lib.zeros(1, 2, 2, 2))"]:
        _, gw = record_warnings(lambda c=call: eval(f"lib.{F}.{c}", {"lib": G}))
        _, tw = record_warnings(lambda c=call: eval(f"lib.{F}.{c}", {"lib": torch}))
        assert gw == [(c, norm(m)) for c, m in tw]


def test_conv_transpose_output_size(torch):
    def run(lib):
        m = lib.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1)
        x = lib.ones(1, 2, 4, 4)
        return [tuple(m(x, output_size=s).shape) for s in ([8, 8], [7, 8], (1, 3, 8, 7))]

    assert run(G) == run(torch)
    assert_same_error(
        lambda: G.nn.ConvTranspose2d(2, 3, 3, stride=2)(G.ones(1, 2, 4, 4), output_size=[20, 20]),
        lambda: torch.nn.ConvTranspose2d(2, 3, 3, stride=2)(torch.ones(1, 2, 4, 4),
                                                              output_size=[20, 20]))
    assert_same_error(
        lambda: G.nn.ConvTranspose2d(2, 3, 3)(G.ones(1, 2, 4, 4), output_size=[6]),
        lambda: torch.nn.ConvTranspose2d(2, 3, 3)(torch.ones(1, 2, 4, 4), output_size=[6]))


INTERP = [
    ((2, 2, 3), {"scale_factor": 1.1}),  # 1-D nearest: no shortcut forward, one backward
    ((2, 2, 3), {"scale_factor": 2.3}),
    ((1, 2, 3, 2, 5), {"scale_factor": 2.3}),
    ((1, 2, 3, 4), {"scale_factor": (2.3, 1.1)}),  # 2-D nearest: shortcuts both ways
    ((1, 1, 6, 2), {"scale_factor": 2.3, "mode": "nearest-exact"}),  # float32 index math
    ((1, 2, 4, 5), {"scale_factor": 1.1, "mode": "bicubic"}),  # backward copies
    ((1, 2, 3, 4), {"scale_factor": (1.3, 2.0), "mode": "bilinear"}),  # equal axis copied
    ((2, 2, 3), {"scale_factor": 1.3, "mode": "linear"}),
    ((1, 2, 5, 7), {"size": (3, 4), "mode": "bilinear", "align_corners": True}),
    ((1, 2, 5, 7), {"size": (1, 1), "mode": "bilinear", "align_corners": True}),
    ((1, 2, 5, 7), {"scale_factor": 0.7, "mode": "area"}),
    ((1, 2, 7), {"size": 3, "mode": "area"}),
    ((1, 2, 5, 6), {"scale_factor": (1.7, 0.6), "mode": "bicubic",
                    "recompute_scale_factor": True}),
    ((1, 1, 2, 3, 2), {"size": (3, 5, 4), "mode": "trilinear", "align_corners": True}),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("k", range(len(INTERP)))
def test_interpolate(torch, k, dtype):
    shape, kw = INTERP[k]
    compare_calls(torch, lambda x: G.nn.functional.interpolate(x, **kw),
                  lambda x: torch.nn.functional.interpolate(x, **kw), [r(*shape, seed=k)], dtype)


def test_interpolate_errors(torch):
    x = r(1, 2, 3, 3)
    for kw in [{"size": 2, "scale_factor": 2}, {}, {"size": (2, 2, 2)},
               {"scale_factor": (2, 2, 2)}, {"size": (2.5, 2)},
               {"size": (4, 4), "recompute_scale_factor": True},
               {"scale_factor": 2, "antialias": True, "mode": "nearest"},
               {"scale_factor": 0.2}]:
        assert_same_error(lambda kw=kw: G.nn.functional.interpolate(G.tensor(x), **kw),
                          lambda kw=kw: torch.nn.functional.interpolate(torch.tensor(x), **kw))
    _, gw = record_warnings(lambda: G.nn.functional.upsample(G.tensor(x), scale_factor=2))
    _, tw = record_warnings(lambda: torch.nn.functional.upsample(torch.tensor(x),
                                                                 scale_factor=2))
    assert gw == [(c, norm(m)) for c, m in tw]


def test_grad_fn_names(torch):
    """The node PyTorch records for each layer's output."""
    cases = [
        (lambda nn: nn.ConvTranspose2d(2, 3, 3), (1, 2, 4, 4)),
        (lambda nn: nn.GroupNorm(1, 2), (1, 2, 4, 4)),
        (lambda nn: nn.AdaptiveMaxPool2d(3), (1, 2, 5, 5)),
        (lambda nn: nn.Upsample(scale_factor=2), (1, 2, 4, 4)),
        (lambda nn: nn.Upsample(scale_factor=2, mode="bilinear"), (1, 2, 4, 4)),
        (lambda nn: nn.Upsample(scale_factor=2, mode="linear"), (1, 2, 4)),
        (lambda nn: nn.PixelShuffle(2), (1, 4, 2, 2)),
        (lambda nn: nn.Unfold(2), (1, 2, 4, 4)), (lambda nn: nn.Unfold(2), (2, 4, 4)),
        (lambda nn: nn.Fold((3, 3), 2), (8, 4)), (lambda nn: nn.Fold((3, 3), 2), (1, 8, 4)),
        (lambda nn: nn.Mish(), (2, 3)), (lambda nn: nn.Hardswish(), (2, 3)),
        (lambda nn: nn.Hardsigmoid(), (2, 3)), (lambda nn: nn.LogSigmoid(), (2, 3)),
        (lambda nn: nn.Softshrink(), (2, 3)), (lambda nn: nn.Hardshrink(), (2, 3)),
        (lambda nn: nn.CELU(), (2, 3)), (lambda nn: nn.SELU(), (2, 3)),
        (lambda nn: nn.Threshold(0.1, 1.0), (2, 3)), (lambda nn: nn.GLU(), (2, 4)),
        (lambda nn: nn.PReLU(), (2, 3)), (lambda nn: nn.Bilinear(3, 3, 2), None),
    ]
    for make, shape in cases:
        names = []
        for lib in (G, torch):
            m = make(lib.nn)
            if shape is None:
                x = lib.ones(2, 3, requires_grad=True)
                y = m(x, x)
            else:
                y = m(lib.tensor(r(*shape), dtype=lib.float32, requires_grad=True))
            names.append(type(y.grad_fn).__name__)
        assert names[0] == names[1], (make, names)


# --------------------------------------------------------------------------------------------
# finite differences of the new functional pieces (float64; no torch needed)
# --------------------------------------------------------------------------------------------

F_CASES = {
    "conv_transpose2d": (lambda x, w, b: G.nn.functional.conv_transpose2d(
        x, w, b, stride=2, padding=1, output_padding=1, groups=2, dilation=1),
        [rnd((1, 4, 2, 3), 1), rnd((4, 1, 3, 2), 2), rnd((2,), 3)]),
    "conv_transpose1d": (lambda x, w: G.nn.functional.conv_transpose1d(x, w, stride=2,
                                                                      dilation=2),
                         [rnd((2, 2, 3), 1), rnd((2, 3, 2), 2)]),
    "bilinear": (lambda a, b, w, c: G.nn.functional.bilinear(a, b, w, c),
                 [rnd((3, 2), 1), rnd((3, 4), 2), rnd((2, 2, 4), 3), rnd((2,), 4)]),
    "group_norm": (lambda x, w, b: G.nn.functional.group_norm(x, 2, w, b),
                   [rnd((2, 4, 3), 1), rnd((4,), 2), rnd((4,), 3)]),
    "instance_norm": (lambda x, w, b: G.nn.functional.instance_norm(x, weight=w, bias=b),
                      [rnd((2, 2, 4), 1), rnd((2,), 2), rnd((2,), 3)]),
    "rms_norm": (lambda x, w: G.nn.functional.rms_norm(x, (3,), w),
                 [rnd((2, 3), 1), rnd((3,), 2)]),
    "interp_bilinear": (lambda x: G.nn.functional.interpolate(x, scale_factor=1.5,
                                                             mode="bilinear"),
                        [rnd((1, 1, 2, 3), 1)]),
    "interp_bicubic_ac": (lambda x: G.nn.functional.interpolate(x, size=(3, 4), mode="bicubic",
                                                               align_corners=True),
                          [rnd((1, 1, 2, 3), 1)]),
    "interp_nearest": (lambda x: G.nn.functional.interpolate(x, size=(5,)),
                       [rnd((1, 2, 3), 1)]),
    "adaptive_max_pool2d": (lambda x: G.nn.functional.adaptive_max_pool2d(x, (2, 3)),
                            [rnd((1, 2, 5, 4), 1)]),
    "prelu": (lambda x, w: G.nn.functional.prelu(x, w), [rnd((2, 3, 2), 1), rnd((3,), 2)]),
    "glu": (lambda x: G.nn.functional.glu(x, 0), [rnd((4, 3), 1)]),
    "mish": (lambda x: G.nn.functional.mish(x), [rnd((2, 3), 1)]),
    "hardswish": (lambda x: G.nn.functional.hardswish(x), [rnd((2, 3), 1, lo=-4, hi=4)]),
    "hardsigmoid": (lambda x: G.nn.functional.hardsigmoid(x), [rnd((2, 3), 1, lo=-4, hi=4)]),
    "celu": (lambda x: G.nn.functional.celu(x, 0.7), [rnd((2, 3), 1)]),
    "selu": (lambda x: G.nn.functional.selu(x), [rnd((2, 3), 1)]),
    "logsigmoid": (lambda x: G.nn.functional.logsigmoid(x), [rnd((2, 3), 1)]),
    "softshrink": (lambda x: G.nn.functional.softshrink(x, 0.1), [rnd((2, 3), 1)]),
    "pixel_shuffle": (lambda x: G.nn.functional.pixel_shuffle(x, 2), [rnd((1, 4, 2, 1), 1)]),
    "unfold": (lambda x: G.nn.functional.unfold(x, 2, padding=1, stride=2), [rnd((2, 3, 3), 1)]),
    "fold": (lambda x: G.nn.functional.fold(x, (3, 3), 2), [rnd((4, 4), 1)]),
    "cosine_similarity": (lambda a, b: G.nn.functional.cosine_similarity(a, b),
                          [rnd((2, 3), 1), rnd((2, 3), 2)]),
}


@pytest.mark.parametrize("name", sorted(F_CASES))
def test_gradcheck_functional(name):
    f, inputs = F_CASES[name]
    assert gradcheck(f, inputs)


SECOND = ["conv_transpose2d", "bilinear", "group_norm", "rms_norm", "interp_bilinear", "prelu",
          "glu", "mish", "celu", "selu", "logsigmoid", "cosine_similarity"]


@pytest.mark.parametrize("name", SECOND)
def test_gradgradcheck_functional(name):
    f, inputs = F_CASES[name]
    assert gradgradcheck(f, inputs)


# --------------------------------------------------------------------------------------------
# the GPU device: same results as the CPU, and a training step stays on the GPU
# --------------------------------------------------------------------------------------------

_GPU = G.gpu.is_available() if hasattr(G, "gpu") else False


def _gpu_model(nn):
    return nn.Sequential(
        # (no max pooling: its argmax index arithmetic goes through the host on the GPU)
        nn.Conv2d(2, 4, 3, padding=1), nn.BatchNorm2d(4), nn.PReLU(4), nn.AvgPool2d(2),
        nn.ConvTranspose2d(4, 3, 2, stride=2), nn.GroupNorm(1, 3), nn.Mish(),
        nn.Upsample(scale_factor=0.5, mode="bilinear"), nn.InstanceNorm2d(3, affine=True),
        nn.Hardswish(), nn.Flatten(), nn.Linear(48, 5), nn.LayerNorm(5))


@pytest.mark.skipif(not _GPU, reason="no GPU adapter")
def test_layers_on_gpu_match_cpu_and_stay_on_gpu():
    G.manual_seed(0)
    cpu = _gpu_model(G.nn)
    gpu = _gpu_model(G.nn)
    gpu.load_state_dict(cpu.state_dict())
    gpu.to("gpu")
    x = r(4, 2, 8, 8)
    t = r(4, 5, seed=1)
    crit = G.nn.SmoothL1Loss()
    outs = []
    for model, dev in ((cpu, "cpu"), (gpu, "gpu")):
        xs, ts = G.tensor(x, dtype=G.float32).to(dev), G.tensor(t, dtype=G.float32).to(dev)
        for step in range(2):
            if step == 1:
                before = G.gpu.transfer_counts()
            model.zero_grad()
            loss = crit(model(xs), ts)
            loss.backward()
            with G.no_grad():
                for p in model.parameters():
                    p -= 0.1 * p.grad
            if step == 1 and dev == "gpu":
                assert G.gpu.transfer_counts() == before
        outs.append((loss.item(), {k: _np(v.cpu()) for k, v in model.state_dict().items()}))
    assert outs[1][0] == pytest.approx(outs[0][0], rel=1e-4)
    for k, v in outs[0][1].items():
        np.testing.assert_allclose(outs[1][1][k], v, rtol=1e-3, atol=1e-4, err_msg=k)
