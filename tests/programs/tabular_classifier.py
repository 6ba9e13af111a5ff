"""An imbalanced tabular classifier: BatchNorm1d MLP, class weights, WeightedRandomSampler, random_split, OneCycleLR, ReduceLROnPlateau, early stopping with a deepcopy of the best state_dict."""
import copy

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, WeightedRandomSampler, random_split

torch.manual_seed(0)
np.random.seed(0)

# synthetic "credit" data: 400 rows, 6 numeric features, 15% positives
n = 400
X = np.random.randn(n, 6).astype(np.float32)
logit = 1.5 * X[:, 0] - 2.0 * X[:, 1] + X[:, 2] * X[:, 3] - 2.2
y = (logit + 0.5 * np.random.randn(n) > 0).astype(np.int64)
print(f"positives: {y.sum()} / {n}")
mean, std = X.mean(axis=0), X.std(axis=0)
X = (X - mean) / std

dataset = TensorDataset(torch.from_numpy(X), torch.from_numpy(y))
generator = torch.Generator().manual_seed(42)
train_set, val_set, test_set = random_split(dataset, [0.7, 0.15, 0.15], generator=generator)
print("split sizes:", len(train_set), len(val_set), len(test_set))

train_labels = torch.tensor([dataset[i][1].item() for i in train_set.indices])
class_counts = torch.bincount(train_labels)
class_weights = 1.0 / class_counts.float()
sample_weights = class_weights[train_labels]
print("class counts:", class_counts.tolist())
sampler = WeightedRandomSampler(sample_weights, num_samples=len(sample_weights), replacement=True)
train_loader = DataLoader(train_set, batch_size=32, sampler=sampler)
val_loader = DataLoader(val_set, batch_size=64)
test_loader = DataLoader(test_set, batch_size=64)


class TabularNet(nn.Module):
    def __init__(self, n_in, hidden=(32, 16), p=0.2):
        super().__init__()
        layers = []
        for h in hidden:
            layers += [nn.Linear(n_in, h), nn.BatchNorm1d(h), nn.ReLU(inplace=True), nn.Dropout(p)]
            n_in = h
        layers.append(nn.Linear(n_in, 2))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


model = TabularNet(6)
print(model)
loss_weights = (len(train_labels) / (2 * class_counts.float()))
criterion = nn.CrossEntropyLoss(weight=loss_weights)
print("loss weights:", loss_weights)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-2)
EPOCHS = 12
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-2, epochs=EPOCHS,
                                                steps_per_epoch=len(train_loader))
plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=2)


def evaluate(loader):
    model.eval()
    total, correct, loss_sum, tp, fn = 0, 0, 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in loader:
            out = model(xb)
            loss_sum += criterion(out, yb).item() * len(yb)
            pred = out.argmax(1)
            correct += (pred == yb).sum().item()
            tp += ((pred == 1) & (yb == 1)).sum().item()
            fn += ((pred == 0) & (yb == 1)).sum().item()
            total += len(yb)
    return loss_sum / total, correct / total, tp / max(tp + fn, 1)


best_loss, best_state, patience, bad_epochs = float("inf"), None, 4, 0
for epoch in range(EPOCHS):
    model.train()
    for xb, yb in train_loader:
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), max_norm=2.0)
        optimizer.step()
        scheduler.step()
    val_loss, val_acc, val_recall = evaluate(val_loader)
    lr = optimizer.param_groups[0]["lr"]
    print(f"epoch {epoch:2d} val_loss {val_loss:.4f} acc {val_acc:.3f} recall {val_recall:.3f} lr {lr:.5f}")
    if val_loss < best_loss - 1e-4:
        best_loss, bad_epochs = val_loss, 0
        best_state = copy.deepcopy(model.state_dict())
    else:
        bad_epochs += 1
        if bad_epochs >= patience:
            print(f"early stopping at epoch {epoch}")
            break

print("best state keys:", list(best_state)[:4], "...", len(best_state))
print("running_mean equal to the live one:",
      torch.equal(best_state["net.1.running_mean"], model.net[1].running_mean))
model.load_state_dict(best_state)
test_loss, test_acc, test_recall = evaluate(test_loader)
print(f"test loss {test_loss:.4f} acc {test_acc:.3f} recall {test_recall:.3f}")
print("num_batches_tracked:", model.net[1].num_batches_tracked)
print("onecycle state keys:", sorted(scheduler.state_dict())[:5])
plateau.step(best_loss)
print("plateau:", plateau.state_dict()["best"] == best_loss, plateau.num_bad_epochs)
