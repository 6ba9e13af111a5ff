"""Linear layers: Identity, Linear, Bilinear, LazyLinear (PyTorch's `torch.nn.modules.linear`)."""

import math

from ... import empty, no_grad
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ["Bilinear", "Identity", "LazyLinear", "Linear"]


class Identity(Module):
    """Returns its input; accepts and ignores any constructor arguments.

    Examples:
        >>> m = gradrs.nn.Identity()
        >>> m(gradrs.ones(2, 3)).shape
        gradrs.Size([2, 3])
    """

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """y = x A^T + b, with weight [out_features, in_features] and bias [out_features].

    Examples:
        >>> layer = gradrs.nn.Linear(4, 2)
        >>> layer
        Linear(in_features=4, out_features=2, bias=True)
        >>> layer(gradrs.randn(3, 4)).shape
        gradrs.Size([3, 2])
        >>> layer.weight.shape, layer.bias.shape
        (gradrs.Size([2, 4]), gradrs.Size([2]))
    """

    __constants__ = ["in_features", "out_features"]

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in_features), **factory_kwargs))
        if bias:
            self.bias = Parameter(empty(out_features, **factory_kwargs))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Re-initializes the parameters as at construction (weight and bias uniform in +-1/sqrt(in_features), from Kaiming-uniform init).

        Examples:
            >>> layer = gradrs.nn.Linear(3, 2)
            >>> layer.reset_parameters()
            >>> layer.weight.shape
            gradrs.Size([2, 3])
        """
        # kaiming_uniform_ with a=sqrt(5) is U(-1/sqrt(fan_in), 1/sqrt(fan_in)), as the bias.
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class NonDynamicallyQuantizableLinear(Linear):
    """The Linear MultiheadAttention's out_proj is in PyTorch (a distinct class name only)."""


class Bilinear(Module):
    """y = x1^T A x2 + b, with weight [out_features, in1_features, in2_features].

    Examples:
        >>> m = gradrs.nn.Bilinear(3, 4, 5)
        >>> m(gradrs.ones(2, 3), gradrs.ones(2, 4)).shape
        gradrs.Size([2, 5])
    """

    __constants__ = ["in1_features", "in2_features", "out_features"]

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None,
                 dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(
            empty((out_features, in1_features, in2_features), **factory_kwargs))
        if bias:
            self.bias = Parameter(empty(out_features, **factory_kwargs))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Re-initializes the parameters as at construction (uniform in +-1/sqrt(in1_features)).

        Examples:
            >>> gradrs.nn.Bilinear(2, 3, 4).reset_parameters()
        """
        if self.in1_features <= 0:
            raise ValueError(
                f"in1_features must be > 0, but got (in1_features={self.in1_features})")
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class LazyLinear(LazyModuleMixin, Linear):
    """A Linear whose ``in_features`` is inferred from the first input's last dimension;
    it becomes a :class:`Linear` after that first call.

    Examples:
        >>> m = gradrs.nn.LazyLinear(3)
        >>> m(gradrs.ones(2, 5)).shape
        gradrs.Size([2, 3])
    """

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        # bias=False: no tensor that would be replaced at once.
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(**factory_kwargs)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(**factory_kwargs)

    def reset_parameters(self):
        """Re-initializes the parameters once they are materialized (does nothing before the first forward).

        Examples:
            >>> gradrs.nn.LazyLinear(4).reset_parameters()
        """
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:
            # Loaded from a state_dict before any call: take in_features from the weight.
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(
                    f"The in_features inferred from input: {input.shape[-1]} "
                    f"is not equal to in_features from self.weight: {self.weight.shape[-1]}")
            self.in_features = input.shape[-1]
