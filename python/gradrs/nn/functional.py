"""`gradrs.nn.functional`: PyTorch's functional API. Each function calls one native op (or a
short composition of them, where PyTorch composes too), so gradients come from the ops'
own backward formulas."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from .. import _native
from .._native import Tensor as _Tensor

# ---- one named node for a composition -----------------------------------------------------
#
# PyTorch computes mse_loss, conv2d, layer_norm, ... as single ops whose grad_fn is one node
# (MseLossBackward0, ConvolutionBackward0, ...). Here they are compositions of differentiable
# ops: `_one_node` runs the composition on detached leaves (a local graph), returns its result
# detached with one node of PyTorch's name attached to the real inputs, and that node's
# backward differentiates the local graph. Under create_graph the gradients are lifted the
# same way (a node over the inputs and the incoming gradient), so any order of derivative is
# the composition's own.


def _one_node(name, fn, *inputs, linear=False):
    """`fn(*inputs)` recorded as one node called `name` (inputs: tensors or other values).

    ``linear``: `fn` is linear in its one tensor input and PyTorch's backward is an op of
    (grad_output, self), as avg_pool2d_backward: under create_graph the first derivative is
    always a node over both (requires_grad even for a constant grad_output), and the second
    derivative with respect to the input is zeros (``self: zeros_like(self)``).
    """
    if not _native.is_grad_enabled() or not any(
            isinstance(t, _native.Tensor) and t.requires_grad for t in inputs):
        return fn(*inputs)
    leaves = [t.detach().requires_grad_() if isinstance(t, _native.Tensor) and t.requires_grad
              else t for t in inputs]
    return _lift(name, fn(*leaves), leaves, inputs, linear)


def _lift(name, local, leaves, reals, linear=False, zeros_if_unused=False):
    pos = [i for i, t in enumerate(reals) if isinstance(t, _native.Tensor)]
    wanted = [k for k, i in enumerate(pos) if reals[i].requires_grad]
    node_inputs = [reals[i] for i in pos]
    node_leaves = [leaves[i] for i in pos]
    out = local.detach()

    def backward(g):
        create = _native.is_grad_enabled()
        gl = (g.detach().requires_grad_() if create and (linear or g.requires_grad)
              else g.detach())
        res = _native._grad([local], [node_leaves[k] for k in wanted], [gl], True, create, True)
        grads = [None] * len(pos)
        for k, r in zip(wanted, res):
            if r is None and zeros_if_unused:
                r = _native.zeros_like(node_leaves[k])
            if r is not None and create and r.requires_grad:
                r = _lift(name.replace("Backward0", "BackwardBackward0"), r,
                          node_leaves + [gl], node_inputs + [g], zeros_if_unused=linear)
            grads[k] = r
        return grads

    _native._attach_node(out, node_inputs, name, backward)
    return out


def _opmath(fn):
    """``fn`` computed in float32 when its first argument is float16 or bfloat16, the result
    rounded to that dtype once, as PyTorch's fused kernels (normalizations) compute them."""
    def run(x, *rest):
        half = x.dtype
        if half not in (_native.float16, _native.bfloat16):
            return fn(x, *rest)
        wide = [t.float() if isinstance(t, _native.Tensor) and t.dtype == half
                else t for t in (x, *rest)]
        return fn(*wide).to(half)

    return run


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


# ---- losses ------------------------------------------------------------------------------------

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _reduction_code(reduction):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _REDUCTIONS[reduction]


def _reduce(loss, reduction):
    code = _reduction_code(reduction)
    if code == 0:
        return loss
    return loss.mean() if code == 1 else loss.sum()


def _check_same_size(input, target, name):
    if tuple(input.shape) != tuple(target.shape):
        import warnings

        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.",
            stacklevel=3,
        )


def _check_weight(input, weight):
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")


def _weighted(loss, weight, reduction):
    """PyTorch's weighted mse/l1: the mean divides by the sum of the weights."""
    code = _reduction_code(reduction)
    loss = loss * weight
    if code == 1:
        return loss.sum() / weight.sum()
    return loss.sum() if code == 2 else loss


def mse_loss(input: _Tensor, target: _Tensor, size_average: bool | None = None,
             reduce: bool | None = None, reduction: str = "mean",
             weight: _Tensor | None = None) -> _Tensor:
    """Mean squared error (input - target)^2 (reduced by `reduction`).

    Args:
        input: predictions, any shape.
        target: targets, broadcastable to `input`'s shape.
        size_average: deprecated; use `reduction`.
        reduce: deprecated; use `reduction`.
        reduction: 'none' | 'mean' | 'sum': how the per-element losses are combined (default 'mean').

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.mse_loss(gradrs.tensor([1.0, 2.0]), gradrs.tensor([0.0, 4.0]))
        tensor(2.5000)
    """
    _check_same_size(input, target, "mse_loss")
    if weight is not None:  # composed in PyTorch too
        _check_weight(input, weight)
        return _weighted((input - target) ** 2, weight, reduction)
    _reduction_code(reduction)
    return _one_node("MseLossBackward0", lambda x, t: _reduce((x - t) ** 2, reduction),
                     input, target)


def l1_loss(input: _Tensor, target: _Tensor, size_average: bool | None = None,
            reduce: bool | None = None, reduction: str = "mean",
            weight: _Tensor | None = None) -> _Tensor:
    """Mean absolute error |input - target| (reduced by `reduction`).

    Args:
        input: predictions, any shape.
        target: targets, broadcastable to `input`'s shape.
        size_average: deprecated; use `reduction`.
        reduce: deprecated; use `reduction`.
        reduction: 'none' | 'mean' | 'sum': how the per-element losses are combined (default 'mean').

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.l1_loss(gradrs.tensor([1.0, 2.0]), gradrs.tensor([0.0, 4.0]))
        tensor(1.5000)
    """
    _check_same_size(input, target, "l1_loss")
    d = (input - target).abs()
    if weight is not None:
        _check_weight(input, weight)
        return _weighted(d, weight, reduction)
    return _reduce(d, reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """Smooth L1 loss: 0.5 d^2 / beta where |d| < beta, |d| - 0.5 beta elsewhere
    (d = input - target).

    Args:
        input: predictions, any shape.
        target: targets of the same shape.
        size_average: deprecated; use `reduction`.
        reduce: deprecated; use `reduction`.
        reduction: 'none' | 'mean' | 'sum': how the per-element losses are combined (default 'mean').
        beta: where the quadratic part turns linear (default 1.0).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.smooth_l1_loss(gradrs.tensor([0.5, 3.0]), gradrs.tensor([0.0, 0.0]))
        tensor(1.3125)
    """
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    _check_same_size(input, target, "smooth_l1_loss")
    _reduction_code(reduction)
    if beta == 0:  # PyTorch's l1_loss, composed
        return _reduce((input - target).abs(), reduction)
    from .. import where

    def loss(x, t):
        d = (x - t).abs()
        return _reduce(where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta), reduction)

    return _one_node("SmoothL1LossBackward0", loss, input, target)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """Huber loss: 0.5 d^2 where |d| < delta, delta (|d| - 0.5 delta) elsewhere
    (d = input - target); equal to delta * smooth_l1_loss with beta = delta.

    Args:
        input: predictions, any shape.
        target: targets of the same shape.
        reduction: 'none' | 'mean' | 'sum': how the per-element losses are combined (default 'mean').
        delta: where the quadratic part turns linear (default 1.0).
        weight: optional per-element weights, broadcastable to `input`.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.huber_loss(gradrs.tensor([0.5, 3.0]), gradrs.tensor([0.0, 0.0]), delta=2.0)
        tensor(2.0625)
    """
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    _check_same_size(input, target, "huber_loss")
    from .. import where

    def pointwise(x, t):
        d = (x - t).abs()
        return where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))

    _reduction_code(reduction)
    if weight is not None:  # PyTorch weights the unreduced loss
        _check_weight(input, weight)
        loss = _one_node("HuberLossBackward0", pointwise, input, target)
        return _reduce(loss * weight, reduction)
    return _one_node("HuberLossBackward0", lambda x, t: _reduce(pointwise(x, t), reduction),
                     input, target)


def binary_cross_entropy(input: _Tensor, target: _Tensor, weight: _Tensor | None = None,
                         size_average: bool | None = None, reduce: bool | None = None,
                         reduction: str = "mean") -> _Tensor:
    """Binary cross entropy between probabilities and targets:
    -(t log(p) + (1 - t) log(1 - p)), with the logs clamped at -100.

    Args:
        input: probabilities in [0, 1], any shape.
        target: targets in [0, 1], the same shape.
        weight: optional weights, broadcastable to `input`.
        size_average: deprecated; use `reduction`.
        reduce: deprecated; use `reduction`.
        reduction: 'none' | 'mean' | 'sum': how the per-element losses are combined (default 'mean').

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.binary_cross_entropy(gradrs.tensor([0.9, 0.2]), gradrs.tensor([1.0, 0.0]))
        tensor(0.1643)
    """
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}) is deprecated. Please ensure they have the same size."
        )
    _reduction_code(reduction)
    if any(hasattr(type(t), "_vmap_level") for t in (input, target, weight)):
        from .. import _vmap  # under vmap: its batching rule (Note [vmap])
        return _vmap.elementwise_loss(binary_cross_entropy, input, target, weight, reduction)
    if bool(((input < 0) | (input > 1)).any()):
        raise RuntimeError("all elements of input should be between 0 and 1")

    def bce(x, t, w):
        # PyTorch clamps the logs at -100 so that 0 * log(0) stays finite.
        loss = -(t * x.log().clamp(min=-100) + (1 - t) * (1 - x).log().clamp(min=-100))
        return _reduce(loss * w if w is not None else loss, reduction)

    return _one_node("BinaryCrossEntropyBackward0", bce, input, target, weight)


def binary_cross_entropy_with_logits(input: _Tensor, target: _Tensor, weight: _Tensor | None = None,
                                     size_average: bool | None = None,
                                     reduce: bool | None = None, reduction: str = "mean",
                                     pos_weight: _Tensor | None = None) -> _Tensor:
    """Binary cross entropy on logits: sigmoid and the
    binary cross entropy in one numerically stable formula.

    Args:
        input: logits, any shape.
        target: targets in [0, 1], the same shape.
        weight: optional weights, broadcastable to `input`.
        size_average: deprecated; use `reduction`.
        reduce: deprecated; use `reduction`.
        reduction: 'none' | 'mean' | 'sum': how the per-element losses are combined (default 'mean').
        pos_weight: a weight for the positive examples, broadcastable along the last dimension.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.binary_cross_entropy_with_logits(gradrs.tensor([2.0, -1.0]), gradrs.tensor([1.0, 0.0]))
        tensor(0.2201)
    """
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(
            f"Target size ({target.shape}) must be the same as input size ({input.shape})"
        )
    _reduction_code(reduction)

    def bce(x, t, w, pw):
        # log(1 + exp(-|x|)) + max(-x, 0): stable for large |x|.
        softplus_neg = (-x.abs()).exp().log1p() + (-x).clamp(min=0)
        if pw is not None:
            loss = (1 - t) * x + (1 + (pw - 1) * t) * softplus_neg
        else:
            loss = (1 - t) * x + softplus_neg
        return _reduce(loss * w if w is not None else loss, reduction)

    return _one_node("BinaryCrossEntropyWithLogitsBackward0", bce, input, target, weight,
                     pos_weight)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """Kullback-Leibler divergence target * (log(target) - input), with `input` given as
    log-probabilities (and `target` too when `log_target=True`).

    Args:
        input: log-probabilities.
        target: probabilities (or log-probabilities with `log_target=True`), the same shape.
        size_average: deprecated; use `reduction`.
        reduce: deprecated; use `reduction`.
        reduction: 'none' | 'mean' | 'sum': how the per-element losses are combined (default 'mean'; 'batchmean' divides the sum by the batch size, the mathematically correct KL).
        log_target: `target` is given as log-probabilities (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> p = gradrs.tensor([[0.5, 0.5]])
        >>> q = gradrs.tensor([[0.9, 0.1]])
        >>> F.kl_div(q.log(), p, reduction='batchmean')
        tensor(0.5108)
    """
    if reduction == "mean":
        import warnings

        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support "
            "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
            "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
            "major release.",
            stacklevel=2,
        )
    if log_target:
        loss = target.exp() * (target - input)
    else:
        from .. import where

        # PyTorch: xlogy(target, target) - target * input (xlogy is 0 where target == 0).
        xlogy = where(target == 0, target * 0, target * target.log())
        loss = xlogy - target * input
    if reduction == "batchmean":
        return loss.sum() / (input.shape[0] if input.dim() > 0 else 1)
    return _reduce(loss, reduction)


def _flatten_classes(input, target):
    """[N, C, d1, ...] -> [N*d1*..., C] and targets to match."""
    c = input.shape[1]
    perm = [0] + list(range(2, input.dim())) + [1]
    return input.permute(*perm).reshape(-1, c), target.reshape(-1)


def nll_loss(input: _Tensor, target: _Tensor, weight: _Tensor | None = None,
             size_average: bool | None = None, ignore_index: int = -100,
             reduce: bool | None = None, reduction: str = "mean") -> _Tensor:
    """Negative log-likelihood loss: minus the entry of `input` (log-probabilities) at each
    target class, weighted, then reduced.

    Args:
        input: log-probabilities, shape (C), (N, C) or (N, C, d1, ...).
        target: class indices, shape (), (N) or (N, d1, ...).
        weight: a manual rescaling weight for each class, shape (C).
        ignore_index: a target value that does not contribute (default -100).
        size_average: deprecated; use `reduction`.
        reduce: deprecated; use `reduction`.
        reduction: 'none' | 'mean' | 'sum': how the per-element losses are combined (default 'mean').

    Examples:
        >>> import gradrs.nn.functional as F
        >>> logp = F.log_softmax(gradrs.tensor([[2.0, 0.5, -1.0]]), dim=1)
        >>> F.nll_loss(logp, gradrs.tensor([0]))
        tensor(0.2413)
    """
    code = _reduction_code(reduction)
    if any(hasattr(type(t), "_vmap_level") for t in (input, target, weight)):
        from .. import _vmap  # under vmap: its batching rule (Note [vmap])
        return _vmap.nll_loss(input, target, weight, ignore_index, ("none", "mean", "sum")[code])
    if input.dim() > 2:
        spatial = (input.shape[0],) + tuple(input.shape[2:])

        def nll(x):
            flat_in, flat_t = _flatten_classes(x, target)
            out = _native.nll_loss(flat_in, flat_t, weight, ignore_index, code,
                                   "_nll_loss2d_forward")
            return out.reshape(*spatial) if code == 0 else out

        # PyTorch's 4-D case is its own op (NllLoss2dBackward0).
        return _one_node("NllLoss2DBackward0", nll, input) if input.dim() == 4 else nll(input)
    return _native.nll_loss(input, target, weight, ignore_index, code)


def cross_entropy(input: _Tensor, target: _Tensor, weight: _Tensor | None = None,
                  size_average: bool | None = None, ignore_index: int = -100,
                  reduce: bool | None = None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> _Tensor:
    """Cross entropy between logits and class targets: log_softmax over the class
    dimension followed by `nll_loss`; also accepts class probabilities as targets.

    Args:
        input: logits, shape (C), (N, C) or (N, C, d1, ...).
        target: class indices (int64, shape (), (N) or (N, d1, ...)) or probabilities (the shape
            of `input`).
        weight: a manual rescaling weight for each class, shape (C).
        ignore_index: a target value that does not contribute (default -100).
        size_average: deprecated; use `reduction`.
        reduce: deprecated; use `reduction`.
        reduction: 'none' | 'mean' | 'sum': how the per-element losses are combined (default 'mean').
        label_smoothing: the amount of probability spread uniformly over the classes (0 to 1).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> logits = gradrs.tensor([[2.0, 0.5, -1.0], [0.0, 1.0, 0.0]])
        >>> F.cross_entropy(logits, gradrs.tensor([0, 1]))
        tensor(0.3964)
    """
    code = _reduction_code(reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(
            f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}"
        )
    if any(hasattr(type(t), "_vmap_level") for t in (input, target, weight)):
        from .. import _vmap  # under vmap: its batching rule (Note [vmap])
        return _vmap.cross_entropy(input, target, weight, ignore_index,
                                   ("none", "mean", "sum")[code], label_smoothing)
    class_dim = 0 if input.dim() == 1 else 1
    logp = input.log_softmax(class_dim)
    c = input.shape[class_dim]
    if target.is_floating_point():
        # Class probabilities: PyTorch's cross_entropy_loss_prob_target, op for op.
        if label_smoothing > 0:
            target = target * (1 - label_smoothing) + label_smoothing / c
        prod = logp * target
        if weight is not None:
            shape = [1] * input.dim()
            shape[class_dim] = c
            prod = prod * (weight.reshape(*shape) if input.dim() > 1 else weight)
        if code == 1:
            if input.numel() == 0:
                return -prod.sum().fill_(float("nan"))
            # An integer count through the C++ Scalar overload: DivBackward1.
            return _native._scalar_overload(-prod.sum(), "div", input.numel() // c)
        return -prod.sum() if code == 2 else -prod.sum(class_dim)
    nll = nll_loss(logp, target, weight, None, ignore_index, None, reduction)
    if label_smoothing == 0:
        return nll
    # Smoothing term: the mean over classes of -logp (weighted), skipping ignored targets.
    if weight is not None:
        shape = [1] * input.dim()
        shape[class_dim] = c
        smooth = -(logp * weight.reshape(*shape)).sum(class_dim)
    else:
        smooth = -logp.sum(class_dim)
    keep = target != ignore_index
    smooth = smooth.masked_fill(~keep, 0.0)
    if code == 1:
        if weight is not None:
            # The kept targets' class weights, summed: picked by a one-hot product, as a
            # gather at the targets would read them back from the GPU to check them.
            shape = [1] * input.dim()
            shape[class_dim] = c
            hit = ((target.unsqueeze(class_dim) == _class_ids(c, input.device).reshape(*shape))
                   & keep.unsqueeze(class_dim))
            denom = (hit.to(weight.dtype) * weight.reshape(*shape)).sum()
        else:
            # The count in the loss's dtype (exact; an int64 count of a bool tensor is summed
            # on the host copy, so the GPU would read the mask back).
            denom = keep.to(smooth.dtype).sum()
        smooth = smooth.sum() / denom
    elif code == 2:
        smooth = smooth.sum()
    # (1 - ls) * nll + smooth * (ls / c) with C++ Scalars: MulBackward1 twice.
    return (_native._scalar_overload(nll, "mul", 1 - label_smoothing)
            + _native._scalar_overload(smooth, "mul", label_smoothing / c))


@functools.lru_cache(maxsize=64)
def _class_ids(c, device):
    """arange(c) on `device`, kept so that a GPU step uploads nothing for it."""
    from .. import arange

    return arange(c, device=device)


# ---- layers ------------------------------------------------------------------------------------


def linear(input: _Tensor, weight: _Tensor, bias: _Tensor | None = None) -> _Tensor:
    """Affine map y = input @ weight.T + bias over the last dimension.

    Args:
        input: shape (*, in_features).
        weight: shape (out_features, in_features) (or (in_features) for a vector output).
        bias: shape (out_features), or None.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.linear(gradrs.ones(2, 3), gradrs.ones(4, 3), gradrs.zeros(4))
        tensor([[3., 3., 3., 3.],
                [3., 3., 3., 3.]])
    """
    # PyTorch's dispatch, so results carry its grad_fn: a 2-D input with bias is one addmm
    # (AddmmBackward0); a contiguous input of another rank, with a bias that is 1-D once
    # squeezed, is flattened to 2-D for addmm and viewed back (ViewBackward0); anything else
    # is matmul then an in-place add of the bias.
    if input.dim() == 0 or weight.dim() == 0:
        raise RuntimeError(
            "both arguments to linear need to be at least 1D, but they are "
            f"{input.dim()}D and {weight.dim()}D"
        )
    if any(hasattr(type(t), "_vmap_level") for t in (input, weight, bias)):
        # Under vmap: composed of the BatchedTensor's matmul and add rules (operators, so a
        # native tensor on the left defers to the batched one on the right).
        out = input @ weight.t()
        return out if bias is None else out + bias
    if bias is None:
        return input.matmul(weight.t())
    if input.dim() == 2:
        return bias.addmm(input, weight.t())
    if (
        (bias.dim() == 1 or bias.squeeze().dim() == 1)
        and bias.is_contiguous()
        and input.is_contiguous()
    ):
        lead = input.shape[:-1]
        rows = 1
        for d in lead:
            rows *= d
        out = bias.addmm(input.reshape(rows, input.shape[-1]), weight.t())
        return out.view(*lead, out.shape[1])
    return input.matmul(weight.t()).add_(bias)


def dropout(input: _Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> _Tensor:
    """Zeroes each element with probability `p` during training and scales the others by
    1 / (1 - p), so the expectation is unchanged; returns `input` as it is when not training.

    Args:
        input: a tensor of any shape.
        p: the probability of zeroing an element (default 0.5).
        training: apply dropout (default True).
        inplace: write the result into `input` (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> y = F.dropout(gradrs.ones(1000), p=0.5)
        >>> sorted(set(y.tolist()))
        [0.0, 2.0]
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    return _dropout_impl(input, p, training, inplace, False, False)


def one_hot(tensor: _Tensor, num_classes: int = -1) -> _Tensor:
    """One-hot encoding: an int64 tensor of shape (*tensor.shape, num_classes) with a 1
    at each index.

    Args:
        tensor: class indices (int64).
        num_classes: the number of classes (default: one more than the largest index).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.one_hot(gradrs.tensor([0, 2]), 3)
        tensor([[1, 0, 0],
                [0, 0, 1]])
    """
    from .. import int64, zeros

    if tensor.dtype != int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if hasattr(type(tensor), "_vmap_level"):
        from .. import _vmap  # under vmap: its batching rule (Note [vmap])
        return _vmap.one_hot(tensor, num_classes)
    if num_classes == -1:
        num_classes = int(tensor.max().item()) + 1 if tensor.numel() > 0 else 0
    if tensor.numel() > 0 and (int(tensor.min().item()) < 0):
        raise RuntimeError("Class values must be non-negative.")
    if tensor.numel() > 0 and int(tensor.max().item()) >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = zeros(*tensor.shape, num_classes, dtype=int64, device=tensor.device)
    return out.scatter(-1, tensor.unsqueeze(-1), 1)


def embedding(input: _Tensor, weight: _Tensor, padding_idx: int | None = None,
              max_norm: float | None = None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> _Tensor:
    """Looks up rows of `weight` by index: the result has shape (*input.shape,
    embedding_dim).

    Args:
        input: indices (int64), any shape.
        weight: the embedding matrix, shape (num_embeddings, embedding_dim).
        padding_idx: a row whose gradient is always zero.
        max_norm: rows looked up with a larger norm are renormalized in place to this norm.
        norm_type: the p of the norm for `max_norm` (default 2).
        scale_grad_by_freq: scale gradients by the inverse frequency of the indices in the batch.
        sparse: accepted for PyTorch's signature; gradients are dense.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> w = gradrs.arange(6.0).reshape(3, 2)
        >>> F.embedding(gradrs.tensor([2, 0]), w)
        tensor([[4., 5.],
                [0., 1.]])
    """
    # sparse=True is accepted, but the gradient is dense (gradrs has no sparse tensors).
    if hasattr(type(input), "_vmap_level"):
        from .. import _vmap  # batched indices under vmap: its batching rule (Note [vmap])
        return _vmap.embedding(input, weight, padding_idx, max_norm, norm_type,
                               scale_grad_by_freq, sparse)
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx += weight.shape[0]
    if input.device != weight.device:
        # PyTorch's embedding is weight.index_select(0, indices): that kernel's device check
        # raises here.
        weight.index_select(0, input.reshape(-1))
    if input.dtype not in (_native.int64, _native.int32):
        # PyTorch names the type as its legacy Tensor types, but bool (which has none) as
        # ATen's backend type (the GPU named as CUDA, as `type()` names it).
        kind = input.type()
        if input.dtype == _native.bool:
            kind = "CPUBoolType" if input.device.type == "cpu" else "CUDABoolType"
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got {kind} instead (while checking arguments for "
            "embedding)")
    if input.device.type == "cpu" and input.numel():
        # PyTorch's bounds check (w[input] below would wrap negative indices). GPU indices are
        # not checked: that would read a result back every step, which a GPU training step
        # must not (tests/test_nn_gpu.py); PyTorch's CUDA kernel also asserts only later.
        if bool(((input < 0) | (input >= weight.shape[0])).any()):
            raise IndexError("index out of range in self")
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    freq = _index_frequency(input, weight.shape[0]) if scale_grad_by_freq else None

    def embed(w):
        out = w[input]
        if freq is not None:
            # Each row's gradient divided by how often its index occurs; the value is unchanged.
            out = out.detach() + (out - out.detach()) / freq
        if padding_idx is not None:
            # Rows at padding_idx get no gradient (PyTorch's EmbeddingBackward rule).
            pad = (input == padding_idx).unsqueeze(-1)
            out = out.masked_fill(pad, 0.0) + w[input].detach().masked_fill(~pad, 0.0)
        return out

    # float16 on the GPU gathers and accumulates its gradient in float32, rounded once, as
    # PyTorch's CUDA kernel (a float16 scatter-add, rounding after each add, is the host's).
    gpu = weight.device.type != "cpu"
    return _one_node("EmbeddingBackward0", _opmath(embed) if gpu else embed, weight)


def _index_frequency(input, rows):
    """How often each element's index occurs in `input`, shaped [*input.shape, 1]."""
    from .. import no_grad, ones, zeros

    with no_grad():
        flat = input.reshape(-1)
        counts = zeros(rows, device=input.device).index_add_(
            0, flat, ones(flat.shape[0], device=input.device))
        return counts[input].unsqueeze(-1)


def _embedding_renorm_(weight, input, max_norm, norm_type):
    """PyTorch's embedding_renorm_: each referenced row whose norm exceeds max_norm is scaled
    in place (outside autograd) by max_norm / (norm + 1e-7), the factor computed in double on
    the CPU and in float32 on the GPU (PyTorch's CUDA kernel accumulates float rows in float).
    A row referenced twice is scaled once: every row is read before any is written."""
    from .. import float32, float64, no_grad, where

    with no_grad():
        w = weight.detach()
        idx = input.detach().reshape(-1)
        if idx.numel() == 0:
            return
        rows = w[idx]
        acc = float64 if w.device.type == "cpu" else float32
        norms = rows.norm(norm_type, 1, True).to(acc)
        scale = where(norms > max_norm, max_norm / (norms + 1e-7), norms * 0 + 1)
        w[idx] = rows * scale.to(w.dtype)


_PAD_SIZES = ("\nSupported combinations for non-constant padding:\n"
              "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
              "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
              "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def pad(input: _Tensor, pad: Sequence[int], mode: str = "constant",
        value: float | None = None) -> _Tensor:
    """Pads `input`. `pad` lists the padding sizes from the last dimension backwards: (left,
    right) for the last dimension, then (top, bottom) for the one before, and so on.

    Args:
        input: the tensor to pad.
        pad: an even number of sizes (negative sizes crop).
        mode: 'constant' (default), 'reflect', 'replicate' or 'circular'.
        value: the fill value for 'constant' (default 0).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.pad(gradrs.tensor([[1.0, 2.0]]), (1, 2), value=9.0)
        tensor([[9., 1., 2., 9., 9.]])
        >>> F.pad(gradrs.tensor([[[1.0, 2.0, 3.0]]]), (2, 0), mode='reflect')
        tensor([[[3., 2., 1., 2., 3.]]])
    """
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if len(pad) % 2 != 0:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise RuntimeError("Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(pad)} and input of dimension "
                           f"{input.dim()}")
    if mode != "constant":
        if value is not None and value != 0:
            raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
        # PyTorch's kernels pad the last 1-3 dims of a batched (or unbatched) input only
        if not 1 <= len(pad) // 2 <= 3 or input.dim() - len(pad) // 2 not in (1, 2):
            raise NotImplementedError(f"Padding size {len(pad)} is not supported for "
                                      f"{input.dim()}D input tensor.{_PAD_SIZES}")
    if mode == "constant":
        return _one_node("ConstantPadNdBackward0", lambda x: _pad(x, pad, mode, value), input)
    if mode in ("reflect", "replicate") and 1 <= len(pad) // 2 <= 3:
        kind = "Reflection" if mode == "reflect" else "Replication"
        return _one_node(f"{kind}Pad{len(pad) // 2}DBackward0",
                         lambda x: _pad(x, pad, mode, value), input)
    return _pad(input, pad, mode, value)


def _pad(input, pad, mode, value):
    from .. import full

    out = input
    for i in range(len(pad) // 2):
        dim = input.dim() - 1 - i
        left, right = pad[2 * i], pad[2 * i + 1]
        n = out.shape[dim]
        if mode == "constant":
            if left < 0:
                out = out.narrow(dim, -left, out.shape[dim] + left)
                left = 0
            if right < 0:
                out = out.narrow(dim, 0, out.shape[dim] + right)
                right = 0
            parts = []
            if left > 0:
                shape = list(out.shape)
                shape[dim] = left
                parts.append(full(shape, 0 if value is None else value, dtype=out.dtype,
                                  device=out.device))
            parts.append(out)
            if right > 0:
                shape = list(out.shape)
                shape[dim] = right
                parts.append(full(shape, 0 if value is None else value, dtype=out.dtype,
                                  device=out.device))
            from .. import cat

            out = cat(parts, dim) if len(parts) > 1 else out
            continue
        if mode == "reflect" and (left >= n or right >= n):
            raise RuntimeError(
                "Argument #4: Padding size should be less than the corresponding input "
                f"dimension, but got: padding ({left}, {right}) at dimension {dim} of input "
                f"{list(input.shape)}"
            )
        if mode not in ("replicate", "reflect", "circular"):
            raise NotImplementedError(f"Unrecognised padding mode {mode}")
        out = out.index_select(dim, _pad_index(mode, left, right, n, input.device))
    return out


@functools.lru_cache(maxsize=256)
def _pad_index(mode, left, right, n, device):
    """The source position of each output position of a reflect / replicate / circular pad
    along one dim: a function of sizes only, kept per device so that a GPU step uploads (and
    computes) nothing for it after its first call."""
    from .. import tensor

    pos = range(-left, n + right)
    if mode == "replicate":
        idx = [min(max(i, 0), n - 1) for i in pos]
    elif mode == "reflect":
        period = 2 * (n - 1) if n > 1 else 1
        idx = [r if r < n else period - r for r in (i % period for i in pos)]
    else:
        idx = [i % n for i in pos]
    return tensor(idx, device=device)


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


_CPP_NAMES = {"float16": "c10::Half", "float32": "float", "float64": "double", "int32": "int",
              "int64": "long int", "bool": "bool", "bfloat16": "c10::BFloat16",
              "uint8": "unsigned char", "int8": "signed char", "int16": "short int"}


def _ints(v, nd):
    """An int argument as PyTorch's parser gives it: repeated to the op's `nd` dimensions."""
    return [v] * nd if isinstance(v, int) else list(v)


def _conv(input, weight, bias, stride, padding, dilation, groups, nd):
    """PyTorch's conv{nd}d front end (its bias, input-rank and padding-mode checks), then one
    native ConvolutionBackward0 over the batched input; an unbatched input is unsqueezed
    before and squeezed after it (SqueezeBackward1), as in PyTorch."""
    if any(hasattr(type(t), "_vmap_level") for t in (input, weight, bias)):
        from .. import _vmap  # under vmap: its batching rule (Note [vmap])
        return _vmap.conv(input, weight, bias, stride, padding, dilation, groups, nd)
    mode = isinstance(padding, str)
    if not mode and bias is not None and bias.dtype != input.dtype:
        names = [_CPP_NAMES[str(t.dtype).split(".")[-1]] for t in (input, bias)]
        raise RuntimeError(f"Input type ({names[0]}) and bias type ({names[1]}) should be the same")
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to conv{nd}d, but got "
            f"input of size: {list(input.shape)}"
        )
    for name, p in (("weight", weight), ("bias", bias)):
        # PyTorch's check_input_same_type_as_parameters (type strings name the device).
        if p is not None and p.device != input.device:
            raise RuntimeError(
                f"Input type ({input.type()}) and {name} type ({p.type()}) should be the same")
    unbatched = input.dim() == nd + 1
    if unbatched:
        input = input.unsqueeze(0)
    stride, dilation = _ints(stride, nd), _ints(dilation, nd)
    if mode:
        input, padding = _conv_padding_mode(input, weight, stride, padding, dilation, groups)
        if bias is not None and bias.dtype != input.dtype:
            bias = bias.to(input.dtype)
    out = _native.convolution(input, weight, bias, stride, _ints(padding, nd), dilation, groups)
    return out.squeeze(0) if unbatched else out


def _conv_padding_mode(input, weight, stride, padding, dilation, groups):
    """PyTorch's `_convolution_mode`: 'valid' is no padding; 'same' pads so the output keeps
    the input's size, padding the input itself where the two sides differ."""
    if padding == "valid":
        return input, [0]
    if padding != "same":
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    k = weight.dim()
    if k <= 2:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    dim = k - 2
    if input.dim() != k:
        raise RuntimeError(
            f"Expected {k}-dimensional input for {k}-dimensional weight{list(weight.shape)}, but "
            f"got {input.dim()}-dimensional input of size {list(input.shape)} instead")
    for name, v in (("stride", stride), ("dilation", dilation)):
        if len(v) not in (1, dim):
            raise RuntimeError(f"{name} cannot broadcast to {dim} dimensions")
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    pads, sides = [], []
    for i in range(dim):
        total = dilation[0 if len(dilation) == 1 else i] * (weight.shape[i + 2] - 1)
        pads.append(total // 2)
        sides.append((total // 2, total - total // 2))
    if any(lo != hi for lo, hi in sides):
        # The extra element goes on the right; F.pad lists the last dimension first.
        extra = []
        for lo, hi in reversed(sides):
            extra += [0, hi - lo]
        input = _pad(input, extra, "constant", None)
    return input, pads


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution (cross-correlation) over an input of shape (N, C_in, H, W) or
    (C_in, H, W).

    Args:
        input: shape (N, C_in, H, W) or (C_in, H, W).
        weight: filters, shape (C_out, C_in / groups, kH, kW).
        bias: shape (C_out), or None.
        stride: the step of the kernel (an int or one per spatial dimension; default 1).
        padding: implicit zero padding on both sides (an int, one per dimension, or 'valid' /
            'same'; default 0).
        dilation: the spacing between kernel elements (default 1).
        groups: split the input channels into this many groups, each convolved with its own
            filters (default 1).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.conv2d(gradrs.ones(1, 3, 8, 8), gradrs.ones(4, 3, 3, 3), padding=1).shape
        gradrs.Size([1, 4, 8, 8])
    """
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution (cross-correlation, as in all deep-learning libraries) over an input
    of shape (N, C_in, L) or (C_in, L).

    Args:
        input: shape (N, C_in, L) or (C_in, L).
        weight: filters, shape (C_out, C_in / groups, kW).
        bias: shape (C_out), or None.
        stride: the step of the kernel (an int or one per spatial dimension; default 1).
        padding: implicit zero padding on both sides (an int, one per dimension, or 'valid' /
            'same'; default 0).
        dilation: the spacing between kernel elements (default 1).
        groups: split the input channels into this many groups, each convolved with its own
            filters (default 1).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.conv1d(gradrs.ones(1, 1, 5), gradrs.ones(1, 1, 3))
        tensor([[[3., 3., 3.]]])
    """
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1)


def _pool_out_size(size, k, s, p, d, ceil_mode):
    span = size + 2 * p - d * (k - 1) - 1
    out = (span + (s - 1 if ceil_mode else 0)) // s + 1
    # A last window that would start in the right padding is dropped (PyTorch's rule).
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def _max_pool2d_impl(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=True):
    """Max pooling with the flat index (within each input plane) of every maximum."""
    from .. import arange, no_grad

    if input.dim() not in (3, 4) or input.numel() == 0:
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    k = _pair(kernel_size)
    s = k if stride is None or stride == [] or stride == () else _pair(stride)
    p, d = _pair(padding), _pair(dilation)
    if s[0] == 0 or s[1] == 0:
        raise RuntimeError("stride should not be zero")
    if p[0] > k[0] // 2 or p[1] > k[1] // 2:
        raise RuntimeError(
            "pad should be at most half of effective kernel size, but got "
            f"pad={p[0]}, kernel_size={k[0]} and dilation={d[0]}"
        )
    h, w = input.shape[-2], input.shape[-1]
    oh = _pool_out_size(h, k[0], s[0], p[0], d[0], ceil_mode)
    ow = _pool_out_size(w, k[1], s[1], p[1], d[1], ceil_mode)
    if oh < 1 or ow < 1:
        c = input.shape[-3]
        raise RuntimeError(
            f"Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{oh}x{ow}). "
            "Output size is too small"
        )
    # Extra -inf rows/columns at the end give ceil_mode's last, partial windows.
    eh = max(0, (oh - 1) * s[0] + d[0] * (k[0] - 1) + 1 - (h + 2 * p[0]))
    ew = max(0, (ow - 1) * s[1] + d[1] * (k[1] - 1) + 1 - (w + 2 * p[1]))
    out_shape = tuple(input.shape[:-2]) + (oh, ow)

    def windows(t):
        t = t.reshape(-1, 1, h, w)
        if eh or ew:
            t = _pad(t, (0, ew, 0, eh), "constant", float("-inf"))
        return _native.im2col(t, k, s, p, d, float("-inf"))  # [planes, kh*kw, oh*ow]

    # max picks the first maximum in window order (NaN first), as PyTorch; its backward
    # routes each gradient to that tap and im2col's sums the taps per pixel. No index
    # arithmetic in the step, so on the GPU nothing is read back. float16 is pooled as
    # float32 (exact both ways), which the GPU's windows and maxima take.
    values = _one_node("MaxPool2DWithIndicesBackward0",
                       _opmath(lambda t: windows(t).max(1)[0].reshape(*out_shape)), input,
                       linear=True)
    if not return_indices:
        return values
    with no_grad():
        at = windows(input.detach()).argmax(1)
        ki, kj = at // k[1], at % k[1]
        li = arange(oh * ow, device=input.device)
        rows = (li // ow) * s[0] - p[0] + ki * d[0]
        cols_ = (li % ow) * s[1] - p[1] + kj * d[1]
        indices = rows * w + cols_  # [planes, oh*ow]
    return values, indices.reshape(*out_shape)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """2-D max pooling over an input of shape (N, C, *spatial) or without N.

    Args:
        input: the input tensor.
        kernel_size: the window size (an int or one per spatial dimension).
        stride: the window step (default: `kernel_size`).
        padding: implicit padding on both sides of each spatial dimension (default 0).
        ceil_mode: round the output size up instead of down (default False).
        dilation: the spacing between window elements (default 1).
        return_indices: also return the flat indices of the maxima (for `max_unpool2d`).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> x = gradrs.ones(1, 1, 4, 4)
        >>> F.max_pool2d(x, 2).shape
        gradrs.Size([1, 1, 2, 2])
    """
    return _max_pool2d_impl(input, kernel_size, stride, padding, dilation, ceil_mode,
                                   return_indices)


def _single(v):
    return v[0] if isinstance(v, (tuple, list)) else v


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """1-D max pooling over an input of shape (N, C, *spatial) or without N.

    Args:
        input: the input tensor.
        kernel_size: the window size (an int or one per spatial dimension).
        stride: the window step (default: `kernel_size`).
        padding: implicit padding on both sides of each spatial dimension (default 0).
        ceil_mode: round the output size up instead of down (default False).
        dilation: the spacing between window elements (default 1).
        return_indices: also return the flat indices of the maxima (for `max_unpool1d`).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> x = gradrs.arange(4.0).reshape(1, 1, 4)
        >>> F.max_pool1d(x, 2)
        tensor([[[1., 3.]]])
    """
    # PyTorch: 2-D pooling of input.unsqueeze(-2), squeezed back (SqueezeBackward1).
    stride = _single(kernel_size) if stride is None or stride == [] or stride == () else stride
    out = _max_pool2d_impl(input.unsqueeze(-2), (1, _single(kernel_size)),
                                  (1, _single(stride)), (0, _single(padding)),
                                  (1, _single(dilation)), ceil_mode, return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """1-D average pooling over an input of shape (N, C, L) or without N.

    Args:
        input: the input tensor.
        kernel_size: the window size (an int or one per spatial dimension).
        stride: the window step (default: `kernel_size`).
        padding: implicit padding on both sides of each spatial dimension (default 0).
        ceil_mode: round the output size up instead of down (default False).
        count_include_pad: count the padding zeros in the averages (default True).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> x = gradrs.ones(1, 1, 4)
        >>> F.avg_pool1d(x, 2).shape
        gradrs.Size([1, 1, 2])
    """
    stride = _single(kernel_size) if stride is None or stride == [] or stride == () else stride
    return avg_pool2d(input.unsqueeze(-2), (1, _single(kernel_size)), (1, _single(stride)),
                      (0, _single(padding)), ceil_mode, count_include_pad).squeeze(-2)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """2-D average pooling over an input of shape (N, C, H, W) or without N.

    Args:
        input: the input tensor.
        kernel_size: the window size (an int or one per spatial dimension).
        stride: the window step (default: `kernel_size`).
        padding: implicit padding on both sides of each spatial dimension (default 0).
        ceil_mode: round the output size up instead of down (default False).
        count_include_pad: count the padding zeros in the averages (default True).
        divisor_override: divide by this instead of the window size.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> x = gradrs.ones(1, 1, 4, 4)
        >>> F.avg_pool2d(x, 2).shape
        gradrs.Size([1, 1, 2, 2])
    """
    geometry = _avg_pool2d_geometry(input, kernel_size, stride, padding, ceil_mode,
                                    divisor_override)
    return _one_node("AvgPool2DBackward0",
                     lambda x: _avg_pool2d(x, geometry, count_include_pad, divisor_override),
                     input, linear=True)


def _pool_arg(v, name, allow_empty=False):
    v = (v,) if isinstance(v, int) else tuple(v)
    if not (len(v) in (1, 2) or (allow_empty and not v)):
        what = ("either be omitted, a single int, or a tuple of two ints" if allow_empty
                else "either be a single int, or a tuple of two ints")
        raise RuntimeError(f"avg_pool2d: {name} must {what}")
    return v


def _avg_pool2d_geometry(input, kernel_size, stride, padding, ceil_mode, divisor_override):
    """PyTorch's avg_pool2d checks, in its order: ``(k, s, p, (oh, ow))``."""
    k = _pool_arg(kernel_size, "kernel_size")
    k = (k[0], k[-1])
    s = _pool_arg(() if stride is None else stride, "stride", allow_empty=True)
    s = k if not s else (s[0], s[-1])
    p = _pool_arg(padding, "padding")
    p = (p[0], p[-1])
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    c, h, w = input.size(-3), input.size(-2), input.size(-1)
    oh = _pool_output_size(h, k[0], s[0], p[0], ceil_mode)
    ow = _pool_output_size(w, k[1], s[1], p[1], ceil_mode)
    if k[0] <= 0 or k[1] <= 0:
        raise RuntimeError(
            f"kernel size should be greater than zero, but got kH: {k[0]} kW: {k[1]}")
    if s[0] <= 0 or s[1] <= 0:
        raise RuntimeError(
            f"stride should be greater than zero, but got dH: {s[0]} dW: {s[1]}")
    shape = tuple(input.shape)
    if not ((len(shape) == 3 and 0 not in shape) or (len(shape) == 4 and 0 not in shape[1:])):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
                           f"size for input, but got:{list(shape)}")
    if k[1] // 2 < p[1] or k[0] // 2 < p[0]:
        raise RuntimeError(
            "pad should be smaller than or equal to half of kernel size, but got "
            f"padW = {p[1]}, padH = {p[0]}, kW = {k[1]}, kH = {k[0]}")
    if oh < 1 or ow < 1:
        raise RuntimeError(
            f"Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{oh}x{ow}). "
            "Output size is too small")
    return k, s, p, (oh, ow)


def _pool_output_size(size, k, s, p, ceil_mode, d=1):
    """PyTorch's pooling_output_shape, with its checks."""
    if s == 0:
        raise RuntimeError("stride should not be zero")
    if p < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
    if p > ((k - 1) * d + 1) // 2:
        raise RuntimeError(
            "pad should be at most half of effective kernel size, but got "
            f"pad={p}, kernel_size={k} and dilation={d}")
    return _pool_out_size(size, k, s, p, d, ceil_mode)


def _avg_pool2d(input, geometry, count_include_pad, divisor_override):
    # PyTorch's kernel: the window starting at i0 = o*s - p is cut at the end of the right
    # padding (ceil_mode's last windows may run past it) and, for the divisor without
    # count_include_pad, at the input's edges.
    from .. import bool as bool_
    from .. import int32, tensor

    k, s, p, (oh, ow) = geometry
    unbatched = input.dim() == 3
    x = input.unsqueeze(0) if unbatched else input
    n, c, h, w = x.shape
    if x.dtype in (bool_, int32):
        name = "Bool" if x.dtype == bool_ else "Int"
        raise NotImplementedError(f"\"avg_pool2d\" not implemented for '{name}'")
    # Zero rows/columns at the end for windows that run past the right padding.
    eh = max(0, (oh - 1) * s[0] + k[0] - (h + 2 * p[0]))
    ew = max(0, (ow - 1) * s[1] + k[1] - (w + 2 * p[1]))
    if x.is_floating_point():
        if eh or ew:
            x = _pad(x, (0, ew, 0, eh), "constant", 0.0)
        cols = _native.im2col(x.reshape(n * c, 1, h + eh, w + ew), k, s, p, (1, 1), 0.0)
        total = cols.sum(1).reshape(n, c, oh, ow)
    else:  # integers: exact sums of the k[0]*k[1] strided slices
        x = _pad(x, (p[1], p[1] + ew, p[0], p[0] + eh), "constant", 0)
        total = None
        for i in range(k[0]):
            for j in range(k[1]):
                part = x[..., i:i + (oh - 1) * s[0] + 1:s[0], j:j + (ow - 1) * s[1] + 1:s[1]]
                total = part if total is None else total + part

    def divide(t, d):
        return t / d if t.is_floating_point() else t.div(d, rounding_mode="trunc")

    if divisor_override is not None:
        out = divide(total, divisor_override)
    else:
        def counts(size, k, s, p, n_out):
            res = []
            for o in range(n_out):
                i0 = o * s - p
                i1 = min(i0 + k, size + p)
                res.append(i1 - i0 if count_include_pad else min(i1, size) - max(i0, 0))
            return res

        rows, cols = counts(h, k[0], s[0], p[0], oh), counts(w, k[1], s[1], p[1], ow)
        if len(set(rows)) == 1 and len(set(cols)) == 1:
            out = divide(total, rows[0] * cols[0])
        else:
            dev = total.device
            div = (tensor(rows, dtype=total.dtype, device=dev).reshape(oh, 1)
                   * tensor(cols, dtype=total.dtype, device=dev))
            out = divide(total, div)
    return out.squeeze(0) if unbatched else out


def adaptive_avg_pool2d(input, output_size):
    """2-D average pooling to a fixed output size, whatever the input size (the windows
    are chosen to cover the input).

    Args:
        input: (N, C, *spatial) or without N.
        output_size: the output's spatial size (an int or one per dimension; None keeps that
            dimension's size).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.adaptive_avg_pool2d(gradrs.ones(1, 3, 7, 9), (2, 3)).shape
        gradrs.Size([1, 3, 2, 3])
    """
    oh, ow = _pair(output_size)
    h, w = input.shape[-2], input.shape[-1]
    oh = h if oh is None else oh
    ow = w if ow is None else ow
    if oh < 0 or ow < 0:
        raise RuntimeError("adaptive_avg_pool2d: elements of output_size must be greater than "
                           f"or equal to 0 but received {{{oh}, {ow}}}")
    if (oh, ow) == (1, 1):  # PyTorch takes the mean here (MeanBackward1)
        return input.mean((-1, -2), keepdim=True)
    return _one_node("AdaptiveAvgPool2DBackward0", lambda x: _adaptive_avg_pool2d(x, oh, ow),
                     input, linear=True)


def _empty_pool(x, out, name):
    """A pool with a zero output size: an empty result, whose backward raises as PyTorch's
    `<name>_backward` does for an empty grad_output."""
    y = x.sum(tuple(range(-len(out), 0)), keepdim=True).expand(
        *x.shape[:-len(out)], *out).contiguous()

    def refuse(g):
        shape = list(g.shape)
        at = next(i for i in range(1, len(shape)) if shape[i] == 0)
        raise RuntimeError(
            f"{name}_backward(): Expected grad_output to have non-zero size for non-batch "
            f"dimensions, but grad_output has sizes {shape} with dimension {at} being empty")
    if y.requires_grad:
        y.register_hook(refuse)
    return y


def _adaptive_avg_pool2d(input, oh, ow):
    h, w = input.shape[-2], input.shape[-1]
    if oh == 0 or ow == 0:
        return _empty_pool(input, (oh, ow), "adaptive_avg_pool2d")
    if h % oh == 0 and w % ow == 0:
        k = (h // oh, w // ow)
        return _avg_pool2d(input, (k, k, (0, 0), (oh, ow)), True, None)
    from .. import stack

    rows = []
    for i in range(oh):
        h0, h1 = (i * h) // oh, -((-(i + 1) * h) // oh)
        cols = []
        for j in range(ow):
            w0, w1 = (j * w) // ow, -((-(j + 1) * w) // ow)
            cols.append(input[..., h0:h1, w0:w1].mean((-2, -1)))
        rows.append(stack(cols, -1))
    return stack(rows, -2)


def layer_norm(input: _Tensor, normalized_shape: int | Sequence[int], weight: _Tensor | None = None,
               bias: _Tensor | None = None, eps: float = 1e-5) -> _Tensor:
    """Layer normalization: normalizes over the last `len(normalized_shape)` dimensions
    (mean 0, variance 1), then applies `weight` and `bias` elementwise.

    Args:
        input: shape (*, *normalized_shape).
        normalized_shape: the shape of the trailing dimensions to normalize over.
        weight: elementwise scale of shape `normalized_shape`, or None.
        bias: elementwise shift of shape `normalized_shape`, or None.
        eps: added to the variance (default 1e-5).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.layer_norm(gradrs.tensor([[1.0, 2.0, 3.0]]), (3,))
        tensor([[-1.2247,  0.0000,  1.2247]])
    """
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    k = len(normalized_shape)
    if tuple(input.shape[input.dim() - k:]) != tuple(normalized_shape):
        raise RuntimeError(
            f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
            f"[*, {', '.join(str(s) for s in normalized_shape)}], but got input of size"
            f"{list(input.shape)}"
        )
    dims = tuple(range(input.dim() - k, input.dim()))

    def norm(x, w, b):
        mean = x.mean(dims, keepdim=True)
        var = x.var(dims, unbiased=False, keepdim=True)
        out = (x - mean) / (var + eps).sqrt()
        if w is not None:
            out = out * w
        if b is not None:
            out = out + b
        return out

    return _one_node("NativeLayerNormBackward0", _opmath(norm), input, weight, bias)


def batch_norm(input: _Tensor, running_mean: _Tensor | None, running_var: _Tensor | None,
               weight: _Tensor | None = None, bias: _Tensor | None = None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5) -> _Tensor:
    """Batch normalization: normalizes each channel (dimension 1) with the batch's
    statistics in training, or with `running_mean` / `running_var` otherwise, then scales by
    `weight` and shifts by `bias`. In training the running statistics are updated in place.

    Args:
        input: shape (N, C, *).
        running_mean: shape (C), or None.
        running_var: shape (C), or None.
        weight: the per-channel scale, shape (C), or None.
        bias: the per-channel shift, shape (C), or None.
        training: use (and update from) the batch statistics (default False).
        momentum: the running statistics' update factor (default 0.1).
        eps: added to the variance (default 1e-5).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> x = gradrs.tensor([[1.0], [3.0]])
        >>> F.batch_norm(x, None, None, training=True)
        tensor([[-1.0000],
                [ 1.0000]])
    """
    dims = (0,) + tuple(range(2, input.dim()))
    shape = [1, input.shape[1]] + [1] * (input.dim() - 2)
    if not training:
        for name, stat in (("running_mean", running_mean), ("running_var", running_var)):
            if stat is None:
                raise RuntimeError(f"{name} must be defined in evaluation mode")
    if training:
        n = input.numel() // input.shape[1]
        if n <= 1:
            raise ValueError(
                "Expected more than 1 value per channel when training, got input size "
                f"{input.shape}"
            )
        if running_mean is not None:
            from .. import no_grad

            with no_grad():
                # float16 statistics in float32, as the normalization below (and PyTorch's
                # kernels) compute them, rounded once by the in-place updates.
                x = input.float() if input.dtype == _native.float16 else input
                mean, var = x.mean(dims), x.var(dims, unbiased=False)
                running_mean.mul_(1 - momentum).add_(mean * momentum)
                running_var.mul_(1 - momentum).add_(var * (momentum * n / (n - 1)))

    def norm(x, rm, rv, w, b):
        if training:
            mean, var = x.mean(dims), x.var(dims, unbiased=False)
        else:
            mean, var = rm, rv
        out = (x - mean.reshape(*shape)) / (var.reshape(*shape) + eps).sqrt()
        if w is not None:
            out = out * w.reshape(*shape)
        if b is not None:
            out = out + b.reshape(*shape)
        return out

    return _one_node("NativeBatchNormBackward0", _opmath(norm), input, running_mean, running_var,
                     weight, bias)


def normalize(input: _Tensor, p: float = 2.0, dim: int | Sequence[int] = 1, eps: float = 1e-12,
              out: _Tensor | None = None) -> _Tensor:
    """Divides `input` by its p-norm along `dim` (at least `eps`), so each slice has
    norm 1.

    Args:
        input: a tensor of any shape.
        p: the norm's degree (default 2).
        dim: the dimension (or dimensions) the norm runs along (default 1).
        eps: the smallest norm divided by (default 1e-12).
        out: an optional output tensor.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.normalize(gradrs.tensor([[3.0, 4.0]]))
        tensor([[0.6000, 0.8000]])
    """
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denom
    from .. import div

    return div(input, denom, out=out)  # written in place, as PyTorch (spectral norm's u, v)


# ---- layer functions: activations, dropout, conv_transpose, pooling, norms, interpolate, -------
# ---- pixel shuffle, distances and the remaining losses (used by nn.modules) -------------------

_INF = float("inf")
_SCALAR_NAMES = {"float16": "Half", "float32": "Float", "float64": "Double", "int32": "Int",
                 "int64": "Long", "bool": "Bool", "bfloat16": "BFloat16", "uint8": "Byte",
                 "int8": "Char", "int16": "Short"}


def _scalar_name(dtype):
    return _SCALAR_NAMES[str(dtype).split(".")[-1]]


def _pointwise(name, input, forward, backward):
    """``forward(input)`` as one node ``name`` whose backward is ``backward(grad, input)``:
    PyTorch's derivative formula written in differentiable ops (so create_graph works), exact
    at the kinks where a composition's autograd would pick another one-sided derivative."""
    # Half tensors compute in float32 and round once, as PyTorch's kernels do.
    forward, backward = _opmath(forward), _opmath(backward)
    if not (_native.is_grad_enabled() and input.requires_grad):
        return forward(input)
    out = forward(input.detach())
    _native._attach_node(out, [input], name, lambda g: [backward(g, input)])
    return out


def _inplace(input, fn):
    """``fn`` applied in place: ``input`` gets the values, and autograd sees the op applied to
    the input's old value (a clone keeps that value for the backward)."""
    from .. import no_grad

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


def _in_dtype(value, dtype):
    """`value` rounded to a half tensor's precision: PyTorch's half kernels compare with the
    scalar converted to the tensor's type (the declared kernel computes half in float32)."""
    import numpy as np

    return float(np.float16(value)) if dtype == _native.float16 else value


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
    from .. import finfo

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


def logsigmoid(input):
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

    def bwd(g, x):
        # PyTorch's log_sigmoid_backward, branch for branch.
        z = (-x.abs()).exp()
        in_negative = (x < 0).to(x.dtype)
        sign = in_negative * 2 - 1
        return g * (in_negative - sign * (z / (1 + z)))

    return _pointwise("LogSigmoidBackward0", input, fwd, bwd)


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

    return _one_node("GluBackward0", fn, input)


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
    from .. import where

    return _one_node("PreluKernelBackward0", lambda x, a: where(x > 0, x, a * x), input, w)


def _rrelu_noise(input, lower, upper, generator=None):
    """PyTorch's CPU rrelu_with_noise noise: 1 where input > 0, else one draw per element in
    order from the generator's 64-bit stream, u in [0, 1) with 53 random bits, scaled as
    ``u * (upper - lower) + lower`` in double precision (two roundings: PyTorch's rrelu kernel
    is not compiled with fused multiply-adds, unlike its uniform_ kernel), with the bounds
    first rounded to the input's compute type (float below float64), then cast to the input's
    dtype. The other elements draw nothing, so the stream after it stays PyTorch's."""
    import numpy as np

    from .. import empty, float64, no_grad, ones_like

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
    from .. import where

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


# -- dropout variants --


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _memory_order(t):
    """The dims of `t` outermost first in the order `empty_like(t)` lays them out: PyTorch's
    infer_dense_strides, an insertion sort by stride that keeps the contiguous order where a
    stride is 0 and puts the smaller size inside on equal strides."""
    sizes, strides = tuple(t.shape), t.stride()
    ndim = len(sizes)
    perm = list(range(ndim - 1, -1, -1))  # innermost first

    def should_swap(d0, d1):
        s0, s1 = strides[d0], strides[d1]
        if s0 == 0 or s1 == 0:
            return 0
        if s0 != s1:
            return -1 if s0 < s1 else 1
        return 1 if sizes[d0] > sizes[d1] else 0

    for i in range(1, ndim):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return perm[::-1]


def _dropout_impl(input, p, train, inplace, feature, alpha):
    """PyTorch's `_dropout_impl`: a keep-mask (one value per channel for the feature
    variants) scaled by 1/(1-p), or for alpha dropout the affine map that keeps SELU's
    mean and variance."""
    from .. import empty, no_grad, zeros

    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        z = zeros((), dtype=input.dtype, device=input.device)
        return input.mul_(z) if inplace else input * z
    if feature:
        if input.dim() < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2)
    else:
        shape = tuple(input.shape)
    with no_grad():
        # bernoulli_(1 - p) as PyTorch draws it, so a seed gives PyTorch's masks (and every
        # later draw of the stream stays in step). PyTorch's noise is empty_like(input), laid
        # out as the input is, and bernoulli_ fills it in memory order: a transposed input
        # gets its mask drawn in the order of its storage.
        perm = list(range(len(shape))) if feature else _memory_order(input)
        noise = empty([shape[d] for d in perm], dtype=input.dtype,
                      device=input.device).bernoulli_(1 - p)
        if perm != sorted(perm):
            noise = noise.permute([perm.index(d) for d in range(len(perm))])
        if alpha:
            a_ = 1.7580993408473766
            a = 1.0 / ((a_ * a_ * p + 1) * (1 - p)) ** 0.5
            b = (noise - 1) * (a_ * a) + a_ * a * p
            noise = noise * a
        else:
            noise = noise / (1 - p)
    if not alpha:
        return input.mul_(noise) if inplace else input * noise
    return input.mul_(noise).add_(b) if inplace else input * noise + b


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels: each (sample, channel) 1-D feature map of an input of shape
    (N, C, *spatial) or (C, *spatial) is zeroed with probability `p` in training, the others
    scaled by 1 / (1 - p).

    Args:
        input: (N, C, *spatial) or (C, *spatial) with 1 spatial dimension.
        p: the probability of zeroing a channel (default 0.5).
        training: apply dropout (default True).
        inplace: write the result into `input` (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> y = F.dropout1d(gradrs.ones(1, 8, 3))
        >>> y.shape
        gradrs.Size([1, 8, 3])
    """
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {inp_dim}D input. Note that "
            "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs).")
    return _feature_dropout_unbatched(input, p, training, inplace, inp_dim == 3)


def _feature_dropout_unbatched(input, p, training, inplace, is_batched):
    if is_batched:
        return _dropout_impl(input, p, training, inplace, True, False)
    if not training or p == 0 or input.numel() == 0:
        return input
    # An unbatched input is one sample: PyTorch unsqueezes it in place, drops, squeezes back.
    result = _dropout_impl(input.unsqueeze(0), p, training, False, True, False).squeeze(0)
    return input.copy_(result) if inplace else result


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels: each (sample, channel) 2-D feature map of an input of shape
    (N, C, *spatial) or (C, *spatial) is zeroed with probability `p` in training, the others
    scaled by 1 / (1 - p).

    Args:
        input: (N, C, *spatial) or (C, *spatial) with 2 spatial dimensions.
        p: the probability of zeroing a channel (default 0.5).
        training: apply dropout (default True).
        inplace: write the result into `input` (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> y = F.dropout2d(gradrs.ones(1, 8, 3, 3))
        >>> y.shape
        gradrs.Size([1, 8, 3, 3])
    """
    import warnings

    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {inp_dim}-D input to dropout2d, which is deprecated and "
            "will result in an error in a future release. To retain the behavior and silence "
            "this warning, please use dropout instead. Note that dropout2d exists to provide "
            "channel-wise dropout on inputs with 2 spatial dimensions, a channel dimension, "
            "and an optional batch dimension (i.e. 3D or 4D inputs).", stacklevel=2)
    if inp_dim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C "
            "is the channel dim. This behavior will change in a future release to interpret "
            "the input as one without a batch dimension, i.e. shape (C, H, W). To maintain "
            "the 1D channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2)
    return _dropout_impl(input, p, training, inplace, True, False)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels: each (sample, channel) 3-D feature map of an input of shape
    (N, C, *spatial) or (C, *spatial) is zeroed with probability `p` in training, the others
    scaled by 1 / (1 - p).

    Args:
        input: (N, C, *spatial) or (C, *spatial) with 3 spatial dimensions.
        p: the probability of zeroing a channel (default 0.5).
        training: apply dropout (default True).
        inplace: write the result into `input` (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> y = F.dropout3d(gradrs.ones(1, 8, 3, 3, 3))
        >>> y.shape
        gradrs.Size([1, 8, 3, 3, 3])
    """
    import warnings

    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {inp_dim}-D input to dropout3d, which is deprecated and "
            "will result in an error in a future release. To retain the behavior and silence "
            "this warning, please use dropout instead. Note that dropout3d exists to provide "
            "channel-wise dropout on inputs with 3 spatial dimensions, a channel dimension, "
            "and an optional batch dimension (i.e. 4D or 5D inputs).", stacklevel=2)
    return _feature_dropout_unbatched(input, p, training, inplace, inp_dim == 5)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout that keeps the mean and variance of SELU activations: dropped elements
    are set to SELU's negative saturation value and the result is affinely rescaled.

    Args:
        input: a tensor of any shape.
        p: the probability of dropping an element (default 0.5).
        training: apply dropout (default False).
        inplace: write the result into `input` (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> x = gradrs.randn(4)
        >>> gradrs.equal(F.alpha_dropout(x, training=False), x)
        True
    """
    _check_p(p)
    return _dropout_impl(input, p, training, inplace, False, True)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout (see `alpha_dropout`) of whole channels of an input
    of shape (N, C, *spatial).

    Args:
        input: (N, C, *spatial).
        p: the probability of dropping a channel (default 0.5).
        training: apply dropout (default False).
        inplace: write the result into `input` (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.feature_alpha_dropout(gradrs.randn(2, 4, 3), p=0.5, training=True).shape
        gradrs.Size([2, 4, 3])
    """
    _check_p(p)
    return _dropout_impl(input, p, training, inplace, True, True)


# -- transposed convolution, bilinear --


def _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation,
                    nd):
    """conv_transpose{nd}d as PyTorch's slow kernel computes it: columns W^T x per group,
    summed back into the output by col2im (fold); a 1-D one runs as 2-D of unit height."""
    name = f"conv_transpose{nd}d"
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, but got "
            f"input of size: {list(input.shape)}")
    unbatched = input.dim() == nd + 1
    if unbatched:
        input = input.unsqueeze(0)
    s, p = _ints(stride, nd), _ints(padding, nd)
    op, d = _ints(output_padding, nd), _ints(dilation, nd)
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if weight.dim() != nd + 2:
        raise RuntimeError(f"Expected {nd + 2}-dimensional weight for {name}, but got weight "
                           f"of size {list(weight.shape)}")
    if any(v < 0 for v in p):
        raise RuntimeError("negative padding is not supported")
    if weight.shape[0] % groups != 0:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension "
            f"0, but got weight of size [{list(weight.shape)}] instead")
    cin, cout_g = weight.shape[0], weight.shape[1]
    cout = cout_g * groups
    if input.shape[1] != cin:
        raise RuntimeError(
            f"Given transposed=1, weight of size {list(weight.shape)}, expected "
            f"input{list(input.shape)} to have {cin} channels, but got {input.shape[1]} "
            "channels instead")
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != cout):
        raise RuntimeError(
            f"Given transposed=1, weight of size {list(weight.shape)}, expected bias to be "
            f"1-dimensional with {cout} elements, but got bias of size {list(bias.shape)} "
            "instead")
    if nd == 1:
        k = (1, weight.shape[2])
        s, p, op, d = [1] + s, [0] + p, [0] + op, [1] + d
    else:
        k = (weight.shape[2], weight.shape[3])
    if any(op[i] >= s[i] and op[i] >= d[i] for i in range(2)):
        raise RuntimeError(
            "output padding must be smaller than either stride or dilation, but got "
            f"output_padding_height: {op[0]} output_padding_width: {op[1]} stride_height: "
            f"{s[0]} stride_width: {s[1]} dilation_height: {d[0]} dilation_width: {d[1]}")
    n = input.shape[0]
    h, w = input.shape[-2] if nd == 2 else 1, input.shape[-1]
    oh = (h - 1) * s[0] - 2 * p[0] + d[0] * (k[0] - 1) + op[0] + 1
    ow = (w - 1) * s[1] - 2 * p[1] + d[1] * (k[1] - 1) + op[1] + 1
    if oh < 1 or ow < 1:
        raise RuntimeError(
            f"Given input size per channel: ({h} x {w}). Calculated output size per channel: "
            f"({oh} x {ow}). Output size is too small")
    kk = k[0] * k[1]
    ch = (h - 1) * s[0] + d[0] * (k[0] - 1) + 1
    cw = (w - 1) * s[1] + d[1] * (k[1] - 1) + 1

    def fn(x, wt, b):
        xg = x.reshape(n, groups, cin // groups, h * w)
        wg = wt.reshape(groups, cin // groups, cout_g * kk).transpose(1, 2)
        cols = wg.matmul(xg).reshape(n, cout * kk, h * w)
        # Fold onto the unpadded canvas the h x w windows cover exactly, then cut the padding
        # off (and append output_padding's zeros where the canvas ends first).
        out = _native.col2im(cols, (ch, cw), cout, k, tuple(s), (0, 0), tuple(d))
        out = _pad(out, (-p[1], ow - cw + p[1], -p[0], oh - ch + p[0]), "constant", 0)
        if b is not None:
            out = out + b.reshape(1, cout, 1, 1)
        return out.reshape(n, cout, ow) if nd == 1 else out

    out = _one_node("ConvolutionBackward0", fn, input, weight, bias)
    return out.squeeze(0) if unbatched else out


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D convolution composed of 2-D ones: for each depth tap kd, the input's depth slices
    that tap reads, folded into the batch, convolved with weight[:, :, kd]; summed over kd."""
    mode = isinstance(padding, str)
    if not mode and bias is not None and bias.dtype != input.dtype:
        names = [_CPP_NAMES[str(t.dtype).split(".")[-1]] for t in (input, bias)]
        raise RuntimeError(f"Input type ({names[0]}) and bias type ({names[1]}) should be the same")
    if input.dim() not in (4, 5):
        raise RuntimeError("Expected 4D (unbatched) or 5D (batched) input to conv3d, but got "
                           f"input of size: {list(input.shape)}")
    unbatched = input.dim() == 4
    if unbatched:
        input = input.unsqueeze(0)
    stride, dilation = _ints(stride, 3), _ints(dilation, 3)
    if mode:
        input, padding = _conv_padding_mode(input, weight, stride, padding, dilation, groups)
    padding = _ints(padding, 3)
    if len(padding) == 1:  # 'valid' (and a one-element list) stand for every dimension
        padding = padding * 3
    for name, v in (("stride", stride), ("padding", padding), ("dilation", dilation)):
        if len(v) != 3:
            raise RuntimeError(
                f"expected {name} to be a single integer value or a list of 3 values to match "
                f"the convolution dimensions, but got {name}={v}")
    if weight.dim() != 5:
        raise RuntimeError(f"Expected 5-dimensional input for 5-dimensional weight "
                           f"{list(weight.shape)}, but got {input.dim()}-dimensional input of "
                           f"size {list(input.shape)} instead")
    n, c = input.shape[0], input.shape[1]
    cout = weight.shape[0]
    if c != weight.shape[1] * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(weight.shape)}, expected "
            f"input{list(input.shape)} to have {weight.shape[1] * groups} channels, but got {c} "
            "channels instead")
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != cout):
        raise RuntimeError(
            f"Given weight of size {list(weight.shape)}, expected bias to be 1-dimensional with "
            f"{cout} elements, but got bias of size {list(bias.shape)} instead")
    sizes = [input.shape[2 + i] + 2 * padding[i] for i in range(3)]
    kernel = [dilation[i] * (weight.shape[2 + i] - 1) + 1 for i in range(3)]
    if any(k > s_ for k, s_ in zip(kernel, sizes)):
        raise RuntimeError(
            f"Calculated padded input size per channel: ({' x '.join(map(str, sizes))}). Kernel "
            f"size: ({' x '.join(map(str, kernel))}). Kernel size can't be greater than actual "
            "input size")
    kd = weight.shape[2]
    d_out = (sizes[0] - kernel[0]) // stride[0] + 1

    def conv(x, w, b):
        if padding[0]:
            x = _pad(x, (0, 0, 0, 0, padding[0], padding[0]), "constant", 0)
        out = None
        for k in range(kd):
            start = k * dilation[0]
            xs = x[:, :, start:start + (d_out - 1) * stride[0] + 1:stride[0]]
            xs = xs.transpose(1, 2).reshape(n * d_out, c, *xs.shape[3:])
            y = _native.convolution(xs, w[:, :, k], None, stride[1:], padding[1:], dilation[1:],
                                    groups)
            out = y if out is None else out + y
        out = out.reshape(n, d_out, *out.shape[1:]).transpose(1, 2).contiguous()
        return out + b.reshape(1, cout, 1, 1, 1) if b is not None else out

    out = _one_node("ConvolutionBackward0", conv, input, weight, bias)
    return out.squeeze(0) if unbatched else out


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """1-D transposed convolution (the gradient of `conv1d` with respect to
    its input), often called deconvolution; it upsamples with `stride` > 1.

    Args:
        input: shape (N, C_in, L) or (C_in, L).
        weight: shape (C_in, C_out / groups, kW).
        bias: shape (C_out), or None.
        stride: the step of the kernel over the output (default 1).
        padding: removes `dilation * (kernel_size - 1) - padding` from both sides of the output
            (default 0).
        output_padding: extra size added to one side of the output (default 0).
        groups: the number of blocked connections from input to output channels (default 1).
        dilation: the spacing between kernel elements (default 1).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.conv_transpose1d(gradrs.ones(1, 1, 3), gradrs.ones(1, 1, 2), stride=2)
        tensor([[[1., 1., 1., 1., 1., 1.]]])
    """
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 1)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """2-D transposed convolution (the gradient of `conv2d` with respect to
    its input); it upsamples with `stride` > 1.

    Args:
        input: shape (N, C_in, H, W) or (C_in, H, W).
        weight: shape (C_in, C_out / groups, kH, kW).
        bias: shape (C_out), or None.
        stride: the step of the kernel over the output (default 1).
        padding: removes `dilation * (kernel_size - 1) - padding` from both sides of the output
            (default 0).
        output_padding: extra size added to one side of the output (default 0).
        groups: the number of blocked connections from input to output channels (default 1).
        dilation: the spacing between kernel elements (default 1).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.conv_transpose2d(gradrs.ones(1, 4, 5, 5), gradrs.ones(4, 2, 2, 2), stride=2).shape
        gradrs.Size([1, 2, 10, 10])
    """
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 2)


def bilinear(input1, input2, weight, bias=None):
    """Bilinear map y = x1^T A x2 + b for each output feature.

    Args:
        input1: shape (*, in1_features).
        input2: shape (*, in2_features), the same leading dimensions.
        weight: shape (out_features, in1_features, in2_features).
        bias: shape (out_features), or None.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.bilinear(gradrs.ones(2, 3), gradrs.ones(2, 4), gradrs.ones(5, 3, 4)).shape
        gradrs.Size([2, 5])
    """
    if input1.dim() != input2.dim():
        raise RuntimeError(
            f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}")
    for i in range(input1.dim() - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: "
                               f"got {input1.shape[i]} and {input2.shape[i]}")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got "
                           f"{input1.shape[-1]} but expected {weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got "
                           f"{input2.shape[-1]} but expected {weight.shape[2]}")
    if bias is not None and bias.shape[0] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got "
                           f"{bias.shape[0]} but expected {weight.shape[0]}")
    out_f, in1, in2 = weight.shape
    lead = tuple(input1.shape[:-1])
    # y[..., o] = sum_j (x1 @ W[o])[..., j] * x2[..., j]
    t = input1.reshape(-1, in1).matmul(weight.permute(1, 0, 2).reshape(in1, out_f * in2))
    y = (t.reshape(-1, out_f, in2) * input2.reshape(-1, 1, in2)).sum(-1)
    y = y.view(*lead, out_f)
    return y + bias if bias is not None else y


# -- adaptive pooling --


def _adaptive_ranges(size, out):
    return [((i * size) // out, -((-(i + 1) * size) // out)) for i in range(out)]


def _adaptive_max_pool2d_impl(input, output_size, return_indices=False):
    from .. import arange, long, no_grad, stack, zeros

    if input.dim() not in (3, 4):
        raise RuntimeError(
            "adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: "
            f"{list(input.shape)}")
    h, w = input.shape[-2], input.shape[-1]
    osize = _pair(output_size)
    oh = h if osize[0] is None else osize[0]
    ow = w if osize[-1] is None else osize[-1]
    out_shape = tuple(input.shape[:-2]) + (oh, ow)
    if oh < 0 or ow < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension "
                           f"{min(oh, ow)}: {list(out_shape)}")
    equal = oh > 0 and ow > 0 and h % oh == 0 and w % ow == 0

    def pool(t):
        # Each window's max (the first one, NaN first, as PyTorch): max's backward routes the
        # gradient to it with no index read back, so a GPU step stays on the GPU.
        t = t.reshape(-1, h, w)
        if oh == 0 or ow == 0:
            return t.reshape(-1, h * w)[:, :0].reshape(*out_shape)
        if equal:
            kh, kw = h // oh, w // ow
            cols = _native.im2col(t.unsqueeze(1), (kh, kw), (kh, kw), (0, 0), (1, 1), -_INF)
            return cols.max(1)[0].reshape(*out_shape)
        found = [t[:, h0:h1, w0:w1].reshape(t.shape[0], -1).max(1)[0]
                 for h0, h1 in _adaptive_ranges(h, oh) for w0, w1 in _adaptive_ranges(w, ow)]
        return stack(found, 1).reshape(*out_shape)

    values = _one_node("AdaptiveMaxPool2DBackward0", _opmath(pool), input, linear=True)
    if not return_indices:
        return values
    with no_grad():
        x = input.detach().reshape(-1, h, w)
        if oh == 0 or ow == 0:
            indices = zeros(x.shape[0], 0, dtype=long, device=input.device)
        elif h % oh == 0 and w % ow == 0:  # equal windows: one max pool
            kh, kw = h // oh, w // ow
            cols = _native.im2col(x.unsqueeze(1), (kh, kw), (kh, kw), (0, 0), (1, 1), -_INF)
            at = cols.argmax(1)
            li = arange(oh * ow, device=input.device)
            rows = (li // ow) * kh + at // kw
            indices = rows * w + (li % ow) * kw + at % kw
        else:
            found = []
            for h0, h1 in _adaptive_ranges(h, oh):
                for w0, w1 in _adaptive_ranges(w, ow):
                    at = x[:, h0:h1, w0:w1].reshape(x.shape[0], -1).argmax(1)
                    found.append((h0 + at // (w1 - w0)) * w + w0 + at % (w1 - w0))
            indices = stack(found, 1)
        indices = indices.to(long) if indices.dtype != long else indices
    return values, indices.reshape(*out_shape)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """2-D max pooling to a fixed output size, whatever the input size.

    Args:
        input: (N, C, *spatial) or without N.
        output_size: the output's spatial size (an int or one per dimension).
        return_indices: also return the indices of the maxima (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.adaptive_max_pool2d(gradrs.ones(1, 3, 7, 9), 2).shape
        gradrs.Size([1, 3, 2, 2])
    """
    return _adaptive_max_pool2d_impl(input, output_size, return_indices)


def _check_pool1d_dims(input, name):
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor for argument "
            f"#1 'self' (while checking arguments for {name})")


def _one_output_size(output_size, name):
    """A 1-d pool's output size: an int or a one-int sequence, as PyTorch checks it."""
    if isinstance(output_size, (tuple, list)) and len(output_size) != 1:
        raise RuntimeError(f"{name}() argument 'output_size' should contain one int "
                           f"(got {len(output_size)})")
    return _single(output_size)


def _adaptive_max_pool1d_impl(input, output_size, return_indices=False):
    output_size = _one_output_size(output_size, "adaptive_max_pool1d")
    _check_pool1d_dims(input, "adaptive_max_pool1d")
    if not return_indices:
        return _adaptive_max_pool2d_impl(
            input.unsqueeze(-2), (1, _single(output_size))).squeeze(-2)
    values, indices = _adaptive_max_pool2d_impl(
        input.unsqueeze(-2), (1, _single(output_size)), True)
    return values.squeeze(-2), indices.squeeze(-2)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """1-D max pooling to a fixed output size, whatever the input size.

    Args:
        input: (N, C, *spatial) or without N.
        output_size: the output's spatial size (an int or one per dimension).
        return_indices: also return the indices of the maxima (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.adaptive_max_pool1d(gradrs.ones(1, 3, 7), 2).shape
        gradrs.Size([1, 3, 2])
    """
    return _adaptive_max_pool1d_impl(input, output_size, return_indices)


def adaptive_avg_pool1d(input, output_size):
    """1-D average pooling to a fixed output length, whatever the input
    length.

    Args:
        input: shape (N, C, L) or (C, L).
        output_size: the output length.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.adaptive_avg_pool1d(gradrs.tensor([[[1.0, 2.0, 3.0, 4.0, 5.0]]]), 2)
        tensor([[[2., 4.]]])
    """
    output_size = _one_output_size(output_size, "adaptive_avg_pool1d")
    _check_pool1d_dims(input, "adaptive_avg_pool1d")
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, _single(output_size))).squeeze(-2)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """1-D max pooling that also returns the indices of the maxima (as `max_pool1d(..., return_indices=True)`) over an input of shape (N, C, *spatial) or without N.

    Args:
        input: the input tensor.
        kernel_size: the window size (an int or one per spatial dimension).
        stride: the window step (default: `kernel_size`).
        padding: implicit padding on both sides of each spatial dimension (default 0).
        ceil_mode: round the output size up instead of down (default False).
        dilation: the spacing between window elements (default 1).
        return_indices: also return the flat indices of the maxima (for `max_unpool1d`).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> x = gradrs.arange(4.0).reshape(1, 1, 4)
        >>> F.max_pool1d_with_indices(x, 2)
        (tensor([[[1., 3.]]]), tensor([[[1, 3]]]))
    """
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """2-D power-average pooling: (sum of x^p over each window)^(1/p).

    Args:
        input: the input tensor, (N, C, *spatial) or without N.
        norm_type: p (p = inf gives max pooling, p = 1 sum pooling).
        kernel_size: the window size.
        stride: the window step (default: `kernel_size`).
        ceil_mode: round the output size up instead of down (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> x = gradrs.ones(1, 1, 4, 4)
        >>> F.lp_pool2d(x, 2, 2)
        tensor([[[[2., 2.],
                  [2., 2.]]]])
    """
    kw, kh = _pair(kernel_size)
    if norm_type == _INF:
        return max_pool2d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -_INF:
        return -max_pool2d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * out.abs().relu()).mul(kw * kh).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """1-D power-average pooling: (sum of x^p over each window)^(1/p).

    Args:
        input: the input tensor, (N, C, *spatial) or without N.
        norm_type: p (p = inf gives max pooling, p = 1 sum pooling).
        kernel_size: the window size.
        stride: the window step (default: `kernel_size`).
        ceil_mode: round the output size up instead of down (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> x = gradrs.ones(1, 1, 4)
        >>> F.lp_pool1d(x, 2, 2)
        tensor([[[1.4142, 1.4142]]])
    """
    if norm_type == _INF:
        return max_pool1d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -_INF:
        return -max_pool1d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * out.abs().relu()).mul(kernel_size).pow(1.0 / norm_type)


def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    input_size = input.size()
    default_size = [(input_size[-len(kernel_size) + d] - 1) * stride[d] + kernel_size[d]
                    - 2 * padding[d] for d in range(len(kernel_size))]
    if output_size is None:
        ret = default_size
    else:
        if len(output_size) == len(kernel_size) + 2:
            output_size = output_size[2:]
        if len(output_size) != len(kernel_size):
            raise ValueError(f"output_size should be a sequence containing {len(kernel_size)} "
                             f"or {len(kernel_size) + 2} elements, but it has a length of "
                             f"'{len(output_size)}'")
        for d in range(len(kernel_size)):
            min_size = default_size[d] - stride[d]
            max_size = default_size[d] + stride[d]
            if not min_size < output_size[d] < max_size:
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between '
                                 f"{min_size} and {max_size})")
        ret = output_size
    for d in range(len(kernel_size)):
        if ret[d] < 0:
            raise ValueError("max_unpooling: output_size must contain non-negative spatial "
                             f"dimensions, but got output_size[{d}]={ret[d]}")
    return ret


def _max_unpool2d(input, indices, output_size):
    """PyTorch's max_unpool2d kernel: each value scattered to its flat index in a zero plane."""
    from .. import long, zeros

    if indices.dtype != long:
        raise RuntimeError("elements in indices should be type int64 but got: "
                           f"{_scalar_name(indices.dtype)}")
    if len(output_size) != 2:
        raise RuntimeError("There should be exactly two elements (height, width) in "
                           f"output_size, but got {len(output_size)} elements.")
    if input.dim() not in (3, 4):
        raise RuntimeError("Input to max_unpooling2d should be a 3d or 4d Tensor, but got a "
                           f"tensor with {input.dim()} dimensions.")
    if tuple(input.shape) != tuple(indices.shape):
        raise RuntimeError(
            "Expected shape of indices to be same as that of the input tensor "
            f"({list(input.shape)}) but got indices tensor with shape: {list(indices.shape)}")
    oh, ow = output_size
    planes = input.numel() // max(input.shape[-1] * input.shape[-2], 1)
    flat = indices.reshape(planes, -1)
    if flat.numel() and bool(((flat < 0) | (flat >= oh * ow)).any()):
        bad = int(flat.masked_select((flat < 0) | (flat >= oh * ow))[0].item())
        raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size "
                           f"{oh}x{ow})")
    out_shape = tuple(input.shape[:-2]) + (oh, ow)

    def unpool(x):
        base = zeros(planes, oh * ow, dtype=x.dtype, device=x.device)
        return base.scatter(1, flat, x.reshape(planes, -1)).reshape(*out_shape)

    return _one_node("MaxUnpool2DBackward0", unpool, input)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Partial inverse of `max_pool2d`: puts each value at the position its index names
    and zeros elsewhere.

    Args:
        input: the pooled values.
        indices: the indices `max_pool2d(..., return_indices=True)` returned.
        kernel_size: the pooling's window size.
        stride: the pooling's stride (default: `kernel_size`).
        padding: the pooling's padding (default 0).
        output_size: the exact output size, when several are possible.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> x = gradrs.randn(1, 1, 4, 4)
        >>> y, i = F.max_pool2d(x, 2, return_indices=True)
        >>> F.max_unpool2d(y, i, 2).shape
        gradrs.Size([1, 1, 4, 4])
    """
    kernel_size = _pair(kernel_size)
    stride = _pair(stride) if stride is not None else kernel_size
    padding = _pair(padding)
    output_size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    return _max_unpool2d(input, indices, list(output_size))


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Partial inverse of `max_pool1d`: puts each value at the position its index names
    and zeros elsewhere.

    Args:
        input: the pooled values.
        indices: the indices `max_pool1d(..., return_indices=True)` returned.
        kernel_size: the pooling's window size.
        stride: the pooling's stride (default: `kernel_size`).
        padding: the pooling's padding (default 0).
        output_size: the exact output size, when several are possible.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> x = gradrs.tensor([[[1.0, 3.0, 2.0, 0.0]]])
        >>> y, i = F.max_pool1d(x, 2, return_indices=True)
        >>> F.max_unpool1d(y, i, 2)
        tensor([[[0., 3., 2., 0.]]])
    """
    kernel_size = (_single(kernel_size),)
    stride = (_single(stride),) if stride is not None else kernel_size
    padding = (_single(padding),)
    output_size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    return _max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1),
                         list(output_size) + [1]).squeeze(-1)


def channel_shuffle(input, groups):
    """Rearranges the channels of (N, C, *) as a (groups, C / groups) grid
    read column by column, mixing the groups of a grouped convolution (ShuffleNet).

    Args:
        input: shape (N, C, *), C divisible by `groups`.
        groups: the number of groups.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.channel_shuffle(gradrs.arange(4.0).reshape(1, 4, 1), 2).flatten()
        tensor([0., 2., 1., 3.])
    """
    if groups <= 0:
        raise RuntimeError("Number of groups to divide channels in must be positive. Value of "
                           f"groups:{groups}")
    if input.dim() <= 2:
        raise RuntimeError("channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {list(input.shape)}")
    c = input.shape[1]
    if c % groups != 0:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels "
                           f"and {groups} groups.")
    n, rest = input.shape[0], tuple(input.shape[2:])

    def shuffle(x):
        return x.reshape(n, groups, c // groups, *rest).transpose(1, 2).reshape(n, c, *rest)

    return _one_node("ChannelShuffleBackward0", shuffle, input)


native_channel_shuffle = channel_shuffle


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


# -- normalization --


def _verify_batch_size(size):
    prod = size[0]
    for s in size[2:]:
        prod *= s
    if prod == 1:
        raise ValueError("Expected more than 1 value per channel when training, got input size "
                         f"{size}")


def _verify_spatial_size(size):
    prod = 1
    for s in size[2:]:
        prod *= s
    if prod == 1:
        raise ValueError("Expected more than 1 spatial element when training, got input size "
                         f"{size}")


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Group normalization: splits the channels into `num_groups` groups and
    normalizes each group of each sample, then applies the per-channel `weight` and `bias`.

    Args:
        input: shape (N, C, *).
        num_groups: the number of groups; divides C.
        weight: the per-channel scale, shape (C), or None.
        bias: the per-channel shift, shape (C), or None.
        eps: added to the variance (default 1e-5).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.group_norm(gradrs.tensor([[[1.0], [3.0], [0.0], [2.0]]]), 2)
        tensor([[[-1.0000],
                 [ 1.0000],
                 [-1.0000],
                 [ 1.0000]]])
    """
    if input.dim() < 2:
        raise RuntimeError("Expected at least 2 dimensions for input tensor but received "
                           f"{input.dim()}")
    n, c = input.shape[0], input.shape[1]
    _verify_batch_size([n * c // num_groups, num_groups] + list(input.shape[2:]))
    if c % num_groups != 0:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got input "
            f"of shape {list(input.shape)} and num_groups={num_groups}")
    for what, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != c):
            raise RuntimeError(
                f"Expected {what} to be a vector of size equal to the number of channels in "
                f"input, but got {what} of shape {list(t.shape)} and input of shape "
                f"{list(input.shape)}")
    shape = [1, c] + [1] * (input.dim() - 2)

    def norm(x, w, b):
        g = x.reshape(n, num_groups, -1)
        mean = g.mean(-1, keepdim=True)
        var = g.var(-1, unbiased=False, keepdim=True)
        out = ((g - mean) / (var + eps).sqrt()).reshape(*x.shape)
        if w is not None:
            out = out * w.reshape(*shape)
        if b is not None:
            out = out + b.reshape(*shape)
        return out

    return _one_node("NativeGroupNormBackward0", _opmath(norm), input, weight, bias)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Instance normalization: normalizes each channel of each sample over its
    spatial dimensions.

    Args:
        input: shape (N, C, *spatial).
        running_mean: optional running means, shape (C).
        running_var: optional running variances, shape (C).
        weight: the per-channel scale, shape (C), or None.
        bias: the per-channel shift, shape (C), or None.
        use_input_stats: normalize with the input's statistics (default True).
        momentum: the running statistics' update factor (default 0.1).
        eps: added to the variance (default 1e-5).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.instance_norm(gradrs.tensor([[[1.0, 3.0]]]))
        tensor([[[-1.0000,  1.0000]]])
    """
    from .. import no_grad

    if use_input_stats:
        _verify_spatial_size(input.size())
    elif running_mean is None or running_var is None:
        raise RuntimeError("Expected running_mean and running_var to be defined when "
                           "use_input_stats is false")
    # PyTorch's instance_norm: batch norm of the [1, N*C, *] view with the per-channel
    # tensors repeated N times; the running stats become the mean of the N updated copies.
    n, c = input.shape[0], input.shape[1]
    x = input.contiguous().view(1, n * c, *input.shape[2:])
    rm = running_mean.repeat(n) if running_mean is not None else None
    rv = running_var.repeat(n) if running_var is not None else None
    w = weight.repeat(n) if weight is not None else None
    b = bias.repeat(n) if bias is not None else None
    out = batch_norm(x, rm, rv, w, b, use_input_stats, momentum, eps)
    if use_input_stats:
        with no_grad():
            if running_mean is not None:
                running_mean.copy_(rm.view(n, c).mean(0))
            if running_var is not None:
                running_var.copy_(rv.view(n, c).mean(0))
    return out.view(*input.shape)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """Root-mean-square normalization: x / sqrt(mean(x^2) + eps) over the last
    `len(normalized_shape)` dimensions, times `weight`.

    Args:
        input: shape (*, *normalized_shape).
        normalized_shape: the shape of the trailing dimensions to normalize over.
        weight: elementwise scale of shape `normalized_shape`, or None.
        eps: added to the mean square (default: the dtype's machine epsilon).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.rms_norm(gradrs.tensor([[3.0, 4.0]]), (2,))
        tensor([[0.8485, 1.1314]])
    """
    from .. import finfo

    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    k = len(normalized_shape)
    if tuple(input.shape[input.dim() - k:]) != tuple(normalized_shape):
        raise RuntimeError(
            f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
            f"[*{', '.join(str(s) for s in normalized_shape)}], but got input of size"
            f"{list(input.shape)}")
    dims = tuple(range(input.dim() - k, input.dim()))
    x = input.float() if input.dtype == _native.float16 else input
    e = finfo(input.dtype).eps if eps is None else eps
    out = x * ((x * x).mean(dims, keepdim=True) + e).rsqrt()
    out = out.type_as(input) if out.dtype != input.dtype else out
    return out * weight if weight is not None else out


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Local response normalization: divides each element by
    (k + alpha / size * sum of squares over `size` neighbouring channels)^beta.

    Args:
        input: shape (N, C, *).
        size: the number of neighbouring channels.
        alpha: the multiplicative factor (default 1e-4).
        beta: the exponent (default 0.75).
        k: the additive factor (default 1).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.local_response_norm(gradrs.ones(1, 4, 2), size=2).shape
        gradrs.Size([1, 4, 2])
    """
    d = input.dim()
    if d < 3:
        raise ValueError("Expected 3D or higher dimensionality                          input "
                         f"(got {d} dimensions)")
    if input.numel() == 0:
        return input
    div = input.mul(input)
    sizes = tuple(input.shape)
    # The average over `size` neighbouring channels: PyTorch's avg_pool3d with a (size, 1, 1)
    # kernel for inputs past 3-D is this avg_pool2d with a (size, 1) one.
    div = div.reshape(sizes[0], 1, sizes[1], -1)
    div = pad(div, (0, 0, size // 2, (size - 1) // 2))
    div = avg_pool2d(div, (size, 1), stride=1).squeeze(1).reshape(*sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


# -- interpolate --


def _is_integer(x):
    import numbers

    return isinstance(x, numbers.Integral) and not isinstance(x, bool) or (
        isinstance(x, _native.Tensor) and not x.is_floating_point() and x.dim() == 0)


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resizes `input` (N, C, *spatial) to `size` or by `scale_factor`.

    Args:
        input: shape (N, C, L), (N, C, H, W) or (N, C, D, H, W).
        size: the output's spatial size.
        scale_factor: the multiplier of each spatial size (give this or `size`).
        mode: 'nearest' (default), 'nearest-exact', 'linear', 'bilinear', 'bicubic',
            'trilinear' or 'area'.
        align_corners: for the linear modes: align the corner pixels' centres (default False).
        recompute_scale_factor: compute the scale used from the output size.
        antialias: low-pass filter when downsampling (bilinear and bicubic).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.interpolate(gradrs.tensor([[[1.0, 2.0]]]), scale_factor=2)
        tensor([[[1., 1., 2., 2.]]])
        >>> F.interpolate(gradrs.tensor([[[1.0, 2.0]]]), size=4, mode='linear', align_corners=True)
        tensor([[[1.0000, 1.3333, 1.6667, 2.0000]]])
    """
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    elif size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {list(input.shape[2:])} and output size "
                    f"of {size}. Please provide input tensor in (N, C, d1, d2, ...,dK) format "
                    "and output size in (o1, o2, ...,oK) format.")
            if not all(_is_integer(x) for x in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, "
                                "int] or Tuple[int, int, int], but got size with types "
                                f"{[type(x) for x in size]}")
            output_size = [int(x) for x in size]
        else:
            output_size = [size for _ in range(dim)]
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but "
                    f"got input with spatial dimensions of {list(input.shape[2:])} and "
                    f"scale_factor of shape {scale_factor}. Please provide input tensor in (N, "
                    "C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format.")
            scale_factors = list(scale_factor)
        else:
            scale_factors = [scale_factor for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor is not None and recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor is not None and recompute_scale_factor:
        output_size = [int(input.size(i + 2) * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                         "modes and requires a 4-D tensor as input")
    if mode == "lanczos" and input.dim() == 4:
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
        raise NotImplementedError("interpolate: mode='lanczos' is not supported by gradrs")
    if antialias:
        return _upsample_aa(input, output_size, scale_factors, mode, align_corners)
    if 3 <= input.dim() <= 5 and mode in ("nearest", "nearest-exact"):
        return _upsample(input, output_size, scale_factors, mode, None)
    if 3 <= input.dim() <= 4 and mode == "area":
        pool = adaptive_avg_pool1d if input.dim() == 3 else adaptive_avg_pool2d
        return pool(input, output_size)
    linear_modes = {3: "linear", 4: "bilinear", 5: "trilinear"}
    if linear_modes.get(input.dim()) == mode or (input.dim() == 4 and mode == "bicubic"):
        return _upsample(input, output_size, scale_factors, mode, align_corners)
    for d, m in ((3, "bilinear"), (3, "trilinear"), (4, "linear"), (4, "trilinear"),
                 (5, "linear"), (5, "bilinear")):
        if input.dim() == d and mode == m:
            need = {"linear": 3, "bilinear": 4, "trilinear": 5}[m]
            raise NotImplementedError(f"Got {d}D input, but {m} mode needs {need}D input")
    if input.dim() == 5 and mode == "area":
        raise NotImplementedError("interpolate: mode='area' on 5-D input (adaptive_avg_pool3d) "
                                  "is not supported by gradrs")
    raise NotImplementedError(
        f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the "
        "modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
        f"nearest-exact (got {mode})")


_UPSAMPLE_NODES = {"nearest": "UpsampleNearest{}DBackward0",
                   "nearest-exact": "UpsampleNearestExact{}DBackward0",
                   "linear": "UpsampleLinear1DBackward0",
                   "bilinear": "UpsampleBilinear2DBackward0",
                   "trilinear": "UpsampleTrilinear3DBackward0",
                   "bicubic": "UpsampleBicubic2DBackward0"}


def _axis_taps(mode, in_size, out_size, scale, align_corners, dtype, shortcuts):
    """Per output position along one axis: the input positions read and their weights, as
    PyTorch's CPU upsample kernels compute them (float32 index math for float32 data)."""
    import numpy as np

    ft = np.float64 if dtype == _native.float64 else np.float32
    o = np.arange(out_size)
    if mode in ("nearest", "nearest-exact"):
        # PyTorch's nearest_idx shortcuts, taken whatever the scale (see _upsample).
        if mode == "nearest" and shortcuts and out_size == in_size:
            return [(o, None)]
        if mode == "nearest" and shortcuts and out_size == 2 * in_size:
            return [(o >> 1, None)]
        s = np.float32(1.0 / scale) if scale is not None and scale > 0 else (
            np.float32(in_size) / np.float32(out_size))
        if mode == "nearest":
            src = np.floor(o.astype(np.float32) * s)
        else:
            src = np.floor((o.astype(np.float32) + np.float32(0.5)) * s)
        return [(np.minimum(src.astype(np.int64), in_size - 1), None)]
    if mode != "bicubic" and in_size == out_size:  # the linear kernels copy such an axis
        return [(o, None)]
    if align_corners:
        s = ft(in_size - 1) / ft(out_size - 1) if out_size > 1 else ft(0)
    else:
        s = ft(1.0 / scale) if scale is not None and scale > 0 else ft(in_size) / ft(out_size)
    if align_corners:
        real = s * o.astype(ft)
    else:
        real = s * (o.astype(ft) + ft(0.5)) - ft(0.5)
    if mode == "bicubic":
        i0 = np.floor(real).astype(np.int64)
        t = (real - i0.astype(ft)).astype(ft)
        a = ft(-0.75)

        def near(x):  # |x| <= 1
            return ((a + 2) * x - (a + 3)) * x * x + 1

        def far(x):  # 1 < |x| < 2
            return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

        ws = [far(t + 1), near(t), near(1 - t), far(2 - t)]
        return [(np.clip(i0 - 1 + j, 0, in_size - 1), ws[j].astype(ft)) for j in range(4)]
    real = np.where(real < 0, ft(0), real).astype(ft)
    i0 = np.minimum(np.floor(real).astype(np.int64), in_size - 1)
    lam = np.minimum(np.maximum(real - i0.astype(ft), ft(0)), ft(1)).astype(ft)
    i1 = i0 + (i0 < in_size - 1)
    return [(i0, (ft(1) - lam).astype(ft)), (i1, lam)]


@functools.lru_cache(maxsize=256)
def _axis_plan(mode, in_size, out_size, scale, align_corners, dtype, device, shortcuts):
    """`_axis_taps` as tensors on `device`, kept so a layer called again on inputs of the same
    size uploads nothing."""
    from .. import tensor

    taps = _axis_taps(mode, in_size, out_size, scale, align_corners, dtype, shortcuts)
    return [(tensor(idx, device=device),
             None if wt is None else tensor(wt, dtype=dtype, device=device)) for idx, wt in taps]


def _upsample(input, output_size, scale_factors, mode, align_corners):
    nd = input.dim() - 2
    in_sizes = list(input.shape[2:])
    if output_size is None:
        output_size = [int(in_sizes[i] * scale_factors[i]) for i in range(nd)]
    if any(s <= 0 for s in in_sizes) or any(s <= 0 for s in output_size):
        names = "DHW"[3 - nd:]
        ins = ", ".join(f"{names[i]}: {in_sizes[i]}" for i in range(nd))
        outs = ", ".join(f"{names[i]}: {output_size[i]}" for i in range(nd))
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                           f"({ins}){' and' if nd == 1 else ''} output ({outs})")

    def make_plans(shortcuts):
        return [_axis_plan(mode, in_sizes[i], output_size[i],
                           scale_factors[i] if scale_factors is not None else None,
                           align_corners, input.dtype, input.device, shortcuts)
                for i in range(nd)]

    def resample(plans):
        def fn(x):
            # One axis at a time, the last first: PyTorch's kernels nest the width sum inside
            # the height sum, so the rounding order matches.
            for i in reversed(range(nd)):
                axis = 2 + i
                shape = [1] * x.dim()
                shape[axis] = -1
                acc = None
                for idx, wt in plans[i]:
                    part = x.index_select(axis, idx)
                    if wt is not None:
                        part = part * wt.reshape(*shape)
                    acc = part if acc is None else acc + part
                x = acc
            return x

        return fn

    name = _UPSAMPLE_NODES[mode].format(nd)
    # Where PyTorch's backward kernel maps positions differently from its forward, the
    # gradient follows the backward's map: the nearest kernels take an axis of equal or
    # doubled size by the shortcut (i or i >> 1) in 2-D, but in 1-D and 3-D only in the
    # backward (the forward reads floor(i * scale)); bicubic's backward copies the gradient
    # when no size changes, while its forward still resamples by the given scale.
    quirk = scale_factors is not None and (
        (mode == "nearest" and nd != 2
         and any(o in (n, 2 * n) for n, o in zip(in_sizes, output_size)))
        or (mode == "bicubic" and in_sizes == list(output_size)))
    if quirk and mode == "bicubic":
        out = _one_node(name, lambda x: x.clone(), input, linear=True)
    else:
        out = _one_node(name, resample(make_plans(nd == 2 or quirk)), input, linear=True)
    if quirk:
        from .. import no_grad

        with no_grad():
            exact = resample(make_plans(False))(input.detach())
            if out.requires_grad:
                out.copy_(exact)
            else:
                out = exact
    return out


def _axis_taps_aa(mode, in_size, out_size, scale, align_corners, dtype):
    """Per output position along one axis: PyTorch's antialiased taps (the separable
    _compute_indices_weights_aa: a bilinear or Keys a = -0.5 bicubic filter widened by the
    downscaling factor, normalized to sum 1) as [(input positions, weights, in range)], one
    entry per tap up to the widest window; computed in the data's float type, as the kernel."""
    import numpy as np

    ft = np.float64 if dtype == _native.float64 else np.float32
    if align_corners:
        s = ft(in_size - 1) / ft(out_size - 1) if out_size > 1 else ft(0)
    else:
        s = ft(1.0 / scale) if scale is not None and scale > 0 else ft(in_size) / ft(out_size)
    interp = 2 if mode == "bilinear" else 4
    support = ft(interp * 0.5) * s if s >= 1.0 else ft(interp * 0.5)
    invscale = ft(1.0) / s if s >= 1.0 else ft(1.0)
    a = ft(-0.5)

    def filt(x):
        x = np.abs(x).astype(ft)
        if mode == "bilinear":
            return np.where(x < 1.0, ft(1.0) - x, ft(0.0)).astype(ft)
        near = ((a + 2) * x - (a + 3)) * x * x + 1
        far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
        return np.where(x < 1.0, near, np.where(x < 2.0, far, ft(0.0))).astype(ft)

    width = int(np.ceil(support)) * 2 + 1
    idx = np.zeros((out_size, width), np.int64)
    wts = np.zeros((out_size, width), ft)
    used = np.zeros((out_size, width), bool)
    for i in range(out_size):
        center = s * ft(i + 0.5)
        xmin = max(int(np.float64(center - support) + 0.5), 0)
        xsize = min(int(np.float64(center + support) + 0.5), in_size) - xmin
        # (j + xmin - center + 0.5) is a double in the kernel; the filter takes it as float
        w = filt(np.array([ft((np.float64(j + xmin - center) + 0.5) * np.float64(invscale))
                           for j in range(xsize)], ft))
        total = ft(0)
        for v in w:
            total = ft(total + v)
        if total != 0:
            w = (w / total).astype(ft)
        idx[i, :xsize] = np.arange(xmin, xmin + xsize)
        idx[i, xsize:] = xmin
        wts[i, :xsize] = w
        used[i, :xsize] = True
    return [(idx[:, j], wts[:, j], used[:, j]) for j in range(width)]


_UPSAMPLE_AA_NODES = {"bilinear": "UpsampleBilinear2DAaBackward0",
                      "bicubic": "UpsampleBicubic2DAaBackward0"}


def _upsample_aa(input, output_size, scale_factors, mode, align_corners):
    """interpolate(..., antialias=True): one separable pass per resized axis, the width first,
    each output the weighted sum of its window in order (an axis whose size does not change is
    kept as it is)."""
    from .. import tensor, where

    in_sizes = list(input.shape[2:])
    if output_size is None:
        output_size = [int(in_sizes[i] * scale_factors[i]) for i in range(2)]
    if any(s <= 0 for s in in_sizes) or any(s <= 0 for s in output_size):
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input (H: "
                           f"{in_sizes[0]}, W: {in_sizes[1]}) output (H: {output_size[0]}, W: "
                           f"{output_size[1]})")
    plans = []
    for i in range(2):
        taps = _axis_taps_aa(mode, in_sizes[i], output_size[i],
                             scale_factors[i] if scale_factors is not None else None,
                             align_corners, input.dtype)
        plans.append([(tensor(idx, device=input.device),
                       tensor(wt, dtype=input.dtype, device=input.device),
                       None if used.all() else tensor(used, device=input.device))
                      for idx, wt, used in taps])

    def fn(x):
        for i in (1, 0):
            if in_sizes[i] == output_size[i]:
                continue
            axis = 2 + i
            shape = [1] * x.dim()
            shape[axis] = -1
            acc = None
            for idx, wt, used in plans[i]:
                part = x.index_select(axis, idx) * wt.reshape(*shape)
                if acc is None:
                    acc = part
                elif used is None:
                    acc = acc + part
                else:  # past this output's window: not added, as the kernel stops there
                    acc = where(used.reshape(*shape), acc + part, acc)
            x = acc
        return x if in_sizes != list(output_size) else x.clone()

    return _one_node(_UPSAMPLE_AA_NODES[mode], fn, input, linear=True)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated spelling of `interpolate` (same arguments), kept for old programs.

    Args:
        input: shape (N, C, *spatial).
        size: the output's spatial size.
        scale_factor: the multiplier of each spatial size.
        mode: the interpolation mode (default 'nearest').
        align_corners: for the linear modes: align the corner pixels' centres.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.upsample(gradrs.tensor([[[1.0, 2.0]]]), scale_factor=2)
        tensor([[[1., 1., 2., 2.]]])
    """
    import warnings

    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: `interpolate(input, size, scale_factor, mode='nearest')`.

    Args:
        input: shape (N, C, *spatial).
        size: the output's spatial size.
        scale_factor: the multiplier of each spatial size.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.upsample_nearest(gradrs.tensor([[[1.0, 2.0]]]), scale_factor=2)
        tensor([[[1., 1., 2., 2.]]])
    """
    import warnings

    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: `interpolate(input, size, scale_factor, mode='bilinear',
    align_corners=True)`.

    Args:
        input: shape (N, C, H, W).
        size: the output's spatial size.
        scale_factor: the multiplier of each spatial size.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.upsample_bilinear(gradrs.ones(1, 1, 2, 2), scale_factor=2).shape
        gradrs.Size([1, 1, 4, 4])
    """
    import warnings

    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# -- affine_grid / grid_sample --

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners="
                  "False since 1.3.0. Please specify align_corners=True if the old behavior is "
                  "desired. See the documentation of grid_sample for details.")


def _linspace_from_neg_one(n, align_corners, like):
    from .. import linspace, zeros

    if n <= 1:
        return zeros(1, dtype=like.dtype, device=like.device)
    r = linspace(-1, 1, n, dtype=like.dtype, device=like.device)
    return r if align_corners else r * (n - 1) / n


def affine_grid(theta, size, align_corners=None):
    """Sampling grid for `grid_sample` from a batch of affine matrices: the
    normalized coordinates ([-1, 1]) of each output pixel mapped by `theta`.

    Args:
        theta: shape (N, 2, 3) for 2-D or (N, 3, 4) for 3-D.
        size: the output size (N, C, H, W) or (N, C, D, H, W).
        align_corners: -1 and 1 are the corner pixels' centres (True) or edges (False, default).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> theta = gradrs.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
        >>> F.affine_grid(theta, (1, 1, 2, 2), align_corners=False)
        tensor([[[[-0.5000, -0.5000],
                  [ 0.5000, -0.5000]],
        <BLANKLINE>
                 [[-0.5000,  0.5000],
                  [ 0.5000,  0.5000]]]])
    """
    import warnings

    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError("Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                             f"{size}. Got {theta.shape}.")
        spatial_size = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError("Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                             f"{size}. Got {theta.shape}.")
        spatial_size = size[-3:]
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    if align_corners and min(spatial_size) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids "
                      "when align_corners=True. This is not an intended use case of "
                      "affine_grid. See the documentation of affine_grid for details.",
                      stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    from .. import ones, stack

    n = size[0]
    # PyTorch's affine_grid_generator: the base grid (x, y[, z], 1) of the output positions,
    # times theta^T.
    axes = [_linspace_from_neg_one(m, align_corners, theta) for m in spatial_size]
    dims = len(spatial_size)
    coords = []
    for k in reversed(range(dims)):  # x varies along the last dim, then y, then z
        shape = [1] * dims
        shape[k] = -1
        coords.append(axes[k].reshape(*shape).expand(*spatial_size))
    coords.append(ones(tuple(spatial_size), dtype=theta.dtype, device=theta.device))
    base = stack(coords, -1).reshape(1, -1, dims + 1)

    def generate(t):
        return base.expand(n, -1, -1).matmul(t.transpose(1, 2)).reshape(n, *spatial_size, dims)

    return _one_node("AffineGridGeneratorBackward0", generate, theta)


def _grid_unnormalize(coord, size, align_corners):
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _reflect_coordinates(x, twice_low, twice_high):
    from .. import where

    if twice_low == twice_high:
        return x * 0
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    d = (x - low).abs()
    extra = d.fmod(span)
    even = (d / span).floor().remainder(2) == 0
    return where(even, extra + low, span - extra + low)


def _grid_source_index(coord, size, padding_mode, align_corners):
    """PyTorch's grid_sampler_compute_source_index: pixel coordinates, with border or
    reflection padding folded in."""
    x = _grid_unnormalize(coord, size, align_corners)
    if padding_mode == "border":
        x = x.clamp(0, size - 1)
    elif padding_mode == "reflection":
        if align_corners:
            x = _reflect_coordinates(x, 0, 2 * (size - 1))
        else:
            x = _reflect_coordinates(x, -1, 2 * size - 1)
        x = x.clamp(0, size - 1)
    return x


def _cubic_coefficients(t):
    """The four weights of the cubic convolution (A = -0.75) at fraction t, PyTorch's order."""
    a = -0.75

    def near(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Samples `input` at the normalized coordinates of `grid` ([-1, 1] spans the
    input), interpolating between pixels.

    Args:
        input: shape (N, C, H, W) or (N, C, D, H, W).
        grid: shape (N, H_out, W_out, 2) or (N, D_out, H_out, W_out, 3), (x, y[, z]) order.
        mode: 'bilinear' (default), 'nearest' or 'bicubic'.
        padding_mode: values outside the input: 'zeros' (default), 'border' or 'reflection'.
        align_corners: -1 and 1 are the corner pixels' centres (True) or edges (False, default).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> img = gradrs.arange(4.0).reshape(1, 1, 2, 2)
        >>> F.grid_sample(img, gradrs.zeros(1, 1, 1, 2), align_corners=False)
        tensor([[[[1.5000]]]])
    """
    import warnings

    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if input.dim() == 5:
        raise NotImplementedError("grid_sample: 5-D inputs (volumetric sampling) are not "
                                  "supported by gradrs")
    if input.dim() != 4 or grid.dim() != 4:
        raise RuntimeError(
            "grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, "
            f"but got input with sizes {list(input.shape)} and grid with sizes "
            f"{list(grid.shape)}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(
            "grid_sampler(): expected grid and input to have same batch size, but got input "
            f"with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if grid.shape[-1] != 2:
        raise RuntimeError(
            "grid_sampler(): expected grid to have size 2 in last dimension, but got grid with "
            f"sizes {list(grid.shape)}")
    n, c, h, w = input.shape
    oh, ow = grid.shape[1], grid.shape[2]

    def bounded(v, size):
        # PyTorch's compute_coordinates: the padding applied to a tap's own position
        if padding_mode == "border":
            return v.clamp(0, size - 1)
        if padding_mode == "reflection":
            twice = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
            return _reflect_coordinates(v, *twice).clamp(0, size - 1)
        return v

    def sample(x, g):
        flat = x.reshape(n, c, h * w)
        if mode == "bicubic":
            ix = _grid_unnormalize(g[..., 0], w, align_corners)
            iy = _grid_unnormalize(g[..., 1], h, align_corners)
        else:
            ix = _grid_source_index(g[..., 0], w, padding_mode, align_corners)
            iy = _grid_source_index(g[..., 1], h, padding_mode, align_corners)

        def read(xi, yi):
            # values at integer positions (xi, yi), zero outside the image
            inside = (xi >= 0) & (xi <= w - 1) & (yi >= 0) & (yi <= h - 1)
            idx = (yi.clamp(0, h - 1) * w + xi.clamp(0, w - 1)).long().reshape(n, 1, -1)
            vals = flat.gather(2, idx.expand(n, c, oh * ow)).reshape(n, c, oh, ow)
            return vals.masked_fill(~inside.unsqueeze(1), 0.0)

        if mode == "bicubic":
            x0, y0 = ix.detach().floor(), iy.detach().floor()
            cx = _cubic_coefficients((ix - x0).unsqueeze(1))
            cy = _cubic_coefficients((iy - y0).unsqueeze(1))
            out = None
            for i in range(4):
                yi = bounded(y0 - 1 + i, h).trunc()
                row = None
                for j in range(4):
                    v = read(bounded(x0 - 1 + j, w).trunc(), yi) * cx[j]
                    row = v if row is None else row + v
                out = row * cy[i] if out is None else out + row * cy[i]
            return out
        if mode == "nearest":
            # nearbyint: halves round to even, as round() does. The grid's gradient is zero
            # (present, as PyTorch's), hence the term that is 0 for finite coordinates.
            zero = ((ix - ix.detach()) + (iy - iy.detach())).unsqueeze(1) * 0
            return read(ix.detach().round(), iy.detach().round()) + zero
        x0, y0 = ix.detach().floor(), iy.detach().floor()
        x1, y1 = x0 + 1, y0 + 1
        nw = ((x1 - ix) * (y1 - iy)).unsqueeze(1)
        ne = ((ix - x0) * (y1 - iy)).unsqueeze(1)
        sw = ((x1 - ix) * (iy - y0)).unsqueeze(1)
        se = ((ix - x0) * (iy - y0)).unsqueeze(1)
        out = read(x0, y0) * nw + read(x1, y0) * ne
        out = out + read(x0, y1) * sw
        return out + read(x1, y1) * se

    return _one_node("GridSampler2DBackward0", sample, input, grid)


# -- pixel shuffle --


def pixel_shuffle(input, upscale_factor):
    """Moves channels into space: (*, C r^2, H, W) becomes (*, C, H r, W r), for
    sub-pixel convolution upsampling.

    Args:
        input: shape (*, C * r^2, H, W).
        upscale_factor: r.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.pixel_shuffle(gradrs.ones(1, 8, 3, 3), 2).shape
        gradrs.Size([1, 2, 6, 6])
    """
    r = upscale_factor
    if input.dim() < 3:
        raise RuntimeError("pixel_shuffle expects input to have at least 3 dimensions, but got "
                           f"input with {input.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    c, h, w = input.shape[-3:]
    if c % (r * r) != 0:
        raise RuntimeError(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
            f"square of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    lead = tuple(input.shape[:-3])
    nl = len(lead)

    def fn(x):
        y = x.reshape(*lead, c // (r * r), r, r, h, w)
        y = y.permute(*range(nl), nl, nl + 3, nl + 1, nl + 4, nl + 2)
        return y.reshape(*lead, c // (r * r), h * r, w * r)

    return _one_node("PixelShuffleBackward0", fn, input)


def pixel_unshuffle(input, downscale_factor):
    """Inverse of `pixel_shuffle`: (*, C, H r, W r) becomes (*, C r^2, H, W).

    Args:
        input: shape (*, C, H * r, W * r).
        downscale_factor: r.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.pixel_unshuffle(gradrs.ones(1, 2, 6, 6), 2).shape
        gradrs.Size([1, 8, 3, 3])
    """
    r = downscale_factor
    if input.dim() < 3:
        raise RuntimeError("pixel_unshuffle expects input to have at least 3 dimensions, but "
                           f"got input with {input.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    c, h, w = input.shape[-3:]
    if h % r != 0:
        raise RuntimeError("pixel_unshuffle expects height to be divisible by downscale_factor, "
                           f"but input.size(-2)={h} is not divisible by {r}")
    if w % r != 0:
        raise RuntimeError("pixel_unshuffle expects width to be divisible by downscale_factor, "
                           f"but input.size(-1)={w} is not divisible by {r}")
    lead = tuple(input.shape[:-3])
    nl = len(lead)

    def fn(x):
        y = x.reshape(*lead, c, h // r, r, w // r, r)
        y = y.permute(*range(nl), nl, nl + 2, nl + 4, nl + 1, nl + 3)
        return y.reshape(*lead, c * r * r, h // r, w // r)

    return _one_node("PixelUnshuffleBackward0", fn, input)


# -- embedding_bag --


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                  scale_grad_by_freq=False, mode="mean", sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """Sums, averages or takes the maximum of bags of embedding rows, without
    materializing the looked-up rows.

    Args:
        input: indices: a 2-D tensor (one bag per row) or 1-D with `offsets`.
        weight: the embedding matrix, shape (num_embeddings, embedding_dim).
        offsets: the start of each bag in a 1-D `input`.
        max_norm: rows looked up with a larger norm are renormalized in place to this norm.
        norm_type: the p of the norm for `max_norm` (default 2).
        scale_grad_by_freq: scale gradients by the inverse frequency of the indices.
        mode: 'sum', 'mean' (default) or 'max'.
        sparse: accepted for PyTorch's signature; gradients are dense.
        per_sample_weights: weights of each index (mode 'sum' only).
        include_last_offset: `offsets` has one more entry, the end of the last bag.
        padding_idx: an index that is left out of the bags.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> w = gradrs.arange(6.0).reshape(3, 2)
        >>> F.embedding_bag(gradrs.tensor([0, 1, 2]), w, gradrs.tensor([0, 2]), mode='sum')
        tensor([[2., 4.],
                [4., 5.]])
    """
    import warnings

    if weight.dtype == _native.int64 and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage "
                      "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
                      "`embedding_bag(input, weight, ...)`.", stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is "
                         f"not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if not weight.dim() == 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found offsets "
                             f"of type {type(offsets)}")
        bags, length = input.shape
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
        starts = [b * length for b in range(bags)]
        kind = input.type()
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        starts = [int(v) for v in offsets.detach().cpu().tolist()]
        kind = offsets.type()
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    elif mode not in ("sum", "mean"):
        raise ValueError("mode has to be one of sum, mean or max")
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            "GitHub.")
    return _embedding_bag(input, weight, starts, kind, scale_grad_by_freq, mode,
                          per_sample_weights, include_last_offset, padding_idx)


def _embedding_bag(input, weight, starts, kind, scale_grad_by_freq, mode, per_sample_weights,
                   include_last_offset, padding_idx):
    """PyTorch's embedding_bag kernel: the bags [offsets[b], offsets[b + 1]) of the 1-D
    `input` gathered into a padded [bags, longest, dim] block (padding_idx and the padding
    masked out) and reduced; an empty bag gives zeros."""
    import numpy as np

    from .. import tensor

    num = weight.shape[0]
    if padding_idx is not None:
        if not -num <= padding_idx < num:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, -{num} "
                               f"through {num - 1}, but got {padding_idx}")
        padding_idx %= num
    idx = input.detach().cpu().numpy().reshape(-1).astype(np.int64)
    if len(starts) and starts[0] != 0:
        # (PyTorch prints the 0-dim tensor offsets[0], its type on a second line)
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch "
                           f"has to start from position 0. However, got {starts[0]}\n"
                           f"[ {kind}{{}} ]")
    if len(starts) and starts[-1] > len(idx):
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {len(idx)} but "
                           f"got offsets[-1] of {starts[-1]}")
    bounds = np.array(list(starts) + ([] if include_last_offset else [len(idx)]), np.int64)
    lengths = np.maximum(bounds[1:] - bounds[:-1], 0)
    longest = max(int(lengths.max()) if len(lengths) else 0, 1)
    pos = bounds[:-1, None] + np.arange(longest)[None, :]
    valid = np.arange(longest)[None, :] < lengths[:, None]
    pos = np.where(valid, pos, 0) if len(idx) else np.zeros_like(pos)
    rows_at = idx[pos] if len(idx) else pos
    if padding_idx is not None:
        valid &= rows_at != padding_idx
    dev = weight.device
    rows_t = tensor(rows_at, device=dev)
    pos_t = tensor(pos, device=dev)
    keep = tensor(valid[..., None], device=dev)
    count = tensor(valid.sum(1, keepdims=True), dtype=weight.dtype, device=dev)
    freq = None
    if scale_grad_by_freq:
        counts = np.bincount(idx, minlength=num)
        freq = tensor(counts[rows_at][..., None], dtype=weight.dtype, device=dev)

    def bag(w, psw):
        rows = w[rows_t]
        if freq is not None:
            rows = rows.detach() + (rows - rows.detach()) / freq
        if mode == "max":
            out = rows.masked_fill(~keep, -_INF).max(1)[0]
            return out.masked_fill(count == 0, 0.0)
        if psw is not None:
            rows = rows * psw.reshape(-1)[pos_t].unsqueeze(-1)
        out = rows.masked_fill(~keep, 0.0).sum(1)
        return out / count.clamp(min=1) if mode == "mean" else out

    return _one_node("EmbeddingBagBackward0", bag, weight, per_sample_weights)


# -- unfold / fold (im2col / col2im) --


def _pair_arg(v, name):
    v = (v, v) if isinstance(v, int) else tuple(v)
    if len(v) != 2:
        raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(v)}")
    return v


def _window_checks(k, d, p, s, order):
    checks = {
        "kernel": (k, "kernel size should be greater than zero, but got kernel_height: "
                      f"{k[0]} kernel_width: {k[1]}", 1),
        "dilation": (d, "dilation should be greater than zero, but got dilation_height: "
                        f"{d[0]} dilation_width: {d[1]}", 1),
        "padding": (p, f"padding should be non-negative, but got pad_height: {p[0]} "
                       f"pad_width: {p[1]}", 0),
        "stride": (s, "stride should be greater than zero, but got stride_height: "
                      f"{s[0]} stride_width: {s[1]}", 1),
    }
    for name in order:
        v, msg, low = checks[name]
        if v[0] < low or v[1] < low:
            raise RuntimeError(msg)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Extracts sliding local blocks (im2col): an input (N, C, H, W) becomes
    (N, C * prod(kernel_size), L), one column per block position.

    Args:
        input: shape (N, C, H, W) or (C, H, W).
        kernel_size: the block size.
        dilation: the spacing between block elements (default 1).
        padding: implicit zero padding on both sides (default 0).
        stride: the step between blocks (default 1).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.unfold(gradrs.ones(1, 2, 4, 4), kernel_size=2).shape
        gradrs.Size([1, 8, 9])
    """
    k, d = _pair_arg(kernel_size, "kernel_size"), _pair_arg(dilation, "dilation")
    p, s = _pair_arg(padding, "padding"), _pair_arg(stride, "stride")
    _window_checks(k, d, p, s, ("kernel", "dilation", "padding", "stride"))
    shape = tuple(input.shape)
    if input.dim() < 3:  # PyTorch reads sizes 1 and 2 before checking the rank
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-input.dim()}, {input.dim() - 1}], but got {input.dim()})")
    if not ((len(shape) == 3 and 0 not in shape) or (len(shape) == 4 and 0 not in shape[1:])):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and "
                           f"other non-zero dimensions for input, but got: {list(shape)}")
    h, w = shape[-2], shape[-1]
    oh = (h + 2 * p[0] - (d[0] * (k[0] - 1) + 1)) // s[0] + 1
    ow = (w + 2 * p[1] - (d[1] * (k[1] - 1) + 1)) // s[1] + 1
    if oh < 1 or ow < 1:
        raise RuntimeError(
            f"Given input with spatial size ({h}, {w}), kernel_size=({k[0]}, {k[1]}), "
            f"dilation=({d[0]}, {d[1]}), padding=({p[0]}, {p[1]}), calculated shape of the array "
            f"of sliding blocks as ({oh}, {ow}), but its components must be at least one.")
    if input.dim() == 4:
        return _native.im2col(input, k, s, p, d, 0.0)
    return _one_node("Im2ColBackward0",
                     lambda x: _native.im2col(x.unsqueeze(0), k, s, p, d, 0.0).squeeze(0), input)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Combines sliding local blocks into a tensor (col2im), summing overlapping values: the
    inverse of `unfold`'s layout.

    Args:
        input: shape (N, C * prod(kernel_size), L) or without N.
        output_size: the spatial size (H, W) of the output.
        kernel_size: the block size.
        dilation: the spacing between block elements (default 1).
        padding: implicit zero padding on both sides (default 0).
        stride: the step between blocks (default 1).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> cols = F.unfold(gradrs.ones(1, 1, 3, 3), kernel_size=2)
        >>> F.fold(cols, (3, 3), kernel_size=2)
        tensor([[[[1., 2., 1.],
                  [2., 4., 2.],
                  [1., 2., 1.]]]])
    """
    o, k = _pair_arg(output_size, "output_size"), _pair_arg(kernel_size, "kernel_size")
    d, p = _pair_arg(dilation, "dilation"), _pair_arg(padding, "padding")
    s = _pair_arg(stride, "stride")
    _window_checks(k, d, p, s, ("kernel", "stride", "dilation", "padding"))
    shape = tuple(input.shape)
    if not ((len(shape) == 2 and 0 not in shape) or (len(shape) == 3 and 0 not in shape[1:])):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                           "batch size and non-zero dimensions for input, but got: "
                           f"{list(shape)}")
    planes, length = shape[-2], shape[-1]
    if planes % (k[0] * k[1]) != 0:
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of "
            f"kernel_size, but got input.size(1)={planes} and kernel_size=({k[0]}, {k[1]}).")
    bh = (o[0] + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    bw = (o[1] + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    where = (f"Given output_size=({o[0]}, {o[1]}), kernel_size=({k[0]}, {k[1]}), "
             f"dilation=({d[0]}, {d[1]}), padding=({p[0]}, {p[1]}), stride=({s[0]}, {s[1]}), ")
    if length != bh * bw:
        raise RuntimeError(
            f"{where}expected size of input's dimension 2 to match the calculated number of "
            f"sliding blocks {bh} * {bw} = {bh * bw}, but got input.size(2)={length}.")
    if bh < 1 or bw < 1:
        raise RuntimeError(f"{where}calculated shape of the array of sliding blocks as "
                           f"({bh}, {bw}), which is too small (non-positive)")
    c = planes // (k[0] * k[1])
    if input.dim() == 3:
        return _native.col2im(input, o, c, k, s, p, d)
    return _one_node("Col2ImBackward0",
                     lambda x: _native.col2im(x.unsqueeze(0), o, c, k, s, p, d).squeeze(0), input)


# -- distances --


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """p-norm distance ||x1 - x2 + eps||_p between the rows (last dimension)
    of x1 and x2.

    Args:
        x1: shape (N, D) or (D).
        x2: broadcastable with `x1`.
        p: the norm's degree (default 2).
        eps: added to the difference to avoid a zero norm's gradient (default 1e-6).
        keepdim: keep the reduced dimension (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.pairwise_distance(gradrs.tensor([[0.0, 0.0]]), gradrs.tensor([[3.0, 4.0]]))
        tensor([5.0000])
    """
    # PyTorch: norm(x1 - x2 + eps) over the last dim of the broadcast result.
    d = max(x1.dim(), x2.dim()) - 1
    return (x1 - x2 + eps).norm(p, d, keepdim)


def pdist(input, p=2):
    """p-norm distances between every pair of rows of a 2-D input: the upper triangle of the
    distance matrix, flattened, of length N (N - 1) / 2.

    Args:
        input: shape (N, M).
        p: the norm's degree (default 2).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.pdist(gradrs.tensor([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]]))
        tensor([ 5., 10.,  5.])
    """
    import numpy as np

    from .. import tensor

    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input.is_floating_point():
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.shape[0]
    if n <= 1:
        return input.new_zeros(0)
    rows, cols = np.triu_indices(n, 1)
    i, j = tensor(rows, device=input.device), tensor(cols, device=input.device)

    def dist(x):
        # the p-norm of each pair of rows i < j; a zero distance has a zero gradient
        d = x.index_select(0, i) - x.index_select(0, j)
        if p == 0:  # the count of differing entries: its gradient is zero, not absent
            return (d != 0).sum(1).to(d.dtype) + d.sum(1) * 0
        return d.norm(p, 1)

    return _one_node("PdistBackward0", dist, input)


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

    from .. import empty_like, no_grad, zeros_like

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


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """Cosine of the angle between x1 and x2 along `dim`:
    x1 . x2 / max(||x1|| ||x2||, eps).

    Args:
        x1: a tensor.
        x2: a tensor broadcastable with `x1`.
        dim: the dimension of the vectors (default 1).
        eps: the smallest denominator (default 1e-8).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.cosine_similarity(gradrs.tensor([[1.0, 0.0]]), gradrs.tensor([[1.0, 1.0]]))
        tensor([0.7071])
    """
    import numpy as np

    from .. import no_grad

    if not (x1.is_floating_point() or x2.is_floating_point()):
        raise RuntimeError("expected common dtype to be floating point, yet common dtype is "
                           f"{(x1 + x2).dtype}")
    shape = np.broadcast_shapes(tuple(x1.shape), tuple(x2.shape))
    a, b = x1.expand(*shape), x2.expand(*shape)
    # Each side divided by its norm first (PyTorch's order); the eps clamp is outside autograd.
    na = a.norm(2, dim, True).clone()
    nb = b.norm(2, dim, True).clone()
    with no_grad():
        na.clamp_min_(eps)
        nb.clamp_min_(eps)
    return ((a / na) * (b / nb)).sum(dim)


# -- more losses --


def _legacy_reduction(size_average, reduce, reduction):
    """PyTorch's `_Reduction.legacy_get_string` when a deprecated argument is given."""
    if size_average is None and reduce is None:
        return reduction
    import warnings

    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "mean" if size_average and reduce else "sum" if reduce else "none"
    warnings.warn("size_average and reduce args will be deprecated, please use "
                  f"reduction='{ret}' instead.", stacklevel=3)
    return ret


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Two-class logistic loss log(1 + exp(-target * input)), averaged.

    Args:
        input: scores, any shape.
        target: 1 or -1 per element.
        size_average: deprecated; use `reduction`.
        reduce: deprecated; use `reduction`.
        reduction: 'none' | 'mean' | 'sum': how the per-element losses are combined (default 'mean').

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.soft_margin_loss(gradrs.tensor([2.0, -1.0]), gradrs.tensor([1.0, -1.0]))
        tensor(0.2201)
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _reduction_code(reduction)
    return _one_node("SoftMarginLossBackward0",
                     lambda x, t: _reduce((-x * t).exp().log1p(), reduction), input, target)


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction="mean"):
    """Ranking loss max(0, -target * (input1 - input2) + margin): `target`
    1 says input1 should rank higher, -1 that input2 should.

    Args:
        input1: scores.
        input2: scores of the same shape.
        target: 1 or -1 per element.
        margin: the margin (default 0).
        size_average: deprecated; use `reduction`.
        reduce: deprecated; use `reduction`.
        reduction: 'none' | 'mean' | 'sum': how the per-element losses are combined (default 'mean').

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.margin_ranking_loss(gradrs.tensor([1.0, 0.0]), gradrs.tensor([0.5, 0.5]), gradrs.tensor([1.0, 1.0]))
        tensor(0.2500)
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _reduction_code(reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} ")
    return _reduce((-target * (input1 - input2) + margin).clamp_min(0), reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """Hinge embedding loss: x where the target is 1, max(0, margin - x)
    where it is -1.

    Args:
        input: distances, any shape.
        target: 1 or -1 per element.
        margin: the margin (default 1.0).
        size_average: deprecated; use `reduction`.
        reduce: deprecated; use `reduction`.
        reduction: 'none' | 'mean' | 'sum': how the per-element losses are combined (default 'mean').

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.hinge_embedding_loss(gradrs.tensor([0.3, 0.4]), gradrs.tensor([1.0, -1.0]))
        tensor(0.4500)
    """
    from .. import where, zeros_like

    reduction = _legacy_reduction(size_average, reduce, reduction)
    _reduction_code(reduction)
    zeros = zeros_like(input)
    margin_clamp = (margin - input).clamp_min(0)
    out = where(target != 1, margin_clamp, zeros) + where(target != -1, input, zeros)
    return _reduce(out, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction="mean"):
    """1 - cos(x1, x2) where the target is 1, max(0, cos(x1, x2) - margin)
    where it is -1.

    Args:
        input1: embeddings, shape (N, D) or (D).
        input2: embeddings of the same shape.
        target: 1 or -1, shape (N) or ().
        margin: the margin for dissimilar pairs (default 0).
        size_average: deprecated; use `reduction`.
        reduce: deprecated; use `reduction`.
        reduction: 'none' | 'mean' | 'sum': how the per-element losses are combined (default 'mean').

    Examples:
        >>> import gradrs.nn.functional as F
        >>> a = gradrs.tensor([[1.0, 0.0], [1.0, 1.0]])
        >>> F.cosine_embedding_loss(a, gradrs.tensor([[1.0, 0.0], [1.0, -1.0]]), gradrs.tensor([1.0, -1.0]))
        tensor(0.)
    """
    from .. import where, zeros_like

    reduction = _legacy_reduction(size_average, reduce, reduction)
    _reduction_code(reduction)
    td = target.dim()
    if td not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if td == 1 and not (input1.dim() == 2 and input2.dim() == 2):
        raise RuntimeError("1D target tensor expects 2D input tensors, but found inputs with "
                           f"sizes {list(input1.shape)} and {list(input2.shape)}.")
    if td == 0 and not (input1.dim() == 1 and input2.dim() == 1):
        raise RuntimeError("0D target tensor expects 1D input tensors, but found inputs with "
                           f"sizes {list(input1.shape)} and {list(input2.shape)}.")
    prod_sum = (input1 * input2).sum(td)
    mag1 = (input1 * input1).sum(td) + 1e-12
    mag2 = (input2 * input2).sum(td) + 1e-12
    cos = prod_sum / (mag1 * mag2).sqrt()
    zeros = zeros_like(cos)
    out = where(target == 1, 1 - cos, zeros) + where(target == -1, (cos - margin).clamp_min(0),
                                                     zeros)
    return _reduce(out, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """Triplet loss max(d(a, p) - d(a, n) + margin, 0) with the p-norm
    distance d: anchors should be closer to the positives than to the negatives.

    Args:
        anchor: embeddings, shape (N, D) or (D).
        positive: embeddings of the same shape.
        negative: embeddings of the same shape.
        margin: the margin (default 1.0).
        p: the norm's degree (default 2).
        eps: added to the differences for stability (default 1e-6).
        swap: use the smaller of d(a, n) and d(p, n) (default False).
        size_average: deprecated; use `reduction`.
        reduce: deprecated; use `reduction`.
        reduction: 'none' | 'mean' | 'sum': how the per-element losses are combined (default 'mean').

    Examples:
        >>> import gradrs.nn.functional as F
        >>> a, p, n = gradrs.zeros(1, 2), gradrs.tensor([[1.0, 0.0]]), gradrs.tensor([[3.0, 0.0]])
        >>> F.triplet_margin_loss(a, p, n)
        tensor(0.)
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _reduction_code(reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a, pd, nd = anchor.dim(), positive.dim(), negative.dim()
    if not (a == pd and pd == nd):
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of "
            f"dimensions, but got: anchor {a}D, positive {pd}D, and negative {nd}D inputs")
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = dist_neg.minimum(pairwise_distance(positive, negative, p, eps))
    return _reduce((margin + dist_pos - dist_neg).clamp_min(0), reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """Triplet loss with a distance function of your choice:
    max(d(a, p) - d(a, n) + margin, 0).

    Args:
        anchor: embeddings.
        positive: embeddings of the same shape.
        negative: embeddings of the same shape.
        distance_function: a callable (x, y) -> distances; pairwise_distance by default.
        margin: the margin (default 1.0).
        swap: use the smaller of d(a, n) and d(p, n) (default False).
        reduction: 'none' | 'mean' | 'sum': how the per-element losses are combined (default 'mean').

    Examples:
        >>> import gradrs.nn.functional as F
        >>> a, p, n = gradrs.zeros(1, 2), gradrs.tensor([[1.0, 0.0]]), gradrs.tensor([[3.0, 0.0]])
        >>> F.triplet_margin_with_distance_loss(a, p, n, distance_function=lambda x, y: (x - y).abs().sum(-1))
        tensor(0.)
    """
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a, pd, nd = anchor.dim(), positive.dim(), negative.dim()
    if not (a == pd and pd == nd):
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of "
            f"dimensions, but got: anchor {a}D, positive {pd}D, and negative {nd}D inputs")
    if distance_function is None:
        distance_function = pairwise_distance
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:
        dist_neg = dist_neg.minimum(distance_function(positive, negative))
    return _reduce((margin + dist_pos - dist_neg).clamp_min(0), reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """Negative log-likelihood of a Poisson distribution with mean `input`
    (exp(input) when `log_input=True`) for the counts `target`.

    Args:
        input: the expected counts, or their logs with `log_input=True`.
        target: the observed counts.
        log_input: `input` is the log of the mean (default True).
        full: add the Stirling approximation term of log(target!) (default False).
        eps: added to `input` before the log when `log_input=False`.
        size_average: deprecated; use `reduction`.
        reduce: deprecated; use `reduction`.
        reduction: 'none' | 'mean' | 'sum': how the per-element losses are combined (default 'mean').

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.poisson_nll_loss(gradrs.tensor([0.0, 1.0]), gradrs.tensor([1.0, 2.0]))
        tensor(0.8591)
    """
    import math

    reduction = _legacy_reduction(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Negative log-likelihood of a Gaussian with mean `input` and variance
    `var` for `target`: 0.5 (log(max(var, eps)) + (input - target)^2 / max(var, eps)).

    Args:
        input: the predicted means.
        target: the observations.
        var: the predicted variances (positive), the shape of `input` or broadcastable to it.
        full: add the constant 0.5 log(2 pi) (default False).
        eps: the variances are clamped to at least this (default 1e-6).
        reduction: 'none' | 'mean' | 'sum': how the per-element losses are combined (default 'mean').

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.gaussian_nll_loss(gradrs.tensor([0.0, 1.0]), gradrs.tensor([0.5, 1.0]), gradrs.ones(2))
        tensor(0.0625)
    """
    import math

    from .. import no_grad, ones_like

    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * ones_like(input)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif input.dim() == var.dim() and sum(
                y for x, y in zip(input.shape, var.shape) if x != y) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def _margin_shape_check(input):
    d = input.dim()
    if not ((d == 2 and input.shape[1] != 0) or (d == 1 and input.shape[0] != 0) or d == 0):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, "
                           f"but got: {list(input.shape)}")
    return (1 if d <= 1 else input.shape[0]), (1 if d == 0 else input.shape[-1])


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """Multi-class hinge loss: for each sample, the mean over the other
    classes j of max(0, margin - x[y] + x[j])^p.

    Args:
        input: scores, shape (N, C) or (C).
        target: class indices, shape (N) or ().
        p: 1 or 2 (default 1).
        margin: the margin (default 1).
        weight: a weight per class, shape (C).
        size_average: deprecated; use `reduction`.
        reduce: deprecated; use `reduction`.
        reduction: 'none' | 'mean' | 'sum': how the per-element losses are combined (default 'mean').

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.multi_margin_loss(gradrs.tensor([[0.1, 0.2, 0.4, 0.8]]), gradrs.tensor([3]))
        tensor(0.3250)
    """
    from .. import where

    reduction = _legacy_reduction(size_average, reduce, reduction)
    _reduction_code(reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    nframe, dim = _margin_shape_check(input)
    if not (target.dim() <= 1 and target.numel() == nframe):
        raise RuntimeError(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of "
            f"input samples (batch size). Expected target size [{nframe}], but got "
            f"{list(target.shape)}. Input has shape {list(input.shape)}.")
    if weight is not None and not (weight.dim() <= 1 and weight.numel() == dim):
        raise RuntimeError(f"inconsistent weight size, expected {dim} but got "
                           f"{list(weight.shape)}")
    t = target.reshape(nframe, 1)
    if bool(((t < 0) | (t >= dim)).any()):
        raise RuntimeError("target out of range")

    def loss(x, w):
        x = x.reshape(nframe, dim)
        z = margin - x.gather(1, t) + x
        h = where(z > 0, z, z * 0)  # the kernel's strict `z > 0`
        if p == 2:
            h = h * h
        if w is not None:
            h = h * w[t]
        others = t != _class_range(dim, x.device)
        out = h.masked_fill(~others, 0).sum(1) / dim
        if reduction == "none":
            return out.reshape(()) if input.dim() <= 1 else out
        return _reduce(out, reduction)

    return _one_node("MultiMarginLossBackward0", loss, input, weight)


def _class_range(n, device):
    from .. import arange

    return arange(n, device=device).reshape(1, n)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Multi-label hinge loss: each sample's target lists its classes
    (padded with -1); each non-target class should score at least 1 below each target class.

    Args:
        input: scores, shape (N, C) or (C).
        target: class indices, the shape of `input`, the list ended by the first -1.
        size_average: deprecated; use `reduction`.
        reduce: deprecated; use `reduction`.
        reduction: 'none' | 'mean' | 'sum': how the per-element losses are combined (default 'mean').

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.multilabel_margin_loss(gradrs.tensor([[0.1, 0.2, 0.4, 0.8]]), gradrs.tensor([[3, 0, -1, 1]]))
        tensor(0.8500)
    """
    import numpy as np

    from .. import tensor, where

    reduction = _legacy_reduction(size_average, reduce, reduction)
    _reduction_code(reduction)
    nframe, dim = _margin_shape_check(input)
    if input.dim() <= 1:
        ok = target.dim() <= 1 and target.numel() == dim
    else:
        ok = target.dim() == 2 and tuple(target.shape) == (nframe, dim)
    if not ok:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    t = target.detach().cpu().numpy().reshape(nframe, dim)
    if ((t < -1) | (t >= dim)).any():
        raise RuntimeError("argument #2 'target' is out of range")
    # Each row's targets are its entries before the first -1 (counted with repeats); the
    # other classes are the ones it is compared with.
    live = np.cumprod(t != -1, axis=1).astype(bool)
    counts = np.zeros((nframe, dim))
    for n in range(nframe):
        np.add.at(counts[n], t[n][live[n]], 1)
    dev = input.device
    cnt = tensor(counts, dtype=input.dtype, device=dev).unsqueeze(2)
    other = tensor(counts == 0, device=dev).unsqueeze(1)

    def loss(x):
        x = x.reshape(nframe, dim)
        z = 1 - x.unsqueeze(2) + x.unsqueeze(1)  # [n, target j, other i]
        h = where(z > 0, z, z * 0) * cnt
        out = h.masked_fill(~other, 0).sum((1, 2)) / dim
        if reduction == "none":
            return out.reshape(()) if input.dim() <= 1 else out
        return _reduce(out, reduction)

    return _one_node("MultilabelMarginLossBackward0", loss, input)


def _safe_logsumexp(xs):
    """log(sum(exp(x))) over the stacked `xs`, -inf where every term is -inf, with a zero (not
    NaN) gradient there: the CTC recursion meets such all-impossible states everywhere."""
    from .. import stack, where

    x = stack(xs, 0)
    m = x.max(0)[0].detach()
    finite = m > -_INF
    m = m.masked_fill(~finite, 0.0)
    total = (x - m).exp().sum(0)
    safe = where(finite, total, total * 0 + 1)
    return where(finite, safe.log() + m, total * 0 - _INF)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """Connectionist temporal classification loss: the negative log-likelihood of each
    target sequence summed over all its alignments to the input sequence.

    Args:
        log_probs: log-probabilities, shape (T, N, C) or (T, C) (time, batch, classes).
        targets: target class indices, shape (N, S) or concatenated (sum(target_lengths)).
        input_lengths: the length of each input sequence, shape (N).
        target_lengths: the length of each target sequence, shape (N).
        blank: the blank class (default 0).
        reduction: 'none' | 'mean' | 'sum': how the per-element losses are combined (default 'mean').
        zero_infinity: replace infinite losses (impossible alignments) and their gradients by 0.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> log_probs = gradrs.randn(6, 1, 4).log_softmax(2)
        >>> loss = F.ctc_loss(log_probs, gradrs.tensor([[1, 2]]), gradrs.tensor([6]), gradrs.tensor([2]))
        >>> loss.shape
        gradrs.Size([])
    """
    import numpy as np

    from .. import float64, tensor, where

    code = _reduction_code(reduction)
    unbatched = log_probs.dim() == 2
    lp = log_probs.unsqueeze(1) if unbatched else log_probs
    if unbatched:
        targets = targets.unsqueeze(0)
    t_len, n, c = lp.shape

    def lengths(v):
        if isinstance(v, _native.Tensor):
            return [int(x) for x in v.detach().cpu().reshape(-1).tolist()]
        return [int(x) for x in v]

    il, tl = lengths(input_lengths), lengths(target_lengths)
    if not 0 <= blank < c:
        raise RuntimeError("blank must be in label range")
    if len(il) != n:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(tl) != n:
        raise RuntimeError("target_lengths must be of size batch_size")
    tgt = targets.detach().cpu().numpy().astype(np.int64)
    max_tl = max(tl) if tl else 0
    where_ = "(while checking arguments for ctc_loss_allocate_outputs)"
    if tgt.ndim == 1:  # concatenated targets
        starts = np.concatenate([[0], np.cumsum(tl)[:-1]]).astype(np.int64)
        rows = [tgt[st:st + k] for st, k in zip(starts, tl)]
    else:
        if tgt.shape[1] < max_tl:
            raise RuntimeError(
                f"Expected tensor to have size at least {max_tl} at dimension 1, but got size "
                f"{tgt.shape[1]} for argument #2 'targets' {where_}")
        rows = [tgt[b, :k] for b, k in enumerate(tl)]
    for v in il:
        if v > t_len:
            raise RuntimeError(f"Expected input_lengths to have value at most {t_len}, but got "
                               f"value {v} {where_}")
    # The extended label sequences (blank, l1, blank, l2, ..., blank), padded with blanks.
    s_len = 2 * max_tl + 1
    ext = np.full((n, s_len), blank, np.int64)
    skip = np.zeros((n, s_len), bool)  # may state s be entered from s - 2
    for b, row in enumerate(rows):
        ext[b, 1:2 * len(row):2] = row
        for s_ in range(3, 2 * len(row), 2):
            skip[b, s_] = ext[b, s_] != ext[b, s_ - 2]
    dev = lp.device
    ext_t = tensor(ext, device=dev)
    skip_t = tensor(skip, device=dev)
    state = tensor(np.arange(s_len)[None, :] < (2 * np.array(tl) + 1)[:, None], device=dev)
    ends = tensor(2 * np.array(tl, np.int64), device=dev).reshape(n, 1)
    il_t = np.array(il)

    def nll(x):
        emit = x.gather(2, ext_t.unsqueeze(0).expand(t_len, n, s_len))  # [T, N, S]
        neg = emit[0] * 0 - _INF
        alpha = where(tensor(np.arange(s_len) < 2, device=dev).reshape(1, s_len) & state,
                      emit[0], neg)
        out = alpha
        for t in range(1, t_len):
            prev1 = _pad(alpha, (1, 0), "constant", -_INF)[:, :s_len]
            prev2 = _pad(alpha, (2, 0), "constant", -_INF)[:, :s_len].masked_fill(~skip_t, -_INF)
            step = _safe_logsumexp([alpha, prev1, prev2]) + emit[t]
            step = step.masked_fill(~state, -_INF)
            live = tensor((il_t > t).reshape(n, 1), device=dev)
            alpha = where(live, step, alpha)  # a finished sequence keeps its last alphas
            out = alpha
        last = out.gather(1, ends).squeeze(1)
        before = out.gather(1, (ends - 1).clamp(min=0)).squeeze(1)
        before = before.masked_fill(tensor(np.array(tl) == 0, device=dev), -_INF)
        both = _safe_logsumexp([last, before])
        # A zero input length leaves only the empty target possible.
        empty = tensor(il_t == 0, device=dev)
        both = where(empty, where(tensor(np.array(tl) == 0, device=dev), both * 0, both * 0
                                  - _INF), both)
        # PyTorch's backward returns exp(log_probs) - posterior over the input's length: the
        # gradient with respect to the logits when log_probs is their log_softmax (the
        # softmax's Jacobian folded in). This term adds the exp(log_probs) part with value 0.
        frames = tensor((np.arange(t_len)[:, None] < il_t[None, :])[..., None], device=dev)
        extra = (x.exp() * frames).sum((0, 2))
        return -both + (extra - extra.detach())

    res = _one_node("CtcLossBackward0", nll, lp)
    if zero_infinity:
        res = res.masked_fill(res == _INF, 0.0)
    if unbatched:
        res = res.squeeze(0)
    if code == 0:
        return res
    if code == 2:
        return res.sum()
    tl_t = tensor(tl, dtype=res.dtype if res.is_floating_point() else float64, device=dev)
    return (res / tl_t.clamp(min=1).reshape(res.shape)).mean()


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """Multi-label one-versus-all loss: the binary cross entropy on
    logits of each class, averaged over the classes.

    Args:
        input: logits, shape (N, C).
        target: 0 or 1 per class, the same shape.
        weight: a weight per class, shape (C).
        size_average: deprecated; use `reduction`.
        reduce: deprecated; use `reduction`.
        reduction: 'none' | 'mean' | 'sum': how the per-element losses are combined (default 'mean').

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.multilabel_soft_margin_loss(gradrs.tensor([[2.0, -1.0]]), gradrs.tensor([[1.0, 0.0]]))
        tensor(0.2201)
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return _reduce(loss, reduction)


# ---- attention (scaled_dot_product_attention, multi_head_attention_forward) -------------------
#
# Compositions of matmul, softmax and dropout, PyTorch's math path step for step: the fused
# kernels PyTorch may pick (flash, memory-efficient) compute the same values.

_CPP_DTYPE = {"float16": "c10::Half", "float32": "float", "float64": "double",
              "int32": "int", "int64": "long int", "bool": "bool", "bfloat16": "c10::BFloat16",
              "uint8": "unsigned char", "int8": "signed char", "int16": "short int"}


def _cpp_dtype(dtype):
    name = str(dtype).split(".")[-1]
    return _CPP_DTYPE.get(name, name)


def _safe_softmax(x, dim):
    # aten::_safe_softmax: a row whose scores are all -inf gives zeros instead of NaN. The
    # masked rows are replaced before softmax too, so their gradient is zero, not NaN.
    masked_rows = (x == float("-inf")).all(dim, keepdim=True)
    out = x.masked_fill(masked_rows, 0.0).softmax(dim)
    return out.masked_fill(masked_rows, 0.0)


def _repeat_heads(t, repeats):
    # t.repeat_interleave(repeats, -3)
    if repeats == 1:
        return t
    shape = list(t.shape)
    out = t.unsqueeze(-3).expand(*shape[:-2], repeats, *shape[-2:])
    return out.reshape(*shape[:-3], shape[-3] * repeats, *shape[-2:])


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, *, scale=None, enable_gqa=False):
    """Attention softmax(Q K^T * scale + mask) V over the last two
    dimensions, with PyTorch's math definition (a query with no key to attend gets zeros).

    Args:
        query: shape (..., L, E).
        key: shape (..., S, E).
        value: shape (..., S, Ev).
        attn_mask: a boolean mask (True = attend) or an additive float mask, broadcastable to
            (..., L, S).
        dropout_p: dropout probability on the attention weights (default 0).
        is_causal: mask out keys after each query (a lower-triangular mask).
        scale: the factor of the scores (default 1 / sqrt(E)).
        enable_gqa: let query heads share key/value heads (grouped-query attention).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> q = k = v = gradrs.ones(1, 2, 3, 4)
        >>> F.scaled_dot_product_attention(q, k, v, is_causal=True).shape
        gradrs.Size([1, 2, 3, 4])
    """
    import math

    from .. import bool as bool_, float32, ones, zeros_like

    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{_cpp_dtype(query.dtype)} key.dtype: {_cpp_dtype(key.dtype)} and value.dtype: "
            f"{_cpp_dtype(value.dtype)} instead.")
    if not (query.device == key.device == value.device):
        raise RuntimeError(
            "Expected query, key, and value to have the same device type, but got "
            f"query.device: {query.device} key.device: {key.device} and value.device: "
            f"{value.device} instead.")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError(
            "Expected query, key, and value to all be  at least 2 dimensional, but got "
            f"query.dim: {query.dim()} key.dim: {key.dim()} and value.dim: {value.dim()} "
            "instead.")
    if attn_mask is not None and attn_mask.dtype not in (bool_, float32, query.dtype):
        raise RuntimeError(
            "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
            f"attn_mask.dtype: {_cpp_dtype(attn_mask.dtype)} and  query.dtype: "
            f"{_cpp_dtype(query.dtype)} instead.")
    if query.device.type == "cpu":
        from .attention import _check_cpu_backend

        _check_cpu_backend(query, key, value, attn_mask, dropout_p, enable_gqa)
    out_dtype = query.dtype
    if out_dtype == _native.float16:
        # PyTorch's math path keeps half inputs' intermediates in float32
        query, key, value = query.float(), key.float(), value.float()
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not "
                               "be set when is_causal=True")
        # Lower-triangular (upper-left aligned) causal mask, as a boolean mask.
        attn_mask = ones(query.shape[-2], key.shape[-2], dtype=bool_,
                         device=query.device).tril()
    if attn_mask is not None and attn_mask.dtype == bool_:
        attn_mask = zeros_like(attn_mask, dtype=query.dtype).masked_fill_(
            attn_mask.logical_not(), float("-inf"))
    if enable_gqa and query.dim() >= 3:
        hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
        if hq % hk != 0 or hq % hv != 0:
            # PyTorch's message, cut short as PyTorch prints it.
            raise RuntimeError("Number of heads in key and value must divide the number of "
                               "heads in ")
        key, value = _repeat_heads(key, hq // hk), _repeat_heads(value, hq // hv)
    if scale is None:
        scale = 1.0 / math.sqrt(query.shape[-1])
    # q and k are each scaled by sqrt(scale) before the product (PyTorch's math path, for
    # stability); a negative scale goes on q alone.
    factor = math.sqrt(abs(scale))
    q = query * (-factor if scale < 0 else factor)
    attn = q.matmul(key.transpose(-2, -1) * factor)
    if attn_mask is not None:
        attn.add_(attn_mask)
    attn = _safe_softmax(attn, -1)
    if dropout_p > 0.0:
        if dropout_p > 1.0:
            raise RuntimeError(
                f"dropout probability has to be between 0 and 1, but got {dropout_p}")
        attn = dropout(attn, dropout_p, True)
    out = attn.matmul(value)
    return out if out.dtype == out_dtype else out.to(out_dtype)


def _in_projection_packed(q, k, v, w, b=None):
    e = q.shape[-1]
    if k is v:
        if q is k:
            # self-attention: one projection, split into (q, k, v)
            proj = linear(q, w, b).unflatten(-1, (3, e)).unsqueeze(0).transpose(0, -2)
            proj = proj.squeeze(-2).contiguous()
            return proj[0], proj[1], proj[2]
        # encoder-decoder attention: q alone, k and v from one projection
        w_q, w_kv = w.split([e, e * 2])
        b_q, b_kv = (None, None) if b is None else b.split([e, e * 2])
        kv = linear(k, w_kv, b_kv).unflatten(-1, (2, e)).unsqueeze(0).transpose(0, -2)
        kv = kv.squeeze(-2).contiguous()
        return linear(q, w_q, b_q), kv[0], kv[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    eq, ek, ev = q.shape[-1], k.shape[-1], v.shape[-1]
    for name, w, want in (("query", w_q, (eq, eq)), ("key", w_k, (eq, ek)),
                          ("value", w_v, (eq, ev))):
        if tuple(w.shape) != want:
            raise AssertionError(
                f"expecting {name} weights shape of {want}, but got {w.shape}")
    for name, b in (("query", b_q), ("key", b_k), ("value", b_v)):
        if b is not None and tuple(b.shape) != (eq,):
            raise AssertionError(f"expecting {name} bias shape of {(eq,)}, but got {b.shape}")
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D "
                f"but found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError(
                "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                f"but found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D "
                f"but found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError(
                    "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or "
                    f"3-D but found {attn_mask.dim()}-D tensor instead")
            if attn_mask.dim() == 3:
                expected = (num_heads, query.shape[0], key.shape[0])
                if tuple(attn_mask.shape) != expected:
                    raise AssertionError(
                        f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}")
        return False
    raise AssertionError("query should be unbatched 2D or batched 3D tensor but received "
                         f"{query.dim()}-D query tensor")


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A bool mask becomes a float mask of ``target_type`` (-inf where True); a float mask
    is returned as is."""
    if mask is None:
        return None
    from .. import bool as bool_, zeros_like

    is_float = mask.is_floating_point()
    if mask.dtype != bool_ and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        import warnings

        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. "
                      "Use same type for both instead.", stacklevel=2)
    if not is_float:
        mask = zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


def _none_or_dtype(input):
    if input is None:
        return None
    if isinstance(input, _native.Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or gradrs.Tensor")


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """The computation of `nn.MultiheadAttention`: input
    projections, scaled dot-product attention per head, output projection. Arguments are the
    module's tensors and flags; see `nn.MultiheadAttention` for their meaning.

    Args:
        query: shape (L, N, E) (or (L, E) unbatched).
        key: shape (S, N, E).
        value: shape (S, N, E).
        embed_dim_to_check: E, checked against the inputs.
        num_heads: the number of heads; divides E.
        in_proj_weight: the packed q, k, v projection (3E, E), or None with separate weights.
        in_proj_bias: its bias (3E).
        bias_k: a bias row appended to the keys, or None.
        bias_v: a bias row appended to the values, or None.
        add_zero_attn: append a zero row to keys and values.
        dropout_p: dropout on the attention weights.
        out_proj_weight: the output projection (E, E).
        out_proj_bias: its bias (E).
        training: apply dropout.
        key_padding_mask: keys to ignore, shape (N, S).
        need_weights: also return the attention weights.
        attn_mask: a mask of shape (L, S) or (N * num_heads, L, S).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> mha = gradrs.nn.MultiheadAttention(4, 2)
        >>> x = gradrs.ones(3, 1, 4)
        >>> out, w = F.multi_head_attention_forward(x, x, x, 4, 2, mha.in_proj_weight, mha.in_proj_bias, None, None, False, 0.0, mha.out_proj.weight, mha.out_proj.bias)
        >>> out.shape, w.shape
        (gradrs.Size([3, 1, 4]), gradrs.Size([1, 3, 3]))
    """
    import math

    from .. import cat, zeros

    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        # Computed as a batch of one, squeezed at the end.
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)

    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       _none_or_dtype(attn_mask), "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer "
            "module method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        # The hint alone drives scaled_dot_product_attention.
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype,
                                    check_other=False)
        if key_padding_mask is not None:
            # merged with the padding mask below, it is no longer causal
            is_causal = False

    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match "
                                 f"value's {value.shape[:2]}")
    elif key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")

    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(
                    f"use_separate_proj_weight is True but {name}_proj_weight is None")
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight,
                                 v_proj_weight, b_q, b_k, b_v)

    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but "
                                   f"should be {(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            want = (bsz * num_heads, tgt_len, src_len)
            if tuple(attn_mask.shape) != want:
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but "
                                   f"should be {want}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")

    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")

    # heads folded into the batch, batch first: (bsz * num_heads, len, head_dim)
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    if static_k is None:
        k = k.view(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        if static_k.size(0) != bsz * num_heads:
            raise AssertionError(f"expecting static_k.size(0) of {bsz * num_heads}, but got "
                                 f"{static_k.size(0)}")
        if static_k.size(2) != head_dim:
            raise AssertionError(
                f"expecting static_k.size(2) of {head_dim}, but got {static_k.size(2)}")
        k = static_k
    if static_v is None:
        v = v.view(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        if static_v.size(0) != bsz * num_heads:
            raise AssertionError(f"expecting static_v.size(0) of {bsz * num_heads}, but got "
                                 f"{static_v.size(0)}")
        if static_v.size(2) != head_dim:
            raise AssertionError(
                f"expecting static_v.size(2) of {head_dim}, but got {static_v.size(2)}")
        v = static_v

    if add_zero_attn:
        zero_shape = (bsz * num_heads, 1, head_dim)
        k = cat([k, zeros(zero_shape, dtype=k.dtype, device=k.device)], dim=1)
        v = cat([v, zeros(zero_shape, dtype=v.dtype, device=v.device)], dim=1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))

    src_len = k.size(1)
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                                 f"{key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        key_padding_mask = (key_padding_mask.view(bsz, 1, 1, src_len)
                            .expand(-1, num_heads, -1, -1)
                            .reshape(bsz * num_heads, 1, src_len))
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask

    if not training:
        dropout_p = 0.0

    if need_weights:
        e = q.shape[-1]
        q_scaled = q * math.sqrt(1.0 / float(e))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        weights = q_scaled.bmm(k.transpose(-2, -1))
        if attn_mask is not None:
            weights = attn_mask + weights  # torch.baddbmm(attn_mask, q_scaled, k^T)
        weights = softmax(weights, dim=-1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        out = weights.bmm(v)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias)
        out = out.view(tgt_len, bsz, out.size(1))
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights

    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias)
    out = out.view(tgt_len, bsz, out.size(1))
    if not is_batched:
        out = out.squeeze(1)
    return out, None


# -- 3-D pooling and transposed convolution --
#
# Composed of strided slices of the (padded) input, one per kernel tap, so each output is a
# reduction over a stacked tap axis: the reductions' own backward formulas route gradients as
# PyTorch's kernels do (max: to the first maximum of the window; mean: evenly), and each
# function is one node of PyTorch's name.


def _list_with_default(out_size, defaults):
    from .modules.utils import _list_with_default

    return _list_with_default(out_size, defaults)


def _arg3(v, message):
    v = (v,) if isinstance(v, int) else tuple(v)
    if len(v) not in (1, 3):
        raise RuntimeError(message)
    return v * 3 if len(v) == 1 else v


def _pool3d_shape_check(input, k, s, p, d, out, name, check_input_size):
    """PyTorch's pool3d_shape_check (after the output sizes were computed)."""
    if min(k) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kT: {k[0]} "
                           f"kH: {k[1]} kW: {k[2]}")
    if min(s) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dT: {s[0]} dH: {s[1]} "
                           f"dW: {s[2]}")
    if min(d) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationT: {d[0]} "
                           f"dilationH: {d[1]} dilationW: {d[2]}")
    shape = list(input.shape)
    for i in range(1 if len(shape) == 5 else 0, len(shape)):
        if shape[i] <= 0:
            # PyTorch's message names dimension 0 whichever dimension it is.
            raise RuntimeError(
                f"{name}(): Expected input's non-batch dimensions to have positive length, but "
                f"input has a shape of {shape} and non-batch dimension 0 has length zero!")
    c, t, h, w = shape[-4:]
    if check_input_size and (t < k[0] or h < k[1] or w < k[2]):
        raise RuntimeError(f"input image (T: {t} H: {h} W: {w}) smaller than kernel size "
                           f"(kT: {k[0]} kH: {k[1]} kW: {k[2]})")
    if k[0] // 2 < p[0] or k[2] // 2 < p[2] or k[1] // 2 < p[1]:
        raise RuntimeError(
            "pad should be smaller than or equal to half of kernel size, but got "
            f"kT: {k[0]} kW: {k[2]} kH: {k[1]} padT: {p[0]} padW: {p[2]} padH: {p[1]}")
    if min(out) < 1:
        raise RuntimeError(
            f"Given input size: ({c}x{t}x{h}x{w}). Calculated output size: "
            f"({c}x{out[0]}x{out[1]}x{out[2]}). Output size is too small")


def _pool3d_geometry(input, k, s, p, d, ceil_mode, name, check_input_size):
    if input.dim() not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    sizes = tuple(input.shape[-3:])
    out = [_pool_output_size(sizes[i], k[i], s[i], p[i], ceil_mode, d[i]) for i in range(3)]
    _pool3d_shape_check(input, k, s, p, d, out, name, check_input_size)
    # Extra elements at the end for ceil_mode's last, partial windows.
    extra = [max(0, (out[i] - 1) * s[i] + d[i] * (k[i] - 1) + 1 - (sizes[i] + 2 * p[i]))
             for i in range(3)]
    pads = (p[2], p[2] + extra[2], p[1], p[1] + extra[1], p[0], p[0] + extra[0])
    return sizes, out, pads


def _taps3d(x, k, s, d, out):
    """The k[0]*k[1]*k[2] strided views of ``x`` (already padded) that each window's elements
    come from, in window order (depth, height, width): views, nothing copied."""
    for a in range(k[0]):
        for b in range(k[1]):
            for c in range(k[2]):
                yield x[..., a * d[0]:a * d[0] + (out[0] - 1) * s[0] + 1:s[0],
                        b * d[1]:b * d[1] + (out[1] - 1) * s[1] + 1:s[1],
                        c * d[2]:c * d[2] + (out[2] - 1) * s[2] + 1:s[2]]


def _running_max(views, want_tap=False):
    """PyTorch's max-pool scan over the window in order: a value replaces the maximum when it
    is larger or NaN (so the first maximum, and the last NaN, win). `where` routes each
    gradient to that element; memory is one mask per tap, not the taps themselves."""
    from .. import where, zeros_like

    best = tap = None
    for i, view in enumerate(views):
        if best is None:
            best = view
            if want_tap:
                tap = zeros_like(view, dtype=_native.int64)
            continue
        better = view > best
        if view.is_floating_point():
            better = better | view.isnan()
        best = where(better, view, best)
        if want_tap:
            tap = where(better, i, tap)
    return best, tap


def _running_sum(views):
    """The window's elements summed in window order, as PyTorch's CPU kernel adds them."""
    total = None
    for view in views:
        total = view if total is None else total + view
    return total


def _lowest(dtype):
    if dtype.is_floating_point:
        return -_INF
    from .. import iinfo

    return iinfo(dtype).min


def _max_pool3d_impl(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """3-D max pooling with the flat index (within each input volume) of every maximum."""
    from .. import arange, no_grad

    k = _arg3(kernel_size,
              "max_pool3d: kernel_size must either be a single int, or a tuple of three ints")
    s = k if stride is None or stride == [] or stride == () else _arg3(
        stride, "max_pool3d: stride must either be omitted, a single int, or a tuple of three "
        "ints")
    p = _arg3(padding, "max_pool3d: padding must either be a single int, or a tuple of three "
              "ints")
    d = _arg3(dilation, "max_pool3d: dilation must be either a single int, or a tuple of three "
              "ints")
    sizes, out, pads = _pool3d_geometry(input, k, s, p, d, ceil_mode,
                                        "max_pool3d_with_indices_out_cpu_template", False)
    if input.dtype == _native.bool:
        raise NotImplementedError("\"max_pool3d\" not implemented for 'Bool'")
    low = _lowest(input.dtype)

    def pool(t):
        best = _running_max(_taps3d(_pad(t, pads, "constant", low), k, s, d, out))[0]
        # A one-tap window's maximum is a view of the padded input: copied, as PyTorch's is.
        return best.clone() if k[0] * k[1] * k[2] == 1 else best

    values = _one_node("MaxPool3DWithIndicesBackward0", _opmath(pool), input, linear=True)
    if not return_indices:
        return values
    with no_grad():
        at = _running_max(_taps3d(_pad(input.detach(), pads, "constant", low), k, s, d, out),
                          want_tap=True)[1]
        dev = input.device
        zt = (arange(out[0], device=dev) * s[0] - p[0]).reshape(-1, 1, 1)
        yt = (arange(out[1], device=dev) * s[1] - p[1]).reshape(-1, 1)
        xt = arange(out[2], device=dev) * s[2] - p[2]
        z = zt + (at // (k[1] * k[2])) * d[0]
        y = yt + (at // k[2]) % k[1] * d[1]
        x = xt + at % k[2] * d[2]
        indices = (z * sizes[1] + y) * sizes[2] + x
    return values, indices


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """3-D max pooling over an input of shape (N, C, *spatial) or without N.

    Args:
        input: the input tensor.
        kernel_size: the window size (an int or one per spatial dimension).
        stride: the window step (default: `kernel_size`).
        padding: implicit padding on both sides of each spatial dimension (default 0).
        ceil_mode: round the output size up instead of down (default False).
        dilation: the spacing between window elements (default 1).
        return_indices: also return the flat indices of the maxima (for `max_unpool3d`).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> x = gradrs.ones(1, 1, 4, 4, 4)
        >>> F.max_pool3d(x, 2).shape
        gradrs.Size([1, 1, 2, 2, 2])
    """
    return _max_pool3d_impl(input, kernel_size, stride, padding, dilation, ceil_mode,
                                   return_indices)


def _window_counts(size, k, s, p, n_out, count_include_pad):
    """Each window's element count along one axis, as PyTorch's avg_pool kernels count."""
    res = []
    for o in range(n_out):
        i0 = o * s - p
        i1 = min(i0 + k, size + p)
        res.append(i1 - i0 if count_include_pad else min(i1, size) - max(i0, 0))
    return res


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """3-D average pooling over an input of shape (N, C, D, H, W) or without N.

    Args:
        input: the input tensor.
        kernel_size: the window size (an int or one per spatial dimension).
        stride: the window step (default: `kernel_size`).
        padding: implicit padding on both sides of each spatial dimension (default 0).
        ceil_mode: round the output size up instead of down (default False).
        count_include_pad: count the padding zeros in the averages (default True).
        divisor_override: divide by this instead of the window size.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> x = gradrs.ones(1, 1, 4, 4, 4)
        >>> F.avg_pool3d(x, 2).shape
        gradrs.Size([1, 1, 2, 2, 2])
    """
    from .. import bool as bool_
    from .. import float16, int32

    k = _arg3(kernel_size, "avg_pool3d: kernel_size must be a single int, or a tuple of three "
              "ints")
    s = k if stride is None or stride == [] or stride == () else _arg3(
        stride, "avg_pool3d: stride must be omitted, a single int, or a tuple of three ints")
    p = _arg3(padding, "avg_pool3d: padding must be a single int, or a tuple of three ints")
    if input.dim() not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    sizes, out, pads = _pool3d_geometry(input, k, s, p, (1, 1, 1), ceil_mode, "avg_pool3d",
                                        True)
    if input.dtype in (bool_, int32) or (input.dtype == float16 and input.device.type == "cpu"):
        # PyTorch's CPU kernel: float, double and long (its GPU one has Half too).
        raise NotImplementedError("\"avg_pool3d_out_frame\" not implemented for "
                                  f"'{_scalar_name(input.dtype)}'")
    if divisor_override is not None:
        divisor = divisor_override
    else:
        counts = [_window_counts(sizes[i], k[i], s[i], p[i], out[i], count_include_pad)
                  for i in range(3)]
        if all(len(set(c)) == 1 for c in counts):
            divisor = counts[0][0] * counts[1][0] * counts[2][0]
        else:
            divisor = None

    def window_counts(like):
        # Each window's divisor as PyTorch counts it: the same pooling of a volume of ones,
        # zero-padded (count_include_pad=False) or one-padded but for ceil_mode's extra tail.
        # Tensor ops on the input's device: a GPU step uploads nothing.
        ones = _native.ones(1, 1, *sizes, dtype=like.dtype, device=like.device)
        if count_include_pad:
            ones = _pad(ones, (p[2], p[2], p[1], p[1], p[0], p[0]), "constant", 1)
            extra = (0, pads[1] - pads[0], 0, pads[3] - pads[2], 0, pads[5] - pads[4])
        else:
            extra = pads
        return _running_sum(_taps3d(_pad(ones, extra, "constant", 0), k, s, (1, 1, 1),
                                    out))[0, 0]

    def pool(t):
        total = _running_sum(_taps3d(_pad(t, pads, "constant", 0), k, s, (1, 1, 1), out))
        div = divisor
        if div is None:
            div = window_counts(total)
        if t.is_floating_point():
            return total / div
        return total.div(div, rounding_mode="trunc")

    return _one_node("AvgPool3DBackward0", pool, input, linear=True)


def _adaptive_axis(x, axis, n_out, reduce, index=None):
    """Adaptive pooling along one axis (PyTorch's windows [floor(i*n/o), ceil((i+1)*n/o)));
    a product of windows pools axis by axis. ``index`` (max only) carries each element's flat
    input index through the reductions."""
    from .. import cat

    parts, picked = [], []
    for a, b in _adaptive_ranges(x.shape[axis], n_out):
        seg = x.narrow(axis, a, b - a)
        if reduce == "mean":
            parts.append(seg.mean(axis, keepdim=True))
            continue
        # PyTorch's scan (first maximum, last NaN) over the window's slices.
        v, at = _running_max([x.narrow(axis, j, 1) for j in range(a, b)],
                             want_tap=index is not None)
        parts.append(v)
        if index is not None:
            picked.append(index.narrow(axis, a, b - a).gather(axis, at))
    return cat(parts, axis), (cat(picked, axis) if index is not None else None)


def _adaptive3d_checks(input, name, internal):
    shape = list(input.shape)
    for i in range(1, len(shape)):
        if shape[i] <= 0:
            raise RuntimeError(
                f"{name}(): Expected input to have non-zero size for non-batch dimensions, but "
                f"input has sizes {shape} with dimension {i} being empty")
    if input.dim() not in (4, 5):
        raise RuntimeError(f"{name}(): Expected 4D or 5D tensor, but got{':' if internal else ''}"
                           f" {shape}")
    if not input.is_floating_point():
        raise NotImplementedError(
            f"\"{name}_cpu\" not implemented for '{_scalar_name(input.dtype)}'")


def adaptive_avg_pool3d(input, output_size):
    """3-D average pooling to a fixed output size, whatever the input size (the windows
    are chosen to cover the input).

    Args:
        input: (N, C, *spatial) or without N.
        output_size: the output's spatial size (an int or one per dimension; None keeps that
            dimension's size).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.adaptive_avg_pool3d(gradrs.ones(1, 3, 5, 7, 9), 1).shape
        gradrs.Size([1, 3, 1, 1, 1])
    """
    osize = _list_with_default(output_size, input.size())
    osize = [osize] * 3 if isinstance(osize, int) else list(osize)
    if len(osize) != 3:
        raise RuntimeError("adaptive_avg_pool3d: output_size must be 3")
    if any(n < 0 for n in osize):
        raise RuntimeError(  # sic: PyTorch's message has no space before the last size
            "adaptive_avg_pool3d: elements of output_size must be greater than or equal to 0 "
            f"but received {{{osize[0]}, {osize[1]},{osize[2]}}}")
    if osize == [1, 1, 1]:  # PyTorch takes the mean here (MeanBackward1)
        return input.mean((-1, -2, -3), keepdim=True)
    _adaptive3d_checks(input, "adaptive_avg_pool3d", False)

    def pool(x):
        if 0 in osize:
            return _empty_pool(x, osize, "adaptive_avg_pool3d")
        for axis, n in zip((-3, -2, -1), osize):
            x = _adaptive_axis(x, axis, n, "mean")[0]
        return x

    return _one_node("AdaptiveAvgPool3DBackward0", _opmath(pool), input, linear=True)


def _adaptive_max_pool3d_impl(input, output_size, return_indices=False):
    from .. import arange, no_grad

    osize = _list_with_default(output_size, input.size())
    osize = [osize] * 3 if isinstance(osize, int) else list(osize)
    if input.dim() in (4, 5) and len(osize) != 3:
        raise RuntimeError("adaptive_max_pool3d(): internal error: output_size.size() must be 3")
    _adaptive3d_checks(input, "adaptive_max_pool3d", True)

    def pool(x):
        for axis, n in zip((-3, -2, -1), osize):
            x = _adaptive_axis(x, axis, n, "max")[0]
        return x

    values = _one_node("AdaptiveMaxPool3DBackward0", _opmath(pool), input, linear=True)
    if not return_indices:
        return values
    with no_grad():
        x = input.detach()
        t, h, w = x.shape[-3:]
        index = arange(t * h * w, device=x.device).reshape(t, h, w).expand(*x.shape)
        for axis, n in zip((-3, -2, -1), osize):
            x, index = _adaptive_axis(x, axis, n, "max", index)
    return values, index


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """3-D max pooling to a fixed output size, whatever the input size.

    Args:
        input: (N, C, *spatial) or without N.
        output_size: the output's spatial size (an int or one per dimension).
        return_indices: also return the indices of the maxima (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.adaptive_max_pool3d(gradrs.ones(1, 3, 5, 7, 9), 2).shape
        gradrs.Size([1, 3, 2, 2, 2])
    """
    return _adaptive_max_pool3d_impl(input, output_size, return_indices)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """3-D power-average pooling: (sum of x^p over each window)^(1/p).

    Args:
        input: the input tensor, (N, C, *spatial) or without N.
        norm_type: p (p = inf gives max pooling, p = 1 sum pooling).
        kernel_size: the window size.
        stride: the window step (default: `kernel_size`).
        ceil_mode: round the output size up instead of down (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> x = gradrs.ones(1, 1, 4, 4, 4)
        >>> F.lp_pool3d(x, 2, 2)
        tensor([[[[[2.8284, 2.8284],
                   [2.8284, 2.8284]],
        <BLANKLINE>
                  [[2.8284, 2.8284],
                   [2.8284, 2.8284]]]]])
    """
    kd, kw, kh = _arg3(kernel_size, "avg_pool3d: kernel_size must be a single int, or a tuple "
                       "of three ints")
    if norm_type == _INF:
        return max_pool3d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -_INF:
        return -max_pool3d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    out = avg_pool3d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * out.abs().relu()).mul(kd * kw * kh).pow(1.0 / norm_type)


def _max_unpool3d(input, indices, output_size, stride, padding):
    """PyTorch's max_unpool3d kernel: each value scattered to its flat index in a zero
    volume."""
    from .. import long, zeros

    if indices.dtype != long:
        raise RuntimeError("elements in indices should be type int64")
    if input.dim() not in (4, 5):
        raise RuntimeError("Input to max_unpooling3d should be a 4d or 5d Tensor, but got a "
                           f"tensor with {input.dim()} dimensions.")
    if len(output_size) != 3:
        raise RuntimeError("There should be exactly three elements (depth, height, width) in "
                           f"output_size, but got {len(output_size)} elements.")
    if len(stride) != 3:
        raise RuntimeError("There should be exactly three elements (depth, height, width) in "
                           f"stride, but got: {len(stride)} elements.")
    if len(padding) != 3:
        raise RuntimeError("There should be exactly three elements (depth, height, width) in "
                           f"padding, but got: {len(padding)} elements.")
    if tuple(input.shape) != tuple(indices.shape):
        raise RuntimeError(
            "Expected shape of indices to be same as that of the input tensor "
            f"({list(input.shape)}) but got indices tensor with shape: {list(indices.shape)}")
    for i in range(1, input.dim()):
        if input.shape[i] <= 0:
            raise RuntimeError(
                "max_unpooling3d(): Expected input to have non-zero size for non-batch "
                f"dimensions, but got {list(input.shape)} with dimension {i} being empty.")
    if min(stride) <= 0:
        raise RuntimeError(f"strides should be greater than zero, but got stride: {list(stride)}")
    if not input.is_floating_point():
        raise NotImplementedError(
            f"\"max_unpool3d\" not implemented for '{_scalar_name(input.dtype)}'")
    ot, oh, ow = output_size
    vol = ot * oh * ow
    planes = input.numel() // max(input.shape[-1] * input.shape[-2] * input.shape[-3], 1)
    flat = indices.reshape(planes, -1)
    if flat.numel() and bool(((flat < 0) | (flat >= vol)).any()):
        bad = int(flat.masked_select((flat < 0) | (flat >= vol))[0].item())
        raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size "
                           f"{ot}x{oh}x{ow})")
    out_shape = tuple(input.shape[:-3]) + (ot, oh, ow)

    def unpool(x):
        base = zeros(planes, vol, dtype=x.dtype, device=x.device)
        return base.scatter(1, flat, x.reshape(planes, -1)).reshape(*out_shape)

    return _one_node("MaxUnpool3DBackward0", unpool, input)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Partial inverse of `max_pool3d`: puts each value at the position its index names
    and zeros elsewhere.

    Args:
        input: the pooled values.
        indices: the indices `max_pool3d(..., return_indices=True)` returned.
        kernel_size: the pooling's window size.
        stride: the pooling's stride (default: `kernel_size`).
        padding: the pooling's padding (default 0).
        output_size: the exact output size, when several are possible.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> x = gradrs.randn(1, 1, 4, 4, 4)
        >>> y, i = F.max_pool3d(x, 2, return_indices=True)
        >>> F.max_unpool3d(y, i, 2).shape
        gradrs.Size([1, 1, 4, 4, 4])
    """
    kernel_size = _arg3(kernel_size, "max_unpool3d: kernel_size must be a single int, or a "
                        "tuple of three ints")
    stride = _triple3(stride) if stride is not None else kernel_size
    padding = _triple3(padding)
    output_size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    return _max_unpool3d(input, indices, list(output_size), list(stride), list(padding))


def _triple3(v):
    return (v, v, v) if isinstance(v, int) else tuple(v)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """3-D transposed convolution composed of 2-D ones: each depth tap kd of the weight
    transposes every input depth slice (folded into the batch) over height and width, and its
    result lands at depths i*stride + kd*dilation of the output (zeros between, for strides
    above 1); the taps are summed, then the depth padding is cut off."""
    if input.dim() not in (4, 5):
        raise RuntimeError(
            "Expected 4D (unbatched) or 5D (batched) input to conv_transpose3d, but got input "
            f"of size: {list(input.shape)}")
    unbatched = input.dim() == 4
    if unbatched:
        input = input.unsqueeze(0)
    s, p = _ints(stride, 3), _ints(padding, 3)
    op, d = _ints(output_padding, 3), _ints(dilation, 3)
    if weight.dim() != 5:
        nd = weight.dim() - 2
        for name, v in (("stride", s), ("padding", p), ("dilation", d),
                        ("output_padding", op)):
            if len(v) != 1 and len(v) != nd:
                raise RuntimeError(
                    f"expected {name} to be a single integer value or a list of {nd} values to "
                    f"match the convolution dimensions, but got {name}={v}")
        raise RuntimeError(f"Expected 5-dimensional weight for conv_transpose3d, but got "
                           f"weight of size {list(weight.shape)}")
    for name, v in (("stride", s), ("padding", p), ("dilation", d), ("output_padding", op)):
        if len(v) != 3:
            raise RuntimeError(
                f"expected {name} to be a single integer value or a list of 3 values to match "
                f"the convolution dimensions, but got {name}={v}")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if any(v < 0 for v in p):
        raise RuntimeError("negative padding is not supported")
    if any(v < 0 for v in op):
        raise RuntimeError("negative output_padding is not supported")
    if weight.shape[0] < groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, "
            f"but got weight of size {list(weight.shape)} instead")
    if weight.shape[0] % groups != 0:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension "
            f"0, but got weight of size [{list(weight.shape)}] instead")
    cin, cout = weight.shape[0], weight.shape[1] * groups
    if input.shape[1] != cin:
        raise RuntimeError(
            f"Given transposed=1, weight of size {list(weight.shape)}, expected "
            f"input{list(input.shape)} to have {cin} channels, but got {input.shape[1]} "
            "channels instead")
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != cout):
        raise RuntimeError(
            f"Given transposed=1, weight of size {list(weight.shape)}, expected bias to be "
            f"1-dimensional with {cout} elements, but got bias of size {list(bias.shape)} "
            "instead")
    if any(op[i] >= s[i] and op[i] >= d[i] for i in range(3)):
        raise RuntimeError(
            "output padding must be smaller than either stride or dilation, but got "
            f"output_padding_depth: {op[0]} output_padding_height: {op[1]} "
            f"output_padding_width: {op[2]} stride_depth: {s[0]} stride_height: {s[1]} "
            f"stride_width: {s[2]} dilation_depth: {d[0]} dilation_height: {d[1]} "
            f"dilation_width: {d[2]}")
    n = input.shape[0]
    sizes = list(input.shape[2:])
    k = list(weight.shape[2:])
    outs = [(sizes[i] - 1) * s[i] - 2 * p[i] + d[i] * (k[i] - 1) + op[i] + 1 for i in range(3)]
    if min(outs) < 1:
        raise RuntimeError(
            f"Given input size per channel: ({' x '.join(map(str, sizes))}). Calculated output "
            f"size per channel: ({' x '.join(map(str, outs))}). Output size is too small")
    if not input.is_floating_point() and input.dtype != _native.int64:
        raise NotImplementedError("\"slow_conv_transpose3d_out_cpu\" not implemented for "
                                  f"'{_scalar_name(input.dtype)}'")
    t = sizes[0]
    depth = (t - 1) * s[0] + d[0] * (k[0] - 1) + 1  # the unpadded canvas

    def fn(x, wt, b):
        from .. import stack, zeros_like

        xs = x.transpose(1, 2).reshape(n * t, cin, sizes[1], sizes[2])
        total = None
        for kd in range(k[0]):
            y = _conv_transpose(xs, wt[:, :, kd], None, s[1:], p[1:], op[1:], groups, d[1:], 2)
            y = y.reshape(n, t, cout, outs[1], outs[2]).transpose(1, 2)
            if s[0] > 1:  # zeros between the input's depths
                y = stack([y] + [zeros_like(y)] * (s[0] - 1), 3)
                y = y.reshape(n, cout, t * s[0], outs[1], outs[2])[:, :, :(t - 1) * s[0] + 1]
            lo = kd * d[0]
            y = _pad(y, (0, 0, 0, 0, lo, depth - lo - y.shape[2]), "constant", 0)
            total = y if total is None else total + y
        # Cut the depth padding off (and append output_padding's zeros).
        out = _pad(total, (0, 0, 0, 0, -p[0], outs[0] - depth + p[0]), "constant", 0)
        if b is not None:
            out = out + b.reshape(1, cout, 1, 1, 1)
        return out

    out = _one_node("ConvolutionBackward0", fn, input, weight, bias)
    return out.squeeze(0) if unbatched else out


# -- fractional max pooling --
#
# PyTorch's kernel: per (batch, channel) plane, one uniform sample u per spatial dimension
# (`_random_samples`, drawn with rand() from the default stream when not given) places the
# windows at floor((i + u) * alpha) - floor(u * alpha), alpha = (in - k) / (out - 1), the last at
# in - k, computed in the input's floating type. The windows' flat indices are built on the
# host from the samples and the values gathered, so each window's max (the first one, as
# PyTorch) and its gradient come from gather and max.


def _fractional_intervals(sample, in_size, out_size, k, np_dtype):
    # numpy's scalars round each operation as the C++ kernel's scalar_t arithmetic does.
    seq = [0] * out_size
    if out_size > 1:
        sample = np_dtype(sample)
        alpha = np_dtype(in_size - k) / np_dtype(out_size - 1)
        for i in range(out_size - 1):
            seq[i] = int((np_dtype(i) + sample) * alpha) - int(sample * alpha)
    if out_size > 0:
        seq[out_size - 1] = in_size - k
    return seq


def _fractional_max_pool(input, kernel_size, output_size, samples, nd, with_indices=True):
    """fractional_max_pool{nd}d's checks, then (values, indices), or the values alone."""
    import itertools

    import numpy as np

    from .. import long, no_grad, tensor

    name = f"fractional_max_pool{nd}d"
    what = "tuple of Ints" if nd == 2 else "tuple of three Ints"
    k = [kernel_size] * nd if isinstance(kernel_size, int) else list(kernel_size)
    out = [output_size] * nd if isinstance(output_size, int) else list(output_size)
    if len(k) != nd:
        raise RuntimeError(f"{name}: kernel_size must either be a single Int or {what}")
    if len(out) != nd:
        raise RuntimeError(f"{name}: output_size must either be a single Int or {what}")
    fn = name + ("()" if nd == 2 else "_out()")
    shape = list(input.shape)
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"{fn}: Expected {nd + 1}D or {nd + 2}D tensor, but got: {shape}")
    for i in range(1, input.dim()):
        if shape[i] <= 0:
            raise RuntimeError(
                f"{fn}: Expected input to have non-zero size for non-batch dimensions, but "
                f"got{shape} with dimension {i} being empty.")
    sizes = shape[-nd:]
    labels = ("height", "width") if nd == 2 else ("time", "height", "width")
    for lab, o, kk, s in zip(labels, out, k, sizes):
        if o + kk - 1 > s:
            raise RuntimeError(f"{fn}: pool {lab} {kk} too large relative to input {lab} {s}")
    if samples.dtype != input.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.dim() != 3:
        raise RuntimeError(f"Expect _random_samples to be 3D tensor, got: {samples.dim()}")
    batched = input.dim() == nd + 2
    n, c = (shape[0], shape[1]) if batched else (1, shape[0])
    if samples.shape[0] < n:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != c:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != nd:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {nd}; got "
                           f"{samples.shape[2]}.")
    if not input.is_floating_point():
        raise NotImplementedError(
            f"\"{name}_out_frame\" not implemented for '{_scalar_name(input.dtype)}'")
    np_dtype = {"float16": np.float16, "float32": np.float32, "float64": np.float64}[
        str(input.dtype).split(".")[-1]]
    # 2-D samples are (w, h), 3-D ones (t, h, w), as PyTorch's kernels read them.
    order = (1, 0) if nd == 2 else (0, 1, 2)
    with no_grad():
        draws = samples.detach().cpu().double().tolist()
    # Flat input index of every tap of every window: [n, c, prod(out), prod(k)].
    strides = [int(np.prod(sizes[i + 1:])) for i in range(nd)]
    taps = np.array([sum(o * st for o, st in zip(off, strides))
                     for off in itertools.product(*[range(kk) for kk in k])], dtype=np.int64)
    idx = np.empty((n, c, int(np.prod(out)), len(taps)), dtype=np.int64)
    for b in range(n):
        for ch in range(c):
            starts = [_fractional_intervals(draws[b][ch][order[d]], sizes[d], out[d], k[d],
                                            np_dtype) for d in range(nd)]
            corner = np.zeros(1, dtype=np.int64)
            for d in range(nd):
                corner = (corner[:, None] + np.array(starts[d], dtype=np.int64)[None, :]
                          * strides[d]).reshape(-1)
            idx[b, ch] = corner[:, None] + taps[None, :]
    index = tensor(idx, dtype=long, device=input.device)
    out_shape = tuple(shape[:-nd]) + tuple(out)
    plane = int(np.prod(sizes))

    def pool(x):
        flat = x.reshape(n, c, plane)
        got = flat.gather(2, index.reshape(n, c, -1)).reshape(n, c, -1, len(taps))
        return _running_max(got.unbind(-1))[0].reshape(*out_shape)

    values = _one_node(f"FractionalMaxPool{nd}DBackward0", _opmath(pool), input, linear=True)
    if not with_indices:
        return values
    with no_grad():
        flat = input.detach().reshape(n, c, plane)
        got = flat.gather(2, index.reshape(n, c, -1)).reshape(n, c, -1, len(taps))
        at = _running_max(got.unbind(-1), want_tap=True)[1]
        indices = index.gather(3, at.unsqueeze(-1)).reshape(*out_shape)
    return values, indices


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None, *,
                                       _with_indices=True):
    """`fractional_max_pool2d` returning the indices of the maxima too: (output, indices).

    Args:
        input: (N, C, *spatial) or without N.
        kernel_size: the window size.
        output_size: the output's spatial size (give this or `output_ratio`).
        output_ratio: the output size as a fraction of the input size, in (0, 1).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> out, idx = F.fractional_max_pool2d_with_indices(gradrs.randn(1, 1, 8, 8), 2, output_size=5)
        >>> idx.dtype
        gradrs.int64
    """
    from .. import rand

    if output_size is None and output_ratio is None:
        raise ValueError("fractional_max_pool2d requires specifying either an output_size or "
                         "an output_ratio")
    if output_size is None:
        if len(output_ratio) > 2:
            raise ValueError("fractional_max_pool2d requires output_ratio to either be a single "
                             "Int or tuple of Ints.")
        ratio = _pair(output_ratio)
        output_size = [int(input.size(-2) * ratio[0]), int(input.size(-1) * ratio[1])]
    if _random_samples is None:
        n_batch = 1 if input.dim() == 3 else input.size(0)
        # Drawn on the host (gradrs's GPU draws come from the same CPU stream), where the
        # windows are built: nothing to read back from the GPU.
        _random_samples = rand(n_batch, input.size(-3), 2, dtype=input.dtype)
    return _fractional_max_pool(input, kernel_size, output_size, _random_samples, 2,
                                _with_indices)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """2-D fractional max pooling: max pooling over windows whose positions are drawn at
    random, so the output size may be any fraction of the input size.

    Args:
        input: (N, C, *spatial) or without N.
        kernel_size: the window size.
        output_size: the output's spatial size (give this or `output_ratio`).
        output_ratio: the output size as a fraction of the input size, in (0, 1).
        return_indices: also return the indices of the maxima (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.fractional_max_pool2d(gradrs.randn(1, 1, 8, 8), 2, output_size=5).shape
        gradrs.Size([1, 1, 5, 5])
    """
    # Without return_indices the indices are not computed.
    return fractional_max_pool2d_with_indices(input, kernel_size, output_size, output_ratio,
                                              return_indices, _random_samples,
                                              _with_indices=return_indices)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None, *,
                                       _with_indices=True):
    """`fractional_max_pool3d` returning the indices of the maxima too: (output, indices).

    Args:
        input: (N, C, *spatial) or without N.
        kernel_size: the window size.
        output_size: the output's spatial size (give this or `output_ratio`).
        output_ratio: the output size as a fraction of the input size, in (0, 1).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> out, idx = F.fractional_max_pool3d_with_indices(gradrs.randn(1, 1, 8, 8, 8), 2, output_size=5)
        >>> idx.dtype
        gradrs.int64
    """
    from .. import rand

    if output_size is None and output_ratio is None:
        raise ValueError("fractional_max_pool3d requires specifying either an output_size or "
                         "an output_ratio")
    if output_size is None:
        ratio = _triple3(output_ratio)
        output_size = [int(input.size(-3) * ratio[0]), int(input.size(-2) * ratio[1]),
                       int(input.size(-1) * ratio[2])]
    if _random_samples is None:
        n_batch = 1 if input.dim() == 4 else input.size(0)
        # Drawn on the host (gradrs's GPU draws come from the same CPU stream), where the
        # windows are built: nothing to read back from the GPU.
        _random_samples = rand(n_batch, input.size(-4), 3, dtype=input.dtype)
    return _fractional_max_pool(input, kernel_size, output_size, _random_samples, 3,
                                _with_indices)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """3-D fractional max pooling: max pooling over windows whose positions are drawn at
    random, so the output size may be any fraction of the input size.

    Args:
        input: (N, C, *spatial) or without N.
        kernel_size: the window size.
        output_size: the output's spatial size (give this or `output_ratio`).
        output_ratio: the output size as a fraction of the input size, in (0, 1).
        return_indices: also return the indices of the maxima (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.fractional_max_pool3d(gradrs.randn(1, 1, 8, 8, 8), 2, output_size=5).shape
        gradrs.Size([1, 1, 5, 5, 5])
    """
    # Without return_indices the indices are not computed.
    return fractional_max_pool3d_with_indices(input, kernel_size, output_size, output_ratio,
                                              return_indices, _random_samples,
                                              _with_indices=return_indices)


def conv_tbc(input, weight, bias, pad=0):
    """1-D convolution of a time-batch-channel input [T, B, C_in] with a weight
    [K, C_in, C_out] and a bias [C_out], ``pad`` zeros at both ends of time (one
    ConvTbcBackward0 node)."""
    if input.dim() != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.dim() != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, "
                           "out_channels.")
    if bias.dim() != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight.shape[2] != bias.shape[0]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")

    ilen, batch, kw = input.shape[0], input.shape[1], weight.shape[0]
    olen = ilen - kw + 1 + 2 * pad
    cout = weight.shape[2]
    if olen < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {olen}: "
                           f"[{olen}, {batch}, {cout}]")

    def fn(x, w, b):
        # PyTorch's kernel: the bias, plus for each tap k the input rows it meets times W[k].
        out = b.expand(olen, batch, cout)
        for k in range(kw):
            i_shift, o_shift = max(0, k - pad), max(0, pad - k)
            t = min(ilen + pad - k, olen) - o_shift
            if t > 0:
                part = x[i_shift:i_shift + t].matmul(w[k])
                out = out + _pad(part, (0, 0, 0, 0, o_shift, olen - o_shift - t), "constant", 0)
        return out if kw else out.clone()

    return _one_node("ConvTbcBackward0", fn, input, weight, bias)


def assert_int_or_pair(arg, arg_name, message):
    """Checks that `arg` is an int or a pair of ints (raises AssertionError
    with `message` formatted with `arg_name` otherwise). Used by `fold` / `unfold`.

    Args:
        arg: the value to check.
        arg_name: its name, for the message.
        message: a format string with one `{}` for `arg_name`.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.assert_int_or_pair((2, 3), 'kernel_size', '{} must be int or 2-tuple')
    """
    assert isinstance(arg, int) or len(arg) == 2, message.format(arg_name)


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None,
                         reduction="mean", ignore_index=None, label_smoothing=0.0,
                         options=None):
    """``cross_entropy(linear(input, W, b).reshape(N, C, *out_features), target, ...)`` with
    ``linear_weight`` of shape [C, *out_features, in_features] (the reference path), or with
    ``options=LinearCrossEntropyOptions(...)`` the same loss computed in chunks of the batch
    (see ``gradrs.nn.modules.linear_cross_entropy``), which the chunked path can only do for
    class-index targets, no label smoothing and no out_features (else it warns and takes the
    reference path, as PyTorch)."""
    import math
    import warnings

    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError("expected linear_weight with dimensionality at least 2, got "
                           f"{linear_weight.dim()}")
    num_batches = tuple(input.shape[:-1])
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError(
            "expected equal input and linear_weight last dimensions (in_features), got "
            f"{input.shape[-1]} and {linear_weight.shape[-1]}, respectively")
    num_classes = linear_weight.shape[0]
    out_features = tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")
    if len(out_features) > 0 and len(num_batches) == 0:
        raise RuntimeError(
            f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} "
            f"requires batched input, (N, {in_features}), got unbatched input with shape "
            f"{tuple(input.shape)}")
    logits_shape = (*num_batches, num_classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    ignore_index = ignore_index if ignore_index is not None else -100
    if options is not None and (out_features or reduction not in {"mean", "sum", "none"}
                                or label_smoothing != 0.0 or target.dtype != _native.int64):
        warnings.warn(
            "linear_cross_entropy: ``options`` ignored; chunked path needs reduction in "
            "{'mean','sum','none'}, label_smoothing == 0, target.dtype == int64, out_features == "
            f"(). Got reduction={reduction!r}, label_smoothing={label_smoothing}, "
            f"target.dtype={target.dtype}, out_features={tuple(out_features)}, tracing=False, "
            "linear_bias.shape="
            f"{tuple(linear_bias.shape) if linear_bias is not None else None}.", stacklevel=2)
    elif options is not None:
        from .modules.linear_cross_entropy import chunked

        has_batches = input.dim() == 2
        if not has_batches:
            input, target = input.unsqueeze(0), target.unsqueeze(0)
        options = options._adjust(num_batches=input.shape[0], in_features=in_features,
                                  num_classes=num_classes, dtype=input.dtype,
                                  device=input.device)
        result = chunked(input, linear_weight, target, linear_bias, weight, reduction,
                         ignore_index, options)
        return result if has_batches else result.squeeze(0)
    if out_features:
        linear_weight = linear_weight.reshape(
            (math.prod(out_features, start=num_classes), in_features))
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(math.prod(out_features, start=num_classes))
    logits = linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction,
                         ignore_index=ignore_index, label_smoothing=label_smoothing)


# PyTorch's *_with_indices functions return (values, indices) whatever return_indices says
# (the argument is there for the signature they share with the plain functions).
def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """2-D max pooling and the flat index (within each input plane) of every maximum."""
    return _max_pool2d_impl(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """3-D max pooling and the flat index (within each input volume) of every maximum."""
    return _max_pool3d_impl(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """1-D adaptive max pooling and the index of every maximum."""
    return _adaptive_max_pool1d_impl(input, output_size, True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """2-D adaptive max pooling and the flat index of every maximum."""
    return _adaptive_max_pool2d_impl(input, output_size, True)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """3-D adaptive max pooling and the flat index of every maximum."""
    return _adaptive_max_pool3d_impl(input, output_size, True)


# ---- PyTorch's failures on a non-tensor where a tensor goes -------------------------------
#
# Given a list, a number or None for a tensor argument, each PyTorch function fails at its
# first use of it: most in the argument parser of the native op they call, a TypeError naming
# that op and the argument's name and position there (which may differ from the function's
# own: F.embedding(input, weight) calls embedding(weight, indices)); some in Python code that
# reads an attribute first (F.softmax's `input.dim()`, the losses' `target.size()`), an
# AttributeError. Each function's spec (the second argument of its `_check_tensor_args` at the
# end of this file) says which: "op(a, b=c)" checks, in PyTorch's
# order, the native op's parameters `a` (the function's `a`) and `b` (the function's `c`), a
# parameter marked `?` taking None;
# ".attr(a, b)" reads `attr` of `a`, then of `b`. `_check_tensor_args` wraps each function so
# it fails so before running (the argument checks PyTorch runs before the native call still
# come first where both are wrong).

# F.conv1d/2d/3d are PyTorch's native ops themselves: a wrong argument gets the parser's
# listing of both overloads.
_CONV_SIGNATURES = [
    "(Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, "
    "tuple of ints padding = 0, tuple of ints dilation = 1, int groups = 1)",
    "(Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, "
    'str padding = "valid", tuple of ints dilation = 1, int groups = 1)',
]


def _check_tensor_args(fn, spec):
    """`fn` failing as PyTorch's function does where `spec` (see above) says."""
    import inspect

    from .. import _argparse

    names = list(inspect.signature(fn).parameters)
    op, _, params = spec[:-1].partition("(")
    checks = []  # (index in fn's arguments, name in fn, name in the op, position, None allowed)
    for pos, param in enumerate(params.split(", "), 1):
        native, _, own = param.rstrip("?").partition("=")
        own = own or native
        checks.append((names.index(own), own, native, pos, param.endswith("?")))
    attr = op[1:] if op.startswith(".") else None
    missing = object()

    @functools.wraps(fn)
    def checked(*args, **kwargs):
        for i, own, native, pos, optional in checks:
            value = args[i] if i < len(args) else kwargs.get(own, missing)
            if value is missing or isinstance(value, _Tensor) or (optional and value is None):
                continue
            if hasattr(type(value), "_vmap_level"):  # vmap's BatchedTensor: batching rules
                continue
            if attr is not None:
                getattr(value, attr)  # raises PyTorch's AttributeError
                continue
            raise TypeError(f"{op}(): argument '{native}' (position {pos}) must be Tensor, "
                            f"not {_argparse.type_name(value)}")
        return fn(*args, **kwargs)
    return checked


def _check_conv_args(fn, name):
    """`fn` (F.conv<n>d) failing with PyTorch's parser error on wrongly typed arguments."""
    from .. import _argparse

    @functools.wraps(fn)
    def checked(*args, **kwargs):
        given = dict(zip(("input", "weight", "bias"), args), **kwargs)
        if any(hasattr(type(v), "_vmap_level") for v in given.values()):
            return fn(*args, **kwargs)  # vmap's BatchedTensor: its batching rule
        if not (isinstance(given.get("input"), _Tensor)
                and isinstance(given.get("weight"), _Tensor)
                and (given.get("bias") is None or isinstance(given["bias"], _Tensor))):
            err = _argparse.error(name, args, kwargs, _CONV_SIGNATURES)
            if err is not None:
                raise err
        return fn(*args, **kwargs)
    return checked


def _vmap_rule(fn, rule, *extra):
    """`fn` of one input tensor under vmap: ``rule(..., fn, *extra, input, args, kwargs)``,
    its batching rule in `_vmap` (Note [vmap])."""
    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        input = args[0] if args else kwargs.get("input")
        if hasattr(type(input), "_vmap_level"):
            from .. import _vmap

            rest = dict(kwargs)
            rest.pop("input", None)
            return getattr(_vmap, rule)(fn, *extra, input, args[1:], rest)
        return fn(*args, **kwargs)
    return wrapped


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
mse_loss = _check_tensor_args(mse_loss, ".size(target, input)")
l1_loss = _check_tensor_args(l1_loss, ".size(target, input)")
smooth_l1_loss = _check_tensor_args(smooth_l1_loss, ".size(target, input)")
huber_loss = _check_tensor_args(huber_loss, ".size(target, input)")
binary_cross_entropy = _check_tensor_args(binary_cross_entropy, ".size(target, input)")
binary_cross_entropy_with_logits = _check_tensor_args(
    binary_cross_entropy_with_logits, ".size(target, input)")
kl_div = _check_tensor_args(kl_div, "kl_div(input, target)")
nll_loss = _check_tensor_args(nll_loss, "nll_loss_nd(input, target)")
cross_entropy = _check_tensor_args(cross_entropy, "cross_entropy_loss(input, target)")
linear = _check_tensor_args(linear, "linear(input, weight)")
dropout = _check_tensor_args(dropout, "dropout(input)")
one_hot = _check_tensor_args(one_hot, "one_hot(input=tensor)")
embedding = _check_tensor_args(embedding, "embedding(weight, indices=input)")
pad = _check_tensor_args(pad, "pad(input)")
conv2d = _check_conv_args(conv2d, "conv2d")
conv1d = _check_conv_args(conv1d, "conv1d")
max_pool2d = _vmap_rule(_check_tensor_args(max_pool2d, "max_pool2d(input)"), "spatial", 2)
max_pool1d = _vmap_rule(_check_tensor_args(max_pool1d, "max_pool1d(input)"), "spatial", 1)
avg_pool1d = _vmap_rule(_check_tensor_args(avg_pool1d, "avg_pool1d(input)"), "spatial", 1)
avg_pool2d = _vmap_rule(_check_tensor_args(avg_pool2d, "avg_pool2d(input)"), "spatial", 2)
adaptive_avg_pool2d = _vmap_rule(_check_tensor_args(
    adaptive_avg_pool2d, ".size(input)"), "spatial", 2)
layer_norm = _check_tensor_args(layer_norm, "layer_norm(input)")
batch_norm = _check_tensor_args(
    batch_norm, "batch_norm(input, weight?, bias?, running_mean?, running_var?)")
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
logsigmoid = _check_tensor_args(logsigmoid, "log_sigmoid(input)")
prelu = _check_tensor_args(prelu, "prelu(input, weight)")
rrelu = _check_tensor_args(rrelu, "rrelu(input)")
rrelu_ = _check_tensor_args(rrelu_, "rrelu_(input)")
alpha_dropout = _check_tensor_args(alpha_dropout, "alpha_dropout(input)")
feature_alpha_dropout = _check_tensor_args(feature_alpha_dropout, "feature_alpha_dropout(input)")
conv3d = _check_conv_args(conv3d, "conv3d")
conv_transpose1d = _check_tensor_args(conv_transpose1d, "conv_transpose1d(input, weight)")
conv_transpose2d = _check_tensor_args(conv_transpose2d, "conv_transpose2d(input, weight)")
bilinear = _check_tensor_args(bilinear, "bilinear(input1, input2, weight)")
adaptive_max_pool2d = _vmap_rule(_check_tensor_args(
    adaptive_max_pool2d, ".size(input)"), "spatial", 2)
adaptive_max_pool1d = _vmap_rule(_check_tensor_args(
    adaptive_max_pool1d, "adaptive_max_pool1d(input)"), "spatial", 1)
adaptive_avg_pool1d = _vmap_rule(_check_tensor_args(
    adaptive_avg_pool1d, "adaptive_avg_pool1d(input)"), "spatial", 1)
max_pool1d_with_indices = _check_tensor_args(
    max_pool1d_with_indices, "max_pool1d_with_indices(input)")
lp_pool2d = _vmap_rule(lp_pool2d, "spatial", 2)
lp_pool1d = _vmap_rule(lp_pool1d, "spatial", 1)
channel_shuffle = _check_tensor_args(channel_shuffle, "channel_shuffle(input)")
native_channel_shuffle = _check_tensor_args(
    native_channel_shuffle, "native_channel_shuffle(input)")
relu_ = _check_tensor_args(relu_, "relu_(input)")
elu_ = _check_tensor_args(elu_, "elu_(input)")
leaky_relu_ = _check_tensor_args(leaky_relu_, "leaky_relu_(input)")
hardtanh_ = _check_tensor_args(hardtanh_, "hardtanh_(input)")
rms_norm = _check_tensor_args(rms_norm, "rms_norm(input)")
interpolate = _vmap_rule(interpolate, "spatial", None)
grid_sample = _check_tensor_args(grid_sample, "grid_sampler(input, grid)")
pixel_shuffle = _check_tensor_args(pixel_shuffle, "pixel_shuffle(input)")
pixel_unshuffle = _check_tensor_args(pixel_unshuffle, "pixel_unshuffle(input)")
unfold = _vmap_rule(_check_tensor_args(unfold, "im2col(input)"), "spatial", 2)
fold = _vmap_rule(_check_tensor_args(fold, "col2im(input)"), "spatial", 1)
pairwise_distance = _check_tensor_args(pairwise_distance, "pairwise_distance(x1, x2)")
pdist = _check_tensor_args(pdist, "pdist(input)")
gumbel_softmax = _check_tensor_args(gumbel_softmax, "empty_like(input=logits)")
cosine_similarity = _check_tensor_args(cosine_similarity, "cosine_similarity(x1, x2)")
soft_margin_loss = _check_tensor_args(soft_margin_loss, "soft_margin_loss(input, target)")
hinge_embedding_loss = _check_tensor_args(
    hinge_embedding_loss, "hinge_embedding_loss(input, target)")
cosine_embedding_loss = _check_tensor_args(
    cosine_embedding_loss, "cosine_embedding_loss(input1, input2, target)")
triplet_margin_loss = _check_tensor_args(
    triplet_margin_loss, "triplet_margin_loss(anchor, positive, negative)")
triplet_margin_with_distance_loss = _check_tensor_args(
    triplet_margin_with_distance_loss, ".ndim(anchor, positive, negative)")
poisson_nll_loss = _check_tensor_args(poisson_nll_loss, "poisson_nll_loss(input, target)")
gaussian_nll_loss = _check_tensor_args(gaussian_nll_loss, "ones_like(input)")
multi_margin_loss = _check_tensor_args(multi_margin_loss, "multi_margin_loss(input, target)")
multilabel_margin_loss = _check_tensor_args(
    multilabel_margin_loss, "multilabel_margin_loss(input, target)")
multilabel_soft_margin_loss = _check_tensor_args(multilabel_soft_margin_loss, "log_sigmoid(input)")
scaled_dot_product_attention = _check_tensor_args(
    scaled_dot_product_attention, "scaled_dot_product_attention(query, key, value)")
max_pool3d = _vmap_rule(_check_tensor_args(max_pool3d, "max_pool3d(input)"), "spatial", 3)
avg_pool3d = _vmap_rule(_check_tensor_args(avg_pool3d, "avg_pool3d(input)"), "spatial", 3)
adaptive_avg_pool3d = _vmap_rule(adaptive_avg_pool3d, "spatial", 3)
adaptive_max_pool3d = _vmap_rule(adaptive_max_pool3d, "spatial", 3)
lp_pool3d = _vmap_rule(lp_pool3d, "spatial", 3)
conv_transpose3d = _check_tensor_args(conv_transpose3d, "conv_transpose3d(input, weight)")
max_pool2d_with_indices = _check_tensor_args(
    max_pool2d_with_indices, "max_pool2d_with_indices(input)")
max_pool3d_with_indices = _check_tensor_args(max_pool3d_with_indices, ".is_cuda(input)")
adaptive_max_pool1d_with_indices = _check_tensor_args(
    adaptive_max_pool1d_with_indices, "adaptive_max_pool1d(input)")
adaptive_max_pool2d_with_indices = _check_tensor_args(
    adaptive_max_pool2d_with_indices, ".size(input)")
