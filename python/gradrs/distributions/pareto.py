"""torch.distributions.Pareto: the Pareto type 1 distribution, built on Exponential."""

from __future__ import annotations

from . import constraints
from .exponential import Exponential
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .utils import broadcast_all

__all__ = ["Pareto"]


class Pareto(TransformedDistribution):
    """A Pareto type 1 distribution: `scale * exp(X)` for `X ~ Exponential(alpha)`.

    Args:
        scale (float or Tensor): the scale.
        alpha (float or Tensor): the shape (tail index).

    >>> m = gradrs.distributions.Pareto(gradrs.tensor([1.0]), gradrs.tensor([2.0]))
    >>> m.log_prob(gradrs.tensor([2.0])), m.mean
    (tensor([-1.3863]), tensor([2.]))
    """

    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}

    def __init__(self, scale, alpha, validate_args=None):
        self.scale, self.alpha = broadcast_all(scale, alpha)
        base_dist = Exponential(self.alpha, validate_args=validate_args)
        transforms = [ExpTransform(), AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to `batch_shape`."""
        new = self._get_checked_instance(Pareto, _instance)
        new.scale = self.scale.expand(batch_shape)
        new.alpha = self.alpha.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        """`alpha * scale / (alpha - 1)` (inf for alpha <= 1)."""
        # mean is inf for alpha <= 1
        a = self.alpha.clamp(min=1)
        return a * self.scale / (a - 1)

    @property
    def mode(self):
        """`scale`."""
        return self.scale

    @property
    def variance(self):
        """`scale**2 alpha / ((alpha - 1)**2 (alpha - 2))` (inf for alpha <= 2)."""
        # var is inf for alpha <= 2
        a = self.alpha.clamp(min=2)
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        """`[scale, inf)`."""
        return constraints.greater_than_eq(self.scale)

    def entropy(self):
        """`log(scale / alpha) + 1 + 1 / alpha`."""
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())
