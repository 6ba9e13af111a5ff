"""Ready-made parametrizations (PyTorch's `torch.nn.utils.parametrizations`): `orthogonal`,
`weight_norm` and `spectral_norm`."""

from enum import Enum, auto

import numpy as np

from ... import _native, dot, empty, mv, no_grad
from .. import functional as F
from ..modules.module import Module
from . import parametrize
from .weight_norm import _weight_norm, norm_except_dim

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


def _is_orthogonal(Q):
    from ... import allclose, eye, finfo

    k = Q.size(-1)
    eps = 10.0 * Q.size(-2) * finfo(Q.dtype).eps
    return allclose(Q.mT @ Q, eye(k, dtype=Q.dtype, device=Q.device), atol=eps)


def _make_orthogonal(A):
    # The Q factor of A = QR with diag(R) >= 0 (unique for a full-rank A): PyTorch takes it from
    # geqrf + householder_product, the same Q as linalg.qr's with R's diagonal signs folded in.
    from ... import linalg

    Q, R = linalg.qr(A)
    return Q * R.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


def _geqrf(A):
    """LAPACK geqrf of each matrix of A (numpy's QR in raw mode): the reflectors below the
    diagonal, R on and above it, and the scalar factors tau."""
    from ... import tensor

    a = A.detach().cpu().numpy()
    flat = a.reshape(-1, *a.shape[-2:])
    out = np.empty_like(flat)
    taus = np.empty((flat.shape[0], min(a.shape[-2:])), dtype=a.dtype)
    for i, m in enumerate(flat):
        h, taus[i] = np.linalg.qr(m, mode="raw")
        out[i] = h.T
    return (tensor(out.reshape(a.shape), dtype=A.dtype, device=A.device),
            tensor(taus.reshape(*a.shape[:-2], -1), dtype=A.dtype, device=A.device))


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        from ... import cat, eye, linalg, matrix_exp

        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            # Q = exp(A) or the Cayley map of the skew-symmetric A built from X's lower triangle.
            X = X.tril()
            if n != k:
                X = cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mT
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = matrix_exp(A)
            else:
                Id = eye(n, dtype=A.dtype, device=A.device)
                Q = linalg.solve(Id.add(A, alpha=-0.5), Id.add(A, alpha=0.5))
            if n != k:
                Q = Q[..., :k]
        else:
            # X's strictly lower part holds Householder vectors; its diagonal, their signs.
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = linalg.householder_product(A, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q):
        with no_grad():
            return self._right_inverse(Q)

    def _right_inverse(self, Q):
        from ... import cat, randn, zeros_like

        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        Q_init = Q
        n, k = Q.size(-2), Q.size(-1)
        transpose = n < k
        if transpose:
            Q = Q.mT
            n, k = k, n
        if not hasattr(self, "base"):
            if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                raise NotImplementedError(
                    "It is not possible to assign to the matrix exponential "
                    "or the Cayley parametrizations when use_trivialization=False.")
            # The Householder vectors of Q, with the signs of R's diagonal on the diagonal (a
            # reflector with tau == 0 is the identity: its sign flips).
            A, tau = _geqrf(Q)
            A.diagonal(dim1=-2, dim2=-1).sign_()
            A.diagonal(dim1=-2, dim2=-1)[tau == 0.0] *= -1
            return A.mT if transpose else A
        if n == k:
            Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
        else:
            # Complete the k orthonormal columns to an n x n orthogonal base.
            N = randn(*(Q.size()[:-2] + (n, n - k)), dtype=Q.dtype, device=Q.device)
            Q = _make_orthogonal(cat([Q, N], dim=-1))
        self.base = Q
        # With base = Q, forward(-I) = Q @ exp(0)... : -I maps to Q itself.
        neg_Id = zeros_like(Q_init)
        neg_Id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_Id


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    r"""Parametrize ``module.<name>`` (a matrix or a batch of matrices) as orthogonal:
    orthonormal columns when it is tall, orthonormal rows when it is wide.

    ``orthogonal_map``: ``"matrix_exp"`` or ``"cayley"`` (of a skew-symmetric matrix), or
    ``"householder"`` (a product of reflectors); default ``"matrix_exp"`` for square matrices,
    ``"householder"`` otherwise. With ``use_trivialization`` (default) the orthogonal matrix
    the weight starts from is kept in the buffer ``base`` of the parametrization, and the
    weight starts as itself when orthogonal, as its QR's Q factor otherwise.

    Examples:
        >>> m = gradrs.nn.utils.parametrizations.orthogonal(gradrs.nn.Linear(3, 3))
        >>> gradrs.allclose(m.weight @ m.weight.T, gradrs.eye(3), atol=1e-6)
        True
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, _native.Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. "
                         f"Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.size(-2) == weight.size(-1) else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        if dim is None:
            dim = -1
        self.dim = dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        weight_g = norm_except_dim(weight, 2, self.dim)
        weight_v = weight
        return weight_g, weight_v


def weight_norm(module, name="weight", dim=0):
    r"""Parametrize ``module.<name>`` as ``g * v / ||v||`` (``original0`` = g, the norm over
    every dimension but ``dim``; ``original1`` = v). Checkpoints of the hook-based
    :func:`gradrs.nn.utils.weight_norm` (``name_g`` / ``name_v``) load into it.

    Examples:
        >>> m = gradrs.nn.utils.parametrizations.weight_norm(gradrs.nn.Linear(3, 2))
        >>> sorted(n for n, _ in m.named_parameters())
        ['bias', 'parametrizations.weight.original0', 'parametrizations.weight.original1']
    """
    _weight_norm_module = _WeightNorm(dim)
    parametrize.register_parametrization(module, name, _weight_norm_module, unsafe=True)

    def _weight_norm_compat_hook(state_dict, prefix, local_metadata, strict, missing_keys,
                                 unexpected_keys, error_msgs):
        g_key = f"{prefix}{name}_g"
        v_key = f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            original0 = state_dict.pop(g_key)
            original1 = state_dict.pop(v_key)
            state_dict[f"{prefix}parametrizations.{name}.original0"] = original0
            state_dict[f"{prefix}parametrizations.{name}.original1"] = original1

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            # u and v: random unit vectors drawn from the default stream, as PyTorch draws
            # them, then 15 power iterations.
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = empty(h, dtype=weight.dtype, device=weight.device).normal_(0, 1)
            v = empty(w, dtype=weight.dtype, device=weight.device).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        # Precondition: weight.ndim > 1.
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        # u and v are updated in place (they are buffers; DataParallel relies on it in
        # PyTorch), without recording history.
        with no_grad():
            for _ in range(n_power_iterations):
                self._u = F.normalize(mv(weight_mat, self._v), dim=0, eps=self.eps,
                                      out=self._u)
                self._v = F.normalize(mv(weight_mat.t(), self._u), dim=0,
                                      eps=self.eps, out=self._v)

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        # Clones: the next power iteration writes u and v in place, and autograd saved them.
        u = self._u.clone()
        v = self._v.clone()
        sigma = dot(u, mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value):
        # Any value is its own preimage: the parametrization divides by the spectral norm.
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    r"""Parametrize ``module.<name>`` divided by its spectral norm, estimated by power
    iteration (``n_power_iterations`` per forward in training mode; buffers ``_u``/``_v`` of
    the parametrization). ``dim``: the output dimension (1 for transposed convolutions).

    Examples:
        >>> m = gradrs.nn.utils.parametrizations.spectral_norm(gradrs.nn.Linear(3, 2))
        >>> sorted(n for n, _ in m.named_parameters())
        ['bias', 'parametrizations.weight.original']
    """
    from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d

    weight = getattr(module, name, None)
    if not isinstance(weight, _native.Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
