"""Stochastic Weight Averaging and an EMA of the weights with torch.optim.swa_utils (the SWA
tutorial's recipe): AveragedModel, SWALR, update_bn for the BatchNorm statistics, and an EMA
model built with get_ema_multi_avg_fn."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.swa_utils import AveragedModel, SWALR, get_ema_multi_avg_fn, update_bn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
X = torch.randn(256, 10)
w_true = torch.randn(10, 3)
y = (X @ w_true + 0.3 * torch.randn(256, 3)).argmax(dim=1)
train = DataLoader(TensorDataset(X[:192], y[:192]), batch_size=32, shuffle=True)
test_x, test_y = X[192:], y[192:]


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(10, 32)
        self.bn = nn.BatchNorm1d(32)
        self.fc2 = nn.Linear(32, 3)

    def forward(self, x):
        return self.fc2(F.relu(self.bn(self.fc1(x))))


model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=20)
swa_model = AveragedModel(model)
ema_model = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.9))
swa_start = 6
swa_scheduler = SWALR(optimizer, swa_lr=0.05, anneal_epochs=3, anneal_strategy="cos")
print(swa_model)
print("n_averaged:", swa_model.n_averaged, swa_model.n_averaged.dtype)
print("swa keys:", list(swa_model.state_dict().keys()))


def evaluate(net):
    net.eval()
    with torch.no_grad():
        out = net(test_x)
        loss = F.cross_entropy(out, test_y).item()
        acc = (out.argmax(1) == test_y).float().mean().item()
    net.train()
    return loss, acc


for epoch in range(10):
    total = 0.0
    for xb, yb in train:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        optimizer.step()
        ema_model.update_parameters(model)
        total += loss.item() * len(xb)
    if epoch >= swa_start:
        swa_model.update_parameters(model)
        swa_scheduler.step()
    else:
        scheduler.step()
    lr = optimizer.param_groups[0]["lr"]
    print(f"epoch {epoch} loss {total / 192:.4f} lr {lr:.5f} n_averaged {int(swa_model.n_averaged)}")

print("running_mean before update_bn:", swa_model.module.bn.running_mean[:4])
update_bn(train, swa_model)
print("running_mean after update_bn:", swa_model.module.bn.running_mean[:4])
print("num_batches_tracked:", swa_model.module.bn.num_batches_tracked)
update_bn(train, ema_model)
for name, net in [("model", model), ("swa", swa_model), ("ema", ema_model)]:
    loss, acc = evaluate(net)
    print(f"{name:5s} test loss {loss:.4f} acc {acc:.3f}")

# the averaged parameters are the running mean of the snapshots taken at each SWA epoch
print("swa differs from last model:",
      not torch.allclose(swa_model.module.fc1.weight, model.fc1.weight))
print("ema n_averaged:", ema_model.n_averaged.item())
print("swa_scheduler state keys:", sorted(swa_scheduler.state_dict().keys()))
print(swa_scheduler.get_last_lr())
