"""CPU cumsum / cumprod / logcumsumexp bit-equal to PyTorch's (Note [Scan accumulation] and
Note [Logcumsumexp order] in src/kernels/reduce.rs).

ATen's cpu_cum_base_kernel keeps the running value in `acc_type<T, false>`: float64 for
float32 (each output the float64 running sum rounded to float32), float32 for float16 and
bfloat16. The gradients (a reversed cumsum of the gradient, cumprod's quotient of one) follow.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import G, assert_bits_equal, needs_torch

pytestmark = needs_torch


def _pair(torch, shape, dtype, seed, view=lambda x: x, positive=False):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape) * np.exp(rng.uniform(-2, 2, shape))
    if positive:
        x = np.abs(x) * 0.5 + 0.75  # products that neither vanish nor overflow
    x = x.astype(np.float32)
    g = view(G.tensor(x).to(getattr(G, dtype)))
    t = view(torch.tensor(x).to(getattr(torch, dtype)))
    return g, t


CASES = [
    ((1, 100), 1, lambda x: x),
    ((64, 100), 1, lambda x: x),
    ((64, 100), 0, lambda x: x),
    ((3, 5, 70), -2, lambda x: x),
    ((2000,), 0, lambda x: x),
    ((40, 30), 1, lambda x: x.t()),  # the scan dim strided
    ((40, 60), 1, lambda x: x[::2, 1::3]),
]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_scan_bits_match_torch(torch, dtype, case, op):
    shape, dim, view = CASES[case]
    g, t = _pair(torch, shape, dtype, case, view, positive=op == "cumprod")
    assert_bits_equal(getattr(g, op)(dim), getattr(t, op)(dim), f"{op} {dtype} {shape} dim {dim}")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_scan_grad_bits_match_torch(torch, dtype, case, op):
    shape, dim, view = CASES[case]
    gx, tx = _pair(torch, shape, dtype, case, positive=op == "cumprod")
    gx.requires_grad_()
    tx.requires_grad_()
    gw, tw = _pair(torch, view(tx).shape, dtype, case + 100)
    getattr(view(gx), op)(dim).backward(gw)
    getattr(view(tx), op)(dim).backward(tw)
    assert_bits_equal(gx.grad, tx.grad, f"{op} grad {dtype} {shape} dim {dim}")


def test_float32_cumsum_is_the_rounded_float64_running_sum(torch):
    # The repro of gap 64: 98 of 100 partial sums differed when gradrs added in float32.
    G.manual_seed(0)
    a = G.randn(1, 100)
    assert_bits_equal(a.cumsum(1), torch.tensor(a.numpy()).double().cumsum(1).float(), "cumsum")
    assert_bits_equal(a.cumsum(1), torch.tensor(a.numpy()).cumsum(1), "cumsum")


# logcumsumexp: ATen folds each element into a double (float for float16 / bfloat16) running
# value with `log1p(exp(min - max)) + max`; the special values exercise its min / max rule
# (a NaN running value wins; two equal infinities keep the element).
SPECIAL = [0.0, float("inf"), float("-inf"), float("nan"), 1e30, -1e30, 88.0, -104.0]


def _with_specials(g, t, seed):
    rng = np.random.default_rng(seed)
    flat = t.reshape(-1)
    pos = rng.choice(flat.numel(), size=min(12, flat.numel()), replace=False)
    vals = rng.choice(SPECIAL, size=len(pos))
    gflat = g.reshape(-1)
    for p, v in zip(pos.tolist(), vals.tolist()):
        gflat[p] = v
        flat[p] = v
    return g, t


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_logcumsumexp_bits_match_torch(torch, dtype, case):
    shape, dim, view = CASES[case]
    g, t = _pair(torch, shape, dtype, case)
    assert_bits_equal(view(g).logcumsumexp(dim), view(t).logcumsumexp(dim),
                      f"logcumsumexp {dtype} {shape} dim {dim}")
    g, t = _with_specials(g.clone(), t.clone(), case)
    assert_bits_equal(G.logcumsumexp(view(g), dim), torch.logcumsumexp(view(t), dim),
                      f"logcumsumexp {dtype} {shape} dim {dim} with inf / nan")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_logcumsumexp_infinities_match_torch(torch, dtype):
    inf, nan = float("inf"), float("nan")
    rows = [[-inf, -inf, 0.0, -inf], [inf, inf, 1.0, -inf], [-inf, inf, -inf, 2.0],
            [nan, 0.0, inf, -inf], [0.0, nan, -inf, inf], [inf, -inf, nan, nan],
            [-inf, -inf, -inf, -inf], [1e300, 1e300, -1e300, 3.0]]
    g = G.tensor(rows, dtype=getattr(G, dtype))
    t = torch.tensor(rows, dtype=getattr(torch, dtype))
    for d in (0, 1):
        assert_bits_equal(g.logcumsumexp(d), t.logcumsumexp(d), f"logcumsumexp {dtype} dim {d}")
    assert_bits_equal(G.tensor(2.5).logcumsumexp(0), torch.tensor(2.5).logcumsumexp(0), "0-dim")
    assert tuple(G.zeros(0, 3).logcumsumexp(0).shape) == (0, 3)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", [0, 2, 3, 5])
def test_logcumsumexp_grad_matches_torch(torch, dtype, case):
    shape, dim, view = CASES[case]
    gx, tx = _pair(torch, shape, dtype, case)
    gx.requires_grad_()
    tx.requires_grad_()
    gw, tw = _pair(torch, view(tx).shape, dtype, case + 100)
    view(gx).logcumsumexp(dim).backward(gw)
    view(tx).logcumsumexp(dim).backward(tw)
    # The backward is PyTorch's formula (two reversed logcumsumexps in log space) in gradrs
    # ops, whose float exp / log are within an ulp of ATen's vectorized ones.
    rtol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(gx.grad.numpy(), tx.grad.numpy(), rtol=rtol, atol=rtol)


def test_logcumsumexp_gradcheck():
    x = G.randn(3, 5, dtype=G.float64, requires_grad=True)
    assert G.autograd.gradcheck(lambda a: a.logcumsumexp(1), (x,))
    assert G.autograd.gradgradcheck(lambda a: a.logcumsumexp(0), (x,))
