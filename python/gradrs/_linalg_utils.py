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


# The functions PyTorch removed in 1.9 and still names (torch/_linalg_utils.py), raising their
# migration notes: `gradrs.solve` / `lstsq` / `symeig` / `eig` / `matrix_rank` (the Tensor
# methods of those names are _ops/legacy.py's).
def matrix_rank(input, tol=None, symmetric=False, *, out=None):
    """Removed in PyTorch 1.9: use `gradrs.linalg.matrix_rank` (raises RuntimeError)."""
    raise RuntimeError(
        "This function was deprecated since version 1.9 and is now removed.\n"
        "Please use the `gradrs.linalg.matrix_rank` function instead. "
        "The parameter 'symmetric' was renamed in `gradrs.linalg.matrix_rank()` to 'hermitian'."
    )


def solve(input, A, *, out=None):
    """Removed in PyTorch 1.9: use `gradrs.linalg.solve(A, B)` (raises RuntimeError)."""
    raise RuntimeError(
        "This function was deprecated since version 1.9 and is now removed. "
        "`gradrs.solve` is deprecated in favor of `gradrs.linalg.solve`. "
        "`gradrs.linalg.solve` has its arguments reversed and does not return the LU factorization.\n\n"
        "To get the LU factorization see `gradrs.lu`, which can be used with `gradrs.lu_solve` or "
        "`gradrs.lu_unpack`.\n"
        "X = gradrs.solve(B, A).solution "
        "should be replaced with:\n"
        "X = gradrs.linalg.solve(A, B)"
    )


def lstsq(input, A, *, out=None):
    """Removed in PyTorch 1.9: use `gradrs.linalg.lstsq(A, B)` (raises RuntimeError)."""
    raise RuntimeError(
        "This function was deprecated since version 1.9 and is now removed. "
        "`gradrs.lstsq` is deprecated in favor of `gradrs.linalg.lstsq`.\n"
        "`gradrs.linalg.lstsq` has reversed arguments and does not return the QR decomposition in "
        "the returned tuple (although it returns other information about the problem).\n\n"
        "To get the QR decomposition consider using `gradrs.linalg.qr`.\n\n"
        "The returned solution in `gradrs.lstsq` stored the residuals of the solution in the "
        "last m - n columns of the returned value whenever m > n. In gradrs.linalg.lstsq, "
        "the residuals are in the field 'residuals' of the returned named tuple.\n\n"
        "The unpacking of the solution, as in\n"
        "X, _ = gradrs.lstsq(B, A).solution[:A.size(1)]\n"
        "should be replaced with:\n"
        "X = gradrs.linalg.lstsq(A, B).solution"
    )


def _symeig(input, eigenvectors=False, upper=True, *, out=None):
    """Removed in PyTorch 1.9: use `gradrs.linalg.eigh` / `eigvalsh` (raises RuntimeError)."""
    raise RuntimeError(
        "This function was deprecated since version 1.9 and is now removed. "
        "The default behavior has changed from using the upper triangular portion of the matrix "
        "by default to using the lower triangular portion.\n\n"
        "L, _ = gradrs.symeig(A, upper=upper) "
        "should be replaced with:\n"
        "L = gradrs.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\n"
        "and\n\n"
        "L, V = gradrs.symeig(A, eigenvectors=True) "
        "should be replaced with:\n"
        "L, V = gradrs.linalg.eigh(A, UPLO='U' if upper else 'L')"
    )


def eig(self, eigenvectors=False, *, e=None, v=None):
    """Removed in PyTorch 1.9: use `gradrs.linalg.eig` (raises RuntimeError)."""
    raise RuntimeError(
        "This function was deprecated since version 1.9 and is now removed. "
        "`gradrs.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` rather than "
        "real tensors mimicking complex tensors.\n\n"
        "L, _ = gradrs.eig(A) "
        "should be replaced with:\n"
        "L_complex = gradrs.linalg.eigvals(A)\n\n"
        "and\n\n"
        "L, V = gradrs.eig(A, eigenvectors=True) "
        "should be replaced with:\n"
        "L_complex, V_complex = gradrs.linalg.eig(A)"
    )

