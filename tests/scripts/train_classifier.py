"""A PyTorch program, unmodified: an MLP classifier with nn, optim, a DataLoader and the usual
set-up calls (device choice, cudnn flags, matmul precision, torch.compile)."""

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset, random_split


class MLP(nn.Module):
    def __init__(self, in_features, hidden, classes):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden)
        self.fc2 = nn.Linear(hidden, classes)
        self.dropout = nn.Dropout(0.1)

    def forward(self, x):
        return self.fc2(self.dropout(F.relu(self.fc1(x))))


def make_data(n):
    # three Gaussian blobs in 4-D, one per class
    labels = torch.randint(0, 3, (n,))
    centers = torch.tensor([[2.0, 0.0, 0.0, 1.0], [-2.0, 1.0, 0.0, 0.0], [0.0, -2.0, 2.0, 0.0]])
    points = centers[labels] + 0.7 * torch.randn(n, 4)
    return TensorDataset(points, labels)


def evaluate(model, loader, device):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            correct += (model(x).argmax(dim=1) == y).sum().item()
            total += y.numel()
    return correct / total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--device", default=None)
    parser.add_argument("--workers", type=int, default=0)
    args = parser.parse_args()

    torch.manual_seed(0)
    torch.cuda.manual_seed_all(0)
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.deterministic = False
    torch.set_float32_matmul_precision("high")
    if args.device is not None:
        device = torch.device(args.device)
    elif torch.accelerator.is_available():
        device = torch.accelerator.current_accelerator()
    else:
        device = torch.device("cpu")

    generator = torch.Generator().manual_seed(0)
    train_set, test_set = random_split(make_data(600), [500, 100], generator=generator)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, drop_last=True,
                              num_workers=args.workers)
    test_loader = DataLoader(test_set, batch_size=50)

    model = torch.compile(MLP(4, 32, 3).to(device))
    optimizer = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    print(f"library: {torch.__name__}")
    for epoch in range(args.epochs):
        model.train()
        total = 0.0
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            total += loss.item()
        print(f"epoch {epoch}: loss {total / len(train_loader):.4f}")
    print(f"accuracy {evaluate(model, test_loader, device):.3f}")


if __name__ == "__main__":
    main()
