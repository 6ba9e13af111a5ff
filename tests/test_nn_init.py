"""`gradrs.nn.init` against PyTorch: gains, fan computations and their errors exactly; the random
initializers by their statistics (mean, std, bounds), orthogonality and structure."""

import math

import numpy as np
import pytest
from conftest import G, assert_same_error, assert_same_warning, to_np

pytestmark = pytest.mark.usefixtures("restore_grad_mode")

init = G.nn.init


@pytest.mark.parametrize("args", [
    ("linear",), ("conv1d",), ("conv2d",), ("conv3d",), ("conv_transpose1d",),
    ("conv_transpose2d",), ("conv_transpose3d",), ("sigmoid",), ("tanh",), ("relu",),
    ("leaky_relu",), ("leaky_relu", 0.2), ("leaky_relu", 3), ("selu",),
])
def test_calculate_gain(torch, args):
    g, t = init.calculate_gain(*args), torch.nn.init.calculate_gain(*args)
    assert type(g) is type(t) and g == t


@pytest.mark.parametrize("args", [("leaky_relu", True), ("leaky_relu", "x"), ("softmax",)])
def test_calculate_gain_errors(torch, args):
    assert_same_error(lambda: init.calculate_gain(*args),
                      lambda: torch.nn.init.calculate_gain(*args))


@pytest.mark.parametrize("shape", [(3, 4), (5, 2, 3), (4, 3, 2, 2), (2, 3, 1, 2, 2), (7, 1)])
def test_fans(torch, shape):
    g = init._calculate_fan_in_and_fan_out(G.empty(shape))
    t = torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(shape))
    assert g == t
    for mode in ("fan_in", "fan_out", "FAN_IN"):
        assert init._calculate_correct_fan(G.empty(shape), mode) == \
            torch.nn.init._calculate_correct_fan(torch.empty(shape), mode)


@pytest.mark.parametrize("fn", [
    lambda M: M.nn.init._calculate_fan_in_and_fan_out(M.empty(3)),
    lambda M: M.nn.init.xavier_uniform_(M.empty(3)),
    lambda M: M.nn.init.xavier_normal_(M.empty(())),
    lambda M: M.nn.init.kaiming_uniform_(M.empty(3)),
    lambda M: M.nn.init.kaiming_normal_(M.empty(3, 3), mode="fan_avg"),
    lambda M: M.nn.init.kaiming_uniform_(M.empty(3, 3), nonlinearity="softmax"),
    lambda M: M.nn.init.eye_(M.empty(2, 2, 2)),
    lambda M: M.nn.init.dirac_(M.empty(2, 2)),
    lambda M: M.nn.init.dirac_(M.empty(3, 2, 3), groups=2),
    lambda M: M.nn.init.orthogonal_(M.empty(3)),
    lambda M: M.nn.init.sparse_(M.empty(3), 0.5),
    lambda M: M.nn.init.uniform_(M.empty(3, dtype=M.int64)),
    lambda M: M.nn.init.normal_(M.empty(3, dtype=M.int64)),
    lambda M: M.nn.init.uniform_(M.empty(3), 1.0, 0.0),
    lambda M: M.nn.init.normal_(M.empty(3), 0.0, -1.0),
])
def test_errors(torch, fn):
    assert_same_error(lambda: fn(G), lambda: fn(torch))


def test_zero_element_warning(torch):
    for name in ("kaiming_uniform_", "kaiming_normal_"):
        assert_same_warning(lambda n=name: getattr(init, n)(G.empty(0, 3)),
                            lambda n=name: getattr(torch.nn.init, n)(torch.empty(0, 3)))


def test_deprecated_aliases_warn(torch):
    assert_same_warning(lambda: init.normal(G.empty(2)), lambda: torch.nn.init.normal(
        torch.empty(2)))
    assert init.xavier_uniform.__name__ == "xavier_uniform"


def _stats(t):
    a = to_np(t).astype(np.float64)
    return a.mean(), a.std(), a.min(), a.max()


SHAPE = (256, 128)


@pytest.mark.parametrize("name,kwargs,bound,std", [
    ("uniform_", {}, (0.0, 1.0), math.sqrt(1 / 12)),
    ("uniform_", {"a": -3.0, "b": -1.0}, (-3.0, -1.0), 2 * math.sqrt(1 / 12)),
    ("normal_", {"mean": 2.0, "std": 0.5}, None, 0.5),
    ("xavier_uniform_", {"gain": 2.0}, 2 * math.sqrt(6 / (256 + 128)),
     2 * math.sqrt(2 / (256 + 128))),
    ("xavier_normal_", {}, None, math.sqrt(2 / (256 + 128))),
    # a=0: leaky_relu with slope 0, the gain is sqrt(2)
    ("kaiming_uniform_", {}, math.sqrt(3) * math.sqrt(2) / math.sqrt(128),
     math.sqrt(2) / math.sqrt(128)),
    ("kaiming_uniform_", {"a": math.sqrt(5)}, 1 / math.sqrt(128), 1 / math.sqrt(3 * 128)),
    ("kaiming_normal_", {"mode": "fan_out", "nonlinearity": "relu"}, None,
     math.sqrt(2) / math.sqrt(256)),
    ("kaiming_normal_", {"nonlinearity": "tanh"}, None, 5 / 3 / math.sqrt(128)),
])
def test_random_statistics(torch, name, kwargs, bound, std):
    g = G.empty(SHAPE)
    out = getattr(init, name)(g, **kwargs)
    assert out is g
    t = getattr(torch.nn.init, name)(torch.empty(SHAPE), **kwargs)
    mg, sg, lo, hi = _stats(g)
    mt, st, _, _ = _stats(t)
    n = g.numel()
    assert abs(sg - std) < 0.02 * std and abs(st - std) < 0.02 * std
    assert abs(mg - mt) < 6 * std / math.sqrt(n)
    if isinstance(bound, tuple):
        assert bound[0] <= lo and hi <= bound[1]
    elif bound is not None:
        assert -bound <= lo and hi <= bound and hi > 0.99 * bound


def test_under_no_grad_and_leaf(torch):
    p = G.nn.Parameter(G.empty(4, 3))
    for fn in (init.uniform_, init.normal_, init.xavier_uniform_, init.kaiming_normal_,
               init.orthogonal_, init.ones_, init.zeros_, init.eye_,
               lambda t: init.constant_(t, 0.3), lambda t: init.trunc_normal_(t, std=0.02),
               lambda t: init.sparse_(t, 0.5)):
        out = fn(p)
        assert out is p and p.is_leaf and p.requires_grad and p.grad_fn is None


def test_generator_keyword():
    for fn in (init.uniform_, init.normal_, init.xavier_uniform_, init.xavier_normal_,
               init.kaiming_uniform_, init.kaiming_normal_, init.orthogonal_,
               init.trunc_normal_):
        G.manual_seed(3)
        a = to_np(fn(G.empty(5, 4), generator=None))
        G.manual_seed(3)
        b = to_np(fn(G.empty(5, 4)))
        np.testing.assert_array_equal(a, b)  # the default generator, seeded


@pytest.mark.parametrize("a,b", [(-2.0, 2.0), (-0.5, 0.5), (1.0, 3.0), (0.0, 0.1)])
def test_trunc_normal(torch, a, b):
    g = init.trunc_normal_(G.empty(20000), mean=0.2, std=1.0, a=a, b=b)
    t = torch.nn.init.trunc_normal_(torch.empty(20000), mean=0.2, std=1.0, a=a, b=b)
    mg, sg, lo, hi = _stats(g)
    mt, st, _, _ = _stats(t)
    assert a <= lo and hi <= b
    assert abs(mg - mt) < 0.04 * (b - a) and abs(sg - st) < 0.04 * (b - a)


def test_trunc_normal_far_mean_warns(torch):
    assert_same_warning(
        lambda: init.trunc_normal_(G.empty(10), mean=10.0, std=1.0, a=-1.0, b=1.0),
        lambda: torch.nn.init.trunc_normal_(torch.empty(10), mean=10.0, std=1.0, a=-1.0,
                                            b=1.0))


@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (5, 2, 3), (3, 3)])
def test_orthogonal(shape):
    w = init.orthogonal_(G.empty(shape), gain=2.0)
    m = to_np(w).reshape(shape[0], -1).astype(np.float64) / 2.0
    rows, cols = m.shape
    gram = m @ m.T if rows <= cols else m.T @ m
    np.testing.assert_allclose(gram, np.eye(min(rows, cols)), atol=1e-5)
    d = to_np(init.orthogonal_(G.empty(3, 3, dtype=G.float64)))
    np.testing.assert_allclose(d @ d.T, np.eye(3), atol=1e-12)
    assert init.orthogonal_(G.empty(0, 3)).shape == (0, 3)


def test_deterministic_fills(torch):
    for fn in (lambda M, t: M.nn.init.ones_(t), lambda M, t: M.nn.init.zeros_(t),
               lambda M, t: M.nn.init.constant_(t, -1.5), lambda M, t: M.nn.init.eye_(t)):
        np.testing.assert_array_equal(to_np(fn(G, G.empty(3, 5))),
                                      to_np(fn(torch, torch.empty(3, 5))))
    for shape, groups in (((4, 2, 3), 1), ((6, 3, 3, 3), 2), ((4, 4, 3, 3, 3), 4),
                          ((2, 5, 4, 4), 1)):
        np.testing.assert_array_equal(
            to_np(init.dirac_(G.empty(shape), groups)),
            to_np(torch.nn.init.dirac_(torch.empty(shape), groups)))


def test_sparse():
    w = init.sparse_(G.empty(10, 30), sparsity=0.3, std=0.5)
    a = to_np(w)
    assert ((a == 0).sum(axis=0) == 3).all()  # ceil(0.3 * 10) zeros in every column
    assert abs(a[a != 0].std() - 0.5) < 0.1


def test_float16_and_float64(torch):
    for dt in (G.float16, G.float64):
        w = init.kaiming_uniform_(G.empty(64, 64, dtype=dt))
        assert w.dtype == dt
        bound = 1 / 8 * math.sqrt(3) * math.sqrt(2)
        assert np.abs(to_np(w)).max() <= bound * 1.001
