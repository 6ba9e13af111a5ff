"""Margin, ranking and embedding losses of `gradrs.nn.functional`: soft_margin,
margin_ranking, hinge_embedding, cosine_embedding, triplet_margin (with distance),
multi_margin, multilabel_margin, multilabel_soft_margin.
"""

from __future__ import annotations

from ... import _native
from ._helpers import _check_tensor_args, _one_node, _scalar_name
from ._activation import logsigmoid
from ._distance import pairwise_distance
from ._loss import _legacy_reduction, _reduce, _reduction_code


def _not_differentiable(op, name, t):
    """derivatives.yaml's `non_differentiable` arguments: with grad mode on, PyTorch's autograd
    kernel refuses one that requires grad, before the op checks anything else."""
    if t is not None and _native.is_grad_enabled() and t.requires_grad:
        raise RuntimeError(f"The function '{op}' is not differentiable with respect to argument "
                           f"'{name}'. This input cannot have requires_grad True.")


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Two-class logistic loss log(1 + exp(-target * input)), averaged.

    Args:
        input: scores, any shape.
        target: 1 or -1 per element.
        size_average: deprecated; use `reduction`.
        reduce: deprecated; use `reduction`.
        reduction: 'none' | 'mean' | 'sum': how the per-element losses are combined (default 'mean').

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.soft_margin_loss(gradrs.tensor([2.0, -1.0]), gradrs.tensor([1.0, -1.0]))
        tensor(0.2201)
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _reduction_code(reduction)
    _not_differentiable("soft_margin_loss", "target", target)
    if not (input.is_floating_point() or input.is_complex() or input.dtype == _native.bool):
        # ATen computes into an output of the input's dtype: neg_out, then mul_ / exp_ in place
        raise RuntimeError("result type Float can't be cast to the desired output type "
                           f"{_scalar_name(input.dtype)}")
    return _one_node("SoftMarginLossBackward0",
                     lambda x, t: _reduce((-x * t).exp().log1p(), reduction), input, target)


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction="mean"):
    """Ranking loss max(0, -target * (input1 - input2) + margin): `target`
    1 says input1 should rank higher, -1 that input2 should.

    Args:
        input1: scores.
        input2: scores of the same shape.
        target: 1 or -1 per element.
        margin: the margin (default 0).
        size_average: deprecated; use `reduction`.
        reduce: deprecated; use `reduction`.
        reduction: 'none' | 'mean' | 'sum': how the per-element losses are combined (default 'mean').

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.margin_ranking_loss(gradrs.tensor([1.0, 0.0]), gradrs.tensor([0.5, 0.5]), gradrs.tensor([1.0, 1.0]))
        tensor(0.2500)
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _reduction_code(reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} ")
    return _reduce((-target * (input1 - input2) + margin).clamp_min(0), reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """Hinge embedding loss: x where the target is 1, max(0, margin - x)
    where it is -1.

    Args:
        input: distances, any shape.
        target: 1 or -1 per element.
        margin: the margin (default 1.0).
        size_average: deprecated; use `reduction`.
        reduce: deprecated; use `reduction`.
        reduction: 'none' | 'mean' | 'sum': how the per-element losses are combined (default 'mean').

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.hinge_embedding_loss(gradrs.tensor([0.3, 0.4]), gradrs.tensor([1.0, -1.0]))
        tensor(0.4500)
    """
    from ... import where, zeros_like

    reduction = _legacy_reduction(size_average, reduce, reduction)
    _reduction_code(reduction)
    zeros = zeros_like(input)
    margin_clamp = (margin - input).clamp_min(0)
    out = where(target != 1, margin_clamp, zeros) + where(target != -1, input, zeros)
    return _reduce(out, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction="mean"):
    """1 - cos(x1, x2) where the target is 1, max(0, cos(x1, x2) - margin)
    where it is -1.

    Args:
        input1: embeddings, shape (N, D) or (D).
        input2: embeddings of the same shape.
        target: 1 or -1, shape (N) or ().
        margin: the margin for dissimilar pairs (default 0).
        size_average: deprecated; use `reduction`.
        reduce: deprecated; use `reduction`.
        reduction: 'none' | 'mean' | 'sum': how the per-element losses are combined (default 'mean').

    Examples:
        >>> import gradrs.nn.functional as F
        >>> a = gradrs.tensor([[1.0, 0.0], [1.0, 1.0]])
        >>> F.cosine_embedding_loss(a, gradrs.tensor([[1.0, 0.0], [1.0, -1.0]]), gradrs.tensor([1.0, -1.0]))
        tensor(0.)
    """
    from ... import where, zeros_like

    reduction = _legacy_reduction(size_average, reduce, reduction)
    _reduction_code(reduction)
    td = target.dim()
    if td not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if td == 1 and not (input1.dim() == 2 and input2.dim() == 2):
        raise RuntimeError("1D target tensor expects 2D input tensors, but found inputs with "
                           f"sizes {list(input1.shape)} and {list(input2.shape)}.")
    if td == 0 and not (input1.dim() == 1 and input2.dim() == 1):
        raise RuntimeError("0D target tensor expects 1D input tensors, but found inputs with "
                           f"sizes {list(input1.shape)} and {list(input2.shape)}.")
    prod_sum = (input1 * input2).sum(td)
    mag1 = (input1 * input1).sum(td) + 1e-12
    mag2 = (input2 * input2).sum(td) + 1e-12
    cos = prod_sum / (mag1 * mag2).sqrt()
    zeros = zeros_like(cos)
    out = where(target == 1, 1 - cos, zeros) + where(target == -1, (cos - margin).clamp_min(0),
                                                     zeros)
    return _reduce(out, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """Triplet loss max(d(a, p) - d(a, n) + margin, 0) with the p-norm
    distance d: anchors should be closer to the positives than to the negatives.

    Args:
        anchor: embeddings, shape (N, D) or (D).
        positive: embeddings of the same shape.
        negative: embeddings of the same shape.
        margin: the margin (default 1.0).
        p: the norm's degree (default 2).
        eps: added to the differences for stability (default 1e-6).
        swap: use the smaller of d(a, n) and d(p, n) (default False).
        size_average: deprecated; use `reduction`.
        reduce: deprecated; use `reduction`.
        reduction: 'none' | 'mean' | 'sum': how the per-element losses are combined (default 'mean').

    Examples:
        >>> import gradrs.nn.functional as F
        >>> a, p, n = gradrs.zeros(1, 2), gradrs.tensor([[1.0, 0.0]]), gradrs.tensor([[3.0, 0.0]])
        >>> F.triplet_margin_loss(a, p, n)
        tensor(0.)
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _reduction_code(reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a, pd, nd = anchor.dim(), positive.dim(), negative.dim()
    if not (a == pd and pd == nd):
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of "
            f"dimensions, but got: anchor {a}D, positive {pd}D, and negative {nd}D inputs")
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = dist_neg.minimum(pairwise_distance(positive, negative, p, eps))
    return _reduce((margin + dist_pos - dist_neg).clamp_min(0), reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """Triplet loss with a distance function of your choice:
    max(d(a, p) - d(a, n) + margin, 0).

    Args:
        anchor: embeddings.
        positive: embeddings of the same shape.
        negative: embeddings of the same shape.
        distance_function: a callable (x, y) -> distances; pairwise_distance by default.
        margin: the margin (default 1.0).
        swap: use the smaller of d(a, n) and d(p, n) (default False).
        reduction: 'none' | 'mean' | 'sum': how the per-element losses are combined (default 'mean').

    Examples:
        >>> import gradrs.nn.functional as F
        >>> a, p, n = gradrs.zeros(1, 2), gradrs.tensor([[1.0, 0.0]]), gradrs.tensor([[3.0, 0.0]])
        >>> F.triplet_margin_with_distance_loss(a, p, n, distance_function=lambda x, y: (x - y).abs().sum(-1))
        tensor(0.)
    """
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a, pd, nd = anchor.dim(), positive.dim(), negative.dim()
    if not (a == pd and pd == nd):
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of "
            f"dimensions, but got: anchor {a}D, positive {pd}D, and negative {nd}D inputs")
    if distance_function is None:
        distance_function = pairwise_distance
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:
        dist_neg = dist_neg.minimum(distance_function(positive, negative))
    return _reduce((margin + dist_pos - dist_neg).clamp_min(0), reduction)


def _margin_shape_check(input):
    d = input.dim()
    if not ((d == 2 and input.shape[1] != 0) or (d == 1 and input.shape[0] != 0) or d == 0):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, "
                           f"but got: {list(input.shape)}")
    return (1 if d <= 1 else input.shape[0]), (1 if d == 0 else input.shape[-1])


def _long_target(target):
    # ATen's margin kernels read the target through data_ptr<int64_t>()
    if str(target.dtype) != "gradrs.int64":
        raise RuntimeError(f"expected scalar type Long but found {_scalar_name(target.dtype)}")


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """Multi-class hinge loss: for each sample, the mean over the other
    classes j of max(0, margin - x[y] + x[j])^p.

    Args:
        input: scores, shape (N, C) or (C).
        target: class indices, shape (N) or ().
        p: 1 or 2 (default 1).
        margin: the margin (default 1).
        weight: a weight per class, shape (C).
        size_average: deprecated; use `reduction`.
        reduce: deprecated; use `reduction`.
        reduction: 'none' | 'mean' | 'sum': how the per-element losses are combined (default 'mean').

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.multi_margin_loss(gradrs.tensor([[0.1, 0.2, 0.4, 0.8]]), gradrs.tensor([3]))
        tensor(0.3250)
    """
    from ... import where

    reduction = _legacy_reduction(size_average, reduce, reduction)
    _reduction_code(reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    _not_differentiable("multi_margin_loss", "weight", weight)
    nframe, dim = _margin_shape_check(input)
    if not (target.dim() <= 1 and target.numel() == nframe):
        raise RuntimeError(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of "
            f"input samples (batch size). Expected target size [{nframe}], but got "
            f"{list(target.shape)}. Input has shape {list(input.shape)}.")
    if weight is not None and not (weight.dim() <= 1 and weight.numel() == dim):
        raise RuntimeError(f"inconsistent weight size, expected {dim} but got "
                           f"{list(weight.shape)}")
    _long_target(target)
    t = target.reshape(nframe, 1)
    if bool(((t < 0) | (t >= dim)).any()):
        raise RuntimeError("target out of range")

    def loss(x, w):
        x = x.reshape(nframe, dim)
        z = margin - x.gather(1, t) + x
        h = where(z > 0, z, z * 0)  # the kernel's strict `z > 0`
        if p == 2:
            h = h * h
        if w is not None:
            h = h * w[t]
        others = t != _class_range(dim, x.device)
        out = h.masked_fill(~others, 0).sum(1) / dim
        if reduction == "none":
            return out.reshape(()) if input.dim() <= 1 else out
        return _reduce(out, reduction)

    return _one_node("MultiMarginLossBackward0", loss, input, weight)


def _class_range(n, device):
    from ... import arange

    return arange(n, device=device).reshape(1, n)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Multi-label hinge loss: each sample's target lists its classes
    (padded with -1); each non-target class should score at least 1 below each target class.

    Args:
        input: scores, shape (N, C) or (C).
        target: class indices, the shape of `input`, the list ended by the first -1.
        size_average: deprecated; use `reduction`.
        reduce: deprecated; use `reduction`.
        reduction: 'none' | 'mean' | 'sum': how the per-element losses are combined (default 'mean').

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.multilabel_margin_loss(gradrs.tensor([[0.1, 0.2, 0.4, 0.8]]), gradrs.tensor([[3, 0, -1, 1]]))
        tensor(0.8500)
    """
    import numpy as np

    from ... import tensor, where

    reduction = _legacy_reduction(size_average, reduce, reduction)
    _reduction_code(reduction)
    nframe, dim = _margin_shape_check(input)
    if input.dim() <= 1:
        ok = target.dim() <= 1 and target.numel() == dim
    else:
        ok = target.dim() == 2 and tuple(target.shape) == (nframe, dim)
    if not ok:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    _long_target(target)
    t = target.detach().cpu().numpy().reshape(nframe, dim)
    if ((t < -1) | (t >= dim)).any():
        raise RuntimeError("argument #2 'target' is out of range")
    # Each row's targets are its entries before the first -1 (counted with repeats); the
    # other classes are the ones it is compared with.
    live = np.cumprod(t != -1, axis=1).astype(bool)
    counts = np.zeros((nframe, dim))
    for n in range(nframe):
        np.add.at(counts[n], t[n][live[n]], 1)
    dev = input.device
    cnt = tensor(counts, dtype=input.dtype, device=dev).unsqueeze(2)
    other = tensor(counts == 0, device=dev).unsqueeze(1)

    def loss(x):
        x = x.reshape(nframe, dim)
        z = 1 - x.unsqueeze(2) + x.unsqueeze(1)  # [n, target j, other i]
        h = where(z > 0, z, z * 0) * cnt
        out = h.masked_fill(~other, 0).sum((1, 2)) / dim
        if reduction == "none":
            return out.reshape(()) if input.dim() <= 1 else out
        return _reduce(out, reduction)

    return _one_node("MultilabelMarginLossBackward0", loss, input)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """Multi-label one-versus-all loss: the binary cross entropy on
    logits of each class, averaged over the classes.

    Args:
        input: logits, shape (N, C).
        target: 0 or 1 per class, the same shape.
        weight: a weight per class, shape (C).
        size_average: deprecated; use `reduction`.
        reduce: deprecated; use `reduction`.
        reduction: 'none' | 'mean' | 'sum': how the per-element losses are combined (default 'mean').

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.multilabel_soft_margin_loss(gradrs.tensor([[2.0, -1.0]]), gradrs.tensor([[1.0, 0.0]]))
        tensor(0.2201)
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return _reduce(loss, reduction)


# Each function wrapped as PyTorch's fails (`_check_tensor_args` with its spec,
# `_check_conv_args`) and batched by its vmap rule (`_vmap_rule`): one static name each.
soft_margin_loss = _check_tensor_args(soft_margin_loss, "soft_margin_loss(input, target)")
hinge_embedding_loss = _check_tensor_args(
    hinge_embedding_loss, "hinge_embedding_loss(input, target)")
cosine_embedding_loss = _check_tensor_args(
    cosine_embedding_loss, "cosine_embedding_loss(input1, input2, target)")
triplet_margin_loss = _check_tensor_args(
    triplet_margin_loss, "triplet_margin_loss(anchor, positive, negative)")
triplet_margin_with_distance_loss = _check_tensor_args(
    triplet_margin_with_distance_loss, ".ndim(anchor, positive, negative)")
multi_margin_loss = _check_tensor_args(multi_margin_loss, "multi_margin_loss(input, target)")
multilabel_margin_loss = _check_tensor_args(
    multilabel_margin_loss, "multilabel_margin_loss(input, target)")
multilabel_soft_margin_loss = _check_tensor_args(multilabel_soft_margin_loss, "log_sigmoid(input)")
