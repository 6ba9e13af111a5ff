"""torch.distributions.StudentT: Student's t distribution, a normal scaled by a chi-squared."""

from __future__ import annotations

import math

import gradrs

from . import constraints
from .chi2 import Chi2
from .distribution import Distribution
from .utils import _EMPTY_SIZE, _standard_normal, broadcast_all

__all__ = ["StudentT"]


class StudentT(Distribution):
    """A Student's t distribution with `df` degrees of freedom, location `loc` and scale
    `scale`.

    Args:
        df (float or Tensor): the degrees of freedom.
        loc (float or Tensor): the location.
        scale (float or Tensor): the scale.

    >>> m = gradrs.distributions.StudentT(gradrs.tensor([3.0]))
    >>> m.variance
    tensor([3.])
    """

    arg_constraints = {
        "df": constraints.positive,
        "loc": constraints.real,
        "scale": constraints.positive,
    }
    support = constraints.real
    has_rsample = True

    @property
    def mean(self):
        """`loc`, NaN where df <= 1."""
        m = self.loc.clone()
        m[self.df <= 1] = math.nan
        return m

    @property
    def mode(self):
        """`loc`."""
        return self.loc

    @property
    def variance(self):
        """`scale ** 2 df / (df - 2)` for df > 2, inf for 1 < df <= 2, NaN below."""
        m = self.df.clone()
        m[self.df > 2] = (
            self.scale[self.df > 2].pow(2) * self.df[self.df > 2] / (self.df[self.df > 2] - 2)
        )
        m[(self.df <= 2) & (self.df > 1)] = math.inf
        m[self.df <= 1] = math.nan
        return m

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        batch_shape = self.df.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to `batch_shape`."""
        new = self._get_checked_instance(StudentT, _instance)
        batch_shape = gradrs.Size(batch_shape)
        new.df = self.df.expand(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new._chi2 = self._chi2.expand(batch_shape)
        super(StudentT, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=_EMPTY_SIZE):
        """`loc + scale X / sqrt(Z / df)` for X standard normal and Z ~ Chi2(df) (the
        normals drawn first, as PyTorch draws them)."""
        shape = self._extended_shape(sample_shape)
        X = _standard_normal(shape, dtype=self.df.dtype, device=self.df.device)
        Z = self._chi2.rsample(sample_shape)
        Y = X * gradrs.rsqrt(Z / self.df)
        return self.loc + self.scale * Y

    def log_prob(self, value):
        """The t log density."""
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        Z = (
            self.scale.log()
            + 0.5 * self.df.log()
            + 0.5 * math.log(math.pi)
            + gradrs.lgamma(0.5 * self.df)
            - gradrs.lgamma(0.5 * (self.df + 1.0))
        )
        return -0.5 * (self.df + 1.0) * gradrs.log1p(y**2.0 / self.df) - Z

    def entropy(self):
        """The t entropy, through digamma and log Beta(df / 2, 1 / 2)."""
        lbeta = (
            gradrs.lgamma(0.5 * self.df) + math.lgamma(0.5) - gradrs.lgamma(0.5 * (self.df + 1))
        )
        return (
            self.scale.log()
            + 0.5
            * (self.df + 1)
            * (gradrs.digamma(0.5 * (self.df + 1)) - gradrs.digamma(0.5 * self.df))
            + 0.5 * self.df.log()
            + lbeta
        )
