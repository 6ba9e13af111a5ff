"""gradrs.nn.utils.skip_init against torch 2.13: the module built, its parameters' shapes,
dtypes and flags, the random stream left untouched, and the errors."""

from __future__ import annotations

import pytest
from conftest import G, check_error, norm


@pytest.mark.parametrize(("cls", "args", "kw"), [
    ("Linear", (5, 1), {}),
    ("Linear", (), {"in_features": 6, "out_features": 2, "bias": False}),
    ("Conv2d", (3, 4, 3), {"dtype": "float64"}),
    ("BatchNorm1d", (4,), {}),
    ("Embedding", (10, 3), {}),
])
def test_module_and_stream_match_torch(torch, cls, args, kw):
    def run(m):
        kwargs = {k: getattr(m, v) if k == "dtype" else v for k, v in kw.items()}
        m.manual_seed(0)
        mod = m.nn.utils.skip_init(getattr(m.nn, cls), *args, **kwargs)
        sd = [(k, tuple(v.shape), str(v.dtype).split(".")[-1], v.requires_grad, v.device.type)
              for k, v in mod.state_dict(keep_vars=True).items()]
        return repr(mod), sd, m.rand(3).tolist()

    g, t = run(G), run(torch)
    assert g[0] == norm(t[0])
    assert g[1:] == t[1:]


def test_device_argument():
    mod = G.nn.utils.skip_init(G.nn.Linear, 2, 3, device="cpu")
    assert mod.weight.device.type == "cpu" and isinstance(mod.weight, G.nn.Parameter)


def test_errors_match_torch():
    check_error(lambda m: m.nn.utils.skip_init(int, 3))
    check_error(lambda m: m.nn.utils.skip_init(m.nn.Sequential))
    check_error(lambda m: m.nn.utils.skip_init(m.nn.ReLU))
