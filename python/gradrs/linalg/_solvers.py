"""Solvers of `gradrs.linalg`: triangular solves, LU (lu_factor, lu, lu_solve), det, slogdet,
inv, solve.
"""

import builtins

import numpy as np

from .. import _native
from .._forms import with_out as _with_out
from ._common import (
    _batch_prefix, _batch_shape, _check_dims, _check_float, _check_kernel, _check_matrix,
    _check_square, _check_tensor, _dname, _eye_like, _first_failure, _LinAlgError, _low_precision,
    _mT, _nograd, _one_node, _record, _square_float, _T_INV_EX, _T_LU, _T_LU_FACTOR,
    _T_LU_FACTOR_EX, _T_SLOGDET, _T_SOLVE_EX, _vmap_leading,
)


def _jvp_solve_tri(A, upper, unit):
    def jvp(tangents, outs):
        dA, dB = tangents
        dA = (dA.triu(1 if unit else 0) if upper else dA.tril(-1 if unit else 0))
        return [solve_triangular(A, dB - dA @ outs[0], upper=upper, unitriangular=unit)]
    return jvp


def _jvp_lu(A, piv, packed):
    """dL, dU of A = P L U (PyTorch's linalg_lu_jvp: the square block's L^{-1} P^T dA U^{-1}
    split into its strictly lower and upper parts; the rest of a tall L or a wide U solved
    after). ``packed``: the tangent of the packed LU instead of (dL, dU)."""
    def jvp(tangents, outs):
        (dA,) = tangents
        LU = outs[0] if packed else None
        if packed:
            P, L, U = _unpack(LU, piv)
        else:
            P, L, U = _unpack(_lu_factor_raw(A)[0], piv)
        m, n = A.shape[-2], A.shape[-1]
        k = min(m, n)
        dA = _mT(P) @ dA
        L1, U1 = L[..., :k, :], U[..., :, :k]
        X = solve_triangular(L1, dA[..., :k, :k], upper=False, unitriangular=True)
        X = solve_triangular(U1, X, upper=True, left=False)
        dL1 = L1 @ X.tril(-1)
        dU1 = X.triu() @ U1
        if m > n:
            dL2 = solve_triangular(U1, dA[..., k:, :] - L[..., k:, :] @ dU1, upper=True,
                                   left=False)
            dL, dU = _native.cat([dL1, dL2], -2), dU1
        elif m < n:
            dU2 = solve_triangular(L1, dA[..., :, k:] - dL1 @ U[..., :, k:], upper=False,
                                   unitriangular=True)
            dL, dU = dL1, _native.cat([dU1, dU2], -1)
        else:
            dL, dU = dL1, dU1
        if packed:
            if m >= n:
                return [dL + _native.cat([dU, dL.new_zeros(tuple(dL.shape[:-2]) + (m - k, n))],
                                         -2)]
            return [_native.cat([dL, dL.new_zeros(tuple(dL.shape[:-2]) + (m, n - k))], -1) + dU]
        return [None, dL, dU]
    return jvp


def _trace_of_solve(A, dA):
    """tr(A^{-1} dA) through an LU of A whose zero pivots are replaced by eps (PyTorch's
    linalg_det_jvp: the determinant's derivative continued to singular matrices)."""
    from .. import diag_embed, finfo

    if A.shape[-1] == 0:
        return dA.sum((-2, -1))  # an empty trace
    LU, piv, _ = _lu_factor_raw(A)
    d = LU.diagonal(0, -2, -1)
    LU = LU + diag_embed(_native.where(d == 0, finfo(A.dtype).eps, 0.0).to(LU.dtype))
    return _lu_solve(LU, piv, dA).diagonal(0, -2, -1).sum(-1)



def _solve_tri_left(A, B, upper, unit):
    """X with A X = B (A triangular), batch dims broadcast; one node."""
    batch = _batch_shape(A.shape[:-2], B.shape[:-2])
    n, k = A.shape[-1], B.shape[-1]
    Ab = A.expand(*batch, n, n)
    Bb = B.expand(*batch, n, k)
    with _nograd():
        X = _native._linalg_solve_triangular(Ab.detach().contiguous(), Bb.detach().contiguous(),
                                             upper, unit)

    def backward(grads, outs):
        (g,) = grads
        (x,) = outs
        if g is None:
            return [None, None]
        gB = _solve_tri_left(_mT(A), g, not upper, unit) if B.requires_grad or A.requires_grad \
            else None
        gA = None
        if A.requires_grad:
            gA = -(gB @ _mT(x))
            gA = gA.triu(1 if unit else 0) if upper else gA.tril(-1 if unit else 0)
        return [gA, gB if B.requires_grad else None]

    return _record("LinalgSolveTriangularBackward0", [X], [A, B], backward,
                   lambda: [_solve_tri_left(A, B, upper, unit)],
                   jvp=_jvp_solve_tri(Ab, upper, unit))[0]


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """X with A X = B (`left`) or X A = B, A upper or lower triangular.

    Examples:
        >>> U = gradrs.tensor([[2.0, 1.0], [0.0, 4.0]])
        >>> gradrs.linalg.solve_triangular(U, gradrs.tensor([[4.0], [8.0]]), upper=True)
        tensor([[1.],
                [2.]])
    """
    _check_tensor("linalg_solve_triangular", "input", 1, A)
    _check_tensor("linalg_solve_triangular", "B", 2, B)
    _check_matrix("linalg.solve_triangular", A)
    _check_matrix("linalg.solve_triangular", B, "B")
    _check_kernel(A, "triangular_solve_cpu")
    if A.dtype != B.dtype:
        raise RuntimeError(f"linalg.solve_triangular: Expected A and B to have the same dtype, "
                           f"but found A of type {_dname(A.dtype)} and B of type "
                           f"{_dname(B.dtype)} instead")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.solve_triangular: A must be batches of square matrices, "
                           f"but they are {A.shape[-2]} by {A.shape[-1]} matrices")
    n = A.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        raise RuntimeError(
            f"linalg.solve_triangular: Incompatible shapes of A and B for the equation "
            f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {B.shape[-2]}x{B.shape[-1]})")

    def compute():
        if left:
            return _solve_tri_left(A, B, upper, unitriangular)
        # X A = B is A^T X^T = B^T; one node over (A, B) as PyTorch's.
        return _one_node("LinalgSolveTriangularBackward0", lambda a, b: _mT(
            _solve_tri_left(_mT(a), _mT(b), not upper, unitriangular)), A, B)

    if out is not None:
        return _with_out("linalg_solve_triangular", out, compute, (A, B))
    return compute()



def _perm_matrix(pivots, m, like):
    """P (float, like `like`) with A = P L U, from LAPACK's 1-based row interchanges."""
    piv = pivots.detach().cpu().numpy().reshape(-1, pivots.shape[-1]) - 1
    batch = tuple(pivots.shape[:-1])
    mats = np.zeros((piv.shape[0], m, m))
    for b, p in enumerate(piv):
        rows = np.arange(m)
        for i, j in enumerate(p):
            rows[i], rows[j] = rows[j], rows[i]
        # Row i of P^T A is row rows[i] of A, so P[rows[i], i] = 1.
        mats[b, rows, np.arange(m)] = 1.0
    return _host_tensor(mats.reshape(batch + (m, m)), like.dtype, like.device)


def _host_tensor(arr, dtype, device):
    """A numpy array (any shape, empty ones too) as a tensor of `dtype` on `device`."""
    return _native.from_numpy(np.ascontiguousarray(arr)).to(dtype).to(device)


def _unpack(LU, pivots, unpack_data=True, unpack_pivots=True):
    m, n = LU.shape[-2], LU.shape[-1]
    k = builtins.min(m, n)
    P = _perm_matrix(pivots, m, LU) if unpack_pivots else None
    if not unpack_data:
        return P, None, None
    L = LU[..., :, :k].tril(-1) + _native.eye(m, k, dtype=LU.dtype, device=LU.device)
    U = LU[..., :k, :].triu()
    return P, L, U


def _lu_backward(L, U, P, gL, gU):
    """PyTorch's linalg_lu_backward (A = P L U; square, wide and tall)."""
    m, n = L.shape[-2], U.shape[-1]
    k = builtins.min(m, n)
    # Only L's strictly lower part and U's upper part vary with A.
    gL = gL.tril(-1) if gL is not None else None
    gU = gU.triu() if gU is not None else None
    if m == n:
        gA = (_mT(L) @ gL).tril(-1) if gL is not None else None
        if gU is not None:
            t = (gU @ _mT(U)).triu()
            gA = t if gA is None else gA + t
        gA = solve_triangular(_mT(U), gA, upper=False, left=False)
        gA = solve_triangular(_mT(L), gA, upper=True, unitriangular=True)
        return P @ gA
    if m < n:
        # A = P L [U1 U2]: gA1 = P L^{-T} [gU1 + (L^T gL o 1_L - gU U^T o 1_U) U1^{-T}],
        # gA2 = P L^{-T} gU2.
        U1 = U[..., :, :k]
        gA = _mT(L) @ gL if gL is not None else None
        if gU is not None:
            t = gU.triu() @ _mT(U)
            gA = -t if gA is None else gA - t
        gA = solve_triangular(_mT(U1), gA.tril(-1), upper=False, left=False)
        if gU is not None:
            gA = _native.cat([gA + gU[..., :, :k].triu(), gU[..., :, k:]], -1)
        gA = solve_triangular(_mT(L), gA, upper=True, unitriangular=True)
        if gU is None:
            gA = _native.cat([gA, gA.new_zeros(tuple(gA.shape[:-1]) + (n - k,))], -1)
        return P @ gA
    # A = P [L1; L2] U: gA1 = P [gL1 + L1^{-T} (gU U^T o 1_U - L^T gL o 1_L)] U^{-T},
    # gA2 = P gL2 U^{-T}.
    L1 = L[..., :k, :]
    gA = gU @ _mT(U) if gU is not None else None
    if gL is not None:
        t = _mT(L) @ gL
        gA = -t if gA is None else gA - t
    gA = solve_triangular(_mT(L1), gA.triu(), upper=True, unitriangular=True)
    if gL is not None:
        gA = _native.cat([gA + gL[..., :k, :].tril(-1), gL[..., k:, :]], -2)
    gA = solve_triangular(_mT(U), gA, upper=False, left=False)
    if gL is None:
        gA = _native.cat([gA, gA.new_zeros(tuple(gA.shape[:-2]) + (m - k, n))], -2)
    return P @ gA


def _lu_factor_raw(A):
    with _nograd():
        return _native._linalg_lu_factor(A.detach())


def _lu_factor_ex(A):
    LU, piv, info = _lu_factor_raw(A)

    def backward(grads, outs):
        g = grads[0]
        if g is None:
            return [None]
        P, L, U = _unpack(outs[0], piv)
        k = L.shape[-1]
        return [_lu_backward(L, U, P, g[..., :, :k], g[..., :k, :])]

    LU = _record("LinalgLuFactorExBackward0", [LU, None], [A], backward,
                 lambda: [_lu_factor_ex(A)[0]], jvp=_jvp_lu(A, piv, True))[0]
    return LU, piv, info


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """Packed LU factorization with partial pivoting, LAPACK's pivots and info.

    Examples:
        >>> LU, pivots, info = gradrs.linalg.lu_factor_ex(gradrs.tensor([[1.0, 2.0], [3.0, 4.0]]))
        >>> info
        tensor(0, dtype=gradrs.int32)
    """
    _check_tensor("linalg_lu_factor_ex", "A", 1, A)
    _check_dims("gradrs.lu_factor", A)
    _check_kernel(A, "lu_cpu")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")

    def compute():
        LU, piv, info = _lu_factor_ex(A)
        if check_errors:
            bad = _first_failure(info)
            if bad is not None:
                raise _LinAlgError(
                    f"gradrs.linalg.lu_factor_ex: {_batch_prefix(info, bad[0])}U[{bad[1]},"
                    f"{bad[1]}] is zero and using it on lu_solve would result in a division "
                    "by zero. If you still want to perform the factorization, consider "
                    "calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
        return _T_LU_FACTOR_EX(LU, piv, info)

    if out is not None:
        return _T_LU_FACTOR_EX(*_with_out("linalg_lu_factor_ex", out, compute, (A,)))
    return compute()


def lu_factor(A, *, pivot=True, out=None):
    """(LU, pivots): PyTorch's packed LU with partial pivoting.

    Examples:
        >>> LU, pivots = gradrs.linalg.lu_factor(gradrs.tensor([[1.0, 2.0], [3.0, 4.0]]))
        >>> pivots
        tensor([2, 2], dtype=gradrs.int32)
    """
    _check_tensor("linalg_lu_factor", "A", 1, A)
    _check_dims("gradrs.lu_factor", A)
    _check_kernel(A, "lu_cpu")

    def compute():
        LU, piv, info = lu_factor_ex(A, pivot=pivot)
        bad = _first_failure(info)
        if bad is not None:
            raise _LinAlgError(
                f"gradrs.linalg.lu_factor: {_batch_prefix(info, bad[0])}U[{bad[1]},{bad[1]}] is "
                "zero and using it on lu_solve would result in a division by zero. If you "
                "still want to perform the factorization, consider calling linalg.lu(A, pivot) "
                "or linalg.lu_factor_ex(A, pivot)")
        return _T_LU_FACTOR(LU, piv)

    if out is not None:
        return _T_LU_FACTOR(*_with_out("linalg_lu_factor", out, compute, (A,)))
    return compute()


def lu(A, *, pivot=True, out=None):
    """(P, L, U) with A = P L U.

    Examples:
        >>> P, Lo, U = gradrs.linalg.lu(gradrs.tensor([[1.0, 2.0], [3.0, 4.0]]))
        >>> gradrs.allclose(P @ Lo @ U, gradrs.tensor([[1.0, 2.0], [3.0, 4.0]]))
        True
    """
    _check_tensor("linalg_lu", "A", 1, A)
    _check_dims("linalg.lu", A)
    _check_kernel(A, "lu_cpu")

    def compute():
        LUr, piv, _ = _lu_factor_raw(A)
        P, L, U = _unpack(LUr, piv)

        def backward(grads, outs):
            _, gL, gU = grads
            if gL is None and gU is None:
                return [None]
            return [_lu_backward(outs[1], outs[2], P, gL, gU)]

        P_, L_, U_ = _record("LinalgLuBackward0", [None, L, U], [A], backward,
                             lambda: [None] + list(lu(A)[1:]), jvp=_jvp_lu(A, piv, False))
        return _T_LU(P, L_, U_)

    if out is not None:
        return _T_LU(*_with_out("linalg_lu", out, compute, (A,)))
    return compute()


def _apply_pivots(B, pivots):
    """P^T B for LAPACK's row interchanges (batched), as a gather (differentiable in B)."""
    m = B.shape[-2]
    piv = pivots.detach().cpu().numpy().reshape(-1, pivots.shape[-1]) - 1
    order = np.tile(np.arange(m), (piv.shape[0], 1))
    for b, p in enumerate(piv):
        for i, j in enumerate(p):
            order[b, i], order[b, j] = order[b, j], order[b, i]
    idx = _host_tensor(order.reshape(tuple(pivots.shape[:-1]) + (m, 1)), _native.int64,
                       B.device)
    batch = _batch_shape(idx.shape[:-2], B.shape[:-2])
    idx = idx.expand(*batch, m, B.shape[-1])
    return B.expand(*batch, m, B.shape[-1]).gather(-2, idx)


def _lu_solve_values(LU, pivots, B):
    """X with A X = B from `_linalg_lu_factor`'s LU and pivots, no history: the row
    interchanges and both triangular solves in one native call (LAPACK's getrs), batch dims
    broadcast. The same values as `_lu_solve`'s composition (the same faer solves)."""
    n, k = LU.shape[-1], B.shape[-1]
    batch = _batch_shape(LU.shape[:-2], B.shape[:-2])
    if tuple(LU.shape[:-2]) != batch:
        # (read in place otherwise: the native call takes lu_factor's column-major LU as it is)
        LU, pivots = LU.expand(*batch, n, n).contiguous(), pivots.expand(*batch, n).contiguous()
    if tuple(B.shape[:-2]) != batch:
        B = B.expand(*batch, n, k)
    return _native._linalg_lu_solve(LU, pivots, B.detach())


def _lu_solve(LU, pivots, B, left=True, adjoint=False):
    n = LU.shape[-1]
    if left and not adjoint:
        y = _apply_pivots(B, pivots)
        y = solve_triangular(LU, y, upper=False, unitriangular=True)
        return solve_triangular(LU, y, upper=True)
    if left and adjoint:
        # A^T X = B: U^T L^T P^T X = B.
        y = solve_triangular(_mT(LU), B, upper=False)
        y = solve_triangular(_mT(LU), y, upper=True, unitriangular=True)
        P = _perm_matrix(pivots, n, LU)
        return P @ y
    return _mT(_lu_solve(LU, pivots, _mT(B), True, not adjoint))


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """X with A X = B (or X A = B, or with A^T) from `lu_factor`'s output.

    Examples:
        >>> A = gradrs.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> LU, pivots = gradrs.linalg.lu_factor(A)
        >>> x = gradrs.linalg.lu_solve(LU, pivots, gradrs.tensor([[5.0], [11.0]]))
        >>> gradrs.allclose(x, gradrs.tensor([[1.0], [2.0]]))
        True
    """
    _check_tensor("linalg_lu_solve", "LU", 1, LU)
    _check_matrix("gradrs.linalg.lu_solve", LU)
    _check_matrix("linalg.lu_solve", B, "B")
    _check_float("gradrs.linalg.lu_solve", LU, "linalg.lu_solve_cpu")
    if LU.shape[-1] != LU.shape[-2]:
        raise RuntimeError(f"linalg.lu_solve: A must be batches of square matrices, but they "
                           f"are {LU.shape[-2]} by {LU.shape[-1]} matrices")
    n = LU.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        raise RuntimeError(
            f"linalg.lu_solve: Incompatible shapes of A and B for the equation "
            f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {B.shape[-2]}x{B.shape[-1]})")

    def compute():
        return _one_node("LinalgLuSolveBackward0",
                         lambda lu_, b: _lu_solve(lu_, pivots, b, left, adjoint), LU, B)

    if out is not None:
        return _with_out("linalg_lu_solve", out, compute, (LU, B))
    return compute()



def _det(A):
    n = A.shape[-1]
    if n == 0:
        return _native.ones(A.shape[:-2], dtype=A.dtype, device=A.device)
    LU, piv, _ = _lu_factor_raw(A)
    swaps = (piv != _native.arange(1, n + 1, device=piv.device, dtype=piv.dtype)).sum(-1)
    sign = 1.0 - 2.0 * (swaps % 2).to(A.dtype)
    return LU.diagonal(0, -2, -1).prod(-1) * sign


def det(A, *, out=None):
    """The determinant of each square matrix (through LU).

    Examples:
        >>> gradrs.linalg.det(gradrs.tensor([[2.0, 1.0], [1.0, 3.0]]))
        tensor(5.)
    """
    _check_tensor("linalg_det", "A", 1, A)
    _check_matrix("linalg.det", A)
    _check_square("linalg.det", A)
    if A.numel() or not A.is_floating_point():
        _check_float("linalg.det", A, "lu_cpu")

    def compute():
        with _nograd():
            d = _det(A)

        def backward(grads, outs):
            g = grads[0]
            if g is None:
                return [None]
            # d det / dA = det * A^{-T}, computed as a solve (PyTorch's invertible case).
            n = A.shape[-1]
            if n == 0:
                return [_native.zeros_like(A)]
            if n == 1:
                # det(a) = a: the derivative is the gradient itself, independent of A.
                return [g.unsqueeze(-1).unsqueeze(-1)]
            gd = (g * outs[0]).unsqueeze(-1).unsqueeze(-1)
            with _nograd():
                info = inv_ex(A).info
            if _first_failure(info) is None:
                return [_mT(inv(A)) * gd]
            # PyTorch 2.13 gives zeros for an exactly singular matrix (det * A^{-T} with
            # det = 0), not its cofactors: an identity stands in for those matrices.
            bad = (info > 0).unsqueeze(-1).unsqueeze(-1)
            safe = _native.where(bad, _eye_like(n, A).expand(A.shape), A)
            return [_mT(inv(safe)) * gd]

        return _record("LinalgDetBackward0", [d], [A], backward, lambda: [det(A)],
                       jvp=lambda t, outs: [outs[0] * _trace_of_solve(A, t[0])])[0]

    if out is not None:
        return _with_out("linalg_det", out, compute, (A,))
    return compute()


def slogdet(A, *, out=None):
    """(sign, log|det|) of each square matrix.

    Examples:
        >>> gradrs.linalg.slogdet(gradrs.tensor([[2.0, 1.0], [1.0, 3.0]]))
        gradrs.return_types.linalg_slogdet(
        sign=tensor(1.),
        logabsdet=tensor(1.6094))
    """
    _check_tensor("linalg_slogdet", "A", 1, A)
    _check_matrix("linalg.slogdet", A)
    _check_square("linalg.slogdet", A)
    _low_precision("linalg.slogdet", A)
    _check_float("linalg.slogdet", A, "lu_cpu")

    def compute():
        n = A.shape[-1]
        with _nograd():
            if n == 0:
                sign = _native.ones(A.shape[:-2], dtype=A.dtype, device=A.device)
                logabs = _native.zeros(A.shape[:-2], dtype=A.dtype, device=A.device)
            else:
                LU, piv, _ = _lu_factor_raw(A)
                diag = LU.diagonal(0, -2, -1)
                swaps = (piv != _native.arange(1, n + 1, device=piv.device,
                                               dtype=piv.dtype)).sum(-1)
                sign = (1.0 - 2.0 * (swaps % 2).to(A.dtype)) * diag.sign().prod(-1)
                logabs = diag.abs().log().sum(-1)

        def backward(grads, outs):
            g = grads[1]
            if g is None:
                return [None]
            return [_mT(inv(A)) * g.unsqueeze(-1).unsqueeze(-1)]

        s, la = _record("LinalgSlogdetBackward0", [sign, logabs], [A], backward,
                        lambda: list(slogdet(A)), jvp=lambda t, outs: [
                            _native.zeros_like(outs[0]), _trace_of_solve(A, t[0])])
        return _T_SLOGDET(s, la)

    if out is not None:
        return _T_SLOGDET(*_with_out("linalg_slogdet", out, compute, (A,)))
    return compute()


def _inv_raw(A):
    n = A.shape[-1]
    with _nograd():
        if n == 0:
            return A.detach().clone(), _native.zeros(A.shape[:-2], dtype=_native.int32,
                                                     device=A.device)
        LU, piv, info = _native._linalg_lu_factor(A.detach())
        eye = _eye_like(n, A).expand(A.shape)
        if _first_failure(info) is not None:
            # LAPACK's getri leaves A's inverse undefined; PyTorch's inv_ex returns what
            # the solve gives (inf / nan), as here.
            pass
        return _lu_solve_values(LU, piv, eye), info


def inv_ex(A, *, check_errors=False, out=None):
    """(inverse, info): `info` > 0 where a matrix is singular (its first zero pivot).

    Examples:
        >>> inverse, info = gradrs.linalg.inv_ex(gradrs.tensor([[2.0, 0.0], [0.0, 4.0]]))
        >>> inverse, info
        (tensor([[0.5000, 0.0000],
                [0.0000, 0.2500]]), tensor(0, dtype=gradrs.int32))
    """
    _check_tensor("linalg_inv_ex", "A", 1, A)
    _check_matrix("linalg.inv", A)
    _check_square("linalg.inv", A)
    _low_precision("linalg.inv", A)
    _check_float("linalg.inv", A)

    def compute():
        X, info = _inv_raw(A)
        if check_errors:
            _raise_inv(info, "linalg.inv_ex")

        def backward(grads, outs):
            g = grads[0]
            if g is None:
                return [None]
            x = outs[0]
            return [-(_mT(x) @ g @ _mT(x))]

        X = _record("LinalgInvExBackward0", [X, None], [A], backward,
                    lambda: [inv_ex(A)[0]],
                    jvp=lambda t, outs: [-(outs[0] @ t[0] @ outs[0]), None],
                    saved=[("inverse", X)])[0]
        return _T_INV_EX(X, info)

    if out is not None:
        return _T_INV_EX(*_with_out("linalg_inv_ex", out, compute, (A,)))
    return compute()


def _raise_inv(info, op="linalg.inv"):
    bad = _first_failure(info)
    if bad is not None:
        raise _LinAlgError(f"{op}: {_batch_prefix(info, bad[0])}The diagonal element {bad[1]} "
                           "is zero, the inversion could not be completed because the input "
                           "matrix is singular.")


def inv(A, *, out=None):
    """The inverse of each square matrix; LinAlgError for a singular one.

    Examples:
        >>> gradrs.linalg.inv(gradrs.tensor([[2.0, 0.0], [0.0, 4.0]]))
        tensor([[0.5000, 0.0000],
                [0.0000, 0.2500]])
    """
    _check_tensor("linalg_inv", "A", 1, A)
    _check_matrix("linalg.inv", A)
    _check_square("linalg.inv", A)
    _low_precision("linalg.inv", A)
    _check_float("linalg.inv", A)

    def compute():
        X, info = inv_ex(A)
        _raise_inv(info)
        return X

    if out is not None:
        return _with_out("linalg_inv", out, compute, (A,))
    return compute()


def _is_vector_rhs(A, B):
    return B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """(X, info) with A X = B (or X A = B); B may be a (batch of) vector(s).

    Examples:
        >>> A = gradrs.tensor([[3.0, 1.0], [1.0, 2.0]])
        >>> x, info = gradrs.linalg.solve_ex(A, gradrs.tensor([9.0, 8.0]))
        >>> x, info
        (tensor([2., 3.]), tensor(0, dtype=gradrs.int32))
    """
    _check_tensor("linalg_solve_ex", "A", 1, A)
    _check_tensor("linalg_solve_ex", "B", 2, B)
    _check_matrix("linalg.solve", A)
    _square_float("linalg.solve", A, "lu_cpu")
    if A.dtype != B.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found "
                           f"A of type {_dname(A.dtype)} and B of type {_dname(B.dtype)} "
                           "instead")
    vector = _is_vector_rhs(A, B)
    n = A.shape[-1]
    rows = B.shape[-1] if vector else (B.shape[-2] if left else B.shape[-1])
    if rows != n:
        shape = f"{B.shape[-1]}x1" if vector else f"{B.shape[-2]}x{B.shape[-1]}"
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {shape})")
    if vector and not left:
        raise RuntimeError("linalg.solve: Vector broadcasting of the left hand side is not "
                           "supported for left=False. In this case linalg.solve is equivalent "
                           "to B / A.squeeze(-1)")

    def forward():
        Bm = B.unsqueeze(-1) if vector else B
        with _nograd():
            if n == 0:
                batch = _batch_shape(A.shape[:-2], Bm.shape[:-2])
                X = _native.zeros(batch + tuple(Bm.shape[-2:]), dtype=A.dtype, device=A.device)
                info = _native.zeros(batch, dtype=_native.int32, device=A.device)
            else:
                LU, piv, info = _native._linalg_lu_factor(A.detach())
                if left:
                    X = _lu_solve_values(LU, piv, Bm.detach())
                else:
                    X = _lu_solve(LU, piv, Bm.detach(), left=False)
                batch = X.shape[:-2]
                if tuple(info.shape) != tuple(batch):
                    info = info.expand(batch).contiguous()
        return (X.squeeze(-1) if vector else X), info

    def compute():
        X, info = forward()
        if check_errors:
            _raise_solve(info)

        def backward(grads, outs):
            g = grads[0]
            if g is None:
                return [None, None]
            x = outs[0]
            if vector:
                gB = solve(_mT(A), g)
                gA = -(gB.unsqueeze(-1) * x.unsqueeze(-2)) if A.requires_grad else None
            elif left:
                gB = solve(_mT(A), g)
                gA = -(gB @ _mT(x)) if A.requires_grad else None
            else:
                gB = solve(_mT(A), g, left=False)
                gA = -(_mT(x) @ gB) if A.requires_grad else None
            return [gA, gB if B.requires_grad else None]

        def jvp(tangents, outs):
            dA, dB = tangents
            x = outs[0]
            if vector:
                return [solve(A, dB - (dA @ x.unsqueeze(-1)).squeeze(-1)), None]
            if left:
                return [solve(A, dB - dA @ x), None]
            return [solve(A, dB - x @ dA, left=False), None]

        X = _record("LinalgSolveExBackward0", [X, None], [A, B], backward,
                    lambda: [solve_ex(A, B, left=left)[0]], jvp=jvp)[0]
        return _T_SOLVE_EX(X, info)

    if out is not None:
        return _T_SOLVE_EX(*_with_out("linalg_solve_ex", out, compute, (A, B)))
    return compute()


def _raise_solve(info):
    bad = _first_failure(info)
    if bad is not None:
        raise _LinAlgError(f"gradrs.linalg.solve: {_batch_prefix(info, bad[0])}The solver failed "
                           "because the input matrix is singular.")


def solve(A, B, *, left=True, out=None):
    """X with A X = B (or X A = B); LinAlgError for a singular A.

    Examples:
        >>> A = gradrs.tensor([[3.0, 1.0], [1.0, 2.0]])
        >>> gradrs.linalg.solve(A, gradrs.tensor([9.0, 8.0]))
        tensor([2., 3.])
    """
    _check_tensor("linalg_solve", "A", 1, A)
    _check_tensor("linalg_solve", "B", 2, B)

    def compute():
        X, info = solve_ex(A, B, left=left)
        _raise_solve(info)
        return X

    if out is not None:
        return _with_out("linalg_solve", out, compute, (A, B))
    return compute()


# Under vmap these run once on the physical tensors, the batch one more leading dim.
solve_triangular = _vmap_leading(solve_triangular)
lu_factor_ex = _vmap_leading(lu_factor_ex)
lu_factor = _vmap_leading(lu_factor)
lu = _vmap_leading(lu)
lu_solve = _vmap_leading(lu_solve)
det = _vmap_leading(det)
slogdet = _vmap_leading(slogdet)
inv_ex = _vmap_leading(inv_ex)
inv = _vmap_leading(inv)
solve = _vmap_leading(solve, vector_arg=1)
solve_ex = _vmap_leading(solve_ex, vector_arg=1)
