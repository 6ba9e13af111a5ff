"""Native normalization ops (`ops::norm`) against PyTorch: `native_batch_norm`'s values bit for
bit (ATen's CPU kernels), running statistics, its one NativeBatchNormBackward0 node, gradients,
higher derivatives, errors, and the GPU's composition against the host kernel."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import G

F32, F64 = "float32", "float64"


def _pair(torch, shape, dtype, seed, scale=3.0, shift=1.0):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(shape) * scale + shift).astype(dtype)
    return G.tensor(a), torch.tensor(a)


def _same_bits(g, t, ulp=False):
    """Bit equality; ``ulp``: within a few units in the last place (float64 statistics of
    planes: ATen's build sums the squared deviations in an order not reproduced here)."""
    a, b = g.detach().numpy(), t.detach().numpy()
    assert a.dtype == b.dtype and a.shape == b.shape
    if ulp:
        np.testing.assert_allclose(a, b, rtol=4 * np.finfo(a.dtype).eps, atol=1e-15)
        return
    assert np.array_equal(a, b, equal_nan=True), np.abs(a - b).max()


def _params(torch, c, dtype, seed, affine=True):
    if not affine:
        return (None, None), (None, None)
    rng = np.random.default_rng(seed + 100)
    w, b = rng.standard_normal(c).astype(dtype), rng.standard_normal(c).astype(dtype)
    return (G.tensor(w), G.tensor(b)), (torch.tensor(w), torch.tensor(b))


SHAPES = [(32, 3), (5, 4), (2, 3), (100, 7), (7, 3, 5), (4, 6, 3, 3), (3, 2, 1, 1), (16, 8, 7, 9),
          (2, 5, 3, 2, 4)]


@pytest.mark.parametrize("dtype", [F32, F64])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("affine", [True, False])
def test_training_forward_bits(torch, shape, dtype, affine):
    for seed in range(3):
        gx, tx = _pair(torch, shape, dtype, seed)
        c = shape[1]
        (gw, gb), (tw, tb) = _params(torch, c, dtype, seed, affine)
        rng = np.random.default_rng(seed + 7)
        rm0, rv0 = rng.standard_normal(c).astype(dtype), (rng.random(c) + 0.5).astype(dtype)
        grm, grv = G.tensor(rm0), G.tensor(rv0)
        trm, trv = torch.tensor(rm0), torch.tensor(rv0)
        g = G._native.native_batch_norm(gx, gw, gb, grm, grv, True, 0.1, 1e-5)
        t = torch.native_batch_norm(tx, tw, tb, trm, trv, True, 0.1, 1e-5)
        planes64 = dtype == F64 and int(np.prod(shape[2:])) > 1
        for a, b in zip(g, t):
            _same_bits(a, b, ulp=planes64)
        _same_bits(grm, trm)
        _same_bits(grv, trv, ulp=planes64)


@pytest.mark.parametrize("dtype", [F32, F64])
@pytest.mark.parametrize("shape", [(32, 3), (4, 6, 3, 3), (7, 3, 5)])
def test_eval_forward_bits(torch, shape, dtype):
    gx, tx = _pair(torch, shape, dtype, 1)
    c = shape[1]
    (gw, gb), (tw, tb) = _params(torch, c, dtype, 1)
    rng = np.random.default_rng(3)
    rm, rv = rng.standard_normal(c).astype(dtype), (rng.random(c) + 0.5).astype(dtype)
    g = G._native.native_batch_norm(gx, gw, gb, G.tensor(rm), G.tensor(rv), False, 0.1, 1e-5)
    t = torch.native_batch_norm(tx, tw, tb, torch.tensor(rm), torch.tensor(rv), False, 0.1, 1e-5)
    _same_bits(g[0], t[0])
    assert tuple(g[1].shape) == tuple(t[1].shape) == (0,)


@pytest.mark.parametrize("dtype", [F32, F64])
@pytest.mark.parametrize("shape", [(4, 6, 3, 3), (2, 3, 2, 2, 3), (8, 5, 1, 7)])
def test_channels_last_bits(torch, shape, dtype):
    """A channels-last input runs ATen's channels-last kernels: same bits and strides."""
    perm = (0, 2, 3, 1) if len(shape) == 4 else (0, 2, 3, 4, 1)
    inv = tuple(int(i) for i in np.argsort(perm))
    nhwc = tuple(shape[p] for p in perm)
    gx, tx = _pair(torch, nhwc, dtype, 2)
    gx, tx = gx.permute(*inv), tx.permute(*inv)
    c = shape[1]
    (gw, gb), (tw, tb) = _params(torch, c, dtype, 2)
    g = G._native.native_batch_norm(gx, gw, gb, None, None, True, 0.1, 1e-5)
    t = torch.native_batch_norm(tx, tw, tb, None, None, True, 0.1, 1e-5)
    for a, b in zip(g, t):
        _same_bits(a, b)
    assert tuple(g[0].stride()) == tuple(t[0].stride())


def test_strided_input_close(torch):
    """Neither contiguous nor channels last: a contiguous copy's values (ATen's strided loop
    orders its sums differently), equal to rounding."""
    gx, tx = _pair(torch, (6, 5, 4), F32, 4)
    gx, tx = gx.transpose(0, 2), tx.transpose(0, 2)
    g = G._native.native_batch_norm(gx, None, None, None, None, True, 0.1, 1e-5)
    t = torch.native_batch_norm(tx, None, None, None, None, True, 0.1, 1e-5)
    for a, b in zip(g, t):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-5)


def test_gap14_repro(torch):
    """programs gap 14: BatchNorm1d's training output, bit for bit (the input taken from torch:
    float32 randn of 16 or more values is gap 28; the repro's `.sum(0)` still differs: gradrs
    sums float32 columns in float64, ATen in float32 row by row)."""
    torch.manual_seed(0)
    tx = torch.randn(32, 3) * 3 + 1
    gx = G.tensor(tx.numpy())
    t = torch.nn.functional.batch_norm(tx, None, None, training=True)
    g = G._native.native_batch_norm(gx, None, None, None, None, True, 0.1, 1e-5)[0]
    _same_bits(g, t)


def test_running_stats_several_steps(torch):
    c = 4
    grm, grv = G.zeros(c), G.ones(c)
    trm, trv = torch.zeros(c), torch.ones(c)
    for step in range(5):
        gx, tx = _pair(torch, (9, c, 3), F32, 10 + step)
        mom = [0.1, 0.3, 1.0 / (step + 1), 0.0, 0.5][step]
        G._native.native_batch_norm(gx, None, None, grm, grv, True, mom, 1e-5)
        torch.native_batch_norm(tx, None, None, trm, trv, True, mom, 1e-5)
        _same_bits(grm, trm)
        _same_bits(grv, trv)
    assert (grm._version, grv._version) == (trm._version, trv._version)


def _grad_case(torch, shape, dtype, training, affine, seed=0):
    gx, tx = _pair(torch, shape, dtype, seed)
    gx.requires_grad_(), tx.requires_grad_()
    c = shape[1]
    (gw, gb), (tw, tb) = _params(torch, c, dtype, seed, affine)
    if affine:
        for p in (gw, gb, tw, tb):
            p.requires_grad_()
    rng = np.random.default_rng(seed + 5)
    rm, rv = rng.standard_normal(c).astype(dtype), (rng.random(c) + 0.5).astype(dtype)
    g = G._native.native_batch_norm(gx, gw, gb, G.tensor(rm), G.tensor(rv), training, 0.1, 1e-5)[0]
    t = torch.native_batch_norm(tx, tw, tb, torch.tensor(rm), torch.tensor(rv), training, 0.1,
                                1e-5)[0]
    return (g, [gx, gw, gb]), (t, [tx, tw, tb])


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("shape", [(32, 3), (4, 6, 3, 3)])
@pytest.mark.parametrize("affine", [True, False])
def test_grads(torch, shape, training, affine):
    (g, gi), (t, ti) = _grad_case(torch, shape, F64, training, affine)
    assert type(g.grad_fn).__name__ == type(t.grad_fn).__name__ == "NativeBatchNormBackward0"
    assert len(g.grad_fn.next_functions) == 3
    rng = np.random.default_rng(9)
    go = rng.standard_normal(shape)
    g.backward(G.tensor(go))
    t.backward(torch.tensor(go))
    for a, b in zip(gi, ti):
        if b is None:
            assert a is None
            continue
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-9, atol=1e-10)


def test_float32_grads_close(torch):
    (g, gi), (t, ti) = _grad_case(torch, (8, 4, 5, 5), F32, True, True)
    g.square().sum().backward()
    t.square().sum().backward()
    for a, b in zip(gi, ti):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("training", [True, False])
def test_gradcheck_gradgradcheck(training):
    rng = np.random.default_rng(0)
    x = G.tensor(rng.standard_normal((4, 3, 2))).requires_grad_()
    w = G.tensor(rng.standard_normal(3)).requires_grad_()
    b = G.tensor(rng.standard_normal(3)).requires_grad_()
    rm, rv = G.tensor(rng.standard_normal(3)), G.tensor(rng.random(3) + 0.5)

    def fn(x, w, b):
        return G._native.native_batch_norm(x, w, b, rm.clone(), rv.clone(), training, 0.1,
                                           1e-5)[0]

    assert G.autograd.gradcheck(fn, (x, w, b))
    assert G.autograd.gradgradcheck(fn, (x, w, b))


def test_double_backward_matches_torch(torch):
    (g, gi), (t, ti) = _grad_case(torch, (6, 3, 4), F64, True, True)
    ga = G.autograd.grad(g.pow(3).sum(), gi, create_graph=True)
    ta = torch.autograd.grad(t.pow(3).sum(), ti, create_graph=True)
    gs = sum((a * a).sum() for a in ga)
    ts = sum((a * a).sum() for a in ta)
    gg = G.autograd.grad(gs, gi)
    tg = torch.autograd.grad(ts, ti)
    for a, b in zip(gg, tg):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-8, atol=1e-9)


def test_saved_attributes(torch):
    for training in (True, False):
        for rs in (True, False):
            if not training and not rs:
                continue
            x = G.randn(4, 3, requires_grad=True)
            tx = torch.randn(4, 3, requires_grad=True)
            stats = (G.zeros(3), G.ones(3)) if rs else (None, None)
            tstats = (torch.zeros(3), torch.ones(3)) if rs else (None, None)
            g = G._native.native_batch_norm(x, None, None, *stats, training, 0.1, 1e-5)[0].grad_fn
            t = torch.native_batch_norm(tx, None, None, *tstats, training, 0.1, 1e-5)[0].grad_fn
            names = sorted(a for a in dir(t) if a.startswith("_saved_"))
            assert sorted(a for a in dir(g) if a.startswith("_saved_")) == names
            for n in names:
                a, b = getattr(g, n), getattr(t, n)
                if b is None or isinstance(b, (bool, float)):
                    assert a == b, n
                else:
                    assert tuple(a.shape) == tuple(b.shape), n
            assert [f is None for f, _ in g.next_functions] == \
                [f is None for f, _ in t.next_functions]


def test_errors(torch):
    from conftest import assert_same_error

    def both(fn):
        assert_same_error(lambda: fn(G), lambda: fn(torch))

    both(lambda m: m.native_batch_norm(m.ones(4, 3).long(), None, None, None, None, True, 0.1,
                                       1e-5) if m is torch else
         m._native.native_batch_norm(m.ones(4, 3).long(), None, None, None, None, True, 0.1,
                                     1e-5))
    for kw in ("weight", "bias", "running_mean", "running_var"):
        def fn(m, kw=kw):
            args = dict(weight=None, bias=None, running_mean=None, running_var=None)
            args[kw] = m.ones(4)
            return m.nn.functional.batch_norm(m.ones(4, 3), training=True, **args)
        if kw.startswith("running"):
            # torch checks the pair at once: give both, one of the wrong size
            pass
        both(fn)
    both(lambda m: m.nn.functional.batch_norm(m.ones(4, 3), None, None, training=False))


def test_half_close(torch):
    gx, tx = _pair(torch, (16, 4, 3), F32, 6)
    g = G._native.native_batch_norm(gx.half(), None, None, None, None, True, 0.1, 1e-5)
    t = torch.native_batch_norm(tx.half(), None, None, None, None, True, 0.1, 1e-5)
    for a, b in zip(g, t):
        assert str(a.dtype).split(".")[1] == str(b.dtype).split(".")[1]
        np.testing.assert_allclose(a.float().numpy(), b.float().numpy(), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("training", [True, False])
def test_gpu_matches_cpu(training):
    """On the GPU the op composes the same arithmetic from GPU kernels: no host copy in the
    forward or the backward, values and running statistics equal the host kernel's to
    rounding."""
    if not G.gpu.is_available():
        pytest.skip("no GPU adapter")
    rng = np.random.default_rng(0)
    a = rng.standard_normal((6, 4, 3, 3)).astype(np.float32) * 2 + 1
    w, b = rng.standard_normal(4).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    rm, rv = rng.standard_normal(4).astype(np.float32), (rng.random(4) + 0.5).astype(np.float32)
    outs = []
    for dev in ("cpu", "gpu"):
        x = G.tensor(a, device=dev).requires_grad_()
        pw, pb = G.tensor(w, device=dev).requires_grad_(), G.tensor(b, device=dev).requires_grad_()
        srm, srv = G.tensor(rm, device=dev), G.tensor(rv, device=dev)
        before = G.gpu.transfer_counts()
        y = G.nn.functional.batch_norm(x, srm, srv, pw, pb, training, 0.1, 1e-5)
        (y * y).sum().backward()
        if dev == "gpu":
            assert G.gpu.transfer_counts() == before
            assert y.device.type == "gpu" and x.grad.device.type == "gpu"
            assert type(y.grad_fn).__name__ == "NativeBatchNormBackward0"
        outs.append([t.detach().cpu().numpy() for t in (y, srm, srv, x.grad, pw.grad, pb.grad)])
    for c, g in zip(*outs):
        np.testing.assert_allclose(g, c, rtol=1e-4, atol=1e-4)


def test_empty_input(torch):
    for training in (True, False):
        res = []
        for m in (G, torch):
            rm, rv = m.zeros(3), m.ones(3)
            w = m.full((3,), 2.0, requires_grad=True)
            out = m.nn.functional.batch_norm(m.ones(0, 3), rm, rv, w, None, training)
            res.append((tuple(out.shape), rm.tolist(), rv.tolist(), out.requires_grad))
        assert res[0] == res[1]


# ---- layer norm ----------------------------------------------------------------------------

LN_CASES = [((4, 7), (7,)), ((3, 33), (33,)), ((2, 1000), (1000,)), ((5, 3, 17), (3, 17)),
            ((2, 2, 3, 5), (2, 3, 5)), ((6, 256), (256,)), ((3, 255), (255,)), ((2, 4, 129), (129,)),
            ((1, 5000), (5000,))]


@pytest.mark.parametrize("dtype", [F32, F64])
@pytest.mark.parametrize("shape,ns", LN_CASES)
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm_forward_close(torch, shape, ns, dtype, affine):
    for seed in range(2):
        gx, tx = _pair(torch, shape, dtype, seed, scale=2.0, shift=0.5)
        if affine:
            rng = np.random.default_rng(seed + 50)
            w, b = rng.standard_normal(ns).astype(dtype), rng.standard_normal(ns).astype(dtype)
            gw, gb, tw, tb = G.tensor(w), G.tensor(b), torch.tensor(w), torch.tensor(b)
        else:
            gw = gb = tw = tb = None
        g = G._native.native_layer_norm(gx, ns, gw, gb, 1e-5)
        t = torch.native_layer_norm(tx, ns, tw, tb, 1e-5)
        # Bit-equal for most rows; some long rows (256, 5000) and float64 ones differ in the
        # last bits: ATen's fused multiply-adds in its Welford merge are not all reproduced yet.
        for a, b in zip(g, t):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=2e-6 if dtype == F32 else 1e-14,
                                       atol=1e-6 if dtype == F32 else 1e-14)


def _ln_case(torch, shape, ns, dtype, seed=0):
    gx, tx = _pair(torch, shape, dtype, seed)
    rng = np.random.default_rng(seed + 3)
    w, b = rng.standard_normal(ns).astype(dtype), rng.standard_normal(ns).astype(dtype)
    gi = [gx.requires_grad_(), G.tensor(w).requires_grad_(), G.tensor(b).requires_grad_()]
    ti = [tx.requires_grad_(), torch.tensor(w).requires_grad_(), torch.tensor(b).requires_grad_()]
    g = G.nn.functional.layer_norm(gi[0], ns, gi[1], gi[2], 1e-5)
    t = torch.nn.functional.layer_norm(ti[0], ns, ti[1], ti[2], 1e-5)
    return (g, gi), (t, ti)


@pytest.mark.parametrize("shape,ns", [((4, 7), (7,)), ((3, 5, 6), (5, 6)), ((6,), (6,))])
def test_layer_norm_grads(torch, shape, ns):
    (g, gi), (t, ti) = _ln_case(torch, shape, ns, F64)
    assert type(g.grad_fn).__name__ == type(t.grad_fn).__name__ == "NativeLayerNormBackward0"
    names = sorted(a for a in dir(t.grad_fn) if a.startswith("_saved_"))
    assert sorted(a for a in dir(g.grad_fn) if a.startswith("_saved_")) == names
    assert list(g.grad_fn._saved_normalized_shape) == list(t.grad_fn._saved_normalized_shape)
    assert tuple(g.grad_fn._saved_result1.shape) == tuple(t.grad_fn._saved_result1.shape)
    go = np.random.default_rng(1).standard_normal(shape)
    g.backward(G.tensor(go))
    t.backward(torch.tensor(go))
    for a, b in zip(gi, ti):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-9, atol=1e-10)


def test_layer_norm_gradcheck():
    rng = np.random.default_rng(0)
    x = G.tensor(rng.standard_normal((3, 2, 4))).requires_grad_()
    w = G.tensor(rng.standard_normal((2, 4))).requires_grad_()
    b = G.tensor(rng.standard_normal((2, 4))).requires_grad_()

    def fn(x, w, b):
        return G.nn.functional.layer_norm(x, (2, 4), w, b, 1e-5)

    assert G.autograd.gradcheck(fn, (x, w, b))
    assert G.autograd.gradgradcheck(fn, (x, w, b))


def test_layer_norm_double_backward_matches_torch(torch):
    (g, gi), (t, ti) = _ln_case(torch, (3, 8), (8,), F64)
    ga = G.autograd.grad(g.pow(3).sum(), gi, create_graph=True)
    ta = torch.autograd.grad(t.pow(3).sum(), ti, create_graph=True)
    gg = G.autograd.grad(sum((a * a).sum() for a in ga), gi)
    tg = torch.autograd.grad(sum((a * a).sum() for a in ta), ti)
    for a, b in zip(gg, tg):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-8, atol=1e-9)


def test_layer_norm_errors(torch):
    from conftest import assert_same_error

    def both(fn):
        assert_same_error(lambda: fn(G), lambda: fn(torch))

    both(lambda m: m.nn.functional.layer_norm(m.ones(2, 4), (3,)))
    both(lambda m: m.nn.functional.layer_norm(m.ones(2, 3), (3,), m.ones(4)))
    both(lambda m: m.nn.functional.layer_norm(m.ones(2, 3), (3,), None, m.ones(2)))
    both(lambda m: m.nn.functional.layer_norm(m.ones(2, 3).long(), (3,)))


def test_layer_norm_gpu_matches_cpu():
    if not G.gpu.is_available():
        pytest.skip("no GPU adapter")
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 5, 33)).astype(np.float32)
    w, b = rng.standard_normal(33).astype(np.float32), rng.standard_normal(33).astype(np.float32)
    outs = []
    for dev in ("cpu", "gpu"):
        x = G.tensor(a, device=dev).requires_grad_()
        pw, pb = G.tensor(w, device=dev).requires_grad_(), G.tensor(b, device=dev).requires_grad_()
        before = G.gpu.transfer_counts()
        y = G.nn.functional.layer_norm(x, (33,), pw, pb)
        (y * y).sum().backward()
        if dev == "gpu":
            assert G.gpu.transfer_counts() == before
            assert type(y.grad_fn).__name__ == "NativeLayerNormBackward0"
        outs.append([t.detach().cpu().numpy() for t in (y, x.grad, pw.grad, pb.grad)])
    for c, g in zip(*outs):
        np.testing.assert_allclose(g, c, rtol=1e-4, atol=1e-4)
