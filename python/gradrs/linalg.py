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
"""

import builtins
import functools
import math

import numpy as np

from . import _native, return_types
from ._forms import with_out as _with_out
from ._native import Tensor

__all__ = [
    "LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eigh",
    "eigvalsh", "householder_product", "inv", "inv_ex", "lstsq", "lu", "lu_factor",
    "lu_factor_ex", "lu_solve", "matmul", "matrix_exp", "matrix_norm", "matrix_power",
    "matrix_rank", "multi_dot", "norm", "pinv", "qr", "slogdet", "solve", "solve_ex",
    "solve_triangular", "svd", "svdvals", "tensorinv", "tensorsolve", "vander", "vecdot",
    "vector_norm",
]


class _LinAlgError(RuntimeError):
    """PyTorch's `torch.linalg.LinAlgError`: a factorization failed on valid input (a singular
    or not positive-definite matrix)."""


_LinAlgError.__module__ = "gradrs._C"
LinAlgError = _LinAlgError


# ---- named tuples ----------------------------------------------------------------------------

def _tuple_type(name, fields):
    t = return_types._make_type(name, fields)
    setattr(return_types, name, t)
    return t


_T_SLOGDET = _tuple_type("linalg_slogdet", ("sign", "logabsdet"))
_T_SLOGDET_OLD = _tuple_type("slogdet", ("sign", "logabsdet"))
_T_INV_EX = _tuple_type("linalg_inv_ex", ("inverse", "info"))
_T_SOLVE_EX = _tuple_type("linalg_solve_ex", ("result", "info"))
_T_CHOL_EX = _tuple_type("linalg_cholesky_ex", ("L", "info"))
_T_QR = _tuple_type("linalg_qr", ("Q", "R"))
_T_QR_OLD = _tuple_type("qr", ("Q", "R"))
_T_EIGH = _tuple_type("linalg_eigh", ("eigenvalues", "eigenvectors"))
_T_SVD = _tuple_type("linalg_svd", ("U", "S", "Vh"))
_T_SVD_OLD = _tuple_type("svd", ("U", "S", "V"))
_T_LU = _tuple_type("linalg_lu", ("P", "L", "U"))
_T_LU_FACTOR = _tuple_type("linalg_lu_factor", ("LU", "pivots"))
_T_LU_FACTOR_EX = _tuple_type("linalg_lu_factor_ex", ("LU", "pivots", "info"))
_T_LSTSQ = _tuple_type("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))


# ---- checks ----------------------------------------------------------------------------------

_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
          "bool": "Bool", "float16": "Half", "bfloat16": "BFloat16", "float32": "Float",
          "float64": "Double"}


def _dname(dtype):
    return _NAMES.get(str(dtype).split(".")[-1], str(dtype))


def _is_float(t):
    return t.dtype in (_native.float32, _native.float64)


def _check_tensor(fn, name, pos, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be Tensor, not "
                        f"{type(value).__name__}")


def _check_float(op, A, kernel=None):
    if not A.is_floating_point():
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. "
                           f"Got {_dname(A.dtype)}")
    if not _is_float(A):
        raise NotImplementedError(f"\"{kernel or 'linalg'}\" not implemented for "
                                  f"'{_dname(A.dtype)}'")


def _check_matrix(op, A, arg="A"):
    if A.dim() < 2:
        raise RuntimeError(f"{op}: The input tensor {arg} must have at least 2 dimensions.")


def _check_square(op, A):
    _check_matrix(op, A)
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")


def _low_precision(op, A):
    if A.is_floating_point() and not _is_float(A):
        raise RuntimeError(f"{op}: Low precision dtypes not supported. Got {_dname(A.dtype)}")


def _square_float(op, A, kernel=None):
    _check_square(op, A)
    _check_float(op, A, kernel)


def _batch_prefix(info, i):
    return f"(Batch element {i}): " if info.dim() > 0 else ""


def _first_failure(info):
    """(batch index, info value) of the first nonzero info, or None."""
    flat = info.detach().cpu().reshape(-1).tolist()
    for i, v in enumerate(flat):
        if v != 0:
            return i, v
    return None


# ---- helpers (differentiable) ----------------------------------------------------------------

def _mT(x):
    return x.transpose(-2, -1)


def _eye_like(n, like):
    return _native.eye(n, dtype=like.dtype, device=like.device)


def _diag_embed(v):
    n = v.shape[-1]
    return v.unsqueeze(-1) * _eye_like(n, v)


def _batch_shape(*shapes):
    out = []
    for s in shapes:
        s = list(s)
        pad = len(s) - len(out)
        if pad > 0:
            out = [1] * pad + out
        s = [1] * (len(out) - len(s)) + s
        for i, (a, b) in enumerate(zip(out, s)):
            if a != b and a != 1 and b != 1:
                raise RuntimeError("shape mismatch")
            out[i] = b if a == 1 else a
    return tuple(out)


def _tangent(t):
    """``t``'s forward-AD tangent at the live dual level, or None."""
    from .autograd import forward_ad

    if forward_ad._current_level < 0 or not isinstance(t, Tensor):
        return None
    return forward_ad.unpack_dual(t).tangent


def _grad_wanted(*inputs):
    """Whether a differentiable path is wanted: an input requires grad (grad mode on) or
    carries a forward-AD tangent."""
    return (_native.is_grad_enabled() and any(
        isinstance(t, Tensor) and t.requires_grad for t in inputs)) or any(
        _tangent(t) is not None for t in inputs)


def _set_tangents(outputs, inputs, jvp):
    """Forward mode (PyTorch's forward formulas): ``jvp(tangents, outs)`` gives each output's
    tangent from the inputs' tangents (zeros where an input has none) and the outputs."""
    tangents = [_tangent(t) for t in inputs]
    if jvp is None or all(t is None for t in tangents) or not _native._is_fwd_grad_enabled():
        return
    tangents = [_native.zeros_like(x) if t is None and isinstance(x, Tensor) else t
                for x, t in zip(inputs, tangents)]
    _native._set_fwd_grad_enabled(False)  # the formulas' own ops carry no tangents
    try:
        # the outputs as recorded: a tangent keeps its history through them (jacfwd under grad)
        out_t = jvp(tangents, outputs)
    finally:
        _native._set_fwd_grad_enabled(True)
    for o, t in zip(outputs, out_t):
        if o is not None and t is not None and o.is_floating_point():
            t = t.to(o.dtype)
            if tuple(t.shape) != tuple(o.shape):
                t = t.expand(o.shape).contiguous()
            _native._set_tangent(o, _fresh_layout(t, o), fresh=True)  # kept with its history


def _fresh_layout(t, o):
    """`t` as a tensor of its own laid out as contiguous `o`, which `_set_tangent(fresh=True)`
    keeps as is, history included (a view such as a diagonal would be copied in without it)."""
    if not o.is_contiguous() or (t._base is None and t.storage_offset() == 0
                                 and t.is_contiguous()):
        return t
    return t.clone() if t.is_contiguous() else t.contiguous()


def _record(name, outputs, inputs, backward, recompute, jvp=None, saved=None):
    """Gives `outputs` (fresh tensors, or None for integer outputs) one node `name` over
    `inputs` when one of them requires grad. `backward(grads, outs)` returns a gradient (or
    None) per input from the output gradients (None where none flowed) and the outputs;
    `recompute()` gives the outputs again, differentiably, for `create_graph`;
    `jvp(tangents, outs)` the outputs' forward-mode tangents; `saved` the `(name, value)`s
    PyTorch's node of that name shows as `_saved_<name>` (tensors among `outputs` saved as
    outputs)."""
    if not (_native.is_grad_enabled() and any(
            isinstance(t, Tensor) and t.requires_grad for t in inputs)):
        _set_tangents(outputs, inputs, jvp)
        return outputs
    plain = [o.detach() if o is not None else None for o in outputs]
    attached = [o if o is not None and o.is_floating_point() else None for o in outputs]

    def run(grads):
        outs = recompute() if _native.is_grad_enabled() else plain
        return list(backward(list(grads), outs))

    _native._attach_node(attached, list(inputs), name, run, saved=saved)
    _set_tangents(outputs, inputs, jvp)  # after: the formulas read the outputs' history
    return outputs


# ---- forward-mode formulas (PyTorch's FunctionsManual *_jvp), in primal ops -------------------

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
    from . import diag_embed, finfo

    if A.shape[-1] == 0:
        return dA.sum((-2, -1))  # an empty trace
    LU, piv, _ = _lu_factor_raw(A)
    d = LU.diagonal(0, -2, -1)
    LU = LU + diag_embed(_native.where(d == 0, finfo(A.dtype).eps, 0.0).to(LU.dtype))
    return _lu_solve(LU, piv, dA).diagonal(0, -2, -1).sum(-1)


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


def _one_node(name, fn, *inputs):
    from .nn.functional import _one_node as one

    return one(name, fn, *inputs)


# ---- triangular solves -----------------------------------------------------------------------

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


class _nograd:
    def __enter__(self):
        self.prev = _native.is_grad_enabled()
        _native._set_grad_enabled(False)

    def __exit__(self, *exc):
        _native._set_grad_enabled(self.prev)


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
    _check_float("linalg.solve_triangular", A, "triangular_solve_cpu")
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


# ---- LU --------------------------------------------------------------------------------------

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
    _check_matrix("gradrs.lu_factor", A)
    _check_float("linalg.lu_factor", A, "lu_cpu")
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
    _check_matrix("gradrs.lu_factor", A)
    _check_float("linalg.lu_factor", A, "lu_cpu")

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
    _check_matrix("linalg.lu", A)
    _check_float("linalg.lu", A, "lu_cpu")

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
    _check_matrix("linalg.lu_solve", LU, "LU")
    _check_matrix("linalg.lu_solve", B, "B")
    _check_float("linalg.lu_solve", LU, "linalg.lu_solve_cpu")
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


# ---- det, slogdet, inv, solve ----------------------------------------------------------------

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
        return _lu_solve(LU, piv, eye), info


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
                    X = _lu_solve(LU, piv, Bm.detach())
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


# ---- Cholesky --------------------------------------------------------------------------------

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


# ---- QR --------------------------------------------------------------------------------------

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


# ---- eigh ------------------------------------------------------------------------------------

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
    _square_float("linalg.eigh", A, "linalg_eigh_cpu")
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
    _square_float("linalg.eigh", A, "linalg_eigh_cpu")
    _check_uplo(UPLO)

    def compute():
        if _grad_wanted(A):
            return eigh(A, UPLO)[0]
        return _eigh(A, UPLO, False)[0]

    if out is not None:
        return _with_out("linalg_eigvalsh", out, compute, (A,))
    return compute()


# ---- SVD -------------------------------------------------------------------------------------

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


# ---- pinv, lstsq, matrix_rank, cond --------------------------------------------------------

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
    _check_matrix("gradrs.linalg.lstsq", A)
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
    _check_matrix("linalg.matrix_rank", A, "input")
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
    _check_matrix("linalg.cond", A)
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


def _ord_str(p):
    if isinstance(p, str):
        return p
    if p == math.inf:
        return "inf"
    if p == -math.inf:
        return "-inf"
    return str(p)


# ---- norms -----------------------------------------------------------------------------------

def _dims(dim, nd):
    if dim is None:
        return None
    if isinstance(dim, int):
        return (dim,)
    return tuple(dim)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """The `ord`-norm of `x` over `dim` (all elements when None) as a vector.

    Examples:
        >>> gradrs.linalg.vector_norm(gradrs.tensor([3.0, -4.0]), ord=1)
        tensor(7.)
    """
    _check_tensor("linalg_vector_norm", "input", 1, x)
    if isinstance(ord, (str, bool)) or not isinstance(ord, (int, float)):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' (position 2) must be Number, "
                        f"not {type(ord).__name__}")
    if not x.is_floating_point():
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor "
                           f"as input. Got {_dname(x.dtype)}")
    if dtype is not None and not dtype.is_floating_point:
        raise RuntimeError(f"linalg.vector_norm: dtype should be floating point or complex. "
                           f"Got {_dname(dtype)}")
    dims = _dims(dim, x.dim())
    ord = float(ord)
    if x.numel() == 0 and ord < 0 or (x.numel() == 0 and math.isinf(ord) and ord > 0
                                       and (dims is None or any(x.shape[d] == 0 for d in dims))):
        raise RuntimeError("linalg.vector_norm cannot compute the "
                           f"{_ord_str(ord if not math.isinf(ord) else ord)} norm on an empty "
                           "tensor because the operation does not have an identity")

    def fn(t):
        if dtype is not None:
            t = t.to(dtype)
        a = t.abs()
        d = dims if dims is not None else tuple(range(t.dim()))
        if not d and t.dim() == 0:
            d = None
        if math.isinf(ord):
            if a.dim() == 0:
                return a
            r = a.amax(d, keepdim) if ord > 0 else a.amin(d, keepdim)
            return r
        if ord == 0:
            r = (a != 0).to(a.dtype)
            return r.sum(d, keepdim=keepdim) if d is not None else r.sum()
        if ord == 1:
            return a.sum(d, keepdim=keepdim) if d is not None else a.sum()
        return t.norm(ord, d, keepdim) if d is not None else t.norm(ord)

    def compute():
        if dims is None and not keepdim:
            return _one_node("LinalgVectorNormBackward0", lambda t: fn(t.reshape(-1)), x)
        if dims is None and keepdim:
            return _one_node("LinalgVectorNormBackward0",
                             lambda t: fn(t.reshape(-1)).reshape([1] * t.dim()), x)
        return _one_node("LinalgVectorNormBackward0", fn, x)

    if out is not None:
        return _with_out("linalg_vector_norm", out, compute, (x,))
    return compute()


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """The `ord` matrix norm ('fro', 'nuc', inf, -inf, 1, -1, 2, -2) over the two dims.

    Examples:
        >>> gradrs.linalg.matrix_norm(gradrs.tensor([[3.0, 0.0], [0.0, 4.0]]))
        tensor(5.)
    """
    _check_tensor("linalg_matrix_norm", "input", 1, A)
    _check_matrix("linalg.matrix_norm", A)
    if not A.is_floating_point():
        raise RuntimeError(f"linalg.matrix_norm: Expected a floating point or complex tensor "
                           f"as input. Got {_dname(A.dtype)}")
    dim = tuple(dim)
    if len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim))}")
    nd = A.dim()
    d0, d1 = (d % nd for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, "
                           f"{dim[1]})")
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    elif ord not in (1, -1, 2, -2, math.inf, -math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {_ord_str(ord)} not supported.")
    if ord in ("nuc", 2, -2):
        _low_precision("linalg.matrix_norm", A)

    def compute():
        x = A.to(dtype) if dtype is not None else A
        if ord == "fro":
            return vector_norm(x, 2, (d0, d1), keepdim)
        if ord in ("nuc", 2, -2):
            moved = x.movedim((d0, d1), (-2, -1))
            S = svdvals(moved)
            if ord == "nuc":
                r = S.sum(-1)
            elif ord == 2:
                r = S.amax(-1)
            else:
                r = S.amin(-1)
            if keepdim:
                r = r.unsqueeze(builtins.min(d0, d1)).unsqueeze(builtins.max(d0, d1))
            return r
        # 1 / -1: column sums; inf / -inf: row sums.
        sum_dim, red_dim = (d0, d1) if ord in (1, -1) else (d1, d0)
        s = x.abs().sum(sum_dim, keepdim=keepdim)
        if not keepdim and sum_dim < red_dim:
            red_dim -= 1
        return s.amax(red_dim, keepdim) if ord > 0 else s.amin(red_dim, keepdim)

    if out is not None:
        return _with_out("linalg_matrix_norm", out, compute, (A,))
    return compute()


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """`vector_norm` or `matrix_norm` as `ord` and `dim` say (PyTorch's rules).

    Examples:
        >>> gradrs.linalg.norm(gradrs.tensor([3.0, 4.0]))
        tensor(5.)
    """
    _check_tensor("linalg_norm", "input", 1, A)
    if dim is not None:
        dims = _dims(dim, A.dim())
        if len(dims) not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. "
                               f"Got {list(dims)}")
    elif ord is not None and A.dim() not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be "
                           f"1D or 2D. Got {A.dim()}D.")
    else:
        dims = None
    if ord is not None and (isinstance(ord, str) or (dims is not None and len(dims) == 2)
                            or (dims is None and A.dim() == 2)):
        return matrix_norm(A, ord, dims if dims is not None else (-2, -1), keepdim,
                           dtype=dtype, out=out)
    return vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype=dtype, out=out)


# ---- products and the rest -------------------------------------------------------------------

def vecdot(x, y, *, dim=-1, out=None):
    """Sum over `dim` of x * y (broadcast).

    Examples:
        >>> gradrs.linalg.vecdot(gradrs.tensor([1.0, 2.0]), gradrs.tensor([3.0, 4.0]))
        tensor(11.)
    """
    _check_tensor("linalg_vecdot", "x", 1, x)
    _check_tensor("linalg_vecdot", "y", 2, y)
    if x.dtype != y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found "
                           f"x of type {_dname(x.dtype)} and y of type {_dname(y.dtype)} "
                           "instead")
    if x.dim() == 1 and y.dim() == 1 and x.shape[0] != y.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{x.shape[0]}] and src "
                           f"[{y.shape[0]}] to have the same number of elements, but got "
                           f"{x.shape[0]} and {y.shape[0]} elements respectively")

    def compute():
        return (x * y).sum(dim)

    if out is not None:
        return _with_out("linalg_vecdot", out, compute, (x, y))
    return compute()


def _cross(a, b, d):
    idx1 = _native.tensor([1, 2, 0], dtype=_native.int64, device=a.device)
    idx2 = _native.tensor([2, 0, 1], dtype=_native.int64, device=a.device)
    return (a.index_select(d, idx1) * b.index_select(d, idx2)
            - a.index_select(d, idx2) * b.index_select(d, idx1))


def cross(input, other, *, dim=-1, out=None):
    """The cross product of 3-vectors along `dim` (batch dims broadcast).

    Examples:
        >>> gradrs.linalg.cross(gradrs.tensor([1.0, 0.0, 0.0]), gradrs.tensor([0.0, 1.0, 0.0]))
        tensor([0., 0., 1.])
    """
    _check_tensor("linalg_cross", "input", 1, input)
    _check_tensor("linalg_cross", "other", 2, other)
    if input.dim() != other.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    nd = input.dim()
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}],"
                         f" but got {dim})")
    if input.shape[dim] != 3 or other.shape[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{input.shape[dim]} and {other.shape[dim]}")
    if input.dtype != other.dtype:
        raise RuntimeError(f"linalg.cross: expected input and other to have the same dtype, "
                           f"but got {_dname(input.dtype)} and {_dname(other.dtype)}")

    def compute():
        shape = _batch_shape(input.shape, other.shape)
        a, b = input.expand(shape), other.expand(shape)
        if not (a.is_floating_point() and _grad_wanted(input, other)):
            return _cross(a, b, dim % nd)
        return _one_node("LinalgCrossBackward0", lambda u, v: _cross(
            u.expand(shape), v.expand(shape), dim % nd), input, other)

    if out is not None:
        return _with_out("linalg_cross", out, compute, (input, other))
    return compute()


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """`A.diagonal(offset, dim1, dim2)`: a view.

    Examples:
        >>> gradrs.linalg.diagonal(gradrs.arange(4.0).reshape(2, 2))
        tensor([0., 3.])
    """
    _check_tensor("linalg_diagonal", "A", 1, A)
    return A.diagonal(offset, dim1, dim2)


def matmul(input, other, *, out=None):
    """`gradrs.matmul`.

    Examples:
        >>> gradrs.linalg.matmul(gradrs.ones(2, 3), gradrs.ones(3, 4)).shape
        gradrs.Size([2, 4])
    """
    if out is not None:
        return _native_matmul()(input, other, out=out)
    return _native_matmul()(input, other)


def _native_matmul():
    import gradrs

    return gradrs.matmul


def multi_dot(tensors, *, out=None):
    """The product of a chain of matrices (first and last may be vectors), multiplied in the
    cheapest order (PyTorch's dynamic programme).

    Examples:
        >>> gradrs.linalg.multi_dot([gradrs.ones(2, 3), gradrs.ones(3, 4), gradrs.ones(4, 1)])
        tensor([[12.],
                [12.]])
    """
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first, last = tensors[0], tensors[-1]
    if first.dim() not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got "
                           f"{first.dim()}D")
    if last.dim() not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got "
                           f"{last.dim()}D")
    for i, t in enumerate(tensors[1:-1], 1):
        if t.dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.dim()}D")
    for i, t in enumerate(tensors[1:], 1):
        if t.dtype != first.dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but "
                               f"tensor 0 is {_dname(first.dtype)} and tensor {i} "
                               f"{_dname(t.dtype)}")
    mats = list(tensors)
    if first.dim() == 1:
        mats[0] = first.unsqueeze(0)
    if last.dim() == 1:
        mats[-1] = last.unsqueeze(-1)
    for i in range(n - 1):
        if mats[i].shape[-1] != mats[i + 1].shape[0]:
            raise RuntimeError(
                f"multi_dot(): tensors {i} and {i + 1} with shapes "
                f"{list(tensors[i].shape) if i else list(mats[0].shape)} and "
                f"{list(mats[i + 1].shape) if i + 1 < n - 1 else list(mats[i + 1].shape)} "
                "cannot be multiplied")
    out_shape = []
    if first.dim() == 2:
        out_shape.append(first.shape[0])
    if last.dim() == 2:
        out_shape.append(last.shape[1])

    def compute():
        if n == 2:
            r = mats[0].mm(mats[1])
        else:
            r = _chain(mats)
        return r.view(out_shape)

    if out is not None:
        return _with_out("linalg_multi_dot", out, compute, tuple(tensors))
    return compute()


def _chain(mats):
    n = len(mats)
    p = [mats[0].shape[0]] + [m.shape[1] for m in mats]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k

    def go(i, j):
        if i == j:
            return mats[i]
        k = split[i][j]
        return go(i, k).mm(go(k + 1, j))

    return go(0, n - 1)


def matrix_power(A, n, *, out=None):
    """A to the integer power n (n < 0: of its inverse), by repeated squaring.

    Examples:
        >>> gradrs.matrix_power(gradrs.tensor([[1.0, 1.0], [0.0, 1.0]]), 3)
        tensor([[1., 3.],
                [0., 1.]])
    """
    _check_tensor("linalg_matrix_power", "input", 1, A)
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"linalg_matrix_power(): argument 'n' (position 2) must be int, not "
                        f"{type(n).__name__}")
    _check_square("linalg.matrix_power", A)

    def compute():
        k = n
        a = A
        if k == 0:
            # PyTorch writes the identity into a copy of A (a CopyBackwards node, zero grad).
            r = A.clone()
            r.copy_(_eye_like(A.shape[-1], A).expand(A.shape))
            return r
        if k < 0:
            a = inv(A)
            k = -k
            if k == 1:
                return a
        if k == 1:
            return a.clone()
        if k == 2:
            return a @ a
        if k == 3:
            return (a @ a) @ a
        z = result = None
        while k > 0:
            bit = k % 2
            k //= 2
            z = a if z is None else z @ z
            if bit:
                result = z if result is None else result @ z
        return result

    if out is not None:
        return _with_out("linalg_matrix_power", out, compute, (A,))
    return compute()


def _matrix_exp(A):
    """exp(A): scaling and squaring with a degree-18 Taylor polynomial (s chosen from the
    1-norm on the host: A / 2^s has norm <= 1/2), differentiable in A."""
    n = A.shape[-1]
    with _nograd():
        norm1 = float(A.detach().abs().sum(-2).amax().cpu().item()) if A.numel() else 0.0
    s = builtins.max(0, math.ceil(math.log2(norm1 / 0.5))) if norm1 > 0.5 else 0
    X = A / (2.0 ** s) if s else A
    eye = _eye_like(n, A)
    # Horner: I + X (I + X/2 (I + X/3 (...))).
    r = eye + X / 18.0
    for k in range(17, 0, -1):
        r = eye + (X @ r) / float(k)
    for _ in range(s):
        r = r @ r
    return r


def matrix_exp(A):
    """The matrix exponential of each square matrix.

    Examples:
        >>> gradrs.matrix_exp(gradrs.zeros(2, 2))
        tensor([[1., 0.],
                [0., 1.]])
    """
    _check_tensor("linalg_matrix_exp", "input", 1, A)
    _check_square("linalg.matrix_exp", A)
    if not A.is_floating_point():
        raise RuntimeError(f"\"linalg_matrix_exp\" not implemented for '{_dname(A.dtype)}'")
    if A.shape[-1] == 1:
        return _one_node("LinalgMatrixExpBackward0", lambda a: a.exp(), A)
    if not _is_float(A):
        # float16: computed in float32, rounded once.
        return _one_node("LinalgMatrixExpBackward0",
                         lambda a: _matrix_exp(a.float()).to(a.dtype), A)
    return _one_node("LinalgMatrixExpBackward0", _matrix_exp, A)


def vander(x, *, N=None):
    """The Vandermonde matrix of each vector: powers 0 .. N-1 of its entries.

    Examples:
        >>> gradrs.linalg.vander(gradrs.tensor([1.0, 2.0, 3.0]))
        tensor([[1., 1., 1.],
                [1., 2., 4.],
                [1., 3., 9.]])
    """
    _check_tensor("linalg_vander", "x", 1, x)
    if x.is_floating_point() and not _is_float(x):
        raise RuntimeError(f"linalg.vander supports floating point, complex, and integer "
                           f"tensors, but got {_dname(x.dtype)}")
    if x.dim() == 0:
        x = x.reshape(1)
    if N is None:
        N = x.shape[-1]
    if N <= 1:
        raise RuntimeError("N must be greater than 1.")
    ones = _native.ones_like(x).unsqueeze(-1)
    if x.dtype == _native.bool:
        ones = ones.to(_native.int64)
        x = x.to(_native.int64)
    powers = x.unsqueeze(-1).expand(*x.shape, N - 1).cumprod(-1)
    return _native.cat([ones.to(powers.dtype), powers], -1)


def householder_product(A, tau, *, out=None):
    """The first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^T with v_i the i-th column
    of A below the diagonal (a unit first entry), as LAPACK's orgqr."""
    _check_tensor("linalg_householder_product", "input", 1, A)
    _check_tensor("linalg_householder_product", "tau", 2, tau)
    _check_matrix("gradrs.linalg.householder_product", A, "input")
    if tau.dim() < 1:
        raise RuntimeError("gradrs.linalg.householder_product: input.dim() - tau.dim() must be "
                           f"equal to 1 but got {A.dim() - tau.dim()}")
    m, n = A.shape[-2], A.shape[-1]
    if m < n:
        raise RuntimeError("gradrs.linalg.householder_product: input.shape[-2] must be greater "
                           "than or equal to input.shape[-1]")
    if tau.shape[-1] > n:
        raise RuntimeError("gradrs.linalg.householder_product: input.shape[-1] must be greater "
                           "than or equal to tau.shape[-1]")
    if A.dim() - tau.dim() != 1:
        raise RuntimeError("gradrs.linalg.householder_product: input.dim() - tau.dim() must be "
                           f"equal to 1 but got {A.dim() - tau.dim()}")
    if A.dtype != tau.dtype:
        raise RuntimeError(f"gradrs.linalg.householder_product: tau dtype {_dname(tau.dtype)} "
                           f"does not match input dtype {_dname(A.dtype)}")
    _check_float("gradrs.linalg.householder_product", A, "orgqr_cpu")

    def fn(a, t):
        k = t.shape[-1]
        below = a.tril(-1) + _native.eye(m, n, dtype=a.dtype, device=a.device)
        Q = _native.eye(m, dtype=a.dtype, device=a.device).expand(
            tuple(a.shape[:-2]) + (m, m))
        for i in range(k - 1, -1, -1):
            v = below[..., :, i:i + 1]
            # H_i Q = Q - tau_i v (v^T Q), applied right to left.
            Q = Q - t[..., i:i + 1].unsqueeze(-1) * (v @ (_mT(v) @ Q))
        return Q[..., :, :n]

    def compute():
        return _one_node("LinalgHouseholderProductBackward0", fn, A, tau)

    if out is not None:
        return _with_out("linalg_householder_product", out, compute, (A, tau))
    return compute()


def tensorinv(A, ind=2, *, out=None):
    """The inverse of `A` seen as a square matrix of its first `ind` dims by the rest.

    Examples:
        >>> A = gradrs.eye(4).reshape(4, 2, 2)
        >>> gradrs.linalg.tensorinv(A, ind=1).shape
        gradrs.Size([2, 2, 4])
    """
    _check_tensor("linalg_tensorinv", "input", 1, A)
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    outer = tuple(A.shape[:ind])
    inner = tuple(A.shape[ind:])
    rows = int(np.prod(outer, dtype=np.int64))
    cols = int(np.prod(inner, dtype=np.int64))
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {cols} != {rows}")

    def compute():
        return inv(A.reshape(rows, cols)).reshape(inner + outer)

    if out is not None:
        return _with_out("linalg_tensorinv", out, compute, (A,))
    return compute()


def tensorsolve(A, B, dims=None, *, out=None):
    """X with tensordot(A, X, X.dim()) = B.

    Examples:
        >>> A = gradrs.eye(6).reshape(2, 3, 6)
        >>> gradrs.linalg.tensorsolve(A, gradrs.ones(2, 3)).shape
        gradrs.Size([6])
    """
    _check_tensor("linalg_tensorsolve", "input", 1, A)
    _check_tensor("linalg_tensorsolve", "other", 2, B)
    if dims is not None:
        nd = A.dim()
        dims = [d % nd for d in dims]
        rest = [d for d in range(nd) if d not in dims]
        A = A.permute(*rest, *dims)
    res_shape = tuple(A.shape[B.dim():])
    rows = int(np.prod(B.shape, dtype=np.int64))
    cols = int(np.prod(res_shape, dtype=np.int64))
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:"
                           f"]) == prod(self.shape[:other.ndim]), but got {cols} != {rows}")

    def compute():
        return solve(A.reshape(rows, cols), B.reshape(rows)).reshape(res_shape)

    if out is not None:
        return _with_out("linalg_tensorsolve", out, compute, (A, B))
    return compute()


# ---- PyTorch's top-level forms and Tensor methods --------------------------------------------

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
    _check_matrix("linalg.cholesky_solve", input, "B")
    _check_matrix("linalg.cholesky_solve", input2)
    _check_float("linalg.cholesky_solve", input2, "cholesky_solve_cpu")

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
    _check_matrix("linalg.cholesky_inverse", input)
    _check_float("linalg.cholesky_inverse", input, "cholesky_inverse_out_cpu")

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
    d = input.diagonal()
    if not input.is_floating_point():
        return d.sum()
    return _one_node("TraceBackward0", lambda t: t.diagonal().sum(), input)


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
                   ("cross", _cross_method)):
    _fn.__name__ = _fn.__qualname__ = _name
    setattr(Tensor, _name, _fn)


# Under vmap (BatchedTensor arguments) the batch is one more leading batch dim of these
# functions: each runs once on the physical tensors (Note [vmap], `_vmap.leading_batch`).
def _vmap_leading(fn, vector_arg=None):
    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        if builtins.any(hasattr(type(a), "_vmap_level")
                        for a in list(args) + list(kwargs.values())):
            from . import _vmap

            return _vmap.leading_batch(fn, args, kwargs, vector_arg)
        return fn(*args, **kwargs)
    return wrapped


solve_triangular = _vmap_leading(solve_triangular)
lu_factor_ex = _vmap_leading(lu_factor_ex)
lu_factor = _vmap_leading(lu_factor)
lu = _vmap_leading(lu)
lu_solve = _vmap_leading(lu_solve)
det = _vmap_leading(det)
slogdet = _vmap_leading(slogdet)
inv_ex = _vmap_leading(inv_ex)
inv = _vmap_leading(inv)
cholesky_ex = _vmap_leading(cholesky_ex)
cholesky = _vmap_leading(cholesky)
qr = _vmap_leading(qr)
eigh = _vmap_leading(eigh)
eigvalsh = _vmap_leading(eigvalsh)
svd = _vmap_leading(svd)
svdvals = _vmap_leading(svdvals)
pinv = _vmap_leading(pinv)
lstsq = _vmap_leading(lstsq)
matrix_rank = _vmap_leading(matrix_rank)
cond = _vmap_leading(cond)
matrix_power = _vmap_leading(matrix_power)
matrix_exp = _vmap_leading(matrix_exp)
householder_product = _vmap_leading(householder_product)
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
solve = _vmap_leading(solve, vector_arg=1)
solve_ex = _vmap_leading(solve_ex, vector_arg=1)
