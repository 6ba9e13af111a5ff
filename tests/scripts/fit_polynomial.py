"""A PyTorch program, unmodified: fit a cubic to sin(x) with raw tensors, autograd and F."""

import argparse
import math

import torch
import torch.nn.functional as F


def main():
    parser = argparse.ArgumentParser(description="fit y = a + b x + c x^2 + d x^3 to sin(x)")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--lr", type=float, default=2e-3)
    args = parser.parse_args()

    torch.manual_seed(0)
    x = torch.linspace(-math.pi, math.pi, 200, dtype=torch.float64)
    y = torch.sin(x)
    powers = torch.stack([x ** 0, x, x ** 2, x ** 3], dim=1)
    # A fixed start, so the printed losses can be compared with PyTorch's digit for digit.
    coef = torch.tensor([0.5, -0.5, 0.1, 0.0], dtype=torch.float64, requires_grad=True)

    print(f"library: {torch.__name__}")
    for step in range(args.steps):
        loss = F.mse_loss(powers @ coef, y, reduction="sum")
        if step % 50 == 0:
            print(f"step {step}: loss {loss.item():.6f}")
        loss.backward()
        with torch.no_grad():
            coef -= args.lr * coef.grad / len(x)
            coef.grad.zero_()
    print(f"final loss {loss.item():.6f}")
    print("coefficients", [round(c, 6) for c in coef.tolist()])


if __name__ == "__main__":
    main()
