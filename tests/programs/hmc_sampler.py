"""Hamiltonian Monte Carlo written by hand on top of autograd (the pattern of many "HMC from
scratch" notebooks): leapfrog integration with torch.autograd.grad, Metropolis acceptance,
dual-averaging step-size adaptation, then a Bayesian logistic regression posterior and a
banana-shaped target. Effective sample size and R-hat computed with tensor ops. Float64."""
import math

import torch
from torch.distributions import MultivariateNormal, Normal

torch.manual_seed(2024)
dt = torch.float64


def grad_log_prob(log_prob, q):
    q = q.detach().requires_grad_(True)
    lp = log_prob(q)
    (g,) = torch.autograd.grad(lp, q)
    return lp.detach(), g


def leapfrog(log_prob, q, p, eps, L):
    _, g = grad_log_prob(log_prob, q)
    p = p + 0.5 * eps * g
    for i in range(L):
        q = q + eps * p
        lp, g = grad_log_prob(log_prob, q)
        if i != L - 1:
            p = p + eps * g
    p = p + 0.5 * eps * g
    return q, p, lp


def hmc(log_prob, q0, n_samples, eps=0.1, L=10, adapt=200, target_accept=0.8):
    q = q0.clone()
    lp, _ = grad_log_prob(log_prob, q)
    samples, accepts = [], []
    mu, log_eps_bar, h_bar, gamma, t0, kappa = math.log(10 * eps), 0.0, 0.0, 0.05, 10, 0.75
    for it in range(n_samples + adapt):
        p0 = torch.randn_like(q)
        q_new, p_new, lp_new = leapfrog(log_prob, q, p0, eps, L)
        h0 = -lp + 0.5 * (p0 * p0).sum()
        h1 = -lp_new + 0.5 * (p_new * p_new).sum()
        accept_prob = torch.exp(torch.clamp(h0 - h1, max=0.0)).item()
        if torch.rand(1, dtype=dt).item() < accept_prob:
            q, lp = q_new, lp_new
        if it < adapt:
            m = it + 1
            h_bar = (1 - 1 / (m + t0)) * h_bar + (target_accept - accept_prob) / (m + t0)
            log_eps = mu - math.sqrt(m) / gamma * h_bar
            eta = m ** (-kappa)
            log_eps_bar = eta * log_eps + (1 - eta) * log_eps_bar
            eps = math.exp(log_eps)
            if it == adapt - 1:
                eps = math.exp(log_eps_bar)
        else:
            samples.append(q.clone())
            accepts.append(accept_prob)
    return torch.stack(samples), sum(accepts) / len(accepts), eps


def ess(x):
    """Effective sample size of a 1-D chain from its autocorrelations (Geyer's initial positive sequence)."""
    n = x.shape[0]
    x = x - x.mean()
    f = torch.stack([(x[: n - k] * x[k:]).sum() / n for k in range(min(n - 1, 200))])
    rho = f / f[0]
    s = 0.0
    for k in range(1, len(rho) - 1, 2):
        pair = (rho[k] + rho[k + 1]).item()
        if pair < 0:
            break
        s += pair
    return n / (1 + 2 * s)


# --- a correlated 2-D Gaussian: the samples' covariance should match ---
cov = torch.tensor([[1.0, 0.9], [0.9, 1.0]], dtype=dt)
target = MultivariateNormal(torch.zeros(2, dtype=dt), covariance_matrix=cov)
samples, acc, eps = hmc(target.log_prob, torch.zeros(2, dtype=dt), 500, eps=0.2, L=8, adapt=150)
print(f"gaussian: accept {acc:.3f} eps {eps:.4f}")
print("sample mean", samples.mean(0))
print("sample cov\n", torch.cov(samples.T))
print("ESS", [round(ess(samples[:, i]), 1) for i in range(2)])

# --- Bayesian logistic regression ---
N, D = 100, 3
X = torch.randn(N, D, dtype=dt)
w_true = torch.tensor([1.5, -2.0, 0.5], dtype=dt)
y = torch.bernoulli(torch.sigmoid(X @ w_true))
prior = Normal(torch.zeros(D, dtype=dt), 2 * torch.ones(D, dtype=dt))


def log_post(w):
    logits = X @ w
    ll = -torch.nn.functional.binary_cross_entropy_with_logits(logits, y, reduction="sum")
    return ll + prior.log_prob(w).sum()


chains = []
for c in range(2):
    s, acc, eps = hmc(log_post, torch.randn(D, dtype=dt), 300, eps=0.05, L=15, adapt=150)
    print(f"chain {c}: accept {acc:.3f} eps {eps:.4f} posterior mean {s.mean(0).tolist()}")
    chains.append(s)
chains = torch.stack(chains)  # (chains, draws, D)
n = chains.shape[1]
W = chains.var(1).mean(0)
B = n * chains.mean(1).var(0)
rhat = torch.sqrt(((n - 1) / n * W + B / n) / W)
print("R-hat", rhat)
print("posterior sd", chains.reshape(-1, D).std(0))
pred = torch.sigmoid(X @ chains.reshape(-1, D).T).mean(1)
print(f"posterior predictive accuracy {((pred > 0.5).double() == y).double().mean():.3f}")

# --- banana (Rosenbrock-like) target ---
def banana(q):
    return -0.5 * (q[0] ** 2 / 4 + (q[1] - 0.5 * q[0] ** 2) ** 2 / 0.25)


s, acc, eps = hmc(banana, torch.zeros(2, dtype=dt), 400, eps=0.3, L=12, adapt=200)
print(f"banana: accept {acc:.3f} eps {eps:.4f} mean {s.mean(0)} quantiles {torch.quantile(s[:, 1], torch.tensor([0.05, 0.5, 0.95], dtype=dt))}")
