"""The layers added for issue 21/24's coverage train on the GPU device as test_nn_gpu.py's
families do: after a warm-up step, a full training step moves nothing between host and GPU
(except where listed, with the cause) and gives the CPU's losses and parameters. 3-D
convolution-transpose and pools, lazy modules (materialized on the GPU by the warm-up call),
parametrizations and the hook-based weight/spectral norms, pruning, CrossMapLRN2d, conv_tbc,
fractional max pooling, SyncBatchNorm."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import G, SELFTEST
from test_nn_gpu import _compare, _train, _x

import gradrs.nn.utils.prune as prune

pytestmark = pytest.mark.skipif(
    SELFTEST or not G.gpu.is_available(), reason="needs gradrs's GPU device (an adapter)")

nn = G.nn
VOL = (2, 2, 5, 6, 5)


def _vol(*layers):
    """A Conv3d stem, the layers (built anew for each model), a flatten."""
    return lambda: nn.Sequential(nn.Conv3d(2, 3, 2), *(make() for make in layers), nn.Flatten())


class _Tbc(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(G.tensor(np.random.default_rng(0).standard_normal(
            (3, 4, 5)).astype(np.float32)))
        self.bias = nn.Parameter(G.zeros(5))

    def forward(self, x):
        return nn.functional.conv_tbc(x, self.weight, self.bias, 1)


def _pruned():
    m = nn.Linear(6, 3)
    prune.l1_unstructured(m, "weight", amount=0.5)
    return m


CASES = {
    "ConvTranspose3d": (_vol(lambda: nn.ConvTranspose3d(3, 2, 2, stride=2, padding=1)), _x(*VOL)),
    "MaxPool3d": (_vol(lambda: nn.MaxPool3d(2, ceil_mode=True)), _x(*VOL)),
    "AvgPool3d": (_vol(lambda: nn.AvgPool3d(2, 1, 1, count_include_pad=False)), _x(*VOL)),
    "AdaptiveAvgPool3d": (_vol(lambda: nn.AdaptiveAvgPool3d((2, 3, 2))), _x(*VOL)),
    "AdaptiveMaxPool3d": (_vol(lambda: nn.AdaptiveMaxPool3d((2, 3, 2))), _x(*VOL)),
    "LPPool3d": (_vol(lambda: nn.Sigmoid(), lambda: nn.LPPool3d(2, 2)), _x(*VOL)),
    "LazyConv+LazyBatchNorm+LazyLinear": (
        lambda: nn.Sequential(nn.LazyConv2d(4, 3), nn.LazyBatchNorm2d(), nn.Flatten(),
                              nn.LazyLinear(3)), _x(2, 3, 6, 6)),
    "weight_norm parametrization": (
        lambda: nn.utils.parametrizations.weight_norm(nn.Linear(6, 3)), _x(4, 6)),
    "spectral_norm parametrization": (
        lambda: nn.utils.parametrizations.spectral_norm(nn.Linear(6, 3)), _x(4, 6)),
    "spectral_norm hook": (lambda: nn.utils.spectral_norm(nn.Linear(6, 3)), _x(4, 6)),
    "prune": (_pruned, _x(4, 6)),
    "CrossMapLRN2d": (lambda: nn.Sequential(nn.Conv2d(3, 4, 1), nn.CrossMapLRN2d(3),
                                            nn.Flatten()), _x(2, 3, 4, 4)),
    "conv_tbc": (_Tbc, _x(6, 2, 4)),
    "FractionalMaxPool2d": (lambda: nn.Sequential(nn.Conv2d(3, 4, 1),
                                                  nn.FractionalMaxPool2d(2, output_size=3),
                                                  nn.Flatten()), _x(2, 3, 7, 7)),
    "SyncBatchNorm": (lambda: nn.Sequential(nn.Conv2d(3, 4, 1), nn.SyncBatchNorm(4),
                                            nn.Flatten()), _x(2, 3, 4, 4)),
}

# (downloads, uploads) of a step that are expected, with their cause.
EXPECTED = {
    # Materializing runs reset_running_stats(), whose num_batches_tracked.zero_() leaves that
    # int64 GPU tensor in a state where each later add_(1) downloads and uploads it once (a
    # GPU-backend matter: a plain BatchNorm2d after reset_running_stats() does the same).
    "LazyConv+LazyBatchNorm+LazyLinear": (1, 1),
}


@pytest.mark.parametrize("name", list(CASES))
def test_training_step_stays_on_gpu(name):
    make, x = CASES[name]
    t = _x(*make()(x).shape, seed=5)
    crit = nn.MSELoss()
    cpu = _train(make, x, t, crit, "cpu")
    gpu = _train(make, x, t, crit, "gpu")
    assert gpu[2] == EXPECTED.get(name, (0, 0)), f"(downloads, uploads) of a step: {gpu[2]}"
    _compare(cpu, gpu)
