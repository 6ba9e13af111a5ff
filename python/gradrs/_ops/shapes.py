"""Splits and stacks (`tensor_split`, `hsplit` ... `column_stack`, `split_with_sizes`), the
`*_copy` forms of views and the unsafe splits, `unravel_index`, `slice_inverse`.
"""

import builtins
from collections.abc import Sequence

import numpy as np

from .. import _argparse, _numpy_names
from .. import _native
from .._forms import with_out as _with_out
from .._grad_mode import no_grad as _no_grad
from .._memory_format import contiguous_format as _contiguous
from .._native import Tensor
from .._runtime import honours_default_device
from ..functional import _dtype_name, _method, _wrap_dim, atleast_1d, atleast_2d, atleast_3d
from ._common import _as_method, _G, _method_of, sum_to_size

__all__ = [
    "column_stack", "dsplit", "dstack", "hsplit", "hstack", "row_stack", "split_with_sizes",
    "tensor_split", "vsplit", "vstack", "unravel_index", "alias_copy", "diagonal_copy",
    "detach_copy",
    "expand_copy", "permute_copy", "select_copy", "slice_copy", "split_copy",
    "split_with_sizes_copy", "squeeze_copy", "t_copy", "transpose_copy", "unbind_copy",
    "unsqueeze_copy", "view_copy", "narrow_copy", "unsafe_split", "unsafe_chunk",
    "unsafe_split_with_sizes", "unfold_copy", "as_strided_copy", "slice_inverse",
]


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
for _fn in (tensor_split, hsplit, vsplit, dsplit, split_with_sizes):
    setattr(Tensor, _fn.__name__, _as_method(_fn))


def _sum_to_size(self, *size):
    """`Tensor.sum_to_size(*size)`."""
    return sum_to_size(self, *size)
Tensor.sum_to_size = _sum_to_size



def unravel_index(indices, shape):
    """`gradrs.unravel_index(indices, shape)`: the coordinates of flat `indices` in a tensor
    of `shape`, one int64 tensor per dim (PyTorch's floor_divide / remainder composition).

    Examples:
        >>> gradrs.unravel_index(gradrs.tensor([4, 7]), (3, 4))
        (tensor([1, 1]), tensor([0, 3]))
    """
    if indices.is_complex() or indices.is_floating_point() or indices.dtype == _G.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if isinstance(shape, bool) or not isinstance(shape, (int, Sequence)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    if isinstance(shape, int):
        shape = (shape,)
    for d in shape:
        if not isinstance(d, int):
            raise TypeError(f"expected 'shape' sequence to only contain ints, but got "
                            f"{type(d)}")
    shape = tuple(shape)
    if builtins.any(d < 0 for d in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    coefs, acc = [], 1
    for d in reversed(shape):
        coefs.append(acc)
        acc *= d
    coefs.reverse()
    res = indices.unsqueeze(-1).floor_divide(
        _G.tensor(coefs, dtype=_G.int64, device=indices.device)) % _G.tensor(
            list(shape), dtype=_G.int64, device=indices.device)
    return res.unbind(-1)



def _view_grads(op, input, args, kwargs, grads):
    """The gradient for `input` of the view(s) `op(input, ...)` given `grads` (one per output,
    None for an unused one), by differentiating the view op itself on an alias of `input`."""
    create = _native.is_grad_enabled()
    with _G.enable_grad():
        alias = input.view_as(input) if input.requires_grad else input.detach().requires_grad_()
        ys = op(alias, *args, **kwargs)
        ys = list(ys) if isinstance(ys, (tuple, list)) else [ys]
        pairs = [(y, g) for y, g in zip(ys, grads) if g is not None]
        if not pairs:
            return _G.zeros_like(input)
        return _G.autograd.grad([y for y, _ in pairs], [alias], [g for _, g in pairs],
                                create_graph=create, retain_graph=create)[0]


def _copy_of(name, node, op, doc):
    """`gradrs.name(input, ...)`: `op(input, ...)` as a new contiguous tensor (or tuple of
    them) with one node `node` (PyTorch's `<View>Backward0_copy`)."""
    unsafe = name.startswith("unsafe_")

    def fn(input, *args, **kwargs):
        out = kwargs.pop("out", None)
        if out is not None:
            return _with_out(name, out, lambda: fn(input, *args, **kwargs), (input,))
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                            f"{_argparse.type_name(input)}")
        with _no_grad():
            views = op(input, *args, **kwargs)
        multi = isinstance(views, (tuple, list))
        with _no_grad():
            # the unsafe splits hand out the views themselves (sharing memory, no view
            # tracking), the *_copy forms new memory
            outs = [v if unsafe else v.contiguous().clone() if not v.is_contiguous()
                    else v.clone() for v in (views if multi else [views])]
        if _native.is_grad_enabled() and input.requires_grad:
            def backward(grads):
                grads = grads if multi else [grads]
                g = _view_grads(op, input, args, kwargs, grads)
                return [g]

            # a view's copy saves nothing of its input (only sizes), as PyTorch's
            _native._attach_node(outs if multi else outs[0], [input], node, backward,
                                 save_inputs=())
        return tuple(outs) if multi else outs[0]

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    fn.__module__ = "gradrs"
    return fn


def _slice_view(t, dim=0, start=None, end=None, step=1):
    d = _wrap_dim(dim, t.dim())
    return t[(slice(None),) * d + (slice(start, end, step),)]


def _copy_form(name, node, op):
    """`_copy_of` with the docstring of a `*_copy` view form or an unsafe split."""
    base = name[:-5] if name.endswith("_copy") else name.replace("unsafe_", "")
    return _copy_of(name, node, op, f"`gradrs.{name}(input, ...)`: `{base}` as new memory ({node}).")


def _split_sizes(t, sizes, dim=0):
    return t.split(list(sizes), dim)


# The `*_copy` view forms and the unsafe splits, each with PyTorch's node.
as_strided_copy = _copy_form("as_strided_copy", "AsStridedBackward0_copy", Tensor.as_strided)
alias_copy = _copy_form("alias_copy", "AliasBackward0_copy", lambda t: t.view_as(t))
diagonal_copy = _copy_form("diagonal_copy", "DiagonalBackward0_copy", Tensor.diagonal)
expand_copy = _copy_form("expand_copy", "ExpandBackward0_copy", Tensor.expand)
permute_copy = _copy_form("permute_copy", "PermuteBackward0_copy", Tensor.permute)
select_copy = _copy_form("select_copy", "SelectBackward0_copy", Tensor.select)
slice_copy = _copy_form("slice_copy", "SliceBackward0_copy", _slice_view)
split_copy = _copy_form("split_copy", "SplitBackward0_copy", Tensor.split)
split_with_sizes_copy = _copy_form("split_with_sizes_copy", "SplitWithSizesBackward0_copy",
                                   _split_sizes)
squeeze_copy = _copy_form("squeeze_copy", "SqueezeBackward0_copy", Tensor.squeeze)
t_copy = _copy_form("t_copy", "TBackward0_copy", Tensor.t)
transpose_copy = _copy_form("transpose_copy", "TransposeBackward0_copy", Tensor.transpose)
unbind_copy = _copy_form("unbind_copy", "UnbindBackward0_copy", Tensor.unbind)
unsqueeze_copy = _copy_form("unsqueeze_copy", "UnsqueezeBackward0_copy", Tensor.unsqueeze)
view_copy = _copy_form("view_copy", "ViewBackward0_copy", Tensor.view)
narrow_copy = _copy_form("narrow_copy", "NarrowCopyBackward0", Tensor.narrow)
unsafe_split = _copy_form("unsafe_split", "UnsafeSplitBackward0", Tensor.split)
unsafe_chunk = _copy_form("unsafe_chunk", "UnsafeSplitBackward0", Tensor.chunk)
unsafe_split_with_sizes = _copy_form("unsafe_split_with_sizes", "UnsafeSplitWithSizesBackward0",
                                     _split_sizes)


for _fn in (narrow_copy, unsafe_split, unsafe_chunk, unsafe_split_with_sizes):
    setattr(Tensor, _fn.__name__, _method_of(_fn))


unfold_copy = _copy_of("unfold_copy", "UnfoldBackward0_copy", Tensor.unfold,
                       "`gradrs.unfold_copy(input, dimension, size, step)`: `unfold` as new "
                       "memory (UnfoldBackward0_copy).")



def detach_copy(input, *, out=None):
    """`input.detach()` as new row-major memory. PyTorch has no derivative for it:
    when `input` requires grad the copy still does, under a `NotImplemented` node whose
    backward raises.

    Examples:
        >>> gradrs.detach_copy(gradrs.ones(2, requires_grad=True)).grad_fn
        <NotImplemented object at 0x...>
    """
    if out is not None:
        return _with_out("detach_copy", out, lambda: detach_copy(input), (input,))
    if not isinstance(input, Tensor):
        raise TypeError(f"detach_copy(): argument 'input' (position 1) must be Tensor, not "
                        f"{_argparse.type_name(input)}")
    with _no_grad():
        result = input.detach().clone(memory_format=_contiguous)  # ATen's _to_copy: row-major
    if _native.is_grad_enabled() and input.requires_grad:
        def backward(grad):
            raise RuntimeError("derivative for aten::detach_copy is not implemented")

        _native._attach_node(result, [input], "NotImplemented", backward, save_inputs=())
    return result


_NO_SRC = object()


def slice_inverse(input, src=_NO_SRC, dim=0, start=None, end=None, step=1):
    """`gradrs.slice_inverse(input, src, dim=0, start=None, end=None, step=1)`: the inverse of
    `src[..., start:end:step]` along `dim`: `input` (such a slice) viewed with `src`'s sizes,
    strides and storage offset, as ATen's `slice_inverse` (its memory must hold them). Its
    gradient is the slice of the incoming one (SliceInverseBackward0); `src` gets none.

    Examples:
        >>> x = gradrs.arange(6.)
        >>> gradrs.slice_inverse(x[2:4], x, 0, 2, 4)
        tensor([0., 1., 2., 3., 4., 5.])
    """
    if src is _NO_SRC:  # PyTorch's parser's words
        raise TypeError('slice_inverse() missing 1 required positional arguments: "src"')
    for name, value, position in (("input", input, 1), ("src", src, 2)):
        if not isinstance(value, Tensor):
            raise TypeError(f"slice_inverse(): argument '{name}' (position {position}) must be "
                            f"Tensor, not {_argparse.type_name(value)}")
    with _no_grad():
        out = input.as_strided(src.shape, src.stride(), src.storage_offset())
    if _native.is_grad_enabled() and input.requires_grad:
        def backward(grad):
            return [_slice_view(grad, dim, start, end, step), None]

        _native._attach_node(out, [input, None], "SliceInverseBackward0", backward,
                             save_inputs=())
    return out


Tensor.slice_inverse = _method_of(slice_inverse)


del _fn


# ---- diff, rot90, triu/tril_indices: compositions as PyTorch's own ----------------

@_numpy_names.accepts
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """`gradrs.diff(input, n=1, dim=-1, prepend=None, append=None)`: the n-th forward difference
    along `dim` (`!=` of neighbours for bool tensors), after concatenating `prepend`/`append`.

    Examples:
        >>> gradrs.diff(gradrs.tensor([1.0, 4.0, 9.0, 16.0]))
        tensor([3., 5., 7.])
    """
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    dim = _wrap_dim(dim, input.dim())
    extra = [t for t in (prepend, append) if t is not None]
    for t in extra:
        if t.dim() != input.dim():
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
        for d in range(input.dim()):
            if d != dim and t.shape[d] != input.shape[d]:
                raise RuntimeError(
                    "diff expects the shape of tensor to prepend or append to match that of input "
                    f"except along the differencing dimension; input.size({d}) = "
                    f"{input.shape[d]}, but got tensor.size({d}) = {t.shape[d]}")
    if n == 0:  # prepend / append are checked, not used
        return input.clone()
    if extra:
        input = _native.cat([t for t in (prepend, input, append) if t is not None], dim)
    for _ in range(n):
        length = input.shape[dim]
        if length == 0:
            break
        after, before = input.narrow(dim, 1, length - 1), input.narrow(dim, 0, length - 1)
        input = after != before if input.dtype == _native.bool else after - before
    return input


@_numpy_names.accepts
def rot90(input, k=1, dims=(0, 1)):
    """`gradrs.rot90(input, k=1, dims=(0, 1))`: `input` turned by 90 degrees `k` times, from
    the first of `dims` towards the second.

    Examples:
        >>> gradrs.rot90(gradrs.tensor([[1, 2], [3, 4]]))
        tensor([[2, 4],
                [1, 3]])
    """
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.dim() < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.dim()}")
    d0, d1 = (_wrap_dim(d, input.dim()) for d in dims)
    if d0 == d1:  # PyTorch's message names the dims as given
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} "
                           f"and dim1 = {dims[1]}")
    turns = k % 4
    with _no_grad():
        if turns == 1:
            out = input.flip([d1]).transpose(d0, d1)
        elif turns == 2:
            out = input.flip([d0, d1])
        elif turns == 3:
            out = input.flip([d0]).transpose(d0, d1)
        else:
            out = input.clone()
    from ._common import _node

    # one node, as PyTorch's: its gradient turns back
    return _node("Rot90Backward0", out, [input], lambda g: (rot90(g, -k, dims),),
                 saved=[("dims", tuple(dims)), ("k", k)])


@honours_default_device
def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """`gradrs.triu_indices(row, col, offset=0)`: the 2 x N (row, column) coordinates of the
    upper triangle of a row x col matrix, row by row.

    Examples:
        >>> gradrs.triu_indices(3, 3, offset=1)
        tensor([[0, 0, 1],
                [1, 2, 2]])
    """
    r, c = np.triu_indices(row, offset, col)
    return _native.tensor(np.stack([r, c]).astype(np.int64).reshape(2, -1),
                          dtype=dtype or _native.int64, device=device)


@honours_default_device
def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """`gradrs.tril_indices(row, col, offset=0)`: the coordinates of the lower triangle.

    Examples:
        >>> gradrs.tril_indices(3, 3)
        tensor([[0, 1, 1, 2, 2, 2],
                [0, 0, 1, 0, 1, 2]])
    """
    r, c = np.tril_indices(row, offset, col)
    return _native.tensor(np.stack([r, c]).astype(np.int64).reshape(2, -1),
                          dtype=dtype or _native.int64, device=device)


Tensor.diff = _method(diff)
Tensor.rot90 = _method(rot90)


def _iter(self):
    """`iter(tensor)` as PyTorch's: over `unbind(0)` (so the rows' grad_fn is UnbindBackward0,
    not the SelectBackward0 of the `__getitem__` fallback), a 0-d tensor refused."""
    if self.dim() == 0:
        raise TypeError("iteration over a 0-d tensor")
    return iter(self.unbind(0))


Tensor.__iter__ = _iter


def _contains(self, element, /):
    """`element in tensor` as PyTorch's: whether any element equals it (a number or a tensor,
    broadcast), anything else refused."""
    import numbers

    if isinstance(element, (Tensor, numbers.Number)):
        return bool((element == self).any().item())
    raise RuntimeError("Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                       f"{type(element)}.")


def _reversed(self):
    """`reversed(tensor)` as PyTorch's: the tensor flipped along dimension 0 (a 0-d one itself)."""
    return self if self.dim() == 0 else self.flip(0)


_contains.__name__ = _contains.__qualname__ = "__contains__"
_reversed.__name__ = _reversed.__qualname__ = "__reversed__"
Tensor.__contains__ = _contains
Tensor.__reversed__ = _reversed
