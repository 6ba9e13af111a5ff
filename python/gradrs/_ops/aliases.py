"""PyTorch's aliases of existing ops (`greater`, `not_equal`, `swapaxes`, `multiply` / `divide`
/ `subtract` methods, the in-place comparisons), `positive`, `ravel`, `broadcast_to`, `tile`,
`rsub`, `fill` and the functional forms of in-place methods (`zero_`, `fill_`, ...).
"""

from .. import _functional_forms as _ff
from .._grad_mode import no_grad as _no_grad
from .._native import Tensor
from ..functional import _check_tensor, _method
from ._common import _as_method, _G, _node, _reduce_to, _sizes, _strict

__all__ = [
    "greater", "greater_equal", "less", "less_equal", "not_equal", "positive", "ravel",
    "swapaxes", "swapdims", "tile", "broadcast_to", "rsub", "fill", "negative_", "square_",
    "zero_", "fill_", "detach_",
]


def greater(input, other, *, out=None):
    """`gradrs.greater`: alias of `gradrs.gt`.

    Examples:
        >>> gradrs.greater(gradrs.tensor([1, 3]), 2)
        tensor([False,  True])
    """
    return _ff.gt(input, other) if out is None else _ff.gt(input, other, out=out)


def greater_equal(input, other, *, out=None):
    """`gradrs.greater_equal`: alias of `gradrs.ge`.

    Examples:
        >>> gradrs.greater_equal(gradrs.tensor([1, 3]), 3)
        tensor([False,  True])
    """
    return _ff.ge(input, other) if out is None else _ff.ge(input, other, out=out)


def less(input, other, *, out=None):
    """`gradrs.less`: alias of `gradrs.lt`.

    Examples:
        >>> gradrs.less(gradrs.tensor([1, 3]), 2)
        tensor([ True, False])
    """
    return _ff.lt(input, other) if out is None else _ff.lt(input, other, out=out)


def less_equal(input, other, *, out=None):
    """`gradrs.less_equal`: alias of `gradrs.le`.

    Examples:
        >>> gradrs.less_equal(gradrs.tensor([1, 3]), 1)
        tensor([ True, False])
    """
    return _ff.le(input, other) if out is None else _ff.le(input, other, out=out)


def not_equal(input, other, *, out=None):
    """`gradrs.not_equal`: alias of `gradrs.ne`.

    Examples:
        >>> gradrs.not_equal(gradrs.tensor([1, 3]), 1)
        tensor([False,  True])
    """
    return _ff.ne(input, other) if out is None else _ff.ne(input, other, out=out)


def swapaxes(input, axis0, axis1):
    """`gradrs.swapaxes`: alias of `transpose` (TransposeBackward0).

    Examples:
        >>> gradrs.swapaxes(gradrs.ones(2, 3), 0, 1).shape
        gradrs.Size([3, 2])
    """
    return input.transpose(axis0, axis1)


def swapdims(input, dim0, dim1):
    """`gradrs.swapdims`: alias of `transpose`.

    Examples:
        >>> gradrs.swapdims(gradrs.ones(2, 3), 0, 1).shape
        gradrs.Size([3, 2])
    """
    return input.transpose(dim0, dim1)


def positive(input):
    """`gradrs.positive(input)`: `input` itself; refused for bool as PyTorch's `+`.

    Examples:
        >>> gradrs.positive(gradrs.tensor([-1.0, 2.0]))
        tensor([-1.,  2.])
    """
    _check_tensor("positive", "input", 1, input)
    if input.dtype == _G.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def ravel(input):
    """`gradrs.ravel(input)`: `input.contiguous().view(-1)`, as PyTorch.

    Examples:
        >>> gradrs.ravel(gradrs.tensor([[1, 2], [3, 4]]))
        tensor([1, 2, 3, 4])
    """
    return input.contiguous().view(-1)


def broadcast_to(input, size):
    """`gradrs.broadcast_to(input, size)`: `input.expand(size)` (ExpandBackward0).

    Examples:
        >>> gradrs.broadcast_to(gradrs.tensor([1.0, 2.0]), (2, 2))
        tensor([[1., 2.],
                [1., 2.]])
    """
    _strict("broadcast_to", input, size)
    return input.expand(size)


def tile(input, dims):
    """`gradrs.tile(input, dims)`: `repeat` with `dims` padded by leading ones to `input.dim()`.

    Examples:
        >>> gradrs.tile(gradrs.tensor([1, 2]), (2,))
        tensor([1, 2, 1, 2])
    """
    _strict("tile", input, dims)
    return _tile_dims(input, dims)


def _tile_dims(input, dims):
    dims = tuple(dims)
    return input.repeat((1,) * (input.dim() - len(dims)) + dims)


def _in_place_compare(op):
    def method(self, other):
        result = op(self, other)
        if tuple(result.shape) != tuple(self.shape):
            raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the "
                               f"broadcast shape {list(result.shape)}")
        return self.copy_(result)

    method.__name__ = op.__name__ + "_"
    method.__doc__ = (f"In-place `{op.__name__}`: writes the comparison of `self` with `other` "
                      "(1 where it holds, 0 elsewhere, in self's dtype) into `self`, which is "
                      "returned; `other` (a tensor or a number) must broadcast to self's shape.")
    return method


for _alias, _target in (("multiply", "mul"), ("multiply_", "mul_"), ("divide", "div"),
                        ("divide_", "div_"), ("subtract", "sub"), ("subtract_", "sub_"),
                        ("greater", "gt"), ("greater_equal", "ge"), ("less", "lt"),
                        ("less_equal", "le"), ("not_equal", "ne")):
    setattr(Tensor, _alias, getattr(Tensor, _target))
for _names, _target in ((("eq_",), "eq"), (("ne_", "not_equal_"), "ne"),
                        (("lt_", "less_"), "lt"), (("le_", "less_equal_"), "le"),
                        (("gt_", "greater_"), "gt"), (("ge_", "greater_equal_"), "ge")):
    for _alias in _names:
        setattr(Tensor, _alias, _in_place_compare(getattr(Tensor, _target)))
for _fn in (positive, ravel, broadcast_to):
    setattr(Tensor, _fn.__name__, _as_method(_fn))


def _tile(self, *dims):
    """`Tensor.tile(*dims)`."""
    return _tile_dims(self, _sizes(dims))


Tensor.tile = _tile


def rsub(input, other, *, alpha=1):
    """`gradrs.rsub(input, other, *, alpha=1)`: `other - alpha * input` (RsubBackward0, or
    RsubBackward1 for a number `other`).

    Examples:
        >>> gradrs.rsub(gradrs.tensor([1.0, 2.0]), 10.0)
        tensor([9., 8.])
    """
    _check_tensor("rsub", "input", 1, input)
    if isinstance(other, Tensor):
        if input.dtype == _G.bool and other.dtype == _G.bool:
            raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                               "supported. Use the `^` or `logical_xor()` operator instead.")
        with _no_grad():
            res = _G.sub(other, input, alpha=alpha)
        return _node("RsubBackward0", res, [input, other],
                     lambda g: (_reduce_to(g * -alpha, input.shape) if input.requires_grad
                                else None,
                                _reduce_to(g, other.shape) if other.requires_grad else None))
    with _no_grad():
        res = input.mul(-alpha).add(other) if alpha != 1 else input.neg().add(other)
    return _node("RsubBackward1", res, [input], lambda g: (g * -alpha,))


def fill(input, value):
    """`gradrs.fill(input, value)`: a tensor like `input` holding `value` (a number:
    FillBackward0, or a 0-dim tensor, which gets the summed gradient: FillBackward1)."""
    _check_tensor("fill", "input", 1, input)
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value.dim()} dimensions.")
        with _no_grad():
            res = _G.zeros_like(input).add(value.to(input.dtype))
        return _node("FillBackward1", res, [input, value],
                     lambda g: (_G.zeros_like(g) if input.requires_grad else None,
                                g.sum() if value.requires_grad else None))
    with _no_grad():
        res = _G.full_like(input, value)
    return _node("FillBackward0", res, [input], lambda g: (_G.zeros_like(g),))


def _true_divide(self, other):
    """`Tensor.true_divide(other)`: `div` without a rounding mode."""
    return self.div(other)


def _true_divide_(self, other):
    """`Tensor.true_divide_(other)`: `div_` without a rounding mode."""
    return self.div_(other)
Tensor.true_divide = _true_divide
Tensor.true_divide_ = _true_divide_
Tensor.swapaxes = _method(swapaxes)
Tensor.swapdims = _method(swapdims)


def negative_(input):
    """`gradrs.negative_(input)`: `input.negative_()`."""
    return input.negative_()


def square_(input):
    """`gradrs.square_(input)`: `input.square_()`."""
    return input.square_()


def zero_(input):
    """`gradrs.zero_(input)`: `input.zero_()`."""
    return input.zero_()


def fill_(input, value):
    """`gradrs.fill_(input, value)`: `input.fill_(value)`."""
    return input.fill_(value)


def detach_(input):
    """`gradrs.detach_(input)`: `input.detach_()`."""
    return input.detach_()

del _fn, _alias, _target, _names
