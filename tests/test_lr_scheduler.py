"""`gradrs.optim.lr_scheduler` against PyTorch: every scheduler's learning rates (and cycled
momentums) over 30 steps are EQUAL to PyTorch's, state_dicts hold the same entries and a
save/load round trip continues the same sequence; PyTorch's warnings and errors."""

from __future__ import annotations

import math

import pytest
from conftest import G, check_error, check_warning

pytestmark = pytest.mark.usefixtures("restore_grad_mode")

STEPS = 30


def _optimizer(m, kind="SGD"):
    w, b = m.ones(2, requires_grad=True), m.ones(1, requires_grad=True)
    groups = [{"params": [w]}, {"params": [b], "lr": 0.3}]
    if kind == "Adam":
        return m.optim.Adam(groups, lr=0.1)
    return m.optim.SGD(groups, lr=0.1, momentum=0.9)


class Scale:
    """A callable object: its attributes go into the scheduler's state_dict."""

    def __init__(self, factor):
        self.factor = factor

    def __call__(self, epoch):
        return self.factor**epoch


def _lambda_lr(m, o):
    return m.optim.lr_scheduler.LambdaLR(o, [lambda e: 0.95**e, Scale(0.9)])


def _sequential(m, o):
    s = m.optim.lr_scheduler
    return s.SequentialLR(
        o,
        [s.LinearLR(o, start_factor=0.1, total_iters=5), s.CosineAnnealingLR(o, T_max=12),
         s.ExponentialLR(o, gamma=0.9)],
        milestones=[5, 17],
    )


def _chained(m, o):
    s = m.optim.lr_scheduler
    return s.ChainedScheduler([s.ConstantLR(o, factor=0.5, total_iters=4),
                               s.ExponentialLR(o, gamma=0.95), s.StepLR(o, 7, gamma=0.5)])


SCHEDULERS = {
    "StepLR": lambda m, o: m.optim.lr_scheduler.StepLR(o, step_size=4, gamma=0.5),
    "MultiStepLR": lambda m, o: m.optim.lr_scheduler.MultiStepLR(o, [3, 7, 7, 20], gamma=0.3),
    "ExponentialLR": lambda m, o: m.optim.lr_scheduler.ExponentialLR(o, gamma=0.93),
    "CosineAnnealingLR": lambda m, o: m.optim.lr_scheduler.CosineAnnealingLR(o, T_max=7),
    "CosineAnnealingLR eta_min": lambda m, o: m.optim.lr_scheduler.CosineAnnealingLR(
        o, T_max=10, eta_min=0.01),
    "LambdaLR": _lambda_lr,
    "MultiplicativeLR": lambda m, o: m.optim.lr_scheduler.MultiplicativeLR(
        o, lambda e: 0.97),
    "LinearLR": lambda m, o: m.optim.lr_scheduler.LinearLR(o, start_factor=0.25, total_iters=9),
    "LinearLR decay": lambda m, o: m.optim.lr_scheduler.LinearLR(
        o, start_factor=1.0, end_factor=0.1, total_iters=12),
    "ConstantLR": lambda m, o: m.optim.lr_scheduler.ConstantLR(o, factor=0.3, total_iters=6),
    "PolynomialLR": lambda m, o: m.optim.lr_scheduler.PolynomialLR(o, total_iters=20, power=2.0),
    "OneCycleLR cos": lambda m, o: m.optim.lr_scheduler.OneCycleLR(o, max_lr=1.0,
                                                                    total_steps=STEPS + 1),
    "OneCycleLR linear three_phase": lambda m, o: m.optim.lr_scheduler.OneCycleLR(
        o, max_lr=[1.0, 2.0], epochs=4, steps_per_epoch=8, anneal_strategy="linear",
        three_phase=True, pct_start=0.25),
    "OneCycleLR no momentum": lambda m, o: m.optim.lr_scheduler.OneCycleLR(
        o, max_lr=0.5, total_steps=40, cycle_momentum=False, div_factor=10.0),
    "CyclicLR triangular": lambda m, o: m.optim.lr_scheduler.CyclicLR(
        o, base_lr=0.01, max_lr=0.1, step_size_up=4),
    "CyclicLR triangular2": lambda m, o: m.optim.lr_scheduler.CyclicLR(
        o, base_lr=[0.01, 0.02], max_lr=0.1, step_size_up=3, step_size_down=5,
        mode="triangular2"),
    "CyclicLR exp_range": lambda m, o: m.optim.lr_scheduler.CyclicLR(
        o, base_lr=0.01, max_lr=0.1, step_size_up=5, mode="exp_range", gamma=0.95),
    "CosineAnnealingWarmRestarts": lambda m, o: m.optim.lr_scheduler.CosineAnnealingWarmRestarts(
        o, T_0=5),
    "CosineAnnealingWarmRestarts T_mult": (
        lambda m, o: m.optim.lr_scheduler.CosineAnnealingWarmRestarts(
            o, T_0=3, T_mult=2, eta_min=0.001)),
    "SWALR cos": lambda m, o: m.optim.swa_utils.SWALR(o, swa_lr=0.05, anneal_epochs=7),
    "SWALR linear": lambda m, o: m.optim.swa_utils.SWALR(
        o, swa_lr=[0.05, 0.01], anneal_epochs=4, anneal_strategy="linear"),
    "SWALR no anneal": lambda m, o: m.optim.swa_utils.SWALR(o, swa_lr=0.02, anneal_epochs=0),
    "SequentialLR": _sequential,
    "ChainedScheduler": _chained,
}
ADAM = {"OneCycleLR cos", "CyclicLR exp_range"}


def _lrs(opt):
    return [
        (g["lr"], g.get("momentum"), g.get("betas")) for g in opt.param_groups
    ]


def _run(m, name, steps=STEPS):
    opt = _optimizer(m, "Adam" if name in ADAM else "SGD")
    sched = SCHEDULERS[name](m, opt)
    seq = [(sched.get_last_lr(), _lrs(opt))]
    for _ in range(steps):
        opt.step()
        sched.step()
        seq.append((sched.get_last_lr(), _lrs(opt)))
    return opt, sched, seq


def _comparable(sd):
    """A scheduler state_dict with what cannot be compared across libraries (the optimizer,
    bound methods) replaced by its kind."""
    out = {}
    for k, v in sd.items():
        if k == "_schedulers":
            v = [_comparable(s) for s in v]
        elif callable(v):
            v = "callable"
        out[k] = v
    return out


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_learning_rates_equal_torch(torch, name):
    gopt, gs, gseq = _run(G, name)
    topt, ts, tseq = _run(torch, name)
    assert gseq == tseq  # exact: same float operations in the same order
    assert _comparable(gs.state_dict()) == _comparable(ts.state_dict())
    assert list(gs.state_dict()) == list(ts.state_dict())
    assert gopt.param_groups[0].keys() == topt.param_groups[0].keys()


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_state_dict_round_trip(name):
    """Saving after 10 steps, loading into a fresh optimizer and scheduler and going on gives
    the uninterrupted sequence."""
    _, _, ref = _run(G, name)
    opt, sched, seq = _run(G, name, steps=10)
    osd, ssd = opt.state_dict(), sched.state_dict()
    opt2 = _optimizer(G, "Adam" if name in ADAM else "SGD")
    sched2 = SCHEDULERS[name](G, opt2)
    sched2.load_state_dict(ssd)
    opt2.load_state_dict(osd)
    for _ in range(STEPS - 10):
        opt2.step()
        sched2.step()
        seq.append((sched2.get_last_lr(), _lrs(opt2)))
    assert seq == ref


PLATEAU = {
    "min rel": {},
    "max abs": {"mode": "max", "threshold_mode": "abs", "threshold": 0.05},
    "cooldown min_lr": {"patience": 1, "cooldown": 2, "min_lr": [0.02, 0.001], "factor": 0.5},
    "eps": {"patience": 0, "factor": 0.5, "eps": 0.02},
    "max rel": {"mode": "max", "patience": 2},
    "min abs": {"threshold_mode": "abs", "patience": 1, "threshold": 0.1},
}
METRICS = [1.0, 0.9, 0.95, 0.95, 0.96, 0.89, 0.9, 0.9, 0.91, 0.92] * 3 + [0.5] * 10


@pytest.mark.parametrize("case", list(PLATEAU))
def test_reduce_lr_on_plateau_equal_torch(torch, case):
    def run(m):
        opt = _optimizer(m)
        sched = m.optim.lr_scheduler.ReduceLROnPlateau(opt, **PLATEAU[case])
        seq = []
        for i, metric in enumerate(METRICS):
            opt.step()
            sched.step(m.tensor(metric) if i % 2 else metric)
            seq.append((sched.get_last_lr(), sched.num_bad_epochs, sched.cooldown_counter,
                        sched.best))
        return seq, sched.state_dict()

    (gseq, gsd), (tseq, tsd) = run(G), run(torch)
    assert gseq == tseq
    assert gsd == tsd


def test_reduce_lr_on_plateau_round_trip():
    kw = PLATEAU["cooldown min_lr"]
    opt = _optimizer(G)
    sched = G.optim.lr_scheduler.ReduceLROnPlateau(opt, **kw)
    for metric in METRICS[:12]:
        sched.step(metric)
    sd = sched.state_dict()
    sched2 = G.optim.lr_scheduler.ReduceLROnPlateau(_optimizer(G), **kw)
    sched2.optimizer.load_state_dict(opt.state_dict())
    sched2.load_state_dict(sd)
    for metric in METRICS[12:]:
        sched.step(metric)
        sched2.step(metric)
        assert sched.get_last_lr() == sched2.get_last_lr()
        assert sched.num_bad_epochs == sched2.num_bad_epochs


def test_closed_form_with_epoch_equal_torch():
    """The deprecated `step(epoch)` takes the closed form, with PyTorch's warning."""

    def run(m):
        s = m.optim.lr_scheduler
        out = []
        for make in (
            lambda o: s.StepLR(o, 3, gamma=0.5),
            lambda o: s.MultiStepLR(o, [2, 5, 5]),
            lambda o: s.ExponentialLR(o, 0.9),
            lambda o: s.CosineAnnealingLR(o, 8, eta_min=0.01),
            lambda o: s.LinearLR(o, 0.2, total_iters=6),
            lambda o: s.ConstantLR(o, 0.4, total_iters=3),
            lambda o: s.PolynomialLR(o, total_iters=6, power=0.5),
            lambda o: s.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2),
        ):
            opt = _optimizer(m)
            sched = make(opt)
            for epoch in (4, 1, 9, 7.5 if isinstance(sched, s.CosineAnnealingWarmRestarts) else 7):
                opt.step()
                sched.step(epoch)
                out.append(sched.get_last_lr())
        return out

    g, t = check_warning(run)
    assert g == t


def test_warnings_equal_torch():
    # A scheduler step before any optimizer step.
    check_warning(lambda m: SCHEDULERS["StepLR"](m, _optimizer(m)).step())
    # get_lr called from outside step.
    check_warning(lambda m: SCHEDULERS["ExponentialLR"](m, _optimizer(m)).get_lr())
    # No warning when the optimizer stepped first.
    check_warning(lambda m: _run(m, "StepLR", steps=3))


def _past_the_end(m):
    opt = _optimizer(m)
    sched = m.optim.lr_scheduler.OneCycleLR(opt, 1.0, total_steps=3)
    for _ in range(4):
        opt.step()
        sched.step()


ERRORS = {
    "not an optimizer": lambda m: m.optim.lr_scheduler.StepLR(object(), 3),
    "resume without initial_lr": lambda m: m.optim.lr_scheduler.StepLR(
        _optimizer(m), 3, last_epoch=4),
    "lambdas count": lambda m: m.optim.lr_scheduler.LambdaLR(_optimizer(m), [lambda e: 1.0]),
    "multiplicative not callable": lambda m: m.optim.lr_scheduler.MultiplicativeLR(
        _optimizer(m), 0.5),
    "constant factor": lambda m: m.optim.lr_scheduler.ConstantLR(_optimizer(m), factor=1.5),
    "linear start": lambda m: m.optim.lr_scheduler.LinearLR(_optimizer(m), start_factor=0),
    "linear end": lambda m: m.optim.lr_scheduler.LinearLR(_optimizer(m), end_factor=2),
    "sequential empty": lambda m: m.optim.lr_scheduler.SequentialLR(_optimizer(m), [], []),
    "sequential milestones": lambda m: (lambda o: m.optim.lr_scheduler.SequentialLR(
        o, [m.optim.lr_scheduler.StepLR(o, 2)], [3]))(_optimizer(m)),
    "sequential plateau": lambda m: (lambda o: m.optim.lr_scheduler.SequentialLR(
        o, [m.optim.lr_scheduler.ReduceLROnPlateau(o)], []))(_optimizer(m)),
    "chained empty": lambda m: m.optim.lr_scheduler.ChainedScheduler([]),
    "plateau factor": lambda m: m.optim.lr_scheduler.ReduceLROnPlateau(_optimizer(m), factor=1),
    "plateau mode": lambda m: m.optim.lr_scheduler.ReduceLROnPlateau(_optimizer(m), mode="mid"),
    "plateau threshold mode": lambda m: m.optim.lr_scheduler.ReduceLROnPlateau(
        _optimizer(m), threshold_mode="x"),
    "plateau min_lrs": lambda m: m.optim.lr_scheduler.ReduceLROnPlateau(
        _optimizer(m), min_lr=[0.1]),
    "onecycle no steps": lambda m: m.optim.lr_scheduler.OneCycleLR(_optimizer(m), 1.0),
    "onecycle total_steps": lambda m: m.optim.lr_scheduler.OneCycleLR(
        _optimizer(m), 1.0, total_steps=0),
    "onecycle epochs": lambda m: m.optim.lr_scheduler.OneCycleLR(
        _optimizer(m), 1.0, epochs=-1, steps_per_epoch=2),
    "onecycle pct": lambda m: m.optim.lr_scheduler.OneCycleLR(
        _optimizer(m), 1.0, total_steps=10, pct_start=1),
    "onecycle anneal": lambda m: m.optim.lr_scheduler.OneCycleLR(
        _optimizer(m), 1.0, total_steps=10, anneal_strategy="exp"),
    "onecycle max_lr list": lambda m: m.optim.lr_scheduler.OneCycleLR(
        _optimizer(m), [1.0], total_steps=10),
    "onecycle no momentum": lambda m: m.optim.lr_scheduler.OneCycleLR(
        m.optim.Adagrad([m.ones(1, requires_grad=True)]), 1.0, total_steps=10),
    "onecycle past the end": lambda m: _past_the_end(m),
    "cyclic mode": lambda m: m.optim.lr_scheduler.CyclicLR(_optimizer(m), 0.1, 1.0, mode="x"),
    "swalr strategy": lambda m: m.optim.swa_utils.SWALR(
        _optimizer(m), 0.1, anneal_strategy="exp"),
    "swalr epochs": lambda m: m.optim.swa_utils.SWALR(_optimizer(m), 0.1, anneal_epochs=-1),
    "swalr swa_lr list": lambda m: m.optim.swa_utils.SWALR(_optimizer(m), [0.1]),
    "warm restarts T_0": lambda m: m.optim.lr_scheduler.CosineAnnealingWarmRestarts(
        _optimizer(m), T_0=0),
    "warm restarts T_mult": lambda m: m.optim.lr_scheduler.CosineAnnealingWarmRestarts(
        _optimizer(m), T_0=2, T_mult=1.5),
    "warm restarts eta_min": lambda m: m.optim.lr_scheduler.CosineAnnealingWarmRestarts(
        _optimizer(m), T_0=2, eta_min="0"),
    "warm restarts negative epoch": lambda m: m.optim.lr_scheduler.CosineAnnealingWarmRestarts(
        _optimizer(m), T_0=2).step(-1),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_equal_torch(case):
    check_error(ERRORS[case])


def test_without_torch():
    """Closed-form checks: the recursive cosine follows the closed form within rounding, the
    groups keep `initial_lr`, and a tensor lr is updated in place."""
    opt = _optimizer(G)
    sched = G.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10, eta_min=0.01)
    for epoch in range(1, 11):
        opt.step()
        sched.step()
        want = 0.01 + (0.1 - 0.01) * (1 + math.cos(math.pi * epoch / 10)) / 2
        assert sched.get_last_lr()[0] == pytest.approx(want, rel=1e-12)
    assert [g["initial_lr"] for g in opt.param_groups] == [0.1, 0.3]

    lr = G.tensor(0.5)
    opt = G.optim.SGD([G.ones(1, requires_grad=True)], lr=lr)
    sched = G.optim.lr_scheduler.StepLR(opt, 1, gamma=0.5)
    opt.step()
    sched.step()
    assert opt.param_groups[0]["lr"] is lr and lr.item() == 0.25
    assert sched.get_last_lr()[0] is not lr
