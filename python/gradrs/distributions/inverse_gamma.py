"""torch.distributions.InverseGamma: the reciprocal of a Gamma variable."""

from __future__ import annotations

import math

import gradrs

from . import constraints
from .gamma import Gamma
from .transformed_distribution import TransformedDistribution
from .transforms import PowerTransform

__all__ = ["InverseGamma"]


class InverseGamma(TransformedDistribution):
    """An inverse Gamma distribution: `1 / X` for `X ~ Gamma(concentration, rate)`.

    Args:
        concentration (float or Tensor): the shape parameter.
        rate (float or Tensor): the scale parameter (the Gamma's rate).

    >>> m = gradrs.distributions.InverseGamma(gradrs.tensor([3.0]), gradrs.tensor([2.0]))
    >>> m.mean, m.mode
    (tensor([1.]), tensor([0.5000]))
    """

    arg_constraints = {
        "concentration": constraints.positive,
        "rate": constraints.positive,
    }
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base_dist = Gamma(concentration, rate, validate_args=validate_args)
        neg_one = -base_dist.rate.new_ones(())
        super().__init__(base_dist, PowerTransform(neg_one), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to `batch_shape`."""
        new = self._get_checked_instance(InverseGamma, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def concentration(self):
        """The shape parameter."""
        return self.base_dist.concentration

    @property
    def rate(self):
        """The scale parameter."""
        return self.base_dist.rate

    @property
    def mean(self):
        """`rate / (concentration - 1)`, inf where concentration <= 1."""
        result = self.rate / (self.concentration - 1)
        return gradrs.where(self.concentration > 1, result, math.inf)

    @property
    def mode(self):
        """`rate / (concentration + 1)`."""
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        """`rate ** 2 / ((a - 1) ** 2 (a - 2))`, inf where a <= 2."""
        result = self.rate.square() / (
            (self.concentration - 1).square() * (self.concentration - 2)
        )
        return gradrs.where(self.concentration > 2, result, math.inf)

    def entropy(self):
        """`a + log(rate) + lgamma(a) - (1 + a) digamma(a)`."""
        return (
            self.concentration
            + self.rate.log()
            + self.concentration.lgamma()
            - (1 + self.concentration) * self.concentration.digamma()
        )
