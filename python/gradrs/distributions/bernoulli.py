"""torch.distributions.Bernoulli: 0/1 outcomes with given probs or logits."""

from __future__ import annotations

import math

import gradrs
from gradrs.nn.functional import binary_cross_entropy_with_logits

from . import constraints
from .exp_family import ExponentialFamily
from .utils import _EMPTY_SIZE, _Number, broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Bernoulli"]


class Bernoulli(ExponentialFamily):
    """A Bernoulli distribution: 1 with probability `probs` (or `sigmoid(logits)`), else 0.

    Args:
        probs (Number, Tensor): the probability of sampling 1.
        logits (Number, Tensor): the log-odds of sampling 1.

    >>> m = gradrs.distributions.Bernoulli(gradrs.tensor([0.3]))
    >>> m.log_prob(gradrs.tensor([1.0])), m.entropy()
    (tensor([-1.2040]), tensor([0.6109]))
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            is_scalar = isinstance(probs, _Number)
            (self.probs,) = broadcast_all(probs)
        else:
            is_scalar = isinstance(logits, _Number)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        batch_shape = gradrs.Size() if is_scalar else self._param.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to `batch_shape`."""
        new = self._get_checked_instance(Bernoulli, _instance)
        batch_shape = gradrs.Size(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        super(Bernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @property
    def mean(self):
        """`probs`."""
        return self.probs

    @property
    def mode(self):
        """1 where `probs > 0.5`, 0 below, NaN at exactly 0.5."""
        mode = (self.probs >= 0.5).to(self.probs)
        mode[self.probs == 0.5] = math.nan
        return mode

    @property
    def variance(self):
        """`probs * (1 - probs)`."""
        return self.probs * (1 - self.probs)

    @lazy_property
    def logits(self):
        """The log-odds of 1."""
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        """The probability of 1."""
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        """The shape of `probs` / `logits`."""
        return self._param.size()

    def sample(self, sample_shape=_EMPTY_SIZE):
        """A 0/1 sample drawn with `gradrs.bernoulli(probs)`."""
        shape = self._extended_shape(sample_shape)
        with gradrs.no_grad():
            return gradrs.bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        """The log probability of `value` (0 or 1)."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        """The entropy, computed as a binary cross-entropy."""
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand=True):
        """The values 0 and 1 along dim 0, broadcast over the batch shape."""
        values = gradrs.arange(2, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + self._batch_shape)
        return values

    @property
    def _natural_params(self):
        return (gradrs.logit(self.probs),)

    def _log_normalizer(self, x):
        return gradrs.log1p(gradrs.exp(x))
