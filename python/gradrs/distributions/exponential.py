"""torch.distributions.Exponential: rate-parameterized exponential distribution."""

from __future__ import annotations

import gradrs

from . import constraints
from .exp_family import ExponentialFamily
from .utils import _EMPTY_SIZE, _Number, broadcast_all

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    """An exponential distribution with rate `rate` (= 1 / scale).

    Args:
        rate (float or Tensor): the rate.

    >>> m = gradrs.distributions.Exponential(gradrs.tensor([2.0]))
    >>> m.log_prob(gradrs.tensor([1.0])), m.mean
    (tensor([-1.3069]), tensor([0.5000]))
    """

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def mean(self):
        """`1 / rate`."""
        return self.rate.reciprocal()

    @property
    def mode(self):
        """0."""
        return gradrs.zeros_like(self.rate)

    @property
    def stddev(self):
        """`1 / rate`."""
        return self.rate.reciprocal()

    @property
    def variance(self):
        """`rate ** -2`."""
        return self.rate.pow(-2)

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        batch_shape = gradrs.Size() if isinstance(rate, _Number) else self.rate.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to `batch_shape`."""
        new = self._get_checked_instance(Exponential, _instance)
        batch_shape = gradrs.Size(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Exponential, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=_EMPTY_SIZE):
        """A standard exponential sample (`exponential_()`) divided by `rate`."""
        shape = self._extended_shape(sample_shape)
        return self.rate.new(shape).exponential_() / self.rate

    def log_prob(self, value):
        """`log(rate) - rate * value`."""
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        """`1 - exp(-rate * value)`."""
        if self._validate_args:
            self._validate_sample(value)
        return 1 - gradrs.exp(-self.rate * value)

    def icdf(self, value):
        """`-log1p(-value) / rate`."""
        return -gradrs.log1p(-value) / self.rate

    def entropy(self):
        """`1 - log(rate)`."""
        return 1.0 - gradrs.log(self.rate)

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -gradrs.log(-x)
