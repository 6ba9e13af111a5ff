"""Fold and Unfold: sliding local blocks to columns and back (PyTorch's
`torch.nn.modules.fold`)."""

from .. import functional as F
from .module import Module

__all__ = ["Fold", "Unfold"]


class Fold(Module):
    """Sums columns of sliding blocks [N, C*prod(kernel_size), L] back into an image.

    Examples:
        >>> m = gradrs.nn.Fold(output_size=(3, 3), kernel_size=2)
        >>> m(gradrs.ones(1, 4, 4)).shape
        gradrs.Size([1, 1, 3, 3])
    """

    __constants__ = ["output_size", "kernel_size", "dilation", "padding", "stride"]

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                      self.stride)

    def extra_repr(self):
        return ("output_size={output_size}, kernel_size={kernel_size}, dilation={dilation}, "
                "padding={padding}, stride={stride}".format(**self.__dict__))


class Unfold(Module):
    """Extracts sliding blocks of an image as columns [N, C*prod(kernel_size), L].

    Examples:
        >>> m = gradrs.nn.Unfold(kernel_size=2)
        >>> m(gradrs.ones(1, 2, 4, 4)).shape
        gradrs.Size([1, 8, 9])
    """

    __constants__ = ["kernel_size", "dilation", "padding", "stride"]

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return ("kernel_size={kernel_size}, dilation={dilation}, padding={padding}, "
                "stride={stride}".format(**self.__dict__))
