"""More of PyTorch's API composed from gradrs ops (issue 24): argwhere, kron, frexp, renorm,
histogram, the in-place index_copy_ / masked_scatter_ / renorm_, and the small functions a
`dir(torch)` comparison found missing.

A composite PyTorch gives a node of its own (``RenormBackward0``, ``FrexpBackward0``...) is
computed without recording and gets one node of that name (`_breadth._node`) whose backward is
derivatives.yaml's formula in gradrs ops, so second derivatives come from those ops. An in-place
form writes the result into `self` and gives `self` that node (see `_write_in_place`).
"""

import builtins
import math
import sys
from collections.abc import Sequence

import numpy as np

from . import _argparse, _native, return_types
from ._breadth import _forward_tangent, _node, _reduce_to, index_copy, masked_scatter
from ._forms import with_out as _with_out
from ._grad_mode import no_grad as _no_grad
from ._native import Tensor
from ._reduce_ops import _parsed, _wrap_dim
from .functional import _dtype_name, _method

# The gradrs package (still loading when this module is: read at call time).
_G = sys.modules[__package__]

__all__ = ["argwhere", "kron", "frexp", "renorm", "histogram"]

# histogram's `range`: a sequence of numbers, as PyTorch's parser reads `ArrayRef<double>`.
_argparse._CHECKS.setdefault("tuple of floats", lambda o: isinstance(o, (tuple, list)) and all(
    _argparse._is_number(v) and not isinstance(v, Tensor) for v in o))
return_types.frexp = return_types._make_type("frexp", ("mantissa", "exponent"))
return_types.histogram = return_types._make_type("histogram", ("hist", "bin_edges"))


def _check_leaf(self):
    """PyTorch refuses an in-place op on a leaf that requires grad before any other check."""
    if _native.is_grad_enabled() and self.is_leaf and self.requires_grad:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")


def _write_in_place(self, name, result, others, backward):
    """`self` overwritten with `result` (computed without recording) as PyTorch's in-place op
    `name`: a leaf that requires grad is refused; `self` gets one node `name` over (self's
    history, *others); `backward(g, prior)` returns their gradients, `prior` being `self`
    before the write. A view goes through `copy_`, whose CopySlices node keeps its base's
    history right.

    `prior` is a recorded clone of `self`: `_attach_node` checks its inputs' versions, and
    `self` itself is written again by later in-place ops PyTorch allows (its node saves no
    `self`)."""
    recording = _native.is_grad_enabled() and builtins.any(
        isinstance(t, Tensor) and t.requires_grad for t in (self, *others))
    _check_leaf(self)
    if not recording:
        with _no_grad():
            return self.copy_(result)
    prior = self.clone() if self.requires_grad else None
    inputs = [prior, *others]
    if self._base is not None:
        return self.copy_(_node(name, result, inputs, lambda g: backward(g, prior)))
    with _no_grad():
        self.copy_(result)
    _native._attach_node(self, [t if isinstance(t, Tensor) else None for t in inputs],
                         name, lambda g: list(backward(g, prior)))
    return self


# ---- argwhere, kron ----------------------------------------------------------------------------

@_parsed("argwhere", ["(Tensor input)"], ["()"])
def argwhere(input):
    """`gradrs.argwhere(input)`: the indices of the nonzero elements, one row each (int64).

    Examples:
        >>> gradrs.argwhere(gradrs.tensor([[1, 0], [0, 3]]))
        tensor([[0, 0],
                [1, 1]])
    """
    return input.nonzero()


@_parsed("kron", ["(Tensor input, Tensor other, *, Tensor out = None)"],
         ["(Tensor other)"])
def kron(input, other, *, out=None):
    """`gradrs.kron(input, other)`: the Kronecker product, ATen's composition (a broadcast
    product of interleaved reshapes, then one _unsafe_view: UnsafeViewBackward0).

    Examples:
        >>> gradrs.kron(gradrs.tensor([1, 2]), gradrs.tensor([1, 10]))
        tensor([ 1, 10,  2, 20])
    """
    if out is not None:
        return _with_out("kron", out, lambda: kron(input, other), (input, other))
    n = builtins.max(input.dim(), other.dim())
    pad_a, pad_b = n - input.dim(), n - other.dim()
    a_shape, b_shape, res_shape = [], [], []
    for i in range(n):
        a = input.shape[i - pad_a] if i >= pad_a else 1
        b = other.shape[i - pad_b] if i >= pad_b else 1
        a_shape += [a, 1]
        b_shape += [1, b]
        res_shape.append(a * b)
    prod = input.reshape(a_shape) * other.reshape(b_shape)
    with _no_grad():
        res = prod.reshape(res_shape)
    return _node("UnsafeViewBackward0", res, [prod], lambda g: (g.reshape(prod.shape),))


# ---- frexp ---------------------------------------------------------------------------------------

@_parsed("frexp", ["(Tensor input, *, tuple of Tensors out = None)"], ["()"])
def frexp(input, *, out=None):
    """`gradrs.frexp(input)`: (mantissa, exponent) with `input = mantissa * 2 ** exponent`,
    |mantissa| in [0.5, 1), exponent int32; 0, inf and NaN keep their value with exponent 0
    (C's frexp) (FrexpBackward0: grad / 2 ** exponent).

    Examples:
        >>> gradrs.frexp(gradrs.tensor([8.0, 0.75]))
        gradrs.return_types.frexp(
        mantissa=tensor([0.5000, 0.7500]),
        exponent=tensor([4, 0], dtype=gradrs.int32))
    """
    if not input.is_floating_point():
        raise RuntimeError("gradrs.frexp() only supports floating-point dtypes")
    if out is not None:
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise TypeError("frexp(): argument 'out' must be tuple of Tensors, not "
                            f"{_argparse.type_name(out)}")
        if out[0].dtype != input.dtype:
            raise RuntimeError(f"gradrs.frexp() expects mantissa to have dtype "
                               f"{_c_type(input)} but got {_c_type(out[0])}")
        if out[1].dtype != _G.int32:
            raise RuntimeError(f"gradrs.frexp() expects exponent to have int dtype but got "
                               f"{_c_type(out[1])}")
        mant, exp = _with_out("frexp", out, lambda: tuple(frexp(input)), (input,))
        return return_types.frexp(mant, exp)
    with _no_grad():
        # float64 holds every exponent of the narrower dtypes; 2 ** -e in two factors so that
        # neither overflows for float64's largest and smallest (subnormal) values
        x = input.to(_G.float64) if input.dtype != _G.float64 else input
        a = x.abs()
        regular = (a > 0) & a.isfinite()
        e = a.where(regular, _G.ones_like(a)).log2().floor() + 1
        e1 = (e / 2).floor()
        m = x * (-e1).exp2() * (e1 - e).exp2()
        # log2 rounds near powers of two: one step fixes the exponent
        low, high = m.abs() < 0.5, m.abs() >= 1
        m = _G.where(low, m * 2, _G.where(high, m / 2, m))
        e = _G.where(low, e - 1, _G.where(high, e + 1, e))
        mant = _G.where(regular, m, x).to(input.dtype)
        exp = e.where(regular, _G.zeros_like(e)).to(_G.int32)
    scale = exp.to(input.dtype).exp2()
    _forward_tangent(mant, [input], lambda t: t / scale)
    mant = _node("FrexpBackward0", mant, [input], lambda g: (g / scale,))
    return return_types.frexp(mant, exp)


# ---- renorm --------------------------------------------------------------------------------------

def _norm_backward(grad, x, p, norm, dims):
    """ATen's norm_backward (keepdim): the gradient of `vector_norm(x, p, dims)` given `grad`
    (`norm` its value), with its special cases for p in {0, 1, 2, inf}, p < 1 and p < 2."""
    if p == 0:
        return _G.zeros_like(x)
    if p == 1:
        return x.sgn() * grad
    if p == 2:
        return grad * (x / norm).masked_fill(norm == 0, 0)
    if math.isinf(p):
        xa = x.abs()
        mask = xa.eq(norm).logical_or(xa.isnan())
        return x.sgn() * ((grad / mask.sum(dims, keepdim=True)) * mask)
    if p < 1:
        scaled = x.sgn() * x.abs().pow(p - 1).masked_fill(x == 0, 0)
        return scaled * grad * norm.pow(1 - p)
    scaled = x.sgn() * x.abs().pow(p - 1) if p < 2 else x * x.abs().pow(p - 2)
    return scaled * (grad / norm.pow(p - 1)).masked_fill(norm == 0, 0)


_RENORM_SIG = "(Tensor input, Number p, int dim, Number maxnorm, *, Tensor out = None)"


@_parsed("renorm", [_RENORM_SIG], ["(Number p, int dim, Number maxnorm)"])
def renorm(input, p, dim, maxnorm, *, out=None):
    """`gradrs.renorm(input, p, dim, maxnorm)`: each slice along `dim` whose p-norm exceeds
    `maxnorm` scaled down to norm `maxnorm` (by maxnorm / (norm + 1e-7)) (RenormBackward0).

    Examples:
        >>> gradrs.renorm(gradrs.tensor([[3.0, 4.0], [0.3, 0.4]]), 2, 0, 1.0)
        tensor([[0.6000, 0.8000],
                [0.3000, 0.4000]])
    """
    if out is not None:
        return _with_out("renorm", out, lambda: renorm(input, p, dim, maxnorm), (input,))
    p, maxnorm = float(p), float(maxnorm)
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    if input.dim() <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.dim()} "
                           "dimensions")
    d = _wrap_dim(dim, input.dim())
    if not input.is_floating_point():
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {_dtype_name(input.dtype)}")
    dims = [i for i in range(input.dim()) if i != d]

    def scale_of(x):
        norm = _G.linalg.vector_norm(x, p, dims, keepdim=True)
        return norm, _G.where(norm > maxnorm, maxnorm / (norm + 1e-7), _G.ones_like(norm))

    with _no_grad():
        _, factor = scale_of(input)
        res = input * factor

    _forward_tangent(res, [input], lambda t: _renorm_jvp(input, t, p, dims, maxnorm))
    return _node("RenormBackward0", res, [input],
                 lambda g: (_renorm_grad(input, g, p, dim, maxnorm),))


def _renorm_jvp(x, t, p, dims, maxnorm):
    # the chain rule through input * factor(norm(input)), as the composition would give
    norm = _G.linalg.vector_norm(x, p, dims, keepdim=True)
    dnorm = (_norm_backward(_G.ones_like(norm), x, p, norm, dims) * t).sum(dims, keepdim=True)
    inv = (norm + 1e-7).reciprocal()
    f = maxnorm * inv
    return _G.where(norm > maxnorm, t * f - x * (f * inv * dnorm), t)


def _renorm_(self, *args, **kwargs):
    """`Tensor.renorm_(p, dim, maxnorm)`: `renorm` written into `self` (RenormBackward0)."""
    _check_leaf(self)
    err = _argparse.error("renorm_", args, kwargs, ["(Number p, int dim, Number maxnorm)"])
    if err is not None:
        raise err
    p, dim, maxnorm = _bind(args, kwargs, ("p", "dim", "maxnorm"))
    with _no_grad():
        res = renorm(self, p, dim, maxnorm)  # its checks too
    return _write_in_place(self, "RenormBackward0", res, [],
                           lambda g, x: (_renorm_grad(x, g, p, dim, maxnorm),))


def _bind(args, kwargs, names):
    """The values of `names` from a call's positional and keyword arguments."""
    return list(args) + [kwargs[n] for n in names[len(args):]]


def _renorm_grad(x, g, p, dim, maxnorm):
    p, maxnorm = float(p), float(maxnorm)
    d = _wrap_dim(dim, x.dim())
    dims = [i for i in range(x.dim()) if i != d]
    norm = _G.linalg.vector_norm(x, p, dims, keepdim=True)
    nb = _norm_backward((x * g).sum(dims, keepdim=True), x, p, norm, dims)
    inv = (norm + 1e-7).reciprocal()
    f = inv * maxnorm
    return _G.where(norm > maxnorm, f * g - (f * inv) * nb, g)


# ---- index_copy_, masked_scatter_ ---------------------------------------------------------------

def _index_copy_(self, dim, index, source):
    """`Tensor.index_copy_(dim, index, source)`: `index_copy` written into `self`
    (IndexCopyBackward0)."""
    _check_leaf(self)
    with _no_grad():
        res = index_copy(self, dim, index, source)  # its checks too
    src_rg = isinstance(source, Tensor) and source.requires_grad
    d = _wrap_dim(dim, self.dim())
    idx = index.reshape(-1)

    def backward(g, prior):
        gv = g if self.dim() else g.reshape(1)
        gi = gv.index_fill(d, idx, 0).reshape(g.shape) if prior is not None else None
        gs = gv.index_select(d, idx).reshape(source.shape) if src_rg else None
        return gi, None, gs

    return _write_in_place(self, "IndexCopyBackward0", res, [index, source], backward)


def _masked_scatter_(self, mask, source):
    """`Tensor.masked_scatter_(mask, source)`: `masked_scatter` written into `self`, whose
    shape `mask` must broadcast to (MaskedScatterBackward0)."""
    _check_leaf(self)
    if isinstance(mask, Tensor) and mask.dtype == _G.bool:
        shape = tuple(self.shape)
        if mask.dim() > len(shape):
            raise RuntimeError(
                f"expand({_type_str(mask)}{{{list(mask.shape)}}}, size={list(shape)}): the "
                f"number of sizes provided ({len(shape)}) must be greater or equal to the "
                f"number of dimensions in the tensor ({mask.dim()})")
        for i in range(1, mask.dim() + 1):  # ATen's expand checks from the last dim
            if mask.shape[-i] not in (1, shape[-i]):
                raise RuntimeError(
                    f"The expanded size of the tensor ({shape[-i]}) must match the existing "
                    f"size ({mask.shape[-i]}) at non-singleton dimension {len(shape) - i}.  "
                    f"Target sizes: {list(shape)}.  Tensor sizes: {list(mask.shape)}")
    with _no_grad():
        res = masked_scatter(self, mask, source)  # its checks too
    src_rg = source.requires_grad
    m = mask.expand(self.shape)
    count = int(m.sum().item())

    def backward(g, prior):
        gi = g.masked_fill(m, 0) if prior is not None else None
        gs = None
        if src_rg:
            pad = _G.zeros((source.numel() - count,), dtype=g.dtype, device=g.device)
            gs = _G.cat([g[m], pad]).reshape(source.shape)
        return gi, None, gs

    return _write_in_place(self, "MaskedScatterBackward0", res, [mask, source], backward)


def _type_str(t):
    """ATen's `CPUBoolType` spelling of a tensor's type in expand's message."""
    names = {"bool": "Bool", "float32": "Float", "float64": "Double", "int64": "Long",
             "int32": "Int", "float16": "Half", "bfloat16": "BFloat16", "uint8": "Byte",
             "int8": "Char", "int16": "Short"}
    return f"CPU{names.get(str(t.dtype).split('.')[-1], 'Float')}Type"


# ---- histogram -----------------------------------------------------------------------------------

_HIST_SIGS = [
    "(Tensor input, Tensor bins, *, Tensor weight = None, bool density = False, "
    "tuple of Tensors out = None)",
    "(Tensor input, int bins = 100, *, tuple of floats range = None, Tensor weight = None, "
    "bool density = False, tuple of Tensors out = None)",
]
_HIST_METHOD_SIGS = [
    "(Tensor bins, *, Tensor weight = None, bool density = False)",
    "(int bins = 100, *, tuple of floats range = None, Tensor weight = None, "
    "bool density = False)",
]
_NP = {"float32": np.float32, "float64": np.float64, "float16": np.float16}


@_parsed("histogram", _HIST_SIGS, _HIST_METHOD_SIGS)
def histogram(input, bins=100, *, range=None, weight=None, density=False, out=None):
    """`gradrs.histogram(input, bins, *, range=None, weight=None, density=False)`:
    (hist, bin_edges), PyTorch's CPU binning: `bins` equal bins over `range` (the data's
    [min, max], widened by 0.5 each side when empty), or the edges given as a tensor; the
    last bin includes its right edge; counts (or weights) summed in element order.

    Examples:
        >>> gradrs.histogram(gradrs.tensor([1., 2, 1]), bins=4, range=(0., 3.))
        gradrs.return_types.histogram(
        hist=tensor([0., 2., 1., 0.]),
        bin_edges=tensor([0.0000, 0.7500, 1.5000, 2.2500, 3.0000]))
    """
    if out is not None:
        res = _with_out("histogram", out, lambda: tuple(histogram(
            input, bins, range=range, weight=weight, density=density)), (input,))
        return return_types.histogram(*res)
    name = _dtype_name(input.dtype)
    if not input.is_floating_point() or input.dtype in (_G.bfloat16, _G.float16):
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{name}'")
    if input.device.type != "cpu":
        raise NotImplementedError("Could not run 'aten::histogram.bin_ct' with arguments from "
                                  f"the '{input.device.type.upper()}' backend.")
    npt = _NP[str(input.dtype).split(".")[-1]]
    x = input.detach().reshape(-1).numpy().astype(npt, copy=False)
    if weight is not None:
        if tuple(weight.shape) != tuple(input.shape):
            raise RuntimeError("gradrs.histogramdd: if weight tensor is provided it should have "
                               "the same shape as the input tensor excluding its innermost "
                               f"dimension, but got input with shape {list(input.shape) + [1]}"
                               f" and weight with shape {list(weight.shape)}")
        if weight.dtype != input.dtype:
            raise RuntimeError("gradrs.histogramdd: if weight tensor is provided, input tensor "
                               "and weight tensor should have the same dtype, but got input("
                               f"{_c_type(input)}), and weight({_c_type(weight)})")
    if isinstance(bins, Tensor):
        if bins.dim() != 1:
            raise RuntimeError(f"gradrs.histogramdd: bins tensor should have one dimension, but "
                               f"got {bins.dim()} dimensions in the bins tensor for dimension 0")
        if bins.dtype != input.dtype:
            raise RuntimeError("gradrs.histogramdd: input tensor and bins tensors should have "
                               f"the same dtype, but got input with dtype {_c_type(input)} and bins "
                               f"for dimension 0 with dtype {_c_type(bins)}")
        if bins.numel() == 0:
            raise RuntimeError("gradrs.histogramdd: bins tensor should have at least 1 element, "
                               "but got 0 elements in the bins tensor for dimension 0")
        edges_t = bins.detach().clone()
        edges = edges_t.numpy().astype(npt, copy=False)
        nb = edges.size - 1
        pos = np.searchsorted(edges, x, side="right") - 1 if nb > 0 else np.zeros(0, np.int64)
        if nb > 0:
            pos = np.where((x == edges[-1]) & (pos == nb), nb - 1, pos)
            keep = (x >= edges[0]) & (x <= edges[-1]) & (pos >= 0) & (pos < nb)
        else:
            keep = np.zeros(x.shape, bool)
    else:
        if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)):
            raise TypeError
        nb = int(bins)
        if nb <= 0:
            raise RuntimeError(f"gradrs.histogram(): bins must be > 0, but got {nb} for "
                               "dimension 0")
        if range is not None:
            lo, hi = (npt(v) for v in range)
        elif x.size:
            lo, hi = np.min(x), np.max(x)
        else:
            lo, hi = npt(0), npt(1)
        if not (np.isfinite(lo) and np.isfinite(hi)):
            raise RuntimeError(f"gradrs.histogramdd: dimension 0's range [{_c_num(lo)}, "
                               f"{_c_num(hi)}] is not finite")
        if lo > hi:
            raise RuntimeError(f"gradrs.histogramdd: min should not exceed max, but got min "
                               f"{_c_num(lo)} max {_c_num(hi)} for dimension 0")
        if lo == hi:
            lo, hi = npt(lo - npt(0.5)), npt(hi + npt(0.5))
        edges_t = _G.linspace(float(lo), float(hi), nb + 1, dtype=input.dtype)
        edges = edges_t.numpy().astype(npt, copy=False)
        keep = (x >= lo) & (x <= hi)
        xs = x[keep]
        # ATen's index: (x - lo) * bins / (hi - lo) in the input's dtype, truncated, then
        # one step against the actual edges
        with np.errstate(all="ignore"):
            raw = ((xs - lo) * npt(nb) / npt(hi - lo)).astype(np.int64)
        raw = np.clip(raw, 0, nb - 1)
        raw = np.where(xs < edges[raw], raw - 1, raw)
        raw = np.where((raw + 1 < nb + 1) & (xs >= edges[np.minimum(raw + 1, nb)]) &
                       (raw + 1 < nb), raw + 1, raw)
        pos = np.zeros(x.shape, np.int64)
        pos[keep] = raw
    hist = np.zeros(builtins.max(nb, 0), npt)
    w = (weight.detach().reshape(-1).numpy().astype(npt, copy=False) if weight is not None
         else np.ones(x.shape, npt))
    np.add.at(hist, pos[keep], w[keep])
    hist_t = _G.tensor(hist, dtype=input.dtype)
    if density and nb > 0:
        widths = edges_t[1:] - edges_t[:-1]
        hist_t = hist_t / (hist_t.sum() * widths)
    return return_types.histogram(hist_t, edges_t)


def _c_type(t):
    """A dtype as ATen's TypeMeta prints it (`float`, `double`, `c10::Half`...)."""
    return {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
            "int32": "int", "bool": "bool"}.get(str(t.dtype).split(".")[-1], str(t.dtype))


def _c_num(v):
    """A float as PyTorch's messages print it (C++ ostream, `%g`)."""
    return f"{float(v):g}"


# ---- the Tensor methods -------------------------------------------------------------------------

def _argwhere(self):
    """`Tensor.argwhere()`."""
    return argwhere(self)


def _frexp(self):
    """`Tensor.frexp()`."""
    return frexp(self)


for _fn in (kron, renorm, histogram):
    setattr(Tensor, _fn.__name__, _fn._method)
Tensor.argwhere = _argwhere
Tensor.frexp = _frexp
Tensor.renorm_ = _renorm_
Tensor.index_copy_ = _index_copy_
Tensor.masked_scatter_ = _masked_scatter_
del _fn


# ---- in-place forms of differentiable ops -------------------------------------------------------

def _recomputed_in_place(name, node, op, cast_error=None, out_shape=None):
    """Tensor method `name`: `op(self, ...)` written into `self`, which gets one node `node`.
    Its backward runs `op` again on `self`'s prior value (a recorded clone) and differentiates
    it, so each gradient is the out-of-place op's own (first and higher order)."""
    def method(self, *args, **kwargs):
        _check_leaf(self)
        dtype = kwargs.get("dtype")
        if dtype is not None and dtype != self.dtype:
            raise RuntimeError(f"Bad in-place call: input tensor dtype {_c_type(self)} and "
                               f"output tensor dtype {_c_type(_G.empty(0, dtype=dtype))} "
                               "should match")
        shape = _shape_of(out_shape, args)
        if shape is not None and shape != tuple(self.shape):
            raise RuntimeError(f"Bad in-place call: input tensor size {list(self.shape)} and "
                               f"output tensor size {list(shape)} should match")
        with _no_grad():
            res = op(self, *args, **kwargs)
        if not _G.can_cast(res.dtype, self.dtype):
            what = cast_error or f"result type {_dtype_name(res.dtype)}"
            raise RuntimeError(f"{what} can't be cast to the desired output type "
                               f"{_dtype_name(self.dtype)}")
        if tuple(res.shape) != tuple(self.shape):
            raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the "
                               f"broadcast shape {list(res.shape)}")
        keys = list(kwargs)
        values = [*args, *kwargs.values()]
        others = [v for v in values if isinstance(v, Tensor)]
        before = None if self.requires_grad else self.detach().clone()

        def backward(g, prior):
            base = prior if prior is not None else before
            create = _native.is_grad_enabled()
            with _G.enable_grad():
                # an alias per tensor argument: one tensor passed twice (`y.addmm_(x, x)`)
                # gets each position's gradient on its own edge
                vals = [v.view_as(v) if isinstance(v, Tensor) and v.requires_grad else v
                        for v in values]
                y = op(base, *vals[:len(args)], **dict(zip(keys, vals[len(args):])))
                inputs = [prior, *[v for v in vals if isinstance(v, Tensor)]]
                wrt = [t for t in inputs if t is not None and t.requires_grad]
                found = iter(_G.autograd.grad(y, wrt, g.to(y.dtype), create_graph=create,
                                              allow_unused=True, retain_graph=create))
            return [next(found) if t is not None and t.requires_grad else None
                    for t in inputs]

        return _write_in_place(self, node, res, others, backward)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"`Tensor.{name}(...)`: `{name[:-1]}` written into `self` ({node})."
    return method


def _shape_of(out_shape, args):
    """The result shape a matmul-family in-place op checks `self` against first (None when
    the operands are not yet valid: the op's own checks speak then)."""
    if out_shape is None:
        return None
    try:
        shape = out_shape(*args)
    except (AttributeError, IndexError, TypeError):
        return None
    return None if shape is None else tuple(shape)


def _ldexp_values(input, other):
    out_type = _G.result_type(input, other)
    if not (out_type.is_floating_point or out_type.is_complex):
        out_type = _G.get_default_dtype()
    return out_type


@_parsed("ldexp", ["(Tensor input, Tensor other, *, Tensor out = None)"], ["(Tensor other)"])
def ldexp(input, other, *, out=None):
    """`gradrs.ldexp(input, other)`: `input * 2 ** other`, a float result (the default dtype
    for integers) (LdexpBackward0: grad * 2 ** other, grad * result * ln 2).

    Examples:
        >>> gradrs.ldexp(gradrs.tensor([1.0, 3.0]), gradrs.tensor([2, -1]))
        tensor([4.0000, 1.5000])
    """
    if out is not None:
        return _with_out("ldexp", out, lambda: ldexp(input, other), (input, other))
    dt = _ldexp_values(input, other)
    with _no_grad():
        scale = other.to(dt).exp2()
        res = input.to(dt) * scale

    def backward(g):
        gi = _reduce_to(g * other.to(dt).exp2(), input.shape) if input.requires_grad else None
        go = None
        if other.requires_grad:
            go = _reduce_to(g * input.to(dt) * other.to(dt).exp2() * math.log(2.0), other.shape)
        return gi, go

    _forward_tangent(res, [input, other],
                     lambda ti, to: ti * scale + input * scale * math.log(2.0) * to)
    return _node("LdexpBackward0", res, [input, other], backward)


Tensor.ldexp = ldexp._method
Tensor.ldexp_ = _recomputed_in_place("ldexp_", "LdexpBackward0", ldexp, cast_error="ldexp")
Tensor.addmm_ = _recomputed_in_place(
    "addmm_", "AddmmBackward0", Tensor.addmm,
    out_shape=lambda a, b, *_: (a.shape[0], b.shape[1]) if a.dim() == b.dim() == 2 else None)
Tensor.addmv_ = _recomputed_in_place(
    "addmv_", "AddmvBackward0", Tensor.addmv,
    out_shape=lambda a, v, *_: (a.shape[0],) if a.dim() == 2 and v.dim() == 1 else None)
Tensor.addr_ = _recomputed_in_place(
    "addr_", "AddrBackward0", Tensor.addr,
    out_shape=lambda a, b, *_: (a.shape[0], b.shape[0]) if a.dim() == b.dim() == 1 else None)
Tensor.baddbmm_ = _recomputed_in_place(
    "baddbmm_", "BaddbmmBackward0", Tensor.baddbmm,
    out_shape=lambda a, b, *_: (a.shape[0], a.shape[1], b.shape[2])
    if a.dim() == b.dim() == 3 else None)
Tensor.addbmm_ = _recomputed_in_place(
    "addbmm_", "AddbmmBackward0", Tensor.addbmm,
    out_shape=lambda a, b, *_: (a.shape[1], b.shape[2]) if a.dim() == b.dim() == 3 else None)
Tensor.cumsum_ = _recomputed_in_place("cumsum_", "CumsumBackward0", Tensor.cumsum)
Tensor.cumprod_ = _recomputed_in_place("cumprod_", "CumprodBackward0", Tensor.cumprod)
Tensor.sgn_ = _recomputed_in_place("sgn_", "SgnBackward0", Tensor.sgn)
Tensor.put_ = _recomputed_in_place("put_", "PutBackward0", Tensor.put)


def _logical_in_place(name, op):
    """Tensor method `name`: the boolean `op(self, ...)` cast into `self`; not differentiable,
    so `self` keeps its node, as in PyTorch."""
    def method(self, *args):
        res = op(self, *args)
        if tuple(res.shape) != tuple(self.shape):
            raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the "
                               f"broadcast shape {list(res.shape)}")
        with _no_grad():
            return self.copy_(res)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"`Tensor.{name}(...)`: `{name[:-1]}` cast into `self`."
    return method


for _name in ("logical_and", "logical_or", "logical_xor", "logical_not"):
    setattr(Tensor, _name + "_", _logical_in_place(_name + "_", getattr(Tensor, _name)))


def addmv_(input, mat, vec, *, beta=1, alpha=1):
    """`gradrs.addmv_(input, mat, vec, *, beta=1, alpha=1)`: `input.addmv_(...)`."""
    return input.addmv_(mat, vec, beta=beta, alpha=alpha)


def ldexp_(input, other):
    """`gradrs.ldexp_(input, other)`: `input.ldexp_(other)`."""
    return input.ldexp_(other)


def gcd_(input, other):
    """`gradrs.gcd_(input, other)`: `input.gcd_(other)`."""
    return input.gcd_(other)


def lcm_(input, other):
    """`gradrs.lcm_(input, other)`: `input.lcm_(other)`."""
    return input.lcm_(other)


def round_(input, *, decimals=0):
    """`gradrs.round_(input, *, decimals=0)`: `input.round_(decimals=decimals)`."""
    return input.round_(decimals=decimals) if decimals else input.round_()


def nan_to_num_(input, nan=0.0, posinf=None, neginf=None):
    """`gradrs.nan_to_num_(input, nan=0.0, posinf=None, neginf=None)`: `input.nan_to_num_`."""
    return input.nan_to_num_(nan, posinf, neginf)


__all__ += ["ldexp", "addmv_", "ldexp_", "gcd_", "lcm_", "round_", "nan_to_num_"]

_sgn_in_place = Tensor.sgn_
_logical_not_in_place = Tensor.logical_not_


def _sgn_(self):
    """`Tensor.sgn_()`: `sgn` written into `self` (SgnBackward0)."""
    return _sgn_in_place(self)


def _logical_not_(self):
    """`Tensor.logical_not_()`: `logical_not` cast into `self`."""
    return _logical_not_in_place(self)


Tensor.sgn_ = _sgn_
Tensor.logical_not_ = _logical_not_


# ---- unravel_index, vander, angle, scatters into views ------------------------------------------

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


def vander(x, N=None, increasing=False):
    """`gradrs.vander(x, N=None, increasing=False)`: the Vandermonde matrix of the 1-D `x`
    (powers N-1 .. 0, or 0 .. N-1 with `increasing`), integers promoted to int64.

    Examples:
        >>> gradrs.vander(gradrs.tensor([1, 2, 3]), 3)
        tensor([[1, 1, 1],
                [4, 2, 1],
                [9, 3, 1]])
    """
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0]
    if N is not None:
        n = N
        if n < 0:
            raise RuntimeError("N must be non-negative.")
    dt = _G.promote_types(x.dtype, _G.int64)
    ones = _G.ones((x.shape[0], builtins.min(n, 1)), dtype=dt, device=x.device)
    if n > 1:
        powers = x.to(dt).unsqueeze(1).expand(x.shape[0], n - 1).cumprod(1)
        res = _G.cat([ones, powers], 1)
    else:
        res = ones
    return res if increasing else res.flip(1)


def angle(input, *, out=None):
    """`gradrs.angle(input)`: the argument of a real number: pi for negatives, 0 otherwise,
    NaN kept; integers give the default float dtype (AngleBackward0: zero gradient).

    Examples:
        >>> gradrs.angle(gradrs.tensor([-2.0, 3.0]))
        tensor([3.1416, 0.0000])
    """
    if out is not None:
        return _with_out("angle", out, lambda: angle(input), (input,))
    if not isinstance(input, Tensor):
        raise TypeError(f"angle(): argument 'input' (position 1) must be Tensor, not "
                        f"{_argparse.type_name(input)}")
    dt = input.dtype if input.is_floating_point() else _G.get_default_dtype()
    with _no_grad():
        x = input.to(dt)
        res = _G.where(x < 0, _G.full_like(x, math.pi), _G.zeros_like(x))
        res = _G.where(x.isnan(), x, res)
    return _node("AngleBackward0", res, [input], lambda g: (_G.zeros_like(g),))


def _check_scatter_src(src, view):
    if tuple(src.shape) != tuple(view.shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(view.shape)}")


def _scatter_into(name, input, src, take):
    """`input` with the view `take(t)` replaced by `src` (node `name`: the gradient's view
    goes to `src`, the rest to `input`)."""
    _check_scatter_src(src, take(input))
    with _no_grad():
        res = input.clone()
        take(res).copy_(src)

    def backward(g):
        gi = gs = None
        if input.requires_grad:
            gi = g.clone()
            with _no_grad():
                take(gi).zero_()
            gi = _scatter_into(name, g, _G.zeros_like(src), take) if g.requires_grad else gi
        if src.requires_grad:
            gs = take(g)
        return gi, gs

    return _node(name, res, [input, src], backward)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """`gradrs.diagonal_scatter(input, src, offset=0, dim1=0, dim2=1)`: a copy of `input`
    whose diagonal is `src` (DiagonalScatterBackward0).

    Examples:
        >>> gradrs.diagonal_scatter(gradrs.zeros(2, 2), gradrs.ones(2))
        tensor([[1., 0.],
                [0., 1.]])
    """
    return _scatter_into("DiagonalScatterBackward0", input, src,
                         lambda t: t.diagonal(offset, dim1, dim2))


def select_scatter(input, src, dim, index):
    """`gradrs.select_scatter(input, src, dim, index)`: a copy of `input` whose slice
    `index` along `dim` is `src` (SelectScatterBackward0).

    Examples:
        >>> gradrs.select_scatter(gradrs.zeros(2, 2), gradrs.ones(2), 0, 0)
        tensor([[1., 1.],
                [0., 0.]])
    """
    return _scatter_into("SelectScatterBackward0", input, src, lambda t: t.select(dim, index))


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """`gradrs.slice_scatter(input, src, dim=0, start=None, end=None, step=1)`: a copy of
    `input` whose slice `start:end:step` along `dim` is `src` (SliceScatterBackward0).

    Examples:
        >>> gradrs.slice_scatter(gradrs.zeros(3), gradrs.ones(1), 0, 1, 2)
        tensor([0., 1., 0.])
    """
    def take(t):
        d = _wrap_dim(dim, t.dim())
        return t[(slice(None),) * d + (slice(start, end, step),)]

    return _scatter_into("SliceScatterBackward0", input, src, take)


def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=False,
                  requires_grad=False):
    """`gradrs.scalar_tensor(s)`: a 0-dim tensor holding the number `s` (default dtype).

    Examples:
        >>> gradrs.scalar_tensor(3)
        tensor(3.)
    """
    if not _argparse._is_number(s) or isinstance(s, Tensor):
        raise TypeError(f"scalar_tensor(): argument 's' (position 1) must be Number, not "
                        f"{_argparse.type_name(s)}")
    return _G.tensor(s if isinstance(s, complex) else float(s) if dtype is None or
                     dtype.is_floating_point else s,
                     dtype=dtype or _G.get_default_dtype(), device=device,
                     requires_grad=requires_grad)


def typename(obj):
    """`gradrs.typename(obj)`: a tensor's type string (`gradrs.FloatTensor`), else the
    object's `module.qualname` (`int` for builtins).

    Examples:
        >>> gradrs.typename(gradrs.ones(2))
        'gradrs.FloatTensor'
    """
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


for _fn in (angle, diagonal_scatter, select_scatter, slice_scatter):
    setattr(Tensor, _fn.__name__, _method(_fn))
__all__ += ["unravel_index", "vander", "angle", "diagonal_scatter", "select_scatter",
            "slice_scatter", "scalar_tensor", "typename"]


# ---- window functions ---------------------------------------------------------------------------

def _window(name, window_length, periodic, dtype, layout, device, requires_grad, body):
    """ATen's window scaffolding: checks, the 0- and 1-length cases, one more point for a
    periodic window (then dropped); `body(n, dtype)` computes the symmetric window."""
    dtype = dtype or _G.get_default_dtype()
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got "
                           f"window_length={window_length}")
    if not dtype.is_floating_point:
        raise RuntimeError(
            f"{name} expects floating point dtypes, got: TensorOptions(dtype="
            f"{_c_type(_G.empty(0, dtype=dtype))}, device=cpu, layout=Strided (default), "
            "requires_grad=false (default), pinned_memory=false, memory_format=(nullopt))")
    if window_length <= 1:
        res = _G.ones((window_length,), dtype=dtype, device=device)
    else:
        n = window_length + 1 if periodic else window_length
        res = body(n, dtype, device)
        if periodic:
            res = res[:-1].contiguous()
    return res.requires_grad_() if requires_grad else res


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None,
                   layout=None, device=None, pin_memory=False, requires_grad=False):
    """`gradrs.hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46)`:
    alpha - beta * cos(2 pi k / (N - 1)).

    Examples:
        >>> gradrs.hamming_window(4, False)
        tensor([0.0800, 0.7700, 0.7700, 0.0800])
    """
    return _hamming("hamming_window", window_length, periodic, alpha, beta, dtype, layout,
                    device, requires_grad)


def _hamming(name, window_length, periodic, alpha, beta, dtype, layout, device, requires_grad):
    def body(n, dt, dev):
        w = _G.arange(n, dtype=dt, device=dev) * (math.pi * 2.0 / (n - 1))
        return w.cos() * -beta + alpha

    return _window(name, window_length, periodic, dtype, layout, device, requires_grad, body)


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                pin_memory=False, requires_grad=False):
    """`gradrs.hann_window(window_length, periodic=True)`: the Hamming window with
    alpha = beta = 0.5.

    Examples:
        >>> gradrs.hann_window(4)
        tensor([0.0000, 0.5000, 1.0000, 0.5000])
    """
    return _hamming("hann_window", window_length, periodic, 0.5, 0.5, dtype, layout, device,
                    requires_grad)


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """`gradrs.bartlett_window(window_length, periodic=True)`: the triangular window.

    Examples:
        >>> gradrs.bartlett_window(5, False)
        tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
    """
    def body(n, dt, dev):
        w = _G.arange(n, dtype=dt, device=dev) * (2.0 / (n - 1))
        half = ((n - 1) >> 1) + 1
        return _G.cat([w[:half], 2 - w[half:]])

    return _window("bartlett_window", window_length, periodic, dtype, layout, device,
                   requires_grad, body)


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """`gradrs.blackman_window(window_length, periodic=True)`:
    0.42 - 0.5 cos(2 pi k / (N - 1)) + 0.08 cos(4 pi k / (N - 1)).

    Examples:
        >>> gradrs.blackman_window(3, False, dtype=gradrs.float64).round(decimals=4)
        tensor([0., 1., 0.], dtype=gradrs.float64)
    """
    def body(n, dt, dev):
        w = _G.arange(n, dtype=dt, device=dev) * (math.pi / (n - 1))
        return (w * 4).cos() * 0.08 - (w * 2).cos() * 0.5 + 0.42

    return _window("blackman_window", window_length, periodic, dtype, layout, device,
                   requires_grad, body)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None,
                  device=None, pin_memory=False, requires_grad=False):
    """`gradrs.kaiser_window(window_length, periodic=True, beta=12.0)`:
    I0(beta sqrt(1 - ((k - a) / a) ** 2)) / I0(beta), a = (N - 1) / 2.

    Examples:
        >>> gradrs.kaiser_window(3, False, 0.0)
        tensor([1., 1., 1.])
    """
    def body(n, dt, dev):
        a = (n - 1) / 2.0
        k = _G.arange(n, dtype=dt, device=dev)
        return _G.special.i0(beta * (1 - ((k - a) / a) ** 2).sqrt()) / _G.special.i0(
            _G.tensor(beta, dtype=dt, device=dev))

    return _window("kaiser_window", window_length, periodic, dtype, layout, device,
                   requires_grad, body)


__all__ += ["hamming_window", "hann_window", "bartlett_window", "blackman_window",
            "kaiser_window"]


# ---- the *_copy forms of views, unsafe splits ---------------------------------------------------

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

            _native._attach_node(outs if multi else outs[0], [input], node, backward)
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
__all__ += [
    "alias_copy", "diagonal_copy", "expand_copy", "permute_copy", "select_copy", "slice_copy",
    "split_copy", "split_with_sizes_copy", "squeeze_copy", "t_copy", "transpose_copy",
    "unbind_copy", "unsqueeze_copy", "view_copy", "narrow_copy", "unsafe_split", "unsafe_chunk",
    "unsafe_split_with_sizes",
]


def _method_of(fn):
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = fn.__name__
    method.__doc__ = f"`Tensor.{fn.__name__}(...)`: `gradrs.{fn.__name__}(self, ...)`."
    return method


for _fn in (narrow_copy, unsafe_split, unsafe_chunk, unsafe_split_with_sizes):
    setattr(Tensor, _fn.__name__, _method_of(_fn))
del _fn


# ---- element-wise Python callables, nonzero_static, prelu, removed methods ----------------------

def _python_value(dtype):
    """The conversion PyTorch applies to a callable's result for a tensor of `dtype`."""
    def convert(v):
        if isinstance(v, Tensor) or not isinstance(v, (int, float, bool, np.number)):
            raise TypeError(f"must be real number, not {type(v).__name__}")
        return bool(v) if dtype == _G.bool else float(v) if dtype.is_floating_point else int(v)

    return convert


def _elementwise_(self, name, others, fn):
    if self.requires_grad:
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use "
                           f"var.detach().{name}() instead.")
    if self.device.type != "cpu":
        raise RuntimeError(f"{name}_ is only implemented on CPU tensors")
    if not callable(fn):
        raise TypeError(f"'{type(fn).__name__}' object is not callable")
    columns = [self.reshape(-1).tolist()]
    for other in others:
        columns.append(other.expand(self.shape).reshape(-1).tolist())
    convert = _python_value(self.dtype)
    values = [convert(fn(*vals)) for vals in zip(*columns)]
    with _no_grad():
        self.copy_(_G.tensor(values, dtype=self.dtype).reshape(self.shape))
    return self


def _legacy_type(t):
    return t.type()


def _apply_(self, callable):
    """`Tensor.apply_(callable)`: each element replaced by `callable(element)`, in order (CPU,
    no autograd)."""
    return _elementwise_(self, "apply_", [], callable)


def _map_(self, tensor, callable):
    """`Tensor.map_(tensor, callable)`: each element replaced by `callable(self_elem,
    tensor_elem)`, `tensor` broadcast to `self`'s shape (CPU, no autograd)."""
    if isinstance(tensor, Tensor) and tensor.dtype != self.dtype:
        raise TypeError(f"map_: expected {_legacy_type(self)} for 'other' (got "
                        f"{_legacy_type(tensor)})")
    return _elementwise_(self, "map_", [tensor], callable)


def _map2_(self, x, y, callable):
    """`Tensor.map2_(x, y, callable)`: each element replaced by `callable(self_elem, x_elem,
    y_elem)`, `x` and `y` broadcast to `self`'s shape (CPU, no autograd)."""
    for what, t in (("x", x), ("y", y)):
        if isinstance(t, Tensor) and t.dtype != self.dtype:
            raise TypeError(f"map2_: expected {_legacy_type(self)} for argument '{what}' (got "
                            f"{_legacy_type(t)})")
    return _elementwise_(self, "map2_", [x, y], callable)


def nonzero_static(input, *, size, fill_value=-1):
    """`gradrs.nonzero_static(input, *, size, fill_value=-1)`: `nonzero(input)` cut or padded
    with `fill_value` rows to exactly `size` rows.

    Examples:
        >>> gradrs.nonzero_static(gradrs.tensor([0, 1, 0, 2]), size=3)
        tensor([[ 1],
                [ 3],
                [-1]])
    """
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    nz = input.nonzero()[:size]
    if nz.shape[0] < size:
        pad = _G.full((size - nz.shape[0], input.dim()), fill_value, dtype=_G.int64,
                      device=input.device)
        nz = _G.cat([nz, pad])
    return nz


def is_distributed(input):
    """`gradrs.is_distributed(input)`: False (no tensor of gradrs is distributed)."""
    return False


def _prelu(self, weight):
    """`Tensor.prelu(weight)`: `nn.functional.prelu(self, weight)`."""
    return _G.nn.functional.prelu(self, weight)


def _nonzero_static(self, *, size, fill_value=-1):
    """`Tensor.nonzero_static(*, size, fill_value=-1)`."""
    return nonzero_static(self, size=size, fill_value=fill_value)


def _is_distributed(self):
    """`Tensor.is_distributed()`: False."""
    return False


_REMOVED_1_9 = "This function was deprecated since version 1.9 and is now removed. "


def _solve(self, other):
    """`Tensor.solve(other)`: removed in PyTorch 1.9; raises its message."""
    raise RuntimeError(
        _REMOVED_1_9 + "`gradrs.solve` is deprecated in favor of `gradrs.linalg.solve`. "
        "`gradrs.linalg.solve` has its arguments reversed and does not return the LU "
        "factorization.\n\nTo get the LU factorization see `gradrs.lu`, which can be used with "
        "`gradrs.lu_solve` or `gradrs.lu_unpack`.\nX = gradrs.solve(B, A).solution should be "
        "replaced with:\nX = gradrs.linalg.solve(A, B)")


def _lstsq(self, other):
    """`Tensor.lstsq(other)`: removed in PyTorch 1.9; raises its message."""
    raise RuntimeError(
        _REMOVED_1_9 + "`gradrs.lstsq` is deprecated in favor of `gradrs.linalg.lstsq`.\n"
        "`gradrs.linalg.lstsq` has reversed arguments and does not return the QR decomposition "
        "in the returned tuple (although it returns other information about the problem).\n\n"
        "To get the QR decomposition consider using `gradrs.linalg.qr`.\n\nThe returned "
        "solution in `gradrs.lstsq` stored the residuals of the solution in the last m - n "
        "columns of the returned value whenever m > n. In gradrs.linalg.lstsq, the residuals "
        "are in the field 'residuals' of the returned named tuple.\n\nThe unpacking of the "
        "solution, as in\nX, _ = gradrs.lstsq(B, A).solution[:A.size(1)]\nshould be replaced "
        "with:\nX = gradrs.linalg.lstsq(A, B).solution")


def _eig(self, eigenvectors=False):
    """`Tensor.eig(eigenvectors=False)`: removed in PyTorch 1.9; raises its message."""
    raise RuntimeError(
        _REMOVED_1_9 + "`gradrs.linalg.eig` returns complex tensors of dtype `cfloat` or "
        "`cdouble` rather than real tensors mimicking complex tensors.\n\nL, _ = gradrs.eig(A) "
        "should be replaced with:\nL_complex = gradrs.linalg.eigvals(A)\n\nand\n\nL, V = "
        "gradrs.eig(A, eigenvectors=True) should be replaced with:\nL_complex, V_complex = "
        "gradrs.linalg.eig(A)")


def _symeig(self, eigenvectors=False):
    """`Tensor.symeig(eigenvectors=False)`: removed in PyTorch 1.9; raises its message."""
    raise RuntimeError(
        _REMOVED_1_9 + "The default behavior has changed from using the upper triangular "
        "portion of the matrix by default to using the lower triangular portion.\n\nL, _ = "
        "gradrs.symeig(A, upper=upper) should be replaced with:\nL = gradrs.linalg.eigvalsh(A, "
        "UPLO='U' if upper else 'L')\n\nand\n\nL, V = gradrs.symeig(A, eigenvectors=True) "
        "should be replaced with:\nL, V = gradrs.linalg.eigh(A, UPLO='U' if upper else 'L')")


def _reinforce(self, reward):
    """`Tensor.reinforce(reward)`: removed from PyTorch; raises its message."""
    raise RuntimeError(
        "reinforce() was removed.\nUse gradrs.distributions instead.\n"
        "See https://pytorch.org/docs/main/distributions.html\n\nInstead of:\n\n"
        "probs = policy_network(state)\naction = probs.multinomial()\n"
        "next_state, reward = env.step(action)\naction.reinforce(reward)\naction.backward()\n\n"
        "Use:\n\nprobs = policy_network(state)\n"
        "# NOTE: categorical is equivalent to what used to be called multinomial\n"
        "m = gradrs.distributions.Categorical(probs)\naction = m.sample()\n"
        "next_state, reward = env.step(action)\nloss = -m.log_prob(action) * reward\n"
        "loss.backward()\n")


Tensor.apply_ = _apply_
Tensor.map_ = _map_
Tensor.map2_ = _map2_
Tensor.prelu = _prelu
Tensor.nonzero_static = _nonzero_static
Tensor.is_distributed = _is_distributed
Tensor.solve = _solve
Tensor.lstsq = _lstsq
Tensor.eig = _eig
Tensor.symeig = _symeig
Tensor.reinforce = _reinforce
__all__ += ["nonzero_static", "is_distributed"]


# ---- norms kept for JIT compatibility, unfold_copy, the sym_* helpers ---------------------------

def frobenius_norm(input, dim, keepdim=False, *, out=None):
    """`gradrs.frobenius_norm(input, dim, keepdim=False)`: deprecated in PyTorch (warns):
    `linalg.vector_norm(input, 2, dim, keepdim)` over at most two dims."""
    import warnings

    warnings.warn("at::frobenius_norm is deprecated and it is just left for JIT compatibility. "
                  "It will be removed in a future PyTorch release. Please use "
                  "`linalg.vector_norm(A, 2., dim, keepdim)` instead", UserWarning, stacklevel=2)
    dim = [dim] if isinstance(dim, int) else list(dim)
    if len(dim) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dim)} dimensions "
                           "instead.")
    res = _G.linalg.vector_norm(input, 2, dim, keepdim)
    return res if out is None else _with_out("frobenius_norm", out, lambda: res, (input,))


def nuclear_norm(input, dim=None, keepdim=False, *, out=None):
    """`gradrs.nuclear_norm(input, dim=None, keepdim=False)`: deprecated in PyTorch (warns):
    `linalg.matrix_norm(input, 'nuc', dim, keepdim)` (dims (0, 1) by default)."""
    import warnings

    warnings.warn("at::nuclear_norm is deprecated and it is just left for JIT compatibility. "
                  "It will be removed in a future PyTorch release. Please use "
                  "`linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead", UserWarning,
                  stacklevel=2)
    if isinstance(dim, bool):
        dim, keepdim = None, dim
    dim = (0, 1) if dim is None else tuple(dim)
    if len(dim) != 2:
        raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got "
                           + " ".join(str(d) for d in dim))
    res = _G.linalg.matrix_norm(input, "nuc", dim, keepdim)
    return res if out is None else _with_out("nuclear_norm", out, lambda: res, (input,))


def norm_except_dim(v, pow=2, dim=0):
    """`gradrs.norm_except_dim(v, pow=2, dim=0)`: the `pow`-norm of each slice of `v` along
    `dim`, kept as a broadcastable shape (old weight_norm's helper); `dim=-1`: the whole norm.

    Examples:
        >>> gradrs.norm_except_dim(gradrs.tensor([[3.0, 4.0], [0.0, 1.0]]), 2, 0)
        tensor([[5.],
                [1.]])
    """
    if dim == -1:
        return v.norm(pow)
    last = v.dim() - 1
    if dim == 0:
        shape = [v.shape[0]] + [1] * last
        return v.contiguous().view(v.shape[0], -1).norm(pow, 1).view(shape)
    if dim == last:
        shape = [1] * last + [v.shape[last]]
        return v.contiguous().view(-1, v.shape[last]).norm(pow, 0).view(shape)
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


unfold_copy = _copy_of("unfold_copy", "UnfoldBackward0_copy", Tensor.unfold,
                       "`gradrs.unfold_copy(input, dimension, size, step)`: `unfold` as new "
                       "memory (UnfoldBackward0_copy).")


def _all_and_float_types():
    return (np.integer, np.floating, int, float), (np.floating, float)


def sym_not(a):
    """`gradrs.sym_not(a)`: `not a` (gradrs has no symbolic sizes)."""
    return not a


def sym_float(a):
    """`gradrs.sym_float(a)`: `float(a)`."""
    return float(a)


def sym_int(a):
    """`gradrs.sym_int(a)`: `int(a)`."""
    return int(a)


def _sym_extreme(pick, a, b):
    all_types, float_types = _all_and_float_types()
    for v in (a, b):
        if not isinstance(v, all_types):
            raise AssertionError(f"expected {all_types}, got {type(v)}")
    if isinstance(a, float_types) or isinstance(b, float_types):
        return float(pick(a, b))
    return pick(a, b)


def sym_max(a, b):
    """`gradrs.sym_max(a, b)`: `max(a, b)`, a float when either is one."""
    return _sym_extreme(builtins.max, a, b)


def sym_min(a, b):
    """`gradrs.sym_min(a, b)`: `min(a, b)`, a float when either is one."""
    return _sym_extreme(builtins.min, a, b)


def sym_sum(*args):
    """`gradrs.sym_sum(a, b, ...)` or `sym_sum([a, b, ...])`: their sum."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = args[0]
    return builtins.sum(args)


def sym_sqrt(a):
    """`gradrs.sym_sqrt(a)`: `math.sqrt(a)`."""
    return math.sqrt(a)


def sym_ite(b, t, f):
    """`gradrs.sym_ite(b, t, f)`: `t if b else f` (`t` and `f` of one type)."""
    if not isinstance(b, bool):
        raise AssertionError(f"expected SymBool or bool, got {type(b)}")
    if type(t) is not type(f):
        raise AssertionError(f"type mismatch: {type(t)} vs {type(f)}")
    return t if b else f


__all__ += ["frobenius_norm", "nuclear_norm", "norm_except_dim", "unfold_copy", "sym_not",
            "sym_float", "sym_int", "sym_max", "sym_min", "sym_sum", "sym_sqrt", "sym_ite"]


# ---- gradient -----------------------------------------------------------------------------------

def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """`gradrs.gradient(input, *, spacing=1, dim=None, edge_order=1)`: numpy's `gradient`,
    one tensor per dim: central differences inside, one-sided ones (first or second order)
    at the edges; `spacing` a number, one number per dim, or one coordinate tensor per dim.

    Examples:
        >>> gradrs.gradient(gradrs.tensor([1.0, 2.0, 4.0, 8.0]))
        (tensor([1.0000, 1.5000, 3.0000, 4.0000]),)
    """
    if dim is None:
        dims = list(range(input.dim()))
    elif isinstance(dim, int):
        dims = [dim]
    else:
        dims = list(dim)
    dims = [_wrap_dim(d, input.dim()) for d in dims]
    if isinstance(spacing, (list, tuple)):
        if len(spacing) != len(dims):
            if dim is None:
                raise RuntimeError(
                    "gradrs.gradient expected spacing to be unspecified, a scalar, or a list of "
                    f"length equal to 'self.dim() = {input.dim()}', since dim argument was not "
                    f"given, but got a list of length {len(spacing)}")
            raise RuntimeError(
                "gradrs.gradient expected spacing to be unspecified, a scalar or it's spacing "
                "and dim arguments to have the same length, but got a spacing argument of "
                f"length {len(spacing)} and a dim argument of length {len(dims)}.")
        spacings = list(spacing)
    else:
        spacings = [spacing] * len(dims)
    if edge_order not in (1, 2):
        raise RuntimeError("gradrs.gradient only supports edge_order=1 and edge_order=2.")
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("gradrs.gradient expected each dimension size to be at least "
                               "edge_order+1")
    return tuple(_gradient_along(input, d, h, edge_order) for d, h in zip(dims, spacings))


def _gradient_along(f, d, h, edge_order):
    n = f.shape[d]

    def part(start, length):
        return f.narrow(d, start, length)

    def along(t):  # a 1-D coefficient tensor shaped to broadcast along dim d
        return t.reshape([-1] + [1] * (f.dim() - d - 1))

    if not isinstance(h, Tensor):
        interior = (part(2, n - 2) - part(0, n - 2)) / (2.0 * h)
        if edge_order == 1:
            first = (part(1, 1) - part(0, 1)) / h
            last = (part(n - 1, 1) - part(n - 2, 1)) / h
        else:
            first = (part(0, 1) * -1.5 + part(1, 1) * 2.0 - part(2, 1) * 0.5) / h
            last = (part(n - 3, 1) * 0.5 - part(n - 2, 1) * 2.0 + part(n - 1, 1) * 1.5) / h
        return _G.cat([first, interior, last], d)
    dx = h.diff()
    dx1, dx2 = dx[:-1], dx[1:]
    a = -dx2 / (dx1 * (dx1 + dx2))
    b = (dx2 - dx1) / (dx1 * dx2)
    c = dx1 / (dx2 * (dx1 + dx2))
    interior = (along(a) * part(0, n - 2) + along(b) * part(1, n - 2)
                + along(c) * part(2, n - 2))
    if edge_order == 1:
        first = (part(1, 1) - part(0, 1)) / dx[0]
        last = (part(n - 1, 1) - part(n - 2, 1)) / dx[-1]
    else:
        d1, d2 = dx[0], dx[1]
        first = (part(0, 1) * (-(2.0 * d1 + d2) / (d1 * (d1 + d2)))
                 + part(1, 1) * ((d1 + d2) / (d1 * d2)) + part(2, 1) * (-d1 / (d2 * (d1 + d2))))
        d1, d2 = dx[-2], dx[-1]
        last = (part(n - 3, 1) * (d2 / (d1 * (d1 + d2)))
                + part(n - 2, 1) * (-(d2 + d1) / (d1 * d2))
                + part(n - 1, 1) * ((2.0 * d2 + d1) / (d2 * (d1 + d2))))
    return _G.cat([first, interior, last], d)


__all__ += ["gradient"]
