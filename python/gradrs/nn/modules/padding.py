"""Padding layers: constant, zero, reflection, replication and circular padding in 1-D,
2-D and 3-D (PyTorch's `torch.nn.modules.padding`)."""

from .. import functional as F
from .module import Module
from .utils import _ntuple, _pair, _quadruple

__all__ = ["CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d",
           "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
           "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d",
           "ZeroPad3d"]


class _CircularPadNd(Module):
    __constants__ = ["padding"]

    def _check_input_dim(self, input):
        raise NotImplementedError

    def forward(self, input):
        self._check_input_dim(input)
        return F.pad(input, self.padding, "circular")

    def extra_repr(self):
        return f"{self.padding}"


class CircularPad1d(_CircularPadNd):
    """Wraps [N, C, W] (or [C, W]) inputs around at the ends of W.

    Examples:
        >>> m = gradrs.nn.CircularPad1d(1)
        >>> m(gradrs.ones(1, 1, 4)).shape
        gradrs.Size([1, 1, 6])
    """

    def __init__(self, padding):
        super().__init__()
        self.padding = _pair(padding)

    def _check_input_dim(self, input):
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class CircularPad2d(_CircularPadNd):
    """Wraps [N, C, H, W] (or [C, H, W]) inputs around at the ends of H and W.

    Examples:
        >>> m = gradrs.nn.CircularPad2d(1)
        >>> m(gradrs.ones(1, 1, 3, 3)).shape
        gradrs.Size([1, 1, 5, 5])
    """

    def __init__(self, padding):
        super().__init__()
        self.padding = _quadruple(padding)

    def _check_input_dim(self, input):
        if input.dim() != 3 and input.dim() != 4:
            raise ValueError(f"expected 3D or 4D input (got {input.dim()}D input)")


class CircularPad3d(_CircularPadNd):
    """Wraps [N, C, D, H, W] (or [C, D, H, W]) inputs around at the ends of D, H and W.

    Examples:
        >>> m = gradrs.nn.CircularPad3d(1)
        >>> m(gradrs.ones(1, 1, 2, 2, 2)).shape
        gradrs.Size([1, 1, 4, 4, 4])
    """

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(6)(padding)

    def _check_input_dim(self, input):
        if input.dim() != 4 and input.dim() != 5:
            raise ValueError(f"expected 4D or 5D input (got {input.dim()}D input)")


class _ConstantPadNd(Module):
    __constants__ = ["padding", "value"]

    def __init__(self, value):
        super().__init__()
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dim with `value`.

    Examples:
        >>> m = gradrs.nn.ConstantPad1d(2, 3.5)
        >>> m(gradrs.ones(1, 2)).shape
        gradrs.Size([1, 6])
    """

    def __init__(self, padding, value):
        super().__init__(value)
        self.padding = _pair(padding)


class ConstantPad2d(_ConstantPadNd):
    """Pads the last two dims with `value`.

    Examples:
        >>> m = gradrs.nn.ConstantPad2d(1, 0.0)
        >>> m(gradrs.ones(1, 2, 2)).shape
        gradrs.Size([1, 4, 4])
    """

    def __init__(self, padding, value):
        super().__init__(value)
        self.padding = _quadruple(padding)


class ConstantPad3d(_ConstantPadNd):
    """Pads the last three dims with `value`.

    Examples:
        >>> m = gradrs.nn.ConstantPad3d(1, 0.0)
        >>> m(gradrs.ones(1, 1, 2, 2, 2)).shape
        gradrs.Size([1, 1, 4, 4, 4])
    """

    def __init__(self, padding, value):
        super().__init__(value)
        self.padding = _ntuple(6)(padding)


class _ReflectionPadNd(Module):
    __constants__ = ["padding"]

    def forward(self, input):
        return F.pad(input, self.padding, "reflect")

    def extra_repr(self):
        return f"{self.padding}"


class ReflectionPad1d(_ReflectionPadNd):
    """Pads the last dim with its reflection (the edge not repeated).

    Examples:
        >>> m = gradrs.nn.ReflectionPad1d(2)
        >>> m(gradrs.ones(1, 1, 4)).shape
        gradrs.Size([1, 1, 8])
    """

    def __init__(self, padding):
        super().__init__()
        self.padding = _pair(padding)


class ReflectionPad2d(_ReflectionPadNd):
    """Pads the last two dims with their reflection.

    Examples:
        >>> m = gradrs.nn.ReflectionPad2d(1)
        >>> m(gradrs.ones(1, 1, 3, 3)).shape
        gradrs.Size([1, 1, 5, 5])
    """

    def __init__(self, padding):
        super().__init__()
        self.padding = _quadruple(padding)


class ReflectionPad3d(_ReflectionPadNd):
    """Pads the last three dims with their reflection.

    Examples:
        >>> m = gradrs.nn.ReflectionPad3d(1)
        >>> m(gradrs.ones(1, 1, 2, 2, 2)).shape
        gradrs.Size([1, 1, 4, 4, 4])
    """

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(6)(padding)


class _ReplicationPadNd(Module):
    __constants__ = ["padding"]

    def forward(self, input):
        return F.pad(input, self.padding, "replicate")

    def extra_repr(self):
        return f"{self.padding}"


class ReplicationPad1d(_ReplicationPadNd):
    """Pads the last dim by repeating its edge values.

    Examples:
        >>> m = gradrs.nn.ReplicationPad1d(2)
        >>> m(gradrs.ones(1, 1, 4)).shape
        gradrs.Size([1, 1, 8])
    """

    def __init__(self, padding):
        super().__init__()
        self.padding = _pair(padding)


class ReplicationPad2d(_ReplicationPadNd):
    """Pads the last two dims by repeating their edge values.

    Examples:
        >>> m = gradrs.nn.ReplicationPad2d(1)
        >>> m(gradrs.ones(1, 1, 3, 3)).shape
        gradrs.Size([1, 1, 5, 5])
    """

    def __init__(self, padding):
        super().__init__()
        self.padding = _quadruple(padding)


class ReplicationPad3d(_ReplicationPadNd):
    """Pads the last three dims by repeating their edge values.

    Examples:
        >>> m = gradrs.nn.ReplicationPad3d(1)
        >>> m(gradrs.ones(1, 1, 2, 2, 2)).shape
        gradrs.Size([1, 1, 4, 4, 4])
    """

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(6)(padding)


class ZeroPad1d(ConstantPad1d):
    """Pads the last dim with zeros.

    Examples:
        >>> m = gradrs.nn.ZeroPad1d(2)
        >>> m(gradrs.ones(1, 3)).shape
        gradrs.Size([1, 7])
    """

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pads the last two dims with zeros.

    Examples:
        >>> m = gradrs.nn.ZeroPad2d((1, 1, 2, 0))
        >>> m(gradrs.ones(1, 1, 3, 3)).shape
        gradrs.Size([1, 1, 5, 5])
    """

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """Pads the last three dims with zeros.

    Examples:
        >>> m = gradrs.nn.ZeroPad3d(1)
        >>> m(gradrs.ones(1, 1, 2, 2, 2)).shape
        gradrs.Size([1, 1, 4, 4, 4])
    """

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"
