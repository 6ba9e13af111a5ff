"""Dropout draws its mask as PyTorch does (bernoulli_(1 - p) on the default stream), so a seed
gives PyTorch's masks and every later draw stays in step."""

import pytest

import gradrs as G


@pytest.mark.parametrize("fn,shape,p", [
    ("dropout", (5, 7), 0.1),
    ("dropout", (3, 4, 6), 0.5),
    ("dropout1d", (2, 3, 5), 0.4),
    ("dropout2d", (2, 4, 3, 3), 0.5),
    ("dropout3d", (2, 3, 2, 2, 2), 0.25),
    ("alpha_dropout", (4, 6), 0.2),
    ("feature_alpha_dropout", (2, 5, 3), 0.3),
])
def test_masks_and_stream_match_torch(torch, fn, shape, p):
    def run(mod):
        mod.manual_seed(7)
        x = mod.ones(*shape, dtype=mod.float64, requires_grad=True)
        y = getattr(mod.nn.functional, fn)(x, p, training=True)
        y.backward(mod.ones_like(y))
        return y.tolist(), x.grad.tolist(), mod.rand(3).tolist(), type(y.grad_fn).__name__

    assert run(G) == run(torch)


def test_module_in_place_matches_torch(torch):
    def run(mod):
        mod.manual_seed(3)
        x = mod.arange(24.0).reshape(4, 6)
        mod.nn.Dropout(0.3, inplace=True)(x)
        return x.tolist()

    assert run(G) == run(torch)
