"""Composite ops PyTorch builds from other ATen ops, found missing by third-party programs
(tests/programs/): combinations (ATen's Itertools.cpp) and trapezoid / trapz /
cumulative_trapezoid (Integration.cpp). Each follows ATen's composition op for op, so values,
dtypes, errors and the printed grad_fn (StackBackward0, DivBackward1, MulBackward1,
CumsumBackward0) are PyTorch's."""

from __future__ import annotations

import numbers
import sys

from . import _argparse, _native, _numpy_names
from ._native import Tensor
from .functional import _wrap_dim

__all__ = ["combinations", "cumulative_trapezoid", "trapezoid", "trapz"]

_G = sys.modules[__package__]

_SIGNATURES = {
    "combinations": ["(Tensor input, int r = 2, bool with_replacement = False)"],
    "trapezoid": ["(Tensor y, Tensor x, *, int dim = -1)",
                  "(Tensor y, *, Number dx = 1, int dim = -1)"],
    "trapz": ["(Tensor y, *, float dx = 1, int dim = -1)",
              "(Tensor y, Tensor x, *, int dim = -1)"],
    "cumulative_trapezoid": ["(Tensor y, Tensor x, *, int dim = -1)",
                             "(Tensor y, *, Number dx = 1, int dim = -1)"],
}


def _scalar(t, op, value):
    """`t <op> value` through ATen's Scalar overload, as its C++ composition calls it
    (MulBackward1 / DivBackward1; Python's `t * 0.5` would record MulBackward0)."""
    return _native._scalar_overload(t, op, value)


def _parse(name, args, kwargs):
    err = _argparse.error(name, args, kwargs, _SIGNATURES[name])
    if err is not None:
        raise err


def _triu_mask(n, dims, diagonal, device):
    """True where the grid indices satisfy i < j < k ... (i <= j <= k ... with `diagonal`)."""
    rng = _G.arange(n, device=device)
    grids = _G.meshgrid(*([rng] * dims), indexing="ij")
    mask = _G.full(grids[0].shape, True, dtype=_G.bool, device=device)
    for i in range(dims - 1):
        mask = mask * (grids[i] <= grids[i + 1] if diagonal else grids[i] < grids[i + 1])
    return mask


def combinations(*args, **kwargs):
    """`gradrs.combinations(input, r=2, with_replacement=False)`: the length-`r` combinations of
    the 1-D `input`'s elements, one per row, in lexicographic index order (as itertools'
    `combinations` / `combinations_with_replacement`).

    Examples:
        >>> gradrs.combinations(gradrs.tensor([1, 2, 3]))
        tensor([[1, 2],
                [1, 3],
                [2, 3]])
    """
    _parse("combinations", args, kwargs)
    if "input" not in kwargs:  # given as `x=` / `a=` / `x1=`, as PyTorch's parser takes it
        kwargs = dict(kwargs)
        given = _numpy_names.input_alias("combinations", kwargs)
        if given is not None:
            kwargs["input"] = given
    bound = dict(zip(("input", "r", "with_replacement"), args), **kwargs)
    input, r = bound["input"], int(bound.get("r", 2))
    with_replacement = bound.get("with_replacement", False)
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return _G.empty(0, dtype=input.dtype, device=input.device)
    grids = _G.meshgrid(*([input] * r), indexing="ij")
    mask = _triu_mask(input.numel(), r, with_replacement, input.device)
    return _G.stack([g.masked_select(mask) for g in grids], 1)


def _along(t, dim, start, stop):
    """`t[..., start:stop, ...]` with the slice at `dim` (ATen's Tensor::slice)."""
    return t[(slice(None),) * dim + (slice(start, stop),)]


def _zeros_except(y, dim):
    shape = list(y.shape)
    del shape[dim]
    return _G.zeros(shape, dtype=y.dtype, device=y.device)


def _spacing(name, y, x, dim):
    """x's differences along `dim`, shaped to broadcast with y's (x 1-D: along `dim` only; fewer
    dims than y: ones in front), as ATen's trapezoid."""
    if y.dtype == _G.bool or x.dtype == _G.bool:
        raise RuntimeError(f"{name}: received a bool input for `x` or `y`, but bool is not "
                           "supported")
    if x.dim() == 1:
        if x.size(0) != y.size(dim):
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        shape = [1] * y.dim()
        shape[dim] = x.size(0)
        x = x.view(shape)
    elif x.dim() < y.dim():
        x = x.view([1] * (y.dim() - x.dim()) + list(x.shape))
    return _along(x, dim, 1, None) - _along(x, dim, 0, -1)


def _real_dx(name, y, dx):
    if y.dtype == _G.bool:
        raise RuntimeError(f"{name}: received a bool input for `y`, but bool is not supported")
    if isinstance(dx, Tensor):
        dx = dx.item()
    if isinstance(dx, (bool, complex)) or not isinstance(dx, numbers.Real):
        raise RuntimeError(f"{name}: Currently, we only support dx as a real number.")
    return float(dx)


def _trapezoid(name, args, kwargs):
    _parse(name, args, kwargs)
    y = args[0] if args else kwargs["y"]
    x = args[1] if len(args) > 1 else kwargs.get("x")
    dim = kwargs.get("dim", -1)
    if x is not None:
        dim = _wrap_dim(dim, y.dim())
        # no samples: 0, as NumPy (checked before the dtypes, as ATen)
        if y.size(dim) == 0:
            return _zeros_except(y, dim)
        dx = _spacing("trapezoid", y, x, dim)
        return _scalar(((_along(y, dim, 1, None) + _along(y, dim, 0, -1)) * dx).sum(dim), "div",
                       2.0)
    if y.size(dim) == 0:
        return _zeros_except(y, _wrap_dim(dim, y.dim()))
    dx = _real_dx("trapezoid", y, kwargs.get("dx", 1))
    # constant spacing: every inner sample counts once, the two ends half
    return _scalar(y.sum(dim) - _scalar(y.select(dim, 0) + y.select(dim, -1), "mul", 0.5), "mul",
                   dx)


def trapezoid(*args, **kwargs):
    """`gradrs.trapezoid(y, x=None, *, dx=None, dim=-1)`: the trapezoidal rule along `dim`,
    with sample points `x` (1-D, or broadcasting with `y`) or a constant spacing `dx` (1).

    Examples:
        >>> gradrs.trapezoid(gradrs.tensor([1.0, 2.0, 4.0]), gradrs.tensor([0.0, 1.0, 3.0]))
        tensor(7.5000)
        >>> gradrs.trapezoid(gradrs.tensor([1.0, 2.0, 4.0]), dx=0.5)
        tensor(2.2500)
    """
    return _trapezoid("trapezoid", args, kwargs)


def trapz(*args, **kwargs):
    """`gradrs.trapz(y, x, *, dim=-1)` / `gradrs.trapz(y, *, dx=1, dim=-1)`: `trapezoid`'s older
    name.

    Examples:
        >>> gradrs.trapz(gradrs.tensor([1.0, 2.0, 4.0]))
        tensor(4.5000)
    """
    _parse("trapz", args, kwargs)
    return _trapezoid("trapezoid", args, kwargs)


def cumulative_trapezoid(*args, **kwargs):
    """`gradrs.cumulative_trapezoid(y, x=None, *, dx=None, dim=-1)`: the running trapezoidal
    integral along `dim` (one fewer element than `y` there).

    Examples:
        >>> gradrs.cumulative_trapezoid(gradrs.tensor([1.0, 2.0, 4.0]))
        tensor([1.5000, 4.5000])
    """
    name = "cumulative_trapezoid"
    _parse(name, args, kwargs)
    y = args[0] if args else kwargs["y"]
    x = args[1] if len(args) > 1 else kwargs.get("x")
    dim = _wrap_dim(kwargs.get("dim", -1), y.dim())
    pairs = _along(y, dim, 1, None) + _along(y, dim, 0, -1)
    if x is not None:
        dx = _spacing(name, y, x, dim)
        return _scalar((pairs * dx).cumsum(dim), "div", 2.0)
    dx = _real_dx(name, y, kwargs.get("dx", 1))
    return _scalar(pairs, "mul", dx / 2.0).cumsum(dim)


for _f in (combinations, trapezoid, trapz, cumulative_trapezoid):
    _f.__module__ = "gradrs"
