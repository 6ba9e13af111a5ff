"""CPU float sums bit-equal to PyTorch's (Note [Cascade sum] in src/backend/cpu/cascade.rs).

ATen sums float32 in float32 with its cascade, vector lanes and thread split; gradrs repeats
that order, so `sum` / `mean` / `nansum` give the same bits, and what prints from them (a
softmax row summing to `1.0000`, a loss's `.item()`) is the same. Each case runs under one
and two threads on both sides.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import G, needs_torch

pytestmark = needs_torch


def _values(n, dtype, seed):
    rng = np.random.default_rng(seed)
    # Mixed magnitudes, so the order of adds shows in the last bits.
    x = rng.standard_normal(n) * np.exp(rng.uniform(-3, 3, n))
    return x.astype(dtype)


def _bits_equal(g, t, what):
    a = g.numpy() if hasattr(g, "numpy") else np.asarray(g)
    b = t.numpy()
    assert a.dtype == b.dtype and a.shape == b.shape, what
    a, b = a.reshape(-1), b.reshape(-1)
    if not np.array_equal(a.view(np.uint8), b.view(np.uint8)):
        bad = np.flatnonzero(a != b)[:5]
        raise AssertionError(
            f"{what}: {len(bad)}+ values differ, e.g. at {bad.tolist()}: "
            f"{a.reshape(-1)[bad].tolist()} vs {b.reshape(-1)[bad].tolist()}"
        )


def _both(torch, arr, view):
    """The same array in gradrs and torch, then the same view of each."""
    return view(G.tensor(arr)), view(torch.tensor(arr))


def _compare(torch, g, t, dims, what, ops=("sum", "mean", "nansum")):
    for op in ops:
        for keepdim in (False, True):
            if dims is None:
                if keepdim:
                    continue
                gr, tr = getattr(g, op)(), getattr(t, op)()
            else:
                gr, tr = getattr(g, op)(dims, keepdim=keepdim), getattr(t, op)(dims, keepdim=keepdim)
            _bits_equal(gr, tr, f"{what} {op} dims={dims} keepdim={keepdim}")


SIZES = [1, 3, 7, 8, 15, 16, 17, 31, 63, 64, 65, 127, 255, 257, 1000, 4095, 4097, 32767, 32768,
         32769, 65537, 100_003, 1_000_000]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", SIZES)
def test_sum_all_1d(torch, both_threads, dtype, n):
    g, t = _both(torch, _values(n, dtype, n), lambda x: x)
    _compare(torch, g, t, None, f"[{n}]")
    _compare(torch, g, t, 0, f"[{n}]")


def test_sum_all_ten_million(torch, both_threads):
    g, t = _both(torch, _values(10_000_000, "float32", 7), lambda x: x)
    _compare(torch, g, t, None, "[1e7]", ops=("sum", "mean"))


SHAPES_2D = [(3, 5), (5, 17), (17, 5), (16, 16), (33, 70), (70, 33), (1, 100), (100, 1),
             (200, 257), (257, 200), (64, 129), (1000, 40), (40, 1000), (3, 40000), (40000, 3),
             (600, 600), (1024, 96), (96, 1024)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", SHAPES_2D, ids=str)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced", "strided"])
def test_sum_2d(torch, both_threads, dtype, shape, layout):
    n = shape[0] * shape[1]
    if layout == "contiguous":
        arr, view = _values(n, dtype, n).reshape(shape), (lambda x: x)
    elif layout == "transposed":
        arr, view = _values(n, dtype, n).reshape(shape[::-1]), (lambda x: x.t())
    elif layout == "sliced":
        arr = _values((shape[0] + 2) * (shape[1] + 3), dtype, n).reshape(shape[0] + 2, shape[1] + 3)
        view = lambda x: x[1 : shape[0] + 1, 2 : shape[1] + 2]  # noqa: E731
    else:
        arr = _values(shape[0] * 2 * shape[1] * 2, dtype, n).reshape(shape[0] * 2, shape[1] * 2)
        view = lambda x: x[::2, ::2]  # noqa: E731
    g, t = _both(torch, arr, view)
    for dims in (None, 0, 1, -1, (0, 1)):
        _compare(torch, g, t, dims, f"{layout} {shape}")


SHAPES_ND = [
    ((2, 3, 4), [(0,), (1,), (2,), (0, 1), (0, 2), (1, 2), (0, 1, 2)]),
    ((5, 17, 33), [(0,), (1,), (2,), (0, 2), (1, 2), (0, 1)]),
    ((40, 30, 50), [(0,), (1,), (2,), (0, 2), (0, 1), (1, 2)]),
    ((8, 3, 16, 16), [(0, 2, 3), (1,), (0,), (2, 3), (0, 1, 3)]),
    ((64, 1, 600), [(0,), (1,), (2,), (0, 2), (0, 1)]),
    ((3, 100, 300), [(0, 2), (1,), (0,), (2,)]),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,dims_list", SHAPES_ND, ids=lambda v: str(v))
@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced"])
def test_sum_nd(torch, both_threads, dtype, shape, dims_list, layout):
    n = int(np.prod(shape))
    if layout == "contiguous":
        arr, view = _values(n, dtype, n).reshape(shape), (lambda x: x)
    elif layout == "permuted":
        perm = list(range(len(shape)))[::-1]
        inv = np.argsort(perm).tolist()
        arr = _values(n, dtype, n).reshape([shape[p] for p in inv]).copy()
        arr = np.ascontiguousarray(arr)
        view = lambda x: x.permute(*perm)  # noqa: E731
        # permute of the reversed shape gives `shape` back
        arr = _values(n, dtype, n).reshape(shape[::-1])
        view = lambda x: x.permute(*reversed(range(len(shape))))  # noqa: E731
    else:
        big = [s + 1 for s in shape]
        arr = _values(int(np.prod(big)), dtype, n).reshape(big)
        view = lambda x: x[tuple(slice(0, s) for s in shape)]  # noqa: E731
    g, t = _both(torch, arr, view)
    _compare(torch, g, t, None, f"{layout} {shape}")
    for dims in dims_list:
        _compare(torch, g, t, dims, f"{layout} {shape}")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sum_expanded(torch, both_threads, dtype):
    # Broadcast (stride-0) dims are read as often as PyTorch reads them.
    for base, size in [((1, 300), (500, 300)), ((300, 1), (300, 500)), ((1, 7), (70000, 7)),
                       ((5,), (3, 40000, 5))]:
        arr = _values(int(np.prod(base)), dtype, 3).reshape(base)
        g, t = _both(torch, arr, lambda x: x.expand(*size))  # noqa: B023
        _compare(torch, g, t, None, f"expand {size}")
        for d in range(len(size)):
            _compare(torch, g, t, d, f"expand {size}")


def test_nansum_with_nans(torch, both_threads):
    arr = _values(5000, "float32", 11).reshape(50, 100)
    arr[::7, ::3] = np.nan
    g, t = _both(torch, arr, lambda x: x)
    for dims in (None, 0, 1):
        for op in ("nansum",):
            gr = getattr(g, op)() if dims is None else getattr(g, op)(dims)
            tr = getattr(t, op)() if dims is None else getattr(t, op)(dims)
            _bits_equal(gr, tr, f"nansum dims={dims}")


def test_softmax_sum_prints_as_torch(torch):
    x = [[0.3, -1.2, 2.5, 0.7, 0.01], [1.0, 2.0, 3.0, 4.0, 5.5]]
    g = G.softmax(G.tensor(x), 1).sum(1)
    t = torch.softmax(torch.tensor(x), 1).sum(1)
    assert repr(g) == repr(t)
    _bits_equal(g, t, "softmax(x, 1).sum(1)")


def test_loss_item_as_torch(torch):
    arr = _values(4096, "float32", 5).reshape(64, 64)
    g, t = _both(torch, arr, lambda x: x)
    assert ((g * g).mean()).item() == ((t * t).mean()).item()
    assert (g.sum(0) ** 2).sum().item() == (t.sum(0) ** 2).sum().item()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_broadcast_gradients_as_torch(torch, both_threads, dtype):
    # Gradients reduced to an operand's shape (`sum_to`) and expand's backward.
    arr = _values(600 * 257, dtype, 9).reshape(600, 257)
    for shape in [(257,), (600, 1), (1, 257), (1, 1)]:
        b = _values(int(np.prod(shape)), dtype, 10).reshape(shape)
        gx, tx = G.tensor(arr), torch.tensor(arr)
        gb, tb = G.tensor(b, requires_grad=True), torch.tensor(b, requires_grad=True)
        ((gx * gb) * gx).sum().backward()
        ((tx * tb) * tx).sum().backward()
        _bits_equal(gb.grad, tb.grad, f"mul grad {shape}")
    ge = G.tensor(_values(257, dtype, 12), requires_grad=True)
    te = torch.tensor(_values(257, dtype, 12), requires_grad=True)
    (ge.expand(600, 257) * G.tensor(arr)).mean().backward()
    (te.expand(600, 257) * torch.tensor(arr)).mean().backward()
    _bits_equal(ge.grad, te.grad, "expand grad")


def test_sum_with_size_one_dims(torch, both_threads):
    # Size-1 dims among reduced ones, past the two-pass threshold: both of ATen's iterators
    # (the sum's and its first pass's) order them as PyTorch does.
    arr = _values(302 * 303, "float32", 13).reshape(302, 1, 303)
    for view in (lambda x: x[1:, :, 2:], lambda x: x.permute(2, 1, 0), lambda x: x):
        g, t = _both(torch, arr, view)
        _compare(torch, g, t, None, "size-1 dims", ops=("sum", "mean"))
        _compare(torch, g, t, (0, 1, 2), "size-1 dims", ops=("sum", "mean"))
        _compare(torch, g, t, (0, 2), "size-1 dims", ops=("sum", "mean"))
