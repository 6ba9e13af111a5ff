"""F.*_with_indices against torch 2.13: they return (values, indices) whatever return_indices
says, with the same values, indices and gradients as torch."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import G

CASES = [
    ("max_pool1d_with_indices", (2, 3, 7), (2,), {}),
    ("max_pool2d_with_indices", (2, 5, 6), (2,), {"stride": 1, "padding": 1}),
    ("max_pool3d_with_indices", (1, 2, 4, 4, 5), (2,), {"ceil_mode": True}),
    ("adaptive_max_pool1d_with_indices", (2, 3, 7), (3,), {}),
    ("adaptive_max_pool2d_with_indices", (2, 5, 6), ((2, 3),), {}),
    ("adaptive_max_pool3d_with_indices", (1, 2, 4, 4, 5), (2,), {}),
]


@pytest.mark.parametrize("return_indices", [False, True])
@pytest.mark.parametrize(("name", "shape", "args", "kw"), CASES, ids=[c[0] for c in CASES])
def test_tuple_values_indices_grads_match_torch(torch, name, shape, args, kw, return_indices):
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    out = []
    for m in (G, torch):
        t = m.tensor(x, requires_grad=True)
        r = getattr(m.nn.functional, name)(t, *args, return_indices=return_indices, **kw)
        assert isinstance(r, tuple) and len(r) == 2
        r[0].sum().backward()
        out.append((r[0].detach().numpy(), r[1].numpy(), str(r[1].dtype).split(".")[-1],
                    t.grad.numpy()))
    for a, b in zip(*out):
        if isinstance(a, str):
            assert a == b
        else:
            np.testing.assert_array_equal(a, b)
