"""Decompositions of `gradrs.linalg`: Cholesky, QR, eigh / eigvalsh, SVD / svdvals.
"""

from .. import _native
from .._forms import with_out as _with_out
from ._common import (
    _batch_prefix, _check_float, _check_kernel, _check_matrix, _check_square, _check_tensor,
    _diag_embed, _eye_like, _first_failure, _grad_wanted, _LinAlgError, _mT, _nograd, _record,
    _T_CHOL_EX, _T_EIGH, _T_QR, _T_SVD, _vmap_leading,
)
from ._solvers import solve_triangular


def _jvp_cholesky(upper):
    def jvp(tangents, outs):
        (dA,) = tangents
        L = _mT(outs[0]) if upper else outs[0]
        dA = _mT(dA) if upper else dA
        dL = solve_triangular(L, dA, upper=False)
        dL = solve_triangular(_mT(L), dL, upper=True, left=False).tril()
        dL = dL - 0.5 * (dL * _native.eye(L.shape[-1], dtype=L.dtype, device=L.device))
        dL = L @ dL
        return [_mT(dL) if upper else dL, None]
    return jvp


def _qr_jvp_square(dA, Q, R):
    """(dQ, dR) of A = Q R with R square invertible: C = Q^T dA R^{-1}, whose strictly lower
    part is that of the skew Q^T dQ."""
    dX = solve_triangular(R, dA, upper=True, left=False)
    C = _mT(Q) @ dX
    low = C.tril(-1)
    upper_part = C - (low - _mT(low))
    return dX - Q @ upper_part, upper_part @ R


def _jvp_qr(mode):
    def jvp(tangents, outs):
        (dA,) = tangents
        Q, R = outs
        m, n = dA.shape[-2], dA.shape[-1]
        if mode == "r":
            raise RuntimeError("The derivative of linalg.qr depends on Q, which is not "
                               "computed when mode='r'. Please use linalg.qr(A, "
                               "mode='reduced') if you are going to differentiate through "
                               "linalg.qr.")
        if mode == "complete" and m > n:
            raise RuntimeError("The QR decomposition is not differentiable when "
                               "mode='complete' and nrows > ncols.")
        if m >= n:
            return list(_qr_jvp_square(dA, Q, R))
        dQ, dU = _qr_jvp_square(dA[..., :, :m], Q, R[..., :, :m])
        dV = _mT(Q) @ (dA[..., :, m:] - dQ @ R[..., :, m:])
        return [dQ, _native.cat([dU, dV], -1)]
    return jvp


def _eigh_jvp(tangents, outs):
    (dA,) = tangents
    w, V = outs
    dP = _mT(V) @ dA @ V
    dw = dP.diagonal(0, -2, -1)
    E = w.unsqueeze(-2) - w.unsqueeze(-1)
    n = w.shape[-1]
    eye = _native.eye(n, dtype=_native.bool, device=w.device)
    E = _native.where(eye, _native.ones_like(E), E)
    dV = V @ _native.where(eye, _native.zeros_like(dP), dP / E)
    return [dw, dV]


def _svd_jvp(full):
    def jvp(tangents, outs):
        (dA,) = tangents
        U, S, Vh = outs
        m, n = dA.shape[-2], dA.shape[-1]
        k = S.shape[-1]
        U, Vh = U[..., :, :k], Vh[..., :k, :]
        V = _mT(Vh)
        dP = _mT(U) @ dA @ V
        dS = dP.diagonal(0, -2, -1)
        s = S.unsqueeze(-2)  # S_j along the columns
        E = s * s - _mT(s * s)  # E_ij = S_j^2 - S_i^2
        eye = _native.eye(k, dtype=_native.bool, device=S.device)
        E = _native.where(eye, _native.ones_like(E), E)
        skew = lambda X: _native.where(eye, _native.zeros_like(X), X / E)  # noqa: E731
        dU = U @ skew(dP * s + _mT(dP * s))
        dV = V @ skew(_mT(s) * dP + _mT(_mT(s) * dP))
        if m > k:
            dU = dU + (dA @ V - U @ (_mT(U) @ (dA @ V))) / s
        if n > k:
            dAhU = _mT(dA) @ U
            dV = dV + (dAhU - V @ (Vh @ dAhU)) / s
        dVh = _mT(dV)
        if full:
            if m > k:
                dU = _native.cat([dU, dU.new_zeros(tuple(dU.shape[:-1]) + (m - k,))], -1)
            if n > k:
                dVh = _native.cat([dVh, dVh.new_zeros(tuple(dVh.shape[:-2]) + (n - k, n))],
                                  -2)
        return [dU, dS, dVh]
    return jvp



def _cholesky_backward(L, gL):
    """PyTorch's cholesky_backward (lower L): L^{-T} Phi(L^T gL) L^{-1}, symmetric."""
    gA = (_mT(L) @ gL).tril()
    gA = 0.5 * (gA + _mT(gA.tril(-1)))
    gA = solve_triangular(_mT(L), gA, upper=True)
    return solve_triangular(L, gA, upper=False, left=False)


def _cholesky_ex(A, upper):
    with _nograd():
        if A.numel() == 0:
            out = _native.zeros(A.shape, dtype=A.dtype, device=A.device)
            info = _native.zeros(A.shape[:-2], dtype=_native.int32, device=A.device)
        else:
            src = _mT(A) if upper else A
            L, info = _native._linalg_cholesky(src.detach())
            out = _mT(L).contiguous() if upper else L

    def backward(grads, outs):
        g = grads[0]
        if g is None:
            return [None]
        L_ = _mT(outs[0]) if upper else outs[0]
        g_ = _mT(g) if upper else g
        return [_cholesky_backward(L_, g_)]

    out = _record("LinalgCholeskyExBackward0", [out, None], [A], backward,
                  lambda: [_cholesky_ex(A, upper)[0]], jvp=_jvp_cholesky(upper),
                  saved=[("L", out), ("upper", upper)])[0]
    return out, info


def _raise_cholesky(info, op="linalg.cholesky"):
    bad = _first_failure(info)
    if bad is not None:
        raise _LinAlgError(f"{op}: {_batch_prefix(info, bad[0])}The factorization could not be "
                           "completed because the input is not positive-definite (the leading "
                           f"minor of order {bad[1]} is not positive-definite).")


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """(L, info): the Cholesky factor; info > 0 where a matrix is not positive-definite.

    Examples:
        >>> A = gradrs.tensor([[4.0, 2.0], [2.0, 3.0]])
        >>> L, info = gradrs.linalg.cholesky_ex(A)
        >>> info
        tensor(0, dtype=gradrs.int32)
    """
    _check_tensor("linalg_cholesky_ex", "A", 1, A)
    _check_matrix("linalg.cholesky", A)
    _check_square("linalg.cholesky", A)
    if A.numel() or not A.is_floating_point():
        _check_float("linalg.cholesky", A, "cholesky_cpu")

    def compute():
        L, info = _cholesky_ex(A, upper)
        if check_errors:
            _raise_cholesky(info)
        return _T_CHOL_EX(L, info)

    if out is not None:
        return _T_CHOL_EX(*_with_out("linalg_cholesky_ex", out, compute, (A,)))
    return compute()


def cholesky(A, *, upper=False, out=None):
    """The Cholesky factor of each symmetric positive-definite matrix (lower, or upper).

    Examples:
        >>> A = gradrs.tensor([[4.0, 2.0], [2.0, 3.0]])
        >>> gradrs.linalg.cholesky(A)
        tensor([[2.0000, 0.0000],
                [1.0000, 1.4142]])
    """
    _check_tensor("linalg_cholesky", "A", 1, A)
    _check_matrix("linalg.cholesky", A)
    _check_square("linalg.cholesky", A)
    if A.numel() or not A.is_floating_point():
        _check_float("linalg.cholesky", A, "cholesky_cpu")

    def compute():
        L, info = _cholesky_ex(A, upper)
        _raise_cholesky(info)
        return L

    if out is not None:
        return _with_out("linalg_cholesky", out, compute, (A,))
    return compute()



def _qr_backward(gQ, gR, Q, R):
    """PyTorch's linalg_qr_backward (reduced, or complete of a wide / square matrix)."""
    m, n = Q.shape[-2], R.shape[-1]
    if gQ is not None and gR is not None:
        gA = gR @ _mT(R) - _mT(Q) @ gQ
    elif gQ is not None:
        gA = -(_mT(Q) @ gQ)
    else:
        gA = gR @ _mT(R)
    if m >= n:
        # copyltu / syminvadj of the upper triangle: (X + X^T) with the diagonal halved.
        t = gA.triu()
        sym = t + _mT(t) - _diag_embed(t.diagonal(0, -2, -1))
        b = Q @ sym
        if gQ is not None:
            b = b + gQ
        return solve_triangular(_mT(R), b, upper=False, left=False)
    # Wide: A = Q [R1 R2].
    k = m
    R1 = R[..., :, :k]
    skew = (-gA - _mT(-gA)).tril()
    t = Q @ skew
    t = solve_triangular(_mT(R1), t, upper=False, left=False)
    gA = _native.cat([t, t.new_zeros(t.shape[:-1] + (n - k,))], -1)
    if gR is not None:
        gA = gA + Q @ gR
    return gA


def _qr_raw(A, mode):
    with _nograd():
        return _native._linalg_qr(A.detach(), mode == "complete")


def qr(A, mode="reduced", *, out=None):
    """(Q, R) with A = Q R: `reduced` (Q m x k), `complete` (Q m x m) or `r` (R only).

    Examples:
        >>> A = gradrs.tensor([[3.0, 1.0], [4.0, 2.0]])
        >>> Q, R = gradrs.linalg.qr(A)
        >>> gradrs.allclose(Q @ R, A)
        True
    """
    _check_tensor("linalg_qr", "A", 1, A)
    _check_matrix("linalg.qr", A)
    _check_float("linalg.qr", A, "geqrf_cpu")
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")

    def compute():
        Q, R = _qr_raw(A, mode)
        if mode == "r":
            Q = _native.empty((0,), dtype=A.dtype, device=A.device)
        m, n = A.shape[-2], A.shape[-1]

        def backward(grads, outs):
            gQ, gR = grads
            if gQ is None and gR is None:
                return [None]
            if mode == "r":
                raise RuntimeError("The derivative of linalg.qr depends on Q, which is not "
                                   "computed when mode='r'. Please use linalg.qr(A, "
                                   "mode='reduced') if you are going to differentiate through "
                                   "linalg.qr.")
            if mode == "complete" and m > n:
                raise RuntimeError("The QR decomposition is not differentiable when "
                                   "mode='complete' and nrows > ncols.")
            return [_qr_backward(gQ, gR, outs[0], outs[1])]

        q, r = _record("LinalgQrBackward0", [Q, R], [A], backward, lambda: list(qr(A, mode)),
                       jvp=_jvp_qr(mode), saved=[("Q", Q), ("R", R), ("mode", mode)])
        return _T_QR(q, r)

    if out is not None:
        return _T_QR(*_with_out("linalg_qr", out, compute, (A,)))
    return compute()



def _eigh_backward(gL, gV, L, V):
    """PyTorch's linalg_eig_backward for Hermitian input."""
    if gV is None:
        return V @ (gL.unsqueeze(-1) * _mT(V))
    VhgV = _mT(V) @ gV
    VhgV = 0.5 * (VhgV - _mT(VhgV))
    E = L.unsqueeze(-2) - L.unsqueeze(-1)
    n = L.shape[-1]
    eye = _eye_like(n, L)
    # Off the diagonal VhgV / E; the diagonal (0 in VhgV) becomes gL.
    inner = VhgV / (E + eye)
    if gL is not None:
        inner = inner + _diag_embed(gL)
    return V @ inner @ _mT(V)


def _check_uplo(UPLO):
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")


def _eigh(A, UPLO, vectors):
    with _nograd():
        src = _mT(A) if UPLO == "U" else A
        return _native._linalg_eigh(src.detach(), vectors)


def eigh(A, UPLO="L", *, out=None):
    """(eigenvalues ascending, eigenvectors) of each symmetric matrix (one triangle read).

    Examples:
        >>> A = gradrs.tensor([[4.0, 2.0], [2.0, 3.0]])
        >>> w, V = gradrs.linalg.eigh(A)
        >>> w
        tensor([1.4384, 5.5616])
        >>> gradrs.allclose(V @ gradrs.diag(w) @ V.T, A)
        True
    """
    _check_tensor("linalg_eigh", "A", 1, A)
    _check_matrix("linalg.eigh", A)
    _check_square("linalg.eigh", A)
    _check_kernel(A, "linalg_eigh_cpu")
    _check_uplo(UPLO)

    def compute():
        w, v = _eigh(A, UPLO, True)

        def backward(grads, outs):
            gL, gV = grads
            if gL is None and gV is None:
                return [None]
            return [_eigh_backward(gL, gV, outs[0], outs[1])]

        w, v = _record("LinalgEighBackward0", [w, v], [A], backward,
                       lambda: list(eigh(A, UPLO)), jvp=_eigh_jvp,
                       saved=[("eigenvalues", w), ("eigenvectors", v)])
        return _T_EIGH(w, v)

    if out is not None:
        return _T_EIGH(*_with_out("linalg_eigh", out, compute, (A,)))
    return compute()


def eigvalsh(A, UPLO="L", *, out=None):
    """The eigenvalues (ascending) of each symmetric matrix.

    Examples:
        >>> gradrs.linalg.eigvalsh(gradrs.tensor([[2.0, 0.0], [0.0, 1.0]]))
        tensor([1., 2.])
    """
    _check_tensor("linalg_eigvalsh", "A", 1, A)
    _check_matrix("linalg.eigh", A)
    _check_square("linalg.eigh", A)
    _check_kernel(A, "linalg_eigh_cpu")
    _check_uplo(UPLO)

    def compute():
        if _grad_wanted(A):
            return eigh(A, UPLO)[0]
        return _eigh(A, UPLO, False)[0]

    if out is not None:
        return _with_out("linalg_eigvalsh", out, compute, (A,))
    return compute()



def _svd_backward(gU, gS, gVh, U, S, Vh):
    """PyTorch's svd_backward (reduced factors; real)."""
    m, n = U.shape[-2], Vh.shape[-1]
    if gU is None and gVh is None:
        if m >= n:
            return U @ (gS.unsqueeze(-1) * Vh)
        return (U * gS.unsqueeze(-2)) @ Vh
    V = _mT(Vh)
    gV = _mT(gVh) if gVh is not None else None
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1)
    E = E + _eye_like(S.shape[-1], S)
    gA = None
    if gU is not None:
        UhgU = _mT(U) @ gU
        UhgU = UhgU - _mT(UhgU)
        gA = UhgU * S.unsqueeze(-2)
    if gV is not None:
        VhgV = _mT(V) @ gV
        VhgV = VhgV - _mT(VhgV)
        t = S.unsqueeze(-1) * VhgV
        gA = t if gA is None else gA + t
    gA = gA / E
    if gS is not None:
        gA = gA + _diag_embed(gS)
    if m > n and gU is not None:
        gA = U @ gA
        gUSinv = gU / S.unsqueeze(-2)
        gA = gA + gUSinv - U @ (_mT(U) @ gUSinv)
        return gA @ Vh
    if n > m and gV is not None:
        gA = gA @ Vh
        gVSinv = gV / S.unsqueeze(-2)
        gA = gA + _mT(gVSinv) - (_mT(gVSinv) @ V) @ Vh
        return U @ gA
    return U @ (gA @ Vh) if m >= n else (U @ gA) @ Vh


def _svd_raw(A, full, vectors):
    with _nograd():
        return _native._linalg_svd(A.detach(), full, vectors)


def svd(A, full_matrices=True, *, driver=None, out=None):
    """(U, S, Vh) with A = U diag(S) Vh, S descending.

    Examples:
        >>> A = gradrs.tensor([[3.0, 0.0], [0.0, 4.0]])
        >>> U, S, Vh = gradrs.linalg.svd(A)
        >>> S
        tensor([4., 3.])
        >>> gradrs.allclose(U @ gradrs.diag(S) @ Vh, A)
        True
    """
    _check_tensor("linalg_svd", "A", 1, A)
    _check_matrix("linalg.svd", A)
    _check_float("linalg.svd", A, "linalg_svd_cpu")
    if driver is not None:
        raise RuntimeError("gradrs.linalg.svd: keyword argument `driver=` is only supported on "
                           "CUDA inputs with cuSOLVER backend.")

    def compute():
        U, S, Vh = _svd_raw(A, full_matrices, True)
        k = S.shape[-1]

        def backward(grads, outs):
            gU, gS, gVh = grads
            if gU is None and gS is None and gVh is None:
                return [None]
            u, s, vh = outs
            if full_matrices:
                u, vh = u[..., :, :k], vh[..., :k, :]
                gU = gU[..., :, :k] if gU is not None else None
                gVh = gVh[..., :k, :] if gVh is not None else None
            return [_svd_backward(gU, gS, gVh, u, s, vh)]

        u, s, vh = _record("LinalgSvdBackward0", [U, S, Vh], [A], backward,
                           lambda: list(svd(A, full_matrices)), jvp=_svd_jvp(full_matrices))
        return _T_SVD(u, s, vh)

    if out is not None:
        return _T_SVD(*_with_out("linalg_svd", out, compute, (A,)))
    return compute()


def svdvals(A, *, driver=None, out=None):
    """The singular values (descending) of each matrix.

    Examples:
        >>> gradrs.linalg.svdvals(gradrs.tensor([[3.0, 0.0], [0.0, 4.0]]))
        tensor([4., 3.])
    """
    _check_tensor("linalg_svdvals", "A", 1, A)
    _check_matrix("linalg.svd", A)
    _check_float("linalg.svd", A, "linalg_svd_cpu")

    def compute():
        if _grad_wanted(A):
            return svd(A, False)[1]
        return _svd_raw(A, False, False)[1]

    if out is not None:
        return _with_out("linalg_svdvals", out, compute, (A,))
    return compute()


# Under vmap these run once on the physical tensors, the batch one more leading dim.
cholesky_ex = _vmap_leading(cholesky_ex)
cholesky = _vmap_leading(cholesky)
qr = _vmap_leading(qr)
eigh = _vmap_leading(eigh)
eigvalsh = _vmap_leading(eigvalsh)
svd = _vmap_leading(svd)
svdvals = _vmap_leading(svdvals)
