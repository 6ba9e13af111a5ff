"""Products and matrix functions of `gradrs.linalg`: vecdot, cross, diagonal, matmul,
multi_dot, matrix_power, matrix_exp, vander, householder_product, tensorinv, tensorsolve.
"""

import builtins
import math

import numpy as np

from .. import _native
from .._forms import with_out as _with_out
from ._common import (
    _batch_shape, _check_kernel, _check_square, _check_tensor, _dname, _eye_like,
    _grad_wanted, _is_float, _mT, _nograd, _one_node, _record, _tuple_type, _vmap_leading,
)
from ._solvers import inv, solve


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
    if not x.is_floating_point():
        raise RuntimeError(f"linalg.vecdot: Expected a floating point or complex tensor as "
                           f"input. Got {_dname(x.dtype)}")
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
    if input.dtype == _native.bool:
        raise NotImplementedError("\"cross\" not implemented for 'Bool'")

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
        raise RuntimeError(f"linalg.matrix_exp: Expected a floating point or complex tensor as "
                           f"input. Got {_dname(A.dtype)}")
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
    if x.is_floating_point() and not _is_float(x) or x.dtype == _native.bool:
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
    if A.dim() < 2:
        raise RuntimeError("gradrs.linalg.householder_product: input must have at least 2 "
                           "dimensions.")
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
    _check_kernel(A, "orgqr_cpu")

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


def _check_kernel_dtype(A, kernel):
    """ATen's dispatch over the float types: its NotImplementedError for any other."""
    if not _is_float(A):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_dname(A.dtype)}'")


def _reflectors_q(a, t, size):
    """The full `size` x `size` H_1 ... H_k of the reflectors in `a`'s columns (LAPACK's
    representation: unit first entries, the rest below the diagonal), in differentiable ops."""
    cols = a.shape[-1]
    below = a.tril(-1) + _native.eye(size, cols, dtype=a.dtype, device=a.device)
    Q = _native.eye(size, dtype=a.dtype, device=a.device).expand(
        tuple(a.shape[:-2]) + (size, size))
    for i in range(t.shape[-1] - 1, -1, -1):
        v = below[..., :, i:i + 1]
        Q = Q - t[..., i:i + 1].unsqueeze(-1) * (v @ (_mT(v) @ Q))
    return Q


def geqrf(input, *, out=None):
    """LAPACK's geqrf: ``(a, tau)``, the QR decomposition of `input` in Householder form (R on
    and above the diagonal of `a`, the reflectors below it, their scales in `tau`); see
    :func:`gradrs.orgqr` and :func:`gradrs.ormqr`. Not differentiable (as in PyTorch).

    Examples:
        >>> a, tau = gradrs.geqrf(gradrs.tensor([[3.0, 1.0], [4.0, 2.0]]))
        >>> a[0, 0]
        tensor(-5.)
    """
    if out is not None:
        return _T_GEQRF(*_with_out("geqrf", out, lambda: tuple(geqrf(input)), (input,)))
    if input.dim() < 2:
        raise RuntimeError("gradrs.geqrf: input must have at least 2 dimensions.")
    _check_kernel_dtype(input, "geqrf_cpu")
    m, n = input.shape[-2], input.shape[-1]
    x = input.detach().cpu().numpy()
    if x.size:
        h, tau = np.linalg.qr(x, mode="raw")
        a = np.swapaxes(h, -1, -2)
    else:
        a, tau = x.copy(), np.zeros(tuple(x.shape[:-2]) + (builtins.min(m, n),), x.dtype)
    a_t = _native.tensor(np.ascontiguousarray(a), dtype=input.dtype, device=input.device)
    tau_t = _native.tensor(np.ascontiguousarray(tau), dtype=input.dtype, device=input.device)

    def backward(grads, outs):
        raise NotImplementedError("the derivative for 'geqrf' is not implemented.")

    return _T_GEQRF(*_record("GeqrfBackward0", [a_t, tau_t], [input], backward,
                             lambda: [a_t, tau_t]))


def orgqr(input, tau, *, out=None):
    """The first n columns of the product of `geqrf`'s Householder reflectors: the same as
    :func:`gradrs.linalg.householder_product`.

    Examples:
        >>> A = gradrs.tensor([[3.0, 1.0], [4.0, 2.0]])
        >>> Q = gradrs.orgqr(*gradrs.geqrf(A))
        >>> gradrs.allclose(Q @ Q.T, gradrs.eye(2))
        True
    """
    return householder_product(input, tau, out=out)


def ormqr(input, tau, other, left=True, transpose=False, *, out=None):
    """`other` multiplied by the orthogonal Q of `geqrf`'s Householder form (`input`, `tau`):
    ``Q @ other`` (``left``), ``other @ Q`` otherwise, with Q transposed when `transpose`;
    one OrmqrBackward0.

    Examples:
        >>> A = gradrs.tensor([[3.0, 1.0], [4.0, 2.0]])
        >>> a, tau = gradrs.geqrf(A)
        >>> gradrs.allclose(gradrs.ormqr(a, tau, gradrs.eye(2)), gradrs.orgqr(a, tau))
        True
    """
    if out is not None:
        return _with_out("ormqr", out, lambda: ormqr(input, tau, other, left, transpose),
                         (input, tau, other))
    if input.dim() < 2:
        raise RuntimeError("gradrs.ormqr: input must have at least 2 dimensions.")
    if other.dim() < 2:
        raise RuntimeError("gradrs.ormqr: other must have at least 2 dimensions.")
    side = -2 if left else -1
    if other.shape[side] != input.shape[-2]:
        raise RuntimeError(f"gradrs.ormqr: other.shape[{side}] must be equal to "
                           "input.shape[-2]")
    if tau.dim() >= 1 and tau.shape[-1] != builtins.min(other.shape[side], input.shape[-1]):
        raise RuntimeError(f"gradrs.ormqr: tau.shape[-1] must be equal to min(other.shape"
                           f"[{side}], input.shape[-1])")
    if input.dim() - tau.dim() != 1:
        raise RuntimeError("gradrs.ormqr: Expected tau to have one dimension less than input, "
                           f"but got tau.ndim equal to {tau.dim()} and input.ndim is equal to "
                           f"{input.dim()}")
    if input.dim() != other.dim():
        raise RuntimeError("gradrs.ormqr: Expected other to have the same number of dimensions "
                           f"as input, but got other.ndim equal to {other.dim()} and input.ndim "
                           f"is equal to {input.dim()}")
    batch = list(input.shape[:-2])
    if list(tau.shape[:-1]) != batch:
        raise RuntimeError("gradrs.ormqr: Expected batch dimensions of tau to be equal to "
                           f"input.shape[:-2], but got {list(tau.shape[:-1])}")
    if list(other.shape[:-2]) != batch:
        raise RuntimeError("gradrs.ormqr: Expected batch dimensions of other to be equal to "
                           f"input.shape[:-2], but got {list(other.shape[:-2])}")
    for what, t in (("tau", tau), ("other", other)):
        if t.dtype != input.dtype:
            raise RuntimeError(f"gradrs.ormqr: Expected input and {what} to have the same dtype, "
                               f"but input has dtype{_dname(input.dtype)} and {what} has dtype "
                               f"{_dname(t.dtype)}")
    _check_kernel_dtype(input, "ormqr_cpu")
    size = input.shape[-2]

    def fn(a, t, c):
        Q = _reflectors_q(a, t, size)
        Q = _mT(Q) if transpose else Q
        return Q @ c if left else c @ Q

    return _one_node("OrmqrBackward0", fn, input, tau, other)


# Under vmap these run once on the physical tensors, the batch one more leading dim.
matrix_power = _vmap_leading(matrix_power)
matrix_exp = _vmap_leading(matrix_exp)
householder_product = _vmap_leading(householder_product)
ormqr = _vmap_leading(ormqr)
_T_GEQRF = _tuple_type("geqrf", ("a", "tau"))


def _geqrf_method(self):
    """`gradrs.geqrf(self)`."""
    return geqrf(self)


def _orgqr_method(self, input2):
    """`gradrs.orgqr(self, input2)`."""
    return orgqr(self, input2)


def _ormqr_method(self, input2, input3, left=True, transpose=False):
    """`gradrs.ormqr(self, input2, input3, left, transpose)`."""
    return ormqr(self, input2, input3, left, transpose)


for _name, _fn in (("geqrf", _geqrf_method), ("orgqr", _orgqr_method),
                   ("ormqr", _ormqr_method)):
    _fn.__name__ = _fn.__qualname__ = _name
    setattr(_native.Tensor, _name, _fn)
