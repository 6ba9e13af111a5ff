"""A VAE trained with cyclical KL annealing (Fu et al.'s schedule) and a warmup + cosine LR chain
(SequentialLR of LinearLR and CosineAnnealingLR, then ReduceLROnPlateau on the validation ELBO),
free bits on the KL term, and the usual reparameterization / ELBO bookkeeping."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.lr_scheduler import CosineAnnealingLR, LinearLR, ReduceLROnPlateau, SequentialLR
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(42)

# toy data: 2 latent factors pushed through a fixed nonlinear map into 16 dims
N, D, LATENT = 512, 16, 2
z_true = torch.randn(N, LATENT)
mixing = torch.randn(LATENT, D)
data = torch.sigmoid(torch.tanh(z_true @ mixing) * 2.0 + 0.1 * torch.randn(N, D))
train_ds = TensorDataset(data[:448])
val = data[448:]
loader = DataLoader(train_ds, batch_size=64, shuffle=False)


def frange_cycle_linear(n_iter, start=0.0, stop=1.0, n_cycle=4, ratio=0.5):
    L = torch.ones(n_iter) * stop
    period = n_iter / n_cycle
    step = (stop - start) / (period * ratio)
    for c in range(n_cycle):
        v, i = start, 0
        while v <= stop and (int(i + c * period) < n_iter):
            L[int(i + c * period)] = v
            v += step
            i += 1
    return L


class VAE(nn.Module):
    def __init__(self, d_in, hidden=32, latent=LATENT):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(d_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.fc_mu = nn.Linear(hidden, latent)
        self.fc_logvar = nn.Linear(hidden, latent)
        self.dec = nn.Sequential(nn.Linear(latent, hidden), nn.ReLU(), nn.Linear(hidden, d_in))

    def encode(self, x):
        h = self.enc(x)
        return self.fc_mu(h), self.fc_logvar(h)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def forward(self, x):
        mu, logvar = self.encode(x)
        z = self.reparameterize(mu, logvar)
        return self.dec(z), mu, logvar


def loss_function(recon_logits, x, mu, logvar, beta, free_bits=0.05):
    bce = F.binary_cross_entropy_with_logits(recon_logits, x, reduction="sum") / x.size(0)
    kld_per_dim = -0.5 * (1 + logvar - mu.pow(2) - logvar.exp())  # (B, latent)
    kld_per_dim = kld_per_dim.mean(0)
    kld = torch.clamp(kld_per_dim, min=free_bits).sum()
    return bce + beta * kld, bce, kld_per_dim.sum()


model = VAE(D)
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
epochs = 12
warmup = LinearLR(optimizer, start_factor=0.1, end_factor=1.0, total_iters=3)
cosine = CosineAnnealingLR(optimizer, T_max=epochs - 3, eta_min=1e-4)
scheduler = SequentialLR(optimizer, schedulers=[warmup, cosine], milestones=[3])
plateau = ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=1)
betas = frange_cycle_linear(epochs * len(loader), n_cycle=3)
print("beta schedule:", [round(b, 3) for b in betas[:10].tolist()], "...", round(betas[-1].item(), 3))

it = 0
history = []
for epoch in range(1, epochs + 1):
    model.train()
    tot = rec_tot = kl_tot = 0.0
    for (x,) in loader:
        beta = betas[it].item()
        it += 1
        optimizer.zero_grad()
        recon, mu, logvar = model(x)
        loss, rec, kl = loss_function(recon, x, mu, logvar, beta)
        loss.backward()
        optimizer.step()
        tot += loss.item() * x.size(0)
        rec_tot += rec.item() * x.size(0)
        kl_tot += kl.item() * x.size(0)
    scheduler.step()
    model.eval()
    with torch.no_grad():
        mu, logvar = model.encode(val)
        recon = model.dec(mu)
        val_rec = F.binary_cross_entropy_with_logits(recon, val, reduction="sum").item() / val.size(0)
        val_kl = (-0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp(), dim=1)).mean().item()
    val_elbo = val_rec + val_kl
    if epoch > 6:
        plateau.step(val_elbo)
    history.append(val_elbo)
    n = len(train_ds)
    print(f"epoch {epoch:2d} loss {tot / n:.4f} rec {rec_tot / n:.4f} kl {kl_tot / n:.4f} "
          f"val -elbo {val_elbo:.4f} lr {optimizer.param_groups[0]['lr']:.6f}")

print("scheduler last lr:", [f"{lr:.6f}" for lr in scheduler.get_last_lr()])
print("plateau best:", f"{plateau.best:.4f}", "bad epochs:", plateau.num_bad_epochs)
print("val improved:", history[-1] < history[0])

# active units (Burda et al.): latent dims whose posterior mean varies across the data
with torch.no_grad():
    mu, _ = model.encode(data)
    au = (mu.var(dim=0) > 1e-2).sum().item()
print("active units:", au, "of", LATENT)

# interpolation in latent space and the decoder's mean output
with torch.no_grad():
    z0, z1 = mu[0], mu[1]
    alphas = torch.linspace(0, 1, 5).unsqueeze(1)
    path = torch.lerp(z0.expand(5, -1), z1.expand(5, -1), alphas)
    out = torch.sigmoid(model.dec(path))
print("interpolation shape:", tuple(out.shape), "monotone endpoints:",
      torch.allclose(out[0], torch.sigmoid(model.dec(z0)), atol=1e-6))
print("state_dict keys:", list(model.state_dict().keys())[:4], "...")
print("scheduler state keys:", sorted(scheduler.state_dict().keys()))
print("perplexity-like exp(rec/D): %.3f" % math.exp(history[-1] / D))
