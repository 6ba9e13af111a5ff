"""`gradrs.svd_lowrank` and `gradrs.pca_lowrank`: Halko et al.'s randomized range finder and a
small SVD, as PyTorch's torch/_lowrank.py computes them (Python over randn, matmul, linalg.qr
and linalg.svd), so the same seed draws the same test matrix."""

from __future__ import annotations

import sys

__all__ = ["pca_lowrank", "svd_lowrank"]

_G = sys.modules[__package__]


def _floating_dtype(A):
    # float16 / float32 / float64 stay; every other dtype is computed in float32, as PyTorch's
    # _linalg_utils.get_floating_dtype.
    if A.dtype in (_G.float16, _G.float32, _G.float64):
        return A.dtype
    return _G.float32


def _approximate_basis(A, q, niter, M):
    """An orthonormal Q (A's rows x q) whose range approximates A's (minus M's), after `niter`
    power iterations."""
    niter = 2 if niter is None else niter
    R = _G.randn(A.shape[-1], q, dtype=_floating_dtype(A), device=A.device)
    X = _G.matmul(A, R)
    if M is not None:
        X = X - _G.matmul(M, R)
    Q = _G.linalg.qr(X).Q
    for _ in range(niter):
        X = _G.matmul(A.mH, Q)
        if M is not None:
            X = X - _G.matmul(M.mH, Q)
        Q = _G.linalg.qr(X).Q
        X = _G.matmul(A, Q)
        if M is not None:
            X = X - _G.matmul(M, Q)
        Q = _G.linalg.qr(X).Q
    return Q


def _svd_lowrank(A, q=6, niter=2, M=None):
    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.size())
    # The basis is found for the tall orientation: a wide A is transposed and U, V swapped back.
    if m < n:
        A = A.mH
        if M is not None:
            M = M.mH
    Q = _approximate_basis(A, q, niter=niter, M=M)
    B = _G.matmul(Q.mH, A)
    if M is not None:
        B = B - _G.matmul(Q.mH, M)
    U, S, Vh = _G.linalg.svd(B, full_matrices=False)
    V = Vh.mH
    U = Q.matmul(U)
    if m < n:
        U, V = V, U
    return U, S, V


def svd_lowrank(A, q=6, niter=2, M=None):
    """`gradrs.svd_lowrank(A, q=6, niter=2, M=None)`: an approximate rank-`q` SVD of `A - M`,
    `(U, S, V)` with `A - M ~ U diag(S) V^T`, from a random projection refined by `niter` power
    iterations (random: seed with `gradrs.manual_seed` for a reproducible result).

    Examples:
        >>> _ = gradrs.manual_seed(0)
        >>> A = gradrs.randn(20, 3) @ gradrs.randn(3, 10)
        >>> U, S, V = gradrs.svd_lowrank(A, q=3)
        >>> U.shape, S.shape, V.shape
        (gradrs.Size([20, 3]), gradrs.Size([3]), gradrs.Size([10, 3]))
    """
    return _svd_lowrank(A, q=q, niter=niter, M=M)


def pca_lowrank(A, q=None, center=True, niter=2):
    """`gradrs.pca_lowrank(A, q=None, center=True, niter=2)`: principal components of the rows
    of `A`, `(U, S, V)` of the (column-centred) matrix by `svd_lowrank`; `A @ V[:, :k]` projects
    on the first `k`. `q` defaults to `min(6, m, n)`.

    Examples:
        >>> _ = gradrs.manual_seed(0)
        >>> U, S, V = gradrs.pca_lowrank(gradrs.randn(50, 8), q=2)
        >>> V.shape
        gradrs.Size([8, 2])
    """
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than "
                         f"min(m, n)={min(m, n)}")
    if not (niter >= 0):
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(A, q, niter=niter, M=None)
    C = A.mean(dim=(-2,), keepdim=True)
    return _svd_lowrank(A - C, q, niter=niter, M=None)
