"""vmap's batching rules for elementwise ops: unary and binary Tensor methods, the
operators and their in-place forms (Note [vmap]).
"""

from __future__ import annotations

import operator
import sys
import warnings

from . import (
    _batch_size, BatchedTensor, _Fallback, _is_tensor, _ldim, _PACKAGE, _pad, _phys, _rule,
    _top, _wrap,
)


# Elementwise ops of one tensor and non-tensor arguments; also dtype / device changes.
_UNARY = """
neg exp log sin cos tan tanh sigmoid relu sqrt rsqrt abs sign reciprocal exp2 expm1 log2 log10
log1p asin acos atan sinh cosh asinh acosh atanh erf erfc erfinv floor ceil trunc round frac sinc
square logit lgamma digamma nan_to_num clamp clip clamp_min clamp_max isnan isinf isfinite
logical_not bitwise_not positive angle sgn signbit deg2rad rad2deg i0 softplus
float double half bfloat16 int long bool short char byte to cpu cuda gpu detach clone contiguous
requires_grad_ zero_ fill_ neg_ exp_ log_ sin_ cos_ tanh_ sigmoid_ relu_ sqrt_ abs_ clamp_
clamp_min_ clamp_max_ mul_ div_ add_ sub_ pow_
""".split()


def _unary(name):
    inplace = name.endswith("_")

    def fn(lvl, self, *args, **kwargs):
        p = _phys(self, lvl)
        rest = args + tuple(kwargs.values())
        if p is None or any(_is_tensor(a) for a in rest):
            return _elementwise_call(name, lvl, (self,) + args, kwargs, inplace)
        out = getattr(p, name)(*args, **kwargs)
        if inplace:
            return self
        if name == "requires_grad_":
            return self
        return BatchedTensor(out, lvl)
    return _rule(fn)


def _align(args, lvl):
    """Tensors of ``args`` ready for one broadcasting native op: batched ones physical with
    size-1 dims after the batch up to the broadcast rank; the others unchanged."""
    rank = max((_ldim(a) for a in args if _is_tensor(a)), default=0)
    out = []
    for a in args:
        p = _phys(a, lvl)
        out.append(a if p is None else _pad(p, rank - (p.dim() - 1)))
    return out


_OPERATORS = {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
              "div": operator.truediv, "true_divide": operator.truediv, "pow": operator.pow,
              "eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le,
              "gt": operator.gt, "ge": operator.ge, "__and__": operator.and_,
              "__or__": operator.or_, "__xor__": operator.xor, "floor_divide": operator.floordiv,
              "remainder": operator.mod}


def _elementwise_call(name, lvl, args, kwargs, inplace=False):
    """An elementwise op over tensors that broadcast: one native op on aligned physicals."""
    al = _align(list(args) + list(kwargs.values()), lvl)
    a, k = al[:len(args)], dict(zip(kwargs, al[len(args):]))
    if inplace:
        if _phys(args[0], lvl) is None:
            raise _inplace_error(name, lvl, args[0], list(args[1:]) + list(kwargs.values()))
        p = args[0]._value
        # The physical self keeps its shape: broadcast ranks above it are not in-place.
        a[0] = p
        getattr(p, name)(*a[1:], **k)
        return args[0]
    if name in _OPERATORS and not k and len(a) == 2:
        out = _OPERATORS[name](a[0], a[1])
    elif _is_tensor(a[0]):
        out = getattr(a[0], name)(*a[1:], **k)
    else:
        raise _Fallback()
    return _wrap(out, lvl)


# How PyTorch names an in-place op that an unbatched `self` cannot take (its batching rules
# differ: the binary-arithmetic rule, the boxed fallback's `aten::` name, an op's own rule);
# add_ and atan2_ fail in their broadcast check instead.
_INPLACE_LABEL = dict.fromkeys(
    "sub_ mul_ div_ true_divide_ masked_fill_ copy_ clamp_min_ clamp_max_ __setitem__".split(),
    "inplace arithmetic")
_INPLACE_LABEL.update(dict.fromkeys("index_put_ fill_ index_fill_ index_add_".split()))
_BROADCAST_INPLACE = frozenset("""
add_ atan2_ bitwise_and_ bitwise_or_ bitwise_xor_ bitwise_left_shift_ bitwise_right_shift_ gcd_
lcm_""".split())


def _overload(name, others):
    """The ATen overload an in-place call with these arguments resolves to."""
    if name == "lerp_":
        return "lerp_.Tensor" if len(others) > 1 and _is_tensor(others[1]) else "lerp_.Scalar"
    if name == "scatter_":
        src = others[2] if len(others) > 2 else None
        return "scatter_.src" if _is_tensor(src) else "scatter_.value"
    if name in ("pow_", "clamp_", "floor_divide_", "remainder_", "fmod_"):
        return f"{name}.Tensor"
    return name


def _fallback_warning(overload):
    """The warning PyTorch's boxed vmap fallback gives for an op without a batching rule."""
    warnings.warn(
        "There is a performance drop because we have not yet implemented the batching rule "
        f"for aten::{overload}. Please file us an issue on GitHub so that we can prioritize its "
        "implementation. (Triggered internally at "
        "/__w/pytorch/pytorch/aten/src/ATen/functorch/BatchedFallback.cpp:82.)",
        UserWarning, stacklevel=_user_stacklevel())


def _user_stacklevel():
    """The `warnings.warn` stacklevel of the first frame outside gradrs (the user's line)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


def _inplace_error(name, lvl, self, others):
    """PyTorch's error for an in-place op on an unbatched ``self`` with a batched argument."""
    if name in _BROADCAST_INPLACE:
        from ..functional import broadcast_shapes

        shapes = [tuple(self.shape)] + [tuple(o.shape) for o in others if _is_tensor(o)]
        full = [_batch_size(others, lvl)] + list(broadcast_shapes(*shapes))
        return RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast "
                            f"shape {full}")
    if name in _INPLACE_LABEL:
        label, where = _INPLACE_LABEL[name] or name, "in a vmap"
    else:
        # PyTorch's boxed fallback: it warns (naming the overload) before it refuses.
        label, where = f"aten::{name}", f"at level {lvl}"
        _fallback_warning(_overload(name, others))
    return RuntimeError(
        f"vmap: {label}(self, *extra_args) is not possible because there exists a Tensor "
        "`other` in extra_args that has more elements than `self`. This happened due to "
        f"`other` being vmapped over but `self` not being vmapped over {where}. Please try to "
        f"use out-of-place operators instead of {label}. If said operator is being called "
        "inside the PyTorch framework, please file a bug report instead.")


def _binary(name):
    inplace = name.endswith("_") and not name.endswith("__")

    def fn(lvl, *args, **kwargs):
        return _elementwise_call(name, lvl, args, kwargs, inplace)
    return _rule(fn)


_BINARY = """
add sub mul div true_divide pow eq ne lt le gt ge maximum minimum fmax fmin fmod remainder
atan2 hypot logical_and logical_or logical_xor floor_divide xlogy copysign lerp addcmul addcdiv
where masked_fill bitwise_and bitwise_or bitwise_xor heaviside nextafter ldexp isclose
""".split()


for _name, _fn in [("__add__", operator.add), ("__sub__", operator.sub),
                   ("__mul__", operator.mul), ("__truediv__", operator.truediv),
                   ("__floordiv__", operator.floordiv), ("__mod__", operator.mod),
                   ("__pow__", operator.pow), ("__eq__", operator.eq), ("__ne__", operator.ne),
                   ("__lt__", operator.lt), ("__le__", operator.le), ("__gt__", operator.gt),
                   ("__ge__", operator.ge), ("__and__", operator.and_),
                   ("__or__", operator.or_), ("__xor__", operator.xor)]:
    def _forward(self, other, _f=_fn):
        lvl = _top((self, other))
        a, b = _align([self, other], lvl)
        return _wrap(_f(a, b), lvl)

    def _reflect(self, other, _f=_fn):
        lvl = _top((self, other))
        a, b = _align([other, self], lvl)
        return _wrap(_f(a, b), lvl)
    setattr(BatchedTensor, _name, _forward)
    if _name not in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"):
        setattr(BatchedTensor, "__r" + _name[2:], _reflect)

for _name, _iname in [("__iadd__", "add_"), ("__isub__", "sub_"), ("__imul__", "mul_"),
                      ("__itruediv__", "div_")]:
    def _inplace(self, other, _n=_iname):
        return _elementwise_call(_n, _top((self, other)), (self, other), {}, True)
    setattr(BatchedTensor, _name, _inplace)



def _inplace_target(self, target, name, caller=None):
    """``target op= self`` with ``target`` an unbatched Tensor: its in-place dunder hands the
    write here (`InPlaceOperand` in `src/python/tensor/mod.rs`, `_in_place_dunder`) instead of
    returning NotImplemented, which would rebind ``target`` to ``self.__rsub__(target)``.
    PyTorch's dunder calls the in-place method ``name``, which refuses a vmapped operand in an
    unvmapped ``self``; gradrs's own Python (``caller``: the frame doing the write) runs per
    sample, as an unbatched tensor's in-place methods do (`_plain_methods`)."""
    frame = caller if caller is not None else sys._getframe(1)
    if frame.f_code.co_filename.startswith(_PACKAGE):
        raise _Fallback()
    raise _inplace_error(name, _top((target, self)), target, [self])


BatchedTensor._inplace_target = _inplace_target

for _name in ("__neg__", "__abs__", "__invert__", "__pos__"):
    setattr(BatchedTensor, _name,
            lambda self, _n=_name: BatchedTensor(getattr(self._value, _n)(), self._level))

for _name in _UNARY:
    setattr(BatchedTensor, _name, _unary(_name))
for _name in _BINARY:
    setattr(BatchedTensor, _name, _binary(_name))
for _name in ("add_", "sub_", "mul_", "div_", "pow_", "clamp_", "copy_", "masked_fill_",
              "lerp_", "addcmul_", "addcdiv_", "maximum_", "minimum_"):
    setattr(BatchedTensor, _name, _binary(_name))


def _type_as(self, other):
    return self.to(other.dtype)


BatchedTensor.type_as = _type_as
