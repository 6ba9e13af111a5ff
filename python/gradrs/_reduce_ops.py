"""Issue 24's reductions and scatters composed from gradrs ops: quantile / nanquantile,
scatter_reduce, index_reduce and index_put, with PyTorch's checks, messages and gradients.

quantile is ATen's composition (sort, gather, lerp), so its gradients (for `q` too) are those
ops'. scatter_reduce / index_reduce reduce on the host with numpy's unbuffered `ufunc.at`,
which applies the updates in index order as PyTorch's CPU kernel does (the same float sums);
their nodes (`ScatterReduceBackward0`, `IndexReduceBackward0`) carry derivatives.yaml's formulas
written in gradrs ops, so second derivatives come from those.
"""

import builtins
import functools
import sys
import warnings

import numpy as np

from . import _argparse, _native, _numpy_names
from ._ops._common import _node
from .functional import _wrap_dim
from ._grad_mode import no_grad as _no_grad
from ._native import Tensor

# The gradrs package (still loading when this module is: read at call time).
_G = sys.modules[__package__]

__all__ = ["quantile", "nanquantile"]


def _parsed(name, texts, method_texts):
    """`fn` with PyTorch's parser errors: a call no signature accepts raises its TypeError
    (the method's signatures, without `input`, when called as a Tensor method)."""
    def wrap(fn):
        @functools.wraps(fn)
        def function(*args, **kwargs):
            err = _argparse.error(name, args, kwargs, texts)
            if err is not None:
                raise err
            return fn(*args, **_numpy_names.canonical(kwargs))

        def method(self, *args, **kwargs):
            err = _argparse.error(name, args, kwargs, method_texts)
            if err is not None:
                raise err
            return fn(self, *args, **_numpy_names.canonical(kwargs))

        method.__name__ = method.__qualname__ = name
        method.__doc__ = f"`Tensor.{name}(...)`: `gradrs.{name}(self, ...)`."
        function._method = method
        return function

    return wrap


# ---- quantile -----------------------------------------------------------------------------

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile_sigs(with_input):
    head = "Tensor input, " if with_input else ""
    tail = ', Tensor out = None)' if with_input else ")"
    return [f'({head}{kind} q, int dim = None, bool keepdim = False, *, '
            f'str interpolation = "linear"{tail}' for kind in ("Tensor", "float")]


def _c_double(v):
    """A double as C++'s ostream prints it (PyTorch's messages): `%g`."""
    return f"{v:g}"


def _quantile(name, input, q, dim, keepdim, interpolation, out, ignore_nan):
    if not isinstance(q, Tensor):
        q = float(q)
        if not (0 <= q <= 1):
            raise RuntimeError(f"quantile() q must be in the range [0, 1] but got "
                               f"{_c_double(q)}")
        q = _G.tensor(q, dtype=input.dtype, device=input.device)
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError("quantile() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    if input.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if q.dim() > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if input.dtype not in (_G.float32, _G.float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if q.dtype != input.dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
    if q.device != input.device:
        raise RuntimeError("quantile() q tensor must be on the same device as the input tensor")
    if out is not None:
        if not isinstance(out, Tensor):
            raise TypeError(f"{name}(): argument 'out' must be Tensor, not "
                            f"{_argparse.type_name(out)}")
        if out.dtype != input.dtype:
            raise RuntimeError("quantile() out tensor must be same dtype as the input tensor")
        if out.device != input.device:
            raise RuntimeError("quantile() out tensor must be on the same device as the input "
                               "tensor")
    n_dim = input.dim()
    wrapped = _wrap_dim(0 if dim is None else dim, n_dim)
    # The reduced shape, as ATen's quantile_output_shape (without q's dim).
    if dim is not None and n_dim > 0:
        reduced = list(input.shape)
        if keepdim:
            reduced[wrapped] = 1
        else:
            del reduced[wrapped]
    else:
        reduced = [1] * n_dim if keepdim else []
    if not bool(((q >= 0) & (q <= 1)).all()):
        raise RuntimeError("quantile() q values must be in the range [0, 1]")

    # Flatten, or move the reduced dim last; sort to read the k-th values.
    if dim is None:
        values = input.flatten()
    elif wrapped == n_dim - 1:
        values = input
    else:
        values = input.unsqueeze(-1).transpose(wrapped, -1)
    ordered = values.sort()[0]
    n = ordered.shape[-1]
    ordered = ordered.reshape(reduced + [n])
    if n > 2 ** 24:
        raise RuntimeError("quantile() input tensor is too large")
    qv = q.reshape(-1)
    if ignore_nan:
        # ranks over the non-NaN values; all NaN: rank 0, which reads a NaN
        ranks = qv * (ordered.isnan().logical_not().sum(-1, keepdim=True) - 1)
        ranks = ranks.masked_fill(ranks < 0, 0)
    else:
        # a NaN in the row: its last rank, which reads the NaN sorted last
        last = n - 1
        scaled, has_nan = _G.broadcast_tensors(qv * last, ordered.isnan().any(-1, keepdim=True))
        ranks = scaled.masked_fill(has_nan, last)
    if interpolation == "lower":
        ranks = ranks.floor()
    elif interpolation == "higher":
        ranks = ranks.ceil()
    elif interpolation == "nearest":
        ranks = ranks.round()
    below = ranks.to(_G.int64)
    result = ordered.gather(-1, below)
    if interpolation in ("linear", "midpoint"):
        weights = (_G.full_like(ranks, 0.5) if interpolation == "midpoint"
                   else ranks - below)
        above = ordered.gather(-1, ranks.ceil().to(_G.int64))
        result = result.lerp(above, weights)
    if q.dim() != 0:
        result = result.unsqueeze(0).transpose(0, -1)
    # PyTorch's last step is an in-place squeeze_ (node SqueezeBackward4).
    with _no_grad():
        res = result.squeeze(-1).clone()
    res = _node("SqueezeBackward4", res, [result], lambda g: (g.unsqueeze(-1),),
                save_inputs=())
    if out is None:
        return res
    with _no_grad():
        _native._write_out(out, res.detach())
    if res.requires_grad:
        out.copy_(res)
    return out


@_parsed("quantile", _quantile_sigs(True), _quantile_sigs(False))
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """`gradrs.quantile(input, q, dim=None, keepdim=False, *, interpolation='linear')`: the
    q-th quantiles of `input` (flattened, or along `dim`), interpolating between the two
    nearest sorted values as `interpolation` says; a 1-D `q` adds a leading dim.

    Examples:
        >>> gradrs.quantile(gradrs.tensor([1.0, 2.0, 4.0, 8.0]), 0.5)
        tensor(3.)
        >>> gradrs.quantile(gradrs.tensor([[1.0, 2.0], [3.0, 5.0]]), gradrs.tensor([0.0, 0.5]), dim=1)
        tensor([[1.0000, 3.0000],
                [1.5000, 4.0000]])
    """
    return _quantile("quantile", input, q, dim, keepdim, interpolation, out, False)


@_parsed("nanquantile", _quantile_sigs(True), _quantile_sigs(False))
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """`gradrs.nanquantile(input, q, dim=None, keepdim=False, *, interpolation='linear')`:
    `quantile` of the values that are not NaN (NaN where a row has none).

    Examples:
        >>> gradrs.nanquantile(gradrs.tensor([1.0, float('nan'), 3.0]), 0.5)
        tensor(2.)
    """
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, out, True)


Tensor.quantile = quantile._method
Tensor.nanquantile = nanquantile._method


# ---- scatter_reduce / index_reduce ------------------------------------------------------

_REDUCES = ("sum", "prod", "mean", "amax", "amin")


def _size(t, d):
    """`t.size(d)`, a 0-dim tensor read as one element (ATen's ensure_nonempty_size)."""
    return t.shape[d] if t.dim() else 1


def _scatter_checks(input, dim, index, src):
    """ATen's scatter meta checks (dim, dtypes, shapes), in its order; returns the dim."""
    d = _wrap_dim(dim, input.dim())
    if index.dtype not in (_G.int64, _G.int32):
        raise RuntimeError("scatter(): Expected dtype int32/int64 for index")
    if input.dtype != src.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if index.numel() == 0:
        return d
    nd = builtins.max(input.dim(), 1)
    if builtins.max(index.dim(), 1) != nd:
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if builtins.max(src.dim(), 1) != nd:
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    wrong = builtins.any(k != d and _size(index, k) > _size(input, k) for k in range(nd))
    wrong = wrong or builtins.any(_size(index, k) > _size(src, k) for k in range(nd))
    if wrong:
        raise RuntimeError(f"Expected index {list(index.shape)} to be no larger than self "
                           f"{list(input.shape)} apart from dimension {d} and to be no larger "
                           f"size than src {list(src.shape)}")
    return d


def _check_reduce(reduce):
    if reduce not in _REDUCES and reduce not in ("max", "min"):  # ATen reads these as amax / amin
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")


def _host(t):
    """A tensor's values as a numpy array of its shape (0-dim: one element)."""
    a = t.detach().cpu().numpy()
    return a.reshape(1) if a.ndim == 0 else a


_UFUNCS = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum,
           "amin": np.minimum}


def _identity(reduce, np_dtype):
    """What include_self=False starts a scattered-to position from (ATen's choice)."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if np_dtype == np.bool_:
        return reduce == "amin"
    if np.issubdtype(np_dtype, np.floating):
        return -np.inf if reduce == "amax" else np.inf
    info = np.iinfo(np_dtype)
    return info.min if reduce == "amax" else info.max


def _scatter_reduce_values(input, d, index, src, reduce, include_self):
    """The result, computed on the host in PyTorch's update order (index order)."""
    if reduce == "mean" and input.dtype == _G.bool:
        raise NotImplementedError('"scatter_gather_tensor_cpu_reduce_mean" not implemented '
                                  "for 'Bool'")
    out = _host(input).copy()
    idx = _host(index).astype(np.int64)
    size = out.shape[d]
    bad = np.flatnonzero((idx < 0) | (idx >= size))
    if bad.size:
        raise RuntimeError(f"index {idx.reshape(-1)[bad[0]]} is out of bounds for dimension "
                           f"{d} with size {size}")
    coords = list(np.indices(idx.shape, sparse=True))
    vals = _host(src)[tuple(coords)]
    coords[d] = idx
    dest = tuple(coords)
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)
    if not include_self:
        out[dest] = _identity(reduce, out.dtype)
    if out.dtype == np.float16:  # PyTorch accumulates half in float, stored back as half
        acc = out.astype(np.float32)
        _UFUNCS[reduce].at(acc, dest, vals.astype(np.float32))
        out = acc.astype(np.float16)
    else:
        _UFUNCS[reduce].at(out, dest, vals)
    if reduce == "mean":
        count = np.ones(out.shape, dtype=out.dtype) if include_self else \
            np.zeros(out.shape, dtype=out.dtype)
        np.add.at(count, dest, np.ones(idx.shape, dtype=out.dtype))
        count[count == 0] = 1
        if np.issubdtype(out.dtype, np.floating):
            out = (out / count).astype(out.dtype)
        else:
            out = np.floor_divide(out, count)
    res = _G.from_numpy(np.ascontiguousarray(out).reshape(tuple(input.shape)))
    return res.to(input.device) if res.device != input.device else res


_DOUBLE_ZERO = ("scatter_reduce(): Double backward is unsupported for src when >1 zeros in src "
                "are scattered to the same position in self")


def _delayed_error(t, message):
    """`t` through a node whose backward raises `message` (PyTorch's DelayedError)."""
    with _no_grad():
        res = t.clone()

    def backward(g):
        raise RuntimeError(message)

    return _node("DelayedError", res, [t], backward, save_inputs=())


def _scatter_reduce_grads(g, input, d, index, src, reduce, include_self, result):
    """derivatives.yaml's scatter_reduce_backward: (grad_self, grad_src)."""
    if reduce not in _REDUCES:  # "max" / "min": the forward's spellings only
        raise RuntimeError("Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', "
                           f"'amin' but got {reduce}.")
    if input.dim() == 0:  # as one element, like the forward
        gs, gsrc = _scatter_reduce_grads(g.reshape(1), input.reshape(1), 0, index.reshape(1),
                                         src.reshape(-1), reduce, include_self,
                                         result.reshape(1))
        return gs.reshape(()), gsrc.reshape(src.shape)
    s = src  # PyTorch's formulas read all of src (an index smaller than it fails there)
    if reduce == "sum":
        grad_self, grad_src = g, g.gather(d, index)
    elif reduce == "prod":
        # the exclusive product where self or src holds a zero
        masked_self = input.masked_fill(input == 0, 1)
        masked_self_result = scatter_reduce(masked_self, d, index, s, reduce,
                                            include_self=include_self)
        grad_self = g * masked_self_result / masked_self
        src_zero = s == 0
        src_num_zeros = _G.zeros_like(input).scatter_add(d, index, src_zero.to(input.dtype)) \
            .gather(d, index)
        src_single_zero = src_zero & (src_num_zeros == 1)
        masked_src = s.masked_fill(src_single_zero, 1)
        masked_src_result = scatter_reduce(input, d, index, masked_src, reduce,
                                           include_self=include_self)
        grad_src = _G.where(src_single_zero, (g * masked_src_result).gather(d, index),
                            (g * result).gather(d, index) / s.masked_fill(src_zero, 1))
        if _native.is_grad_enabled() and bool((src_num_zeros > 1).any()):
            grad_src = _delayed_error(grad_src, _DOUBLE_ZERO)
    elif reduce == "mean":
        n = _G.ones_like(g) if include_self else _G.zeros_like(g)
        n = n.scatter_add(d, index, _G.ones_like(s))
        n = n.masked_fill(n == 0, 1)
        grad_self = g / n
        grad_src = g.gather(d, index) / n.gather(d, index)
    else:  # amax / amin: shared evenly between the elements equal to the result
        value = result.gather(d, index)
        self_is_result = (input == result).to(input.dtype)
        src_is_result = (s == value).to(input.dtype)
        spread = g / self_is_result.scatter_add(d, index, src_is_result)
        grad_self = (input == result) * spread
        grad_src = (s == value) * spread.gather(d, index)
    if not include_self:
        grad_self = grad_self.scatter(d, index, 0)
    return grad_self, grad_src


def _scatter_reduce_jvp(self_p, self_t, d, index, src_p, src_t, reduce, include_self, result):
    """PyTorch's scatter_reduce_jvp: linear for sum / mean; for amax / amin the tangents of the
    elements equal to the result, averaged."""
    if reduce in ("sum", "mean"):
        return scatter_reduce(self_t, d, index, src_t, reduce, include_self=include_self)
    self_is_result = (self_p == result).to(self_p.dtype)
    src_is_result = (src_p == result.gather(d, index)).to(self_p.dtype)
    count = self_is_result.scatter_add(d, index, src_is_result)
    return (self_is_result * self_t).scatter_add(d, index, src_is_result * src_t) / count


def _scatter_reduce(name, node, input, dim, index, src, reduce, include_self,
                    int32_fill=False):
    d = _scatter_checks(input, dim, index, src)
    _check_reduce(reduce)
    with _no_grad():
        if index.numel() == 0:
            res = input.clone()
        else:
            res = _scatter_reduce_values(input, d, index, src, reduce, include_self)
    # the result the formulas read (its values, recorded nowhere)
    result = res.detach()
    if reduce in ("sum", "mean", "amax", "amin"):  # PyTorch has no forward formula for prod
        from .linalg import _set_tangents

        _set_tangents([res], [input, src], lambda t, outs: [
            _scatter_reduce_jvp(input.detach(), t[0], d, index, src.detach(), t[1], reduce,
                                include_self, outs[0])])

    def backward(g):
        if int32_fill and input.requires_grad:
            raise IndexError("index_fill_(): Expected dtype int64 for index.")
        out = result
        if reduce == "prod" and _native.is_grad_enabled():
            # under create_graph the formula's output is recomputed, so it differentiates
            out = scatter_reduce(input, d, index, src, reduce, include_self=include_self)
        gs, gsrc = _scatter_reduce_grads(g, input, d, index, src, reduce, include_self, out)
        return (gs if input.requires_grad else None, None,
                gsrc if src.requires_grad else None)

    return _node(node, res, [input, index, src], backward)


_SCATTER_REDUCE_SIGS = ["(Tensor input, int dim, Tensor index, Tensor src, str reduce, *, "
                        "bool include_self = True, Tensor out = None)"]
_SCATTER_REDUCE_METHOD = ["(int dim, Tensor index, Tensor src, str reduce, *, "
                          "bool include_self = True)"]


@_parsed("scatter_reduce", _SCATTER_REDUCE_SIGS, _SCATTER_REDUCE_METHOD)
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None):
    """`gradrs.scatter_reduce(input, dim, index, src, reduce, *, include_self=True)`: a copy
    of `input` where each `src[i][j]` is reduced into position `index[i][j]` along `dim`
    (for dim 0) with `reduce` ('sum', 'prod', 'mean', 'amax' or 'amin'); with
    `include_self=False` the scattered-to positions start from the reduction's identity.

    Examples:
        >>> x = gradrs.tensor([1.0, 2.0, 3.0])
        >>> gradrs.scatter_reduce(x, 0, gradrs.tensor([0, 0, 2]), gradrs.tensor([5.0, 7.0, 1.0]), "amax")
        tensor([7., 2., 3.])
        >>> x.scatter_reduce(0, gradrs.tensor([1, 1]), gradrs.tensor([4.0, 6.0]), "mean", include_self=False)
        tensor([1., 5., 3.])
    """
    if out is not None:
        from ._forms import with_out
        return with_out("scatter_reduce", out, lambda: scatter_reduce(
            input, dim, index, src, reduce, include_self=include_self), (input, src))
    return _scatter_reduce("scatter_reduce", "ScatterReduceBackward0", input, dim, index, src,
                           reduce, include_self)


def _scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
    """`Tensor.scatter_reduce_(dim, index, src, reduce, *, include_self=True)`: in place."""
    err = _argparse.error("scatter_reduce_", (dim, index, src, reduce),
                          {"include_self": include_self}, _SCATTER_REDUCE_METHOD)
    if err is not None:
        raise err
    # the node reads a snapshot of self: self itself is overwritten
    return self.copy_(scatter_reduce(self.clone(), dim, index, src, reduce,
                                     include_self=include_self))


# index_reduce: one index along `dim`, source of input's shape with len(index) along it.

_INDEX_REDUCES = ("prod", "mean", "amax", "amin")


_SCALAR_TYPES = {"float16": "Half", "float32": "Float", "float64": "Double", "int64": "Long",
                 "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                 "bool": "Bool"}


def _scalar_type(dtype):
    """c10's ScalarType name (`Float`, `Long`...), which ATen's messages print."""
    return _SCALAR_TYPES.get(str(dtype).split(".")[-1], str(dtype))


_warned_beta = []


def _index_reduce(input, dim, index, source, reduce, include_self):
    """ATen's index_reduce checks in their order, then scatter_reduce of the index expanded
    to `source`'s shape."""
    if not _warned_beta:
        _warned_beta.append(True)
        warnings.warn("index_reduce() is in beta and the API may change at any time.",
                      UserWarning, stacklevel=4)
    if reduce not in _INDEX_REDUCES:
        raise RuntimeError("index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    d = _wrap_dim(dim, input.dim())
    n = index.numel()
    if index.dim() > 1:
        raise IndexError("index_reduce_(): Index is supposed to be a vector, but got dim: "
                         f"{index.dim()} with type: {_scalar_type(index.dtype)} and size: "
                         f"{list(index.shape)}")
    if index.dtype not in (_G.int64, _G.int32):
        raise RuntimeError("index_reduce_(): Expected dtype int32/int64 for index but got: "
                           f"{_scalar_type(index.dtype)}")
    if input.dtype != source.dtype:
        raise RuntimeError(f"index_reduce_(): self ({_scalar_type(input.dtype)}) and source "
                           f"({_scalar_type(source.dtype)}) must have the same scalar type")
    if not (d == 0 or d < source.dim()):
        raise RuntimeError(f"index_reduce_(): Indexing dim {d} is out of bounds of the source "
                           f"tensor with dim {source.dim()}")
    along = 1 if source.dim() == 0 else source.shape[d]
    if n != along:
        raise RuntimeError(f"index_reduce_(): Number of indices ({n}) should be equal to "
                           f"source.size(dim): ({along}), for dim: {d}")
    self_sizes, source_sizes = list(input.shape), list(source.shape)
    if input.dim() and source.dim():
        del self_sizes[d], source_sizes[d]
    if self_sizes != source_sizes:
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {list(input.shape)} "
                           f"source.shape = {list(source.shape)}")
    if n and bool(((index < 0) | (index >= _size(input, d))).any()):
        raise IndexError("index out of range in self")
    if input.dim() == 0:
        full = index.to(_G.int64).reshape(())
    else:
        view = [1] * source.dim()
        view[d] = n
        full = index.to(_G.int64).reshape(view).expand(tuple(source.shape)).contiguous()
    # ATen's backward zeroes self's gradient with index_fill, which takes int64 indices only
    int32_fill = not include_self and index.dtype != _G.int64
    return _scatter_reduce("index_reduce", "IndexReduceBackward0", input, d, full,
                           source.reshape(()) if input.dim() == 0 else source, reduce,
                           include_self, int32_fill)


_INDEX_REDUCE_SIGS = ["(Tensor input, int dim, Tensor index, Tensor source, str reduce, *, "
                      "bool include_self = True, Tensor out = None)"]
_INDEX_REDUCE_METHOD = ["(int dim, Tensor index, Tensor source, str reduce, *, "
                        "bool include_self = True)"]


@_parsed("index_reduce", _INDEX_REDUCE_SIGS, _INDEX_REDUCE_METHOD)
def index_reduce(input, dim, index, source, reduce, *, include_self=True, out=None):
    """`gradrs.index_reduce(input, dim, index, source, reduce, *, include_self=True)`: a copy
    of `input` where slice `i` of `source` along `dim` is reduced into slice `index[i]` with
    `reduce` ('prod', 'mean', 'amax' or 'amin').

    Examples:
        >>> x = gradrs.ones(3, 2)
        >>> gradrs.index_reduce(x, 0, gradrs.tensor([0, 0]), gradrs.tensor([[2.0, 3.0], [4.0, 5.0]]), "prod")
        tensor([[ 8., 15.],
                [ 1.,  1.],
                [ 1.,  1.]])
    """
    if out is not None:
        from ._forms import with_out
        return with_out("index_reduce", out, lambda: index_reduce(
            input, dim, index, source, reduce, include_self=include_self), (input, source))
    return _index_reduce(input, dim, index, source, reduce, include_self)


def _index_reduce_(self, dim, index, source, reduce, *, include_self=True):
    """`Tensor.index_reduce_(dim, index, source, reduce, *, include_self=True)`: in place."""
    err = _argparse.error("index_reduce_", (dim, index, source, reduce),
                          {"include_self": include_self}, _INDEX_REDUCE_METHOD)
    if err is not None:
        raise err
    return self.copy_(index_reduce(self.clone(), dim, index, source, reduce,
                                   include_self=include_self))


Tensor.scatter_reduce = scatter_reduce._method
Tensor.index_reduce = index_reduce._method
Tensor.scatter_reduce_ = _scatter_reduce_
Tensor.index_reduce_ = _index_reduce_
__all__ += ["scatter_reduce", "index_reduce"]


# ---- index_put ----------------------------------------------------------------------------

_INDEX_PUT_SIGS = ["(Tensor input, tuple of Tensors indices, Tensor values, "
                   "bool accumulate = False)"]
_INDEX_PUT_METHOD = ["(tuple of Tensors indices, Tensor values, bool accumulate = False)"]


def _index_put_parse(name, args, kwargs, texts):
    """The parser's checks: a tuple (or list) of tensors; another element is refused with
    PyTorch's message for a tensor list."""
    at = 1 if texts is _INDEX_PUT_SIGS else 0
    indices = args[at] if len(args) > at else kwargs.get("indices")
    if isinstance(indices, (tuple, list)):
        for k, i in enumerate(indices):
            if not isinstance(i, Tensor):
                raise TypeError(f"expected Tensor as element {k} in argument {at}, but got "
                                f"{_argparse.type_name(i)}")
    err = _argparse.error(name, args, kwargs, texts)
    if err is not None:
        raise err


def _index_put(input, indices, values, accumulate):
    """`input` with `input[indices]` replaced by (or, with `accumulate`, added to) `values`:
    the positions are read off an arange indexed the same way, so every index form and
    error is `__getitem__`'s."""
    if input.dtype != values.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{_scalar_type(input.dtype)} for the destination and "
                           f"{_scalar_type(values.dtype)} for the source.")
    key = tuple(indices)
    # a mask indexes as many dims as it has (uint8 masks too, where that dtype exists)
    masks = (_G.bool, getattr(_G, "uint8", _G.bool))
    used = builtins.sum(i.dim() if i.dtype in masks else 1 for i in key)
    if used > input.dim():
        raise IndexError(f"too many indices for tensor of dimension {input.dim()} "
                         f"(got {used})")
    positions = _G.arange(input.numel(), device=input.device).reshape(tuple(input.shape))
    lin = positions[key]
    target = tuple(lin.shape)
    try:
        _G.broadcast_shapes(tuple(values.shape), target)
        fits = len(values.shape) <= len(target)
    except RuntimeError:
        fits = False
    if not fits or _G.broadcast_shapes(tuple(values.shape), target) != target:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(values.shape)} cannot "
                           f"be broadcast to indexing result of shape {list(target)}")
    flat_lin = lin.reshape(-1)

    def put(base, vals):
        flat = base.reshape(-1)
        v = vals.expand(target).reshape(-1)
        out = flat.index_add(0, flat_lin, v) if accumulate else flat.scatter(0, flat_lin, v)
        return out.reshape(tuple(base.shape))

    with _no_grad():
        res = put(input, values)

    def backward(g):
        gi = gv = None
        if input.requires_grad:
            gi = g if accumulate else put(g, _G.zeros((), dtype=g.dtype, device=g.device))
        if values.requires_grad:
            gv = g.reshape(-1).gather(0, flat_lin).reshape(target)
            if target != tuple(values.shape):
                gv = gv.sum_to_size(*values.shape) if values.dim() else gv.sum()
        return gi, gv

    return _node("IndexPutBackward0", res, [input, values], backward, save_inputs=())


def index_put(input, indices, values, accumulate=False):
    """`gradrs.index_put(input, indices, values, accumulate=False)`: a copy of `input` with
    `input[indices] = values` (`indices` a tuple of index tensors or None), or
    `input[indices] += values` with `accumulate=True`, repeated indices adding up.

    Examples:
        >>> x = gradrs.zeros(3)
        >>> gradrs.index_put(x, (gradrs.tensor([0, 0, 2]),), gradrs.tensor([1.0, 2.0, 5.0]), accumulate=True)
        tensor([3., 0., 5.])
    """
    _index_put_parse("index_put", (input, indices, values), {"accumulate": accumulate},
                     _INDEX_PUT_SIGS)
    return _index_put(input, indices, values, accumulate)


def _index_put_method(self, indices, values, accumulate=False):
    """`Tensor.index_put(indices, values, accumulate=False)`."""
    _index_put_parse("index_put", (indices, values), {"accumulate": accumulate},
                     _INDEX_PUT_METHOD)
    return _index_put(self, indices, values, accumulate)


# PyTorch's deprecation warning for a write it lets through an expanded tensor: the op, an
# indexing example, the line of TensorAdvancedIndexing.cpp that raises it.
_EXPANDED = (
    "Use of {} on expanded tensors is deprecated. Please clone() the tensor before performing "
    "this operation. This also applies to advanced indexing e.g. {} "
    "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
    "TensorAdvancedIndexing.cpp:{}.)")
_EXPANDED_PUT = _EXPANDED.format("index_put_", "tensor[indices] = tensor", 976)
_EXPANDED_MASKED_FILL = _EXPANDED.format("masked_fill_", "tensor[mask] = scalar", 2450)


def _expanded_dims(t):
    """The dims of `t` of size > 1 and stride 0 (none for a contiguous tensor)."""
    if t.is_contiguous():
        return []
    return [d for d, (n, s) in enumerate(zip(t.shape, t.stride())) if s == 0 and n > 1]



def _index_put_expanded(self, indices, values, accumulate):
    """`index_put_` on an expanded `self` (a dim of size > 1 and stride 0), which PyTorch
    writes through with a deprecation warning: every memory location some written element
    maps to takes the value (`x[indices] = values`'s write), or, with `accumulate`, the sum of
    all that were added to the elements that share it. None when `self` is not expanded."""
    dims = _expanded_dims(self)
    if not dims:
        return None
    warnings.warn(_EXPANDED_PUT, UserWarning, stacklevel=3)
    given = [i for i in indices if i is not None]
    if not accumulate and len(given) == 1 and given[0].dtype == _G.bool and values.numel() == 1:
        # PyTorch's index_put_ writes a one-element value through a mask by masked_fill_
        warnings.warn(_EXPANDED_MASKED_FILL, UserWarning, stacklevel=3)
    if not accumulate:
        with warnings.catch_warnings():  # the write's own warning: issued above, for the caller
            warnings.simplefilter("ignore", UserWarning)
            self[tuple(indices)] = values
        return self
    added = _index_put(_G.zeros(tuple(self.shape), dtype=self.dtype, device=self.device),
                       indices, values, True)
    for d in dims:
        added = added.sum(d, keepdim=True)
    memory = self.as_strided(tuple(added.shape), self.stride(), self.storage_offset())
    memory.add_(added)
    return self


def _index_put_(self, indices, values, accumulate=False):
    """`Tensor.index_put_(indices, values, accumulate=False)`: in place."""
    _index_put_parse("index_put_", (indices, values), {"accumulate": accumulate},
                     _INDEX_PUT_METHOD)
    expanded = _index_put_expanded(self, indices, values, accumulate)
    if expanded is not None:
        return expanded
    return self.copy_(_index_put(self.clone(), indices, values, accumulate))


def index_put_(input, indices, values, accumulate=False):
    """`gradrs.index_put_(input, indices, values, accumulate=False)`: `input.index_put_(...)`.

    Examples:
        >>> x = gradrs.zeros(2, 2)
        >>> gradrs.index_put_(x, (gradrs.tensor([1]), gradrs.tensor([0])), gradrs.tensor(4.0))
        tensor([[0., 0.],
                [4., 0.]])
    """
    _index_put_parse("index_put_", (input, indices, values), {"accumulate": accumulate},
                     _INDEX_PUT_SIGS)
    expanded = _index_put_expanded(input, indices, values, accumulate)
    if expanded is not None:
        return expanded
    return input.copy_(_index_put(input.clone(), indices, values, accumulate))


Tensor.index_put = _index_put_method
Tensor.index_put_ = _index_put_
__all__ += ["index_put", "index_put_"]
