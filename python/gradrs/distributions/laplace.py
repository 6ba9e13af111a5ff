"""torch.distributions.Laplace: the double exponential with `loc` and `scale`."""

from __future__ import annotations

import gradrs

from . import constraints
from .distribution import Distribution
from .utils import _EMPTY_SIZE, _Number, broadcast_all

__all__ = ["Laplace"]


class Laplace(Distribution):
    """A Laplace distribution with location `loc` and scale `scale`.

    Args:
        loc (float or Tensor): the mean.
        scale (float or Tensor): the scale.

    >>> m = gradrs.distributions.Laplace(gradrs.tensor([0.0]), gradrs.tensor([1.0]))
    >>> m.log_prob(gradrs.tensor([1.0])), m.variance
    (tensor([-1.6931]), tensor([2.]))
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    @property
    def mean(self):
        """`loc`."""
        return self.loc

    @property
    def mode(self):
        """`loc`."""
        return self.loc

    @property
    def variance(self):
        """`2 * scale ** 2`."""
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        """`sqrt(2) * scale`."""
        return (2**0.5) * self.scale

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        if isinstance(loc, _Number) and isinstance(scale, _Number):
            batch_shape = gradrs.Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to `batch_shape`."""
        new = self._get_checked_instance(Laplace, _instance)
        batch_shape = gradrs.Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        super(Laplace, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=_EMPTY_SIZE):
        """`loc - scale * sign(u) * log1p(-|u|)`, `u` uniform on `[eps - 1, 1)`."""
        shape = self._extended_shape(sample_shape)
        finfo = gradrs.finfo(self.loc.dtype)
        u = self.loc.new(shape).uniform_(finfo.eps - 1, 1)
        # u is never -1 (low bound eps - 1), so log1p(-|u|) stays finite.
        return self.loc - self.scale * u.sign() * gradrs.log1p(-u.abs())

    def log_prob(self, value):
        """`-log(2 scale) - |value - loc| / scale`."""
        if self._validate_args:
            self._validate_sample(value)
        return -gradrs.log(2 * self.scale) - gradrs.abs(value - self.loc) / self.scale

    def cdf(self, value):
        """The cumulative distribution function at `value`."""
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * gradrs.expm1(
            -(value - self.loc).abs() / self.scale
        )

    def icdf(self, value):
        """The quantile function at `value`."""
        term = value - 0.5
        return self.loc - self.scale * (term).sign() * gradrs.log1p(-2 * term.abs())

    def entropy(self):
        """`1 + log(2 scale)`."""
        return 1 + gradrs.log(2 * self.scale)
