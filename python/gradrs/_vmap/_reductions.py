"""vmap's batching rules for reductions and other ops along a dim (sum, max, cumsum, ...,
sort / argsort / topk / kthvalue).
"""

from __future__ import annotations

import sys

from . import BatchedTensor, _is_tensor, _norm_dim, _phys, _rule, _top, _wrap

# The package, read at call time: tests refuse its per-sample fallbacks by monkeypatching
# `gradrs._vmap._per_sample` / `_loop_call`, which every rule must see.
_vmap = sys.modules[__package__]


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
            return _vmap._per_sample(name, (self,) + args, kwargs, lvl)
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
            return _vmap._per_sample(name, (self,) + tuple(args), kwargs, lvl)
        if dim is None:
            if name in _ALONG:
                return _vmap._per_sample(name, (self,) + tuple(args), kwargs, lvl)
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


def _sort_like(name, dim_pos, default_dim=-1):
    """A Tensor method along one dim (default -1) returning values / indices (sort, topk...)."""
    def fn(self, *args, **kwargs):
        if _top(args + tuple(kwargs.values())) or self.dim() == 0:
            return _vmap._per_sample(name, (self,) + args, kwargs, self._level)
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
