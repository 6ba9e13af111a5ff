"""A PyTorch program, unmodified: a small CNN (Conv2d, BatchNorm2d, MaxPool2d) trained with Adam
and a StepLR schedule, saved with torch.save and reloaded. Everything is deterministic (no
random numbers), so its printed losses can be compared with PyTorch's digit for digit."""

import argparse
import math
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim import Adam
from torch.optim.lr_scheduler import StepLR


def make_images(n):
    """Class 0: a bright horizontal bar, class 1: a vertical one, at every position."""
    images = torch.zeros(n, 1, 8, 8)
    labels = torch.arange(n) % 2
    for i in range(n):
        row = (i // 2) % 8
        texture = 0.1 * torch.sin(torch.arange(64, dtype=torch.float32) * (i + 1)).reshape(8, 8)
        images[i, 0] = texture
        if labels[i] == 0:
            images[i, 0, row, :] += 1.0
        else:
            images[i, 0, :, row] += 1.0
    return images, labels


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 4, kernel_size=3, padding=1, bias=False),  # BatchNorm follows
            nn.BatchNorm2d(4),
            nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.classifier = nn.Linear(4 * 4 * 4, 2)

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


def init_weights(module):
    # a fixed, asymmetric start instead of random draws
    with torch.no_grad():
        for name, p in module.named_parameters():
            values = torch.arange(p.numel(), dtype=torch.float32)
            p.copy_((0.3 * torch.cos(values * 1.7 + len(name))).reshape(p.shape))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=6)
    args = parser.parse_args()

    x, y = make_images(32)
    model = Net()
    init_weights(model)
    optimizer = Adam(model.parameters(), lr=0.05)
    scheduler = StepLR(optimizer, step_size=2, gamma=0.5)
    print(f"library: {torch.__name__}")
    print(model)
    for epoch in range(args.epochs):
        model.train()
        for start in range(0, len(x), 8):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x[start:start + 8]), y[start:start + 8])
            loss.backward()
            optimizer.step()
        scheduler.step()
        print(f"epoch {epoch}: loss {loss.item():.5f} lr {scheduler.get_last_lr()[0]:.4f}")

    model.eval()
    with torch.no_grad():
        accuracy = (model(x).argmax(1) == y).float().mean().item()
    print(f"accuracy {accuracy:.3f}")

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "net.pt")
        torch.save(model.state_dict(), path)
        restored = Net()
        restored.load_state_dict(torch.load(path, weights_only=True))
    restored.eval()
    with torch.no_grad():
        same = bool((restored(x) == model(x)).all())
    print(f"reloaded equal: {same}")
    assert math.isfinite(loss.item())


if __name__ == "__main__":
    main()
