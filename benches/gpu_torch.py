"""GPU side by side: gradrs on its wgpu device and PyTorch on CUDA, timed in one run.

    python benches/gpu_torch.py                  # matmul 4096^3 and the rest
    python benches/gpu_torch.py --size 1024      # a smaller matmul (lavapipe: 4096^3 is slow)
    python benches/gpu_torch.py --repeats 3      # fewer repeats, for a quick look

Measures what the GPU issue sets goals for:

* f32 matmul n^3 in TFLOP/s (PyTorch with TF32 off, so both compute in full float32);
* the small-op dispatch rate: ``x = x * 1.0001`` on 1024 elements, N times, then one
  synchronize (dispatches per second);
* the ``.item()`` round trip of a fresh result: ``(x + 1).item()`` (one dispatch, one submit,
  one read-back);
* the 784-256-256-10 MLP training step at batch 128 with cross-entropy (time per step).

Each figure is the median over ``--repeats`` timed repeats after a warm-up; every timed region
ends with the device synchronized.  Ratios are gradrs / torch for times (lower is better for
gradrs) and torch / gradrs for rates.  Without CUDA the torch column is PyTorch on the CPU (a
reference, not the goal's); without a wgpu adapter the script says so and exits 1.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time


def median_time(fn, sync, repeats, number=1):
    """Median seconds per call of ``fn`` over ``repeats`` timed loops of ``number`` calls.

    Warms up for a quarter second first, so that pipeline compilation, first-touch
    allocations and an idle GPU's low clocks stay out of the timed loops."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < 0.25:
        fn()
        sync()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        sync()
        times.append((time.perf_counter() - t0) / number)
    return statistics.median(times)


class Backend:
    def __init__(self, lib, device, sync, label):
        self.lib, self.device, self.sync, self.label = lib, device, sync, label


def matmul_tflops(b: Backend, n, repeats):
    lib = b.lib
    lib.manual_seed(0)
    x = lib.randn(n, n, device=b.device)
    y = lib.randn(n, n, device=b.device)
    sec = median_time(lambda: x @ y, b.sync, repeats)
    return 2.0 * n**3 / sec / 1e12


def dispatch_rate(b: Backend, repeats, count=2000):
    x0 = b.lib.ones(1024, device=b.device)

    def chain():
        x = x0
        for _ in range(count):
            x = x * 1.0001
        return x

    return count / median_time(chain, b.sync, repeats)


def item_round_trip_us(b: Backend, repeats, number=50):
    x = b.lib.ones(1024, device=b.device)
    return median_time(lambda: (x + 1).sum().item(), b.sync, repeats, number) * 1e6


def mlp_step_ms(b: Backend, repeats, number=5):
    lib, dev = b.lib, b.device
    lib.manual_seed(0)

    def param(*shape):
        return (lib.randn(*shape, device=dev) * 0.05).requires_grad_()

    params = [param(256, 784), param(256), param(256, 256), param(256), param(10, 256), param(10)]
    w1, b1, w2, b2, w3, b3 = params
    x = lib.randn(128, 784, device=dev)
    y = lib.randint(0, 10, (128,), device=dev)
    F = lib.nn.functional

    def step():
        h = F.relu(F.linear(x, w1, b1))
        h = F.relu(F.linear(h, w2, b2))
        loss = F.cross_entropy(F.linear(h, w3, b3), y)
        for p in params:
            p.grad = None
        loss.backward()
        with lib.no_grad():
            for p in params:
                p -= 0.01 * p.grad
        return loss

    return median_time(step, b.sync, repeats, number) * 1e3


def backends():
    import gradrs

    if not gradrs.gpu.is_available():
        print("gradrs: no wgpu adapter (on Linux without a GPU install Mesa's lavapipe)",
              file=sys.stderr)
        return None
    out = [Backend(gradrs, "gpu", gradrs.gpu.synchronize,
                   f"gradrs gpu ({gradrs.gpu.device_name()})")]
    try:
        import torch
    except ImportError:
        return out
    if torch.cuda.is_available():
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        out.append(Backend(torch, "cuda", torch.cuda.synchronize,
                           f"torch cuda ({torch.cuda.get_device_name()}, TF32 off)"))
    else:
        out.append(Backend(torch, "cpu", lambda: None,
                           f"torch cpu ({torch.get_num_threads()} threads; no CUDA here)"))
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--size", type=int, default=4096, help="matmul n (default 4096)")
    p.add_argument("--repeats", type=int, default=7, help="timed repeats per figure")
    args = p.parse_args(argv)
    bs = backends()
    if bs is None:
        return 1
    for b in bs:
        print(b.label)
    print()
    # (name, unit, function, goal, higher is better)
    rows = [
        (f"matmul {args.size}^3 f32", "TFLOP/s",
         lambda b: matmul_tflops(b, args.size, args.repeats), ">= 30", True),
        ("dispatch rate (x * 1.0001, 1024 elems)", "1/s",
         lambda b: dispatch_rate(b, args.repeats), ">= 200000", True),
        (".item() round trip ((x + 1).sum().item())", "us",
         lambda b: item_round_trip_us(b, args.repeats), "<= 100", False),
        ("MLP 784-256-256-10 step, batch 128", "ms",
         lambda b: mlp_step_ms(b, args.repeats), "<= 2x torch cuda", False),
    ]
    head = f"{'':44} {'gradrs':>12} {'torch':>12} {'ratio':>7}  goal"
    print(head)
    print("-" * len(head))
    for name, unit, fn, goal, higher in rows:
        vals = [fn(b) for b in bs]
        g = vals[0]
        t = vals[1] if len(vals) > 1 else None
        ratio = "-" if t is None else f"{(t / g if higher else g / t):.3f}"
        tcol = "-" if t is None else f"{t:,.4g}"
        print(f"{name + ' [' + unit + ']':44} {g:>12,.4g} {tcol:>12} {ratio:>7}  {goal}")
    print("\nratio: gradrs / torch for times, torch / gradrs for rates (below 1 favours gradrs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
