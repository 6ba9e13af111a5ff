"""Linear functions of `gradrs.nn.functional`: linear, bilinear.
"""

from __future__ import annotations

from ..._native import Tensor as _Tensor
from ._helpers import _check_tensor_args


def linear(input: _Tensor, weight: _Tensor, bias: _Tensor | None = None) -> _Tensor:
    """Affine map y = input @ weight.T + bias over the last dimension.

    Args:
        input: shape (*, in_features).
        weight: shape (out_features, in_features) (or (in_features) for a vector output).
        bias: shape (out_features), or None.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.linear(gradrs.ones(2, 3), gradrs.ones(4, 3), gradrs.zeros(4))
        tensor([[3., 3., 3., 3.],
                [3., 3., 3., 3.]])
    """
    # PyTorch's dispatch, so results carry its grad_fn: a 2-D input with bias is one addmm
    # (AddmmBackward0); a contiguous input of another rank, with a bias that is 1-D once
    # squeezed, is flattened to 2-D for addmm and viewed back (ViewBackward0); anything else
    # is matmul then an in-place add of the bias.
    if input.dim() == 0 or weight.dim() == 0:
        raise RuntimeError(
            "both arguments to linear need to be at least 1D, but they are "
            f"{input.dim()}D and {weight.dim()}D"
        )
    if any(hasattr(type(t), "_vmap_level") for t in (input, weight, bias)):
        # Under vmap: composed of the BatchedTensor's matmul and add rules (operators, so a
        # native tensor on the left defers to the batched one on the right).
        out = input @ weight.t()
        return out if bias is None else out + bias
    if bias is None:
        return input.matmul(weight.t())
    if input.dim() == 2:
        return bias.addmm(input, weight.t())
    if (
        (bias.dim() == 1 or bias.squeeze().dim() == 1)
        and bias.is_contiguous()
        and input.is_contiguous()
    ):
        lead = input.shape[:-1]
        rows = 1
        for d in lead:
            rows *= d
        out = bias.addmm(input.reshape(rows, input.shape[-1]), weight.t())
        return out.view(*lead, out.shape[1])
    return input.matmul(weight.t()).add_(bias)


def bilinear(input1, input2, weight, bias=None):
    """Bilinear map y = x1^T A x2 + b for each output feature.

    Args:
        input1: shape (*, in1_features).
        input2: shape (*, in2_features), the same leading dimensions.
        weight: shape (out_features, in1_features, in2_features).
        bias: shape (out_features), or None.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.bilinear(gradrs.ones(2, 3), gradrs.ones(2, 4), gradrs.ones(5, 3, 4)).shape
        gradrs.Size([2, 5])
    """
    if input1.dim() != input2.dim():
        raise RuntimeError(
            f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}")
    for i in range(input1.dim() - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: "
                               f"got {input1.shape[i]} and {input2.shape[i]}")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got "
                           f"{input1.shape[-1]} but expected {weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got "
                           f"{input2.shape[-1]} but expected {weight.shape[2]}")
    if bias is not None and bias.shape[0] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got "
                           f"{bias.shape[0]} but expected {weight.shape[0]}")
    out_f, in1, in2 = weight.shape
    lead = tuple(input1.shape[:-1])
    # y[..., o] = sum_j (x1 @ W[o])[..., j] * x2[..., j]
    t = input1.reshape(-1, in1).matmul(weight.permute(1, 0, 2).reshape(in1, out_f * in2))
    y = (t.reshape(-1, out_f, in2) * input2.reshape(-1, 1, in2)).sum(-1)
    y = y.view(*lead, out_f)
    return y + bias if bias is not None else y


# Each function wrapped as PyTorch's fails (`_check_tensor_args` with its spec,
# `_check_conv_args`) and batched by its vmap rule (`_vmap_rule`): one static name each.
linear = _check_tensor_args(linear, "linear(input, weight)")
bilinear = _check_tensor_args(bilinear, "bilinear(input1, input2, weight)")
