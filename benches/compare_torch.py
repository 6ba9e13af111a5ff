"""Side-by-side benchmark: gradrs and PyTorch timed in one run, on the same machine.

    python benches/compare_torch.py                 # all cases, 1 thread each
    python benches/compare_torch.py --only seed     # cases whose name contains "seed"
    python benches/compare_torch.py --quick         # fewer rounds, for a quick look
    python benches/compare_torch.py --threads 4     # both libraries on 4 threads
    python benches/compare_torch.py --only train    # the training figures (always 2 threads)

Threads: both libraries get the same count, `--threads N` (default 1). PyTorch through
`torch.set_num_threads(N)`, gradrs through `RAYON_NUM_THREADS=N`, which is set before gradrs is
imported (rayon reads it once, when its pool starts). The per-op cases measure dispatch and graph
overhead on tiny tensors and are meant to be read at 1 thread; use --threads for the large-tensor
cases (matmul and friends), where the thread pool matters. A case may fix its own count (the
training figures run at 2 threads whatever --threads says): cases whose count differs from
--threads run in a child process of this script started with that count, and print their own
table.

Method: for each case and each library, a warm-up, then a calibrated inner loop of `number` calls
per sample (so one sample lasts about a millisecond and the clock's own cost vanishes), samples
collected in rounds that alternate between the two libraries (gradrs, torch, then torch, gradrs,
...) so that both see the same machine noise. Each library's time is the lowest of its
per-round medians: a burst of load from elsewhere on a shared machine (a compiler on the other
cores) inflates whole rounds, and a thread-pool library is hit far harder than a single-threaded
one when a core is taken, so a median over all samples moved with the load rather than with
the code; the quietest round's median is still a typical call, not a lucky one. The table
gives that time, the ratio gradrs/torch (lower is better for gradrs), and `noise`: the larger
of the two libraries' interquartile range / median over all samples (a ratio moving by less
than that means little; a large value says the machine was busy). Both columns include the same
Python loop and call overhead (tens of ns), which only pushes the ratio towards 1. The garbage
collector is off while a sample is timed.

Adding a case: append a Case(name, setup, run, target[, threads]) to CASES. `setup(lib)` builds the state
once, outside the timed region; `run(lib, state)` is the timed body; `lib` is the gradrs module
or the torch module, so a case is written once in PyTorch's API for both. `target` is the ratio
gradrs/torch to reach, or None to only report; `threads`, when given, is the count the case
always runs at.

The training figures ("train ..."): the demo's MLP epoch on the 8x8 digits, an LSTM
language-model step, a transformer encoder layer step and the demo's CNN step, each a whole
forward + backward + optimizer step through nn / optim / utils.data, with both libraries
starting from the same weights (torch's initial state_dict copied into gradrs through numpy).

If gradrs cannot be imported the script says so and exits 1; without torch it prints the gradrs
column alone. Exit status 1 also when a case raised.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import os
import platform
import statistics
import subprocess
import sys
import time
from typing import Any, Callable, NamedTuple


class Case(NamedTuple):
    name: str
    setup: Callable[[Any], Any]
    run: Callable[[Any, Any], Any]
    target: float | None  # the ratio gradrs/torch to reach; None: report only
    threads: int | None = None  # the thread count the case always runs at; None: --threads


# --- the cases ---------------------------------------------------------------------------------


def setup_mul_scalar(lib):
    return lib.tensor([1.5]), lib.tensor([2.0])


def setup_mul_scalar_grad(lib):
    return lib.tensor([1.5], requires_grad=True), lib.tensor([2.0], requires_grad=True)


def run_mul(lib, state):
    a, b = state
    return a * b


def setup_seed_graph(lib):
    """The seed article's leaves: a, w1..w4, 3x3, requiring grad."""
    return tuple(lib.randn(3, 3, requires_grad=True) for _ in range(5))


def run_seed_graph(lib, leaves):
    for t in leaves:
        t.grad = None
    a, w1, w2, w3, w4 = leaves
    b = w1 * a
    c = w2 * a
    d = w3 * b + w4 * c
    L = (10 - d).sum()
    L.backward()


def setup_scalar_leaf(lib):
    return lib.tensor(1.0, requires_grad=True)


def run_scalar_chain(lib, x):
    x.grad = None
    y = x
    for _ in range(1000):
        y = y * 1.0001 + 0.0001
    y.backward()


def setup_tanh_leaf(lib):
    return lib.randn(64, requires_grad=True)


def run_tanh_chain(lib, x):
    x.grad = None
    y = x
    for _ in range(10_000):
        y = y.tanh()
    y.sum().backward()



# --- the op library's cases (issue 3); read them with --threads 2 ----------------------------------


def setup_matmul(n):
    def setup(lib):
        lib.manual_seed(0)
        return lib.randn(n, n), lib.randn(n, n)

    return setup


def run_matmul(lib, s):
    return s[0] @ s[1]


def setup_linalg(n):
    """A well-conditioned symmetric positive-definite n x n float32 matrix and a right side."""
    def setup(lib):
        lib.manual_seed(0)
        a = lib.randn(n, n)
        return a @ a.mT + n * lib.eye(n), lib.randn(n, 4)

    return setup


def run_solve(lib, s):
    return lib.linalg.solve(s[0], s[1])


def run_svd(lib, s):
    return lib.linalg.svd(s[0])


def run_cholesky(lib, s):
    return lib.linalg.cholesky(s[0])


def setup_seeded(lib):
    lib.manual_seed(0)


def run_randn(lib, _):
    # PyTorch's normal_fill (16+ contiguous float32): every uniform drawn from mt19937, then
    # Box-Muller on blocks of 16 (gradrs: the same stream, bit for bit).
    return lib.randn(1 << 24)


def run_rand(lib, _):
    return lib.rand(1 << 24)


def setup_matmul_grad(lib):
    lib.manual_seed(0)
    return lib.randn(512, 512, requires_grad=True), lib.randn(512, 512, requires_grad=True)


def run_matmul_grad(lib, s):
    a, b = s
    a.grad = b.grad = None
    (a @ b).sum().backward()


def setup_big_pair(lib):
    lib.manual_seed(0)
    n = 1 << 24
    return lib.randn(n), lib.randn(n)


def run_add(lib, s):
    return s[0] + s[1]


def setup_pair_as(dtype):
    """Two 1M tensors of `dtype` (float16 / int32 compute wide and round back in gradrs)."""
    def setup(lib):
        lib.manual_seed(0)
        n = 1 << 20
        return tuple((lib.randn(n) * 100).to(getattr(lib, dtype)) for _ in range(2))

    return setup


def run_mul_add(lib, s):
    return s[0] * s[1] + s[0]


def run_sum(lib, s):
    return s[0].sum()


def setup_rows(lib):
    lib.manual_seed(0)
    return lib.randn(1000, 1000)


def run_softmax(lib, x):
    return x.softmax(1)


def run_tanh_sigmoid(lib, x):
    return x.tanh() + x.sigmoid()


def run_sort(lib, x):
    return x.sort(1)


def run_topk(lib, x):
    return x.topk(5, 1)


def run_median(lib, x):
    return x.median(1)


def setup_clamp(lib):
    """1M float32 values and same-shape tensor bounds (clamp's tensor overload)."""
    lib.manual_seed(0)
    n = 1 << 20
    return lib.randn(n), lib.full((n,), -0.5), lib.full((n,), 0.5)


def run_clamp(lib, s):
    return lib.clamp(s[0], -0.5, 0.5)


def run_clamp_min_max(lib, s):
    return s[0].clamp_min(-0.5), s[0].clamp_max(0.5)


def run_clamp_tensors(lib, s):
    return lib.clamp(s[0], s[1], s[2])


def run_hardtanh_relu6(lib, s):
    return lib.nn.functional.hardtanh(s[0]), lib.nn.functional.relu6(s[0])


def setup_mlp(lib):
    lib.manual_seed(0)

    def param(*shape):
        return (lib.randn(*shape) * 0.05).requires_grad_()

    params = [param(256, 784), param(256), param(256, 256), param(256), param(10, 256), param(10)]
    x = lib.randn(128, 784)
    y = lib.randint(0, 10, (128,))
    return params, x, y


def run_mlp(lib, s):
    (w1, b1, w2, b2, w3, b3), x, y = s
    F = lib.nn.functional
    h = F.relu(F.linear(x, w1, b1))
    h = F.relu(F.linear(h, w2, b2))
    loss = F.cross_entropy(F.linear(h, w3, b3), y)
    for p in s[0]:
        p.grad = None
    loss.backward()
    with lib.no_grad():
        for p in s[0]:
            p -= 0.01 * p.grad
    return loss


def setup_conv(lib):
    lib.manual_seed(0)
    x = lib.randn(32, 3, 32, 32)
    w = (lib.randn(32, 3, 3, 3) * 0.1).requires_grad_()
    b = lib.zeros(32, requires_grad=True)
    return x, w, b


def run_conv(lib, s):
    x, w, b = s
    w.grad = b.grad = None
    lib.nn.functional.conv2d(x, w, b, padding=1).sum().backward()


def setup_batch_norm(lib):
    """BatchNorm2d's training step input: 32x64x32x32 float32 activations, affine parameters,
    running statistics and an upstream gradient."""
    lib.manual_seed(0)
    x = lib.randn(32, 64, 32, 32).requires_grad_()
    w, b = lib.ones(64, requires_grad=True), lib.zeros(64, requires_grad=True)
    return x, w, b, lib.zeros(64), lib.ones(64), lib.randn(32, 64, 32, 32)


def run_batch_norm(lib, s):
    x, w, b, rm, rv, g = s
    x.grad = w.grad = b.grad = None
    lib.nn.functional.batch_norm(x, rm, rv, w, b, True, 0.1, 1e-5).backward(g)


def setup_layer_norm(lib):
    """A transformer block's LayerNorm: 32x128 tokens of 512 float32 features."""
    lib.manual_seed(0)
    x = lib.randn(32, 128, 512).requires_grad_()
    w, b = lib.ones(512, requires_grad=True), lib.zeros(512, requires_grad=True)
    return x, w, b, lib.randn(32, 128, 512)


def run_layer_norm(lib, s):
    x, w, b, g = s
    x.grad = w.grad = b.grad = None
    lib.nn.functional.layer_norm(x, (512,), w, b, 1e-5).backward(g)


# --- training figures (issue 21): whole steps through nn / optim / utils.data, 2 threads ------


def _reference_state(build):
    """The state_dict torch's `build(torch)` starts from under manual_seed(0), as numpy arrays;
    None without torch. Both libraries load it, so they train the same network."""
    try:
        import torch
    except ImportError:
        return None
    torch.manual_seed(0)
    return {k: v.detach().numpy().copy() for k, v in build(torch).state_dict().items()}


def _same_start(lib, build):
    """`build(lib)` with the reference weights loaded (through numpy)."""
    model = build(lib)
    state = _reference_state(build)
    if state is not None:
        model.load_state_dict({k: lib.tensor(v) for k, v in state.items()})
    return model


def _digits():
    """The demo's data: scikit-learn's 8x8 digits scaled as the demo does (1437 training
    images, 64 features, 10 classes), or random data of that shape without scikit-learn."""
    import numpy as np

    try:
        from sklearn.datasets import load_digits
    except ImportError:
        rng = np.random.default_rng(0)
        x = rng.standard_normal((1437, 64)).astype(np.float32)
        return x, rng.integers(0, 10, 1437)
    d = load_digits()
    x = (d.data[:1437] / 16.0).astype(np.float32)
    x = (x - x.mean()) / x.std()
    return x.astype(np.float32), d.target[:1437].astype(np.int64)


def _mlp(lib):
    nn = lib.nn
    return nn.Sequential(nn.Flatten(), nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))


def setup_mlp_epoch(lib):
    from importlib import import_module

    data = import_module(lib.__name__ + ".utils.data")
    x, y = _digits()
    model = _same_start(lib, _mlp)
    loader = data.DataLoader(
        data.TensorDataset(lib.tensor(x), lib.tensor(y)), batch_size=64, shuffle=True
    )
    return model, lib.optim.Adam(model.parameters(), lr=1e-2), loader


def run_mlp_epoch(lib, s):
    model, opt, loader = s
    F = lib.nn.functional
    for xb, yb in loader:
        loss = F.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return loss


def _lm(lib):
    nn = lib.nn

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(1000, 128)
            self.lstm = nn.LSTM(128, 256, num_layers=1, batch_first=True)
            self.out = nn.Linear(256, 1000)

        def forward(self, tokens):
            h, _ = self.lstm(self.embed(tokens))
            return self.out(h)

    return LM()


def setup_lstm_lm(lib):
    import numpy as np

    rng = np.random.default_rng(0)
    tokens = rng.integers(0, 1000, (32, 36))
    model = _same_start(lib, _lm)
    x, y = lib.tensor(tokens[:, :-1]), lib.tensor(tokens[:, 1:])
    return model, lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9), x, y


def run_lstm_lm(lib, s):
    model, opt, x, y = s
    loss = lib.nn.functional.cross_entropy(model(x).reshape(-1, 1000), y.reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss


def _block(lib):
    return lib.nn.TransformerEncoderLayer(128, 4, dim_feedforward=512, batch_first=True)


def setup_transformer(lib):
    import numpy as np

    rng = np.random.default_rng(0)
    model = _same_start(lib, _block)
    x = lib.tensor(rng.standard_normal((16, 64, 128)).astype(np.float32))
    target = lib.tensor(rng.standard_normal((16, 64, 128)).astype(np.float32))
    return model, lib.optim.AdamW(model.parameters(), lr=1e-3), x, target


def run_transformer(lib, s):
    model, opt, x, target = s
    loss = lib.nn.functional.mse_loss(model(x), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss


def _cnn(lib):
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(128, 10),
    )


def setup_cnn(lib):
    x, y = _digits()
    model = _same_start(lib, _cnn)
    xb = lib.tensor(x[:64].reshape(64, 1, 8, 8))
    return model, lib.optim.Adam(model.parameters(), lr=5e-3), xb, lib.tensor(y[:64])


def run_cnn(lib, s):
    model, opt, x, y = s
    loss = lib.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss


def setup_per_sample_grads(lib):
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(64, 128), lib.nn.ReLU(), lib.nn.Linear(128, 10))
    params = {k: v.detach() for k, v in model.named_parameters()}
    F = lib.nn.functional

    def loss(p, x, t):
        out = lib.func.functional_call(model, p, (x,))
        return F.mse_loss(out, t)

    per_sample = lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))
    return per_sample, params, lib.randn(64, 64), lib.randn(64, 10)


def run_per_sample_grads(lib, s):
    per_sample, params, x, t = s
    return per_sample(params, x, t)


def setup_jacrev_mlp(lib):
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(64, 128), lib.nn.Tanh(), lib.nn.Linear(128, 64))
    for p in model.parameters():
        p.requires_grad_(False)
    return lib.func.jacrev(model), lib.randn(64)


def run_jacrev_mlp(lib, s):
    jac, x = s
    return jac(x)


def setup_jacobian_vectorized(lib):
    lib.manual_seed(0)
    w = lib.randn(256, 256) / 16

    def f(x):
        return lib.sin(x) * (w @ x) + x ** 2

    return f, lib.randn(256)


def run_jacobian_vectorized(lib, s):
    f, x = s
    return lib.autograd.functional.jacobian(f, x, vectorize=True)


CASES = [
    Case("mul 1-elem f32", setup_mul_scalar, run_mul, 0.5),
    Case("mul 1-elem f32 requires_grad", setup_mul_scalar_grad, run_mul, 0.5),
    Case("seed graph 3x3 fwd+bwd", setup_seed_graph, run_seed_graph, 0.3),
    Case("scalar chain 1000 (mul+add) fwd+bwd", setup_scalar_leaf, run_scalar_chain, None),
    Case("tanh chain 10k on 64 elems fwd+bwd", setup_tanh_leaf, run_tanh_chain, None),
    Case("matmul 1024^3 f32", setup_matmul(1024), run_matmul, 1.1),
    Case("(a@b).sum().backward() 512^3", setup_matmul_grad, run_matmul_grad, None),
    # gradrs.linalg (faer on the host) against PyTorch's LAPACK; target 1.0 (issue 24).
    Case("linalg.solve 256 f32", setup_linalg(256), run_solve, 1.0),
    Case("linalg.solve 1024 f32", setup_linalg(1024), run_solve, 1.0),
    Case("linalg.svd 256 f32", setup_linalg(256), run_svd, 1.0),
    Case("linalg.svd 1024 f32", setup_linalg(1024), run_svd, 1.0),
    Case("linalg.cholesky 256 f32", setup_linalg(256), run_cholesky, 1.0),
    Case("linalg.cholesky 1024 f32", setup_linalg(1024), run_cholesky, 1.0),
    # PyTorch's CPU random streams (issue 24): target 1.0.
    Case("randn 16M f32", setup_seeded, run_randn, 1.0),
    Case("rand 16M f32", setup_seeded, run_rand, None),
    Case("MLP 784-256-256-10 step, batch 128, cross-entropy", setup_mlp, run_mlp, 1.2),
    Case("a + b, 16M f32", setup_big_pair, run_add, 0.7),
    Case("a.sum(), 16M f32", setup_big_pair, run_sum, 1.2),
    Case("a * b + a, 1M f32", setup_pair_as("float32"), run_mul_add, None),
    Case("a * b + a, 1M f16", setup_pair_as("float16"), run_mul_add, None),
    Case("a * b + a, 1M int32", setup_pair_as("int32"), run_mul_add, None),
    Case("a.sum(), 1M f16", setup_pair_as("float16"), run_sum, None),
    Case("conv2d fwd+bwd 32x3x32x32, 32 filters 3x3", setup_conv, run_conv, 1.5),
    Case("batch_norm2d train fwd+bwd 32x64x32x32 f32", setup_batch_norm, run_batch_norm, None),
    Case("layer_norm fwd+bwd 32x128x512 f32", setup_layer_norm, run_layer_norm, None),
    Case("softmax(dim=1) 1000x1000 f32", setup_rows, run_softmax, None),
    Case("tanh(x) + sigmoid(x), 1M f32", setup_rows, run_tanh_sigmoid, None),
    Case("sort(dim=1) 1000x1000 f32", setup_rows, run_sort, None),
    Case("topk(5, dim=1) 1000x1000 f32", setup_rows, run_topk, None),
    Case("median(dim=1) 1000x1000 f32", setup_rows, run_median, None),
    Case("clamp(x, -0.5, 0.5), 1M f32", setup_clamp, run_clamp, None),
    Case("x.clamp_min(-0.5), x.clamp_max(0.5), 1M f32", setup_clamp, run_clamp_min_max, None),
    Case("clamp(x, lo, hi) tensor bounds, 1M f32", setup_clamp, run_clamp_tensors, None),
    Case("hardtanh(x), relu6(x), 1M f32", setup_clamp, run_hardtanh_relu6, None),
    # issue 22: per-sample gradients, vmap(grad(loss)) over a small MLP, against torch.func.
    Case("per-sample grads vmap(grad) MLP 64-128-10, batch 64, MSE", setup_per_sample_grads,
         run_per_sample_grads, 1.0),
    # issue 22: Jacobians by one batched backward over the outputs' basis.
    Case("jacrev MLP 64-128-64 tanh, one input", setup_jacrev_mlp, run_jacrev_mlp, 1.0),
    Case("jacobian(vectorize=True) sin(x)*(W@x)+x^2, 256 outputs", setup_jacobian_vectorized,
         run_jacobian_vectorized, 1.0),
    Case("train MLP 64-128-10 epoch, digits 1437, batch 64, Adam", setup_mlp_epoch,
         run_mlp_epoch, 1.0, threads=2),
    Case("train LSTM LM step 1000-128-256, batch 32x35, SGD", setup_lstm_lm, run_lstm_lm, 1.0,
         threads=2),
    Case("train TransformerEncoderLayer step 128/4/512, 16x64, AdamW", setup_transformer,
         run_transformer, 1.0, threads=2),
    Case("train CNN step (demo), batch 64 of 8x8, Adam", setup_cnn, run_cnn, 1.0, threads=2),
]


# --- timing ------------------------------------------------------------------------------------


class Settings(NamedTuple):
    rounds: int  # rounds per library, interleaved
    round_budget_s: float  # time spent sampling one library in one round
    min_samples: int  # per library per round, even past the budget
    max_samples: int  # per library per round
    sample_s: float  # aim of one sample's duration (sets the inner loop count)
    warmup_s: float  # per library, before calibration


# Many short rounds rather than a few long ones: a burst of noise from elsewhere on the machine
# then lands on both libraries about equally. At least 3 samples per round, so a round's median
# is not one sample of a slow case (matmul).
FULL = Settings(
    rounds=20, round_budget_s=0.08, min_samples=3, max_samples=200, sample_s=1e-3, warmup_s=0.2
)
QUICK = Settings(
    rounds=6, round_budget_s=0.03, min_samples=3, max_samples=50, sample_s=5e-4, warmup_s=0.02
)


def time_sample(run, lib, state, number):
    """Mean ns per call over `number` back-to-back calls."""
    loop = itertools.repeat(None, number)
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        t0 = time.perf_counter_ns()
        for _ in loop:
            run(lib, state)
        t1 = time.perf_counter_ns()
    finally:
        if gc_was_on:
            gc.enable()
    return (t1 - t0) / number


def warm_and_calibrate(run, lib, state, s: Settings):
    """Run for warmup_s (at least twice), then pick how many calls make one sample."""
    deadline = time.perf_counter() + s.warmup_s
    calls = 0
    while calls < 2 or time.perf_counter() < deadline:
        run(lib, state)
        calls += 1
    per_call = min(time_sample(run, lib, state, 1) for _ in range(3))
    return max(1, int(s.sample_s * 1e9 / max(per_call, 1.0)))


def measure(case: Case, libs, s: Settings):
    """Ns per call for each library in `libs` (a list of (label, module)): the lowest per-round
    median; and the noise."""
    states = {label: case.setup(lib) for label, lib in libs}
    numbers = {label: warm_and_calibrate(case.run, lib, states[label], s) for label, lib in libs}
    samples = {label: [] for label, _ in libs}
    round_medians = {label: [] for label, _ in libs}
    for r in range(s.rounds):
        order = libs if r % 2 == 0 else libs[::-1]
        for label, lib in order:
            got = []
            n = 0
            deadline = time.perf_counter() + s.round_budget_s
            while n < s.max_samples and (n < s.min_samples or time.perf_counter() < deadline):
                got.append(time_sample(case.run, lib, states[label], numbers[label]))
                n += 1
            samples[label] += got
            round_medians[label].append(statistics.median(got))
        gc.collect()
    return {label: min(v) for label, v in round_medians.items()}, noise(samples)


def noise(samples):
    """The largest relative interquartile range among the libraries: how far to trust a ratio."""
    worst = 0.0
    for v in samples.values():
        if len(v) >= 4:
            q1, _, q3 = statistics.quantiles(v, n=4)
            worst = max(worst, (q3 - q1) / statistics.median(v))
    return worst


# --- output ------------------------------------------------------------------------------------


def fmt_ns(ns):
    if ns is None:
        return "-"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def print_table(rows, with_torch):
    head = ["case", "gradrs", "torch", "ratio", "target", "status", "noise"]
    if not with_torch:
        head = [head[0], head[1], head[-1]]
        rows = [[row[0], row[1], row[-1]] for row in rows]
    body = [[str(c) for c in row[: len(head)]] for row in rows]
    widths = [max(len(x) for x in col) for col in zip(head, *body)]

    def line(cells):
        first = cells[0].ljust(widths[0])
        rest = [c.rjust(w) for c, w in zip(cells[1:], widths[1:])]
        return "  ".join([first, *rest])

    print(line(head))
    print("  ".join("-" * w for w in widths))
    for cells in body:
        print(line(cells))


# --- main --------------------------------------------------------------------------------------


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="Time gradrs and PyTorch side by side (lowest per-round median per call; "
        "ratio gradrs/torch)."
    )
    p.add_argument(
        "--threads",
        type=int,
        default=1,
        help="threads for both libraries (default 1: the per-op cases are read at 1)",
    )
    p.add_argument(
        "--only", metavar="SUBSTRING", help="run only the cases whose name contains SUBSTRING"
    )
    p.add_argument("--quick", action="store_true", help="fewer rounds and shorter samples")
    p.add_argument("--list", action="store_true", help="list the cases and exit")
    # Checks this script's own logic with torch in both columns (ratios should be ~1).
    p.add_argument("--self-test", action="store_true", help=argparse.SUPPRESS)
    # Set by the parent process: run only the cases fixed at this many threads.
    p.add_argument("--fixed-threads", type=int, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.threads < 1:
        p.error("--threads must be >= 1")
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)

    cases = [c for c in CASES if args.only is None or args.only in c.name]
    if args.list:
        for c in CASES:
            fixed = f", {c.threads} threads" if c.threads is not None else ""
            print(f"{c.name}  (target {c.target if c.target is not None else '-'}{fixed})")
        return 0
    if args.fixed_threads is not None:
        cases = [c for c in cases if c.threads == args.fixed_threads]
        args.threads = args.fixed_threads
    if not cases:
        print(f"no case name contains {args.only!r}; --list shows them", file=sys.stderr)
        return 1

    counts = sorted({c.threads or args.threads for c in cases})
    if len(counts) == 1:
        return run_cases(cases, args, counts[0])
    # gradrs sizes its thread pool once per process: each count other than --threads runs in a
    # child process of this script.
    status = 0
    own = [c for c in cases if c.threads in (None, args.threads)]
    if own:
        status = run_cases(own, args, args.threads)
    for n in counts:
        if n == args.threads:
            continue
        print(flush=True)
        cmd = [sys.executable, os.path.abspath(__file__), "--fixed-threads", str(n)]
        cmd += ["--only", args.only] if args.only is not None else []
        cmd += ["--quick"] * args.quick + ["--self-test"] * args.self_test
        status = max(status, subprocess.run(cmd, check=False).returncode)
    return status


def run_cases(cases, args, threads):
    """Time `cases` with both libraries on `threads` threads; print the table. Exit status."""
    # Must precede the first import of gradrs: rayon sizes its pool from it, once.
    os.environ["RAYON_NUM_THREADS"] = str(threads)

    try:
        import torch
    except ImportError:
        torch = None

    if args.self_test:
        if torch is None:
            print("--self-test needs torch", file=sys.stderr)
            return 1
        gradrs, gradrs_label = torch, "torch (as gradrs)"
    else:
        try:
            import gradrs
        except ImportError as err:
            print(
                f"gradrs is not importable ({err}).\n"
                "Build and install it first: `pip install .` or `maturin develop --release`.",
                file=sys.stderr,
            )
            return 1
        gradrs_label = "gradrs " + getattr(gradrs, "__version__", "?")

    if torch is not None:
        torch.set_num_threads(threads)
    if hasattr(gradrs, "set_num_threads"):
        gradrs.set_num_threads(threads)

    libs = [("gradrs", gradrs)]
    if torch is not None:
        libs.append(("torch", torch))

    settings = QUICK if args.quick else FULL
    print(
        f"{gradrs_label} vs "
        + (f"torch {torch.__version__}" if torch is not None else "(torch not importable)")
    )
    print(
        f"python {platform.python_version()}, {platform.machine()}, threads={threads}, "
        f"{'quick' if args.quick else 'full'}: {settings.rounds} interleaved rounds, "
        f"~{settings.sample_s * 1e3:g} ms samples; lowest per-round median time per call"
    )
    print()

    rows, failed = [], False
    for case in cases:
        try:
            med, spread = measure(case, libs, settings)
        except Exception as err:  # noqa: BLE001 - a missing op must not hide the other cases
            failed = True
            rows.append([case.name, f"ERROR {type(err).__name__}: {err}"[:60], "", "", "", "", ""])
            continue
        g, t = med["gradrs"], med.get("torch")
        ratio = g / t if t else None
        if case.target is None or ratio is None:
            status = "report"
        else:
            status = "ok" if ratio <= case.target else "MISS"
        rows.append(
            [
                case.name,
                fmt_ns(g),
                fmt_ns(t),
                f"{ratio:.3f}" if ratio is not None else "-",
                f"<= {case.target:g}" if case.target is not None else "-",
                status,
                f"{spread:.0%}",
            ]
        )
        print(f"  done: {case.name}", file=sys.stderr, flush=True)

    print_table(rows, with_torch=torch is not None)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
