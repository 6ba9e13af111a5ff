"""torch.distributions.Binomial: counts of successes in `total_count` trials, sampled by
`gradrs.binomial`."""

from __future__ import annotations

import gradrs

from . import constraints
from ._trials import _TrialsDistribution
from .utils import _EMPTY_SIZE

__all__ = ["Binomial"]


def _clamp_by_zero(x):
    # max(x, 0) whose gradient at 0 is 1/2, as PyTorch writes it.
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(_TrialsDistribution):
    """A binomial distribution of `total_count` trials with success probability `probs`
    (or log-odds `logits`).

    Args:
        total_count (int or Tensor): the number of trials.
        probs (Tensor): the success probabilities.
        logits (Tensor): the success log-odds.

    >>> m = gradrs.distributions.Binomial(10, gradrs.tensor([0.25]))
    >>> m.mean, m.variance
    (tensor([2.5000]), tensor([1.8750]))
    """

    arg_constraints = {
        "total_count": constraints.nonnegative_integer,
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        super().__init__(total_count, probs, logits, validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to `batch_shape`."""
        return self._expand_params(Binomial, batch_shape, _instance)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        """The integers 0 ... total_count."""
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        """`total_count probs`."""
        return self.total_count * self.probs

    @property
    def mode(self):
        """`floor((total_count + 1) probs)`, at most total_count."""
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        """`total_count probs (1 - probs)`."""
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=_EMPTY_SIZE):
        """Binomial draws (`gradrs.binomial`), not differentiable."""
        shape = self._extended_shape(sample_shape)
        with gradrs.no_grad():
            return gradrs.binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        """`log C(n, k) + k logits - n log(1 + exp(logits))`, written stably."""
        if self._validate_args:
            self._validate_sample(value)
        log_factorial_n = gradrs.lgamma(self.total_count + 1)
        log_factorial_k = gradrs.lgamma(value + 1)
        log_factorial_nmk = gradrs.lgamma(self.total_count - value + 1)
        normalize_term = (
            self.total_count * _clamp_by_zero(self.logits)
            + self.total_count * gradrs.log1p(gradrs.exp(-gradrs.abs(self.logits)))
            - log_factorial_n
        )
        return value * self.logits - log_factorial_k - log_factorial_nmk - normalize_term

    def entropy(self):
        """The entropy by enumerating the support (one total_count for every batch entry)."""
        total_count = int(self.total_count.max())
        if not self.total_count.min() == total_count:
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(gradrs.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand=True):
        """0 ... total_count along a new leading dim."""
        total_count = int(self.total_count.max())
        if not self.total_count.min() == total_count:
            raise NotImplementedError(
                "Inhomogeneous total count not supported by `enumerate_support`."
            )
        values = gradrs.arange(1 + total_count, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + self._batch_shape)
        return values
