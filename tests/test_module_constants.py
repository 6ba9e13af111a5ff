"""gradrs.pi / e / inf / nan / newaxis: PyTorch's module constants (math's, and None), which programs use in angle
math and masks (found by tests/programs/anomaly_roc: `torch.pi` raised AttributeError)."""

import math

from conftest import G


def test_constants_are_maths(torch):
    for name in ("pi", "e", "inf", "nan"):
        ours, theirs = getattr(G, name), getattr(torch, name)
        assert type(ours) is type(theirs) is float
        assert ours == theirs or (math.isnan(ours) and math.isnan(theirs))
    assert G.full((2,), -G.inf).tolist() == [-math.inf, -math.inf]
    assert G.sin(G.tensor(G.pi / 2)).item() == 1.0
    assert G.newaxis is torch.newaxis is None
    assert G.arange(3)[:, G.newaxis].shape == (3, 1)
