"""torch.distributions.FisherSnedecor: the F distribution, a ratio of scaled chi-squareds."""

from __future__ import annotations

import math

import gradrs

from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import _EMPTY_SIZE, _Number, broadcast_all

__all__ = ["FisherSnedecor"]


class FisherSnedecor(Distribution):
    """A Fisher-Snedecor (F) distribution with `df1` and `df2` degrees of freedom.

    Args:
        df1 (float or Tensor): the numerator's degrees of freedom.
        df2 (float or Tensor): the denominator's degrees of freedom.

    >>> m = gradrs.distributions.FisherSnedecor(gradrs.tensor([3.0]), gradrs.tensor([6.0]))
    >>> m.mean
    tensor([1.5000])
    """

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        self.df1, self.df2 = broadcast_all(df1, df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        if isinstance(df1, _Number) and isinstance(df2, _Number):
            batch_shape = gradrs.Size()
        else:
            batch_shape = self.df1.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to `batch_shape`."""
        new = self._get_checked_instance(FisherSnedecor, _instance)
        batch_shape = gradrs.Size(batch_shape)
        new.df1 = self.df1.expand(batch_shape)
        new.df2 = self.df2.expand(batch_shape)
        new._gamma1 = self._gamma1.expand(batch_shape)
        new._gamma2 = self._gamma2.expand(batch_shape)
        super(FisherSnedecor, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        """`df2 / (df2 - 2)`, NaN where df2 <= 2."""
        df2 = self.df2.clone()
        df2[df2 <= 2] = math.nan
        return df2 / (df2 - 2)

    @property
    def mode(self):
        """`(df1 - 2) / df1 * df2 / (df2 + 2)`, NaN where df1 <= 2."""
        mode = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        mode[self.df1 <= 2] = math.nan
        return mode

    @property
    def variance(self):
        """`2 df2² (df1 + df2 - 2) / (df1 (df2 - 2)² (df2 - 4))`, NaN where df2 <= 4."""
        df2 = self.df2.clone()
        df2[df2 <= 4] = math.nan
        return 2 * df2.pow(2) * (self.df1 + df2 - 2) / (self.df1 * (df2 - 2).pow(2) * (df2 - 4))

    def rsample(self, sample_shape=_EMPTY_SIZE):
        """`X1 / X2` for `X1 ~ Gamma(df1 / 2, df1)`, `X2 ~ Gamma(df2 / 2, df2)` (each kept
        at or above the dtype's tiny)."""
        shape = self._extended_shape(sample_shape)
        X1 = self._gamma1.rsample(sample_shape).view(shape)
        X2 = self._gamma2.rsample(sample_shape).view(shape)
        tiny = gradrs.finfo(X2.dtype).tiny
        X2.clamp_(min=tiny)
        Y = X1 / X2
        Y.clamp_(min=tiny)
        return Y

    def log_prob(self, value):
        """The F log density."""
        if self._validate_args:
            self._validate_sample(value)
        ct1 = self.df1 * 0.5
        ct2 = self.df2 * 0.5
        ct3 = self.df1 / self.df2
        t1 = (ct1 + ct2).lgamma() - ct1.lgamma() - ct2.lgamma()
        t2 = ct1 * ct3.log() + (ct1 - 1) * gradrs.log(value)
        t3 = (ct1 + ct2) * gradrs.log1p(ct3 * value)
        return t1 + t2 - t3
