"""Distance functions of `gradrs.nn.functional`: pairwise_distance, pdist, cosine_similarity.
"""

from __future__ import annotations

from ._helpers import _check_tensor_args, _one_node


# -- distances --


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """p-norm distance ||x1 - x2 + eps||_p between the rows (last dimension)
    of x1 and x2.

    Args:
        x1: shape (N, D) or (D).
        x2: broadcastable with `x1`.
        p: the norm's degree (default 2).
        eps: added to the difference to avoid a zero norm's gradient (default 1e-6).
        keepdim: keep the reduced dimension (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.pairwise_distance(gradrs.tensor([[0.0, 0.0]]), gradrs.tensor([[3.0, 4.0]]))
        tensor([5.0000])
    """
    # PyTorch: norm(x1 - x2 + eps) over the last dim of the broadcast result.
    d = max(x1.dim(), x2.dim()) - 1
    return (x1 - x2 + eps).norm(p, d, keepdim)


def pdist(input, p=2):
    """p-norm distances between every pair of rows of a 2-D input: the upper triangle of the
    distance matrix, flattened, of length N (N - 1) / 2.

    Args:
        input: shape (N, M).
        p: the norm's degree (default 2).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.pdist(gradrs.tensor([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]]))
        tensor([ 5., 10.,  5.])
    """
    import numpy as np

    from ... import tensor

    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input.is_floating_point():
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.shape[0]
    if n <= 1:
        return input.new_zeros(0)
    rows, cols = np.triu_indices(n, 1)
    i, j = tensor(rows, device=input.device), tensor(cols, device=input.device)

    def dist(x):
        # the p-norm of each pair of rows i < j; a zero distance has a zero gradient
        d = x.index_select(0, i) - x.index_select(0, j)
        if p == 0:  # the count of differing entries: its gradient is zero, not absent
            return (d != 0).sum(1).to(d.dtype) + d.sum(1) * 0
        return d.norm(p, 1)

    return _one_node("PdistBackward0", dist, input)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """Cosine of the angle between x1 and x2 along `dim`:
    x1 . x2 / max(||x1|| ||x2||, eps).

    Args:
        x1: a tensor.
        x2: a tensor broadcastable with `x1`.
        dim: the dimension of the vectors (default 1).
        eps: the smallest denominator (default 1e-8).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.cosine_similarity(gradrs.tensor([[1.0, 0.0]]), gradrs.tensor([[1.0, 1.0]]))
        tensor([0.7071])
    """
    import numpy as np

    from ... import no_grad

    if not (x1.is_floating_point() or x2.is_floating_point()):
        raise RuntimeError("expected common dtype to be floating point, yet common dtype is "
                           f"{(x1 + x2).dtype}")
    shape = np.broadcast_shapes(tuple(x1.shape), tuple(x2.shape))
    a, b = x1.expand(*shape), x2.expand(*shape)
    # Each side divided by its norm first (PyTorch's order); the eps clamp is outside autograd.
    na = a.norm(2, dim, True).clone()
    nb = b.norm(2, dim, True).clone()
    with no_grad():
        na.clamp_min_(eps)
        nb.clamp_min_(eps)
    return ((a / na) * (b / nb)).sum(dim)


# Each function wrapped as PyTorch's fails (`_check_tensor_args` with its spec,
# `_check_conv_args`) and batched by its vmap rule (`_vmap_rule`): one static name each.
pairwise_distance = _check_tensor_args(pairwise_distance, "pairwise_distance(x1, x2)")
pdist = _check_tensor_args(pdist, "pdist(input)")
cosine_similarity = _check_tensor_args(cosine_similarity, "cosine_similarity(x1, x2)")
