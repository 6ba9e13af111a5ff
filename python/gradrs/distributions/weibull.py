"""torch.distributions.Weibull: the two-parameter Weibull, built on Exponential."""

from __future__ import annotations

import gradrs

from . import constraints
from .exponential import Exponential
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .utils import broadcast_all, euler_constant

__all__ = ["Weibull"]


class Weibull(TransformedDistribution):
    """A two-parameter Weibull distribution: `scale * X ** (1 / concentration)` for
    `X ~ Exponential(1)`.

    Args:
        scale (float or Tensor): the scale (lambda).
        concentration (float or Tensor): the shape (k).

    >>> m = gradrs.distributions.Weibull(gradrs.tensor([1.0]), gradrs.tensor([2.0]))
    >>> m.log_prob(gradrs.tensor([1.0])), m.mean
    (tensor([-0.3069]), tensor([0.8862]))
    """

    arg_constraints = {
        "scale": constraints.positive,
        "concentration": constraints.positive,
    }
    support = constraints.positive

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base_dist = Exponential(gradrs.ones_like(self.scale), validate_args=validate_args)
        transforms = [
            PowerTransform(exponent=self.concentration_reciprocal),
            AffineTransform(loc=0, scale=self.scale),
        ]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to `batch_shape`."""
        new = self._get_checked_instance(Weibull, _instance)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.concentration_reciprocal = new.concentration.reciprocal()
        base_dist = self.base_dist.expand(batch_shape)
        transforms = [
            PowerTransform(exponent=new.concentration_reciprocal),
            AffineTransform(loc=0, scale=new.scale),
        ]
        super(Weibull, new).__init__(base_dist, transforms, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        """`scale * Gamma(1 + 1 / concentration)`."""
        return self.scale * gradrs.exp(gradrs.lgamma(1 + self.concentration_reciprocal))

    @property
    def mode(self):
        """`scale * ((k - 1) / k) ** (1 / k)`."""
        return (
            self.scale
            * ((self.concentration - 1) / self.concentration) ** self.concentration.reciprocal()
        )

    @property
    def variance(self):
        """`scale**2 (Gamma(1 + 2/k) - Gamma(1 + 1/k)**2)`."""
        return self.scale.pow(2) * (
            gradrs.exp(gradrs.lgamma(1 + 2 * self.concentration_reciprocal))
            - gradrs.exp(2 * gradrs.lgamma(1 + self.concentration_reciprocal))
        )

    def entropy(self):
        """`euler_constant (1 - 1/k) + log(scale / k) + 1`."""
        return (
            euler_constant * (1 - self.concentration_reciprocal)
            + gradrs.log(self.scale * self.concentration_reciprocal)
            + 1
        )
