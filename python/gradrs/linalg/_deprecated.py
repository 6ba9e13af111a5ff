"""PyTorch's deprecated linear-algebra entry points that still compute (older GP / Bayesian
optimisation code calls them): `gradrs.triangular_solve(b, A)` (node TriangularSolveBackward0
over both outputs, derivatives.yaml's triangular_solve_backward), `gradrs.lu(A)` and
`gradrs._lu_with_info` (linalg.lu_factor_ex), and their Tensor methods; each warns once, as
PyTorch's TORCH_WARN_ONCE."""

from .._native import Tensor
from ._common import (
    _batch_shape, _check_kernel, _check_tensor, _dname, _record, _tuple_type, _vmap_leading,
)
from ._solvers import _solve_tri_left, lu_factor_ex

_T_TRIANGULAR_SOLVE = _tuple_type("triangular_solve", ("solution", "cloned_coefficient"))
_T_TRIANGULAR_SOLVE_OUT = _tuple_type("triangular_solve_out", ("solution", "cloned_coefficient"))
_T_LU_WITH_INFO = _tuple_type("_lu_with_info", ("LU", "pivots", "info"))

_WARNED = set()


def _warn_once(key, message):
    """A UserWarning, once per process unless warn_always, at the caller's line outside
    gradrs (PyTorch's comes from C++, at the line that called it)."""
    import os
    import sys
    import warnings

    from .._runtime import is_warn_always_enabled

    if key in _WARNED and not is_warn_always_enabled():
        return
    _WARNED.add(key)
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame, level = sys._getframe(1), 2
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, UserWarning, stacklevel=level)


def _solve(b, A, upper, transpose, unitriangular):
    """op(A) X = b, op(A) = A^T with `transpose`; A's `upper` (or lower) triangle read."""
    if transpose:
        return _solve_tri_left(A.mT, b, not upper, unitriangular)
    return _solve_tri_left(A, b, upper, unitriangular)


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """Deprecated: `(solution, cloned_coefficient)` with ``A X = b`` (``A^T X = b`` with
    `transpose`), A upper (or lower) triangular, i.e. ``gradrs.linalg.solve_triangular(A, b,
    upper=upper)`` and a copy of A broadcast to the batch. PyTorch warns once.

    Examples:
        >>> A = gradrs.tensor([[2.0, 1.0], [0.0, 4.0]])
        >>> gradrs.triangular_solve(gradrs.tensor([[4.0], [8.0]]), A).solution
        tensor([[1.],
                [2.]])
    """
    _check_tensor("triangular_solve", "self", 1, b)
    _check_tensor("triangular_solve", "A", 2, A)
    if b.dim() < 2:
        raise RuntimeError(f"gradrs.triangular_solve: Expected b to have at least 2 dimensions, "
                           f"but it has {b.dim()} dimensions instead")
    if A.dim() < 2:
        raise RuntimeError(f"gradrs.triangular_solve: Expected A to have at least 2 dimensions, "
                           f"but it has {A.dim()} dimensions instead")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    if A.shape[-1] != b.shape[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for triangular_solve: each A matrix is "
                           f"{A.shape[-2]} by {A.shape[-1]} but each b matrix is "
                           f"{b.shape[-2]} by {b.shape[-1]}")
    if A.dtype != b.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{_dname(b.dtype)} and A of type {_dname(A.dtype)} instead.")
    _check_kernel(A, "triangular_solve_cpu")
    _warn_once("triangular_solve",
               "gradrs.triangular_solve is deprecated in favor of gradrs.linalg.solve_triangular"
               "and will be removed in a future PyTorch release.\ngradrs.linalg.solve_triangular "
               "has its arguments reversed and does not return a copy of one of the inputs.\n"
               "X = gradrs.triangular_solve(B, A).solution\nshould be replaced with\n"
               "X = gradrs.linalg.solve_triangular(A, B). (Triggered internally at "
               "/__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:2273.)")
    batch = _batch_shape(b.shape[:-2], A.shape[:-2])
    n = A.shape[-1]
    from .._grad_mode import no_grad

    with no_grad():
        X = _solve(b.detach(), A.detach(), upper, transpose, unitriangular)
        M = A.detach().expand(*batch, n, n).clone()

    def backward(grads, outs):
        # derivatives.yaml's triangular_solve_backward
        g_x, g_m = grads
        x = outs[0]
        g_b = g_a = None
        if g_x is not None:
            g_b = _solve(g_x, A, upper, not transpose, unitriangular)
            if A.requires_grad:
                g_a = -(x @ g_b.mT) if transpose else -(g_b @ x.mT)
                g_a = g_a.triu(int(unitriangular)) if upper else g_a.tril(-int(unitriangular))
        if g_m is not None and A.requires_grad:
            g_a = g_m if g_a is None else g_a + g_m
        return [g_b if b.requires_grad else None, g_a]

    def recompute():
        return [_solve(b, A, upper, transpose, unitriangular), A.expand(*batch, n, n).clone()]

    X, M = _record("TriangularSolveBackward0", [X, M], [b, A], backward, recompute)
    if out is not None:
        out[0].resize_(X.shape).copy_(X)
        out[1].resize_(M.shape).copy_(M)
        return _T_TRIANGULAR_SOLVE_OUT(out[0], out[1])
    return _T_TRIANGULAR_SOLVE(X, M)


def _lu_with_info(input, pivot=True, check_errors=True):
    """Deprecated: `linalg.lu_factor_ex(input, pivot=pivot)` as `(LU, pivots, info)`; PyTorch
    warns once and checks no errors whatever `check_errors` says."""
    _warn_once("lu",
               "gradrs.lu is deprecated in favor of gradrs.linalg.lu_factor / "
               "gradrs.linalg.lu_factor_ex and will be removed in a future PyTorch release.\n"
               "LU, pivots = gradrs.lu(A, compute_pivots)\nshould be replaced with\n"
               "LU, pivots = gradrs.linalg.lu_factor(A, compute_pivots)\nand\n"
               "LU, pivots, info = gradrs.lu(A, compute_pivots, get_infos=True)\n"
               "should be replaced with\n"
               "LU, pivots, info = gradrs.linalg.lu_factor_ex(A, compute_pivots) (Triggered "
               "internally at /__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp"
               ":2073.)")
    return _T_LU_WITH_INFO(*lu_factor_ex(input, pivot=pivot))


def lu(A, pivot=True, get_infos=False, out=None):
    """Deprecated (torch.functional's `lu`): the packed LU factorization of A with its pivots,
    and its infos with `get_infos`; ``gradrs.linalg.lu_factor(A)`` today.

    Examples:
        >>> LU, pivots = gradrs.lu(gradrs.tensor([[1.0, 2.0], [3.0, 4.0]]))
        >>> pivots
        tensor([2, 2], dtype=gradrs.int32)
    """
    result = _lu_with_info(A, pivot=pivot, check_errors=(not get_infos))
    if out is not None:
        if not isinstance(out, (tuple, list)) or len(out) != (3 if get_infos else 2):
            raise TypeError(f"expected tuple of {3 if get_infos else 2} elements but got "
                            f"{type(out).__name__}")
        for o, r in zip(out, result):
            o.resize_as_(r).copy_(r)
        return out
    if get_infos:
        return result
    return result[0], result[1]


def _triangular_solve_method(self, A, upper=True, transpose=False, unitriangular=False):
    """`gradrs.triangular_solve(self, A, upper, transpose, unitriangular)`."""
    return triangular_solve(self, A, upper, transpose, unitriangular)


def _lu_method(self, pivot=True, get_infos=False):
    """`gradrs.lu(self, pivot, get_infos)`."""
    LU, pivots, infos = _lu_with_info(self, pivot=pivot, check_errors=(not get_infos))
    if get_infos:
        return LU, pivots, infos
    return LU, pivots


_triangular_solve_method.__name__ = _triangular_solve_method.__qualname__ = "triangular_solve"
_lu_method.__name__ = _lu_method.__qualname__ = "lu"
Tensor.triangular_solve = _triangular_solve_method
Tensor.lu = _lu_method

triangular_solve = _vmap_leading(triangular_solve)
