"""torch.distributions.LogisticNormal: a Normal mapped onto the simplex by stick breaking."""

from __future__ import annotations

from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import StickBreakingTransform

__all__ = ["LogisticNormal"]


class LogisticNormal(TransformedDistribution):
    """A logistic-normal distribution on the simplex: `X ~ Normal(loc, scale)`,
    `Y = StickBreakingTransform()(X)`, so `Y` has one more element than `X`.

    Args:
        loc (float or Tensor): the mean of the base distribution.
        scale (float or Tensor): the standard deviation of the base distribution.

    >>> m = gradrs.distributions.LogisticNormal(gradrs.zeros(2), gradrs.ones(2))
    >>> m.event_shape, m.log_prob(gradrs.tensor([0.2, 0.3, 0.5]))
    (gradrs.Size([3]), tensor(1.2980))
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base_dist = Normal(loc, scale, validate_args=validate_args)
        if not base_dist.batch_shape:
            base_dist = base_dist.expand([1])
        super().__init__(base_dist, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to `batch_shape`."""
        new = self._get_checked_instance(LogisticNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def loc(self):
        """The base Normal's loc."""
        return self.base_dist.base_dist.loc

    @property
    def scale(self):
        """The base Normal's scale."""
        return self.base_dist.base_dist.scale
