"""A tabular regression script fed from numpy float64 arrays (what pandas' .values gives), with
the dtype detours such scripts take: a BatchNorm / LayerNorm-first model refusing the float64
batch, the fixes people post (cast the data with .float(), or the model with .double(), or
torch.set_default_dtype(torch.float64) before building it), a standardisation fitted on the
training split, an RMSNorm whose weight stays float32 inside a bfloat16 autocast-style block,
and the training / evaluation loop in float64."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

np.random.seed(0)
torch.manual_seed(0)

# "df.values": float64 features, an int64 category column, a float64 target
n = 256
num = np.random.randn(n, 5)
cat = np.random.randint(0, 4, size=n)
y = (num @ np.array([1.0, -2.0, 0.5, 0.0, 3.0]) + 0.7 * cat + 0.1 * np.random.randn(n)).reshape(-1, 1)
print("numpy dtypes:", num.dtype, cat.dtype, y.dtype)
X_num = torch.from_numpy(num)
X_cat = torch.from_numpy(cat)
Y = torch.from_numpy(y)
print("tensor dtypes:", X_num.dtype, X_cat.dtype, Y.dtype)


class TabNet(nn.Module):
    def __init__(self, n_num, n_cat, emb=3, hidden=32):
        super().__init__()
        self.bn_in = nn.BatchNorm1d(n_num)
        self.emb = nn.Embedding(n_cat, emb)
        self.mlp = nn.Sequential(nn.Linear(n_num + emb, hidden), nn.LayerNorm(hidden), nn.SiLU(),
                                 nn.Linear(hidden, 1))

    def forward(self, x_num, x_cat):
        return self.mlp(torch.cat([self.bn_in(x_num), self.emb(x_cat).to(x_num.dtype)], dim=1))


model = TabNet(5, 4)
for attempt, fn in [("float64 batch, float32 model", lambda: model(X_num[:8], X_cat[:8])),
                    ("LayerNorm alone", lambda: nn.LayerNorm(5)(X_num[:8])),
                    ("GroupNorm alone", lambda: nn.GroupNorm(1, 5)(X_num[:8])),
                    ("Linear alone", lambda: nn.Linear(5, 2)(X_num[:8]))]:
    try:
        fn()
        print(attempt, "-> ok")
    except RuntimeError as e:
        print(attempt, "->", e)

# fix 1: cast the data
out = model(X_num[:8].float(), X_cat[:8])
print("fix 1 (.float()):", out.dtype, tuple(out.shape))
# fix 2: cast the model
model64 = TabNet(5, 4).double()
print("fix 2 (.double()):", model64(X_num[:8], X_cat[:8]).dtype, model64.bn_in.running_mean.dtype,
      model64.bn_in.num_batches_tracked.dtype)
# fix 3: the default dtype before building the model
torch.set_default_dtype(torch.float64)
model = TabNet(5, 4)
print("fix 3 (default float64):", next(model.parameters()).dtype, torch.tensor([1.5]).dtype, torch.zeros(1).dtype)

# standardise with the training split's statistics
idx = torch.randperm(n, generator=torch.Generator().manual_seed(0))
tr, va = idx[:200], idx[200:]
mu, sd = X_num[tr].mean(0), X_num[tr].std(0)
X_std = (X_num - mu) / sd
y_mu, y_sd = Y[tr].mean(), Y[tr].std()
Y_std = (Y - y_mu) / y_sd
train = DataLoader(TensorDataset(X_std[tr], X_cat[tr], Y_std[tr]), batch_size=32, shuffle=True,
                   generator=torch.Generator().manual_seed(1))
opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-2, total_steps=20 * len(train))
for epoch in range(20):
    model.train()
    for xb, cb, yb in train:
        opt.zero_grad()
        loss = F.mse_loss(model(xb, cb), yb)
        loss.backward()
        opt.step()
        sched.step()
    if epoch % 5 == 4:
        model.eval()
        with torch.no_grad():
            pred = model(X_std[va], X_cat[va]) * y_sd + y_mu
            rmse = torch.sqrt(F.mse_loss(pred, Y[va])).item()
            r2 = 1 - ((pred - Y[va]) ** 2).sum() / ((Y[va] - Y[va].mean()) ** 2).sum()
        print(f"epoch {epoch + 1:2d} train mse {loss.item():.6f} val rmse {rmse:.6f} r2 {r2.item():.6f}")
print("loss dtype:", loss.dtype, "bn stats dtype:", model.bn_in.running_var.dtype)
torch.set_default_dtype(torch.float32)

# back to float32 for deployment, and an RMSNorm with a float32 weight over bfloat16 activations
model = model.float()
with torch.no_grad():
    deployed = model(X_std[va].float(), X_cat[va])
print("deployed dtype:", deployed.dtype, "matches float64 run:",
      torch.allclose(deployed.double() * y_sd + y_mu, pred, atol=1e-3))
rms = nn.RMSNorm(8)
h = torch.randn(4, 8).to(torch.bfloat16)
out = rms(h)
print("rmsnorm:", out.dtype, out[0])
print("rmsnorm float32 weight over float64:", rms(torch.randn(2, 8, dtype=torch.float64)).dtype)
half_bn = nn.BatchNorm1d(8)
print("bfloat16 batch, float32 BatchNorm:", half_bn(h).dtype, half_bn.running_mean.dtype)
try:
    nn.BatchNorm1d(8).double()(h)
except RuntimeError as e:
    print("bfloat16 batch, float64 BatchNorm ->", e)
