"""`gradrs.functional` (`torch.functional`): what PyTorch's own torch/functional.py writes in
Python (broadcasting helpers, meshgrid, cartesian_prod, block_diag, atleast_*d, tensordot,
chain_matmul, cdist, unique) with `softmax` / `log_softmax` forms, `dist` and `bincount`, and
the helpers `_ops/` shares (`_check_tensor`, `_dtype_name`, `_method`). Other compositions PyTorch
has no kernel for live in `_ops/` by family (predicates, sorting, shapes, indexing...)."""

import builtins
import inspect
import math
import warnings

import numpy as np

from . import _argparse, _native, _numpy_names
from ._grad_mode import no_grad as _no_grad
from ._native import Tensor

__all__ = [
    "atleast_1d", "atleast_2d", "atleast_3d", "bincount", "block_diag", "broadcast_shapes",
    "broadcast_tensors", "cartesian_prod", "cdist", "chain_matmul", "dist", "log_softmax",
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
    return _as_function("softmax", input.softmax, (input, dim), dtype)


def _as_function(name, method, args, dtype):
    """`method(*args[1:], dtype=dtype)` with its argument errors as the function's
    (Note [Parser errors]: the function's positions count `input`)."""
    try:
        return method(*args[1:], dtype=dtype)
    except TypeError as e:
        err = _argparse.function_error(name, args, {"dtype": dtype} if dtype is not None else {}, e)
        if err is None:
            raise
        raise err from None


@_numpy_names.accepts
def log_softmax(input, dim, dtype=None):
    """`gradrs.log_softmax(input, dim, dtype=None)`.

    Examples:
        >>> gradrs.log_softmax(gradrs.tensor([1.0, 2.0, 3.0]), dim=0)
        tensor([-2.4076, -1.4076, -0.4076])
    """
    return _as_function("log_softmax", input.log_softmax, (input, dim), dtype)


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
    """`dim` wrapped into [0, ndim) as ATen's `maybe_wrap_dim` (a 0-dim tensor takes 0 and -1),
    else PyTorch's IndexError. The one copy: `_reduce_ops`, `_ops/`, `_composites` and `_vmap`
    import it."""
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


Tensor.bincount = _method(bincount)
Tensor.unique = _method(unique)
Tensor.unique_consecutive = _method(unique_consecutive)
Tensor.dist = _binary_method(dist)
