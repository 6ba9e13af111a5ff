"""``gradrs._foreach_*``: PyTorch's ``torch._foreach_*`` ops over lists of tensors.

Third-party code calls them directly: timm's ModelEmaV3 (``_foreach_lerp_``), optimizers copied
from PyTorch's multi-tensor paths (``_foreach_mul_``, ``_foreach_addcdiv_``, ``_foreach_sqrt``),
gradient clipping utilities (``_foreach_norm``). Each is the per-tensor op applied to every
element (PyTorch's CPU "slow path" does the same), with PyTorch's list checks and return
conventions: the out-of-place forms return a tuple, the in-place forms return the list they
were given. Differentiable through the per-tensor ops (their grad_fn is the per-tensor op's,
``AddBackward0`` where PyTorch's foreach kernels record ``ForeachAddBackward0List``).
"""

from __future__ import annotations

import numbers

from . import _native

Tensor = _native.Tensor


def _type_name(o):
    if isinstance(o, Tensor):
        return "Tensor"
    return type(o).__name__


def _bad_arguments(name, *args):
    got = ", ".join(_type_name(a) for a in args)
    return TypeError(f"{name}() received an invalid combination of arguments - got ({got})")


def _tensor_list(name, obj, *args):
    if not isinstance(obj, (list, tuple)) or not all(isinstance(t, Tensor) for t in obj):
        raise _bad_arguments(name, obj, *args)
    if len(obj) == 0:
        raise RuntimeError("Tensor list must have at least one tensor.")
    return obj


def _is_number(o):
    return isinstance(o, numbers.Number) and not isinstance(o, Tensor)


def _operands(name, self, other, *rest):
    """One operand per tensor of self: other is a number, a tensor, a list of tensors or a list
    of numbers (PyTorch's Scalar / Tensor / TensorList / ScalarList overloads)."""
    n = len(self)
    if isinstance(other, (list, tuple)):
        if all(isinstance(o, Tensor) for o in other):
            if len(other) != n:
                raise RuntimeError("Tensor lists must have the same number of tensors, got "
                                   f"{n} and {len(other)}")
            return list(other), "list"
        if all(_is_number(o) for o in other):
            if len(other) != n:
                raise RuntimeError("Tensor list must have same number of elements as scalar "
                                   "list.")
            return list(other), "scalars"
        raise _bad_arguments(name, self, other, *rest)
    if isinstance(other, Tensor):
        return [other] * n, "tensor"
    if _is_number(other):
        return [other] * n, "scalar"
    raise _bad_arguments(name, self, other, *rest)


def _parser_errors(fn):
    """`fn` raising PyTorch's parser TypeError (the listing of the function's overloads,
    Note [Parser errors]) where its own call raised one for arguments PyTorch refuses."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except TypeError:
            from ._argparse import listed_error

            err = listed_error(wrapper.__name__, args, kwargs)  # (renamed: maximum)
            if err is None:
                raise
            raise err from None

    return wrapper


def _binary(method, with_alpha=False):
    name = f"_foreach_{method}"

    def out_of_place(self, other, *, alpha=None):
        _tensor_list(name, self, other)
        others, kind = _operands(name, self, other)
        if alpha is not None and (not with_alpha or kind in ("scalar", "scalars")):
            raise _bad_arguments(name, self, other)
        kw = {} if alpha is None else {"alpha": alpha}
        return tuple(getattr(t, method)(o, **kw) for t, o in zip(self, others))

    def in_place(self, other, *, alpha=None):
        _tensor_list(name + "_", self, other)
        others, kind = _operands(name + "_", self, other)
        if alpha is not None and (not with_alpha or kind in ("scalar", "scalars")):
            raise _bad_arguments(name + "_", self, other)
        kw = {} if alpha is None else {"alpha": alpha}
        for t, o in zip(self, others):
            getattr(t, method + "_")(o, **kw)
        return self

    out_of_place.__name__, in_place.__name__ = name, name + "_"
    out_of_place.__doc__ = (f"``[t.{method}(o) for t, o in zip(self, other)]`` as a tuple; other "
                            "is a number, a tensor, a list of tensors or a list of numbers.")
    in_place.__doc__ = f"``t.{method}_(o)`` for each pair; returns self."
    return _parser_errors(out_of_place), _parser_errors(in_place)


def _unary(method):
    name = f"_foreach_{method}"

    def out_of_place(self):
        _tensor_list(name, self)
        return tuple(getattr(t, method)() for t in self)

    def in_place(self):
        _tensor_list(name + "_", self)
        for t in self:
            getattr(t, method + "_")()
        return self

    out_of_place.__name__, in_place.__name__ = name, name + "_"
    out_of_place.__doc__ = f"``[t.{method}() for t in self]`` as a tuple."
    in_place.__doc__ = f"``t.{method}_()`` for each tensor; returns self."
    return _parser_errors(out_of_place), _parser_errors(in_place)


_foreach_add, _foreach_add_ = _binary("add", with_alpha=True)
_foreach_sub, _foreach_sub_ = _binary("sub", with_alpha=True)
_foreach_mul, _foreach_mul_ = _binary("mul")
_foreach_div, _foreach_div_ = _binary("div")
_foreach_clamp_min, _foreach_clamp_min_ = _binary("clamp_min")
_foreach_clamp_max, _foreach_clamp_max_ = _binary("clamp_max")
# maximum / minimum with a number are PyTorch's clamp_min / clamp_max
_foreach_maximum, _foreach_maximum_ = _binary("clamp_min")
_foreach_minimum, _foreach_minimum_ = _binary("clamp_max")
_foreach_maximum.__name__, _foreach_maximum_.__name__ = "_foreach_maximum", "_foreach_maximum_"
_foreach_minimum.__name__, _foreach_minimum_.__name__ = "_foreach_minimum", "_foreach_minimum_"

_foreach_abs, _foreach_abs_ = _unary("abs")
_foreach_acos, _foreach_acos_ = _unary("acos")
_foreach_asin, _foreach_asin_ = _unary("asin")
_foreach_atan, _foreach_atan_ = _unary("atan")
_foreach_ceil, _foreach_ceil_ = _unary("ceil")
_foreach_cos, _foreach_cos_ = _unary("cos")
_foreach_cosh, _foreach_cosh_ = _unary("cosh")
_foreach_erf, _foreach_erf_ = _unary("erf")
_foreach_erfc, _foreach_erfc_ = _unary("erfc")
_foreach_exp, _foreach_exp_ = _unary("exp")
_foreach_expm1, _foreach_expm1_ = _unary("expm1")
_foreach_floor, _foreach_floor_ = _unary("floor")
_foreach_frac, _foreach_frac_ = _unary("frac")
_foreach_lgamma, _foreach_lgamma_ = _unary("lgamma")
_foreach_log, _foreach_log_ = _unary("log")
_foreach_log10, _foreach_log10_ = _unary("log10")
_foreach_log1p, _foreach_log1p_ = _unary("log1p")
_foreach_log2, _foreach_log2_ = _unary("log2")
_foreach_neg, _foreach_neg_ = _unary("neg")
_foreach_reciprocal, _foreach_reciprocal_ = _unary("reciprocal")
_foreach_round, _foreach_round_ = _unary("round")
_foreach_rsqrt, _foreach_rsqrt_ = _unary("rsqrt")
_foreach_sigmoid, _foreach_sigmoid_ = _unary("sigmoid")
_foreach_sign, _foreach_sign_ = _unary("sign")
_foreach_sin, _foreach_sin_ = _unary("sin")
_foreach_sinh, _foreach_sinh_ = _unary("sinh")
_foreach_sqrt, _foreach_sqrt_ = _unary("sqrt")
_foreach_tan, _foreach_tan_ = _unary("tan")
_foreach_tanh, _foreach_tanh_ = _unary("tanh")
_foreach_trunc, _foreach_trunc_ = _unary("trunc")


def _foreach_zero_(self):
    """``t.zero_()`` for each tensor; returns self."""
    for t in _tensor_list("_foreach_zero_", self):
        t.zero_()
    return self


def _foreach_clone(self):
    """``[t.clone() for t in self]`` as a tuple."""
    return tuple(t.clone() for t in _tensor_list("_foreach_clone", self))


def _foreach_copy_(self, src, non_blocking=False):
    """``t.copy_(s)`` for each pair; returns self."""
    _tensor_list("_foreach_copy_", self, src)
    others, kind = _operands("_foreach_copy_", self, src)
    if kind != "list":
        raise _bad_arguments("_foreach_copy_", self, src)
    for t, s in zip(self, others):
        t.copy_(s, non_blocking=non_blocking)
    return self


@_parser_errors
def _foreach_pow(self, exponent):
    """``[t.pow(e) ...]``: exponent a number, a list of tensors or of numbers; or ``self`` a
    number and ``exponent`` a list of tensors (``[pow(self, t) ...]``)."""
    if _is_number(self):
        _tensor_list("_foreach_pow", exponent, self)
        return tuple(self ** t for t in exponent)
    _tensor_list("_foreach_pow", self, exponent)
    others, _ = _operands("_foreach_pow", self, exponent)
    return tuple(t.pow(o) for t, o in zip(self, others))


@_parser_errors
def _foreach_pow_(self, exponent):
    """``t.pow_(e)`` for each tensor; returns self."""
    _tensor_list("_foreach_pow_", self, exponent)
    others, _ = _operands("_foreach_pow_", self, exponent)
    for t, o in zip(self, others):
        t.pow_(o)
    return self


def _pointwise(name, method):
    def out_of_place(self, tensor1, tensor2, value=1):
        return _ternary(name, method, self, tensor1, tensor2, value, False)

    def in_place(self, tensor1, tensor2, value=1):
        return _ternary(name + "_", method, self, tensor1, tensor2, value, True)

    out_of_place.__name__, in_place.__name__ = name, name + "_"
    out_of_place.__doc__ = (f"``[t.{method}(a, b, value=v) ...]`` as a tuple; value a number, "
                            "a list of numbers or a 1-D tensor of them.")
    in_place.__doc__ = f"``t.{method}_(a, b, value=v)`` for each triple; returns self."
    return _parser_errors(out_of_place), _parser_errors(in_place)


def _ternary(name, method, self, tensor1, tensor2, value, inplace):
    _tensor_list(name, self, tensor1, tensor2)
    t1, _ = _operands(name, self, tensor1)
    t2, _ = _operands(name, self, tensor2)
    if isinstance(value, Tensor):
        value = value.tolist()
    values, _ = _operands(name, self, value)
    if inplace:
        for t, a, b, v in zip(self, t1, t2, values):
            getattr(t, method + "_")(a, b, value=v)
        return self
    return tuple(getattr(t, method)(a, b, value=v) for t, a, b, v in zip(self, t1, t2, values))


_foreach_addcmul, _foreach_addcmul_ = _pointwise("_foreach_addcmul", "addcmul")
_foreach_addcdiv, _foreach_addcdiv_ = _pointwise("_foreach_addcdiv", "addcdiv")


@_parser_errors
def _foreach_lerp(self, tensors1, weight):
    """``[t.lerp(e, w) ...]`` as a tuple; weight a number, a list of tensors or of numbers."""
    _tensor_list("_foreach_lerp", self, tensors1, weight)
    ends, _ = _operands("_foreach_lerp", self, tensors1)
    weights, _ = _operands("_foreach_lerp", self, weight)
    return tuple(t.lerp(e, w) for t, e, w in zip(self, ends, weights))


@_parser_errors
def _foreach_lerp_(self, tensors1, weight):
    """``t.lerp_(e, w)`` for each tensor; returns self."""
    _tensor_list("_foreach_lerp_", self, tensors1, weight)
    ends, _ = _operands("_foreach_lerp_", self, tensors1)
    weights, _ = _operands("_foreach_lerp_", self, weight)
    for t, e, w in zip(self, ends, weights):
        t.lerp_(e, w)
    return self


def _foreach_norm(self, ord=2, dtype=None):
    """``[linalg.vector_norm(t, ord, dtype=dtype) ...]`` as a tuple of 0-dim tensors."""
    _tensor_list("_foreach_norm", self)
    from .linalg import vector_norm

    return tuple(vector_norm(t, ord, dtype=dtype) for t in self)


def _foreach_max(self):
    """``[t.max() ...]`` as a tuple of 0-dim tensors."""
    return tuple(t.max() for t in _tensor_list("_foreach_max", self))


__all__ = sorted(n for n in dir() if n.startswith("_foreach_"))
