"""Elementwise predicates with boolean results, never differentiable: the NaN / inf tests
(`isnan`, `isinf`, `isposinf`, `isneginf`, `isfinite`, `isreal`) and closeness (`isclose`,
`allclose`, as ATen's)."""

import builtins
import math


from .. import _native, _numpy_names
from .._native import Tensor
from ..functional import _binary_method, _check_tensor, _dtype_name, _method


# ---- NaN / inf tests: boolean results, never differentiable ------------------------------------

def _bool_like(input, value):
    return _native.full(tuple(input.shape), value, dtype=_native.bool, device=input.device)


@_numpy_names.accepts
def isnan(input):
    """True where `input` is NaN (all False for integer and bool tensors).

    Examples:
        >>> gradrs.isnan(gradrs.tensor([1.0, float('nan')]))
        tensor([False,  True])
    """
    _check_tensor("isnan", "input", 1, input)
    if not input.is_floating_point():
        return _bool_like(input, False)
    x = input.detach()
    return x != x


@_numpy_names.accepts
def isinf(input):
    """A boolean tensor: True where the element is +inf or -inf.

    Args:
        input: a tensor.

    Examples:
        >>> gradrs.isinf(gradrs.tensor([1.0, float('inf'), -float('inf')]))
        tensor([False,  True,  True])
    """
    _check_tensor("isinf", "input", 1, input)
    if not input.is_floating_point():
        return _bool_like(input, False)
    return input.detach().abs() == math.inf


@_numpy_names.accepts
def isposinf(input):
    """A boolean tensor: True where the element is +inf.

    Args:
        input: a tensor.

    Examples:
        >>> gradrs.isposinf(gradrs.tensor([1.0, float('inf'), -float('inf')]))
        tensor([False,  True, False])
    """
    _check_tensor("isposinf", "input", 1, input)
    if not input.is_floating_point():
        return _bool_like(input, False)
    return input.detach() == math.inf


@_numpy_names.accepts
def isneginf(input):
    """A boolean tensor: True where the element is -inf.

    Args:
        input: a tensor.

    Examples:
        >>> gradrs.isneginf(gradrs.tensor([1.0, float('inf'), -float('inf')]))
        tensor([False, False,  True])
    """
    _check_tensor("isneginf", "input", 1, input)
    if not input.is_floating_point():
        return _bool_like(input, False)
    return input.detach() == -math.inf


@_numpy_names.accepts
def isfinite(input):
    """A boolean tensor: True where the element is neither infinite nor NaN (integers
    are always finite).

    Args:
        input: a tensor.

    Examples:
        >>> gradrs.isfinite(gradrs.tensor([1.0, float('inf'), float('nan')]))
        tensor([ True, False, False])
    """
    _check_tensor("isfinite", "input", 1, input)
    if not input.is_floating_point():
        return _bool_like(input, True)
    x = input.detach()
    return (x - x) == 0  # inf - inf and NaN - NaN are NaN, any finite x gives 0


@_numpy_names.accepts
def isreal(input):
    """Every real tensor is real (gradrs has no complex dtypes).

    Examples:
        >>> gradrs.isreal(gradrs.tensor([1.0, 2.0]))
        tensor([True, True])
    """
    _check_tensor("isreal", "input", 1, input)
    return _bool_like(input, True)


# ---- closeness ----------------------------------------------------------------------------------

@_numpy_names.accepts
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|input - other| <= atol + rtol * |other|, elementwise, as ATen's isclose: exact equality
    (infinities included) always counts; NaNs count only with `equal_nan`.

    Examples:
        >>> gradrs.isclose(gradrs.tensor([1.0, float('nan')]), gradrs.tensor([1.0 + 1e-9, float('nan')]), equal_nan=True)
        tensor([True, True])
    """
    _check_tensor("isclose", "input", 1, input)
    _check_tensor("isclose", "other", 2, other)
    if input.dtype != other.dtype:
        raise RuntimeError(f"{_dtype_name(input.dtype)} did not match {_dtype_name(other.dtype)}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    a, b = input.detach(), other.detach()
    close = a == b
    if equal_nan and a.is_floating_point():
        close = close | ((a != a) & (b != b))
    if rtol == 0 and atol == 0 or a.dtype == _native.bool:
        return close
    if not a.is_floating_point():
        # ATen compares integers in the default float dtype
        a, b = a.to(_native.get_default_dtype()), b.to(_native.get_default_dtype())
    allowed = (b * rtol).abs() + atol
    actual = (a - b).abs()
    return close | (isfinite(actual) & (actual <= allowed))


@_numpy_names.accepts
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """`isclose(...).all()` as a Python bool.

    Examples:
        >>> gradrs.allclose(gradrs.tensor([1.0, 2.0]), gradrs.tensor([1.0, 2.0 + 1e-9]))
        True
    """
    _check_tensor("allclose", "input", 1, input)
    _check_tensor("allclose", "other", 2, other)
    return builtins.bool(isclose(input, other, rtol, atol, equal_nan).all().item())


Tensor.isnan = _method(isnan)
Tensor.isinf = _method(isinf)
Tensor.isfinite = _method(isfinite)
Tensor.isposinf = _method(isposinf)
Tensor.isneginf = _method(isneginf)
Tensor.isreal = _method(isreal)
Tensor.allclose = _binary_method(allclose)
Tensor.isclose = _binary_method(isclose)
