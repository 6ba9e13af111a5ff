"""Issue 24's top-level `torch.*` names added for coverage, against PyTorch: `asarray` /
`frombuffer` (memory shared as there), the default device and the runtime settings, the
`native_*` normalizations, `convolution`, `embedding_bag`, the grid samplers, the SyncBatchNorm
helpers, `detach_copy`, `empty_permuted`, `slice_inverse`, `histogramdd`, `lu_unpack` /
`lu_solve`, `cond`: values, grad_fn names, gradients (float64 gradcheck) and errors."""

import array

import numpy as np
import pytest
from conftest import G, assert_same, check, check_error, node_name, run_both


# --- asarray / frombuffer -------------------------------------------------------------------


def test_asarray_shares_numpy_memory():
    n = np.arange(3.0)
    t = G.asarray(n)
    t[0] = 7.0
    assert n[0] == 7.0 and t.dtype == G.float64
    c = G.asarray(n, copy=True)
    c[1] = 9.0
    assert n[1] == 1.0
    cast = G.asarray(n, dtype=G.float32)
    cast[2] = 5.0
    assert n[2] == 2.0 and cast.dtype == G.float32


def test_asarray_tensor_identity_and_grad(torch):
    for m in (G, torch):
        t = m.ones(3, requires_grad=True)
        assert m.asarray(t, requires_grad=True) is t
        u = t * 2
        assert m.asarray(u, requires_grad=True) is u
        d = m.asarray(u, requires_grad=False)
        assert d.grad_fn is None and not d.requires_grad and d.data_ptr() == u.data_ptr()
        assert node_name(m.asarray(u, copy=True).grad_fn) == "CloneBackward0"
        assert node_name(m.asarray(u, dtype=m.float64).grad_fn) == "ToCopyBackward0"
        leaf = m.asarray(u.detach(), requires_grad=True)
        assert leaf.is_leaf and leaf.requires_grad
        off = m.asarray(t, requires_grad=False)
        assert off is t and not t.requires_grad  # PyTorch turns the leaf's flag off


def test_asarray_values(torch):
    check(lambda m: m.asarray([1, 2]))
    check(lambda m: m.asarray([[1, 2.5]]))
    check(lambda m: m.asarray([[1, 2]], dtype=m.float64))
    check(lambda m: m.asarray(3))
    check(lambda m: m.asarray(np.float64(2.0)))
    check(lambda m: m.asarray(np.arange(3, dtype=np.int32)))
    check(lambda m: m.asarray(array.array("i", [1, 2, 3])))
    check(lambda m: m.asarray([1.0, 2.0], requires_grad=True))


def test_asarray_errors(torch):
    check_error(lambda m: m.asarray(m.ones(3), dtype=m.float64, copy=False))
    check_error(lambda m: m.asarray([1, 2], copy=False))
    check_error(lambda m: m.asarray(np.float64(1.0), copy=False))
    check_error(lambda m: m.asarray([1, 2], requires_grad=True))


def test_frombuffer(torch):
    check(lambda m: m.frombuffer(bytearray(b"\x01\x00\x00\x00\x02\x00\x00\x00"), dtype=m.int32))
    check(lambda m: m.frombuffer(bytearray(range(8)), dtype=m.uint8, count=3, offset=2))
    check(lambda m: m.frombuffer(bytearray(8), dtype=m.float32, requires_grad=True))
    a = array.array("i", [1, 2, 3])
    t = G.frombuffer(a, dtype=G.int32)
    t[0] = 7
    assert a[0] == 7
    for kw in [dict(count=0), dict(offset=8), dict(count=3), dict(offset=-1)]:
        check_error(lambda m, kw=kw: m.frombuffer(bytearray(8), dtype=m.int32, **kw))
    check_error(lambda m: m.frombuffer(bytearray(7), dtype=m.int32))
    check_error(lambda m: m.frombuffer(bytearray(0), dtype=m.int32))
    check_error(lambda m: m.frombuffer([1, 2], dtype=m.int32))
    check_error(lambda m: m.frombuffer(bytearray(8)))


# --- default device and runtime settings ----------------------------------------------------


def test_default_device_factories():
    assert repr(G.get_default_device()) == "device(type='cpu')"
    G.set_default_device("gpu")
    try:
        assert G.get_default_device() == G.device("gpu:0")
        for t in (G.zeros(2), G.ones(2), G.tensor([1.0]), G.arange(3), G.hann_window(3),
                  G.asarray([1.0]), G.nn.Linear(2, 3).weight, G.rand(2), G.full((2,), 1.0)):
            assert t.device == G.device("gpu:0")
        assert G.zeros(2, device="cpu").device == G.device("cpu")
        assert G.zeros_like(G.ones(2, device="cpu")).device == G.device("cpu")
    finally:
        G.set_default_device(None)
    assert G.zeros(2).device == G.device("cpu")
    G.set_default_device("cpu")
    assert G.get_default_device() == G.device("cpu")
    G.set_default_device(None)


def test_runtime_settings(torch):
    assert G.get_num_interop_threads() >= 1
    assert G.init_num_threads() is None
    check_error(lambda m: m.set_num_interop_threads(0))
    check_error(lambda m: m.set_num_interop_threads("a"))
    check_error(lambda m: m.set_warn_always(1))
    check_error(lambda m: m.set_flush_denormal(1))
    assert G.is_warn_always_enabled() is False
    G.set_warn_always(True)
    try:
        assert G.is_warn_always_enabled() is True
    finally:
        G.set_warn_always(False)
    assert G.set_flush_denormal(False) is False
