"""torch.distributions.LogNormal: exp of a Normal."""

from __future__ import annotations

from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform

__all__ = ["LogNormal"]


class LogNormal(TransformedDistribution):
    """A log-normal distribution: `X ~ Normal(loc, scale)`, `Y = exp(X) ~ LogNormal(loc, scale)`.

    Args:
        loc (float or Tensor): the mean of log of the distribution.
        scale (float or Tensor): the standard deviation of log of the distribution.

    >>> m = gradrs.distributions.LogNormal(gradrs.tensor([0.0]), gradrs.tensor([1.0]))
    >>> m.log_prob(gradrs.tensor([2.0])), m.mean
    (tensor([-1.8523]), tensor([1.6487]))
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base_dist = Normal(loc, scale, validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to `batch_shape`."""
        new = self._get_checked_instance(LogNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def loc(self):
        """The base Normal's loc."""
        return self.base_dist.loc

    @property
    def scale(self):
        """The base Normal's scale."""
        return self.base_dist.scale

    @property
    def mean(self):
        """`exp(loc + scale**2 / 2)`."""
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self):
        """`exp(loc - scale**2)`."""
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self):
        """`(exp(scale**2) - 1) exp(2 loc + scale**2)`."""
        scale_sq = self.scale.pow(2)
        return scale_sq.expm1() * (2 * self.loc + scale_sq).exp()

    def entropy(self):
        """The base entropy plus `loc`."""
        return self.base_dist.entropy() + self.loc
