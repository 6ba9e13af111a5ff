"""vmap's rules for an unbatched tensor's methods handed batched arguments (`x[index]`,
`W.matmul(v)`, ...): installed on Tensor only while a vmap that needs them runs.
"""

from __future__ import annotations

import functools
import sys
import threading
import weakref

from . import BatchedTensor, _Fallback, _level, _PACKAGE, Tensor, _top
from ._elementwise import _BINARY, _inplace_error
from ._indexing import _getitem_batched_index

# The package, read at call time: tests refuse its per-sample fallbacks by monkeypatching
# `gradrs._vmap._per_sample` / `_loop_call`, which every rule must see.
_vmap = sys.modules[__package__]


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
copy_ masked_fill_ lerp_ addcmul_ addcdiv_ bitwise_and_ bitwise_or_ bitwise_xor_
bitwise_left_shift_ bitwise_right_shift_ gcd_ lcm_
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
            return _vmap._per_sample(name, (self,) + args, kwargs, lvl)
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
