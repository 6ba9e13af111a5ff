"""PyTorch's tensor functions that compose existing ops: softmax forms, closeness and NaN/inf
tests, dist, bincount, unique, meshgrid, broadcasting helpers, cdist, block_diag, tensordot."""

import builtins
import inspect
import math
import warnings

import numpy as np

from . import _native, _numpy_names
from ._grad_mode import no_grad as _no_grad
from ._native import Tensor
from ._runtime import honours_default_device

__all__ = [
    "allclose", "atleast_1d", "atleast_2d", "atleast_3d", "bincount", "block_diag",
    "broadcast_shapes", "broadcast_tensors", "cartesian_prod", "cdist", "chain_matmul", "dist",
    "can_cast", "count_nonzero", "cummax", "cummin", "diff", "index_fill", "mode",
    "promote_types", "repeat_interleave", "result_type", "rot90", "tril_indices", "triu_indices",
    "bucketize", "searchsorted",
    "isclose", "isfinite", "isinf", "isnan", "isneginf", "isposinf", "isreal", "layout",
    "log_softmax", "strided",
    "meshgrid", "softmax", "tensordot", "unique", "unique_consecutive",
]

_DTYPE_NAMES = {"float16": "Half", "float32": "Float", "float64": "Double", "int32": "Int",
                "int64": "Long", "bool": "Bool", "bfloat16": "BFloat16", "uint8": "Byte",
                "int8": "Char", "int16": "Short"}


def _dtype_name(dtype):
    return _DTYPE_NAMES.get(str(dtype).split(".")[-1], str(dtype))


def _check_tensor(fn, name, pos, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be Tensor, not "
                        f"{type(value).__name__}")


@_numpy_names.accepts
def softmax(input, dim, dtype=None):
    """`gradrs.softmax(input, dim, dtype=None)`: same as `input.softmax(dim, dtype=dtype)`.

    Examples:
        >>> gradrs.softmax(gradrs.tensor([1.0, 2.0, 3.0]), dim=0)
        tensor([0.0900, 0.2447, 0.6652])
    """
    return input.softmax(dim, dtype=dtype)


@_numpy_names.accepts
def log_softmax(input, dim, dtype=None):
    """`gradrs.log_softmax(input, dim, dtype=None)`.

    Examples:
        >>> gradrs.log_softmax(gradrs.tensor([1.0, 2.0, 3.0]), dim=0)
        tensor([-2.4076, -1.4076, -0.4076])
    """
    return input.log_softmax(dim, dtype=dtype)


# ---- NaN / inf tests: boolean results, never differentiable ------------------------------------

def _bool_like(input, value):
    return _native.full(tuple(input.shape), value, dtype=_native.bool, device=input.device)


@_numpy_names.accepts
def isnan(input):
    """True where `input` is NaN (all False for integer and bool tensors).

    Examples:
        >>> gradrs.isnan(gradrs.tensor([1.0, float('nan')]))
        tensor([False,  True])
    """
    _check_tensor("isnan", "input", 1, input)
    if not input.is_floating_point():
        return _bool_like(input, False)
    x = input.detach()
    return x != x


@_numpy_names.accepts
def isinf(input):
    """A boolean tensor: True where the element is +inf or -inf.

    Args:
        input: a tensor.

    Examples:
        >>> gradrs.isinf(gradrs.tensor([1.0, float('inf'), -float('inf')]))
        tensor([False,  True,  True])
    """
    _check_tensor("isinf", "input", 1, input)
    if not input.is_floating_point():
        return _bool_like(input, False)
    return input.detach().abs() == math.inf


@_numpy_names.accepts
def isposinf(input):
    """A boolean tensor: True where the element is +inf.

    Args:
        input: a tensor.

    Examples:
        >>> gradrs.isposinf(gradrs.tensor([1.0, float('inf'), -float('inf')]))
        tensor([False,  True, False])
    """
    _check_tensor("isposinf", "input", 1, input)
    if not input.is_floating_point():
        return _bool_like(input, False)
    return input.detach() == math.inf


@_numpy_names.accepts
def isneginf(input):
    """A boolean tensor: True where the element is -inf.

    Args:
        input: a tensor.

    Examples:
        >>> gradrs.isneginf(gradrs.tensor([1.0, float('inf'), -float('inf')]))
        tensor([False, False,  True])
    """
    _check_tensor("isneginf", "input", 1, input)
    if not input.is_floating_point():
        return _bool_like(input, False)
    return input.detach() == -math.inf


@_numpy_names.accepts
def isfinite(input):
    """A boolean tensor: True where the element is neither infinite nor NaN (integers
    are always finite).

    Args:
        input: a tensor.

    Examples:
        >>> gradrs.isfinite(gradrs.tensor([1.0, float('inf'), float('nan')]))
        tensor([ True, False, False])
    """
    _check_tensor("isfinite", "input", 1, input)
    if not input.is_floating_point():
        return _bool_like(input, True)
    x = input.detach()
    return (x - x) == 0  # inf - inf and NaN - NaN are NaN, any finite x gives 0


@_numpy_names.accepts
def isreal(input):
    """Every real tensor is real (gradrs has no complex dtypes).

    Examples:
        >>> gradrs.isreal(gradrs.tensor([1.0, 2.0]))
        tensor([True, True])
    """
    _check_tensor("isreal", "input", 1, input)
    return _bool_like(input, True)


# ---- closeness ----------------------------------------------------------------------------------

@_numpy_names.accepts
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|input - other| <= atol + rtol * |other|, elementwise, as ATen's isclose: exact equality
    (infinities included) always counts; NaNs count only with `equal_nan`.

    Examples:
        >>> gradrs.isclose(gradrs.tensor([1.0, float('nan')]), gradrs.tensor([1.0 + 1e-9, float('nan')]), equal_nan=True)
        tensor([True, True])
    """
    _check_tensor("isclose", "input", 1, input)
    _check_tensor("isclose", "other", 2, other)
    if input.dtype != other.dtype:
        raise RuntimeError(f"{_dtype_name(input.dtype)} did not match {_dtype_name(other.dtype)}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    a, b = input.detach(), other.detach()
    close = a == b
    if equal_nan and a.is_floating_point():
        close = close | ((a != a) & (b != b))
    if rtol == 0 and atol == 0 or a.dtype == _native.bool:
        return close
    if not a.is_floating_point():
        # ATen compares integers in the default float dtype
        a, b = a.to(_native.get_default_dtype()), b.to(_native.get_default_dtype())
    allowed = (b * rtol).abs() + atol
    actual = (a - b).abs()
    return close | (isfinite(actual) & (actual <= allowed))


@_numpy_names.accepts
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """`isclose(...).all()` as a Python bool.

    Examples:
        >>> gradrs.allclose(gradrs.tensor([1.0, 2.0]), gradrs.tensor([1.0, 2.0 + 1e-9]))
        True
    """
    _check_tensor("allclose", "input", 1, input)
    _check_tensor("allclose", "other", 2, other)
    return builtins.bool(isclose(input, other, rtol, atol, equal_nan).all().item())


# ---- distances ----------------------------------------------------------------------------------

@_numpy_names.accepts
def dist(input, other, p=2):
    """p-norm of `input - other` (broadcast); differentiable through sub and norm.

    Examples:
        >>> gradrs.dist(gradrs.tensor([0.0, 0.0]), gradrs.tensor([3.0, 4.0]))
        tensor(5.)
    """
    _check_tensor("dist", "input", 1, input)
    _check_tensor("dist", "other", 2, other)
    diff = input - other
    if not diff.is_floating_point():
        raise RuntimeError("norm(): input dtype should be either floating point or complex. "
                           f"Got {_dtype_name(diff.dtype)} instead.")
    from .nn.functional import _one_node

    return _one_node("DistBackward0", lambda x, y: (x - y).norm(p), input, other)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """Batched pairwise p-norm distances between the rows of `x1` and of `x2`, as PyTorch
    computes them: for p = 2 with more than 25 rows on either side (or
    compute_mode="use_mm_for_euclid_dist") through a matrix product (|a|^2 + |b|^2 - 2 a.b,
    clamped at 0: faster, less exact), otherwise directly (CdistBackward0, whose gradient is
    0 where a distance is 0).

    Examples:
        >>> gradrs.cdist(gradrs.tensor([[0.0, 0.0]]), gradrs.tensor([[3.0, 4.0], [1.0, 0.0]]))
        tensor([[5., 1.]])
    """
    if x1.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError("X1 and X2 must have the same number of columns. "
                           f"X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if not (x1.is_floating_point() and x2.is_floating_point()):
        raise RuntimeError(f"cdist only supports floating-point dtypes, X1 got: "
                           f"{_dtype_name(x1.dtype)}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    modes = {None: 0, "use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1,
             "donot_use_mm_for_euclid_dist": 2}
    if compute_mode not in modes:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    mode = modes[compute_mode]
    r1, r2 = x1.shape[-2], x2.shape[-2]
    if (x1.numel() and x2.numel() and p == 2
            and (mode == 1 or (mode == 0 and (r1 > 25 or r2 > 25)))):
        return _cdist_mm(x1, x2)
    from ._ops._common import _node

    with _no_grad():
        dist = _cdist(x1, x2, p)

    def grad_of(g, a, b, d):
        # PyTorch's _cdist_backward has no derivative: under create_graph its result is the
        # output of a CdistBackwardBackward0 node whose backward raises
        with _no_grad():
            out = _cdist_grad(g, a, b, p, d).sum_to_size(a.shape)
        return _not_differentiable(out, [g, a, b, d], "_cdist_backward",
                                   "CdistBackwardBackward0")

    def backward(g):
        return (grad_of(g, x1, x2, dist) if x1.requires_grad else None,
                grad_of(g.mT, x2, x1, dist.mT) if x2.requires_grad else None)

    return _node("CdistBackward0", dist, [x1, x2], backward)


def _cdist(x1, x2, p):
    diff = (x1.unsqueeze(-2) - x2.unsqueeze(-3)).abs()
    if p == 0:
        return (diff != 0).to(diff.dtype).sum(-1)
    if p == math.inf:
        return diff.amax(-1) if diff.shape[-1] else diff.sum(-1)
    if p == 1:
        return diff.sum(-1)
    if p == 2:
        return diff.pow(2).sum(-1).sqrt()
    return diff.pow(p).sum(-1).pow(1.0 / p)


def _cdist_grad(g, a, b, p, dist):
    """The gradient for `a` of cdist(a, b) (PyTorch's _cdist_backward): each pair's term is 0
    where the distance is 0 (and, for p < 1, where the coordinates agree)."""
    from . import where, zeros_like

    if p == 0:
        return zeros_like(a)
    diff = a.unsqueeze(-2) - b.unsqueeze(-3)
    d = dist.unsqueeze(-1)
    gg = g.unsqueeze(-1)
    if p == 1:
        return (gg * diff.sign()).sum(-2)
    if p == math.inf:
        return (gg * diff.sign() * (diff.abs() == d)).sum(-2)
    zero = d == 0
    if p < 1:
        zero = zero | (diff == 0)
    safe_d = d.masked_fill(d == 0, 1.0)  # no inf / NaN in the branch where() drops
    if p == 2:
        term = gg * diff / safe_d
    elif p < 2:
        safe_diff = diff.abs().masked_fill(zero, 1.0)
        term = diff.sign() * safe_diff.pow(p - 1) * gg / safe_d.pow(p - 1)
    else:
        term = diff * diff.abs().pow(p - 2) * gg / safe_d.pow(p - 1)
    return where(zero, 0.0, term).sum(-2)


def _cdist_mm(x1, x2):
    """PyTorch's matrix-product euclidean distance (cdist_impl + _euclidean_dist), with its
    EuclideanDistBackward0 and the view after it."""
    from . import cat, ones_like
    from ._ops._common import _node

    batch = broadcast_shapes(tuple(x1.shape[:-2]), tuple(x2.shape[:-2]))
    r1, r2, c = x1.shape[-2], x2.shape[-2], x1.shape[-1]
    n = math.prod(batch)
    if n != 1:
        x1 = x1.expand(*batch, r1, c).reshape(n, r1, c)
        x2 = x2.expand(*batch, r2, c).reshape(n, r2, c)
    with _no_grad():
        x1_norm = x1.pow(2).sum(-1, keepdim=True)
        x2_norm = x2.pow(2).sum(-1, keepdim=True)
        a = cat([x1.mul(-2), x1_norm, ones_like(x1_norm)], -1)
        b = cat([x2, ones_like(x2_norm), x2_norm], -1)
        res = a.matmul(b.mT).clamp_min_(0).sqrt_()

    def backward(g):
        ratio = (g / res).masked_fill(res == 0, 0)
        return (x1 * ratio.sum(-1, keepdim=True) - ratio.matmul(x2),
                x2 * ratio.sum(-2).unsqueeze(-1) - ratio.mT.matmul(x1))

    return _node("EuclideanDistBackward0", res, [x1, x2], backward).view(*batch, r1, r2)


# ---- counting and uniqueness (host computations; outputs carry no gradient) -------------------

def _host(t):
    t = t.detach().cpu()
    # numpy has no bfloat16: float32 holds each value exactly (results take `t.dtype` back).
    return np.asarray((t.float() if t.dtype == _native.bfloat16 else t).numpy())


def _on(values, dtype, like):
    return _native.tensor(np.asarray(values).tolist(), dtype=dtype, device=like.device)


@_numpy_names.accepts
def bincount(input, weights=None, minlength=0):
    """Occurrences of each value of a 1-D non-negative integer tensor (weighted sums with
    `weights`: float32 weights give float32, others float64).

    Examples:
        >>> gradrs.bincount(gradrs.tensor([0, 1, 1, 3]))
        tensor([1, 2, 0, 1])
    """
    _check_tensor("bincount", "input", 1, input)
    if input.is_floating_point() or input.dtype == _native.bool:
        raise NotImplementedError(f'"bincount_cpu" not implemented for '
                                  f"'{_dtype_name(input.dtype)}'")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    values = _host(input)
    if input.dim() != 1 or (values.size and values.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and not isinstance(weights, Tensor):
        raise TypeError(f"bincount(): argument 'weights' must be Tensor, not "
                        f"{type(weights).__name__}")
    if weights is not None and (weights.dim() != 1 or weights.shape[0] != input.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    length = builtins.max(minlength, int(values.max()) + 1 if values.size else 0)
    if weights is None:
        return _on(np.bincount(values, minlength=length), _native.int64, input)
    out = np.bincount(values, weights=_host(weights).astype(np.float64), minlength=length)
    dtype = _native.float32 if weights.dtype == _native.float32 else _native.float64
    return _on(out, dtype, input)


def _not_differentiable(out, input, op, node):
    """PyTorch records `op`'s node but has no formula for it: backward through it raises.
    `input` is a tensor or a list of tensors."""
    inputs = input if isinstance(input, list) else [input]
    if _native.is_grad_enabled() and any(t.requires_grad for t in inputs):
        def backward(grad):
            raise NotImplementedError(f"the derivative for '{op}' is not implemented.")

        _native._attach_node(out, inputs, node, backward)
    return out


def _unique_result(input, values, inverse, counts, return_inverse, return_counts, shape,
                   op="_unique2", node="Unique2Backward0"):
    out = _not_differentiable(_on(values, input.dtype, input).reshape(shape), input, op, node)
    if not (return_inverse or return_counts):
        return out
    result = [out]
    if return_inverse:
        result.append(_on(inverse, _native.int64, input))
    if return_counts:
        result.append(_on(counts, _native.int64, input))
    return tuple(result)


def _unique_dim(input, dim):
    """`dim` wrapped for unique along a dim, with PyTorch's checks; None when that dim is
    empty (the result is then the input's empty shape with empty inverse and counts)."""
    if input.dim() == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = _wrap_dim(dim, input.dim())
    if input.shape[d] == 0:
        return None
    if input.numel() == 0:
        raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique "
                           "cannot be applied")
    return d


def _empty_unique(input, return_inverse, return_counts, op, node):
    empty = np.zeros(0, dtype=np.int64)
    return _unique_result(input, _host(input), empty, empty, return_inverse, return_counts,
                          tuple(input.shape), op, node)


def _wrap_dim(dim, ndim):
    n = builtins.max(ndim, 1)
    if dim < -n or dim >= n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return dim % n


def _slices(arr, dim):
    """The array with `dim` first and every slice along it flattened to one row."""
    moved = np.moveaxis(arr, dim, 0)
    return moved.reshape(moved.shape[0], -1), moved.shape


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """Unique elements (or slices along `dim`), sorted, as PyTorch's CPU kernel: NaNs are
    distinct values placed last; `sorted=False` still sorts (as PyTorch's CPU does).

    Examples:
        >>> gradrs.unique(gradrs.tensor([3, 1, 3, 2]), return_counts=True)
        (tensor([1, 2, 3]), tensor([1, 1, 2]))
    """
    _check_tensor("_unique2", "input", 1, input)
    arr = _host(input)
    if dim is None:
        flat = arr.reshape(-1)
        values, inverse, counts = np.unique(flat, return_inverse=True, return_counts=True,
                                            equal_nan=False)
        return _unique_result(input, values, inverse.reshape(tuple(input.shape)), counts,
                              return_inverse, return_counts, (-1,))
    d = _unique_dim(input, dim)
    if d is None:
        return _empty_unique(input, return_inverse, return_counts, "unique_dim",
                             "UniqueDimBackward0")
    rows, moved_shape = _slices(arr, d)
    values, inverse, counts = np.unique(rows, axis=0, return_inverse=True, return_counts=True)
    new_shape = (values.shape[0],) + tuple(moved_shape[1:])
    out = np.moveaxis(values.reshape(new_shape), 0, d)
    return _unique_result(input, out, inverse.reshape(-1), counts, return_inverse,
                          return_counts, out.shape, "unique_dim", "UniqueDimBackward0")


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapses each run of equal consecutive elements (or slices along `dim`) to one.

    Examples:
        >>> gradrs.unique_consecutive(gradrs.tensor([1, 1, 2, 2, 1]))
        tensor([1, 2, 1])
    """
    _check_tensor("unique_consecutive", "input", 1, input)
    arr = _host(input)
    if dim is None:
        rows, moved_shape, d = arr.reshape(-1, 1), None, None
    else:
        d = _unique_dim(input, dim)
        if d is None:
            return _empty_unique(input, return_inverse, return_counts, *_CONSECUTIVE)
        rows, moved_shape = _slices(arr, d)
    n = rows.shape[0]
    if n == 0:
        starts = np.zeros(0, dtype=np.int64)
    else:
        change = np.any(rows[1:] != rows[:-1], axis=1)
        starts = np.concatenate([[0], np.nonzero(change)[0] + 1]).astype(np.int64)
    counts = np.diff(np.append(starts, n)).astype(np.int64)
    inverse = np.repeat(np.arange(len(starts), dtype=np.int64), counts)
    if dim is None:
        return _unique_result(input, rows[starts, 0], inverse.reshape(tuple(input.shape)),
                              counts, return_inverse, return_counts, (-1,), *_CONSECUTIVE)
    values = rows[starts].reshape((len(starts),) + tuple(moved_shape[1:]))
    out = np.moveaxis(values, 0, d)
    return _unique_result(input, out, inverse, counts, return_inverse, return_counts, out.shape,
                          *_CONSECUTIVE)


_CONSECUTIVE = ("unique_consecutive", "UniqueConsecutiveBackward0")


# ---- what torch/functional.py writes in Python ------------------------------------------------

def broadcast_shapes(*shapes):
    """The shape every given shape broadcasts to, without building tensors.

    Examples:
        >>> gradrs.broadcast_shapes((2, 1), (1, 3))
        gradrs.Size([2, 3])
    """
    from ._size import Size

    result = []
    for index, shape in enumerate(shapes):
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        for size in shape:
            if size < 0:
                raise ValueError("Attempting to broadcast a dimension with negative length!")
        if len(shape) > len(result):
            result = [1] * (len(shape) - len(result)) + result
        for i in range(-1, -len(shape) - 1, -1):
            if shape[i] == 1 or shape[i] == result[i]:
                continue
            if result[i] != 1:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {shape[i]} at {i}! "
                    f"Mismatching argument at index {index} had {shape}; but expected shape "
                    f"should be broadcastable to {result}")
            result[i] = shape[i]
    return Size(result)


def broadcast_tensors(*tensors):
    """Each tensor expanded (a view) to the common broadcast shape (itself if it has it).

    Examples:
        >>> a, b = gradrs.broadcast_tensors(gradrs.tensor([[1.0], [2.0]]), gradrs.tensor([10.0, 20.0]))
        >>> b
        tensor([[10., 20.],
                [10., 20.]])
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape = ()
    for t in tensors:
        shape = _broadcast_two(shape, tuple(t.shape), len(tensors))
    # A tensor that already has the broadcast shape comes back itself, as ATen's
    # expand_outplace borrows it: no view, no ExpandBackward0 in the graph.
    return tuple(t if tuple(t.shape) == shape else t.expand(shape) for t in tensors)


def _broadcast_two(a, b, _):
    n = builtins.max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    out = []
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b "
                               f"({y}) at non-singleton dimension {i}")
        out.append(y if x == 1 else x)
    return tuple(out)


def meshgrid(*tensors, indexing=None):
    """Coordinate grids: each 0-D/1-D tensor expanded along the others' lengths (views).

    Examples:
        >>> xs, ys = gradrs.meshgrid(gradrs.tensor([1, 2]), gradrs.tensor([3, 4, 5]), indexing='ij')
        >>> xs
        tensor([[1, 1, 1],
                [2, 2, 2]])
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn("gradrs.meshgrid: in an upcoming release, it will be required to pass the "
                      "indexing argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors[1:]:
        if t.dtype != tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if t.device != tensors[0].device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    if indexing not in ("xy", "ij"):
        raise RuntimeError('gradrs.meshgrid: indexing must be one of "xy" or "ij", but '
                           f"received: {indexing}")
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError("gradrs.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got a {t.dim()}D tensor")
    swap = indexing == "xy" and len(tensors) >= 2
    order = list(tensors)
    if swap:
        order[0], order[1] = order[1], order[0]
    shape = tuple(t.numel() for t in order)
    grids = []
    for i, t in enumerate(order):
        view = [1] * len(order)
        view[i] = -1
        grids.append(t.reshape(view).expand(shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def cartesian_prod(*tensors):
    """Rows of every combination of the 1-D inputs' elements (one input: itself).

    Examples:
        >>> gradrs.cartesian_prod(gradrs.tensor([1, 2]), gradrs.tensor([3, 4]))
        tensor([[1, 3],
                [1, 4],
                [2, 3],
                [2, 4]])
    """
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return _native.stack([g.flatten() for g in grids], 1)


def block_diag(*tensors):
    """A block-diagonal matrix of the 0-, 1- and 2-D inputs, in their promoted dtype.

    Examples:
        >>> gradrs.block_diag(gradrs.tensor([[1.0]]), gradrs.tensor([[2.0, 3.0]]))
        tensor([[1., 0., 0.],
                [0., 2., 3.]])
    """
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError("gradrs.block_diag: Input tensors must have 2 or fewer dimensions. "
                               f"Input {i} has {t.dim()} dimensions")
    mats = [t.reshape(1, -1) if t.dim() < 2 else t for t in tensors]
    if not mats:
        return _native.zeros((1, 0))
    dtype = mats[0].dtype
    for m in mats[1:]:
        dtype = _promote(dtype, m.dtype)
    from .nn.functional import _one_node

    return _one_node("BlockDiagBackward0", lambda *ms: _block_diag(ms, dtype), *mats, saves=())


def _block_diag(mats, dtype):
    cols = builtins.sum(m.shape[1] for m in mats)
    rows = []
    left = 0
    for m in mats:
        r, c = m.shape
        parts = [_native.zeros((r, left), dtype=dtype, device=m.device), m.to(dtype),
                 _native.zeros((r, cols - left - c), dtype=dtype, device=m.device)]
        rows.append(_native.cat(parts, 1))
        left += c
    return _native.cat(rows, 0)


def _promote(a, b):
    return (_native.zeros((1,), dtype=a) + _native.zeros((1,), dtype=b)).dtype


def atleast_1d(*tensors):
    """Views of the given tensors with at least 1 dimension
    (tensors that have more are returned as they are); one tensor gives a tensor, several a tuple.

    Args:
        *tensors: tensors, or one list / tuple of tensors.

    Examples:
        >>> gradrs.atleast_1d(gradrs.tensor(1.0))
        tensor([1.])
        >>> gradrs.atleast_1d(gradrs.tensor(1.0), gradrs.ones(2))
        (tensor([1.]), tensor([1., 1.]))
    """
    return _atleast(tensors, 1)


def atleast_2d(*tensors):
    """Views of the given tensors with at least 2 dimensions
    (tensors that have more are returned as they are); one tensor gives a tensor, several a tuple.

    Args:
        *tensors: tensors, or one list / tuple of tensors.

    Examples:
        >>> gradrs.atleast_2d(gradrs.tensor(1.0))
        tensor([[1.]])
        >>> gradrs.atleast_2d(gradrs.tensor(1.0), gradrs.ones(2))
        (tensor([[1.]]), tensor([[1., 1.]]))
    """
    return _atleast(tensors, 2)


def atleast_3d(*tensors):
    """Views of the given tensors with at least 3 dimensions
    (tensors that have more are returned as they are); one tensor gives a tensor, several a tuple.

    Args:
        *tensors: tensors, or one list / tuple of tensors.

    Examples:
        >>> gradrs.atleast_3d(gradrs.tensor(1.0))
        tensor([[[1.]]])
        >>> gradrs.atleast_3d(gradrs.tensor(1.0), gradrs.ones(2))
        (tensor([[[1.]]]), tensor([[[1.],
                 [1.]]]))
    """
    return _atleast(tensors, 3)


def _atleast(tensors, n):
    one = len(tensors) == 1 and isinstance(tensors[0], Tensor)
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    out = []
    for t in tensors:
        if t.dim() >= n:
            out.append(t)
        elif n == 3 and t.dim() == 2:
            out.append(t.unsqueeze(-1))
        elif t.dim() == 0:
            out.append(t.reshape((1,) * n))
        else:  # 1-D: (1, N) or (1, N, 1)
            out.append(t.unsqueeze(0) if n == 2 else t.unsqueeze(0).unsqueeze(-1))
    return out[0] if one else tuple(out)


def tensordot(a, b, dims=2, out=None):
    """Sum over the paired dims (an int: the last `dims` of `a` with the first of `b`), as a
    permute + reshape + matmul.

    Examples:
        >>> gradrs.tensordot(gradrs.ones(2, 3), gradrs.ones(3, 4), dims=1).shape
        gradrs.Size([2, 4])
    """
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > a.dim() or dims > b.dim():
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a = list(range(a.dim() - dims, a.dim()))
        dims_b = list(range(dims))
    else:
        dims_a, dims_b = dims
        dims_a = [dims_a] if isinstance(dims_a, int) else list(dims_a)
        dims_b = [dims_b] if isinstance(dims_b, int) else list(dims_b)
        if len(dims_a) != len(dims_b):
            raise RuntimeError("both dimension lists should have same length")
    dims_a = [_wrap_dim(d, a.dim()) for d in dims_a]
    dims_b = [_wrap_dim(d, b.dim()) for d in dims_b]
    for da, db in zip(dims_a, dims_b):
        if a.shape[da] != b.shape[db]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size "
                               f"{a.shape[da]} in dim {da} and second has size {b.shape[db]} "
                               f"in dim {db}")
    free_a = [d for d in range(a.dim()) if d not in dims_a]
    free_b = [d for d in range(b.dim()) if d not in dims_b]
    k = math.prod(a.shape[d] for d in dims_a)
    left = a.permute(free_a + dims_a).reshape(-1, k)
    right = b.permute(dims_b + free_b).reshape(k, -1)
    result = left.matmul(right).reshape([a.shape[d] for d in free_a] +
                                        [b.shape[d] for d in free_b])
    if out is not None:
        _native._write_out(out, result)
        return out
    return result


def chain_matmul(*matrices, out=None):
    """Deprecated in PyTorch in favour of `linalg.multi_dot`; the product left to right.

    Examples:
        >>> gradrs.chain_matmul(gradrs.ones(2, 3), gradrs.ones(3, 1))
        tensor([[3.],
                [3.]])
    """
    warnings.warn("gradrs.chain_matmul is deprecated and will be removed in a future PyTorch "
                  "release. Use gradrs.linalg.multi_dot instead, which accepts a list of two "
                  "or more tensors rather than multiple parameters.", UserWarning, stacklevel=2)
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for m in matrices:
        if m.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {m.dim()}, expected 2 instead.")
    result = matrices[0].clone() if len(matrices) == 1 else matrices[0]
    for m in matrices[1:]:
        result = result.mm(m)
    if out is not None:
        _native._write_out(out, result)
        return out
    return result


# ---- cummax / cummin / mode: indices found on the host, values gathered (so they have gradients)

def _picked(input, dim, indices, keepdim=True):
    """`return_types`-ready (values, indices): `indices` (numpy, `input`'s layout with `dim`
    last) as a tensor along `dim`, and the values of `input` there through `gather`."""
    from . import return_types  # noqa: F401 - imported by the callers' names below

    index = _native.tensor(np.moveaxis(indices, -1, dim).astype(np.int64), device=input.device)
    if input.dim() == 0:
        return input.clone(), index.reshape(())
    values = input.gather(dim, index)
    if not keepdim:
        values, index = values.squeeze(dim), index.squeeze(dim)
    return values, index


def _cumulative(name, input, dim, better):
    dim = _wrap_dim(dim, input.dim())
    arr = np.moveaxis(_host(input).reshape(input.shape or (1,)), dim if input.dim() else 0, -1)
    floating = input.dtype.is_floating_point
    indices = np.zeros(arr.shape, dtype=np.int64)
    if arr.shape[-1]:
        best, index = arr[..., 0].copy(), np.zeros(arr.shape[:-1], dtype=np.int64)
        for j in range(arr.shape[-1]):
            x = arr[..., j]
            # PyTorch's scan: a NaN is taken and then kept; ties take the later position
            take = better(x, best)
            if floating:
                take = np.isnan(x) | (~np.isnan(best) & take)
            best, index = np.where(take, x, best), np.where(take, j, index)
            indices[..., j] = index
    from . import return_types

    return return_types._make(name, *_picked(input, dim, indices))


@_numpy_names.accepts
def cummax(input, dim):
    """`gradrs.cummax(input, dim)`: running maxima along `dim` and where each was found (the
    latest of equal values; a NaN, once met, stays).

    Examples:
        >>> gradrs.cummax(gradrs.tensor([1.0, 3.0, 2.0]), dim=0)
        gradrs.return_types.cummax(
        values=tensor([1., 3., 3.]),
        indices=tensor([0, 1, 1]))
    """
    return _cumulative("cummax", input, dim, np.greater_equal)


@_numpy_names.accepts
def cummin(input, dim):
    """`gradrs.cummin(input, dim)`: running minima along `dim` and where each was found.

    Examples:
        >>> gradrs.cummin(gradrs.tensor([3.0, 1.0, 2.0]), dim=0)
        gradrs.return_types.cummin(
        values=tensor([3., 1., 1.]),
        indices=tensor([0, 1, 1]))
    """
    return _cumulative("cummin", input, dim, np.less_equal)


def _std_sort(a):
    """Sort the list `a` of (value, position) pairs in place by value only, in the order
    libstdc++'s std::sort leaves them (introsort: median-of-three pivots, unguarded
    partitions, heapsort past 2 * log2(n) levels, a final insertion sort over runs of 16):
    not stable, so which position of equal values lands where is std::sort's."""

    def lt(x, y):
        return x[0] < y[0]

    def insertion_sort(first, last):
        for i in range(first + 1, last):
            if lt(a[i], a[first]):
                val = a[i]
                a[first + 1:i + 1] = a[first:i]
                a[first] = val
            else:
                linear_insert(i)

    def linear_insert(last):
        val = a[last]
        while lt(val, a[last - 1]):
            a[last] = a[last - 1]
            last -= 1
        a[last] = val

    def median_to_first(result, x, y, z):
        if lt(a[x], a[y]):
            pick = y if lt(a[y], a[z]) else (z if lt(a[x], a[z]) else x)
        else:
            pick = x if lt(a[x], a[z]) else (z if lt(a[y], a[z]) else y)
        a[result], a[pick] = a[pick], a[result]

    def partition(first, last, pivot):
        while True:
            while lt(a[first], a[pivot]):
                first += 1
            last -= 1
            while lt(a[pivot], a[last]):
                last -= 1
            if not first < last:
                return first
            a[first], a[last] = a[last], a[first]
            first += 1

    def adjust_heap(first, hole, length, value):
        top, child = hole, hole
        while child < (length - 1) // 2:
            child = 2 * (child + 1)
            if lt(a[first + child], a[first + child - 1]):
                child -= 1
            a[first + hole] = a[first + child]
            hole = child
        if length % 2 == 0 and child == (length - 2) // 2:
            child = 2 * (child + 1)
            a[first + hole] = a[first + child - 1]
            hole = child - 1
        parent = (hole - 1) // 2
        while hole > top and lt(a[first + parent], value):
            a[first + hole] = a[first + parent]
            hole = parent
            parent = (hole - 1) // 2
        a[first + hole] = value

    def heap_sort(first, last):
        length = last - first
        for parent in range((length - 2) // 2, -1, -1):
            adjust_heap(first, parent, length, a[first + parent])
        while last - first > 1:
            last -= 1
            value = a[last]
            a[last] = a[first]
            adjust_heap(first, 0, last - first, value)

    def introsort(first, last, depth):
        while last - first > 16:
            if depth == 0:
                heap_sort(first, last)
                return
            depth -= 1
            median_to_first(first, first + 1, first + (last - first) // 2, last - 1)
            cut = partition(first + 1, last, first)
            introsort(cut, last, depth)
            last = cut

    n = len(a)
    if n < 2:
        return
    introsort(0, n, 2 * (n.bit_length() - 1))
    if n > 16:
        insertion_sort(0, 16)
        for i in range(16, n):
            linear_insert(i)
    else:
        insertion_sort(0, n)


def _row_mode(row):
    # PyTorch's CPU kernel: (value, position) pairs std::sort-ed by value, then the first
    # longest run of equal values wins (NaNs never equal one another), and its position is
    # the one std::sort left last in that run (the last occurrence up to 16 elements, where
    # std::sort is an insertion sort; any occurrence beyond)
    pairs = list(zip(row.tolist(), range(len(row))))
    _std_sort(pairs)
    best_len, best_end, start = 0, 0, 0
    for i in range(len(pairs)):
        if i == len(pairs) - 1 or pairs[i][0] != pairs[i + 1][0]:
            if i + 1 - start > best_len:
                best_len, best_end = i + 1 - start, i
            start = i + 1
    return pairs[best_end][1]


@_numpy_names.accepts
def mode(input, dim=-1, keepdim=False):
    """`gradrs.mode(input, dim=-1, keepdim=False)`: the most frequent value of each slice along
    `dim` (the smallest of equally frequent ones) and its last position.

    Examples:
        >>> gradrs.mode(gradrs.tensor([1, 2, 2, 3]))
        gradrs.return_types.mode(
        values=tensor(2),
        indices=tensor(2))
    """
    dim = _wrap_dim(dim, input.dim())
    if input.dim() and input.shape[dim] == 0:
        raise IndexError(f"mode(): Expected reduction dim {dim} to have non-zero size.")
    arr = np.moveaxis(_host(input).reshape(input.shape or (1,)), dim if input.dim() else 0, -1)
    rows = arr.reshape(-1, arr.shape[-1])
    found = np.array([_row_mode(r) for r in rows], dtype=np.int64).reshape(arr.shape[:-1] + (1,))
    from . import return_types

    return return_types._make("mode", *_picked(input, dim, found, keepdim))


# ---- diff, count_nonzero, rot90, triu/tril_indices: compositions as PyTorch's own ----------------

@_numpy_names.accepts
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """`gradrs.diff(input, n=1, dim=-1, prepend=None, append=None)`: the n-th forward difference
    along `dim` (`!=` of neighbours for bool tensors), after concatenating `prepend`/`append`.

    Examples:
        >>> gradrs.diff(gradrs.tensor([1.0, 4.0, 9.0, 16.0]))
        tensor([3., 5., 7.])
    """
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    dim = _wrap_dim(dim, input.dim())
    extra = [t for t in (prepend, append) if t is not None]
    for t in extra:
        if t.dim() != input.dim():
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
        for d in range(input.dim()):
            if d != dim and t.shape[d] != input.shape[d]:
                raise RuntimeError(
                    "diff expects the shape of tensor to prepend or append to match that of input "
                    f"except along the differencing dimension; input.size({d}) = "
                    f"{input.shape[d]}, but got tensor.size({d}) = {t.shape[d]}")
    if n == 0:  # prepend / append are checked, not used
        return input.clone()
    if extra:
        input = _native.cat([t for t in (prepend, input, append) if t is not None], dim)
    for _ in range(n):
        length = input.shape[dim]
        if length == 0:
            break
        after, before = input.narrow(dim, 1, length - 1), input.narrow(dim, 0, length - 1)
        input = after != before if input.dtype == _native.bool else after - before
    return input


@_numpy_names.accepts
def count_nonzero(input, dim=None):
    """`gradrs.count_nonzero(input, dim=None)`: int64 counts of the nonzero values, over `dim`
    (an int or a tuple of ints) or over everything.

    Examples:
        >>> gradrs.count_nonzero(gradrs.tensor([[0, 1], [2, 0]]), dim=0)
        tensor([1, 1])
    """
    nonzero = input != 0
    if dim is None or (isinstance(dim, (tuple, list)) and not dim):
        return nonzero.sum()
    return nonzero.sum(dim)


@_numpy_names.accepts
def rot90(input, k=1, dims=(0, 1)):
    """`gradrs.rot90(input, k=1, dims=(0, 1))`: `input` turned by 90 degrees `k` times, from
    the first of `dims` towards the second.

    Examples:
        >>> gradrs.rot90(gradrs.tensor([[1, 2], [3, 4]]))
        tensor([[2, 4],
                [1, 3]])
    """
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.dim() < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.dim()}")
    d0, d1 = (_wrap_dim(d, input.dim()) for d in dims)
    if d0 == d1:  # PyTorch's message names the dims as given
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} "
                           f"and dim1 = {dims[1]}")
    k %= 4
    if k == 1:
        return input.flip([d1]).transpose(d0, d1)
    if k == 2:
        return input.flip([d0, d1])
    if k == 3:
        return input.flip([d0]).transpose(d0, d1)
    return input.clone()


@honours_default_device
def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """`gradrs.triu_indices(row, col, offset=0)`: the 2 x N (row, column) coordinates of the
    upper triangle of a row x col matrix, row by row.

    Examples:
        >>> gradrs.triu_indices(3, 3, offset=1)
        tensor([[0, 0, 1],
                [1, 2, 2]])
    """
    r, c = np.triu_indices(row, offset, col)
    return _native.tensor(np.stack([r, c]).astype(np.int64).reshape(2, -1),
                          dtype=dtype or _native.int64, device=device)


@honours_default_device
def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """`gradrs.tril_indices(row, col, offset=0)`: the coordinates of the lower triangle.

    Examples:
        >>> gradrs.tril_indices(3, 3)
        tensor([[0, 1, 1, 2, 2, 2],
                [0, 0, 1, 0, 1, 2]])
    """
    r, c = np.tril_indices(row, offset, col)
    return _native.tensor(np.stack([r, c]).astype(np.int64).reshape(2, -1),
                          dtype=dtype or _native.int64, device=device)


# ---- searchsorted / bucketize: PyTorch's binary search, run on the host for every value at once --

def _bound(bounds, values, right):
    """PyTorch's `cus_lower_bound` / `cus_upper_bound` (rows of `bounds` against the same rows of
    `values`), vectorized: the same comparisons, so NaNs land where PyTorch puts them."""
    n = bounds.shape[1]
    start = np.zeros(values.shape, dtype=np.int64)
    end = np.full(values.shape, n, dtype=np.int64)
    active = start < end
    while active.any():
        mid = (start + end) >> 1
        mid_val = np.take_along_axis(bounds, np.minimum(mid, n - 1), axis=1)
        with np.errstate(invalid="ignore"):
            go_right = ~(mid_val > values) if right else ~(mid_val >= values)
        start = np.where(active & go_right, mid + 1, start)
        end = np.where(active & ~go_right, mid, end)
        active = start < end
    return start


@_numpy_names.accepts
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None,
                 out=None):
    """`gradrs.searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
    sorter=None)`: where each value of `input` would be inserted in the innermost dim of
    `sorted_sequence` to keep it sorted (after the first equal value when `right`).

    Examples:
        >>> gradrs.searchsorted(gradrs.tensor([1.0, 3.0, 5.0]), gradrs.tensor([0.5, 3.0, 7.0]))
        tensor([0, 1, 3])
    """
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError("gradrs.searchsorted(): side can only be 'left' or 'right' but got "
                               f"{side}")
        if right and side == "left":
            raise RuntimeError("gradrs.searchsorted(): side and right can't be set to opposites, "
                               "got side of left while right was True")
        right = side == "right"
    values = input if isinstance(input, Tensor) else _native.tensor(input)
    seq = _host(sorted_sequence)
    if sorter is not None:
        seq = np.take_along_axis(seq, _host(sorter).astype(np.int64), axis=-1)
    vals = _host(values)
    if seq.ndim != 1 and (seq.ndim != vals.ndim or seq.shape[:-1] != vals.shape[:-1]):
        raise RuntimeError(
            "gradrs.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            "dimensions of boundaries tensor and input value tensor must match, but we got "
            f"boundaries tensor {list(sorted_sequence.shape)} and input value tensor "
            f"{list(values.shape)}")
    if seq.ndim == 1:
        found = _bound(seq.reshape(1, -1), vals.reshape(1, -1), right)
    else:
        found = _bound(seq.reshape(-1, seq.shape[-1]),
                       vals.reshape(-1, vals.shape[-1] if vals.ndim else 1), right)
    dtype = _native.int32 if out_int32 else _native.int64
    result = _native.tensor(found.reshape(vals.shape), dtype=dtype, device=values.device)
    if out is not None:  # an integer result: nothing to differentiate, written as it is
        _native._write_out(out, result)
        return out
    return result


@_numpy_names.accepts
def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """`gradrs.bucketize(input, boundaries, *, out_int32=False, right=False)`: the bucket of
    each value of `input` among the 1-D sorted `boundaries`.

    Examples:
        >>> gradrs.bucketize(gradrs.tensor([0.5, 2.0, 7.0]), gradrs.tensor([1.0, 3.0, 5.0]))
        tensor([0, 1, 3])
    """
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right, out=out)


# ---- type promotion queries: answered by the promotion the ops themselves apply -------------------

def _probe(value):
    """An empty stand-in for a `result_type` operand: same dtype and same 0-dim-ness (a 0-dim
    tensor promotes as a lower priority operand, as a Python number does below it)."""
    if isinstance(value, Tensor):
        return _native.empty((), dtype=value.dtype) if value.dim() == 0 else \
            _native.empty(0, dtype=value.dtype)
    return value


def result_type(tensor, other):
    """`gradrs.result_type(tensor, other)`: the dtype `tensor + other` would have (either may be
    a Python number).

    Examples:
        >>> gradrs.result_type(gradrs.tensor([1, 2]), 1.5)
        gradrs.float32
    """
    a, b = _probe(tensor), _probe(other)
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):
        a = _native.tensor(a)  # two numbers: the first as a 0-dim tensor of its default dtype
    return (a + b).dtype


def promote_types(type1, type2):
    """`gradrs.promote_types(type1, type2)`: the smallest dtype both cast to without losing
    their category.

    Examples:
        >>> gradrs.promote_types(gradrs.int32, gradrs.float32)
        gradrs.float32
    """
    return (_native.empty(0, dtype=type1) + _native.empty(0, dtype=type2)).dtype


def _category(dtype):
    if dtype == _native.bool:
        return 0
    return 2 if dtype.is_floating_point else 1


def can_cast(from_, to):
    """`gradrs.can_cast(from_, to)`: whether PyTorch's casting rules allow `from_` to `to`: no
    cast to a lower category (float to integer, anything but bool to bool).

    Examples:
        >>> gradrs.can_cast(gradrs.float32, gradrs.int64), gradrs.can_cast(gradrs.int64, gradrs.float32)
        (False, True)
    """
    return _category(from_) <= _category(to)


# ---- index_fill: a fill through a mask along one dim ---------------------------------------------

def _index_fill_mask(input, dim, index, value):
    """The bool mask (broadcastable to `input`) of the positions `index_fill(dim, index, value)`
    fills, after PyTorch's checks."""
    if not isinstance(index, Tensor) or index.dtype != _native.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if index.dim() > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    if isinstance(value, Tensor) and value.dim() != 0:
        raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but got tensor "
                           f"with {value.dim()} dimension(s).")
    ndim = input.dim()
    dim = _wrap_dim(dim, ndim)
    size = input.shape[dim] if ndim else 1
    positions = index.reshape(-1)
    bad = positions[(positions < -size) | (positions >= size)]
    if bad.numel():
        raise IndexError(f"index {bad[0].item()} is out of bounds for dimension {dim} with size "
                         f"{size}")
    mask = _native.zeros(size, dtype=_native.bool, device=input.device)
    mask[positions] = True
    return mask.reshape([size] + [1] * (ndim - dim - 1)) if ndim else mask.reshape(())


@_numpy_names.accepts
def index_fill(input, dim, index, value):
    """`gradrs.index_fill(input, dim, index, value)`: a copy of `input` whose slices at `index`
    along `dim` hold `value` (a number or a 0-dim tensor, which gets the filled gradient).

    Examples:
        >>> gradrs.zeros(2, 3).index_fill(1, gradrs.tensor([0, 2]), 7.0)
        tensor([[7., 0., 7.],
                [7., 0., 7.]])
    """
    return input.masked_fill(_index_fill_mask(input, dim, index, value), value)


def _index_fill_(self, dim, index, value):
    """`Tensor.index_fill_(dim, index, value)`: `index_fill` in place."""
    return self.masked_fill_(_index_fill_mask(self, dim, index, value), value)


# ---- repeat_interleave: an index_select whose index repeats positions ------------------------------

def _repeat_counts(repeats, size, dim):
    """`repeats` (an int or an integer tensor) as a list of `size` counts, after PyTorch's checks."""
    if isinstance(repeats, Tensor):
        if repeats.dim() > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        if repeats.dtype not in (_native.int64, _native.int32):
            raise NotImplementedError('"repeat_interleave_cpu" not implemented for '
                                      f"'{_dtype_name(repeats.dtype)}'")
        counts = repeats.reshape(-1).tolist()
        if len(counts) == 1:
            counts = counts * size
        elif len(counts) != size:
            raise RuntimeError("repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {len(counts)} and input.size({dim}) = {size}")
    else:
        counts = [repeats] * size
    if any(c < 0 for c in counts):
        raise RuntimeError("Repeats must be non-negative")
    return counts


@_numpy_names.accepts
def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """`gradrs.repeat_interleave(input, repeats, dim=None, *, output_size=None)`: each slice of
    `input` along `dim` (of the flattened input when `dim` is None) repeated `repeats` times;
    `gradrs.repeat_interleave(repeats)` repeats each position of `repeats` by its value.

    Examples:
        >>> gradrs.repeat_interleave(gradrs.tensor([1, 2]), 2)
        tensor([1, 1, 2, 2])
    """
    if repeats is None:  # the one-argument form: the positions of `input` repeated
        repeats = input
        if repeats.dim() != 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        input = _native.arange(repeats.shape[0], device=repeats.device)
    if dim is None:
        input, dim = input.reshape(-1), 0
    ndim = input.dim()
    dim = _wrap_dim(dim, ndim)
    size = input.shape[dim] if ndim else 1
    counts = _repeat_counts(repeats, size, dim)
    if output_size is not None and output_size != sum(counts):
        raise RuntimeError("allocated size does not match required size")
    index = _native.tensor(np.repeat(np.arange(size), counts).astype(np.int64),
                           device=input.device)
    return (input.reshape(1) if ndim == 0 else input).index_select(dim, index)


# ---- layouts: gradrs has only the strided one ---------------------------------------------------

class layout:
    """`gradrs.layout`: the memory layout of a tensor; `gradrs.strided` is its only instance."""

    __slots__ = ("_name",)

    def __new__(cls, *args, **kwargs):
        raise TypeError("cannot create 'gradrs.layout' instances")

    def __repr__(self):
        return f"gradrs.{self._name}"

    def __reduce__(self):
        return self._name  # pickled as the module global `gradrs.strided`


layout.__module__ = "gradrs"
strided = object.__new__(layout)
object.__setattr__(strided, "_name", "strided")
Tensor.layout = property(lambda self: strided, doc="Always `gradrs.strided`.")


# ---- Tensor methods of the names above -------------------------------------------------------

def _named_self(method, fn):
    """`method`'s signature is `fn`'s with its first parameter (`input`) named `self`."""
    method.__name__ = method.__qualname__ = fn.__name__
    method.__doc__ = fn.__doc__
    sig = inspect.signature(fn)
    first, *rest = sig.parameters.values()
    method.__signature__ = sig.replace(parameters=[first.replace(name="self"), *rest])
    return method


def _method(fn):
    """`fn(input, ...)` as a Tensor method."""
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)

    return _named_self(method, fn)


def _binary_method(fn):
    """`fn` as a Tensor method: `other` is argument 1 of the method in PyTorch's errors."""
    def method(self, other, *args, **kwargs):
        _check_tensor(fn.__name__, "other", 1, other)
        return fn(self, other, *args, **kwargs)

    return _named_self(method, fn)


Tensor.isnan = _method(isnan)
Tensor.isinf = _method(isinf)
Tensor.isfinite = _method(isfinite)
Tensor.isposinf = _method(isposinf)
Tensor.isneginf = _method(isneginf)
Tensor.isreal = _method(isreal)
Tensor.bincount = _method(bincount)
Tensor.unique = _method(unique)
Tensor.unique_consecutive = _method(unique_consecutive)
Tensor.allclose = _binary_method(allclose)
Tensor.isclose = _binary_method(isclose)
Tensor.dist = _binary_method(dist)
Tensor.index_fill = _method(index_fill)
Tensor.index_fill_ = _index_fill_
Tensor.repeat_interleave = _method(repeat_interleave)
Tensor.cummax = _method(cummax)
Tensor.cummin = _method(cummin)
Tensor.mode = _method(mode)
Tensor.diff = _method(diff)
Tensor.count_nonzero = _method(count_nonzero)
Tensor.rot90 = _method(rot90)


def _iter(self):
    """`iter(tensor)` as PyTorch's: over `unbind(0)` (so the rows' grad_fn is UnbindBackward0,
    not the SelectBackward0 of the `__getitem__` fallback), a 0-d tensor refused."""
    if self.dim() == 0:
        raise TypeError("iteration over a 0-d tensor")
    return iter(self.unbind(0))


Tensor.__iter__ = _iter
