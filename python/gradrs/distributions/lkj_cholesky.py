"""torch.distributions.LKJCholesky: the LKJ distribution over Cholesky factors of
correlation matrices, sampled by the onion method (as NumPyro and PyTorch do)."""

from __future__ import annotations

import math

import gradrs

from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import _EMPTY_SIZE, broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """The LKJ distribution of the lower Cholesky factor L of a `dim` x `dim` correlation
    matrix, with density proportional to `det(L L^T) ** (concentration - 1)`.

    Args:
        dim (int): the matrix size (at least 2).
        concentration (float or Tensor): the shape parameter eta.

    >>> m = gradrs.distributions.LKJCholesky(3, 0.5)
    >>> m.sample().shape
    gradrs.Size([3, 3])
    """

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(
                f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}."
            )
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.size()
        event_shape = gradrs.Size((dim, dim))
        # The Beta marginals of the onion method's squared radii (row i: Beta(i/2, eta + (d-2-i)/2)).
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = gradrs.arange(
            self.dim - 1, dtype=self.concentration.dtype, device=self.concentration.device
        )
        offset = gradrs.cat([offset.new_zeros((1,)), offset])
        beta_conc1 = offset + 0.5
        beta_conc0 = marginal_conc.unsqueeze(-1) - 0.5 * offset
        self._beta = Beta(beta_conc1, beta_conc0)
        super().__init__(batch_shape, event_shape, validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to `batch_shape`."""
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = gradrs.Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(batch_shape + (self.dim,))
        super(LKJCholesky, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=_EMPTY_SIZE):
        """Rows of L: a Beta-distributed squared length times a uniform direction (normals
        normalized) below the diagonal, the diagonal filling each row to unit norm."""
        y = self._beta.sample(sample_shape).unsqueeze(-1)
        u_normal = gradrs.randn(
            self._extended_shape(sample_shape), dtype=y.dtype, device=y.device
        ).tril(-1)
        u_hypersphere = u_normal / u_normal.norm(dim=-1, keepdim=True)
        # The first row is all zeros below the diagonal: 0 / 0 there is replaced.
        u_hypersphere[..., 0, :].fill_(0.0)
        w = gradrs.sqrt(y) * u_hypersphere
        eps = gradrs.finfo(w.dtype).tiny
        diag_elems = gradrs.clamp(1 - gradrs.sum(w**2, dim=-1), min=eps).sqrt()
        w += gradrs.diag_embed(diag_elems)
        return w

    def log_prob(self, value):
        """`sum_i (2 eta - 2 + dim - i) log L_ii` minus the LKJ normalizer."""
        if self._validate_args:
            self._validate_sample(value)
        diag_elems = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = gradrs.arange(2, self.dim + 1, device=self.concentration.device)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized_log_pdf = gradrs.sum(order * diag_elems.log(), dim=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = gradrs.lgamma(alpha) * dm1
        numerator = gradrs.mvlgamma(alpha - 0.5, dm1)
        # mvlgamma's pi term is (D - 1)(D - 2) / 4 log(pi); the normalizer's is D (D - 1) / 4.
        pi_constant = 0.5 * dm1 * math.log(math.pi)
        normalize_term = pi_constant + numerator - denominator
        return unnormalized_log_pdf - normalize_term
