"""clamp / clamp_min / clamp_max / hardtanh / relu6 / maximum / minimum bit for bit against
PyTorch's CPU kernels: NaN inputs and bounds, signed zeros, crossed bounds, every dtype.

The op table (tests/op_table.py) checks values and gradients; these check the bits its
comparisons let pass (-0.0 == 0.0) on tensors long enough to run PyTorch's vector loops, whose
tie rules gradrs follows (its scalar tail, for the last few elements, breaks ties the other way
for maximum / minimum and tensor bounds).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import G

NAN, INF = math.nan, math.inf
VALUES = [-0.0, 0.0, NAN, -1.0, 2.0, INF, -INF, 0.5]
N = 64  # a multiple of every vector width


def bits(t):
    """The exact bits of a result (NaN payloads aside) with its dtype name."""
    a = t.detach().numpy() if hasattr(t, "numpy") else np.asarray(t)
    if a.dtype.kind == "f":
        a = np.where(np.isnan(a), np.nan, a)
        return str(t.dtype).split(".")[-1], a.tobytes()
    return str(t.dtype).split(".")[-1], a.tolist()


def pair(torch, values, dtype):
    data = (values * N)[:N]
    return torch.tensor(data, dtype=getattr(torch, dtype)), G.tensor(data, dtype=getattr(G, dtype))


BOUNDS = [(0.0, 1.0), (-0.0, None), (0.0, None), (None, -0.0), (None, 0.0), (NAN, 1.0),
          (0.0, NAN), (None, NAN), (1.0, 0.0), (-0.5, 0.5)]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("lo,hi", BOUNDS)
def test_clamp_number_bounds(torch, dtype, lo, hi):
    t, g = pair(torch, VALUES, dtype)
    assert bits(G.clamp(g, lo, hi)) == bits(torch.clamp(t, lo, hi))
    if lo is not None:
        assert bits(g.clamp_min(lo)) == bits(t.clamp_min(lo))
    if hi is not None:
        assert bits(g.clamp_max(hi)) == bits(t.clamp_max(hi))


@pytest.mark.parametrize("dtype", ["int64", "int32"])
@pytest.mark.parametrize("lo,hi", [(0, 1), (-1, None), (None, 0), (3, -3), (-0.5, 1.5)])
def test_clamp_integers(torch, dtype, lo, hi):
    t, g = pair(torch, [-3, 0, 1, 2, 7, -8], dtype)
    assert bits(G.clamp(g, lo, hi)) == bits(torch.clamp(t, lo, hi))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_tensor_bounds_and_extrema(torch, dtype):
    # Every pair of VALUES, so ties of signed zeros and NaN on either side all occur.
    a_vals = [p for p in VALUES for _ in VALUES]
    b_vals = [q for _ in VALUES for q in VALUES]
    ta, ga = pair(torch, a_vals, dtype)
    tb, gb = pair(torch, b_vals, dtype)
    for name in ("maximum", "minimum", "clamp_min", "clamp_max"):
        assert bits(getattr(G, name)(ga, gb)) == bits(getattr(torch, name)(ta, tb)), name
    tc, gc = pair(torch, list(reversed(b_vals)), dtype)
    assert bits(G.clamp(ga, gb, gc)) == bits(torch.clamp(ta, tb, tc))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_hardtanh_and_relu6(torch, dtype):
    values = VALUES + [6.0, 7.0, -2.0] if dtype != "int64" else [-3, 0, 1, 6, 7, 9]
    t, g = pair(torch, values, dtype)
    for lo, hi in [(-1.0, 1.0), (0.0, 0.5), (-0.0, 2.0)]:
        want = torch.nn.functional.hardtanh(t, lo, hi)
        assert bits(G.nn.functional.hardtanh(g, lo, hi)) == bits(want)
    assert bits(G.nn.functional.relu6(g)) == bits(torch.nn.functional.relu6(t))


def test_large_clamp_matches_numpy():
    # Past the parallel threshold, with the bounds inside the data's range.
    x = G.randn(1 << 17)
    a = x.numpy()
    np.testing.assert_array_equal(x.clamp(-0.5, 0.5).numpy(), np.clip(a, -0.5, 0.5))
    np.testing.assert_array_equal(G.maximum(x, -x).numpy(), np.abs(a))
