"""Order-based ops whose positions are found on the host with numpy: `cummax` / `cummin` /
`mode` (indices found there, values gathered so they differentiate) and `searchsorted` /
`bucketize` (PyTorch's binary search, vectorized)."""


import numpy as np

from .. import _native, _numpy_names
from .._native import Tensor
from ..functional import _host, _method, _wrap_dim


# ---- cummax / cummin / mode: indices found on the host, values gathered (so they have gradients)

def _picked(input, dim, indices, keepdim=True, node=None):
    """`return_types`-ready (values, indices): `indices` (numpy, `input`'s layout with `dim`
    last) as a tensor along `dim`, and the values of `input` there, under one node `node`
    (PyTorch's CummaxBackward0 / CumminBackward0 / ModeBackward0: the gradient scattered back
    to the picked positions)."""
    from .. import return_types  # noqa: F401 - imported by the callers' names below
    from .._grad_mode import no_grad
    from ._common import _node

    index = _native.tensor(np.moveaxis(indices, -1, dim).astype(np.int64), device=input.device)
    scalar = input.dim() == 0
    with no_grad():
        values = input.clone() if scalar else input.gather(dim, index)
        if not keepdim and not scalar:
            values, index = values.squeeze(dim), index.squeeze(dim)
    if scalar:
        index = index.reshape(())
    kept = index if keepdim or scalar else index.unsqueeze(dim)

    def backward(g):
        if scalar:
            return (g.clone(),)
        g = g if keepdim else g.unsqueeze(dim)
        return (_native.zeros_like(input).scatter_add(dim, kept, g)
                if node != "ModeBackward0" else _native.zeros_like(input).scatter(dim, kept, g),)

    saved = ([("dim", dim), ("indices", index), ("keepdim", keepdim),
              ("self_sym_sizes", tuple(input.shape))] if node == "ModeBackward0"
             else [("dim", dim), ("indices", index), ("self", input)])
    values = _node(node or "GatherBackward0", values, [input], backward, saved=saved)
    return values, index


def _cumulative(name, input, dim, better):
    dim = _wrap_dim(dim, input.dim())
    arr = np.moveaxis(_host(input).reshape(input.shape or (1,)), dim if input.dim() else 0, -1)
    floating = input.dtype.is_floating_point
    indices = np.zeros(arr.shape, dtype=np.int64)
    if arr.shape[-1]:
        best, index = arr[..., 0].copy(), np.zeros(arr.shape[:-1], dtype=np.int64)
        for j in range(arr.shape[-1]):
            x = arr[..., j]
            # PyTorch's scan: a NaN is taken and then kept; ties take the later position
            take = better(x, best)
            if floating:
                take = np.isnan(x) | (~np.isnan(best) & take)
            best, index = np.where(take, x, best), np.where(take, j, index)
            indices[..., j] = index
    from .. import return_types

    node = "CummaxBackward0" if name == "cummax" else "CumminBackward0"
    return return_types._make(name, *_picked(input, dim, indices, node=node))


@_numpy_names.accepts
def cummax(input, dim):
    """`gradrs.cummax(input, dim)`: running maxima along `dim` and where each was found (the
    latest of equal values; a NaN, once met, stays).

    Examples:
        >>> gradrs.cummax(gradrs.tensor([1.0, 3.0, 2.0]), dim=0)
        gradrs.return_types.cummax(
        values=tensor([1., 3., 3.]),
        indices=tensor([0, 1, 1]))
    """
    return _cumulative("cummax", input, dim, np.greater_equal)


@_numpy_names.accepts
def cummin(input, dim):
    """`gradrs.cummin(input, dim)`: running minima along `dim` and where each was found.

    Examples:
        >>> gradrs.cummin(gradrs.tensor([3.0, 1.0, 2.0]), dim=0)
        gradrs.return_types.cummin(
        values=tensor([3., 1., 1.]),
        indices=tensor([0, 1, 1]))
    """
    return _cumulative("cummin", input, dim, np.less_equal)


def _std_sort(a):
    """Sort the list `a` of (value, position) pairs in place by value only, in the order
    libstdc++'s std::sort leaves them (introsort: median-of-three pivots, unguarded
    partitions, heapsort past 2 * log2(n) levels, a final insertion sort over runs of 16):
    not stable, so which position of equal values lands where is std::sort's."""

    def lt(x, y):
        return x[0] < y[0]

    def insertion_sort(first, last):
        for i in range(first + 1, last):
            if lt(a[i], a[first]):
                val = a[i]
                a[first + 1:i + 1] = a[first:i]
                a[first] = val
            else:
                linear_insert(i)

    def linear_insert(last):
        val = a[last]
        while lt(val, a[last - 1]):
            a[last] = a[last - 1]
            last -= 1
        a[last] = val

    def median_to_first(result, x, y, z):
        if lt(a[x], a[y]):
            pick = y if lt(a[y], a[z]) else (z if lt(a[x], a[z]) else x)
        else:
            pick = x if lt(a[x], a[z]) else (z if lt(a[y], a[z]) else y)
        a[result], a[pick] = a[pick], a[result]

    def partition(first, last, pivot):
        while True:
            while lt(a[first], a[pivot]):
                first += 1
            last -= 1
            while lt(a[pivot], a[last]):
                last -= 1
            if not first < last:
                return first
            a[first], a[last] = a[last], a[first]
            first += 1

    def adjust_heap(first, hole, length, value):
        top, child = hole, hole
        while child < (length - 1) // 2:
            child = 2 * (child + 1)
            if lt(a[first + child], a[first + child - 1]):
                child -= 1
            a[first + hole] = a[first + child]
            hole = child
        if length % 2 == 0 and child == (length - 2) // 2:
            child = 2 * (child + 1)
            a[first + hole] = a[first + child - 1]
            hole = child - 1
        parent = (hole - 1) // 2
        while hole > top and lt(a[first + parent], value):
            a[first + hole] = a[first + parent]
            hole = parent
            parent = (hole - 1) // 2
        a[first + hole] = value

    def heap_sort(first, last):
        length = last - first
        for parent in range((length - 2) // 2, -1, -1):
            adjust_heap(first, parent, length, a[first + parent])
        while last - first > 1:
            last -= 1
            value = a[last]
            a[last] = a[first]
            adjust_heap(first, 0, last - first, value)

    def introsort(first, last, depth):
        while last - first > 16:
            if depth == 0:
                heap_sort(first, last)
                return
            depth -= 1
            median_to_first(first, first + 1, first + (last - first) // 2, last - 1)
            cut = partition(first + 1, last, first)
            introsort(cut, last, depth)
            last = cut

    n = len(a)
    if n < 2:
        return
    introsort(0, n, 2 * (n.bit_length() - 1))
    if n > 16:
        insertion_sort(0, 16)
        for i in range(16, n):
            linear_insert(i)
    else:
        insertion_sort(0, n)


def _row_mode(row):
    # PyTorch's CPU kernel: (value, position) pairs std::sort-ed by value, then the first
    # longest run of equal values wins (NaNs never equal one another), and its position is
    # the one std::sort left last in that run (the last occurrence up to 16 elements, where
    # std::sort is an insertion sort; any occurrence beyond)
    pairs = list(zip(row.tolist(), range(len(row))))
    _std_sort(pairs)
    best_len, best_end, start = 0, 0, 0
    for i in range(len(pairs)):
        if i == len(pairs) - 1 or pairs[i][0] != pairs[i + 1][0]:
            if i + 1 - start > best_len:
                best_len, best_end = i + 1 - start, i
            start = i + 1
    return pairs[best_end][1]


@_numpy_names.accepts
def mode(input, dim=-1, keepdim=False):
    """`gradrs.mode(input, dim=-1, keepdim=False)`: the most frequent value of each slice along
    `dim` (the smallest of equally frequent ones) and its last position.

    Examples:
        >>> gradrs.mode(gradrs.tensor([1, 2, 2, 3]))
        gradrs.return_types.mode(
        values=tensor(2),
        indices=tensor(2))
    """
    dim = _wrap_dim(dim, input.dim())
    if input.dim() and input.shape[dim] == 0:
        raise IndexError(f"mode(): Expected reduction dim {dim} to have non-zero size.")
    arr = np.moveaxis(_host(input).reshape(input.shape or (1,)), dim if input.dim() else 0, -1)
    rows = arr.reshape(-1, arr.shape[-1])
    found = np.array([_row_mode(r) for r in rows], dtype=np.int64).reshape(arr.shape[:-1] + (1,))
    from .. import return_types

    return return_types._make("mode", *_picked(input, dim, found, keepdim, "ModeBackward0"))


# ---- searchsorted / bucketize: PyTorch's binary search, run on the host for every value at once --

def _bound(bounds, values, right):
    """PyTorch's `cus_lower_bound` / `cus_upper_bound` (rows of `bounds` against the same rows of
    `values`), vectorized: the same comparisons, so NaNs land where PyTorch puts them."""
    n = bounds.shape[1]
    start = np.zeros(values.shape, dtype=np.int64)
    end = np.full(values.shape, n, dtype=np.int64)
    active = start < end
    while active.any():
        mid = (start + end) >> 1
        mid_val = np.take_along_axis(bounds, np.minimum(mid, n - 1), axis=1)
        with np.errstate(invalid="ignore"):
            go_right = ~(mid_val > values) if right else ~(mid_val >= values)
        start = np.where(active & go_right, mid + 1, start)
        end = np.where(active & ~go_right, mid, end)
        active = start < end
    return start


@_numpy_names.accepts
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None,
                 out=None):
    """`gradrs.searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
    sorter=None)`: where each value of `input` would be inserted in the innermost dim of
    `sorted_sequence` to keep it sorted (after the first equal value when `right`).

    Examples:
        >>> gradrs.searchsorted(gradrs.tensor([1.0, 3.0, 5.0]), gradrs.tensor([0.5, 3.0, 7.0]))
        tensor([0, 1, 3])
    """
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError("gradrs.searchsorted(): side can only be 'left' or 'right' but got "
                               f"{side}")
        if right and side == "left":
            raise RuntimeError("gradrs.searchsorted(): side and right can't be set to opposites, "
                               "got side of left while right was True")
        right = side == "right"
    values = input if isinstance(input, Tensor) else _native.tensor(input)
    seq = _host(sorted_sequence)
    if sorter is not None:
        seq = np.take_along_axis(seq, _host(sorter).astype(np.int64), axis=-1)
    vals = _host(values)
    if seq.ndim != 1 and (seq.ndim != vals.ndim or seq.shape[:-1] != vals.shape[:-1]):
        raise RuntimeError(
            "gradrs.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            "dimensions of boundaries tensor and input value tensor must match, but we got "
            f"boundaries tensor {list(sorted_sequence.shape)} and input value tensor "
            f"{list(values.shape)}")
    if seq.ndim == 1:
        found = _bound(seq.reshape(1, -1), vals.reshape(1, -1), right)
    else:
        found = _bound(seq.reshape(-1, seq.shape[-1]),
                       vals.reshape(-1, vals.shape[-1] if vals.ndim else 1), right)
    dtype = _native.int32 if out_int32 else _native.int64
    result = _native.tensor(found.reshape(vals.shape), dtype=dtype, device=values.device)
    if out is not None:  # an integer result: nothing to differentiate, written as it is
        _native._write_out(out, result)
        return out
    return result


@_numpy_names.accepts
def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """`gradrs.bucketize(input, boundaries, *, out_int32=False, right=False)`: the bucket of
    each value of `input` among the 1-D sorted `boundaries`.

    Examples:
        >>> gradrs.bucketize(gradrs.tensor([0.5, 2.0, 7.0]), gradrs.tensor([1.0, 3.0, 5.0]))
        tensor([0, 1, 3])
    """
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right, out=out)


Tensor.cummax = _method(cummax)
Tensor.cummin = _method(cummin)
Tensor.mode = _method(mode)
