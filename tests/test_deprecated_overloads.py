"""PyTorch's deprecated scalar-first overloads, as optimizers written for PyTorch 1.x call them on
every step (`exp_avg.mul_(beta1).add_(1 - beta1, grad)`, `exp_avg_sq.addcmul_(1 - beta2, grad,
grad)`, `p.data.addcdiv_(-step_size, exp_avg, denom)`): values, gradients and the one
deprecation warning as torch 2.13's (found writing tests/programs/legacy_optimizers)."""

import subprocess
import sys

import numpy as np
import pytest

from conftest import run_both, to_np

CALLS = [
    lambda M, x, y: x.add(0.5, y),
    lambda M, x, y: x.clone().add_(-2, y),
    lambda M, x, y: x.sub(3, y),
    lambda M, x, y: x.clone().sub_(0.25, y),
    lambda M, x, y: x.add(0.5, other=y),
    lambda M, x, y: M.add(x, 2, y),
    lambda M, x, y: M.sub(x, 2, y),
    lambda M, x, y: x.addcmul(0.5, y, y),
    lambda M, x, y: x.clone().addcmul_(-1, y, x),
    lambda M, x, y: x.addcdiv(0.5, y, x),
    lambda M, x, y: x.clone().addcdiv_(2, y, x + 1),
    lambda M, x, y: M.addcmul(x, 0.5, y, y),
    lambda M, x, y: x.add(y, alpha=2),  # the current forms are untouched
    lambda M, x, y: x.addcmul(y, y, value=3),
]


@pytest.mark.parametrize("call", CALLS)
def test_scalar_first_overloads(call):
    def run(M):
        x = M.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = M.tensor([0.5, -1.0, 4.0], requires_grad=True)
        out = call(M, x, y)
        out.pow(2).sum().backward()
        return to_np(out), to_np(x.grad), to_np(y.grad)

    for g, t in zip(*run_both(run)):
        np.testing.assert_allclose(g, t, rtol=1e-6)


def test_adam_step_in_pytorch_1_style():
    def run(M):
        M.manual_seed(0)
        p = M.linspace(-1, 1, 5)
        grad = M.linspace(0.3, -0.2, 5)
        exp_avg, exp_avg_sq = M.zeros_like(p), M.zeros_like(p)
        for _ in range(3):
            exp_avg.mul_(0.9).add_(1 - 0.9, grad)
            exp_avg_sq.mul_(0.999).addcmul_(1 - 0.999, grad, grad)
            denom = exp_avg_sq.sqrt().add_(1e-8)
            p.addcdiv_(-0.01, exp_avg, denom)
        return to_np(p)

    g, t = run_both(run)
    np.testing.assert_array_equal(g, t)


def test_one_deprecation_warning_per_process():
    code = ("import warnings, gradrs as t\nwarnings.simplefilter('always')\n"
            "x = t.ones(2)\nx.add_(1, x)\nx.addcmul_(1, x, x)\nx.add_(1, x)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("UserWarning") == 1
    assert ("This overload of add_ is deprecated:\n\tadd_(Number alpha, Tensor other)\n"
            "Consider using one of the following signatures instead:\n"
            "\tadd_(Tensor other, *, Number alpha = 1)") in r.stderr
