"""torch.distributions.transforms: invertible maps with log-det-Jacobians, for
TransformedDistribution and for mapping unconstrained parameters onto constraints."""

from __future__ import annotations

import functools
import math
import operator

import gradrs
from gradrs.nn.functional import logsigmoid, pad, softplus

from . import constraints
from .utils import (
    _Number,
    _sum_rightmost,
    broadcast_all,
    lazy_property,
    tril_matrix_to_vec,
    vec_to_tril_matrix,
)

__all__ = [
    "AbsTransform",
    "AffineTransform",
    "CatTransform",
    "ComposeTransform",
    "CorrCholeskyTransform",
    "CumulativeDistributionTransform",
    "ExpTransform",
    "IndependentTransform",
    "LowerCholeskyTransform",
    "PositiveDefiniteTransform",
    "PowerTransform",
    "ReshapeTransform",
    "SigmoidTransform",
    "SoftplusTransform",
    "TanhTransform",
    "SoftmaxTransform",
    "StackTransform",
    "StickBreakingTransform",
    "Transform",
    "identity_transform",
]


class Transform:
    """Abstract class for invertible transformations with computable log det Jacobians.

    A subclass implements `_call` and/or `_inverse`; a bijective one also
    `log_abs_det_jacobian`. With `cache_size=1` the latest `(x, y)` pair is remembered, so
    `t.inv(t(x))` returns `x` itself (useful where the inverse is costly or unstable).

    Args:
        cache_size (int): 0 (no cache) or 1 (the latest value).

    Attributes:
        domain (Constraint): the valid inputs.
        codomain (Constraint): the valid outputs (inputs of the inverse).
        bijective (bool): whether `t.inv(t(x)) == x` and `t(t.inv(y)) == y`.
        sign (int or Tensor): +1 or -1 for a monotone increasing or decreasing bijection.
    """

    bijective = False

    def __init__(self, cache_size=0):
        self._cache_size = cache_size
        self._inv = None
        if cache_size == 0:
            pass
        elif cache_size == 1:
            self._cached_x_y = None, None
        else:
            raise ValueError("cache_size must be 0 or 1")
        super().__init__()

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_inv"] = None
        return state

    @property
    def event_dim(self):
        """The event dim of domain and codomain, when they agree."""
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self):
        """The inverse transform (`t.inv.inv is t`)."""
        inv = self._inv
        if inv is None:
            inv = _InverseTransform(self)
            self._inv = inv
        return inv

    @property
    def sign(self):
        """The sign of the Jacobian's determinant, for bijective transforms."""
        raise NotImplementedError

    def with_cache(self, cache_size=1):
        """This transform with the given cache size."""
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return not self.__eq__(other)

    def __call__(self, x):
        """The transform `x => y`."""
        if self._cache_size == 0:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old
        y = self._call(x)
        self._cached_x_y = x, y
        return y

    def _inv_call(self, y):
        if self._cache_size == 0:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old
        x = self._inverse(y)
        self._cached_x_y = x, y
        return x

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        """`log |dy/dx|` given input and output."""
        raise NotImplementedError

    def __repr__(self):
        return self.__class__.__name__ + "()"

    def forward_shape(self, shape):
        """The output shape for an input shape (the same by default)."""
        return shape

    def inverse_shape(self, shape):
        """The input shape for an output shape (the same by default)."""
        return shape


class _InverseTransform(Transform):
    """The inverse of a transform; reached through `Transform.inv`."""

    def __init__(self, transform):
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        """The inverted transform's codomain."""
        return self._inv.codomain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        """The inverted transform's domain."""
        return self._inv.domain

    @property
    def bijective(self):
        """The inverted transform's."""
        return self._inv.bijective

    @property
    def sign(self):
        """The inverted transform's."""
        return self._inv.sign

    @property
    def inv(self):
        """The transform this inverts."""
        return self._inv

    def with_cache(self, cache_size=1):
        """The inverse of the inverted transform with that cache size."""
        return self.inv.with_cache(cache_size).inv

    def __eq__(self, other):
        if not isinstance(other, _InverseTransform):
            return False
        return self._inv == other._inv

    def __repr__(self):
        return f"{self.__class__.__name__}({self._inv!r})"

    def __call__(self, x):
        """The inverted transform's inverse at `x`."""
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        """Minus the inverted transform's, at `(y, x)`."""
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        """The inverted transform's inverse_shape."""
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        """The inverted transform's forward_shape."""
        return self._inv.forward_shape(shape)


class ComposeTransform(Transform):
    """The transforms `parts` applied one after the other (they do their own caching).

    Args:
        parts (list of Transform): the transforms to compose.
        cache_size (int): 0 or 1.

    >>> t = gradrs.distributions.transforms
    >>> c = t.ComposeTransform([t.AffineTransform(1.0, 2.0), t.ExpTransform()])
    >>> c(gradrs.tensor([0.0])), c.inv(gradrs.tensor([1.0]))
    (tensor([2.7183]), tensor([-0.5000]))
    """

    def __init__(self, parts, cache_size=0):
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = parts

    def __eq__(self, other):
        if not isinstance(other, ComposeTransform):
            return False
        return self.parts == other.parts

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        """The first part's domain, independent over as many dims as the chain needs."""
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        # Adjust event_dim to be maximum among all parts.
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim += part.domain.event_dim - part.codomain.event_dim
            event_dim = max(event_dim, part.domain.event_dim)
        if event_dim > domain.event_dim:
            domain = constraints.independent(domain, event_dim - domain.event_dim)
        return domain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        """The last part's codomain, independent over as many dims as the chain needs."""
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim += part.codomain.event_dim - part.domain.event_dim
            event_dim = max(event_dim, part.codomain.event_dim)
        if event_dim > codomain.event_dim:
            codomain = constraints.independent(codomain, event_dim - codomain.event_dim)
        return codomain

    @lazy_property
    def bijective(self):
        """Whether every part is bijective."""
        return all(p.bijective for p in self.parts)

    @lazy_property
    def sign(self):
        """The product of the parts' signs."""
        sign = 1
        for p in self.parts:
            sign = sign * p.sign
        return sign

    @property
    def inv(self):
        """The composition of the parts' inverses, in reverse order."""
        inv = self._inv
        if inv is None:
            inv = ComposeTransform([p.inv for p in reversed(self.parts)])
            self._inv = inv
            inv._inv = self
        return inv

    def with_cache(self, cache_size=1):
        """This composition with that cache size on every part."""
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x):
        """Each part applied in turn."""
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        """The sum of the parts' log det Jacobians, each summed over the event dims."""
        if not self.parts:
            return gradrs.zeros_like(x)
        # Compute intermediates. This will be free if parts[:-1] are all cached.
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        terms = []
        event_dim = self.domain.event_dim
        for part, x, y in zip(self.parts, xs[:-1], xs[1:]):
            terms.append(
                _sum_rightmost(part.log_abs_det_jacobian(x, y), event_dim - part.domain.event_dim)
            )
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return functools.reduce(operator.add, terms)

    def forward_shape(self, shape):
        """The shape after every part."""
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        """The shape before every part."""
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self):
        fmt_string = self.__class__.__name__ + "(\n    "
        fmt_string += ",\n    ".join([p.__repr__() for p in self.parts])
        fmt_string += "\n)"
        return fmt_string


identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """A transform whose log det Jacobian also sums the `reinterpreted_batch_ndims` rightmost
    dims; the forward and inverse maps are the base transform's.

    Args:
        base_transform (Transform): the base transform.
        reinterpreted_batch_ndims (int): how many extra rightmost dims are dependent.
    """

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size=1):
        """This transform with that cache size."""
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(
            self.base_transform, self.reinterpreted_batch_ndims, cache_size=cache_size
        )

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        """The base domain made independent over the reinterpreted dims."""
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        """The base codomain made independent over the reinterpreted dims."""
        return constraints.independent(
            self.base_transform.codomain, self.reinterpreted_batch_ndims
        )

    @property
    def bijective(self):
        """The base transform's."""
        return self.base_transform.bijective

    @property
    def sign(self):
        """The base transform's."""
        return self.base_transform.sign

    def _call(self, x):
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y):
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        """The base log det Jacobian summed over the reinterpreted dims."""
        result = self.base_transform.log_abs_det_jacobian(x, y)
        return _sum_rightmost(result, self.reinterpreted_batch_ndims)

    def __repr__(self):
        return (
            f"{self.__class__.__name__}({self.base_transform!r}, "
            f"{self.reinterpreted_batch_ndims})"
        )

    def forward_shape(self, shape):
        """The base transform's."""
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        """The base transform's."""
        return self.base_transform.inverse_shape(shape)


class ReshapeTransform(Transform):
    """Reshapes the rightmost `in_shape` dims to `out_shape` (same number of elements); its
    Jacobian is the identity.

    Args:
        in_shape (gradrs.Size): the input event shape.
        out_shape (gradrs.Size): the output event shape.
    """

    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape = gradrs.Size(in_shape)
        self.out_shape = gradrs.Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @constraints.dependent_property
    def domain(self):
        """Reals over `in_shape`."""
        return constraints.independent(constraints.real, len(self.in_shape))

    @constraints.dependent_property
    def codomain(self):
        """Reals over `out_shape`."""
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size=1):
        """This transform with that cache size."""
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x):
        batch_shape = x.shape[: x.dim() - len(self.in_shape)]
        return x.reshape(batch_shape + self.out_shape)

    def _inverse(self, y):
        batch_shape = y.shape[: y.dim() - len(self.out_shape)]
        return y.reshape(batch_shape + self.in_shape)

    def log_abs_det_jacobian(self, x, y):
        """Zeros of the batch shape."""
        batch_shape = x.shape[: x.dim() - len(self.in_shape)]
        return x.new_zeros(batch_shape)

    def forward_shape(self, shape):
        """`shape` with its trailing `in_shape` replaced by `out_shape`."""
        if len(shape) < len(self.in_shape):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(self.in_shape)
        if shape[cut:] != self.in_shape:
            raise ValueError(f"Shape mismatch: expected {shape[cut:]} but got {self.in_shape}")
        return shape[:cut] + self.out_shape

    def inverse_shape(self, shape):
        """`shape` with its trailing `out_shape` replaced by `in_shape`."""
        if len(shape) < len(self.out_shape):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(self.out_shape)
        if shape[cut:] != self.out_shape:
            raise ValueError(f"Shape mismatch: expected {shape[cut:]} but got {self.out_shape}")
        return shape[:cut] + self.in_shape


class ExpTransform(Transform):
    """`y = exp(x)`.

    >>> gradrs.distributions.transforms.ExpTransform()(gradrs.tensor([0.0, 1.0]))
    tensor([1.0000, 2.7183])
    """

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, ExpTransform)

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        """`x`."""
        return x


class PowerTransform(Transform):
    """`y = x ** exponent` on the positive reals.

    Args:
        exponent (Tensor or float): the power.
    """

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size=cache_size)
        (self.exponent,) = broadcast_all(exponent)

    def with_cache(self, cache_size=1):
        """This transform with that cache size."""
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    @lazy_property
    def sign(self):
        """The sign of the exponent."""
        return self.exponent.sign()

    def __eq__(self, other):
        if not isinstance(other, PowerTransform):
            return False
        return self.exponent.eq(other.exponent).all().item()

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        """`log |exponent * y / x|`."""
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        """`shape` broadcast with the exponent's."""
        return gradrs.Size(gradrs.broadcast_shapes(shape, getattr(self.exponent, "shape", ())))

    def inverse_shape(self, shape):
        """`shape` broadcast with the exponent's."""
        return gradrs.Size(gradrs.broadcast_shapes(shape, getattr(self.exponent, "shape", ())))


def _clipped_sigmoid(x):
    finfo = gradrs.finfo(x.dtype)
    return gradrs.clamp(gradrs.sigmoid(x), min=finfo.tiny, max=1.0 - finfo.eps)


class SigmoidTransform(Transform):
    """`y = 1 / (1 + exp(-x))`, inverse `x = logit(y)`; outputs are clamped into
    `[tiny, 1 - eps]`.

    >>> gradrs.distributions.transforms.SigmoidTransform()(gradrs.tensor([0.0]))
    tensor([0.5000])
    """

    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, SigmoidTransform)

    def _call(self, x):
        return _clipped_sigmoid(x)

    def _inverse(self, y):
        finfo = gradrs.finfo(y.dtype)
        y = y.clamp(min=finfo.tiny, max=1.0 - finfo.eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        """`-softplus(-x) - softplus(x)`."""
        return -softplus(-x) - softplus(x)


class SoftplusTransform(Transform):
    """`y = log(1 + exp(x))` (linear above 20).

    >>> gradrs.distributions.transforms.SoftplusTransform()(gradrs.tensor([0.0]))
    tensor([0.6931])
    """

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, SoftplusTransform)

    def _call(self, x):
        return softplus(x)

    def _inverse(self, y):
        return (-y).expm1().neg().log() + y

    def log_abs_det_jacobian(self, x, y):
        """`-softplus(-x)`."""
        return -softplus(-x)


class TanhTransform(Transform):
    """`y = tanh(x)`, a numerically stable form of
    `ComposeTransform([AffineTransform(0., 2.), SigmoidTransform(), AffineTransform(-1., 2.)])`.
    Use `cache_size=1` where samples may reach +-1 (their inverse is infinite).

    >>> gradrs.distributions.transforms.TanhTransform()(gradrs.tensor([0.5]))
    tensor([0.4621])
    """

    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, TanhTransform)

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return gradrs.atanh(y)

    def log_abs_det_jacobian(self, x, y):
        """`2 (log 2 - x - softplus(-2x))`, stable for large |x|."""
        return 2.0 * (math.log(2.0) - x - softplus(-2.0 * x))


class AbsTransform(Transform):
    """`y = |x|` (not bijective; the inverse is the identity)."""

    domain = constraints.real
    codomain = constraints.positive

    def __eq__(self, other):
        return isinstance(other, AbsTransform)

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class AffineTransform(Transform):
    """`y = loc + scale * x`, pointwise.

    Args:
        loc (Tensor or float): the location.
        scale (Tensor or float): the scale.
        event_dim (int): the size of event_shape (0 univariate, 1 vectors, 2 matrices...).

    >>> t = gradrs.distributions.transforms.AffineTransform(1.0, 2.0)
    >>> t(gradrs.tensor([3.0])), t.log_abs_det_jacobian(gradrs.tensor([3.0]), None)
    (tensor([7.]), tensor([0.6931]))
    """

    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self):
        """The event_dim given."""
        return self._event_dim

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        """The reals, over `event_dim` dims."""
        if self.event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self.event_dim)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        """The reals, over `event_dim` dims."""
        if self.event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self.event_dim)

    def with_cache(self, cache_size=1):
        """This transform with that cache size."""
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self.event_dim, cache_size=cache_size)

    def __eq__(self, other):
        if not isinstance(other, AffineTransform):
            return False
        if isinstance(self.loc, _Number) and isinstance(other.loc, _Number):
            if self.loc != other.loc:
                return False
        elif not (self.loc == other.loc).all().item():
            return False
        if isinstance(self.scale, _Number) and isinstance(other.scale, _Number):
            if self.scale != other.scale:
                return False
        elif not (self.scale == other.scale).all().item():
            return False
        return True

    @property
    def sign(self):
        """The sign of `scale`."""
        if isinstance(self.scale, _Number):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        """`log |scale|`, summed over the event dims, of x's (batch) shape."""
        shape = x.shape
        scale = self.scale
        if isinstance(scale, _Number):
            result = gradrs.full_like(x, math.log(abs(scale)))
        else:
            result = gradrs.abs(scale).log()
        if self.event_dim:
            result_size = result.size()[: -self.event_dim] + (-1,)
            result = result.view(result_size).sum(-1)
            shape = shape[: -self.event_dim]
        return result.expand(shape)

    def forward_shape(self, shape):
        """`shape` broadcast with loc's and scale's."""
        return gradrs.Size(gradrs.broadcast_shapes(
            shape, getattr(self.loc, "shape", ()), getattr(self.scale, "shape", ())
        ))

    def inverse_shape(self, shape):
        """`shape` broadcast with loc's and scale's."""
        return gradrs.Size(gradrs.broadcast_shapes(
            shape, getattr(self.loc, "shape", ()), getattr(self.scale, "shape", ())
        ))


class CorrCholeskyTransform(Transform):
    """Maps an unconstrained vector of length D(D-1)/2 to the Cholesky factor of a D x D
    correlation matrix (lower triangular, positive diagonal, unit-norm rows).

    The vector fills the strictly lower triangle row by row; each row `X_i` then goes through a
    signed stick-breaking: `r = tanh(X_i)`, `z = r**2`, `s = StickBreaking(z)`,
    `y = sign(r) * sqrt(s)`.
    """

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x):
        x = gradrs.tanh(x)
        eps = gradrs.finfo(x.dtype).eps
        x = x.clamp(min=-1 + eps, max=1 - eps)
        r = vec_to_tril_matrix(x, diag=-1)
        # Each row's stick-breaking: y_ij = r_ij * prod_{k<j} sqrt(1 - r_ik**2), diagonal last.
        z = r**2
        z1m_cumprod_sqrt = (1 - z).sqrt().cumprod(-1)
        r = r + gradrs.eye(r.shape[-1], dtype=r.dtype, device=r.device)
        return r * pad(z1m_cumprod_sqrt[..., :-1], [1, 0], value=1)

    def _inverse(self, y):
        y_cumsum = 1 - gradrs.cumsum(y * y, dim=-1)
        y_cumsum_shifted = pad(y_cumsum[..., :-1], [1, 0], value=1)
        y_vec = tril_matrix_to_vec(y, diag=-1)
        y_cumsum_vec = tril_matrix_to_vec(y_cumsum_shifted, diag=-1)
        t = y_vec / (y_cumsum_vec).sqrt()
        # inverse of tanh
        return (t.log1p() - t.neg().log1p()) / 2

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        """The stick-breaking log det plus the tanh log det (Stan's derivation)."""
        y1m_cumsum = 1 - (y * y).cumsum(dim=-1)
        y1m_cumsum_tril = tril_matrix_to_vec(y1m_cumsum, diag=-2)
        stick_breaking_logdet = 0.5 * (y1m_cumsum_tril).log().sum(-1)
        tanh_logdet = -2 * (x + softplus(-2 * x) - math.log(2.0)).sum(dim=-1)
        return stick_breaking_logdet + tanh_logdet

    def forward_shape(self, shape):
        """`(..., N)` to `(..., D, D)` with `N = D(D-1)/2`."""
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        N = shape[-1]
        D = round((0.25 + 2 * N) ** 0.5 + 0.5)
        if D * (D - 1) // 2 != N:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return shape[:-1] + (D, D)

    def inverse_shape(self, shape):
        """`(..., D, D)` to `(..., D(D-1)/2)`."""
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        D = shape[-1]
        N = D * (D - 1) // 2
        return shape[:-2] + (N,)


class SoftmaxTransform(Transform):
    """From unconstrained space to the simplex: `exp(x)` normalized over the last dim. Not
    bijective (no use for HMC), but mostly coordinate-wise, so fit for optimization."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other):
        return isinstance(other, SoftmaxTransform)

    def _call(self, x):
        logprobs = x
        probs = (logprobs - logprobs.max(-1, True)[0]).exp()
        return probs / probs.sum(-1, True)

    def _inverse(self, y):
        probs = y
        return probs.log()

    def forward_shape(self, shape):
        """The same shape (at least one dim)."""
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape

    def inverse_shape(self, shape):
        """The same shape (at least one dim)."""
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape


class StickBreakingTransform(Transform):
    """From unconstrained space to the simplex of one more dimension by stick breaking: the
    iterated sigmoid of the Dirichlet's stick-breaking construction. Bijective (fit for HMC),
    but it mixes coordinates (less fit for optimization)."""

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other):
        return isinstance(other, StickBreakingTransform)

    def _call(self, x):
        offset = x.shape[-1] + 1 - x.new_ones(x.shape[-1]).cumsum(-1)
        z = _clipped_sigmoid(x - offset.log())
        z_cumprod = (1 - z).cumprod(-1)
        return pad(z, [0, 1], value=1) * pad(z_cumprod, [1, 0], value=1)

    def _inverse(self, y):
        y_crop = y[..., :-1]
        offset = y.shape[-1] - y.new_ones(y_crop.shape[-1]).cumsum(-1)
        sf = 1 - y_crop.cumsum(-1)
        # Clamp to the smallest positive value so the log stays finite where y_crop sums to
        # 1 in floating point.
        sf = gradrs.clamp(sf, min=gradrs.finfo(y.dtype).tiny)
        return y_crop.log() - sf.log() + offset.log()

    def log_abs_det_jacobian(self, x, y):
        """The log det of the stick-breaking Jacobian."""
        offset = x.shape[-1] + 1 - x.new_ones(x.shape[-1]).cumsum(-1)
        x = x - offset.log()
        # use the identity 1 - sigmoid(x) = exp(-x) * sigmoid(x)
        return (-x + logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        """The last dim one longer."""
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape[:-1] + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        """The last dim one shorter."""
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape[:-1] + (shape[-1] - 1,)


class LowerCholeskyTransform(Transform):
    """From unconstrained matrices to lower-triangular matrices with a positive diagonal (the
    strict lower triangle kept, the diagonal exponentiated): a Cholesky parameterization of
    positive-definite matrices."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other):
        return isinstance(other, LowerCholeskyTransform)

    def _call(self, x):
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y):
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(Transform):
    """From unconstrained matrices to positive-definite ones: `L L^T` with `L` the
    LowerCholeskyTransform of the input."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other):
        return isinstance(other, PositiveDefiniteTransform)

    def _call(self, x):
        x = LowerCholeskyTransform()(x)
        return x @ x.mT

    def _inverse(self, y):
        y = gradrs.linalg.cholesky(y)
        return LowerCholeskyTransform().inv(y)


class CatTransform(Transform):
    """Applies the transforms `tseq` to consecutive pieces of dim `dim` of lengths `lengths`
    (default 1 each), the way `torch.cat` joins them.

    >>> T = gradrs.distributions.transforms
    >>> t = T.CatTransform([T.ExpTransform(), T.identity_transform], dim=0, lengths=[1, 1])
    >>> t(gradrs.tensor([0.0, 5.0]))
    tensor([1., 5.])
    """

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        if lengths is None:
            lengths = [1] * len(self.transforms)
        self.lengths = list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(
                f"lengths ({len(self.lengths)}) must match transforms ({len(self.transforms)})"
            )
        self.dim = dim

    @lazy_property
    def event_dim(self):
        """The largest event_dim of the parts."""
        return max(t.event_dim for t in self.transforms)

    @lazy_property
    def length(self):
        """The total length along `dim`."""
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        """This transform with that cache size."""
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _check(self, name, x, what="tensor", length=True):
        if not (-x.dim() <= self.dim < x.dim()):
            raise AssertionError(
                f"dim {self.dim} out of range for {what} with {x.dim()} dimensions"
            )
        if length and x.size(self.dim) != self.length:
            raise AssertionError(
                f"{name}.size({self.dim}) = {x.size(self.dim)} must equal length {self.length}"
            )

    def _call(self, x):
        self._check("x", x)
        yslices = []
        start = 0
        for trans, length in zip(self.transforms, self.lengths):
            xslice = x.narrow(self.dim, start, length)
            yslices.append(trans(xslice))
            start = start + length
        return gradrs.cat(yslices, dim=self.dim)

    def _inverse(self, y):
        self._check("y", y)
        xslices = []
        start = 0
        for trans, length in zip(self.transforms, self.lengths):
            yslice = y.narrow(self.dim, start, length)
            xslices.append(trans.inv(yslice))
            start = start + length
        return gradrs.cat(xslices, dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        """The parts' log det Jacobians, concatenated (or summed when `dim` is an event dim)."""
        self._check("x", x, "x")
        self._check("y", y, "y")
        logdetjacs = []
        start = 0
        for trans, length in zip(self.transforms, self.lengths):
            xslice = x.narrow(self.dim, start, length)
            yslice = y.narrow(self.dim, start, length)
            logdetjac = trans.log_abs_det_jacobian(xslice, yslice)
            if trans.event_dim < self.event_dim:
                logdetjac = _sum_rightmost(logdetjac, self.event_dim - trans.event_dim)
            logdetjacs.append(logdetjac)
            start = start + length
        # Decide whether to concatenate or sum.
        dim = self.dim
        if dim >= 0:
            dim = dim - x.dim()
        dim = dim + self.event_dim
        if dim < 0:
            return gradrs.cat(logdetjacs, dim=dim)
        return sum(logdetjacs)

    @property
    def bijective(self):
        """Whether every part is bijective."""
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        """The parts' domains joined with `constraints.cat`."""
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self):
        """The parts' codomains joined with `constraints.cat`."""
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """Applies the transforms `tseq` to the slices along dim `dim`, the way `torch.stack`
    joins them.

    >>> T = gradrs.distributions.transforms
    >>> t = T.StackTransform([T.ExpTransform(), T.identity_transform], dim=1)
    >>> t(gradrs.tensor([[0.0, 5.0]]))
    tensor([[1., 5.]])
    """

    def __init__(self, tseq, dim=0, cache_size=0):
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size=1):
        """This transform with that cache size."""
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slice(self, z):
        return [z.select(self.dim, i) for i in range(z.size(self.dim))]

    def _check(self, name, x, what="tensor"):
        if not (-x.dim() <= self.dim < x.dim()):
            raise AssertionError(
                f"dim {self.dim} out of range for {what} with {x.dim()} dimensions"
            )
        if x.size(self.dim) != len(self.transforms):
            raise AssertionError(
                f"{name}.size({self.dim}) = {x.size(self.dim)} must equal len(transforms) "
                f"{len(self.transforms)}"
            )

    def _call(self, x):
        self._check("x", x)
        yslices = [trans(xslice) for xslice, trans in zip(self._slice(x), self.transforms)]
        return gradrs.stack(yslices, dim=self.dim)

    def _inverse(self, y):
        self._check("y", y)
        xslices = [trans.inv(yslice) for yslice, trans in zip(self._slice(y), self.transforms)]
        return gradrs.stack(xslices, dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        """The parts' log det Jacobians, stacked along `dim`."""
        self._check("x", x, "x")
        self._check("y", y, "y")
        logdetjacs = [
            trans.log_abs_det_jacobian(xslice, yslice)
            for xslice, yslice, trans in zip(self._slice(x), self._slice(y), self.transforms)
        ]
        return gradrs.stack(logdetjacs, dim=self.dim)

    @property
    def bijective(self):
        """Whether every part is bijective."""
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        """The parts' domains joined with `constraints.stack`."""
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self):
        """The parts' codomains joined with `constraints.stack`."""
        return constraints.stack([t.codomain for t in self.transforms], self.dim)


class CumulativeDistributionTransform(Transform):
    """The cumulative distribution function of `distribution` as a transform (to the unit
    interval), e.g. to build a copula.

    Args:
        distribution (Distribution): the distribution whose cdf to use.
    """

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        """The distribution's support."""
        return self.distribution.support

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        """The log density at `x`."""
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size=1):
        """This transform with that cache size."""
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)
