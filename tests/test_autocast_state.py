"""The autocast state functions at the top level against torch 2.13: get/set_autocast_dtype,
set_autocast_enabled (which autocasts ops outside a region), the nesting counters, the
deprecated per-device spellings and their DeprecationWarnings, and the argument errors."""

from __future__ import annotations

import pytest
from conftest import G, check_error, check_warning


@pytest.fixture(autouse=True)
def _reset():
    """Autocast state is per thread and outlives a test: put both libraries' defaults back."""
    yield
    from conftest import HAVE_TORCH

    from gradrs.amp import autocast_mode

    mods = [G]
    if HAVE_TORCH:
        import torch

        mods.append(torch)
        torch.set_autocast_dtype("cpu", torch.bfloat16)
    for m in mods:
        m.set_autocast_enabled("cpu", False)
        m.set_autocast_enabled("cuda", False)
        m.set_autocast_dtype("cuda", m.float16)
    autocast_mode._state.dtype["cpu"] = G.bfloat16  # PyTorch's default


def test_gpu_dtype_and_set_get(torch):
    for m in (G, torch):
        assert m.get_autocast_dtype("cuda") == m.float16
    for m in (G, torch):
        m.set_autocast_dtype("cpu", m.float16)
        assert m.get_autocast_dtype("cpu") == m.float16
        m.set_autocast_dtype("cuda", m.float32)
        assert m.get_autocast_dtype("cuda") == m.float32
        m.set_autocast_dtype("cuda", m.float16)


def test_cpu_default_is_bfloat16():
    import threading

    out = []
    # A fresh thread has the defaults (the state is per thread).
    t = threading.Thread(target=lambda: out.append(G.get_autocast_dtype("cpu")))
    t.start()
    t.join()
    assert out == [G.bfloat16]


def test_set_enabled_autocasts_outside_a_region(torch):
    def run(m):
        m.set_autocast_dtype("cpu", m.float16)
        m.set_autocast_enabled("cpu", True)
        x = m.ones(2, 2)
        on = (m.is_autocast_enabled("cpu"), (x @ x).dtype, x.exp().dtype)
        m.set_autocast_enabled("cpu", False)
        off = (m.is_autocast_enabled("cpu"), (x @ x).dtype)
        with m.autocast("cpu", dtype=m.float16):
            inside = (x @ x).dtype
        return [str(v).split(".")[-1] for v in on + off + (inside,)]

    assert run(G) == run(torch)


def test_one_argument_form_is_the_gpu(torch):
    for m in (G, torch):
        m.set_autocast_enabled(True)
        assert m.is_autocast_enabled() and m.is_autocast_enabled("cuda")
        assert not m.is_autocast_enabled("cpu")
        m.set_autocast_enabled(False)
        assert not m.is_autocast_enabled()


def test_nesting_counters(torch):
    def run(m):
        out = [m.autocast_increment_nesting(), m.autocast_increment_nesting(),
               m.autocast_decrement_nesting(), m.autocast_decrement_nesting()]
        with m.autocast("cpu", enabled=False):
            out += [m.autocast_increment_nesting(), m.autocast_decrement_nesting()]
        out.append(m.autocast_decrement_nesting())
        out.append(m.autocast_increment_nesting())
        return out

    assert run(G) == run(torch)


@pytest.mark.parametrize("call", [
    lambda m: m.is_autocast_cpu_enabled(),
    lambda m: m.get_autocast_gpu_dtype(),
    lambda m: m.set_autocast_gpu_dtype(m.float16),
    lambda m: (m.set_autocast_cpu_dtype(m.float16), m.get_autocast_cpu_dtype())[1],
    lambda m: m.set_autocast_cpu_enabled(False),
])
def test_deprecated_spellings_warn_like_torch(torch, call):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        g, t = check_warning(call)
    assert str(g).split(".")[-1] == str(t).split(".")[-1]


@pytest.mark.parametrize("call", [
    lambda m: m.set_autocast_enabled(1),
    lambda m: m.set_autocast_enabled("cpu"),
    lambda m: m.set_autocast_enabled("cpu", 1),
    lambda m: m.get_autocast_dtype(3),
    lambda m: m.is_autocast_enabled(3),
    lambda m: m.set_autocast_dtype("cpu", 3),
    lambda m: m.set_autocast_cpu_enabled(1),
    lambda m: m.set_autocast_cpu_dtype(1),
])
def test_argument_errors_match_torch(call):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_error(call)


def _custom_function(m, cast_inputs):
    seen = []

    class F(m.autograd.Function):
        @staticmethod
        @m.amp.custom_fwd(device_type="cpu", cast_inputs=cast_inputs)
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            seen.append(("fwd", str(a.dtype), m.is_autocast_enabled("cpu")))
            return a @ b

        @staticmethod
        @m.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            seen.append(("bwd", str(g.dtype), m.is_autocast_enabled("cpu")))
            return g @ b.t().to(g.dtype), a.t().to(g.dtype) @ g

    return F, seen


@pytest.mark.parametrize("cast", [None, "float32"])
def test_custom_fwd_bwd_match_torch(torch, cast):
    def run(m):
        F, seen = _custom_function(m, None if cast is None else getattr(m, cast))
        a = m.ones(2, 2, requires_grad=True)
        b = m.full((2, 2), 2.0, requires_grad=True)
        with m.autocast("cpu", dtype=m.float16):
            y = F.apply(a.half(), b)
        y.sum().backward()
        out = [str(y.dtype), str(a.grad.dtype), a.grad.tolist(), b.grad.tolist()]
        y = F.apply(a, b)  # outside a region: forward as written
        return [str(v).split(".")[-1] for v in out] + [str(y.dtype).split(".")[-1]], \
            [(k, d.split(".")[-1], e) for k, d, e in seen]

    assert run(G) == run(torch)


def test_custom_fwd_bwd_errors_and_deprecated_spellings(torch):
    import warnings

    check_error(lambda m: m.amp.custom_fwd(device_type=1))
    check_error(lambda m: m.amp.custom_bwd(device_type=None))
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        check_warning(lambda m: m.cuda.amp.custom_fwd(lambda ctx, x: x) and None)
        check_warning(lambda m: m.cuda.amp.custom_bwd(lambda ctx, g: g) and None)
