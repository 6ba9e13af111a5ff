"""Pooling functions of `gradrs.nn.functional` in 1-D and 2-D: max / avg / lp pooling,
max_unpool, and the `*_with_indices` forms.
"""

from __future__ import annotations

from ... import _native
from ._helpers import (
    _check_tensor_args, _INF, _one_node, _opmath, _pair, _pool_arg, _scalar_name, _single,
    _vmap_rule,
)
from ._padding import _pad


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
    from ... import arange, no_grad

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
    # ATen's CPU kernel and its node where the host has it (float32 / float64 on the CPU);
    # else (None) composed from im2col below.
    native = _native._max_pool2d(input, k, s, p, d, (oh, ow))
    if native is not None:
        return native if return_indices else native[0]

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
                     input, linear=True, saved=lambda: [
                         ("ceil_mode", bool(ceil_mode)),
                         ("count_include_pad", bool(count_include_pad)),
                         ("divisor_override", divisor_override),
                         ("kernel_size", _pair(kernel_size)),
                         ("padding", _pair(padding)), ("self", input),
                         ("stride", () if stride is None else _pair(stride))])


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
    from ... import bool as bool_
    from ... import int32, tensor

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
    from ... import long, zeros

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

    return _one_node("MaxUnpool2DBackward0", unpool, input, saves=())


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


# PyTorch's *_with_indices functions return (values, indices) whatever return_indices says
# (the argument is there for the signature they share with the plain functions).
def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """2-D max pooling and the flat index (within each input plane) of every maximum."""
    return _max_pool2d_impl(input, kernel_size, stride, padding, dilation, ceil_mode, True)


# Each function wrapped as PyTorch's fails (`_check_tensor_args` with its spec,
# `_check_conv_args`) and batched by its vmap rule (`_vmap_rule`): one static name each.
max_pool2d = _vmap_rule(_check_tensor_args(max_pool2d, "max_pool2d(input)"), "spatial", 2)
max_pool1d = _vmap_rule(_check_tensor_args(max_pool1d, "max_pool1d(input)"), "spatial", 1)
avg_pool1d = _vmap_rule(_check_tensor_args(avg_pool1d, "avg_pool1d(input)"), "spatial", 1)
avg_pool2d = _vmap_rule(_check_tensor_args(avg_pool2d, "avg_pool2d(input)"), "spatial", 2)
max_pool1d_with_indices = _check_tensor_args(
    max_pool1d_with_indices, "max_pool1d_with_indices(input)")
lp_pool2d = _vmap_rule(lp_pool2d, "spatial", 2)
lp_pool1d = _vmap_rule(lp_pool1d, "spatial", 1)
max_pool2d_with_indices = _check_tensor_args(
    max_pool2d_with_indices, "max_pool2d_with_indices(input)")
