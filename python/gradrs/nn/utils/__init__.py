"""`gradrs.nn.utils`: gradient clipping and parameter/vector conversion helpers."""

from . import rnn as rnn
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

# PyTorch's public names for the two halves of clip_grad_norm_.
clip_grads_with_norm_ = _clip_grads_with_norm_
get_total_norm = _get_total_norm
