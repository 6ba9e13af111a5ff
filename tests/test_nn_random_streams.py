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


LAYOUTS = {
    "transposed": lambda m: m.ones(3, 2, 4).transpose(0, 1),
    "permuted": lambda m: m.ones(2, 3, 4).permute(2, 0, 1),
    "sliced": lambda m: m.ones(4, 5)[:, ::2],
    "size-1 dim": lambda m: m.ones(3, 1, 4).transpose(1, 2),
    "expanded rows": lambda m: m.ones(1, 5).expand(3, 5),
    "expanded cols": lambda m: m.ones(4, 1).expand(4, 3),
    "sliced transposed": lambda m: m.ones(2, 2, 3)[:, :, ::2].transpose(0, 2),
}


@pytest.mark.parametrize("fn", ["dropout", "alpha_dropout"])
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_dropout_mask_follows_input_layout(torch, fn, layout):
    """PyTorch draws the mask into empty_like(input), in the memory order of the input's
    layout (a transposed attention output gets a transposed mask)."""
    def run(m):
        m.manual_seed(0)
        y = getattr(m.nn.functional, fn)(LAYOUTS[layout](m), 0.3, True)
        return y.numpy(), m.rand(2).numpy()

    for a, b in zip(run(G), run(torch)):
        np.testing.assert_array_equal(a, b)


def test_transformer_layer_with_dropout_matches_torch(torch):
    """Its attention output is a transposed view (batch_first), so its dropout1 mask is laid
    out as PyTorch's."""
    def run(m):
        m.manual_seed(0)
        layer = m.nn.TransformerEncoderLayer(4, 2, 8, dropout=0.3, batch_first=True)
        return layer(m.arange(24.0).reshape(2, 3, 4)).detach().numpy(), m.rand(2).numpy()

    (gy, gr), (ty, tr) = run(G), run(torch)
    np.testing.assert_allclose(gy, ty, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(gr, tr)
