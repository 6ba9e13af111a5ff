"""torch.distributions.ContinuousBernoulli: the continuous relaxation of Bernoulli on [0, 1]
with its proper normalizing constant (Loaiza-Ganem & Cunningham, 2019)."""

from __future__ import annotations

import math

import gradrs
from gradrs.nn.functional import binary_cross_entropy_with_logits

from . import constraints
from .exp_family import ExponentialFamily
from .utils import (
    _EMPTY_SIZE,
    _Number,
    broadcast_all,
    clamp_probs,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    """A continuous Bernoulli distribution on [0, 1], given `probs` or `logits` (not both);
    unlike Bernoulli, `probs` is not the mean. Near `probs = 0.5`, within `lims`, the
    normalizer, mean and variance use Taylor expansions for stability.

    Args:
        probs (Number, Tensor): the parameter, in (0, 1).
        logits (Number, Tensor): its log-odds.
        lims (tuple): the interval around 0.5 where the Taylor expansions are used.

    >>> m = gradrs.distributions.ContinuousBernoulli(gradrs.tensor([0.3]))
    >>> m.log_prob(gradrs.tensor([0.2])), m.mean
    (tensor([0.2245]), tensor([0.4302]))
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            is_scalar = isinstance(probs, _Number)
            (self.probs,) = broadcast_all(probs)
            # validate 'probs' here if necessary as it is later clamped for numerical
            # stability close to 0 and 1; otherwise the clamped 'probs' would always pass
            if validate_args is not None:
                if not self.arg_constraints["probs"].check(self.probs).all():
                    raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(self.probs)
        else:
            is_scalar = isinstance(logits, _Number)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        batch_shape = gradrs.Size() if is_scalar else self._param.size()
        self._lims = lims
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to `batch_shape`."""
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        new._lims = self._lims
        batch_shape = gradrs.Size(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        super(ContinuousBernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    def _outside_unstable_region(self):
        return gradrs.max(gradrs.le(self.probs, self._lims[0]), gradrs.gt(self.probs, self._lims[1]))

    def _cut_probs(self):
        return gradrs.where(
            self._outside_unstable_region(),
            self.probs,
            self._lims[0] * gradrs.ones_like(self.probs),
        )

    def _cont_bern_log_norm(self):
        """The log normalizing constant as a function of `probs`."""
        cut_probs = self._cut_probs()
        cut_probs_below_half = gradrs.where(
            gradrs.le(cut_probs, 0.5), cut_probs, gradrs.zeros_like(cut_probs)
        )
        cut_probs_above_half = gradrs.where(
            gradrs.ge(cut_probs, 0.5), cut_probs, gradrs.ones_like(cut_probs)
        )
        log_norm = gradrs.log(
            gradrs.abs(gradrs.log1p(-cut_probs) - gradrs.log(cut_probs))
        ) - gradrs.where(
            gradrs.le(cut_probs, 0.5),
            gradrs.log1p(-2.0 * cut_probs_below_half),
            gradrs.log(2.0 * cut_probs_above_half - 1.0),
        )
        x = gradrs.pow(self.probs - 0.5, 2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return gradrs.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        """The mean (a Taylor expansion near probs = 0.5)."""
        cut_probs = self._cut_probs()
        mus = cut_probs / (2.0 * cut_probs - 1.0) + 1.0 / (
            gradrs.log1p(-cut_probs) - gradrs.log(cut_probs)
        )
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * gradrs.pow(x, 2)) * x
        return gradrs.where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self):
        """`sqrt(variance)`."""
        return gradrs.sqrt(self.variance)

    @property
    def variance(self):
        """The variance (a Taylor expansion near probs = 0.5)."""
        cut_probs = self._cut_probs()
        vars = cut_probs * (cut_probs - 1.0) / gradrs.pow(1.0 - 2.0 * cut_probs, 2) + 1.0 / gradrs.pow(
            gradrs.log1p(-cut_probs) - gradrs.log(cut_probs), 2
        )
        x = gradrs.pow(self.probs - 0.5, 2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return gradrs.where(self._outside_unstable_region(), vars, taylor)

    @lazy_property
    def logits(self):
        """The log-odds of `probs`."""
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        """The parameter, clamped into (0, 1)."""
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self):
        """The shape of `probs` / `logits`."""
        return self._param.size()

    def sample(self, sample_shape=_EMPTY_SIZE):
        """`icdf(u)` for `u` drawn by `gradrs.rand`, without gradient."""
        shape = self._extended_shape(sample_shape)
        u = gradrs.rand(shape, dtype=self.probs.dtype, device=self.probs.device)
        with gradrs.no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=_EMPTY_SIZE):
        """`icdf(u)` for `u` drawn by `gradrs.rand`."""
        shape = self._extended_shape(sample_shape)
        u = gradrs.rand(shape, dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    def log_prob(self, value):
        """The Bernoulli log-likelihood of `value` plus the log normalizer."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return (
            -binary_cross_entropy_with_logits(logits, value, reduction="none")
            + self._cont_bern_log_norm()
        )

    def cdf(self, value):
        """The cumulative distribution function at `value` (0 below 0, 1 above 1)."""
        if self._validate_args:
            self._validate_sample(value)
        cut_probs = self._cut_probs()
        cdfs = (
            gradrs.pow(cut_probs, value) * gradrs.pow(1.0 - cut_probs, 1.0 - value)
            + cut_probs
            - 1.0
        ) / (2.0 * cut_probs - 1.0)
        unbounded_cdfs = gradrs.where(self._outside_unstable_region(), cdfs, value)
        return gradrs.where(
            gradrs.le(value, 0.0),
            gradrs.zeros_like(value),
            gradrs.where(gradrs.ge(value, 1.0), gradrs.ones_like(value), unbounded_cdfs),
        )

    def icdf(self, value):
        """The quantile function at `value` (the identity near probs = 0.5)."""
        cut_probs = self._cut_probs()
        return gradrs.where(
            self._outside_unstable_region(),
            (
                gradrs.log1p(-cut_probs + value * (2.0 * cut_probs - 1.0))
                - gradrs.log1p(-cut_probs)
            )
            / (gradrs.log(cut_probs) - gradrs.log1p(-cut_probs)),
            value,
        )

    def entropy(self):
        """The closed-form entropy."""
        log_probs0 = gradrs.log1p(-self.probs)
        log_probs1 = gradrs.log(self.probs)
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        """The log normalizing constant as a function of the natural parameter."""
        out_unst_reg = gradrs.max(gradrs.le(x, self._lims[0] - 0.5), gradrs.gt(x, self._lims[1] - 0.5))
        cut_nat_params = gradrs.where(out_unst_reg, x, (self._lims[0] - 0.5) * gradrs.ones_like(x))
        log_norm = gradrs.log(gradrs.abs(gradrs.special.expm1(cut_nat_params))) - gradrs.log(
            gradrs.abs(cut_nat_params)
        )
        taylor = 0.5 * x + gradrs.pow(x, 2) / 24.0 - gradrs.pow(x, 4) / 2880.0
        return gradrs.where(out_unst_reg, log_norm, taylor)
