"""torch.distributions.NegativeBinomial: failures before `total_count` successes, sampled
as a Gamma-Poisson mixture."""

from __future__ import annotations

import gradrs
import gradrs.nn.functional as F

from . import constraints
from ._trials import _TrialsDistribution
from .gamma import Gamma
from .utils import _EMPTY_SIZE, lazy_property

__all__ = ["NegativeBinomial"]


class NegativeBinomial(_TrialsDistribution):
    """A negative binomial distribution: the number of successes (probability `probs`, or
    log-odds `logits`) before `total_count` failures.

    Args:
        total_count (float or Tensor): the number of failures (a positive real).
        probs (Tensor): the success probabilities, in [0, 1).
        logits (Tensor): the success log-odds.

    >>> m = gradrs.distributions.NegativeBinomial(4.0, gradrs.tensor([0.5]))
    >>> m.mean, m.variance
    (tensor([4.]), tensor([8.]))
    """

    arg_constraints = {
        "total_count": constraints.greater_than_eq(0),
        "probs": constraints.half_open_interval(0.0, 1.0),
        "logits": constraints.real,
    }
    support = constraints.nonnegative_integer

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to `batch_shape`."""
        return self._expand_params(NegativeBinomial, batch_shape, _instance)

    @property
    def mean(self):
        """`total_count exp(logits)`."""
        return self.total_count * gradrs.exp(self.logits)

    @property
    def mode(self):
        """`floor((total_count - 1) exp(logits))`, at least 0."""
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        """`mean / sigmoid(-logits)`."""
        return self.mean / gradrs.sigmoid(-self.logits)

    @lazy_property
    def _gamma(self):
        # The mixing distribution; its arguments are valid by construction.
        return Gamma(
            concentration=self.total_count,
            rate=gradrs.exp(-self.logits),
            validate_args=False,
        )

    def sample(self, sample_shape=_EMPTY_SIZE):
        """A Poisson draw at a Gamma-distributed rate."""
        with gradrs.no_grad():
            rate = self._gamma.sample(sample_shape=sample_shape)
            return gradrs.poisson(rate)

    def log_prob(self, value):
        """`total_count logsigmoid(-logits) + value logsigmoid(logits) - log B-term`."""
        if self._validate_args:
            self._validate_sample(value)
        log_unnormalized_prob = self.total_count * F.logsigmoid(
            -self.logits
        ) + value * F.logsigmoid(self.logits)
        log_normalization = (
            -gradrs.lgamma(self.total_count + value)
            + gradrs.lgamma(1.0 + value)
            + gradrs.lgamma(self.total_count)
        )
        # The term vanishes where total_count + value == 0 (lgamma(0) would be inf).
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized_prob - log_normalization
