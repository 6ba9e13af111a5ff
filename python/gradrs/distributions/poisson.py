"""torch.distributions.Poisson: counts with a given rate."""

from __future__ import annotations

import gradrs

from . import constraints
from .exp_family import ExponentialFamily
from .utils import _EMPTY_SIZE, _Number, broadcast_all

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    """A Poisson distribution with rate `rate`: `P(k) = rate**k exp(-rate) / k!`.

    Args:
        rate (Number, Tensor): the rate.

    >>> m = gradrs.distributions.Poisson(gradrs.tensor([4.0]))
    >>> m.log_prob(gradrs.tensor([3.0]))
    tensor([-1.6329])
    """

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    @property
    def mean(self):
        """`rate`."""
        return self.rate

    @property
    def mode(self):
        """`floor(rate)`."""
        return self.rate.floor()

    @property
    def variance(self):
        """`rate`."""
        return self.rate

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        batch_shape = gradrs.Size() if isinstance(rate, _Number) else self.rate.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to `batch_shape`."""
        new = self._get_checked_instance(Poisson, _instance)
        batch_shape = gradrs.Size(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Poisson, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=_EMPTY_SIZE):
        """Counts drawn with `gradrs.poisson(rate)`."""
        shape = self._extended_shape(sample_shape)
        with gradrs.no_grad():
            return gradrs.poisson(self.rate.expand(shape))

    def log_prob(self, value):
        """`value * log(rate) - rate - lgamma(value + 1)`."""
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()

    @property
    def _natural_params(self):
        return (gradrs.log(self.rate),)

    def _log_normalizer(self, x):
        return gradrs.exp(x)
