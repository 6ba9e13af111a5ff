"""Differential tests of gradrs.nn.utils.prune against PyTorch: the masks of every pruning
method (the random ones from the same seed), chained pruning through PruningContainer, global
pruning, the pruned module's parameters, buffers, state_dict, forward and gradients, remove,
is_pruned, and errors."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from conftest import G, GNAME, assert_same_error
from test_nn_layers import TOL, _np, copy_state, r

gprune = importlib.import_module(f"{GNAME}.nn.utils.prune")

pytestmark = pytest.mark.usefixtures("restore_grad_mode")


def _prune_mod(lib):
    if lib is G:
        return gprune
    import torch.nn.utils.prune as tprune

    return tprune


STEPS = [
    ("identity", [lambda p, m: p.identity(m, "weight")]),
    ("random_unstructured", [lambda p, m: p.random_unstructured(m, "weight", amount=0.3)]),
    ("random_unstructured_int", [lambda p, m: p.random_unstructured(m, "bias", amount=2)]),
    ("l1_unstructured", [lambda p, m: p.l1_unstructured(m, "weight", amount=0.4)]),
    ("l1_importance", [lambda p, m: p.l1_unstructured(
        m, "weight", amount=5, importance_scores=m.weight.detach().flip(0))]),
    ("random_structured", [lambda p, m: p.random_structured(m, "weight", amount=0.5, dim=0)]),
    ("ln_structured", [lambda p, m: p.ln_structured(m, "weight", amount=2, n=2, dim=1)]),
    ("ln_structured_inf", [lambda p, m: p.ln_structured(m, "weight", amount=0.34,
                                                        n=float("inf"), dim=-1)]),
    ("custom", [lambda p, m: p.custom_from_mask(m, "bias", mask=(m.bias.detach() > 0))]),
    ("chain", [lambda p, m: p.l1_unstructured(m, "weight", amount=0.2),
               lambda p, m: p.ln_structured(m, "weight", amount=1, n=1, dim=0),
               lambda p, m: p.random_unstructured(m, "weight", amount=0.25)]),
    ("chain_structured", [lambda p, m: p.random_structured(m, "weight", amount=1, dim=1),
                          lambda p, m: p.random_structured(m, "weight", amount=1, dim=1)]),
]


def _run_both(torch, steps, dtype="float32"):
    out = {}
    for name, lib in (("torch", torch), ("gradrs", G)):
        lib.manual_seed(5)
        m = lib.nn.Linear(6, 4)
        if dtype == "float64":
            m = m.double()
        out[name] = m
    copy_state(out["gradrs"], out["torch"])
    for name, lib in (("torch", torch), ("gradrs", G)):
        lib.manual_seed(6)
        for step in steps:
            step(_prune_mod(lib), out[name])
    return out["gradrs"], out["torch"]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("steps", [s[1] for s in STEPS], ids=[s[0] for s in STEPS])
def test_prune(torch, steps, dtype):
    g, t = _run_both(torch, steps, dtype)
    assert [n for n, _ in g.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert [n for n, _ in g.named_buffers()] == [n for n, _ in t.named_buffers()]
    assert list(g.state_dict()) == list(t.state_dict())
    for n, b in t.named_buffers():
        np.testing.assert_array_equal(_np(dict(g.named_buffers())[n]), _np(b), err_msg=n)
        assert str(dict(g.named_buffers())[n].dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
    assert gprune.is_pruned(g) and _prune_mod(torch).is_pruned(t)
    hooks_g = [type(h).__name__ for h in g._forward_pre_hooks.values()]
    assert hooks_g == [type(h).__name__ for h in t._forward_pre_hooks.values()]
    x = r(3, 6)
    to = t(torch.tensor(x, dtype=getattr(torch, dtype)))
    go = g(G.tensor(x, dtype=getattr(G, dtype)))
    np.testing.assert_allclose(_np(go), _np(to), **TOL[dtype])
    to.sum().backward()
    go.sum().backward()
    for n, p in t.named_parameters():
        np.testing.assert_allclose(_np(dict(g.named_parameters())[n].grad), _np(p.grad),
                                   err_msg=n, **TOL[dtype])
    for name in {"weight", "bias"} & {n[:-5] for n, _ in t.named_parameters()
                                      if n.endswith("_orig")}:
        _prune_mod(torch).remove(t, name)
        gprune.remove(g, name)
    assert not gprune.is_pruned(g) and not _prune_mod(torch).is_pruned(t)
    assert list(g.state_dict()) == list(t.state_dict())
    for k, v in t.state_dict().items():
        np.testing.assert_allclose(_np(g.state_dict()[k]), _np(v), err_msg=k, **TOL[dtype])
        assert type(getattr(g, k)) is G.nn.Parameter


def test_global_unstructured(torch):
    res = {}
    for name, lib in (("torch", torch), ("gradrs", G)):
        lib.manual_seed(1)
        model = lib.nn.Sequential(lib.nn.Linear(5, 4), lib.nn.ReLU(), lib.nn.Linear(4, 3))
        res[name] = model
    copy_state(res["gradrs"], res["torch"])
    for name, lib in (("torch", torch), ("gradrs", G)):
        p = _prune_mod(lib)
        model = res[name]
        p.l1_unstructured(model[0], "weight", amount=3)
        p.global_unstructured([(model[0], "weight"), (model[2], "weight"), (model[2], "bias")],
                              pruning_method=p.L1Unstructured, amount=0.3)
        lib.manual_seed(3)
        p.global_unstructured([(model[0], "bias"), (model[2], "bias")],
                              pruning_method=p.RandomUnstructured, amount=2)
    g, t = res["gradrs"], res["torch"]
    assert list(g.state_dict()) == list(t.state_dict())
    for k, v in t.state_dict().items():
        np.testing.assert_allclose(_np(g.state_dict()[k]), _np(v), err_msg=k, rtol=1e-6)
    for i in (0, 2):
        hooks_g = list(g[i]._forward_pre_hooks.values())
        hooks_t = list(t[i]._forward_pre_hooks.values())
        assert [type(h).__name__ for h in hooks_g] == [type(h).__name__ for h in hooks_t]
        assert [len(h) if hasattr(h, "__len__") else 0 for h in hooks_g] == [
            len(h) if hasattr(h, "__len__") else 0 for h in hooks_t]


def test_prune_method_objects(torch):
    for lib in (torch, G):
        p = _prune_mod(lib)
        t = lib.tensor([[1.0, -3.0, 2.0], [0.5, 4.0, -0.1]])
        pruned = p.L1Unstructured(amount=2).prune(t)
        np.testing.assert_array_equal(_np(pruned), [[1.0, -3.0, 2.0], [0.0, 4.0, 0.0]])
        c = p.PruningContainer()
        c._tensor_name = "w"
        m = p.Identity()
        m._tensor_name = "w"
        c.add_pruning_method(m)
        assert len(c) == 1 and c[0] is m and list(c) == [m]


ERRORS = [
    lambda p, nn: p.l1_unstructured(nn.Linear(2, 2), "weight", amount=1.5),
    lambda p, nn: p.l1_unstructured(nn.Linear(2, 2), "weight", amount=-1),
    lambda p, nn: p.l1_unstructured(nn.Linear(2, 2), "weight", amount="a"),
    lambda p, nn: p.l1_unstructured(nn.Linear(2, 2), "weight", amount=5),
    lambda p, nn: p.ln_structured(nn.Linear(2, 2), "bias", amount=1, n=2, dim=0),
    lambda p, nn: p.ln_structured(nn.Linear(2, 2), "weight", amount=1, n=2, dim=2),
    lambda p, nn: p.remove(nn.Linear(2, 2), "weight"),
    lambda p, nn: p.global_unstructured(3, p.L1Unstructured, amount=1),
    lambda p, nn: p.global_unstructured([], p.L1Unstructured, importance_scores=[], amount=1),
    lambda p, nn: p.global_unstructured([(nn.Linear(2, 2), "weight")], p.LnStructured,
                                        amount=1, n=2, dim=0),
    lambda p, nn: p.l1_unstructured(nn.Linear(2, 2), "weight", amount=1,
                                    importance_scores=nn.Linear(3, 2).weight),
    lambda p, nn: p.PruningContainer(p.Identity(), 3),
]


@pytest.mark.parametrize("fn", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_errors(torch, fn):
    def run(lib):
        m = fn(_prune_mod(lib), lib.nn)
        return m

    assert_same_error(lambda: run(G), lambda: run(torch))
