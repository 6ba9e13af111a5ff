"""`Tensor.fill_diagonal_` and `gradrs.put` / `Tensor.put` against PyTorch: values (wrap=,
accumulate=, negative and repeated indices, non-contiguous inputs), gradients, float64
gradcheck, and the errors and messages of bad input."""

import numpy as np
import pytest
from conftest import G, assert_same_error, assert_same_values, check_error

pytestmark = pytest.mark.usefixtures("restore_grad_mode")


def _t(m, data, dtype="float32"):
    data = np.asarray(data)  # reshaped: an empty array's list loses its shape
    return m.tensor(data.reshape(-1).tolist(), dtype=getattr(m, dtype)).reshape(data.shape)


def _both(torch, fn):
    return fn(G), fn(torch)


# ---- fill_diagonal_ ------------------------------------------------------------------------

@pytest.mark.parametrize("shape,wrap", [
    ((3, 3), False), ((2, 4), False), ((4, 2), False), ((7, 3), False), ((7, 3), True),
    ((9, 3), True), ((8, 3), True), ((4, 3), True), ((5, 1), True), ((6, 2), True),
    ((3, 7), True), ((3, 3, 3), False), ((3, 3, 3), True), ((2, 2, 2, 2), False),
    ((0, 3), True), ((3, 0), True), ((1, 1), False),
])
@pytest.mark.parametrize("dtype,value", [("float32", 2.5), ("float64", -1.0), ("int64", 7),
                                         ("int64", 2.7), ("bool", 1), ("float32", True)])
def test_fill_diagonal_values(torch, shape, wrap, dtype, value):
    n = int(np.prod(shape))
    data = np.arange(n).reshape(shape) % 2 if dtype == "bool" else np.arange(n).reshape(shape)
    g, t = _both(torch, lambda m: _t(m, data, dtype))
    rg, rt = g.fill_diagonal_(value, wrap=wrap), t.fill_diagonal_(value, wrap=wrap)
    assert rg is g and rt is t
    assert_same_values(g, t)


@pytest.mark.parametrize("make", [
    lambda m: m.zeros(3, 7).t(),                    # transposed: PyTorch walks its strides
    lambda m: m.zeros(4, 10)[:, ::2],               # strided columns
    lambda m: m.zeros(10, 2)[:9],                   # a slice of a taller matrix
    lambda m: m.zeros(9, 4)[1:, 1:],                # offset view
])
@pytest.mark.parametrize("wrap", [False, True])
def test_fill_diagonal_views(torch, make, wrap):
    g, t = _both(torch, make)
    g.fill_diagonal_(3.0, wrap=wrap)
    t.fill_diagonal_(3.0, wrap=wrap)
    assert_same_values(g, t)


def test_fill_diagonal_writes_through_to_base(torch):
    def run(m):
        base = m.zeros(4, 6)
        base[:, 1:5].fill_diagonal_(1.0)
        return base
    assert_same_values(*_both(torch, run))


def test_fill_diagonal_keywords_and_tensor_value(torch):
    for call in (lambda m, x: x.fill_diagonal_(fill_value=4, wrap=True),
                 lambda m, x: x.fill_diagonal_(m.tensor(2.0)),
                 lambda m, x: x.fill_diagonal_(m.tensor(3))):
        g, t = _both(torch, lambda m, call=call: call(m, m.zeros(5, 2)))
        assert_same_values(g, t)


@pytest.mark.parametrize("wrap", [False, True])
def test_fill_diagonal_gradient(torch, wrap):
    def run(m):
        a = m.tensor(np.arange(14.0).reshape(7, 2).tolist(), requires_grad=True)
        b = a * 2
        b.fill_diagonal_(5.0, wrap=wrap)
        (b * b).sum().backward()
        return b, a.grad, type(b.grad_fn).__name__
    (gb, gg, gn), (tb, tg, tn) = _both(torch, run)
    assert gn == tn
    assert_same_values(gb.detach(), tb.detach())
    assert_same_values(gg, tg)


def test_fill_diagonal_gradcheck():
    def f(a):
        b = a.clone()
        b.fill_diagonal_(0.5, wrap=True)
        return b * a
    a = G.tensor(np.random.default_rng(0).normal(size=(5, 2)).tolist(), dtype=G.float64,
                 requires_grad=True)
    assert G.autograd.gradcheck(f, (a,))
    assert G.autograd.gradgradcheck(f, (a,))


@pytest.mark.parametrize("make,args,kwargs", [
    (lambda m: m.zeros(3), (1.0,), {}),
    (lambda m: m.zeros(()), (1.0,), {}),
    (lambda m: m.zeros(3, 3, 2), (1.0,), {}),
    (lambda m: m.zeros(2, 3, 3), (1.0,), {}),
    (lambda m: m.zeros(3, 3), (np.array([1.0, 2.0]),), {}),
    (lambda m: m.zeros(3, 3), ("a",), {}),
    (lambda m: m.zeros(3, 3), (None,), {}),
    (lambda m: m.zeros(3, 3, requires_grad=True), (1.0,), {}),
])
def test_fill_diagonal_errors(torch, make, args, kwargs):
    # a tensor argument is rebuilt with the module of the call
    check_error(lambda m: make(m).fill_diagonal_(
        *[m.tensor(x.tolist()) if hasattr(x, "tolist") else x for x in args], **kwargs))


# ---- put -----------------------------------------------------------------------------------

@pytest.mark.parametrize("shape,index,src_shape,accumulate", [
    ((2, 3), [0, 5], (2,), False),
    ((2, 3), [[1, -1], [3, 2]], (4,), False),
    ((2, 3), [1, 1, 4], (3,), True),
    ((2, 3), [-6, -1, 0], (3,), True),
    ((2, 3), [2, 2, 2], (3,), False),         # repeated: the last write stays, as PyTorch's
    ((2, 3), [0, 3], (2, 1), False),          # source of another shape, same numel
    ((3,), [], (0,), False),
    ((), [0, -1], (2,), True),                # a 0-d input
    ((2, 3), 4, (), False),                   # 0-d index and source
    ((4,), [[0, 1], [2, 3]], (2, 2), True),
])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_put_values(torch, shape, index, src_shape, accumulate, dtype):
    n_src = int(np.prod(src_shape))

    def run(m):
        x = _t(m, np.arange(int(np.prod(shape))).reshape(shape) * 10, dtype)
        i = m.tensor(index, dtype=m.int64)
        s = _t(m, (np.arange(n_src) + 1).reshape(src_shape), dtype)
        return m.put(x, i, s, accumulate=accumulate), x.put(i, s, accumulate), x
    (g, gm, gx), (t, tm, tx) = _both(torch, run)
    assert_same_values(g, t)
    assert_same_values(gm, tm)
    assert_same_values(gx, tx)  # input unchanged


def test_put_bool(torch):
    for acc in (False, True):
        g, t = _both(torch, lambda m, acc=acc: m.put(m.zeros(3, dtype=m.bool), m.tensor([1, 1]),
                                                      m.tensor([True, True]), accumulate=acc))
        assert_same_values(g, t)


def test_put_non_contiguous_input(torch):
    g, t = _both(torch, lambda m: m.put(m.arange(6.0).reshape(2, 3).t(), m.tensor([1, -2]),
                                         m.tensor([9.0, 8.0])))
    assert_same_values(g, t)


@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("index", [[0, 4, -1], [2, 2, 3]])
def test_put_gradients(torch, accumulate, index):
    def run(m):
        x = m.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        s = m.tensor([0.5, -1.5, 2.5], requires_grad=True)
        y = m.put(x, m.tensor(index), s, accumulate=accumulate)
        w = m.tensor([[1.0, -2.0, 3.0], [0.5, 7.0, -1.0]])
        (y * y * w).sum().backward()
        return y, x.grad, s.grad, type(y.grad_fn).__name__
    (gy, gx, gs, gn), (ty, tx, ts, tn) = _both(torch, run)
    assert gn == tn == "PutBackward0"
    assert_same_values(gy.detach(), ty.detach())
    assert_same_values(gx, tx)
    assert_same_values(gs, ts)


@pytest.mark.parametrize("accumulate", [False, True])
def test_put_gradcheck(accumulate):
    rng = np.random.default_rng(1)
    x = G.tensor(rng.normal(size=(2, 3)).tolist(), dtype=G.float64, requires_grad=True)
    s = G.tensor(rng.normal(size=(3,)).tolist(), dtype=G.float64, requires_grad=True)
    i = G.tensor([1, -1, 3])
    f = lambda x, s: G.put(x, i, s, accumulate=accumulate)  # noqa: E731
    assert G.autograd.gradcheck(f, (x, s))
    assert G.autograd.gradgradcheck(f, (x, s))


@pytest.mark.parametrize("call", [
    lambda m, x: m.put(x, m.tensor([6]), m.tensor([1.0])),
    lambda m, x: m.put(x, m.tensor([-7]), m.tensor([1.0])),
    lambda m, x: m.put(x, m.tensor([0, 9, -20]), m.tensor([1.0, 2.0, 3.0])),
    lambda m, x: m.put(x, m.tensor([0, -20, 9]), m.tensor([1.0, 2.0, 3.0]), accumulate=True),
    lambda m, x: m.put(x, m.tensor([0, 1]), m.tensor([1.0, 2.0, 3.0])),
    lambda m, x: m.put(x, m.tensor([0.0]), m.tensor([1.0])),
    lambda m, x: m.put(x, m.tensor([0], dtype=m.int32), m.tensor([1.0])),
    lambda m, x: m.put(x, m.tensor([0]), m.tensor([1.0], dtype=m.float64)),
    lambda m, x: m.put(m.zeros(0), m.tensor([0]), m.tensor([1.0])),
    lambda m, x: m.put(x, [0], m.tensor([1.0])),
    lambda m, x: m.put(x, m.tensor([0]), 1.0),
    lambda m, x: m.put(x, m.tensor([0]), m.tensor([1.0]), 1),
    lambda m, x: m.put(x, m.tensor([0]), m.tensor([1.0]), accumulate=1),
    lambda m, x: m.put([1.0], m.tensor([0]), m.tensor([1.0])),
    lambda m, x: m.put(x, m.tensor([0])),
])
def test_put_errors(torch, call):
    check_error(lambda m: call(m, m.arange(6.0).reshape(2, 3)))


def test_put_method_errors(torch):
    assert_same_error(lambda: G.ones(3).put(G.tensor([3]), G.tensor([1.0])),
                      lambda: torch.ones(3).put(torch.tensor([3]), torch.tensor([1.0])))
