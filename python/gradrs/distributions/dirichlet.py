"""torch.distributions.Dirichlet: distributions on the simplex, sampled by
`_sample_dirichlet` and differentiated through `_dirichlet_grad`."""

from __future__ import annotations

import gradrs
from gradrs.autograd import Function
from gradrs.autograd.function import once_differentiable

from . import constraints
from .exp_family import ExponentialFamily
from .utils import _EMPTY_SIZE

__all__ = ["Dirichlet"]


def _Dirichlet_backward(x, concentration, grad_output):
    total = concentration.sum(-1, True).expand_as(concentration)
    grad = gradrs._dirichlet_grad(x, concentration, total)
    return grad * (grad_output - (x * grad_output).sum(-1, True))


class _Dirichlet(Function):
    """The reparameterized Dirichlet sample: a draw forward, the implicit gradient back."""

    @staticmethod
    def forward(ctx, concentration):
        x = gradrs._sample_dirichlet(concentration)
        ctx.save_for_backward(x, concentration)
        return x

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        x, concentration = ctx.saved_tensors
        return _Dirichlet_backward(x, concentration, grad_output)


class Dirichlet(ExponentialFamily):
    """A Dirichlet distribution with concentration vectors along the last dim.

    Args:
        concentration (Tensor): the concentrations, `(*batch, k)`.

    >>> m = gradrs.distributions.Dirichlet(gradrs.tensor([1.0, 2.0, 3.0]))
    >>> m.mean
    tensor([0.1667, 0.3333, 0.5000])
    """

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        batch_shape, event_shape = concentration.shape[:-1], concentration.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to `batch_shape`."""
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = gradrs.Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape + self.event_shape)
        super(Dirichlet, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=_EMPTY_SIZE):
        """A draw on the simplex, differentiable in the concentration."""
        shape = self._extended_shape(sample_shape)
        concentration = self.concentration.expand(shape)
        return _Dirichlet.apply(concentration)

    def log_prob(self, value):
        """`sum((a - 1) log value) + lgamma(sum a) - sum lgamma(a)`."""
        if self._validate_args:
            self._validate_sample(value)
        return (
            gradrs.xlogy(self.concentration - 1.0, value).sum(-1)
            + gradrs.lgamma(self.concentration.sum(-1))
            - gradrs.lgamma(self.concentration).sum(-1)
        )

    @property
    def mean(self):
        """`a / sum(a)`."""
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        """`(a - 1) / sum(a - 1)` (clamped at 0); a one-hot vertex where every a < 1."""
        concentrationm1 = (self.concentration - 1).clamp(min=0.0)
        mode = concentrationm1 / concentrationm1.sum(-1, True)
        mask = (self.concentration < 1).all(dim=-1)
        mode[mask] = gradrs.nn.functional.one_hot(
            mode[mask].argmax(dim=-1), concentrationm1.shape[-1]
        ).to(mode)
        return mode

    @property
    def variance(self):
        """`a (a0 - a) / (a0 ** 2 (a0 + 1))` with `a0 = sum(a)`."""
        con0 = self.concentration.sum(-1, True)
        return self.concentration * (con0 - self.concentration) / (con0.pow(2) * (con0 + 1))

    def entropy(self):
        """`log B(a) + (a0 - k) digamma(a0) - sum((a - 1) digamma(a))`."""
        k = self.concentration.size(-1)
        a0 = self.concentration.sum(-1)
        return (
            gradrs.lgamma(self.concentration).sum(-1)
            - gradrs.lgamma(a0)
            - (k - a0) * gradrs.digamma(a0)
            - ((self.concentration - 1.0) * gradrs.digamma(self.concentration)).sum(-1)
        )

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - gradrs.lgamma(x.sum(-1))
