"""torch.distributions.MixtureSameFamily: a categorical mixture of one family's components."""

from __future__ import annotations

import gradrs

from . import constraints
from .categorical import Categorical
from .constraints import MixtureSameFamilyConstraint
from .distribution import Distribution
from .utils import _EMPTY_SIZE

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    """A (batch of) mixture distribution(s) whose components all come from one family: a
    `Categorical` selects among `k` components, and the component distribution's rightmost
    batch dim (of size `k`) indexes them.

    Args:
        mixture_distribution (Categorical): the component probabilities; its batch shape is
            scalar or matches `component_distribution.batch_shape[:-1]`.
        component_distribution (Distribution): the components, indexed by its rightmost
            batch dim.

    >>> D = gradrs.distributions
    >>> mix = D.Categorical(gradrs.ones(2))
    >>> comp = D.Normal(gradrs.tensor([-1.0, 1.0]), gradrs.tensor([1.0, 1.0]))
    >>> gmm = D.MixtureSameFamily(mix, comp)
    >>> gmm.log_prob(gradrs.tensor(0.0)), gmm.variance
    (tensor(-1.4189), tensor(2.))
    """

    arg_constraints = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution

        if not isinstance(self._mixture_distribution, Categorical):
            raise ValueError(
                " The Mixture distribution needs to be an "
                " instance of gradrs.distributions.Categorical"
            )
        if not isinstance(self._component_distribution, Distribution):
            raise ValueError(
                "The Component distribution needs to be an "
                "instance of gradrs.distributions.Distribution"
            )

        # Check that batch size matches
        mdbs = self._mixture_distribution.batch_shape
        cdbs = self._component_distribution.batch_shape[:-1]
        for size1, size2 in zip(reversed(mdbs), reversed(cdbs)):
            if size1 != 1 and size2 != 1 and size1 != size2:
                raise ValueError(
                    f"`mixture_distribution.batch_shape` ({mdbs}) is not "
                    "compatible with `component_distribution."
                    f"batch_shape`({cdbs})"
                )

        # Check that the number of mixture component matches
        km = self._mixture_distribution.logits.shape[-1]
        kc = self._component_distribution.batch_shape[-1]
        if km is not None and kc is not None and km != kc:
            raise ValueError(
                f"`mixture_distribution component` ({km}) does not"
                " equal `component_distribution.batch_shape[-1]`"
                f" ({kc})"
            )
        self._num_component = km

        event_shape = self._component_distribution.event_shape
        self._event_ndims = len(event_shape)
        super().__init__(batch_shape=cdbs, event_shape=event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This mixture with its components and weights expanded to `batch_shape`."""
        batch_shape = gradrs.Size(batch_shape)
        batch_shape_comp = batch_shape + (self._num_component,)
        new = self._get_checked_instance(MixtureSameFamily, _instance)
        new._component_distribution = self._component_distribution.expand(batch_shape_comp)
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._num_component = self._num_component
        new._event_ndims = self._event_ndims
        event_shape = new._component_distribution.event_shape
        super(MixtureSameFamily, new).__init__(
            batch_shape=batch_shape, event_shape=event_shape, validate_args=False
        )
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property
    def support(self):
        """The component support, checked with the mixture dim added back."""
        return MixtureSameFamilyConstraint(self._component_distribution.support)

    @property
    def mixture_distribution(self):
        """The Categorical over components."""
        return self._mixture_distribution

    @property
    def component_distribution(self):
        """The component distribution."""
        return self._component_distribution

    @property
    def mean(self):
        """The probability-weighted mean of the component means."""
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        return gradrs.sum(probs * self.component_distribution.mean, dim=-1 - self._event_ndims)

    @property
    def variance(self):
        """The law of total variance: E[Var] + Var[E] over the components."""
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        mean_cond_var = gradrs.sum(
            probs * self.component_distribution.variance, dim=-1 - self._event_ndims
        )
        var_cond_mean = gradrs.sum(
            probs * (self.component_distribution.mean - self._pad(self.mean)).pow(2.0),
            dim=-1 - self._event_ndims,
        )
        return mean_cond_var + var_cond_mean

    def cdf(self, x):
        """The probability-weighted sum of the component cdfs."""
        x = self._pad(x)
        cdf_x = self.component_distribution.cdf(x)
        mix_prob = self.mixture_distribution.probs
        return gradrs.sum(cdf_x * mix_prob, dim=-1)

    def log_prob(self, x):
        """`logsumexp` over components of component log_prob plus log mixture weight."""
        if self._validate_args:
            self._validate_sample(x)
        x = self._pad(x)
        log_prob_x = self.component_distribution.log_prob(x)  # [S, B, k]
        log_mix_prob = gradrs.log_softmax(self.mixture_distribution.logits, dim=-1)  # [B, k]
        return gradrs.logsumexp(log_prob_x + log_mix_prob, dim=-1)  # [S, B]

    def sample(self, sample_shape=_EMPTY_SIZE):
        """A component index drawn first, then every component sampled and the chosen one kept."""
        with gradrs.no_grad():
            sample_len = len(sample_shape)
            batch_len = len(self.batch_shape)
            gather_dim = sample_len + batch_len
            es = self.event_shape

            # mixture samples [n, B]
            mix_sample = self.mixture_distribution.sample(sample_shape)
            mix_shape = mix_sample.shape

            # component samples [n, B, k, E]
            comp_samples = self.component_distribution.sample(sample_shape)

            # Gather along the k dimension
            mix_sample_r = mix_sample.reshape(mix_shape + gradrs.Size([1] * (len(es) + 1)))
            mix_sample_r = mix_sample_r.repeat(
                gradrs.Size([1] * len(mix_shape)) + gradrs.Size([1]) + es
            )

            samples = gradrs.gather(comp_samples, gather_dim, mix_sample_r)
            return samples.squeeze(gather_dim)

    def _pad(self, x):
        return x.unsqueeze(-1 - self._event_ndims)

    def _pad_mixture_dimensions(self, x):
        dist_batch_ndims = len(self.batch_shape)
        cat_batch_ndims = len(self.mixture_distribution.batch_shape)
        pad_ndims = 0 if cat_batch_ndims == 1 else dist_batch_ndims - cat_batch_ndims
        xs = x.shape
        return x.reshape(
            xs[:-1]
            + gradrs.Size(pad_ndims * [1])
            + xs[-1:]
            + gradrs.Size(self._event_ndims * [1])
        )

    def __repr__(self):
        args_string = f"\n  {self.mixture_distribution},\n  {self.component_distribution}"
        return "MixtureSameFamily" + "(" + args_string + ")"
