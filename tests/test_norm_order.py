"""CPU vector norms (p = 1, 2) bit-equal to PyTorch's (Note [Norm order] in
src/backend/cpu/vector_norm.rs).

ATen's norm kernel adds float32 in float32: p = 2 over a contiguous last dim in 8 (float64: 4)
vector lanes and a tail of its own, everything else one element at a time in the iterator's
order (a single large output in a chunk per thread). gradrs repeats both, so norm /
linalg.vector_norm / F.normalize / clip_grad_norm_ give torch's bits. Each case runs under one
and two threads on both sides.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import G, assert_bits_equal, needs_torch

pytestmark = needs_torch


def _pair(torch, shape, dtype, seed, view=lambda x: x):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * np.exp(rng.uniform(-3, 3, shape))).astype(dtype)
    return view(G.tensor(x)), view(torch.tensor(x))


# (shape, dims, view): the fast path (contiguous last dim, every tail length), the iterator's
# order (other dims, several dims, strided and permuted views), whole-tensor norms.
CASES = [((64, n), (1,), None) for n in (1, 3, 4, 5, 7, 8, 9, 12, 15, 17, 31, 100)] + [
    ((64, 100), (0,), None),
    ((6, 50, 7), (1,), None),
    ((6, 50, 7), (0, 2), None),
    ((6, 50, 7), (1, 2), None),
    ((6, 50, 7), None, None),
    ((50, 40), (0,), "t"),
    ((50, 40), None, "t"),
    ((50, 80), (1,), "step"),
    ((4, 5, 6), (0, 1), "perm"),
    ((1, 37), (0,), None),  # every reduced dim of size 1: abs
    ((300, 400), None, "step"),  # one output of 60,000 elements: a chunk per thread
    ((70000,), None, None),
]
VIEWS = {None: lambda x: x, "t": lambda x: x.t(), "step": lambda x: x[:, ::2],
         "perm": lambda x: x.permute(2, 0, 1)}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_norm_bits_match_torch(torch, both_threads, dtype, p, case):
    shape, dims, view = CASES[case]
    g, t = _pair(torch, shape, dtype, case, VIEWS[view])
    for keepdim in (False, True):
        what = f"norm p={p} {dtype} {shape} {view} dims {dims} keepdim {keepdim}"
        assert_bits_equal(G.linalg.vector_norm(g, p, dims, keepdim),
                    torch.linalg.vector_norm(t, p, dims, keepdim), what)
        if dims is not None:
            assert_bits_equal(g.norm(p, dims, keepdim), t.norm(p, dims, keepdim), what)
    if dims is None:
        assert_bits_equal(g.norm(p), t.norm(p), f"Tensor.norm p={p} {dtype} {shape}")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("p", [1, 2])
def test_norm_grad_bits_match_torch(torch, dtype, p):
    g, t = _pair(torch, (16, 45), dtype, 7)
    g.requires_grad_()
    t.requires_grad_()
    gw, tw = _pair(torch, (16,), dtype, 8)
    g.norm(p, 1).backward(gw)
    t.norm(p, 1).backward(tw)
    assert_bits_equal(g.grad, t.grad, f"norm p={p} grad")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_normalize_and_linalg_norm(torch, dtype):
    g, t = _pair(torch, (64, 100), dtype, 3)
    assert_bits_equal(G.nn.functional.normalize(g, dim=1), torch.nn.functional.normalize(t, dim=1),
                "normalize")
    assert_bits_equal(G.linalg.norm(g, dim=1), torch.linalg.norm(t, dim=1), "linalg.norm")
    assert_bits_equal(G.norm(g, dim=1), torch.norm(t, dim=1), "gradrs.norm")


def test_gap_62_repro(torch):
    G.manual_seed(0)
    v = G.randn(64, 100)
    t = torch.tensor(v.numpy())
    assert_bits_equal(v.norm(dim=1), t.norm(dim=1), "norm")
    assert_bits_equal(G.linalg.vector_norm(v, 1, dim=1), torch.linalg.vector_norm(t, 1, dim=1), "p1")
    assert_bits_equal(v.double().norm(dim=1), t.double().norm(dim=1), "float64 norm")
    row = v.double()[0]
    assert (G.nn.functional.normalize(row, dim=0).norm().item()
            == torch.nn.functional.normalize(torch.tensor(row.numpy()), dim=0).norm().item())


# var / std (Note [Variance order] in src/backend/cpu/variance.rs): Welford in float64 per
# output, or the two-pass std_var_all_cpu for a one-element result.
VAR_CASES = [
    ((64, 100), (1,), None),
    ((64, 100), (0,), None),
    ((6, 50, 7), (0, 2), None),
    ((50, 40), (1,), "t"),
    ((64, 100), None, None),
    ((50, 40), None, "t"),
    ((50, 80), None, "step"),
    ((300, 400), None, "step"),  # 60,000 elements: a chunk per thread
    ((100000,), (0,), None),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", range(len(VAR_CASES)))
def test_var_std_bits_match_torch(torch, both_threads, dtype, case):
    shape, dims, view = VAR_CASES[case]
    g, t = _pair(torch, shape, dtype, 50 + case, VIEWS[view])
    for correction in (0, 1, 2):
        for op in ("var", "std"):
            what = f"{op} {dtype} {shape} {view} dims {dims} correction {correction}"
            assert_bits_equal(getattr(g, op)(dims, correction=correction),
                        getattr(t, op)(dims, correction=correction), what)
    if dims is not None:
        assert_bits_equal(g.var(dims, keepdim=True), t.var(dims, keepdim=True), "keepdim")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_var_std_grad_bits_match_torch(torch, dtype):
    for op in ("var", "std"):
        g, t = _pair(torch, (16, 45), dtype, 9)
        g.requires_grad_()
        t.requires_grad_()
        gw, tw = _pair(torch, (16,), dtype, 10)
        getattr(g, op)(1).backward(gw)
        getattr(t, op)(1).backward(tw)
        assert_bits_equal(g.grad, t.grad, f"{op} grad")
