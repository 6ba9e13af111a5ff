"""The strides of elementwise results (Note [Elementwise output strides] in
src/kernels/order.rs): PyTorch's TensorIterator lays a result out as its operands are laid
out, vs torch 2.13."""

from __future__ import annotations

import pytest
from conftest import check_error, need_torch

CASES = {
    "transposed clone plus a number": lambda m: m.ones(2, 3).t().clone() + 1,
    "transposed plus a number": lambda m: m.ones(2, 3).t() + 1,
    "transposed exp": lambda m: m.ones(2, 3).t().exp(),
    "negated transposed": lambda m: -m.ones(3, 2).t(),
    "permuted clone": lambda m: m.ones(2, 3, 4).permute(2, 0, 1).clone() + 1,
    "channels last times 2": lambda m: m.ones(2, 3, 4, 5).permute(0, 2, 3, 1).contiguous()
    .permute(0, 3, 1, 2) * 2,
    "first operand decides": lambda m: m.ones(3, 2).t() + m.ones(2, 3),
    "first operand row-major": lambda m: m.ones(2, 3) + m.ones(3, 2).t(),
    "broadcast row": lambda m: m.ones(3, 2).t() + m.ones(3),
    "broadcast middle": lambda m: m.ones(4, 3, 2).permute(2, 1, 0) + m.ones(1, 3, 1),
    "sliced": lambda m: m.ones(4, 6)[:, ::2] + 1,
    "size-1 dim transposed": lambda m: m.ones(1, 3).t() + 1,
    "size-1 dim permuted": lambda m: m.ones(2, 1, 3).permute(2, 1, 0) + 1,
    "size-1 dim permuted exp": lambda m: m.ones(2, 1, 3).permute(2, 1, 0).exp(),
    "where": lambda m: m.where(m.ones(3, 2).t() > 0, m.ones(3, 2).t(), 0.0),
    "lerp": lambda m: m.lerp(m.ones(3, 2).t(), m.ones(2, 3), 0.5),
    "comparison": lambda m: m.ones(3, 2).t() > 0,
    "empty": lambda m: m.ones(0, 3).t() + 1,
    "expanded": lambda m: m.ones(3, 1).expand(3, 4).t() + 1,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_elementwise_result_strides(name):
    import gradrs

    torch = need_torch()
    g, t = CASES[name](gradrs), CASES[name](torch)
    assert g.stride() == t.stride()
    assert g.shape == t.shape
    assert g.numpy().tolist() == t.numpy().tolist()


def test_permuted_results_equal_and_differentiate():
    import gradrs

    torch = need_torch()
    outs = []
    for m in (gradrs, torch):
        x = m.arange(24.0, dtype=m.float64).view(2, 3, 4).permute(2, 0, 1).requires_grad_()
        y = (x * 2 + x.sin()) * x - x / 3
        y.backward(m.ones(4, 2, 3, dtype=m.float64).permute(1, 2, 0).permute(2, 0, 1))
        outs.append((y.detach().numpy().tolist(), y.stride(), x.grad.numpy().tolist()))
    assert outs[0] == outs[1]


# ---- max_pool2d's indices are saved (PyTorch's `result1`): changed in place, backward raises --
def test_max_pool2d_indices_modified_in_place():
    def run(m):
        x = m.ones(1, 1, 4, 4).requires_grad_()
        v, i = m.nn.functional.max_pool2d(x, 2, return_indices=True)
        i.add_(0)
        v.sum().backward()

    check_error(run)


# ---- several ellipses: PyTorch moves past the unindexed dims at each ------------------------
ELLIPSES = {
    "two": lambda m: m.arange(6.0).view(2, 3)[..., ...],
    "around an index": lambda m: m.arange(6.0).view(2, 3)[..., 0, ...],
    "around a list": lambda m: m.arange(6.0).view(2, 3)[..., [0, 1], ...],
    "every dim indexed": lambda m: m.arange(6.0).view(2, 3)[0, ..., 1, ...],
    "three": lambda m: m.arange(6.0).view(2, 3)[..., ..., ...],
}


@pytest.mark.parametrize("name", sorted(ELLIPSES))
def test_several_ellipses(name):
    import gradrs

    torch = need_torch()
    g, t = ELLIPSES[name](gradrs), ELLIPSES[name](torch)
    assert g.shape == t.shape and g.numpy().tolist() == t.numpy().tolist()


def test_several_ellipses_write():
    import gradrs

    torch = need_torch()
    got = []
    for m in (gradrs, torch):
        y = m.zeros(2, 3)
        y[..., 0, ...] = 5
        got.append(y.numpy().tolist())
    assert got[0] == got[1]
