"""ATen's nn natives PyTorch exposes at the top level with their own signatures and return
tuples: `native_batch_norm` / `native_layer_norm` (gradrs's native ops), `native_group_norm`,
`native_dropout`, `native_norm`, `convolution`, `embedding_bag` (with ATen's `offset2bag`,
`bag_size` and `max_indices`), `embedding_renorm_`, the grid samplers and
`affine_grid_generator`, over the `nn.functional` forms (whose nodes are PyTorch's).
"""

from __future__ import annotations

import numpy as np

from . import _native
from ._grad_mode import enable_grad, no_grad
from ._native import Tensor, native_batch_norm, native_layer_norm
from ._ops._common import _node
from .nn import functional as F
from .nn.functional import _sparse, _vision

__all__ = [
    "native_batch_norm", "native_layer_norm", "native_group_norm", "native_dropout",
    "native_norm", "convolution", "embedding_bag", "embedding_renorm_", "grid_sampler",
    "grid_sampler_2d", "grid_sampler_3d", "affine_grid_generator",
]


def multi_output_node(name, fn, inputs, differentiable, saves=None, used=None):
    """``fn(*inputs)`` (a tuple) computed without recording; when grad mode is on and a tensor
    input requires grad, its outputs at the `differentiable` positions become the outputs of one
    node `name` whose backward recomputes them from the inputs and differentiates that, so
    gradients of every order reach the inputs. `saves`: the inputs PyTorch's node saves;
    `used(grads)`: the outputs whose gradients PyTorch's formula reads (None: all)."""
    tensors = [t if isinstance(t, Tensor) else None for t in inputs]
    with no_grad():
        outs = tuple(fn(*inputs))
    if not (_native.is_grad_enabled()
            and any(t is not None and t.requires_grad for t in tensors)):
        return outs
    wanted = [i for i, t in enumerate(tensors) if t is not None and t.requires_grad]

    def backward(grads):
        create = _native.is_grad_enabled()
        leaves = list(inputs)
        if not create:
            for i in wanted:
                leaves[i] = inputs[i].detach().requires_grad_()
        with enable_grad():
            again = fn(*leaves)
        reads = used(grads) if used is not None else differentiable
        pairs = [(again[k], g) for k, g in zip(differentiable, grads)
                 if g is not None and again[k].requires_grad and k in reads]
        result = [None] * len(inputs)
        if pairs:
            got = _native._grad([o for o, _ in pairs], [leaves[i] for i in wanted],
                                [g for _, g in pairs], True, create, True)
            for i, r in zip(wanted, got):
                result[i] = r
        return result

    _native._attach_node([outs[k] for k in differentiable], tensors, name, backward,
                         save_inputs=saves)
    return outs


# --- normalization ---------------------------------------------------------------------------


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """ATen's group normalization: `input` ([N, C, *] with HxW elements per channel) in
    `group` groups; returns ``(output, mean, rstd)``, the statistics of shape [N, group],
    all three outputs of one NativeGroupNormBackward0.

    Examples:
        >>> x = gradrs.tensor([[[1.0], [3.0], [0.0], [2.0]]])
        >>> gradrs.native_group_norm(x, None, None, 1, 4, 1, 2, 0.0)[1]
        tensor([[2., 1.]])
    """
    if input.numel() != N * C * HxW:
        raise RuntimeError(f"Expected input to have {N * C * HxW} elements, but got "
                           f"{input.numel()} elements")
    if C % group != 0:
        raise RuntimeError(f"Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {list(input.shape)} and "
                           f"num_groups={group}")

    def compute(x, w, b):
        g = x.reshape(N, group, -1)
        acc = g.double() if g.dtype == _native.float16 else g
        mean = acc.mean(-1)
        var = acc.var(-1, unbiased=False)
        rstd = (var + eps).rsqrt()
        out = ((acc - mean.unsqueeze(-1)) * rstd.unsqueeze(-1)).to(x.dtype).reshape(x.shape)
        shape = [1, C] + [1] * (x.dim() - 2)
        if w is not None:
            out = out * w.reshape(shape)
        if b is not None:
            out = out + b.reshape(shape)
        return out, mean.to(x.dtype), rstd.to(x.dtype)

    # PyTorch's formula (infinitely_differentiable_native_group_norm_backward) reads the
    # statistics' gradients only when both are defined: one alone is dropped, as there.
    return multi_output_node("NativeGroupNormBackward0", compute, (input, weight, bias),
                             (0, 1, 2), saves=(0, 1), used=_group_norm_reads)


def _group_norm_reads(grads):
    return (0, 1, 2) if grads[1] is not None and grads[2] is not None else (0,)


def native_dropout(input, p, train):
    """ATen's dropout: ``(output, mask)``, the kept elements scaled by 1 / (1 - p) when
    `train` (or None), else a copy of `input` and an all-True mask; the mask is drawn as
    PyTorch's (``bernoulli_(1 - p)``), so a seed gives PyTorch's masks.

    Examples:
        >>> out, mask = gradrs.native_dropout(gradrs.ones(3), 0.5, False)
        >>> mask
        tensor([True, True, True])
    """
    if input.numel() == 0:
        return input, _native.empty_like(input)
    training = train is None or train
    scale = (0.0 if p == 1 else 1.0 / (1.0 - p)) if training else 1.0
    with no_grad():
        if training:
            noise = _native.empty(tuple(input.shape), dtype=input.dtype,
                                  device=input.device).bernoulli_(1.0 - p)
            out, mask = input.mul(noise).mul(scale), noise.bool()
        else:
            out, mask = input.clone(), _native.ones_like(input, dtype=_native.bool)
    # derivatives.yaml's scale reads `train` as given: None (which trains) scales by 1 there
    back = (0.0 if p == 1 else 1.0 / (1.0 - p)) if train else 1.0
    _node("NativeDropoutBackward0", out, [input],
          lambda g: [g * mask.to(g.dtype) * back], saved=[("p", float(p)), ("result1", mask)])
    return out, mask


def native_norm(input, p=2, dim=None, keepdim=False, dtype=None):
    """ATen's `native_norm`, a kernel for sparse tensors only: PyTorch has no CPU or GPU
    kernel for dense tensors (it raises its dispatcher's NotImplementedError), nor has gradrs;
    use :func:`gradrs.linalg.vector_norm`.

    Examples:
        >>> gradrs.native_norm(gradrs.ones(2))
        Traceback (most recent call last):
        ...
        NotImplementedError: Could not run 'aten::native_norm' with arguments from the 'CPU' backend. ...
    """
    backend = "CPU" if input.device.type == "cpu" else "CUDA"
    raise NotImplementedError(
        f"Could not run 'aten::native_norm' with arguments from the '{backend}' backend. This "
        "could be because the operator doesn't exist for this backend, or was omitted during the "
        "selective/custom build process (if using custom build). 'aten::native_norm' is only "
        "available for the SparseCPU and SparseCUDA backends.")


# --- convolution -----------------------------------------------------------------------------


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    """ATen's convolution: every argument given, lists of one int per spatial dimension (the
    dimensions follow `weight`: 1-, 2- or 3-d), `transposed` for the transposed convolution;
    its node is ConvolutionBackward0.

    Examples:
        >>> x = gradrs.ones(1, 1, 4)
        >>> gradrs.convolution(x, gradrs.ones(1, 1, 2), None, [1], [0], [1], False, [0], 1)
        tensor([[[2., 2., 2.]]])
    """
    nd = weight.dim() - 2
    if input.dim() != weight.dim():
        raise RuntimeError(
            f"Expected {weight.dim()}-dimensional input for {weight.dim()}-dimensional weight "
            f"{list(weight.shape)}, but got {input.dim()}-dimensional input of size "
            f"{list(input.shape)} instead")
    if not 1 <= nd <= 3:
        raise RuntimeError(f"Expected 3D, 4D or 5D weight, but got {weight.dim()}D weight")
    if transposed:
        fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[nd - 1]
        return fn(input, weight, bias, list(stride), list(padding), list(output_padding),
                  groups, list(dilation))
    fn = (F.conv1d, F.conv2d, F.conv3d)[nd - 1]
    return fn(input, weight, bias, list(stride), list(padding), list(dilation), groups)


# --- embedding bags --------------------------------------------------------------------------

_MODES = {0: "sum", 1: "mean", 2: "max"}


def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """ATen's embedding_bag: `mode` 0 (sum), 1 (mean) or 2 (max) over the bags of the 1-D
    `indices` that `offsets` start; returns ``(output, offset2bag, bag_size, max_indices)``
    as ATen's CPU kernel computes them (`offset2bag` is empty on its fast sum path,
    `bag_size` zeros in sum mode, `max_indices` the picked rows in max mode and a copy of
    `bag_size` otherwise). The output's node is EmbeddingBagBackward0.

    Examples:
        >>> w = gradrs.arange(6.0).reshape(3, 2)
        >>> gradrs.embedding_bag(w, gradrs.tensor([0, 1, 2]), gradrs.tensor([0, 2]))[0]
        tensor([[2., 4.],
                [4., 5.]])
    """
    if mode not in _MODES:
        raise RuntimeError("`mode` must be sum, mean, or max.")
    if per_sample_weights is not None and mode != 0:
        raise RuntimeError("embedding_bag: per_sample_weights only supported with mode='sum'")
    name = _MODES[mode]
    starts = [int(v) for v in offsets.detach().cpu().tolist()]
    pad = None if padding_idx is None or padding_idx < 0 else padding_idx
    output = _sparse._embedding_bag(indices, weight, starts, offsets.type(), scale_grad_by_freq,
                                    name, per_sample_weights, include_last_offset, pad)
    idx = indices.detach().cpu().numpy().reshape(-1).astype(np.int64)
    n, bags = len(idx), len(starts) - (1 if include_last_offset else 0)
    bounds = np.array(starts[:bags] + [n], np.int64)
    kind = indices.dtype if indices.dtype == offsets.dtype else _native.int64
    fast = (mode == 0 and weight.dtype in (_native.float32, _native.float16, _native.bfloat16)
            and pad is None
            and (per_sample_weights is None or per_sample_weights.stride(0) == 1))
    if fast:
        offset2bag = np.zeros(0, np.int64)
    else:
        offset2bag = np.searchsorted(np.asarray(starts[:bags], np.int64), np.arange(n), "right") - 1
        offset2bag = np.maximum(offset2bag, 0)
    keep = idx != pad if pad is not None else np.ones(n, bool)
    counts = np.array([int(keep[bounds[b]:bounds[b + 1]].sum()) for b in range(bags)],
                      np.int64)
    bag_size = counts if mode != 0 else np.zeros(bags, np.int64)
    if mode == 2:
        w = weight.detach().cpu().numpy()
        max_indices = np.zeros((bags, weight.shape[1]), np.int64)
        for b in range(bags):
            rows = [r for r in idx[bounds[b]:bounds[b + 1]] if r != pad]
            if rows:
                vals = w[rows]
                max_indices[b] = np.asarray(rows)[_first_max(vals)]
    else:
        max_indices = bag_size.copy()
    dev = weight.device

    def make(a):
        return _native.tensor(a.tolist(), dtype=kind, device=dev)

    return output, make(offset2bag), make(bag_size), make(max_indices)


def _first_max(vals):
    """Per column, the first row holding the largest value (ATen keeps the first of ties)."""
    return np.argmax(vals, axis=0)


def embedding_renorm_(input, indices, max_norm, norm_type):
    """Scales in place each row of `input` that `indices` names and whose `norm_type`-norm
    exceeds `max_norm` down to that norm (outside autograd, as `F.embedding`'s `max_norm`);
    returns `input`.

    Examples:
        >>> w = gradrs.tensor([[3.0, 4.0], [0.3, 0.4]])
        >>> gradrs.embedding_renorm_(w, gradrs.tensor([0, 1]), 1.0, 2.0)
        tensor([[0.6000, 0.8000],
                [0.3000, 0.4000]])
    """
    if input.requires_grad and input.is_leaf and _native.is_grad_enabled():
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    _sparse._embedding_renorm_(input, indices, max_norm, norm_type)  # counts one version
    return input


# --- grid sampling ---------------------------------------------------------------------------

_INTERPOLATION = {0: "bilinear", 1: "nearest", 2: "bicubic"}
_PADDING = {0: "zeros", 1: "border", 2: "reflection"}


def _sampler_check(input, grid, nd):
    """ATen's check_grid_sampler_common, then the check of the 2-D or 3-D sampler."""
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(
            "grid_sampler(): expected grid and input to have same batch size, but got input "
            f"with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if grid.shape[-1] != input.dim() - 2:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {input.dim() - 2} in last dimension, "
            f"but got grid with sizes {list(grid.shape)}")
    if input.dim() != nd + 2 or grid.dim() != nd + 2:
        raise RuntimeError(
            f"grid_sampler(): expected {nd + 2}D input and grid with same number of dimensions, "
            f"but got input with sizes {list(input.shape)} and grid with sizes "
            f"{list(grid.shape)}")


def _modes(interpolation_mode, padding_mode):
    if interpolation_mode not in _INTERPOLATION:
        raise RuntimeError(f"grid_sampler(): unknown interpolation_mode {interpolation_mode}")
    if padding_mode not in _PADDING:
        raise RuntimeError(f"grid_sampler(): unknown padding_mode {padding_mode}")
    return _INTERPOLATION[interpolation_mode], _PADDING[padding_mode]


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """ATen's grid_sampler: `F.grid_sample` with the modes as ATen's integers
    (interpolation 0 bilinear, 1 nearest, 2 bicubic; padding 0 zeros, 1 border, 2 reflection),
    on 4-D or 5-D inputs.

    Examples:
        >>> img = gradrs.arange(4.0).reshape(1, 1, 2, 2)
        >>> gradrs.grid_sampler(img, gradrs.zeros(1, 1, 1, 2), 0, 0, False)
        tensor([[[[1.5000]]]])
    """
    if input.dim() == 5:
        return grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners)
    return _sample_2d(input, grid, interpolation_mode, padding_mode, align_corners)


def _sample_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    mode, padding = _modes(interpolation_mode, padding_mode)
    return F.grid_sample(input, grid, mode, padding, bool(align_corners))


def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    """ATen's 2-D grid sampler (:func:`grid_sampler` on 4-D tensors); its node is
    GridSampler2DBackward0.

    Examples:
        >>> img = gradrs.arange(4.0).reshape(1, 1, 2, 2)
        >>> gradrs.grid_sampler_2d(img, gradrs.ones(1, 1, 1, 2), 1, 0, True)
        tensor([[[[3.]]]])
    """
    _sampler_check(input, grid, 2)
    return _sample_2d(input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners):
    """ATen's 3-D grid sampler: `input` [N, C, D, H, W] sampled at `grid` [N, D', H', W', 3]
    ((x, y, z) in [-1, 1]), trilinear (0) or nearest (1); its node is GridSampler3DBackward0.

    Examples:
        >>> vol = gradrs.arange(8.0).reshape(1, 1, 2, 2, 2)
        >>> gradrs.grid_sampler_3d(vol, gradrs.zeros(1, 1, 1, 1, 3), 0, 0, False)
        tensor([[[[[3.5000]]]]])
    """
    _sampler_check(input, grid, 3)
    mode, padding = _modes(interpolation_mode, padding_mode)
    if mode == "bicubic":
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    return _vision._grid_sample_3d(input, grid, mode, padding, bool(align_corners))


def affine_grid_generator(theta, size, align_corners):
    """ATen's affine grid: the sampling grid of `size` ([N, C, H, W] or [N, C, D, H, W]) that
    the affine matrices `theta` map, without `F.affine_grid`'s warnings; its node is
    AffineGridGeneratorBackward0.

    Examples:
        >>> theta = gradrs.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
        >>> gradrs.affine_grid_generator(theta, [1, 1, 1, 2], True)
        tensor([[[[-1.,  0.],
                  [ 1.,  0.]]]])
    """
    if len(size) not in (4, 5):
        raise RuntimeError("AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return F.affine_grid(theta, list(size), bool(align_corners))
