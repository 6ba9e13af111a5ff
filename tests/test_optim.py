"""`gradrs.optim` against PyTorch: 20 steps of every optimizer over a grid of options give the
same parameters (float32 and float64), state_dicts with the same structure and values, load
round trips that continue identically, the same reprs, errors and warnings; plus checks of
the base class (groups, zero_grad, closures, hooks) that need no torch."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from conftest import SELFTEST, G, check_error, check_warning, norm

pytestmark = pytest.mark.usefixtures("restore_grad_mode")

rng = np.random.default_rng(0)
W0 = rng.standard_normal((4, 3))
B0 = rng.standard_normal(3)
X = rng.standard_normal((6, 4))
Y = rng.standard_normal((6, 3))
# A convex quadratic plus a quartic term for LBFGS, whose line search amplifies the rounding
# differences of a non-convex loss.
_M = rng.standard_normal((5, 5))
A = _M @ _M.T + np.eye(5)
BV = rng.standard_normal(5)
V0 = rng.standard_normal(5)

TOL = {"float32": {"rtol": 1e-5, "atol": 1e-6}, "float64": {"rtol": 1e-12, "atol": 1e-12}}

OPTIONS = {
    "SGD": [
        {"lr": 0.05},
        {"lr": 0.05, "momentum": 0.9},
        {"lr": 0.05, "momentum": 0.9, "nesterov": True, "weight_decay": 0.1},
        {"lr": 0.05, "momentum": 0.5, "dampening": 0.3, "maximize": True},
        {"lr": 0.05, "weight_decay": 0.01, "foreach": False},
    ],
    "Adam": [
        {"lr": 0.01},
        {"lr": 0.01, "amsgrad": True, "weight_decay": 0.1},
        {"lr": 0.05, "maximize": True, "betas": (0.8, 0.99)},
        {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True},
        {"lr": 0.01, "foreach": False, "fused": None, "eps": 1e-6},
    ],
    "AdamW": [{"lr": 0.01}, {"lr": 0.01, "amsgrad": True, "weight_decay": 0.5}],
    "RMSprop": [
        {"lr": 0.01},
        {"lr": 0.01, "centered": True, "momentum": 0.5, "weight_decay": 0.1},
        {"lr": 0.01, "alpha": 0.9, "eps": 1e-4, "maximize": True},
        {"lr": 0.01, "momentum": 0.9},
    ],
    "Adagrad": [
        {"lr": 0.1},
        {"lr": 0.1, "lr_decay": 0.01, "initial_accumulator_value": 0.1, "weight_decay": 0.1},
        {"lr": 0.1, "maximize": True, "eps": 1e-6},
    ],
    "Adadelta": [{}, {"rho": 0.5, "weight_decay": 0.1, "lr": 0.5}, {"maximize": True}],
    "Adamax": [{}, {"weight_decay": 0.1, "betas": (0.5, 0.9)}, {"maximize": True, "lr": 0.01}],
    "NAdam": [
        {},
        {"weight_decay": 0.1, "momentum_decay": 0.01},
        {"weight_decay": 0.1, "decoupled_weight_decay": True, "lr": 0.01},
        {"maximize": True},
    ],
    "RAdam": [
        {},
        {"weight_decay": 0.1, "lr": 0.01},
        {"weight_decay": 0.1, "decoupled_weight_decay": True, "lr": 0.1},
        {"maximize": True, "betas": (0.9, 0.9)},
    ],
    "Rprop": [
        {},
        {"lr": 0.05, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.2)},
        {"maximize": True},
    ],
    "ASGD": [
        {},
        {"lr": 0.05, "lambd": 1e-3, "alpha": 0.5, "t0": 5, "weight_decay": 0.1},
        {"maximize": True, "t0": 0},
    ],
    "Adafactor": [
        {},
        {"lr": 0.05, "beta2_decay": -0.5, "eps": (1e-6, 1e-2), "d": 1.5, "weight_decay": 0.1},
        {"maximize": True},
    ],
}
GRID = [
    (name, kw, dtype)
    for name, kws in OPTIONS.items()
    for kw in kws
    for dtype in ("float32", "float64")
]


def _params(m, dtype):
    dt = getattr(m, dtype)
    return (
        m.tensor(W0, dtype=dt, requires_grad=True),
        m.tensor(B0, dtype=dt, requires_grad=True),
    )


def _loss(m, w, b, dtype):
    dt = getattr(m, dtype)
    x, y = m.tensor(X, dtype=dt), m.tensor(Y, dtype=dt)
    return ((x.matmul(w) + b).tanh() - y).pow(2).sum()


def _train(m, name, kw, dtype, steps=20, groups=False):
    w, b = _params(m, dtype)
    params = [{"params": [w]}, {"params": [b], "lr": 0.02}] if groups else [w, b]
    opt = getattr(m.optim, name)(params, **kw)
    for _ in range(steps):
        opt.zero_grad()
        _loss(m, w, b, dtype).backward()
        opt.step()
    return opt, [w, b]


def _np(t):
    return np.array(t.detach().numpy(), copy=True)


def _assert_params(gp, tp, dtype):
    for a, b in zip(gp, tp):
        assert a.dtype.__repr__().split(".")[-1] == repr(b.dtype).split(".")[-1]
        np.testing.assert_allclose(_np(a), _np(b), **TOL[dtype])


def _plain(obj):
    """A state_dict with its tensors replaced by (dtype, shape, values), for comparison."""
    if hasattr(obj, "detach") and hasattr(obj, "dtype"):
        return ("tensor", str(obj.dtype).split(".")[-1], tuple(obj.shape), _np(obj))
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_plain(v) for v in obj)
    return obj


def _assert_same_plain(g, t, tol, path="state_dict"):
    assert type(g) is type(t), f"{path}: {type(g)} != {type(t)}"
    if isinstance(t, dict):
        assert list(g) == list(t), f"{path}: keys {list(g)} != {list(t)}"
        for k in t:
            _assert_same_plain(g[k], t[k], tol, f"{path}[{k!r}]")
    elif isinstance(t, tuple) and t and t[0] == "tensor":
        assert g[:3] == t[:3], f"{path}: {g[:3]} != {t[:3]}"
        # State entries are sums of many terms: an element that cancels to a small value keeps
        # the rounding of its large terms, so the absolute tolerance scales with the tensor.
        scale = float(np.abs(t[3]).max()) if t[3].size else 0.0
        atol = tol["atol"] + tol["rtol"] * scale
        np.testing.assert_allclose(g[3], t[3], rtol=tol["rtol"], atol=atol, err_msg=path)
    elif isinstance(t, (list, tuple)):
        assert len(g) == len(t), f"{path}: length {len(g)} != {len(t)}"
        for i, (a, b) in enumerate(zip(g, t)):
            _assert_same_plain(a, b, tol, f"{path}[{i}]")
    else:
        assert g == t, f"{path}: {g!r} != {t!r}"


@pytest.mark.parametrize(("name", "kw", "dtype"), GRID, ids=[f"{n}-{k}-{d}" for n, k, d in GRID])
def test_steps_match_torch(torch, name, kw, dtype):
    gopt, gp = _train(G, name, kw, dtype)
    topt, tp = _train(torch, name, kw, dtype)
    _assert_params(gp, tp, dtype)
    # The state after 20 steps: same keys, nesting, dtypes and values (step counts exact).
    _assert_same_plain(_plain(gopt.state_dict()), _plain(topt.state_dict()), TOL[dtype])


@pytest.mark.parametrize("name", list(OPTIONS))
def test_param_groups_state_dict_and_repr(torch, name):
    kw = OPTIONS[name][1]
    gopt, gp = _train(G, name, kw, "float64", steps=5, groups=True)
    topt, tp = _train(torch, name, kw, "float64", steps=5, groups=True)
    _assert_params(gp, tp, "float64")
    _assert_same_plain(_plain(gopt.state_dict()), _plain(topt.state_dict()), TOL["float64"])
    assert repr(gopt) == norm(repr(topt))


@pytest.mark.parametrize("name", list(OPTIONS))
def test_load_state_dict_round_trip(name):
    """Stopping after 10 steps, loading the state into a fresh optimizer on copies of the
    parameters and going on gives what 20 uninterrupted steps give."""
    kw = OPTIONS[name][1]
    ref_opt, ref_p = _train(G, name, kw, "float64", steps=20)
    opt, params = _train(G, name, kw, "float64", steps=10)
    saved = opt.state_dict()
    w, b = (p.detach().clone().requires_grad_(True) for p in params)
    opt2 = getattr(G.optim, name)([w, b], **kw)
    opt2.load_state_dict(saved)
    for _ in range(10):
        opt2.zero_grad()
        _loss(G, w, b, "float64").backward()
        opt2.step()
    # Equal up to rounding: load_state_dict casts every state tensor but `step` to the
    # parameter's dtype, as PyTorch does (NAdam's float32 `mu_product` becomes float64).
    for a, r in zip([w, b], ref_p):
        np.testing.assert_allclose(_np(a), _np(r), **TOL["float64"])
    # The loaded state is the optimizer's own copy, keyed by the new parameters.
    assert all(any(p is q for q in (w, b)) for p in opt2.state)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "NAdam", "Adagrad"])
def test_load_torch_state_dict_continues_like_torch(torch, name):
    """A PyTorch state_dict (tensors converted through numpy) loaded into gradrs continues as
    PyTorch continues; float64 state is cast to the float32 parameters, `step` kept as saved."""
    kw = OPTIONS[name][1]
    topt, tp = _train(torch, name, kw, "float32", steps=5)
    sd = topt.state_dict()

    def convert(v):
        if isinstance(v, torch.Tensor):
            return G.tensor(v.detach().numpy().astype(np.float64))
        if isinstance(v, dict):
            return {k: convert(x) for k, x in v.items()}
        return v

    gsd = {"state": convert(sd["state"]), "param_groups": sd["param_groups"]}
    gw, gb = (G.tensor(_np(p), requires_grad=True) for p in tp)
    gopt = getattr(G.optim, name)([gw, gb], **kw)
    gopt.load_state_dict(gsd)
    for k, v in gopt.state[gw].items():
        if k == "step":
            assert v.dtype == G.float64  # a float step is kept as it is
        elif isinstance(v, G.Tensor):
            assert v.dtype == G.float32
    for m, opt, (w, b) in ((G, gopt, (gw, gb)), (torch, topt, tp)):
        for _ in range(5):
            opt.zero_grad()
            _loss(m, w, b, "float32").backward()
            opt.step()
    _assert_params([gw, gb], tp, "float32")


# In float32, iterations run on once the gradient is down to rounding noise are driven by that
# noise (gradrs sums float32 in float64, PyTorch in float32), so float32 runs make one step of a
# few iterations; float64 runs make three steps of up to 20.
LBFGS_OPTIONS = [
    {},
    {"line_search_fn": "strong_wolfe", "max_iter": 4},
    {"history_size": 3, "max_iter": 7, "lr": 0.5},
    {"line_search_fn": "strong_wolfe", "max_iter": 5, "tolerance_change": 1e-5},
]


def _lbfgs(m, kw, dtype, steps=3):
    dt = getattr(m, dtype)
    a, bv = m.tensor(A, dtype=dt), m.tensor(BV, dtype=dt)
    x = m.tensor(V0, dtype=dt, requires_grad=True)
    opt = m.optim.LBFGS([x], **kw)
    losses = []

    def closure():
        opt.zero_grad()
        loss = 0.5 * (x * a.matmul(x)).sum() - (bv * x).sum() + 0.01 * (x**4).sum()
        loss.backward()
        return loss

    for _ in range(steps):
        losses.append(float(opt.step(closure).detach()))
    return opt, x, losses


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kw", LBFGS_OPTIONS, ids=str)
def test_lbfgs_matches_torch(torch, kw, dtype):
    steps = 3
    if dtype == "float64" and kw.get("max_iter") == 4:
        kw = {**kw, "max_iter": 20}
    if dtype == "float32":
        steps = 1
        # From the 10th iteration on, this problem's float32 losses differ in the last bit
        # (dot products summed in another order than BLAS's), and the loss-change test stops
        # on that noise.
        kw = {"max_iter": 9, **kw}
    gopt, gx, gl = _lbfgs(G, kw, dtype, steps)
    topt, tx, tl = _lbfgs(torch, kw, dtype, steps)
    np.testing.assert_allclose(_np(gx), _np(tx), **TOL[dtype])
    np.testing.assert_allclose(gl, tl, **TOL[dtype])
    gs, ts = gopt.state_dict()["state"][0], topt.state_dict()["state"][0]
    assert list(gs) == list(ts)
    assert (gs["func_evals"], gs["n_iter"]) == (ts["func_evals"], ts["n_iter"])
    assert len(gs["old_dirs"]) == len(ts["old_dirs"])
    assert repr(gopt) == norm(repr(topt))


def test_lbfgs_without_torch():
    """LBFGS minimizes the convex problem: the gradient at its answer is ~0."""
    _, x, losses = _lbfgs(G, {"line_search_fn": "strong_wolfe"}, "float64", steps=5)
    v = _np(x)
    assert np.abs(A @ v - BV + 0.04 * v**3).max() < 1e-4
    assert losses == sorted(losses, reverse=True)


# --------------------------------------------------------------------------------------------
# the base class
# --------------------------------------------------------------------------------------------


def _p(m):
    return m.ones(2, requires_grad=True)


ERRORS = {
    "lr": lambda m: m.optim.SGD([_p(m)], lr=-1),
    "momentum": lambda m: m.optim.SGD([_p(m)], momentum=-0.5),
    "weight_decay": lambda m: m.optim.SGD([_p(m)], weight_decay=-1),
    "nesterov": lambda m: m.optim.SGD([_p(m)], lr=0.1, nesterov=True),
    "nesterov dampening": lambda m: m.optim.SGD([_p(m)], momentum=0.9, dampening=0.1,
                                                nesterov=True),
    "adam eps": lambda m: m.optim.Adam([_p(m)], eps=-1e-8),
    "adam beta0": lambda m: m.optim.Adam([_p(m)], betas=(1.0, 0.999)),
    "adam beta1": lambda m: m.optim.Adam([_p(m)], betas=(0.9, -0.1)),
    "adam int betas": lambda m: m.optim.Adam([_p(m)], betas=(0, 0.5)),
    "adamw lr": lambda m: m.optim.AdamW([_p(m)], lr=-0.5),
    "rmsprop alpha": lambda m: m.optim.RMSprop([_p(m)], alpha=-1),
    "adagrad lr_decay": lambda m: m.optim.Adagrad([_p(m)], lr_decay=-1),
    "adagrad initial": lambda m: m.optim.Adagrad([_p(m)], initial_accumulator_value=-1),
    "adadelta rho": lambda m: m.optim.Adadelta([_p(m)], rho=1.5),
    "adamax beta": lambda m: m.optim.Adamax([_p(m)], betas=(0.9, 1.0)),
    "nadam momentum_decay": lambda m: m.optim.NAdam([_p(m)], momentum_decay=-1),
    "radam wd": lambda m: m.optim.RAdam([_p(m)], weight_decay=-1),
    "rprop etas": lambda m: m.optim.Rprop([_p(m)], etas=(1.5, 1.2)),
    "asgd weight_decay": lambda m: m.optim.ASGD([_p(m)], weight_decay=-0.1),
    "adafactor lr": lambda m: m.optim.Adafactor([_p(m)], lr=-1),
    "adafactor beta2_decay": lambda m: m.optim.Adafactor([_p(m)], beta2_decay=0.5),
    "adafactor eps": lambda m: m.optim.Adafactor([_p(m)], eps=(-1.0, 1e-3)),
    "adafactor d": lambda m: m.optim.Adafactor([_p(m)], d=0.5),
    "lbfgs lr": lambda m: m.optim.LBFGS([_p(m)], lr=-1),
    "lbfgs groups": lambda m: m.optim.LBFGS([{"params": [_p(m)]}, {"params": [_p(m)]}]),
    "empty": lambda m: m.optim.SGD([], lr=0.1),
    "tensor params": lambda m: m.optim.SGD(_p(m), lr=0.1),
    "set": lambda m: m.optim.SGD([{"params": {_p(m)}}], lr=0.1),
    "not a tensor": lambda m: m.optim.SGD([_p(m), 1.5], lr=0.1),
    "non-leaf": lambda m: m.optim.SGD([_p(m) * 2], lr=0.1),
    "twice": lambda m: (lambda p: m.optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1))(_p(m)),
    "group not a dict": lambda m: m.optim.SGD([_p(m)], lr=0.1).add_param_group([_p(m)]),
    "names missing": lambda m: m.optim.SGD([("a", _p(m)), _p(m)], lr=0.1),
    "names mixed groups": lambda m: m.optim.SGD([("a", _p(m))], lr=0.1).add_param_group(
        {"params": [_p(m)]}),
    "load groups": lambda m: m.optim.SGD([_p(m)], lr=0.1).load_state_dict(
        {"state": {}, "param_groups": []}),
    "load group size": lambda m: m.optim.SGD([_p(m)], lr=0.1).load_state_dict(
        {"state": {}, "param_groups": [{"lr": 0.1, "params": [0, 1]}]}),
    "fused foreach": lambda m: m.optim.Adam([_p(m)], fused=True, foreach=True),
    "fused differentiable": lambda m: m.optim.SGD([_p(m)], fused=True, differentiable=True),
    "tensor lr": lambda m: m.optim.SGD([_p(m)], lr=m.tensor([0.1, 0.2])),
    "lr tensor foreach": lambda m: m.optim.Adam([_p(m)], lr=m.tensor(0.1), foreach=True),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_match_torch(case):
    check_error(ERRORS[case])


def _capturable_step(m):
    p = _p(m)
    opt = m.optim.Adam([p], capturable=True)
    p.grad = m.ones(2)
    opt.step()


def _lbfgs_bad_line_search(m):
    p = _p(m)
    opt = m.optim.LBFGS([p], line_search_fn="armijo")

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    opt.step(closure)


def _fused_int(m):
    p = m.ones(2, dtype=m.int64)
    opt = m.optim.Adam([p], fused=True)
    p.grad = m.ones(2, dtype=m.int64)
    opt.step()


@pytest.mark.parametrize("fn", [_capturable_step, _lbfgs_bad_line_search, _fused_int])
def test_step_errors_match_torch(fn):
    check_error(fn)


def test_duplicate_parameter_warning():
    check_warning(lambda m: (lambda p: m.optim.SGD([p, p], lr=0.1))(_p(m)))


@pytest.mark.parametrize(
    "make",
    [
        lambda m, ps: m.optim.SGD(ps, lr=0.1, momentum=0.9, fused=True),
        lambda m, ps: m.optim.Adam(ps, foreach=True, capturable=False),
        lambda m, ps: m.optim.AdamW(ps, amsgrad=True, fused=False),
        lambda m, ps: m.optim.RMSprop(ps, centered=True),
        lambda m, ps: m.optim.Adagrad(ps, lr_decay=0.5),
        lambda m, ps: m.optim.Adadelta(ps, differentiable=False),
        lambda m, ps: m.optim.Adamax(ps),
        lambda m, ps: m.optim.NAdam(ps, decoupled_weight_decay=True),
        lambda m, ps: m.optim.RAdam(ps),
        lambda m, ps: m.optim.LBFGS(ps, line_search_fn="strong_wolfe"),
        lambda m, ps: m.optim.SGD([{"params": ps[:1]}, {"params": ps[1:], "lr": 1e-3}], lr=0.5),
    ],
)
def test_repr_and_fresh_state_dict_match_torch(torch, make):
    gopt = make(G, [_p(G), _p(G)])
    topt = make(torch, [_p(torch), _p(torch)])
    assert repr(gopt) == norm(repr(topt))
    _assert_same_plain(_plain(gopt.state_dict()), _plain(topt.state_dict()), TOL["float64"])


def test_fused_and_capturable_state_dtypes_match_torch(torch):
    def run(m):
        p = _p(m)
        opt = m.optim.Adam([p], fused=True)
        p.grad = m.ones(2)
        opt.step()
        return opt.state_dict()

    _assert_same_plain(_plain(run(G)), _plain(run(torch)), TOL["float32"])


def test_named_parameters_groups_match_torch(torch):
    def run(m):
        opt = m.optim.SGD([("w", _p(m)), ("b", _p(m))], lr=0.1)
        opt.add_param_group({"params": [("c", _p(m))], "lr": 0.5})
        return opt.state_dict()

    assert run(G) == run(torch)


def test_group_defaults_and_add_param_group():
    w, b, c = _p(G), _p(G), _p(G)
    opt = G.optim.SGD([{"params": w}, {"params": (b,), "momentum": 0.5}], lr=0.1)
    assert opt.param_groups[0]["params"] == [w] and opt.param_groups[0]["momentum"] == 0
    assert opt.param_groups[1]["momentum"] == 0.5 and opt.param_groups[1]["lr"] == 0.1
    opt.add_param_group({"params": [c], "lr": 0.2})
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.1, 0.2]
    assert opt.state_dict()["param_groups"][2]["params"] == [2]


def test_zero_grad():
    w = _p(G)
    opt = G.optim.SGD([w], lr=0.1)
    (w * w).sum().backward()
    opt.zero_grad(set_to_none=False)
    assert w.grad is not None and _np(w.grad).tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert w.grad is None


def test_step_skips_parameters_without_grad():
    w, b = _p(G), _p(G)
    opt = G.optim.Adam([w, b], lr=0.1)
    (w * w).sum().backward()
    opt.step()
    assert _np(b).tolist() == [1.0, 1.0]
    assert list(opt.state) == [w]


def test_closure_runs_with_grad_and_step_without():
    w = _p(G)
    opt = G.optim.SGD([w], lr=0.1)
    seen = []

    def closure():
        seen.append(G.is_grad_enabled())
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    with G.no_grad():
        loss = opt.step(closure)
    assert seen == [True]
    assert float(loss.detach()) == 2.0
    assert _np(w).tolist() == pytest.approx([0.8, 0.8])
    assert not w.requires_grad or w.grad_fn is None


def test_step_hooks():
    w = _p(G)
    opt = G.optim.SGD([w], lr=0.1)
    calls = []
    h1 = opt.register_step_pre_hook(lambda o, a, k: calls.append(("pre", o is opt)))
    h2 = opt.register_step_post_hook(lambda o, a, k: calls.append(("post", o is opt)))
    # PyTorch removes the `optimizer` submodule from its `optim` namespace: import it by path.
    optimizer_module = importlib.import_module(G.__name__ + ".optim.optimizer")
    hg = optimizer_module.register_optimizer_step_pre_hook(lambda o, a, k: calls.append("g"))
    w.grad = G.ones(2)
    opt.step()
    assert calls == ["g", ("pre", True), ("post", True)]
    h1.remove()
    h2.remove()
    hg.remove()
    opt.step()
    assert len(calls) == 3


def test_state_dict_hooks():
    w = _p(G)
    opt = G.optim.SGD([w], lr=0.1)
    opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
    assert opt.state_dict()["extra"] == 1
    loaded = []
    opt.register_load_state_dict_post_hook(lambda o: loaded.append(True))
    opt.load_state_dict(opt.state_dict())
    assert loaded == [True]


def test_differentiable_step_records_graph():
    """With differentiable=True the update runs with grad mode on (hence on a non-leaf copy)."""
    w0 = G.ones(2, requires_grad=True)
    w = w0.clone()
    w.retain_grad()
    opt = G.optim.SGD([w], lr=0.5, differentiable=True)
    w.grad = G.full((2,), 2.0)
    opt.step()
    assert w.grad_fn is not None
    w.sum().backward()
    assert _np(w0.grad).tolist() == [1.0, 1.0]


@pytest.mark.skipif(SELFTEST, reason="gradrs-specific")
def test_module_layout():
    from gradrs.optim import adam, lbfgs, optimizer, sgd

    assert G.optim.Adam is adam.Adam and G.optim.SGD is sgd.SGD
    assert G.optim.LBFGS is lbfgs.LBFGS and G.optim.Optimizer is optimizer.Optimizer
    assert callable(adam.adam) and callable(sgd.sgd)


DIFFERENTIABLE = [
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.1, "amsgrad": True}),
    ("Adam", {"lr": 0.1, "weight_decay": 0.1}),
    ("AdamW", {"lr": 0.1}),
    ("RMSprop", {"centered": True, "momentum": 0.5}),
    ("Adagrad", {}),
    ("Adadelta", {}),
    ("NAdam", {}),
    ("RAdam", {"betas": (0.9, 0.9)}),
    ("RAdam", {}),
    ("Rprop", {}),
    ("ASGD", {"t0": 1}),
]


def _differentiable_run(m, name, kw):
    w0 = m.tensor(W0, requires_grad=True, dtype=m.float64)
    b0 = m.tensor(B0, requires_grad=True, dtype=m.float64)
    w, b = w0 * 1.0, b0 * 1.0
    opt = getattr(m.optim, name)([w, b], differentiable=True, **kw)
    for _ in range(3):
        gw, gb = m.autograd.grad(_loss(m, w, b, "float64"), [w, b], retain_graph=True)
        w.grad, b.grad = gw, gb
        opt.step()
    (w.sum() + (b * b).sum()).backward()
    return [w, b, w0.grad, b0.grad]


@pytest.mark.filterwarnings("ignore:The .grad attribute of a Tensor that is not a leaf")
@pytest.mark.parametrize(("name", "kw"), DIFFERENTIABLE)
def test_differentiable_matches_torch(torch, name, kw):
    """differentiable=True: three steps recorded in the graph; the parameters and the
    gradients through the steps back to the initial weights equal PyTorch's."""
    for g, t in zip(_differentiable_run(G, name, kw), _differentiable_run(torch, name, kw)):
        np.testing.assert_allclose(_np(g), _np(t), **TOL["float64"])


@pytest.mark.filterwarnings("ignore:The .grad attribute of a Tensor that is not a leaf")
def test_differentiable_adamax_fails_as_torch(torch):
    """PyTorch's differentiable Adamax cannot backward through a second step: addcdiv_ saved
    exp_inf, which the next step updates in place. gradrs fails the same way."""
    for m in (G, torch):
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            _differentiable_run(m, "Adamax", {})


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop", "Adagrad", "NAdam"])
def test_tensor_lr_matches_torch(torch, name):
    """A 0-dim tensor lr gives the float lr's update; a scheduler fills it in place."""

    def run(m):
        w, b = _params(m, "float32")
        lr = m.tensor(0.05)
        opt = getattr(m.optim, name)([w, b], lr=lr)
        sched = m.optim.lr_scheduler.ExponentialLR(opt, 0.9)
        for _ in range(5):
            opt.zero_grad()
            _loss(m, w, b, "float32").backward()
            opt.step()
            sched.step()
        assert opt.param_groups[0]["lr"] is lr
        return [w, b], lr.item()

    (gp, glr), (tp, tlr) = run(G), run(torch)
    _assert_params(gp, tp, "float32")
    assert glr == tlr


GPU = pytest.mark.skipif(
    SELFTEST or not G.gpu.is_available(), reason="needs gradrs's GPU device"
)
GPU_CASES = [(name, kws[-1]) for name, kws in OPTIONS.items()]


@GPU
@pytest.mark.parametrize(("name", "kw"), GPU_CASES, ids=[n for n, _ in GPU_CASES])
def test_gpu_steps_stay_on_gpu(name, kw):
    """On the GPU, steps after the first (which creates the state) move nothing between host
    and device, and the parameters follow the CPU run's. (As PyTorch's, ASGD reads its eta
    and mu back each step unless capturable, and Adafactor reads two norms.)"""
    out = []
    for device in ("cpu", "gpu"):
        w = G.tensor(W0, dtype=G.float32, device=device, requires_grad=True)
        b = G.tensor(B0, dtype=G.float32, device=device, requires_grad=True)
        x = G.tensor(X, dtype=G.float32, device=device)
        opt = getattr(G.optim, name)([w, b], **kw)
        for i in range(4):
            opt.zero_grad()
            ((x.matmul(w) + b) ** 2).sum().backward()
            before = G.gpu.transfer_counts()
            opt.step()
            if device == "gpu" and i > 0 and name not in ("ASGD", "Adafactor"):
                assert G.gpu.transfer_counts() == before
        out.append([_np(w.cpu()), _np(b.cpu())])
    for c, g in zip(*out):
        np.testing.assert_allclose(g, c, rtol=1e-5, atol=1e-5)


@GPU
@pytest.mark.parametrize("name", ["Adam", "AdamW", "RMSprop", "Adadelta", "Adamax", "NAdam",
                                  "RAdam", "Rprop", "ASGD"])
def test_gpu_capturable(name):
    """capturable=True keeps `step` on the parameter's device and computes the bias
    corrections as tensors there (float32 arithmetic, hence the tolerance: RAdam's
    rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t) cancels ~2000 to ~t)."""
    out = []
    for device, capturable in (("cpu", False), ("gpu", True)):
        w = G.tensor(W0, dtype=G.float32, device=device, requires_grad=True)
        opt = getattr(G.optim, name)([w], capturable=capturable)
        for _ in range(8):
            opt.zero_grad()
            (w * w * w + w).sum().backward()
            opt.step()
        assert opt.state[w]["step"].device == w.device
        out.append(_np(w.cpu()))
    np.testing.assert_allclose(out[1], out[0], rtol=5e-2 if name == "RAdam" else 1e-5, atol=1e-5)


@pytest.mark.parametrize("kw", [{"lr": 0.01}, {"lr": 0.01, "amsgrad": True, "weight_decay": 0.1}])
def test_adam_tensor_betas_match_torch(torch, kw):
    def run(m):
        w, b = _params(m, "float32")
        opt = m.optim.Adam([w, b], betas=(m.tensor(0.8), m.tensor([0.99])), **kw)
        for _ in range(10):
            opt.zero_grad()
            _loss(m, w, b, "float32").backward()
            opt.step()
        return [w, b], opt

    (gp, gopt), (tp, topt) = run(G), run(torch)
    _assert_params(gp, tp, "float32")
    assert repr(gopt) == norm(repr(topt))


# --------------------------------------------------------------------------------------------
# swa_utils
# --------------------------------------------------------------------------------------------


def _linear_pair(m, dtype="float64"):
    rs = np.random.default_rng(3)
    lin = m.nn.Linear(4, 3).to(getattr(m, dtype))
    with m.no_grad():
        lin.weight.copy_(m.tensor(rs.standard_normal((3, 4))))
        lin.bias.copy_(m.tensor(rs.standard_normal(3)))
    return lin


@pytest.mark.parametrize(
    "make",
    [
        lambda m, model: m.optim.swa_utils.AveragedModel(model),
        lambda m, model: m.optim.swa_utils.AveragedModel(
            model, multi_avg_fn=m.optim.swa_utils.get_ema_multi_avg_fn(0.9)),
        lambda m, model: m.optim.swa_utils.AveragedModel(
            model, avg_fn=m.optim.swa_utils.get_ema_avg_fn(0.8)),
        lambda m, model: m.optim.swa_utils.AveragedModel(
            model, multi_avg_fn=m.optim.swa_utils.get_swa_multi_avg_fn(), use_buffers=True),
    ],
    ids=["swa", "ema multi", "ema", "swa multi buffers"],
)
def test_averaged_model_matches_torch(torch, make):
    def run(m):
        model = _linear_pair(m)
        avg = make(m, model)
        opt = m.optim.SGD(model.parameters(), lr=0.1)
        x = m.tensor(X)
        for _ in range(5):
            opt.zero_grad()
            model(x).pow(2).sum().backward()
            opt.step()
            avg.update_parameters(model)
        return avg, avg(x)

    (gavg, gout), (tavg, tout) = run(G), run(torch)
    assert int(gavg.n_averaged) == int(tavg.n_averaged) == 5
    assert list(gavg.state_dict()) == list(tavg.state_dict())
    for (gk, gv), (tk, tv) in zip(gavg.state_dict().items(), tavg.state_dict().items()):
        assert gk == tk
        np.testing.assert_allclose(_np(gv), _np(tv), **TOL["float64"])
    np.testing.assert_allclose(_np(gout), _np(tout), **TOL["float64"])
    assert repr(gavg) == norm(repr(tavg))


def test_update_bn_matches_torch(torch):
    def run(m):
        model = m.nn.Sequential(m.nn.Linear(4, 3), m.nn.BatchNorm1d(3)).double()
        with m.no_grad():
            model[0].weight.copy_(m.tensor(W0.T))
            model[0].bias.zero_()
        loader = [(m.tensor(X[i : i + 2]), 0) for i in range(0, 6, 2)]
        model.eval()
        m.optim.swa_utils.update_bn(loader, model)
        bn = model[1]
        return bn, model.training, bn.momentum

    (gbn, gtrain, gmom), (tbn, ttrain, tmom) = run(G), run(torch)
    assert (gtrain, gmom) == (ttrain, tmom)
    for name in ("running_mean", "running_var", "num_batches_tracked"):
        np.testing.assert_allclose(_np(getattr(gbn, name)), _np(getattr(tbn, name)), rtol=1e-12)


def test_swa_errors_match_torch():
    check_error(lambda m: m.optim.swa_utils.get_ema_avg_fn(1.5))
    check_error(lambda m: m.optim.swa_utils.get_ema_multi_avg_fn(-0.1))
    check_error(lambda m: m.optim.swa_utils.AveragedModel(
        m.nn.Linear(2, 2), avg_fn=m.optim.swa_utils.get_swa_avg_fn(),
        multi_avg_fn=m.optim.swa_utils.get_swa_multi_avg_fn()))


@pytest.mark.parametrize("name", ["Adam", "NAdam", "Adagrad", "RMSprop", "ASGD", "Rprop",
                                  "Adafactor", "Adadelta", "Adamax", "RAdam"])
def test_load_legacy_float_step_matches_torch(torch, name):
    """Old checkpoints hold `step` (and NAdam's `mu_product`) as Python floats: loading makes
    them the scalar tensors PyTorch makes."""

    def run(m):
        p = m.ones(3, requires_grad=True)
        p.grad = m.ones(3)
        opt = getattr(m.optim, name)([p])
        opt.step()
        sd = opt.state_dict()
        sd["state"][0]["step"] = float(sd["state"][0]["step"])
        if name == "NAdam":
            sd["state"][0]["mu_product"] = float(sd["state"][0]["mu_product"])
        p2 = m.ones(3, requires_grad=True)
        opt2 = getattr(m.optim, name)([p2])
        opt2.load_state_dict(sd)
        return opt2.state_dict()

    _assert_same_plain(_plain(run(G)), _plain(run(torch)), TOL["float32"])


def test_deepcopy_optimizer_matches_torch(torch):
    import copy

    def run(m):
        w, b = _params(m, "float64")
        opt = m.optim.Adam([w, b], lr=0.01, amsgrad=True)
        for _ in range(3):
            opt.zero_grad()
            _loss(m, w, b, "float64").backward()
            opt.step()
        clone = copy.deepcopy(opt)
        assert all(p is not q for p, q in zip(clone.param_groups[0]["params"], [w, b]))
        return clone.state_dict(), repr(clone)

    (gsd, grepr), (tsd, trepr) = run(G), run(torch)
    _assert_same_plain(_plain(gsd), _plain(tsd), TOL["float64"])
    assert grepr == norm(trepr)
