"""Pseudo-inverse, least squares, rank and condition number of `gradrs.linalg`: pinv,
lstsq, matrix_rank, cond.
"""

import builtins
import math

import numpy as np

from .. import _native
from .._forms import with_out as _with_out
from .._native import Tensor
from ._common import (
    _check_float, _check_matrix, _check_tensor, _dname, _first_failure, _is_float,
    _low_precision, _mT, _nograd, _one_node, _record, _T_LSTSQ, _vmap_leading,
)
from ._solvers import inv_ex
from ._decompositions import _eigh, _svd_raw, svdvals
from ._norms import matrix_norm, _ord_str


def _pinv_jvp(A):
    """PyTorch's pinv_jvp (constant rank), with the smaller of the two products."""
    def jvp(tangents, outs):
        (dA,) = tangents
        (pA,) = outs
        m, n = A.shape[-2], A.shape[-1]
        dAh, pAh = _mT(dA), _mT(pA)
        if m <= n:
            K = pAh @ dAh
            return [pA @ (K - _mT(K) - K @ (A @ pA)) + (dAh - pA @ (A @ dAh)) @ (pAh @ pA)]
        K = pA @ dA
        Kh = _mT(K)
        return [(Kh - K - (pA @ A) @ Kh) @ pA + (pA @ pAh) @ (dAh - (dAh @ A) @ pA)]
    return jvp



def _tolerances(S, atol, rtol, m, n, dtype):
    """PyTorch's cutoff max(atol, rtol * largest singular value); rtol defaults to
    eps * max(m, n), or to 0 when a positive atol is given."""
    if rtol is None:
        positive = atol is not None and (isinstance(atol, Tensor) or atol > 0)
        rtol = 0.0 if positive else builtins.max(m, n) * _eps(dtype)
    smax = S.amax(-1, keepdim=True)
    cut = smax * (rtol.unsqueeze(-1) if isinstance(rtol, Tensor) else rtol)
    if atol is None:
        return cut
    if isinstance(atol, Tensor):
        return _maximum(cut, atol.unsqueeze(-1).to(cut.dtype))
    return cut.clamp(min=atol)


def _maximum(a, b):
    import gradrs

    return gradrs.maximum(a, b)


def _eps(dtype):
    return float(np.finfo(np.float32 if dtype == _native.float32 else np.float64).eps)


def _pinv_backward(g, pinvA, A):
    m, n = A.shape[-2], A.shape[-1]
    pinvAh = _mT(pinvA)
    gh = _mT(g)
    if m <= n:
        K = gh @ pinvA
        KpinvAh = K @ pinvAh
        return (-_mT(pinvA @ K) + KpinvAh - (A @ pinvA) @ KpinvAh
                + (pinvAh @ pinvA) @ (gh - K @ A))
    K = pinvA @ gh
    pinvAhK = pinvAh @ K
    return (-_mT(K @ pinvA) + pinvAhK - pinvAhK @ (pinvA @ A)
            + (gh - A @ K) @ pinvA @ pinvAh)


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """The Moore-Penrose pseudo-inverse (singular values under the cutoff dropped).

    Examples:
        >>> gradrs.linalg.pinv(gradrs.tensor([[2.0, 0.0], [0.0, 0.0]]))
        tensor([[0.5000, 0.0000],
                [0.0000, 0.0000]])
    """
    _check_tensor("linalg_pinv", "input", 1, A)
    if A.dim() < 2 or not _is_float(A):
        raise RuntimeError(f"linalg.pinv({_dname(A.dtype)}{{{list(A.shape)}}}): expected a "
                           "tensor with 2 or more dimensions of float, double, cfloat or "
                           "cdouble types")

    def compute():
        m, n = A.shape[-2], A.shape[-1]
        with _nograd():
            if m == 0 or n == 0:
                P = _native.zeros(tuple(A.shape[:-2]) + (n, m), dtype=A.dtype, device=A.device)
            elif hermitian:
                w, V = _eigh(A, "L", True)
                cut = _tolerances(w.abs(), atol, rtol, m, n, A.dtype)
                winv = _native.where(w.abs() > cut, 1.0 / w, _native.zeros_like(w))
                P = (V * winv.unsqueeze(-2)) @ _mT(V)
            else:
                U, S, Vh = _svd_raw(A, False, True)
                cut = _tolerances(S, atol, rtol, m, n, A.dtype)
                sinv = _native.where(S > cut, 1.0 / S, _native.zeros_like(S))
                P = (_mT(Vh) * sinv.unsqueeze(-2)) @ _mT(U)

        def backward(grads, outs):
            g = grads[0]
            return [None if g is None else _pinv_backward(g, outs[0], A)]

        return _record("LinalgPinvBackward0", [P], [A], backward,
                       lambda: [pinv(A, atol=atol, rtol=rtol, hermitian=hermitian)],
                       jvp=_pinv_jvp(A), saved=[("result", P), ("self", A)])[0]

    if out is not None:
        return _with_out("linalg_pinv", out, compute, (A,))
    return compute()


def lstsq(A, B, rcond=None, *, driver=None):
    """Least-squares solution of A X = B: (solution, residuals, rank, singular_values) as
    PyTorch's CPU default driver `gelsy` (rank and residuals; no singular values).

    Examples:
        >>> A = gradrs.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
        >>> B = gradrs.tensor([[1.0], [2.0], [3.0]])
        >>> gradrs.linalg.lstsq(A, B).solution
        tensor([[1.0000],
                [2.0000]])
    """
    _check_tensor("linalg_lstsq", "self", 1, A)
    _check_tensor("linalg_lstsq", "b", 2, B)
    if A.dim() < 2:
        raise RuntimeError("gradrs.linalg.lstsq: input must have at least 2 dimensions.")
    if not _is_float(A):
        raise RuntimeError("This function doesn't handle types other than float and double")
    if driver is None:
        driver = "gelsy"
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError(f"gradrs.linalg.lstsq: parameter `driver` should be one of "
                           f"(gels, gelsy, gelsd, gelss), but got {driver}")
    if A.dtype != B.dtype:
        raise RuntimeError(f"gradrs.linalg.lstsq: Expected input and other to have the same "
                           f"dtype, but got input's dtype {_dtype_str(A.dtype)} and other's "
                           f"dtype {_dtype_str(B.dtype)}")
    vector = B.dim() == A.dim() - 1
    Bm = B.unsqueeze(-1) if vector else B
    if Bm.dim() < 2:
        raise RuntimeError("gradrs.linalg.lstsq: input must have at least 2 dimensions.")
    if A.shape[-2] != Bm.shape[-2]:
        raise RuntimeError("gradrs.linalg.lstsq: input.size(-2) should match other.size(-2)")
    m, n = A.shape[-2], A.shape[-1]
    if rcond is None:
        rcond = _eps(A.dtype) * max(m, n)
    with _nograd():
        S = _svd_raw(A, False, False)[1] if min(m, n) else A.new_zeros(A.shape[:-2] + (0,))
        cut = S.amax(-1, keepdim=True) * rcond if min(m, n) else S
        rank = (S > cut).sum(-1) if min(m, n) else _native.zeros(
            A.shape[:-2], dtype=_native.int64, device=A.device)
    X = _one_node("LinalgLstsqBackward0",
                  lambda a, b: pinv(a, rtol=None if driver == "gels" else rcond) @ b, A, Bm)
    full_rank = bool((rank == min(m, n)).all()) if rank.numel() else True
    # gelsy (the default) computes no residuals; the others do for a full-rank tall A.
    if m > n and full_rank and driver != "gelsy":
        res = ((A @ X - Bm) ** 2).sum(-2)
        if vector:
            res = res.squeeze(-1)
    else:
        res = _native.empty((0,), dtype=A.dtype, device=A.device)
    if vector:
        X = X.squeeze(-1)
    sv = S if driver in ("gelsd", "gelss") else _native.empty((0,), dtype=A.dtype,
                                                               device=A.device)
    if driver == "gels":
        rank = _native.empty((0,), dtype=_native.int64, device=A.device)
    return _T_LSTSQ(X, res, rank, sv)


def _dtype_str(dtype):
    return "gradrs." + str(dtype).split(".")[-1]


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, out=None, tol=None):
    """The number of singular values (eigenvalue magnitudes) above the cutoff.

    Examples:
        >>> gradrs.linalg.matrix_rank(gradrs.tensor([[1.0, 2.0], [2.0, 4.0]]))
        tensor(1)
    """
    _check_tensor("linalg_matrix_rank", "input", 1, A)
    if not _is_float(A):
        raise RuntimeError("This function doesn't handle types other than float and double")
    _check_matrix("gradrs.linalg.matrix_rank", A, "input")
    if tol is not None:
        atol, rtol = tol, 0.0

    def compute():
        m, n = A.shape[-2], A.shape[-1]
        if m == 0 or n == 0:
            return _native.zeros(A.shape[:-2], dtype=_native.int64, device=A.device)
        with _nograd():
            if hermitian:
                S = _eigh(A, "L", False)[0].abs()
            else:
                S = _svd_raw(A, False, False)[1]
            cut = _tolerances(S, atol, rtol, m, n, A.dtype)
            return (S > cut).sum(-1)

    if out is not None:
        return _with_out("linalg_matrix_rank", out, compute, (A,))
    return compute()


def cond(A, p=None, *, out=None):
    """The condition number in the norm `p` (None / 2: largest / smallest singular value).

    Examples:
        >>> gradrs.linalg.cond(gradrs.tensor([[1.0, 0.0], [0.0, 4.0]]))
        tensor(4.)
    """
    _check_tensor("linalg_cond", "input", 1, A)
    if A.dim() < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    if p in (None, 2, -2):
        _check_float("linalg.svd", A, "linalg_svd_cpu")

        def compute():
            S = svdvals(A)
            if S.shape[-1] == 0:
                return S.sum(-1)
            r = S[..., :1] / S[..., -1:]
            if p == -2:
                r = S[..., -1:] / S[..., :1]
            return r.squeeze(-1)
    else:
        if p not in ("fro", "nuc", math.inf, -math.inf, 1, -1):
            raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
        if A.shape[-1] != A.shape[-2]:
            raise RuntimeError(f"linalg.cond(ord={_ord_str(p)}): A must be batches of square "
                               f"matrices, but they are {A.shape[-2]} by {A.shape[-1]} "
                               "matrices")
        if p == "nuc":
            _check_float("linalg.svd", A, "linalg_svd_cpu")
        _low_precision("linalg.inv", A)
        _check_float("linalg.inv", A)

        def compute():
            Ainv, info = inv_ex(A)
            c = matrix_norm(A, p) * matrix_norm(Ainv, p)
            if _first_failure(info) is None:
                return c
            return _native.where(info > 0, _native.full_like(c, math.inf), c)

    if out is not None:
        return _with_out("linalg_cond", out, compute, (A,))
    return compute()


# Under vmap these run once on the physical tensors, the batch one more leading dim.
pinv = _vmap_leading(pinv)
lstsq = _vmap_leading(lstsq)
matrix_rank = _vmap_leading(matrix_rank)
cond = _vmap_leading(cond)
