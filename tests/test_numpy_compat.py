"""numpy manners compared with PyTorch: every binary dunder with an ndarray or a numpy scalar on
either side, common ufuncs and reductions on tensors, `from_numpy`'s dtypes and errors, and
`as_tensor`'s memory sharing."""

from __future__ import annotations

import operator
import warnings

import numpy as np
import pytest

from conftest import G, SELFTEST, norm, norm_g
import gradrs._numpy_compat as _compat

# ---- running one expression on both libraries ----------------------------------------------


def _outcome(M, fn):
    """What `fn(M)` gives: ("value", type, dtype, shape, values) or ("error", type, message).
    numpy's DeprecationWarning about PyTorch's one-argument `__array_wrap__` is ignored."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            r = fn(M)
        except Exception as e:  # noqa: BLE001 - the exception is what is compared
            return ("error", type(e).__name__, str(e))
    if isinstance(r, M.Tensor):
        return ("value", "Tensor", str(r.dtype).split(".")[1], tuple(r.shape), r.tolist())
    if isinstance(r, np.ndarray):
        return ("value", "ndarray", str(r.dtype), r.shape, r.tolist())
    if isinstance(r, tuple):
        return ("value", "tuple", "", (len(r),), [_outcome(M, lambda _, x=x: x) for x in r])
    return ("value", type(r).__name__, "", (), r)


def _same(g, t):
    if t[0] == "error":
        assert g[0] == "error", f"gradrs gave {g}, PyTorch raised {t}"
        assert (g[1], norm_g(g[2])) == (t[1], norm(t[2]))
        return
    assert g[:4] == t[:4], f"gradrs {g} != PyTorch {t}"
    if t[1] == "tuple":
        for a, b in zip(g[4], t[4]):
            _same(a, b)
    elif "float" in t[2] or isinstance(t[4], float):
        np.testing.assert_allclose(np.array(g[4], dtype=float), np.array(t[4], dtype=float),
                                   rtol=1e-6, equal_nan=True)
    else:
        assert g[4] == t[4]


def _compare(torch, fn):
    _same(_outcome(G, fn), _outcome(torch, fn))


def _xfail(reason):
    return pytest.mark.xfail(not SELFTEST, reason=reason, strict=True)


# ---- the dunder matrix ---------------------------------------------------------------------

OPS = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and_", "or_", "xor",
       "lshift", "rshift", "lt", "le", "gt", "ge", "eq", "ne"]
TENSOR_DTYPES = ["float32", "int64", "bool"]
OTHER_DTYPES = ["float64", "float32", "int64", "int32", "bool"]
SIDES = ["t.a", "a.t", "t.s", "s.t"]  # t: tensor, a: ndarray, s: numpy scalar

NO_UINT8 = ("PyTorch's __array_wrap__ turns numpy's bool result into uint8, gradrs's keeps "
            "bool")


def _known(tdt, odt, op, side):
    if tdt == "bool" and odt == "bool" and side == "t.a":
        if op in ("add", "mul", "matmul", "and_", "or_", "xor"):
            return NO_UINT8
    return None


def _cases():
    for tdt in TENSOR_DTYPES:
        for odt in OTHER_DTYPES:
            for op in OPS:
                for side in SIDES:
                    reason = _known(tdt, odt, op, side)
                    marks = [_xfail(reason)] if reason else []
                    yield pytest.param(tdt, odt, op, side, marks=marks,
                                       id=f"{tdt}-{odt}-{op}-{side}")


@pytest.mark.parametrize("tdt,odt,op,side", list(_cases()))
def test_dunder_with_numpy(torch, tdt, odt, op, side):
    f = getattr(operator, op)

    def run(M):
        t = M.tensor([1, 2, 3]).to(getattr(M, tdt))
        a = np.array([2, 1, 3], dtype=odt)
        s = a[0]
        x, y = {"t.a": (t, a), "a.t": (a, t), "t.s": (t, s), "s.t": (s, t)}[side]
        return f(x, y)

    _compare(torch, run)


IN_PLACE = ["iadd", "isub", "imul", "itruediv", "ifloordiv", "imod", "ipow", "iand", "ior",
            "ixor", "ilshift", "irshift"]


def _in_place_cases():
    for tdt in ("float32", "int64"):
        for odt in ("float64", "int64"):
            for op in IN_PLACE:
                for side in ("t.a", "a.t", "t.s"):
                    yield pytest.param(tdt, odt, op, side, id=f"{tdt}-{odt}-{op}-{side}")


@pytest.mark.parametrize("tdt,odt,op,side", list(_in_place_cases()))
def test_in_place_dunder_with_numpy(torch, tdt, odt, op, side):
    """`x op= y`: the result and what became of the left operand."""
    f = getattr(operator, op)

    def run(M):
        t = M.tensor([1, 2, 3]).to(getattr(M, tdt))
        a = np.array([2, 1, 3], dtype=odt)
        x, y = {"t.a": (t, a), "a.t": (a, t), "t.s": (t, a[0])}[side]
        return f(x, y), x

    _compare(torch, run)


def test_array_priority(torch):
    assert G.Tensor.__array_priority__ == torch.Tensor.__array_priority__ == 1000


# ---- ufuncs and reductions -----------------------------------------------------------------

_A = np.array([2.0, 1.0, 3.0])
UFUNCS = {
    "exp": lambda t: np.exp(t),
    "sqrt": lambda t: np.sqrt(t),
    "sin": lambda t: np.sin(t),
    "abs": lambda t: np.abs(t),
    "negative": lambda t: np.negative(t),
    "add": lambda t: np.add(t, _A),
    "add_reversed": lambda t: np.add(_A, t),
    "add_tensors": lambda t: np.add(t, t),
    "multiply": lambda t: np.multiply(t, 2),
    "maximum": lambda t: np.maximum(t, _A),
    "less": lambda t: np.less(t, _A),
    "square": lambda t: np.square(t),
    "floor": lambda t: np.floor(t),
    "isnan": lambda t: np.isnan(t),
    "exp_0d": lambda t: np.exp(t[0, 0]),
    "matmul": lambda t: np.matmul(t, _A),
    "modf": lambda t: np.modf(t),
    "exp_out": lambda t: np.exp(t, out=np.empty((2, 3))),
    "asarray": lambda t: np.asarray(t),
    "add_reduce": lambda t: np.add.reduce(t),
    "argmax": lambda t: np.argmax(t),
    "cumsum": lambda t: np.cumsum(t),
    # numpy calls the tensor's own method with numpy's keywords (axis=, out=): PyTorch refuses.
    "sum": lambda t: np.sum(t),
    "sum_axis": lambda t: np.sum(t, axis=0),
    "mean": lambda t: np.mean(t),
    "max": lambda t: np.max(t),
    "prod": lambda t: np.prod(t),
    "all": lambda t: np.all(t),
}
UFUNC_DTYPES = ["float32", "float64", "int64", "int32", "bool", "float16"]

RUST_KWARG_MSG = ("Rust: numpy calls `t.sum(axis=None, out=None)`: gradrs's method refuses "
                  "'out' where PyTorch's parser names 'axis' first (and lists 'axis=' not "
                  "'dim=' for all())")


def _ufunc_known(name, dtype):
    if name in ("sum", "sum_axis", "mean", "all"):
        return RUST_KWARG_MSG
    bool_result = name in ("less", "isnan") or (dtype == "bool" and name in (
        "abs", "add_tensors", "floor"))
    if bool_result:
        return NO_UINT8
    return None


def _ufunc_cases():
    for dtype in UFUNC_DTYPES:
        for name in UFUNCS:
            reason = _ufunc_known(name, dtype)
            yield pytest.param(dtype, name, marks=[_xfail(reason)] if reason else [],
                               id=f"{dtype}-{name}")


@pytest.mark.parametrize("dtype,name", list(_ufunc_cases()))
def test_ufunc_on_tensor(torch, dtype, name):
    fn = UFUNCS[name]
    _compare(torch, lambda M: fn(M.tensor([[1, 2, 3], [4, 0, 1]]).to(getattr(M, dtype))))


def test_ufunc_result_shares_nothing_with_input():
    t = G.tensor([1.0, 2.0])
    r = np.exp(t)
    assert isinstance(r, G.Tensor) and r.data_ptr() != t.data_ptr()


# ---- from_numpy ----------------------------------------------------------------------------

NUMPY_DTYPES = ["float64", "float32", "float16", "int64", "int32", "bool", "complex64",
                "complex128", "int16", "int8", "uint64", "uint32", "uint16", "uint8",
                "longdouble", "clongdouble", "object", "U2", "S2", "V4", "datetime64[s]",
                "timedelta64[s]", [("a", "f4")]]
OURS = ("float64", "float32", "float16", "int64", "int32", "int16", "int8", "uint8", "bool")
TORCH_TYPES = ("float64, float32, float16, complex64, complex128, int64, int32, int16, int8, "
               "uint64, uint32, uint16, uint8, and bool.")
GRADRS_TYPES = "float64, float32, float16, int64, int32, int16, int8, uint8, and bool."


@pytest.mark.parametrize("dtype", NUMPY_DTYPES, ids=str)
def test_from_numpy_dtypes(torch, dtype):
    a = np.zeros(3, dtype=dtype)
    t_out = _outcome(torch, lambda M: M.from_numpy(a))
    g_out = _outcome(G, lambda M: M.from_numpy(a))
    if np.dtype(dtype).name in OURS:
        _same(g_out, t_out)
        t = G.from_numpy(a)
        assert t.data_ptr() == a.ctypes.data
        return
    # PyTorch's message, listing gradrs's dtypes where it lists its own.
    name = np.dtype(dtype).type.__name__
    assert g_out == ("error", "TypeError",
                     f"can't convert np.ndarray of type numpy.{name}. The only supported types "
                     "are: float64, float32, float16, int64, int32, int16, int8, uint8, and bool.")
    if t_out[0] == "error":
        assert t_out[2].startswith(f"can't convert np.ndarray of type numpy.{name}. ")


@pytest.mark.parametrize("make", [
    lambda: [1.0, 2.0],
    lambda: np.float64(1.0),
    lambda: np.ones(3, dtype=">f4"),
    lambda: np.ones(3, dtype=">i8")[::-1],
    lambda: np.ones((2, 3), dtype=np.float32)[:, ::-1],
    lambda: np.ndarray((3,), np.float32, np.zeros(20, np.uint8), 0, (6,)),
    lambda: np.ndarray((3,), np.float32, np.zeros(24, np.uint8), 20, (-6,)),
    lambda: np.ones(3, dtype=">U2"),
    lambda: np.ones(3, dtype=object)[::-1],
], ids=["list", "numpy_scalar", "big_endian", "big_endian_negative", "negative_strides",
        "odd_strides", "odd_negative", "big_endian_str", "object_negative"])
def test_from_numpy_errors(torch, make):
    g = _outcome(G, lambda M: M.from_numpy(make()))
    t = _outcome(torch, lambda M: M.from_numpy(make()))
    # The same message, listing gradrs's dtypes where PyTorch lists its own.
    _same(g, t[:2] + (t[2].replace(TORCH_TYPES, GRADRS_TYPES),))


def test_from_numpy_shares_strides_and_offset(torch):
    base = np.arange(24.0).reshape(2, 3, 4)
    for a in (base, base[:, 1:, ::2], base.transpose(2, 0, 1), base[1, 2], base[:, :, 1]):
        t, x = G.from_numpy(a), torch.from_numpy(a)
        assert t.stride() == x.stride() and tuple(t.shape) == a.shape
        assert t.data_ptr() == a.ctypes.data == x.data_ptr()
    t = G.from_numpy(base[1:])
    t[0, 0, 0] = -1.0
    assert base[1, 0, 0] == -1.0


def _readonly():
    a = np.arange(3.0)
    a.flags.writeable = False
    return a


@pytest.fixture
def fresh_readonly_warning(monkeypatch):
    """PyTorch warns about a read-only array once per process; each test starts afresh."""
    monkeypatch.setattr(_compat, "_warned_readonly", False)


def test_read_only_array_warns_once(torch, fresh_readonly_warning):
    with pytest.warns(UserWarning) as rec:
        t = G.from_numpy(_readonly())
    assert str(rec[0].message) == _compat._READONLY
    assert rec[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        G.from_numpy(_readonly())
        G.as_tensor(_readonly())
    assert t.tolist() == [0.0, 1.0, 2.0]


def test_read_only_array_warns_before_refusing(fresh_readonly_warning):
    a = np.ones(3, dtype=np.uint16)
    a.flags.writeable = False
    with pytest.warns(UserWarning, match="not writable"), pytest.raises(TypeError):
        G.from_numpy(a)


def test_as_tensor_read_only_warns(fresh_readonly_warning):
    with pytest.warns(UserWarning, match="The given NumPy array is not writable"):
        G.as_tensor(_readonly())


# ---- as_tensor -----------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", list(OURS))
def test_as_tensor_shares_like_torch(torch, dtype):
    a = np.zeros((2, 3), dtype=dtype)[:, 1:]
    for kwargs in ({}, {"device": "cpu"}, {"dtype": getattr(G, dtype)}):
        t = G.as_tensor(a, **kwargs)
        targs = {k: (getattr(torch, dtype) if k == "dtype" else v) for k, v in kwargs.items()}
        x = torch.as_tensor(a, **targs)
        assert (t.data_ptr() == a.ctypes.data) == (x.data_ptr() == a.ctypes.data) is True
        assert t.stride() == x.stride()


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_as_tensor_copies_like_torch(torch, dtype):
    """Another dtype is a copy (and a cast), in both."""
    a = np.ones(3, dtype="float64")
    t = G.as_tensor(a, dtype=getattr(G, dtype))
    x = torch.as_tensor(a, dtype=getattr(torch, dtype))
    assert t.tolist() == x.tolist() and str(t.dtype).split(".")[1] == dtype
    assert t.data_ptr() != a.ctypes.data and x.data_ptr() != a.ctypes.data


def test_as_tensor_write_through():
    a = np.arange(3.0)
    t = G.as_tensor(a)
    t.add_(1.0)
    np.testing.assert_array_equal(a, [1.0, 2.0, 3.0])


@pytest.mark.parametrize("make", [
    lambda M: M.as_tensor(np.ones(3)[::-1]),
    lambda M: M.as_tensor(np.ones(3, dtype=">f8")),
    lambda M: M.as_tensor(np.float64(2.5)),
    lambda M: M.as_tensor(np.array(2.5)),
    lambda M: M.as_tensor([1, 2]),
], ids=["negative_strides", "big_endian", "numpy_scalar", "zero_dim", "list"])
def test_as_tensor_as_torch(torch, make):
    _compare(torch, make)


def test_as_tensor_refuses_what_from_numpy_refuses():
    """As PyTorch's: from_numpy's TypeError, naming gradrs's dtypes."""
    with pytest.raises(TypeError, match=r"^can't convert np.ndarray of type numpy.object_. The "
                       "only supported types are: float64, float32, float16, int64, int32, int16, "
                       "int8, uint8, and bool.$"):
        G.as_tensor(np.ones(3, dtype=object))
    with pytest.raises(TypeError, match="numpy.uint16"):
        G.as_tensor(np.ones(3, dtype=np.uint16))


@pytest.mark.skipif(not G.cuda.is_available(), reason="no GPU adapter")
def test_as_tensor_to_gpu_copies():
    a = np.arange(3, dtype=np.float32)
    t = G.as_tensor(a, device="gpu")
    assert t.device.type == "gpu" and t.tolist() == [0.0, 1.0, 2.0]


def test_native_from_numpy_refuses_memory_it_cannot_share():
    # A numpy scalar's __array_interface__ points into a temporary array; an array over a byte
    # buffer at an odd offset is not aligned for Rust to read in place.
    with pytest.raises(TypeError, match=r"expected np.ndarray \(got numpy.float64\)"):
        G._native.from_numpy(np.float64(1.0))
    odd = np.ndarray((2,), dtype=np.float32, buffer=bytearray(12), offset=1)
    with pytest.raises(ValueError, match="not aligned"):
        G._native.from_numpy(odd)
    odd[:] = [1.5, -2.0]
    assert G.tensor(odd).tolist() == [1.5, -2.0]  # tensor() copies, as PyTorch's
