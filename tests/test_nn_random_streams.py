"""nn functions that draw random numbers draw PyTorch's CPU stream (torch 2.13): gumbel_softmax
(exponential_ samples) and nn.init.sparse_ (normal_ then one randperm per column from the
default generator) give torch's values, gradients and the draws after them."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import G


@pytest.mark.parametrize("hard", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gumbel_softmax_matches_torch(torch, hard, dtype):
    logits = np.random.default_rng(0).standard_normal((5, 7))

    def run(m):
        m.manual_seed(2)
        x = m.tensor(logits, dtype=getattr(m, dtype), requires_grad=True)
        y = m.nn.functional.gumbel_softmax(x, tau=0.7, hard=hard, dim=-1)
        (y * m.arange(7.0, dtype=getattr(m, dtype))).sum().backward()
        return y.detach().numpy(), x.grad.numpy(), m.rand(3).numpy()

    g, t = run(G), run(torch)
    np.testing.assert_array_equal(g[2], t[2])
    for a, b in zip(g[:2], t[:2]):
        np.testing.assert_allclose(a, b, rtol=2e-5 if dtype == "float32" else 1e-12,
                                   atol=2e-6 if dtype == "float32" else 1e-14)


@pytest.mark.parametrize("with_generator", [False, True])
def test_init_sparse_matches_torch(torch, with_generator):
    def run(m):
        m.manual_seed(5)
        gen = m.Generator().manual_seed(9) if with_generator else None
        w = m.nn.init.sparse_(m.empty(9, 6), 0.4, std=0.02, generator=gen)
        return w.numpy(), m.rand(2).numpy()

    g, t = run(G), run(torch)
    # The zeros (the permutations) are torch's exactly; normal_'s values (16 elements and more:
    # PyTorch's vectorized Box-Muller) agree to float32 rounding of the transform, not bits.
    np.testing.assert_array_equal(g[0] == 0, t[0] == 0)
    np.testing.assert_allclose(g[0], t[0], rtol=1e-5, atol=0)
    np.testing.assert_array_equal(g[1], t[1])
