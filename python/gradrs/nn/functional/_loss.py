"""Loss functions of `gradrs.nn.functional` (regression, likelihood and classification):
mse / l1 / smooth_l1 / huber, binary_cross_entropy (with logits), kl_div, nll_loss,
cross_entropy, poisson / gaussian nll, ctc_loss, linear_cross_entropy.
"""

from __future__ import annotations

import functools

from ... import _native
from ..._native import Tensor as _Tensor
from ._helpers import _check_tensor_args, _INF, _live_tangent, _one_node, _scalar_name
from ._linear import linear
from ._padding import _pad
from ..._ops._common import _forward_tangent


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


def _floating_kernel(name, input, target):
    """ATen's pointwise loss kernels (mse_cpu, smooth_l1_cpu, huber_cpu) are dispatched on the
    promoted dtype for floating types only."""
    if not (input.is_floating_point() or target.is_floating_point()
            or input.is_complex() or target.is_complex()):
        from ... import promote_types

        raise NotImplementedError(f'"{name}" not implemented for '
                                  f"'{_scalar_name(promote_types(input.dtype, target.dtype))}'")


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
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_same_size(input, target, "mse_loss")
    if weight is not None:  # composed in PyTorch too
        _check_weight(input, weight)
        return _weighted((input - target) ** 2, weight, reduction)
    _reduction_code(reduction)
    if weight is None:
        _floating_kernel("mse_cpu", input, target)
    return _one_node("MseLossBackward0", lambda x, t: _reduce((x - t) ** 2, reduction),
                     input, target, saved=lambda: [("reduction", _reduction_code(reduction)),
                                                   ("self", input), ("target", target)])


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
    reduction = _legacy_reduction(size_average, reduce, reduction)
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
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    _check_same_size(input, target, "smooth_l1_loss")
    _reduction_code(reduction)
    if beta == 0:  # PyTorch's l1_loss, composed
        return _reduce((input - target).abs(), reduction)
    from ... import where

    def loss(x, t):
        d = (x - t).abs()
        return _reduce(where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta), reduction)

    _floating_kernel("smooth_l1_cpu", input, target)
    return _one_node("SmoothL1LossBackward0", loss, input, target, saved=lambda: [
        ("beta", float(beta)), ("reduction", _reduction_code(reduction)), ("self", input),
        ("target", target)])


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
    from ... import where

    def pointwise(x, t):
        d = (x - t).abs()
        return where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))

    _reduction_code(reduction)
    if weight is not None:  # PyTorch weights the unreduced loss
        _check_weight(input, weight)
        loss = _one_node("HuberLossBackward0", pointwise, input, target,
                         saved=lambda: _huber_saved(input, target, "none", delta))
        return _reduce(loss * weight, reduction)
    _floating_kernel("huber_cpu", input, target)
    return _one_node("HuberLossBackward0", lambda x, t: _reduce(pointwise(x, t), reduction),
                     input, target, saved=lambda: _huber_saved(input, target, reduction, delta))


def _huber_saved(input, target, reduction, delta):
    return [("delta", float(delta)), ("reduction", _reduction_code(reduction)), ("self", input),
            ("target", target)]


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
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}) is deprecated. Please ensure they have the same size."
        )
    _reduction_code(reduction)
    if any(hasattr(type(t), "_vmap_level") for t in (input, target, weight)):
        from ... import _vmap  # under vmap: its batching rule (Note [vmap])
        return _vmap.elementwise_loss(binary_cross_entropy, input, target, weight, reduction)
    if target.dtype != input.dtype:
        # ATen's kernel is a TensorIterator over input and target of one dtype
        raise RuntimeError(f"Found dtype {_scalar_name(target.dtype)} but expected "
                           f"{_scalar_name(input.dtype)}")
    if bool(((input < 0) | (input > 1)).any()):
        raise RuntimeError("all elements of input should be between 0 and 1")

    def bce(x, t, w):
        # PyTorch clamps the logs at -100 so that 0 * log(0) stays finite.
        node = _native.is_grad_enabled() and (x.requires_grad or t.requires_grad)
        dual = _live_tangent(x) is not None or _live_tangent(t) is not None
        xd, td = (x.detach(), t.detach()) if node or dual else (x, t)
        loss = -(td * xd.log().clamp(min=-100) + (1 - td) * (1 - xd).log().clamp(min=-100))
        if node:
            # derivatives.yaml's formulas (binary_cross_entropy_backward / _target_backward):
            # finite where x is 0 or 1 (the logs' autograd gave 0 * inf = nan there)
            def backward(g):
                gx = (g * (x - t) / ((1 - x) * x).clamp(min=_BCE_EPSILON)
                      if x.requires_grad else None)
                gt = -g * x.logit() if t.requires_grad else None
                return [gx, gt]

            _native._attach_node(loss, [x, t], "BinaryCrossEntropyBackward0", backward)
        if dual:  # derivatives.yaml's forward formula (the weight and reduction applied after)
            _forward_tangent(loss, [x, t], lambda x_t, t_t: (
                x_t * (x - t) / ((1 - x) * x).clamp(min=_BCE_EPSILON) + -x.logit() * t_t))
        return _reduce(loss * w if w is not None else loss, reduction)

    return _one_node("BinaryCrossEntropyBackward0", bce, input, target, weight, saved=lambda: [
        ("reduction", _reduction_code(reduction)), ("self", input), ("target", target),
        ("weight", _optional(weight))])


# ATen's `static const float EPSILON = 1e-12` (Loss.cpp): float32's 1e-12, also for float64
_BCE_EPSILON = 9.999999960041972e-13


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
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(
            f"Target size ({target.shape}) must be the same as input size ({input.shape})"
        )
    _reduction_code(reduction)
    if not target.is_floating_point() and input.is_floating_point():
        # ATen computes (1 - target).mul_(input): in place into the target's dtype
        if target.dtype == _native.bool:
            raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                               "supported. Use the `^` or `logical_xor()` operator instead.")
        raise RuntimeError(f"result type {_scalar_name(input.dtype)} can't be cast to the "
                           f"desired output type {_scalar_name(target.dtype)}")

    def bce(x, t, w, pw):
        # log(1 + exp(-|x|)) + max(-x, 0): stable for large |x|. max(-x, 0) is written
        # (|x| - x) / 2 (the same bits) so that at x = 0 its derivative is -1/2 and the
        # gradient sigmoid(x) - t, as PyTorch's formula (clamp's would pass -1: -t).
        softplus_neg = (-x.abs()).exp().log1p() + (x.abs() - x) / 2
        if pw is not None:
            loss = (1 - t) * x + (1 + (pw - 1) * t) * softplus_neg
        else:
            loss = (1 - t) * x + softplus_neg
        # ATen's loss is (1 - target).mul_(input)..., in place: the target's dtype
        loss = loss if loss.dtype == t.dtype else loss.to(t.dtype)
        if w is not None:
            loss = loss * w
            loss = loss if loss.dtype == t.dtype else loss.to(t.dtype)
        return _reduce(loss, reduction)

    return _one_node("BinaryCrossEntropyWithLogitsBackward0", bce, input, target, weight,
                     pos_weight, saved=lambda: [
                         ("pos_weight", _optional(pos_weight)),
                         ("reduction", _reduction_code(reduction)), ("self", input),
                         ("target", target), ("weight", _optional(weight))])


def _optional(t):
    """An optional tensor argument in a node's `saved`: None is PyTorch's undefined saved
    variable (`_saved_<name>` None, `_raw_saved_<name>` refusing hooks)."""
    return ... if t is None else t


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
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if reduction == "mean":
        import warnings

        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support "
            "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
            "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
            "major release.",
            stacklevel=2,
        )
    if not (input.is_floating_point() or input.is_complex()) or not (
            target.is_floating_point() or target.is_complex()):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        loss = target.exp() * (target - input)
    else:
        from ... import where

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


def _sizes(t):
    return "[" + ", ".join(str(n) for n in t.shape) + "]"


def _class_target(input, target, weight):
    """ATen's nll_loss_nd checks on a class-index target, in its order: the dimensions and
    batch sizes, then the kernel's (nll_loss for 1-D / 2-D inputs, nll_loss2d for the others,
    read as 4-D): the target's rank, its dtype (Long, or Byte, which the 1-D / 2-D kernel reads
    as Long), the weight's size, the spatial sizes."""
    d = input.dim()
    if d < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {d})")
    if d != 1:
        batch = target.shape[0] if target.dim() > 0 else 0
        if input.shape[0] != batch:
            raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                             f"batch_size ({batch}).")
    if d > 2 and d != 4 and tuple(target.shape[1:]) != tuple(input.shape[2:]):
        expected = "[" + ", ".join(str(n) for n in (input.shape[0], *input.shape[2:])) + "]"
        raise RuntimeError(f"Expected target size {expected}, got {_sizes(target)}")
    if d <= 2 and target.dim() > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if d == 4 and target.dim() != 3:
        raise RuntimeError("only batches of spatial targets supported (3D tensors) but got "
                           f"targets of dimension: {target.dim()}")
    if target.dtype not in (_native.int64, _native.uint8):
        raise RuntimeError("expected target dtype to be Long or Byte, but got "
                           f"{_scalar_name(target.dtype)}")
    if target.dtype == _native.uint8 and d > 2:
        raise RuntimeError("expected scalar type Long but found Byte")
    c = input.shape[0 if d == 1 else 1]
    if weight is not None and d <= 2 and (weight.dim() != 1 or weight.numel() != c):
        raise RuntimeError(f"weight tensor should be defined either for all {c} classes or no "
                           f"classes but got weight tensor of shape: {_sizes(weight)}")
    if weight is not None and d > 2 and weight.numel() != c:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    if d == 4 and tuple(target.shape) != (input.shape[0], *input.shape[2:]):
        raise RuntimeError(f"size mismatch (got input: {_sizes(input)} , target: "
                           f"{_sizes(target)}")
    return target.long() if target.dtype == _native.uint8 else target


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
    reduction = _legacy_reduction(size_average, reduce, reduction)
    code = _reduction_code(reduction)
    if any(hasattr(type(t), "_vmap_level") for t in (input, target, weight)):
        from ... import _vmap  # under vmap: its batching rule (Note [vmap])
        return _vmap.nll_loss(input, target, weight, ignore_index, ("none", "mean", "sum")[code])
    target = _class_target(input, target, weight)
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
    reduction = _legacy_reduction(size_average, reduce, reduction)
    code = _reduction_code(reduction)
    if any(hasattr(type(t), "_vmap_level") for t in (input, target, weight)):
        from ... import _vmap  # under vmap: its batching rule (Note [vmap])
        if not 0.0 <= label_smoothing <= 1.0:
            raise RuntimeError(
                f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}"
            )
        return _vmap.cross_entropy(input, target, weight, ignore_index,
                                   ("none", "mean", "sum")[code], label_smoothing)
    # ATen's cross_entropy_loss: a target of the input's shape holds class probabilities
    # (floating point, no ignore_index), any other one class indices; a label_smoothing
    # above 1 is refused, one of 0 or below is no smoothing.
    probabilities = tuple(target.shape) == tuple(input.shape)
    if probabilities:
        if not target.is_floating_point():
            raise RuntimeError("Expected floating point type for target with class "
                               f"probabilities, got {_scalar_name(target.dtype)}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    label_smoothing = max(label_smoothing, 0.0)
    class_dim = 0 if input.dim() == 1 else 1
    logp = input.log_softmax(class_dim)
    c = input.shape[class_dim]
    if probabilities:
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
    from ... import arange

    return arange(c, device=device)


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

    from ... import no_grad, ones_like

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


def _safe_logsumexp(xs):
    """log(sum(exp(x))) over the stacked `xs`, -inf where every term is -inf, with a zero (not
    NaN) gradient there: the CTC recursion meets such all-impossible states everywhere."""
    from ... import stack, where

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

    from ... import float64, tensor, where

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
        from ..modules.linear_cross_entropy import chunked

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


# Each function wrapped as PyTorch's fails (`_check_tensor_args` with its spec,
# `_check_conv_args`) and batched by its vmap rule (`_vmap_rule`): one static name each.
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
poisson_nll_loss = _check_tensor_args(poisson_nll_loss, "poisson_nll_loss(input, target)")
gaussian_nll_loss = _check_tensor_args(gaussian_nll_loss, "ones_like(input)")
