"""`gradrs.special` (PyTorch's `torch.special`, issue 24): the gamma and modified-Bessel families
on their declared kernels (`src/ops/unary_decl.rs`), the top-level `polygamma` / `mvlgamma`,
PyTorch's aliases of existing ops, and `ndtr`, `entr`, `xlog1py` composed as PyTorch does;
every other declared `special_<name>` op (ndtri, the Bessel functions, ...) is exposed as
`<name>` by the block `tools/gen_ops.py` generates at the end; what is left out is listed below.
"""

import math
import sys

from . import _argparse, _native
from . import _functional_forms as _ff
from ._ops._common import _node, _reduce_to
from .functional import _dtype_name
from ._forms import with_out as _with_out
from ._grad_mode import no_grad as _no_grad
from ._native import Tensor

# The gradrs package (still loading when this module is: read at call time).
_G = sys.modules[__package__]

__all__ = [
    "digamma", "entr", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc",
    "gammaln", "i0", "i0e",
    "i1", "i1e", "log1p", "log_softmax", "logit", "logsumexp", "multigammaln", "ndtr",
    "polygamma", "psi", "round", "sinc", "softmax", "xlog1py", "xlogy",
]

_UNARY = "(Tensor input, *, Tensor out = None)"
_XLOGY = [
    "(Tensor input, Tensor other, *, Tensor out = None)",
    "(Number self, Tensor other, *, Tensor out = None)",
    "(Tensor input, Number other, *, Tensor out = None)",
]
# PyTorch's parser signatures of the functions here, under its internal names (`special_erf`),
# which its argument errors show.
_SIGNATURES = {
    **{f"special_{n}": [_UNARY] for n in (
        "digamma", "entr", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammaln", "i0",
        "i0e", "i1", "i1e", "log1p", "ndtr", "psi", "sinc")},
    "special_logit": ["(Tensor input, float eps = None, *, Tensor out = None)"],
    "special_round": ["(Tensor input, *, int decimals = 0, Tensor out = None)"],
    "special_multigammaln": ["(Tensor input, int p, *, Tensor out = None)"],
    "special_polygamma": ["(int n, Tensor input, *, Tensor out = None)"],
    "special_softmax": ["(Tensor input, int dim, gradrs.dtype dtype = None)"],
    "special_log_softmax": ["(Tensor input, int dim, *, gradrs.dtype dtype = None)"],
    "special_logsumexp": [
        "(Tensor input, tuple of ints dim, bool keepdim = False, *, Tensor out = None)"],
    "special_xlogy": _XLOGY,
    "special_xlog1py": _XLOGY,
    "special_gammainc": ["(Tensor input, Tensor other, *, Tensor out = None)"],
    "special_gammaincc": ["(Tensor input, Tensor other, *, Tensor out = None)"],
    "polygamma": ["(int n, Tensor input, *, Tensor out = None)"],
    "mvlgamma": ["(Tensor input, int p, *, Tensor out = None)"],
}
_argparse.SIGNATURES.update(_SIGNATURES)


def _parsed(name, impl):
    """`impl` with PyTorch's argument errors under `name`: the call is checked against the
    signatures first (cheap: they are few and short)."""

    def fn(*args, **kwargs):
        err = _argparse.error(name, args, kwargs)
        if err is not None:
            raise err
        return impl(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = impl.__name__
    fn.__doc__ = impl.__doc__
    fn.__module__ = impl.__module__
    return fn


def _alias(name, target, doc):
    """`gradrs.special.<name>(input, *, out=None)`: `target(input)`."""

    def impl(input, *, out=None):
        if out is None:
            return target(input)
        return _with_out(name, out, lambda: target(input), (input,))

    impl.__name__ = name
    impl.__doc__ = doc
    return _parsed(f"special_{name}", impl)


erf = _alias("erf", _ff.erf, "`gradrs.special.erf`: alias of `gradrs.erf`.")
erfc = _alias("erfc", _ff.erfc, "`gradrs.special.erfc`: alias of `gradrs.erfc`.")
erfinv = _alias("erfinv", _ff.erfinv, "`gradrs.special.erfinv`: alias of `gradrs.erfinv`.")
exp2 = _alias("exp2", _ff.exp2, "`gradrs.special.exp2`: alias of `gradrs.exp2`.")
expm1 = _alias("expm1", _ff.expm1, "`gradrs.special.expm1`: alias of `gradrs.expm1`.")
log1p = _alias("log1p", _ff.log1p, "`gradrs.special.log1p`: alias of `gradrs.log1p`.")
expit = _alias("expit", _ff.sigmoid, "`gradrs.special.expit`: alias of `gradrs.sigmoid`.")
sinc = _alias("sinc", _ff.sinc, "`gradrs.special.sinc`: alias of `gradrs.sinc`.")
gammaln = _alias("gammaln", _ff.lgamma, "`gradrs.special.gammaln`: alias of `gradrs.lgamma`.")
digamma = _alias("digamma", _ff.digamma, "`gradrs.special.digamma`: alias of `gradrs.digamma`.")
psi = _alias("psi", _ff.digamma, "`gradrs.special.psi`: alias of `gradrs.digamma`.")
i0 = _alias("i0", _ff.i0, "`gradrs.special.i0`: alias of `gradrs.i0`.")
i0e = _alias("i0e", _native.special_i0e,
             "`gradrs.special.i0e`: exp(-|x|) I0(x), the exponentially scaled modified Bessel "
             "function of the first kind of order 0 (SpecialI0EBackward0).")
i1 = _alias("i1", _native.special_i1,
            "`gradrs.special.i1`: I1(x), the modified Bessel function of the first kind of "
            "order 1 (SpecialI1Backward0).")
i1e = _alias("i1e", _native.special_i1e,
             "`gradrs.special.i1e`: exp(-|x|) I1(x) (SpecialI1EBackward0).")


def _logit(input, eps=None, *, out=None):
    """`gradrs.special.logit(input, eps=None)`: alias of `gradrs.logit`."""
    return _ff.logit(input, eps, out=out)


def _round(input, *, decimals=0, out=None):
    """`gradrs.special.round(input, *, decimals=0)`: alias of `gradrs.round`."""
    return _ff.round(input, decimals=decimals, out=out)


def _softmax(input, dim, dtype=None):
    """`gradrs.special.softmax(input, dim, dtype=None)`: alias of `gradrs.softmax`."""
    return input.softmax(dim, dtype=dtype)


def _log_softmax(input, dim, *, dtype=None):
    """`gradrs.special.log_softmax(input, dim, *, dtype=None)`: alias of `gradrs.log_softmax`."""
    return input.log_softmax(dim, dtype=dtype)


def _logsumexp(input, dim, keepdim=False, *, out=None):
    """`gradrs.special.logsumexp(input, dim, keepdim=False)`: alias of `gradrs.logsumexp`."""
    return _ff.logsumexp(input, dim, keepdim, out=out)


def _polygamma(n, input, *, out=None):
    """`gradrs.polygamma(n, input)`: the n-th derivative of digamma (PolygammaBackward0)."""
    if out is None:
        return input.polygamma(n)
    return _with_out("polygamma", out, lambda: input.polygamma(n), (input,))


def _multigammaln(input, p, *, out=None):
    """`gradrs.special.multigammaln(input, p)`: the multivariate log-gamma function of
    dimension p (alias of `gradrs.mvlgamma`)."""
    if out is None:
        return input.mvlgamma(p)
    return _with_out("mvlgamma", out, lambda: input.mvlgamma(p), (input,))


logit = _parsed("special_logit", _logit)
round = _parsed("special_round", _round)
softmax = _parsed("special_softmax", _softmax)
log_softmax = _parsed("special_log_softmax", _log_softmax)
logsumexp = _parsed("special_logsumexp", _logsumexp)
polygamma = _parsed("special_polygamma", _polygamma)
multigammaln = _parsed("special_multigammaln", _multigammaln)
# The top-level forms (PyTorch's `torch.polygamma` / `torch.mvlgamma`, named so in errors).
polygamma_top = _parsed("polygamma", _polygamma)
mvlgamma_top = _parsed("mvlgamma", _multigammaln)
for _f, _n in ((polygamma_top, "polygamma"), (mvlgamma_top, "mvlgamma")):
    _f.__name__ = _f.__qualname__ = _n
    _f.__module__ = "gradrs"


_native_mvlgamma_ = Tensor.mvlgamma_


def _mvlgamma_(self, p):
    """`Tensor.mvlgamma_(p)`: PyTorch computes out of place and copies back, so an integer
    tensor is refused naming the float result."""
    if (not self.is_floating_point() and self.dtype != _G.bool and isinstance(p, int)
            and p >= 1):  # bool and p < 1 raise their own errors first
        raise RuntimeError(
            f"mvlgamma: result type {_dtype_name(self.dtype)} can't be cast to the desired "
            f"output type {_dtype_name(_G.get_default_dtype())}")
    return _native_mvlgamma_(self, p)


Tensor.mvlgamma_ = _mvlgamma_


def _ndtr(input, *, out=None):
    """`gradrs.special.ndtr(input)`: the standard normal CDF, (1 + erf(x / sqrt(2))) / 2,
    composed as PyTorch composes it (its graph ends in MulBackward1)."""
    def compute():
        inner = 1 + _ff.erf(input * math.sqrt(0.5))
        with _no_grad():
            y = inner * 0.5
        # PyTorch multiplies by the Scalar 0.5 in C++: MulBackward1 (Python's `* 0.5` would
        # record MulBackward0).
        return _node("MulBackward1", y, [inner], lambda g: (g * 0.5,), save_inputs=())
    return compute() if out is None else _with_out("special_ndtr", out, compute, (input,))


ndtr = _parsed("special_ndtr", _ndtr)


def _float_of(x):
    """`x` as PyTorch's float ops see it: integers and bools in the default float dtype."""
    return x if x.is_floating_point() else x.to(_G.get_default_dtype())


def _entr(input, *, out=None):
    """`gradrs.special.entr(input)`: -x log(x) for x > 0, 0 at 0, -inf below, NaN kept
    (SpecialEntrBackward0, whose derivative is -(1 + log x))."""
    def compute():
        x = _float_of(input)
        with _no_grad():
            y = _G.where(x > 0, -x * _ff.log(x), _G.where(x == 0, 0.0, -math.inf))
            y = _G.where(_G.isnan(x), x, y)
        return _node("SpecialEntrBackward0", y, [input],
                     lambda g: (g * -(1 + _ff.log(x)),))
    return compute() if out is None else _with_out("special_entr", out, compute, (input,))


entr = _parsed("special_entr", _entr)


def _gammainc(input, other, *, out=None):
    """`gradrs.special.gammainc(input, other)`: alias of `gradrs.igamma`, the regularized lower
    incomplete gamma function P(input, other) (IgammaBackward0)."""
    return _ff.igamma(input, other, out=out)


def _gammaincc(input, other, *, out=None):
    """`gradrs.special.gammaincc(input, other)`: alias of `gradrs.igammac`, the regularized
    upper incomplete gamma function Q(input, other) (IgammacBackward0)."""
    return _ff.igammac(input, other, out=out)


gammainc = _parsed("special_gammainc", _gammainc)
gammaincc = _parsed("special_gammaincc", _gammaincc)


def _xlog1py(input, other, *, out=None):
    """`gradrs.special.xlog1py(input, other)`: x log1p(y), 0 where x == 0 unless y is NaN
    (SpecialXlog1PyBackward0, or 1 / 2 with a number `input` / `other`)."""
    def compute():
        x_num, y_num = not isinstance(input, Tensor), not isinstance(other, Tensor)
        ref = other if x_num else input
        dtype = _G.result_type(input, other)
        if not dtype.is_floating_point:
            dtype = _G.get_default_dtype()
        x = input if not x_num else _G.tensor(input, dtype=dtype, device=ref.device)
        y = other if not y_num else _G.tensor(other, dtype=dtype, device=ref.device)
        x, y = x.to(dtype), y.to(dtype)
        with _no_grad():
            r = _G.where(x == 0, 0.0, x * _ff.log1p(y))
            r = _G.where(_G.isnan(y), math.nan, r)

        def backward(g):
            gx = gy = None
            if not x_num and input.requires_grad:
                gx = _reduce_to(g * xlog1py(x != 0, y), input.shape)
            if not y_num and other.requires_grad:
                gy = _reduce_to(g * x / (y + 1), other.shape)
            return gx, gy

        name = ("SpecialXlog1PyBackward1" if x_num else
                "SpecialXlog1PyBackward2" if y_num else "SpecialXlog1PyBackward0")
        return _node(name, r, [None if x_num else input, None if y_num else other], backward)

    operands = tuple(v for v in (input, other) if isinstance(v, Tensor))
    return compute() if out is None else _with_out("special_xlog1py", out, compute, operands)


xlog1py = _parsed("special_xlog1py", _xlog1py)


def _xlogy(input, other, *, out=None):
    """`gradrs.special.xlogy(input, other)`: alias of `gradrs.xlogy`."""
    return _ff.xlogy(input, other, out=out)


xlogy = _parsed("special_xlogy", _xlogy)


def _declared(op, sig, differentiable):
    """`gradrs.special.<name>` for the declared unary op `special_<name>`
    (`src/ops/unary_decl.rs`), which has no Tensor method: `_native._unary_op` runs it, with
    `out=` and PyTorch's argument errors (`sig`: its parser signature; an op PyTorch records no
    node for takes `out=` whatever requires grad)."""
    name = op[len("special_"):]
    arg = sig[1:].split(",")[0].split()[1]
    _argparse.SIGNATURES[op] = [sig]

    def impl(*args, out=None, **kwargs):
        x = args[0] if args else kwargs[arg]
        if out is None:
            return _native._unary_op(op, x)
        return _with_out(op, out, lambda: _native._unary_op(op, x),
                         (x,) if differentiable else (), overlap=(x,))

    impl.__name__ = name
    impl.__doc__ = (f"`gradrs.special.{name}`: PyTorch's `torch.special.{name}`, on the declared "
                    "kernel of the same algorithm.")
    return _parsed(op, impl)



def _declared_binary(op, sig, differentiable):
    """`gradrs.special.<name>(a, b)` for the declared binary op `special_<name>`: either
    operand may be a Python number (PyTorch's three overloads); `_native._binary_op` runs it."""
    name = op[len("special_"):]
    first, second = (p.split()[1] for p in sig[1:].split(",")[:2])
    # PyTorch names a Number first argument `self` where the tensor one is `input` (xlogy's)
    number_first = "self" if first == "input" else first
    _argparse.SIGNATURES[op] = [sig, sig.replace("Tensor " + first, "Number " + number_first, 1),
                                sig.replace("Tensor " + second, "Number " + second, 1)]

    def impl(*args, out=None, **kwargs):
        a = args[0] if args else kwargs[first]
        b = args[1] if len(args) > 1 else kwargs[second]

        def compute():
            if not isinstance(a, Tensor):
                # A 0-dim tensor promotes as PyTorch's wrapped number does.
                return _native._binary_op(op, _G.tensor(a, device=b.device), b)
            return _native._binary_op(op, a, b)
        if out is None:
            return compute()
        inputs = (a, b) if differentiable else ()
        return _with_out(op, out, compute, tuple(v for v in inputs if isinstance(v, Tensor)),
                         overlap=(a, b))

    impl.__name__ = name
    impl.__doc__ = (f"`gradrs.special.{name}`: PyTorch's `torch.special.{name}`, on the declared "
                    "kernel of the same algorithm.")
    return _parsed(op, impl)


# Every declared `special_*` op (unary or binary) not written out above is exposed as is, so
# declaring one and running `python tools/gen_ops.py` is all it takes to add it here: the block
# below is generated, one static name per op (so type checkers see them), and
# `_FROM_DECLARATIONS` lists the names it added.
# <generated: declared special ops> (tools/gen_ops.py writes this block)
ndtri = _declared(
    "special_ndtri", "(Tensor input, *, Tensor out = None)", True)
bessel_j0 = _declared(
    "special_bessel_j0", "(Tensor input, *, Tensor out = None)", False)
bessel_j1 = _declared(
    "special_bessel_j1", "(Tensor input, *, Tensor out = None)", False)
bessel_y0 = _declared(
    "special_bessel_y0", "(Tensor input, *, Tensor out = None)", False)
bessel_y1 = _declared(
    "special_bessel_y1", "(Tensor input, *, Tensor out = None)", False)
modified_bessel_i0 = _declared(
    "special_modified_bessel_i0", "(Tensor input, *, Tensor out = None)", False)
modified_bessel_i1 = _declared(
    "special_modified_bessel_i1", "(Tensor input, *, Tensor out = None)", False)
modified_bessel_k0 = _declared(
    "special_modified_bessel_k0", "(Tensor input, *, Tensor out = None)", False)
modified_bessel_k1 = _declared(
    "special_modified_bessel_k1", "(Tensor input, *, Tensor out = None)", False)
scaled_modified_bessel_k0 = _declared(
    "special_scaled_modified_bessel_k0", "(Tensor x, *, Tensor out = None)", False)
scaled_modified_bessel_k1 = _declared(
    "special_scaled_modified_bessel_k1", "(Tensor x, *, Tensor out = None)", False)
spherical_bessel_j0 = _declared(
    "special_spherical_bessel_j0", "(Tensor x, *, Tensor out = None)", False)
airy_ai = _declared(
    "special_airy_ai", "(Tensor x, *, Tensor out = None)", False)
erfcx = _declared(
    "special_erfcx", "(Tensor input, *, Tensor out = None)", True)
log_ndtr = _declared(
    "special_log_ndtr", "(Tensor input, *, Tensor out = None)", True)
chebyshev_polynomial_t = _declared_binary(
    "special_chebyshev_polynomial_t", "(Tensor x, Tensor n, *, Tensor out = None)", False)
chebyshev_polynomial_u = _declared_binary(
    "special_chebyshev_polynomial_u", "(Tensor x, Tensor n, *, Tensor out = None)", False)
chebyshev_polynomial_v = _declared_binary(
    "special_chebyshev_polynomial_v", "(Tensor x, Tensor n, *, Tensor out = None)", False)
chebyshev_polynomial_w = _declared_binary(
    "special_chebyshev_polynomial_w", "(Tensor x, Tensor n, *, Tensor out = None)", False)
shifted_chebyshev_polynomial_t = _declared_binary(
    "special_shifted_chebyshev_polynomial_t", "(Tensor x, Tensor n, *, Tensor out = None)", False)
shifted_chebyshev_polynomial_u = _declared_binary(
    "special_shifted_chebyshev_polynomial_u", "(Tensor x, Tensor n, *, Tensor out = None)", False)
shifted_chebyshev_polynomial_v = _declared_binary(
    "special_shifted_chebyshev_polynomial_v", "(Tensor x, Tensor n, *, Tensor out = None)", False)
shifted_chebyshev_polynomial_w = _declared_binary(
    "special_shifted_chebyshev_polynomial_w", "(Tensor x, Tensor n, *, Tensor out = None)", False)
hermite_polynomial_h = _declared_binary(
    "special_hermite_polynomial_h", "(Tensor x, Tensor n, *, Tensor out = None)", False)
hermite_polynomial_he = _declared_binary(
    "special_hermite_polynomial_he", "(Tensor x, Tensor n, *, Tensor out = None)", False)
laguerre_polynomial_l = _declared_binary(
    "special_laguerre_polynomial_l", "(Tensor x, Tensor n, *, Tensor out = None)", False)
legendre_polynomial_p = _declared_binary(
    "special_legendre_polynomial_p", "(Tensor x, Tensor n, *, Tensor out = None)", False)
zeta = _declared_binary(
    "special_zeta", "(Tensor input, Tensor other, *, Tensor out = None)", True)
_FROM_DECLARATIONS = [
    "ndtri", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
    "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
    "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0", "airy_ai",
    "erfcx", "log_ndtr", "chebyshev_polynomial_t", "chebyshev_polynomial_u",
    "chebyshev_polynomial_v", "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
    "laguerre_polynomial_l", "legendre_polynomial_p", "zeta",
]
__all__ += [
    "ndtri", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
    "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
    "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0", "airy_ai",
    "erfcx", "log_ndtr", "chebyshev_polynomial_t", "chebyshev_polynomial_u",
    "chebyshev_polynomial_v", "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
    "laguerre_polynomial_l", "legendre_polynomial_p", "zeta",
]
# </generated: declared special ops>

# torch.special's names; the docstring lists those not here (computed, so it stays true).
_TORCH_SPECIAL = (
    "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "chebyshev_polynomial_t",
    "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w", "digamma",
    "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc",
    "gammaln", "hermite_polynomial_h", "hermite_polynomial_he", "i0", "i0e", "i1", "i1e",
    "laguerre_polynomial_l", "legendre_polynomial_p", "log1p", "log_ndtr", "log_softmax",
    "logit", "logsumexp", "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
    "modified_bessel_k1", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round",
    "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w", "sinc", "softmax", "spherical_bessel_j0", "xlog1py",
    "xlogy", "zeta",
)
_LEFT_OUT = [n for n in _TORCH_SPECIAL if n not in __all__]
__doc__ += ("\nLeft out, not implemented here yet with PyTorch's algorithms: "
            + ", ".join(f"`{n}`" for n in _LEFT_OUT) + ".\n")
