"""torch.distributions.Kumaraswamy: a Beta-like distribution on (0, 1), built on Uniform."""

from __future__ import annotations

import math

import gradrs

from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .uniform import Uniform
from .utils import broadcast_all, euler_constant

__all__ = ["Kumaraswamy"]


def _moments(a, b, n):
    """The n-th moment of Kumaraswamy(a, b), through lgamma."""
    arg1 = 1 + n / a
    log_value = gradrs.lgamma(arg1) + gradrs.lgamma(b) - gradrs.lgamma(arg1 + b)
    return b * gradrs.exp(log_value)


class Kumaraswamy(TransformedDistribution):
    """A Kumaraswamy distribution: `(1 - U ** (1 / concentration0)) ** (1 / concentration1)`
    for `U` uniform on (0, 1).

    Args:
        concentration1 (float or Tensor): the first concentration (alpha).
        concentration0 (float or Tensor): the second concentration (beta).

    >>> m = gradrs.distributions.Kumaraswamy(gradrs.tensor([2.0]), gradrs.tensor([3.0]))
    >>> m.log_prob(gradrs.tensor([0.5])), m.mean
    (tensor([0.5232]), tensor([0.4571]))
    """

    arg_constraints = {
        "concentration1": constraints.positive,
        "concentration0": constraints.positive,
    }
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base_dist = Uniform(
            gradrs.full_like(self.concentration0, 0),
            gradrs.full_like(self.concentration0, 1),
            validate_args=validate_args,
        )
        transforms = [
            PowerTransform(exponent=self.concentration0.reciprocal()),
            AffineTransform(loc=1.0, scale=-1.0),
            PowerTransform(exponent=self.concentration1.reciprocal()),
        ]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to `batch_shape`."""
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(batch_shape)
        new.concentration0 = self.concentration0.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        """The first moment."""
        return _moments(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        """`((a - 1) / (a b - 1)) ** (1 / a)`; NaN where a or b is below 1."""
        # Evaluate in log-space for numerical stability.
        log_mode = (
            self.concentration0.reciprocal() * (-self.concentration0).log1p()
            - (-self.concentration0 * self.concentration1).log1p()
        )
        log_mode[(self.concentration0 < 1) | (self.concentration1 < 1)] = math.nan
        return log_mode.exp()

    @property
    def variance(self):
        """The second moment minus the squared mean."""
        return _moments(self.concentration1, self.concentration0, 2) - gradrs.pow(self.mean, 2)

    def entropy(self):
        """The closed-form entropy (through digamma)."""
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        H0 = gradrs.digamma(self.concentration0 + 1) + euler_constant
        return t0 + t1 * H0 - gradrs.log(self.concentration1) - gradrs.log(self.concentration0)
