"""The GPU device model: gradrs.gpu / gradrs.cuda queries, transfers both ways, device-aware
repr, numpy and item, mixed-device errors, dtype rules, memory returning to the pool, a
training loop whose losses match the CPU's, and the no-adapter path (forced with
GRADRS_GPU_DISABLE in a fresh interpreter). The op table runs every op on the GPU in
test_ops.py; this file covers what is about devices rather than ops."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import gradrs
import numpy as np
import pytest

HAS_GPU = gradrs.gpu.is_available()
needs_gpu = pytest.mark.skipif(
    not HAS_GPU, reason="no Vulkan/Metal/DX12 adapter (install mesa-vulkan-drivers for lavapipe)")


def test_cuda_is_an_alias_of_gpu():
    assert gradrs.cuda.is_available is gradrs.gpu.is_available
    assert gradrs.cuda.is_available() == gradrs.gpu.is_available()
    assert isinstance(gradrs.gpu.is_available(), bool)
    # torch.cuda's names that CUDA programs call
    for name in ("is_available", "device_count", "current_device", "synchronize", "manual_seed",
                 "manual_seed_all", "memory_allocated", "max_memory_allocated",
                 "reset_peak_memory_stats", "empty_cache", "get_device_name"):
        assert getattr(gradrs.cuda, name) is getattr(gradrs.gpu, name)


@needs_gpu
def test_peak_memory():
    gradrs.cuda.synchronize()
    gradrs.cuda.reset_peak_memory_stats()
    base = gradrs.cuda.memory_allocated()
    assert gradrs.cuda.max_memory_allocated() == base
    x = gradrs.ones(1 << 20, device="cuda")
    y = x * 2
    peak = gradrs.cuda.max_memory_allocated()
    assert peak >= base + 2 * 4 * (1 << 20)
    assert peak >= gradrs.cuda.memory_allocated()
    del x, y
    gradrs.cuda.synchronize()
    assert gradrs.cuda.max_memory_allocated() == peak  # a peak stays after the memory goes
    gradrs.cuda.reset_peak_memory_stats()
    assert gradrs.cuda.max_memory_allocated() == gradrs.cuda.memory_allocated() < peak


@needs_gpu
def test_cuda_spelling_everywhere():
    g = gradrs.device("gpu:0")
    x = gradrs.ones(2)
    for moved in (x.to("cuda"), x.to("cuda:0"), x.to(device="cuda"), x.cuda(),
                  gradrs.zeros(2, device="cuda"), gradrs.tensor([1.0], device="cuda:0")):
        assert moved.device == g and moved.is_cuda
        assert repr(moved.device) == "device(type='gpu', index=0)"
    assert gradrs.Generator(device="cuda").device == gradrs.Generator(device="gpu").device == g
    with gradrs.autocast(device_type="cuda"):
        assert (gradrs.ones(2, 2, device="cuda") @ gradrs.ones(2, 2, device="cuda")).dtype \
            == gradrs.float16
    with gradrs.autocast(device_type="gpu"):
        assert (gradrs.ones(2, 2, device="gpu") @ gradrs.ones(2, 2, device="gpu")).dtype \
            == gradrs.float16


@needs_gpu
def test_queries_on_the_adapter():
    name = gradrs.gpu.device_name()
    assert isinstance(name, str) and name
    assert gradrs.cuda.get_device_name(0) == name
    assert gradrs.gpu.device_count() == 1
    gradrs.gpu.synchronize()
    gradrs.gpu.empty_cache()
    assert gradrs.gpu.memory_reserved() >= gradrs.gpu.memory_allocated() >= 0


def test_device_objects():
    # "cuda" is an alias of "gpu" normalized at construction (DESIGN.md section 5): equal
    # devices, one hash, the repr says gpu; no adapter needed.
    for spelling in ("gpu", "gpu:0", "cuda", "cuda:0"):
        d = gradrs.device(spelling)
        index = 0 if ":" in spelling else None
        assert (d.type, d.index) == ("gpu", index)
        assert str(d) == ("gpu:0" if index == 0 else "gpu")
        assert repr(d) == ("device(type='gpu', index=0)" if index == 0 else "device(type='gpu')")
        assert d == gradrs.device("gpu:0" if index == 0 else "gpu")
    assert gradrs.device("cuda", 0) == gradrs.device("gpu:0") == gradrs.device(gradrs.device("cuda:0"))
    assert hash(gradrs.device("cuda")) == hash(gradrs.device("gpu"))
    assert {gradrs.device("cuda:0"), gradrs.device("gpu:0")} == {gradrs.device("gpu:0")}
    assert gradrs.device("cuda") != gradrs.device("cpu")
    assert str(gradrs.device("gpu:0")) == "gpu:0"
    assert gradrs.device("cpu") == gradrs.device("cpu")
    assert gradrs.zeros(2).device == gradrs.device("cpu")
    assert not gradrs.zeros(2).is_cuda and gradrs.zeros(2).is_cpu


@needs_gpu
@pytest.mark.parametrize("spelling", ["gpu", "gpu:0", "cuda", "cuda:0", 0])
def test_creation_on_the_gpu(spelling):
    x = gradrs.ones(2, 3, device=spelling)
    assert x.device == gradrs.device("gpu:0") == gradrs.device("cuda:0")
    assert str(x.device) == "gpu:0"
    assert x.is_cuda and not x.is_cpu
    assert x.cpu().tolist() == [[1.0] * 3] * 2


@needs_gpu
def test_every_factory_takes_device():
    g = gradrs.device("gpu:0")
    made = [
        gradrs.zeros(2, device=g), gradrs.ones(2, device=g), gradrs.full((2,), 3.0, device=g),
        gradrs.empty(2, device=g), gradrs.rand(2, device=g), gradrs.randn(2, device=g),
        gradrs.arange(3.0, device=g), gradrs.linspace(0, 1, 3, device=g),
        gradrs.eye(2, device=g), gradrs.tensor([1.0, 2.0], device=g),
        gradrs.as_tensor([1.0], device=g), gradrs.randint(0, 5, (3,), device=g),
        gradrs.zeros_like(gradrs.ones(2), device=g),
    ]
    for t in made:
        assert t.device == g, t
    base = gradrs.ones(2, device=g)
    for t in (gradrs.zeros_like(base), gradrs.ones_like(base), gradrs.randn_like(base),
              gradrs.full_like(base, 2.0), base.new_zeros(3), base.new_ones(3),
              base.new_tensor([1.0])):
        assert t.device == g, t


@needs_gpu
def test_transfers_both_ways_keep_values_and_dtypes():
    a = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    x = gradrs.tensor(a)
    for moved in (x.gpu(), x.cuda(), x.to("gpu"), x.to(gradrs.device("cuda:0")),
                  x.to(gradrs.ones(1, device="gpu"))):
        assert moved.device.type == "gpu"
        back = moved.cpu()
        assert back.device.type == "cpu" and back.dtype == gradrs.float32
        np.testing.assert_array_equal(back.numpy(), a)
    i = gradrs.tensor([[1, -2], [3, 2**31 - 1]]).gpu()
    assert i.dtype == gradrs.int64 and i.cpu().tolist() == [[1, -2], [3, 2**31 - 1]]
    b = gradrs.tensor([True, False]).cuda()
    assert b.dtype == gradrs.bool and b.cpu().tolist() == [True, False]
    # .to() with a dtype and a device at once; moving to where a tensor already is is a no-op.
    y = x.to("gpu", gradrs.int64)
    assert y.device.type == "gpu" and y.dtype == gradrs.int64
    g = x.gpu()
    assert g.gpu() is g and g.to("gpu") is g and x.cpu() is x
    # A strided view moves as its values.
    np.testing.assert_array_equal(x.t()[1:, ::2].gpu().cpu().numpy(), a.T[1:, ::2])


@needs_gpu
def test_repr_names_the_device():
    x = gradrs.tensor([1.0, 2.5], device="gpu")
    assert repr(x) == "tensor([1.0000, 2.5000], device='gpu:0')"
    y = gradrs.tensor([1.0, 2.0], device="gpu", requires_grad=True) * 2
    assert repr(y) == "tensor([2., 4.], device='gpu:0', grad_fn=<MulBackward0>)"
    assert repr(gradrs.tensor([1, 2], device="gpu")) == "tensor([1, 2], device='gpu:0')"


@needs_gpu
def test_numpy_item_and_tolist():
    x = gradrs.tensor([[1.5, 2.0]], device="gpu")
    with pytest.raises(TypeError, match=r"^can't convert gpu:0 device type tensor to numpy\. "
                                        r"Use Tensor\.cpu\(\) to copy the tensor to host memory "
                                        r"first\.$"):
        x.numpy()
    with pytest.raises(TypeError, match="can't convert gpu:0 device type tensor to numpy"):
        np.asarray(x)
    np.testing.assert_array_equal(x.numpy(force=True), [[1.5, 2.0]])
    assert x.sum().item() == 3.5
    assert x.tolist() == [[1.5, 2.0]]
    assert float(x[0, 0]) == 1.5


@needs_gpu
def test_mixed_devices_raise_pytorchs_error():
    g = gradrs.ones(3, device="gpu")
    c = gradrs.ones(3)
    msg = r"^Expected all tensors to be on the same device, but found at least two devices, "
    for f in (lambda: g + c, lambda: c * g, lambda: gradrs.cat([g, c]),
              lambda: gradrs.where(c > 0, g, g), lambda: gradrs.stack([c, g])):
        with pytest.raises(RuntimeError, match=msg):
            f()
    # A 0-dim CPU tensor joins a GPU op, as in PyTorch.
    assert (g * gradrs.tensor(2.0)).device.type == "gpu"
    assert (g * 2).cpu().tolist() == [2.0, 2.0, 2.0]


def _wrapper_msg(arg, dev, common, method):
    """The device check of PyTorch's generated CUDA wrappers (any GPU tensor in a call
    dispatches there; each tensor argument must be on the first one's device)."""
    return (f"Expected all tensors to be on the same device, but got {arg} is on {dev}, different "
            f"from other tensors on {common} (when checking argument in method "
            f"wrapper_CUDA_{method})")


def _mixed_cases():
    G, C = "gpu:0", "cpu"
    F = gradrs.nn.functional

    def g(*s):
        return gradrs.ones(*s, device="gpu")

    def c(*s):
        return gradrs.ones(*s)

    def idx(dev):
        return gradrs.tensor([0, 1], device=dev)

    def grad_of(out, grad):
        return lambda: out().backward(grad)

    def wrapper(arg, dev, common, method):
        return RuntimeError, _wrapper_msg(arg, dev, common, method)

    return {
        "nll_loss target": (lambda: F.nll_loss(g(2, 3), idx("cpu")),
                            *wrapper("target", C, G, "nll_loss_forward")),
        "cross_entropy target": (lambda: F.cross_entropy(g(2, 3), idx("cpu")),
                                 *wrapper("target", C, G, "nll_loss_forward")),
        "cross_entropy 3-D target": (lambda: F.cross_entropy(g(2, 3, 4), c(2, 4).long()),
                                     *wrapper("target", C, G, "_nll_loss2d_forward")),
        "nll_loss weight": (lambda: F.nll_loss(g(2, 3), idx("gpu"), weight=c(3)),
                            *wrapper("weight", C, G, "nll_loss_forward")),
        "gather": (lambda: g(3).gather(0, idx("cpu")), *wrapper("index", C, G, "gather")),
        "gather cpu self": (lambda: c(3).gather(0, idx("gpu")), *wrapper("index", G, C, "gather")),
        "take_along_dim": (lambda: gradrs.take_along_dim(g(3), idx("cpu")),
                           *wrapper("index", C, G, "gather")),
        "index_select": (lambda: g(3).index_select(0, idx("cpu")),
                         *wrapper("index", C, G, "_index_select")),
        "embedding": (lambda: F.embedding(idx("cpu"), g(3, 2)),
                      *wrapper("index", C, G, "_index_select")),
        "embedding cpu weight": (lambda: F.embedding(idx("gpu"), c(3, 2)),
                                 *wrapper("index", G, C, "_index_select")),
        "scatter value": (lambda: g(3).scatter(0, idx("cpu"), 1.0),
                          *wrapper("index", C, G, "scatter_value")),
        "scatter src": (lambda: g(3).scatter(0, idx("gpu"), c(2)),
                        *wrapper("src", C, G, "scatter_src")),
        "scatter_ src": (lambda: g(3).scatter_(0, idx("gpu"), c(2)),
                         *wrapper("src", C, G, "scatter__src")),
        "scatter_add": (lambda: g(3).scatter_add(0, idx("gpu"), c(2)),
                        *wrapper("src", C, G, "scatter_add")),
        "scatter_add_": (lambda: g(3).scatter_add_(0, idx("cpu"), g(2)),
                         *wrapper("index", C, G, "scatter_add_")),
        "index_add": (lambda: g(3).index_add(0, idx("gpu"), c(2)),
                      *wrapper("source", C, G, "index_add")),
        "index_add_": (lambda: g(3).index_add_(0, idx("cpu"), g(2)),
                       *wrapper("index", C, G, "index_add_")),
        "mm": (lambda: g(2, 3) @ c(3, 2), *wrapper("mat2", C, G, "mm")),
        "1-D @ 2-D": (lambda: g(3) @ c(3, 2), *wrapper("mat2", C, G, "mm")),
        "bmm": (lambda: gradrs.bmm(c(1, 2, 3), g(1, 3, 2)), *wrapper("mat2", G, C, "bmm")),
        "mv": (lambda: g(2, 3) @ c(3), *wrapper("mat", G, C, "addmv_")),
        "dot": (lambda: g(3) @ c(3), *wrapper("tensor", C, G, "_dot")),
        "addmm": (lambda: gradrs.addmm(c(2), g(2, 2), g(2, 2)), *wrapper("mat1", G, C, "addmm")),
        "linear bias": (lambda: F.linear(g(2, 2), g(2, 2), c(2)), *wrapper("mat1", G, C, "addmm")),
        "linear weight": (lambda: F.linear(g(2, 2), c(2, 2)), *wrapper("mat2", C, G, "mm")),
        "conv weight": (lambda: F.conv2d(g(1, 1, 3, 3), c(1, 1, 2, 2)), RuntimeError,
                        "Input type (gradrs.cuda.FloatTensor) and weight type (gradrs.FloatTensor) "
                        "should be the same"),
        "conv bias": (lambda: F.conv2d(g(1, 1, 3, 3), g(1, 1, 2, 2), c(1)), RuntimeError,
                      "Input type (gradrs.cuda.FloatTensor) and bias type (gradrs.FloatTensor) "
                      "should be the same"),
        "getitem gpu index, cpu self": (lambda: c(3)[idx("gpu")], IndexError,
                                        "indices should be either on cpu or on the same device "
                                        "as the indexed tensor (cpu)"),
        "setitem gpu mask, cpu self": (lambda: c(2).__setitem__(idx("gpu") > 0, 1.0), IndexError,
                                       "indices should be either on cpu or on the same device "
                                       "as the indexed tensor (cpu)"),
        "backward cpu gradient": (grad_of(lambda: g(3).requires_grad_() * 2, c(3)), RuntimeError,
                                  "invalid gradient at index 0 - expected device gpu:0 but got "
                                  "cpu"),
    }


@needs_gpu
@pytest.mark.parametrize("name", sorted(_mixed_cases()))
def test_mixed_device_calls_raise_the_kernels_error(name):
    fn, exc, msg = _mixed_cases()[name]
    with pytest.raises(exc) as e:
        fn()
    assert str(e.value) == msg


@needs_gpu
def test_mixed_devices_pytorch_accepts():
    g = gradrs.arange(6.0, device="gpu").reshape(2, 3)
    # CPU index tensors and masks index a GPU tensor (PyTorch moves them).
    assert g[gradrs.tensor([1, 0])].cpu().tolist() == [[3, 4, 5], [0, 1, 2]]
    assert g[gradrs.tensor([True, False])].device.type == "gpu"
    g[gradrs.tensor([0])] = 5.0
    g[gradrs.tensor([False, True]), 1] = 7.0
    assert g.cpu().tolist() == [[5, 5, 5], [3, 7, 5]]
    g.copy_(gradrs.zeros(2, 3))
    assert g.device.type == "gpu" and g.cpu().sum().item() == 0
    # A 0-dim gradient moves to the output's device.
    x = gradrs.ones(3, device="gpu", requires_grad=True)
    (x * 2).sum().backward(gradrs.tensor(3.0))
    assert x.grad.device.type == "gpu" and x.grad.cpu().tolist() == [6.0, 6.0, 6.0]


@needs_gpu
def test_dtypes_on_the_gpu():
    with pytest.raises(TypeError, match="float64"):
        gradrs.ones(2, dtype=gradrs.float64, device="gpu")
    with pytest.raises(TypeError, match="float64"):
        gradrs.ones(2, dtype=gradrs.float64).gpu()
    with pytest.raises(TypeError, match="float64"):
        gradrs.ones(2, device="gpu").double()
    # int64 values past int32 live in the host copy (as those an op computes, below): exact,
    # and an index past the tensor raises PyTorch's IndexError, not a narrowing error.
    assert gradrs.tensor([1, 2**31]).gpu().cpu().tolist() == [1, 2**31]
    big = gradrs.tensor([-(2**31) - 1, 2**40], device="gpu")
    assert (big + 1).cpu().tolist() == [-(2**31), 2**40 + 1]
    with pytest.raises(IndexError, match="index 1099511627776 is out of bounds"):
        gradrs.arange(6.0, device="gpu")[gradrs.tensor([2**40], device="gpu")]


# int64 values an op computes past int32's range on the GPU: the GPU's int32 words cannot hold
# them, so they stay in the host copy and every later op on them is exact (kernels that would
# upload them, cast floats to int64 or add int64s atomically leave it to the host).
BIG_INT64_OPS = {
    "mul": lambda g, d: g.tensor([2**30, 5, -7], device=d) * 4,
    "float": lambda g, d: (g.tensor([2**30, 5, -7], device=d) * 4).float(),
    "where": lambda g, d: (lambda x: g.where(x > 0, x, 0))(g.tensor([2**30, 5, -7], device=d) * 4),
    "where_number": lambda g, d: g.where(g.tensor([True, False], device=d),
                                         g.tensor([1, 2], device=d), 2**40),
    "gather": lambda g, d: (g.tensor([2**30, 5, -7], device=d) * 4).gather(
        0, g.tensor([2, 0], device=d)),
    "getitem": lambda g, d: (g.tensor([2**30, 5, -7], device=d) * 4)[g.tensor([1, 0], device=d)],
    "mask": lambda g, d: (lambda x: x[x > 0])(g.tensor([2**30, 5, -7], device=d) * 4),
    "cat": lambda g, d: g.cat([g.tensor([2**30, 5], device=d) * 4, g.tensor([1], device=d)]),
    "stack": lambda g, d: g.stack([g.tensor([2**30, 5], device=d) * 4] * 2),
    "roll": lambda g, d: (g.tensor([2**30, 5, -7], device=d) * 4).roll(1),
    "setitem": lambda g, d: (lambda z: (z.__setitem__(g.tensor([0], device=d),
                                                       g.tensor([2**30], device=d) * 4), z)[1])(
        g.zeros(2, dtype=g.int64, device=d)),
    "scatter": lambda g, d: g.zeros(3, dtype=g.int64, device=d).scatter(
        0, g.tensor([2, 0], device=d), g.tensor([2**30, 5], device=d) * 4),
    "scatter_add": lambda g, d: g.zeros(3, dtype=g.int64, device=d).scatter_add(
        0, g.tensor([0, 0, 1], device=d), g.tensor([2**30] * 3, device=d)),
    "index_add": lambda g, d: g.zeros(3, dtype=g.int64, device=d).index_add(
        0, g.tensor([0, 0, 1], device=d), g.tensor([2**30] * 3, device=d)),
    "long": lambda g, d: g.tensor([3e9, -3e9, 2.5], device=d).long(),
    "copy_": lambda g, d: g.zeros(2, dtype=g.int64, device=d).copy_(
        g.tensor([3e9, 1.0], device=d)),
    "fill_": lambda g, d: g.zeros(2, dtype=g.int64, device=d).fill_(2**40),
    "masked_fill": lambda g, d: g.zeros(2, dtype=g.int64, device=d).masked_fill(
        g.tensor([True, False], device=d), 2**40),
    "slice_setitem": lambda g, d: (lambda z: (z.__setitem__(slice(0, 1), 2**40), z + 1)[1])(
        g.zeros(2, dtype=g.int64, device=d)),
    "sum": lambda g, d: (g.tensor([2**30, 5, -7], device=d) * 4).sum(),
    "cumsum": lambda g, d: g.tensor([2**30] * 3, device=d).cumsum(0),
}


@needs_gpu
@pytest.mark.parametrize("name", sorted(BIG_INT64_OPS))
def test_int64_results_past_int32_stay_exact_on_the_gpu(name):
    op = BIG_INT64_OPS[name]
    cpu, gpu = op(gradrs, "cpu"), op(gradrs, "gpu")
    assert gpu.device.type == "gpu" and gpu.dtype == cpu.dtype
    assert gpu.tolist() == cpu.tolist()


@needs_gpu
def test_backward_runs_on_the_gpu_and_grads_live_there():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 4)).astype(np.float32)
    w = rng.standard_normal((4, 2)).astype(np.float32)
    grads = {}
    for dev in ("cpu", "gpu"):
        x = gradrs.tensor(a, device=dev, requires_grad=True)
        m = gradrs.tensor(w, device=dev, requires_grad=True)
        loss = ((x @ m).tanh() * 2 + x.sum(1, keepdim=True)).exp().mean()
        loss.backward()
        assert x.grad.device.type == dev and m.grad.device.type == dev
        grads[dev] = (loss.item(), x.grad.cpu().numpy(), m.grad.cpu().numpy())
    assert grads["gpu"][0] == pytest.approx(grads["cpu"][0], rel=1e-5)
    np.testing.assert_allclose(grads["gpu"][1], grads["cpu"][1], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(grads["gpu"][2], grads["cpu"][2], rtol=1e-4, atol=1e-5)


@needs_gpu
def test_moving_to_the_gpu_is_differentiable():
    x = gradrs.tensor([1.0, 2.0], requires_grad=True)
    y = x.gpu()
    assert y.grad_fn.name() == "ToCopyBackward0"
    (y * y).sum().backward()
    assert x.grad.device.type == "cpu" and x.grad.tolist() == [2.0, 4.0]


@needs_gpu
def test_memory_returns_to_the_pool():
    gradrs.gpu.synchronize()
    gradrs.gpu.empty_cache()
    base = gradrs.gpu.memory_allocated()
    x = gradrs.ones(1 << 20, device="gpu")
    y = (x * 2).exp()
    gradrs.gpu.synchronize()
    assert gradrs.gpu.memory_allocated() >= base + 2 * (4 << 20)
    del x, y
    gradrs.gpu.synchronize()
    assert gradrs.gpu.memory_allocated() == base
    # Freed buffers stay cached until asked for, then go back to the driver.
    assert gradrs.gpu.memory_reserved() >= base + (4 << 20)
    gradrs.gpu.empty_cache()
    assert gradrs.gpu.memory_reserved() == gradrs.gpu.memory_allocated() == base


@needs_gpu
def test_a_training_loop_matches_the_cpu():
    import gradrs.nn.functional as F

    rng = np.random.default_rng(2)
    xs = rng.standard_normal((64, 10)).astype(np.float32)
    ys = rng.integers(0, 3, 64)
    w1 = (rng.standard_normal((10, 16)) * 0.3).astype(np.float32)
    w2 = (rng.standard_normal((16, 3)) * 0.3).astype(np.float32)
    losses = {}
    for dev in ("cpu", "cuda"):
        x, y = gradrs.tensor(xs, device=dev), gradrs.tensor(ys, device=dev)
        p1 = gradrs.tensor(w1, device=dev, requires_grad=True)
        p2 = gradrs.tensor(w2, device=dev, requires_grad=True)
        b1 = gradrs.zeros(16, device=dev, requires_grad=True)
        run = []
        for _ in range(20):
            loss = F.cross_entropy(F.relu(x @ p1 + b1) @ p2, y)
            loss.backward()
            with gradrs.no_grad():
                for p in (p1, p2, b1):
                    p -= 0.5 * p.grad
                    p.grad.zero_()
            run.append(loss.item())
        assert p1.device.type == ("cpu" if dev == "cpu" else "gpu")
        losses[dev] = run
    assert losses["cuda"][-1] < losses["cuda"][0] * 0.8
    np.testing.assert_allclose(losses["cuda"], losses["cpu"], rtol=1e-4, atol=1e-5)


@needs_gpu
def test_a_training_step_stays_on_the_gpu():
    """Forward, cross-entropy, backward, gradient accumulation and the in-place SGD update run
    as shaders: nothing is read back but the loss, and nothing uploaded but nll_loss's mask and
    weights of the target entries (built on the host from the targets, as its index list)."""
    import gradrs.nn.functional as F

    gradrs.manual_seed(0)
    x = gradrs.randn(32, 20, device="gpu")
    y = gradrs.randint(0, 5, (32,), device="gpu")
    w1 = (gradrs.randn(16, 20, device="gpu") * 0.2).requires_grad_()
    b1 = gradrs.zeros(16, device="gpu", requires_grad=True)
    w2 = (gradrs.randn(5, 16, device="gpu") * 0.2).requires_grad_()
    params = (w1, b1, w2)

    def step():
        loss = F.cross_entropy(F.linear(F.relu(F.linear(x, w1, b1)), w2), y)
        loss.backward()
        with gradrs.no_grad():
            for p in params:
                p -= 0.1 * p.grad
                p.grad.zero_()
        return loss

    step()  # the first step uploads the inputs and parameters
    down0, up0 = gradrs.gpu.transfer_counts()
    losses = [step() for _ in range(3)]
    down1, up1 = gradrs.gpu.transfer_counts()
    assert down1 - down0 == 0
    assert up1 - up0 <= 2 * 3
    values = [loss.item() for loss in losses]
    assert gradrs.gpu.transfer_counts()[0] - down1 == 3
    assert values[-1] < values[0]


@needs_gpu
def test_copies_casts_and_masks_run_on_the_gpu():
    x = gradrs.randn(3, 4, device="gpu") * 3  # a kernel's output: on the GPU only
    down = gradrs.gpu.transfer_counts()[0]
    t = x.t().contiguous()
    # float32 -> int64 is left out: a value past int32 needs the host (see BIG_INT64_OPS).
    i = x.to(gradrs.int32)
    m = x > 0
    f = m.float()
    ml = m.long()
    w = gradrs.where(m, x, -x)
    flipped = x.flip(1).contiguous()
    c = x.clone()
    c[:, 1] = 7.0
    c[0] += 1
    assert gradrs.gpu.transfer_counts()[0] == down
    xs = x.cpu().numpy()
    np.testing.assert_array_equal(t.cpu().numpy(), xs.T)
    np.testing.assert_array_equal(i.cpu().numpy(), np.trunc(xs).astype(np.int32))
    np.testing.assert_array_equal(ml.cpu().numpy(), (xs > 0).astype(np.int64))
    assert m.dtype == gradrs.bool and m.device.type == "gpu"
    np.testing.assert_array_equal(m.cpu().numpy(), xs > 0)
    np.testing.assert_array_equal(f.cpu().numpy(), (xs > 0).astype(np.float32))
    np.testing.assert_array_equal(w.cpu().numpy(), np.abs(xs))
    np.testing.assert_array_equal(flipped.cpu().numpy(), xs[:, ::-1])
    expect = xs.copy()
    expect[:, 1] = 7.0
    expect[0] += 1
    np.testing.assert_array_equal(c.cpu().numpy(), expect)
    nan = gradrs.tensor([float("nan"), 1.0], device="gpu") * 1
    assert (nan != nan).tolist() == [True, False]
    assert (nan == nan).tolist() == [False, True]


def test_activations_clamps_and_binary_ops_run_on_the_gpu():
    """Forward and backward of the parametric activations, clamps and the rounding/modulo,
    logical and lerp ops read nothing back; values match the CPU's."""
    import gradrs.nn.functional as F

    cpu = gradrs.randn(5, 6) * 3
    cpu.requires_grad_(True)
    x = (cpu.detach().to("gpu") * 1).requires_grad_(True)  # GPU-resident leaf
    y = (cpu.detach().to("gpu") * 0.5 + 0.25)
    ycpu = y.cpu()

    def run(t, u):
        outs = [
            t.clamp(-1, 2), t.clamp(min=0.5), F.relu6(t), F.hardtanh(t, -0.5, 0.5),
            F.leaky_relu(t, 0.2), F.elu(t, 1.3), F.softplus(t, 2.0, 5.0), F.silu(t),
            F.gelu(t), F.gelu(t, approximate="tanh"), t.erf(), gradrs.nan_to_num(t / 0.0),
            gradrs.maximum(t, u), gradrs.minimum(t, u), gradrs.atan2(t, u),
            gradrs.fmod(t, u), gradrs.remainder(t, u), gradrs.div(t, u, rounding_mode="floor"),
            gradrs.div(t, u, rounding_mode="trunc"), gradrs.lerp(t, u, 0.3),
            gradrs.lerp(t, u, u), t.round(decimals=1),
            gradrs.logical_and(t > 0, u), gradrs.logical_or(t, u > 1),
            gradrs.logical_xor(t > 0, u > 0), gradrs.logical_not(t > 0),
        ]
        return outs

    down = gradrs.gpu.transfer_counts()[0]
    outs = run(x, y)
    total = sum(o.float().sum() for o in outs[:21] if o.requires_grad)
    total.backward()
    assert gradrs.gpu.transfer_counts()[0] == down
    want = run(cpu, ycpu)
    sum(o.float().sum() for o in want[:21] if o.requires_grad).backward()
    for got, exp in zip(outs, want):
        assert got.device.type == "gpu" and got.dtype == exp.dtype
        np.testing.assert_allclose(got.detach().cpu().numpy(), exp.detach().numpy(),
                                   rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(x.grad.cpu().numpy(), cpu.grad.numpy(), rtol=1e-4, atol=1e-5)
# float16 elementwise ops on the GPU: the kernel reads the float32 words the GPU holds halves
# in and rounds each result to half itself, so each op is one dispatch (before: a widening copy,
# the op and a narrowing copy). (name, op, exact): exact ops must equal the CPU's float16
# result bit for bit (both compute in float32 and round once); the transcendental ones may
# differ by the float32 ulp the driver's functions are allowed before rounding.
HALF_OPS = [
    ("mul_number", lambda x, y: x * 1.0004, True),  # the number keeps float32 precision
    ("add", lambda x, y: x + y, True),
    ("sub_broadcast", lambda x, y: x - y[0], True),
    ("div", lambda x, y: x / y, True),
    ("overflow", lambda x, y: x * 40000.0, True),  # past 65504: inf
    ("subnormal", lambda x, y: x * 1e-5, True),  # halves below 2^-14
    ("strided", lambda x, y: x.t() * y.t(), True),
    ("maximum", lambda x, y: gradrs.maximum(x, y), True),
    ("fmod", lambda x, y: gradrs.fmod(x, y), True),
    ("floor_div", lambda x, y: gradrs.div(x, y, rounding_mode="floor"), True),
    ("lt", lambda x, y: x < y, True),
    ("eq_number", lambda x, y: x == 0.1, True),  # 0.1 rounds to half first, as on the CPU
    ("clamp", lambda x, y: x.clamp(-0.3, 0.7), True),
    ("relu", lambda x, y: gradrs.relu(x), True),
    ("leaky_relu", lambda x, y: gradrs.nn.functional.leaky_relu(x, 0.1), True),
    ("floor", lambda x, y: x.floor(), True),
    ("nan_to_num", lambda x, y: gradrs.nan_to_num(x), True),  # inf -> half's max
    ("exp", lambda x, y: x.exp(), False),
    ("sigmoid", lambda x, y: x.sigmoid(), False),
    ("atan2", lambda x, y: gradrs.atan2(x, y), False),
]


@needs_gpu
@pytest.mark.parametrize("name, fn, exact", HALF_OPS, ids=[c[0] for c in HALF_OPS])
def test_float16_elementwise_ops_are_one_kernel(name, fn, exact):
    from gradrs import _native

    rng = np.random.default_rng(3)
    xs = rng.uniform(-3, 3, (6, 5)).astype(np.float16)
    xs[0, :3] = [0.0, 0.1, -0.0]
    xs[1, :3] = [np.inf, -np.inf, np.nan]
    ys = rng.uniform(0.5, 2, (6, 5)).astype(np.float16)
    x, y = gradrs.tensor(xs, device="gpu") * 1, gradrs.tensor(ys, device="gpu") * 1
    fn(x, y)  # compiles the pipeline
    gradrs.gpu.synchronize()
    d0, down = _native._gpu_dispatch_count(), gradrs.gpu.transfer_counts()[0]
    got = fn(x, y)
    assert _native._gpu_dispatch_count() - d0 == 1
    assert gradrs.gpu.transfer_counts()[0] == down
    want = fn(gradrs.tensor(xs), gradrs.tensor(ys))
    assert got.dtype == want.dtype and got.device.type == "gpu"
    g, w = got.cpu().numpy(), want.numpy()
    if exact:
        np.testing.assert_array_equal(g, w)
    else:
        np.testing.assert_allclose(g, w, rtol=1e-3, atol=1e-4)


@needs_gpu
def test_float16_read_in_place_is_not_shared_with_results():
    """The kernels read a float16 tensor's words as float32 without a copy; what the user gets
    back (a cast, a reduction) is still its own memory, and in-place writes stay consistent."""
    x = gradrs.tensor([1.0, 2.0, 3.0], dtype=gradrs.float16, device="gpu") * 1
    f = x.float()
    f.add_(1)
    assert x.tolist() == [1.0, 2.0, 3.0]
    assert x.sum().item() == 6.0
    x.mul_(2)
    assert x.sum().item() == 12.0 and f.tolist() == [2.0, 3.0, 4.0]
    assert (x @ x).item() == 56.0


@needs_gpu
def test_indexing_runs_on_the_gpu():
    rng = np.random.default_rng(0)

    def host(t):
        return t.detach().cpu().numpy()

    xs = rng.standard_normal((6, 5)).astype(np.float32)
    x = gradrs.tensor(xs, device="gpu").requires_grad_()
    xr = x * 1  # a kernel's output: on the GPU only
    # Index tensors built on the host: their values are read there (bounds checks) for free.
    gi = gradrs.tensor([[4, 0], [1, 1], [3, 2], [0, 0], [2, 4], [1, 3]], device="gpu")
    si = gradrs.tensor([2, 0, 5, 2, -1], device="gpu")
    rows = gradrs.tensor([0, 5, 5], device="gpu")
    src = gradrs.tensor(rng.standard_normal((3, 5)).astype(np.float32), device="gpu") * 1
    down = gradrs.gpu.transfer_counts()[0]
    g = xr.gather(1, gi)
    sel = xr.index_select(0, si[:4])
    tk = gradrs.take_along_dim(xr, gi, 1)
    sa = xr.scatter_add(0, gradrs.tensor([[0] * 5, [5] * 5, [0] * 5], device="gpu"), src)
    ia = xr.index_add(0, rows, src, alpha=2)
    sc = xr.scatter(1, gi, -1.0)
    adv = xr[si, 1:]
    m = xr > 0  # a mask computed on the GPU: compacted there, its count read back
    ms = xr.masked_select(m)
    nz = m.nonzero()
    put = xr.detach().clone()
    put[rows, gradrs.tensor([1, 2, 3], device="gpu")] = gradrs.tensor([7.0, 8.0, 9.0], device="gpu") * 1
    (g.sum() + sel.sum() + (adv * 2).sum()).backward()
    assert gradrs.gpu.transfer_counts()[0] == down
    gx = np.zeros_like(xs)
    np.add.at(gx, (np.arange(6)[:, None], host(gi)), 1.0)
    np.add.at(gx, [2, 0, 5, 2], 1.0)
    np.add.at(gx[:, 1:], [2, 0, 5, 2, 5], 2.0)
    np.testing.assert_allclose(host(x.grad), gx, rtol=1e-6)
    idx = host(gi)
    np.testing.assert_array_equal(host(g), np.take_along_axis(xs, idx, 1))
    np.testing.assert_array_equal(host(tk), np.take_along_axis(xs, idx, 1))
    np.testing.assert_array_equal(host(sel), xs[[2, 0, 5, 2]])
    np.testing.assert_array_equal(host(adv), xs[[2, 0, 5, 2, -1], 1:])
    s = host(src)
    want = xs.copy()
    want[0] += s[0] + s[2]
    want[5] += s[1]
    np.testing.assert_allclose(host(sa), want, rtol=1e-6)
    want = xs.copy()
    np.add.at(want, [0, 5, 5], 2 * s)
    np.testing.assert_allclose(host(ia), want, rtol=1e-6)
    want = xs.copy()
    np.put_along_axis(want, idx, -1.0, 1)
    np.testing.assert_array_equal(host(sc), want)
    np.testing.assert_array_equal(host(ms), xs[xs > 0])
    np.testing.assert_array_equal(host(nz), np.argwhere(xs > 0))
    assert nz.dtype == gradrs.int64 and nz.device.type == "gpu"
    want = xs.copy()
    want[[0, 5, 5], [1, 2, 3]] = [7.0, 8.0, 9.0]
    np.testing.assert_array_equal(host(put), want)
    np.testing.assert_array_equal(host(xr[m]), xs[xs > 0])
    # Out-of-range indices still raise PyTorch's errors, and nothing is written.
    with pytest.raises(RuntimeError, match="index 5 is out of bounds for dimension 1 with size 5"):
        xr.gather(1, gi + 1)
    with pytest.raises(IndexError, match="index out of range in self"):
        xr.index_select(0, gradrs.tensor([6], device="gpu"))
    with pytest.raises(RuntimeError, match="index 6 is out of bounds"):
        xr.scatter_add(0, gradrs.tensor([[6]], device="gpu"), src)
    np.testing.assert_array_equal(xr.detach().cpu().numpy(), xs)


@needs_gpu
def test_scatter_add_accumulates_duplicates_on_the_gpu():
    # Many float adds into few slots: the shader's compare-exchange loop under contention.
    rng = np.random.default_rng(1)
    n, k = 20000, 7
    vals = rng.standard_normal(n).astype(np.float32)
    idx = rng.integers(0, k, n)
    out = gradrs.zeros(k, device="gpu").scatter_add(
        0, gradrs.tensor(idx, device="gpu"), gradrs.tensor(vals, device="gpu"))
    want = np.zeros(k, np.float64)
    np.add.at(want, idx, vals.astype(np.float64))
    np.testing.assert_allclose(out.cpu().numpy(), want, rtol=1e-4, atol=1e-3)
    ints = gradrs.zeros(k, dtype=gradrs.int64, device="gpu").index_add_(
        0, gradrs.tensor(idx, device="gpu"), gradrs.ones(n, dtype=gradrs.int64, device="gpu"))
    np.testing.assert_array_equal(ints.cpu().numpy(), np.bincount(idx, minlength=k))


def test_convolutions_and_pools_run_on_the_gpu():
    """conv2d (stride, padding, dilation, groups, "same"), avg / adaptive pooling: im2col and
    col2im are shaders, so forward and backward read nothing back; values and gradients
    match the CPU's. max_pool2d matches too (its gather checks the window indices on the
    host, one read-back)."""
    import gradrs.nn.functional as F

    def run(dev, pools):
        gradrs.manual_seed(0)
        x, w, b = gradrs.randn(2, 4, 9, 8), gradrs.randn(6, 2, 3, 3), gradrs.randn(6)
        x, w, b = ((t.to(dev) * 1).requires_grad_(True) for t in (x, w, b))
        outs = [
            F.conv2d(x, w, b, stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2),
            F.conv2d(x, w[:, :, :2], None, padding="same", groups=2),
            F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
            F.adaptive_avg_pool2d(x, (3, 2)),
        ] + ([F.max_pool2d(x, 3, 2, 1)] if pools else [])
        sum((o * o).sum() for o in outs).backward()
        return [o.detach().cpu().numpy() for o in outs] + [
            t.grad.cpu().numpy() for t in (x, w, b)]

    want = run("cpu", 1)
    down = gradrs.gpu.transfer_counts()[0]
    run("gpu", 0)
    assert gradrs.gpu.transfer_counts()[0] == down + 7  # the copies to numpy alone
    for got, exp in zip(run("gpu", 1), want):
        np.testing.assert_allclose(got, exp, rtol=1e-4, atol=2e-4)


def test_no_adapter_path():
    code = textwrap.dedent(
        """
        import gradrs
        assert gradrs.gpu.is_available() is False
        assert gradrs.cuda.is_available() is False
        assert gradrs.gpu.device_count() == 0
        assert gradrs.gpu.memory_allocated() == 0
        assert gradrs.gpu.memory_reserved() == 0
        gradrs.gpu.empty_cache()
        calls = [gradrs.gpu.device_name, gradrs.gpu.synchronize,
                 lambda: gradrs.zeros(2, device="gpu"), lambda: gradrs.ones(2).cuda(),
                 lambda: gradrs.tensor([1.0]).to("cuda:0")]
        for f in calls:
            try:
                f()
            except RuntimeError as e:
                assert "no Vulkan/Metal/DX12 adapter found" in str(e), e
                assert "mesa-vulkan-drivers" in str(e), e
            else:
                raise AssertionError(f"{f} did not raise")
        # The device object itself needs no adapter, as torch.device("cuda") needs no GPU.
        assert str(gradrs.device("cuda")) == "gpu"
        assert gradrs.cuda.memory_allocated() == gradrs.cuda.max_memory_allocated() == 0
        gradrs.cuda.reset_peak_memory_stats()
        # The CPU path is untouched.
        assert (gradrs.ones(3) * 2).sum().item() == 6.0
        print("ok")
        """
    )
    env = dict(os.environ, GRADRS_GPU_DISABLE="1")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"


# Names of the software adapters wgpu reports as DeviceType::Cpu (lavapipe, SwiftShader, WARP).
SOFTWARE_ADAPTERS = ("llvmpipe", "SwiftShader", "Microsoft Basic Render Driver")


def _adapter_report(allow):
    """What a fresh interpreter sees with GRADRS_GPU_ALLOW_SOFTWARE unset (None) or `allow`."""
    code = textwrap.dedent(
        """
        import gradrs
        ok = gradrs.cuda.is_available()
        assert gradrs.gpu.is_available() is ok and gradrs.accelerator.is_available() is ok
        assert gradrs.cuda.device_count() == int(ok)
        try:
            gradrs.ones(1, device="cuda")
            print("ok", gradrs.gpu.device_name())
        except RuntimeError as e:
            assert not ok
            print("error", e)
        """
    )
    env = {k: v for k, v in os.environ.items()
           if k not in ("GRADRS_GPU_ALLOW_SOFTWARE", "GRADRS_GPU_DISABLE")}
    if allow is not None:
        env["GRADRS_GPU_ALLOW_SOFTWARE"] = allow
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip().split(" ", 1)


def test_software_adapter_only_with_opt_in():
    """A software adapter is no GPU unless GRADRS_GPU_ALLOW_SOFTWARE=1: programs read
    cuda.is_available() as "fast hardware", as on a PyTorch CPU build. A hardware adapter
    counts either way."""
    status, name = _adapter_report("1")
    if status != "ok":
        pytest.skip(f"no adapter at all: {name}")
    software = any(s in name for s in SOFTWARE_ADAPTERS)
    for allow in (None, "0"):
        got = _adapter_report(allow)
        if not software:
            assert got == ["ok", name]
            continue
        assert got[0] == "error", got
        assert got[1].startswith("no Vulkan/Metal/DX12 adapter found"), got[1]
        assert "GRADRS_GPU_ALLOW_SOFTWARE=1" in got[1], got[1]
        assert f"only the software adapter '{name.rsplit(' (', 1)[0]}'" in got[1], got[1]


# (shape, dim, descending, dtype, dispatches): one dispatch for lines of up to 1024 elements
# (the sort kernel's shared-memory block), more for longer ones (a bitonic network's steps).
SORT_CASES = [
    ((6, 5), 1, False, "float32", 1),
    ((6, 5), 0, True, "float32", 1),
    ((3, 1024), 1, True, "float32", 1),
    # a first pass, then per stage past 1024 its steps of width >= 1024 and a last pass
    ((2, 3000), 1, False, "float32", 1 + (1 + 1) + (2 + 1)),
    ((5000, 2), 0, True, "float32", 1 + (1 + 1) + (2 + 1) + (3 + 1)),
    ((70000, 3), 1, False, "float32", 1),
    ((40, 7), 0, False, "int64", 1),
    ((9, 33), 1, True, "int32", 1),
    ((8, 9), 1, False, "float16", 1),
    ((4, 9), 1, True, "bool", 1),
]


@needs_gpu
@pytest.mark.parametrize("shape, dim, descending, dtype, kernels", SORT_CASES,
                         ids=["x".join(map(str, c[0])) + f"-{c[1]}-{c[3]}" for c in SORT_CASES])
def test_sort_runs_on_the_gpu(shape, dim, descending, dtype, kernels):
    """Sorting is a stable bitonic network on the GPU: the same values and indices as the
    host's stable sort (ties, NaN and -0 included), without a read-back."""
    from gradrs import _native

    rng = np.random.default_rng(len(shape) + shape[0])
    xs = rng.integers(-4, 5, shape) if dtype in ("int64", "int32") else (
        rng.random(shape) < 0.5 if dtype == "bool" else rng.standard_normal(shape))
    if dtype.startswith("float"):
        xs.flat[::7] = 0.5  # ties
        xs.flat[1::11] = np.nan
        xs.flat[2::13] = -0.0
    host = gradrs.tensor(xs, dtype=getattr(gradrs, dtype))
    x = host.to("gpu")
    x.sort(dim, descending)  # compiles the pipelines
    gradrs.gpu.synchronize()
    d0, down = _native._gpu_dispatch_count(), gradrs.gpu.transfer_counts()[0]
    values, indices = x.sort(dim, descending)
    assert _native._gpu_dispatch_count() - d0 == kernels
    assert gradrs.gpu.transfer_counts()[0] == down
    want_v, want_i = host.sort(dim, descending)
    assert values.device.type == "gpu" and values.dtype == host.dtype
    np.testing.assert_array_equal(values.cpu().numpy(), want_v.numpy())
    np.testing.assert_array_equal(indices.cpu().numpy(), want_i.numpy())
    try:
        import torch
    except ImportError:
        return
    else:
        # The host's order is PyTorch's stable one.
        tv, ti = torch.sort(torch.tensor(xs).to(getattr(torch, dtype)), dim=dim,
                            descending=descending, stable=True)
        np.testing.assert_array_equal(want_i.numpy(), ti.numpy())
        np.testing.assert_array_equal(want_v.numpy(), tv.numpy())
