"""Shared helpers for the gradrs differential test-suite.

The module under test is exposed as ``G``:

* by default ``G`` is ``gradrs``;
* with ``GRADRS_TEST_SELFTEST=1`` in the environment ``G`` is PyTorch itself, which lets the
  whole suite be validated torch-vs-torch before gradrs exists.

Real PyTorch (the reference) is only needed by *differential* tests.  Those take the ``torch``
fixture (or call :func:`need_torch`), which skips the test when PyTorch is not importable; every
other test runs without it.

Normalisation rule: wherever PyTorch prints ``torch`` (``torch.float32``, ``torch.Size([2])``,
``torch::autograd::AccumulateGrad``) gradrs prints ``gradrs``.  The word ``torch`` is replaced only
as a whole word, so ``github.com/pytorch/pytorch`` is left alone.  The "(Triggered internally at
<C++ source path>)" suffix PyTorch appends to some warnings is build-specific and is stripped from
both sides before comparing.

Test modules import the helpers with ``from conftest import ...`` (``tests/`` has no
``__init__.py``, so pytest puts it on ``sys.path``).
"""

from __future__ import annotations

import importlib
import os
import re
import warnings

import numpy as np
import pytest

# The GPU tests run on Mesa's lavapipe where there is no GPU; a software adapter only counts
# as a GPU with this set. Set before gradrs is imported (the device is opened once per
# process), and inherited by the suite's subprocesses; an explicit "0" is left alone.
os.environ.setdefault("GRADRS_GPU_ALLOW_SOFTWARE", "1")

SELFTEST = os.environ.get("GRADRS_TEST_SELFTEST", "") not in ("", "0")

_TORCH_IMPORT_ERROR = None
try:  # the reference implementation; optional
    import torch as _torch_ref
except Exception as _e:  # noqa: BLE001 - any failure to import it means "no reference"
    _torch_ref = None
    _TORCH_IMPORT_ERROR = _e


class _MissingModule:
    """Stand-in for an unimportable gradrs: every use fails (tests fail, they do not skip),
    while the other test files of the directory are unaffected by the failed import."""

    def __init__(self, name, error):
        self._name, self._error = name, error

    def __getattr__(self, attr):
        raise ImportError(f"{self._name} cannot be imported: {self._error!r}")


if SELFTEST:
    if _torch_ref is None:
        raise RuntimeError("GRADRS_TEST_SELFTEST=1 needs PyTorch to be importable")
    G = _torch_ref
    GNAME = "torch"
else:
    GNAME = "gradrs"
    try:
        G = importlib.import_module("gradrs")
    except ImportError as _e:
        G = _MissingModule("gradrs", _e)

HAVE_TORCH = _torch_ref is not None

# Marker for tests that compare with PyTorch without taking the fixture.
needs_torch = pytest.mark.skipif(not HAVE_TORCH, reason="PyTorch (the reference) is not installed")


def need_torch():
    """Return the reference ``torch`` module or skip the calling test (importorskip-style)."""
    if _torch_ref is None:
        pytest.skip(f"PyTorch (the reference) is not importable: {_TORCH_IMPORT_ERROR!r}")
    return _torch_ref


@pytest.fixture
def torch():
    """The reference PyTorch module; the test is skipped when it is not importable."""
    return need_torch()


@pytest.fixture
def M():
    """The module under test (``gradrs``, or ``torch`` under GRADRS_TEST_SELFTEST=1)."""
    return G


@pytest.fixture
def restore_grad_mode():
    """The test starts (and leaves) with grad mode enabled, whatever it did.

    Used by this suite's modules through ``pytestmark = pytest.mark.usefixtures(...)``."""
    G.set_grad_enabled(True)
    if HAVE_TORCH:
        _torch_ref.set_grad_enabled(True)
    yield
    G.set_grad_enabled(True)
    if HAVE_TORCH:
        _torch_ref.set_grad_enabled(True)


@pytest.fixture(params=[1, 2], ids=["threads1", "threads2"])
def both_threads(request, torch):
    """Runs the test with gradrs and PyTorch both at 1, then both at 2 threads (the tests that
    compare the bits of threaded reductions)."""
    g_before, t_before = G.get_num_threads(), torch.get_num_threads()
    G.set_num_threads(request.param)
    torch.set_num_threads(request.param)
    yield request.param
    G.set_num_threads(g_before)
    torch.set_num_threads(t_before)


def assert_bits_equal(g, t, what):
    """gradrs's `g` and torch's `t` hold the same bits (float16 / bfloat16 compared as their
    float32 values; any NaN equals any NaN)."""
    a = g.detach().float().numpy() if g.dtype in (G.float16, G.bfloat16) else g.detach().numpy()
    b = t.detach().float().numpy() if t.dtype.itemsize == 2 else t.detach().numpy()
    assert a.dtype == b.dtype and a.shape == b.shape, what
    a, b = a.reshape(-1), b.reshape(-1)
    same = (a.view(np.uint8).reshape(len(a), -1) == b.view(np.uint8).reshape(len(b), -1)).all(1)
    same |= np.isnan(a) & np.isnan(b)
    if not same.all():
        bad = np.flatnonzero(~same)
        raise AssertionError(
            f"{what}: {len(bad)} of {len(a)} values differ, e.g. at {bad[:5].tolist()}: "
            f"{a[bad[:5]].tolist()} vs {b[bad[:5]].tolist()}"
        )


# --------------------------------------------------------------------------------------------
# normalisation
# --------------------------------------------------------------------------------------------

_TRIGGERED = re.compile(r"\s*\(Triggered internally at [^)]*\)\.?")
_TORCH_WORD = re.compile(r"\btorch\b")


def _strip(msg: str) -> str:
    return _TRIGGERED.sub("", msg)


def norm(text: str) -> str:
    """What gradrs must print where PyTorch prints ``text``."""
    text = _strip(str(text))
    if SELFTEST:
        return text
    return _TORCH_WORD.sub("gradrs", text)


def norm_g(text: str) -> str:
    """Normalise what the module under test printed (only strips PyTorch's build suffix)."""
    return _strip(str(text))


# --------------------------------------------------------------------------------------------
# conversions
# --------------------------------------------------------------------------------------------


def is_tensor(x) -> bool:
    if isinstance(x, G.Tensor):
        return True
    return HAVE_TORCH and isinstance(x, _torch_ref.Tensor)


def to_np(t):
    """A numpy copy of a tensor of either library (or of a Python number / list)."""
    if is_tensor(t):
        t = t.detach()
        # numpy has no bfloat16 (both libraries refuse `.numpy()`): its values as float32.
        if dtype_name(t.dtype) == "bfloat16":
            t = t.float()
        return np.array(t.numpy(), copy=True)
    return np.asarray(t)


def np_dtype_of(name: str):
    return {
        "float16": np.float16,
        "float32": np.float32,
        "float64": np.float64,
        "uint8": np.uint8,
        "int8": np.int8,
        "int16": np.int16,
        "int32": np.int32,
        "int64": np.int64,
        "bool": np.bool_,
    }[name]


def dtype_name(dt) -> str:
    """``gradrs.float32`` / ``torch.float32`` -> ``float32``."""
    return str(dt).split(".")[-1]


def node_name(fn):
    """Class name of an autograd node (``MulBackward0``, ``AccumulateGrad``) or None."""
    return None if fn is None else type(fn).__name__


def graph_tree(fn, depth=50):
    """``(name, ((child_tree, input_nr), ...))`` for a grad_fn, following next_functions."""
    if fn is None:
        return None
    if depth == 0:
        return (node_name(fn), "...")
    return (
        node_name(fn),
        tuple((graph_tree(child, depth - 1), nr) for child, nr in fn.next_functions),
    )


# --------------------------------------------------------------------------------------------
# comparisons
# --------------------------------------------------------------------------------------------


def assert_same_repr(g, t):
    """``repr(g)`` must equal PyTorch's ``repr(t)`` with ``torch.`` spelled ``gradrs.``."""
    rg = repr(g)
    rt = repr(t) if SELFTEST else repr(t).replace("torch.", "gradrs.")
    assert rg == rt, f"repr differs:\n  {GNAME}: {rg}\n  torch : {rt}"


def _tol(dtype: str):
    if dtype == "float64":
        return {"rtol": 1e-10, "atol": 1e-12}
    if dtype == "float16":
        # A few of half's 2^-11 ulps: both libraries compute in float32 and round each op's
        # result, so they differ where the float32 values straddle a rounding boundary.
        return {"rtol": 4e-3, "atol": 1e-3}
    if dtype == "bfloat16":
        # The same few ulps of bfloat16's 2^-8.
        return {"rtol": 3e-2, "atol": 8e-3}
    return {"rtol": 2e-5, "atol": 2e-6}


def assert_same_values(g, t, rtol=None, atol=None):
    """Same shape, same dtype, same values (float: allclose; others: exact)."""
    assert tuple(g.shape) == tuple(t.shape), f"shape {tuple(g.shape)} != {tuple(t.shape)}"
    assert dtype_name(g.dtype) == dtype_name(t.dtype), f"dtype {g.dtype} != {t.dtype}"
    a, b = to_np(g), to_np(t)
    assert a.dtype == b.dtype, f"numpy dtype {a.dtype} != {b.dtype}"
    if a.dtype.kind == "f":
        tol = _tol(dtype_name(t.dtype))
        if rtol is not None:
            tol["rtol"] = rtol
        if atol is not None:
            tol["atol"] = atol
        np.testing.assert_allclose(a, b, equal_nan=True, **tol)
    else:
        np.testing.assert_array_equal(a, b)


def assert_same_tensor(g, t, *, check_repr=True, rtol=None, atol=None):
    """Full comparison of a gradrs tensor with a PyTorch tensor."""
    assert isinstance(g, G.Tensor), f"expected a {GNAME}.Tensor, got {type(g)!r}"
    assert_same_values(g, t, rtol=rtol, atol=atol)
    assert g.requires_grad == t.requires_grad, "requires_grad differs"
    assert g.is_leaf == t.is_leaf, "is_leaf differs"
    assert node_name(g.grad_fn) == node_name(t.grad_fn), "grad_fn differs"
    if check_repr:
        assert_same_repr(g, t)


def assert_same(g, t, *, check_repr=True, rtol=None, atol=None):
    """Recursive comparison of results (tensors, Size, dtypes, tuples, lists, scalars, None)."""
    if is_tensor(t):
        assert_same_tensor(g, t, check_repr=check_repr, rtol=rtol, atol=atol)
    elif t is None:
        assert g is None, f"expected None, got {g!r}"
    elif HAVE_TORCH and isinstance(t, _torch_ref.Size):
        assert isinstance(g, G.Size), f"expected {GNAME}.Size, got {type(g)!r}"
        assert tuple(g) == tuple(t)
        assert_same_repr(g, t)
    elif HAVE_TORCH and isinstance(t, _torch_ref.dtype):
        assert isinstance(g, G.dtype)
        assert_same_repr(g, t)
    elif hasattr(t, "next_functions"):  # an autograd node: compare by class name
        assert node_name(g) == node_name(t), f"node {node_name(g)} != {node_name(t)}"
    elif isinstance(t, (tuple, list)):
        assert type(g) is type(t), f"type {type(g)!r} != {type(t)!r}"
        assert len(g) == len(t), f"length {len(g)} != {len(t)}"
        for a, b in zip(g, t):
            assert_same(a, b, check_repr=check_repr, rtol=rtol, atol=atol)
    elif isinstance(t, float):
        assert type(g) is float, f"expected float, got {type(g)!r}"
        if np.isnan(t):
            assert np.isnan(g)
        else:
            assert g == pytest.approx(t, rel=rtol or 1e-6, abs=atol or 1e-7)
    elif isinstance(t, (bool, int, str)):
        assert type(g) is type(t), f"type {type(g)!r} != {type(t)!r}"
        assert g == t, f"{g!r} != {t!r}"
    else:
        assert g == t


def run_both(fn):
    """``(fn(G), fn(torch))``; skips when PyTorch is missing."""
    ref = need_torch()
    return fn(G), fn(ref)


def check(fn, **kw):
    """Differential check of ``fn(module)``: same values/dtype/shape/repr/grad_fn."""
    g, t = run_both(fn)
    assert_same(g, t, **kw)
    return g, t


def _catch(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - we want whatever it raises
        return e
    return None


def _exc_kind(e):
    """Name of the exception class and of its nearest builtin base."""
    builtin = next(c for c in type(e).__mro__ if c.__module__ == "builtins")
    return type(e).__name__, builtin.__name__


def assert_same_error(fn_g, fn_t):
    """Both must raise; same exception type, same (normalised) message."""
    eg, et = _catch(fn_g), _catch(fn_t)
    assert et is not None, "the reference (torch) did not raise"
    assert eg is not None, f"{GNAME} did not raise; torch raised {type(et).__name__}: {et}"
    assert _exc_kind(eg) == _exc_kind(et), (
        f"exception type differs: {GNAME} {type(eg).__name__}: {eg} / "
        f"torch {type(et).__name__}: {et}"
    )
    mg, mt = norm_g(str(eg)), norm(str(et))
    assert mg == mt, f"message differs:\n  {GNAME}: {mg!r}\n  torch : {mt!r}"
    return eg, et


def check_error(fn):
    """:func:`assert_same_error` for ``fn(module)`` run on G and on torch."""
    ref = need_torch()
    return assert_same_error(lambda: fn(G), lambda: fn(ref))


def record_warnings(fn):
    """Run ``fn`` recording every warning: ``(result, [(category name, text), ...])``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn()
    return result, [(w.category.__name__, str(w.message)) for w in caught]


def assert_same_warning(fn_g, fn_t):
    """Both emit the same warnings: same categories and (normalised) texts, in order.

    Also passes when neither warns, which is how "no warning" is tested.
    """
    rg, wg = record_warnings(fn_g)
    rt, wt = record_warnings(fn_t)
    wg = [(c, norm_g(m)) for c, m in wg]
    wt = [(c, norm(m)) for c, m in wt]
    assert wg == wt, f"warnings differ:\n  {GNAME}: {wg!r}\n  torch : {wt!r}"
    return rg, rt


def check_warning(fn):
    """:func:`assert_same_warning` for ``fn(module)`` run on G and on torch."""
    ref = need_torch()
    return assert_same_warning(lambda: fn(G), lambda: fn(ref))
