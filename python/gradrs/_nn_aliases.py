"""The nn ops PyTorch also exposes at the top level (`torch.dropout`, `torch.layer_norm`,
`torch.kl_div`, ...), with ATen's signatures rather than `torch.nn.functional`'s.

They differ from the functional forms in ways programs see: every argument of `dropout(input,
p, train)` and `batch_norm(input, weight, bias, running_mean, running_var, training, momentum,
eps, cudnn_enabled)` is required and in ATen's order, `embedding(weight, indices, ...)` takes
the weight first, losses take `reduction` as ATen's integer (0 none, 1 mean, 2 sum; any other
value reduces nothing), pools return values only (`max_pool1d_with_indices` the pair), and
there are no warnings (`kl_div` with 'mean' does not warn). One quirk is PyTorch's too: its
Python binding reads the `reduction=at::Reduction::Mean` default of the losses as 0, so
`torch.kl_div(a, b)` reduces nothing; these functions do the same.
"""

from __future__ import annotations

import functools
import inspect

from ._numpy_names import missing_arguments
from .nn import functional as F

__all__ = [
    "adaptive_avg_pool1d", "adaptive_max_pool1d", "alpha_dropout", "alpha_dropout_",
    "avg_pool1d", "batch_norm", "bilinear", "binary_cross_entropy_with_logits", "celu", "celu_",
    "channel_shuffle", "constant_pad_nd", "conv1d", "conv2d", "conv3d", "conv_tbc",
    "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "cosine_embedding_loss",
    "cosine_similarity", "ctc_loss", "dropout", "dropout_", "embedding",
    "feature_alpha_dropout", "feature_alpha_dropout_", "feature_dropout", "feature_dropout_",
    "group_norm", "hardshrink", "hinge_embedding_loss", "instance_norm", "kl_div", "layer_norm",
    "margin_ranking_loss", "max_pool1d", "max_pool1d_with_indices", "max_pool2d", "max_pool3d",
    "native_channel_shuffle", "pairwise_distance", "pdist", "pixel_shuffle", "pixel_unshuffle",
    "poisson_nll_loss", "prelu", "rms_norm", "rrelu", "rrelu_", "selu", "selu_", "threshold",
    "threshold_",
    "triplet_margin_loss", "lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell", "lstm",
    "gru", "rnn_tanh", "rnn_relu",
]

# Functions whose signature is the functional form's already.
conv1d = F.conv1d
conv2d = F.conv2d
conv3d = F.conv3d
conv_transpose1d = F.conv_transpose1d
conv_transpose2d = F.conv_transpose2d
conv_transpose3d = F.conv_transpose3d
conv_tbc = F.conv_tbc
bilinear = F.bilinear
cosine_similarity = F.cosine_similarity
pairwise_distance = F.pairwise_distance
pdist = F.pdist
pixel_shuffle = F.pixel_shuffle
pixel_unshuffle = F.pixel_unshuffle
channel_shuffle = F.channel_shuffle
native_channel_shuffle = F.native_channel_shuffle
prelu = F.prelu
hardshrink = F.hardshrink
adaptive_avg_pool1d = F.adaptive_avg_pool1d
rms_norm = F.rms_norm

def _arity_error(fn, args, kwargs):
    """PyTorch's argument-parser TypeError for a call whose arguments do not fit `fn`'s
    parameters (python_arg_parser.cpp's wording, its plural quirk included), or None."""
    params = list(inspect.signature(fn).parameters.values())
    name = fn.__name__
    positional = [p for p in params if p.kind is p.POSITIONAL_OR_KEYWORD]
    if len(args) > len(positional):
        n = len(positional)
        low = sum(p.default is p.empty for p in positional)
        takes = f"from {low} to {n}" if low != n else str(n)
        return TypeError(f"{name}() takes {takes} positional argument{'s' if n != 1 else ''} "
                         f"but {len(args)} {'was' if len(args) == 1 else 'were'} given")
    for i, p in enumerate(params):
        given = (i < len(args) and p in positional) or p.name in kwargs
        if not given and p.default is p.empty:
            return missing_arguments(name, [q.name for q in params[i:]
                                            if q.default is q.empty])
    names = [p.name for p in params]
    for k in kwargs:
        if k not in names:
            return TypeError(f"{name}() got an unexpected keyword argument '{k}'")
        if names.index(k) < len(args):
            return TypeError(f"{name}() got multiple values for argument '{k}'")
    return None


def _aten(fn):
    """`fn` with PyTorch's TypeError when the arguments do not fit its signature (checked
    only once Python's own call has failed, so a good call costs nothing)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except TypeError:
            err = _arity_error(fn, args, kwargs)
            if err is None:
                raise
            raise err from None

    return wrapper


# ATen's loss reduction enum; any other value leaves the loss unreduced (apply_loss_reduction).
_REDUCTION = {1: "mean", 2: "sum"}


def _reduction(reduction):
    return _REDUCTION.get(reduction, "none")


def _stride(stride):
    return None if stride is None or stride == () or stride == [] else stride


# -- dropout: (input, p, train), p checked whatever train is --


def _dropout(input, p, train, inplace, feature, alpha):
    if p < 0 or p > 1:
        # ATen prints the double as C++ streams do (6 significant digits: 2.0 -> "2")
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p:g}")
    if feature and input.dim() < 2 and train and p != 0 and input.numel() != 0:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return F._dropout_impl(input, p, train, inplace, feature, alpha)


@_aten
def dropout(input, p, train):
    """Zero elements with probability ``p`` (when ``train``), scaling the rest by 1/(1-p)."""
    return _dropout(input, p, train, False, False, False)


@_aten
def dropout_(input, p, train):
    """In-place `dropout`: zeroes elements of `input` with probability `p` when `train`,
    scaling the rest by 1 / (1 - p); returns `input`.

    Args:
        input: a tensor.
        p: the probability of dropping (required, ATen's order).
        train: apply it (required).

    Examples:
        >>> x = gradrs.ones(3)
        >>> gradrs.dropout_(x, 0.5, False) is x
        True
    """
    return _dropout(input, p, train, True, False, False)


@_aten
def feature_dropout(input, p, train):
    """Dropout of whole channels (dim 1) of an input of at least 2 dimensions."""
    return _dropout(input, p, train, False, True, False)


@_aten
def feature_dropout_(input, p, train):
    """In-place `feature_dropout` (whole channels, dimension 1); returns `input`.

    Args:
        input: a tensor.
        p: the probability of dropping (required, ATen's order).
        train: apply it (required).

    Examples:
        >>> gradrs.feature_dropout_(gradrs.ones(2, 3), 0.5, False)
        tensor([[1., 1., 1.],
                [1., 1., 1.]])
    """
    return _dropout(input, p, train, True, True, False)


@_aten
def alpha_dropout(input, p, train):
    """Dropout that keeps SELU's mean and variance."""
    return _dropout(input, p, train, False, False, True)


@_aten
def alpha_dropout_(input, p, train):
    """In-place `alpha_dropout` (keeps SELU's mean and variance); returns `input`.

    Args:
        input: a tensor.
        p: the probability of dropping (required, ATen's order).
        train: apply it (required).

    Examples:
        >>> gradrs.alpha_dropout_(gradrs.ones(3), 0.5, False)
        tensor([1., 1., 1.])
    """
    return _dropout(input, p, train, True, False, True)


@_aten
def feature_alpha_dropout(input, p, train):
    """Alpha dropout of whole channels (dimension 1): `F.feature_alpha_dropout`
    with ATen's required arguments.

    Args:
        input: a tensor.
        p: the probability of dropping (required, ATen's order).
        train: apply it (required).

    Examples:
        >>> gradrs.feature_alpha_dropout(gradrs.ones(2, 3), 0.5, False)
        tensor([[1., 1., 1.],
                [1., 1., 1.]])
    """
    return _dropout(input, p, train, False, True, True)


@_aten
def feature_alpha_dropout_(input, p, train):
    """In-place `feature_alpha_dropout`; returns `input`.

    Args:
        input: a tensor.
        p: the probability of dropping (required, ATen's order).
        train: apply it (required).

    Examples:
        >>> gradrs.feature_alpha_dropout_(gradrs.ones(2, 3), 0.5, False)
        tensor([[1., 1., 1.],
                [1., 1., 1.]])
    """
    return _dropout(input, p, train, True, True, True)


# -- activations --


@_aten
def celu(input, alpha=1.0):
    """`F.celu` at the top level: max(0, x) + min(0, alpha (exp(x / alpha) - 1)).

    Args:
        input: a tensor.
        alpha: the scale of the negative side (default 1).

    Examples:
        >>> gradrs.celu(gradrs.tensor([-1.0, 2.0]))
        tensor([-0.6321,  2.0000])
    """
    return F.celu(input, alpha)


@_aten
def celu_(input, alpha=1.0):
    """In-place `celu`; returns `input`.

    Args:
        input: the tensor to modify.
        alpha: the scale of the negative side (default 1).

    Examples:
        >>> gradrs.celu_(gradrs.tensor([-1.0, 2.0]))
        tensor([-0.6321,  2.0000])
    """
    return F.celu(input, alpha, inplace=True)


@_aten
def rrelu(input, lower=0.125, upper=0.3333333333333333, training=False, generator=None):
    """Randomized leaky ReLU: in training each non-positive element gets its own slope drawn
    from U(lower, upper) (PyTorch's CPU stream); otherwise the slope (lower + upper) / 2."""
    return F._rrelu(input, lower, upper, training, False, generator)


@_aten
def rrelu_(input, lower=0.125, upper=0.3333333333333333, training=False, generator=None):
    """In-place randomized leaky ReLU (see `F.rrelu`); returns `input`.

    Args:
        input: the tensor to modify.
        lower: the lowest slope (default 1/8).
        upper: the highest slope (default 1/3).
        training: draw random slopes (default False; else the mean slope is used).
        generator: the random generator to draw from.

    Examples:
        >>> gradrs.rrelu_(gradrs.tensor([-2.0, 3.0]), 0.1, 0.3)
        tensor([-0.4000,  3.0000])
    """
    return F._rrelu(input, lower, upper, training, True, generator)


@_aten
def selu(input):
    """`F.selu` at the top level: scale * elu(x, alpha) with the self-normalizing constants.

    Args:
        input: a tensor.

    Examples:
        >>> gradrs.selu(gradrs.tensor([-1.0, 1.0]))
        tensor([-1.1113,  1.0507])
    """
    return F.selu(input)


@_aten
def selu_(input):
    """In-place `selu`; returns `input`.

    Args:
        input: the tensor to modify.

    Examples:
        >>> gradrs.selu_(gradrs.tensor([-1.0, 1.0]))
        tensor([-1.1113,  1.0507])
    """
    return F.selu(input, inplace=True)


@_aten
def threshold(input, threshold, value):
    """``value`` where ``input <= threshold``, else ``input``."""
    return F.threshold(input, threshold, value)


@_aten
def threshold_(input, threshold, value):
    """In-place `threshold`: elements not greater than `threshold` become `value`.

    Args:
        input: the tensor to modify.
        threshold: the threshold.
        value: the replacement.

    Examples:
        >>> gradrs.threshold_(gradrs.tensor([0.5, 2.0]), 1.0, 0.0)
        tensor([0., 2.])
    """
    return F.threshold(input, threshold, value, inplace=True)


# -- pooling: values only (max_pool1d_with_indices: the pair) --


@_aten
def avg_pool1d(input, kernel_size, stride=(), padding=0, ceil_mode=False,
               count_include_pad=True):
    """ATen's 1-D average pooling (`F.avg_pool1d` with `stride=()` meaning the kernel size).

    Args:
        input: (N, C, L) or (C, L).
        kernel_size: the window size.
        stride: the window step (default `()`: the kernel size).
        padding: implicit zero padding (default 0).
        ceil_mode: round the output size up (default False).
        count_include_pad: count the padding in the averages (default True).

    Examples:
        >>> gradrs.avg_pool1d(gradrs.tensor([[[1.0, 2.0, 3.0, 4.0]]]), 2)
        tensor([[[1.5000, 3.5000]]])
    """
    return F.avg_pool1d(input, kernel_size, _stride(stride), padding, ceil_mode,
                        count_include_pad)


@_aten
def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """ATen's 1-D max pooling: the values only (see `max_pool1d_with_indices`).

    Args:
        input: (N, C, *spatial) or without N.
        kernel_size: the window size.
        stride: the window step (default `()`: the kernel size).
        padding: implicit padding (default 0).
        dilation: the spacing between window elements (default 1).
        ceil_mode: round the output size up (default False).

    Examples:
        >>> gradrs.max_pool1d(gradrs.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2)
        tensor([[[3., 2.]]])
    """
    return F.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


@_aten
def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1,
                            ceil_mode=False):
    """ATen's 1-D max pooling returning (values, indices).

    Args:
        input: (N, C, *spatial) or without N.
        kernel_size: the window size.
        stride: the window step (default `()`: the kernel size).
        padding: implicit padding (default 0).
        dilation: the spacing between window elements (default 1).
        ceil_mode: round the output size up (default False).

    Examples:
        >>> gradrs.max_pool1d_with_indices(gradrs.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2)
        (tensor([[[3., 2.]]]), tensor([[[1, 2]]]))
    """
    return F.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode,
                        return_indices=True)


@_aten
def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """ATen's 2-D max pooling: the values only.

    Args:
        input: (N, C, *spatial) or without N.
        kernel_size: the window size.
        stride: the window step (default `()`: the kernel size).
        padding: implicit padding (default 0).
        dilation: the spacing between window elements (default 1).
        ceil_mode: round the output size up (default False).

    Examples:
        >>> gradrs.max_pool2d(gradrs.arange(16.0).reshape(1, 1, 4, 4), 2)
        tensor([[[[ 5.,  7.],
                  [13., 15.]]]])
    """
    return F.max_pool2d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


@_aten
def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """ATen's 3-D max pooling: the values only.

    Args:
        input: (N, C, *spatial) or without N.
        kernel_size: the window size.
        stride: the window step (default `()`: the kernel size).
        padding: implicit padding (default 0).
        dilation: the spacing between window elements (default 1).
        ceil_mode: round the output size up (default False).

    Examples:
        >>> gradrs.max_pool3d(gradrs.ones(1, 1, 4, 4, 4), 2).shape
        gradrs.Size([1, 1, 2, 2, 2])
    """
    return F.max_pool3d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


@_aten
def adaptive_max_pool1d(input, output_size):
    """(values, indices), as ATen's."""
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)


# -- normalization: ATen's argument order --


@_aten
def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled):
    """ATen's batch normalization: `F.batch_norm` with every argument required, in ATen's
    order.

    Args:
        input: shape (N, C, *).
        weight: the per-channel scale, or None.
        bias: the per-channel shift, or None.
        running_mean: the running means (updated in training), or None.
        running_var: the running variances (updated in training), or None.
        training: normalize with (and update from) the batch statistics.
        momentum: the running statistics' update factor.
        eps: added to the variance.
        cudnn_enabled: ignored (kept for ATen's signature).

    Examples:
        >>> gradrs.batch_norm(gradrs.tensor([[1.0], [3.0]]), None, None, None, None, True, 0.1, 1e-5, False)
        tensor([[-1.0000],
                [ 1.0000]])
    """
    if not training and (running_mean is None or running_var is None):
        which = "running_mean" if running_mean is None else "running_var"
        raise RuntimeError(f"{which} must be defined in evaluation mode")
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


@_aten
def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                  eps, cudnn_enabled):
    """ATen's instance normalization (`F.instance_norm` with ATen's argument order).

    Args:
        input: shape (N, C, *spatial).
        weight: the per-channel scale, or None.
        bias: the per-channel shift, or None.
        running_mean: optional running means.
        running_var: optional running variances.
        use_input_stats: normalize with the input's statistics.
        momentum: the running statistics' update factor.
        eps: added to the variance.
        cudnn_enabled: ignored.

    Examples:
        >>> gradrs.instance_norm(gradrs.tensor([[[1.0, 3.0]]]), None, None, None, None, True, 0.1, 1e-5, False)
        tensor([[[-1.0000,  1.0000]]])
    """
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                           momentum, eps)


@_aten
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    """ATen's group normalization (`F.group_norm`).

    Args:
        input: shape (N, C, *).
        num_groups: the number of groups; divides C.
        weight: the per-channel scale, or None.
        bias: the per-channel shift, or None.
        eps: added to the variance (default 1e-5).
        cudnn_enabled: ignored.

    Examples:
        >>> gradrs.group_norm(gradrs.tensor([[[1.0], [3.0], [0.0], [2.0]]]), 2)
        tensor([[[-1.0000],
                 [ 1.0000],
                 [-1.0000],
                 [ 1.0000]]])
    """
    return F.group_norm(input, num_groups, weight, bias, eps)


@_aten
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    """ATen's layer normalization (`F.layer_norm`).

    Args:
        input: shape (*, *normalized_shape).
        normalized_shape: the trailing dimensions to normalize over.
        weight: elementwise scale, or None.
        bias: elementwise shift, or None.
        eps: added to the variance (default 1e-5).
        cudnn_enable: ignored.

    Examples:
        >>> gradrs.layer_norm(gradrs.tensor([[1.0, 2.0, 3.0]]), [3])
        tensor([[-1.2247,  0.0000,  1.2247]])
    """
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


# -- embedding: the weight first; a negative padding_idx is none --


@_aten
def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """ATen's embedding lookup: the weight comes first and `padding_idx=-1` means none.

    Args:
        weight: the embedding matrix, shape (num_embeddings, embedding_dim).
        indices: int64 indices, any shape.
        padding_idx: a row whose gradient stays zero (default -1: none).
        scale_grad_by_freq: scale gradients by the inverse frequency of the indices.
        sparse: accepted; gradients are dense.

    Examples:
        >>> gradrs.embedding(gradrs.arange(6.0).reshape(3, 2), gradrs.tensor([2, 0]))
        tensor([[4., 5.],
                [0., 1.]])
    """
    return F.embedding(indices, weight, padding_idx=padding_idx if padding_idx >= 0 else None,
                       scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


@_aten
def constant_pad_nd(input, pad, value=0):
    """Pad the last ``len(pad) // 2`` dimensions with ``value`` (negative pads crop)."""
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    if len(pad) > 2 * input.dim():
        # (sic: ATen's message has no space before "while" and "dimensions")
        raise RuntimeError(
            "Length of pad should be no more than twice the number of dimensions of the input. "
            f"Pad length is {len(pad)}while the input has {input.dim()}dimensions.")
    return F.pad(input, pad, mode="constant", value=value)


# -- losses: reduction as ATen's integer, whose default PyTorch's binding reads as 0 --


@_aten
def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    """ATen's binary cross entropy on logits (see
    `F.binary_cross_entropy_with_logits`).

    Args:
        input: logits.
        target: targets in [0, 1], the same shape.
        weight: optional weights.
        pos_weight: optional weight of the positive examples.
        reduction: ATen's integer: 0 none (the default, as PyTorch's binding reads it), 1 mean, 2 sum.

    Examples:
        >>> gradrs.binary_cross_entropy_with_logits(gradrs.tensor([2.0, -1.0]), gradrs.tensor([1.0, 0.0]), reduction=1)
        tensor(0.2201)
    """
    return F.binary_cross_entropy_with_logits(input, target, weight,
                                              reduction=_reduction(reduction),
                                              pos_weight=pos_weight)


@_aten
def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    """ATen's cosine embedding loss (see `F.cosine_embedding_loss`).

    Args:
        input1: embeddings.
        input2: embeddings of the same shape.
        target: 1 or -1 per pair.
        margin: the margin for dissimilar pairs (default 0).
        reduction: ATen's integer: 0 none (the default, as PyTorch's binding reads it), 1 mean, 2 sum.

    Examples:
        >>> gradrs.cosine_embedding_loss(gradrs.tensor([[1.0, 0.0]]), gradrs.tensor([[1.0, 1.0]]), gradrs.tensor([1.0]))
        tensor([0.2929])
    """
    return F.cosine_embedding_loss(input1, input2, target, margin,
                                   reduction=_reduction(reduction))


@_aten
def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    """ATen's hinge embedding loss (see `F.hinge_embedding_loss`).

    Args:
        input: distances.
        target: 1 or -1 per element.
        margin: the margin (default 1).
        reduction: ATen's integer: 0 none (the default, as PyTorch's binding reads it), 1 mean, 2 sum.

    Examples:
        >>> gradrs.hinge_embedding_loss(gradrs.tensor([0.3, 0.4]), gradrs.tensor([1.0, -1.0]))
        tensor([0.3000, 0.6000])
    """
    return F.hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


@_aten
def kl_div(input, target, reduction=0, *, log_target=False):
    """KL divergence; 'mean' (1) divides by every element, without F.kl_div's warning."""
    reduction = _reduction(reduction)
    out = F.kl_div(input, target, reduction="none", log_target=log_target)
    if reduction == "mean":
        return out.mean()
    return out.sum() if reduction == "sum" else out


@_aten
def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    """ATen's margin ranking loss (see `F.margin_ranking_loss`).

    Args:
        input1: scores.
        input2: scores of the same shape.
        target: 1 or -1 per element.
        margin: the margin (default 0).
        reduction: ATen's integer: 0 none (the default, as PyTorch's binding reads it), 1 mean, 2 sum.

    Examples:
        >>> gradrs.margin_ranking_loss(gradrs.tensor([1.0, 0.0]), gradrs.tensor([0.5, 0.5]), gradrs.tensor([1.0, 1.0]), 0.0, 2)
        tensor(0.5000)
    """
    return F.margin_ranking_loss(input1, input2, target, margin,
                                 reduction=_reduction(reduction))


@_aten
def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """ATen's Poisson negative log-likelihood loss (see `F.poisson_nll_loss`); every
    argument is required.

    Args:
        input: expected counts, or their logs with `log_input`.
        target: observed counts.
        log_input: `input` holds logs.
        full: add the Stirling term.
        eps: added to `input` before the log when not `log_input`.
        reduction: ATen's integer: 0 none, 1 mean, 2 sum.

    Examples:
        >>> gradrs.poisson_nll_loss(gradrs.tensor([0.0, 1.0]), gradrs.tensor([1.0, 2.0]), True, False, 1e-8, 1)
        tensor(0.8591)
    """
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps,
                              reduction=_reduction(reduction))


@_aten
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False,
                        reduction=0):
    """ATen's triplet margin loss (see `F.triplet_margin_loss`).

    Args:
        anchor: embeddings.
        positive: embeddings of the same shape.
        negative: embeddings of the same shape.
        margin: the margin (default 1).
        p: the norm's degree (default 2).
        eps: added to the differences (default 1e-6).
        swap: use the smaller negative distance (default False).
        reduction: ATen's integer: 0 none (the default, as PyTorch's binding reads it), 1 mean, 2 sum.

    Examples:
        >>> gradrs.triplet_margin_loss(gradrs.zeros(1, 2), gradrs.tensor([[1.0, 0.0]]), gradrs.tensor([[3.0, 0.0]]))
        tensor([0.])
    """
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                 reduction=_reduction(reduction))


@_aten
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0,
             zero_infinity=False):
    """ATen's CTC loss (see `F.ctc_loss`).

    Args:
        log_probs: shape (T, N, C).
        targets: target indices.
        input_lengths: the input lengths (a tensor or a list).
        target_lengths: the target lengths (a tensor or a list).
        blank: the blank class (default 0).
        reduction: ATen's integer: 0 none (the default, as PyTorch's binding reads it), 1 mean, 2 sum.
        zero_infinity: zero out infinite losses.

    Examples:
        >>> lp = gradrs.randn(6, 1, 4).log_softmax(2)
        >>> gradrs.ctc_loss(lp, gradrs.tensor([[1, 2]]), [6], [2]).shape
        gradrs.Size([1])
    """
    return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                      reduction=_reduction(reduction), zero_infinity=zero_infinity)


# -- recurrent cells and layers over explicit weights (what nn.LSTM & co. run) --


def _check_cell_input(input, w_ih):
    if input.size(1) != w_ih.size(1):
        raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} expected "
                           f"{w_ih.size(1)}")


def _check_cell_hidden(input, hx, hidden_size, label):
    if input.size(0) != hx.size(0):
        raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{label} batch "
                           f"size {hx.size(0)}")
    if hx.size(1) != hidden_size:
        raise RuntimeError(f"hidden{label} has inconsistent hidden_size: got {hx.size(1)}, "
                           f"expected {hidden_size}")


@_aten
def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One LSTM step: (h', c') from ``hx = (h, c)``, gates in PyTorch's order (i, f, g, o)."""
    from .nn.modules import rnn

    if len(hx) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    _check_cell_input(input, w_ih)
    _check_cell_hidden(input, hx[0], w_hh.size(1), 0)
    _check_cell_hidden(input, hx[1], w_hh.size(1), 1)
    return rnn._lstm_step(F.linear(input, w_ih, b_ih), (hx[0], hx[1]), w_hh, b_hh)


def _cell_step(step, input, hx, w_ih, w_hh, b_ih, b_hh):
    _check_cell_input(input, w_ih)
    _check_cell_hidden(input, hx, w_hh.size(1), 0)
    return step(F.linear(input, w_ih, b_ih), hx, w_hh, b_hh)


@_aten
def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One GRU step, gates in PyTorch's order (r, z, n)."""
    from .nn.modules import rnn

    return _cell_step(rnn._gru_step, input, hx, w_ih, w_hh, b_ih, b_hh)


@_aten
def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One Elman step: tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)."""
    from .nn.modules import rnn

    return _cell_step(rnn._rnn_tanh_step, input, hx, w_ih, w_hh, b_ih, b_hh)


@_aten
def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One Elman step with ReLU."""
    from .nn.modules import rnn

    return _cell_step(rnn._rnn_relu_step, input, hx, w_ih, w_hh, b_ih, b_hh)


def _group_weights(params, has_biases, has_projections, count):
    """The flat weight list [w_ih, w_hh, (b_ih, b_hh), (w_hr)] per layer and direction as
    (w_ih, w_hh, b_ih, b_hh, w_hr) tuples."""
    stride = 2 + (2 if has_biases else 0) + (1 if has_projections else 0)
    params = list(params)
    if len(params) % stride:
        raise RuntimeError(f"MatrixRef: ArrayRef size {len(params)} not divisible by stride "
                           f"{stride}")
    groups = []
    for k in range(0, len(params), stride):
        p = params[k:k + stride]
        w_ih, w_hh = p[0], p[1]
        b_ih, b_hh = (p[2], p[3]) if has_biases else (None, None)
        w_hr = p[-1] if has_projections else None
        groups.append((w_ih, w_hh, b_ih, b_hh, w_hr))
    return groups[:count] if len(groups) >= count else groups


_TAIL = ("tuple of Tensors params, bool has_biases, int num_layers, float dropout, bool train, "
         "bool bidirectional")


def _signatures(name, hx_type):
    return [f"(Tensor data, Tensor batch_sizes, {hx_type} hx, {_TAIL})",
            f"(Tensor input, {hx_type} hx, {_TAIL}, bool batch_first)"]


def _sequence(name, mode, args, kwargs):
    """torch.lstm / gru / rnn_tanh / rnn_relu in their two forms, told apart as PyTorch's
    argument parser does: the packed (data, batch_sizes, hx, params, has_biases, num_layers,
    dropout, train, bidirectional) and (input, hx, params, ..., batch_first)."""
    from . import _argparse
    from .nn.modules import rnn

    lstm = mode == "LSTM"
    sigs = [_argparse._Signature(name, t)
            for t in _signatures(name, "tuple of Tensors" if lstm else "Tensor")]
    sig = next((s for s in sigs if s.error(args, kwargs) is None), None)
    if sig is None:
        listing = "".join(f" * {s.text}\n" for s in sigs)
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        f"{_argparse._describe(args, kwargs)}, but expected one of:\n{listing}")
    values = dict(zip([p.name for p in sig.params], args))
    values.update(kwargs)
    batch_sizes = values.get("batch_sizes")
    if batch_sizes is not None:
        batch_sizes = [int(b) for b in batch_sizes.tolist()]
    input = values.get("data", values.get("input"))
    hx = (values["hx"][0], values["hx"][1]) if lstm else values["hx"]
    has_projections = lstm and hx[0].size(2) != hx[1].size(2)
    directions = 2 if values["bidirectional"] else 1
    weights = _group_weights(values["params"], values["has_biases"], has_projections,
                             values["num_layers"] * directions)
    batch_first = values.get("batch_first", False)
    if batch_first:
        input = input.transpose(0, 1)
    output, hidden = rnn._run_rnn(mode, input, batch_sizes, hx, weights, values["num_layers"],
                                  values["dropout"], values["train"], values["bidirectional"])
    if batch_first:
        output = output.transpose(0, 1)
    if lstm:
        return output, hidden[0], hidden[1]
    return output, hidden


def lstm(*args, **kwargs):
    """A multi-layer LSTM over a time-major (or ``batch_first``) input or packed data, with
    the weights given as PyTorch's flat list; returns (output, h_n, c_n)."""
    return _sequence("lstm", "LSTM", args, kwargs)


def gru(*args, **kwargs):
    """A multi-layer GRU, as :func:`lstm`; returns (output, h_n)."""
    return _sequence("gru", "GRU", args, kwargs)


def rnn_tanh(*args, **kwargs):
    """A multi-layer Elman RNN (tanh), as :func:`lstm`; returns (output, h_n)."""
    return _sequence("rnn_tanh", "RNN_TANH", args, kwargs)


def rnn_relu(*args, **kwargs):
    """A multi-layer Elman RNN (ReLU), as :func:`lstm`; returns (output, h_n)."""
    return _sequence("rnn_relu", "RNN_RELU", args, kwargs)
