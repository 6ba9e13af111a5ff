"""vmap's batching rules for `gradrs.nn.functional` (functorch's batch rules): convolution,
embedding, losses, the spatial (pooling, interpolate, fold) and pointwise activations,
one_hot.
"""

from __future__ import annotations

from .. import _native
from . import BatchedTensor, _expand_to, _Fallback, _phys, _plain, Tensor, _top, _wrap


def conv(input, weight, bias, stride, padding, dilation, groups, nd):
    """F.conv{nd}d with batched operands, one native convolution (functorch's rule): a batched
    input alone folds the vmap batch into the conv batch; a batched weight folds it into the
    output channels of each group; both batched fold it into the groups. A batched bias is
    added after."""
    from ..nn import functional as F

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
    from .. import arange
    from ..nn import functional as F

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
    from .. import where

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
    from ..nn import functional as F

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
    from ..nn import functional as F

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
    physical tensor (in place on it where ``fn`` works in place), through every level of a
    nested vmap (`jacrev(jacfwd(F.gelu))`): elementwise, the levels' dims are plain dims."""
    levels, p = [], input
    while isinstance(p, BatchedTensor):
        levels.append(p._level)
        p = p._value
    if not isinstance(p, Tensor) or _top(list(args) + list(kwargs.values())):
        raise _Fallback()
    out = fn(p, *args, **kwargs)
    if out is p:
        return input
    for lvl in reversed(levels):
        out = BatchedTensor(out, lvl)
    return out


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
    from ..nn import functional as F

    p = tensor._value
    if num_classes == -1 or not isinstance(p, Tensor):
        raise _Fallback()  # the class count is read from the values: per sample
    return BatchedTensor(F.one_hot(p, num_classes), tensor._level)
