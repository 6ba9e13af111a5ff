"""Training-script glue: backends flags, determinism, matmul precision, accelerator, compile,
autocast and GradScaler, compared with PyTorch where PyTorch (a CPU build) can run the same
thing, and with PyTorch's documented behaviour where it cannot (CUDA autocast on the GPU).
"""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest

from conftest import (
    G,
    SELFTEST,
    check,
    check_error,
    check_warning,
    graph_tree,
    norm,
    need_torch,
    norm_g,
    record_warnings,
)

pytestmark = pytest.mark.skipif(SELFTEST, reason="compares gradrs's glue with torch's")

HAVE_GPU = not SELFTEST and G.gpu.is_available()
needs_gpu = pytest.mark.skipif(not HAVE_GPU, reason="no GPU adapter")


def observe(fn):
    """What `fn()` does: ('ok', value) or (exception class name, normalised message)."""
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001 - the outcome is what is compared
        return (type(e).__name__, norm_g(str(e)))


def same_outcomes(scenario, torch):
    """Run `scenario(module, observe)` on gradrs and torch; both outcome lists must agree."""
    got = [observe_norm(o, False) for o in scenario(G)]
    want = [observe_norm(o, True) for o in scenario(torch)]
    assert got == want


def observe_norm(outcome, is_torch):
    kind, value = outcome
    if kind == "ok":
        return kind, value
    return kind, norm(value) if is_torch else value


# ---------------------------------------------------------------------------------------------
# global flags: each test leaves both libraries at their defaults
# ---------------------------------------------------------------------------------------------

_FP32_DEFAULTS = {("generic", "all"): "none", ("cuda", "all"): "none", ("cuda", "matmul"): "none",
                  ("cuda", "conv"): "tf32", ("cuda", "rnn"): "tf32", ("mkldnn", "all"): "none",
                  ("mkldnn", "matmul"): "none", ("mkldnn", "conv"): "none",
                  ("mkldnn", "rnn"): "none"}


def _reset_gradrs():
    c = G.backends._context
    c._deterministic = c._deterministic_warn_only = False
    c._matmul_precision = "highest"
    c._allow_tf32_cudnn = True
    c._fp32.update(_FP32_DEFAULTS)
    c._flags.update(cudnn_enabled=True, cudnn_benchmark=False, cudnn_deterministic=False,
                    mkldnn_enabled=True, mkldnn_deterministic=False)
    G.backends.cuda._reductions.update(fp16=(True, True), bf16=(True, True))
    G.backends.cuda._sdp.update(flash=True, mem_efficient=True, math=True, cudnn=True)


def _reset_torch(torch):
    C = torch._C
    C._set_float32_matmul_precision("highest")
    C._set_cudnn_allow_tf32(True)
    for (backend, op), value in _FP32_DEFAULTS.items():
        C._set_fp32_precision_setter(backend, op, value)
    C._set_deterministic_algorithms(False)
    C._set_cudnn_enabled(True)
    C._set_cudnn_benchmark(False)
    C._set_cudnn_deterministic(False)
    C._set_mkldnn_enabled(True)
    C._set_mkldnn_deterministic(False)
    C._set_cublas_allow_fp16_reduced_precision_reduction(True, True)
    C._set_cublas_allow_bf16_reduced_precision_reduction(True, True)
    for kind in ("flash", "mem_efficient", "math", "cudnn"):
        getattr(torch.backends.cuda, f"enable_{kind}_sdp")(True)


@pytest.fixture
def flags(torch):
    _reset_gradrs()
    _reset_torch(torch)
    yield torch
    _reset_gradrs()
    _reset_torch(torch)


def _defaults(M):
    b = M.backends
    return [observe(f) for f in (
        lambda: b.cudnn.enabled, lambda: b.cudnn.benchmark, lambda: b.cudnn.deterministic,
        lambda: b.cudnn.allow_tf32, lambda: b.cudnn.is_available(), lambda: b.cudnn.version(),
        lambda: b.cudnn.fp32_precision, lambda: b.cudnn.conv.fp32_precision,
        lambda: b.cudnn.rnn.fp32_precision, lambda: b.cudnn.benchmark_limit,
        lambda: b.cuda.matmul.allow_tf32, lambda: b.cuda.matmul.fp32_precision,
        lambda: b.cuda.matmul.allow_fp16_reduced_precision_reduction,
        lambda: b.cuda.matmul.allow_bf16_reduced_precision_reduction_split_k,
        lambda: b.cuda.matmul.allow_fp16_accumulation,
        lambda: b.cuda.flash_sdp_enabled(), lambda: b.cuda.math_sdp_enabled(),
        lambda: b.mps.is_available(), lambda: b.mps.is_built(), lambda: b.fp32_precision,
        lambda: b.mkldnn.enabled, lambda: b.mkldnn.deterministic,
        lambda: b.mkldnn.matmul.fp32_precision,
        lambda: M.get_float32_matmul_precision(), lambda: M.are_deterministic_algorithms_enabled(),
        lambda: M.is_deterministic_algorithms_warn_only_enabled(),
        lambda: M.get_deterministic_debug_mode(),
        lambda: b.cuda.matmul.foo,
    )]


def test_backend_defaults(flags):
    same_outcomes(_defaults, flags)


def test_what_gradrs_is_built_with():
    b = G.backends
    # gradrs.cuda is the wgpu GPU backend; no cuDNN, MPS, oneDNN, MKL or OpenMP inside.
    assert b.cuda.is_built() is True
    assert (b.cudnn.is_available(), b.mps.is_built(), b.mkldnn.is_available(),
            b.mkl.is_available(), b.openmp.is_available()) == (False,) * 5


def _matmul_precision(M):
    b = M.backends

    def state():
        return (b.cuda.matmul.allow_tf32, M.get_float32_matmul_precision(),
                b.cuda.matmul.fp32_precision, b.mkldnn.matmul.fp32_precision)

    steps = [state]
    for p in ("high", "medium", "highest", "HIGH", "Medium"):
        steps += [lambda p=p: M.set_float32_matmul_precision(p), state]
    steps += [
        lambda: setattr(b.cuda.matmul, "allow_tf32", True), state,
        lambda: setattr(b.cuda.matmul, "allow_tf32", False), state,
        lambda: M.set_float32_matmul_precision(3),
        lambda: setattr(b.cuda.matmul, "allow_tf32", 1),
        lambda: setattr(b.cuda.matmul, "foo", 1),
        lambda: setattr(b.cuda.matmul, "fp32_precision", "bf16"),
        lambda: setattr(b.cuda.matmul, "fp32_precision", "xx"),
        lambda: setattr(b.cuda.matmul, "allow_fp16_reduced_precision_reduction", (False, False)),
        lambda: (b.cuda.matmul.allow_fp16_reduced_precision_reduction,
                 b.cuda.matmul.allow_fp16_reduced_precision_reduction_split_k),
        lambda: setattr(b.cuda.matmul, "allow_fp16_reduced_precision_reduction", (True, False)),
        lambda: setattr(b.cuda.matmul, "allow_bf16_reduced_precision_reduction", 1),
        lambda: setattr(b.cuda.matmul, "allow_bf16_reduced_precision_reduction", []),
        lambda: setattr(b.cuda.matmul, "allow_bf16_reduced_precision_reduction", (True, 1)),
        lambda: setattr(b.cuda.matmul, "allow_fp16_accumulation", 1),
        # the new API, then the legacy getters that cannot tell (PyTorch's "mix" errors)
        lambda: setattr(b.cuda.matmul, "fp32_precision", "tf32"),
        lambda: b.cuda.matmul.allow_tf32,
        M.get_float32_matmul_precision,
        lambda: M.set_float32_matmul_precision("medium"),
        lambda: setattr(b.cuda.matmul, "allow_tf32", False),
        M.get_float32_matmul_precision,
        lambda: setattr(b, "fp32_precision", "bf16"),
        lambda: b.cudnn.conv.fp32_precision,
        lambda: setattr(b.cudnn, "fp32_precision", "bf16"),
    ]
    return [observe(s) for s in steps]


@pytest.mark.filterwarnings("ignore:.* is not one of 'highest', 'high', or 'medium'")
def test_float32_matmul_precision_and_tf32_flags(flags):
    same_outcomes(_matmul_precision, flags)


def test_invalid_matmul_precision_warns_and_has_no_effect(flags):
    def fn(M):
        M.set_float32_matmul_precision("high")
        M.set_float32_matmul_precision("fast")
        return M.get_float32_matmul_precision()

    (rg, wg), (rt, wt) = record_warnings(lambda: fn(G)), record_warnings(lambda: fn(flags))
    assert rg == rt == "high"
    assert [(c, norm_g(m)) for c, m in wg] == [(c, norm(m)) for c, m in wt]


def _cudnn_flags(M):
    c = M.backends.cudnn

    def state():
        return (c.enabled, c.benchmark, c.deterministic, c.allow_tf32, c.conv.fp32_precision,
                c.rnn.fp32_precision)

    steps = [
        lambda: setattr(c, "benchmark", True), lambda: setattr(c, "deterministic", True), state,
        lambda: setattr(c, "benchmark", 1), lambda: setattr(c, "deterministic", None),
        lambda: setattr(c, "enabled", 0), lambda: setattr(c, "allow_tf32", "yes"),
        lambda: setattr(c, "allow_tf32", False), state,
        lambda: setattr(c, "allow_tf32", True), state,
        lambda: setattr(c.conv, "fp32_precision", "ieee"),
        lambda: c.allow_tf32,  # conv and rnn disagree now: PyTorch's "mix" error
        lambda: setattr(c.conv, "foo", 1),
        lambda: setattr(c, "allow_tf32", True),
    ]

    def in_flags():
        with c.flags(enabled=False, benchmark=True, deterministic=True, allow_tf32=False):
            inside = state()
        return inside, state()

    steps += [in_flags, lambda: c.set_flags(True, False, None, False),
              lambda: setattr(c, "depthwise_kernel", "native"), lambda: c.depthwise_kernel,
              lambda: setattr(c, "depthwise_kernel", "x"),
              lambda: setattr(c, "depthwise_kernel", 1),
              lambda: setattr(c, "depthwise_kernel", "auto")]
    steps += [lambda: setattr(M.backends.mkldnn, "enabled", 1),
              lambda: setattr(M.backends.mkldnn, "deterministic", True),
              lambda: M.backends.mkldnn.deterministic,
              lambda: M.backends.mkldnn.allow_tf32,
              lambda: setattr(M.backends.mkldnn, "allow_tf32", 1),
              lambda: M.backends.mkldnn.set_flags(True),
              lambda: setattr(M.backends.mkldnn, "fp32_precision", "tf32"),
              lambda: (M.backends.fp32_precision, M.backends.mkldnn.fp32_precision,
                       M.backends.cudnn.fp32_precision)]
    steps += [lambda: M.backends.cuda.enable_flash_sdp(False), M.backends.cuda.flash_sdp_enabled,
              lambda: M.backends.cuda.enable_mem_efficient_sdp(1),
              lambda: M.backends.cuda.enable_cudnn_sdp(1)]
    return [observe(s) for s in steps]


def test_cudnn_mkldnn_and_sdp_flags(flags):
    same_outcomes(_cudnn_flags, flags)


def test_cudnn_is_acceptable():
    assert G.backends.cudnn.is_acceptable(G.ones(2)) is False
    if HAVE_GPU:
        _, warned = record_warnings(lambda: G.backends.cudnn.is_acceptable(G.ones(2).cuda()))
        assert warned == [("UserWarning", "PyTorch was compiled without cuDNN/MIOpen support. "
                           "To use cuDNN/MIOpen, rebuild PyTorch making sure the library is "
                           "visible to the build system.")]


def _determinism(M):
    steps = [
        lambda: M.use_deterministic_algorithms(True),
        lambda: (M.are_deterministic_algorithms_enabled(),
                 M.is_deterministic_algorithms_warn_only_enabled(),
                 M.get_deterministic_debug_mode()),
        lambda: M.use_deterministic_algorithms(True, warn_only=True),
        lambda: (M.are_deterministic_algorithms_enabled(),
                 M.is_deterministic_algorithms_warn_only_enabled(),
                 M.get_deterministic_debug_mode()),
        lambda: M.use_deterministic_algorithms(1),
        lambda: M.use_deterministic_algorithms("x"),
        lambda: M.use_deterministic_algorithms(True, warn_only=1),
        lambda: M.use_deterministic_algorithms(True, False),
        lambda: M.set_deterministic_debug_mode("error"), M.get_deterministic_debug_mode,
        lambda: M.set_deterministic_debug_mode(0), M.are_deterministic_algorithms_enabled,
        lambda: M.set_deterministic_debug_mode("x"),
        lambda: M.set_deterministic_debug_mode(5),
        lambda: M.set_deterministic_debug_mode(1.0),
    ]
    return [observe(s) for s in steps]


def test_use_deterministic_algorithms(flags):
    same_outcomes(_determinism, flags)


# ---------------------------------------------------------------------------------------------
# accelerator and gradrs.cuda additions
# ---------------------------------------------------------------------------------------------


def test_accelerator():
    a = G.accelerator
    assert a.current_accelerator() == G.device("gpu")
    assert a.current_accelerator().index is None
    assert a.is_available() == G.gpu.is_available()
    assert a.device_count() == (1 if HAVE_GPU else 0)
    if HAVE_GPU:
        assert a.current_accelerator(check_available=True) == G.device("gpu")
        assert a.current_device_index() == 0
        a.synchronize()
        a.synchronize("cuda")
        a.synchronize(G.device("gpu:0"))
        a.set_device_index(0)
        with a.device_index(0):
            pass
        with pytest.raises(ValueError, match="cpu doesn't match the current accelerator gpu."):
            a.synchronize("cpu")
        with pytest.raises(ValueError, match="Expected a gradrs.device with a specified index"):
            a.set_device_index("gpu")
        with pytest.raises(RuntimeError, match="device index 1 is out of range"):
            a.set_device_index(1)
    else:
        assert a.current_accelerator(check_available=True) is None
        with pytest.raises(RuntimeError, match="Cannot access accelerator device when none"):
            a.current_device_index()


def test_accelerator_without_a_gpu_matches_a_cpu_torch(torch, monkeypatch):
    monkeypatch.setattr(G.gpu, "is_available", lambda: False)
    assert G.accelerator.is_available() is torch.accelerator.is_available() is False
    assert G.accelerator.current_accelerator(check_available=True) is None
    assert torch.accelerator.current_accelerator(check_available=True) is None
    assert G.accelerator.device_count() == torch.accelerator.device_count() == 0
    check_error(lambda M: M.accelerator.current_device_index())


def test_cuda_seeding_and_device():
    assert G.cuda.manual_seed_all is G.gpu.manual_seed_all
    G.manual_seed(5)
    cpu_draw = G.rand(3).tolist()
    G.manual_seed(5)
    G.cuda.manual_seed_all(5)  # the same seed again: the same stream
    assert G.rand(3).tolist() == cpu_draw
    if HAVE_GPU:
        G.cuda.manual_seed(11)
        a = G.rand(4, device="cuda").tolist()
        G.cuda.manual_seed(11)
        assert G.rand(4, device="cuda").tolist() == a
        assert G.cuda.current_device() == 0
        assert G.cuda.initial_seed() == 11
        G.cuda.set_device(0)
        with pytest.raises(RuntimeError, match="invalid device ordinal 1"):
            G.cuda.set_device(1)


def test_bf16_is_not_supported():
    # gradrs's GPU holds no bfloat16 (the CPU does): programs choosing an autocast dtype this
    # way pick float16
    assert G.cuda.is_bf16_supported() is False
    assert G.cuda.is_bf16_supported(including_emulation=False) is False


def test_non_blocking_is_accepted():
    x = G.ones(2)
    assert x.to("cpu", non_blocking=True).tolist() == [1.0, 1.0]
    assert x.to(G.float64, True).dtype == G.float64
    if HAVE_GPU:
        assert x.cuda(non_blocking=True).to("cpu", non_blocking=True).tolist() == [1.0, 1.0]


@needs_gpu
def test_pin_memory_copies_and_marks_the_memory():
    x = G.arange(6.0).reshape(2, 3)
    y = x.pin_memory()
    assert y.tolist() == x.tolist() and y.data_ptr() != x.data_ptr()
    assert (y.is_pinned(), x.is_pinned()) == (True, False)
    assert y[1].is_pinned() and y.t().is_pinned() and y.detach().is_pinned()
    assert not y.clone().is_pinned()
    assert y.pin_memory() is y
    assert y.to("cuda", non_blocking=True).cpu().tolist() == x.tolist()
    assert not y.cuda().is_pinned()
    with pytest.raises(RuntimeError, match=r"^cannot pin 'gradrs.cuda.FloatTensor' only dense CPU "
                       r"tensors can be pinned$"):
        y.cuda().pin_memory()
    w = G.ones(2, requires_grad=True)
    w.pin_memory().sum().backward()
    assert w.grad.tolist() == [1.0, 1.0]


def test_pin_memory_needs_the_accelerator_as_in_pytorch(torch, monkeypatch):
    monkeypatch.setattr(G.gpu, "is_available", lambda: False)
    check_error(lambda M: M.ones(2).pin_memory())
    assert G.ones(2).is_pinned() is torch.ones(2).is_pinned() is False
    check_warning(lambda M: M.ones(2).is_pinned("cuda"))


# ---------------------------------------------------------------------------------------------
# compile
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", """
    compile amp.autocast.__init__ amp.GradScaler.__init__ amp.GradScaler.scale
    amp.GradScaler.step amp.GradScaler.update amp.GradScaler.unscale_ amp.is_autocast_available
    accelerator.current_accelerator accelerator.synchronize accelerator.set_device_index
    accelerator.device_count accelerator.is_available use_deterministic_algorithms
    set_float32_matmul_precision set_deterministic_debug_mode backends.cudnn.flags
    backends.cudnn.set_flags backends.mkldnn.flags backends.mkldnn.set_flags cuda.manual_seed
    cuda.manual_seed_all cuda.is_bf16_supported cuda.set_device cuda.current_device
    cuda.amp.GradScaler.__init__ backends.cuda.enable_flash_sdp
""".split())
def test_signatures_are_pytorchs(torch, path):
    import inspect

    def params(module):
        obj = module
        for name in path.split("."):
            obj = getattr(obj, name)
        return [(p.name, p.kind, p.default) for p in inspect.signature(obj).parameters.values()]

    assert params(G) == params(torch)


def test_compile_returns_the_model_to_run_eagerly():
    def f(x):
        return x * 2

    assert G.compile(f) is f
    assert G.compile(f, backend="eager", fullgraph=True, dynamic=False) is f
    assert G.compile(f, mode="max-autotune") is f
    assert G.compile(f, options={"triton.cudagraphs": False}) is f
    assert G.compile(f, backend=lambda gm, inputs: gm) is f
    assert G.compile(f, name="f", recompile_limit=2, isolate_recompiles=True) is f
    assert G.compile()(f) is f
    assert G.compile(mode="reduce-overhead")(f) is f

    @G.compile
    def g(x):
        return x + 1

    @G.compile(backend="eager")
    def h(x):
        return x - 1

    assert g(G.ones(1)).item() == 2.0 and h(G.ones(1)).item() == 0.0
    assert g.__name__ == "g"


def test_compile_errors_are_pytorchs():
    # PyTorch's messages (importing torch._dynamo to compare live takes seconds).
    def f(x):
        return x

    with pytest.raises(RuntimeError, match=r"^Either mode or options can be specified, but "
                       r"both can't be specified at the same time.$"):
        G.compile(f, mode="default", options={})
    with pytest.raises(RuntimeError, match=r"^Unrecognized mode=bogus, should be one of: default, "
                       r"lite, reduce-overhead, max-autotune-no-cudagraphs, max-autotune$"):
        G.compile(f, mode="bogus")
    with pytest.raises(RuntimeError, match=r"^Invalid backend: 'bogus', see "):
        G.compile(f, backend="bogus")
    with pytest.raises(RuntimeError, match=r"^Model can't be None$"):
        G.compile()(None)
    with pytest.raises(AssertionError, match=r"^A callable function is expected, but "
                       r"<class 'int'> is provided.$"):
        G.compile(3, backend="eager")


# ---------------------------------------------------------------------------------------------
# autocast
# ---------------------------------------------------------------------------------------------


def _cpu_autocast_dtypes(M):
    F = M.nn.functional
    a = M.ones(3, 3)
    h = a.half()
    w = M.ones(3, 3, requires_grad=True)
    t = M.tensor([0, 1, 2])
    with M.autocast("cpu", dtype=M.float16):
        enabled = (M.is_autocast_enabled("cpu"), M.is_autocast_enabled())
        out = [
            a @ w, M.mm(a, a), M.matmul(a, a), a.mm(a), M.bmm(a[None], a[None]),
            M.addmm(a, a, a), F.linear(a, w), F.linear(a, w, M.ones(3)),
            F.conv2d(a[None, None], a[None, None]), F.conv1d(a[None], a[None]),
            a.exp(), h.exp(), h.sum(), a.double() @ a.double(), h.prod(),
            F.mse_loss(h, h), F.l1_loss(h, h), F.cross_entropy(h, t), F.nll_loss(h, t),
            F.binary_cross_entropy(h.sigmoid(), h.sigmoid()),
            F.binary_cross_entropy_with_logits(h, h), F.softmax(h, 1), F.layer_norm(h, (3,)),
            M.addcmul(h, a, a), M.cat([h, a]), h + a, F.relu(h), a.long().sum(),
            F.kl_div(h, h, reduction="batchmean"), F.smooth_l1_loss(h, h),
            F.huber_loss(h, h),
        ]
        with M.autocast("cpu", enabled=False):
            out.append(a @ a)
        out.append(a @ a)
        y = F.linear(a, w).sum()
    y.backward()
    return enabled, [str(o.dtype) for o in out], str(w.grad.dtype), M.is_autocast_enabled("cpu")


def test_cpu_float16_autocast_casts_as_pytorch(torch):
    eg, dg, gg, after_g = _cpu_autocast_dtypes(G)
    et, dt, gt, after_t = _cpu_autocast_dtypes(torch)
    assert eg == et == (True, False)
    assert [norm_g(d) for d in dg] == [norm(d) for d in dt]
    assert norm_g(gg) == norm(gt) == "gradrs.float32"
    assert after_g is after_t is False


def test_cpu_autocast_values_and_grads_match_pytorch(torch):
    rng = np.random.default_rng(0)
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((4, 5), (3, 5), (3,)))

    def run(M):
        wt = M.tensor(w, requires_grad=True)
        with M.autocast("cpu", dtype=M.float16):
            y = M.nn.functional.linear(M.tensor(x), wt, M.tensor(b))
            loss = (y.float() ** 2).sum()
        loss.backward()
        return y, wt.grad

    (yg, gg), (yt, gt) = run(G), run(torch)
    assert graph_tree(yg.grad_fn) == graph_tree(yt.grad_fn)  # ... ToCopyBackward0, AccumulateGrad
    np.testing.assert_allclose(yg.detach().float().numpy(), yt.detach().float().numpy(),
                               rtol=2e-3, atol=2e-3)
    np.testing.assert_allclose(gg.numpy(), gt.numpy(), rtol=5e-3, atol=5e-3)


def test_out_calls_and_explicit_dtypes_are_not_autocast(torch):
    def run(M):
        a = M.tensor([[1.001, 2.0003], [3.0001, 4.0007]])
        c = M.empty(2, 2)
        with M.autocast("cpu", dtype=M.float16):
            M.mm(a, a, out=c)
            s = a.half().sum(dtype=M.float16)
            p = a.half().prod()
        return c, s, p

    for g, t in zip(run(G), run(torch), strict=True):
        assert str(g.dtype) == norm(str(t.dtype))
        np.testing.assert_array_equal(g.float().numpy(), t.float().numpy())


def test_cpu_autocast_unsupported_dtype_disables():
    # PyTorch's warning for a dtype CPU autocast does not take, and autocast stays off.
    def fn():
        with G.autocast("cpu", dtype=G.float64) as ctx:
            return ctx._enabled, G.is_autocast_enabled("cpu"), (G.ones(2, 2) @ G.ones(2, 2)).dtype

    result, warned = record_warnings(fn)
    assert result == (False, False, G.float32)
    assert warned == [("UserWarning", "In CPU autocast, but the target dtype is not supported. "
                       "Disabling autocast.\nCPU Autocast only supports dtypes of gradrs.bfloat16, "
                       "gradrs.float16 currently.")]


def test_autocast_errors_match_pytorch(torch):
    check_error(lambda M: M.autocast(3))
    check_error(lambda M: M.amp.autocast("cpu", dtype=M.float16)(3))
    check_error(lambda M: M.autocast("foo"))


def test_autocast_as_decorator_and_nesting():
    @G.autocast("cpu", dtype=G.float16)
    def f(a):
        return a @ a, G.is_autocast_enabled("cpu")

    out, inside = f(G.ones(2, 2))
    assert out.dtype == G.float16 and inside is True
    assert G.is_autocast_enabled("cpu") is False
    with G.autocast("cpu", dtype=G.float16):
        with G.autocast("cpu", dtype=G.float16, enabled=False):
            assert not G.is_autocast_enabled("cpu")
        assert G.is_autocast_enabled("cpu")


def test_autocast_cache_flag(torch):
    check_error(lambda M: M.set_autocast_cache_enabled(1))
    for M in (G, torch):
        assert M.is_autocast_cache_enabled() is True
        M.set_autocast_cache_enabled(False)
        with M.autocast("cpu", dtype=M.float16):
            inside = M.is_autocast_cache_enabled()
        with M.autocast("cpu", dtype=M.float16, cache_enabled=True):
            forced = M.is_autocast_cache_enabled()
        M.set_autocast_cache_enabled(True)
        M.clear_autocast_cache()
        assert (inside, forced) == (False, True)


def test_autocast_leaves_no_wrapper_behind():
    before = {n: G.Tensor.__dict__[n] for n in ("__matmul__", "exp", "sum", "mm")}
    linear = G.nn.functional.linear
    with G.autocast("cpu", dtype=G.float16):
        assert G.Tensor.__dict__["mm"] is not before["mm"]
    assert {n: G.Tensor.__dict__[n] for n in before} == before
    assert G.nn.functional.linear is linear
    with pytest.raises(ZeroDivisionError):
        with G.autocast("cpu", dtype=G.float16):
            raise ZeroDivisionError
    assert G.Tensor.__dict__["mm"] is before["mm"]


def test_autocast_is_per_thread():
    a = G.ones(2, 2)
    seen = {}
    entered, release = threading.Event(), threading.Event()

    def other():
        entered.wait()
        seen["dtype"] = (a @ a).dtype  # the main thread is inside autocast meanwhile
        seen["enabled"] = G.is_autocast_enabled("cpu")
        release.set()

    t = threading.Thread(target=other)
    t.start()
    with G.autocast("cpu", dtype=G.float16):
        entered.set()
        release.wait(10)
        assert (a @ a).dtype == G.float16
    t.join()
    assert seen == {"dtype": G.float32, "enabled": False}


def test_parameters_are_cast_once_per_region():
    w = G.ones(3, 3, requires_grad=True)
    x = G.ones(2, 3)
    state = G.amp.autocast_mode._state
    with G.autocast("cpu", dtype=G.float16):
        y1, y2 = G.nn.functional.linear(x, w), G.nn.functional.linear(x, w)
        cached = [entry[0] for entry in state.cache.values()]
        with G.autocast("cpu", dtype=G.float16):  # a nested region shares the cache
            y3 = x @ w
        assert len(state.cache) == 1
    assert cached == [w] and state.cache == {}  # emptied when the outermost region ends
    with G.autocast("cpu", dtype=G.float16, cache_enabled=False):
        y4 = x @ w
        assert state.cache == {}
    (y1 + y2 + y3 + y4).sum().backward()
    assert w.grad.tolist() == [[8.0] * 3] * 3


@needs_gpu
def test_gpu_autocast_follows_pytorchs_cuda_lists():
    F = G.nn.functional
    a = G.ones(3, 3, device="cuda")
    h = a.half()
    t = G.tensor([0, 1, 2], device="cuda")
    with G.autocast("cuda"):
        lower = [a @ a, G.mm(a, a), G.bmm(a[None], a[None]), a.mm(a),
                 F.linear(a, a), F.conv2d(a[None, None], a[None, None]), G.addmm(a, a, a),
                 a.mv(a[0])]
        fp32 = [h.exp(), h.log(), h.sum(), h.softmax(1), F.softmax(h, 1), F.log_softmax(h, 1),
                h.pow(2), h ** 2, 2 ** h, 1 / h, h.prod(), h.cumsum(0), F.mse_loss(h, h),
                F.cross_entropy(h, t), F.layer_norm(h, (3,)), F.softplus(h), h.norm(),
                F.normalize(h), F.binary_cross_entropy_with_logits(h, h)]
        promote = [G.addcmul(h, a, a), h.atan2(a), h[0].dot(a[0]), G.addcdiv(h, h, a)]
        untouched = [a + h, F.relu(h), h.sum(dtype=G.float16)]
        with pytest.raises(RuntimeError, match="binary_cross_entropy and gradrs.nn.BCELoss are "
                           "unsafe to autocast"):
            F.binary_cross_entropy(h.sigmoid(), h.sigmoid())
        assert G.is_autocast_enabled() and G.is_autocast_enabled("cuda")
        cpu_mm = G.ones(2, 2) @ G.ones(2, 2)  # CPU tensors: the GPU region leaves them alone
    assert [o.dtype for o in lower] == [G.float16] * len(lower)
    assert [o.dtype for o in fp32] == [G.float32] * len(fp32)
    assert [o.dtype for o in promote] == [G.float32] * len(promote)
    assert [o.dtype for o in untouched] == [G.float32, G.float16, G.float16]
    assert cpu_mm.dtype == G.float32


@needs_gpu
def test_gpu_autocast_training_step_keeps_float32_master_weights():
    G.manual_seed(0)
    w = G.randn(4, 3, device="cuda").requires_grad_()
    x = G.randn(8, 3, device="cuda")
    with G.autocast("cuda"):
        y = G.nn.functional.linear(x, w)
        loss = G.nn.functional.mse_loss(y, G.zeros(8, 4, device="cuda"))
    assert y.dtype == G.float16 and loss.dtype == G.float32
    loss.backward()
    assert w.grad.dtype == G.float32 and w.grad.device == w.device
    expected = 2 * (x.cpu() @ w.detach().cpu().t()).t() @ x.cpu() / 32
    np.testing.assert_allclose(w.grad.cpu().numpy(), expected.numpy(), rtol=1e-2, atol=1e-2)


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_deprecated_cuda_amp_spellings(torch):
    import gradrs.cuda.amp as cuda_amp

    assert cuda_amp is G.cuda.amp
    _, warned = record_warnings(lambda: cuda_amp.autocast(enabled=False))
    _, warned_t = record_warnings(lambda: torch.cuda.amp.autocast(enabled=False))
    assert [(c, norm_g(m)) for c, m in warned] == [(c, norm(m)) for c, m in warned_t]
    _, warned = record_warnings(lambda: cuda_amp.GradScaler(enabled=False))
    _, warned_t = record_warnings(lambda: torch.cuda.amp.GradScaler(enabled=False))
    assert [(c, norm_g(m)) for c, m in warned] == [(c, norm(m)) for c, m in warned_t]


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_cpu_device_module_and_deprecated_cpu_amp(torch):
    for fn in ("is_available", "device_count", "current_device", "synchronize"):
        assert getattr(G.cpu, fn)() == getattr(torch.cpu, fn)()
    assert G.cpu.set_device("cpu") is torch.cpu.set_device("cpu") is None
    import gradrs.cpu.amp as cpu_amp

    assert cpu_amp is G.cpu.amp
    check_warning(lambda M: M.cpu.amp.autocast(dtype=M.float16))
    check_warning(lambda M: M.cpu.amp.GradScaler(init_scale=4.0))
    with G.cpu.amp.autocast(dtype=G.float16):
        assert (G.ones(2, 2) @ G.ones(2, 2)).dtype == G.float16
    scaler = G.cpu.amp.GradScaler(init_scale=4.0)
    assert scaler.scale(G.ones(1)).item() == 4.0


# ---------------------------------------------------------------------------------------------
# GradScaler
# ---------------------------------------------------------------------------------------------


class FakeSGD:
    """Just PyTorch's Optimizer interface: param_groups and step()."""

    def __init__(self, params, lr):
        self.param_groups = [{"params": list(params), "lr": lr}]
        self.steps = 0

    def step(self):
        self.steps += 1
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.data.sub_(p.grad * group["lr"])
        return "stepped"


# Gradient poison for iterations: None (finite), or the value put into one gradient entry.
_POISON = [None, None, math.inf, None, None, None, math.nan, None, None, -math.inf, None, None]


def _scaler_run(M, make_optimizer, device="cpu"):
    p = M.tensor([1.0, -2.0, 3.0], device=device, requires_grad=True)
    q = M.tensor([[0.5, 0.25]], device=device, requires_grad=True)
    opt = make_optimizer(M, [p, q])
    scaler = M.amp.GradScaler(device, init_scale=2.0**10, growth_interval=3)
    log = []
    for poison in _POISON:
        for t in (p, q):
            t.grad = None
        loss = (p * p).sum() + (q * 3).sum()
        scaled = scaler.scale(loss)
        scaled.backward()
        if poison is not None:
            with M.no_grad():
                p.grad[1] = poison
        scaler.unscale_(opt)
        grads = [p.grad.cpu().tolist(), q.grad.cpu().tolist()]
        result = scaler.step(opt)
        scaler.update()
        log.append((scaled.item(), grads, result if not isinstance(result, float) else None,
                    scaler.get_scale(), scaler._get_growth_tracker(),
                    p.detach().cpu().tolist(), q.detach().cpu().tolist()))
    return log, scaler.state_dict()


def _fake(M, params):
    return FakeSGD(params, lr=0.1)


def _same_log(got, want):
    for g, t in zip(got, want, strict=True):
        assert g[0] == pytest.approx(t[0], rel=1e-6) and g[2:5] == t[2:5]
        np.testing.assert_allclose(np.array(g[1][0]), np.array(t[1][0]), rtol=1e-6)
        np.testing.assert_allclose(g[5], t[5], rtol=1e-6)
        np.testing.assert_allclose(g[6], t[6], rtol=1e-6)


def test_grad_scaler_sequence_matches_pytorch(torch):
    (log_g, sd_g), (log_t, sd_t) = _scaler_run(G, _fake), _scaler_run(torch, _fake)
    _same_log(log_g, log_t)
    assert sd_g == sd_t
    # skipped steps: one per poisoned iteration; the scale backed off and grew
    assert [e[2] for e in log_g].count(None) == sum(p is not None for p in _POISON)
    assert sorted({e[3] for e in log_g}) == [256.0, 512.0, 1024.0]


def test_grad_scaler_with_gradrs_sgd(torch):
    if not hasattr(G, "optim") or not hasattr(G.optim, "SGD"):
        pytest.skip("gradrs.optim.SGD has not landed")

    def sgd(M, params):
        return M.optim.SGD(params, lr=0.1, momentum=0.9)

    (log_g, sd_g), (log_t, sd_t) = _scaler_run(G, sgd), _scaler_run(torch, sgd)
    _same_log(log_g, log_t)
    assert sd_g == sd_t


@needs_gpu
def test_grad_scaler_on_the_gpu_matches_the_cpu():
    log_gpu, sd_gpu = _scaler_run(G, _fake, device="cuda")
    log_cpu, sd_cpu = _scaler_run(G, _fake, device="cpu")
    _same_log(log_gpu, log_cpu)
    assert sd_gpu == sd_cpu


def _scaler_misuse(M):
    def scaler_and_opt():
        p = M.tensor([1.0], requires_grad=True)
        return M.amp.GradScaler("cpu"), FakeSGD([p], 0.1), p

    def unscale_twice():
        s, o, p = scaler_and_opt()
        s.scale(p.sum()).backward()
        s.unscale_(o)
        s.unscale_(o)

    def unscale_after_step():
        s, o, p = scaler_and_opt()
        s.scale(p.sum()).backward()
        s.step(o)
        s.unscale_(o)

    def step_twice():
        s, o, p = scaler_and_opt()
        s.scale(p.sum()).backward()
        s.step(o)
        s.step(o)

    def update_without_step():
        s, o, p = scaler_and_opt()
        s.scale(p.sum())
        s.update()

    def step_before_scale():
        s, o, _ = scaler_and_opt()
        s.step(o)

    def closure():
        s, o, p = scaler_and_opt()
        s.scale(p.sum()).backward()
        s.step(o, closure=lambda: None)

    def fp16_grads():
        s = M.amp.GradScaler("cpu")
        p = M.tensor([1.0], dtype=M.float16, requires_grad=True)
        s.scale(p.sum()).backward()
        s.unscale_(FakeSGD([p], 0.1))

    def bad_factors():
        return M.amp.GradScaler("cpu", growth_factor=1.0)

    def bad_backoff():
        return M.amp.GradScaler("cpu", backoff_factor=1.0)

    def empty_state():
        M.amp.GradScaler("cpu").load_state_dict({})

    def scale_non_tensor():
        M.amp.GradScaler("cpu").scale([M.ones(1), 3])

    def scale_iterables():
        s = M.amp.GradScaler("cpu", init_scale=4.0)
        out = s.scale((M.ones(1), [M.ones(2)]))
        return type(out).__name__, type(out[1]).__name__, out[0].item(), out[1][0].tolist()

    def new_scale():
        s, o, p = scaler_and_opt()
        s.scale(p.sum()).backward()
        s.step(o)
        s.update(8.0)
        return s.get_scale()

    def disabled():
        s = M.amp.GradScaler("cpu", enabled=False)
        o = FakeSGD([M.tensor([1.0], requires_grad=True)], 0.1)
        return (s.scale(3), s.get_scale(), s.state_dict(), s.is_enabled(), s.step(o),
                s.unscale_(o), s.update())

    def loaded():
        s = M.amp.GradScaler("cpu")
        s.load_state_dict({"scale": 8.0, "growth_factor": 3.0, "backoff_factor": 0.25,
                           "growth_interval": 5, "_growth_tracker": 2})
        return s.state_dict(), s.get_scale(), s.get_growth_factor(), s.get_growth_interval()

    cases = (unscale_twice, unscale_after_step, step_twice, update_without_step,
             step_before_scale, closure, fp16_grads, bad_factors, bad_backoff, empty_state,
             scale_non_tensor, scale_iterables, new_scale, disabled, loaded)
    return [observe(c) if c not in (bad_factors, bad_backoff) else observe(lambda c=c: c() and 0)
            for c in cases]


def test_grad_scaler_errors_match_pytorch(torch):
    same_outcomes(_scaler_misuse, torch)


def test_grad_scaler_pickles_between_iterations():
    import pickle

    s = G.amp.GradScaler("cpu", init_scale=64.0)
    s.scale(G.ones(1))
    copy = pickle.loads(pickle.dumps(s))
    assert copy.get_scale() == 64.0 and copy._scale is None


def test_grad_scaler_growth_overflow_keeps_the_scale(torch):
    def run(M):
        s = M.amp.GradScaler("cpu", init_scale=3e38, growth_interval=1)
        p = M.tensor([1.0], requires_grad=True)
        o = FakeSGD([p], 0.0)
        s.scale(p.sum() * 0).backward()
        s.step(o)
        s.update()
        return s.get_scale(), s._get_growth_tracker()

    assert run(G) == run(torch)


def _amp_training(M, device, state, data):
    x_np, y_np = data
    model = M.nn.Sequential(M.nn.Linear(8, 32), M.nn.Tanh(), M.nn.Linear(32, 2))
    model.load_state_dict({k: M.tensor(v) for k, v in state.items()})
    model = model.to(device)
    opt = M.optim.Adam(model.parameters(), lr=1e-2)
    # a first scale large enough that float16 gradients overflow: skipped steps and backoff
    scaler = M.amp.GradScaler(device, init_scale=2.0**24, growth_interval=4)
    x, y = M.tensor(x_np).to(device), M.tensor(y_np).to(device)
    log = []
    for _ in range(16):
        opt.zero_grad()
        with M.autocast(device, dtype=M.float16):
            out = model(x)
            loss = M.nn.functional.mse_loss(out, y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        log.append((str(out.dtype).split(".")[1], loss.item(), scaler.get_scale()))
    return log


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=needs_gpu)])
def test_amp_training_matches_pytorch(torch, device):
    if not hasattr(G.optim, "Adam"):
        pytest.skip("gradrs.optim.Adam has not landed")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 8)).astype(np.float32)
    y = (x @ rng.standard_normal((2, 8)).astype(np.float32).T + 0.5).astype(np.float32)
    torch.manual_seed(0)
    reference = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.Tanh(),
                                    torch.nn.Linear(32, 2))
    state = {k: v.detach().numpy() for k, v in reference.state_dict().items()}
    got = _amp_training(G, device, state, (x, y))
    want = _amp_training(torch, "cpu", state, (x, y))
    assert [g[0] for g in got] == [w[0] for w in want] == ["float16"] * 16
    assert [g[2] for g in got] == [w[2] for w in want]
    assert len({w[2] for w in want}) > 2  # backoffs and growth both happened
    np.testing.assert_allclose([g[1] for g in got], [w[1] for w in want], rtol=2e-3)


def test_opt_einsum_reports_unavailable_as_torch_without_the_package():
    # the reference torch runs without opt_einsum installed: both report it unavailable and
    # refuse to enable it with the same errors
    torch = need_torch()
    if torch.backends.opt_einsum.is_available():
        pytest.skip("the reference torch has opt_einsum")

    def run(m):
        b = m.backends.opt_einsum
        out = [b.is_available(), b.enabled, b.strategy, b.get_opt_einsum()]
        b.enabled = False
        with b.flags(enabled=False):
            out.append(b.enabled)
        return out
    check(run)
    check_error(lambda m: m.backends.opt_einsum.flags(strategy="greedy").__enter__())
    check_error(lambda m: m.backends.opt_einsum.set_flags(True))


def test_cpu_capability_as_torch_reports_it():
    torch = need_torch()
    assert G.backends.cpu.get_cpu_capability() == torch.backends.cpu.get_cpu_capability()
    assert G.backends.cpu.__all__ == torch.backends.cpu.__all__
