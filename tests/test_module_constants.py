"""gradrs.pi / e / inf / nan / newaxis: PyTorch's module constants (math's, and None), which programs use in angle
math and masks (found by tests/programs/anomaly_roc: `torch.pi` raised AttributeError); the
Tensor backend flags (`is_sparse` & co.) libraries test."""

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


def test_tensor_backend_flags_are_false_as_for_a_dense_cpu_tensor(torch):
    # `if p.grad.is_sparse: raise ...` opens many third-party optimizers' step()
    names = ["is_sparse", "is_sparse_csr", "is_quantized", "is_mkldnn", "is_nested", "is_mps",
             "is_xpu", "is_xla", "is_vulkan", "is_ipu", "is_maia", "is_mtia"]
    for name in names:
        assert getattr(G.ones(2), name) is getattr(torch.ones(2), name) is False, name
        assert getattr(G.ones(2, requires_grad=True).sum(), name) is False
