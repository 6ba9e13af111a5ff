"""Sparse functions of `gradrs.nn.functional`: one_hot, embedding, embedding_bag.
"""

from __future__ import annotations

from ... import _native
from ..._native import Tensor as _Tensor
from ._helpers import _check_tensor_args, _i64, _INF, _one_node, _opmath


def one_hot(input: _Tensor, num_classes: int = -1) -> _Tensor:
    """One-hot encoding (PyTorch documents the first parameter as ``tensor``; its parser, so
    gradrs too, names it ``input``): an int64 tensor of shape (*input.shape, num_classes) with a 1
    at each index.

    Args:
        input: class indices (int64).
        num_classes: the number of classes (default: one more than the largest index).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.one_hot(gradrs.tensor([0, 2]), 3)
        tensor([[1, 0, 0],
                [0, 0, 1]])
    """
    from ... import int64, zeros

    if input.dtype != int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if hasattr(type(input), "_vmap_level"):
        from ... import _vmap  # under vmap: its batching rule (Note [vmap])
        return _vmap.one_hot(input, num_classes)
    if num_classes == -1:
        num_classes = int(input.max().item()) + 1 if input.numel() > 0 else 0
    if input.numel() > 0 and (int(input.min().item()) < 0):
        raise RuntimeError("Class values must be non-negative.")
    if input.numel() > 0 and int(input.max().item()) >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = zeros(*input.shape, num_classes, dtype=int64, device=input.device)
    return out.scatter(-1, input.unsqueeze(-1), 1)


def embedding(input: _Tensor, weight: _Tensor, padding_idx: int | None = None,
              max_norm: float | None = None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> _Tensor:
    """Looks up rows of `weight` by index: the result has shape (*input.shape,
    embedding_dim).

    Args:
        input: indices (int64), any shape.
        weight: the embedding matrix, shape (num_embeddings, embedding_dim).
        padding_idx: a row whose gradient is always zero.
        max_norm: rows looked up with a larger norm are renormalized in place to this norm.
        norm_type: the p of the norm for `max_norm` (default 2).
        scale_grad_by_freq: scale gradients by the inverse frequency of the indices in the batch.
        sparse: accepted for PyTorch's signature; gradients are dense.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> w = gradrs.arange(6.0).reshape(3, 2)
        >>> F.embedding(gradrs.tensor([2, 0]), w)
        tensor([[4., 5.],
                [0., 1.]])
    """
    # sparse=True is accepted, but the gradient is dense (gradrs has no sparse tensors).
    if hasattr(type(input), "_vmap_level"):
        from ... import _vmap  # batched indices under vmap: its batching rule (Note [vmap])
        return _vmap.embedding(input, weight, padding_idx, max_norm, norm_type,
                               scale_grad_by_freq, sparse)
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx += weight.shape[0]
    if input.device != weight.device:
        # PyTorch's embedding is weight.index_select(0, indices): that kernel's device check
        # raises here.
        weight.index_select(0, input.reshape(-1))
    if input.dtype not in (_native.int64, _native.int32):
        # PyTorch names the type as its legacy Tensor types, but bool (which has none) as
        # ATen's backend type (the GPU named as CUDA, as `type()` names it).
        kind = input.type()
        if input.dtype == _native.bool:
            kind = "CPUBoolType" if input.device.type == "cpu" else "CUDABoolType"
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got {kind} instead (while checking arguments for "
            "embedding)")
    if input.numel():
        # PyTorch's bounds check (w[input] below would wrap negative indices). GPU indices are
        # checked on their host copy: valid for indices sent from the host, as a training
        # step's are, so nothing is read back (tests/test_nn_gpu.py); indices computed on the
        # GPU are downloaded once.
        host = input if input.device.type == "cpu" else input.cpu()
        if bool(((host < 0) | (host >= weight.shape[0])).any()):
            raise IndexError("index out of range in self")
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    freq = _index_frequency(input, weight.shape[0]) if scale_grad_by_freq else None

    def embed(w):
        out = w[input]
        if freq is not None:
            # Each row's gradient divided by how often its index occurs; the value is unchanged.
            out = out.detach() + (out - out.detach()) / freq
        if padding_idx is not None:
            # Rows at padding_idx get no gradient (PyTorch's EmbeddingBackward rule).
            pad = (input == padding_idx).unsqueeze(-1)
            out = out.masked_fill(pad, 0.0) + w[input].detach().masked_fill(~pad, 0.0)
        return out

    # float16 on the GPU gathers and accumulates its gradient in float32, rounded once, as
    # PyTorch's CUDA kernel (a float16 scatter-add, rounding after each add, is the host's).
    gpu = weight.device.type != "cpu"
    return _one_node("EmbeddingBackward0", _opmath(embed) if gpu else embed, weight, saved=lambda: [
        ("indices", input), ("padding_idx", _i64(-1 if padding_idx is None else padding_idx)),
        ("scale_grad_by_freq", bool(scale_grad_by_freq)), ("sparse", bool(sparse)),
        ("weight_sym_argsize_0", weight.shape[0])])


def _index_frequency(input, rows):
    """How often each element's index occurs in `input`, shaped [*input.shape, 1]."""
    from ... import no_grad, ones, zeros

    with no_grad():
        flat = input.reshape(-1)
        counts = zeros(rows, device=input.device).index_add_(
            0, flat, ones(flat.shape[0], device=input.device))
        return counts[input].unsqueeze(-1)


def _embedding_renorm_(weight, input, max_norm, norm_type):
    """PyTorch's embedding_renorm_: each referenced row whose norm exceeds max_norm is scaled
    in place (outside autograd) by max_norm / (norm + 1e-7), the factor computed in double on
    the CPU and in float32 on the GPU (PyTorch's CUDA kernel accumulates float rows in float).
    A row referenced twice is scaled once: every row is read before any is written."""
    from ... import float32, float64, no_grad, where

    with no_grad():
        w = weight.detach()
        idx = input.detach().reshape(-1)
        if idx.numel() == 0:
            return
        rows = w[idx]
        acc = float64 if w.device.type == "cpu" else float32
        norms = rows.norm(norm_type, 1, True).to(acc)
        scale = where(norms > max_norm, max_norm / (norms + 1e-7), norms * 0 + 1)
        w[idx] = rows * scale.to(w.dtype)


# -- embedding_bag --


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                  scale_grad_by_freq=False, mode="mean", sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """Sums, averages or takes the maximum of bags of embedding rows, without
    materializing the looked-up rows.

    Args:
        input: indices: a 2-D tensor (one bag per row) or 1-D with `offsets`.
        weight: the embedding matrix, shape (num_embeddings, embedding_dim).
        offsets: the start of each bag in a 1-D `input`.
        max_norm: rows looked up with a larger norm are renormalized in place to this norm.
        norm_type: the p of the norm for `max_norm` (default 2).
        scale_grad_by_freq: scale gradients by the inverse frequency of the indices.
        mode: 'sum', 'mean' (default) or 'max'.
        sparse: accepted for PyTorch's signature; gradients are dense.
        per_sample_weights: weights of each index (mode 'sum' only).
        include_last_offset: `offsets` has one more entry, the end of the last bag.
        padding_idx: an index that is left out of the bags.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> w = gradrs.arange(6.0).reshape(3, 2)
        >>> F.embedding_bag(gradrs.tensor([0, 1, 2]), w, gradrs.tensor([0, 2]), mode='sum')
        tensor([[2., 4.],
                [4., 5.]])
    """
    import warnings

    if weight.dtype == _native.int64 and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage "
                      "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
                      "`embedding_bag(input, weight, ...)`.", stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is "
                         f"not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if not weight.dim() == 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found offsets "
                             f"of type {type(offsets)}")
        bags, length = input.shape
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
        starts = [b * length for b in range(bags)]
        kind = input.type()
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        starts = [int(v) for v in offsets.detach().cpu().tolist()]
        kind = offsets.type()
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    elif mode not in ("sum", "mean"):
        raise ValueError("mode has to be one of sum, mean or max")
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            "GitHub.")
    return _embedding_bag(input, weight, starts, kind, scale_grad_by_freq, mode,
                          per_sample_weights, include_last_offset, padding_idx)


def _embedding_bag(input, weight, starts, kind, scale_grad_by_freq, mode, per_sample_weights,
                   include_last_offset, padding_idx):
    """PyTorch's embedding_bag kernel: the bags [offsets[b], offsets[b + 1]) of the 1-D
    `input` gathered into a padded [bags, longest, dim] block (padding_idx and the padding
    masked out) and reduced; an empty bag gives zeros."""
    import numpy as np

    from ... import tensor

    num = weight.shape[0]
    if padding_idx is not None:
        if not -num <= padding_idx < num:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, -{num} "
                               f"through {num - 1}, but got {padding_idx}")
        padding_idx %= num
    idx = input.detach().cpu().numpy().reshape(-1).astype(np.int64)
    if len(starts) and starts[0] != 0:
        # (PyTorch prints the 0-dim tensor offsets[0], its type on a second line)
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch "
                           f"has to start from position 0. However, got {starts[0]}\n"
                           f"[ {kind}{{}} ]")
    if len(starts) and starts[-1] > len(idx):
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {len(idx)} but "
                           f"got offsets[-1] of {starts[-1]}")
    bounds = np.array(list(starts) + ([] if include_last_offset else [len(idx)]), np.int64)
    lengths = np.maximum(bounds[1:] - bounds[:-1], 0)
    longest = max(int(lengths.max()) if len(lengths) else 0, 1)
    pos = bounds[:-1, None] + np.arange(longest)[None, :]
    valid = np.arange(longest)[None, :] < lengths[:, None]
    pos = np.where(valid, pos, 0) if len(idx) else np.zeros_like(pos)
    rows_at = idx[pos] if len(idx) else pos
    if padding_idx is not None:
        valid &= rows_at != padding_idx
    dev = weight.device
    rows_t = tensor(rows_at, device=dev)
    pos_t = tensor(pos, device=dev)
    keep = tensor(valid[..., None], device=dev)
    count = tensor(valid.sum(1, keepdims=True), dtype=weight.dtype, device=dev)
    freq = None
    if scale_grad_by_freq:
        counts = np.bincount(idx, minlength=num)
        freq = tensor(counts[rows_at][..., None], dtype=weight.dtype, device=dev)

    def bag(w, psw):
        rows = w[rows_t]
        if freq is not None:
            rows = rows.detach() + (rows - rows.detach()) / freq
        if mode == "max":
            out = rows.masked_fill(~keep, -_INF).max(1)[0]
            return out.masked_fill(count == 0, 0.0)
        if psw is not None:
            rows = rows * psw.reshape(-1)[pos_t].unsqueeze(-1)
        out = rows.masked_fill(~keep, 0.0).sum(1)
        return out / count.clamp(min=1) if mode == "mean" else out

    # weight is saved only for per_sample_weights' gradient
    psw_grad = per_sample_weights is not None and per_sample_weights.requires_grad
    return _one_node("EmbeddingBagBackward0", bag, weight, per_sample_weights,
                     saves=(0, 1) if psw_grad else (1,))


# Each function wrapped as PyTorch's fails (`_check_tensor_args` with its spec,
# `_check_conv_args`) and batched by its vmap rule (`_vmap_rule`): one static name each.
one_hot = _check_tensor_args(one_hot, "one_hot(input)")
embedding = _check_tensor_args(embedding, "embedding(weight, indices=input)")
