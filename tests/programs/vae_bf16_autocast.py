"""A VAE trained the way recent CPU training scripts write it: torch.autocast("cpu",
dtype=torch.bfloat16) around the forward, the loss computed in float32 outside, a
torch.amp.GradScaler("cpu") (enabled=False, so its calls pass through as on a CPU box), the
reparameterisation trick through torch.distributions (Normal.rsample, Independent,
kl_divergence against the standard normal prior, and the closed form for comparison), and
the dtypes autocast gives each op printed."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Independent, Normal, kl_divergence

torch.manual_seed(0)


class VAE(nn.Module):
    def __init__(self, d=12, h=16, z=3):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(d, h), nn.ReLU())
        self.mu = nn.Linear(h, z)
        self.logvar = nn.Linear(h, z)
        self.dec = nn.Sequential(nn.Linear(z, h), nn.ReLU(), nn.Linear(h, d))

    def forward(self, x, eps):
        h = self.enc(x)
        mu, logvar = self.mu(h), self.logvar(h)
        std = torch.exp(0.5 * logvar)
        z = mu + std * eps
        return self.dec(z), mu, logvar


x = (torch.rand(32, 12) > 0.5).float()
model = VAE()
print("autocast dtype outside:", torch.get_autocast_dtype("cpu"),
      torch.is_autocast_enabled("cpu"))
with torch.autocast("cpu", dtype=torch.bfloat16):
    print("enabled inside:", torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"))
    h = model.enc(x)
    print("linear:", h.dtype, "relu keeps:", F.relu(h).dtype)
    print("exp:", torch.exp(h).dtype, "softmax:", F.softmax(h, dim=1).dtype,
          "sum:", h.sum().dtype)
    print("mm of float32 inputs:", torch.mm(x, x.t()).dtype,
          "bce_with_logits:", F.binary_cross_entropy_with_logits(h[:, :12], x).dtype)
    with torch.autocast("cpu", enabled=False):
        print("nested disabled:", model.enc(x).dtype)

scaler = torch.amp.GradScaler("cpu", enabled=False)
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
gen = torch.Generator().manual_seed(1)
for step in range(60):
    eps = torch.randn(32, 3, generator=gen)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        recon, mu, logvar = model(x, eps)
    recon, mu, logvar = recon.float(), mu.float(), logvar.float()
    rec = F.binary_cross_entropy_with_logits(recon, x, reduction="sum") / x.size(0)
    kl = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp()) / x.size(0)
    loss = rec + kl
    opt.zero_grad()
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    norm = nn.utils.clip_grad_norm_(model.parameters(), 5.0)
    scaler.step(opt)
    scaler.update()
    if step % 20 == 0:
        print(f"step {step} dtypes {recon.dtype} loss finite {bool(torch.isfinite(loss))} "
              f"kl>=0 {kl.item() >= 0} loss {loss.item():.4f} norm finite {bool(torch.isfinite(norm))}")
print("scaler scale:", scaler.get_scale(), scaler.is_enabled(), scaler.state_dict())

# distributions: the same KL through kl_divergence, float32 outside autocast
with torch.no_grad():
    h = model.enc(x)
    mu, logvar = model.mu(h), model.logvar(h)
q = Independent(Normal(mu, torch.exp(0.5 * logvar)), 1)
p = Independent(Normal(torch.zeros_like(mu), torch.ones_like(mu)), 1)
kl_lib = kl_divergence(q, p)
kl_closed = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp(), dim=1)
print("kl shapes:", kl_lib.shape, q.batch_shape, q.event_shape)
print("library kl equals the closed form:", bool(torch.allclose(kl_lib, kl_closed, atol=1e-5)))
z = q.rsample()
print("rsample:", z.shape, z.requires_grad, q.log_prob(z).shape)
print("bf16 round trip:", torch.tensor([1.0, 1.00390625, 3.14159], dtype=torch.bfloat16),
      torch.tensor([1.0, 1.00390625, 3.14159]).bfloat16().float())
