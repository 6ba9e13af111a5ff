"""PyTorch's aliases and composite ops built from gradrs's own ops (issue 24): comparison and
arithmetic aliases, splits and stacks, new_* factories, is_* predicates, outer / inner / vdot,
addmv / addr / baddbmm / addbmm, diag / diag_embed, take, index_copy, masked_scatter,
sum_to_size, float_power, sgn, signbit, logcumsumexp, cov / corrcoef.

An op PyTorch gives a node of its own (``AddmvBackward0``, ``TakeBackward0``...) is computed here
without recording and gets one node of that name (`_native._attach_node`) whose backward is a
formula in gradrs ops, so second derivatives and every device come from those ops.
"""

import builtins
import math
import sys
import warnings

import numpy as np

from . import _functional_forms as _ff
from . import _argparse, _native
from ._forms import with_out as _with_out
from ._grad_mode import no_grad as _no_grad
from ._native import Tensor
from .functional import _check_tensor, _dtype_name, _method, atleast_1d, atleast_2d, atleast_3d

# The gradrs package (still loading when this module is: read at call time).
_G = sys.modules[__package__]

__all__ = [
    "addbmm", "addmv", "addr", "baddbmm", "column_stack", "corrcoef", "cov", "diag",
    "diag_embed", "diagflat", "dsplit", "dstack", "float_power", "greater", "greater_equal",
    "hsplit", "hstack", "index_copy", "inner", "is_complex", "is_floating_point", "is_nonzero",
    "is_same_size", "is_signed", "less", "less_equal", "logcumsumexp", "masked_scatter",
    "not_equal", "positive", "ravel", "row_stack", "sgn", "signbit", "split_with_sizes",
    "swapaxes", "swapdims", "take", "tensor_split", "tile", "broadcast_to", "vdot", "vsplit",
    "vstack",
]


def _node(name, out, inputs, backward, saved=None):
    """`out` (computed with grad mode off) becomes the output of one node `name` over `inputs`
    (tensors or None) when grad mode is on and one of them requires grad; `backward(g)` returns
    one gradient (or None) per input, in gradrs ops so they record under create_graph.
    `saved`: the `(name, value)`s PyTorch's node shows as `_saved_<name>` (`...` for a tensor
    it saves only when a gradient needs it)."""
    live = [t if isinstance(t, Tensor) else None for t in inputs]
    if _native.is_grad_enabled() and any(t is not None and t.requires_grad for t in live):
        _native._attach_node(out, live, name, lambda g: list(backward(g)),
                             saved=saved(live) if callable(saved) else saved)
    return out


def _if(t, needed):
    """`t` saved when the gradient that reads it is needed, else not (`...`), as PyTorch's
    generated nodes save."""
    return t if needed else ...


def _forward_tangent(out, inputs, jvp):
    """Forward mode: `out`'s tangent by PyTorch's forward formula ``jvp(*tangents)`` (zeros for
    an input without one) in place of the one its composition carried."""
    from .autograd import forward_ad

    if forward_ad._current_level < 0 or not _native._is_fwd_grad_enabled():
        return
    tangents = [forward_ad.unpack_dual(t).tangent if isinstance(t, Tensor) else None
                for t in inputs]
    if all(t is None for t in tangents):
        return
    tangents = [_G.zeros_like(x) if t is None and isinstance(x, Tensor) else t
                for x, t in zip(inputs, tangents)]
    _native._set_fwd_grad_enabled(False)  # the formula's own ops carry no tangents
    try:
        t = jvp(*tangents).to(out.dtype)
    finally:
        _native._set_fwd_grad_enabled(True)
    if tuple(t.shape) != tuple(out.shape):
        t = t.expand(out.shape).contiguous()
    from .linalg import _fresh_layout

    _native._set_tangent(out, _fresh_layout(t, out), fresh=True)  # kept with its history


def _reduce_to(g, shape):
    """`g` summed down to `shape` (the broadcasting an input went through)."""
    return g if tuple(g.shape) == tuple(shape) else sum_to_size(g, *shape)


# ---- aliases ----------------------------------------------------------------------------------

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


def _strict(name, *args):
    """PyTorch's TypeError for a function whose size argument must be one sequence (Note
    [Strict int lists] in `_argparse`)."""
    err = _argparse.error(name, args, {})
    if err is not None:
        raise err


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


# ---- splits and stacks ------------------------------------------------------------------------

def tensor_split(input, indices_or_sections, dim=0):
    """`gradrs.tensor_split(input, indices_or_sections, dim=0)`: views along `dim`, split into
    `n` near-equal parts (the first `size % n` one longer) or at the given indices.

    Examples:
        >>> gradrs.tensor_split(gradrs.arange(5), 2)
        (tensor([0, 1, 2]), tensor([3, 4]))
    """
    if input.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    arg = indices_or_sections
    if isinstance(arg, Tensor):
        if arg.is_floating_point() or arg.dtype != _G.int64:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to have dtype "
                               f"of long, but got {_dtype_name(arg.dtype)}")
        if arg.dim() > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a "
                               "zero-dimensional or one-dimensional tensor, but got a tensor "
                               f"with {arg.dim()} dims")
        arg = int(arg.item()) if arg.dim() == 0 else [int(v) for v in arg.tolist()]
    d = dim + input.dim() if dim < 0 else dim
    if not 0 <= d < input.dim():
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-input.dim()}, {input.dim() - 1}], but got {dim})")
    size = input.shape[d]
    if isinstance(arg, bool) or not isinstance(arg, (int, list, tuple)):
        raise TypeError(f"tensor_split() received an invalid combination of arguments - got "
                        f"(Tensor, {type(arg).__name__}), but expected one of:\n"
                        " * (Tensor input, tuple of ints indices, int dim = 0)\n"
                        " * (Tensor input, Tensor tensor_indices_or_sections, int dim = 0)\n"
                        " * (Tensor input, int sections, int dim = 0)\n")
    if isinstance(arg, int):
        if arg <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {arg}")
        base, extra = divmod(size, arg)
        bounds, start = [], 0
        for i in range(arg):
            bounds.append((start, start + base + (1 if i < extra else 0)))
            start = bounds[-1][1]
    else:
        bounds, start = [], 0
        for idx in list(arg) + [size]:
            idx = builtins.max(0, builtins.min(size, idx + size if idx < 0 else idx))
            start = builtins.min(start, size)
            bounds.append((start, builtins.max(start, idx)))
            start = idx
    return tuple(input.narrow(d, a, b - a) for a, b in bounds)


def _split_n(name, input, arg, need, dim):
    if input.dim() < need:
        if need == 1:
            raise RuntimeError(f"gradrs.{name} requires a tensor with at least 1 dimension, but "
                               f"got a tensor with {input.dim()} dimensions!")
        raise RuntimeError(f"gradrs.{name} requires a tensor with at least {need} dimension, but "
                           f"got a tensor with {input.dim()} dimensions!")
    if isinstance(arg, int) and not isinstance(arg, bool):
        if arg == 0 or input.shape[dim] % arg:
            raise RuntimeError(f"gradrs.{name} attempted to split along dimension {dim}, but the "
                               f"size of the dimension {input.shape[dim]} is not divisible by "
                               f"the split_size {arg}!")
    return tensor_split(input, arg, dim)


def hsplit(input, indices_or_sections):
    """`gradrs.hsplit`: `tensor_split` along dim 1 (dim 0 for a 1-D input).

    Examples:
        >>> [t.shape for t in gradrs.hsplit(gradrs.ones(2, 4), 2)]
        [gradrs.Size([2, 2]), gradrs.Size([2, 2])]
    """
    return _split_n("hsplit", input, indices_or_sections, 1, 1 if input.dim() > 1 else 0)


def vsplit(input, indices_or_sections):
    """`gradrs.vsplit`: `tensor_split` along dim 0 of an input of at least 2 dims.

    Examples:
        >>> [t.shape for t in gradrs.vsplit(gradrs.ones(4, 2), 2)]
        [gradrs.Size([2, 2]), gradrs.Size([2, 2])]
    """
    return _split_n("vsplit", input, indices_or_sections, 2, 0)


def dsplit(input, indices_or_sections):
    """`gradrs.dsplit`: `tensor_split` along dim 2 of an input of at least 3 dims.

    Examples:
        >>> [t.shape for t in gradrs.dsplit(gradrs.ones(1, 1, 4), 2)]
        [gradrs.Size([1, 1, 2]), gradrs.Size([1, 1, 2])]
    """
    return _split_n("dsplit", input, indices_or_sections, 3, 2)


def split_with_sizes(input, split_sizes, dim=0):
    """`gradrs.split_with_sizes`: `split` with a list of sizes (SplitWithSizesBackward0).

    Examples:
        >>> [t.shape for t in gradrs.split_with_sizes(gradrs.ones(5), [2, 3])]
        [gradrs.Size([2]), gradrs.Size([3])]
    """
    return input.split(list(split_sizes), dim)


def _tensor_list(name, tensors):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        f"not {type(tensors).__name__}")
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return list(tensors)


def _cat(name, parts, dim, out, tensors):
    if out is not None:
        return _with_out(name, out, lambda: _G.cat(parts, dim), (tensors,))
    return _G.cat(parts, dim)


def hstack(tensors, *, out=None):
    """`gradrs.hstack`: `cat` of the `atleast_1d` tensors along dim 0 (1-D) or 1.

    Examples:
        >>> gradrs.hstack((gradrs.tensor([1, 2]), gradrs.tensor([3])))
        tensor([1, 2, 3])
    """
    parts = atleast_1d(*_tensor_list("hstack", tensors))
    parts = [parts] if isinstance(parts, Tensor) else list(parts)
    return _cat("hstack", parts, 0 if parts[0].dim() == 1 else 1, out, tensors)


def vstack(tensors, *, out=None):
    """`gradrs.vstack` (and `row_stack`): `cat` of the `atleast_2d` tensors along dim 0.

    Examples:
        >>> gradrs.vstack((gradrs.tensor([1, 2]), gradrs.tensor([3, 4])))
        tensor([[1, 2],
                [3, 4]])
    """
    parts = atleast_2d(*_tensor_list("vstack", tensors))
    parts = [parts] if isinstance(parts, Tensor) else list(parts)
    return _cat("vstack", parts, 0, out, tensors)


def row_stack(tensors, *, out=None):
    """`gradrs.row_stack`: alias of `vstack`.

    Examples:
        >>> gradrs.row_stack((gradrs.tensor([1, 2]), gradrs.tensor([3, 4])))
        tensor([[1, 2],
                [3, 4]])
    """
    if isinstance(tensors, (list, tuple)) and not tensors:
        raise RuntimeError("vstack expects a non-empty TensorList")
    parts = atleast_2d(*_tensor_list("row_stack", tensors))
    parts = [parts] if isinstance(parts, Tensor) else list(parts)
    return _cat("row_stack", parts, 0, out, tensors)


def dstack(tensors, *, out=None):
    """`gradrs.dstack`: `cat` of the `atleast_3d` tensors along dim 2.

    Examples:
        >>> gradrs.dstack((gradrs.tensor([1, 2]), gradrs.tensor([3, 4])))
        tensor([[[1, 3],
                 [2, 4]]])
    """
    parts = atleast_3d(*_tensor_list("dstack", tensors))
    parts = [parts] if isinstance(parts, Tensor) else list(parts)
    return _cat("dstack", parts, 2, out, tensors)


def column_stack(tensors, *, out=None):
    """`gradrs.column_stack`: 0-D and 1-D tensors as columns, then `cat` along dim 1.

    Examples:
        >>> gradrs.column_stack((gradrs.tensor([1, 2]), gradrs.tensor([3, 4])))
        tensor([[1, 3],
                [2, 4]])
    """
    parts = [t.reshape(t.numel(), 1) if t.dim() <= 1 else t
             for t in _tensor_list("column_stack", tensors)]
    return _cat("column_stack", parts, 1, out, tensors)


# ---- factories from a tensor and predicates ----------------------------------------------------

def _sizes(size):
    return tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else tuple(size)


def _new_factory(name, native, doc):
    """`Tensor.<name>(*size, dtype=None, device=None, requires_grad=False, ...)` around the
    native `new_zeros` / `new_ones` (which parse the sizes, `size=` included)."""
    def method(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
               pin_memory=False, **kwargs):
        out = native(self, *size, **kwargs)
        if dtype is not None and dtype != out.dtype:
            out = out.to(dtype)
        if device is not None:
            out = out.to(device)
        return out.requires_grad_() if requires_grad else out

    method.__name__ = method.__qualname__ = name
    method.__doc__ = doc
    return method


def _new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False,
              layout=None, pin_memory=False):
    """A tensor of shape `size` filled with `fill_value`, with this tensor's dtype and device
    unless `dtype` / `device` say otherwise.

    Args:
        size: the new tensor's shape (a list or tuple).
        fill_value: the value of every element.
        dtype: the dtype (default: this tensor's).
        device: the device (default: this tensor's).
        requires_grad: record operations on the result (default False).
        layout: only `gradrs.strided`.
        pin_memory: accepted for PyTorch's signature.

    Examples:
        >>> gradrs.ones(2, dtype=gradrs.float64).new_full((2, 2), 7)
        tensor([[7., 7.],
                [7., 7.]], dtype=gradrs.float64)
    """
    out = _G.full(tuple(size), fill_value, dtype=self.dtype if dtype is None else dtype,
                       device=self.device if device is None else device)
    return out.requires_grad_() if requires_grad else out


def _new(self, *args, device=None):
    """`Tensor.new(...)`: PyTorch's legacy constructor in `self`'s dtype and device: no
    argument (an empty tensor), sizes, a sequence of data, or a tensor (returned as it is)."""
    dev = self.device if device is None else device
    if not args:
        return _G.empty((0,), dtype=self.dtype, device=dev)
    if len(args) == 1 and isinstance(args[0], Tensor):
        return args[0]
    if builtins.all(isinstance(a, int) and not isinstance(a, bool) for a in args):
        return _G.zeros(args, dtype=self.dtype, device=dev)
    if len(args) == 1 and isinstance(args[0], _G.Size):
        return _G.zeros(tuple(args[0]), dtype=self.dtype, device=dev)
    if len(args) == 1:
        return _G.tensor(args[0], dtype=self.dtype, device=dev)
    raise TypeError(f"new() received an invalid combination of arguments - got "
                    f"({', '.join(type(a).__name__ for a in args)})")


def is_floating_point(input):
    """`gradrs.is_floating_point(input)`.

    Examples:
        >>> gradrs.is_floating_point(gradrs.ones(1)), gradrs.is_floating_point(gradrs.tensor([1]))
        (True, False)
    """
    _check_tensor("is_floating_point", "input", 1, input)
    return input.is_floating_point()


def is_complex(input):
    """`gradrs.is_complex(input)`: gradrs has no complex dtypes, so False.

    Examples:
        >>> gradrs.is_complex(gradrs.ones(1))
        False
    """
    _check_tensor("is_complex", "input", 1, input)
    return False


def is_signed(input):
    """`gradrs.is_signed(input)`: False for bool (and unsigned) dtypes.

    Examples:
        >>> gradrs.is_signed(gradrs.tensor([1]))
        True
    """
    _check_tensor("is_signed", "input", 1, input)
    return input.dtype != _G.bool


def is_nonzero(input):
    """`gradrs.is_nonzero(input)`: the truth of a one-element tensor.

    Examples:
        >>> gradrs.is_nonzero(gradrs.tensor([0.5]))
        True
    """
    _check_tensor("is_nonzero", "input", 1, input)
    n = input.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return builtins.bool(input.item() != 0)


def is_same_size(input, other):
    """`gradrs.is_same_size(input, other)`: equal shapes.

    Examples:
        >>> gradrs.is_same_size(gradrs.ones(2, 3), gradrs.zeros(2, 3))
        True
    """
    _check_tensor("is_same_size", "input", 1, input)
    _check_tensor("is_same_size", "other", 2, other)
    return tuple(input.shape) == tuple(other.shape)


# ---- products -----------------------------------------------------------------------------------

def inner(input, other, *, out=None):
    """`gradrs.inner(input, other)`: the sum over the last dims (a product with a 0-D input),
    as PyTorch's `tensordot` (mm, then a view: ViewBackward0).

    Examples:
        >>> gradrs.inner(gradrs.tensor([1.0, 2.0]), gradrs.tensor([3.0, 4.0]))
        tensor(11.)
    """
    if out is not None:
        return _with_out("inner", out, lambda: inner(input, other), (input, other))
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but "
                           f"got shapes {list(input.shape)} and {list(other.shape)}")
    k = input.shape[-1]
    a = input.reshape(-1, k)
    b = other.reshape(-1, k)
    return a.mm(b.t()).reshape(tuple(input.shape[:-1]) + tuple(other.shape[:-1]))


def vdot(input, other, *, out=None):
    """`gradrs.vdot(input, other)`: the dot product of two 1-D tensors (VdotBackward0).

    Examples:
        >>> gradrs.vdot(gradrs.tensor([1.0, 2.0]), gradrs.tensor([3.0, 4.0]))
        tensor(11.)
    """
    if out is not None:
        return _with_out("vdot", out, lambda: vdot(input, other), (input, other))
    _check_tensor("vdot", "input", 1, input)
    _check_tensor("vdot", "other", 2, other)
    if input.dim() != 1 or other.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {other.dim()}D "
                           "tensors")
    if input.dtype != other.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                           f"{_dtype_name(input.dtype)} and {_dtype_name(other.dtype)}")
    if input.numel() != other.numel():
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{input.numel()}] and src "
            f"[{other.numel()}] to have the same number of elements, but got {input.numel()} "
            f"and {other.numel()} elements respectively")
    with _no_grad():
        res = input.dot(other)
    return _node("VdotBackward0", res, [input, other],
                 lambda g: (g * other if input.requires_grad else None,
                            g * input if other.requires_grad else None),
                 saved=[("other", _if(other, input.requires_grad)),
                        ("self", _if(input, other.requires_grad))])


def _beta_alpha(name, input, beta, alpha):
    """PyTorch's scalars for an integer input: addr refuses floats, the others truncate them."""
    if input.is_floating_point() or input.dtype == _G.bool:
        return beta, alpha
    if name == "addr":
        for v, n in ((beta, "beta"), (alpha, "alpha")):
            if isinstance(v, float):
                raise RuntimeError(f"For integral input tensors, argument {n} must not be a "
                                   "floating point number.")
    return int(beta), int(alpha)


def _affine(input, prod, beta, alpha):
    """`beta * input + alpha * prod` (input ignored, NaN included, when beta is 0)."""
    scaled = prod if alpha == 1 else prod * alpha
    if beta == 0:
        shape = _G.broadcast_shapes(input.shape, prod.shape)
        return scaled.expand(shape).clone()
    return (input if beta == 1 else input * beta) + scaled


def _scaled(g, s):
    return g if s == 1 else g * s


def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    """`gradrs.addmv(input, mat, vec, *, beta=1, alpha=1)`: `beta * input + alpha * mat @ vec`
    (AddmvBackward0).

    Examples:
        >>> gradrs.addmv(gradrs.ones(2), gradrs.ones(2, 3), gradrs.ones(3))
        tensor([4., 4.])
    """
    if out is not None:
        return _with_out("addmv", out,
                         lambda: addmv(input, mat, vec, beta=beta, alpha=alpha), (input, mat, vec))
    if mat.dim() != 2 or vec.dim() != 1 or input.dim() > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.dim()}, {mat.dim()}, "
                           f"{vec.dim()}")
    if mat.shape[1] != vec.shape[0] or (input.dim() == 1 and input.shape[0] not in
                                        (1, mat.shape[0])):
        inp = "x".join(map(str, input.shape))
        raise RuntimeError(f"size mismatch, got input ({inp}), mat ({mat.shape[0]}x"
                           f"{mat.shape[1]}), vec ({vec.shape[0]})")
    beta, alpha = _beta_alpha("addmv", input, beta, alpha)
    with _no_grad():
        res = _affine(input, mat.mv(vec), beta, alpha)

    def backward(g):
        return (_reduce_to(_scaled(g, beta), input.shape) if input.requires_grad else None,
                _scaled(g.unsqueeze(1) * vec.unsqueeze(0), alpha) if mat.requires_grad else None,
                _scaled(mat.t().mv(g), alpha) if vec.requires_grad else None)

    return _node("AddmvBackward0", res, [input, mat, vec], backward,
                 saved=[("alpha", alpha), ("beta", beta), ("mat", _if(mat, vec.requires_grad)),
                        ("vec", _if(vec, mat.requires_grad))])


def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    """`gradrs.addr(input, vec1, vec2, *, beta=1, alpha=1)`: `beta * input + alpha * outer(vec1,
    vec2)` (AddrBackward0).

    Examples:
        >>> gradrs.addr(gradrs.zeros(2, 2), gradrs.tensor([1.0, 2.0]), gradrs.tensor([3.0, 4.0]))
        tensor([[3., 4.],
                [6., 8.]])
    """
    if out is not None:
        return _with_out("addr", out,
                         lambda: addr(input, vec1, vec2, beta=beta, alpha=alpha),
                         (input, vec1, vec2))
    for v, n in ((vec1, "vec1"), (vec2, "vec2")):
        if v.dim() != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {n}, but got {v.dim()}-D")
    beta, alpha = _beta_alpha("addr", input, beta, alpha)
    target = (vec1.shape[0], vec2.shape[0])
    input.expand(target)  # PyTorch's broadcasting check and message
    with _no_grad():
        res = _affine(input, vec1.unsqueeze(1) * vec2.unsqueeze(0), beta, alpha)

    def backward(g):
        return (_reduce_to(_scaled(g, beta), input.shape) if input.requires_grad else None,
                _scaled(g.mv(vec2), alpha) if vec1.requires_grad else None,
                _scaled(g.t().mv(vec1), alpha) if vec2.requires_grad else None)

    return _node("AddrBackward0", res, [input, vec1, vec2], backward,
                 saved=[("alpha", alpha), ("beta", beta),
                        ("vec1", _if(vec1, vec2.requires_grad)),
                        ("vec2", _if(vec2, vec1.requires_grad))])


def _check_bmm(batch1, batch2, baddbmm=False):
    for b, n in ((batch1, "batch1"), (batch2, "batch2")):
        if b.dim() != 3:
            raise RuntimeError(f"{n} must be a 3D tensor")
    want = [batch1.shape[0], batch1.shape[2]]
    if baddbmm and list(batch2.shape[:2]) != want:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"{want} but got: {list(batch2.shape[:2])}.")
    if batch1.shape[0] != batch2.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got "
                           f"{batch1.shape[0]} and {batch2.shape[0]}")
    if batch1.shape[2] != batch2.shape[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({batch1.shape[1]}x"
                           f"{batch1.shape[2]} and {batch2.shape[1]}x{batch2.shape[2]})")


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """`gradrs.baddbmm(input, batch1, batch2, *, beta=1, alpha=1)`: `beta * input + alpha *
    batch1 @ batch2`, batch by batch (BaddbmmBackward0).

    Examples:
        >>> gradrs.baddbmm(gradrs.zeros(1, 2, 2), gradrs.ones(1, 2, 3), gradrs.ones(1, 3, 2))
        tensor([[[3., 3.],
                 [3., 3.]]])
    """
    if out is not None:
        return _with_out("baddbmm", out,
                         lambda: baddbmm(input, batch1, batch2, beta=beta, alpha=alpha),
                         (input, batch1, batch2))
    _check_bmm(batch1, batch2, True)
    beta, alpha = _beta_alpha("baddbmm", input, beta, alpha)
    input.expand(batch1.shape[0], batch1.shape[1], batch2.shape[2])
    with _no_grad():
        res = _affine(input, batch1.bmm(batch2), beta, alpha)

    def backward(g):
        return (_reduce_to(_scaled(g, beta), input.shape) if input.requires_grad else None,
                _scaled(g.bmm(batch2.transpose(1, 2)), alpha) if batch1.requires_grad else None,
                _scaled(batch1.transpose(1, 2).bmm(g), alpha) if batch2.requires_grad else None)

    return _node("BaddbmmBackward0", res, [input, batch1, batch2], backward,
                 saved=[("alpha", alpha), ("batch1", _if(batch1, batch2.requires_grad)),
                        ("batch2", _if(batch2, batch1.requires_grad)), ("beta", beta)])


def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """`gradrs.addbmm(input, batch1, batch2, *, beta=1, alpha=1)`: `beta * input + alpha *` the
    sum over the batch of `batch1[i] @ batch2[i]` (AddbmmBackward0).

    Examples:
        >>> gradrs.addbmm(gradrs.zeros(2, 2), gradrs.ones(3, 2, 4), gradrs.ones(3, 4, 2))
        tensor([[12., 12.],
                [12., 12.]])
    """
    if out is not None:
        return _with_out("addbmm", out,
                         lambda: addbmm(input, batch1, batch2, beta=beta, alpha=alpha),
                         (input, batch1, batch2))
    _check_bmm(batch1, batch2)
    beta, alpha = _beta_alpha("addbmm", input, beta, alpha)
    input.expand(batch1.shape[1], batch2.shape[2])
    with _no_grad():
        res = _affine(input, batch1.bmm(batch2).sum(0), beta, alpha)

    def backward(g):
        n = batch1.shape[0]
        gb = g.unsqueeze(0).expand(n, *g.shape)
        return (_reduce_to(_scaled(g, beta), input.shape) if input.requires_grad else None,
                _scaled(gb.bmm(batch2.transpose(1, 2)), alpha) if batch1.requires_grad else None,
                _scaled(batch1.transpose(1, 2).bmm(gb), alpha) if batch2.requires_grad else None)

    return _node("AddbmmBackward0", res, [input, batch1, batch2], backward)


# ---- diagonals ---------------------------------------------------------------------------------

def _wrap(dim, n):
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return dim + n if dim < 0 else dim


def _diagonal_scatter(g, shape, offset, dim1, dim2):
    """Zeros of `shape` with `g` on the diagonal (`offset`, `dim1`, `dim2`): differentiable in
    `g` (a copy into a view of fresh zeros)."""
    z = _G.zeros(tuple(shape), dtype=g.dtype, device=g.device)
    z.diagonal(offset, dim1, dim2).copy_(g)
    return z


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """`gradrs.diag_embed(input, offset=0, dim1=-2, dim2=-1)`: the last dim of `input` on the
    diagonals of the planes (`dim1`, `dim2`) of a new tensor (DiagEmbedBackward0).

    Examples:
        >>> gradrs.diag_embed(gradrs.tensor([[1.0, 2.0]]))
        tensor([[[1., 0.],
                 [0., 2.]]])
    """
    _check_tensor("diag_embed", "input", 1, input)
    n = input.dim() + 1
    d1, d2 = _wrap(dim1, n), _wrap(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    size = (input.shape[-1] if input.dim() else 1) + builtins.abs(offset)
    rest = list(input.shape[:-1])
    shape = []
    for i in range(n):
        shape.append(size if i in (d1, d2) else rest.pop(0))
    with _no_grad():
        res = _diagonal_scatter(input if input.dim() else input.reshape(1), shape, offset, d1, d2)
    return _node("DiagEmbedBackward0", res, [input],
                 lambda g: (g.diagonal(offset, d1, d2).reshape(input.shape),))


def diag(input, diagonal=0, *, out=None):
    """`gradrs.diag(input, diagonal=0)`: a 1-D input on a diagonal of a square matrix
    (DiagEmbedBackward0), or a copy of a 2-D input's diagonal (DiagonalBackward0_copy).

    Examples:
        >>> gradrs.diag(gradrs.tensor([1.0, 2.0]))
        tensor([[1., 0.],
                [0., 2.]])
    """
    if out is not None:
        return _with_out("diag", out, lambda: diag(input, diagonal), (input,))
    _check_tensor("diag", "input", 1, input)
    if input.dim() == 1:
        return diag_embed(input, diagonal, 0, 1)
    if input.dim() != 2:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.dim()}D")
    with _no_grad():
        res = input.diagonal(diagonal).clone()
    return _node("DiagonalBackward0_copy", res, [input],
                 lambda g: (_diagonal_scatter(g, input.shape, diagonal, 0, 1),))


def diagflat(input, offset=0):
    """`gradrs.diagflat(input, offset=0)`: the flattened input on a diagonal of a matrix.

    Examples:
        >>> gradrs.diagflat(gradrs.tensor([[1.0, 2.0]]))
        tensor([[1., 0.],
                [0., 2.]])
    """
    _check_tensor("diagflat", "input", 1, input)
    return diag_embed(input.contiguous().view(-1), offset, 0, 1)


# ---- gathers and scatters ----------------------------------------------------------------------

def take(input, index):
    """`gradrs.take(input, index)`: the elements of the flattened input at `index` (any shape,
    negative indices from the end) (TakeBackward0).

    Examples:
        >>> gradrs.take(gradrs.tensor([[1, 2], [3, 4]]), gradrs.tensor([0, 3]))
        tensor([1, 4])
    """
    _check_tensor("take", "input", 1, input)
    _check_tensor("take", "index", 2, index)
    if index.dtype != _G.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got "
                           f"{_dtype_name(index.dtype)}")
    n = input.numel()
    if index.numel():
        lo, hi = int(index.min().item()), int(index.max().item())
        for v in (lo, hi):
            if v < -n or v >= n:
                if n == 0:
                    raise IndexError("take(): tried to take from an empty tensor")
                raise IndexError(f"out of range: tried to access index {v} on a tensor of {n} "
                                 "elements.")
    flat_index = _G.where(index < 0, index + n, index).reshape(-1)
    with _no_grad():
        res = input.reshape(-1)[flat_index].reshape(index.shape)

    def backward(g):
        z = _G.zeros((n,), dtype=g.dtype, device=g.device)
        return (z.index_add(0, flat_index, g.reshape(-1)).reshape(input.shape), None)

    return _node("TakeBackward0", res, [input, index], backward)


def index_copy(input, dim, index, source):
    """`gradrs.index_copy(input, dim, index, source)`: a copy of `input` whose slices at `index`
    along `dim` are `source`'s (IndexCopyBackward0).

    Examples:
        >>> gradrs.index_copy(gradrs.zeros(3), 0, gradrs.tensor([0, 2]), gradrs.tensor([5.0, 7.0]))
        tensor([5., 0., 7.])
    """
    _check_tensor("index_copy", "input", 1, input)
    if not isinstance(index, Tensor) or index.dtype != _G.int64:
        raise RuntimeError("index_copy_(): Expected a long tensor for index, but got "
                           f"{_dtype_name(index.dtype)}")
    if index.dim() > 1:
        raise IndexError("index_copy_(): Index should have dimension 1 or 0 (got "
                         f"{index.dim()})")
    if source.dtype != input.dtype:
        raise RuntimeError("index_copy_(): self and source expected to have the same dtype, "
                           f"but got (self) {_dtype_name(input.dtype)} and (source) "
                           f"{_dtype_name(source.dtype)}")
    d = _wrap(dim, builtins.max(input.dim(), 1))
    idx = index.reshape(-1)
    n = input.shape[d] if input.dim() > 0 else 1
    bad = (idx < 0) | (idx >= n)
    if bool(bad.any()):  # PyTorch checks every index, negative ones too
        raise IndexError(f"index_copy_(): index {int(idx[bad][0])} is out of bounds for "
                         f"dimension {d} with size {n}")
    if input.dim() == 0:
        sel = (idx,)
        inp, src = input.reshape(1), source.reshape(-1)
    else:
        sel = (slice(None),) * d + (idx,)
        inp, src = input, source
    if src.dim() > 0 and idx.numel() != (src.shape[d] if src.dim() > d else 1):
        raise IndexError("index_copy_(): Number of indices (" + str(idx.numel()) + ") should "
                         "be equal to source.size(dim) (" + str(src.shape[d]) + ")")
    with _no_grad():
        res = inp.clone()
        res[sel] = src
        res = res.reshape(input.shape)

    def backward(g):
        gi = gs = None
        gv = g if input.dim() else g.reshape(1)
        if input.requires_grad:
            gi = gv.index_fill(0 if input.dim() == 0 else d, idx, 0).reshape(input.shape)
        if isinstance(source, Tensor) and source.requires_grad:
            gs = gv.index_select(0 if input.dim() == 0 else d, idx).reshape(source.shape)
        return gi, None, gs

    return _node("IndexCopyBackward0", res, [input, index, source], backward)


def masked_scatter(input, mask, source):
    """`gradrs.masked_scatter(input, mask, source)`: `input` (broadcast with `mask`) with the
    masked positions filled, in order, from the first elements of `source`
    (MaskedScatterBackward0).

    Examples:
        >>> gradrs.masked_scatter(gradrs.zeros(3), gradrs.tensor([True, False, True]), gradrs.tensor([1.0, 2.0]))
        tensor([1., 0., 2.])
    """
    _check_tensor("masked_scatter", "input", 1, input)
    if mask.dtype != _G.bool:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with "
                           f"dtype {_dtype_name(mask.dtype)}")
    if input.dtype != source.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but "
                           f"got{_dtype_name(input.dtype)} and {_dtype_name(source.dtype)}")
    shape = tuple(_G.broadcast_shapes(input.shape, mask.shape))
    m = mask.expand(shape)
    count = int(m.sum().item())
    if count > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    with _no_grad():
        res = input.expand(shape).clone()
        res[m] = source.reshape(-1)[:count]

    def backward(g):
        gi = gs = None
        if input.requires_grad:
            gi = _reduce_to(g.masked_fill(m, 0), input.shape)
        if source.requires_grad:
            flat = g[m]
            pad = _G.zeros((source.numel() - count,), dtype=g.dtype, device=g.device)
            gs = _G.cat([flat, pad]).reshape(source.shape)
        return gi, None, gs

    return _node("MaskedScatterBackward0", res, [input, mask, source], backward)


def sum_to_size(input, *size):
    """`input.sum_to_size(*size)`: `input` summed down to `size` (which must expand to its
    shape): SumBackward1 over the size-1 dims, a view off the leading ones."""
    size = _sizes(size)
    shape = tuple(input.shape)
    lead = len(shape) - len(size)
    if lead < 0 or builtins.any(s != 1 and s != shape[lead + i] for i, s in enumerate(size)):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    if shape == size:
        return input
    dims = list(range(lead)) + [lead + i for i, s in enumerate(size)
                                if s == 1 and shape[lead + i] != 1]
    out = input.sum(dims, keepdim=True) if dims else input
    return out.view(size) if lead else out


# ---- pointwise -----------------------------------------------------------------------------------

def float_power(input, exponent, *, out=None):
    """`gradrs.float_power(input, exponent)`: `pow` computed in float64.

    Examples:
        >>> gradrs.float_power(gradrs.tensor([2, 3]), 2)
        tensor([4., 9.], dtype=gradrs.float64)
    """
    if out is not None:
        return _with_out("float_power", out, lambda: float_power(input, exponent),
                         (input, exponent))
    if isinstance(input, Tensor):
        base = input.to(_G.float64)
    else:
        base = float(input)
    if isinstance(exponent, Tensor):
        exponent = exponent.to(_G.float64)
    elif not isinstance(exponent, bool):
        exponent = float(exponent)
    if not isinstance(base, Tensor):
        return _G.pow(base, exponent)
    return base.pow(exponent)


def _float_power_(self, exponent):
    """In-place `float_power`: raises this float64 tensor to `exponent` (a number or a tensor,
    computed in float64) and returns it; any other dtype raises PyTorch's RuntimeError."""
    if self.dtype != _G.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype "
                           f"{_dtype_name(self.dtype)} but the operation's result requires "
                           "dtype Double")
    if isinstance(exponent, Tensor):
        exponent = exponent.to(_G.float64)
    elif not isinstance(exponent, bool):
        exponent = float(exponent)
    return self.pow_(exponent)


def sgn(input, *, out=None):
    """`gradrs.sgn(input)`: the sign of a real tensor (SgnBackward0, zero gradient).

    Examples:
        >>> gradrs.sgn(gradrs.tensor([-2.0, 0.0, 3.0]))
        tensor([-1.,  0.,  1.])
    """
    if out is not None:
        return _with_out("sgn", out, lambda: sgn(input), (input,))
    _check_tensor("sgn", "input", 1, input)
    with _no_grad():
        res = input.sign()
    return _node("SgnBackward0", res, [input], lambda g: (_G.zeros_like(g),))


def signbit(input, *, out=None):
    """`gradrs.signbit(input)`: True where the sign bit is set (-0.0 and negative NaN too).

    Examples:
        >>> gradrs.signbit(gradrs.tensor([-2.0, 0.0, 3.0]))
        tensor([ True, False, False])
    """
    if out is not None:
        return _with_out("signbit", out, lambda: signbit(input), (input,))
    _check_tensor("signbit", "input", 1, input)
    x = input.detach()
    if x.dtype == _G.bool:
        return _G.zeros(tuple(x.shape), dtype=_G.bool, device=x.device)
    if not x.is_floating_point():
        return x < 0
    return _G.ones_like(x).copysign(x) < 0


def logcumsumexp(input, dim, *, out=None):
    """`gradrs.logcumsumexp(input, dim)`: `log(cumsum(exp(input)))` along `dim`, shifted by the
    max for range (LogcumsumexpBackward0).

    Examples:
        >>> gradrs.logcumsumexp(gradrs.tensor([0.0, 0.0, 0.0]), dim=0)
        tensor([0.0000, 0.6931, 1.0986])
    """
    if out is not None:
        return _with_out("logcumsumexp", out, lambda: logcumsumexp(input, dim), (input,))
    _check_tensor("logcumsumexp", "input", 1, input)
    if not input.is_floating_point():
        raise NotImplementedError(f'"logcumsumexp_out_cpu" not implemented for '
                                  f"'{_dtype_name(input.dtype)}'")
    d = _wrap(dim, builtins.max(input.dim(), 1))
    half = input.dtype == _G.float16  # computed in float32, as PyTorch's half kernels
    with _no_grad():
        res = _logcumsumexp(input.float(), d).half() if half else _logcumsumexp(input, d)

    def backward(g):
        if g.dim() == 0 or g.numel() == 0:
            return (g,)
        if half:
            return (_logcumsumexp_grad(g.float(), input.float(), res.float(), d).half(),)
        return (_logcumsumexp_grad(g, input, res, d),)

    def jvp(t):
        # PyTorch's logcumsumexp_jvp: exp-normalized by the max along `d`, eps in the
        # denominator (a prefix of -inf has tangent 0, not 0/0).
        x = input
        e = (x - x.amax(d, keepdim=True)).exp() if x.dim() else (x - x).exp()
        num = (e * t).cumsum(d if x.dim() else 0)
        return num / (e.cumsum(d if x.dim() else 0) + 1e-13)

    _forward_tangent(res, [input], jvp)
    return _node("LogcumsumexpBackward0", res, [input], backward)


def _logcumsumexp_grad(g, input, res, d):
    """PyTorch's formula: the positive and negative parts of `g` each through a reversed
    logcumsumexp in log space, so nothing overflows."""
    lowest = _G.finfo(g.dtype).min
    log_abs = g.abs().log()
    pos = _G.where(g > 0, log_abs, lowest)
    neg = _G.where(g < 0, log_abs, lowest)

    def rev(t):
        return logcumsumexp(t.flip(d), d).flip(d)

    return (rev(pos - res) + input).exp() - (rev(neg - res) + input).exp()


def _logcumsumexp(x, d):
    """The inclusive scan of logaddexp along `d`, in log2(n) doubling steps (Hillis-Steele), so
    no prefix underflows to -inf the way `log(cumsum(exp(x - max)))` does."""
    if x.dim() == 0 or x.numel() == 0:
        return x.clone()
    n, y, k = x.shape[d], x, 1
    while k < n:
        y = _G.cat([y.narrow(d, 0, k),
                    _G.logaddexp(y.narrow(d, k, n - k), y.narrow(d, 0, n - k))], d)
        k *= 2
    return y


# ---- statistics ------------------------------------------------------------------------------

def cov(input, *, correction=1, fweights=None, aweights=None):
    """`gradrs.cov(input, *, correction=1, fweights=None, aweights=None)`: the covariance matrix
    of the variables in the rows of `input` (observations in its columns), as PyTorch's.

    Examples:
        >>> gradrs.cov(gradrs.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0]]))
        tensor([[1., 2.],
                [2., 4.]])
    """
    _check_tensor("cov", "input", 1, input)
    if input.dim() > 2:
        raise RuntimeError("cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {input.dim()} dimensions")
    if input.dtype == _G.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input.view(1, -1) if input.dim() < 2 else input
    n = x.shape[1]
    w = None
    if fweights is not None:
        w = fweights
        if w.dim() > 1:
            raise RuntimeError("cov(): expected fweights to have one or fewer dimensions but got "
                               f"fweights with {w.dim()} dimensions")
        if w.is_floating_point() or w.dtype == _G.bool:
            raise RuntimeError("cov(): expected fweights to have integral dtype but got fweights "
                               f"with {_dtype_name(w.dtype)} dtype")
        if w.numel() != n:
            raise RuntimeError("cov(): expected fweights to have the same numel as there are "
                               f"observations in the input but got {w.numel()} != {n}")
        if n and w.min().item() < 0:
            raise RuntimeError("cov(): fweights cannot be negative")
    if aweights is not None:
        aw = aweights
        if aw.dim() > 1:
            raise RuntimeError("cov(): expected aweights to have one or fewer dimensions but got "
                               f"aweights with {aw.dim()} dimensions")
        if not aw.is_floating_point():
            raise RuntimeError("cov(): expected aweights to have floating point dtype but got "
                               f"aweights with {_dtype_name(aw.dtype)} dtype")
        if aw.numel() != n:
            raise RuntimeError("cov(): expected aweights to have the same numel as there are "
                               f"observations in the input but got {aw.numel()} != {n}")
        if n and aw.min().item() < 0:
            raise RuntimeError("cov(): aweights cannot be negative")
        w = aw if w is None else w * aw
    if w is None:
        w_sum = _G.tensor(n, dtype=_G.int64, device=input.device)
    else:
        w_sum = w.sum()
        if w_sum.item() == 0:
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    avg = (x if w is None else x * w).sum(1) / w_sum
    if w is None or correction == 0:
        norm = w_sum - correction
    elif aweights is None:
        norm = w_sum - correction
    else:
        norm = w_sum - correction * (w * aweights).sum() / w_sum
    if norm.item() <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the number of observations.", UserWarning, stacklevel=2)
        norm = norm * 0
    x = x - avg.unsqueeze(1)
    c = x.mm((x if w is None else x * w).t())
    return c.true_divide(norm).squeeze()


def corrcoef(input):
    """`gradrs.corrcoef(input)`: Pearson's correlation coefficients of the rows of `input`.

    Examples:
        >>> gradrs.corrcoef(gradrs.tensor([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]]))
        tensor([[ 1., -1.],
                [-1.,  1.]])
    """
    _check_tensor("corrcoef", "input", 1, input)
    if input.dim() > 2:
        raise RuntimeError("corrcoef(): expected input to have two or fewer dimensions but got "
                           f"an input with {input.dim()} dimensions")
    c = cov(input)
    if c.dim() == 0:
        return c / c
    s = c.diagonal().sqrt()
    c = c / s.view(-1, 1)
    c = c / s.view(1, -1)
    return c.clip(-1, 1)


# ---- the Tensor methods --------------------------------------------------------------------------

def _as_method(fn):
    """`fn(input, ...)` as a Tensor method, its signature `fn`'s with `self` first."""
    return _method(fn)


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
for _fn in (positive, ravel, broadcast_to, tensor_split, hsplit, vsplit, dsplit,
            split_with_sizes, is_nonzero, is_signed, is_complex, is_same_size, inner, vdot,
            addmv, addr, baddbmm, addbmm, diag, diag_embed, diagflat, take, index_copy,
            masked_scatter, float_power, sgn, signbit, logcumsumexp, cov, corrcoef):
    setattr(Tensor, _fn.__name__, _as_method(_fn))


def _tile(self, *dims):
    """`Tensor.tile(*dims)`."""
    return _tile_dims(self, _sizes(dims))


def _sum_to_size(self, *size):
    """`Tensor.sum_to_size(*size)`."""
    return sum_to_size(self, *size)


def _outer(self, vec2):
    """`Tensor.outer(vec2)` (and `ger`)."""
    from . import outer

    return outer(self, vec2)


Tensor.tile = _tile
Tensor.sum_to_size = _sum_to_size
Tensor.outer = Tensor.ger = _outer
# gradrs hands out zeroed memory where PyTorch's new_empty is uninitialized.
_native_new_zeros, _native_new_ones = Tensor.new_zeros, Tensor.new_ones
Tensor.new_empty = _new_factory("new_empty", _native_new_zeros,
                                "`Tensor.new_empty(*size, dtype=None, device=None, ...)`.")
Tensor.new_zeros = _new_factory("new_zeros", _native_new_zeros,
                                "`Tensor.new_zeros(*size, dtype=None, device=None, ...)`.")
Tensor.new_ones = _new_factory("new_ones", _native_new_ones,
                               "`Tensor.new_ones(*size, dtype=None, device=None, ...)`.")
Tensor.new_full = _new_full
Tensor.new = _new
Tensor.float_power_ = _float_power_
del _alias, _target, _names, _fn


# ---- step 2: more functional forms, integer ops, statistics -------------------------------------

def _dt(t):
    return t.dtype if isinstance(t, Tensor) else None


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


def fmin(input, other, *, out=None):
    """`gradrs.fmin(input, other)`: the elementwise minimum, NaN only where both are NaN
    (FminBackward0).

    Examples:
        >>> gradrs.fmin(gradrs.tensor([1.0, float('nan')]), gradrs.tensor([2.0, 0.5]))
        tensor([1.0000, 0.5000])
    """
    if out is not None:
        return _with_out("fmin", out, lambda: fmin(input, other), (input, other))
    _check_tensor("fmin", "input", 1, input)
    _check_tensor("fmin", "other", 2, other)
    with _no_grad():
        m = _G.minimum(input, other)
        res = _G.where(input.isnan(), other.to(m.dtype),
                       _G.where(other.isnan(), input.to(m.dtype), m))

    def backward(g):
        take_self = (input <= other).logical_or(other.isnan())
        return (_reduce_to(g.masked_fill(take_self.logical_not(), 0), input.shape)
                if input.requires_grad else None,
                _reduce_to(g.masked_fill(take_self, 0), other.shape)
                if other.requires_grad else None)

    # PyTorch's forward formula: input's tangent where it is taken (ties and other NaN).
    _forward_tangent(res, [input, other], lambda ti, to: to + (
        (input <= other).logical_or(other.isnan()).to(res.dtype) * (ti - to)))
    return _node("FminBackward0", res, [input, other], backward)


def _int_only(op, *tensors):
    for t in tensors:
        if isinstance(t, Tensor) and (t.is_floating_point() or t.dtype == _G.bool):
            raise NotImplementedError(f'"{op}" not implemented for \'{_dtype_name(t.dtype)}\'')


def gcd(input, other, *, out=None):
    """`gradrs.gcd(input, other)`: the elementwise greatest common divisor (non-negative).

    Examples:
        >>> gradrs.gcd(gradrs.tensor([12, 18]), gradrs.tensor([8, 27]))
        tensor([4, 9])
    """
    if out is not None:
        return _with_out("gcd", out, lambda: gcd(input, other), (input, other))
    _check_tensor("gcd", "input", 1, input)
    _int_only("gcd_cpu", input, other)
    a, b = _G.broadcast_tensors(input.abs(), other.abs() if isinstance(other, Tensor)
                                else input * 0 + builtins.abs(other))
    a, b = a.clone(), b.clone()
    while bool((b != 0).any()):
        nz = b != 0
        r = _G.remainder(a, _G.where(nz, b, 1))
        a, b = _G.where(nz, b, a), _G.where(nz, r, 0)
    return a


def lcm(input, other, *, out=None):
    """`gradrs.lcm(input, other)`: the elementwise least common multiple, `|a / gcd * b|`.

    Examples:
        >>> gradrs.lcm(gradrs.tensor([4, 6]), gradrs.tensor([6, 4]))
        tensor([12, 12])
    """
    if out is not None:
        return _with_out("lcm", out, lambda: lcm(input, other), (input, other))
    _check_tensor("lcm", "input", 1, input)
    _int_only("lcm_cpu", input, other)
    g = gcd(input, other)
    return _G.where(g == 0, 0, (_G.div(input, _G.where(g == 0, 1, g), rounding_mode="trunc")
                                * other).abs())


def _shift(name, input, other, left):
    for t in (input, other):
        # a numpy bool is a float to PyTorch's parser (a Python bool is a bool)
        if isinstance(t, Tensor) and t.is_floating_point() or isinstance(
                t, (float, np.floating, np.bool_)):
            dt = _dtype_name(t.dtype) if isinstance(t, Tensor) else "Float"
            raise NotImplementedError(f'"{name}_cpu" not implemented for \'{dt}\'')
    a, b = input, other
    if isinstance(b, np.generic):
        b = b.item()  # a numpy number counts as a Python number (np.int32(2) is an int, not int32)
    if not isinstance(b, Tensor):
        b = _G.full_like(a, b) if a.dtype != _G.bool else _G.tensor(b, device=a.device)
    if not isinstance(a, Tensor):
        a = _G.tensor(a, device=b.device)
    ab = a + b * 0  # PyTorch's promotion (bool with an int becomes int64)
    a, b = a.to(ab.dtype), b.to(ab.dtype)
    bits = 32 if ab.dtype == _G.int32 else 64
    ok = (b >= 0) & (b < bits)
    s = _G.where(ok, b, 0)
    if left:
        # two's-complement wrap as PyTorch's: shift through a positive power of two in halves
        half = s // 2
        p1 = _G.ones_like(a) * 2
        return _G.where(ok, a * p1.pow(half) * p1.pow(s - half), 0).to(ab.dtype)
    p = _G.ones_like(a) * 2
    q = _G.where(s == bits - 1, a.sign().clamp(max=0), 0)  # 2**63 does not fit
    shifted = _G.div(a, p.pow(_G.where(s == bits - 1, 0, s)), rounding_mode="floor")
    return _G.where(ok, _G.where(s == bits - 1, q, shifted),
                    _G.where(a < 0, -1, 0).to(ab.dtype)).to(ab.dtype)


def bitwise_left_shift(input, other, *, out=None):
    """`gradrs.bitwise_left_shift(input, other)`: `input << other` (0 past the width).

    Examples:
        >>> gradrs.bitwise_left_shift(gradrs.tensor([1, 3]), 2)
        tensor([ 4, 12])
    """
    if out is not None:
        return _with_out("bitwise_left_shift", out, lambda: bitwise_left_shift(input, other),
                         (input, other))
    return _shift("lshift", input, other, True)


def bitwise_right_shift(input, other, *, out=None):
    """`gradrs.bitwise_right_shift(input, other)`: `input >> other`, arithmetic (sign fill).

    Examples:
        >>> gradrs.bitwise_right_shift(gradrs.tensor([8, 7]), 1)
        tensor([4, 3])
    """
    if out is not None:
        return _with_out("bitwise_right_shift", out, lambda: bitwise_right_shift(input, other),
                         (input, other))
    return _shift("rshift", input, other, False)


def _bitwise(name):
    def fn(input, other, *, out=None):
        if out is not None:
            return _with_out(name, out, lambda: fn(input, other), (input, other))
        if not isinstance(input, Tensor):
            return getattr(other, name)(input)
        return getattr(input, name)(other)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"`gradrs.{name}(input, other)`."
    return fn


bitwise_and = _bitwise("bitwise_and")
bitwise_or = _bitwise("bitwise_or")
bitwise_xor = _bitwise("bitwise_xor")


def bitwise_not(input, *, out=None):
    """`gradrs.bitwise_not(input)`.

    Examples:
        >>> gradrs.bitwise_not(gradrs.tensor([0, 5]))
        tensor([-1, -6])
    """
    if out is not None:
        return _with_out("bitwise_not", out, lambda: bitwise_not(input), (input,))
    return input.bitwise_not()


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """`gradrs.isin(elements, test_elements)`: True where an element occurs in
    `test_elements` (either may be a number).

    Examples:
        >>> gradrs.isin(gradrs.tensor([1, 2, 3]), gradrs.tensor([2, 5]))
        tensor([False,  True, False])
    """
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin() received an invalid combination of arguments - got (" +
                        f"{type(elements).__name__}, {type(test_elements).__name__})")
    dev = (elements if isinstance(elements, Tensor) else test_elements).device
    e = elements.detach() if isinstance(elements, Tensor) else _G.tensor(elements, device=dev)
    t = (test_elements.detach() if isinstance(test_elements, Tensor)
         else _G.tensor(test_elements, device=dev))
    hit = (e.unsqueeze(-1) == t.reshape(-1)).any(-1) if t.numel() else _G.zeros(
        tuple(e.shape), dtype=_G.bool, device=dev)
    return hit.logical_not() if invert else hit


def histc(input, bins=100, min=0, max=0, *, out=None):
    """`gradrs.histc(input, bins=100, min=0, max=0)`: counts in `bins` equal bins over
    [min, max] (the data's range when both are 0); elements outside are ignored.

    Examples:
        >>> gradrs.histc(gradrs.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3)
        tensor([0., 2., 1., 0.])
    """
    if out is not None:
        return _with_out("histc", out, lambda: histc(input, bins, min, max), (input,))
    _check_tensor("histc", "input", 1, input)
    if not input.is_floating_point():
        raise NotImplementedError(f'"histogram_cpu" not implemented for '
                                  f"'{_dtype_name(input.dtype)}'")
    if bins <= 0:
        raise RuntimeError(f"gradrs.histogram(): bins must be > 0, but got {bins} for "
                           "dimension 0")
    x = input.detach().reshape(-1)
    lo, hi = float(min), float(max)
    if lo == hi and x.numel():
        lo, hi = float(x.min().item()), float(x.max().item())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("gradrs.histc: max must be larger than min")
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"gradrs.histc: range of [{_fmt(lo)}, {_fmt(hi)}] is not finite")
    # PyTorch's arithmetic in the input's dtype: the edges and the span rounded to it, each
    # step of (x - lo) * bins / span rounded (float16 included).
    np_t = {_G.float16: np.float16, _G.float32: np.float32}.get(x.dtype, np.float64)
    lo, hi = float(np_t(lo)), float(np_t(hi))
    span = float(np_t(np_t(hi) - np_t(lo)))
    inside = (x >= lo) & (x <= hi)
    pos = (((x - lo) * bins) / span).floor().clamp(0, bins - 1).to(_G.int64)
    counts = _G.zeros((bins,), dtype=input.dtype, device=input.device)
    counts = counts.index_add(0, pos[inside], _G.ones_like(x)[inside])
    res = counts
    if _native.is_grad_enabled() and input.requires_grad:
        def backward(g):
            raise NotImplementedError("the derivative for 'histc' is not implemented.")

        _native._attach_node(res, [input], "HistcBackward0", backward)
    return res


def _fmt(v):
    return "-nan" if v != v else repr(v)


def get_device(input):
    """`gradrs.get_device(input)`: -1 for a CPU tensor, else the device index."""
    _check_tensor("get_device", "input", 1, input)
    return -1 if input.device.type == "cpu" else (input.device.index or 0)


def nanmedian(input, dim=None, keepdim=False, *, out=None):
    """`gradrs.nanmedian(input, dim=None, keepdim=False)`: the lower median of the non-NaN
    values (NaN where all are); with `dim`, (values, indices).

    Examples:
        >>> gradrs.nanmedian(gradrs.tensor([1.0, float('nan'), 3.0, 2.0]))
        tensor(2.)
    """
    if out is not None:
        return _with_out("nanmedian", out, lambda: nanmedian(input, dim, keepdim), (input,))
    _check_tensor("nanmedian", "input", 1, input)
    if dim is None:
        flat = input.reshape(-1)
        if flat.numel() == 0:
            res = _G.full((), math.nan, dtype=input.dtype, device=input.device)
            return _node("NanmedianBackward0", res, [input],
                         lambda g: (_G.zeros(tuple(input.shape), dtype=g.dtype,
                                             device=g.device),))
        with _no_grad():
            v, i = _nanmedian_dim(flat, 0)
        return _node("NanmedianBackward0", v, [input], lambda g: (_scatter_one(g, i, input),))
    d = _wrap(dim, builtins.max(input.dim(), 1))
    x = input if input.dim() else input.reshape(1)
    if x.shape[d] == 0:
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
    with _no_grad():
        v, i = _nanmedian_dim(x, d)
        if keepdim and input.dim():
            v, i = v.unsqueeze(d), i.unsqueeze(d)
        elif not input.dim():
            v, i = v.reshape(()), i.reshape(())

    def backward(g):
        gk = g if keepdim or not input.dim() else g.unsqueeze(d)
        ik = i if keepdim or not input.dim() else i.unsqueeze(d)
        z = _G.zeros(tuple(x.shape), dtype=g.dtype, device=g.device)
        return (z.scatter(d, ik.reshape(gk.shape) if input.dim() else ik.reshape(1),
                          gk if input.dim() else gk.reshape(1)).reshape(input.shape),)

    _node("NanmedianBackward1", [v, None], [input], lambda grads: backward(grads[0]))
    return _G.return_types.nanmedian((v, i)) if hasattr(_G.return_types, "nanmedian") else (v, i)


def _scatter_one(g, i, input):
    z = _G.zeros((input.numel(),), dtype=g.dtype, device=g.device)
    return z.scatter(0, i.reshape(1), g.reshape(1)).reshape(input.shape)


def _nanmedian_dim(x, d):
    """Values and indices of the lower median of the non-NaN entries along `d`."""
    s, idx = x.sort(d)
    count = x.isnan().logical_not().sum(d, keepdim=True)
    k = ((count - 1).clamp(min=0)) // 2
    return s.gather(d, k).squeeze(d), idx.gather(d, k).squeeze(d)


for _fn in (fmin, gcd, lcm, bitwise_left_shift, bitwise_right_shift, histc, get_device,
            nanmedian):
    setattr(Tensor, _fn.__name__, _as_method(_fn))


def _shift_dunder(name, shift, reflected):
    # PyTorch's dunders turn a TypeError into NotImplemented, so Python (or numpy, for an
    # ndarray operand) gets its turn: `t << ndarray` is numpy's left_shift wrapped in a Tensor.
    def method(self, other):
        if not isinstance(other, (Tensor, int, float, np.number, np.bool_)):
            return NotImplemented
        try:
            return shift(other, self) if reflected else shift(self, other)
        except TypeError:
            return NotImplemented

    method.__name__, method.__qualname__ = name, f"Tensor.{name}"
    return method


_rlshift = _shift_dunder("__rlshift__", bitwise_left_shift, True)
_rrshift = _shift_dunder("__rrshift__", bitwise_right_shift, True)


def _in_place(name, compute):
    def method(self, other):
        return self.copy_(compute(self, other))

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"`Tensor.{name}(other)`: the result written into `self`."
    return method


def _bitwise_not_(self):
    """`Tensor.bitwise_not_()`."""
    return self.copy_(self.bitwise_not())


_lshift = _shift_dunder("__lshift__", bitwise_left_shift, False)
_rshift = _shift_dunder("__rshift__", bitwise_right_shift, False)


def _true_divide(self, other):
    """`Tensor.true_divide(other)`: `div` without a rounding mode."""
    return self.div(other)


def _true_divide_(self, other):
    """`Tensor.true_divide_(other)`: `div_` without a rounding mode."""
    return self.div_(other)


Tensor.__lshift__ = _lshift
Tensor.__rshift__ = _rshift
Tensor.true_divide = _true_divide
Tensor.true_divide_ = _true_divide_
Tensor.swapaxes = _method(swapaxes)
Tensor.swapdims = _method(swapdims)
Tensor.__rlshift__ = _rlshift
Tensor.__rrshift__ = _rrshift
Tensor.gcd_ = _in_place("gcd_", gcd)
Tensor.lcm_ = _in_place("lcm_", lcm)
Tensor.bitwise_left_shift_ = _in_place("bitwise_left_shift_", bitwise_left_shift)
Tensor.bitwise_right_shift_ = _in_place("bitwise_right_shift_", bitwise_right_shift)
Tensor.__ilshift__ = _in_place("__ilshift__", bitwise_left_shift)
Tensor.__irshift__ = _in_place("__irshift__", bitwise_right_shift)


def _in_place_dunder(name, method):
    # `t //= x` must write into `t` (without it Python rebinds `t` to `t // x`); an operand that
    # is no tensor or number gives NotImplemented, as PyTorch's, so `t //= ndarray` falls back
    # to `t // ndarray`; a result the tensor cannot hold is refused before the kernel runs.
    def dunder(self, other):
        if not isinstance(other, (Tensor, int, float, np.number, np.bool_)):
            return NotImplemented
        result = _G.result_type(self, other)
        if not _G.can_cast(result, self.dtype):
            raise RuntimeError(f"result type {_dtype_name(result)} can't be cast to the desired "
                               f"output type {_dtype_name(self.dtype)}")
        try:
            return method(self, other)
        except TypeError:
            return NotImplemented

    dunder.__name__, dunder.__qualname__ = name, f"Tensor.{name}"
    return dunder


Tensor.__ifloordiv__ = _in_place_dunder("__ifloordiv__", Tensor.floor_divide_)
Tensor.__imod__ = _in_place_dunder("__imod__", Tensor.remainder_)
Tensor.bitwise_and_ = _in_place("bitwise_and_", lambda a, b: a.bitwise_and(b))
Tensor.bitwise_or_ = _in_place("bitwise_or_", lambda a, b: a.bitwise_or(b))
Tensor.bitwise_xor_ = _in_place("bitwise_xor_", lambda a, b: a.bitwise_xor(b))
Tensor.bitwise_not_ = _bitwise_not_
Tensor.__iand__ = _in_place("__iand__", lambda a, b: a.bitwise_and(b))
Tensor.__ior__ = _in_place("__ior__", lambda a, b: a.bitwise_or(b))
Tensor.__ixor__ = _in_place("__ixor__", lambda a, b: a.bitwise_xor(b))
for _name in ("__ilshift__", "__irshift__", "__iand__", "__ior__", "__ixor__"):
    setattr(Tensor, _name, _in_place_dunder(_name, getattr(Tensor, _name)))
del _fn


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


__all__ += ["rsub", "fill", "fmin", "gcd", "lcm", "bitwise_left_shift", "bitwise_right_shift",
            "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "isin", "histc",
            "get_device", "nanmedian", "negative_", "square_", "zero_", "fill_", "detach_"]


# ---- fill_diagonal_ and put -------------------------------------------------------

def _fill_diagonal_(self, fill_value, wrap=False):
    """`Tensor.fill_diagonal_(fill_value, wrap=False)`: the main diagonal (every dim equal past
    2-D) set to `fill_value` in place; `wrap` continues a tall matrix's diagonal every
    `width + 1` rows, as PyTorch's strided fill does."""
    if not _argparse._is_number(fill_value):
        raise TypeError("fill_diagonal_(): argument 'fill_value' (position 1) must be Number, "
                        f"not {_argparse.type_name(fill_value)}")
    if not isinstance(wrap, bool):
        raise TypeError("fill_diagonal_(): argument 'wrap' (position 2) must be bool, "
                        f"not {_argparse.type_name(wrap)}")
    n = self.dim()
    if n < 2:
        raise RuntimeError("dimensions must larger than 1")
    h, w = self.shape[0], self.shape[1]
    if n > 2 and builtins.any(s != h for s in self.shape[1:]):
        raise RuntimeError("all dimensions of input must be of equal length")
    diag = self
    for _ in range(n - 1):
        diag = diag.diagonal(0, 0, 1)
    diag.fill_(fill_value)
    if wrap and n == 2 and h > w + 1:
        start = w + 1
        while start < h:
            self[start:].diagonal().fill_(fill_value)
            start += w + 1
    return self


_argparse.SIGNATURES["put"] = [
    "(Tensor input, Tensor index, Tensor source, bool accumulate = False)"]


def _put(input, index, source, accumulate=False):
    """`gradrs.put(input, index, source, accumulate=False)`: a copy of `input` whose flattened
    positions `index` hold `source`'s elements (added with `accumulate`) (PutBackward0)."""
    for value in (index, source):
        if not isinstance(value, Tensor):
            raise TypeError  # _argparse.functional words it as PyTorch's parser does
    if not isinstance(accumulate, bool):
        raise TypeError
    # PyTorch's put_ checks, in its order.
    if index.dtype != _G.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got "
                           f"{_dtype_name(index.dtype)}")
    if input.dtype != source.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {_dtype_name(input.dtype)} and source.dtype = "
                           f"{_dtype_name(source.dtype)}")
    if index.numel() != source.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of "
                         f"elements, but got source.numel() = {source.numel()}, "
                         f"index.numel() = {index.numel()}")
    n = input.numel()
    flat_index = index.reshape(-1)
    if flat_index.numel():
        if n == 0:
            raise IndexError("put_(): Tried to put elements into an empty tensor")
        bad = ((flat_index < -n) | (flat_index >= n)).nonzero()
        if bad.numel():  # the first one in index order, as PyTorch's serial kernel meets it
            v = int(flat_index[int(bad[0, 0].item())].item())
            raise IndexError(f"out of range: tried to access index {v} on a tensor of {n} "
                             "elements.")
    flat_index = _G.where(flat_index < 0, flat_index + n, flat_index)
    with _no_grad():
        res = input.contiguous().clone()  # flattened in the input's logical order
        flat = res.view(-1)
        if accumulate:
            flat.index_add_(0, flat_index, source.reshape(-1))
        else:
            flat[flat_index] = source.reshape(-1)

    def backward(g):
        gi = gs = None
        if input.requires_grad:
            gi = g if accumulate else put(g, index, _G.zeros_like(source))
        if source.requires_grad:
            gs = take(g, index).reshape(source.shape)
        return gi, None, gs

    return _node("PutBackward0", res, [input, index, source], backward)


put = _argparse.functional("put", _put)
put.__name__ = put.__qualname__ = "put"
put.__doc__ = _put.__doc__
put.__module__ = "gradrs"


def _put_method(self, index, source, accumulate=False):
    """`Tensor.put(index, source, accumulate=False)`."""
    return put(self, index, source, accumulate)


Tensor.put = _put_method
Tensor.fill_diagonal_ = _fill_diagonal_
__all__ += ["put"]
