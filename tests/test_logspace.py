"""torch.logspace against PyTorch: values bit for bit (the exponents in double, C's pow, the
casts, integer and float16 results), the forms it takes and its errors."""

import numpy as np
import pytest
from conftest import G, assert_same_error


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int32"])
def test_logspace_values(torch, dtype):
    cases = [(0, 1, 5, 10), (-3.3, 2.7, 101, 10), (1, -1, 33, np.e), (0.1, 0.9, 1000, 3.5),
             (2, 2, 1, 10), (-5, 5, 17, 0.5), (0, 70, 3, 10), (-1.5, 2.5, 5, 10), (0, 1, 3, -2.0),
             (0, 1, 0, 10), (0, 400, 5, 10.0), (1, 5, 5, -2.0)]
    for a, b, n, base in cases:
        g = G.logspace(a, b, n, base=base, dtype=getattr(G, dtype)).numpy()
        t = torch.logspace(a, b, n, base=base, dtype=getattr(torch, dtype)).numpy()
        np.testing.assert_array_equal(g, t)


def test_logspace_forms_and_errors(torch):
    for call in (lambda m: m.logspace(0, 3, 4), lambda m: m.logspace(m.tensor(0), m.tensor(2.0), 3),
                 lambda m: m.logspace(0, 1, 3, requires_grad=True)):
        g, t = call(G), call(torch)
        assert repr(g) == repr(t).replace("torch", "gradrs")
    out = G.empty(1)
    assert G.logspace(0, 1, 3, out=out) is out and out.shape == (3,)
    for call in (lambda m: m.logspace(0, 1, 5, dtype=m.bool), lambda m: m.logspace(0, 1, -1),
                 lambda m: m.logspace(0, 1, 2.5), lambda m: m.logspace(0, 1),
                 lambda m: m.logspace(0, 1, 3, dtype=m.int64, requires_grad=True),
                 lambda m: m.logspace(m.ones(2), 1, 3), lambda m: m.logspace(0, 1, 3, base="a")):
        assert_same_error(lambda c=call: c(G), lambda c=call: c(torch))
