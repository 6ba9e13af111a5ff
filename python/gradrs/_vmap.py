"""`vmap`'s engine: `BatchedTensor` (a batch dimension carried beside a tensor), its batching
rules per op family, the per-sample fallbacks, and `vmap` itself (`gradrs.func.vmap`).

Design (see ARCHITECTURE.md, Note [vmap]): a `BatchedTensor` is a Python object holding the
physical tensor, whose dim 0 is the batch of one vmap level, and that level. It is not a
`Tensor`: each of its methods is a batching rule (elementwise, reductions, matmul, views,
indexing) that runs ONE native op on the physical tensor, so the work, the kernels and the graph
nodes do not grow with the batch size; any other Tensor method runs per sample and stacks (the
per-op fallback, functorch's semantics). A native function handed a `BatchedTensor` refuses it
with a TypeError that names it; `vmap` then reruns the whole call one sample at a time (the
per-call fallback), which is correct for every function, only slower. Nested levels compose:
the physical tensor of level 2 may itself be a level-1 `BatchedTensor`.
"""

from __future__ import annotations

import functools
import inspect
import operator
import os
import sys
import threading
import warnings
import weakref
from typing import NamedTuple

from . import _native
from .func import _flatten, _spec_str, _unflatten

Tensor = _native.Tensor

_state = threading.local()


def _level():
    return getattr(_state, "level", 0)


class _Fallback(Exception):
    """Raised inside the batched evaluation where only a per-sample run is correct."""


_ITEM = ("vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over "
         "calling .item() on a Tensor, please try to rewrite what you're doing with other "
         "operations. If error is occurring somewhere inside PyTorch internals, please file a "
         "bug report.")
_CONTROL = ("vmap: It looks like you're attempting to use a Tensor in some data-dependent "
            "control flow. We don't support that yet, please file an issue at "
            "https://github.com/pytorch/pytorch/issues .")
_RANDOM = ("vmap: called random operation while in randomness error mode. Please either use "
           "the 'same' or 'different' randomness flags on vmap or perform the randomness "
           "operation out of vmap")


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _data_dependent(message):
    """The error for reading a batched value, or `_Fallback` where gradrs's own Python reads it
    (PyTorch does those checks in C++, where vmap never sees them)."""
    frame = sys._getframe(2)
    if frame.f_code.co_filename.startswith(_PACKAGE):
        return _Fallback()
    return RuntimeError(message)


def _is_tensor(x):
    return isinstance(x, (Tensor, BatchedTensor))


def _top(values):
    """The innermost vmap level among the BatchedTensors in ``values`` (0: none)."""
    lvl = 0
    for v in values:
        if isinstance(v, BatchedTensor):
            lvl = max(lvl, v._level)
        elif isinstance(v, (list, tuple)):
            lvl = max(lvl, _top(v))
    return lvl


def _phys(x, lvl):
    """``x``'s physical tensor at ``lvl`` (batch at dim 0), or None where ``x`` is not batched
    there."""
    if isinstance(x, BatchedTensor) and x._level == lvl:
        return x._value
    return None


def _ldim(x):
    return x.dim() if _is_tensor(x) else 0


def _pad(p, n):
    """Physical ``p`` (batch first) with ``n`` size-1 dims inserted after the batch."""
    return p[(slice(None),) + (None,) * n] if n > 0 else p


def _norm_dim(d, rank):
    r = max(rank, 1)
    if not -r <= d < r:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-r}, {r - 1}], "
                         f"but got {d})")
    return d % r


def _wrap(out, lvl):
    """A rule's physical result(s) as BatchedTensors of ``lvl``."""
    if _is_tensor(out):
        return BatchedTensor(out, lvl)
    if isinstance(out, tuple) and hasattr(out, "_fields"):
        return type(out)(*(_wrap(o, lvl) for o in out))
    if isinstance(out, (tuple, list)):
        return type(out)(_wrap(o, lvl) for o in out)
    return out


# ---- the per-op fallback -------------------------------------------------------------------


def _slice(x, lvl, i):
    if isinstance(x, BatchedTensor) and x._level == lvl:
        return x._value.select(0, i)
    if isinstance(x, list):
        return [_slice(v, lvl, i) for v in x]
    if isinstance(x, tuple) and not hasattr(x, "_fields"):
        return tuple(_slice(v, lvl, i) for v in x)
    return x


def _stack_results(results, lvl):
    first = results[0]
    if _is_tensor(first):
        return BatchedTensor(_stack(results), lvl)
    if isinstance(first, (tuple, list)):
        parts = [_stack_results([r[k] for r in results], lvl) for k in range(len(first))]
        if hasattr(first, "_fields"):
            return type(first)(*parts)
        return type(first)(parts)
    if all(r == first for r in results):
        return first
    raise RuntimeError(_ITEM)


def _stack(ts, dim=0):
    """``stack`` of per-sample results, which may be BatchedTensors of outer levels."""
    lvl = _top(ts)
    if lvl == 0:
        return _native.stack(ts, dim)
    b = next(t for t in ts if _phys(t, lvl) is not None)._size()
    parts = [_phys(t, lvl) if _phys(t, lvl) is not None else t.unsqueeze(0).expand(b, *t.shape)
             for t in ts]
    return BatchedTensor(_stack(parts, dim + 1), lvl)


def _batch_size(values, lvl):
    """The batch size of ``lvl`` among ``values`` (lists and tuples searched too)."""
    for v in values:
        if isinstance(v, BatchedTensor) and v._level == lvl:
            return v._size()
        if isinstance(v, (list, tuple)):
            size = _batch_size(v, lvl)
            if size is not None:
                return size
    return None


# Ops PyTorch has no batching rule for (its fallback runs them per sample, with a warning),
# and the ATen overload it names; those whose output shape depends on the values it refuses.
_TORCH_FALLBACK = dict.fromkeys("histc diagflat bincount put take argwhere".split())
_DYNAMIC_SHAPE = {"unique": "_unique2", "unique_consecutive": "unique_consecutive",
                  "nonzero": "nonzero"}


def _users_call():
    """Whether the op was called by the user's code (not gradrs's own Python, whose checks and
    composites PyTorch does in C++ where vmap never sees them)."""
    frame = sys._getframe(2)
    skip = (__file__, os.path.join(_PACKAGE, "_forms.py"), os.path.join(_PACKAGE, "_argparse.py"),
            functools.__file__)
    while frame is not None and frame.f_code.co_filename in skip:
        frame = frame.f_back
    return frame is None or not frame.f_code.co_filename.startswith(_PACKAGE)


def _torch_fallback_checks(name, args, kwargs):
    """PyTorch's refusal of a dynamic-shape op, or its fallback's warning, for a user's call."""
    if name not in _TORCH_FALLBACK and name not in _DYNAMIC_SHAPE and name not in (
            "quantile", "nanquantile", "masked_select"):
        return
    if not _users_call():
        if name in _DYNAMIC_SHAPE:
            raise _Fallback()
        return
    if name == "nonzero" and kwargs.get("as_tuple"):
        raise RuntimeError("Batching rule not implemented for aten::nonzero_numpy. We could not "
                           "generate a fallback.")
    if name in _DYNAMIC_SHAPE:
        raise RuntimeError(
            "vmap: We do not support batching operators that can output dynamic shape. "
            f"Attempted to vmap over aten::{_DYNAMIC_SHAPE[name]}. Please file an issue at "
            "https://github.com/pytorch/pytorch/issues if you need this feature.")
    if name == "masked_select":
        mask = args[1] if len(args) > 1 else kwargs.get("mask")
        if isinstance(mask, BatchedTensor):
            raise RuntimeError(
                "vmap: Attempted to vmap over `mask` in gradrs.masked_select(self, mask) We "
                "cannot support this because for each batch this would return a differently "
                "shaped Tensor. Please file an issue at https://github.com/pytorch/pytorch/issues"
                " if you need this feature.")
        return
    if name in ("quantile", "nanquantile"):
        q = args[1] if len(args) > 1 else kwargs.get("q")
        _fallback_warning(name if _is_tensor(q) else f"{name}.scalar")
        return
    _fallback_warning(name)


def _per_sample(name, args, kwargs, lvl):
    """Tensor method ``name`` run on each sample and stacked (the per-op fallback)."""
    _torch_fallback_checks(name, args, kwargs)
    size = _batch_size(args + tuple(kwargs.values()), lvl)
    inplace = name.endswith("_") and not name.endswith("__")
    results = []
    for i in range(size):
        a = [_slice(x, lvl, i) for x in args]
        k = {n: _slice(v, lvl, i) for n, v in kwargs.items()}
        if not (_is_tensor(a[0])):
            raise _Fallback()
        results.append(getattr(a[0], name)(*a[1:], **k))
    if inplace:
        return args[0]
    if size == 0:
        raise _Fallback()
    return _stack_results(results, lvl)


# ---- BatchedTensor -------------------------------------------------------------------------


class BatchedTensor:
    """A tensor with a hidden batch dimension (dim 0 of ``_value``) of vmap level ``_level``;
    what the function given to `vmap` sees. Shapes and dims it reports are per sample."""

    __slots__ = ("_value", "_level")
    _vmap_level = True  # what the functional forms (`_forms.py`) recognize
    __array_priority__ = 1000  # numpy leaves `ndarray op BatchedTensor` to us

    def __init__(self, value, level):
        self._value = value
        self._level = level

    def _size(self):
        return self._value.shape[0]

    # -- metadata ---------------------------------------------------------------------------
    @property
    def shape(self):
        return self._value.shape[1:]

    def size(self, dim=None):
        return self.shape if dim is None else self.shape[_norm_dim(dim, self.dim())]

    def dim(self):
        return self._value.dim() - 1

    ndim = property(dim)

    def ndimension(self):
        return self.dim()

    def numel(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    def nelement(self):
        return self.numel()

    def __len__(self):
        if self.dim() == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def is_floating_point(self):
        return self._value.is_floating_point()

    def is_complex(self):
        return self._value.is_complex()

    def is_contiguous(self, memory_format=None):
        return self._value.is_contiguous()

    def __repr__(self):
        return f"BatchedTensor(lvl={self._level}, bdim=0, value=\n{self._value!r}\n)"

    # -- data-dependent Python conversions: functorch's errors where the user's function asks;
    # gradrs's own Python (a check that reads a value) runs per sample instead ----------------
    def item(self):
        raise _data_dependent(_ITEM)

    def __float__(self):
        raise _data_dependent(_ITEM)

    __int__ = __index__ = __complex__ = __float__

    def __bool__(self):
        raise _data_dependent(_CONTROL)

    def tolist(self):
        raise _data_dependent(_ITEM)

    def numpy(self, *, force=False):
        raise _data_dependent(_ITEM)

    @property
    def data(self):
        return BatchedTensor(self._value.data, self._level)

    @property
    def grad(self):
        g = self._value.grad
        return None if g is None else BatchedTensor(g, self._level)

    __hash__ = object.__hash__

    def __iter__(self):
        return iter(self.unbind(0))

    # -- everything else: the per-op fallback, or the physical tensor's attribute -----------
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        attr = getattr(Tensor, name, None)
        if attr is None:
            raise AttributeError(f"'Tensor' object has no attribute '{name}'")
        if callable(attr):
            return functools.partial(_per_sample_method, name, self)
        return getattr(self._value, name)  # dtype, device, requires_grad, ...


def _per_sample_method(name, self, *args, **kwargs):
    return _per_sample(name, (self,) + args, kwargs, _top((self,) + args + tuple(kwargs.values())))


def _rule(fn):
    """A batching rule ``fn(lvl, *args, **kwargs)`` as a BatchedTensor method: it runs at the
    innermost level among the arguments."""
    @functools.wraps(fn)
    def method(*args, **kwargs):
        lvl = _top(args + tuple(kwargs.values()))
        return fn(lvl, *args, **kwargs)
    return method


def _method(name):
    return lambda p, *a, **k: getattr(p, name)(*a, **k)


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
_BROADCAST_INPLACE = frozenset(("add_", "atan2_"))


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
        from .functional import broadcast_shapes

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


# ---- reductions and other ops along a dim -------------------------------------------------


def _dims(dim, rank):
    if isinstance(dim, (tuple, list)):
        return tuple(_norm_dim(d, rank) + 1 for d in dim)
    return _norm_dim(dim, rank) + 1


# Ops whose `dim` may be None (all dims), a dim, or a tuple of dims.
_MULTI_DIM = set("sum mean nansum amax amin logsumexp std var count_nonzero norm".split())
# Ops along one dim, whose dim=None reduces the flattened tensor.
_ONE_DIM = set("max min argmax argmin prod all any median nanmedian".split())
# Ops along one dim that keep the shape.
_ALONG = set("softmax log_softmax cumsum cumprod logcumsumexp cummax cummin flip".split())


def _reduction(name):
    def fn(lvl, self, *args, **kwargs):
        p = _phys(self, lvl)
        if p is None or any(_is_tensor(a) for a in args + tuple(kwargs.values())):
            return _per_sample(name, (self,) + args, kwargs, lvl)
        rank = p.dim() - 1
        args = list(args)
        if name == "norm":  # norm(p='fro', dim=None, keepdim=False)
            key, pos = "dim", 1
        else:
            key, pos = "dim", 0
        if key in kwargs:
            dim, where = kwargs[key], "kw"
        elif len(args) > pos and (isinstance(args[pos], (int, tuple, list)) or args[pos] is None):
            dim, where = args[pos], "pos"
        else:
            dim, where = None, None
        if name in ("std", "var") and isinstance(dim, bool):
            dim, where = None, None  # std(unbiased)
        if rank == 0 and dim is not None and name not in _ALONG:
            return _per_sample(name, (self,) + tuple(args), kwargs, lvl)
        if dim is None:
            if name in _ALONG:
                return _per_sample(name, (self,) + tuple(args), kwargs, lvl)
            if name in _MULTI_DIM:
                new = tuple(range(1, rank + 1))
                if rank == 0:
                    p, new = p.unsqueeze(1), (1,)
                if where is None:
                    return BatchedTensor(getattr(p, name)(*args, dim=new, **kwargs), lvl)
                return BatchedTensor(getattr(p, name)(*_put(args, pos, where, new),
                                                     **_putk(kwargs, where, new)), lvl)
            # one-dim ops over everything: the flattened sample
            flat = p.reshape(p.shape[0], -1)
            if where is None:
                out = getattr(flat, name)(1, *args, **kwargs)
            else:
                out = getattr(flat, name)(*_put(args, pos, where, 1), **_putk(kwargs, where, 1))
            return BatchedTensor(out.values if hasattr(out, "_fields") else out, lvl)
        if name in _ALONG and rank == 0:
            new = 1
            out = getattr(p.unsqueeze(1), name)(*_put(args, pos, where, new),
                                                **_putk(kwargs, where, new))
            return _wrap(out.squeeze(1) if _is_tensor(out) else out, lvl)
        new = _dims(dim, rank)
        out = getattr(p, name)(*_put(args, pos, where, new), **_putk(kwargs, where, new))
        return _wrap(out, lvl)
    return _rule(fn)


def _put(args, pos, where, value):
    if where != "pos":
        return tuple(args)
    a = list(args)
    a[pos] = value
    return tuple(a)


def _putk(kwargs, where, value):
    if where != "kw":
        return kwargs
    k = dict(kwargs)
    k["dim"] = value
    return k


for _name in _MULTI_DIM | _ONE_DIM | _ALONG:
    setattr(BatchedTensor, _name, _reduction(_name))


# ---- matmul --------------------------------------------------------------------------------


def _matmul(lvl, a, b):
    """``a @ b`` with either operand batched at ``lvl``: one native matmul."""
    pa, pb = _phys(a, lvl), _phys(b, lvl)
    ra, rb = _ldim(a), _ldim(b)
    if pa is None and pb is None:
        return a @ b
    if ra == 0 or rb == 0:  # PyTorch's error, from a sample
        return _per_sample("matmul", (a, b), {}, lvl)
    # One GEMM over the batch's rows where a vector meets an unbatched matrix.
    if pb is None and ra == 1 and rb <= 2:
        return BatchedTensor(pa @ b, lvl)
    if pa is None and rb == 1 and ra == 2:
        return BatchedTensor(pb @ a.mT, lvl)
    xa = a if pa is None else pa
    xb = b if pb is None else pb
    if ra == 1:  # (k) -> (1, k)
        xa = xa.unsqueeze(-2)
    if rb == 1:  # (k) -> (k, 1)
        xb = xb.unsqueeze(-1)
    r = max(ra, rb, 2)
    if pa is not None:
        xa = _pad(xa, r - max(ra, 2))
    if pb is not None:
        xb = _pad(xb, r - max(rb, 2))
    out = xa @ xb
    if ra == 1:
        out = out.squeeze(-2)
    if rb == 1:
        out = out.squeeze(-1)
    return BatchedTensor(out, lvl)


def _matmul_method(self, other):
    return _matmul(_top((self, other)), self, other)


BatchedTensor.matmul = BatchedTensor.__matmul__ = _matmul_method
BatchedTensor.__rmatmul__ = lambda self, other: _matmul(_top((self, other)), other, self)


def _fixed_rank(name, ra, rb):
    def fn(self, other):
        if (_ldim(self), _ldim(other)) != (ra, rb):
            return _per_sample(name, (self, other), {}, _top((self, other)))
        return _matmul(_top((self, other)), self, other)
    return fn


BatchedTensor.mm = _fixed_rank("mm", 2, 2)
BatchedTensor.bmm = _fixed_rank("bmm", 3, 3)
BatchedTensor.mv = _fixed_rank("mv", 2, 1)
BatchedTensor.dot = _fixed_rank("dot", 1, 1)


def _addmm(self, mat1, mat2, *, beta=1, alpha=1):
    prod = _matmul(_top((mat1, mat2)), mat1, mat2)
    if alpha != 1:
        prod = prod * alpha
    return prod + (self if beta == 1 else self * beta)


BatchedTensor.addmm = _addmm


# ---- views ----------------------------------------------------------------------------------


def _shape_arg(args):
    if len(args) == 1 and isinstance(args[0], (tuple, list)) or (
            len(args) == 1 and not isinstance(args[0], int)):
        return tuple(args[0])
    return tuple(args)


def _view(name):
    def fn(self, *shape):
        p = self._value
        if len(shape) == 1 and isinstance(shape[0], _native.dtype):
            return BatchedTensor(p.view(shape[0]), self._level)
        return BatchedTensor(getattr(p, name)(p.shape[0], *_shape_arg(shape)), self._level)
    return fn


BatchedTensor.view = _view("view")
BatchedTensor.reshape = _view("reshape")


def _view_as(self, other):
    return self.view(other.shape)


BatchedTensor.view_as = _view_as
BatchedTensor.reshape_as = lambda self, other: self.reshape(other.shape)


def _dimmed(name, ndims=1, extra=0):
    """A view along ``ndims`` dims given first (``extra`` more allowed in the rank)."""
    def fn(self, *args, **kwargs):
        rank = self.dim() + extra
        args = list(args)
        for i in range(ndims):
            if i < len(args):
                args[i] = _norm_dim(args[i], rank) + 1
        for k in ("dim", "dim0", "dim1", "start_dim", "end_dim", "source", "destination"):
            if k in kwargs:
                kwargs[k] = _norm_dim(kwargs[k], rank) + 1
        return _wrap(getattr(self._value, name)(*args, **kwargs), self._level)
    return fn


BatchedTensor.unsqueeze = _dimmed("unsqueeze", 1, extra=1)
BatchedTensor.transpose = BatchedTensor.swapaxes = BatchedTensor.swapdims = _dimmed("transpose", 2)
BatchedTensor.narrow = _dimmed("narrow")
BatchedTensor.select = _dimmed("select")
BatchedTensor.unflatten = _dimmed("unflatten")
BatchedTensor.tensor_split = lambda self, ind, dim=0: _wrap(
    self._value.tensor_split(ind, _norm_dim(dim, self.dim()) + 1), self._level)


def _split_like(name):
    def fn(self, size, dim=0):
        return _wrap(getattr(self._value, name)(size, _norm_dim(dim, self.dim()) + 1),
                     self._level)
    return fn


BatchedTensor.split = _split_like("split")
BatchedTensor.chunk = _split_like("chunk")


def _unbind(self, dim=0):
    return _wrap(self._value.unbind(_norm_dim(dim, self.dim()) + 1), self._level)


BatchedTensor.unbind = _unbind


def _flatten_m(self, start_dim=0, end_dim=-1):
    r = self.dim()
    p = self._value
    if r == 0:
        return BatchedTensor(p.reshape(p.shape[0], 1), self._level)
    return BatchedTensor(p.flatten(_norm_dim(start_dim, r) + 1, _norm_dim(end_dim, r) + 1),
                         self._level)


BatchedTensor.flatten = _flatten_m


def _squeeze(self, dim=None):
    p = self._value
    r = self.dim()
    shape = self.shape
    if dim is None:
        dims = [d for d in range(r) if shape[d] == 1]
    elif isinstance(dim, (tuple, list)):
        dims = [_norm_dim(d, r) for d in dim if r and shape[_norm_dim(d, r)] == 1]
    else:
        dims = [_norm_dim(dim, r)] if r and shape[_norm_dim(dim, r)] == 1 else []
    new = [s for d, s in enumerate(shape) if d not in dims]
    return BatchedTensor(p.reshape(p.shape[0], *new), self._level)


BatchedTensor.squeeze = _squeeze


def _permute(self, *dims):
    dims = _shape_arg(dims)
    r = self.dim()
    if len(dims) != r:
        return _per_sample("permute", (self, dims), {}, self._level)
    return BatchedTensor(self._value.permute(0, *(_norm_dim(d, r) + 1 for d in dims)),
                         self._level)


BatchedTensor.permute = _permute


def _movedim(self, source, destination):
    r = self.dim()
    if isinstance(source, int):
        source, destination = (source,), (destination,)
    return BatchedTensor(self._value.movedim(tuple(_norm_dim(s, r) + 1 for s in source),
                                             tuple(_norm_dim(d, r) + 1 for d in destination)),
                         self._level)


BatchedTensor.movedim = BatchedTensor.moveaxis = _movedim


def _t(self):
    if self.dim() < 2:
        return self
    if self.dim() > 2:
        return _per_sample("t", (self,), {}, self._level)
    return BatchedTensor(self._value.transpose(1, 2), self._level)


BatchedTensor.t = _t
BatchedTensor.T = property(lambda self: self.permute(*range(self.dim() - 1, -1, -1)))
BatchedTensor.mT = property(lambda self: self.transpose(-2, -1))


def _expand(self, *sizes):
    sizes = _shape_arg(sizes)
    p = _pad(self._value, len(sizes) - self.dim())
    return BatchedTensor(p.expand(p.shape[0], *sizes), self._level)


BatchedTensor.expand = _expand
BatchedTensor.expand_as = lambda self, other: self.expand(other.shape)
BatchedTensor.broadcast_to = _expand


def _repeat(self, *sizes):
    sizes = _shape_arg(sizes)
    if len(sizes) < self.dim():
        return _per_sample("repeat", (self,) + sizes, {}, self._level)
    p = _pad(self._value, len(sizes) - self.dim())
    return BatchedTensor(p.repeat(1, *sizes), self._level)


BatchedTensor.repeat = _repeat


# ---- indexing -------------------------------------------------------------------------------


def _index_dim(self, items):
    """The dim a lone batched index of ``items`` picks along, where every other item is a full
    slice (one Ellipsis allowed before it); None for any other key."""
    ks = [k for k, i in enumerate(items) if isinstance(i, BatchedTensor)]
    if len(ks) != 1:
        return None
    k = ks[0]
    full = slice(None)
    before, after = items[:k], items[k + 1:]
    if any(not (isinstance(i, slice) and i == full) for i in after):
        return None
    ellipsis = [i for i in before if i is Ellipsis]
    if any(not (i is Ellipsis or isinstance(i, slice) and i == full) for i in before) or len(
            ellipsis) > 1:
        return None
    d = self.dim() - (len(items) - k) if ellipsis else k
    return d if 0 <= d < self.dim() and len(items) - len(ellipsis) <= self.dim() else None


def _getitem_batched_index(self, items):
    """``x[:, ..., :, index, :]`` with one batched integer index and full slices around it.
    An unbatched ``x``: one native advanced index with the physical index (its batch dims
    land where the index stands); a batched ``x``: each sample picks along that dim with its
    own index (a gather of the flattened index)."""
    lvl = _top((self,) + items)
    d = _index_dim(self, items)
    k = next((n for n, i in enumerate(items) if isinstance(i, BatchedTensor)), None)
    pi = _phys(items[k], lvl) if k is not None else None
    if d is None or pi is None:
        return _per_sample("__getitem__", (self, items), {}, lvl)
    if pi.dtype in (_native.bool, _native.uint8):
        raise RuntimeError("vmap: We do not support batching operators that can support dynamic "
                           "shape. Attempting to batch over indexing with a boolean mask.")
    if _phys(self, lvl) is None:
        out = self[items[:k] + (pi,) + items[k + 1:]]
        return BatchedTensor(out.movedim(d, 0) if d else out, lvl)
    index = items[k]
    if not isinstance(pi, Tensor) or pi.dtype not in (_native.int64, _native.int32):
        return _per_sample("__getitem__", (self, items), {}, lvl)
    size = pi.shape[0]
    n = self.shape[d]
    if pi.numel() and bool(((pi < -n) | (pi >= n)).any()):
        return _per_sample("__getitem__", (self, items), {}, lvl)  # a sample's IndexError
    flat = BatchedTensor((pi % n).reshape(size, -1) if n else pi.reshape(size, -1), lvl)
    picked = _index_select_batched(self, d, flat)
    shape = tuple(self.shape[:d]) + tuple(index.shape) + tuple(self.shape[d + 1:])
    return picked.reshape(shape)


def _getitem(self, idx):
    lvl = self._level
    items = idx if isinstance(idx, tuple) else (idx,)
    if any(isinstance(i, BatchedTensor) for i in items):
        return _getitem_batched_index(self, items)
    tensor_pos = [k for k, i in enumerate(items)
                  if isinstance(i, (Tensor, list))]
    if tensor_pos and tensor_pos[-1] - tensor_pos[0] + 1 != len(tensor_pos):
        # Separated advanced indices move to the front: run per sample.
        return _per_sample("__getitem__", (self, idx), {}, lvl)
    if any(isinstance(i, bool) for i in items):
        return _per_sample("__getitem__", (self, idx), {}, lvl)
    return BatchedTensor(self._value[(slice(None),) + items], lvl)


def _setitem(self, idx, value):
    lvl = _top((self, value))
    if self._level != lvl or (isinstance(idx, BatchedTensor)):
        raise _Fallback()
    for i in range(self._size()):
        self._value.select(0, i)[idx] = _slice(value, lvl, i)


BatchedTensor.__getitem__ = _getitem
BatchedTensor.__setitem__ = _setitem


def _gather(self, dim, index, *, sparse_grad=False):
    lvl = _top((self, index))
    ps, pi = _phys(self, lvl), _phys(index, lvl)
    b = (ps if ps is not None else pi).shape[0]
    if ps is None:
        ps = self.unsqueeze(0).expand(b, *self.shape)
    if pi is None:
        pi = index.unsqueeze(0).expand(b, *index.shape)
    return BatchedTensor(ps.gather(_norm_dim(dim, ps.dim() - 1) + 1, pi), lvl)


def _take_along_dim(self, indices, dim=None):
    """PyTorch's take_along_dim: a gather after broadcasting every dim but ``dim``."""
    if dim is None:
        return _gather(self.reshape(-1), 0, indices.reshape(-1))
    if self.dim() != indices.dim():
        return _per_sample("take_along_dim", (self, indices, dim), {}, _top((self, indices)))
    d = _norm_dim(dim, self.dim())
    shape = []
    for k, (a, b) in enumerate(zip(self.shape, indices.shape)):
        if k != d and a != b and 1 not in (a, b):
            return _per_sample("take_along_dim", (self, indices, dim), {}, _top((self, indices)))
        shape.append(max(a, b))
    want_self = [s if k == d else shape[k] for k, s in enumerate(self.shape)]
    want_index = [s if k == d else shape[k] for k, s in enumerate(indices.shape)]
    return _gather(self.expand(want_self), d, indices.expand(want_index))


BatchedTensor.gather = _gather
BatchedTensor.take_along_dim = _take_along_dim


def _index_select(self, dim, index):
    if isinstance(index, BatchedTensor):
        return _index_select_batched(self, dim, index)
    return BatchedTensor(self._value.index_select(_norm_dim(dim, self.dim()) + 1, index),
                         self._level)


BatchedTensor.index_select = _index_select


# ---- an unbatched tensor's methods handed batched arguments -------------------------------
# `x[index]`, `W.matmul(v)`, `x.index_select(0, index)`, `gradrs.mul(x, b)`... with `x` a plain
# Tensor and the argument batched: the native method refuses the BatchedTensor. functorch
# dispatches on every argument; here, while a vmap that needs it runs, these methods of Tensor
# are wrapped so that such a call runs the batching rule (or raises PyTorch's in-place error)
# instead of sending the whole call to the per-sample loop. Installing them costs ~1 us a name
# (more under load), so `vmap` does it only for a function that met such a refusal, the common
# methods first (tier 1), all of them if it is refused again (tier 2); it then reruns batched,
# remembers the tier by the function's code, and puts them back when the outermost vmap
# returns: no op outside vmap pays for the check.

_PLAIN_COMMON = """
__getitem__ index_select gather take_along_dim matmul mm bmm mv dot addmm expand_as view_as
reshape_as type_as mul add sub div where masked_fill
""".split()
_PLAIN_RULES = _PLAIN_COMMON + [n for n in ("""
__setitem__ index_add index_copy index_fill scatter scatter_add masked_scatter atan2_ fmod_
hypot_ remainder_ floor_divide_ true_divide_ clamp_min_ clamp_max_ fill_ index_add_ index_copy_
index_fill_ scatter_ scatter_add_ masked_scatter_ index_put_ add_ sub_ mul_ div_ pow_ clamp_
copy_ masked_fill_ lerp_ addcmul_ addcdiv_
""".split() + [n for n in _BINARY if n not in ("eq", "ne", "lt", "le", "gt", "ge")])
    if n not in _PLAIN_COMMON]
_TIERS = {1: _PLAIN_COMMON, 2: _PLAIN_RULES}
_installed = {"count": 0, "saved": {}}
_install_lock = threading.Lock()
_PLAIN_TIER = weakref.WeakKeyDictionary()  # function code -> the tier its vmap needs


def _any_batched(values):
    for v in values:
        if isinstance(v, BatchedTensor):
            return True
        if isinstance(v, (tuple, list)) and any(isinstance(i, BatchedTensor) for i in v):
            return True
    return False


def _plain_getitem(self, idx):
    return _getitem_batched_index(self, idx if isinstance(idx, tuple) else (idx,))


def _plain_method(name, native):
    rule = _plain_getitem if name == "__getitem__" else BatchedTensor.__dict__.get(name)
    inplace = name == "__setitem__" or name.endswith("_") and not name.endswith("__")

    def method(self, *args, **kwargs):
        if _level() == 0 or not _any_batched(args) and not _any_batched(kwargs.values()):
            return native(self, *args, **kwargs)
        values = args + tuple(kwargs.values())
        lvl = _top(values)
        if inplace:
            if sys._getframe(1).f_code.co_filename.startswith(_PACKAGE):
                raise _Fallback()  # gradrs's own Python: its per-sample run is the reference
            if name == "__setitem__" and _any_batched(
                    args[0] if isinstance(args[0], tuple) else (args[0],)):
                raise _inplace_error("index_put_", lvl, self, values)
            raise _inplace_error(name, lvl, self, values)
        if rule is None:
            return _per_sample(name, (self,) + args, kwargs, lvl)
        return rule(self, *args, **kwargs)
    method.__name__ = name
    method.__doc__ = native.__doc__
    return method


def _enter_plain_rules(tier):
    with _install_lock:
        _installed["count"] += 1
        saved = _installed["saved"]
        for name in _TIERS[tier]:
            if name not in saved:
                native = Tensor.__dict__.get(name)
                if native is not None:
                    saved[name] = native
                    setattr(Tensor, name, _plain_method(name, native))


def _exit_plain_rules():
    with _install_lock:
        _installed["count"] -= 1
        if _installed["count"] == 0:
            for name, native in _installed["saved"].items():
                setattr(Tensor, name, native)
            _installed["saved"].clear()


def _code(func):
    """The code object ``func`` runs (what remembers that it needs the plain rules)."""
    while isinstance(func, functools.partial):
        func = func.func
    func = getattr(func, "__func__", func)
    return getattr(func, "__code__", None) or type(func)  # a callable object: its class


# ---- functions of several tensors (gradrs.stack / cat / where) ------------------------------


def _cat(tensors, dim=0, _phys_dim=None):
    """``cat`` of tensors some of which are batched: one native cat of the physicals."""
    lvl = _top(tensors)
    if lvl == 0:
        return _native.cat(tensors, dim if _phys_dim is None else _phys_dim)
    rank = max(_ldim(t) for t in tensors)
    d = _norm_dim(dim, rank) + 1 if _phys_dim is None else _phys_dim + 1
    b = next(t for t in tensors if _phys(t, lvl) is not None)._size()
    parts = [_phys(t, lvl) if _phys(t, lvl) is not None else t.unsqueeze(0).expand(b, *t.shape)
             for t in tensors]
    return BatchedTensor(_cat(parts, _phys_dim=d), lvl)


def _where(condition, input, other):
    """``gradrs.where`` with batched operands: one native where of the aligned physicals."""
    from . import where

    lvl = _top((condition, input, other))
    c, a, b = _align([condition, input, other], lvl)
    return BatchedTensor(where(c, a, b), lvl)


def _stack_fn(tensors, dim=0):
    rank = max(_ldim(t) for t in tensors) + 1
    return _cat([t.unsqueeze(_norm_dim(dim, rank)) for t in tensors], dim)


# ---- vmap itself ---------------------------------------------------------------------------


def _name(func):
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return repr(func)


def _broadcast_flat(tree, spec):
    """``tree`` (ints / None, or containers of them) spread over ``spec``'s leaves, or None
    where the structures do not match (PyTorch's `_broadcast_to_and_flatten`)."""
    if spec is None:
        return None if isinstance(tree, (tuple, list, dict)) else [tree]
    if not isinstance(tree, (tuple, list, dict)):
        return [tree] * _count(spec)
    kind, subs = spec
    if type(tree) is not kind or len(tree) != len(subs):
        return None
    out = []
    if kind is dict:
        if list(tree) != [k for k, _ in subs]:
            return None
        pairs = [(tree[k], s) for k, s in subs]
    else:
        pairs = list(zip(tree, subs))
    for t, s in pairs:
        r = _broadcast_flat(t, s)
        if r is None:
            return None
        out += r
    return out


def _count(spec):
    if spec is None:
        return 1
    return sum(_count(s) for _, s in spec[1]) if spec[0] is dict else sum(
        _count(s) for s in spec[1])


def _dims_spec(tree):
    return _spec_str(_flatten(tree)[1])


def _process_inputs(func, in_dims, args):
    name = _name(func)
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to "
                         "be int or a (potentially nested) tuple matching the structure of "
                         f"inputs, got: {type(in_dims)}.")
    if len(args) == 0:
        raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add "
                         "inputs, or you are trying to vmap over a function with no inputs. "
                         "The latter is unsupported.")
    flat, spec = _flatten(args)
    flat_dims = _broadcast_flat(in_dims, spec)
    if flat_dims is None:
        raise ValueError(
            f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with "
            f"the structure of `inputs`. in_dims has structure {_dims_spec(in_dims)} but inputs "
            f"has structure {_spec_str(spec)}.")
    for i, (arg, d) in enumerate(zip(flat, flat_dims)):
        if d is not None and (not isinstance(d, int) or isinstance(d, bool)):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} "
                             "for an input but in_dim must be either an integer dimension or "
                             "None.")
        if d is not None and not _is_tensor(arg):
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input "
                f"but the input is of type {type(arg)}. We cannot vmap over non-Tensor "
                "arguments, please use None as the respective in_dim")
        if d is not None and not -arg.dim() <= d < arg.dim():
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some "
                f"input, but that input is a Tensor of dimensionality {arg.dim()} so expected "
                f"in_dim to satisfy -{arg.dim()} <= in_dim < {arg.dim()}.")
        if d is not None:
            flat_dims[i] = d % arg.dim()
    sizes = [a.size(d) for a, d in zip(flat, flat_dims) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    return sizes[0], flat, flat_dims, spec


def _check_out_dims(func, out_dims):
    def bad():
        raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an "
                         "int, None or a python collection of ints representing where in the "
                         "outputs the vmapped dimension should appear.")
    if isinstance(out_dims, (tuple, list, dict)):
        for d in _flatten(out_dims)[0]:
            if d is not None and not isinstance(d, int):
                bad()
    elif out_dims is not None and not isinstance(out_dims, int):
        bad()


def _flat_out_dims(func, out_dims, output, spec):
    def incompatible():
        raise ValueError(
            f"vmap({_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is not "
            "compatible with the structure of `outputs`. out_dims has structure "
            f"{_dims_spec(out_dims)} but outputs has structure {_spec_str(spec)}.")
    if _is_tensor(output):
        if isinstance(out_dims, int) or out_dims is None:
            return [out_dims]
        if isinstance(out_dims, tuple) and len(out_dims) == 1:
            return list(out_dims)
        incompatible()
    flat = _broadcast_flat(out_dims, spec)
    if flat is None:
        incompatible()
    return flat


def _rng_state():
    return _native.get_rng_state()


def _same_state(a, b):
    return bool(_native.equal(a, b))


def _move_out(name, x, lvl, size, out_dim, batched_mode):
    """One output leaf with the level's batch moved to ``out_dim`` (PyTorch's checks)."""
    if out_dim is None:
        if batched_mode and isinstance(x, BatchedTensor) and x._level == lvl:
            raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when "
                             "out_dim is None")
        return x
    if not _is_tensor(x):
        raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                         f"{type(x)}. Did you mean to set out_dims= to None for output?")
    p = _phys(x, lvl)
    if p is None:  # does not depend on the batch: every sample's is the same
        p = x.unsqueeze(0).expand(size, *x.shape)
    return p.movedim(0, _norm_dim(out_dim, p.dim()))


class _Refused(_Fallback):
    """A native function or method refused a BatchedTensor."""


def _batched_call(func, size, flat, flat_dims, spec, out_dims, kwargs, plain_rules):
    """The function run once on BatchedTensors (raises `_Fallback` where it cannot be), with
    the plain-tensor rules of tier ``plain_rules`` (0: none) installed."""
    lvl = _level() + 1
    args = [a if d is None else BatchedTensor(a.movedim(d, 0), lvl)
            for a, d in zip(flat, flat_dims)]
    if plain_rules:
        _enter_plain_rules(plain_rules)
    _state.level = lvl
    live = getattr(_state, "sizes", {})
    _state.sizes = {**live, lvl: size}  # what a nested transform expands its leaves over
    try:
        out = func(*_unflatten(args, spec), **kwargs)
    except (TypeError, IndexError, ValueError, RuntimeError) as e:
        # A native function or method refusing a BatchedTensor names it.
        if "BatchedTensor" in str(e):
            raise _Refused() from e
        raise
    finally:
        _state.level = lvl - 1
        _state.sizes = live
        if plain_rules:
            _exit_plain_rules()
    name = _name(func)
    flat_out, out_spec = _flatten(out)
    dims = _flat_out_dims(func, out_dims, out, out_spec)
    return _unflatten([_move_out(name, x, lvl, size, d, True)
                       for x, d in zip(flat_out, dims)], out_spec)


def _loop_call(func, size, flat, flat_dims, spec, out_dims, kwargs, randomness, state):
    """The function run once per sample and the outputs stacked (the per-call fallback)."""
    outs = []
    for i in range(size):
        if randomness == "same":
            _native.set_rng_state(state)
        args = [a if d is None else a.select(d, i) for a, d in zip(flat, flat_dims)]
        outs.append(func(*_unflatten(args, spec), **kwargs))
        if randomness == "error" and i == 0 and not _same_state(state, _rng_state()):
            raise RuntimeError(_RANDOM)
    name = _name(func)
    if size == 0:  # no sample gives the outputs' shapes (gradrs's own limit, not PyTorch's)
        raise RuntimeError(f"vmap({name}, ...): over a batch of size 0, `{name}` must be covered "
                           "by batching rules: the per-sample fallback has no sample to run")
    out_spec = _flatten(outs[0])[1]
    dims = _flat_out_dims(func, out_dims, outs[0], out_spec)
    per_leaf = list(zip(*[_flatten(o)[0] for o in outs]))
    result = []
    for leaves, d in zip(per_leaf, dims):
        if d is None:
            result.append(leaves[0])
            continue
        for x in leaves:
            if not _is_tensor(x):
                raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got "
                                 f"type {type(x)}. Did you mean to set out_dims= to None for "
                                 "output?")
        st = _stack(list(leaves))
        result.append(st.movedim(0, _norm_dim(d, st.dim())))
    return _unflatten(result, out_spec)


def _vmap_once(func, size, flat, flat_dims, spec, out_dims, randomness, kwargs):
    state = _rng_state()
    outer_randomness = getattr(_state, "randomness", "error")
    _state.randomness = randomness  # what a Function's vmap staticmethod is told
    code = _code(func)
    tier = _PLAIN_TIER.get(code, 0)

    def batched():
        out = _batched_call(func, size, flat, flat_dims, spec, out_dims, kwargs, tier)
        if not _same_state(state, _rng_state()):
            if randomness == "error":
                raise RuntimeError(_RANDOM)
            raise _Fallback()  # random ops must draw per sample ('different') or repeat
        return out

    try:
        while True:
            try:
                return batched()
            except _Refused:
                if tier == 2:
                    raise
                # Perhaps an unbatched tensor's method refused a batched argument: again with
                # (more of) the methods that take them (Note above `_PLAIN_RULES`).
                _native.set_rng_state(state)
                tier += 1
                _PLAIN_TIER[code] = tier
    except _Fallback:
        _native.set_rng_state(state)
        return _loop_call(func, size, flat, flat_dims, spec, out_dims, kwargs, randomness, state)
    finally:
        _state.randomness = outer_randomness


def vmap_impl(func, in_dims, out_dims, randomness, chunk_size, args, kwargs):
    _check_out_dims(func, out_dims)
    size, flat, flat_dims, spec = _process_inputs(func, in_dims, args)
    if chunk_size is None or chunk_size >= size:
        return _vmap_once(func, size, flat, flat_dims, spec, out_dims, randomness, kwargs)
    bounds = list(range(chunk_size, size, chunk_size))
    state = _rng_state() if randomness == "same" else None
    chunks = []
    for k in range(len(bounds) + 1):
        lo = 0 if k == 0 else bounds[k - 1]
        hi = size if k == len(bounds) else bounds[k]
        part = [a if d is None else a.narrow(d, lo, hi - lo) for a, d in zip(flat, flat_dims)]
        if state is not None:
            _native.set_rng_state(state)
        chunks.append(_vmap_once(func, hi - lo, part, flat_dims, spec, out_dims, randomness,
                                 kwargs))
    flat_chunks = [_flatten(c)[0] for c in chunks]
    out_spec = _flatten(chunks[0])[1]
    dims = _flat_out_dims(func, out_dims, chunks[0], out_spec)
    result = []
    for k, d in enumerate(dims):
        leaves = [c[k] for c in flat_chunks]
        result.append(leaves[0] if d is None else _cat_any(leaves, d))
    return _unflatten(result, out_spec)


def _cat_any(leaves, d):
    if any(isinstance(x, BatchedTensor) for x in leaves):
        return _cat(leaves, d)
    return _native.cat(leaves, d)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``func`` mapped over a dimension of its inputs (PyTorch's ``torch.func.vmap``)."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return vmap_impl(func, in_dims, out_dims, randomness, chunk_size, args, kwargs)

    return wrapped



# ---- several vmap levels at once (vmap(vmap(grad(f))), vmap(hessian(f))) ------------------
# A transform's differentiated inputs become native leaves batched at EVERY live level (one
# leading dim per level, the outermost first), wrapped once per level; one backward of the
# outputs, brought to the same full layout, gives every sample's gradient at every level.


def _levels(values):
    """The vmap levels among ``values``' BatchedTensors (nested ones too) and every live level
    (a closure may bring an outer level's tensor in), innermost first, with their sizes."""
    sizes = {}
    for v in values:
        while isinstance(v, BatchedTensor):
            sizes.setdefault(v._level, v._size())
            v = v._value
    for lvl, size in getattr(_state, "sizes", {}).items():
        if lvl <= _level():
            sizes.setdefault(lvl, size)
    return sorted(sizes, reverse=True), sizes


def _full(x, levels, sizes):
    """``x`` as one native tensor with a leading dim per level of ``levels`` (the outermost
    first), expanded (a view) over the levels it is not batched at; None where a level below
    is not ours to unwrap."""
    for lvl in levels:
        if isinstance(x, BatchedTensor) and x._level == lvl:
            x = x._value
        elif isinstance(x, BatchedTensor) and x._level > lvl:
            return None
        else:
            x = x.unsqueeze(0).expand(sizes[lvl], *x.shape)
    return x if isinstance(x, Tensor) else None


def _is_full(x, levels):
    """Whether ``x`` is batched at every one of ``levels`` over a native tensor."""
    for lvl in levels:
        if not (isinstance(x, BatchedTensor) and x._level == lvl):
            return False
        x = x._value
    return isinstance(x, Tensor)


def _rewrap(t, levels):
    """A native tensor laid out as `_full` makes it, wrapped back into its levels."""
    for lvl in reversed(levels):
        t = BatchedTensor(t, lvl)
    return t


def _nested_leaves(flat_d, levels, sizes):
    """Fresh native leaves, batched at every level, for the inputs a nested transform
    differentiates; under a dual level (``hessian`` = jacfwd of jacrev) each keeps its input's
    tangent. An input in an outer graph takes the per-call fallback."""
    from .autograd import forward_ad as _fwAD

    leaves = []
    for d in flat_d:
        if not _is_tensor(d) or (d.requires_grad and _native.is_grad_enabled()):
            raise _Fallback()
        full = _full(d, levels, sizes)
        if full is None:
            raise _Fallback()
        primal, tangent = _fwAD._unpack_dual(full)
        leaf = primal.detach()
        if tangent is not None and not _is_full(d, levels):
            # copies: a dual's tangent follows its primal's layout (an expanded one refuses)
            leaf, tangent = leaf.contiguous(), tangent.contiguous()
        leaf = leaf.requires_grad_()
        leaves.append(leaf if tangent is None else _fwAD._make_dual(leaf, tangent))
    return leaves


def batched_grad_and_value(func, nums, has_aux, args, kwargs):
    """`grad_and_value` inside `vmap`: each differentiated input becomes a batched leaf (an
    unbatched one is expanded over the batch, a view, no copy), the function runs batched, and
    one backward of the per-sample outputs gives every sample's gradient at once, since no
    sample's output depends on another sample's slice of the leaves."""
    from ._grad_mode import enable_grad
    from .autograd import forward_ad as _fwAD
    from .autograd import grad as _grad
    from .func import _pick, _replace

    flat_all = _flatten((args, kwargs))[0]
    lvl = _top(flat_all)
    flat_d, spec_d = _flatten(_pick(args, nums))
    levels, sizes = _levels(flat_all)
    if len(levels) > 1:
        return _nested_grad_and_value(func, nums, has_aux, args, kwargs, flat_d, spec_d,
                                      levels, sizes)
    size = next(x for x in flat_all if _phys(x, lvl) is not None)._size()
    leaves = []
    for d in flat_d:
        p = _phys(d, lvl)
        tangent = None
        # An input in an outer graph (an enclosing grad's) stays connected to it, so the
        # gradients are differentiable with respect to it (`func._create_differentiable`).
        outer = _is_tensor(d) and d.requires_grad and _native.is_grad_enabled()
        if p is None:
            if not isinstance(d, Tensor):
                raise _Fallback()
            # Under a dual level (jacfwd of this), the leaf keeps the input's tangent.
            tangent = _fwAD.unpack_dual(d).tangent
            p = (d if outer else d.detach()).unsqueeze(0).expand(size, *d.shape)
            if tangent is not None:  # copies: a dual's tangent follows its primal's layout
                p = p.contiguous()
                tangent = tangent.unsqueeze(0).expand(size, *d.shape).contiguous()
        elif not isinstance(p, Tensor) or _fwAD.unpack_dual(p).tangent is not None:
            raise _Fallback()
        if outer:
            leaf = p.view_as(p)  # made of the dual input, p already carries its tangent
            if tangent is not None and _fwAD._unpack_dual(leaf).tangent is None:
                leaf = _fwAD._make_dual(_fwAD._unpack_dual(leaf).primal, tangent)
        else:
            leaf = p.detach().requires_grad_()
            leaf = leaf if tangent is None else _fwAD.make_dual(leaf, tangent)
        leaves.append(leaf)
    diff = _unflatten([BatchedTensor(leaf, lvl) for leaf in leaves], spec_d)
    with enable_grad():
        output = func(*_replace(args, nums, diff), **kwargs)
        aux = None
        if has_aux:
            if not (isinstance(output, tuple) and len(output) == 2):
                raise RuntimeError("grad_and_value(f)(*args): output of function f should be a "
                                   "tuple: (output, aux) if has_aux is True")
            output, aux = output
        if not _is_tensor(output):
            raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a "
                               f"Tensor, got {type(output)}")
        if output.dim() != 0:
            raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a scalar "
                               f"Tensor, got tensor with {output.dim()} dims. Maybe you wanted "
                               "to use the vjp or jacrev APIs instead?")
        po = _phys(output, lvl)
        if po is not None and not isinstance(po, Tensor):
            raise _Fallback()
        from .func import _detached, _keeps_history
        keep = _keeps_history(flat_d, leaves, [po] if po is not None else [])
        if po is not None and po.requires_grad:
            grads = _grad(po, leaves, _native.ones_like(po), create_graph=keep,
                          allow_unused=True)
        else:
            grads = [None] * len(leaves)
    grads = [BatchedTensor(g if g is not None else _native.zeros_like(leaf), lvl)
             for g, leaf in zip(grads, leaves)]
    if po is not None and not (_native.is_grad_enabled() and keep):
        output = BatchedTensor(po.detach(), lvl)
    if has_aux and not keep:
        aux = _detached(aux)
    grads = _unflatten(grads, spec_d)
    return (grads, (output, aux)) if has_aux else (grads, output)


def _nested_grad_and_value(func, nums, has_aux, args, kwargs, flat_d, spec_d, levels, sizes):
    """`batched_grad_and_value` over several vmap levels (see `_full`)."""
    from ._grad_mode import enable_grad
    from .autograd import grad as _grad
    from .func import _detached, _keeps_history, _replace

    leaves = _nested_leaves(flat_d, levels, sizes)
    diff = _unflatten([_rewrap(leaf, levels) for leaf in leaves], spec_d)
    with enable_grad():
        output = func(*_replace(args, nums, diff), **kwargs)
        aux = None
        if has_aux:
            if not (isinstance(output, tuple) and len(output) == 2):
                raise RuntimeError("grad_and_value(f)(*args): output of function f should be a "
                                   "tuple: (output, aux) if has_aux is True")
            output, aux = output
        if not _is_tensor(output):
            raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a "
                               f"Tensor, got {type(output)}")
        if output.dim() != 0:
            raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a scalar "
                               f"Tensor, got tensor with {output.dim()} dims. Maybe you wanted "
                               "to use the vjp or jacrev APIs instead?")
        po = _full(output, levels, sizes)
        if po is None:
            raise _Fallback()
        keep = _keeps_history(flat_d, leaves, [po])
        if po.requires_grad:
            grads = _grad(po, leaves, _native.ones_like(po), create_graph=keep,
                          allow_unused=True)
        else:
            grads = [None] * len(leaves)
    grads = [_rewrap(g if g is not None else _native.zeros_like(leaf), levels)
             for g, leaf in zip(grads, leaves)]
    if not (_native.is_grad_enabled() and keep):
        output = output.detach()
    if has_aux and not keep:
        aux = _detached(aux)
    grads = _unflatten(grads, spec_d)
    return (grads, (output, aux)) if has_aux else (grads, output)


def batched_dual(primal, tangent, lvl):
    """A dual tensor of ``lvl`` (`jvp` inside vmap): primal and tangent batched, either expanded
    over the batch where it is not. Nested levels (``vmap(jacfwd(f))``) recurse: the dual is
    made of the innermost physicals and wrapped once per level."""
    from .autograd import forward_ad as _fwAD

    if lvl == 0:
        return _fwAD._make_dual(primal, tangent)
    pp, pt = _phys(primal, lvl), _phys(tangent, lvl)
    if pp is None and pt is None:
        return batched_dual(primal, tangent, _top((primal, tangent)))
    size = (pp if pp is not None else pt).shape[0]
    # Copies, not stride-0 views: a dual's tangent follows its primal's layout.
    if pp is None:
        if isinstance(primal, Tensor) and any(
                st == 0 and n > 1 for st, n in zip(primal.stride(), primal.shape)):
            # PyTorch copies the batched tangent into the primal's (overlapping) layout.
            raise RuntimeError(
                "unsupported operation: more than one element of the written-to tensor refers "
                "to a single memory location. Please clone() the tensor before performing the "
                "operation.")
        pp = primal.unsqueeze(0).expand(size, *primal.shape).contiguous()
    if pt is None:
        pt = tangent.unsqueeze(0).expand(size, *tangent.shape).contiguous()
    return BatchedTensor(batched_dual(pp, pt, _top((pp, pt))), lvl)


def unpack_batched_dual(out, lvl):
    """``(primal, tangent)`` of a `jvp` output inside vmap (tangent None where it has none),
    through every level of a nested vmap."""
    from .autograd import forward_ad as _fwAD

    if not isinstance(out, BatchedTensor):
        return _fwAD._unpack_dual(out)
    primal, tangent = unpack_batched_dual(out._value, lvl)
    return BatchedTensor(primal, out._level), (None if tangent is None
                                               else BatchedTensor(tangent, out._level))


def first_sample(tree, lvl):
    """``tree`` with each BatchedTensor of ``lvl`` replaced by its first sample (values a
    vmapped function computed the same for every sample)."""
    flat, spec = _flatten(tree)
    out = []
    for x in flat:
        p = _phys(x, lvl)
        out.append(x if p is None else p.select(0, 0))
    return _unflatten(out, spec)


def batched_autograd_grad(outs, ins, gos, retain_graph, create_graph, allow_unused):
    """`autograd.grad` handed BatchedTensors (Note [vmap]). Outputs and inputs batched at the
    innermost level: one backward of the physical outputs, since no sample's output reads
    another sample's slice of the inputs. Outputs and inputs unbatched with batched
    grad_outputs (a batch of vectors for one graph, as gradcheck's check_batched_grad and
    `vjp_fn` under vmap ask): `is_grads_batched`'s backward per vector over the one graph,
    never the function rerun. Anything else (an unbatched input of a batched output, whose
    per-sample gradient is not a slice of one backward) takes the per-call fallback."""
    from .autograd import _batched_grad

    lvl = _top(list(outs) + list(ins) + list(gos or []))
    if gos is None:
        gos = [None] * len(outs)
    if len(gos) != len(outs):
        raise _Fallback()  # the per-sample call raises PyTorch's count message
    levels, sizes = _levels(list(outs) + list(ins) + list(gos))
    if len(levels) > 1:
        return _nested_autograd_grad(outs, ins, gos, levels, sizes, retain_graph,
                                     create_graph, allow_unused)
    if any(isinstance(t, BatchedTensor) for t in list(outs) + list(ins)):
        if not all(_phys(t, lvl) is not None for t in ins):
            raise _Fallback()
        pins = [_phys(t, lvl) for t in ins]
        pouts, pgos = [], []
        for o, g in zip(outs, gos):
            po = _phys(o, lvl)
            if po is None:
                if isinstance(o, BatchedTensor):
                    raise _Fallback()
                continue  # reads no batched input: nothing of it reaches the inputs
            if g is None:
                if o.numel() != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                g = _native.ones_like(po)
            else:
                pg = _phys(g, lvl)
                g = pg if pg is not None else g.unsqueeze(0).expand(po.shape)
            pouts.append(po)
            pgos.append(g)
        if not all(isinstance(t, Tensor) for t in pins + pouts + pgos):
            raise _Fallback()
        if not pouts:
            raise _Fallback()
        grads = _native._grad(pouts, pins, pgos, retain_graph, create_graph, allow_unused)
        return tuple(None if g is None else BatchedTensor(g, lvl) for g in grads)
    size = next(g for g in gos if _phys(g, lvl) is not None)._size()
    pgos = []
    for g in gos:
        pg = _phys(g, lvl)
        if pg is None:
            if g is None:
                raise _Fallback()  # an implicit ones per sample: the per-call run says so
            pg = g.unsqueeze(0).expand(size, *g.shape)
        if not isinstance(pg, Tensor):
            raise _Fallback()
        pgos.append(pg)
    grads = _batched_grad(list(outs), list(ins), pgos, retain_graph, create_graph, allow_unused)
    return tuple(None if g is None else BatchedTensor(g, lvl) for g in grads)


def _nested_autograd_grad(outs, ins, gos, levels, sizes, retain_graph, create_graph,
                         allow_unused):
    """`batched_autograd_grad` over several vmap levels: inputs that are leaves of every level
    (`vjp` inside nested vmaps makes them so), one backward of the full-layout outputs."""
    if not all(_is_full(t, levels) for t in ins):
        raise _Fallback()
    pins = [_full(t, levels, sizes) for t in ins]
    pouts, pgos = [], []
    for o, g in zip(outs, gos):
        po = _full(o, levels, sizes) if _is_tensor(o) else None
        if po is None:
            raise _Fallback()
        if not po.requires_grad:
            continue  # reads no input of the batch: nothing of it reaches them
        if g is None:
            if o.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            pg = _native.ones_like(po)
        else:
            pg = _full(g, levels, sizes)
            if pg is None:
                raise _Fallback()
        pouts.append(po)
        pgos.append(pg)
    if not pouts:
        raise _Fallback()
    grads = _native._grad(pouts, pins, pgos, retain_graph, create_graph, allow_unused)
    return tuple(None if g is None else _rewrap(g, levels) for g in grads)


# ---- nn.functional rules: convolution, embedding, losses (functorch's batch rules) ----------


def _expand_to(x, size):
    """``x`` (unbatched) repeated over a batch of ``size`` as a stride-0 view."""
    return x.unsqueeze(0).expand(size, *x.shape)


def _plain(*ts):
    """Whether every physical is a native tensor (a nested level's rule is not ours)."""
    return all(t is None or isinstance(t, Tensor) for t in ts)


def conv(input, weight, bias, stride, padding, dilation, groups, nd):
    """F.conv{nd}d with batched operands, one native convolution (functorch's rule): a batched
    input alone folds the vmap batch into the conv batch; a batched weight folds it into the
    output channels of each group; both batched fold it into the groups. A batched bias is
    added after."""
    from .nn import functional as F

    lvl = _top((input, weight, bias))
    pi, pw, pb = _phys(input, lvl), _phys(weight, lvl), _phys(bias, lvl)
    if not _plain(pi, pw, pb) or any(isinstance(t, BatchedTensor) and _phys(t, lvl) is None
                                     for t in (input, weight, bias)):
        raise _Fallback()
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to conv{nd}d, but got "
            f"input of size: {list(input.shape)}")
    size = next(p for p in (pi, pw, pb) if p is not None).shape[0]
    unbatched = input.dim() == nd + 1
    if pb is not None:
        if pi is None and pw is None:
            out = F._conv(input, weight, None, stride, padding, dilation, groups, nd)
        else:
            out = conv(input, weight, None, stride, padding, dilation, groups, nd)
        return out + BatchedTensor(pb.reshape(size, -1, *([1] * nd)), lvl)
    if pw is None:
        # (B, [N,] C, *) -> (B * N, C, *): the batch of samples is the conv's batch.
        x = pi if unbatched else pi.reshape(-1, *pi.shape[2:])
        out = F._conv(x, weight, bias, stride, padding, dilation, groups, nd)
        return BatchedTensor(out if unbatched else out.reshape(size, -1, *out.shape[1:]), lvl)
    x = input if pi is None else pi
    if pi is not None and unbatched:
        x = x.unsqueeze(1)  # (B, 1, C, *)
    elif pi is None and unbatched:
        x = x.unsqueeze(0)
    cout = pw.shape[1]
    g = groups
    # (B, Cout, Cin/g, *k) -> (g * B * Cout/g, Cin/g, *k) (group-major) or, with a batched
    # input, (B * Cout, ...) whose groups are B * g.
    if pi is None:
        w = pw.reshape(size, g, cout // g, *pw.shape[2:]).transpose(0, 1)
        w = w.reshape(size * cout, *pw.shape[2:])
        out = F._conv(x, w, None, stride, padding, dilation, g, nd)  # (N, g*B*Cout/g, *)
        out = out.reshape(out.shape[0], g, size, cout // g, *out.shape[2:])
        out = out.movedim(2, 0).reshape(size, out.shape[0], cout, *out.shape[4:])
    else:
        n = x.shape[1]
        xi = x.transpose(0, 1).reshape(n, size * x.shape[2], *x.shape[3:])
        w = pw.reshape(size * cout, *pw.shape[2:])
        out = F._conv(xi, w, None, stride, padding, dilation, size * g, nd)  # (N, B*Cout, *)
        out = out.reshape(n, size, cout, *out.shape[2:]).transpose(0, 1)
    return BatchedTensor(out.squeeze(1) if unbatched else out, lvl)


def embedding(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse):
    """F.embedding with batched indices (one lookup of the physical indices) or a batched weight
    with batched indices (the samples' tables stacked, the indices offset into them)."""
    from . import arange
    from .nn import functional as F

    lvl = _top((input, weight))
    pi, pw = _phys(input, lvl), _phys(weight, lvl)
    if not _plain(pi, pw):
        raise _Fallback()
    if pw is None:
        if isinstance(weight, BatchedTensor):
            raise _Fallback()
        return BatchedTensor(F.embedding(pi, weight, padding_idx, max_norm, norm_type,
                                         scale_grad_by_freq, sparse), lvl)
    if pi is None or max_norm is not None or scale_grad_by_freq or padding_idx is not None:
        raise _Fallback()  # the per-sample lookup (a batched table read with shared indices)
    if pw.dim() != 3:
        raise RuntimeError("'weight' must be 2-D")
    size, rows = pw.shape[0], pw.shape[1]
    if input.device.type == "cpu" and pi.numel() and bool(((pi < 0) | (pi >= rows)).any()):
        raise IndexError("index out of range in self")
    offset = (arange(size, device=pi.device) * rows).reshape(size, *([1] * (pi.dim() - 1)))
    out = F.embedding(pi + offset, pw.reshape(size * rows, pw.shape[2]), None, None,
                      norm_type, False, sparse)
    return BatchedTensor(out, lvl)


def _fold_loss(input, target, lvl, classes_first):
    """Physical input and target of a per-element loss with the vmap batch folded into the
    loss's batch: (B, N, C, *) -> (B * N, C, *); a sample without a batch dim (C) keeps B as
    N. Returns them and the per-sample shape of the unreduced loss."""
    pi, pt = _phys(input, lvl), _phys(target, lvl)
    size = (pi if pi is not None else pt).shape[0]
    if input.dim() >= 2 and target.dim() >= 1 and input.shape[0] != target.shape[0]:
        # a sample's sizes, checked before the fold hides them
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                         f"batch_size ({target.shape[0]}).")
    if pi is None:
        pi = _expand_to(input, size)
    if pt is None:
        pt = _expand_to(target, size)
    if input.dim() <= 1:
        return pi, pt, ()
    shape = (input.shape[0],) + tuple(input.shape[2:])
    return pi.reshape(-1, *pi.shape[2:]), pt.reshape(-1, *pt.shape[2:]), shape


def _loss_reduce(none, size, shape, reduction, denom):
    per = none.reshape(size, *shape)
    if reduction == "none":
        return per
    total = per.reshape(size, -1).sum(1)
    return total if reduction == "sum" else total / denom


def _class_weight_total(pt, weight, ignore_index, size, dtype):
    """Each sample's sum of the kept targets' class weights (the 'mean' denominator)."""
    from . import where

    keep = pt != ignore_index
    if weight is None:
        w = keep.to(dtype)
    else:
        # the weight is not differentiated through nll_loss (PyTorch's op is not)
        w = weight.detach()[where(keep, pt, pt * 0)] * keep.to(dtype)
    return w.reshape(size, -1).sum(1)


def _loss_args(input, target, weight):
    lvl = _top((input, target, weight))
    pi, pt = _phys(input, lvl), _phys(target, lvl)
    if weight is not None and not isinstance(weight, Tensor):
        raise _Fallback()  # a batched class weight: per sample
    if not _plain(pi, pt) or any(isinstance(t, BatchedTensor) and _phys(t, lvl) is None
                                 for t in (input, target)):
        raise _Fallback()
    return lvl


def nll_loss(input, target, weight, ignore_index, reduction):
    """F.nll_loss with batched input and/or target: the unreduced loss of the folded batch,
    then each sample's sum, or its sum over the kept targets' weights."""
    from .nn import functional as F

    lvl = _loss_args(input, target, weight)
    size = (_phys(input, lvl) if _phys(input, lvl) is not None else _phys(target, lvl)).shape[0]
    pi, pt, shape = _fold_loss(input, target, lvl, True)
    none = F.nll_loss(pi, pt, weight, None, ignore_index, None, "none")
    denom = None
    if reduction == "mean":
        denom = _class_weight_total(pt, weight, ignore_index, size, none.dtype)
    return BatchedTensor(_loss_reduce(none, size, shape, reduction, denom), lvl)


def cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing):
    """F.cross_entropy with batched input and/or target, as `nll_loss`'s rule; probability
    targets average over a sample's elements."""
    from .nn import functional as F

    lvl = _loss_args(input, target, weight)
    size = (_phys(input, lvl) if _phys(input, lvl) is not None else _phys(target, lvl)).shape[0]
    pi, pt, shape = _fold_loss(input, target, lvl, True)
    none = F.cross_entropy(pi, pt, weight, None, ignore_index, None, "none", label_smoothing)
    denom = None
    if reduction == "mean":
        if pt.is_floating_point():
            c = input.shape[0 if input.dim() == 1 else 1]
            denom = input.numel() // c if input.numel() else float("nan")
        else:
            denom = _class_weight_total(pt, weight, ignore_index, size, none.dtype)
    return BatchedTensor(_loss_reduce(none, size, shape, reduction, denom), lvl)


def _index_select_batched(self, dim, index):
    """``index_select`` with a batched index: a gather of the index broadcast over the other
    dims (each sample picks its own rows)."""
    lvl = _top((self, index))
    ps, pi = _phys(self, lvl), _phys(index, lvl)
    if not _plain(ps, pi) or (ps is None and isinstance(self, BatchedTensor)):
        raise _Fallback()
    rank = self.dim()
    if rank == 0 or index.dim() > 1:
        return _per_sample("index_select", (self, dim, index), {}, lvl)
    size = pi.shape[0]
    if ps is None:
        ps = _expand_to(self, size)
    d = _norm_dim(dim, rank)
    k = pi.reshape(size, -1)
    shape = [size] + [1] * rank
    shape[d + 1] = k.shape[1]
    full = list(ps.shape)
    full[d + 1] = k.shape[1]
    return BatchedTensor(ps.gather(d + 1, k.reshape(shape).expand(full)), lvl)


def batched_leaves(flat, lvl):
    """`vjp`'s differentiable inputs inside vmap: each a batched leaf of ``lvl`` (an unbatched
    one expanded over the batch, a view), so one backward gives every sample's products."""
    from .autograd import forward_ad as _fwAD

    levels, sizes = _levels(flat)
    if len(levels) > 1:
        return [_rewrap(leaf, levels) for leaf in _nested_leaves(flat, levels, sizes)]
    size = next(x for x in flat if _phys(x, lvl) is not None)._size()
    leaves = []
    for d in flat:
        p = _phys(d, lvl)
        # an input in an outer graph stays connected to it (`func._create_differentiable`)
        outer = _is_tensor(d) and d.requires_grad and _native.is_grad_enabled()
        if p is None:
            if not isinstance(d, Tensor):
                raise _Fallback()
            p = _expand_to(d if outer else d.detach(), size)
            if _fwAD.unpack_dual(d).tangent is not None:
                # copies: a dual's tangent follows its primal's layout (Note [vmap])
                p = _fwAD.make_dual(_fwAD.unpack_dual(p).primal.contiguous(), _expand_to(
                    _fwAD.unpack_dual(d).tangent, size).contiguous())
        if not isinstance(p, Tensor):
            raise _Fallback()
        primal, tangent = _fwAD.unpack_dual(p)
        leaf = p.view_as(p) if outer else primal.detach().requires_grad_()
        if tangent is not None and not outer:
            leaf = _fwAD.make_dual(leaf, tangent)  # jacfwd of this: the leaf keeps its tangent
        leaves.append(BatchedTensor(leaf, lvl))
    return leaves


def zeros_like(x):
    """``zeros_like`` of a tensor or a BatchedTensor (its own level's batch kept)."""
    if isinstance(x, BatchedTensor):
        return BatchedTensor(zeros_like(x._value), x._level)
    return _native.zeros_like(x)


def spatial(fn, nd, input, args, kwargs):
    """A pooling function of its input alone, of shape (N, C, *spatial) or (C, *spatial), with
    a batched input: the vmap batch folded into N, one call for the whole batch."""
    lvl = input._level
    p = input._value
    if not isinstance(p, Tensor) or _top(list(args) + list(kwargs.values())):
        raise _Fallback()
    if nd is None:  # a function of batched (N, C, *spatial) input only (interpolate)
        nd = input.dim() - 2
        if nd < 1:
            nd = -2  # neither form: the sample's own error below
    if input.dim() == nd + 1:  # each sample unbatched: the vmap batch is the N
        return _wrap(fn(p, *args, **kwargs), lvl)
    if input.dim() != nd + 2:
        if p.shape[0]:
            fn(p.select(0, 0), *args, **kwargs)  # a sample of the wrong rank: its error
        raise _Fallback()
    size, n = p.shape[0], p.shape[1]
    out = fn(p.reshape(size * n, *p.shape[2:]), *args, **kwargs)

    def unfold(o):
        if isinstance(o, tuple):
            return type(o)(*map(unfold, o)) if hasattr(o, "_fields") else tuple(map(unfold, o))
        return BatchedTensor(o.reshape(size, n, *o.shape[1:]), lvl)
    return unfold(out)


def pointwise(fn, input, args, kwargs):
    """An elementwise function of one batched tensor (F.gelu, F.elu, ...): one call on the
    physical tensor (in place on it where ``fn`` works in place)."""
    lvl = input._level
    p = input._value
    if not isinstance(p, Tensor) or _top(list(args) + list(kwargs.values())):
        raise _Fallback()
    out = fn(p, *args, **kwargs)
    return input if out is p else BatchedTensor(out, lvl)


def elementwise_loss(fn, input, target, weight, reduction, **kwargs):
    """A loss of same-shaped input and target with a per-element value (binary cross entropy):
    the unreduced loss of the physical tensors, then each sample's sum or mean."""
    lvl = _top((input, target, weight))
    if weight is not None and not isinstance(weight, Tensor):
        raise _Fallback()
    pi, pt = _phys(input, lvl), _phys(target, lvl)
    if not _plain(pi, pt) or any(isinstance(t, BatchedTensor) and _phys(t, lvl) is None
                                 for t in (input, target)):
        raise _Fallback()
    size = (pi if pi is not None else pt).shape[0]
    pi = _expand_to(input, size) if pi is None else pi
    pt = _expand_to(target, size) if pt is None else pt
    none = fn(pi, pt, weight, reduction="none", **kwargs)
    n = input.numel()
    return BatchedTensor(_loss_reduce(none, size, tuple(input.shape), reduction,
                                      n if n else float("nan")), lvl)


def one_hot(tensor, num_classes):
    """F.one_hot of batched class indices with a given class count: one call."""
    from .nn import functional as F

    p = tensor._value
    if num_classes == -1 or not isinstance(p, Tensor):
        raise _Fallback()  # the class count is read from the values: per sample
    return BatchedTensor(F.one_hot(p, num_classes), tensor._level)


def _sort_like(name, dim_pos, default_dim=-1):
    """A Tensor method along one dim (default -1) returning values / indices (sort, topk...)."""
    def fn(self, *args, **kwargs):
        if _top(args + tuple(kwargs.values())) or self.dim() == 0:
            return _per_sample(name, (self,) + args, kwargs, self._level)
        args = list(args)
        if "dim" in kwargs:
            kwargs = dict(kwargs, dim=_norm_dim(kwargs["dim"], self.dim()) + 1)
        elif len(args) > dim_pos and not isinstance(args[dim_pos], bool):
            args[dim_pos] = _norm_dim(args[dim_pos], self.dim()) + 1
        else:
            kwargs = dict(kwargs, dim=_norm_dim(default_dim, self.dim()) + 1)
        return _wrap(getattr(self._value, name)(*args, **kwargs), self._level)
    return fn


BatchedTensor.sort = _sort_like("sort", 0)
BatchedTensor.argsort = _sort_like("argsort", 0)
BatchedTensor.topk = _sort_like("topk", 1)
BatchedTensor.kthvalue = _sort_like("kthvalue", 1)


def _triangle(name):
    def fn(self, diagonal=0):
        if self.dim() < 2:
            return _per_sample(name, (self, diagonal), {}, self._level)  # its error
        return BatchedTensor(getattr(self._value, name)(diagonal), self._level)
    return fn


BatchedTensor.tril = _triangle("tril")
BatchedTensor.triu = _triangle("triu")


def _roll(self, shifts, dims=None):
    p = self._value
    if dims is None:  # a sample's flattened roll
        return BatchedTensor(p.reshape(p.shape[0], -1).roll(shifts, 1).reshape(p.shape),
                             self._level)
    if isinstance(dims, int):
        dims = _norm_dim(dims, self.dim()) + 1
    else:
        dims = tuple(_norm_dim(d, self.dim()) + 1 for d in dims)
    return BatchedTensor(p.roll(shifts, dims), self._level)


BatchedTensor.roll = _roll


def einsum(equation, operands):
    """`einsum` with batched operands: a new subscript for the batch on each batched operand
    and in front of the output (the implicit output spelled out as PyTorch orders it), one
    native einsum."""
    lvl = _top(operands)
    phys = [_phys(o, lvl) for o in operands]
    if not _plain(*phys) or any(isinstance(o, BatchedTensor) and p is None
                                for o, p in zip(operands, phys)):
        raise _Fallback()
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    free = [c for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in eq]
    if len(terms) != len(operands) or not free:
        raise _Fallback()  # the per-sample call gives PyTorch's error
    if not arrow:
        letters = [c for c in lhs if c.isalpha()]
        rhs = ("..." if "..." in lhs else "") + "".join(
            sorted(c for c in set(letters) if letters.count(c) == 1))
    b = free[0]
    new = ",".join(b + t if p is not None else t for t, p in zip(terms, phys))
    args = [p if p is not None else o for o, p in zip(operands, phys)]
    return BatchedTensor(_native.einsum(f"{new}->{b}{rhs}", *args), lvl)


_CORE_DIMS = {"pivots": 1, "tau": 1, "atol": 0, "rtol": 0, "tol": 0, "rcond": 0}


def leading_batch(fn, args, kwargs, vector_arg=None):
    """A linalg function (batched over its inputs' leading dims) with batched arguments: the
    vmap batch is one more leading dim, so ``fn`` runs once on the physical tensors, unbatched
    ones expanded over the batch (stride-0 views). ``vector_arg``: the position of a B that a
    sample may give 1-D (solve's vector right-hand side), made a column for the call."""
    lvl = _top(list(args) + list(kwargs.values()))
    if kwargs.get("out") is not None or not args or not _is_tensor(args[0]) or args[0].dim() < 2:
        raise _Fallback()  # a sample's error (or out=) from the per-sample call
    size = next(x for x in list(args) + list(kwargs.values()) if _phys(x, lvl) is not None)
    size = size._size()

    def physical(x):
        # (a physical tensor may be a BatchedTensor of an outer level: fn recurses into its rule)
        p = _phys(x, lvl)
        if p is None:
            return _expand_to(x, size) if _is_tensor(x) else x
        return p

    # Batch dims broadcast right-aligned: the samples' batch ranks must agree for the vmap dim
    # to stay leading (a matrix argument has 2 core dims, pivots / tau 1, tolerances 0).
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs).arguments
    except TypeError:
        raise _Fallback() from None  # the per-sample call raises the argument error
    ranks = set()
    for pname, value in bound.items():
        if not _is_tensor(value):
            continue
        core = _CORE_DIMS.get(pname, 2)
        if pname == "B" and (vector_arg is not None and value.dim() == 1 or (
                fn.__name__ == "lstsq" and value.dim() == args[0].dim() - 1)):
            core = 1
        ranks.add(value.dim() - core)
    if len(ranks) > 1:
        raise _Fallback()
    args = list(args)
    vector = False
    if vector_arg is not None:
        key = vector_arg if vector_arg < len(args) else "B"
        b = args[key] if isinstance(key, int) else kwargs.get(key)
        vector = _is_tensor(b) and b.dim() == 1
    pargs = [physical(a) for a in args]
    pkw = {k: physical(v) for k, v in kwargs.items()}
    if vector:
        if isinstance(key, int):
            pargs[key] = pargs[key].unsqueeze(-1)
        else:
            pkw[key] = pkw[key].unsqueeze(-1)
    out = fn(*pargs, **pkw)
    if vector:
        if _is_tensor(out):
            out = out.squeeze(-1)
        else:  # solve_ex's (result, info)
            out = type(out)(out[0].squeeze(-1), *out[1:])
    return _wrap(out, lvl)


# The linalg Tensor methods are Python functions of gradrs.linalg's (their rules above).
for _meth in ("det", "logdet", "slogdet", "inverse", "pinverse", "cholesky", "cholesky_solve",
              "cholesky_inverse", "svd", "qr", "matrix_power", "matrix_exp"):
    setattr(BatchedTensor, _meth,
            lambda self, *a, _n=_meth, **k: getattr(Tensor, _n)(self, *a, **k))


# ---- autograd.Function under vmap (functorch's custom_function_call_vmap) -------------------


class VmapInfo(NamedTuple):
    """What a Function's ``vmap`` staticmethod gets first: the batch size and randomness."""

    batch_size: int
    randomness: str


_EXTENDING = "For more details, please see https://pytorch.org/docs/main/notes/extending.func.html"


def _legacy():
    return getattr(_state, "legacy", 0) > 0


class legacy_functions:
    """A context in which an autograd.Function handed BatchedTensors runs per sample, as
    under PyTorch's legacy vmap (gradcheck's batched checks run that one)."""

    def __enter__(self):
        _state.legacy = getattr(_state, "legacy", 0) + 1

    def __exit__(self, *exc):
        _state.legacy -= 1


def function_apply(cls, args, kwargs, setup):
    """`Function.apply` with BatchedTensor arguments, as functorch: a Function needs
    `setup_context`, and either `generate_vmap_rule=True` (run per sample here, the values of
    the generated rule) or its own `vmap` staticmethod, called with the physical tensors."""
    from .autograd.function import Function

    if _legacy():
        raise _Fallback()
    if not setup:
        raise RuntimeError(
            "In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, "
            f"jacrev, ...), it must override the setup_context staticmethod. {_EXTENDING}")
    if any(_is_tensor(v) for v in _flatten(kwargs)[0]):
        raise NotImplementedError(
            "Run vmap on autograd.Function with kwarg-only Tensor args. Please do not pass "
            f"kwarg-only Tensors to autograd.Function. Got: {kwargs}")
    overridden = cls.vmap is not Function.vmap
    if cls.generate_vmap_rule:
        if overridden:
            raise RuntimeError(
                f"You tried to vmap over {cls.__name__}, but it has both "
                "generate_vmap_rule=True and an overridden vmap staticmethod. Please set "
                "generate_vmap_rule=False or delete the overridden vmap staticmethod to avoid "
                f"ambiguity. {_EXTENDING}")
        raise _Fallback()
    if not overridden:
        raise RuntimeError(
            f"You tried to vmap over {cls.__name__}, but it does not have vmap support. Please "
            f"override and implement the vmap staticmethod or set generate_vmap_rule=True. "
            f"{_EXTENDING}")
    lvl = _top(args)
    flat, spec = _flatten(tuple(args))
    in_dims = _unflatten([0 if _phys(a, lvl) is not None else None for a in flat], spec)
    unwrapped = _unflatten([_phys(a, lvl) if _phys(a, lvl) is not None else a for a in flat],
                           spec)
    size = next(a for a in flat if _phys(a, lvl) is not None)._size()
    info = VmapInfo(batch_size=size, randomness=getattr(_state, "randomness", "error"))
    level = _state.level
    _state.level = lvl - 1  # the staticmethod sees the next level's tensors
    try:
        result = cls.vmap(info, in_dims, *unwrapped)
    finally:
        _state.level = level
    base = ("Expected the vmap staticmethod to have two returns, an output and out_dims with "
            "pytree structure compatible with the output. ")
    if not isinstance(result, tuple):
        raise RuntimeError(base + f"Got a {type(result)} instead")
    if len(result) != 2:
        raise RuntimeError(base + f"Got {len(result)} returns instead")
    output, out_dims = result
    flat_out, out_spec = _flatten(output)
    dims = _broadcast_flat(out_dims, out_spec)
    if dims is None:
        raise RuntimeError(
            "The autograd.Function's vmap staticmethod returned an incompatible (output, "
            f"out_dims) tuple. Expected out_dims={out_dims} to be compatible with the "
            f"structure of `output`. out_dims has structure {_dims_spec(out_dims)} but output "
            f"has structure {_spec_str(out_spec)}. {_EXTENDING}")
    return _unflatten([o if d is None or not _is_tensor(o) else
                       BatchedTensor(o.movedim(d, 0), lvl) for o, d in zip(flat_out, dims)],
                      out_spec)
