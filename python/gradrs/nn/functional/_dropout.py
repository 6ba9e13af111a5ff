"""Dropout functions of `gradrs.nn.functional`: dropout, dropout1d/2d/3d, alpha_dropout,
feature_alpha_dropout.
"""

from __future__ import annotations

from ..._argparse import type_name as _type_name
from ... import _native
from ..._native import Tensor as _Tensor
from ._helpers import _check_tensor_args, _scalar_name


def dropout(input: _Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> _Tensor:
    """Zeroes each element with probability `p` during training and scales the others by
    1 / (1 - p), so the expectation is unchanged; returns `input` as it is when not training.

    Args:
        input: a tensor of any shape.
        p: the probability of zeroing an element (default 0.5).
        training: apply dropout (default True).
        inplace: write the result into `input` (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> y = F.dropout(gradrs.ones(1000), p=0.5)
        >>> sorted(set(y.tolist()))
        [0.0, 2.0]
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not isinstance(training, bool):  # ATen's `bool train`: no int, no NumPy bool
        raise TypeError(f"dropout(): argument 'train' (position 3) must be bool, not "
                        f"{_type_name(training)}")
    return _dropout_impl(input, p, training, inplace, False, False)


# -- dropout variants --


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _memory_order(t):
    """The dims of `t` outermost first in the order `empty_like(t)` lays them out: PyTorch's
    infer_dense_strides, an insertion sort by stride that keeps the contiguous order where a
    stride is 0 and puts the smaller size inside on equal strides."""
    sizes, strides = tuple(t.shape), t.stride()
    ndim = len(sizes)
    perm = list(range(ndim - 1, -1, -1))  # innermost first

    def should_swap(d0, d1):
        s0, s1 = strides[d0], strides[d1]
        if s0 == 0 or s1 == 0:
            return 0
        if s0 != s1:
            return -1 if s0 < s1 else 1
        return 1 if sizes[d0] > sizes[d1] else 0

    for i in range(1, ndim):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return perm[::-1]


def _dropout_impl(input, p, train, inplace, feature, alpha):
    """PyTorch's `_dropout_impl`: a keep-mask (one value per channel for the feature
    variants) scaled by 1/(1-p), or for alpha dropout the affine map that keeps SELU's
    mean and variance."""
    from ... import empty, no_grad, zeros

    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        z = zeros((), dtype=input.dtype, device=input.device)
        return input.mul_(z) if inplace else input * z
    if feature:
        if input.dim() < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2)
    else:
        shape = tuple(input.shape)
    with no_grad():
        # bernoulli_(1 - p) as PyTorch draws it, so a seed gives PyTorch's masks (and every
        # later draw of the stream stays in step). PyTorch's noise is empty_like(input), laid
        # out as the input is, and bernoulli_ fills it in memory order: a transposed input
        # gets its mask drawn in the order of its storage.
        perm = list(range(len(shape))) if feature else _memory_order(input)
        noise = empty([shape[d] for d in perm], dtype=input.dtype,
                      device=input.device).bernoulli_(1 - p)
        if perm != sorted(perm):
            noise = noise.permute([perm.index(d) for d in range(len(perm))])
        if not (input.is_floating_point() or input.is_complex()):
            # PyTorch scales the drawn noise in place (div_(1 - p); alpha dropout's
            # add(-1).mul_(...), a bool noise's add giving Long): not into an integer dtype
            out = "Long" if alpha and input.dtype == _native.bool else _scalar_name(input.dtype)
            raise RuntimeError(f"result type Float can't be cast to the desired output type {out}")
        if alpha:
            a_ = 1.7580993408473766
            a = 1.0 / ((a_ * a_ * p + 1) * (1 - p)) ** 0.5
            b = (noise - 1) * (a_ * a) + a_ * a * p
            noise = noise * a
        else:
            noise = noise / (1 - p)
    if not alpha:
        return input.mul_(noise) if inplace else input * noise
    return input.mul_(noise).add_(b) if inplace else input * noise + b


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels: each (sample, channel) 1-D feature map of an input of shape
    (N, C, *spatial) or (C, *spatial) is zeroed with probability `p` in training, the others
    scaled by 1 / (1 - p).

    Args:
        input: (N, C, *spatial) or (C, *spatial) with 1 spatial dimension.
        p: the probability of zeroing a channel (default 0.5).
        training: apply dropout (default True).
        inplace: write the result into `input` (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> y = F.dropout1d(gradrs.ones(1, 8, 3))
        >>> y.shape
        gradrs.Size([1, 8, 3])
    """
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {inp_dim}D input. Note that "
            "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs).")
    return _feature_dropout_unbatched(input, p, training, inplace, inp_dim == 3)


def _feature_dropout_unbatched(input, p, training, inplace, is_batched):
    if is_batched:
        return _dropout_impl(input, p, training, inplace, True, False)
    if not training or p == 0 or input.numel() == 0:
        return input
    # An unbatched input is one sample: PyTorch unsqueezes it in place, drops, squeezes back.
    result = _dropout_impl(input.unsqueeze(0), p, training, False, True, False).squeeze(0)
    return input.copy_(result) if inplace else result


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels: each (sample, channel) 2-D feature map of an input of shape
    (N, C, *spatial) or (C, *spatial) is zeroed with probability `p` in training, the others
    scaled by 1 / (1 - p).

    Args:
        input: (N, C, *spatial) or (C, *spatial) with 2 spatial dimensions.
        p: the probability of zeroing a channel (default 0.5).
        training: apply dropout (default True).
        inplace: write the result into `input` (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> y = F.dropout2d(gradrs.ones(1, 8, 3, 3))
        >>> y.shape
        gradrs.Size([1, 8, 3, 3])
    """
    import warnings

    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {inp_dim}-D input to dropout2d, which is deprecated and "
            "will result in an error in a future release. To retain the behavior and silence "
            "this warning, please use dropout instead. Note that dropout2d exists to provide "
            "channel-wise dropout on inputs with 2 spatial dimensions, a channel dimension, "
            "and an optional batch dimension (i.e. 3D or 4D inputs).", stacklevel=2)
    if inp_dim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C "
            "is the channel dim. This behavior will change in a future release to interpret "
            "the input as one without a batch dimension, i.e. shape (C, H, W). To maintain "
            "the 1D channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2)
    return _dropout_impl(input, p, training, inplace, True, False)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels: each (sample, channel) 3-D feature map of an input of shape
    (N, C, *spatial) or (C, *spatial) is zeroed with probability `p` in training, the others
    scaled by 1 / (1 - p).

    Args:
        input: (N, C, *spatial) or (C, *spatial) with 3 spatial dimensions.
        p: the probability of zeroing a channel (default 0.5).
        training: apply dropout (default True).
        inplace: write the result into `input` (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> y = F.dropout3d(gradrs.ones(1, 8, 3, 3, 3))
        >>> y.shape
        gradrs.Size([1, 8, 3, 3, 3])
    """
    import warnings

    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {inp_dim}-D input to dropout3d, which is deprecated and "
            "will result in an error in a future release. To retain the behavior and silence "
            "this warning, please use dropout instead. Note that dropout3d exists to provide "
            "channel-wise dropout on inputs with 3 spatial dimensions, a channel dimension, "
            "and an optional batch dimension (i.e. 4D or 5D inputs).", stacklevel=2)
    return _feature_dropout_unbatched(input, p, training, inplace, inp_dim == 5)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout that keeps the mean and variance of SELU activations: dropped elements
    are set to SELU's negative saturation value and the result is affinely rescaled.

    Args:
        input: a tensor of any shape.
        p: the probability of dropping an element (default 0.5).
        training: apply dropout (default False).
        inplace: write the result into `input` (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> x = gradrs.randn(4)
        >>> gradrs.equal(F.alpha_dropout(x, training=False), x)
        True
    """
    _check_p(p)
    return _dropout_impl(input, p, training, inplace, False, True)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout (see `alpha_dropout`) of whole channels of an input
    of shape (N, C, *spatial).

    Args:
        input: (N, C, *spatial).
        p: the probability of dropping a channel (default 0.5).
        training: apply dropout (default False).
        inplace: write the result into `input` (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.feature_alpha_dropout(gradrs.randn(2, 4, 3), p=0.5, training=True).shape
        gradrs.Size([2, 4, 3])
    """
    _check_p(p)
    return _dropout_impl(input, p, training, inplace, True, True)


# Each function wrapped as PyTorch's fails (`_check_tensor_args` with its spec,
# `_check_conv_args`) and batched by its vmap rule (`_vmap_rule`): one static name each.
dropout = _check_tensor_args(dropout, "dropout(input)")
alpha_dropout = _check_tensor_args(alpha_dropout, "alpha_dropout(input)")
feature_alpha_dropout = _check_tensor_args(feature_alpha_dropout, "feature_alpha_dropout(input)")
