"""`Tensor.is_contiguous(memory_format=...)`, `Tensor.to(..., memory_format=...)` and
`Module.to(memory_format=...)` (the channels_last recipe: `model.to(memory_format=
torch.channels_last)`, `x.to(memory_format=torch.channels_last)`), vs torch: strides, identity,
values, errors."""

from __future__ import annotations

import pytest
from conftest import check, check_error

LAYOUTS = {
    "nchw": lambda m: m.arange(120.).view(2, 3, 4, 5),
    "channels_last": lambda m: m.arange(120.).view(2, 3, 4, 5).contiguous(
        memory_format=m.channels_last),
    "nhwc permuted": lambda m: m.arange(120.).view(2, 4, 5, 3).permute(0, 3, 1, 2),
    "sliced channels_last": lambda m: m.arange(240.).view(2, 3, 8, 5).contiguous(
        memory_format=m.channels_last)[:, :, ::2],
    "N111": lambda m: m.ones(3, 1, 1, 1),
    "1C11": lambda m: m.ones(1, 3, 1, 1),
    "N1H1 channels_last": lambda m: m.ones(2, 1, 4, 1).contiguous(memory_format=m.channels_last),
    "5-D": lambda m: m.arange(240.).view(2, 3, 2, 4, 5),
    "5-D channels_last_3d": lambda m: m.arange(240.).view(2, 3, 2, 4, 5).contiguous(
        memory_format=m.channels_last_3d),
    "3-D": lambda m: m.ones(2, 3, 4),
    "transposed": lambda m: m.ones(3, 4).t(),
}
FORMATS = ["contiguous_format", "channels_last", "channels_last_3d", "preserve_format"]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("inp", sorted(LAYOUTS))
def test_is_contiguous_in_format(inp, fmt):
    check(lambda m: LAYOUTS[inp](m).is_contiguous(memory_format=getattr(m, fmt)))


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("inp", sorted(LAYOUTS))
def test_to_memory_format(inp, fmt):
    def run(m):
        x = LAYOUTS[inp](m)
        y = x.to(memory_format=getattr(m, fmt))
        return y, y.stride(), y is x
    if fmt in ("channels_last", "channels_last_3d") and not (
            (fmt == "channels_last") == ("5-D" not in inp)) or (
            fmt.startswith("channels") and inp in ("3-D", "transposed")):
        check_error(lambda m: LAYOUTS[inp](m).to(memory_format=getattr(m, fmt)))
    else:
        check(run)


def test_to_memory_format_with_dtype_device_copy():
    def run(m):
        x = m.arange(120.).view(2, 3, 4, 5)
        a = x.to(m.float64, memory_format=m.channels_last)
        b = x.to("cpu", memory_format=m.channels_last)
        c = x.to(x, memory_format=m.channels_last)
        d = x.to(memory_format=m.channels_last, copy=True)
        e = d.to(memory_format=m.channels_last, copy=True)
        return [(t, t.dtype, t.stride()) for t in (a, b, c, d, e)] + [e is d]
    check(run)


def test_to_memory_format_gradient():
    def run(m):
        x = m.arange(120.).view(2, 3, 4, 5).requires_grad_()
        y = x.to(memory_format=m.channels_last)
        (y * m.arange(120.).view(2, 3, 4, 5)).sum().backward()
        return y.stride(), x.grad, x.grad.stride()
    check(run)


def test_memory_format_argument_errors():
    check_error(lambda m: m.ones(2).is_contiguous(memory_format=1))
    check_error(lambda m: m.ones(2).is_contiguous(foo=1))
    check_error(lambda m: m.ones(2).is_contiguous(m.contiguous_format))
    check_error(lambda m: m.ones(2).to(memory_format=1))
    check_error(lambda m: m.nn.Linear(2, 2).to(memory_format=1))
    check_error(lambda m: m.nn.Linear(2, 2).to("cpu", memory_format="channels_last"))


def test_module_to_channels_last():
    def run(m):
        m.manual_seed(0)
        model = m.nn.Sequential(m.nn.Conv2d(3, 4, 3), m.nn.BatchNorm2d(4), m.nn.Flatten(),
                                m.nn.LazyLinear(2) if False else m.nn.Linear(4 * 3 * 3, 2))
        weight = model[0].weight
        same = model.to(memory_format=m.channels_last) is model
        model.to(m.float64, memory_format=m.channels_last)
        return (same, model[0].weight is weight, model[0].weight.dtype,
                [(n, p.stride()) for n, p in model.named_parameters()],
                [(n, b.stride()) for n, b in model.named_buffers()],
                model[0].weight.is_contiguous(memory_format=m.channels_last),
                model(m.ones(2, 3, 5, 5, dtype=m.float64).to(memory_format=m.channels_last)))
    check(run)


def test_empty_memory_format():
    def run(m):
        a = m.empty(2, 3, 4, 5, memory_format=m.channels_last)
        b = m.empty((2, 3, 4, 5), memory_format=m.channels_last, dtype=m.float64,
                    requires_grad=True)
        c = m.empty(1, 2, 3, 4, 5, memory_format=m.channels_last_3d)
        d = m.empty(2, 3, 4, 5, memory_format=m.contiguous_format)
        return [(t.shape, t.stride(), t.dtype, t.requires_grad) for t in (a, b, c, d)]
    check(run)
    check_error(lambda m: m.empty(2, 3, memory_format=m.channels_last))
    check_error(lambda m: m.empty(2, 3, 4, 5, memory_format=m.preserve_format))
    check_error(lambda m: m.empty(2, 3, 4, 5, memory_format=1))
