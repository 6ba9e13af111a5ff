"""gradrs.compile(module) against torch 2.13's eager backend: the OptimizedModule wrapper (its
repr, `_orig_mod.`-prefixed state_dict and parameter names, attribute forwarding, training
flag, len, deepcopy/pickle), the call running the module, and disable=True returning it."""

from __future__ import annotations

import copy
import pickle

import pytest
from conftest import G, norm


def _model(m):
    m.manual_seed(0)
    return m.nn.Sequential(m.nn.Linear(3, 4), m.nn.ReLU(), m.nn.Linear(4, 2))


def _compiled(m, **kw):
    return m.compile(_model(m), backend="eager", **kw)


def test_wrapper_matches_torch(torch):
    def look(m):
        mod = _model(m)
        c = m.compile(mod, backend="eager")
        out = [repr(c), type(c).__name__, list(c.state_dict()), [n for n, _ in c.named_modules()],
               [n for n, _ in c.named_parameters()], c.training, len(c), c._orig_mod is mod]
        c.eval()
        out += [mod.training, c.training]
        c.extra = 5
        out += [mod.extra, "extra" in c.__dict__, c.in_features if hasattr(c, "in_features")
                else None]
        del c.extra
        out.append(hasattr(mod, "extra"))
        out.append(repr(c.load_state_dict(mod.state_dict(), strict=False)))
        out.append(repr(c.load_state_dict(c.state_dict())))
        return out

    g, t = look(G), look(torch)
    assert [norm(x) if isinstance(x, str) else x for x in t] == g


def test_call_runs_the_module():
    c = _compiled(G)
    x = G.ones(2, 3)
    assert G.equal(c(x), c._orig_mod(x))
    calls = []
    c.register_forward_hook(lambda mod, inp, out: calls.append(type(mod).__name__))
    c._orig_mod.register_forward_hook(lambda mod, inp, out: calls.append(type(mod).__name__))
    c(x).sum().backward()
    assert calls == ["Sequential", "OptimizedModule"]
    assert c._orig_mod[0].weight.grad is not None


def test_copy_and_pickle():
    c = _compiled(G)
    for d in (copy.deepcopy(c), pickle.loads(pickle.dumps(c))):
        assert type(d).__name__ == "OptimizedModule"
        assert list(d.state_dict()) == list(c.state_dict())
        assert G.equal(d(G.ones(1, 3)), c(G.ones(1, 3)))


def test_len_error_and_disable(torch):
    def run(m):
        c = m.compile(m.nn.Linear(2, 2), backend="eager")
        with pytest.raises(TypeError) as e:
            len(c)
        return str(e.value), type(m.compile(m.nn.Linear(2, 2), disable=True)).__name__

    assert run(G) == run(torch)


def test_lazy_module_initializes_through_the_wrapper():
    c = G.compile(G.nn.LazyLinear(3), backend="eager")
    assert c(G.ones(2, 5)).shape == (2, 3)
    assert c._orig_mod.weight.shape == (3, 5)
    assert type(c._orig_mod).__name__ == "Linear"
