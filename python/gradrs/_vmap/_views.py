"""vmap's batching rules for views and shape ops: view / reshape, unsqueeze, transpose,
narrow, select, split / chunk / unbind, flatten, squeeze, permute, movedim, t / T / mT,
expand, repeat, tril / triu, roll.
"""

from __future__ import annotations

import sys

from .. import _native
from . import BatchedTensor, _norm_dim, _pad, _wrap

# The package, read at call time: tests refuse its per-sample fallbacks by monkeypatching
# `gradrs._vmap._per_sample` / `_loop_call`, which every rule must see.
_vmap = sys.modules[__package__]


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
        return _vmap._per_sample("permute", (self, dims), {}, self._level)
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
        return _vmap._per_sample("t", (self,), {}, self._level)
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
        return _vmap._per_sample("repeat", (self,) + sizes, {}, self._level)
    p = _pad(self._value, len(sizes) - self.dim())
    return BatchedTensor(p.repeat(1, *sizes), self._level)


BatchedTensor.repeat = _repeat


def _triangle(name):
    def fn(self, diagonal=0):
        if self.dim() < 2:
            return _vmap._per_sample(name, (self, diagonal), {}, self._level)  # its error
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
