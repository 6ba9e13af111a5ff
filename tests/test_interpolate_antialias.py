"""F.interpolate(..., antialias=True) (bilinear and bicubic, 4-D) vs torch 2.13: PyTorch's
separable antialiased resampling (filter widened by the downscale factor, normalized windows,
width pass first, unchanged axes copied), its grad_fn names and gradients, and the errors.
Bilinear weights are PyTorch's to the bit; bicubic's differ from ATen's in the last bit, so
values are compared to 1e-6."""

import numpy as np
import pytest

from conftest import G, check_error, run_both, to_np


def _run(M, shape, mode, dtype="float32", **kw):
    a = np.random.RandomState(0).rand(*shape).astype(dtype)
    x = M.from_numpy(a).requires_grad_()
    y = M.nn.functional.interpolate(x, mode=mode, antialias=True, **kw)
    (y * M.arange(float(y.numel()), dtype=y.dtype).view(y.shape).sin()).sum().backward()
    return y, x.grad


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("shape, kw", [
    ((1, 2, 32, 32), {"size": (16, 16)}),
    ((1, 1, 20, 13), {"size": (7, 5)}),
    ((2, 1, 9, 9), {"scale_factor": 0.3}),
    ((2, 1, 9, 9), {"scale_factor": 0.3, "recompute_scale_factor": True}),
    ((1, 1, 8, 8), {"size": (12, 5)}),
    ((1, 1, 5, 6), {"scale_factor": 2.0}),
    ((1, 1, 10, 10), {"size": (4, 4), "align_corners": True}),
    ((1, 1, 6, 6), {"size": (6, 3)}),
    ((1, 3, 7, 7), {"size": (7, 7)}),
    ((1, 1, 40, 30), {"size": (3, 2)}),
])
def test_antialias_matches_torch(mode, shape, kw):
    (gy, gx), (ty, tx) = run_both(lambda M: _run(M, shape, mode, **kw))
    assert type(gy.grad_fn).__name__ == type(ty.grad_fn).__name__
    assert tuple(gy.shape) == tuple(ty.shape)
    np.testing.assert_allclose(to_np(gy), to_np(ty), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(to_np(gx), to_np(tx), rtol=1e-5, atol=1e-6)


def test_antialias_bilinear_weights_are_torch_bits(torch):
    # a one-hot column per input position: the output holds the weights themselves
    def run(M):
        x = M.eye(13).view(1, 1, 13, 13)
        return to_np(M.nn.functional.interpolate(x, size=(13, 5), mode="bilinear",
                                                 antialias=True))

    g, t = run_both(run)
    np.testing.assert_array_equal(g, t)


def test_antialias_float64():
    (gy, gx), (ty, tx) = run_both(lambda M: _run(M, (1, 1, 12, 9), "bicubic", "float64",
                                                 size=(5, 4)))
    assert gy.dtype == G.float64
    np.testing.assert_allclose(to_np(gy), to_np(ty), rtol=1e-12)
    np.testing.assert_allclose(to_np(gx), to_np(tx), rtol=1e-12)


@pytest.mark.parametrize("call", [
    lambda M, x: M.nn.functional.interpolate(x[0], size=3, mode="linear", antialias=True),
    lambda M, x: M.nn.functional.interpolate(x, size=(3, 3), mode="nearest", antialias=True),
    lambda M, x: M.nn.functional.interpolate(x, size=(3, 3), mode="lanczos"),
    lambda M, x: M.nn.functional.interpolate(x, size=(3, 3), mode="lanczos", align_corners=True,
                                             antialias=True),
    lambda M, x: M.nn.functional.interpolate(x, size=(0, 3), mode="bilinear", antialias=True),
])
def test_antialias_errors(call):
    check_error(lambda M: call(M, M.ones(1, 1, 6, 6)))
