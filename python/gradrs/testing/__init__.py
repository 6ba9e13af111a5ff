"""gradrs.testing: `assert_close` with PyTorch's default tolerances and mismatch messages, and
`make_tensor` (random test tensors in a dtype's range)."""

import math
import warnings

import numpy as np

from .. import _native
from .._native import Tensor

__all__ = ["assert_allclose", "assert_close", "make_tensor"]

# (rtol, atol) per dtype, PyTorch's defaults; integers and bool compare exactly
_PRECISIONS = {"float16": (0.001, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7)}


def _precision(dtype):
    return _PRECISIONS.get(str(dtype).split(".")[-1], (0.0, 0.0))


def _tolerances(dtypes, rtol, atol):
    if (rtol is None) != (atol is None):
        missing = "atol" if atol is None else "rtol"
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got "
                         f"no {missing}.")
    if rtol is not None:
        return rtol, atol
    pairs = [_precision(d) for d in dtypes]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _diff_msg(kind, diff, idx, tol, equality):
    msg = (f"{kind.title()} difference: {diff}" if idx is None
           else f"Greatest {kind} difference: {diff} at index {idx}")
    return msg + ("" if equality else f" (up to {tol} allowed)") + "\n"


def _mismatch_msg(identifier, extra, abs_diff, abs_idx, atol, rel_diff, rel_idx, rtol):
    equality = rtol == 0 and atol == 0
    msg = f"{identifier} are not {'equal' if equality else 'close'}!\n\n{extra.strip()}\n"
    msg += _diff_msg("absolute", abs_diff, abs_idx, atol, equality)
    msg += _diff_msg("relative", rel_diff, rel_idx, rtol, equality)
    return msg.strip()


def _scalar_msg(actual, expected, rtol, atol):
    abs_diff = abs(actual - expected)
    rel_diff = math.inf if expected == 0 else abs_diff / abs(expected)
    return _mismatch_msg("Scalars", f"Expected {expected} but got {actual}.", abs_diff, None,
                         atol, rel_diff, None, rtol)


def _close(a, e, rtol, atol, equal_nan):
    """numpy isclose with torch's rule (|a - e| <= atol + rtol * |e|, equal values always)."""
    with np.errstate(invalid="ignore", over="ignore"):
        close = a == e
        if equal_nan:
            close |= np.isnan(a) & np.isnan(e)
        diff = np.abs(a - e)
        close |= np.isfinite(diff) & (diff <= atol + rtol * np.abs(e))
    return close


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    """Raises AssertionError (PyTorch's text) unless `actual` and `expected` are close: tensors
    (same shape, dtype and device unless disabled), Python numbers, or sequences/mappings of
    them compared element by element.

    Examples:
        >>> gradrs.testing.assert_close(gradrs.tensor([1.0, 2.0]), gradrs.tensor([1.0, 2.0 + 1e-7]))
        >>> try:
        ...     gradrs.testing.assert_close(gradrs.tensor([1.0]), gradrs.tensor([1.1]))
        ... except AssertionError as err:
        ...     print(str(err).splitlines()[0])
        ...
        Tensor-likes are not close!
    """
    if isinstance(actual, (list, tuple)) and isinstance(expected, (list, tuple)):
        if len(actual) != len(expected):
            raise AssertionError(f"The length of the sequences mismatch: {len(actual)} != "
                                 f"{len(expected)}")
        for a, e in zip(actual, expected):
            assert_close(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan,
                         check_device=check_device, check_dtype=check_dtype, msg=msg)
        return
    if isinstance(actual, dict) and isinstance(expected, dict):
        if actual.keys() != expected.keys():
            raise AssertionError(f"The keys of the mappings do not match:\n{actual.keys()} != "
                                 f"{expected.keys()}")
        for k in actual:
            assert_close(actual[k], expected[k], rtol=rtol, atol=atol, equal_nan=equal_nan,
                         check_device=check_device, check_dtype=check_dtype, msg=msg)
        return
    numbers = (bool, int, float)
    if isinstance(actual, numbers) and isinstance(expected, numbers):
        if type(actual) is not type(expected) and check_dtype:
            raise AssertionError(f"The values for attribute 'dtype' do not match: "
                                 f"{type(actual)} != {type(expected)}.")
        r, a = _tolerances([], rtol, atol) if rtol is not None else (
            (1e-7, 1e-7) if isinstance(actual, float) or isinstance(expected, float) else (0, 0))
        if not _close(np.float64(actual), np.float64(expected), r, a, equal_nan):
            raise AssertionError(msg or _scalar_msg(actual, expected, r, a))
        return
    if not (isinstance(actual, Tensor) and isinstance(expected, Tensor)):
        raise TypeError(f"No comparison pair was able to handle inputs of type "
                        f"{_torch_type(actual)} and {_torch_type(expected)}.")
    _compare_tensors(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, msg)


def _torch_type(x):
    return "<class 'torch.Tensor'>" if isinstance(x, Tensor) else str(type(x))


def _compare_tensors(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, msg):
    def attribute(name, a, e):
        raise AssertionError(msg or f"The values for attribute '{name}' do not match: "
                                    f"{a} != {e}.")

    if actual.shape != expected.shape:
        attribute("shape", actual.shape, expected.shape)
    if check_device and actual.device != expected.device:
        attribute("device", actual.device, expected.device)
    if check_dtype and actual.dtype != expected.dtype:
        attribute("dtype", actual.dtype, expected.dtype)
    rtol, atol = _tolerances([actual.dtype, expected.dtype], rtol, atol)
    a = np.asarray(actual.detach().cpu().numpy())
    e = np.asarray(expected.detach().cpu().numpy())
    if a.dtype != e.dtype:
        common = np.promote_types(a.dtype, e.dtype)
        a, e = a.astype(common), e.astype(common)
    if a.dtype == np.bool_:
        a, e = a.astype(np.int64), e.astype(np.int64)
    matches = _close(a, e, rtol, atol, equal_nan)
    if matches.all():
        return
    if msg is not None:
        raise AssertionError(msg)
    if not a.shape:
        raise AssertionError(_scalar_msg(a.item(), e.item(), rtol, atol))
    raise AssertionError(_tensor_msg(a, e, matches, rtol, atol))


def _tensor_msg(a, e, matches, rtol, atol):
    total = matches.size
    mismatches = total - int(matches.sum())
    extra = f"Mismatched elements: {mismatches} / {total} ({mismatches / total:.1%})"
    floating = np.issubdtype(a.dtype, np.floating)
    af, ef, mf = a.reshape(-1), e.reshape(-1), matches.reshape(-1)
    if not floating:
        af, ef = af.astype(np.int64), ef.astype(np.int64)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        abs_diff = np.abs(af - ef)
        abs_diff[mf] = 0
        # integer differences divide in the default float dtype, as PyTorch's true division
        rel_diff = (abs_diff / np.abs(ef)).astype(a.dtype if floating else np.float32)
    rel_diff[mf] = 0

    def greatest(values):
        # torch.max propagates NaN: the first NaN wins, else the first maximum
        nans = np.nonzero(np.isnan(values))[0] if values.dtype.kind == "f" else []
        i = int(nans[0]) if len(nans) else int(np.argmax(values))
        return values[i].item(), tuple(int(k) for k in np.unravel_index(i, a.shape))

    abs_max, abs_idx = greatest(abs_diff)
    rel_max, rel_idx = greatest(rel_diff)
    return _mismatch_msg("Tensor-likes", extra, abs_max, abs_idx, atol, rel_max, rel_idx, rtol)


def _low_high(dtype, low, high, lowest, highest, default_low, default_high, integral):
    """PyTorch's make_tensor bounds: defaults, checks, clamping to the dtype's range."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got {low=} and {high=}")
    if low == high and not integral:
        warnings.warn("Passing `low==high` to `gradrs.testing.make_tensor` for floating or "
                      "complex types is deprecated since 2.1 and will be removed in 2.3. "
                      "Use `gradrs.full(...)` instead.", FutureWarning, stacklevel=3)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), "
                         f"but {dtype} only supports [{lowest}, {highest})")
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    if integral:
        return math.ceil(low), math.ceil(high)
    return low, high


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False,
                noncontiguous=False, exclude_zero=False, memory_format=None):
    """A tensor of `shape` filled with random values in [low, high) (defaults: [-9, 9) for
    floats, [-9, 10) for integers, {False, True} for bool), as `gradrs.testing.make_tensor`."""
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually "
                         f"exclusive, but got {noncontiguous=} and {memory_format=}")
    name = str(dtype).split(".")[-1]
    floating = name in _PRECISIONS
    if name not in ("bool", "int32", "int64") and not floating:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by "
                        "gradrs.testing.make_tensor(). To request support, file an issue at: "
                        "https://github.com/pytorch/pytorch/issues")
    if requires_grad and not floating:
        raise ValueError("`requires_grad=True` is not supported for boolean and integral dtypes, "
                         f"but got {dtype=}")
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:
        shape = (*shape[:-1], 2 * shape[-1])
    if name == "bool":
        low, high = _low_high(dtype, low, high, 0, 2, 0, 2, True)
        result = _native.randint(low, high, shape, device=device).to(dtype)
    elif not floating:
        from .._typeinfo import iinfo
        info = iinfo(dtype)
        low, high = _low_high(dtype, low, high, info.min,
                              info.max + (1 if name != "int64" else 0), -9, 10, True)
        result = _native.randint(low, high, shape, dtype=dtype, device=device)
    else:
        from .._typeinfo import finfo
        info = finfo(dtype)
        low, high = _low_high(dtype, low, high, info.min, info.max, -9, 9, False)
        if high - low >= info.max:  # the width itself would overflow: draw half, double
            result = _native.rand(shape, dtype=dtype, device=device) * (high / 2 - low / 2) \
                + low / 2
            result = result * 2
        else:
            result = _native.rand(shape, dtype=dtype, device=device) * (high - low) + low
    if noncontiguous:
        result = result[..., 1::2]
    if exclude_zero:
        tiny = 1 if not floating else finfo(dtype).tiny
        result.masked_fill_(result == 0, tiny)  # in place: a noncontiguous result stays so
    if floating:
        result.requires_grad_(requires_grad)
    return result


# The tolerances of the deprecated assert_allclose (PyTorch's table for it).
_ALLCLOSE_PRECISIONS = {_native.float16: (1e-3, 1e-3), _native.float32: (1e-4, 1e-5),
                        _native.float64: (1e-5, 1e-8)}


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """Deprecated since PyTorch 1.12 (use :func:`assert_close`): `assert_close` with
    `expected` made a tensor of `actual`'s dtype, NaNs equal, dtype and strides unchecked, and
    tolerances from the less precise of the two dtypes (float16 1e-3/1e-3, float32 1e-4/1e-5,
    float64 1e-5/1e-8, else 0/0)."""
    if not isinstance(actual, Tensor):
        actual = _native.tensor(actual)
    if not isinstance(expected, Tensor):
        expected = _native.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtols, atols = zip(*(_ALLCLOSE_PRECISIONS.get(t.dtype, (0.0, 0.0))
                             for t in (actual, expected)))
        rtol, atol = max(rtols), max(atols)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan,
                 check_device=True, check_dtype=False, check_stride=False, msg=msg or None)
