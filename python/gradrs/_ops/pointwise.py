"""Pointwise compositions: `float_power`, `sgn`, `signbit`, `fmin`, `gcd` / `lcm`, shifts and
bitwise ops with their dunders and in-place forms, `isin`, `frexp`, `ldexp`, `angle`, the
logical in-place methods, and `apply_` / `map_` / `map2_` (Python callables per element).
"""

import builtins
import inspect
import math
import sys

import numpy as np

from .. import _argparse, _numpy_names, _torch_function
from .. import return_types
from .._forms import with_out as _with_out
from .._grad_mode import no_grad as _no_grad
from .._native import Tensor
from ..functional import _check_tensor, _dtype_name, _method
from .._reduce_ops import _parsed
from ._common import (
    _as_method, _c_type, _forward_tangent, _G, _node, _recomputed_in_place, _reduce_to,
)

__all__ = [
    "float_power", "sgn", "signbit", "fmin", "gcd", "lcm", "bitwise_left_shift",
    "bitwise_right_shift", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "isin",
    "frexp", "ldexp", "ldexp_", "gcd_", "lcm_", "round_", "nan_to_num_", "angle",
]


def float_power(input, exponent, *, out=None):
    """`gradrs.float_power(input, exponent)`: `pow` computed in float64.

    Examples:
        >>> gradrs.float_power(gradrs.tensor([2, 3]), 2)
        tensor([4., 9.], dtype=gradrs.float64)
    """
    if out is not None:
        return _with_out("float_power", out, lambda: float_power(input, exponent),
                         (input, exponent))
    if isinstance(input, Tensor):
        base = input.to(_G.float64)
    else:
        base = float(input)
    if isinstance(exponent, Tensor):
        exponent = exponent.to(_G.float64)
    elif not isinstance(exponent, bool):
        exponent = float(exponent)
    if not isinstance(base, Tensor):
        return _G.pow(base, exponent)
    return base.pow(exponent)


def _float_power_(self, exponent):
    """In-place `float_power`: raises this float64 tensor to `exponent` (a number or a tensor,
    computed in float64) and returns it; any other dtype raises PyTorch's RuntimeError."""
    if self.dtype != _G.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype "
                           f"{_dtype_name(self.dtype)} but the operation's result requires "
                           "dtype Double")
    if isinstance(exponent, Tensor):
        exponent = exponent.to(_G.float64)
    elif not isinstance(exponent, bool):
        exponent = float(exponent)
    return self.pow_(exponent)


def sgn(input, *, out=None):
    """`gradrs.sgn(input)`: the sign of a real tensor (SgnBackward0, zero gradient).

    Examples:
        >>> gradrs.sgn(gradrs.tensor([-2.0, 0.0, 3.0]))
        tensor([-1.,  0.,  1.])
    """
    if out is not None:
        return _with_out("sgn", out, lambda: sgn(input), (input,))
    _check_tensor("sgn", "input", 1, input)
    with _no_grad():
        res = input.sign()
    return _node("SgnBackward0", res, [input], lambda g: (_G.zeros_like(g),))


def signbit(input, *, out=None):
    """`gradrs.signbit(input)`: True where the sign bit is set (-0.0 and negative NaN too).

    Examples:
        >>> gradrs.signbit(gradrs.tensor([-2.0, 0.0, 3.0]))
        tensor([ True, False, False])
    """
    if out is not None:
        return _with_out("signbit", out, lambda: signbit(input), (input,))
    _check_tensor("signbit", "input", 1, input)
    x = input.detach()
    if x.dtype == _G.bool:
        return _G.zeros(tuple(x.shape), dtype=_G.bool, device=x.device)
    if not x.is_floating_point():
        return x < 0
    return _G.ones_like(x).copysign(x) < 0
for _fn in (float_power, sgn, signbit):
    setattr(Tensor, _fn.__name__, _as_method(_fn))
Tensor.float_power_ = _float_power_


def fmin(input, other, *, out=None):
    """`gradrs.fmin(input, other)`: the elementwise minimum, NaN only where both are NaN
    (FminBackward0).

    Examples:
        >>> gradrs.fmin(gradrs.tensor([1.0, float('nan')]), gradrs.tensor([2.0, 0.5]))
        tensor([1.0000, 0.5000])
    """
    if out is not None:
        return _with_out("fmin", out, lambda: fmin(input, other), (input, other))
    _check_tensor("fmin", "input", 1, input)
    _check_tensor("fmin", "other", 2, other)
    with _no_grad():
        m = _G.minimum(input, other)
        res = _G.where(input.isnan(), other.to(m.dtype),
                       _G.where(other.isnan(), input.to(m.dtype), m))

    def backward(g):
        take_self = (input <= other).logical_or(other.isnan())
        return (_reduce_to(g.masked_fill(take_self.logical_not(), 0), input.shape)
                if input.requires_grad else None,
                _reduce_to(g.masked_fill(take_self, 0), other.shape)
                if other.requires_grad else None)

    # PyTorch's forward formula: input's tangent where it is taken (ties and other NaN).
    _forward_tangent(res, [input, other], lambda ti, to: to + (
        (input <= other).logical_or(other.isnan()).to(res.dtype) * (ti - to)))
    return _node("FminBackward0", res, [input, other], backward)


def _int_only(op, *tensors):
    for t in tensors:
        if isinstance(t, Tensor) and (t.is_floating_point() or t.dtype == _G.bool):
            raise NotImplementedError(f'"{op}" not implemented for \'{_dtype_name(t.dtype)}\'')


def gcd(input, other, *, out=None):
    """`gradrs.gcd(input, other)`: the elementwise greatest common divisor (non-negative).

    Examples:
        >>> gradrs.gcd(gradrs.tensor([12, 18]), gradrs.tensor([8, 27]))
        tensor([4, 9])
    """
    if out is not None:
        return _with_out("gcd", out, lambda: gcd(input, other), (input, other))
    _check_tensor("gcd", "input", 1, input)
    _int_only("gcd_cpu", input, other)
    a, b = _G.broadcast_tensors(input.abs(), other.abs() if isinstance(other, Tensor)
                                else input * 0 + builtins.abs(other))
    a, b = a.clone(), b.clone()
    while bool((b != 0).any()):
        nz = b != 0
        r = _G.remainder(a, _G.where(nz, b, 1))
        a, b = _G.where(nz, b, a), _G.where(nz, r, 0)
    return a


def lcm(input, other, *, out=None):
    """`gradrs.lcm(input, other)`: the elementwise least common multiple, `|a / gcd * b|`.

    Examples:
        >>> gradrs.lcm(gradrs.tensor([4, 6]), gradrs.tensor([6, 4]))
        tensor([12, 12])
    """
    if out is not None:
        return _with_out("lcm", out, lambda: lcm(input, other), (input, other))
    _check_tensor("lcm", "input", 1, input)
    _int_only("lcm_cpu", input, other)
    g = gcd(input, other)
    return _G.where(g == 0, 0, (_G.div(input, _G.where(g == 0, 1, g), rounding_mode="trunc")
                                * other).abs())


def _shift(name, input, other, left):
    for t in (input, other):
        # a numpy bool is a float to PyTorch's parser (a Python bool is a bool)
        if isinstance(t, Tensor) and t.is_floating_point() or isinstance(
                t, (float, np.floating, np.bool_)):
            dt = _dtype_name(t.dtype) if isinstance(t, Tensor) else "Float"
            raise NotImplementedError(f'"{name}_cpu" not implemented for \'{dt}\'')
    a, b = input, other
    if isinstance(b, np.generic):
        b = b.item()  # a numpy number counts as a Python number (np.int32(2) is an int, not int32)
    if not isinstance(b, Tensor):
        b = _G.full_like(a, b) if a.dtype != _G.bool else _G.tensor(b, device=a.device)
    if not isinstance(a, Tensor):
        a = _G.tensor(a, device=b.device)
    ab = a + b * 0  # PyTorch's promotion (bool with an int becomes int64)
    a, b = a.to(ab.dtype), b.to(ab.dtype)
    bits = 32 if ab.dtype == _G.int32 else 64
    ok = (b >= 0) & (b < bits)
    s = _G.where(ok, b, 0)
    if left:
        # two's-complement wrap as PyTorch's: shift through a positive power of two in halves
        half = s // 2
        p1 = _G.ones_like(a) * 2
        return _G.where(ok, a * p1.pow(half) * p1.pow(s - half), 0).to(ab.dtype)
    p = _G.ones_like(a) * 2
    q = _G.where(s == bits - 1, a.sign().clamp(max=0), 0)  # 2**63 does not fit
    shifted = _G.div(a, p.pow(_G.where(s == bits - 1, 0, s)), rounding_mode="floor")
    return _G.where(ok, _G.where(s == bits - 1, q, shifted),
                    _G.where(a < 0, -1, 0).to(ab.dtype)).to(ab.dtype)


def bitwise_left_shift(input, other, *, out=None):
    """`gradrs.bitwise_left_shift(input, other)`: `input << other` (0 past the width).

    Examples:
        >>> gradrs.bitwise_left_shift(gradrs.tensor([1, 3]), 2)
        tensor([ 4, 12])
    """
    if out is not None:
        return _with_out("bitwise_left_shift", out, lambda: bitwise_left_shift(input, other),
                         (input, other))
    return _shift("lshift", input, other, True)


def bitwise_right_shift(input, other, *, out=None):
    """`gradrs.bitwise_right_shift(input, other)`: `input >> other`, arithmetic (sign fill).

    Examples:
        >>> gradrs.bitwise_right_shift(gradrs.tensor([8, 7]), 1)
        tensor([4, 3])
    """
    if out is not None:
        return _with_out("bitwise_right_shift", out, lambda: bitwise_right_shift(input, other),
                         (input, other))
    return _shift("rshift", input, other, False)


def _bitwise(name):
    def fn(input, other, *, out=None):
        if out is not None:
            return _with_out(name, out, lambda: fn(input, other), (input, other))
        if not isinstance(input, Tensor):
            return getattr(other, name)(input)
        return getattr(input, name)(other)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"`gradrs.{name}(input, other)`."
    return fn


bitwise_and = _bitwise("bitwise_and")
bitwise_or = _bitwise("bitwise_or")
bitwise_xor = _bitwise("bitwise_xor")


def bitwise_not(input, *, out=None):
    """`gradrs.bitwise_not(input)`.

    Examples:
        >>> gradrs.bitwise_not(gradrs.tensor([0, 5]))
        tensor([-1, -6])
    """
    if out is not None:
        return _with_out("bitwise_not", out, lambda: bitwise_not(input), (input,))
    return input.bitwise_not()


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """`gradrs.isin(elements, test_elements)`: True where an element occurs in
    `test_elements` (either may be a number).

    Examples:
        >>> gradrs.isin(gradrs.tensor([1, 2, 3]), gradrs.tensor([2, 5]))
        tensor([False,  True, False])
    """
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin() received an invalid combination of arguments - got (" +
                        f"{type(elements).__name__}, {type(test_elements).__name__})")
    dev = (elements if isinstance(elements, Tensor) else test_elements).device
    e = elements.detach() if isinstance(elements, Tensor) else _G.tensor(elements, device=dev)
    t = (test_elements.detach() if isinstance(test_elements, Tensor)
         else _G.tensor(test_elements, device=dev))
    hit = (e.unsqueeze(-1) == t.reshape(-1)).any(-1) if t.numel() else _G.zeros(
        tuple(e.shape), dtype=_G.bool, device=dev)
    return hit.logical_not() if invert else hit


for _fn in (fmin, gcd, lcm, bitwise_left_shift, bitwise_right_shift):
    setattr(Tensor, _fn.__name__, _as_method(_fn))


def _shift_dunder(name, shift, reflected):
    # PyTorch's dunders turn a TypeError into NotImplemented, so Python (or numpy, for an
    # ndarray operand) gets its turn: `t << ndarray` is numpy's left_shift wrapped in a Tensor.
    def method(self, other):
        if not isinstance(other, (Tensor, int, float, np.number, np.bool_)):
            # a tensor-like operand's __torch_function__ (Note [Operators on tensor-likes])
            return _torch_function.foreign_operator(name, self, other)
        try:
            return shift(other, self) if reflected else shift(self, other)
        except TypeError:
            return NotImplemented

    method.__name__, method.__qualname__ = name, f"Tensor.{name}"
    return method


_rlshift = _shift_dunder("__rlshift__", bitwise_left_shift, True)
_rrshift = _shift_dunder("__rrshift__", bitwise_right_shift, True)


def _in_place(name, compute):
    def method(self, other):
        return self.copy_(compute(self, other))

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"`Tensor.{name}(other)`: the result written into `self`."
    return method


def _bitwise_not_(self):
    """`Tensor.bitwise_not_()`."""
    return self.copy_(self.bitwise_not())


_lshift = _shift_dunder("__lshift__", bitwise_left_shift, False)
_rshift = _shift_dunder("__rshift__", bitwise_right_shift, False)


Tensor.__lshift__ = _lshift
Tensor.__rshift__ = _rshift
Tensor.__rlshift__ = _rlshift
Tensor.__rrshift__ = _rrshift
Tensor.gcd_ = _in_place("gcd_", gcd)
Tensor.lcm_ = _in_place("lcm_", lcm)
Tensor.bitwise_left_shift_ = _in_place("bitwise_left_shift_", bitwise_left_shift)
Tensor.bitwise_right_shift_ = _in_place("bitwise_right_shift_", bitwise_right_shift)
Tensor.__ilshift__ = _in_place("__ilshift__", bitwise_left_shift)
Tensor.__irshift__ = _in_place("__irshift__", bitwise_right_shift)


def _in_place_dunder(name, method):
    # `t //= x` must write into `t` (without it Python rebinds `t` to `t // x`); an operand that
    # is no tensor or number gives NotImplemented, as PyTorch's, so `t //= ndarray` falls back
    # to `t // ndarray`; a result the tensor cannot hold is refused before the kernel runs.
    # An operand standing for a tensor (vmap's BatchedTensor) gets the write, as the native
    # dunders hand it (`InPlaceOperand` in `src/python/tensor/mod.rs`).
    def dunder(self, other):
        if not isinstance(other, (Tensor, int, float, np.number, np.bool_)):
            target = getattr(type(other), "_inplace_target", None)
            if target is not None:
                return target(other, self, _DUNDER_METHOD[name], sys._getframe(1))
            return NotImplemented
        result = _G.result_type(self, other)
        if not _G.can_cast(result, self.dtype):
            raise RuntimeError(f"result type {_dtype_name(result)} can't be cast to the desired "
                               f"output type {_dtype_name(self.dtype)}")
        try:
            return method(self, other)
        except TypeError:
            return NotImplemented

    dunder.__name__, dunder.__qualname__ = name, f"Tensor.{name}"
    return dunder


_DUNDER_METHOD = {"__ifloordiv__": "floor_divide_", "__imod__": "remainder_",
                  "__ilshift__": "bitwise_left_shift_", "__irshift__": "bitwise_right_shift_",
                  "__iand__": "bitwise_and_", "__ior__": "bitwise_or_", "__ixor__": "bitwise_xor_"}
Tensor.__ifloordiv__ = _in_place_dunder("__ifloordiv__", Tensor.floor_divide_)
Tensor.__imod__ = _in_place_dunder("__imod__", Tensor.remainder_)
Tensor.bitwise_and_ = _in_place("bitwise_and_", lambda a, b: a.bitwise_and(b))
Tensor.bitwise_or_ = _in_place("bitwise_or_", lambda a, b: a.bitwise_or(b))
Tensor.bitwise_xor_ = _in_place("bitwise_xor_", lambda a, b: a.bitwise_xor(b))
Tensor.bitwise_not_ = _bitwise_not_
Tensor.__iand__ = _in_place("__iand__", lambda a, b: a.bitwise_and(b))
Tensor.__ior__ = _in_place("__ior__", lambda a, b: a.bitwise_or(b))
Tensor.__ixor__ = _in_place("__ixor__", lambda a, b: a.bitwise_xor(b))
for _name in ("__ilshift__", "__irshift__", "__iand__", "__ior__", "__ixor__"):
    setattr(Tensor, _name, _in_place_dunder(_name, getattr(Tensor, _name)))
return_types.frexp = return_types._make_type("frexp", ("mantissa", "exponent"))



@_parsed("frexp", ["(Tensor input, *, tuple of Tensors out = None)"], ["()"])
def frexp(input, *, out=None):
    """`gradrs.frexp(input)`: (mantissa, exponent) with `input = mantissa * 2 ** exponent`,
    |mantissa| in [0.5, 1), exponent int32; 0, inf and NaN keep their value with exponent 0
    (C's frexp) (FrexpBackward0: grad / 2 ** exponent).

    Examples:
        >>> gradrs.frexp(gradrs.tensor([8.0, 0.75]))
        gradrs.return_types.frexp(
        mantissa=tensor([0.5000, 0.7500]),
        exponent=tensor([4, 0], dtype=gradrs.int32))
    """
    if not input.is_floating_point():
        raise RuntimeError("gradrs.frexp() only supports floating-point dtypes")
    if out is not None:
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise TypeError("frexp(): argument 'out' must be tuple of Tensors, not "
                            f"{_argparse.type_name(out)}")
        if out[0].dtype != input.dtype:
            raise RuntimeError(f"gradrs.frexp() expects mantissa to have dtype "
                               f"{_c_type(input)} but got {_c_type(out[0])}")
        if out[1].dtype != _G.int32:
            raise RuntimeError(f"gradrs.frexp() expects exponent to have int dtype but got "
                               f"{_c_type(out[1])}")
        mant, exp = _with_out("frexp", out, lambda: tuple(frexp(input)), (input,))
        return return_types.frexp(mant, exp)
    with _no_grad():
        # float64 holds every exponent of the narrower dtypes; 2 ** -e in two factors so that
        # neither overflows for float64's largest and smallest (subnormal) values
        x = input.to(_G.float64) if input.dtype != _G.float64 else input
        a = x.abs()
        regular = (a > 0) & a.isfinite()
        e = a.where(regular, _G.ones_like(a)).log2().floor() + 1
        e1 = (e / 2).floor()
        m = x * (-e1).exp2() * (e1 - e).exp2()
        # log2 rounds near powers of two: one step fixes the exponent
        low, high = m.abs() < 0.5, m.abs() >= 1
        m = _G.where(low, m * 2, _G.where(high, m / 2, m))
        e = _G.where(low, e - 1, _G.where(high, e + 1, e))
        mant = _G.where(regular, m, x).to(input.dtype)
        exp = e.where(regular, _G.zeros_like(e)).to(_G.int32)
    scale = exp.to(input.dtype).exp2()
    _forward_tangent(mant, [input], lambda t: t / scale)
    mant = _node("FrexpBackward0", mant, [input], lambda g: (g / scale,))
    return return_types.frexp(mant, exp)


def _frexp(self):
    """`Tensor.frexp()`."""
    return frexp(self)
Tensor.frexp = _frexp


def _ldexp_values(input, other):
    out_type = _G.result_type(input, other)
    if not (out_type.is_floating_point or out_type.is_complex):
        out_type = _G.get_default_dtype()
    return out_type


@_parsed("ldexp", ["(Tensor input, Tensor other, *, Tensor out = None)"], ["(Tensor other)"])
def ldexp(input, other, *, out=None):
    """`gradrs.ldexp(input, other)`: `input * 2 ** other`, a float result (the default dtype
    for integers) (LdexpBackward0: grad * 2 ** other, grad * result * ln 2).

    Examples:
        >>> gradrs.ldexp(gradrs.tensor([1.0, 3.0]), gradrs.tensor([2, -1]))
        tensor([4.0000, 1.5000])
    """
    if out is not None:
        return _with_out("ldexp", out, lambda: ldexp(input, other), (input, other))
    dt = _ldexp_values(input, other)
    with _no_grad():
        scale = other.to(dt).exp2()
        res = input.to(dt) * scale

    def backward(g):
        gi = _reduce_to(g * other.to(dt).exp2(), input.shape) if input.requires_grad else None
        go = None
        if other.requires_grad:
            go = _reduce_to(g * input.to(dt) * other.to(dt).exp2() * math.log(2.0), other.shape)
        return gi, go

    _forward_tangent(res, [input, other],
                     lambda ti, to: ti * scale + input * scale * math.log(2.0) * to)
    return _node("LdexpBackward0", res, [input, other], backward)


Tensor.ldexp = ldexp._method
Tensor.ldexp_ = _recomputed_in_place("ldexp_", "LdexpBackward0", ldexp, cast_error="ldexp")
Tensor.sgn_ = _recomputed_in_place("sgn_", "SgnBackward0", Tensor.sgn)


def _logical_in_place(name, op):
    """Tensor method `name`: the boolean `op(self, ...)` cast into `self`; not differentiable,
    so `self` keeps its node, as in PyTorch."""
    base = op.__name__

    def method(self, *args, **kwargs):
        # the method as installed at the call (NumPy's names renamed: `x2=` for `other`)
        try:
            res = getattr(Tensor, base)(self, *args, **kwargs)
        except TypeError as e:  # PyTorch's parser texts name the in-place method
            err = _numpy_names.missing_error(op, (name, {}, None), (self,) + args, kwargs)
            if err is not None:
                raise err from None
            text = str(e)
            if text.startswith((f"{base}()", f"TensorBase.{base}()")):
                raise TypeError(text.replace(f"{base}()", f"{name}()", 1)) from None
            raise
        if tuple(res.shape) != tuple(self.shape):
            raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the "
                               f"broadcast shape {list(res.shape)}")
        with _no_grad():
            return self.copy_(res)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"`Tensor.{name}(...)`: `{name[:-1]}` cast into `self`."
    return method


for _name in ("logical_and", "logical_or", "logical_xor", "logical_not"):
    setattr(Tensor, _name + "_", _logical_in_place(_name + "_", getattr(Tensor, _name)))


def ldexp_(input, other):
    """`gradrs.ldexp_(input, other)`: `input.ldexp_(other)`."""
    return input.ldexp_(other)


def gcd_(input, other):
    """`gradrs.gcd_(input, other)`: `input.gcd_(other)`."""
    return input.gcd_(other)


def lcm_(input, other):
    """`gradrs.lcm_(input, other)`: `input.lcm_(other)`."""
    return input.lcm_(other)


def round_(input, *, decimals=0):
    """`gradrs.round_(input, *, decimals=0)`: `input.round_(decimals=decimals)`."""
    return input.round_(decimals=decimals) if decimals else input.round_()


def nan_to_num_(input, nan=0.0, posinf=None, neginf=None):
    """`gradrs.nan_to_num_(input, nan=0.0, posinf=None, neginf=None)`: `input.nan_to_num_`."""
    return input.nan_to_num_(nan, posinf, neginf)

_sgn_in_place = Tensor.sgn_
_logical_not_in_place = Tensor.logical_not_


def _sgn_(self):
    """`Tensor.sgn_()`: `sgn` written into `self` (SgnBackward0)."""
    return _sgn_in_place(self)


def _logical_not_(self, *args, **kwargs):
    """`Tensor.logical_not_()`: `logical_not` cast into `self`."""
    return _logical_not_in_place(self, *args, **kwargs)  # (its refusal of arguments too)


# what it takes (the arguments above are only passed on to be refused)
_logical_not_.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
    [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)])


Tensor.sgn_ = _sgn_
Tensor.logical_not_ = _logical_not_


def angle(input, *, out=None):
    """`gradrs.angle(input)`: the argument of a real number: pi for negatives, 0 otherwise,
    NaN kept; integers give the default float dtype (AngleBackward0: zero gradient).

    Examples:
        >>> gradrs.angle(gradrs.tensor([-2.0, 3.0]))
        tensor([3.1416, 0.0000])
    """
    if out is not None:
        return _with_out("angle", out, lambda: angle(input), (input,))
    if not isinstance(input, Tensor):
        raise TypeError(f"angle(): argument 'input' (position 1) must be Tensor, not "
                        f"{_argparse.type_name(input)}")
    dt = input.dtype if input.is_floating_point() else _G.get_default_dtype()
    with _no_grad():
        x = input.to(dt)
        res = _G.where(x < 0, _G.full_like(x, math.pi), _G.zeros_like(x))
        res = _G.where(x.isnan(), x, res)
    return _node("AngleBackward0", res, [input], lambda g: (_G.zeros_like(g),))


for _fn in (angle,):
    setattr(Tensor, _fn.__name__, _method(_fn))



def _python_value(dtype):
    """The conversion PyTorch applies to a callable's result for a tensor of `dtype`."""
    def convert(v):
        if isinstance(v, Tensor) or not isinstance(v, (int, float, bool, np.number)):
            raise TypeError(f"must be real number, not {type(v).__name__}")
        return bool(v) if dtype == _G.bool else float(v) if dtype.is_floating_point else int(v)

    return convert


def _elementwise_(self, name, others, fn):
    if self.requires_grad:
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use "
                           f"var.detach().{name}() instead.")
    if self.device.type != "cpu":
        raise RuntimeError(f"{name}_ is only implemented on CPU tensors")
    if not callable(fn):
        raise TypeError(f"'{type(fn).__name__}' object is not callable")
    columns = [self.reshape(-1).tolist()]
    for other in others:
        columns.append(other.expand(self.shape).reshape(-1).tolist())
    convert = _python_value(self.dtype)
    values = [convert(fn(*vals)) for vals in zip(*columns)]
    with _no_grad():
        self.copy_(_G.tensor(values, dtype=self.dtype).reshape(self.shape))
    return self


def _legacy_type(t):
    return t.type()


def _apply_(self, callable):
    """`Tensor.apply_(callable)`: each element replaced by `callable(element)`, in order (CPU,
    no autograd)."""
    return _elementwise_(self, "apply_", [], callable)


def _map_(self, tensor, callable):
    """`Tensor.map_(tensor, callable)`: each element replaced by `callable(self_elem,
    tensor_elem)`, `tensor` broadcast to `self`'s shape (CPU, no autograd)."""
    if isinstance(tensor, Tensor) and tensor.dtype != self.dtype:
        raise TypeError(f"map_: expected {_legacy_type(self)} for 'other' (got "
                        f"{_legacy_type(tensor)})")
    return _elementwise_(self, "map_", [tensor], callable)


def _map2_(self, x, y, callable):
    """`Tensor.map2_(x, y, callable)`: each element replaced by `callable(self_elem, x_elem,
    y_elem)`, `x` and `y` broadcast to `self`'s shape (CPU, no autograd)."""
    for what, t in (("x", x), ("y", y)):
        if isinstance(t, Tensor) and t.dtype != self.dtype:
            raise TypeError(f"map2_: expected {_legacy_type(self)} for argument '{what}' (got "
                            f"{_legacy_type(t)})")
    return _elementwise_(self, "map2_", [x, y], callable)


Tensor.apply_ = _apply_
Tensor.map_ = _map_
Tensor.map2_ = _map2_

del _fn, _name
