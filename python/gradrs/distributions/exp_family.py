"""torch.distributions.ExponentialFamily: entropy and KL from the log normalizer (Bregman)."""

from __future__ import annotations

import gradrs

from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Base class for exponential-family distributions, densities of the form
    `p(x; theta) = exp(<t(x), theta> - F(theta) + k(x))`.

    A subclass gives its natural parameters `theta`, its log normalizer `F` and its expected
    carrier measure; the entropy (and the KL divergence between two members of one family)
    then follow by differentiating `F` with autograd.
    """

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        """The entropy from the Bregman divergence of the log normalizer."""
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        lg_normal = self._log_normalizer(*nparams)
        gradients = gradrs.autograd.grad(lg_normal.sum(), nparams, create_graph=True)
        result += lg_normal
        for np, g in zip(nparams, gradients):
            result -= (np * g).reshape(self._batch_shape + (-1,)).sum(-1)
        return result
