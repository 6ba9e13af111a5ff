"""3-D pooling functions of `gradrs.nn.functional`: max_pool3d, avg_pool3d, lp_pool3d,
max_unpool3d.
"""

from __future__ import annotations

from ... import _native
from ._helpers import (
    _arg3, _check_tensor_args, _INF, _one_node, _opmath, _scalar_name, _triple3, _vmap_rule,
)
from ._padding import _pad
from ._pooling import _pool_output_size, _unpool_output_size


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
    from ... import where, zeros_like

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
    from ... import iinfo

    return iinfo(dtype).min


def _max_pool3d_impl(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """3-D max pooling with the flat index (within each input volume) of every maximum."""
    from ... import arange, no_grad

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
    from ... import bool as bool_
    from ... import float16, int32

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
    from ... import long, zeros

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

    return _one_node("MaxUnpool3DBackward0", unpool, input, saves=())


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


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """3-D max pooling and the flat index (within each input volume) of every maximum."""
    return _max_pool3d_impl(input, kernel_size, stride, padding, dilation, ceil_mode, True)


# Each function wrapped as PyTorch's fails (`_check_tensor_args` with its spec,
# `_check_conv_args`) and batched by its vmap rule (`_vmap_rule`): one static name each.
max_pool3d = _vmap_rule(_check_tensor_args(max_pool3d, "max_pool3d(input)"), "spatial", 3)
avg_pool3d = _vmap_rule(_check_tensor_args(avg_pool3d, "avg_pool3d(input)"), "spatial", 3)
lp_pool3d = _vmap_rule(lp_pool3d, "spatial", 3)
max_pool3d_with_indices = _check_tensor_args(max_pool3d_with_indices, ".is_cuda(input)")
