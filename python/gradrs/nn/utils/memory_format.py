"""`convert_conv2d_weight_memory_format` / `convert_conv3d_weight_memory_format`
(`torch.nn.utils.memory_format`): the weights of the convolutions of a module tree laid out in a
memory format (channels_last for NHWC convolution kernels), the other layers left as they are."""

from __future__ import annotations

from typing import TypeVar

from ..modules.conv import Conv2d, Conv3d, ConvTranspose2d, ConvTranspose3d
from ..modules.module import Module

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]

_M = TypeVar("_M", bound=Module)


def _convert(module, memory_format, kinds):
    if isinstance(module, kinds):
        weight_data = module.weight.detach().clone(memory_format=memory_format)
        module.weight.data = weight_data.resize_(weight_data.size(), memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, kinds)
    return module


def convert_conv2d_weight_memory_format(module: _M, memory_format) -> _M:
    r"""Convert the ``memory_format`` of the weights of ``nn.Conv2d`` / ``nn.ConvTranspose2d``
    in ``module`` and its descendants (``module`` included) to ``memory_format``.

    Only the layout changes, not the meaning of the dims; unlike
    ``module.to(memory_format=gradrs.channels_last)``, which converts every 4-D parameter, only
    convolution weights are touched.

    Args:
        module (nn.Module): ``nn.Conv2d`` & ``nn.ConvTranspose2d`` or container ``nn.Module``
        memory_format: the memory format, e.g. ``gradrs.channels_last`` or
            ``gradrs.contiguous_format``

    Returns:
        The original module, its convolution weights converted.

    Example:
        >>> model = gradrs.nn.Sequential(gradrs.nn.Conv2d(8, 4, 3), gradrs.nn.BatchNorm2d(4))
        >>> model = gradrs.nn.utils.convert_conv2d_weight_memory_format(
        ...     model, gradrs.channels_last)
        >>> model[0].weight.is_contiguous(memory_format=gradrs.channels_last)
        True
    """
    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module: _M, memory_format) -> _M:
    r"""Convert the ``memory_format`` of the weights of ``nn.Conv3d`` / ``nn.ConvTranspose3d``
    in ``module`` and its descendants (``module`` included) to ``memory_format``
    (``gradrs.channels_last_3d`` for NDHWC kernels).

    Args:
        module (nn.Module): ``nn.Conv3d`` & ``nn.ConvTranspose3d`` or container ``nn.Module``
        memory_format: the memory format, e.g. ``gradrs.channels_last_3d`` or
            ``gradrs.contiguous_format``

    Returns:
        The original module, its convolution weights converted.

    Example:
        >>> model = gradrs.nn.Sequential(gradrs.nn.Conv3d(8, 4, 3))
        >>> model = gradrs.nn.utils.convert_conv3d_weight_memory_format(
        ...     model, gradrs.channels_last_3d)
        >>> model[0].weight.stride()
        (216, 1, 72, 24, 8)
    """
    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))
