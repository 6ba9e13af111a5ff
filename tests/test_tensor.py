"""Tensor creation, dtypes, promotion, attributes, printing and forward ops, compared with PyTorch.

Every ``check(lambda M: ...)`` runs the lambda with M = the module under test and with M = real
PyTorch and compares the results (values, dtype, shape, requires_grad, grad_fn, repr).
``check_error`` compares exception types and messages.  Tests that only need the module under
test (reproducibility of the RNG, memory sharing with numpy, ...) run without PyTorch.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import (
    GNAME,
    G,
    assert_same,
    assert_same_repr,
    check,
    check_error,
    dtype_name,
    run_both,
    to_np,
)

pytestmark = pytest.mark.usefixtures("restore_grad_mode")

# --------------------------------------------------------------------------------------------
# dtypes
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["float32", "float64", "int64", "bool"])
def test_dtype_objects(name):
    dt = getattr(G, name)
    assert isinstance(dt, G.dtype)
    assert repr(dt) == f"{GNAME}.{name}"
    assert str(dt) == f"{GNAME}.{name}"
    assert dt == getattr(G, name)


def test_dtypes_are_distinct():
    dts = [G.float32, G.float64, G.int64, G.bool]
    for i, a in enumerate(dts):
        for j, b in enumerate(dts):
            assert (a == b) == (i == j)


@pytest.mark.parametrize(
    "data, expected",
    [
        ([1.0, 2.0], "float32"),
        (1.5, "float32"),
        ([1, 2], "int64"),
        (3, "int64"),
        ([True, False], "bool"),
        (True, "bool"),
        ([1, 2.5], "float32"),
        ([True, 2], "int64"),
        ([True, 2.5], "float32"),
        ([[1, 2], [3, 4.0]], "float32"),
    ],
)
def test_default_dtype_inference(data, expected):
    assert dtype_name(G.tensor(data).dtype) == expected


PROMOTION = {
    "int_tensor+float_scalar": lambda M: M.tensor([1, 2]) + 1.5,
    "float_scalar+int_tensor": lambda M: 1.5 + M.tensor([1, 2]),
    "int_tensor+int_scalar": lambda M: M.tensor([1, 2]) + 1,
    "int_tensor*bool_scalar": lambda M: M.tensor([1, 2]) * True,
    "int_scalar-int_tensor": lambda M: 1 - M.tensor([1, 2]),
    "f64+f32": lambda M: M.tensor([1.0, 2.0], dtype=M.float64) + M.tensor([1.0, 2.0]),
    "f32*f64": lambda M: M.tensor([1.0, 2.0]) * M.tensor([3.0, 4.0], dtype=M.float64),
    "f64+float_scalar": lambda M: M.tensor([1.0, 2.0], dtype=M.float64) + 0.5,
    "f32+int_tensor": lambda M: M.tensor([1.5, 2.0]) + M.tensor([1, 2]),
    "int_tensor*f64": lambda M: M.tensor([1, 2]) * M.tensor([0.5, 0.25], dtype=M.float64),
    "bool+int_scalar": lambda M: M.tensor([True, False]) + 1,
    "bool+int_tensor": lambda M: M.tensor([True, False]) + M.tensor([1, 2]),
    "bool+bool_scalar": lambda M: M.tensor([True, False]) + True,
    "bool*bool": lambda M: M.tensor([True, False]) * M.tensor([True, True]),
    "bool*float_scalar": lambda M: M.tensor([True, False]) * 1.5,
    "bool+f32": lambda M: M.tensor([True, False]) + M.tensor([0.5, 0.5]),
    # 0-dim tensors take part in promotion like scalars, except across categories
    "int_nd+f64_0d": lambda M: M.tensor([1, 2]) + M.tensor(1.5, dtype=M.float64),
    "f32_nd+f64_0d": lambda M: M.tensor([1.0, 2.0]) + M.tensor(1.0, dtype=M.float64),
    "f32_0d+f64_0d": lambda M: M.tensor(1.0) + M.tensor(1.0, dtype=M.float64),
    "f64_0d*f32_nd": lambda M: M.tensor(2.0, dtype=M.float64) * M.tensor([1.0, 2.0]),
    "int_nd+f32_0d": lambda M: M.tensor([1, 2]) + M.tensor(0.5),
    "f32_nd+int_0d": lambda M: M.tensor([1.5, 2.5]) + M.tensor(1),
    "bool_nd+int_0d": lambda M: M.tensor([True, False]) + M.tensor(3),
    "int_0d+int_0d": lambda M: M.tensor(3) + M.tensor(4),
    # true division always produces a floating result
    "int/int_tensor": lambda M: M.tensor([1, 2]) / M.tensor([2, 4]),
    "int/int_scalar": lambda M: M.tensor([1, 2]) / 2,
    "int_scalar/int_tensor": lambda M: 3 / M.tensor([1, 2]),
    "int_0d/int_0d": lambda M: M.tensor(3) / M.tensor(2),
    "bool/bool": lambda M: M.tensor([True]) / M.tensor([True]),
    "f64/int": lambda M: M.tensor([1.0, 3.0], dtype=M.float64) / M.tensor([2, 2]),
    # powers
    "int**int_scalar": lambda M: M.tensor([1, 2, 3]) ** 2,
    "int**float_scalar": lambda M: M.tensor([1, 4]) ** 0.5,
    "int_scalar**int": lambda M: 2 ** M.tensor([1, 2, 3]),
    "float_scalar**int": lambda M: 2.0 ** M.tensor([1, 2, 3]),
    "int_0d**float_scalar": lambda M: M.tensor(2) ** 2.0,
    "f32**f64_0d": lambda M: M.tensor([1.0, 2.0]) ** M.tensor(2.0, dtype=M.float64),
    "f64**int_tensor": lambda M: M.tensor([1.0, 2.0], dtype=M.float64) ** M.tensor([2, 3]),
    # subtraction and negation of ints
    "int-int": lambda M: M.tensor([5, 1]) - M.tensor([2, 4]),
    "neg_int": lambda M: -M.tensor([-1, 2]),
}


@pytest.mark.parametrize("fn", list(PROMOTION.values()), ids=list(PROMOTION))
def test_promotion(fn):
    check(fn)


def test_promotion_0dim_vs_ndim_explicit():
    # int n-dim + float64 0-dim: the 0-dim operand is of a higher category, so its dtype wins
    assert dtype_name((G.tensor([1, 2]) + G.tensor(1.5, dtype=G.float64)).dtype) == "float64"
    # same category: the n-dim operand's dtype wins
    assert dtype_name((G.tensor([1.0, 2.0]) + G.tensor(1.0, dtype=G.float64)).dtype) == "float32"
    assert dtype_name((G.tensor([1, 2]) / G.tensor([2, 4])).dtype) == "float32"
    assert dtype_name((G.tensor([1, 2]) + 1).dtype) == "int64"
    assert dtype_name((G.tensor([1, 2]) + 1.5).dtype) == "float32"


UNARY_DTYPES = {
    "exp_int": lambda M: M.tensor([0, 1]).exp(),
    "sqrt_int": lambda M: M.sqrt(M.tensor([1, 4])),
    "log_int": lambda M: M.tensor([1, 2]).log(),
    "sin_int": lambda M: M.sin(M.tensor([0, 1])),
    "tanh_int": lambda M: M.tensor([0, 1]).tanh(),
    "sigmoid_int": lambda M: M.tensor([-1, 2]).sigmoid(),
    "abs_int": lambda M: M.tensor([-1, 2]).abs(),
    "relu_int": lambda M: M.relu(M.tensor([-1, 2])),
    "neg_int": lambda M: M.tensor([-1, 2]).neg(),
    "sum_int": lambda M: M.tensor([1, 2]).sum(),
    "sum_bool": lambda M: M.tensor([True, True, False]).sum(),
    "sum_int_dim": lambda M: M.tensor([[1, 2], [3, 4]]).sum(0),
    "exp_f64": lambda M: M.tensor([0.0, 1.0], dtype=M.float64).exp(),
    "mean_f64": lambda M: M.tensor([1.0, 2.0], dtype=M.float64).mean(),
    "matmul_int": lambda M: M.tensor([[1, 2], [3, 4]]) @ M.tensor([[1, 0], [0, 1]]),
    "dot_int": lambda M: M.tensor([1, 2]) @ M.tensor([3, 4]),
}


@pytest.mark.parametrize("fn", list(UNARY_DTYPES.values()), ids=list(UNARY_DTYPES))
def test_op_result_dtype(fn):
    check(fn)


DTYPE_ERRORS = {
    "mean_int": lambda M: M.tensor([1, 2]).mean(),
    "neg_bool": lambda M: -M.tensor([True, False]),
    "sub_bool": lambda M: M.tensor([True]) - M.tensor([False]),
    "int_pow_negative_int": lambda M: M.tensor([1, 2]) ** -1,
    "dot_mixed_dtype": lambda M: M.tensor([1, 2]) @ M.tensor([1.0, 2.0]),
}


@pytest.mark.parametrize("fn", list(DTYPE_ERRORS.values()), ids=list(DTYPE_ERRORS))
def test_dtype_errors(fn):
    check_error(fn)


# --------------------------------------------------------------------------------------------
# creation
# --------------------------------------------------------------------------------------------

CREATION = {
    "tensor_float_list": lambda M: M.tensor([1.0, 2.0, 3.0]),
    "tensor_int_list": lambda M: M.tensor([1, 2, 3]),
    "tensor_bool_list": lambda M: M.tensor([True, False, True]),
    "tensor_mixed_list": lambda M: M.tensor([1, 2.5, True]),
    "tensor_nested": lambda M: M.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
    "tensor_nested3": lambda M: M.tensor([[[1, 2]], [[3, 4]]]),
    "tensor_nested_mixed": lambda M: M.tensor([[1, 2], [3.5, 4]]),
    "tensor_float_scalar": lambda M: M.tensor(3.25),
    "tensor_int_scalar": lambda M: M.tensor(3),
    "tensor_bool_scalar": lambda M: M.tensor(False),
    "tensor_negative_scalar": lambda M: M.tensor(-1.5),
    "tensor_empty": lambda M: M.tensor([]),
    "tensor_tuple": lambda M: M.tensor((1.0, 2.0)),
    "tensor_list_of_tuples": lambda M: M.tensor([(1, 2), (3, 4)]),
    "tensor_dtype_f64": lambda M: M.tensor([1, 2], dtype=M.float64),
    "tensor_dtype_f32_from_int": lambda M: M.tensor(3, dtype=M.float32),
    "tensor_dtype_int_from_float": lambda M: M.tensor([1.7, -1.7, 2.2], dtype=M.int64),
    "tensor_dtype_bool_from_int": lambda M: M.tensor([0, 2, -1], dtype=M.bool),
    "tensor_dtype_bool_from_float": lambda M: M.tensor([0.0, 0.5], dtype=M.bool),
    "tensor_dtype_f64_nested": lambda M: M.tensor([[1], [2]], dtype=M.float64),
    "tensor_requires_grad": lambda M: M.tensor([1.0, 2.0], requires_grad=True),
    "tensor_requires_grad_f64": lambda M: M.tensor(2.5, dtype=M.float64, requires_grad=True),
    "tensor_requires_grad_false": lambda M: M.tensor([1.0], requires_grad=False),
    "tensor_f32_rounding": lambda M: M.tensor([0.1, 1.123456789, 123456.7]),
    "tensor_big_int": lambda M: M.tensor([2**40, -(2**40)]),
    "legacy_Tensor_list": lambda M: M.Tensor([1, 2]),
    "legacy_Tensor_nested": lambda M: M.Tensor([[1, 2], [3, 4]]),
    "legacy_Tensor_empty": lambda M: M.Tensor(),
    "FloatTensor_list": lambda M: M.FloatTensor([1, 2]),
    "DoubleTensor_list": lambda M: M.DoubleTensor([1, 2]),
    "LongTensor_list": lambda M: M.LongTensor([1, 2]),
    "LongTensor_from_floats": lambda M: M.LongTensor([1.9, -1.9]),
    "zeros": lambda M: M.zeros(2, 3),
    "zeros_tuple": lambda M: M.zeros((2, 3)),
    "zeros_list": lambda M: M.zeros([2, 1]),
    "zeros_scalar_shape": lambda M: M.zeros(()),
    "zeros_empty_dim": lambda M: M.zeros(0, 3),
    "zeros_int": lambda M: M.zeros(2, 3, dtype=M.int64),
    "zeros_bool": lambda M: M.zeros(2, dtype=M.bool),
    "zeros_rg": lambda M: M.zeros(2, requires_grad=True),
    "ones": lambda M: M.ones(3),
    "ones_tuple_f64": lambda M: M.ones((2, 2), dtype=M.float64),
    "ones_rg": lambda M: M.ones(2, 2, requires_grad=True),
    "ones_bool": lambda M: M.ones(2, dtype=M.bool),
    "full_int": lambda M: M.full((2, 2), 7),
    "full_float": lambda M: M.full((2, 2), 7.0),
    "full_bool": lambda M: M.full((2,), True),
    "full_dtype": lambda M: M.full((2,), 1.5, dtype=M.float64),
    "full_int_value_float_dtype": lambda M: M.full([3], 2, dtype=M.float32),
    "full_rg": lambda M: M.full((2,), 0.5, requires_grad=True),
    "arange_int": lambda M: M.arange(5),
    "arange_start_end": lambda M: M.arange(1, 4),
    "arange_step": lambda M: M.arange(0, 10, 3),
    "arange_negative_step": lambda M: M.arange(10, 0, -3),
    "arange_float": lambda M: M.arange(1.0, 4.0),
    "arange_float_step": lambda M: M.arange(0, 1, 0.25),
    "arange_float_end": lambda M: M.arange(2.5),
    "arange_dtype": lambda M: M.arange(5, dtype=M.float64),
    "arange_empty": lambda M: M.arange(0),
    "linspace": lambda M: M.linspace(0, 1, 5),
    "linspace_one": lambda M: M.linspace(0, 1, 1),
    "linspace_f64": lambda M: M.linspace(-1, 1, 3, dtype=M.float64),
    "linspace_reverse": lambda M: M.linspace(2, -2, 5),
    "linspace_many": lambda M: M.linspace(0, 1, 20),
    "eye": lambda M: M.eye(3),
    "eye_rect": lambda M: M.eye(2, 3),
    "eye_int": lambda M: M.eye(2, dtype=M.int64),
    "zeros_like_int": lambda M: M.zeros_like(M.tensor([1, 2])),
    "zeros_like_dtype": lambda M: M.zeros_like(M.ones(2), dtype=M.float64),
    "ones_like_drops_grad": lambda M: M.ones_like(M.tensor([1.0, 2.0], requires_grad=True)),
    "ones_like_rg": lambda M: M.ones_like(M.tensor([1.0, 2.0]), requires_grad=True),
    "ones_like_2d_f64": lambda M: M.ones_like(M.zeros(2, 3, dtype=M.float64)),
    "full_like_int_truncates": lambda M: M.full_like(M.tensor([1, 2]), 2.7),
    "full_like_float": lambda M: M.full_like(M.tensor([1.0, 2.0]), 3),
    "full_like_dtype": lambda M: M.full_like(M.tensor([1, 2]), 2.5, dtype=M.float64),
}


@pytest.mark.parametrize("fn", list(CREATION.values()), ids=list(CREATION))
def test_creation(fn):
    check(fn)


SHAPE_ONLY = {
    "empty": lambda M: M.empty(2, 3),
    "empty_tuple": lambda M: M.empty((4,)),
    "empty_dtype": lambda M: M.empty(2, dtype=M.int64),
    "empty_rg": lambda M: M.empty(3, requires_grad=True),
    "empty_like": lambda M: M.empty_like(M.tensor([1, 2])),
    "empty_like_f64": lambda M: M.empty_like(M.ones(2, 2, dtype=M.float64)),
    "legacy_Tensor_sizes": lambda M: M.Tensor(2, 3),
    "FloatTensor_sizes": lambda M: M.FloatTensor(2),
    "DoubleTensor_sizes": lambda M: M.DoubleTensor(3, 1),
    "LongTensor_sizes": lambda M: M.LongTensor(2, 3),
    "rand": lambda M: M.rand(2, 3),
    "rand_tuple": lambda M: M.rand((4,)),
    "rand_f64": lambda M: M.rand(2, dtype=M.float64),
    "rand_rg": lambda M: M.rand(2, requires_grad=True),
    "randn": lambda M: M.randn(3),
    "randn_f64": lambda M: M.randn(2, 3, dtype=M.float64),
    "randint": lambda M: M.randint(0, 5, (3,)),
    "randint_high_only": lambda M: M.randint(5, (2, 2)),
    "rand_like": lambda M: M.rand_like(M.ones(2, 3, dtype=M.float64)),
    "randn_like": lambda M: M.randn_like(M.ones(4)),
}


@pytest.mark.parametrize("fn", list(SHAPE_ONLY.values()), ids=list(SHAPE_ONLY))
def test_creation_shape_dtype_only(fn):
    g, t = run_both(fn)
    assert isinstance(g, G.Tensor)
    assert_same(g.shape, t.shape)
    assert_same(g.dtype, t.dtype)
    assert g.requires_grad == t.requires_grad
    assert g.is_leaf and g.grad_fn is None


CREATION_ERRORS = {
    "ragged": lambda M: M.tensor([[1, 2], [3]]),
    "int_requires_grad": lambda M: M.tensor([1, 2], requires_grad=True),
    "bool_requires_grad": lambda M: M.tensor([True], requires_grad=True),
    "zeros_int_requires_grad": lambda M: M.zeros(2, dtype=M.int64, requires_grad=True),
    "rand_like_int": lambda M: M.rand_like(M.tensor([1, 2])),
    "randn_int": lambda M: M.randn(2, dtype=M.int64),
}


@pytest.mark.parametrize("fn", list(CREATION_ERRORS.values()), ids=list(CREATION_ERRORS))
def test_creation_errors(fn):
    check_error(fn)


def test_tensor_copies_its_data():
    data = [1.0, 2.0]
    t = G.tensor(data)
    data[0] = 5.0
    assert t.tolist() == [1.0, 2.0]


def test_from_numpy_dtypes(torch):
    for arr in [
        np.array([1.0, 2.0]),
        np.array([1.0, 2.0], dtype=np.float32),
        np.array([1, 2], dtype=np.int64),
        np.array([True, False]),
        np.arange(6.0).reshape(2, 3),
        np.array(2.5),
    ]:
        g, t = G.from_numpy(arr.copy()), torch.from_numpy(arr.copy())
        assert_same(g, t)


def test_from_numpy_shares_memory():
    a = np.array([1.0, 2.0, 3.0])
    t = G.from_numpy(a)
    assert dtype_name(t.dtype) == "float64"
    a[0] = 5.0
    assert t.tolist() == [5.0, 2.0, 3.0]
    a[:] = 0.0
    assert t.tolist() == [0.0, 0.0, 0.0]
    # and the other way round, through numpy()
    t.numpy()[1] = 7.0
    assert a[1] == 7.0


def test_from_numpy_shares_memory_2d_int():
    a = np.zeros((2, 2), dtype=np.int64)
    t = G.from_numpy(a)
    a[1, 0] = 3
    assert t.tolist() == [[0, 0], [3, 0]]


def test_numpy_shares_memory():
    t = G.tensor([1.0, 2.0])
    n = t.numpy()
    assert isinstance(n, np.ndarray) and n.dtype == np.float32
    n[0] = 9.0
    assert t.tolist() == [9.0, 2.0]


# --------------------------------------------------------------------------------------------
# random numbers: reproducibility within the library only
# --------------------------------------------------------------------------------------------


def test_manual_seed_reproducible():
    G.manual_seed(1234)
    a, b, c = G.rand(5), G.randn(2, 3), G.randint(0, 100, (7,))
    G.manual_seed(1234)
    a2, b2, c2 = G.rand(5), G.randn(2, 3), G.randint(0, 100, (7,))
    np.testing.assert_array_equal(to_np(a), to_np(a2))
    np.testing.assert_array_equal(to_np(b), to_np(b2))
    np.testing.assert_array_equal(to_np(c), to_np(c2))


def test_manual_seed_stream_advances_and_seeds_differ():
    G.manual_seed(0)
    a, b = G.rand(16), G.rand(16)
    assert not np.array_equal(to_np(a), to_np(b))
    G.manual_seed(1)
    c = G.rand(16)
    assert not np.array_equal(to_np(a), to_np(c))


def test_rand_like_reproducible():
    base = G.ones(3, 2, dtype=G.float64)
    G.manual_seed(7)
    a, b = G.rand_like(base), G.randn_like(base)
    G.manual_seed(7)
    a2, b2 = G.rand_like(base), G.randn_like(base)
    np.testing.assert_array_equal(to_np(a), to_np(a2))
    np.testing.assert_array_equal(to_np(b), to_np(b2))
    assert a.dtype == G.float64 and tuple(a.shape) == (3, 2)


def test_rand_range_and_dtype():
    G.manual_seed(0)
    r = G.rand(20000)
    assert r.dtype == G.float32 and tuple(r.shape) == (20000,)
    v = to_np(r)
    assert v.min() >= 0.0 and v.max() < 1.0
    assert abs(v.mean() - 0.5) < 0.02
    assert len(np.unique(v)) > 15000


def test_randn_statistics():
    G.manual_seed(0)
    v = to_np(G.randn(20000))
    assert v.dtype == np.float32
    assert abs(v.mean()) < 0.05
    assert abs(v.std() - 1.0) < 0.05
    v64 = to_np(G.randn(1000, dtype=G.float64))
    assert v64.dtype == np.float64


def test_randint_range():
    G.manual_seed(0)
    r = G.randint(3, 7, (1000,))
    assert r.dtype == G.int64
    v = to_np(r)
    assert v.min() >= 3 and v.max() < 7
    assert set(np.unique(v).tolist()) == {3, 4, 5, 6}
    r2 = G.randint(4, (2, 50))
    assert tuple(r2.shape) == (2, 50)
    assert to_np(r2).min() >= 0 and to_np(r2).max() < 4


# --------------------------------------------------------------------------------------------
# attributes and basic methods
# --------------------------------------------------------------------------------------------


def test_shape_and_size(torch):
    for fn in [
        lambda M: M.ones(2, 3).shape,
        lambda M: M.ones(2, 3).size(),
        lambda M: M.tensor(1.0).shape,
        lambda M: M.zeros(0, 4).shape,
        lambda M: M.ones(2, 3, 4).shape[1:],
        lambda M: M.Size([2, 3]),
    ]:
        check(fn)
    s = G.ones(2, 3).shape
    assert s == (2, 3)
    assert s != [2, 3]
    assert isinstance(s, tuple)
    assert len(s) == 2 and s[0] == 2 and s[-1] == 3
    assert repr(s) == f"{GNAME}.Size([2, 3])" and str(s) == repr(s)
    assert repr(G.tensor(1.0).shape) == f"{GNAME}.Size([])"
    a, b = s
    assert (a, b) == (2, 3)


@pytest.mark.parametrize("dim", [0, 1, 2, -1, -2, -3])
def test_size_dim(dim):
    check(lambda M: M.ones(2, 3, 4).size(dim))


SIZE_ERRORS = {
    "size_too_big": lambda M: M.ones(2, 3).size(2),
    "size_too_negative": lambda M: M.ones(2, 3).size(-3),
    "size_of_0dim": lambda M: M.tensor(1.0).size(0),
}


@pytest.mark.parametrize("fn", list(SIZE_ERRORS.values()), ids=list(SIZE_ERRORS))
def test_size_errors(fn):
    check_error(fn)


def test_dim_ndim_numel():
    for fn in [
        lambda M: M.ones(2, 3).dim(),
        lambda M: M.ones(2, 3).ndim,
        lambda M: M.tensor(1.0).dim(),
        lambda M: M.tensor(1.0).ndim,
        lambda M: M.ones(2, 3, 4).numel(),
        lambda M: M.tensor(1.0).numel(),
        lambda M: M.zeros(0, 3).numel(),
        lambda M: len(M.ones(4, 2)),
    ]:
        check(fn)


def test_len_of_0dim_errors():
    check_error(lambda M: len(M.tensor(1.0)))


def test_dtype_attribute():
    check(lambda M: M.ones(2).dtype)
    check(lambda M: M.ones(2, dtype=M.float64).dtype)
    check(lambda M: M.tensor([1]).dtype)
    check(lambda M: M.tensor([True]).dtype)
    assert repr(G.ones(2).dtype) == f"{GNAME}.float32"
    assert G.ones(2).dtype == G.float32


def test_device():
    g, t = run_both(lambda M: M.ones(2).device)
    assert repr(g) == repr(t) == "device(type='cpu')"
    assert str(g) == str(t) == "cpu"
    g, t = run_both(lambda M: M.tensor([1, 2]).device)
    assert repr(g) == repr(t)


TRANSPOSES = {
    "T_2d": lambda M: M.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]).T,
    "t_2d": lambda M: M.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]).t(),
    "t_1d": lambda M: M.tensor([1.0, 2.0]).t(),
    "t_0d": lambda M: M.tensor(1.0).t(),
    "t_fn": lambda M: M.t(M.tensor([[1, 2], [3, 4]])),
    "transpose": lambda M: M.arange(6.0).reshape(2, 3).transpose(0, 1),
    "transpose_neg": lambda M: M.arange(24).reshape(2, 3, 4).transpose(-1, 0),
    "transpose_same": lambda M: M.arange(6).reshape(2, 3).transpose(1, 1),
    "transpose_fn": lambda M: M.transpose(M.arange(6.0).reshape(3, 2), 1, 0),
    "T_tolist": lambda M: M.tensor([[1.0, 2.0], [3.0, 4.0]]).T.tolist(),
}


@pytest.mark.parametrize("fn", list(TRANSPOSES.values()), ids=list(TRANSPOSES))
def test_transposes(fn):
    check(fn)


def test_transpose_errors():
    check_error(lambda M: M.ones(2, 3, 4).t())
    check_error(lambda M: M.ones(2, 3).transpose(0, 2))
    check_error(lambda M: M.ones(2, 3).transpose(-3, 0))


ITEM = {
    "float": lambda M: M.tensor(2.5).item(),
    "float_rounding": lambda M: M.tensor(0.1).item(),
    "float64": lambda M: M.tensor(0.1, dtype=M.float64).item(),
    "int": lambda M: M.tensor(3).item(),
    "bool": lambda M: M.tensor(True).item(),
    "one_element_1d": lambda M: M.tensor([4.0]).item(),
    "one_element_2d": lambda M: M.tensor([[7]]).item(),
    "requires_grad": lambda M: M.tensor(1.5, requires_grad=True).item(),
    "non_leaf": lambda M: (M.tensor(1.5, requires_grad=True) * 2).item(),
}


@pytest.mark.parametrize("fn", list(ITEM.values()), ids=list(ITEM))
def test_item(fn):
    g, t = run_both(fn)
    assert type(g) is type(t)
    assert g == t  # exact: item() of a float32 returns the float32 value widened to double


def test_item_errors():
    check_error(lambda M: M.tensor([1.0, 2.0]).item())
    check_error(lambda M: M.tensor([]).item())
    check_error(lambda M: M.ones(2, 3).item())


TOLIST = {
    "float": lambda M: M.tensor([0.1, 2.0]).tolist(),
    "float64": lambda M: M.tensor([0.1, 2.0], dtype=M.float64).tolist(),
    "int_2d": lambda M: M.tensor([[1, 2], [3, 4]]).tolist(),
    "bool": lambda M: M.tensor([True, False]).tolist(),
    "scalar": lambda M: M.tensor(5).tolist(),
    "scalar_float": lambda M: M.tensor(1.5).tolist(),
    "empty": lambda M: M.tensor([]).tolist(),
    "empty_2d": lambda M: M.zeros(2, 0).tolist(),
    "3d": lambda M: M.arange(8).reshape(2, 2, 2).tolist(),
    "requires_grad": lambda M: M.tensor([1.0, 2.0], requires_grad=True).tolist(),
    "non_contiguous": lambda M: M.arange(6).reshape(2, 3).t().tolist(),
}


@pytest.mark.parametrize("fn", list(TOLIST.values()), ids=list(TOLIST))
def test_tolist(fn):
    g, t = run_both(fn)

    def same(a, b):
        assert type(a) is type(b), (a, b)
        if isinstance(b, list):
            assert len(a) == len(b)
            for x, y in zip(a, b):
                same(x, y)
        else:
            assert a == b

    same(g, t)


NUMPY = {
    "float32": lambda M: M.tensor([1.0, 2.5]).numpy(),
    "float64": lambda M: M.tensor([[1.0], [2.0]], dtype=M.float64).numpy(),
    "int64": lambda M: M.tensor([1, 2]).numpy(),
    "bool": lambda M: M.tensor([True, False]).numpy(),
    "0dim": lambda M: M.tensor(3.5).numpy(),
    "transposed": lambda M: M.arange(6.0).reshape(2, 3).t().numpy(),
    "detached": lambda M: M.tensor([1.0, 2.0], requires_grad=True).detach().numpy(),
}


@pytest.mark.parametrize("fn", list(NUMPY.values()), ids=list(NUMPY))
def test_numpy(fn):
    g, t = run_both(fn)
    assert isinstance(g, np.ndarray)
    assert g.dtype == t.dtype and g.shape == t.shape
    np.testing.assert_array_equal(g, t)


def test_numpy_requires_grad_error():
    check_error(lambda M: M.tensor([1.0, 2.0], requires_grad=True).numpy())
    check_error(lambda M: (M.tensor([1.0, 2.0], requires_grad=True) * 2).numpy())


def test_data_attribute():
    def fn(M):
        x = M.tensor([1.0, 2.0], requires_grad=True)
        d = x.data
        return d, d.requires_grad, d.is_leaf, d.grad_fn

    check(fn)

    def fn2(M):
        y = M.tensor([1.0, 2.0], requires_grad=True) * 3
        return y.data

    check(fn2)


def test_data_shares_storage():
    x = G.tensor([1.0, 2.0], requires_grad=True)
    x.data.zero_()
    assert x.tolist() == [0.0, 0.0]
    assert x.requires_grad and x.is_leaf


def test_clone():
    check(lambda M: M.tensor([1.0, 2.0]).clone())
    check(lambda M: M.tensor([1, 2]).clone())
    check(lambda M: M.tensor([1.0, 2.0], requires_grad=True).clone())
    check(lambda M: M.arange(6.0).reshape(2, 3).t().clone())
    a = G.tensor([1.0, 2.0])
    b = a.clone()
    b.zero_()
    assert a.tolist() == [1.0, 2.0] and b.tolist() == [0.0, 0.0]


def test_contiguous():
    check(lambda M: M.arange(6.0).reshape(2, 3).t().contiguous())
    check(lambda M: M.arange(6.0).reshape(2, 3).t().contiguous().view(-1))
    check(lambda M: M.tensor([1.0, 2.0], requires_grad=True).contiguous())
    check(lambda M: M.ones(2, 2, requires_grad=True).t().contiguous())
    a = G.tensor([[1.0, 2.0], [3.0, 4.0]])
    c = a.contiguous()
    c.zero_()  # contiguous() of a contiguous tensor is the tensor itself: no copy
    assert a.tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_leaf_flags():
    def fn(M):
        a = M.tensor([1.0, 2.0])
        b = M.tensor([1.0, 2.0], requires_grad=True)
        c = b * 2
        d = a * 2
        return (
            a.is_leaf, a.requires_grad, a.grad, a.grad_fn,
            b.is_leaf, b.requires_grad, b.grad, b.grad_fn,
            c.is_leaf, c.requires_grad,
            d.is_leaf, d.requires_grad, d.grad_fn,
        )

    check(fn)


FORMAT = {
    "fstring_float": lambda M: f"{M.tensor(1.0)}",
    "fstring_float_frac": lambda M: f"{M.tensor(1 / 3)}",
    "fstring_int": lambda M: f"{M.tensor(3)}",
    "fstring_bool": lambda M: f"{M.tensor(True)}",
    "fstring_f64": lambda M: f"{M.tensor(0.1, dtype=M.float64)}",
    "fstring_spec": lambda M: f"{M.tensor(1.5):.3f}",
    "fstring_spec_int": lambda M: f"{M.tensor(3):>6}",
    "fstring_requires_grad": lambda M: f"{M.tensor(1.0, requires_grad=True)}",
    "fstring_non_leaf": lambda M: f"{M.tensor(1.0, requires_grad=True) * 2}",
    "format_builtin": lambda M: format(M.tensor(2.5), ".1f"),
    "fstring_1d": lambda M: f"{M.tensor([1.0, 2.0])}",
    "str_1d": lambda M: str(M.tensor([1.0, 2.0])),
    "str_0d": lambda M: str(M.tensor(1.0)),
}


@pytest.mark.parametrize("fn", list(FORMAT.values()), ids=list(FORMAT))
def test_format(fn):
    g, t = run_both(fn)
    assert g == t.replace("torch.", f"{GNAME}.")


# --------------------------------------------------------------------------------------------
# printing
# --------------------------------------------------------------------------------------------

REPRS = {
    "float_int_valued": lambda M: M.tensor([1.0, 2.0]),
    "float_fraction": lambda M: M.tensor([0.1, 0.25]),
    "float_negative": lambda M: M.tensor([[1.5, -2.0], [3.0, 4.0]]),
    "float_sci_small": lambda M: M.tensor([1e-5, 1e5]),
    "float_sci_large": lambda M: M.tensor([1e10, 1.0]),
    "float_1e-3": lambda M: M.tensor([1e-3, 1.0]),
    "float_1e-4": lambda M: M.tensor([1e-4, 1.0]),
    "float_1e8": lambda M: M.tensor([1e8, 1.0]),
    "float_big": lambda M: M.tensor([123456789.0]),
    "float_tiny": lambda M: M.tensor([1e-20]),
    "float_zero": lambda M: M.tensor([0.0]),
    "float_neg_zero": lambda M: M.tensor([-0.0]),
    "float_nan_inf": lambda M: M.tensor([float("nan"), float("inf"), -float("inf"), 1.0]),
    "float_nan_frac": lambda M: M.tensor([float("nan"), 0.5]),
    "float_0d": lambda M: M.tensor(-1.5),
    "float_0d_int_valued": lambda M: M.tensor(3.0),
    "f64": lambda M: M.tensor([1.0, 2.0], dtype=M.float64),
    "f64_0d": lambda M: M.tensor(1.0, dtype=M.float64),
    "f64_frac": lambda M: M.tensor([1 / 3, 2 / 3], dtype=M.float64),
    "int": lambda M: M.tensor([-1, 10, 100]),
    "int_wide": lambda M: M.tensor([1000000000, -3]),
    "int_0d": lambda M: M.tensor(7),
    "bool": lambda M: M.tensor([True, False]),
    "bool_2d": lambda M: M.tensor([[True, False]]),
    "bool_0d": lambda M: M.tensor(True),
    "empty": lambda M: M.tensor([]),
    "empty_int": lambda M: M.tensor([], dtype=M.int64),
    "empty_f64": lambda M: M.tensor([], dtype=M.float64),
    "empty_2d": lambda M: M.zeros(0, 3),
    "empty_2d_f64": lambda M: M.zeros(0, 2, dtype=M.float64),
    "empty_rg": lambda M: M.tensor([], requires_grad=True),
    "int_2d": lambda M: M.tensor([[1, 2], [3, 4]]),
    "float_3d": lambda M: M.arange(24.0).reshape(2, 3, 4),
    "rg": lambda M: M.tensor([1.0, 2.0], requires_grad=True),
    "rg_f64": lambda M: M.tensor([1.0, 2.0], dtype=M.float64, requires_grad=True),
    "grad_fn": lambda M: M.tensor([1.0, 2.0], requires_grad=True) * 2,
    "grad_fn_f64_sci": lambda M: M.tensor([[1e-5, 1.0], [2.0, 3.0]], dtype=M.float64,
                                          requires_grad=True) * 2,
    "wrapped_line": lambda M: M.linspace(0, 1, 20),
    "summarized_int": lambda M: M.arange(1001),
    "summarized_float": lambda M: M.arange(2000.0),
    "summarized_2d": lambda M: M.ones(40, 40) * 1.5,
}


@pytest.mark.parametrize("fn", list(REPRS.values()), ids=list(REPRS))
def test_repr(fn):
    g, t = run_both(fn)
    assert_same_repr(g, t)
    assert str(g) == repr(g)


# --------------------------------------------------------------------------------------------
# forward ops: values, dtype, repr
# --------------------------------------------------------------------------------------------

A = [[0.5, -1.25, 2.0], [3.0, 0.75, -0.5]]
B = [[1.5, 2.0, -0.5], [0.25, 1.0, 4.0]]
P = [[0.5, 1.25, 2.0], [3.0, 0.75, 1.5]]  # positive


def _a(M, **kw):
    return M.tensor(A, **kw)


def _b(M, **kw):
    return M.tensor(B, **kw)


def _p(M, **kw):
    return M.tensor(P, **kw)


FORWARD = {
    "add": lambda M: _a(M) + _b(M),
    "add_scalar": lambda M: _a(M) + 2,
    "radd_scalar": lambda M: 2.5 + _a(M),
    "add_fn": lambda M: M.add(_a(M), _b(M)),
    "add_broadcast_row": lambda M: _a(M) + M.tensor([1.0, 2.0, 3.0]),
    "add_broadcast_col": lambda M: _a(M) + M.tensor([[1.0], [2.0]]),
    "add_broadcast_outer": lambda M: M.tensor([[1.0], [2.0]]) + M.tensor([10.0, 20.0, 30.0]),
    "add_broadcast_3d": lambda M: M.ones(4, 1, 3) + _a(M),
    "add_0dim": lambda M: _a(M) + M.tensor(2.0),
    "sub": lambda M: _a(M) - _b(M),
    "sub_scalar": lambda M: _a(M) - 1,
    "rsub_scalar": lambda M: 1 - _a(M),
    "rsub_float": lambda M: 0.5 - _a(M),
    "sub_fn": lambda M: M.sub(_a(M), _b(M)),
    "mul": lambda M: _a(M) * _b(M),
    "mul_scalar": lambda M: _a(M) * 3,
    "rmul_scalar": lambda M: -2.0 * _a(M),
    "mul_fn": lambda M: M.mul(_a(M), 2),
    "mul_broadcast": lambda M: _a(M) * M.tensor([2.0, 0.5, -1.0]),
    "div": lambda M: _a(M) / _p(M),
    "div_scalar": lambda M: _a(M) / 4,
    "rdiv_scalar": lambda M: 1.5 / _p(M),
    "div_fn": lambda M: M.div(_a(M), _p(M)),
    "div_by_zero": lambda M: M.tensor([1.0, -1.0, 0.0]) / 0,
    "pow_scalar": lambda M: _a(M) ** 2,
    "pow_float": lambda M: _p(M) ** 1.5,
    "pow_negative": lambda M: _p(M) ** -1,
    "pow_zero": lambda M: _a(M) ** 0,
    "rpow_scalar": lambda M: 2 ** _a(M),
    "pow_tensor": lambda M: _p(M) ** _b(M),
    "pow_fn": lambda M: M.pow(_p(M), 2),
    "pow_method": lambda M: _p(M).pow(0.5),
    "pow_negative_base_frac": lambda M: M.tensor([-1.0, 4.0]) ** 0.5,
    "neg": lambda M: -_a(M),
    "neg_method": lambda M: _a(M).neg(),
    "neg_fn": lambda M: M.neg(_a(M)),
    "exp": lambda M: _a(M).exp(),
    "exp_fn": lambda M: M.exp(_a(M)),
    "log": lambda M: _p(M).log(),
    "log_fn": lambda M: M.log(_p(M)),
    "log_special": lambda M: M.tensor([0.0, -1.0, 1.0]).log(),
    "sin": lambda M: _a(M).sin(),
    "sin_fn": lambda M: M.sin(_a(M)),
    "cos": lambda M: _a(M).cos(),
    "cos_fn": lambda M: M.cos(_a(M)),
    "tanh": lambda M: _a(M).tanh(),
    "tanh_fn": lambda M: M.tanh(_a(M)),
    "sigmoid": lambda M: _a(M).sigmoid(),
    "sigmoid_fn": lambda M: M.sigmoid(_a(M)),
    "sigmoid_extreme": lambda M: M.tensor([-100.0, 0.0, 100.0]).sigmoid(),
    "relu": lambda M: _a(M).relu(),
    "relu_fn": lambda M: M.relu(_a(M)),
    "sqrt": lambda M: _p(M).sqrt(),
    "sqrt_fn": lambda M: M.sqrt(_p(M)),
    "sqrt_negative": lambda M: M.tensor([-1.0, 4.0]).sqrt(),
    "abs": lambda M: _a(M).abs(),
    "abs_fn": lambda M: M.abs(_a(M)),
    "abs_builtin": lambda M: abs(_a(M)),
    "f64_exp": lambda M: _a(M, dtype=M.float64).exp(),
    "f64_mixed_add": lambda M: _a(M, dtype=M.float64) + _b(M),
    "sum": lambda M: _a(M).sum(),
    "sum_fn": lambda M: M.sum(_a(M)),
    "sum_dim0": lambda M: _a(M).sum(0),
    "sum_dim1": lambda M: _a(M).sum(1),
    "sum_dim_neg": lambda M: _a(M).sum(-1),
    "sum_dim_tuple": lambda M: _a(M).sum((0, 1)),
    "sum_dim_list": lambda M: _a(M).sum([1, 0]),
    "sum_dim_empty_tuple": lambda M: _a(M).sum(()),
    "sum_keepdim": lambda M: _a(M).sum(1, keepdim=True),
    "sum_kw": lambda M: _a(M).sum(dim=0, keepdim=True),
    "sum_fn_dim": lambda M: M.sum(_a(M), 1),
    "sum_3d_tuple_keepdim": lambda M: M.arange(24.0).reshape(2, 3, 4).sum((0, 2), keepdim=True),
    "sum_3d_neg_tuple": lambda M: M.arange(24.0).reshape(2, 3, 4).sum((-1, -3)),
    "sum_0dim": lambda M: M.tensor(2.0).sum(),
    "sum_0dim_dim0": lambda M: M.tensor(2.0).sum(0),
    "sum_empty": lambda M: M.zeros(0, 3).sum(0),
    "mean": lambda M: _a(M).mean(),
    "mean_fn": lambda M: M.mean(_a(M)),
    "mean_dim0": lambda M: _a(M).mean(0),
    "mean_dim_neg": lambda M: _a(M).mean(-1),
    "mean_dim_tuple": lambda M: _a(M).mean((0, 1)),
    "mean_keepdim": lambda M: _a(M).mean(0, keepdim=True),
    "mean_fn_dim": lambda M: M.mean(_a(M), dim=1),
    "mean_3d": lambda M: M.arange(24.0).reshape(2, 3, 4).mean((0, -1), keepdim=True),
    "mean_f64": lambda M: _a(M, dtype=M.float64).mean(1),
    "matmul_2d_2d": lambda M: _a(M) @ _b(M).t(),
    "matmul_1d_1d": lambda M: M.tensor([1.0, 2.0, 3.0]) @ M.tensor([4.0, 5.0, 6.0]),
    "matmul_2d_1d": lambda M: _a(M) @ M.tensor([1.0, 2.0, 3.0]),
    "matmul_1d_2d": lambda M: M.tensor([1.0, 2.0]) @ _a(M),
    "matmul_3d_3d": lambda M: M.arange(12.0).reshape(2, 2, 3) @ M.arange(12.0).reshape(2, 3, 2),
    "matmul_3d_2d": lambda M: M.arange(12.0).reshape(2, 2, 3) @ _b(M).t(),
    "matmul_2d_3d": lambda M: _a(M) @ M.arange(12.0).reshape(2, 3, 2),
    "matmul_3d_1d": lambda M: M.arange(12.0).reshape(2, 2, 3) @ M.tensor([1.0, 0.0, -1.0]),
    "matmul_1d_3d": lambda M: M.tensor([1.0, -1.0]) @ M.arange(12.0).reshape(2, 2, 3),
    "matmul_batch_broadcast": lambda M: M.ones(2, 1, 2, 3) @ M.arange(18.0).reshape(3, 3, 2),
    "matmul_fn": lambda M: M.matmul(_a(M), _b(M).t()),
    "matmul_method": lambda M: _a(M).matmul(_b(M).t()),
    "mm": lambda M: _a(M).mm(_b(M).t()),
    "mm_fn": lambda M: M.mm(_b(M).t(), _a(M)),
    "mm_f64": lambda M: _a(M, dtype=M.float64).mm(_b(M, dtype=M.float64).t()),
    "matmul_empty_inner": lambda M: M.ones(2, 0) @ M.ones(0, 3),
    "reshape": lambda M: _a(M).reshape(3, 2),
    "reshape_tuple": lambda M: _a(M).reshape((3, 2)),
    "reshape_neg": lambda M: _a(M).reshape(-1),
    "reshape_neg_mid": lambda M: M.arange(24.0).reshape(2, -1, 4),
    "reshape_fn": lambda M: M.reshape(_a(M), (6, 1)),
    "reshape_non_contiguous": lambda M: _a(M).t().reshape(6),
    "reshape_to_0d": lambda M: M.tensor([5.0]).reshape(()),
    "view": lambda M: _a(M).view(6),
    "view_tuple": lambda M: _a(M).view((3, 2)),
    "view_neg": lambda M: _a(M).view(-1, 2),
    "view_neg_first": lambda M: _a(M).view(2, -1),
    "view_add_dims": lambda M: _a(M).view(1, 2, 1, 3),
    "view_0d": lambda M: M.tensor(3.0).view(1),
    "view_0d_neg": lambda M: M.tensor(3.0).view(-1),
    "chain": lambda M: ((_a(M) @ _b(M).t() + 1.0).tanh() * 2).sum(0).exp(),
}


@pytest.mark.parametrize("fn", list(FORWARD.values()), ids=list(FORWARD))
def test_forward(fn):
    check(fn)


VIEWS = {
    "view": lambda b: b.view(6),
    "view_2d": lambda b: b.view(3, 2),
    "reshape_contiguous": lambda b: b.reshape(-1),
    "t": lambda b: b.t(),
    "T": lambda b: b.T,
    "transpose": lambda b: b.transpose(0, 1),
    "detach": lambda b: b.detach(),
}


@pytest.mark.parametrize("fn", list(VIEWS.values()), ids=list(VIEWS))
def test_views_share_storage(fn):
    """view / reshape of a contiguous tensor / t / transpose / detach alias their base."""
    base = _a(G)
    alias = fn(base)
    base.zero_()
    assert not np.any(to_np(alias))
    base2 = _a(G)
    alias2 = fn(base2)
    alias2.zero_()
    assert not np.any(to_np(base2))


def test_reshape_non_contiguous_copies():
    base = _a(G)
    r = base.t().reshape(6)
    base.zero_()
    assert np.all(to_np(r) == np.array(A, dtype=np.float32).T.reshape(6))


FORWARD_ERRORS = {
    "broadcast_add": lambda M: M.ones(2, 3) + M.ones(4),
    "broadcast_mul": lambda M: M.ones(2, 3) * M.ones(3, 2),
    "broadcast_sub_3d": lambda M: M.ones(2, 1, 3) - M.ones(4, 2),
    "broadcast_div": lambda M: M.ones(3) / M.ones(2),
    "broadcast_pow": lambda M: M.ones(3) ** M.ones(2),
    "matmul_2d": lambda M: M.ones(2, 3) @ M.ones(2, 3),
    "mm_2d": lambda M: M.ones(2, 3).mm(M.ones(2, 3)),
    "mm_1d_self": lambda M: M.ones(2).mm(M.ones(2, 2)),
    "mm_1d_other": lambda M: M.ones(2, 2).mm(M.ones(2)),
    "matmul_1d_1d": lambda M: M.ones(3) @ M.ones(2),
    "matmul_2d_1d": lambda M: M.ones(3, 3) @ M.ones(2),
    "matmul_1d_2d": lambda M: M.ones(2) @ M.ones(3, 3),
    "matmul_batched": lambda M: M.ones(2, 3, 3) @ M.ones(2, 2, 3),
    "matmul_batch_broadcast": lambda M: M.ones(2, 3, 3) @ M.ones(4, 3, 3),
    "matmul_0d": lambda M: M.tensor(1.0) @ M.ones(2),
    "view_bad_numel": lambda M: M.ones(2, 3).view(4),
    "view_bad_infer": lambda M: M.ones(6).view(4, -1),
    "view_bad_infer_first": lambda M: M.ones(6).view(-1, 4),
    "view_zero_infer": lambda M: M.ones(6).view(0, -1),
    "view_two_infer": lambda M: M.ones(2, 3).view(-1, -1),
    "view_negative": lambda M: M.ones(6).view(2, -2),
    "view_non_contiguous": lambda M: M.ones(2, 3).t().view(6),
    "reshape_bad_numel": lambda M: M.ones(2, 3).reshape(4),
    "reshape_two_infer": lambda M: M.ones(6).reshape(-1, -1),
    "sum_dim_too_big": lambda M: M.ones(2, 3).sum(2),
    "sum_dim_too_negative": lambda M: M.ones(2, 3).sum(-3),
    "sum_dim_tuple_out_of_range": lambda M: M.ones(2, 3).sum((0, 5)),
    "sum_dim_repeated": lambda M: M.ones(2, 3).sum((0, 0)),
    "sum_0dim_dim1": lambda M: M.tensor(1.0).sum(1),
    "mean_dim_out_of_range": lambda M: M.ones(2, 3).mean(2),
    "mean_dim_negative_out_of_range": lambda M: M.ones(2, 3).mean(-3),
}


@pytest.mark.parametrize("fn", list(FORWARD_ERRORS.values()), ids=list(FORWARD_ERRORS))
def test_forward_errors(fn):
    check_error(fn)
