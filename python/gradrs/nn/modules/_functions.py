"""autograd Functions some layers are written with, as PyTorch's `torch.nn.modules._functions`:
`SyncBatchNorm` (batch statistics over the processes of a group) and `CrossMapLRN2d` (the
legacy Lua-Torch local response normalization), each with its own backward."""

from ... import cat, empty_like, full, int32, zeros, zeros_like
from ...autograd.function import Function


def _channel_shape(input):
    """(1, C, 1, ...): a per-channel vector broadcast against ``input``."""
    return (1, input.shape[1]) + (1,) * (input.dim() - 2)


def _reduce_dims(input):
    return [0] + list(range(2, input.dim()))


class SyncBatchNorm(Function):
    """Batch normalization whose statistics span every process of ``process_group``: each
    process's per-channel mean, inverse standard deviation and count are all-gathered and merged
    (Chan's parallel variance, as PyTorch's batch_norm_gather_stats_with_counts); backward
    all-reduces the two per-channel sums the input gradient needs. The weight and bias gradients
    stay local: data-parallel training averages them."""

    @staticmethod
    def forward(ctx, input, weight, bias, running_mean, running_var, eps, momentum,
                process_group, world_size):
        from ... import distributed as dist

        input = input.contiguous()
        if weight is not None:
            weight = weight.contiguous()
        size = int(input.numel() // input.size(1))
        if size == 1 and world_size < 2:
            raise ValueError(
                f"Expected more than 1 value per channel when training, got input size {size}")
        num_channels = input.shape[1]
        if input.numel() > 0:
            dims = _reduce_dims(input)
            mean = input.mean(dims)
            var = input.var(dims, unbiased=False)
            count = full((1,), size, dtype=mean.dtype, device=mean.device)
            combined = cat([mean, (var + eps).rsqrt(), count])
        else:
            # an empty shard still takes part in the collective; its zero count drops it below
            combined = zeros(2 * num_channels + 1, dtype=input.dtype, device=input.device)
        gathered = combined.new_empty((world_size * combined.numel(),))
        dist.all_gather_single(gathered, combined, process_group)
        gathered = gathered.reshape(world_size, combined.numel())
        mean_all, invstd_all, count_all = gathered.split(num_channels, dim=1)
        keep = count_all.squeeze(-1) >= 1
        mean_all, invstd_all, count_all = mean_all[keep], invstd_all[keep], count_all[keep]
        # merge: mean = sum(n_i m_i) / n, var = sum(n_i (v_i + (m_i - mean)^2)) / n
        n = count_all.sum()
        mean = (mean_all * count_all).sum(0) / n
        var_all = invstd_all.pow(-2) - eps
        var = (count_all * (var_all + (mean_all - mean).pow(2))).sum(0) / n
        if running_mean is not None:
            running_mean.mul_(1 - momentum).add_(mean.to(running_mean.dtype), alpha=momentum)
        if running_var is not None:
            unbiased = var * (n / (n - 1))
            running_var.mul_(1 - momentum).add_(unbiased.to(running_var.dtype), alpha=momentum)
        invstd = (var + eps).rsqrt()
        ctx.save_for_backward(input, weight, mean, invstd, count_all.to(int32))
        ctx.process_group = process_group
        if input.numel() == 0:
            return empty_like(input)
        shape = _channel_shape(input)
        out = (input - mean.view(shape)) * invstd.view(shape)
        if weight is not None:
            out = out * weight.view(shape)
        if bias is not None:
            out = out + bias.view(shape)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        from ... import distributed as dist

        grad_output = grad_output.contiguous()
        input, weight, mean, invstd, count = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        num_channels = input.shape[1]
        if input.numel() > 0:
            dims, shape = _reduce_dims(input), _channel_shape(input)
            xmu = input - mean.view(shape)
            sum_dy = grad_output.sum(dims)
            sum_dy_xmu = (grad_output * xmu).sum(dims)
            if ctx.needs_input_grad[0]:
                combined = cat([sum_dy, sum_dy_xmu])
                dist.all_reduce(combined, dist.ReduceOp.SUM, ctx.process_group)
                sum_dy, sum_dy_xmu = combined.split(num_channels)
                n = count.sum().to(mean.dtype)
                scale = invstd if weight is None else invstd * weight.to(mean.dtype)
                grad_input = (grad_output - (sum_dy / n).view(shape)
                              - xmu * (invstd * invstd * sum_dy_xmu / n).view(shape)
                              ) * scale.view(shape)
            if weight is not None and ctx.needs_input_grad[1]:
                grad_weight = (grad_output * xmu).sum(dims) * invstd
            if weight is not None and ctx.needs_input_grad[2]:
                grad_bias = grad_output.sum(dims)
        elif ctx.needs_input_grad[0]:
            # unblock the peers' all-reduce; the empty shard's gradients are zeros
            dist.all_reduce(zeros(2 * num_channels, dtype=input.dtype, device=input.device),
                            dist.ReduceOp.SUM, ctx.process_group)
        return grad_input, grad_weight, grad_bias, None, None, None, None, None, None


class CrossMapLRN2d(Function):
    """Normalization of each channel by the squares of its neighbours: PyTorch's recurrence
    (the first channel's window summed, each next one updated by adding the entering channel
    and removing the leaving one, the removal starting one channel late as in PyTorch) and its
    hand-written backward, each step as a tensor op over the whole batch."""

    @staticmethod
    def forward(ctx, input, size, alpha=1e-4, beta=0.75, k=1):
        ctx.size = size
        ctx.alpha = alpha
        ctx.beta = beta
        ctx.k = k
        if input.dim() != 4:
            raise ValueError(
                f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        channels = input.size(1)
        input_square = input.pow(2)
        pre_pad = int((size - 1) / 2 + 1)
        pre_pad_crop = min(pre_pad, channels)
        scale = zeros_like(input.select(1, 0))
        for c in range(pre_pad_crop):
            scale = scale + input_square.select(1, c)
        scales = [scale]
        for c in range(1, channels):
            scale = scales[-1]
            if c < channels - pre_pad + 1:
                scale = scale + input_square.select(1, c + pre_pad - 1)
            if c > pre_pad:
                scale = scale - input_square.select(1, c - pre_pad)
            scales.append(scale)
        from ... import stack

        ctx.scale = stack(scales, 1).mul(alpha / size).add(k)
        output = ctx.scale.pow(-beta).mul(input)
        ctx.save_for_backward(input, output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        from ... import stack

        input, output = ctx.saved_tensors
        channels = input.size(1)
        cache_ratio_value = 2 * ctx.alpha * ctx.beta / ctx.size
        inverse_pre_pad = int(ctx.size - (ctx.size - 1) / 2)
        grad_input = ctx.scale.pow(-ctx.beta).mul(grad_output)
        # paddded_ratio: [N, channels + size - 1, H, W], the ratios at offset inverse_pre_pad.
        if inverse_pre_pad + channels > channels + ctx.size - 1:  # PyTorch's narrow fails
            raise RuntimeError(f"start ({inverse_pre_pad}) + length ({channels}) exceeds "
                               f"dimension size ({channels + ctx.size - 1}).")
        ratio = grad_output.mul(output).div(ctx.scale)
        zero = zeros_like(ratio.select(1, 0))
        padded = ([zero] * inverse_pre_pad + [ratio.select(1, c) for c in range(channels)]
                  + [zero] * (ctx.size - 1 - inverse_pre_pad))
        accum = zero
        for i in range(ctx.size - 1):
            accum = accum + padded[i]
        rows = []
        for c in range(channels):
            accum = accum + padded[c + ctx.size - 1]
            rows.append(grad_input.select(1, c).addcmul(input.select(1, c), accum,
                                                        value=-cache_ratio_value))
            accum = accum - padded[c]
        return stack(rows, 1), None, None, None, None
