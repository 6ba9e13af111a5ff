"""gradrs: define-by-run autograd with PyTorch's semantics and a Rust core.

Use it as `import gradrs as torch`. The `Tensor` class and every op live in the native
module `gradrs._native`; this package adds what is naturally Python (grad-mode context
managers, `Size`, printing, legacy constructors).

`gradrs.__version__` is `"2.13.0+gradrs.0.1.0"`, a `torch_version.TorchVersion`: the PyTorch
release whose semantics gradrs follows, with gradrs's own version (`version.gradrs_version`,
from `pyproject.toml`) as the local label, as PyTorch's `"2.13.0+cpu"`; it compares as a
version, so programs' version gates take PyTorch 2.13's paths.
"""

from __future__ import annotations

import builtins as _builtins  # annotations: gradrs.float / gradrs.int are dtypes
import sys as _sys
from collections.abc import Sequence as _Sequence
from typing import overload as _overload

import numpy as _np

from . import _native
from . import _torch_function
from . import _argparse
from . import _numpy_names
from ._grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from ._grad_mode import is_inference_mode_enabled
from ._native import (
    Generator,
    OutOfMemoryError,
    Tensor,
    _dirichlet_grad,
    _sample_dirichlet,
    _standard_gamma,
    _standard_gamma_grad,
    arange,
    as_strided,
    as_strided_scatter,
    bernoulli,
    binomial,
    bfloat16,
    bool,
    default_generator,
    device,
    dtype,
    empty,
    empty_like,
    empty_strided,
    equal,
    eye,
    float16,
    float32,
    float64,
    full,
    full_like,
    get_default_dtype,
    get_num_threads,
    get_rng_state,
    initial_seed,
    int8,
    int16,
    int32,
    int64,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    is_inference,
    linspace,
    manual_seed,
    multinomial,
    normal,
    ones,
    ones_like,
    poisson,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
    seed,
    set_anomaly_enabled,
    set_rng_state,
    tensor,
    uint8,
    zeros,
    zeros_like,
)
from . import return_types
from ._forms import with_out as _with_out
# memory_format= on the factories, clone and contiguous (taken natively: Note [Memory formats]),
# imported before the functional forms
from ._memory_format import (
    channels_last, channels_last_3d, contiguous_format, legacy_contiguous_format, memory_format,
    preserve_format)
from ._functional_forms import *  # noqa: F403 - gradrs.exp(x) & co., generated from name lists
from . import _deprecated_overloads  # noqa: E402,F401 - x.add_(alpha, other) & co. (PyTorch 1.x)
from ._size import Size
from ._tensor_str import get_printoptions, set_printoptions
from ._tensor_str import format_tensor as _format_tensor
from ._typeinfo import finfo, iinfo
from ._numpy_compat import as_tensor, asarray, frombuffer, from_numpy  # numpy manners
from ._dlpack import from_dlpack
from . import _tensor_protocol  # Tensor.__format__ as PyTorch's _tensor.py
from ._runtime import (  # the default device (factories honour it), threads, warn-always
    get_default_device, get_device_module, get_num_interop_threads, init_num_threads,
    is_warn_always_enabled,
    set_default_device, set_flush_denormal, set_num_interop_threads, set_warn_always)
from ._runtime import honours_default_device as _on_default_device
from ._memory_format import _empty_in_format
from ._memory_format import resize_as_  # memory_format= too (the native one refuses formats)

# `torch/utils/_device.py`'s constructors take the default device when given none; wrapped
# here, before the rest of the package imports them.
arange = _on_default_device(arange)
empty = _on_default_device(_empty_in_format(empty))  # memory_format= too
eye = _on_default_device(eye)
full = _on_default_device(full)
linspace = _on_default_device(linspace)
ones = _on_default_device(ones)
rand = _on_default_device(rand)
randint = _on_default_device(randint)
randn = _on_default_device(randn)
randperm = _on_default_device(randperm)
tensor = _on_default_device(tensor)
zeros = _on_default_device(zeros)

half = float16
float = float32
double = float64
int = int32
long = int64
short = int16

# "2.13.0+gradrs.0.1.0": the PyTorch release gradrs follows + gradrs's own version as the local
# label, a str comparing as a version (gradrs/version.py, torch_version.py)
from . import torch_version  # noqa: E402
from .torch_version import __version__  # noqa: E402


# PyTorch's module constants: torch/__init__.py imports them from math (torch.pi in angle
# math, torch.inf in masks and clamps), and numpy's newaxis for x[:, torch.newaxis]
from math import e, inf, nan, pi  # noqa: E402

newaxis = None


def _tensor_repr(t, tensor_contents=None):
    fn = t.grad_fn
    from .autograd import forward_ad
    tangent = forward_ad.unpack_dual(t).tangent if forward_ad._current_level >= 0 else None
    # numpy has no bfloat16: its values print from float32, which holds each exactly.
    shown = t.detach().cpu()
    name = _repr_name(type(t))
    text = _format_tensor(
        (shown.float() if shown.dtype is bfloat16 else shown).numpy(),
        dtype=str(t.dtype)[len("gradrs."):],
        device=str(t.device),
        requires_grad=t.requires_grad,
        grad_fn_name=type(fn).__name__ if fn is not None else None,
        is_leaf=t.is_leaf,
        default_dtype=str(_native.get_default_dtype())[len("gradrs."):],
        tangent=None if tangent is None else _tensor_repr(tangent),
        name=name,
        contents=tensor_contents,
    )
    if name != "tensor" and isinstance(t, nn.Parameter):  # PyTorch's wrapping of a subclass
        return f"Parameter({text})"
    return text


def _repr_name(cls):
    """A subclass prints its own name (an exact Parameter as a plain tensor), as PyTorch's."""
    if cls is Tensor or (cls.__name__ == "Parameter" and cls.__module__ == "gradrs.nn.parameter"):
        return "tensor"
    return cls.__name__


class _ArrayView:
    """Hands numpy a tensor's memory; holding the tensor keeps the memory alive."""

    __slots__ = ("__array_interface__", "_tensor")

    def __init__(self, t):
        self._tensor = t
        self.__array_interface__ = t._array_interface()


def _numpy_view(t):
    return _np.asarray(_ArrayView(t))


_native._register(Size, _tensor_repr, _numpy_view)
_native._register_return_types(return_types._make)
_native._register_foreign_operator(_torch_function.foreign_operator)
_native._install_parser_errors(Tensor, _argparse.method_error)  # Note [Parser errors]


# the legacy tensor types: constructors, isinstance checks, x.type(DoubleTensor)
from ._legacy_types import legacy_type as _legacy_type, tensortype  # noqa: E402

FloatTensor = _legacy_type("FloatTensor", float32)
DoubleTensor = _legacy_type("DoubleTensor", float64)
HalfTensor = _legacy_type("HalfTensor", float16)
BFloat16Tensor = _legacy_type("BFloat16Tensor", bfloat16)
ByteTensor = _legacy_type("ByteTensor", uint8)
CharTensor = _legacy_type("CharTensor", int8)
ShortTensor = _legacy_type("ShortTensor", int16)
IntTensor = _legacy_type("IntTensor", int32)
LongTensor = _legacy_type("LongTensor", int64)
BoolTensor = _legacy_type("BoolTensor", bool)
from ._legacy_types import legacy_types as _legacy_types  # noqa: E402
from ._legacy_types import set_default_tensor_type  # noqa: E402

_legacy_types.update((t.__name__, t) for t in (
    FloatTensor, DoubleTensor, HalfTensor, BFloat16Tensor, ByteTensor, CharTensor,
    ShortTensor, IntTensor, LongTensor, BoolTensor))


def is_tensor(obj):
    """Whether `obj` is a gradrs Tensor (a Parameter counts).

    Args:
        obj: any object.

    Examples:
        >>> gradrs.is_tensor(gradrs.ones(1)), gradrs.is_tensor([1.0])
        (True, False)
    """
    return isinstance(obj, Tensor)


def numel(input):
    """The number of elements of `input`.

    Args:
        input: a tensor.

    Examples:
        >>> gradrs.numel(gradrs.ones(2, 3))
        6
    """
    return input.numel()


def set_default_dtype(d, /):
    """Sets the default floating dtype (float16, float32 or float64): the dtype of tensors made
    from Python floats and of float factories without `dtype=` (Note [Default dtype]).

    Examples:
        >>> gradrs.set_default_dtype(gradrs.float64)
        >>> gradrs.tensor([1.0]).dtype
        gradrs.float64
        >>> gradrs.set_default_dtype(gradrs.float32)
    """
    _native._set_default_dtype(d)


def set_num_threads(n):
    """Sets the number of threads used for intraop parallelism on CPU (1: every kernel runs on
    its calling thread). The default is RAYON_NUM_THREADS, else the machine's cores."""
    import builtins
    import numbers

    # `bool` and `int` here are gradrs's dtypes.
    if isinstance(n, builtins.bool) or not isinstance(n, numbers.Integral):
        raise RuntimeError(f"set_num_threads expects an int, but got {type(n).__name__}")
    n = builtins.int(n)
    if n > 2**31 - 1 or n < -(2**31):
        raise ValueError("Overflow when unpacking long")
    if n <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    _native._set_num_threads(n)


@_numpy_names.accepts
def pow(input, exponent, *, out=None):
    """`gradrs.pow(input, exponent)`; `input` may be a Python number (`2 ** x`)."""
    if out is not None:
        return _with_out("pow", out, lambda: pow(input, exponent), (input, exponent))
    if isinstance(input, Tensor):
        return input.pow(exponent)
    return exponent.__rpow__(input)


_WHERE_SIGNATURES = (
    " * (Tensor condition)\n"
    " * (Tensor condition, Tensor input, Tensor other, *, Tensor out = None)\n"
    " * (Tensor condition, Number self, Tensor other)\n"
    " * (Tensor condition, Tensor input, Number other)\n"
    " * (Tensor condition, Number self, Number other)\n")


@_overload
def where(condition: Tensor) -> tuple[Tensor, ...]: ...
@_overload
def where(condition: Tensor, input: Tensor | _builtins.float, other: Tensor | _builtins.float, *,
          out: Tensor | None = None) -> Tensor: ...
@_numpy_names.accepts
def where(condition, input=None, other=None, *, out=None):
    """`gradrs.where(condition, input, other)`; `gradrs.where(condition)` is
    `condition.nonzero(as_tuple=True)`."""
    if input is None or other is None:
        if input is None and other is None and out is None and isinstance(condition, Tensor):
            return condition.nonzero(as_tuple=True)
        from ._argparse import _describe

        given = [a for a in (condition, input, other) if a is not None]
        kwargs = {} if out is None else {"out": out}
        raise TypeError(f"where() received an invalid combination of arguments - got "
                        f"{_describe(given, kwargs)}, but expected one of:\n{_WHERE_SIGNATURES}")
    if out is not None:
        return _with_out("where", out, lambda: _native.where(condition, input, other),
                         (condition, input, other))
    try:
        return _native.where(condition, input, other)
    except TypeError:
        from . import _vmap  # vmap's BatchedTensors: its rule, one native where

        if _vmap._top((condition, input, other)):
            return _vmap._where(condition, input, other)
        raise


@_numpy_names.accepts
def cat(tensors: _Sequence[Tensor], dim: _builtins.int = 0, *,
        out: Tensor | None = None) -> Tensor:
    """`gradrs.cat(tensors, dim=0)`."""
    if _torch_function.ACTIVE and (  # `_torch_function.plain`, inline
            _torch_function.ACTIVE is _TF_MODES or out is not None
            or type(tensors) not in _LIST_TUPLE or type(dim) is not _builtins.int
            or not _TF_SIMPLE.issuperset(map(type, tensors))):
        r = _tf_dispatch(cat, "gradrs.cat", tensors, dim, out)
        if r is not _torch_function._NO:
            return r
    if out is not None:
        return _with_out("cat", out, lambda: _native.cat(tensors, dim), (tensors,))
    try:
        return _native.cat(tensors, dim)
    except TypeError:
        r = _tf_dispatch(cat, "gradrs.cat", tensors, dim, out, foreign=True)
        if r is not _torch_function._NO:
            return r
        from . import _vmap  # vmap's BatchedTensors: its rule, one native cat

        if isinstance(tensors, (list, tuple)) and _vmap._top(tensors):
            return _vmap._cat(list(tensors), dim)
        raise


@_numpy_names.accepts
def stack(tensors: _Sequence[Tensor], dim: _builtins.int = 0, *,
          out: Tensor | None = None) -> Tensor:
    """`gradrs.stack(tensors, dim=0)`."""
    if _torch_function.ACTIVE and (  # `_torch_function.plain`, inline
            _torch_function.ACTIVE is _TF_MODES or out is not None
            or type(tensors) not in _LIST_TUPLE or type(dim) is not _builtins.int
            or not _TF_SIMPLE.issuperset(map(type, tensors))):
        r = _tf_dispatch(stack, "gradrs.stack", tensors, dim, out)
        if r is not _torch_function._NO:
            return r
    if out is not None:
        return _with_out("stack", out, lambda: _native.stack(tensors, dim), (tensors,))
    try:
        return _native.stack(tensors, dim)
    except TypeError:
        r = _tf_dispatch(stack, "gradrs.stack", tensors, dim, out, foreign=True)
        if r is not _torch_function._NO:
            return r
        from . import _vmap  # vmap's BatchedTensors: its rule, one native cat

        if isinstance(tensors, (list, tuple)) and _vmap._top(tensors):
            return _vmap._stack_fn(list(tensors), dim)
        raise


cat._tf_inline = stack._tf_inline = True
concat = concatenate = cat


_TF_MODES, _TF_SIMPLE, _LIST_TUPLE = _torch_function.MODES, _torch_function.SIMPLE, (list, tuple)


def _tf_dispatch(fn, name, tensors, dim, out, foreign=False):
    """cat's / stack's __torch_function__ dispatch, with the arguments as PyTorch passes them."""
    args = (tensors,) if dim == 0 else (tensors, dim)
    kwargs = None if out is None else {"out": out}
    if foreign:
        return _torch_function.dispatch_foreign(fn, args, kwargs, name)
    return _torch_function.dispatch(fn, args, kwargs, name)


@_numpy_names.accepts
def outer(input, vec2):
    """`gradrs.outer(a, b)`: a[:, None] * b[None, :] (MulBackward0, as PyTorch)."""
    if input.dim() != 1 or vec2.dim() != 1:
        raise RuntimeError(
            f"outer: Expected 1-D argument self, but got {input.dim()}-D"
            if input.dim() != 1 else f"outer: Expected 1-D argument vec2, but got {vec2.dim()}-D"
        )
    return input.unsqueeze(1) * vec2.unsqueeze(0)


ger = outer


def _einsum_subscript(n):
    if n == Ellipsis:
        return "..."
    if n >= 0 and n < 26:
        return chr(ord("A") + n)
    if n >= 26 and n < 52:
        return chr(ord("a") + n - 26)
    raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")


def einsum(*args):
    """`einsum(equation, *operands)`, `einsum(equation, [operands])`, or PyTorch's sublist
    format `einsum(op1, sublist1, op2, sublist2, ..., [sublist_out])`: subscripts are ints in
    [0, 52) (A-Z, then a-z) or Ellipsis, turned into the equation string as PyTorch does."""
    if len(args) < 2:
        raise ValueError(
            "einsum(): must specify the equation string and at least one operand, "
            "or at least one operand and its subscripts list"
        )
    if isinstance(args[0], Tensor) or hasattr(type(args[0]), "_vmap_level"):
        equation = ",".join("".join(_einsum_subscript(s) for s in sub) for sub in args[1::2])
        if len(args) % 2 == 1:
            equation += "->" + "".join(_einsum_subscript(s) for s in args[-1])
            operands = args[:-1:2]
        else:
            operands = args[::2]
    else:
        equation, operands = args[0], args[1:]
        if not isinstance(equation, str):
            raise TypeError("einsum(): argument 'equation' (position 1) must be str, not "
                            f"{type(equation).__name__}")
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        return einsum(equation, *operands[0])
    if _builtins.any(hasattr(type(o), "_vmap_level") for o in operands):
        from . import _vmap  # under vmap: its batching rule (Note [vmap])
        return _vmap.einsum(equation, operands)
    return _native.einsum(equation, *operands)


@_numpy_names.accepts
def var_mean(input, dim=None, *, correction=None, keepdim=False, unbiased=None):
    """The variance and the mean of `input` over `dim`, as a tuple (var, mean).

    Args:
        input: a tensor.
        dim: the dimension(s) to reduce (default: all).
        correction: subtract this from the number of elements in the divisor (default 1,
            Bessel's correction).
        keepdim: keep the reduced dimensions with size 1.
        unbiased: deprecated; `correction=1` (True) or `0` (False).

    Examples:
        >>> gradrs.var_mean(gradrs.tensor([1.0, 2.0, 3.0, 4.0]), correction=0)
        (tensor(1.2500), tensor(2.5000))
    """
    return _moments_node("VarMeanBackward0", input, dim, correction, keepdim, unbiased)


@_numpy_names.accepts
def std_mean(input, dim=None, *, correction=None, keepdim=False, unbiased=None):
    """The standard deviation and the mean of `input` over `dim`, as a tuple (std, mean).

    Args:
        input: a tensor.
        dim: the dimension(s) to reduce (default: all).
        correction: subtract this from the number of elements in the divisor (default 1,
            Bessel's correction).
        keepdim: keep the reduced dimensions with size 1.
        unbiased: deprecated; `correction=1` (True) or `0` (False).

    Examples:
        >>> gradrs.std_mean(gradrs.tensor([1.0, 2.0, 3.0, 4.0]))
        (tensor(1.2910), tensor(2.5000))
    """
    return _moments_node("StdMeanBackward0", input, dim, correction, keepdim, unbiased)


def _moments_node(name, input, dim, correction, keepdim, unbiased):
    """(var or std, mean) under one node `name` over both outputs, as PyTorch's
    VarMeanBackward0 / StdMeanBackward0 (`var_mean_backward` / `std_mean_backward`)."""
    spread = input.var if name == "VarMeanBackward0" else input.std
    with no_grad():
        first = spread(dim, unbiased=unbiased, keepdim=keepdim, correction=correction)
        mean = input.mean(dim, keepdim=keepdim) if dim is not None else input.mean()
    if not (_native.is_grad_enabled() and isinstance(input, Tensor) and input.requires_grad):
        return first, mean
    nd = input.dim()
    dims = (list(_builtins.range(nd)) if dim is None else
            [d % _builtins.max(nd, 1) for d in (dim if isinstance(dim, (list, tuple)) else [dim])])
    count = 1
    for d in dims:
        count *= input.shape[d] if nd else 1
    corr = (1 if unbiased is None or unbiased else 0) if correction is None else correction

    def expand(g):
        if not keepdim and nd:
            for d in sorted(dims):
                g = g.unsqueeze(d)
        return g.expand(input.shape)

    def backward(grads):
        g_first, g_mean = grads
        total = None
        if g_first is not None:
            centered = input - input.mean(dims, keepdim=True) if nd else input - input
            if name == "VarMeanBackward0":
                term = expand(g_first) * centered * (2.0 / (count - corr))
            else:
                term = expand(g_first / first) * centered / (count - corr)
            total = term
        if g_mean is not None:
            term = expand(g_mean) / count
            total = term if total is None else total + term
        return [total]

    # PyTorch's parser picks the (dim, unbiased) overload when a dim or unbiased is given:
    # its node then shows the correction that flag means, else the one given (None)
    shown = (correction if correction is not None else
             corr if unbiased is not None or dim is not None else None)
    saved = [("correction", shown),
             # the dims as given (PyTorch shows a negative one as its unsigned value)
             ("dim", None if dim is None else tuple(dim) if isinstance(dim, (list, tuple))
              else (dim,)),
             ("keepdim", keepdim), ("self", input)]
    if name == "StdMeanBackward0":
        saved.append(("result0", first))
    _native._attach_node([first, mean], [input], name, backward, saved=saved)
    return first, mean


negative = neg  # noqa: F405
multiply = mul  # noqa: F405
divide = div  # noqa: F405
subtract = sub  # noqa: F405
true_divide = div  # noqa: F405

from .functional import *  # noqa: E402,F401,F403 - softmax, allclose, isnan, unique, meshgrid...
from . import functional  # noqa: E402
from ._ops import *  # noqa: E402,F401,F403 - issue 24's compositions, by family (_ops/)
from ._reduce_ops import *  # noqa: E402,F401,F403 - quantile, scatter_reduce, index_put
_deprecated_overloads.install_product_methods()  # addmm_(beta, alpha, m1, m2) & co.
from ._factories import *  # noqa: E402,F401,F403 - logspace
from ._factories import with_factory_out as _factory_out  # noqa: E402
from ._factories import with_aten_arange as _aten_arange  # noqa: E402

# out= for the native factories that lack it (ATen's *_out: `torch.rand(2, 2, out=c)`); arange
# with fractional bounds as ATen computes it (integer dtypes, its vectorized float kernel)
arange = _factory_out(_aten_arange(arange), "arange")
eye = _factory_out(eye, "eye")
full = _factory_out(full, "full")
linspace = _factory_out(linspace, "linspace")
normal = _factory_out(normal, "normal")
rand = _factory_out(rand, "rand")
randint = _factory_out(randint, "randint")
randn = _factory_out(randn, "randn")
randperm = _factory_out(randperm, "randperm")
# the leading parameters by keyword too (`zeros(size=(2, 3))`, `arange(start=0, end=5)`)
from ._factories import with_keyword_sizes as _keyword_sizes  # noqa: E402
arange = _keyword_sizes(arange, "arange")
empty = _keyword_sizes(empty, "empty")
ones = _keyword_sizes(ones, "ones")
rand = _keyword_sizes(rand, "rand")
randn = _keyword_sizes(randn, "randn")
zeros = _keyword_sizes(zeros, "zeros")
from ._conj import *  # noqa: E402,F401,F403 - conj, adjoint, real... on real tensors
from ._composites import *  # noqa: E402,F401,F403 - combinations, trapezoid family
from ._lowrank import pca_lowrank, svd_lowrank  # noqa: E402
from . import testing  # noqa: E402
from . import autograd  # noqa: E402
from . import nn  # noqa: E402
from . import func  # noqa: E402 - torch.func: jvp / jacfwd on forward AD, grad, vjp, jacrev
from . import library  # noqa: E402 - torch.library.custom_op; gradrs.ops.<ns>.<name>
from .library import ops  # noqa: E402
from .func import vmap  # noqa: E402 - torch.vmap is torch.func.vmap
from . import utils  # noqa: E402
from . import profiler  # noqa: E402 - torch.profiler (record_function ranges)
from . import overrides  # noqa: E402,F401 - torch.overrides (__torch_function__ dispatch helpers)
from . import random  # noqa: E402 - torch.random: fork_rng & the seeding functions
from . import _pickle  # noqa: E402,F401 - Tensor.__reduce_ex__ / __deepcopy__
from .serialization import load, save  # noqa: E402
from . import optim  # noqa: E402
from . import linalg  # noqa: E402
from ._lobpcg import lobpcg  # noqa: E402 - torch.lobpcg: LOBPCG over gradrs ops
from . import _linalg_utils  # noqa: E402,F401 - torch._linalg_utils
from . import special  # noqa: E402 - torch.special; the top-level polygamma / mvlgamma below
from .special import mvlgamma_top as mvlgamma, polygamma_top as polygamma  # noqa: E402
from .linalg import (  # noqa: E402 - PyTorch's top-level forms of linalg ops
    cholesky_inverse, cholesky_solve, inverse, logdet, lu_unpack, matrix_exp, matrix_power,
    pinverse, trace)
from .linalg import _lu_solve_top as lu_solve  # noqa: E402
from .linalg import geqrf, orgqr, ormqr  # noqa: E402 - Householder QR (LAPACK's names)
from .linalg import _cholesky_top as cholesky, _cross_top as cross, _det_top as det  # noqa: E402
from .linalg import _qr_top as qr, _slogdet_top as slogdet, _svd_top as svd  # noqa: E402
from .linalg._deprecated import _lu_with_info, lu, triangular_solve  # noqa: E402 - deprecated
from ._linalg_utils import (  # noqa: E402 - removed in 1.9: raise their migration notes
    _symeig as symeig, eig, lstsq, matrix_rank, solve)
from . import cuda, gpu  # noqa: E402
from ._alias import as_torch  # noqa: E402
from . import accelerator, amp, backends, cpu  # noqa: E402
from . import multiprocessing  # noqa: E402 - torch.multiprocessing: spawn, sharing strategies
from . import futures  # noqa: E402 - torch.futures: Future (collectives' get_future, DDP hooks)
from . import distributed  # noqa: E402 - torch.distributed over MPI (mpi4py)
from . import distributions  # noqa: E402 - torch.distributions
from ._compile import compile  # noqa: E402
from . import _dynamo, compiler, jit  # noqa: E402 - eager-mode guards (is_scripting, ...)
from ._nn_aliases import *  # noqa: E402,F401,F403 - torch.dropout, torch.layer_norm, ...
from ._nn_natives import *  # noqa: E402,F401,F403 - native_group_norm, convolution, embedding_bag...
from ._sync_batch_norm import *  # noqa: E402,F401,F403 - batch_norm_stats & co. (SyncBatchNorm)
from ._foreach import *  # noqa: E402,F401,F403 - torch._foreach_add_ & co. (timm's EMA)
from . import _tensor_copy  # noqa: E402,F401 - Tensor.copy_(src, non_blocking)
from .amp.autocast_mode import (  # noqa: E402
    autocast,
    autocast_decrement_nesting,
    autocast_increment_nesting,
    clear_autocast_cache,
    get_autocast_cpu_dtype,
    get_autocast_dtype,
    get_autocast_gpu_dtype,
    is_autocast_cache_enabled,
    is_autocast_cpu_enabled,
    is_autocast_enabled,
    set_autocast_cache_enabled,
    set_autocast_cpu_dtype,
    set_autocast_cpu_enabled,
    set_autocast_dtype,
    set_autocast_enabled,
    set_autocast_gpu_dtype,
)
from .backends._context import (  # noqa: E402
    are_deterministic_algorithms_enabled,
    get_deterministic_debug_mode,
    get_float32_matmul_precision,
    is_deterministic_algorithms_warn_only_enabled,
    set_deterministic_debug_mode,
    set_float32_matmul_precision,
    use_deterministic_algorithms,
)

# The factories defined in Python take the default device too (the others at their definitions).
as_tensor = _on_default_device(as_tensor, device_position=2)
asarray = _on_default_device(asarray)

# Last, once every Tensor method exists: the methods PyTorch's argument parser reads take
# NumPy's keyword names (`axis=`, `keepdims=`, `x2=`), as PyTorch's do.
_numpy_names.install(Tensor)

from . import version  # noqa: E402 - torch.version: cuda / hip None, as a CPU build's

# Tensor.__torch_function__ / __init_subclass__, and the public functions that dispatch to
# tensor-likes and function modes (Note [Torch function dispatch] in _torch_function.py)
_torch_function.install()
# (matrix_rank: removed in 1.9, only raises; torch lists it nowhere)
_torch_function.wrap_module(_sys.modules[__name__], skip=("matrix_rank",))
for _m in (nn.functional, linalg, special):
    _torch_function.wrap_module(_m)
del _m
from . import _C  # noqa: E402,F401 - torch._C's DisableTorchFunction(Subclass) & co.

# Last, since it shadows the builtin for the rest of this module: PyTorch's deprecated range
from ._ops.legacy import range  # noqa: E402,A004
