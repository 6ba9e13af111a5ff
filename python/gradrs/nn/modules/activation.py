"""Activation layers (PyTorch's `torch.nn.modules.activation`; MultiheadAttention lives in
its own file)."""

import warnings

from ... import empty, sigmoid, tanh
from .. import functional as F
from .. import init as _init
from ..parameter import Parameter
from .attention import MultiheadAttention  # PyTorch defines it in this module
from .module import Module

__all__ = ["CELU", "ELU", "GELU", "GLU", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh",
           "LeakyReLU", "LogSigmoid", "LogSoftmax", "Mish", "PReLU", "RReLU", "ReLU", "ReLU6",
           "SELU", "SiLU", "Sigmoid", "Softmax", "Softmax2d", "Softmin", "Softplus",
           "Softshrink", "Softsign", "Tanh", "Tanhshrink", "Threshold", "MultiheadAttention"]


def _inplace_suffix(inplace):
    return ", inplace=True" if inplace else ""


class Threshold(Module):
    """y = x if x > threshold else value.

    Examples:
        >>> gradrs.nn.Threshold(1.0, -1.0)(gradrs.tensor([0.5, 1.0, 2.0]))
        tensor([-1., -1.,  2.])
    """

    __constants__ = ["threshold", "value", "inplace"]

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return f"threshold={self.threshold}, value={self.value}{_inplace_suffix(self.inplace)}"


class ReLU(Module):
    """max(0, x).

    Examples:
        >>> gradrs.nn.ReLU()(gradrs.tensor([-1.0, 2.0]))
        tensor([0., 2.])
    """

    __constants__ = ["inplace"]

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class RReLU(Module):
    """Leaky ReLU with a random slope in [lower, upper] in training, their mean in eval."""

    __constants__ = ["lower", "upper", "inplace"]

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}{_inplace_suffix(self.inplace)}"


class Hardtanh(Module):
    """x clamped to [min_val, max_val].

    Examples:
        >>> gradrs.nn.Hardtanh()(gradrs.tensor([-2.0, 0.5, 2.0]))
        tensor([-1.0000,  0.5000,  1.0000])
    """

    __constants__ = ["min_val", "max_val", "inplace"]

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None,
                 max_value=None):
        super().__init__()
        if min_value is not None:
            warnings.warn("keyword argument `min_value` is deprecated and renamed to `min_val`",
                          FutureWarning, stacklevel=2)
            min_val = min_value
        if max_value is not None:
            warnings.warn("keyword argument `max_value` is deprecated and renamed to `max_val`",
                          FutureWarning, stacklevel=2)
            max_val = max_value
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if self.max_val <= self.min_val:
            raise AssertionError(
                f"max_val ({self.max_val}) must be greater than min_val ({self.min_val})")

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}{_inplace_suffix(self.inplace)}"


class ReLU6(Hardtanh):
    """min(max(0, x), 6).

    Examples:
        >>> gradrs.nn.ReLU6()(gradrs.tensor([-1.0, 3.0, 9.0]))
        tensor([0., 3., 6.])
    """

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Sigmoid(Module):
    """1 / (1 + exp(-x)).

    Examples:
        >>> gradrs.nn.Sigmoid()(gradrs.tensor([-2.0, 0.0, 2.0]))
        tensor([0.1192, 0.5000, 0.8808])
    """

    def forward(self, input):
        return sigmoid(input)


class Hardsigmoid(Module):
    """relu6(x + 3) / 6.

    Examples:
        >>> gradrs.nn.Hardsigmoid()(gradrs.tensor([-4.0, 0.0, 1.5]))
        tensor([0.0000, 0.5000, 0.7500])
    """

    __constants__ = ["inplace"]

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.hardsigmoid(input, self.inplace)


class Tanh(Module):
    """tanh(x).

    Examples:
        >>> gradrs.nn.Tanh()(gradrs.tensor([-1.0, 0.0, 1.0]))
        tensor([-0.7616,  0.0000,  0.7616])
    """

    def forward(self, input):
        return tanh(input)


class SiLU(Module):
    """x * sigmoid(x).

    Examples:
        >>> gradrs.nn.SiLU()(gradrs.tensor([-1.0, 0.0, 1.0]))
        tensor([-0.2689,  0.0000,  0.7311])
    """

    __constants__ = ["inplace"]

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.silu(input, inplace=self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Mish(Module):
    """x * tanh(softplus(x)).

    Examples:
        >>> gradrs.nn.Mish()(gradrs.tensor([-1.0, 0.0, 1.0]))
        tensor([-0.3034,  0.0000,  0.8651])
    """

    __constants__ = ["inplace"]

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.mish(input, inplace=self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Hardswish(Module):
    """x * relu6(x + 3) / 6.

    Examples:
        >>> gradrs.nn.Hardswish()(gradrs.tensor([-4.0, 0.0, 1.5]))
        tensor([-0.0000, 0.0000, 1.1250])
    """

    __constants__ = ["inplace"]

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.hardswish(input, self.inplace)


class ELU(Module):
    """x if x > 0 else alpha * (exp(x) - 1).

    Examples:
        >>> gradrs.nn.ELU()(gradrs.tensor([-1.0, 2.0]))
        tensor([-0.6321,  2.0000])
    """

    __constants__ = ["alpha", "inplace"]

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}{_inplace_suffix(self.inplace)}"


class CELU(Module):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).

    Examples:
        >>> gradrs.nn.CELU()(gradrs.tensor([-1.0, 2.0]))
        tensor([-0.6321,  2.0000])
    """

    __constants__ = ["alpha", "inplace"]

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}{_inplace_suffix(self.inplace)}"


class SELU(Module):
    """scale * elu(x, alpha) with the self-normalizing constants.

    Examples:
        >>> gradrs.nn.SELU()(gradrs.tensor([-1.0, 1.0]))
        tensor([-1.1113,  1.0507])
    """

    __constants__ = ["inplace"]

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.selu(input, self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class GLU(Module):
    """a * sigmoid(b) for the two halves a, b of `dim`.

    Examples:
        >>> gradrs.nn.GLU()(gradrs.tensor([[1.0, 2.0, 0.0, 0.0]]))
        tensor([[0.5000, 1.0000]])
    """

    __constants__ = ["dim"]

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class GELU(Module):
    """x * Phi(x), exactly (approximate='none') or by the tanh formula ('tanh').

    Examples:
        >>> gradrs.nn.GELU()(gradrs.tensor([-1.0, 0.0, 1.0]))
        tensor([-0.1587,  0.0000,  0.8413])
    """

    __constants__ = ["approximate"]

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class Hardshrink(Module):
    """x if |x| > lambd else 0.

    Examples:
        >>> gradrs.nn.Hardshrink()(gradrs.tensor([-1.0, 0.2, 1.0]))
        tensor([-1.,  0.,  1.])
    """

    __constants__ = ["lambd"]

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.hardshrink(input, self.lambd)

    def extra_repr(self):
        return f"{self.lambd}"


class LeakyReLU(Module):
    """x if x >= 0 else negative_slope * x.

    Examples:
        >>> gradrs.nn.LeakyReLU(0.1)(gradrs.tensor([-2.0, 3.0]))
        tensor([-0.2000,  3.0000])
    """

    __constants__ = ["inplace", "negative_slope"]

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}{_inplace_suffix(self.inplace)}"


class LogSigmoid(Module):
    """log(sigmoid(x)).

    Examples:
        >>> gradrs.nn.LogSigmoid()(gradrs.tensor([-5.0, 0.0, 5.0]))
        tensor([-5.0067, -0.6931, -0.0067])
    """

    def forward(self, input):
        return F.logsigmoid(input)


class Softplus(Module):
    """log(1 + exp(beta * x)) / beta, linear above `threshold`.

    Examples:
        >>> gradrs.nn.Softplus()(gradrs.tensor([-1.0, 0.0, 30.0]))
        tensor([ 0.3133,  0.6931, 30.0000])
    """

    __constants__ = ["beta", "threshold"]

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class Softshrink(Module):
    """x - lambd if x > lambd, x + lambd if x < -lambd, else 0.

    Examples:
        >>> gradrs.nn.Softshrink()(gradrs.tensor([-1.0, 0.2, 1.0]))
        tensor([-0.5000,  0.0000,  0.5000])
    """

    __constants__ = ["lambd"]

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.softshrink(input, self.lambd)

    def extra_repr(self):
        return str(self.lambd)


class PReLU(Module):
    """Leaky ReLU whose negative slope is learned (one, or one per channel).

    Examples:
        >>> gradrs.nn.PReLU()(gradrs.tensor([-2.0, 3.0]))
        tensor([-0.5000,  3.0000], grad_fn=<PreluKernelBackward0>)
    """

    __constants__ = ["num_parameters"]

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(empty(num_parameters, **factory_kwargs))
        self.reset_parameters()

    def reset_parameters(self):
        """Re-initializes the parameters as at construction (every slope `init`, 0.25 by default).

        Examples:
            >>> p = gradrs.nn.PReLU()
            >>> p.reset_parameters()
            >>> p.weight
            Parameter containing:
            tensor([0.2500], requires_grad=True)
        """
        _init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class Softsign(Module):
    """x / (1 + |x|).

    Examples:
        >>> gradrs.nn.Softsign()(gradrs.tensor([-3.0, 0.0, 1.0]))
        tensor([-0.7500,  0.0000,  0.5000])
    """

    def forward(self, input):
        return F.softsign(input)


class Tanhshrink(Module):
    """x - tanh(x).

    Examples:
        >>> gradrs.nn.Tanhshrink()(gradrs.tensor([-1.0, 0.0, 1.0]))
        tensor([-0.2384,  0.0000,  0.2384])
    """

    def forward(self, input):
        return F.tanhshrink(input)


class Softmin(Module):
    """softmax(-x) along `dim`.

    Examples:
        >>> gradrs.nn.Softmin(dim=1)(gradrs.tensor([[1.0, 2.0, 3.0]]))
        tensor([[0.6652, 0.2447, 0.0900]])
    """

    __constants__ = ["dim"]

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "dim"):
            self.dim = None

    def forward(self, input):
        return F.softmin(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmax(Module):
    """exp(x) / sum(exp(x)) along `dim`.

    Examples:
        >>> gradrs.nn.Softmax(dim=1)(gradrs.tensor([[1.0, 2.0, 3.0]]))
        tensor([[0.0900, 0.2447, 0.6652]])
    """

    __constants__ = ["dim"]

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "dim"):
            self.dim = None

    def forward(self, input):
        return F.softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmax2d(Module):
    """Softmax over the channels of [N, C, H, W] (or [C, H, W]) inputs.

    Examples:
        >>> gradrs.nn.Softmax2d()(gradrs.zeros(1, 2, 1, 1))
        tensor([[[[0.5000]],
        <BLANKLINE>
                 [[0.5000]]]])
    """

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(
                f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead")
        return F.softmax(input, -3, _stacklevel=5)


class LogSoftmax(Module):
    """log(softmax(x)) along `dim`.

    Examples:
        >>> gradrs.nn.LogSoftmax(dim=1)(gradrs.tensor([[1.0, 2.0, 3.0]]))
        tensor([[-2.4076, -1.4076, -0.4076]])
    """

    __constants__ = ["dim"]

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "dim"):
            self.dim = None

    def forward(self, input):
        return F.log_softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"
