"""ChannelShuffle (PyTorch's `torch.nn.modules.channelshuffle`)."""

from .. import functional as F
from .module import Module

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    """Interleaves `groups` groups of channels: [N, g*k, *] viewed as [N, g, k, *], transposed.

    Examples:
        >>> m = gradrs.nn.ChannelShuffle(2)
        >>> m(gradrs.ones(1, 4, 2, 2)).shape
        gradrs.Size([1, 4, 2, 2])
    """

    __constants__ = ["groups"]

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"
