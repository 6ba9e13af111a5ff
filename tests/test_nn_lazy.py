"""Differential tests of the lazy modules (LazyLinear, LazyConv*/LazyConvTranspose*,
LazyBatchNorm*, LazyInstanceNorm*) and of UninitializedParameter / UninitializedBuffer against
PyTorch: reprs before and after the first call, the class they become, state_dict keys and
entries, the default initialisation drawn from the same seed, outputs and gradients with
PyTorch's parameters copied in, checkpoints loaded both ways, dtype conversion before the
first call, copies, pickling and errors."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from conftest import G, assert_same_error, norm
from test_nn_layers import TOL, _np, compare_module, r

pytestmark = [
    pytest.mark.usefixtures("restore_grad_mode"),
    # The affine-free InstanceNorm of 0 features warns at every call, in both libraries.
    pytest.mark.filterwarnings("ignore:input's size at dim=1 does not match num_features"),
]

# (id, make(nn), input shape) for every lazy class.
LAZY = [
    ("linear", lambda nn: nn.LazyLinear(3), (4, 5)),
    ("linear_nobias_3d", lambda nn: nn.LazyLinear(2, bias=False), (2, 3, 4)),
    ("conv1d", lambda nn: nn.LazyConv1d(4, 3, stride=2, padding=1), (2, 3, 9)),
    ("conv2d", lambda nn: nn.LazyConv2d(6, (3, 2), groups=2, padding_mode="reflect",
                                        padding=1), (2, 4, 5, 6)),
    ("conv2d_unbatched", lambda nn: nn.LazyConv2d(3, 2, bias=False), (2, 5, 5)),
    ("conv3d", lambda nn: nn.LazyConv3d(2, 2, dilation=(1, 2, 1)), (1, 3, 4, 5, 4)),
    ("convT1d", lambda nn: nn.LazyConvTranspose1d(3, 3, stride=2, output_padding=1),
     (2, 4, 5)),
    ("convT2d", lambda nn: nn.LazyConvTranspose2d(4, 2, groups=2, dilation=2), (2, 2, 3, 4)),
    ("bn1d", lambda nn: nn.LazyBatchNorm1d(), (5, 3)),
    ("bn2d", lambda nn: nn.LazyBatchNorm2d(eps=1e-3, momentum=None), (2, 3, 4, 4)),
    ("bn3d_noaffine", lambda nn: nn.LazyBatchNorm3d(affine=False), (2, 3, 2, 3, 2)),
    ("bn1d_nostats", lambda nn: nn.LazyBatchNorm1d(track_running_stats=False), (4, 3, 2)),
    ("bn2d_nobias", lambda nn: nn.LazyBatchNorm2d(bias=False), (2, 3, 2, 2)),
    ("in1d", lambda nn: nn.LazyInstanceNorm1d(), (2, 3, 6)),
    ("in2d", lambda nn: nn.LazyInstanceNorm2d(affine=False, track_running_stats=False),
     (2, 3, 4, 4)),
    ("in3d", lambda nn: nn.LazyInstanceNorm3d(momentum=0.2), (2, 3, 2, 3, 2)),
]
IDS = [c[0] for c in LAZY]


def _sd_repr(sd):
    return {k: repr(v) if type(v).__name__.startswith("Uninitialized") else tuple(v.shape)
            for k, v in sd.items()}


@pytest.mark.parametrize("make, shape", [c[1:] for c in LAZY], ids=IDS)
def test_before_and_after_first_call(torch, make, shape):
    """Repr, state_dict and class before the call; after it the plain class with the same
    repr, state_dict shapes, and (same seed) the same initial values as PyTorch's."""
    t_mod, g_mod = make(torch.nn), make(G.nn)
    assert repr(g_mod) == norm(repr(t_mod))
    assert _sd_repr(g_mod.state_dict()) == _sd_repr(t_mod.state_dict())
    assert g_mod.has_uninitialized_params() == t_mod.has_uninitialized_params()
    x = r(*shape)
    # Each library seeded right before its call (so this also runs torch against itself).
    torch.manual_seed(3)
    to = t_mod(torch.tensor(x, dtype=torch.float32))
    G.manual_seed(3)
    go = g_mod(G.tensor(x, dtype=G.float32))
    assert type(g_mod).__name__ == type(t_mod).__name__
    assert type(g_mod) is getattr(G.nn, type(t_mod).__name__)
    assert repr(g_mod) == norm(repr(t_mod))
    assert not g_mod._forward_pre_hooks and not g_mod._load_state_dict_pre_hooks
    assert not hasattr(g_mod, "_initialize_hook")
    t_sd, g_sd = t_mod.state_dict(), g_mod.state_dict()
    assert list(g_sd) == list(t_sd)
    for k in t_sd:
        assert type(g_sd[k]) is G.Tensor, k
        np.testing.assert_allclose(_np(g_sd[k]), _np(t_sd[k]), rtol=1e-6, atol=1e-7,
                                   err_msg=k)
    for name, p in g_mod.named_parameters():
        assert type(p) is G.nn.Parameter and p.requires_grad and p.is_leaf, name
    np.testing.assert_allclose(_np(go), _np(to), **TOL["float32"])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("make, shape", [c[1:] for c in LAZY], ids=IDS)
def test_values_and_gradients(torch, make, shape, dtype):
    """Initialised by a first call, then PyTorch's parameters copied in: outputs and input
    and parameter gradients (compare_module casts both to ``dtype`` after building them)."""
    def build(nn):
        m = make(nn)
        m((torch if nn is torch.nn else G).zeros(shape))
        return m

    compare_module(torch, build, [r(*shape, seed=1)], dtype)


@pytest.mark.parametrize("make, shape", [c[1:] for c in LAZY], ids=IDS)
def test_double_before_first_call(torch, make, shape):
    """Converted before the call, the module materializes in the new dtype."""
    t_mod, g_mod = make(torch.nn).double(), make(G.nn).double()
    assert type(g_mod.weight).__name__ == type(t_mod.weight).__name__
    t_mod(torch.zeros(shape, dtype=torch.float64))
    g_mod(G.zeros(shape, dtype=G.float64))
    for (kt, vt), (kg, vg) in zip(t_mod.state_dict().items(), g_mod.state_dict().items()):
        assert kg == kt and str(vg.dtype) == norm(str(vt.dtype)), kt


@pytest.mark.parametrize("make, shape", [c[1:] for c in LAZY], ids=IDS)
def test_load_initialized_into_lazy(torch, make, shape):
    """A state_dict of an initialized module materializes the lazy one's tensors at load
    (the module stays lazy until its first call, which keeps the loaded values)."""
    t_full = make(torch.nn)
    t_full(torch.zeros(shape))
    sd = t_full.state_dict()
    t_lazy, g_lazy = make(torch.nn), make(G.nn)
    res_t = t_lazy.load_state_dict(sd)
    res_g = g_lazy.load_state_dict({k: G.tensor(_np(v)) for k, v in sd.items()})
    assert (res_g.missing_keys, res_g.unexpected_keys) == (res_t.missing_keys,
                                                           res_t.unexpected_keys)
    assert type(g_lazy).__name__ == type(t_lazy).__name__
    assert repr(g_lazy) == norm(repr(t_lazy))
    assert g_lazy.has_uninitialized_params() == t_lazy.has_uninitialized_params()
    x = r(*shape, seed=2)
    if "InstanceNorm" in type(t_lazy).__name__ and t_lazy.affine:
        # PyTorch's loaded lazy InstanceNorm keeps num_features=0 and its forward then
        # refuses the input; the same here.
        assert_same_error(lambda: g_lazy(G.tensor(x, dtype=G.float32)),
                          lambda: t_lazy(torch.tensor(x, dtype=torch.float32)))
        return
    to = t_lazy(torch.tensor(x, dtype=torch.float32))
    go = g_lazy(G.tensor(x, dtype=G.float32))
    assert repr(g_lazy) == norm(repr(t_lazy))
    np.testing.assert_allclose(_np(go), _np(to), **TOL["float32"])
    for k, v in t_lazy.state_dict().items():
        np.testing.assert_allclose(_np(g_lazy.state_dict()[k]), _np(v), rtol=1e-6, atol=1e-7)


def test_lazy_state_dict_into_lazy_and_initialized(torch):
    # Lazy into lazy: nothing materializes, nothing is missing.
    for lib in (torch, G):
        a, b = lib.nn.LazyLinear(3), lib.nn.LazyLinear(3)
        res = a.load_state_dict(b.state_dict())
        assert not res.missing_keys and not res.unexpected_keys
        assert a.has_uninitialized_params()
    # An uninitialized one into an initialized module: PyTorch's shape error escapes.

    def load(lib):
        m = lib.nn.Linear(2, 3)
        m.load_state_dict(lib.nn.LazyLinear(3).state_dict())

    assert_same_error(lambda: load(G), lambda: load(torch))


def test_loaded_in_features_mismatch(torch):
    def run(lib):
        m = lib.nn.LazyLinear(3)
        m.load_state_dict(lib.nn.Linear(4, 3).state_dict())
        m(lib.zeros(2, 5))

    assert_same_error(lambda: run(G), lambda: run(torch))


@pytest.mark.parametrize("fn", [
    lambda nn, lib: nn.LazyConv2d(4, 3, groups=2)(lib.zeros(1, 3, 5, 5)),
    lambda nn, lib: nn.LazyConv2d(4, 3)(lib.zeros(5, 5)),
    lambda nn, lib: nn.LazyConvTranspose1d(4, 3)(lib.zeros(1, 2, 3, 5)),
    lambda nn, lib: nn.LazyBatchNorm2d()(lib.zeros(2, 3)),
    lambda nn, lib: nn.LazyInstanceNorm1d()(lib.zeros(2, 3, 4, 5)),
    lambda nn, lib: nn.LazyConv2d(4, 3, stride=2, padding="same"),
    lambda nn, lib: nn.LazyConvTranspose2d(4, 3, padding_mode="reflect"),
    lambda nn, lib: nn.UninitializedParameter().shape,
    lambda nn, lib: nn.UninitializedBuffer().shape,
    lambda nn, lib: nn.UninitializedParameter().share_memory_(),
    lambda nn, lib: nn.modules.lazy.LazyModuleMixin.initialize_parameters(nn.Linear(1, 1)),
], ids=["groups", "rank", "convT_rank", "bn_rank", "in_rank", "same_strided", "convT_mode",
        "param_shape", "buffer_shape", "share_memory", "not_implemented"])
def test_errors(torch, fn):
    assert_same_error(lambda: fn(G.nn, G), lambda: fn(torch.nn, torch))


def test_uninitialized_tensors(torch):
    for lib in (torch, G):
        p = lib.nn.UninitializedParameter()
        b = lib.nn.UninitializedBuffer(dtype=lib.float64, persistent=False)
        assert repr(p) == str(p) == "<UninitializedParameter>"
        assert repr(b) == "<UninitializedBuffer>"
        assert isinstance(p, lib.nn.Parameter) and isinstance(b, lib.nn.Buffer)
        assert not isinstance(b, lib.nn.Parameter)
        assert p.requires_grad and not b.requires_grad and p.is_leaf
        assert b.dtype == lib.float64 and b.persistent is False
        assert lib.nn.parameter.is_lazy(p) and lib.nn.parameter.is_lazy(b)
        assert not lib.nn.parameter.is_lazy(lib.nn.Parameter(lib.zeros(1)))
        assert tuple(p.size()) == (0,)
        q = lib.nn.UninitializedParameter(requires_grad=False, dtype=lib.float64)
        c = copy.deepcopy(q)
        assert type(c) is type(q) and not c.requires_grad and c.dtype == lib.float64
        u = pickle.loads(pickle.dumps(q))
        assert type(u) is type(q) and not u.requires_grad
        p.materialize((2, 3), dtype=lib.float64)
        assert type(p) is lib.nn.Parameter and tuple(p.shape) == (2, 3)
        assert p.dtype == lib.float64 and p.requires_grad and p.is_leaf
        b.materialize((4,))
        assert type(b) is lib.Tensor and tuple(b.shape) == (4,) and b.dtype == lib.float64


def test_module_copies_and_registration(torch):
    for lib in (torch, G):
        m = lib.nn.Sequential(lib.nn.LazyLinear(4), lib.nn.ReLU(), lib.nn.LazyLinear(2))
        c = copy.deepcopy(m)
        assert type(c[0]).__name__ == "LazyLinear" and c[0].has_uninitialized_params()
        assert [n for n, _ in m.named_parameters()] == ["0.weight", "0.bias", "2.weight",
                                                        "2.bias"]
        bn = lib.nn.LazyBatchNorm1d()
        assert list(bn._buffers) == ["running_mean", "running_var", "num_batches_tracked"]
        c(lib.zeros(3, 5))
        assert type(c[0]).__name__ == "Linear" and type(m[0]).__name__ == "LazyLinear"
        assert tuple(c[2].weight.shape) == (2, 4)


def test_training_step_after_first_call(torch):
    """A lazy model, an optimizer built after the dry run, three SGD steps: same losses."""
    losses = {}
    for name, lib in (("torch", torch), ("gradrs", G)):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.LazyConv2d(4, 3), lib.nn.LazyBatchNorm2d(),
                                  lib.nn.ReLU(), lib.nn.Flatten(), lib.nn.LazyLinear(3))
        x = lib.tensor(r(4, 2, 6, 6), dtype=lib.float32)
        y = lib.tensor([0, 1, 2, 1])
        model(x)
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        out = []
        for _ in range(3):
            opt.zero_grad()
            loss = lib.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            out.append(loss.item())
        losses[name] = out
    np.testing.assert_allclose(losses["gradrs"], losses["torch"], rtol=1e-5)


def test_deepcopy_uninitialized_buffer(torch):
    """PyTorch refuses to deep-copy an UninitializedBuffer (a lazy norm before its first call)
    through __torch_function__; the same ValueError here, the function's repr aside."""
    import re

    errors = []
    for lib in (torch, G):
        with pytest.raises(ValueError) as info:
            copy.deepcopy(lib.nn.LazyBatchNorm1d())
        errors.append(re.sub(r"<[^>]*>", "<fn>", str(info.value)))
    assert errors[1] == norm(errors[0])
