"""Vision functions of `gradrs.nn.functional`: interpolate / upsample*, affine_grid,
grid_sample, pixel_shuffle / pixel_unshuffle, channel_shuffle.
"""

from __future__ import annotations

import functools

from ... import _native
from ._helpers import _check_tensor_args, _is_integer, _one_node, _vmap_rule
from ._adaptive_pooling import adaptive_avg_pool1d, adaptive_avg_pool2d


def channel_shuffle(input, groups):
    """Rearranges the channels of (N, C, *) as a (groups, C / groups) grid
    read column by column, mixing the groups of a grouped convolution (ShuffleNet).

    Args:
        input: shape (N, C, *), C divisible by `groups`.
        groups: the number of groups.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.channel_shuffle(gradrs.arange(4.0).reshape(1, 4, 1), 2).flatten()
        tensor([0., 2., 1., 3.])
    """
    if groups <= 0:
        raise RuntimeError("Number of groups to divide channels in must be positive. Value of "
                           f"groups:{groups}")
    if input.dim() <= 2:
        raise RuntimeError("channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {list(input.shape)}")
    c = input.shape[1]
    if c % groups != 0:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels "
                           f"and {groups} groups.")
    n, rest = input.shape[0], tuple(input.shape[2:])

    def shuffle(x):
        return x.reshape(n, groups, c // groups, *rest).transpose(1, 2).reshape(n, c, *rest)

    return _one_node("ChannelShuffleBackward0", shuffle, input, saves=())


native_channel_shuffle = channel_shuffle


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resizes `input` (N, C, *spatial) to `size` or by `scale_factor`.

    Args:
        input: shape (N, C, L), (N, C, H, W) or (N, C, D, H, W).
        size: the output's spatial size.
        scale_factor: the multiplier of each spatial size (give this or `size`).
        mode: 'nearest' (default), 'nearest-exact', 'linear', 'bilinear', 'bicubic',
            'trilinear' or 'area'.
        align_corners: for the linear modes: align the corner pixels' centres (default False).
        recompute_scale_factor: compute the scale used from the output size.
        antialias: low-pass filter when downsampling (bilinear and bicubic).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.interpolate(gradrs.tensor([[[1.0, 2.0]]]), scale_factor=2)
        tensor([[[1., 1., 2., 2.]]])
        >>> F.interpolate(gradrs.tensor([[[1.0, 2.0]]]), size=4, mode='linear', align_corners=True)
        tensor([[[1.0000, 1.3333, 1.6667, 2.0000]]])
    """
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    elif size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {list(input.shape[2:])} and output size "
                    f"of {size}. Please provide input tensor in (N, C, d1, d2, ...,dK) format "
                    "and output size in (o1, o2, ...,oK) format.")
            if not all(_is_integer(x) for x in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, "
                                "int] or Tuple[int, int, int], but got size with types "
                                f"{[type(x) for x in size]}")
            output_size = [int(x) for x in size]
        else:
            output_size = [size for _ in range(dim)]
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but "
                    f"got input with spatial dimensions of {list(input.shape[2:])} and "
                    f"scale_factor of shape {scale_factor}. Please provide input tensor in (N, "
                    "C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format.")
            scale_factors = list(scale_factor)
        else:
            scale_factors = [scale_factor for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor is not None and recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor is not None and recompute_scale_factor:
        output_size = [int(input.size(i + 2) * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                         "modes and requires a 4-D tensor as input")
    if mode == "lanczos" and input.dim() == 4:
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
        raise NotImplementedError("interpolate: mode='lanczos' is not supported by gradrs")
    if not input.is_floating_point() and mode not in ("nearest", "nearest-exact"):
        if input.dtype == _native.uint8 and input.dim() == 4 and mode in ("bilinear", "bicubic"):
            from ._resize_uint8 import resize_uint8

            return resize_uint8(input, output_size, scale_factors, mode, align_corners,
                                antialias)
        _integer_resize_error(input, mode, antialias)
    if antialias:
        return _upsample_aa(input, output_size, scale_factors, mode, align_corners)
    if 3 <= input.dim() <= 5 and mode in ("nearest", "nearest-exact"):
        return _upsample(input, output_size, scale_factors, mode, None)
    if 3 <= input.dim() <= 4 and mode == "area":
        pool = adaptive_avg_pool1d if input.dim() == 3 else adaptive_avg_pool2d
        return pool(input, output_size)
    linear_modes = {3: "linear", 4: "bilinear", 5: "trilinear"}
    if linear_modes.get(input.dim()) == mode or (input.dim() == 4 and mode == "bicubic"):
        return _upsample(input, output_size, scale_factors, mode, align_corners)
    for d, m in ((3, "bilinear"), (3, "trilinear"), (4, "linear"), (4, "trilinear"),
                 (5, "linear"), (5, "bilinear")):
        if input.dim() == d and mode == m:
            need = {"linear": 3, "bilinear": 4, "trilinear": 5}[m]
            raise NotImplementedError(f"Got {d}D input, but {m} mode needs {need}D input")
    if input.dim() == 5 and mode == "area":
        raise NotImplementedError("interpolate: mode='area' on 5-D input (adaptive_avg_pool3d) "
                                  "is not supported by gradrs")
    raise NotImplementedError(
        f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the "
        "modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
        f"nearest-exact (got {mode})")


def _integer_resize_error(input, mode, antialias):
    """PyTorch's dispatch errors for the interpolating modes on integer (and bool) tensors,
    which only uint8 images in 2-D bilinear / bicubic escape."""
    from ._helpers import _scalar_name

    kernel = None
    if antialias and input.dim() == 4 and mode in ("bilinear", "bicubic"):
        kernel = "compute_index_ranges_weights"
    elif mode in ("linear", "trilinear") or (mode == "bilinear" and input.dim() != 4):
        kernel = "compute_indices_weights_linear"
    elif mode == "bilinear":
        kernel = "upsample_bilinear2d_channels_last"
    elif mode == "bicubic" and input.dim() == 4:
        kernel = "compute_indices_weights_cubic"
    elif mode == "area" and input.dim() in (3, 4):
        kernel = "adaptive_avg_pool2d"
    elif mode == "area" and input.dim() == 5:
        kernel = "adaptive_avg_pool3d_cpu"
    if kernel is not None:
        raise NotImplementedError(
            f'"{kernel}" not implemented for \'{_scalar_name(input.dtype)}\'')


_UPSAMPLE_NODES = {"nearest": "UpsampleNearest{}DBackward0",
                   "nearest-exact": "UpsampleNearestExact{}DBackward0",
                   "linear": "UpsampleLinear1DBackward0",
                   "bilinear": "UpsampleBilinear2DBackward0",
                   "trilinear": "UpsampleTrilinear3DBackward0",
                   "bicubic": "UpsampleBicubic2DBackward0"}


def _axis_taps(mode, in_size, out_size, scale, align_corners, dtype, shortcuts):
    """Per output position along one axis: the input positions read and their weights, as
    PyTorch's CPU upsample kernels compute them (float32 index math for float32 data)."""
    import numpy as np

    ft = np.float64 if dtype == _native.float64 else np.float32
    o = np.arange(out_size)
    if mode in ("nearest", "nearest-exact"):
        # PyTorch's nearest_idx shortcuts, taken whatever the scale (see _upsample).
        if mode == "nearest" and shortcuts and out_size == in_size:
            return [(o, None)]
        if mode == "nearest" and shortcuts and out_size == 2 * in_size:
            return [(o >> 1, None)]
        s = np.float32(1.0 / scale) if scale is not None and scale > 0 else (
            np.float32(in_size) / np.float32(out_size))
        if mode == "nearest":
            src = np.floor(o.astype(np.float32) * s)
        else:
            src = np.floor((o.astype(np.float32) + np.float32(0.5)) * s)
        return [(np.minimum(src.astype(np.int64), in_size - 1), None)]
    if mode != "bicubic" and in_size == out_size:  # the linear kernels copy such an axis
        return [(o, None)]
    if align_corners:
        s = ft(in_size - 1) / ft(out_size - 1) if out_size > 1 else ft(0)
    else:
        s = ft(1.0 / scale) if scale is not None and scale > 0 else ft(in_size) / ft(out_size)
    if align_corners:
        real = s * o.astype(ft)
    else:
        real = s * (o.astype(ft) + ft(0.5)) - ft(0.5)
    if mode == "bicubic":
        i0 = np.floor(real).astype(np.int64)
        t = (real - i0.astype(ft)).astype(ft)
        a = ft(-0.75)

        def near(x):  # |x| <= 1
            return ((a + 2) * x - (a + 3)) * x * x + 1

        def far(x):  # 1 < |x| < 2
            return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

        ws = [far(t + 1), near(t), near(1 - t), far(2 - t)]
        return [(np.clip(i0 - 1 + j, 0, in_size - 1), ws[j].astype(ft)) for j in range(4)]
    real = np.where(real < 0, ft(0), real).astype(ft)
    i0 = np.minimum(np.floor(real).astype(np.int64), in_size - 1)
    lam = np.minimum(np.maximum(real - i0.astype(ft), ft(0)), ft(1)).astype(ft)
    i1 = i0 + (i0 < in_size - 1)
    return [(i0, (ft(1) - lam).astype(ft)), (i1, lam)]


@functools.lru_cache(maxsize=256)
def _axis_plan(mode, in_size, out_size, scale, align_corners, dtype, device, shortcuts):
    """`_axis_taps` as tensors on `device`, kept so a layer called again on inputs of the same
    size uploads nothing."""
    from ... import tensor

    taps = _axis_taps(mode, in_size, out_size, scale, align_corners, dtype, shortcuts)
    return [(tensor(idx, device=device),
             None if wt is None else tensor(wt, dtype=dtype, device=device)) for idx, wt in taps]


# What the upsample nodes save besides output_size and self_sym_sizes
_ALIGNING = frozenset(("linear", "bilinear", "trilinear", "bicubic"))
_SCALE_NAMES = {1: ("scales",), 2: ("scales_h", "scales_w"),
                3: ("scales_d", "scales_h", "scales_w")}


def _upsample(input, output_size, scale_factors, mode, align_corners):
    nd = input.dim() - 2
    in_sizes = list(input.shape[2:])
    if output_size is None:
        output_size = [int(in_sizes[i] * scale_factors[i]) for i in range(nd)]
    if any(s <= 0 for s in in_sizes) or any(s <= 0 for s in output_size):
        names = "DHW"[3 - nd:]
        ins = ", ".join(f"{names[i]}: {in_sizes[i]}" for i in range(nd))
        outs = ", ".join(f"{names[i]}: {output_size[i]}" for i in range(nd))
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                           f"({ins}){' and' if nd == 1 else ''} output ({outs})")

    def make_plans(shortcuts):
        return [_axis_plan(mode, in_sizes[i], output_size[i],
                           scale_factors[i] if scale_factors is not None else None,
                           align_corners, input.dtype, input.device, shortcuts)
                for i in range(nd)]

    def resample(plans):
        def fn(x):
            # One axis at a time, the last first: PyTorch's kernels nest the width sum inside
            # the height sum, so the rounding order matches.
            for i in reversed(range(nd)):
                axis = 2 + i
                shape = [1] * x.dim()
                shape[axis] = -1
                acc = None
                for idx, wt in plans[i]:
                    part = x.index_select(axis, idx)
                    if wt is not None:
                        part = part * wt.reshape(*shape)
                    acc = part if acc is None else acc + part
                x = acc
            return x

        return fn

    name = _UPSAMPLE_NODES[mode].format(nd)
    # Where PyTorch's backward kernel maps positions differently from its forward, the
    # gradient follows the backward's map: the nearest kernels take an axis of equal or
    # doubled size by the shortcut (i or i >> 1) in 2-D, but in 1-D and 3-D only in the
    # backward (the forward reads floor(i * scale)); bicubic's backward copies the gradient
    # when no size changes, while its forward still resamples by the given scale.
    quirk = scale_factors is not None and (
        (mode == "nearest" and nd != 2
         and any(o in (n, 2 * n) for n, o in zip(in_sizes, output_size)))
        or (mode == "bicubic" and in_sizes == list(output_size)))
    def saved():  # what the node shows, built only when it is recorded
        aligning = [("align_corners", bool(align_corners))] if mode in _ALIGNING else []
        scales = [(n, None if scale_factors is None else float(scale_factors[i]))
                  for i, n in enumerate(_SCALE_NAMES[nd])]
        return [*aligning, ("output_size", tuple(int(n) for n in output_size)), *scales,
                ("self_sym_sizes", tuple(input.shape))]

    if quirk and mode == "bicubic":
        out = _one_node(name, lambda x: x.clone(), input, linear=True, saved=saved)
    else:
        out = _one_node(name, resample(make_plans(nd == 2 or quirk)), input, linear=True,
                        saved=saved)
    if quirk:
        from ... import no_grad

        with no_grad():
            exact = resample(make_plans(False))(input.detach())
            if out.requires_grad:
                out.copy_(exact)
            else:
                out = exact
    return out


def _axis_taps_aa(mode, in_size, out_size, scale, align_corners, dtype):
    """Per output position along one axis: PyTorch's antialiased taps (the separable
    _compute_indices_weights_aa: a bilinear or Keys a = -0.5 bicubic filter widened by the
    downscaling factor, normalized to sum 1) as [(input positions, weights, in range)], one
    entry per tap up to the widest window; computed in the data's float type, as the kernel."""
    import numpy as np

    ft = np.float64 if dtype == _native.float64 else np.float32
    if align_corners:
        s = ft(in_size - 1) / ft(out_size - 1) if out_size > 1 else ft(0)
    else:
        s = ft(1.0 / scale) if scale is not None and scale > 0 else ft(in_size) / ft(out_size)
    interp = 2 if mode == "bilinear" else 4
    support = ft(interp * 0.5) * s if s >= 1.0 else ft(interp * 0.5)
    invscale = ft(1.0) / s if s >= 1.0 else ft(1.0)
    a = ft(-0.5)

    def filt(x):
        x = np.abs(x).astype(ft)
        if mode == "bilinear":
            return np.where(x < 1.0, ft(1.0) - x, ft(0.0)).astype(ft)
        near = ((a + 2) * x - (a + 3)) * x * x + 1
        far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
        return np.where(x < 1.0, near, np.where(x < 2.0, far, ft(0.0))).astype(ft)

    width = int(np.ceil(support)) * 2 + 1
    idx = np.zeros((out_size, width), np.int64)
    wts = np.zeros((out_size, width), ft)
    used = np.zeros((out_size, width), bool)
    for i in range(out_size):
        center = s * ft(i + 0.5)
        xmin = max(int(np.float64(center - support) + 0.5), 0)
        xsize = min(int(np.float64(center + support) + 0.5), in_size) - xmin
        # (j + xmin - center + 0.5) is a double in the kernel; the filter takes it as float
        w = filt(np.array([ft((np.float64(j + xmin - center) + 0.5) * np.float64(invscale))
                           for j in range(xsize)], ft))
        total = ft(0)
        for v in w:
            total = ft(total + v)
        if total != 0:
            w = (w / total).astype(ft)
        idx[i, :xsize] = np.arange(xmin, xmin + xsize)
        idx[i, xsize:] = xmin
        wts[i, :xsize] = w
        used[i, :xsize] = True
    return [(idx[:, j], wts[:, j], used[:, j]) for j in range(width)]


_UPSAMPLE_AA_NODES = {"bilinear": "UpsampleBilinear2DAaBackward0",
                      "bicubic": "UpsampleBicubic2DAaBackward0"}


def _upsample_aa(input, output_size, scale_factors, mode, align_corners):
    """interpolate(..., antialias=True): one separable pass per resized axis, the width first,
    each output the weighted sum of its window in order (an axis whose size does not change is
    kept as it is)."""
    from ... import tensor, where

    in_sizes = list(input.shape[2:])
    if output_size is None:
        output_size = [int(in_sizes[i] * scale_factors[i]) for i in range(2)]
    if any(s <= 0 for s in in_sizes) or any(s <= 0 for s in output_size):
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input (H: "
                           f"{in_sizes[0]}, W: {in_sizes[1]}) output (H: {output_size[0]}, W: "
                           f"{output_size[1]})")
    plans = []
    for i in range(2):
        taps = _axis_taps_aa(mode, in_sizes[i], output_size[i],
                             scale_factors[i] if scale_factors is not None else None,
                             align_corners, input.dtype)
        plans.append([(tensor(idx, device=input.device),
                       tensor(wt, dtype=input.dtype, device=input.device),
                       None if used.all() else tensor(used, device=input.device))
                      for idx, wt, used in taps])

    def fn(x):
        for i in (1, 0):
            if in_sizes[i] == output_size[i]:
                continue
            axis = 2 + i
            shape = [1] * x.dim()
            shape[axis] = -1
            acc = None
            for idx, wt, used in plans[i]:
                part = x.index_select(axis, idx) * wt.reshape(*shape)
                if acc is None:
                    acc = part
                elif used is None:
                    acc = acc + part
                else:  # past this output's window: not added, as the kernel stops there
                    acc = where(used.reshape(*shape), acc + part, acc)
            x = acc
        return x if in_sizes != list(output_size) else x.clone()

    return _one_node(_UPSAMPLE_AA_NODES[mode], fn, input, linear=True, saves=())


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated spelling of `interpolate` (same arguments), kept for old programs.

    Args:
        input: shape (N, C, *spatial).
        size: the output's spatial size.
        scale_factor: the multiplier of each spatial size.
        mode: the interpolation mode (default 'nearest').
        align_corners: for the linear modes: align the corner pixels' centres.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.upsample(gradrs.tensor([[[1.0, 2.0]]]), scale_factor=2)
        tensor([[[1., 1., 2., 2.]]])
    """
    import warnings

    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: `interpolate(input, size, scale_factor, mode='nearest')`.

    Args:
        input: shape (N, C, *spatial).
        size: the output's spatial size.
        scale_factor: the multiplier of each spatial size.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.upsample_nearest(gradrs.tensor([[[1.0, 2.0]]]), scale_factor=2)
        tensor([[[1., 1., 2., 2.]]])
    """
    import warnings

    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: `interpolate(input, size, scale_factor, mode='bilinear',
    align_corners=True)`.

    Args:
        input: shape (N, C, H, W).
        size: the output's spatial size.
        scale_factor: the multiplier of each spatial size.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.upsample_bilinear(gradrs.ones(1, 1, 2, 2), scale_factor=2).shape
        gradrs.Size([1, 1, 4, 4])
    """
    import warnings

    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# -- affine_grid / grid_sample --

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners="
                  "False since 1.3.0. Please specify align_corners=True if the old behavior is "
                  "desired. See the documentation of grid_sample for details.")


def _linspace_from_neg_one(n, align_corners, like):
    from ... import linspace, zeros

    if n <= 1:
        return zeros(1, dtype=like.dtype, device=like.device)
    r = linspace(-1, 1, n, dtype=like.dtype, device=like.device)
    return r if align_corners else r * (n - 1) / n


def affine_grid(theta, size, align_corners=None):
    """Sampling grid for `grid_sample` from a batch of affine matrices: the
    normalized coordinates ([-1, 1]) of each output pixel mapped by `theta`.

    Args:
        theta: shape (N, 2, 3) for 2-D or (N, 3, 4) for 3-D.
        size: the output size (N, C, H, W) or (N, C, D, H, W).
        align_corners: -1 and 1 are the corner pixels' centres (True) or edges (False, default).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> theta = gradrs.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
        >>> F.affine_grid(theta, (1, 1, 2, 2), align_corners=False)
        tensor([[[[-0.5000, -0.5000],
                  [ 0.5000, -0.5000]],
        <BLANKLINE>
                 [[-0.5000,  0.5000],
                  [ 0.5000,  0.5000]]]])
    """
    import warnings

    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError("Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                             f"{size}. Got {theta.shape}.")
        spatial_size = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError("Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                             f"{size}. Got {theta.shape}.")
        spatial_size = size[-3:]
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    if align_corners and min(spatial_size) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids "
                      "when align_corners=True. This is not an intended use case of "
                      "affine_grid. See the documentation of affine_grid for details.",
                      stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    from ... import ones, stack

    n = size[0]
    # PyTorch's affine_grid_generator: the base grid (x, y[, z], 1) of the output positions,
    # times theta^T.
    axes = [_linspace_from_neg_one(m, align_corners, theta) for m in spatial_size]
    dims = len(spatial_size)
    coords = []
    for k in reversed(range(dims)):  # x varies along the last dim, then y, then z
        shape = [1] * dims
        shape[k] = -1
        coords.append(axes[k].reshape(*shape).expand(*spatial_size))
    coords.append(ones(tuple(spatial_size), dtype=theta.dtype, device=theta.device))
    base = stack(coords, -1).reshape(1, -1, dims + 1)

    def generate(t):
        # base @ theta^T, summed over k in order with float rounding at each step: what
        # PyTorch's bmm gives for this contraction of 3 (or 4) terms (its small-matrix loop
        # and MKL alike), where a gemm kernel's fused multiply-adds differ in the last bit
        out = None
        for k in range(dims + 1):
            term = base[:, :, k:k + 1] * t[:, :, k].unsqueeze(1)
            out = term if out is None else out + term
        return out.reshape(n, *spatial_size, dims)

    return _one_node("AffineGridGeneratorBackward0", generate, theta, saves=())


def _grid_unnormalize(coord, size, align_corners):
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _reflect_coordinates(x, twice_low, twice_high):
    from ... import where

    if twice_low == twice_high:
        return x * 0
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    d = (x - low).abs()
    extra = d.fmod(span)
    even = (d / span).floor().remainder(2) == 0
    return where(even, extra + low, span - extra + low)


def _grid_source_index(coord, size, padding_mode, align_corners):
    """PyTorch's grid_sampler_compute_source_index: pixel coordinates, with border or
    reflection padding folded in."""
    x = _grid_unnormalize(coord, size, align_corners)
    if padding_mode == "border":
        x = x.clamp(0, size - 1)
    elif padding_mode == "reflection":
        if align_corners:
            x = _reflect_coordinates(x, 0, 2 * (size - 1))
        else:
            x = _reflect_coordinates(x, -1, 2 * size - 1)
        x = x.clamp(0, size - 1)
    return x


def _grid_source_index_2d(coord, size, padding_mode, align_corners, pad=True):
    """The pixel coordinates of PyTorch's vectorized 2-D grid sampler (GridSamplerKernel.cpp's
    ComputeLocation), whose arithmetic differs from the scalar one of the 3-D sampler
    (`_grid_source_index`): (x + 1) * scale (- 0.5), and reflection by truncated flips."""
    if align_corners:
        x = (coord + 1) * ((size - 1) / 2)
        low, twice_span = 0.0, (size - 1) * 2
    else:
        x = (coord + 1) * (size / 2) - 0.5
        low, twice_span = -0.5, size * 2
    if not pad or padding_mode == "zeros":
        return x
    if padding_mode == "reflection":
        if twice_span <= 0:
            return x * 0
        d = (x - low).abs()
        extra = d - (d / twice_span).trunc() * twice_span
        x = extra.minimum(twice_span - extra) + low
    return x.clamp(0, size - 1)


def _fma(a, b, acc):
    """a * b + acc rounded once where the dtype allows (float32 through float64), else twice."""
    if acc.dtype == _native.float32:
        return (a.double() * b.double() + acc.double()).float()
    return a * b + acc


def _cubic_coefficients(t):
    """The four weights of the cubic convolution (A = -0.75) at fraction t, PyTorch's order."""
    a = -0.75

    def near(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Samples `input` at the normalized coordinates of `grid` ([-1, 1] spans the
    input), interpolating between pixels.

    Args:
        input: shape (N, C, H, W) or (N, C, D, H, W).
        grid: shape (N, H_out, W_out, 2) or (N, D_out, H_out, W_out, 3), (x, y[, z]) order.
        mode: 'bilinear' (default), 'nearest' or 'bicubic'.
        padding_mode: values outside the input: 'zeros' (default), 'border' or 'reflection'.
        align_corners: -1 and 1 are the corner pixels' centres (True) or edges (False, default).

    Examples:
        >>> import gradrs.nn.functional as F
        >>> img = gradrs.arange(4.0).reshape(1, 1, 2, 2)
        >>> F.grid_sample(img, gradrs.zeros(1, 1, 1, 2), align_corners=False)
        tensor([[[[1.5000]]]])
    """
    import warnings

    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if input.dim() == 5 and grid.dim() == 5:
        if mode == "bicubic":
            raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
        return _grid_sample_3d(input, grid, mode, padding_mode, align_corners)
    if input.dim() != 4 or grid.dim() != 4:
        raise RuntimeError(
            "grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, "
            f"but got input with sizes {list(input.shape)} and grid with sizes "
            f"{list(grid.shape)}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(
            "grid_sampler(): expected grid and input to have same batch size, but got input "
            f"with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if grid.shape[-1] != 2:
        raise RuntimeError(
            "grid_sampler(): expected grid to have size 2 in last dimension, but got grid with "
            f"sizes {list(grid.shape)}")
    n, c, h, w = input.shape
    oh, ow = grid.shape[1], grid.shape[2]

    def bounded(v, size):
        # PyTorch's compute_coordinates: the padding applied to a tap's own position
        if padding_mode == "border":
            return v.clamp(0, size - 1)
        if padding_mode == "reflection":
            twice = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
            return _reflect_coordinates(v, *twice).clamp(0, size - 1)
        return v

    def sample(x, g):
        flat = x.reshape(n, c, h * w)
        pad = mode != "bicubic"  # bicubic pads the integer positions it reads instead
        ix = _grid_source_index_2d(g[..., 0], w, padding_mode, align_corners, pad)
        iy = _grid_source_index_2d(g[..., 1], h, padding_mode, align_corners, pad)

        def read(xi, yi):
            # values at integer positions (xi, yi), zero outside the image
            inside = (xi >= 0) & (xi <= w - 1) & (yi >= 0) & (yi <= h - 1)
            idx = (yi.clamp(0, h - 1) * w + xi.clamp(0, w - 1)).long().reshape(n, 1, -1)
            vals = flat.gather(2, idx.expand(n, c, oh * ow)).reshape(n, c, oh, ow)
            return vals.masked_fill(~inside.unsqueeze(1), 0.0)

        if mode == "bicubic":
            x0, y0 = ix.detach().floor(), iy.detach().floor()
            cx = _cubic_coefficients((ix - x0).unsqueeze(1))
            cy = _cubic_coefficients((iy - y0).unsqueeze(1))
            out = None
            for i in range(4):
                yi = bounded(y0 - 1 + i, h).trunc()
                row = None
                for j in range(4):
                    v = read(bounded(x0 - 1 + j, w).trunc(), yi) * cx[j]
                    row = v if row is None else row + v
                out = row * cy[i] if out is None else out + row * cy[i]
            return out
        if mode == "nearest":
            # nearbyint: halves round to even, as round() does. The grid's gradient is zero
            # (present, as PyTorch's), hence the term that is 0 for finite coordinates.
            zero = ((ix - ix.detach()) + (iy - iy.detach())).unsqueeze(1) * 0
            return read(ix.detach().round(), iy.detach().round()) + zero
        x0, y0 = ix.detach().floor(), iy.detach().floor()
        x1, y1 = x0 + 1, y0 + 1
        # the distances to each side and their products, as PyTorch's kernel rounds them
        dw, dn = ix - x0, iy - y0
        de, ds = 1 - dw, 1 - dn
        nw = (ds * de).unsqueeze(1)
        ne = (ds * dw).unsqueeze(1)
        sw = (dn * de).unsqueeze(1)
        se = (dn * dw).unsqueeze(1)
        # PyTorch's kernel accumulates with fused multiply-adds: nw * v, then fma(v, w, acc)
        # for ne, sw and se. For float32 a float64 product (exact) plus the float32
        # accumulator, rounded once to float32, gives those bits.
        out = read(x0, y0) * nw
        for v, wt in ((read(x1, y0), ne), (read(x0, y1), sw), (read(x1, y1), se)):
            out = _fma(v, wt, out)
        return out

    return _one_node("GridSampler2DBackward0", sample, input, grid)


def _grid_sample_3d(input, grid, mode, padding_mode, align_corners):
    """PyTorch's 3-D grid sampler (trilinear or nearest): `input` [N, C, D, H, W] read at
    `grid` [N, D', H', W', 3] ((x, y, z) normalized), one GridSampler3DBackward0."""
    for what, cond in (("batch size", input.shape[0] != grid.shape[0]),):
        if cond:
            raise RuntimeError(
                f"grid_sampler(): expected grid and input to have same {what}, but got input "
                f"with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if grid.shape[-1] != 3:
        raise RuntimeError(
            "grid_sampler(): expected grid to have size 3 in last dimension, but got grid with "
            f"sizes {list(grid.shape)}")
    n, c, d, h, w = input.shape
    od, oh, ow = grid.shape[1], grid.shape[2], grid.shape[3]

    def sample(x, g):
        flat = x.reshape(n, c, d * h * w)
        ix = _grid_source_index(g[..., 0], w, padding_mode, align_corners)
        iy = _grid_source_index(g[..., 1], h, padding_mode, align_corners)
        iz = _grid_source_index(g[..., 2], d, padding_mode, align_corners)

        def read(xi, yi, zi):
            inside = ((xi >= 0) & (xi <= w - 1) & (yi >= 0) & (yi <= h - 1) & (zi >= 0)
                      & (zi <= d - 1))
            idx = ((zi.clamp(0, d - 1) * h + yi.clamp(0, h - 1)) * w
                   + xi.clamp(0, w - 1)).long().reshape(n, 1, -1)
            vals = flat.gather(2, idx.expand(n, c, od * oh * ow)).reshape(n, c, od, oh, ow)
            return vals.masked_fill(~inside.unsqueeze(1), 0.0)

        if mode == "nearest":
            zero = ((ix - ix.detach()) + (iy - iy.detach())
                    + (iz - iz.detach())).unsqueeze(1) * 0
            return read(ix.detach().round(), iy.detach().round(), iz.detach().round()) + zero
        x0, y0, z0 = ix.detach().floor(), iy.detach().floor(), iz.detach().floor()
        out = None
        for dz in (0, 1):
            wz = (iz - z0) if dz else (z0 + 1 - iz)
            for dy in (0, 1):
                wy = (iy - y0) if dy else (y0 + 1 - iy)
                for dx in (0, 1):
                    wx = (ix - x0) if dx else (x0 + 1 - ix)
                    v = read(x0 + dx, y0 + dy, z0 + dz) * (wx * wy * wz).unsqueeze(1)
                    out = v if out is None else out + v
        return out

    return _one_node("GridSampler3DBackward0", sample, input, grid)


# -- pixel shuffle --


def pixel_shuffle(input, upscale_factor):
    """Moves channels into space: (*, C r^2, H, W) becomes (*, C, H r, W r), for
    sub-pixel convolution upsampling.

    Args:
        input: shape (*, C * r^2, H, W).
        upscale_factor: r.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.pixel_shuffle(gradrs.ones(1, 8, 3, 3), 2).shape
        gradrs.Size([1, 2, 6, 6])
    """
    r = upscale_factor
    if input.dim() < 3:
        raise RuntimeError("pixel_shuffle expects input to have at least 3 dimensions, but got "
                           f"input with {input.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    c, h, w = input.shape[-3:]
    if c % (r * r) != 0:
        raise RuntimeError(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
            f"square of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    lead = tuple(input.shape[:-3])
    nl = len(lead)

    def fn(x):
        y = x.reshape(*lead, c // (r * r), r, r, h, w)
        y = y.permute(*range(nl), nl, nl + 3, nl + 1, nl + 4, nl + 2)
        return y.reshape(*lead, c // (r * r), h * r, w * r)

    return _one_node("PixelShuffleBackward0", fn, input, saved=lambda: [("upscale_factor", r)])


def pixel_unshuffle(input, downscale_factor):
    """Inverse of `pixel_shuffle`: (*, C, H r, W r) becomes (*, C r^2, H, W).

    Args:
        input: shape (*, C, H * r, W * r).
        downscale_factor: r.

    Examples:
        >>> import gradrs.nn.functional as F
        >>> F.pixel_unshuffle(gradrs.ones(1, 2, 6, 6), 2).shape
        gradrs.Size([1, 8, 3, 3])
    """
    r = downscale_factor
    if input.dim() < 3:
        raise RuntimeError("pixel_unshuffle expects input to have at least 3 dimensions, but "
                           f"got input with {input.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    c, h, w = input.shape[-3:]
    if h % r != 0:
        raise RuntimeError("pixel_unshuffle expects height to be divisible by downscale_factor, "
                           f"but input.size(-2)={h} is not divisible by {r}")
    if w % r != 0:
        raise RuntimeError("pixel_unshuffle expects width to be divisible by downscale_factor, "
                           f"but input.size(-1)={w} is not divisible by {r}")
    lead = tuple(input.shape[:-3])
    nl = len(lead)

    def fn(x):
        y = x.reshape(*lead, c, h // r, r, w // r, r)
        y = y.permute(*range(nl), nl, nl + 2, nl + 4, nl + 1, nl + 3)
        return y.reshape(*lead, c * r * r, h // r, w // r)

    return _one_node("PixelUnshuffleBackward0", fn, input, saves=())


# Each function wrapped as PyTorch's fails (`_check_tensor_args` with its spec,
# `_check_conv_args`) and batched by its vmap rule (`_vmap_rule`): one static name each.
channel_shuffle = _check_tensor_args(channel_shuffle, "channel_shuffle(input)")
native_channel_shuffle = _check_tensor_args(
    native_channel_shuffle, "native_channel_shuffle(input)")
interpolate = _vmap_rule(interpolate, "spatial", None)
grid_sample = _check_tensor_args(grid_sample, "grid_sampler(input, grid)")
pixel_shuffle = _check_tensor_args(pixel_shuffle, "pixel_shuffle(input)")
pixel_unshuffle = _check_tensor_args(pixel_unshuffle, "pixel_unshuffle(input)")
