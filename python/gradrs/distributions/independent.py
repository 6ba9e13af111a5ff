"""torch.distributions.Independent: reinterpret batch dims of a distribution as event dims."""

from __future__ import annotations

from typing import Generic, TypeVar

import gradrs

from . import constraints
from .distribution import Distribution
from .utils import _EMPTY_SIZE, _sum_rightmost

__all__ = ["Independent"]

D = TypeVar("D", bound=Distribution)


class Independent(Distribution, Generic[D]):
    """Reinterprets the `reinterpreted_batch_ndims` rightmost batch dims of a distribution as
    event dims: `log_prob` and `entropy` sum over them.

    Args:
        base_distribution (Distribution): the base distribution.
        reinterpreted_batch_ndims (int): how many batch dims become event dims.

    >>> normal = gradrs.distributions.Normal(gradrs.zeros(3), gradrs.ones(3))
    >>> diag = gradrs.distributions.Independent(normal, 1)
    >>> diag.batch_shape, diag.event_shape
    (gradrs.Size([]), gradrs.Size([3]))
    """

    arg_constraints = {}

    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        if reinterpreted_batch_ndims > len(base_distribution.batch_shape):
            raise ValueError(
                "Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), "
                f"actual {reinterpreted_batch_ndims} vs {len(base_distribution.batch_shape)}"
            )
        shape = base_distribution.batch_shape + base_distribution.event_shape
        event_dim = reinterpreted_batch_ndims + len(base_distribution.event_shape)
        batch_shape = shape[: len(shape) - event_dim]
        event_shape = shape[len(shape) - event_dim :]
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its base expanded so the batch shape is `batch_shape`."""
        new = self._get_checked_instance(Independent, _instance)
        batch_shape = gradrs.Size(batch_shape)
        new.base_dist = self.base_dist.expand(
            batch_shape + self.event_shape[: self.reinterpreted_batch_ndims]
        )
        new.reinterpreted_batch_ndims = self.reinterpreted_batch_ndims
        super(Independent, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def has_rsample(self):
        """The base distribution's."""
        return self.base_dist.has_rsample

    @property
    def has_enumerate_support(self):
        """The base distribution's, when no dims are reinterpreted."""
        if self.reinterpreted_batch_ndims > 0:
            return False
        return self.base_dist.has_enumerate_support

    @constraints.dependent_property
    def support(self):
        """The base support, made independent over the reinterpreted dims."""
        result = self.base_dist.support
        if self.reinterpreted_batch_ndims:
            result = constraints.independent(result, self.reinterpreted_batch_ndims)
        return result

    @property
    def mean(self):
        """The base distribution's."""
        return self.base_dist.mean

    @property
    def mode(self):
        """The base distribution's."""
        return self.base_dist.mode

    @property
    def variance(self):
        """The base distribution's."""
        return self.base_dist.variance

    def sample(self, sample_shape=_EMPTY_SIZE):
        """A sample of the base distribution."""
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=_EMPTY_SIZE):
        """A reparameterized sample of the base distribution."""
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value):
        """The base log_prob summed over the reinterpreted dims."""
        log_prob = self.base_dist.log_prob(value)
        return _sum_rightmost(log_prob, self.reinterpreted_batch_ndims)

    def entropy(self):
        """The base entropy summed over the reinterpreted dims."""
        entropy = self.base_dist.entropy()
        return _sum_rightmost(entropy, self.reinterpreted_batch_ndims)

    def enumerate_support(self, expand=True):
        """The base support; not available over a cartesian product of reinterpreted dims."""
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand=expand)

    def __repr__(self):
        return self.__class__.__name__ + f"({self.base_dist}, {self.reinterpreted_batch_ndims})"
