"""Memory formats (Note [Memory formats]): `*_like` factories, `clone` and `contiguous` lay
their results out as PyTorch 2.13's do, vs torch: strides, values, errors."""

from __future__ import annotations

import pickle

import pytest
from conftest import G, check, check_error, need_torch

INPUTS = {
    "transposed": lambda m: m.ones(2, 3).t(),
    "permuted 3-D": lambda m: m.arange(24.).view(2, 3, 4).permute(2, 0, 1),
    "step slice": lambda m: m.arange(24.).view(4, 6)[:, ::2],
    "transposed step slice": lambda m: m.arange(24.).view(6, 4).t()[:, ::2],
    "permuted slice": lambda m: m.ones(2, 3, 4)[:, :, ::2].permute(2, 0, 1),
    "expanded": lambda m: m.ones(1, 3).expand(2, 3),
    "expanded transposed": lambda m: m.ones(3, 1).expand(3, 2).t(),
    "size-1 dim": lambda m: m.ones(3, 4)[:, :1],
    "row slice": lambda m: m.ones(4, 6)[1:3],
    "empty transposed": lambda m: m.ones(0, 3).t(),
    "contiguous": lambda m: m.ones(2, 3),
}

FACTORIES = {
    "empty_like": lambda m, x, **k: m.empty_like(x, **k),
    "zeros_like": lambda m, x, **k: m.zeros_like(x, **k),
    "ones_like": lambda m, x, **k: m.ones_like(x, **k),
    "full_like": lambda m, x, **k: m.full_like(x, 2.5, **k),
    "rand_like": lambda m, x, **k: m.rand_like(x, **k),
    "randn_like": lambda m, x, **k: m.randn_like(x, **k),
    "clone": lambda m, x, **k: x.clone(**k),
}


def _layout(t):
    return t.shape, t.stride(), t.is_contiguous()


@pytest.mark.parametrize("inp", sorted(INPUTS))
@pytest.mark.parametrize("fn", sorted(FACTORIES))
def test_preserve_format_strides(fn, inp):
    check(lambda m: _layout(FACTORIES[fn](m, INPUTS[inp](m))))
    check(lambda m: _layout(FACTORIES[fn](m, INPUTS[inp](m),
                                          memory_format=m.preserve_format)))
    check(lambda m: _layout(FACTORIES[fn](m, INPUTS[inp](m),
                                          memory_format=m.contiguous_format)))


@pytest.mark.parametrize("inp", sorted(INPUTS))
def test_clone_values_and_grad(inp):
    def run(m):
        x = INPUTS[inp](m).detach().requires_grad_()
        y = x.clone()
        (y * m.arange(float(y.numel())).view(y.shape)).sum().backward()
        return y, y.stride(), y.grad_fn.name(), x.grad
    check(run)


def test_random_like_draws_in_memory_order():
    # rand_like / randn_like of a transposed tensor: PyTorch's uniform_ / normal_ on the
    # strided result, drawn in memory order (normal_'s non-contiguous path past 16 elements).
    for fn in ("rand_like", "randn_like"):
        def run(m, fn=fn):
            m.manual_seed(3)
            return FACTORIES[fn](m, m.ones(5, 7).t())
        check(run)


def test_channels_last():
    check(lambda m: _layout(m.zeros_like(m.ones(2, 3, 4, 5), memory_format=m.channels_last)))
    check(lambda m: _layout(m.ones(2, 3, 4, 5).clone(memory_format=m.channels_last)))
    check(lambda m: _layout(m.ones(2, 3, 2, 4, 5).contiguous(memory_format=m.channels_last_3d)))
    check(lambda m: m.arange(120.).view(2, 3, 4, 5).contiguous(memory_format=m.channels_last))
    check_error(lambda m: m.zeros_like(m.ones(2, 3), memory_format=m.channels_last))
    check_error(lambda m: m.ones(2, 3).t().contiguous(memory_format=m.preserve_format))
    check(lambda m: _layout(m.ones(2, 3).contiguous(memory_format=m.preserve_format)))


def test_bad_memory_format_arguments():
    check_error(lambda m: m.ones(2).clone(memory_format=1))
    check_error(lambda m: m.zeros_like(m.ones(2), memory_format="a"))
    check(lambda m: _layout(m.ones(2, 3).t().clone(memory_format=None)))


def test_memory_format_objects():
    torch = need_torch()
    for name in ("preserve_format", "contiguous_format", "channels_last", "channels_last_3d"):
        g, t = getattr(G, name), getattr(torch, name)
        assert repr(g) == repr(t).replace("torch", "gradrs")
        assert isinstance(g, G.memory_format) and g == g
        assert pickle.loads(pickle.dumps(g)) is g


@pytest.mark.parametrize("fn", ["zeros_like", "empty_like", "full_like", "clone"])
def test_gpu_keeps_strides(fn):
    if not G.gpu.is_available():
        pytest.skip("no GPU adapter")
    x = G.arange(6.).view(2, 3).to("gpu").t()
    y = FACTORIES[fn](G, x)
    assert y.device.type == "gpu" and y.stride() == (1, 3)
    if fn == "clone":
        assert y.cpu().tolist() == x.cpu().tolist()
    assert (y + 1).cpu().shape == (3, 2)
