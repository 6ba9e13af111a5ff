"""Names the coverage tool found missing (issue 24), vs torch 2.13: `Tensor.share_memory_` /
`is_shared` and `nn.Module.share_memory` (shared with forked processes), `Tensor.as_subclass`,
`slice_inverse`."""

from __future__ import annotations

import multiprocessing
import sys

import pytest
from conftest import G, check, check_error, node_name

fork_only = pytest.mark.skipif(sys.platform != "linux", reason="the fork start method")


# ---- share_memory_ ---------------------------------------------------------------------------


def test_share_memory_flags_and_values():
    def f(M):
        x = M.arange(6.0).view(2, 3)
        v = x[1]
        before = (x.is_shared(), v.is_shared())
        r = x.share_memory_()
        return (before, r is x, x.is_shared(), v.is_shared(), x, v,
                x.share_memory_() is x, M.zeros(0).share_memory_().is_shared(),
                M.ones(2, dtype=M.int64).share_memory_(), x.grad is None)

    check(f)


def test_share_memory_keeps_views_and_autograd():
    x = G.arange(6.0, requires_grad=True)
    v = x.detach()[2:4]
    x.share_memory_()
    assert x.requires_grad and x.is_leaf and v.is_shared()
    with G.no_grad():
        x[2] = 10.0
    assert v.tolist() == [10.0, 3.0]
    (x * x).sum().backward()
    assert x.grad.tolist() == [0.0, 2.0, 20.0, 6.0, 8.0, 10.0]


def test_shared_storage_is_not_resizable():
    # (torch 2.13 segfaults on this in a test process, so only gradrs runs it; PyTorch's
    # shared storages are not resizable either.)
    with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
        G.zeros(2).share_memory_().resize_(10)


def _child_writes(x, ready, go):
    x[0] = 42.0  # seen by the parent
    ready.set()
    go.wait(10)
    x[2] = x[1] * 2  # reads the parent's later write


@fork_only
def test_forked_child_shares_writes_both_ways():
    ctx = multiprocessing.get_context("fork")
    x = G.zeros(3).share_memory_()
    private = G.zeros(3)
    ready, go = ctx.Event(), ctx.Event()
    p = ctx.Process(target=_child_writes, args=(x, ready, go))
    q = ctx.Process(target=lambda: private.fill_(7.0))
    p.start()
    q.start()
    assert ready.wait(10)
    x[1] = 5.0  # written after the fork
    go.set()
    p.join(10)
    q.join(10)
    assert p.exitcode == 0 and q.exitcode == 0
    assert x.tolist() == [42.0, 5.0, 10.0]
    assert private.tolist() == [0.0, 0.0, 0.0]  # not shared: the child's copy-on-write page


def _train_step(model):
    loss = model(G.ones(1, 2)).sum()
    loss.backward()
    with G.no_grad():
        for p in model.parameters():
            p -= p.grad


@fork_only
def test_module_share_memory_hogwild():
    ctx = multiprocessing.get_context("fork")
    model = G.nn.Linear(2, 1)
    with G.no_grad():
        model.weight.fill_(1.0)
        model.bias.fill_(0.0)
    assert model.share_memory() is model
    assert all(p.is_shared() for p in model.parameters())
    p = ctx.Process(target=_train_step, args=(model,))
    p.start()
    p.join(10)
    assert p.exitcode == 0
    assert model.weight.tolist() == [[0.0, 0.0]] and model.bias.tolist() == [-1.0]


# ---- as_subclass -----------------------------------------------------------------------------


def test_as_subclass(torch):
    def f(M):
        class Sub(M.Tensor):
            pass

        a = M.tensor([1.0, 2.0], requires_grad=True)
        x = a * 2
        y = x.as_subclass(Sub)
        z = a.as_subclass(Sub)
        plain = x.as_subclass(M.Tensor)
        out = [type(y).__name__, node_name(y.grad_fn), y._base is x, y.requires_grad,
               y.data_ptr() == x.data_ptr(), z.is_leaf, node_name(z.grad_fn), z._base is a,
               type(plain).__name__, isinstance(y, M.Tensor), y.as_subclass(Sub) is not y]
        y.sum().backward()
        with M.no_grad():
            x[0] = 7.0  # the subclass object mirrors writes
        return out + [a.grad, y.tolist()]

    check(f)


def test_as_subclass_errors():
    check_error(lambda M: M.ones(2).as_subclass(int))
    check_error(lambda M: M.ones(2).as_subclass(3))


# ---- slice_inverse ---------------------------------------------------------------------------


def test_slice_inverse():
    def f(M):
        x = M.arange(10.0, requires_grad=True)
        b = x * 1
        v = b[2:8:2]
        r = M.slice_inverse(v, M.zeros(10), 0, 2, 8, 2)
        r2 = v.slice_inverse(M.zeros(10), dim=0, start=2, end=8, step=2)
        (r * M.arange(10.0)).sum().backward()
        m = M.arange(12.0).view(3, 4)
        s = M.slice_inverse(m[:, 1:3], m, 1, 1, 3)
        return (r, r._base is b, node_name(r.grad_fn), r.stride(), r.storage_offset(), x.grad,
                node_name(r2.grad_fn), s, s.data_ptr() == m.data_ptr())

    check(f)


def test_slice_inverse_errors():
    check_error(lambda M: M.slice_inverse(M.arange(3.0).clone(), M.zeros(10), 0, 2, 8, 2))
    check_error(lambda M: M.slice_inverse(M.arange(3.0)))
    check_error(lambda M: M.slice_inverse([1.0], M.zeros(2)))
