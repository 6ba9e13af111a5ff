"""torch.distributions: parameterizable probability distributions and sampling functions.

Distributions compute log densities, entropies, moments and (re)parameterized samples from
gradrs tensor ops, so score-function estimators (REINFORCE: `-dist.log_prob(action) * reward`)
and pathwise estimators (`dist.rsample()`, the reparameterization trick) both differentiate.
Sampling draws from gradrs's random streams the way PyTorch draws from torch's.

>>> m = gradrs.distributions.Categorical(gradrs.tensor([0.25, 0.25, 0.5]))
>>> action = m.sample()
>>> loss = -m.log_prob(action) * 1.0

Not provided: the families whose samplers are native kernels gradrs lacks (PyTorch's
`_standard_gamma`, `_sample_dirichlet`, `binomial`): Beta, Gamma, Chi2, Dirichlet, StudentT,
FisherSnedecor, InverseGamma, Binomial, NegativeBinomial, Wishart, LKJCholesky, and the KL
pairs that involve them.
"""

from . import constraints, transforms  # noqa: F401 - torch.distributions.constraints
from .bernoulli import Bernoulli
from .categorical import Categorical
from .cauchy import Cauchy
from .constraint_registry import biject_to, transform_to
from .continuous_bernoulli import ContinuousBernoulli
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .generalized_pareto import GeneralizedPareto
from .geometric import Geometric
from .gumbel import Gumbel
from .half_cauchy import HalfCauchy
from .half_normal import HalfNormal
from .independent import Independent
from .kumaraswamy import Kumaraswamy
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .log_normal import LogNormal
from .logistic_normal import LogisticNormal
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .mixture_same_family import MixtureSameFamily
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .pareto import Pareto
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .poisson import Poisson
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
from .transformed_distribution import TransformedDistribution
from .transforms import *  # noqa: F403
from .uniform import Uniform
from .von_mises import VonMises
from .weibull import Weibull

__all__ = [
    "Bernoulli",
    "Categorical",
    "Cauchy",
    "ContinuousBernoulli",
    "Distribution",
    "Exponential",
    "ExponentialFamily",
    "GeneralizedPareto",
    "Geometric",
    "Gumbel",
    "HalfCauchy",
    "HalfNormal",
    "Independent",
    "Kumaraswamy",
    "Laplace",
    "LogNormal",
    "LogisticNormal",
    "LowRankMultivariateNormal",
    "MixtureSameFamily",
    "Multinomial",
    "MultivariateNormal",
    "Normal",
    "OneHotCategorical",
    "OneHotCategoricalStraightThrough",
    "Pareto",
    "Poisson",
    "RelaxedBernoulli",
    "RelaxedOneHotCategorical",
    "Uniform",
    "VonMises",
    "Weibull",
    "TransformedDistribution",
    "biject_to",
    "kl_divergence",
    "register_kl",
    "transform_to",
]
__all__ += transforms.__all__
