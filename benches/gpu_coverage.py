"""Which ops of the op table still compute on the host for GPU tensors.

    python benches/gpu_coverage.py            # one line per op: shader / host, and the count

Every op-table sample runs forward (no grad) on device ``gpu`` with its float32 inputs held
on the GPU only (each leaf is passed through an in-place kernel, so its host copy is stale).
An op whose kernels all run as shaders reads nothing back; one that computes on the host copy
downloads its inputs first, which ``gradrs.gpu.transfer_counts()`` sees. Samples with no
float32 input say nothing and are skipped; samples that raise are skipped.
"""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))

import gradrs  # noqa: E402
from op_table import _NP, OPS, T, for_device, tensor_data  # noqa: E402


def run(op, sample) -> int | None:
    """Downloads made by one forward call, or None when the sample says nothing."""
    args, resident = [], False
    for a, arr in zip(sample.args, sample.arrays):
        if not isinstance(a, T):
            args.append(a)
            continue
        leaf = gradrs.tensor(tensor_data(np.asarray(arr).astype(_NP[a.dtype])),
                             dtype=getattr(gradrs, a.dtype), device="gpu")
        if a.dtype == "float32" and leaf.numel() > 0:
            leaf.mul_(1.0)  # a kernel's output: only the GPU copy is current
            resident = True
        args.append(a.transform(leaf))
    if not resident:
        return None
    before = gradrs.gpu.transfer_counts()[0]
    try:
        op.fn(gradrs, *args, **sample.kwargs)
    except Exception:
        return None
    return gradrs.gpu.transfer_counts()[0] - before


def main() -> int:
    if not gradrs.gpu.is_available():
        print("no wgpu adapter: nothing to measure")
        return 1
    print(f"adapter: {gradrs.gpu.device_name()}")
    host, shader = [], []
    for op in OPS:
        counts = [run(op, for_device(s, "gpu")) for s in op.samples]
        counts = [c for c in counts if c is not None]
        if not counts:
            continue
        (host if any(counts) else shader).append((op.name, sum(c > 0 for c in counts), len(counts)))
    print(f"\nshaders only ({len(shader)} ops): " + ", ".join(n for n, _, _ in shader))
    print(f"\nhost for some samples ({len(host)} ops; samples on the host / measured):")
    for name, bad, total in host:
        print(f"  {name:28s} {bad}/{total}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
