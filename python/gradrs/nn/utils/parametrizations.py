"""Ready-made parametrizations (PyTorch's `torch.nn.utils.parametrizations`): `weight_norm` and
`spectral_norm`. `orthogonal` is not here: it needs matrix_exp / householder_product / QR,
which gradrs does not have yet."""

from ... import _native, dot, empty, mv, no_grad
from .. import functional as F
from ..modules.module import Module
from . import parametrize
from .weight_norm import _weight_norm, norm_except_dim

__all__ = ["spectral_norm", "weight_norm"]


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
