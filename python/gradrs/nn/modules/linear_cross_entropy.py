"""The chunked path of F.linear_cross_entropy (options=LinearCrossEntropyOptions(...)).

The batch runs in chunks of rows, so only a (chunk, classes) block of logits exists at a time.
For the scalar reductions ("mean", "sum") forward also computes every gradient, chunk by
chunk, and backward scales them by the upstream gradient (PyTorch's custom op
`torch_nn::_linear_cross_entropy_batch_chunked`: once, unless `allow_retain_graph`); for
"none" backward recomputes them with the per-row upstream gradient
(`..._batch_chunked_no_reduction`). The loss is PyTorch's: with w the class weight of each
row's target (0 where the target is `ignore_index`), sum w * (logsumexp(logits) - logit of
the target), over sum w for "mean".
"""

from __future__ import annotations

from ... import _native
from ...autograd import Function
from .. import functional as F

_TWICE = ("linear_cross_entropy chunked backward called twice; retain_graph=True / double "
          "backward are not supported.")


def _accumulate(input, linear_weight, target, linear_bias, weight, reduction, ignore_index,
                batch_chunk_size, acc_dtype, compute_input_grad, compute_linear_weight_grad,
                compute_linear_bias_grad, loss_grad_output=None):
    """(loss, grad_input, grad_linear_weight, grad_linear_bias), computed chunk by chunk in
    `acc_dtype` (grads None where not asked for). With "none" and no `loss_grad_output`, the
    per-row losses; with one, the gradients of sum(loss_grad_output * loss)."""
    if target.dtype != _native.int64:
        raise TypeError("linear_cross_entropy: target dtype must be gradrs.int64, got "
                        f"{target.dtype}.")
    if reduction not in {"mean", "sum", "none"}:
        raise NotImplementedError(f"linear_cross_entropy does not support reduction={reduction!r}")
    dtype = input.dtype
    if dtype != acc_dtype and not (dtype == _native.float16 and acc_dtype == _native.float32):
        raise RuntimeError(
            "linear_cross_entropy supports float32 acc_dtype with float16/bfloat16 inputs, but "
            f"got {acc_dtype} acc_dtype and {dtype} inputs.")
    num_batches = input.shape[0]
    num_classes = linear_weight.shape[0]
    mask = target == ignore_index
    safe_target = target
    if ignore_index < 0 or ignore_index >= num_classes:
        safe_target = _native.where(mask, 0, target)  # ignored rows index class 0, weighted 0
    if weight is None:
        row_weight = (~mask).to(acc_dtype)
    else:
        row_weight = _native.where(mask, 0.0, weight.index_select(0, safe_target).to(acc_dtype))
    if reduction == "mean":
        total = row_weight.sum()
        coef = row_weight / _native.where(total == 0, total * float("nan"), total)
    elif reduction == "sum" or loss_grad_output is None:
        coef = row_weight
    else:
        coef = row_weight * loss_grad_output.to(acc_dtype)
    losses_only = reduction == "none" and loss_grad_output is None
    compute = not losses_only and (compute_input_grad or compute_linear_weight_grad
                                   or compute_linear_bias_grad)
    w = linear_weight.to(acc_dtype)
    b = None if linear_bias is None else linear_bias.to(acc_dtype)
    out_rows, total_loss = [], _native.zeros((), dtype=acc_dtype, device=input.device)
    grad_rows = []
    grad_w = _native.zeros(w.shape, dtype=acc_dtype, device=w.device) \
        if compute and compute_linear_weight_grad else None
    grad_b = _native.zeros((num_classes,), dtype=acc_dtype, device=w.device) \
        if compute and compute_linear_bias_grad else None
    for start in range(0, num_batches, batch_chunk_size):
        rows = min(batch_chunk_size, num_batches - start)
        x = input.narrow(0, start, rows).to(acc_dtype)
        t = safe_target.narrow(0, start, rows)
        c = coef.narrow(0, start, rows)
        logits = F.linear(x, w, b)
        logits = logits - logits.amax(1, keepdim=True)  # softmax stability
        exp = logits.exp()
        sumexp = exp.sum(1)
        row_loss = sumexp.log() - logits.gather(1, t.unsqueeze(1)).squeeze(1)
        if losses_only:
            out_rows.append(row_loss * c)
            continue
        total_loss = total_loss + (row_loss * c).sum()
        if compute:
            # d loss / d logits = c * (softmax - one_hot(target))
            dlogits = (exp / sumexp.unsqueeze(1) - F.one_hot(t, num_classes).to(acc_dtype)) \
                * c.unsqueeze(1)
            if compute_input_grad:
                grad_rows.append(dlogits.matmul(w))
            if grad_w is not None:
                grad_w = grad_w + dlogits.t().matmul(x)
            if grad_b is not None:
                grad_b = grad_b + dlogits.sum(0)
    if losses_only:
        loss = _native.cat(out_rows) if out_rows else \
            _native.zeros((0,), dtype=acc_dtype, device=input.device)
        return loss.to(dtype), None, None, None
    if reduction == "mean" and num_batches == 0:
        total_loss = total_loss + float("nan")
    grad_input = None
    if compute and compute_input_grad:
        grad_input = _native.cat(grad_rows).to(dtype) if grad_rows else \
            _native.zeros(input.shape, dtype=dtype, device=input.device)
    return (total_loss.to(dtype), grad_input,
            None if grad_w is None else grad_w.to(dtype),
            None if grad_b is None else grad_b.to(dtype))


class GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_default(Function):  # noqa: N801
    """"mean" / "sum": the loss and the gradients in forward, scaled in backward. (Named as
    PyTorch's custom op's autograd node, which `grad_fn` shows.)"""

    @staticmethod
    def forward(ctx, input, linear_weight, target, linear_bias, weight, reduction, ignore_index,
                batch_chunk_size, acc_dtype, allow_retain_graph, compute_input_grad,
                compute_linear_weight_grad, compute_linear_bias_grad):
        loss, gi, gw, gb = _accumulate(
            input, linear_weight, target, linear_bias, weight, reduction, ignore_index,
            batch_chunk_size, acc_dtype, compute_input_grad, compute_linear_weight_grad,
            compute_linear_bias_grad)
        ctx.grads = [gi, gw, gb]
        ctx.computed = (compute_input_grad, compute_linear_weight_grad, compute_linear_bias_grad)
        ctx.allow_retain_graph = allow_retain_graph
        return loss

    @staticmethod
    def backward(ctx, grad_output):
        result = [None] * 13
        for k, slot in enumerate((0, 1, 3)):  # input, linear_weight, linear_bias
            if not ctx.computed[k]:
                continue
            g = ctx.grads[k]
            if not ctx.allow_retain_graph:
                ctx.grads[k] = None  # consumed: a second backward raises
                if g is None:
                    raise RuntimeError(_TWICE)
            result[slot] = g * grad_output
        return tuple(result)


class GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_no_reduction_default(  # noqa: N801
        Function):
    """"none": the per-row losses in forward; backward recomputes the gradients chunk by
    chunk with the per-row upstream gradient (so it may run again)."""

    @staticmethod
    def forward(ctx, input, linear_weight, target, linear_bias, weight, ignore_index,
                batch_chunk_size, acc_dtype):
        ctx.save_for_backward(input.detach(), linear_weight.detach(), target,
                              None if linear_bias is None else linear_bias.detach(),
                              None if weight is None else weight.detach())
        ctx.options = (ignore_index, batch_chunk_size, acc_dtype)
        return _accumulate(input, linear_weight, target, linear_bias, weight, "none",
                           ignore_index, batch_chunk_size, acc_dtype, False, False, False)[0]

    @staticmethod
    def backward(ctx, grad_output):
        input, linear_weight, target, linear_bias, weight = ctx.saved_tensors
        needs = ctx.needs_input_grad
        want = (needs[0], needs[1], linear_bias is not None and needs[3])
        result = [None] * 8
        if not any(want):
            return tuple(result)
        ignore_index, batch_chunk_size, acc_dtype = ctx.options
        _, gi, gw, gb = _accumulate(input, linear_weight, target, linear_bias, weight, "none",
                                    ignore_index, batch_chunk_size, acc_dtype, *want,
                                    loss_grad_output=grad_output)
        result[0], result[1], result[3] = gi, gw, gb
        return tuple(result)


def chunked(input, linear_weight, target, linear_bias, weight, reduction, ignore_index,
            options):
    """F.linear_cross_entropy's chunked path for a 1-D or 2-D input and class-index targets;
    `options` resolved by `_adjust`."""
    from ..._grad_mode import is_grad_enabled

    if reduction == "none":
        return GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_no_reduction_default.apply(  # noqa: E501
            input, linear_weight, target, linear_bias, weight, ignore_index,
            options.batch_chunk_size, options.acc_dtype)
    grad = is_grad_enabled()
    return GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_default.apply(
        input, linear_weight, target, linear_bias, weight, reduction, ignore_index,
        options.batch_chunk_size, options.acc_dtype, options.allow_retain_graph,
        input.requires_grad and grad, linear_weight.requires_grad and grad,
        linear_bias is not None and linear_bias.requires_grad and grad)
