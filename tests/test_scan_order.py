"""CPU cumsum / cumprod bit-equal to PyTorch's (Note [Scan accumulation] in
src/kernels/reduce.rs).

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
