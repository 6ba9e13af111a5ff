"""`gradrs.linalg`: PyTorch's `torch.linalg`, on the native factorizations (faer, on the host:
`_native._linalg_*`) and compositions of gradrs ops.

The factorizations (LU, Cholesky, QR, eigh, SVD, triangular solves) and the ops PyTorch gives
a node of their own (det, slogdet, inv, solve, pinv) record one node named as PyTorch's, whose
backward is PyTorch's formula (`FunctionsManual.cpp`) written in differentiable gradrs ops, so
second derivatives work: under `create_graph` a node's formula recomputes its outputs from the
saved inputs (differentiably) instead of keeping them, which would tie output -> node -> output
in a cycle Python's collector cannot see. Everything else is a composition of gradrs ops
(norms, vecdot, cross, multi_dot, matrix_power, matrix_exp, vander, ...), wrapped in one node
of PyTorch's name where PyTorch records one.

One module per family, re-exported here statically: `_solvers.py`
(triangular, LU, det, inv, solve), `_ldl.py` (ldl_factor, ldl_solve: LAPACK's Bunch–Kaufman),
`_decompositions.py` (Cholesky, QR, eigh, SVD),
`_least_squares.py` (pinv, lstsq, matrix_rank, cond), `_norms.py`, `_products.py`
(vecdot, cross, multi_dot, matrix_power, matrix_exp, ...), `_top_level.py` (`gradrs.det` & co.
and their Tensor methods), `_common.py` (errors, named tuples, checks, the node recorder);
each op's forward-mode formula (PyTorch's `*_jvp`) lives beside it.
"""

from ._common import (  # noqa: F401
    LinAlgError, _fresh_layout, _set_tangents,
)
from ._solvers import (  # noqa: F401
    det, inv, inv_ex, lu, lu_factor, lu_factor_ex, lu_solve, slogdet, solve, solve_ex,
    solve_triangular,
)
from ._ldl import (  # noqa: F401
    ldl_factor, ldl_factor_ex, ldl_solve,
)
from ._decompositions import (  # noqa: F401
    cholesky, cholesky_ex, eigh, eigvalsh, qr, svd, svdvals,
)
from ._least_squares import (  # noqa: F401
    cond, lstsq, matrix_rank, pinv,
)
from ._norms import (  # noqa: F401
    matrix_norm, norm, vector_norm,
)
from ._products import (  # noqa: F401
    cross, diagonal, householder_product, matmul, matrix_exp, matrix_power, multi_dot,
    tensorinv, tensorsolve, vander, vecdot,
    geqrf, orgqr, ormqr,
)
from ._top_level import (  # noqa: F401
    cholesky_inverse, cholesky_solve, _cholesky_top, _cross_top, _det_top, inverse, logdet,
    pinverse, _qr_top, _slogdet_top, _svd_top, trace, lu_unpack, lu_solve as _lu_solve_top,
)

__all__ = [
    "LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eigh",
    "eigvalsh", "householder_product", "inv", "inv_ex", "ldl_factor", "ldl_factor_ex",
    "ldl_solve",
    "lstsq", "lu", "lu_factor",
    "lu_factor_ex", "lu_solve", "matmul", "matrix_exp", "matrix_norm", "matrix_power",
    "matrix_rank", "multi_dot", "norm", "pinv", "qr", "slogdet", "solve", "solve_ex",
    "solve_triangular", "svd", "svdvals", "tensorinv", "tensorsolve", "vander", "vecdot",
    "vector_norm",
]

# The functions say they live here (as before the split into modules): reprs, pickles, help().
for _fn in list(globals().values()):
    if callable(_fn) and getattr(_fn, "__module__", "").startswith(__name__ + "."):
        _fn.__module__ = __name__
del _fn
