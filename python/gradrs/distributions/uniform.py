"""torch.distributions.Uniform: the half-open interval [low, high)."""

from __future__ import annotations

import math

import gradrs

from . import constraints
from .distribution import Distribution
from .utils import _EMPTY_SIZE, _Number, broadcast_all

__all__ = ["Uniform"]


class Uniform(Distribution):
    """Uniformly distributed samples from the half-open interval `[low, high)`.

    Args:
        low (float or Tensor): the lower bound (inclusive).
        high (float or Tensor): the upper bound (exclusive).

    >>> m = gradrs.distributions.Uniform(gradrs.tensor([0.0]), gradrs.tensor([5.0]))
    >>> m.log_prob(gradrs.tensor([1.0])), m.cdf(gradrs.tensor([1.0]))
    (tensor([-1.6094]), tensor([0.2000]))
    """

    has_rsample = True

    @property
    def arg_constraints(self):
        """`low < high` each way."""
        return {
            "low": constraints.less_than(self.high),
            "high": constraints.greater_than(self.low),
        }

    @property
    def mean(self):
        """`(high + low) / 2`."""
        return (self.high + self.low) / 2

    @property
    def mode(self):
        """NaN (every point is a mode)."""
        return math.nan * self.high

    @property
    def stddev(self):
        """`(high - low) / sqrt(12)`."""
        return (self.high - self.low) / 12**0.5

    @property
    def variance(self):
        """`(high - low) ** 2 / 12`."""
        return (self.high - self.low).pow(2) / 12

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        if isinstance(low, _Number) and isinstance(high, _Number):
            batch_shape = gradrs.Size()
        else:
            batch_shape = self.low.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to `batch_shape`."""
        new = self._get_checked_instance(Uniform, _instance)
        batch_shape = gradrs.Size(batch_shape)
        new.low = self.low.expand(batch_shape)
        new.high = self.high.expand(batch_shape)
        super(Uniform, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        """The interval `[low, high]`."""
        return constraints.interval(self.low, self.high)

    def rsample(self, sample_shape=_EMPTY_SIZE):
        """`low + u * (high - low)` with `u` drawn by `gradrs.rand`."""
        shape = self._extended_shape(sample_shape)
        rand = gradrs.rand(shape, dtype=self.low.dtype, device=self.low.device)
        return self.low + rand * (self.high - self.low)

    def log_prob(self, value):
        """`-log(high - low)` inside the interval, -inf outside."""
        if self._validate_args:
            self._validate_sample(value)
        lb = self.low.le(value).type_as(self.low)
        ub = self.high.gt(value).type_as(self.low)
        return gradrs.log(lb.mul(ub)) - gradrs.log(self.high - self.low)

    def cdf(self, value):
        """`(value - low) / (high - low)` clamped to [0, 1]."""
        if self._validate_args:
            self._validate_sample(value)
        result = (value - self.low) / (self.high - self.low)
        return result.clamp(min=0, max=1)

    def icdf(self, value):
        """`value * (high - low) + low`."""
        return value * (self.high - self.low) + self.low

    def entropy(self):
        """`log(high - low)`."""
        return gradrs.log(self.high - self.low)
