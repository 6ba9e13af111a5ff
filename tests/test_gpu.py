"""gradrs.gpu / gradrs.cuda: the wgpu context's queries, on whatever adapter exists, and the
no-adapter path forced with GRADRS_GPU_DISABLE in a fresh interpreter."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import gradrs
import pytest


def test_cuda_is_an_alias_of_gpu():
    assert gradrs.cuda.is_available is gradrs.gpu.is_available
    assert gradrs.cuda.is_available() == gradrs.gpu.is_available()
    assert isinstance(gradrs.gpu.is_available(), bool)


def test_queries_on_the_adapter():
    if not gradrs.gpu.is_available():
        pytest.skip("no Vulkan/Metal/DX12 adapter (install mesa-vulkan-drivers for lavapipe)")
    name = gradrs.gpu.device_name()
    assert isinstance(name, str) and name
    assert gradrs.cuda.get_device_name(0) == name
    assert gradrs.gpu.device_count() == 1
    gradrs.gpu.synchronize()
    gradrs.gpu.empty_cache()
    # No GPU tensors exist yet, so nothing is allocated and the emptied pool holds nothing.
    assert gradrs.gpu.memory_allocated() == 0
    assert gradrs.gpu.memory_reserved() == 0


def test_gpu_tensors_are_refused_for_now():
    for dev in ("gpu", "cuda", "cuda:0"):
        with pytest.raises(RuntimeError):
            gradrs.zeros(2, device=dev)


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
        for f in (gradrs.gpu.device_name, gradrs.gpu.synchronize):
            try:
                f()
            except RuntimeError as e:
                assert "no Vulkan/Metal/DX12 adapter found" in str(e), e
                assert "mesa-vulkan-drivers" in str(e), e
            else:
                raise AssertionError(f"{f.__name__} did not raise")
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
