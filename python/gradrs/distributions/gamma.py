"""torch.distributions.Gamma: shape/rate Gamma distribution, sampled by `_standard_gamma`."""

from __future__ import annotations

import gradrs

from . import constraints
from .exp_family import ExponentialFamily
from .utils import _EMPTY_SIZE, _Number, broadcast_all

__all__ = ["Gamma"]


def _standard_gamma(concentration):
    return gradrs._standard_gamma(concentration)


class Gamma(ExponentialFamily):
    """A Gamma distribution with shape `concentration` (alpha) and `rate` (beta = 1 / scale).

    Args:
        concentration (float or Tensor): the shape parameter.
        rate (float or Tensor): the rate parameter.

    >>> m = gradrs.distributions.Gamma(gradrs.tensor([2.0]), gradrs.tensor([3.0]))
    >>> m.log_prob(gradrs.tensor([0.5])), m.mean
    (tensor([0.0041]), tensor([0.6667]))
    """

    arg_constraints = {
        "concentration": constraints.positive,
        "rate": constraints.positive,
    }
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def mean(self):
        """`concentration / rate`."""
        return self.concentration / self.rate

    @property
    def mode(self):
        """`(concentration - 1) / rate`, at least 0."""
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        """`concentration / rate ** 2`."""
        return self.concentration / self.rate.pow(2)

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        if isinstance(concentration, _Number) and isinstance(rate, _Number):
            batch_shape = gradrs.Size()
        else:
            batch_shape = self.concentration.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to `batch_shape`."""
        new = self._get_checked_instance(Gamma, _instance)
        batch_shape = gradrs.Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Gamma, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=_EMPTY_SIZE):
        """Standard Gamma draws (differentiable in the concentration through
        `_standard_gamma_grad`) divided by `rate`, kept at or above the dtype's tiny."""
        shape = self._extended_shape(sample_shape)
        value = _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        # The clamp writes through a detached alias, so autograd does not record it.
        value.detach().clamp_(min=gradrs.finfo(value.dtype).tiny)
        return value

    def log_prob(self, value):
        """`a log(rate) + (a - 1) log(value) - rate value - lgamma(a)`."""
        value = gradrs.as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        return (
            gradrs.xlogy(self.concentration, self.rate)
            + gradrs.xlogy(self.concentration - 1, value)
            - self.rate * value
            - gradrs.lgamma(self.concentration)
        )

    def cdf(self, value):
        """The regularized lower incomplete gamma function `gammainc(a, rate * value)`."""
        if self._validate_args:
            self._validate_sample(value)
        return gradrs.igamma(self.concentration, self.rate * value)

    def entropy(self):
        """`a - log(rate) + lgamma(a) + (1 - a) digamma(a)`."""
        return (
            self.concentration
            - gradrs.log(self.rate)
            + gradrs.lgamma(self.concentration)
            + (1.0 - self.concentration) * gradrs.digamma(self.concentration)
        )

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return gradrs.lgamma(x + 1) + (x + 1) * gradrs.log(-y.reciprocal())
