"""torch.distributions.RelaxedOneHotCategorical (and ExpRelaxedCategorical): the Concrete /
Gumbel-softmax relaxation of OneHotCategorical, with reparameterized samples on the simplex."""

from __future__ import annotations

import gradrs

from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform
from .utils import _EMPTY_SIZE, broadcast_all, clamp_probs

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


class ExpRelaxedCategorical(Distribution):
    """The log of a RelaxedOneHotCategorical sample: a point of the simplex in log space
    (Maddison et al., 2017; Jang et al., 2017).

    Args:
        temperature (Tensor): the relaxation temperature.
        probs (Tensor): event probabilities.
        logits (Tensor): unnormalized log probability of each event.
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector  # the true support is a submanifold of this
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to `batch_shape`."""
        new = self._get_checked_instance(ExpRelaxedCategorical, _instance)
        batch_shape = gradrs.Size(batch_shape)
        new.temperature = self.temperature
        new._categorical = self._categorical.expand(batch_shape)
        super(ExpRelaxedCategorical, new).__init__(
            batch_shape, self.event_shape, validate_args=False
        )
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    @property
    def param_shape(self):
        """The shape of `probs` / `logits`."""
        return self._categorical.param_shape

    @property
    def logits(self):
        """Normalized log probabilities."""
        return self._categorical.logits

    @property
    def probs(self):
        """Normalized probabilities."""
        return self._categorical.probs

    def rsample(self, sample_shape=_EMPTY_SIZE):
        """`log_softmax((logits + gumbel noise) / temperature)`."""
        shape = self._extended_shape(sample_shape)
        uniforms = clamp_probs(
            gradrs.rand(shape, dtype=self.logits.dtype, device=self.logits.device)
        )
        gumbels = -((-(uniforms.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value):
        """The log density of the Concrete distribution in log space."""
        K = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_scale = gradrs.full_like(self.temperature, float(K)).lgamma() - self.temperature.log().mul(
            -(K - 1)
        )
        score = logits - value.mul(self.temperature)
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    """A relaxed OneHotCategorical: samples lie on the simplex and are reparameterized (the exp
    of an ExpRelaxedCategorical).

    Args:
        temperature (Tensor): the relaxation temperature.
        probs (Tensor): event probabilities.
        logits (Tensor): unnormalized log probability of each event.

    >>> m = gradrs.distributions.RelaxedOneHotCategorical(
    ...     gradrs.tensor([2.2]), gradrs.tensor([0.1, 0.2, 0.3, 0.4]))
    >>> bool((m.rsample().sum() - 1).abs() < 1e-6)
    True
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base_dist = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to `batch_shape`."""
        new = self._get_checked_instance(RelaxedOneHotCategorical, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def temperature(self):
        """The relaxation temperature."""
        return self.base_dist.temperature

    @property
    def logits(self):
        """Normalized log probabilities."""
        return self.base_dist.logits

    @property
    def probs(self):
        """Normalized probabilities."""
        return self.base_dist.probs
