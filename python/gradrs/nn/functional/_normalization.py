"""Normalization functions of `gradrs.nn.functional`: batch_norm, layer_norm, group_norm,
instance_norm, rms_norm, local_response_norm, normalize.
"""

from __future__ import annotations

from collections.abc import Sequence

from ... import _native
from ..._native import Tensor as _Tensor
from ._helpers import (
    _check_tensor_args, _dual_node, _live_tangent, _one_node, _opmath, _scalar_name,
)
from ._padding import pad
from ._pooling import avg_pool2d


def layer_norm(input: _Tensor, normalized_shape: int | Sequence[int], weight: _Tensor | None = None,
               bias: _Tensor | None = None, eps: float = 1e-5) -> _Tensor:
    """Layer normalization: normalizes over the last `len(normalized_shape)` dimensions
    (mean 0, variance 1), then applies `weight` and `bias` elementwise.

    Args:
        input: shape (*, *normalized_shape).
        normalized_shape: the shape of the trailing dimensions to normalize over.
        weight: elementwise scale of shape `normalized_shape`, or None.
        bias: elementwise shift of shape `normalized_shape`, or None.
        eps: added to the variance (default 1e-5).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.layer_norm(gradrs.tensor([[1.0, 2.0, 3.0]]), (3,))
        tensor([[-1.2247,  0.0000,  1.2247]])
    """
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    # One native op (ATen's CPU kernel, src/ops/norm.rs) with its NativeLayerNormBackward0.
    _check_mixed_dtypes(input, weight, bias)
    if all(_live_tangent(t) is None for t in (input, weight, bias)):
        return _native.native_layer_norm(input, list(normalized_shape), weight, bias, eps)[0]
    # Forward mode: the native op has no forward formula (nor its backward's tangents of the
    # saved statistics), so under a live tangent it is composed, as one node of its name whose
    # tangent and every higher derivative (`jacfwd(jacfwd)`, `hessian`) the ops give.
    dims = tuple(range(input.dim() - len(normalized_shape), input.dim()))

    def composed(x, w, b):
        centered = x - x.mean(dims, keepdim=True)
        y = centered * ((centered * centered).mean(dims, keepdim=True) + eps).rsqrt()
        if w is not None:
            y = y * w
        return y if b is None else y + b

    if any(hasattr(type(t), "_vmap_level") for t in (input, weight, bias)) or not (
            _native.is_grad_enabled() and any(
                isinstance(t, _Tensor) and t.requires_grad for t in (input, weight, bias))):
        return _opmath(composed)(input, weight, bias)  # (batched: the ops' own rules)
    return _dual_node("NativeLayerNormBackward0", _opmath(composed), [input, weight, bias], None)


def batch_norm(input: _Tensor, running_mean: _Tensor | None, running_var: _Tensor | None,
               weight: _Tensor | None = None, bias: _Tensor | None = None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5) -> _Tensor:
    """Batch normalization: normalizes each channel (dimension 1) with the batch's
    statistics in training, or with `running_mean` / `running_var` otherwise, then scales by
    `weight` and shifts by `bias`. In training the running statistics are updated in place.

    Args:
        input: shape (N, C, *).
        running_mean: shape (C), or None.
        running_var: shape (C), or None.
        weight: the per-channel scale, shape (C), or None.
        bias: the per-channel shift, shape (C), or None.
        training: use (and update from) the batch statistics (default False).
        momentum: the running statistics' update factor (default 0.1).
        eps: added to the variance (default 1e-5).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> x = gradrs.tensor([[1.0], [3.0]])
        >>> F.batch_norm(x, None, None, training=True)
        tensor([[-1.0000],
                [ 1.0000]])
    """
    if training:
        _verify_batch_size(input.size())
    if input.numel() == 0:
        # ATen's batch_norm: an empty input is cloned (not viewed: the graph stays connected),
        # scaled and shifted by the first channel's parameters; the statistics are untouched.
        out = input.clone()
        if weight is not None:
            out = out * weight[0]
        if bias is not None:
            out = out + bias[0]
        return out
    # One native op (ATen's CPU kernels, src/ops/norm.rs): its NativeBatchNormBackward0 node,
    # the running statistics updated in place.
    if input.is_floating_point():  # (an integer input: "batch_norm" not implemented, natively)
        _check_mixed_dtypes(input, weight, bias, running_mean, running_var)
    if all(_live_tangent(t) is None for t in (input, weight, bias)):
        return _native.native_batch_norm(input, weight, bias, running_mean, running_var,
                                         training, momentum, eps)[0]
    return _batch_norm_composed(input, running_mean, running_var, weight, bias, training,
                                momentum, eps)


def _batch_norm_composed(input, running_mean, running_var, weight, bias, training, momentum,
                         eps):
    """`batch_norm` under a live tangent, as `layer_norm`'s: the native op has no forward
    formula, so it is composed (one NativeBatchNormBackward0 node); the running statistics
    are updated by the native op on the detached values, bit for bit."""
    from ... import no_grad
    from ...autograd.forward_ad import _set_fwd_grad_enabled

    batch_stats = training or running_mean is None or running_var is None
    if training and (running_mean is not None or running_var is not None):
        with no_grad(), _set_fwd_grad_enabled(False):
            _native.native_batch_norm(input.detach(), None, None, running_mean, running_var,
                                      True, momentum, eps)
    dims = tuple(d for d in range(input.dim()) if d != 1)
    shape = [1, input.shape[1]] + [1] * (input.dim() - 2)
    stats = None if batch_stats else (running_mean.detach().view(shape),
                                      running_var.detach().view(shape))

    def composed(x, w, b):
        if stats is None:
            centered = x - x.mean(dims, keepdim=True)
            var = (centered * centered).mean(dims, keepdim=True)
        else:
            centered, var = x - stats[0], stats[1]
        y = centered * (var + eps).rsqrt()
        if w is not None:
            y = y * w.view(shape)
        return y if b is None else y + b.view(shape)

    if any(hasattr(type(t), "_vmap_level") for t in (input, weight, bias)) or not (
            _native.is_grad_enabled() and any(
                isinstance(t, _Tensor) and t.requires_grad for t in (input, weight, bias))):
        return _opmath(composed)(input, weight, bias)
    return _dual_node("NativeBatchNormBackward0", _opmath(composed), [input, weight, bias],
                      None)


def normalize(input: _Tensor, p: float = 2.0, dim: int | Sequence[int] = 1, eps: float = 1e-12,
              out: _Tensor | None = None) -> _Tensor:
    """Divides `input` by its p-norm along `dim` (at least `eps`), so each slice has
    norm 1.

    Args:
        input: a tensor of any shape.
        p: the norm's degree (default 2).
        dim: the dimension (or dimensions) the norm runs along (default 1).
        eps: the smallest norm divided by (default 1e-12).
        out: an optional output tensor.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.normalize(gradrs.tensor([[3.0, 4.0]]))
        tensor([[0.6000, 0.8000]])
    """
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denom
    from ... import div

    return div(input, denom, out=out)  # written in place, as PyTorch (spectral norm's u, v)


# -- normalization --


def _check_mixed_dtypes(input, *parameters):
    """ATen's CPU norm kernels (mixed_type.h): parameters of another dtype than the input (the
    first one given decides) are allowed only as float32 ones of a float16 / bfloat16 input;
    a float64 batch fed to a float32 model is refused, not computed."""
    given = [p for p in parameters if p is not None]
    if not given or input.device.type != "cpu":
        return
    if given[0].dtype == input.dtype:
        for p in given:  # the kernel reads each parameter as the input's type
            if p.dtype != input.dtype:
                raise RuntimeError(f"expected scalar type {_scalar_name(input.dtype)} but found "
                                   f"{_scalar_name(p.dtype)}")
        return
    if any(p.dtype != _native.float32 for p in given):
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    if input.dtype not in (_native.float16, _native.bfloat16):
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


def _verify_batch_size(size):
    prod = size[0]
    for s in size[2:]:
        prod *= s
    if prod == 1:
        raise ValueError("Expected more than 1 value per channel when training, got input size "
                         f"{size}")


def _verify_spatial_size(size):
    prod = 1
    for s in size[2:]:
        prod *= s
    if prod == 1:
        raise ValueError("Expected more than 1 spatial element when training, got input size "
                         f"{size}")


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Group normalization: splits the channels into `num_groups` groups and
    normalizes each group of each sample, then applies the per-channel `weight` and `bias`.

    Args:
        input: shape (N, C, *).
        num_groups: the number of groups; divides C.
        weight: the per-channel scale, shape (C), or None.
        bias: the per-channel shift, shape (C), or None.
        eps: added to the variance (default 1e-5).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.group_norm(gradrs.tensor([[[1.0], [3.0], [0.0], [2.0]]]), 2)
        tensor([[[-1.0000],
                 [ 1.0000],
                 [-1.0000],
                 [ 1.0000]]])
    """
    if input.dim() < 2:
        raise RuntimeError("Expected at least 2 dimensions for input tensor but received "
                           f"{input.dim()}")
    n, c = input.shape[0], input.shape[1]
    _verify_batch_size([n * c // num_groups, num_groups] + list(input.shape[2:]))
    if c % num_groups != 0:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got input "
            f"of shape {list(input.shape)} and num_groups={num_groups}")
    for what, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != c):
            raise RuntimeError(
                f"Expected {what} to be a vector of size equal to the number of channels in "
                f"input, but got {what} of shape {list(t.shape)} and input of shape "
                f"{list(input.shape)}")
    _check_mixed_dtypes(input, weight, bias)
    shape = [1, c] + [1] * (input.dim() - 2)

    def norm(x, w, b):
        g = x.reshape(n, num_groups, -1)
        mean = g.mean(-1, keepdim=True)
        var = g.var(-1, unbiased=False, keepdim=True)
        out = ((g - mean) / (var + eps).sqrt()).reshape(*x.shape)
        if w is not None:
            out = out * w.reshape(*shape)
        if b is not None:
            out = out + b.reshape(*shape)
        return out

    return _one_node("NativeGroupNormBackward0", _opmath(norm), input, weight, bias,
                     saves=(0, 1))


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Instance normalization: normalizes each channel of each sample over its
    spatial dimensions.

    Args:
        input: shape (N, C, *spatial).
        running_mean: optional running means, shape (C).
        running_var: optional running variances, shape (C).
        weight: the per-channel scale, shape (C), or None.
        bias: the per-channel shift, shape (C), or None.
        use_input_stats: normalize with the input's statistics (default True).
        momentum: the running statistics' update factor (default 0.1).
        eps: added to the variance (default 1e-5).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.instance_norm(gradrs.tensor([[[1.0, 3.0]]]))
        tensor([[[-1.0000,  1.0000]]])
    """
    from ... import no_grad

    if use_input_stats:
        _verify_spatial_size(input.size())
    elif running_mean is None or running_var is None:
        raise RuntimeError("Expected running_mean and running_var to be defined when "
                           "use_input_stats is false")
    # PyTorch's instance_norm: batch norm of the [1, N*C, *] view with the per-channel
    # tensors repeated N times; the running stats become the mean of the N updated copies.
    n, c = input.shape[0], input.shape[1]
    x = input.contiguous().view(1, n * c, *input.shape[2:])
    rm = running_mean.repeat(n) if running_mean is not None else None
    rv = running_var.repeat(n) if running_var is not None else None
    w = weight.repeat(n) if weight is not None else None
    b = bias.repeat(n) if bias is not None else None
    out = batch_norm(x, rm, rv, w, b, use_input_stats, momentum, eps)
    if use_input_stats:
        with no_grad():
            if running_mean is not None:
                running_mean.copy_(rm.view(n, c).mean(0))
            if running_var is not None:
                running_var.copy_(rv.view(n, c).mean(0))
    return out.view(*input.shape)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """Root-mean-square normalization: x / sqrt(mean(x^2) + eps) over the last
    `len(normalized_shape)` dimensions, times `weight`.

    Args:
        input: shape (*, *normalized_shape).
        normalized_shape: the shape of the trailing dimensions to normalize over.
        weight: elementwise scale of shape `normalized_shape`, or None.
        eps: added to the mean square (default: the dtype's machine epsilon).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.rms_norm(gradrs.tensor([[3.0, 4.0]]), (2,))
        tensor([[0.8485, 1.1314]])
    """
    from ... import finfo

    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    k = len(normalized_shape)
    if tuple(input.shape[input.dim() - k:]) != tuple(normalized_shape):
        raise RuntimeError(
            f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
            f"[*{', '.join(str(s) for s in normalized_shape)}], but got input of size"
            f"{list(input.shape)}")
    dims = tuple(range(input.dim() - k, input.dim()))
    if not input.is_floating_point():
        raise NotImplementedError(f'"rms_norm" not implemented for \'{_scalar_name(input.dtype)}\'')
    if weight is not None and weight.dtype != input.dtype:
        # ATen's composite rms_norm (no fused kernel for mixed dtypes): a float16 / bfloat16
        # input upcast to float32 (eps float32's), times the weight, cast back to the input's
        # dtype
        low = input.dtype in (_native.float16, _native.bfloat16)
        x = input.float() if low else input
        e = finfo(x.dtype).eps if eps is None else eps
        return (x * ((x * x).mean(dims, keepdim=True) + e).rsqrt() * weight).to(input.dtype)
    x = input.float() if input.dtype == _native.float16 else input
    e = finfo(input.dtype).eps if eps is None else eps
    out = x * ((x * x).mean(dims, keepdim=True) + e).rsqrt()
    out = out.type_as(input) if out.dtype != input.dtype else out
    return out * weight if weight is not None else out


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Local response normalization: divides each element by
    (k + alpha / size * sum of squares over `size` neighbouring channels)^beta.

    Args:
        input: shape (N, C, *).
        size: the number of neighbouring channels.
        alpha: the multiplicative factor (default 1e-4).
        beta: the exponent (default 0.75).
        k: the additive factor (default 1).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.local_response_norm(gradrs.ones(1, 4, 2), size=2).shape
        gradrs.Size([1, 4, 2])
    """
    d = input.dim()
    if d < 3:
        raise ValueError("Expected 3D or higher dimensionality                          input "
                         f"(got {d} dimensions)")
    if input.numel() == 0:
        return input
    div = input.mul(input)
    sizes = tuple(input.shape)
    # The average over `size` neighbouring channels: PyTorch's avg_pool3d with a (size, 1, 1)
    # kernel for inputs past 3-D is this avg_pool2d with a (size, 1) one.
    div = div.reshape(sizes[0], 1, sizes[1], -1)
    div = pad(div, (0, 0, size // 2, (size - 1) // 2))
    div = avg_pool2d(div, (size, 1), stride=1).squeeze(1).reshape(*sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


# Each function wrapped as PyTorch's fails (`_check_tensor_args` with its spec,
# `_check_conv_args`) and batched by its vmap rule (`_vmap_rule`): one static name each.
layer_norm = _check_tensor_args(layer_norm, "layer_norm(input)")
batch_norm = _check_tensor_args(
    batch_norm, "batch_norm(input, weight?, bias?, running_mean?, running_var?)")
rms_norm = _check_tensor_args(rms_norm, "rms_norm(input)")
