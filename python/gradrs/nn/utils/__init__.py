"""`gradrs.nn.utils`: gradient clipping, parameter/vector conversion, weight and spectral
normalization, parametrizations, BatchNorm fusion."""

from . import parametrizations as parametrizations
from . import parametrize as parametrize
from . import rnn as rnn
from . import stateless as stateless
from .clip_grad import (
    _clip_grads_with_norm_,
    _get_total_norm,
    clip_grad_norm as clip_grad_norm,
    clip_grad_norm_ as clip_grad_norm_,
    clip_grad_value_ as clip_grad_value_,
)
from .convert_parameters import (
    parameters_to_vector as parameters_to_vector,
    vector_to_parameters as vector_to_parameters,
)
from .fusion import (
    fuse_conv_bn_eval as fuse_conv_bn_eval,
    fuse_conv_bn_weights as fuse_conv_bn_weights,
    fuse_linear_bn_eval as fuse_linear_bn_eval,
    fuse_linear_bn_weights as fuse_linear_bn_weights,
)
from .init import skip_init as skip_init
from .memory_format import (
    convert_conv2d_weight_memory_format as convert_conv2d_weight_memory_format,
    convert_conv3d_weight_memory_format as convert_conv3d_weight_memory_format,
)
from .spectral_norm import (
    remove_spectral_norm as remove_spectral_norm,
    spectral_norm as spectral_norm,
)
from .weight_norm import remove_weight_norm as remove_weight_norm, weight_norm as weight_norm

# PyTorch's public names for the two halves of clip_grad_norm_.
clip_grads_with_norm_ = _clip_grads_with_norm_
get_total_norm = _get_total_norm
