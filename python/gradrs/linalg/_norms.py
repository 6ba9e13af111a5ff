"""Norms of `gradrs.linalg`: vector_norm, matrix_norm, norm.
"""

import builtins
import math

from .._forms import with_out as _with_out
from ._common import _check_matrix, _check_tensor, _dname, _low_precision, _one_node
from ._decompositions import svdvals


def _ord_str(p):
    if isinstance(p, str):
        return p
    if p == math.inf:
        return "inf"
    if p == -math.inf:
        return "-inf"
    return str(p)



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
        # p = 1 too through the native norm: ATen's NormOneOps order, not the sum's cascade.
        return t.norm(ord, d, keepdim) if d is not None else t.norm(ord)

    def compute():
        if dims is None and ord in (1.0, 2.0) and x.dim() > 0:
            # Over every dim of `x` itself, not a row-major copy: ATen reads it in memory
            # order (Note [Norm order]).
            return _one_node("LinalgVectorNormBackward0", fn, x)
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
