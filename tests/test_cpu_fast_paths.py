"""The CPU fast paths taken for speed (issue 26) give the results of the general paths they skip."""

import numpy as np
import pytest
from conftest import G, assert_same_values

def _one_minus_sq_fused(r):
    """`fma(-r, r, 1)` rounded once to r's dtype: exact in fractions, then one rounding (to
    float64 exactly; float32 from that float64, a double rounding only at a float32 tie)."""
    from fractions import Fraction

    a = r.numpy()
    out = [float(1 - Fraction(float(v)) * Fraction(float(v))) for v in a.reshape(-1)]
    return G.tensor(np.array(out, dtype=a.dtype).reshape(a.shape))


# (op, the declared derivative composed of tensor ops, from the incoming gradient g and the
# saved result r), as ops/unary_decl.rs writes it.
FUSED = {
    # ATen's tanh_backward kernel, `g * fma(-r, r, 1)` (activation::tanh_backward)
    "tanh": lambda g, r: g * _one_minus_sq_fused(r),
    "sigmoid": lambda g, r: (g * (1 - r)) * r,  # ATen's sigmoid_backward order (265b3b2)
    "tan": lambda g, r: g * (r * r + 1),
}


def _grad_of(op, x, g):
    y = getattr(x, op)()
    (gx,) = G.autograd.grad(y, x, g)
    return y, gx


@pytest.mark.parametrize("op", sorted(FUSED))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["contiguous", "expanded", "transposed"])
def test_fused_unary_grad_is_the_composed_formula_bit_for_bit(op, dtype, layout):
    G.manual_seed(0)
    dt = getattr(G, dtype)
    x = (G.randn(6, 5, dtype=dt) * 0.7).requires_grad_()
    g = {
        "contiguous": G.randn(6, 5, dtype=dt),
        "expanded": G.randn(1, 5, dtype=dt).expand(6, 5),
        "transposed": G.randn(5, 6, dtype=dt).t(),
    }[layout]
    y, gx = _grad_of(op, x, g)
    with G.no_grad():
        want = FUSED[op](g, y.detach())
    assert gx.dtype == want.dtype and gx.shape == want.shape
    # (bits compared element by element, whatever the layouts: a transposed gradient's
    # composed formula is transposed too, Note [Elementwise output strides])
    np.testing.assert_array_equal(np.ascontiguousarray(gx.numpy()).view(np.uint8),
                                  np.ascontiguousarray(want.numpy()).view(np.uint8))


@pytest.mark.parametrize("op", sorted(FUSED))
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_fused_unary_grad_matches_torch(torch, op, dtype):
    x = np.linspace(-1.2, 1.2, 24).reshape(4, 6)
    w = np.cos(np.arange(24.0)).reshape(4, 6)
    outs = []
    for lib in (G, torch):
        dt = getattr(lib, dtype)
        xt = lib.tensor(x, dtype=dt, requires_grad=True)
        (getattr(xt, op)() * lib.tensor(w, dtype=dt)).sum().backward()
        outs.append(xt.grad)
    assert_same_values(*outs)


@pytest.mark.parametrize("op", sorted(FUSED))
def test_create_graph_keeps_the_differentiable_formula(torch, op):
    x = np.linspace(-1.0, 1.0, 7)
    outs = []
    for lib in (G, torch):
        xt = lib.tensor(x, dtype=lib.float64, requires_grad=True)
        (gx,) = lib.autograd.grad(getattr(xt, op)().sum(), xt, create_graph=True)
        assert gx.requires_grad
        (ggx,) = lib.autograd.grad(gx.sum(), xt)
        outs.append((gx.detach(), ggx))
    for a, b in zip(*outs):
        assert_same_values(a, b)


def test_long_chain_backward():
    # The engine's flat per-node bookkeeping over a deep chain with a shared leaf.
    x = G.randn(8, dtype=G.float64, requires_grad=True)
    y = x
    for _ in range(3000):
        y = y.tanh() + x * 1e-3
    y.sum().backward()
    xn = x.detach().numpy()
    yn, dy = xn.copy(), np.ones(8)
    ys = []
    for _ in range(3000):
        ys.append(yn)
        yn = np.tanh(yn) + xn * 1e-3
    grad = np.zeros(8)
    for yi in reversed(ys):
        grad += dy * 1e-3
        dy = dy * (1 - np.tanh(yi) ** 2)
    grad += dy
    np.testing.assert_allclose(x.grad.numpy(), grad, rtol=1e-10, atol=1e-12)
