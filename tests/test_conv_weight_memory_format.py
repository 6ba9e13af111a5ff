"""nn.utils.convert_conv2d_weight_memory_format / convert_conv3d_weight_memory_format and
Tensor.resize_ / resize_as_ with memory_format=: strides, values and outputs against torch."""

import numpy as np
import pytest
from conftest import G


def _tree(m, three_d):
    conv, convt, bn = ((m.nn.Conv3d, m.nn.ConvTranspose3d, m.nn.BatchNorm3d) if three_d else
                       (m.nn.Conv2d, m.nn.ConvTranspose2d, m.nn.BatchNorm2d))
    m.manual_seed(0)
    inner = m.nn.Sequential(convt(4, 3, 2, stride=2), m.nn.ReLU(), conv(3, 2, 1, bias=False))
    return m.nn.Sequential(conv(2, 4, 3, padding=1), bn(4), m.nn.Tanh(), inner, m.nn.Flatten())


@pytest.mark.parametrize("three_d", [False, True])
@pytest.mark.parametrize("fmt", ["channels_last", "contiguous_format", "preserve_format"])
def test_convert_conv_weight_memory_format_as_torch(torch, three_d, fmt):
    if three_d and fmt == "channels_last":
        fmt = "channels_last_3d"
    ours, theirs = _tree(G, three_d), _tree(torch, three_d)
    for (_name, p), q in zip(ours.named_parameters(), theirs.parameters()):
        with G.no_grad():
            p.copy_(G.from_numpy(q.detach().numpy().copy()))
    convert = ("convert_conv3d_weight_memory_format" if three_d
               else "convert_conv2d_weight_memory_format")
    before = {n: p for n, p in ours.named_parameters()}
    if fmt == "preserve_format":  # resize_ refuses it, in both
        for m, model in ((G, ours), (torch, theirs)):
            with pytest.raises(RuntimeError, match="^Unsupported memory formatPreserve$"):
                getattr(m.nn.utils, convert)(model, m.preserve_format)
        return
    out = getattr(G.nn.utils, convert)(ours, getattr(G, fmt))
    t_out = getattr(torch.nn.utils, convert)(theirs, getattr(torch, fmt))
    assert out is ours and t_out is theirs
    for (name, p), q in zip(ours.named_parameters(), theirs.parameters()):
        assert p is before[name], name  # the same Parameter, its data replaced
        assert p.shape == q.shape and p.stride() == q.stride(), (name, p.stride(), q.stride())
        assert p.is_contiguous() == q.is_contiguous(), name
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
        assert p.requires_grad and type(p) is G.nn.Parameter
    x = np.random.default_rng(0).standard_normal((2, 2) + (4,) * (3 if three_d else 2))
    x = x.astype(np.float32)
    y, t_y = ours(G.from_numpy(x)), theirs(torch.from_numpy(x))
    np.testing.assert_allclose(y.detach().numpy(), t_y.detach().numpy(), rtol=1e-5, atol=1e-5)
    y.sum().backward()
    t_y.sum().backward()
    for p, q in zip(ours.parameters(), theirs.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-4, atol=1e-4)


def test_other_dims_untouched(torch):
    for m in (G, torch):
        conv1 = m.nn.Conv1d(2, 3, 2)
        conv3 = m.nn.Conv3d(2, 3, 2)
        lin = m.nn.Linear(4, 4)
        tree = m.nn.Sequential(conv1, conv3, lin)
        m.nn.utils.convert_conv2d_weight_memory_format(tree, m.channels_last)
        assert conv1.weight.is_contiguous() and conv3.weight.is_contiguous()
        assert lin.weight.is_contiguous()
        m.nn.utils.convert_conv3d_weight_memory_format(m.nn.Conv2d(2, 3, 2), m.channels_last_3d)
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        G.nn.utils.convert_conv3d_weight_memory_format(G.nn.Conv3d(2, 3, 2), G.channels_last)
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        torch.nn.utils.convert_conv3d_weight_memory_format(torch.nn.Conv3d(2, 3, 2),
                                                           torch.channels_last)
    from gradrs.nn.utils import memory_format

    assert sorted(memory_format.__all__) == sorted(torch.nn.utils.memory_format.__all__)


def _resize_cases(m):
    def base():
        return m.arange(24.0).reshape(2, 3, 2, 2)

    return {
        "channels_last": lambda: base().resize_(2, 3, 2, 2, memory_format=m.channels_last),
        "grow": lambda: base().resize_(2, 3, 3, 3, memory_format=m.channels_last),
        "list": lambda: base().resize_([2, 3, 2, 2], memory_format=m.channels_last),
        "shrink": lambda: base().resize_(1, 3, 2, 2, memory_format=m.channels_last),
        "rank": lambda: base().resize_(2, 12, memory_format=m.channels_last),
        "preserve": lambda: base().resize_(2, 3, 2, 2, memory_format=m.preserve_format),
        "contiguous": lambda: base().contiguous(memory_format=m.channels_last).resize_(
            2, 3, 2, 2, memory_format=m.contiguous_format),
        "3d": lambda: m.zeros(2, 3, 2, 2, 2).resize_(2, 3, 2, 2, 2,
                                                     memory_format=m.channels_last_3d),
        "3d rank": lambda: m.zeros(2, 3, 2, 2).resize_(2, 3, 2, 2,
                                                       memory_format=m.channels_last_3d),
        "not a format": lambda: base().resize_(2, 3, 2, 2, memory_format=3),
        "as_": lambda: base().resize_as_(base(), memory_format=m.channels_last),
        "as_ preserve": lambda: base().resize_as_(
            base().contiguous(memory_format=m.channels_last), memory_format=m.preserve_format),
        "as_ bad": lambda: base().resize_as_(base(), memory_format="x"),
        "none": lambda: base().resize_(4, 6),
        "top level": lambda: m.resize_as_(base(), base(), memory_format=m.channels_last),
        "top level rank": lambda: m.resize_as_(m.zeros(1), m.ones(2, 3),
                                               memory_format=m.channels_last),
        "top level plain": lambda: m.resize_as_(m.zeros(1), m.ones(2, 3)),
    }


def test_resize_memory_format_as_torch(torch):
    ours, theirs = _resize_cases(G), _resize_cases(torch)
    for name in ours:
        try:
            t = theirs[name]()
        except Exception as e:  # noqa: BLE001 - the same error expected
            with pytest.raises(type(e)) as got:
                ours[name]()
            assert str(got.value) == str(e).replace("torch.", "gradrs."), name
            continue
        o = ours[name]()
        assert o.shape == t.shape and o.stride() == t.stride(), (name, o.stride(), t.stride())
        n = min(o.numel(), 24)  # past the first 24 the grown storage is uninitialized
        if name not in ("grow", "top level plain"):  # grown storage: uninitialized
            np.testing.assert_array_equal(o.numpy().reshape(-1)[:n], t.numpy().reshape(-1)[:n])
