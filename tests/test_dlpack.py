"""DLPack both ways: round trips with numpy and PyTorch share memory; dtypes, strides, capsules
(versioned and legacy), and errors compared with PyTorch's."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from conftest import G, norm, norm_g

DTYPES = ["float32", "float64", "float16", "int64", "int32", "bool"]
needs_gpu = pytest.mark.skipif(not G.cuda.is_available(), reason="no GPU adapter")


def _values(dtype):
    return np.array([[1, 0, 3], [0, 5, 6]]).astype(dtype)


def _poke(x, value):
    """Write `value` at [0, 0] of a gradrs/torch tensor or numpy array."""
    x[0, 0] = value


def _first(x):
    return x[0, 0].item()


def _one(dtype):
    return True if dtype == "bool" else 7


def _err(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - the exception is what is compared
            return type(e).__name__, str(e)
    return None


def _same_err(g_fn, t_fn):
    g, t = _err(g_fn), _err(t_fn)
    assert t is not None, "PyTorch raised nothing"
    assert g is not None, f"gradrs raised nothing where PyTorch raised {t}"
    assert (g[0], norm_g(g[1])) == (t[0], norm(t[1]))


# ---- round trips: a write on one side shows on the other -----------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_numpy_from_gradrs_shares(dtype):
    t = G.tensor(_values(dtype))
    a = np.from_dlpack(t)
    assert a.dtype == np.dtype(dtype) and a.shape == (2, 3)
    np.testing.assert_array_equal(a, _values(dtype))
    _poke(a, _one(dtype))
    assert _first(t) == _one(dtype)
    _poke(t, 0)
    assert a[0, 0] == 0


@pytest.mark.parametrize("dtype", DTYPES)
def test_gradrs_from_numpy_array_shares(dtype):
    a = _values(dtype)
    t = G.from_dlpack(a)
    assert str(t.dtype).endswith(dtype) and tuple(t.shape) == (2, 3)
    _poke(t, _one(dtype))
    assert a[0, 0] == _one(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_torch_from_gradrs_shares(torch, dtype):
    t = G.tensor(_values(dtype))
    x = torch.from_dlpack(t)
    assert str(x.dtype) == f"torch.{dtype}" and x.data_ptr() == t.data_ptr()
    assert x.tolist() == t.tolist()
    _poke(x, _one(dtype))
    assert _first(t) == _one(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_gradrs_from_torch_shares(torch, dtype):
    x = torch.tensor(_values(dtype))
    t = G.from_dlpack(x)
    assert str(t.dtype).split(".")[1] == dtype and t.data_ptr() == x.data_ptr()
    _poke(t, _one(dtype))
    assert _first(x) == _one(dtype)


def test_memory_outlives_the_producer(torch):
    """The consumer keeps the producer's memory alive: nothing dangles once it is gone."""
    import gc

    t = G.arange(1000.0)
    x = torch.from_dlpack(t)
    a = np.from_dlpack(G.arange(1000.0) * 2)
    y = torch.arange(1000.0) * 3
    u = G.from_dlpack(y)
    del t, y
    gc.collect()
    junk = [G.ones(1000) * 9 for _ in range(20)] + [torch.ones(1000) * 9 for _ in range(20)]
    assert x.tolist() == list(map(float, range(1000)))
    assert a.tolist() == [2.0 * i for i in range(1000)]
    assert u.tolist() == [3.0 * i for i in range(1000)]
    del junk


def test_legacy_capsules_both_ways(torch):
    t = G.arange(4)
    cap = G.utils.dlpack.to_dlpack(t)
    assert repr(cap).startswith('<capsule object "dltensor"')
    x = torch.from_dlpack(cap)
    x[0] = -9
    assert t[0].item() == -9
    y = torch.arange(3.0)
    u = G.from_dlpack(torch.utils.dlpack.to_dlpack(y))
    u[1] = 5.0
    assert y[1].item() == 5.0
    # gradrs's own capsule back into gradrs
    v = G.from_dlpack(G.utils.dlpack.to_dlpack(t))
    v[1] = 11
    assert t[1].item() == 11


@pytest.mark.parametrize("kwargs", [{}, {"max_version": None}, {"max_version": (0, 8)},
                                    {"max_version": (1, 0)}, {"max_version": (2, 3)},
                                    {"stream": None}, {"dl_device": (1, 0)}, {"copy": False}])
def test_capsule_kind_as_torch(torch, kwargs):
    """Legacy capsules unless the caller supports DLPack >= 1.0, as PyTorch's."""
    g = G.ones(2).__dlpack__(**kwargs)
    x = torch.ones(2).__dlpack__(**kwargs)
    assert repr(g).split(" at ")[0] == repr(x).split(" at ")[0]
    assert G.from_dlpack(g).tolist() == [1.0, 1.0]


def test_dlpack_device(torch):
    dev = G.ones(1).__dlpack_device__()
    assert dev == torch.ones(1).__dlpack_device__() == (1, 0)
    assert repr(dev[0]) == "<DLDeviceType.kDLCPU: 1>"
    assert G.utils.dlpack.DLDeviceType.kDLCPU == 1


# ---- layouts -------------------------------------------------------------------------------


def _views(M):
    base = M.arange(24.0).reshape(2, 3, 4)
    return base, {
        "transpose": base.transpose(0, 2),
        "slice_offset": base[1, 1:, 1:],
        "step": base[:, ::2, ::3],
        "zero_dim": base[1, 2, 3],
        "empty": base[:, 3:],
        "column": base[:, :, 1],
    }


@pytest.mark.parametrize("name", ["transpose", "slice_offset", "step", "zero_dim", "empty", "column"])
def test_strides_and_offsets_survive(torch, name):
    gbase, gviews = _views(G)
    tbase, tviews = _views(torch)
    g = gviews[name]
    x = torch.from_dlpack(g)
    ref = tviews[name]
    assert tuple(x.shape) == tuple(ref.shape)
    if g.numel() > 1:
        assert x.stride() == ref.stride() == g.stride()
    if g.numel():
        assert x.data_ptr() - gbase.data_ptr() == ref.data_ptr() - tbase.data_ptr()
    assert x.tolist() == ref.tolist()
    # and back: a torch view imported keeps its strides and offset
    u = G.from_dlpack(ref)
    assert tuple(u.shape) == tuple(ref.shape) and u.tolist() == ref.tolist()
    if ref.numel() > 1:
        assert u.stride() == ref.stride()
    if ref.numel():
        assert u.data_ptr() == ref.data_ptr()
    # numpy sees the same elements
    np.testing.assert_array_equal(np.from_dlpack(g), ref.numpy())


def test_non_contiguous_write_through(torch):
    base = G.zeros(3, 4)
    x = torch.from_dlpack(base.t())
    x[1, 2] = 4.0
    assert base[2, 1].item() == 4.0


# ---- copies --------------------------------------------------------------------------------


def test_copy_flags(torch):
    t = G.arange(3.0)
    a = np.from_dlpack(t, copy=True)
    a[0] = 100
    assert t[0].item() == 0.0
    b = np.from_dlpack(t, copy=False)
    b[0] = 100
    assert t[0].item() == 100.0
    c = G.from_dlpack(torch.arange(3.0), copy=True)
    assert c.tolist() == [0.0, 1.0, 2.0]
    y = torch.arange(3.0)
    d = G.from_dlpack(y, copy=True)
    d[0] = 5.0
    assert y[0].item() == 0.0
    e = G.from_dlpack(y, device="cpu", copy=False)
    e[0] = 5.0
    assert y[0].item() == 5.0


def test_read_only_numpy_input_as_torch(torch):
    """A read-only array comes in as PyTorch takes it: shared, writable, with no warning."""
    a = np.arange(3.0)
    a.flags.writeable = False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t = G.from_dlpack(a)
        x = torch.from_dlpack(a)
    assert t.data_ptr() == a.ctypes.data == x.data_ptr()
    t[0] = 8.0
    assert a[0] == 8.0


def test_to_dlpack_of_a_tensor_that_requires_grad(torch):
    """The legacy `to_dlpack` does not check requires_grad (PyTorch's `_to_dlpack` does not)."""
    t = G.ones(2, requires_grad=True)
    u = torch.from_dlpack(G.utils.dlpack.to_dlpack(t))
    assert u.tolist() == [1.0, 1.0] and not u.requires_grad
    torch.utils.dlpack.to_dlpack(torch.ones(2, requires_grad=True))


# ---- errors, compared with PyTorch's -------------------------------------------------------


@pytest.mark.parametrize("call", [
    lambda M: M.ones(2, requires_grad=True).__dlpack__(),
    lambda M: np.from_dlpack(M.ones(2, requires_grad=True)),
    lambda M: M.ones(2).__dlpack__(stream=1.0),
    lambda M: M.ones(2).__dlpack__(stream=0),
    lambda M: M.ones(2).__dlpack__(stream=2),
    lambda M: M.ones(2).__dlpack__(1),
    lambda M: M.ones(2).__dlpack__(max_version=1),
    lambda M: M.ones(2).__dlpack__(copy="yes"),
    lambda M: M.ones(2).__dlpack__(copy=1, max_version=(1, 0)),
    lambda M: M.ones(2).__dlpack__(dl_device=1),
    lambda M: M.ones(2).__dlpack__(dl_device=(7, 0)),
    lambda M: M.ones(2).__dlpack__(dl_device=(15, 0), max_version=(1, 0)),
    lambda M: M.from_dlpack([1, 2]),
    lambda M: M.from_dlpack(object()),
    lambda M: M.from_dlpack(np.float64(1.0)),
    lambda M: M.from_dlpack(M.utils.dlpack.to_dlpack(M.ones(1)), copy=True),
    lambda M: M.from_dlpack(M.utils.dlpack.to_dlpack(M.ones(1)), device="cpu"),
    lambda M: M.from_dlpack(np.ones(2), device=0),
    lambda M: M.utils.dlpack.to_dlpack(np.ones(2)),
    lambda M: M.utils.dlpack.to_dlpack(M.ones(2), copy="no"),
    lambda M: M.from_dlpack(np.ones(3, dtype=">f4")),
    lambda M: M.from_dlpack(np.ones(3, dtype=np.longdouble)),
    lambda M: M.from_dlpack(np.ndarray((3,), np.float32, np.zeros(20, np.uint8), 0, (6,))),
])
def test_errors_as_torch(torch, call):
    _same_err(lambda: call(G), lambda: call(torch))


def test_capsule_consumed_twice(torch):
    for M in (G, torch):
        cap = M.utils.dlpack.to_dlpack(M.ones(2))
        M.from_dlpack(cap)
        assert repr(cap).startswith('<capsule object "used_dltensor"')
    _same_err(lambda: G.from_dlpack(cap), lambda: torch.from_dlpack(cap))


def test_dtype_gradrs_lacks(torch):
    """torch.uint16 has no gradrs dtype: refused as a BufferError naming ours."""
    with pytest.raises(BufferError, match="Unsupported DLPack dtype uint16. The only supported "
                       "types are: float64, float32, float16, int64, int32, int16, int8, uint8, "
                       "and bool."):
        G.from_dlpack(torch.ones(2, dtype=torch.uint16))


# ---- GPU tensors: never a wrong pointer ----------------------------------------------------


@needs_gpu
def test_gpu_tensor_is_not_exported():
    g = G.ones(3, device="gpu")
    with pytest.raises(ValueError, match="^Unknown device type gpu for Dlpack$"):
        g.__dlpack_device__()
    with pytest.raises(BufferError, match="^Cannot pack tensors on gpu$"):
        g.__dlpack__()
    with pytest.raises(BufferError, match="^Cannot pack tensors on gpu$"):
        np.from_dlpack(g)
    with pytest.raises(BufferError, match="^Cannot pack tensors on gpu$"):
        G.utils.dlpack.to_dlpack(g)
    with pytest.raises(ValueError, match=r"^cannot move \(i.e. copy=False\) tensor from gpu:0 to "
                       "cpu without copying.$"):
        g.__dlpack__(dl_device=(1, 0), copy=False)


@needs_gpu
def test_gpu_tensor_exports_a_host_copy_when_asked():
    g = G.arange(3.0, device="gpu")
    a = np.from_dlpack(g, device="cpu")
    np.testing.assert_array_equal(a, [0.0, 1.0, 2.0])
    a[0] = 5.0
    assert g[0].item() == 0.0


@needs_gpu
def test_from_dlpack_onto_the_gpu():
    a = np.arange(3.0, dtype=np.float32)
    t = G.from_dlpack(a, device="gpu")
    assert t.device.type == "gpu" and t.tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(ValueError, match="without copying. Set copy=None or copy=True."):
        G.from_dlpack(a, device="gpu", copy=False)
