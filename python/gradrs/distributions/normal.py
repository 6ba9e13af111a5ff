"""torch.distributions.Normal: the Gaussian with `loc` and `scale`."""

from __future__ import annotations

import math

import gradrs

from . import constraints
from .exp_family import ExponentialFamily
from .utils import _EMPTY_SIZE, _Number, _standard_normal, broadcast_all

__all__ = ["Normal"]


class Normal(ExponentialFamily):
    """A normal (Gaussian) distribution with mean `loc` and standard deviation `scale`.

    Args:
        loc (float or Tensor): the mean (mu).
        scale (float or Tensor): the standard deviation (sigma).

    >>> m = gradrs.distributions.Normal(gradrs.tensor([0.0]), gradrs.tensor([1.0]))
    >>> m
    Normal(loc: tensor([0.]), scale: tensor([1.]))
    >>> m.log_prob(gradrs.tensor([0.5]))
    tensor([-1.0439])
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def mean(self):
        """`loc`."""
        return self.loc

    @property
    def mode(self):
        """`loc`."""
        return self.loc

    @property
    def stddev(self):
        """`scale`."""
        return self.scale

    @property
    def variance(self):
        """`scale ** 2`."""
        return self.stddev.pow(2)

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        if isinstance(loc, _Number) and isinstance(scale, _Number):
            batch_shape = gradrs.Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to `batch_shape`."""
        new = self._get_checked_instance(Normal, _instance)
        batch_shape = gradrs.Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        super(Normal, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=_EMPTY_SIZE):
        """A sample drawn with `gradrs.normal(loc, scale)` (no gradient)."""
        shape = self._extended_shape(sample_shape)
        with gradrs.no_grad():
            return gradrs.normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape=_EMPTY_SIZE):
        """`loc + eps * scale` with `eps` a standard normal sample."""
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + eps * self.scale

    def log_prob(self, value):
        """The log density at `value`."""
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale**2
        log_scale = math.log(self.scale) if isinstance(self.scale, _Number) else self.scale.log()
        return -((value - self.loc) ** 2) / (2 * var) - log_scale - math.log(math.sqrt(2 * math.pi))

    def cdf(self, value):
        """The cumulative distribution function at `value`."""
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + gradrs.erf((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))

    def icdf(self, value):
        """The quantile function at `value`."""
        return self.loc + self.scale * gradrs.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        """`0.5 + 0.5 * log(2 pi) + log(scale)`."""
        return 0.5 + 0.5 * math.log(2 * math.pi) + gradrs.log(self.scale)

    @property
    def _natural_params(self):
        return (self.loc / self.scale.pow(2), -0.5 * self.scale.pow(2).reciprocal())

    def _log_normalizer(self, x, y):
        return -0.25 * x.pow(2) / y + 0.5 * gradrs.log(-math.pi / y)
