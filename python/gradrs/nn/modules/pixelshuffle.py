"""PixelShuffle and PixelUnshuffle (PyTorch's `torch.nn.modules.pixelshuffle`)."""

from .. import functional as F
from .module import Module

__all__ = ["PixelShuffle", "PixelUnshuffle"]


class PixelShuffle(Module):
    """[*, C*r*r, H, W] -> [*, C, H*r, W*r].

    Examples:
        >>> m = gradrs.nn.PixelShuffle(2)
        >>> m(gradrs.ones(1, 8, 3, 3)).shape
        gradrs.Size([1, 2, 6, 6])
    """

    __constants__ = ["upscale_factor"]

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """[*, C, H*r, W*r] -> [*, C*r*r, H, W].

    Examples:
        >>> m = gradrs.nn.PixelUnshuffle(2)
        >>> m(gradrs.ones(1, 2, 6, 6)).shape
        gradrs.Size([1, 8, 3, 3])
    """

    __constants__ = ["downscale_factor"]

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return f"downscale_factor={self.downscale_factor}"
