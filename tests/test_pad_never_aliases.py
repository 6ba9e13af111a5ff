"""F.pad in 'constant' mode always returns a new tensor, as PyTorch's constant_pad_nd: with
zero pads (`F.pad(x, (0, pad_w, 0, pad_h))` where both are 0, as window-partitioning code
computes them) or only negative ones, gradrs returned `input` itself or a narrowed view of it,
so an in-place op on the result wrote into the input. Values, aliasing, view-ness, strides,
grad_fn and gradients are compared with torch."""

from __future__ import annotations

import pytest
from conftest import G, need_torch, needs_torch

pytestmark = needs_torch

PADS = [(0, 0), (0, 0, 0, 0), (-1, 0), (0, -1, -1, 0), (1, 0), (-1, 1), (0, 0, 1, 0)]


def _run(lib, pads, transposed, grad):
    x = lib.arange(12.0, dtype=lib.float64).reshape(3, 4)
    if transposed:
        x = x.t()
    if grad:
        x.requires_grad_()
    y = lib.nn.functional.pad(x, pads, value=2.0)
    facts = [y is x, y._is_view(), tuple(y.stride()), y.is_contiguous(),
             None if y.grad_fn is None else y.grad_fn.name()]
    if grad:
        y.mul_(3).sum().backward()
        facts.append(x.grad.tolist())
    else:
        y.add_(100)
        facts.append(x.tolist())
    return facts + [y.tolist()]


@pytest.mark.parametrize("grad", [False, True])
@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("pads", PADS)
def test_constant_pad_is_a_new_tensor(pads, transposed, grad):
    torch = need_torch()
    assert _run(G, pads, transposed, grad) == _run(torch, pads, transposed, grad)
