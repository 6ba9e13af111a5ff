"""Differential tests of the 3-D layers against PyTorch: ConvTranspose3d (and
F.conv_transpose3d), MaxPool3d, AvgPool3d, AdaptiveAvgPool3d, AdaptiveMaxPool3d, LPPool3d,
MaxUnpool3d and LazyConvTranspose3d: outputs, indices and input/parameter gradients in float32
and float64 with PyTorch's parameters copied in, grad_fn names, reprs, PyTorch's errors, and
finite-difference checks (first and second derivatives) of the functional forms."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import G, assert_same_error, norm
from test_gradcheck import gradcheck, gradgradcheck
from test_nn_layers import compare_calls, compare_module, r

pytestmark = pytest.mark.usefixtures("restore_grad_mode")

LAYERS = [
    ("convT3d", lambda nn: nn.ConvTranspose3d(3, 4, 2), [r(2, 3, 3, 4, 3)]),
    ("convT3d_full", lambda nn: nn.ConvTranspose3d(4, 6, (2, 3, 2), stride=(2, 1, 3),
                                                   padding=(1, 0, 1), output_padding=(1, 0, 2),
                                                   groups=2, dilation=(1, 2, 1)),
     [r(2, 4, 3, 4, 3)]),
    ("convT3d_dil_nobias", lambda nn: nn.ConvTranspose3d(2, 3, 3, stride=2, padding=2,
                                                         dilation=2, bias=False),
     [r(1, 2, 3, 3, 4)]),
    ("convT3d_unbatched", lambda nn: nn.ConvTranspose3d(2, 2, (1, 2, 2), stride=(3, 1, 1)),
     [r(2, 3, 2, 3)]),
    ("maxpool3d", lambda nn: nn.MaxPool3d(2), [r(2, 3, 4, 5, 6)]),
    ("maxpool3d_full", lambda nn: nn.MaxPool3d((3, 2, 2), stride=(2, 1, 2), padding=(1, 0, 1),
                                               dilation=(1, 2, 1), ceil_mode=True,
                                               return_indices=True), [r(2, 2, 5, 6, 7)]),
    ("maxpool3d_unbatched_idx", lambda nn: nn.MaxPool3d(2, 1, return_indices=True),
     [r(2, 3, 4, 3)]),
    ("avgpool3d", lambda nn: nn.AvgPool3d(2), [r(2, 3, 4, 5, 6)]),
    ("avgpool3d_pad_ceil", lambda nn: nn.AvgPool3d((3, 2, 2), (2, 1, 2), (1, 0, 1),
                                                   ceil_mode=True), [r(2, 2, 5, 6, 7)]),
    ("avgpool3d_nopad_count", lambda nn: nn.AvgPool3d(3, 2, 1, ceil_mode=True,
                                                      count_include_pad=False),
     [r(1, 2, 6, 5, 4)]),
    ("avgpool3d_divisor", lambda nn: nn.AvgPool3d(2, divisor_override=3), [r(2, 4, 4, 4)]),
    ("adaptiveavg3d", lambda nn: nn.AdaptiveAvgPool3d((2, 3, 4)), [r(2, 3, 5, 7, 6)]),
    ("adaptiveavg3d_none", lambda nn: nn.AdaptiveAvgPool3d((3, None, 2)), [r(2, 5, 4, 6)]),
    ("adaptiveavg3d_1", lambda nn: nn.AdaptiveAvgPool3d(1), [r(2, 3, 4, 4, 4)]),
    ("adaptivemax3d", lambda nn: nn.AdaptiveMaxPool3d((2, 3, 4), return_indices=True),
     [r(2, 3, 5, 7, 6)]),
    ("adaptivemax3d_even", lambda nn: nn.AdaptiveMaxPool3d(2), [r(2, 4, 6, 4)]),
    ("lppool3d", lambda nn: nn.LPPool3d(2, 2), [r(2, 3, 4, 4, 5)]),
    ("lppool3d_p3", lambda nn: nn.LPPool3d(3, (2, 1, 2), stride=1, ceil_mode=True),
     [r(2, 3, 3, 4, 4, lo=0.1)]),
    ("lppool3d_inf", lambda nn: nn.LPPool3d(float("inf"), 2), [r(1, 2, 4, 4, 4)]),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("make, inputs", [c[1:] for c in LAYERS], ids=[c[0] for c in LAYERS])
def test_layer(torch, make, inputs, dtype):
    g_mod, t_mod = compare_module(torch, make, inputs, dtype)
    assert repr(g_mod) == norm(repr(t_mod))


def test_grad_fn_names(torch):
    for lib in (torch, G):
        x = lib.randn(1, 2, 4, 4, 4, requires_grad=True)
        F = lib.nn.functional
        names = [F.max_pool3d(x, 2).grad_fn.name(), F.avg_pool3d(x, 2).grad_fn.name(),
                 F.adaptive_avg_pool3d(x, 2).grad_fn.name(),
                 F.adaptive_avg_pool3d(x, 1).grad_fn.name(),
                 F.adaptive_max_pool3d(x, 3).grad_fn.name(),
                 F.conv_transpose3d(x, lib.randn(2, 1, 2, 2, 2)).grad_fn.name(),
                 F.max_unpool3d(*F.max_pool3d(x, 2, return_indices=True), 2).grad_fn.name()]
        assert names == ["MaxPool3DWithIndicesBackward0", "AvgPool3DBackward0",
                         "AdaptiveAvgPool3DBackward0", "MeanBackward1",
                         "AdaptiveMaxPool3DBackward0", "ConvolutionBackward0",
                         "MaxUnpool3DBackward0"]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("args, shape", [
    (dict(kernel_size=2), (2, 3, 4, 4, 6)),
    (dict(kernel_size=(2, 1, 2), stride=(1, 2, 1), padding=(1, 0, 1)), (2, 3, 4, 3, 6)),
    (dict(kernel_size=2, output_size=(5, 5, 7)), (2, 3, 5, 5, 7)),
], ids=["plain", "strided", "output_size"])
def test_max_unpool3d(torch, args, shape, dtype):
    """Pool in PyTorch, then unpool the same values and indices in both libraries."""
    pool_args = {k: v for k, v in args.items() if k != "output_size"}
    x = torch.tensor(r(*shape), dtype=getattr(torch, dtype))
    values, indices = torch.nn.functional.max_pool3d(x, return_indices=True, **pool_args)
    for unbatched in (False, True):
        v = values[0] if unbatched else values
        i = indices[0] if unbatched else indices
        compare_calls(torch, lambda a, b: G.nn.MaxUnpool3d(**pool_args)(a, b, args.get(
            "output_size")), lambda a, b: torch.nn.MaxUnpool3d(**pool_args)(a, b, args.get(
                "output_size")), [v.numpy(), i.numpy()], dtype)
    assert repr(G.nn.MaxUnpool3d(**pool_args)) == repr(torch.nn.MaxUnpool3d(**pool_args))


@pytest.mark.parametrize("output_size", [None, (9, 10, 8)])
def test_conv_transpose3d_output_size(torch, output_size):
    make = lambda nn: nn.ConvTranspose3d(2, 3, 3, stride=2, padding=1)  # noqa: E731
    g_mod, t_mod = make(G.nn), make(torch.nn)
    sd = {k: G.tensor(v.detach().numpy()) for k, v in t_mod.state_dict().items()}
    g_mod.load_state_dict(sd)
    x = r(1, 2, 5, 5, 4)
    to = t_mod(torch.tensor(x, dtype=torch.float32), output_size)
    go = g_mod(G.tensor(x, dtype=G.float32), output_size)
    np.testing.assert_allclose(go.detach().numpy(), to.detach().numpy(), rtol=2e-5, atol=2e-6)
    assert_same_error(lambda: g_mod(G.zeros(1, 2, 5, 5, 4), (20, 10, 8)),
                      lambda: t_mod(torch.zeros(1, 2, 5, 5, 4), (20, 10, 8)))


def test_lazy_conv_transpose3d(torch):
    t_mod, g_mod = torch.nn.LazyConvTranspose3d(4, 2, stride=2), G.nn.LazyConvTranspose3d(4, 2,
                                                                                          stride=2)
    assert repr(g_mod) == norm(repr(t_mod))
    x = r(1, 3, 2, 3, 2)
    torch.manual_seed(1)
    to = t_mod(torch.tensor(x, dtype=torch.float32))
    G.manual_seed(1)
    go = g_mod(G.tensor(x, dtype=G.float32))
    assert type(g_mod) is G.nn.ConvTranspose3d and repr(g_mod) == norm(repr(t_mod))
    np.testing.assert_allclose(g_mod.weight.detach().numpy(), t_mod.weight.detach().numpy())
    np.testing.assert_allclose(go.detach().numpy(), to.detach().numpy(), rtol=2e-5, atol=2e-6)


def test_integer_pools(torch):
    x = np.random.default_rng(0).integers(-50, 50, size=(2, 3, 4, 5, 6))
    for fn in (lambda F, t: F.max_pool3d(t, 2, return_indices=True),
               lambda F, t: F.avg_pool3d(t, 3, 2, 1, ceil_mode=True),
               lambda F, t: F.avg_pool3d(t, 2, count_include_pad=False, divisor_override=3)):
        to, go = fn(torch.nn.functional, torch.tensor(x)), fn(G.nn.functional, G.tensor(x))
        to, go = (to, go) if isinstance(to, tuple) else ((to,), (go,))
        for a, b in zip(go, to):
            assert str(a.dtype) == norm(str(b.dtype))
            np.testing.assert_array_equal(a.numpy(), b.numpy())


ERRORS = [
    lambda F, lib: F.max_pool3d(lib.zeros(2, 3, 4), 2),
    lambda F, lib: F.max_pool3d(lib.zeros(1, 2, 4, 5, 6), 2, padding=2),
    lambda F, lib: F.max_pool3d(lib.zeros(1, 2, 4, 5, 6), 2, stride=0),
    lambda F, lib: F.max_pool3d(lib.zeros(1, 2, 4, 5, 6), 5),
    lambda F, lib: F.max_pool3d(lib.zeros(1, 2, 4, 5, 6), (2, 2)),
    lambda F, lib: F.max_pool3d(lib.zeros(1, 2, 4, 5, 6), 2, dilation=0),
    lambda F, lib: F.max_pool3d(lib.zeros(1, 0, 4, 4, 4), 2),
    lambda F, lib: F.avg_pool3d(lib.zeros(2, 3, 4), 2),
    lambda F, lib: F.avg_pool3d(lib.zeros(1, 2, 4, 5, 6), 2, padding=2),
    lambda F, lib: F.avg_pool3d(lib.zeros(1, 2, 4, 5, 6), 5),
    lambda F, lib: F.avg_pool3d(lib.zeros(1, 2, 4, 5, 6), (2, 2)),
    lambda F, lib: F.avg_pool3d(lib.zeros(1, 2, 4, 5, 6), 2, stride=0),
    lambda F, lib: F.avg_pool3d(lib.zeros(1, 2, 4, 5, 6), 2, divisor_override=0),
    lambda F, lib: F.avg_pool3d(lib.zeros(1, 2, 0, 4, 4), 2),
    lambda F, lib: F.adaptive_avg_pool3d(lib.zeros(2, 3), 2),
    lambda F, lib: F.adaptive_max_pool3d(lib.zeros(2, 3), 2),
    lambda F, lib: F.adaptive_avg_pool3d(lib.zeros(1, 2, 4, 5, 6), (2, 2)),
    lambda F, lib: F.adaptive_max_pool3d(lib.zeros(1, 2, 4, 5, 6), (2, 2)),
    lambda F, lib: F.adaptive_avg_pool3d(lib.zeros(1, 2, 4, 5, 6, dtype=lib.long), 2),
    lambda F, lib: F.adaptive_max_pool3d(lib.zeros(1, 2, 4, 5, 6, dtype=lib.long), 2),
    lambda F, lib: F.adaptive_avg_pool3d(lib.zeros(1, 2, 0, 3, 3), 2),
    lambda F, lib: F.adaptive_max_pool3d(lib.zeros(1, 2, 0, 3, 3), 2),
    lambda F, lib: F.max_unpool3d(lib.zeros(1, 2, 2, 2, 2), lib.zeros(1, 2, 2, 2, 2,
                                                                    dtype=lib.int32), 2),
    lambda F, lib: F.max_unpool3d(lib.zeros(1, 2, 2, 2, 2),
                                  lib.full((1, 2, 2, 2, 2), 1000, dtype=lib.long), 2),
    lambda F, lib: F.max_unpool3d(lib.zeros(2, 3, 4), lib.zeros(2, 3, 4, dtype=lib.long), 2),
    lambda F, lib: F.max_unpool3d(lib.zeros(1, 2, 2, 2, 2), lib.zeros(1, 2, 2, 2, 1,
                                                                    dtype=lib.long), 2),
    lambda F, lib: F.max_unpool3d(lib.zeros(1, 2, 2, 2, 2), lib.zeros(1, 2, 2, 2, 2,
                                                                    dtype=lib.long), 2,
                                  output_size=(9, 4, 4)),
    lambda F, lib: F.max_unpool3d(lib.zeros(1, 2, 2, 2, 2), lib.zeros(1, 2, 2, 2, 2,
                                                                    dtype=lib.long), 2,
                                  stride=0),
    lambda F, lib: F.conv_transpose3d(lib.zeros(2, 3, 4), lib.zeros(3, 2, 2, 2, 2)),
    lambda F, lib: F.conv_transpose3d(lib.zeros(1, 2, 4, 5, 6), lib.zeros(3, 2, 2, 2, 2)),
    lambda F, lib: F.conv_transpose3d(lib.zeros(1, 2, 4, 5, 6), lib.zeros(2, 2, 2, 2, 2),
                                      output_padding=2),
    lambda F, lib: F.conv_transpose3d(lib.zeros(1, 2, 4, 5, 6), lib.zeros(2, 2, 2, 2, 2),
                                      padding=4),
    lambda F, lib: F.conv_transpose3d(lib.zeros(1, 2, 4, 5, 6), lib.zeros(2, 2, 2, 2, 2),
                                      bias=lib.zeros(3)),
    lambda F, lib: F.conv_transpose3d(lib.zeros(1, 2, 4, 5, 6), lib.zeros(2, 2, 2, 2)),
    lambda F, lib: F.conv_transpose3d(lib.zeros(1, 2, 4, 5, 6), lib.zeros(2, 2, 2, 2, 2),
                                      groups=0),
    lambda F, lib: F.conv_transpose3d(lib.zeros(1, 2, 4, 5, 6), lib.zeros(2, 2, 2, 2, 2),
                                      groups=4),
    lambda F, lib: F.lp_pool3d(lib.zeros(1, 2, 4, 5, 6), 2, 5),
    lambda F, lib: lib.nn.ConvTranspose3d(2, 2, 2, padding_mode="reflect"),
    lambda F, lib: lib.nn.ConvTranspose3d(3, 2, 2, groups=2),
]


@pytest.mark.parametrize("fn", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_errors(torch, fn):
    assert_same_error(lambda: fn(G.nn.functional, G), lambda: fn(torch.nn.functional, torch))


@pytest.mark.parametrize("fn", [
    lambda F, x: F.max_pool3d(x, 2, 1, ceil_mode=True),
    lambda F, x: F.avg_pool3d(x, (2, 1, 2), padding=(1, 0, 1), count_include_pad=False),
    lambda F, x: F.adaptive_avg_pool3d(x, (2, 3, 2)),
    lambda F, x: F.adaptive_max_pool3d(x, (2, 2, 3)),
    lambda F, x: F.lp_pool3d(x, 2, 2),
], ids=["max", "avg", "adaptive_avg", "adaptive_max", "lp"])
def test_pool_gradcheck(fn):
    # Distinct values, so no window has tied maxima.
    x = np.random.default_rng(3).permutation(60).reshape(1, 1, 3, 4, 5) / 10.0 + 0.5
    assert gradcheck(lambda t: fn(G.nn.functional, t), (x,))
    assert gradgradcheck(lambda t: fn(G.nn.functional, t), (x,))


def test_conv_transpose3d_gradcheck():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((1, 2, 2, 3, 2))
    w = rng.standard_normal((2, 2, 2, 2, 1))
    b = rng.standard_normal(4)

    def fn(x, w, b):
        return G.nn.functional.conv_transpose3d(x, w, b, stride=(2, 1, 1), padding=(1, 0, 0),
                                                output_padding=(1, 0, 0), groups=2)

    assert gradcheck(fn, (x, w, b))
    assert gradgradcheck(fn, (x, w, b))


DTYPE_OPS = [
    ("max", lambda F, L, t: F.max_pool3d(t, 2)),
    ("avg", lambda F, L, t: F.avg_pool3d(t, 2)),
    ("adaptive_max", lambda F, L, t: F.adaptive_max_pool3d(t, 1)),
    ("adaptive_avg", lambda F, L, t: F.adaptive_avg_pool3d(t, 2)),
    ("unpool", lambda F, L, t: F.max_unpool3d(t, L.arange(8).reshape(1, 1, 2, 2, 2), 1)),
    ("lp", lambda F, L, t: F.lp_pool3d(t, 2, 2)),
    ("convT", lambda F, L, t: F.conv_transpose3d(t, L.ones(1, 2, 2, 2, 2, dtype=t.dtype))),
]


@pytest.mark.parametrize("dtype", ["int32", "int64", "bool", "float16"])
@pytest.mark.parametrize("fn", [c[1] for c in DTYPE_OPS], ids=[c[0] for c in DTYPE_OPS])
def test_dtypes(torch, fn, dtype):
    """Which dtypes PyTorch's CPU kernels take (NotImplementedError otherwise), and the
    values of those they take."""
    x = np.random.default_rng(0).integers(-3, 4, size=(1, 1, 2, 2, 2))
    tx = torch.tensor(x).to(getattr(torch, dtype))
    gx = G.tensor(x).to(getattr(G, dtype))
    try:
        to = fn(torch.nn.functional, torch, tx)
    except Exception:  # noqa: BLE001 - the same error is then required of gradrs
        assert_same_error(lambda: fn(G.nn.functional, G, gx),
                          lambda: fn(torch.nn.functional, torch, tx))
        return
    go = fn(G.nn.functional, G, gx)
    assert str(go.dtype) == norm(str(to.dtype))
    np.testing.assert_array_equal(go.float().numpy(), to.float().numpy())


def test_max_pool3d_nan_and_ties(torch):
    """PyTorch's scan: ties keep the first maximum, NaN replaces the maximum (the last NaN of a
    window wins); indices and the gradient's routing follow."""
    x = r(1, 2, 4, 4, 4).astype(np.float32)
    x[0, 0, 0, 0, 0] = x[0, 0, 1, 1, 1] = np.nan
    x[0, 1, 2, 2, 2] = x[0, 1, 2, 2, 3] = x[0, 1, 3, 3, 3] = 5.0
    tx = torch.tensor(x, requires_grad=True)
    gx = G.tensor(x, requires_grad=True)
    tv, ti = torch.nn.functional.max_pool3d(tx, 2, return_indices=True)
    gv, gi = G.nn.functional.max_pool3d(gx, 2, return_indices=True)
    np.testing.assert_array_equal(gi.numpy(), ti.numpy())
    np.testing.assert_array_equal(gv.detach().numpy(), tv.detach().numpy())
    tv.sum().backward()
    gv.sum().backward()
    np.testing.assert_array_equal(gx.grad.numpy(), tx.grad.numpy())


def test_avg_pool3d_float32_bit_identical(torch):
    """The window summed in PyTorch's order: float32 results equal to the bit."""
    x = r(2, 3, 9, 8, 7).astype(np.float32)
    for args in [(3, 2, 1, True, False), (3, 1, 1, False, True), (2,)]:
        np.testing.assert_array_equal(
            G.nn.functional.avg_pool3d(G.tensor(x), *args).numpy(),
            torch.nn.functional.avg_pool3d(torch.tensor(x), *args).numpy())


def test_adaptive_and_fractional_max_nan_and_ties(torch):
    """adaptive_max_pool3d and fractional_max_pool2d/3d scan their windows as PyTorch does
    (first maximum, last NaN): the same indices, values and gradients."""
    x = r(1, 2, 5, 6, 7).astype(np.float32)
    x[0, 0, 0, 0, 0] = x[0, 0, 1, 1, 1] = x[0, 0, 0, 2, 1] = np.nan
    x[0, 1, 2, 2, 2] = x[0, 1, 2, 2, 3] = x[0, 1, 3, 3, 3] = x[0, 1, 2, 3, 3] = 5.0
    cases = [
        lambda F, L, t: F.adaptive_max_pool3d(t, (2, 3, 3), True),
        lambda F, L, t: F.fractional_max_pool3d(t, 2, (3, 3, 4), return_indices=True,
                                                _random_samples=L.full((1, 2, 3), 0.4)),
        lambda F, L, t: F.fractional_max_pool2d(t[:, :, 2], 2, (3, 4), return_indices=True,
                                                _random_samples=L.full((1, 2, 2), 0.4)),
    ]
    for fn in cases:
        tx = torch.tensor(x, requires_grad=True)
        gx = G.tensor(x, requires_grad=True)
        tv, ti = fn(torch.nn.functional, torch, tx)
        gv, gi = fn(G.nn.functional, G, gx)
        np.testing.assert_array_equal(gi.numpy(), ti.numpy())
        np.testing.assert_array_equal(gv.detach().numpy(), tv.detach().numpy())
        w = np.random.default_rng(1).standard_normal(tuple(tv.shape)).astype(np.float32)
        (tv * torch.tensor(w)).sum().backward()
        (gv * G.tensor(w)).sum().backward()
        np.testing.assert_allclose(gx.grad.numpy(), tx.grad.numpy(), rtol=1e-6, atol=1e-6)
