"""The seeding and determinism boilerplate of research code: seed_everything, deterministic flags, worker_init_fn, random_split fractions, map_location loads."""
import os
import random

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, random_split


def seed_everything(seed=42):
    random.seed(seed)
    os.environ["PYTHONHASHSEED"] = str(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False


def seed_worker(worker_id):
    worker_seed = torch.initial_seed() % 2**32
    np.random.seed(worker_seed)
    random.seed(worker_seed)


seed_everything(42)
torch.use_deterministic_algorithms(True)
print("deterministic:", torch.are_deterministic_algorithms_enabled(), torch.backends.cudnn.deterministic)
torch.set_num_threads(1)
print("threads:", torch.get_num_threads(), "initial seed:", torch.initial_seed())

X = torch.randn(100, 5)
y = (X.sum(1) > 0).long()
ds = TensorDataset(X, y)
g = torch.Generator()
g.manual_seed(0)
train_ds, val_ds, test_ds = random_split(ds, [0.7, 0.2, 0.1], generator=torch.Generator().manual_seed(1))
print(len(train_ds), len(val_ds), len(test_ds), train_ds.indices[:5])
loader = DataLoader(train_ds, batch_size=16, shuffle=True, num_workers=2, worker_init_fn=seed_worker,
                    generator=g)


def run():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Dropout(0.1), nn.Linear(8, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    g.manual_seed(0)
    losses = []
    for _epoch in range(3):
        for xb, yb in loader:
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            losses.append(loss.item())
    return model, losses


m1, l1 = run()
m2, l2 = run()
print("same losses twice:", l1 == l2, len(l1))
print("same weights twice:", all(torch.equal(a, b) for a, b in zip(m1.parameters(), m2.parameters())))
print(f"final loss {l1[-1]:.4f}")

state = torch.get_rng_state()
a = torch.rand(3)
torch.set_rng_state(state)
b = torch.rand(3)
print("rng state restores:", torch.equal(a, b))
with torch.random.fork_rng():
    torch.manual_seed(123)
    inner = torch.rand(1)
print("fork_rng restores:", not torch.equal(torch.rand(3), a))
gen = torch.Generator().manual_seed(7)
print(torch.randn(2, generator=gen), torch.randint(0, 10, (3,), generator=gen), gen.initial_seed())
print(torch.randperm(6, generator=torch.Generator().manual_seed(3)))
print(torch.rand(2, generator=torch.Generator().manual_seed(3)), torch.normal(0.0, 1.0, size=(2,), generator=gen))

torch.save({"model": m1.state_dict(), "losses": l1}, "run.pt")
ckpt = torch.load("run.pt", map_location=torch.device("cpu"), weights_only=True)
print(sorted(ckpt), ckpt["model"]["0.weight"].device, len(ckpt["losses"]))
ckpt = torch.load("run.pt", map_location="cpu")
m3 = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Dropout(0.1), nn.Linear(8, 2))
print(m3.load_state_dict(ckpt["model"]))
m3.eval()
with torch.inference_mode():
    out = m3(X[:4])
print(out.requires_grad, torch.is_inference_mode_enabled(), out.argmax(1).tolist() == m1.eval()(X[:4]).argmax(1).tolist())


@torch.no_grad()
def predict(model, x):
    return model(x).softmax(-1)


p = predict(m3, X[:2])
print(p.requires_grad, p.sum(-1))
