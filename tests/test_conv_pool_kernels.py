"""The host's convolution and max-pooling kernels (issue 26; Note [Convolution kernels] in
src/kernels/conv.rs, src/kernels/pool.rs): values, indices and gradients as PyTorch's over
strides, padding, dilation, groups, batch 1, non-contiguous inputs and both thread counts;
float64 gradients by finite differences; second derivatives (the formula path under
create_graph) and node names as PyTorch's."""

import numpy as np
import pytest
from conftest import G, assert_same_values

pytestmark = pytest.mark.usefixtures("restore_grad_mode")

# (input shape, out channels, kernel, stride, padding, dilation, groups)
CONV = [
    ((2, 3, 7, 6), 4, (3, 3), 1, 1, 1, 1),
    ((1, 4, 9, 8), 6, (3, 2), (2, 1), (1, 0), 1, 2),
    ((3, 2, 8, 9), 5, (2, 3), 1, (0, 2), (2, 1), 1),
    ((2, 6, 10, 7), 6, (3, 3), 2, 1, 2, 3),
    ((2, 4, 5, 5), 8, (1, 1), 1, 0, 1, 4),
    ((1, 1, 4, 4), 1, (4, 4), 1, 0, 1, 1),
    ((2, 3, 6, 6), 2, (3, 3), 3, 2, 1, 1),
]

_TOL = {"float32": {"rtol": 1e-4, "atol": 1e-5}, "float64": {"rtol": 1e-10, "atol": 1e-11}}


def _layout(lib, a, how):
    """`a` as a tensor of `lib`, contiguous or not (`how`)."""
    if how == "contiguous":
        return lib.tensor(a)
    if how == "transposed":  # a non-contiguous view with the same values
        return lib.tensor(np.ascontiguousarray(a.swapaxes(2, 3))).transpose(2, 3)
    if how == "channels_last":
        return lib.tensor(a).contiguous(memory_format=lib.channels_last)
    # every other column of a wider tensor
    wide = np.repeat(a, 2, axis=3)
    return lib.tensor(wide)[..., ::2]


def _conv_both(torch, shape, o, k, s, p, d, groups, dtype, how, bias=True):
    rng = np.random.default_rng(sum(shape) + o)
    x = rng.standard_normal(shape).astype(dtype)
    w = rng.standard_normal((o, shape[1] // groups, *k)).astype(dtype) * 0.3
    b = rng.standard_normal(o).astype(dtype)
    outs, gy = [], None
    for lib in (G, torch):
        xt = _layout(lib, x, how).requires_grad_()
        wt = lib.tensor(w, requires_grad=True)
        bt = lib.tensor(b, requires_grad=True) if bias else None
        y = lib.nn.functional.conv2d(xt, wt, bt, stride=s, padding=p, dilation=d, groups=groups)
        if gy is None:
            gy = rng.standard_normal(tuple(y.shape)).astype(dtype)
        ins = [xt, wt] + ([bt] if bias else [])
        grads = lib.autograd.grad(y, ins, lib.tensor(gy))
        outs.append((y, grads))
    return outs


@pytest.mark.parametrize("case", CONV, ids=[f"conv{i}" for i in range(len(CONV))])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("how", ["contiguous", "transposed", "channels_last", "strided"])
def test_conv2d_values_and_grads_match_torch(torch, case, dtype, how):
    shape, o, k, s, p, d, groups = case
    (gy, gg), (ty, tg) = _conv_both(torch, shape, o, k, s, p, d, groups, dtype, how)
    assert type(gy.grad_fn).__name__ == type(ty.grad_fn).__name__ == "ConvolutionBackward0"
    assert_same_values(gy, ty, **_TOL[dtype])
    for a, b in zip(gg, tg):
        assert_same_values(a, b, **_TOL[dtype])


@pytest.mark.parametrize("bias", [True, False])
def test_conv2d_threaded_batches_match_torch(torch, both_threads, bias):
    # Large enough (> 2^20 multiply-adds) that the images are spread across threads.
    (gy, gg), (ty, tg) = _conv_both(
        torch, (9, 8, 20, 20), 16, (3, 3), 1, 1, 1, 1, "float32", "contiguous", bias)
    assert_same_values(gy, ty, **_TOL["float32"])
    for a, b in zip(gg, tg):
        assert_same_values(a, b, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_conv1d_and_no_grad_match_torch(torch, dtype):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 4, 11)).astype(dtype)
    w = rng.standard_normal((6, 2, 3)).astype(dtype)
    res = []
    for lib in (G, torch):
        xt, wt = lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True)
        y = lib.nn.functional.conv1d(xt, wt, None, 2, 1, 2, 2)
        gx, gw = lib.autograd.grad(y.sum(), [xt, wt])
        with lib.no_grad():
            z = lib.nn.functional.conv1d(xt, wt, None, 1, 0, 1, 2)
        res.append((y, gx, gw, z))
    for a, b in zip(*res):
        assert_same_values(a, b, **_TOL[dtype])


def test_conv2d_float64_gradcheck_and_second_derivatives(torch):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 4, 5, 6))
    w = rng.standard_normal((4, 2, 3, 2))
    b = rng.standard_normal(4)
    args = [G.tensor(a, requires_grad=True) for a in (x, w, b)]

    def f(x, w, b):
        return G.nn.functional.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2),
                                      groups=2)

    assert G.autograd.gradcheck(f, args)
    assert G.autograd.gradgradcheck(f, args)
    # Under create_graph the backward is the formula: second derivatives as PyTorch's.
    res = []
    for lib in (G, torch):
        xt, wt, bt = (lib.tensor(a, requires_grad=True) for a in (x, w, b))
        y = lib.nn.functional.conv2d(xt, wt, bt, stride=(2, 1), padding=1, dilation=(1, 2),
                                     groups=2)
        gx, gw = lib.autograd.grad((y * y).sum(), [xt, wt], create_graph=True)
        res.append(lib.autograd.grad((gx * gx).sum() + gw.sum(), [xt, wt, bt]))
    for a, b in zip(*res):
        assert_same_values(a, b, **_TOL["float64"])


# (input shape, kernel, stride, padding, dilation, ceil_mode)
POOL = [
    ((2, 3, 8, 8), 2, None, 0, 1, False),
    ((1, 2, 7, 9), (3, 2), (2, 1), (1, 1), 1, False),
    ((2, 2, 9, 7), 3, 2, 1, (2, 1), True),
    ((3, 7, 6), (2, 3), (1, 2), 0, 1, False),
    ((1, 1, 5, 5), 2, 2, 0, 2, True),
    ((2, 3, 6, 7), 3, 2, 1, 1, True),
]


def _pool_both(torch, shape, k, s, p, d, ceil, dtype, how, x=None):
    rng = np.random.default_rng(0 if shape is None else len(shape) + sum(shape))
    if x is None:
        x = rng.standard_normal(shape).astype(dtype)
    gy = None
    outs = []
    for lib in (G, torch):
        xt = (_layout(lib, x, how) if x.ndim == 4 else lib.tensor(x)).requires_grad_()
        y, i = lib.nn.functional.max_pool2d(xt, k, s, p, d, ceil_mode=ceil, return_indices=True)
        if gy is None:
            gy = rng.standard_normal(tuple(y.shape)).astype(dtype)
        (gx,) = lib.autograd.grad(y, xt, lib.tensor(gy))
        outs.append((y, i, gx))
    return outs


@pytest.mark.parametrize("case", POOL, ids=[f"pool{i}" for i in range(len(POOL))])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("how", ["contiguous", "transposed", "strided"])
def test_max_pool2d_values_indices_grads_match_torch(torch, case, dtype, how):
    shape, k, s, p, d, ceil = case
    (gy, gi, gx), (ty, ti, tx) = _pool_both(torch, shape, k, s, p, d, ceil, dtype, how)
    assert type(gy.grad_fn).__name__ == type(ty.grad_fn).__name__
    assert type(gy.grad_fn).__name__ == "MaxPool2DWithIndicesBackward0"
    assert_same_values(gy, ty)
    assert_same_values(gi, ti)
    assert_same_values(gx, tx)


def test_max_pool2d_ties_nan_and_inf_as_torch(torch):
    # Ties, NaNs (ATen keeps the last NaN of a window) and all -inf windows.
    x = np.array([[1.0, 1.0, np.nan, 2.0, -np.inf, -np.inf],
                  [np.nan, 1.0, 3.0, np.nan, -np.inf, -np.inf],
                  [0.0, 0.0, 5.0, 5.0, 7.0, np.nan],
                  [0.0, 0.0, 5.0, 5.0, np.nan, 7.0]], dtype=np.float32)[None, None]
    for k, s, p in [(2, 2, 0), (3, 1, 1), (2, 1, 0)]:
        (gy, gi, gx), (ty, ti, tx) = _pool_both(torch, None, k, s, p, 1, False, "float32",
                                                "contiguous", x=x)
        assert_same_values(gy, ty)
        assert_same_values(gi, ti)
        assert_same_values(gx, tx)


@pytest.mark.parametrize("threads", [1, 2])
def test_max_pool2d_large_threaded_matches_torch(torch, threads):
    before = G.get_num_threads()
    G.set_num_threads(threads)
    try:
        (gy, gi, gx), (ty, ti, tx) = _pool_both(torch, (8, 16, 24, 24), 3, 2, 1, 1, False,
                                                "float32", "contiguous")
    finally:
        G.set_num_threads(before)
    assert_same_values(gy, ty)
    assert_same_values(gi, ti)
    assert_same_values(gx, tx)


def test_max_pool2d_float64_gradcheck_double_backward_and_forward_ad(torch):
    rng = np.random.default_rng(7)
    x = rng.permutation(2 * 3 * 7 * 6).reshape(2, 3, 7, 6) / 10.0  # distinct values

    def f(t):
        return G.nn.functional.max_pool2d(t, 3, 2, 1, ceil_mode=True)

    xt = G.tensor(x, requires_grad=True)
    assert G.autograd.gradcheck(f, [xt])
    assert G.autograd.gradgradcheck(f, [xt])
    res, gy = [], None
    for lib in (G, torch):
        t = lib.tensor(x, requires_grad=True)
        y = lib.nn.functional.max_pool2d(t, 3, 2, 1, ceil_mode=True)
        if gy is None:
            gy = rng.standard_normal(tuple(y.shape))
        g0 = lib.tensor(gy, requires_grad=True)
        (gx,) = lib.autograd.grad(y, t, g0, create_graph=True)
        name = type(gx.grad_fn).__name__
        (gg,) = lib.autograd.grad((gx * gx).sum(), g0)
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            tan = lib.tensor(np.cos(np.arange(x.size)).reshape(x.shape))
            yd = lib.nn.functional.max_pool2d(fw.make_dual(lib.tensor(x), tan), 3, 2, 1,
                                              ceil_mode=True)
            jvp = fw.unpack_dual(yd).tangent
        res.append((name, gx, gg, jvp))
    (gn, *ga), (tn, *ta) = res
    assert gn == tn == "MaxPool2DWithIndicesBackwardBackward0"
    for a, b in zip(ga, ta):
        assert_same_values(a, b)


@pytest.mark.parametrize("grad", ["expanded", "transposed", "sliced"])
@pytest.mark.parametrize("shape", [(3, 4, 18, 18), (5, 4, 5, 5)], ids=["wide", "narrow"])
def test_conv2d_grads_from_strided_output_gradients_match_torch(torch, grad, shape):
    # The output gradient is read in place where its spatial dims flatten (an expanded one,
    # as sum()'s), else copied; images one at a time (wide) or side by side (narrow).
    rng = np.random.default_rng(11)
    x = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal((6, 2, 3, 3)).astype(np.float32)
    res = []
    for lib in (G, torch):
        xt, wt = lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True)
        y = lib.nn.functional.conv2d(xt, wt, None, padding=1, groups=2)
        n, o, h, w_ = y.shape
        gy = {
            "expanded": lib.ones(1, o, 1, 1).expand(n, o, h, w_),
            "transposed": lib.tensor(np.cos(np.arange(n * o * h * w_, dtype=np.float32))
                                     .reshape(n, o, w_, h)).transpose(2, 3),
            "sliced": lib.tensor(np.sin(np.arange(n * o * h * 2 * w_, dtype=np.float32))
                                 .reshape(n, o, h, 2 * w_))[..., ::2],
        }[grad]
        res.append(lib.autograd.grad(y, [xt, wt], gy))
    for a, b in zip(*res):
        assert_same_values(a, b, rtol=1e-4, atol=1e-4)
