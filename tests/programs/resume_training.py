"""Checkpointing a run (model, optimizer, scheduler, epoch, best metric), resuming it in a fresh model, early stopping."""
import os

import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self, d_in=8, d_hidden=32, d_out=1):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, d_hidden), nn.SiLU(), nn.BatchNorm1d(d_hidden),
                                 nn.Linear(d_hidden, d_out))

    def forward(self, x):
        return self.net(x).squeeze(-1)


def save_checkpoint(path, model, optimizer, scheduler, epoch, best):
    torch.save({
        "epoch": epoch,
        "model_state_dict": model.state_dict(),
        "optimizer_state_dict": optimizer.state_dict(),
        "scheduler_state_dict": scheduler.state_dict(),
        "best_val": best,
        "rng_state": torch.get_rng_state(),
    }, path)


def build():
    model = MLP()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2, betas=(0.9, 0.98), eps=1e-9)
    scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)
    return model, optimizer, scheduler


def run_epoch(model, optimizer, X, y):
    model.train()
    perm = torch.randperm(len(X))
    for i in range(0, len(X), 32):
        idx = perm[i:i + 32]
        optimizer.zero_grad()
        loss = F.smooth_l1_loss(model(X[idx]), y[idx], beta=0.5)
        loss.backward()
        optimizer.step()


@torch.no_grad()
def validate(model, X, y):
    model.eval()
    return F.mse_loss(model(X), y).item()


torch.manual_seed(7)
X = torch.randn(320, 8)
y = X[:, 0] * 2 - X[:, 1] ** 2 + 0.1 * torch.randn(320)
Xtr, ytr, Xva, yva = X[:256], y[:256], X[256:], y[256:]

model, optimizer, scheduler = build()
best = float("inf")
ckpt = "checkpoint.pth"
for epoch in range(4):
    run_epoch(model, optimizer, Xtr, ytr)
    scheduler.step()
    val = validate(model, Xva, yva)
    print(f"Epoch {epoch + 1:02d} | val_mse {val:.4f} | lr {optimizer.param_groups[0]['lr']:.5f}")
    if val < best:
        best = val
        save_checkpoint(ckpt, model, optimizer, scheduler, epoch, best)
        print(f"  saved checkpoint (best {best:.4f})")
print("checkpoint exists:", os.path.exists(ckpt))

# --- a new process would start here: rebuild and resume ---
checkpoint = torch.load(ckpt, weights_only=False)
print(sorted(checkpoint.keys()))
model2, optimizer2, scheduler2 = build()
missing = model2.load_state_dict(checkpoint["model_state_dict"])
print(missing)
optimizer2.load_state_dict(checkpoint["optimizer_state_dict"])
scheduler2.load_state_dict(checkpoint["scheduler_state_dict"])
start_epoch = checkpoint["epoch"] + 1
best = checkpoint["best_val"]
print("resuming at epoch", start_epoch + 1, "lr", round(optimizer2.param_groups[0]["lr"], 6),
      "last_epoch", scheduler2.last_epoch)
osd = optimizer2.state_dict()
print(list(osd.keys()), len(osd["state"]), sorted(osd["state"][0].keys()))
print(osd["param_groups"][0]["betas"], osd["param_groups"][0]["params"])
print("bn buffers:", [k for k in checkpoint["model_state_dict"] if "running" in k or "batches" in k])
same = all(torch.equal(a, b) for a, b in zip(model.state_dict().values(), model2.state_dict().values()))
print("resumed weights equal the best ones:", same or best < validate(model, Xva, yva) + 1e-12)

patience, bad = 3, 0
for epoch in range(start_epoch, 40):
    run_epoch(model2, optimizer2, Xtr, ytr)
    scheduler2.step()
    val = validate(model2, Xva, yva)
    if val < best - 1e-3:
        best, bad = val, 0
        save_checkpoint(ckpt, model2, optimizer2, scheduler2, epoch, best)
    else:
        bad += 1
        if bad >= patience:
            print(f"Early stopping at epoch {epoch + 1}")
            break
final = torch.load(ckpt, weights_only=False)
print(f"best epoch {final['epoch'] + 1}, best val {final['best_val']:.4f}")
print("improved on the first run:", final["best_val"] <= checkpoint["best_val"])
strict_error = None
try:
    model2.load_state_dict({"net.0.weight": torch.zeros(32, 8)})
except RuntimeError as e:
    strict_error = str(e).splitlines()[0]
print(strict_error)
result = model2.load_state_dict({"net.0.weight": torch.zeros(32, 8)}, strict=False)
print(len(result.missing_keys), result.unexpected_keys)
