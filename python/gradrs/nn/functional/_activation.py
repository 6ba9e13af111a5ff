"""Non-linear activation functions of `gradrs.nn.functional` (PyTorch's docs' "Non-linear
activation functions"): relu & co., their in-place forms, softmax / log_softmax / softmin,
glu, prelu, rrelu, gumbel_softmax.
"""

from __future__ import annotations

from ... import _native
from ..._native import Tensor as _Tensor
from ._helpers import (
    _check_tensor_args, _i64, _in_dtype, _live_tangent, _one_node, _opmath, _scalar_name, _vmap_rule,
)


def relu(input: _Tensor, inplace: bool = False) -> _Tensor:
    """Rectified linear unit, elementwise: max(x, 0).

    Args:
        input: a tensor of any shape.
        inplace: write the result into `input` (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.relu(gradrs.tensor([-1.0, 0.0, 2.0]))
        tensor([0., 0., 2.])
    """
    return input.relu_() if inplace else input.relu()


def relu6(input, inplace=False):
    """ReLU capped at 6, elementwise: min(max(x, 0), 6).

    Args:
        input: a tensor of any shape.
        inplace: write the result into `input` (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.relu6(gradrs.tensor([-1.0, 3.0, 9.0]))
        tensor([0., 3., 6.])
    """
    return _native.hardtanh(input, 0.0, 6.0, inplace)


def sigmoid(input: _Tensor) -> _Tensor:
    """The logistic function 1 / (1 + exp(-x)), elementwise.

    Args:
        input: a tensor of any shape.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.sigmoid(gradrs.tensor([-2.0, 0.0, 2.0]))
        tensor([0.1192, 0.5000, 0.8808])
    """
    return input.sigmoid()


def tanh(input: _Tensor) -> _Tensor:
    """Hyperbolic tangent, elementwise.

    Args:
        input: a tensor of any shape.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.tanh(gradrs.tensor([-1.0, 0.0, 1.0]))
        tensor([-0.7616,  0.0000,  0.7616])
    """
    return input.tanh()


def gelu(input: _Tensor, approximate: str = "none") -> _Tensor:
    """Gaussian error linear unit: x * Phi(x), Phi the standard normal CDF.

    Args:
        input: a tensor of any shape.
        approximate: 'none' for the exact form (erf), 'tanh' for the tanh approximation.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.gelu(gradrs.tensor([-1.0, 0.0, 1.0]))
        tensor([-0.1587,  0.0000,  0.8413])
        >>> F.gelu(gradrs.tensor([-1.0, 0.0, 1.0]), approximate='tanh')
        tensor([-0.1588,  0.0000,  0.8412])
    """
    return _native.gelu(input, approximate)


def silu(input: _Tensor, inplace: bool = False) -> _Tensor:
    """Sigmoid linear unit (swish): x * sigmoid(x).

    Args:
        input: a tensor of any shape.
        inplace: write the result into `input` (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.silu(gradrs.tensor([-1.0, 0.0, 1.0]))
        tensor([-0.2689,  0.0000,  0.7311])
    """
    return _native.silu(input, inplace)


def softplus(input, beta=1.0, threshold=20.0):
    """Smooth ReLU: log(1 + exp(beta * x)) / beta; where beta * x > threshold the input
    is returned unchanged (the two agree there to float precision).

    Args:
        input: a tensor of any shape.
        beta: the sharpness (default 1).
        threshold: above beta * x > threshold the function is linear (default 20).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.softplus(gradrs.tensor([-1.0, 0.0, 30.0]))
        tensor([ 0.3133,  0.6931, 30.0000])
    """
    return _native.softplus(input, beta, threshold)


def elu(input, alpha=1.0, inplace=False):
    """Exponential linear unit: x for x > 0, alpha * (exp(x) - 1) otherwise.

    Args:
        input: a tensor of any shape.
        alpha: the value the negative side saturates towards, negated (default 1.0).
        inplace: write the result into `input` (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.elu(gradrs.tensor([-1.0, 0.0, 2.0]))
        tensor([-0.6321,  0.0000,  2.0000])
    """
    return _native.elu(input, alpha, inplace)


def leaky_relu(input: _Tensor, negative_slope: float = 0.01, inplace: bool = False) -> _Tensor:
    """x for x >= 0, negative_slope * x otherwise.

    Args:
        input: a tensor of any shape.
        negative_slope: the slope of the negative side (default 0.01).
        inplace: write the result into `input` (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.leaky_relu(gradrs.tensor([-2.0, 3.0]), negative_slope=0.1)
        tensor([-0.2000,  3.0000])
    """
    return _native.leaky_relu(input, negative_slope, inplace)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """Clamps each element to [min_val, max_val].

    Args:
        input: a tensor of any shape.
        min_val: the lower bound (default -1).
        max_val: the upper bound (default 1).
        inplace: write the result into `input` (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.hardtanh(gradrs.tensor([-2.0, 0.5, 2.0]))
        tensor([-1.0000,  0.5000,  1.0000])
    """
    return _native.hardtanh(input, min_val, max_val, inplace)


def softmax(input: _Tensor, dim: int | None = None, _stacklevel: int = 3,
            dtype: _native.dtype | None = None) -> _Tensor:
    """Softmax along `dim`: exp(x) / sum(exp(x)), so each slice sums to 1.

    Args:
        input: a tensor of any shape.
        dim: the dimension the slices run along (needed; omitting it is deprecated).
        dtype: cast `input` to this dtype first (avoids overflow in float16).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.softmax(gradrs.tensor([[1.0, 2.0, 3.0]]), dim=1)
        tensor([[0.0900, 0.2447, 0.6652]])
    """
    return input.softmax(_softmax_dim(input, dim), dtype=dtype)


def log_softmax(input: _Tensor, dim: int | None = None, _stacklevel: int = 3,
                dtype: _native.dtype | None = None) -> _Tensor:
    """log(softmax(x)) along `dim`, computed stably (subtracting the maximum).

    Args:
        input: a tensor of any shape.
        dim: the dimension the slices run along.
        dtype: cast `input` to this dtype first.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.log_softmax(gradrs.tensor([[1.0, 2.0, 3.0]]), dim=1)
        tensor([[-2.4076, -1.4076, -0.4076]])
    """
    return input.log_softmax(_softmax_dim(input, dim), dtype=dtype)


def _softmax_dim(input, dim):
    if dim is not None:
        return dim
    # PyTorch's legacy implicit-dim rule.
    return 0 if input.dim() in (0, 1, 3) else 1


def _pointwise(name, input, forward, backward, saved=None):
    """``forward(input)`` as one node ``name`` whose backward is ``backward(grad, input)``:
    PyTorch's derivative formula written in differentiable ops (so create_graph works), exact
    at the kinks where a composition's autograd would pick another one-sided derivative.
    ``saved()``: the ``(name, value)``s PyTorch's node shows as ``_saved_<name>``."""
    # Half tensors compute in float32 and round once, as PyTorch's kernels do.
    from ..._ops._common import _forward_tangent

    forward, backward = _opmath(forward), _opmath(backward)
    grad = _native.is_grad_enabled() and input.requires_grad
    if not grad and _live_tangent(input) is None:
        return forward(input)
    out = forward(input.detach())
    if grad:
        _native._attach_node(out, [input], name, lambda g: [backward(g, input)],
                             saved=None if saved is None else saved(),
                             save_inputs=None if saved is None else ())
    # Forward mode, with or without a graph: PyTorch's tangent of an elementwise op whose
    # derivative is `backward` is `backward(self_t, self)` (a composition's tangent would take
    # another one-sided derivative at the kinks), differentiable through `input`'s graph.
    _forward_tangent(out, [input], lambda t: backward(t, input))
    return out


def _inplace(input, fn):
    """``fn`` applied in place: ``input`` gets the values, and autograd sees the op applied to
    the input's old value (a clone keeps that value for the backward)."""
    from ... import no_grad

    if _native.is_grad_enabled() and input.requires_grad:
        return input.copy_(fn(input.clone()))
    with no_grad():
        return input.copy_(fn(input))


def threshold(input, threshold, value, inplace=False):
    """Replaces the elements not greater than `threshold` by `value`.

    Args:
        input: a tensor of any shape.
        threshold: the threshold.
        value: what the elements <= threshold become.
        inplace: write the result into `input` (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.threshold(gradrs.tensor([0.5, 1.0, 2.0]), 1.0, -1.0)
        tensor([-1., -1.,  2.])
    """
    return _threshold(input, threshold, value, inplace)


def _threshold(input, threshold, value, inplace):
    # The declared op (`src/ops/unary_decl.rs`); threshold_ is an entry of its own for its
    # node's name (ThresholdBackward1).
    return _native._unary_op("threshold_" if inplace else "threshold", input, threshold, value,
                             inplace=inplace)


def threshold_(input, threshold, value):
    """In-place `threshold` (see there); returns `input`.

    Args:
        input: the tensor to modify.
        threshold: the threshold.
        value: what the elements <= threshold become.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.threshold_(gradrs.tensor([0.5, 2.0]), 1.0, 0.0)
        tensor([0., 2.])
    """
    return _threshold(input, threshold, value, True)


def hardsigmoid(input, inplace=False):
    """Piecewise-linear sigmoid: 0 below -3, 1 above 3, x / 6 + 1/2 between.

    Args:
        input: a tensor of any shape.
        inplace: write the result into `input` (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.hardsigmoid(gradrs.tensor([-4.0, 0.0, 1.5, 4.0]))
        tensor([0.0000, 0.5000, 0.7500, 1.0000])
    """
    return _native._unary_op("hardsigmoid", input, inplace=inplace)


def hardswish(input, inplace=False):
    """x * hardsigmoid(x), the activation of MobileNetV3.

    Args:
        input: a tensor of any shape.
        inplace: write the result into `input` (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.hardswish(gradrs.tensor([-4.0, 0.0, 1.5, 4.0]))
        tensor([-0.0000, 0.0000, 1.1250, 4.0000])
    """
    return _native._unary_op("hardswish", input, inplace=inplace)


def mish(input, inplace=False):
    """x * tanh(softplus(x)).

    Args:
        input: a tensor of any shape.
        inplace: write the result into `input` (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.mish(gradrs.tensor([-1.0, 0.0, 1.0]))
        tensor([-0.3034,  0.0000,  0.8651])
    """
    return _native._unary_op("mish", input, inplace=inplace)


def celu(input, alpha=1.0, inplace=False):
    """Continuously differentiable ELU: max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).

    Args:
        input: a tensor of any shape.
        alpha: the scale of the negative side (default 1.0).
        inplace: write the result into `input` (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.celu(gradrs.tensor([-1.0, 2.0]), alpha=2.0)
        tensor([-0.7869,  2.0000])
    """
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    # The declared celu / celu_ (CeluBackward1 keeps the result, as PyTorch's).
    return _native._unary_op("celu_" if inplace else "celu", input, alpha, inplace=inplace)


def celu_(input, alpha=1.0):
    """In-place `celu` (see there); returns `input`.

    Args:
        input: the tensor to modify.
        alpha: the scale of the negative side (default 1.0).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.celu_(gradrs.tensor([-1.0, 2.0]))
        tensor([-0.6321,  2.0000])
    """
    return celu(input, alpha, True)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input, inplace=False):
    """Scaled ELU with the self-normalizing constants: scale * elu(x, alpha), where
    alpha = 1.6732632423543772 and scale = 1.0507009873554805.

    Args:
        input: a tensor of any shape.
        inplace: write the result into `input` (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.selu(gradrs.tensor([-1.0, 0.0, 1.0]))
        tensor([-1.1113,  0.0000,  1.0507])
    """
    # PyTorch's selu is its elu op with SELU's constants (EluBackward0; in place EluBackward1,
    # keeping the result): the declared elu / elu_ with those parameters.
    return _native._unary_op("elu_" if inplace else "elu", input, _SELU_ALPHA, _SELU_SCALE, 1.0,
                             inplace=inplace)


def selu_(input):
    """In-place `selu` (see there); returns `input`.

    Args:
        input: the tensor to modify.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.selu_(gradrs.tensor([-1.0, 1.0]))
        tensor([-1.1113,  1.0507])
    """
    return selu(input, True)


def softsign(input):
    """x / (1 + |x|), elementwise.

    Args:
        input: a tensor of any shape.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.softsign(gradrs.tensor([-3.0, 0.0, 1.0]))
        tensor([-0.7500,  0.0000,  0.5000])
    """
    return input / (input.abs() + 1)


def tanhshrink(input):
    """x - tanh(x), elementwise.

    Args:
        input: a tensor of any shape.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.tanhshrink(gradrs.tensor([-1.0, 0.0, 1.0]))
        tensor([-0.2384,  0.0000,  0.2384])
    """
    return input - input.tanh()


def softshrink(input, lambd=0.5):
    """Soft thresholding: x - lambd above lambd, x + lambd below -lambd, 0 between.

    Args:
        input: a tensor of any shape.
        lambd: the threshold (default 0.5).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.softshrink(gradrs.tensor([-1.0, 0.2, 1.0]))
        tensor([-0.5000,  0.0000,  0.5000])
    """
    from ... import finfo

    if isinstance(input, _Tensor) and input.is_floating_point():
        top = finfo(input.dtype).max
        if not 0 <= lambd <= top:
            raise RuntimeError(f"lambda must be in range [0, {top:g}] for input dtype "
                               f"{_scalar_name(input.dtype)}, but found {lambd:g}")
    # The declared op: the forward compares in float, the backward as the dtype holds lambd.
    return _native._unary_op("softshrink", input, lambd)


def hardshrink(input, lambd=0.5):
    """Hard thresholding: x where |x| > lambd, 0 elsewhere.

    Args:
        input: a tensor of any shape.
        lambd: the threshold (default 0.5).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.hardshrink(gradrs.tensor([-1.0, 0.2, 1.0]))
        tensor([-1.,  0.,  1.])
    """
    # The declared op; a half kernel compares with lambd as half holds it.
    dtype = input.dtype if isinstance(input, _Tensor) else None
    return _native._unary_op("hardshrink", input, _in_dtype(lambd, dtype))


def log_sigmoid(input):  # ATen's name, which PyTorch's F.logsigmoid reports
    """log(sigmoid(x)), computed without overflow for large |x|.

    Args:
        input: a tensor of any shape.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.logsigmoid(gradrs.tensor([-5.0, 0.0, 5.0]))
        tensor([-5.0067, -0.6931, -0.0067])
    """
    def fwd(x):
        return x.clamp(max=0) - (-x.abs()).exp().log1p()

    # ATen's forward also returns its `buffer`, exp(-|x|) on the CPU, which its node saves
    return _pointwise("LogSigmoidBackward0", input, fwd, _log_sigmoid_backward, saved=lambda: [
        ("buffer", (-input.detach().abs()).exp()), ("self", input)])


def _log_sigmoid_backward(g, x):
    """PyTorch's ``log_sigmoid_backward(grad_output, self)`` (its CPU kernel branch for branch)
    as one node, LogSigmoidBackwardBackward0 with derivatives.yaml's formulas, so a Hessian
    holds torch's values at 0 (a composition's `abs` would give 0 there) and its bits."""
    from ..._ops._common import _forward_tangent

    def kernel(g, x):
        z = (-x.abs()).exp()
        in_negative = (x < 0).to(x.dtype)
        sign = in_negative * 2 - 1
        return g * (in_negative - sign * (z / (1 + z)))

    kernel = _opmath(kernel)
    grad = _native.is_grad_enabled() and (g.requires_grad or x.requires_grad)
    if not grad and _live_tangent(g) is None and _live_tangent(x) is None:
        return kernel(g, x)
    out = kernel(g.detach(), x.detach())
    if grad:
        _native._attach_node(out, [g, x], "LogSigmoidBackwardBackward0", lambda gg: [
            _log_sigmoid_backward(gg, x), _log_sigmoid_double_backward(gg * g, x)])
    _forward_tangent(out, [g, x], lambda g_t, x_t: _log_sigmoid_backward(g_t, x)
                     + _log_sigmoid_double_backward(x_t * g, x))
    return out


def _log_sigmoid_double_backward(grad, x):
    """ATen's ``log_sigmoid_double_backward``: ``grad * (z - 1) * z`` with z = sigmoid(x)."""
    z = x.sigmoid()
    return grad * (z - 1) * z


def glu(input, dim=-1):
    """Gated linear unit: splits `input` in two halves a, b along `dim` and returns
    a * sigmoid(b).

    Args:
        input: a tensor whose size along `dim` is even.
        dim: the dimension to split (default -1).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.glu(gradrs.tensor([[1.0, 2.0, 0.0, 0.0]]))
        tensor([[0.5000, 1.0000]])
    """
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = dim + input.dim() if dim < 0 else dim
    if input.shape[d] % 2 != 0:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size "
                           f"{input.shape[d]}")

    def fn(x):
        a, b = x.chunk(2, d)
        return a * b.sigmoid()

    return _one_node("GluBackward0", fn, input, saved=lambda: [("dim", _i64(dim)), ("self", input)])


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """Softmax of the negated input along `dim`: small values get large weights.

    Args:
        input: a tensor of any shape.
        dim: the dimension the slices run along.
        dtype: cast `input` to this dtype first.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.softmin(gradrs.tensor([[1.0, 2.0, 3.0]]), dim=1)
        tensor([[0.6652, 0.2447, 0.0900]])
    """
    if dim is None:
        import warnings

        warnings.warn("Implicit dimension choice for softmin has been deprecated. Change the "
                      "call to include dim=X as an argument.", stacklevel=_stacklevel)
        dim = _softmax_dim(input, None)
    return (-input).softmax(dim, dtype=dtype)


def prelu(input, weight):
    """Parametric ReLU: x for x >= 0, weight * x otherwise, with one learned slope or one
    per channel (dimension 1).

    Args:
        input: a tensor; channels on dimension 1.
        weight: the slopes: one element, or one per channel.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.prelu(gradrs.tensor([-2.0, 3.0]), gradrs.tensor([0.25]))
        tensor([-0.5000,  3.0000])
    """
    if input.dtype != weight.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got "
                           f"{_scalar_name(input.dtype)} and {_scalar_name(weight.dtype)}")
    if weight.numel() != 1:
        if input.dim() == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.dim() > 1 else 1
        if channels != weight.numel():
            raise RuntimeError(
                "Mismatch of parameter numbers and input channel size. Found parameter numbers "
                f"= {weight.numel()} and channel size = {channels}.")
    if weight.dim() > 1:
        raise RuntimeError("prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.dim()}")
    w = weight
    if input.dim() != weight.dim():
        shape = [1] * input.dim()
        if input.dim() > 1:
            shape[1] = weight.numel()
        w = weight.reshape(*shape)
    from ... import where

    return _one_node("PreluKernelBackward0", lambda x, a: where(x > 0, x, a * x), input, w,
                     saved=lambda: [("self", input), ("weight", w)])


def _rrelu_noise(input, lower, upper, generator=None):
    """PyTorch's CPU rrelu_with_noise noise: 1 where input > 0, else one draw per element in
    order from the generator's 64-bit stream, u in [0, 1) with 53 random bits, scaled as
    ``u * (upper - lower) + lower`` in double precision (two roundings: PyTorch's rrelu kernel
    is not compiled with fused multiply-adds, unlike its uniform_ kernel), with the bounds
    first rounded to the input's compute type (float below float64), then cast to the input's
    dtype. The other elements draw nothing, so the stream after it stays PyTorch's."""
    import numpy as np

    from ... import empty, float64, no_grad, ones_like

    if input.dtype != float64:
        lower, upper = float(np.float32(lower)), float(np.float32(upper))
    with no_grad():
        # The draws go to the non-positive elements in order, so the host needs the mask: on
        # the GPU it is the one thing a step reads back (then the noise is uploaded).
        negative = (input <= 0).cpu()
        noise = ones_like(input, device="cpu")
        count = int(negative.sum())
        if count:
            u = empty(count, dtype=float64).uniform_(0.0, 1.0, generator=generator)
            noise[negative] = (u * (upper - lower) + lower).to(input.dtype)
    return noise.to(input.device)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Randomized leaky ReLU: in training the negative slope of each element is drawn
    uniformly from [lower, upper]; in evaluation it is (lower + upper) / 2.

    Args:
        input: a tensor of any shape.
        lower: the lowest slope (default 1/8).
        upper: the highest slope (default 1/3).
        training: draw random slopes (default False).
        inplace: write the result into `input` (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.rrelu(gradrs.tensor([-2.0, 3.0]), lower=0.1, upper=0.3)
        tensor([-0.4000,  3.0000])
    """
    return _rrelu(input, lower, upper, training, inplace)


def _rrelu(input, lower, upper, training, inplace, generator=None):
    """rrelu; `generator` is the top-level `gradrs.rrelu`'s."""
    from ... import where

    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")

    if training:
        noise = _rrelu_noise(input, lower, upper, generator)
    else:
        noise = None
        slope = (lower + upper) / 2

    def fn(x):
        if noise is None:
            return where(x > 0, x, x * slope)
        return x * noise

    def r(x):
        return _one_node("RreluWithNoiseBackward0", fn, x)

    return _inplace(input, r) if inplace else r(input)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """In-place `rrelu` (see there); returns `input`.

    Args:
        input: the tensor to modify.
        lower: the lowest slope (default 1/8).
        upper: the highest slope (default 1/3).
        training: draw random slopes (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.rrelu_(gradrs.tensor([-2.0, 3.0]), 0.1, 0.3)
        tensor([-0.4000,  3.0000])
    """
    return rrelu(input, lower, upper, training, inplace=True)


def relu_(input):
    """In-place `relu`: clamps the negative entries of `input` to 0 and returns it.

    Args:
        input: the tensor to modify.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> x = gradrs.tensor([-1.0, 3.0])
        >>> F.relu_(x) is x
        True
        >>> x
        tensor([0., 3.])
    """
    return input.relu_()


def elu_(input, alpha=1.0):
    """In-place `elu` (see there); returns `input`.

    Args:
        input: the tensor to modify.
        alpha: the scale of the negative side (default 1.0).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> x = gradrs.tensor([-1.0, 2.0])
        >>> F.elu_(x)
        tensor([-0.6321,  2.0000])
    """
    return elu(input, alpha, True)


def leaky_relu_(input, negative_slope=0.01):
    """In-place `leaky_relu` (see there); returns `input`.

    Args:
        input: the tensor to modify.
        negative_slope: the slope of the negative side (default 0.01).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.leaky_relu_(gradrs.tensor([-2.0, 3.0]), 0.5)
        tensor([-1.,  3.])
    """
    return leaky_relu(input, negative_slope, True)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """In-place `hardtanh` (see there); returns `input`.

    Args:
        input: the tensor to modify.
        min_val: the lower bound (default -1).
        max_val: the upper bound (default 1).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.hardtanh_(gradrs.tensor([-2.0, 0.5, 2.0]))
        tensor([-1.0000,  0.5000,  1.0000])
    """
    return hardtanh(input, min_val, max_val, True)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """Samples from the Gumbel-softmax distribution over the last (or `dim`) axis of
    `logits`: softmax((logits + Gumbel noise) / tau); with `hard=True` the result is one-hot in the
    forward pass while its gradient is that of the soft sample (straight-through).

    Args:
        logits: unnormalized log-probabilities.
        tau: the temperature (default 1).
        hard: return one-hot samples (default False).
        eps: unused, kept for PyTorch's signature.
        dim: the axis of the categories (default -1).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> y = F.gumbel_softmax(gradrs.randn(2, 5), tau=0.5, hard=True)
        >>> y.sum(dim=-1)
        tensor([1., 1.])
    """
    import warnings

    from ... import empty_like, no_grad, zeros_like

    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    with no_grad():
        # -log of Exponential(1) samples are Gumbel(0, 1) samples; exponential_ draws
        # PyTorch's stream.
        gumbels = -empty_like(logits).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = zeros_like(logits).scatter_(dim, index, 1.0)
    # the straight-through estimator: the forward is one-hot, the gradient y_soft's
    return y_hard - y_soft.detach() + y_soft


# Each function wrapped as PyTorch's fails (`_check_tensor_args` with its spec,
# `_check_conv_args`) and batched by its vmap rule (`_vmap_rule`): one static name each.
relu = _check_tensor_args(relu, "relu(input)")
relu6 = _vmap_rule(_check_tensor_args(relu6, "relu6(input)"), "pointwise")
gelu = _vmap_rule(_check_tensor_args(gelu, "gelu(input)"), "pointwise")
silu = _vmap_rule(_check_tensor_args(silu, "silu(input)"), "pointwise")
softplus = _vmap_rule(_check_tensor_args(softplus, "softplus(input)"), "pointwise")
elu = _vmap_rule(_check_tensor_args(elu, "elu(input)"), "pointwise")
leaky_relu = _vmap_rule(_check_tensor_args(leaky_relu, "leaky_relu(input)"), "pointwise")
hardtanh = _vmap_rule(_check_tensor_args(hardtanh, "hardtanh(input)"), "pointwise")
softmax = _check_tensor_args(softmax, ".dim(input)")
log_softmax = _check_tensor_args(log_softmax, ".dim(input)")
threshold = _vmap_rule(_check_tensor_args(threshold, "threshold(input)"), "pointwise")
threshold_ = _vmap_rule(_check_tensor_args(threshold_, "threshold_(input)"), "pointwise")
hardsigmoid = _vmap_rule(_check_tensor_args(hardsigmoid, "hardsigmoid(input)"), "pointwise")
hardswish = _vmap_rule(_check_tensor_args(hardswish, "hardswish(input)"), "pointwise")
mish = _vmap_rule(_check_tensor_args(mish, "mish(input)"), "pointwise")
celu = _vmap_rule(_check_tensor_args(celu, "celu(input)"), "pointwise")
celu_ = _vmap_rule(_check_tensor_args(celu_, "celu_(input)"), "pointwise")
selu = _vmap_rule(_check_tensor_args(selu, "selu(input)"), "pointwise")
selu_ = _vmap_rule(_check_tensor_args(selu_, "selu_(input)"), "pointwise")
softshrink = _vmap_rule(_check_tensor_args(softshrink, "softshrink(input)"), "pointwise")
hardshrink = _vmap_rule(_check_tensor_args(hardshrink, "hardshrink(input)"), "pointwise")
logsigmoid = _vmap_rule(_check_tensor_args(log_sigmoid, "log_sigmoid(input)"), "pointwise")
prelu = _check_tensor_args(prelu, "prelu(input, weight)")
rrelu = _check_tensor_args(rrelu, "rrelu(input)")
rrelu_ = _check_tensor_args(rrelu_, "rrelu_(input)")
relu_ = _check_tensor_args(relu_, "relu_(input)")
elu_ = _check_tensor_args(elu_, "elu_(input)")
leaky_relu_ = _check_tensor_args(leaky_relu_, "leaky_relu_(input)")
hardtanh_ = _check_tensor_args(hardtanh_, "hardtanh_(input)")
gumbel_softmax = _check_tensor_args(gumbel_softmax, "empty_like(input=logits)")
