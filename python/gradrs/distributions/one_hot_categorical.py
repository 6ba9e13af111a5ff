"""torch.distributions.OneHotCategorical (and its straight-through variant): one-hot vectors."""

from __future__ import annotations

import gradrs

from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .utils import _EMPTY_SIZE

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]


class OneHotCategorical(Distribution):
    """A categorical distribution whose samples are one-hot vectors of size `probs.size(-1)`,
    given `probs` or `logits` as for `Categorical`.

    Args:
        probs (Tensor): event probabilities.
        logits (Tensor): event log probabilities (unnormalized).

    >>> m = gradrs.distributions.OneHotCategorical(gradrs.tensor([0.25, 0.75]))
    >>> m.log_prob(gradrs.tensor([0.0, 1.0])), m.event_shape
    (tensor(-0.2877), gradrs.Size([2]))
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to `batch_shape`."""
        new = self._get_checked_instance(OneHotCategorical, _instance)
        batch_shape = gradrs.Size(batch_shape)
        new._categorical = self._categorical.expand(batch_shape)
        super(OneHotCategorical, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    @property
    def _param(self):
        return self._categorical._param

    @property
    def probs(self):
        """Normalized probabilities."""
        return self._categorical.probs

    @property
    def logits(self):
        """Normalized log probabilities."""
        return self._categorical.logits

    @property
    def mean(self):
        """`probs`."""
        return self._categorical.probs

    @property
    def mode(self):
        """The one-hot vector of the most probable category."""
        probs = self._categorical.probs
        mode = probs.argmax(dim=-1)
        return gradrs.nn.functional.one_hot(mode, num_classes=probs.shape[-1]).to(probs)

    @property
    def variance(self):
        """`probs * (1 - probs)`."""
        return self._categorical.probs * (1 - self._categorical.probs)

    @property
    def param_shape(self):
        """The shape of `probs` / `logits`."""
        return self._categorical.param_shape

    def sample(self, sample_shape=_EMPTY_SIZE):
        """A categorical sample, one-hot encoded."""
        sample_shape = gradrs.Size(sample_shape)
        probs = self._categorical.probs
        num_events = self._categorical._num_events
        indices = self._categorical.sample(sample_shape)
        return gradrs.nn.functional.one_hot(indices, num_events).to(probs)

    def log_prob(self, value):
        """The log probability of the category each one-hot vector marks."""
        if self._validate_args:
            self._validate_sample(value)
        indices = value.max(-1)[1]
        return self._categorical.log_prob(indices)

    def entropy(self):
        """The categorical entropy."""
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        """The K one-hot vectors along dim 0, broadcast over the batch shape."""
        n = self.event_shape[0]
        values = gradrs.eye(n, dtype=self._param.dtype, device=self._param.device)
        values = values.view((n,) + (1,) * len(self.batch_shape) + (n,))
        if expand:
            values = values.expand((n,) + self.batch_shape + (n,))
        return values


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """A `OneHotCategorical` with a straight-through gradient estimator for `rsample`
    (Bengio et al., 2013): the sample's gradient is passed to `probs` unchanged."""

    has_rsample = True

    def rsample(self, sample_shape=_EMPTY_SIZE):
        """A one-hot sample plus `probs - probs.detach()` (zero in value, identity in gradient)."""
        samples = self.sample(sample_shape)
        probs = self._categorical.probs  # cached by lazy_property
        return samples + (probs - probs.detach())
