"""Issue 24's factories composed in Python: `logspace`, with PyTorch's CPU arithmetic (the
exponents in double from the ends rounded to the result's dtype, C's `pow`, then the cast);
`out=` for the native factories that lack it (`with_factory_out`) and `arange` from fractional
bounds as ATen's arange_out computes it (`with_aten_arange`), both applied in `__init__.py`."""

import functools
import math
import numbers
import sys
import warnings

import numpy as np

from . import _argparse, _native, _numpy_names, _runtime
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
        # PyTorch resizes logspace's out= silently, keeping its shape when the count is right
        if res.numel() == out.numel():
            res = res.reshape(out.shape)
        with _G.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _native._write_out(out, res.to(out.device))
        return out
    if requires_grad:
        res.requires_grad_(True)
    return res


# ---- out= for the native factories that lack it --------------------------------------------

_OUT_NUMEL = frozenset({"arange", "linspace"})


def with_factory_out(fn, name):
    """`fn` (a native factory) taking PyTorch's `out=`: the result is made in `out`'s dtype
    (a random factory draws as ``out.uniform_()`` / ``normal_()`` / ``random_()`` would) and
    written into `out`, which is returned. ATen's `*_out` kernels resize `out` to the result's
    shape (`rand`, `full`, `eye`, `randperm`...), except the ranges (`arange`, `linspace`),
    which keep `out`'s shape when its element count is already right."""

    @functools.wraps(fn)
    def factory(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        if not isinstance(out, Tensor):
            raise TypeError(f"{name}(): argument 'out' must be Tensor, not "
                            f"{type(out).__name__}")
        dtype = kwargs.get("dtype")
        if dtype is not None and dtype != out.dtype:
            from .functional import _dtype_name
            raise RuntimeError(f"dtype {_dtype_name(dtype)} does not match dtype of out "
                               f"parameter ({_dtype_name(out.dtype)})")
        if _native.is_grad_enabled() and out.requires_grad:
            raise RuntimeError(f"aten::{name}(): functions with out=... arguments don't "
                               "support automatic differentiation, but one of the arguments "
                               "requires grad.")
        requires_grad = kwargs.pop("requires_grad", False)
        # normal(mean_tensor, std, ...) takes no dtype: its values are cast on the write
        if not (name == "normal" and any(isinstance(a, Tensor) for a in args[:2])):
            kwargs["dtype"] = out.dtype
        if kwargs.get("device") is None:
            kwargs["device"] = out.device
        result = fn(*args, **kwargs)
        if name in _OUT_NUMEL and result.numel() == out.numel():
            result = result.reshape(out.shape)
        with _G.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _native._write_out(out, result)
        if requires_grad:
            out.requires_grad_(True)
        return out

    return factory


# arange's bounds PyTorch's parser takes by keyword, by how many come positionally: its
# overloads are (end), (start, end) and (start, end, step).
_ARANGE_KEYWORDS = {0: (("end",), ("start", "end"), ("start", "end", "step")),
                    1: (("end",), ("end", "step")), 2: (("step",),)}


def with_keyword_sizes(fn, name):
    """`fn` (a native factory taking its leading parameters as ``*args``) also taking them by
    keyword, as PyTorch's parser does: ``zeros(size=(2, 3))``, ``rand(size=s, generator=g)``,
    ``arange(start=0, end=5, step=2)``. A call PyTorch's parser refuses (no size; a size given
    both ways; keywords no overload has) raises its text (Note [Parser errors])."""

    if name == "arange":
        @functools.wraps(fn)
        def arange(*args, **kwargs):
            given = tuple(k for k in ("start", "end", "step") if k in kwargs)
            if given and given in _ARANGE_KEYWORDS.get(len(args), ()):
                args = (*args, *(kwargs.pop(k) for k in given))
            return fn(*args, **kwargs)

        return arange

    @functools.wraps(fn)
    def factory(*size, **kwargs):
        if "size" in kwargs and not size:
            s = kwargs.pop("size")
            if not isinstance(s, (tuple, list)):
                raise TypeError(f"{name}(): argument 'size' must be tuple of ints, not "
                                f"{_argparse.type_name(s)}")
            if any(isinstance(e, (bool, float, str)) or not hasattr(e, "__index__")
                   for e in s):
                raise TypeError(f"{name}(): argument 'size' must be tuple of ints, not "
                                f"{type(s).__name__}")
            size = (tuple(s),)
        elif not size or "size" in kwargs:
            err = _argparse.listed_error(name, size, kwargs)
            if err is not None:
                raise err
            if size:
                raise TypeError(f"{name}() got multiple values for argument 'size'")
            raise _numpy_names.missing_arguments(name, ["size"])
        return fn(*size, **kwargs)

    return factory


_INT_NP = {"int64": np.int64, "int32": np.int32, "int16": np.int16, "int8": np.int8,
           "uint8": np.uint8}


def _fractional(v):
    return isinstance(v, float) and math.isfinite(v) and not v.is_integer()


def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _fma_small(x, k, c):
    """fma(x, k, c) (one rounding) for a float64 `x`, small non-negative integers `k`
    (arrays, below 2**26) and float64 `c`: x's Veltkamp halves times k are exact, and
    Boldo and Melquiond's sum of three (a round-to-odd middle sum) rounds once."""
    with np.errstate(over="ignore", invalid="ignore"):
        t = 134217729.0 * x
        hi = t - (t - x)
        lo = x - hi
        a, b = hi * k, lo * k
        uh, ul = _two_sum(b, c)
        th, tl = _two_sum(a, uh)
        v, e = _two_sum(tl, ul)
        bits = v.view(np.int64)
        even = (bits & 1) == 0
        bump = (e != 0) & even & np.isfinite(v)
        v = np.where(bump, np.nextafter(v, np.where(e > 0, np.inf, -np.inf)), v)
        return th + v


def _float_arange(start, step, n, name):
    """ATen's CPU arange kernel (its AVX2 build: 4 doubles / 8 floats a vector, two vectors a
    step, a scalar tail) in `start` / `step` as doubles: each vector is ``base + k * step``
    from ``base = start + step * i`` (for float rounded to float first), the tail
    ``start + step * i``, each FMA-contracted (``step * 200 + 40`` for step -0.2 is -2.2e-15,
    not 0), then rounded to the dtype."""
    width = 4 if name == "float64" else 8
    full = n - n % (2 * width)
    i = np.arange(n, dtype=np.float64)
    if name == "float64":
        blocks = np.arange(0, full, width, dtype=np.float64)
        base = np.repeat(_fma_small(np.float64(step), blocks, np.float64(start)), width)
        k = np.tile(np.arange(width, dtype=np.float64), full // width)
        head = _fma_small(np.float64(step), k, base)
        tail = _fma_small(np.float64(step), i[full:], np.full(n - full, start))
        return np.concatenate([head, tail])
    blocks = np.arange(0, full, width, dtype=np.float64)
    base = _fma_small(np.float64(step), blocks, np.float64(start)).astype(np.float32)
    base = np.repeat(base.astype(np.float64), width)
    k = np.tile(np.arange(width, dtype=np.float64), full // width)
    head = _fma_small(np.float64(step), k, base).astype(np.float32)
    tail = _fma_small(np.float64(step), i[full:], np.full(n - full, start)).astype(np.float32)
    return np.concatenate([head, tail])


def with_aten_arange(fn):
    """`arange` computed as ATen's arange_out where gradrs's native kernel rounds otherwise:
    integer results from fractional bounds or steps (for int64 the bounds and step are
    truncated first: `arange(4.5, dtype=long)` has 4 values, a step of 0.9 is "step must be
    nonzero"; for the narrower integer dtypes the count is ``ceil((end - start) / step)`` in
    double and the values ``trunc(start) + i * trunc(step)``, wrapped), and float32 / float64
    results from fractional bounds or steps (ATen's vectorized kernel, `_float_arange`). Other
    calls, and every error, go to `fn` unchanged."""

    @functools.wraps(fn)
    def arange(*args, **kwargs):
        dtype = kwargs.get("dtype")
        out = kwargs.get("out")
        if dtype is None and isinstance(out, Tensor):
            dtype = out.dtype
        bounds = args if all(isinstance(a, numbers.Real) and not isinstance(a, bool)
                             for a in args) else ()
        if dtype is None and any(isinstance(a, float) for a in bounds):
            dtype = _G.get_default_dtype()
        name = str(dtype).split(".")[-1]
        if (not 1 <= len(bounds) <= 3 or (name not in _INT_NP and name not in _NP_FLOAT)
                or set(kwargs) - {"dtype", "out", "device", "requires_grad"}
                or not any(_fractional(float(a)) for a in bounds)
                or not all(math.isfinite(float(a)) for a in bounds)):
            return fn(*args, **kwargs)
        start, end, step = ((0.0, float(bounds[0]), 1.0) if len(bounds) == 1 else
                            (float(bounds[0]), float(bounds[1]),
                             float(bounds[2]) if len(bounds) == 3 else 1.0))
        if name == "int64":
            xstart, xend, xstep = int(start), int(end), int(step)
            if xstep == 0:
                raise ValueError("step must be nonzero")
            if not ((xstep > 0 and xend >= xstart) or (xstep < 0 and xend <= xstart)):
                raise RuntimeError("upper bound and lower bound inconsistent with step sign")
            sgn = (xstep > 0) - (xstep < 0)
            num = xend - xstart + xstep - sgn
            size = abs(num) // abs(xstep) * (1 if (num >= 0) == (xstep > 0) else -1)
        else:
            if step == 0 or not ((step > 0 and end >= start) or (step < 0 and end <= start)):
                return fn(*args, **kwargs)  # its error
            size = math.ceil((end - start) / step)
            xstart, xstep = int(start), int(step)
        if name in _NP_FLOAT:
            if size >= 2 ** 26:
                return fn(*args, **kwargs)
            values = _float_arange(start, step, size, name)
        else:
            values = (np.arange(size, dtype=np.int64) * xstep + xstart).astype(_INT_NP[name])
        kwargs = dict(kwargs)
        kwargs.pop("dtype", None)
        out = kwargs.pop("out", None)
        requires_grad = kwargs.pop("requires_grad", False)
        if requires_grad and name in _INT_NP:  # the factories' message
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        result = _G.from_numpy(np.ascontiguousarray(values))
        device = kwargs.get("device")
        if device is None:  # set_default_device's, as the native factory takes it
            device = getattr(_runtime._STATE, "device", None)
        if device is not None:
            result = result.to(device)
        if out is not None:
            return with_factory_out(lambda *a, **k: result, "arange")(out=out)
        return result.requires_grad_(True) if requires_grad else result

    return arange


_NP_FLOAT = {"float32": np.float32, "float64": np.float64}
