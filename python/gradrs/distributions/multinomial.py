"""torch.distributions.Multinomial: category counts of `total_count` categorical draws."""

from __future__ import annotations

import math

import gradrs

from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .utils import _EMPTY_SIZE, broadcast_all, probs_to_logits

__all__ = ["Multinomial"]


def _binomial_log_prob(total_count, logits, value):
    # Binomial(total_count, logits).log_prob(value), the way PyTorch's Binomial computes it
    # (gradrs has no Binomial: its sampler would need a native binomial kernel).
    log_factorial_n = gradrs.lgamma(total_count + 1)
    log_factorial_k = gradrs.lgamma(value + 1)
    log_factorial_nmk = gradrs.lgamma(total_count - value + 1)
    clamped = (logits.clamp(min=0) + logits - logits.clamp(max=0)) / 2
    normalize_term = (
        total_count * clamped
        + total_count * gradrs.log1p(gradrs.exp(-gradrs.abs(logits)))
        - log_factorial_n
    )
    return value * logits - log_factorial_k - log_factorial_nmk - normalize_term


class Multinomial(Distribution):
    """A multinomial distribution: the counts per category of `total_count` draws from a
    categorical with `probs` or `logits` (not both; normalized along the last dim as for
    `Categorical`). `sample` needs one shared `total_count`; `log_prob` accepts any counts.

    Args:
        total_count (int): the number of trials.
        probs (Tensor): event probabilities.
        logits (Tensor): event log probabilities (unnormalized).

    >>> m = gradrs.distributions.Multinomial(100, gradrs.tensor([1.0, 1.0, 1.0, 1.0]))
    >>> m.sample().sum()
    tensor(100.)
    >>> counts = gradrs.tensor([10.0, 10.0, 30.0, 50.0])  # total_count unneeded without checks
    >>> gradrs.distributions.Multinomial(probs=gradrs.ones(4), validate_args=False).log_prob(counts)
    tensor(-28.2349)
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    @property
    def mean(self):
        """`probs * total_count`."""
        return self.probs * self.total_count

    @property
    def variance(self):
        """`total_count * probs * (1 - probs)`."""
        return self.total_count * self.probs * (1 - self.probs)

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to `batch_shape`."""
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = gradrs.Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        super(Multinomial, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        """Nonnegative integer counts summing to at most `total_count`."""
        return constraints.multinomial(self.total_count)

    @property
    def logits(self):
        """Normalized log probabilities."""
        return self._categorical.logits

    @property
    def probs(self):
        """Normalized probabilities."""
        return self._categorical.probs

    @property
    def param_shape(self):
        """The shape of `probs` / `logits`."""
        return self._categorical.param_shape

    def sample(self, sample_shape=_EMPTY_SIZE):
        """`total_count` categorical draws, counted per category (as float counts)."""
        sample_shape = gradrs.Size(sample_shape)
        samples = self._categorical.sample(gradrs.Size((self.total_count,)) + sample_shape)
        # samples.shape is (total_count, sample_shape, batch_shape): move the trials last.
        shifted_idx = list(range(samples.dim()))
        shifted_idx.append(shifted_idx.pop(0))
        samples = samples.permute(*shifted_idx)
        counts = samples.new(self._extended_shape(sample_shape)).zero_()
        counts.scatter_add_(-1, samples, gradrs.ones_like(samples))
        return counts.type_as(self.probs)

    def entropy(self):
        """The entropy, from the categorical entropy and the per-category binomials."""
        n = gradrs.tensor(self.total_count)
        cat_entropy = self._categorical.entropy()
        term1 = n * cat_entropy - gradrs.lgamma(n + 1)
        probs = self.probs
        support = gradrs.arange(1 + self.total_count, dtype=probs.dtype, device=probs.device)
        support = support.view((-1,) + (1,) * probs.dim())[1:]
        binomial_logits = probs_to_logits(probs, is_binary=True)
        total_count = gradrs.tensor(float(self.total_count), dtype=probs.dtype)
        binomial_probs = gradrs.exp(_binomial_log_prob(total_count, binomial_logits, support))
        weights = gradrs.lgamma(support + 1)
        term2 = (binomial_probs * weights).sum([0, -1])
        return term1 + term2

    def log_prob(self, value):
        """`lgamma(n + 1) - sum(lgamma(x + 1)) + sum(x * logits)` for counts `x`."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        logits = logits.clone()  # a writable copy (broadcast_all may return expanded views)
        log_factorial_n = gradrs.lgamma(value.sum(-1) + 1)
        log_factorial_xs = gradrs.lgamma(value + 1).sum(-1)
        logits[(value == 0) & (logits == -math.inf)] = 0
        log_powers = (logits * value).sum(-1)
        return log_factorial_n - log_factorial_xs + log_powers
