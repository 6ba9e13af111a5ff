"""Issue 24's factories composed in Python: `logspace`, with PyTorch's CPU arithmetic (the
exponents in double from the ends rounded to the result's dtype, C's `pow`, then the cast)."""

import math
import numbers
import sys
import warnings

import numpy as np

from . import _argparse, _native
from ._native import Tensor
from ._runtime import honours_default_device

# The gradrs package (still loading when this module is: read at call time).
_G = sys.modules[__package__]

__all__ = ["logspace"]

_TAIL = ("float base = 10.0, *, Tensor out = None, gradrs.dtype dtype = None, "
         "gradrs.layout layout = None, gradrs.device device = None, bool pin_memory = False, "
         "bool requires_grad = False)")
_LOGSPACE_SIGS = [f"({a} start, {b} end, int steps, {_TAIL}"
                  for a, b in (("Tensor", "Tensor"), ("Number", "Tensor"), ("Tensor", "Number"),
                               ("Number", "Number"))]
_NP = {"float64": np.float64, "float32": np.float32, "float16": np.float16,
       "int64": np.int64, "int32": np.int32}


def _number(name, v):
    if isinstance(v, Tensor):
        if v.dim() != 0:
            raise RuntimeError(f"logspace only supports 0-dimensional start and end tensors, "
                               f"but got {name} with {v.dim()} dimension(s).")
        return v.item()
    return v


def _c_int(v, bits):
    """C's double -> int conversion on x86-64 (truncation; NaN and out of range give the
    minimum, the "integer indefinite" value), as PyTorch's cast gives it."""
    lo, hi = -(2 ** (bits - 1)), 2 ** (bits - 1)
    if v != v or not (lo - 1 < v < hi):
        return lo
    return int(v)


def _pow(b, x):
    """C's `pow` (Python's raises where C returns NaN or an infinity)."""
    try:
        return math.pow(b, x)
    except ValueError:
        return math.nan
    except OverflowError:
        odd = b < 0 and x == int(x) and int(x) % 2 == 1
        return -math.inf if odd else math.inf


_MISSING = object()


@honours_default_device
def logspace(start=_MISSING, end=_MISSING, steps=_MISSING, base=10.0, *, out=None, dtype=None, layout=None, device=None,
             pin_memory=False, requires_grad=False):
    """`gradrs.logspace(start, end, steps, base=10.0, *, dtype=None, device=None,
    requires_grad=False)`: `steps` values from `base ** start` to `base ** end`, their
    exponents evenly spaced.

    Examples:
        >>> gradrs.logspace(0, 3, 4)
        tensor([   1.,   10.,  100., 1000.])
        >>> gradrs.logspace(0, 1, 3, base=2)
        tensor([1.0000, 1.4142, 2.0000])
    """
    parsed = {"base": base} if base != 10.0 or isinstance(base, bool) else {}
    given = tuple(v for v in (start, end, steps) if v is not _MISSING)
    err = _argparse.error("logspace", given, parsed, _LOGSPACE_SIGS)
    if err is None and not isinstance(base, numbers.Real):
        err = TypeError(f"logspace(): argument 'base' must be float, not "
                        f"{_argparse.type_name(base)}")
    if err is not None:
        raise err
    s, e = _number("start", start), _number("end", end)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if out is not None:
        dtype = out.dtype
    elif dtype is None:
        dtype = _G.get_default_dtype()
    name = str(dtype).split(".")[-1]
    if name not in _NP:
        from .functional import _dtype_name
        raise NotImplementedError(f'"logspace_cpu" not implemented for '
                                  f"'{_dtype_name(dtype)}'")
    if requires_grad and not dtype.is_floating_point:
        raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                           "gradients")
    t = _NP[name]
    b = float(base)
    if steps == 1:
        values = [_pow(b, float(s))]
    else:
        # the ends in the result's dtype (ints truncated), the step and exponents in double,
        # each half of the range counted from its own end
        if np.issubdtype(t, np.integer):
            lo, hi = _c_int(float(s), 64), _c_int(float(e), 64)
            span = float(hi - lo)
        else:
            lo, hi = t(s), t(e)
            span = float(t(hi - lo))
        step = span / (steps - 1)
        lo, hi, half = float(lo), float(hi), steps // 2
        values = [_pow(b, lo + step * i) if i < half else
                  _pow(b, hi - step * (steps - i - 1)) for i in range(steps)]
    if np.issubdtype(t, np.integer):
        bits = np.iinfo(t).bits
        arr = np.array([_c_int(v, bits) for v in values], dtype=t)
    else:
        with np.errstate(over="ignore"):  # past the dtype's range: inf, as C's cast
            arr = np.array(values, dtype=np.float64)
            if t is np.float16:  # c10::Half converts from float: double -> float -> half
                arr = arr.astype(np.float32)
            arr = arr.astype(t)
    res = _G.from_numpy(arr.reshape(steps))
    if device is not None:
        res = res.to(device)
    if out is not None:
        # PyTorch resizes logspace's out= silently
        with _G.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _native._write_out(out, res.to(out.device))
        return out
    if requires_grad:
        res.requires_grad_(True)
    return res
