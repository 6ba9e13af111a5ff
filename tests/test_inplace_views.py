"""In-place ops through views, compared with PyTorch (Note [View rebase] in src/ops/inplace.rs).

A write through a view changes its base: the base's history becomes CopySlices and the view's
AsStridedBackward0; other views of the same base see the write through their refreshed history.
Each case returns values, gradients and grad_fn names, compared by ``check``. Known difference:
PyTorch folds the in-place op's node into CopySlices (its next_functions are the base's edge
and the op's other inputs); gradrs's CopySlices takes the base and the op's result as inputs,
so ``next_functions`` below the top node differ while every gradient agrees.
"""

from __future__ import annotations

import pytest
from conftest import check, check_error, node_name

pytestmark = pytest.mark.usefixtures("restore_grad_mode")


def _name(fn):
    return None if fn is None else node_name(fn)


def _x(M):
    return M.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=M.float64, requires_grad=True)


def _grads(M, y, *leaves):
    (y * y).sum().backward()
    return [leaf.grad for leaf in leaves]


def case_select_mul(M):
    x = _x(M)
    y = x * 1
    v = y[0]
    v.mul_(10)
    return y, _name(y.grad_fn), _name(v.grad_fn), *_grads(M, y, x)


def case_column_zero(M):
    x = _x(M)
    y = x.clone()
    y[:, 1].zero_()
    return y, _name(y.grad_fn), *_grads(M, y, x)


def case_transposed_add(M):
    x = _x(M)
    y = x * 2
    y.t()[0].add_(x[:, 2])
    return y, _name(y.grad_fn), *_grads(M, y, x)


def case_view_of_view_with_other_input(M):
    x = _x(M)
    w = M.tensor([1.5, -2.0], dtype=M.float64, requires_grad=True)
    y = x * 1
    v = y[:, 1:][1]
    v.mul_(w)
    return y, _name(v.grad_fn), v._base is y, *_grads(M, y, x, w)


def case_stale_view(M):
    x = _x(M)
    y = x * 1
    v = y[0]
    y.mul_(3)
    out = (v * v).sum()
    out.backward()
    return out, _name(v.grad_fn), x.grad


def case_copy_into_constant(M):
    w = M.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a = M.zeros(2, 3)
    a[1].copy_(w * 2)
    a.sum().backward()
    return a, _name(a.grad_fn), w.grad


def case_copy_fill_zero(M):
    x = _x(M)
    y = x * 1
    y.copy_(M.ones(3, dtype=M.float64))
    z = x * 1
    z.fill_(2.0)
    t = x * 1
    t.zero_()
    return [_name(u.grad_fn) for u in (y, z, t)]


def case_setitem_ellipsis(M):
    x = _x(M)
    y = M.zeros(2, 3, dtype=M.float64)
    y[...] = x * 2
    y.sum().backward()
    return y, _name(y.grad_fn), x.grad, _name(x[...].grad_fn), _name(x[:].grad_fn)


def case_double_backward(M):
    x = _x(M)
    y = x * 1
    y[1].mul_(x[0] * x[0])
    (g,) = M.autograd.grad(y.sum(), x, create_graph=True)
    g.sum().backward()
    return g, x.grad


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}


@pytest.mark.parametrize("name", sorted(CASES))
def test_inplace_through_view(name):
    check(CASES[name])


def test_view_of_leaf_in_place_error():
    def f(M):
        x = _x(M)
        x[0].mul_(2)

    check_error(f)
