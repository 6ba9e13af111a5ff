"""Indexing compositions: `diag` / `diag_embed` / `diagflat`, `take`, `put`, `index_copy`,
`masked_scatter` (and their in-place forms), `fill_diagonal_`, `argwhere`, `nonzero_static`,
the scatters into views (`diagonal_scatter`, `select_scatter`, `slice_scatter`).
"""

import builtins
import warnings

import numpy as np

from .. import _argparse, _native, _numpy_names
from .._forms import with_out as _with_out
from .._grad_mode import no_grad as _no_grad
from .._native import Tensor
from ..functional import _check_tensor, _dtype_name, _method, _wrap_dim
from .._reduce_ops import _EXPANDED, _expanded_dims, _parsed
from ._common import (
    _as_method, _check_leaf, _G, _node, _recomputed_in_place, _reduce_to, _type_str, _wrap,
    _write_in_place,
)

__all__ = [
    "diag", "diag_embed", "diagflat", "index_copy", "masked_scatter", "take", "put",
    "argwhere", "diagonal_scatter", "select_scatter", "slice_scatter", "nonzero_static",
]


def _diagonal_scatter(g, shape, offset, dim1, dim2):
    """Zeros of `shape` with `g` on the diagonal (`offset`, `dim1`, `dim2`): differentiable in
    `g` (a copy into a view of fresh zeros)."""
    z = _G.zeros(tuple(shape), dtype=g.dtype, device=g.device)
    z.diagonal(offset, dim1, dim2).copy_(g)
    return z


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """`gradrs.diag_embed(input, offset=0, dim1=-2, dim2=-1)`: the last dim of `input` on the
    diagonals of the planes (`dim1`, `dim2`) of a new tensor (DiagEmbedBackward0).

    Examples:
        >>> gradrs.diag_embed(gradrs.tensor([[1.0, 2.0]]))
        tensor([[[1., 0.],
                 [0., 2.]]])
    """
    _check_tensor("diag_embed", "input", 1, input)
    n = input.dim() + 1
    d1, d2 = _wrap(dim1, n), _wrap(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    size = (input.shape[-1] if input.dim() else 1) + builtins.abs(offset)
    rest = list(input.shape[:-1])
    shape = []
    for i in range(n):
        shape.append(size if i in (d1, d2) else rest.pop(0))
    with _no_grad():
        res = _diagonal_scatter(input if input.dim() else input.reshape(1), shape, offset, d1, d2)
    return _node("DiagEmbedBackward0", res, [input],
                 lambda g: (g.diagonal(offset, d1, d2).reshape(input.shape),))


def diag(input, diagonal=0, *, out=None):
    """`gradrs.diag(input, diagonal=0)`: a 1-D input on a diagonal of a square matrix
    (DiagEmbedBackward0), or a copy of a 2-D input's diagonal (DiagonalBackward0_copy).

    Examples:
        >>> gradrs.diag(gradrs.tensor([1.0, 2.0]))
        tensor([[1., 0.],
                [0., 2.]])
    """
    if out is not None:
        return _with_out("diag", out, lambda: diag(input, diagonal), (input,))
    _check_tensor("diag", "input", 1, input)
    if input.dim() == 1:
        return diag_embed(input, diagonal, 0, 1)
    if input.dim() != 2:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.dim()}D")
    with _no_grad():
        res = input.diagonal(diagonal).clone()
    return _node("DiagonalBackward0_copy", res, [input],
                 lambda g: (_diagonal_scatter(g, input.shape, diagonal, 0, 1),))


def diagflat(input, offset=0):
    """`gradrs.diagflat(input, offset=0)`: the flattened input on a diagonal of a matrix.

    Examples:
        >>> gradrs.diagflat(gradrs.tensor([[1.0, 2.0]]))
        tensor([[1., 0.],
                [0., 2.]])
    """
    _check_tensor("diagflat", "input", 1, input)
    return diag_embed(input.contiguous().view(-1), offset, 0, 1)



def take(input, index):
    """`gradrs.take(input, index)`: the elements of the flattened input at `index` (any shape,
    negative indices from the end) (TakeBackward0).

    Examples:
        >>> gradrs.take(gradrs.tensor([[1, 2], [3, 4]]), gradrs.tensor([0, 3]))
        tensor([1, 4])
    """
    _check_tensor("take", "input", 1, input)
    _check_tensor("take", "index", 2, index)
    if index.dtype != _G.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got "
                           f"{_dtype_name(index.dtype)}")
    n = input.numel()
    if index.numel():
        lo, hi = int(index.min().item()), int(index.max().item())
        for v in (lo, hi):
            if v < -n or v >= n:
                if n == 0:
                    raise IndexError("take(): tried to take from an empty tensor")
                raise IndexError(f"out of range: tried to access index {v} on a tensor of {n} "
                                 "elements.")
    flat_index = _G.where(index < 0, index + n, index).reshape(-1)
    with _no_grad():
        res = input.reshape(-1)[flat_index].reshape(index.shape)

    def backward(g):
        z = _G.zeros((n,), dtype=g.dtype, device=g.device)
        return (z.index_add(0, flat_index, g.reshape(-1)).reshape(input.shape), None)

    return _node("TakeBackward0", res, [input, index], backward)


def index_copy(input, dim, index, source):
    """`gradrs.index_copy(input, dim, index, source)`: a copy of `input` whose slices at `index`
    along `dim` are `source`'s (IndexCopyBackward0).

    Examples:
        >>> gradrs.index_copy(gradrs.zeros(3), 0, gradrs.tensor([0, 2]), gradrs.tensor([5.0, 7.0]))
        tensor([5., 0., 7.])
    """
    _check_tensor("index_copy", "input", 1, input)
    if not isinstance(index, Tensor) or index.dtype != _G.int64:
        raise RuntimeError("index_copy_(): Expected a long tensor for index, but got "
                           f"{_dtype_name(index.dtype)}")
    if index.dim() > 1:
        raise IndexError("index_copy_(): Index should have dimension 1 or 0 (got "
                         f"{index.dim()})")
    if source.dtype != input.dtype:
        raise RuntimeError("index_copy_(): self and source expected to have the same dtype, "
                           f"but got (self) {_dtype_name(input.dtype)} and (source) "
                           f"{_dtype_name(source.dtype)}")
    d = _wrap(dim, builtins.max(input.dim(), 1))
    idx = index.reshape(-1)
    n = input.shape[d] if input.dim() > 0 else 1
    bad = (idx < 0) | (idx >= n)
    if bool(bad.any()):  # PyTorch checks every index, negative ones too
        raise IndexError(f"index_copy_(): index {int(idx[bad][0])} is out of bounds for "
                         f"dimension {d} with size {n}")
    if input.dim() == 0:
        sel = (idx,)
        inp, src = input.reshape(1), source.reshape(-1)
    else:
        sel = (slice(None),) * d + (idx,)
        inp, src = input, source
    if src.dim() > 0 and idx.numel() != (src.shape[d] if src.dim() > d else 1):
        raise IndexError("index_copy_(): Number of indices (" + str(idx.numel()) + ") should "
                         "be equal to source.size(dim) (" + str(src.shape[d]) + ")")
    with _no_grad():
        res = inp.clone()
        res[sel] = src
        res = res.reshape(input.shape)

    def backward(g):
        gi = gs = None
        gv = g if input.dim() else g.reshape(1)
        if input.requires_grad:
            gi = gv.index_fill(0 if input.dim() == 0 else d, idx, 0).reshape(input.shape)
        if isinstance(source, Tensor) and source.requires_grad:
            gs = gv.index_select(0 if input.dim() == 0 else d, idx).reshape(source.shape)
        return gi, None, gs

    return _node("IndexCopyBackward0", res, [input, index, source], backward)


def masked_scatter(input, mask, source):
    """`gradrs.masked_scatter(input, mask, source)`: `input` (broadcast with `mask`) with the
    masked positions filled, in order, from the first elements of `source`
    (MaskedScatterBackward0).

    Examples:
        >>> gradrs.masked_scatter(gradrs.zeros(3), gradrs.tensor([True, False, True]), gradrs.tensor([1.0, 2.0]))
        tensor([1., 0., 2.])
    """
    _check_tensor("masked_scatter", "input", 1, input)
    if mask.dtype != _G.bool:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with "
                           f"dtype {_dtype_name(mask.dtype)}")
    if input.dtype != source.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but "
                           f"got{_dtype_name(input.dtype)} and {_dtype_name(source.dtype)}")
    shape = tuple(_G.broadcast_shapes(input.shape, mask.shape))
    m = mask.expand(shape)
    count = int(m.sum().item())
    if count > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    with _no_grad():
        res = input.expand(shape).clone()
        res[m] = source.reshape(-1)[:count]

    def backward(g):
        gi = gs = None
        if input.requires_grad:
            gi = _reduce_to(g.masked_fill(m, 0), input.shape)
        if source.requires_grad:
            flat = g[m]
            pad = _G.zeros((source.numel() - count,), dtype=g.dtype, device=g.device)
            gs = _G.cat([flat, pad]).reshape(source.shape)
        return gi, None, gs

    return _node("MaskedScatterBackward0", res, [input, mask, source], backward)
for _fn in (diag, diag_embed, diagflat, take, index_copy, masked_scatter):
    setattr(Tensor, _fn.__name__, _as_method(_fn))



def _fill_diagonal_(self, fill_value, wrap=False):
    """`Tensor.fill_diagonal_(fill_value, wrap=False)`: the main diagonal (every dim equal past
    2-D) set to `fill_value` in place; `wrap` continues a tall matrix's diagonal every
    `width + 1` rows, as PyTorch's strided fill does."""
    if not _argparse._is_number(fill_value):
        raise TypeError("fill_diagonal_(): argument 'fill_value' (position 1) must be Number, "
                        f"not {_argparse.type_name(fill_value)}")
    if not isinstance(wrap, bool):
        raise TypeError("fill_diagonal_(): argument 'wrap' (position 2) must be bool, "
                        f"not {_argparse.type_name(wrap)}")
    n = self.dim()
    if n < 2:
        raise RuntimeError("dimensions must larger than 1")
    h, w = self.shape[0], self.shape[1]
    if n > 2 and builtins.any(s != h for s in self.shape[1:]):
        raise RuntimeError("all dimensions of input must be of equal length")
    diag = self
    for _ in range(n - 1):
        diag = diag.diagonal(0, 0, 1)
    diag.fill_(fill_value)
    if wrap and n == 2 and h > w + 1:
        start = w + 1
        while start < h:
            self[start:].diagonal().fill_(fill_value)
            start += w + 1
    return self


_argparse.SIGNATURES["put"] = [
    "(Tensor input, Tensor index, Tensor source, bool accumulate = False)"]


def _put(input, index, source, accumulate=False):
    """`gradrs.put(input, index, source, accumulate=False)`: a copy of `input` whose flattened
    positions `index` hold `source`'s elements (added with `accumulate`) (PutBackward0)."""
    for value in (index, source):
        if not isinstance(value, Tensor):
            raise TypeError  # _argparse.functional words it as PyTorch's parser does
    if not isinstance(accumulate, bool):
        raise TypeError
    # PyTorch's put_ checks, in its order.
    if index.dtype != _G.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got "
                           f"{_dtype_name(index.dtype)}")
    if input.dtype != source.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {_dtype_name(input.dtype)} and source.dtype = "
                           f"{_dtype_name(source.dtype)}")
    if index.numel() != source.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of "
                         f"elements, but got source.numel() = {source.numel()}, "
                         f"index.numel() = {index.numel()}")
    n = input.numel()
    flat_index = index.reshape(-1)
    if flat_index.numel():
        if n == 0:
            raise IndexError("put_(): Tried to put elements into an empty tensor")
        bad = ((flat_index < -n) | (flat_index >= n)).nonzero()
        if bad.numel():  # the first one in index order, as PyTorch's serial kernel meets it
            v = int(flat_index[int(bad[0, 0].item())].item())
            raise IndexError(f"out of range: tried to access index {v} on a tensor of {n} "
                             "elements.")
    flat_index = _G.where(flat_index < 0, flat_index + n, flat_index)
    with _no_grad():
        res = input.contiguous().clone()  # flattened in the input's logical order
        flat = res.view(-1)
        if accumulate:
            flat.index_add_(0, flat_index, source.reshape(-1))
        else:
            flat[flat_index] = source.reshape(-1)

    def backward(g):
        gi = gs = None
        if input.requires_grad:
            gi = g if accumulate else put(g, index, _G.zeros_like(source))
        if source.requires_grad:
            gs = take(g, index).reshape(source.shape)
        return gi, None, gs

    return _node("PutBackward0", res, [input, index, source], backward)


put = _argparse.functional("put", _put)
put.__name__ = put.__qualname__ = "put"
put.__doc__ = _put.__doc__
put.__module__ = "gradrs"


def _put_method(self, index, source, accumulate=False):
    """`Tensor.put(index, source, accumulate=False)`."""
    return put(self, index, source, accumulate)


Tensor.put = _put_method
Tensor.fill_diagonal_ = _fill_diagonal_



@_parsed("argwhere", ["(Tensor input)"], ["()"])
def argwhere(input):
    """`gradrs.argwhere(input)`: the indices of the nonzero elements, one row each (int64).

    Examples:
        >>> gradrs.argwhere(gradrs.tensor([[1, 0], [0, 3]]))
        tensor([[0, 0],
                [1, 1]])
    """
    return input.nonzero()



def _index_copy_(self, dim, index, source):
    """`Tensor.index_copy_(dim, index, source)`: `index_copy` written into `self`
    (IndexCopyBackward0)."""
    _check_leaf(self)
    with _no_grad():
        res = index_copy(self, dim, index, source)  # its checks too
    src_rg = isinstance(source, Tensor) and source.requires_grad
    d = _wrap_dim(dim, self.dim())
    idx = index.reshape(-1)

    def backward(g, prior):
        gv = g if self.dim() else g.reshape(1)
        gi = gv.index_fill(d, idx, 0).reshape(g.shape) if prior is not None else None
        gs = gv.index_select(d, idx).reshape(source.shape) if src_rg else None
        return gi, None, gs

    return _write_in_place(self, "IndexCopyBackward0", res, [index, source], backward)


def _masked_scatter_(self, mask, source):
    """`Tensor.masked_scatter_(mask, source)`: `masked_scatter` written into `self`, whose
    shape `mask` must broadcast to (MaskedScatterBackward0)."""
    _check_leaf(self)
    if isinstance(mask, Tensor) and mask.dtype == _G.bool:
        shape = tuple(self.shape)
        if mask.dim() > len(shape):
            raise RuntimeError(
                f"expand({_type_str(mask)}{{{list(mask.shape)}}}, size={list(shape)}): the "
                f"number of sizes provided ({len(shape)}) must be greater or equal to the "
                f"number of dimensions in the tensor ({mask.dim()})")
        for i in range(1, mask.dim() + 1):  # ATen's expand checks from the last dim
            if mask.shape[-i] not in (1, shape[-i]):
                raise RuntimeError(
                    f"The expanded size of the tensor ({shape[-i]}) must match the existing "
                    f"size ({mask.shape[-i]}) at non-singleton dimension {len(shape) - i}.  "
                    f"Target sizes: {list(shape)}.  Tensor sizes: {list(mask.shape)}")
    with _no_grad():
        res = masked_scatter(self, mask, source)  # its checks too
    src_rg = source.requires_grad
    m = mask.expand(self.shape)
    count = int(m.sum().item())

    def backward(g, prior):
        gi = g.masked_fill(m, 0) if prior is not None else None
        gs = None
        if src_rg:
            pad = _G.zeros((source.numel() - count,), dtype=g.dtype, device=g.device)
            gs = _G.cat([g[m], pad]).reshape(source.shape)
        return gi, None, gs

    return _write_in_place(self, "MaskedScatterBackward0", res, [mask, source], backward,
                           saves=(0,))



def _argwhere(self):
    """`Tensor.argwhere()`."""
    return argwhere(self)
Tensor.argwhere = _argwhere
Tensor.index_copy_ = _index_copy_
Tensor.masked_scatter_ = _masked_scatter_
Tensor.put_ = _recomputed_in_place("put_", "PutBackward0", Tensor.put)


def _check_scatter_src(src, view):
    if tuple(src.shape) != tuple(view.shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(view.shape)}")


def _scatter_into(name, input, src, take):
    """`input` with the view `take(t)` replaced by `src` (node `name`: the gradient's view
    goes to `src`, the rest to `input`)."""
    _check_scatter_src(src, take(input))
    with _no_grad():
        res = input.clone()
        take(res).copy_(src)

    def backward(g):
        gi = gs = None
        if input.requires_grad:
            gi = g.clone()
            with _no_grad():
                take(gi).zero_()
            gi = _scatter_into(name, g, _G.zeros_like(src), take) if g.requires_grad else gi
        if src.requires_grad:
            gs = take(g)
        return gi, gs

    return _node(name, res, [input, src], backward)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """`gradrs.diagonal_scatter(input, src, offset=0, dim1=0, dim2=1)`: a copy of `input`
    whose diagonal is `src` (DiagonalScatterBackward0).

    Examples:
        >>> gradrs.diagonal_scatter(gradrs.zeros(2, 2), gradrs.ones(2))
        tensor([[1., 0.],
                [0., 1.]])
    """
    return _scatter_into("DiagonalScatterBackward0", input, src,
                         lambda t: t.diagonal(offset, dim1, dim2))


def select_scatter(input, src, dim, index):
    """`gradrs.select_scatter(input, src, dim, index)`: a copy of `input` whose slice
    `index` along `dim` is `src` (SelectScatterBackward0).

    Examples:
        >>> gradrs.select_scatter(gradrs.zeros(2, 2), gradrs.ones(2), 0, 0)
        tensor([[1., 1.],
                [0., 0.]])
    """
    return _scatter_into("SelectScatterBackward0", input, src, lambda t: t.select(dim, index))


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """`gradrs.slice_scatter(input, src, dim=0, start=None, end=None, step=1)`: a copy of
    `input` whose slice `start:end:step` along `dim` is `src` (SliceScatterBackward0).

    Examples:
        >>> gradrs.slice_scatter(gradrs.zeros(3), gradrs.ones(1), 0, 1, 2)
        tensor([0., 1., 0.])
    """
    def take(t):
        d = _wrap_dim(dim, t.dim())
        return t[(slice(None),) * d + (slice(start, end, step),)]

    return _scatter_into("SliceScatterBackward0", input, src, take)


for _fn in (diagonal_scatter, select_scatter, slice_scatter):
    setattr(Tensor, _fn.__name__, _method(_fn))


def nonzero_static(input, *, size, fill_value=-1):
    """`gradrs.nonzero_static(input, *, size, fill_value=-1)`: `nonzero(input)` cut or padded
    with `fill_value` rows to exactly `size` rows.

    Examples:
        >>> gradrs.nonzero_static(gradrs.tensor([0, 1, 0, 2]), size=3)
        tensor([[ 1],
                [ 3],
                [-1]])
    """
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    nz = input.nonzero()[:size]
    if nz.shape[0] < size:
        pad = _G.full((size - nz.shape[0], input.dim()), fill_value, dtype=_G.int64,
                      device=input.device)
        nz = _G.cat([nz, pad])
    return nz


def _nonzero_static(self, *, size, fill_value=-1):
    """`Tensor.nonzero_static(*, size, fill_value=-1)`."""
    return nonzero_static(self, size=size, fill_value=fill_value)
Tensor.nonzero_static = _nonzero_static

del _fn


# ---- index_fill: a fill through a mask along one dim ---------------------------------------------

def _index_fill_mask(input, dim, index, value):
    """The bool mask (broadcastable to `input`) of the positions `index_fill(dim, index, value)`
    fills, after PyTorch's checks."""
    if not isinstance(index, Tensor) or index.dtype != _native.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if index.dim() > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    if isinstance(value, Tensor) and value.dim() != 0:
        raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but got tensor "
                           f"with {value.dim()} dimension(s).")
    ndim = input.dim()
    dim = _wrap_dim(dim, ndim)
    size = input.shape[dim] if ndim else 1
    positions = index.reshape(-1)
    bad = positions[(positions < -size) | (positions >= size)]
    if bad.numel():
        raise IndexError(f"index {bad[0].item()} is out of bounds for dimension {dim} with size "
                         f"{size}")
    mask = _native.zeros(size, dtype=_native.bool, device=input.device)
    mask[positions] = True
    return mask.reshape([size] + [1] * (ndim - dim - 1)) if ndim else mask.reshape(())


@_numpy_names.accepts
def index_fill(input, dim, index, value):
    """`gradrs.index_fill(input, dim, index, value)`: a copy of `input` whose slices at `index`
    along `dim` hold `value` (a number or a 0-dim tensor, which gets the filled gradient).

    Examples:
        >>> gradrs.zeros(2, 3).index_fill(1, gradrs.tensor([0, 2]), 7.0)
        tensor([[7., 0., 7.],
                [7., 0., 7.]])
    """
    mask = _index_fill_mask(input, dim, index, value)
    with _no_grad():
        res = input.masked_fill(mask, value)
    d = _wrap_dim(dim, input.dim()) if input.dim() else 0
    if isinstance(value, Tensor):  # IndexFillBackward1: the value gets the filled gradient
        return _node("IndexFillBackward1", res, [input, value],
                     lambda g: (g.masked_fill(mask, 0),
                                g.masked_fill(~mask, 0).sum().to(value.dtype)),
                     saved=[("dim", d), ("index", index)])
    return _node("IndexFillBackward0", res, [input], lambda g: (g.masked_fill(mask, 0),),
                 saved=[("dim", d), ("index", index)])


def _index_fill_(self, dim, index, value):
    """`Tensor.index_fill_(dim, index, value)`: `index_fill` in place."""
    mask = _index_fill_mask(self, dim, index, value)
    dims = _expanded_dims(self)
    if dims:
        return _fill_expanded(self, "index_fill_", 1913, mask, value, dims)
    return self.masked_fill_(mask, value)


# ---- fills of expanded tensors ---------------------------------------------------------------
# PyTorch's masked_fill_ and index_fill_ write through an expanded tensor (a dim of stride 0),
# with a deprecation warning, where its other in-place ops raise the internal-overlap error:
# every memory location that some filled element maps to then holds the value.

def _fill_expanded(self, name, line, mask, value, dims):
    """`self.<name>(mask, value)` on an expanded `self`: PyTorch's warning, then the fill of
    `self`'s memory (the expanded dims collapsed to size 1, the mask reduced over them by
    `any`); returns `self`."""
    warnings.warn(_EXPANDED.format(name, "tensor[mask] = scalar", line), UserWarning,
                  stacklevel=3)
    shape = [1 if d in dims else n for d, n in enumerate(self.shape)]
    memory = self.as_strided(shape, self.stride(), self.storage_offset())
    mask = mask.expand(self.shape)
    for d in dims:
        mask = mask.any(d, keepdim=True)
    memory.masked_fill_(mask, value)
    return self


_native_masked_fill_ = Tensor.masked_fill_


def _masked_fill_(self, mask, value):
    dims = _expanded_dims(self)
    if dims and isinstance(mask, Tensor) and mask.dtype == _native.bool and (
            not isinstance(value, Tensor) or value.dim() == 0):
        try:
            mask.expand(self.shape)
        except RuntimeError:
            pass  # the native op raises PyTorch's error
        else:
            return _fill_expanded(self, "masked_fill_", 2450, mask, value, dims)
    return _native_masked_fill_(self, mask, value)


_masked_fill_.__name__ = _masked_fill_.__qualname__ = "masked_fill_"
_masked_fill_.__doc__ = _native_masked_fill_.__doc__


# ---- repeat_interleave: an index_select whose index repeats positions ------------------------------

def _repeat_counts(repeats, size, dim):
    """`repeats` (an int or an integer tensor) as a list of `size` counts, after PyTorch's checks."""
    if isinstance(repeats, Tensor):
        if repeats.dim() > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        if repeats.dtype not in (_native.int64, _native.int32):
            raise NotImplementedError('"repeat_interleave_cpu" not implemented for '
                                      f"'{_dtype_name(repeats.dtype)}'")
        counts = repeats.reshape(-1).tolist()
        if len(counts) == 1:
            counts = counts * size
        elif len(counts) != size:
            raise RuntimeError("repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {len(counts)} and input.size({dim}) = {size}")
    else:
        counts = [repeats] * size
    if any(c < 0 for c in counts):
        raise RuntimeError("Repeats must be non-negative")
    return counts


@_numpy_names.accepts
def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """`gradrs.repeat_interleave(input, repeats, dim=None, *, output_size=None)`: each slice of
    `input` along `dim` (of the flattened input when `dim` is None) repeated `repeats` times;
    `gradrs.repeat_interleave(repeats)` repeats each position of `repeats` by its value.

    Examples:
        >>> gradrs.repeat_interleave(gradrs.tensor([1, 2]), 2)
        tensor([1, 1, 2, 2])
    """
    if repeats is None:  # the one-argument form: the positions of `input` repeated
        repeats = input
        if repeats.dim() != 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        input = _native.arange(repeats.shape[0], device=repeats.device)
    if dim is None:
        input, dim = input.reshape(-1), 0
    ndim = input.dim()
    dim = _wrap_dim(dim, ndim)
    size = input.shape[dim] if ndim else 1
    counts = _repeat_counts(repeats, size, dim)
    total = sum(counts)
    int_repeats = isinstance(repeats, int) and not isinstance(repeats, bool)
    if output_size is not None and output_size != total:
        if int_repeats:
            raise RuntimeError(f"repeat_interleave: Invalid output_size, expected {total} but "
                               f"got {output_size}")
        raise RuntimeError("allocated size does not match required size")
    if total > 1 << 28:
        # A result past memory fails at its allocation with PyTorch's error, not at the
        # (larger) index's in NumPy.
        shape = list(input.shape) or [1]
        shape[dim] = total
        _native.empty(shape, dtype=input.dtype, device=input.device)
    if int_repeats and ndim:
        # ATen's int-repeats path: unsqueeze, expand, a contiguous clone, flatten (its nodes
        # ViewBackward0 over CloneBackward0, not an index_select)
        shape = list(input.shape)
        shape.insert(dim + 1, repeats)
        return input.unsqueeze(dim + 1).expand(shape).clone(
            memory_format=_G.contiguous_format).flatten(dim, dim + 1)
    index = _native.tensor(np.repeat(np.arange(size), counts).astype(np.int64),
                           device=input.device)
    return (input.reshape(1) if ndim == 0 else input).index_select(dim, index)


Tensor.index_fill = _method(index_fill)
Tensor.index_fill_ = _index_fill_
Tensor.masked_fill_ = _masked_fill_
Tensor.repeat_interleave = _method(repeat_interleave)
