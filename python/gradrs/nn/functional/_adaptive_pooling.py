"""Adaptive and fractional pooling functions of `gradrs.nn.functional`: adaptive avg / max
pooling in 1-D, 2-D and 3-D and fractional max pooling in 2-D and 3-D.
"""

from __future__ import annotations

from ... import _native
from ._helpers import (
    _check_tensor_args, _INF, _list_with_default, _one_node, _opmath, _pair, _scalar_name,
    _single, _triple3, _vmap_rule,
)
from ._pooling import _avg_pool2d, _check_pool1d_dims, _empty_pool, _one_output_size
from ._pooling3d import _running_max


def adaptive_avg_pool2d(input, output_size):
    """2-D average pooling to a fixed output size, whatever the input size (the windows
    are chosen to cover the input).

    Args:
        input: (N, C, *spatial) or without N.
        output_size: the output's spatial size (an int or one per dimension; None keeps that
            dimension's size).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.adaptive_avg_pool2d(gradrs.ones(1, 3, 7, 9), (2, 3)).shape
        gradrs.Size([1, 3, 2, 3])
    """
    oh, ow = _pair(output_size)
    h, w = input.shape[-2], input.shape[-1]
    oh = h if oh is None else oh
    ow = w if ow is None else ow
    if oh < 0 or ow < 0:
        raise RuntimeError("adaptive_avg_pool2d: elements of output_size must be greater than "
                           f"or equal to 0 but received {{{oh}, {ow}}}")
    if (oh, ow) == (1, 1):  # PyTorch takes the mean here (MeanBackward1)
        return input.mean((-1, -2), keepdim=True)
    return _one_node("AdaptiveAvgPool2DBackward0", lambda x: _adaptive_avg_pool2d(x, oh, ow),
                     input, linear=True, saved=lambda: [("self", input)])


def _adaptive_avg_pool2d(input, oh, ow):
    h, w = input.shape[-2], input.shape[-1]
    if oh == 0 or ow == 0:
        return _empty_pool(input, (oh, ow), "adaptive_avg_pool2d")
    if h % oh == 0 and w % ow == 0:
        k = (h // oh, w // ow)
        return _avg_pool2d(input, (k, k, (0, 0), (oh, ow)), True, None)
    from ... import stack

    rows = []
    for i in range(oh):
        h0, h1 = (i * h) // oh, -((-(i + 1) * h) // oh)
        cols = []
        for j in range(ow):
            w0, w1 = (j * w) // ow, -((-(j + 1) * w) // ow)
            cols.append(input[..., h0:h1, w0:w1].mean((-2, -1)))
        rows.append(stack(cols, -1))
    return stack(rows, -2)


# -- adaptive pooling --


def _adaptive_ranges(size, out):
    return [((i * size) // out, -((-(i + 1) * size) // out)) for i in range(out)]


def _adaptive_max_pool2d_impl(input, output_size, return_indices=False):
    from ... import arange, long, no_grad, stack, zeros

    if input.dim() not in (3, 4):
        raise RuntimeError(
            "adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: "
            f"{list(input.shape)}")
    h, w = input.shape[-2], input.shape[-1]
    osize = _pair(output_size)
    oh = h if osize[0] is None else osize[0]
    ow = w if osize[-1] is None else osize[-1]
    out_shape = tuple(input.shape[:-2]) + (oh, ow)
    if oh < 0 or ow < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension "
                           f"{min(oh, ow)}: {list(out_shape)}")
    equal = oh > 0 and ow > 0 and h % oh == 0 and w % ow == 0

    def pool(t):
        # Each window's max (the first one, NaN first, as PyTorch): max's backward routes the
        # gradient to it with no index read back, so a GPU step stays on the GPU.
        t = t.reshape(-1, h, w)
        if oh == 0 or ow == 0:
            return t.reshape(-1, h * w)[:, :0].reshape(*out_shape)
        if equal:
            kh, kw = h // oh, w // ow
            cols = _native.im2col(t.unsqueeze(1), (kh, kw), (kh, kw), (0, 0), (1, 1), -_INF)
            return cols.max(1)[0].reshape(*out_shape)
        found = [t[:, h0:h1, w0:w1].reshape(t.shape[0], -1).max(1)[0]
                 for h0, h1 in _adaptive_ranges(h, oh) for w0, w1 in _adaptive_ranges(w, ow)]
        return stack(found, 1).reshape(*out_shape)

    values = _one_node("AdaptiveMaxPool2DBackward0", _opmath(pool), input, linear=True)
    if not return_indices:
        return values
    with no_grad():
        x = input.detach().reshape(-1, h, w)
        if oh == 0 or ow == 0:
            indices = zeros(x.shape[0], 0, dtype=long, device=input.device)
        elif h % oh == 0 and w % ow == 0:  # equal windows: one max pool
            kh, kw = h // oh, w // ow
            cols = _native.im2col(x.unsqueeze(1), (kh, kw), (kh, kw), (0, 0), (1, 1), -_INF)
            at = cols.argmax(1)
            li = arange(oh * ow, device=input.device)
            rows = (li // ow) * kh + at // kw
            indices = rows * w + (li % ow) * kw + at % kw
        else:
            found = []
            for h0, h1 in _adaptive_ranges(h, oh):
                for w0, w1 in _adaptive_ranges(w, ow):
                    at = x[:, h0:h1, w0:w1].reshape(x.shape[0], -1).argmax(1)
                    found.append((h0 + at // (w1 - w0)) * w + w0 + at % (w1 - w0))
            indices = stack(found, 1)
        indices = indices.to(long) if indices.dtype != long else indices
    return values, indices.reshape(*out_shape)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """2-D max pooling to a fixed output size, whatever the input size.

    Args:
        input: (N, C, *spatial) or without N.
        output_size: the output's spatial size (an int or one per dimension).
        return_indices: also return the indices of the maxima (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.adaptive_max_pool2d(gradrs.ones(1, 3, 7, 9), 2).shape
        gradrs.Size([1, 3, 2, 2])
    """
    return _adaptive_max_pool2d_impl(input, output_size, return_indices)


def _adaptive_max_pool1d_impl(input, output_size, return_indices=False):
    output_size = _one_output_size(output_size, "adaptive_max_pool1d")
    _check_pool1d_dims(input, "adaptive_max_pool1d")
    if not return_indices:
        return _adaptive_max_pool2d_impl(
            input.unsqueeze(-2), (1, _single(output_size))).squeeze(-2)
    values, indices = _adaptive_max_pool2d_impl(
        input.unsqueeze(-2), (1, _single(output_size)), True)
    return values.squeeze(-2), indices.squeeze(-2)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """1-D max pooling to a fixed output size, whatever the input size.

    Args:
        input: (N, C, *spatial) or without N.
        output_size: the output's spatial size (an int or one per dimension).
        return_indices: also return the indices of the maxima (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.adaptive_max_pool1d(gradrs.ones(1, 3, 7), 2).shape
        gradrs.Size([1, 3, 2])
    """
    return _adaptive_max_pool1d_impl(input, output_size, return_indices)


def adaptive_avg_pool1d(input, output_size):
    """1-D average pooling to a fixed output length, whatever the input
    length.

    Args:
        input: shape (N, C, L) or (C, L).
        output_size: the output length.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.adaptive_avg_pool1d(gradrs.tensor([[[1.0, 2.0, 3.0, 4.0, 5.0]]]), 2)
        tensor([[[2., 4.]]])
    """
    output_size = _one_output_size(output_size, "adaptive_avg_pool1d")
    _check_pool1d_dims(input, "adaptive_avg_pool1d")
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, _single(output_size))).squeeze(-2)


def _adaptive_axis(x, axis, n_out, reduce, index=None):
    """Adaptive pooling along one axis (PyTorch's windows [floor(i*n/o), ceil((i+1)*n/o)));
    a product of windows pools axis by axis. ``index`` (max only) carries each element's flat
    input index through the reductions."""
    from ... import cat

    parts, picked = [], []
    for a, b in _adaptive_ranges(x.shape[axis], n_out):
        seg = x.narrow(axis, a, b - a)
        if reduce == "mean":
            parts.append(seg.mean(axis, keepdim=True))
            continue
        # PyTorch's scan (first maximum, last NaN) over the window's slices.
        v, at = _running_max([x.narrow(axis, j, 1) for j in range(a, b)],
                             want_tap=index is not None)
        parts.append(v)
        if index is not None:
            picked.append(index.narrow(axis, a, b - a).gather(axis, at))
    return cat(parts, axis), (cat(picked, axis) if index is not None else None)


def _adaptive3d_checks(input, name, internal):
    shape = list(input.shape)
    for i in range(1, len(shape)):
        if shape[i] <= 0:
            raise RuntimeError(
                f"{name}(): Expected input to have non-zero size for non-batch dimensions, but "
                f"input has sizes {shape} with dimension {i} being empty")
    if input.dim() not in (4, 5):
        raise RuntimeError(f"{name}(): Expected 4D or 5D tensor, but got{':' if internal else ''}"
                           f" {shape}")
    if not input.is_floating_point():
        raise NotImplementedError(
            f"\"{name}_cpu\" not implemented for '{_scalar_name(input.dtype)}'")


def adaptive_avg_pool3d(input, output_size):
    """3-D average pooling to a fixed output size, whatever the input size (the windows
    are chosen to cover the input).

    Args:
        input: (N, C, *spatial) or without N.
        output_size: the output's spatial size (an int or one per dimension; None keeps that
            dimension's size).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.adaptive_avg_pool3d(gradrs.ones(1, 3, 5, 7, 9), 1).shape
        gradrs.Size([1, 3, 1, 1, 1])
    """
    osize = _list_with_default(output_size, input.size())
    osize = [osize] * 3 if isinstance(osize, int) else list(osize)
    if len(osize) != 3:
        raise RuntimeError("adaptive_avg_pool3d: output_size must be 3")
    if any(n < 0 for n in osize):
        raise RuntimeError(  # sic: PyTorch's message has no space before the last size
            "adaptive_avg_pool3d: elements of output_size must be greater than or equal to 0 "
            f"but received {{{osize[0]}, {osize[1]},{osize[2]}}}")
    if osize == [1, 1, 1]:  # PyTorch takes the mean here (MeanBackward1)
        return input.mean((-1, -2, -3), keepdim=True)
    _adaptive3d_checks(input, "adaptive_avg_pool3d", False)

    def pool(x):
        if 0 in osize:
            return _empty_pool(x, osize, "adaptive_avg_pool3d")
        for axis, n in zip((-3, -2, -1), osize):
            x = _adaptive_axis(x, axis, n, "mean")[0]
        return x

    return _one_node("AdaptiveAvgPool3DBackward0", _opmath(pool), input, linear=True)


def _adaptive_max_pool3d_impl(input, output_size, return_indices=False):
    from ... import arange, no_grad

    osize = _list_with_default(output_size, input.size())
    osize = [osize] * 3 if isinstance(osize, int) else list(osize)
    if input.dim() in (4, 5) and len(osize) != 3:
        raise RuntimeError("adaptive_max_pool3d(): internal error: output_size.size() must be 3")
    _adaptive3d_checks(input, "adaptive_max_pool3d", True)

    def pool(x):
        for axis, n in zip((-3, -2, -1), osize):
            x = _adaptive_axis(x, axis, n, "max")[0]
        return x

    values = _one_node("AdaptiveMaxPool3DBackward0", _opmath(pool), input, linear=True)
    if not return_indices:
        return values
    with no_grad():
        x = input.detach()
        t, h, w = x.shape[-3:]
        index = arange(t * h * w, device=x.device).reshape(t, h, w).expand(*x.shape)
        for axis, n in zip((-3, -2, -1), osize):
            x, index = _adaptive_axis(x, axis, n, "max", index)
    return values, index


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """3-D max pooling to a fixed output size, whatever the input size.

    Args:
        input: (N, C, *spatial) or without N.
        output_size: the output's spatial size (an int or one per dimension).
        return_indices: also return the indices of the maxima (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.adaptive_max_pool3d(gradrs.ones(1, 3, 5, 7, 9), 2).shape
        gradrs.Size([1, 3, 2, 2, 2])
    """
    return _adaptive_max_pool3d_impl(input, output_size, return_indices)


# -- fractional max pooling --
#
# PyTorch's kernel: per (batch, channel) plane, one uniform sample u per spatial dimension
# (`_random_samples`, drawn with rand() from the default stream when not given) places the
# windows at floor((i + u) * alpha) - floor(u * alpha), alpha = (in - k) / (out - 1), the last at
# in - k, computed in the input's floating type. The windows' flat indices are built on the
# host from the samples and the values gathered, so each window's max (the first one, as
# PyTorch) and its gradient come from gather and max.


def _fractional_intervals(sample, in_size, out_size, k, np_dtype):
    # numpy's scalars round each operation as the C++ kernel's scalar_t arithmetic does.
    seq = [0] * out_size
    if out_size > 1:
        sample = np_dtype(sample)
        alpha = np_dtype(in_size - k) / np_dtype(out_size - 1)
        for i in range(out_size - 1):
            seq[i] = int((np_dtype(i) + sample) * alpha) - int(sample * alpha)
    if out_size > 0:
        seq[out_size - 1] = in_size - k
    return seq


def _fractional_max_pool(input, kernel_size, output_size, samples, nd, with_indices=True):
    """fractional_max_pool{nd}d's checks, then (values, indices), or the values alone."""
    import itertools

    import numpy as np

    from ... import long, no_grad, tensor

    name = f"fractional_max_pool{nd}d"
    what = "tuple of Ints" if nd == 2 else "tuple of three Ints"
    k = [kernel_size] * nd if isinstance(kernel_size, int) else list(kernel_size)
    out = [output_size] * nd if isinstance(output_size, int) else list(output_size)
    if len(k) != nd:
        raise RuntimeError(f"{name}: kernel_size must either be a single Int or {what}")
    if len(out) != nd:
        raise RuntimeError(f"{name}: output_size must either be a single Int or {what}")
    fn = name + ("()" if nd == 2 else "_out()")
    shape = list(input.shape)
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"{fn}: Expected {nd + 1}D or {nd + 2}D tensor, but got: {shape}")
    for i in range(1, input.dim()):
        if shape[i] <= 0:
            raise RuntimeError(
                f"{fn}: Expected input to have non-zero size for non-batch dimensions, but "
                f"got{shape} with dimension {i} being empty.")
    sizes = shape[-nd:]
    labels = ("height", "width") if nd == 2 else ("time", "height", "width")
    for lab, o, kk, s in zip(labels, out, k, sizes):
        if o + kk - 1 > s:
            raise RuntimeError(f"{fn}: pool {lab} {kk} too large relative to input {lab} {s}")
    if samples.dtype != input.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.dim() != 3:
        raise RuntimeError(f"Expect _random_samples to be 3D tensor, got: {samples.dim()}")
    batched = input.dim() == nd + 2
    n, c = (shape[0], shape[1]) if batched else (1, shape[0])
    if samples.shape[0] < n:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != c:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != nd:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {nd}; got "
                           f"{samples.shape[2]}.")
    if not input.is_floating_point():
        raise NotImplementedError(
            f"\"{name}_out_frame\" not implemented for '{_scalar_name(input.dtype)}'")
    np_dtype = {"float16": np.float16, "float32": np.float32, "float64": np.float64}[
        str(input.dtype).split(".")[-1]]
    # 2-D samples are (w, h), 3-D ones (t, h, w), as PyTorch's kernels read them.
    order = (1, 0) if nd == 2 else (0, 1, 2)
    with no_grad():
        draws = samples.detach().cpu().double().tolist()
    # Flat input index of every tap of every window: [n, c, prod(out), prod(k)].
    strides = [int(np.prod(sizes[i + 1:])) for i in range(nd)]
    taps = np.array([sum(o * st for o, st in zip(off, strides))
                     for off in itertools.product(*[range(kk) for kk in k])], dtype=np.int64)
    idx = np.empty((n, c, int(np.prod(out)), len(taps)), dtype=np.int64)
    for b in range(n):
        for ch in range(c):
            starts = [_fractional_intervals(draws[b][ch][order[d]], sizes[d], out[d], k[d],
                                            np_dtype) for d in range(nd)]
            corner = np.zeros(1, dtype=np.int64)
            for d in range(nd):
                corner = (corner[:, None] + np.array(starts[d], dtype=np.int64)[None, :]
                          * strides[d]).reshape(-1)
            idx[b, ch] = corner[:, None] + taps[None, :]
    index = tensor(idx, dtype=long, device=input.device)
    out_shape = tuple(shape[:-nd]) + tuple(out)
    plane = int(np.prod(sizes))

    def pool(x):
        flat = x.reshape(n, c, plane)
        got = flat.gather(2, index.reshape(n, c, -1)).reshape(n, c, -1, len(taps))
        return _running_max(got.unbind(-1))[0].reshape(*out_shape)

    values = _one_node(f"FractionalMaxPool{nd}DBackward0", _opmath(pool), input, linear=True)
    if not with_indices:
        return values
    with no_grad():
        flat = input.detach().reshape(n, c, plane)
        got = flat.gather(2, index.reshape(n, c, -1)).reshape(n, c, -1, len(taps))
        at = _running_max(got.unbind(-1), want_tap=True)[1]
        indices = index.gather(3, at.unsqueeze(-1)).reshape(*out_shape)
    return values, indices


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None, *,
                                       _with_indices=True):
    """`fractional_max_pool2d` returning the indices of the maxima too: (output, indices).

    Args:
        input: (N, C, *spatial) or without N.
        kernel_size: the window size.
        output_size: the output's spatial size (give this or `output_ratio`).
        output_ratio: the output size as a fraction of the input size, in (0, 1).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> out, idx = F.fractional_max_pool2d_with_indices(gradrs.randn(1, 1, 8, 8), 2, output_size=5)
        >>> idx.dtype
        gradrs.int64
    """
    from ... import rand

    if output_size is None and output_ratio is None:
        raise ValueError("fractional_max_pool2d requires specifying either an output_size or "
                         "an output_ratio")
    if output_size is None:
        if len(output_ratio) > 2:
            raise ValueError("fractional_max_pool2d requires output_ratio to either be a single "
                             "Int or tuple of Ints.")
        ratio = _pair(output_ratio)
        output_size = [int(input.size(-2) * ratio[0]), int(input.size(-1) * ratio[1])]
    if _random_samples is None:
        n_batch = 1 if input.dim() == 3 else input.size(0)
        # Drawn on the host (gradrs's GPU draws come from the same CPU stream), where the
        # windows are built: nothing to read back from the GPU.
        _random_samples = rand(n_batch, input.size(-3), 2, dtype=input.dtype)
    return _fractional_max_pool(input, kernel_size, output_size, _random_samples, 2,
                                _with_indices)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """2-D fractional max pooling: max pooling over windows whose positions are drawn at
    random, so the output size may be any fraction of the input size.

    Args:
        input: (N, C, *spatial) or without N.
        kernel_size: the window size.
        output_size: the output's spatial size (give this or `output_ratio`).
        output_ratio: the output size as a fraction of the input size, in (0, 1).
        return_indices: also return the indices of the maxima (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.fractional_max_pool2d(gradrs.randn(1, 1, 8, 8), 2, output_size=5).shape
        gradrs.Size([1, 1, 5, 5])
    """
    # Without return_indices the indices are not computed.
    return fractional_max_pool2d_with_indices(input, kernel_size, output_size, output_ratio,
                                              return_indices, _random_samples,
                                              _with_indices=return_indices)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None, *,
                                       _with_indices=True):
    """`fractional_max_pool3d` returning the indices of the maxima too: (output, indices).

    Args:
        input: (N, C, *spatial) or without N.
        kernel_size: the window size.
        output_size: the output's spatial size (give this or `output_ratio`).
        output_ratio: the output size as a fraction of the input size, in (0, 1).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> out, idx = F.fractional_max_pool3d_with_indices(gradrs.randn(1, 1, 8, 8, 8), 2, output_size=5)
        >>> idx.dtype
        gradrs.int64
    """
    from ... import rand

    if output_size is None and output_ratio is None:
        raise ValueError("fractional_max_pool3d requires specifying either an output_size or "
                         "an output_ratio")
    if output_size is None:
        ratio = _triple3(output_ratio)
        output_size = [int(input.size(-3) * ratio[0]), int(input.size(-2) * ratio[1]),
                       int(input.size(-1) * ratio[2])]
    if _random_samples is None:
        n_batch = 1 if input.dim() == 4 else input.size(0)
        # Drawn on the host (gradrs's GPU draws come from the same CPU stream), where the
        # windows are built: nothing to read back from the GPU.
        _random_samples = rand(n_batch, input.size(-4), 3, dtype=input.dtype)
    return _fractional_max_pool(input, kernel_size, output_size, _random_samples, 3,
                                _with_indices)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """3-D fractional max pooling: max pooling over windows whose positions are drawn at
    random, so the output size may be any fraction of the input size.

    Args:
        input: (N, C, *spatial) or without N.
        kernel_size: the window size.
        output_size: the output's spatial size (give this or `output_ratio`).
        output_ratio: the output size as a fraction of the input size, in (0, 1).
        return_indices: also return the indices of the maxima (default False).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.fractional_max_pool3d(gradrs.randn(1, 1, 8, 8, 8), 2, output_size=5).shape
        gradrs.Size([1, 1, 5, 5, 5])
    """
    # Without return_indices the indices are not computed.
    return fractional_max_pool3d_with_indices(input, kernel_size, output_size, output_ratio,
                                              return_indices, _random_samples,
                                              _with_indices=return_indices)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """1-D adaptive max pooling and the index of every maximum."""
    return _adaptive_max_pool1d_impl(input, output_size, True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """2-D adaptive max pooling and the flat index of every maximum."""
    return _adaptive_max_pool2d_impl(input, output_size, True)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """3-D adaptive max pooling and the flat index of every maximum."""
    return _adaptive_max_pool3d_impl(input, output_size, True)


# Each function wrapped as PyTorch's fails (`_check_tensor_args` with its spec,
# `_check_conv_args`) and batched by its vmap rule (`_vmap_rule`): one static name each.
adaptive_avg_pool2d = _vmap_rule(_check_tensor_args(
    adaptive_avg_pool2d, ".size(input)"), "spatial", 2)
adaptive_max_pool2d = _vmap_rule(_check_tensor_args(
    adaptive_max_pool2d, ".size(input)"), "spatial", 2)
adaptive_max_pool1d = _vmap_rule(_check_tensor_args(
    adaptive_max_pool1d, "adaptive_max_pool1d(input)"), "spatial", 1)
adaptive_avg_pool1d = _vmap_rule(_check_tensor_args(
    adaptive_avg_pool1d, "adaptive_avg_pool1d(input)"), "spatial", 1)
adaptive_avg_pool3d = _vmap_rule(adaptive_avg_pool3d, "spatial", 3)
adaptive_max_pool3d = _vmap_rule(adaptive_max_pool3d, "spatial", 3)
adaptive_max_pool1d_with_indices = _check_tensor_args(
    adaptive_max_pool1d_with_indices, "adaptive_max_pool1d(input)")
adaptive_max_pool2d_with_indices = _check_tensor_args(
    adaptive_max_pool2d_with_indices, ".size(input)")
