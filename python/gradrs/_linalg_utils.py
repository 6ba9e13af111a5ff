"""Linear algebra helpers of `gradrs.lobpcg` (`torch._linalg_utils`): the floating dtype an input
computes in, products and quadratic forms that take None for the identity, an orthonormal basis,
and `symeig` (eigh with the order asked for)."""

from __future__ import annotations

import sys

_G = sys.modules[__package__]


def is_sparse(A) -> bool:
    """Whether A is a sparse COO tensor (gradrs has only strided tensors)."""
    if isinstance(A, _G.Tensor):
        return A.layout == getattr(_G, "sparse_coo", object())
    raise TypeError(f"expected Tensor but got {type(A)}")


def get_floating_dtype(A):
    """A's dtype if it is float16 / float32 / float64, else float32."""
    dtype = A.dtype
    if dtype in (_G.float16, _G.float32, _G.float64):
        return dtype
    return _G.float32


def matmul(A, B):
    """A @ B, where A None stands for the identity."""
    if A is None:
        return B
    return _G.matmul(A, B)


def bform(X, A, Y):
    """The bilinear form X^T A Y."""
    return matmul(X.mT, matmul(A, Y))


def qform(A, S):
    """The quadratic form S^T A S."""
    return bform(S, A, S)


def basis(A):
    """An orthonormal basis of A's columns (QR's Q)."""
    return _G.linalg.qr(A).Q


def symeig(A, largest: bool | None = False):
    """The eigenpairs of the symmetric A (its upper triangle), ascending, or descending when
    ``largest``."""
    if largest is None:
        largest = False
    E, Z = _G.linalg.eigh(A, UPLO="U")
    if largest:
        E = _G.flip(E, dims=(-1,))
        Z = _G.flip(Z, dims=(-1,))
    return E, Z
