"""torch.distributions.Geometric: the number of failures before the first success."""

from __future__ import annotations

import gradrs
from gradrs.nn.functional import binary_cross_entropy_with_logits

from . import constraints
from .distribution import Distribution
from .utils import (
    _EMPTY_SIZE,
    _Number,
    broadcast_all,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)

__all__ = ["Geometric"]


class Geometric(Distribution):
    """A geometric distribution, `P(X=k) = (1-p)^k p` for `k = 0, 1, ...`: the trial `k+1` is
    the first success (`Tensor.geometric_` counts from 1 instead).

    Args:
        probs (Number, Tensor): the probability of success, in (0, 1].
        logits (Number, Tensor): the log-odds of success.

    >>> m = gradrs.distributions.Geometric(gradrs.tensor([0.3]))
    >>> m.log_prob(gradrs.tensor([2.0])), m.mean
    (tensor([-1.9173]), tensor([2.3333]))
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
        else:
            (self.logits,) = broadcast_all(logits)
        probs_or_logits = probs if probs is not None else logits
        if isinstance(probs_or_logits, _Number):
            batch_shape = gradrs.Size()
        else:
            batch_shape = probs_or_logits.size()
        super().__init__(batch_shape, validate_args=validate_args)
        if self._validate_args and probs is not None:
            # Add an extra check beyond unit_interval: probs must be nonzero.
            value = self.probs
            valid = value > 0
            if not valid.all():
                invalid_value = value.data[~valid]
                raise ValueError(
                    "Expected parameter probs "
                    f"({type(value).__name__} of shape {tuple(value.shape)}) "
                    f"of distribution {self!r} "
                    f"to be positive but found invalid values:\n{invalid_value}"
                )

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to `batch_shape`."""
        new = self._get_checked_instance(Geometric, _instance)
        batch_shape = gradrs.Size(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
        super(Geometric, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        """`1 / probs - 1`."""
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        """0."""
        return gradrs.zeros_like(self.probs)

    @property
    def variance(self):
        """`(1 / probs - 1) / probs`."""
        return (1.0 / self.probs - 1.0) / self.probs

    @lazy_property
    def logits(self):
        """The log-odds of success."""
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        """The probability of success."""
        return logits_to_probs(self.logits, is_binary=True)

    def sample(self, sample_shape=_EMPTY_SIZE):
        """`floor(log(u) / log1p(-probs))` for `u` uniform on `[tiny, 1)`."""
        shape = self._extended_shape(sample_shape)
        tiny = gradrs.finfo(self.probs.dtype).tiny
        with gradrs.no_grad():
            u = self.probs.new(shape).uniform_(tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        """`value * log1p(-probs) + log(probs)` (0 at probs == 1, value == 0)."""
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = probs.clone()  # a writable copy (broadcast_all may return expanded views)
        probs[(probs == 1) & (value == 0)] = 0
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        """The binary entropy of `probs` divided by `probs`."""
        return (
            binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")
            / self.probs
        )
