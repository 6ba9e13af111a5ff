"""Hinton's Forward-Forward algorithm, following pytorch/examples' mnist_forward_forward (layers
trained locally on a goodness threshold, labels overlaid on the first pixels), on a synthetic
10-class dataset of 28x28 "digits" so it runs offline."""
import argparse
import time

import torch
import torch.nn as nn
from torch.optim import Adam
from torch.utils.data import DataLoader, TensorDataset


def overlay_y_on_x(x, y):
    x_ = x.clone()
    x_[:, :10] *= 0.0
    x_[range(x.shape[0]), y] = x.max()
    return x_


class Net(torch.nn.Module):
    def __init__(self, dims):
        super().__init__()
        self.layers = []
        for d in range(len(dims) - 1):
            self.layers = self.layers + [Layer(dims[d], dims[d + 1]).to(device)]

    def predict(self, x):
        goodness_per_label = []
        for label in range(10):
            h = overlay_y_on_x(x, label)
            goodness = []
            for layer in self.layers:
                h = layer(h)
                goodness = goodness + [h.pow(2).mean(1)]
            goodness_per_label += [sum(goodness).unsqueeze(1)]
        goodness_per_label = torch.cat(goodness_per_label, 1)
        return goodness_per_label.argmax(1)

    def train(self, x_pos, x_neg):
        h_pos, h_neg = x_pos, x_neg
        for i, layer in enumerate(self.layers):
            print("training layer: ", i)
            h_pos, h_neg = layer.train(h_pos, h_neg)


class Layer(nn.Linear):
    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__(in_features, out_features, bias, device, dtype)
        self.relu = torch.nn.ReLU()
        self.opt = Adam(self.parameters(), lr=args.lr)
        self.threshold = args.threshold
        self.num_epochs = args.epochs

    def forward(self, x):
        x_direction = x / (x.norm(2, 1, keepdim=True) + 1e-4)
        return self.relu(torch.mm(x_direction, self.weight.T) + self.bias.unsqueeze(0))

    def train(self, x_pos, x_neg):
        for i in range(self.num_epochs):
            g_pos = self.forward(x_pos).pow(2).mean(1)
            g_neg = self.forward(x_neg).pow(2).mean(1)
            loss = torch.log(1 + torch.exp(torch.cat([-g_pos + self.threshold, g_neg - self.threshold]))).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            if i % args.log_interval == 0:
                print("Loss: ", loss.item())
        return self.forward(x_pos).detach(), self.forward(x_neg).detach()


def synthetic_digits(n, gen, protos):
    y = torch.randint(0, 10, (n,), generator=gen)
    x = protos[y] + 0.35 * torch.randn(n, 784, generator=gen)
    x = (x - 0.1307) / 0.3081
    return x, y


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=200, metavar="N")
    parser.add_argument("--lr", type=float, default=0.03, metavar="LR")
    parser.add_argument("--no_cuda", action="store_true", default=False)
    parser.add_argument("--no_mps", action="store_true", default=False)
    parser.add_argument("--seed", type=int, default=1, metavar="S")
    parser.add_argument("--train_size", type=int, default=1000)
    parser.add_argument("--threshold", type=float, default=2)
    parser.add_argument("--test_size", type=int, default=500)
    parser.add_argument("--log-interval", type=int, default=50)
    args = parser.parse_args([])
    use_cuda = not args.no_cuda and torch.cuda.is_available()
    use_mps = not args.no_mps and torch.backends.mps.is_available()
    if use_cuda:
        device = torch.device("cuda")
    elif use_mps:
        device = torch.device("mps")
    else:
        device = torch.device("cpu")
    print("device:", device)
    torch.manual_seed(args.seed)
    gen = torch.Generator().manual_seed(args.seed)
    protos = torch.rand(10, 784, generator=gen)
    xtr, ytr = synthetic_digits(args.train_size, gen, protos)
    xte, yte = synthetic_digits(args.test_size, gen, protos)
    train_loader = DataLoader(TensorDataset(xtr, ytr), batch_size=args.train_size, shuffle=False)
    test_loader = DataLoader(TensorDataset(xte, yte), batch_size=args.test_size, shuffle=False)

    net = Net([784, 100, 100])
    x, y = next(iter(train_loader))
    x, y = x.to(device), y.to(device)
    x_pos = overlay_y_on_x(x, y)
    rnd = torch.randperm(x.size(0))
    x_neg = overlay_y_on_x(x, y[rnd])
    start = time.time()
    net.train(x_pos, x_neg)
    assert time.time() - start >= 0
    print("train error:", 1.0 - net.predict(x).eq(y).float().mean().item())
    x_te, y_te = next(iter(test_loader))
    x_te, y_te = x_te.to(device), y_te.to(device)
    print("test error:", 1.0 - net.predict(x_te).eq(y_te).float().mean().item())
