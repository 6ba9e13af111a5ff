"""The tensor functions ordinary programs called that gradrs lacked (found by tests/programs/):
index_fill, repeat_interleave, where(condition), result_type / promote_types / can_cast,
cummax / cummin, mode, diff, count_nonzero, rot90, tri*_indices, searchsorted / bucketize,
and F.pad's checks."""

import pytest

from conftest import G, assert_same_error, check, to_np


def _x(M):
    return M.arange(6.0).view(2, 3)


@pytest.mark.parametrize("args", [
    (1, [-1, 0], 5.0), (0, [1], -2.0), (1, 1, 7.0), (-1, [], 3.0),
])
def test_index_fill(args):
    dim, index, value = args
    check(lambda M: _x(M).index_fill(dim, M.tensor(index, dtype=M.int64), value))
    check(lambda M: M.index_fill(_x(M), dim, M.tensor(index, dtype=M.int64), value))
    check(lambda M: _x(M).index_fill_(dim, M.tensor(index, dtype=M.int64), value))


def test_index_fill_dtypes_and_scalars():
    check(lambda M: M.arange(3).index_fill(0, M.tensor([0]), 2.5))
    check(lambda M: M.tensor(3.0).index_fill(0, M.tensor([0]), 2))
    check(lambda M: _x(M).index_fill(1, M.tensor(1), M.tensor(7.0)))


def test_index_fill_gradients(torch):
    def run(M):
        v = M.tensor(2.0, requires_grad=True)
        a = M.ones(3, requires_grad=True)
        a.index_fill(0, M.tensor([0, 0, 1]), v).sum().backward()
        return to_np(a.grad), to_np(v.grad)

    (ga, gv), (ta, tv) = run(G), run(torch)
    assert (ga == ta).all() and gv == tv


@pytest.mark.parametrize("args", [
    (1, [3], 1.0), (1, [1.0], 1.0), (1, [[1]], 1.0), (2, [1], 1.0),
])
def test_index_fill_errors(args, torch):
    dim, index, value = args
    assert_same_error(lambda: _x(G).index_fill(dim, G.tensor(index), value),
                      lambda: _x(torch).index_fill(dim, torch.tensor(index), value))
    assert_same_error(lambda: _x(G).index_fill(1, G.tensor([1]), G.ones(2)),
                      lambda: _x(torch).index_fill(1, torch.tensor([1]), torch.ones(2)))


@pytest.mark.parametrize("make", [
    lambda M: M.arange(6).view(2, 3).repeat_interleave(2),
    lambda M: M.arange(6).view(2, 3).repeat_interleave(2, dim=1),
    lambda M: M.arange(6).view(2, 3).repeat_interleave(M.tensor([1, 2]), dim=0),
    lambda M: M.arange(6).view(2, 3).repeat_interleave(M.tensor([2]), dim=-1),
    lambda M: M.repeat_interleave(M.tensor([2, 0, 1])),
    lambda M: M.repeat_interleave(M.arange(3.0), 3),
    lambda M: M.tensor(5).repeat_interleave(3),
    lambda M: M.arange(4.0).repeat_interleave(M.tensor([0, 1, 0, 2]), dim=0, output_size=3),
])
def test_repeat_interleave(make):
    check(make)


def test_repeat_interleave_gradient(torch):
    def run(M):
        a = M.arange(3.0, requires_grad=True)
        (a.repeat_interleave(M.tensor([1, 2, 0])) * M.arange(3.0)).sum().backward()
        return to_np(a.grad)

    assert (run(G) == run(torch)).all()


@pytest.mark.parametrize("args", [(-1,), ("[1, 2]", 1), ("[1.0, 2.0]", 0), ("[[1]]", 0), (2, 2)])
def test_repeat_interleave_errors(args, torch):
    def call(M):
        repeats = M.tensor(eval(args[0])) if isinstance(args[0], str) else args[0]
        return M.arange(6).view(2, 3).repeat_interleave(repeats, *args[1:])

    assert_same_error(lambda: call(G), lambda: call(torch))


def test_where_one_argument():
    check(lambda M: M.where(M.tensor([[1.0, -2.0], [0.0, 3.0]]) > 0))
    check(lambda M: M.where(M.tensor([1.0, 0.0, 2.0])))
    check(lambda M: M.where(M.tensor(True)))


def test_where_two_arguments_error(torch):
    assert_same_error(lambda: G.where(G.tensor([True]), G.ones(1)),
                      lambda: torch.where(torch.tensor([True]), torch.ones(1)))


@pytest.mark.parametrize("make", [
    lambda M: M.result_type(M.tensor([1], dtype=M.int32), M.tensor(1.0, dtype=M.float64)),
    lambda M: M.result_type(M.tensor([1], dtype=M.int32), M.tensor([1.0], dtype=M.float16)),
    lambda M: M.result_type(M.tensor([1]), 1.0),
    lambda M: M.result_type(1, M.tensor([True])),
    lambda M: M.result_type(1, 2.0),
    lambda M: M.result_type(True, 1),
    lambda M: M.promote_types(M.int32, M.float16),
    lambda M: M.promote_types(M.bool, M.int64),
    lambda M: M.promote_types(M.float16, M.float64),
    lambda M: [M.can_cast(a, b) for a in (M.bool, M.int32, M.int64, M.float16, M.float64)
               for b in (M.bool, M.int32, M.int64, M.float16, M.float64)],
])
def test_type_promotion_queries(make):
    check(make)


_NAN = float("nan")


@pytest.mark.parametrize("make", [
    lambda M: M.cummax(M.tensor([3.0, 1, 4, 4, _NAN, 2, 9]), 0),
    lambda M: M.cummin(M.tensor([3.0, 1, 1, 2]), 0),
    lambda M: M.tensor([[1, 0], [0, 2]]).cummax(dim=0),
    lambda M: M.tensor([[True, False], [True, True]]).cummin(dim=-1),
    lambda M: M.tensor(4.0).cummax(0),
    lambda M: M.zeros(2, 0).cummax(1),
    lambda M: M.tensor([[1, 2, 2, 3, 3], [5, 5, 1, 1, 0]]).mode(1),
    lambda M: M.tensor([[1, 2, 2, 3, 3], [5, 5, 1, 1, 0]]).mode(0, keepdim=True),
    lambda M: M.mode(M.tensor([3.0, 1, 4, 1, 5, 9, 2, 6])),
    lambda M: M.tensor([2.0, 2, _NAN, _NAN, 1]).mode(),
    lambda M: M.tensor(4.0).mode(),
])
def test_cummax_cummin_mode(make, torch):
    check(lambda M: tuple(make(M)))
    assert repr(make(G)) == repr(make(torch)).replace("torch.", "gradrs.")


def test_cummax_mode_gradients(torch):
    def run(M):
        x = M.tensor([1.0, 3, 2, 3], requires_grad=True)
        M.cummax(x, 0).values.sum().backward()
        y = M.tensor([1.0, 3, 2, 3], requires_grad=True)
        y.mode().values.backward()
        return to_np(x.grad), to_np(y.grad)

    (gx, gy), (tx, ty) = run(G), run(torch)
    assert (gx == tx).all() and (gy == ty).all()


def test_cummax_mode_errors(torch):
    assert_same_error(lambda: G.zeros(2, 0).mode(1), lambda: torch.zeros(2, 0).mode(1))
    assert_same_error(lambda: G.zeros(2).cummax(1), lambda: torch.zeros(2).cummax(1))


@pytest.mark.parametrize("make", [
    lambda M: M.diff(M.tensor([1, 3, 6, 10])),
    lambda M: M.arange(6.0).view(2, 3).diff(dim=0),
    lambda M: M.diff(M.tensor([True, False, False])),
    lambda M: M.diff(M.tensor([1.0, 4, 9]), n=2),
    lambda M: M.diff(M.tensor([1.0, 2]), n=3),
    lambda M: M.diff(M.tensor([1.0, 2]), prepend=M.tensor([0.0]), append=M.tensor([5.0, 7])),
    lambda M: M.arange(6.0).view(2, 3).diff(n=0, append=M.ones(2, 1)),
    lambda M: M.count_nonzero(M.tensor([[0.0, 1, 2], [3, 0, 0]])),
    lambda M: M.tensor([[0.0, 1, 2], [3, 0, 0]]).count_nonzero(dim=1),
    lambda M: M.count_nonzero(M.tensor([[1, 0], [1, 1]]), dim=(0, -1)),
    lambda M: M.count_nonzero(M.tensor([[1, 0]]), dim=[]),
    lambda M: M.rot90(M.arange(6.0).view(2, 3)),
    lambda M: M.rot90(M.arange(6.0).view(2, 3), 2),
    lambda M: M.rot90(M.arange(24.0).view(2, 3, 4), -1, [2, 0]),
    lambda M: M.arange(6.0).view(2, 3).rot90(4, [1, 0]),
    lambda M: M.triu_indices(3, 3),
    lambda M: M.tril_indices(3, 4, -1),
    lambda M: M.triu_indices(2, 3, 1, dtype=M.int32),
    lambda M: M.tril_indices(4, 3, 5),
    lambda M: M.triu_indices(0, 3),
])
def test_diff_count_nonzero_rot90_tri_indices(make):
    check(make)


def test_diff_gradient(torch):
    def run(M):
        a = M.tensor([1.0, 4, 9, 16], requires_grad=True)
        (M.diff(a, n=2) * M.tensor([1.0, 3])).sum().backward()
        return to_np(a.grad)

    assert (run(G) == run(torch)).all()


@pytest.mark.parametrize("call", [
    lambda M: M.diff(M.tensor(3.0)),
    lambda M: M.diff(M.tensor([1.0]), n=-1),
    lambda M: M.diff(M.ones(2, 3), prepend=M.tensor(9.0)),
    lambda M: M.diff(M.ones(2, 3), append=M.ones(3, 1)),
    lambda M: M.rot90(M.ones(2, 3), dims=[0]),
    lambda M: M.rot90(M.ones(2, 3), dims=[0, -2]),
    lambda M: M.rot90(M.ones(2, 3), dims=[0, 2]),
    lambda M: M.rot90(M.ones(3)),
])
def test_diff_rot90_errors(call, torch):
    assert_same_error(lambda: call(G), lambda: call(torch))


@pytest.mark.parametrize("shape,pad,mode,value", [
    ((1, 1, 4, 4), (1, 0), "replicate", None),
    ((4,), (1, 1), "reflect", None),
    ((1, 1, 1, 4, 4), (1, 1), "circular", None),
    ((1, 2, 2, 2, 2, 2), (1,) * 8, "reflect", None),
    ((1, 1, 4, 4), (1, 1), "foo", None),
    ((4,), (1, 1, 1, 1), "replicate", None),
    ((4,), (1, 1, 1, 1), "constant", None),
    ((1, 4), (1, 1), "reflect", 1.0),
])
def test_pad_errors(shape, pad, mode, value, torch):
    def call(M):
        return M.nn.functional.pad(M.ones(shape), pad, mode=mode, value=value)

    assert_same_error(lambda: call(G), lambda: call(torch))


def test_pad_accepted_combinations():
    check(lambda M: M.nn.functional.pad(M.ones(1, 4, 4), (1, 0, 1, 1), mode="reflect"))
    check(lambda M: M.nn.functional.pad(M.ones(2, 4), (1, 1), mode="circular"))
    check(lambda M: M.nn.functional.pad(M.ones(1, 4), (1, 1), mode="reflect", value=0.0))
    check(lambda M: M.nn.functional.pad(M.ones(2, 3, 4, 5), (1, 1), value=2.0))


_B = [1.0, 3, 5, 7, 9]
_V = [[3.0, 6, 9], [_NAN, 0, 10]]


@pytest.mark.parametrize("make", [
    lambda M: M.bucketize(M.tensor(_V), M.tensor(_B)),
    lambda M: M.bucketize(M.tensor(_V), M.tensor(_B), right=True, out_int32=True),
    lambda M: M.bucketize(4, M.tensor(_B)),
    lambda M: M.searchsorted(M.tensor(_B), M.tensor(_V)),
    lambda M: M.searchsorted(M.tensor(_B), 4),
    lambda M: M.searchsorted(M.tensor([[1.0, 3, 5], [2, 4, 6]]), M.tensor([[3.0, 6], [1, 5]]),
                             side="right"),
    lambda M: M.searchsorted(M.tensor([1.0, _NAN]), M.tensor([_NAN, 2.0])),
    lambda M: M.searchsorted(M.tensor([1.0, _NAN, _NAN]), M.tensor([_NAN, 2.0, 0]), right=True),
    lambda M: M.searchsorted(M.tensor([5.0, 1, 3]), M.tensor([2.0]), sorter=M.tensor([1, 2, 0])),
    lambda M: M.searchsorted(M.tensor([1, 2, 2, 2, 3]), M.tensor([2, 2])),
    lambda M: M.searchsorted(M.tensor([1, 2, 2, 2, 3]), M.tensor([2]), right=True),
    lambda M: M.searchsorted(M.tensor([]), M.tensor([1.0])),
    lambda M: M.bucketize(M.tensor([]), M.tensor(_B)),
])
def test_searchsorted_bucketize(make):
    check(make)


@pytest.mark.parametrize("call", [
    lambda M: M.searchsorted(M.ones(2, 3), M.ones(3, 3)),
    lambda M: M.searchsorted(M.tensor(_B), M.tensor(_V), side="left", right=True),
    lambda M: M.searchsorted(M.tensor(_B), M.tensor(_V), side="up"),
    lambda M: M.bucketize(M.tensor(_V), M.ones(2, 2)),
])
def test_searchsorted_bucketize_errors(call, torch):
    assert_same_error(lambda: call(G), lambda: call(torch))


def test_searchsorted_bucketize_out():
    def run(M):
        a, b = M.empty(0, dtype=M.int64), M.empty(0, dtype=M.int64)
        r = M.searchsorted(M.tensor([1.0, 2]), M.tensor([1.5, 3]), out=a)
        M.bucketize(M.tensor([1.5, 3]), M.tensor([1.0, 2]), out=b)
        return r is a, a, b

    check(run)


def test_random_fork_rng(torch):
    def run(M):
        M.manual_seed(3)
        M.rand(2)
        with M.random.fork_rng():
            M.manual_seed(9)
            inner = M.rand(1)
        after = M.rand(2)
        with M.random.fork_rng(devices=[], enabled=False):
            M.rand(1)
        try:
            with M.random.fork_rng():
                M.rand(5)
                raise ValueError("inside")
        except ValueError:
            pass
        return inner, after, M.rand(1), M.random.initial_seed()

    check(lambda M: run(M))
