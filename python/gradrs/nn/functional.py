"""`gradrs.nn.functional`: PyTorch's functional API. Each function calls one native op (or a
short composition of them, where PyTorch composes too), so gradients come from the ops'
own backward formulas."""

from .. import _native


def relu(input, inplace=False):
    return input.relu_() if inplace else input.relu()


def relu6(input, inplace=False):
    return _native.hardtanh(input, 0.0, 6.0, inplace)


def sigmoid(input):
    return input.sigmoid()


def tanh(input):
    return input.tanh()


def gelu(input, approximate="none"):
    return _native.gelu(input, approximate)


def silu(input, inplace=False):
    return _native.silu(input, inplace)


def softplus(input, beta=1.0, threshold=20.0):
    return _native.softplus(input, beta, threshold)


def elu(input, alpha=1.0, inplace=False):
    return _native.elu(input, alpha, inplace)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    return _native.leaky_relu(input, negative_slope, inplace)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    return _native.hardtanh(input, min_val, max_val, inplace)
