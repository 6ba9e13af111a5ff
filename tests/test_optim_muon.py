"""gradrs.optim.Muon and swap_in_optimizer_params_and_state against torch 2.13: Muon's steps
(its Newton-Schulz iteration runs in bfloat16 in PyTorch; gradrs rounds float32 to bfloat16's
values at the same points), state_dict, repr, errors; the swap-in context's steps, restored
optimizer and errors."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import G, check_error, norm

rng = np.random.default_rng(1)
W0 = rng.standard_normal((6, 4))
W1 = rng.standard_normal((3, 5))
X = rng.standard_normal((8, 6))
Y = rng.standard_normal((8, 4))
X1 = rng.standard_normal((7, 3))
Y1 = rng.standard_normal((7, 5))


def _loss(m, w, w1, dt):
    a = ((m.tensor(X, dtype=dt) @ w).tanh() - m.tensor(Y, dtype=dt)).pow(2).sum()
    return a + ((m.tensor(X1, dtype=dt) @ w1).sin() - m.tensor(Y1, dtype=dt)).pow(2).sum()


GRADS = [(rng.standard_normal((6, 4)), rng.standard_normal((3, 5))) for _ in range(20)]


def _train(m, dtype, kw, steps=20, groups=False):
    """Muon steps; in float32 on given gradients: a float32 gradient one ulp off PyTorch's can
    round to another bfloat16 and the iteration magnifies that (PyTorch's own CPU kernels
    differ by such ulps between machines), so float32 runs compare the update itself."""
    dt = getattr(m, dtype)
    w = m.tensor(W0, dtype=dt, requires_grad=True)
    w1 = m.tensor(W1, dtype=dt, requires_grad=True)
    params = [{"params": [w]}, {"params": [w1], "lr": 0.03, "nesterov": False}] if groups \
        else [w, w1]
    opt = m.optim.Muon(params, **kw)
    for i in range(steps):
        opt.zero_grad()
        if dtype == "float64":
            _loss(m, w, w1, dt).backward()
        else:
            w.grad = m.tensor(GRADS[i][0] + W0, dtype=dt) * w.detach()
            w1.grad = m.tensor(GRADS[i][1], dtype=dt)
        opt.step()
    return opt, (w, w1)


OPTIONS = [
    {},
    {"lr": 0.02},
    {"lr": 0.05, "nesterov": False, "weight_decay": 0.01},
    {"lr": 0.01, "momentum": 0.9, "adjust_lr_fn": "match_rms_adamw"},
    {"lr": 0.02, "adjust_lr_fn": "original", "ns_steps": 3, "eps": 1e-5,
     "ns_coefficients": (3.0, -3.2, 1.2)},
]
# PyTorch's iteration runs in bfloat16: gradrs's float32 matmul sums in another order than
# PyTorch's, which once in a while rounds one element of a product to the neighbouring
# bfloat16 (2**-8 of itself; PyTorch's own results differ so between CPU kernels), and the
# iteration spreads that over the update. A few steps stay bit-identical on these matrices
# (checked at the other optimizers' tolerances); 20 steps are checked to bfloat16 accuracy.
TOL = {"float32": {"rtol": 1e-5, "atol": 1e-6}, "float64": {"rtol": 1e-12, "atol": 1e-12}}
BF16_TOL = {"rtol": 0, "atol": 2e-3}


def _compare(gopt, gp, topt, tp, tol):
    for a, b in zip(gp, tp):
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), **tol)
    gsd, tsd = gopt.state_dict(), topt.state_dict()
    assert gsd["param_groups"] == tsd["param_groups"]
    assert list(gsd["state"]) == list(tsd["state"])
    for k in tsd["state"]:
        assert list(gsd["state"][k]) == ["momentum_buffer"] == list(tsd["state"][k])
        np.testing.assert_allclose(gsd["state"][k]["momentum_buffer"].numpy(),
                                   tsd["state"][k]["momentum_buffer"].numpy(), **tol)
    assert repr(gopt) == norm(repr(topt))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kw", OPTIONS, ids=[str(k) for k in OPTIONS])
def test_muon_steps_match_torch(torch, kw, dtype):
    gopt, gp = _train(G, dtype, kw, steps=3, groups=bool(kw))
    topt, tp = _train(torch, dtype, kw, steps=3, groups=bool(kw))
    _compare(gopt, gp, topt, tp, TOL[dtype])
    gopt, gp = _train(G, dtype, kw, groups=bool(kw))
    topt, tp = _train(torch, dtype, kw, groups=bool(kw))
    _compare(gopt, gp, topt, tp, BF16_TOL)


def test_newton_schulz_matches_torch_bitwise(torch):
    from torch.optim._muon import _zeropower_via_newtonschulz as tz

    from gradrs.optim._muon import _zeropower_via_newtonschulz as gz

    r = np.random.default_rng(5)
    for shape in [(4, 3), (3, 4), (16, 9), (1, 5), (8, 8)]:
        x = r.standard_normal(shape).astype(np.float32) * 10.0 ** r.integers(-3, 4)
        t = tz(torch.tensor(x), (3.4445, -4.775, 2.0315), 5, 1e-7).float().numpy()
        g = gz(G.tensor(x), (3.4445, -4.775, 2.0315), 5, 1e-7)
        assert g.dtype == G.float32
        np.testing.assert_array_equal(g.numpy(), t)


def test_bfloat16_rounding_matches_torch(torch):
    """Every float32 class: random bit patterns, exact ties, subnormals, overflow, inf, NaN."""
    from gradrs.optim._muon import _round_bfloat16

    r = np.random.default_rng(0)
    bits = r.integers(0, 2**32, 200_000, dtype=np.uint64).astype(np.uint32)
    hi = r.integers(0, 2**16, 20_000, dtype=np.uint64).astype(np.uint32) << 16
    special = np.array([0, 0x80000000, 1, 0x8000, 0x7FFF, 0x8001, 0x18000, 0x7F7FFFFF,
                        0x7F7F8000, 0x7F7F7FFF, 0x7F800000, 0xFF800000, 0x7FC00000], np.uint32)
    x = np.concatenate([bits, hi | 0x8000, hi | 0x7FFF, hi | 0x18000, special]).view(np.float32)
    ref = torch.from_numpy(x.copy()).bfloat16().float().numpy()
    got = _round_bfloat16(G.from_numpy(x.copy())).numpy()
    same = (ref.view(np.uint32) == got.view(np.uint32)) | (np.isnan(ref) & np.isnan(got))
    assert same.all(), x[~same][:5]
    d = r.standard_normal(20_000) * np.exp(r.uniform(-90, 90, 20_000))  # float64 goes via float32
    np.testing.assert_array_equal(_round_bfloat16(G.from_numpy(d)).numpy(),
                                  torch.from_numpy(d).bfloat16().float().numpy())


def test_muon_fresh_state_and_defaults(torch):
    def make(m):
        return m.optim.Muon([m.zeros(2, 3, requires_grad=True)])

    g, t = make(G), make(torch)
    assert g.defaults == t.defaults
    assert g.state_dict() == t.state_dict()
    assert repr(g) == norm(repr(t))


def test_muon_load_state_dict_continues(torch):
    """A PyTorch state_dict (through numpy) loaded into gradrs continues as PyTorch does."""
    topt, tp = _train(torch, "float64", {"lr": 0.02}, steps=4)
    sd = topt.state_dict()
    state = {k: {"momentum_buffer": G.tensor(v["momentum_buffer"].numpy())}
             for k, v in sd["state"].items()}
    gp = [G.tensor(p.detach().numpy(), requires_grad=True) for p in tp]
    gopt = G.optim.Muon(gp, lr=0.02)
    gopt.load_state_dict({"state": state, "param_groups": sd["param_groups"]})
    for m, opt, (w, w1) in ((G, gopt, gp), (torch, topt, tp)):
        for _ in range(4):
            opt.zero_grad()
            _loss(m, w, w1, m.float64).backward()
            opt.step()
    for a, b in zip(gp, tp):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), **TOL["float64"])


@pytest.mark.parametrize("case", [
    lambda m: m.optim.Muon([m.zeros(3, requires_grad=True)]),
    lambda m: m.optim.Muon([m.zeros(2, 2, 2, requires_grad=True)]),
    lambda m: m.optim.Muon([m.zeros(2, 2, requires_grad=True)], lr=-1.0),
    lambda m: m.optim.Muon([m.zeros(2, 2, requires_grad=True)], momentum=-0.5),
    lambda m: m.optim.Muon([m.zeros(2, 2, requires_grad=True)], weight_decay=-0.5),
    lambda m: m.optim.Muon([m.zeros(2, 2, requires_grad=True)], adjust_lr_fn="rms"),
    lambda m: m.optim.Muon([m.zeros(2, 2, requires_grad=True)], lr=m.tensor([1.0, 2.0])),
])
def test_muon_errors_match_torch(case):
    check_error(case)


@pytest.mark.parametrize("kw", [{"ns_steps": 100}, {"ns_coefficients": (1.0, 2.0)}])
def test_muon_step_errors_match_torch(kw):
    def step(m):
        p = m.ones(2, 3, requires_grad=True)
        opt = m.optim.Muon([p], **kw)
        p.sum().backward()
        opt.step()

    check_error(step)


def test_muon_tensor_lr(torch):
    def run(m):
        p = m.tensor(W0, requires_grad=True)
        opt = m.optim.Muon([p], lr=m.tensor(0.02))
        for _ in range(3):
            opt.zero_grad()
            (p.sin() * 2).sum().backward()
            opt.step()
        return p.detach().numpy()

    np.testing.assert_allclose(run(G), run(torch), rtol=1e-5, atol=1e-6)


def _sgd_setup(m):
    w = m.tensor(W0, dtype=m.float32, requires_grad=True)
    w1 = m.tensor(W1, dtype=m.float32, requires_grad=True)
    opt = m.optim.SGD([{"params": [w]}, {"params": [w1], "lr": 0.2}], lr=0.1, momentum=0.9)
    _loss(m, w, w1, m.float32).backward()
    opt.step()
    return opt, w, w1


def test_swap_in_steps_other_params_and_restores(torch):
    def run(m):
        opt, w, w1 = _sgd_setup(m)
        before = opt.state_dict()
        groups_before = [g["params"] for g in opt.param_groups]
        fw = m.tensor(W0 * 2, dtype=m.float32, requires_grad=True)
        fw1 = m.tensor(W1 * 2, dtype=m.float32, requires_grad=True)
        osd = {"state": {0: {"momentum_buffer": m.ones(6, 4)},
                         1: {"momentum_buffer": m.zeros(3, 5)}},
               "param_groups": [dict(before["param_groups"][0], lr=0.5),
                                dict(before["param_groups"][1])]}
        buf = osd["state"][0]["momentum_buffer"]
        with m.optim.swap_in_optimizer_params_and_state(opt, {"w": fw, "w1": fw1}, osd):
            inside = [g["lr"] for g in opt.param_groups]
            _loss(m, fw, fw1, m.float32).backward()
            opt.step()
        assert all(a is b for a, b in zip(groups_before, [g["params"] for g in opt.param_groups]))
        assert opt.param_groups[0]["params"][0] is w
        return (inside, fw.detach().numpy(), fw1.detach().numpy(), buf.numpy(),
                w.detach().numpy(), opt.state_dict()["param_groups"])

    g, t = run(G), run(torch)
    assert g[0] == t[0] == [0.5, 0.2]
    for a, b in zip(g[1:5], t[1:5]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert g[5] == t[5]


@pytest.mark.parametrize("bad", [
    lambda m, sd: [],
    lambda m, sd: {"state": [], "param_groups": sd["param_groups"]},
    lambda m, sd: {"state": {m.zeros(1): {}}, "param_groups": sd["param_groups"]},
    lambda m, sd: {"state": {0: 1}, "param_groups": sd["param_groups"]},
    lambda m, sd: {"state": {}, "param_groups": tuple(sd["param_groups"])},
    lambda m, sd: {"state": {}, "param_groups": sd["param_groups"][:1]},
    lambda m, sd: {"state": {}, "param_groups": [1, sd["param_groups"][1]]},
    lambda m, sd: {"state": {}, "param_groups": [dict(sd["param_groups"][0], params=["a"]),
                                                 sd["param_groups"][1]]},
    lambda m, sd: {"state": {}, "param_groups": [dict(sd["param_groups"][0], params=[0, 1]),
                                                 sd["param_groups"][1]]},
    lambda m, sd: {"state": {}, "param_groups": [dict(sd["param_groups"][0], extra=1),
                                                 sd["param_groups"][1]]},
    lambda m, sd: {"state": {7: {}}, "param_groups": sd["param_groups"]},
])
def test_swap_in_errors_match_torch(bad):
    def run(m):
        opt, w, w1 = _sgd_setup(m)
        with m.optim.swap_in_optimizer_params_and_state(opt, {"w": w, "w1": w1},
                                                        bad(m, opt.state_dict())):
            pass

    check_error(run)


def test_swap_in_needs_state_and_enough_params():
    def fresh(m):
        opt = m.optim.SGD([m.zeros(2, requires_grad=True)], lr=0.1)
        with m.optim.swap_in_optimizer_params_and_state(opt, {}, opt.state_dict()):
            pass

    check_error(fresh)

    def few(m):
        opt, w, w1 = _sgd_setup(m)
        with m.optim.swap_in_optimizer_params_and_state(opt, {"w": w}, opt.state_dict()):
            pass

    check_error(few)
