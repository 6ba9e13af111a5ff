"""Training with a validation split, ReduceLROnPlateau and early stopping on the best state_dict."""
import copy

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, random_split

torch.manual_seed(3)
X = torch.randn(300, 10)
w = torch.randn(10, 1)
y = (X @ w + 0.5 * torch.randn(300, 1) > 0).float()
dataset = TensorDataset(X, y)
train_ds, val_ds = random_split(dataset, [240, 60])
print(len(train_ds), len(val_ds), type(train_ds).__name__)
train_loader = DataLoader(train_ds, batch_size=32, shuffle=True)
val_loader = DataLoader(val_ds, batch_size=60)

model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Dropout(0.2), nn.Linear(32, 1))
criterion = nn.BCEWithLogitsLoss()
optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-2)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=2)

best_loss, best_state, patience, bad_epochs = float("inf"), None, 5, 0
for epoch in range(60):
    model.train()
    for xb, yb in train_loader:
        optimizer.zero_grad()
        criterion(model(xb), yb).backward()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        val_loss = sum(criterion(model(xb), yb).item() for xb, yb in val_loader) / len(val_loader)
    scheduler.step(val_loss)
    if val_loss < best_loss - 1e-4:
        best_loss, bad_epochs = val_loss, 0
        best_state = copy.deepcopy(model.state_dict())
    else:
        bad_epochs += 1
    if bad_epochs >= patience:
        print(f"early stop at epoch {epoch}")
        break
print("stopped early:", bad_epochs >= patience)
print("lr reduced:", optimizer.param_groups[0]["lr"] < 1e-2)
model.load_state_dict(best_state)
model.eval()
with torch.no_grad():
    xb, yb = next(iter(val_loader))
    acc = ((torch.sigmoid(model(xb)) > 0.5).float() == yb).float().mean().item()
print(f"best val loss {best_loss:.4f}, accuracy {acc:.2%}")
print("accuracy above chance:", acc > 0.6)
print(scheduler.state_dict().keys())
