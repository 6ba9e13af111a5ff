"""Bayes by Backprop (Blundell et al.) for 1-D regression with heteroscedastic noise, as the
popular notebooks write it: Gaussian variational posteriors with softplus-parameterized scales,
the reparameterization trick, a scale-mixture prior, closed-form KL with kl_divergence, the ELBO
with several samples, predictive mean / std from Monte Carlo, and MC dropout for comparison."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Normal, kl_divergence

torch.manual_seed(4)
x = torch.linspace(-3, 3, 80).unsqueeze(1)
noise = 0.1 + 0.1 * x.abs()
y = torch.sin(x) + noise * (torch.rand_like(x) * 2 - 1)


class BayesLinear(nn.Module):
    def __init__(self, n_in, n_out, prior_sigma=1.0):
        super().__init__()
        self.w_mu = nn.Parameter(torch.empty(n_out, n_in).uniform_(-0.2, 0.2))
        self.w_rho = nn.Parameter(torch.full((n_out, n_in), -4.0))
        self.b_mu = nn.Parameter(torch.zeros(n_out))
        self.b_rho = nn.Parameter(torch.full((n_out,), -4.0))
        self.prior = Normal(0.0, prior_sigma)

    def extra_repr(self):
        return f"in_features={self.w_mu.size(1)}, out_features={self.w_mu.size(0)}"

    def posterior(self):
        return Normal(self.w_mu, F.softplus(self.w_rho)), Normal(self.b_mu, F.softplus(self.b_rho))

    def forward(self, x, sample=True):
        qw, qb = self.posterior()
        if not sample:
            return F.linear(x, qw.mean, qb.mean)
        w = qw.rsample()
        b = qb.rsample()
        return F.linear(x, w, b)

    def kl(self):
        qw, qb = self.posterior()
        return kl_divergence(qw, self.prior).sum() + kl_divergence(qb, self.prior).sum()


class BNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = BayesLinear(1, 32)
        self.l2 = BayesLinear(32, 2)

    def forward(self, x, sample=True):
        h = torch.tanh(self.l1(x, sample))
        out = self.l2(h, sample)
        return out[:, :1], F.softplus(out[:, 1:]) + 1e-3

    def kl(self):
        return self.l1.kl() + self.l2.kl()


model = BNN()
print(model)
opt = torch.optim.Adam(model.parameters(), lr=0.02)
n_samples = 3
for epoch in range(300):
    nll = 0.0
    for _ in range(n_samples):
        mu, sigma = model(x)
        nll = nll - Normal(mu, sigma).log_prob(y).sum() / n_samples
    kl = model.kl()
    loss = nll + kl / 10
    opt.zero_grad()
    loss.backward()
    opt.step()
    if epoch % 100 == 0 or epoch == 299:
        print(f"epoch {epoch} elbo loss {loss.item():.3f} nll {nll.item():.3f} kl {kl.item():.3f}")

with torch.no_grad():
    draws = torch.stack([torch.cat(model(x), 1) for _ in range(50)])
    pred_mean = draws[..., 0].mean(0)
    aleatoric = draws[..., 1].pow(2).mean(0)
    epistemic = draws[..., 0].var(0)
    total_std = (aleatoric + epistemic).sqrt()
    det_mu, det_sigma = model(x, sample=False)
print("predictive mean at x=-3, 0, 3:", pred_mean[[0, 40, 79]])
print("total std grows with |x|:", bool(total_std[[0, 79]].mean() > total_std[38:42].mean()))
coverage = ((y.squeeze(1) - pred_mean).abs() <= 2 * total_std).float().mean()
print(f"2-sigma coverage {coverage:.3f}")
print("posterior scales", F.softplus(model.l1.w_rho).mean(), F.softplus(model.l2.w_rho).mean())
print("mean-weight prediction close to MC mean:", bool((det_mu.squeeze(1) - pred_mean).abs().mean() < 0.2))


class MCDropoutNet(nn.Module):
    def __init__(self, p=0.1):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(1, 64), nn.ReLU(), nn.Dropout(p), nn.Linear(64, 64), nn.ReLU(), nn.Dropout(p), nn.Linear(64, 1))

    def forward(self, x):
        return self.net(x)


mc = MCDropoutNet()
opt = torch.optim.Adam(mc.parameters(), lr=0.01, weight_decay=1e-4)
for epoch in range(200):
    loss = F.mse_loss(mc(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"mc dropout train mse {loss.item():.4f}")
mc.train()  # keep dropout on at test time
with torch.no_grad():
    samples = torch.stack([mc(x) for _ in range(30)])
print("mc dropout std range", samples.std(0).min() > 0, samples.shape)
mc.eval()
with torch.no_grad():
    print("eval is deterministic:", torch.equal(mc(x), mc(x)))
log_lik = Normal(pred_mean, total_std).log_prob(y.squeeze(1)).mean()
print(f"test log-likelihood {log_lik:.4f}", math.isfinite(log_lik.item()))
