"""`gradrs.nn.init`: PyTorch's parameter initializations (uniform, normal, truncated normal,
Xavier/Glorot, Kaiming/He, orthogonal, sparse, identity, Dirac), all in place and without
recording gradients, with PyTorch's fan and gain computations and errors."""

import math
import warnings

import numpy as np

from .. import _native
from .._grad_mode import no_grad

__all__ = [
    "calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_",
    "eye_", "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
    "kaiming_normal_", "orthogonal_", "sparse_", "uniform", "normal", "constant", "eye",
    "dirac", "xavier_uniform", "xavier_normal", "kaiming_uniform", "kaiming_normal",
    "orthogonal", "sparse",
]

# ---- random fills -------------------------------------------------------------------------
#
# Tensor.uniform_ / normal_ are native methods when the build has them (the same random
# streams as PyTorch's); until then these draw with gradrs.rand / randn (the same generator)
# and copy in, with PyTorch's argument checks.

_KERNEL_NAMES = {"float16": "Half", "float32": "Float", "float64": "Double", "int32": "Int",
                 "int64": "Long", "bool": "Bool", "bfloat16": "BFloat16", "uint8": "Byte",
                 "int8": "Char", "int16": "Short"}


def _check_floating(tensor, kernel):
    if not tensor.is_floating_point():
        name = _KERNEL_NAMES.get(str(tensor.dtype).split(".")[-1], str(tensor.dtype))
        raise NotImplementedError(f'"{kernel}" not implemented for \'{name}\'')


def _fill_uniform(tensor, a, b, generator):
    if hasattr(tensor, "uniform_"):
        return tensor.uniform_(a, b, generator=generator)
    _check_floating(tensor, "check_uniform_bounds")
    if a > b:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={a:g} > to={b:g}")
    u = _native.rand(tuple(tensor.shape), dtype=_wide(tensor), device=tensor.device,
                     generator=generator)
    return tensor.copy_(u * (b - a) + a)


def _fill_normal(tensor, mean, std, generator):
    if hasattr(tensor, "normal_"):
        return tensor.normal_(mean, std, generator=generator)
    _check_floating(tensor, "normal_kernel_cpu")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    z = _native.randn(tuple(tensor.shape), dtype=_wide(tensor), device=tensor.device,
                      generator=generator)
    return tensor.copy_(z * std + mean)


def _wide(tensor):
    # float16 draws in float32 and rounds once, as PyTorch's half kernels do
    return _native.float32 if tensor.dtype == _native.float16 else tensor.dtype


def _no_grad_uniform_(tensor, a, b, generator=None):
    with no_grad():
        return _fill_uniform(tensor, a, b, generator)


def _no_grad_normal_(tensor, mean, std, generator=None):
    with no_grad():
        return _fill_normal(tensor, mean, std, generator)


def _no_grad_trunc_normal_(tensor, mean, std, a, b, generator=None):
    def norm_cdf(x):
        # the standard normal's cumulative distribution function
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)

    with no_grad():
        # Probability mass inside [a, b]: plenty of it makes rejection of normal draws cheap,
        # little makes uniform proposals with an acceptance test on the density cheaper
        # (PyTorch's two regimes).
        p = norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std)
        if p > 0.3:
            # bounds rounded to the tensor's dtype, so the comparison is exact
            lo = tensor.new_tensor(a).item()
            hi = tensor.new_tensor(b).item()
            result = _fill_normal(tensor, mean, std, generator)
            while True:
                mask = (result < lo) | (result > hi)
                if not mask.any():
                    break
                redraw = _fill_normal(_native.empty_like(result), mean, std, generator)
                result = _native.where(mask, redraw, result)
            if tensor is not result:
                tensor.copy_(result)
        else:
            mode = max(a, min(mean, b))
            log_peak = -0.5 * ((mode - mean) / std) ** 2

            def log_density(x):
                # log of the normal density relative to its value at the mode
                return ((x - mean) / std) ** 2 * -0.5 - log_peak

            def rejected(proposal):
                u = _fill_uniform(_native.empty_like(tensor), 0.0, 1.0, generator)
                return u.log().gt(log_density(proposal))

            _fill_uniform(tensor, a, b, generator)
            pending = rejected(tensor)
            if pending.any():
                result = tensor
                while True:
                    candidates = _fill_uniform(_native.empty_like(tensor), a, b, generator)
                    result = _native.where(pending, candidates, result)
                    pending = _native.where(pending, rejected(candidates), pending)
                    if not pending.any():
                        break
                tensor.copy_(result)
        return tensor


def _no_grad_fill_(tensor, val):
    with no_grad():
        return tensor.fill_(val)


def _no_grad_zero_(tensor):
    with no_grad():
        return tensor.zero_()


# ---- gains and fans -----------------------------------------------------------------------


def calculate_gain(nonlinearity, param=None):
    r"""The recommended gain for a nonlinearity (the `nn.functional` name): 1 for linear,
    conv and sigmoid, 5/3 for tanh, :math:`\sqrt{2}` for relu,
    :math:`\sqrt{2 / (1 + \text{negative\_slope}^2)}` for leaky_relu (``param`` is the
    slope, default 0.01), 3/4 for selu.

    Examples:
        >>> gradrs.nn.init.calculate_gain('relu'), gradrs.nn.init.calculate_gain('tanh')
        (1.4142135623730951, 1.6666666666666667)
    """
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                  "conv_transpose2d", "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    elif nonlinearity == "tanh":
        return 5.0 / 3
    elif nonlinearity == "relu":
        return math.sqrt(2.0)
    elif nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif (not isinstance(param, bool) and isinstance(param, int)
              or isinstance(param, float)):
            # True/False are instances of int, hence the check above
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope**2))
    elif nonlinearity == "selu":
        return 3.0 / 4
    else:
        raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    dimensions = tensor.dim()
    if dimensions < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    num_input_fmaps = tensor.size(1)
    num_output_fmaps = tensor.size(0)
    receptive_field_size = 1
    if tensor.dim() > 2:
        for s in tensor.shape[2:]:
            receptive_field_size *= s
    fan_in = num_input_fmaps * receptive_field_size
    fan_out = num_output_fmaps * receptive_field_size
    return fan_in, fan_out


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


# ---- the initializers ---------------------------------------------------------------------


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    r"""Fill ``tensor`` with values drawn from :math:`\mathcal{U}(a, b)`.

    Examples:
        >>> w = gradrs.empty(2, 3)
        >>> gradrs.nn.init.uniform_(w, a=-1.0, b=1.0) is w
        True
        >>> w.shape
        gradrs.Size([2, 3])
    """
    return _no_grad_uniform_(tensor, a, b, generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    r"""Fill ``tensor`` with values drawn from :math:`\mathcal{N}(\text{mean}, \text{std}^2)`.

    Examples:
        >>> w = gradrs.empty(2, 3)
        >>> gradrs.nn.init.normal_(w, mean=0.0, std=0.1) is w
        True
        >>> w.shape
        gradrs.Size([2, 3])
    """
    return _no_grad_normal_(tensor, mean, std, generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    r"""Fill ``tensor`` with values from :math:`\mathcal{N}(\text{mean}, \text{std}^2)`
    truncated to :math:`[a, b]` (values outside redrawn).

    Examples:
        >>> w = gradrs.empty(2, 3)
        >>> gradrs.nn.init.trunc_normal_(w, std=0.02) is w
        True
        >>> w.shape
        gradrs.Size([2, 3])
    """
    return _no_grad_trunc_normal_(tensor, mean, std, a, b, generator=generator)


def constant_(tensor, val):
    r"""Fill ``tensor`` with ``val``.

    Examples:
        >>> w = gradrs.empty(2, 3)
        >>> gradrs.nn.init.constant_(w, 0.3) is w
        True
        >>> w
        tensor([[0.3000, 0.3000, 0.3000],
                [0.3000, 0.3000, 0.3000]])
    """
    return _no_grad_fill_(tensor, val)


def ones_(tensor):
    r"""Fill ``tensor`` with ones.

    Examples:
        >>> w = gradrs.empty(2, 3)
        >>> gradrs.nn.init.ones_(w) is w
        True
        >>> w
        tensor([[1., 1., 1.],
                [1., 1., 1.]])
    """
    return _no_grad_fill_(tensor, 1.0)


def zeros_(tensor):
    r"""Fill ``tensor`` with zeros.

    Examples:
        >>> w = gradrs.empty(2, 3)
        >>> gradrs.nn.init.zeros_(w) is w
        True
        >>> w
        tensor([[0., 0., 0.],
                [0., 0., 0.]])
    """
    return _no_grad_zero_(tensor)


def eye_(tensor):
    r"""Fill the 2-d ``tensor`` with the identity matrix (inputs preserved by a Linear).

    Examples:
        >>> w = gradrs.empty(2, 3)
        >>> gradrs.nn.init.eye_(w) is w
        True
        >>> w
        tensor([[1., 0., 0.],
                [0., 1., 0.]])
    """
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        tensor.copy_(_native.eye(*tensor.shape, dtype=tensor.dtype))
    return tensor


def dirac_(tensor, groups=1):
    r"""Fill the {3, 4, 5}-d ``tensor`` with the Dirac delta (inputs preserved by a
    convolution; with ``groups``, within each group).

    Examples:
        >>> w = gradrs.empty(2, 2, 3)
        >>> gradrs.nn.init.dirac_(w)[:, :, 1]
        tensor([[1., 0.],
                [0., 1.]])
    """
    dimensions = tensor.ndimension()
    if dimensions not in [3, 4, 5]:
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.size()
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_chans_per_grp = sizes[0] // groups
    min_dim = min(out_chans_per_grp, sizes[1])
    centre = tuple(s // 2 for s in sizes[2:])
    with no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min_dim):
                tensor[(g * out_chans_per_grp + d, d, *centre)] = 1
    return tensor


def xavier_uniform_(tensor, gain=1.0, generator=None):
    r"""Glorot uniform: :math:`\mathcal{U}(-a, a)` with
    :math:`a = \text{gain} \sqrt{6 / (\text{fan\_in} + \text{fan\_out})}`.

    Examples:
        >>> w = gradrs.empty(3, 5)
        >>> gradrs.nn.init.xavier_uniform_(w).shape
        gradrs.Size([3, 5])
        >>> bool(w.abs().max() <= (6 / (3 + 5)) ** 0.5)
        True
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std  # Calculate uniform bounds from standard deviation
    return _no_grad_uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    r"""Glorot normal: :math:`\mathcal{N}(0, \text{std}^2)` with
    :math:`\text{std} = \text{gain} \sqrt{2 / (\text{fan\_in} + \text{fan\_out})}`.

    Examples:
        >>> w = gradrs.empty(2, 3)
        >>> gradrs.nn.init.xavier_normal_(w) is w
        True
        >>> w.shape
        gradrs.Size([2, 3])
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return _no_grad_normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    r"""He uniform: :math:`\mathcal{U}(-\text{bound}, \text{bound})` with
    :math:`\text{bound} = \text{gain} \sqrt{3 / \text{fan\_mode}}`.

    Examples:
        >>> w = gradrs.empty(2, 3)
        >>> gradrs.nn.init.kaiming_uniform_(w, nonlinearity='relu') is w
        True
        >>> w.shape
        gradrs.Size([2, 3])
    """
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    bound = math.sqrt(3.0) * std  # Calculate uniform bounds from standard deviation
    with no_grad():
        return _fill_uniform(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    r"""He normal: :math:`\mathcal{N}(0, \text{std}^2)` with
    :math:`\text{std} = \text{gain} / \sqrt{\text{fan\_mode}}`.

    Examples:
        >>> w = gradrs.empty(2, 3)
        >>> gradrs.nn.init.kaiming_normal_(w, mode='fan_out') is w
        True
        >>> w.shape
        gradrs.Size([2, 3])
    """
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    with no_grad():
        return _fill_normal(tensor, 0, std, generator)


def orthogonal_(tensor, gain=1, generator=None):
    r"""Fill ``tensor`` (at least 2-d; trailing dimensions flattened) with a (semi-)orthogonal
    matrix times ``gain``: the Q of the QR decomposition of a normal matrix, its columns'
    signs fixed by R's diagonal so the distribution is uniform (Haar).

    Examples:
        >>> w = gradrs.empty(2, 3)
        >>> gradrs.nn.init.orthogonal_(w) is w
        True
        >>> w.shape
        gradrs.Size([2, 3])
    """
    if tensor.ndimension() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        # no-op
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    with no_grad():
        flattened = _fill_normal(_native.empty(rows, cols, dtype=tensor.dtype), 0, 1,
                                 generator)
    a = np.asarray(flattened.cpu().numpy(), dtype=np.float64)
    if rows < cols:
        a = a.T
    # gradrs has no native QR: the decomposition runs on the host, in numpy (LAPACK's
    # Householder QR, what torch.linalg.qr calls too), and the result is copied in.
    q, r = np.linalg.qr(a)
    q *= np.sign(np.diag(r))  # make Q uniform
    if rows < cols:
        q = q.T
    with no_grad():
        tensor.view(q.shape).copy_(_native.tensor(q, dtype=tensor.dtype,
                                                  device=tensor.device))
        tensor.mul_(gain)
    return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    r"""Fill the 2-d ``tensor`` with :math:`\mathcal{N}(0, \text{std}^2)` values and set a
    fraction ``sparsity`` of each column to zero."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = int(math.ceil(sparsity * rows))
    with no_grad():
        _fill_normal(tensor, 0, std, generator)
        for col_idx in range(cols):
            # PyTorch draws the permutation from the default generator, not `generator`
            row_indices = _native.randperm(rows)
            zero_indices = row_indices[:num_zeros]
            tensor[zero_indices, col_idx] = 0
    return tensor


def _make_deprecate(meth):
    new_name = meth.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(
            f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.",
            FutureWarning, stacklevel=2)
        return meth(*args, **kwargs)

    deprecated_init.__doc__ = f"""
    {old_name}(...)

    .. warning::
        This method is now deprecated in favor of :func:`gradrs.nn.init.{new_name}`.

    See :func:`~gradrs.nn.init.{new_name}` for details."""
    deprecated_init.__name__ = old_name
    return deprecated_init


uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_)
eye = _make_deprecate(eye_)
dirac = _make_deprecate(dirac_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)
orthogonal = _make_deprecate(orthogonal_)
sparse = _make_deprecate(sparse_)
