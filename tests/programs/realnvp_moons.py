"""RealNVP on the two-moons toy data (the normalizing-flows tutorial style): affine coupling layers
with alternating binary masks kept as buffers, a MultivariateNormal base distribution, exact
log-likelihood with the log-determinant, sampling by inverting the flow, and
torch.distributions' TransformedDistribution with an AffineTransform / ComposeTransform check."""
import math

import numpy as np
import torch
import torch.nn as nn
from torch import distributions as D

torch.manual_seed(1)
np.random.seed(1)


def make_moons(n, noise=0.05):
    n_out = n // 2
    n_in = n - n_out
    outer = np.stack([np.cos(np.linspace(0, np.pi, n_out)), np.sin(np.linspace(0, np.pi, n_out))], 1)
    inner = np.stack([1 - np.cos(np.linspace(0, np.pi, n_in)), 1 - np.sin(np.linspace(0, np.pi, n_in)) - 0.5], 1)
    X = np.concatenate([outer, inner]).astype(np.float32)
    X += noise * np.random.randn(*X.shape).astype(np.float32)
    return torch.from_numpy(X)


class Coupling(nn.Module):
    def __init__(self, mask, hidden=32):
        super().__init__()
        self.register_buffer("mask", mask)
        d = mask.numel()
        self.s = nn.Sequential(nn.Linear(d, hidden), nn.LeakyReLU(), nn.Linear(hidden, hidden), nn.LeakyReLU(),
                               nn.Linear(hidden, d), nn.Tanh())
        self.t = nn.Sequential(nn.Linear(d, hidden), nn.LeakyReLU(), nn.Linear(hidden, hidden), nn.LeakyReLU(),
                               nn.Linear(hidden, d))

    def forward(self, x):  # data -> latent
        x_ = x * self.mask
        s = self.s(x_) * (1 - self.mask)
        t = self.t(x_) * (1 - self.mask)
        z = x_ + (1 - self.mask) * (x * torch.exp(s) + t)
        return z, s.sum(dim=1)

    def inverse(self, z):
        z_ = z * self.mask
        s = self.s(z_) * (1 - self.mask)
        t = self.t(z_) * (1 - self.mask)
        return z_ + (1 - self.mask) * ((z - t) * torch.exp(-s))


class RealNVP(nn.Module):
    def __init__(self, n_layers=4):
        super().__init__()
        masks = [torch.tensor([1.0, 0.0]) if i % 2 == 0 else torch.tensor([0.0, 1.0]) for i in range(n_layers)]
        self.layers = nn.ModuleList(Coupling(m) for m in masks)
        self.prior = D.MultivariateNormal(torch.zeros(2), torch.eye(2))

    def forward(self, x):
        log_det = torch.zeros(x.shape[0])
        for layer in self.layers:
            x, ld = layer(x)
            log_det = log_det + ld
        return x, log_det

    def log_prob(self, x):
        z, log_det = self(x)
        return self.prior.log_prob(z) + log_det

    def sample(self, n):
        z = self.prior.sample((n,))
        for layer in reversed(self.layers):
            z = layer.inverse(z)
        return z


X = make_moons(512)
flow = RealNVP()
print(flow.layers[0])
print("buffers:", [n for n, _ in flow.named_buffers()])
print("prior:", flow.prior)
opt = torch.optim.Adam([p for p in flow.parameters() if p.requires_grad], lr=1e-3)
for step in range(301):
    idx = torch.randint(0, X.shape[0], (128,))
    loss = -flow.log_prob(X[idx]).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 50 == 0:
        print(f"step {step:3d} nll {loss.item():.4f}")

with torch.no_grad():
    nll = -flow.log_prob(X).mean().item()
    z, _ = flow(X)
    x_rec = z
    for layer in reversed(flow.layers):
        x_rec = layer.inverse(x_rec)
    samples = flow.sample(1000)
print(f"final nll {nll:.4f} bits/dim {nll / (2 * math.log(2)):.4f}")
print("invertible:", torch.allclose(x_rec, X, atol=1e-5))
print("latent mean / std:", z.mean(0).numpy().round(2).tolist(), z.std(0).numpy().round(2).tolist())
print("sample shape:", samples.shape, "finite:", bool(torch.isfinite(samples).all()))

# the same base + an affine map through torch.distributions
base = D.MultivariateNormal(torch.zeros(2), scale_tril=torch.tensor([[1.0, 0.0], [0.5, 2.0]]))
aff = D.TransformedDistribution(base, [D.AffineTransform(loc=torch.tensor([1.0, -1.0]), scale=2.0)])
pt = torch.tensor([[0.5, 0.5], [1.0, -1.0]])
print("affine log_prob:", aff.log_prob(pt))
comp = D.ComposeTransform([D.SigmoidTransform(), D.AffineTransform(0.0, 3.0)])
y = comp(torch.tensor([-1.0, 0.0, 2.0]))
print("compose:", y, comp.inv(y), comp.log_abs_det_jacobian(torch.tensor([-1.0, 0.0, 2.0]), y))
print("covariance:", base.covariance_matrix)
print("entropy:", base.entropy(), "event shape:", base.event_shape, "batch shape:", base.batch_shape)
