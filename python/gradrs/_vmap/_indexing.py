"""vmap's batching rules for indexing: `__getitem__` / `__setitem__` with batched indices,
gather, take_along_dim, index_select.
"""

from __future__ import annotations

import sys

from .. import _native
from . import BatchedTensor, _expand_to, _Fallback, _norm_dim, _phys, _plain, _slice, Tensor, _top

# The package, read at call time: tests refuse its per-sample fallbacks by monkeypatching
# `gradrs._vmap._per_sample` / `_loop_call`, which every rule must see.
_vmap = sys.modules[__package__]


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
        return _vmap._per_sample("__getitem__", (self, items), {}, lvl)
    if pi.dtype in (_native.bool, _native.uint8):
        raise RuntimeError("vmap: We do not support batching operators that can support dynamic "
                           "shape. Attempting to batch over indexing with a boolean mask.")
    if _phys(self, lvl) is None:
        out = self[items[:k] + (pi,) + items[k + 1:]]
        return BatchedTensor(out.movedim(d, 0) if d else out, lvl)
    index = items[k]
    if not isinstance(pi, Tensor) or pi.dtype not in (_native.int64, _native.int32):
        return _vmap._per_sample("__getitem__", (self, items), {}, lvl)
    size = pi.shape[0]
    n = self.shape[d]
    if pi.numel() and bool(((pi < -n) | (pi >= n)).any()):
        return _vmap._per_sample("__getitem__", (self, items), {}, lvl)  # a sample's IndexError
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
        return _vmap._per_sample("__getitem__", (self, idx), {}, lvl)
    if any(isinstance(i, bool) for i in items):
        return _vmap._per_sample("__getitem__", (self, idx), {}, lvl)
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
        return _vmap._per_sample("take_along_dim", (self, indices, dim), {}, _top((self, indices)))
    d = _norm_dim(dim, self.dim())
    shape = []
    for k, (a, b) in enumerate(zip(self.shape, indices.shape)):
        if k != d and a != b and 1 not in (a, b):
            return _vmap._per_sample("take_along_dim", (self, indices, dim), {}, _top((self, indices)))
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


def _index_select_batched(self, dim, index):
    """``index_select`` with a batched index: a gather of the index broadcast over the other
    dims (each sample picks its own rows)."""
    lvl = _top((self, index))
    ps, pi = _phys(self, lvl), _phys(index, lvl)
    if not _plain(ps, pi) or (ps is None and isinstance(self, BatchedTensor)):
        raise _Fallback()
    rank = self.dim()
    if rank == 0 or index.dim() > 1:
        return _vmap._per_sample("index_select", (self, dim, index), {}, lvl)
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
