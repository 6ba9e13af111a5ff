"""torch.distributions.Gumbel: the type-I extreme value distribution, built on Uniform."""

from __future__ import annotations

import math

import gradrs

from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .uniform import Uniform
from .utils import _Number, broadcast_all, euler_constant

__all__ = ["Gumbel"]


class Gumbel(TransformedDistribution):
    """A Gumbel distribution: `loc - scale * log(-log(U))` for `U` uniform on (0, 1).

    Args:
        loc (float or Tensor): the location.
        scale (float or Tensor): the scale.

    >>> m = gradrs.distributions.Gumbel(gradrs.tensor([1.0]), gradrs.tensor([2.0]))
    >>> m.log_prob(gradrs.tensor([1.0])), m.mean
    (tensor([-1.6931]), tensor([2.1544]))
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        finfo = gradrs.finfo(self.loc.dtype)
        if isinstance(loc, _Number) and isinstance(scale, _Number):
            base_dist = Uniform(finfo.tiny, 1 - finfo.eps, validate_args=validate_args)
        else:
            base_dist = Uniform(
                gradrs.full_like(self.loc, finfo.tiny),
                gradrs.full_like(self.loc, 1 - finfo.eps),
                validate_args=validate_args,
            )
        transforms = [
            ExpTransform().inv,
            AffineTransform(loc=0, scale=-gradrs.ones_like(self.scale)),
            ExpTransform().inv,
            AffineTransform(loc=loc, scale=-self.scale),
        ]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to `batch_shape`."""
        new = self._get_checked_instance(Gumbel, _instance)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    # Explicitly defined to handle the case where value is +-inf.
    def log_prob(self, value):
        """`y - exp(y) - log(scale)` with `y = (loc - value) / scale`."""
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    @property
    def mean(self):
        """`loc + scale * euler_constant`."""
        return self.loc + self.scale * euler_constant

    @property
    def mode(self):
        """`loc`."""
        return self.loc

    @property
    def stddev(self):
        """`pi / sqrt(6) * scale`."""
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        """`stddev ** 2`."""
        return self.stddev.pow(2)

    def entropy(self):
        """`log(scale) + 1 + euler_constant`."""
        return self.scale.log() + (1 + euler_constant)
