"""Convolution functions of `gradrs.nn.functional`: conv1d/2d/3d, conv_transpose1d/2d/3d,
conv_tbc, unfold / fold.
"""

from __future__ import annotations

import functools

from ... import _native
from ..._native import Tensor as _Tensor
from ._helpers import _check_tensor_args, _CPP_NAMES, _ints, _one_node, _scalar_name, _vmap_rule
from ._padding import _pad


def _conv(input, weight, bias, stride, padding, dilation, groups, nd):
    """PyTorch's conv{nd}d front end (its bias, input-rank and padding-mode checks), then one
    native ConvolutionBackward0 over the batched input; an unbatched input is unsqueezed
    before and squeezed after it (SqueezeBackward1), as in PyTorch."""
    if any(hasattr(type(t), "_vmap_level") for t in (input, weight, bias)):
        from ... import _vmap  # under vmap: its batching rule (Note [vmap])
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
    if weight.dtype != input.dtype:
        # the slow_conv_transpose kernels read the weight as the input's type
        raise RuntimeError(f"expected scalar type {_scalar_name(input.dtype)} but found "
                           f"{_scalar_name(weight.dtype)}")
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
            # added in place into the output: the result keeps the input's dtype
            out = out + b.reshape(1, cout, 1, 1).to(out.dtype)
        return out.reshape(n, cout, ow) if nd == 1 else out

    out = _one_node("ConvolutionBackward0", fn, input, weight, bias, saves=(0, 1))
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

    out = _one_node("ConvolutionBackward0", conv, input, weight, bias, saves=(0, 1))
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
                     lambda x: _native.im2col(x.unsqueeze(0), k, s, p, d, 0.0).squeeze(0), input,
                     saved=lambda: [("dilation", tuple(d)), ("kernel_size", tuple(k)),
                                    ("padding", tuple(p)), ("self_sym_argsize_minus_1", w),
                                    ("self_sym_argsize_minus_2", h), ("stride", tuple(s))])


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
                     lambda x: _native.col2im(x.unsqueeze(0), o, c, k, s, p, d).squeeze(0), input,
                     saves=())


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
        from ... import stack, zeros_like

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

    out = _one_node("ConvolutionBackward0", fn, input, weight, bias, saves=(0, 1))
    return out.squeeze(0) if unbatched else out


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


def _check_conv_args(fn, name):
    """`fn` (F.conv<n>d) failing with PyTorch's parser error on wrongly typed arguments."""
    from ... import _argparse

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


# Each function wrapped as PyTorch's fails (`_check_tensor_args` with its spec,
# `_check_conv_args`) and batched by its vmap rule (`_vmap_rule`): one static name each.
conv2d = _check_conv_args(conv2d, "conv2d")
conv1d = _check_conv_args(conv1d, "conv1d")
conv3d = _check_conv_args(conv3d, "conv3d")
conv_transpose1d = _check_tensor_args(conv_transpose1d, "conv_transpose1d(input, weight)")
conv_transpose2d = _check_tensor_args(conv_transpose2d, "conv_transpose2d(input, weight)")
unfold = _vmap_rule(_check_tensor_args(unfold, "im2col(input)"), "spatial", 2)
fold = _vmap_rule(_check_tensor_args(fold, "col2im(input)"), "spatial", 1)
conv_transpose3d = _check_tensor_args(conv_transpose3d, "conv_transpose3d(input, weight)")
