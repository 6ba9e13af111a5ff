"""Reductions, scans and statistics composed from gradrs ops: `logcumsumexp`, `cov` /
`corrcoef`, `histc`, `histogram`, `nanmedian`, `renorm`, the JIT-era norms
(`frobenius_norm`, `nuclear_norm`, `norm_except_dim`), `gradient`; `cumsum_` / `cumprod_`.
"""

import builtins
import math
import warnings

import numpy as np

from .. import _argparse
from .. import _native, _numpy_names
from .. import return_types
from .._forms import with_out as _with_out
from .._grad_mode import no_grad as _no_grad
from .._native import Tensor
from ..functional import _check_tensor, _dtype_name, _method, _wrap_dim
from .._reduce_ops import _parsed
from ._common import (
    _as_method, _c_num, _c_type, _check_leaf, _fmt, _forward_tangent, _G, _node,
    _recomputed_in_place, _wrap, _write_in_place,
)

__all__ = [
    "corrcoef", "cov", "logcumsumexp", "histc", "nanmedian", "renorm", "histogram",
    "histogramdd",
    "frobenius_norm", "nuclear_norm", "norm_except_dim", "gradient",
]


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
        if input.device.type == "cpu":
            # ATen's CPU order, bit for bit (Note [Logcumsumexp order] in kernels/reduce.rs).
            res = _native._logcumsumexp(input.detach(), d)
        else:
            res = _logcumsumexp(input.float(), d).half() if half else _logcumsumexp(input, d)

    def backward(g):
        if g.dim() == 0 or g.numel() == 0:
            return (g,)
        if half:
            return (_logcumsumexp_grad(g.float(), input.float(), res.float(), d).half(),)
        if g.requires_grad:
            # differentiated in `g` (the jvp inside a jvp, at g = 0): a form linear in `g`
            return (_logcumsumexp_grad_linear(g, input, res, d),)
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


def _logcumsumexp_grad_linear(g, input, res, d):
    """The same gradient, ``grad_j = sum_{i >= j} g_i exp(x_j - y_i)`` (``y`` the result), in a
    form differentiable in ``g`` everywhere: PyTorch's splits ``g`` by sign in log space, whose
    derivative in ``g`` at ``g = 0`` is ``0 * inf`` (nan), where ``jvp`` inside ``jvp`` (the
    double-vjp trick at zero, ``func._jvp_inside_jvp``) differentiates it. ``exp(x - y) * R``
    with ``R_j = sum_{i >= j} g_i exp(y_j - y_i)``, the reversed scan of a linear recurrence in
    log2(n) doubling steps, each factor ``exp(y_j - y_i) <= 1`` (``y`` never decreases); a
    prefix of ``-inf`` (whose gradient is 0) takes the first finite ``y`` so no step is nan."""
    n = g.shape[d]
    neg_inf = res == float("-inf")
    first = _G.where(neg_inf, float("inf"), res).detach().amin(d, keepdim=True)
    first = _G.where(first == float("inf"), 0.0, first)
    y = _G.where(neg_inf, first, res)
    r, k = g, 1
    while k < n:
        tail = (y.narrow(d, 0, n - k) - y.narrow(d, k, n - k)).exp() * r.narrow(d, k, n - k)
        r = _G.cat([r.narrow(d, 0, n - k) + tail, r.narrow(d, n - k, k)], d)
        k *= 2
    return (input - y).exp() * r


def _logcumsumexp(x, d):
    """The inclusive scan of logaddexp along `d`, in log2(n) doubling steps (Hillis-Steele), so
    no prefix underflows to -inf the way `log(cumsum(exp(x - max)))` does: a GPU tensor's, whose
    values stay there (the CPU's is the native serial scan)."""
    if x.dim() == 0 or x.numel() == 0:
        return x.clone()
    n, y, k = x.shape[d], x, 1
    while k < n:
        y = _G.cat([y.narrow(d, 0, k),
                    _G.logaddexp(y.narrow(d, k, n - k), y.narrow(d, 0, n - k))], d)
        k *= 2
    return y



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
for _fn in (logcumsumexp, cov, corrcoef):
    setattr(Tensor, _fn.__name__, _as_method(_fn))


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

    v = _node("NanmedianBackward1", [v, None], [input], lambda grads: backward(grads[0]))[0]
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


for _fn in (histc, nanmedian):
    setattr(Tensor, _fn.__name__, _as_method(_fn))

# histogram's `range`: a sequence of numbers, as PyTorch's parser reads `ArrayRef<double>`.
_argparse._CHECKS.setdefault("tuple of floats", lambda o: isinstance(o, (tuple, list)) and all(
    _argparse._is_number(v) and not isinstance(v, Tensor) for v in o))
return_types.histogram = return_types._make_type("histogram", ("hist", "bin_edges"))
return_types.histogramdd = return_types._make_type("histogramdd", ("hist", "bin_edges"))



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


def _bin_positions(x, bins, range, input, npt, dim=0):
    """One dimension of PyTorch's CPU binning: the bin edges (a tensor) of `x`'s values, each
    value's bin and whether it falls in one. `bins`: a count over `range` (the data's
    [min, max] by default) or the edges as a tensor."""
    if isinstance(bins, Tensor):
        if bins.dim() != 1:
            raise RuntimeError(f"gradrs.histogramdd: bins tensor should have one dimension, but "
                               f"got {bins.dim()} dimensions in the bins tensor for dimension "
                               f"{dim}")
        if bins.dtype != input.dtype:
            raise RuntimeError("gradrs.histogramdd: input tensor and bins tensors should have "
                               f"the same dtype, but got input with dtype {_c_type(input)} and bins "
                               f"for dimension {dim} with dtype {_c_type(bins)}")
        if bins.numel() == 0:
            raise RuntimeError("gradrs.histogramdd: bins tensor should have at least 1 element, "
                               f"but got 0 elements in the bins tensor for dimension {dim}")
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
                               f"dimension {dim}")
        if range is not None:
            lo, hi = (npt(v) for v in range)
        elif x.size:
            lo, hi = np.min(x), np.max(x)
        else:
            lo, hi = npt(0), npt(1)
        if not (np.isfinite(lo) and np.isfinite(hi)):
            raise RuntimeError(f"gradrs.histogramdd: dimension {dim}'s range [{_c_num(lo)}, "
                               f"{_c_num(hi)}] is not finite")
        if lo > hi:
            raise RuntimeError(f"gradrs.histogramdd: min should not exceed max, but got min "
                               f"{_c_num(lo)} max {_c_num(hi)} for dimension {dim}")
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
    return edges_t, pos, keep, nb


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
    edges_t, pos, keep, nb = _bin_positions(x, bins, range, input, npt)
    hist = np.zeros(builtins.max(nb, 0), npt)
    w = (weight.detach().reshape(-1).numpy().astype(npt, copy=False) if weight is not None
         else np.ones(x.shape, npt))
    np.add.at(hist, pos[keep], w[keep])
    hist_t = _G.tensor(hist, dtype=input.dtype)
    if density and nb > 0:
        widths = edges_t[1:] - edges_t[:-1]
        hist_t = hist_t / (hist_t.sum() * widths)
    return return_types.histogram(hist_t, edges_t)


_HISTOGRAMDD_SIGNATURES = (
    " * (Tensor input, int bins, tuple of floats range = None, Tensor weight = None, bool "
    "density = False)\n"
    " * (Tensor input, tuple of ints bins, tuple of floats range = None, Tensor weight = None, "
    "bool density = False)\n"
    " * (Tensor input, tuple of Tensors bins, tuple of floats range = None, Tensor weight = "
    "None, bool density = False)\n")
_NO_BINS = object()


def histogramdd(input, bins=_NO_BINS, *, range=None, weight=None, density=False):
    """`gradrs.histogramdd(input, bins, *, range=None, weight=None, density=False)`:
    (hist, bin_edges), the D-dimensional histogram of the points in the rows of `input`
    ([..., D]); `bins` is one count for every dimension, a count per dimension or the edges
    per dimension (tensors); `range` the flat (min, max) pairs; each dimension binned as
    :func:`histogram` bins.

    Examples:
        >>> x = gradrs.tensor([[0., 1.], [1., 0.], [2., 0.], [2., 2.]])
        >>> gradrs.histogramdd(x, bins=[2, 2]).hist
        tensor([[0., 1.],
                [2., 1.]])
    """
    if bins is _NO_BINS:
        got = ", ".join([_argparse.type_name(input)] + [f"{k}={_argparse.type_name(v)}" for k, v in
                                                        (("range", range), ("weight", weight))
                                                        if v is not None])
        raise TypeError(f"histogramdd() received an invalid combination of arguments - got "
                        f"({got}), but expected one of:\n{_HISTOGRAMDD_SIGNATURES}")
    name = _dtype_name(input.dtype)
    if not input.is_floating_point() or input.dtype in (_G.bfloat16, _G.float16):
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{name}'")
    D = input.shape[-1] if input.dim() else 1
    per_dim = list(bins) if isinstance(bins, (list, tuple)) else [bins] * D
    if len(per_dim) != D:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost "
                           "dimension of the input.")
    if range is not None and len(range) != 2 * D:
        raise RuntimeError(f"gradrs.histogramdd: for a {D}-dimensional histogram range should "
                           f"have {2 * D} elements, but got {len(range)}")
    npt = _NP[str(input.dtype).split(".")[-1]]
    points = input.detach().reshape(-1, D).numpy().astype(npt, copy=False)
    if weight is not None and tuple(weight.shape) != tuple(input.shape[:-1]):
        raise RuntimeError("gradrs.histogramdd: if weight tensor is provided it should have "
                           "the same shape as the input tensor excluding its innermost "
                           f"dimension, but got input with shape {list(input.shape)} and weight "
                           f"with shape {list(weight.shape)}")
    edges, index, keep, counts = [], [], np.ones(points.shape[0], bool), []
    for d in builtins.range(D):
        rng = None if range is None else (range[2 * d], range[2 * d + 1])
        e, pos, k, nb = _bin_positions(np.ascontiguousarray(points[:, d]), per_dim[d], rng,
                                       input, npt, d)
        edges.append(e)
        index.append(np.clip(pos, 0, builtins.max(nb - 1, 0)))
        keep &= k
        counts.append(builtins.max(nb, 0))
    hist = np.zeros(counts, npt)
    w = (weight.detach().reshape(-1).numpy().astype(npt, copy=False) if weight is not None
         else np.ones(points.shape[0], npt))
    if all(counts):
        np.add.at(hist, tuple(i[keep] for i in index), w[keep])
    hist_t = _G.tensor(hist, dtype=input.dtype)
    if density and all(counts):
        volume = None
        for d, e in enumerate(edges):
            width = (e[1:] - e[:-1]).reshape([-1 if k == d else 1 for k in builtins.range(D)])
            volume = width if volume is None else volume * width
        hist_t = hist_t / (hist_t.sum() * volume)
    return return_types.histogramdd(hist_t, tuple(edges))


for _fn in (renorm, histogram):
    setattr(Tensor, _fn.__name__, _fn._method)
Tensor.renorm_ = _renorm_
Tensor.cumsum_ = _recomputed_in_place("cumsum_", "CumsumBackward0", Tensor.cumsum)
Tensor.cumprod_ = _recomputed_in_place("cumprod_", "CumprodBackward0", Tensor.cumprod)



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

del _fn


@_numpy_names.accepts
def count_nonzero(input, dim=None):
    """`gradrs.count_nonzero(input, dim=None)`: int64 counts of the nonzero values, over `dim`
    (an int or a tuple of ints) or over everything.

    Examples:
        >>> gradrs.count_nonzero(gradrs.tensor([[0, 1], [2, 0]]), dim=0)
        tensor([1, 1])
    """
    nonzero = input != 0
    if dim is None or (isinstance(dim, (tuple, list)) and not dim):
        return nonzero.sum()
    return nonzero.sum(dim)


Tensor.count_nonzero = _method(count_nonzero)
