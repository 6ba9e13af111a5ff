"""PyTorch's errors where gradrs used to return or raise differently (issue 25), vs torch 2.13."""

from __future__ import annotations

import math

import pytest
from conftest import G, check, check_error

NAN, INF = float("nan"), float("inf")

# ---- writes into expanded or overlapping memory (Note [Write overlap]) ----------------------

OVERLAP_ERRORS = {
    "expanded add_": lambda m: m.zeros(1).expand(3).add_(1),
    "expanded copy_": lambda m: m.zeros(1).expand(3).copy_(m.ones(3)),
    "expanded mul_ tensor": lambda m: m.zeros(1).expand(3).mul_(m.ones(3)),
    "expanded 2-d add_": lambda m: m.zeros(2, 1).expand(2, 3).add_(1),
    "expanded exp_": lambda m: m.zeros(1).expand(3).exp_(),
    "expanded clamp_": lambda m: m.zeros(1).expand(3).clamp_(0, 1),
    "expanded round_": lambda m: m.zeros(1).expand(3).round_(),
    "expanded add_ alpha": lambda m: m.zeros(1).expand(3).add_(m.ones(3), alpha=2),
    "expanded relu inplace": lambda m: m.nn.functional.relu(m.zeros(1).expand(3), inplace=True),
    "expanded scatter_": lambda m: m.zeros(1, 1).expand(3, 3).scatter_(0, m.tensor([[0]]), 1.0),
    "expanded index_add_": lambda m: m.zeros(1, 1).expand(3, 3).index_add_(
        0, m.tensor([0]), m.ones(1, 3)),
    "expanded setitem": lambda m: m.zeros(1, 1).expand(3, 3).__setitem__(slice(0, 2), 1.0),
    "overlap add_": lambda m: (lambda a: a[1:].add_(a[:-1]))(m.arange(4.0)),
    "overlap copy_": lambda m: (lambda a: a[1:].copy_(a[:-1]))(m.arange(4.0)),
    "overlap setitem": lambda m: (lambda a: a.__setitem__(slice(1, None), a[:-1]))(m.arange(4.0)),
    "overlap lerp_": lambda m: (lambda a: a[1:].lerp_(a[:-1], 0.5))(m.arange(6.0)),
    "overlap hypot_": lambda m: (lambda a: a[1:].hypot_(a[:-1]))(m.arange(6.0)),
    "overlap addcmul_": lambda m: (lambda a: a[1:].addcmul_(a[:-1], a[:-1]))(m.arange(4.0)),
    # Random fills draw one value per element: shared elements cannot take them.
    "expanded uniform_": lambda m: m.zeros(1).expand(3).uniform_(),
    "expanded normal_": lambda m: m.zeros(1).expand(3).normal_(),
    "expanded bernoulli_": lambda m: m.zeros(1).expand(3).bernoulli_(0.5),
    "expanded bernoulli_ tensor": lambda m: m.zeros(1).expand(3).bernoulli_(m.full((3,), 0.5)),
    "expanded random_": lambda m: m.zeros(1).expand(3).random_(0, 10),
    "expanded exponential_": lambda m: m.zeros(1).expand(3).exponential_(),
    "expanded geometric_": lambda m: m.zeros(1).expand(3).geometric_(0.5),
    "expanded log_normal_": lambda m: m.zeros(1).expand(3).log_normal_(),
    "expanded cauchy_": lambda m: m.zeros(2, 1).expand(2, 3).cauchy_(),
    # The argument checks come first, as in ATen.
    "expanded uniform_ bad range": lambda m: m.zeros(1).expand(3).uniform_(2, 1),
    "expanded leaf normal_": lambda m: m.zeros(1, requires_grad=True).expand(3).normal_(),
}


@pytest.mark.parametrize("name", sorted(OVERLAP_ERRORS))
def test_overlapping_writes_raise(name):
    check_error(OVERLAP_ERRORS[name])


OVERLAP_FINE = {
    # Writes PyTorch lets through: fills, the same memory, disjoint parts, a copy.
    "fill_ expanded": lambda m: m.zeros(1).expand(3).fill_(1).clone(),
    "zero_ expanded": lambda m: m.zeros(1).expand(3).zero_().clone(),
    "masked_fill_ expanded": lambda m: m.zeros(1, 1).expand(3, 3).masked_fill_(
        m.ones(3, 3, dtype=m.bool), 1.0).clone(),
    "tril_ expanded": lambda m: m.zeros(1, 1).expand(3, 3).tril_().clone(),
    "size-1 expand": lambda m: m.zeros(1).expand(1).add_(1),
    "self": lambda m: (lambda a: a.add_(a))(m.arange(4.0)),
    "disjoint": lambda m: (lambda a: a[:2].add_(a[2:]))(m.arange(4.0)),
    "flipped copy": lambda m: (lambda a: a.add_(a.flip(0)))(m.arange(4.0)),
    "copy from expanded": lambda m: m.zeros(3, 3).copy_(m.ones(1, 1).expand(3, 3)),
    "index_add_ partial": lambda m: (lambda a: a[1:].index_add_(0, m.tensor([0]), a[:1]))(
        m.arange(6.0)),
    "expanded column setitem": lambda m: (lambda a: a.__setitem__((slice(None), 0), 1.0) or a)(
        m.zeros(3, 1).expand(3, 3).clone()),
}


@pytest.mark.parametrize("name", sorted(OVERLAP_FINE))
def test_writes_torch_allows(name):
    check(OVERLAP_FINE[name])


# ---- PyTorch's TypeErrors --------------------------------------------------------------------


@pytest.mark.parametrize("op", ["cat", "stack"])
def test_cat_stack_take_no_tensor(op):
    check_error(lambda m: getattr(m, op)(m.ones(2, 2)))
    check_error(lambda m: getattr(m, op)(5))
    check_error(lambda m: getattr(m, op)([m.ones(2), 5]))
    check_error(lambda m: getattr(m, op)((m.ones(2), "a")))
    check(lambda m: getattr(m, op)([m.ones(2), m.ones(2)]))


def test_iteration():
    check_error(lambda m: list(m.tensor(1.0)))
    check_error(lambda m: iter(m.tensor(1.0)))
    check(lambda m: list(m.arange(6.0).view(2, 3))[1])
    check(lambda m: [x * 2 for x in m.arange(3.0)][2])
    g = list(G.arange(6.0, requires_grad=True).view(2, 3))
    assert g[0].grad_fn is not None and type(g[0].grad_fn).__name__ == "UnbindBackward0"


@pytest.mark.parametrize("args", [(2**63,), ((2**63,),), (2, 2**63), ([2, 2**64],)])
@pytest.mark.parametrize("fn", ["empty", "zeros", "ones", "rand", "randn", "full"])
def test_sizes_past_int64_are_type_errors(torch, fn, args):
    # PyTorch's message names the function and carries a C++ trace: the type is compared.
    def f(m):
        if fn == "full":
            one = len(args) == 1 and not isinstance(args[0], int)
            return m.full(args[0] if one else args, 1.5)

        return getattr(m, fn)(*args)

    with pytest.raises(TypeError) as et:
        f(torch)
    with pytest.raises(TypeError) as eg:
        f(G)
    assert "Overflow when unpacking long long" in str(et.value)
    assert "Overflow when unpacking long long" in str(eg.value)



def test_ints_past_int64_in_data():
    check_error(lambda m: m.tensor(2**63))
    check_error(lambda m: m.tensor([2**64]))
    check_error(lambda m: m.tensor(-(2**63) - 1))
    check_error(lambda m: m.ones(2, dtype=m.int64).__setitem__(0, 2**70))
    check(lambda m: m.tensor([2**63 - 1, -(2**63)]))


@pytest.mark.parametrize("value, dtype", [(NAN, "int64"), (INF, "int64"), (1e30, "int64"),
                                          (NAN, "int32"), (2**40, "int32")])
def test_setitem_numbers_that_do_not_fit(value, dtype):
    check_error(lambda m: m.ones(2, dtype=getattr(m, dtype)).__setitem__(0, value))
    check_error(lambda m: m.ones(2, dtype=getattr(m, dtype)).fill_(value))
    check_error(lambda m: m.full((2,), value, dtype=getattr(m, dtype)))


def test_explicit_none_where_torch_refuses():
    x = lambda m: m.ones(2, 2)  # noqa: E731
    check_error(lambda m: x(m).addmm(x(m), x(m), beta=None))
    check_error(lambda m: x(m).addmm(x(m), x(m), alpha=None))
    check_error(lambda m: x(m).round(decimals=None))
    check_error(lambda m: x(m).round_(decimals=None))
    check_error(lambda m: x(m).bernoulli_(None))
    check(lambda m: x(m).round(decimals=1))
    check(lambda m: x(m).addmm(x(m), x(m), beta=2, alpha=0.5))
    # bernoulli_() and bernoulli_(0.5) draw alike
    G.manual_seed(0)
    a = G.ones(5).bernoulli_()
    G.manual_seed(0)
    assert G.equal(a, G.ones(5).bernoulli_(0.5))


# ---- argument forms --------------------------------------------------------------------------


def test_reshape_shape_keyword():
    check(lambda m: m.arange(6.0).reshape(shape=(2, 3)))
    check(lambda m: m.arange(6.0).reshape(shape=[3, -1]))
    check(lambda m: m.reshape(m.arange(6.0), shape=(2, 3)))
    check_error(lambda m: m.arange(6.0).reshape((2, 3), shape=(2, 3)))
    check_error(lambda m: m.arange(6.0).reshape(size=(2, 3)))
    check_error(lambda m: m.arange(6.0).reshape())


@pytest.mark.parametrize("mode", [None, "floor", "trunc"])
def test_div_inplace_rounding_mode(mode):
    def f(m):
        a = m.tensor([-7.0, 7.5, 3.0], requires_grad=True).clone()
        a.div_(m.tensor([2.0, -2.0, 4.0]), rounding_mode=mode)
        return a

    check(f)
    check(lambda m: m.tensor([-7, 7, 3]).div_(2, rounding_mode="floor") if mode else
          m.tensor([-7, 7, 3]).div_(2, rounding_mode="trunc"))
    if mode is None:
        check_error(lambda m: m.tensor([-7, 7]).div_(2, rounding_mode=None))
        check_error(lambda m: m.ones(2).div_(2, rounding_mode="x"))


# ---- values as PyTorch's ---------------------------------------------------------------------


def test_fmax_ignores_nan():
    check(lambda m: m.fmax(m.tensor(NAN), m.tensor(0.0)))
    check(lambda m: m.fmax(m.tensor([NAN, 1.0, NAN, -INF]), m.tensor([2.0, NAN, NAN, 0.0])))
    check(lambda m: m.fmax(m.tensor([1, 5]), m.tensor([3, 2])))

    def grads(m):
        a = m.tensor([NAN, 1.0, 3.0, 2.0], requires_grad=True)
        b = m.tensor([2.0, NAN, 1.0, 2.0], requires_grad=True)
        out = a.fmax(b)
        out.sum().backward()
        return out, a.grad, b.grad

    check(grads)


@pytest.mark.parametrize("values", [[INF, 1.0], [INF, INF], [-INF, -INF], [-INF, 1.0],
                                    [NAN, 1.0], [INF, -INF], [1.0, 2.0]])
def test_softmax_and_logsumexp_with_infinities(values):
    check(lambda m: m.tensor(values).softmax(0))
    check(lambda m: m.tensor(values).log_softmax(0))
    check(lambda m: m.tensor([values, values[::-1]]).softmax(0))
    check(lambda m: m.tensor(values).logsumexp(0))
    check(lambda m: m.tensor([values, [NAN, INF]]).logsumexp(1))


def test_softmax_of_integers_raises():
    check_error(lambda m: m.ones(3, dtype=m.int64).softmax(0))
    check_error(lambda m: m.ones(2, 3, dtype=m.int64).softmax(0))
    check_error(lambda m: m.ones(2, 3, dtype=m.int32).log_softmax(1))
    check_error(lambda m: m.ones(2, 3, dtype=m.bool).log_softmax(0))
    check_error(lambda m: m.nn.functional.softmax(m.ones(3, dtype=m.int64), 0))
    check_error(lambda m: m.ones(2, 3, dtype=m.int64).softmax(5))
    check(lambda m: m.ones(3, dtype=m.int64).softmax(0, dtype=m.float32))
    check(lambda m: m.ones(0, dtype=m.int64).softmax(0))


# ---- index errors ----------------------------------------------------------------------------


@pytest.mark.parametrize("shape, dim", [((6,), 0), ((2, 3), 0), ((2, 3), 1), ((2, 3, 4), 1),
                                        ((2, 3, 4), 2), ((2, 3, 4), -2), ((2, 0), 1)])
@pytest.mark.parametrize("index", [-1, 9, 2**40])
def test_index_select_out_of_range(shape, dim, index):
    n = math.prod(shape)
    check_error(lambda m: m.arange(float(n)).view(*shape).index_select(dim, m.tensor([index])))


def test_scatter_src_dims():
    a = lambda m: m.arange(6.0).view(2, 3)  # noqa: E731
    check_error(lambda m: a(m).scatter(0, m.tensor([[0]]), m.ones(1)))
    check_error(lambda m: a(m).scatter(0, m.tensor([[0]]), m.ones(1, 1, 1)))
    check_error(lambda m: a(m).scatter_add(0, m.tensor([[0]]), m.ones(1)))
    check(lambda m: m.zeros(3).scatter(0, m.tensor([0]), m.ones(())))


def test_embedding_weight_must_be_2d():
    check_error(lambda m: m.nn.functional.embedding(m.tensor([0]), m.ones(2)))
    check_error(lambda m: m.nn.functional.embedding(m.tensor([0]), m.ones(2, 2, 2)))


def test_out_of_memory_error_is_torchs():
    assert issubclass(G.OutOfMemoryError, RuntimeError)
    assert G.OutOfMemoryError.__name__ == "OutOfMemoryError"
    assert G.cuda.OutOfMemoryError is G.OutOfMemoryError is G.gpu.OutOfMemoryError


# ---- functions that take one int sequence where the method takes varargs -----------------

STRICT_INT_LISTS = {
    "reshape varargs": lambda m: m.reshape(m.ones(2, 3), 3, 2),
    "reshape int": lambda m: m.reshape(m.ones(2, 3), 6),
    "reshape keyword int": lambda m: m.reshape(m.ones(2, 3), shape=6),
    "reshape float element": lambda m: m.reshape(m.ones(2, 3), [6.0]),
    "reshape None": lambda m: m.reshape(m.ones(2, 3), None),
    "reshape tensor": lambda m: m.reshape(m.ones(2, 3), m.tensor(6)),
    "reshape missing": lambda m: m.reshape(m.ones(2, 3)),
    "permute varargs": lambda m: m.permute(m.ones(2, 3), 1, 0),
    "permute int": lambda m: m.permute(m.ones(2, 3), 0),
    "permute keyword int": lambda m: m.permute(m.ones(2, 3), dims=1),
    "flip int": lambda m: m.flip(m.ones(2, 3), 0),
    "flip extra": lambda m: m.flip(m.ones(2, 3), [0], 1),
    "method permute keyword int": lambda m: m.ones(2, 3).permute(dims=1),
    "method flip bad keyword": lambda m: m.ones(2, 3).flip(dim=(0,)),
}


@pytest.mark.parametrize("name", sorted(STRICT_INT_LISTS))
def test_strict_int_lists(name):
    check_error(STRICT_INT_LISTS[name])


SIZE_KEYWORDS = {
    "reshape sequence": lambda m: m.reshape(m.arange(6.0), [3, 2]),
    "reshape Size": lambda m: m.reshape(m.arange(6.0), m.ones(3, 2).shape),
    "reshape 0-dim int tensors": lambda m: m.reshape(m.arange(6.0), (m.tensor(6),)),
    "permute keyword": lambda m: m.permute(m.ones(2, 3), dims=(1, 0)),
    "flip keyword": lambda m: m.flip(m.arange(6.0).reshape(2, 3), dims=(0,)),
    "method permute keyword": lambda m: m.ones(2, 3).permute(dims=(1, 0)),
    "method flip keyword": lambda m: m.arange(6.0).reshape(2, 3).flip(dims=(0, 1)),
    "method expand keyword": lambda m: m.ones(3).expand(size=(2, 3)),
    "method repeat keyword": lambda m: m.arange(3.0).repeat(repeats=(2, 1)),
    "method new_zeros keyword": lambda m: m.ones(3).new_zeros(size=(2,)),
    "method new_ones keyword": lambda m: m.ones(3).new_ones(size=(2, 1)),
}


@pytest.mark.parametrize("name", sorted(SIZE_KEYWORDS))
def test_size_keywords(name):
    check(SIZE_KEYWORDS[name])


# ---- adaptive pools: zero and negative output sizes ---------------------------------------

def _pool_then_backward(pool):
    def run(m):
        x = m.ones(2, 3, 4, requires_grad=True)
        y = pool(m.nn.functional, x)
        y.sum().backward()
        return y
    return run


ADAPTIVE_ERRORS = {
    "avg1d negative": lambda m: m.nn.functional.adaptive_avg_pool1d(m.ones(2, 3, 4), -1),
    "avg2d negative": lambda m: m.nn.functional.adaptive_avg_pool2d(m.ones(2, 3, 4), -1),
    "avg3d negative": lambda m: m.nn.functional.adaptive_avg_pool3d(m.ones(1, 2, 3, 4), -1),
    "max2d negative": lambda m: m.nn.functional.adaptive_max_pool2d(m.ones(2, 3, 4), -1),
    "max1d negative": lambda m: m.nn.functional.adaptive_max_pool1d(m.ones(2, 3, 4), -1),
    "avg1d two sizes": lambda m: m.nn.functional.adaptive_avg_pool1d(m.ones(2, 3, 4), (0, 1)),
    "max1d two sizes": lambda m: m.nn.functional.adaptive_max_pool1d(m.ones(2, 3, 4), (2, 1)),
    "avg2d empty backward": _pool_then_backward(lambda F, x: F.adaptive_avg_pool2d(x, (0, 2))),
    "avg1d empty backward": _pool_then_backward(lambda F, x: F.adaptive_avg_pool1d(x, 0)),
    "avg3d empty backward": _pool_then_backward(
        lambda F, x: F.adaptive_avg_pool3d(x[None], (2, 0, 1))),
    "rrelu bounds": lambda m: m.nn.functional.rrelu(m.ones(3), 1.0, 0.0),
    "rrelu bounds training": lambda m: m.nn.functional.rrelu(m.ones(3), 1.0, 0.0, True),
}


@pytest.mark.parametrize("name", sorted(ADAPTIVE_ERRORS))
def test_adaptive_pool_errors(name):
    check_error(ADAPTIVE_ERRORS[name])


ADAPTIVE_EMPTY = {
    "avg2d": lambda m: m.nn.functional.adaptive_avg_pool2d(m.ones(2, 3, 4), (0, 2)),
    "avg1d": lambda m: m.nn.functional.adaptive_avg_pool1d(m.ones(2, 3, 4), 0),
    "avg3d": lambda m: m.nn.functional.adaptive_avg_pool3d(m.ones(1, 2, 3, 4), 0),
    "max2d": lambda m: m.nn.functional.adaptive_max_pool2d(m.ones(2, 3, 4), 0),
    "max1d one-int list": lambda m: m.nn.functional.adaptive_max_pool1d(m.ones(2, 3, 4), [2]),
}


@pytest.mark.parametrize("name", sorted(ADAPTIVE_EMPTY))
def test_adaptive_pool_empty_outputs(name):
    check(ADAPTIVE_EMPTY[name])


# ---- factories with out=, sizes and slices ------------------------------------------------

FACTORY_OUT = {
    "zeros resizes out": lambda m: (lambda o: (m.zeros(2, out=o) is o, o))(m.empty(3)),
    "ones keeps out dtype": lambda m: m.ones(2, out=m.empty(3, dtype=m.int64)),
    "ones 2-d": lambda m: m.ones((2, 2), out=m.empty(4)),
    "empty shape": lambda m: m.empty(2, out=m.empty(3)).shape,
    "requires_grad sets out": lambda m: m.zeros(2, requires_grad=True, out=m.empty(3)),
    "version bump": lambda m: (lambda o: (m.ones(2, out=o), o._version))(m.empty(2)),
}


@pytest.mark.parametrize("name", sorted(FACTORY_OUT))
def test_factory_out(name):
    check(FACTORY_OUT[name])


FACTORY_ERRORS = {
    "out dtype mismatch": lambda m: m.zeros(2, dtype=m.int64, out=m.empty(1)),
    "out requires grad": lambda m: m.zeros(2, out=m.empty(3, requires_grad=True)),
    "out not a tensor": lambda m: m.ones(2, out=[1]),
    "zeros negative": lambda m: m.zeros(-1),
    "zeros negative 2-d": lambda m: m.zeros(2, -3),
    "ones negative": lambda m: m.ones(3, -1),
    "slice step zero": lambda m: m.ones(2)[::0],
    "slice step zero setitem": lambda m: m.ones(2).__setitem__(slice(None, None, 0), 1.0),
    "slice step negative": lambda m: m.ones(2)[::-1],
    "arange wrong sign": lambda m: m.arange(10, 0),
    "arange wrong sign negative step": lambda m: m.arange(0, 10, -1),
}


@pytest.mark.parametrize("name", sorted(FACTORY_ERRORS))
def test_factory_and_slice_errors(name):
    check_error(FACTORY_ERRORS[name])
