"""Folding an eval-mode BatchNorm into the preceding convolution or linear layer (PyTorch's
`torch.nn.utils.fusion`)."""

import copy

from ... import ones_like, rsqrt, zeros_like
from ..parameter import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights"]


def fuse_conv_bn_eval(conv, bn, transpose=False):
    r"""A copy of ``conv`` whose weight and bias include ``bn``'s eval-mode transformation
    (both modules must be in eval mode).

    Examples:
        >>> conv, bn = gradrs.nn.Conv2d(1, 2, 3).eval(), gradrs.nn.BatchNorm2d(2).eval()
        >>> fused = gradrs.nn.utils.fuse_conv_bn_eval(conv, bn)
        >>> x = gradrs.randn(1, 1, 5, 5)
        >>> gradrs.allclose(fused(x), bn(conv(x)), atol=1e-6)
        True
    """
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused_conv = copy.deepcopy(conv)
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused_conv.weight, fused_conv.bias = fuse_conv_bn_weights(
        fused_conv.weight, fused_conv.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight,
        bn.bias, transpose)
    return fused_conv


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    r"""The convolution weight and bias that compute ``bn(conv(x))`` in eval mode, as
    Parameters (``requires_grad`` as ``conv_w`` / ``conv_b``)."""
    conv_weight_dtype = conv_w.dtype
    conv_bias_dtype = conv_b.dtype if conv_b is not None else conv_weight_dtype
    if conv_b is None:
        conv_b = zeros_like(bn_rm)
    if bn_w is None:
        bn_w = ones_like(bn_rm)
    if bn_b is None:
        bn_b = zeros_like(bn_rm)
    bn_var_rsqrt = rsqrt(bn_rv + bn_eps)
    if transpose:
        shape = [1, -1] + [1] * (len(conv_w.shape) - 2)
    else:
        shape = [-1, 1] + [1] * (len(conv_w.shape) - 2)
    fused_conv_w = (conv_w * (bn_w * bn_var_rsqrt).reshape(shape)).to(dtype=conv_weight_dtype)
    fused_conv_b = ((conv_b - bn_rm) * bn_var_rsqrt * bn_w + bn_b).to(dtype=conv_bias_dtype)
    return (Parameter(fused_conv_w, conv_w.requires_grad),
            Parameter(fused_conv_b, conv_b.requires_grad))


def fuse_linear_bn_eval(linear, bn):
    r"""A copy of ``linear`` whose weight and bias include ``bn``'s eval-mode transformation
    (``bn`` normalizes linear's output features; both modules in eval mode).

    Examples:
        >>> lin, bn = gradrs.nn.Linear(3, 2).eval(), gradrs.nn.BatchNorm1d(2).eval()
        >>> fused = gradrs.nn.utils.fuse_linear_bn_eval(lin, bn)
        >>> x = gradrs.randn(4, 3)
        >>> gradrs.allclose(fused(x), bn(lin(x)), atol=1e-6)
        True
    """
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused_linear = copy.deepcopy(linear)
    # bn's channel dimension must broadcast against linear's last: equal sizes, or one.
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError(
            "To fuse, linear.out_features == bn.num_features or bn.num_features == 1, "
            f"got linear.out_features={linear.out_features} and "
            f"bn.num_features={bn.num_features}")
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused_linear.weight, fused_linear.bias = fuse_linear_bn_weights(
        fused_linear.weight, fused_linear.bias, bn.running_mean, bn.running_var, bn.eps,
        bn.weight, bn.bias)
    return fused_linear


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    r"""The linear weight and bias that compute ``bn(linear(x))`` in eval mode, as
    Parameters (``requires_grad`` as ``linear_w`` / ``linear_b``)."""
    linear_weight_dtype = linear_w.dtype
    linear_bias_dtype = linear_b.dtype if linear_b is not None else linear_weight_dtype
    if linear_b is None:
        linear_b = zeros_like(bn_rm)
    bn_scale = bn_w * rsqrt(bn_rv + bn_eps)
    fused_w = linear_w * bn_scale.unsqueeze(-1).to(dtype=linear_weight_dtype)
    fused_b = ((linear_b - bn_rm) * bn_scale + bn_b).to(dtype=linear_bias_dtype)
    return Parameter(fused_w, linear_w.requires_grad), Parameter(fused_b, linear_b.requires_grad)
