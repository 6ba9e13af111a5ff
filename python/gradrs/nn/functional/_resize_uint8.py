"""F.interpolate of uint8 images (bilinear with or without antialias, bicubic with): ATen's
separable uint8 resampling (UpSampleKernel.cpp's `separable_upsample_generic_Nd_kernel_impl`
and its AVX2 twin, a port of Pillow-SIMD): per axis, weights computed in double, normalized,
scaled to int16 with the precision their largest value allows; the width pass first, then the
height pass, each rounded to uint8 by integer arithmetic. On the host with numpy; uint8 carries
no gradient."""
from __future__ import annotations

import math

from ... import _native


def _filter(mode, antialias):
    if mode == "bilinear":
        def linear(x):
            x = abs(x)
            return 1.0 - x if x < 1.0 else 0.0
        return linear
    a = -0.5  # Keys' cubic (Pillow's), antialiased only: see resize_uint8

    def cubic(x):
        x = abs(x)
        if x < 1.0:
            return ((a + 2) * x - (a + 3)) * x * x + 1
        if x < 2.0:
            return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
        return 0.0
    return cubic


def _axis_weights(mode, in_size, out_size, scale, align_corners, antialias):
    """[(xmin, [int16 weights])] per output position, and the weights' precision (bits)."""
    if align_corners:
        s = (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    else:
        s = 1.0 / scale if scale is not None and scale > 0 else in_size / out_size
    interp = 2 if mode == "bilinear" else 4
    if antialias:
        support = interp * 0.5 * s if s >= 1.0 else interp * 0.5
        max_size = int(math.ceil(support)) * 2 + 1
    else:
        support = interp * 0.5
        max_size = interp
    delta = 0.5 if align_corners and not antialias else 0.0
    invscale = 1.0 / s if s >= 1.0 and antialias else 1.0
    filt = _filter(mode, antialias)
    rows, wt_max = [], 0.0
    for i in range(out_size):
        center = s * (i + 0.5 - delta)
        xmin = max(int(center - support + 0.5 + delta), 0)  # C's truncating casts
        xsize = min(int(center + support + 0.5 + delta), in_size) - xmin
        xsize = min(max(xsize, 0), max_size)
        ws = [filt((j + xmin - center + 0.5 - delta) * invscale) for j in range(xsize)]
        total = 0.0
        for w in ws:
            total += w
        if total != 0.0:
            ws = [w / total for w in ws]
            wt_max = max([wt_max, *ws])
        rows.append((xmin, ws))
    precision = 0
    while precision < 22:
        if int(0.5 + wt_max * (1 << (precision + 1))) >= 1 << 15:
            break
        precision += 1

    def to_int16(w):
        v = w * (1 << precision)
        return int(math.trunc(v - 0.5) if v < 0 else math.trunc(v + 0.5))

    return [(xmin, [to_int16(w) for w in ws]) for xmin, ws in rows], precision


def _pass(x, axis, rows, precision):
    import numpy as np

    src = np.moveaxis(x, axis, -1).astype(np.int64)
    out = np.empty(src.shape[:-1] + (len(rows),), np.int64)
    for i, (xmin, ws) in enumerate(rows):
        acc = np.full(src.shape[:-1], 1 << (precision - 1) if precision > 0 else 0, np.int64)
        for j, w in enumerate(ws):
            acc += src[..., xmin + j] * w
        out[..., i] = np.clip(acc >> precision, 0, 255)
    return np.moveaxis(out.astype(np.uint8), -1, axis)


def resize_uint8(input, output_size, scale_factors, mode, align_corners, antialias):
    """`input` (N, C, H, W) uint8 resized to `output_size` (or by `scale_factors`)."""
    import numpy as np

    if mode == "bicubic" and not antialias:
        # ATen's uint8 bicubic without antialias is neither this separable scheme (with
        # A = -0.75 or -0.5) nor the float kernel rounded: not reproduced yet
        raise NotImplementedError("interpolate: uint8 input with mode='bicubic' and "
                                  "antialias=False is not supported by gradrs (convert to "
                                  "float, or pass antialias=True)")

    from ... import tensor

    h, w = input.shape[2], input.shape[3]
    if output_size is None:
        output_size = [int(h * scale_factors[0]), int(w * scale_factors[1])]
    oh, ow = output_size
    x = input.detach().cpu().numpy()
    scales = scale_factors if scale_factors is not None else [None, None]
    if ow != w:  # the width (contiguous) axis first, as ATen's separable kernel
        rows, precision = _axis_weights(mode, w, ow, scales[1], align_corners, antialias)
        x = _pass(x, 3, rows, precision)
    if oh != h:
        rows, precision = _axis_weights(mode, h, oh, scales[0], align_corners, antialias)
        x = _pass(x, 2, rows, precision)
    return tensor(np.ascontiguousarray(x), dtype=_native.uint8, device=input.device)
