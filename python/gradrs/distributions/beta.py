"""torch.distributions.Beta: the Beta distribution on (0, 1), a two-class Dirichlet."""

from __future__ import annotations

import gradrs

from . import constraints
from .dirichlet import Dirichlet
from .exp_family import ExponentialFamily
from .utils import _Number, broadcast_all

__all__ = ["Beta"]


class Beta(ExponentialFamily):
    """A Beta distribution with concentrations `concentration1` (alpha) and
    `concentration0` (beta): the first coordinate of `Dirichlet([alpha, beta])`.

    Args:
        concentration1 (float or Tensor): the first concentration (alpha).
        concentration0 (float or Tensor): the second concentration (beta).

    >>> m = gradrs.distributions.Beta(gradrs.tensor([2.0]), gradrs.tensor([3.0]))
    >>> m.mean
    tensor([0.4000])
    """

    arg_constraints = {
        "concentration1": constraints.positive,
        "concentration0": constraints.positive,
    }
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        if isinstance(concentration1, _Number) and isinstance(concentration0, _Number):
            both = gradrs.tensor([float(concentration1), float(concentration0)])
        else:
            concentration1, concentration0 = broadcast_all(concentration1, concentration0)
            both = gradrs.stack([concentration1, concentration0], -1)
        self._dirichlet = Dirichlet(both, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to `batch_shape`."""
        new = self._get_checked_instance(Beta, _instance)
        batch_shape = gradrs.Size(batch_shape)
        new._dirichlet = self._dirichlet.expand(batch_shape)
        super(Beta, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        """`alpha / (alpha + beta)`."""
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        """The Dirichlet's mode, first coordinate."""
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        """`alpha beta / ((alpha + beta) ** 2 (alpha + beta + 1))`."""
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        """The first coordinate of a reparameterized Dirichlet draw."""
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value):
        """The Dirichlet's log density at `[value, 1 - value]`."""
        if self._validate_args:
            self._validate_sample(value)
        heads_tails = gradrs.stack([value, 1.0 - value], -1)
        return self._dirichlet.log_prob(heads_tails)

    def entropy(self):
        """The Dirichlet's entropy."""
        return self._dirichlet.entropy()

    @property
    def concentration1(self):
        """alpha."""
        result = self._dirichlet.concentration[..., 0]
        if isinstance(result, _Number):
            return gradrs.tensor([result])
        return result

    @property
    def concentration0(self):
        """beta."""
        result = self._dirichlet.concentration[..., 1]
        if isinstance(result, _Number):
            return gradrs.tensor([result])
        return result

    @property
    def _natural_params(self):
        return (self.concentration1, self.concentration0)

    def _log_normalizer(self, x, y):
        return gradrs.lgamma(x) + gradrs.lgamma(y) - gradrs.lgamma(x + y)
