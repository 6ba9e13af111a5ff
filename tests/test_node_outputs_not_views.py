"""Results of the Python compositions that get one node through `_ops._common._node` (take,
index_put, nanmedian, kron...) are tensors of their own, as PyTorch's: not views of the
temporaries they were reshaped or squeezed from under no_grad. A view there let an in-place op
after the op (`y = x.take(i); y.mul_(2)`) rebase it onto that temporary, a CopySlices with no
history, and the input's gradient was silently lost (found by tests/programs/glow_lu_flow.py's
sweep, programs_gaps.md 65)."""

from __future__ import annotations

import pytest
from conftest import G, need_torch, needs_torch

pytestmark = needs_torch


def _cases(lib):
    return {
        "take": lambda m: lib.take(m, lib.tensor([[0, 5], [3, 2]])),
        "take_flat": lambda m: m.take(lib.tensor([0, 5, 11])),
        "index_put": lambda m: m.index_put((lib.tensor([0, 2]),), lib.tensor(1.0, dtype=m.dtype)),
        "index_put_acc": lambda m: lib.index_put(m, (lib.tensor([1]), lib.tensor([2])),
                                                 lib.tensor([5.0], dtype=m.dtype), accumulate=True),
        "nanmedian_dim": lambda m: m.nanmedian(1)[0],
        "nanmedian_keepdim": lambda m: m.nanmedian(0, keepdim=True)[0],
        "kron": lambda m: lib.kron(m, m[:2, :2]),
    }


@pytest.mark.parametrize("name", sorted(_cases(G)))
def test_in_place_after_the_op_keeps_the_gradient(name):
    torch = need_torch()
    results = []
    for lib in (torch, G):
        lib.manual_seed(0)
        m = lib.randn(3, 4, dtype=lib.float64).requires_grad_()
        y = _cases(lib)[name](m)
        view = y._is_view()
        y.mul_(2).add_(1)
        (y * y).sum().backward()
        results.append((view, y.grad_fn.name(), y.detach().numpy().tolist(),
                        None if m.grad is None else m.grad.numpy().tolist()))
    assert results[1] == results[0]
