"""Issue 24's top-level `torch.*` names added for coverage, against PyTorch: `asarray` /
`frombuffer` (memory shared as there), the default device and the runtime settings, the
`native_*` normalizations, `convolution`, `embedding_bag`, the grid samplers, the SyncBatchNorm
helpers, `detach_copy`, `empty_permuted`, `slice_inverse`, `histogramdd`, `lu_unpack` /
`lu_solve`, `cond`: values, grad_fn names, gradients (float64 gradcheck) and errors."""

import array

import numpy as np
import pytest
from conftest import G, assert_same, check, check_error, node_name


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


def test_device_context_manager(torch):
    # torch.device as a context manager (issue 27): the block's factories make tensors there,
    # the previous default comes back on exit (nested blocks, an exception, set_default_device).
    def f(M, dev):
        out = []
        with M.device(dev) as d:
            out += [d == M.device(dev), M.get_default_device(), M.zeros(2).device,
                    M.tensor([1.0]).device, M.arange(3).device, M.full((1,), 2.0).device,
                    M.zeros(1, device="cpu").device, M.zeros_like(M.ones(1)).device]
            with M.device("cpu"):
                out += [M.get_default_device(), M.ones(1).device]
            out += [M.get_default_device(), M.empty(1).device]
        out += [M.get_default_device(), M.zeros(1).device]
        try:
            with M.device(dev):
                raise KeyError("inside")
        except KeyError:
            pass
        out += [M.get_default_device(), M.rand(1).device]
        M.set_default_device(dev)
        try:
            with M.device("cpu"):
                out += [M.zeros(1).device]
            out += [M.zeros(1).device]
        finally:
            M.set_default_device(None)
        return [str(x) for x in out]

    # meta is PyTorch's other device everywhere; gradrs's is the GPU (the alias cuda is gpu).
    g = f(G, "gpu") if G.cuda.is_available() else f(G, "cpu")
    t = f(torch, "meta") if G.cuda.is_available() else f(torch, "cpu")
    assert [s.replace("gpu:0", "X").replace("gpu", "X") for s in g] == \
        [s.replace("meta", "X") for s in t]
    d = G.device("cpu")
    assert d.__enter__() is d and d.__exit__(None, None, None) is None
    with pytest.raises(RuntimeError, match="trying to pop from empty mode stack"):
        G.device("cpu").__exit__(None, None, None)
    with pytest.raises(RuntimeError, match="trying to pop from empty mode stack"):
        torch.device("cpu").__exit__(None, None, None)
    assert G.get_default_device() == G.device("cpu")


def test_device_context_is_per_thread():
    import threading

    seen = []
    with G.device("cuda" if G.cuda.is_available() else "cpu"):
        t = threading.Thread(target=lambda: seen.append(G.get_default_device()))
        t.start()
        t.join()
    assert seen == [G.device("cpu")]


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


# --- nn natives -----------------------------------------------------------------------------

_RNG = np.random.default_rng(0)
_X = _RNG.standard_normal((2, 4, 3))


def _t(m, a, rg=False, dtype="float64"):
    return m.tensor(np.asarray(a).tolist(), dtype=getattr(m, dtype), requires_grad=rg)


def _grads_of(m, fn, arrays, which=None):
    """fn(m, *leaves) -> tensor or tuple; the output(s) and the leaves' gradients of a fixed
    weighted sum of output `which` (all differentiable ones when None)."""
    leaves = [_t(m, a, True) for a in arrays]
    out = fn(m, *leaves)
    outs = out if isinstance(out, tuple) else (out,)
    rng = np.random.default_rng(1)
    total = 0
    for k, o in enumerate(outs):
        if o is None or not o.requires_grad or (which is not None and k not in which):
            continue
        total = total + (o * _t(m, rng.standard_normal(tuple(o.shape)))).sum()
    grads = m.autograd.grad(total, leaves, allow_unused=True)
    return out, grads


def _same_grads(torch, fn, arrays, which=None):
    (og, gg), (ot, gt) = _grads_of(G, fn, arrays, which), _grads_of(torch, fn, arrays, which)
    assert_same(og, ot, check_repr=False)
    for a, b in zip(gg, gt):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(np.asarray(a.tolist()), b.numpy(), rtol=1e-9, atol=1e-12)


def test_native_batch_and_layer_norm(torch):
    _same_grads(torch, lambda m, x, w: m.native_batch_norm(
        x, w, None, m.zeros(4, dtype=m.float64), m.ones(4, dtype=m.float64), True, 0.1, 1e-5),
        [_X, _RNG.standard_normal(4)], which=(0,))
    check(lambda m: m.native_batch_norm(_t(m, _X), None, None, m.zeros(4, dtype=m.float64),
                                        m.ones(4, dtype=m.float64), False, 0.1, 1e-5))
    _same_grads(torch, lambda m, x, b: m.native_layer_norm(x, [4, 3], None, b, 1e-5),
                [_X, _RNG.standard_normal((4, 3))], which=(0,))


def test_native_group_norm(torch):
    arrays = [_X, _RNG.standard_normal(4), _RNG.standard_normal(4)]
    _same_grads(torch, lambda m, x, w, b: m.native_group_norm(x, w, b, 2, 4, 3, 2, 1e-5), arrays)
    # PyTorch's formula drops the statistics' gradients
    _same_grads(torch, lambda m, x, w, b: m.native_group_norm(x, w, b, 2, 4, 3, 2, 1e-5),
                arrays, which=(1, 2))
    leaves = [_t(G, a, True) for a in arrays]
    assert G.autograd.gradgradcheck(
        lambda x, w, b: G.native_group_norm(x, w, b, 2, 4, 3, 2, 1e-5)[0], leaves)
    check_error(lambda m: m.native_group_norm(_t(m, _X), None, None, 2, 4, 3, 3, 1e-5))


def test_native_dropout(torch):
    def run(m, train):
        m.manual_seed(3)
        x = m.ones(3, 5, requires_grad=True)
        out, mask = m.native_dropout(x, 0.4, train)
        out.sum().backward()
        return out, mask, x.grad

    check(lambda m: run(m, True))
    check(lambda m: run(m, None))
    check(lambda m: run(m, False))
    check(lambda m: m.native_dropout(m.ones(0), 0.5, True))


def test_native_norm_is_sparse_only(torch):
    for m in (G, torch):
        with pytest.raises(NotImplementedError, match="Could not run 'aten::native_norm' with "
                           "arguments from the 'CPU' backend"):
            m.native_norm(m.ones(2))


def test_convolution(torch):
    x, w6, b6 = _RNG.standard_normal((2, 4, 6)), _RNG.standard_normal((6, 2, 3)), \
        _RNG.standard_normal(6)
    _same_grads(torch, lambda m, x, w, b: m.convolution(x, w, b, [2], [1], [1], False, [0], 2),
                [x, w6, b6])
    _same_grads(torch, lambda m, x, w: m.convolution(x, w, None, [2], [1], [1], True, [1], 2),
                [x, _RNG.standard_normal((4, 3, 3))])
    _same_grads(torch, lambda m, x, w: m.convolution(x, w, None, [1, 1], [0, 1], [2, 1], False,
                                                     [0, 0], 1),
                [_RNG.standard_normal((1, 2, 5, 5)), _RNG.standard_normal((3, 2, 2, 2))])
    check_error(lambda m: m.convolution(_t(m, x[0]), _t(m, w6), None, [1], [0], [1], False,
                                        [0], 1))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("padding_idx", [None, 4])
@pytest.mark.parametrize("include_last_offset", [False, True])
def test_embedding_bag(torch, dtype, mode, padding_idx, include_last_offset):
    weight = _RNG.standard_normal((10, 3))
    offsets = [0, 2, 2] + ([6] if include_last_offset else [])

    def run(m):
        w = _t(m, weight, True, dtype)
        out = m.embedding_bag(w, m.tensor([1, 2, 4, 5, 4, 3]), m.tensor(offsets), False, mode,
                              False, None, include_last_offset, padding_idx)
        out[0].sum().backward()
        return out, w.grad

    check(run, rtol=1e-5)


def test_embedding_bag_extras(torch):
    w = _RNG.standard_normal((10, 3))
    check(lambda m: m.embedding_bag(_t(m, w, True, "float32"), m.tensor([1, 2, 4, 5]),
                                    m.tensor([0, 2]), False, 0, False,
                                    m.ones(4), False, None))
    check(lambda m: m.embedding_bag(_t(m, w), m.tensor([1, 2, 4], dtype=m.int32),
                                    m.tensor([0, 2], dtype=m.int32), False, 1))
    check(lambda m: m.embedding_bag(_t(m, w), m.tensor([1, 2, 4]), m.tensor([0, 2])))
    check_error(lambda m: m.embedding_bag(_t(m, w), m.tensor([1, 2]), m.tensor([0, 1]), False, 3))
    check_error(lambda m: m.embedding_bag(_t(m, w), m.tensor([1, 2]), m.tensor([0, 1]), False,
                                          1, False, m.ones(2, dtype=m.float64)))
    check_error(lambda m: m.embedding_bag(_t(m, w), m.tensor([1, 2]), m.tensor([1, 2])))


def test_embedding_renorm_(torch):
    rows = _RNG.standard_normal((5, 3)) * 3

    def run(m):
        w = _t(m, rows)
        v = w._version
        r = m.embedding_renorm_(w, m.tensor([1, 1, 2]), 1.0, 2.0)
        return r is w, w._version - v, w

    check(run)
    check_error(lambda m: m.embedding_renorm_(_t(m, rows, True), m.tensor([1]), 1.0, 2.0))


@pytest.mark.parametrize("interpolation", [0, 1, 2])
@pytest.mark.parametrize("padding", [0, 1, 2])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sampler_2d(torch, interpolation, padding, align_corners):
    img, grid = _RNG.standard_normal((2, 2, 5, 5)), _RNG.uniform(-1.2, 1.2, (2, 3, 3, 2))
    for fn in ("grid_sampler", "grid_sampler_2d"):
        _same_grads(torch, lambda m, x, g, fn=fn: getattr(m, fn)(x, g, interpolation, padding,
                                                                 align_corners), [img, grid])


@pytest.mark.parametrize("interpolation", [0, 1])
@pytest.mark.parametrize("padding", [0, 1, 2])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sampler_3d(torch, interpolation, padding, align_corners):
    vol, grid = _RNG.standard_normal((2, 2, 3, 4, 5)), _RNG.uniform(-1.2, 1.2, (2, 2, 3, 2, 3))
    for fn in ("grid_sampler", "grid_sampler_3d"):
        _same_grads(torch, lambda m, x, g, fn=fn: getattr(m, fn)(x, g, interpolation, padding,
                                                                 align_corners), [vol, grid])
    F = G.nn.functional
    mode = ("bilinear", "nearest")[interpolation]
    pad = ("zeros", "border", "reflection")[padding]
    _same_grads(torch, lambda m, x, g: (F if m is G else torch.nn.functional).grid_sample(
        x, g, mode, pad, align_corners), [vol, grid])
    if interpolation == 0 and padding == 1:
        leaves = [_t(G, vol[:1, :1, :2, :2, :3], True), _t(G, grid[:1, :1, :2], True)]
        fn = lambda x, g: G.grid_sampler_3d(x, g, 0, 1, align_corners)  # noqa: E731
        assert G.autograd.gradcheck(fn, leaves) and G.autograd.gradgradcheck(fn, leaves)


def test_grid_sampler_errors(torch):
    vol, grid5 = _RNG.standard_normal((2, 2, 3, 4, 5)), _RNG.uniform(-1, 1, (2, 2, 3, 2, 3))
    img, grid4 = _RNG.standard_normal((1, 2, 5, 5)), _RNG.uniform(-1, 1, (2, 3, 3, 2))
    check_error(lambda m: m.grid_sampler_2d(_t(m, vol), _t(m, grid5), 0, 0, False))
    check_error(lambda m: m.grid_sampler_3d(_t(m, vol), _t(m, grid5), 2, 0, False))
    check_error(lambda m: m.grid_sampler_3d(_t(m, img), _t(m, grid4), 0, 0, False))
    check_error(lambda m: m.affine_grid_generator(_t(m, np.ones((2, 2, 3))), [2, 1, 3], False))


def test_affine_grid_generator(torch):
    _same_grads(torch, lambda m, t: m.affine_grid_generator(t, [2, 1, 3, 4], False),
                [_RNG.standard_normal((2, 2, 3))])
    _same_grads(torch, lambda m, t: m.affine_grid_generator(t, [2, 1, 3, 4, 2], True),
                [_RNG.standard_normal((2, 3, 4))])


# --- the SyncBatchNorm kernels ----------------------------------------------------------------


def test_sync_batch_norm_kernels(torch):
    """Merged statistics equal the whole batch's; the backward pieces give PyTorch's batch-norm
    gradients (PyTorch runs all but batch_norm_update_stats on CUDA only)."""
    X = _RNG.standard_normal((3, 4, 5))
    x = _t(G, X)
    mean, invstd = G.batch_norm_stats(x, 1e-5)
    np.testing.assert_allclose(mean.numpy(), X.mean((0, 2)), atol=1e-14)
    np.testing.assert_allclose(invstd.numpy(), 1 / np.sqrt(X.var((0, 2)) + 1e-5), rtol=1e-13)
    parts = [X[:1], X[1:]]
    means = _t(G, [p.mean((0, 2)) for p in parts])
    invstds = _t(G, [1 / np.sqrt(p.var((0, 2)) + 1e-5) for p in parts])
    rm, rv = G.zeros(4, dtype=G.float64), G.ones(4, dtype=G.float64)
    m2, i2 = G.batch_norm_gather_stats_with_counts(x, means, invstds, rm, rv, 0.1, 1e-5,
                                                   _t(G, [5.0, 10.0]))
    np.testing.assert_allclose(m2.numpy(), X.mean((0, 2)), atol=1e-14)
    np.testing.assert_allclose(i2.numpy(), invstd.numpy(), rtol=1e-13)
    np.testing.assert_allclose(rv.numpy(), 0.9 + 0.1 * X.var((0, 2), ddof=1), rtol=1e-13)
    np.testing.assert_allclose(rm.numpy(), 0.1 * X.mean((0, 2)), atol=1e-14)
    m3, _ = G.batch_norm_gather_stats(x, means[:1], invstds[:1], None, None, 0.1, 1e-5, 5)
    np.testing.assert_allclose(m3.numpy(), X[:1].mean((0, 2)), atol=1e-14)

    W, GO = _RNG.standard_normal(4), _RNG.standard_normal(X.shape)
    xt, wt = torch.tensor(X, requires_grad=True), torch.tensor(W, requires_grad=True)
    out = torch.nn.functional.batch_norm(xt, None, None, wt, None, True, 0.1, 1e-5)
    out.backward(torch.tensor(GO))
    w, go = _t(G, W), _t(G, GO)
    np.testing.assert_allclose(G.batch_norm_elemt(x, w, None, mean, invstd, 1e-5).numpy(),
                               out.detach().numpy(), atol=1e-13)
    sum_dy, sum_dy_xmu, gw, gb = G.batch_norm_backward_reduce(go, x, mean, invstd, w, True,
                                                              True, True)
    gi = G.batch_norm_backward_elemt(go, x, mean, invstd, w, sum_dy, sum_dy_xmu,
                                     G.tensor([15], dtype=G.int32))
    np.testing.assert_allclose(gi.numpy(), xt.grad.numpy(), atol=1e-13)
    np.testing.assert_allclose(gw.numpy(), wt.grad.numpy(), atol=1e-13)
    np.testing.assert_allclose(gb.numpy(), GO.sum((0, 2)), atol=1e-13)
    assert G.batch_norm_backward_reduce(go, x, mean, invstd, None, False, False, True)[:3] == \
        (None, None, None)


def test_batch_norm_update_stats(torch):
    X = _RNG.standard_normal((3, 4, 5))

    def run(m):
        x = _t(m, X, True)
        rm, rv = m.zeros(4, dtype=m.float64), m.ones(4, dtype=m.float64)
        mean, var = m.batch_norm_update_stats(x, rm, rv, 0.1)
        return mean, var, rm, rv, rm._version, rv._version

    check(run)
    check_error(lambda m: run(m)[0].sum().backward())
    check_error(lambda m: m.batch_norm_update_stats(m.ones(3), None, None, 0.1))


# --- detach_copy, empty_permuted, cond, histogramdd, lu_unpack / lu_solve ---------------------


def test_detach_copy(torch):
    def run(m):
        x = m.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True).t()
        d = m.detach_copy(x)
        return d, d.stride(), d.requires_grad, d.data_ptr() == x.data_ptr()

    check(run)
    check_error(lambda m: m.detach_copy(m.ones(2, requires_grad=True)).sum().backward())
    check(lambda m: m.detach_copy(m.ones(2)).requires_grad)


def test_empty_permuted(torch):
    check(lambda m: (m.empty_permuted((2, 3, 4), (2, 0, 1)).stride(),
                     m.empty_permuted((2, 3, 4), (2, 0, 1)).shape))
    e = G.empty_permuted((2, 3), (1, 0), dtype=G.float64, requires_grad=True)
    assert e.is_leaf and e.requires_grad and e._base is None and e.dtype == G.float64
    for size, order in [((2, 3), (0,)), ((2, 3), (0, 0)), ((2, 3), (0, 2))]:
        check_error(lambda m, size=size, order=order: m.empty_permuted(size, order))


def test_cond(torch):
    def run(m, pred_sign):
        x = m.tensor([1.0, -2.0, 3.0], requires_grad=True)
        r = m.cond(x.sum() * pred_sign > 0, lambda t: t.sin() * 2, lambda t: t.cos(), (x,))
        r.sum().backward()
        return r, x.grad

    check(lambda m: run(m, 1))
    check(lambda m: run(m, -1))
    check(lambda m: m.cond(True, lambda: 1, lambda: 2))

    def pair(m):
        x = m.tensor([1.0, -2.0, 3.0], requires_grad=True)
        r = m.cond(m.tensor(False), lambda t: [t.sin(), t * 2], lambda t: [t.cos(), t * 3], [x])
        (g,) = m.autograd.grad((r[0] ** 2).sum() + r[1].sum(), [x], create_graph=True)
        return type(r).__name__, r, g, g.requires_grad

    check(pair)
    x = [1.0]
    check_error(lambda m: m.cond(m.ones(2) > 0, lambda t: t, lambda t: t, (m.tensor(x),)))
    check_error(lambda m: m.cond("a", lambda t: t, lambda t: t, (m.tensor(x),)))
    check_error(lambda m: m.cond(m.tensor(True), 1, lambda t: t, (m.tensor(x),)))
    check_error(lambda m: m.cond(m.tensor(True), lambda t: t, lambda t: t, (m.tensor(x), 1)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_histogramdd(torch, dtype):
    pts, w = _RNG.standard_normal((50, 3)), _RNG.random(50)

    def t(m, a):
        return m.tensor(np.asarray(a).tolist(), dtype=getattr(m, dtype))

    def check(fn):
        g, r = fn(G), fn(torch)
        assert type(g).__name__ == type(r).__name__ == "histogramdd"
        assert_same(tuple(g), tuple(r))

    check(lambda m: m.histogramdd(t(m, pts), bins=[3, 4, 2]))
    check(lambda m: m.histogramdd(t(m, pts), bins=3, weight=t(m, w), density=True))
    check(lambda m: m.histogramdd(t(m, pts), bins=(2, 2, 2), range=[-1.0, 1.0, 0.0, 1.0, -2.0, 0.0]))
    check(lambda m: m.histogramdd(t(m, pts[:, :2]), bins=[t(m, [-1.0, 0.0, 1.0]), t(m, [-2.0, 2.0])]))
    check(lambda m: m.histogramdd(t(m, pts.reshape(5, 10, 3)), bins=2))


def test_histogramdd_errors(torch):
    x = [[0.0, 1.0], [1.0, 0.0]]
    for kw in [dict(bins=2, range=[0.0, 1.0]), dict(bins=[2, 2], range=[1.0, 0.0, 0.0, 1.0]),
               dict(bins=[2]), dict(bins=[2, 0]), dict(), dict(range=[0.0, 1.0])]:
        check_error(lambda m, kw=kw: m.histogramdd(m.tensor(x), **kw))
    check_error(lambda m: m.histogramdd(m.tensor(x), bins=[m.tensor([0.0, 1.0]),
                                                           m.tensor([[0.0, 1.0]])]))
    check_error(lambda m: m.histogramdd(m.tensor(x), bins=2, weight=m.ones(3)))


def test_lu_unpack(torch):
    for shape in [(2, 3, 3), (4, 2), (2, 4)]:
        a = _RNG.standard_normal(shape)

        def run(m, a=a):
            A = _t(m, a)
            LU, piv = m.linalg.lu_factor(A)
            LU.requires_grad_()
            P, L, U = m.lu_unpack(LU, piv)
            ((L * 2).sum() + (U ** 2).sum()).backward()
            return (tuple(m.lu_unpack(LU, piv)), LU.grad,
                    tuple(m.lu_unpack(LU, piv, False, False)))

        check(run)
        LU, piv = G.linalg.lu_factor(_t(G, a))
        LU.requires_grad_()
        assert G.autograd.gradgradcheck(lambda x, piv=piv: G.lu_unpack(x, piv)[1:], [LU])
    A = _RNG.standard_normal((3, 3))
    check_error(lambda m: m.lu_unpack(*[t.long() if t.dtype == m.int32 else t
                                        for t in m.linalg.lu_factor(_t(m, A))]))


def test_lu_solve(torch):
    A, B = _RNG.standard_normal((2, 3, 3)), _RNG.standard_normal((2, 3, 2))

    def run(m):
        a, b = _t(m, A, True), _t(m, B, True)
        LU, piv = m.linalg.lu_factor(a)
        x = m.lu_solve(b, LU, piv)
        y = b.lu_solve(LU, piv)
        (x.sum() + y.sum()).backward()
        return x, a.grad, b.grad

    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(run, rtol=1e-10)


def test_warnings(torch):
    """asarray's warning on a tensor that requires grad and lu_solve's deprecation: PyTorch's
    texts, once per process unless set_warn_always(True)."""
    from conftest import check_warning

    A, B = _RNG.standard_normal((3, 3)), _RNG.standard_normal((3, 1))
    for m in (G, torch):
        m.set_warn_always(True)
    try:
        check_warning(lambda m: m.asarray(m.ones(2, requires_grad=True)))
        check_warning(lambda m: m.lu_solve(_t(m, B), *m.linalg.lu_factor(_t(m, A))))
        check_warning(lambda m: m.frombuffer(b"abcd", dtype=m.uint8))
    finally:
        for m in (G, torch):
            m.set_warn_always(False)


def test_get_device_module(torch):
    assert G.get_device_module("cpu") is G.cpu
    assert G.get_device_module(G.device("cpu")) is G.cpu
    assert G.get_device_module("cuda") is G.gpu  # the one GPU device, as PyTorch's cuda
    check_error(lambda m: m.get_device_module(3))


@pytest.mark.parametrize("shape", [(2, 4, 3), (3, 5), (4, 4)])
def test_geqrf_orgqr_ormqr(torch, shape):
    A = _RNG.standard_normal(shape)
    C = _RNG.standard_normal(shape[:-2] + (shape[-2], 2))

    def run(m):
        x = _t(m, A, True)
        a, tau = m.geqrf(x)
        a2, t2, c = a.detach().requires_grad_(), tau.detach().requires_grad_(), _t(m, C, True)
        r = m.ormqr(a2, t2, c)
        r2 = a2.ormqr(t2, c.mT, False, True)
        (r.sum() + (r2 ** 2).sum()).backward()
        q = m.orgqr(a2, t2) if shape[-2] >= shape[-1] else None
        return (a, tau, r, r2, a2.grad, t2.grad, c.grad, q,
                type(m.geqrf(x)).__name__)

    check(run, rtol=1e-9, atol=1e-12)
    check_error(lambda m: m.geqrf(_t(m, A, True))[0].sum().backward())
    a, tau = G.geqrf(_t(G, A))
    leaves = [a.requires_grad_(), tau.requires_grad_(), _t(G, C, True)]
    assert G.autograd.gradcheck(lambda a, t, c: G.ormqr(a, t, c, True, True), leaves)


def test_ormqr_errors(torch):
    A, C = _RNG.standard_normal((2, 4, 3)), _RNG.standard_normal((2, 4, 2))

    def args(m):
        a, tau = m.geqrf(_t(m, A))
        return a, tau, _t(m, C)

    for bad in [lambda a, t, c: (a[0, 0], t, c), lambda a, t, c: (a, t, c[0, 0]),
                lambda a, t, c: (a, t, c[..., :3, :]), lambda a, t, c: (a, t[..., :2], c),
                lambda a, t, c: (a[0], t, c), lambda a, t, c: (a, t, c[0]),
                lambda a, t, c: (a, t[:1], c), lambda a, t, c: (a, t, c[:1]),
                lambda a, t, c: (a, t.float(), c), lambda a, t, c: (a, t, c.float()),
                lambda a, t, c: (a.long(), t.long(), c.long()),
                lambda a, t, c: (a, t, c, False)]:
        check_error(lambda m, bad=bad: m.ormqr(*bad(*args(m))))
    check_error(lambda m: m.geqrf(m.ones(3)))
    check_error(lambda m: m.geqrf(m.ones(3, 3, dtype=m.int64)))
    check(lambda m: tuple(m.geqrf(m.ones(0, 3))))


def test_tensor_is_set_to_const_data_ptr_module_load(torch):
    def run(m):
        x = m.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        e = m.ones(0)
        return (x.is_set_to(x), x.is_set_to(x.view(2, 3)), x.is_set_to(x.clone()),
                x[0].is_set_to(x[0]), x.t().is_set_to(x), m.ones(0).is_set_to(m.ones(0)),
                e.is_set_to(e), x.const_data_ptr() == x.data_ptr())

    check(run)

    def load(m, assign):
        p = m.zeros(2, 2, requires_grad=True)
        with m.no_grad():
            r = p.module_load(m.ones(2, 2), assign=assign)
        return r, r is p, r.requires_grad, p

    check(lambda m: load(m, False))
    check(lambda m: load(m, True))
