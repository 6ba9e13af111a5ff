"""torch.distributions.HalfCauchy: |X| for X ~ Cauchy(0, scale)."""

from __future__ import annotations

import math

import gradrs

from . import constraints
from .cauchy import Cauchy
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform

__all__ = ["HalfCauchy"]


class HalfCauchy(TransformedDistribution):
    """A half-Cauchy distribution: `X ~ Cauchy(0, scale)`, `Y = |X| ~ HalfCauchy(scale)`.

    Args:
        scale (float or Tensor): the scale of the full Cauchy distribution.

    >>> m = gradrs.distributions.HalfCauchy(gradrs.tensor([1.0]))
    >>> m.log_prob(gradrs.tensor([1.0])), m.cdf(gradrs.tensor([1.0]))
    (tensor([-1.1447]), tensor([0.5000]))
    """

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        base_dist = Cauchy(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to `batch_shape`."""
        new = self._get_checked_instance(HalfCauchy, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def scale(self):
        """The base Cauchy's scale."""
        return self.base_dist.scale

    @property
    def mean(self):
        """inf."""
        return gradrs.full(
            self._extended_shape(), math.inf, dtype=self.scale.dtype, device=self.scale.device
        )

    @property
    def mode(self):
        """0."""
        return gradrs.zeros_like(self.scale)

    @property
    def variance(self):
        """The base Cauchy's (inf)."""
        return self.base_dist.variance

    def log_prob(self, value):
        """The base log density plus log 2 for `value >= 0`, -inf below."""
        if self._validate_args:
            self._validate_sample(value)
        value = gradrs.as_tensor(
            value, dtype=self.base_dist.scale.dtype, device=self.base_dist.scale.device
        )
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return gradrs.where(value >= 0, log_prob, -math.inf)

    def cdf(self, value):
        """`2 * base.cdf(value) - 1`."""
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        """`base.icdf((prob + 1) / 2)`."""
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        """The base entropy minus log 2."""
        return self.base_dist.entropy() - math.log(2)
