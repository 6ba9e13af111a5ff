"""The op table that drives ``tests/test_ops.py``: one :class:`OpInfo` entry per op.

Each entry says how to call the op (``fn(module, *args, **kwargs)``, the same callable runs on
gradrs and on PyTorch), which inputs to try (:class:`Sample`), which calls must raise
(:class:`ErrorCase`) and which checks apply (``differentiable``, ``gradgrad``, ``fd``,
tolerances).  ``tests/test_ops.py`` turns every (entry, sample) into forward, gradient,
finite-difference and second-derivative tests, and every (entry, error case) into an error test.

Adding an op = appending ONE ``OpInfo(...)`` to ``OPS`` at the bottom of this file, e.g.::

    OpInfo("exp", lambda m, x: m.exp(x), unary_samples(),
           variants={"method": lambda m, x: x.exp()})

Inputs
------
A sample's ``args`` are :class:`T` specs (tensors, built from numpy with a fixed seed) or plain
Python values passed through unchanged (scalars, dims, shapes).  A ``T`` gives the shape the op
sees, its dtype, a value ``domain`` (``None``: the entry's ``domain`` for that position) and an
optional layout: ``layout="T"`` feeds a transposed view of a leaf stored with the last two dims
swapped, ``expand=base`` feeds ``leaf.expand(shape)`` of a leaf of shape ``base``; either way the
op gets a non-contiguous input while gradients are read on the leaf.  Floating ``T``s require
grad unless ``rg=False``.
"""

from __future__ import annotations

import dataclasses
import math
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

F32, F64, I64, BOOL = "float32", "float64", "int64", "bool"
# The narrow dtypes: the table's samples are written in the four above; test_dtypes.py runs
# them again with float32 leaves as float16 and int64 leaves as int32.
F16, I32 = "float16", "int32"
FLOATS = (F16, F32, F64)
ALL_DTYPES = (F32, F64, I64, BOOL)
_ABBR = {F16: "f16", F32: "f32", F64: "f64", I32: "i32", I64: "i64", BOOL: "b"}
_NP = {F16: np.float16, F32: np.float32, F64: np.float64, I32: np.int32, I64: np.int64,
       BOOL: np.bool_}

# --------------------------------------------------------------------------------------------
# value domains
# --------------------------------------------------------------------------------------------


def _away(v, d):
    """Push values closer than ``d`` to 0 out to at least ``d`` (kinks and poles)."""
    return np.where(np.abs(v) < d, np.sign(v + 1e-12) * d + v, v)


# domain -> (float sampler, int64 choices).  bool tensors are random whatever the domain.
DOMAINS = {
    # away from 0, where relu / abs / sign have kinks
    "real": (lambda rng, s: _away(rng.uniform(-2.0, 2.0, s), 0.15), list(range(-3, 4))),
    # log, sqrt, the base of a real power
    "positive": (lambda rng, s: rng.uniform(0.3, 2.0, s), [1, 2, 3, 4]),
    # divisors, reciprocal
    "nonzero": (lambda rng, s: _away(rng.uniform(-2.0, 2.0, s), 0.5), [-3, -2, -1, 1, 2, 3]),
    # exponents: integer exponents must be >= 0 for integer bases
    "exponent": (lambda rng, s: _away(rng.uniform(-2.0, 2.0, s), 0.15), [0, 1, 2, 3]),
    # few distinct values so comparisons see ties
    "ties": (lambda rng, s: rng.choice([-1.0, 0.0, 1.0, 2.0], s), [-1, 0, 1, 2]),
    # inside (-1, 1): asin / acos / tan away from their poles
    "unit": (lambda rng, s: rng.uniform(-0.9, 0.9, s), [-1, 0, 1]),
    # inside (0, 1): logit
    "prob": (lambda rng, s: rng.uniform(0.05, 0.95, s), [0, 1]),
    # above 1: acosh
    "above_one": (lambda rng, s: rng.uniform(1.2, 3.0, s), [1, 2, 3]),
}


def seed_of(*parts) -> int:
    return zlib.crc32("|".join(map(str, parts)).encode())


# --------------------------------------------------------------------------------------------
# specs
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class T:
    """A tensor argument: the shape the op sees, dtype, value domain, layout, requires_grad."""

    shape: tuple = (2, 3)
    dtype: str = F32
    domain: str | None = None
    layout: str | None = None  # None (contiguous) or "T" (transposed view of a leaf)
    expand: tuple | None = None  # base shape of a leaf expanded to ``shape``
    rg: bool | None = None  # requires_grad; None: floating dtypes do
    data: Any = None  # explicit values (of the leaf), instead of the domain's

    def __post_init__(self):
        object.__setattr__(self, "shape", tuple(self.shape))
        if self.expand is not None:
            object.__setattr__(self, "expand", tuple(self.expand))
        assert self.dtype in _NP, self.dtype
        assert self.layout in (None, "T"), self.layout
        assert not (self.layout and self.expand is not None), "one layout at a time"
        assert self.layout != "T" or len(self.shape) >= 2, "layout='T' needs >= 2 dims"
        assert self.domain is None or self.domain in DOMAINS, self.domain

    @property
    def floating(self) -> bool:
        return self.dtype in FLOATS

    @property
    def requires_grad(self) -> bool:
        return self.floating if self.rg is None else self.rg

    @property
    def leaf_shape(self) -> tuple:
        if self.layout == "T":
            return self.shape[:-2] + (self.shape[-1], self.shape[-2])
        if self.expand is not None:
            return self.expand
        return self.shape

    def values(self, seed, domain) -> np.ndarray:
        """The leaf's values (numpy, in this spec's dtype)."""
        if self.data is not None:
            arr = np.asarray(self.data, dtype=_NP[self.dtype])
            assert arr.shape == self.leaf_shape, (arr.shape, self.leaf_shape)
            return arr
        rng = np.random.default_rng(seed)
        shape = self.leaf_shape
        if self.dtype == BOOL:
            return rng.random(shape) < 0.5
        floats, ints = DOMAINS[self.domain or domain]
        if self.dtype in (I64, I32):
            return np.asarray(rng.choice(ints, shape), dtype=_NP[self.dtype])
        return np.asarray(floats(rng, shape), dtype=np.float64).astype(_NP[self.dtype])

    def transform(self, leaf):
        """The tensor the op sees, from the leaf."""
        if self.layout == "T":
            return leaf.t() if len(self.shape) == 2 else leaf.transpose(-2, -1)
        if self.expand is not None:
            return leaf.expand(*self.shape)
        return leaf

    def label(self) -> str:
        s = "0d" if not self.shape else "x".join(map(str, self.shape))
        s = f"{_ABBR[self.dtype]}_{s}"
        if self.layout == "T":
            s += "_T"
        if self.expand is not None:
            s += "_from" + ("0d" if not self.expand else "x".join(map(str, self.expand)))
        if self.floating and not self.requires_grad:
            s += "_const"
        if self.domain is not None:
            s += f"_{self.domain}"
        if self.data is not None:
            s += "_data"
        return s


def _label_value(v) -> str:
    if isinstance(v, T):
        return v.label()
    if isinstance(v, (tuple, list)):
        return "(" + ",".join(map(_label_value, v)) + ")"
    if isinstance(v, str):
        return v
    if v is None or isinstance(v, (bool, int, float)):
        return repr(v)
    return str(v).split(".")[-1]  # dtypes: "float64"


@dataclass
class Sample:
    """One call of an op: ``fn(m, *args, **kwargs)``; ``args`` mixes :class:`T` and values.

    ``fd`` / ``gradgrad`` switch this sample out of the finite-difference / second-derivative
    checks (e.g. values on a kink, dtype arguments that make the output float32).
    ``arrays`` (the leaves' values) and ``domains`` are filled in by the owning :class:`OpInfo`.
    """

    args: tuple
    kwargs: dict = field(default_factory=dict)
    name: str | None = None
    fd: bool = True
    gradgrad: bool = True
    arrays: list = field(default_factory=list, repr=False)

    @property
    def id(self) -> str:
        if self.name:
            return self.name
        s = "__".join(_label_value(a) for a in self.args)
        if self.kwargs:
            s += "__" + ",".join(f"{k}={_label_value(v)}" for k, v in self.kwargs.items())
        return s

    @property
    def tensor_args(self):
        return [(i, a) for i, a in enumerate(self.args) if isinstance(a, T)]

    @property
    def needs_grad(self) -> bool:
        return any(a.requires_grad for _, a in self.tensor_args)

    @property
    def numel(self) -> int:
        return max([int(np.prod(a.leaf_shape, dtype=np.int64)) for _, a in self.tensor_args]
                   + [0])

    @property
    def min_numel(self) -> int:
        return min(int(np.prod(a.leaf_shape, dtype=np.int64)) for _, a in self.tensor_args)


def S(*args, **kwargs) -> Sample:
    """``S(T(...), 2.5, dim=1)``: a sample; the reserved keywords ``_name``, ``_fd``,
    ``_gradgrad`` set the :class:`Sample` fields of the same name."""
    opts = {k[1:]: kwargs.pop(k) for k in list(kwargs) if k.startswith("_")}
    return Sample(tuple(args), kwargs, **opts)


@dataclass
class ErrorCase:
    """A call that must raise (same exception type and message as PyTorch).

    ``fn`` (default: the entry's) lets a case call the op differently (e.g. another arity).
    """

    args: tuple
    kwargs: dict = field(default_factory=dict)
    name: str | None = None
    fn: Callable | None = None
    arrays: list = field(default_factory=list, repr=False)

    @property
    def id(self) -> str:
        return self.name or Sample(self.args, self.kwargs).id


def E(*args, **kwargs) -> ErrorCase:
    """``E(T((2, 3)), T((4,)))``: an error case; ``_name`` / ``_fn`` as in :func:`S`."""
    opts = {k[1:]: kwargs.pop(k) for k in list(kwargs) if k.startswith("_")}
    return ErrorCase(tuple(args), kwargs, **opts)


@dataclass
class Variant:
    """Another spelling of the op (method, operator, function) checked on the samples for
    which ``when(sample)`` is true (default: all)."""

    fn: Callable
    when: Callable | None = None

    def applies(self, sample) -> bool:
        return self.when is None or bool(self.when(sample))


def no_kwargs(s) -> bool:
    return not s.kwargs


def tensor_first(s) -> bool:
    return bool(s.args) and isinstance(s.args[0], T)


@dataclass
class OpInfo:
    """One op.

    name            test id (unique in ``OPS``)
    fn              ``fn(m, *args, **kwargs)``, ``m`` being gradrs or torch
    samples         list of :class:`Sample`
    domain          default value domain of the ``T`` args: one name, or one per position
    variants        {name: Variant or callable}: other spellings, checked forward + backward
    errors          list of :class:`ErrorCase`
    differentiable  gradients are compared (floating inputs require grad)
    gradgrad        second derivatives are compared (with torch and by finite differences)
    fd              finite-difference check of the first (and second) derivatives
    fd_max_numel    samples with a bigger input are left out of the finite-difference checks
    tol             {dtype: (rtol, atol)} overrides for forward values and gradients
    fd_tol          keyword overrides for the checker (``eps``, ``atol``, ``rtol``)
    """

    name: str
    fn: Callable
    samples: list
    domain: Any = "real"
    variants: dict = field(default_factory=dict)
    errors: list = field(default_factory=list)
    differentiable: bool = True
    gradgrad: bool = True
    fd: bool = True
    fd_max_numel: int = 12
    tol: dict = field(default_factory=dict)
    fd_tol: dict = field(default_factory=dict)

    def __post_init__(self):
        self.variants = {
            k: v if isinstance(v, Variant) else Variant(v) for k, v in self.variants.items()
        }
        self.samples = [self._materialize(s, i, "s") for i, s in enumerate(self.samples)]
        self.errors = [self._materialize(e, i, "e") for i, e in enumerate(self.errors)]
        for kind, items in (("sample", self.samples), ("error case", self.errors)):
            ids = [x.id for x in items]
            dup = {i for i in ids if ids.count(i) > 1}
            assert not dup, f"{self.name}: duplicate {kind} ids {sorted(dup)}"

    def domain_of(self, position: int) -> str:
        if isinstance(self.domain, str):
            return self.domain
        return self.domain[position] if position < len(self.domain) else "real"

    def _materialize(self, item, index, kind):
        """A copy of ``item`` with the leaves' values drawn (fixed seeds)."""
        arrays = [
            a.values(seed_of(self.name, kind, index, pos), self.domain_of(pos))
            if isinstance(a, T) else None
            for pos, a in enumerate(item.args)
        ]
        return dataclasses.replace(item, arrays=arrays)

    def tolerance(self, dtype: str) -> dict:
        if dtype in self.tol:
            rtol, atol = self.tol[dtype]
            return {"rtol": rtol, "atol": atol}
        return {}


# --------------------------------------------------------------------------------------------
# building inputs
# --------------------------------------------------------------------------------------------


def device_kwargs(device: str) -> dict:
    """``{}`` on the CPU (today's code path), ``{"device": device}`` elsewhere."""
    return {} if device == "cpu" else {"device": device}


def for_device(item, device: str):
    """``item`` as run on ``device``: off the CPU float64 becomes float32, in tensors and in
    dtype arguments (the GPU computes in float32; PyTorch's CPU reference is handed the same
    float32 inputs)."""
    if device == "cpu":
        return item

    def arg(a):
        if isinstance(a, T) and a.dtype == F64:
            return dataclasses.replace(a, dtype=F32)
        return F32 if isinstance(a, str) and a == F64 else a

    arrays = [arr.astype(np.float32) if isinstance(a, T) and a.dtype == F64 else arr
              for a, arr in zip(item.args, item.arrays)]
    return dataclasses.replace(item, args=tuple(map(arg, item.args)), arrays=arrays,
                               kwargs={k: arg(v) for k, v in item.kwargs.items()})


def tensor_data(arr):
    """What to hand ``m.tensor``: the array, or a Python number for a 0-dim array (gradrs
    currently builds shape (1,) from a 0-dim numpy array or numpy scalar, PyTorch shape ())."""
    arr = np.asarray(arr)
    return arr.tolist() if arr.ndim == 0 else arr


def make_args(m, item, device="cpu", *, grad=True, cast=None):
    """``(leaves, args)``: the leaf tensors (one per ``T``, in order) and the op's arguments.

    ``grad=False`` makes no leaf require grad; ``cast`` (a dtype name) replaces the dtype of
    the floating ``T``s (the finite-difference check runs in float64).
    """
    leaves, args = [], []
    for a, arr in zip(item.args, item.arrays):
        if not isinstance(a, T):
            args.append(a)
            continue
        dtype = cast if (cast and a.floating) else a.dtype
        leaf = m.tensor(tensor_data(np.asarray(arr).astype(_NP[dtype])), dtype=getattr(m, dtype),
                        requires_grad=grad and a.requires_grad, **device_kwargs(device))
        leaves.append(leaf)
        args.append(a.transform(leaf))
    return leaves, args


def as_outputs(result) -> list:
    """An op's result as a list of tensors (tuples, named tuples and lists are flattened)."""
    return list(result) if isinstance(result, (tuple, list)) else [result]


# --------------------------------------------------------------------------------------------
# sample builders shared by several entries
# --------------------------------------------------------------------------------------------


def unary_samples(dtypes=ALL_DTYPES):
    """Element-wise unary ops: layouts, 0-dim, empty, and the non-float dtypes in ``dtypes``."""
    s = [
        S(T((2, 3))),
        S(T((2, 3), F64)),
        S(T(())),
        S(T((), F64)),
        S(T((0,))),
        S(T((2, 0))),
        S(T((2, 3), layout="T")),
        S(T((2, 3), expand=(3,))),
        S(T((2, 1, 3), F64)),
    ]
    s += [S(T((2, 3), d)) for d in (I64, BOOL) if d in dtypes]
    return s


def binary_samples(dtypes=ALL_DTYPES, scalars=(2.5, 2)):
    """Element-wise binary ops: broadcasting, layouts, 0-dim, empty, promotion, Python
    scalars on the right; integer / bool pairs only for the dtypes in ``dtypes``."""
    s = [
        S(T((2, 3)), T((2, 3))),
        S(T((2, 3), F64), T((2, 3), F64)),
        S(T((2, 3)), T((3,))),
        S(T((2, 1)), T((1, 3))),
        S(T((2, 1, 3)), T((2, 1))),
        S(T((2, 3)), T(())),
        S(T(()), T((2, 3))),
        S(T(()), T(())),
        S(T((2, 3), layout="T"), T((2, 3))),
        S(T((2, 3)), T((2, 3), expand=(3,))),
        S(T((2, 3)), T((3,), rg=False)),
        S(T((2, 3), rg=False), T((3,))),
        S(T((0,)), T((0,))),
        S(T((2, 0)), T((2, 1))),
        S(T((2, 3)), T((3,), F64)),
        S(T((2, 3), F64), T(())),
    ]
    s += [S(T((2, 3)), v) for v in scalars]
    if I64 in dtypes:
        s += [
            S(T((2, 3), I64), T((2, 3), I64)),
            S(T((2, 3), I64), T((3,))),
            S(T((2, 3)), T((), I64)),
            S(T((2, 3), I64), 2),
            S(T((2, 3), I64), 2.5),
        ]
    if BOOL in dtypes:
        s += [S(T((2, 3), BOOL), T((2, 3), BOOL)), S(T((2, 3), BOOL), T((3,)))]
    return s


def rbinary_samples():
    """``scalar <op> tensor`` (the reflected operators): the tensor comes first in ``args``."""
    return [
        S(T((2, 3)), 2.5),
        S(T((2, 3)), 2),
        S(T((2, 3), F64), -1.5),
        S(T(()), 3),
        S(T((0,)), 2.0),
        S(T((2, 3), layout="T"), 0.5),
        S(T((2, 3), I64), 2),
        S(T((2, 3), I64), 1.5),
    ]


def _mismatch(*extra):
    """The error case every broadcasting binary op shares, plus ``extra``."""
    return [E(T((2, 3)), T((4,)), _name="broadcast_mismatch"),
            E(T((2, 3)), T((3, 3)), _name="broadcast_mismatch_2d"), *extra]


def reduction_samples(ints=True):
    s = [
        S(T((2, 3))),
        S(T((2, 3), F64)),
        S(T(())),
        S(T((0,))),
        S(T((2, 0)), dim=1),
        S(T((2, 0)), dim=0),
        S(T((2, 3)), dim=0),
        S(T((2, 3)), 1),
        S(T((2, 3)), dim=-1),
        S(T((2, 3)), dim=1, keepdim=True),
        S(T((2, 3, 2)), dim=(0, 2)),
        S(T((2, 3, 2), F64), dim=(-1, 0), keepdim=True),
        S(T((2, 3)), dim=()),
        S(T(()), dim=0),
        S(T(()), dim=-1, keepdim=True),
        S(T((2, 3), layout="T"), dim=0),
        S(T((2, 3), expand=(3,)), dim=1),
        S(T((2, 3)), dtype="float64"),
        S(T((2, 3), F64), dim=1, dtype="float32", _fd=False),
    ]
    if ints:
        s += [S(T((2, 3), I64)), S(T((2, 3), I64), dim=1), S(T((2, 3), BOOL))]
    return s


def _dtype_kw(m, kw):
    """Turn a ``dtype="float64"`` keyword (spelled by name in the table) into ``m.float64``."""
    if "dtype" in kw:
        kw = dict(kw, dtype=getattr(m, kw["dtype"]))
    return kw


def _reduce(name):
    return lambda m, x, *a, **kw: getattr(m, name)(x, *a, **_dtype_kw(m, kw))


def _reduce_method(name):
    return lambda m, x, *a, **kw: getattr(x, name)(*a, **_dtype_kw(m, kw))


def _reduction_errors():
    return [
        E(T((2, 3)), 2, _name="dim_out_of_range"),
        E(T((2, 3)), -3, _name="dim_out_of_range_neg"),
        E(T(()), 1, _name="dim_out_of_range_0d"),
        E(T((2, 3)), dim=(0, 0), _name="dim_repeated"),
        E(T((2, 3)), dim=(1, -1), _name="dim_repeated_neg"),
    ]


def _unary(name, domain="real", dtypes=ALL_DTYPES, errors=(), extra=(), **kw):
    """An element-wise unary op with its function form as ``fn`` and its method variant."""
    variants = {"method": lambda m, x, **k: getattr(x, name)(**k)}
    variants.update(kw.pop("variants", {}))
    return OpInfo(name, lambda m, x, **k: getattr(m, name)(x, **k),
                  unary_samples(dtypes) + list(extra), domain=domain,
                  variants=variants, errors=list(errors), **kw)


def _binary(name, method=None, operator=None, domain=("real", "real"), dtypes=ALL_DTYPES,
            errors=(), extra=(), scalars=(2.5, 2), **kw):
    """An element-wise binary op: ``m.<name>(a, b, **kw)`` plus its method / operator."""
    variants = {"method": Variant(lambda m, a, b, **k: getattr(a, method or name)(b, **k),
                                  tensor_first)}
    if operator is not None:
        variants["operator"] = Variant(operator, no_kwargs)
    return OpInfo(name, lambda m, a, b, **k: getattr(m, name)(a, b, **k),
                  binary_samples(dtypes, scalars) + list(extra), domain=domain,
                  variants=variants, errors=_mismatch(*errors), **kw)


def _compare(name, operator):
    return _binary(name, operator=operator, domain=("ties", "ties"), differentiable=False,
                   extra=[S(T((2, 3), F64), T((2, 3))), S(T((2, 3), BOOL), True)])


def _reflected(name, operator, domain="real"):
    """``scalar <op> tensor``; args are ``(tensor, scalar)``."""
    return OpInfo(name, lambda m, x, s: operator(s, x), rbinary_samples(), domain=domain)


# --------------------------------------------------------------------------------------------
# matmul family
# --------------------------------------------------------------------------------------------


def matmul_samples():
    return [
        S(T((3,)), T((3,))),
        S(T((2, 3)), T((3,))),
        S(T((2,)), T((2, 3))),
        S(T((2, 3)), T((3, 2))),
        S(T((2, 2, 3)), T((2, 3, 2))),
        S(T((2, 2, 3)), T((3, 2))),
        S(T((2, 3)), T((2, 3, 2))),
        S(T((2, 2, 3)), T((3,))),
        S(T((2,)), T((2, 2, 3))),
        S(T((2, 1, 2, 3)), T((2, 3, 2))),
        S(T((2, 3), layout="T"), T((3, 2), layout="T")),
        S(T((2, 2, 3), layout="T"), T((2, 3, 2))),
        S(T((2, 2, 3), expand=(2, 3)), T((2, 3, 2))),
        S(T((2, 3), F64), T((3, 2), F64)),
        S(T((3,), F64), T((3,), F64)),
        S(T((2, 3)), T((3, 2), rg=False)),
        S(T((2, 3), I64), T((3, 2), I64)),
        S(T((3,), I64), T((3,), I64)),
        S(T((0, 3)), T((3, 2))),
        S(T((2, 0)), T((0, 3))),
        S(T((0,)), T((0,))),
    ]


MATMUL_ERRORS = [
    E(T(()), T((3,)), _name="0d_lhs"),
    E(T((3,)), T(()), _name="0d_rhs"),
    E(T((2, 3)), T((4, 2)), _name="2d_mismatch"),
    E(T((3,)), T((4,)), _name="1d_mismatch"),
    E(T((2, 3)), T((4,)), _name="2d_1d_mismatch"),
    E(T((2,)), T((3, 2)), _name="1d_2d_mismatch"),
    E(T((2, 2, 3)), T((3, 3, 2)), _name="batch_mismatch"),
    E(T((2, 3)), T((3, 2), F64), _name="dtype_mismatch_2d"),
    E(T((3,)), T((3,), F64), _name="dtype_mismatch_1d"),
    E(T((2, 3), BOOL), T((3, 2), BOOL), _name="bool_2d"),
    E(T((3,), BOOL), T((3,), BOOL), _name="bool_1d"),
]


# --------------------------------------------------------------------------------------------
# element-wise math, activations, reductions, shape and indexing ops
# --------------------------------------------------------------------------------------------

NAN, INF = float("nan"), float("inf")


def tensor_only(samples):
    """The samples whose arguments are all tensors (ops without a Scalar overload)."""
    return [s for s in samples if all(isinstance(a, T) for a in s.args)]


def _act(name, samples, inplace=False, errors=(), **kw):
    """``torch.nn.functional.<name>`` vs ``gradrs.nn.functional.<name>``; ``inplace`` (True or
    a predicate on the sample) adds the ``inplace=True`` spelling (on a non-leaf copy) as a
    variant."""
    variants = dict(kw.pop("variants", {}))
    if inplace:
        variants["inplace"] = Variant(lambda m, x, **k: getattr(m.nn.functional, name)(
            x * 1, inplace=True, **k), None if inplace is True else inplace)
    return OpInfo(f"F.{name}", lambda m, x, **k: getattr(m.nn.functional, name)(x, **k),
                  samples, variants=variants, errors=list(errors), **kw)


def _tbinary(name, dtypes=ALL_DTYPES, extra=(), errors=(), alias=None, exclude=(), **kw):
    """An element-wise binary op with tensor operands only (no Scalar overload); ``exclude``:
    ids of the shared samples to leave out."""
    variants = {"method": lambda m, a, b: getattr(a, name)(b)}
    if alias:
        variants["alias"] = lambda m, a, b: getattr(m, alias)(a, b)
    variants.update(kw.pop("variants", {}))
    return OpInfo(name, lambda m, a, b: getattr(m, name)(a, b),
                  [s for s in tensor_only(binary_samples(dtypes, ())) if s.id not in exclude]
                  + list(extra), variants=variants,
                  errors=_mismatch(*errors), **kw)


def _fn(name):
    """``m.<name>(x, *args, **kwargs)`` (``dtype="float64"`` spelled by name)."""
    return lambda m, x, *a, **k: getattr(m, name)(x, *a, **_dtype_kw(m, k))


def _meth(name):
    return lambda m, x, *a, **k: getattr(x, name)(*a, **_dtype_kw(m, k))


def _leaf_inplace(fn):
    """An error case: the in-place op applied to a leaf that requires grad."""
    return E(T((2, 3)), _fn=fn, _name="leaf_requires_grad")


@dataclass(frozen=True)
class Arg:
    """In an indexing key or value: the ``i``-th tensor argument after the indexed tensor."""

    i: int


def _key(key, ts):
    if isinstance(key, Arg):
        return ts[key.i]
    if isinstance(key, tuple):
        return tuple(_key(k, ts) for k in key)
    if isinstance(key, list):
        return [_key(k, ts) for k in key]
    return key


def _getitem(m, x, *ts, key):
    return x[_key(key, ts)]


def _setitem(m, x, *ts, key, value):
    """``y = x * 1; y[key] = value``: ``__setitem__`` on a non-leaf copy (bool: a clone)."""
    y = x.clone() if x.dtype == m.bool else x * 1
    y[_key(key, ts)] = _key(value, ts)
    return y


def idx(shape, data):
    """An int64 index tensor with explicit values."""
    return T(shape, I64, data=data)


def mask(shape, data=None):
    return T(shape, BOOL, data=data)


# --------------------------------------------------------------------------------------------
# the table
# --------------------------------------------------------------------------------------------

_AT_ZERO = [0.0, -1.0, 1.0]  # a kink / a sign change: PyTorch's subgradient convention

# The GPU's polynomials of high degree go through the driver's sin / cos (good to ~1e-3 on
# lavapipe); tests/test_special.py holds the CPU kernels to a few ulps of PyTorch's.
_POLY_TOL = {"float32": (2e-3, 1e-3), "float64": (2e-3, 1e-3)}

OPS: list = [
    # ---- unary ------------------------------------------------------------------------------
    _unary("neg", variants={"operator": lambda m, x: -x}, dtypes=(I64,),
           errors=[E(T((2, 3), BOOL), _name="bool")]),
    _unary("exp"),
    _unary("log", domain="positive"),
    _unary("sin"),
    _unary("cos"),
    _unary("tanh"),
    _unary("sigmoid", extra=[S(T((3,), data=[-30.0, 0.0, 30.0]), _fd=False)]),
    _unary("relu", dtypes=(I64,), errors=[E(T((2, 3), BOOL), _name="bool")],
           extra=[S(T((3,), data=_AT_ZERO), _fd=False)]),
    _unary("sqrt", domain="positive", extra=[S(T((3,), data=[0.0, -1.0, 4.0]), _fd=False)]),
    _unary("abs", variants={"builtin": lambda m, x: abs(x)}, dtypes=(I64,),
           errors=[E(T((2, 3), BOOL), _name="bool")],
           extra=[S(T((3,), data=_AT_ZERO), _fd=False)]),
    _unary("sign", extra=[S(T((3,), data=_AT_ZERO), _fd=False)]),
    _unary("reciprocal", domain="nonzero", extra=[S(T((3,), data=[0.0, -2.0, 4.0]), _fd=False)]),
    # ---- binary arithmetic --------------------------------------------------------------------
    _binary("add", operator=lambda m, a, b: a + b,
            extra=[S(T((2, 3)), T((3,)), alpha=2), S(T((2, 3), F64), T(()), alpha=-0.5),
                   S(T((2, 3), I64), T((3,), I64), alpha=3), S(T((2, 3)), 1.5, alpha=2)],
            errors=[E(T((2, 3), I64), T((2, 3), I64), alpha=0.5, _name="int_float_alpha")]),
    _binary("sub", operator=lambda m, a, b: a - b, dtypes=(F32, F64, I64),
            extra=[S(T((2, 3)), T((3,)), alpha=2), S(T((2, 3), F64), T(()), alpha=-0.5),
                   S(T((2, 3), I64), T((3,), I64), alpha=3), S(T((2, 3)), 1.5, alpha=2)],
            errors=[E(T((2, 3), BOOL), T((2, 3), BOOL), _name="bool_bool"),
                    E(T((2, 3), BOOL), T((2, 3)), _name="bool_float"),
                    E(T((2, 3)), T((3,), BOOL), _name="float_bool"),
                    E(T((2, 3), I64), T((2, 3), I64), alpha=0.5, _name="int_float_alpha")]),
    _binary("mul", operator=lambda m, a, b: a * b),
    _binary("div", operator=lambda m, a, b: a / b, domain=("real", "nonzero"),
            extra=[S(T((3,), data=[1.0, 0.0, -1.0]), T((3,), data=[0.0, 0.0, 0.0]),
                     _fd=False)]),
    OpInfo(
        "pow", lambda m, a, b: m.pow(a, b),
        binary_samples((F32, F64, I64), scalars=(2, 3, 0.5, -1.5, 0, 1)) + [
            S(2.0, T((2, 3))),
            S(0.5, T((2, 3), F64)),
            S(2, T((2, 3))),
            S(2, T((2, 3), I64)),
            S(T((2, 3)), T((), F64, rg=False)),
            S(T((2, 3), domain="real"), 2),
            S(T((2, 3), domain="real"), 3.0),
            S(T((3,), data=[0.0, 0.0, 2.0]), T((3,), data=[0.0, 2.0, 1.5]), _fd=False),
            S(T((3,), data=[0.0, 0.0, 2.0]), 0, _fd=False),
            S(0.0, T((3,), data=[0.0, 2.0, 1.5]), _fd=False),
            S(T((2, 3), I64), T((3,), I64, data=[1, -2, 0])),
        ],
        domain=("positive", "exponent"),
        variants={"operator": lambda m, a, b: a**b,
                  "method": Variant(lambda m, a, b: a.pow(b), tensor_first)},
        errors=_mismatch(
            E(T((2, 3), I64), -1, _name="int_negative_int_exponent"),
            E(T((2, 3), BOOL), T((2, 3), BOOL), _name="bool_bool"),
        ),
    ),
    _reflected("__radd__", lambda s, x: s + x),
    _reflected("__rsub__", lambda s, x: s - x),
    _reflected("__rmul__", lambda s, x: s * x),
    _reflected("__rtruediv__", lambda s, x: s / x, domain="nonzero"),
    # ---- comparisons --------------------------------------------------------------------------
    _compare("eq", lambda m, a, b: a == b),
    _compare("ne", lambda m, a, b: a != b),
    _compare("lt", lambda m, a, b: a < b),
    _compare("le", lambda m, a, b: a <= b),
    _compare("gt", lambda m, a, b: a > b),
    _compare("ge", lambda m, a, b: a >= b),
    # ---- where --------------------------------------------------------------------------------
    OpInfo(
        "where", lambda m, c, a, b: m.where(c, a, b),
        variants={"method": Variant(lambda m, c, a, b: a.where(c, b),
                                    lambda s: isinstance(s.args[1], T))},
        samples=[
            S(T((2, 3), BOOL), T((2, 3)), T((2, 3))),
            S(T((2, 3), BOOL), T((2, 3), F64), T((2, 3), F64)),
            S(T((2, 1), BOOL), T((3,)), T(())),
            S(T((3,), BOOL), T((2, 1)), T((2, 3))),
            S(T((), BOOL), T((2, 3)), T((2, 3))),
            S(T((2, 3), BOOL), T((2, 3)), 0.0),
            S(T((2, 3), BOOL), 1.5, T((2, 3))),
            S(T((2, 3), BOOL), 1.0, 0.0),
            S(T((2, 3), BOOL), T((2, 3)), T((2, 3), F64)),
            S(T((2, 3), BOOL), T((2, 3), I64), T((2, 3))),
            S(T((2, 3), BOOL), T((2, 3), I64), T((2, 3), I64)),
            S(T((2, 3), BOOL, layout="T"), T((2, 3), layout="T"), T((2, 3), expand=(3,))),
            S(T((2, 3), BOOL), T((2, 3), rg=False), T((2, 3))),
            S(T((0,), BOOL), T((0,)), T((0,))),
        ],
        errors=[
            E(T((2, 3)), T((2, 3)), T((2, 3)), _name="float_condition"),
            E(T((2, 3), I64), T((2, 3)), T((2, 3)), _name="int_condition"),
            E(T((2, 3), BOOL), T((4,)), T((2, 3)), _name="broadcast_mismatch"),
        ],
    ),
    # ---- reductions ---------------------------------------------------------------------------
    OpInfo("sum", _reduce("sum"), reduction_samples(),
           variants={"method": _reduce_method("sum")}, errors=_reduction_errors()),
    OpInfo("mean", _reduce("mean"),
           reduction_samples(ints=False) + [S(T((2, 3), I64), dtype="float32", _fd=False)],
           variants={"method": _reduce_method("mean")},
           errors=_reduction_errors() + [
               E(T((2, 3), I64), _name="int"),
               E(T((2, 3), BOOL), _name="bool"),
               E(T((2, 3), I64), dim=1, _name="int_dim"),
           ]),
    OpInfo("nansum", _reduce("nansum"), reduction_samples() + [
        S(T((2, 3), data=[[1.0, NAN, 3.0], [NAN, NAN, 2.0]]), _fd=False, **k)
        for k in ({}, {"dim": 1}, {"dim": 0, "keepdim": True})],
           variants={"method": _reduce_method("nansum")}, errors=_reduction_errors()),
    OpInfo("nanmean", _reduce("nanmean"), reduction_samples(ints=False) + [
        S(T((2, 3), data=[[1.0, NAN, 3.0], [NAN, NAN, 2.0]]), _fd=False, **k)
        for k in ({}, {"dim": 1}, {"dim": 0, "keepdim": True})],
           variants={"method": _reduce_method("nanmean")},
           errors=_reduction_errors() + [E(T((2, 3), I64), _name="int"),
                                         E(T((2, 3)), dtype="int64", _name="dtype_int")]),
    # ---- matmul family ------------------------------------------------------------------------
    OpInfo("matmul", lambda m, a, b: m.matmul(a, b), matmul_samples(),
           variants={"operator": lambda m, a, b: a @ b, "method": lambda m, a, b: a.matmul(b)},
           errors=MATMUL_ERRORS),
    OpInfo(
        "mm", lambda m, a, b: m.mm(a, b),
        [
            S(T((2, 3)), T((3, 2))),
            S(T((2, 3), F64), T((3, 4), F64)),
            S(T((2, 3), layout="T"), T((3, 2), layout="T")),
            S(T((2, 3), expand=(3,)), T((3, 2))),
            S(T((2, 3)), T((3, 2), rg=False)),
            S(T((1, 1)), T((1, 1))),
            S(T((2, 3), I64), T((3, 2), I64)),
            S(T((0, 3)), T((3, 2))),
            S(T((2, 0)), T((0, 3))),
        ],
        variants={"method": lambda m, a, b: a.mm(b)},
        errors=[
            E(T((3,)), T((3, 2)), _name="1d_lhs"),
            E(T((2, 3)), T((3,)), _name="1d_rhs"),
            E(T((2, 2, 3)), T((3, 2)), _name="3d_lhs"),
            E(T((2, 3)), T((2, 2)), _name="mismatch"),
            E(T((2, 3)), T((3, 2), F64), _name="dtype_mismatch"),
            E(T((2, 3), I64), T((3, 2)), _name="int_float"),
        ],
    ),
    OpInfo(
        "addmm", lambda m, i, a, b, **k: m.addmm(i, a, b, **k),
        [
            S(T((2, 4)), T((2, 3)), T((3, 4))),
            S(T((4,)), T((2, 3)), T((3, 4)), beta=0.5, alpha=2),
            S(T((2, 1), F64), T((2, 3), F64), T((3, 4), F64), beta=-1.5),
            S(T(()), T((2, 3)), T((3, 4)), alpha=0.5),
            S(T((2, 4)), T((2, 3), layout="T"), T((3, 4), layout="T")),
            S(T((2, 4), expand=(4,)), T((2, 3)), T((3, 4), rg=False)),
            S(T((2, 4)), T((2, 3), rg=False), T((3, 4)), beta=0),
            S(T((2, 4), rg=False), T((2, 3)), T((3, 4)), alpha=0),
            S(T((2, 4), I64), T((2, 3), I64), T((3, 4), I64), beta=2, alpha=3),
            S(T((2, 4), I64), T((2, 3), I64), T((3, 4), I64), beta=1.7, alpha=2.9),
            S(T((0, 4)), T((0, 3)), T((3, 4))),
            S(T((2, 4)), T((2, 0)), T((0, 4)), beta=2),
        ],
        variants={"method": lambda m, i, a, b, **k: i.addmm(a, b, **k)},
        errors=[
            E(T((2, 4)), T((3,)), T((3, 4)), _name="1d_mat1"),
            E(T((2, 4)), T((2, 3)), T((3,)), _name="1d_mat2"),
            E(T((2, 4)), T((2, 3)), T((4, 4)), _name="mismatch"),
            E(T((3,)), T((2, 3)), T((3, 4)), _name="input_not_broadcastable"),
            E(T((2, 4, 1)), T((2, 3)), T((3, 4)), _name="input_3d"),
            E(T((2, 4), F64), T((2, 3)), T((3, 4)), _name="self_dtype"),
            E(T((2, 4)), T((2, 3), F64), T((3, 4)), _name="mat1_dtype"),
            E(T((2, 4)), T((2, 3)), T((3, 4), F64), _name="mat2_dtype"),
            E(T((2, 4), BOOL), T((2, 3), BOOL), T((3, 4), BOOL), _name="bool"),
        ],
    ),
    # PyTorch's linear picks addmm (2-D input with bias), addmm on the flattened input viewed
    # back (contiguous input, bias 1-D once squeezed), or matmul + add_; grad_fn names follow.
    OpInfo(
        "F.linear", lambda m, x, w, b: m.nn.functional.linear(x, w, b),
        [
            S(T((2, 3)), T((4, 3)), T((4,))),
            S(T((2, 3), rg=False), T((4, 3)), T((4,))),
            S(T((3,)), T((4, 3)), T((4,))),
            S(T((5, 2, 3)), T((4, 3)), T((4,))),
            S(T((2, 2, 2, 3), F64), T((4, 3), F64), T((4,), F64)),
            S(T((5, 2, 3), layout="T"), T((4, 3)), T((4,))),
            S(T((2, 3), layout="T"), T((4, 3), layout="T"), T((4,))),
            S(T((5, 2, 3)), T((4, 3)), T((1, 4))),
            S(T((5, 2, 3)), T((4, 3)), T(())),
            S(T((2, 3)), T((4, 3)), T((2, 4))),
            S(T((2, 3)), T((4, 3)), None),
            S(T((5, 2, 3)), T((4, 3)), None),
            S(T((2, 0, 3)), T((4, 3)), T((4,))),
        ],
        errors=[
            E(T(()), T((4, 3)), T((4,)), _name="0d_input"),
            E(T((2, 3)), T((4, 5)), T((4,)), _name="mismatch"),
            E(T((2, 3)), T((4, 3)), T((3,)), _name="bias_mismatch"),
            E(T((5, 2, 3)), T((4, 3)), T((4, 1)), _name="bias_4x1"),
        ],
    ),
    OpInfo(
        "bmm", lambda m, a, b: m.bmm(a, b),
        [
            S(T((2, 2, 3)), T((2, 3, 2))),
            S(T((2, 2, 3), F64), T((2, 3, 1), F64)),
            S(T((2, 2, 3), layout="T"), T((2, 3, 2), layout="T")),
            S(T((2, 2, 3), expand=(2, 3)), T((2, 3, 2))),
            S(T((2, 2, 3)), T((2, 3, 2), rg=False)),
            S(T((2, 2, 3), I64), T((2, 3, 2), I64)),
            S(T((0, 2, 3)), T((0, 3, 2))),
            S(T((2, 2, 0)), T((2, 0, 3))),
        ],
        variants={"method": lambda m, a, b: a.bmm(b)},
        errors=[
            E(T((2, 3)), T((2, 3, 2)), _name="2d_lhs"),
            E(T((2, 2, 3)), T((3, 2)), _name="2d_rhs"),
            E(T((2, 2, 3)), T((3, 3, 2)), _name="batch_mismatch"),
            E(T((2, 2, 3)), T((2, 2, 2)), _name="inner_mismatch"),
            E(T((2, 2, 3)), T((2, 3, 2), F64), _name="dtype_mismatch"),
        ],
    ),
    OpInfo(
        "mv", lambda m, a, b: m.mv(a, b),
        [
            S(T((2, 3)), T((3,))),
            S(T((2, 3), F64), T((3,), F64)),
            S(T((2, 3), layout="T"), T((3,))),
            S(T((2, 3)), T((3,), expand=(1,))),
            S(T((2, 3), rg=False), T((3,))),
            S(T((2, 3), I64), T((3,), I64)),
            S(T((0, 3)), T((3,))),
            S(T((2, 0)), T((0,))),
        ],
        variants={"method": lambda m, a, b: a.mv(b)},
        errors=[
            E(T((3,)), T((3,)), _name="1d_matrix"),
            E(T((2, 3)), T((3, 1)), _name="2d_vector"),
            E(T((2, 3)), T((4,)), _name="mismatch"),
            E(T((2, 3)), T((3,), F64), _name="dtype_mismatch"),
        ],
    ),
    OpInfo(
        "dot", lambda m, a, b: m.dot(a, b),
        [
            S(T((3,)), T((3,))),
            S(T((4,), F64), T((4,), F64)),
            S(T((3,)), T((3,), expand=(1,))),
            S(T((3,)), T((3,), rg=False)),
            S(T((3,), I64), T((3,), I64)),
            S(T((0,)), T((0,))),
        ],
        variants={"method": lambda m, a, b: a.dot(b)},
        errors=[
            E(T((2, 3)), T((3,)), _name="2d"),
            E(T(()), T(()), _name="0d"),
            E(T((3,)), T((4,)), _name="mismatch"),
            E(T((3,)), T((3,), F64), _name="dtype_mismatch"),
            E(T((3,), BOOL), T((3,), BOOL), _name="bool"),
        ],
    ),
    # ---- views and reshapes -----------------------------------------------------------------
    OpInfo(
        "view", lambda m, x, shape: x.view(shape),
        [
            S(T((2, 3)), (3, 2)),
            S(T((2, 3)), (-1,)),
            S(T((2, 3), F64), (2, 1, 3)),
            S(T((2, 3)), (1, -1)),
            S(T(()), (1,)),
            S(T((1,)), ()),
            S(T((2, 3), layout="T"), (2, 3)),
            S(T((2, 3), layout="T"), (2, 1, 3)),
            S(T((2, 3), expand=(3,)), (2, 1, 3)),
            S(T((2, 0)), (0, 5)),
            S(T((2, 0)), (-1,)),
            S(T((2, 3), I64), (6,)),
            S(T((2, 3), BOOL), (3, 2)),
        ],
        variants={"star": Variant(lambda m, x, shape: x.view(*shape), lambda s: s.args[1])},
        errors=[
            E(T((2, 3)), (4,), _name="bad_numel"),
            E(T((2, 3)), (-1, -1), _name="two_inferred"),
            E(T((2, 3)), (-2, 3), _name="negative_size"),
            E(T((2, 3), layout="T"), (6,), _name="non_contiguous"),
            E(T((2, 3), expand=(3,)), (6,), _name="expanded"),
        ],
    ),
    OpInfo(
        "reshape", lambda m, x, shape: m.reshape(x, shape),
        [
            S(T((2, 3)), (3, 2)),
            S(T((2, 3)), (-1,)),
            S(T((2, 3), F64), (2, 1, 3)),
            S(T(()), (1, 1)),
            S(T((1,)), ()),
            S(T((2, 3), layout="T"), (6,)),
            S(T((2, 3), layout="T"), (3, -1)),
            S(T((2, 3), expand=(3,)), (6,)),
            S(T((2, 0)), (0, 4)),
            S(T((2, 3), I64), (3, 2)),
            S(T((2, 3), BOOL), (-1,)),
        ],
        variants={"method": lambda m, x, shape: x.reshape(shape),
                  "star": Variant(lambda m, x, shape: x.reshape(*shape), lambda s: s.args[1])},
        errors=[
            E(T((2, 3)), (4,), _name="bad_numel"),
            E(T((2, 3)), (-1, -1), _name="two_inferred"),
            E(T((2, 0)), (-1, 0), _name="inferred_from_empty"),
        ],
    ),
    OpInfo(
        "transpose", lambda m, x, d0, d1: m.transpose(x, d0, d1),
        [
            S(T((2, 3)), 0, 1),
            S(T((2, 3), F64), 1, 0),
            S(T((2, 3, 2)), -1, 0),
            S(T((2, 3, 2)), 1, 1),
            S(T((3,)), 0, -1),
            S(T(()), 0, -1),
            S(T((2, 3), layout="T"), 0, 1),
            S(T((2, 0)), 0, 1),
            S(T((2, 3), I64), 0, 1),
            S(T((2, 3), BOOL), 1, 0),
        ],
        variants={"method": lambda m, x, d0, d1: x.transpose(d0, d1)},
        errors=[
            E(T((2, 3)), 0, 2, _name="dim_out_of_range"),
            E(T((2, 3)), -3, 0, _name="dim_out_of_range_neg"),
            E(T(()), 0, 1, _name="0d_out_of_range"),
        ],
    ),
    OpInfo(
        "t", lambda m, x: m.t(x),
        [
            S(T((2, 3))),
            S(T((2, 3), F64)),
            S(T((3,))),
            S(T(())),
            S(T((2, 3), layout="T")),
            S(T((2, 0))),
            S(T((2, 3), I64)),
            S(T((2, 3), BOOL)),
        ],
        variants={"method": lambda m, x: x.t(), "T": Variant(lambda m, x: x.T,
                                                             lambda s: len(s.args[0].shape) == 2)},
        errors=[E(T((2, 3, 2)), _name="3d")],
    ),
    OpInfo(
        "permute", lambda m, x, dims: m.permute(x, dims),
        [
            S(T((2, 3, 2)), (2, 0, 1)),
            S(T((2, 3, 2), F64), (-1, 0, 1)),
            S(T((2, 3)), (1, 0)),
            S(T((2, 3)), (0, 1)),
            S(T((3,)), (0,)),
            S(T(()), ()),
            S(T((2, 3), layout="T"), (1, 0)),
            S(T((2, 0, 3)), (2, 1, 0)),
            S(T((2, 3), I64), (1, 0)),
            S(T((2, 3), BOOL), (1, 0)),
        ],
        variants={"method": lambda m, x, dims: x.permute(dims),
                  "star": Variant(lambda m, x, dims: x.permute(*dims), lambda s: s.args[1])},
        errors=[
            E(T((2, 3)), (0, 1, 2), _name="too_many_dims"),
            E(T((2, 3)), (0,), _name="too_few_dims"),
            E(T((2, 3)), (0, 0), _name="repeated_dim"),
            E(T((2, 3)), (0, 2), _name="dim_out_of_range"),
        ],
    ),
    OpInfo(
        "expand", lambda m, x, sizes: x.expand(sizes),
        [
            S(T((3,)), (2, 3)),
            S(T((2, 1), F64), (2, 3)),
            S(T(()), (2, 2)),
            S(T((2, 1)), (-1, 3)),
            S(T((2, 1)), (2, 2, 3)),
            S(T((2, 3)), (2, 3)),
            S(T((1,)), (0,)),
            S(T((2, 3), layout="T"), (2, 2, 3)),
            S(T((3,), I64), (2, 3)),
            S(T((3,), BOOL), (2, 3)),
        ],
        variants={"star": lambda m, x, sizes: x.expand(*sizes)},
        errors=[
            E(T((3,)), (2, 4), _name="size_mismatch"),
            E(T((2, 3)), (3,), _name="too_few_sizes"),
            E(T((3,)), (-1, 3), _name="new_dim_minus_one"),
            E(T((2, 3)), (2, -2), _name="negative_size"),
        ],
    ),
    OpInfo(
        "unsqueeze", lambda m, x, d: m.unsqueeze(x, d),
        [
            S(T((2, 3)), 0),
            S(T((2, 3), F64), 1),
            S(T((2, 3)), 2),
            S(T((2, 3)), -1),
            S(T((2, 3)), -3),
            S(T(()), 0),
            S(T(()), -1),
            S(T((2, 3), layout="T"), 1),
            S(T((2, 0)), 1),
            S(T((2, 3), I64), 0),
            S(T((2, 3), BOOL), -1),
        ],
        variants={"method": lambda m, x, d: x.unsqueeze(d)},
        errors=[
            E(T((2, 3)), 3, _name="dim_out_of_range"),
            E(T((2, 3)), -4, _name="dim_out_of_range_neg"),
            E(T(()), 2, _name="0d_out_of_range"),
        ],
    ),
    OpInfo(
        "squeeze", lambda m, x, *d: m.squeeze(x, *d),
        [
            S(T((2, 1, 3))),
            S(T((1, 1), F64)),
            S(T((2, 1, 3)), 1),
            S(T((2, 1, 3)), -2),
            S(T((2, 1, 3)), 0),
            S(T(())),
            S(T(()), 0),
            S(T((1, 3, 1)), (0, 2)),
            S(T((1, 3, 1), F64), [1, -1]),
            S(T((1, 3, 1)), ()),
            S(T(()), (0,)),
            S(T((2, 1), layout="T")),
            S(T((0, 1))),
            S(T((2, 1, 3), I64), 1),
            S(T((2, 1, 3), BOOL)),
        ],
        variants={"method": lambda m, x, *d: x.squeeze(*d)},
        errors=[
            E(T((2, 1, 3)), 3, _name="dim_out_of_range"),
            E(T(()), 1, _name="0d_out_of_range"),
            E(T((1, 3, 1)), (0, 0), _name="dims_repeated"),
            E(T((1, 3, 1)), (0, 3), _name="dims_out_of_range"),
            E(T(()), (0, 1), _name="0d_dims_out_of_range"),
        ],
    ),
    OpInfo(
        "flatten", lambda m, x, **kw: m.flatten(x, **kw),
        [
            S(T((2, 3, 2))),
            S(T((2, 3, 2), F64), start_dim=1),
            S(T((2, 3, 2)), start_dim=0, end_dim=1),
            S(T((2, 3, 2)), end_dim=-2),
            S(T((2, 3, 2)), start_dim=1, end_dim=1),
            S(T(())),
            S(T((3,))),
            S(T((2, 3), layout="T")),
            S(T((2, 0, 3)), start_dim=1),
            S(T((2, 3), I64)),
            S(T((2, 1, 3), BOOL), start_dim=1),
        ],
        variants={"method": lambda m, x, **kw: x.flatten(**kw)},
        errors=[
            E(T((2, 3, 2)), start_dim=2, end_dim=1, _name="start_after_end"),
            E(T((2, 3)), start_dim=2, _name="dim_out_of_range"),
        ],
    ),
    OpInfo("clone", lambda m, x: m.clone(x), unary_samples(),
           variants={"method": lambda m, x: x.clone()}),
    OpInfo("contiguous", lambda m, x: x.contiguous(), unary_samples()),
    # ---- element-wise math --------------------------------------------------------------------
    _unary("exp2", errors=[E([1.0, 2.0], _name="list_input")]),
    _unary("expm1"),
    _unary("log2", domain="positive", extra=[S(T((3,), data=[0.0, -1.0, 4.0]), _fd=False)]),
    _unary("log10", domain="positive", extra=[S(T((3,), data=[0.0, -1.0, 4.0]), _fd=False)]),
    _unary("log1p", domain="positive", extra=[S(T((3,), data=[-1.0, -2.0, 0.5]), _fd=False)]),
    _unary("rsqrt", domain="positive", extra=[S(T((3,), data=[0.0, -1.0, 4.0]), _fd=False)]),
    _unary("square"),
    _unary("tan", domain="unit"),
    _unary("asin", domain="unit", extra=[S(T((3,), data=[1.0, -1.0, 2.0]), _fd=False)],
           variants={"alias": lambda m, x: m.arcsin(x)}),
    _unary("acos", domain="unit", extra=[S(T((3,), data=[1.0, -1.0, 2.0]), _fd=False)],
           variants={"alias": lambda m, x: m.arccos(x)}),
    _unary("atan", variants={"alias": lambda m, x: m.arctan(x)}),
    _unary("sinh"),
    _unary("cosh"),
    _unary("erf"),
    _unary("sinc", extra=[S(T((3,), data=[0.0, 1.0, -0.5]), _fd=False)]),
    _unary("deg2rad"),
    _unary("rad2deg"),
    _unary("logit", domain="prob", errors=[E(T((2, 3)), eps="a", _name="eps_str")], extra=[
        S(T((2, 3)), eps=0.2), S(T((2, 3), F64), eps=0.0),
        S(T((2,), data=[NAN, 0.5]), eps=0.2, _fd=False),
        *(S(T((5,), data=[0.0, 1.0, -0.5, 1.5, 0.5]), eps=e, _fd=False) for e in (None, .25, -.5))]),
    # ---- rounding -----------------------------------------------------------------------------
    _unary("floor", dtypes=(I64,), errors=[E(T((2, 3), BOOL), _name="bool")],
           extra=[S(T((8,), data=[-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49, -0.51]), _fd=False)]),
    _unary("ceil", dtypes=(I64,), errors=[E(T((2, 3), BOOL), _name="bool")],
           extra=[S(T((8,), data=[-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49, -0.51]), _fd=False)]),
    _unary("trunc", dtypes=(I64,), errors=[E(T((2, 3), BOOL), _name="bool")],
           extra=[S(T((8,), data=[-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49, -0.51]), _fd=False)],
           variants={"alias": lambda m, x: m.fix(x)}),
    _unary("round", dtypes=(I64,),
           extra=[
               S(T((8,), data=[-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49, -0.51]), _fd=False),
               S(T((2, 3)), decimals=1),
               S(T((2, 3), F64), decimals=2),
               S(T((2, 3), layout="T"), decimals=1),
               S(T(()), decimals=1),
               S(T((6,), F64, data=[0.25, 0.35, 1.05, -0.15, 2.675, -0.05]), decimals=1,
                 _fd=False),
               S(T((6,), data=[0.25, 0.35, 1.05, -0.15, 2.675, -0.05]), decimals=1, _fd=False),
               S(T((5,), data=[15.0, 25.0, -35.0, 14.9, 0.0]), decimals=-1, _fd=False),
               S(T((5,), F64, data=[150.0, 250.0, -349.0, 14.9, 51.0]), decimals=-2,
                 _fd=False),
               S(T((2, 3)), decimals=0),
           ],
           errors=[E(T((2, 3), BOOL), _name="bool"),
                   E(T((2, 3), I64), decimals=1, _name="int_decimals")]),
    _unary("frac", dtypes=(),
           extra=[S(T((6,), data=[-2.5, -1.25, -0.5, 0.5, 1.75, 3.0]), _fd=False)],
           errors=[E(T((2, 3), I64), _name="int"), E(T((2, 3), BOOL), _name="bool")]),
    OpInfo(
        "nan_to_num", _fn("nan_to_num"),
        unary_samples() + [
            S(T((6,), data=[NAN, INF, -INF, 1.5, -0.0, 2.0]), _fd=False),
            S(T((6,), F64, data=[NAN, INF, -INF, 1.5, -0.0, 2.0]), _fd=False),
            S(T((6,), data=[NAN, INF, -INF, 1.5, -0.0, 2.0]), nan=0.5, posinf=10.0, neginf=-10.0,
              _fd=False),
            S(T((2, 3), F64, data=[[NAN, INF, 1.0], [-INF, 2.0, NAN]]), posinf=1e3, _fd=False),
            S(T((2, 3), layout="T", data=[[NAN, INF], [1.0, -INF], [2.0, NAN]]), neginf=-5.0,
              _fd=False),
            S(T((2, 3)), nan=1.0, posinf=2.0, neginf=-2.0),
            S(T((2, 3), I64), nan=1.0),
        ],
        variants={"method": _meth("nan_to_num")},
    ),
    # ---- clamp --------------------------------------------------------------------------------
    OpInfo(
        "clamp", _fn("clamp"),
        [
            S(T((2, 3)), -0.5, 0.5),
            S(T((2, 3), F64), min=-1.0, max=1.0),
            S(T((2, 3)), min=-0.5),
            S(T((2, 3)), max=0.5),
            S(T((2, 3)), None, 0.5),
            S(T(()), -0.5, 0.5),
            S(T((0,)), -1.0, 1.0),
            S(T((2, 3), layout="T"), -0.5, 0.5),
            S(T((2, 3), expand=(3,)), 0.0, 1.0),
            S(T((2, 3)), 1.0, -1.0),
            S(T((5,), data=[-1.0, -0.5, 0.0, 0.5, 1.0]), -0.5, 0.5, _fd=False),
            S(T((2, 3)), T((3,)), T((2, 1))),
            S(T((2, 3), F64), T((2, 3), F64), T((2, 3), F64)),
            S(T((2, 3)), T((3,))),
            S(T((2, 3)), None, T((2, 1), F64)),
            S(T((3,)), T((2, 1)), T((2, 3))),
            S(T((2, 3)), T((3,), rg=False), T(())),
            S(T((5,), data=[-1.0, -0.5, 0.0, 0.5, 1.0]), T((5,), data=[-0.5] * 5),
              T((5,), data=[0.5] * 5), _fd=False),
            S(T((2, 3), I64), -1, 1),
            S(T((2, 3), I64), -0.5, 1.5),
            S(T((2, 3), I64), T((3,), I64), T((3,), I64, data=[0, 1, 3])),
            S(T((2, 3), BOOL), 0, 1),
        ],
        variants={"method": _meth("clamp"), "clip": _fn("clip"), "clip_method": _meth("clip")},
        errors=[
            E(T((2, 3)), _name="no_bounds"),
            E(T((2, 3)), T((3,)), 1.0, _name="tensor_min_scalar_max"),
            E(T((2, 3)), T((4,)), _name="min_broadcast_mismatch"),
        ],
    ),
    OpInfo(
        "clamp_min", _fn("clamp_min"),
        [
            S(T((2, 3)), -0.5),
            S(T((2, 3), F64), 0.25),
            S(T(()), 0.0),
            S(T((0,)), 0.0),
            S(T((2, 3), layout="T"), 0.5),
            S(T((2, 3)), T((3,))),
            S(T((2, 3)), T((2, 1), F64)),
            S(T((3,), data=[-1.0, 0.0, 1.0]), 0.0, _fd=False),
            S(T((2, 3), I64), 0),
            S(T((2, 3), I64), 0.5),
        ],
        variants={"method": _meth("clamp_min")},
        errors=[E(T((2, 3)), T((4,)), _name="broadcast_mismatch")],
    ),
    OpInfo(
        "clamp_max", _fn("clamp_max"),
        [
            S(T((2, 3)), 0.5),
            S(T((2, 3), F64), -0.25),
            S(T(()), 0.0),
            S(T((0,)), 0.0),
            S(T((2, 3), expand=(3,)), 0.5),
            S(T((2, 3)), T((3,))),
            S(T((2, 3)), T((), F64)),
            S(T((3,), data=[-1.0, 0.0, 1.0]), 0.0, _fd=False),
            S(T((2, 3), I64), 1),
            S(T((2, 3), BOOL), 0),
        ],
        variants={"method": _meth("clamp_max")},
        errors=[E(T((2, 3)), T((4,)), _name="broadcast_mismatch")],
    ),
    # ---- activations (torch.nn.functional) ----------------------------------------------------
    _act("relu", unary_samples((I64,)) + [S(T((3,), data=_AT_ZERO), _fd=False)], inplace=True,
         errors=[E(T((2, 3), BOOL), _name="bool")]),
    _act("relu6", unary_samples((I64,)) + [
            S(T((7,), data=[-1.0, 0.0, 3.0, 6.0, 7.0, 5.9, 0.1]), _fd=False),
            S(T((2, 3), F64, data=[[-1.0, 2.0, 5.0], [6.5, 0.5, 3.0]]))],
         inplace=True, errors=[E(T((2, 3), BOOL), _name="bool")]),
    _act("gelu", unary_samples(()) + [
            S(T((2, 3)), approximate="tanh"),
            S(T((2, 3), F64), approximate="tanh"),
            S(T((2, 3), layout="T"), approximate="tanh"),
            S(T((2, 3), F64), approximate="none"),
            S(T((5,), data=[-10.0, -3.0, 0.0, 3.0, 10.0]), approximate="tanh", _fd=False)],
         errors=[E(T((2, 3), I64), _name="int"),
                 E(T((2, 3)), approximate="bad", _name="bad_approximate")]),
    _act("silu", unary_samples(()), inplace=True, errors=[E(T((2, 3), I64), _name="int")]),
    _act("softplus", unary_samples(()) + [
            S(T((2, 3)), beta=2.0),
            S(T((2, 3), F64), beta=0.5, threshold=1.0),
            S(T((4,), data=[-30.0, 0.0, 10.0, 25.0]), _fd=False),
            S(T((4,), F64, data=[-3.0, 0.2, 0.6, 2.0]), beta=2.0, threshold=1.0, _fd=False)],
         errors=[E(T((2, 3), I64), _name="int")]),
    _act("elu", unary_samples(()) + [
            S(T((2, 3)), alpha=0.5),
            S(T((2, 3), F64), alpha=2.0),
            S(T((3,), data=_AT_ZERO), _fd=False)],
         inplace=True, errors=[E(T((2, 3), I64), _name="int")]),
    _act("leaky_relu", unary_samples(()) + [
            S(T((2, 3)), negative_slope=0.2),
            S(T((2, 3), F64), negative_slope=-0.5),
            S(T((3,), data=_AT_ZERO), _fd=False)],
         # PyTorch refuses the backward of an in-place leaky_relu with a negative slope
         inplace=lambda s: s.kwargs.get("negative_slope", 0.0) >= 0,
         errors=[E(T((2, 3), I64), _name="int"),
                 E(T((2, 3)), _fn=lambda m, x: m.nn.functional.leaky_relu(
                     x * 1, -0.5, inplace=True).sum().backward(),
                   _name="inplace_negative_slope_backward")]),
    _act("hardtanh", unary_samples((I64,)) + [
            S(T((2, 3)), min_val=-0.5, max_val=0.5),
            S(T((2, 3), F64), min_val=-2.0, max_val=0.0),
            S(T((5,), data=[-2.0, -1.0, 0.0, 1.0, 2.0]), _fd=False)],
         inplace=True,
         errors=[E(T((2, 3), BOOL), _name="bool"),
                 E(T((2, 3)), min_val=1.0, max_val=-1.0, _name="min_above_max")]),
    # PyTorch's gradient at NaN differs between its kernels' vectorized body and their scalar
    # tail (0 or g for the shrinks, NaN or g for hardswish); gradrs follows the body, which all
    # but a tensor's last few elements take: the NaN samples are long enough to run in it.
    # PyTorch's selu is its elu op with SELU's constants (EluBackward0 / EluBackward1)
    _act("selu", unary_samples(()) + [S(T((3,), data=_AT_ZERO), _fd=False)], inplace=True,
         errors=[E(T((2, 3), I64), _name="int"), E(T((2, 3), BOOL), _name="bool")]),
    _act("celu", unary_samples(()) + [
            S(T((2, 3)), alpha=0.5),
            S(T((2, 3), F64), alpha=2.0),
            S(T((2, 3), F64), alpha=-1.5),
            S(T((3,), data=_AT_ZERO), _fd=False)],
         # PyTorch refuses the backward of an in-place celu with a negative alpha
         inplace=lambda s: s.kwargs.get("alpha", 1.0) >= 0,
         errors=[E(T((2, 3), I64), _name="int"),
                 E(T((2, 3)), alpha=0.0, _name="alpha_zero"),
                 E(T((2, 3)), _fn=lambda m, x: m.nn.functional.celu(
                     x * 1, -0.5, inplace=True).sum().backward(),
                   _name="inplace_negative_alpha_backward")]),
    _act("mish", unary_samples(()) + [
            S(T((6,), data=[-30.0, -1.0, 0.0, 20.0, 40.0, 100.0]), _fd=False),
            S(T((2,), F64, data=[INF, -INF]), _fd=False),
            S(T((64,), F64, data=[NAN] * 64), _fd=False)],
         inplace=True, errors=[E(T((2, 3), I64), _name="int")]),
    # hardsigmoid's first derivative has no derivative in PyTorch (its node NotImplemented)
    _act("hardsigmoid", unary_samples(()) + [
            S(T((6,), data=[-4.0, -3.0, -2.9, 2.9, 3.0, 4.0]), _fd=False),
            S(T((5,), F64, data=[-3.5, -1.0, 0.5, 2.0, 3.5])),
            S(T((2,), F64, data=[INF, -INF]), _fd=False),
            S(T((64,), F64, data=[NAN] * 64), _fd=False)],
         inplace=True, gradgrad=False,
         errors=[E(T((2, 3), I64), _name="int"),
                 E(T((2, 3)), _fn=lambda m, x: m.autograd.grad(m.autograd.grad(
                     m.nn.functional.hardsigmoid(x).sum(), x, create_graph=True)[0].sum(), x),
                   _name="double_backward")]),
    _act("hardswish", unary_samples(()) + [
            S(T((7,), data=[-4.0, -3.0, -1.0, 0.0, 1.0, 3.0, 4.0]), _fd=False),
            S(T((5,), F64, data=[-3.5, -1.0, 0.5, 2.0, 3.5])),
            S(T((2,), F64, data=[INF, -INF]), _fd=False),
            S(T((64,), F64, data=[NAN] * 64), _fd=False)],
         inplace=True, errors=[E(T((2, 3), I64), _name="int")]),
    _act("softshrink", unary_samples(()) + [
            S(T((2, 3)), lambd=0.2),
            S(T((2, 3), F64), lambd=1.0),
            S(T((2, 3)), lambd=0.0, _fd=False),
            S(T((7,), F64, data=[-0.5, 0.5, -0.6, 0.6, 0.0, INF, -INF]), _fd=False),
            S(T((64,), F64, data=[NAN] * 64), _fd=False)],
         errors=[E(T((2, 3), I64), _name="int"), E(T((2, 3), BOOL), _name="bool"),
                 E(T((2, 3)), lambd=-1.0, _name="negative_lambd"),
                 E(T((2, 3), F64), lambd=-1.0, _name="negative_lambd_f64")]),
    _act("hardshrink", unary_samples(()) + [
            S(T((2, 3)), lambd=0.2),
            S(T((2, 3), F64), lambd=1.0),
            S(T((7,), F64, data=[-0.5, 0.5, -0.6, 0.6, 0.0, INF, -INF]), _fd=False),
            S(T((64,), F64, data=[NAN] * 64), _fd=False)],
         variants={"method": lambda m, x, **k: x.hardshrink(**k),
                   "function": lambda m, x, **k: m.hardshrink(x, **k)},
         errors=[E(T((2, 3), I64), _name="int"), E(T((2, 3), BOOL), _name="bool")]),
    _act("threshold", [dataclasses.replace(s, kwargs={"threshold": 0.1, "value": -2.0})
                       for s in unary_samples((I64,))] + [
            S(T((2, 3), F64), threshold=-0.5, value=20.0),
            S(T((2, 3), I64), threshold=-0.5, value=9.7),
            S(T((7,), F64, data=[-0.5, 0.5, -0.6, 0.6, 0.0, INF, -INF]), threshold=0.5,
              value=7.0, _fd=False),
            S(T((64,), F64, data=[NAN] * 64), threshold=0.5, value=7.0, _fd=False)],
         inplace=True,
         errors=[E(T((2, 3), BOOL), threshold=0.5, value=1.0, _name="bool")]),
    _act("sigmoid", unary_samples()),
    _act("tanh", unary_samples()),
    # ---- binary -------------------------------------------------------------------------------
    _tbinary("maximum",
             extra=[S(T((2, 4), domain="ties"), T((2, 4), domain="ties"), _fd=False),
                    S(T((3,), data=[NAN, 1.0, 2.0]), T((3,), data=[0.0, NAN, 3.0]), _fd=False)],
             errors=[E(T((2, 3)), 2.0, _name="scalar_other")],
             variants={"max": lambda m, a, b: m.max(a, b)}),
    _tbinary("minimum",
             extra=[S(T((2, 4), domain="ties"), T((2, 4), domain="ties"), _fd=False),
                    S(T((3,), data=[NAN, 1.0, 2.0]), T((3,), data=[0.0, NAN, 3.0]), _fd=False)],
             errors=[E(T((2, 3)), 2.0, _name="scalar_other")],
             variants={"min": lambda m, a, b: m.min(a, b)}),
    _tbinary("atan2", alias="arctan2",
             # PyTorch's atan2 backward fails for a bool input ("Negation ... on a bool tensor")
             exclude=("b_2x3__f32_3",),
             extra=[S(T((2, 3), BOOL), T((3,), rg=False)),
                    S(T((4,), data=[0.0, 1.0, -1.0, 0.0]), T((4,), data=[1.0, 0.0, 0.0, -1.0]),
                      _fd=False)],
             errors=[E(T((2, 3)), 2.0, _name="scalar_other")]),
    _binary("xlogy", domain=("real", "positive"),
            extra=[S(T((4,), data=[0.0, 0.0, 1.0, 2.0]), T((4,), data=[NAN, 0.0, 0.0, 3.0]),
                     _fd=False)]),
    _tbinary("hypot", dtypes=(F32, F64),
             errors=[E(T((2, 3), I64), T((2, 3), I64), _name="int"),
                     E(T((2, 3)), 2.0, _name="scalar_other")]),
    _binary("copysign",
            extra=[S(T((4,), data=[0.0, -0.0, 1.0, -2.0]), T((4,), data=[-1.0, 1.0, -0.0, 0.0]),
                     _fd=False)]),
    _tbinary("logaddexp", dtypes=(F32, F64),
             extra=[S(T((4,), data=[INF, -INF, 1.0, NAN]), T((4,), data=[INF, -INF, INF, 0.0]),
                      _fd=False)],
             errors=[E(T((2, 3), I64), T((2, 3), I64), _name="int"),
                     E(T((2, 3)), 2.0, _name="scalar_other")]),
    _tbinary("logaddexp2", dtypes=(F32, F64),
             extra=[S(T((4,), data=[INF, -INF, 1.0, NAN]), T((4,), data=[INF, -INF, INF, 0.0]),
                      _fd=False)],
             errors=[E(T((2, 3), BOOL), T((2, 3), BOOL), _name="bool")]),
    # heaviside wants one dtype for both tensors: the shared samples of mixed dtypes are left out.
    OpInfo("heaviside", lambda m, a, b: m.heaviside(a, b),
           [s for s in tensor_only(binary_samples())
            if len({a.dtype for _, a in s.tensor_args}) == 1]
           + [S(T((4,), data=[0.0, -0.0, 2.0, -1.0]), T((4,), data=[0.5, 0.5, 0.5, 0.5])),
              S(T((4,), I64, data=[0, -3, 2, 0]), T((4,), I64, data=[5, 6, 7, 8]))],
           variants={"method": lambda m, a, b: a.heaviside(b)}, differentiable=False,
           errors=[E(T((2, 3)), T((3,), F64), _name="dtype_mismatch"),
                   E(T((2, 3), I64), T((3,)), _name="dtype_mismatch_int"),
                   E(T((2, 3)), T((2, 3)),
                     _fn=lambda m, a, b: m.heaviside(a, b).sum().backward(),
                     _name="backward")]),
    _binary("fmod", domain=("real", "nonzero"), dtypes=(F32, F64, I64), scalars=(2.5, -1.5, 2),
            extra=[S(T((2, 3), I64, data=[[-7, 7, -1], [5, -5, 0]]),
                     T((3,), I64, data=[3, -3, 2])),
                   S(T((2, 3), I64, data=[[-7, 7, -1], [5, -5, 0]]), -3)],
            errors=[E(T((2, 3), BOOL), T((2, 3), BOOL), _name="bool"),
                    E(T((2, 3), I64), 0, _name="int_by_zero"),
                    E(T((2, 3), I64), T((3,), I64, data=[1, 0, 2]), _name="int_by_zero_tensor")]),
    _binary("remainder", operator=lambda m, a, b: a % b, domain=("real", "nonzero"),
            dtypes=(F32, F64, I64), scalars=(2.5, -1.5, 2),
            extra=[S(T((2, 3), I64, data=[[-7, 7, -1], [5, -5, 0]]),
                     T((3,), I64, data=[3, -3, 2])),
                   S(T((2, 3), I64, data=[[-7, 7, -1], [5, -5, 0]]), -3),
                   S(T((4,), data=[-3.0, 3.0, -0.5, 0.5]), T((4,), data=[2.0, -2.0, 2.0, -2.0]))],
            errors=[E(T((2, 3), BOOL), T((2, 3), BOOL), _name="bool"),
                    E(T((2, 3), I64), 0, _name="int_by_zero")]),
    OpInfo(
        "div_rounding", lambda m, a, b, **k: m.div(a, b, **k),
        [S(*args, rounding_mode=mode, _fd=not any(isinstance(a, T) and a.data is not None
                                                 for a in args))
         for mode in ("floor", "trunc") for args in [
            (T((2, 3)), T((2, 3))),
            (T((2, 3), F64), T((3,), F64)),
            (T((2, 3)), 1.5),
            (T(()), T((2, 3))),
            (T((0,)), T((0,))),
            (T((2, 3), layout="T"), T((2, 3), expand=(3,))),
            (T((6,), data=[-7.0, 7.0, -1.0, 1.0, 0.0, -0.5]), T((6,), data=[2.0] * 6)),
            (T((2, 3), I64, data=[[-7, 7, -1], [5, -5, 0]]), T((3,), I64, data=[2, -2, 3])),
            (T((2, 3), I64, data=[[-7, 7, -1], [5, -5, 0]]), 2),
            (T((2, 3), I64), 2.5),
            (T((3,), data=[1.0, -1.0, 0.0]), T((3,), data=[0.0, 0.0, 0.0])),
        ]] + [S(T((2, 3)), T((2, 3)), rounding_mode=None)],
        domain=("real", "nonzero"),
        variants={"method": Variant(lambda m, a, b, **k: a.div(b, **k), tensor_first)},
        errors=[
            E(T((2, 3)), T((2, 3)), rounding_mode="round", _name="bad_mode"),
            E(T((2, 3), I64), 0, rounding_mode="floor", _name="int_by_zero_floor"),
            E(T((2, 3), I64), T((3,), I64, data=[1, 0, 2]), rounding_mode="trunc",
              _name="int_by_zero_trunc"),
        ],
    ),
    _binary("floor_divide", operator=lambda m, a, b: a // b, domain=("real", "nonzero"),
            dtypes=(F32, F64, I64), differentiable=False,
            extra=[S(T((2, 3), I64, data=[[-7, 7, -1], [5, -5, 0]]),
                     T((3,), I64, data=[2, -2, 3]))],
            errors=[E(T((2, 3), BOOL), T((2, 3), BOOL), _name="bool"),
                    E(T((2, 3), I64), 0, _name="int_by_zero"),
                    E(T((2, 3)), T((2, 3)),
                      _fn=lambda m, a, b: m.floor_divide(a, b).sum().backward(),
                      _name="backward")]),
    OpInfo("__rmod__", lambda m, x, s: s % x, rbinary_samples(), domain="nonzero",
           differentiable=False),
    OpInfo("__rfloordiv__", lambda m, x, s: s // x, rbinary_samples(), domain="nonzero",
           differentiable=False),
    _tbinary("logical_and", domain=("ties", "ties"), differentiable=False,
             errors=[E(T((2, 3)), 2.0, _name="scalar_other")]),
    _tbinary("logical_or", domain=("ties", "ties"), differentiable=False),
    _tbinary("logical_xor", domain=("ties", "ties"), differentiable=False),
    _unary("logical_not", domain="ties", differentiable=False,
           extra=[S(T((3,), data=[NAN, 0.0, -0.0]))]),
    OpInfo(
        "lerp", lambda m, a, b, w: m.lerp(a, b, w),
        [
            S(T((2, 3)), T((2, 3)), 0.3),
            S(T((2, 3), F64), T((2, 3), F64), 0.75),
            S(T((2, 3)), T((3,)), 1.5),
            S(T((3,)), T((2, 3)), -0.5),
            S(T((2, 3)), T((2, 3)), T((2, 3))),
            S(T((2, 3), F64), T((3,), F64), T((2, 1), F64)),
            S(T((2, 1)), T((3,)), T(())),
            S(T(()), T(()), T(())),
            S(T((0,)), T((0,)), 0.5),
            S(T((2, 3), layout="T"), T((2, 3), expand=(3,)), T((3,), rg=False)),
            S(T((2, 3)), T((2, 3), rg=False), 0.5),
            S(T((2, 3)), T((2, 3)), T((2, 3), data=[[0.0, 0.5, 1.0], [0.49, 0.51, 2.0]])),
        ],
        variants={"method": lambda m, a, b, w: a.lerp(b, w)},
        errors=[
            E(T((2, 3)), T((2, 3), F64), 0.5, _name="dtype_mismatch"),
            E(T((2, 3)), T((2, 3)), T((2, 3), F64), _name="weight_dtype_mismatch"),
            E(T((2, 3), I64), T((2, 3), I64), 0.5, _name="int"),
            E(T((2, 3)), T((4,)), 0.5, _name="broadcast_mismatch"),
        ],
    ),
    OpInfo(
        "addcmul", lambda m, a, b, c, **k: m.addcmul(a, b, c, **k),
        [
            S(T((2, 3)), T((2, 3)), T((2, 3))),
            S(T((2, 3), F64), T((2, 3), F64), T((2, 3), F64), value=0.5),
            S(T((2, 3)), T((3,)), T((2, 1)), value=-2),
            S(T((3,)), T((2, 3)), T((2, 3))),
            S(T(()), T(()), T(()), value=3.0),
            S(T((0,)), T((0,)), T((0,))),
            S(T((2, 3), layout="T"), T((2, 3), expand=(3,)), T((2, 3), rg=False)),
            S(T((2, 3)), T((2, 3), F64), T((2, 3))),
            S(T((2, 3), I64), T((2, 3), I64), T((3,), I64), value=2),
            S(T((2, 3), I64), T((2, 3), I64), T((3,), I64), value=0.5),
        ],
        variants={"method": lambda m, a, b, c, **k: a.addcmul(b, c, **k)},
        errors=[
            E(T((2, 3)), T((4,)), T((2, 3)), _name="broadcast_mismatch"),
            E(T((2, 3)), T((2, 3)), T((3, 3)), _name="broadcast_mismatch_2d"),
        ],
    ),
    OpInfo(
        "addcdiv", lambda m, a, b, c, **k: m.addcdiv(a, b, c, **k),
        [
            S(T((2, 3)), T((2, 3)), T((2, 3))),
            S(T((2, 3), F64), T((2, 3), F64), T((2, 3), F64), value=0.5),
            S(T((2, 3)), T((3,)), T((2, 1)), value=-2),
            S(T((3,)), T((2, 3)), T((2, 3))),
            S(T(()), T(()), T(()), value=3.0),
            S(T((0,)), T((0,)), T((0,))),
            S(T((2, 3), layout="T"), T((2, 3), expand=(3,)), T((2, 3), rg=False)),
        ],
        domain=("real", "real", "nonzero"),
        variants={"method": lambda m, a, b, c, **k: a.addcdiv(b, c, **k)},
        errors=[
            E(T((2, 3)), T((4,)), T((2, 3)), _name="broadcast_mismatch"),
            E(T((2, 3), I64), T((2, 3), I64), T((2, 3), I64), _name="int"),
        ],
    ),
    # ---- reductions and scans -----------------------------------------------------------------
    OpInfo(
        "prod", _fn("prod"),
        [
            S(T((2, 3))),
            S(T((2, 3), F64)),
            S(T(())),
            S(T((0,))),
            S(T((2, 3)), 1),
            S(T((2, 3)), dim=0, keepdim=True),
            S(T((2, 3, 2), F64), -1),
            S(T(()), 0),
            S(T((2, 0)), 1),
            S(T((2, 0)), dim=0),
            S(T((2, 3), layout="T"), 0),
            S(T((2, 3), expand=(3,)), dim=0),
            S(T((2, 3), data=[[1.5, 0.0, -2.0], [0.0, 0.0, 3.0]])),
            S(T((2, 3), data=[[1.5, 0.0, -2.0], [0.0, 0.0, 3.0]]), 1),
            S(T((2, 3), F64, data=[[1.5, 0.0, -2.0], [0.0, 0.5, 3.0]]), 0, keepdim=True),
            S(T((2, 3)), dtype="float64"),
            S(T((2, 3), I64)),
            S(T((2, 3), I64), 1),
            S(T((2, 3), BOOL)),
        ],
        variants={"method": _meth("prod")},
        errors=[E(T((2, 3)), 2, _name="dim_out_of_range"),
                E(T((2, 3)), (0, 1), _name="tuple_dim"),
                E(T(()), 1, _name="dim_out_of_range_0d")],
    ),
    *[OpInfo(
        name, _fn(name),
        [
            S(T((2, 3))),
            S(T((2, 3), F64)),
            S(T(())),
            S(T((2, 3)), 1),
            S(T((2, 3)), dim=0, keepdim=True),
            S(T((2, 3, 2), F64), -1),
            S(T(()), 0),
            S(T(()), dim=-1, keepdim=True),
            S(T((2, 0)), 0),
            S(T((2, 3), layout="T"), 1),
            S(T((2, 3), expand=(3,)), 0),
            S(T((2, 4), domain="ties"), _fd=False),
            S(T((2, 4), domain="ties"), 1, _fd=False),
            S(T((4,), data=[1.0, NAN, 3.0, NAN]), _fd=False),
            S(T((2, 2), data=[[1.0, NAN], [2.0, 0.0]]), 1, _fd=False),
            S(T((2, 3), I64)),
            S(T((2, 3), I64, domain="ties"), 1),
            S(T((2, 3), BOOL)),
            S(T((2, 3), BOOL), 0),
        ],
        variants={"method": _meth(name)},
        errors=[E(T((0,)), _name="empty"),
                E(T((2, 0)), 1, _name="empty_dim"),
                E(T((2, 3)), 2, _name="dim_out_of_range")],
    ) for name in ("max", "min")],
    *[OpInfo(
        name, _fn(name),
        [
            S(T((2, 3))),
            S(T((2, 3), F64)),
            S(T(())),
            S(T((2, 3)), 1),
            S(T((2, 3)), dim=0, keepdim=True),
            S(T((2, 3, 2)), (0, 2)),
            S(T((2, 3, 2), F64), dim=(-1, 0), keepdim=True),
            S(T((2, 3)), dim=()),
            S(T(()), 0),
            S(T((2, 0)), 0),
            S(T((2, 3), layout="T"), 1),
            S(T((2, 3), expand=(3,)), 0),
            S(T((2, 4), domain="ties"), _fd=False),
            S(T((2, 4), domain="ties"), 1, _fd=False),
            S(T((2, 2, 2), domain="ties"), (0, 2), _fd=False),
            S(T((2, 2), data=[[1.0, NAN], [2.0, 0.0]]), 1, _fd=False),
            S(T((2, 3), I64)),
            S(T((2, 3), BOOL), 1),
        ],
        variants={"method": _meth(name)},
        errors=[E(T((0,)), _name="empty"),
                E(T((2, 0)), 1, _name="empty_dim"),
                E(T((2, 3)), 2, _name="dim_out_of_range"),
                E(T((2, 3)), (0, 0), _name="dim_repeated")],
    ) for name in ("amax", "amin")],
    *[OpInfo(
        name, _fn(name),
        [
            S(T((2, 3))),
            S(T((2, 3), F64)),
            S(T(())),
            S(T((2, 3)), 1),
            S(T((2, 3)), dim=0, keepdim=True),
            S(T((2, 3)), keepdim=True),
            S(T((2, 3, 2)), -1),
            S(T(()), 0),
            S(T((2, 0)), 0),
            S(T((2, 3), layout="T"), 1),
            S(T((2, 4), domain="ties")),
            S(T((2, 4), domain="ties"), 1),
            S(T((4,), data=[1.0, NAN, 3.0, NAN])),
            S(T((2, 3), I64)),
            S(T((2, 3), I64, domain="ties"), 0),
        ],
        variants={"method": _meth(name)},
        differentiable=False,
        errors=[E(T((0,)), _name="empty"),
                E(T((2, 3)), 2, _name="dim_out_of_range"),
                E(T((2, 3), BOOL), _name="bool")],
    ) for name in ("argmax", "argmin")],
    # sorting: every sort is stable, so ties come out in PyTorch's (stable-looking) order on
    # these short rows
    *[OpInfo(
        name, _fn(name),
        [
            S(T((2, 3))),
            S(T((2, 3), F64), 0),
            S(T((2, 3)), 1, True),
            S(T((2, 3)), dim=0, descending=True),
            S(T((2, 3, 2)), 1),
            S(T(())),
            S(T(()), 0, True),
            S(T((0,))),
            S(T((2, 0)), 1),
            S(T((2, 3), layout="T"), 0),
            S(T((2, 3), expand=(3,)), 0),
            S(T((2, 4), domain="ties"), _fd=False),
            S(T((2, 4), domain="ties"), descending=True, _fd=False),
            S(T((2, 4), data=[[1.0, NAN, -0.0, 0.0], [NAN, 2.0, NAN, -1.0]]), _fd=False),
            S(T((2, 4), data=[[1.0, NAN, -0.0, 0.0], [NAN, 2.0, NAN, -1.0]]), 1, True,
              _fd=False),
            S(T((2, 3), I64, domain="ties"), 1),
            S(T((2, 3), I64), 0, True),
            S(T((2, 3), BOOL), 1),
            # past 64 elements (and distinct in float16, where ties would be unordered)
            S(T((1, 70), data=[[(i * 37) % 70 - 35.5 for i in range(70)]]), 1),
        ],
        variants={"method": _meth(name)},
        differentiable=name == "sort",
        errors=[E(T((2, 3)), 2, _name="dim_out_of_range"),
                E(T(()), 1, _name="0d_dim_out_of_range")],
    ) for name in ("sort", "argsort")],
    OpInfo(
        "msort", _fn("msort"),
        [S(T((3, 2))), S(T((3,), F64)), S(T(())), S(T((3, 2), layout="T")),
         S(T((3, 2), I64)), S(T((4, 2), domain="ties"), _fd=False)],
        variants={"method": _meth("msort")},
    ),
    OpInfo(
        "topk", _fn("topk"),
        [
            S(T((2, 3)), 2),
            S(T((2, 3), F64), 1, 0),
            S(T((2, 3)), 3, largest=False),
            S(T((2, 3)), 2, dim=0, largest=False, sorted=True),
            S(T((2, 5, 2)), 2, 1),
            S(T((2, 3)), 0),
            S(T(()), 1),
            S(T(()), 0),
            S(T((2, 3), layout="T"), 1, 0),
            S(T((4,), data=[1.0, NAN, 3.0, -2.0]), 2, _fd=False),
            S(T((4,), data=[1.0, NAN, 3.0, -2.0]), 2, largest=False, _fd=False),
            S(T((2, 3), I64, data=[[3, -1, 2], [0, 5, 4]]), 2),
        ],
        variants={"method": _meth("topk")},
        errors=[E(T((2, 3)), 4, _name="k_too_large"),
                E(T((2, 3), BOOL), 1, _name="bool"),
                E(T((2, 3)), -1, _name="k_negative"),
                E(T((2, 3)), 1, 2, _name="dim_out_of_range")],
    ),
    OpInfo(
        "kthvalue", _fn("kthvalue"),
        [
            S(T((2, 3)), 2),
            S(T((2, 3), F64), 1, 0),
            S(T((2, 3)), 3, keepdim=True),
            S(T((2, 5, 2)), 4, 1),
            S(T(()), 1),
            S(T((2, 3), layout="T"), 2, 0, True),
            S(T((4,), data=[1.0, NAN, 3.0, -2.0]), 4, _fd=False),
            S(T((4,), data=[1.0, NAN, 3.0, -2.0]), 2, _fd=False),
            S(T((2, 3), I64, data=[[3, -1, 2], [0, 5, 4]]), 2),
        ],
        variants={"method": _meth("kthvalue")},
        errors=[E(T((2, 3)), 4, _name="k_too_large"),
                E(T((2, 3)), 0, _name="k_zero"),
                E(T((2, 0)), 1, _name="empty_dim"),
                E(T((2, 3)), 1, 2, _name="dim_out_of_range"),
                E(T((2, 3), BOOL), 1, _name="bool")],
    ),
    OpInfo(
        "median", _fn("median"),
        [
            S(T((2, 3))),
            S(T((2, 4), F64)),
            S(T((2, 3)), 1),
            S(T((2, 4), F64), 1),
            S(T((2, 3)), dim=0, keepdim=True),
            S(T((2, 5, 2)), 1),
            S(T(())),
            S(T(()), 0),
            S(T((0,))),
            S(T((0, 3)), 1),
            S(T((2, 3), layout="T"), 0),
            S(T((2, 4), domain="ties"), _fd=False),
            S(T((2, 4), data=[[1.0, NAN, 0.0, NAN], [3.0, 1.0, 2.0, 0.0]]), 1, _fd=False),
            S(T((4,), data=[1.0, 2.0, NAN, 4.0]), _fd=False),
            S(T((2, 3), I64, data=[[3, -1, 2], [0, 5, 4]])),
            S(T((2, 4), I64, data=[[3, -1, 2, 7], [0, 5, 4, -2]]), 1),
        ],
        variants={"method": _meth("median")},
        errors=[E(T((0, 3)), 0, _name="empty_dim"),
                E(T((2, 3), BOOL), _name="bool"),
                E(T((2, 3), BOOL), 1, _name="bool_dim"),
                E(T((2, 3)), 2, _name="dim_out_of_range")],
    ),
    *[OpInfo(
        name, _fn(name),
        [
            S(T((2, 3))),
            S(T((2, 3), F64)),
            S(T((2, 3)), 1),
            S(T((2, 3)), dim=0, keepdim=True),
            S(T((2, 3)), dim=1, unbiased=False),
            S(T((2, 3)), 1, True, True),
            S(T((2, 3)), False),
            S(T((2, 3, 2)), dim=(0, 2), correction=0),
            S(T((2, 3), F64), correction=2),
            S(T((2, 3)), dim=1, correction=0, keepdim=True),
            S(T((2, 3)), dim=None, correction=0),
            S(T(()), _fd=False),
            S(T(()), correction=0),
            S(T((0,))),
            S(T((2, 3), layout="T"), dim=0),
            S(T((2, 3), expand=(3,)), dim=0),
            S(T((2, 3), data=[[1.0, 1.0, 1.0], [2.0, 0.0, 1.0]]), dim=1, _fd=False),
        ],
        variants={"method": _meth(name)},
        errors=[E(T((2, 3), I64), _name="int"),
                E(T((2, 3)), 2, _name="dim_out_of_range"),
                E(T((2, 3)), 1, unbiased=True, correction=1, _name="unbiased_and_correction")],
    ) for name in ("var", "std")],
    OpInfo(
        "norm", _fn("norm"),
        [
            S(T((2, 3))),
            S(T((2, 3), F64)),
            S(T((2, 3)), 1),
            S(T((2, 3)), p=3),
            S(T((2, 3), F64), p=INF),
            S(T((2, 3)), p=-INF),
            S(T((2, 3)), p="fro"),
            S(T((2, 3)), p=0),
            S(T((2, 3)), p=2, dim=1),
            S(T((2, 3), F64), p=1, dim=0, keepdim=True),
            S(T((2, 3, 2)), p="fro", dim=(0, 2)),
            S(T((2, 3)), p=INF, dim=-1),
            S(T((2, 3)), p=3, dim=1, keepdim=True),
            S(T(())),
            S(T((0,))),
            S(T((2, 3), layout="T"), p=2, dim=0),
            S(T((2, 3), expand=(3,)), p=1),
            S(T((2, 3), data=[[0.0, 0.0, 0.0], [1.0, -2.0, 0.0]]), p=2, dim=1, _fd=False),
            S(T((2, 3), data=[[0.0, 0.0, 0.0], [1.0, -2.0, 0.0]]), p=1, _fd=False),
            S(T((2, 4), domain="ties"), p=INF, dim=1, _fd=False),
        ],
        variants={"method": _meth("norm")},
        errors=[E(T((2, 3), I64), _name="int"),
                E(T((2, 3)), p=2, dim=2, _name="dim_out_of_range")],
    ),
    OpInfo(
        "logsumexp", _fn("logsumexp"),
        [
            S(T((2, 3)), 1),
            S(T((2, 3), F64), 0),
            S(T((2, 3)), dim=-1, keepdim=True),
            S(T((2, 3, 2)), (0, 2)),
            S(T(()), 0),
            S(T((2, 0)), 1),
            S(T((2, 3), layout="T"), 0),
            S(T((2, 3), expand=(3,)), 0),
            S(T((2, 3), data=[[1000.0, 1000.0, 0.0], [-1000.0, -1000.0, -999.0]]), 1, _fd=False, _name="large"),
            S(T((2, 3), data=[[1.0, -INF, 0.0], [-INF, -INF, -INF]]), 1, _fd=False, _name="neg_inf"),
            S(T((2, 3), data=[[INF, 1.0, 0.0], [NAN, 1.0, 0.0]]), 1, _fd=False, _name="inf_nan"),
            S(T((2, 3), I64), 1),
        ],
        variants={"method": _meth("logsumexp")},
        errors=[E(T((2, 3)), _name="no_dim"),
                E(T((2, 3)), 2, _name="dim_out_of_range")],
    ),
    *[OpInfo(
        name, _fn(name),
        [
            S(T((2, 3)), 1),
            S(T((2, 3), F64), 0),
            S(T((2, 3)), dim=-1),
            S(T((2, 3, 2)), 1),
            S(T(()), 0),
            S(T((0,)), 0),
            S(T((2, 0)), 1),
            S(T((2, 3), layout="T"), 1),
            S(T((2, 3), expand=(3,)), 0),
            S(T((2, 3)), 1, dtype="float64"),
            S(T((2, 4), data=[[1.5, 0.0, -2.0, 1.0], [0.0, 2.0, 0.0, 3.0]]), 1),
            S(T((2, 4), F64, data=[[1.5, 0.0, -2.0, 1.0], [0.0, 2.0, 0.0, 3.0]]), 0),
            S(T((2, 3), I64), 1),
            S(T((2, 3), BOOL), 0),
        ],
        variants={"method": _meth(name)},
        errors=[E(T((2, 3)), _name="no_dim"),
                E(T((2, 3)), 2, _name="dim_out_of_range")],
    ) for name in ("cumsum", "cumprod")],
    *[OpInfo(
        name, _fn(name),
        [
            S(T((2, 3))),
            S(T((2, 3), F64)),
            S(T((2, 3)), 1),
            S(T((2, 3)), dim=0, keepdim=True),
            S(T((2, 3, 2)), (0, 2)),
            S(T(())),
            S(T(()), 0),
            S(T((0,))),
            S(T((2, 0)), 1),
            S(T((2, 3), layout="T"), 0),
            S(T((2, 3), I64)),
            S(T((2, 3), I64), 1),
            S(T((2, 3), BOOL)),
            S(T((2, 3), BOOL), -1),
            S(T((3,), data=[NAN, 1.0, 2.0])),
        ],
        domain="ties",
        differentiable=False,
        variants={"method": _meth(name)},
        errors=[E(T((2, 3)), 2, _name="dim_out_of_range")],
    ) for name in ("all", "any")],
    # ---- views, splits, joins -----------------------------------------------------------------
    OpInfo(
        "select", _fn("select"),
        [
            S(T((2, 3)), 0, 1),
            S(T((2, 3), F64), 1, -1),
            S(T((2, 3, 2)), -1, 0),
            S(T((3,)), 0, 2),
            S(T((2, 3), layout="T"), 1, 0),
            S(T((2, 3), expand=(3,)), 0, 1),
            S(T((2, 0)), 0, 1),
            S(T((2, 3), I64), 1, 2),
            S(T((2, 3), BOOL), 0, 0),
        ],
        variants={"method": _meth("select")},
        errors=[E(T((2, 3)), 1, 3, _name="index_out_of_range"),
                E(T((2, 3)), 2, 0, _name="dim_out_of_range"),
                E(T(()), 0, 0, _name="0d")],
    ),
    OpInfo(
        "narrow", _fn("narrow"),
        [
            S(T((2, 3)), 1, 1, 2),
            S(T((2, 3), F64), 0, 0, 1),
            S(T((2, 3)), -1, -2, 2),
            S(T((2, 3)), 1, 0, 0),
            S(T((2, 3, 2)), 2, 1, 1),
            S(T((2, 3), layout="T"), 1, 0, 1),
            S(T((2, 3), expand=(3,)), 0, 1, 1),
            S(T((2, 3), I64), 1, 1, 1),
            S(T((2, 3), BOOL), 0, 0, 2),
        ],
        variants={"method": _meth("narrow")},
        errors=[E(T((2, 3)), 1, 2, 2, _name="exceeds_size"),
                E(T((2, 3)), 2, 0, 1, _name="dim_out_of_range"),
                E(T(()), 0, 0, 1, _name="0d")],
    ),
    OpInfo(
        "split", _fn("split"),
        [
            S(T((2, 3)), 2, 1),
            S(T((4, 3), F64), 2),
            S(T((2, 3)), 1, dim=-1),
            S(T((2, 3)), 5, 1),
            S(T((2, 3)), [1, 2], 1),
            S(T((2, 3)), [2, 0, 1], dim=1),
            S(T((4, 2), F64), [3, 1]),
            S(T((2, 3), layout="T"), [1, 1, 1], 1),
            S(T((2, 3), expand=(3,)), 1, 0),
            S(T((0, 3)), 2),
            S(T((2, 3), I64), 2, 1),
            S(T((2, 3), BOOL), [1, 1], 0),
        ],
        variants={"method": _meth("split")},
        errors=[E(T((2, 3)), [1, 1], 1, _name="sizes_do_not_sum"),
                E(T(()), 1, _name="0d"),
                E(T((2, 3)), 1, 2, _name="dim_out_of_range")],
    ),
    OpInfo(
        "chunk", _fn("chunk"),
        [
            S(T((2, 3)), 2, 1),
            S(T((4, 3), F64), 2),
            S(T((2, 3)), 4, 1),
            S(T((2, 3)), 3, dim=-1),
            S(T((2, 3, 2)), 2, 2),
            S(T((2, 3), layout="T"), 2, 0),
            S(T((2, 3), expand=(3,)), 3, 1),
            S(T((2, 3), I64), 2, 1),
            S(T((2, 3), BOOL), 2, 0),
        ],
        variants={"method": _meth("chunk")},
        errors=[E(T((2, 3)), 0, 1, _name="zero_chunks"),
                E(T(()), 1, _name="0d"),
                E(T((2, 3)), 2, 2, _name="dim_out_of_range")],
    ),
    OpInfo(
        "unbind", _fn("unbind"),
        [
            S(T((2, 3))),
            S(T((2, 3), F64), 1),
            S(T((2, 3, 2)), -1),
            S(T((3,)), 0),
            S(T((2, 3), layout="T"), 1),
            S(T((2, 3), expand=(3,)), 0),
            S(T((2, 0)), 0),
            S(T((0, 3), rg=False), 0),
            S(T((2, 3), I64), 1),
            S(T((2, 3), BOOL), 0),
        ],
        variants={"method": _meth("unbind")},
        errors=[E(T(()), 0, _name="0d"),
                E(T((2, 3)), 2, _name="dim_out_of_range")],
    ),
    OpInfo(
        "cat", lambda m, *ts, **k: m.cat(list(ts), **k),
        [
            S(T((2, 3)), T((1, 3))),
            S(T((2, 3), F64), T((2, 2), F64), dim=1),
            S(T((2, 3)), T((2, 1)), T((2, 2)), dim=-1),
            S(T((2, 3)), T((2, 3), F64)),
            S(T((2, 3), I64), T((2, 3))),
            S(T((2, 3), I64), T((1, 3), I64)),
            S(T((2, 3), BOOL), T((2, 3), BOOL), dim=1),
            S(T((2, 3)), T((0,))),
            S(T((2, 3)), T((0, 3))),
            S(T((2, 3), layout="T"), T((2, 3), expand=(3,)), dim=1),
            S(T((2, 3)), T((2, 3), rg=False)),
            S(T((3,))),
            S(T((2, 2, 3)), T((2, 1, 3)), dim=1),
        ],
        variants={"tuple": lambda m, *ts, **k: m.cat(tuple(ts), **k),
                  "concat": lambda m, *ts, **k: m.concat(list(ts), **k)},
        errors=[E(T((2, 3)), T((3, 2)), _name="size_mismatch"),
                E(T((2, 3)), T((2, 3)), dim=2, _name="dim_out_of_range"),
                E(T(()), T(()), _name="0d"),
                E(_fn=lambda m: m.cat([]), _name="empty_list")],
    ),
    OpInfo(
        "stack", lambda m, *ts, **k: m.stack(list(ts), **k),
        [
            S(T((2, 3)), T((2, 3))),
            S(T((2, 3), F64), T((2, 3), F64), dim=1),
            S(T((2, 3)), T((2, 3)), T((2, 3)), dim=2),
            S(T((2, 3)), T((2, 3)), dim=-1),
            S(T(()), T(())),
            S(T((2, 3)), T((2, 3), F64)),
            S(T((0,)), T((0,))),
            S(T((2, 3), layout="T"), T((2, 3), expand=(3,)), dim=1),
            S(T((2, 3)), T((2, 3), rg=False)),
            S(T((2, 3), I64), T((2, 3), I64)),
            S(T((2, 3), BOOL), T((2, 3), BOOL), dim=-3),
        ],
        variants={"tuple": lambda m, *ts, **k: m.stack(tuple(ts), **k)},
        errors=[E(T((2, 3)), T((3, 2)), _name="size_mismatch"),
                E(T((2, 3)), T((2, 3)), dim=3, _name="dim_out_of_range"),
                E(_fn=lambda m: m.stack([]), _name="empty_list")],
    ),
    OpInfo(
        "flip", _fn("flip"),
        [
            S(T((2, 3)), (0,)),
            S(T((2, 3), F64), (0, 1)),
            S(T((2, 3, 2)), (-1, 0)),
            S(T((2, 3)), ()),
            S(T(()), ()),
            S(T((2, 3), layout="T"), (1,)),
            S(T((2, 3), expand=(3,)), (0, 1)),
            S(T((2, 0)), (1,)),
            S(T((2, 3), I64), (1,)),
            S(T((2, 3), BOOL), (0,)),
        ],
        variants={"method": _meth("flip"),
                  "star": Variant(lambda m, x, dims: x.flip(*dims), lambda s: s.args[1])},
        errors=[E(T((2, 3)), (0, 0), _name="dim_repeated"),
                E(T((2, 3)), (2,), _name="dim_out_of_range")],
    ),
    OpInfo(
        "roll", _fn("roll"),
        [
            S(T((2, 3)), 1),
            S(T((2, 3), F64), -2, 1),
            S(T((2, 3)), (1, 2), (0, 1)),
            S(T((2, 3)), 5, 0),
            S(T((2, 3)), shifts=-7),
            S(T((2, 3, 2)), (1, -1), (-1, 1)),
            S(T(()), 1),
            S(T((2, 3), layout="T"), 1, 1),
            S(T((2, 3), layout="T"), 2),
            S(T((2, 3), expand=(3,)), 1, 1),
            S(T((0,)), 1),
            S(T((2, 3), I64), 1, 0),
            S(T((2, 3), BOOL), 2),
        ],
        variants={"method": _meth("roll")},
        errors=[E(T((2, 3)), (1, 2), (0,), _name="shifts_dims_mismatch"),
                E(T((2, 3)), 1, 2, _name="dim_out_of_range")],
    ),
    OpInfo(
        "repeat", lambda m, x, reps: x.repeat(reps),
        [
            S(T((2, 3)), (2, 1)),
            S(T((2, 3), F64), (1, 2, 2)),
            S(T((3,)), (2,)),
            S(T((3,)), (2, 2)),
            S(T(()), (2, 3)),
            S(T(()), ()),
            S(T((2, 3)), (0, 1)),
            S(T((2, 3), layout="T"), (2, 1)),
            S(T((2, 3), expand=(3,)), (1, 2)),
            S(T((2, 3), I64), (2, 2)),
            S(T((2, 3), BOOL), (1, 2)),
        ],
        variants={"star": Variant(lambda m, x, reps: x.repeat(*reps), lambda s: s.args[1])},
        errors=[E(T((2, 3)), (2,), _name="too_few_dims"),
                E(T((2, 3)), (2, -1), _name="negative")],
    ),
    *[OpInfo(
        name, _fn(name),
        [
            S(T((3, 3))),
            S(T((3, 3), F64), 1),
            S(T((3, 3)), diagonal=-1),
            S(T((2, 4)), 2),
            S(T((4, 2)), -3),
            S(T((2, 3)), 5),
            S(T((2, 3)), -5),
            S(T((2, 3, 3)), 0),
            S(T((2, 3), layout="T")),
            S(T((2, 3), expand=(3,)), 1),
            S(T((0, 3))),
            S(T((3, 3), I64), 1),
            S(T((3, 3), BOOL), -1),
        ],
        variants={"method": _meth(name)},
        errors=[E(T((3,)), _name="1d"), E(T(()), _name="0d")],
    ) for name in ("tril", "triu")],
    OpInfo(
        "expand_as", lambda m, x, other: x.expand_as(other),
        [
            S(T((3,)), T((2, 3), rg=False)),
            S(T((2, 1), F64), T((2, 3), rg=False)),
            S(T(()), T((2, 2), I64)),
            S(T((2, 1)), T((2, 2, 3), BOOL)),
            S(T((2, 3)), T((2, 3))),
            S(T((2, 3), layout="T"), T((2, 2, 3), F64, rg=False)),
            S(T((1,)), T((0,), rg=False)),
            S(T((3,), I64), T((2, 3), rg=False)),
        ],
        errors=[E(T((3,)), T((2, 4)), _name="size_mismatch"),
                E(T((2, 3)), T((3,)), _name="fewer_dims")],
    ),
    OpInfo(
        "unflatten", _fn("unflatten"),
        [
            S(T((2, 6)), 1, (2, 3)),
            S(T((6,), F64), 0, (-1, 2)),
            S(T((2, 6)), -1, (3, -1)),
            S(T((2, 3)), 0, (1, 2)),
            S(T((2, 3)), 1, (3,)),
            S(T((2, 3)), 1, (1, 3, 1)),
            S(T((2, 6), layout="T"), 1, (2, 3)),
            S(T((2, 0)), 1, (0, 5)),
            S(T((2, 6), I64), 1, (3, 2)),
            S(T((2, 6), BOOL), 1, (2, -1)),
        ],
        variants={"method": _meth("unflatten")},
        errors=[E(T((2, 6)), 1, (4, 2), _name="bad_sizes"),
                E(T((2, 6)), 2, (2, 3), _name="dim_out_of_range")],
    ),
    # ---- indexing -----------------------------------------------------------------------------
    OpInfo(
        "getitem", _getitem,
        [
            S(T((3, 4)), key=1, _name="int"),
            S(T((3, 4), F64), key=-1, _name="negative_int"),
            S(T((3, 4)), key=(1, -2), _name="two_ints"),
            S(T((3, 4)), key=slice(None, None, 2), _name="step"),
            S(T((3, 4)), key=(slice(1, None), slice(None, None, 2)), _name="slices_step"),
            S(T((3, 4)), key=(slice(None), slice(-3, -1)), _name="negative_bounds"),
            S(T((3, 4)), key=slice(1, 10), _name="slice_past_end"),
            S(T((3, 4)), key=slice(2, 1), _name="slice_empty"),
            S(T((3, 4)), key=(None, 1), _name="none_int"),
            S(T((2, 3, 2)), key=(Ellipsis, 1), _name="ellipsis_int"),
            S(T((2, 3, 2)), key=(0, Ellipsis, None), _name="int_ellipsis_none"),
            S(T((3, 4)), key=Ellipsis, _name="ellipsis"),
            S(T(()), key=None, _name="0d_none"),
            S(T(()), key=Ellipsis, _name="0d_ellipsis"),
            S(T(()), key=(), _name="0d_empty_tuple"),
            S(T((3, 4)), idx((3,), [2, 0, 2]), key=Arg(0), _name="tensor"),
            S(T((3, 4)), idx((2,), [-1, 0]), key=Arg(0), _name="tensor_negative"),
            S(T((3, 4)), idx((2, 2), [[0, 1], [2, 2]]), key=Arg(0), _name="tensor_2d"),
            S(T((3, 4)), idx((), 1), key=Arg(0), _name="tensor_0d"),
            S(T((3, 4)), idx((0,), []), key=Arg(0), _name="tensor_empty"),
            S(T((3, 4)), key=[0, 2, 2], _name="list"),
            S(T((3, 4)), key=(slice(1, None), [0, 2]), _name="slice_list"),
            S(T((3, 4)), mask((3, 4)), key=Arg(0), _name="mask_full"),
            S(T((3, 4)), mask((3,), [True, False, True]), key=Arg(0), _name="mask_dim0"),
            S(T((3, 4)), mask((4,), [False, True, True, False]), key=(slice(None), Arg(0)),
              _name="slice_mask"),
            S(T((3, 4)), mask((3,), [False] * 3), key=Arg(0), _name="mask_none_true"),
            S(T((3, 4)), idx((2,), [0, 2]), idx((2,), [1, 3]), key=(Arg(0), Arg(1)),
              _name="two_tensors"),
            S(T((3, 4)), idx((2, 1), [[0], [2]]), idx((3,), [0, 1, 3]), key=(Arg(0), Arg(1)),
              _name="two_tensors_broadcast"),
            S(T((2, 3, 2)), idx((2,), [1, 0]), key=(Arg(0), slice(None), Arg(0)),
              _name="tensors_non_adjacent"),
            S(T((2, 3, 2)), idx((3,), [1, 0, 1]), key=(0, slice(None), Arg(0)),
              _name="int_slice_tensor"),
            S(T((2, 3, 2)), idx((2,), [2, 0]), key=(slice(None), Arg(0), 1),
              _name="slice_tensor_int"),
            S(T((2, 3, 2)), idx((2,), [0, 2]), key=(None, slice(None), Arg(0)),
              _name="none_slice_tensor"),
            S(T((3, 4)), idx((2,), [1, 3]), key=(Ellipsis, Arg(0)), _name="ellipsis_tensor"),
            S(T((3, 4)), idx((2,), [2, 0]), key=(Arg(0), slice(None, None, 2)),
              _name="tensor_step"),
            S(T((3, 4), layout="T"), idx((2,), [1, 0]), key=(slice(None), Arg(0)),
              _name="transposed_tensor"),
            S(T((3, 4), layout="T"), key=(slice(None), slice(1, None, 2)),
              _name="transposed_step"),
            S(T((3, 4), expand=(4,)), key=(slice(1, None), 2), _name="expanded"),
            S(T((3, 4), I64), idx((2,), [2, 0]), key=Arg(0), _name="int_tensor"),
            S(T((3, 4), BOOL), mask((3, 4)), key=Arg(0), _name="bool_mask"),
        ],
        errors=[
            E(T((3, 4)), key=5, _name="int_out_of_range"),
            E(T((3, 4)), key=(0, 0, 0), _name="too_many_indices"),
            E(T((3, 4)), T((2,), data=[0.0, 1.0]), key=Arg(0), _name="float_index"),
            E(T((3, 4)), mask((2,)), key=Arg(0), _name="mask_shape"),
            E(T((3, 4)), idx((2,), [0, 5]), key=Arg(0), _name="tensor_out_of_range"),
            E(T((3, 4)), key=slice(None, None, -1), _name="negative_step"),
        ],
    ),
    OpInfo(
        "setitem", _setitem,
        [
            S(T((3, 4)), T((4,)), key=0, value=Arg(0), _name="int__tensor"),
            S(T((3, 4), F64), T((3,), F64), key=(slice(None), 1), value=Arg(0),
              _name="slice_int__tensor"),
            S(T((3, 4)), key=slice(None, None, 2), value=2.5, _name="step__scalar"),
            S(T((3, 4)), T((3, 2)), key=(Ellipsis, slice(1, 3)), value=Arg(0),
              _name="ellipsis_slice__tensor"),
            S(T((3, 4)), T(()), key=(None, 1), value=Arg(0), _name="none_int__0d"),
            S(T((3, 4)), T((4,)), key=Ellipsis, value=Arg(0), _name="ellipsis__broadcast"),
            S(T((3, 4)), key=[0, 2], value=-1.0, _name="list__scalar"),
            S(T((3, 4)), idx((2,), [2, 0]), T((2, 4)), key=Arg(0), value=Arg(1),
              _name="tensor__tensor"),
            S(T((3, 4)), idx((2,), [2, 0]), T((4,)), key=Arg(0), value=Arg(1),
              _name="tensor__broadcast"),
            S(T((3, 4)), idx((2,), [0, 2]), idx((2,), [1, 3]), T((2,)), key=(Arg(0), Arg(1)),
              value=Arg(2), _name="two_tensors__tensor"),
            S(T((3, 4)), mask((3, 4)), key=Arg(0), value=0.0, _name="mask__scalar"),
            S(T((3, 4)), mask((3, 4)), T(()), key=Arg(0), value=Arg(1), _name="mask__0d"),
            S(T((3, 4)), mask((3,), [True, False, True]), T((4,)), key=Arg(0), value=Arg(1),
              _name="mask_dim0__broadcast"),
            S(T((3, 4)), T((2, 2)), key=(slice(1, None), [0, 2]), value=Arg(0),
              _name="slice_list__tensor"),
            S(T((2, 3, 2)), idx((2,), [1, 0]), T((2, 3)), key=(Arg(0), slice(None), Arg(0)),
              value=Arg(1), _name="tensors_non_adjacent__tensor"),
            S(T((3, 4)), T((4,), F64), key=0, value=Arg(0), _name="int__f64_tensor"),
            S(T((3, 4), rg=False), T((4,)), key=1, value=Arg(0), _name="const__tensor"),
            S(T((3, 4)), T((4,), rg=False), key=1, value=Arg(0), _name="int__const"),
            S(T((3, 4), I64), idx((2,), [2, 0]), key=Arg(0), value=5, _name="int_x__scalar"),
            S(T((3, 4), I64), T((4,), rg=False), key=1, value=Arg(0),
              _name="int_x__float_tensor"),
            S(T((3, 4), BOOL), mask((3, 4)), key=Arg(0), value=True, _name="bool_x__mask"),
        ],
        errors=[
            E(T((3, 4)), T((3,)), key=0, value=Arg(0), _name="shape_mismatch"),
            E(T((3, 4)), key=5, value=1.0, _name="int_out_of_range"),
            E(T((3, 4)), idx((2,), [0, 1]), T((3, 4)), key=Arg(0), value=Arg(1),
              _name="advanced_shape_mismatch"),
        ],
    ),
    OpInfo(
        "gather", lambda m, x, d, i, **k: m.gather(x, d, i, **k),
        [
            S(T((2, 3)), 1, idx((2, 2), [[0, 2], [1, 1]])),
            S(T((2, 3), F64), 0, idx((1, 3), [[1, 0, 1]])),
            S(T((2, 3)), -1, idx((2, 4), [[0, 0, 2, 1], [2, 2, 2, 0]])),
            S(T((3, 4)), 1, idx((2, 2), [[3, 0], [1, 1]])),
            S(T((2, 3, 2)), 1, idx((2, 1, 2), [[[2, 0]], [[1, 1]]])),
            S(T(()), 0, idx((), 0)),
            S(T((2, 3)), 1, idx((2, 0), [[], []])),
            S(T((2, 3), layout="T"), 0, idx((2, 3), [[1, 0, 1], [0, 0, 1]])),
            S(T((2, 3), expand=(3,)), 0, idx((2, 3), [[1, 0, 1], [0, 0, 1]])),
            S(T((2, 3), I64), 1, idx((2, 2), [[0, 2], [1, 1]])),
            S(T((2, 3), BOOL), 1, idx((2, 2), [[0, 2], [1, 1]])),
        ],
        variants={"method": lambda m, x, d, i, **k: x.gather(d, i, **k)},
        errors=[
            E(T((2, 3)), 1, T((2, 2), data=[[0.0, 1.0], [1.0, 0.0]]), _name="float_index"),
            E(T((2, 3)), 1, idx((2, 2), [[0, 3], [1, 0]]), _name="index_out_of_range"),
            E(T((2, 3)), 1, idx((2,), [0, 1]), _name="ndim_mismatch"),
        ],
    ),
    OpInfo(
        "scatter", lambda m, x, d, i, *a, **k: m.scatter(x, d, i, *a, **k),
        [
            S(T((2, 3)), 1, idx((2, 2), [[0, 2], [1, 0]]), T((2, 2))),
            S(T((2, 3), F64), 0, idx((1, 3), [[1, 0, 1]]), T((2, 4), F64, rg=False)),
            S(T((2, 3), F64), 0, idx((1, 3), [[1, 0, 1]]), T((1, 3), F64)),
            S(T((2, 3)), -1, idx((2, 3), [[2, 1, 0], [0, 2, 1]]), T((2, 3))),
            S(T((2, 3)), 1, idx((2, 2), [[0, 2], [1, 0]]), 2.5),
            S(T((2, 3)), 1, idx((2, 2), [[0, 2], [1, 0]]), value=-1.0),
            S(T(()), 0, idx((), 0), T(())),
            S(T((2, 3)), 1, idx((2, 0), [[], []]), T((2, 2), rg=False)),
            S(T((2, 3), rg=False), 1, idx((2, 2), [[0, 2], [1, 0]]), T((2, 2))),
            S(T((2, 3)), 1, idx((2, 2), [[0, 2], [1, 0]]), T((2, 2), rg=False)),
            S(T((2, 3), layout="T"), 0, idx((2, 3), [[1, 0, 1], [0, 1, 0]]), T((2, 3))),
            S(T((2, 3), I64), 1, idx((2, 2), [[0, 2], [1, 0]]), T((2, 2), I64)),
            S(T((2, 3), BOOL), 1, idx((2, 2), [[0, 2], [1, 0]]), True),
        ],
        variants={"method": lambda m, x, d, i, *a, **k: x.scatter(d, i, *a, **k)},
        errors=[
            E(T((2, 3)), 1, T((2, 2), data=[[0.0, 1.0], [1.0, 0.0]]), T((2, 2)),
              _name="float_index"),
            E(T((2, 3)), 1, idx((2, 2), [[0, 3], [1, 0]]), T((2, 2)), _name="index_out_of_range"),
            E(T((2, 3)), 1, idx((2, 2), [[0, 2], [1, 0]]), T((2, 2), F64),
              _name="src_dtype_mismatch"),
        ],
    ),
    OpInfo(
        "scatter_add", lambda m, x, d, i, src: m.scatter_add(x, d, i, src),
        [
            S(T((2, 3)), 1, idx((2, 3), [[0, 0, 2], [1, 1, 1]]), T((2, 3))),
            S(T((2, 3), F64), 0, idx((2, 3), [[1, 0, 1], [1, 1, 0]]), T((2, 4), F64, rg=False)),
            S(T((2, 3), F64), 0, idx((2, 3), [[1, 0, 1], [1, 1, 0]]), T((2, 3), F64)),
            S(T((2, 3)), -1, idx((1, 2), [[2, 2]]), T((2, 2), rg=False)),
            S(T((2, 3)), -1, idx((1, 2), [[2, 2]]), T((1, 2))),
            S(T(()), 0, idx((), 0), T(())),
            S(T((2, 3)), 1, idx((2, 0), [[], []]), T((2, 2), rg=False)),
            S(T((2, 3), rg=False), 1, idx((2, 3), [[0, 0, 2], [1, 1, 1]]), T((2, 3))),
            S(T((2, 3), layout="T"), 0, idx((2, 3), [[1, 0, 1], [1, 1, 0]]), T((2, 3))),
            S(T((2, 3), I64), 1, idx((2, 3), [[0, 0, 2], [1, 1, 1]]), T((2, 3), I64)),
        ],
        variants={"method": lambda m, x, d, i, src: x.scatter_add(d, i, src)},
        errors=[
            E(T((2, 3)), 1, idx((2, 2), [[0, 3], [1, 0]]), T((2, 2)), _name="index_out_of_range"),
            E(T((2, 3)), 1, idx((2, 2), [[0, 2], [1, 0]]), T((2, 2), F64),
              _name="src_dtype_mismatch"),
            E(T((2, 3)), 1, T((2, 2), data=[[0.0, 1.0], [1.0, 0.0]]), T((2, 2)),
              _name="float_index"),
        ],
    ),
    OpInfo(
        "index_select", lambda m, x, d, i: m.index_select(x, d, i),
        [
            S(T((3, 4)), 0, idx((3,), [2, 0, 2])),
            S(T((3, 4), F64), 1, idx((2,), [3, 1])),
            S(T((3, 4)), -1, idx((5,), [0, 0, 1, 3, 0])),
            S(T((3, 4)), 1, idx((), 2)),
            S(T((3, 4)), 0, idx((0,), [])),
            S(T(()), 0, idx((1,), [0])),
            S(T((2, 3, 2)), 1, idx((2,), [2, 0])),
            S(T((3, 4), layout="T"), 0, idx((2,), [1, 2])),
            S(T((3, 4), expand=(4,)), 0, idx((2,), [1, 1])),
            S(T((3, 4), I64), 1, idx((2,), [3, 1])),
            S(T((3, 4), BOOL), 0, idx((2,), [2, 1])),
        ],
        variants={"method": lambda m, x, d, i: x.index_select(d, i)},
        errors=[
            E(T((3, 4)), 0, T((2,), data=[0.0, 1.0]), _name="float_index"),
            E(T((3, 4)), 0, idx((2, 1), [[0], [1]]), _name="2d_index"),
            E(T((3, 4)), 0, idx((2,), [0, 3]), _name="index_out_of_range"),
        ],
    ),
    OpInfo(
        "index_add", lambda m, x, d, i, src, **k: m.index_add(x, d, i, src, **k),
        [
            S(T((3, 4)), 0, idx((3,), [0, 2, 0]), T((3, 4))),
            S(T((3, 4), F64), 1, idx((2,), [3, 1]), T((3, 2), F64), alpha=-0.5),
            S(T((3, 4)), -1, idx((3,), [1, 1, 1]), T((3, 3)), alpha=2),
            S(T((3, 4)), 0, idx((0,), []), T((0, 4))),
            S(T((3, 4), rg=False), 0, idx((2,), [2, 2]), T((2, 4))),
            S(T((3, 4)), 0, idx((2,), [2, 2]), T((2, 4), rg=False)),
            S(T((3, 4), layout="T"), 1, idx((2,), [0, 3]), T((3, 2))),
            S(T((3, 4), I64), 0, idx((2,), [0, 0]), T((2, 4), I64), alpha=3),
        ],
        variants={"method": lambda m, x, d, i, src, **k: x.index_add(d, i, src, **k)},
        errors=[
            E(T((3, 4)), 0, idx((2,), [0, 1]), T((2, 3)), _name="source_shape_mismatch"),
            E(T((3, 4)), 0, T((2,), data=[0.0, 1.0]), T((2, 4)), _name="float_index"),
            E(T((3, 4)), 0, idx((2,), [0, 1]), T((2, 4), F64), _name="source_dtype_mismatch"),
        ],
    ),
    OpInfo(
        "masked_fill", lambda m, x, mk, v: m.masked_fill(x, mk, v),
        [
            S(T((2, 3)), mask((2, 3)), 0.5),
            S(T((2, 3), F64), mask((2, 3)), -2),
            S(T((2, 3)), mask((2, 3)), T(())),
            S(T((2, 3)), mask((2, 3)), T((), F64)),
            S(T((2, 3)), mask((2, 3)), T((), rg=False)),
            S(T((2, 3)), mask((3,)), 1.5),
            S(T((2, 3)), mask((2, 1), [[True], [False]]), T(())),
            S(T((3,)), mask((2, 3)), 0.0),
            S(T((2, 3)), mask((2, 3)), NAN, _fd=False),
            S(T(()), mask(()), 1.0),
            S(T((0,)), mask((0,)), 1.0),
            S(T((2, 3), layout="T"), mask((2, 3)), 0.0),
            S(T((2, 3), I64), mask((2, 3)), 7),
            S(T((2, 3), I64), mask((2, 3)), 2.5),
            S(T((2, 3), BOOL), mask((2, 3)), True),
        ],
        variants={"method": lambda m, x, mk, v: x.masked_fill(mk, v)},
        errors=[
            E(T((2, 3)), T((2, 3), rg=False), 0.0, _name="float_mask"),
            E(T((2, 3)), mask((2, 3)), T((2,)), _name="1d_value"),
            E(T((2, 3)), mask((4,)), 0.0, _name="broadcast_mismatch"),
        ],
    ),
    OpInfo(
        "masked_select", lambda m, x, mk: m.masked_select(x, mk),
        [
            S(T((2, 3)), mask((2, 3))),
            S(T((2, 3), F64), mask((3,), [True, False, True])),
            S(T((3,)), mask((2, 3))),
            S(T(()), mask((), True)),
            S(T((2, 3)), mask((2, 3), [[False] * 3] * 2)),
            S(T((2, 3), layout="T"), mask((2, 3))),
            S(T((2, 3), I64), mask((2, 3))),
            S(T((2, 3), BOOL), mask((2, 3))),
        ],
        variants={"method": lambda m, x, mk: x.masked_select(mk)},
        errors=[
            E(T((2, 3)), T((2, 3), rg=False), _name="float_mask"),
            E(T((2, 3)), mask((4,)), _name="broadcast_mismatch"),
        ],
    ),
    OpInfo(
        "take_along_dim", lambda m, x, i, *a, **k: m.take_along_dim(x, i, *a, **k),
        [
            S(T((2, 3)), idx((2, 2), [[0, 2], [1, 1]]), 1),
            S(T((2, 3), F64), idx((4,), [5, 0, 0, 3])),
            S(T((2, 3)), idx((1, 2), [[2, 0]]), dim=1),
            S(T((2, 3)), idx((2, 1), [[1], [0]]), dim=-1),
            S(T((2, 3)), idx((3, 3), [[1, 0, 1]] * 3), 0),
            S(T((2, 3, 2)), idx((2, 1, 2), [[[2, 0]], [[1, 1]]]), 1),
            S(T((2, 3), layout="T"), idx((2, 3), [[1, 0, 1], [0, 0, 1]]), 0),
            S(T((2, 3), I64), idx((2, 2), [[0, 2], [1, 1]]), 1),
        ],
        variants={"method": lambda m, x, i, *a, **k: x.take_along_dim(i, *a, **k)},
        errors=[
            E(T((2, 3)), T((2, 2), data=[[0.0, 1.0], [1.0, 0.0]]), 1, _name="float_index"),
            E(T((2, 3)), idx((2,), [0, 1]), 1, _name="ndim_mismatch"),
            E(T((2, 3)), idx((2, 2), [[0, 1], [1, 0]]), 2, _name="dim_out_of_range"),
        ],
    ),
    OpInfo(
        "nonzero", _fn("nonzero"),
        [
            S(T((2, 3))),
            S(T((2, 3), F64)),
            S(T((2, 3, 2))),
            S(T((), data=0.0), _name="f32_0d_zero"),
            S(T((), data=2.0), _name="f32_0d_two"),
            S(T((0,))),
            S(T((2, 3), layout="T")),
            S(T((2, 3), I64)),
            S(T((2, 3), BOOL)),
            S(T((2, 3)), as_tuple=True),
            S(T((), data=1.0), as_tuple=True),
            S(T((3,), BOOL), as_tuple=True),
        ],
        domain="ties",
        differentiable=False,
        variants={"method": _meth("nonzero")},
    ),
    # ---- in-place variants (on a non-leaf copy) -----------------------------------------------
    OpInfo(
        "relu_", lambda m, x: (x * 1).relu_(),
        [S(T((2, 3))), S(T((2, 3), F64)), S(T(())), S(T((0,))), S(T((2, 3), layout="T")),
         S(T((3,), data=_AT_ZERO), _fd=False), S(T((2, 3), I64))],
        variants={"function": lambda m, x: m.relu_(x * 1)},
        errors=[_leaf_inplace(lambda m, x: x.relu_())],
    ),
    OpInfo(
        "clamp_", lambda m, x, *a, **k: (x * 1).clamp_(*a, **k),
        [
            S(T((2, 3)), -0.5, 0.5),
            S(T((2, 3), F64), min=0.0),
            S(T((2, 3)), max=0.5),
            S(T((2, 3)), T((3,)), T((2, 1))),
            S(T(()), -0.5, 0.5),
            S(T((2, 3), I64), -1, 1),
        ],
        variants={"clip_": lambda m, x, *a, **k: (x * 1).clip_(*a, **k)},
        errors=[_leaf_inplace(lambda m, x: x.clamp_(-1.0, 1.0)),
                E(T((2, 3), I64), -0.5, 0.5, _name="int_float_bounds"),
                E(T((3,)), T((2, 3)), T((2, 3)), _name="broadcast_to_larger")],
    ),
    OpInfo(
        "exp_", lambda m, x: (x * 1).exp_(),
        [S(T((2, 3))), S(T((2, 3), F64)), S(T(())), S(T((0,))), S(T((2, 3), layout="T"))],
        errors=[_leaf_inplace(lambda m, x: x.exp_()),
                E(T((2, 3), I64), _name="int")],
    ),
    OpInfo(
        "mul_", lambda m, a, b: (a * 1).mul_(b),
        [
            S(T((2, 3)), T((2, 3))),
            S(T((2, 3), F64), T((3,), F64)),
            S(T((2, 3)), T(())),
            S(T((2, 3)), 2.5),
            S(T((2, 3), F64), T((2, 3))),
            S(T((2, 3)), T((2, 1), rg=False)),
            S(T((2, 3), rg=False), T((3,))),
            S(T((2, 3), I64), T((3,), I64)),
        ],
        errors=[_leaf_inplace(lambda m, x: x.mul_(2.0)),
                E(T((3,)), T((2, 3)), _name="broadcast_to_larger"),
                E(T((2, 3), I64), 2.5, _name="int_by_float")],
    ),
    OpInfo(
        "add_", lambda m, a, b, **k: (a * 1).add_(b, **k),
        [
            S(T((2, 3)), T((2, 3))),
            S(T((2, 3), F64), T((3,), F64), alpha=-0.5),
            S(T((2, 3)), T(()), alpha=2),
            S(T((2, 3)), 1.5, alpha=2),
            S(T((2, 3)), T((2, 1), F64)),
            S(T((2, 3), I64), T((3,), I64), alpha=3),
        ],
        errors=[_leaf_inplace(lambda m, x: x.add_(1.0)),
                E(T((3,)), T((2, 3)), _name="broadcast_to_larger"),
                E(T((2, 3), I64), T((2, 3), I64), alpha=0.5, _name="int_float_alpha")],
    ),
    OpInfo(
        "masked_fill_", lambda m, x, mk, v: (x * 1).masked_fill_(mk, v),
        [
            S(T((2, 3)), mask((2, 3)), 0.5),
            S(T((2, 3), F64), mask((3,)), -1.0),
            S(T((2, 3)), mask((2, 3)), T(())),
            S(T((2, 3), I64), mask((2, 3)), 4),
        ],
        errors=[_leaf_inplace(lambda m, x: x.masked_fill_(x > 0, 0.0)),
                E(T((3,)), mask((2, 3)), 0.0, _name="broadcast_to_larger")],
    ),
    OpInfo(
        "index_add_", lambda m, x, d, i, src, **k: (x * 1).index_add_(d, i, src, **k),
        [
            S(T((3, 4)), 0, idx((3,), [0, 2, 0]), T((3, 4))),
            S(T((3, 4), F64), 1, idx((2,), [3, 1]), T((3, 2), F64), alpha=2),
            S(T((3, 4), I64), 0, idx((2,), [1, 1]), T((2, 4), I64)),
        ],
        errors=[E(T((3, 4)), _fn=lambda m, x: x.index_add_(0, m.tensor([0]), x[:1] * 1),
                  _name="leaf_requires_grad"),
                E(T((3, 4)), 0, idx((2,), [0, 1]), T((2, 3)), _name="source_shape_mismatch")],
    ),
    OpInfo(
        "scatter_", lambda m, x, d, i, *a, **k: (x * 1).scatter_(d, i, *a, **k),
        [
            S(T((2, 3)), 1, idx((2, 2), [[0, 2], [1, 0]]), T((2, 2))),
            S(T((2, 3), F64), 0, idx((1, 3), [[1, 0, 1]]), T((1, 3), F64)),
            S(T((2, 3)), 1, idx((2, 2), [[0, 2], [1, 0]]), 2.5),
            S(T((2, 3), I64), 1, idx((2, 2), [[0, 2], [1, 0]]), 3),
        ],
        errors=[E(T((2, 3)), _fn=lambda m, x: x.scatter_(1, m.tensor([[0]]), 1.0),
                  _name="leaf_requires_grad"),
                E(T((2, 3)), 1, idx((2, 2), [[0, 3], [1, 0]]), T((2, 2)),
                  _name="index_out_of_range")],
    ),
    OpInfo(
        "tril_", lambda m, x, *a: (x * 1).tril_(*a),
        [S(T((3, 3))), S(T((3, 3), F64), 1), S(T((2, 4)), -1), S(T((2, 3, 3)), 0),
         S(T((3, 3), I64))],
        errors=[_leaf_inplace(lambda m, x: x.tril_()),
                E(T((3,)), _name="1d")],
    ),
]


# --------------------------------------------------------------------------------------------
# pooling
# --------------------------------------------------------------------------------------------

# ceil_mode's last windows may run past the right padding: PyTorch cuts them there (the
# count_include_pad divisor counts only input and padding) and drops a last window that would
# start in the right padding (5 rows, kernel 2, stride 3, padding 1: 2 windows, not 3).
OPS += [
    OpInfo(
        "F.avg_pool2d", lambda m, x, *a, **k: m.nn.functional.avg_pool2d(x, *a, **k),
        [
            S(T((1, 1, 4, 4)), 2),
            S(T((2, 2, 4, 5), F64), 3, 1, 1, count_include_pad=False),
            S(T((1, 2, 4, 4)), 3, 1, 1),
            S(T((1, 1, 5, 5)), 2, ceil_mode=True),
            S(T((1, 1, 5, 5), F64), 2, ceil_mode=True, count_include_pad=False),
            S(T((1, 2, 5, 5), F64), 3, 2, 1, ceil_mode=True),
            S(T((1, 2, 5, 5)), 3, 2, 1, ceil_mode=True, count_include_pad=False),
            S(T((2, 1, 4, 7)), (2, 3), (3, 2), (1, 1), ceil_mode=True),
            S(T((2, 1, 4, 7)), (2, 3), (3, 2), (1, 1), ceil_mode=True, count_include_pad=False),
            S(T((1, 1, 5, 4)), 2, 3, 1, ceil_mode=True),
            S(T((1, 1, 5, 4)), 2, 3, 1, ceil_mode=True, count_include_pad=False),
            S(T((1, 1, 6, 3)), (3, 1), (2, 1), (1, 0), ceil_mode=True),
            S(T((1, 1, 3, 5)), 6, 4, ceil_mode=True),
            S(T((1, 1, 3, 5)), 6, 2, (3, 2), ceil_mode=True, count_include_pad=False),
            S(T((1, 1, 5, 5)), 2, ceil_mode=True, divisor_override=3),
            S(T((1, 1, 5, 5)), 3, 2, 1, True, False, 5),
            S(T((2, 4, 4)), 3, 2, 1, ceil_mode=True, count_include_pad=False),
            S(T((1, 1, 5, 4), layout="T"), 2, ceil_mode=True),
            S(T((0, 1, 4, 4)), 2, ceil_mode=True),
            S(T((1, 1, 5, 5), I64), 2, ceil_mode=True),
            S(T((1, 1, 5, 5), I64), 3, 2, 1, ceil_mode=True, count_include_pad=False),
            S(T((1, 1, 5, 5), I64), 2, 2, 1, divisor_override=2),
        ],
        fd_max_numel=60,
        errors=[
            E(T((1, 1, 4, 4)), (2, 2, 2), _name="kernel_3_ints"),
            E(T((1, 1, 4, 4)), 2, (1, 1, 1), _name="stride_3_ints"),
            E(T((1, 1, 4, 4)), 2, 1, (1, 1, 1), _name="padding_3_ints"),
            E(T((1, 1, 4, 4)), 2, divisor_override=0, _name="divisor_zero"),
            E(T((1, 1, 4, 4)), 2, 0, _name="stride_zero"),
            E(T((1, 1, 4, 4)), 0, _name="kernel_zero"),
            E(T((1, 1, 4, 4)), 2, -1, _name="stride_negative"),
            E(T((1, 1, 4, 4)), 2, 1, -1, _name="padding_negative"),
            E(T((1, 1, 4, 4)), 2, 1, 2, _name="padding_too_big"),
            E(T((1, 1, 4, 4)), (2, 1), 1, (0, 1), _name="padding_too_big_width"),
            E(T((1, 1, 5, 5)), 6, _name="output_too_small"),
            E(T((5, 5)), 2, _name="2d"),
            E(T(()), 2, _name="0d"),
            E(T((1, 1, 1, 5, 5)), 2, _name="5d"),
            E(T((1, 0, 4, 4)), 2, _name="no_channels"),
            E(T((1, 1, 4, 4), BOOL), 2, _name="bool"),
        ],
    ),
]


# --------------------------------------------------------------------------------------------
# einsum, diagonal
# --------------------------------------------------------------------------------------------


def _einsum_list(m, eq, *ts):
    return m.einsum(eq, list(ts))


OPS += [
    OpInfo(
        "einsum", lambda m, eq, *ts: m.einsum(eq, *ts),
        [
            S("ij,jk->ik", T((2, 3)), T((3, 4))),
            S("ij,jk", T((2, 3), F64), T((3, 4), F64)),
            S("bij,bjk->bik", T((2, 2, 3)), T((2, 3, 2))),
            S("bij,jk->bik", T((2, 2, 3)), T((3, 2), rg=False)),
            S("...ij,...jk->...ik", T((2, 1, 2, 3)), T((3, 3, 2))),
            S("i...->...", T((2, 3))),
            S("...->", T((2, 3))),
            S("ii->i", T((3, 3))),
            S("ii", T((3, 3), F64)),
            S("iij->ij", T((2, 2, 3))),
            S("iji->j", T((2, 3, 2))),
            S("ij->ji", T((2, 3))),
            S("ij->", T((2, 3))),
            S("ij->j", T((2, 3), layout="T")),
            S("ji", T((2, 3))),
            S("i,j->ij", T((3,)), T((4,))),
            S("i,i->", T((3,)), T((3,))),
            S("i,i", T((3,), F64), T((3,), F64)),
            S("ij,ij->ij", T((2, 3)), T((2, 3))),
            S("ij,kj->ikj", T((2, 3)), T((4, 3))),
            S("ij,j->i", T((2, 3)), T((3,), expand=())),
            S("i,j,k->ijk", T((2,)), T((3,)), T((2,))),
            S("ij,jk,kl->il", T((2, 3)), T((3, 2)), T((2, 2))),
            S("bn,anm,bm->ba", T((2, 3)), T((2, 3, 2)), T((2, 2))),
            S("Ab,bA->", T((2, 3)), T((3, 2))),
            S("ij,jk->ki", T((2, 3)), T((3, 2))),
            S("i,j->ij", T((3,), F64), T((2,))),
            S("i->", T((0,))),
            S("ij,jk->ik", T((2, 3), I64), T((3, 2), I64)),
            S("->", T(())),
            S(" ij -> j i", T((2, 3))),
        ],
        variants={"list": Variant(_einsum_list)},
        errors=[
            E("ij", T((2, 3, 4)), _name="too_few_subscripts"),
            E("ij,jk", T((2, 3)), _name="fewer_operands"),
            E("ij", T((2, 3)), T((3, 4)), _name="more_operands"),
            E("i->ii", T((3,)), _name="output_repeated"),
            E("i->j", T((3,)), _name="output_unknown"),
            E("ij,jk->ik", T((2, 3)), T((2, 3)), _name="size_mismatch"),
            E("...ij,...jk->...ik", T((2, 2, 3)), T((3, 3, 4)), _name="ellipsis_mismatch"),
            E("i.j", T((2, 3)), _name="lone_dot"),
            E("...i...", T((3,)), _name="two_ellipses"),
            E("i...->......", T((3,)), _name="two_output_ellipses"),
            E("i->i.", T((3,)), _name="output_lone_dot"),
            E("ii", T((2, 3)), _name="diagonal_sizes"),
            E("i1", T((3,)), _name="invalid_subscript"),
            E("i,j->ij->", T((3,)), T((3,)), _name="invalid_output_subscript"),
            E("ijk...", T((2, 3)), _name="more_subscripts_than_dims"),
            E("ij", _fn=lambda m, eq: m.einsum(eq), _name="no_operands"),
            E("ij,jk", T((2, 3)), T((3, 4)), _fn=lambda m, eq, a, b: m.einsum(eq, [a], b),
              _name="list_and_tensor"),
        ],
    ),
    # PyTorch's sublist format: einsum(op1, sublist1, op2, sublist2, ..., [sublist_out]),
    # subscripts ints in [0, 52) (A-Z, a-z) or Ellipsis.
    OpInfo(
        "einsum_sublist", lambda m, *args: m.einsum(*args),
        [
            S(T((2, 3)), [0, 1], T((3, 4)), [1, 2], [0, 2]),
            S(T((2, 3), F64), [0, 1], T((3, 4), F64), [1, 2]),
            S(T((2, 3)), [0, 1], T((3, 4)), [1, 2], [2, 0]),
            S(T((2, 2, 3)), [Ellipsis, 0, 1], T((3, 2)), [1, 2], [Ellipsis, 0, 2]),
            S(T((2, 2, 3)), [Ellipsis, 0, 1], T((3, 2)), [1, 2]),
            S(T((2, 1, 2, 3)), [Ellipsis, 0, 1], T((3, 3, 2)), [Ellipsis, 1, 2]),
            S(T((2, 3)), [Ellipsis, 1], [1, Ellipsis]),
            S(T((2, 3)), [0, Ellipsis], []),
            S(T((3, 3)), [0, 0], [0]),
            S(T((3, 3), F64), [0, 0]),
            S(T((3,)), [0], T((4,)), [1], [0, 1]),
            S(T((2, 3)), [51, 26], [26, 51]),
            S(T((2, 3)), [26, 0], [0, 26]),
            S(T((2, 3)), (0, 1), T((3,)), (1,), ()),
            S(T((2, 3), layout="T"), [0, 1], T((3, 4)), [1, 2], [2, 0]),
            S(T((2,)), [0], T((3,)), [1], T((2,)), [2], [0, 1, 2]),
            S(T((2, 3), I64), [0, 1], T((3, 2), I64), [1, 2], [0, 2]),
        ],
        errors=[
            E(T((2, 3)), [0, 52], _name="subscript_52"),
            E(T((2, 3)), [0, -1], _name="subscript_negative"),
            E(T((2, 3)), [0, "a"], _name="subscript_str"),
            E(T((2, 3)), [0, 1.5], _name="subscript_float"),
            E(T((2, 3)), [0, 1], T((3, 4)), _name="missing_sublist"),
            E(T((2, 3)), [0, 1], T((3, 4)), [1, 2], [0, 2], [1], _name="extra_sublist"),
            E(T((2, 3)), [0], _name="too_few_subscripts"),
            E(T((2, 3)), [0, 1], T((3, 4)), [2, 2], [0, 2], _name="repeated_size_mismatch"),
            E(T((2, 3)), [0, 1], T((2, 3)), [1, 2], _name="size_mismatch"),
            E(T((2, 3)), [0, 1], [0, 0], _name="output_repeated"),
            E(T((2, 3)), [0, 1], [2], _name="output_unknown"),
            E(T((2, 3)), [Ellipsis, Ellipsis], _name="two_ellipses"),
            E(T((2, 3)), [0, 1], [Ellipsis, Ellipsis], _name="two_output_ellipses"),
            E(T((2, 3)), None, _name="sublist_none"),
            E([0, 1], T((2, 3)), _name="sublist_first"),
            E(T((2, 3)), _name="no_sublist"),
        ],
    ),
    OpInfo("movedim", lambda m, x, *a, **k: m.movedim(x, *a, **k), [
        S(T((2, 3, 4)), 0, 2), S(T((2, 3, 4)), -1, 0), S(T((2, 3, 4), F64), (0, 1), (2, 0)),
        S(T((2, 3, 4)), [0, 2], [-1, 0]), S(T((2, 3, 4)), (), ()), S(T(()), 0, -1),
        S(T(()), (), ()), S(T((2, 3), layout="T"), 0, 1), S(T((2, 3), I64), 1, 0),
        S(T((2, 3, 4)), source=1, destination=0), S(T((2, 0, 3)), 1, 2)],
           variants={"method": lambda m, x, *a, **k: x.movedim(*a, **k),
                     "moveaxis": lambda m, x, *a, **k: m.moveaxis(x, *a, **k),
                     "moveaxis_method": lambda m, x, *a, **k: x.moveaxis(*a, **k)},
           errors=[E(T((2, 3)), (0, 1), (1,), _name="lengths"),
                   E(T((2, 3, 4)), (0, 0), (1, 2), _name="repeated_source"),
                   E(T((2, 3, 4)), (0, 1), (2, 2), _name="repeated_destination"),
                   E(T((2, 3)), 2, 0, _name="out_of_range"),
                   E(T((2, 3)), (0,), (-3,), _name="out_of_range_neg")]),
    OpInfo("aminmax", lambda m, x, **k: m.aminmax(x, **k), [
        S(T((2, 3))), S(T((2, 3), F64), dim=1), S(T((2, 3)), dim=0, keepdim=True), S(T(())),
        S(T((2, 3, 2)), dim=-1), S(T((2, 3)), keepdim=True), S(T(()), dim=0), S(T((2, 0)), dim=0),
        S(T((2, 3), layout="T"), dim=1), S(T((2, 4), domain="ties"), dim=1, _fd=False),
        S(T((4,), domain="ties"), _fd=False), S(T((3,), data=[1.0, NAN, 2.0]), _fd=False),
        S(T((2, 3), I64), dim=1), S(T((2, 3), BOOL))],
           variants={"method": lambda m, x, **k: x.aminmax(**k)},
           errors=[E(T((0,)), _name="empty"), E(T((2, 0)), dim=1, _name="empty_dim"),
                   E(T((2, 0)), dim=-1, _name="empty_dim_neg"),
                   E(T((2, 3)), dim=2, _name="dim_out_of_range"),
                   E(T((2, 3)), 1, _fn=lambda m, x, d: m.aminmax(x, d), _name="positional")]),
    OpInfo(
        "diagonal", lambda m, x, *a, **k: m.diagonal(x, *a, **k),
        [
            S(T((3, 3))),
            S(T((3, 4), F64), 1),
            S(T((3, 4)), -2),
            S(T((3, 4)), 5),
            S(T((2, 3, 4)), 0, 2, 0),
            S(T((2, 3, 4)), offset=1, dim1=-1, dim2=1),
            S(T((3, 3), layout="T"), 1),
            S(T((3, 3), I64)),
        ],
        variants={"method": lambda m, x, *a, **k: x.diagonal(*a, **k)},
        errors=[
            E(T((3, 3)), 0, 1, 1, _name="same_dims"),
            E(T((3, 3)), 0, 0, 2, _name="dim_out_of_range"),
            E(T((3,)), _name="1d"),
        ],
    ),
]


# ---- issue 24: aliases and composites of python/gradrs/_ops/ ---------------------------------

def _clone_then(method):
    """``a.clone().<method>(*rest)``: an in-place form run on a non-leaf copy."""
    return lambda m, a, *rest, **k: getattr(a.clone(), method)(*rest, **k)


_PAIR = [S(T((2, 3)), T((2, 3))), S(T((2, 3), F64), T((3,), F64)), S(T((2, 3)), 2.5),
         S(T((2, 3), I64), T((2, 3), I64))]
_CMP = [S(T((2, 3), domain="ties"), T((2, 3), domain="ties")),
        S(T((2, 3), F64, domain="ties"), T((3,), F64, domain="ties")),
        S(T((2, 3), domain="ties"), 1.0), S(T((2, 3), I64, domain="ties"), T((2, 3), I64))]
_CMP_INPLACE = [S(T((2, 3), domain="ties", rg=False), T((2, 3), domain="ties", rg=False)),
                S(T((2, 3), F64, domain="ties", rg=False), T((3,), F64, rg=False)),
                S(T((2, 3), I64, domain="ties"), 1)]

OPS.extend([
    OpInfo("multiply", lambda m, a, b: m.multiply(a, b), _PAIR,
           variants={"method": lambda m, a, b: a.multiply(b),
                     "inplace": _clone_then("multiply_")}),
    OpInfo("divide", lambda m, a, b, **k: m.divide(a, b, **k),
           _PAIR[:3] + [S(T((2, 3)), T((2, 3)), rounding_mode="floor", _fd=False)],
           domain=("real", "nonzero"),
           variants={"method": lambda m, a, b, **k: a.divide(b, **k),
                     "inplace": _clone_then("divide_")}),
    OpInfo("true_divide", lambda m, a, b: m.true_divide(a, b), _PAIR[:3],
           domain=("real", "nonzero"),
           variants={"method": lambda m, a, b: a.true_divide(b),
                     "inplace": _clone_then("true_divide_")}),
    OpInfo("subtract", lambda m, a, b, **k: m.subtract(a, b, **k),
           _PAIR + [S(T((2, 3)), T((2, 3)), alpha=2)],
           variants={"method": lambda m, a, b, **k: a.subtract(b, **k),
                     "inplace": _clone_then("subtract_")}),
    *[OpInfo(name, (lambda n: lambda m, a, b: getattr(m, n)(a, b))(name), _CMP,
             differentiable=False,
             variants={"method": (lambda n: lambda m, a, b: getattr(a, n)(b))(name)})
      for name in ("greater", "greater_equal", "less", "less_equal", "not_equal")],
    *[OpInfo(name, _clone_then(name), _CMP_INPLACE, differentiable=False,
             errors=[E(T((3,), rg=False), T((2, 3), rg=False), _name="broadcast_self")])
      for name in ("eq_", "ne_", "lt_", "le_", "gt_", "ge_", "greater_", "greater_equal_",
                   "less_", "less_equal_", "not_equal_")],
    OpInfo("swapaxes", lambda m, x, a, b: m.swapaxes(x, a, b),
           [S(T((2, 3)), 0, 1), S(T((2, 3, 4), F64), -1, 0), S(T((2, 3), I64), 1, 1)],
           variants={"method": lambda m, x, a, b: x.swapaxes(a, b),
                     "swapdims": lambda m, x, a, b: m.swapdims(x, a, b),
                     "swapdims_method": lambda m, x, a, b: x.swapdims(a, b)},
           errors=[E(T((2, 3)), 0, 2, _name="dim_out_of_range")]),
    OpInfo("positive", lambda m, x: m.positive(x), [S(T((2, 3))), S(T((), F64)), S(T((2,), I64))],
           variants={"method": lambda m, x: x.positive()},
           errors=[E(T((2,), BOOL), _name="bool")]),
    OpInfo("ravel", lambda m, x: m.ravel(x),
           [S(T((2, 3))), S(T((2, 3), F64, layout="T")), S(T(())), S(T((2, 0, 3))),
            S(T((2, 3), expand=(3,)))],
           variants={"method": lambda m, x: x.ravel()}),
    OpInfo("broadcast_to", lambda m, x, s: m.broadcast_to(x, s),
           [S(T((3,)), (2, 3)), S(T((2, 1), F64), (2, 4)), S(T(()), (2,)), S(T((3,)), (-1,))],
           variants={"method": lambda m, x, s: x.broadcast_to(s)},
           errors=[E(T((3,)), (2, 4), _name="mismatch"), E(T((3,)), 3, _name="bare_int")]),
    OpInfo("tile", lambda m, x, d: m.tile(x, d),
           [S(T((3,)), (2,)), S(T((2, 3), F64), (2,)), S(T((2, 3)), (2, 1, 2)), S(T(()), (3,)),
            S(T((2,), I64), ())],
           variants={"method": lambda m, x, d: x.tile(d),
                     "method_varargs": Variant(lambda m, x, d: x.tile(*d), lambda s: s.args[1])},
           errors=[E(T((3,)), (-1,), _name="negative"), E(T((3,)), 2, _name="bare_int")]),
    OpInfo("tensor_split", lambda m, x, *a, **k: m.tensor_split(x, *a, **k),
           [S(T((7,)), 3), S(T((2, 5), F64), 2, 1), S(T((6,)), [1, 4]), S(T((6,)), (-2, 9)),
            S(T((2, 6)), [3, 1], dim=-1), S(T((4,)), 6), S(T((5, 2), I64), 2)],
           variants={"method": lambda m, x, *a, **k: x.tensor_split(*a, **k)},
           errors=[E(T((3,)), 0, _name="zero_sections"), E(T(()), 2, _name="zero_dim"),
                   E(T((3,)), 1.5, _name="float")]),
    OpInfo("hsplit", lambda m, x, a: m.hsplit(x, a),
           [S(T((2, 6)), 3), S(T((6,), F64), 2), S(T((2, 4)), [1, 3])],
           variants={"method": lambda m, x, a: x.hsplit(a)},
           errors=[E(T(()), 2, _name="zero_dim"), E(T((2, 3)), 2, _name="not_divisible")]),
    OpInfo("vsplit", lambda m, x, a: m.vsplit(x, a),
           [S(T((4, 2)), 2), S(T((3, 2), F64), [1])],
           variants={"method": lambda m, x, a: x.vsplit(a)},
           errors=[E(T((3,)), 1, _name="one_dim"), E(T((3, 2)), 2, _name="not_divisible")]),
    OpInfo("dsplit", lambda m, x, a: m.dsplit(x, a),
           [S(T((2, 2, 4)), 2), S(T((1, 2, 3), F64), [2])],
           variants={"method": lambda m, x, a: x.dsplit(a)},
           errors=[E(T((3, 2)), 1, _name="two_dims"),
                   E(T((1, 2, 3)), 2, _name="not_divisible")]),
    OpInfo("split_with_sizes", lambda m, x, s, **k: m.split_with_sizes(x, s, **k),
           [S(T((5,)), [2, 3]), S(T((2, 5), F64), [1, 0, 4], dim=1)],
           variants={"method": lambda m, x, s, **k: x.split_with_sizes(s, **k)}),
    *[OpInfo(name, (lambda n: lambda m, *ts: getattr(m, n)(list(ts)))(name),
             [S(T((3,)), T((3,))), S(T((2, 3), F64), T((2, 3), F64)), S(T(()), T(())),
              S(T((2, 2)), T((2, 1))) if name in ("hstack", "column_stack")
              else S(T((1, 2, 3)), T((1, 2, 2))) if name == "dstack"
              else S(T((1, 3)), T((2, 3))), S(T((2, 3), I64), T((2, 3), I64))],
             errors=[E(_fn=(lambda n: lambda m: getattr(m, n)([]))(name), _name="empty"),
                     E(T((3,)), _fn=(lambda n: lambda m, x: getattr(m, n)(x))(name),
                       _name="tensor")])
      for name in ("hstack", "vstack", "row_stack", "dstack", "column_stack")],
    OpInfo("inner", lambda m, a, b: m.inner(a, b),
           [S(T((3,)), T((3,))), S(T((2, 3), F64), T((4, 3), F64)), S(T(()), T((2, 3))),
            S(T((2, 2, 3)), T((3,))), S(T((2, 3), I64), T((3,), I64))],
           variants={"method": lambda m, a, b: a.inner(b)},
           errors=[E(T((2, 3)), T((4,)), _name="mismatch")]),
    OpInfo("vdot", lambda m, a, b: m.vdot(a, b),
           [S(T((3,)), T((3,))), S(T((4,), F64), T((4,), F64)), S(T((0,)), T((0,))),
            S(T((3,), I64), T((3,), I64)), S(T((3,), layout=None), T((3,), rg=False))],
           variants={"method": lambda m, a, b: a.vdot(b)},
           errors=[E(T((2, 3)), T((4,)), _name="2d"), E(T((3,)), T((4,)), _name="sizes"),
                   E(T((3,)), T((3,), F64), _name="dtypes")]),
    OpInfo("outer_method", lambda m, a, b: a.outer(b),
           [S(T((3,)), T((2,))), S(T((2,), F64), T((4,), F64))],
           variants={"ger": lambda m, a, b: a.ger(b)}),
    OpInfo("addmv", lambda m, c, a, b, **k: m.addmv(c, a, b, **k),
           [S(T((2,)), T((2, 3)), T((3,))), S(T((2,), F64), T((2, 3), F64), T((3,), F64),
                                              beta=0.5, alpha=2),
            S(T((1,)), T((2, 3)), T((3,))), S(T(()), T((2, 3)), T((3,)), beta=0),
            S(T((2,), I64), T((2, 3), I64), T((3,), I64), alpha=2),
            S(T((2,), I64), T((2, 3), I64), T((3,), I64), beta=0.5, alpha=1.5),
            S(T((3,)), T((3, 2), layout="T"), T((2,)), alpha=0)],
           variants={"method": lambda m, c, a, b, **k: c.addmv(a, b, **k)},
           errors=[E(T((2,)), T((2, 3)), T((4,)), _name="vec"),
                   E(T((4,)), T((2, 3)), T((3,)), _name="input"),
                   E(T((2,)), T((3,)), T((3,)), _name="mat_1d"),
                   E(T((2,)), T((2, 3)), T((3, 1)), _name="vec_2d")]),
    OpInfo("addr", lambda m, c, a, b, **k: m.addr(c, a, b, **k),
           [S(T((2, 3)), T((2,)), T((3,))), S(T((3,), F64), T((2,), F64), T((3,), F64),
                                              beta=0.5, alpha=-1),
            S(T((2, 3)), T((2,)), T((3,)), beta=0),
            S(T((2, 3), I64), T((2,), I64), T((3,), I64), alpha=3)],
           variants={"method": lambda m, c, a, b, **k: c.addr(a, b, **k)},
           errors=[E(T((2, 3)), T((2, 1)), T((3,)), _name="vec1_2d"),
                   E(T((2, 4)), T((2,)), T((3,)), _name="input_shape")]),
    OpInfo("baddbmm", lambda m, c, a, b, **k: m.baddbmm(c, a, b, **k),
           [S(T((2, 2, 4)), T((2, 2, 3)), T((2, 3, 4))),
            S(T((2, 4), F64), T((2, 2, 3), F64), T((2, 3, 4), F64), beta=0.5, alpha=2),
            S(T((1, 2, 1)), T((2, 2, 3)), T((2, 3, 4)), beta=0)],
           variants={"method": lambda m, c, a, b, **k: c.baddbmm(a, b, **k)},
           errors=[E(T((2, 2, 2)), T((2, 2, 3)), T((2, 4, 2)), _name="inner"),
                   E(T((2, 2, 2)), T((2, 2, 3)), T((3, 3, 2)), _name="batches"),
                   E(T((2, 2, 2)), T((2, 2, 3, 1)), T((2, 3, 2)), _name="4d")]),
    OpInfo("addbmm", lambda m, c, a, b, **k: m.addbmm(c, a, b, **k),
           [S(T((2, 4)), T((3, 2, 3)), T((3, 3, 4))),
            S(T((4,), F64), T((2, 2, 3), F64), T((2, 3, 4), F64), beta=2, alpha=0.5),
            S(T((2, 4)), T((3, 2, 3)), T((3, 3, 4)), beta=0)],
           variants={"method": lambda m, c, a, b, **k: c.addbmm(a, b, **k)},
           errors=[E(T((2, 2)), T((2, 2, 3)), T((2, 4, 2)), _name="inner"),
                   E(T((2, 2)), T((2, 2, 3)), T((3, 3, 2)), _name="batches")]),
    OpInfo("diag", lambda m, x, *a: m.diag(x, *a),
           [S(T((3,))), S(T((3,), F64), 1), S(T((2,)), -2), S(T((3, 3))), S(T((3, 4), F64), 1),
            S(T((3, 4)), -2), S(T((3, 3), I64)), S(T((3, 3), layout="T"))],
           variants={"method": lambda m, x, *a: x.diag(*a)},
           errors=[E(T((2, 2, 2)), _name="3d")]),
    OpInfo("diag_embed", lambda m, x, *a: m.diag_embed(x, *a),
           [S(T((3,))), S(T((2, 3), F64), 1), S(T((2, 3)), -1, 0, 2), S(T((2, 3)), 0, -1, 0),
            S(T((2, 3), I64))],
           variants={"method": lambda m, x, *a: x.diag_embed(*a)},
           errors=[E(T((2, 3)), 0, 1, 1, _name="same_dims")]),
    OpInfo("diagflat", lambda m, x, *a: m.diagflat(x, *a),
           [S(T((3,))), S(T((2, 2), F64), 1), S(T(()), -1), S(T((2, 3), layout="T"))],
           variants={"method": lambda m, x, *a: x.diagflat(*a)}),
    OpInfo("take", lambda m, x, i: m.take(x, i),
           [S(T((2, 3)), T((4,), I64, data=[0, 5, -1, 2])),
            S(T((2, 3), F64), T((2, 2), I64, data=[[1, 1], [3, -6]])),
            S(T((2, 3), layout="T"), T((), I64, data=4))],
           variants={"method": lambda m, x, i: x.take(i)},
           errors=[E(T((2, 3)), T((1,), I64, data=[6]), _name="out_of_range"),
                   E(T((2, 3)), T((1,), F32, rg=False, data=[1.0]), _name="float_index")]),
    OpInfo("index_copy", lambda m, x, d, i, s: m.index_copy(x, d, i, s),
           [S(T((3, 2)), 0, T((2,), I64, data=[2, 0]), T((2, 2))),
            S(T((3, 4), F64), -1, T((2,), I64, data=[1, 3]), T((3, 2), F64))],
           variants={"method": lambda m, x, d, i, s: x.index_copy(d, i, s)},
           errors=[E(T((3, 2)), 0, T((2,), I64, data=[2, 0]), T((2, 2), F64),
                     _name="dtype")]),
    OpInfo("masked_scatter", lambda m, x, k, s: m.masked_scatter(x, k, s),
           [S(T((2, 3)), T((2, 3), BOOL), T((6,))),
            S(T((2, 3), F64), T((3,), BOOL), T((2, 4), F64)),
            S(T((3,)), T((2, 3), BOOL), T((7,)))],
           variants={"method": lambda m, x, k, s: x.masked_scatter(k, s)},
           errors=[E(T((2, 3)), T((2, 3), I64), T((6,)), _name="int_mask"),
                   E(T((2, 3)), T((2, 3), BOOL), T((6,), F64), _name="dtypes")]),
    OpInfo("sum_to_size", lambda m, x, *s: x.sum_to_size(*s),
           [S(T((2, 3)), 1, 3), S(T((2, 3), F64), 3), S(T((2, 3)), (2, 1)), S(T((2, 3)), 2, 3),
            S(T((2, 3, 4)), 1, 1)],
           errors=[E(T((2, 3)), 1, 1, 3, _name="too_long"), E(T((2, 3)), 2, _name="mismatch")]),
    OpInfo("float_power", lambda m, a, b: m.float_power(a, b),
           [S(T((2, 3), domain="positive"), 2), S(T((2, 3), F64, domain="positive"), T((3,))),
            S(T((2, 3), I64), 2), S(T((2, 3), domain="positive"), 0.5)],
           variants={"method": lambda m, a, b: a.float_power(b)},
           errors=[E(T((2,)), 2, _fn=lambda m, a, b: a.clone().float_power_(b),
                     _name="inplace_float")]),
    OpInfo("sgn", lambda m, x: m.sgn(x), unary_samples(), gradgrad=False,
           variants={"method": lambda m, x: x.sgn()}),
    OpInfo("signbit", lambda m, x: m.signbit(x),
           [S(T((2, 3))), S(T((4,), F64, data=[-0.0, 0.0, -NAN, 1.0])), S(T((2,), I64)),
            S(T((2,), BOOL))],
           differentiable=False, variants={"method": lambda m, x: x.signbit()}),
    OpInfo("logcumsumexp", lambda m, x, d: m.logcumsumexp(x, d),
           [S(T((3, 4)), 0), S(T((3, 4), F64), 1), S(T((4,)), -1), S(T(()), 0), S(T((0, 2)), 1),
            S(T((3,), data=[-INF, 1.0, -INF]), 0, _fd=False, _gradgrad=False)],
           variants={"method": lambda m, x, d: x.logcumsumexp(d)},
           errors=[E(T((2,)), 1, _name="dim"), E(T((2,), I64), 0, _name="int")]),
    OpInfo("cov", lambda m, x, fw=None, aw=None, **k: m.cov(x, fweights=fw, aweights=aw, **k),
           [S(T((3, 4))), S(T((3, 4), F64), correction=0), S(T((4,))), S(T((2, 3), I64)),
            S(T((2, 3)), T((3,), I64, data=[1, 2, 1])),
            S(T((2, 3), F64), None, T((3,), F64, domain="positive")),
            S(T((2, 3), F64), T((3,), I64, data=[1, 0, 3]), T((3,), F64, domain="positive"),
              correction=2)],
           variants={"method": lambda m, x, fw=None, aw=None, **k: x.cov(fweights=fw,
                                                                          aweights=aw, **k)},
           errors=[E(T((2, 2, 2)), _name="3d"), E(T((2,), BOOL), _name="bool"),
                   E(T((2, 3)), T((3,), F32, rg=False), _name="float_fweights"),
                   E(T((2, 3)), None, T((2,), F32, rg=False), _name="aweights_numel"),
                   E(T((2, 3)), T((3,), I64, data=[1, -1, 1]), _name="negative_fweights"),
                   E(T((2, 3)), T((3,), I64, data=[0, 0, 0]), _name="zero_weights")]),
    _unary("asinh", extra=[S(T((3,), data=[1e-4, -30.0, 1e10]), _fd=False)],
           variants={"alias": lambda m, x: m.arcsinh(x)}),
    _unary("acosh", domain="above_one",
           extra=[S(T((3,), data=[1.0, 0.5, 2.0]), _fd=False, _gradgrad=False)],
           variants={"alias": lambda m, x: m.arccosh(x)}),
    _unary("atanh", domain="unit",
           extra=[S(T((4,), data=[1.0, -1.0, 2.0, 1e-4]), _fd=False, _gradgrad=False)],
           variants={"alias": lambda m, x: m.arctanh(x)}),
    _unary("erfc", extra=[S(T((4,), data=[3.0, -3.0, 8.0, 0.25]), _fd=False)]),
    _unary("erfinv", domain="unit",
           extra=[S(T((4,), data=[1.0, -1.0, 2.0, 0.999]), _fd=False, _gradgrad=False)]),
    _unary("lgamma", domain="positive",
           extra=[S(T((6,), data=[0.0, -1.0, -2.5, 1e-30, 30.5, 1e30]), _fd=False,
                    _gradgrad=False)]),
    _unary("digamma", domain="positive",
           extra=[S(T((6,), data=[0.0, -1.0, -2.5, 1e-7, 10.0, 1e20]), _fd=False,
                    _gradgrad=False)]),
    OpInfo("polygamma", lambda m, n, x: m.polygamma(n, x),
           [S(1, T((2, 3), domain="positive")), S(2, T((2, 3), F64, domain="positive")),
            S(3, T((2, 1, 3), F64, domain="positive")), S(0, T((2, 3), domain="positive")),
            S(2, T((2, 3), I64, rg=False)), S(4, T((0,))),
            S(2, T((5,), data=[0.0, -1.0, -2.5, 8.0, 1e10]), _fd=False, _gradgrad=False)],
           variants={"method": lambda m, n, x: x.polygamma(n)},
           errors=[E(-1, T((2,)), _name="negative_n"), E(1.5, T((2,)), _name="float_n")]),
    OpInfo("mvlgamma", lambda m, x, p: m.mvlgamma(x, p),
           [S(T((2, 3), data=[[2.5, 3.0, 4.5], [6.0, 1.2, 9.0]]), 2),
            S(T((2, 3), F64, data=[[2.5, 3.0, 4.5], [6.0, 1.7, 9.0]]), 3),
            S(T((2, 3), domain="positive"), 1), S(T((2, 3), I64, rg=False), 2)],
           variants={"method": lambda m, x, p: x.mvlgamma(p),
                     "special": lambda m, x, p: m.special.multigammaln(x, p)},
           errors=[E(T((2,)), 0, _name="p_below_1"),
                   E(T((2,), BOOL, rg=False), 1, _name="bool")]),
    _unary("i0", extra=[S(T((6,), data=[0.0, 8.0, -8.5, 30.0, 100.0, 1e-30]), _fd=False)],
           variants={"special": lambda m, x: m.special.i0(x)}),
    OpInfo("special_i0e", lambda m, x: m.special.i0e(x),
           unary_samples() + [S(T((6,), data=[0.0, 8.0, -8.5, 30.0, 1e10, -1e-30]), _fd=False)]),
    OpInfo("special_i1", lambda m, x: m.special.i1(x),
           unary_samples() + [S(T((6,), data=[0.0, 8.0, -8.5, 30.0, 1e-10, -1e-30]), _fd=False)]),
    OpInfo("special_i1e", lambda m, x: m.special.i1e(x),
           unary_samples() + [S(T((6,), data=[0.0, 8.0, -8.5, 30.0, 1e10, -1e-30]), _fd=False)]),
    # torch.special's declared functions (issue 24).
    OpInfo("special_ndtri", lambda m, x: m.special.ndtri(x),
           unary_samples() + [S(T((6,), data=[0.0, 1.0, 0.5, 1e-20, 0.9999, 1.5]), _fd=False)],
           domain="prob"),
    OpInfo("special_bessel_j0", lambda m, x: m.special.bessel_j0(x),
           unary_samples() + [S(T((7,), data=[0.0, 5.0, -5.5, 30.0, 1e-6, -1e3, 4.9]))],
           differentiable=False),
    OpInfo("special_bessel_j1", lambda m, x: m.special.bessel_j1(x),
           unary_samples() + [S(T((7,), data=[0.0, 5.0, -5.5, 30.0, 1e-6, -1e3, 4.9]))],
           differentiable=False),
    OpInfo("special_bessel_y0", lambda m, x: m.special.bessel_y0(x),
           unary_samples() + [S(T((7,), data=[0.0, 5.0, -5.5, 30.0, 1e-6, -1e3, 4.9]))],
           differentiable=False),
    OpInfo("special_bessel_y1", lambda m, x: m.special.bessel_y1(x),
           unary_samples() + [S(T((7,), data=[0.0, 5.0, -5.5, 30.0, 1e-6, -1e3, 4.9]))],
           differentiable=False),
    OpInfo("special_modified_bessel_i0", lambda m, x: m.special.modified_bessel_i0(x),
           unary_samples() + [S(T((7,), data=[0.0, 2.0, -5.5, 30.0, 1e-6, 8.5, 1.9]))],
           differentiable=False),
    OpInfo("special_modified_bessel_i1", lambda m, x: m.special.modified_bessel_i1(x),
           unary_samples() + [S(T((7,), data=[0.0, 2.0, -5.5, 30.0, 1e-6, 8.5, 1.9]))],
           differentiable=False),
    OpInfo("special_modified_bessel_k0", lambda m, x: m.special.modified_bessel_k0(x),
           unary_samples() + [S(T((7,), data=[0.0, 2.0, -5.5, 30.0, 1e-6, 8.5, 1.9]))],
           differentiable=False),
    OpInfo("special_modified_bessel_k1", lambda m, x: m.special.modified_bessel_k1(x),
           unary_samples() + [S(T((7,), data=[0.0, 2.0, -5.5, 30.0, 1e-6, 8.5, 1.9]))],
           differentiable=False),
    OpInfo("special_scaled_modified_bessel_k0", lambda m, x: m.special.scaled_modified_bessel_k0(x),
           unary_samples() + [S(T((7,), data=[0.0, 2.0, -5.5, 30.0, 1e-6, 8.5, 1.9]))],
           differentiable=False),
    OpInfo("special_scaled_modified_bessel_k1", lambda m, x: m.special.scaled_modified_bessel_k1(x),
           unary_samples() + [S(T((7,), data=[0.0, 2.0, -5.5, 30.0, 1e-6, 8.5, 1.9]))],
           differentiable=False),
    OpInfo("special_spherical_bessel_j0", lambda m, x: m.special.spherical_bessel_j0(x),
           unary_samples() + [S(T((6,), data=[0.0, 0.4999, 0.5, -30.0, float("inf"), 1e-6]))],
           differentiable=False),
    OpInfo("special_airy_ai", lambda m, x: m.special.airy_ai(x),
           unary_samples() + [S(T((10,), data=[0.0, 2.09, -2.09, 2.0899, -2.0901, 8.5, -30.0,
                                                103.9, float("inf"), -float("inf")])),
                              S(T((6,), F64, data=[1e-3, -5.5, 3.3, 50.0, -100.0, 1.5]))],
           differentiable=False),
    OpInfo("special_erfcx", lambda m, x: m.special.erfcx(x),
           unary_samples() + [S(T((7,), data=[0.0, 50.5, -6.5, -30.0, 1e8, 3.0, -1.0]), _fd=False)]),
    OpInfo("special_log_ndtr", lambda m, x: m.special.log_ndtr(x),
           unary_samples() + [S(T((6,), data=[0.0, -1.5, -40.0, 10.0, -0.5, 5.0]), _fd=False)]),
    OpInfo("special_chebyshev_polynomial_t", lambda m, x, k: m.special.chebyshev_polynomial_t(x, k),
           [S(T((2, 3)), T((2, 3), data=[[0, 1, 2], [3, 7, 12]])), S(T((4,), F64, data=[1.0, -1.0, 0.0, 0.5]), T((4,), F64, data=[3, 9, 10, 2])),
            S(T((2, 3), F64), 5), S(T((3,), I64), T((3,), I64, data=[1, 2, 3]))],
           differentiable=False, tol=_POLY_TOL),
    OpInfo("special_chebyshev_polynomial_u", lambda m, x, k: m.special.chebyshev_polynomial_u(x, k),
           [S(T((2, 3)), T((2, 3), data=[[0, 1, 2], [3, 7, 12]])), S(T((4,), F64, data=[1.0, -1.0, 0.0, 0.5]), T((4,), F64, data=[3, 9, 10, 2])),
            S(T((2, 3), F64), 5), S(T((3,), I64), T((3,), I64, data=[1, 2, 3]))],
           differentiable=False, tol=_POLY_TOL),
    OpInfo("special_chebyshev_polynomial_v", lambda m, x, k: m.special.chebyshev_polynomial_v(x, k),
           [S(T((2, 3)), T((2, 3), data=[[0, 1, 2], [3, 7, 12]])), S(T((4,), F64, data=[1.0, -1.0, 0.0, 0.5]), T((4,), F64, data=[3, 9, 10, 2])),
            S(T((2, 3), F64), 5), S(T((3,), I64), T((3,), I64, data=[1, 2, 3]))],
           differentiable=False, tol=_POLY_TOL),
    OpInfo("special_chebyshev_polynomial_w", lambda m, x, k: m.special.chebyshev_polynomial_w(x, k),
           [S(T((2, 3)), T((2, 3), data=[[0, 1, 2], [3, 7, 12]])), S(T((4,), F64, data=[1.0, -1.0, 0.0, 0.5]), T((4,), F64, data=[3, 9, 10, 2])),
            S(T((2, 3), F64), 5), S(T((3,), I64), T((3,), I64, data=[1, 2, 3]))],
           differentiable=False, tol=_POLY_TOL),
    OpInfo("special_shifted_chebyshev_polynomial_t", lambda m, x, k: m.special.shifted_chebyshev_polynomial_t(x, k),
           [S(T((2, 3)), T((2, 3), data=[[0, 1, 2], [3, 7, 12]])), S(T((4,), F64, data=[1.0, -1.0, 0.0, 0.5]), T((4,), F64, data=[3, 9, 10, 2])),
            S(T((2, 3), F64), 5), S(T((3,), I64), T((3,), I64, data=[1, 2, 3]))],
           differentiable=False, tol=_POLY_TOL),
    OpInfo("special_shifted_chebyshev_polynomial_u", lambda m, x, k: m.special.shifted_chebyshev_polynomial_u(x, k),
           [S(T((2, 3)), T((2, 3), data=[[0, 1, 2], [3, 7, 12]])), S(T((4,), F64, data=[1.0, -1.0, 0.0, 0.5]), T((4,), F64, data=[3, 9, 10, 2])),
            S(T((2, 3), F64), 5), S(T((3,), I64), T((3,), I64, data=[1, 2, 3]))],
           differentiable=False, tol=_POLY_TOL),
    OpInfo("special_shifted_chebyshev_polynomial_v", lambda m, x, k: m.special.shifted_chebyshev_polynomial_v(x, k),
           [S(T((2, 3)), T((2, 3), data=[[0, 1, 2], [3, 7, 12]])), S(T((4,), F64, data=[1.0, -1.0, 0.0, 0.5]), T((4,), F64, data=[3, 9, 10, 2])),
            S(T((2, 3), F64), 5), S(T((3,), I64), T((3,), I64, data=[1, 2, 3]))],
           differentiable=False, tol=_POLY_TOL),
    OpInfo("special_shifted_chebyshev_polynomial_w", lambda m, x, k: m.special.shifted_chebyshev_polynomial_w(x, k),
           [S(T((2, 3)), T((2, 3), data=[[0, 1, 2], [3, 7, 12]])), S(T((4,), F64, data=[1.0, -1.0, 0.0, 0.5]), T((4,), F64, data=[3, 9, 10, 2])),
            S(T((2, 3), F64), 5), S(T((3,), I64), T((3,), I64, data=[1, 2, 3]))],
           differentiable=False, tol=_POLY_TOL),
    OpInfo("special_hermite_polynomial_h", lambda m, x, k: m.special.hermite_polynomial_h(x, k),
           [S(T((2, 3)), T((2, 3), data=[[0, 1, 2], [3, 7, 12]])), S(T((4,), F64, data=[1.0, -1.0, 0.0, 0.5]), T((4,), F64, data=[3, 9, 10, 2])),
            S(T((2, 3), F64), 5), S(T((3,), I64), T((3,), I64, data=[1, 2, 3]))],
           differentiable=False, tol=_POLY_TOL),
    OpInfo("special_hermite_polynomial_he", lambda m, x, k: m.special.hermite_polynomial_he(x, k),
           [S(T((2, 3)), T((2, 3), data=[[0, 1, 2], [3, 7, 12]])), S(T((4,), F64, data=[1.0, -1.0, 0.0, 0.5]), T((4,), F64, data=[3, 9, 10, 2])),
            S(T((2, 3), F64), 5), S(T((3,), I64), T((3,), I64, data=[1, 2, 3]))],
           differentiable=False, tol=_POLY_TOL),
    OpInfo("special_laguerre_polynomial_l", lambda m, x, k: m.special.laguerre_polynomial_l(x, k),
           [S(T((2, 3)), T((2, 3), data=[[0, 1, 2], [3, 7, 12]])), S(T((4,), F64, data=[1.0, -1.0, 0.0, 0.5]), T((4,), F64, data=[3, 9, 10, 2])),
            S(T((2, 3), F64), 5), S(T((3,), I64), T((3,), I64, data=[1, 2, 3]))],
           differentiable=False, tol=_POLY_TOL),
    OpInfo("special_legendre_polynomial_p", lambda m, x, k: m.special.legendre_polynomial_p(x, k),
           [S(T((2, 3)), T((2, 3), data=[[0, 1, 2], [3, 7, 12]])), S(T((4,), F64, data=[1.0, -1.0, 0.0, 0.5]), T((4,), F64, data=[3, 9, 10, 2])),
            S(T((2, 3), F64), 5), S(T((3,), I64), T((3,), I64, data=[1, 2, 3]))],
           differentiable=False, tol=_POLY_TOL),
    OpInfo("fill_diagonal_", lambda m, x, *a, **k: x.clone().fill_diagonal_(*a, **k),
           [S(T((3, 3)), 2.0), S(T((2, 4), F64), -1.0), S(T((7, 3)), 5.0, wrap=True),
            S(T((9, 3)), 5.0, wrap=True), S(T((7, 3)), 5.0), S(T((3, 3, 3)), 1.5),
            S(T((3, 3), I64), 7)],
           errors=[E(T((3,)), 1.0, _name="1d"), E(T((3, 3, 2)), 1.0, _name="unequal")]),
    OpInfo("put", lambda m, x, i, s, **k: m.put(x, i, s, **k),
           [S(T((2, 3)), T((2,), I64, data=[0, 5]), T((2,))),
            S(T((2, 3), F64), T((2, 2), I64, data=[[1, -1], [3, 2]]), T((4,), F64)),
            S(T((2, 3)), T((3,), I64, data=[1, 1, 4]), T((3,)), accumulate=True),
            S(T((3,)), T((0,), I64), T((0,)))],
           variants={"method": lambda m, x, i, s, **k: x.put(i, s, **k)},
           errors=[E(T((2, 3)), T((1,), I64, data=[6]), T((1,)), _name="out_of_range"),
                   E(T((2, 3)), T((2,), I64, data=[0, 1]), T((3,)), _name="numel"),
                   E(T((2, 3)), T((2,), I64, data=[0, 1]), T((2,), F64), _name="dtype"),
                   E(T((2, 3)), T((1,), rg=False, data=[1.0]), T((1,)), _name="float_index")]),
    OpInfo("rsub", lambda m, a, b, **k: m.rsub(a, b, **k),
           [S(T((2, 3)), T((2, 3))), S(T((2, 3), F64), T((3,), F64), alpha=2),
            S(T((3,)), T((2, 3))), S(T((2, 3)), 2.5), S(T((2, 3), F64), 2, alpha=0.5),
            S(T((2, 3), I64), T((2, 3), I64)), S(T((2, 3), I64), 3)],
           errors=[E(T((2,), BOOL), T((2,), BOOL), _name="bools")]),
    OpInfo("fill", lambda m, x, v: m.fill(x, v),
           [S(T((2, 3)), 2.5), S(T((2, 3), F64), T((), F64)), S(T((2, 3), I64), 3),
            S(T((2,)), T((), F64))],
           errors=[E(T((2, 3)), T((2,)), _name="value_1d")]),
    OpInfo("fmin", lambda m, a, b: m.fmin(a, b),
           [S(T((2, 3)), T((2, 3))), S(T((2, 3), F64), T((3,), F64)),
            S(T((4,), data=[1.0, NAN, NAN, 2.0]), T((4,), data=[NAN, 3.0, NAN, 2.0]), _fd=False),
            S(T((2,), I64), T((2,), F32)), S(T((2, 3), I64), T((2, 3), I64))],
           variants={"method": lambda m, a, b: a.fmin(b)}),
    OpInfo("gcd", lambda m, a, b: m.gcd(a, b),
           [S(T((4,), I64, data=[12, -18, 0, 0]), T((4,), I64, data=[8, 12, 5, 0])),
            S(T((2, 3), I64), T((3,), I64))],
           variants={"method": lambda m, a, b: a.gcd(b), "inplace": _clone_then("gcd_")},
           errors=[E(T((2,)), T((2,)), _name="float"), E(T((2,), BOOL), T((2,), BOOL),
                                                         _name="bool")]),
    OpInfo("lcm", lambda m, a, b: m.lcm(a, b),
           [S(T((3,), I64, data=[4, -6, 0]), T((3,), I64, data=[6, 4, 3])),
            S(T((2, 3), I64), T((3,), I64))],
           variants={"method": lambda m, a, b: a.lcm(b), "inplace": _clone_then("lcm_")},
           errors=[E(T((2,)), T((2,)), _name="float")]),
    OpInfo("bitwise_left_shift", lambda m, a, b: m.bitwise_left_shift(a, b),
           [S(T((3,), I64, data=[1, -3, 5]), T((3,), I64, data=[2, 1, 70])),
            S(T((2,), I64, data=[1, 2]), -1), S(T((2,), I64, data=[1, 2]), 1),
            S(T((1,), BOOL, data=[True]), 1), S(T((3,), I64, data=[1, -1, 3]), 63)],
           variants={"method": lambda m, a, b: a.bitwise_left_shift(b),
                     "operator": lambda m, a, b: a << b,
                     "inplace": Variant(_clone_then("bitwise_left_shift_"),
                                        lambda s: s.args[0].dtype != BOOL)},
           errors=[E(T((2,)), 1, _name="float")]),
    OpInfo("bitwise_right_shift", lambda m, a, b: m.bitwise_right_shift(a, b),
           [S(T((3,), I64, data=[-9, 9, 5]), T((3,), I64, data=[2, 1, 70])),
            S(T((2,), I64, data=[-8, 8]), -1), S(T((3,), I64, data=[-8, 8, -1]), 63),
            S(T((3,), I64, data=[-7, 7, 100]), 2)],
           variants={"method": lambda m, a, b: a.bitwise_right_shift(b),
                     "operator": lambda m, a, b: a >> b,
                     "inplace": _clone_then("bitwise_right_shift_")},
           errors=[E(T((2,)), 1, _name="float")]),
    *[OpInfo(f"{name}_function", (lambda n: lambda m, a, b: getattr(m, n)(a, b))(name),
             [S(T((2, 3), I64), T((2, 3), I64)), S(T((2, 3), BOOL), T((3,), BOOL)),
              S(T((2, 3), I64), 3)],
             variants={"inplace": _clone_then(f"{name}_")},
             errors=[E(T((2,)), T((2,)), _name="float")])
      for name in ("bitwise_and", "bitwise_or", "bitwise_xor")],
    OpInfo("bitwise_not_function", lambda m, x: m.bitwise_not(x),
           [S(T((2, 3), I64)), S(T((2, 3), BOOL))],
           variants={"inplace": _clone_then("bitwise_not_")}),
    OpInfo("isin", lambda m, a, b, **k: m.isin(a, b, **k),
           [S(T((2, 3), I64), T((2,), I64, data=[1, 2])),
            S(T((4,), F32, rg=False, data=[1.0, 2.0, 3.0, NAN]), 2.0),
            S(T((2, 3), I64), T((2,), I64, data=[1, 2]), invert=True),
            S(T((3,), I64), T((0,), I64))], differentiable=False),
    OpInfo("histc", lambda m, x, *a, **k: m.histc(x, *a, **k),
           [S(T((10,), rg=False)), S(T((2, 5), F64, rg=False), 4),
            S(T((6,), rg=False, data=[0.0, 1.0, 1.0, 2.0, 3.0, 4.0]), 4, min=1, max=3),
            S(T((3,), rg=False, data=[1.0, 1.0, 1.0]), 3), S(T((0,), rg=False), 2)],
           differentiable=False, variants={"method": lambda m, x, *a, **k: x.histc(*a, **k)},
           errors=[E(T((2,), I64), 4, _name="int"), E(T((2,)), 0, _name="zero_bins"),
                   E(T((2,)), 4, 2, 1, _name="max_below_min"),
                   E(T((2,), data=[1.0, NAN]), 4, _name="nan")]),
    OpInfo("nanmedian", lambda m, x, *a, **k: m.nanmedian(x, *a, **k),
           [S(T((5,))), S(T((2, 5), F64)), S(T((5,), data=[1.0, NAN, 3.0, -1.0, NAN])),
            S(T((2, 5)), 1), S(T((2, 5), F64), 0, True), S(T(()), 0), S(T(())),
            S(T((2, 3), data=[[NAN, NAN, NAN], [1.0, NAN, 2.0]]), 1, _fd=False),
            S(T((2, 3), I64, data=[[1, 5, 3], [4, 2, 6]]), -1), S(T((0,)))],
           variants={"method": lambda m, x, *a, **k: x.nanmedian(*a, **k)},
           errors=[E(T((2, 0)), 1, _name="empty_dim")]),
    OpInfo("corrcoef", lambda m, x: m.corrcoef(x),
           [S(T((3, 4))), S(T((2, 5), F64)), S(T((4,))), S(T((2, 3), I64))],
           variants={"method": lambda m, x: x.corrcoef()},
           errors=[E(T((2, 2, 2)), _name="3d")]),
])

OPS_BY_NAME = {op.name: op for op in OPS}
assert len(OPS_BY_NAME) == len(OPS), "duplicate op names"


# ---- gradrs.linalg (python/gradrs/linalg.py on the faer factorizations) -------------------
# Inputs are random matrices (fixed seeds: well conditioned); symmetric / positive-definite
# ones are built inside the call (a + a^T, a a^T + 3 I), so gradients flow through that too.
# Eigenvectors and singular vectors are defined up to sign: the entries compare sign-free
# functions of them (v ** 2 * 1.5: the last node keeps no signed tensor). Results are row-major
# where PyTorch's (LAPACK's) are column-major, so the strides a later matmul keeps differ:
# samples chaining on an inverse are left out (matrix_power with n < -1).


def _spd(m, a):
    n = a.shape[-1]
    return a @ a.transpose(-2, -1) + 3 * m.eye(n, dtype=a.dtype, device=a.device)


def _sym(a):
    return a + a.transpose(-2, -1)


_SQ = [S(T((3, 3))), S(T((3, 3), F64)), S(T((2, 3, 3), F64)), S(T((3, 3), layout="T")),
       S(T((1, 1))), S(T((0, 0)), _fd=False)]
_SQ_ERRORS = [E(T((2, 3)), _name="nonsquare"), E(T((3,)), _name="1d"),
              E(T((3, 3), I64), _name="int")]

OPS += [
    OpInfo("linalg.vector_norm", lambda m, x, *a, **k: m.linalg.vector_norm(x, *a, **k), [
        S(T((2, 3))), S(T((2, 3), F64), 1), S(T((2, 3)), 3.0, 1), S(T((2, 3)), math.inf, 0),
        S(T((2, 3)), -math.inf), S(T((2, 3), F64), 0.5, (0, 1), True), S(T((2, 3)), 2, -1, True),
        S(T(()), 2), S(T((0, 3)), 2, 1, _fd=False),
    ], errors=[E(T((2, 3), I64), _name="int"), E(T((0,)), math.inf, _name="empty_inf")]),
    OpInfo("linalg.matrix_norm", lambda m, x, *a, **k: m.linalg.matrix_norm(x, *a, **k), [
        S(T((2, 3))), S(T((3, 3), F64), "nuc"), S(T((3, 2), F64), 2), S(T((2, 3, 3), F64), -2),
        S(T((3, 3)), 1), S(T((3, 3)), -1), S(T((2, 3, 3)), math.inf, keepdim=True),
        S(T((3, 3), F64), -math.inf), S(T((2, 3, 4), F64), "fro", (0, 2)),
    ], errors=[E(T((3,)), _name="1d"), E(T((3, 3)), 3, _name="ord"),
               E(T((3, 3)), "foo", _name="ord_str")]),
    OpInfo("linalg.norm", lambda m, x, *a, **k: m.linalg.norm(x, *a, **k), [
        S(T((2, 3))), S(T((3,), F64), 1), S(T((3, 3), F64), "fro"), S(T((2, 3, 3)), None, (1, 2)),
        S(T((3, 3), F64), math.inf), S(T((2, 3)), 3, 1),
    ], errors=[E(T((2, 2, 2)), 2, _name="3d_ord"), E(T((3,)), "fro", _name="1d_fro")]),
    OpInfo("linalg.vecdot", lambda m, x, y, **k: m.linalg.vecdot(x, y, **k), [
        S(T((2, 3)), T((2, 3))), S(T((3,), F64), T((2, 3), F64)), S(T((2, 3)), T((2, 3)), dim=0),
    ], errors=[E(T((3,)), T((4,)), _name="size")]),
    OpInfo("linalg.cross", lambda m, x, y, **k: m.linalg.cross(x, y, **k), [
        S(T((3,)), T((3,))), S(T((2, 3), F64), T((2, 3), F64)), S(T((3, 2)), T((3, 2)), dim=0),
        S(T((1, 3)), T((4, 3))),
    ], errors=[E(T((4,)), T((4,)), _name="len4"), E(T((3, 2)), T((3, 2)), _name="dim")],
        variants={"torch.cross": lambda m, x, y, **k: m.cross(x, y, dim=k.get("dim", -1)),
                  "method": lambda m, x, y, **k: x.cross(y, dim=k.get("dim", -1))}),
    OpInfo("linalg.diagonal", lambda m, x, **k: m.linalg.diagonal(x, **k), [
        S(T((3, 3))), S(T((2, 3, 4), F64), offset=1), S(T((3, 4)), dim1=-1, dim2=-2),
    ]),
    OpInfo("linalg.multi_dot", lambda m, *ts: m.linalg.multi_dot(list(ts)), [
        S(T((2, 3)), T((3, 4))), S(T((3,), F64), T((3, 4), F64), T((4, 2), F64)),
        S(T((2, 3)), T((3, 4)), T((4, 5)), T((5,))),
    ], errors=[E(T((2, 3)), _name="one"), E(T((2, 3)), T((2, 3)), _name="shape"),
               E(T((2, 3)), T((3, 3, 3)), _name="3d")]),
    OpInfo("linalg.matrix_power", lambda m, x, n: m.linalg.matrix_power(x, n), [
        S(T((3, 3)), 2), S(T((3, 3), F64), 3), S(T((2, 3, 3), F64), 5), S(T((3, 3)), 1),
        S(T((3, 3), F64), -1), S(T((3, 3)), 0),
    ], variants={"method": lambda m, x, n: x.matrix_power(n)},
        errors=[E(T((2, 3)), 2, _name="nonsquare")]),
    OpInfo("linalg.det", lambda m, x: m.linalg.det(x), _SQ, errors=_SQ_ERRORS,
           variants={"torch.det": lambda m, x: m.det(x), "method": lambda m, x: x.det()}),
    OpInfo("linalg.slogdet", lambda m, x: m.linalg.slogdet(x), _SQ, errors=_SQ_ERRORS),
    OpInfo("logdet", lambda m, x: m.logdet(_spd(m, x)), _SQ[:3],
           variants={"method": lambda m, x: _spd(m, x).logdet()}),
    OpInfo("linalg.inv", lambda m, x: m.linalg.inv(x), _SQ, errors=_SQ_ERRORS + [
        E(T((3, 3), data=np.zeros((3, 3))), _name="singular"),
        E(T((2, 2, 2), data=np.array([np.eye(2), [[1, 0], [0, 0]]])), _name="singular_batch")],
        variants={"inverse": lambda m, x: m.inverse(x), "inv_ex": lambda m, x: m.linalg.inv_ex(x),
                  "method": lambda m, x: x.inverse()}),
    OpInfo("linalg.solve", lambda m, a, b, **k: m.linalg.solve(a, b, **k), [
        S(T((3, 3)), T((3, 2))), S(T((3, 3), F64), T((3,), F64)), S(T((2, 3, 3), F64), T((3, 2), F64)),
        S(T((3, 3), F64), T((2, 3), F64), left=False), S(T((2, 3, 3)), T((2, 3))),
        S(T((3, 3), F64), T((3, 1), F64, rg=False)),
    ], variants={"solve_ex": lambda m, a, b, **k: m.linalg.solve_ex(a, b, **k)},
        errors=[E(T((3, 3)), T((4,)), _name="shape"), E(T((2, 3)), T((2,)), _name="nonsquare"),
                E(T((3, 3), data=np.zeros((3, 3))), T((3,)), _name="singular"),
                E(T((3, 3), F64), T((3,)), _name="dtype")]),
    OpInfo("linalg.cholesky", lambda m, x, **k: m.linalg.cholesky(_spd(m, x), **k), [
        S(T((3, 3))), S(T((3, 3), F64)), S(T((2, 3, 3), F64), upper=True), S(T((0, 0)), _fd=False),
    ], variants={"cholesky_ex": lambda m, x, **k: m.linalg.cholesky_ex(_spd(m, x), **k)},
        errors=[E(T((3, 3), data=-np.eye(3)), _fn=lambda m, x: m.linalg.cholesky(x),
                  _name="not_pd"), E(T((2, 3)), _fn=lambda m, x: m.linalg.cholesky(x),
                                     _name="nonsquare")]),
    OpInfo("linalg.qr", lambda m, x, *a: m.linalg.qr(x, *a), [
        S(T((3, 3))), S(T((4, 3), F64)), S(T((3, 5), F64)), S(T((2, 4, 3), F64)),
        S(T((3, 3), F64), "complete"), S(T((2, 4), F64), "complete"),
    ], errors=[E(T((3, 3), I64), _name="int"), E(T((3, 3)), "foo", _name="mode")]),
    OpInfo("linalg.eigh", lambda m, x, *a: (lambda r: (r.eigenvalues, r.eigenvectors ** 2 * 1.5))(
        m.linalg.eigh(_sym(x), *a)), [S(T((3, 3))), S(T((3, 3), F64)), S(T((2, 3, 3), F64), "U")],
        variants={"eigvalsh": lambda m, x, *a: m.linalg.eigvalsh(_sym(x), *a)},
        errors=[E(T((2, 3)), _fn=lambda m, x: m.linalg.eigh(x), _name="nonsquare"),
                E(T((3, 3)), _fn=lambda m, x: m.linalg.eigh(x, "X"), _name="uplo")]),
    OpInfo("linalg.svd", lambda m, x, *a: (lambda r: (r.S, r.U[..., :, :2] ** 2 * 1.5,
                                                     r.Vh[..., :2, :] ** 2 * 1.5))(
        m.linalg.svd(x, *a)), [S(T((3, 3)), False), S(T((4, 3), F64), False),
                               S(T((3, 4), F64), False), S(T((2, 3, 3), F64)),
                               S(T((4, 2), F64), True)],
        variants={"svdvals": lambda m, x, *a: m.linalg.svdvals(x)},
        errors=[E(T((3, 3), I64), _name="int"), E(T((3,)), _name="1d")]),
    OpInfo("linalg.pinv", lambda m, x, **k: m.linalg.pinv(
        _sym(x) if k.get("hermitian") else x, **k), [
        S(T((3, 3))), S(T((4, 3), F64)), S(T((2, 3, 4), F64)), S(T((3, 3), F64), hermitian=True),
    ], tol={F32: (1e-4, 1e-4)}, variants={"pinverse": lambda m, x, **k: m.pinverse(x) if not k else m.linalg.pinv(x, **k)},
        errors=[E(T((3, 3), I64), _name="int")]),
    OpInfo("linalg.solve_triangular", lambda m, a, b, **k: m.linalg.solve_triangular(
        a + 3 * m.eye(a.shape[-1], dtype=a.dtype, device=a.device), b, **k), [
        S(T((3, 3)), T((3, 2)), upper=True), S(T((3, 3), F64), T((3, 2), F64), upper=False),
        S(T((2, 3, 3), F64), T((3, 2), F64), upper=True, unitriangular=True),
        S(T((3, 3), F64), T((2, 3), F64), upper=False, left=False),
    ], errors=[E(T((3, 3)), T((3,)), upper=True, _name="1d_b")]),
    OpInfo("linalg.lu_factor", lambda m, x: m.linalg.lu_factor(x), [
        S(T((3, 3))), S(T((3, 3), F64)), S(T((2, 3, 3), F64)), S(T((3, 4), F64)), S(T((4, 3), F64)),
    ], variants={"lu_factor_ex": lambda m, x: m.linalg.lu_factor_ex(x)[:2]}),
    # P carries no gradient (the finite-difference checker cannot differentiate it): it is
    # compared in tests/test_linalg.py.
    OpInfo("linalg.lu", lambda m, x: tuple(m.linalg.lu(x))[1:], [
        S(T((3, 3))), S(T((3, 3), F64)), S(T((2, 3, 3), F64)), S(T((3, 4), F64)), S(T((4, 3), F64)),
    ]),
    OpInfo("linalg.lu_solve", lambda m, a, b, **k: (lambda f: m.linalg.lu_solve(f[0], f[1], b, **k))(
        m.linalg.lu_factor(a)), [
        S(T((3, 3)), T((3, 2))), S(T((3, 3), F64), T((3, 2), F64), adjoint=True),
        S(T((2, 3, 3), F64), T((2, 3), F64), left=False),
    ]),
    # PyTorch gives LDL no derivative (its NotImplemented node: tests/test_ldl.py).
    OpInfo("linalg.ldl_factor", lambda m, x, **k: tuple(m.linalg.ldl_factor(x + x.mT, **k)), [
        S(T((3, 3))), S(T((3, 3), F64)), S(T((2, 4, 4), F64)), S(T((3, 3), F64), hermitian=True),
    ], variants={"ldl_factor_ex": lambda m, x, **k: tuple(m.linalg.ldl_factor_ex(x + x.mT, **k))},
        differentiable=False, errors=[E(T((2, 3)), _name="nonsquare"), E(T((3, 3), I64), _name="int")]),
    OpInfo("linalg.ldl_solve", lambda m, a, b, **k: (lambda f: m.linalg.ldl_solve(f[0], f[1], b, **k))(
        m.linalg.ldl_factor(a + a.mT)), [
        S(T((3, 3)), T((3, 2))), S(T((3, 3), F64), T((3, 2), F64), hermitian=True),
        S(T((2, 3, 3), F64), T((3, 1), F64)),
    ], differentiable=False, errors=[E(T((3, 3)), T((4, 2)), _name="sizes")]),
    OpInfo("linalg.matrix_exp", lambda m, x: m.linalg.matrix_exp(x), [
        S(T((3, 3))), S(T((3, 3), F64)), S(T((2, 2, 2), F64)), S(T((1, 1))),
    ], variants={"torch.matrix_exp": lambda m, x: m.matrix_exp(x)},
        errors=[E(T((2, 3)), _name="nonsquare")]),
    OpInfo("linalg.vander", lambda m, x, **k: m.linalg.vander(x, **k), [
        S(T((3,))), S(T((2, 3), F64), N=4), S(T((3,), I64)),
    ], errors=[E(T(()), _name="0d")]),
    OpInfo("linalg.householder_product", lambda m, a, t: m.linalg.householder_product(a, t), [
        S(T((3, 3)), T((2,))), S(T((4, 3), F64), T((3,), F64)),
    ], errors=[E(T((3, 3), F64), T((2,)), _name="dtype")]),
    OpInfo("linalg.tensorinv", lambda m, x, **k: m.linalg.tensorinv(x, **k), [
        S(T((2, 2, 4))), S(T((4, 2, 2), F64), ind=1),
    ], errors=[E(T((2, 3)), _name="shape")]),
    OpInfo("linalg.tensorsolve", lambda m, a, b: m.linalg.tensorsolve(a, b), [
        S(T((2, 3, 6), F64), T((2, 3), F64)),
    ]),
    OpInfo("linalg.cond", lambda m, x, *a: m.linalg.cond(x, *a), [
        S(T((3, 3))), S(T((4, 3), F64)), S(T((3, 3), F64), -2),
    ], errors=[E(T((2, 3)), 1, _name="nonsquare_1")]),
    # PyTorch 2.13 cannot differentiate cond for the other norms (its inverse is modified in
    # place: "one of the variables needed for gradient computation has been modified"), so
    # only the values are compared.
    OpInfo("linalg.cond_p", lambda m, x, *a: m.linalg.cond(x.detach(), *a), [
        S(T((3, 3), F64), 1), S(T((3, 3), F64), "fro"), S(T((2, 3, 3)), math.inf),
        S(T((3, 3), F64), "nuc"), S(T((3, 3)), -1),
    ], differentiable=False),
    OpInfo("trace", lambda m, x: m.trace(x), [S(T((3, 3))), S(T((2, 4), F64)), S(T((3, 3), I64))],
           variants={"method": lambda m, x: x.trace()}),
    OpInfo("cholesky_solve", lambda m, b, a, **k: m.cholesky_solve(b, m.linalg.cholesky(
        _spd(m, a), **k), **k), [S(T((3, 2)), T((3, 3))), S(T((3, 2), F64), T((3, 3), F64),
                                                          upper=True)]),
    OpInfo("cholesky_inverse", lambda m, a: m.cholesky_inverse(m.linalg.cholesky(_spd(m, a))), [
        S(T((3, 3))), S(T((3, 3), F64))]),
]


# ---- quantile, scatter_reduce, index_reduce, index_put (python/gradrs/_reduce_ops.py) --------
_SR_IDX = idx((3, 2), [[0, 2], [1, 2], [0, 0]])


def _reduce_call(name, r):
    """``m.<name>(x, dim, index, src, r)``, or the method (``x.clone()`` first when in place)."""
    if name.endswith("_"):
        return lambda m, x, d, i, s, **k: getattr(x.clone(), name)(d, i, s, r, **k)
    return lambda m, x, d, i, s, **k: getattr(m, name)(x, d, i, s, r, **k)


def _reduce_method(name, r):
    return lambda m, x, d, i, s, **k: getattr(x, name)(d, i, s, r, **k)


def _q(data, dtype=F32):
    return T((len(data),), dtype, rg=False, data=data)


OPS += [
    OpInfo("quantile", lambda m, x, q, *a, **k: m.quantile(x, q, *a, **k), [
        S(T((7,)), 0.3), S(T((3, 4), F64), 0.5, 1), S(T((3, 4), F64), _q([0.0, 0.4, 1.0], F64)),
        S(T((3, 4)), _q([0.25, 0.75]), 0, True), S(T((2, 3, 2), F64), 0.6, -2),
        S(T(()), 0.5), S(T((2, 5)), 0.7, 1, interpolation="lower"),
        S(T((2, 5), F64), _q([0.1, 0.9], F64), 1, interpolation="higher"),
        S(T((2, 5)), 0.35, interpolation="nearest"), S(T((2, 5), F64), 0.3, 0,
                                                        interpolation="midpoint"),
        S(T((5,), data=[1.0, NAN, 3.0, 2.0, 0.5]), 0.5, _fd=False),
        S(T((3, 4), F64), T((2,), F64, data=[0.2, 0.7]), 1),
    ], variants={"method": lambda m, x, q, *a, **k: x.quantile(q, *a, **k)},
        errors=[E(T((0,)), 0.5, _name="empty"), E(T((3,)), 1.5, _name="q_range"),
                E(T((3,)), _q([0.5, 2.0]), _name="q_values"), E(T((3,), I64), 0.5, _name="int"),
                E(T((3,)), _q([0.5], F64), _name="q_dtype"),
                E(T((3,)), T((2, 2), rg=False), _name="q_2d"),
                E(T((3,)), 0.5, interpolation="cubic", _name="interpolation"),
                E(T((3,)), 0.5, 2, _name="dim"), E(T((3,)), "a", _name="q_type")]),
    OpInfo("nanquantile", lambda m, x, q, *a, **k: m.nanquantile(x, q, *a, **k), [
        S(T((6,), data=[1.0, NAN, 3.0, 2.0, NAN, -1.0]), 0.4),
        S(T((2, 3), F64, data=[[NAN, NAN, NAN], [1.0, NAN, 2.0]]), _q([0.0, 0.5], F64), 1,
          _fd=False),
        S(T((3, 4), F64), 0.5, 0, True), S(T((2, 5)), 0.3, interpolation="nearest"),
    ], variants={"method": lambda m, x, q, *a, **k: x.nanquantile(q, *a, **k)},
        errors=[E(T((0,)), 0.5, _name="empty")]),
    *[OpInfo(f"scatter_reduce_{r}", _reduce_call("scatter_reduce", r), [
            S(T((3, 2)), 0, _SR_IDX, T((3, 2))),
            S(T((3, 2), F64), 0, _SR_IDX, T((3, 2), F64), include_self=False),
            S(T((2, 3), F64), 1, idx((2, 2), [[2, 2], [0, 2]]), T((2, 2), F64)),
            S(T((3, 2), rg=False), -2, _SR_IDX, T((3, 2))),
            S(T(()), 0, idx((), 0), T(())),
            # (PyTorch's prod / amax / amin formulas fail on an empty index: src == value)
            *([S(T((3, 2)), 0, T((0, 2), I64, data=np.zeros((0, 2), np.int64)),
                 T((3, 2), rg=False))] if r in ("sum", "mean") else []),
            S(T((3, 2), I64), 0, _SR_IDX, T((3, 2), I64), include_self=False),
        ], variants={
            "method": _reduce_method("scatter_reduce", r),
            "inplace": _reduce_call("scatter_reduce_", r)},
        errors=[E(T((3, 2)), 0, idx((3, 2), [[0, 3], [1, 2], [0, 0]]), T((3, 2)),
                  _name="out_of_range"),
                E(T((3, 2)), 0, _SR_IDX, T((3, 2), F64), _name="dtype"),
                E(T((3, 2)), 0, idx((3,), [0, 1, 2]), T((3, 2)), _name="index_dims"),
                E(T((3, 2)), 0, idx((4, 2), [[0, 0]] * 4), T((3, 2)), _name="index_size"),
                E(T((3, 2)), 2, _SR_IDX, T((3, 2)), _name="dim")])
      for r in ("sum", "prod", "mean", "amax", "amin")],
    OpInfo("scatter_reduce_bad", lambda m, x, d, i, s, r: m.scatter_reduce(x, d, i, s, r), [],
           errors=[E(T((3, 2)), 0, _SR_IDX, T((3, 2)), "foo", _name="reduce"),
                   E(T((3, 2)), 0, _SR_IDX, T((3, 2)), "add", _name="add"),
                   E(T((3, 2), BOOL), 0, _SR_IDX, T((3, 2), BOOL), "mean", _name="bool_mean")]),
    *[OpInfo(f"index_reduce_{r}", _reduce_call("index_reduce", r), [
            S(T((3, 2)), 0, idx((4,), [0, 2, 0, 0]), T((4, 2))),
            S(T((3, 4), F64), 1, idx((3,), [3, 1, 3]), T((3, 3), F64), include_self=False),
            S(T((3, 2), I64), 0, idx((2,), [1, 1]), T((2, 2), I64)),
        ], variants={
            "method": _reduce_method("index_reduce", r),
            "inplace": _reduce_call("index_reduce_", r)},
        errors=[E(T((3, 2)), 0, idx((2,), [0, 3]), T((2, 2)), _name="out_of_range"),
                E(T((3, 2)), 0, idx((2,), [0, 1]), T((3, 2)), _name="count"),
                E(T((3, 2)), 0, idx((2,), [0, 1]), T((2, 3)), _name="shape"),
                E(T((3, 2)), 0, idx((2,), [0, 1]), T((2, 2), F64), _name="dtype")])
      for r in ("prod", "mean", "amax", "amin")],
    OpInfo("index_put", lambda m, x, v, *ii, **k: m.index_put(x, ii, v, **k), [
        S(T((3, 4)), T((2,)), idx((2,), [0, 2]), idx((2,), [1, 3])),
        S(T((3, 4), F64), T((4,), F64), idx((3,), [0, 2, 0]), accumulate=True),
        S(T((3, 4), F64), T((3,), F64), idx((3,), [1, 1, 1]), idx((3,), [0, 0, 2]),
          accumulate=True),
        S(T((3, 4)), T(()), T((3,), BOOL, data=[True, False, True])),
        S(T((3, 4), I64), T((2, 4), I64), idx((2,), [2, 0])),
    ], variants={"method": lambda m, x, v, *ii, **k: x.index_put(ii, v, **k),
                 "inplace": lambda m, x, v, *ii, **k: x.clone().index_put_(ii, v, **k)},
        errors=[E(T((3, 4)), T((3,)), idx((1,), [0]), _name="shape"),
                E(T((3, 4)), T((4,), F64), idx((1,), [0]), _name="dtype"),
                E(T((3, 4)), T(()), idx((1,), [0]), idx((1,), [0]), idx((1,), [0]),
                  _name="too_many")]),
]


# ---- special.zeta (declared), Tensor.unfold (a view) ------------------------------------------
OPS += [
    # PyTorch differentiates zeta in q only: x is given without requires_grad
    OpInfo("special_zeta", lambda m, x, q: m.special.zeta(x, q), [
        S(T((5,), rg=False), T((5,))), S(T((2, 3), F64, rg=False), T((3,), F64)),
        S(T((4,), rg=False), 2.5), S(T((3,), I64, data=[2, 3, 4]), T((3,), I64, data=[1, 2, 3])),
    ], domain=("above_one", "positive"),
        errors=[E(T((3,), F16), T((3,), F16), _name="half"),
                E(T((3,)), T((3,)), _fn=lambda m, x, q: m.special.zeta(x, q).sum().backward(),
                  _name="grad_x")]),
    OpInfo("unfold", lambda m, x, *a: x.unfold(*a), [
        S(T((7,)), 0, 3, 2), S(T((3, 5), F64), 1, 2, 1), S(T((3, 5)), 0, 3, 3),
        S(T((4, 6), layout="T"), -1, 2, 3), S(T(()), 0, 1, 1), S(T((2, 3)), 0, 0, 1),
        S(T((2, 4, 3), F64), -2, 4, 1), S(T((5,), I64), 0, 2, 2),
    ], errors=[E(T((4,)), 0, 5, 1, _name="too_big"), E(T((4,)), 0, 2, 0, _name="step"),
               E(T((4,)), 0, -1, 1, _name="negative"), E(T((4,)), 1, 2, 1, _name="dim")]),
]


# ---- igamma / igammac = special.gammainc / gammaincc (declared) -------------------------------
def _igamma_entry(name, alias):
    """The entry of `name` (`igamma` / `igammac`), also spelled `special.<alias>`: PyTorch
    differentiates these in `other` only, so `input` is given without requires_grad."""
    return OpInfo(name, lambda m, a, x: getattr(m, name)(a, x), [
        S(T((5,), rg=False), T((5,))), S(T((2, 3), F64, rg=False), T((3,), F64)),
        S(T((3,), F64, rg=False, data=[25.0, 150.0, 400.0]), T((3,), F64, data=[24.0, 160.0, 390.0])),
        S(T((3,), I64, data=[1, 2, 3]), T((3,), rg=False, data=[0.5, 2.0, 7.0])),
    ], domain="positive",
        variants={"method": lambda m, a, x: getattr(a, name)(x),
                  "special": lambda m, a, x: getattr(m.special, alias)(a, x)},
        errors=[E(T((3,), I64), T((3,), I64), _name="long"),
                E(T((3,)), 2.0, _name="number"),
                E(T((3,)), T((3,)), _fn=lambda m, a, x: getattr(m, name)(a, x).sum().backward(),
                  _name="grad_input")])


OPS += [
    _igamma_entry("igamma", "gammainc"),
    _igamma_entry("igammac", "gammaincc"),
]


# ---- nextafter (declared) ---------------------------------------------------------------------
OPS += [
    OpInfo("nextafter", lambda m, x, y: m.nextafter(x, y), [
        S(T((5,)), T((5,))), S(T((2, 3), F64), T((3,), F64)),
        # where input == other PyTorch's gradient is 0 (the result is `other`), which finite
        # differences do not see
        S(T((4,), data=[0.0, -0.0, 1.0, -2.5]), T((4,), data=[-0.0, 1.0, 1.0, 3.0]), _fd=False),
        S(T((3,), F16, data=[1.0, 0.0, -3.0]), T((3,), F16, data=[2.0, -1.0, -4.0])),
        S(T((3,), F64), T((), data=2.0)),
    ], variants={"method": lambda m, x, y: x.nextafter(y)},
        errors=[E(T((3,), I64), T((3,), I64), _name="long"), E(T((3,)), 2.0, _name="number"),
                E(T((2,)), T((3,)), _name="shape")]),
]
