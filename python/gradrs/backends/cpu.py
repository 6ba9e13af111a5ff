"""`gradrs.backends.cpu`: `get_cpu_capability()`, the vector instruction set PyTorch's ATen would
dispatch its CPU kernels to on this machine, as environment reports print it."""

import os as _os
import platform as _platform

__all__ = ["get_cpu_capability"]


def _x86_flags() -> set:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def get_cpu_capability() -> str:
    """"AVX512", "AVX2" or "DEFAULT" on x86-64 (ATen's rule: AVX512 needs avx512vl / bw / dq and
    FMA, AVX2 needs avx2 and FMA; the ATEN_CPU_CAPABILITY variable caps it), "DEFAULT"
    elsewhere. gradrs's own kernels do not depend on it.

    Examples:
        >>> gradrs.backends.cpu.get_cpu_capability() in ("AVX512", "AVX2", "DEFAULT")
        True
    """
    if _platform.machine().lower() not in ("x86_64", "amd64"):
        return "DEFAULT"
    flags = _x86_flags()
    capability = "DEFAULT"
    if {"avx2", "fma"} <= flags:
        capability = "AVX2"
    if {"avx512vl", "avx512bw", "avx512dq", "fma"} <= flags:
        capability = "AVX512"
    wanted = _os.environ.get("ATEN_CPU_CAPABILITY", "").lower()
    order = ["DEFAULT", "AVX2", "AVX512"]
    if wanted in ("default", "avx2", "avx512") and order.index(wanted.upper()) < order.index(
            capability):
        capability = wanted.upper()
    return capability
