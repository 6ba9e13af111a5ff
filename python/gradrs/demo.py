"""The demo: the autograd tour of the seed documents, then models trained on real data.

Run it with ``python -m gradrs.demo`` (``--help`` for the options). Part one walks through the
seed documents' autograd examples; part two trains an MLP and a small CNN on scikit-learn's 8x8
digits (bundled with scikit-learn: no download) with ``nn``, ``optim`` and ``utils.data``, on a
hardware GPU when there is one, saves each model, reloads it and checks the reloaded accuracy.
The file only uses PyTorch's API through ``import gradrs as torch``, so it reads (and runs) as
PyTorch code too.
"""

import argparse
import os
import re
import tempfile
import time

import gradrs as torch
import gradrs.nn.functional as F
from gradrs import nn
from gradrs.utils.data import DataLoader, TensorDataset


def section(title):
    print()
    print("=" * 72)
    print(title)
    print("=" * 72)


def fn_name(grad_fn):
    """A grad_fn's repr without its memory address, so the output is the same on every run."""
    return re.sub(r" at 0x[0-9a-fA-F]+", "", repr(grad_fn))


def describe(name, t):
    # Reading .grad of a non-leaf makes PyTorch warn (backward never fills it), so skip it there.
    grad = t.grad if t.is_leaf else "None (not a leaf: backward() leaves it unset)"
    print(f"{name}")
    print(f"  data:          {t.data}")
    print(f"  requires_grad: {t.requires_grad}")
    print(f"  grad:          {grad}")
    print(f"  grad_fn:       {fn_name(t.grad_fn)}")
    print(f"  is_leaf:       {t.is_leaf}")


def tour_graph():
    section("1. Building a graph: z = x * y")
    x = torch.tensor(1.0, requires_grad=True)
    y = torch.tensor(2.0)
    z = x * y
    for name, t in zip("xyz", [x, y, z]):
        describe(name, t)

    print()
    print("requires_grad is contagious; requires_grad_() switches it on in place:")
    a = torch.randn(2, 2)
    a = (a * 3) / (a - 1)
    print(f"  a.requires_grad = {a.requires_grad}")
    a.requires_grad_(True)
    print(f"  after a.requires_grad_(True): {a.requires_grad}")
    b = a * a
    print(f"  b = a * a -> b.grad_fn = {fn_name(b.grad_fn)}")


def tour_scalar_backward():
    section("2. backward() on a scalar")
    x = torch.tensor(1.0, requires_grad=True)
    z = x**3
    z.backward()  # same as z.backward(torch.tensor(1.0))
    print(f"z = x**3 at x = 1; z.backward(); x.grad = {x.grad!s}   (dz/dx = 3x^2)")

    a = torch.tensor(1.0, requires_grad=True)
    b = a + 2
    c = a * b
    c.backward()
    print(f"c = a * (a + 2) at a = 1; c.backward(); a.grad = {a.grad!s}   (dc/da = 2a + 2)")


def f(x):
    y = x * 2
    z = y * y * 2
    return z


def tour_vjp():
    section("3. backward(v): the vector-Jacobian product")
    x = torch.ones(3, requires_grad=True)
    print(f"f(x) = 8 x^2 at x = ones(3): {f(x)}")

    v = torch.tensor([1.0, 2.0, 3.0])
    f(x).backward(v, retain_graph=True)
    print(f"f(x).backward(v = {v}, retain_graph=True)")
    print(f"  x.grad = {x.grad}   (v^T J with J = 16 I)")

    x.grad.zero_()  # otherwise the next backward adds to it
    f(x).backward(torch.ones(3), retain_graph=True)
    print("x.grad.zero_(); f(x).backward(torch.ones(3), retain_graph=True)")
    print(f"  x.grad = {x.grad}   (the plain derivative)")


def tour_accumulation():
    section("4. Gradients accumulate across backward calls")
    x = torch.tensor([2.0, 2.0], requires_grad=True)
    z = torch.tensor([4.0, 4.0], requires_grad=True)
    y = x**2 + z**3  # dy/dx = 2x = 4, dy/dz = 3z^2 = 48
    w = torch.ones(2)
    for i in range(1, 4):
        y.backward(w, retain_graph=True)
        print(f"after backward #{i}: x.grad = {x.grad}, z.grad = {z.grad}")
    x.grad.zero_()
    z.grad.zero_()
    print(f"after x.grad.zero_(), z.grad.zero_(): x.grad = {x.grad}, z.grad = {z.grad}")


def tour_backward_twice():
    section("5. backward twice without retain_graph")
    x = torch.tensor([2.0, 2.0], requires_grad=True)
    z = torch.tensor([4.0, 4.0], requires_grad=True)
    y = x**2 + z**3
    w = torch.ones(2)
    y.backward(w)
    print(f"first y.backward(w): x.grad = {x.grad}, z.grad = {z.grad}")
    try:
        y.backward(w)
    except RuntimeError as err:
        print(f"second y.backward(w) raises RuntimeError:\n  {err}")
    else:
        print("second y.backward(w) raised no error (PyTorch raises one here)")


def seed_graph():
    """The seed article's network: five 3x3 leaves and d = w3*(w1*a) + w4*(w2*a)."""
    a, w1, w2, w3, w4 = (torch.randn(3, 3, requires_grad=True) for _ in range(5))
    b = w1 * a
    c = w2 * a
    d = w3 * b + w4 * c
    return (a, w1, w2, w3, w4), (b, c, d)


def tour_non_scalar_error():
    section("6. backward() on a non-scalar needs a gradient argument")
    _, (_, _, d) = seed_graph()
    L = 10 - d
    try:
        L.backward()
    except RuntimeError as err:
        print(f"L = 10 - d (3x3); L.backward() raises RuntimeError:\n  {err}")
    else:
        print("L.backward() raised no error (PyTorch raises one here)")
    L.backward(torch.ones(L.shape))
    print("L.backward(torch.ones(L.shape)) works: it is the sum's gradient")


def tour_seed_graph():
    section("7. The seed article's graph: L = (10 - d).sum()")
    (a, w1, w2, w3, w4), (b, c, d) = seed_graph()
    L = (10 - d).sum()
    for name, t in [("a", a), ("w1", w1), ("b", b), ("c", c), ("d", d), ("L", L)]:
        print(f"{name:>2}: is_leaf={t.is_leaf!s:<5}  grad_fn={fn_name(t.grad_fn)}")
    L.backward()
    print()
    print(f"w1.grad (= -w3 * a):\n{w1.grad}")
    print(f"a.grad (= -(w3 * w1 + w4 * w2)):\n{a.grad}")
    with torch.no_grad():
        expected = -(w3 * w1 + w4 * w2)
        err = ((a.grad - expected) ** 2).sum().item()
    print(f"squared error of a.grad against the chain rule by hand: {err:.3g}")


def tour_no_grad_detach():
    section("8. Stopping the graph: no_grad() and detach()")
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    print(
        f"y = x * 2:                    requires_grad={y.requires_grad}, "
        f"grad_fn={fn_name(y.grad_fn)}"
    )
    with torch.no_grad():
        y = x * 2
    print(
        f"y = x * 2 under no_grad():    requires_grad={y.requires_grad}, "
        f"grad_fn={fn_name(y.grad_fn)}"
    )
    x_d = x.detach()
    print(
        f"x_d = x.detach():             requires_grad={x_d.requires_grad}, "
        f"is_leaf={x_d.is_leaf}, data={x_d}"
    )
    y = x_d * 2
    print(
        f"y = x.detach() * 2:           requires_grad={y.requires_grad}, "
        f"grad_fn={fn_name(y.grad_fn)}"
    )


def train_linear():
    section("9. Training: fit y = 3x + 2 with raw tensors and manual SGD")
    n = 64
    x = torch.randn(n)
    y = 3 * x + 2 + 0.1 * torch.randn(n)

    w = torch.tensor(0.0, requires_grad=True)
    b = torch.tensor(0.0, requires_grad=True)
    lr = 0.05
    steps = 60
    for step in range(steps + 1):
        pred = w * x + b
        loss = ((pred - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
            w.grad.zero_()
            b.grad.zero_()
        if step % 10 == 0:
            print(f"step {step:3d}: loss = {loss.item():.6f}")
    print(f"learned w = {w.item():.4f}, b = {b.item():.4f}   (true: w = 3, b = 2)")


# ---- part two: training on real data --------------------------------------------------------


def pick_device():
    """A hardware GPU when there is one, the CPU otherwise (a software Vulkan adapter such as
    Mesa's lavapipe counts as none unless GRADRS_GPU_ALLOW_SOFTWARE=1)."""
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def load_digits_split(test_fraction=0.2, seed=0):
    """scikit-learn's 1,797 8x8 digit images as float32 tensors, split into train and test sets
    by a seeded permutation, scaled by the training set's mean and std."""
    try:
        from sklearn.datasets import load_digits
    except ImportError as err:
        raise SystemExit(
            "the training part of the demo needs scikit-learn and tqdm: "
            'pip install ".[demo]" (or pip install scikit-learn tqdm)'
        ) from err
    digits = load_digits()
    x = torch.tensor(digits.data, dtype=torch.float32) / 16.0
    y = torch.tensor(digits.target, dtype=torch.int64)
    perm = torch.randperm(len(x), generator=torch.Generator().manual_seed(seed))
    x, y = x[perm], y[perm]
    n_test = int(len(x) * test_fraction)
    x_train, y_train, x_test, y_test = x[n_test:], y[n_test:], x[:n_test], y[:n_test]
    mean, std = x_train.mean(), x_train.std()
    return (x_train - mean) / std, y_train, (x_test - mean) / std, y_test


class MLP(nn.Module):
    def __init__(self, hidden=128):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, 10))

    def forward(self, x):
        return self.net(x)


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, kernel_size=3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, kernel_size=3, padding=1)
        self.fc = nn.Linear(32 * 2 * 2, 10)

    def forward(self, x):
        x = x.view(-1, 1, 8, 8)
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(torch.flatten(x, 1))


def accuracy(model, x, y, batch_size=512):
    model.eval()
    correct = 0
    with torch.no_grad():
        for i in range(0, len(x), batch_size):
            logits = model(x[i:i + batch_size])
            correct += (logits.argmax(dim=1) == y[i:i + batch_size]).sum().item()
    return correct / len(x)


def fit(model, data, device, epochs, lr, progress=True):
    """Adam on cross-entropy, a tqdm bar per epoch showing the running loss."""
    from tqdm import tqdm

    x_train, y_train, x_test, y_test = data
    loader = DataLoader(TensorDataset(x_train, y_train), batch_size=64, shuffle=True,
                        generator=torch.Generator().manual_seed(0))
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    for epoch in range(1, epochs + 1):
        model.train()
        running, seen = 0.0, 0
        bar = tqdm(loader, desc=f"epoch {epoch:2d}/{epochs}", leave=False, disable=not progress)
        for xb, yb in bar:
            xb, yb = xb.to(device), yb.to(device)
            loss = F.cross_entropy(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            running += loss.item() * len(xb)
            seen += len(xb)
            bar.set_postfix(loss=f"{running / seen:.4f}")
        acc = accuracy(model, x_test, y_test)
        if progress:
            print(f"  epoch {epoch:2d}: train loss {running / seen:.4f}, test accuracy {acc:.2%}")
    return accuracy(model, x_test, y_test)


def train_digits(epochs=10, device=None, progress=True, seed=0):
    """Train the MLP and the CNN on the digits; save, reload and re-check each. Returns
    {name: (accuracy, reloaded accuracy, seconds)}."""
    section("10. Training on real data: scikit-learn's 8x8 digits, an MLP and a CNN")
    torch.manual_seed(seed)
    device = device if device is not None else pick_device()
    x_train, y_train, x_test, y_test = load_digits_split(seed=seed)
    data = (x_train, y_train, x_test.to(device), y_test.to(device))
    print(f"{len(x_train)} training and {len(x_test)} test images, device {device}")
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, make, lr in (("MLP", MLP, 1e-2), ("CNN", CNN, 5e-3)):
            model = make().to(device)
            print(f"\n{name}:\n{model}")
            t0 = time.perf_counter()
            acc = fit(model, data, device, epochs, lr, progress)
            seconds = time.perf_counter() - t0
            path = os.path.join(tmp, f"digits_{name.lower()}.pt")
            torch.save(model.state_dict(), path)
            reloaded = make().to(device)
            reloaded.load_state_dict(torch.load(path, map_location=device))
            acc_reloaded = accuracy(reloaded, data[2], data[3])
            print(f"{name}: test accuracy {acc:.2%} after {epochs} epochs in {seconds:.1f} s; "
                  f"saved to {os.path.basename(path)} ({os.path.getsize(path)} bytes), "
                  f"reloaded: {acc_reloaded:.2%}")
            results[name] = (acc, acc_reloaded, seconds)
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m gradrs.demo", description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=10, help="training epochs per model")
    parser.add_argument("--device", default=None, help="cpu or cuda/gpu (default: a hardware GPU if any)")
    parser.add_argument("--no-tour", action="store_true", help="skip the autograd tour")
    parser.add_argument("--no-train", action="store_true", help="skip the training part")
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    if not args.no_tour:
        tour()
    if not args.no_train:
        device = torch.device(args.device) if args.device else None
        train_digits(epochs=args.epochs, device=device)


def tour():
    print("The autograd tour (import gradrs as torch)")
    tour_graph()
    tour_scalar_backward()
    tour_vjp()
    tour_accumulation()
    tour_backward_twice()
    tour_non_scalar_error()
    tour_seed_graph()
    tour_no_grad_detach()
    train_linear()


if __name__ == "__main__":
    main()
