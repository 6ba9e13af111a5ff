"""torch.distributions.Cauchy: the Cauchy (Lorentz) distribution."""

from __future__ import annotations

import math

import gradrs

from . import constraints
from .distribution import Distribution
from .utils import _EMPTY_SIZE, _Number, broadcast_all

__all__ = ["Cauchy"]


class Cauchy(Distribution):
    """A Cauchy (Lorentz) distribution: the ratio of two independent zero-mean normals.

    Args:
        loc (float or Tensor): the mode or median.
        scale (float or Tensor): the half width at half maximum.

    >>> m = gradrs.distributions.Cauchy(gradrs.tensor([0.0]), gradrs.tensor([1.0]))
    >>> m.log_prob(gradrs.tensor([1.0])), m.cdf(gradrs.tensor([1.0]))
    (tensor([-1.8379]), tensor([0.7500]))
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        if isinstance(loc, _Number) and isinstance(scale, _Number):
            batch_shape = gradrs.Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to `batch_shape`."""
        new = self._get_checked_instance(Cauchy, _instance)
        batch_shape = gradrs.Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        super(Cauchy, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        """NaN (undefined)."""
        return gradrs.full(
            self._extended_shape(), math.nan, dtype=self.loc.dtype, device=self.loc.device
        )

    @property
    def mode(self):
        """`loc`."""
        return self.loc

    @property
    def variance(self):
        """inf."""
        return gradrs.full(
            self._extended_shape(), math.inf, dtype=self.loc.dtype, device=self.loc.device
        )

    def rsample(self, sample_shape=_EMPTY_SIZE):
        """`loc + eps * scale` with `eps` a standard Cauchy sample (`cauchy_()`)."""
        shape = self._extended_shape(sample_shape)
        eps = self.loc.new(shape).cauchy_()
        return self.loc + eps * self.scale

    def log_prob(self, value):
        """`-log(pi) - log(scale) - log1p(((value - loc) / scale) ** 2)`."""
        if self._validate_args:
            self._validate_sample(value)
        return -math.log(math.pi) - self.scale.log() - (((value - self.loc) / self.scale) ** 2).log1p()

    def cdf(self, value):
        """`atan((value - loc) / scale) / pi + 0.5`."""
        if self._validate_args:
            self._validate_sample(value)
        return gradrs.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        """`tan(pi (value - 0.5)) * scale + loc`."""
        return gradrs.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        """`log(4 pi) + log(scale)`."""
        return math.log(4 * math.pi) + self.scale.log()
