"""Fusion of elementwise GPU kernels (Note [Elementwise fusion]): fused chains agree with the
unfused kernels for every elementwise op of the op table, and dispatch once."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import G
from op_table import F32, OPS, T, make_args

pytestmark = pytest.mark.skipif(not G.gpu.is_available(), reason="no GPU adapter")

N = G._native

# The binary kernels of binary_kernels_decl.rs, by their op table names (the declared math ops
# come from _declared_ops).
KERNEL_OPS = {"add", "sub", "mul", "div", "true_divide", "maximum", "minimum", "fmax", "fmin",
              "fmod", "remainder", "floor_divide", "eq", "ne", "lt", "le", "gt", "ge",
              "logical_and", "logical_or", "logical_xor"}


def _elementwise_names():
    declared = {d["name"] for d in N._declared_ops() if d["kind"] in ("unary", "binary")}
    return declared | KERNEL_OPS


def _sample(op):
    """The op's first sample whose tensors are contiguous float32 of one shape, or None."""
    for s in op.samples:
        ts = [a for a in s.args if isinstance(a, T)]
        if (ts and isinstance(s.args[0], T) and all(
                t.dtype == F32 and t.layout is None and t.expand is None and t.shape == (2, 3)
                for t in ts)):
            return s
    return None


def _chain_ops():
    """(name, call, first input) for every elementwise op of the op table: ``call(x)`` applies
    the op to ``x`` with its sample's other arguments fixed (on the GPU)."""
    names = _elementwise_names()
    out = []
    for op in OPS:
        if op.name not in names:
            continue
        s = _sample(op)
        if s is None:
            continue
        _, args = make_args(G, s, device="gpu", grad=False)
        kwargs = dict(s.kwargs)

        def call(x, fn=op.fn, rest=tuple(args[1:]), kw=kwargs):
            return fn(G, x, *rest, **kw)

        out.append((op.name, call, args[0]))
    return out


OPS_CHAIN = _chain_ops()


def _bits(t):
    a = t.cpu().numpy()
    if a.dtype == np.float16:
        a = a.astype(np.float32)
    return np.ascontiguousarray(a, dtype=np.float32 if a.dtype != np.bool_ else np.bool_)


def _run(chain, x, fused, keep=False):
    """The chain's result (every op's result with ``keep``) as arrays, its dispatches, and
    whether every value but the last is float32 (so no cast runs between the ops)."""
    was = N._gpu_set_fusion(fused)
    try:
        G.gpu.synchronize()
        d0 = N._gpu_dispatch_count()
        ys, y, floats = [], x, x.dtype == G.float32
        for i, (_, call, _) in enumerate(chain):
            if i:
                floats &= y.dtype == G.float32
            y = call(y)
            if keep:
                ys.append(y)
        d = N._gpu_dispatch_count() - d0
        return [_bits(t) for t in (ys if keep else [y])], d, floats
    finally:
        N._gpu_set_fusion(was)


def _ulps(a, b):
    """The largest distance in float32 steps between a and b (NaN to NaN: 0)."""
    if a.dtype == np.bool_:
        return 0 if np.array_equal(a, b) else 1 << 30
    ia = a.view(np.int32).astype(np.int64)
    ib = b.view(np.int32).astype(np.int64)
    ia = np.where(ia < 0, -(ia & 0x7FFFFFFF), ia)
    ib = np.where(ib < 0, -(ib & 0x7FFFFFFF), ib)
    both_nan = np.isnan(a) & np.isnan(b)
    d = np.where(both_nan, 0, np.abs(ia - ib))
    return int(d.max()) if d.size else 0


@pytest.fixture(scope="module")
def one_kernel():
    """The ops whose unfused call is exactly one dispatch."""
    return {c[0] for c in OPS_CHAIN if _run([c], c[2], False)[1] == 1}


@pytest.mark.parametrize("offset, keep", [(0, True), (4, False)], ids=["prefixes", "dead"])
def test_fused_chains_agree_with_unfused(offset, keep, one_kernel):
    """Every elementwise op of the op table in fused chains of 8 (consecutive table entries,
    from ``offset`` on). With ``keep`` every op's value is held, so the one fused kernel
    writes the results of the chains of length 1-8 (its prefixes), each compared with the
    unfused op's; without, only the last value is written. Fused and unfused results are
    bit-identical (each op's value is opaque to the compiler, as it is through memory
    unfused; the issue allows an ulp per op where a multiply and an add are contracted, which
    does not happen), and a chain of one-kernel float32 ops dispatches once."""
    assert len(OPS_CHAIN) > 100
    n = len(OPS_CHAIN)
    for i in range(offset, n + offset, 8):
        chain = [OPS_CHAIN[(i + k) % n] for k in range(8)]
        x = chain[0][2]
        names = [c[0] for c in chain]
        want, d_unfused, floats = _run(chain, x, False, keep)
        got, d_fused, _ = _run(chain, x, True, keep)
        for k, (g, w) in enumerate(zip(got, want)):
            assert g.dtype == w.dtype and g.shape == w.shape, names[:k + 1]
            assert _ulps(g, w) == 0, (names[:k + 1 if keep else 8], g, w)
        assert d_fused <= d_unfused, names
        if floats and all(n in one_kernel for n in names):
            # (An op reading a comparison's bool casts it first: a copy kernel between.)
            assert d_fused == 1, (names, d_fused, d_unfused)


def _pair(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return [G.tensor(rng.standard_normal(shape).astype(np.float32), device="gpu")
            for _ in range(3)]


def test_x_times_w_plus_b_dispatches_once():
    x, w, b = _pair(64, 32)
    bias = G.randn(32).to("gpu")
    G.gpu.synchronize()
    for expr in (lambda: x * w + b, lambda: (x * w + bias).relu(),
                 lambda: 0.5 * x * (1 + G.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))):
        d0 = N._gpu_dispatch_count()
        y = expr()
        assert N._gpu_dispatch_count() - d0 == 1
        was = N._gpu_set_fusion(False)
        try:
            want = expr()
        finally:
            N._gpu_set_fusion(was)
        assert _ulps(_bits(y), _bits(want)) <= 8


def test_float16_chains_round_after_each_op():
    h = G.tensor(np.linspace(-3, 3, 101, dtype=np.float16), device="gpu")
    G.gpu.synchronize()

    def chain():
        return ((h * h - h).sigmoid() * 3 + h).exp()

    got = _run([("c", lambda x: chain(), h)], h, True)[0][0]
    want = _run([("c", lambda x: chain(), h)], h, False)[0][0]
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    assert chain().dtype == G.float16


def test_autograd_views_and_inplace_through_fused_values():
    rng = np.random.default_rng(1)
    xs, ws = rng.standard_normal((2, 16, 8)).astype(np.float32)

    def step(fused):
        was = N._gpu_set_fusion(fused)
        try:
            x = G.tensor(xs, device="gpu", requires_grad=True)
            w = G.tensor(ws, device="gpu", requires_grad=True)
            h = (x * w + 1).tanh() * 3
            row = h[3]  # a view of a fused value
            v0 = h._version
            h.mul_(2)  # in place on a fused value: the view sees it
            assert h._version == v0 + 1
            loss = (h * w).sigmoid().sum() + row.sum()
            loss.backward()
            return [t.detach().cpu().numpy() for t in (h, row, x.grad, w.grad, loss)]
        finally:
            N._gpu_set_fusion(was)

    for got, want in zip(step(True), step(False)):
        assert _ulps(np.asarray(got, np.float32), np.asarray(want, np.float32)) <= 8


def test_dead_temporaries_free_their_memory():
    x, w, b = _pair(256, 256, seed=2)
    G.gpu.synchronize()
    before = G.gpu.memory_allocated()
    for _ in range(20):
        y = ((x * w + b) * 0.5).tanh()
        del y
    G.gpu.synchronize()
    assert G.gpu.memory_allocated() == before


def test_long_chains_are_split():
    x = _pair(100)[0]
    G.gpu.synchronize()
    d0 = N._gpu_dispatch_count()
    y = x
    for _ in range(40):
        y = y * 1.0001 + 0.001
    d = N._gpu_dispatch_count() - d0
    assert 1 < d < 80
    ref = x
    was = N._gpu_set_fusion(False)
    try:
        for _ in range(40):
            ref = ref * 1.0001 + 0.001
    finally:
        N._gpu_set_fusion(was)
    assert _ulps(_bits(y), _bits(ref)) <= 80


def test_fusion_env_var_turns_it_off():
    code = ("import gradrs as G; x = G.ones(8, device='gpu'); G.gpu.synchronize(); "
            "d = G._native._gpu_dispatch_count(); y = (x * 2 + 1).exp(); "
            "print(G._native._gpu_dispatch_count() - d)")
    env = dict(os.environ, GRADRS_GPU_FUSION="0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == "3"
