"""Saving and resuming a whole training run, as trainer libraries do: model / optimizer /
scheduler / RNG states in one checkpoint dict (torch.save to a file and to BytesIO), the best
model kept as a deep copy of its state_dict, a resumed run that continues bit for bit,
load_state_dict(strict=False) reports, weights_only loading, map_location."""
import copy
import io
import os
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

X = torch.linspace(-2, 2, 64).unsqueeze(1)
Y = torch.sin(2 * X) + 0.1 * torch.cos(7 * X)


def make(seed=0):
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Dropout(0.1), nn.Linear(16, 1))
    opt = torch.optim.AdamW(model.parameters(), lr=0.05, weight_decay=1e-3)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=5, gamma=0.7)
    return model, opt, sched


def train_epoch(model, opt, sched):
    model.train()
    perm = torch.randperm(len(X))
    total = 0.0
    for i in range(0, len(X), 16):
        idx = perm[i:i + 16]
        loss = F.mse_loss(model(X[idx]), Y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item() * len(idx)
    sched.step()
    return total / len(X)


@torch.no_grad()
def evaluate(model):
    model.eval()
    return F.mse_loss(model(X), Y).item()


model, opt, sched = make()
best = {"loss": float("inf"), "epoch": -1, "state": None}
history = []
for epoch in range(8):
    tr = train_epoch(model, opt, sched)
    val = evaluate(model)
    history.append(val)
    if val < best["loss"]:
        best = {"loss": val, "epoch": epoch, "state": copy.deepcopy(model.state_dict())}
    print(f"epoch {epoch} train {tr:.5f} val {val:.5f} lr {sched.get_last_lr()[0]:.5f}")
    if epoch == 4:
        checkpoint = {
            "epoch": epoch,
            "model": model.state_dict(),
            "optimizer": opt.state_dict(),
            "scheduler": sched.state_dict(),
            "torch_rng": torch.get_rng_state(),
            "numpy_rng": np.random.get_state(),
            "python_rng": random.getstate(),
            "best": {k: v for k, v in best.items() if k != "state"},
            "history": list(history),
        }
        torch.save(checkpoint, "ckpt.pt")
print("best epoch", best["epoch"], f"{best['loss']:.5f}")
print("checkpoint size > 1kB:", os.path.getsize("ckpt.pt") > 1000)

ckpt = torch.load("ckpt.pt", weights_only=False)
print("checkpoint keys", sorted(ckpt))
print("optimizer groups", [{k: v for k, v in g.items() if k != "params"} for g in ckpt["optimizer"]["param_groups"]])
print("optimizer state", {k: sorted(v) for k, v in ckpt["optimizer"]["state"].items()})
print("step counts", [v["step"] for v in ckpt["optimizer"]["state"].values()])
print("scheduler", ckpt["scheduler"])
print("rng state", ckpt["torch_rng"].dtype, ckpt["torch_rng"].shape)

model2, opt2, sched2 = make(seed=123)
model2.load_state_dict(ckpt["model"])
opt2.load_state_dict(ckpt["optimizer"])
sched2.load_state_dict(ckpt["scheduler"])
torch.set_rng_state(ckpt["torch_rng"])
resumed = []
for epoch in range(ckpt["epoch"] + 1, 8):
    train_epoch(model2, opt2, sched2)
    resumed.append(evaluate(model2))
print("resumed run matches:", resumed == history[5:], [f"{v:.5f}" for v in resumed])
print("same final weights:", all(torch.equal(a, b) for a, b in zip(model.state_dict().values(), model2.state_dict().values())))

model.load_state_dict(best["state"])
print(f"restored best: {evaluate(model):.5f}")

# partial loads and their reports
bigger = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Dropout(0.1), nn.Linear(16, 1), nn.Linear(1, 1))
result = bigger.load_state_dict(best["state"], strict=False)
print(result)
print("missing", result.missing_keys, "unexpected", result.unexpected_keys)
renamed = {f"backbone.{k}": v for k, v in best["state"].items()}
result = model.load_state_dict(renamed, strict=False)
print(len(result.missing_keys), len(result.unexpected_keys))
try:
    model.load_state_dict(renamed)
except RuntimeError as e:
    print("RuntimeError:", str(e).splitlines()[0])
stripped = {k.removeprefix("backbone."): v for k, v in renamed.items()}
print(model.load_state_dict(stripped))

buffer = io.BytesIO()
torch.save({"weights": model.state_dict(), "meta": {"classes": 1, "note": "sin"}}, buffer)
buffer.seek(0)
light = torch.load(buffer, weights_only=True, map_location="cpu")
print(sorted(light), light["meta"], list(light["weights"])[:2])
print(light["weights"]["0.weight"].shape, light["weights"]["0.weight"].requires_grad)
torch.save(model, "whole_model.pt")
whole = torch.load("whole_model.pt", weights_only=False)
print(type(whole).__name__, len(whole), f"{evaluate(whole):.5f}")
shared = {"a": torch.arange(6.0), "b": None}
shared["b"] = shared["a"][2:4]
torch.save(shared, "views.pt")
back = torch.load("views.pt")
back["b"][0] = 100.0
print("views stay views:", back["a"])
