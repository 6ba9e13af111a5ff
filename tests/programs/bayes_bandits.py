"""Bayesian bandits and conjugate updates with torch.distributions: Thompson sampling with Beta
posteriors, a Gamma-Poisson rate model, a Dirichlet-multinomial, and closed-form KL terms.
In the style of the "Bayesian A/B testing in PyTorch" blog scripts."""
import math

import torch
from torch.distributions import Beta, Binomial, Dirichlet, Gamma, Poisson, kl_divergence

torch.manual_seed(42)
torch.set_printoptions(precision=4)

# --- Thompson sampling on a 4-armed Bernoulli bandit ---
true_p = torch.tensor([0.15, 0.30, 0.55, 0.50])
alpha = torch.ones(4)
beta = torch.ones(4)
pulls = torch.zeros(4, dtype=torch.long)
total_reward = 0.0
for t in range(300):
    theta = Beta(alpha, beta).sample()
    arm = int(torch.argmax(theta))
    reward = torch.bernoulli(true_p[arm]).item()
    alpha[arm] += reward
    beta[arm] += 1 - reward
    pulls[arm] += 1
    total_reward += reward
    if (t + 1) % 100 == 0:
        print(f"t={t + 1:3d} pulls={pulls.tolist()} reward={total_reward:.0f}")

post = Beta(alpha, beta)
print("posterior mean", post.mean)
print("posterior std ", post.stddev)
print("best arm by posterior mean:", post.mean.argmax().item())
regret = 300 * true_p.max().item() - total_reward
print(f"regret: {regret:.1f}")
print("batch_shape", post.batch_shape, "event_shape", post.event_shape)
print("entropy", post.entropy())
print("log_prob(0.5)", post.log_prob(torch.tensor(0.5)))
prior = Beta(torch.ones(4), torch.ones(4))
print("KL(post || prior)", kl_divergence(post, prior))

# --- Gamma-Poisson: daily counts, posterior over the rate ---
counts = Poisson(torch.tensor(3.7)).sample((50,))
print("counts[:10]", counts[:10].long().tolist(), "mean", round(counts.mean().item(), 3))
a0, b0 = 2.0, 0.5
rate_post = Gamma(a0 + counts.sum(), b0 + len(counts))
print(rate_post)
print(f"rate posterior mean {rate_post.mean.item():.4f} var {rate_post.variance.item():.6f}")
s = rate_post.sample((2000,))
print(f"sampled mean {s.mean():.3f} within 0.05: {abs(s.mean() - rate_post.mean) < 0.05}")
# posterior predictive log-likelihood of a new count via lgamma (negative binomial)
k = torch.arange(0, 10, dtype=torch.float32)
a, b = rate_post.concentration, rate_post.rate
log_pp = (torch.lgamma(k + a) - torch.lgamma(a) - torch.lgamma(k + 1)
          + a * torch.log(b / (b + 1)) - k * torch.log(b + 1))
print("predictive pmf", log_pp.exp())
print("sums to", round(log_pp.exp().sum().item(), 3))

# --- Dirichlet-multinomial over 5 categories ---
conc = torch.tensor([0.5, 1.0, 2.0, 4.0, 8.0])
d = Dirichlet(conc)
p = d.sample()
print("dirichlet sample sums to 1:", torch.isclose(p.sum(), torch.tensor(1.0)).item())
print("dirichlet mean", d.mean)
obs = torch.tensor([3.0, 0.0, 5.0, 10.0, 2.0])
d_post = Dirichlet(conc + obs)
print("posterior mean", d_post.mean)
print("E[log p] via digamma", torch.digamma(d_post.concentration) - torch.digamma(d_post.concentration.sum()))
print("KL(post || prior)", kl_divergence(d_post, d).item())
print("log_prob of uniform", d.log_prob(torch.full((5,), 0.2)))

# --- Binomial likelihood, maximum a posteriori by gradient ascent on a logit ---
n_trials = torch.tensor([10.0, 20.0, 15.0, 30.0])
successes = torch.tensor([3.0, 9.0, 6.0, 14.0])
logit = torch.zeros(1, requires_grad=True)
opt = torch.optim.Adam([logit], lr=0.1)
for step in range(200):
    opt.zero_grad()
    ll = Binomial(total_count=n_trials, logits=logit.expand(4)).log_prob(successes).sum()
    lp = Beta(torch.tensor(2.0), torch.tensor(2.0)).log_prob(torch.sigmoid(logit)).sum()
    loss = -(ll + lp)
    loss.backward()
    opt.step()
    if step % 50 == 0:
        print(f"step {step:3d} neg log posterior {loss.item():.5f}")
p_map = torch.sigmoid(logit).item()
closed = (successes.sum() + 1) / (n_trials.sum() + 2)
print(f"MAP p {p_map:.4f} closed form {closed.item():.4f}")
print("binomial sample", Binomial(10, torch.tensor([0.2, 0.8])).sample((3,)))
print("math check", math.isclose(p_map, closed.item(), rel_tol=1e-3))
