"""locuslab/TCN on the adding problem: Chomp1d, dilated causal Conv1d with torch.nn.utils
weight_norm (weight_g / weight_v), residual 1x1 downsample, receptive field, gradient clipping,
then the parametrizations form of weight_norm and removing it for inference."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import weight_norm


class Chomp1d(nn.Module):
    def __init__(self, chomp_size):
        super().__init__()
        self.chomp_size = chomp_size

    def forward(self, x):
        return x[:, :, :-self.chomp_size].contiguous()


class TemporalBlock(nn.Module):
    def __init__(self, n_inputs, n_outputs, kernel_size, stride, dilation, padding, dropout=0.2):
        super().__init__()
        self.conv1 = weight_norm(nn.Conv1d(n_inputs, n_outputs, kernel_size,
                                           stride=stride, padding=padding, dilation=dilation))
        self.chomp1 = Chomp1d(padding)
        self.relu1 = nn.ReLU()
        self.dropout1 = nn.Dropout(dropout)
        self.conv2 = weight_norm(nn.Conv1d(n_outputs, n_outputs, kernel_size,
                                           stride=stride, padding=padding, dilation=dilation))
        self.chomp2 = Chomp1d(padding)
        self.relu2 = nn.ReLU()
        self.dropout2 = nn.Dropout(dropout)
        self.net = nn.Sequential(self.conv1, self.chomp1, self.relu1, self.dropout1,
                                 self.conv2, self.chomp2, self.relu2, self.dropout2)
        self.downsample = nn.Conv1d(n_inputs, n_outputs, 1) if n_inputs != n_outputs else None
        self.relu = nn.ReLU()
        self.init_weights()

    def init_weights(self):
        self.conv1.weight.data.normal_(0, 0.01)
        self.conv2.weight.data.normal_(0, 0.01)
        if self.downsample is not None:
            self.downsample.weight.data.normal_(0, 0.01)

    def forward(self, x):
        out = self.net(x)
        res = x if self.downsample is None else self.downsample(x)
        return self.relu(out + res)


class TemporalConvNet(nn.Module):
    def __init__(self, num_inputs, num_channels, kernel_size=2, dropout=0.2):
        super().__init__()
        layers = []
        for i in range(len(num_channels)):
            dilation_size = 2 ** i
            in_channels = num_inputs if i == 0 else num_channels[i - 1]
            out_channels = num_channels[i]
            layers += [TemporalBlock(in_channels, out_channels, kernel_size, stride=1, dilation=dilation_size,
                                     padding=(kernel_size - 1) * dilation_size, dropout=dropout)]
        self.network = nn.Sequential(*layers)

    def forward(self, x):
        return self.network(x)


class TCN(nn.Module):
    def __init__(self, input_size, output_size, num_channels, kernel_size, dropout):
        super().__init__()
        self.tcn = TemporalConvNet(input_size, num_channels, kernel_size=kernel_size, dropout=dropout)
        self.linear = nn.Linear(num_channels[-1], output_size)
        self.linear.weight.data.normal_(0, 0.01)

    def forward(self, x):
        y1 = self.tcn(x)
        return self.linear(y1[:, :, -1])


def data_generator(T, mb_size):
    seq = torch.rand([mb_size, 1, T])
    zeros = torch.zeros([mb_size, 1, T])
    for i in range(mb_size):
        positions = torch.randperm(T)[:2]
        zeros[i, 0, positions] = 1
    x = torch.cat((seq, zeros), dim=1)
    y = torch.sum(seq * zeros, dim=2)
    return x, y


torch.manual_seed(1111)
T = 24
X_train, Y_train = data_generator(T, 200)
X_test, Y_test = data_generator(T, 50)
print("X_train", tuple(X_train.shape), "Y_train", tuple(Y_train.shape))
model = TCN(2, 1, [12, 12, 12, 12], kernel_size=3, dropout=0.0)
block = model.tcn.network[0]
print(block.conv1)
print(sorted(n for n, _ in block.conv1.named_parameters()))
print("weight_g", tuple(block.conv1.weight_g.shape), "weight_v", tuple(block.conv1.weight_v.shape))
print("receptive field:", 1 + 2 * (3 - 1) * sum(2 ** i for i in range(4)))
optimizer = torch.optim.Adam(model.parameters(), lr=4e-3)

for epoch in range(1, 5):
    model.train()
    total = 0.0
    for i in range(0, 200, 25):
        x, y = X_train[i:i + 25], Y_train[i:i + 25]
        optimizer.zero_grad()
        output = model(x)
        loss = F.mse_loss(output, y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        optimizer.step()
        total += loss.item()
    model.eval()
    with torch.no_grad():
        test_loss = F.mse_loss(model(X_test), Y_test)
    print(f"epoch {epoch} train loss {total / 8:.6f} test loss {test_loss.item():.6f}")

# the causal property: output at t does not depend on inputs after t
x = X_test[:1].clone().requires_grad_()
model.tcn(x)[0, :, 10].sum().backward()
print("grad after t=10 is zero:", bool((x.grad[..., 11:] == 0).all()), "before:", bool(x.grad[..., :11].abs().sum() > 0))

# weight_norm through parametrizations, and removing the old-style one for inference
conv = nn.utils.parametrizations.weight_norm(nn.Conv1d(4, 6, 3), dim=0)
print(conv)
print(conv.parametrizations.weight.original0.shape, conv.parametrizations.weight.original1.shape)
print("norm check:", torch.allclose(conv.weight.flatten(1).norm(dim=1), conv.parametrizations.weight.original0.flatten()))
old = block.conv1.weight.detach().clone()
nn.utils.remove_weight_norm(block.conv1)
print(sorted(n for n, _ in block.conv1.named_parameters()), torch.allclose(old, block.conv1.weight))
