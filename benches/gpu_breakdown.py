"""Where gradrs's GPU time goes, kernel family by kernel family, beside PyTorch CUDA.

    python benches/gpu_breakdown.py

Bandwidth (bytes read and written per second, the best of two alternated rounds of five
repeats of 20 calls) of each kernel family on 16M float32s, and the microseconds of the
``.item()`` path taken apart: a sync of an idle queue, one small dispatch plus its sync, a
read of an already-synced result, the host cost of one dispatch. Needs a wgpu adapter; the
torch column needs CUDA and is left out without it. The goals are issue 26's."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

import gradrs  # noqa: E402
from gpu_torch import Backend, median_time, warm_up  # noqa: E402


def families(lib, dev, n=1 << 24):
    """(name, call, bytes moved) for each kernel family on ``n`` float32s."""
    x = lib.rand(n, device=dev) + 0.5
    y = lib.rand(n, device=dev)
    m = lib.rand(4096, n // 4096, device=dev)
    row = lib.rand(n // 4096, device=dev)
    return [
        ("unary exp", lambda: x.exp(), 8 * n),
        ("unary neg", lambda: -x, 8 * n),
        ("binary x*y", lambda: x * y, 12 * n),
        ("binary x*1.0001", lambda: x * 1.0001, 8 * n),
        ("broadcast m+row", lambda: m + row, 8 * n),
        ("clone", lambda: x.clone(), 8 * n),
        ("transpose copy", lambda: m.t().contiguous(), 8 * n),
        ("sum all", lambda: x.sum(), 4 * n),
        ("sum dim 1", lambda: m.sum(1), 4 * n),
        ("sum dim 0", lambda: m.sum(0), 4 * n),
        ("x.mul_(1.0001)", lambda: x.mul_(1.0001), 8 * n),
    ]


def main():
    if not gradrs.gpu.is_available():
        print("gradrs: no wgpu adapter", file=sys.stderr)
        return 1
    bs = [Backend(gradrs, "gpu", gradrs.gpu.synchronize, "gradrs")]
    try:
        import torch

        if torch.cuda.is_available():
            bs.append(Backend(torch, "cuda", torch.cuda.synchronize, "torch"))
    except ImportError:
        pass
    warm_up(bs, limit=10)
    rates: dict[str, dict[str, float]] = {}
    for b in bs + bs:
        for name, fn, nbytes in families(b.lib, b.device):
            rate = nbytes / median_time(fn, b.sync, 5, 20) / 1e12
            best = rates.setdefault(name, {})
            best[b.label] = max(best.get(b.label, 0.0), rate)
    print(f"{'16M float32':22} {'gradrs TB/s':>12} {'torch TB/s':>12} {'ratio':>6}")
    for name, d in rates.items():
        g, t = d["gradrs"], d.get("torch")
        tcol = f"{t:12.3f} {t / g:6.2f}" if t else f"{'-':>12} {'-':>6}"
        print(f"{name:22} {g:12.3f} {tcol}")

    x = gradrs.ones(1024, device="gpu")
    sync = gradrs.gpu.synchronize

    def us(fn, number=200):
        return median_time(fn, lambda: None, 7, number) * 1e6

    def dispatch_and_sync():
        x.add_(0.0)
        sync()

    r = (x + 1).sum()
    sync()
    print(f"\nsync of an idle queue         {us(sync):8.1f} us")
    print(f"one dispatch + sync           {us(dispatch_and_sync):8.1f} us")
    print(f"(x + 1).sum().item()          {us(lambda: (x + 1).sum().item()):8.1f} us")
    print(f"item of a synced result       {us(r.item):8.1f} us")
    print(f"x.sum(), not read             {us(x.sum):8.1f} us  (host cost of one dispatch)")
    if len(bs) > 1:
        tx = bs[1].lib.ones(1024, device="cuda")
        print(f"torch (x + 1).sum().item()    {us(lambda: (tx + 1).sum().item()):8.1f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
