"""Differential tests of gradrs.nn.utils.parametrize, nn.utils.parametrizations (weight_norm,
spectral_norm), the hook-based nn.utils.weight_norm / spectral_norm (and their remove_*), and
nn.utils.fusion against PyTorch: parametrized values and the originals' gradients in float32
and float64, the same random power-iteration vectors from the same seed, reprs, state_dict keys
and metadata, checkpoints of the older layouts, class injection and removal, caching, copies,
warnings and errors."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from conftest import G, assert_same_error, assert_same_warning, norm
from test_nn_layers import TOL, _np, copy_state, r

pytestmark = [
    pytest.mark.usefixtures("restore_grad_mode"),
    # The hook-based weight_norm's deprecation (its text is compared in test_weight_norm_hook).
    pytest.mark.filterwarnings("ignore:`(torch|gradrs).nn.utils.weight_norm` is deprecated"),
]


def _make_param_classes(nn, lib):
    class Symmetric(nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

        def right_inverse(self, A):
            return A.triu()

    class Scale(nn.Module):
        def __init__(self, s):
            super().__init__()
            self.s = s

        def forward(self, X):
            return X * self.s

        def right_inverse(self, A):
            return A / self.s

    class NoInverse(nn.Module):
        def forward(self, X):
            return X.tanh()

    class Split(nn.Module):  # two originals: X = A + B
        def forward(self, A, B):
            return A + B

        def right_inverse(self, X):
            return X * 0.25, X * 0.75

    class Shrink(nn.Module):
        def forward(self, X):
            return X[:-1]

    class ToDouble(nn.Module):
        def forward(self, X):
            return X.double()

    return dict(Symmetric=Symmetric, Scale=Scale, NoInverse=NoInverse, Split=Split,
                Shrink=Shrink, ToDouble=ToDouble)


def _both(torch, build, dtype="float64"):
    """``build(nn, lib, P)`` in both libraries from the same (torch's) initial state."""
    t = build(torch.nn, torch, _make_param_classes(torch.nn, torch))
    g = build(G.nn, G, _make_param_classes(G.nn, G))
    cast = (lambda m: m.double()) if dtype == "float64" else (lambda m: m.float())
    t, g = cast(t), cast(g)
    copy_state(g, t)
    return g, t


def _check_step(torch, g, t, x, dtype, names=("weight",)):
    """Forward, backward, then every value and gradient equal."""
    tx = torch.tensor(x, dtype=getattr(torch, dtype))
    gx = G.tensor(x, dtype=getattr(G, dtype))
    to, go = t(tx), g(gx)
    np.testing.assert_allclose(_np(go), _np(to), **TOL[dtype])
    w = np.random.default_rng(7).standard_normal(tuple(to.shape))
    (to * torch.tensor(w, dtype=to.dtype)).sum().backward()
    (go * G.tensor(w, dtype=go.dtype)).sum().backward()
    tp = dict(t.named_parameters())
    for name, p in g.named_parameters():
        assert (p.grad is None) == (tp[name].grad is None), name
        if p.grad is not None:
            np.testing.assert_allclose(_np(p.grad), _np(tp[name].grad), err_msg=name,
                                       **TOL[dtype])
    for name in names:
        np.testing.assert_allclose(_np(getattr(g, name)), _np(getattr(t, name)), **TOL[dtype])
    for (kt, vt), (kg, vg) in zip(t.state_dict().items(), g.state_dict().items()):
        assert kg == kt
        np.testing.assert_allclose(_np(vg), _np(vt), err_msg=kt, **TOL[dtype])


# --------------------------------------------------------------------------------------------
# parametrize
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_register_symmetric_and_chain(torch, dtype):
    def build(nn, lib, P):
        m = nn.Linear(4, 4)
        nn.utils.parametrize.register_parametrization(m, "weight", P["Symmetric"]())
        nn.utils.parametrize.register_parametrization(m, "weight", P["Scale"](2.0))
        nn.utils.parametrize.register_parametrization(m, "bias", P["NoInverse"]())
        return m

    g, t = _both(torch, build, dtype)
    assert repr(g) == norm(repr(t))
    assert type(g).__name__ == type(t).__name__ == "ParametrizedLinear"
    assert list(g.state_dict()) == list(t.state_dict())
    assert [n for n, _ in g.named_parameters()] == [n for n, _ in t.named_parameters()]
    _check_step(torch, g, t, r(3, 4), dtype, ("weight", "bias"))
    for lib, m in ((torch, t), (G, g)):
        pz = lib.nn.utils.parametrize
        assert pz.is_parametrized(m) and pz.is_parametrized(m, "weight")
        assert not pz.is_parametrized(m, "other")
        assert pz.type_before_parametrizations(m) is lib.nn.Linear
        assert type(m.parametrizations.weight).__name__ == "ParametrizationList"


@pytest.mark.parametrize("leave", [True, False])
def test_assign_and_remove(torch, leave):
    def build(nn, lib, P):
        m = nn.Linear(3, 3)
        nn.utils.parametrize.register_parametrization(m, "weight", P["Symmetric"]())
        return m

    g, t = _both(torch, build)
    a = r(3, 3, seed=5)
    with torch.no_grad():
        t.weight = torch.tensor(a)
    with G.no_grad():
        g.weight = G.tensor(a)
    np.testing.assert_allclose(_np(g.parametrizations.weight.original),
                               _np(t.parametrizations.weight.original), rtol=1e-12)
    for lib, m in ((torch, t), (G, g)):
        orig = m.parametrizations.weight.original
        lib.nn.utils.parametrize.remove_parametrizations(m, "weight", leave_parametrized=leave)
        assert type(m) is lib.nn.Linear and "parametrizations" not in m._modules
        assert m.weight is orig and isinstance(m.weight, lib.nn.Parameter)
    assert repr(g) == norm(repr(t))
    np.testing.assert_allclose(_np(g.weight), _np(t.weight), rtol=1e-12)


def test_sequence_right_inverse(torch):
    def build(nn, lib, P):
        m = nn.Linear(3, 2)
        nn.utils.parametrize.register_parametrization(m, "weight", P["Split"]())
        return m

    g, t = _both(torch, build)
    assert list(g.state_dict()) == list(t.state_dict()) == [
        "bias", "parametrizations.weight.original0", "parametrizations.weight.original1"]
    _check_step(torch, g, t, r(4, 3), "float64")
    for lib, m in ((torch, t), (G, g)):
        with lib.no_grad():
            m.weight = lib.ones(2, 3, dtype=lib.float64)
    np.testing.assert_allclose(_np(g.parametrizations.weight.original1),
                               _np(t.parametrizations.weight.original1))
    assert_same_error(
        lambda: G.nn.utils.parametrize.remove_parametrizations(g, "weight", False),
        lambda: torch.nn.utils.parametrize.remove_parametrizations(t, "weight", False))
    for lib, m in ((torch, t), (G, g)):
        lib.nn.utils.parametrize.remove_parametrizations(m, "weight")
        assert type(m.weight) is lib.nn.Parameter and m.weight.requires_grad


def test_buffer_parametrization_and_cached(torch):
    for lib in (torch, G):
        P = _make_param_classes(lib.nn, lib)
        m = lib.nn.Module()
        m.register_buffer("b", lib.arange(9.0).reshape(3, 3))
        lib.nn.utils.parametrize.register_parametrization(m, "b", P["Symmetric"]())
        assert "parametrizations.b.original" in m.state_dict()
        assert not m.parametrizations.b.original.requires_grad
        calls = []
        m.parametrizations.b[0].register_forward_hook(lambda *a, c=calls: c.append(1))
        with lib.nn.utils.parametrize.cached():
            assert m.b is m.b
        assert len(calls) == 1
        assert m.b is not m.b and len(calls) == 3


def test_copy_and_pickle(torch):
    for lib in (torch, G):
        P = _make_param_classes(lib.nn, lib)
        m = lib.nn.Linear(3, 3)
        lib.nn.utils.parametrize.register_parametrization(m, "weight", P["Symmetric"]())
        c = copy.deepcopy(m)
        assert type(c).__name__ == "ParametrizedLinear"
        np.testing.assert_array_equal(_np(c.weight), _np(m.weight))
        assert c.parametrizations.weight.original is not m.parametrizations.weight.original
    assert_same_error(lambda: pickle.dumps(g_param_module()),
                      lambda: pickle.dumps(t_param_module(torch)))


def g_param_module():
    m = G.nn.Linear(2, 2)
    G.nn.utils.parametrize.register_parametrization(
        m, "weight", _make_param_classes(G.nn, G)["Symmetric"]())
    return m


def t_param_module(torch):
    m = torch.nn.Linear(2, 2)
    torch.nn.utils.parametrize.register_parametrization(
        m, "weight", _make_param_classes(torch.nn, torch)["Symmetric"]())
    return m


def test_transfer(torch):
    for lib in (torch, G):
        P = _make_param_classes(lib.nn, lib)
        a, b = lib.nn.Linear(3, 3), lib.nn.Linear(3, 3)
        lib.nn.utils.parametrize.register_parametrization(a, "weight", P["Symmetric"]())
        lib.nn.utils.parametrize.transfer_parametrizations_and_params(a, b)
        assert b.parametrizations.weight.original is a.parametrizations.weight.original
        np.testing.assert_array_equal(_np(b.weight), _np(a.weight))


@pytest.mark.parametrize("fn", [
    lambda nn, P: nn.utils.parametrize.register_parametrization(nn.Linear(3, 3), "weight",
                                                                P["Shrink"]()),
    lambda nn, P: nn.utils.parametrize.register_parametrization(nn.Linear(3, 3), "weight",
                                                                P["ToDouble"]()),
    lambda nn, P: nn.utils.parametrize.register_parametrization(nn.Linear(3, 3), "nope",
                                                                P["Symmetric"]()),
    lambda nn, P: nn.utils.parametrize.remove_parametrizations(nn.Linear(3, 3), "weight"),
    lambda nn, P: nn.utils.parametrize.ParametrizationList([], nn.Parameter()),
    lambda nn, P: setattr(nn.utils.parametrize.register_parametrization(
        nn.Linear(3, 3), "weight", P["NoInverse"]()), "weight", nn.Parameter()),
    lambda nn, P: nn.utils.parametrize.register_parametrization(
        nn.utils.parametrize.register_parametrization(nn.Linear(3, 3), "weight",
                                                      P["Symmetric"]()), "weight",
        P["Shrink"]()),
], ids=["shape", "dtype", "missing", "remove_missing", "empty_list", "no_right_inverse",
        "chained_shape"])
def test_parametrize_errors(torch, fn):
    assert_same_error(lambda: fn(G.nn, _make_param_classes(G.nn, G)),
                      lambda: fn(torch.nn, _make_param_classes(torch.nn, torch)))


# --------------------------------------------------------------------------------------------
# parametrizations.weight_norm / spectral_norm
# --------------------------------------------------------------------------------------------

WN = [
    ("linear", lambda nn: nn.Linear(4, 3), 0, (2, 4)),
    ("linear_dim1", lambda nn: nn.Linear(4, 3), 1, (2, 4)),
    ("linear_none", lambda nn: nn.Linear(4, 3), None, (2, 4)),
    ("conv_dim1", lambda nn: nn.Conv2d(2, 3, 2), 1, (1, 2, 4, 4)),
    ("conv_dim0", lambda nn: nn.Conv1d(2, 3, 3), 0, (2, 2, 5)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("make, dim, shape", [c[1:] for c in WN], ids=[c[0] for c in WN])
def test_weight_norm_parametrization(torch, make, dim, shape, dtype):
    def build(nn, lib, P):
        return nn.utils.parametrizations.weight_norm(make(nn), dim=dim)

    g, t = _both(torch, build, dtype)
    assert repr(g) == norm(repr(t))
    assert list(g.state_dict()) == list(t.state_dict())
    assert g.weight.grad_fn.name() == t.weight.grad_fn.name()
    _check_step(torch, g, t, r(*shape), dtype)


def test_weight_norm_parametrization_loads_hook_checkpoint(torch):
    torch.manual_seed(0)
    old = torch.nn.utils.weight_norm(torch.nn.Linear(4, 3))
    sd = {k: G.tensor(_np(v)) for k, v in old.state_dict().items()}
    m = G.nn.utils.parametrizations.weight_norm(G.nn.Linear(4, 3))
    res = m.load_state_dict(sd)
    assert not res.missing_keys and not res.unexpected_keys
    np.testing.assert_allclose(_np(m.weight), _np(old.weight), rtol=1e-6)


SN = [
    ("linear", lambda nn: nn.Linear(5, 4), {}, (2, 5)),
    ("conv_iters", lambda nn: nn.Conv2d(2, 3, 2), dict(n_power_iterations=3), (1, 2, 4, 4)),
    ("convT_dim", lambda nn: nn.ConvTranspose2d(3, 2, 2), {}, (1, 3, 3, 3)),
    ("linear_dim1_eps", lambda nn: nn.Linear(5, 4), dict(dim=1, eps=1e-6), (2, 5)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("make, kw, shape", [c[1:] for c in SN], ids=[c[0] for c in SN])
def test_spectral_norm_parametrization(torch, make, kw, shape, dtype):
    """Same seed: the same random u, v and the same power iterations; three training
    forwards (each iterating), then an eval forward."""
    t = make(torch.nn)
    g = make(G.nn)
    if dtype == "float64":
        t, g = t.double(), g.double()
    copy_state(g, t)
    torch.manual_seed(12)
    torch.nn.utils.parametrizations.spectral_norm(t, **kw)
    G.manual_seed(12)
    G.nn.utils.parametrizations.spectral_norm(g, **kw)
    assert repr(g) == norm(repr(t))
    for _ in range(3):
        for m in (g, t):
            m.zero_grad()
        _check_step(torch, g, t, r(*shape), dtype)
    g.eval()
    t.eval()
    _check_step(torch, g, t, r(*shape, seed=3), dtype)


def test_spectral_norm_1d_and_errors(torch):
    for lib in (torch, G):
        m = lib.nn.Module()
        m.w = lib.nn.Parameter(lib.tensor([3.0, 4.0]))
        lib.nn.utils.parametrizations.spectral_norm(m, "w")
        np.testing.assert_allclose(_np(m.w), [0.6, 0.8], rtol=1e-6)
    for fn in (lambda nn: nn.utils.parametrizations.spectral_norm(nn.Linear(2, 2), dim=2),
               lambda nn: nn.utils.parametrizations.spectral_norm(nn.Linear(2, 2),
                                                                  n_power_iterations=0),
               lambda nn: nn.utils.parametrizations.spectral_norm(nn.Linear(2, 2), "nope")):
        assert_same_error(lambda f=fn: f(G.nn), lambda f=fn: f(torch.nn))


# --------------------------------------------------------------------------------------------
# hook-based weight_norm / spectral_norm
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("make, dim, shape", [c[1:] for c in WN], ids=[c[0] for c in WN])
def test_weight_norm_hook(torch, make, dim, shape, dtype):
    def build(nn, lib, P):
        return nn.utils.weight_norm(make(nn), dim=dim)

    assert_same_warning(lambda: build(G.nn, G, None), lambda: build(torch.nn, torch, None))
    g, t = _both(torch, build, dtype)
    assert repr(g) == norm(repr(t))
    assert list(g.state_dict()) == list(t.state_dict())
    _check_step(torch, g, t, r(*shape), dtype)
    assert g.weight.grad_fn.name() == t.weight.grad_fn.name()
    for lib, m in ((torch, t), (G, g)):
        lib.nn.utils.remove_weight_norm(m)
        assert type(m.weight) is lib.nn.Parameter and list(m._parameters) == ["bias", "weight"]
    np.testing.assert_allclose(_np(g.weight), _np(t.weight), **TOL[dtype])


def test_weight_norm_hook_errors(torch):
    def twice(nn):
        m = nn.utils.weight_norm(nn.Linear(2, 2))
        nn.utils.weight_norm(m)

    for fn in (twice,
               lambda nn: nn.utils.weight_norm(nn.LazyLinear(2)),
               lambda nn: nn.utils.remove_weight_norm(nn.Linear(2, 2))):
        assert_same_error(lambda f=fn: f(G.nn), lambda f=fn: f(torch.nn))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("make, kw, shape", [c[1:] for c in SN], ids=[c[0] for c in SN])
def test_spectral_norm_hook(torch, make, kw, shape, dtype):
    t, g = make(torch.nn), make(G.nn)
    if dtype == "float64":
        t, g = t.double(), g.double()
    copy_state(g, t)
    torch.manual_seed(22)
    torch.nn.utils.spectral_norm(t, **kw)
    G.manual_seed(22)
    G.nn.utils.spectral_norm(g, **kw)
    assert repr(g) == norm(repr(t))
    sd_t, sd_g = t.state_dict(), g.state_dict()
    assert list(sd_g) == list(sd_t)
    assert sd_g._metadata[""] == sd_t._metadata[""]
    for _ in range(2):
        for m in (g, t):
            m.zero_grad()
        _check_step(torch, g, t, r(*shape), dtype, ())
    g.eval()
    t.eval()
    _check_step(torch, g, t, r(*shape, seed=3), dtype, ())
    for lib, m in ((torch, t), (G, g)):
        lib.nn.utils.remove_spectral_norm(m)
        assert type(m.weight) is lib.nn.Parameter
        assert len(m._load_state_dict_pre_hooks) == 1 and not m._state_dict_hooks
    np.testing.assert_allclose(_np(g.weight), _np(t.weight), **TOL[dtype])


def test_spectral_norm_hook_version0_checkpoint(torch):
    """A checkpoint without metadata, with `weight` and without `weight_v` (PyTorch < 1.0):
    v is solved for from the saved sigma."""
    torch.manual_seed(3)
    t = torch.nn.utils.spectral_norm(torch.nn.Linear(4, 3).double())
    t(torch.ones(1, 4, dtype=torch.float64))
    sd = dict(t.state_dict())
    sd["weight"] = t.weight.detach()
    del sd["weight_v"]
    t2 = torch.nn.utils.spectral_norm(torch.nn.Linear(4, 3).double())
    g2 = G.nn.utils.spectral_norm(G.nn.Linear(4, 3).double())
    t2.load_state_dict(dict(sd))
    g2.load_state_dict({k: G.tensor(_np(v)) for k, v in sd.items()})
    np.testing.assert_allclose(_np(g2.weight_v), _np(t2.weight_v), rtol=1e-8, atol=1e-10)
    t2.eval()
    g2.eval()
    x = r(2, 4)
    np.testing.assert_allclose(_np(g2(G.tensor(x))), _np(t2(torch.tensor(x))), rtol=1e-8)


def test_spectral_norm_hook_errors(torch):
    def twice(nn):
        m = nn.utils.spectral_norm(nn.Linear(2, 2))
        nn.utils.spectral_norm(m)

    def none_weight(nn):
        m = nn.Linear(2, 2)
        m.weight = None
        nn.utils.spectral_norm(m)

    for fn in (twice, none_weight,
               lambda nn: nn.utils.spectral_norm(nn.LazyLinear(2)),
               lambda nn: nn.utils.spectral_norm(nn.Linear(2, 2), n_power_iterations=0),
               lambda nn: nn.utils.remove_spectral_norm(nn.Linear(2, 2))):
        assert_same_error(lambda f=fn: f(G.nn), lambda f=fn: f(torch.nn))


# --------------------------------------------------------------------------------------------
# fusion
# --------------------------------------------------------------------------------------------

FUSE = [
    ("conv", lambda nn: (nn.Conv2d(2, 3, 2), nn.BatchNorm2d(3)), False, (2, 2, 4, 4)),
    ("conv_nobias_noaffine", lambda nn: (nn.Conv1d(2, 3, 2, bias=False),
                                         nn.BatchNorm1d(3, affine=False)), False, (2, 2, 5)),
    ("convT", lambda nn: (nn.ConvTranspose2d(2, 3, 2), nn.BatchNorm2d(3)), True, (2, 2, 3, 3)),
    ("linear", lambda nn: (nn.Linear(4, 3), nn.BatchNorm1d(3)), None, (5, 4)),
    ("linear_bn1", lambda nn: (nn.Linear(4, 1, bias=False), nn.BatchNorm1d(1)), None, (5, 4)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("make, transpose, shape", [c[1:] for c in FUSE],
                         ids=[c[0] for c in FUSE])
def test_fusion(torch, make, transpose, shape, dtype):
    outs = {}
    for name, lib in (("torch", torch), ("gradrs", G)):
        lib.manual_seed(4)
        layer, bn = make(lib.nn)
        if dtype == "float64":
            layer, bn = layer.double(), bn.double()
        with lib.no_grad():  # non-trivial running statistics
            bn.running_mean.uniform_(-1, 1)
            bn.running_var.uniform_(0.5, 2)
            if bn.weight is not None:
                bn.weight.uniform_(0.5, 2)
                bn.bias.uniform_(-1, 1)
        layer.eval()
        bn.eval()
        if transpose is None:
            fused = lib.nn.utils.fuse_linear_bn_eval(layer, bn)
        else:
            fused = lib.nn.utils.fuse_conv_bn_eval(layer, bn, transpose=transpose)
        x = lib.tensor(r(*shape), dtype=getattr(lib, dtype))
        outs[name] = (fused, fused(x), bn(layer(x)), layer)
    (gf, go, gref, gl), (tf, to, _, _) = outs["gradrs"], outs["torch"]
    assert gf is not gl and repr(gf) == norm(repr(tf))
    assert type(gf.weight) is G.nn.Parameter
    assert gf.bias.requires_grad == tf.bias.requires_grad
    np.testing.assert_allclose(_np(go), _np(to), **TOL[dtype])
    np.testing.assert_allclose(_np(go), _np(gref), rtol=1e-4 if dtype == "float32" else 1e-10,
                               atol=1e-5 if dtype == "float32" else 1e-12)


def test_fusion_errors(torch):
    for fn in (lambda nn: nn.utils.fuse_conv_bn_eval(nn.Conv2d(1, 2, 1), nn.BatchNorm2d(2)),
               lambda nn: nn.utils.fuse_linear_bn_eval(nn.Linear(2, 3).eval(),
                                                       nn.BatchNorm1d(2).eval()),
               lambda nn: nn.utils.fuse_conv_bn_eval(
                   nn.Conv2d(1, 2, 1).eval(),
                   nn.BatchNorm2d(2, track_running_stats=False).eval())):
        assert_same_error(lambda f=fn: f(G.nn), lambda f=fn: f(torch.nn))
