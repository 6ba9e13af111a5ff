"""PyTorch's top-level forms of linalg ops (`gradrs.det`, `gradrs.svd`, `gradrs.logdet`,
`gradrs.cholesky_solve`, `gradrs.trace`, ...) and their Tensor methods.
"""

import math

from .. import _native
from .._grad_mode import no_grad as _native_no_grad
from .._forms import with_out as _with_out
from .._native import Tensor
from ._common import (
    _batch_shape, _check_dims, _check_kernel, _check_matrix, _check_square, _dname,
    _check_tensor, _eye_like, _low_precision, _mT, _one_node, _T_QR_OLD, _T_SLOGDET_OLD,
    _T_SVD_OLD, _vmap_leading,
)
from ._common import _record, _tuple_type
from ._solvers import _unpack, det, inv, lu_solve as _linalg_lu_solve, slogdet, solve_triangular
from ._decompositions import cholesky, qr, svd
from ._least_squares import pinv
from ._products import cross, matrix_exp, matrix_power


def _det_top(input):
    """Determinant of a square matrix or of each matrix in a batch.

    Args:
        input: shape (*, n, n).

    Examples:
        >>> gradrs.det(gradrs.tensor([[2.0, 1.0], [1.0, 3.0]]))
        tensor(5.)
    """
    _check_tensor("det", "input", 1, input)
    return det(input)


def logdet(input):
    """log(det(A)): NaN for a negative determinant, -inf for a singular matrix.

    Examples:
        >>> gradrs.logdet(gradrs.tensor([[2.0, 0.0], [0.0, 4.0]]))
        tensor(2.0794)
    """
    _check_tensor("logdet", "input", 1, input)
    _check_matrix("logdet", input)
    _check_square("logdet", input)
    if not input.is_floating_point():
        raise RuntimeError(f"logdet: Expected a floating point or complex tensor as input. "
                           f"Got {_dname(input.dtype)}")
    _low_precision("logdet", input)
    sign, la = slogdet(input)
    return _native.where(sign == -1, _native.full_like(la, math.nan), la)


def _slogdet_top(input):
    """Sign and log of the absolute value of the determinant, (sign, logabsdet), stable
    where the determinant itself would overflow.

    Args:
        input: shape (*, n, n).

    Examples:
        >>> gradrs.slogdet(gradrs.tensor([[1.0, 2.0], [3.0, 4.0]]))
        gradrs.return_types.slogdet(
        sign=tensor(-1.),
        logabsdet=tensor(0.6931))
    """
    _check_tensor("slogdet", "input", 1, input)
    return _T_SLOGDET_OLD(*slogdet(input))


def inverse(input, *, out=None):
    """`linalg.inv`.

    Examples:
        >>> gradrs.inverse(gradrs.tensor([[2.0, 0.0], [0.0, 4.0]]))
        tensor([[0.5000, 0.0000],
                [0.0000, 0.2500]])
    """
    _check_tensor("inverse", "input", 1, input)
    return inv(input, out=out)


def pinverse(input, rcond=1e-15):
    """`linalg.pinv` with a relative cutoff `rcond`.

    Examples:
        >>> gradrs.pinverse(gradrs.tensor([[2.0, 0.0], [0.0, 4.0]]))
        tensor([[0.5000, 0.0000],
                [0.0000, 0.2500]])
    """
    _check_tensor("pinverse", "input", 1, input)
    return pinv(input, rtol=rcond)


def _cholesky_top(input, upper=False, *, out=None):
    """The Cholesky factor of a symmetric positive-definite matrix (or batch): the
    lower-triangular L with A = L L^T (upper=True: the upper U with A = U^T U). Deprecated in
    PyTorch in favour of `linalg.cholesky`.

    Args:
        input: shape (*, n, n), symmetric positive-definite.
        upper: return the upper factor (default False).
        out: an optional output tensor.

    Examples:
        >>> gradrs.cholesky(gradrs.tensor([[4.0, 2.0], [2.0, 3.0]]))
        tensor([[2.0000, 0.0000],
                [1.0000, 1.4142]])
    """
    import warnings

    warnings.warn("gradrs.cholesky is deprecated in favor of gradrs.linalg.cholesky and will be "
                  "removed in a future PyTorch release.", UserWarning, stacklevel=2)
    _check_matrix("cholesky", input)
    _check_square("cholesky", input)
    _check_kernel(input, "cholesky_cpu")
    return cholesky(input, upper=upper, out=out)


def cholesky_solve(input, input2, upper=False, *, out=None):
    """X with A X = B given A's Cholesky factor `input2` (lower, or upper).

    Examples:
        >>> L = gradrs.linalg.cholesky(gradrs.tensor([[4.0, 2.0], [2.0, 3.0]]))
        >>> gradrs.cholesky_solve(gradrs.tensor([[6.0], [5.0]]), L)
        tensor([[1.],
                [1.]])
    """
    _check_tensor("cholesky_solve", "input", 1, input)
    _check_tensor("cholesky_solve", "input2", 2, input2)
    for name, t in (("b", input), ("u", input2)):
        if t.dim() < 2:
            raise RuntimeError(f"{name} should have at least 2 dimensions, but has {t.dim()} "
                               "dimensions instead")
    _check_kernel(input2, "cholesky_solve_cpu")

    def fn(b, f):
        L = _mT(f) if upper else f
        y = solve_triangular(L, b, upper=False)
        return solve_triangular(_mT(L), y, upper=True)

    def compute():
        return _one_node("CholeskySolveBackward0", fn, input, input2)

    if out is not None:
        return _with_out("cholesky_solve", out, compute, (input, input2))
    return compute()


def cholesky_inverse(input, upper=False, *, out=None):
    """(L L^T)^{-1} given the Cholesky factor L (or U with `upper`).

    Examples:
        >>> L = gradrs.linalg.cholesky(gradrs.tensor([[4.0, 2.0], [2.0, 3.0]]))
        >>> gradrs.cholesky_inverse(L)
        tensor([[ 0.3750, -0.2500],
                [-0.2500,  0.5000]])
    """
    _check_tensor("cholesky_inverse", "input", 1, input)
    _check_matrix("cholesky_inverse", input)
    _check_kernel(input, "cholesky_inverse_out_cpu")

    def fn(f):
        L = _mT(f) if upper else f
        n = L.shape[-1]
        Linv = solve_triangular(L, _eye_like(n, L).expand(L.shape), upper=False)
        return _mT(Linv) @ Linv

    def compute():
        return _one_node("CholeskyInverseBackward0", fn, input)

    if out is not None:
        return _with_out("cholesky_inverse", out, compute, (input,))
    return compute()


def _svd_top(input, some=True, compute_uv=True, *, out=None):
    """Singular value decomposition A = U diag(S) V^T, returned as (U, S, V) (note V, not
    V^T; `linalg.svd` is the newer form).

    Args:
        input: shape (*, m, n).
        some: the reduced decomposition (default True).
        compute_uv: compute U and V (default True; False gives zero-filled U and V).
        out: an optional (U, S, V) tuple of output tensors.

    Examples:
        >>> u, s, v = gradrs.svd(gradrs.tensor([[3.0, 0.0], [0.0, 4.0]]))
        >>> s
        tensor([4., 3.])
    """
    _check_tensor("svd", "input", 1, input)
    if input.dim() < 2:
        raise RuntimeError(f"linalg.svd: input should have at least 2 dimensions, but has "
                           f"{input.dim()} dimensions instead")

    def compute():
        U, S, Vh = svd(input, full_matrices=not some)
        if not compute_uv:
            m, n = input.shape[-2], input.shape[-1]
            return _T_SVD_OLD(U.new_zeros(tuple(input.shape[:-2]) + (m, m)).detach(), S,
                              U.new_zeros(tuple(input.shape[:-2]) + (n, n)).detach())
        return _T_SVD_OLD(U, S, _mT(Vh))

    if out is not None:
        return _T_SVD_OLD(*_with_out("svd", out, compute, (input,)))
    return compute()


def _qr_top(input, some=True, *, out=None):
    """QR decomposition A = Q R (deprecated in PyTorch in favour of `linalg.qr`).

    Args:
        input: shape (*, m, n).
        some: the reduced decomposition (default True) or the complete one.
        out: an optional (Q, R) tuple of output tensors.

    Examples:
        >>> q, r = gradrs.qr(gradrs.tensor([[3.0, 1.0], [4.0, 2.0]]))
        >>> gradrs.allclose(q @ r, gradrs.tensor([[3.0, 1.0], [4.0, 2.0]]))
        True
    """
    _check_tensor("qr", "input", 1, input)

    def compute():
        return _T_QR_OLD(*qr(input, "reduced" if some else "complete"))

    if out is not None:
        return _T_QR_OLD(*_with_out("qr", out, compute, (input,)))
    return compute()


def trace(input):
    """The sum of the main diagonal of a 2-D tensor.

    Examples:
        >>> gradrs.trace(gradrs.tensor([[1.0, 2.0], [3.0, 4.0]]))
        tensor(5.)
    """
    _check_tensor("trace", "input", 1, input)
    if input.dim() != 2:
        raise RuntimeError("trace: expected a matrix, but got tensor with dim "
                           f"{input.dim()}")
    if input.dtype == _native.bool:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    d = input.diagonal()
    if not input.is_floating_point():
        return d.sum()
    return _one_node("TraceBackward0", lambda t: t.diagonal().sum(), input,
                     saved=lambda: [("self_sym_sizes", tuple(input.shape))])


# PyTorch warns once per process (TORCH_WARN_ONCE).
_CROSS_WARNED: list = []


def _cross_top(input, other, dim=None, *, out=None):
    """Cross product of 3-vectors along `dim` (default: the first dimension of size 3).

    Args:
        input: a tensor with a dimension of size 3.
        other: a tensor broadcastable with `input`.
        dim: the dimension holding the vectors.
        out: an optional output tensor.

    Examples:
        >>> gradrs.cross(gradrs.tensor([1.0, 0.0, 0.0]), gradrs.tensor([0.0, 1.0, 0.0]), dim=0)
        tensor([0., 0., 1.])
    """
    _check_tensor("cross", "input", 1, input)
    _check_tensor("cross", "other", 2, other)
    if dim is None:
        import warnings

        if not _CROSS_WARNED:
            _CROSS_WARNED.append(True)
            warnings.warn("Using gradrs.cross without specifying the dim arg is deprecated.\n"
                          "Please either pass the dim explicitly or simply use "
                          "gradrs.linalg.cross.\nThe default value of dim will change to agree "
                          "with that of linalg.cross in a future release.", UserWarning,
                          stacklevel=2)
        shape = _batch_shape(input.shape, other.shape)
        dim = next((i for i, s in enumerate(shape) if s == 3), -1)
    return cross(input, other, dim=dim, out=out)


# The top-level forms are exported under PyTorch's names (gradrs.det, gradrs.svd, ...).
for _f, _n in ((_det_top, "det"), (_slogdet_top, "slogdet"), (_cholesky_top, "cholesky"),
               (_svd_top, "svd"), (_qr_top, "qr"), (_cross_top, "cross")):
    _f.__name__ = _f.__qualname__ = _n


# Tensor methods, with PyTorch's signatures.
_T_LU_UNPACK = _tuple_type("lu_unpack", ("P", "L", "U"))


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """``(P, L, U)`` from `gradrs.linalg.lu_factor`'s packed `LU_data` and 1-based int32
    `LU_pivots`: the permutation matrix and the unit-lower and upper triangular factors
    (``A = P @ L @ U``); a factor not asked for is an empty tensor. L and U share one
    LuUnpackBackward0.

    Examples:
        >>> A = gradrs.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> P, L, U = gradrs.lu_unpack(*gradrs.linalg.lu_factor(A))
        >>> gradrs.allclose(P @ L @ U, A)
        True
    """
    if out is not None:
        return _T_LU_UNPACK(*_with_out("lu_unpack", out, lambda: lu_unpack(
            LU_data, LU_pivots, unpack_data, unpack_pivots), (LU_data, LU_pivots)))
    _check_dims("gradrs.lu_unpack", LU_data)
    if LU_pivots.dtype != _native.int32 or not LU_pivots.is_contiguous():
        raise RuntimeError("gradrs.lu_unpack: LU_pivots is expected to be a contiguous tensor "
                           "of gradrs.int32 dtype.\nNote: this function is intended to be used "
                           "with the output produced by gradrs.linalg.lu_factor")
    m, n = LU_data.shape[-2], LU_data.shape[-1]
    if unpack_pivots and LU_pivots.numel() and (
            int(LU_pivots.min()) < 1 or int(LU_pivots.max()) > m
            or LU_pivots.shape[-1] != min(m, n)):
        raise RuntimeError("pivots passed to lu_unpack must be between 1 and LU.size(-2) "
                           "inclusive.Did you properly pass the result of lu_factor?")
    empty = _native.empty(0, dtype=LU_data.dtype, device=LU_data.device)
    with _native_no_grad():
        P, L, U = _unpack(LU_data.detach(), LU_pivots, unpack_data, unpack_pivots)
    P = empty if P is None else P
    if not unpack_data:
        L, U = empty.clone(), empty.clone()
    k = min(m, n)

    def backward(grads, outs):
        _, gL, gU = grads
        if not unpack_data or (gL is None and gU is None):
            return [None]
        from ..nn import functional as F

        parts = []
        if gL is not None:
            parts.append(F.pad(gL.tril(-1), (0, n - k)))
        if gU is not None:
            parts.append(F.pad(gU.triu(), (0, 0, 0, m - k)))
        return [parts[0] if len(parts) == 1 else parts[0] + parts[1]]

    def recompute():
        _, L2, U2 = _unpack(LU_data, LU_pivots, True, False)
        return [None, L2, U2]

    _, L, U = _record("LuUnpackBackward0", [None, L, U], [LU_data], backward, recompute)
    return _T_LU_UNPACK(P, L, U)


_LU_SOLVE_WARNED = []


def lu_solve(b, LU_data, LU_pivots, *, out=None):
    """Deprecated: X with ``A @ X = b`` from `gradrs.linalg.lu_factor`'s `LU_data` and
    `LU_pivots`, i.e. ``gradrs.linalg.lu_solve(LU_data, LU_pivots, b)`` (PyTorch warns once).

    Examples:
        >>> A = gradrs.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> LU, pivots = gradrs.linalg.lu_factor(A)
        >>> x = gradrs.lu_solve(gradrs.tensor([[5.0], [11.0]]), LU, pivots)
        >>> gradrs.allclose(x, gradrs.tensor([[1.0], [2.0]]))
        True
    """
    from .._runtime import is_warn_always_enabled

    if not _LU_SOLVE_WARNED or is_warn_always_enabled():
        _LU_SOLVE_WARNED.append(True)
        import warnings

        warnings.warn(
            "gradrs.lu_solve is deprecated in favor of gradrs.linalg.lu_solveand will be removed "
            "in a future PyTorch release.\nNote that gradrs.linalg.lu_solve has its arguments "
            "reversed.\nX = gradrs.lu_solve(B, LU, pivots)\nshould be replaced with\n"
            "X = gradrs.linalg.lu_solve(LU, pivots, B) (Triggered internally at "
            "/__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:2230.)",
            UserWarning, stacklevel=2)
    return _linalg_lu_solve(LU_data, LU_pivots, b, out=out)


def _lu_solve_method(self, LU_data, LU_pivots):
    """`gradrs.lu_solve(self, LU_data, LU_pivots)`."""
    return lu_solve(self, LU_data, LU_pivots)


def _det_method(self):
    """`gradrs.det(self)`."""
    return det(self)


def _logdet_method(self):
    """`gradrs.logdet(self)`."""
    return logdet(self)


def _slogdet_method(self):
    """`gradrs.slogdet(self)`."""
    return _slogdet_top(self)


def _inverse_method(self):
    """`gradrs.inverse(self)`."""
    return inverse(self)


def _pinverse_method(self, rcond=1e-15):
    """`gradrs.pinverse(self, rcond)`."""
    return pinverse(self, rcond)


def _cholesky_method(self, upper=False):
    """`gradrs.cholesky(self, upper)`."""
    return _cholesky_top(self, upper)


def _cholesky_solve_method(self, input2, upper=False):
    """`gradrs.cholesky_solve(self, input2, upper)`."""
    return cholesky_solve(self, input2, upper)


def _cholesky_inverse_method(self, upper=False):
    """`gradrs.cholesky_inverse(self, upper)`."""
    return cholesky_inverse(self, upper)


def _svd_method(self, some=True, compute_uv=True):
    """`gradrs.svd(self, some, compute_uv)`."""
    return _svd_top(self, some, compute_uv)


def _qr_method(self, some=True):
    """`gradrs.qr(self, some)`."""
    return _qr_top(self, some)


def _matrix_power_method(self, n):
    """`gradrs.matrix_power(self, n)`."""
    return matrix_power(self, n)


def _matrix_exp_method(self):
    """`gradrs.matrix_exp(self)`."""
    return matrix_exp(self)


def _trace_method(self):
    """`gradrs.trace(self)`."""
    return trace(self)


def _cross_method(self, other, dim=None):
    """`gradrs.cross(self, other, dim)`."""
    return _cross_top(self, other, dim)


for _name, _fn in (("det", _det_method), ("logdet", _logdet_method),
                   ("slogdet", _slogdet_method), ("inverse", _inverse_method),
                   ("pinverse", _pinverse_method), ("cholesky", _cholesky_method),
                   ("cholesky_solve", _cholesky_solve_method),
                   ("cholesky_inverse", _cholesky_inverse_method), ("svd", _svd_method),
                   ("qr", _qr_method), ("matrix_power", _matrix_power_method),
                   ("matrix_exp", _matrix_exp_method), ("trace", _trace_method),
                   ("cross", _cross_method), ("lu_solve", _lu_solve_method)):
    _fn.__name__ = _fn.__qualname__ = _name
    setattr(Tensor, _name, _fn)


# Under vmap these run once on the physical tensors, the batch one more leading dim.
logdet = _vmap_leading(logdet)
inverse = _vmap_leading(inverse)
pinverse = _vmap_leading(pinverse)
cholesky_solve = _vmap_leading(cholesky_solve)
cholesky_inverse = _vmap_leading(cholesky_inverse)
_det_top = _vmap_leading(_det_top)
_slogdet_top = _vmap_leading(_slogdet_top)
_cholesky_top = _vmap_leading(_cholesky_top)
_svd_top = _vmap_leading(_svd_top)
_qr_top = _vmap_leading(_qr_top)
