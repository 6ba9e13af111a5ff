"""The complex-conjugation names on gradrs's real tensors: `conj`, `adjoint`, `real`, `imag`,
`resolve_conj`, ... with PyTorch's answers (`mT`, `mH` and `H` are native getters).

gradrs has no complex dtype, so every tensor is real and PyTorch's rules reduce to these: the
conjugate of a real tensor is the tensor itself (`t.conj() is t`, no node), `real` is the tensor
itself, `imag` raises, and the adjoints are the transposes (TransposeBackward0).
"""

import warnings

from . import _forms
from .functional import _check_tensor
from ._native import Tensor

__all__ = ["conj", "conj_physical", "resolve_conj", "resolve_neg", "is_conj", "is_neg",
           "adjoint", "real", "imag"]


def conj(input):
    """`gradrs.conj(input)`: the complex conjugate; a real tensor is returned itself.

    Examples:
        >>> t = gradrs.tensor([1.0, -2.0])
        >>> gradrs.conj(t) is t
        True
    """
    _check_tensor("conj", "input", 1, input)
    return input


def conj_physical(input, *, out=None):
    """`gradrs.conj_physical(input)`: the conjugate computed eagerly; a real tensor is returned
    itself (or copied into `out=`).

    Examples:
        >>> gradrs.conj_physical(gradrs.tensor([1.0, -2.0]))
        tensor([ 1., -2.])
    """
    _check_tensor("conj_physical", "input", 1, input)
    if out is not None:
        # PyTorch's real-input out= path records no usable node (its grad_fn prints
        # NotImplemented) and does not refuse an input that requires grad: the data is copied.
        return _forms.with_out("conj_physical", out, input.detach, ())
    return input


def resolve_conj(input):
    """`gradrs.resolve_conj(input)`: materializes a lazy conjugate; real tensors have none, so the
    tensor itself.

    Examples:
        >>> t = gradrs.ones(2)
        >>> gradrs.resolve_conj(t) is t
        True
    """
    _check_tensor("resolve_conj", "input", 1, input)
    return input


def resolve_neg(input):
    """`gradrs.resolve_neg(input)`: materializes a lazy negation (made by conj of an imaginary
    view); real tensors have none, so the tensor itself.

    Examples:
        >>> t = gradrs.ones(2)
        >>> gradrs.resolve_neg(t) is t
        True
    """
    _check_tensor("resolve_neg", "input", 1, input)
    return input


def is_conj(input):
    """`gradrs.is_conj(input)`: whether the conjugate bit is set; never for a real tensor.

    Examples:
        >>> gradrs.is_conj(gradrs.ones(2))
        False
    """
    _check_tensor("is_conj", "input", 1, input)
    return False


def is_neg(input):
    """`gradrs.is_neg(input)`: whether the negative bit is set; never for a real tensor.

    Examples:
        >>> gradrs.is_neg(gradrs.ones(2))
        False
    """
    _check_tensor("is_neg", "input", 1, input)
    return False


def adjoint(input):
    """`gradrs.adjoint(input)`: the conjugate transpose of the last two dims, a view
    (TransposeBackward0); PyTorch's RuntimeError below 2 dims.

    Examples:
        >>> gradrs.adjoint(gradrs.tensor([[1.0, 2.0], [3.0, 4.0]]))
        tensor([[1., 3.],
                [2., 4.]])
    """
    _check_tensor("adjoint", "input", 1, input)
    if input.dim() == 0:
        _warn_adjoint_once()
        return input
    return input.mH if input.dim() > 1 else _adjoint_1d()


def real(input):
    """`gradrs.real(input)`: the real part; a real tensor is returned itself.

    Examples:
        >>> t = gradrs.tensor([1.0, 2.0])
        >>> gradrs.real(t) is t
        True
    """
    _check_tensor("real", "input", 1, input)
    return input


def imag(input):
    """`gradrs.imag(input)`: the imaginary part, which PyTorch refuses for real dtypes (every
    gradrs dtype).

    Examples:
        >>> gradrs.imag(gradrs.ones(2))
        Traceback (most recent call last):
            ...
        RuntimeError: imag is not implemented for tensors with non-complex dtypes.
    """
    _check_tensor("imag", "input", 1, input)
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


_adjoint_warned = False


def _warn_adjoint_once():
    """PyTorch's 0-D deprecation warning, issued once per process (TORCH_WARN_ONCE)."""
    global _adjoint_warned
    if not _adjoint_warned:
        _adjoint_warned = True
        warnings.warn("adjoint() is deprecated on 0-D tensors. Consider using x.conj(). (Triggered "
                      "internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:"
                      "4390.)", UserWarning, stacklevel=3)


def _adjoint_1d():
    raise RuntimeError("tensor.adjoint() is only supported on matrices or batches of matrices. "
                       "Got 1-D tensor.")


def _conj_physical_(self):
    return self


def _method(fn):
    def method(self):
        return fn(self)
    method.__name__ = fn.__name__
    method.__doc__ = f"`Tensor.{fn.__name__}()`: see `gradrs.{fn.__name__}`."
    return method


Tensor.conj = _method(conj)
Tensor.conj_physical = _method(conj_physical)
Tensor.resolve_conj = _method(resolve_conj)
Tensor.resolve_neg = _method(resolve_neg)
Tensor.is_conj = _method(is_conj)
Tensor.is_neg = _method(is_neg)
Tensor.adjoint = _method(adjoint)
_conj_physical_.__doc__ = "`Tensor.conj_physical_()`: in place; a real tensor is unchanged."
Tensor.conj_physical_ = _conj_physical_
Tensor.real = property(real, doc="The real part: the tensor itself for a real tensor.")
Tensor.imag = property(imag, doc="The imaginary part: PyTorch refuses it for real dtypes.")
