"""Differential tests of fractional max pooling (F.fractional_max_pool2d/3d and their
_with_indices forms, nn.FractionalMaxPool2d/3d) against PyTorch: the same windows from the
same seed (the random samples drawn as PyTorch draws them) or from given `_random_samples`,
values, indices and gradients in float32 and float64, output_ratio, reprs and errors."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import G, assert_same_error, norm
from test_gradcheck import gradcheck
from test_nn_layers import TOL, _np, r

pytestmark = pytest.mark.usefixtures("restore_grad_mode")

CASES = [
    ("2d", lambda nn: nn.FractionalMaxPool2d(2, output_size=(3, 4)), (2, 3, 7, 8)),
    ("2d_unbatched", lambda nn: nn.FractionalMaxPool2d((3, 2), output_size=(4, 5),
                                                       return_indices=True), (3, 9, 10)),
    ("2d_ratio", lambda nn: nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.6),
                                                   return_indices=True), (2, 2, 21, 17)),
    ("2d_one", lambda nn: nn.FractionalMaxPool2d(2, output_size=1), (1, 2, 5, 5)),
    ("3d", lambda nn: nn.FractionalMaxPool3d(2, output_size=(3, 3, 4), return_indices=True),
     (2, 2, 5, 6, 7)),
    ("3d_unbatched_ratio", lambda nn: nn.FractionalMaxPool3d((2, 1, 3), output_ratio=0.5),
     (2, 6, 5, 8)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("make, shape", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_module_same_seed(torch, make, shape, dtype):
    t_mod, g_mod = make(torch.nn), make(G.nn)
    assert repr(g_mod) == norm(repr(t_mod))
    x = r(*shape)
    tx = torch.tensor(x, dtype=getattr(torch, dtype), requires_grad=True)
    gx = G.tensor(x, dtype=getattr(G, dtype), requires_grad=True)
    for seed in (0, 1):
        torch.manual_seed(seed)
        to = t_mod(tx)
        t_next = torch.rand(1).item()
        G.manual_seed(seed)
        go = g_mod(gx)
        assert G.rand(1).item() == t_next  # the same draws were consumed
        if isinstance(to, tuple):
            np.testing.assert_array_equal(_np(go[1]), _np(to[1]))
            assert str(go[1].dtype) == norm(str(to[1].dtype))
            to, go = to[0], go[0]
        np.testing.assert_array_equal(_np(go), _np(to))
        assert go.grad_fn.name() == to.grad_fn.name()
        w = np.random.default_rng(seed).standard_normal(tuple(to.shape))
        (to * torch.tensor(w, dtype=to.dtype)).sum().backward()
        (go * G.tensor(w, dtype=go.dtype)).sum().backward()
        np.testing.assert_allclose(_np(gx.grad), _np(tx.grad), **TOL[dtype])


@pytest.mark.parametrize("nd", [2, 3])
def test_given_samples(torch, nd):
    """Edge samples (0 and just below 1) and a larger batch of samples than the input's."""
    shape = (2, 3, 11, 9) if nd == 2 else (2, 2, 6, 7, 5)
    out = (4, 3) if nd == 2 else (3, 2, 3)
    samples = np.random.default_rng(1).uniform(size=(3, shape[1], nd))
    samples[0, 0] = 0.0
    samples[1, 1] = 1 - 1e-7
    x = r(*shape)
    fn = f"fractional_max_pool{nd}d_with_indices"
    for dtype in ("float32", "float64"):
        to = getattr(torch.nn.functional, fn)(
            torch.tensor(x, dtype=getattr(torch, dtype)), 2, out,
            _random_samples=torch.tensor(samples, dtype=getattr(torch, dtype)))
        go = getattr(G.nn.functional, fn)(
            G.tensor(x, dtype=getattr(G, dtype)), 2, out,
            _random_samples=G.tensor(samples, dtype=getattr(G, dtype)))
        np.testing.assert_array_equal(_np(go[0]), _np(to[0]))
        np.testing.assert_array_equal(_np(go[1]), _np(to[1]))


def test_module_buffer_and_gradcheck(torch):
    samples = np.random.default_rng(2).uniform(size=(1, 2, 2))
    for lib in (torch, G):
        m = lib.nn.FractionalMaxPool2d(2, output_size=3,
                                       _random_samples=lib.tensor(samples, dtype=lib.float64))
        assert list(m.state_dict()) == ["_random_samples"]
    x = np.random.default_rng(3).permutation(50).reshape(1, 2, 5, 5) / 7.0
    assert gradcheck(lambda t: G.nn.functional.fractional_max_pool2d(
        t, 2, 3, _random_samples=G.tensor(samples, dtype=G.float64)), (x,))


ERRORS = [
    lambda F, lib: F.fractional_max_pool2d(lib.zeros(2, 3, 7, 8), 2),
    lambda F, lib: F.fractional_max_pool2d(lib.zeros(2, 3, 7, 8), 2, output_ratio=0.5),
    lambda F, lib: F.fractional_max_pool2d(lib.zeros(2, 3, 7, 8), 2, output_ratio=(.5, .5, .5)),
    lambda F, lib: F.fractional_max_pool2d(lib.zeros(2, 3, 7, 8), 4, output_size=6),
    lambda F, lib: F.fractional_max_pool2d(lib.zeros(2, 3, 7, 8), 2, output_size=(3, 8)),
    lambda F, lib: F.fractional_max_pool2d(lib.zeros(3, 7), 2, output_size=3),
    lambda F, lib: F.fractional_max_pool2d(lib.zeros(2, 3, 7, 8), (2, 2, 2), output_size=3),
    lambda F, lib: F.fractional_max_pool2d(lib.zeros(2, 3, 7, 8), 2, output_size=(3, 3, 3)),
    lambda F, lib: F.fractional_max_pool2d(lib.zeros(2, 3, 7, 8), 2, output_size=3,
                                           _random_samples=lib.rand(2, 3, 3)),
    lambda F, lib: F.fractional_max_pool2d(lib.zeros(2, 3, 7, 8), 2, output_size=3,
                                           _random_samples=lib.rand(1, 3, 2)),
    lambda F, lib: F.fractional_max_pool2d(lib.zeros(2, 3, 7, 8), 2, output_size=3,
                                           _random_samples=lib.rand(2, 2, 2)),
    lambda F, lib: F.fractional_max_pool2d(lib.zeros(2, 3, 7, 8), 2, output_size=3,
                                           _random_samples=lib.rand(2, 3, 2).double()),
    lambda F, lib: F.fractional_max_pool2d(lib.zeros(2, 0, 7, 8), 2, output_size=3),
    lambda F, lib: F.fractional_max_pool3d(lib.zeros(2, 3, 5), 2, output_size=3),
    lambda F, lib: F.fractional_max_pool3d(lib.zeros(1, 2, 5, 5, 5), 4, output_size=3),
    lambda F, lib: F.fractional_max_pool3d(lib.zeros(1, 2, 5, 5, 5), 2, output_size=3,
                                           _random_samples=lib.rand(1, 2, 2)),
    lambda F, lib: F.fractional_max_pool3d(lib.zeros(1, 2, 5, 5, 5), 2),
    lambda F, lib: F.fractional_max_pool3d(lib.zeros(1, 2, 5, 5, 5), (2, 2), output_size=3),
    lambda F, lib: lib.nn.FractionalMaxPool2d(2),
    lambda F, lib: lib.nn.FractionalMaxPool2d(2, 3, 0.5),
    lambda F, lib: lib.nn.FractionalMaxPool2d(2, output_ratio=1.5),
    lambda F, lib: lib.nn.FractionalMaxPool3d(2),
    lambda F, lib: lib.nn.FractionalMaxPool3d(2, 3, 0.5),
    lambda F, lib: lib.nn.FractionalMaxPool3d(2, output_ratio=(0.5, 1, 0.5)),
]


@pytest.mark.parametrize("fn", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_errors(torch, fn):
    assert_same_error(lambda: fn(G.nn.functional, G), lambda: fn(torch.nn.functional, torch))
