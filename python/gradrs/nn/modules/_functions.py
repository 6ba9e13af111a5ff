"""autograd Functions some layers are written with, as PyTorch's `torch.nn.modules._functions`:
`CrossMapLRN2d` (the legacy Lua-Torch local response normalization, with its own backward)."""

from ... import zeros_like
from ...autograd.function import Function


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
