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

The package holds the transform and `BatchedTensor` (this file) and the batching rules by
family: `_elementwise.py`, `_reductions.py`, `_matmul.py`, `_views.py`, `_indexing.py`,
`_plain_methods.py` (a plain Tensor's methods handed batched arguments), `_nested.py` (several
levels at once), `_nn_rules.py` (nn.functional), `_linalg.py`, `_function.py`
(autograd.Function).
"""

from __future__ import annotations

import functools
import os
import sys
import threading

from .. import _native
from ..func import _flatten, _spec_str, _unflatten
from ..functional import _wrap_dim as _norm_dim

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


# gradrs/ (this file is gradrs/_vmap/__init__.py), and vmap's own modules, gradrs/_vmap/.
_HERE = os.path.dirname(os.path.abspath(__file__)) + os.sep
_PACKAGE = os.path.dirname(_HERE.rstrip(os.sep)) + os.sep


def _data_dependent(message):
    """The error for reading a batched value, or `_Fallback` where gradrs's own Python reads it
    (PyTorch does those checks in C++, where vmap never sees them)."""
    frame = sys._getframe(2)
    if frame.f_code.co_filename.startswith(_PACKAGE):
        return _Fallback()
    return RuntimeError(message)


def _note_leaf(leaf):
    """A leaf a transform made to stand for its inputs (a `grad` / `vjp` inside a `jvp`): each
    jvp running records it, so its tangents drop a graph that reaches no other leaf
    (`func._jvp_at_new_level`), as functorch's levels keep such graphs inside."""
    for scope in getattr(_state, "leaf_scopes", ()):
        scope.append(leaf)
    return leaf


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


def _wrap(out, lvl):
    """A rule's physical result(s) as BatchedTensors of ``lvl``."""
    if _is_tensor(out):
        return BatchedTensor(out, lvl)
    if isinstance(out, tuple) and hasattr(out, "_fields"):
        return type(out)(*(_wrap(o, lvl) for o in out))
    if isinstance(out, (tuple, list)):
        return type(out)(_wrap(o, lvl) for o in out)
    return out




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
    skip = (os.path.join(_PACKAGE, "_forms.py"), os.path.join(_PACKAGE, "_argparse.py"),
            functools.__file__)
    while frame is not None and (frame.f_code.co_filename in skip
                                 or frame.f_code.co_filename.startswith(_HERE)):
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
    from .. import where

    lvl = _top((condition, input, other))
    c, a, b = _align([condition, input, other], lvl)
    return BatchedTensor(where(c, a, b), lvl)


def _stack_fn(tensors, dim=0):
    rank = max(_ldim(t) for t in tensors) + 1
    return _cat([t.unsqueeze(_norm_dim(dim, rank)) for t in tensors], dim)




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
    dest = _norm_dim(out_dim, p.dim())
    # batch already in place: returned as is (no PermuteBackward0), as functorch's
    # _remove_batch_dim
    return p if dest == 0 else p.movedim(0, dest)


class _Refused(_Fallback):
    """A native function or method refused a BatchedTensor."""


def _batched_call(func, size, flat, flat_dims, spec, out_dims, kwargs, plain_rules):
    """The function run once on BatchedTensors (raises `_Fallback` where it cannot be), with
    the plain-tensor rules of tier ``plain_rules`` (0: none) installed."""
    lvl = _level() + 1
    args = [a if d is None else BatchedTensor(a if d == 0 else a.movedim(d, 0), lvl)
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
        dest = _norm_dim(d, st.dim())
        result.append(st if dest == 0 else st.movedim(0, dest))
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




def _expand_to(x, size):
    """``x`` (unbatched) repeated over a batch of ``size`` as a stride-0 view."""
    return x.unsqueeze(0).expand(size, *x.shape)


def _plain(*ts):
    """Whether every physical is a native tensor (a nested level's rule is not ours)."""
    return all(t is None or isinstance(t, Tensor) for t in ts)


# The batching rules, one module per family: each sets its BatchedTensor methods when imported
# (after the class and the helpers above, which they import), and the names this module
# uses or other modules read as `_vmap.<name>`, re-exported statically.
from ._elementwise import (  # noqa: E402,F401
    _align, _fallback_warning,
)
from . import _reductions  # noqa: E402,F401 - its BatchedTensor methods
from ._matmul import (  # noqa: E402,F401
    einsum,
)
from . import _views  # noqa: E402,F401 - its BatchedTensor methods
from ._indexing import (  # noqa: E402,F401
    _index_select_batched,
)
from ._plain_methods import (  # noqa: E402,F401
    _code, _enter_plain_rules, _exit_plain_rules, _PLAIN_TIER,
)
from ._nested import (  # noqa: E402,F401
    batched_autograd_grad, batched_dual, batched_grad_and_value, batched_leaves, first_sample,
    unpack_batched_dual,
)
from ._nn_rules import (  # noqa: E402,F401
    conv, cross_entropy, elementwise_loss, embedding, nll_loss, one_hot, pointwise, spatial,
    zeros_like,
)
from ._linalg import (  # noqa: E402,F401
    leading_batch,
)
from ._function import (  # noqa: E402,F401
    function_apply, _legacy, legacy_functions, VmapInfo,
)
