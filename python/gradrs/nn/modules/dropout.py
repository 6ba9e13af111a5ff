"""Dropout layers: Dropout, Dropout1d/2d/3d, AlphaDropout, FeatureAlphaDropout (PyTorch's
`torch.nn.modules.dropout`)."""

from .. import functional as F
from .module import Module

__all__ = ["AlphaDropout", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d",
           "FeatureAlphaDropout"]


class _DropoutNd(Module):
    __constants__ = ["p", "inplace"]

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Zeroes each element with probability p in training, scaling the rest by 1/(1-p).

    Examples:
        >>> drop = gradrs.nn.Dropout(p=0.5)
        >>> y = drop(gradrs.ones(1000))
        >>> sorted(set(y.tolist()))
        [0.0, 2.0]
        >>> drop.eval()(gradrs.ones(3))
        tensor([1., 1., 1.])
    """

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """Zeroes whole channels of [N, C, L] (or [C, L]) inputs.

    Examples:
        >>> m = gradrs.nn.Dropout1d(0.5)
        >>> m(gradrs.ones(2, 4, 3)).shape
        gradrs.Size([2, 4, 3])
    """

    def forward(self, input):
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Zeroes whole channels of [N, C, H, W] (or [C, H, W]) inputs.

    Examples:
        >>> m = gradrs.nn.Dropout2d(0.5)
        >>> m(gradrs.ones(2, 4, 3, 3)).shape
        gradrs.Size([2, 4, 3, 3])
    """

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Zeroes whole channels of [N, C, D, H, W] (or [C, D, H, W]) inputs.

    Examples:
        >>> m = gradrs.nn.Dropout3d(0.5)
        >>> m(gradrs.ones(2, 4, 2, 2, 2)).shape
        gradrs.Size([2, 4, 2, 2, 2])
    """

    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Dropout that keeps the mean and variance of SELU activations.

    Examples:
        >>> m = gradrs.nn.AlphaDropout(0.2)
        >>> m(gradrs.randn(4, 5)).shape
        gradrs.Size([4, 5])
    """

    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """AlphaDropout of whole channels.

    Examples:
        >>> m = gradrs.nn.FeatureAlphaDropout(0.2)
        >>> m(gradrs.randn(2, 4, 3)).shape
        gradrs.Size([2, 4, 3])
    """

    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training)
