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


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    return input.softmax(_softmax_dim(input, dim), dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
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


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    _check_same_size(input, target, "mse_loss")
    d = (input - target) ** 2
    if weight is not None:
        d = d * weight
    return _reduce(d, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    _check_same_size(input, target, "l1_loss")
    d = (input - target).abs()
    if weight is not None:
        d = d * weight
    return _reduce(d, reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    _check_same_size(input, target, "smooth_l1_loss")
    d = (input - target).abs()
    if beta == 0:
        return _reduce(d, reduction)
    from .. import where

    return _reduce(where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta), reduction)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    _check_same_size(input, target, "huber_loss")
    from .. import where

    d = (input - target).abs()
    loss = where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}) is deprecated. Please ensure they have the same size."
        )
    if bool(((input < 0) | (input > 1)).any()):
        raise RuntimeError("all elements of input should be between 0 and 1")
    # PyTorch clamps the logs at -100 so that 0 * log(0) stays finite.
    loss = -(target * input.log().clamp(min=-100) + (1 - target) * (1 - input).log().clamp(min=-100))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(
            f"Target size ({target.shape}) must be the same as input size ({input.shape})"
        )
    # log(1 + exp(-|x|)) + max(-x, 0): stable for large |x|.
    softplus_neg = (-input.abs()).exp().log1p() + (-input).clamp(min=0)
    if pos_weight is not None:
        loss = (1 - target) * input + (1 + (pos_weight - 1) * target) * softplus_neg
    else:
        loss = (1 - target) * input + softplus_neg
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    if log_target:
        loss = target.exp() * (target - input)
    else:
        from .. import where

        loss = where(target > 0, target * (target.clamp(min=1e-38 if False else 0).log() - input),
                     target * 0)
        loss = where(target > 0, target * (target.log() - input), loss * 0)
    if reduction == "batchmean":
        return loss.sum() / (input.shape[0] if input.dim() > 0 else 1)
    return _reduce(loss, reduction)


def _flatten_classes(input, target):
    """[N, C, d1, ...] -> [N*d1*..., C] and targets to match."""
    c = input.shape[1]
    perm = [0] + list(range(2, input.dim())) + [1]
    return input.permute(*perm).reshape(-1, c), target.reshape(-1)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    code = _reduction_code(reduction)
    if input.dim() > 2:
        spatial = (input.shape[0],) + tuple(input.shape[2:])
        flat_in, flat_t = _flatten_classes(input, target)
        out = _native.nll_loss(flat_in, flat_t, weight, ignore_index, code)
        return out.reshape(*spatial) if code == 0 else out
    return _native.nll_loss(input, target, weight, ignore_index, code)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    code = _reduction_code(reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(
            f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}"
        )
    class_dim = 0 if input.dim() == 1 else 1
    logp = input.log_softmax(class_dim)
    c = input.shape[class_dim]
    if target.is_floating_point():
        # Class probabilities.
        if label_smoothing > 0:
            target = target * (1 - label_smoothing) + label_smoothing / c
        if weight is not None:
            shape = [1] * input.dim()
            shape[class_dim] = c
            logp = logp * weight.reshape(*shape)
        loss = -(logp * target).sum(class_dim)
        if code == 1:
            n = input.numel() // c if input.dim() > 0 else 1
            return loss.sum() / n
        return loss.sum() if code == 2 else loss
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
    smooth = smooth.masked_fill(~keep, 0.0) if smooth.dim() > 0 else smooth
    if code == 1:
        if weight is not None:
            denom = weight.gather(0, target.masked_fill(~keep, 0).reshape(-1)).masked_fill(
                ~keep.reshape(-1), 0.0).sum()
        else:
            denom = keep.sum()
        smooth = smooth.sum() / denom
    elif code == 2:
        smooth = smooth.sum()
    return (1 - label_smoothing) * nll + (label_smoothing / c) * smooth


# ---- layers ------------------------------------------------------------------------------------


def linear(input, weight, bias=None):
    # PyTorch's dispatch, so results carry its grad_fn: a 2-D input with bias is one addmm
    # (AddmmBackward0); a contiguous input of another rank, with a bias that is 1-D once
    # squeezed, is flattened to 2-D for addmm and viewed back (ViewBackward0); anything else
    # is matmul then an in-place add of the bias.
    if input.dim() == 0 or weight.dim() == 0:
        raise RuntimeError(
            "both arguments to linear need to be at least 1D, but they are "
            f"{input.dim()}D and {weight.dim()}D"
        )
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


def dropout(input, p=0.5, training=True, inplace=False):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    from .. import rand_like

    if p == 1.0:
        mask = input * 0
        return input.mul_(mask) if inplace else input * mask
    mask = (rand_like(input) >= p).to(input.dtype) / (1 - p)
    return input.mul_(mask) if inplace else input * mask


def one_hot(tensor, num_classes=-1):
    from .. import int64, zeros

    if tensor.dtype != int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        num_classes = int(tensor.max().item()) + 1 if tensor.numel() > 0 else 0
    if tensor.numel() > 0 and (int(tensor.min().item()) < 0):
        raise RuntimeError("Class values must be non-negative.")
    if tensor.numel() > 0 and int(tensor.max().item()) >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = zeros(*tensor.shape, num_classes, dtype=int64)
    return out.scatter(-1, tensor.unsqueeze(-1), 1)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    out = weight[input]
    if padding_idx is not None:
        if padding_idx < 0:
            padding_idx += weight.shape[0]
        # Rows at padding_idx get no gradient (PyTorch's EmbeddingBackward rule).
        pad = (input == padding_idx).unsqueeze(-1)
        out = out.masked_fill(pad, 0.0) + weight[input].detach().masked_fill(~pad, 0.0)
    return out


def pad(input, pad, mode="constant", value=None):
    if len(pad) % 2 != 0:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension")
    from .. import arange, full

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
                parts.append(full(shape, 0 if value is None else value, dtype=out.dtype))
            parts.append(out)
            if right > 0:
                shape = list(out.shape)
                shape[dim] = right
                parts.append(full(shape, 0 if value is None else value, dtype=out.dtype))
            from .. import cat

            out = cat(parts, dim) if len(parts) > 1 else out
            continue
        pos = arange(-left, n + right)
        if mode == "replicate":
            idx = pos.clamp(0, n - 1)
        elif mode == "reflect":
            if left >= n or right >= n:
                raise RuntimeError(
                    "Argument #4: Padding size should be less than the corresponding input "
                    f"dimension, but got: padding ({left}, {right}) at dimension {dim} of input "
                    f"{list(input.shape)}"
                )
            period = 2 * (n - 1) if n > 1 else 1
            r = pos.remainder(period)
            idx = (r < n).long() * r + (r >= n).long() * (period - r)
        elif mode == "circular":
            idx = pos.remainder(n)
        else:
            raise NotImplementedError(f"Unrecognised padding mode {mode}")
        out = out.index_select(dim, idx)
    return out


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _conv(input, weight, bias, stride, padding, dilation, groups, nd):
    unbatched = input.dim() == nd + 1
    if unbatched:
        input = input.unsqueeze(0)
    if input.dim() != nd + 2:
        raise RuntimeError(
            f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to conv{nd}d, but got "
            f"input of size: {list(input.shape)}"
        )
    if nd == 1:
        input, weight = input.unsqueeze(2), weight.unsqueeze(2)
        stride, dilation = (1, _pair(stride)[0]), (1, _pair(dilation)[0])
        if not isinstance(padding, str):
            padding = (0, _pair(padding)[0])
    n, c, h, w = input.shape
    o, cg, kh, kw = weight.shape
    if c != cg * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(weight.shape)}, expected input"
            f"{list(input.shape)} to have {cg * groups} channels, but got {c} channels instead"
        )
    stride, dilation = _pair(stride), _pair(dilation)
    if isinstance(padding, str):
        if padding == "valid":
            padding = (0, 0)
        elif padding == "same":
            if stride != (1, 1):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            total = [dilation[0] * (kh - 1), dilation[1] * (kw - 1)]
            if total[0] % 2 or total[1] % 2:
                input = globals()["pad"](input, [total[1] // 2, total[1] - total[1] // 2,
                                                 total[0] // 2, total[0] - total[0] // 2])
                padding = (0, 0)
            else:
                padding = (total[0] // 2, total[1] // 2)
        else:
            raise ValueError(f"Invalid padding string '{padding}'")
    padding = _pair(padding)
    h, w = input.shape[2], input.shape[3]
    cols = _native.im2col(input, (kh, kw), stride, padding, dilation, 0.0)
    oh = (h + 2 * padding[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (w + 2 * padding[1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    if groups == 1:
        out = weight.reshape(o, -1).matmul(cols)
    else:
        from .. import cat

        k = cg * kh * kw
        og = o // groups
        outs = [weight[g * og:(g + 1) * og].reshape(og, -1).matmul(cols[:, g * k:(g + 1) * k])
                for g in range(groups)]
        out = cat(outs, 1)
    out = out.reshape(n, o, oh, ow)
    if bias is not None:
        out = out + bias.reshape(1, o, 1, 1)
    if nd == 1:
        out = out.squeeze(2)
    return out.squeeze(0) if unbatched else out


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1)


def _pool_setup(input, kernel_size, stride, padding, dilation):
    k = _pair(kernel_size)
    s = k if stride is None or stride == [] or stride == () else _pair(stride)
    p, d = _pair(padding), _pair(dilation)
    if p[0] > k[0] // 2 or p[1] > k[1] // 2:
        raise RuntimeError(
            "pad should be at most half of effective kernel size, but got "
            f"pad={p[0]}, kernel_size={k[0]} and dilation={d[0]}"
        )
    unbatched = input.dim() == 3
    x = input.unsqueeze(0) if unbatched else input
    n, c, h, w = x.shape
    oh = (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    return x.reshape(n * c, 1, h, w), k, s, p, d, (n, c, oh, ow), unbatched


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    if ceil_mode or return_indices:
        raise NotImplementedError("max_pool2d: ceil_mode and return_indices are not supported yet")
    x, k, s, p, d, (n, c, oh, ow), unbatched = _pool_setup(input, kernel_size, stride, padding,
                                                           dilation)
    cols = _native.im2col(x, k, s, p, d, float("-inf"))
    out = cols.amax(1).reshape(n, c, oh, ow)
    return out.squeeze(0) if unbatched else out


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    if ceil_mode:
        raise NotImplementedError("avg_pool2d: ceil_mode is not supported yet")
    x, k, s, p, d, (n, c, oh, ow), unbatched = _pool_setup(input, kernel_size, stride, padding, 1)
    cols = _native.im2col(x, k, s, p, d, 0.0)
    total = cols.sum(1)
    if divisor_override is not None:
        out = total / divisor_override
    elif count_include_pad or p == (0, 0):
        out = total / (k[0] * k[1])
    else:
        from .. import ones_like

        count = _native.im2col(ones_like(x), k, s, p, d, 0.0).sum(1)
        out = total / count
    out = out.reshape(n, c, oh, ow)
    return out.squeeze(0) if unbatched else out


def adaptive_avg_pool2d(input, output_size):
    oh, ow = _pair(output_size)
    h, w = input.shape[-2], input.shape[-1]
    oh = h if oh is None else oh
    ow = w if ow is None else ow
    if h % oh == 0 and w % ow == 0:
        return avg_pool2d(input, (h // oh, w // ow))
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


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
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
    mean = input.mean(dims, keepdim=True)
    var = input.var(dims, unbiased=False, keepdim=True)
    out = (input - mean) / (var + eps).sqrt()
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    dims = (0,) + tuple(range(2, input.dim()))
    shape = [1, input.shape[1]] + [1] * (input.dim() - 2)
    if training:
        n = input.numel() // input.shape[1]
        if n <= 1:
            raise ValueError(
                "Expected more than 1 value per channel when training, got input size "
                f"{input.shape}"
            )
        mean = input.mean(dims)
        var = input.var(dims, unbiased=False)
        if running_mean is not None:
            from .. import no_grad

            with no_grad():
                running_mean.mul_(1 - momentum).add_(mean.detach() * momentum)
                running_var.mul_(1 - momentum).add_(var.detach() * (momentum * n / (n - 1)))
    else:
        mean, var = running_mean, running_var
    out = (input - mean.reshape(*shape)) / (var.reshape(*shape) + eps).sqrt()
    if weight is not None:
        out = out * weight.reshape(*shape)
    if bias is not None:
        out = out + bias.reshape(*shape)
    return out


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    return input / denom
