"""`gradrs.nn.functional`: PyTorch's functional API. Each function calls one native op (or a
short composition of them, where PyTorch composes too), so gradients come from the ops'
own backward formulas.

One module per family of PyTorch's docs, re-exported here statically:

- `_activation.py`: non-linear activations (relu & co., in-place forms, softmax, prelu, rrelu...)
- `_linear.py`: linear, bilinear
- `_dropout.py`: the dropouts
- `_distance.py`: pairwise_distance, pdist, cosine_similarity
- `_normalization.py`: batch / layer / group / instance / rms / local response norm, normalize
- `_sparse.py`: one_hot, embedding, embedding_bag
- `_padding.py`: pad
- `_convolution.py`: conv*, conv_transpose*, conv_tbc, unfold / fold
- `_pooling.py`: max / avg / lp pooling and max_unpool in 1-D and 2-D
- `_pooling3d.py`: their 3-D forms
- `_adaptive_pooling.py`: adaptive and fractional pooling
- `_vision.py`: interpolate / upsample*, affine_grid, grid_sample, pixel and channel shuffle
- `_loss.py`: regression, likelihood and classification losses, ctc_loss
- `_margin_loss.py`: margin, ranking and embedding losses
- `_attention.py`: scaled_dot_product_attention, multi_head_attention_forward
- `_helpers.py`: `_one_node` and the argument / vmap wrappers the others share
"""

from ._helpers import (  # noqa: F401
    _one_node,
)
from ._activation import (  # noqa: F401
    celu, celu_, elu, elu_, gelu, glu, gumbel_softmax, hardshrink, hardsigmoid, hardswish,
    hardtanh, hardtanh_, leaky_relu, leaky_relu_, log_softmax, logsigmoid, mish, prelu, relu,
    relu6, relu_, _rrelu, rrelu, rrelu_, selu, selu_, sigmoid, silu, softmax, softmin,
    softplus, softshrink, softsign, tanh, tanhshrink, threshold, threshold_,
)
from ._linear import (  # noqa: F401
    bilinear, linear,
)
from ._dropout import (  # noqa: F401
    alpha_dropout, dropout, dropout1d, dropout2d, dropout3d, _dropout_impl,
    feature_alpha_dropout,
)
from ._distance import (  # noqa: F401
    cosine_similarity, pairwise_distance, pdist,
)
from ._normalization import (  # noqa: F401
    batch_norm, group_norm, instance_norm, layer_norm, local_response_norm, normalize, rms_norm,
)
from ._sparse import (  # noqa: F401
    embedding, embedding_bag, one_hot,
)
from ._padding import (  # noqa: F401
    pad,
)
from ._convolution import (  # noqa: F401
    _conv, conv1d, conv2d, conv3d, conv_tbc, conv_transpose1d, conv_transpose2d,
    conv_transpose3d, fold, unfold,
)
from ._pooling import (  # noqa: F401
    assert_int_or_pair, avg_pool1d, avg_pool2d, lp_pool1d, lp_pool2d, max_pool1d,
    max_pool1d_with_indices, max_pool2d, max_pool2d_with_indices, max_unpool1d, max_unpool2d,
)
from ._pooling3d import (  # noqa: F401
    avg_pool3d, lp_pool3d, max_pool3d, max_pool3d_with_indices, max_unpool3d,
)
from ._adaptive_pooling import (  # noqa: F401
    adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d, adaptive_max_pool1d,
    adaptive_max_pool1d_with_indices, adaptive_max_pool2d, adaptive_max_pool2d_with_indices,
    adaptive_max_pool3d, adaptive_max_pool3d_with_indices, fractional_max_pool2d,
    fractional_max_pool2d_with_indices, fractional_max_pool3d,
    fractional_max_pool3d_with_indices,
)
from ._vision import (  # noqa: F401
    affine_grid, channel_shuffle, grid_sample, interpolate, native_channel_shuffle,
    pixel_shuffle, pixel_unshuffle, upsample, upsample_bilinear, upsample_nearest,
)
from ._loss import (  # noqa: F401
    binary_cross_entropy, binary_cross_entropy_with_logits, cross_entropy, ctc_loss,
    gaussian_nll_loss, huber_loss, kl_div, l1_loss, linear_cross_entropy, mse_loss, nll_loss,
    poisson_nll_loss, smooth_l1_loss,
)
from ._margin_loss import (  # noqa: F401
    cosine_embedding_loss, hinge_embedding_loss, margin_ranking_loss, multi_margin_loss,
    multilabel_margin_loss, multilabel_soft_margin_loss, soft_margin_loss, triplet_margin_loss,
    triplet_margin_with_distance_loss,
)
from ._attention import (  # noqa: F401
    _canonical_mask, _cpp_dtype, multi_head_attention_forward, _none_or_dtype,
    scaled_dot_product_attention,
)

__all__ = [
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
    "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d",
    "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d",
    "adaptive_max_pool3d_with_indices", "affine_grid", "alpha_dropout", "assert_int_or_pair",
    "avg_pool1d", "avg_pool2d", "avg_pool3d", "batch_norm", "bilinear", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "celu", "celu_", "channel_shuffle", "conv1d", "conv2d",
    "conv3d", "conv_tbc", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "cosine_embedding_loss", "cosine_similarity", "cross_entropy", "ctc_loss", "dropout",
    "dropout1d", "dropout2d", "dropout3d", "elu", "elu_", "embedding", "embedding_bag",
    "feature_alpha_dropout", "fold", "fractional_max_pool2d",
    "fractional_max_pool2d_with_indices", "fractional_max_pool3d",
    "fractional_max_pool3d_with_indices", "gaussian_nll_loss", "gelu", "glu", "grid_sample",
    "group_norm", "gumbel_softmax", "hardshrink", "hardsigmoid", "hardswish", "hardtanh",
    "hardtanh_", "hinge_embedding_loss", "huber_loss", "instance_norm", "interpolate",
    "kl_div", "l1_loss", "layer_norm", "leaky_relu", "leaky_relu_", "linear",
    "linear_cross_entropy", "local_response_norm", "log_softmax", "logsigmoid", "lp_pool1d",
    "lp_pool2d", "lp_pool3d", "margin_ranking_loss", "max_pool1d", "max_pool1d_with_indices",
    "max_pool2d", "max_pool2d_with_indices", "max_pool3d", "max_pool3d_with_indices",
    "max_unpool1d", "max_unpool2d", "max_unpool3d", "mish", "mse_loss",
    "multi_head_attention_forward", "multi_margin_loss", "multilabel_margin_loss",
    "multilabel_soft_margin_loss", "native_channel_shuffle", "nll_loss", "normalize",
    "one_hot", "pad", "pairwise_distance", "pdist", "pixel_shuffle", "pixel_unshuffle",
    "poisson_nll_loss", "prelu", "relu", "relu6", "relu_", "rms_norm", "rrelu", "rrelu_",
    "scaled_dot_product_attention", "selu", "selu_", "sigmoid", "silu", "smooth_l1_loss",
    "soft_margin_loss", "softmax", "softmin", "softplus", "softshrink", "softsign", "tanh",
    "tanhshrink", "threshold", "threshold_", "triplet_margin_loss",
    "triplet_margin_with_distance_loss", "unfold", "upsample", "upsample_bilinear",
    "upsample_nearest",
]

# One module to PyTorch (`torch.nn.functional.relu.__module__`): the functions say they live
# here, where reprs, pickles and `help()` find them.
for _fn in list(globals().values()):
    if callable(_fn) and getattr(_fn, "__module__", "").startswith(__name__ + "."):
        _fn.__module__ = __name__
del _fn
