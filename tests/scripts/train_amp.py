"""A PyTorch program, unmodified: mixed-precision training with torch.autocast and
torch.amp.GradScaler on the GPU when there is one (float16 on the CPU otherwise)."""

import argparse

import torch
from torch import nn, optim


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = parser.parse_args()
    device = torch.device(args.device)
    device_type = "cuda" if device.type != "cpu" else "cpu"

    torch.manual_seed(0)
    # y = x @ true_w.T + 0.5: a regression a small network fits quickly
    x = torch.randn(256, 8)
    true_w = torch.randn(2, 8)
    y = x @ true_w.T + 0.5
    x, y = x.to(device), y.to(device)

    model = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 2)).to(device)
    optimizer = optim.Adam(model.parameters(), lr=1e-2)
    scaler = torch.amp.GradScaler(device_type)
    loss_fn = nn.MSELoss()

    print(f"library: {torch.__name__}")
    for step in range(args.steps):
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type=device_type, dtype=torch.float16):
            out = model(x)
            loss = loss_fn(out, y)
        assert out.dtype == torch.float16 and loss.dtype == torch.float32
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        nn.utils.clip_grad_norm_(model.parameters(), max_norm=5.0)
        scaler.step(optimizer)
        scaler.update()
        if step % 20 == 0:
            print(f"step {step}: loss {loss.item():.4f} scale {scaler.get_scale():.0f}")
    print(f"final loss {loss.item():.4f}")
    assert all(p.dtype == torch.float32 for p in model.parameters())


if __name__ == "__main__":
    main()
