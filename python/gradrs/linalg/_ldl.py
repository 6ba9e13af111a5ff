"""`gradrs.linalg.ldl_factor`, `ldl_factor_ex` and `ldl_solve`: LAPACK's Bunch–Kaufman
`A = L D L^T` of a symmetric (indefinite) matrix from its lower triangle (`sytrf`) and the
solve with its factors (`sytrs`), natively (`_native._linalg_ldl_*`, Note [LDL order] in
`src/backend/cpu/ldl.rs`): LD and pivots as PyTorch's (1-based, a negative pair for each 2x2
block), LD and the solution column-major as PyTorch lays them out.

PyTorch gives neither op a derivative: an input that requires grad gives the floating outputs
one `NotImplemented` node (edges to the inputs that require grad only, as PyTorch's autograd
fallback), whose backward raises "derivative for aten::... is not implemented"; a forward-AD
tangent raises PyTorch's NotImplementedError.
"""

import numpy as np

from .. import _argparse, _native
from .._forms import with_out as _with_out
from .._native import Tensor
from ._common import (
    _check_float, _check_square, _check_tensor, _dname, _nograd, _tangent,
    _tuple_type,
)

_T_LDL_FACTOR = _tuple_type("linalg_ldl_factor", ("LD", "pivots"))
_T_LDL_FACTOR_EX = _tuple_type("linalg_ldl_factor_ex", ("LD", "pivots", "info"))
# What they return with out= (`_forms.with_out` names the tuple `<op>_out`).
_tuple_type("linalg_ldl_factor_out", ("LD", "pivots"))
_tuple_type("linalg_ldl_factor_ex_out", ("LD", "pivots", "info"))

# ATen's `_linalg_check_errors` knows no LDL failure: a zero column (info > 0) reaches its
# final internal assert, whose message PyTorch prints as is.
_UNKNOWN = ('false INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/native/'
            'BatchLinearAlgebra.cpp":1642, please report a bug to PyTorch. ')


def _check_bool(fn, name, value):
    if not isinstance(value, bool):
        raise TypeError(f"{fn}(): argument '{name}' must be bool, not "
                        f"{_argparse.type_name(value)}")


def _not_differentiable(aten, outputs, inputs):
    """PyTorch's autograd fallback for an op without a formula: a `NotImplemented` node on
    the floating outputs over the inputs that require grad; forward AD refused."""
    if _native._is_fwd_grad_enabled() and any(_tangent(t) is not None for t in inputs):
        raise NotImplementedError(
            f"Trying to use forward AD with aten::{aten} that does not support it.")
    wanted = [t for t in inputs if isinstance(t, Tensor) and t.requires_grad]
    if _native.is_grad_enabled() and wanted:
        def backward(grads):
            raise RuntimeError(f"derivative for aten::{aten} is not implemented")

        live = [o if o.is_floating_point() else None for o in outputs]
        _native._attach_node(live, wanted, "NotImplemented", backward, save_inputs=())
    return outputs


def _broadcast(a, b):
    """ATen's `infer_size` of two batch shapes, with its error."""
    nd = max(len(a), len(b))
    out = []
    for i in range(nd):
        x = a[i - nd + len(a)] if i - nd + len(a) >= 0 else 1
        y = b[i - nd + len(b)] if i - nd + len(b) >= 0 else 1
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b "
                               f"({y}) at non-singleton dimension {i}")
        out.append(y if x == 1 else x)
    return tuple(out)


def _check_factor_input(fn, A, hermitian):
    _check_tensor(fn, "input", 1, A)
    _check_bool(fn, "hermitian", hermitian)
    _check_square("gradrs.linalg.ldl_factor_ex", A)
    _check_float("gradrs.linalg.ldl_factor_ex", A, "ldl_factor_kernel_cpu")


def _ldl_factor_ex(A):
    with _nograd():
        LD, piv, info = _native._linalg_ldl_factor(A.detach())
    return _not_differentiable("linalg_ldl_factor_ex", (LD, piv, info), (A,))


def _raise_unknown(op, info):
    bad = [v for v in info.reshape(-1).tolist() if v != 0]
    if bad:
        raise RuntimeError(f"{_UNKNOWN}gradrs.{op}: Unknown error code: {bad[0]}.")


def ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    """(LD, pivots, info): the Bunch–Kaufman factorization `A = L D L^T` of symmetric `A`
    (its lower triangle read), LAPACK's `sytrf`; `info` > 0 marks an exactly zero column.
    For real matrices `hermitian=True` is the same factorization.

    Examples:
        >>> A = gradrs.tensor([[0.0, 1.0, 2.0], [1.0, 0.0, 3.0], [2.0, 3.0, 0.0]])
        >>> LD, pivots, info = gradrs.linalg.ldl_factor_ex(A)
        >>> pivots
        tensor([-3, -3,  3], dtype=gradrs.int32)
        >>> LD
        tensor([[ 0.0000,  0.0000,  0.0000],
                [ 2.0000,  0.0000,  0.0000],
                [ 1.5000,  0.5000, -3.0000]])
    """
    _check_factor_input("linalg_ldl_factor_ex", A, hermitian)
    _check_bool("linalg_ldl_factor_ex", "check_errors", check_errors)

    def compute():
        LD, piv, info = _ldl_factor_ex(A)
        if check_errors:
            _raise_unknown("linalg.ldl_factor_ex", info)
        return _T_LDL_FACTOR_EX(LD, piv, info)

    if out is not None:
        return _with_out("linalg_ldl_factor_ex", out, compute, (A,))
    return compute()


def ldl_factor(A, *, hermitian=False, out=None):
    """(LD, pivots) of `ldl_factor_ex`, raising PyTorch's error for an exactly zero column.

    Examples:
        >>> A = gradrs.tensor([[4.0, 2.0], [2.0, -3.0]])
        >>> LD, pivots = gradrs.linalg.ldl_factor(A)
        >>> LD
        tensor([[ 4.0000,  0.0000],
                [ 0.5000, -4.0000]])
        >>> pivots
        tensor([1, 2], dtype=gradrs.int32)
    """
    _check_factor_input("linalg_ldl_factor", A, hermitian)

    def compute():
        LD, piv, info = _ldl_factor_ex(A)
        _raise_unknown("linalg.ldl_factor", info)
        return _T_LDL_FACTOR(LD, piv)

    if out is not None:
        return _with_out("linalg_ldl_factor", out, compute, (A,))
    return compute()


_INTEGRAL = ("uint8", "int8", "int16", "int32", "int64")


def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    """X with `A X = B` from `ldl_factor`'s LD and pivots (LAPACK's `sytrs`); batch dims
    broadcast.

    Examples:
        >>> A = gradrs.tensor([[0.0, 1.0, 2.0], [1.0, 0.0, 3.0], [2.0, 3.0, 0.0]])
        >>> LD, pivots = gradrs.linalg.ldl_factor(A)
        >>> X = gradrs.linalg.ldl_solve(LD, pivots, gradrs.tensor([[3.0], [4.0], [5.0]]))
        >>> gradrs.allclose(A @ X, gradrs.tensor([[3.0], [4.0], [5.0]]))
        True
    """
    fn = "linalg_ldl_solve"
    _check_tensor(fn, "LD", 1, LD)
    _check_tensor(fn, "pivots", 2, pivots)
    _check_tensor(fn, "B", 3, B)
    _check_bool(fn, "hermitian", hermitian)
    op = "gradrs.linalg.ldl_solve"
    _check_square(op, LD)
    if not LD.is_floating_point():
        _check_float(op, LD)
    if B.dtype != LD.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{_dname(B.dtype)} and A of type {_dname(LD.dtype)} instead.")
    n = LD.shape[-1]
    if B.dim() < 2:
        raise IndexError("Dimension specified as -2 but tensor has no dimensions" if B.dim() == 0
                         else "Dimension out of range (expected to be in range of [-1, 0], "
                              "but got -2)")
    if B.shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for {op}: each A matrix is {n} by {n} "
                           f"but each b matrix is {B.shape[-2]} by {B.shape[-1]}")
    if tuple(pivots.shape) != tuple(LD.shape[:-1]):
        raise RuntimeError(f"{op}: Expected LD.shape[:-1] and pivots.shape to be the same, but "
                           f"got pivots with shape {list(pivots.shape)} instead")
    if str(pivots.dtype).split(".")[-1] not in _INTEGRAL:
        raise RuntimeError(f"{op}: Expected pivots to be integers. Got {_dname(pivots.dtype)}")
    _check_float(op, LD, "ldl_solve_kernel_cpu")

    def compute():
        batch = _broadcast(tuple(B.shape[:-2]), tuple(LD.shape[:-2]))
        k = B.shape[-1]
        if LD.numel() == 0 or pivots.numel() == 0 or 0 in batch or k == 0:
            X = _native.zeros(batch + (n, k), dtype=B.dtype, device=B.device)
        else:
            piv = pivots.detach().cpu().numpy().astype(np.int64)
            if (np.abs(piv) < 1).any():
                raise RuntimeError("Pivots given to ldl_solve must all satisfy |pivot| >= 1. Did "
                                   "you properly pass the result of ldl_factor?")
            if (np.abs(piv) > n).any():
                raise RuntimeError("Pivots given to ldl_solve must all satisfy |pivot| <= "
                                   "LD.size(-2). Did you properly pass the result of "
                                   "ldl_factor?")
            with _nograd():
                p = _native.tensor(piv.tolist(), dtype=_native.int64).expand(*batch, n)
                X = _native._linalg_ldl_solve(LD.detach().expand(*batch, n, n),
                                              p.contiguous(),
                                              B.detach().expand(*batch, n, k))
        return _not_differentiable("linalg_ldl_solve", (X,), (LD, B))[0]

    if out is not None:
        return _with_out(fn, out, compute, (LD, B))
    return compute()
