"""torch.distributions.Categorical: integers 0..K-1 with given probs or logits."""

from __future__ import annotations

import math

import gradrs

from . import constraints
from .distribution import Distribution
from .utils import _EMPTY_SIZE, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Categorical"]


class Categorical(Distribution):
    """A categorical distribution over `{0, ..., K-1}`, `K = probs.size(-1)`, given either
    `probs` or `logits` (not both); leading dims are batch dims.

    `probs` must be nonnegative, finite, with a nonzero sum; it is normalized to sum to 1
    along the last dim. `logits` are unnormalized log probabilities, normalized likewise.
    It is the distribution `gradrs.multinomial` samples from.

    Args:
        probs (Tensor): event probabilities.
        logits (Tensor): event log probabilities (unnormalized).

    >>> m = gradrs.distributions.Categorical(gradrs.tensor([0.25, 0.25, 0.5]))
    >>> m.entropy(), m.log_prob(gradrs.tensor(2))
    (tensor(1.0397), tensor(-0.6931))
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            # Normalize
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.ndimension() > 1 else gradrs.Size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to `batch_shape`."""
        new = self._get_checked_instance(Categorical, _instance)
        batch_shape = gradrs.Size(batch_shape)
        param_shape = batch_shape + gradrs.Size((self._num_events,))
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(param_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(param_shape)
            new._param = new.logits
        new._num_events = self._num_events
        super(Categorical, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        """The integers `0 .. K-1`."""
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self):
        """Normalized log probabilities."""
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        """Normalized probabilities."""
        return logits_to_probs(self.logits)

    @property
    def param_shape(self):
        """The shape of `probs` / `logits`."""
        return self._param.size()

    @property
    def mean(self):
        """NaN (a category has no mean), of the batch shape."""
        return gradrs.full(
            self._extended_shape(), math.nan, dtype=self.probs.dtype, device=self.probs.device
        )

    @property
    def mode(self):
        """The most probable category."""
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        """NaN, of the batch shape."""
        return gradrs.full(
            self._extended_shape(), math.nan, dtype=self.probs.dtype, device=self.probs.device
        )

    def sample(self, sample_shape=_EMPTY_SIZE):
        """Category indices drawn with `gradrs.multinomial(probs, n, replacement=True)`."""
        if not isinstance(sample_shape, gradrs.Size):
            sample_shape = gradrs.Size(sample_shape)
        probs_2d = self.probs.reshape(-1, self._num_events)
        samples_2d = gradrs.multinomial(probs_2d, sample_shape.numel(), True).T
        return samples_2d.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        """The log probability of the categories in `value`."""
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = gradrs.broadcast_tensors(value, self.logits)
        value = value[..., :1]
        return log_pmf.gather(-1, value).squeeze(-1)

    def entropy(self):
        """`-sum(p log p)` over the categories."""
        min_real = gradrs.finfo(self.logits.dtype).min
        logits = gradrs.clamp(self.logits, min=min_real)
        p_log_p = logits * self.probs
        return -p_log_p.sum(-1)

    def enumerate_support(self, expand=True):
        """The categories `0 .. K-1` along dim 0, broadcast over the batch shape."""
        num_events = self._num_events
        values = gradrs.arange(num_events, dtype=gradrs.long, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + self._batch_shape)
        return values
