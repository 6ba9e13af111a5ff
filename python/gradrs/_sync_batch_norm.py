"""The batch-normalization kernels `torch.nn.SyncBatchNorm` is written with
(`torch/nn/modules/_functions.py`): per-process statistics (`batch_norm_stats`), their merge
over processes (`batch_norm_gather_stats[_with_counts]`, Chan's parallel variance as ATen's
`batch_norm_reduce_statistics_kernel`), the normalization (`batch_norm_elemt`), the two
per-channel sums of the backward (`batch_norm_backward_reduce`) and the input gradient from the
all-reduced sums (`batch_norm_backward_elemt`), and `batch_norm_update_stats`.

PyTorch has all but `batch_norm_update_stats` on CUDA only; gradrs computes them on every
device with the CUDA kernels' formulas. None has a derivative in PyTorch (SyncBatchNorm's
Function writes its own backward): their outputs get PyTorch's `NotImplemented` node, whose
backward raises.
"""

from __future__ import annotations

from . import _native
from ._grad_mode import no_grad
from ._native import Tensor

__all__ = [
    "batch_norm_stats", "batch_norm_elemt", "batch_norm_gather_stats",
    "batch_norm_gather_stats_with_counts", "batch_norm_update_stats",
    "batch_norm_backward_reduce", "batch_norm_backward_elemt",
]


def _not_differentiable(op, outputs, inputs):
    """`outputs` (tensors or None) get one `NotImplemented` node over `inputs` when one of
    them requires grad, as PyTorch's ops without a derivatives.yaml entry."""
    tensors = [t if isinstance(t, Tensor) else None for t in inputs]
    live = [o if isinstance(o, Tensor) and o.dtype.is_floating_point else None for o in outputs]
    if (_native.is_grad_enabled() and any(t is not None and t.requires_grad for t in tensors)
            and any(o is not None for o in live)):

        def backward(grads):
            raise RuntimeError(f"derivative for aten::{op} is not implemented")

        _native._attach_node(live, tensors, "NotImplemented", backward, save_inputs=())
    return outputs


def _acc(input):
    """The statistics' dtype: float32 for half-precision inputs (ATen's accumulate type)."""
    return _native.float32 if input.dtype in (_native.float16, _native.bfloat16) else input.dtype


def _dims(input):
    if input.dim() < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[-{max(input.dim(), 1)}, {max(input.dim(), 1) - 1}], but got 1)")
    return [0] + list(range(2, input.dim()))


def _channel(v, input):
    return v.reshape([1, -1] + [1] * (input.dim() - 2))


def batch_norm_stats(input, eps):
    """Per-channel ``(mean, invstd)`` of `input` ([N, C, *]) over every dimension but the
    channel: the biased variance's ``1 / sqrt(var + eps)``.

    Examples:
        >>> x = gradrs.tensor([[1.0, 2.0], [3.0, 6.0]])
        >>> gradrs.batch_norm_stats(x, 0.0)
        (tensor([2., 4.]), tensor([1.0000, 0.5000]))
    """
    dims = _dims(input)
    with no_grad():
        x = input.to(_acc(input))
        mean = x.mean(dims)
        invstd = (x.var(dims, unbiased=False) + eps).rsqrt()
    return _not_differentiable("batch_norm_stats", (mean, invstd), (input,))


def batch_norm_elemt(input, weight, bias, mean, invstd, eps):
    """``(input - mean) * invstd * weight + bias`` with per-channel vectors (weight and bias
    may be None; `eps` is not read, `invstd` has it).

    Examples:
        >>> x = gradrs.tensor([[1.0, 2.0], [3.0, 6.0]])
        >>> m, s = gradrs.batch_norm_stats(x, 0.0)
        >>> gradrs.batch_norm_elemt(x, None, None, m, s, 0.0)
        tensor([[-1., -1.],
                [ 1.,  1.]])
    """
    with no_grad():
        out = (input - _channel(mean, input)) * _channel(invstd, input)
        if weight is not None:
            out = out * _channel(weight, input)
        if bias is not None:
            out = out + _channel(bias, input)
        out = out.to(input.dtype)
    return _not_differentiable("batch_norm_elemt", (out,), (input, weight, bias, mean,
                                                             invstd))[0]


def batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean, running_var,
                                        momentum, eps, counts):
    """Merges the per-process statistics `mean` / `invstd` ([world, C]) of `counts` elements
    each into the global ``(mean, invstd)``, updating `running_mean` (with the mean) and
    `running_var` (with the unbiased variance) by `momentum` in place.

    Examples:
        >>> means = gradrs.tensor([[0.0], [2.0]])
        >>> invstds = gradrs.tensor([[1.0], [1.0]])
        >>> gradrs.batch_norm_gather_stats_with_counts(
        ...     gradrs.ones(2, 1), means, invstds, None, None, 0.1, 0.0, gradrs.tensor([1.0, 1.0]))
        (tensor([1.]), tensor([0.7071]))
    """
    with no_grad():
        acc = mean.dtype
        counts = counts.to(acc)
        # ATen's loop over the processes, vectorized over the channels
        avg = _native.zeros(mean.shape[1:], dtype=acc, device=mean.device)
        var_n = _native.zeros_like(avg)
        n = _native.zeros((), dtype=acc, device=mean.device)
        for j in range(mean.shape[0]):
            count = counts[j]
            m = mean[j]
            v = invstd[j].reciprocal()
            v = (v * v - eps) * count
            factor = 1.0 / (n + count)
            var_n = var_n + v + (avg - m) * (avg - m) * n * count * factor
            avg = n * factor * avg + count * factor * m
            n = n + count
        save_invstd = (var_n / n + eps).rsqrt()
        if running_mean is not None:
            running_mean.data.copy_(momentum * avg + (1 - momentum) * running_mean)
        if running_var is not None:
            unbiased = var_n / (n - 1)
            running_var.data.copy_(momentum * unbiased + (1 - momentum) * running_var)
    return _not_differentiable("batch_norm_gather_stats_with_counts", (avg, save_invstd),
                               (input, mean, invstd, running_mean, running_var, counts))


def batch_norm_gather_stats(input, mean, invstd, running_mean, running_var, momentum, eps,
                            count):
    """:func:`batch_norm_gather_stats_with_counts` with the same `count` for every process.

    Examples:
        >>> means = gradrs.tensor([[0.0], [2.0]])
        >>> invstds = gradrs.tensor([[1.0], [1.0]])
        >>> gradrs.batch_norm_gather_stats(gradrs.ones(2, 1), means, invstds, None, None,
        ...                                0.1, 0.0, 1)
        (tensor([1.]), tensor([0.7071]))
    """
    counts = _native.full((mean.shape[0],), count, dtype=mean.dtype, device=mean.device)
    return batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean, running_var,
                                               momentum, eps, counts)


def batch_norm_update_stats(input, running_mean, running_var, momentum):
    """Per-channel ``(mean, var)`` of `input` (the biased variance), updating `running_mean`
    and `running_var` (with the unbiased variance) by `momentum` in place; PyTorch's CPU
    kernel, which counts no version of the running statistics.

    Examples:
        >>> x = gradrs.tensor([[1.0, 2.0], [3.0, 6.0]])
        >>> gradrs.batch_norm_update_stats(x, None, None, 0.1)
        (tensor([2., 4.]), tensor([1., 4.]))
    """
    dims = _dims(input)
    with no_grad():
        x = input.to(_acc(input))
        mean = x.mean(dims)
        var = x.var(dims, unbiased=False)
        n = input.numel() // input.shape[1]
        if running_mean is not None:
            running_mean.data.copy_(momentum * mean + (1 - momentum) * running_mean)
        if running_var is not None:
            unbiased = x.var(dims, unbiased=True) if n > 1 else var * float("inf")
            running_var.data.copy_(momentum * unbiased + (1 - momentum) * running_var)
        mean, var = mean.to(input.dtype), var.to(input.dtype)
    return _not_differentiable("batch_norm_update_stats", (mean, var),
                               (input, running_mean, running_var))


def batch_norm_backward_reduce(grad_out, input, mean, invstd, weight, input_g, weight_g,
                               bias_g):
    """The per-channel sums of batch normalization's backward: ``(sum_dy, sum_dy_xmu,
    grad_weight, grad_bias)`` with ``sum_dy = sum(grad_out)``, ``sum_dy_xmu = sum(grad_out *
    (input - mean))``, ``grad_weight = sum_dy_xmu * invstd`` and ``grad_bias = sum_dy``; each
    is None unless its flag (`input_g` for the first two) asks for it.

    Examples:
        >>> x = gradrs.tensor([[1.0], [3.0]])
        >>> gradrs.batch_norm_backward_reduce(gradrs.ones(2, 1), x, gradrs.tensor([2.0]),
        ...                                   gradrs.tensor([1.0]), None, True, False, True)
        (tensor([2.]), tensor([0.]), None, tensor([2.]))
    """
    dims = _dims(input)
    with no_grad():
        dy = grad_out.to(mean.dtype)
        sum_dy = dy.sum(dims)
        sum_dy_xmu = (dy * (input.to(mean.dtype) - _channel(mean, input))).sum(dims)
        kind = input.dtype if weight is None else weight.dtype
        grad_weight = (sum_dy_xmu * invstd).to(kind) if weight_g else None
        grad_bias = sum_dy.to(kind) if bias_g else None
    outs = (sum_dy if input_g else None, sum_dy_xmu if input_g else None, grad_weight,
            grad_bias)
    return _not_differentiable("batch_norm_backward_reduce", outs,
                               (grad_out, input, mean, invstd, weight))


def batch_norm_backward_elemt(grad_out, input, mean, invstd, weight, sum_dy, sum_dy_xmu,
                              count):
    """The input gradient of batch normalization from the all-reduced sums: with
    ``n = count.sum()``, ``(grad_out - sum_dy / n - (input - mean) * invstd**2 * sum_dy_xmu /
    n) * invstd * weight``.

    Examples:
        >>> x = gradrs.tensor([[1.0], [3.0]])
        >>> gradrs.batch_norm_backward_elemt(
        ...     gradrs.tensor([[1.0], [0.0]]), x, gradrs.tensor([2.0]), gradrs.tensor([1.0]),
        ...     None, gradrs.tensor([1.0]), gradrs.tensor([-1.0]), gradrs.tensor([2]))
        tensor([[0.],
                [0.]])
    """
    with no_grad():
        acc = mean.dtype
        norm = 1.0 / count.to(acc).sum()
        mean_dy = _channel(sum_dy * norm, input)
        factor_1 = _channel(invstd * invstd * sum_dy_xmu * norm, input)
        factor_2 = invstd if weight is None else invstd * weight.to(acc)
        out = ((grad_out.to(acc) - mean_dy - (input.to(acc) - _channel(mean, input)) * factor_1)
               * _channel(factor_2, input)).to(input.dtype)
    return _not_differentiable("batch_norm_backward_elemt", (out,),
                               (grad_out, input, mean, invstd, weight, sum_dy, sum_dy_xmu))[0]
