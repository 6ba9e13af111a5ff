"""autograd.grad's batched and keyword forms against PyTorch: is_grads_batched (values,
create_graph, allow_unused / materialize_grads, PyTorch's checks and messages, the graph freed
after the last vector), dict inputs, only_inputs's warning, empty inputs."""

import collections

import pytest
from conftest import G, assert_same_warning, check_error, need_torch


def _eq(a, b):
    ref = need_torch()
    if a is None or b is None:
        assert a is None and b is None
        return
    assert a.shape == tuple(b.shape)
    assert ref.equal(ref.tensor(a.tolist(), dtype=b.dtype), b.detach())


def both(fn):
    ref = need_torch()
    got, want = fn(G), fn(ref)
    if isinstance(want, dict):
        assert list(got) == list(want)
        got, want = list(got.values()), list(want.values())
    assert len(got) == len(want)
    for a, b in zip(got, want):
        _eq(a, b)
    return got, want


def cube(m, **kw):
    x = m.tensor([1.0, 2.0, -3.0], dtype=m.float64, requires_grad=True)
    return x, x ** 3


def test_batched_vjps_are_the_rows_of_the_jacobian(torch):
    def fn(m):
        x, y = cube(m)
        return m.autograd.grad(y, x, m.eye(3, dtype=m.float64) * 2, is_grads_batched=True)
    both(fn)


def test_several_outputs_and_an_unused_input(torch):
    def fn(m):
        x, y = cube(m)
        w = m.ones(2, requires_grad=True)
        z = (x * 5).sum()
        gos = [m.arange(6.0, dtype=m.float64).reshape(2, 3), m.tensor([1.0, -1.0],
                                                                      dtype=m.float64)]
        return m.autograd.grad([y, z], [x, w], gos, is_grads_batched=True, allow_unused=True)
    both(fn)


def test_materialize_grads_gives_unbatched_zeros(torch):
    def fn(m):
        x, y = cube(m)
        w = m.ones(2, requires_grad=True)
        r = m.autograd.grad([y], [x, w], [m.eye(3, dtype=m.float64)], is_grads_batched=True,
                            materialize_grads=True, create_graph=True)
        assert r[1].requires_grad
        return r
    both(fn)


def test_create_graph_differentiates_again(torch):
    def fn(m):
        x, y = cube(m)
        (g,) = m.autograd.grad(y, x, m.eye(3, dtype=m.float64), is_grads_batched=True,
                               create_graph=True)
        assert g.requires_grad
        return m.autograd.grad(g.sum(), x)
    both(fn)


def test_graph_is_freed_after_the_batch(torch):
    def fn(m):
        x, y = cube(m)
        m.autograd.grad(y, x, m.eye(3, dtype=m.float64), is_grads_batched=True)
        return m.autograd.grad(y, x, m.ones(3, dtype=m.float64))
    check_error(fn)


def test_retain_graph_keeps_it(torch):
    def fn(m):
        x, y = cube(m)
        m.autograd.grad(y, x, m.eye(3, dtype=m.float64), is_grads_batched=True,
                        retain_graph=True)
        return m.autograd.grad(y, x, m.ones(3, dtype=m.float64))
    both(fn)


@pytest.mark.parametrize("case", [
    # the remaining dims must match the output (PyTorch prints grad_output[i][0].shape[1:])
    lambda m, x, y: m.autograd.grad(y, x, m.ones(3, 2), is_grads_batched=True),
    lambda m, x, y: m.autograd.grad(y, x, m.ones(4), is_grads_batched=True),
    # an implicit scalar grad is 0-dim: nothing to map over
    lambda m, x, y: m.autograd.grad(y.sum(), x, None, is_grads_batched=True),
    lambda m, x, y: m.autograd.grad(y, x, None, is_grads_batched=True),
    # different batch sizes
    lambda m, x, y: m.autograd.grad([y, y * 2], x, [m.ones(2, 3), m.ones(4, 3)],
                                    is_grads_batched=True),
    # an empty batch
    lambda m, x, y: m.autograd.grad(y, x, m.ones(0, 3), is_grads_batched=True),
    # a None grad_output (its output needs no grad) cannot be mapped over
    lambda m, x, y: m.autograd.grad(y.detach(), x, None, is_grads_batched=True),
    lambda m, x, y: m.autograd.grad([y, y.detach()], x, [m.ones(2, 3), None],
                                    is_grads_batched=True),
    lambda m, x, y: m.autograd.grad(y, [], m.ones(3)),
    lambda m, x, y: m.autograd.grad(y, collections.OrderedDict(a=x), m.ones(3)),
    lambda m, x, y: m.autograd.grad(y, x, m.ones(3), allow_unused=False,
                                    materialize_grads=True),
])
def test_errors(torch, case):
    check_error(lambda m: case(m, *cube(m)))


def test_dict_inputs(torch):
    def fn(m):
        x, y = cube(m)
        w = m.ones(2, requires_grad=True)
        return m.autograd.grad((y * 2).sum() + (w * 3).sum(), {"x": x, "w": w})
    both(fn)


def test_dict_inputs_batched(torch):
    def fn(m):
        x, y = cube(m)
        return m.autograd.grad(y, {"x": x}, m.eye(3, dtype=m.float64), is_grads_batched=True)
    both(fn)


def test_only_inputs_false_warns(torch):
    def fn(m):
        x, y = cube(m)
        return m.autograd.grad(y.sum(), x, only_inputs=False)
    assert_same_warning(lambda: fn(G), lambda: fn(torch))
