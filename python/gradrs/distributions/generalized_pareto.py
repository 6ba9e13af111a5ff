"""torch.distributions.GeneralizedPareto: the generalized Pareto family (tails of other
distributions), sampled through its icdf."""

from __future__ import annotations

import math
from numbers import Number, Real

import gradrs

from . import constraints
from .distribution import Distribution
from .utils import _EMPTY_SIZE, broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """A generalized Pareto distribution with `loc`, `scale` and `concentration`. Exponential
    (loc = 0, concentration = 0), Pareto (concentration > 0, loc = scale / concentration) and
    Uniform (concentration = -1) are special cases.

    Args:
        loc (float or Tensor): the location.
        scale (float or Tensor): the scale.
        concentration (float or Tensor): the shape.

    >>> m = gradrs.distributions.GeneralizedPareto(0.0, 1.0, 0.5)
    >>> m.log_prob(gradrs.tensor(1.0)), m.mean
    (tensor(-1.2164), tensor(2.))
    """

    arg_constraints = {
        "loc": constraints.real,
        "scale": constraints.positive,
        "concentration": constraints.real,
    }
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        if isinstance(loc, Number) and isinstance(scale, Number) and isinstance(
            concentration, Number
        ):
            batch_shape = gradrs.Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to `batch_shape`."""
        new = self._get_checked_instance(GeneralizedPareto, _instance)
        batch_shape = gradrs.Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        super(GeneralizedPareto, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=_EMPTY_SIZE):
        """`icdf(u)` for `u` drawn by `gradrs.rand`."""
        shape = self._extended_shape(sample_shape)
        u = gradrs.rand(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.icdf(u)

    def log_prob(self, value):
        """The log density at `value` (the exponential limit at concentration 0)."""
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero = gradrs.isclose(self.concentration, gradrs.tensor(0.0))
        safe_conc = gradrs.where(eq_zero, gradrs.ones_like(self.concentration), self.concentration)
        y = 1 / safe_conc + gradrs.ones_like(z)
        where_nonzero = gradrs.where(y == 0, y, y * gradrs.log1p(safe_conc * z))
        log_scale = math.log(self.scale) if isinstance(self.scale, Real) else self.scale.log()
        return -log_scale - gradrs.where(eq_zero, z, where_nonzero)

    def log_survival_function(self, value):
        """`log(1 - cdf(value))`."""
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero = gradrs.isclose(self.concentration, gradrs.tensor(0.0))
        safe_conc = gradrs.where(eq_zero, gradrs.ones_like(self.concentration), self.concentration)
        where_nonzero = -gradrs.log1p(safe_conc * z) / safe_conc
        return gradrs.where(eq_zero, -z, where_nonzero)

    def log_cdf(self, value):
        """`log(cdf(value))`."""
        return gradrs.log1p(-gradrs.exp(self.log_survival_function(value)))

    def cdf(self, value):
        """The cumulative distribution function at `value`."""
        return gradrs.exp(self.log_cdf(value))

    def icdf(self, value):
        """The quantile function at `value`."""
        loc = self.loc
        scale = self.scale
        concentration = self.concentration
        eq_zero = gradrs.isclose(concentration, gradrs.zeros_like(concentration))
        safe_conc = gradrs.where(eq_zero, gradrs.ones_like(concentration), concentration)
        logu = gradrs.log1p(-value)
        where_nonzero = loc + scale / safe_conc * gradrs.expm1(-safe_conc * logu)
        where_zero = loc - scale * logu
        return gradrs.where(eq_zero, where_zero, where_nonzero)

    def _z(self, x):
        return (x - self.loc) / self.scale

    @property
    def mean(self):
        """`loc + scale / (1 - concentration)`; NaN for concentration >= 1."""
        concentration = self.concentration
        valid = concentration < 1
        safe_conc = gradrs.where(valid, concentration, 0.5)
        result = self.loc + self.scale / (1 - safe_conc)
        return gradrs.where(valid, result, math.nan)

    @property
    def variance(self):
        """`scale**2 / ((1 - c)**2 (1 - 2c))`; NaN for concentration >= 0.5."""
        concentration = self.concentration
        valid = concentration < 0.5
        safe_conc = gradrs.where(valid, concentration, 0.25)
        result = self.scale**2 / ((1 - safe_conc) ** 2 * (1 - 2 * safe_conc))
        return gradrs.where(valid, result, math.nan)

    def entropy(self):
        """`log(scale) + concentration + 1`, of the batch shape."""
        ans = gradrs.log(self.scale) + self.concentration + 1
        return gradrs.broadcast_to(ans, self._batch_shape)

    @property
    def mode(self):
        """`loc`."""
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        """`[loc, loc - scale / concentration]` for negative concentration, else `[loc, inf]`."""
        lower = self.loc
        upper = gradrs.where(
            self.concentration < 0, lower - self.scale / self.concentration, math.inf
        )
        return constraints.interval(lower, upper)
