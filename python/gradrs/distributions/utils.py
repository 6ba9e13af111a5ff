"""torch.distributions.utils: parameter broadcasting, probs/logits conversion, lazy_property."""

from __future__ import annotations

from functools import update_wrapper

import gradrs

__all__ = [
    "broadcast_all",
    "logits_to_probs",
    "clamp_probs",
    "probs_to_logits",
    "lazy_property",
    "tril_matrix_to_vec",
    "vec_to_tril_matrix",
]

euler_constant = 0.57721566490153286060  # the Euler-Mascheroni constant

# The default sample_shape (a Size is immutable, so one instance serves every call).
_EMPTY_SIZE = gradrs.Size()

# What PyTorch counts as a plain number beside tensors (torch.types._Number).
_Number = (int, float, bool)


def broadcast_all(*values):
    """Broadcast tensors and numbers together; numbers become tensors like the first tensor.

    A number takes the dtype and device of the first tensor among `values`, or the default
    dtype when all are numbers.

    >>> a, b = gradrs.distributions.utils.broadcast_all(gradrs.zeros(2, 1), 3)
    >>> a.shape, b
    (gradrs.Size([2, 1]), tensor([[3.],
            [3.]]))
    """
    if not all(isinstance(v, (gradrs.Tensor, *_Number)) for v in values):
        raise ValueError(
            "Input arguments must all be instances of Number, "
            "gradrs.Tensor or objects implementing __torch_function__."
        )
    if not all(isinstance(v, gradrs.Tensor) for v in values):
        options = dict(dtype=gradrs.get_default_dtype())
        for value in values:
            if isinstance(value, gradrs.Tensor):
                options = dict(dtype=value.dtype, device=value.device)
                break
        values = tuple(
            v if isinstance(v, gradrs.Tensor) else gradrs.tensor(v, **options) for v in values
        )
    return gradrs.broadcast_tensors(*values)


def _standard_normal(shape, dtype, device):
    # PyTorch fills an empty tensor with normal_(): the same stream as randn.
    return gradrs.empty(shape, dtype=dtype, device=device).normal_()


def _sum_rightmost(value, dim):
    """Sum out the `dim` rightmost dimensions of `value`."""
    if dim == 0:
        return value
    required_shape = value.shape[:-dim] + (-1,)
    return value.reshape(required_shape).sum(-1)


def logits_to_probs(logits, is_binary=False):
    """Probabilities from logits: a sigmoid for the binary case, else a softmax over the last dim.

    >>> gradrs.distributions.utils.logits_to_probs(gradrs.tensor([0.0, 0.0]))
    tensor([0.5000, 0.5000])
    """
    if is_binary:
        return gradrs.sigmoid(logits)
    return gradrs.nn.functional.softmax(logits, dim=-1)


def clamp_probs(probs):
    """Clamp probabilities into `[eps, 1 - eps]`, eps the dtype's machine epsilon.

    >>> gradrs.distributions.utils.clamp_probs(gradrs.tensor([0.0, 0.5, 1.0]))
    tensor([1.1921e-07, 5.0000e-01, 1.0000e+00])
    """
    eps = gradrs.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """Logits from probabilities (clamped first): log-odds for the binary case, else log(p).

    >>> gradrs.distributions.utils.probs_to_logits(gradrs.tensor([0.5]), is_binary=True)
    tensor([0.])
    """
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return gradrs.log(ps_clamped) - gradrs.log1p(-ps_clamped)
    return gradrs.log(ps_clamped)


class lazy_property:
    """A decorator for a property computed on first access, then stored on the instance.

    The first access runs the wrapped method (with grad enabled) and replaces it with an
    instance attribute of the same name.
    """

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with gradrs.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    """What a lazy_property looks like on the class: a property (for documentation tools) that is
    still a lazy_property (so argument validation skips parameters not computed yet)."""

    def __init__(self, wrapped):
        property.__init__(self, wrapped)
        self.wrapped = wrapped


def _tril_mask(n, diag, device):
    arange = gradrs.arange(n, device=device)
    return arange < arange.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat, diag=0):
    """The lower-triangular elements (below diagonal `diag`) of a (batched) square matrix, in
    row order.

    >>> gradrs.distributions.utils.tril_matrix_to_vec(gradrs.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor([1., 3., 4.])
    """
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag, mat.device)]


def vec_to_tril_matrix(vec, diag=0):
    """The (batched) lower-triangular square matrix whose elements below diagonal `diag` are
    `vec`, in row order; the inverse of `tril_matrix_to_vec`.

    >>> gradrs.distributions.utils.vec_to_tril_matrix(gradrs.tensor([1.0, 3.0, 4.0]))
    tensor([[1., 0.],
            [3., 4.]])
    """
    # the positive root of D**2 + (1+2*diag)*D - |diag| * (diag+1) - 2*vec.shape[-1] = 0
    n = (
        -(1 + 2 * diag)
        + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5
    ) / 2
    eps = gradrs.finfo(vec.dtype).eps
    if round(n) - n > eps:
        raise ValueError(
            f"The size of last dimension is {vec.shape[-1]} which cannot be expressed as "
            + "the lower triangular part of a square D x D matrix."
        )
    n = round(n)
    mat = vec.new_zeros(vec.shape[:-1] + gradrs.Size((n, n)))
    mat[..., _tril_mask(n, diag, vec.device)] = vec
    return mat
