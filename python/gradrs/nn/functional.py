"""`gradrs.nn.functional`: PyTorch's functional API. Each function calls one native op (or a
short composition of them, where PyTorch composes too), so gradients come from the ops'
own backward formulas."""

from .. import _native

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
    """``fn`` computed in float32 when its first argument is float16, the result rounded to
    float16 once, as PyTorch's fused kernels (normalizations) compute half."""
    def run(x, *rest):
        if x.dtype != _native.float16:
            return fn(x, *rest)
        wide = [t.float() if isinstance(t, _native.Tensor) and t.dtype == _native.float16
                else t for t in (x, *rest)]
        return fn(*wide).to(_native.float16)

    return run


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


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    _check_same_size(input, target, "mse_loss")
    if weight is not None:  # composed in PyTorch too
        _check_weight(input, weight)
        return _weighted((input - target) ** 2, weight, reduction)
    _reduction_code(reduction)
    return _one_node("MseLossBackward0", lambda x, t: _reduce((x - t) ** 2, reduction),
                     input, target)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    _check_same_size(input, target, "l1_loss")
    d = (input - target).abs()
    if weight is not None:
        _check_weight(input, weight)
        return _weighted(d, weight, reduction)
    return _reduce(d, reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
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


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}) is deprecated. Please ensure they have the same size."
        )
    if bool(((input < 0) | (input > 1)).any()):
        raise RuntimeError("all elements of input should be between 0 and 1")
    _reduction_code(reduction)

    def bce(x, t, w):
        # PyTorch clamps the logs at -100 so that 0 * log(0) stays finite.
        loss = -(t * x.log().clamp(min=-100) + (1 - t) * (1 - x).log().clamp(min=-100))
        return _reduce(loss * w if w is not None else loss, reduction)

    return _one_node("BinaryCrossEntropyBackward0", bce, input, target, weight)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
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


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    code = _reduction_code(reduction)
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
            denom = weight.gather(0, target.masked_fill(~keep, 0).reshape(-1)).masked_fill(
                ~keep.reshape(-1), 0.0).sum()
        else:
            denom = keep.sum()
        smooth = smooth.sum() / denom
    elif code == 2:
        smooth = smooth.sum()
    # (1 - ls) * nll + smooth * (ls / c) with C++ Scalars: MulBackward1 twice.
    return (_native._scalar_overload(nll, "mul", 1 - label_smoothing)
            + _native._scalar_overload(smooth, "mul", label_smoothing / c))


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
    out = zeros(*tensor.shape, num_classes, dtype=int64, device=tensor.device)
    return out.scatter(-1, tensor.unsqueeze(-1), 1)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.shape[0]
    if input.device != weight.device:
        # PyTorch's embedding is weight.index_select(0, indices): that kernel's device check
        # raises here.
        weight.index_select(0, input.reshape(-1))

    def embed(w):
        out = w[input]
        if padding_idx is not None:
            # Rows at padding_idx get no gradient (PyTorch's EmbeddingBackward rule).
            pad = (input == padding_idx).unsqueeze(-1)
            out = out.masked_fill(pad, 0.0) + w[input].detach().masked_fill(~pad, 0.0)
        return out

    return _one_node("EmbeddingBackward0", embed, weight)


def pad(input, pad, mode="constant", value=None):
    if len(pad) % 2 != 0:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension")
    if mode == "constant":
        return _one_node("ConstantPadNdBackward0", lambda x: _pad(x, pad, mode, value), input)
    if mode in ("reflect", "replicate") and 1 <= len(pad) // 2 <= 3:
        kind = "Reflection" if mode == "reflect" else "Replication"
        return _one_node(f"{kind}Pad{len(pad) // 2}DBackward0",
                         lambda x: _pad(x, pad, mode, value), input)
    return _pad(input, pad, mode, value)


def _pad(input, pad, mode, value):
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
        pos = arange(-left, n + right, device=input.device)
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


_CPP_NAMES = {"float16": "c10::Half", "float32": "float", "float64": "double", "int32": "int",
              "int64": "long int", "bool": "bool"}


def _ints(v, nd):
    """An int argument as PyTorch's parser gives it: repeated to the op's `nd` dimensions."""
    return [v] * nd if isinstance(v, int) else list(v)


def _conv(input, weight, bias, stride, padding, dilation, groups, nd):
    """PyTorch's conv{nd}d front end (its bias, input-rank and padding-mode checks), then one
    native ConvolutionBackward0 over the batched input; an unbatched input is unsqueezed
    before and squeezed after it (SqueezeBackward1), as in PyTorch."""
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
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1)


def _pool_out_size(size, k, s, p, d, ceil_mode):
    span = size + 2 * p - d * (k - 1) - 1
    out = (span + (s - 1 if ceil_mode else 0)) // s + 1
    # A last window that would start in the right padding is dropped (PyTorch's rule).
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
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
    planes = input.reshape(-1, 1, h, w)
    with no_grad():
        x = planes.detach()
        # Extra -inf rows/columns at the end give ceil_mode's last, partial windows.
        eh = max(0, (oh - 1) * s[0] + d[0] * (k[0] - 1) + 1 - (h + 2 * p[0]))
        ew = max(0, (ow - 1) * s[1] + d[1] * (k[1] - 1) + 1 - (w + 2 * p[1]))
        if eh or ew:
            x = _pad(x, (0, ew, 0, eh), "constant", float("-inf"))
        cols = _native.im2col(x, k, s, p, d, float("-inf"))  # [planes, kh*kw, oh*ow]
        at = cols.argmax(1)  # first maximum in window order, as PyTorch
        ki, kj = at // k[1], at % k[1]
        li = arange(oh * ow, device=input.device)
        rows = (li // ow) * s[0] - p[0] + ki * d[0]
        cols_ = (li % ow) * s[1] - p[1] + kj * d[1]
        indices = rows * w + cols_  # [planes, oh*ow]
    out_shape = tuple(input.shape[:-2]) + (oh, ow)
    values = _one_node(
        "MaxPool2DWithIndicesBackward0",
        lambda t: t.reshape(indices.shape[0], h * w).gather(1, indices).reshape(*out_shape),
        input, linear=True)
    indices = indices.reshape(*out_shape)
    return (values, indices) if return_indices else values


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    return max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode,
                                   return_indices)


def _single(v):
    return v[0] if isinstance(v, (tuple, list)) else v


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    # PyTorch: 2-D pooling of input.unsqueeze(-2), squeezed back (SqueezeBackward1).
    stride = _single(kernel_size) if stride is None or stride == [] or stride == () else stride
    out = max_pool2d_with_indices(input.unsqueeze(-2), (1, _single(kernel_size)),
                                  (1, _single(stride)), (0, _single(padding)),
                                  (1, _single(dilation)), ceil_mode, True)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out[0].squeeze(-2)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    stride = _single(kernel_size) if stride is None or stride == [] or stride == () else stride
    return avg_pool2d(input.unsqueeze(-2), (1, _single(kernel_size)), (1, _single(stride)),
                      (0, _single(padding)), ceil_mode, count_include_pad).squeeze(-2)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
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
    oh, ow = _pair(output_size)
    h, w = input.shape[-2], input.shape[-1]
    oh = h if oh is None else oh
    ow = w if ow is None else ow
    if (oh, ow) == (1, 1):  # PyTorch takes the mean here (MeanBackward1)
        return input.mean((-1, -2), keepdim=True)
    return _one_node("AdaptiveAvgPool2DBackward0", lambda x: _adaptive_avg_pool2d(x, oh, ow),
                     input, linear=True)


def _adaptive_avg_pool2d(input, oh, ow):
    h, w = input.shape[-2], input.shape[-1]
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
        if running_mean is not None:
            from .. import no_grad

            with no_grad():
                mean, var = input.mean(dims), input.var(dims, unbiased=False)
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


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    return input / denom


# ---- attention (scaled_dot_product_attention, multi_head_attention_forward) -------------------
#
# Compositions of matmul, softmax and dropout, PyTorch's math path step for step: the fused
# kernels PyTorch may pick (flash, memory-efficient) compute the same values.

_CPP_DTYPE = {"float16": "c10::Half", "float32": "float", "float64": "double",
              "int32": "int", "int64": "long int", "bool": "bool"}


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
    return attn.matmul(value)


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
