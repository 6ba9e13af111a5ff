"""linspace against PyTorch to the bit: each dtype's own arithmetic, fused multiply-adds."""

import random

import numpy as np
import pytest

import gradrs as G

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "uint8"]


def _cases(seed, n_cases=60):
    rng = random.Random(seed)
    out = [(-1.0, 1.0, 20), (0.0, 1.0, 7), (-3.3, 7.1, 50), (0.5, 10.7, 5), (2.0, 2.0, 1),
           (5.0, -5.0, 11), (0.0, 1.0, 0), (0.0, 1.0, 2), (-1.0, 1.0, 224)]
    for _ in range(n_cases):
        out.append((rng.uniform(-10, 10), rng.uniform(-10, 10), rng.randint(1, 300)))
    return out


@pytest.mark.parametrize("dtype", DTYPES)
def test_linspace_bits_match_torch(torch, dtype):
    # ATen's CPU kernels are compiled with FMA contraction only for the AVX2/AVX512 builds
    exact = torch.backends.cpu.get_cpu_capability() in ("AVX2", "AVX512")
    for a, b, n in _cases(hash(dtype) % 1000):
        if dtype == "uint8":
            a, b = abs(a), abs(b)
        t = torch.linspace(a, b, n, dtype=getattr(torch, dtype))
        g = G.linspace(a, b, n, dtype=getattr(G, dtype))
        assert g.dtype == getattr(G, dtype) and tuple(g.shape) == tuple(t.shape)
        tn, gn = t.float().numpy(), g.float().numpy()
        if dtype == "float64":
            tn, gn = t.numpy(), g.numpy()
        if exact:
            np.testing.assert_array_equal(gn, tn, err_msg=f"linspace({a}, {b}, {n}, {dtype})")
        else:
            np.testing.assert_allclose(gn, tn, rtol=1e-2, atol=1)


def test_affine_grid_identity_lands_on_torch_points(torch):
    # affine_grid's base grid is linspace(-1, 1, n): one ulp moved a sample to the other pixel
    theta_t = torch.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    theta_g = G.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    gt = torch.nn.functional.affine_grid(theta_t, (1, 1, 20, 28), align_corners=False)
    gg = G.nn.functional.affine_grid(theta_g, (1, 1, 20, 28), align_corners=False)
    if torch.backends.cpu.get_cpu_capability() in ("AVX2", "AVX512"):
        np.testing.assert_array_equal(gg.numpy(), gt.numpy())
    else:
        np.testing.assert_allclose(gg.numpy(), gt.numpy(), rtol=1e-6, atol=1e-7)
