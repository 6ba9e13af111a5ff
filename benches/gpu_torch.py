"""GPU side by side: gradrs on its wgpu device and PyTorch on CUDA, timed in one run.

    python benches/gpu_torch.py                  # every figure, matmul 4096^3
    python benches/gpu_torch.py --size 1024      # a smaller matmul (lavapipe: 4096^3 is slow)
    python benches/gpu_torch.py --rounds 3       # fewer alternated rounds, for a quick look
    python benches/gpu_torch.py --only mlp,item  # some figures only

Measures what the GPU performance issue sets goals for:

* f32 matmul n^3 in TFLOP/s (PyTorch with TF32 off, so both compute in full float32);
* elementwise bandwidth: ``x * 1.0001`` on 16M floats, in TB/s counting bytes read and written;
* the small-op dispatch rate: ``x = x * 1.0001`` on 1024 elements, N times, then one
  synchronize (dispatches per second);
* the ``.item()`` round trip of a fresh result: ``(x + 1).sum().item()``;
* the 784-256-256-10 MLP training step at batch 128 with cross-entropy (time per step);
* a transformer block (``nn.TransformerEncoderLayer``, width 256, 8 heads, batch 32 x 128
  tokens) forward + backward + AdamW step;
* gradrs's kernel dispatches per MLP step (SGD and Adam) and per transformer step, with
  elementwise fusion and without it.

A GPU fresh from idle runs at low clocks: the script first runs matmuls on every library until
two consecutive one-second rates agree within 2 %. Each figure is then measured in
``--rounds`` rounds, the libraries alternating which goes first; a round's figure is the median
of its timed repeats, every timed region ending with the device synchronized. The table shows
the median over rounds and the spread (smallest to largest round). Ratios are gradrs / torch for
times and torch / gradrs for rates (below 1 favours gradrs). Without CUDA the torch column is
PyTorch on the CPU (a reference, not the goal's); without a wgpu adapter the script says so and
exits 1.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time


def median_time(fn, sync, repeats, number=1):
    """Median seconds per call of ``fn`` over ``repeats`` timed loops of ``number`` calls,
    after a short warm-up (pipeline compilation and first-touch allocations stay out)."""
    for _ in range(2):
        fn()
    sync()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        # results stay alive past the sync: a fusing backend computes only what is still
        # referenced, so dropped results would time nothing (46 "TB/s" on an H200)
        outs = [fn() for _ in range(number)]
        sync()
        times.append((time.perf_counter() - t0) / number)
        del outs
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


def elementwise_tbs(b: Backend, repeats, n=1 << 24, number=20):
    """``x * 1.0001`` on ``n`` float32s: bytes read and written per second, in TB/s."""
    x = b.lib.ones(n, device=b.device)
    sec = median_time(lambda: x * 1.0001, b.sync, repeats, number)
    return 2 * 4 * n / sec / 1e12


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


def mlp_step(b: Backend, adam=False):
    """One 784-256-256-10 MLP training step at batch 128 (plain SGD written out, or
    ``optim.Adam``)."""
    lib, dev = b.lib, b.device
    lib.manual_seed(0)

    def param(*shape):
        return (lib.randn(*shape, device=dev) * 0.05).requires_grad_()

    params = [param(256, 784), param(256), param(256, 256), param(256), param(10, 256), param(10)]
    w1, b1, w2, b2, w3, b3 = params
    x = lib.randn(128, 784, device=dev)
    y = lib.randint(0, 10, (128,), device=dev)
    F = lib.nn.functional

    opt = lib.optim.Adam(params, lr=1e-3) if adam else None

    def step():
        h = F.relu(F.linear(x, w1, b1))
        h = F.relu(F.linear(h, w2, b2))
        loss = F.cross_entropy(F.linear(h, w3, b3), y)
        for p in params:
            p.grad = None
        loss.backward()
        if opt is not None:
            opt.step()
            return loss
        with lib.no_grad():
            for p in params:
                p -= 0.01 * p.grad
        return loss

    return step


def transformer_step(b: Backend):
    """Forward, backward and AdamW step of one encoder block: batch 32 x 128 tokens x 256."""
    lib = b.lib
    lib.manual_seed(0)
    block = lib.nn.TransformerEncoderLayer(256, 8, dim_feedforward=1024, dropout=0.0,
                                           batch_first=True).to(b.device)
    opt = lib.optim.AdamW(block.parameters(), lr=1e-3)
    x = lib.randn(32, 128, 256, device=b.device)

    def step():
        opt.zero_grad()
        loss = block(x).square().mean()
        loss.backward()
        opt.step()
        return loss

    return step


def step_ms(make, number):
    def measure(b: Backend, repeats):
        return median_time(make(b), b.sync, repeats, number) * 1e3

    return measure


def dispatches_per_step(make):
    """gradrs kernel dispatches of one step (after two warm-up steps): with elementwise fusion
    and without it (``_gpu_set_fusion``), as ``"fused (unfused N)"``."""

    def count(b: Backend):
        if b.lib.__name__ != "gradrs":
            return None
        native = b.lib._native
        counts = []
        for fused in (True, False):
            was = native._gpu_set_fusion(fused)
            try:
                step = make(b)
                step()
                step()
                b.sync()
                n0 = native._gpu_dispatch_count()
                step()
                b.sync()
                counts.append(native._gpu_dispatch_count() - n0)
            finally:
                native._gpu_set_fusion(was)
        return f"{counts[0]} (unfused {counts[1]})"

    return count


def warm_up(bs, n=2048, tol=0.02, limit=30.0):
    """Run matmuls on every library until two consecutive one-second rates agree within
    ``tol``, so that no figure is measured while the GPU's clocks still ramp up from idle."""
    t_end = time.perf_counter() + limit
    for b in bs:
        x = b.lib.randn(n, n, device=b.device)
        last = None
        while time.perf_counter() < t_end:
            t0, calls = time.perf_counter(), 0
            while time.perf_counter() - t0 < 1.0:
                x @ x
                b.sync()
                calls += 1
            rate = calls / (time.perf_counter() - t0)
            if last is not None and abs(rate - last) <= tol * last:
                break
            last = rate


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


def fmt(v):
    return "-" if v is None else f"{v:,.4g}"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--size", type=int, default=4096, help="matmul n (default 4096)")
    p.add_argument("--repeats", type=int, default=5, help="timed repeats per round")
    p.add_argument("--rounds", type=int, default=4, help="alternated rounds per figure")
    p.add_argument("--only", default="", help="comma-separated figure keys (default: all)")
    args = p.parse_args(argv)
    bs = backends()
    if bs is None:
        return 1
    for b in bs:
        print(b.label)
    r = args.repeats
    # (key, name, unit, function, goal, higher is better)
    rows = [
        ("matmul", f"matmul {args.size}^3 f32", "TFLOP/s",
         lambda b: matmul_tflops(b, args.size, r), ">= 48", True),
        ("bandwidth", "elementwise x * 1.0001, 16M f32", "TB/s",
         lambda b: elementwise_tbs(b, r), ">= 0.95x torch", True),
        ("dispatch", "dispatch rate (x * 1.0001, 1024 elems)", "1/s",
         lambda b: dispatch_rate(b, r), ">= 500000", True),
        ("item", ".item() round trip ((x + 1).sum().item())", "us",
         lambda b: item_round_trip_us(b, r), "<= 27", False),
        ("mlp", "MLP 784-256-256-10 step, batch 128", "ms",
         lambda b: step_ms(mlp_step, 5)(b, r), "<= 0.4", False),
        ("transformer", "transformer block fwd+bwd+AdamW, 32x128x256", "ms",
         lambda b: step_ms(transformer_step, 2)(b, r), "<= 1x torch", False),
    ]
    counts = [("mlp", "dispatches per MLP step (SGD)", dispatches_per_step(mlp_step)),
              ("mlp", "dispatches per MLP step (Adam)",
               dispatches_per_step(lambda b: mlp_step(b, adam=True))),
              ("transformer", "dispatches per transformer step",
               dispatches_per_step(transformer_step))]
    only = {k for k in args.only.split(",") if k}
    if only:
        rows = [row for row in rows if row[0] in only]
        counts = [c for c in counts if c[0] in only]
    t0 = time.perf_counter()
    warm_up(bs)
    print(f"warm-up: {time.perf_counter() - t0:.1f} s\n")
    head = f"{'':46} {'gradrs':>10} {'spread':>17} {'torch':>10} {'spread':>17} {'ratio':>6}  goal"
    print(head)
    print("-" * len(head))
    for _key, name, unit, fn, goal, higher in rows:
        samples = [[] for _ in bs]
        for rnd in range(args.rounds):
            order = range(len(bs)) if rnd % 2 == 0 else reversed(range(len(bs)))
            for i in order:
                samples[i].append(fn(bs[i]))
        meds = [statistics.median(v) for v in samples]
        spreads = [f"{fmt(min(v))}-{fmt(max(v))}" for v in samples]
        g, t = meds[0], (meds[1] if len(meds) > 1 else None)
        ratio = "-" if t is None else f"{(t / g if higher else g / t):.3f}"
        tcols = (fmt(t), spreads[1]) if t is not None else ("-", "")
        print(f"{name + ' [' + unit + ']':46} {fmt(g):>10} {spreads[0]:>17} "
              f"{tcols[0]:>10} {tcols[1]:>17} {ratio:>6}  {goal}", flush=True)
    for _key, name, fn in counts:
        print(f"{name:46} {fn(bs[0])}")
    print("\nratio: gradrs / torch for times, torch / gradrs for rates (below 1 favours gradrs);"
          "\nspread: the smallest and largest of the rounds' medians")
    return 0


if __name__ == "__main__":
    sys.exit(main())
