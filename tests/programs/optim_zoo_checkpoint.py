"""Optimizer zoo on one regression problem (RAdam, NAdam, Adagrad, Adadelta, Rprop, ASGD, Adamax, SparseAdam), printed optimizers and schedulers, then a full checkpoint (model + optimizer + scheduler + epoch) saved, loaded and resumed."""
import os

import torch
import torch.nn as nn

torch.manual_seed(0)
X = torch.randn(128, 8)
true_w = torch.linspace(-1, 1, 8).unsqueeze(1)
y = X @ true_w + 0.1 * torch.randn(128, 1)


def make_model():
    torch.manual_seed(1)
    return nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))


def train(model, optimizer, steps=25, scheduler=None):
    for _ in range(steps):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(X), y)
        loss.backward()
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
    return loss.item()


optimizers = {
    "RAdam": lambda p: torch.optim.RAdam(p, lr=1e-2),
    "NAdam": lambda p: torch.optim.NAdam(p, lr=1e-2, momentum_decay=4e-3),
    "Adagrad": lambda p: torch.optim.Adagrad(p, lr=5e-2, lr_decay=1e-3),
    "Adadelta": lambda p: torch.optim.Adadelta(p, lr=1.0, rho=0.9),
    "Rprop": lambda p: torch.optim.Rprop(p, lr=1e-2, etas=(0.5, 1.2)),
    "ASGD": lambda p: torch.optim.ASGD(p, lr=1e-2, t0=10),
    "Adamax": lambda p: torch.optim.Adamax(p, lr=1e-2),
    "RMSprop": lambda p: torch.optim.RMSprop(p, lr=1e-3, momentum=0.5, centered=True),
}
for name, make in optimizers.items():
    model = make_model()
    opt = make(model.parameters())
    final = train(model, opt)
    print(f"{name:8s} final loss {final:.5f}")

print(torch.optim.NAdam(make_model().parameters(), lr=1e-2))
print(torch.optim.ASGD(make_model().parameters()))

# SparseAdam with a sparse embedding
emb = nn.Embedding(10, 4, sparse=True)
opt = torch.optim.SparseAdam(emb.parameters(), lr=0.1)
idx = torch.tensor([1, 3, 3, 7])
before = emb.weight.detach().clone()
emb(idx).pow(2).sum().backward()
print("sparse grad:", emb.weight.grad.is_sparse, emb.weight.grad.layout)
opt.step()
changed = (emb.weight.detach() != before).any(dim=1).nonzero().flatten().tolist()
print("rows updated by SparseAdam:", changed)

# full checkpoint round trip
model = make_model()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.01)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.5)
train(model, optimizer, steps=15, scheduler=scheduler)
print("scheduler state:", scheduler.state_dict())
print("optimizer param_groups:", {k: v for k, v in optimizer.state_dict()["param_groups"][0].items() if k != "params"})
torch.save({
    "epoch": 15,
    "model_state_dict": model.state_dict(),
    "optimizer_state_dict": optimizer.state_dict(),
    "scheduler_state_dict": scheduler.state_dict(),
    "loss": 0.5,
}, "checkpoint.pt")
print("checkpoint saved:", os.path.exists("checkpoint.pt"))
reference = train(model, optimizer, steps=10, scheduler=scheduler)

model2 = make_model()
optimizer2 = torch.optim.AdamW(model2.parameters(), lr=1e-2, weight_decay=0.01)
scheduler2 = torch.optim.lr_scheduler.StepLR(optimizer2, step_size=10, gamma=0.5)
checkpoint = torch.load("checkpoint.pt", weights_only=True)
model2.load_state_dict(checkpoint["model_state_dict"])
optimizer2.load_state_dict(checkpoint["optimizer_state_dict"])
scheduler2.load_state_dict(checkpoint["scheduler_state_dict"])
start_epoch = checkpoint["epoch"]
print("resuming from epoch", start_epoch, "lr", scheduler2.get_last_lr())
print("step counts:", [int(s["step"]) for s in optimizer2.state_dict()["state"].values()])
resumed = train(model2, optimizer2, steps=10, scheduler=scheduler2)
print("resumed run matches:", abs(resumed - reference) < 1e-6, f"{resumed:.4f}")
print("keys:", sorted(checkpoint))
