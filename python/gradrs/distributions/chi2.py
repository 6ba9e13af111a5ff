"""torch.distributions.Chi2: the chi-squared distribution, Gamma(df / 2, 1 / 2)."""

from __future__ import annotations

from . import constraints
from .gamma import Gamma

__all__ = ["Chi2"]


class Chi2(Gamma):
    """A chi-squared distribution with `df` degrees of freedom (`Gamma(0.5 df, 0.5)`).

    Args:
        df (float or Tensor): the degrees of freedom.

    >>> m = gradrs.distributions.Chi2(gradrs.tensor([3.0]))
    >>> m.mean, m.variance
    (tensor([3.]), tensor([6.]))
    """

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to `batch_shape`."""
        new = self._get_checked_instance(Chi2, _instance)
        return super().expand(batch_shape, new)

    @property
    def df(self):
        """The degrees of freedom, `2 concentration`."""
        return self.concentration * 2
