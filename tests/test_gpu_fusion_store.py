"""Fusion step 2 (Note [Elementwise fusion]): where / lerp inside fused kernels, and an in-place
op's result written into its tensor by the fused kernel itself. Every case runs with fusion on
and off on fresh, equal inputs and must agree bit for bit, aliasing cases included (in-place on
views, a stored tensor read again, stored twice, read at another offset); optimizer steps on
the GPU also agree with the CPU's."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import G

pytestmark = pytest.mark.skipif(not G.gpu.is_available(), reason="no GPU adapter")

N = G._native
RNG = np.random.default_rng(26)
A = RNG.standard_normal((6, 5)).astype(np.float32)
B = RNG.standard_normal((6, 5)).astype(np.float32)
C = RNG.standard_normal((6, 5)).astype(np.float32)


def _gpu(a):
    return G.tensor(a, device="gpu")


def _arrays(out):
    out = out if isinstance(out, (tuple, list)) else (out,)
    res = []
    for t in out:
        a = np.array(t.detach().cpu().numpy(), copy=True)
        res.append(a.astype(np.float32) if a.dtype == np.float16 else a)
    return res


def _run(fn, fused):
    """fn's results (arrays) and its dispatch count with fusion on or off."""
    was = N._gpu_set_fusion(fused)
    try:
        G.gpu.synchronize()
        d0 = N._gpu_dispatch_count()
        out = fn()
        d = N._gpu_dispatch_count() - d0
        return _arrays(out), d
    finally:
        N._gpu_set_fusion(was)


def _same(fn):
    """Runs fn fused and unfused; the results must be equal bit for bit. Returns the two
    dispatch counts."""
    got, d_fused = _run(fn, True)
    want, d_unfused = _run(fn, False)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g.reshape(-1).view(np.uint8), w.reshape(-1).view(np.uint8))
    assert d_fused <= d_unfused
    return d_fused, d_unfused


def test_sub_of_a_product_in_place_is_one_kernel():
    def fn():
        p, g = _gpu(A), _gpu(B)
        G.gpu.synchronize()
        with G.no_grad():
            p.sub_(0.01 * g)
        return p

    assert _same(fn) == (1, 3)


def test_augmented_assignment_and_chains_into_one_tensor():
    def fn():
        p, g, m = _gpu(A), _gpu(B), _gpu(C)
        with G.no_grad():
            m.mul_(0.9).add_(g, alpha=0.1)  # the second reads the first's target: new kernel
            p -= 0.01 * m
            p.addcmul_(g, m, value=-0.5)
        return p, m

    _same(fn)


@pytest.mark.parametrize("index", [np.s_[2:5], np.s_[1], np.s_[:, 1], np.s_[::2], np.s_[1:4, 1:3]])
def test_in_place_on_a_view(index):
    def fn():
        p, g = _gpu(A), _gpu(B)
        v = p[index]
        with G.no_grad():
            v.sub_(g[index] * 2.0)
            v.mul_(v.sigmoid())
        return p, v

    _same(fn)


def test_stored_tensor_read_by_a_later_op():
    def fn():
        p, g = _gpu(A), _gpu(B)
        with G.no_grad():
            p.add_(g * 3.0)
            q = p * 2.0 + g  # reads p after the store: the new values
            p.exp_()
            r = (p + q).tanh()
        return p, q, r

    _same(fn)


def test_same_tensor_stored_twice():
    def fn():
        p, a, b = _gpu(A), _gpu(B), _gpu(C)
        with G.no_grad():
            p.copy_(a * 2.0)
            p.copy_(b * 3.0)  # the last write wins
            h = _gpu(np.zeros((12, 5), np.float32))
            h[:6].copy_(a.exp())
            h[6:].copy_(b.exp())  # two stores into one buffer, other offsets
            s = a + 1.0
            s2 = s * 2.0
            s.copy_(s2 - 1.0)  # into an op's own output buffer
        return p, h, s, s2

    _same(fn)


def test_op_reading_its_own_target_at_another_offset():
    def fn():
        p = _gpu(np.arange(20, dtype=np.float32))
        q = _gpu(np.arange(20, dtype=np.float32))
        r = _gpu(np.arange(20, dtype=np.float32))
        with G.no_grad():
            p[1:11].add_(p[0:10] * 2.0)  # reads elements the store has overwritten unfused
            q[0:10].add_(q[1:11] * 2.0)
            r.mul_(r[3] + 1.0)  # every element reads one element of the target
            s = _gpu(A)
            s.add_(s.t().contiguous().t() * 0.5)  # a copy in between: same offsets, new buffer
            t = _gpu(A)
            t.add_(t.flip(0) * 0.5)
        return p, q, r, s, t

    _same(fn)


def test_stored_tensor_freed_before_the_flush():
    def fn():
        a, b = _gpu(A), _gpu(B)
        with G.no_grad():
            t = _gpu(np.zeros((6, 5), np.float32))
            t.copy_(a * b)
            keep = t[2]
            del t
            u = (a + b).exp()  # allocates while the store is pending
        return keep, u

    _same(fn)
    before = G.gpu.memory_allocated()
    _run(fn, True)
    G.gpu.synchronize()
    assert G.gpu.memory_allocated() == before


def test_in_place_keeps_autograd_and_versions():
    def fn():
        x = G.tensor(A, device="gpu", requires_grad=True)
        w = G.tensor(B, device="gpu", requires_grad=True)
        h = x * w
        v0 = h._version
        h.add_(w.exp())
        assert h._version == v0 + 1
        y = (h * 0.5).tanh()
        y.sum().backward()
        return y, x.grad, w.grad

    _same(fn)


def test_float16_in_place():
    def fn():
        p = G.tensor(A.astype(np.float16), device="gpu")
        g = G.tensor(B.astype(np.float16), device="gpu")
        with G.no_grad():
            p.sub_(g * 0.3)
            p.mul_(1.5)
        return p

    _same(fn)


def test_where_and_lerp_fused():
    def fn():
        a, b, c = _gpu(A), _gpu(B), _gpu(C)
        w = G.where(a > b, a * 2.0, b.exp())
        w2 = G.where(c > 0, (a + b).sigmoid(), 0.0)
        l1 = G.lerp(a, b * 2.0, c.sigmoid())
        l2 = G.lerp(a + 1.0, b, 0.7)
        bias = G.tensor(C[0], device="gpu")
        l3 = G.lerp(a * b, bias, c)  # the end broadcast as a row
        return w, w2, l1, l2, l3

    d_fused, d_unfused = _same(fn)
    assert d_fused < d_unfused


def test_where_moves_the_words_of_every_dtype():
    bits = np.array([1, -1, 0x7FC00001, -0x3FFFFF, 0x00000003, 2**31 - 1, -(2**31), 0, 7, 9],
                    np.int32)

    def fn():
        ints = G.tensor(bits, device="gpu")
        longs = G.tensor(bits.astype(np.int64), device="gpu")
        half = G.tensor(np.linspace(-2, 2, 10, dtype=np.float16), device="gpu")
        mask = G.tensor(np.arange(10) % 3 == 0, device="gpu")
        sub = G.tensor(np.array([0, 0x80000000, 1, 0x7F800001] * 2 + [5, 6], np.uint32)
                       .view(np.float32), device="gpu")
        return (G.where(mask, ints, ints.flip(0)), G.where(mask, longs, 0),
                G.where(mask, half, half * 2), G.where(mask, sub, sub.flip(0)),
                G.where(mask, mask, ~mask))

    _same(fn)


def test_in_place_where_and_masked_fill():
    def fn():
        a, b = _gpu(A), _gpu(B)
        with G.no_grad():
            a.masked_fill_(b > 0.5, 0.0)
            b.copy_(G.where(a > 0, a, b * 0.5))
            a.lerp_(b, 0.25)
        return a, b

    _same(fn)


@pytest.mark.parametrize("name, kw", [
    ("SGD", {}),
    ("SGD", {"momentum": 0.9}),
    ("SGD", {"momentum": 0.9, "nesterov": True, "weight_decay": 0.1}),
    ("Adam", {}),
    ("Adam", {"amsgrad": True, "weight_decay": 0.1}),
    ("AdamW", {}),
    ("AdamW", {"maximize": True, "betas": (0.3, 0.9)}),
])
@pytest.mark.parametrize("foreach", [None, False])
def test_optimizer_steps_fused_unfused_and_cpu(name, kw, foreach):
    ws = [RNG.standard_normal(s).astype(np.float32) for s in ((7, 5), (5,), ())]
    grads = [[RNG.standard_normal(w.shape).astype(np.float32) for w in ws] for _ in range(3)]

    def steps(device):
        ps = [G.tensor(w, device=device, requires_grad=True) for w in ws]
        opt = getattr(G.optim, name)(ps, lr=0.01, foreach=foreach, **kw)
        for gs in grads:
            for p, g in zip(ps, gs):
                p.grad = G.tensor(g, device=device)
            opt.step()
        state = [t for p in ps for t in opt.state[p].values() if isinstance(t, G.Tensor)
                 and t.dim() > 0]
        return [p.detach() for p in ps] + state

    got = _same(lambda: steps("gpu"))
    assert got[0] < got[1]
    gpu = _run(lambda: steps("gpu"), True)[0]
    cpu = _arrays(steps("cpu"))
    for g, c in zip(gpu, cpu):
        np.testing.assert_allclose(g, c, rtol=2e-6, atol=2e-7)


def test_mlp_training_steps_agree():
    def train():
        G.manual_seed(0)
        ws = [(G.randn(16, 12) * 0.2).to("gpu").requires_grad_(),
              G.zeros(16, device="gpu", requires_grad=True),
              (G.randn(3, 16) * 0.2).to("gpu").requires_grad_()]
        opt = G.optim.Adam(ws, lr=1e-2)
        x = G.randn(8, 12).to("gpu")
        y = G.tensor([0, 1, 2, 1, 0, 2, 1, 0], device="gpu")
        for _ in range(3):
            h = G.nn.functional.relu(G.nn.functional.linear(x, ws[0], ws[1]))
            loss = G.nn.functional.cross_entropy(h @ ws[2].t(), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            with G.no_grad():
                for w in ws:
                    w -= 0.001 * w.sign()
        return ws + [loss]

    _same(train)


def test_many_stores_split_the_group():
    """Ten in-place updates of ten tensors: leaves, stores and the parameter block run out,
    and the group is split where they do."""
    xs = [RNG.standard_normal(40).astype(np.float32) for _ in range(10)]

    def fn():
        ts = [_gpu(x) for x in xs]
        gs = [_gpu(x[::-1].copy()) for x in xs]
        G.gpu.synchronize()
        with G.no_grad():
            for t, g in zip(ts, gs):
                t.add_(g * 2.0)
            for t, g in zip(ts, reversed(ts)):
                t.mul_(g.sigmoid())
        return ts

    d_fused, d_unfused = _same(fn)
    assert 1 < d_fused < d_unfused
