"""The native optimizer steps (`_native._fused_adam_` / `_fused_sgd_`) that Adam, AdamW and SGD
run over a whole parameter group: which steps take them, and that they compute PyTorch's
single-tensor update with its roundings. SGD is bit-identical to torch over 20 steps. Adam's
state is bit-identical over 10 steps, and its parameters equal torch's to within an ulp or so
of the update (torch sends float `sqrt` to MKL, which is not always correctly rounded).
Layouts, dtypes and devices the fused kernels do not take run the same update in tensor ops:
equal to the Python loop's."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import SELFTEST, G

pytestmark = [
    pytest.mark.usefixtures("restore_grad_mode"),
    pytest.mark.skipif(SELFTEST, reason="gradrs's own native optimizer steps"),
]

# A 2-D weight, a vector long enough for the kernels' threads, a bias, a scalar, an empty one.
SHAPES = [(7, 5), (40_001,), (3,), (), (0, 4)]

ADAM = [
    {},
    {"amsgrad": True, "weight_decay": 0.1},
    {"maximize": True, "betas": (0.8, 0.99), "eps": 1e-6},
    {"weight_decay": 0.1, "decoupled_weight_decay": True},
    {"betas": (0.3, 0.9)},  # lerp weight 0.7: the interpolation from the far end
]
SGD = [
    {},
    {"momentum": 0.9},
    {"momentum": 0.9, "nesterov": True, "weight_decay": 0.1},
    {"momentum": 0.5, "dampening": 0.3, "maximize": True},
    {"weight_decay": 0.01},
]


def _np(t):
    return np.array(t.detach().numpy(), copy=True)


def _values(rng, dtype):
    return [rng.standard_normal(s).astype(dtype) for s in SHAPES]


def _counting(monkeypatch, name):
    """Count the calls of `_native.<name>` made by the optimizers."""
    calls = []
    real = getattr(G._native, name)

    def wrapper(*args, **kwargs):
        calls.append(len(args[0]))
        return real(*args, **kwargs)

    monkeypatch.setattr(G._native, name, wrapper)
    return calls


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kw", SGD, ids=str)
def test_sgd_is_bit_identical_to_torch(torch, kw, dtype):
    rng = np.random.default_rng(1)
    w = _values(rng, dtype)
    gp = [G.tensor(v, requires_grad=True) for v in w]
    tp = [torch.tensor(v, requires_grad=True) for v in w]
    gopt, topt = G.optim.SGD(gp, lr=0.05, **kw), torch.optim.SGD(tp, lr=0.05, **kw)
    for step in range(20):
        for a, b, v in zip(gp, tp, _values(rng, dtype)):
            a.grad, b.grad = G.tensor(v), torch.tensor(v)
        gopt.step()
        topt.step()
        for i, (a, b) in enumerate(zip(gp, tp)):
            np.testing.assert_array_equal(_np(a), _np(b), err_msg=f"step {step}, param {i}")
            if kw.get("momentum"):
                np.testing.assert_array_equal(
                    _np(gopt.state[a]["momentum_buffer"]), _np(topt.state[b]["momentum_buffer"])
                )


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    ("name", "kw"),
    [("Adam", kw) for kw in ADAM] + [("AdamW", {}), ("AdamW", {"amsgrad": True})],
    ids=str,
)
def test_adam_matches_torch_bit_for_bit_but_sqrt(torch, name, kw, dtype):
    rng = np.random.default_rng(2)
    w = _values(rng, dtype)
    gp = [G.tensor(v, requires_grad=True) for v in w]
    tp = [torch.tensor(v, requires_grad=True) for v in w]
    gopt = getattr(G.optim, name)(gp, lr=0.01, **kw)
    topt = getattr(torch.optim, name)(tp, lr=0.01, **kw)
    # torch's sqrt moves an update by an ulp or so (through the division), which can also
    # round the parameter to its neighbour.
    eps = float(np.finfo(dtype).eps)
    for step in range(10):
        for a, b, v in zip(gp, tp, _values(rng, dtype)):
            a.grad, b.grad = G.tensor(v), torch.tensor(v)
        before = [_np(b) for b in tp]
        gopt.step()
        topt.step()
        for i, (a, b) in enumerate(zip(gp, tp)):
            gs, ts = gopt.state[a], topt.state[b]
            assert float(gs["step"]) == float(ts["step"]) == step + 1
            for key in ("exp_avg", "exp_avg_sq", "max_exp_avg_sq"):
                if key in ts:
                    np.testing.assert_array_equal(
                        _np(gs[key]), _np(ts[key]), err_msg=f"{key}, step {step}, param {i}"
                    )
            update = np.abs(_np(b) - before[i])
            off = np.abs(_np(a) - _np(b)) > 4 * eps * update + eps * np.abs(_np(b))
            assert not off.any(), (step, i, _np(a)[off][:3], _np(b)[off][:3])
            # Start the next step from torch's parameters, so that the state stays comparable
            # bit for bit (weight decay reads the parameter).
            with G.no_grad():
                a.copy_(G.tensor(_np(b)))


def test_steps_take_the_native_call_unless_asked_not_to(monkeypatch):
    adam_calls = _counting(monkeypatch, "_fused_adam_")
    sgd_calls = _counting(monkeypatch, "_fused_sgd_")
    p = [G.ones(3, requires_grad=True), G.ones(2, 2, requires_grad=True), G.ones(4, requires_grad=True)]
    for q in p[:2]:
        q.grad = G.ones_like(q)  # the third has no gradient: not in the call
    for make, calls in (
        (lambda **k: G.optim.Adam(p, **k), adam_calls),
        (lambda **k: G.optim.AdamW(p, **k), adam_calls),
        (lambda **k: G.optim.SGD(p, **{"lr": 0.1, "momentum": 0.9, **k}), sgd_calls),
    ):
        calls.clear()
        make().step()
        make(foreach=True).step()
        make(fused=True).step()
        assert calls == [2, 2, 2]
        make(foreach=False).step()
        make(lr=G.tensor(0.01)).step()
        assert calls == [2, 2, 2]
    # differentiable=True steps with grad mode on (on tensors that do not require grad here).
    q = G.ones(3)
    q.grad = G.ones(3)
    G.optim.Adam([q], differentiable=True).step()
    G.optim.SGD([q], lr=0.1, differentiable=True).step()
    assert adam_calls == sgd_calls == [2, 2, 2]
    # The functional forms under grad mode record nothing natively: they take the loop.
    with G.enable_grad():
        G.optim.sgd.sgd([G.ones(3)], [G.ones(3)], [], weight_decay=0, momentum=0, lr=0.1,
                        dampening=0, nesterov=False, maximize=False)
    assert sgd_calls == [2, 2, 2]


def _run(make, params, grads):
    opt = make(params)
    for g in grads:
        for p, v in zip(params, g):
            p.grad = v
        opt.step()
    return opt


@pytest.mark.parametrize("name,kw", [("Adam", {"amsgrad": True, "weight_decay": 0.1}),
                                     ("AdamW", {}),
                                     ("SGD", {"momentum": 0.9, "nesterov": True})])
def test_non_contiguous_tensors_give_the_contiguous_result(name, kw):
    """A transposed parameter and gradient are updated through contiguous copies: the same
    bits as the contiguous layout, written back into the parameter's own memory."""
    rng = np.random.default_rng(3)
    w = rng.standard_normal((6, 4)).astype(np.float32)
    gs = [rng.standard_normal((6, 4)).astype(np.float32) for _ in range(3)]
    make = lambda ps: getattr(G.optim, name)(ps, lr=0.01, **kw)  # noqa: E731
    flat = G.tensor(w, requires_grad=True)
    _run(make, [flat], [[G.tensor(g)] for g in gs])
    base = G.tensor(w.T.copy())
    strided = base.t().detach().requires_grad_()
    assert not strided.is_contiguous()
    opt = _run(make, [strided], [[G.tensor(g.T.copy()).t()] for g in gs])
    np.testing.assert_array_equal(_np(strided), _np(flat))
    np.testing.assert_array_equal(_np(base), _np(flat).T)
    for v in opt.state[strided].values():
        if v.dim() == 2:
            assert v.shape == (6, 4)


@pytest.mark.parametrize("name,kw", [("Adam", {"amsgrad": True, "weight_decay": 0.1}),
                                     ("AdamW", {"weight_decay": 0.5}),
                                     ("SGD", {"momentum": 0.9, "weight_decay": 0.1}),
                                     ("SGD", {"momentum": 0.5, "dampening": 0.5, "maximize": True})])
def test_float16_steps_equal_the_python_loop(name, kw):
    """Dtypes without a fused kernel take the same update in tensor ops: the loop's bits."""
    rng = np.random.default_rng(4)
    w = rng.standard_normal(50).astype(np.float16)
    gs = [rng.standard_normal(50).astype(np.float16) for _ in range(5)]
    out = []
    for foreach in (None, False):
        p = G.tensor(w, requires_grad=True)
        opt = _run(lambda ps, f=foreach: getattr(G.optim, name)(ps, lr=0.01, foreach=f, **kw),
                   [p], [[G.tensor(g)] for g in gs])
        out.append((_np(p), {k: _np(v) for k, v in opt.state[p].items()}))
    np.testing.assert_array_equal(out[0][0], out[1][0])
    for k in out[1][1]:
        np.testing.assert_array_equal(out[0][1][k], out[1][1][k], err_msg=k)


def test_native_loop_and_python_loop_agree_in_float64():
    """The fused kernels differ from the loop of gradrs ops only in the roundings the fused
    multiply-adds save: far below float32's resolution after 20 float64 steps."""
    rng = np.random.default_rng(5)
    w = rng.standard_normal((10, 10))
    gs = [[G.tensor(rng.standard_normal((10, 10)))] for _ in range(20)]
    for name, kw in (("Adam", {"amsgrad": True}), ("SGD", {"momentum": 0.9})):
        got = []
        for foreach in (None, False):
            p = G.tensor(w, requires_grad=True)
            make = getattr(G.optim, name)
            _run(lambda ps, f=foreach, m=make, k=kw: m(ps, lr=0.01, foreach=f, **k), [p], gs)
            got.append(_np(p))
        np.testing.assert_allclose(got[0], got[1], rtol=1e-13, atol=1e-13)


def test_steps_bump_versions_and_keep_the_objects():
    p = G.zeros(5, requires_grad=True)
    p.grad = G.ones(5)
    opt = G.optim.SGD([p], lr=0.1, momentum=0.9)
    v0 = p._version
    opt.step()
    buf = opt.state[p]["momentum_buffer"]
    opt.step()
    assert p._version == v0 + 2
    assert opt.state[p]["momentum_buffer"] is buf
    np.testing.assert_allclose(_np(buf), np.full(5, 1.9, np.float32))


def test_native_call_errors():
    p = G.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used"):
        G._native._fused_sgd_([p], [G.ones(3)], [], lr=0.1, momentum=0.0, dampening=0.0,
                              weight_decay=0.0, nesterov=False, maximize=False)
    with G.no_grad(), pytest.raises(RuntimeError, match="same length"):
        G._native._fused_adam_([p], [], [], [], [], [], lr=0.1, beta1=0.9, beta2=0.99,
                               weight_decay=0.0, eps=1e-8, amsgrad=False, maximize=False,
                               decoupled_weight_decay=False)
    np.testing.assert_array_equal(_np(p), np.zeros(3, np.float32))


@pytest.mark.skipif(SELFTEST or not G.gpu.is_available(), reason="needs a GPU adapter")
def test_gpu_steps_equal_the_python_loop_and_stay_on_the_gpu():
    rng = np.random.default_rng(6)
    w = rng.standard_normal((8, 3)).astype(np.float32)
    gs = [rng.standard_normal((8, 3)).astype(np.float32) for _ in range(4)]
    for name, kw in (("Adam", {"amsgrad": True, "weight_decay": 0.1}), ("AdamW", {}),
                     ("SGD", {"momentum": 0.9, "nesterov": True, "weight_decay": 0.1})):
        got = []
        for foreach in (None, False):
            p = G.tensor(w, device="gpu", requires_grad=True)
            grads = [[G.tensor(g, device="gpu")] for g in gs]
            make = getattr(G.optim, name)
            opt = _run(lambda ps, f=foreach, m=make, k=kw: m(ps, lr=0.01, foreach=f, **k),
                       [p], grads[:1])
            before = G.gpu.transfer_counts()
            for g in grads[1:]:
                p.grad = g[0]
                opt.step()
            assert G.gpu.transfer_counts() == before, name
            got.append(_np(p.cpu()))
        np.testing.assert_array_equal(got[0], got[1], err_msg=name)
